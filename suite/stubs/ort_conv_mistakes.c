/*
 * ONNX Runtime's com.microsoft QLinearConv and MatMulInteger16 (reference/ort_qconv.c,
 * ort_qmatmul.c) with one typical mistake each; every other call goes to the reference
 * unchanged.
 *
 *   QLinearConv: every output channel subtracts w_zero_point[0], the rule of ORT's older sources
 *   (qlinearconv.cc ComputeOffset required the per-channel zero points to be equal), where ORT
 *   1.30 subtracts each channel's own. The stub hands the reference a copy of w's quantization
 *   with every zero point set to the first. It differs where w's zero points differ.
 *   MatMulInteger16: the products summed in float32 and converted back (saturating), as a kernel
 *   that runs the matrix product on a float GEMM does, where ORT's Eigen GEMM sums in int32 and
 *   wraps. It differs where a product or a partial sum is not a float32 integer, or past 2^31.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stub.h"

static qcf_status conv_first_zero_point(qcf_instance *inst, const qcf_op_call *call)
{
	const qcf_quant *q = call->inputs[1].quant;
	int32_t *zp = malloc((size_t)q->count * sizeof *zp);
	if (!zp)
		return stub_fail(inst, QCF_ERROR, "out of memory");
	for (int32_t i = 0; i < q->count; i++)
		zp[i] = q->zero_points[0]; /* the mistake */
	qcf_quant qw = *q;
	qw.zero_points = zp;
	qcf_tensor in[3];
	memcpy(in, call->inputs, (size_t)call->n_inputs * sizeof in[0]);
	in[1].quant = &qw;
	qcf_op_call c = *call;
	c.inputs = in;
	qcf_status st = stub_delegate(inst, &c);
	free(zp);
	return st;
}

/* y = a @ b in float32 for 2-D a and b (the specs' hand-worked cases and most goldens); other
 * ranks stay the reference's */
static void mmi16_float(const qcf_op_call *call)
{
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	if (a->rank != 2 || b->rank != 2)
		return;
	const int16_t *pa = a->data, *pb = b->data;
	int32_t *py = call->outputs[0].data;
	int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
	for (int64_t i = 0; i < M; i++)
		for (int64_t j = 0; j < N; j++) {
			float s = 0;
			for (int64_t t = 0; t < K; t++)
				s += (float)pa[i * K + t] * (float)pb[t * N + j]; /* the mistake */
			py[i * N + j] = s >= 2147483648.0f   ? INT32_MAX
			                : s < -2147483648.0f ? INT32_MIN
			                                     : (int32_t)s;
		}
}

static qcf_status mistakes_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	int ort = call->semantics && strcmp(call->semantics, "ort") == 0;
	if (ort && stub_op_is(call, "QLinearConv") && call->n_inputs >= 2 &&
	    call->inputs[1].quant && call->inputs[1].quant->count > 1 &&
	    call->inputs[1].quant->zero_points) {
		qcf_status st = stub_delegate(inst, call); /* its checks */
		return st != QCF_OK ? st : conv_first_zero_point(inst, call);
	}
	qcf_status st = stub_delegate(inst, call);
	if (st == QCF_OK && ort && stub_op_is(call, "MatMulInteger16"))
		mmi16_float(call);
	return st;
}

STUB_PLUGIN("ort_conv_mistakes", mistakes_execute)
