/*
 * LiteRT HARD_SWISH (uint8, int8), LEAKY_RELU (uint8, int8, int16) and PRELU (uint8, int8): the
 * piecewise-linear activations (tflite/kernels/activations.cc HardSwishPrepare,
 * LeakyReluPrepare, PreluPrepare and their Evals; internal/reference/hard_swish.h,
 * leaky_relu.h, prelu.h, broadcast_loop.h; gemmlowp fixedpoint.h for the int16 helpers).
 * Algorithms, ABI and refusals: specs/litert/OPERATORS.md ("LiteRT HARD_SWISH, LEAKY_RELU and
 * PRELU").
 *
 * Every kernel checks all of its rules before it writes any output.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "litert_activations.h"
#include "op.h"
#include "requant.h"

/* ---- shared checks ------------------------------------------------------ */

/* Output type = input type (GenericPrepare, LeakyReluPrepare: TF_LITE_ENSURE_TYPES_EQ; PRELU
 * sets the output type to the input's), float32 not here, then the Eval's dtypes: uint8, int8,
 * and int16 when int16 is set. */
static qcf_status pw_types(const qcf_op_call *call, const char *op, int int16, qref_detail *d)
{
	qcf_dtype it = call->inputs[0].dtype, ot = call->outputs[0].dtype;
	if (ot != it)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s output type must equal input type (%s), got %s", op,
		                 qref_dtype_name(it), qref_dtype_name(ot));
	if (it == QCF_FLOAT32)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: float32 is LiteRT's but not implemented by the reference",
		                 op);
	if (!(it == QCF_UINT8 || it == QCF_INT8 || (int16 && it == QCF_INT16)))
		return qref_fail(d, QCF_INVALID_PARAM, "%s input must be %s, got %s", op,
		                 int16 ? "uint8, int8 or int16" : "uint8 or int8",
		                 qref_dtype_name(it));
	return QCF_OK;
}

/*
 * MultiplyByQuantizedMultiplier(x, m, shift) in the build, widened: 0 where LiteRT's arithmetic
 * is undefined (double rounding: the pre-shift x * 2^shift leaves int32 or shift >= 31; single
 * rounding: the result leaves int32).
 */
static int pw_mbqm(int64_t x, int32_t m, int sh, qref_rounding build, int64_t *y)
{
	if (x < INT32_MIN || x > INT32_MAX)
		return 0;
	if (build == QREF_ROUND_DOUBLE) {
		if (sh >= 31 || !qref_mbqm_preshift_fits((int32_t)x, sh))
			return 0;
		*y = qref_mbqm((int32_t)x, m, sh, build);
		return 1;
	}
	*y = qref_mbqm_single_wide((int32_t)x, m, sh);
	return *y >= INT32_MIN && *y <= INT32_MAX;
}

/* Writes y clamped to the output dtype, or marks element i "any value of the dtype". */
static void pw_put(qcf_tensor *out, size_t i, int ok, int64_t y, qref_detail *d)
{
	int64_t qmin, qmax;
	qref_dtype_range(out->dtype, &qmin, &qmax);
	if (!ok) {
		qref_mark_any(d, 0, i, (double)qmin, (double)qmax);
		y = qmin; /* any in-range value will do */
	} else {
		qref_mark_exact(d, 0, i);
		y = y < qmin ? qmin : y > qmax ? qmax : y;
	}
	qref_set(out, i, (double)y);
}

/* ---- HARD_SWISH --------------------------------------------------------- */

/* v modulo 2^16 as int16 (the narrowing conversions of hard_swish.h's int16 arithmetic). */
static int16_t wrap16(int64_t v)
{
	uint16_t u = (uint16_t)(uint64_t)v;
	return u <= 0x7FFF ? (int16_t)u : (int16_t)((int32_t)u - 0x10000);
}

/* gemmlowp SaturatingRoundingDoublingHighMul on int16: (a b + nudge) / 2^15 truncated, nudge
 * 2^14 or 1 - 2^14 by the sign of a b: ties toward +infinity. */
static int16_t srdhm16(int16_t a, int16_t b)
{
	if (a == INT16_MIN && b == INT16_MIN)
		return INT16_MAX;
	int32_t ab = (int32_t)a * b;
	int32_t nudge = ab >= 0 ? (1 << 14) : 1 - (1 << 14);
	return (int16_t)((ab + nudge) / (1 << 15));
}

/* hard_swish.h SaturatingDoublingHighMul: a b / 2^15 truncated toward zero. */
static int16_t sdhm16(int16_t a, int16_t b)
{
	if (a == INT16_MIN && b == INT16_MIN)
		return INT16_MAX;
	return (int16_t)((int32_t)a * b / (1 << 15));
}

/*
 * gemmlowp RoundingDivideByPOT instantiated on int16, as written: mask = int16(2^e - 1),
 * threshold = (mask >> 1) + (x < 0), result (x >> e) + (x & mask > threshold). For e >= 16 the
 * mask narrows to -1 and the result is 1 for x >= 0, -1 for x < 0 (LiteRT's value).
 */
static int16_t rdbpot16(int16_t x, int e)
{
	int16_t mask = wrap16((INT64_C(1) << e) - 1);
	int32_t rem = (int32_t)((uint32_t)(int32_t)x & (uint32_t)(int32_t)mask);
	rem = wrap16(rem);
	int32_t threshold = wrap16(qref_asr64(mask, 1) + (x < 0));
	return wrap16(qref_asr64(x, e) + (rem > threshold));
}

/* SaturatingLeftShift: x 2^n clamped to int16 (n <= 30). */
static int16_t satshl16(int16_t x, int n)
{
	int64_t v = (int64_t)x * (INT64_C(1) << n);
	return (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v);
}

/* DownScaleInt32ToInt16Multiplier: (m + 2^15) >> 16, 32767 from 2^31 - 1 - 2^15 up. */
static int16_t downscale16(int32_t m)
{
	if (m >= INT32_MAX - (1 << 15))
		return INT16_MAX;
	return (int16_t)((m + (1 << 15)) >> 16);
}

typedef struct hs_params {
	int16_t om, rm; /* output and reluish multipliers, int16 */
	int oe, re;     /* their exponents */
} hs_params;

/*
 * HardSwishPrepare in float32: hires = (1 / 128) s_in, output multiplier hires / s_out, reluish
 * multiplier hires / (3 / 32768), each through QuantizeMultiplier (widened to double) and
 * DownScaleInt32ToInt16Multiplier. Refuses an output exponent above 0 (TF_LITE_ENSURE).
 */
static qcf_status hs_prepare(float si, float so, hs_params *p, qref_detail *d)
{
	float hires = (1.0f / 128.0f) * si;
	float reluish_scale = 3.0f / 32768.0f;
	float om = hires / so, rm = hires / reluish_scale;
	int32_t m;
	if (!isfinite(om))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "HARD_SWISH needs (input_scale / 128) / output_scale < 1 "
		                 "(HardSwishPrepare: output_multiplier_exponent <= 0), got inf");
	qref_quantize_multiplier((double)om, QREF_ROUND_DOUBLE, &m, &p->oe);
	if (p->oe > 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "HARD_SWISH needs (input_scale / 128) / output_scale < 1 "
		                 "(HardSwishPrepare: output_multiplier_exponent <= 0), got %.9g "
		                 "(exponent %d)",
		                 (double)om, p->oe);
	p->om = downscale16(m);
	if (!isfinite(
	            rm)) { /* s_in above about 4e36: an exponent far beyond 31, every output any */
		p->re = 1024;
		p->rm = INT16_MAX;
		return QCF_OK;
	}
	qref_quantize_multiplier((double)rm, QREF_ROUND_DOUBLE, &m, &p->re);
	p->rm = downscale16(m);
	return QCF_OK;
}

/* reference_ops::HardSwish on one stored value v: the int16 pipeline of hard_swish.h. With
 * exact = 1 the final RoundingDivideByPOT is the correctly rounded one (for exponents >= 16). */
static int32_t hs_eval(int32_t v, int32_t zi, int32_t zo, const hs_params *p, int exact)
{
	int16_t x = wrap16((int64_t)v - zi);
	int16_t hires = wrap16((int64_t)x * 128);
	int16_t pre_out = srdhm16(hires, p->om);
	int16_t r = hires;
	if (p->re > 0)
		r = satshl16(r, p->re - 1);
	r = srdhm16(r, p->rm);
	if (p->re > 0)
		r = satshl16(r, 1);
	if (p->re < 0)
		r = rdbpot16(r, -p->re);
	r = (int16_t)(((int32_t)r + (1 << 15)) >> 1); /* [-1, 1] to [0, 1] */
	int16_t pre = sdhm16(r, pre_out);
	int16_t y;
	if (exact && -p->oe >= 16)
		y = (int16_t)qref_rdbpot(pre, -p->oe);
	else
		y = rdbpot16(pre, -p->oe);
	return wrap16((int64_t)y + zo);
}

static qcf_status hs_check(const qcf_op_call *call, qref_detail *d, int full, qcf_quant *qi,
                           qcf_quant *qo)
{
	static const qref_litert_unary u = {
	        .op = "HARD_SWISH",
	        .dtypes = QREF_UNARY_UINT8 | QREF_UNARY_INT8,
	        .prepare = "HardSwishPrepare",
	};
	return qref_litert_unary_check(call, &u, full, qi, qo, d);
}

/*
 * y = clamp(hs_eval(x)). Undefined in LiteRT (any value): a reluish exponent >= 32 (the left
 * shift 1 << (exponent - 1) overflows int; input scales above about 2.5e7), and 31, where the
 * two QuantizeMultiplier builds differ. Output exponents <= -16 (s_out > 512 s_in): gemmlowp's
 * int16 RoundingDivideByPOT gives +-1 there, a correctly rounding shift 0 or so: both accepted.
 */
static qcf_status litert_hard_swish(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_quant qi, qo;
	qcf_status s = hs_check(call, d, 1, &qi, &qo);
	if (s != QCF_OK)
		return s;
	hs_params p;
	if ((s = hs_prepare(qi.scales[0], qo.scales[0], &p, d)) != QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "int16 fixed-point steps of its own")) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	int32_t zi = qi.zero_points[0], zo = qo.zero_points[0];
	int64_t qmin, qmax;
	qref_dtype_range(out->dtype, &qmin, &qmax);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int32_t v = (int32_t)qref_get(in, i);
		if (p.re >= 31) {
			pw_put(out, i, 0, 0, d);
			continue;
		}
		int64_t a = hs_eval(v, zi, zo, &p, 0), b = hs_eval(v, zi, zo, &p, 1);
		a = a < qmin ? qmin : a > qmax ? qmax : a;
		b = b < qmin ? qmin : b > qmax ? qmax : b;
		if (a != b) {
			qref_mark_any(d, 0, i, (double)(a < b ? a : b), (double)(a < b ? b : a));
			qref_set(out, i, (double)a);
		} else {
			pw_put(out, i, 1, a, d);
		}
	}
	return QCF_OK;
}

static qcf_status litert_hard_swish_real(const qcf_op_call *call, const qref_op *row, int k,
                                         double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	qcf_quant qi;
	qcf_status s = hs_check(call, d, 0, &qi, NULL);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		double x = (qref_get(in, i) - qi.zero_points[0]) * (double)qi.scales[0];
		double r = x + 3.0 < 0.0 ? 0.0 : x + 3.0 > 6.0 ? 6.0 : x + 3.0;
		values[i] = x * r / 6.0;
	}
	return QCF_OK;
}

/* ---- LEAKY_RELU --------------------------------------------------------- */

static qcf_status lr_check(const qcf_op_call *call, qref_detail *d, int full, float *alpha,
                           qcf_quant *qi, qcf_quant *qo)
{
	qcf_status s =
	        full ? qref_check_call(call, 1, 1, d) : qref_check_call_shapes(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	if (!qref_same_shape(&call->inputs[0], &call->outputs[0]))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "LEAKY_RELU output shape must equal input shape");
	if ((s = pw_types(call, "LEAKY_RELU", 1, d)) != QCF_OK)
		return s;
	double a = 0.0;
	if (qref_attr_number(call, "alpha", &a) < 0)
		return qref_fail_attr(d, "alpha", QCF_INVALID_PARAM,
		                      "LEAKY_RELU attribute alpha must be a number");
	*alpha = (float)a; /* TfLiteLeakyReluParams.alpha is a float */
	if (!isfinite(*alpha))
		return qref_fail_attr(d, "alpha", QCF_INVALID_PARAM,
		                      "LEAKY_RELU alpha must be finite as a float32 (LiteRT would "
		                      "build a multiplier from inf or NaN)");
	int is16 = call->inputs[0].dtype == QCF_INT16;
	if ((s = qref_litert_act_quant(&call->inputs[0], "input", "LEAKY_RELU", qi, d)) != QCF_OK)
		return s;
	if (is16 && qi->zero_points[0] != 0)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "LEAKY_RELU int16 needs zero points 0 (LeakyReluPrepare), got input "
		        "zero point %" PRId32,
		        qi->zero_points[0]);
	if (!full)
		return QCF_OK;
	if ((s = qref_litert_act_quant(&call->outputs[0], "output", "LEAKY_RELU", qo, d)) != QCF_OK)
		return s;
	if (is16 && qo->zero_points[0] != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "LEAKY_RELU int16 needs zero points 0 (LeakyReluPrepare), got "
		                 "output zero point %" PRId32,
		                 qo->zero_points[0]);
	float am = qi->scales[0] * *alpha / qo->scales[0], im = qi->scales[0] / qo->scales[0];
	if (!isfinite(am) || !isfinite(im))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "LEAKY_RELU input_scale * alpha / output_scale and input_scale / "
		        "output_scale must be finite in float32 (LiteRT builds multipliers "
		        "from them)");
	return QCF_OK;
}

/*
 * avx2_utils::MultiplyByQuantizedMultiplier (the int16 optimized kernel's lanes): the pre-shift,
 * the product's bits 31..62 (floor by 2^31), then (t + 2^(r - 1)) >> r, INT32_MAX where t +
 * 2^(r - 1) would leave int32. 0 where the pre-shift leaves int32.
 */
static int lr_mbqm_avx2(int64_t x, int32_t m, int sh, int64_t *y)
{
	int left = sh > 0 ? sh : 0, right = sh < 0 ? -sh : 0;
	if (left >= 31 || !qref_mbqm_preshift_fits((int32_t)x, left))
		return 0;
	int64_t t = qref_asr64(x * ((int64_t)1 << left) * (int64_t)m, 31);
	uint32_t u = (uint32_t)(uint64_t)t; /* the low 32 bits, as the lanes keep them */
	t = u <= (uint32_t)INT32_MAX ? (int64_t)u : (int64_t)u - ((int64_t)1 << 32);
	if (right > 0) {
		int64_t nudge = (int64_t)1 << (right - 1);
		t = t > INT32_MAX - nudge ? INT32_MAX : qref_asr64(t + nudge, right);
	}
	*y = t;
	return 1;
}

/*
 * QuantizeLeakyRelu: v = x - zp_in; v >= 0: zp_out + MBQM(v, identity); v < 0: zp_out +
 * MBQM(v, alpha multiplier). LiteRT computes it three ways, all accepted where they differ: the
 * current reference kernel takes a negative multiplier as -MBQM(v, -m) (leaky_relu.h); the
 * kernel before that change MBQM(v, m); the int16 optimized kernel MBQM(v, m) in its scalar tail
 * and avx2_utils' rounding in its AVX2 lanes.
 */
static qcf_status litert_leaky_relu(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_quant qi, qo;
	float alpha;
	qcf_status s = lr_check(call, d, 1, &alpha, &qi, &qo);
	if (s != QCF_OK)
		return s;
	qref_rounding build = QREF_ROUND_DOUBLE;
	if ((s = qref_litert_mbqm_build(call, d, "x - zp_in by its multipliers", &build)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	float si = qi.scales[0], so = qo.scales[0];
	int32_t zi = qi.zero_points[0], zo = qo.zero_points[0];
	int32_t mi, ma;
	int shi, sha;
	/* LeakyReluPrepare: both quotients in float32, widened to double */
	qref_quantize_multiplier((double)(si * alpha / so), build, &ma, &sha);
	qref_quantize_multiplier((double)(si / so), build, &mi, &shi);
	int64_t qmin, qmax;
	qref_dtype_range(out->dtype, &qmin, &qmax);
	int avx2 = in->dtype == QCF_INT16;
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int64_t v = (int64_t)qref_get(in, i) - zi, y[3] = {0, 0, 0};
		int ok[3] = {1, 1, 1}, nc = 1;
		int32_t m = v >= 0 ? mi : ma;
		int sh = v >= 0 ? shi : sha;
		if (m >= 0) {
			ok[0] = pw_mbqm(v, m, sh, build, &y[0]);
		} else {
			/* -INT32_MIN is undefined in the current kernel */
			ok[0] = m != INT32_MIN && pw_mbqm(v, -m, sh, build, &y[0]);
			y[0] = -y[0];
			ok[nc] = pw_mbqm(v, m, sh, build, &y[nc]);
			nc++;
		}
		if (avx2) {
			ok[nc] = lr_mbqm_avx2(v, m, sh, &y[nc]);
			nc++;
		}
		int all = 1;
		int64_t lo = qmax, hi = qmin;
		for (int c = 0; c < nc; c++) {
			y[c] += zo;
			all = all && ok[c] && y[c] >= INT32_MIN && y[c] <= INT32_MAX;
			int64_t t = y[c] < qmin ? qmin : y[c] > qmax ? qmax : y[c];
			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
		}
		if (all && lo != hi) {
			qref_mark_any(d, 0, i, (double)lo, (double)hi);
			qref_set(out, i, (double)(y[0] < qmin ? qmin : y[0] > qmax ? qmax : y[0]));
			continue;
		}
		pw_put(out, i, all, y[0], d);
	}
	return QCF_OK;
}

static qcf_status litert_leaky_relu_real(const qcf_op_call *call, const qref_op *row, int k,
                                         double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	qcf_quant qi;
	float alpha;
	qcf_status s = lr_check(call, d, 0, &alpha, &qi, NULL);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		double x = (qref_get(in, i) - qi.zero_points[0]) * (double)qi.scales[0];
		values[i] = x >= 0.0 ? x : x * (double)alpha;
	}
	return QCF_OK;
}

/* ---- PRELU -------------------------------------------------------------- */

/* The alpha element of each output element: numpy broadcasting of alpha against the input,
 * whose shape the output keeps (PreluPrepare: CalculateShapeForBroadcast, then HaveSameShapes
 * of input and output). */
typedef struct pr_bcast {
	int rank;
	int64_t shape[QCF_MAX_RANK];
	size_t stride[QCF_MAX_RANK]; /* alpha's, aligned to the input; 0 = broadcast */
} pr_bcast;

static qcf_status pr_bcast_init(const qcf_op_call *call, pr_bcast *b, qref_detail *d)
{
	const qcf_tensor *x = &call->inputs[0], *a = &call->inputs[1], *y = &call->outputs[0];
	memset(b, 0, sizeof *b);
	b->rank = x->rank > a->rank ? x->rank : a->rank;
	for (int k = 0; k < b->rank; k++) {
		int kx = k - (b->rank - x->rank), ka = k - (b->rank - a->rank);
		int64_t dx = kx >= 0 ? x->shape[kx] : 1, da = ka >= 0 ? a->shape[ka] : 1;
		if (dx != da && dx != 1 && da != 1)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "PRELU input and alpha shapes do not broadcast (numpy rules: "
			        "trailing dimensions equal or one of them 1; dimension %d: "
			        "%" PRId64 " and %" PRId64 ")",
			        k, dx, da);
		b->shape[k] = dx == 1 ? da : dx;
	}
	int same = b->rank == x->rank;
	for (int k = 0; same && k < b->rank; k++)
		same = b->shape[k] == x->shape[k];
	if (!same)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "PRELU: broadcasting alpha must keep the input shape (PreluPrepare: "
		        "HaveSameShapes(input, output))");
	if (!qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "PRELU output shape must equal input shape");
	size_t st = 1;
	for (int ka = a->rank - 1; ka >= 0; ka--) {
		int k = ka + (b->rank - a->rank);
		b->stride[k] = a->shape[ka] == 1 ? 0 : st;
		st *= (size_t)a->shape[ka];
	}
	return QCF_OK;
}

/* Index into alpha of output element i. */
static size_t pr_index(const pr_bcast *b, size_t i)
{
	size_t j = 0;
	for (int k = b->rank - 1; k >= 0; k--) {
		size_t dim = (size_t)b->shape[k];
		j += (i % dim) * b->stride[k];
		i /= dim;
	}
	return j;
}

static qcf_status pr_check(const qcf_op_call *call, qref_detail *d, int full, pr_bcast *b,
                           qcf_quant *qi, qcf_quant *qa, qcf_quant *qo)
{
	qcf_status s =
	        full ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	if (call->inputs[1].dtype != call->inputs[0].dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "PRELU alpha type must equal input type (%s), got %s",
		                 qref_dtype_name(call->inputs[0].dtype),
		                 qref_dtype_name(call->inputs[1].dtype));
	if ((s = pw_types(call, "PRELU", 0, d)) != QCF_OK)
		return s;
	if ((s = pr_bcast_init(call, b, d)) != QCF_OK)
		return s;
	if ((s = qref_litert_act_quant(&call->inputs[0], "input", "PRELU", qi, d)) != QCF_OK)
		return s;
	if ((s = qref_litert_act_quant(&call->inputs[1], "alpha", "PRELU", qa, d)) != QCF_OK)
		return s;
	if (!full)
		return QCF_OK;
	if ((s = qref_litert_act_quant(&call->outputs[0], "output", "PRELU", qo, d)) != QCF_OK)
		return s;
	float m1 = qi->scales[0] / qo->scales[0],
	      m2 = qi->scales[0] * qa->scales[0] / qo->scales[0];
	if (!isfinite(m1) || !isfinite(m2))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "PRELU input_scale / output_scale and input_scale * alpha_scale / "
		        "output_scale must be finite in float32 (LiteRT builds multipliers "
		        "from them)");
	return QCF_OK;
}

/*
 * BroadcastPrelu4DSlow / Prelu: v = x - zp_in; v >= 0: MBQM(v, m1); else MBQM(v (a - zp_a),
 * m2); + zp_out, clamped. m1 = s_in / s_out, m2 = s_in s_alpha / s_out, in float32.
 */
static qcf_status litert_prelu(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	pr_bcast b;
	qcf_quant qi, qa, qo;
	qcf_status s = pr_check(call, d, 1, &b, &qi, &qa, &qo);
	if (s != QCF_OK)
		return s;
	qref_rounding build = QREF_ROUND_DOUBLE;
	if ((s = qref_litert_mbqm_build(call, d, "its two products by their multipliers",
	                                &build)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *al = &call->inputs[1];
	qcf_tensor *out = &call->outputs[0];
	float si = qi.scales[0], sa = qa.scales[0], so = qo.scales[0];
	int32_t zi = qi.zero_points[0], za = qa.zero_points[0], zo = qo.zero_points[0];
	int32_t m1, m2;
	int sh1, sh2;
	/* PreluPrepare: both quotients in float32, widened to double */
	qref_quantize_multiplier((double)(si / so), build, &m1, &sh1);
	qref_quantize_multiplier((double)(si * sa / so), build, &m2, &sh2);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int64_t v = (int64_t)qref_get(in, i) - zi, y = 0;
		int ok;
		if (v >= 0) {
			ok = pw_mbqm(v, m1, sh1, build, &y);
		} else {
			int64_t av = (int64_t)qref_get(al, pr_index(&b, i)) - za;
			ok = pw_mbqm(v * av, m2, sh2, build, &y); /* v av: int32 in LiteRT */
		}
		y += zo;
		pw_put(out, i, ok && y >= INT32_MIN && y <= INT32_MAX, y, d);
	}
	return QCF_OK;
}

static qcf_status litert_prelu_real(const qcf_op_call *call, const qref_op *row, int k,
                                    double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	pr_bcast b;
	qcf_quant qi, qa;
	qcf_status s = pr_check(call, d, 0, &b, &qi, &qa, NULL);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *al = &call->inputs[1];
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		double x = (qref_get(in, i) - qi.zero_points[0]) * (double)qi.scales[0];
		double a =
		        (qref_get(al, pr_index(&b, i)) - qa.zero_points[0]) * (double)qa.scales[0];
		values[i] = x >= 0.0 ? x : x * a;
	}
	return QCF_OK;
}

static const qref_attr_schema leaky_relu_attrs[] = {
        A_NUM("alpha", "0"),
        END,
};

const qref_op qref_ops_litert_piecewise[] = {
        {.schema = {.semantics = "litert", .op = "HARD_SWISH", XY, .attrs = qref_no_attrs},
         .kernel = litert_hard_swish,
         .real = litert_hard_swish_real},
        {.schema = {.semantics = "litert", .op = "LEAKY_RELU", XY, .attrs = leaky_relu_attrs},
         .kernel = litert_leaky_relu,
         .real = litert_leaky_relu_real},
        {.schema = {.semantics = "litert",
                    .op = "PRELU",
                    IO(LIST("x", "alpha"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = litert_prelu,
         .real = litert_prelu_real},
        {.schema = {.op = NULL}},
};
