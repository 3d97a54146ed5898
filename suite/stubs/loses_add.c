/* The reference, except that it no longer takes ADD: every ADD call is NOT_SUPPORTED (a kernel
 * that lost an op's support, which a gate must not let through). */
#include "stub.h"

static qcf_status loses_add_supports(qcf_instance *inst, const qcf_op_call *call)
{
	if (stub_op_is(call, "ADD"))
		return stub_fail(inst, QCF_NOT_SUPPORTED, "ADD is not supported any more");
	return stub_supports(inst, call);
}

STUB_PLUGIN_FULL("loses_add", loses_add_supports, NULL, stub_execute, NULL)
