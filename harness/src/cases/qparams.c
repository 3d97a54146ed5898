/*
 * qparams: conversions between the three forms of quantization parameters
 * and the conventions that nudge a float range onto the integer grid.
 *
 * For an integer range [qmin, qmax], n = qmax - qmin, the affine map
 * real = (q - zp) * scale sends qmin -> min and qmax -> max exactly when
 *   scale = (max - min) / n,    zp = qmin - min / scale.
 * The converter's (mean, std_dev) is real = (q - mean) / std_dev, i.e.
 *   mean = zp, std_dev = 1 / scale; so from a range
 *   std_dev = n / (max - min),  mean = qmin - min * std_dev
 *                                    = (qmin * max - qmax * min) / (max - min),
 * and back: min = (qmin - mean) / std_dev, max = (qmax - mean) / std_dev.
 * For uint8 (qmin 0, qmax 255) these give mean = 255 min / (min - max),
 * std_dev = 255 / (max - min), min = -mean / std_dev, max = (255 - mean) / std_dev.
 * The "exact" numbers leave zp fractional; a convention then makes it an integer.
 *
 * Conventions (sources read for the facts, nothing copied):
 *  tf        tensorflow/core/kernels/fake_quant_ops_functor.h, Nudge(): every
 *            step in float32: scale = (max - min) / (qmax_f - qmin_f),
 *            zp_from_min = qmin_f - min / scale, zp = qmin if below qmin_f,
 *            qmax if above qmax_f, else std::round (half away from zero);
 *            nudged range ((qmin_f - zp) * scale, (qmax_f - zp) * scale).
 *            TF itself only has qmin 0 (or 1, narrow) and qmax 2^bits - 1 and
 *            keeps zp in a uint8; here the same float32 steps run on any range.
 *  onnx      onnx/reference/ops/op_dynamic_quantize_linear.py: float32;
 *            range widened to hold 0; scale = (max - min) / float32(qmax - qmin),
 *            or 1 when max == min (== 0); zp = rint(clip(qmin - min / scale)),
 *            rint rounding half to even. ONNX defines it for uint8 only.
 *  symmetric LiteRT weights (tensorflow/lite/kernels/internal/reference/
 *            portable_tensor_utils.cc, PortableSymmetricQuantizeFloats): float32,
 *            scale = max(|min|, |max|) / qmax (127 there), 1 if that is 0; zp 0.
 */
#include "cases/qparams.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "reference/dtype.h"

int qc_nudge_parse(const char *name)
{
	if (!name)
		return -1;
	if (strcmp(name, "tf") == 0)
		return QC_NUDGE_TF;
	if (strcmp(name, "onnx") == 0)
		return QC_NUDGE_ONNX;
	if (strcmp(name, "symmetric") == 0)
		return QC_NUDGE_SYMMETRIC;
	return -1;
}

const char *qc_nudge_name(qc_nudge n)
{
	switch (n) {
	case QC_NUDGE_TF: return "tf";
	case QC_NUDGE_ONNX: return "onnx";
	case QC_NUDGE_SYMMETRIC: return "symmetric";
	}
	return "unknown";
}

int qc_dtype_qrange(qcf_dtype t, int narrow_range, int64_t *qmin, int64_t *qmax)
{
	int64_t lo, hi;
	/* quantized dtypes only: not bool, not int64 (beyond float arithmetic) */
	if (t == QCF_BOOL || t == QCF_INT64 || !qref_dtype_range(t, &lo, &hi))
		return 0;
	if (qmin)
		*qmin = lo + (narrow_range ? 1 : 0);
	if (qmax)
		*qmax = hi;
	return 1;
}

static int check_range(int64_t qmin, int64_t qmax, char *err, size_t err_size)
{
	if (qmin < INT32_MIN || qmax > INT32_MAX)
		return qc_errf(err, err_size, "range [%" PRId64 ", %" PRId64 "] exceeds int32",
		               qmin, qmax);
	if (qmin >= qmax)
		return qc_errf(err, err_size, "empty range [%" PRId64 ", %" PRId64 "]", qmin, qmax);
	return 0;
}

static int check_scale(float s, double given, const char *what, char *err, size_t err_size)
{
	if (s == 0)
		return qc_errf(err, err_size, "%s %.17g underflows to 0 in float32", what, given);
	if (isinf(s))
		return qc_errf(err, err_size, "%s %.17g overflows float32", what, given);
	return 0;
}

static void set_range(qc_qparams *o, int64_t qmin, int64_t qmax)
{
	o->nudged_min = (double)(qmin - o->zero_point) * (double)o->scale;
	o->nudged_max = (double)(qmax - o->zero_point) * (double)o->scale;
}

int qc_qparams_from_scale_zp(double scale, int64_t zero_point, int64_t qmin, int64_t qmax,
                             qc_qparams *out, char *err, size_t err_size)
{
	if (check_range(qmin, qmax, err, err_size))
		return -1;
	if (!isfinite(scale) || scale <= 0)
		return qc_errf(err, err_size, "scale must be positive and finite, got %.17g",
		               scale);
	float s = (float)scale;
	if (check_scale(s, scale, "scale", err, err_size))
		return -1;
	if (zero_point < qmin || zero_point > qmax)
		return qc_errf(err, err_size,
		               "zero point %" PRId64 " outside [%" PRId64 ", %" PRId64 "]",
		               zero_point, qmin, qmax);
	out->scale = s;
	out->zero_point = (int32_t)zero_point;
	out->zero_point_exact = (double)zero_point;
	set_range(out, qmin, qmax);
	return 0;
}

int qc_qparams_from_mean_std(double mean, double std_dev, int64_t qmin, int64_t qmax,
                             qc_qparams *out, char *err, size_t err_size)
{
	if (check_range(qmin, qmax, err, err_size))
		return -1;
	if (!isfinite(mean))
		return qc_errf(err, err_size, "mean must be finite, got %.17g", mean);
	if (!isfinite(std_dev) || std_dev <= 0)
		return qc_errf(err, err_size, "std_dev must be positive and finite, got %.17g",
		               std_dev);
	if (mean < (double)qmin || mean > (double)qmax)
		return qc_errf(err, err_size,
		               "mean %.17g (the zero point) outside [%" PRId64 ", %" PRId64 "]",
		               mean, qmin, qmax);
	float s = (float)(1.0 / std_dev);
	if (check_scale(s, 1.0 / std_dev, "scale 1/std_dev", err, err_size))
		return -1;
	out->scale = s;
	out->zero_point = (int32_t)round(mean); /* half away from zero, like std::round */
	out->zero_point_exact = mean;
	set_range(out, qmin, qmax);
	return 0;
}

static int nudge_tf(float mn, float mx, int64_t qmin, int64_t qmax, qc_qparams *out, char *err,
                    size_t err_size)
{
	if (!(mn < mx))
		return qc_errf(err, err_size,
		               "tf: min must be less than max in float32, got %.9g, %.9g",
		               (double)mn, (double)mx);
	/* one float32 rounding per step, as in Nudge() */
	const float qmin_f = (float)qmin, qmax_f = (float)qmax;
	const float steps = qmax_f - qmin_f;
	const float width = mx - mn;
	const float scale = width / steps;
	if (check_scale(scale, (double)width / (double)steps, "tf: scale", err, err_size))
		return -1;
	const float ratio = mn / scale;
	const float zp_from_min = qmin_f - ratio;
	int64_t zp;
	if (zp_from_min < qmin_f)
		zp = qmin;
	else if (zp_from_min > qmax_f)
		zp = qmax;
	else
		zp = (int64_t)roundf(zp_from_min);
	const float zp_f = (float)zp;
	const float lo_steps = qmin_f - zp_f, hi_steps = qmax_f - zp_f;
	const float lo = lo_steps * scale, hi = hi_steps * scale;
	out->scale = scale;
	out->zero_point = (int32_t)zp;
	out->zero_point_exact = zp_from_min;
	out->nudged_min = lo;
	out->nudged_max = hi;
	return 0;
}

static int nudge_onnx(float mn, float mx, int64_t qmin, int64_t qmax, qc_qparams *out, char *err,
                      size_t err_size)
{
	const float lo = mn < 0 ? mn : 0.0f, hi = mx > 0 ? mx : 0.0f; /* widened to hold 0 */
	float scale = 1.0f;                                           /* empty range: 1 */
	if (hi != lo) {
		const float width = hi - lo;
		const float steps = (float)(qmax - qmin);
		scale = width / steps;
		if (check_scale(scale, (double)width / (double)steps, "onnx: scale", err, err_size))
			return -1;
	}
	const float ratio = lo / scale;
	const float initial = (float)qmin - ratio;
	float clipped = initial;
	if (clipped < (float)qmin)
		clipped = (float)qmin;
	if (clipped > (float)qmax)
		clipped = (float)qmax;
	out->scale = scale;
	out->zero_point = (int32_t)nearbyintf(clipped); /* half to even, like np.rint */
	out->zero_point_exact = initial;
	set_range(out, qmin, qmax);
	return 0;
}

static int nudge_symmetric(float mn, float mx, int64_t qmin, int64_t qmax, qc_qparams *out,
                           char *err, size_t err_size)
{
	if (!(qmin < 0 && qmax > 0))
		return qc_errf(err, err_size,
		               "symmetric: needs a signed range, got [%" PRId64 ", %" PRId64 "]",
		               qmin, qmax);
	const float a = fabsf(mn), b = fabsf(mx);
	const float range = a > b ? a : b;
	float scale = 1.0f; /* all-zero range: 1 */
	if (range != 0) {
		scale = range / (float)qmax;
		if (check_scale(scale, (double)range / (double)qmax, "symmetric: scale", err,
		                err_size))
			return -1;
	}
	out->scale = scale;
	out->zero_point = 0;
	out->zero_point_exact = 0;
	set_range(out, qmin, qmax);
	return 0;
}

int qc_qparams_from_min_max(double min, double max, int64_t qmin, int64_t qmax, qc_nudge nudge,
                            qc_qparams *out, char *err, size_t err_size)
{
	if (check_range(qmin, qmax, err, err_size))
		return -1;
	if (!isfinite(min) || !isfinite(max))
		return qc_errf(err, err_size, "min and max must be finite, got %.17g, %.17g", min,
		               max);
	if (min > max)
		return qc_errf(err, err_size, "min %.17g is greater than max %.17g", min, max);
	const float mn = (float)min, mx = (float)max;
	if (isinf(mn) || isinf(mx))
		return qc_errf(err, err_size, "min/max %.17g, %.17g overflow float32", min, max);
	switch (nudge) {
	case QC_NUDGE_TF: return nudge_tf(mn, mx, qmin, qmax, out, err, err_size);
	case QC_NUDGE_ONNX: return nudge_onnx(mn, mx, qmin, qmax, out, err, err_size);
	case QC_NUDGE_SYMMETRIC: return nudge_symmetric(mn, mx, qmin, qmax, out, err, err_size);
	}
	return qc_errf(err, err_size, "unknown nudging convention %d", (int)nudge);
}
