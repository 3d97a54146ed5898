/*
 * ONNX Runtime's com.microsoft quantized elementwise ops (specs/ort/OPERATORS.md), semantics
 * "ort": QLinearAdd, QLinearMul (two inputs, numpy broadcasting) and the lookup-table ops
 * QLinearLeakyRelu and QLinearSigmoid. Every scale and zero point is per tensor (ORT enforces
 * a scalar or a 1-element vector) and travels as its tensor's quant.
 *
 * Sources (microsoft/onnxruntime): the schemas in onnxruntime/core/graph/contrib_ops/
 * quantization_defs.cc; the CPU kernels onnxruntime/contrib_ops/cpu/quantization/
 * qlinear_binary_op.cc (QLinearImpl, the three broadcast functors), qlinear_activations.cc and
 * qlinear_lookup_table.cc (QlinearBuildLookupTable); MLAS onnxruntime/core/mlas/lib/qladd.cpp,
 * qlmul.cpp, intrinsics/avx2/qladd_avx2.cpp, logistic.cpp and quantize.cpp.
 *
 * Every kernel works in float32 and rounds half to even, but MLAS's ISA kernels order and fuse
 * the float32 operations differently, and NEON's QLinearAdd works in fixed point: each output
 * element is the x86-64 AVX2 kernel's answer (what ORT runs on the machines the goldens come
 * from), and where another kernel's answer differs the element accepts every one of them
 * (qref_mark_any over the lowest and highest). The kernels, for y = round(v) + zp_c:
 *
 *   QLinearAdd  r_a = s_a / s_c, r_b = s_b / s_c, F = zp_c - (r_a zp_a + r_b zp_b), all float32;
 *     AVX2: fma(a, r_a, fma(b, r_b, F)); SSE2 (no FMA): (F + r_a a) + r_b b; a broadcast scalar
 *     operand is folded into F first, by a fused multiply-add in ORT 1.30's binary
 *     (measured; a mul and an add in the source, which a build that does not contract
 *     rounds twice: both accepted), then the other operand's fma; cvtps2dq (half to even),
 *     saturation. Portable C (and NEON when the ratios do not fit its fixed point):
 *     c = (s_a (a - zp_a) + s_b (b - zp_b)) / s_c, clamped to the type minus zp_c,
 *     nearbyintf(c + zp_c). NEON: MlasCalcQLinearAddParameters's 22-bit multipliers and
 *     shift, (a - zp_a) m_a + (b - zp_b) m_b shifted right rounding half away from zero.
 *     (Newer ORT sources register a uint16 QLinearAdd; the schema of ORT 1.30 refuses it.)
 *   QLinearMul  r = s_a s_b / s_c; SSE2 and NEON64: float((a - zp_a)(b - zp_b)) r + zp_c;
 *     NEON32: the same rounded half away from zero; portable C: (s_a (a - zp_a) s_b (b - zp_b))
 *     / s_c clamped, nearbyintf(c + zp_c).
 *   QLinearLeakyRelu, QLinearSigmoid  a 256-entry table: entry i (the byte i read as the
 *     type) is quantize(f(s_x (i - zp_x))), the product in float32; quantize (MlasQuantizeLinear)
 *     divides by s_y in float32, clamps to the type minus zp_y, rounds half to even, adds zp_y.
 *     LeakyRelu f(v) = v >= 0 ? v : alpha v (float32 alpha, default 0.01). Sigmoid f is
 *     MlasComputeLogistic, Eigen's rational polynomial on v clamped to [-18, 18], then clamped
 *     to [0, 1]: with FMA3 on x86-64 (fused multiply-adds), without FMA elsewhere.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "litert_bcast.h"
#include "op.h"
#include "ort_qlinear.h"

enum { EW_ADD, EW_MUL, EW_LEAKY_RELU, EW_SIGMOID };

static const char *tn(qcf_dtype t)
{
	return qref_dtype_name(t);
}

qcf_status qref_ort_param(const qcf_op_call *call, const qcf_tensor *t, const char *what,
                          qref_ort_q *p, qref_detail *d)
{
	qcf_quant q;
	char w[128];
	snprintf(w, sizeof w, "%s %s (ORT: a scalar or 1-element scale and zero point)", call->op,
	         what);
	qcf_status s = qref_get_quant(t, w, 1, &q, d);
	if (s != QCF_OK)
		return s;
	p->s = q.scales[0];
	p->zp = q.zero_points[0];
	if (!(p->s > 0) || !isfinite(p->s))
		return qref_fail_tensor(d, t, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s: %s scale %g: ORT reads it without a check and divides "
		                        "by it (or by a quotient of scales); qconform needs scales "
		                        "positive and finite",
		                        call->op, what, (double)p->s);
	double lo, hi;
	qref_range_d(t->dtype, &lo, &hi);
	if (p->zp < lo || p->zp > hi)
		return qref_fail_tensor(d, t, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s: %s zero point %" PRId32
		                        " does not fit %s (it is a tensor "
		                        "of the type T)",
		                        call->op, what, p->zp, qref_dtype_name(t->dtype));
	return QCF_OK;
}

/* x86 cvtps2dq: half to even under the default MXCSR; NaN and values outside int32 give
 * INT32_MIN (the "integer indefinite"). */
static int32_t cvtps(float v)
{
	if (!(v >= -2147483648.0f && v < 2147483648.0f))
		return INT32_MIN;
	return (int32_t)nearbyintf(v);
}

static int32_t clampi(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* std::min(std::max(c, lo - zp), hi - zp) then nearbyintf(c + zp): the portable kernels */
static int32_t portable_round(float c, int32_t zp, int32_t qmin, int32_t qmax)
{
	float lo = (float)(qmin - zp), hi = (float)(qmax - zp);
	c = c < lo ? lo : c;
	c = hi < c ? hi : c;
	return (int32_t)nearbyintf(c + (float)zp);
}

/* ---- QLinearAdd and QLinearMul ----------------------------------------------------------- */

typedef struct bin_ctx {
	qref_ort_q a, b, c;
	int32_t qmin, qmax;
	int scalar; /* 0: both spans; 1: a is the broadcast scalar of its span; 2: b */
} bin_ctx;

/* MlasCalcQLinearAddParameters (NEON): 0 when the ratios leave its fixed point */
static int neon_add_params(float rac, float rbc, int32_t *shift, int32_t *ma, int32_t *mb)
{
	if (rac < 0x1p-14f || rac >= 256.0f || rbc < 0x1p-14f || rbc >= 256.0f)
		return 0;
	int e;
	frexpf(rac > rbc ? rac : rbc, &e); /* [0.5, 1) * 2^e: the exponent field is e - 1 */
	*shift = 21 - (e - 1);
	if (*shift > 31 || *shift < 13)
		return 0;
	float m = ldexpf(1.0f, *shift);
	*ma = (int32_t)nearbyintf(rac * m); /* lrintf of an exact product */
	*mb = (int32_t)nearbyintf(rbc * m);
	return *ma < 0x400000 && *mb < 0x400000 && (*ma >= 0x200000 || *mb >= 0x200000);
}

/* The answers of MLAS's kernels for one pair: [0] the AVX2 one; lo and hi over all of them. */
static int32_t add_answers(const bin_ctx *p, int32_t a, int32_t b, int32_t *lo, int32_t *hi)
{
	float ra = p->a.s / p->c.s, rb = p->b.s / p->c.s;
	float fixed = (float)p->c.zp - (ra * (float)p->a.zp + rb * (float)p->b.zp);
	float fa = (float)a, fb = (float)b;
	/* s is folded into F first: b in the AVX2 loop, a broadcast scalar operand in either place,
	 * by _mm256_add_ps(F, _mm256_mul_ps(s, r)) in the source, which ORT 1.30's x86-64 binary
	 * runs as one fused multiply-add (measured: a [3,1] + [3,13] int8 add at 60.5 exactly gives
	 * 61, the fused fold's 60.5000038; the two roundings give 60.4999962, 60); a build that
	 * does not contract rounds the scalar's fold twice. SSE2 adds the scalar's product first,
	 * a's when neither is a scalar. */
	int s_is_a = p->scalar == 1;
	float s = s_is_a ? fa : fb, rs = s_is_a ? ra : rb, o = s_is_a ? fb : fa,
	      ro = s_is_a ? rb : ra;
	float v_fma = fmaf(o, ro, fmaf(s, rs, fixed));
	float v_unfused = p->scalar ? fmaf(o, ro, fixed + rs * s) : v_fma;
	float v_sse = p->scalar ? (fixed + rs * s) + ro * o : (fixed + ra * fa) + rb * fb;
	int32_t r[5];
	r[0] = clampi(cvtps(v_fma), p->qmin, p->qmax);
	r[1] = clampi(cvtps(v_sse), p->qmin, p->qmax);
	r[4] = clampi(cvtps(v_unfused), p->qmin, p->qmax);
	float c = (p->a.s * (float)(a - p->a.zp) + p->b.s * (float)(b - p->b.zp)) / p->c.s;
	r[2] = portable_round(c, p->c.zp, p->qmin, p->qmax);
	int32_t sh, ma, mb;
	r[3] = r[2];
	if (neon_add_params(ra, rb, &sh, &ma, &mb)) {
		int32_t acc = (a - p->a.zp) * ma + (b - p->b.zp) * mb; /* |acc| < 2^31 */
		acc += acc < 0 ? -1 : 0;
		int64_t q = ((int64_t)acc + ((int64_t)1 << (sh - 1))) >> sh;
		r[3] = clampi(q + p->c.zp, p->qmin, p->qmax);
	}
	*lo = *hi = r[0];
	for (int k = 1; k < 5; k++) {
		*lo = r[k] < *lo ? r[k] : *lo;
		*hi = r[k] > *hi ? r[k] : *hi;
	}
	return r[0];
}

static int32_t mul_answers(const bin_ctx *p, int32_t a, int32_t b, int32_t *lo, int32_t *hi)
{
	float r = p->a.s * p->b.s / p->c.s;
	int32_t prod = (a - p->a.zp) * (b - p->b.zp);
	float v = (float)prod * r + (float)p->c.zp;
	int32_t x[3];
	x[0] = clampi(cvtps(v), p->qmin, p->qmax);
	/* NEON32: vcvtq_s32_f32 (toward zero) of v + copysign(0.5, v) */
	float w = v + copysignf(0.5f, v);
	x[1] = clampi(fabsf(w) < 2147483648.0f ? (int64_t)truncf(w)
	              : w < 0                  ? INT32_MIN
	                                       : INT32_MAX,
	              p->qmin, p->qmax);
	float c = (p->a.s * (float)(a - p->a.zp)) * (p->b.s * (float)(b - p->b.zp)) / p->c.s;
	x[2] = portable_round(c, p->c.zp, p->qmin, p->qmax);
	*lo = *hi = x[0];
	for (int k = 1; k < 3; k++) {
		*lo = x[k] < *lo ? x[k] : *lo;
		*hi = x[k] > *hi ? x[k] : *hi;
	}
	return x[0];
}

/* The broadcast functor ORT's BroadcastLooper picks: input 0 a single element, or input 1,
 * or else the innermost output dimension above 1: the input whose size there is 1 is the
 * scalar of every span. */
static int span_scalar(const qcf_tensor *a, const qcf_tensor *b, const qcf_tensor *y)
{
	if (qref_tensor_numel(a) == 1)
		return 1;
	if (qref_tensor_numel(b) == 1)
		return 2;
	for (int32_t k = y->rank - 1; k >= 0; k--) {
		if (y->shape[k] == 1)
			continue;
		int32_t ka = k - (y->rank - a->rank), kb = k - (y->rank - b->rank);
		int64_t da = ka >= 0 ? a->shape[ka] : 1, db = kb >= 0 ? b->shape[kb] : 1;
		return da == 1 ? 1 : db == 1 ? 2 : 0;
	}
	return 0;
}

static qcf_status qref_ort_qlinear_binary(const qcf_op_call *call, const qref_op *row,
                                          qref_detail *d)
{
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	qcf_dtype T = a->dtype;
	int add = row->param == EW_ADD;
	if (T != QCF_INT8 && T != QCF_UINT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: A must be int8 or uint8 (the schema's T and the CPU kernel's "
		                 "registrations), got %s",
		                 call->op, tn(T));
	if (b->dtype != T || y->dtype != T)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: A, B and C share the type T, got %s, %s and %s", call->op,
		                 tn(T), tn(b->dtype), tn(y->dtype));
	bin_ctx p;
	memset(&p, 0, sizeof p);
	if ((s = qref_ort_param(call, a, "A", &p.a, d)) != QCF_OK ||
	    (s = qref_ort_param(call, b, "B", &p.b, d)) != QCF_OK ||
	    (s = qref_ort_param(call, y, "C", &p.c, d)) != QCF_OK)
		return s;
	qref_bcast bc;
	if ((s = qref_bcast_init(call, 0, 2, QCF_MAX_RANK, "ORT's BroadcastLooper", &bc, d)) !=
	    QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "half to even in float32, as MLAS does")) != QCF_OK)
		return s;
	double qlo, qhi;
	qref_range_d(T, &qlo, &qhi);
	p.qmin = (int32_t)qlo;
	p.qmax = (int32_t)qhi;
	p.scalar = span_scalar(a, b, y);
	for (size_t i = 0; i < bc.n; i++) {
		size_t ix[2];
		qref_bcast_index(&bc, i, ix);
		int32_t va = (int32_t)qref_get(a, ix[0]), vb = (int32_t)qref_get(b, ix[1]);
		int32_t lo, hi;
		int32_t r =
		        add ? add_answers(&p, va, vb, &lo, &hi) : mul_answers(&p, va, vb, &lo, &hi);
		if (lo != hi)
			qref_mark_any(d, 0, i, lo, hi);
		else
			qref_mark_exact(d, 0, i);
		qref_set(y, i, r);
	}
	return QCF_OK;
}

/* ---- QLinearLeakyRelu and QLinearSigmoid: the 256-entry table ----------------------------- */

/* MlasLogisticConstants: Eigen's coefficients */
static const float lg_lo = -18.0f, lg_hi = 18.0f;
static const float lg_a[5] = {4.37031012579801e-11f, 1.15627324459942e-07f, 6.08574864600143e-05f,
                              8.51377133304701e-03f, 2.48287947061529e-01f};
static const float lg_b[6] = {6.10247389755681e-13f, 5.76102136993427e-09f, 6.29106785017040e-06f,
                              1.70198817374094e-03f, 1.16817656904453e-01f, 9.93151921023180e-01f};

/* MlasComputeLogistic on one value, with fused multiply-adds (FMA3) or without */
static float logistic(float v, int fused)
{
	v = v < lg_lo ? lg_lo : v;
	v = v > lg_hi ? lg_hi : v;
	float v2 = v * v, p = lg_a[0], q = lg_b[0];
	for (int k = 1; k < 5; k++)
		p = fused ? fmaf(p, v2, lg_a[k]) : p * v2 + lg_a[k];
	p = p * v;
	for (int k = 1; k < 6; k++)
		q = fused ? fmaf(q, v2, lg_b[k]) : q * v2 + lg_b[k];
	float r = p / q + 0.5f;
	return r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
}

/* MlasQuantizeLinear of one value */
static int32_t quantize_f32(float v, float s, int32_t zp, int32_t qmin, int32_t qmax)
{
	float c = v / s, lo = (float)(qmin - zp), hi = (float)(qmax - zp);
	c = c > lo ? c : lo; /* MAXPS / MINPS */
	c = c < hi ? c : hi;
	return cvtps(c) + zp;
}

static qcf_status qref_ort_qlinear_lut(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	qcf_dtype T = x->dtype;
	if (T != QCF_INT8 && T != QCF_UINT8)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: X must be int8 or uint8 (the CPU kernel's registrations), got "
		        "%s",
		        call->op, tn(T));
	if (y->dtype != T)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: X and Y share the type T, got %s and %s", call->op, tn(T),
		                 tn(y->dtype));
	if (!qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: Y has X's shape", call->op);
	qref_ort_q qx, qy;
	if ((s = qref_ort_param(call, x, "X", &qx, d)) != QCF_OK ||
	    (s = qref_ort_param(call, y, "Y", &qy, d)) != QCF_OK)
		return s;
	double alpha_d = 0.01;
	if (row->param == EW_LEAKY_RELU) /* the row's schema has made alpha a number */
		(void)qref_attr_number(call, "alpha", &alpha_d);
	float alpha = (float)alpha_d;
	if ((s = qref_no_rounding(call, d, "half to even in float32, as MLAS does")) != QCF_OK)
		return s;
	double qlo, qhi;
	qref_range_d(T, &qlo, &qhi);
	int32_t qmin = (int32_t)qlo, qmax = (int32_t)qhi;
	int32_t table[256], band_lo[256], band_hi[256];
	for (int i = 0; i < 256; i++) {
		int32_t xv = T == QCF_INT8 ? (int32_t)(int8_t)(uint8_t)i : i;
		float v = qx.s * (float)(xv - qx.zp);
		if (row->param == EW_LEAKY_RELU) {
			float f = v >= 0.0f ? v : alpha * v;
			table[i] = band_lo[i] = band_hi[i] =
			        quantize_f32(f, qy.s, qy.zp, qmin, qmax);
		} else {
			int32_t r0 = quantize_f32(logistic(v, 1), qy.s, qy.zp, qmin, qmax);
			int32_t r1 = quantize_f32(logistic(v, 0), qy.s, qy.zp, qmin, qmax);
			table[i] = r0;
			band_lo[i] = r0 < r1 ? r0 : r1;
			band_hi[i] = r0 < r1 ? r1 : r0;
		}
	}
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		int32_t xv = (int32_t)qref_get(x, i);
		uint8_t byte = (uint8_t)xv; /* the table is indexed by X's byte */
		if (band_lo[byte] != band_hi[byte])
			qref_mark_any(d, 0, i, band_lo[byte], band_hi[byte]);
		else
			qref_mark_exact(d, 0, i);
		qref_set(y, i, table[byte]);
	}
	return QCF_OK;
}

/* ---- QLinearSoftmax ------------------------------------------------------------------------ */

/* The axis' rows: D elements each, element j of row r at base(r) + j * step. opset <= 12 coerces
 * X to [N, D] at axis (D the product of the dimensions from axis on, rows contiguous); 13 and
 * later take D = shape[axis] and step over the dimensions after it (ORT transposes axis last). */
typedef struct sm_rows {
	size_t n, d, step, inner;
} sm_rows;

static size_t sm_base(const sm_rows *r, size_t row)
{
	return (row / r->inner) * r->d * r->inner + row % r->inner;
}

/* QlinearBuildLookupTableUint32's entry for x - max(row) = i - 255, i in [0, 255]: the log of
 * FLT_MAX / D (the quotient in float32) in double, or in float32 where the C++ library resolves
 * log of a float to the float overload (flt_log) */
static void sm_table(float *tab, float sx, size_t d, int flt_log)
{
	float q = FLT_MAX / (float)d;
	double shift = flt_log ? (double)logf(q) : log((double)q);
	shift = (shift - 5.0 > 0.0 ? shift - 5.0 : 0.0) / (double)sx;
	for (int i = 0; i < 256; i++)
		tab[i] = (float)exp(((double)i - 255.0 + shift) * (double)sx);
}

/* One output element from nearbyintf((vt * Y) / vsum), as x86-64 converts it: uint8 through a
 * 64-bit cvttss2si (infinity gives 0), zp added in uint32, above 255 -> 255; int8 through a
 * 32-bit one (infinity gives INT32_MIN), zp added wrapping in int32, clamped to [-128, 127].
 * *defined: the quotient converts without overflow (else the C++ conversion is undefined). */
static int32_t sm_out(float vt, float yq, float vsum, int32_t zp, int is_int8, int *defined)
{
	float v = nearbyintf((vt * yq) / vsum);
	*defined = v < 2147483648.0f;
	if (!is_int8) {
		uint32_t u = v < 9223372036854775808.0f ? (uint32_t)(uint64_t)(int64_t)v : 0u;
		u += (uint32_t)zp;
		return u > 255u ? 255 : (int32_t)u;
	}
	uint32_t w = (uint32_t)cvtps(v) + (uint32_t)zp; /* int32 wrap */
	int32_t q = w >= 0x80000000u ? -(int32_t)(~w) - 1 : (int32_t)w;
	return q < -128 ? -128 : q > 127 ? 127 : q;
}

static qcf_status qref_ort_qlinear_softmax(const qcf_op_call *call, const qref_op *row,
                                           qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	qcf_dtype T = x->dtype;
	if (T != QCF_INT8 && T != QCF_UINT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: X must be int8 or uint8 (the schema's T and the CPU kernel's "
		                 "registration), got %s",
		                 call->op, tn(T));
	if (y->dtype != T)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: X and Y share the type T, got %s and %s", call->op, tn(T),
		                 tn(y->dtype));
	if (!qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: Y has X's shape", call->op);
	int64_t opset = 0, axis = -1;
	(void)qref_attr_int(call, "opset", &opset); /* required by the row's schema */
	(void)qref_attr_int(call, "axis", &axis);
	if (axis < -(int64_t)x->rank || axis >= (int64_t)x->rank)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: axis %" PRId64 " is outside [-%d, %d] for X of rank %d (the "
		                 "schema's shape inference; a scalar X has no axis)",
		                 call->op, axis, (int)x->rank, (int)x->rank - 1, (int)x->rank);
	qref_ort_q qx, qy;
	if ((s = qref_ort_param(call, x, "X", &qx, d)) != QCF_OK ||
	    (s = qref_ort_param(call, y, "Y", &qy, d)) != QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "half to even in float32, as ORT does")) != QCF_OK)
		return s;
	int32_t ax = (int32_t)(axis < 0 ? axis + x->rank : axis);
	sm_rows r = {0, 1, 1, 1};
	for (int32_t k = ax + 1; k < x->rank; k++)
		r.inner *= (size_t)x->shape[k];
	r.d = (size_t)x->shape[ax];
	if (opset < 13) { /* coerced to 2-D: one row of everything from axis on */
		r.d *= r.inner;
		r.inner = 1;
	}
	r.step = r.inner;
	size_t total = qref_tensor_numel(x);
	if (total == 0)
		return QCF_OK;
	r.n = total / r.d;
	float tab[2][256], yq = floorf(1.0f / qy.s); /* Y_scale: floor(1 / y_scale), float32 */
	sm_table(tab[0], qx.s, r.d, 0);
	sm_table(tab[1], qx.s, r.d, 1);
	int is_int8 = T == QCF_INT8;
	for (size_t row_i = 0; row_i < r.n; row_i++) {
		size_t b = sm_base(&r, row_i);
		int32_t xmax = INT32_MIN;
		for (size_t j = 0; j < r.d; j++) {
			int32_t v = (int32_t)qref_get(x, b + j * r.step);
			xmax = v > xmax ? v : xmax;
		}
		float vsum[2] = {0.0f, 0.0f}; /* in element order, float32 */
		for (size_t j = 0; j < r.d; j++) {
			int32_t i = (int32_t)qref_get(x, b + j * r.step) - xmax + 255;
			vsum[0] += tab[0][i];
			vsum[1] += tab[1][i];
		}
		for (size_t j = 0; j < r.d; j++) {
			size_t e = b + j * r.step;
			int32_t i = (int32_t)qref_get(x, e) - xmax + 255;
			int def0, def1;
			int32_t o0 = sm_out(tab[0][i], yq, vsum[0], qy.zp, is_int8, &def0);
			int32_t o1 = sm_out(tab[1][i], yq, vsum[1], qy.zp, is_int8, &def1);
			double lo, hi;
			qref_range_d(T, &lo, &hi);
			if (!def0 || !def1 || !isfinite(tab[0][i] * yq) ||
			    !isfinite(tab[1][i] * yq))
				qref_mark_any(d, 0, e, lo, hi); /* an undefined C++ conversion */
			else if (o0 != o1)
				qref_mark_any(d, 0, e, o0 < o1 ? o0 : o1, o0 < o1 ? o1 : o0);
			else
				qref_mark_exact(d, 0, e);
			qref_set(y, e, o0);
		}
	}
	return QCF_OK;
}

/* ---- QLinearWhere -------------------------------------------------------------------------- */

/* A side's table (QlinearBuildLookupTable with the identity): byte i read as T, s (i - zp) in
 * float32, MlasQuantizeLinear to z; none (a copy) when the scale (float ==) and zero point equal
 * z's, which gives the same bytes. */
static void where_table(int32_t *tab, const qref_ort_q *q, const qref_ort_q *qz, qcf_dtype T,
                        int32_t qmin, int32_t qmax)
{
	for (int i = 0; i < 256; i++) {
		int32_t v = T == QCF_INT8 ? (int32_t)(int8_t)(uint8_t)i : i;
		if (q->s == qz->s && q->zp == qz->zp)
			tab[i] = v;
		else
			tab[i] = quantize_f32(q->s * (float)(v - q->zp), qz->s, qz->zp, qmin, qmax);
	}
}

static qcf_status qref_ort_qlinear_where(const qcf_op_call *call, const qref_op *row,
                                         qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 3, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *c = &call->inputs[0], *x = &call->inputs[1], *yv = &call->inputs[2];
	qcf_tensor *z = &call->outputs[0];
	qcf_dtype T = x->dtype;
	if (c->dtype != QCF_BOOL)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: condition must be bool (the schema's B), got %s", call->op,
		                 tn(c->dtype));
	if (T != QCF_INT8 && T != QCF_UINT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: X must be int8 or uint8 (the schema's T and the CPU kernel's "
		                 "registration), got %s",
		                 call->op, tn(T));
	if (yv->dtype != T || z->dtype != T)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: X, Y and Z share the type T, got %s, %s and %s", call->op,
		                 tn(T), tn(yv->dtype), tn(z->dtype));
	qref_ort_q qx, qy, qz;
	if ((s = qref_ort_param(call, x, "X", &qx, d)) != QCF_OK ||
	    (s = qref_ort_param(call, yv, "Y", &qy, d)) != QCF_OK ||
	    (s = qref_ort_param(call, z, "Z", &qz, d)) != QCF_OK)
		return s;
	qref_bcast bc;
	if ((s = qref_bcast_init(call, 0, 3, QCF_MAX_RANK, "ORT's InputBroadcaster", &bc, d)) !=
	    QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "half to even in float32, as MLAS does")) != QCF_OK)
		return s;
	double qlo, qhi;
	qref_range_d(T, &qlo, &qhi);
	int32_t tx[256], ty[256];
	where_table(tx, &qx, &qz, T, (int32_t)qlo, (int32_t)qhi);
	where_table(ty, &qy, &qz, T, (int32_t)qlo, (int32_t)qhi);
	for (size_t i = 0; i < bc.n; i++) {
		size_t ix[3];
		qref_bcast_index(&bc, i, ix);
		int take_x = qref_get(c, ix[0]) != 0;
		int32_t v = (int32_t)qref_get(take_x ? x : yv, ix[take_x ? 1 : 2]);
		qref_set(z, i, (take_x ? tx : ty)[(uint8_t)v]);
		qref_mark_exact(d, 0, i);
	}
	return QCF_OK;
}

static const qref_attr_schema leaky_relu_attrs[] = {
        A_NUM("alpha", "0.01"),
        END,
};

static const qref_attr_schema softmax_attrs[] = {
        A_INT_REQ("opset", -I32 - 1, I32),
        A_INT("axis", -I32 - 1, I32, "-1"),
        END,
};

const qref_op qref_ops_ort_qlinear_elementwise[] = {
        {.schema = {.semantics = "ort", .op = "QLinearAdd", AB_Y, .attrs = qref_no_attrs},
         .kernel = qref_ort_qlinear_binary,
         .param = EW_ADD},
        {.schema = {.semantics = "ort", .op = "QLinearMul", AB_Y, .attrs = qref_no_attrs},
         .kernel = qref_ort_qlinear_binary,
         .param = EW_MUL},
        {.schema = {.semantics = "ort", .op = "QLinearLeakyRelu", XY, .attrs = leaky_relu_attrs},
         .kernel = qref_ort_qlinear_lut,
         .param = EW_LEAKY_RELU},
        {.schema = {.semantics = "ort", .op = "QLinearSigmoid", XY, .attrs = qref_no_attrs},
         .kernel = qref_ort_qlinear_lut,
         .param = EW_SIGMOID},
        {.schema = {.semantics = "ort", .op = "QLinearSoftmax", XY, .attrs = softmax_attrs},
         .kernel = qref_ort_qlinear_softmax},
        {.schema = {.semantics = "ort",
                    .op = "QLinearWhere",
                    IO(LIST("condition", "x", "y"), 3, 3, LIST("z"), 1),
                    .attrs = qref_no_attrs},
         .kernel = qref_ort_qlinear_where},
        {.schema = {.op = NULL}},
};
