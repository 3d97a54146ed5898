/*
 * ONNX Runtime's quantized matrix products (reference/ort_qmatmul.c, ort_matmul_fpq4.c) with one
 * typical mistake per op; every other call goes to the reference unchanged.
 *
 *   QGemm with a quantized y: the requantization rounds ties half away from zero (roundf), where
 *   MLAS's MlasRequantizeOutput rounds them to even. The reference computes the call first (and
 *   checks it); the stub then recomputes every element and rewrites those whose float32 value
 *   acc * scale is an exact tie, the only places where the two roundings differ.
 *   MatMulIntegerToFloat with a bias: y = fmaf(float(acc), multiplier, bias), one rounding,
 *   where MLAS's output processor rounds the product, then the sum (what a kernel that lets
 *   the compiler contract a * b + c computes). It differs where the product is inexact.
 *   DynamicQuantizeMatMul: a / a_scale rounded half away from zero (roundf) where
 *   MlasQuantizeLinear rounds to even; the stub quantizes a so and hands the reference a
 *   MatMulIntegerToFloat call. It differs where a / a_scale is an exact tie.
 *   MatMulBnb4: each byte of B read low nibble first (MatMulNBits' order), where
 *   DequantizeBlockBnb4 takes the high nibble for the even element; the stub swaps the nibbles
 *   of a copy of B and hands it to the reference.
 *   MatMulFpQ4: each 32-value block of the blob read in MatMulNBits' order (value 2t in the low
 *   nibble of byte t, 2t + 1 in the high one), where MLAS's blob holds value i in the low
 *   nibble of byte i and i + 16 in the high one; the stub rewrites a copy of the blob so that
 *   the reference reads what the mistaken kernel reads. Only a block of one value escapes.
 */
#include <math.h>

#include "stub.h"

static int32_t q8(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

static size_t numel(const qcf_tensor *t)
{
	size_t n = 1;
	for (int32_t k = 0; k < t->rank; k++)
		n *= (size_t)t->shape[k];
	return n;
}

static void qgemm_half_away(const qcf_op_call *call)
{
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	const qcf_tensor *c = call->n_inputs > 2 ? &call->inputs[2] : NULL;
	qcf_tensor *y = &call->outputs[0];
	int64_t ta = 0, tb = 0;
	double alpha = 1.0;
	qref_attr_int(call, "transA", &ta);
	qref_attr_int(call, "transB", &tb);
	qref_attr_number(call, "alpha", &alpha);
	const qcf_quant *qa = a->quant, *qb = b->quant, *qy = y->quant;
	int64_t M = a->shape[ta ? 1 : 0], K = a->shape[ta ? 0 : 1], N = b->shape[tb ? 0 : 1];
	int64_t cm = c && c->rank == 2 ? c->shape[0] : 1;
	int64_t cn = c && c->rank >= 1 ? c->shape[c->rank - 1] : 1;
	double lo = y->dtype == QCF_INT8 ? -128 : 0, hi = y->dtype == QCF_INT8 ? 127 : 255;
	for (int64_t m = 0; m < M; m++)
		for (int64_t n = 0; n < N; n++) {
			int32_t zb = qb->zero_points[qb->count > 1 ? n : 0];
			int64_t acc = 0;
			for (int64_t k = 0; k < K; k++)
				acc += (int64_t)(q8(a, (size_t)(ta ? k * M + m : m * K + k)) -
				                 qa->zero_points[0]) *
				       (q8(b, (size_t)(tb ? n * K + k : k * N + n)) - zb);
			if (c)
				acc += (int32_t)qref_get(
				        c, (size_t)((cm > 1 ? m : 0) * cn + (cn > 1 ? n : 0)));
			float scale =
			        (float)alpha * qa->scales[0] * qb->scales[qb->count > 1 ? n : 0];
			scale = scale / qy->scales[0];
			float v = (float)(int32_t)acc * scale;
			if (v - floorf(v) != 0.5f)
				continue;
			double q = (double)roundf(v) + qy->zero_points[0]; /* the mistake */
			qref_set(y, (size_t)(m * N + n), q < lo ? lo : q > hi ? hi : q);
		}
}

/* MatMulIntegerToFloat with a bias: the product and the bias fused (the reference checks it first)
 */
static void i2f_fused(const qcf_op_call *call)
{
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1], *bias = &call->inputs[2];
	qcf_tensor *y = &call->outputs[0];
	const qcf_quant *qa = a->quant, *qb = b->quant;
	int64_t K = b->shape[0], N = b->shape[1];
	size_t rows = K ? numel(a) / (size_t)K : 0;
	for (size_t m = 0; m < rows; m++)
		for (int64_t n = 0; n < N; n++) {
			int64_t acc = 0;
			for (int64_t k = 0; k < K; k++)
				acc += (int64_t)(q8(a, m * (size_t)K + (size_t)k) -
				                 qa->zero_points[0]) *
				       (q8(b, (size_t)(k * N + n)) -
				        qb->zero_points[qb->count > 1 ? n : 0]);
			float mult = qa->scales[0] * qb->scales[qb->count > 1 ? n : 0];
			float v = fmaf((float)(int32_t)acc, mult, (float)qref_get(bias, (size_t)n));
			qref_set(y, m * (size_t)N + (size_t)n, v); /* the mistake */
		}
}

/* DynamicQuantizeMatMul: a quantized with ties away, then the reference's MatMulIntegerToFloat */
static qcf_status dqmm_half_away(qcf_instance *inst, const qcf_op_call *call)
{
	const qcf_tensor *a = &call->inputs[0];
	size_t n = numel(a);
	float mx = 0, mn = 0;
	for (size_t i = 0; i < n; i++) {
		float v = (float)qref_get(a, i);
		mx = v > mx ? v : mx;
		mn = v < mn ? v : mn;
	}
	float scale = mx == mn ? 1.0f : (mx - mn) / 255.0f;
	float zp0 = 0.0f - mn / scale;
	int32_t zp = (int32_t)nearbyintf(zp0 < 0 ? 0 : zp0 > 255 ? 255 : zp0);
	uint8_t *q = malloc(n ? n : 1);
	if (!q)
		return stub_fail(inst, QCF_ERROR, "out of memory");
	for (size_t i = 0; i < n; i++) {
		float v = roundf((float)qref_get(a, i) / scale) + (float)zp; /* the mistake */
		q[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
	}
	qcf_quant qa = {.struct_size = sizeof qa,
	                .axis = -1,
	                .count = 1,
	                .scales = &scale,
	                .zero_points = &zp};
	qcf_tensor in[3];
	memcpy(in, call->inputs, (size_t)call->n_inputs * sizeof in[0]);
	in[0].dtype = QCF_UINT8;
	in[0].data = q;
	in[0].nbytes = n;
	in[0].quant = &qa;
	qcf_op_call c = *call;
	c.op = "MatMulIntegerToFloat";
	c.inputs = in;
	qcf_status st = stub_delegate(inst, &c);
	free(q);
	return st;
}

/* MatMulBnb4: the nibbles of every byte of B swapped, then the reference */
static qcf_status bnb4_low_first(qcf_instance *inst, const qcf_op_call *call)
{
	const qcf_tensor *b = &call->inputs[1];
	size_t n = b->nbytes;
	uint8_t *sw = malloc(n ? n : 1);
	if (!sw)
		return stub_fail(inst, QCF_ERROR, "out of memory");
	const uint8_t *raw = b->data;
	for (size_t i = 0; i < n; i++)
		sw[i] = (uint8_t)((raw[i] << 4) | (raw[i] >> 4)); /* the mistake */
	qcf_tensor in[3];
	memcpy(in, call->inputs, 3 * sizeof in[0]);
	in[1].data = sw;
	qcf_op_call c = *call;
	c.inputs = in;
	qcf_status st = stub_delegate(inst, &c);
	free(sw);
	return st;
}

/* MatMulFpQ4: every block's 16 data bytes read as MatMulNBits packs them, then the reference */
static qcf_status fpq4_nbits_order(qcf_instance *inst, const qcf_op_call *call)
{
	const qcf_tensor *b = &call->inputs[1];
	int64_t t = 1;
	qref_attr_int(call, "blk_quant_type", &t);
	size_t n = b->nbytes, head = t == 0 ? 4 : 5, size = head + 16;
	uint8_t *re = malloc(n ? n : 1);
	if (!re)
		return stub_fail(inst, QCF_ERROR, "out of memory");
	memcpy(re, b->data, n);
	for (size_t o = 0; o + size <= n; o += size) {
		const uint8_t *d = (const uint8_t *)b->data + o + head;
		for (int l = 0; l < 16; l++) {
			int v0 = (d[l / 2] >> (4 * (l % 2))) & 0xf; /* the mistake */
			int v1 = (d[(l + 16) / 2] >> (4 * (l % 2))) & 0xf;
			re[o + head + (size_t)l] = (uint8_t)(v0 | v1 << 4);
		}
	}
	qcf_tensor in[3];
	memcpy(in, call->inputs, 3 * sizeof in[0]);
	in[1].data = re;
	qcf_op_call c = *call;
	c.inputs = in;
	qcf_status st = stub_delegate(inst, &c);
	free(re);
	return st;
}

static qcf_status mistakes_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (stub_op_is(call, "DynamicQuantizeMatMul") && call->n_inputs >= 2 &&
	    call->n_inputs <= 3 && call->inputs[0].dtype == QCF_FLOAT32) {
		qcf_status st = stub_delegate(inst, call); /* its checks */
		return st != QCF_OK ? st : dqmm_half_away(inst, call);
	}
	if (stub_op_is(call, "MatMulBnb4") && call->n_inputs == 3 &&
	    call->inputs[1].dtype == QCF_UINT8)
		return bnb4_low_first(inst, call);
	if (stub_op_is(call, "MatMulFpQ4") && call->n_inputs == 3 &&
	    call->inputs[1].dtype == QCF_UINT8)
		return fpq4_nbits_order(inst, call);
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK)
		return st;
	if (stub_op_is(call, "QGemm") && call->outputs[0].dtype != QCF_FLOAT32)
		qgemm_half_away(call);
	if (stub_op_is(call, "MatMulIntegerToFloat") && call->n_inputs == 3)
		i2f_fused(call);
	return QCF_OK;
}

STUB_PLUGIN("ort_matmul_mistakes", mistakes_execute)
