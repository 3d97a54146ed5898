#include "requant.h"

#include <math.h>

/* v modulo 2^32 as int32, without implementation-defined conversions. */
static int32_t wrap32(uint64_t v)
{
	uint32_t u = (uint32_t)v;
	if (u <= (uint32_t)INT32_MAX)
		return (int32_t)u;
	return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

qref_rounding qref_requant_build(qref_rounding rounding)
{
	return rounding == QREF_ROUND_SINGLE ? QREF_ROUND_SINGLE : QREF_ROUND_DOUBLE;
}

int64_t qref_asr64(int64_t v, int n)
{
	/* for v < 0, ~v = -v - 1 >= 0 and ~(~v >> n) = floor(v / 2^n) */
	return v >= 0 ? v >> n : ~(~v >> n);
}

void qref_quantize_multiplier(double d, qref_rounding rounding, int32_t *multiplier, int *shift)
{
	if (d == 0.0) {
		*multiplier = 0;
		*shift = 0;
		return;
	}
	int e;
	double q = frexp(d, &e);                       /* |q| in [0.5, 1) */
	int64_t qf = (int64_t)round(q * 2147483648.0); /* ties away from zero */
	if (qf == INT64_C(2147483648)) {
		qf /= 2;
		e++;
	}
	if (e < -31) {
		e = 0;
		qf = 0;
	}
	if (rounding == QREF_ROUND_SINGLE && e > 30) {
		e = 30;
		qf = INT32_MAX;
	}
	*multiplier = (int32_t)qf;
	*shift = e;
}

int32_t qref_srdhm(int32_t a, int32_t b)
{
	if (a == INT32_MIN && b == INT32_MIN)
		return INT32_MAX;
	int64_t ab = (int64_t)a * (int64_t)b;
	int64_t neg = ab < 0;
	/* nudge 2^30 for ab >= 0, 1 - 2^30 below, without a branch on the sign (it follows the
	 * data: a mispredicted branch per element costs more than the arithmetic) */
	int64_t nudge = (INT64_C(1) << 30) - neg * ((INT64_C(1) << 31) - 1);
	int64_t t = ab + nudge;
	/* t / 2^31 truncated toward zero (|t| < 2^62): the floor of t + 2^31 - 1 when t < 0 (t < 0
	 * exactly when ab < 0) */
	return (int32_t)qref_asr64(t + neg * ((INT64_C(1) << 31) - 1), 31);
}

int32_t qref_rdbpot(int32_t x, int exponent)
{
	int64_t mask = (INT64_C(1) << exponent) - 1;
	/* x mod 2^e in [0, mask], via unsigned arithmetic (well defined) */
	int64_t rem = (int64_t)((uint64_t)(int64_t)x & (uint64_t)mask);
	int64_t threshold = (mask >> 1) + (x < 0);
	/* x - rem is a multiple of 2^e: the arithmetic shift is the exact floor(x / 2^e) */
	int64_t q = qref_asr64((int64_t)x - rem, exponent);
	return (int32_t)(q + (rem > threshold));
}

int qref_mbqm_preshift_fits(int32_t x, int shift)
{
	if (shift <= 0)
		return 1;
	if (shift >= 31)
		return x == 0;
	int64_t v = (int64_t)x * (INT64_C(1) << shift);
	return v >= INT32_MIN && v <= INT32_MAX;
}

static int32_t preshift(int32_t x, int shift)
{
	return wrap32((uint64_t)(uint32_t)x << shift);
}

int64_t qref_mbqm_single_wide(int32_t x, int32_t multiplier, int shift)
{
	int total = 31 - shift;
	int64_t round_add = INT64_C(1) << (total - 1);
	return qref_asr64((int64_t)x * (int64_t)multiplier + round_add, total);
}

int32_t qref_mbqm(int32_t x, int32_t multiplier, int shift, qref_rounding rounding)
{
	if (rounding == QREF_ROUND_SINGLE)
		return wrap32((uint64_t)qref_mbqm_single_wide(x, multiplier, shift));
	int left = shift > 0 ? shift : 0;
	int right = shift > 0 ? 0 : -shift;
	return qref_rdbpot(qref_srdhm(preshift(x, left), multiplier), right);
}

int32_t qref_mbqm_gt1(int32_t x, int32_t multiplier, int shift, qref_rounding rounding)
{
	if (rounding == QREF_ROUND_SINGLE)
		return qref_mbqm(x, multiplier, shift, rounding);
	return qref_srdhm(preshift(x, shift), multiplier);
}

int32_t qref_mbqm_lt1(int32_t x, int32_t multiplier, int shift, qref_rounding rounding)
{
	if (rounding == QREF_ROUND_SINGLE)
		return qref_mbqm(x, multiplier, shift, rounding);
	return qref_rdbpot(qref_srdhm(x, multiplier), -shift);
}

int32_t qref_mbqm64(int64_t x, int32_t multiplier, int shift)
{
	int32_t rm = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
	int total = 15 - shift;
	int64_t round_add = INT64_C(1) << (total - 1);
	return wrap32((uint64_t)qref_asr64(x * (int64_t)rm + round_add, total));
}
