/* Declines every call. */
#include "stub.h"

static qcf_status nothing_supports(qcf_instance *inst, const qcf_op_call *call)
{
	(void)call;
	return stub_fail(inst, QCF_NOT_SUPPORTED, "this stub supports nothing");
}

STUB_PLUGIN_FULL("supports_nothing", nothing_supports, NULL, stub_execute, NULL)
