/*
 * Element access for every qcf_dtype, shared by the reference, the harness
 * and the stubs. Values travel as double: every integer dtype here (up to
 * int32, and int64 within 2^53) and every float dtype converts exactly.
 */
#ifndef QREF_DTYPE_H
#define QREF_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "qconform/plugin.h"

/* Number of elements of a shape (1 for rank 0). */
size_t qref_numel(int32_t rank, const int64_t *shape);

/* Element i as double (a GGML block type: its dequantized value, qref_ggml_get). */
double qref_get(const qcf_tensor *t, size_t i);

/* Stores v at element i. Integer dtypes: v must be integral and in range (not checked);
 * float16/bfloat16/float32: rounded to nearest, ties to even. */
void qref_set(qcf_tensor *t, size_t i, double v);

int qref_dtype_is_float(qcf_dtype t);
int qref_dtype_is_int(qcf_dtype t); /* integer types incl. bool, int4, uint4 */
/* Range of an integer dtype; returns 0 for float dtypes. */
int qref_dtype_range(qcf_dtype t, int64_t *min, int64_t *max);

const char *qref_dtype_name(qcf_dtype t);
qcf_dtype qref_dtype_parse(const char *name); /* QCF_DTYPE_INVALID if unknown */

float qref_f16_to_f32(uint16_t h);
uint16_t qref_f32_to_f16(float f); /* round to nearest even; NaN stays NaN */
float qref_bf16_to_f32(uint16_t h);
uint16_t qref_f32_to_bf16(float f); /* round to nearest even; NaN stays NaN */

/* Channel of element i for a per-axis quantization along axis (0 if per-tensor). */
int32_t qref_channel(const qcf_tensor *t, const qcf_quant *q, size_t i);

#endif
