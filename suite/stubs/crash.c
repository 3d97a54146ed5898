/* Segfaults on DEQUANTIZE. */
#include "stub.h"

/* Not under UBSan: its null check would turn the fault into an abort. */
__attribute__((no_sanitize("undefined"))) static void write_through_null(void)
{
	volatile int *volatile p = NULL;
	*p = 1;
}

static qcf_status crash_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (stub_op_is(call, "DEQUANTIZE"))
		write_through_null();
	return stub_delegate(inst, call);
}

STUB_PLUGIN("crash", crash_execute)
