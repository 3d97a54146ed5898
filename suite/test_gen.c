/* Tests for harness/src/base/rng.c, harness/src/spec/gen.c and gen_requant.c. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "qct.h"
#include "reference/dtype.h"
#include "reference/requant.h"
#include "spec/gen.h"

/* ---- the generator ------------------------------------------------------- */

/* First outputs of qc_rng seeded with 1 (recorded; see test_rng_independent). */
static const uint64_t seed1_golden[4] = {0xb3f2af6d0fc710c5u, 0x853b559647364ceau,
                                         0x92f89756082a4514u, 0x642e1c7bc266a3a7u};

static void test_splitmix(void)
{
	/* published splitmix64 outputs for seed 0 */
	uint64_t st = 0;
	CU_ASSERT_EQUAL(qc_splitmix64(&st), 0xe220a8397b1dcdafu);
	CU_ASSERT_EQUAL(qc_splitmix64(&st), 0x6e789e6aa1b965f4u);
	CU_ASSERT_EQUAL(qc_splitmix64(&st), 0x06c45d188009454fu);
	CU_ASSERT_EQUAL(qc_splitmix64(&st), 0xf88bb8a8724c81ecu);
}

static void test_xoshiro_small_state(void)
{
	/* by hand from the definition: out = rotl(s1 * 5, 7) * 9 */
	qc_rng r = {{1, 2, 3, 4}};
	CU_ASSERT_EQUAL(qc_rng_next_u64(&r), 11520u); /* rotl(10, 7) * 9 */
	CU_ASSERT_EQUAL(qc_rng_next_u64(&r), 0u);     /* s1 became 2 ^ 2 */
	CU_ASSERT_EQUAL(qc_rng_next_u64(&r), 1509978240u);
	CU_ASSERT_EQUAL(qc_rng_next_u64(&r), 1215971899390074240u);
}

/* A second, independent transcription of splitmix64 + xoshiro256**. */
static uint64_t ind_rotl(uint64_t x, unsigned k)
{
	return x << k | x >> (64 - k);
}

static void test_rng_independent(void)
{
	uint64_t s[4], x = 1;
	for (int i = 0; i < 4; i++) {
		x += 0x9e3779b97f4a7c15u;
		uint64_t z = x;
		z ^= z >> 30;
		z *= 0xbf58476d1ce4e5b9u;
		z ^= z >> 27;
		z *= 0x94d049bb133111ebu;
		s[i] = z ^ z >> 31;
	}
	qc_rng r;
	qc_rng_seed(&r, 1);
	for (int i = 0; i < 1000; i++) {
		uint64_t want = ind_rotl(s[1] * 5, 7) * 9;
		uint64_t s0 = s[0], s1 = s[1], s2 = s[2] ^ s0, s3 = s[3] ^ s1;
		s[0] = s0 ^ s3;
		s[1] = s1 ^ s2;
		s[2] = s2 ^ (s1 << 17);
		s[3] = ind_rotl(s3, 45);
		uint64_t got = qc_rng_next_u64(&r);
		if (i < 4)
			CU_ASSERT_EQUAL(got, seed1_golden[i]);
		if (got != want) {
			CU_FAIL("stream differs from the independent derivation");
			break;
		}
	}
}

static void test_hash(void)
{
	CU_ASSERT_EQUAL(qc_hash64("ADD/int8/case0", 42), 0x46467e40f3d17192u);
	CU_ASSERT_NOT_EQUAL(qc_hash64("ADD/int8/case0", 43), qc_hash64("ADD/int8/case0", 42));
	CU_ASSERT_NOT_EQUAL(qc_hash64("ADD/int8/case1", 42), qc_hash64("ADD/int8/case0", 42));
	/* empty name: FNV basis ^ seed, one splitmix step */
	uint64_t st = 0xcbf29ce484222325u ^ 7;
	CU_ASSERT_EQUAL(qc_hash64("", 7), qc_splitmix64(&st));
}

static void test_uniform_int(void)
{
	qc_rng r;
	qc_rng_seed(&r, 99);
	long count[7] = {0};
	const int N = 70000;
	for (int i = 0; i < N; i++) {
		int64_t v = qc_rng_uniform_int(&r, -3, 3);
		CU_ASSERT_FATAL(v >= -3 && v <= 3);
		count[v + 3]++;
	}
	for (int k = 0; k < 7; k++) /* expected 10000, sd ~93 */
		CU_ASSERT(labs(count[k] - 10000) < 500);
	CU_ASSERT_EQUAL(qc_rng_uniform_int(&r, 5, 5), 5);
	int64_t v = qc_rng_uniform_int(&r, 3, -3); /* swapped */
	CU_ASSERT(v >= -3 && v <= 3);
	v = qc_rng_uniform_int(&r, INT64_MIN, INT64_MAX);
	(void)v;
	/* unbiased: n = 3 * 2^62; plain modulo would put half the draws below 2^62 */
	const int64_t h3 = 3 * ((int64_t)1 << 61); /* [-h3, h3 - 1] holds 3 * 2^62 values */
	long low = 0;
	for (int i = 0; i < 30000; i++)
		low += qc_rng_uniform_int(&r, -h3, h3 - 1) < -h3 + ((int64_t)1 << 62);
	CU_ASSERT(fabs(low / 30000.0 - 1.0 / 3) < 0.02);
	/* int8 range: every value reachable */
	int seen[256] = {0};
	for (int i = 0; i < 20000; i++)
		seen[qc_rng_uniform_int(&r, -128, 127) + 128] = 1;
	for (int k = 0; k < 256; k++)
		CU_ASSERT(seen[k]);
}

static void test_uniform01_normal(void)
{
	qc_rng r;
	qc_rng_seed(&r, 5);
	double sum = 0;
	for (int i = 0; i < 100000; i++) {
		double u = qc_rng_uniform01(&r);
		CU_ASSERT_FATAL(u >= 0 && u < 1);
		sum += u;
	}
	CU_ASSERT(fabs(sum / 100000 - 0.5) < 0.005);
	const double means[2] = {0, 3}, stds[2] = {1, 2};
	for (int c = 0; c < 2; c++) {
		double s1 = 0, s2 = 0;
		const int N = 100000;
		for (int i = 0; i < N; i++) {
			double z = qc_rng_normal(&r, means[c], stds[c]);
			CU_ASSERT_FATAL(isfinite(z));
			s1 += z;
			s2 += z * z;
		}
		double m = s1 / N, sd = sqrt(s2 / N - m * m);
		CU_ASSERT(fabs(m - means[c]) < 0.02 * stds[c]);
		CU_ASSERT(fabs(sd - stds[c]) < 0.02 * stds[c]);
	}
}

static void test_det_math(void)
{
	double worst = 0;
	/* log: relative to max(1, |log x|) */
	const double xs[] = {1,
	                     2,
	                     0.5,
	                     10,
	                     1e-300,
	                     1e300,
	                     0x1p-1074,
	                     1 + 1e-10,
	                     1 - 1e-10,
	                     0.7071067811865476,
	                     1.4142135623730951,
	                     3.141592653589793,
	                     DBL_MAX};
	for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
		double e = fabs(qc_det_log(xs[k]) - log(xs[k])) / fmax(1, fabs(log(xs[k])));
		worst = fmax(worst, e);
	}
	qc_rng r;
	qc_rng_seed(&r, 11);
	for (int i = 0; i < 100000; i++) {
		double x = ldexp(0.5 + qc_rng_uniform01(&r), (int)qc_rng_uniform_int(&r, -60, 60));
		double e = fabs(qc_det_log(x) - log(x)) / fmax(1, fabs(log(x)));
		worst = fmax(worst, e);
		double u = 1 - qc_rng_uniform01(&r); /* Box-Muller's domain */
		worst = fmax(worst, fabs(qc_det_log(u) - log(u)));
	}
	CU_ASSERT(worst < 1e-12);
	CU_ASSERT_EQUAL(qc_det_log(1), 0);
	CU_ASSERT(isinf(qc_det_log(0)) && qc_det_log(0) < 0);
	CU_ASSERT(isnan(qc_det_log(-1)));
	worst = 0;
	for (int i = 0; i < 100000; i++) {
		double x = (qc_rng_uniform01(&r) - 0.5) * 200;
		worst = fmax(worst, fabs(qc_det_cos(x) - cos(x)));
		worst = fmax(worst, fabs(qc_det_sin(x) - sin(x)));
		double t = qc_rng_uniform01(&r);
		worst = fmax(worst, fabs(qc_det_cos_turns(t) - cos(2 * M_PI * t)));
	}
	CU_ASSERT(worst < 1e-12);
	CU_ASSERT_EQUAL(qc_det_cos(0), 1);
	CU_ASSERT_EQUAL(qc_det_cos_turns(0), 1);
	CU_ASSERT_EQUAL(qc_det_cos_turns(0.5), -1);
	CU_ASSERT_EQUAL(qc_det_cos_turns(0.25), 0);
}

/* ---- tensors ------------------------------------------------------------- */

/* A tensor with heap-allocated shape and data (safe to copy by value). */
typedef struct tbuf {
	qcf_tensor t;
	int64_t *shape;
	void *data;
} tbuf;

static void tb_init(tbuf *b, qcf_dtype dt, int rank, const int64_t *shape)
{
	memset(b, 0, sizeof *b);
	b->shape = malloc(QCF_MAX_RANK * sizeof *shape);
	memcpy(b->shape, shape, (size_t)rank * sizeof *shape);
	size_t n = qref_numel(rank, shape);
	size_t nb = qcf_dtype_nbytes(dt, n);
	b->data = calloc(1, nb ? nb : 1);
	b->t = (qcf_tensor){sizeof(qcf_tensor), "t", dt, rank, b->shape, b->data, nb, NULL};
}

static void tb_free(tbuf *b)
{
	free(b->data);
	free(b->shape);
}

static tbuf vec(qcf_dtype dt, int64_t n)
{
	tbuf b;
	tb_init(&b, dt, 1, &n);
	return b;
}

/* The edge list of a per-tensor grid: fill a tensor as long as the list. */
static size_t edge_list(const qc_grid *g, qcf_dtype dt, uint64_t seed, double **out)
{
	tbuf probe = vec(dt, 1);
	size_t len = qc_gen_edges_count(g, &probe.t);
	tb_free(&probe);
	tbuf b = vec(dt, (int64_t)len);
	qc_rng r;
	qc_rng_seed(&r, seed);
	qc_gen gen = {.kind = QC_GEN_EDGES};
	char err[256];
	CU_ASSERT_EQUAL(qc_gen_fill(&gen, &r, 0, g, &b.t, err, sizeof err), 0);
	*out = malloc((len ? len : 1) * sizeof **out);
	for (size_t i = 0; i < len; i++)
		(*out)[i] = qref_get(&b.t, i);
	tb_free(&b);
	return len;
}

/* Exact membership, telling 0.0 from -0.0 and matching NaN. */
static int has_val(const double *v, size_t n, double x)
{
	for (size_t i = 0; i < n; i++) {
		if (isnan(x) ? isnan(v[i]) : (v[i] == x && signbit(v[i]) == signbit(x)))
			return 1;
	}
	return 0;
}

static void test_edges_float32(void)
{
	const float s = 0.1f;
	const int32_t zp = 3;
	qcf_quant q = {sizeof q, -1, 1, &s, &zp, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	for (int nonfinite = 0; nonfinite <= 1; nonfinite++) {
		qc_grid g = {&q, -128, 127, nonfinite, QCF_DTYPE_INVALID};
		double *v;
		size_t n = edge_list(&g, QCF_FLOAT32, 1, &v);
		CU_ASSERT(n >= 257 * 3 + 16);
		int missing = 0;
		for (int64_t k = -128 - zp - 1; k <= 127 - zp; k++) {
			float tie = (float)(((double)k + 0.5) * (double)s);
			missing += !has_val(v, n, tie);
			missing += !has_val(v, n, nextafterf(tie, -INFINITY));
			missing += !has_val(v, n, nextafterf(tie, INFINITY));
		}
		CU_ASSERT_EQUAL(missing, 0);
		float lo = (float)((-128.0 - zp) * s), hi = (float)((127.0 - zp) * s);
		CU_ASSERT(has_val(v, n, lo) && has_val(v, n, hi));
		CU_ASSERT(has_val(v, n, nextafterf(lo, -INFINITY)) &&
		          has_val(v, n, nextafterf(hi, INFINITY)));
		CU_ASSERT(has_val(v, n, (float)((-128.0 - zp - 1e6) * s)));
		CU_ASSERT(has_val(v, n, (float)((127.0 - zp + 1e6) * s)));
		CU_ASSERT(has_val(v, n, 0.0) && has_val(v, n, -0.0));
		CU_ASSERT(has_val(v, n, 0x1p-149) && has_val(v, n, FLT_MAX) &&
		          has_val(v, n, -FLT_MAX));
		CU_ASSERT_EQUAL(has_val(v, n, NAN), nonfinite);
		CU_ASSERT_EQUAL(has_val(v, n, INFINITY), nonfinite);
		CU_ASSERT_EQUAL(has_val(v, n, -INFINITY), nonfinite);
		for (size_t i = 0; !nonfinite && i < n; i++)
			CU_ASSERT_FATAL(isfinite(v[i]));
		free(v);
	}
}

static void test_edges_reciprocal_tie(void)
{
	/* x * (1.0f / s) == 127.5 in float32 while x / s == 127.499992 */
	const float s = 0.00214854861f, x = 0.273939937f;
	const float inv = 1.0f / s;
	const float prod = x * inv, quot = x / s;
	CU_ASSERT_EQUAL(prod, 127.5f);
	CU_ASSERT_NOT_EQUAL(quot, 127.5f);
	const int32_t zp = 0;
	qcf_quant q = {sizeof q, -1, 1, &s, &zp, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid g = {&q, 0, 255, 0, QCF_DTYPE_INVALID};
	double *v;
	size_t n = edge_list(&g, QCF_FLOAT32, 1, &v);
	CU_ASSERT(has_val(v, n, x));
	free(v);
	/* every reciprocal tie within 4 ulps of a tie is listed, for assorted scales */
	qc_rng r;
	qc_rng_seed(&r, 3);
	int checked = 0, beyond_neighbours = 0;
	for (int c = 0; c < 40; c++) {
		float sc = (float)(0.0005 + qc_rng_uniform01(&r) * 0.01);
		int32_t z = (int32_t)qc_rng_uniform_int(&r, -20, 20);
		qcf_quant qq = {sizeof qq,        -1, 1, &sc, &z, NULL, 0, QCF_DTYPE_INVALID,
		                QCF_DTYPE_INVALID};
		qc_grid gg = {&qq, -128, 127, 0, QCF_DTYPE_INVALID};
		n = edge_list(&gg, QCF_FLOAT32, 1, &v);
		float iv = 1.0f / sc;
		for (int64_t k = -128 - z - 1; k <= 127 - z; k++) {
			float t = (float)(((double)k + 0.5) * (double)sc), y = t;
			for (int u = 0; u < 4; u++)
				y = nextafterf(y, -INFINITY);
			for (int u = -4; u <= 4; u++, y = nextafterf(y, INFINITY)) {
				float p = y * iv;
				if ((double)p != (double)k + 0.5)
					continue;
				checked++;
				beyond_neighbours += u < -1 || u > 1;
				CU_ASSERT(has_val(v, n, y));
			}
		}
		free(v);
	}
	CU_ASSERT(checked > 100);
	CU_ASSERT(beyond_neighbours > 0);
}

static void test_edges_float_zp_and_f16(void)
{
	/* float zero point: ties at (j + 0.5 - zp) * s */
	const float s = 0.25f, fz = 2.25f;
	const int32_t zp = 2;
	qcf_quant q = {sizeof q, -1, 1, &s, &zp, &fz, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid g = {&q, 0, 15, 0, QCF_DTYPE_INVALID};
	double *v;
	size_t n = edge_list(&g, QCF_FLOAT32, 1, &v);
	CU_ASSERT(has_val(v, n, (0 + 0.5 - 2.25) * 0.25));
	CU_ASSERT(has_val(v, n, (15 - 2.25) * 0.25));
	free(v);
	/* float16 tensor: values are float16 values, ties and neighbours in float16 */
	const float s16 = 0.1f;
	const int32_t z16 = 0;
	qcf_quant q16 = {sizeof q16,       -1, 1, &s16, &z16, NULL, 0, QCF_DTYPE_INVALID,
	                 QCF_DTYPE_INVALID};
	qc_grid g16 = {&q16, -8, 7, 1, QCF_DTYPE_INVALID};
	n = edge_list(&g16, QCF_FLOAT16, 1, &v);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT(isnan(v[i]) ||
		          (double)qref_f16_to_f32(qref_f32_to_f16((float)v[i])) == v[i]);
	CU_ASSERT(has_val(v, n, 65504.0) && has_val(v, n, 0x1p-24) && has_val(v, n, INFINITY));
	/* tie for k = 3: 3.5 * 0.1f = 0.35000000521540642, float16 0.35009765625 (0x359a) */
	CU_ASSERT(has_val(v, n, qref_f16_to_f32(0x359a)));
	CU_ASSERT(has_val(v, n, qref_f16_to_f32(0x3599)) && has_val(v, n, qref_f16_to_f32(0x359b)));
	free(v);
}

static void test_edges_wide_and_int(void)
{
	/* int16 grid on float32: a subset, both ends, around zero, rng picks */
	const float s = 0.001f;
	const int32_t zp = 5;
	qcf_quant q = {sizeof q, -1, 1, &s, &zp, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid g = {&q, -32768, 32767, 0, QCF_DTYPE_INVALID};
	double *v1, *v2, *v3;
	size_t n1 = edge_list(&g, QCF_FLOAT32, 1, &v1);
	size_t n2 = edge_list(&g, QCF_FLOAT32, 1, &v2);
	size_t n3 = edge_list(&g, QCF_FLOAT32, 2, &v3);
	CU_ASSERT(n1 == n2 && n1 == n3 && n1 < 2000);
	CU_ASSERT_EQUAL(memcmp(v1, v2, n1 * sizeof *v1), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(v1, v3, n1 * sizeof *v1), 0); /* picks differ */
	CU_ASSERT(has_val(v1, n1, (float)((-32768 - 5 - 0.5) * (double)s)));
	CU_ASSERT(has_val(v1, n1, (float)((32767 - 5 + 0.5) * (double)s)));
	CU_ASSERT(has_val(v1, n1, (float)(0.5 * (double)s)));
	CU_ASSERT(has_val(v1, n1, (float)(-0.5 * (double)s)));
	CU_ASSERT(has_val(v1, n1, (float)((1024 + 0.5) * (double)s)));
	free(v1);
	free(v2);
	free(v3);

	/* int8 tensor: every value once */
	qc_grid gi = {NULL, -128, 127, 0, QCF_DTYPE_INVALID};
	double *v;
	size_t n = edge_list(&gi, QCF_INT8, 1, &v);
	CU_ASSERT_EQUAL(n, 256);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(v[i], -128.0 + (double)i);
	free(v);
	/* int16 tensor: ends, zero point neighbourhood, powers of two */
	const int32_t z = 100;
	const float one = 1;
	qcf_quant qi = {sizeof qi, -1, 1, &one, &z, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid g16 = {&qi, -32767, 32767, 0, QCF_DTYPE_INVALID};
	n = edge_list(&g16, QCF_INT16, 1, &v);
	const double want[] = {-32768, -32767, -32766, 32766, 32767, 98,   99,    100,  101,
	                       102,    0,      1,      -1,    1024,  1023, -1024, -1025};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
		CU_ASSERT(has_val(v, n, want[k]));
	free(v);
	/* int4 packed: all 16 values, padding nibble zero */
	tbuf b = vec(QCF_INT4, 17);
	qc_rng r;
	qc_rng_seed(&r, 1);
	qc_gen gen = {.kind = QC_GEN_EDGES};
	char err[256];
	CU_ASSERT_EQUAL(qc_gen_fill(&gen, &r, 0, NULL, &b.t, err, sizeof err), 0);
	for (int i = 0; i < 17; i++)
		CU_ASSERT_EQUAL(qref_get(&b.t, (size_t)i), (double)(-8 + i % 16));
	CU_ASSERT_EQUAL(((uint8_t *)b.data)[8] >> 4, 0);
	tb_free(&b);
	/* int64 tensor: ends stored exactly */
	tbuf b64 = vec(QCF_INT64, 600);
	CU_ASSERT_EQUAL(qc_gen_fill(&gen, &r, 0, NULL, &b64.t, err, sizeof err), 0);
	int lo = 0, hi = 0;
	for (int i = 0; i < 600; i++) {
		lo |= ((int64_t *)b64.data)[i] == INT64_MIN;
		hi |= ((int64_t *)b64.data)[i] == INT64_MAX;
	}
	CU_ASSERT(lo && hi);
	tb_free(&b64);
}

static void test_edges_walk(void)
{
	/* a small tensor walks the whole list over qc_gen_edges_repeats repeats */
	const float s = 0.05f;
	const int32_t zp = -7;
	qcf_quant q = {sizeof q, -1, 1, &s, &zp, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid g = {&q, -128, 127, 1, QCF_DTYPE_INVALID};
	double *all;
	size_t len = edge_list(&g, QCF_FLOAT32, 1, &all);
	tbuf b = vec(QCF_FLOAT32, 10);
	CU_ASSERT_EQUAL(qc_gen_edges_count(&g, &b.t), len);
	uint64_t R = qc_gen_edges_repeats(&g, &b.t);
	CU_ASSERT_EQUAL(R, (len + 9) / 10);
	char *hit = calloc(len, 1);
	qc_gen gen = {.kind = QC_GEN_EDGES};
	char err[256];
	for (uint64_t rep = 0; rep < R; rep++) {
		qc_rng r;
		qc_rng_seed(&r, 1);
		CU_ASSERT_EQUAL_FATAL(qc_gen_fill(&gen, &r, rep, &g, &b.t, err, sizeof err), 0);
		for (size_t i = 0; i < 10; i++) {
			size_t k = (rep * 10 + i) % len; /* element i of repeat r */
			double x = qref_get(&b.t, i);
			CU_ASSERT(isnan(x) ? isnan(all[k]) : memcmp(&x, &all[k], sizeof x) == 0);
			hit[k] = 1;
		}
	}
	size_t covered = 0;
	for (size_t k = 0; k < len; k++)
		covered += hit[k];
	CU_ASSERT_EQUAL(covered, len);
	free(hit);
	free(all);
	tb_free(&b);
}

static void test_edges_per_axis(void)
{
	/* shape [3, 1000], axis 0: row c is channel c's own list */
	const float sc[3] = {0.1f, 0.02f, 0.5f};
	const int32_t zc[3] = {0, 10, -5};
	qcf_quant q = {sizeof q, 0, 3, sc, zc, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid g = {&q, -128, 127, 0, QCF_DTYPE_INVALID};
	tbuf b;
	tb_init(&b, QCF_FLOAT32, 2, (const int64_t[]){3, 1000});
	qc_rng r;
	qc_rng_seed(&r, 1);
	qc_gen gen = {.kind = QC_GEN_EDGES};
	char err[256];
	CU_ASSERT_EQUAL_FATAL(qc_gen_fill(&gen, &r, 0, &g, &b.t, err, sizeof err), 0);
	for (int c = 0; c < 3; c++) {
		const float *row = (const float *)b.data + 1000 * c;
		/* first entry: the tie below qmin, with this channel's scale and zero point */
		CU_ASSERT_EQUAL(row[0], (float)((-128 - 1 - zc[c] + 0.5) * (double)sc[c]));
		float lo = (float)((-128.0 - zc[c]) * sc[c]);
		int found = 0;
		for (int i = 0; i < 1000; i++)
			found |= row[i] == lo;
		CU_ASSERT(found);
	}
	tb_free(&b);
	/* axis 1 of [2, 3, 2]: channel of element i is (i / 2) % 3 */
	tb_init(&b, QCF_FLOAT32, 3, (const int64_t[]){2, 3, 2});
	qcf_quant q1 = {sizeof q1, 1, 3, sc, zc, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid g1 = {&q1, -128, 127, 0, QCF_DTYPE_INVALID};
	CU_ASSERT_EQUAL_FATAL(qc_gen_fill(&gen, &r, 0, &g1, &b.t, err, sizeof err), 0);
	/* the same elements equal the per-channel lists' first entries */
	for (size_t i = 0; i < 12; i++) {
		size_t c = (i / 2) % 3, p = (i / 6) * 2 + i % 2;
		float t = (float)((-129 - zc[c] + 0.5) * (double)sc[c]);
		if (p == 0)
			CU_ASSERT_EQUAL(((float *)b.data)[i], t);
		if (p == 1)
			CU_ASSERT_EQUAL(((float *)b.data)[i], nextafterf(t, -INFINITY));
	}
	CU_ASSERT_EQUAL(qc_gen_edges_repeats(&g1, &b.t), (qc_gen_edges_count(&g1, &b.t) + 3) / 4);
	/* axis and shape must agree */
	qcf_quant bad = {sizeof bad, 0, 3, sc, zc, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid gb = {&bad, -128, 127, 0, QCF_DTYPE_INVALID};
	CU_ASSERT_EQUAL(qc_gen_fill(&gen, &r, 0, &gb, &b.t, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "does not match tensor"));
	tb_free(&b);
}

static void test_reproducible(void)
{
	qc_gen gens[] = {
	        {.kind = QC_GEN_UNIFORM},
	        {.kind = QC_GEN_NORMAL, .mean = 0.5, .std = 2},
	        {.kind = QC_GEN_CHOICE, .values = (const double[]){-1, 0.5, 3}, .n_values = 3},
	        {.kind = QC_GEN_EDGES},
	};
	const qcf_dtype dts[] = {QCF_FLOAT32, QCF_FLOAT16, QCF_BFLOAT16, QCF_INT8, QCF_INT16};
	const float s = 0.01f;
	const int32_t zp = 1;
	qcf_quant q = {sizeof q, -1, 1, &s, &zp, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qc_grid g = {&q, -32768, 32767, 1, QCF_DTYPE_INVALID};
	char err[256];
	for (size_t k = 0; k < sizeof gens / sizeof gens[0]; k++) {
		for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
			if (gens[k].kind == QC_GEN_CHOICE && !qref_dtype_is_float(dts[d]))
				continue;
			tbuf a = vec(dts[d], 333), b = vec(dts[d], 333), c = vec(dts[d], 333);
			qc_rng ra, rb, rc;
			qc_rng_seed(&ra, 77);
			qc_rng_seed(&rb, 77);
			qc_rng_seed(&rc, 78);
			CU_ASSERT_EQUAL(qc_gen_fill(&gens[k], &ra, 0, &g, &a.t, err, sizeof err),
			                0);
			CU_ASSERT_EQUAL(qc_gen_fill(&gens[k], &rb, 0, &g, &b.t, err, sizeof err),
			                0);
			CU_ASSERT_EQUAL(qc_gen_fill(&gens[k], &rc, 0, &g, &c.t, err, sizeof err),
			                0);
			CU_ASSERT_EQUAL(memcmp(a.data, b.data, a.t.nbytes), 0);
			if (gens[k].kind != QC_GEN_EDGES || dts[d] == QCF_INT16)
				CU_ASSERT_NOT_EQUAL(memcmp(a.data, c.data, a.t.nbytes), 0);
			tb_free(&a);
			tb_free(&b);
			tb_free(&c);
		}
	}
	/* golden: the first uniform float32 values for seed 1 */
	tbuf u = vec(QCF_FLOAT32, 2);
	qc_rng r;
	qc_rng_seed(&r, 1);
	CU_ASSERT_EQUAL(qc_gen_fill(&gens[0], &r, 0, NULL, &u.t, err, sizeof err), 0);
	double u0 = (double)(seed1_golden[0] >> 11) * 0x1p-53,
	       u1 = (double)(seed1_golden[1] >> 11) * 0x1p-53;
	CU_ASSERT_EQUAL(((float *)u.data)[0], (float)(-1 + 2 * u0));
	CU_ASSERT_EQUAL(((float *)u.data)[1], (float)(-1 + 2 * u1));
	tb_free(&u);
}

static void test_kinds(void)
{
	qc_rng r;
	qc_rng_seed(&r, 9);
	char err[256];
	/* uniform int default range: the dtype's */
	tbuf b = vec(QCF_UINT8, 5000);
	qc_gen uni = {.kind = QC_GEN_UNIFORM};
	CU_ASSERT_EQUAL(qc_gen_fill(&uni, &r, 0, NULL, &b.t, err, sizeof err), 0);
	int lo0 = 0, hi255 = 0;
	for (size_t i = 0; i < 5000; i++) {
		lo0 |= ((uint8_t *)b.data)[i] == 0;
		hi255 |= ((uint8_t *)b.data)[i] == 255;
	}
	CU_ASSERT(lo0 && hi255);
	qc_gen uni2 = {.kind = QC_GEN_UNIFORM, .has_range = 1, .lo = 10, .hi = 12};
	CU_ASSERT_EQUAL(qc_gen_fill(&uni2, &r, 0, NULL, &b.t, err, sizeof err), 0);
	for (size_t i = 0; i < 5000; i++)
		CU_ASSERT(((uint8_t *)b.data)[i] >= 10 && ((uint8_t *)b.data)[i] <= 12);
	qc_gen bad = {.kind = QC_GEN_UNIFORM, .has_range = 1, .lo = 0, .hi = 300};
	CU_ASSERT_EQUAL(qc_gen_fill(&bad, &r, 0, NULL, &b.t, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not a uint8 value"));
	tb_free(&b);
	/* normal on int8: half to even, clamped */
	tbuf i8 = vec(QCF_INT8, 4);
	const double means[] = {2.5, 3.5, -0.5, 1000};
	const double want[] = {2, 4, 0, 127};
	for (int k = 0; k < 4; k++) {
		qc_gen n0 = {.kind = QC_GEN_NORMAL, .mean = means[k], .std = 0};
		CU_ASSERT_EQUAL(qc_gen_fill(&n0, &r, 0, NULL, &i8.t, err, sizeof err), 0);
		CU_ASSERT_EQUAL(qref_get(&i8.t, 0), want[k]);
	}
	qc_gen nbad = {.kind = QC_GEN_NORMAL, .mean = 0, .std = -1};
	CU_ASSERT_EQUAL(qc_gen_fill(&nbad, &r, 0, NULL, &i8.t, err, sizeof err), -1);
	/* sequence continues across repeats */
	const double seq[] = {1, 2, 3};
	qc_gen sq = {.kind = QC_GEN_SEQUENCE, .values = seq, .n_values = 3};
	tbuf s2 = vec(QCF_INT8, 2);
	CU_ASSERT_EQUAL(qc_gen_fill(&sq, &r, 1, NULL, &s2.t, err, sizeof err), 0);
	CU_ASSERT(qref_get(&s2.t, 0) == 3 && qref_get(&s2.t, 1) == 1);
	const double big[] = {1, 300};
	qc_gen cbad = {.kind = QC_GEN_CHOICE, .values = big, .n_values = 2};
	CU_ASSERT_EQUAL(qc_gen_fill(&cbad, &r, 0, NULL, &s2.t, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "value 300 is not a int8 value"));
	qc_gen cempty = {.kind = QC_GEN_CHOICE};
	CU_ASSERT_EQUAL(qc_gen_fill(&cempty, &r, 0, NULL, &s2.t, err, sizeof err), -1);
	tb_free(&s2);
	tb_free(&i8);
	/* float16 rounding is single: 1 + 2^-11 + 2^-40 is above the midpoint */
	tbuf h = vec(QCF_FLOAT16, 1);
	const double hv[] = {1 + 0x1p-11 + 0x1p-40};
	qc_gen hc = {.kind = QC_GEN_CHOICE, .values = hv, .n_values = 1};
	CU_ASSERT_EQUAL(qc_gen_fill(&hc, &r, 0, NULL, &h.t, err, sizeof err), 0);
	CU_ASSERT_EQUAL(((uint16_t *)h.data)[0], 0x3c01);
	const double hv2[] = {65519.999};
	hc.values = hv2;
	CU_ASSERT_EQUAL(qc_gen_fill(&hc, &r, 0, NULL, &h.t, err, sizeof err), 0);
	CU_ASSERT_EQUAL(((uint16_t *)h.data)[0], 0x7bff);
	tb_free(&h);
	/* edges on a float tensor need a grid; the buffer must be big enough */
	tbuf f = vec(QCF_FLOAT32, 4);
	qc_gen ed = {.kind = QC_GEN_EDGES};
	CU_ASSERT_EQUAL(qc_gen_fill(&ed, &r, 0, NULL, &f.t, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "need a grid"));
	f.t.nbytes = 8;
	CU_ASSERT_EQUAL(qc_gen_fill(&uni, &r, 0, NULL, &f.t, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs 16"));
	tb_free(&f);
	CU_ASSERT_EQUAL(qc_gen_kind_parse("edges"), QC_GEN_EDGES);
	CU_ASSERT_EQUAL(qc_gen_kind_parse("edge"), -1);
	CU_ASSERT_STRING_EQUAL(qc_gen_kind_name(QC_GEN_NORMAL), "normal");
}

/* ---- requantization edges ------------------------------------------------ */

/* The reference's own steps, written out here: QuantizeMultiplier of d (double build) and
 * MultiplyByQuantizedMultiplier of acc in the double (single = 0) and single builds. */
static int64_t ref_out(double d, int single, int64_t acc)
{
	int32_t m;
	int sh;
	qref_quantize_multiplier(d, single ? QREF_ROUND_SINGLE : QREF_ROUND_DOUBLE, &m, &sh);
	if (single)
		return qref_mbqm_single_wide((int32_t)acc, m, sh);
	return qref_mbqm((int32_t)acc, m, sh, QREF_ROUND_DOUBLE);
}

static double d_double(const qc_scale3 *t)
{
	return (double)t->s_in * (double)t->s_w / (double)t->s_out;
}

static double d_product(const qc_scale3 *t)
{
	float p = t->s_in * t->s_w;
	return (double)p / (double)t->s_out;
}

static void test_requant_round_up(void)
{
	qc_edge_opts o;
	qc_edge_opts_default(&o);
	qc_scale3 t[6];
	uint64_t work = 0;
	char err[256];
	static const double mults[] = {0x1p-10, 0x1p-3, 0x1p2};
	for (int k = 0; k < 3; k++) {
		o.mult = mults[k];
		int n = qc_requant_scales(QC_EDGE_ROUND_UP, &o, t, 6, &work, err, sizeof err);
		CU_ASSERT_EQUAL_FATAL(n, 6);
		for (int i = 0; i < n; i++) {
			/* float32 scales; s_out = f32(s_in * s_w) / mult exactly */
			CU_ASSERT_EQUAL(t[i].s_in, o.s_in);
			CU_ASSERT_EQUAL((double)t[i].s_out * mults[k],
			                (double)(float)((double)t[i].s_in * (double)t[i].s_w));
			double d = d_double(&t[i]);
			int e;
			double q = frexp(d, &e);
			/* the mantissa rounds to 2^31: the fix-up halves it and raises the shift */
			CU_ASSERT(q != 0.5);
			CU_ASSERT_EQUAL(round(q * 2147483648.0), 2147483648.0);
			int32_t m;
			int sh;
			qref_quantize_multiplier(d, QREF_ROUND_DOUBLE, &m, &sh);
			CU_ASSERT_EQUAL(m, INT32_C(1) << 30);
			CU_ASSERT_EQUAL(sh, e + 1);
			CU_ASSERT_EQUAL(t[i].multiplier, m);
			CU_ASSERT_EQUAL(t[i].shift, sh);
			if (i)
				CU_ASSERT(t[i].s_w > t[i - 1].s_w);
		}
	}
	/* the same call, the same triples */
	qc_scale3 u[6];
	CU_ASSERT_EQUAL(qc_requant_scales(QC_EDGE_ROUND_UP, &o, u, 6, &work, err, sizeof err), 6);
	CU_ASSERT_EQUAL(memcmp(t, u, sizeof t), 0);
	o.mult = 0.001;
	CU_ASSERT_EQUAL(qc_requant_scales(QC_EDGE_ROUND_UP, &o, t, 2, &work, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "power of two"));
	o.mult = 0x1p-10;
	o.conv = QC_EDGE_ONNX;
	CU_ASSERT_EQUAL(qc_requant_scales(QC_EDGE_ROUND_UP, &o, t, 2, &work, err, sizeof err), -1);
}

/* acc catches the kernel with the other multiplier in build b (the property QC_EDGE_F32
 * promises), recomputed from the reference's functions. */
static int caught(const qc_scale3 *t, int ref_f32, int half, int b, int64_t acc)
{
	double own = ref_f32 ? d_product(t) : d_double(t);
	double other = ref_f32 ? d_double(t) : d_product(t);
	int64_t x = ref_out(other, b, acc);
	if (x == ref_out(own, 0, acc) || x == ref_out(own, 1, acc))
		return 0;
	return !half || x != (int64_t)round((double)acc * d_double(t));
}

static void test_requant_f32(void)
{
	for (int v = 0; v < 3; v++) {
		qc_edge_opts o;
		qc_edge_opts_default(&o);
		o.mult = 3.1e-6;
		o.ref_f32 = v == 1;
		o.half_away = v >= 1;
		if (v == 2)
			o.s_w = 0.0123f;
		qc_scale3 t[4];
		uint64_t work = 0;
		char err[256];
		int n = qc_requant_scales(QC_EDGE_F32_PRODUCT, &o, t, 4, &work, err, sizeof err);
		CU_ASSERT_EQUAL_FATAL(n, 4);
		for (int i = 0; i < n; i++) {
			int32_t m1, m2;
			int s1, s2;
			qref_quantize_multiplier(d_double(&t[i]), QREF_ROUND_DOUBLE, &m1, &s1);
			qref_quantize_multiplier(d_product(&t[i]), QREF_ROUND_DOUBLE, &m2, &s2);
			CU_ASSERT(m1 != m2 || s1 != s2); /* really different multipliers */
			int64_t acc[16];
			int k = qc_requant_acc(&t[i], QC_EDGE_F32, &o, acc, 16, &work, err,
			                       sizeof err);
			CU_ASSERT_FATAL(k >= 2);
			int per[2] = {0, 0};
			for (int j = 0; j < k; j++) {
				int c0 = caught(&t[i], o.ref_f32, o.half_away, 0, acc[j]);
				int c1 = caught(&t[i], o.ref_f32, o.half_away, 1, acc[j]);
				CU_ASSERT(c0 || c1);
				per[0] += c0;
				per[1] += c1;
				CU_ASSERT(llabs(ref_out(d_double(&t[i]), 0, acc[j])) <= o.ymax);
			}
			/* each build's kernel is caught, the first two already */
			CU_ASSERT(per[0] >= 1 && per[1] >= 1);
			CU_ASSERT(caught(&t[i], o.ref_f32, o.half_away, 0, acc[0]) ||
			          caught(&t[i], o.ref_f32, o.half_away, 0, acc[1]));
			CU_ASSERT(caught(&t[i], o.ref_f32, o.half_away, 1, acc[0]) ||
			          caught(&t[i], o.ref_f32, o.half_away, 1, acc[1]));
		}
	}
	/* ONNX: rint(acc * float32 multiplier) against rint(acc * double multiplier) */
	qc_edge_opts o;
	qc_edge_opts_default(&o);
	o.conv = QC_EDGE_ONNX;
	o.ref_f32 = 1;
	o.mult = 2.5e-4;
	o.ymax = 127;
	qc_scale3 t[2];
	uint64_t work = 0;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(
	        qc_requant_scales(QC_EDGE_F32_PRODUCT, &o, t, 2, &work, err, sizeof err), 2);
	for (int i = 0; i < 2; i++) {
		double ms = (double)(float)(t[i].s_in * t[i].s_w / t[i].s_out);
		int64_t acc[8];
		int k = qc_requant_acc(&t[i], QC_EDGE_F32, &o, acc, 8, &work, err, sizeof err);
		CU_ASSERT_FATAL(k >= 1);
		for (int j = 0; j < k; j++)
			CU_ASSERT(nearbyint((double)acc[j] * ms) !=
			          nearbyint((double)acc[j] * d_double(&t[i])));
	}
}

static void test_requant_shift_tie_boundary(void)
{
	qc_edge_opts o;
	qc_edge_opts_default(&o);
	qc_scale3 t[5];
	uint64_t work = 0;
	char err[256];
	static const int shifts[] = {-31, -13, -1, 0, 4, 30};
	for (int k = 0; k < 6; k++) {
		o.shift = shifts[k];
		CU_ASSERT_EQUAL_FATAL(
		        qc_requant_scales(QC_EDGE_SHIFT, &o, t, 5, &work, err, sizeof err), 5);
		for (int i = 0; i < 5; i++) {
			int32_t m;
			int sh;
			qref_quantize_multiplier(d_double(&t[i]), QREF_ROUND_DOUBLE, &m, &sh);
			CU_ASSERT_EQUAL(sh, shifts[k]);
			CU_ASSERT(m >= INT32_C(1) << 30);
		}
		/* both ends of the shift's range come first: the smallest and largest d */
		double lo = ldexp(1.0, shifts[k] - 1), hi = ldexp(1.0, shifts[k]);
		CU_ASSERT(d_double(&t[0]) >= lo && d_double(&t[0]) < lo * (1 + 0x1p-20));
		CU_ASSERT(d_double(&t[1]) < hi && d_double(&t[1]) > hi * (1 - 0x1p-20));
	}
	/* shift -31: the boundaries are near +-2^31, where the output steps 0 <-> +-1 */
	o.shift = -31;
	CU_ASSERT_EQUAL(qc_requant_scales(QC_EDGE_SHIFT, &o, t, 3, &work, err, sizeof err), 3);
	int64_t acc[64];
	int n = qc_requant_acc(&t[2], QC_EDGE_BOUNDARY, &o, acc, 64, &work, err, sizeof err);
	CU_ASSERT_EQUAL_FATAL(n, 8); /* two steps (0 to 1, -1 to 0), four each */
	for (int i = 0; i < n; i++)
		CU_ASSERT(llabs(acc[i]) > (INT64_C(1) << 29) && llabs(acc[i]) <= INT32_MAX);
	CU_ASSERT_EQUAL(ref_out(d_double(&t[2]), 0, acc[1]), 0);
	CU_ASSERT_EQUAL(ref_out(d_double(&t[2]), 0, acc[2]), 1);

	/* ties: SaturatingRoundingDoublingHighMul lands on x = (j + 1/2) 2^r exactly */
	o.shift = -6;
	CU_ASSERT_EQUAL(qc_requant_scales(QC_EDGE_SHIFT, &o, t, 3, &work, err, sizeof err), 3);
	n = qc_requant_acc(&t[2], QC_EDGE_TIE, &o, acc, 64, &work, err, sizeof err);
	CU_ASSERT_FATAL(n >= 32);
	int32_t m;
	int sh;
	qref_quantize_multiplier(d_double(&t[2]), QREF_ROUND_DOUBLE, &m, &sh);
	int r = -sh, beyond = 0;
	for (int i = 0; i < n; i++) {
		int64_t x = qref_srdhm((int32_t)acc[i], m);
		CU_ASSERT_EQUAL(((x % (1 << r)) + (1 << r)) % (1 << r), 1 << (r - 1));
		/* a negative tie the exact product passes: a final shift rounding half up gives
		 * neither build's result */
		int64_t up = qref_asr64(x + (1 << (r - 1)), r);
		if (x < 0 && up != ref_out(d_double(&t[2]), 0, acc[i]) &&
		    up != ref_out(d_double(&t[2]), 1, acc[i]))
			beyond++;
	}
	CU_ASSERT(beyond >= 4);
	o.shift = 0;
	CU_ASSERT_EQUAL(qc_requant_scales(QC_EDGE_SHIFT, &o, t, 1, &work, err, sizeof err), 1);
	CU_ASSERT_EQUAL(qc_requant_acc(&t[0], QC_EDGE_TIE, &o, acc, 4, &work, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no final"));

	/* ONNX ties: acc * 3/8 is exactly k + 1/2 */
	qc_scale3 q = {1.0f, 0.75f, 2.0f, 0, 0};
	o.conv = QC_EDGE_ONNX;
	o.ref_f32 = 1;
	n = qc_requant_acc(&q, QC_EDGE_TIE, &o, acc, 64, &work, err, sizeof err);
	CU_ASSERT_FATAL(n >= 32);
	for (int i = 0; i < n; i++) {
		double v = (double)acc[i] * 0.375;
		CU_ASSERT_EQUAL(v - floor(v), 0.5);
	}
}

/* The fix-up is out of reach of a quotient of two float32 values (ADD, SUB, MEAN, SUM,
 * REQUANTIZE, per-tensor FULLY_CONNECTED): the closest such quotients to a power of two, a / b
 * with a the float32 below b or below 2b, keep their mantissa below 2^31 - 64. */
static void test_requant_quotients_never_round_up(void)
{
	float b = 0.001f;
	for (int i = 0; i < 20000; i++, b = nextafterf(b * 1.0001f, INFINITY)) {
		float near[2] = {nextafterf(b, 0.0f), nextafterf(2.0f * b, 0.0f)};
		for (int k = 0; k < 2; k++) {
			int e;
			double q = frexp((double)near[k] / (double)b, &e);
			CU_ASSERT(round(q * 2147483648.0) <= 2147483648.0 - 64);
		}
	}
}

/* ---- elementwise edges (LiteRT ADD, SUB, MUL) ---------------------------------------- */

/* The kernel's stages written out again from add.cc / mul.cc, with the reference's requant
 * functions: QuantizeMultiplier of d, then MBQM in build b (0 double, 1 single). */
typedef struct ew_q {
	int32_t m;
	int e;
} ew_q;

static ew_q ew_qm(double d, int b)
{
	ew_q q;
	qref_quantize_multiplier(d, b ? QREF_ROUND_SINGLE : QREF_ROUND_DOUBLE, &q.m, &q.e);
	return q;
}

static int64_t ew_apply(ew_q q, int b, int32_t x)
{
	return b ? qref_mbqm_single_wide(x, q.m, q.e) : qref_mbqm(x, q.m, q.e, QREF_ROUND_DOUBLE);
}

/* floor(v / 2^r) with v rounded half up (up = 1) or half down (up = 0): a tie of a division by
 * 2^r is exactly where the two differ. */
static int64_t div_half(int64_t v, int r, int up)
{
	return qref_asr64(v + (INT64_C(1) << (r - 1)) - (up ? 0 : 1), r);
}

/* The values stage q can give at x (e <= 0) in build b when one of its exact ties is rounded
 * the other way (ties found from their definitions: the doubled product's low 32 bits are
 * exactly 2^31; half up and half down of the final shift differ; x m 2^(e - 31) is k + 1/2),
 * into alt; returns their count. */
static int ew_other(ew_q q, int b, int32_t x, int64_t *alt)
{
	int n = 0;
	int64_t v = ew_apply(q, b, x);
	if (b == 0) {
		int r = -q.e;
		int64_t p2 = (int64_t)x * q.m * 2;
		int32_t h = qref_srdhm(x, q.m);
		if (((uint64_t)p2 & 0xFFFFFFFFu) == UINT64_C(1) << 31) /* rounded up */
			alt[n++] = qref_rdbpot(h - 1, r);
		if (r > 0 && div_half(h, r, 1) != div_half(h, r, 0))
			alt[n++] = h > 0 ? div_half(h, r, 0) : div_half(h, r, 1);
	} else {
		int64_t p = (int64_t)x * q.m;
		int t = 31 - q.e;
		if (t <= 62 && div_half(p, t, 1) != div_half(p, t, 0))
			alt[n++] = div_half(p, t, 0);
	}
	int k = 0;
	for (int i = 0; i < n; i++)
		if (alt[i] != v)
			alt[k++] = alt[i];
	return k;
}

typedef struct ew_ref {
	int sub, ls;
	ew_q in[2][2], out[2];
} ew_ref;

static ew_ref ew_ref_add(const float s[3], int sub)
{
	ew_ref r;
	r.sub = sub;
	r.ls = 20;
	double tm = 2.0 * (double)fmaxf(s[0], s[1]);
	for (int b = 0; b < 2; b++) {
		r.in[0][b] = ew_qm((double)s[0] / tm, b);
		r.in[1][b] = ew_qm((double)s[1] / tm, b);
		r.out[b] = ew_qm(tm / (1048576.0 * (double)s[2]), b);
	}
	return r;
}

static int32_t ew_in(const ew_ref *r, int i, int b, int32_t q, int32_t zp)
{
	return (int32_t)ew_apply(r->in[i][b], b, (q - zp) * (1 << r->ls));
}

/* The pair's output when v1, v2 are given (build b). */
static int64_t ew_add_out(const ew_ref *r, int b, int64_t v1, int64_t v2)
{
	return ew_apply(r->out[b], b, (int32_t)(r->sub ? v1 - v2 : v1 + v2));
}

static void test_ew_add_ties(void)
{
	char err[256];
	uint64_t work = 0;
	int32_t a[64], c[64];
	for (int sub = 0; sub < 2; sub++) {
		qc_ew_opts o;
		qc_ew_opts_default(&o, 0);
		o.op = sub ? QC_EW_SUB : QC_EW_ADD;
		o.zp1 = 5;
		o.zp2 = -9;
		o.zp_out = 3;
		const float s[3] = {0.05f, nextafterf(0.025f, 1.0f), 0.05f};
		/* TIE: the output stage is on an exact tie in some build */
		int n = qc_ew_pairs(s, QC_EW_TIE, &o, a, c, 64, &work, err, sizeof err);
		CU_ASSERT_FATAL(n > 4);
		ew_ref r = ew_ref_add(s, sub);
		int neg = 0;
		for (int i = 0; i < n; i++) {
			int ties = 0;
			for (int b = 0; b < 2; b++) {
				int64_t v1 = ew_in(&r, 0, b, a[i], o.zp1),
				        v2 = ew_in(&r, 1, b, c[i], o.zp2);
				int64_t y = ew_add_out(&r, b, v1, v2), alt[2];
				CU_ASSERT(y >= -o.ymax && y <= o.ymax && y + o.zp_out <= 127);
				ties += ew_other(r.out[b], b, (int32_t)(sub ? v1 - v2 : v1 + v2),
				                 alt);
				/* a final shift rounding negative ties up differs somewhere */
				int32_t raw = (int32_t)(sub ? v1 - v2 : v1 + v2),
				        h = qref_srdhm(raw, r.out[0].m);
				if (b == 0 && div_half(h, -r.out[0].e, 1) != y)
					neg++;
			}
			CU_ASSERT(ties > 0);
		}
		CU_ASSERT(neg > 0);
		/* TIE_IN: an input tie whose other rounding moves the output */
		n = qc_ew_pairs(s, QC_EW_TIE_IN, &o, a, c, 64, &work, err, sizeof err);
		CU_ASSERT_FATAL(n > 4);
		for (int i = 0; i < n; i++) {
			int moved = 0;
			for (int b = 0; b < 2; b++) {
				int64_t v[2] = {ew_in(&r, 0, b, a[i], o.zp1),
				                ew_in(&r, 1, b, c[i], o.zp2)};
				int64_t y = ew_add_out(&r, b, v[0], v[1]);
				for (int j = 0; j < 2; j++) {
					int64_t alt[2];
					int32_t q = j ? c[i] : a[i], zp = j ? o.zp2 : o.zp1;
					int k = ew_other(r.in[j][b], b, (q - zp) * (1 << 20), alt);
					for (int t = 0; t < k; t++) {
						int64_t w[2] = {v[0], v[1]};
						w[j] = alt[t];
						moved += ew_add_out(&r, b, w[0], w[1]) != y;
					}
				}
			}
			CU_ASSERT(moved > 0);
		}
		/* high-mul ties only: there SRDHM(-x, m) != -SRDHM(x, m) */
		o.stage = QC_EW_STAGE_HIGH_MUL;
		o.zp1 = o.zp2 = o.zp_out = 0;
		float s2[3] = {0x1p-7f, 0x1p-8f * (1 + 8 * 0x1p-23f), 0x1p-7f};
		n = qc_ew_pairs(s2, QC_EW_TIE_IN, &o, a, c, 64, &work, err, sizeof err);
		CU_ASSERT_FATAL(n > 0);
		r = ew_ref_add(s2, sub);
		int asym = 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < 2; j++) {
				int32_t x = (j ? c[i] : a[i]) * (1 << 20);
				asym += qref_srdhm(-x, r.in[j][0].m) !=
				        -qref_srdhm(x, r.in[j][0].m);
			}
		CU_ASSERT(asym > 0);
	}
}

static void test_ew_mul(void)
{
	char err[256];
	uint64_t work = 0;
	int32_t a[64], c[64];
	qc_ew_opts o;
	qc_ew_opts_default(&o, 0);
	o.op = QC_EW_MUL;
	o.s1 = 0.1f;
	o.s2 = 0.1f;
	o.ratio = 0.5;
	o.zp1 = -3;
	float t[2][3];
	CU_ASSERT_EQUAL_FATAL(qc_ew_scales(QC_EW_F32, &o, t, 2, &work, err, sizeof err), 2);
	for (int k = 0; k < 2; k++) {
		/* s_out follows s2 */
		CU_ASSERT_EQUAL(t[k][2], (float)((double)t[k][0] * (double)t[k][1] / 0.5));
		int n = qc_ew_pairs(t[k], QC_EW_F32, &o, a, c, 64, &work, err, sizeof err);
		CU_ASSERT_FATAL(n >= o.min_pairs);
		float p = t[k][0] * t[k][1];
		double own = (double)(float)(p / t[k][2]);
		double dd = (double)t[k][0] * (double)t[k][1] / (double)t[k][2];
		const double other[3] = {dd, (double)p / (double)t[k][2], (double)(float)dd};
		for (int i = 0; i < n; i++) {
			int64_t x = (int64_t)(a[i] - o.zp1) * (c[i] - o.zp2);
			int64_t y0 = ref_out(own, 0, x), y1 = ref_out(own, 1, x);
			int caught = 0;
			for (int j = 0; j < 3; j++)
				for (int b = 0; b < 2; b++) {
					int64_t v = ref_out(other[j], b, x);
					caught += v != y0 && v != y1;
				}
			CU_ASSERT(caught > 0);
		}
	}
	/* ties of the product's requantization, exact */
	qc_ew_opts_default(&o, 0);
	o.op = QC_EW_MUL;
	const float s[3] = {0.5f, 0.25f, (float)(0.125 / 0.375)};
	int n = qc_ew_pairs(s, QC_EW_TIE, &o, a, c, 64, &work, err, sizeof err);
	CU_ASSERT_FATAL(n > 8);
	ew_q q0 = ew_qm((double)(float)(0.125f / s[2]), 0),
	     q1 = ew_qm((double)(float)(0.125f / s[2]), 1);
	for (int i = 0; i < n; i++) {
		int64_t alt[2];
		int32_t x = a[i] * c[i];
		CU_ASSERT(ew_other(q0, 0, x, alt) + ew_other(q1, 1, x, alt) > 0);
	}
	/* errors: kinds the op lacks, too many pairs, scales the op refuses */
	CU_ASSERT_EQUAL(qc_ew_pairs(s, QC_EW_TIE_IN, &o, a, c, 4, &work, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "ADD and SUB only"));
	o.op = QC_EW_ADD;
	CU_ASSERT_EQUAL(qc_ew_pairs(s, QC_EW_F32, &o, a, c, 4, &work, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "MUL only"));
	const float tiny[3] = {1.0f, 1.0f, 0x1p-20f};
	CU_ASSERT_EQUAL(qc_ew_pairs(tiny, QC_EW_TIE, &o, a, c, 4, &work, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "must be < 1"));
	qc_ew_opts_default(&o, 1);
	CU_ASSERT_EQUAL(qc_ew_pairs(s, QC_EW_TIE, &o, a, c, 4, &work, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "more than 2^24 pairs"));
	/* a search that cannot succeed stops: the output multiplier just below 1 (shift 0) has no
	 * reachable output tie (raw m = 2^30 mod 2^31 needs |raw| >= 2^22, far beyond ymax) */
	qc_ew_opts_default(&o, 0);
	o.s1 = 0x1p-7f;
	o.s2 = 0x1p-8f;
	o.s_out = nextafterf(0x1p-26f, 1.0f);
	work = 0;
	CU_ASSERT_EQUAL(qc_ew_scales(QC_EW_TIE, &o, t, 1, &work, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "only 0 of 1"));
	CU_ASSERT(work <= (UINT64_C(1) << 25) + 65536);
}

/* The search tries only the pairs whose output is in range (an interval of q2 for each q1,
 * found by bisection): over random scales, zero points, ranges and ymax of ADD, SUB and MUL
 * it must find exactly the pairs, in the same order, of trying every pair. */
static uint64_t ew_rnd(uint64_t *st, uint64_t n)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return (*st >> 33) % n;
}

static void test_ew_interval_same_pairs(void)
{
	uint64_t st = 0x9e3779b97f4a7c15ull;
#define EW_RND(n) ew_rnd(&st, (uint64_t)(n))
	int configs = 0, with_pairs = 0, differ = 0;
	for (int t = 0; t < 300; t++) {
		qc_ew_opts o;
		int int16 = EW_RND(5) == 0;
		qc_ew_opts_default(&o, int16);
		o.op = (qc_ew_op)EW_RND(3);
		int32_t q = int16 ? 32768 : 128;
		o.zp1 = (int32_t)EW_RND(2 * q) - q;
		o.zp2 = (int32_t)EW_RND(2 * q) - q;
		o.zp_out = (int32_t)EW_RND(2 * q) - q;
		if (!int16 && EW_RND(2))
			o.zp_out /= 8; /* room for outputs of both signs */
		int64_t span = int16 ? 300 : 256;
		/* windows near the zero points (where outputs are small), or anywhere */
		int near = EW_RND(4) != 0;
		o.lo1 = near ? o.zp1 - span / 2
		             : -q + (int64_t)EW_RND((uint64_t)(2 * q - span + 1));
		o.lo2 = near ? o.zp2 - span / 2
		             : -q + (int64_t)EW_RND((uint64_t)(2 * q - span + 1));
		o.lo1 = o.lo1 < -q ? -q : o.lo1 + span > q ? q - span : o.lo1;
		o.lo2 = o.lo2 < -q ? -q : o.lo2 + span > q ? q - span : o.lo2;
		o.hi1 = o.lo1 + span - 1;
		o.hi2 = o.lo2 + span - 1;
		o.ymax = (int64_t)EW_RND(40);
		float s[3];
		for (int k = 0; k < 3; k++) {
			/* few mantissa bits (ties are common) or many */
			int bits = EW_RND(2) ? 3 : 20;
			float m = 1.0f + (float)EW_RND(1u << bits) / (float)(1u << bits);
			s[k] = ldexpf(m, -(int)EW_RND(int16 ? 14 : 9) - 1);
		}
		/* often a power of two apart, as the specs' own triples */
		if (EW_RND(2))
			s[1] = ldexpf(s[0], -(int)EW_RND(3));
		if (EW_RND(2))
			s[2] = ldexpf(s[0], (int)EW_RND(3) - 1);
		qc_ew_kind kind = o.op == QC_EW_MUL ? (EW_RND(2) ? QC_EW_F32 : QC_EW_TIE)
		                                    : (EW_RND(2) ? QC_EW_TIE_IN : QC_EW_TIE);
		int32_t a1[64], c1[64], a2[64], c2[64];
		uint64_t w1 = 0, w2 = 0;
		char e1[256] = "", e2[256] = "";
		int n1 = qc_ew_pairs(s, kind, &o, a1, c1, 64, &w1, e1, sizeof e1);
		o.exhaustive = 1;
		int n2 = qc_ew_pairs(s, kind, &o, a2, c2, 64, &w2, e2, sizeof e2);
		configs++;
		CU_ASSERT_EQUAL(n1, n2);
		CU_ASSERT_STRING_EQUAL(e1, e2);
		if (n1 != n2 || (n1 > 0 && (memcmp(a1, a2, (size_t)n1 * sizeof *a1) ||
		                            memcmp(c1, c2, (size_t)n1 * sizeof *c1))))
			differ++;
		with_pairs += n1 > 0;
		CU_ASSERT(w1 <= w2);
	}
#undef EW_RND
	CU_ASSERT_EQUAL(differ, 0);
	printf("\n  %d of %d searches found pairs, %d differ", with_pairs, configs, differ);
	CU_ASSERT(with_pairs > configs / 5); /* the comparison is not between empty results */
}

/* tie_in over the specs' own settings (add_edges, sub_edges: scale triples a power of two
 * apart, zero points, either stage, int16 windows) and some with the inputs swapped, every
 * pair the search keeps: looking in a row only where an input has another rounding finds what
 * trying every pair finds. */
static void test_ew_tie_in_rows(void)
{
	static const struct {
		qc_ew_op op;
		int int16;
		float s1, s2, s_out;
		int32_t zp1, zp2, lo1, hi1, lo2, hi2;
		qc_ew_stage stage;
	} cfg[] = {
	        {QC_EW_ADD, 0, 0x1p-7f, 0x1p-8f, 0x1p-7f, 0, 0, -128, 127, -128, 127,
	         QC_EW_STAGE_SHIFT},
	        {QC_EW_ADD, 0, 0x1p-7f, 0x1p-8f, 0x1p-7f, 0, 0, -128, 127, -128, 127,
	         QC_EW_STAGE_HIGH_MUL},
	        {QC_EW_SUB, 0, 0.05f, 0.025f, 0.05f, 5, -9, -128, 127, -128, 127,
	         QC_EW_STAGE_SHIFT},
	        {QC_EW_ADD, 0, 0.05f, 0.037f, 0.07f, 0, 0, -128, 127, -128, 127, QC_EW_STAGE_ANY},
	        {QC_EW_SUB, 0, 0x1p-7f, 0x1p-34f, 0x1p-6f, 0, -1, -128, 127, -128, 127,
	         QC_EW_STAGE_ANY},
	        {QC_EW_ADD, 1, 0x1p-12f, 0x1p-13f, 0x1p-12f, 0, 0, -2048, 2047, -256, 255,
	         QC_EW_STAGE_ANY},
	        {QC_EW_ADD, 1, 0.0005f, 0.00037f, 0.0007f, 0, 0, -2048, 2047, -256, 255,
	         QC_EW_STAGE_ANY},
	        /* the larger scale's input rescales exactly (by 1/2): the same, inputs swapped */
	        {QC_EW_SUB, 0, 0.025f, 0.05f, 0.05f, -9, 5, -128, 127, -128, 127,
	         QC_EW_STAGE_SHIFT},
	        {QC_EW_ADD, 0, 0.037f, 0.05f, 0.07f, 0, 0, -128, 127, -128, 127, QC_EW_STAGE_ANY},
	        {QC_EW_ADD, 1, 0.00037f, 0.0005f, 0.0007f, 0, 0, -256, 255, -2048, 2047,
	         QC_EW_STAGE_ANY},
	};
	int differ = 0, found = 0;
	for (size_t t = 0; t < sizeof cfg / sizeof *cfg; t++) {
		qc_ew_opts o;
		qc_ew_opts_default(&o, cfg[t].int16);
		o.op = cfg[t].op;
		o.zp1 = cfg[t].zp1;
		o.zp2 = cfg[t].zp2;
		o.lo1 = cfg[t].lo1;
		o.hi1 = cfg[t].hi1;
		o.lo2 = cfg[t].lo2;
		o.hi2 = cfg[t].hi2;
		o.stage = cfg[t].stage;
		float s[3] = {cfg[t].s1, cfg[t].s2, cfg[t].s_out};
		static int32_t a1[4096], c1[4096], a2[4096], c2[4096];
		uint64_t w1 = 0, w2 = 0;
		char e1[256] = "", e2[256] = "";
		int n1 = qc_ew_pairs(s, QC_EW_TIE_IN, &o, a1, c1, 4096, &w1, e1, sizeof e1);
		o.exhaustive = 1;
		int n2 = qc_ew_pairs(s, QC_EW_TIE_IN, &o, a2, c2, 4096, &w2, e2, sizeof e2);
		CU_ASSERT_STRING_EQUAL(e1, e2);
		if (n1 != n2 || (n1 > 0 && (memcmp(a1, a2, (size_t)n1 * sizeof *a1) ||
		                            memcmp(c1, c2, (size_t)n1 * sizeof *c1))))
			differ++;
		found += n1 > 0 ? n1 : 0;
	}
	CU_ASSERT_EQUAL(differ, 0);
	CU_ASSERT(found > 100);
	printf("\n  %d pairs kept over the specs' settings, %d settings differ", found, differ);
}

void qct_register_gen(void)
{
	CU_pSuite s = qct_suite("gen");
	CU_add_test(s, "splitmix64 published values", test_splitmix);
	CU_add_test(s, "xoshiro256** from state {1,2,3,4}", test_xoshiro_small_state);
	CU_add_test(s, "seed 1 golden and independent derivation", test_rng_independent);
	CU_add_test(s, "hash64", test_hash);
	CU_add_test(s, "uniform_int range and bias", test_uniform_int);
	CU_add_test(s, "uniform01 and normal moments", test_uniform01_normal);
	CU_add_test(s, "own log, sin, cos vs libm", test_det_math);
	CU_add_test(s, "edges float32: ties, neighbours, ends, specials", test_edges_float32);
	CU_add_test(s, "edges: reciprocal ties", test_edges_reciprocal_tie);
	CU_add_test(s, "edges: float zero point, float16", test_edges_float_zp_and_f16);
	CU_add_test(s, "edges: wide grids and integer tensors", test_edges_wide_and_int);
	CU_add_test(s, "edges: repeats walk the whole list", test_edges_walk);
	CU_add_test(s, "edges: per-axis channels", test_edges_per_axis);
	CU_add_test(s, "same seed, same bytes", test_reproducible);
	CU_add_test(s, "uniform, normal, choice, sequence, errors", test_kinds);
	CU_add_test(s, "requant edges: mantissas that round to 2^31", test_requant_round_up);
	CU_add_test(s, "requant edges: float32 against double products", test_requant_f32);
	CU_add_test(s, "requant edges: shifts, ties, boundaries", test_requant_shift_tie_boundary);
	CU_add_test(s, "requant edges: float32 quotients never reach the fix-up",
	            test_requant_quotients_never_round_up);
	CU_add_test(s, "elementwise edges: ADD / SUB ties of the output and the inputs",
	            test_ew_add_ties);
	CU_add_test(s, "elementwise edges: MUL multipliers, ties, errors", test_ew_mul);
	CU_add_test(s, "elementwise edges: tie_in looks only where an input ties",
	            test_ew_tie_in_rows);
	CU_add_test(s, "elementwise edges: the in-range search finds every pair",
	            test_ew_interval_same_pairs);
}
