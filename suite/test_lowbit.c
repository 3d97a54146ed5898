/*
 * The small floats of ABI version 2 (reference/dtype.c): every code's value, rounding to
 * nearest even against an independent model (the nearest of all codes, found by search),
 * saturation and the out-of-range rules of each type, e8m0's three round modes, int2 packing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "qct.h"
#include "reference/dtype.h"

static const qcf_dtype smalls[] = {QCF_FLOAT8E4M3FN,   QCF_FLOAT8E4M3FNUZ, QCF_FLOAT8E5M2,
                                   QCF_FLOAT8E5M2FNUZ, QCF_FLOAT6E3M2,     QCF_FLOAT6E2M3,
                                   QCF_FLOAT4E2M1};
#define N_SMALLS (sizeof smalls / sizeof smalls[0])

static unsigned width(qcf_dtype t)
{
	return t == QCF_FLOAT4E2M1 ? 4 : (t == QCF_FLOAT6E3M2 || t == QCF_FLOAT6E2M3) ? 6 : 8;
}

/* The table of each type as its header comment states it: largest value, NaN codes. */
static void test_tables(void)
{
	CU_ASSERT_EQUAL(qref_small_max(QCF_FLOAT8E4M3FN), 448);
	CU_ASSERT_EQUAL(qref_small_max(QCF_FLOAT8E4M3FNUZ), 240);
	CU_ASSERT_EQUAL(qref_small_max(QCF_FLOAT8E5M2), 57344);
	CU_ASSERT_EQUAL(qref_small_max(QCF_FLOAT8E5M2FNUZ), 57344);
	CU_ASSERT_EQUAL(qref_small_max(QCF_FLOAT6E3M2), 28);
	CU_ASSERT_EQUAL(qref_small_max(QCF_FLOAT6E2M3), 7.5);
	CU_ASSERT_EQUAL(qref_small_max(QCF_FLOAT4E2M1), 6);
	/* smallest subnormals: 2^-9, 2^-10, 2^-16, 2^-17, 2^-4 (e3m2), 2^-3 (e2m3), 0.5 */
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E4M3FN, 1), 0x1p-9f);
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E4M3FNUZ, 1), 0x1p-10f);
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E5M2, 1), 0x1p-16f);
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E5M2FNUZ, 1), 0x1p-17f);
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT6E3M2, 1), 0x1p-4f);
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT6E2M3, 1), 0x1p-3f);
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT4E2M1, 1), 0.5f);
	/* the float4 e2m1 table (OCP MX v1.0, 5.3.3): 0 0.5 1 1.5 2 3 4 6 */
	static const float e2m1[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
	for (int c = 0; c < 16; c++)
		CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT4E2M1, (uint8_t)c),
		                c & 8 ? -e2m1[c & 7] : e2m1[c & 7]);
	/* NaNs and infinities */
	CU_ASSERT(isnan(qref_small_to_f32(QCF_FLOAT8E4M3FN, 0x7f)));
	CU_ASSERT(isnan(qref_small_to_f32(QCF_FLOAT8E4M3FN, 0xff)));
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E4M3FN, 0x7e), 448);
	CU_ASSERT(isnan(qref_small_to_f32(QCF_FLOAT8E4M3FNUZ, 0x80)));
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E4M3FNUZ, 0xff), -240);
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E5M2, 0x7c), INFINITY);
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E5M2, 0xfc), -INFINITY);
	for (int c = 0x7d; c <= 0x7f; c++)
		CU_ASSERT(isnan(qref_small_to_f32(QCF_FLOAT8E5M2, (uint8_t)c)));
	CU_ASSERT(isnan(qref_small_to_f32(QCF_FLOAT8E5M2FNUZ, 0x80)));
	CU_ASSERT_EQUAL(qref_small_to_f32(QCF_FLOAT8E5M2FNUZ, 0x7f), 57344);
	/* and the number of NaN codes: 2, 1, 6, 1, 0, 0, 0 */
	static const int nans[N_SMALLS] = {2, 1, 6, 1, 0, 0, 0};
	for (size_t k = 0; k < N_SMALLS; k++) {
		int n = 0;
		for (unsigned c = 0; c < 1u << width(smalls[k]); c++)
			n += isnan(qref_small_to_f32(smalls[k], (uint8_t)c)) != 0;
		CU_ASSERT_EQUAL(n, nans[k]);
	}
}

/* Every code that is not NaN converts back to itself. */
static void test_round_trip(void)
{
	for (size_t k = 0; k < N_SMALLS; k++) {
		qcf_dtype t = smalls[k];
		int bad = 0;
		for (unsigned c = 0; c < 1u << width(t); c++) {
			float v = qref_small_to_f32(t, (uint8_t)c);
			if (isnan(v))
				continue;
			/* an infinity (e5m2) saturates to the largest finite value */
			bad += qref_small_from(t, v, 0) != c ||
			       (!isinf(v) && qref_small_from(t, v, 1) != c);
		}
		CU_ASSERT_EQUAL(bad, 0);
	}
}

/*
 * The independent model: the nearest finite code by search over all codes; a tie goes to the
 * code whose last mantissa bit is 0 (every type here keeps at least one mantissa bit, and
 * adjacent values of one sign differ in their code by 1, so "even" is the code's bit 0).
 * Values past the largest are not asked.
 */
static uint8_t nearest(qcf_dtype t, double x)
{
	double best = INFINITY;
	unsigned bc = 0;
	for (unsigned c = 0; c < 1u << width(t); c++) {
		double v = qref_small_to_f32(t, (uint8_t)c);
		if (isnan(v) || isinf(v) || (signbit(v) != signbit(x) && v != 0))
			continue;
		if (v == 0 && signbit(v) != signbit(x) && t != QCF_FLOAT8E4M3FNUZ &&
		    t != QCF_FLOAT8E5M2FNUZ)
			continue; /* zero keeps the sign where -0 exists */
		double d = fabs(x - v);
		if (d < best || (d == best && !(c & 1))) {
			best = d;
			bc = c;
		}
	}
	return (uint8_t)bc;
}

static void test_nearest_even(void)
{
	for (size_t k = 0; k < N_SMALLS; k++) {
		qcf_dtype t = smalls[k];
		double max = qref_small_max(t);
		int bad = 0, asked = 0;
		/* every code's value, the midpoints to its neighbours, and a hair either side */
		for (unsigned c = 0; c < 1u << width(t); c++) {
			double v = qref_small_to_f32(t, (uint8_t)c);
			if (isnan(v) || isinf(v) || v < 0)
				continue;
			double up = qref_small_to_f32(t, (uint8_t)(c + 1));
			double mid = v < max && !isnan(up) ? (v + up) / 2 : v;
			const double xs[] = {
			        v,         mid,      nextafter(mid, 0), nextafter(mid, INFINITY),
			        v * 0.999, v * 1.001};
			for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
				for (int s = 0; s < 2; s++) {
					double x = s ? -xs[i] : xs[i];
					if (fabs(x) > max)
						continue;
					asked++;
					uint8_t want = nearest(t, x);
					if (qref_small_from(t, x, 0) != want ||
					    qref_small_from(t, x, 1) != want) {
						if (bad++ < 3)
							fprintf(stderr,
							        "%s %.17g: got %#x want %#x\n",
							        qref_dtype_name(t), x,
							        qref_small_from(t, x, 0), want);
					}
				}
		}
		CU_ASSERT(asked > 100);
		CU_ASSERT_EQUAL(bad, 0);
	}
}

/* Hand-worked values (the Cast table of onnx/onnx, Operators.md; OCP 8-bit FP). */
static void test_edges(void)
{
	/* e4m3fn: 464 is the tie between 448 (0x7e) and the NaN code: to even, 448 */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, 464, 0), 0x7e);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, 465, 0), 0x7f);  /* overflow: NaN */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, 465, 1), 0x7e);  /* saturated */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, -1e9, 0), 0xff); /* NaN keeps the sign */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, -INFINITY, 1), 0xfe);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, NAN, 1), 0x7f);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, 0x1p-10, 0), 0x00);  /* tie to 0 */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, 0x1.8p-9, 0), 0x02); /* tie to 2^-8 */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, -0.0, 0), 0x80);
	/* subnormal to normal: 0.875 * 2^-6 + half a step rounds up to 2^-6 (0x08) */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FN, 0x1.ep-7, 0), 0x08);
	/* e4m3fnuz: no -0, NaN 0x80 for NaN and for overflow without saturation */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FNUZ, -0.0, 0), 0x00);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FNUZ, -0x1p-12, 0), 0x00);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FNUZ, 248, 0), 0x80); /* tie to odd max */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FNUZ, 247, 0), 0x7f);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FNUZ, INFINITY, 1), 0x7f);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E4M3FNUZ, -INFINITY, 0), 0x80);
	/* e5m2: infinities without saturation */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E5M2, 65536, 0), 0x7c);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E5M2, 61440, 0), 0x7c); /* tie, max is odd */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E5M2, 61439, 0), 0x7b);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E5M2, 61440, 1), 0x7b);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E5M2, -INFINITY, 0), 0xfc);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E5M2, -INFINITY, 1), 0xfb);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E5M2FNUZ, 1e6, 0), 0x80);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT8E5M2FNUZ, -1e6, 1), 0xff);
	/* float4 e2m1: ties to even (1.25 -> 1, 0.25 -> 0, 0.75 -> 1, 5 -> 4), saturation
	 * always, NaN -> +6 */
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT4E2M1, 1.25, 1), 0x2);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT4E2M1, 0.25, 1), 0x0);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT4E2M1, 0.75, 1), 0x2);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT4E2M1, 5, 1), 0x6);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT4E2M1, -5.0001, 0), 0xf);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT4E2M1, -1e30, 0), 0xf);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT4E2M1, -NAN, 0), 0x7);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT6E3M2, 30, 0), 0x1f);
	CU_ASSERT_EQUAL(qref_small_from(QCF_FLOAT6E2M3, -8, 0), 0x3f);
}

static void test_e8m0(void)
{
	CU_ASSERT_EQUAL(qref_e8m0_to_f32(127), 1.0f);
	CU_ASSERT_EQUAL(qref_e8m0_to_f32(0), 0x1p-127f);
	CU_ASSERT_EQUAL(qref_e8m0_to_f32(254), 0x1p127f);
	CU_ASSERT(isnan(qref_e8m0_to_f32(255)));
	/* the tie is 1.5 * 2^e: up by default and with nearest, down with down */
	CU_ASSERT_EQUAL(qref_e8m0_from(1.5, 1, QREF_E8M0_UP), 128);
	CU_ASSERT_EQUAL(qref_e8m0_from(1.5, 1, QREF_E8M0_NEAREST), 128);
	CU_ASSERT_EQUAL(qref_e8m0_from(1.5, 1, QREF_E8M0_DOWN), 127);
	CU_ASSERT_EQUAL(qref_e8m0_from(1.4999, 1, QREF_E8M0_UP), 127);
	CU_ASSERT_EQUAL(qref_e8m0_from(1.5001, 1, QREF_E8M0_DOWN), 128);
	CU_ASSERT_EQUAL(qref_e8m0_from(0.75, 1, QREF_E8M0_UP), 127);
	CU_ASSERT_EQUAL(qref_e8m0_from(0x1p-127, 1, QREF_E8M0_UP), 0);
	CU_ASSERT_EQUAL(qref_e8m0_from(0x1.8p-127, 1, QREF_E8M0_UP), 1);
	CU_ASSERT_EQUAL(qref_e8m0_from(0x1.8p-127, 1, QREF_E8M0_DOWN), 0);
	CU_ASSERT_EQUAL(qref_e8m0_from(0x1p-127, 0, QREF_E8M0_UP), 0xff);
	CU_ASSERT_EQUAL(qref_e8m0_from(0, 1, QREF_E8M0_UP), 0);
	CU_ASSERT_EQUAL(qref_e8m0_from(0, 0, QREF_E8M0_UP), 0xff);
	CU_ASSERT_EQUAL(qref_e8m0_from(-2, 1, QREF_E8M0_UP), 0);
	CU_ASSERT_EQUAL(qref_e8m0_from(0x1.8p127, 1, QREF_E8M0_UP), 0xfe);
	CU_ASSERT_EQUAL(qref_e8m0_from(0x1.8p127, 0, QREF_E8M0_UP), 0xff);
	CU_ASSERT_EQUAL(qref_e8m0_from(INFINITY, 1, QREF_E8M0_UP), 0xfe);
	CU_ASSERT_EQUAL(qref_e8m0_from(-INFINITY, 1, QREF_E8M0_UP), 0x00);
	CU_ASSERT_EQUAL(qref_e8m0_from(NAN, 1, QREF_E8M0_UP), 0xff);
}

/* qref_get / qref_set over a packed tensor: float4 nibbles, int2 and uint2 crumbs. */
static void test_packed(void)
{
	uint8_t buf[4] = {0};
	int64_t shape = 8;
	qcf_tensor t = {sizeof t, "x", QCF_FLOAT4E2M1, 1, &shape, buf, 4, NULL};
	const double v[8] = {0.5, -6, 1.25, 3, -0.0, 7, 2.5, -0.25};
	const double want[8] = {0.5, -6, 1, 3, -0.0, 6, 2, -0.0};
	for (int i = 0; i < 8; i++)
		qref_set(&t, (size_t)i, v[i]);
	CU_ASSERT_EQUAL(buf[0], 0xf1); /* element 0 in the low nibble: 0.5 = 0x1, -6 = 0xf */
	for (int i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(qref_get(&t, (size_t)i), want[i]);
		CU_ASSERT_EQUAL(signbit(qref_get(&t, (size_t)i)), signbit(want[i]));
	}
	memset(buf, 0, sizeof buf);
	t.dtype = QCF_INT2;
	const double iv[8] = {-2, -1, 0, 1, 1, 0, -1, -2};
	for (int i = 0; i < 8; i++)
		qref_set(&t, (size_t)i, iv[i]);
	CU_ASSERT_EQUAL(buf[0], 0x4e); /* 10 11 00 01 -> bits 0-1 = 2, 2-3 = 3, 4-5 = 0, 6-7 = 1 */
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(qref_get(&t, (size_t)i), iv[i]);
	t.dtype = QCF_UINT2;
	CU_ASSERT_EQUAL(qref_get(&t, 0), 2);
	CU_ASSERT_EQUAL(qref_get(&t, 1), 3);
	CU_ASSERT_EQUAL(qcf_dtype_nbytes(QCF_INT2, 5), 2);
	CU_ASSERT_EQUAL(qcf_dtype_nbytes(QCF_FLOAT4E2M1, 5), 3);
	CU_ASSERT_EQUAL(qcf_dtype_nbytes(QCF_GGML_Q4_0, 64), 36);
	CU_ASSERT_EQUAL(qcf_dtype_nbytes(QCF_GGML_Q6_K, 512), 420);
	int64_t lo, hi;
	CU_ASSERT(qref_dtype_range(QCF_INT2, &lo, &hi) && lo == -2 && hi == 1);
	CU_ASSERT_EQUAL(qref_dtype_parse("float8e4m3fn"), QCF_FLOAT8E4M3FN);
	CU_ASSERT_EQUAL(qref_dtype_parse("ggml_q4_k"), QCF_GGML_Q4_K);
	CU_ASSERT_EQUAL(qref_dtype_parse("float8e4m3"), QCF_DTYPE_INVALID);
	CU_ASSERT_STRING_EQUAL(qcf_dtype_name((qcf_dtype)25), "invalid");
}

/* ---- through the binary: profile onnx-float8 against the typical mistakes ---- */

static int has(const char *s, const char *sub)
{
	return strstr(s, sub) != NULL;
}

/* A QuantizeLinear case to a float8 type (not float4), and whether it saturates. */
static int float8_quantize(json_t *c, int *saturates)
{
	const char *name = qct_str(c, "name");
	if (strcmp(qct_str(c, "op"), "QuantizeLinear") || has(name, "float4"))
		return 0;
	/* sweeps say sat=1, the ORT goldens saturate1; the explicit cases of
	 * specs/onnx/quantize_linear_float8.yaml that saturate */
	*saturates = has(name, "sat=1") || has(name, "saturate1") || has(name, "per_axis_") ||
	             has(name, "_saturated") || has(name, "float16_to_float8") ||
	             has(name, "output_dtype_float8"); /* default 1 */
	return 1;
}

static json_t *run_stub(const char *tmp, const char *stub, int *st)
{
	return qct_run_report(tmp, st, NULL, "--profile onnx-float8 --plugin %s", qct_stub(stub));
}

/* Ignoring saturate = 1 fails exactly the float8 cases that saturate (all of them reach past
 * the largest value); saturate = 0, float4 and DequantizeLinear pass. */
static void test_mistake_no_saturate(void)
{
	const char *tmp = qct_tmpdir();
	int st, bad = 0, failed = 0, saturating = 0;
	json_t *r = run_stub(tmp, "f8_no_saturate", &st);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_str(c, "verdict");
		int sat = 0, f8 = float8_quantize(c, &sat);
		int want_fail = f8 && sat &&
		                strcmp(qct_str(c, "name"), "onnx/quantize_linear_float8/"
		                                           "case/float8_zero_point_not_a_"
		                                           "value");
		failed += !strcmp(v, "FAIL");
		saturating += want_fail;
		if (want_fail != !strcmp(v, "FAIL") ||
		    (!want_fail && strcmp(v, "PASS") && strcmp(v, "EXPECTED_ERROR"))) {
			if (bad++ < 3)
				fprintf(stderr, "no_saturate: %s %s\n", qct_str(c, "name"), v);
		}
	}
	CU_ASSERT(saturating >= 60);
	CU_ASSERT_EQUAL(failed, saturating);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Truncating subnormals fails every float8 QuantizeLinear sweep and ORT case (each holds the
 * ties between subnormals); DequantizeLinear and float4 pass. */
static void test_mistake_subnormal(void)
{
	const char *tmp = qct_tmpdir();
	int st, bad = 0, sweeps = 0;
	json_t *r = run_stub(tmp, "f8_subnormal_trunc", &st);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_str(c, "verdict"), *name = qct_str(c, "name");
		int sat, f8 = float8_quantize(c, &sat);
		int sweep = f8 && (has(name, "dtype=") || has(name, "_opset"));
		sweeps += sweep;
		if ((sweep && strcmp(v, "FAIL")) ||
		    (!f8 && strcmp(v, "PASS") && strcmp(v, "EXPECTED_ERROR"))) {
			if (bad++ < 3)
				fprintf(stderr, "subnormal_trunc: %s %s\n", name, v);
		}
	}
	CU_ASSERT(sweeps >= 100);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/* A version-1 plugin (every stub but the f8_ ones answers version 1) still loads and runs: it
 * passes the int8 cases and is offered none of the float8 ones. */
static void test_v1_plugin_not_offered(void)
{
	const char *tmp = qct_tmpdir();
	int st, offered = 0, n = 0;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/onnx/quantize_linear.yaml specs/onnx/ort "
	                           "specs/onnx/quantize_linear_float8.yaml "
	                           "specs/onnx/dequantize_linear_float8.yaml --plugin %s",
	                           qct_stub("ok"));
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_EQUAL(
	        json_integer_value(json_object_get(
	                json_object_get(json_object_get(r, "run"), "plugin"), "abi_version")),
	        1);
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_str(c, "verdict");
		const char *name = qct_str(c, "name");
		if (has(name, "onnx/quantize_linear/") || has(name, "int4_blocked") ||
		    has(name, "output_dtype_int") || has(name, "output_dtype_uint")) {
			/* version-1 types */
			offered += !strcmp(v, "PASS") || !strcmp(v, "EXPECTED_ERROR");
			continue;
		}
		n++;
		const char *m = qct_str(c, "message");
		CU_ASSERT(!strcmp(v, "NOT_SUPPORTED") && has(m, "not offered") &&
		          has(m, "needs plugin ABI version 2"));
	}
	CU_ASSERT(n >= 200);
	CU_ASSERT(offered >= 100);
	json_decref(r);
	qct_rmdir(tmp);
}

/* The plugin ABI field of a report. */
static json_int_t abi_version(json_t *r)
{
	return json_integer_value(json_object_get(
	        json_object_get(json_object_get(r, "run"), "plugin"), "abi_version"));
}

/* plugins/example/example.c built against the header as version 1 shipped it (suite/abi1/)
 * still loads and runs: it answers version 1, every case of its int8 specs has the verdict and
 * message of the same source built against today's header, and the float8 cases never reach
 * it (the host's "not offered"; the other build's answer there depends on the version its
 * source asks for). */
static void test_v1_built_example(void)
{
	char *h = qct_read_file("suite/abi1/qconform/plugin.h");
	char *d = qct_read_file(qct_build_path("abi1/example.d"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT(has(h, "#define QCF_ABI_VERSION     1 ") && !has(h, "scale_dtype"));
	/* the object was compiled against the frozen header, not harness/include's */
	CU_ASSERT(has(d, "suite/abi1/qconform/plugin.h") && !has(d, "harness/include"));
	free(h);
	free(d);
	const char *specs = "specs/onnx/dequantize_linear.yaml "
	                    "specs/onnx/dequantize_linear_shapes.yaml "
	                    "specs/onnx/dequantize_linear_float8.yaml";
	const char *tmp2 = qct_tmpdir(), *tmp1 = qct_tmpdir();
	int st2, st1;
	json_t *r2 = qct_run_report(tmp2, &st2, NULL, "%s --plugin %s", specs,
	                            qct_build_path("example/libexample.so"));
	json_t *r1 = qct_run_report(tmp1, &st1, NULL, "%s --plugin %s", specs,
	                            qct_build_path("abi1/libexample_abi1.so"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
	CU_ASSERT_EQUAL(st2, 0);
	CU_ASSERT_EQUAL(st1, 0);
	CU_ASSERT_EQUAL(abi_version(r1), 1);
	json_t *c2s = json_object_get(r2, "cases"), *c1s = json_object_get(r1, "cases");
	CU_ASSERT_EQUAL_FATAL(json_array_size(c1s), json_array_size(c2s));
	int bad = 0, pass = 0, f8 = 0;
	for (size_t i = 0; i < json_array_size(c1s); i++) {
		json_t *c1 = json_array_get(c1s, i), *c2 = json_array_get(c2s, i);
		const char *name = qct_str(c1, "name"), *v = qct_str(c1, "verdict");
		const char *m = qct_str(c1, "message");
		int ok;
		if (has(name, "onnx/dequantize_linear_float8/")) {
			f8++;
			ok = !strcmp(v, "NOT_SUPPORTED") && has(m, "not offered") &&
			     has(m, "needs plugin ABI version 2, the plugin speaks 1");
		} else {
			pass += !strcmp(v, "PASS");
			ok = !strcmp(name, qct_str(c2, "name")) &&
			     !strcmp(v, qct_str(c2, "verdict")) &&
			     !strcmp(m, qct_str(c2, "message"));
		}
		if (!ok && bad++ < 3)
			fprintf(stderr, "\n  abi1 example: %s %s '%s'; built today: %s '%s'", name,
			        v, m, qct_str(c2, "verdict"), qct_str(c2, "message"));
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(f8 >= 20);
	CU_ASSERT(pass >= 100);
	json_decref(r1);
	json_decref(r2);
	qct_rmdir(tmp1);
	qct_rmdir(tmp2);
}

void qct_register_lowbit(void)
{
	CU_pSuite s = qct_suite("lowbit");
	CU_add_test(s, "each type's table", test_tables);
	CU_add_test(s, "every code converts back to itself", test_round_trip);
	CU_add_test(s, "nearest, ties to even, against a search", test_nearest_even);
	CU_add_test(s, "overflow, NaN, zero and tie edges", test_edges);
	CU_add_test(s, "e8m0 round modes and range", test_e8m0);
	CU_add_test(s, "packed float4, int2, uint2", test_packed);
	CU_add_test(s, "float8 without saturation fails where it saturates",
	            test_mistake_no_saturate);
	CU_add_test(s, "float8 subnormals truncated fail every sweep", test_mistake_subnormal);
	CU_add_test(s, "a version-1 plugin is not offered float8", test_v1_plugin_not_offered);
	CU_add_test(s, "the example built against the version-1 header", test_v1_built_example);
}
