/*
 * PyTorch quantize_per_tensor, quantize_per_channel and dequantize on CPU
 * (aten/src/ATen/native/quantized/QTensor.cpp, AffineQuantizer.cpp,
 * AffineQuantizerBase.cpp, cpu/kernels/QuantizedOpKernels.cpp;
 * aten/src/ATen/quantized/Quantizer.cpp; fbgemm include/fbgemm/QuantUtils.h,
 * src/QuantUtils.cc, src/QuantUtilsAvx2.cc). specs/torch/OPERATORS.md.
 *
 * torch dtype <-> ABI dtype: quint8 = uint8, qint8 = int8, qint32 = int32,
 * quint4x2 = uint4 (two per byte, element 2i in the low nibble: the packing
 * of quantize_tensor_per_tensor_affine_sub_byte_cpu). The output's scale and
 * zero point travel in its qcf_quant.
 *
 * quantize_per_tensor, the default x86 build (USE_FBGEMM):
 *  - quint8/qint8: fbgemm::Quantize<T, LEGACY = true> takes QuantizeAvx2 on
 *    an AVX2+FMA CPU: q = clamp(cvt_rne(min(fmaf(x, inv, (float)zp),
 *    2147483520.f))), inv = 1.0f / (float)scale: the zero point is added
 *    BEFORE rounding, in one fused multiply-add. The same library without
 *    AVX2/FMA: nearbyintf((float)zp + x * inv), unfused, and where it gives
 *    another value the element accepts either (marked, as the fused
 *    float-zero-point fake quantization). A build without fbgemm (ARM,
 *    mobile, and Debian's libtorch: quantize_val, quantize_tensor_arm) adds
 *    the zero point AFTER rounding, zp + nearbyintf(x * inv): it differs at
 *    every tie with an odd zero point, and is accepted there too (all three
 *    are torch on some CPU build).
 *  - qint32: precision 32 is never the AVX2 path: nearbyintf((float)zp +
 *    x * inv), clamped in double; a fused build's value is marked likewise.
 *  - quint4x2: one path (no fbgemm): lrintf(nearbyintf(x * inv) + (float)zp),
 *    clamped to [0, 15] (inv = 1 for scale 0).
 *  NaN is undefined (float-to-int conversion of NaN in all but the AVX2 path,
 *  which gives quant_max): any in-range value. +-inf (and x * inv beyond
 *  +-2^63) saturate in the fbgemm paths; without fbgemm, quantize_val's
 *  static_cast<int64_t> of them is undefined (x86 gives INT64_MIN, so
 *  quant_min for +inf): any in-range value, as for quantize_per_channel.
 * quantize_per_channel (no fbgemm kernel; quantize_val with fbgemm::Quantize
 *  <T, LEGACY = false>): q = clamp((float)zp + nearbyintf(x * inv)), the zero
 *  point AFTER rounding, inv = 1.0f / (float)scale. One path for every build.
 *  quint4x2 is not dispatched (error).
 * dequantize: per tensor (float)scale * (float)(q - zp) (fbgemm::Dequantize,
 *  q - zp in int32); per channel (float)((double)((float)q - (float)zp) *
 *  (double)scale) (dequantize_per_channel_affine_kernel<double, int64_t>,
 *  scales held in double). quint4x2 per channel is not dispatched (error).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "dtype.h"
#include "kernel.h"
#include "op.h"
#include "torch.h"

/* 2^31 - 128: the largest float below INT32_MAX, QuantizeAvx2's clip */
#define INT32_FLOAT_MAX 2147483520.0f
#define TWO63           0x1p63

static const char *torch_qname(qcf_dtype t)
{
	switch (t) {
	case QCF_UINT8: return "QUInt8";
	case QCF_INT8: return "QInt8";
	case QCF_INT32: return "QInt32";
	case QCF_UINT4: return "QUInt4x2";
	default: return qref_dtype_name(t);
	}
}

static int torch_qtype(qcf_dtype t)
{
	return t == QCF_UINT8 || t == QCF_INT8 || t == QCF_INT32 || t == QCF_UINT4;
}

/* The range checkZeroPoint<underlying_t> allows: quint4x2's underlying type is uint8. */
static void zp_range(qcf_dtype t, int64_t *lo, int64_t *hi)
{
	qref_dtype_range(t == QCF_UINT4 ? QCF_UINT8 : t, lo, hi);
}

static qcf_status check_zp(const char *fn, qcf_dtype t, int32_t zp, qref_detail *d)
{
	int64_t lo, hi;
	zp_range(t, &lo, &hi);
	if (zp > hi)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s zero_point %" PRId32 " is above upper bound.", fn, zp);
	if (zp < lo)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s zero_point %" PRId32 " is below lower bound.", fn, zp);
	return QCF_OK;
}

/* nearbyint (current mode: ties to even) or a named QREF_ROUND_HALF_*. */

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static qcf_status check_io(const qcf_op_call *call, const char *fn, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (x->dtype != QCF_FLOAT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Quantize only works on Float Tensor, got %s (%s expects a "
		                 "Float Tensor)",
		                 call->op, qref_dtype_name(x->dtype), fn);
	if (!torch_qtype(y->dtype))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: ScalarType %s is not supported in new_qtensor (quint8 = uint8, "
		        "qint8 = int8, qint32 = int32, quint4x2 = uint4)",
		        call->op, qref_dtype_name(y->dtype));
	if (!qref_same_shape(x, y))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: %s only works with Tensors with the same shape", call->op,
		                 fn);
	if (!y->quant || !y->quant->scales || !y->quant->zero_points)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: output needs quantization parameters",
		                 call->op);
	return QCF_OK;
}

static qcf_status check_scale(const qcf_op_call *call, float s, qref_detail *d)
{
	if (!(s > 0.0f) || !isfinite(s))
		return qref_fail(
		        d, QCF_NOT_SUPPORTED,
		        "%s: scale %g: torch does not check the scale; a scale that is not "
		        "positive and finite is undefined here",
		        call->op, (double)s);
	return QCF_OK;
}

/* Writes q, exact, or any value between lo and hi (when they differ from q). */
static void put_q(const qcf_op_call *call, qref_detail *d, size_t i, double q, double lo, double hi)
{
	qref_set(&call->outputs[0], i, q);
	if (lo != q || hi != q)
		qref_mark_any(d, 0, i, fmin(lo, q), fmax(hi, q));
	else
		qref_mark_exact(d, 0, i);
}

/* Variant v of the 8-bit and 32-bit per-tensor quantization, or NAN when undefined. */
enum { V_FUSED, V_UNFUSED, V_AFTER };

static double quant_variant(int v, float x, float inv, int32_t zp, double qlo, double qhi,
                            qref_rounding r)
{
	float t;
	switch (v) {
	case V_FUSED:
		/* QuantizeAvx2<T, true>: _mm256_fmadd_ps, _mm256_min_ps (NaN -> the clip value),
		 * _mm256_cvtps_epi32 (ties to even; below -2^31 gives INT32_MIN) */
		t = fmaf(x, inv, (float)zp);
		t = t < INT32_FLOAT_MAX ? t : INT32_FLOAT_MAX;
		t = qref_torch_round_f(t, r);
		return clampd(t < -0x1p31f ? -0x1p31 : (double)t, qlo, qhi);
	case V_UNFUSED:
		/* fbgemm::Quantize<T, true> scalar: nearbyint(zero_point + src * inv_scale),
		 * clamp<double, T> */
		t = qref_torch_round_f((float)zp + x * inv, r);
		if (isnan(t))
			return NAN;
		return clampd((double)t, qlo, qhi);
	default:
		/* no fbgemm (quantize_val, quantize_tensor_arm; Debian's libtorch is built
		 * without it): static_cast<int64_t>(zero_point + nearbyint(x * inv)), the zero
		 * point after rounding, the sum in float. Its conversion to int64 is undefined
		 * for NaN and beyond int64 (+-inf, x * inv >= 2^63): NAN, which the caller
		 * takes as "any value" (x86 gives INT64_MIN: quant_min even for +inf) */
		t = (float)zp + qref_torch_round_f(x * inv, r);
		if (isnan(t) || !(t >= -0x1p63f && t < 0x1p63f))
			return NAN;
		return clampd((double)t, qlo, qhi);
	}
}

qcf_status qref_torch_quantize_per_tensor(const qcf_op_call *call, const qref_op *row,
                                          qref_detail *d)
{
	(void)row;
	static const char fn[] = "quantize_tensor_per_tensor_affine";
	qcf_status s = check_io(call, fn, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	const qcf_quant *q = y->quant;
	if (q->axis >= 0 || q->count != 1)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: the output must be quantized per tensor (quantize_per_channel "
		        "quantizes per axis)",
		        call->op);
	const float sc = q->scales[0];
	const int32_t zp = q->zero_points[0];
	if ((s = check_zp(fn, y->dtype, zp, d)) != QCF_OK ||
	    (s = check_scale(call, sc, d)) != QCF_OK)
		return s;
	const qref_rounding r = qref_detail_rounding(d);
	if ((s = qref_torch_check_rounding(call, d, "zp + x * inv to an integer")) != QCF_OK)
		return s;
	int64_t lo64, hi64;
	qref_dtype_range(y->dtype, &lo64, &hi64);
	const double qlo = (double)lo64, qhi = (double)hi64;
	size_t n = qref_tensor_numel(x);
	if (y->dtype == QCF_UINT4) {
		/* quantize_tensor_per_tensor_affine_sub_byte_cpu: float scale and zero point */
		const float inv = sc == 0.0f ? 1.0f : 1.0f / sc;
		for (size_t i = 0; i < n; i++) {
			float v = qref_torch_round_f((float)qref_get(x, i) * inv, r) + (float)zp;
			if (!(fabsf(v) < (float)TWO63)) {
				/* lrintf out of range is unspecified (x86: LONG_MIN, so 0) */
				put_q(call, d, i, qlo, qlo, qhi);
				continue;
			}
			double qv = clampd((double)lrintf(v), qlo, qhi);
			put_q(call, d, i, qv, qv, qv);
		}
		return QCF_OK;
	}
	const float inv = 1.0f / sc;
	const int def = y->dtype == QCF_INT32 ? V_UNFUSED : V_FUSED;
	for (size_t i = 0; i < n; i++) {
		float xv = (float)qref_get(x, i);
		double v = quant_variant(def, xv, inv, zp, qlo, qhi, r);
		if (isnan(xv)) {
			put_q(call, d, i, isnan(v) ? qhi : v, qlo, qhi);
			continue;
		}
		double lo = v, hi = v;
		for (int k = V_FUSED; k <= V_AFTER; k++) {
			double a = quant_variant(k, xv, inv, zp, qlo, qhi, r);
			if (isnan(a)) {
				/* undefined in that build: any value */
				lo = qlo;
				hi = qhi;
			} else {
				lo = fmin(lo, a);
				hi = fmax(hi, a);
			}
		}
		put_q(call, d, i, v, lo, hi);
	}
	return QCF_OK;
}

static qcf_status qref_torch_quantize_per_channel(const qcf_op_call *call, const qref_op *row,
                                                  qref_detail *d)
{
	(void)row;
	static const char fn[] = "quantize_tensor_per_channel_affine";
	qcf_status s = check_io(call, fn, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	const qcf_quant *q = y->quant;
	/* AffineQuantizer.cpp quantize_tensor_per_channel_affine, in its order */
	if (y->dtype == QCF_UINT4)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: \"%s\" not implemented for '%s'",
		                 call->op, fn, torch_qname(y->dtype));
	if (q->axis < 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the output must be quantized per axis (quantize_per_tensor "
		                 "quantizes per tensor)",
		                 call->op);
	for (int32_t c = 0; c < q->count; c++)
		if ((s = check_zp(fn, y->dtype, q->zero_points[c], d)) != QCF_OK)
			return s;
	if (q->axis >= x->rank)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: Channel axis out of range in per channel affine quantization. "
		        "Got: %" PRId32 "Expected: [0, %" PRId32 ")",
		        call->op, q->axis, x->rank);
	if ((int64_t)q->count != x->shape[q->axis])
		return qref_fail(d, QCF_INVALID_PARAM, "%s: length of scales must equal to channel",
		                 call->op);
	for (int32_t c = 0; c < q->count; c++)
		if ((s = check_scale(call, q->scales[c], d)) != QCF_OK)
			return s;
	if ((s = qref_torch_check_rounding(call, d, "x * inv to an integer")) != QCF_OK)
		return s;
	const qref_rounding r = qref_detail_rounding(d);
	int64_t lo64, hi64;
	qref_dtype_range(y->dtype, &lo64, &hi64);
	const double qlo = (double)lo64, qhi = (double)hi64;
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		int32_t c = qref_channel(x, q, i);
		/* scales held in double, fbgemm::Quantize takes (float)scale */
		const float inv = 1.0f / (float)(double)q->scales[c];
		float t = (float)q->zero_points[c] +
		          qref_torch_round_f((float)qref_get(x, i) * inv, r);
		if (isnan(t)) {
			put_q(call, d, i, qlo, qlo, qhi); /* clamp<double, T> of NaN: undefined */
			continue;
		}
		if (!(t >= -0x1p63f && t < 0x1p63f)) {
			/* +-inf, |x * inv| >= 2^63: fbgemm's quantize_val saturates, the plain
			 * one (no fbgemm) converts to int64 out of range, undefined: any value */
			double qv = clampd((double)t, qlo, qhi);
			put_q(call, d, i, qv, qlo, qhi);
			continue;
		}
		double qv = clampd((double)t, qlo, qhi);
		put_q(call, d, i, qv, qv, qv);
	}
	return QCF_OK;
}

static qcf_status qref_torch_quantize_real(const qcf_op_call *call, const qref_op *row, int k,
                                           double *values, qref_detail *d)
{
	(void)row;
	(void)k; /* one output */
	qcf_status s = qref_check_call_shapes(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	if (x->dtype != QCF_FLOAT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Quantize only works on Float Tensor, got %s", call->op,
		                 qref_dtype_name(x->dtype));
	if (!qref_same_shape(x, &call->outputs[0]))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: output shape must equal input shape", call->op);
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++)
		values[i] = qref_get(x, i);
	return QCF_OK;
}

float qref_torch_dequantize_elem(const qcf_tensor *t, size_t i, int *ub)
{
	const qcf_quant *q = t->quant;
	const double qv = qref_get(t, i);
	*ub = 0;
	if (q->axis >= 0) {
		/* (static_cast<float>(qvalue) - zero_points_data[c]) * scales_data[c] */
		int32_t c = qref_channel(t, q, i);
		float diff = (float)qv - (float)q->zero_points[c];
		return (float)((double)diff * (double)q->scales[c]);
	}
	/* fbgemm::Dequantize: scale * (src - zero_point), the difference in int32 */
	int64_t diff = (int64_t)qv - (int64_t)q->zero_points[0];
	*ub = diff > INT32_MAX || diff < INT32_MIN;
	return q->scales[0] * (float)diff;
}

static qcf_status qref_torch_dequantize(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	if (!torch_qtype(x->dtype))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: input must be a quantized tensor: quint8 = uint8, qint8 = int8, "
		        "qint32 = int32 or quint4x2 = uint4, got %s",
		        call->op, qref_dtype_name(x->dtype));
	if (y->dtype != QCF_FLOAT32)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: Dequantize out should be a contiguous Float Tensor; instead got "
		        "type %s",
		        call->op, qref_dtype_name(y->dtype));
	if (!qref_same_shape(x, y))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: dequantize only works with Tensors with the same shape",
		                 call->op);
	const qcf_quant *q = x->quant;
	if (!q || !q->scales || !q->zero_points)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input needs quantization parameters",
		                 call->op);
	const int per_channel = q->axis >= 0;
	const char *fn = per_channel ? "dequantize_tensor_per_channel_affine"
	                             : "dequantize_tensor_per_tensor_affine";
	if (per_channel && x->dtype == QCF_UINT4)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: \"%s\" not implemented for '%s'",
		                 call->op, fn, torch_qname(x->dtype));
	if (!per_channel && q->count != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: per-tensor quantization needs count 1, got %" PRId32 "",
		                 call->op, q->count);
	for (int32_t c = 0; c < q->count; c++)
		if ((s = check_zp(fn, x->dtype, q->zero_points[c], d)) != QCF_OK)
			return s;
	if (per_channel && q->axis >= x->rank)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Channel axis out of range in per channel affine "
		                 "dequantization. Got:%" PRId32 " Expected: [0, %" PRId32 ")",
		                 call->op, q->axis, x->rank);
	if (per_channel && (int64_t)q->count != x->shape[q->axis])
		return qref_fail(d, QCF_INVALID_PARAM, "%s: length of scales must equal to channel",
		                 call->op);
	if (qref_detail_rounding(d) != QREF_ROUND_DEFAULT)
		return qref_rounding_na(call, d, qref_detail_rounding(d), "nothing");
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		int ub;
		qref_set(y, i, qref_torch_dequantize_elem(x, i, &ub));
		qref_set_step(d, 0, i, (double)q->scales[per_channel ? qref_channel(x, q, i) : 0]);
		if (ub)
			qref_mark_any(d, 0, i, -INFINITY, INFINITY);
		else
			qref_mark_exact(d, 0, i);
	}
	return QCF_OK;
}

const qref_op qref_ops_torch_quantize[] = {
        {.schema = {.semantics = "torch", .op = "quantize_per_tensor", XY, .attrs = qref_no_attrs},
         .kernel = qref_torch_quantize_per_tensor,
         .real = qref_torch_quantize_real},
        {.schema = {.semantics = "torch", .op = "quantize_per_channel", XY, .attrs = qref_no_attrs},
         .kernel = qref_torch_quantize_per_channel,
         .real = qref_torch_quantize_real},
        {.schema = {.semantics = "torch", .op = "dequantize", XY, .attrs = qref_no_attrs},
         .kernel = qref_torch_dequantize},
        {.schema = {.op = NULL}},
};
