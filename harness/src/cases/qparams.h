/*
 * qparams: the three forms of quantization parameters and the conventions
 * that map a float range onto (scale, zero point).
 *
 *   (scale, zero_point)  real = (q - zero_point) * scale
 *   (mean, std_dev)      TFLite converter quantized_input_stats:
 *                        real = (q - mean) / std_dev, so zero_point = mean,
 *                        scale = 1 / std_dev
 *   (min, max)           a float range, mapped by a nudging convention:
 *     QC_NUDGE_TF        TensorFlow FakeQuant Nudge (float32, zp rounded
 *                        half away from zero, clamped to [qmin, qmax])
 *     QC_NUDGE_ONNX      ONNX DynamicQuantizeLinear (range widened to hold
 *                        0, zp rounded half to even)
 *     QC_NUDGE_SYMMETRIC LiteRT weights: zp 0, scale = max(|min|,|max|)/qmax
 *
 * Each convention's source is named in harness/src/cases/qparams.c; golden values are in
 * suite/test_qparams.c.
 */
#ifndef QC_QPARAMS_H
#define QC_QPARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "qconform/plugin.h"

typedef enum qc_nudge { QC_NUDGE_TF = 0, QC_NUDGE_ONNX = 1, QC_NUDGE_SYMMETRIC = 2 } qc_nudge;

/* "tf", "onnx", "symmetric" -> convention; -1 if unknown. */
int qc_nudge_parse(const char *name);
const char *qc_nudge_name(qc_nudge n);

/* Integer range of a quantized dtype; narrow_range raises qmin by one. 0 if not integer. */
int qc_dtype_qrange(qcf_dtype t, int narrow_range, int64_t *qmin, int64_t *qmax);

typedef struct qc_qparams {
	float scale;
	int32_t zero_point;      /* the nudged/rounded integer zero point */
	double zero_point_exact; /* before rounding (mean, or qmin - min/scale) */
	double nudged_min;       /* (qmin - zp) * scale */
	double nudged_max;       /* (qmax - zp) * scale */
} qc_qparams;

/* Each returns 0, or -1 with a one-line reason in err. */
int qc_qparams_from_scale_zp(double scale, int64_t zero_point, int64_t qmin, int64_t qmax,
                             qc_qparams *out, char *err, size_t err_size);
int qc_qparams_from_mean_std(double mean, double std_dev, int64_t qmin, int64_t qmax,
                             qc_qparams *out, char *err, size_t err_size);
int qc_qparams_from_min_max(double min, double max, int64_t qmin, int64_t qmax, qc_nudge nudge,
                            qc_qparams *out, char *err, size_t err_size);

#endif
