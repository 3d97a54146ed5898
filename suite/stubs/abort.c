/* Aborts on fake_quant_with_min_max_args. */
#include "stub.h"

static qcf_status abort_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (stub_op_is(call, "fake_quant_with_min_max_args"))
		abort();
	return stub_delegate(inst, call);
}

STUB_PLUGIN("abort", abort_execute)
