/*
 * Tests of the reference kernels (reference/): LiteRT requantization
 * helpers, LiteRT QUANTIZE/DEQUANTIZE, torch and TF fake quantization,
 * ONNX Q/DQ, the dispatch table and the plugin wrapper. Golden values are
 * the worked values of docs/ and the specs/<framework>/OPERATORS.md pages unless a comment says how
 * they were derived.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"
#include "reference/dtype.h"
#include "reference/kernel.h"
#include "reference/qref.h"
#include "reference/requant.h"
#include "tensor.h"

/* ---- small builders ---------------------------------------------------- */

#define MAXN 32

/* A 1-D tensor of n elements (data zeroed). Do not copy a qt after this. */
static void tt_init(qt *x, qcf_dtype dt, int64_t n)
{
	qt_init(x, dt, 1, &n);
}

static void tt_shape(qt *x, int rank, const int64_t *shape)
{
	x->t.rank = rank;
	memcpy(x->shape, shape, sizeof(int64_t) * (size_t)rank);
	x->t.nbytes = qcf_dtype_nbytes(x->t.dtype, qref_numel(rank, shape));
}

static qcf_op_call *mkcall(const char *sem, const char *op, qt **ins, int nin, qt **outs, int nout,
                           const qcf_attr *attrs, int na)
{
	return qt_call(sem, op, ins, nin, outs, nout, attrs, na);
}

static qcf_status run(const char *sem, const char *op, qt **ins, int nin, qt **outs, int nout,
                      const qcf_attr *attrs, int na, qref_detail *d)
{
	return qt_run(sem, op, ins, nin, outs, nout, attrs, na, d);
}

/* Asserts an INVALID_PARAM answer with a message containing `rule`. */
#define ASSERT_INVALID(st, dd, rule)                                                               \
	do {                                                                                       \
		CU_ASSERT_EQUAL(st, QCF_INVALID_PARAM);                                            \
		CU_ASSERT_PTR_NOT_NULL(strstr((dd)->message, rule));                               \
	} while (0)

/* ---- requant helpers --------------------------------------------------- */

static void test_qm_golden(void)
{
	static const struct {
		double d;
		int32_t m;
		int s;
	} g[] = {
	        {0.25, 1073741824, -1}, {0.5, 1073741824, 0}, {0.75, 1610612736, 0},
	        {1.25, 1342177280, 1},  {2.0, 1073741824, 2}, {0x1p-32, 1073741824, -31},
	        {0.99 * 0x1p-32, 0, 0},
	};
	static const qref_rounding builds[] = {QREF_ROUND_DEFAULT, QREF_ROUND_DOUBLE,
	                                       QREF_ROUND_SINGLE};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		for (int r = 0; r < 3; r++) {
			int32_t m = -1;
			int s = -99;
			qref_quantize_multiplier(g[i].d, builds[r], &m, &s);
			CU_ASSERT_EQUAL(m, g[i].m);
			CU_ASSERT_EQUAL(s, g[i].s);
		}
	/* mantissa tie 2^30 + 0.5 rounds away (not to even) */
	int32_t m0;
	int s0;
	qref_quantize_multiplier(0.5 + 0x1p-32, QREF_ROUND_DOUBLE, &m0, &s0);
	CU_ASSERT_EQUAL(m0, 1073741825);
	CU_ASSERT_EQUAL(s0, 0);
	/* mantissa rounding up to 2^31: (1 - 2^-40) -> (2^30, 1) */
	int32_t m;
	int s;
	qref_quantize_multiplier(1.0 - 0x1p-40, QREF_ROUND_DOUBLE, &m, &s);
	CU_ASSERT_EQUAL(m, 1073741824);
	CU_ASSERT_EQUAL(s, 1);
}

static void test_qm_single_clamp(void)
{
	int32_t m;
	int s;
	qref_quantize_multiplier(0x1p31, QREF_ROUND_DOUBLE, &m, &s);
	CU_ASSERT_EQUAL(m, 1073741824);
	CU_ASSERT_EQUAL(s, 32);
	qref_quantize_multiplier(0x1p31, QREF_ROUND_SINGLE, &m, &s);
	CU_ASSERT_EQUAL(m, INT32_MAX);
	CU_ASSERT_EQUAL(s, 30);
}

static void test_srdhm_ties(void)
{
	const int32_t half = 1 << 30;                 /* 0.5 in Q0.31 */
	CU_ASSERT_EQUAL(qref_srdhm(3, half), 2);      /* 1.5 -> 2 */
	CU_ASSERT_EQUAL(qref_srdhm(-3, half), -1);    /* -1.5 -> -1: toward +inf */
	CU_ASSERT_EQUAL(qref_srdhm(1, half), 1);      /* 0.5 -> 1 */
	CU_ASSERT_EQUAL(qref_srdhm(-1, half), 0);     /* -0.5 -> 0 */
	CU_ASSERT_EQUAL(qref_srdhm(-5, half), -2);    /* -2.5 -> -2 */
	CU_ASSERT_EQUAL(qref_srdhm(-7, 1 << 29), -2); /* -1.75 -> -2 */
	CU_ASSERT_EQUAL(qref_srdhm(INT32_MIN, INT32_MIN), INT32_MAX);
	CU_ASSERT_EQUAL(qref_srdhm(INT32_MIN, INT32_MAX), INT32_MIN + 1);
}

static void test_rdbpot_ties(void)
{
	CU_ASSERT_EQUAL(qref_rdbpot(3, 1), 2);   /* 1.5 -> 2 */
	CU_ASSERT_EQUAL(qref_rdbpot(-3, 1), -2); /* -1.5 -> -2: away from zero */
	CU_ASSERT_EQUAL(qref_rdbpot(-6, 2), -2); /* -1.5 -> -2 */
	CU_ASSERT_EQUAL(qref_rdbpot(-2, 2), -1); /* -0.5 -> -1 */
	CU_ASSERT_EQUAL(qref_rdbpot(2, 2), 1);   /* 0.5 -> 1 */
	CU_ASSERT_EQUAL(qref_rdbpot(-5, 2), -1); /* -1.25 -> -1 */
	CU_ASSERT_EQUAL(qref_rdbpot(7, 0), 7);
	CU_ASSERT_EQUAL(qref_rdbpot(INT32_MIN, 31), -1);
	CU_ASSERT_EQUAL(qref_rdbpot(INT32_MAX, 31), 1);
}

static void test_mbqm_builds_differ(void)
{
	int32_t m;
	int s;
	qref_quantize_multiplier(0.25, QREF_ROUND_DOUBLE, &m, &s);
	/* 5 * 0.25 = 1.25: double rounding 1.25 -> 2.5 -> 3 -> 1.5 -> 2 */
	CU_ASSERT_EQUAL(qref_mbqm(5, m, s, QREF_ROUND_DOUBLE), 2);
	CU_ASSERT_EQUAL(qref_mbqm(5, m, s, QREF_ROUND_SINGLE), 1);
	/* -6 * 0.25 = -1.5: double -> -2 (RDBPOT away), single -> -1 (+inf) */
	CU_ASSERT_EQUAL(qref_mbqm(-6, m, s, QREF_ROUND_DOUBLE), -2);
	CU_ASSERT_EQUAL(qref_mbqm(-6, m, s, QREF_ROUND_SINGLE), -1);
	/* left shift path: 3 * 1.25 = 3.75 -> 4 in both */
	qref_quantize_multiplier(1.25, QREF_ROUND_DOUBLE, &m, &s);
	CU_ASSERT_EQUAL(qref_mbqm(3, m, s, QREF_ROUND_DOUBLE), 4);
	CU_ASSERT_EQUAL(qref_mbqm(3, m, s, QREF_ROUND_SINGLE), 4);
	CU_ASSERT_EQUAL(qref_mbqm_gt1(3, m, s, QREF_ROUND_DOUBLE), 4);
	qref_quantize_multiplier(0.25, QREF_ROUND_DOUBLE, &m, &s);
	CU_ASSERT_EQUAL(qref_mbqm_lt1(5, m, s, QREF_ROUND_DOUBLE), 2);
	CU_ASSERT_EQUAL(qref_mbqm_lt1(5, m, s, QREF_ROUND_SINGLE), 1);
	CU_ASSERT_FALSE(qref_mbqm_preshift_fits(1 << 30, 2));
	CU_ASSERT_TRUE(qref_mbqm_preshift_fits(-(1 << 29), 2));
}

static void test_mbqm64(void)
{
	/* reduced multiplier (2^30 + 2^15) >> 16 = 2^14; ties toward +inf */
	CU_ASSERT_EQUAL(qref_mbqm64(3, 1 << 30, 0), 2);   /* 1.5 -> 2 */
	CU_ASSERT_EQUAL(qref_mbqm64(-3, 1 << 30, 0), -1); /* -1.5 -> -1 */
	/* only 16 multiplier bits: m = 2^30 + 2^14 reduces to 2^14 as well */
	CU_ASSERT_EQUAL(qref_mbqm64(INT64_C(1) << 20, (1 << 30) + (1 << 14), 0), 1 << 19);
	/* the reduction rounds: (2^30 + 2^15 + 2^15) >> 16 = 2^14 + 1 */
	CU_ASSERT_EQUAL(qref_mbqm64(INT64_C(1) << 20, (1 << 30) + (1 << 15), 0), 32 * 16385);
	/* m >= 0x7FFF0000 reduces to 0x7FFF: 2^40 * 0x7FFF / 2^35, not about 2^20 */
	CU_ASSERT_EQUAL(qref_mbqm64(INT64_C(1) << 40, 0x7FFFFFFF, -20), 32767 * 32);
}

/* ---- LiteRT ------------------------------------------------------------ */

static void test_litert_quantize_float(void)
{
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_FLOAT32, 8);
	tt_init(&y, QCF_INT8, 8);
	qt_quant1(&y, 0.5f, 0);
	/* x / 0.5 = -2.5, 2.5, 1.5, -0.5, 2000, -3.25, 0.49, NaN */
	const double xv[] = {-1.25, 1.25, 0.75, -0.25, 1000, -1.625, 0.245, NAN};
	qt_fill(&x, xv, 8);
	qt_det dd;
	qref_detail *d = qt_det_init(&dd, QREF_ROUND_DEFAULT);
	CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), QCF_OK);
	const double want[] = {-3, 3, 2, -1, 127, -3};
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(qt_get(&y, i), want[i]);
		CU_ASSERT_EQUAL(dd.any[0][i], 0);
	}
	CU_ASSERT_EQUAL(qt_get(&y, 6), 0);
	CU_ASSERT_EQUAL(dd.any[0][7], 1); /* NaN: undefined in LiteRT */
	CU_ASSERT_EQUAL(dd.lo[0][7], -128);
	CU_ASSERT_EQUAL(dd.hi[0][7], 127);

	/* zero point added after rounding; per-axis scales */
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_UINT8, 4);
	const float s[] = {0.5f, 0.5f, 2.0f, 2.0f};
	const int32_t z[] = {10, 10, 128, 128};
	qt_quant(&y, 0, 4, s, z);
	const double xv2[] = {-1.25, INFINITY, 5.0, -3.0};
	qt_fill(&x, xv2, 4);
	d = qt_det_init(&dd, QREF_ROUND_DEFAULT);
	CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 7);
	CU_ASSERT_EQUAL(dd.any[0][1], 1);    /* inf: undefined cast */
	CU_ASSERT_EQUAL(qt_get(&y, 2), 131); /* 2.5 -> 3, + 128 */
	CU_ASSERT_EQUAL(qt_get(&y, 3), 126); /* -1.5 -> -2, + 128 */
}

/* int8 (scale 0.25, zp 1) -> int8 (scale 1, zp -3): ratio 0.25. */
static void requant_case(qref_rounding r, double *o0, double *o1)
{
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 2);
	tt_init(&y, QCF_INT8, 2);
	qt_quant1(&x, 0.25f, 1);
	qt_quant1(&y, 1.0f, -3);
	const double xv[] = {6, -5}; /* q - zp = 5, -6 */
	qt_fill(&x, xv, 2);
	qt_det dd;
	CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, qt_det_init(&dd, r)),
	                QCF_OK);
	*o0 = qt_get(&y, 0);
	*o1 = qt_get(&y, 1);
}

static void test_litert_requantize(void)
{
	double a, b;
	requant_case(QREF_ROUND_DOUBLE, &a, &b);
	CU_ASSERT_EQUAL(a, 2 - 3);  /* 1.25 -> 2 */
	CU_ASSERT_EQUAL(b, -2 - 3); /* -1.5 -> -2 */
	requant_case(QREF_ROUND_SINGLE, &a, &b);
	CU_ASSERT_EQUAL(a, 1 - 3);  /* 1.25 -> 1 */
	CU_ASSERT_EQUAL(b, -1 - 3); /* -1.5 -> -1 */

	/* a pre-shift LiteRT's int32 arithmetic cannot hold is unpredictable */
	{
		qt x2, y2;
		qt *in2[] = {&x2}, *out2[] = {&y2};
		tt_init(&x2, QCF_INT16, 2);
		tt_init(&y2, QCF_INT8, 2);
		qt_quant1(&x2, 0x1p20f, 0);
		qt_quant1(&y2, 1.0f, 0);
		const double v2[] = {32767, 0};
		qt_fill(&x2, v2, 2);
		static const qref_rounding builds[] = {QREF_ROUND_DEFAULT, QREF_ROUND_DOUBLE,
		                                       QREF_ROUND_SINGLE};
		for (int r = 0; r < 3; r++) {
			qt_det d2;
			CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in2, 1, out2, 1, NULL, 0,
			                    qt_det_init(&d2, builds[r])),
			                QCF_OK);
			CU_ASSERT_EQUAL(d2.any[0][0], 1);
			CU_ASSERT_EQUAL(d2.lo[0][0], -128);
			CU_ASSERT_EQUAL(d2.any[0][1], 0);
			CU_ASSERT_EQUAL(qt_get(&y2, 1), 0);
		}
	}

	/* detail NULL means double rounding */
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 1);
	tt_init(&y, QCF_INT16, 1);
	qt_quant1(&x, 0.25f, 1);
	qt_quant1(&y, 1.0f, 0);
	const double xv[] = {6};
	qt_fill(&x, xv, 1);
	CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, NULL), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 2);
}

static void test_litert_invalid(void)
{
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	qt_det dd;
	qref_detail *d = qt_det_init(&dd, QREF_ROUND_DEFAULT);
	/* int16 -> int16 needs zero points 0 */
	tt_init(&x, QCF_INT16, 2);
	tt_init(&y, QCF_INT16, 2);
	qt_quant1(&x, 1.0f, 1);
	qt_quant1(&y, 1.0f, 0);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "zero points 0");
	/* uint8 -> int32 is not an allowed pair */
	tt_init(&x, QCF_UINT8, 2);
	tt_init(&y, QCF_INT32, 2);
	qt_quant1(&x, 1.0f, 0);
	qt_quant1(&y, 1.0f, 0);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "not allowed");
	/* float -> int8 without quantization */
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_INT8, 2);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "quantization");
	/* shape mismatch */
	qt_quant1(&y, 1.0f, 0);
	y.shape[0] = 3;
	y.t.nbytes = 3;
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "shape");
	/* per-axis with a scale count that is not the axis size */
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_INT8, 2);
	const float s3[] = {1.0f, 1.0f, 1.0f};
	const int32_t z3[] = {0, 0, 0};
	qt_quant(&y, 0, 3, s3, z3);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "3 scales");
	/* DEQUANTIZE int16 with zero point != 0 */
	tt_init(&x, QCF_INT16, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	qt_quant1(&x, 1.0f, 3);
	ASSERT_INVALID(run("litert", "DEQUANTIZE", in, 1, out, 1, NULL, 0, d), d, "zero point 0");
}

static void test_litert_dequantize(void)
{
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 4);
	tt_init(&y, QCF_FLOAT32, 4);
	qt_quant1(&x, 0.1f, -128);
	const double xv[] = {-127, -126, 127, -128};
	qt_fill(&x, xv, 4);
	qt_det dd;
	qref_detail *d = qt_det_init(&dd, QREF_ROUND_DEFAULT);
	CU_ASSERT_EQUAL(run("litert", "DEQUANTIZE", in, 1, out, 1, NULL, 0, d), QCF_OK);
	/* (q - zp) * s rounded once: q*s - zp*s in float gives 0.100000381 here */
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), 0.1f);
	CU_ASSERT_EQUAL((float)qt_get(&y, 1), (float)(2.0 * (double)0.1f));
	CU_ASSERT_EQUAL((float)qt_get(&y, 2), (float)(255.0 * (double)0.1f));
	CU_ASSERT_EQUAL(qt_get(&y, 3), 0.0);
	CU_ASSERT_EQUAL(dd.step[0][2], (double)0.1f);

	/* per-axis int16 (zero point 0) */
	int64_t shp[] = {2, 2};
	tt_init(&x, QCF_INT16, 4);
	tt_init(&y, QCF_FLOAT32, 4);
	tt_shape(&x, 2, shp);
	tt_shape(&y, 2, shp);
	const float s[] = {0.5f, 0.25f};
	const int32_t z[] = {0, 0};
	qt_quant(&x, 1, 2, s, z);
	const double xv2[] = {3, 3, -32768, 32767};
	qt_fill(&x, xv2, 4);
	d = qt_det_init(&dd, QREF_ROUND_DEFAULT);
	CU_ASSERT_EQUAL(run("litert", "DEQUANTIZE", in, 1, out, 1, NULL, 0, d), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 1.5);
	CU_ASSERT_EQUAL(qt_get(&y, 1), 0.75);
	CU_ASSERT_EQUAL(qt_get(&y, 2), -16384.0);
	CU_ASSERT_EQUAL(qt_get(&y, 3), 8191.75);
	CU_ASSERT_EQUAL(dd.step[0][1], 0.25);
	CU_ASSERT_EQUAL(dd.step[0][2], 0.5);
}

/* ---- torch ------------------------------------------------------------- */

static qcf_status torch_pt(qt *x, qt *y, qt *mask, double scale, int64_t zp, int64_t qmin,
                           int64_t qmax, qref_detail *d)
{
	qcf_attr at[] = {qt_flt("scale", scale), qt_int("zero_point", zp),
	                 qt_int("quant_min", qmin), qt_int("quant_max", qmax)};
	qt *in[] = {x}, *out[] = {y, mask};
	return run("torch",
	           mask ? "fake_quantize_per_tensor_affine_cachemask"
	                : "fake_quantize_per_tensor_affine",
	           in, 1, out, mask ? 2 : 1, at, 4, d);
}

static void test_torch_libtorch_example(void)
{
	/* quant range not stated with the example; it only needs to hold 1..7 */
	qt x, y;
	tt_init(&x, QCF_FLOAT32, 7);
	tt_init(&y, QCF_FLOAT32, 7);
	const double xv[] = {-0.25f, -0.15f, -0.05f, 0.05f, 0.15f, 0.25f, 0.35f};
	qt_fill(&x, xv, 7);
	CU_ASSERT_EQUAL(torch_pt(&x, &y, NULL, 0.1, 3, 0, 255, NULL), QCF_OK);
	const float want[] = {-0.2f, -0.2f, 0.0f, 0.0f, 0.2f, 0.2f, 0.4f};
	for (int i = 0; i < 7; i++)
		CU_ASSERT_EQUAL((float)qt_get(&y, i), want[i]);
}

static void test_torch_reciprocal(void)
{
	const float xf = 0.273939937f, s = 0.00214854861f;
	volatile float inv = 1.0f / s;
	CU_ASSERT_EQUAL(xf * inv, 127.5f);   /* multiply: a tie, to even 128 */
	CU_ASSERT_NOT_EQUAL(xf / s, 127.5f); /* divide: 127.499992 -> 127 */
	qt x, y;
	tt_init(&x, QCF_FLOAT32, 1);
	tt_init(&y, QCF_FLOAT32, 1);
	const double xv[] = {xf};
	qt_fill(&x, xv, 1);
	qt_det dd;
	CU_ASSERT_EQUAL(torch_pt(&x, &y, NULL, s, 0, 0, 255, qt_det_init(&dd, 0)), QCF_OK);
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), 128.0f * s);
	CU_ASSERT_EQUAL(dd.step[0][0], (double)s);
}

static qcf_status torch_pc(qt *x, qt *sc, qt *zp, qt *y, qt *mask, int64_t axis, int64_t qmin,
                           int64_t qmax, qref_detail *d)
{
	qcf_attr at[] = {qt_int("axis", axis), qt_int("quant_min", qmin),
	                 qt_int("quant_max", qmax)};
	qt *in[] = {x, sc, zp}, *out[] = {y, mask};
	return run("torch",
	           mask ? "fake_quantize_per_channel_affine_cachemask"
	                : "fake_quantize_per_channel_affine",
	           in, 3, out, mask ? 2 : 1, at, 3, d);
}

static void test_torch_int_vs_float_zp(void)
{
	/* x * inv = 0.5 (a tie) with zero point 1 */
	qt x, sc, zp, y;
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&sc, QCF_FLOAT32, 2);
	tt_init(&zp, QCF_INT32, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	const double xv[] = {0.25, -0.25}, sv[] = {0.5, 0.5}, zv[] = {1, 1};
	qt_fill(&x, xv, 2);
	qt_fill(&sc, sv, 2);
	qt_fill(&zp, zv, 2);
	qt_det dd;
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, qt_det_init(&dd, 0)), QCF_OK);
	/* int zp: 1 + nearbyint(0.5) = 1 -> 0; 1 + nearbyint(-0.5) = 1 -> 0 */
	CU_ASSERT_EQUAL(qt_get(&y, 0), 0.0);
	CU_ASSERT_EQUAL(qt_get(&y, 1), 0.0);
	/* float zp: lrintf(1 + 0.5) = 2 -> 0.5; lrintf(1 - 0.5) = 0 -> -0.5 */
	tt_init(&zp, QCF_FLOAT32, 2);
	qt_fill(&zp, zv, 2);
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, qt_det_init(&dd, 0)), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 0.5);
	CU_ASSERT_EQUAL(qt_get(&y, 1), -0.5);
	CU_ASSERT_EQUAL(dd.any[0][0], 0);
	/* float16 zero point takes the float path too */
	tt_init(&zp, QCF_FLOAT16, 2);
	qt_fill(&zp, zv, 2);
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, NULL), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 0.5);
}

static void test_torch_fma_tie(void)
{
	/* zf + x * inv = 2.5 exactly (rint: 2), fused x * inv + zf = 2.50000024 (3) */
	const float s = 0x1.99999ep-3f, xf = 0x1.9999ap-1f;
	qt x, sc, zp, y;
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&sc, QCF_FLOAT32, 1);
	tt_init(&zp, QCF_FLOAT32, 1);
	tt_init(&y, QCF_FLOAT32, 2);
	int64_t shp[] = {2, 1};
	tt_shape(&x, 2, shp);
	tt_shape(&y, 2, shp);
	const double xv[] = {xf, 0.0}, sv[] = {s}, zv[] = {-1.5};
	qt_fill(&x, xv, 2);
	qt_fill(&sc, sv, 1);
	qt_fill(&zp, zv, 1);
	qt_det dd;
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 1, -128, 127, qt_det_init(&dd, 0)),
	                QCF_OK);
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), (float)(3.5 * (double)s));
	CU_ASSERT_EQUAL(dd.any[0][0], 1);
	CU_ASSERT_EQUAL(dd.lo[0][0], (double)(float)(3.5 * (double)s));
	CU_ASSERT_EQUAL(dd.hi[0][0], (double)(float)(4.5 * (double)s));
	CU_ASSERT_EQUAL(dd.any[0][1], 0); /* -1.5 + 0: rint(-1.5) = -2 either way */
}

static void test_torch_mask(void)
{
	qt x, y, m;
	tt_init(&x, QCF_FLOAT32, 6);
	tt_init(&y, QCF_FLOAT32, 6);
	tt_init(&m, QCF_BOOL, 6);
	const double xv[] = {-1, 0, 10, 10.4, 10.6, 11};
	qt_fill(&x, xv, 6);
	CU_ASSERT_EQUAL(torch_pt(&x, &y, &m, 1.0, 0, 0, 10, NULL), QCF_OK);
	const double wy[] = {0, 0, 10, 10, 10, 10}, wm[] = {0, 1, 1, 1, 0, 0};
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(qt_get(&y, i), wy[i]);
		CU_ASSERT_EQUAL(qt_get(&m, i), wm[i]);
	}
	/* per channel, same rule on the unclamped q */
	qt sc, zp;
	tt_init(&sc, QCF_FLOAT32, 1);
	tt_init(&zp, QCF_INT32, 1);
	const double sv[] = {1}, zv[] = {0};
	qt_fill(&sc, sv, 1);
	qt_fill(&zp, zv, 1);
	int64_t shp[] = {6, 1};
	tt_shape(&x, 2, shp);
	tt_shape(&y, 2, shp);
	tt_shape(&m, 2, shp);
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, &m, 1, 0, 10, NULL), QCF_OK);
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(qt_get(&y, i), wy[i]);
		CU_ASSERT_EQUAL(qt_get(&m, i), wm[i]);
	}
}

static void test_torch_undefined(void)
{
	qt x, y, m;
	tt_init(&x, QCF_FLOAT32, 5);
	tt_init(&y, QCF_FLOAT32, 5);
	tt_init(&m, QCF_BOOL, 5);
	const double xv[] = {NAN, INFINITY, -INFINITY, 1e30, 3};
	qt_fill(&x, xv, 5);
	qt_det dd;
	CU_ASSERT_EQUAL(torch_pt(&x, &y, &m, 0.5, 2, -8, 7, qt_det_init(&dd, 0)), QCF_OK);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(dd.any[0][i], 1);
		CU_ASSERT_EQUAL(dd.lo[0][i], -5.0); /* (-8 - 2) * 0.5 */
		CU_ASSERT_EQUAL(dd.hi[0][i], 2.5);  /* (7 - 2) * 0.5 */
		CU_ASSERT_EQUAL(dd.any[1][i], 1);
		CU_ASSERT(qt_get(&y, i) >= -5.0 && qt_get(&y, i) <= 2.5);
	}
	CU_ASSERT_EQUAL(dd.any[0][4], 0);
	CU_ASSERT_EQUAL(qt_get(&y, 4), 2.5); /* 6 + 2 = 8 -> 7 */
	CU_ASSERT_EQUAL(qt_get(&m, 4), 0);
}

static void test_torch_float64(void)
{
	/* per tensor: (q - zp) * scale in float even for float64 input */
	qt x, y;
	tt_init(&x, QCF_FLOAT64, 1);
	tt_init(&y, QCF_FLOAT64, 1);
	const double xv[] = {0.3};
	qt_fill(&x, xv, 1);
	CU_ASSERT_EQUAL(torch_pt(&x, &y, NULL, 0.1, 0, -128, 127, NULL), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), (double)(3.0f * 0.1f)); /* 0.30000001192092896 */
	/* per channel: (double)(q - zp) * (double)scale */
	qt sc, zp;
	tt_init(&sc, QCF_FLOAT32, 1);
	tt_init(&zp, QCF_INT32, 1);
	const double sv[] = {0.1}, zv[] = {0};
	qt_fill(&sc, sv, 1);
	qt_fill(&zp, zv, 1);
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 0, -128, 127, NULL), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 3.0 * (double)0.1f); /* 0.30000000447034836 */
	/* float16 input: result rounded to float16 */
	tt_init(&x, QCF_FLOAT16, 1);
	tt_init(&y, QCF_FLOAT16, 1);
	qt_fill(&x, xv, 1);
	CU_ASSERT_EQUAL(torch_pt(&x, &y, NULL, 0.1, 0, -128, 127, NULL), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), (double)qref_f16_to_f32(qref_f32_to_f16(3.0f * 0.1f)));
}

static void test_torch_checks(void)
{
	qt x, y, sc, zp;
	qt_det dd;
	qref_detail *d = qt_det_init(&dd, 0);
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	ASSERT_INVALID(torch_pt(&x, &y, NULL, 0.1, 0, 5, 4, d), d, "`quant_min` should be");
	ASSERT_INVALID(torch_pt(&x, &y, NULL, 0.1, 300, 0, 255, d), d, "`zero_point` must be");
	tt_init(&x, QCF_INT8, 2);
	tt_init(&y, QCF_INT8, 2);
	ASSERT_INVALID(torch_pt(&x, &y, NULL, 0.1, 0, 0, 255, d), d, "float32");

	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	tt_init(&sc, QCF_FLOAT32, 2);
	tt_init(&zp, QCF_INT32, 2);
	const double sv[] = {1, 1}, zv[] = {0, 300};
	qt_fill(&sc, sv, 2);
	qt_fill(&zp, zv, 2);
	ASSERT_INVALID(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, d), d, "`zero_point` must be");
	ASSERT_INVALID(torch_pc(&x, &sc, &zp, &y, NULL, 1, 0, 255, d), d, "`axis` must be");
	ASSERT_INVALID(torch_pc(&x, &sc, &zp, &y, NULL, -1, 0, 255, d), d, "`axis` must be");
	tt_init(&sc, QCF_FLOAT32, 3);
	ASSERT_INVALID(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, d), d, "same dimensions");
	tt_init(&sc, QCF_FLOAT32, 1);
	tt_init(&zp, QCF_INT32, 1);
	ASSERT_INVALID(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, d), d, "not consistent");
	tt_init(&sc, QCF_FLOAT64, 2);
	tt_init(&zp, QCF_INT32, 2);
	ASSERT_INVALID(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, d), d, "Scale must be");
	tt_init(&sc, QCF_FLOAT32, 2);
	tt_init(&zp, QCF_INT64, 2);
	ASSERT_INVALID(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, d), d, "Zero-point must be");
}

/* ---- TensorFlow -------------------------------------------------------- */

static qcf_status tf_args(qt *x, qt *y, double min, double max, int64_t bits, int64_t narrow,
                          qref_detail *d)
{
	qcf_attr at[] = {qt_flt("min", min), qt_flt("max", max), qt_int("num_bits", bits),
	                 qt_int("narrow_range", narrow)};
	qt *in[] = {x}, *out[] = {y};
	return run("tf", "fake_quant_with_min_max_args", in, 1, out, 1, at, 4, d);
}

static void test_tf_nudge(void)
{
	/* min -1, max 1, 8 bits: zero_point_from_min = 127.499992f -> 127 */
	qt x, y;
	tt_init(&x, QCF_FLOAT32, 3);
	tt_init(&y, QCF_FLOAT32, 3);
	const double xv[] = {1.0, -1.0, 5.0};
	qt_fill(&x, xv, 3);
	qt_det dd;
	CU_ASSERT_EQUAL(tf_args(&x, &y, -1, 1, 8, 0, qt_det_init(&dd, 0)), QCF_OK);
	const float s = 2.0f / 255.0f;
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), 128.0f * s); /* zp 128 would give 127 * s */
	CU_ASSERT_EQUAL((float)qt_get(&y, 1), -127.0f * s);
	CU_ASSERT_EQUAL((float)qt_get(&y, 2), 128.0f * s);
	CU_ASSERT_EQUAL(dd.step[0][0], (double)s);
	/* narrow range: qmin 1, zero point 128, range (-127 s', 127 s') */
	CU_ASSERT_EQUAL(tf_args(&x, &y, -1, 1, 8, 1, NULL), QCF_OK);
	const float s2 = 2.0f / 254.0f;
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), 127.0f * s2);
	CU_ASSERT_EQUAL((float)qt_get(&y, 1), -127.0f * s2);
}

static void test_tf_half_up(void)
{
	/* min -10, max 245: scale 1, zero point 10; ties round half up */
	qt x, y;
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_FLOAT32, 4);
	const double xv[] = {-3.5, -2.5, 2.5, 0.5};
	qt_fill(&x, xv, 4);
	CU_ASSERT_EQUAL(tf_args(&x, &y, -10, 245, 8, 0, NULL), QCF_OK);
	const double want[] = {-3, -2, 3, 1}; /* half-even: -4 -2 2 0; half-away: -4 -3 3 1 */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(qt_get(&y, i), want[i]);
	/* the vars form gives the same here */
	qt mn, mx;
	tt_init(&mn, QCF_FLOAT32, 1);
	tt_init(&mx, QCF_FLOAT32, 1);
	const double a[] = {-10}, b[] = {245};
	qt_fill(&mn, a, 1);
	qt_fill(&mx, b, 1);
	const int64_t none[1] = {0}; /* TF's min and max are scalars: rank 0 */
	tt_shape(&mn, 0, none);
	tt_shape(&mx, 0, none);
	qcf_attr at[] = {qt_int("num_bits", 8)};
	qt *in[] = {&x, &mn, &mx}, *out[] = {&y};
	CU_ASSERT_EQUAL(run("tf", "fake_quant_with_min_max_vars", in, 3, out, 1, at, 1, NULL),
	                QCF_OK);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(qt_get(&y, i), want[i]);
}

static void test_tf_vars_zero_and_channels(void)
{
	int64_t shp[] = {2, 2};
	qt x, y, mn, mx;
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_FLOAT32, 4);
	tt_shape(&x, 2, shp);
	tt_shape(&y, 2, shp);
	tt_init(&mn, QCF_FLOAT32, 2);
	tt_init(&mx, QCF_FLOAT32, 2);
	const double xv[] = {2.5, 2.5, -3.5, 7.0}, a[] = {0, -10}, b[] = {0, 245};
	qt_fill(&x, xv, 4);
	qt_fill(&mn, a, 2);
	qt_fill(&mx, b, 2);
	qt *in[] = {&x, &mn, &mx}, *out[] = {&y};
	qt_det dd;
	CU_ASSERT_EQUAL(run("tf", "fake_quant_with_min_max_vars_per_channel", in, 3, out, 1, NULL,
	                    0, qt_det_init(&dd, 0)),
	                QCF_OK);
	/* channel 0 has min == max == 0: zeros */
	CU_ASSERT_EQUAL(qt_get(&y, 0), 0.0);
	CU_ASSERT_EQUAL(qt_get(&y, 1), 3.0);
	CU_ASSERT_EQUAL(qt_get(&y, 2), 0.0);
	CU_ASSERT_EQUAL(qt_get(&y, 3), 7.0);
	CU_ASSERT_EQUAL(dd.step[0][1], 1.0);
}

static void test_tf_checks(void)
{
	qt x, y;
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	qt_det dd;
	qref_detail *d = qt_det_init(&dd, 0);
	ASSERT_INVALID(tf_args(&x, &y, -1, 1, 1, 0, d), d, "num_bits must be between 2 and 16");
	ASSERT_INVALID(tf_args(&x, &y, -1, 1, 17, 0, d), d, "num_bits must be between 2 and 16");
	ASSERT_INVALID(tf_args(&x, &y, 1, 1, 8, 0, d), d, "min has to be smaller than max");
	ASSERT_INVALID(tf_args(&x, &y, -1, 1, 8, 2, d), d, "narrow_range");
	CU_ASSERT_EQUAL(tf_args(&x, &y, -1, 1, 16, 0, d), QCF_OK);

	qt mn, mx;
	tt_init(&mn, QCF_FLOAT32, 3);
	tt_init(&mx, QCF_FLOAT32, 2);
	qt *in[] = {&x, &mn, &mx}, *out[] = {&y};
	ASSERT_INVALID(
	        run("tf", "fake_quant_with_min_max_vars_per_channel", in, 3, out, 1, NULL, 0, d), d,
	        "min has incorrect size");

	/* NaN input: Eigen's min/max paths disagree, any value in range */
	const double xv[] = {NAN, 0.0};
	qt_fill(&x, xv, 2);
	d = qt_det_init(&dd, 0);
	CU_ASSERT_EQUAL(tf_args(&x, &y, 0, 255, 8, 0, d), QCF_OK);
	CU_ASSERT_EQUAL(dd.any[0][0], 1);
	CU_ASSERT_EQUAL(dd.lo[0][0], 0.0);
	CU_ASSERT_EQUAL(dd.hi[0][0], 255.0);
	CU_ASSERT_EQUAL(dd.any[0][1], 0);
}

/* ---- ONNX -------------------------------------------------------------- */

static void test_onnx_quantize(void)
{
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_FLOAT32, 6);
	tt_init(&y, QCF_UINT8, 6);
	qt_quant1(&y, 2.0f, 128);
	const double xv[] = {0, 2, 3, 1000, -254, -1000};
	qt_fill(&x, xv, 6);
	CU_ASSERT_EQUAL(run("onnx", "QuantizeLinear", in, 1, out, 1, NULL, 0, NULL), QCF_OK);
	const double want[] = {128, 129, 130, 255, 1, 0};
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(qt_get(&y, i), want[i]);

	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_UINT16, 4);
	qt_quant1(&y, 2.0f, 32767);
	const double xv2[] = {3, 5, INFINITY, NAN};
	qt_fill(&x, xv2, 4);
	qt_det dd;
	CU_ASSERT_EQUAL(run("onnx", "QuantizeLinear", in, 1, out, 1, NULL, 0, qt_det_init(&dd, 0)),
	                QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 32769);
	CU_ASSERT_EQUAL(qt_get(&y, 1), 32769); /* 2.5 -> 2: ties to even */
	CU_ASSERT_EQUAL(qt_get(&y, 2), 65535); /* inf saturates */
	CU_ASSERT_EQUAL(dd.any[0][2], 0);
	CU_ASSERT_EQUAL(dd.any[0][3], 1); /* NaN */
	CU_ASSERT_EQUAL(dd.hi[0][3], 65535);

	/* int4, saturating, packed two per byte */
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_INT4, 4);
	qt_quant1(&y, 1.0f, 0);
	const double xv3[] = {-9, 7.5, 0.5, -1.5};
	qt_fill(&x, xv3, 4);
	CU_ASSERT_EQUAL(run("onnx", "QuantizeLinear", in, 1, out, 1, NULL, 0, NULL), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), -8);
	CU_ASSERT_EQUAL(qt_get(&y, 1), 7);
	CU_ASSERT_EQUAL(qt_get(&y, 2), 0);
	CU_ASSERT_EQUAL(qt_get(&y, 3), -2);
	CU_ASSERT_EQUAL(y.buf[0], 0x78);
}

static void test_onnx_dequantize(void)
{
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_UINT8, 3);
	tt_init(&y, QCF_FLOAT32, 3);
	qt_quant1(&x, 0.1f, 128);
	const double xv[] = {129, 0, 255};
	qt_fill(&x, xv, 3);
	qt_det dd;
	qref_detail *d = qt_det_init(&dd, 0);
	CU_ASSERT_EQUAL(run("onnx", "DequantizeLinear", in, 1, out, 1, NULL, 0, d), QCF_OK);
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), 0.1f);
	CU_ASSERT_EQUAL((float)qt_get(&y, 1), -128.0f * 0.1f);
	CU_ASSERT_EQUAL((float)qt_get(&y, 2), 127.0f * 0.1f);
	CU_ASSERT_EQUAL(dd.step[0][0], (double)0.1f);

	/* int32: zero point must be 0; x rounds to float32 first */
	tt_init(&x, QCF_INT32, 1);
	tt_init(&y, QCF_FLOAT32, 1);
	qt_quant1(&x, 1.0f, 5);
	ASSERT_INVALID(run("onnx", "DequantizeLinear", in, 1, out, 1, NULL, 0, d), d, "must be 0");
	qt_quant1(&x, 1.0f, 0);
	const double big[] = {16777217};
	qt_fill(&x, big, 1);
	CU_ASSERT_EQUAL(run("onnx", "DequantizeLinear", in, 1, out, 1, NULL, 0, d), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 16777216.0);
	/* zero point outside the quantized type */
	tt_init(&x, QCF_UINT8, 1);
	qt_quant1(&x, 1.0f, 256);
	ASSERT_INVALID(run("onnx", "DequantizeLinear", in, 1, out, 1, NULL, 0, d), d,
	               "does not fit");
}

/* ---- named roundings --------------------------------------------------- */

static const qref_rounding halves[4] = {QREF_ROUND_HALF_EVEN, QREF_ROUND_HALF_AWAY,
                                        QREF_ROUND_HALF_UP, QREF_ROUND_HALF_DOWN};

static void test_rounding_names(void)
{
	static const char *want[] = {"default",   "double",  "single",   "half_even",
	                             "half_away", "half_up", "half_down"};
	CU_ASSERT_EQUAL(QREF_ROUND_DEFAULT, 0); /* a zeroed qref_detail is the default */
	CU_ASSERT_EQUAL(QREF_ROUND_COUNT, 7);
	for (int r = 0; r < 7; r++) {
		CU_ASSERT_STRING_EQUAL(qref_rounding_name((qref_rounding)r), want[r]);
		CU_ASSERT_EQUAL(qref_rounding_parse(want[r]), r);
	}
	CU_ASSERT_EQUAL(qref_rounding_parse("half_even"), QREF_ROUND_HALF_EVEN);
	CU_ASSERT_EQUAL(qref_rounding_parse("single"), QREF_ROUND_SINGLE);
	CU_ASSERT_EQUAL(qref_rounding_parse("half-even"), -1);
	CU_ASSERT_EQUAL(qref_rounding_parse("Double"), -1);
	CU_ASSERT_EQUAL(qref_rounding_parse(""), -1);
	CU_ASSERT_EQUAL(qref_rounding_parse(NULL), -1);
	CU_ASSERT_STRING_EQUAL(qref_rounding_name((qref_rounding)7), "unknown");
	CU_ASSERT_STRING_EQUAL(qref_rounding_name((qref_rounding)-1), "unknown");
}

static void test_requant_build(void)
{
	CU_ASSERT_EQUAL(qref_requant_build(QREF_ROUND_DEFAULT), QREF_ROUND_DOUBLE);
	CU_ASSERT_EQUAL(qref_requant_build(QREF_ROUND_DOUBLE), QREF_ROUND_DOUBLE);
	CU_ASSERT_EQUAL(qref_requant_build(QREF_ROUND_SINGLE), QREF_ROUND_SINGLE);
	/* the helpers: DEFAULT is the double-rounding build */
	int32_t m;
	int s;
	qref_quantize_multiplier(0.25, QREF_ROUND_DEFAULT, &m, &s);
	CU_ASSERT_EQUAL(qref_mbqm(5, m, s, QREF_ROUND_DEFAULT), 2);
	CU_ASSERT_EQUAL(qref_mbqm(-6, m, s, QREF_ROUND_DEFAULT), -2);
	CU_ASSERT_EQUAL(qref_mbqm_lt1(5, m, s, QREF_ROUND_DEFAULT), 2);
	qref_quantize_multiplier(0x1p31, QREF_ROUND_DEFAULT, &m, &s);
	CU_ASSERT_EQUAL(s, 32); /* no single-rounding clamp */
}

/* Rounds v under [even, away, up, down] and compares with want. */
static void check_round4(double v, double e, double a, double u, double d)
{
	const double want[4] = {e, a, u, d};
	for (int k = 0; k < 4; k++) {
		double r = qref_round_half(v, halves[k]);
		if (r != want[k])
			fprintf(stderr, "\nqref_round_half(%a, %s) = %a, want %a\n", v,
			        qref_rounding_name(halves[k]), r, want[k]);
		CU_ASSERT_EQUAL(r, want[k]);
	}
}

static void test_round_half(void)
{
	check_round4(2.5, 2, 3, 3, 2);
	check_round4(-2.5, -2, -3, -2, -3);
	check_round4(3.5, 4, 4, 4, 3);
	check_round4(-3.5, -4, -4, -3, -4);
	check_round4(0.5, 0, 1, 1, 0);
	check_round4(-0.5, 0, -1, 0, -1);
	check_round4(2.6, 3, 3, 3, 3);
	check_round4(-2.4, -2, -2, -2, -2);
	check_round4(7.0, 7, 7, 7, 7);
	/* the nearest doubles to a tie are not ties, also where 1 + v would round */
	check_round4(0x1.fffffffffffffp-2, 0, 0, 0, 0);      /* 0.5 - 2^-54 */
	check_round4(-0x1.fffffffffffffp-2, 0, 0, 0, 0);     /* -0.5 + 2^-54 */
	check_round4(-0x1.0000000000001p-1, -1, -1, -1, -1); /* -0.5 - 2^-53 */
	check_round4(-0x1.ffffffffffff8p-2, 0, 0, 0, 0);     /* -0.5 + 2^-52: 1 + v is exact */
	check_round4(0x1.fffffep-2, 0, 0, 0, 0);             /* 0.49999997f */
	check_round4(2.5 + 0x1p-51, 3, 3, 3, 3);
	check_round4(-2.5 + 0x1p-51, -2, -2, -2, -2);
	/* large magnitudes: 2^52 - 0.5 is the largest tie; beyond, integers */
	check_round4(0x1p52 - 0.5, 0x1p52, 0x1p52, 0x1p52, 0x1p52 - 1);
	check_round4(-(0x1p52 - 0.5), -0x1p52, -0x1p52, -0x1p52 + 1, -0x1p52);
	check_round4(0x1p52 + 1, 0x1p52 + 1, 0x1p52 + 1, 0x1p52 + 1, 0x1p52 + 1);
	check_round4(-0x1p60, -0x1p60, -0x1p60, -0x1p60, -0x1p60);
	/* non-finite values pass through; zeros keep the sign of v */
	for (int k = 0; k < 4; k++) {
		CU_ASSERT(isnan(qref_round_half(NAN, halves[k])));
		CU_ASSERT_EQUAL(qref_round_half(INFINITY, halves[k]), INFINITY);
		CU_ASSERT_EQUAL(qref_round_half(-INFINITY, halves[k]), -INFINITY);
		CU_ASSERT(signbit(qref_round_half(-0.25, halves[k])));
		CU_ASSERT(!signbit(qref_round_half(0.25, halves[k])));
	}
	CU_ASSERT(signbit(qref_round_half(-0.5, QREF_ROUND_HALF_UP)));
	CU_ASSERT(signbit(qref_round_half(-0.0, QREF_ROUND_HALF_EVEN)));
	/* half_even agrees with nearbyint (ties to even) on a sweep of halves */
	for (int i = -40; i <= 40; i++) {
		double v = i * 0.25;
		CU_ASSERT_EQUAL(qref_round_half(v, QREF_ROUND_HALF_EVEN), nearbyint(v));
		CU_ASSERT_EQUAL(qref_round_half(v, QREF_ROUND_HALF_AWAY), round(v));
		CU_ASSERT_EQUAL(qref_round_half(v, QREF_ROUND_HALF_UP), floor(v + 0.5));
		CU_ASSERT_EQUAL(qref_round_half(v, QREF_ROUND_HALF_DOWN), ceil(v - 0.5));
	}
}

/*
 * One op call for the rounding tests: tensors, attributes, and a runner
 * that snapshots the output bytes.
 */
typedef struct {
	const char *sem, *op;
	qt *in[3];
	int nin;
	qt *out[2];
	int nout;
	qcf_attr at[4];
	int na;
} opc;

/* The output bytes after a run (outputs first filled with 0xA5). */
typedef struct {
	_Alignas(8) unsigned char bytes[2][MAXN * 8]; /* read back with qref_get */
	qcf_status st;
	qt_det dd;
} snap;

static void opc_run(opc *c, qref_rounding r, int null_detail, snap *sn)
{
	for (int k = 0; k < c->nout; k++)
		memset(c->out[k]->buf, 0xA5, sizeof c->out[k]->buf);
	qref_detail *d = qt_det_init(&sn->dd, r);
	sn->st = run(c->sem, c->op, c->in, c->nin, c->out, c->nout, c->at, c->na,
	             null_detail ? NULL : d);
	memset(sn->bytes, 0, sizeof sn->bytes);
	for (int k = 0; k < c->nout; k++)
		memcpy(sn->bytes[k], c->out[k]->buf, sizeof sn->bytes[k]);
}

static int snap_same(const opc *c, const snap *a, const snap *b)
{
	for (int k = 0; k < c->nout; k++)
		if (memcmp(a->bytes[k], b->bytes[k], c->out[k]->t.nbytes) != 0)
			return 0;
	return 1;
}

/*
 * The tie table. Each op below is fed inputs whose rounded value v is, in
 * order: 2.5, -2.5, 3.5, -3.5, 0.5, -0.5, 2.6 (not a tie); the integers
 * each QREF_ROUND_HALF_* makes of them ([even, away, up, down]):
 */
#define NTIE 7
static const double tie_q[4][NTIE] = {
        {2, -2, 4, -4, 0, 0, 3},  /* half_even */
        {3, -3, 4, -4, 1, -1, 3}, /* half_away: |v| + 0.5, truncated */
        {3, -2, 4, -3, 1, 0, 3},  /* half_up: floor(v + 0.5) */
        {2, -3, 3, -4, 0, -1, 3}, /* half_down: ceil(v - 0.5) */
};
static const double tie_v[NTIE] = {2.5, -2.5, 3.5, -3.5, 0.5, -0.5, 2.6};

/* Index in tie_q of a QREF_ROUND_HALF_* rounding. */
static int half_index(qref_rounding r)
{
	for (int k = 0; k < 4; k++)
		if (halves[k] == r)
			return k;
	return -1;
}

/*
 * Output 0 element i is unit * tie_q[mode][i] under each half_* rounding;
 * DEFAULT, and a NULL detail, give the bytes of def (the op's own rounding)
 * on every output, and the kernel names def as its default (so that the
 * harness does not compute it again); the roundings differ from the default
 * exactly where tie_q says so.
 */
static void check_ties(opc *c, double unit, qref_rounding def)
{
	snap dflt, nul, named[4];
	opc_run(c, QREF_ROUND_DEFAULT, 0, &dflt);
	opc_run(c, QREF_ROUND_DEFAULT, 1, &nul);
	CU_ASSERT_EQUAL_FATAL(dflt.st, QCF_OK);
	CU_ASSERT_EQUAL(dflt.dd.d.default_rounding, def);
	CU_ASSERT_EQUAL(nul.st, QCF_OK);
	CU_ASSERT(snap_same(c, &dflt, &nul));
	int di = half_index(def);
	for (int k = 0; k < 4; k++) {
		opc_run(c, halves[k], 0, &named[k]);
		CU_ASSERT_EQUAL_FATAL(named[k].st, QCF_OK);
		for (int i = 0; i < NTIE; i++) {
			double got = qref_get(&c->out[0]->t, (size_t)i);
			if (got != unit * tie_q[k][i])
				fprintf(stderr, "\n%s %s: v = %g gives %g, want %g\n", c->op,
				        qref_rounding_name(halves[k]), tie_v[i], got,
				        unit * tie_q[k][i]);
			CU_ASSERT_EQUAL(got, unit * tie_q[k][i]);
		}
	}
	/* the default is its named rounding, bit for bit, on every output */
	CU_ASSERT(snap_same(c, &dflt, &named[di]));
	/* a rounding differs from the default exactly at the ties the table says */
	for (int k = 0; k < 4; k++) {
		qt y = *c->out[0];
		for (int i = 0; i < NTIE; i++) {
			y.t.data = named[k].bytes[0];
			double a = qref_get(&y.t, (size_t)i);
			y.t.data = dflt.bytes[0];
			double b = qref_get(&y.t, (size_t)i);
			CU_ASSERT_EQUAL(a != b, tie_q[k][i] != tie_q[di][i]);
		}
	}
}

/* QCF_NOT_SUPPORTED with the exact message; no output byte written. */
static void check_na(opc *c, qref_rounding r, const char *what)
{
	snap sn;
	opc_run(c, r, 0, &sn);
	char want[256];
	snprintf(want, sizeof want, "%s: rounding '%s' does not apply (it rounds %s)", c->op,
	         qref_rounding_name(r), what);
	CU_ASSERT_EQUAL(sn.st, QCF_NOT_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(sn.dd.d.message, want);
	for (int k = 0; k < c->nout; k++)
		for (size_t b = 0; b < c->out[k]->t.nbytes; b++)
			CU_ASSERT_EQUAL_FATAL(sn.bytes[k][b], 0xA5);
}

/* Every non-default rounding outside `applies` (a bitmask of qref_rounding) is declined. */
static void check_na_others(opc *c, unsigned applies, const char *what)
{
	for (int r = 1; r < QREF_ROUND_COUNT; r++)
		if (!(applies & (1u << r)))
			check_na(c, (qref_rounding)r, what);
	check_na(c, (qref_rounding)42, what); /* outside the enum: 'unknown' */
}

#define HALF_BITS                                                                                  \
	((1u << QREF_ROUND_HALF_EVEN) | (1u << QREF_ROUND_HALF_AWAY) |                             \
	 (1u << QREF_ROUND_HALF_UP) | (1u << QREF_ROUND_HALF_DOWN))

static void test_rounding_litert_quantize(void)
{
	qt x, y;
	opc c = {.sem = "litert", .op = "QUANTIZE", .in = {&x}, .nin = 1, .out = {&y}, .nout = 1};
	/* x / 0.5 = v; the zero point is added after rounding */
	tt_init(&x, QCF_FLOAT32, NTIE);
	tt_init(&y, QCF_INT8, NTIE);
	qt_quant1(&y, 0.5f, 0);
	for (int i = 0; i < NTIE; i++)
		qref_set(&x.t, (size_t)i, tie_v[i] * 0.5);
	check_ties(&c, 1.0, QREF_ROUND_HALF_AWAY);
	check_na_others(&c, HALF_BITS, "x / scale to an integer");
	/* zp 5: q = 5 + round(v) */
	qt_quant1(&y, 0.5f, 5);
	snap a;
	opc_run(&c, QREF_ROUND_HALF_DOWN, 0, &a);
	CU_ASSERT_EQUAL(a.st, QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 1), 5 - 3);
	CU_ASSERT_EQUAL(qt_get(&y, 2), 5 + 3);

	/* default bit for bit on other inputs (clamping, NaN, inf, huge) */
	tt_init(&x, QCF_FLOAT32, 6);
	tt_init(&y, QCF_UINT8, 6);
	qt_quant1(&y, 0.25f, 100);
	const double xv[] = {-1000, 1000, NAN, INFINITY, 3e38, 0.3};
	qt_fill(&x, xv, 6);
	snap d0, d1, n0;
	opc_run(&c, QREF_ROUND_DEFAULT, 0, &d0);
	opc_run(&c, QREF_ROUND_HALF_AWAY, 0, &d1);
	opc_run(&c, QREF_ROUND_DEFAULT, 1, &n0);
	CU_ASSERT(snap_same(&c, &d0, &d1));
	CU_ASSERT(snap_same(&c, &d0, &n0));
	CU_ASSERT_EQUAL(qt_get(&y, 0), 0);
	CU_ASSERT_EQUAL(qt_get(&y, 1), 255);
	CU_ASSERT_EQUAL(qt_get(&y, 5), 101); /* 1.2 -> 1 */
	CU_ASSERT_EQUAL(d0.dd.any[0][2], 1);
	CU_ASSERT_EQUAL(d0.dd.any[0][3], 1);
}

static void test_rounding_litert_requantize(void)
{
	qt x, y;
	opc c = {.sem = "litert", .op = "QUANTIZE", .in = {&x}, .nin = 1, .out = {&y}, .nout = 1};
	/* int8 (0.25, zp 1) -> int8 (1, zp -3): ratio 0.25 */
	tt_init(&x, QCF_INT8, 4);
	tt_init(&y, QCF_INT8, 4);
	qt_quant1(&x, 0.25f, 1);
	qt_quant1(&y, 1.0f, -3);
	const double xv[] = {6, -5, 9, 127}; /* x - zp: 5, -6, 8, 126 */
	qt_fill(&x, xv, 4);
	snap dflt, nul, dbl, sgl;
	opc_run(&c, QREF_ROUND_DEFAULT, 0, &dflt);
	opc_run(&c, QREF_ROUND_DEFAULT, 1, &nul);
	opc_run(&c, QREF_ROUND_DOUBLE, 0, &dbl);
	opc_run(&c, QREF_ROUND_SINGLE, 0, &sgl);
	CU_ASSERT_EQUAL(dflt.st, QCF_OK);
	CU_ASSERT_EQUAL(dflt.dd.d.default_rounding, QREF_ROUND_DOUBLE);
	CU_ASSERT_EQUAL(sgl.st, QCF_OK);
	CU_ASSERT(snap_same(&c, &dflt, &dbl)); /* DEFAULT is double rounding */
	CU_ASSERT(snap_same(&c, &dflt, &nul));
	CU_ASSERT(!snap_same(&c, &dflt, &sgl));
	/* 1.25: double 2, single 1; -1.5: double -2, single -1; 2 and 31.5 agree */
	const double wd[] = {2 - 3, -2 - 3, 2 - 3, 32 - 3}, ws[] = {1 - 3, -1 - 3, 2 - 3, 32 - 3};
	qt yy = y;
	for (int i = 0; i < 4; i++) {
		yy.t.data = dflt.bytes[0];
		CU_ASSERT_EQUAL(qref_get(&yy.t, (size_t)i), wd[i]);
		yy.t.data = sgl.bytes[0];
		CU_ASSERT_EQUAL(qref_get(&yy.t, (size_t)i), ws[i]);
	}
	check_na_others(&c, (1u << QREF_ROUND_DOUBLE) | (1u << QREF_ROUND_SINGLE),
	                "(q - zp_in) * s_in / s_out by an integer multiplier");
}

static void test_rounding_dequantize(void)
{
	qt x, y;
	opc c = {.sem = "litert", .op = "DEQUANTIZE", .in = {&x}, .nin = 1, .out = {&y}, .nout = 1};
	tt_init(&x, QCF_INT8, 3);
	tt_init(&y, QCF_FLOAT32, 3);
	qt_quant1(&x, 0.1f, -128);
	const double xv[] = {-127, 127, -128};
	qt_fill(&x, xv, 3);
	snap d0, n0;
	opc_run(&c, QREF_ROUND_DEFAULT, 0, &d0);
	opc_run(&c, QREF_ROUND_DEFAULT, 1, &n0);
	CU_ASSERT_EQUAL(d0.st, QCF_OK);
	CU_ASSERT(snap_same(&c, &d0, &n0));
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), 0.1f);
	CU_ASSERT_EQUAL((float)qt_get(&y, 1), (float)(255.0 * (double)0.1f));
	check_na_others(&c, 0, "nothing to an integer");
	/* the float16 input path declines too */
	tt_init(&x, QCF_FLOAT16, 3);
	x.t.quant = NULL;
	check_na_others(&c, 0, "nothing to an integer");

	c.sem = "onnx";
	c.op = "DequantizeLinear";
	tt_init(&x, QCF_UINT8, 3);
	qt_quant1(&x, 0.1f, 128);
	const double xv2[] = {129, 0, 255};
	qt_fill(&x, xv2, 3);
	opc_run(&c, QREF_ROUND_DEFAULT, 0, &d0);
	opc_run(&c, QREF_ROUND_DEFAULT, 1, &n0);
	CU_ASSERT_EQUAL(d0.st, QCF_OK);
	CU_ASSERT(snap_same(&c, &d0, &n0));
	CU_ASSERT_EQUAL((float)qt_get(&y, 2), 127.0f * 0.1f);
	check_na_others(&c, 0, "nothing to an integer");
}

/* Torch op k: 0 per tensor, 1 per tensor cachemask, 2 per channel, 3 per channel cachemask. */
static const char *const torch_ops[4] = {
        "fake_quantize_per_tensor_affine",
        "fake_quantize_per_tensor_affine_cachemask",
        "fake_quantize_per_channel_affine",
        "fake_quantize_per_channel_affine_cachemask",
};

/*
 * Sets up c for torch op k on x (n elements, shape [n, 1]) with scale 0.5
 * and integer zero point zp (per channel: one channel along axis 1, zero
 * point tensor of dtype zdt).
 */
static void torch_opc(opc *c, int k, qt *x, qt *sc, qt *zp, qt *y, qt *m, int64_t zpv,
                      qcf_dtype zdt, int64_t qmin, int64_t qmax)
{
	memset(c, 0, sizeof *c);
	c->sem = "torch";
	c->op = torch_ops[k];
	c->in[0] = x;
	c->out[0] = y;
	c->out[1] = m;
	c->nout = (k & 1) ? 2 : 1;
	int64_t n = x->shape[0];
	int64_t shp[] = {n, 1};
	tt_shape(x, 2, shp);
	tt_init(y, x->t.dtype, n);
	tt_shape(y, 2, shp);
	tt_init(m, QCF_BOOL, n);
	tt_shape(m, 2, shp);
	if (k < 2) {
		c->nin = 1;
		c->at[0] = qt_flt("scale", 0.5);
		c->at[1] = qt_int("zero_point", zpv);
		c->at[2] = qt_int("quant_min", qmin);
		c->at[3] = qt_int("quant_max", qmax);
		c->na = 4;
	} else {
		c->nin = 3;
		c->in[1] = sc;
		c->in[2] = zp;
		tt_init(sc, QCF_FLOAT32, 1);
		tt_init(zp, zdt, 1);
		qref_set(&sc->t, 0, 0.5);
		qref_set(&zp->t, 0, (double)zpv);
		c->at[0] = qt_int("axis", 1);
		c->at[1] = qt_int("quant_min", qmin);
		c->at[2] = qt_int("quant_max", qmax);
		c->na = 3;
	}
}

static void test_rounding_torch(void)
{
	static const qcf_dtype dts[] = {QCF_FLOAT32, QCF_FLOAT64};
	for (int k = 0; k < 4; k++)
		for (int t = 0; t < 2; t++) {
			/* x * inv = x * 2 = v; zero point 0 */
			qt x, sc, zp, y, m;
			opc c;
			tt_init(&x, dts[t], NTIE);
			for (int i = 0; i < NTIE; i++)
				qref_set(&x.t, (size_t)i, tie_v[i] * 0.5);
			torch_opc(&c, k, &x, &sc, &zp, &y, &m, 0, QCF_INT32, -128, 127);
			check_ties(&c, 0.5, QREF_ROUND_HALF_EVEN);
			check_na_others(&c, HALF_BITS, "x * inv to an integer");
		}
	/* the mask follows the rounding: qmax 2, v = 2.5 rounds to 2 or 3 */
	for (int k = 1; k < 4; k += 2) {
		qt x, sc, zp, y, m;
		opc c;
		tt_init(&x, QCF_FLOAT32, 2);
		const double xv[] = {1.25, -1.25};
		qt_fill(&x, xv, 2);
		torch_opc(&c, k, &x, &sc, &zp, &y, &m, 0, QCF_INT32, -2, 2);
		const double wm[4][2] = {{1, 1}, {0, 0}, {0, 1}, {1, 0}};
		for (int r = 0; r < 4; r++) {
			snap sn;
			opc_run(&c, halves[r], 0, &sn);
			CU_ASSERT_EQUAL(sn.st, QCF_OK);
			CU_ASSERT_EQUAL(qt_get(&y, 0), 1.0); /* 2 or clamped 3 */
			CU_ASSERT_EQUAL(qt_get(&y, 1), -1.0);
			CU_ASSERT_EQUAL(qt_get(&m, 0), wm[r][0]);
			CU_ASSERT_EQUAL(qt_get(&m, 1), wm[r][1]);
		}
	}
	/* integer zero point 1: zp added after rounding x * inv = +-0.5 */
	for (int k = 0; k < 4; k++) {
		qt x, sc, zp, y, m;
		opc c;
		tt_init(&x, QCF_FLOAT32, 2);
		const double xv[] = {0.25, -0.25};
		qt_fill(&x, xv, 2);
		torch_opc(&c, k, &x, &sc, &zp, &y, &m, 1, QCF_INT32, 0, 255);
		const double wy[4][2] = {{0, 0}, {0.5, -0.5}, {0.5, 0}, {0, -0.5}};
		for (int r = 0; r < 4; r++) {
			snap sn;
			opc_run(&c, halves[r], 0, &sn);
			CU_ASSERT_EQUAL(sn.st, QCF_OK);
			CU_ASSERT_EQUAL(qt_get(&y, 0), wy[r][0]);
			CU_ASSERT_EQUAL(qt_get(&y, 1), wy[r][1]);
		}
	}
}

static void test_rounding_torch_float_zp(void)
{
	/* float zero point 1: v = 1 + x * 2 rounds; x = 0.25, -0.25, 0.75, -0.75
	 * give v = 1.5, 0.5, 2.5, -0.5 and y = (q - 1) * 0.5 */
	static const qcf_dtype zdts[] = {QCF_FLOAT32, QCF_FLOAT16};
	const double wy[4][4] = {
	        {0.5, -0.5, 0.5, -0.5}, /* even: 2, 0, 2, 0 */
	        {0.5, 0, 1.0, -1.0},    /* away: 2, 1, 3, -1 */
	        {0.5, 0, 1.0, -0.5},    /* up: 2, 1, 3, 0 */
	        {0, -0.5, 0.5, -1.0},   /* down: 1, 0, 2, -1 */
	};
	for (int k = 2; k < 4; k++)
		for (int z = 0; z < 2; z++) {
			qt x, sc, zp, y, m;
			opc c;
			tt_init(&x, QCF_FLOAT32, 4);
			const double xv[] = {0.25, -0.25, 0.75, -0.75};
			qt_fill(&x, xv, 4);
			torch_opc(&c, k, &x, &sc, &zp, &y, &m, 1, zdts[z], -128, 127);
			snap d0, n0, named[4];
			opc_run(&c, QREF_ROUND_DEFAULT, 0, &d0);
			opc_run(&c, QREF_ROUND_DEFAULT, 1, &n0);
			CU_ASSERT_EQUAL(d0.st, QCF_OK);
			CU_ASSERT(snap_same(&c, &d0, &n0));
			for (int r = 0; r < 4; r++) {
				opc_run(&c, halves[r], 0, &named[r]);
				CU_ASSERT_EQUAL(named[r].st, QCF_OK);
				for (int i = 0; i < 4; i++)
					CU_ASSERT_EQUAL(qt_get(&y, (size_t)i), wy[r][i]);
				for (int i = 0; i < 4; i++)
					CU_ASSERT_EQUAL(named[r].dd.any[0][i], 0);
			}
			CU_ASSERT(snap_same(&c, &d0, &named[0]));
			check_na_others(&c, HALF_BITS, "zp + x * inv to an integer");
		}

	/* the FMA variant rounds with the same rule: zf + x * inv = 2.5 exactly,
	 * fused 2.50000024 (test_torch_fma_tie) */
	const float s = 0x1.99999ep-3f, xf = 0x1.9999ap-1f;
	qt x, sc, zp, y, m;
	opc c;
	tt_init(&x, QCF_FLOAT32, 1);
	qref_set(&x.t, 0, xf);
	torch_opc(&c, 2, &x, &sc, &zp, &y, &m, 0, QCF_FLOAT32, -128, 127);
	qref_set(&sc.t, 0, s);
	qref_set(&zp.t, 0, -1.5);
	snap sn;
	opc_run(&c, QREF_ROUND_HALF_UP, 0, &sn); /* both 3: one answer */
	CU_ASSERT_EQUAL(sn.st, QCF_OK);
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), (float)(4.5 * (double)s));
	CU_ASSERT_EQUAL(sn.dd.any[0][0], 0);
	opc_run(&c, QREF_ROUND_HALF_DOWN, 0, &sn); /* 2 plain, 3 fused */
	CU_ASSERT_EQUAL((float)qt_get(&y, 0), (float)(3.5 * (double)s));
	CU_ASSERT_EQUAL(sn.dd.any[0][0], 1);
	CU_ASSERT_EQUAL(sn.dd.lo[0][0], (double)(float)(3.5 * (double)s));
	CU_ASSERT_EQUAL(sn.dd.hi[0][0], (double)(float)(4.5 * (double)s));
}

/* Sets up c for a TF op: 0 args, 1 vars, 2 vars per channel; range [lo, hi], 8 bits. */
static void tf_opc(opc *c, int k, qt *x, qt *mn, qt *mx, qt *y, double lo, double hi)
{
	static const char *ops[] = {"fake_quant_with_min_max_args", "fake_quant_with_min_max_vars",
	                            "fake_quant_with_min_max_vars_per_channel"};
	memset(c, 0, sizeof *c);
	c->sem = "tf";
	c->op = ops[k];
	c->in[0] = x;
	c->out[0] = y;
	c->nout = 1;
	int64_t n = x->shape[0];
	int64_t shp[] = {n, 1};
	tt_shape(x, 2, shp);
	tt_init(y, QCF_FLOAT32, n);
	tt_shape(y, 2, shp);
	c->at[0] = qt_int("num_bits", 8);
	c->na = 1;
	if (k == 0) {
		c->nin = 1;
		c->at[1] = qt_flt("min", lo);
		c->at[2] = qt_flt("max", hi);
		c->na = 3;
		return;
	}
	c->nin = 3;
	c->in[1] = mn;
	c->in[2] = mx;
	tt_init(mn, QCF_FLOAT32, 1);
	tt_init(mx, QCF_FLOAT32, 1);
	if (k == 1) { /* the _vars op takes scalars (rank 0), per channel one per channel */
		const int64_t none[1] = {0};
		tt_shape(mn, 0, none);
		tt_shape(mx, 0, none);
	}
	qref_set(&mn->t, 0, lo);
	qref_set(&mx->t, 0, hi);
}

static void test_rounding_tf(void)
{
	for (int k = 0; k < 3; k++) {
		/* min -10, max 245: scale 1, zero point 10; the scaled value is x */
		qt x, mn, mx, y;
		opc c;
		tt_init(&x, QCF_FLOAT32, NTIE);
		for (int i = 0; i < NTIE; i++)
			qref_set(&x.t, (size_t)i, tie_v[i]);
		tf_opc(&c, k, &x, &mn, &mx, &y, -10, 245);
		check_ties(&c, 1.0, QREF_ROUND_HALF_UP);
		check_na_others(&c, HALF_BITS,
		                "(x - nudged_min) / scale - quant_zero to an integer");

		/* floorf(v + 0.5f) is TF's half up, not an exact one: v = 0.5 - 2^-25
		 * gives 1 (v + 0.5f rounds to 1.0f); half_up reproduces it */
		tt_init(&x, QCF_FLOAT32, 2);
		const double xv[] = {0x1.fffffep-2, 100.5};
		qt_fill(&x, xv, 2);
		tf_opc(&c, k, &x, &mn, &mx, &y, 0, 255);
		snap d0, up;
		opc_run(&c, QREF_ROUND_DEFAULT, 0, &d0);
		opc_run(&c, QREF_ROUND_HALF_UP, 0, &up);
		CU_ASSERT_EQUAL(d0.st, QCF_OK);
		CU_ASSERT(snap_same(&c, &d0, &up));
		CU_ASSERT_EQUAL(qt_get(&y, 0), 1.0);
		CU_ASSERT_EQUAL(qt_get(&y, 1), 101.0);
		const double w0[] = {0, 0, 1, 0}, w1[] = {100, 101, 101, 100};
		for (int r = 0; r < 4; r++) {
			snap sn;
			opc_run(&c, halves[r], 0, &sn);
			CU_ASSERT_EQUAL(qt_get(&y, 0), w0[r]);
			CU_ASSERT_EQUAL(qt_get(&y, 1), w1[r]);
		}
	}
}

static void test_rounding_onnx_quantize(void)
{
	qt x, y;
	opc c = {.sem = "onnx",
	         .op = "QuantizeLinear",
	         .in = {&x},
	         .nin = 1,
	         .out = {&y},
	         .nout = 1};
	/* x / 2 = v (true division) */
	tt_init(&x, QCF_FLOAT32, NTIE);
	tt_init(&y, QCF_INT8, NTIE);
	qt_quant1(&y, 2.0f, 0);
	for (int i = 0; i < NTIE; i++)
		qref_set(&x.t, (size_t)i, tie_v[i] * 2.0);
	check_ties(&c, 1.0, QREF_ROUND_HALF_EVEN);
	check_na_others(&c, HALF_BITS, "x / scale to an integer");

	/* default bit for bit elsewhere: saturation, NaN, inf, uint16, int4 */
	tt_init(&x, QCF_FLOAT32, 5);
	tt_init(&y, QCF_UINT16, 5);
	qt_quant1(&y, 2.0f, 32767);
	const double xv[] = {3, 1e9, -1e9, INFINITY, NAN};
	qt_fill(&x, xv, 5);
	snap d0, e0, n0;
	opc_run(&c, QREF_ROUND_DEFAULT, 0, &d0);
	opc_run(&c, QREF_ROUND_HALF_EVEN, 0, &e0);
	opc_run(&c, QREF_ROUND_DEFAULT, 1, &n0);
	CU_ASSERT(snap_same(&c, &d0, &e0));
	CU_ASSERT(snap_same(&c, &d0, &n0));
	CU_ASSERT_EQUAL(qt_get(&y, 0), 32769);
	CU_ASSERT_EQUAL(qt_get(&y, 1), 65535);
	CU_ASSERT_EQUAL(qt_get(&y, 2), 0);
	CU_ASSERT_EQUAL(d0.dd.any[0][4], 1);
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_INT4, 4);
	qt_quant1(&y, 1.0f, 0);
	const double xv2[] = {-8.5, 7.5, 0.5, -1.5};
	qt_fill(&x, xv2, 4);
	opc_run(&c, QREF_ROUND_HALF_AWAY, 0, &d0);
	CU_ASSERT_EQUAL(qt_get(&y, 0), -8); /* -9 saturates */
	CU_ASSERT_EQUAL(qt_get(&y, 1), 7);
	CU_ASSERT_EQUAL(qt_get(&y, 2), 1);
	CU_ASSERT_EQUAL(qt_get(&y, 3), -2);
}

/* Parameter rules come before the rounding: a negative case stays INVALID_PARAM. */
static void test_rounding_invalid_first(void)
{
	qt x, y;
	qt_det dd;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT16, 2);
	tt_init(&y, QCF_INT16, 2);
	qt_quant1(&x, 1.0f, 1);
	qt_quant1(&y, 1.0f, 0);
	qref_detail *d = qt_det_init(&dd, QREF_ROUND_HALF_UP);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "zero points 0");
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	d = qt_det_init(&dd, QREF_ROUND_DOUBLE);
	ASSERT_INVALID(torch_pt(&x, &y, NULL, 0.1, 0, 5, 4, d), d, "`quant_min` should be");
	d = qt_det_init(&dd, QREF_ROUND_SINGLE);
	ASSERT_INVALID(tf_args(&x, &y, -1, 1, 1, 0, d), d, "num_bits");
}

/* ---- real-valued outputs ----------------------------------------------- */

static void test_real_output_quantize(void)
{
	/* float input: x itself; output 0 has no quantization and no buffer */
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_INT8, 4);
	y.t.data = NULL;
	y.t.nbytes = 0;
	const double xv[] = {1.5, -0.1, 1e30, -INFINITY};
	qt_fill(&x, xv, 4);
	double v[4] = {0};
	char msg[256] = "junk";
	qcf_op_call *c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output_msg(c, 0, v, msg, sizeof msg), QCF_OK);
	CU_ASSERT_STRING_EQUAL(msg, "");
	CU_ASSERT_EQUAL(v[0], 1.5);
	CU_ASSERT_EQUAL(v[1], (double)-0.1f);
	CU_ASSERT_EQUAL(v[2], (double)1e30f);
	CU_ASSERT_EQUAL(v[3], -INFINITY);
	CU_ASSERT_PTR_NULL(c->outputs[0].data);
	CU_ASSERT_PTR_NULL(c->outputs[0].quant);

	/* integer input: (q - zp_in) * s_in; the output buffer is left alone */
	tt_init(&x, QCF_INT8, 4);
	tt_init(&y, QCF_INT16, 4);
	qt_quant1(&x, 0.25f, 1);
	const double qv[] = {6, -5, 1, -128};
	qt_fill(&x, qv, 4);
	memset(y.buf, 0x5A, MAXN * 8);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_OK);
	CU_ASSERT_EQUAL(v[0], 1.25);
	CU_ASSERT_EQUAL(v[1], -1.5);
	CU_ASSERT_EQUAL(v[2], 0.0);
	CU_ASSERT_EQUAL(v[3], -32.25);
	for (size_t b = 0; b < MAXN * 8; b++)
		CU_ASSERT_EQUAL_FATAL(y.buf[b], 0x5A);
	/* a scale that is not a float32 fraction of 2: exact in double */
	qt_quant1(&x, 0.1f, 0);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_OK);
	CU_ASSERT_EQUAL(v[0], 6.0 * (double)0.1f);

	/* the input's rules still hold: quantization needed, per tensor */
	x.t.quant = NULL;
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output_msg(c, 0, v, msg, sizeof msg), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "QUANTIZE input needs quantization parameters"));
	qt_quant1(&x, 0.0f, 0);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output_msg(c, 0, v, msg, sizeof msg), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "positive finite"));
	/* no output 1 */
	qt_quant1(&x, 0.25f, 1);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output_msg(c, 1, v, msg, sizeof msg), QCF_INVALID_PARAM);
	CU_ASSERT_EQUAL(qref_real_output(c, -1, v), QCF_INVALID_PARAM);
}

static void test_real_output_onnx(void)
{
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_FLOAT32, 3);
	tt_init(&y, QCF_UINT8, 3);
	y.t.data = NULL;
	y.t.nbytes = 0;
	const double xv[] = {-254, 0.3, NAN};
	qt_fill(&x, xv, 3);
	double v[3] = {0};
	qcf_op_call *c = mkcall("onnx", "QuantizeLinear", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_OK);
	CU_ASSERT_EQUAL(v[0], -254.0);
	CU_ASSERT_EQUAL(v[1], (double)0.3f);
	CU_ASSERT(isnan(v[2]));
	/* the kernel's input rules */
	tt_init(&x, QCF_INT8, 3);
	char msg[256];
	c = mkcall("onnx", "QuantizeLinear", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output_msg(c, 0, v, msg, sizeof msg), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "input must be float32"));
}

static void test_real_output_not_quantized(void)
{
	char msg[256];
	double v[4] = {0};
	/* DEQUANTIZE: float output */
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	qt_quant1(&x, 0.5f, 0);
	qcf_op_call *c = mkcall("litert", "DEQUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output_msg(c, 0, v, msg, sizeof msg), QCF_NOT_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(msg, "DEQUANTIZE: output 0 (float32) is not quantized: it has no "
	                            "real-valued result to choose a quantization for");
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_NOT_SUPPORTED);
	c->op = "DequantizeLinear";
	c->semantics = "onnx";
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_NOT_SUPPORTED);
	/* torch cachemask: neither y nor the mask */
	qt xt, yt, m;
	tt_init(&xt, QCF_FLOAT32, 2);
	tt_init(&yt, QCF_FLOAT32, 2);
	tt_init(&m, QCF_BOOL, 2);
	qt *in2[] = {&xt}, *out2[] = {&yt, &m};
	c = mkcall("torch", "fake_quantize_per_tensor_affine_cachemask", in2, 1, out2, 2, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output_msg(c, 1, v, msg, sizeof msg), QCF_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "output 1 (bool) is not quantized"));
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_NOT_SUPPORTED);
	c->semantics = "tf";
	c->op = "fake_quant_with_min_max_args";
	c->n_outputs = 1;
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_NOT_SUPPORTED);
	/* no such op */
	c->op = "CONV_2D";
	CU_ASSERT_EQUAL(qref_real_output_msg(c, 0, v, msg, sizeof msg), QCF_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "CONV_2D"));
	CU_ASSERT_EQUAL(qref_real_output(NULL, 0, v), QCF_ERROR);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(v[i], 0.0);
}

/* ---- dispatch and plugin ----------------------------------------------- */

static void test_dispatch(void)
{
	static const char *ops[][2] = {
	        {"litert", "QUANTIZE"},
	        {"litert", "DEQUANTIZE"},
	        {"torch", "fake_quantize_per_tensor_affine"},
	        {"torch", "fake_quantize_per_tensor_affine_cachemask"},
	        {"torch", "fake_quantize_per_channel_affine"},
	        {"torch", "fake_quantize_per_channel_affine_cachemask"},
	        {"tf", "fake_quant_with_min_max_args"},
	        {"tf", "fake_quant_with_min_max_vars"},
	        {"tf", "fake_quant_with_min_max_vars_per_channel"},
	        {"onnx", "QuantizeLinear"},
	        {"onnx", "DequantizeLinear"},
	};
	qcf_op_call c;
	memset(&c, 0, sizeof c);
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		c.semantics = ops[i][0];
		c.op = ops[i][1];
		CU_ASSERT_EQUAL(qref_supports(&c), QCF_OK);
	}
	c.semantics = "torch";
	c.op = "QUANTIZE";
	CU_ASSERT_EQUAL(qref_supports(&c), QCF_NOT_SUPPORTED);
	c.semantics = "litert";
	c.op = "NO_SUCH_OP";
	CU_ASSERT_EQUAL(qref_supports(&c), QCF_NOT_SUPPORTED);
	qt_det dd;
	CU_ASSERT_EQUAL(qref_execute(&c, qt_det_init(&dd, 0)), QCF_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(dd.d.message, "NO_SUCH_OP"));
}

/* The built plugin, loaded as the harness loads it. */
static void test_plugin(void)
{
	const char *path = qct_build_path("libqconform_reference.so");
	void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		fprintf(stderr, "\n%s: %s\n", path, dlerror());
		CU_FAIL_FATAL("cannot load the reference plugin");
	}
	qcf_negotiate_fn negotiate = NULL;
	void *sym = dlsym(so, QCF_ENTRY_SYMBOL);
	memcpy(&negotiate, &sym, sizeof negotiate);
	CU_ASSERT_FATAL(negotiate != NULL);
	/* the newest version both speak: 3, 2 for a host of version 2, or 1 for a host of
	 * version 1 only */
	qcf_negotiation n = {.struct_size = sizeof n, .host_min_version = 4, .host_max_version = 5};
	CU_ASSERT_EQUAL(negotiate(&n), QCF_NOT_SUPPORTED);
	n.host_min_version = 0;
	n.host_max_version = 0;
	CU_ASSERT_EQUAL(negotiate(&n), QCF_NOT_SUPPORTED);
	n.host_max_version = 1;
	CU_ASSERT_EQUAL(negotiate(&n), QCF_OK);
	CU_ASSERT_EQUAL(n.abi_version, 1);
	CU_ASSERT_EQUAL(n.plugin->abi_version, 1);
	n.host_max_version = 2;
	CU_ASSERT_EQUAL(negotiate(&n), QCF_OK);
	CU_ASSERT_EQUAL(n.abi_version, 2);
	CU_ASSERT_EQUAL(n.plugin->abi_version, 2);
	n.host_max_version = 3;
	CU_ASSERT_EQUAL(negotiate(&n), QCF_OK);
	CU_ASSERT_EQUAL(n.abi_version, 3);
	CU_ASSERT_EQUAL(n.plugin->abi_version, 3);
	const qcf_plugin *p = n.plugin;
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_STRING_EQUAL(p->name, "qconform-reference");
	CU_ASSERT_STRING_EQUAL(p->version, "0.1.0");
	CU_ASSERT_EQUAL(p->struct_size, sizeof(qcf_plugin));

	char msg[128] = "";
	qcf_instance *inst = NULL;
	qcf_option bad = {"rounding", "triple"};
	CU_ASSERT_EQUAL(p->create(&bad, 1, &inst, msg, sizeof msg), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "triple"));
	qcf_option unknown = {"speed", "fast"};
	CU_ASSERT_EQUAL(p->create(&unknown, 1, &inst, msg, sizeof msg), QCF_INVALID_PARAM);

	qcf_option single = {"rounding", "single"};
	CU_ASSERT_EQUAL_FATAL(p->create(&single, 1, &inst, msg, sizeof msg), QCF_OK);
	/* the requantize case of test_litert_requantize, single rounding */
	qt x, y;
	qt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 2);
	tt_init(&y, QCF_INT8, 2);
	qt_quant1(&x, 0.25f, 1);
	qt_quant1(&y, 1.0f, -3);
	const double xv[] = {6, -5};
	qt_fill(&x, xv, 2);
	qcf_op_call *c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(p->supports(inst, c), QCF_OK);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), -2);
	CU_ASSERT_EQUAL(qt_get(&y, 1), -4);
	/* an invalid call reports its rule through last_error */
	tt_init(&y, QCF_INT32, 2);
	qt_quant1(&y, 1.0f, 0);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(p->last_error(inst), "not allowed"));
	c->op = "NO_SUCH_OP";
	CU_ASSERT_EQUAL(p->supports(inst, c), QCF_NOT_SUPPORTED);
	p->destroy(inst);

	CU_ASSERT_EQUAL_FATAL(p->create(NULL, 0, &inst, msg, sizeof msg), QCF_OK);
	tt_init(&y, QCF_INT8, 2);
	qt_quant1(&y, 1.0f, -3);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), -1); /* double rounding by default */
	p->destroy(inst);

	/* every named rounding is an option value; unknown names list them */
	qcf_option bogus = {"rounding", "half_odd"};
	CU_ASSERT_EQUAL(p->create(&bogus, 1, &inst, msg, sizeof msg), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "half_odd"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "half_even"));
	for (int r = 0; r < QREF_ROUND_COUNT; r++) {
		qcf_option o = {"rounding", qref_rounding_name((qref_rounding)r)};
		CU_ASSERT_EQUAL(p->create(&o, 1, &inst, msg, sizeof msg), QCF_OK);
		p->destroy(inst);
	}
	/* rounding=half_up: torch rounds x * inv = 2.5 to 3 (default 2) ... */
	qcf_option up = {"rounding", "half_up"};
	CU_ASSERT_EQUAL_FATAL(p->create(&up, 1, &inst, msg, sizeof msg), QCF_OK);
	qt xt, yt;
	tt_init(&xt, QCF_FLOAT32, 2);
	tt_init(&yt, QCF_FLOAT32, 2);
	const double tv[] = {1.25, -1.25};
	qt_fill(&xt, tv, 2);
	qcf_attr at[] = {qt_flt("scale", 0.5), qt_int("zero_point", 0), qt_int("quant_min", -128),
	                 qt_int("quant_max", 127)};
	qt *in2[] = {&xt}, *out2[] = {&yt};
	c = mkcall("torch", "fake_quantize_per_tensor_affine", in2, 1, out2, 1, at, 4);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&yt, 0), 1.5);
	CU_ASSERT_EQUAL(qt_get(&yt, 1), -1.0);
	/* ... and ops it does not apply to keep their own rounding */
	tt_init(&y, QCF_INT8, 2);
	qt_quant1(&y, 1.0f, -3);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), -1); /* requantize: double rounding */
	CU_ASSERT_EQUAL(qt_get(&y, 1), -5);
	tt_init(&y, QCF_FLOAT32, 2);
	c = mkcall("litert", "DEQUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 1.25);
	p->destroy(inst);
	/* rounding=single: torch keeps ties to even */
	CU_ASSERT_EQUAL_FATAL(p->create(&single, 1, &inst, msg, sizeof msg), QCF_OK);
	c = mkcall("torch", "fake_quantize_per_tensor_affine", in2, 1, out2, 1, at, 4);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&yt, 0), 1.0);
	CU_ASSERT_EQUAL(qt_get(&yt, 1), -1.0);
	p->destroy(inst);
	dlclose(so);
}

void qct_register_reference(void)
{
	CU_pSuite s = qct_suite("reference/requant");
	CU_add_test(s, "QuantizeMultiplier golden table", test_qm_golden);
	CU_add_test(s, "QuantizeMultiplier single-rounding clamp", test_qm_single_clamp);
	CU_add_test(s, "SRDHM ties toward +inf", test_srdhm_ties);
	CU_add_test(s, "RDBPOT ties away from zero", test_rdbpot_ties);
	CU_add_test(s, "MBQM double vs single rounding", test_mbqm_builds_differ);
	CU_add_test(s, "MBQM int64 variant", test_mbqm64);

	s = qct_suite("reference/litert");
	CU_add_test(s, "QUANTIZE float rounds half away", test_litert_quantize_float);
	CU_add_test(s, "QUANTIZE requantize both roundings", test_litert_requantize);
	CU_add_test(s, "QUANTIZE/DEQUANTIZE invalid params", test_litert_invalid);
	CU_add_test(s, "DEQUANTIZE exact product", test_litert_dequantize);

	s = qct_suite("reference/torch");
	CU_add_test(s, "libtorch example", test_torch_libtorch_example);
	CU_add_test(s, "multiply by reciprocal", test_torch_reciprocal);
	CU_add_test(s, "int vs float zero point at a tie", test_torch_int_vs_float_zp);
	CU_add_test(s, "float zero point, FMA tie", test_torch_fma_tie);
	CU_add_test(s, "cachemask", test_torch_mask);
	CU_add_test(s, "NaN, inf, huge are unpredictable", test_torch_undefined);
	CU_add_test(s, "float64 and float16 arithmetic", test_torch_float64);
	CU_add_test(s, "TORCH_CHECK rules", test_torch_checks);

	s = qct_suite("reference/tf");
	CU_add_test(s, "nudged zero point", test_tf_nudge);
	CU_add_test(s, "ties round half up", test_tf_half_up);
	CU_add_test(s, "vars per channel, zero range", test_tf_vars_zero_and_channels);
	CU_add_test(s, "checks and NaN", test_tf_checks);

	s = qct_suite("reference/onnx");
	CU_add_test(s, "QuantizeLinear", test_onnx_quantize);
	CU_add_test(s, "DequantizeLinear", test_onnx_dequantize);

	s = qct_suite("reference/rounding");
	CU_add_test(s, "names and parse", test_rounding_names);
	CU_add_test(s, "requantization helpers: DEFAULT is DOUBLE", test_requant_build);
	CU_add_test(s, "qref_round_half exact ties", test_round_half);
	CU_add_test(s, "litert QUANTIZE float -> int", test_rounding_litert_quantize);
	CU_add_test(s, "litert QUANTIZE requantize", test_rounding_litert_requantize);
	CU_add_test(s, "DEQUANTIZE, DequantizeLinear: default only", test_rounding_dequantize);
	CU_add_test(s, "torch fake quantize, four ops", test_rounding_torch);
	CU_add_test(s, "torch float zero point and FMA", test_rounding_torch_float_zp);
	CU_add_test(s, "tf fake quant, three ops", test_rounding_tf);
	CU_add_test(s, "onnx QuantizeLinear", test_rounding_onnx_quantize);
	CU_add_test(s, "parameter rules before rounding", test_rounding_invalid_first);

	s = qct_suite("reference/real_output");
	CU_add_test(s, "litert QUANTIZE, both paths", test_real_output_quantize);
	CU_add_test(s, "onnx QuantizeLinear", test_real_output_onnx);
	CU_add_test(s, "not quantized outputs", test_real_output_not_quantized);

	s = qct_suite("reference/plugin");
	CU_add_test(s, "dispatch table", test_dispatch);
	CU_add_test(s, "plugin negotiate, options, execute", test_plugin);
}
