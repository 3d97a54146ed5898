/*
 * LiteRT ABS, NEG, SQUARED_DIFFERENCE, DIV, FLOOR_DIV, SELECT and SELECT_V2 on integer tensors.
 *
 * Sources (google-ai-edge/LiteRT): tflite/kernels/elementwise.cc (GenericPrepare, AbsEval,
 * AbsEvalQuantized), neg.cc and internal/reference/neg.h (Negate), squared_difference.cc,
 * div.cc with internal/reference/div.h and optimized/optimized_ops.h (DivElementwise,
 * BroadcastDivSlowQuantized), floor_div.cc with internal/reference/binary_function.h
 * (FloorDiv), select.cc with internal/reference/select.h (Select, RankOneSelect,
 * BroadcastSelect5DSlow);
 * common.h (GetReciprocal, CountLeadingSignBits, the MultiplyByQuantizedMultiplier forms).
 * The arithmetic, ABI and refusals: specs/litert/OPERATORS.md ("LiteRT ABS, NEG,
 * SQUARED_DIFFERENCE, DIV, FLOOR_DIV and SELECT_V2", SELECT's paragraph). Broadcasting and the
 * fused activation are litert_bcast.c's, as for ADD and MUL.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "fixedpoint.h"
#include "kernel.h"
#include "litert_activations.h"
#include "litert_bcast.h"
#include "op.h"
#include "requant.h"

enum { OP_ABS, OP_NEG, OP_SQDIFF, OP_DIV, OP_FLOOR_DIV, OP_SELECT, OP_SELECT_V1 };

/* ---- shared checks ----------------------------------------------------------------------- */

/* Per-tensor quantization of tensor t with a positive finite scale. */
static qcf_status get_qp(const qcf_op_call *call, const qcf_tensor *t, const char *name, float *s,
                         int32_t *zp, qref_detail *d)
{
	char what[64];
	snprintf(what, sizeof what, "%s %s", call->op, name);
	qcf_quant q;
	qcf_status st = qref_get_quant(t, what, 1, &q, d);
	if (st != QCF_OK)
		return st;
	if (!(q.scales[0] > 0.0f && isfinite(q.scales[0])))
		return qref_fail_tensor(d, t, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s needs a positive finite scale, got %g", what,
		                        (double)q.scales[0]);
	*s = q.scales[0];
	*zp = q.zero_points[0];
	return QCF_OK;
}

/* Output 0 of the dtype of input k (LiteRT's Prepare sets output->type from it). */
static qcf_status out_dtype(const qcf_op_call *call, int k, qref_detail *d)
{
	qcf_dtype t = call->inputs[k].dtype, o = call->outputs[0].dtype;
	if (o != t)
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: output dtype must be the input's (%s), got %s",
		                        call->op, qref_dtype_name(t), qref_dtype_name(o));
	return QCF_OK;
}

/* Inputs a and b of one dtype (TF_LITE_ENSURE_TYPES_EQ). */
static qcf_status same_in(const qcf_op_call *call, int a, int b, qref_detail *d)
{
	qcf_dtype ta = call->inputs[a].dtype, tb = call->inputs[b].dtype;
	if (ta != tb)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: inputs must have one dtype, got %s and %s", call->op,
		                 qref_dtype_name(ta), qref_dtype_name(tb));
	return QCF_OK;
}

/* dtypes LiteRT's kernel has but the reference does not implement (float). */
static qcf_status not_impl(const qcf_op_call *call, qcf_dtype t, qref_detail *d)
{
	return qref_fail(d, QCF_NOT_SUPPORTED,
	                 "%s: %s is LiteRT's but not implemented by the reference", call->op,
	                 qref_dtype_name(t));
}

/* Output shape = input shape (the unary ops resize the output to the input's dims). */
static qcf_status unary_shape(const qcf_op_call *call, qref_detail *d)
{
	if (!qref_same_shape(&call->inputs[0], &call->outputs[0]))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: output shape must equal the input shape", call->op);
	return QCF_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* ---- ABS ------------------------------------------------------------------------------------- */

typedef struct absp {
	int quantized; /* int8, or int16 with quantization; else raw std::abs */
	float si, so;
	int32_t zi, zo;
	int rescale; /* si != so (float compare) */
	int32_t m;
	int sh;
	qref_rounding rnd;
} absp;

/* GenericPrepare (kAbsName) and AbsEval's dtypes. full = 0 for the real-valued hook. */
static qcf_status abs_prepare(const qcf_op_call *call, int full, absp *p, qref_detail *d)
{
	memset(p, 0, sizeof *p);
	qcf_status s =
	        full ? qref_check_call(call, 1, 1, d) : qref_check_call_shapes(call, 1, 1, d);
	if (s == QCF_OK)
		s = out_dtype(call, 0, d);
	if (s == QCF_OK)
		s = unary_shape(call, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	if (in->dtype == QCF_FLOAT32)
		return not_impl(call, in->dtype, d);
	if (in->dtype != QCF_INT8 && in->dtype != QCF_INT16 && in->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "ABS takes int8, int16 or int32 (float32), got %s (AbsEval)",
		                 qref_dtype_name(in->dtype));
	p->quantized = in->dtype == QCF_INT8 || (in->dtype == QCF_INT16 && in->quant);
	if (!p->quantized)
		return full ? qref_no_rounding(call, d, "nothing: raw std::abs") : QCF_OK;
	if ((s = get_qp(call, in, "input", &p->si, &p->zi, d)) != QCF_OK)
		return s;
	if (in->dtype == QCF_INT16 && p->zi != 0)
		return qref_fail_tensor(d, in, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "ABS int16 needs zero points 0 (GenericPrepare), got input "
		                        "zero point %" PRId32,
		                        p->zi);
	if (!full)
		return QCF_OK;
	if ((s = get_qp(call, &call->outputs[0], "output", &p->so, &p->zo, d)) != QCF_OK)
		return s;
	if (in->dtype == QCF_INT16 && p->zo != 0)
		return qref_fail_output(
		        d, 0, QREF_PART_QUANT, QCF_INVALID_PARAM,
		        "ABS int16 needs zero points 0 (GenericPrepare), got output "
		        "zero point %" PRId32,
		        p->zo);
	if ((s = qref_requant_rounding(call, d, "|x - zp_in| by the multiplier s_in / s_out",
	                               &p->rnd)) != QCF_OK)
		return s;
	p->rescale = p->si != p->so;
	if (p->rescale) /* SetAbsOutputMultiplier: the quotient of the float scales in float */
		qref_quantize_multiplier((double)(p->si / p->so), p->rnd, &p->m, &p->sh);
	return QCF_OK;
}

/* MBQM(x, m, sh) + zo as LiteRT computes it in int32; 0 where that is undefined. */
static int mbqm_plus(int32_t x, int32_t m, int sh, qref_rounding rnd, int32_t zo, int64_t *y)
{
	int64_t v;
	if (rnd == QREF_ROUND_DOUBLE) {
		if (sh >= 31 || !qref_mbqm_preshift_fits(x, sh))
			return 0;
		v = qref_mbqm(x, m, sh, rnd);
	} else {
		v = qref_mbqm_single_wide(x, m, sh);
		if (v < INT32_MIN || v > INT32_MAX)
			return 0;
	}
	v += zo;
	*y = v;
	return v >= INT32_MIN && v <= INT32_MAX;
}

static qcf_status abs_kernel(const qcf_op_call *call, absp *p, qref_detail *d)
{
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	int64_t qmin, qmax;
	qref_dtype_range(out->dtype, &qmin, &qmax);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int64_t x = (int64_t)qref_get(in, i), y = 0;
		int ok = 1;
		if (!p->quantized) {
			/* std::abs: int16 through int32 and narrowed (32768 wraps to -32768); int32
			 * INT32_MIN has no absolute value (undefined) */
			y = x < 0 ? -x : x;
			if (out->dtype == QCF_INT16)
				y = y > 32767 ? y - 65536 : y;
			else
				ok = y <= INT32_MAX;
		} else {
			int64_t v = x - p->zi;
			v = v < 0 ? -v : v; /* |x - zp| <= 65535: int32 */
			if (!p->rescale)
				y = v + p->zo;
			else
				ok = mbqm_plus((int32_t)v, p->m, p->sh, p->rnd, p->zo, &y);
			y = clamp64(y, qmin, qmax);
		}
		if (ok) {
			qref_mark_exact(d, 0, i);
		} else {
			qref_mark_any(d, 0, i, (double)qmin, (double)qmax);
			y = qmin;
		}
		qref_set(out, i, (double)y);
	}
	return QCF_OK;
}

/* ---- NEG ------------------------------------------------------------------------------------- */

/* Negate: -x of the stored integers, the quantization not read; int8 and int16 narrow the
 * int result (-(-128) wraps to -128), int32 INT32_MIN is undefined. */
static qcf_status neg_kernel(const qcf_op_call *call, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s == QCF_OK)
		s = out_dtype(call, 0, d);
	if (s == QCF_OK)
		s = unary_shape(call, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	if (in->dtype == QCF_FLOAT32 || in->dtype == QCF_INT64 || in->dtype == QCF_UINT16 ||
	    in->dtype == QCF_FLOAT16 || in->dtype == QCF_BFLOAT16)
		return not_impl(call, in->dtype, d);
	if (in->dtype != QCF_INT8 && in->dtype != QCF_INT16 && in->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "NEG takes int8, int16, int32 (int64, float32, float16, bfloat16, "
		                 "uint16), got %s (neg.cc Eval)",
		                 qref_dtype_name(in->dtype));
	if ((s = qref_no_rounding(call, d, "nothing: raw negation")) != QCF_OK)
		return s;
	int64_t qmin, qmax;
	qref_dtype_range(out->dtype, &qmin, &qmax);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int64_t y = -(int64_t)qref_get(in, i);
		if (y > qmax && out->dtype != QCF_INT32) {
			y -= qmax - qmin + 1;
		} else if (y > qmax) {
			qref_mark_any(d, 0, i, (double)qmin, (double)qmax);
			qref_set(out, i, (double)qmin);
			continue;
		}
		qref_mark_exact(d, 0, i);
		qref_set(out, i, (double)y);
	}
	return QCF_OK;
}

/* ---- SQUARED_DIFFERENCE ---------------------------------------------------------------------- */

typedef struct sqdp {
	float s[3];
	int32_t zp[3];
	int32_t m[3];
	int e[3];
	qref_rounding rnd;
	qref_bcast b;
} sqdp;

static const char *const io_names[3] = {"input 1", "input 2", "output"};

static qcf_status sqdiff_prepare(const qcf_op_call *call, int full, sqdp *p, qref_detail *d)
{
	memset(p, 0, sizeof *p);
	qcf_status s =
	        full ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s == QCF_OK)
		s = same_in(call, 0, 1, d);
	if (s == QCF_OK)
		s = out_dtype(call, 1, d);
	if (s != QCF_OK)
		return s;
	qcf_dtype t = call->inputs[0].dtype;
	if (t == QCF_FLOAT32 || t == QCF_INT32)
		return not_impl(call, t, d);
	if (t != QCF_INT8)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "SQUARED_DIFFERENCE quantizes int8 only (float32, int32 raw), got %s "
		        "(squared_difference.cc Eval)",
		        qref_dtype_name(t));
	const qcf_tensor *tt[3] = {&call->inputs[0], &call->inputs[1], &call->outputs[0]};
	for (int j = 0; j < (full ? 3 : 2); j++) {
		if ((s = get_qp(call, tt[j], io_names[j], &p->s[j], &p->zp[j], d)) != QCF_OK)
			return s;
		if (p->zp[j] < -128 || p->zp[j] > 127)
			return qref_fail_tensor(d, tt[j], QREF_PART_QUANT, QCF_INVALID_PARAM,
			                        "SQUARED_DIFFERENCE: %s zero point %" PRId32
			                        " outside [-128, 127] (Prepare)",
			                        io_names[j], p->zp[j]);
	}
	if ((s = qref_bcast_init(call, 0, 2, 4, "BroadcastBinaryFunction4DSlow", &p->b, d)) !=
	    QCF_OK)
		return s;
	if (!full)
		return QCF_OK;
	if ((s = qref_requant_rounding(call, d,
	                               "the rescaled inputs and their squared difference by "
	                               "integer multipliers",
	                               &p->rnd)) != QCF_OK)
		return s;
	/* 2 * max(s1, s2) in float (exact), widened; the quotients in double */
	double tm = (double)(2.0f * (p->s[0] > p->s[1] ? p->s[0] : p->s[1]));
	double r[3] = {(double)p->s[0] / tm, (double)p->s[1] / tm,
	               tm * tm / (double)(16384.0f * p->s[2])};
	if (!(r[2] < 1.0))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SQUARED_DIFFERENCE: output multiplier (2 max(s1, s2))^2 / (2^14 "
		                 "s_out) = %g must be < 1 (QuantizeMultiplierSmallerThanOneExp "
		                 "aborts)",
		                 r[2]);
	for (int j = 0; j < 3; j++) {
		qref_quantize_multiplier(r[j], p->rnd, &p->m[j], &p->e[j]);
		if (p->e[j] > 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "SQUARED_DIFFERENCE: multiplier %.17g rounds up to 1 "
			                 "(QuantizeMultiplierSmallerThanOneExp aborts)",
			                 r[j]);
	}
	return QCF_OK;
}

static qcf_status sqdiff_kernel(const qcf_op_call *call, sqdp *p, qref_detail *d)
{
	qcf_tensor *out = &call->outputs[0];
	for (size_t i = 0; i < p->b.n; i++) {
		size_t idx[QREF_BCAST_MAX_IN];
		qref_bcast_index(&p->b, i, idx);
		int32_t v[2];
		for (int j = 0; j < 2; j++) {
			/* (q - zp) * 2^7: |.| <= 255 * 128 */
			int32_t x = ((int32_t)qref_get(&call->inputs[j], idx[j]) - p->zp[j]) * 128;
			v[j] = qref_mbqm_lt1(x, p->m[j], p->e[j], p->rnd);
		}
		int32_t diff = v[0] - v[1]; /* |v| <= 255 * 64: diff^2 < 2^31 */
		int32_t y = qref_mbqm_lt1(diff * diff, p->m[2], p->e[2], p->rnd) + p->zp[2];
		qref_mark_exact(d, 0, i);
		qref_set(out, i, (double)clamp64(y, -128, 127));
	}
	return QCF_OK;
}

/* ---- DIV ------------------------------------------------------------------------------------- */

typedef struct divp {
	float s[3];
	int32_t zp[3];
	int act;
	int32_t lo, hi;
	int32_t m;
	int e;
	qref_rounding rnd;
	qref_bcast b;
} divp;

static qcf_status div_prepare(const qcf_op_call *call, int full, divp *p, qref_detail *d)
{
	memset(p, 0, sizeof *p);
	qcf_status s =
	        full ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s == QCF_OK)
		s = same_in(call, 0, 1, d);
	if (s == QCF_OK)
		s = out_dtype(call, 1, d);
	if (s == QCF_OK)
		s = qref_act_get(call, &p->act, d);
	if (s != QCF_OK)
		return s;
	qcf_dtype t = call->inputs[0].dtype;
	if (t == QCF_FLOAT32 || t == QCF_INT32)
		return not_impl(call, t, d);
	if (t != QCF_UINT8 && t != QCF_INT8 && t != QCF_INT16)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "DIV quantizes uint8, int8 and int16 (float32, int32 raw), got %s "
		                 "(div.cc Eval)",
		                 qref_dtype_name(t));
	int64_t qmin, qmax;
	qref_dtype_range(t, &qmin, &qmax);
	const qcf_tensor *tt[3] = {&call->inputs[0], &call->inputs[1], &call->outputs[0]};
	for (int j = 0; j < (full ? 3 : 2); j++) {
		if ((s = get_qp(call, tt[j], io_names[j], &p->s[j], &p->zp[j], d)) != QCF_OK)
			return s;
		if (p->zp[j] < qmin || p->zp[j] > qmax)
			return qref_fail_tensor(
			        d, tt[j], QREF_PART_QUANT, QCF_INVALID_PARAM,
			        "DIV: %s zero point %" PRId32
			        " outside the dtype's range (DivCheckArithmeticParams "
			        "TFLITE_DCHECK)",
			        io_names[j], p->zp[j]);
	}
	if ((s = qref_bcast_init(call, 0, 2, 8, "BroadcastBinaryOpSimple", &p->b, d)) != QCF_OK)
		return s;
	if (!full)
		return QCF_OK;
	const qcf_tensor *b = &call->inputs[1];
	size_t nb = qref_tensor_numel(b);
	for (size_t i = 0; i < nb; i++)
		if (qref_get(b, i) == 0)
			return qref_fail_tensor(
			        d, b, QREF_PART_DATA, QCF_INVALID_PARAM,
			        "DIV: input 2 holds a stored 0 at %zu (CheckNonZero "
			        "refuses it, whatever the zero point)",
			        i);
	if ((s = qref_act_range(call, p->act, tt[2], p->s[2], p->zp[2], &p->lo, &p->hi, d)) !=
	    QCF_OK)
		return s;
	if ((s = qref_requant_rounding(call, d,
	                               "the quotient by the reciprocal and the multiplier "
	                               "s1 / (s2 s_out)",
	                               &p->rnd)) != QCF_OK)
		return s;
	/* Prepare: input1->params.scale / (input2->params.scale * output->params.scale), float */
	float prod = p->s[1] * p->s[2];
	float ratio = p->s[0] / prod;
	if (!(isfinite(ratio) && ratio > 0.0f))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "DIV: s1 / (s2 s_out) = %g in float is not positive and finite",
		                 (double)ratio);
	qref_quantize_multiplier((double)ratio, p->rnd, &p->m, &p->e);
	return QCF_OK;
}

/* CountLeadingSignBits of int32 (31 for 0). */
static int clsb(int32_t x)
{
	return qfp_clz32(x >= 0 ? x : ~x) - 1;
}

/*
 * One element of DivElementwise: the quotient (q1 - zp1) / (q2 - zp2) by GetReciprocal and
 * the output multiplier, + zp_out (unclamped). 0 where LiteRT's arithmetic is undefined.
 */
static int div_one(const divp *p, int32_t v1, int32_t v2, int64_t *y)
{
	if (v2 == 0) /* GetReciprocal of 0 shifts by 32 */
		return 0;
	if (v2 < 0) {
		v1 = -v1;
		v2 = -v2;
	}
	int h2 = qfp_clz32(v2);
	int rs = 31 - h2; /* num_bits_over_unit */
	int32_t inv = qfp_recip1p((int32_t)(((uint32_t)v2 << h2) - 0x80000000u));
	int h = clsb(v1);
	int ts = p->e - rs - h;
	int32_t uq;
	if (p->rnd == QREF_ROUND_DOUBLE) {
		/* SRDHM(v1 * 2^h, inv): v1 * 2^h fits by the choice of h */
		uq = qref_srdhm((int32_t)((int64_t)v1 * (INT64_C(1) << h)), inv);
		if (ts > 0 || ts < -31) /* RoundingDivideByPOT outside [0, 31] */
			return 0;
		*y = (int64_t)qref_mbqm_lt1(uq, p->m, ts, p->rnd) + p->zp[2];
	} else {
		if (h > 30 || ts > 30 || ts < -31) /* MBQM's shift outside [-31, 30] */
			return 0;
		int64_t w = qref_mbqm_single_wide(v1, inv, h);
		if (w < INT32_MIN || w > INT32_MAX)
			return 0;
		w = qref_mbqm_single_wide((int32_t)w, p->m, ts);
		if (w < INT32_MIN || w > INT32_MAX)
			return 0;
		*y = w + p->zp[2];
	}
	return *y >= INT32_MIN && *y <= INT32_MAX;
}

static qcf_status div_kernel(const qcf_op_call *call, divp *p, qref_detail *d)
{
	qcf_tensor *out = &call->outputs[0];
	for (size_t i = 0; i < p->b.n; i++) {
		size_t idx[QREF_BCAST_MAX_IN];
		qref_bcast_index(&p->b, i, idx);
		int32_t v1 = (int32_t)qref_get(&call->inputs[0], idx[0]) - p->zp[0];
		int32_t v2 = (int32_t)qref_get(&call->inputs[1], idx[1]) - p->zp[1];
		int64_t y = 0;
		if (div_one(p, v1, v2, &y)) {
			qref_mark_exact(d, 0, i);
			y = clamp64(y, p->lo, p->hi);
		} else {
			qref_mark_any(d, 0, i, p->lo, p->hi);
			y = p->lo;
		}
		qref_set(out, i, (double)y);
	}
	return QCF_OK;
}

/* ---- FLOOR_DIV ------------------------------------------------------------------------------- */

/* floor(a / b) of the stored integers (FloorDiv: std::floor of the double quotient, exact for
 * int32 operands), the quantization not read; a quotient outside the dtype (MIN / -1) is an
 * undefined conversion. */
static qcf_status floordiv_kernel(const qcf_op_call *call, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s == QCF_OK)
		s = same_in(call, 0, 1, d);
	if (s == QCF_OK)
		s = out_dtype(call, 0, d);
	if (s != QCF_OK)
		return s;
	qcf_dtype t = call->inputs[0].dtype;
	if (t == QCF_FLOAT32)
		return not_impl(call, t, d);
	if (t != QCF_INT8 && t != QCF_INT16 && t != QCF_INT32)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "FLOOR_DIV takes int8, int16, int32 (float32), got %s (floor_div.cc "
		        "Prepare)",
		        qref_dtype_name(t));
	qref_bcast b;
	if ((s = qref_bcast_init(call, 0, 2, 4, "BroadcastBinaryFunction4DSlow", &b, d)) != QCF_OK)
		return s;
	const qcf_tensor *den = &call->inputs[1];
	size_t nd = qref_tensor_numel(den);
	for (size_t i = 0; i < nd; i++)
		if (qref_get(den, i) == 0)
			return qref_fail_tensor(d, den, QREF_PART_DATA, QCF_INVALID_PARAM,
			                        "FLOOR_DIV: division by 0 (input 2 element %zu; "
			                        "EvalImpl refuses it)",
			                        i);
	if ((s = qref_no_rounding(call, d, "nothing: integer floor division")) != QCF_OK)
		return s;
	int64_t qmin, qmax;
	qref_dtype_range(t, &qmin, &qmax);
	qcf_tensor *out = &call->outputs[0];
	for (size_t i = 0; i < b.n; i++) {
		size_t idx[QREF_BCAST_MAX_IN];
		qref_bcast_index(&b, i, idx);
		int64_t x = (int64_t)qref_get(&call->inputs[0], idx[0]);
		int64_t y = (int64_t)qref_get(den, idx[1]);
		int64_t q = x / y;
		if (q * y != x && ((x < 0) != (y < 0)))
			q--;
		if (q > qmax) {
			qref_mark_any(d, 0, i, (double)qmin, (double)qmax);
			q = qmin;
		} else {
			qref_mark_exact(d, 0, i);
		}
		qref_set(out, i, (double)q);
	}
	return QCF_OK;
}

/* ---- SELECT and SELECT_V2 ------------------------------------------------------------------- */

/* SELECT (SelectPrepare<kVersionOne>): unless condition, x and y have one shape (Select, element
 * by element), x and y must have one shape and the condition be a scalar or of rank 1 as long as
 * x's first dimension; condition element r then picks the whole slice r of x or y, n / rows
 * consecutive elements (RankOneSelect). The output has x's shape. */
static qcf_status select_v1(const qcf_op_call *call, qref_detail *d)
{
	const qcf_tensor *c = &call->inputs[0], *x = &call->inputs[1], *y = &call->inputs[2];
	qcf_tensor *out = &call->outputs[0];
	size_t n = qref_tensor_numel(x), rows = n; /* condition elements, one per slice */
	if (!qref_same_shape(c, x) || !qref_same_shape(x, y)) {
		if (c->rank == 0)
			rows = 1;
		else if (c->rank == 1 && x->rank >= 1 && c->shape[0] == x->shape[0])
			rows = (size_t)c->shape[0];
		else
			return qref_fail_tensor(d, c, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			                        "SELECT: the condition must have x's shape, be a "
			                        "scalar or have rank 1 and x's first dimension");
		if (!qref_same_shape(x, y))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "SELECT: x and y must have one shape (no broadcasting; "
			                 "SELECT_V2 broadcasts)");
	}
	if (!qref_same_shape(out, x))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SELECT: output shape must equal x's shape");
	for (size_t i = 0; i < n; i++) {
		size_t r = i / (n / rows); /* n > 0, so rows > 0 and n / rows >= 1 */
		int k = qref_get(c, r) != 0 ? 1 : 2;
		qref_mark_exact(d, 0, i);
		qref_set(out, i, qref_get(&call->inputs[k], i));
	}
	return QCF_OK;
}

/* out = condition ? x : y of the stored values (a copy by element size: no quantization is
 * read or checked). SELECT_V2 broadcasts the three inputs (rank <= 8), SELECT (v1) as above. */
static qcf_status select_kernel(const qcf_op_call *call, int v1, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 3, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *c = &call->inputs[0];
	if (c->dtype != QCF_BOOL)
		return qref_fail_tensor(d, c, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: condition must be bool, got %s", call->op,
		                        qref_dtype_name(c->dtype));
	if ((s = same_in(call, 1, 2, d)) != QCF_OK || (s = out_dtype(call, 1, d)) != QCF_OK)
		return s;
	qcf_dtype t = call->inputs[1].dtype;
	if (t != QCF_INT8 && t != QCF_UINT8 && t != QCF_INT16 && t != QCF_INT32)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: %s is LiteRT's (any 8, 16, 32 or 64-bit type) but the "
		                 "reference copies int8, uint8, int16 and int32 only",
		                 call->op, qref_dtype_name(t));
	if ((s = qref_no_rounding(call, d, "nothing: it selects stored values")) != QCF_OK)
		return s;
	qcf_tensor *out = &call->outputs[0];
	/* SelectPrepare keeps the output's own shape when all four hold one element */
	if (qref_tensor_numel(c) == 1 && qref_tensor_numel(&call->inputs[1]) == 1 &&
	    qref_tensor_numel(&call->inputs[2]) == 1 && qref_tensor_numel(out) == 1) {
		qref_mark_exact(d, 0, 0);
		qref_set(out, 0, qref_get(&call->inputs[qref_get(c, 0) != 0 ? 1 : 2], 0));
		return QCF_OK;
	}
	if (v1)
		return select_v1(call, d);
	qref_bcast b;
	if ((s = qref_bcast_init(call, 0, 3, 8, "BroadcastSelectSimple", &b, d)) != QCF_OK)
		return s;
	for (size_t i = 0; i < b.n; i++) {
		size_t idx[QREF_BCAST_MAX_IN];
		qref_bcast_index(&b, i, idx);
		int k = qref_get(c, idx[0]) != 0 ? 1 : 2;
		qref_mark_exact(d, 0, i);
		qref_set(out, i, qref_get(&call->inputs[k], idx[k]));
	}
	return QCF_OK;
}

/* ---- kernels and real-valued hooks by row -----------------------------------------------------
 */

static qcf_status arith_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	qcf_status s;
	switch (row->param) {
	case OP_ABS: {
		absp p;
		s = abs_prepare(call, 1, &p, d);
		return s == QCF_OK ? abs_kernel(call, &p, d) : s;
	}
	case OP_NEG: return neg_kernel(call, d);
	case OP_SQDIFF: {
		sqdp p;
		s = sqdiff_prepare(call, 1, &p, d);
		return s == QCF_OK ? sqdiff_kernel(call, &p, d) : s;
	}
	case OP_DIV: {
		divp p;
		s = div_prepare(call, 1, &p, d);
		return s == QCF_OK ? div_kernel(call, &p, d) : s;
	}
	case OP_FLOOR_DIV: return floordiv_kernel(call, d);
	default: return select_kernel(call, row->param == OP_SELECT_V1, d);
	}
}

/* The real value of input k's element i. */
static double real_of(const qcf_op_call *call, int k, size_t i, float s, int32_t zp)
{
	return (qref_get(&call->inputs[k], i) - zp) * (double)s;
}

/* |x|, (x1 - x2)^2, x1 / x2 (activation applied) in real units. */
static qcf_status arith_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                             qref_detail *d)
{
	(void)k; /* one output */
	qcf_status s;
	if (row->param == OP_ABS) {
		absp p;
		if ((s = abs_prepare(call, 0, &p, d)) != QCF_OK)
			return s;
		if (!p.quantized)
			return qref_fail(d, QCF_NOT_SUPPORTED,
			                 "ABS: the raw %s path is not quantized",
			                 qref_dtype_name(call->inputs[0].dtype));
		size_t n = qref_tensor_numel(&call->inputs[0]);
		for (size_t i = 0; i < n; i++)
			values[i] = fabs(real_of(call, 0, i, p.si, p.zi));
		return QCF_OK;
	}
	if (row->param == OP_SQDIFF) {
		sqdp p;
		if ((s = sqdiff_prepare(call, 0, &p, d)) != QCF_OK)
			return s;
		for (size_t i = 0; i < p.b.n; i++) {
			size_t idx[QREF_BCAST_MAX_IN];
			qref_bcast_index(&p.b, i, idx);
			double v = real_of(call, 0, idx[0], p.s[0], p.zp[0]) -
			           real_of(call, 1, idx[1], p.s[1], p.zp[1]);
			values[i] = v * v;
		}
		return QCF_OK;
	}
	divp p; /* OP_DIV */
	if ((s = div_prepare(call, 0, &p, d)) != QCF_OK)
		return s;
	for (size_t i = 0; i < p.b.n; i++) {
		size_t idx[QREF_BCAST_MAX_IN];
		qref_bcast_index(&p.b, i, idx);
		double den = real_of(call, 1, idx[1], p.s[1], p.zp[1]);
		double v = den != 0 ? real_of(call, 0, idx[0], p.s[0], p.zp[0]) / den : 0;
		values[i] = qref_act_real(p.act, v);
	}
	return QCF_OK;
}

static const qref_attr_schema div_attrs[] = {
        A_ENUM("fused_activation_function", ACT4, 0, "NONE"),
        END,
};

#define SEL_IO IO(LIST("condition", "x", "y"), 3, 3, LIST("output"), 1)

const qref_op qref_ops_litert_arith[] = {
        {.schema = {.semantics = "litert", .op = "ABS", XY, .attrs = qref_no_attrs},
         .kernel = arith_kernel,
         .real = arith_real,
         .param = OP_ABS},
        {.schema = {.semantics = "litert", .op = "NEG", XY, .attrs = qref_no_attrs},
         .kernel = arith_kernel,
         .param = OP_NEG},
        {.schema =
                 {.semantics = "litert", .op = "SQUARED_DIFFERENCE", AB_Y, .attrs = qref_no_attrs},
         .kernel = arith_kernel,
         .real = arith_real,
         .param = OP_SQDIFF},
        {.schema = {.semantics = "litert", .op = "DIV", AB_Y, .attrs = div_attrs},
         .kernel = arith_kernel,
         .real = arith_real,
         .param = OP_DIV},
        {.schema = {.semantics = "litert", .op = "FLOOR_DIV", AB_Y, .attrs = qref_no_attrs},
         .kernel = arith_kernel,
         .param = OP_FLOOR_DIV},
        {.schema = {.semantics = "litert", .op = "SELECT", SEL_IO, .attrs = qref_no_attrs},
         .kernel = arith_kernel,
         .param = OP_SELECT_V1},
        {.schema = {.semantics = "litert", .op = "SELECT_V2", SEL_IO, .attrs = qref_no_attrs},
         .kernel = arith_kernel,
         .param = OP_SELECT},
        {.schema = {.op = NULL}},
};
