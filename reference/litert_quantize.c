/*
 * LiteRT QUANTIZE and DEQUANTIZE (tflite/kernels/quantize.cc,
 * dequantize.cc; internal/reference/quantize.h, requantize.h,
 * dequantize.h). The requantization: specs/litert/OPERATORS.md ("Integer
 * requantization"); the ops: specs/README.md ("Operators"); their arithmetic and
 * its sources: docs/litert.md ("QUANTIZE and DEQUANTIZE").
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "dtype.h"
#include "kernel.h"
#include "op.h"
#include "requant.h"

/*
 * float -> int: q = clamp(roundf(x / scale) + zp), float32 division, ties
 * away (reference/quantize.h AffineQuantize: TfLiteRound(val / scale)). A
 * named QREF_ROUND_HALF_* rounding replaces only the roundf.
 */
static qcf_status quantize_float(const qcf_op_call *call, qref_detail *d)
{
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	qcf_dtype ot = out->dtype;
	if (ot != QCF_INT8 && ot != QCF_UINT8 && ot != QCF_INT16 && ot != QCF_INT4 &&
	    ot != QCF_UINT4)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "QUANTIZE float32 input needs an int8, uint8, int16, int4 or "
		                 "uint4 output, got %s",
		                 qref_dtype_name(ot));
	qcf_quant q;
	qcf_status s = qref_get_quant(out, "QUANTIZE output", 0, &q, d);
	if (s != QCF_OK)
		return s;
	if ((ot == QCF_INT4 || ot == QCF_UINT4) && q.axis >= 0 && q.count > 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "QUANTIZE to %s supports per-tensor quantization only",
		                 qref_dtype_name(ot));
	const qref_rounding rnd = qref_detail_rounding(d);
	const int named = rnd != QREF_ROUND_DEFAULT && rnd != QREF_ROUND_HALF_AWAY;
	if (rnd != QREF_ROUND_DEFAULT && !qref_rounding_is_half(rnd))
		return qref_rounding_na(call, d, rnd, "x / scale to an integer");
	qref_set_default_rounding(d, QREF_ROUND_HALF_AWAY); /* roundf */
	double lo, hi;
	qref_range_d(ot, &lo, &hi);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int32_t c = qref_quant_index(out, &q, i);
		float x = (float)qref_get(in, i);
		float qt = x / q.scales[c];
		float r = named ? (float)qref_round_half((double)qt, rnd) : roundf(qt);
		double v = (double)r + (double)q.zero_points[c];
		/* LiteRT casts r to int32 and adds zp in int32: undefined unless
		 * both fit (NaN, +-inf and huge quotients). */
		int ub = !(r >= -0x1p31f && r < 0x1p31f) || v < (double)INT32_MIN ||
		         v > (double)INT32_MAX;
		if (ub) {
			qref_mark_any(d, 0, i, lo, hi);
			v = isnan(r) ? (double)q.zero_points[c] : v;
		} else {
			qref_mark_exact(d, 0, i);
		}
		qref_set(out, i, qref_clamp_d(v, lo, hi));
	}
	return QCF_OK;
}

static int requant_pair_ok(qcf_dtype it, qcf_dtype ot)
{
	switch (it) {
	case QCF_INT8:
	case QCF_UINT8: return ot == QCF_INT8 || ot == QCF_UINT8 || ot == QCF_INT16;
	case QCF_INT16: return ot == QCF_INT8 || ot == QCF_INT16 || ot == QCF_INT32;
	case QCF_INT32: return ot == QCF_INT8 || ot == QCF_INT16;
	default: return 0;
	}
}

/*
 * int -> int: out = clamp(MBQM(q - zp_in, QM(s_in / s_out)) + zp_out), in the
 * double-rounding build (default) or the single-rounding one.
 */
static qcf_status requantize(const qcf_op_call *call, qref_detail *d)
{
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	if (!requant_pair_ok(in->dtype, out->dtype))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "QUANTIZE (requantize) from %s to %s is not allowed: u8/i8 -> "
		                 "u8/i8/i16, i16 -> i8/i16/i32, i32 -> i8/i16",
		                 qref_dtype_name(in->dtype), qref_dtype_name(out->dtype));
	qcf_quant qi, qo;
	qcf_status s = qref_get_quant(in, "QUANTIZE input", 1, &qi, d);
	if (s == QCF_OK)
		s = qref_get_quant(out, "QUANTIZE output", 1, &qo, d);
	if (s != QCF_OK)
		return s;
	float si = qi.scales[0], so = qo.scales[0];
	if (!(si > 0.0f && isfinite(si) && so > 0.0f && isfinite(so)))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "QUANTIZE (requantize) needs positive finite scales");
	int32_t zi = qi.zero_points[0], zo = qo.zero_points[0];
	if (in->dtype == QCF_INT16 && out->dtype == QCF_INT16 && (zi != 0 || zo != 0))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "QUANTIZE int16 -> int16 needs zero points 0 (got %" PRId32
		                 " and %" PRId32 ")",
		                 zi, zo);

	const qref_rounding named = qref_detail_rounding(d);
	if (named != QREF_ROUND_DEFAULT && named != QREF_ROUND_DOUBLE && named != QREF_ROUND_SINGLE)
		return qref_rounding_na(call, d, named,
		                        "(q - zp_in) * s_in / s_out by an integer multiplier");
	const qref_rounding rnd = qref_requant_build(named); /* DEFAULT is DOUBLE */
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);
	double ratio = (double)si / (double)so;
	int32_t m;
	int sh;
	qref_quantize_multiplier(ratio, rnd, &m, &sh);
	double lo, hi;
	qref_range_d(out->dtype, &lo, &hi);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++) {
		int64_t x = (int64_t)qref_get(in, i) - zi;
		/* every step LiteRT does in int32 must stay in its contract */
		int ub = x < INT32_MIN || x > INT32_MAX;
		int64_t y = 0;
		if (!ub && rnd == QREF_ROUND_DOUBLE) {
			ub = sh >= 31 || !qref_mbqm_preshift_fits((int32_t)x, sh);
			if (!ub)
				y = qref_mbqm((int32_t)x, m, sh, rnd);
		} else if (!ub) {
			y = qref_mbqm_single_wide((int32_t)x, m, sh);
			ub = y < INT32_MIN || y > INT32_MAX;
		}
		y += zo;
		ub = ub || y < INT32_MIN || y > INT32_MAX;
		double v;
		if (ub) {
			qref_mark_any(d, 0, i, lo, hi);
			v = round((double)x * ratio) + zo; /* any in-range value will do */
		} else {
			qref_mark_exact(d, 0, i);
			v = (double)y;
		}
		qref_set(out, i, qref_clamp_d(v, lo, hi));
	}
	return QCF_OK;
}

static qcf_status qref_litert_quantize(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	if (!qref_same_shape(in, &call->outputs[0]))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "QUANTIZE output shape must equal input shape");
	if (in->dtype == QCF_FLOAT32)
		return quantize_float(call, d);
	return requantize(call, d);
}

/*
 * out = (float)((double)scale * (double)(q - zp)); float16 input converts
 * exactly. Nothing is rounded to an integer: only QREF_ROUND_DEFAULT.
 */
static qcf_status qref_litert_dequantize(const qcf_op_call *call, const qref_op *row,
                                         qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	if (!qref_same_shape(in, out))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "DEQUANTIZE output shape must equal input shape");
	if (out->dtype != QCF_FLOAT32)
		return qref_fail(d, QCF_INVALID_PARAM, "DEQUANTIZE output must be float32, got %s",
		                 qref_dtype_name(out->dtype));
	qcf_dtype it = in->dtype;
	qcf_quant q;
	memset(&q, 0, sizeof q);
	if (it != QCF_FLOAT16) {
		if (it != QCF_INT8 && it != QCF_UINT8 && it != QCF_INT16 && it != QCF_INT4 &&
		    it != QCF_UINT4)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "DEQUANTIZE input must be int4, uint4, int8, uint8, int16 or "
			        "float16, got %s",
			        qref_dtype_name(it));
		s = qref_get_quant(in, "DEQUANTIZE input", 0, &q, d);
		if (s != QCF_OK)
			return s;
		if (it == QCF_INT16)
			for (int32_t c = 0; c < q.count; c++)
				if (q.zero_points[c] != 0)
					return qref_fail(d, QCF_INVALID_PARAM,
					                 "DEQUANTIZE int16 input needs zero point "
					                 "0, got %" PRId32 "",
					                 q.zero_points[c]);
	}
	if ((s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(in);
	if (it == QCF_FLOAT16) {
		for (size_t i = 0; i < n; i++) {
			qref_mark_exact(d, 0, i);
			qref_set(out, i, qref_get(in, i));
		}
		return QCF_OK;
	}
	for (size_t i = 0; i < n; i++) {
		int32_t c = qref_quant_index(in, &q, i);
		double scale = (double)q.scales[c];
		double v = scale * (qref_get(in, i) - (double)q.zero_points[c]);
		qref_mark_exact(d, 0, i);
		qref_set_step(d, 0, i, scale > 0 ? scale : 0.0);
		qref_set(out, i, (double)(float)v);
	}
	return QCF_OK;
}

/*
 * Real-valued output of QUANTIZE: float32 input x itself; integer input
 * (requantize) (q - zp_in) * s_in, with the input checked as requantize
 * checks it (per-tensor quantization, positive finite scale).
 */
static qcf_status qref_litert_quantize_real(const qcf_op_call *call, const qref_op *row, int k,
                                            double *values, qref_detail *d)
{
	(void)row;
	(void)k; /* QUANTIZE has one output */
	qcf_status s = qref_check_call_shapes(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	if (!qref_same_shape(in, &call->outputs[0]))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "QUANTIZE output shape must equal input shape");
	size_t n = qref_tensor_numel(in);
	if (in->dtype == QCF_FLOAT32) {
		for (size_t i = 0; i < n; i++)
			values[i] = qref_get(in, i);
		return QCF_OK;
	}
	qcf_dtype it = in->dtype;
	if (it != QCF_INT8 && it != QCF_UINT8 && it != QCF_INT16 && it != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "QUANTIZE input must be float32, or int8, uint8, int16 or int32 "
		                 "(requantize), got %s",
		                 qref_dtype_name(it));
	qcf_quant q;
	s = qref_get_quant(in, "QUANTIZE input", 1, &q, d);
	if (s != QCF_OK)
		return s;
	float si = q.scales[0];
	if (!(si > 0.0f && isfinite(si)))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "QUANTIZE (requantize) needs positive finite scales");
	for (size_t i = 0; i < n; i++)
		values[i] = (qref_get(in, i) - (double)q.zero_points[0]) * (double)si;
	return QCF_OK;
}

const qref_op qref_ops_litert_quantize[] = {
        {.schema = {.semantics = "litert", .op = "QUANTIZE", XY, .attrs = qref_no_attrs},
         .kernel = qref_litert_quantize,
         .real = qref_litert_quantize_real},
        {.schema = {.semantics = "litert", .op = "DEQUANTIZE", XY, .attrs = qref_no_attrs},
         .kernel = qref_litert_dequantize},
        {.schema = {.op = NULL}},
};
