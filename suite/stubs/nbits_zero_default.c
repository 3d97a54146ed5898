/*
 * Gets MatMulNBits's default zero point wrong: without a zero_points input ORT's B[n][k] is
 * (q - 2^(bits - 1)) * scale (8 for 4 bits, 128 for 8 bits: matmul_nbits.cc, MLAS), and this
 * stub computes (q - 0) * scale, a bug an implementation that reads "no zero points" as
 * "zero point 0" has. It hands the reference a copy of the call with an explicit zero_points
 * input of packed zeros (before bias); every other call goes to the reference unchanged.
 */
#include "stub.h"

static qcf_status nbits_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (!stub_op_is(call, "MatMulNBits") || call->n_inputs < 3 || call->n_inputs > 4)
		return stub_delegate(inst, call);
	for (int32_t i = 3; i < call->n_inputs; i++)
		if (call->inputs[i].name && strcmp(call->inputs[i].name, "zero_points") == 0)
			return stub_delegate(inst, call);
	int64_t N = 0, K = 0, bits = 4, bs = 0;
	if (qref_attr_int(call, "N", &N) != 1 || qref_attr_int(call, "K", &K) != 1 ||
	    qref_attr_int(call, "block_size", &bs) != 1 || N < 1 || K < 1 || bs < 1)
		return stub_delegate(inst, call); /* the reference refuses it */
	qref_attr_int(call, "bits", &bits);
	int64_t per = ((K + bs - 1) / bs * bits + 7) / 8;
	size_t nbytes = (size_t)(N * per);
	uint8_t *zeros = calloc(nbytes ? nbytes : 1, 1);
	qcf_tensor in[5];
	if (!zeros)
		return stub_fail(inst, QCF_ERROR, "out of memory");
	int64_t shape[1] = {N * per};
	memcpy(in, call->inputs, 3 * sizeof in[0]);
	in[3] = (qcf_tensor){sizeof in[3], "zero_points", QCF_UINT8, 1, shape, zeros, nbytes, NULL};
	if (call->n_inputs == 4)
		in[4] = call->inputs[3]; /* bias */
	qcf_op_call c = *call;
	c.inputs = in;
	c.n_inputs = call->n_inputs + 1;
	qcf_status st = stub_delegate(inst, &c);
	free(zeros);
	return st;
}

STUB_PLUGIN("nbits_zero_default", nbits_execute)
