/*
 * LiteRT integer requantization helpers: the one place they live.
 *
 * Semantics follow LiteRT/TFLM (tflite/kernels/internal/quantization_util.cc,
 * common.cc) and gemmlowp (fixedpoint/fixedpoint.h); in words in
 * specs/litert/OPERATORS.md ("Integer requantization"). Every function here is
 * portable C: no implementation-defined shifts of negative numbers, no
 * signed overflow. Where LiteRT relies on wrapping (the int32 pre-shift of
 * the double-rounding MBQM), the wrap is done explicitly in uint32.
 *
 * The `rounding` argument names the LiteRT build: QREF_ROUND_SINGLE is the
 * TFLITE_SINGLE_ROUNDING=1 build; QREF_ROUND_DOUBLE and QREF_ROUND_DEFAULT
 * are the default double-rounding build (DEFAULT maps to DOUBLE here), and
 * so is any other value (the QREF_ROUND_HALF_* roundings name no LiteRT
 * build: kernels refuse them before calling these helpers).
 */
#ifndef QREF_REQUANT_H
#define QREF_REQUANT_H

#include <stdint.h>

#include "qref.h"

/*
 * QuantizeMultiplier(d): d = m * 2^(shift - 31) with m in [2^30, 2^31 - 1].
 * d must be finite; d == 0 gives (0, 0). The mantissa is rounded half away
 * from zero; a mantissa rounding up to 2^31 is halved and shift incremented.
 * shift < -31 flushes to (0, 0) (d below about 2^-32). In the single-rounding
 * build (QREF_ROUND_SINGLE) shift > 30 saturates to (2^31 - 1, 30); the
 * double-rounding build keeps any shift. For d > 0 the result is m in
 * [2^30, 2^31 - 1] (or 0), shift in [-31, 1024].
 */
void qref_quantize_multiplier(double d, qref_rounding rounding, int32_t *multiplier, int *shift);

/*
 * gemmlowp SaturatingRoundingDoublingHighMul: round(a * b / 2^31), any int32
 * a, b. Ties go toward +infinity (+1.5 -> 2, -1.5 -> -1): the negative nudge
 * is 1 - 2^30 and the division truncates. a == b == INT32_MIN gives
 * INT32_MAX (the only overflow). Result in [INT32_MIN + 1, INT32_MAX].
 */
int32_t qref_srdhm(int32_t a, int32_t b);

/*
 * gemmlowp RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties
 * away from zero. exponent in [0, 31]; any int32 x.
 */
int32_t qref_rdbpot(int32_t x, int exponent);

/*
 * MultiplyByQuantizedMultiplier(x, m, shift) = x * m * 2^(shift - 31),
 * rounded as the LiteRT build does:
 *  - QREF_ROUND_DOUBLE or QREF_ROUND_DEFAULT (default build): RDBPOT(SRDHM(x * 2^max(shift, 0), m),
 *    max(-shift, 0)). shift in [-31, 31]. The pre-shift x * 2^shift wraps
 *    modulo 2^32 as LiteRT does in practice (it is outside LiteRT's
 *    contract: callers that care check it with qref_mbqm_preshift_fits).
 *  - QREF_ROUND_SINGLE (TFLITE_SINGLE_ROUNDING=1): (x * m + 2^(30 - shift))
 *    >> (31 - shift) in int64, ties toward +infinity. m >= 0, shift in
 *    [-31, 30]; a result outside int32 is narrowed modulo 2^32 (LiteRT only
 *    DCHECKs it; callers check with qref_mbqm_single_wide).
 */
int32_t qref_mbqm(int32_t x, int32_t multiplier, int shift, qref_rounding rounding);

/* QREF_ROUND_SINGLE for QREF_ROUND_SINGLE, else QREF_ROUND_DOUBLE: the
 * build a rounding argument selects. */
qref_rounding qref_requant_build(qref_rounding rounding);

/* 1 if x * 2^max(shift, 0) fits int32 (the double-rounding pre-shift does not
 * wrap); shift in [-31, 31]. */
int qref_mbqm_preshift_fits(int32_t x, int shift);

/* The single-rounding MBQM before narrowing to int32 (same domain). */
int64_t qref_mbqm_single_wide(int32_t x, int32_t multiplier, int shift);

/*
 * MultiplyByQuantizedMultiplierGreaterThanOne / SmallerThanOne (LiteRT
 * common.h). Double rounding: GT1 = SRDHM(x * 2^shift, m) with shift in
 * [0, 31] (pre-shift wraps as above); LT1 = RDBPOT(SRDHM(x, m), -shift) with
 * shift in [-31, 0]. Single rounding: both equal qref_mbqm.
 */
int32_t qref_mbqm_gt1(int32_t x, int32_t multiplier, int shift, qref_rounding rounding);
int32_t qref_mbqm_lt1(int32_t x, int32_t multiplier, int shift, qref_rounding rounding);

/*
 * int64-accumulator MultiplyByQuantizedMultiplier (16x8 kernels), the same
 * in both builds: the multiplier is reduced to 16 bits,
 * rm = m < 0x7FFF0000 ? (m + 2^15) >> 16 : 0x7FFF; then
 * (x * rm + 2^(14 - shift)) >> (15 - shift), ties toward +infinity, narrowed
 * to int32 modulo 2^32. Domain (LiteRT asserts): m >= 0, shift in [-31, 7],
 * x in [-2^47, 2^47).
 */
int32_t qref_mbqm64(int64_t x, int32_t multiplier, int shift);

/* Arithmetic right shift (floor division by 2^n), portable; n in [0, 63]. */
int64_t qref_asr64(int64_t v, int n);

#endif
