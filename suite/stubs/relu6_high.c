/*
 * A kernel that knows no chains (plugin ABI version 1) whose RELU6 clamps one step too high
 * (what it clamps to 6 comes out one step higher): every other op is the reference's. Offered a
 * chain CONV_2D -> RELU6 op by op, it fails, and the result names node 2 as the first whose
 * output differs from the reference's intermediate (suite/test_chains.c).
 */
#include "stub.h"

static qcf_status high_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (!stub_op_is(call, "RELU6") || call->n_outputs != 1 || !call->outputs[0].quant)
		return stub_delegate(inst, call);
	/* the reference's answer, then its clamped top moved one step up */
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK)
		return st;
	qcf_tensor *y = &call->outputs[0];
	double top = (double)y->quant->zero_points[0] +
	             (double)(int64_t)(6.0f / y->quant->scales[0] + 0.5f);
	size_t n = qref_numel(y->rank, y->shape);
	for (size_t i = 0; i < n; i++) {
		double v = qref_get(y, i);
		if (v == top && v < 127)
			qref_set(y, i, v + 1);
	}
	return QCF_OK;
}

STUB_PLUGIN("relu6_high", high_execute)
