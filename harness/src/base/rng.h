/*
 * rng: a portable pseudo-random generator. The same seed gives the same
 * stream on every machine and compiler: only integer arithmetic, and for
 * the normal distribution a log and a cosine built from + - * / sqrt and
 * frexp, all of which IEEE 754 rounds the same everywhere (libm's log and
 * cos are not guaranteed to).
 *
 * Generator: xoshiro256** (Blackman and Vigna), its 256-bit state filled by
 * four outputs of splitmix64 started at the seed.
 */
#ifndef QC_RNG_H
#define QC_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct qc_rng {
	uint64_t s[4]; /* xoshiro256** state; never all zero */
} qc_rng;

/* splitmix64: adds 0x9e3779b97f4a7c15 to *state and returns the mixed value.
 * For *state == 0 the first output is 0xe220a8397b1dcdaf. */
uint64_t qc_splitmix64(uint64_t *state);

void qc_rng_seed(qc_rng *rng, uint64_t seed);
uint64_t qc_rng_next_u64(qc_rng *rng);

/* Uniform integer in [lo, hi] (inclusive; swapped if lo > hi), unbiased:
 * draws are rejected below 2^64 mod (hi - lo + 1). */
int64_t qc_rng_uniform_int(qc_rng *rng, int64_t lo, int64_t hi);

/* Uniform double in [0, 1): the top 53 bits of one draw times 2^-53. */
double qc_rng_uniform01(qc_rng *rng);

/* Normal deviate, Box-Muller with u1 = 1 - uniform01 in (0, 1] and
 * u2 = uniform01: mean + std * sqrt(-2 log u1) * cos(2 pi u2). Two draws per
 * call, no cached second value. */
double qc_rng_normal(qc_rng *rng, double mean, double std);

/* Seed for a named thing: FNV-1a 64 of the bytes of s, xor seed, then one
 * splitmix64 step (which adds the golden gamma and mixes). */
uint64_t qc_hash64(const char *s, uint64_t seed);
/* The same hash (without a seed) of n bytes. */
uint64_t qc_hash64_bytes(const void *data, size_t n);

/* Deterministic log, sin, cos (absolute error ~1e-15 for moderate |x|;
 * sin/cos reduce by pi/2 in two parts, accurate for |x| <= 1e5). */
double qc_det_log(double x);
double qc_det_sin(double x);
double qc_det_cos(double x);
/* cos(2 pi t) for t in [0, 1), reduced exactly (t * 4 is exact). */
double qc_det_cos_turns(double t);

#endif
