/*
 * ONNX Runtime's com.microsoft quantized matrix products (specs/ort/OPERATORS.md), semantics
 * "ort": QGemm, MatMulIntegerToFloat, DynamicQuantizeMatMul, MatMulBnb4 and MatMulInteger16.
 *
 * Schemas: onnxruntime/core/graph/contrib_ops/quantization_defs.cc and ContribOperators.md in
 * microsoft/onnxruntime's docs folder. Kernels: onnxruntime/contrib_ops/cpu/quantization/
 * quant_gemm.cc (QGemm), dynamic_quantize_matmul.cc (MatMulIntegerToFloat,
 * DynamicQuantizeMatMul), matmul_bnb4.cc with dequantize_blockwise_bnb4.h and
 * blockwise_quant_block_bnb4.h (MatMulBnb4), onnxruntime/contrib_ops/cpu/matmul_integer16.cc
 * (MatMulInteger16); MLAS's integer GEMM (onnxruntime/core/mlas/lib/
 * qgemm.cpp), its output processors (qpostprocessor.cpp MLAS_QGEMM_SCALE_BIAS_OUTPUT_PROCESSOR,
 * quantize.cpp MlasRequantizeOutput) and MlasQuantizeLinear (quantize.cpp).
 *
 * The integer products are exact int32 sums (MLAS accumulates in int32; the zero points enter
 * through row and column sums, which changes nothing in integers). Every float step after them
 * is one float32 operation in a fixed order, the same on every ISA, so these outputs are exact.
 * The one exception is MatMulBnb4, a float32 SGEMM whose summation order depends on the kernel:
 * it gets a band (see there).
 *
 * Scales and zero points travel as the tensors' quantization (as ONNX QLinearMatMul's do here):
 * ORT's a_scale / a_zero_point are a's quant, b_scale / b_zero_point b's (per tensor, or per
 * column: one per output column n), y_scale / y_zero_point y's. Optional tensor inputs are told
 * apart by name (c, bias).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "linear_geom.h"
#include "op.h"
#include "ort_qlinear.h"

static const char *tn(qcf_dtype t)
{
	return qref_dtype_name(t);
}

static int is_q8(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8;
}

/* Element i of an int8 or uint8 tensor. */
static int32_t q8(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

/* Inputs from first on must each be called name. */
static qcf_status only_named(const qcf_op_call *call, int first, const char *name, qref_detail *d)
{
	for (int i = first; i < call->n_inputs; i++)
		if (!call->inputs[i].name || strcmp(call->inputs[i].name, name) != 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: optional input %d must be named '%s' (ORT's optional "
			                 "inputs are told apart by name)",
			                 call->op, i, name);
	return QCF_OK;
}

/* The zero points of q must fit t's type (ORT: the zero point has its tensor's type). */
static qcf_status zp_fits(const qcf_op_call *call, const char *what, qcf_dtype t,
                          const qcf_quant *q, qref_detail *d)
{
	double lo, hi;
	qref_range_d(t, &lo, &hi);
	for (int32_t i = 0; i < q->count; i++)
		if (q->zero_points[i] < lo || q->zero_points[i] > hi)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: %s zero point %" PRId32 " does not fit %s", call->op,
			                 what, q->zero_points[i], tn(t));
	return QCF_OK;
}

/* b's quantization: per tensor, or per column along axis ncol (count N). */
static qcf_status b_quant(const qcf_op_call *call, const qcf_tensor *b, int32_t ncol, qcf_quant *q,
                          qref_detail *d)
{
	qcf_status s = qref_get_quant(b, "b", 0, q, d);
	if (s != QCF_OK)
		return s;
	if (q->axis >= 0 && q->axis != ncol)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: b is quantized per tensor or per output column (axis %" PRId32
		                 "), not along axis %" PRId32 "",
		                 call->op, ncol, q->axis);
	return zp_fits(call, "b", b->dtype, q, d);
}

/* Wraps an exact sum to int32, as MLAS's int32 accumulator does. */
static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

/*
 * MlasRequantizeOutput (quantize.cpp): v = float(acc) * scale in float32, clamped to [lo - zp,
 * hi - zp], rounded to nearest even (the SSE2 / NEON conversion, or the scalar path's
 * 1.5 * 2^23 trick: the same), plus zp.
 */
double qref_mlas_requantize(int32_t acc, float scale, int32_t zp, double lo, double hi)
{
	float v = (float)acc * scale;
	float r = nearbyintf(v);
	return qref_clamp_d((double)r + zp, lo, hi);
}

/* ---- QGemm -------------------------------------------------------------------------------- */

/*
 * Y = alpha * A' B' + C in integers, A' = A or A^T (transA), B' likewise: acc[m][n] = sum_k
 * (a - a_zp) (b - b_zp[n]) + C[m][n] (int32, C broadcast), then (quant_gemm.cc
 * ComputeOutputScale) scale[n] = alpha * a_scale * b_scale[n] in float32, left to right, divided
 * by y_scale when y is quantized; y = float(acc) * scale[n] (float y: the scale-bias output
 * processor), or MlasRequantizeOutput (quantized y).
 */
static qcf_status qref_ort_qgemm(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	if (call->n_inputs < 2 || call->n_inputs > 3 || call->n_outputs != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s takes inputs a, b and an optional c, and one output y, got "
		                 "%" PRId32 " and %" PRId32 "",
		                 call->op, call->n_inputs, call->n_outputs);
	qcf_status s = qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK || (s = only_named(call, 2, "c", d)) != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	const qcf_tensor *c = qref_input_named(call, 2, "c");
	qcf_tensor *y = &call->outputs[0];
	/* the schema checks transA, transB (0 or 1) and alpha (a number) */
	int64_t ta = 0, tb = 0;
	double alpha_d = 1.0;
	qref_attr_int(call, "transA", &ta);
	qref_attr_int(call, "transB", &tb);
	qref_attr_number(call, "alpha", &alpha_d);
	/* quant_gemm.cc registers uint8 A with uint8 or int8 B, and int8 A with int8 B */
	if (!is_q8(a->dtype) || !is_q8(b->dtype) || (a->dtype == QCF_INT8 && b->dtype != QCF_INT8))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: a and b must be uint8 and uint8 or int8, or int8 and int8, got "
		        "%s and %s",
		        call->op, tn(a->dtype), tn(b->dtype));
	if (y->dtype != QCF_FLOAT32 && y->dtype != a->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: y must be float32 or a's type %s, got %s", call->op,
		                 tn(a->dtype), tn(y->dtype));
	if (c && c->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: c must be int32, got %s", call->op,
		                 tn(c->dtype));
	/* GemmHelper: A and B are matrices */
	if (a->rank != 2 || b->rank != 2)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: a and b must have rank 2, got %" PRId32 " and %" PRId32 "",
		                 call->op, a->rank, b->rank);
	int64_t M = a->shape[ta ? 1 : 0], K = a->shape[ta ? 0 : 1];
	int64_t N = b->shape[tb ? 0 : 1], Kb = b->shape[tb ? 1 : 0];
	if (K != Kb)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: a' has %lld columns and b' %lld rows: they do not multiply",
		                 call->op, (long long)K, (long long)Kb);
	if (K == 0)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: K = 0 is not implemented: ORT 1.30's CPU kernel gives "
		                 "uninitialised values for it (measured), nothing to conform to",
		                 call->op);
	if (y->rank != 2 || y->shape[0] != M || y->shape[1] != N)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y must be [M, N] = [%lld, %lld]", call->op,
		                        (long long)M, (long long)N);
	/* C: (), (1), (N), (1 or M, 1 or N) (GemmHelper) */
	int64_t cm = 1, cn = 1;
	if (c) {
		int ok = c->rank <= 2;
		if (c->rank == 1)
			cn = c->shape[0];
		else if (c->rank == 2)
			cm = c->shape[0], cn = c->shape[1];
		ok = ok && (cm == 1 || cm == M) && (cn == 1 || cn == N);
		if (!ok)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: c must broadcast to [M, N] = [%lld, %lld]: (), (1), "
			                 "(N), (1 or M, 1 or N)",
			                 call->op, (long long)M, (long long)N);
	}
	qcf_quant qa, qb, qy;
	if ((s = qref_get_quant(a, "a", 1, &qa, d)) != QCF_OK ||
	    (s = zp_fits(call, "a", a->dtype, &qa, d)) != QCF_OK ||
	    (s = b_quant(call, b, tb ? 0 : 1, &qb, d)) != QCF_OK)
		return s;
	int quant_y = y->dtype != QCF_FLOAT32;
	if (quant_y) {
		if ((s = qref_get_quant(y, "y", 1, &qy, d)) != QCF_OK ||
		    (s = zp_fits(call, "y", y->dtype, &qy, d)) != QCF_OK)
			return s;
	}
	const qref_rounding rnd = qref_detail_rounding(d);
	if (rnd != QREF_ROUND_DEFAULT && rnd != QREF_ROUND_HALF_EVEN)
		return qref_rounding_na(call, d, rnd,
		                        "half to even, in MLAS's float32 requantization");
	qref_set_default_rounding(d, QREF_ROUND_HALF_EVEN);
	float alpha = (float)alpha_d;
	double lo = 0, hi = 0;
	if (quant_y)
		qref_range_d(y->dtype, &lo, &hi);
	for (int64_t m = 0; m < M; m++)
		for (int64_t n = 0; n < N; n++) {
			int32_t zb = qb.zero_points[qb.count > 1 ? n : 0];
			int64_t acc = 0;
			for (int64_t k = 0; k < K; k++) {
				size_t ia = (size_t)(ta ? k * M + m : m * K + k);
				size_t ib = (size_t)(tb ? n * K + k : k * N + n);
				acc += (int64_t)(q8(a, ia) - qa.zero_points[0]) * (q8(b, ib) - zb);
			}
			if (c)
				acc += (int32_t)qref_get(
				        c, (size_t)((cm > 1 ? m : 0) * cn + (cn > 1 ? n : 0)));
			float scale = alpha * qa.scales[0] * qb.scales[qb.count > 1 ? n : 0];
			size_t o = (size_t)(m * N + n);
			qref_mark_exact(d, 0, o);
			if (quant_y) {
				scale = scale / qy.scales[0];
				qref_set(y, o,
				         qref_mlas_requantize(wrap32(acc), scale, qy.zero_points[0],
				                              lo, hi));
			} else {
				qref_set(y, o, (double)((float)wrap32(acc) * scale));
			}
		}
	return QCF_OK;
}

/* ---- MatMulIntegerToFloat, DynamicQuantizeMatMul ---------------------------------------- */

/*
 * dynamic_quantize_matmul.cc MatMulIntegerToFloatBase::ComputeCommon: acc = sum_k (a - a_zp)
 * (b - b_zp[n]) in int32, multiplier[n] = a_scale * b_scale[n] in float32, then MLAS's
 * scale-bias output processor in ZeroMode (qpostprocessor.cpp): y = float(acc) * multiplier[n],
 * then + bias[n], two float32 operations (a product, then a sum: no fused multiply-add).
 * DynamicQuantizeMatMul first quantizes the float32 A to uint8 as DynamicQuantizeLinear does
 * (qmath.h GetQuantizationParameter, MlasQuantizeLinear; qref_dynamic_quantize_u8).
 */
static qcf_status qref_ort_i2f(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int dynamic = row->param;
	if (call->n_inputs < 2 || call->n_inputs > 3 || call->n_outputs != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s takes inputs a, b and an optional bias, and one output y, got "
		                 "%" PRId32 " and %" PRId32 "",
		                 call->op, call->n_inputs, call->n_outputs);
	qcf_status s = qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK || (s = only_named(call, 2, "bias", d)) != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	const qcf_tensor *bias = qref_input_named(call, 2, "bias");
	qcf_tensor *y = &call->outputs[0];
	/* dynamic_quantize_matmul.cc registers a float32 A (DynamicQuantizeMatMul) or a uint8 A
	 * (MatMulIntegerToFloat), with a uint8 or int8 B and a float32 Y */
	if (a->dtype != (dynamic ? QCF_FLOAT32 : QCF_UINT8))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: a must be %s, got %s", call->op,
		                 dynamic ? "float32" : "uint8", tn(a->dtype));
	if (!is_q8(b->dtype))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: b must be uint8 or int8, got %s",
		                 call->op, tn(b->dtype));
	if (y->dtype != QCF_FLOAT32 || (bias && bias->dtype != QCF_FLOAT32))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: y and bias must be float32, got %s and %s", call->op,
		                 tn(y->dtype), bias ? tn(bias->dtype) : "-");
	if (b->rank != 2)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: b of rank %" PRId32
		                 " is not implemented (only a matrix [K, N])",
		                 call->op, b->rank);
	int64_t K = b->shape[0], N = b->shape[1];
	if (a->rank < 1 || a->shape[a->rank - 1] != K)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: a's last dimension must be b's rows, K = %lld", call->op,
		                 (long long)K);
	int ok = y->rank == (a->rank > 1 ? a->rank : 1) && y->shape[y->rank - 1] == N;
	for (int32_t k = 0; ok && k + 1 < a->rank; k++)
		ok = y->shape[k] == a->shape[k];
	if (!ok)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y must be a's shape with the last dimension N = %lld",
		                        call->op, (long long)N);
	if (bias && (bias->rank != 1 || bias->shape[0] != N))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: bias must have shape [N] = [%lld]",
		                 call->op, (long long)N);
	qcf_quant qa, qb;
	if (!dynamic && ((s = qref_get_quant(a, "a", 1, &qa, d)) != QCF_OK ||
	                 (s = zp_fits(call, "a", a->dtype, &qa, d)) != QCF_OK))
		return s;
	if ((s = b_quant(call, b, 1, &qb, d)) != QCF_OK)
		return s;
	const qref_rounding rnd = qref_detail_rounding(d);
	if (rnd != QREF_ROUND_DEFAULT && rnd != QREF_ROUND_HALF_EVEN)
		return qref_rounding_na(call, d, rnd,
		                        dynamic ? "a to uint8, half to even" : "nothing");
	size_t na = qref_tensor_numel(a);
	uint8_t *qa8 = malloc(na ? na : 1);
	if (!qa8)
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	float sa;
	int32_t za;
	if (dynamic) {
		if (qref_dynamic_quantize_u8(a, qa8, &sa, &za) < 0) {
			/* a NaN or an infinity: ORT's scale and zero point are undefined */
			for (size_t o = 0; o < qref_tensor_numel(y); o++) {
				qref_mark_any(d, 0, o, -INFINITY, INFINITY);
				qref_set(y, o, 0);
			}
			free(qa8);
			return QCF_OK;
		}
	} else {
		memcpy(qa8, a->data, na);
		sa = qa.scales[0];
		za = qa.zero_points[0];
	}
	int64_t rows = K ? (int64_t)(na / (size_t)K) : (int64_t)(qref_tensor_numel(y) / (size_t)N);
	for (int64_t m = 0; m < rows; m++)
		for (int64_t n = 0; n < N; n++) {
			int32_t zb = qb.zero_points[qb.count > 1 ? n : 0];
			int64_t acc = 0;
			for (int64_t k = 0; k < K; k++)
				acc += (int64_t)(qa8[m * K + k] - za) *
				       (q8(b, (size_t)(k * N + n)) - zb);
			float mult = sa * qb.scales[qb.count > 1 ? n : 0];
			float v = (float)wrap32(acc) * mult;
			if (bias)
				v = v + (float)qref_get(bias, (size_t)n);
			size_t o = (size_t)(m * N + n);
			qref_mark_exact(d, 0, o);
			qref_set(y, o, v);
		}
	free(qa8);
	return QCF_OK;
}

/* ---- MatMulBnb4 ------------------------------------------------------------------------- */

/*
 * matmul_bnb4.cc: B [N, K] dequantized whole (dequantize_blockwise_bnb4.h, blockwise_quant_block_
 * bnb4.h DequantizeBlockBnb4), then MLAS's float32 SGEMM Y = A B^T. Element e = n * K + k of B is
 * the nibble of byte e / 2, the HIGH one for an even e; its block is e / block_size over the
 * flat N * K elements (a block may span rows); B[n][k] = map[q] * absmax[e / block_size], one
 * float32 product, map the FP4 or NF4 table below (the float32 constants of
 * blockwise_quant_block_bnb4.h). The SGEMM sums in float32 in an order (and with fused
 * multiply-adds) that depends on the ISA's kernel: each element gets the band of every such sum,
 * gamma(K + 2) * sum |a b| around the exact sum (Higham, Accuracy and Stability of Numerical
 * Algorithms, 3.1), and width 0 when every product is a float32 multiple of 2^e and sum |a b| <
 * 2^(24 + e): then every partial sum in every order is exact.
 */
static const float bnb4_fp4[16] = {0.00000000f,  5.208333333e-03f,  0.66666667f,  1.00000000f,
                                   0.33333333f,  0.50000000f,       0.16666667f,  0.25000000f,
                                   -0.00000000f, -5.208333333e-03f, -0.66666667f, -1.00000000f,
                                   -0.33333333f, -0.50000000f,      -0.16666667f, -0.25000000f};
static const float bnb4_nf4[16] = {-1.0f,
                                   -0.6961928009986877f,
                                   -0.5250730514526367f,
                                   -0.39491748809814453f,
                                   -0.28444138169288635f,
                                   -0.18477343022823334f,
                                   -0.09105003625154495f,
                                   0.0f,
                                   0.07958029955625534f,
                                   0.16093020141124725f,
                                   0.24611230194568634f,
                                   0.33791524171829224f,
                                   0.44070982933044434f,
                                   0.5626170039176941f,
                                   0.7229568362236023f,
                                   1.0f};

static qcf_status qref_ort_matmul_bnb4(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 3, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *bq = &call->inputs[1], *absmax = &call->inputs[2];
	qcf_tensor *y = &call->outputs[0];
	int64_t K = 0, N = 0, bs = 0, qt = 0, tb = 1;
	/* the schema: K, N, block_size and quant_type required */
	qref_attr_int(call, "K", &K);
	qref_attr_int(call, "N", &N);
	qref_attr_int(call, "block_size", &bs);
	qref_attr_int(call, "quant_type", &qt);
	/* training_mode (0 or 1, the schema checks it) changes nothing in the CPU kernel's product:
	 * read, not used */
	(void)qref_attr_find(call, "training_mode");
	qref_attr_int(call, "transB", &tb);
	if (qt != 0 && qt != 1)
		return qref_fail_attr(d, "quant_type", QCF_INVALID_PARAM,
		                      "%s: quant_type must be 0 (FP4) or 1 (NF4), got %lld",
		                      call->op, (long long)qt);
	if (bs != 16 && bs != 32 && bs != 64 && bs != 128 && bs != 256)
		return qref_fail_attr(d, "block_size", QCF_INVALID_PARAM,
		                      "%s: block_size must be 16, 32, 64, 128 or 256 "
		                      "(dequantize_blockwise_bnb4.h), got %lld",
		                      call->op, (long long)bs);
	if (!tb)
		return qref_fail_attr(d, "transB", QCF_NOT_SUPPORTED,
		                      "%s: transB 0 is not implemented (ORT's CPU kernel "
		                      "multiplies by B^T whatever transB says)",
		                      call->op);
	if (a->dtype != QCF_FLOAT32 || y->dtype != QCF_FLOAT32 || absmax->dtype != QCF_FLOAT32 ||
	    bq->dtype != QCF_UINT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: A, absmax and Y must be float32 and B uint8 (ORT's CPU "
		                 "kernel), got %s, %s, %s and %s",
		                 call->op, tn(a->dtype), tn(absmax->dtype), tn(y->dtype),
		                 tn(bq->dtype));
	int64_t numel = N * K;
	if ((int64_t)qref_tensor_numel(bq) != (numel + 1) / 2 || bq->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: B must be [(N * K + 1) / 2] = [%lld] bytes", call->op,
		                 (long long)((numel + 1) / 2));
	if ((int64_t)qref_tensor_numel(absmax) != (numel + bs - 1) / bs || absmax->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: absmax must be [(N * K + block_size - 1) / block_size] = "
		                 "[%lld]",
		                 call->op, (long long)((numel + bs - 1) / bs));
	if (a->rank < 1 || a->shape[a->rank - 1] != K)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: A's last dimension must be K = %lld",
		                 call->op, (long long)K);
	int ok = y->rank == (a->rank > 1 ? a->rank : 1) && y->shape[y->rank - 1] == N;
	for (int32_t k = 0; ok && k + 1 < a->rank; k++)
		ok = y->shape[k] == a->shape[k];
	if (!ok)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: Y must be A's shape with the last dimension N = %lld",
		                        call->op, (long long)N);
	if ((s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;
	const float *map = qt == 0 ? bnb4_fp4 : bnb4_nf4;
	const uint8_t *raw = bq->data;
	float *w = malloc((size_t)(numel ? numel : 1) * sizeof *w);
	if (!w)
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	for (int64_t e = 0; e < numel; e++) {
		int q = e % 2 ? raw[e / 2] & 0xf : raw[e / 2] >> 4;
		w[e] = map[q] * (float)qref_get(absmax, (size_t)(e / bs));
	}
	int64_t rows = K ? (int64_t)(qref_tensor_numel(a) / (size_t)K)
	                 : (int64_t)(qref_tensor_numel(y) / (size_t)(N ? N : 1));
	for (int64_t m = 0; m < rows; m++)
		for (int64_t n = 0; n < N; n++) {
			double sum = 0;
			qref_sum_bound bd = QREF_SUM_BOUND_INIT;
			for (int64_t k = 0; k < K; k++) {
				double b = (double)w[n * K + k];
				double p = (double)(float)qref_get(a, (size_t)(m * K + k)) *
				           b; /* exact in double */
				sum += p;
				qref_sum_part(&bd, p, b, p);
			}
			size_t o = (size_t)(m * N + n);
			double wd = qref_sum_width(&bd, 2); /* gamma(K + 2) sum |a b|, or 0 */
			if (wd == 0)
				qref_mark_exact(d, 0, o);
			else
				qref_mark_any(d, 0, o, sum - wd, sum + wd);
			qref_set(y, o, (double)(float)sum);
		}
	free(w);
	return QCF_OK;
}

/* ---- MatMulInteger16 -------------------------------------------------------------------- */

/*
 * contrib_ops/cpu/matmul_integer16.cc: Y = A B, int16 x int16 -> int32, numpy.matmul's
 * broadcasting (MatMulComputeHelper: ranks >= 1, 1-D operands as numpy treats them); Eigen's
 * GEMM on int32 casts of the operands (EigenCastGEMM), so every product and sum is int32 and
 * wraps: y = the exact sum modulo 2^32 (measured on ORT 1.30: 3 products of (-32768)^2 give
 * -2^30), whatever the summation order. No zero points, no rounding.
 */
static qcf_status qref_ort_matmul_integer16(const qcf_op_call *call, const qref_op *row,
                                            qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	/* matmul_integer16.cc registers T1 = T2 = int16, T3 = int32 only (the schema also lists
	 * uint16: no CPU kernel) */
	if (a->dtype != QCF_INT16 || b->dtype != QCF_INT16 || y->dtype != QCF_INT32)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: a and b must be int16 and y int32 (ORT's CPU kernel), got %s, "
		        "%s and %s",
		        call->op, tn(a->dtype), tn(b->dtype), tn(y->dtype));
	for (int i = 0; i < 2; i++)
		if (call->inputs[i].quant)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: %s carries quantization; MatMulInteger16 takes none",
			                 call->op, i ? "b" : "a");
	if (y->quant)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: y is plain int32, not quantized",
		                 call->op);
	qref_mm_geom g;
	if ((s = qref_mm_shape(call, a, b, y, &g, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, "nothing: the products are exact integers")) != QCF_OK)
		return s;
	const int16_t *pa = a->data, *pb = b->data;
	int32_t *py = y->data;
	size_t o = 0;
	for (size_t bi = 0; bi < g.nbatch; bi++) {
		int64_t ao, bo;
		qref_mm_batch(&g, bi, &ao, &bo);
		const int16_t *ma = pa + ao * g.m * g.k, *mb = pb + bo * g.k * g.n;
		for (int64_t i = 0; i < g.m; i++)
			for (int64_t j = 0; j < g.n; j++, o++) {
				int64_t acc =
				        0; /* |product| <= 2^30: exact in int64 up to K = 2^33 */
				for (int64_t t = 0; t < g.k; t++)
					acc += (int64_t)ma[i * g.k + t] * mb[t * g.n + j];
				qref_mark_exact(d, 0, o);
				py[o] = wrap32(acc);
			}
	}
	return QCF_OK;
}

static const qref_attr_schema qgemm_attrs[] = {
        A_INT("transA", 0, 1, "0"),
        A_INT("transB", 0, 1, "0"),
        A_NUM("alpha", "1.0"),
        END,
};

static const qref_attr_schema bnb4_attrs[] = {
        A_INT_REQ("K", 1, I32),
        A_INT_REQ("N", 1, I32),
        A_INT_REQ("block_size", 1, I32),
        A_INT_REQ("quant_type", 0, 1),
        A_INT("transB", 0, 1, "1"),
        A_INT("training_mode", 0, 1, "0"),
        END,
};

const qref_op qref_ops_ort_qmatmul[] = {
        {.schema = {.semantics = "ort",
                    .op = "QGemm",
                    IO(LIST("a", "b", "c"), 2, 3, LIST("y"), 1),
                    .attrs = qgemm_attrs},
         .kernel = qref_ort_qgemm},
        {.schema = {.semantics = "ort",
                    .op = "MatMulIntegerToFloat",
                    IO(LIST("a", "b", "bias"), 2, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = qref_ort_i2f,
         .param = 0},
        {.schema = {.semantics = "ort",
                    .op = "DynamicQuantizeMatMul",
                    IO(LIST("a", "b", "bias"), 2, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = qref_ort_i2f,
         .param = 1},
        {.schema = {.semantics = "ort",
                    .op = "MatMulBnb4",
                    IO(LIST("a", "b", "absmax"), 3, 3, LIST("y"), 1),
                    .attrs = bnb4_attrs},
         .kernel = qref_ort_matmul_bnb4},
        {.schema = {.semantics = "ort", .op = "MatMulInteger16", AB_Y, .attrs = qref_no_attrs},
         .kernel = qref_ort_matmul_integer16},
        {.schema = {.op = NULL}},
};
