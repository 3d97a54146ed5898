/* The reference as a plugin, through prepare and release: must pass everything. */
#include "stub.h"

struct qcf_prepared {
	const qcf_op_call *call;
};

static qcf_status ok_prepare(qcf_instance *inst, const qcf_op_call *call, qcf_prepared **out)
{
	*out = malloc(sizeof **out);
	if (!*out)
		return stub_fail(inst, QCF_ERROR, "out of memory");
	(*out)->call = call;
	return QCF_OK;
}

static qcf_status ok_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	if (!prep || prep->call != call)
		return stub_fail(inst, QCF_ERROR, "execute got a handle prepare did not make");
	return stub_delegate(inst, call);
}

static void ok_release(qcf_instance *inst, qcf_prepared *prep)
{
	(void)inst;
	free(prep);
}

STUB_PLUGIN_FULL("ok", stub_supports, ok_prepare, ok_execute, ok_release)
