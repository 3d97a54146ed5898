/*
 * ONNX Runtime's DynamicQuantizeLSTM (reference/ort_qlstm.c) with a typical mistake; every other
 * call goes to the reference unchanged.
 *
 *   DynamicQuantizeLSTM ignores sequence_lens: every batch row runs all seq_length steps. The
 *   stub lets the reference check the whole call first (the same refusals), then computes it
 *   again without the input. It differs wherever a row is shorter than seq_length: Y's padded
 *   steps are no longer 0, Y_h and Y_c come from a later step, and the rows still running see
 *   another H quantization.
 */
#include "stub.h"

static qcf_status mistakes_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !stub_op_is(call, "DynamicQuantizeLSTM"))
		return st;
	qcf_tensor in[12];
	int n = 0;
	for (int i = 0; i < call->n_inputs && n < 12; i++)
		if (!call->inputs[i].name || strcmp(call->inputs[i].name, "sequence_lens") != 0)
			in[n++] = call->inputs[i];
	if (n == call->n_inputs)
		return QCF_OK;
	qcf_op_call c = *call;
	c.inputs = in;
	c.n_inputs = n; /* the mistake: sequence_lens dropped */
	return stub_delegate(inst, &c);
}

STUB_PLUGIN("ort_lstm_mistakes", mistakes_execute)
