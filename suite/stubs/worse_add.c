/*
 * The reference, except LiteRT ADD: every fifth output element (index 2, 7,
 * 12, ...) comes out one LSB too high (one too low at the dtype's top), as a
 * kernel with an off-by-one in its output offset on one vector lane would.
 * Every other op is exact: a diff against the reference's report must name
 * litert ADD and its cases, and nothing else (suite/test_gating.c).
 */
#include "stub.h"

static qcf_status worse_add_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !stub_op_is(call, "ADD") || !call->semantics ||
	    strcmp(call->semantics, "litert") != 0)
		return st;
	qcf_tensor *out = &call->outputs[0];
	int64_t lo, hi;
	if (!qref_dtype_range(out->dtype, &lo, &hi))
		return st;
	size_t n = qref_numel(out->rank, out->shape);
	for (size_t i = 2; i < n; i += 5) {
		double v = qref_get(out, i);
		qref_set(out, i, v < (double)hi ? v + 1 : v - 1);
	}
	return st;
}

STUB_PLUGIN("worse_add", worse_add_execute)
