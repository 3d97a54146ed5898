/*
 * Element access for every qcf_dtype, shared by the reference, the harness
 * and the stubs. Values travel as double: every integer dtype here (up to
 * int32, and int64 within 2^53) and every float dtype converts exactly.
 */
#ifndef QREF_DTYPE_H
#define QREF_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "half.h"
#include "qconform/plugin.h"

/* Number of elements of a shape (1 for rank 0). */
size_t qref_numel(int32_t rank, const int64_t *shape);

/* Element i as double (a GGML block type: its dequantized value, qref_ggml_get). */
double qref_get(const qcf_tensor *t, size_t i);

/* Element i of an integer or bool tensor, exactly (int64 whole: qref_get's double is not exact
 * beyond 2^53); 0 for other dtypes. */
int64_t qref_get_int(const qcf_tensor *t, size_t i);

/* Stores v at element i. Integer dtypes: v must be integral and in range (not checked);
 * float16/bfloat16/float32: rounded to nearest, ties to even; small floats: as
 * qref_small_from without saturation (an infinity stays one where the type has it); e8m0: as
 * qref_e8m0_from(v, 1, QREF_E8M0_UP). */
void qref_set(qcf_tensor *t, size_t i, double v);

int qref_dtype_is_float(qcf_dtype t);
int qref_dtype_is_int(qcf_dtype t); /* integer types incl. bool, int2, int4, uint2, uint4 */
/* Range of an integer dtype; returns 0 for float dtypes. */
int qref_dtype_range(qcf_dtype t, int64_t *min, int64_t *max);

const char *qref_dtype_name(qcf_dtype t);
qcf_dtype qref_dtype_parse(const char *name); /* QCF_DTYPE_INVALID if unknown */

/* float16 and bfloat16: half.h */

/*
 * Small floats (ABI version 2): float8 e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, float6 e3m2, e2m3,
 * float4 e2m1 and the scale type float8 e8m0, one code per call (the low bits of a byte).
 */
int qref_dtype_is_small_float(qcf_dtype t); /* the float8/6/4 element types, not e8m0 */
double qref_small_max(qcf_dtype t);         /* largest finite value; 0 for other dtypes */

/* The value of code c: exact; NaN for a NaN code, +-inf for e5m2's infinities. */
float qref_small_to_f32(qcf_dtype t, uint8_t c);

/*
 * The code of x rounded to nearest, ties to even (the ONNX Cast rules, onnx/onnx
 * Operators.md, Cast, and OCP 8-bit floating point v1.0 for the FP8 types):
 *  - |x| beyond the largest finite value after rounding, or infinite: with saturate, +-max;
 *    without, +-inf for e5m2 and NaN for e4m3fn, e4m3fnuz and e5m2fnuz;
 *  - NaN: the type's NaN (e4m3fn and e5m2 keep the sign: 0x7f | sign);
 *  - fnuz types have no negative zero: -0 and negative values rounding to 0 give 0x00;
 *  - float4/float6 have neither NaN nor infinity: they always saturate, and NaN gives +max
 *    (what ONNX specifies for float4e2m1 in its technical note float4.md).
 * x is taken exactly (a double that is not a float32 is rounded once, from its exact value).
 */
uint8_t qref_small_from(qcf_dtype t, double x, int saturate);

/* float8 e8m0 (no sign, no zero): 2^(c - 127), 0xff NaN. */
float qref_e8m0_to_f32(uint8_t c);
/*
 * x to e8m0, as ONNX's Cast with round_mode (opset 24): the nearest power of two with the
 * tie at 1.5 * 2^e rounding up (QREF_E8M0_UP, the default, and QREF_E8M0_NEAREST) or down
 * (QREF_E8M0_DOWN), as ONNX Runtime's Float8E8M0 (include/onnxruntime/core/common/float8.h).
 * Out of range (zero, negative, -inf, float32 subnormals; beyond 2^127, +inf): with saturate
 * 0x00 or 0xfe (a subnormal gives 0x00 or 0x01, nearest), without it NaN; NaN: 0xff.
 */
typedef enum { QREF_E8M0_UP, QREF_E8M0_DOWN, QREF_E8M0_NEAREST } qref_e8m0_round;
uint8_t qref_e8m0_from(double x, int saturate, qref_e8m0_round mode);

/* Channel of element i for a per-axis quantization along axis (0 if per-tensor). */
int32_t qref_channel(const qcf_tensor *t, const qcf_quant *q, size_t i);

#endif
