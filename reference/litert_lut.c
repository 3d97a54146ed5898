/*
 * LiteRT GELU, ELU, EXP, LOG, RSQRT and SQRT on quantized tensors: the unary ops LiteRT
 * computes through a lookup table built in float from the float function (LUTPopulate,
 * tflite/kernels/internal/common.h), or per element (RSQRT int8 in fixed point, SQRT in
 * float). Sources: tflite/kernels/activations.cc (GeluPrepare, GeluEval, EluPrepare, EluEval),
 * exp.cc (Prepare, Eval), elementwise.cc (GenericPrepare, LogLUTPrepare, LogEval,
 * RsqrtEvalQuantizedInt8, RsqrtEvalQuantizedInt16, SqrtEvalQuantized), internal/reference/
 * gelu.h (GeluTransform, GeluTransformApproximate).
 * Algorithms, ABI and refusals: specs/litert/OPERATORS.md ("LiteRT lookup-table unary ops").
 *
 * Every kernel checks all of its rules (and the data-dependent aborts of LiteRT) before it
 * writes any output.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "attrs.h"
#include "dtype.h"
#include "fixedpoint.h"
#include "kernel.h"
#include "litert_activations.h"
#include "op.h"
#include "requant.h"

/* ---- the transforms, in float as LiteRT's lambdas ------------------------ */

/*
 * f(x, p) in float; *libm = 1 when the value came from a libm function that IEEE does not
 * round exactly (erfcf, tanhf, expm1f, expf, logf): a kernel on another libm may differ there
 * by an ulp. sqrtf and division are exact.
 */
/* <math.h>'s M_ constants are POSIX, not C11 (the bare-metal build has none): their values */
#define LUT_SQRT1_2  0.70710678118654752440 /* M_SQRT1_2 */
#define LUT_2_SQRTPI 1.12837916709551257390 /* M_2_SQRTPI */
#define LUT_PI       3.14159265358979323846 /* M_PI */

typedef float (*lut_fn)(float x, const float *p, int *libm);

/* GeluTransform: 0.5f * x * erfcf(x * (float)-LUT_SQRT1_2). */
static float gelu_f(float x, const float *p, int *libm)
{
	(void)p;
	*libm = 1;
	return 0.5f * x * erfcf(x * (float)-LUT_SQRT1_2);
}

/* GeluTransformApproximate: 0.5f * x * (1 + tanhf(k * (x + 0.044715f * x * x * x))),
 * k = sqrt(2 / pi) rounded to float once (LUT_2_SQRTPI * LUT_SQRT1_2 in double). */
static float gelu_approx_f(float x, const float *p, int *libm)
{
	(void)p;
	const float k = (float)(LUT_2_SQRTPI * LUT_SQRT1_2);
	*libm = 1;
	return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

/* EluPrepare: x < 0 ? expm1f(x) : x. */
static float elu_f(float x, const float *p, int *libm)
{
	(void)p;
	*libm = x < 0.0f;
	return x < 0.0f ? expm1f(x) : x;
}

static float exp_f(float x, const float *p, int *libm)
{
	(void)p;
	*libm = 1;
	return expf(x);
}

/* LogLUTPrepare: x <= 0 gives p[0] = (qmin - zp_out) * s_out (float), else logf(x). */
static float log_f(float x, const float *p, int *libm)
{
	*libm = x > 0.0f;
	return x <= 0.0f ? p[0] : logf(x);
}

/* GenericPrepare's int16 RSQRT table: x <= 0 gives p[0] = 32767 * s_out (float), else
 * 1.0f / sqrtf(x) (both exact IEEE operations). */
static float rsqrt_f(float x, const float *p, int *libm)
{
	*libm = 0;
	return x <= 0.0f ? p[0] : 1.0f / sqrtf(x);
}

/* ---- the tables ---------------------------------------------------------- */

/* x one ulp toward -inf (dir < 0), +inf (dir > 0), or x (dir 0); NaN and inf unchanged. */
static float nudge(float x, int dir)
{
	if (dir == 0 || !isfinite(x))
		return x;
	return nextafterf(x, dir < 0 ? -INFINITY : INFINITY);
}

/*
 * LUTPopulateInt8 for every stored value v of an 8-bit dtype [qmin, qmax]: entry
 * clamp((int32)(roundf(f(s_in * (v - zp_in)) * (1 / s_out)) + zp_out)), all in float, roundf
 * half away from zero. lo[v - qmin], hi[v - qmin] bound the legal outputs: equal unless the
 * entry moves when the libm value moves by one ulp (then both outcomes), or LiteRT's
 * conversion to int32 is undefined (NaN or outside int32: the dtype's range).
 */
static void lut8(lut_fn f, const float *p, float s_in, int32_t zp_in, float s_out, int32_t zp_out,
                 int32_t qmin, int32_t qmax, int32_t lo[256], int32_t hi[256])
{
	const float inv = 1 / s_out;
	for (int32_t v = qmin; v <= qmax; v++) {
		int libm;
		float t = f(s_in * (float)(v - zp_in), p, &libm);
		int32_t a = qmax, b = qmin;
		for (int dir = -libm; dir <= libm; dir++) {
			float q = roundf(nudge(t, dir) * inv) + (float)zp_out;
			int32_t e;
			if (!(q >= -0x1p31f && q < 0x1p31f)) {
				a = qmin;
				b = qmax;
				break;
			}
			e = (int32_t)q;
			e = e < qmin ? qmin : e > qmax ? qmax : e;
			a = e < a ? e : a;
			b = e > b ? e : b;
		}
		lo[v - qmin] = a;
		hi[v - qmin] = b;
	}
}

/* f(x, p), moved by dir ulps when it came from libm. */
static float eval_nudged(lut_fn f, float x, const float *p, int dir)
{
	int libm;
	float v = f(x, p, &libm);
	return libm ? nudge(v, dir) : v;
}

/* std::min<float>(std::max<float>(v, -32768), 32767) then static_cast<int16_t>: NaN stays NaN
 * through both and its conversion is undefined (*bad = 1). */
static int16_t clamp16f(float v, uint8_t *bad)
{
	if (isnan(v)) {
		*bad = 1;
		return 0;
	}
	return (int16_t)(v < -32768.0f ? -32768.0f : v > 32767.0f ? 32767.0f : v);
}

/*
 * LUTPopulateInt16<float>: 513 entries over the input range [s_in * (-32768 - zp_in), s_in *
 * (32767 - zp_in)] in 512 steps, every value in float, the output scaled by 65536 / (s_out *
 * (32767 - zp_out) - s_out * (-32768 - zp_out)) and no output zero point added. Entry i < 512
 * is the sample at the step's start less half the error of the linear interpolation at its
 * midpoint (both rounded); entry 512 is the sample at the input's maximum. Every libm value is
 * moved by dir ulps (0: as computed). bad[i] = 1 where LiteRT converts a NaN.
 */
static void lut16(lut_fn f, const float *p, float s_in, int32_t zp_in, float s_out, int32_t zp_out,
                  int dir, int16_t lut[513], uint8_t bad[513])
{
	const float in_min = s_in * (float)(-32768 - zp_in);
	const float in_max = s_in * (float)(32767 - zp_in);
	const float out_min = s_out * (float)(-32768 - zp_out);
	const float out_max = s_out * (float)(32767 - zp_out);
	const float step = (in_max - in_min) / 512;
	const float half = step / 2;
	const float inv = 65536.0f / (out_max - out_min);
	for (int i = 0; i < 512; i++) {
		float v = eval_nudged(f, in_min + (float)i * step, p, dir);
		float vm = eval_nudged(f, in_min + (float)i * step + half, p, dir);
		float vn = eval_nudged(f, in_min + (float)(i + 1) * step, p, dir);
		float sample = roundf(v * inv);
		float interp = roundf((vn * inv + roundf(v * inv)) / 2);
		float mid = roundf(vm * inv);
		float bias = roundf((interp - mid) / 2);
		bad[i] = 0;
		lut[i] = clamp16f(sample - bias, &bad[i]);
	}
	bad[512] = 0;
	lut[512] = clamp16f(roundf(eval_nudged(f, in_max, p, dir) * inv), &bad[512]);
}

/* ---- shared checks -------------------------------------------------------- */

enum { OP_GELU, OP_ELU, OP_EXP, OP_LOG, OP_RSQRT, OP_SQRT };

/* Each op's name, the dtypes its Eval takes, and whether its Prepare needs int16 zero points 0
 * (exp.cc Prepare, elementwise.cc GenericPrepare; GeluPrepare has no such check). */
static const struct lut_op {
	const char *op;
	int uint8, int8, int16, int16_zp0;
} lut_ops[] = {
        {.op = "GELU", .uint8 = 1, .int8 = 1, .int16 = 1},
        {.op = "ELU", .int8 = 1},
        {.op = "EXP", .int8 = 1, .int16 = 1, .int16_zp0 = 1},
        {.op = "LOG", .int8 = 1, .int16 = 1, .int16_zp0 = 1},
        {.op = "RSQRT", .int8 = 1, .int16 = 1, .int16_zp0 = 1},
        {.op = "SQRT", .int8 = 1, .int16 = 1, .int16_zp0 = 1},
};

/* The op's Prepare (EXP's sets the output type to the input's; the others check it). */
static qcf_status lut_check(const qcf_op_call *call, const qref_op *row, qref_detail *d, int full,
                            qcf_quant *qi, qcf_quant *qo)
{
	const struct lut_op *o = &lut_ops[row->param];
	const qref_litert_unary u = {
	        .op = o->op,
	        .dtypes = (o->uint8 ? QREF_UNARY_UINT8 : 0u) | (o->int8 ? QREF_UNARY_INT8 : 0u) |
	                  (o->int16 ? QREF_UNARY_INT16 : 0u),
	        .int16_zp0 = o->int16_zp0,
	        .prepare = "its Prepare",
	};
	return qref_litert_unary_check(call, &u, full, qi, qo, d);
}

/* GELU's approximate attribute (TfLiteGeluParams), 0 when absent. */
static qcf_status gelu_approximate(const qcf_op_call *call, qref_detail *d, int *approx)
{
	int64_t v = 0;
	if (qref_attr_int(call, "approximate", &v) < 0 || (v != 0 && v != 1))
		return qref_fail(d, QCF_INVALID_PARAM, "GELU approximate must be 0 or 1");
	*approx = (int)v;
	return QCF_OK;
}

/* The data-dependent aborts of Eval: RSQRT needs x >= zp_in (int8: the validate function,
 * int16: the loop before the lookup), SQRT needs s_in * (x - zp_in) >= 0 in float. */
static qcf_status domain_check(const qcf_tensor *in, const qref_op *row, float si, int32_t zi,
                               qref_detail *d)
{
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int32_t x = (int32_t)qref_get(in, i);
		if (row->param == OP_RSQRT && x < zi)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "RSQRT is only defined for x >= zero point (LiteRT's Eval "
			                 "fails): element %zu is %" PRId32 ", zero point %" PRId32,
			                 i, x, zi);
		if (row->param == OP_SQRT && !(si * (float)(x - zi) >= 0.0f))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "SQRT is only defined for non-negative values (LiteRT's Eval "
			        "fails): element %zu is %" PRId32 ", zero point %" PRId32,
			        i, x, zi);
	}
	return QCF_OK;
}

/* The table transform of a LUT op and its parameter. */
static lut_fn lut_transform(const qref_op *row, int approx, qcf_dtype t, float so, int32_t zo,
                            float *p)
{
	if (row->param == OP_GELU)
		return approx ? gelu_approx_f : gelu_f;
	if (row->param == OP_ELU)
		return elu_f;
	if (row->param == OP_EXP)
		return exp_f;
	if (row->param == OP_LOG) {
		/* LogLUTPrepare: (qmin - zp_out) * s_out, an int times a float */
		p[0] = (float)((t == QCF_INT8 ? -128 : -32768) - zo) * so;
		return log_f;
	}
	/* RSQRT int16 */
	p[0] = 32767.0f * so;
	return rsqrt_f;
}

/* ---- the kernels ---------------------------------------------------------- */

/* 8-bit tables: y = LUT[x]. */
static void run_lut8(const qcf_op_call *call, lut_fn f, const float *p, const qcf_quant *qi,
                     const qcf_quant *qo, qref_detail *d)
{
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	int32_t qmin = in->dtype == QCF_UINT8 ? 0 : -128, qmax = qmin + 255;
	int32_t lo[256], hi[256];
	lut8(f, p, qi->scales[0], qi->zero_points[0], qo->scales[0], qo->zero_points[0], qmin, qmax,
	     lo, hi);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int v = (int)qref_get(in, i) - qmin;
		if (lo[v] != hi[v])
			qref_mark_any(d, 0, i, lo[v], hi[v]);
		else
			qref_mark_exact(d, 0, i);
		qref_set(out, i, lo[v]);
	}
}

/* int16 tables: y = LUTLookup(x), the table built as computed and with every libm value one
 * ulp lower and one ulp higher; an element the three disagree on accepts their range, one
 * that reads an entry LiteRT converts from NaN accepts any value. */
static void run_lut16(const qcf_op_call *call, lut_fn f, const float *p, const qcf_quant *qi,
                      const qcf_quant *qo, qref_detail *d)
{
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	int16_t lut[3][513];
	uint8_t bad[3][513];
	for (int k = 0; k < 3; k++)
		lut16(f, p, qi->scales[0], qi->zero_points[0], qo->scales[0], qo->zero_points[0],
		      k - 1, lut[k], bad[k]);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int16_t x = (int16_t)qref_get(in, i);
		int j = 256 + (int)qref_asr64(x, 7);
		int y = qfp_lookup16(x, lut[1]), lo = y, hi = y, any = 0;
		for (int k = 0; k < 3; k++) {
			int yk = qfp_lookup16(x, lut[k]);
			lo = yk < lo ? yk : lo;
			hi = yk > hi ? yk : hi;
			any = any || bad[k][j] || ((x & 127) && bad[k][j + 1]);
		}
		if (any)
			qref_mark_any(d, 0, i, -32768, 32767);
		else if (lo != hi)
			qref_mark_any(d, 0, i, lo, hi);
		else
			qref_mark_exact(d, 0, i);
		qref_set(out, i, y);
	}
}

/* 1 if MultiplyByQuantizedMultiplier(x, m, shift) is defined in LiteRT's build; *y then. */
static int mbqm_defined(int32_t x, int32_t m, int shift, qref_rounding build, int64_t *y)
{
	if (build == QREF_ROUND_DOUBLE) {
		if (shift < -31 || shift > 30 || !qref_mbqm_preshift_fits(x, shift))
			return 0;
		*y = qref_mbqm(x, m, shift, build);
		return 1;
	}
	if (shift < -31 || shift > 30)
		return 0;
	*y = qref_mbqm_single_wide(x, m, shift);
	return *y >= INT32_MIN && *y <= INT32_MAX;
}

/*
 * RsqrtEvalQuantizedInt8: v = x - zp_in; v = 0 gives 127 (the dtype's maximum, no zero point);
 * else (a, e) = GetInvSqrtQuantizedMultiplierExp(v, -1), t = MBQM(1, a, e + 20) (1 / sqrt(v)
 * in Q20) and y = clamp(MBQM(t, m, shift - 20) + zp_out), (m, shift) =
 * QuantizeMultiplier(1. / (sqrtf(s_in) * s_out)), the product in float, the quotient in
 * double (SetRsqrtOutputMultiplier).
 */
static void run_rsqrt8(const qcf_op_call *call, const qcf_quant *qi, const qcf_quant *qo,
                       qref_rounding build, qref_detail *d)
{
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	int32_t zi = qi->zero_points[0], zo = qo->zero_points[0];
	double scale = 1. / (double)(sqrtf(qi->scales[0]) * qo->scales[0]);
	int32_t m = 0;
	int sh = 0, ub_all = !isfinite(scale);
	if (!ub_all)
		qref_quantize_multiplier(scale, build, &m, &sh);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int32_t v = (int32_t)qref_get(in, i) - zi;
		int64_t y = 127, t = 0;
		int ub = 0;
		if (v != 0) {
			int32_t a;
			int e;
			qfp_inv_sqrt(v, &a, &e);
			ub = ub_all || !mbqm_defined(1, a, e + 20, build, &t) ||
			     !mbqm_defined((int32_t)t, m, sh - 20, build, &y);
			y += zo; /* int32 in LiteRT */
			ub = ub || y < INT32_MIN || y > INT32_MAX;
		}
		if (ub) {
			qref_mark_any(d, 0, i, -128, 127);
			y = -128;
		} else {
			qref_mark_exact(d, 0, i);
			y = y < -128 ? -128 : y > 127 ? 127 : y;
		}
		qref_set(out, i, (double)y);
	}
}

/*
 * SqrtEvalQuantized: y = clamp((int)(sqrtf(s_in * (x - zp_in)) / s_out) + zp_out), in float,
 * the quotient truncated toward zero. A quotient outside int, or its sum with zp_out, is
 * undefined in LiteRT: any value.
 */
static void run_sqrt(const qcf_op_call *call, const qcf_quant *qi, const qcf_quant *qo,
                     qref_detail *d)
{
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	float si = qi->scales[0], so = qo->scales[0];
	int32_t zi = qi->zero_points[0], zo = qo->zero_points[0];
	double qmin, qmax;
	qref_range_d(in->dtype, &qmin, &qmax);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		float r = sqrtf(si * (float)((int32_t)qref_get(in, i) - zi)) / so;
		int64_t y = 0;
		int ub = !(r >= -0x1p31f && r < 0x1p31f);
		if (!ub) {
			y = (int64_t)(int32_t)r + zo;
			ub = y < INT32_MIN || y > INT32_MAX;
		}
		if (ub) {
			qref_mark_any(d, 0, i, qmin, qmax);
			qref_set(out, i, qmin);
		} else {
			qref_mark_exact(d, 0, i);
			qref_set(out, i, qref_clamp_d((double)y, qmin, qmax));
		}
	}
}

static qcf_status litert_lut(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	qcf_quant qi, qo;
	qcf_status s = lut_check(call, row, d, 1, &qi, &qo);
	if (s != QCF_OK)
		return s;
	int approx = 0;
	if (row->param == OP_GELU && (s = gelu_approximate(call, d, &approx)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	if ((s = domain_check(in, row, qi.scales[0], qi.zero_points[0], d)) != QCF_OK)
		return s;
	if (row->param == OP_RSQRT && in->dtype == QCF_INT8) {
		qref_rounding build = QREF_ROUND_DOUBLE;
		if ((s = qref_litert_mbqm_build(call, d,
		                                "1 / sqrt(x - zp_in) by the output multiplier",
		                                &build)) != QCF_OK)
			return s;
		run_rsqrt8(call, &qi, &qo, build, d);
		return QCF_OK;
	}
	if ((s = qref_no_rounding(call, d, "nothing: a float table or float math")) != QCF_OK)
		return s;
	if (row->param == OP_SQRT) {
		run_sqrt(call, &qi, &qo, d);
		return QCF_OK;
	}
	float p[1] = {0};
	lut_fn f = lut_transform(row, approx, in->dtype, qo.scales[0], qo.zero_points[0], p);
	if (in->dtype == QCF_INT16)
		run_lut16(call, f, p, &qi, &qo, d);
	else
		run_lut8(call, f, p, &qi, &qo, d);
	return QCF_OK;
}

/* The ideal real values: the functions in double on the dequantized input. */
static qcf_status litert_lut_real(const qcf_op_call *call, const qref_op *row, int k,
                                  double *values, qref_detail *d)
{
	(void)k; /* one output */
	qcf_quant qi;
	qcf_status s = lut_check(call, row, d, 0, &qi, NULL);
	if (s != QCF_OK)
		return s;
	int approx = 0;
	if (row->param == OP_GELU && (s = gelu_approximate(call, d, &approx)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	if ((s = domain_check(in, row, qi.scales[0], qi.zero_points[0], d)) != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		double x = (qref_get(in, i) - qi.zero_points[0]) * (double)qi.scales[0], y;
		switch (row->param) {
		case OP_GELU:
			y = approx ? 0.5 * x *
			                     (1 +
			                      tanh(sqrt(2 / LUT_PI) * (x + 0.044715 * x * x * x)))
			           : 0.5 * x * erfc(-x * LUT_SQRT1_2);
			break;
		case OP_ELU: y = x < 0 ? expm1(x) : x; break;
		case OP_EXP: y = exp(x); break;
		case OP_LOG: y = x > 0 ? log(x) : -HUGE_VAL; break;
		case OP_RSQRT: y = x > 0 ? 1 / sqrt(x) : HUGE_VAL; break;
		default: y = sqrt(x); break;
		}
		values[i] = y;
	}
	return QCF_OK;
}

static const qref_attr_schema gelu_attrs[] = {
        A_BOOL("approximate", "0"),
        END,
};

const qref_op qref_ops_litert_lut[] = {
        {.schema = {.semantics = "litert", .op = "GELU", XY, .attrs = gelu_attrs},
         .kernel = litert_lut,
         .real = litert_lut_real,
         .param = OP_GELU},
        {.schema = {.semantics = "litert", .op = "ELU", XY, .attrs = qref_no_attrs},
         .kernel = litert_lut,
         .real = litert_lut_real,
         .param = OP_ELU},
        {.schema = {.semantics = "litert", .op = "EXP", XY, .attrs = qref_no_attrs},
         .kernel = litert_lut,
         .real = litert_lut_real,
         .param = OP_EXP},
        {.schema = {.semantics = "litert", .op = "LOG", XY, .attrs = qref_no_attrs},
         .kernel = litert_lut,
         .real = litert_lut_real,
         .param = OP_LOG},
        {.schema = {.semantics = "litert", .op = "RSQRT", XY, .attrs = qref_no_attrs},
         .kernel = litert_lut,
         .real = litert_lut_real,
         .param = OP_RSQRT},
        {.schema = {.semantics = "litert", .op = "SQRT", XY, .attrs = qref_no_attrs},
         .kernel = litert_lut,
         .real = litert_lut_real,
         .param = OP_SQRT},
        {.schema = {.op = NULL}},
};
