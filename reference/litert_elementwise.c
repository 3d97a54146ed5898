/*
 * LiteRT ADD, SUB, MUL, MAXIMUM, MINIMUM and the comparisons EQUAL,
 * NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL on quantized tensors.
 *
 * Sources (google-ai-edge/LiteRT): tflite/kernels/add.cc, sub.cc, mul.cc,
 * maximum_minimum.cc, comparisons.cc, kernel_util.cc
 * (CalculateActivationRangeQuantized); internal/reference/add.h, sub.h,
 * integer_ops/add.h, integer_ops/mul.h, maximum_minimum.h, comparisons.h.
 * The arithmetic: specs/litert/OPERATORS.md ("Integer requantization",
 * "LiteRT elementwise operators"). Every operand is broadcast by numpy rules; the
 * per-element formula is the one without broadcasting.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "litert_bcast.h"
#include "op.h"
#include "requant.h"

/* Broadcasting (qref_bcast), the fused activations and the requantization build are shared
 * with litert_arith.c: litert_bcast.c. */

typedef qref_bcast bcast;

static qcf_status bcast_init(const qcf_op_call *call, int max_rank, const char *loop, bcast *b,
                             qref_detail *d)
{
	return qref_bcast_init(call, 0, 2, max_rank, loop, b, d);
}

/* Element indices into inputs 0 and 1 of output element i. */
static void bcast_index(const bcast *b, size_t i, size_t *i0, size_t *i1)
{
	size_t idx[QREF_BCAST_MAX_IN];
	qref_bcast_index(b, i, idx);
	*i0 = idx[0];
	*i1 = idx[1];
}

/* ---- parameters ---------------------------------------------------------- */

typedef struct qp {
	float s;
	int32_t zp;
} qp;

static const char *const tensor_names[3] = {"input 1", "input 2", "output"};

/* Per-tensor quantization with a positive finite scale (LiteRT
 * quantization spec: activations are quantized per tensor). */
static qcf_status get_qp(const qcf_op_call *call, const qcf_tensor *t, int which, qp *out,
                         qref_detail *d)
{
	char what[64];
	snprintf(what, sizeof what, "%s %s", call->op, tensor_names[which]);
	qcf_quant q;
	qcf_status s = qref_get_quant(t, what, 1, &q, d);
	if (s != QCF_OK)
		return s;
	if (!(q.scales[0] > 0.0f && isfinite(q.scales[0])))
		return qref_fail(d, QCF_INVALID_PARAM, "%s needs a positive finite scale, got %g",
		                 what, (double)q.scales[0]);
	out->s = q.scales[0];
	out->zp = q.zero_points[0];
	return QCF_OK;
}

static int is_act_dtype(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8 || t == QCF_INT16;
}

/* Inputs 0, 1 and output 0 of one dtype among int8, uint8, int16. */
static qcf_status same_dtypes(const qcf_op_call *call, int with_output, qref_detail *d)
{
	qcf_dtype t = call->inputs[0].dtype;
	if (call->inputs[1].dtype != t || (with_output && call->outputs[0].dtype != t))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: inputs%s must have the same dtype, got %s, %s%s%s", call->op,
		                 with_output ? " and output" : "", qref_dtype_name(t),
		                 qref_dtype_name(call->inputs[1].dtype), with_output ? ", " : "",
		                 with_output ? qref_dtype_name(call->outputs[0].dtype) : "");
	if (!is_act_dtype(t))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the quantized kernel takes int8, uint8 or int16, got %s",
		                 call->op, qref_dtype_name(t));
	return QCF_OK;
}

/* CheckedLog2 (common.h; specs/litert/OPERATORS.md), float math. */
static int checked_log2(float x, int *k)
{
	float l = logf(x) * (1.0f / logf(2.0f));
	float r = roundf(l);
	*k = (int)r;
	return fabsf(l - r) < 1e-3f;
}

/* ---- ADD and SUB ----------------------------------------------------------- */

typedef struct addsub {
	int sub;
	int pot; /* int16 power-of-two path */
	int ls;  /* left shift, general path */
	int32_t m[3];
	int e[3];  /* general: input 1, input 2, output multipliers */
	int sh[2]; /* POT: input shifts (<= 0) */
	qp q[3];
	int act;
	int32_t lo, hi;
	qref_rounding rnd;
	bcast b;
} addsub;

static qcf_status addsub_prepare(const qcf_op_call *call, int sub, int real_only, addsub *p,
                                 qref_detail *d)
{
	memset(p, 0, sizeof *p);
	p->sub = sub;
	qcf_status s =
	        real_only ? qref_check_call_shapes(call, 2, 1, d) : qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	s = same_dtypes(call, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *t[3] = {&call->inputs[0], &call->inputs[1], &call->outputs[0]};
	for (int j = 0; j < 3 && s == QCF_OK; j++)
		s = get_qp(call, t[j], j, &p->q[j], d);
	if (s == QCF_OK)
		s = qref_act_get(call, &p->act, d);
	if (s != QCF_OK)
		return s;
	qcf_dtype dt = t[2]->dtype;
	int64_t qmin, qmax;
	qref_dtype_range(dt, &qmin, &qmax);
	if (sub)
		for (int j = 0; j < 3; j++)
			if (p->q[j].zp < qmin || p->q[j].zp > qmax)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "SUB: %s zero point %" PRId32
				                 " outside the output type's range "
				                 "[%lld, %lld] (sub.cc Prepare)",
				                 tensor_names[j], p->q[j].zp, (long long)qmin,
				                 (long long)qmax);
	int64_t pot_attr = 0;
	if (qref_attr_int(call, "pot_scale_int16", &pot_attr) < 0)
		return qref_fail_attr(d, "pot_scale_int16", QCF_INVALID_PARAM,
		                      "%s: pot_scale_int16 must be 0 or 1", call->op);
	if (dt == QCF_INT16 && !sub)
		for (int j = 0; j < 3; j++)
			if (p->q[j].zp != 0)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "ADD int16: %s zero point must be 0, got %" PRId32
				                 " (add.cc "
				                 "Prepare)",
				                 tensor_names[j], p->q[j].zp);
	if (dt == QCF_INT16 && pot_attr) {
		int lg[3];
		p->pot = 1;
		for (int j = 0; j < 3; j++)
			p->pot = p->pot && checked_log2(p->q[j].s, &lg[j]);
		if (p->pot) {
			for (int j = 0; j < 3; j++)
				if (p->q[j].zp != 0)
					return qref_fail(
					        d, QCF_INVALID_PARAM,
					        "%s int16 power-of-two path: %s zero point "
					        "must be 0, got %" PRId32 "",
					        call->op, tensor_names[j], p->q[j].zp);
			p->sh[0] = lg[0] - lg[2];
			p->sh[1] = lg[1] - lg[2];
			if (!(p->sh[0] == 0 || p->sh[1] == 0) || p->sh[0] > 0 || p->sh[1] > 0)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "%s int16 power-of-two path: one input scale must "
				                 "equal the "
				                 "output scale and the other be no larger (log2 "
				                 "shifts %d and "
				                 "%d)",
				                 call->op, p->sh[0], p->sh[1]);
			if (p->sh[0] < -15 || p->sh[1] < -15)
				return qref_fail(
				        d, QCF_INVALID_PARAM,
				        "%s int16 power-of-two path: an input shift of more "
				        "than 15 leaves LiteRT's int16 RoundingDivideByPOT "
				        "outside its range",
				        call->op);
		}
	}
	s = bcast_init(call, sub ? 6 : 8, sub ? "BroadcastSubCommon" : "BroadcastAdd6DSlow", &p->b,
	               d);
	if (s != QCF_OK)
		return s;
	if (p->pot && !sub && qref_tensor_numel(t[0]) != qref_tensor_numel(t[1]))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "ADD int16 power-of-two path does not broadcast: LiteRT aborts "
		                 "(MatchingElementsSize TFLITE_CHECK)");
	if (real_only)
		return QCF_OK;
	s = qref_act_range(call, p->act, t[2], p->q[2].s, p->q[2].zp, &p->lo, &p->hi, d);
	if (s != QCF_OK)
		return s;
	s = qref_requant_rounding(
	        call, d, "the rescaled inputs and their sum by integer multipliers", &p->rnd);
	if (s != QCF_OK || p->pot)
		return s;

	p->ls = dt == QCF_INT16 ? 15 : 20;
	double tm = 2.0 * (double)(p->q[0].s > p->q[1].s ? p->q[0].s : p->q[1].s);
	double r[3] = {(double)p->q[0].s / tm, (double)p->q[1].s / tm,
	               tm / ((double)(1 << p->ls) * (double)p->q[2].s)};
	if (!(r[2] < 1.0))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: output multiplier 2*max(s1,s2)/(2^%d*s_out) = %g must be < 1, i.e. "
		        "max(s1,s2)/s_out < 2^%d: %s",
		        call->op, p->ls, r[2], p->ls - 1,
		        sub ? "LiteRT's default build hands MultiplyByQuantizedMultiplierSmaller"
		              "ThanOneExp a positive shift (undefined) or aborts at exactly 1"
		            : "QuantizeMultiplierSmallerThanOneExp aborts (TFLITE_CHECK)");
	for (int j = 0; j < 3; j++) {
		qref_quantize_multiplier(r[j], p->rnd, &p->m[j], &p->e[j]);
		if (p->e[j] > 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: multiplier %.17g rounds up to 1 "
			                 "(QuantizeMultiplierSmallerThanOneExp aborts)",
			                 call->op, r[j]);
	}
	return QCF_OK;
}

static int32_t rdbpot16(int32_t x, int e)
{
	return e == 0 ? x : qref_rdbpot(x, e);
}

/* ADD (row->param 0) and SUB (1). */
static qcf_status addsub_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int sub = row->param;
	addsub p;
	qcf_status s = addsub_prepare(call, sub, 0, &p, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *c = &call->inputs[1];
	qcf_tensor *out = &call->outputs[0];
	for (size_t i = 0; i < p.b.n; i++) {
		size_t i0, i1;
		bcast_index(&p.b, i, &i0, &i1);
		int32_t q1 = (int32_t)qref_get(a, i0), q2 = (int32_t)qref_get(c, i1);
		int64_t y;
		if (p.pot) {
			int32_t v1 = rdbpot16(q1, -p.sh[0]), v2 = rdbpot16(q2, -p.sh[1]);
			y = sub ? (int64_t)v1 - v2 : (int64_t)v1 + v2;
			if (!sub) /* gemmlowp SaturatingAdd of int16 */
				y = y < -32768 ? -32768 : y > 32767 ? 32767 : y;
		} else {
			/* (q - zp) * 2^ls fits int32: |q - zp| <= 65535, ls <= 15 for
			 * int16; |q - zp| <= 255, ls = 20 for 8 bits */
			int32_t x1 = (int32_t)(((int64_t)q1 - p.q[0].zp) * ((int64_t)1 << p.ls));
			int32_t x2 = (int32_t)(((int64_t)q2 - p.q[1].zp) * ((int64_t)1 << p.ls));
			int32_t v1 = qref_mbqm_lt1(x1, p.m[0], p.e[0], p.rnd);
			int32_t v2 = qref_mbqm_lt1(x2, p.m[1], p.e[1], p.rnd);
			/* each |v| <= 2^30: the sum or difference fits int32 */
			int32_t raw = (int32_t)(sub ? (int64_t)v1 - v2 : (int64_t)v1 + v2);
			y = (int64_t)qref_mbqm_lt1(raw, p.m[2], p.e[2], p.rnd) + p.q[2].zp;
		}
		y = y < p.lo ? p.lo : y > p.hi ? p.hi : y;
		qref_mark_exact(d, 0, i);
		qref_set(out, i, (double)y);
	}
	return QCF_OK;
}

static qcf_status addsub_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                              qref_detail *d)
{
	(void)k; /* one output */
	const int sub = row->param;
	addsub p;
	qcf_status s = addsub_prepare(call, sub, 1, &p, d);
	if (s != QCF_OK)
		return s;
	for (size_t i = 0; i < p.b.n; i++) {
		size_t i0, i1;
		bcast_index(&p.b, i, &i0, &i1);
		double x1 = (qref_get(&call->inputs[0], i0) - p.q[0].zp) * (double)p.q[0].s;
		double x2 = (qref_get(&call->inputs[1], i1) - p.q[1].zp) * (double)p.q[1].s;
		values[i] = qref_act_real(p.act, sub ? x1 - x2 : x1 + x2);
	}
	return QCF_OK;
}

/* ---- MUL ------------------------------------------------------------------- */

typedef struct mulp {
	qp q[3];
	int act;
	int32_t lo, hi;
	float ratio; /* float(float(s1 * s2) / s_out), as mul.cc computes it */
	int32_t m;
	int e;
	qref_rounding rnd;
	bcast b;
} mulp;

static qcf_status mul_prepare(const qcf_op_call *call, int real_only, mulp *p, qref_detail *d)
{
	memset(p, 0, sizeof *p);
	qcf_status s =
	        real_only ? qref_check_call_shapes(call, 2, 1, d) : qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	if (call->inputs[0].dtype == QCF_INT16 && call->inputs[1].dtype == QCF_INT16 &&
	    (call->outputs[0].dtype == QCF_INT8 || call->outputs[0].dtype == QCF_UINT8))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "MUL int16 x int16 -> %s (LiteRT's fixed-point Q0.15 path) is not "
		                 "implemented by the reference",
		                 qref_dtype_name(call->outputs[0].dtype));
	s = same_dtypes(call, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *t[3] = {&call->inputs[0], &call->inputs[1], &call->outputs[0]};
	for (int j = 0; j < 3 && s == QCF_OK; j++)
		s = get_qp(call, t[j], j, &p->q[j], d);
	if (s == QCF_OK)
		s = qref_act_get(call, &p->act, d);
	if (s != QCF_OK)
		return s;
	if (t[2]->dtype == QCF_INT16)
		for (int j = 0; j < 3; j++)
			if (p->q[j].zp != 0)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "MUL int16: %s zero point must be 0, got %" PRId32
				                 " (mul.cc "
				                 "EvalQuantized)",
				                 tensor_names[j], p->q[j].zp);
	s = bcast_init(call, 8, "BroadcastMul6DSlow", &p->b, d);
	if (s != QCF_OK || real_only)
		return s;
	s = qref_act_range(call, p->act, t[2], p->q[2].s, p->q[2].zp, &p->lo, &p->hi, d);
	if (s != QCF_OK)
		return s;
	s = qref_requant_rounding(call, d,
	                          "(q1 - zp1)(q2 - zp2) * s1 * s2 / s_out by an integer multiplier",
	                          &p->rnd);
	if (s != QCF_OK)
		return s;
	float prod = p->q[0].s * p->q[1].s; /* float math, one rounding each */
	p->ratio = prod / p->q[2].s;
	if (!isfinite(p->ratio))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "MUL: s1 * s2 / s_out = %g is not finite in float",
		                 (double)p->ratio);
	qref_quantize_multiplier((double)p->ratio, p->rnd, &p->m, &p->e);
	return QCF_OK;
}

static qcf_status mul_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	mulp p;
	qcf_status s = mul_prepare(call, 0, &p, d);
	if (s != QCF_OK)
		return s;
	qcf_tensor *out = &call->outputs[0];
	for (size_t i = 0; i < p.b.n; i++) {
		size_t i0, i1;
		bcast_index(&p.b, i, &i0, &i1);
		/* |x| <= 255^2 (8 bits) or 2^30 (int16, zero points 0): fits int32 */
		int32_t x = (int32_t)(((int64_t)qref_get(&call->inputs[0], i0) - p.q[0].zp) *
		                      ((int64_t)qref_get(&call->inputs[1], i1) - p.q[1].zp));
		int ub;
		int64_t y = 0;
		if (p.rnd == QREF_ROUND_SINGLE) {
			y = qref_mbqm_single_wide(x, p.m, p.e);
			ub = y < INT32_MIN || y > INT32_MAX;
		} else {
			/* LiteRT shifts x left by the shift in int32 first */
			ub = p.e > 30 || !qref_mbqm_preshift_fits(x, p.e);
			if (!ub)
				y = qref_mbqm(x, p.m, p.e, p.rnd);
		}
		y += p.q[2].zp;
		double v;
		if (ub) {
			qref_mark_any(d, 0, i, p.lo, p.hi);
			v = round((double)x * (double)p.ratio) + p.q[2].zp;
		} else {
			qref_mark_exact(d, 0, i);
			v = (double)y;
		}
		qref_set(out, i, qref_clamp_d(v, p.lo, p.hi));
	}
	return QCF_OK;
}

static qcf_status mul_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                           qref_detail *d)
{
	(void)row;
	(void)k;
	mulp p;
	qcf_status s = mul_prepare(call, 1, &p, d);
	if (s != QCF_OK)
		return s;
	for (size_t i = 0; i < p.b.n; i++) {
		size_t i0, i1;
		bcast_index(&p.b, i, &i0, &i1);
		double x1 = (qref_get(&call->inputs[0], i0) - p.q[0].zp) * (double)p.q[0].s;
		double x2 = (qref_get(&call->inputs[1], i1) - p.q[1].zp) * (double)p.q[1].s;
		values[i] = qref_act_real(p.act, x1 * x2);
	}
	return QCF_OK;
}

/* ---- MAXIMUM and MINIMUM ---------------------------------------------------- */

static qcf_status maxmin_prepare(const qcf_op_call *call, int real_only, bcast *b, qref_detail *d)
{
	qcf_status s =
	        real_only ? qref_check_call_shapes(call, 2, 1, d) : qref_check_call(call, 2, 1, d);
	if (s == QCF_OK)
		s = same_dtypes(call, 1, d);
	if (s == QCF_OK)
		s = bcast_init(call, 5, "MaximumMinimumBroadcastSlow, N = 5", b, d);
	return s;
}

/* MAXIMUM (row->param 1) and MINIMUM (0): raw comparison of the stored integers
 * (maximum_minimum.cc), no quantization checks, nothing requantized. */
static qcf_status maxmin_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int is_max = row->param;
	bcast b;
	qcf_status s = maxmin_prepare(call, 0, &b, d);
	if (s != QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "nothing: it selects stored values")) != QCF_OK)
		return s;
	for (size_t i = 0; i < b.n; i++) {
		size_t i0, i1;
		bcast_index(&b, i, &i0, &i1);
		double x = qref_get(&call->inputs[0], i0), y = qref_get(&call->inputs[1], i1);
		qref_mark_exact(d, 0, i);
		qref_set(&call->outputs[0], i, is_max ? (x > y ? x : y) : (x < y ? x : y));
	}
	return QCF_OK;
}

static qcf_status maxmin_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                              qref_detail *d)
{
	(void)k; /* one output */
	const int is_max = row->param;
	bcast b;
	qp q[2];
	qcf_status s = maxmin_prepare(call, 1, &b, d);
	for (int j = 0; j < 2 && s == QCF_OK; j++)
		s = get_qp(call, &call->inputs[j], j, &q[j], d);
	if (s != QCF_OK)
		return s;
	for (size_t i = 0; i < b.n; i++) {
		size_t i0, i1;
		bcast_index(&b, i, &i0, &i1);
		double x = (qref_get(&call->inputs[0], i0) - q[0].zp) * (double)q[0].s;
		double y = (qref_get(&call->inputs[1], i1) - q[1].zp) * (double)q[1].s;
		values[i] = is_max ? (x > y ? x : y) : (x < y ? x : y);
	}
	return QCF_OK;
}

/* ---- comparisons --------------------------------------------------------------- */

enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

static int cmp_apply(int op, int64_t a, int64_t b)
{
	switch (op) {
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b;
	case CMP_LT: return a < b;
	case CMP_LE: return a <= b;
	case CMP_GT: return a > b;
	default: return a >= b;
	}
}

/*
 * comparisons.cc ComparisonQuantized: per input (m, e) = QuantizeMultiplier
 * of the scale itself (SmallerThanOneExp below 1, GreaterThanOne from 1 up);
 * v = MBQM_LT1((q - zp) * 2^8, m, e); then v1 op v2. int16 inputs of the
 * ordering ops are compared raw (LessEval etc. use the unscaled path).
 */
static qcf_status cmp_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int op = row->param; /* CMP_EQ .. CMP_GE */
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s == QCF_OK)
		s = same_dtypes(call, 0, d);
	if (s != QCF_OK)
		return s;
	qcf_tensor *out = &call->outputs[0];
	if (out->dtype != QCF_BOOL)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: output must be bool, got %s", call->op,
		                 qref_dtype_name(out->dtype));
	bcast b;
	s = bcast_init(call, 4, "BroadcastComparison4DSlowWithScaling", &b, d);
	if (s != QCF_OK)
		return s;
	int raw = call->inputs[0].dtype == QCF_INT16 && op != CMP_EQ && op != CMP_NE;
	qref_rounding rnd = QREF_ROUND_DOUBLE;
	int32_t m[2] = {0, 0};
	int e[2] = {0, 0};
	qp q[2];
	memset(q, 0, sizeof q);
	if (!raw) {
		for (int j = 0; j < 2; j++) {
			s = get_qp(call, &call->inputs[j], j, &q[j], d);
			if (s != QCF_OK)
				return s;
			if (!(q[j].s < 1.0f))
				return qref_fail(
				        d, QCF_INVALID_PARAM,
				        "%s: %s scale %g must be < 1: at 1 LiteRT aborts "
				        "(QuantizeMultiplierGreaterThanOne TFLITE_CHECK), above 1 "
				        "it "
				        "hands MultiplyByQuantizedMultiplierSmallerThanOneExp a "
				        "positive shift (undefined), and TFLM aborts in Prepare",
				        call->op, tensor_names[j], (double)q[j].s);
		}
		s = qref_requant_rounding(call, d,
		                          "(q - zp) * 2^8 * scale by an integer multiplier", &rnd);
		if (s != QCF_OK)
			return s;
		for (int j = 0; j < 2; j++) {
			qref_quantize_multiplier((double)q[j].s, rnd, &m[j], &e[j]);
			if (e[j] > 0)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "%s: %s scale %.9g rounds to multiplier 1 "
				                 "(QuantizeMultiplierSmallerThanOneExp aborts)",
				                 call->op, tensor_names[j], (double)q[j].s);
		}
	} else {
		if ((s = qref_no_rounding(call, d, "nothing: int16 is compared raw")) != QCF_OK)
			return s;
	}
	for (size_t i = 0; i < b.n; i++) {
		size_t i0, i1;
		bcast_index(&b, i, &i0, &i1);
		int64_t x = (int64_t)qref_get(&call->inputs[0], i0);
		int64_t y = (int64_t)qref_get(&call->inputs[1], i1);
		if (!raw) {
			/* |q - zp| * 2^8 <= 65535 * 256: fits int32 */
			x = qref_mbqm_lt1((int32_t)((x - q[0].zp) * 256), m[0], e[0], rnd);
			y = qref_mbqm_lt1((int32_t)((y - q[1].zp) * 256), m[1], e[1], rnd);
		}
		qref_mark_exact(d, 0, i);
		qref_set(out, i, cmp_apply(op, x, y));
	}
	return QCF_OK;
}

static const qref_attr_schema addsub_attrs[] = {
        A_ENUM("fused_activation_function", ACT4, 0, "NONE"),
        A_BOOL("pot_scale_int16", "0"),
        END,
};

static const qref_attr_schema mul_attrs[] = {
        A_ENUM("fused_activation_function", ACT4, 0, "NONE"),
        END,
};

const qref_op qref_ops_litert_elementwise[] = {
        {.schema = {.semantics = "litert", .op = "ADD", AB_Y, .attrs = addsub_attrs},
         .kernel = addsub_kernel,
         .real = addsub_real,
         .param = 0},
        {.schema = {.semantics = "litert", .op = "SUB", AB_Y, .attrs = addsub_attrs},
         .kernel = addsub_kernel,
         .real = addsub_real,
         .param = 1},
        {.schema = {.semantics = "litert", .op = "MUL", AB_Y, .attrs = mul_attrs},
         .kernel = mul_kernel,
         .real = mul_real},
        {.schema = {.semantics = "litert", .op = "MAXIMUM", AB_Y, .attrs = qref_no_attrs},
         .kernel = maxmin_kernel,
         .real = maxmin_real,
         .param = 1},
        {.schema = {.semantics = "litert", .op = "MINIMUM", AB_Y, .attrs = qref_no_attrs},
         .kernel = maxmin_kernel,
         .real = maxmin_real,
         .param = 0},
        {.schema = {.semantics = "litert", .op = "EQUAL", AB_Y, .attrs = qref_no_attrs},
         .kernel = cmp_kernel,
         .param = CMP_EQ},
        {.schema = {.semantics = "litert", .op = "NOT_EQUAL", AB_Y, .attrs = qref_no_attrs},
         .kernel = cmp_kernel,
         .param = CMP_NE},
        {.schema = {.semantics = "litert", .op = "LESS", AB_Y, .attrs = qref_no_attrs},
         .kernel = cmp_kernel,
         .param = CMP_LT},
        {.schema = {.semantics = "litert", .op = "LESS_EQUAL", AB_Y, .attrs = qref_no_attrs},
         .kernel = cmp_kernel,
         .param = CMP_LE},
        {.schema = {.semantics = "litert", .op = "GREATER", AB_Y, .attrs = qref_no_attrs},
         .kernel = cmp_kernel,
         .param = CMP_GT},
        {.schema = {.semantics = "litert", .op = "GREATER_EQUAL", AB_Y, .attrs = qref_no_attrs},
         .kernel = cmp_kernel,
         .param = CMP_GE},
        {.schema = {.op = NULL}},
};
