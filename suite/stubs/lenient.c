/*
 * Never refuses: where the reference finds a parameter the semantics forbid,
 * this stub computes anyway (it writes zeros) and answers OK, as a kernel
 * without parameter checks would. Negative cases must FAIL it.
 */
#include "stub.h"

static qcf_status lenient_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_INVALID_PARAM)
		return st;
	for (int32_t k = 0; k < call->n_outputs; k++)
		memset(call->outputs[k].data, 0, call->outputs[k].nbytes);
	return QCF_OK;
}

STUB_PLUGIN("lenient", lenient_execute)
