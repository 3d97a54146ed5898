/*
 * Named roundings (qref_rounding): names, and the exact rounding of a real
 * value to an integer with a chosen tie rule. Which op honours which
 * rounding is listed in qref.h; each kernel file applies it.
 */
#include <math.h>
#include <string.h>

#include "kernel.h"

static const char *const names[QREF_ROUND_COUNT] = {
        "default", "double", "single", "half_even", "half_away", "half_up", "half_down",
};

const char *qref_rounding_name(qref_rounding rounding)
{
	int r = (int)rounding;
	return r >= 0 && r < QREF_ROUND_COUNT ? names[r] : "unknown";
}

int qref_rounding_parse(const char *name)
{
	if (!name)
		return -1;
	for (int r = 0; r < QREF_ROUND_COUNT; r++)
		if (strcmp(names[r], name) == 0)
			return r;
	return -1;
}

qref_rounding qref_detail_rounding(const qref_detail *detail)
{
	return detail ? detail->rounding : QREF_ROUND_DEFAULT;
}

void qref_set_default_rounding(qref_detail *detail, qref_rounding rounding)
{
	if (detail)
		detail->default_rounding = rounding;
}

int qref_rounding_is_half(qref_rounding rounding)
{
	return rounding == QREF_ROUND_HALF_EVEN || rounding == QREF_ROUND_HALF_AWAY ||
	       rounding == QREF_ROUND_HALF_UP || rounding == QREF_ROUND_HALF_DOWN;
}

/*
 * a >= 0 finite, rounded to an integer; a tie goes up when tie_up (1), down
 * when 0, to even when -1. f = floor(a) and a - f are exact: for a < 1,
 * f = 0; for a >= 1, f is within [a / 2, a] (Sterbenz); for a >= 2^52,
 * a is an integer and a - f = 0.
 */
static double round_nonneg(double a, int tie_up)
{
	double f = floor(a);
	double frac = a - f;
	if (frac > 0.5)
		return f + 1.0;
	if (frac < 0.5)
		return f;
	if (tie_up < 0)
		tie_up = fmod(f, 2.0) != 0.0; /* f < 2^52 here: exact */
	return tie_up ? f + 1.0 : f;
}

double qref_round_half(double v, qref_rounding rounding)
{
	if (!isfinite(v))
		return v;
	/* magnitude first, so that every subtraction is exact; the tie rule in
	 * terms of |v|: up (toward +inf) moves away from zero for v >= 0 and
	 * toward zero for v < 0; down the reverse */
	int neg = signbit(v) != 0;
	int tie_up;
	switch (rounding) {
	case QREF_ROUND_HALF_AWAY: tie_up = 1; break;
	case QREF_ROUND_HALF_UP: tie_up = !neg; break;
	case QREF_ROUND_HALF_DOWN: tie_up = neg; break;
	default: tie_up = -1; break; /* half_even */
	}
	double r = round_nonneg(neg ? -v : v, tie_up);
	return neg ? -r : r; /* -0.0 for v in (-0.5, 0], as nearbyint gives */
}

qcf_status qref_rounding_na(const qcf_op_call *call, qref_detail *detail, qref_rounding rounding,
                            const char *what)
{
	return qref_fail(detail, QCF_NOT_SUPPORTED,
	                 "%s: rounding '%s' does not apply (it rounds %s)",
	                 call->op ? call->op : "(null)", qref_rounding_name(rounding), what);
}

qcf_status qref_no_rounding(const qcf_op_call *call, qref_detail *detail, const char *what)
{
	qref_rounding r = qref_detail_rounding(detail);
	return r == QREF_ROUND_DEFAULT ? QCF_OK : qref_rounding_na(call, detail, r, what);
}
