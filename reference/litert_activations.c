/*
 * LiteRT SOFTMAX, LOGISTIC, TANH, L2_NORMALIZATION, LOG_SOFTMAX on int8 and
 * int16, RELU, RELU6 and RELU_N1_TO_1 on uint8, int8 and int16
 * (tflite/kernels/activations.cc, l2norm.cc; internal/reference/
 * softmax.h, log_softmax.h, reference_ops.h (ReluX), integer_ops/{logistic,
 * tanh,l2normalization,log_softmax}.h; TFLM softmax_common.cc,
 * logistic_common.cc, tanh.cc).
 * Algorithms, ABI and refusals: specs/litert/OPERATORS.md ("LiteRT
 * activations family"; verified bit for bit against TFLM); the fixed-point
 * building blocks are in fixedpoint.c.
 *
 * Every kernel checks all of its rules (and the data-dependent aborts of
 * LiteRT) before it writes any output.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "fixedpoint.h"
#include "kernel.h"
#include "litert_activations.h"
#include "op.h"
#include "requant.h"

/* ---- shared checks ------------------------------------------------------ */

/* The rounding checks of litert_activations.h (litert_lut.c and litert_piecewise.c too). */

qcf_status qref_litert_mbqm_build(const qcf_op_call *call, qref_detail *d, const char *what,
                                  qref_rounding *build)
{
	qref_rounding r = qref_detail_rounding(d);
	if (r != QREF_ROUND_DEFAULT && r != QREF_ROUND_DOUBLE && r != QREF_ROUND_SINGLE)
		return qref_rounding_na(call, d, r, what);
	*build = qref_requant_build(r);
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);
	return QCF_OK;
}

qcf_status qref_litert_act_quant(const qcf_tensor *t, const char *what, const char *op,
                                 qcf_quant *q, qref_detail *d)
{
	qcf_status s = qref_get_quant(t, what, 1, q, d);
	if (s != QCF_OK)
		return s;
	if (!(q->scales[0] > 0.0f && isfinite(q->scales[0])))
		return qref_fail_tensor(
		        d, t, QREF_PART_QUANT, QCF_INVALID_PARAM,
		        "%s %s scale must be positive and finite (LiteRT divides by it "
		        "or builds a multiplier from it)",
		        op, what);
	return QCF_OK;
}

/* "uint8, int8 or int16" and the like, from a QREF_UNARY_* mask. */
static const char *unary_dtypes_text(unsigned m)
{
	static const char *const text[8] = {
	        "nothing", "uint8",          "int8",          "uint8 or int8",
	        "int16",   "uint8 or int16", "int8 or int16", "uint8, int8 or int16"};
	return text[m & 7u];
}

qcf_status qref_litert_unary_check(const qcf_op_call *call, const qref_litert_unary *u, int full,
                                   qcf_quant *qi, qcf_quant *qo, qref_detail *d)
{
	qcf_status s =
	        full ? qref_check_call(call, 1, 1, d) : qref_check_call_shapes(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	const qcf_tensor *out = &call->outputs[0];
	if (!qref_same_shape(in, out))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s output shape must equal input shape", u->op);
	if (out->dtype != in->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s output type must equal input type (%s), got %s", u->op,
		                 qref_dtype_name(in->dtype), qref_dtype_name(out->dtype));
	if (in->dtype == QCF_FLOAT32)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: float32 is LiteRT's but not implemented by the reference",
		                 u->op);
	unsigned bit = in->dtype == QCF_UINT8   ? QREF_UNARY_UINT8
	               : in->dtype == QCF_INT8  ? QREF_UNARY_INT8
	               : in->dtype == QCF_INT16 ? QREF_UNARY_INT16
	                                        : 0u;
	if (!(u->dtypes & bit))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s input must be %s (its quantized Eval), got %s", u->op,
		                 unary_dtypes_text(u->dtypes), qref_dtype_name(in->dtype));
	if ((s = qref_litert_act_quant(in, "input", u->op, qi, d)) != QCF_OK)
		return s;
	int zp0 = in->dtype == QCF_INT16 && u->int16_zp0;
	if (zp0 && qi->zero_points[0] != 0)
		return qref_fail_tensor(d, in, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s int16 needs zero points 0 (%s), got input zero point "
		                        "%" PRId32,
		                        u->op, u->prepare, qi->zero_points[0]);
	if (!full)
		return QCF_OK;
	if ((s = qref_litert_act_quant(out, "output", u->op, qo, d)) != QCF_OK)
		return s;
	if (zp0 && qo->zero_points[0] != 0)
		return qref_fail_tensor(d, out, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s int16 needs zero points 0 (%s), got output zero point "
		                        "%" PRId32,
		                        u->op, u->prepare, qo->zero_points[0]);
	return QCF_OK;
}

/*
 * Counts, shapes (output = input), dtypes (int8 or int16 input; uint8 is
 * LiteRT's but not implemented here: QCF_NOT_SUPPORTED), rank >= min_rank,
 * per-tensor input quantization with a positive finite scale. full = 0 for
 * the real-valued hooks (no output buffer yet).
 */
static qcf_status check_input(const qcf_op_call *call, qref_detail *d, const char *op, int full,
                              int min_rank, int allow_int16, qcf_quant *qi)
{
	qcf_status s =
	        full ? qref_check_call(call, 1, 1, d) : qref_check_call_shapes(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	const qcf_tensor *out = &call->outputs[0];
	if (!qref_same_shape(in, out))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s output shape must equal input shape", op);
	if (in->rank < min_rank)
		return qref_fail(d, QCF_INVALID_PARAM, "%s needs an input of rank >= %d, got %d",
		                 op, min_rank, (int)in->rank);
	if (in->dtype == QCF_UINT8 || out->dtype == QCF_UINT8)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: uint8 (legacy) is not implemented by the reference", op);
	if (in->dtype != QCF_INT8 && !(allow_int16 && in->dtype == QCF_INT16))
		return qref_fail(d, QCF_INVALID_PARAM, "%s input must be %s, got %s", op,
		                 allow_int16 ? "int8 or int16" : "int8",
		                 qref_dtype_name(in->dtype));
	s = qref_get_quant(in, "input", 1, qi, d);
	if (s != QCF_OK)
		return s;
	if (!(qi->scales[0] > 0.0f && isfinite(qi->scales[0])))
		return qref_fail(d, QCF_INVALID_PARAM, "%s input scale must be positive and finite",
		                 op);
	return QCF_OK;
}

static qcf_status get_out_quant(const qcf_op_call *call, qref_detail *d, qcf_quant *qo)
{
	return qref_get_quant(&call->outputs[0], "output", 1, qo, d);
}

/* Rows of the last axis: *rows x *depth. */
/* Largest stored value of row [base, base + depth) of an int8 tensor (-128 if empty). */
static int32_t row_max_int8(const qcf_tensor *in, size_t base, size_t depth)
{
	int32_t mx = -128;
	for (size_t c = 0; c < depth; c++) {
		int32_t x = (int32_t)qref_get(in, base + c);
		mx = x > mx ? x : mx;
	}
	return mx;
}

static void last_axis(const qcf_tensor *t, size_t *rows, size_t *depth)
{
	size_t n = qref_tensor_numel(t);
	*depth = t->rank > 0 ? (size_t)t->shape[t->rank - 1] : 1;
	*rows = *depth ? n / *depth : 0;
}

static int32_t clampi(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* Mark every output element exact (the default for kernels without UB). */
static void write_all(qcf_tensor *out, const int32_t *v, size_t n, qref_detail *d)
{
	for (size_t i = 0; i < n; i++) {
		qref_mark_exact(d, 0, i);
		qref_set(out, i, (double)v[i]);
	}
}

/* ---- SOFTMAX ------------------------------------------------------------ */

static qcf_status get_beta(const qcf_op_call *call, qref_detail *d, float *beta)
{
	double b = 1.0;
	int r = qref_attr_number(call, "beta", &b);
	if (r < 0)
		return qref_fail_attr(d, "beta", QCF_INVALID_PARAM,
		                      "SOFTMAX attribute beta must be a number");
	if (!(isfinite(b) && (float)b > 0.0f && isfinite((float)b)))
		return qref_fail_attr(
		        d, "beta", QCF_INVALID_PARAM,
		        "SOFTMAX beta must be positive and finite (LiteRT does not check it: "
		        "its int8 path aborts for beta <= 0, its int16 LUT covers exp of "
		        "non-positive arguments only)");
	*beta = (float)b; /* TfLiteSoftmaxParams.beta is a float */
	return QCF_OK;
}

static qcf_status softmax_types(const qcf_op_call *call, qref_detail *d)
{
	qcf_dtype it = call->inputs[0].dtype, ot = call->outputs[0].dtype;
	if (it == QCF_INT8 && (ot == QCF_INT8 || ot == QCF_INT16))
		return QCF_OK;
	if (it == QCF_INT16 && ot == QCF_INT16)
		return QCF_OK;
	return qref_fail(d, QCF_INVALID_PARAM,
	                 "SOFTMAX types must be int8 -> int8, int8 -> int16 or int16 -> int16, got "
	                 "%s -> %s",
	                 qref_dtype_name(it), qref_dtype_name(ot));
}

/* Radius(5, ls): floor((2^5 - 1) * 2^26 / 2^ls) (CalculateInputRadius). */
static int32_t input_radius5(int ls)
{
	return (int32_t)floor(31.0 * 0x1p26 / ldexp(1.0, ls));
}

/* (m, ls) of the int8 softmax and log-softmax integer paths. */
static qcf_status softmax_scaling(double beta, double s_in, qref_rounding build, const char *op,
                                  qref_detail *d, int32_t *m, int *ls)
{
	double cap = build == QREF_ROUND_SINGLE ? 1073741823.0 : 2147483647.0;
	double real = beta * s_in * 0x1p26;
	if (real > cap)
		real = cap;
	if (!(real > 1.0))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s int8: LiteRT aborts unless beta * input_scale * 2^26 > 1 "
		                 "(QuantizeMultiplierGreaterThanOne), got %.9g",
		                 op, real);
	qref_quantize_multiplier(real, build, m, ls);
	return QCF_OK;
}

static qcf_status softmax_int8(const qcf_op_call *call, qref_detail *d, float beta,
                               const qcf_quant *qi, qref_rounding build, int32_t *res)
{
	const qcf_tensor *in = &call->inputs[0];
	int out16 = call->outputs[0].dtype == QCF_INT16;
	int32_t m;
	int ls;
	qcf_status s =
	        softmax_scaling((double)beta, (double)qi->scales[0], build, "SOFTMAX", d, &m, &ls);
	if (s != QCF_OK)
		return s;
	int32_t dmin = -input_radius5(ls);
	int32_t omin = out16 ? -32768 : -128, omax = out16 ? 32767 : 127;
	size_t rows, depth;
	last_axis(in, &rows, &depth);
	int32_t *e = malloc((depth ? depth : 1) * sizeof *e);
	if (!e)
		return qref_fail(d, QCF_ERROR, "SOFTMAX: out of memory");
	for (size_t r = 0; r < rows; r++) {
		size_t base = r * depth;
		int32_t mx = row_max_int8(in, base, depth);
		int64_t sum = 0;
		for (size_t c = 0; c < depth; c++) {
			int32_t dd = (int32_t)qref_get(in, base + c) - mx;
			if (dd >= dmin) {
				e[c] = qfp_expneg(qref_mbqm_gt1(dd, m, ls, build), 5);
				sum += qref_rdbpot(e[c], 12);
			}
		}
		if (sum > INT32_MAX) {
			free(e);
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "SOFTMAX: the int32 sum of exponentials overflows in LiteRT "
			        "(row of %zu elements)",
			        depth);
		}
		int h = qfp_clz32((int32_t)sum);
		int E = 12 - h + 31 - (out16 ? 16 : 8);
		if (E < 0 || E > 31) {
			free(e);
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "SOFTMAX int8 -> %s: LiteRT aborts when the sum of "
			        "exponentials reaches 2^28 (RoundingDivideByPOT exponent %d "
			        "outside [0, 31]; e.g. 512 equal maxima in a row)",
			        out16 ? "int16" : "int8", E);
		}
		int32_t sc = qfp_recip1p((int32_t)(((uint32_t)sum << h) - 0x80000000u));
		for (size_t c = 0; c < depth; c++) {
			int32_t dd = (int32_t)qref_get(in, base + c) - mx;
			res[base + c] =
			        dd >= dmin ? clampi((int64_t)qref_rdbpot(qref_srdhm(sc, e[c]), E) +
			                                    omin,
			                            omin, omax)
			                   : omin;
		}
	}
	free(e);
	return QCF_OK;
}

static double exp_d(double x)
{
	return exp(x);
}

static double recip1p_d(double x)
{
	return 1.0 / (1.0 + x);
}

static qcf_status softmax_int16(const qcf_op_call *call, qref_detail *d, float beta,
                                const qcf_quant *qi, qref_rounding build, int32_t *res,
                                uint8_t *row_any)
{
	const qcf_tensor *in = &call->inputs[0];
	int16_t exp_lut[513], rec_lut[513];
	qfp_lut16(exp_d, 10.0 / 65535.0, 32767, 2.0 / 65535.0, 0, exp_lut);
	qfp_lut16(recip1p_d, 1.0 / 65535.0, -32768, 2.0 / 65535.0, 0, rec_lut);
	int32_t m;
	int sh;
	qref_quantize_multiplier((double)qi->scales[0] * (double)beta / (10.0 / 65535.0), build, &m,
	                         &sh);
	size_t rows, depth;
	last_axis(in, &rows, &depth);
	for (size_t r = 0; r < rows; r++) {
		size_t base = r * depth;
		int32_t mx = -32768;
		for (size_t c = 0; c < depth; c++) {
			int32_t x = (int32_t)qref_get(in, base + c);
			mx = x > mx ? x : mx;
		}
		int64_t sum = 0;
		row_any[r] = 0;
		for (size_t c = 0; c < depth; c++) {
			int32_t dd = (int32_t)qref_get(in, base + c) - mx;
			int64_t y;
			/* outside LiteRT's contract: the double-rounding pre-shift
			 * wraps, or the single-rounding result leaves int32 */
			if (sh > 30 && dd != 0) {
				row_any[r] = 1;
				y = 0;
			} else if (build == QREF_ROUND_SINGLE) {
				y = sh > 30 ? 0 : qref_mbqm_single_wide(dd, m, sh);
				if (y < INT32_MIN || y > INT32_MAX)
					row_any[r] = 1;
			} else {
				if (!qref_mbqm_preshift_fits(dd, sh))
					row_any[r] = 1;
				y = sh > 30 ? 0 : qref_mbqm(dd, m, sh, build);
			}
			int32_t idx = clampi(y + 32767, -32768, 32767);
			res[base + c] = qfp_lookup16((int16_t)idx, exp_lut);
			sum += res[base + c];
		}
		if (sum > INT32_MAX)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "SOFTMAX int16: the int32 sum of exponentials overflows in "
			        "LiteRT (row of %zu elements)",
			        depth);
		if (depth == 0)
			continue;
		int h = qfp_clz32((int32_t)sum);
		int64_t t = (((int64_t)sum << (h - 1)) + (1 << 13)) >> 14;
		int16_t rcp = qfp_lookup16((int16_t)clampi(t - 98304, -32768, 32767), rec_lut);
		int k = 31 - h;
		for (size_t c = 0; c < depth; c++) {
			int64_t v = qref_asr64(
			        (int64_t)res[base + c] * rcp + (INT64_C(1) << (k - 1)), k);
			res[base + c] = clampi(v, 0, 32767);
		}
	}
	return QCF_OK;
}

static qcf_status softmax_check(const qcf_op_call *call, qref_detail *d, int full, float *beta,
                                qcf_quant *qi)
{
	qcf_status s = check_input(call, d, "SOFTMAX", full, 1, 1, qi);
	if (s == QCF_OK)
		s = softmax_types(call, d);
	if (s == QCF_OK)
		s = get_beta(call, d, beta);
	return s;
}

static qcf_status litert_softmax(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	float beta;
	qcf_quant qi, qo;
	qcf_status s = softmax_check(call, d, 1, &beta, &qi);
	if (s != QCF_OK)
		return s;
	if ((s = get_out_quant(call, d, &qo)) != QCF_OK)
		return s;
	qcf_dtype it = call->inputs[0].dtype, ot = call->outputs[0].dtype;
	float so = qo.scales[0];
	int32_t zo = qo.zero_points[0];
	if (it == QCF_INT8 && ot == QCF_INT8) {
		if (zo != -128 || !(fabsf(so - 1.0f / 256) <= 0.001f / 256))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "SOFTMAX int8 output must have scale 1/256 and zero point "
			        "-128 (LiteRT accepts |scale - 1/256| <= 0.001/256; TFLM needs "
			        "1/256 exactly), got scale %.9g zero point %" PRId32 "",
			        (double)so, zo);
	} else if (it == QCF_INT8) {
		if (zo != -32768 || !(fabsf(so - 1.0f / 65536) <= 0.001f / 65536))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "SOFTMAX int8 -> int16 output must have scale 1/65536 and "
			        "zero point -32768 (TFLM's rule; LiteRT's integer path "
			        "assumes them without checking), got scale %.9g zero point %" PRId32
			        "",
			        (double)so, zo);
	} else {
		if (qi.zero_points[0] != 0 || zo != 0 ||
		    !(fabsf(so - 1.0f / 32768) <= 0.001f / 32768))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "SOFTMAX int16 needs input and output zero points 0 and output "
			        "scale 1/32768 (within 0.1%%), got zero points %" PRId32
			        ", %" PRId32 " and "
			        "scale %.9g",
			        qi.zero_points[0], zo, (double)so);
	}
	qref_rounding build = QREF_ROUND_DOUBLE;
	if ((s = qref_litert_mbqm_build(call, d,
	                                "the scaled input differences by an integer multiplier",
	                                &build)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t n = qref_tensor_numel(in), rows, depth;
	last_axis(in, &rows, &depth);
	int32_t *res = malloc((n ? n : 1) * sizeof *res);
	uint8_t *row_any = calloc(rows ? rows : 1, 1);
	if (!res || !row_any) {
		free(res);
		free(row_any);
		return qref_fail(d, QCF_ERROR, "SOFTMAX: out of memory");
	}
	s = it == QCF_INT8 ? softmax_int8(call, d, beta, &qi, build, res)
	                   : softmax_int16(call, d, beta, &qi, build, res, row_any);
	if (s == QCF_OK) {
		write_all(&call->outputs[0], res, n, d);
		for (size_t r = 0; r < rows; r++)
			if (row_any[r])
				for (size_t c = 0; c < depth; c++)
					qref_mark_any(d, 0, r * depth + c, 0, 32767);
	}
	free(res);
	free(row_any);
	return s;
}

/* exp(beta * (x - max)) / sum over the row, in double. */
static void softmax_real_rows(const qcf_tensor *in, const qcf_quant *qi, double beta, int logsm,
                              double *values)
{
	size_t rows, depth;
	last_axis(in, &rows, &depth);
	double s = (double)qi->scales[0], z = (double)qi->zero_points[0];
	for (size_t r = 0; r < rows; r++) {
		size_t base = r * depth;
		double mx = -INFINITY;
		for (size_t c = 0; c < depth; c++) {
			double v = (qref_get(in, base + c) - z) * s;
			mx = v > mx ? v : mx;
		}
		double sum = 0;
		for (size_t c = 0; c < depth; c++)
			sum += exp(beta * ((qref_get(in, base + c) - z) * s - mx));
		for (size_t c = 0; c < depth; c++) {
			double t = beta * ((qref_get(in, base + c) - z) * s - mx);
			values[base + c] = logsm ? t - log(sum) : exp(t) / sum;
		}
	}
}

static qcf_status litert_softmax_real(const qcf_op_call *call, const qref_op *row, int k,
                                      double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	float beta;
	qcf_quant qi;
	qcf_status s = softmax_check(call, d, 0, &beta, &qi);
	if (s != QCF_OK)
		return s;
	softmax_real_rows(&call->inputs[0], &qi, (double)beta, 0, values);
	return QCF_OK;
}

/* ---- LOGISTIC and TANH ---------------------------------------------------- */

static float logistic_f(float x)
{
	return 1.0f / (1.0f + expf(-x));
}

static float tanh_f(float x)
{
	return tanhf(x);
}

static qcf_status act_check(const qcf_op_call *call, qref_detail *d, const char *op, int full,
                            qcf_quant *qi)
{
	qcf_status s = check_input(call, d, op, full, 0, 1, qi);
	if (s != QCF_OK)
		return s;
	if (call->outputs[0].dtype != call->inputs[0].dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s output type must equal input type (%s), got %s", op,
		                 qref_dtype_name(call->inputs[0].dtype),
		                 qref_dtype_name(call->outputs[0].dtype));
	return QCF_OK;
}

/* int16 input scaling (both runtimes): *mult, *ls as Eval uses them. */
static void int16_input_scaling(float s_in, int is_tanh, int32_t *mult, int *ls, int *wide)
{
	int l;
	int pot = qfp_checked_log2(s_in, &l);
	int lsh = 12 + l;
	*wide = 0;
	if (pot && (lsh == 0 || (is_tanh && lsh == 1))) {
		*mult = 3 * (1 << lsh); /* Prepare stores 0; Eval uses 3 * 2^ls, ls = 0 */
		*ls = 0;
		return;
	}
	double M = (double)s_in * 4096.0 * 3.0;
	int k = 0;
	while (M <= 16383.5 && k <= 30) {
		k++;
		M *= 2.0;
	}
	if (M >= 2147483648.0) { /* (int32_t)M is undefined */
		*wide = 1;
		M = 0;
	}
	*mult = (int32_t)M;
	*ls = k;
}

/* LOGISTIC (row->param 0) and TANH (1). */
static qcf_status litert_logistic_tanh(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int is_tanh = row->param;
	const char *op = is_tanh ? "TANH" : "LOGISTIC";
	qcf_quant qi, qo;
	qcf_status s = act_check(call, d, op, 1, &qi);
	if (s != QCF_OK)
		return s;
	if ((s = get_out_quant(call, d, &qo)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	float si = qi.scales[0], so = qo.scales[0];
	int32_t zi = qi.zero_points[0], zo = qo.zero_points[0];
	size_t n = qref_tensor_numel(in);
	if (in->dtype == QCF_INT8) {
		/* LiteRT's Prepare (activations.cc, the reference and default kernels) checks
		 * the LOGISTIC output scale only and TANH's output not at all: both tables are
		 * built from the declared output parameters (TFLM differs:
		 * specs/litert/OPERATORS.md) */
		if (!is_tanh && so != 1.0f / 256)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "LOGISTIC int8 output must have scale 1/256 (LiteRT compares "
			        "exactly), got scale %.9g",
			        (double)so);
		if ((s = qref_no_rounding(call, d, "nothing: int8 uses a float lookup table")) !=
		    QCF_OK)
			return s;
		int8_t table[256];
		uint8_t undefined[256];
		qfp_lut8(is_tanh ? tanh_f : logistic_f, si, zi, so, zo, table, undefined);
		for (size_t i = 0; i < n; i++) {
			int v = (int)qref_get(in, i) + 128;
			if (undefined[v])
				qref_mark_any(d, 0, i, -128, 127);
			else
				qref_mark_exact(d, 0, i);
			qref_set(out, i, table[v]);
		}
		return QCF_OK;
	}
	/* int16 */
	int l;
	int pot = qfp_checked_log2(so, &l);
	if (zi != 0 || zo != 0 || !pot || l != -15 || (!is_tanh && so != 1.0f / 32768))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s int16 needs zero points 0 and output scale 2^-15 (a power of "
		                 "two by CheckedLog2%s), got zero points %" PRId32 ", %" PRId32
		                 " and scale %.9g",
		                 op, is_tanh ? "" : "; LiteRT LOGISTIC compares exactly", zi, zo,
		                 (double)so);
	if ((s = qref_no_rounding(call, d, "nothing: int16 interpolates a fixed table")) != QCF_OK)
		return s;
	int32_t mult;
	int ls, wide;
	int16_input_scaling(si, is_tanh, &mult, &ls, &wide);
	for (size_t i = 0; i < n; i++) {
		int64_t x = (int64_t)qref_get(in, i);
		int64_t p = x * mult + (ls > 0 ? INT64_C(1) << (ls - 1) : 0);
		if (wide || p < INT32_MIN || p > INT32_MAX) {
			/* LiteRT's int32 product overflows: undefined */
			qref_mark_any(d, 0, i, -32768, 32767);
			qref_set(out, i, x < 0 ? (is_tanh ? -32767 : 0) : 32767);
			continue;
		}
		int32_t v = (int32_t)qref_asr64(p, ls);
		qref_mark_exact(d, 0, i);
		qref_set(out, i, is_tanh ? qfp_tanh16(v) : qfp_logistic16(v));
	}
	return QCF_OK;
}

static qcf_status logistic_tanh_real(const qcf_op_call *call, const qref_op *row, int k,
                                     double *values, qref_detail *d)
{
	(void)k; /* one output */
	const int is_tanh = row->param;
	qcf_quant qi;
	qcf_status s = act_check(call, d, is_tanh ? "TANH" : "LOGISTIC", 0, &qi);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		double x = (qref_get(in, i) - qi.zero_points[0]) * (double)qi.scales[0];
		values[i] = is_tanh ? tanh(x) : 1.0 / (1.0 + exp(-x));
	}
	return QCF_OK;
}

/* ---- L2_NORMALIZATION ----------------------------------------------------- */

static qcf_status l2norm_check(const qcf_op_call *call, qref_detail *d, int full, qcf_quant *qi)
{
	qcf_status s = check_input(call, d, "L2_NORMALIZATION", full, 1, 0, qi);
	if (s != QCF_OK)
		return s;
	if (call->outputs[0].dtype != QCF_INT8)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "L2_NORMALIZATION output type must equal input type (int8), got %s",
		        qref_dtype_name(call->outputs[0].dtype));
	const qcf_attr *a = qref_attr_find(call, "fused_activation_function");
	if (a && (a->type != QCF_ATTR_STRING || !a->v.s || strcmp(a->v.s, "NONE") != 0))
		return qref_fail_attr(
		        d, "fused_activation_function", QCF_INVALID_PARAM,
		        "L2_NORMALIZATION supports fused_activation_function NONE only");
	return QCF_OK;
}

static qcf_status litert_l2norm(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_quant qi, qo;
	qcf_status s = l2norm_check(call, d, 1, &qi);
	if (s != QCF_OK)
		return s;
	if ((s = get_out_quant(call, d, &qo)) != QCF_OK)
		return s;
	if (qo.scales[0] != 1.0f / 128 || qo.zero_points[0] != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "L2_NORMALIZATION int8 output must have scale 1/128 (exactly) and "
		                 "zero point 0, got scale %.9g zero point %" PRId32 "",
		                 (double)qo.scales[0], qo.zero_points[0]);
	qref_rounding build = QREF_ROUND_DOUBLE;
	if ((s = qref_litert_mbqm_build(call, d, "x - zp by the inverse square root multiplier",
	                                &build)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	int32_t zi = qi.zero_points[0];
	size_t n = qref_tensor_numel(in), rows, depth;
	last_axis(in, &rows, &depth);
	for (size_t r = 0; r < rows; r++) {
		int64_t A = 0;
		for (size_t c = 0; c < depth; c++) {
			int64_t dd = (int64_t)qref_get(in, r * depth + c) - zi;
			A += dd * dd;
		}
		if (A > INT32_MAX)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "L2_NORMALIZATION: the int32 sum of squares overflows in LiteRT "
			        "(row of %zu elements)",
			        depth);
	}
	int32_t *res = malloc((n ? n : 1) * sizeof *res);
	if (!res)
		return qref_fail(d, QCF_ERROR, "L2_NORMALIZATION: out of memory");
	for (size_t r = 0; r < rows; r++) {
		size_t base = r * depth;
		int32_t A = 0;
		for (size_t c = 0; c < depth; c++) {
			int32_t dd = (int32_t)qref_get(in, base + c) - zi;
			A += dd * dd;
		}
		int32_t m;
		int sh;
		qfp_inv_sqrt(A, &m, &sh);
		for (size_t c = 0; c < depth; c++) {
			int32_t dd = (int32_t)qref_get(in, base + c) - zi;
			res[base + c] = clampi(qref_mbqm(dd, m, sh + 7, build), -128, 127);
		}
	}
	write_all(&call->outputs[0], res, n, d);
	free(res);
	return QCF_OK;
}

static qcf_status litert_l2norm_real(const qcf_op_call *call, const qref_op *row, int k,
                                     double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	qcf_quant qi;
	qcf_status s = l2norm_check(call, d, 0, &qi);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t rows, depth;
	last_axis(in, &rows, &depth);
	double sc = (double)qi.scales[0], z = (double)qi.zero_points[0];
	for (size_t r = 0; r < rows; r++) {
		double ss = 0;
		for (size_t c = 0; c < depth; c++) {
			double v = (qref_get(in, r * depth + c) - z) * sc;
			ss += v * v;
		}
		double nrm = sqrt(ss);
		for (size_t c = 0; c < depth; c++) {
			double v = (qref_get(in, r * depth + c) - z) * sc;
			values[r * depth + c] = nrm > 0 ? v / nrm : 0.0;
		}
	}
	return QCF_OK;
}

/* ---- LOG_SOFTMAX ---------------------------------------------------------- */

static qcf_status logsm_check(const qcf_op_call *call, qref_detail *d, int full, qcf_quant *qi)
{
	qcf_status s = check_input(call, d, "LOG_SOFTMAX", full, 1, 0, qi);
	if (s != QCF_OK)
		return s;
	if (call->outputs[0].dtype != QCF_INT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "LOG_SOFTMAX output type must equal input type (int8), got %s",
		                 qref_dtype_name(call->outputs[0].dtype));
	return QCF_OK;
}

static qcf_status litert_log_softmax(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_quant qi, qo;
	qcf_status s = logsm_check(call, d, 1, &qi);
	if (s != QCF_OK)
		return s;
	if ((s = get_out_quant(call, d, &qo)) != QCF_OK)
		return s;
	if (qo.scales[0] != 16.0f / 256 || qo.zero_points[0] != 127)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "LOG_SOFTMAX int8 output must have scale 16/256 (exactly) and zero "
		        "point 127, got scale %.9g zero point %" PRId32 "",
		        (double)qo.scales[0], qo.zero_points[0]);
	qref_rounding build = QREF_ROUND_DOUBLE;
	if ((s = qref_litert_mbqm_build(call, d,
	                                "the scaled input differences by an integer multiplier",
	                                &build)) != QCF_OK)
		return s;
	int32_t m, rm;
	int ls, rs;
	if ((s = softmax_scaling(1.0, (double)qi.scales[0], build, "LOG_SOFTMAX", d, &m, &ls)) !=
	    QCF_OK)
		return s;
	double rev = ldexp(1.0, 31 - ls) / (double)m;
	if (!(rev > 0.0 && rev < 1.0))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "LOG_SOFTMAX int8: LiteRT aborts when the reverse scaling divisor "
		                 "2^(31 - shift) / multiplier = %.9g is not in (0, 1) "
		                 "(QuantizeMultiplierSmallerThanOneExp; input scale too small)",
		                 rev);
	qref_quantize_multiplier(rev, build, &rm, &rs);
	int32_t dmin = -input_radius5(ls);
	const qcf_tensor *in = &call->inputs[0];
	size_t n = qref_tensor_numel(in), rows, depth;
	last_axis(in, &rows, &depth);
	int32_t *res = malloc((n ? n : 1) * sizeof *res);
	if (!res)
		return qref_fail(d, QCF_ERROR, "LOG_SOFTMAX: out of memory");
	for (size_t r = 0; r < rows; r++) {
		size_t base = r * depth;
		int32_t mx = row_max_int8(in, base, depth);
		int64_t sum = 0;
		for (size_t c = 0; c < depth; c++) {
			int32_t dd = (int32_t)qref_get(in, base + c) - mx;
			if (dd >= dmin)
				sum += qref_rdbpot(qfp_expneg(qref_mbqm(dd, m, ls, build), 5), 12);
		}
		if (sum > INT32_MAX) {
			free(res);
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "LOG_SOFTMAX: the int32 sum of exponentials overflows in LiteRT "
			        "(row of %zu elements)",
			        depth);
		}
		int32_t L = qfp_logq((int32_t)sum);
		int32_t adj = qref_mbqm(qfp_add(L, INT32_MIN), rm, rs, build);
		if (adj < dmin - 1)
			adj = dmin - 1;
		for (size_t c = 0; c < depth; c++) {
			int32_t dd = (int32_t)qref_get(in, base + c) - mx;
			res[base + c] =
			        dd > adj ? clampi((int64_t)qref_rdbpot(
			                                  qfp_sub(qref_mbqm(dd, m, ls, build), L),
			                                  22) +
			                                  127,
			                          -128, 127)
			                 : -128;
		}
	}
	write_all(&call->outputs[0], res, n, d);
	free(res);
	return QCF_OK;
}

static qcf_status litert_log_softmax_real(const qcf_op_call *call, const qref_op *row, int k,
                                          double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	qcf_quant qi;
	qcf_status s = logsm_check(call, d, 0, &qi);
	if (s != QCF_OK)
		return s;
	softmax_real_rows(&call->inputs[0], &qi, 1.0, 1, values);
	return QCF_OK;
}

/* ---- RELU, RELU6 and RELU_N1_TO_1 ---------------------------------------- */

/* The clamp of each op in real units (ReluEval, Relu6Eval, Relu1Eval) and whether LiteRT takes
 * int16 for it, by row->param. */
static const struct {
	const char *op;
	float lo, hi; /* hi = INFINITY: RELU's upper bound is the dtype's maximum */
	int int16;
} relu_ops[] = {
        {"RELU", 0.0f, INFINITY, 1},
        {"RELU6", 0.0f, 6.0f, 1},
        {"RELU_N1_TO_1", -1.0f, 1.0f, 0},
};

/* RELU's Prepare: ReluPrepare; float32 is LiteRT's but not this reference's. */
static qcf_status relu_check(const qcf_op_call *call, const qref_op *row, qref_detail *d, int full,
                             qcf_quant *qi, qcf_quant *qo)
{
	const qref_litert_unary u = {
	        .op = relu_ops[row->param].op,
	        .dtypes = QREF_UNARY_UINT8 | QREF_UNARY_INT8 |
	                  (relu_ops[row->param].int16 ? QREF_UNARY_INT16 : 0u),
	        .int16_zp0 = 1,
	        .prepare = "ReluPrepare",
	};
	return qref_litert_unary_check(call, &u, full, qi, qo, d);
}

/* zp + (int32_t)roundf(f / s), QuantizedReluX's bound: the quotient in float, rounded half away
 * from zero. 0 when LiteRT's conversion to int32 or its addition is undefined. */
static int relu_bound(float f, float s, int32_t zp, int64_t *q)
{
	float t = roundf(f / s);
	if (!(t >= -0x1p31f && t < 0x1p31f))
		return 0;
	*q = (int64_t)zp + (int64_t)t;
	return *q >= INT32_MIN && *q <= INT32_MAX;
}

/* RELU (row->param 0), RELU6 (1), RELU_N1_TO_1 (2): y = clamp(zp_out + MBQM(x - zp_in, m, shift),
 * lo, hi), (m, shift) = QuantizeMultiplier(s_in / s_out divided in float). */
static qcf_status litert_relu(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	qcf_quant qi, qo;
	qcf_status s = relu_check(call, row, d, 1, &qi, &qo);
	if (s != QCF_OK)
		return s;
	qref_rounding build = QREF_ROUND_DOUBLE;
	if ((s = qref_litert_mbqm_build(call, d, "x - zp_in by the multiplier s_in / s_out",
	                                &build)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	float si = qi.scales[0], so = qo.scales[0];
	int32_t zi = qi.zero_points[0], zo = qo.zero_points[0];
	int64_t qmin, qmax, blo = 0, bhi = 0;
	qref_dtype_range(out->dtype, &qmin, &qmax);
	/* the bounds of ReluParams; either undefined in LiteRT makes every output undefined */
	int bounds_ok = relu_bound(relu_ops[row->param].lo, so, zo, &blo);
	if (isfinite(relu_ops[row->param].hi))
		bounds_ok = bounds_ok && relu_bound(relu_ops[row->param].hi, so, zo, &bhi);
	else
		bhi = qmax;
	int64_t lo = blo > qmin ? blo : qmin, hi = bhi < qmax ? bhi : qmax;
	int32_t m = 0;
	int sh = 0;
	/* ReluPrepare divides the two float scales in float; a quotient beyond float32 (inf)
	 * makes QuantizeMultiplier, and so every output, undefined */
	float ratio = si / so;
	int ratio_ok = isfinite(ratio);
	if (ratio_ok)
		qref_quantize_multiplier((double)ratio, build, &m, &sh);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int32_t x = (int32_t)qref_get(in, i) - zi;
		int ub = !bounds_ok || !ratio_ok;
		int64_t y = 0;
		if (build == QREF_ROUND_DOUBLE) {
			ub = ub || sh >= 31 || !qref_mbqm_preshift_fits(x, sh);
			if (!ub)
				y = qref_mbqm(x, m, sh, build);
		} else {
			y = qref_mbqm_single_wide(x, m, sh);
			ub = ub || y < INT32_MIN || y > INT32_MAX;
		}
		y += zo; /* int32 in LiteRT */
		ub = ub || y < INT32_MIN || y > INT32_MAX;
		if (ub) {
			qref_mark_any(d, 0, i, (double)qmin, (double)qmax);
			y = qmin; /* any in-range value will do */
		} else {
			qref_mark_exact(d, 0, i);
			y = y < lo ? lo : y > hi ? hi : y;
		}
		qref_set(out, i, (double)y);
	}
	return QCF_OK;
}

static qcf_status litert_relu_real(const qcf_op_call *call, const qref_op *row, int k,
                                   double *values, qref_detail *d)
{
	(void)k; /* one output */
	qcf_quant qi;
	qcf_status s = relu_check(call, row, d, 0, &qi, NULL);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	double lo = relu_ops[row->param].lo, hi = relu_ops[row->param].hi;
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		double x = (qref_get(in, i) - qi.zero_points[0]) * (double)qi.scales[0];
		values[i] = x < lo ? lo : x > hi ? hi : x;
	}
	return QCF_OK;
}

static const qref_attr_schema softmax_attrs[] = {
        {"beta", QREF_ATTR_FLOAT, 0, 0, INF, 1, NULL, 0, "1"},
        END,
};

static const qref_attr_schema l2norm_attrs[] = {
        A_ENUM("fused_activation_function", LIST("NONE"), 0, "NONE"),
        END,
};

const qref_op qref_ops_litert_activations[] = {
        {.schema = {.semantics = "litert", .op = "SOFTMAX", XY, .attrs = softmax_attrs},
         .kernel = litert_softmax,
         .real = litert_softmax_real},
        {.schema = {.semantics = "litert", .op = "LOGISTIC", XY, .attrs = qref_no_attrs},
         .kernel = litert_logistic_tanh,
         .real = logistic_tanh_real,
         .param = 0},
        {.schema = {.semantics = "litert", .op = "TANH", XY, .attrs = qref_no_attrs},
         .kernel = litert_logistic_tanh,
         .real = logistic_tanh_real,
         .param = 1},
        {.schema = {.semantics = "litert", .op = "L2_NORMALIZATION", XY, .attrs = l2norm_attrs},
         .kernel = litert_l2norm,
         .real = litert_l2norm_real},
        {.schema = {.semantics = "litert", .op = "LOG_SOFTMAX", XY, .attrs = qref_no_attrs},
         .kernel = litert_log_softmax,
         .real = litert_log_softmax_real},
        {.schema = {.semantics = "litert", .op = "RELU", XY, .attrs = qref_no_attrs},
         .kernel = litert_relu,
         .real = litert_relu_real,
         .param = 0},
        {.schema = {.semantics = "litert", .op = "RELU6", XY, .attrs = qref_no_attrs},
         .kernel = litert_relu,
         .real = litert_relu_real,
         .param = 1},
        {.schema = {.semantics = "litert", .op = "RELU_N1_TO_1", XY, .attrs = qref_no_attrs},
         .kernel = litert_relu,
         .real = litert_relu_real,
         .param = 2},
        {.schema = {.op = NULL}},
};
