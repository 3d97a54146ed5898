/* Never returns from QuantizeLinear. */
#include "stub.h"

static qcf_status hang_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (stub_op_is(call, "QuantizeLinear"))
		for (volatile int spin = 1; spin;)
			;
	return stub_delegate(inst, call);
}

STUB_PLUGIN("hang", hang_execute)
