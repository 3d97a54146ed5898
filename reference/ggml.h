/*
 * GGML's block quantization formats (llama.cpp's ggml), as the reference computes them:
 * Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1 (blocks of 32) and Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K
 * (super-blocks of 256). The layouts are plugin.h's (ggml-common.h's structs, packed,
 * little-endian). The arithmetic follows ggml's scalar reference path (ggml/src/ggml-quants.c:
 * quantize_row_*_ref, dequantize_row_*; ggml/src/ggml-cpu/quants.c: ggml_vec_dot_*_generic),
 * step by step in float32, fp16 conversions rounded to nearest even; specs/ggml/OPERATORS.md
 * describes every format and op.
 */
#ifndef QREF_GGML_H
#define QREF_GGML_H

#include <stddef.h>
#include <stdint.h>

#include "qconform/plugin.h"

/* 1 for the twelve GGML block dtypes. */
int qref_ggml_is_block(qcf_dtype t);

/*
 * Quantizes n floats (n a multiple of the block) into n / block blocks of type t at dst, as
 * ggml's quantize_row_<t>_ref does (no importance matrix). 0, or -1 for another dtype or n.
 */
int qref_ggml_quantize_row(qcf_dtype t, const float *x, void *dst, size_t n);

/* Element j (0 <= j < block) of one block of type t, as dequantize_row_<t> computes it
 * (Q8_1, which ggml never dequantizes: d * q). */
float qref_ggml_block_value(qcf_dtype t, const void *block, int j);

/* The quantization step of element j of a block: |the float32 factor dequantize_row_<t>
 * multiplies its integer by| (d, d * sub-block scale); 0 when that factor is 0. */
double qref_ggml_block_step(qcf_dtype t, const void *block, int j);

/* Dequantizes n elements (whole blocks) of type t into y. 0, or -1 for another dtype or n. */
int qref_ggml_dequantize_row(qcf_dtype t, const void *src, float *y, size_t n);

/* The activation type ggml's vec_dot pairs weights of type t with (type_traits_cpu
 * vec_dot_type): Q8_0 for Q4_0, Q5_0, Q8_0; Q8_1 for Q4_1, Q5_1; Q8_K for the K-quants.
 * QCF_DTYPE_INVALID for Q8_1 and Q8_K (ggml has no vec_dot with them as weights). */
qcf_dtype qref_ggml_vec_dot_type(qcf_dtype t);

/*
 * ggml_vec_dot_<t>_<vec_dot_type>_generic over n elements (whole blocks): w holds n elements
 * of type t, a n elements of qref_ggml_vec_dot_type(t). *bound (when not NULL) receives an
 * upper bound of |result - result of any other order and association of the same float
 * products and sums| (see ggml.c, "Summation order"). Returns the float32 result.
 */
float qref_ggml_vec_dot(qcf_dtype t, size_t n, const void *w, const void *a, double *bound);

/* Element i of tensor t (a GGML dtype): its dequantized value (qref_get for GGML dtypes). */
double qref_ggml_get(const qcf_tensor *t, size_t i);

/*
 * The comparison of a GGML-typed output element (harness/src/judge/compare.c): element i of
 * got against element i of expected (same dtype and shape), in steps of expected's step of
 * element i (qref_ggml_block_step): (value_got - value_expected) / step; where that step is
 * 0, in float32 ULP of the expected value. A block field that no element's value shows (Q8_1's
 * s, Q8_K's bsums) is part of the elements it covers: when it differs from expected's, every
 * element it covers is off by at least one step (its sign that of got - expected). 0 when the
 * values and fields agree; NAN when exactly one value is not finite.
 */
double qref_ggml_error(const qcf_tensor *expected, const qcf_tensor *got, size_t i);

/*
 * Fills tensor t of a GGML dtype from float values x (one per element, row-major; the last
 * dimension a multiple of the block): each row quantized as qref_ggml_quantize_row does. For
 * the harness's input generators. 0, or -1 (not a GGML dtype, a bad shape or buffer).
 */
int qref_ggml_fill(qcf_tensor *t, const float *x);

#endif
