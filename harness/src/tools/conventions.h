/*
 * The convention matrix: one input set and one set of quantization
 * parameters through each framework's quantize, side by side, with the
 * reason wherever they disagree (each reason names its framework's source). Every column is
 * computed by the reference's own kernel for that framework, so the matrix
 * shows exactly what each convention's specs judge.
 */
#ifndef QC_CONVENTIONS_H
#define QC_CONVENTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "qconform/plugin.h"

typedef enum qc_conv {
	QC_CONV_TORCH = 0, /* torch fake_quantize_per_tensor_affine: zp + rint(x * (1.0f/s)) */
	QC_CONV_TORCH_FZP, /* torch, float zero point: rint(zp + x * (1.0f/s)) */
	QC_CONV_ONNX,      /* ONNX QuantizeLinear: rint(x / s) + zp */
	QC_CONV_LITERT,    /* LiteRT QUANTIZE (reference): round_half_away(x / s) + zp */
	QC_CONV_TF,        /* TF fake_quant_with_min_max_args: nudged range, ties half up */
	QC_CONV_COUNT
} qc_conv;

/* Why two conventions disagree on a value (bits of qc_conv_row.why). */
enum {
	QC_WHY_TIE_MUL = 1 << 0,  /* x * (1.0f/s) is exactly k + 0.5 */
	QC_WHY_TIE_DIV = 1 << 1,  /* x / s is exactly k + 0.5 */
	QC_WHY_MUL_DIV = 1 << 2,  /* x * (1.0f/s) and x / s round to different integers */
	QC_WHY_ZP_FIRST = 1 << 3, /* adding zp before rounding changes the result */
	QC_WHY_NUDGE = 1 << 4,    /* TF's nudged (scale, zero point) differ from the given ones */
	QC_WHY_TF_PATH = 1 << 5   /* TF's (x - nudged_min) * (1/s) rounds differently */
};

typedef struct qc_conv_params {
	qcf_dtype dtype;  /* int8, uint8, int16, uint16, int4, uint4 */
	int narrow_range; /* qmin raised by one */
	float scale;
	int32_t zero_point;
} qc_conv_params;

typedef struct qc_conv_row {
	float x;
	int has[QC_CONV_COUNT]; /* 0: the convention does not apply to these params */
	int64_t q[QC_CONV_COUNT];
	unsigned why; /* QC_WHY_* bits, 0 when every applicable convention agrees */
} qc_conv_row;

/* The convention's short name ("torch", "torch-fzp", "onnx", "litert", "tf"). */
const char *qc_conv_name(qc_conv c);

/*
 * Runs x[0..n) through every convention; rows[i] gets x[i]'s results.
 * Also gives TF's nudged params (tf_scale, tf_zero_point in the dtype's
 * own range) when the pointers are not NULL. 0, or -1 with a reason.
 */
int qc_conventions_run(const qc_conv_params *p, const float *x, size_t n, qc_conv_row *rows,
                       float *tf_scale, double *tf_zero_point, char *err, size_t err_size);

/*
 * Probe values for params p: around every code's rounding boundary
 * (at most 512 codes, spread over the range) the float32 values nearest
 * (k + 0.5) * scale and their neighbours, plus zero and the range ends.
 * Returns the count written to out (room for cap), or -1.
 */
long qc_conventions_probe(const qc_conv_params *p, float *out, size_t cap);

/* The codes a probe visits at most (qc_conventions_probe). */
#define QC_CONV_PROBE_CODES 512

/* The bits of an integer dtype the conventions take (int4 ... int32), else 0. */
int qc_conv_bits(qcf_dtype t);

#endif
