/*
 * ONNX Runtime's QAttention (reference/ort_qattention.c) with a typical mistake; every other call
 * goes to the reference unchanged.
 *
 *   QAttention ignores mask_index (the padding mask): it attends to every key whatever the end
 *   positions, start positions or raw masks say (the causal mask of unidirectional stays). The
 *   stub lets the reference check the whole call first (the same refusals), then computes it
 *   again without the mask input. It differs wherever the mask masks a key.
 */
#include "stub.h"

static qcf_status mistakes_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !stub_op_is(call, "QAttention"))
		return st;
	qcf_tensor in[5];
	int n = 0;
	for (int i = 0; i < call->n_inputs && n < 5; i++)
		if (!call->inputs[i].name || strcmp(call->inputs[i].name, "mask_index") != 0)
			in[n++] = call->inputs[i];
	if (n == call->n_inputs)
		return QCF_OK;
	qcf_op_call c = *call;
	c.inputs = in;
	c.n_inputs = n; /* the mistake: the mask dropped */
	return stub_delegate(inst, &c);
}

STUB_PLUGIN("ort_attention_mistakes", mistakes_execute)
