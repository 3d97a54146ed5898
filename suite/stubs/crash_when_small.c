/*
 * A kernel that fails LiteRT ADD (every output element one LSB too high, one too low at the
 * dtype's top) and segfaults on any ADD call of fewer than 4 output elements: shrinking its
 * failures must survive the crashes its tries cause (suite/test_diagnose.c). Every other op is
 * the reference's answer.
 */
#include "reference/kernel.h"
#include "stub.h"

/* Not under UBSan: its null check would turn the fault into an abort. */
__attribute__((no_sanitize("undefined"))) static void write_through_null(void)
{
	volatile int *volatile p = NULL;
	*p = 1;
}

static qcf_status small_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !stub_op_is(call, "ADD") || call->n_outputs != 1)
		return st;
	qcf_tensor *y = &call->outputs[0];
	size_t n = qref_numel(y->rank, y->shape);
	if (n < 4)
		write_through_null();
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	for (size_t i = 0; i < n; i++) {
		double v = qref_get(y, i);
		qref_set(y, i, v < hi ? v + 1 : v - 1);
	}
	return QCF_OK;
}

STUB_PLUGIN("crash_when_small", small_execute)
