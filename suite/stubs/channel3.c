/*
 * The reference, except LiteRT CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED: every output element of output channel 3 (the last axis)
 * comes out one LSB too high (one too low at the dtype's top), as a kernel
 * with a wrong bias or multiplier in one channel would. Every other channel
 * and op is exact: the report must locate the failures in channel 3 alone
 * (suite/test_litert_conv.c).
 */
#include "stub.h"

static qcf_status channel3_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !call->semantics || strcmp(call->semantics, "litert") != 0 ||
	    !(stub_op_is(call, "CONV_2D") || stub_op_is(call, "DEPTHWISE_CONV_2D") ||
	      stub_op_is(call, "FULLY_CONNECTED")))
		return st;
	qcf_tensor *out = &call->outputs[0];
	int64_t lo, hi;
	if (out->rank < 1 || !qref_dtype_range(out->dtype, &lo, &hi))
		return st;
	int64_t channels = out->shape[out->rank - 1];
	size_t n = qref_numel(out->rank, out->shape);
	for (size_t i = 3; channels > 3 && i < n; i += (size_t)channels) {
		double v = qref_get(out, i);
		qref_set(out, i, v < (double)hi ? v + 1 : v - 1);
	}
	return st;
}

STUB_PLUGIN("channel3", channel3_execute)
