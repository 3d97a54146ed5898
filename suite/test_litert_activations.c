/*
 * Tests of the LiteRT activation family: the gemmlowp fixed-point building
 * blocks (reference/fixedpoint.c) on hand-derivable values and against
 * double precision, the lookup tables, the kernels on the outputs of TFLM's
 * kernels in its own tests (tensorflow/tflite-micro at 90b983c2) and TFLM's float goldens within
 * their test tolerance, every refusal, and an end-to-end run of the specs.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"
#include "reference/dtype.h"
#include "reference/fixedpoint.h"
#include "reference/kernel.h"
#include "reference/qref.h"
#include "reference/requant.h"
#include "tensor.h"

/* ---- builders ------------------------------------------------------------ */

/* A tensor quantized per tensor with scale s and zero point z. */
static void tt_init(qt *x, qcf_dtype dt, int rank, const int64_t *shape, float s, int32_t z)
{
	qt_init(x, dt, rank, shape);
	qt_quant1(x, s, z);
}

static void tt_1d(qt *x, qcf_dtype dt, int64_t n, float s, int32_t z)
{
	tt_init(x, dt, 1, &n, s, z);
}

static void tt_fill(qt *x, const int *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		qref_set(&x->t, i, v[i]);
}

static int get(qt *x, size_t i)
{
	return (int)qt_get(x, i);
}

static qcf_op_call *mkcall(const char *op, qt *in, qt *out, const qcf_attr *attrs, int na)
{
	return qt_call("litert", op, &in, 1, &out, 1, na ? attrs : NULL, na);
}

static qcf_status run(const char *op, qt *in, qt *out, const qcf_attr *attrs, int na,
                      qref_rounding r, qref_detail *d)
{
	return qref_execute(mkcall(op, in, out, attrs, na), qt_detail(d, r));
}

static qcf_attr beta_attr(double b)
{
	return qt_flt("beta", b);
}

#define ASSERT_INVALID(st, dd, rule)                                                               \
	do {                                                                                       \
		CU_ASSERT_EQUAL(st, QCF_INVALID_PARAM);                                            \
		CU_ASSERT_PTR_NOT_NULL(strstr((dd)->message, rule));                               \
		if (!strstr((dd)->message, rule))                                                  \
			fprintf(stderr, "\n  message: %s", (dd)->message);                         \
	} while (0)

/* ---- building blocks ------------------------------------------------------- */

static void test_fp_basics(void)
{
	CU_ASSERT_EQUAL(qfp_clz32(0), 32);
	CU_ASSERT_EQUAL(qfp_clz32(1), 31);
	CU_ASSERT_EQUAL(qfp_clz32(-1), 0);
	CU_ASSERT_EQUAL(qfp_clz32(1 << 19), 12);
	CU_ASSERT_EQUAL(qfp_satshl(3, 2), 12);
	CU_ASSERT_EQUAL(qfp_satshl(1 << 29, 2), INT32_MAX);
	CU_ASSERT_EQUAL(qfp_satshl(-(1 << 29), 2), INT32_MIN);
	CU_ASSERT_EQUAL(qfp_satshl(-(1 << 29) + 1, 2), INT32_MIN + 4);
	CU_ASSERT_EQUAL(qfp_satshl(-5, 0), -5);
	/* rounding half sum: ties away from zero */
	CU_ASSERT_EQUAL(qfp_rhs(1, 2), 2);
	CU_ASSERT_EQUAL(qfp_rhs(-1, -2), -2);
	CU_ASSERT_EQUAL(qfp_rhs(INT32_MAX, INT32_MAX), INT32_MAX);
	CU_ASSERT_EQUAL(qfp_add(INT32_MAX, 1), INT32_MIN); /* wraps */
	CU_ASSERT_EQUAL(qfp_sub(INT32_MIN, 1), INT32_MAX);
}

/* exp on [-1/4, 0) in Q0 and exp of non-positive Q5 / Q4 values against double. */
static void test_fp_exp(void)
{
	/* expq(-1/4 + 2^-31 ...): exp(-1/4) */
	double worst = 0;
	for (int32_t a = -(1 << 29); a < 0; a += 9973) {
		double want = exp(a / 0x1p31) * 0x1p31;
		double err = fabs(qfp_expq(a) - want);
		worst = err > worst ? err : worst;
	}
	printf("\n  expq worst %.1f", worst);
	CU_ASSERT(worst <= 1024);
	CU_ASSERT_EQUAL(qfp_expneg(0, 5), INT32_MAX); /* exp(0) = 1 */
	CU_ASSERT_EQUAL(qfp_expneg(0, 4), INT32_MAX);
	/* exp(-1) in Q5: a = -2^26 */
	CU_ASSERT(fabs(qfp_expneg(-(1 << 26), 5) - exp(-1.0) * 0x1p31) <= 1024);
	/* exp(-2^k) hits the barrel constants exactly (rem has one bit) */
	CU_ASSERT(fabs(qfp_expneg(-(1 << 27), 5) - exp(-2.0) * 0x1p31) <= 1024);
	/* sweep: within a few LSB of 2^31 and monotone non-decreasing in a */
	for (int i = 4; i <= 5; i++) {
		int32_t prev = 0;
		worst = 0;
		for (int64_t a = -(INT64_C(1) << 31) + 1; a <= 0; a += 65537 * 3) {
			int32_t r = qfp_expneg((int32_t)a, i);
			double want = exp((double)a / ldexp(1.0, 31 - i)) * 0x1p31;
			double err = fabs(r - want);
			worst = err > worst ? err : worst;
			CU_ASSERT(r >= prev);
			if (r < prev) {
				fprintf(stderr, "\n  expneg_%d not monotone at %lld", i,
				        (long long)a);
				break;
			}
			prev = r;
		}
		printf("\n  expneg_%d worst %.1f", i, worst);
		CU_ASSERT(worst <= 1024);
	}
	/* i > 5: below -2^(36 - i) the result is flushed to 0 */
	CU_ASSERT_EQUAL(qfp_expneg(-(1 << 30) - 1, 6), 0);
}

static void test_fp_recip_logistic_tanh(void)
{
	/* 1/(1+0) = 1: INT32_MAX within a few LSB; 1/(1+1/2) = 2/3 */
	CU_ASSERT(qfp_recip1p(0) >= INT32_MAX - 4);
	CU_ASSERT(fabs(qfp_recip1p(1 << 30) - 0x1p31 * 2 / 3) <= 4);
	double worst = 0;
	for (int64_t a = 0; a < INT32_MAX; a += 1000003) {
		double want = 0x1p31 / (1.0 + a / 0x1p31);
		double err = fabs(qfp_recip1p((int32_t)a) - (want > INT32_MAX ? INT32_MAX : want));
		worst = err > worst ? err : worst;
	}
	printf("\n  recip1p worst %.1f", worst);
	CU_ASSERT(worst <= 8);
	/* (1-a)/(1+a): 0 -> 1, 1/3 -> 1/2 */
	CU_ASSERT(qfp_omxopx(0) >= INT32_MAX - 8);
	CU_ASSERT(fabs(qfp_omxopx(715827883) - 0x1p30) <= 8);

	CU_ASSERT_EQUAL(qfp_logistic(0, 4), 1 << 30); /* 1/2 */
	CU_ASSERT_EQUAL(qfp_tanh(0, 4), 0);
	double wl = 0, wt = 0;
	for (int32_t a = 1; a < (1 << 30); a += 997 * 1013) {
		int32_t lp = qfp_logistic(a, 4), ln = qfp_logistic(-a, 4);
		int32_t tp = qfp_tanh(a, 4), tn = qfp_tanh(-a, 4);
		CU_ASSERT_EQUAL(qfp_add(lp, ln), INT32_MAX); /* symmetry, by construction */
		CU_ASSERT_EQUAL(tp, -tn);
		double x = a / 0x1p27;
		double el = fabs(lp - 0x1p31 / (1 + exp(-x)));
		double et = fabs(tp - tanh(x) * 0x1p31);
		wl = el > wl ? el : wl;
		wt = et > wt ? et : wt;
	}
	CU_ASSERT(wl <= 512);
	CU_ASSERT(wt <= 512);
	printf("\n  logistic worst %.1f tanh worst %.1f", wl, wt);
}

static void test_fp_log(void)
{
	/* log(1) = 0 in Q5; log(2), log(e^k) */
	CU_ASSERT(abs(qfp_logq(1 << 19)) <= 4);
	CU_ASSERT(fabs(qfp_logq(1 << 20) - log(2.0) * 0x1p26) <= 64);
	double worst = 0;
	for (int64_t z = 1 << 19; z < INT32_MAX; z += 777777) {
		double want = log((double)z / 0x1p19) * 0x1p26;
		double err = fabs(qfp_logq((int32_t)z) - want);
		worst = err > worst ? err : worst;
	}
	printf("\n  logq worst %.1f", worst);
	CU_ASSERT(worst <= 16);
}

static void test_fp_checked_log2(void)
{
	int l = 0;
	CU_ASSERT(qfp_checked_log2(1.0f / 32768, &l) && l == -15);
	CU_ASSERT(qfp_checked_log2(1.0f / 4096, &l) && l == -12);
	CU_ASSERT(qfp_checked_log2(0.0000305180f, &l) && l == -15); /* within 1e-3 in log2 */
	CU_ASSERT(!qfp_checked_log2(0.001f, &l));
	CU_ASSERT(!qfp_checked_log2(1.01f / 32768, &l));
}

static double exp_d(double x)
{
	return exp(x);
}

static double recip_d(double x)
{
	return 1.0 / (1.0 + x);
}

static void test_lut16(void)
{
	int16_t e[513], r[513];
	qfp_lut16(exp_d, 10.0 / 65535.0, 32767, 2.0 / 65535.0, 0, e);
	qfp_lut16(recip_d, 1.0 / 65535.0, -32768, 2.0 / 65535.0, 0, r);
	/* int16 SOFTMAX's tables (LiteRT activations.cc, TFLM softmax_common.cc): exp_lut starts
	 * 2,2,2,2 and ends 32767; rec_lut starts 32767 and ends 16384; double build: rec_lut[160] =
	 * 24967, rec_lut[294] = 20815 (TFLM's float build: 24966, 20816) */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(e[i], 2);
	CU_ASSERT_EQUAL(e[512], 32767);
	CU_ASSERT_EQUAL(r[0], 32767);
	CU_ASSERT_EQUAL(r[512], 16384);
	CU_ASSERT_EQUAL(r[160], 24967);
	CU_ASSERT_EQUAL(r[294], 20815);
	for (int i = 1; i < 513; i++) {
		CU_ASSERT(e[i] >= e[i - 1]);
		CU_ASSERT(r[i] <= r[i - 1]);
	}
	/* interpolation: grid points read the table; halfway rounds up */
	CU_ASSERT_EQUAL(qfp_lookup16(32767, e), e[511] + (((e[512] - e[511]) * 127 + 64) >> 7));
	CU_ASSERT_EQUAL(qfp_lookup16(32767 - 127, e), e[511]);
	CU_ASSERT_EQUAL(qfp_lookup16(-32768, e), e[0]);
	CU_ASSERT_EQUAL(qfp_lookup16(0, r), r[256]);
	int16_t lut[513];
	for (int i = 0; i < 513; i++)
		lut[i] = (int16_t)(i % 2 ? 1 : 0);
	CU_ASSERT_EQUAL(qfp_lookup16(64, lut), 1);       /* 0 + (1*64 + 64) >> 7 = 1 */
	CU_ASSERT_EQUAL(qfp_lookup16(63, lut), 0);       /* (63 + 64) >> 7 = 0 */
	CU_ASSERT_EQUAL(qfp_lookup16(128 + 64, lut), 1); /* 1 + (-64 + 64) >> 7 = 1: tie up */
	CU_ASSERT_EQUAL(qfp_lookup16(128 + 65, lut), 0);
}

static void test_int16_tables(void)
{
	CU_ASSERT_EQUAL(qfp_sigmoid_table[0], 32768);
	CU_ASSERT_EQUAL(qfp_sigmoid_table[255], 65535);
	CU_ASSERT_EQUAL(qfp_logistic16(0), 16384); /* 1/2 */
	CU_ASSERT_EQUAL(qfp_tanh16(0), 0);
	CU_ASSERT_EQUAL(qfp_logistic16(1 << 20), 32767); /* saturated */
	CU_ASSERT_EQUAL(qfp_logistic16(-(1 << 20)), 1);
	CU_ASSERT_EQUAL(qfp_tanh16(1 << 20), 32767);
	CU_ASSERT_EQUAL(qfp_tanh16(-(1 << 20)), -32767);
	/* against double over the table's domain: logistic x = v / (3 * 4096),
	 * tanh x = v / (3 * 4096) * 2 ... the table interpolates sigmoid(i/24) */
	double wl = 0, wt = 0;
	for (int32_t v = -140000; v <= 140000; v += 37) {
		double x = v / 12288.0;
		double el = fabs(qfp_logistic16(v) - 32768.0 / (1 + exp(-x)));
		double et = fabs(qfp_tanh16(v) - 32768.0 * tanh(x));
		wl = el > wl ? el : wl;
		wt = et > wt ? et : wt;
		CU_ASSERT_EQUAL(qfp_tanh16(v), -qfp_tanh16(-v));
	}
	CU_ASSERT(wl <= 3);
	CU_ASSERT(wt <= 4);
	printf("\n  int16 logistic worst %.2f tanh worst %.2f", wl, wt);
}

/* TFLM's int8 LOGISTIC / TANH (fixed point Q4, tensorflow/tflite-micro
 * reference/integer_ops/logistic.h and tanh.h), to cross-check the float LUT8 the reference uses.
 */
static int tflm_act8(int is_tanh, float s_in, int zp_in, int x)
{
	int e;
	double q = frexp((double)s_in * 0x1p27, &e);
	int32_t m = (int32_t)round(q * 0x1p31);
	int32_t radius = (int32_t)floor(15.0 * 0x1p27 / ldexp(1.0, e));
	int32_t d = x - zp_in;
	if (d <= -radius)
		return -128;
	if (d >= radius)
		return 127;
	int32_t a = qref_mbqm(d, m, e, QREF_ROUND_DOUBLE);
	int32_t r = is_tanh ? qref_rdbpot(qfp_tanh(a, 4), 24)
	                    : qref_rdbpot(qfp_logistic(a, 4), 23) - 128;
	return r < -128 ? -128 : r > 127 ? 127 : r;
}

static float logistic_f(float x)
{
	return 1.0f / (1.0f + expf(-x));
}

static float tanh_f(float x)
{
	return tanhf(x);
}

static void test_lut8_vs_tflm(void)
{
	uint64_t st = 12345;
	int mism = 0;
	for (int k = 0; k < 300; k++) {
		st = st * 6364136223846793005ULL + 1442695040888963407ULL;
		float s_in = (float)(0.002 + (double)(st >> 40) / (double)(1 << 24) * 0.3);
		int zp = (int)((st >> 20) & 255) - 128;
		for (int t = 0; t < 2; t++) {
			int8_t tab[256];
			qfp_lut8(t ? tanh_f : logistic_f, s_in, zp, t ? 1.0f / 128 : 1.0f / 256,
			         t ? 0 : -128, tab, NULL);
			for (int v = -128; v <= 127; v++)
				if (tab[v + 128] != tflm_act8(t, s_in, zp, v) && mism++ < 5)
					fprintf(stderr,
					        "\n  %s s_in %.9g zp %d v %d: lut %d tflm %d",
					        t ? "tanh" : "logistic", (double)s_in, zp, v,
					        tab[v + 128], tflm_act8(t, s_in, zp, v));
		}
	}
	CU_ASSERT_EQUAL(mism, 0);
}

/* ---- kernels: goldens ------------------------------------------------------ */

static void test_softmax_goldens(void)
{
	int64_t sh[2] = {1, 5};
	static const int x[5] = {10, 20, 30, 40, 50};
	qt in, out;
	qref_detail d;
	qcf_attr b = beta_attr(1.0);
	/* int8 -> int16, the output of TFLM's softmax_test.cc at 90b983c2 */
	tt_init(&in, QCF_INT8, 2, sh, 0.1f, 0);
	tt_fill(&in, x, 5);
	tt_init(&out, QCF_INT16, 2, sh, 1.0f / 65536, -32768);
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_DEFAULT, &d), QCF_OK);
	static const int g16[5] = {-32004, -30692, -27123, -17425, 8940};
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(get(&out, i), g16[i]);
	/* int16 -> int16 */
	tt_init(&in, QCF_INT16, 2, sh, 0.1f, 0);
	tt_fill(&in, x, 5);
	tt_init(&out, QCF_INT16, 2, sh, 1.0f / 32768, 0);
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_DEFAULT, &d), QCF_OK);
	static const int gi16[5] = {382, 1039, 2822, 7671, 20853};
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(get(&out, i), gi16[i]);
}

/* TFLM softmax_test.cc float goldens, quantized, within the test's
 * tolerance (1 LSB int8, 7 LSB int16): the 2-D case [1..5], [-1..-5]. */
static void test_softmax_tflm_float_goldens(void)
{
	static const double g[10] = {0.011656231, 0.031684921, 0.086128544, 0.234121657,
	                             0.636408647, 0.636408647, 0.234121657, 0.086128544,
	                             0.031684921, 0.011656231};
	static const int x[10] = {10, 20, 30, 40, 50, -10, -20, -30, -40, -50};
	int64_t sh[2] = {2, 5};
	qt in, out;
	qref_detail d;
	qcf_attr b = beta_attr(1.0);
	for (int k = 0; k < 3; k++) {
		qcf_dtype it = k == 1 ? QCF_INT16 : QCF_INT8, ot = k == 0 ? QCF_INT8 : QCF_INT16;
		float so = k == 0 ? 1.0f / 256 : k == 1 ? 1.0f / 32768 : 1.0f / 65536;
		int zo = k == 0 ? -128 : k == 1 ? 0 : -32768;
		int tol = k == 1 ? 7 : 1;
		tt_init(&in, it, 2, sh, 0.1f, 0);
		tt_fill(&in, x, 10);
		tt_init(&out, ot, 2, sh, so, zo);
		CU_ASSERT_EQUAL_FATAL(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_DEFAULT, &d),
		                      QCF_OK);
		for (int i = 0; i < 10; i++) {
			double q = round(g[i] / so) + zo;
			CU_ASSERT(fabs(get(&out, i) - q) <= tol);
		}
	}
}

static void test_logistic_tanh_goldens(void)
{
	static const int x[10] = {10, 20, 30, 40, 50, -10, -20, -30, -40, -50};
	static const int g[10] = {59, 97, 116, 123, 126, -59, -97, -116, -123, -126};
	qt in, out;
	qref_detail d;
	tt_1d(&in, QCF_INT8, 10, 0.1f, 0);
	tt_fill(&in, x, 10);
	tt_1d(&out, QCF_INT8, 10, 1.0f / 256, -128);
	CU_ASSERT_EQUAL(run("LOGISTIC", &in, &out, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_OK);
	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(get(&out, i), g[i]);
	/* TANH int8 at the same inputs: tanh(1) * 128 = 97.5 -> 97 .. */
	tt_1d(&out, QCF_INT8, 10, 1.0f / 128, 0);
	CU_ASSERT_EQUAL(run("TANH", &in, &out, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_OK);
	for (int i = 0; i < 10; i++) {
		double want = tanh(x[i] * 0.1) * 128;
		CU_ASSERT(fabs(get(&out, i) - (want > 127 ? 127 : want < -128 ? -128 : want)) <= 1);
	}
	/* int16: x = 0 -> 1/2 and 0; POT input scale 2^-12 */
	static const int x16[5] = {0, 4096, -4096, 32767, -32768};
	tt_1d(&in, QCF_INT16, 5, 1.0f / 4096, 0);
	tt_fill(&in, x16, 5);
	tt_1d(&out, QCF_INT16, 5, 1.0f / 32768, 0);
	CU_ASSERT_EQUAL(run("LOGISTIC", &in, &out, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_OK);
	CU_ASSERT_EQUAL(get(&out, 0), 16384);
	CU_ASSERT(fabs(get(&out, 1) - 32768 / (1 + exp(-1.0))) <= 2);
	CU_ASSERT_EQUAL(get(&out, 1) + get(&out, 2), 32768);
	CU_ASSERT(fabs(get(&out, 3) - 32768 / (1 + exp(-32767 / 4096.0))) <= 2);
	CU_ASSERT(fabs(get(&out, 4) - 32768 / (1 + exp(8.0))) <= 2);
	CU_ASSERT_EQUAL(run("TANH", &in, &out, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_OK);
	CU_ASSERT_EQUAL(get(&out, 0), 0);
	CU_ASSERT(fabs(get(&out, 1) - 32768 * tanh(1.0)) <= 2);
	CU_ASSERT_EQUAL(get(&out, 1), -get(&out, 2));
	/* non-POT input scale: the multiplier path, same function */
	tt_1d(&in, QCF_INT16, 5, 0.0003f, 0);
	tt_fill(&in, x16, 5);
	CU_ASSERT_EQUAL(run("TANH", &in, &out, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_OK);
	CU_ASSERT(fabs(get(&out, 1) - 32768 * tanh(4096 * 0.0003)) <= 3);
}

static void test_l2norm_log_softmax_goldens(void)
{
	static const int x[6] = {-71, 37, 44, 76, -46, 5};
	static const int g[6] = {-70, 38, 45, 77, -45, 6};
	int64_t sh[2] = {1, 6};
	qt in, out;
	qref_detail d;
	tt_init(&in, QCF_INT8, 2, sh, 0.015686275f, -1);
	tt_fill(&in, x, 6);
	tt_init(&out, QCF_INT8, 2, sh, 1.0f / 128, 0);
	CU_ASSERT_EQUAL(run("L2_NORMALIZATION", &in, &out, NULL, 0, QREF_ROUND_DEFAULT, &d),
	                QCF_OK);
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(get(&out, i), g[i]);
	/* a zero row stays 0; a single 1 saturates to 127 (InvSqrt(1) = INT32_MAX) */
	static const int z[6] = {-1, -1, -1, -1, -1, 0};
	tt_fill(&in, z, 6);
	CU_ASSERT_EQUAL(run("L2_NORMALIZATION", &in, &out, NULL, 0, QREF_ROUND_DEFAULT, &d),
	                QCF_OK);
	CU_ASSERT_EQUAL(get(&out, 0), 0);
	CU_ASSERT_EQUAL(get(&out, 5), 127);

	static const int xl[8] = {-1, -78, 25, 50, 37, -27, 126, 12};
	static const int gl[8] = {61, -36, 93, 125, 15, -65, 127, -16};
	int64_t sl[2] = {2, 4};
	tt_init(&in, QCF_INT8, 2, sl, 0.078431375f, -1);
	tt_fill(&in, xl, 8);
	tt_init(&out, QCF_INT8, 2, sl, 16.0f / 256, 127);
	CU_ASSERT_EQUAL(run("LOG_SOFTMAX", &in, &out, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_OK);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(get(&out, i), gl[i]);
}

/* Saturation, equal values, and the single-rounding build. */
static void test_softmax_edges(void)
{
	qt in, out;
	qref_detail d;
	qcf_attr b = beta_attr(1.0);
	/* one element: p = 1 -> 255/256 clamps to 127 */
	tt_1d(&in, QCF_INT8, 1, 0.1f, 0);
	tt_1d(&out, QCF_INT8, 1, 1.0f / 256, -128);
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_DEFAULT, &d), QCF_OK);
	CU_ASSERT_EQUAL(get(&out, 0), 127);
	/* two equal: 1/2 -> 0; four equal: 1/4 -> -64 */
	tt_1d(&in, QCF_INT8, 4, 0.1f, 0);
	tt_1d(&out, QCF_INT8, 4, 1.0f / 256, -128);
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_DEFAULT, &d), QCF_OK);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(get(&out, i), -64);
	/* 511 equal values accepted, 512 refused (LiteRT aborts) */
	tt_1d(&in, QCF_INT8, 511, 0.1f, 0);
	tt_1d(&out, QCF_INT8, 511, 1.0f / 256, -128);
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_DEFAULT, &d), QCF_OK);
	tt_1d(&in, QCF_INT8, 512, 0.1f, 0);
	tt_1d(&out, QCF_INT8, 512, 1.0f / 256, -128);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_DEFAULT, &d), &d, "aborts");
	/* single rounding is accepted and gives a distribution too */
	static const int x[5] = {-128, -3, 0, 17, 127};
	tt_1d(&in, QCF_INT8, 5, 0.05f, 0);
	tt_fill(&in, x, 5);
	tt_1d(&out, QCF_INT8, 5, 1.0f / 256, -128);
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_SINGLE, &d), QCF_OK);
	CU_ASSERT(get(&out, 4) > 0);
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, QREF_ROUND_HALF_EVEN, &d),
	                QCF_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(run("LOGISTIC", &in, &out, NULL, 0, QREF_ROUND_SINGLE, &d),
	                QCF_NOT_SUPPORTED);
}

/* ---- refusals ------------------------------------------------------------ */

static void test_refusals(void)
{
	qt in, out;
	qref_detail d;
	qcf_attr b = beta_attr(1.0);
	tt_1d(&in, QCF_INT8, 4, 0.1f, 0);
	/* SOFTMAX */
	tt_1d(&out, QCF_INT8, 4, 1.0f / 128, -128);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &b, 1, 0, &d), &d, "scale 1/256");
	tt_1d(&out, QCF_INT8, 4, 1.0f / 256, 0);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &b, 1, 0, &d), &d, "zero point");
	tt_1d(&out, QCF_INT8, 4, 1.0f / 256 * 1.0005f, -128); /* within LiteRT's 0.1% */
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, 0, &d), QCF_OK);
	tt_1d(&out, QCF_INT16, 4, 1.0f / 32768, 0);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &b, 1, 0, &d), &d, "1/65536");
	qcf_attr nb = beta_attr(0.0);
	tt_1d(&out, QCF_INT8, 4, 1.0f / 256, -128);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &nb, 1, 0, &d), &d, "beta");
	tt_1d(&in, QCF_INT8, 4, 1e-8f, 0);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &b, 1, 0, &d), &d, "2^26 > 1");
	tt_init(&in, QCF_INT8, 0, NULL, 0.1f, 0);
	tt_init(&out, QCF_INT8, 0, NULL, 1.0f / 256, -128);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &b, 1, 0, &d), &d, "rank");
	tt_1d(&in, QCF_INT16, 4, 0.001f, 2);
	tt_1d(&out, QCF_INT16, 4, 1.0f / 32768, 0);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &b, 1, 0, &d), &d, "zero points 0");
	tt_1d(&in, QCF_INT16, 4, 0.001f, 0);
	tt_1d(&out, QCF_INT8, 4, 1.0f / 256, -128);
	ASSERT_INVALID(run("SOFTMAX", &in, &out, &b, 1, 0, &d), &d, "types");
	tt_1d(&in, QCF_UINT8, 4, 0.001f, 0);
	tt_1d(&out, QCF_UINT8, 4, 1.0f / 256, 0);
	CU_ASSERT_EQUAL(run("SOFTMAX", &in, &out, &b, 1, 0, &d), QCF_NOT_SUPPORTED);

	/* LOGISTIC / TANH */
	tt_1d(&in, QCF_INT8, 4, 0.1f, 0);
	tt_1d(&out, QCF_INT8, 4, 1.0f / 256 * 1.0005f, -128); /* LiteRT compares exactly */
	ASSERT_INVALID(run("LOGISTIC", &in, &out, NULL, 0, 0, &d), &d, "scale 1/256");
	/* LiteRT's Prepare: LOGISTIC reads no zero point, TANH neither scale nor zero point; the
	 * table follows the declared ones */
	int xs[4] = {-30, -1, 2, 25};
	tt_fill(&in, xs, 4);
	tt_1d(&out, QCF_INT8, 4, 1.0f / 256, 3);
	CU_ASSERT_EQUAL(run("LOGISTIC", &in, &out, NULL, 0, 0, &d), QCF_OK);
	for (int i = 0; i < 4; i++) {
		float y = roundf(logistic_f(0.1f * (float)xs[i]) * 256.0f) + 3.0f;
		CU_ASSERT_EQUAL(get(&out, (size_t)i), y > 127 ? 127 : (int)y);
	}
	tt_1d(&out, QCF_INT8, 4, 0.0123f, 60);
	CU_ASSERT_EQUAL(run("TANH", &in, &out, NULL, 0, 0, &d), QCF_OK);
	for (int i = 0; i < 4; i++) {
		float y = roundf(tanh_f(0.1f * (float)xs[i]) * (1.0f / 0.0123f)) + 60.0f;
		CU_ASSERT_EQUAL(get(&out, (size_t)i), y > 127 ? 127 : y < -128 ? -128 : (int)y);
	}
	/* an output scale that sends round(f / s_out) out of int32: undefined in LiteRT, any */
	int8_t tab[256];
	uint8_t undef[256];
	CU_ASSERT_EQUAL(qfp_lut8(tanh_f, 0.1f, 0, 1e-12f, 0, tab, undef), 255);
	CU_ASSERT_EQUAL(undef[128], 0); /* tanh(0) = 0 */
	CU_ASSERT_EQUAL(tab[128], 0);
	CU_ASSERT_EQUAL(undef[129], 1);
	CU_ASSERT_EQUAL(qfp_lut8(tanh_f, 0.1f, 0, 1.0f / 128, 0, tab, undef), 0);
	tt_1d(&in, QCF_INT8, 4, 0.1f, 0);
	tt_1d(&out, QCF_INT16, 4, 1.0f / 32768, 0);
	ASSERT_INVALID(run("TANH", &in, &out, NULL, 0, 0, &d), &d, "output type");
	tt_1d(&in, QCF_INT16, 4, 1.0f / 4096, 1);
	ASSERT_INVALID(run("TANH", &in, &out, NULL, 0, 0, &d), &d, "zero points 0");
	tt_1d(&in, QCF_INT16, 4, 1.0f / 4096, 0);
	tt_1d(&out, QCF_INT16, 4, 1.0f / 16384, 0);
	ASSERT_INVALID(run("LOGISTIC", &in, &out, NULL, 0, 0, &d), &d, "2^-15");
	tt_1d(&out, QCF_INT16, 4, 0.0000305180f, 0); /* CheckedLog2 power of two */
	CU_ASSERT_EQUAL(run("TANH", &in, &out, NULL, 0, 0, &d), QCF_OK);
	ASSERT_INVALID(run("LOGISTIC", &in, &out, NULL, 0, 0, &d), &d, "exactly");

	/* L2_NORMALIZATION */
	tt_1d(&in, QCF_INT8, 4, 0.1f, 0);
	tt_1d(&out, QCF_INT8, 4, 1.0f / 127, 0);
	ASSERT_INVALID(run("L2_NORMALIZATION", &in, &out, NULL, 0, 0, &d), &d, "1/128");
	tt_1d(&out, QCF_INT8, 4, 1.0f / 128, 1);
	ASSERT_INVALID(run("L2_NORMALIZATION", &in, &out, NULL, 0, 0, &d), &d, "zero point 0");
	tt_1d(&out, QCF_INT8, 4, 1.0f / 128, 0);
	qcf_attr relu = qt_str("fused_activation_function", "RELU");
	ASSERT_INVALID(run("L2_NORMALIZATION", &in, &out, &relu, 1, 0, &d), &d, "NONE");
	qcf_attr none = qt_str("fused_activation_function", "NONE");
	CU_ASSERT_EQUAL(run("L2_NORMALIZATION", &in, &out, &none, 1, 0, &d), QCF_OK);
	tt_1d(&in, QCF_INT16, 4, 0.1f, 0);
	tt_1d(&out, QCF_INT16, 4, 1.0f / 128, 0);
	ASSERT_INVALID(run("L2_NORMALIZATION", &in, &out, NULL, 0, 0, &d), &d, "int8");

	/* LOG_SOFTMAX */
	tt_1d(&in, QCF_INT8, 4, 0.1f, 0);
	tt_1d(&out, QCF_INT8, 4, 16.0f / 256, 0);
	ASSERT_INVALID(run("LOG_SOFTMAX", &in, &out, NULL, 0, 0, &d), &d, "127");
	tt_1d(&out, QCF_INT8, 4, 16.0f / 255, 127);
	ASSERT_INVALID(run("LOG_SOFTMAX", &in, &out, NULL, 0, 0, &d), &d, "16/256");
	tt_1d(&in, QCF_INT8, 4, 1e-8f, 0);
	tt_1d(&out, QCF_INT8, 4, 16.0f / 256, 127);
	ASSERT_INVALID(run("LOG_SOFTMAX", &in, &out, NULL, 0, 0, &d), &d, "aborts");
	/* shapes */
	tt_1d(&in, QCF_INT8, 4, 0.1f, 0);
	tt_1d(&out, QCF_INT8, 3, 16.0f / 256, 127);
	ASSERT_INVALID(run("LOG_SOFTMAX", &in, &out, NULL, 0, 0, &d), &d, "shape");
}

/* ---- real-valued hooks --------------------------------------------------- */

static void test_real_hooks(void)
{
	static const int x[4] = {-20, 0, 10, 30};
	qt in, out;
	double v[4];
	qcf_attr b = beta_attr(1.0);
	tt_1d(&in, QCF_INT8, 4, 0.1f, 10);
	tt_fill(&in, x, 4);
	tt_1d(&out, QCF_INT8, 4, 1.0f / 256, -128);
	CU_ASSERT_EQUAL(qref_real_output(mkcall("SOFTMAX", &in, &out, &b, 1), 0, v), QCF_OK);
	double s = v[0] + v[1] + v[2] + v[3];
	CU_ASSERT(fabs(s - 1) < 1e-12);
	CU_ASSERT(fabs(v[3] / v[2] - exp(20 * (double)0.1f)) < 1e-12);
	CU_ASSERT_EQUAL(qref_real_output(mkcall("LOG_SOFTMAX", &in, &out, NULL, 0), 0, v), QCF_OK);
	CU_ASSERT(fabs(v[3] - v[2] - 20 * (double)0.1f) < 1e-12);
	CU_ASSERT(v[3] < 0);
	CU_ASSERT_EQUAL(qref_real_output(mkcall("LOGISTIC", &in, &out, NULL, 0), 0, v), QCF_OK);
	CU_ASSERT(fabs(v[2] - 0.5) < 1e-15); /* x = 10 = zp */
	CU_ASSERT_EQUAL(qref_real_output(mkcall("TANH", &in, &out, NULL, 0), 0, v), QCF_OK);
	CU_ASSERT(fabs(v[3] - tanh(20 * (double)0.1f)) < 1e-15);
	CU_ASSERT_EQUAL(qref_real_output(mkcall("L2_NORMALIZATION", &in, &out, NULL, 0), 0, v),
	                QCF_OK);
	CU_ASSERT(fabs(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3] - 1) < 1e-12);
	tt_1d(&in, QCF_INT16, 4, 0.1f, 0);
	CU_ASSERT_EQUAL(qref_real_output(mkcall("LOG_SOFTMAX", &in, &out, NULL, 0), 0, v),
	                QCF_INVALID_PARAM);
}

/* ---- end to end ------------------------------------------------------------ */

static void test_specs_end_to_end(void)
{
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r =
	        qct_run_report(tmp, &st, NULL,
	                       "specs/litert/softmax.yaml specs/litert/softmax_int16.yaml "
	                       "specs/litert/logistic.yaml specs/litert/tanh.yaml "
	                       "specs/litert/l2_normalization.yaml specs/litert/log_softmax.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	size_t n = t.cases, bad = t.other, err = t.expected_error, golden = t.golden;
	printf("\n  activations: %zu cases, %zu expected errors, %zu golden\n", n, err, golden);
	CU_ASSERT(n >= 4000);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(err >= 30);
	CU_ASSERT(golden >= 5);
	json_decref(r);
	qct_rmdir(tmp);
}

/* RELU's multiplier is QuantizeMultiplier(s_in / s_out in float32): a quotient beyond float32
 * (1e30 / 1e-30) is undefined in LiteRT, so every output is, and the reference must not convert
 * round(inf) to an integer on the way (it did: undefined behaviour in C). */
static void test_relu_scale_quotient_overflows(void)
{
	qt in, out;
	tt_1d(&in, QCF_INT8, 4, 1e30f, 0);
	tt_1d(&out, QCF_INT8, 4, 1e-30f, 0);
	int v[] = {-3, 0, 1, 100};
	tt_fill(&in, v, 4);
	qt_det x;
	qref_detail *d = qt_det_init(&x, QREF_ROUND_DEFAULT);
	CU_ASSERT_EQUAL(qref_execute(mkcall("RELU6", &in, &out, NULL, 0), d), QCF_OK);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(x.any[0][i], 1);
}

void qct_register_litert_activations(void)
{
	CU_pSuite s = qct_suite("reference/litert_activations/fixedpoint");
	CU_add_test(s, "clz, saturating shift, rounding half sum, wrapping", test_fp_basics);
	CU_add_test(s, "exp: exp(0) = INT32_MAX, sweep vs double, monotone", test_fp_exp);
	CU_add_test(s, "1/(1+x), logistic(0) = 2^30, tanh(0) = 0, symmetry",
	            test_fp_recip_logistic_tanh);
	CU_add_test(s, "log for x >= 1 vs double", test_fp_log);
	CU_add_test(s, "CheckedLog2", test_fp_checked_log2);
	CU_add_test(s, "LUT16 builder and lookup", test_lut16);
	CU_add_test(s, "int16 sigmoid table, logistic16, tanh16", test_int16_tables);
	CU_add_test(s, "int8 LUT equals TFLM fixed point on 300 scales", test_lut8_vs_tflm);
	s = qct_suite("reference/litert_activations/kernels");
	CU_add_test(s, "SOFTMAX goldens (TFLM run)", test_softmax_goldens);
	CU_add_test(s, "SOFTMAX TFLM float goldens within tolerance",
	            test_softmax_tflm_float_goldens);
	CU_add_test(s, "LOGISTIC / TANH goldens", test_logistic_tanh_goldens);
	CU_add_test(s, "L2_NORMALIZATION / LOG_SOFTMAX goldens", test_l2norm_log_softmax_goldens);
	CU_add_test(s, "SOFTMAX edges, abort at 512 equal values, roundings", test_softmax_edges);
	CU_add_test(s, "refusals", test_refusals);
	CU_add_test(s, "real-valued hooks", test_real_hooks);
	CU_add_test(s, "specs end to end", test_specs_end_to_end);
	CU_add_test(s, "RELU6 with a scale quotient beyond float32: every output undefined",
	            test_relu_scale_quotient_overflows);
}
