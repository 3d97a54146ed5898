/*
 * ONNX Runtime's QMoE (reference/ort_qmoe.c) with a typical mistake; every other call goes to
 * the reference unchanged.
 *
 *   QMoE breaks a tie of router logits toward the lower expert index (what a stable sort or
 *   std::partial_sort over the experts in order gives), where ONNX Runtime 1.30 takes the
 *   higher one. The stub reverses the order of the experts (router_probs' columns, the first
 *   dimension of every expert tensor) and hands that call to the reference: the same experts and
 *   weights, ties broken the other way. It differs only where logits tie at the k-th place.
 */
#include "stub.h"

/* t with its first dimension (of n) in reverse order; NULL when out of memory */
static void *reversed(const qcf_tensor *t, int64_t n, int columns)
{
	uint8_t *out = malloc(t->nbytes ? t->nbytes : 1);
	if (!out || n < 1)
		return out;
	const uint8_t *in = t->data;
	if (columns) { /* router_probs [tokens, n]: each row's columns */
		size_t rows = t->nbytes / ((size_t)n * sizeof(float));
		for (size_t r = 0; r < rows; r++)
			for (int64_t e = 0; e < n; e++)
				memcpy(out + (r * (size_t)n + (size_t)e) * sizeof(float),
				       in + (r * (size_t)n + (size_t)(n - 1 - e)) * sizeof(float),
				       sizeof(float));
		return out;
	}
	size_t block = t->nbytes / (size_t)n;
	for (int64_t e = 0; e < n; e++)
		memcpy(out + (size_t)e * block, in + (size_t)(n - 1 - e) * block, block);
	return out;
}

static qcf_status mistakes_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call); /* its checks */
	if (st != QCF_OK || !stub_op_is(call, "QMoE") || call->n_inputs > 8)
		return st;
	int64_t E = call->inputs[1].shape[1];
	qcf_tensor in[8];
	void *buf[8] = {0};
	memcpy(in, call->inputs, (size_t)call->n_inputs * sizeof in[0]);
	for (int i = 1; i < call->n_inputs; i++) {
		buf[i] = reversed(&call->inputs[i], E, i == 1);
		if (!buf[i]) {
			for (int j = 1; j < i; j++)
				free(buf[j]);
			return stub_fail(inst, QCF_ERROR, "out of memory");
		}
		in[i].data = buf[i];
	}
	qcf_op_call c = *call;
	c.inputs = in; /* the mistake: the experts' order reversed */
	st = stub_delegate(inst, &c);
	for (int i = 1; i < call->n_inputs; i++)
		free(buf[i]);
	return st;
}

STUB_PLUGIN("ort_moe_mistakes", mistakes_execute)
