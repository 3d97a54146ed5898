/*
 * Tests of the reference kernels (reference/): LiteRT requantization
 * helpers, LiteRT QUANTIZE/DEQUANTIZE, torch and TF fake quantization,
 * ONNX Q/DQ, the dispatch table and the plugin wrapper. Golden values are
 * from FACTS.md unless a comment says how they were derived.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "qct.h"
#include "qref.h"
#include "requant.h"

/* ---- small builders ---------------------------------------------------- */

#define MAXN 32

typedef struct {
	qcf_tensor t;
	int64_t shape[QCF_MAX_RANK];
	qcf_quant q;
	float scales[MAXN];
	int32_t zps[MAXN];
	float fzps[MAXN];
	unsigned char buf[MAXN * 8];
} tt;

/* A 1-D tensor of n elements (data zeroed). Do not copy a tt after this. */
static void tt_init(tt *x, qcf_dtype dt, int64_t n)
{
	memset(x, 0, sizeof *x);
	x->t.struct_size = sizeof x->t;
	x->t.dtype = dt;
	x->t.rank = 1;
	x->shape[0] = n;
	x->t.shape = x->shape;
	x->t.data = x->buf;
	x->t.nbytes = qcf_dtype_nbytes(dt, (size_t)n);
}

static void tt_shape(tt *x, int rank, const int64_t *shape)
{
	x->t.rank = rank;
	memcpy(x->shape, shape, sizeof(int64_t) * (size_t)rank);
	x->t.nbytes = qcf_dtype_nbytes(x->t.dtype, qref_numel(rank, shape));
}

static void tt_quant(tt *x, int axis, int count, const float *s, const int32_t *z)
{
	x->q.struct_size = sizeof x->q;
	x->q.axis = axis;
	x->q.count = count;
	memcpy(x->scales, s, sizeof(float) * (size_t)count);
	memcpy(x->zps, z, sizeof(int32_t) * (size_t)count);
	x->q.scales = x->scales;
	x->q.zero_points = x->zps;
	x->t.quant = &x->q;
}

/* Per-tensor quantization with one scale and zero point. */
static void tt_quant1(tt *x, float s, int32_t z)
{
	tt_quant(x, -1, 1, &s, &z);
}

static void tt_fill(tt *x, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		qref_set(&x->t, i, v[i]);
}

static double get(tt *x, size_t i)
{
	return qref_get(&x->t, i);
}

typedef struct {
	qref_detail d;
	uint8_t any[2][MAXN];
	double lo[2][MAXN], hi[2][MAXN], step[2][MAXN];
} det;

static qref_detail *det_init(det *x, qref_rounding r)
{
	memset(x, 0, sizeof *x);
	x->d.rounding = r;
	for (int k = 0; k < 2; k++) {
		x->d.out[k].any = x->any[k];
		x->d.out[k].lo = x->lo[k];
		x->d.out[k].hi = x->hi[k];
		x->d.out[k].step = x->step[k];
	}
	return &x->d;
}

static qcf_attr ai(const char *name, int64_t v)
{
	qcf_attr a = {.name = name, .type = QCF_ATTR_INT, .count = 1};
	a.v.i = v;
	return a;
}

static qcf_attr af(const char *name, double v)
{
	qcf_attr a = {.name = name, .type = QCF_ATTR_FLOAT, .count = 1};
	a.v.f = v;
	return a;
}

static qcf_op_call g_call;
static qcf_tensor g_in[4], g_out[4];

static qcf_op_call *mkcall(const char *sem, const char *op, tt **ins, int nin, tt **outs, int nout,
                           const qcf_attr *attrs, int na)
{
	memset(&g_call, 0, sizeof g_call);
	for (int i = 0; i < nin; i++)
		g_in[i] = ins[i]->t;
	for (int i = 0; i < nout; i++)
		g_out[i] = outs[i]->t;
	g_call.struct_size = sizeof g_call;
	g_call.semantics = sem;
	g_call.op = op;
	g_call.n_inputs = nin;
	g_call.inputs = g_in;
	g_call.n_outputs = nout;
	g_call.outputs = g_out;
	g_call.n_attrs = na;
	g_call.attrs = attrs;
	return &g_call;
}

static qcf_status run(const char *sem, const char *op, tt **ins, int nin, tt **outs, int nout,
                      const qcf_attr *attrs, int na, qref_detail *d)
{
	return qref_execute(mkcall(sem, op, ins, nin, outs, nout, attrs, na), d);
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
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		for (int r = 0; r < 2; r++) {
			int32_t m = -1;
			int s = -99;
			qref_quantize_multiplier(g[i].d, (qref_rounding)r, &m, &s);
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
	tt x, y;
	tt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_FLOAT32, 8);
	tt_init(&y, QCF_INT8, 8);
	tt_quant1(&y, 0.5f, 0);
	/* x / 0.5 = -2.5, 2.5, 1.5, -0.5, 2000, -3.25, 0.49, NaN */
	const double xv[] = {-1.25, 1.25, 0.75, -0.25, 1000, -1.625, 0.245, NAN};
	tt_fill(&x, xv, 8);
	det dd;
	qref_detail *d = det_init(&dd, QREF_ROUND_DOUBLE);
	CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), QCF_OK);
	const double want[] = {-3, 3, 2, -1, 127, -3};
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(get(&y, i), want[i]);
		CU_ASSERT_EQUAL(dd.any[0][i], 0);
	}
	CU_ASSERT_EQUAL(get(&y, 6), 0);
	CU_ASSERT_EQUAL(dd.any[0][7], 1); /* NaN: undefined in LiteRT */
	CU_ASSERT_EQUAL(dd.lo[0][7], -128);
	CU_ASSERT_EQUAL(dd.hi[0][7], 127);

	/* zero point added after rounding; per-axis scales */
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_UINT8, 4);
	const float s[] = {0.5f, 0.5f, 2.0f, 2.0f};
	const int32_t z[] = {10, 10, 128, 128};
	tt_quant(&y, 0, 4, s, z);
	const double xv2[] = {-1.25, INFINITY, 5.0, -3.0};
	tt_fill(&x, xv2, 4);
	d = det_init(&dd, QREF_ROUND_DOUBLE);
	CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), 7);
	CU_ASSERT_EQUAL(dd.any[0][1], 1); /* inf: undefined cast */
	CU_ASSERT_EQUAL(get(&y, 2), 131); /* 2.5 -> 3, + 128 */
	CU_ASSERT_EQUAL(get(&y, 3), 126); /* -1.5 -> -2, + 128 */
}

/* int8 (scale 0.25, zp 1) -> int8 (scale 1, zp -3): ratio 0.25. */
static void requant_case(qref_rounding r, double *o0, double *o1)
{
	tt x, y;
	tt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 2);
	tt_init(&y, QCF_INT8, 2);
	tt_quant1(&x, 0.25f, 1);
	tt_quant1(&y, 1.0f, -3);
	const double xv[] = {6, -5}; /* q - zp = 5, -6 */
	tt_fill(&x, xv, 2);
	det dd;
	CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, det_init(&dd, r)),
	                QCF_OK);
	*o0 = get(&y, 0);
	*o1 = get(&y, 1);
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
		tt x2, y2;
		tt *in2[] = {&x2}, *out2[] = {&y2};
		tt_init(&x2, QCF_INT16, 2);
		tt_init(&y2, QCF_INT8, 2);
		tt_quant1(&x2, 0x1p20f, 0);
		tt_quant1(&y2, 1.0f, 0);
		const double v2[] = {32767, 0};
		tt_fill(&x2, v2, 2);
		for (int r = 0; r < 2; r++) {
			det d2;
			CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in2, 1, out2, 1, NULL, 0,
			                    det_init(&d2, (qref_rounding)r)),
			                QCF_OK);
			CU_ASSERT_EQUAL(d2.any[0][0], 1);
			CU_ASSERT_EQUAL(d2.lo[0][0], -128);
			CU_ASSERT_EQUAL(d2.any[0][1], 0);
			CU_ASSERT_EQUAL(get(&y2, 1), 0);
		}
	}

	/* detail NULL means double rounding */
	tt x, y;
	tt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 1);
	tt_init(&y, QCF_INT16, 1);
	tt_quant1(&x, 0.25f, 1);
	tt_quant1(&y, 1.0f, 0);
	const double xv[] = {6};
	tt_fill(&x, xv, 1);
	CU_ASSERT_EQUAL(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, NULL), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), 2);
}

static void test_litert_invalid(void)
{
	tt x, y;
	tt *in[] = {&x}, *out[] = {&y};
	det dd;
	qref_detail *d = det_init(&dd, QREF_ROUND_DOUBLE);
	/* int16 -> int16 needs zero points 0 */
	tt_init(&x, QCF_INT16, 2);
	tt_init(&y, QCF_INT16, 2);
	tt_quant1(&x, 1.0f, 1);
	tt_quant1(&y, 1.0f, 0);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "zero points 0");
	/* uint8 -> int32 is not an allowed pair */
	tt_init(&x, QCF_UINT8, 2);
	tt_init(&y, QCF_INT32, 2);
	tt_quant1(&x, 1.0f, 0);
	tt_quant1(&y, 1.0f, 0);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "not allowed");
	/* float -> int8 without quantization */
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_INT8, 2);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "quantization");
	/* shape mismatch */
	tt_quant1(&y, 1.0f, 0);
	y.shape[0] = 3;
	y.t.nbytes = 3;
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "shape");
	/* per-axis with a scale count that is not the axis size */
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_INT8, 2);
	const float s3[] = {1.0f, 1.0f, 1.0f};
	const int32_t z3[] = {0, 0, 0};
	tt_quant(&y, 0, 3, s3, z3);
	ASSERT_INVALID(run("litert", "QUANTIZE", in, 1, out, 1, NULL, 0, d), d, "3 scales");
	/* DEQUANTIZE int16 with zero point != 0 */
	tt_init(&x, QCF_INT16, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	tt_quant1(&x, 1.0f, 3);
	ASSERT_INVALID(run("litert", "DEQUANTIZE", in, 1, out, 1, NULL, 0, d), d, "zero point 0");
}

static void test_litert_dequantize(void)
{
	tt x, y;
	tt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 4);
	tt_init(&y, QCF_FLOAT32, 4);
	tt_quant1(&x, 0.1f, -128);
	const double xv[] = {-127, -126, 127, -128};
	tt_fill(&x, xv, 4);
	det dd;
	qref_detail *d = det_init(&dd, QREF_ROUND_DOUBLE);
	CU_ASSERT_EQUAL(run("litert", "DEQUANTIZE", in, 1, out, 1, NULL, 0, d), QCF_OK);
	/* (q - zp) * s rounded once: q*s - zp*s in float gives 0.100000381 here */
	CU_ASSERT_EQUAL((float)get(&y, 0), 0.1f);
	CU_ASSERT_EQUAL((float)get(&y, 1), (float)(2.0 * (double)0.1f));
	CU_ASSERT_EQUAL((float)get(&y, 2), (float)(255.0 * (double)0.1f));
	CU_ASSERT_EQUAL(get(&y, 3), 0.0);
	CU_ASSERT_EQUAL(dd.step[0][2], (double)0.1f);

	/* per-axis int16 (zero point 0) */
	int64_t shp[] = {2, 2};
	tt_init(&x, QCF_INT16, 4);
	tt_init(&y, QCF_FLOAT32, 4);
	tt_shape(&x, 2, shp);
	tt_shape(&y, 2, shp);
	const float s[] = {0.5f, 0.25f};
	const int32_t z[] = {0, 0};
	tt_quant(&x, 1, 2, s, z);
	const double xv2[] = {3, 3, -32768, 32767};
	tt_fill(&x, xv2, 4);
	d = det_init(&dd, QREF_ROUND_DOUBLE);
	CU_ASSERT_EQUAL(run("litert", "DEQUANTIZE", in, 1, out, 1, NULL, 0, d), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), 1.5);
	CU_ASSERT_EQUAL(get(&y, 1), 0.75);
	CU_ASSERT_EQUAL(get(&y, 2), -16384.0);
	CU_ASSERT_EQUAL(get(&y, 3), 8191.75);
	CU_ASSERT_EQUAL(dd.step[0][1], 0.25);
	CU_ASSERT_EQUAL(dd.step[0][2], 0.5);
}

/* ---- torch ------------------------------------------------------------- */

static qcf_status torch_pt(tt *x, tt *y, tt *mask, double scale, int64_t zp, int64_t qmin,
                           int64_t qmax, qref_detail *d)
{
	qcf_attr at[] = {af("scale", scale), ai("zero_point", zp), ai("quant_min", qmin),
	                 ai("quant_max", qmax)};
	tt *in[] = {x}, *out[] = {y, mask};
	return run("torch",
	           mask ? "fake_quantize_per_tensor_affine_cachemask"
	                : "fake_quantize_per_tensor_affine",
	           in, 1, out, mask ? 2 : 1, at, 4, d);
}

static void test_torch_libtorch_example(void)
{
	/* quant range not stated with the example; it only needs to hold 1..7 */
	tt x, y;
	tt_init(&x, QCF_FLOAT32, 7);
	tt_init(&y, QCF_FLOAT32, 7);
	const double xv[] = {-0.25f, -0.15f, -0.05f, 0.05f, 0.15f, 0.25f, 0.35f};
	tt_fill(&x, xv, 7);
	CU_ASSERT_EQUAL(torch_pt(&x, &y, NULL, 0.1, 3, 0, 255, NULL), QCF_OK);
	const float want[] = {-0.2f, -0.2f, 0.0f, 0.0f, 0.2f, 0.2f, 0.4f};
	for (int i = 0; i < 7; i++)
		CU_ASSERT_EQUAL((float)get(&y, i), want[i]);
}

static void test_torch_reciprocal(void)
{
	const float xf = 0.273939937f, s = 0.00214854861f;
	volatile float inv = 1.0f / s;
	CU_ASSERT_EQUAL(xf * inv, 127.5f);   /* multiply: a tie, to even 128 */
	CU_ASSERT_NOT_EQUAL(xf / s, 127.5f); /* divide: 127.499992 -> 127 */
	tt x, y;
	tt_init(&x, QCF_FLOAT32, 1);
	tt_init(&y, QCF_FLOAT32, 1);
	const double xv[] = {xf};
	tt_fill(&x, xv, 1);
	det dd;
	CU_ASSERT_EQUAL(torch_pt(&x, &y, NULL, s, 0, 0, 255, det_init(&dd, 0)), QCF_OK);
	CU_ASSERT_EQUAL((float)get(&y, 0), 128.0f * s);
	CU_ASSERT_EQUAL(dd.step[0][0], (double)s);
}

static qcf_status torch_pc(tt *x, tt *sc, tt *zp, tt *y, tt *mask, int64_t axis, int64_t qmin,
                           int64_t qmax, qref_detail *d)
{
	qcf_attr at[] = {ai("axis", axis), ai("quant_min", qmin), ai("quant_max", qmax)};
	tt *in[] = {x, sc, zp}, *out[] = {y, mask};
	return run("torch",
	           mask ? "fake_quantize_per_channel_affine_cachemask"
	                : "fake_quantize_per_channel_affine",
	           in, 3, out, mask ? 2 : 1, at, 3, d);
}

static void test_torch_int_vs_float_zp(void)
{
	/* x * inv = 0.5 (a tie) with zero point 1 */
	tt x, sc, zp, y;
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&sc, QCF_FLOAT32, 2);
	tt_init(&zp, QCF_INT32, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	const double xv[] = {0.25, -0.25}, sv[] = {0.5, 0.5}, zv[] = {1, 1};
	tt_fill(&x, xv, 2);
	tt_fill(&sc, sv, 2);
	tt_fill(&zp, zv, 2);
	det dd;
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, det_init(&dd, 0)), QCF_OK);
	/* int zp: 1 + nearbyint(0.5) = 1 -> 0; 1 + nearbyint(-0.5) = 1 -> 0 */
	CU_ASSERT_EQUAL(get(&y, 0), 0.0);
	CU_ASSERT_EQUAL(get(&y, 1), 0.0);
	/* float zp: lrintf(1 + 0.5) = 2 -> 0.5; lrintf(1 - 0.5) = 0 -> -0.5 */
	tt_init(&zp, QCF_FLOAT32, 2);
	tt_fill(&zp, zv, 2);
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, det_init(&dd, 0)), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), 0.5);
	CU_ASSERT_EQUAL(get(&y, 1), -0.5);
	CU_ASSERT_EQUAL(dd.any[0][0], 0);
	/* float16 zero point takes the float path too */
	tt_init(&zp, QCF_FLOAT16, 2);
	tt_fill(&zp, zv, 2);
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 0, 0, 255, NULL), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), 0.5);
}

static void test_torch_fma_tie(void)
{
	/* zf + x * inv = 2.5 exactly (rint: 2), fused x * inv + zf = 2.50000024 (3) */
	const float s = 0x1.99999ep-3f, xf = 0x1.9999ap-1f;
	tt x, sc, zp, y;
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&sc, QCF_FLOAT32, 1);
	tt_init(&zp, QCF_FLOAT32, 1);
	tt_init(&y, QCF_FLOAT32, 2);
	int64_t shp[] = {2, 1};
	tt_shape(&x, 2, shp);
	tt_shape(&y, 2, shp);
	const double xv[] = {xf, 0.0}, sv[] = {s}, zv[] = {-1.5};
	tt_fill(&x, xv, 2);
	tt_fill(&sc, sv, 1);
	tt_fill(&zp, zv, 1);
	det dd;
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 1, -128, 127, det_init(&dd, 0)), QCF_OK);
	CU_ASSERT_EQUAL((float)get(&y, 0), (float)(3.5 * (double)s));
	CU_ASSERT_EQUAL(dd.any[0][0], 1);
	CU_ASSERT_EQUAL(dd.lo[0][0], (double)(float)(3.5 * (double)s));
	CU_ASSERT_EQUAL(dd.hi[0][0], (double)(float)(4.5 * (double)s));
	CU_ASSERT_EQUAL(dd.any[0][1], 0); /* -1.5 + 0: rint(-1.5) = -2 either way */
}

static void test_torch_mask(void)
{
	tt x, y, m;
	tt_init(&x, QCF_FLOAT32, 6);
	tt_init(&y, QCF_FLOAT32, 6);
	tt_init(&m, QCF_BOOL, 6);
	const double xv[] = {-1, 0, 10, 10.4, 10.6, 11};
	tt_fill(&x, xv, 6);
	CU_ASSERT_EQUAL(torch_pt(&x, &y, &m, 1.0, 0, 0, 10, NULL), QCF_OK);
	const double wy[] = {0, 0, 10, 10, 10, 10}, wm[] = {0, 1, 1, 1, 0, 0};
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(get(&y, i), wy[i]);
		CU_ASSERT_EQUAL(get(&m, i), wm[i]);
	}
	/* per channel, same rule on the unclamped q */
	tt sc, zp;
	tt_init(&sc, QCF_FLOAT32, 1);
	tt_init(&zp, QCF_INT32, 1);
	const double sv[] = {1}, zv[] = {0};
	tt_fill(&sc, sv, 1);
	tt_fill(&zp, zv, 1);
	int64_t shp[] = {6, 1};
	tt_shape(&x, 2, shp);
	tt_shape(&y, 2, shp);
	tt_shape(&m, 2, shp);
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, &m, 1, 0, 10, NULL), QCF_OK);
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(get(&y, i), wy[i]);
		CU_ASSERT_EQUAL(get(&m, i), wm[i]);
	}
}

static void test_torch_undefined(void)
{
	tt x, y, m;
	tt_init(&x, QCF_FLOAT32, 5);
	tt_init(&y, QCF_FLOAT32, 5);
	tt_init(&m, QCF_BOOL, 5);
	const double xv[] = {NAN, INFINITY, -INFINITY, 1e30, 3};
	tt_fill(&x, xv, 5);
	det dd;
	CU_ASSERT_EQUAL(torch_pt(&x, &y, &m, 0.5, 2, -8, 7, det_init(&dd, 0)), QCF_OK);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(dd.any[0][i], 1);
		CU_ASSERT_EQUAL(dd.lo[0][i], -5.0); /* (-8 - 2) * 0.5 */
		CU_ASSERT_EQUAL(dd.hi[0][i], 2.5);  /* (7 - 2) * 0.5 */
		CU_ASSERT_EQUAL(dd.any[1][i], 1);
		CU_ASSERT(get(&y, i) >= -5.0 && get(&y, i) <= 2.5);
	}
	CU_ASSERT_EQUAL(dd.any[0][4], 0);
	CU_ASSERT_EQUAL(get(&y, 4), 2.5); /* 6 + 2 = 8 -> 7 */
	CU_ASSERT_EQUAL(get(&m, 4), 0);
}

static void test_torch_float64(void)
{
	/* per tensor: (q - zp) * scale in float even for float64 input */
	tt x, y;
	tt_init(&x, QCF_FLOAT64, 1);
	tt_init(&y, QCF_FLOAT64, 1);
	const double xv[] = {0.3};
	tt_fill(&x, xv, 1);
	CU_ASSERT_EQUAL(torch_pt(&x, &y, NULL, 0.1, 0, -128, 127, NULL), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), (double)(3.0f * 0.1f)); /* 0.30000001192092896 */
	/* per channel: (double)(q - zp) * (double)scale */
	tt sc, zp;
	tt_init(&sc, QCF_FLOAT32, 1);
	tt_init(&zp, QCF_INT32, 1);
	const double sv[] = {0.1}, zv[] = {0};
	tt_fill(&sc, sv, 1);
	tt_fill(&zp, zv, 1);
	CU_ASSERT_EQUAL(torch_pc(&x, &sc, &zp, &y, NULL, 0, -128, 127, NULL), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), 3.0 * (double)0.1f); /* 0.30000000447034836 */
	/* float16 input: result rounded to float16 */
	tt_init(&x, QCF_FLOAT16, 1);
	tt_init(&y, QCF_FLOAT16, 1);
	tt_fill(&x, xv, 1);
	CU_ASSERT_EQUAL(torch_pt(&x, &y, NULL, 0.1, 0, -128, 127, NULL), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), (double)qref_f16_to_f32(qref_f32_to_f16(3.0f * 0.1f)));
}

static void test_torch_checks(void)
{
	tt x, y, sc, zp;
	det dd;
	qref_detail *d = det_init(&dd, 0);
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
	tt_fill(&sc, sv, 2);
	tt_fill(&zp, zv, 2);
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

static qcf_status tf_args(tt *x, tt *y, double min, double max, int64_t bits, int64_t narrow,
                          qref_detail *d)
{
	qcf_attr at[] = {af("min", min), af("max", max), ai("num_bits", bits),
	                 ai("narrow_range", narrow)};
	tt *in[] = {x}, *out[] = {y};
	return run("tf", "fake_quant_with_min_max_args", in, 1, out, 1, at, 4, d);
}

static void test_tf_nudge(void)
{
	/* min -1, max 1, 8 bits: zero_point_from_min = 127.499992f -> 127 */
	tt x, y;
	tt_init(&x, QCF_FLOAT32, 3);
	tt_init(&y, QCF_FLOAT32, 3);
	const double xv[] = {1.0, -1.0, 5.0};
	tt_fill(&x, xv, 3);
	det dd;
	CU_ASSERT_EQUAL(tf_args(&x, &y, -1, 1, 8, 0, det_init(&dd, 0)), QCF_OK);
	const float s = 2.0f / 255.0f;
	CU_ASSERT_EQUAL((float)get(&y, 0), 128.0f * s); /* zp 128 would give 127 * s */
	CU_ASSERT_EQUAL((float)get(&y, 1), -127.0f * s);
	CU_ASSERT_EQUAL((float)get(&y, 2), 128.0f * s);
	CU_ASSERT_EQUAL(dd.step[0][0], (double)s);
	/* narrow range: qmin 1, zero point 128, range (-127 s', 127 s') */
	CU_ASSERT_EQUAL(tf_args(&x, &y, -1, 1, 8, 1, NULL), QCF_OK);
	const float s2 = 2.0f / 254.0f;
	CU_ASSERT_EQUAL((float)get(&y, 0), 127.0f * s2);
	CU_ASSERT_EQUAL((float)get(&y, 1), -127.0f * s2);
}

static void test_tf_half_up(void)
{
	/* min -10, max 245: scale 1, zero point 10; ties round half up */
	tt x, y;
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_FLOAT32, 4);
	const double xv[] = {-3.5, -2.5, 2.5, 0.5};
	tt_fill(&x, xv, 4);
	CU_ASSERT_EQUAL(tf_args(&x, &y, -10, 245, 8, 0, NULL), QCF_OK);
	const double want[] = {-3, -2, 3, 1}; /* half-even: -4 -2 2 0; half-away: -4 -3 3 1 */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(get(&y, i), want[i]);
	/* the vars form gives the same here */
	tt mn, mx;
	tt_init(&mn, QCF_FLOAT32, 1);
	tt_init(&mx, QCF_FLOAT32, 1);
	const double a[] = {-10}, b[] = {245};
	tt_fill(&mn, a, 1);
	tt_fill(&mx, b, 1);
	qcf_attr at[] = {ai("num_bits", 8)};
	tt *in[] = {&x, &mn, &mx}, *out[] = {&y};
	CU_ASSERT_EQUAL(run("tf", "fake_quant_with_min_max_vars", in, 3, out, 1, at, 1, NULL),
	                QCF_OK);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(get(&y, i), want[i]);
}

static void test_tf_vars_zero_and_channels(void)
{
	int64_t shp[] = {2, 2};
	tt x, y, mn, mx;
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_FLOAT32, 4);
	tt_shape(&x, 2, shp);
	tt_shape(&y, 2, shp);
	tt_init(&mn, QCF_FLOAT32, 2);
	tt_init(&mx, QCF_FLOAT32, 2);
	const double xv[] = {2.5, 2.5, -3.5, 7.0}, a[] = {0, -10}, b[] = {0, 245};
	tt_fill(&x, xv, 4);
	tt_fill(&mn, a, 2);
	tt_fill(&mx, b, 2);
	tt *in[] = {&x, &mn, &mx}, *out[] = {&y};
	det dd;
	CU_ASSERT_EQUAL(run("tf", "fake_quant_with_min_max_vars_per_channel", in, 3, out, 1, NULL,
	                    0, det_init(&dd, 0)),
	                QCF_OK);
	/* channel 0 has min == max == 0: zeros */
	CU_ASSERT_EQUAL(get(&y, 0), 0.0);
	CU_ASSERT_EQUAL(get(&y, 1), 3.0);
	CU_ASSERT_EQUAL(get(&y, 2), 0.0);
	CU_ASSERT_EQUAL(get(&y, 3), 7.0);
	CU_ASSERT_EQUAL(dd.step[0][1], 1.0);
}

static void test_tf_checks(void)
{
	tt x, y;
	tt_init(&x, QCF_FLOAT32, 2);
	tt_init(&y, QCF_FLOAT32, 2);
	det dd;
	qref_detail *d = det_init(&dd, 0);
	ASSERT_INVALID(tf_args(&x, &y, -1, 1, 1, 0, d), d, "num_bits must be between 2 and 16");
	ASSERT_INVALID(tf_args(&x, &y, -1, 1, 17, 0, d), d, "num_bits must be between 2 and 16");
	ASSERT_INVALID(tf_args(&x, &y, 1, 1, 8, 0, d), d, "min has to be smaller than max");
	ASSERT_INVALID(tf_args(&x, &y, -1, 1, 8, 2, d), d, "narrow_range");
	CU_ASSERT_EQUAL(tf_args(&x, &y, -1, 1, 16, 0, d), QCF_OK);

	tt mn, mx;
	tt_init(&mn, QCF_FLOAT32, 3);
	tt_init(&mx, QCF_FLOAT32, 2);
	tt *in[] = {&x, &mn, &mx}, *out[] = {&y};
	ASSERT_INVALID(
	        run("tf", "fake_quant_with_min_max_vars_per_channel", in, 3, out, 1, NULL, 0, d), d,
	        "min has incorrect size");

	/* NaN input: Eigen's min/max paths disagree, any value in range */
	const double xv[] = {NAN, 0.0};
	tt_fill(&x, xv, 2);
	d = det_init(&dd, 0);
	CU_ASSERT_EQUAL(tf_args(&x, &y, 0, 255, 8, 0, d), QCF_OK);
	CU_ASSERT_EQUAL(dd.any[0][0], 1);
	CU_ASSERT_EQUAL(dd.lo[0][0], 0.0);
	CU_ASSERT_EQUAL(dd.hi[0][0], 255.0);
	CU_ASSERT_EQUAL(dd.any[0][1], 0);
}

/* ---- ONNX -------------------------------------------------------------- */

static void test_onnx_quantize(void)
{
	tt x, y;
	tt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_FLOAT32, 6);
	tt_init(&y, QCF_UINT8, 6);
	tt_quant1(&y, 2.0f, 128);
	const double xv[] = {0, 2, 3, 1000, -254, -1000};
	tt_fill(&x, xv, 6);
	CU_ASSERT_EQUAL(run("onnx", "QuantizeLinear", in, 1, out, 1, NULL, 0, NULL), QCF_OK);
	const double want[] = {128, 129, 130, 255, 1, 0};
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(get(&y, i), want[i]);

	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_UINT16, 4);
	tt_quant1(&y, 2.0f, 32767);
	const double xv2[] = {3, 5, INFINITY, NAN};
	tt_fill(&x, xv2, 4);
	det dd;
	CU_ASSERT_EQUAL(run("onnx", "QuantizeLinear", in, 1, out, 1, NULL, 0, det_init(&dd, 0)),
	                QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), 32769);
	CU_ASSERT_EQUAL(get(&y, 1), 32769); /* 2.5 -> 2: ties to even */
	CU_ASSERT_EQUAL(get(&y, 2), 65535); /* inf saturates */
	CU_ASSERT_EQUAL(dd.any[0][2], 0);
	CU_ASSERT_EQUAL(dd.any[0][3], 1); /* NaN */
	CU_ASSERT_EQUAL(dd.hi[0][3], 65535);

	/* int4, saturating, packed two per byte */
	tt_init(&x, QCF_FLOAT32, 4);
	tt_init(&y, QCF_INT4, 4);
	tt_quant1(&y, 1.0f, 0);
	const double xv3[] = {-9, 7.5, 0.5, -1.5};
	tt_fill(&x, xv3, 4);
	CU_ASSERT_EQUAL(run("onnx", "QuantizeLinear", in, 1, out, 1, NULL, 0, NULL), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), -8);
	CU_ASSERT_EQUAL(get(&y, 1), 7);
	CU_ASSERT_EQUAL(get(&y, 2), 0);
	CU_ASSERT_EQUAL(get(&y, 3), -2);
	CU_ASSERT_EQUAL(y.buf[0], 0x78);
}

static void test_onnx_dequantize(void)
{
	tt x, y;
	tt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_UINT8, 3);
	tt_init(&y, QCF_FLOAT32, 3);
	tt_quant1(&x, 0.1f, 128);
	const double xv[] = {129, 0, 255};
	tt_fill(&x, xv, 3);
	det dd;
	qref_detail *d = det_init(&dd, 0);
	CU_ASSERT_EQUAL(run("onnx", "DequantizeLinear", in, 1, out, 1, NULL, 0, d), QCF_OK);
	CU_ASSERT_EQUAL((float)get(&y, 0), 0.1f);
	CU_ASSERT_EQUAL((float)get(&y, 1), -128.0f * 0.1f);
	CU_ASSERT_EQUAL((float)get(&y, 2), 127.0f * 0.1f);
	CU_ASSERT_EQUAL(dd.step[0][0], (double)0.1f);

	/* int32: zero point must be 0; x rounds to float32 first */
	tt_init(&x, QCF_INT32, 1);
	tt_init(&y, QCF_FLOAT32, 1);
	tt_quant1(&x, 1.0f, 5);
	ASSERT_INVALID(run("onnx", "DequantizeLinear", in, 1, out, 1, NULL, 0, d), d, "must be 0");
	tt_quant1(&x, 1.0f, 0);
	const double big[] = {16777217};
	tt_fill(&x, big, 1);
	CU_ASSERT_EQUAL(run("onnx", "DequantizeLinear", in, 1, out, 1, NULL, 0, d), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), 16777216.0);
	/* zero point outside the quantized type */
	tt_init(&x, QCF_UINT8, 1);
	tt_quant1(&x, 1.0f, 256);
	ASSERT_INVALID(run("onnx", "DequantizeLinear", in, 1, out, 1, NULL, 0, d), d,
	               "does not fit");
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
	det dd;
	CU_ASSERT_EQUAL(qref_execute(&c, det_init(&dd, 0)), QCF_NOT_SUPPORTED);
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
	qcf_negotiation n = {.struct_size = sizeof n, .host_min_version = 2, .host_max_version = 5};
	CU_ASSERT_EQUAL(negotiate(&n), QCF_NOT_SUPPORTED);
	n.host_min_version = 0;
	n.host_max_version = 0;
	CU_ASSERT_EQUAL(negotiate(&n), QCF_NOT_SUPPORTED);
	n.host_max_version = 3;
	CU_ASSERT_EQUAL(negotiate(&n), QCF_OK);
	CU_ASSERT_EQUAL(n.abi_version, 1);
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
	tt x, y;
	tt *in[] = {&x}, *out[] = {&y};
	tt_init(&x, QCF_INT8, 2);
	tt_init(&y, QCF_INT8, 2);
	tt_quant1(&x, 0.25f, 1);
	tt_quant1(&y, 1.0f, -3);
	const double xv[] = {6, -5};
	tt_fill(&x, xv, 2);
	qcf_op_call *c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(p->supports(inst, c), QCF_OK);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), -2);
	CU_ASSERT_EQUAL(get(&y, 1), -4);
	/* an invalid call reports its rule through last_error */
	tt_init(&y, QCF_INT32, 2);
	tt_quant1(&y, 1.0f, 0);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(p->last_error(inst), "not allowed"));
	c->op = "CONV_2D";
	CU_ASSERT_EQUAL(p->supports(inst, c), QCF_NOT_SUPPORTED);
	p->destroy(inst);

	CU_ASSERT_EQUAL_FATAL(p->create(NULL, 0, &inst, msg, sizeof msg), QCF_OK);
	tt_init(&y, QCF_INT8, 2);
	tt_quant1(&y, 1.0f, -3);
	c = mkcall("litert", "QUANTIZE", in, 1, out, 1, NULL, 0);
	CU_ASSERT_EQUAL(p->execute(inst, NULL, c), QCF_OK);
	CU_ASSERT_EQUAL(get(&y, 0), -1); /* double rounding by default */
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

	s = qct_suite("reference/plugin");
	CU_add_test(s, "dispatch table", test_dispatch);
	CU_add_test(s, "plugin negotiate, options, execute", test_plugin);
}
