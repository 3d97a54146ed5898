/* Changes the call's description (output 0's nbytes) on DEQUANTIZE. */
#include "stub.h"

static qcf_status modify_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st == QCF_OK && stub_op_is(call, "DEQUANTIZE") && call->n_outputs > 0)
		call->outputs[0].nbytes = 0;
	return st;
}

STUB_PLUGIN("modify_call", modify_execute)
