/*
 * The reference plus two ops of its own, to watch the worker process:
 * "qconform_getpid" stores the worker's pid in output 0; "qconform_exit"
 * exits the worker with the status in attribute "status" (default 7).
 */
#include <unistd.h>

#include "stub.h"

static qcf_status pid_supports(qcf_instance *inst, const qcf_op_call *call)
{
	if (stub_op_is(call, "qconform_getpid") || stub_op_is(call, "qconform_exit"))
		return QCF_OK;
	return stub_supports(inst, call);
}

static qcf_status pid_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (stub_op_is(call, "qconform_getpid")) {
		if (call->n_outputs < 1 ||
		    qref_numel(call->outputs[0].rank, call->outputs[0].shape) < 1)
			return stub_fail(inst, QCF_INVALID_PARAM, "needs one output element");
		qref_set(&call->outputs[0], 0, (double)getpid());
		return QCF_OK;
	}
	if (stub_op_is(call, "qconform_exit")) {
		const qcf_attr *a = stub_attr(call, "status");
		_exit(a && a->type == QCF_ATTR_INT ? (int)a->v.i : 7);
	}
	return stub_delegate(inst, call);
}

STUB_PLUGIN_FULL("pid", pid_supports, NULL, pid_execute, NULL)
