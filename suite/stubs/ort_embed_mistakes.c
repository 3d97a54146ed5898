/*
 * ONNX Runtime's QEmbedLayerNormalization (reference/ort_qembed.c) with a typical mistake; every
 * other call goes to the reference unchanged.
 *
 *   QEmbedLayerNormalization reads gamma and beta as symmetric: their zero points taken as 0
 *   (gamma = q * gamma_scale, beta = q * beta_scale), as a kernel that quantizes the layer
 *   norm's weights symmetrically would. The stub lets the reference check the whole call first
 *   (the same refusals), then computes it again with both zero points 0. It differs wherever
 *   either zero point is not 0.
 */
#include "stub.h"

static qcf_status mistakes_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !stub_op_is(call, "QEmbedLayerNormalization") || call->n_inputs < 5)
		return st;
	qcf_tensor in[8];
	qcf_quant q[2];
	const int32_t zero = 0;
	int n = call->n_inputs < 8 ? call->n_inputs : 8;
	for (int i = 0; i < n; i++)
		in[i] = call->inputs[i];
	for (int k = 0; k < 2; k++) {
		if (!in[3 + k].quant)
			return st;
		q[k] = *in[3 + k].quant;
		q[k].zero_points =
		        &zero; /* the mistake: gamma's and beta's zero points read as 0 */
		in[3 + k].quant = &q[k];
	}
	qcf_op_call c = *call;
	c.inputs = in;
	c.n_inputs = n;
	return stub_delegate(inst, &c);
}

STUB_PLUGIN("ort_embed_mistakes", mistakes_execute)
