#include "requant.h"

#include <math.h>

qref_rounding qref_requant_build(qref_rounding rounding)
{
	return rounding == QREF_ROUND_SINGLE ? QREF_ROUND_SINGLE : QREF_ROUND_DOUBLE;
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

int32_t qref_mbqm_gt1(int32_t x, int32_t multiplier, int shift, qref_rounding rounding)
{
	if (rounding == QREF_ROUND_SINGLE)
		return qref_mbqm(x, multiplier, shift, rounding);
	return qref_srdhm(qref_preshift32(x, shift), multiplier);
}

int32_t qref_mbqm_lt1(int32_t x, int32_t multiplier, int shift, qref_rounding rounding)
{
	if (rounding == QREF_ROUND_SINGLE)
		return qref_mbqm(x, multiplier, shift, rounding);
	return qref_rdbpot(qref_srdhm(x, multiplier), -shift);
}
