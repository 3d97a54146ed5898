/* Writes into input 0 on DEQUANTIZE (after computing a correct output). */
#include "stub.h"

static qcf_status modify_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st == QCF_OK && stub_op_is(call, "DEQUANTIZE") && call->n_inputs > 0 &&
	    call->inputs[0].nbytes > 0)
		((unsigned char *)call->inputs[0].data)[0] ^= 0xff;
	return st;
}

STUB_PLUGIN("modify_input", modify_execute)
