/*
 * gemmlowp-style fixed-point building blocks and LiteRT lookup tables used
 * by the LiteRT activation kernels (reference/litert_activations.c).
 *
 * Restated from gemmlowp
 * fixedpoint/fixedpoint.h and LiteRT tflite/kernels/internal/common.h,
 * reference/integer_ops/{logistic,tanh}.h), where every function was
 * checked bit for bit against TFLM's kernel outputs. Raw values are int32;
 * Q[i] means raw r stands for r / 2^(31 - i). Additions and subtractions
 * wrap modulo 2^32 as gemmlowp's plain int32 arithmetic does.
 */
#ifndef QREF_FIXEDPOINT_H
#define QREF_FIXEDPOINT_H

#include <stdint.h>

/* a + b, a - b modulo 2^32 (no signed overflow). */
int32_t qfp_add(int32_t a, int32_t b);
int32_t qfp_sub(int32_t a, int32_t b);

/* Leading zeros of (uint32_t)x; 32 for 0. */
int qfp_clz32(int32_t x);

/* SaturatingShiftLeft / SaturatingRoundingMultiplyByPOT for e >= 0:
 * x * 2^e, saturated to int32. */
int32_t qfp_satshl(int32_t x, int e);

/* RoundingHalfSum: (a + b) / 2, ties away from zero. */
int32_t qfp_rhs(int32_t a, int32_t b);

/* exp(a) for a in Q[0], a in [-1/4, 0): result Q[0]. */
int32_t qfp_expq(int32_t a);

/* exp(a) for a <= 0 in Q[i] (1 <= i <= 30): result Q[0]. */
int32_t qfp_expneg(int32_t a, int i);

/* Newton-Raphson core: 2 / (1 + a) in Q[2] for a in Q[0], [0, 1). */
int32_t qfp_nr(int32_t a);

/* 1 / (1 + a) and (1 - a) / (1 + a) for a in Q[0], [0, 1): Q[0]. */
int32_t qfp_recip1p(int32_t a);
int32_t qfp_omxopx(int32_t a);

/* logistic(a), tanh(a) for a in Q[i]: Q[0]. */
int32_t qfp_logistic(int32_t a, int i);
int32_t qfp_tanh(int32_t a, int i);

/* log(z) for z >= 1 in Q[12]: Q[5]. */
int32_t qfp_logq(int32_t z);

/* CheckedLog2 (LiteRT common.h): *log2 = round(log2 x) (float math) and
 * returns 1 when x is a power of two to within 1e-3 in log2. */
int qfp_checked_log2(float x, int *log2);

/* LUT8 (float math): table[v + 128] = clamp(RA(f(s_in * (v - zp_in)) * (1 / s_out)) + zp_out)
 * for every int8 v. Where RA(...) + zp_out is NaN or outside int32, LiteRT's conversion to
 * int32 is undefined: undefined[v + 128] = 1 there (when undefined is not NULL) and the table
 * holds the saturated value. Returns the number of such entries. */
typedef float (*qfp_fn_f)(float);
int qfp_lut8(qfp_fn_f f, float s_in, int32_t zp_in, float s_out, int32_t zp_out, int8_t table[256],
             uint8_t undefined[256]);

/* LUT16 in double (LiteRT's build of the int16 softmax tables): 513 entries. */
typedef double (*qfp_fn_d)(double);
void qfp_lut16(qfp_fn_d f, double s_in, int32_t zp_in, double s_out, int32_t zp_out,
               int16_t lut[513]);

/* Linear interpolation in a LUT16 (LiteRT LUTLookup for int16). */
int16_t qfp_lookup16(int16_t v, const int16_t lut[513]);

/* sigmoid(i / 24) in Q0.16, 256 entries: the int16 LOGISTIC / TANH table. */
extern const uint16_t qfp_sigmoid_table[256];

/* int16 LOGISTIC / TANH after the input scaling: v = scaled input. */
int16_t qfp_logistic16(int32_t v);
int16_t qfp_tanh16(int32_t v);

/* GetInvSqrtQuantizedMultiplierExp(A, reverse_shift -1) (LiteRT common.h): 1 / sqrt(A) =
 * m * 2^(shift - 31), by five Newton-Raphson steps in Q[3]; A <= 1 gives (2^31 - 1, 0). Used by
 * L2_NORMALIZATION and the int8 RSQRT. */
void qfp_inv_sqrt(int32_t A, int32_t *m, int *shift);

#endif
