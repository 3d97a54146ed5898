/*
 * GGML's Q4_0 with its nibble order swapped (ABI version 2): element j of a block in the HIGH
 * nibble of qs[j] and element j + 16 in the low one, where ggml stores j low and j + 16 high
 * (ggml-common.h block_q4_0, quantize_row_q4_0_ref). Written so by quantize_row, read so by
 * dequantize_row and mul_mat; every other op and type is the reference's answer.
 */
#include "stub.h"

/* Swaps the nibbles of every qs byte of the Q4_0 blocks in data (18 bytes: d, then qs[16]). */
static void swap_q4_0(unsigned char *data, size_t nbytes)
{
	for (size_t b = 0; b + 18 <= nbytes; b += 18)
		for (int j = 0; j < 16; j++) {
			unsigned char v = data[b + 2 + j];
			data[b + 2 + j] = (unsigned char)((v >> 4) | (v << 4));
		}
}

static qcf_status nibbles_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (call->n_inputs < 1 || call->n_inputs > 4 || call->inputs[0].dtype != QCF_GGML_Q4_0)
		goto delegate;
	/* a reader: the same call with a copy of input 0 in the swapped order */
	qcf_tensor ins[4];
	memcpy(ins, call->inputs, (size_t)call->n_inputs * sizeof ins[0]);
	unsigned char *copy = malloc(ins[0].nbytes ? ins[0].nbytes : 1);
	if (!copy)
		return stub_fail(inst, QCF_ERROR, "out of memory");
	memcpy(copy, ins[0].data, ins[0].nbytes);
	swap_q4_0(copy, ins[0].nbytes);
	ins[0].data = copy;
	qcf_op_call c = *call;
	c.inputs = ins;
	qcf_status st = stub_delegate(inst, &c);
	free(copy);
	return st;
delegate:;
	qcf_status s = stub_delegate(inst, call);
	if (s == QCF_OK)
		for (int k = 0; k < call->n_outputs; k++)
			if (call->outputs[k].dtype == QCF_GGML_Q4_0) /* a writer */
				swap_q4_0(call->outputs[k].data, call->outputs[k].nbytes);
	return s;
}

STUB_PLUGIN_V2("ggml_q4_0_nibbles", nibbles_execute)
