#include "base/rng.h"

#include <math.h>

uint64_t qc_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

void qc_rng_seed(qc_rng *rng, uint64_t seed)
{
	uint64_t st = seed;
	for (int i = 0; i < 4; i++)
		rng->s[i] = qc_splitmix64(&st);
	if (!(rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]))
		rng->s[0] = 1; /* the one state xoshiro cannot leave */
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t qc_rng_next_u64(qc_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Two's complement reinterpretation without implementation-defined casts. */
static int64_t u2i(uint64_t u)
{
	return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

int64_t qc_rng_uniform_int(qc_rng *rng, int64_t lo, int64_t hi)
{
	if (lo > hi) {
		int64_t t = lo;
		lo = hi;
		hi = t;
	}
	uint64_t span = (uint64_t)hi - (uint64_t)lo; /* hi - lo, modulo 2^64 */
	if (span == UINT64_MAX)
		return u2i(qc_rng_next_u64(rng));
	uint64_t n = span + 1;
	uint64_t reject = (0 - n) % n; /* 2^64 mod n */
	uint64_t x;
	do
		x = qc_rng_next_u64(rng);
	while (x < reject);
	return u2i((uint64_t)lo + x % n);
}

double qc_rng_uniform01(qc_rng *rng)
{
	return (double)(qc_rng_next_u64(rng) >> 11) * 0x1p-53;
}

/* ln 2 in two parts; the high part has 32 bits so e * LN2_HI is exact. */
#define LN2_HI 0x1.62e42feep-1
#define LN2_LO 0x1.a39ef35793c76p-33

double qc_det_log(double x)
{
	if (isnan(x) || x < 0)
		return NAN;
	if (x == 0)
		return -INFINITY;
	if (isinf(x))
		return x;
	int e;
	double m = frexp(x, &e);        /* x = m * 2^e, m in [0.5, 1) */
	if (m < 0x1.6a09e667f3bcdp-1) { /* sqrt(1/2): bring m into [0.707, 1.414) */
		m *= 2;
		e--;
	}
	/* log m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), |s| <= 0.1716 */
	double s = (m - 1) / (m + 1);
	double s2 = s * s;
	double p = 0;
	for (int k = 13; k >= 1; k--)
		p = 1.0 / (2 * k + 1) + s2 * p;
	double logm = 2 * s + 2 * s * (s2 * p);
	return e * LN2_HI + (logm + e * LN2_LO);
}

/* sin r and cos r for |r| <= pi/4: Taylor series in nested (Horner) form. */
static double sin_kernel(double r)
{
	double r2 = r * r, p = 1;
	for (int j = 10; j >= 1; j--)
		p = 1 - r2 / ((2.0 * j) * (2.0 * j + 1)) * p;
	return r * p;
}

static double cos_kernel(double r)
{
	double r2 = r * r, p = 1;
	for (int j = 10; j >= 1; j--)
		p = 1 - r2 / ((2.0 * j - 1) * (2.0 * j)) * p;
	return p;
}

/* sin or cos (want_cos) of k * pi/2 + r. */
static double quadrant(int64_t k, double r, int want_cos)
{
	int q = (int)(((k % 4) + 4) % 4);
	if (!want_cos)
		q = (q + 3) % 4; /* sin(x) = cos(x - pi/2) */
	switch (q) {
	case 0: return cos_kernel(r);
	case 1: return -sin_kernel(r);
	case 2: return -cos_kernel(r);
	default: return sin_kernel(r);
	}
}

/* pi/2 = PIO2_HI + PIO2_LO; PIO2_HI has 33 bits, so k * PIO2_HI is exact for |k| < 2^20. */
#define PIO2_HI     0x1.921fb544p0
#define PIO2_LO     0x1.0b4611a626331p-34
#define PIO2        0x1.921fb54442d18p0
#define TWO_OVER_PI 0x1.45f306dc9c883p-1

static double trig(double x, int want_cos)
{
	if (isnan(x) || isinf(x))
		return NAN;
	double k = floor(x * TWO_OVER_PI + 0.5);
	double r = (x - k * PIO2_HI) - k * PIO2_LO;
	return quadrant((int64_t)k, r, want_cos);
}

double qc_det_sin(double x)
{
	return trig(x, 0);
}

double qc_det_cos(double x)
{
	return trig(x, 1);
}

double qc_det_cos_turns(double t)
{
	double t4 = t * 4;          /* exact */
	double k = floor(t4 + 0.5); /* nearest quadrant */
	double r = (t4 - k) * PIO2; /* t4 - k exact, |r| <= pi/4 */
	return quadrant((int64_t)k, r, 1);
}

double qc_rng_normal(qc_rng *rng, double mean, double std)
{
	double u1 = 1 - qc_rng_uniform01(rng); /* (0, 1]: log is finite */
	double u2 = qc_rng_uniform01(rng);
	double z = sqrt(-2 * qc_det_log(u1)) * qc_det_cos_turns(u2);
	return mean + std * z;
}

uint64_t qc_hash64_bytes(const void *data, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++) {
		h ^= ((const unsigned char *)data)[i];
		h *= 0x100000001b3u;
	}
	return qc_splitmix64(&h);
}

uint64_t qc_hash64(const char *s, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64 offset basis */
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		h ^= *p;
		h *= 0x100000001b3u; /* FNV 64 prime */
	}
	h ^= seed;
	return qc_splitmix64(&h);
}
