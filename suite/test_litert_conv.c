/*
 * LiteRT CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED (reference/litert_conv.c,
 * specs/litert/OPERATORS.md): the reference kernels through qref_execute, and
 * end to end through the binary against the reference and two stubs:
 * float_requant (XNNPACK-style float requantization) and ignore_axis
 * (per-axis weight scales ignored).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "qct.h"
#include "reference/attrs.h"
#include "reference/dtype.h"
#include "reference/kernel.h"
#include "reference/qref.h"
#include "reference/requant.h"
#include "spec/spec.h"
#include "tensor.h"

/* ---- building calls ---------------------------------------------------- */

static qcf_op_call *mkcall(const char *op, qt **ins, int nin, qt *out, const qcf_attr *attrs,
                           int na)
{
	return qt_call("litert", op, ins, nin, &out, 1, attrs, na);
}

static qcf_status run(const char *op, qt **ins, int nin, qt *out, const qcf_attr *attrs, int na,
                      qref_rounding rounding, qref_detail *d)
{
	return qref_execute(mkcall(op, ins, nin, out, attrs, na), qt_detail(d, rounding));
}

/* conv_test.cc SimplePerChannelTest (specs/litert/OPERATORS.md, "Golden values";
 * specs/litert/conv_2d.yaml has the derivation of the quantized values). */
static void golden_tensors(qt *x, qt *w, qt *b, qt *y)
{
	static const int64_t xs[] = {1, 2, 3, 2}, ws[] = {2, 2, 2, 2}, bs[] = {2},
	                     ys[] = {1, 1, 2, 2};
	static const double xv[] = {5, 3, 1, -3, -5, -7, 7, 5, 3, -5, -7, -9};
	static const double wv[] = {1, 2, 3, 4, 3, 4, 5, 6, 4, 4, 3, 3, 2, 2, 1, 1};
	static const double bv[] = {6, -2};
	static const float wsc[] = {1, 2};
	static const int32_t wz[] = {0, 0};
	qt_init(x, QCF_INT8, 4, xs);
	qt_quant1(x, 0.5f, -1);
	qt_fill(x, xv, 12);
	qt_init(w, QCF_INT8, 4, ws);
	qt_quant(w, 0, 2, wsc, wz);
	qt_fill(w, wv, 16);
	qt_init(b, QCF_INT32, 1, bs);
	qt_fill(b, bv, 2);
	qt_init(y, QCF_INT8, 4, ys);
	qt_quant1(y, 0.5f, -1);
}

/* ---- the reference kernels -------------------------------------------- */

static void test_conv_golden(void)
{
	qt x, w, b, y;
	golden_tensors(&x, &w, &b, &y);
	qt *in[] = {&x, &w, &b};
	qcf_attr at[] = {qt_str("padding", "VALID")};
	static const double want[] = {61, 127, -115, -93};
	const qref_rounding builds[] = {QREF_ROUND_DEFAULT, QREF_ROUND_DOUBLE, QREF_ROUND_SINGLE};
	for (int r = 0; r < 3; r++) {
		qref_detail d;
		CU_ASSERT_EQUAL_FATAL(run("CONV_2D", in, 3, &y, at, 1, builds[r], &d), QCF_OK);
		for (int i = 0; i < 4; i++)
			CU_ASSERT_EQUAL(qt_get(&y, (size_t)i), want[i]);
	}
	/* a missing bias reads as zeros (TFLM; LiteRT requires the tensor) */
	memset(b.buf, 0, sizeof b.buf);
	qref_detail d;
	CU_ASSERT_EQUAL_FATAL(run("CONV_2D", in, 3, &y, at, 1, 0, &d), QCF_OK);
	double with_zero[4];
	for (int i = 0; i < 4; i++)
		with_zero[i] = qt_get(&y, (size_t)i);
	CU_ASSERT_EQUAL_FATAL(run("CONV_2D", in, 2, &y, at, 1, 0, &d), QCF_OK);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(qt_get(&y, (size_t)i), with_zero[i]);
	/* SAME padding (the default) needs output [1, 2, 3, 2] */
	CU_ASSERT_EQUAL(run("CONV_2D", in, 3, &y, NULL, 0, 0, &d), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "output shape must be [1, 2, 3, 2]"));
}

/* The same weights packed as int4 (element 2i in the low nibble, sign-extended) give the same
 * outputs as int8 weights. */
static void test_int4_weights(void)
{
	qt x, w, b, y, w4;
	golden_tensors(&x, &w, &b, &y);
	/* weights within int4, some negative */
	static const double wv[] = {1, -2, 3, -4, 3, 4, -5, 6, 4, -8, 3, 7, -2, 2, 1, -1};
	qt_fill(&w, wv, 16);
	qt_init(&w4, QCF_INT4, 4, w.shape);
	qt_quant(&w4, 0, 2, w.scales, w.zps);
	qt_fill(&w4, wv, 16);
	/* the packing: element 0 low nibble, element 1 high nibble; -2 is 0xe */
	CU_ASSERT_EQUAL(((const uint8_t *)w4.buf)[0], 0xe1);
	CU_ASSERT_EQUAL(w4.t.nbytes, 8);
	qt *in8[] = {&x, &w, &b}, *in4[] = {&x, &w4, &b};
	qcf_attr at[] = {qt_str("padding", "VALID")};
	qref_detail d;
	double r8[4];
	CU_ASSERT_EQUAL_FATAL(run("CONV_2D", in8, 3, &y, at, 1, 0, &d), QCF_OK);
	for (int i = 0; i < 4; i++)
		r8[i] = qt_get(&y, (size_t)i);
	CU_ASSERT_EQUAL_FATAL(run("CONV_2D", in4, 3, &y, at, 1, 0, &d), QCF_OK);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(qt_get(&y, (size_t)i), r8[i]);
	/* int4 weights need zero points 0 */
	w4.zps[1] = 1;
	CU_ASSERT_EQUAL(run("CONV_2D", in4, 3, &y, at, 1, 0, &d), QCF_INVALID_PARAM);
}

/*
 * FULLY_CONNECTED [1, 1] x [1, 1], e = s_in * s_w / s_out = 0.5, acc = q - zp (no bias):
 * its rounding set. acc = -3 (-1.5): both builds -1 (SRDHM sends negative ties up), the
 * double-precision FULLY_CONNECTED_REF (half_away) -2; half_even -2, half_up -1, half_down -2.
 * acc = 3: 2 everywhere but half_even (2) and half_down (1). CONV_2D has no half_* rounding.
 */
static void test_fc_rounding_set(void)
{
	static const int64_t s11[] = {1, 1};
	qt x, w, y;
	qt_init(&x, QCF_INT8, 2, s11);
	qt_quant1(&x, 0.5f, 0);
	qt_init(&w, QCF_INT8, 2, s11);
	qt_quant1(&w, 1.0f, 0);
	qt_init(&y, QCF_INT8, 2, s11);
	qt_quant1(&y, 1.0f, 0);
	const double one = 1;
	qt_fill(&w, &one, 1);
	qt *in[] = {&x, &w};
	struct {
		qref_rounding r;
		double neg, pos;
	} want[] = {
	        {QREF_ROUND_DEFAULT, -1, 2},   {QREF_ROUND_DOUBLE, -1, 2},
	        {QREF_ROUND_SINGLE, -1, 2},    {QREF_ROUND_HALF_AWAY, -2, 2},
	        {QREF_ROUND_HALF_EVEN, -2, 2}, {QREF_ROUND_HALF_UP, -1, 2},
	        {QREF_ROUND_HALF_DOWN, -2, 1},
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		qref_detail d;
		double v = -3;
		qt_fill(&x, &v, 1);
		CU_ASSERT_EQUAL(run("FULLY_CONNECTED", in, 2, &y, NULL, 0, want[k].r, &d), QCF_OK);
		CU_ASSERT_EQUAL(qt_get(&y, 0), want[k].neg);
		v = 3;
		qt_fill(&x, &v, 1);
		CU_ASSERT_EQUAL(run("FULLY_CONNECTED", in, 2, &y, NULL, 0, want[k].r, &d), QCF_OK);
		if (qt_get(&y, 0) != want[k].pos)
			fprintf(stderr, "\n  rounding %s: +1.5 -> %g\n",
			        qref_rounding_name(want[k].r), qt_get(&y, 0));
		CU_ASSERT_EQUAL(qt_get(&y, 0), want[k].pos);
	}
	/* CONV_2D and DEPTHWISE_CONV_2D have no half_* rounding */
	qt xc, wc, yc;
	static const int64_t s4[] = {1, 1, 1, 1};
	qt_init(&xc, QCF_INT8, 4, s4);
	qt_quant1(&xc, 0.5f, 0);
	qt_init(&wc, QCF_INT8, 4, s4);
	qt_quant1(&wc, 1.0f, 0);
	qt_init(&yc, QCF_INT8, 4, s4);
	qt_quant1(&yc, 1.0f, 0);
	qt *inc[] = {&xc, &wc};
	qref_detail d;
	CU_ASSERT_EQUAL(run("CONV_2D", inc, 2, &yc, NULL, 0, QREF_ROUND_HALF_AWAY, &d),
	                QCF_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "rounding 'half_away' does not apply"));
	CU_ASSERT_EQUAL(run("DEPTHWISE_CONV_2D", inc, 2, &yc, NULL, 0, QREF_ROUND_HALF_EVEN, &d),
	                QCF_NOT_SUPPORTED);
	/* parameter rules come first */
	qcf_attr bad[] = {qt_int("stride_w", -1)};
	CU_ASSERT_EQUAL(run("CONV_2D", inc, 2, &yc, bad, 1, QREF_ROUND_HALF_AWAY, &d),
	                QCF_INVALID_PARAM);
}

/* 16x8 with an int64 bias: MultiplyByQuantizedMultiplier for int64 (16-bit multiplier); with
 * an int32 bias the ordinary one. Activation clamps at q(0) and q(6). */
static void test_16x8(void)
{
	static const int64_t xs[] = {1, 4}, ws[] = {2, 4}, bs[] = {2}, ys[] = {1, 2};
	qt x, w, b, y;
	qt_init(&x, QCF_INT16, 2, xs);
	qt_quant1(&x, 0.001f, 0);
	qt_init(&w, QCF_INT8, 2, ws);
	static const float wsc[] = {0.01f, 0.003f};
	qt_quant(&w, 0, 2, wsc, NULL);
	qt_init(&b, QCF_INT64, 1, bs);
	qt_init(&y, QCF_INT16, 2, ys);
	qt_quant1(&y, 0.0007f, 0);
	static const double xv[] = {32767, -20000, 1234, -32768},
	                    wv[] = {127, 3, -90, 5, -127, 64, 1, -2};
	static const double bv[] = {12345678901.0, -4000000};
	qt_fill(&x, xv, 4);
	qt_fill(&w, wv, 8);
	qt_fill(&b, bv, 2);
	qt *in[] = {&x, &w, &b};
	qref_detail d;
	CU_ASSERT_EQUAL_FATAL(run("FULLY_CONNECTED", in, 3, &y, NULL, 0, 0, &d), QCF_OK);
	for (int c = 0; c < 2; c++) {
		int64_t acc = (int64_t)bv[c];
		for (int k = 0; k < 4; k++)
			acc += (int64_t)wv[c * 4 + k] * (int64_t)xv[k];
		int32_t m;
		int sh;
		qref_quantize_multiplier((double)0.001f * (double)wsc[c] / (double)0.0007f,
		                         QREF_ROUND_DOUBLE, &m, &sh);
		int64_t q = qref_mbqm64(acc, m, sh);
		double want = q < -32768 ? -32768 : q > 32767 ? 32767 : (double)q;
		CU_ASSERT_EQUAL(qt_get(&y, (size_t)c), want);
	}
	/* int32 bias: int32 accumulator, ordinary MBQM; RELU6 clamps at q(0) = 0 and q(6) */
	qt b32;
	qt_init(&b32, QCF_INT32, 1, bs);
	static const double b32v[] = {100000, -4000000};
	qt_fill(&b32, b32v, 2);
	qt *in32[] = {&x, &w, &b32};
	qcf_attr at[] = {qt_str("fused_activation_function", "RELU6")};
	CU_ASSERT_EQUAL_FATAL(run("FULLY_CONNECTED", in32, 3, &y, at, 1, 0, &d), QCF_OK);
	int32_t six = (int32_t)roundf(6.0f / 0.0007f);
	for (int c = 0; c < 2; c++) {
		int64_t acc = (int64_t)b32v[c];
		for (int k = 0; k < 4; k++)
			acc += (int64_t)wv[c * 4 + k] * (int64_t)xv[k];
		int32_t m;
		int sh;
		qref_quantize_multiplier((double)0.001f * (double)wsc[c] / (double)0.0007f,
		                         QREF_ROUND_DOUBLE, &m, &sh);
		int64_t q = qref_mbqm((int32_t)acc, m, sh, QREF_ROUND_DOUBLE);
		double want = q < 0 ? 0 : q > six ? six : (double)q;
		CU_ASSERT_EQUAL(qt_get(&y, (size_t)c), want);
	}
	/* DEPTHWISE_CONV_2D 16x8 takes an int64 bias only */
	static const int64_t dxs[] = {1, 1, 1, 2}, dws[] = {1, 1, 1, 2}, dys[] = {1, 1, 1, 2};
	qt dx, dw, dy;
	qt_init(&dx, QCF_INT16, 4, dxs);
	qt_quant1(&dx, 0.001f, 0);
	qt_init(&dw, QCF_INT8, 4, dws);
	qt_quant1(&dw, 0.01f, 0);
	qt_init(&dy, QCF_INT16, 4, dys);
	qt_quant1(&dy, 0.0007f, 0);
	qt *din[] = {&dx, &dw, &b32};
	CU_ASSERT_EQUAL(run("DEPTHWISE_CONV_2D", din, 3, &dy, NULL, 0, 0, &d), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "int64 bias"));
	din[2] = &b;
	CU_ASSERT_EQUAL(run("DEPTHWISE_CONV_2D", din, 3, &dy, NULL, 0, 0, &d), QCF_OK);
}

/* An int32 accumulator that overflows is outside LiteRT's contract: unpredictable. */
static void test_overflow_unpredictable(void)
{
	static const int64_t s12[] = {1, 2}, s22[] = {2, 2}, s2[] = {2};
	qt x, w, b, y;
	qt_init(&x, QCF_INT8, 2, s12);
	qt_quant1(&x, 1.0f, 0);
	qt_init(&w, QCF_INT8, 2, s22);
	qt_quant1(&w, 1e-9f, 0);
	qt_init(&b, QCF_INT32, 1, s2);
	qt_init(&y, QCF_INT8, 2, s12);
	qt_quant1(&y, 1.0f, 0);
	static const double xv[] = {127, 127}, wv[] = {127, 127, 1, 1}, bv[] = {2147483000, 5};
	qt_fill(&x, xv, 2);
	qt_fill(&w, wv, 4);
	qt_fill(&b, bv, 2);
	qt *in[] = {&x, &w, &b};
	uint8_t any[2] = {0};
	double lo[2], hi[2];
	qref_detail d;
	memset(&d, 0, sizeof d);
	d.out[0].any = any;
	d.out[0].lo = lo;
	d.out[0].hi = hi;
	CU_ASSERT_EQUAL_FATAL(qref_execute(mkcall("FULLY_CONNECTED", in, 3, &y, NULL, 0), &d),
	                      QCF_OK);
	CU_ASSERT_EQUAL(any[0], 1);
	CU_ASSERT_EQUAL(lo[0], -128);
	CU_ASSERT_EQUAL(hi[0], 127);
	CU_ASSERT_EQUAL(any[1], 0);
}

/* The real-valued output (automatic output quantization): s_in * s_w[c] * acc plus the bias,
 * through the fused activation; no output quantization needed. */
static void test_real_output(void)
{
	qt x, w, b, y;
	golden_tensors(&x, &w, &b, &y);
	y.t.quant = NULL;
	qt *in[] = {&x, &w, &b};
	qcf_attr at[] = {qt_str("padding", "VALID"), qt_str("fused_activation_function", "RELU")};
	double v[4];
	char msg[256];
	CU_ASSERT_EQUAL_FATAL(
	        qref_real_output_msg(mkcall("CONV_2D", in, 3, &y, at, 1), 0, v, msg, sizeof msg),
	        QCF_OK);
	/* the test's dequantized expectations: {31, 66, -57, -46} before the clamp at 127 */
	static const double want[] = {31, 66, -57, -46};
	for (int i = 0; i < 4; i++)
		CU_ASSERT_DOUBLE_EQUAL(v[i], want[i], 1e-9);
	CU_ASSERT_EQUAL_FATAL(qref_real_output(mkcall("CONV_2D", in, 3, &y, at, 2), 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[2], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(v[1], 66, 1e-9);
	/* the kernel's rules apply */
	w.zps[0] = 1;
	CU_ASSERT_EQUAL(qref_real_output(mkcall("CONV_2D", in, 3, &y, at, 1), 0, v),
	                QCF_INVALID_PARAM);
}

/* qref_litert_conv_terms: the accumulators the stubs requantize, and the kernel's answers. */
static void test_terms(void)
{
	qt x, w, b, y;
	golden_tensors(&x, &w, &b, &y);
	qt *in[] = {&x, &w, &b};
	qcf_attr at[] = {qt_str("padding", "VALID")};
	int64_t acc[4];
	int32_t ch[4];
	qref_conv_terms t = {.n = 4, .acc = acc, .channel = ch};
	qref_detail d;
	memset(&d, 0, sizeof d);
	CU_ASSERT_EQUAL_FATAL(qref_litert_conv_terms(mkcall("CONV_2D", in, 3, &y, at, 1), &t, &d),
	                      QCF_OK);
	/* real 31, 66, -57, -46 = acc * 0.5 * s_w[c] */
	static const int64_t want[] = {62, 66, -114, -46};
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(acc[i], want[i]);
		CU_ASSERT_EQUAL(ch[i], i % 2);
	}
	CU_ASSERT_EQUAL(t.n_filter_scales, 2);
	CU_ASSERT_EQUAL(t.filter_scales[1], 2.0f);
	CU_ASSERT_EQUAL(t.output_zero_point, -1);
	CU_ASSERT_EQUAL(t.act_min, -128);
	CU_ASSERT_EQUAL(t.act_max, 127);
	CU_ASSERT_EQUAL(t.wide, 0);
	t.n = 3;
	CU_ASSERT_EQUAL(qref_litert_conv_terms(mkcall("CONV_2D", in, 3, &y, at, 1), &t, &d),
	                QCF_ERROR);
	t.n = 4;
	qcf_attr bad[] = {qt_int("stride_h", 0), qt_str("padding", "VALID")};
	CU_ASSERT_EQUAL(qref_litert_conv_terms(mkcall("CONV_2D", in, 3, &y, bad, 2), &t, &d),
	                QCF_INVALID_PARAM);
	CU_ASSERT_EQUAL(qref_litert_conv_terms(mkcall("ADD", in, 3, &y, at, 1), &t, &d),
	                QCF_NOT_SUPPORTED);
}

/* ---- end to end --------------------------------------------------------- */

static const char *const conv_specs =
        "specs/litert/conv_2d.yaml specs/litert/conv_2d_16x8.yaml "
        "specs/litert/depthwise_conv_2d.yaml specs/litert/depthwise_conv_2d_16x8.yaml "
        "specs/litert/fully_connected.yaml specs/litert/fully_connected_16x8.yaml "
        "specs/litert/fully_connected_no_bias.yaml";

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static json_t *out0(json_t *c)
{
	return json_array_get(json_object_get(c, "outputs"), 0);
}

static long long out_int(json_t *c, const char *k)
{
	return json_integer_value(json_object_get(out0(c), k));
}

/* Only the bins -1, 0 and 1 are non-empty, and -1 or 1 is. */
static int only_one_lsb(json_t *c)
{
	json_t *h = json_object_get(out0(c), "histogram"), *v;
	const char *key;
	int ok = json_object_get(h, "1") || json_object_get(h, "-1");
	json_object_foreach(h, key, v) ok &=
	        !strcmp(key, "0") || !strcmp(key, "1") || !strcmp(key, "-1");
	return ok;
}

/* The reference conforms to its own conv specs, reproduces every published value, and
 * refuses every negative case. */
static void test_reference_specs(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s", conv_specs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	json_t *cases = json_object_get(r, "cases");
	size_t n = json_array_size(cases), pass = 0, neg = 0, golden = 0;
	size_t ops[3] = {0};
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_verdict(c);
		pass += !strcmp(v, "PASS");
		neg += !strcmp(v, "EXPECTED_ERROR");
		if (strcmp(v, "PASS") && strcmp(v, "EXPECTED_ERROR"))
			fprintf(stderr, "\n  %s: %s %s", str(c, "name"), v, str(c, "message"));
		golden += json_object_get(c, "golden_source") != NULL;
		ops[0] += !strcmp(str(c, "op"), "CONV_2D");
		ops[1] += !strcmp(str(c, "op"), "DEPTHWISE_CONV_2D");
		ops[2] += !strcmp(str(c, "op"), "FULLY_CONNECTED");
	}
	printf("\n  conv family: %zu cases (%zu conv, %zu depthwise, %zu fc), %zu golden, %zu "
	       "negative\n",
	       n, ops[0], ops[1], ops[2], golden, neg);
	CU_ASSERT_EQUAL(pass + neg, n);
	CU_ASSERT(n >= 500);
	CU_ASSERT(golden >= 6);
	CU_ASSERT(neg >= 30);
	CU_ASSERT(ops[0] >= 150 && ops[1] >= 100 && ops[2] >= 150);
	json_decref(r);
	/* the single-rounding build is legal under the specs' rounding bands, and differs */
	r = qct_run_report(tmp, &st, NULL, "%s --plugin-option rounding=single", conv_specs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	json_t *sum = json_object_get(json_object_get(r, "summary"), "verdicts");
	CU_ASSERT(json_integer_value(json_object_get(sum, "PASS_WITHIN_TOLERANCE")) >= 20);
	json_decref(r);
	/* so is LiteRT's double-precision FULLY_CONNECTED_REF, for FULLY_CONNECTED */
	r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/fully_connected.yaml specs/litert/fully_connected_16x8.yaml "
	        "--plugin-option rounding=half_away");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	sum = json_object_get(json_object_get(r, "summary"), "verdicts");
	CU_ASSERT(json_integer_value(json_object_get(sum, "PASS_WITHIN_TOLERANCE")) >= 5);
	json_decref(r);
	qct_rmdir(tmp);
}

/*
 * XNNPACK-style float requantization (suite/stubs/float_requant.c) against the fixtures in
 * suite/specs/float_requant: under {rounding: [double, single], max_abs: 1} every case passes,
 * nearly all of them only within tolerance; under exact the same cases fail; the differing
 * elements are all +-1 LSB, and large_accumulator's lie beyond both legal roundings.
 */
static void test_float_requant(void)
{
	const char *tmp = qct_tmpdir();
	int st_band, st_exact;
	json_t *band = qct_run_report(tmp, &st_band, NULL,
	                              "suite/specs/float_requant/band_1lsb --plugin %s",
	                              qct_stub("float_requant"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(band);
	json_t *exact =
	        qct_run_report(tmp, &st_exact, NULL, "suite/specs/float_requant/exact --plugin %s",
	                       qct_stub("float_requant"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(exact);
	CU_ASSERT_EQUAL(st_band, 0);
	CU_ASSERT_EQUAL(st_exact, 1);
	json_t *cb = json_object_get(band, "cases"), *ce = json_object_get(exact, "cases");
	size_t n = json_array_size(cb), within = 0, failed = 0, wrong = 0, large = 0;
	size_t ops[3] = {0};
	CU_ASSERT_EQUAL_FATAL(json_array_size(ce), n);
	for (size_t i = 0; i < n; i++) {
		json_t *b = json_array_get(cb, i), *e = json_array_get(ce, i);
		const char *vb = qct_verdict(b), *ve = qct_verdict(e);
		long long mism = out_int(b, "mismatches");
		int bad = strcmp(str(b, "name"), str(e, "name")) != 0 ||
		          out_int(e, "mismatches") != mism; /* the same cases, the same data */
		if (mism) {
			bad |= strcmp(vb, "PASS_WITHIN_TOLERANCE") || strcmp(ve, "FAIL") ||
			       !only_one_lsb(b) || !only_one_lsb(e);
			within += !strcmp(vb, "PASS_WITHIN_TOLERANCE");
			failed += !strcmp(ve, "FAIL");
			ops[0] += !strcmp(str(b, "op"), "CONV_2D");
			ops[1] += !strcmp(str(b, "op"), "DEPTHWISE_CONV_2D");
			ops[2] += !strcmp(str(b, "op"), "FULLY_CONNECTED");
		} else {
			bad |= strcmp(vb, "PASS") || strcmp(ve, "PASS");
		}
		if (strstr(str(b, "name"), "/case/large_accumulator")) {
			large = 1;
			/* 4 elements one LSB beyond every legal rounding */
			CU_ASSERT_EQUAL(mism, 4);
			CU_ASSERT_EQUAL(out_int(b, "within_rounding"), 0);
			json_t *h = json_object_get(out0(b), "histogram");
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(h, "1")), 2);
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(h, "-1")), 2);
		}
		if (bad && wrong++ < 3)
			fprintf(stderr, "\n  %s: %s (exact: %s), %lld mismatches", str(b, "name"),
			        vb, ve, mism);
	}
	printf("\n  float_requant: %zu of %zu cases differ by one LSB: PASS_WITHIN_TOLERANCE, "
	       "FAIL when exact\n",
	       within, n);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(within, failed);
	CU_ASSERT(within >= 100 && within * 10 >= n * 9);
	CU_ASSERT(ops[0] >= 10 && ops[1] >= 10 && ops[2] >= 10);
	CU_ASSERT(large);
	json_decref(band);
	json_decref(exact);
	/* the stub runs int16 activations (and every other op) through the reference */
	json_t *r = qct_run_report(tmp, &st_band, NULL,
	                           "specs/litert/conv_2d_16x8.yaml "
	                           "specs/litert/depthwise_conv_2d_16x8.yaml "
	                           "specs/litert/fully_connected_16x8.yaml "
	                           "specs/litert/requantize.yaml --plugin %s",
	                           qct_stub("float_requant"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st_band, 0);
	json_t *cases = json_object_get(r, "cases");
	size_t other = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		const char *v = qct_verdict(json_array_get(cases, i));
		other += strcmp(v, "PASS") && strcmp(v, "EXPECTED_ERROR");
	}
	CU_ASSERT_EQUAL(other, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Scales of the case's filter (input 1) differ between channels. */
static int distinct_channels(const qc_case *c)
{
	const qcf_quant *q = c->in[1].quant;
	if (!q || q->axis < 0 || q->count < 2)
		return 0;
	for (int32_t k = 1; k < q->count; k++)
		if (q->scales[k] != q->scales[0])
			return 1;
	return 0;
}

/* Using the weights' scale[0] for every channel fails every case with distinct per-axis
 * scales and passes the per-tensor ones. */
static void test_ignore_axis(void)
{
	const char *specs[] = {"specs/litert/conv_2d.yaml",
	                       "specs/litert/conv_2d_16x8.yaml",
	                       "specs/litert/depthwise_conv_2d.yaml",
	                       "specs/litert/depthwise_conv_2d_16x8.yaml",
	                       "specs/litert/fully_connected.yaml",
	                       "specs/litert/fully_connected_16x8.yaml",
	                       "specs/litert/fully_connected_no_bias.yaml"};
	const char *tmp = qct_tmpdir();
	size_t per_axis = 0, per_tensor = 0, wrong = 0;
	for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
		int st;
		json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", specs[s],
		                           qct_stub("ignore_axis"));
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL(st, 1);
		json_t *cases = json_object_get(r, "cases");
		qc_diag diag = {0, 0, stderr};
		qc_spec *sp = qc_spec_load(specs[s], &diag);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
		qc_cases *it = qc_cases_begin(sp, 0, 1, &diag);
		qc_case *c;
		size_t i = 0;
		while (qc_cases_next(it, &c) == 1) {
			json_t *jc = json_array_get(cases, i++);
			CU_ASSERT_STRING_EQUAL(str(jc, "name"), c->name);
			const char *v = qct_verdict(jc);
			if (!c->expect_error) {
				int pa = distinct_channels(c);
				per_axis += pa;
				per_tensor += !pa;
				const char *want = pa ? "FAIL" : "PASS";
				if (strcmp(v, want) && wrong++ < 3)
					fprintf(stderr, "\n  %s: %s, want %s", c->name, v, want);
			}
			qc_case_free(c);
		}
		qc_cases_end(it);
		qc_spec_free(sp);
		CU_ASSERT_EQUAL(i, json_array_size(cases));
		json_decref(r);
	}
	printf("\n  ignore_axis: %zu per-axis cases FAIL, %zu others PASS\n", per_axis, per_tensor);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT(per_axis >= 200);
	CU_ASSERT(per_tensor >= 100);
	qct_rmdir(tmp);
}

/* ---- one element's terms (qref_element_terms) and the outputs' axes ------------------------- */

/*
 * Every element of every valid case of the accumulating ops' specs: the scalar accumulator of
 * qref_element_terms equals the blocked kernels' (qref_litert_conv_terms) for LiteRT, and its
 * rescaled value that of the real-valued hook (qref_real_output: acc * s_x * s_w) for ONNX;
 * an index outside the output, another output or another op has none.
 */
static void test_element_terms(void)
{
	static const char *const specs[] = {"specs/litert/conv_2d.yaml",
	                                    "specs/litert/conv_2d_16x8.yaml",
	                                    "specs/litert/depthwise_conv_2d.yaml",
	                                    "specs/litert/fully_connected.yaml",
	                                    "specs/litert/fully_connected_uint8.yaml",
	                                    "specs/onnx/qlinear_conv.yaml",
	                                    "specs/onnx/qlinear_conv_per_channel.yaml",
	                                    "specs/onnx/qlinear_matmul.yaml",
	                                    "specs/onnx/qlinear_matmul_per_row.yaml"};
	size_t compared[2] = {0}, wrong = 0;
	for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
		qc_diag diag = {0, 0, stderr};
		qc_spec *sp = qc_spec_load(specs[s], &diag);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
		qc_cases *it = qc_cases_begin(sp, 0, 1, &diag);
		qc_case *c;
		while (qc_cases_next(it, &c) == 1) {
			if (c->expect_error) {
				qc_case_free(c);
				continue;
			}
			int onnx = !strcmp(c->call.semantics, "onnx");
			const qcf_tensor *y = &c->call.outputs[0];
			size_t n = qref_tensor_numel(y);
			size_t *idx = calloc(n + 1, sizeof *idx);
			qref_terms *t = calloc(n + 1, sizeof *t);
			int64_t *acc = calloc(n + 1, sizeof *acc);
			int32_t *ch = calloc(n + 1, sizeof *ch);
			double *real = calloc(n + 1, sizeof *real);
			for (size_t i = 0; i < n; i++)
				idx[i] = i;
			CU_ASSERT_EQUAL_FATAL(qref_element_terms(&c->call, 0, idx, (int)n, t),
			                      QCF_OK);
			qref_detail d;
			memset(&d, 0, sizeof d);
			qref_conv_terms ct = {.n = n, .acc = acc, .channel = ch};
			CU_ASSERT_EQUAL_FATAL(onnx ? qref_real_output(&c->call, 0, real)
			                           : qref_litert_conv_terms(&c->call, &ct, &d),
			                      QCF_OK);
			float so = y->quant->scales[0];
			int32_t zo = y->quant->zero_points[0];
			size_t bad = 0;
			for (size_t i = 0; i < n; i++) {
				if (onnx) {
					double v = (t[i].real - zo) * (double)so;
					bad += !(fabs(v - real[i]) <=
					         1e-9 * fmax(1, fabs(real[i])));
					continue;
				}
				const qcf_quant *qw = c->in[1].quant;
				double md = (double)c->in[0].quant->scales[0] *
				            (double)qw->scales[qw->count > 1 ? ch[i] : 0] /
				            (double)so;
				bad += t[i].acc != acc[i] || t[i].real != (double)acc[i] * md + zo;
			}
			if (bad && wrong++ < 3)
				fprintf(stderr, "\n  %s: %zu of %zu elements' terms differ",
				        c->name, bad, n);
			compared[onnx] += n;
			/* no such element, output or op */
			idx[0] = n;
			CU_ASSERT_EQUAL(qref_element_terms(&c->call, 0, idx, 1, t),
			                QCF_INVALID_PARAM);
			idx[0] = 0;
			CU_ASSERT_EQUAL(qref_element_terms(&c->call, 1, idx, 1, t),
			                QCF_NOT_SUPPORTED);
			qcf_op_call other = c->call;
			other.op = "ADD";
			CU_ASSERT_EQUAL(qref_element_terms(&other, 0, idx, 1, t),
			                QCF_NOT_SUPPORTED);
			free(idx);
			free(t);
			free(acc);
			free(ch);
			free(real);
			qc_case_free(c);
		}
		qc_cases_end(it);
		qc_spec_free(sp);
	}
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT(compared[0] >= 10000 && compared[1] >= 1000);
}

/* The names of the outputs' axes and their channel axis, by the op's layout. */
static void test_output_axes(void)
{
	static const struct {
		const char *semantics, *op;
		int rank, quant_axis; /* the output's per-axis quantization axis, or -1 */
		const char *names;
		int channel;
	} rows[] = {{"litert", "CONV_2D", 4, -1, "n,h,w,c", 3},
	            {"litert", "DEPTHWISE_CONV_2D", 4, -1, "n,h,w,c", 3},
	            {"litert", "MAX_POOL_2D", 4, -1, "n,h,w,c", 3},
	            {"litert", "CONV_2D", 3, -1, "d0,d1,d2", -1},
	            {"litert", "FULLY_CONNECTED", 2, -1, "batch,out_channel", 1},
	            {"litert", "FULLY_CONNECTED", 3, -1, "d0,d1,out_channel", 2},
	            {"onnx", "QLinearConv", 4, -1, "n,c,h,w", 1},
	            {"onnx", "QLinearConv", 3, -1, "n,c,d2", 1},
	            {"litert", "ADD", 2, -1, "d0,d1", -1},
	            {"litert", "QUANTIZE", 3, 1, "d0,d1,d2", 1}};
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		int64_t shape[4] = {2, 2, 2, 2};
		float sc[2] = {1, 1};
		int32_t zp[2] = {0, 0};
		qcf_quant q = {.struct_size = sizeof q,
		               .axis = rows[r].quant_axis,
		               .count = 2,
		               .scales = sc,
		               .zero_points = zp};
		qcf_tensor y = {sizeof y, "y",  QCF_INT8, rows[r].rank,
		                shape,    NULL, 0,        rows[r].quant_axis >= 0 ? &q : NULL};
		qcf_op_call call = {sizeof call, rows[r].op, rows[r].semantics, 0, NULL, 1, &y, 0,
		                    NULL,        NULL};
		char names[QCF_MAX_RANK][QREF_AXIS_NAME], joined[128] = "";
		int ch = -2;
		CU_ASSERT_EQUAL(qref_output_axes(&call, 0, names, &ch), rows[r].rank);
		for (int d = 0; d < rows[r].rank; d++)
			snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s",
			         d ? "," : "", names[d]);
		CU_ASSERT_STRING_EQUAL(joined, rows[r].names);
		CU_ASSERT_EQUAL(ch, rows[r].channel);
		CU_ASSERT_EQUAL(qref_output_axes(&call, 1, names, &ch), -1);
	}
}

/* ---- a kernel wrong in one channel: the report locates it ------------------------------- */

/* An integer attribute of the case (listed in the op's schema), or def. */
static int64_t case_int(const qc_case *c, const char *name, int64_t def)
{
	int64_t v;
	return qref_attr_int(&c->call, name, &v) == 1 ? v : def;
}

/* The accumulator of output element i of a CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED case,
 * bias included, straight from the layouts (NHWC input, OHWI / 1HWO / [units, depth] filter):
 * sum of (x - zp_in) * (w - zp_w[c]) over the element's window. */
static int64_t model_acc(const qc_case *c, size_t i, int64_t *channel)
{
	const qcf_tensor *x = &c->in[0], *w = &c->in[1], *y = &c->out[0];
	int64_t nch = y->shape[y->rank - 1], ch = (int64_t)(i % (size_t)nch);
	int64_t zi = x->quant->zero_points[0];
	int64_t zw = w->quant->zero_points[w->quant->count > 1 ? ch : 0];
	int64_t acc = c->call.n_inputs > 2 ? (int64_t)qref_get(&c->in[2], (size_t)ch) : 0;
	*channel = ch;
	if (!strcmp(c->call.op, "FULLY_CONNECTED")) {
		int64_t depth = w->shape[1], b = (int64_t)(i / (size_t)nch);
		for (int64_t k = 0; k < depth; k++)
			acc += ((int64_t)qref_get(x, (size_t)(b * depth + k)) - zi) *
			       ((int64_t)qref_get(w, (size_t)(ch * depth + k)) - zw);
		return acc;
	}
	int dw = !strcmp(c->call.op, "DEPTHWISE_CONV_2D");
	int64_t ih = x->shape[1], iw = x->shape[2], ic = x->shape[3];
	int64_t kh = w->shape[1], kw = w->shape[2], kc = w->shape[3];
	int64_t oh = y->shape[1], ow = y->shape[2];
	int64_t sh = case_int(c, "stride_h", 1), sw = case_int(c, "stride_w", 1);
	int64_t dh = case_int(c, "dilation_h_factor", 1), dwf = case_int(c, "dilation_w_factor", 1);
	const qcf_attr *pa = qref_attr_find(&c->call, "padding");
	int same = !pa || (pa->type == QCF_ATTR_STRING ? !strcmp(pa->v.s, "SAME") : pa->v.i == 0);
	int64_t ph = 0, pw = 0;
	if (same) {
		int64_t th = (oh - 1) * sh + (kh - 1) * dh + 1 - ih,
		        tw = (ow - 1) * sw + (kw - 1) * dwf + 1 - iw;
		ph = th > 0 ? th / 2 : 0;
		pw = tw > 0 ? tw / 2 : 0;
	}
	int64_t r = (int64_t)(i / (size_t)nch), ox = r % ow, oy = r / ow % oh, n = r / ow / oh;
	int64_t per_group = dw ? 1 : nch / (ic / kc), g = dw ? 0 : ch / per_group;
	for (int64_t ky = 0; ky < kh; ky++)
		for (int64_t kx = 0; kx < kw; kx++) {
			int64_t yy = oy * sh - ph + ky * dh, xx = ox * sw - pw + kx * dwf;
			if (yy < 0 || yy >= ih || xx < 0 || xx >= iw)
				continue;
			size_t px = (size_t)(((n * ih + yy) * iw + xx) * ic);
			if (dw) {
				acc += ((int64_t)qref_get(x, px + (size_t)(ch / (nch / ic))) - zi) *
				       ((int64_t)qref_get(w, (size_t)((ky * kw + kx) * nch + ch)) -
				        zw);
				continue;
			}
			for (int64_t k = 0; k < kc; k++)
				acc += ((int64_t)qref_get(x, px + (size_t)(g * kc + k)) - zi) *
				       ((int64_t)qref_get(
				                w, (size_t)(((ch * kh + ky) * kw + kx) * kc + k)) -
				        zw);
		}
	return acc;
}

/*
 * A kernel one LSB off in output channel 3 (suite/stubs/channel3.c) over the conv family's
 * int8 specs: every case with a channel 3 fails, the others pass; a failing case counts its
 * failing elements along the channel axis at index 3 alone; each worst element's coordinates
 * end in channel 3, and its accumulator and real value are those a model computes from the
 * case's inputs; the message (the console's FAIL line) names the worst element's coordinates;
 * the HTML page says "channel 3 only".
 */
static void test_channel3_located(void)
{
	static const char *const specs[] = {"specs/litert/conv_2d.yaml",
	                                    "specs/litert/depthwise_conv_2d.yaml",
	                                    "specs/litert/fully_connected.yaml"};
	const char *tmp = qct_tmpdir();
	char html[600];
	snprintf(html, sizeof html, "%s/c3.html", tmp);
	size_t failing = 0, located = 0, wrong = 0;
	for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
		int st;
		json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s --html '%s'", specs[s],
		                           qct_stub("channel3"), html);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL(st, 1);
		json_t *cases = json_object_get(r, "cases");
		qc_diag diag = {0, 0, stderr};
		qc_spec *sp = qc_spec_load(specs[s], &diag);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
		qc_cases *it = qc_cases_begin(sp, 0, 1, &diag);
		qc_case *c;
		size_t i = 0, spec_failing = 0;
		while (qc_cases_next(it, &c) == 1) {
			json_t *jc = json_array_get(cases, i++);
			CU_ASSERT_STRING_EQUAL(str(jc, "name"), c->name);
			const qcf_tensor *y = &c->out[0];
			int has3 = !c->expect_error && y->shape[y->rank - 1] > 3;
			const char *v = qct_verdict(jc);
			if (!has3) {
				if (strcmp(v, "PASS") && strcmp(v, "EXPECTED_ERROR") && wrong++ < 3)
					fprintf(stderr, "\n  %s: %s without a channel 3", c->name,
					        v);
				qc_case_free(c);
				continue;
			}
			spec_failing++;
			json_t *o = out0(jc), *fa = json_object_get(o, "failing_along");
			json_t *counts = json_object_get(fa, "counts");
			int ok = !strcmp(v, "FAIL") &&
			         json_integer_value(json_object_get(o, "channel_axis")) ==
			                 y->rank - 1 &&
			         json_integer_value(json_object_get(fa, "axis")) == y->rank - 1 &&
			         json_object_size(counts) == 1 &&
			         json_integer_value(json_object_get(counts, "3")) ==
			                 out_int(jc, "mismatches") + out_int(jc, "out_of_range") &&
			         json_integer_value(json_object_get(fa, "other")) == 0;
			/* the message ends with the worst element, its coordinates named */
			const char *msg = str(jc, "message");
			const char *at = strstr(msg, "; worst at [");
			ok &= at &&
			      strstr(at, !strcmp(c->call.op, "FULLY_CONNECTED") ? "out_channel=3)"
			                                                        : ",c=3)") &&
			      strstr(at, ", acc ") && strstr(at, ", real ");
			json_t *worst = json_object_get(o, "worst"), *e;
			size_t k;
			ok &= json_array_size(worst) > 0;
			json_array_foreach(worst, k, e)
			{
				size_t index =
				        (size_t)json_integer_value(json_object_get(e, "index"));
				json_t *coords = json_object_get(e, "coords");
				/* the coordinates over the output's shape, row-major */
				size_t flat = 0;
				for (int d = 0; d < y->rank; d++)
					flat = flat * (size_t)y->shape[d] +
					       (size_t)json_integer_value(
					               json_array_get(coords, (size_t)d));
				ok &= json_array_size(coords) == (size_t)y->rank && flat == index &&
				      json_integer_value(
				              json_array_get(coords, (size_t)y->rank - 1)) == 3;
				int64_t ch, acc = model_acc(c, index, &ch);
				double real = (double)acc * (double)c->in[0].quant->scales[0] *
				                      (double)c->in[1].quant->scales
				                              [c->in[1].quant->count > 1 ? ch : 0] /
				                      (double)y->quant->scales[0] +
				              y->quant->zero_points[0];
				json_t *ja = json_object_get(e, "acc");
				double jr = json_number_value(json_object_get(e, "real"));
				ok &= ch == 3 && json_is_integer(ja) &&
				      json_integer_value(ja) == acc &&
				      fabs(jr - real) <= 1e-9 * fmax(1, fabs(real));
			}
			located += ok;
			if (!ok && wrong++ < 3)
				fprintf(stderr, "\n  %s: %s; %s", c->name, v, msg);
			qc_case_free(c);
		}
		qc_cases_end(it);
		qc_spec_free(sp);
		CU_ASSERT_EQUAL(i, json_array_size(cases));
		CU_ASSERT(spec_failing > 0);
		failing += spec_failing;
		/* the page: the op's failures in channel 3 only */
		char *page = qct_read_file(html);
		CU_ASSERT_PTR_NOT_NULL_FATAL(page);
		const char *where = strstr(page, "<div class=\"where\" id=\"where-0\">");
		CU_ASSERT_PTR_NOT_NULL(where);
		CU_ASSERT_PTR_NOT_NULL(where ? strstr(where, "<b>channel 3 only</b>") : NULL);
		CU_ASSERT_PTR_NULL(strstr(page, "id=\"where-1\""));
		free(page);
		json_decref(r);
	}
	printf("\n  channel3: %zu failing cases, %zu located in channel 3 with the model's "
	       "accumulators\n",
	       failing, located);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(located, failing);
	CU_ASSERT(failing >= 100);
	/* the console's FAIL lines carry the coordinates */
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/litert/fully_connected.yaml --plugin %s "
	                             "--json '%s/console.json'",
	                             qct_build_path("qconform"), qct_stub("channel3"), tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	const char *line = strstr(p.out, "\nFAIL ");
	CU_ASSERT_PTR_NOT_NULL(line ? strstr(line, ",3] (batch=") : NULL);
	CU_ASSERT_PTR_NOT_NULL(line ? strstr(line, ",out_channel=3): expected ") : NULL);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* ---- the blocked kernels against a scalar model ------------------------------------------ */

static uint64_t blk_state = 0x2545f4914f6cdd1du;

/* uniform in [lo, hi] */
static int64_t blk_rand(int64_t lo, int64_t hi)
{
	blk_state ^= blk_state << 13;
	blk_state ^= blk_state >> 7;
	blk_state ^= blk_state << 17;
	return lo + (int64_t)(blk_state % (uint64_t)(hi - lo + 1));
}

/* A tensor on the heap (the shapes here outgrow qt's storage). */
typedef struct blk_tensor {
	qcf_tensor t;
	int64_t shape[4];
	qcf_quant q;
	float scales[64];
	int32_t zps[64];
} blk_tensor;

static void blk_make(blk_tensor *b, qcf_dtype dt, int rank, const int64_t *shape, int axis,
                     int count, int32_t zp)
{
	memset(b, 0, sizeof *b);
	size_t n = 1;
	for (int k = 0; k < rank; k++) {
		b->shape[k] = shape[k];
		n *= (size_t)shape[k];
	}
	b->t.struct_size = sizeof b->t;
	b->t.name = "t";
	b->t.dtype = dt;
	b->t.rank = rank;
	b->t.shape = b->shape;
	b->t.nbytes = dt == QCF_INT4 ? (n + 1) / 2
	                             : n * (dt == QCF_INT8    ? 1
	                                    : dt == QCF_INT16 ? 2
	                                    : dt == QCF_INT32 ? 4
	                                                      : 8);
	b->t.data = calloc(b->t.nbytes + 1, 1);
	for (int c = 0; c < count; c++) {
		b->scales[c] = 0.01f * (float)(1 + c % 7);
		b->zps[c] = zp;
	}
	b->q = (qcf_quant){sizeof b->q,      axis, count, b->scales,
	                   b->zps,           NULL, 0,     QCF_DTYPE_INVALID,
	                   QCF_DTYPE_INVALID};
	b->t.quant = count ? &b->q : NULL;
}

/*
 * The accumulator of every output element the way the op's semantics write it, one element at
 * a time from the tensors' values (specs/litert/OPERATORS.md): sum of (x - zp_in) * w, plus the
 * bias.
 */
static void blk_model(int op, const qcf_tensor *x, const qcf_tensor *w, const qcf_tensor *bias,
                      const qcf_tensor *y, int64_t sh, int64_t sw, int64_t dh, int64_t dw, int same,
                      int64_t *acc)
{
	int32_t zi = x->quant->zero_points[0];
	size_t n = qref_tensor_numel(y);
	int64_t nc = y->shape[y->rank - 1];
	for (size_t i = 0; i < n; i++) {
		int64_t c = (int64_t)(i % (size_t)nc), r = (int64_t)(i / (size_t)nc), a = 0;
		a = (int64_t)qref_get(bias, (size_t)c);
		if (op == 2) {
			int64_t depth = w->shape[1];
			for (int64_t k = 0; k < depth; k++)
				a += ((int64_t)qref_get(x, (size_t)(r * depth + k)) - zi) *
				     (int64_t)qref_get(w, (size_t)(c * depth + k));
			acc[i] = a;
			continue;
		}
		int64_t ih = x->shape[1], iw = x->shape[2], ic = x->shape[3];
		int64_t kh = w->shape[1], kw = w->shape[2], oh = y->shape[1], ow = y->shape[2];
		int64_t ox = r % ow, oy = r / ow % oh, b = r / ow / oh;
		int64_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
		int64_t th = (oh - 1) * sh + eh - ih, tw = (ow - 1) * sw + ew - iw;
		int64_t ph = same && th > 0 ? th / 2 : 0, pw = same && tw > 0 ? tw / 2 : 0;
		for (int64_t ky = 0; ky < kh; ky++)
			for (int64_t kx = 0; kx < kw; kx++) {
				int64_t yy = oy * sh - ph + ky * dh, xx = ox * sw - pw + kx * dw;
				if (yy < 0 || yy >= ih || xx < 0 || xx >= iw)
					continue;
				size_t px = (size_t)(((b * ih + yy) * iw + xx) * ic);
				if (op == 1) {
					int64_t wv = (int64_t)qref_get(
					        w, (size_t)((ky * kw + kx) * nc + c));
					a += wv *
					     ((int64_t)qref_get(x, px + (size_t)(c / (nc / ic))) -
					      zi);
					continue;
				}
				int64_t fin = w->shape[3], g = c / (nc / (ic / fin));
				for (int64_t k = 0; k < fin; k++)
					a += ((int64_t)qref_get(x, px + (size_t)(g * fin + k)) -
					      zi) *
					     (int64_t)qref_get(
					             w,
					             (size_t)(((c * kh + ky) * kw + kx) * fin + k));
			}
		acc[i] = a;
	}
}

/*
 * Output element i from its accumulator (bias included) the way specs/litert/OPERATORS.md
 * writes the requantization, one element at a time: QuantizeMultiplier(s_in * s_w[c] / s_out)
 * (the product in float for per-tensor FULLY_CONNECTED), then MultiplyByQuantizedMultiplier of
 * the build (the int64 one for a wide accumulator), + zp_out, clamped to the activation range.
 * 0 and *y, or -1 where the element is outside LiteRT's contract (unpredictable).
 */
static int blk_requant(int op, const qcf_tensor *x, const qcf_tensor *w, const qcf_tensor *y,
                       int wide, qref_rounding rnd, int64_t amin, int64_t amax, int64_t acc,
                       int64_t c, int64_t *out)
{
	float si = x->quant->scales[0], so = y->quant->scales[0];
	float sw = w->quant->scales[w->quant->count > 1 ? c : 0];
	double e = op == 2 && w->quant->count == 1 ? (double)(si * sw) / (double)so
	                                           : (double)si * (double)sw / (double)so;
	int32_t m;
	int sh;
	qref_quantize_multiplier(e, wide ? QREF_ROUND_DOUBLE : rnd, &m, &sh);
	int64_t v;
	if (wide) {
		if (sh < -31 || sh > 7 || acc < -(INT64_C(1) << 47) || acc >= (INT64_C(1) << 47))
			return -1;
		v = qref_mbqm64(acc, m, sh);
	} else {
		if (acc < INT32_MIN || acc > INT32_MAX)
			return -1;
		if (rnd == QREF_ROUND_SINGLE) {
			v = qref_mbqm_single_wide((int32_t)acc, m, sh);
			if (v < INT32_MIN || v > INT32_MAX)
				return -1;
		} else {
			if (sh >= 31 || !qref_mbqm_preshift_fits((int32_t)acc, sh))
				return -1;
			v = qref_mbqm((int32_t)acc, m, sh, QREF_ROUND_DOUBLE);
		}
	}
	v += y->quant->zero_points[0];
	*out = v < amin ? amin : v > amax ? amax : v;
	return 0;
}

/* The outputs (values of out, and any) of one rounding against blk_requant of the model's
 * accumulators; the number of elements that differ. */
static size_t blk_check_out(int op, const qcf_tensor *x, const qcf_tensor *w, const qcf_tensor *y,
                            const void *out, const uint8_t *any, int wide, qref_rounding rnd,
                            int64_t amin, int64_t amax, const int64_t *want, size_t *exact)
{
	qcf_tensor o = *y;
	o.data = (void *)out;
	size_t n = qref_tensor_numel(y), bad = 0;
	int64_t nc = y->shape[y->rank - 1];
	for (size_t i = 0; i < n; i++) {
		int64_t v = 0;
		int ok = blk_requant(op, x, w, y, wide, rnd, amin, amax, want[i],
		                     (int64_t)(i % (size_t)nc), &v) == 0;
		if (any && any[i] != !ok)
			bad++;
		else if (ok && (int64_t)qref_get(&o, i) != v)
			bad++;
		*exact += ok;
	}
	return bad;
}

static void test_blocked_vs_scalar(void)
{
	static const char *const ops[] = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"};
	static const int64_t chans[] = {1, 3, 17, 4, 8};
	int compared = 0, chunked = 0, blocks = 0;
	size_t exact = 0;
	for (int trial = 0; trial < 240; trial++) {
		int op = trial % 3, int16 = blk_rand(0, 3) == 0, int4 = blk_rand(0, 3) == 0;
		int per_channel = blk_rand(0, 1), same = blk_rand(0, 1);
		int64_t sh = blk_rand(1, 2), sw = blk_rand(1, 3), dh = blk_rand(1, 2),
		        dw = blk_rand(1, 2);
		int64_t nb = blk_rand(1, 2), ih = blk_rand(1, 12), iw = blk_rand(1, 12);
		int64_t kh = blk_rand(1, 3), kw = blk_rand(1, 3);
		int64_t ic = chans[blk_rand(0, 4)], nc = chans[blk_rand(0, 4)], groups = 1;
		int64_t xs[4], ws[4], ys[4], bs[1];
		int xr = 4, wr = 4, yr = 4;
		if (op == 0 && blk_rand(0, 3) == 0 && ic % 2 == 0 && nc % 2 == 0)
			groups = 2;
		if (op == 1)
			nc = ic * blk_rand(1, 2);
		if (op == 2) {
			/* depth past an int32 chunk (511 for int16 at full range) now and then */
			int64_t depth = blk_rand(0, 4) == 0 ? blk_rand(500, 1200) : blk_rand(1, 70);
			xr = wr = yr = 2;
			/* batches past a block of 64 rows now and then */
			xs[0] = ys[0] = blk_rand(0, 5) == 0 ? blk_rand(60, 140) : blk_rand(1, 9);
			blocks += xs[0] > 64;
			xs[1] = ws[1] = depth;
			ws[0] = ys[1] = nc;
			chunked += int16 && depth > 511;
		} else {
			int64_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
			int64_t oh = same ? (ih + sh - 1) / sh : (ih + sh - eh) / sh;
			int64_t ow = same ? (iw + sw - 1) / sw : (iw + sw - ew) / sw;
			if (oh <= 0 || ow <= 0)
				continue;
			int64_t x4[] = {nb, ih, iw, ic}, y4[] = {nb, oh, ow, nc};
			int64_t w4[] = {nc, kh, kw, ic / groups}, d4[] = {1, kh, kw, nc};
			memcpy(xs, x4, sizeof x4);
			memcpy(ys, y4, sizeof y4);
			memcpy(ws, op == 1 ? d4 : w4, sizeof w4);
			blocks += nb * oh * ow > 32; /* past a block of 32 pixels */
		}
		bs[0] = nc;
		qcf_dtype at = int16 ? QCF_INT16 : QCF_INT8;
		int axis = op == 1 ? 3 : 0;
		blk_tensor x, w, b, y;
		blk_make(&x, at, xr, xs, -1, 1, int16 ? 0 : (int32_t)blk_rand(-128, 127));
		blk_make(&w, int4 ? QCF_INT4 : QCF_INT8, wr, ws, per_channel ? axis : -1,
		         per_channel ? (int)nc : 1, 0);
		blk_make(&b, int16 ? QCF_INT64 : QCF_INT32, 1, bs, -1, 0, 0);
		blk_make(&y, at, yr, ys, -1, 1, int16 ? 0 : (int32_t)blk_rand(-20, 20));
		/* s_in * s_w[c] / s_out from about 7 (an accumulator's every unit shows, most
		 * elements saturate) down to about 2^-12 */
		y.scales[0] = 1e-4f * (float)(1 << blk_rand(0, 12));
		/* small operands: accumulators within a few hundred, requantized by about 1, so
		 * that every unit of an accumulator shows in the output */
		int small = blk_rand(0, 2) == 0;
		if (small)
			y.scales[0] = 1e-4f;
		int act = (int)blk_rand(0, 3); /* NONE, RELU, RELU_N1_TO_1, RELU6 */
		static const char *const acts[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6"};
		int64_t xlo = int16 ? -32768 : -128, xhi = int16 ? 32767 : 127;
		int extreme = !small && blk_rand(0, 2) == 0;
		if (small) {
			int32_t zi = x.zps[0];
			xlo = zi - 3 > xlo ? zi - 3 : xlo;
			xhi = zi + 3 < xhi ? zi + 3 : xhi;
		}
		for (size_t i = 0; i < qref_tensor_numel(&x.t); i++)
			qref_set(&x.t, i,
			         (double)(extreme ? (blk_rand(0, 1) ? xlo : xhi)
			                          : blk_rand(xlo, xhi)));
		for (size_t i = 0; i < qref_tensor_numel(&w.t); i++)
			qref_set(&w.t, i,
			         (double)(small     ? blk_rand(-3, 3)
			                  : int4    ? blk_rand(-8, 7)
			                  : extreme ? (blk_rand(0, 1) ? -128 : 127)
			                            : blk_rand(-128, 127)));
		for (int64_t c = 0; c < nc; c++)
			qref_set(&b.t, (size_t)c, (double)blk_rand(-5000, 5000));
		qcf_tensor in[3] = {x.t, w.t, b.t};
		in[0].name = "input", in[1].name = "filter", in[2].name = "bias";
		qcf_attr at_[6] = {qt_str("fused_activation_function", acts[act]),
		                   qt_str("padding", same ? "SAME" : "VALID"),
		                   qt_int("stride_h", sh),
		                   qt_int("stride_w", sw),
		                   qt_int("dilation_h_factor", dh),
		                   qt_int("dilation_w_factor", dw)};
		qcf_op_call call = {sizeof call, ops[op], "litert",        3,   in,
		                    1,           &y.t,    op == 2 ? 1 : 6, at_, NULL};
		/* the activation range (kernel_util.cc CalculateActivationRangeQuantized) */
		int64_t amin = int16 ? -32768 : -128, amax = int16 ? 32767 : 127;
		int32_t zo = y.zps[0];
		float so = y.scales[0];
		if (act != 0) {
			int64_t lo = zo + (int64_t)roundf((act == 2 ? -1.0f : 0.0f) / so);
			amin = lo > amin ? lo : amin;
		}
		if (act >= 2) {
			int64_t hi = zo + (int64_t)roundf((act == 2 ? 1.0f : 6.0f) / so);
			amax = hi < amax ? hi : amax;
		}
		size_t n = qref_tensor_numel(&y.t);
		qref_conv_terms t;
		memset(&t, 0, sizeof t);
		t.n = n;
		t.acc = calloc(n + 1, sizeof *t.acc);
		t.channel = calloc(n + 1, sizeof *t.channel);
		int64_t *want = calloc(n + 1, sizeof *want);
		qref_detail d;
		memset(&d, 0, sizeof d);
		qcf_status st = qref_litert_conv_terms(&call, &t, &d);
		if (st != QCF_OK)
			fprintf(stderr, "%s: %s\n", ops[op], d.message);
		CU_ASSERT_EQUAL(st, QCF_OK);
		blk_model(op, &in[0], &in[1], &in[2], &y.t, sh, sw, dh, dw, same, want);
		size_t bad = 0;
		for (size_t i = 0; st == QCF_OK && i < n; i++)
			bad += t.acc[i] != want[i];
		if (bad)
			fprintf(stderr, "%s trial %d: %zu of %zu accumulators differ\n", ops[op],
			        trial, bad, n);
		CU_ASSERT_EQUAL(bad, 0);
		compared += st == QCF_OK;
		/* an extra rounding from the same call equals its own call */
		void *single = calloc(y.t.nbytes + 1, 1), *own = y.t.data;
		uint8_t *any = calloc(n + 1, 1);
		memset(&d, 0, sizeof d);
		d.extra[QREF_ROUND_SINGLE][0] = single;
		d.out[0].any = any;
		CU_ASSERT_EQUAL(qref_execute(&call, &d), QCF_OK);
		CU_ASSERT(d.extra_done == 1u << QREF_ROUND_SINGLE);
		CU_ASSERT_EQUAL(d.default_rounding, QREF_ROUND_DOUBLE);
		/* the outputs of both roundings against the model's requantization */
		int wide = int16; /* an int64 bias */
		bad = blk_check_out(op, &in[0], &in[1], &y.t, y.t.data, any, wide,
		                    QREF_ROUND_DOUBLE, amin, amax, want, &exact);
		bad += blk_check_out(op, &in[0], &in[1], &y.t, single, NULL, wide,
		                     QREF_ROUND_SINGLE, amin, amax, want, &exact);
		if (bad)
			fprintf(stderr, "%s trial %d: %zu outputs differ from the model\n", ops[op],
			        trial, bad);
		CU_ASSERT_EQUAL(bad, 0);
		free(any);
		y.t.data = calloc(y.t.nbytes + 1, 1);
		CU_ASSERT_EQUAL(qref_execute(&call, qt_detail(&d, QREF_ROUND_SINGLE)), QCF_OK);
		CU_ASSERT(memcmp(y.t.data, single, y.t.nbytes) == 0);
		free(y.t.data);
		y.t.data = own;
		free(single);
		free(want);
		free(t.acc);
		free(t.channel);
		free(x.t.data);
		free(w.t.data);
		free(b.t.data);
		free(y.t.data);
	}
	CU_ASSERT(compared >= 100);
	CU_ASSERT(chunked >= 1);
	CU_ASSERT(blocks >= 20);
	CU_ASSERT(exact >= 10000); /* elements inside LiteRT's contract, compared by value */
}

void qct_register_litert_conv(void)
{
	CU_pSuite s = qct_suite("litert/conv");
	CU_add_test(s, "CONV_2D SimplePerChannelTest golden, no bias", test_conv_golden);
	CU_add_test(s, "int4 weights unpack as int8", test_int4_weights);
	CU_add_test(s, "FULLY_CONNECTED rounding set", test_fc_rounding_set);
	CU_add_test(s, "16x8: int64 and int32 accumulators", test_16x8);
	CU_add_test(s, "int32 accumulator overflow is unpredictable", test_overflow_unpredictable);
	CU_add_test(s, "real-valued output", test_real_output);
	CU_add_test(s, "accumulator terms for stubs", test_terms);
	CU_add_test(s, "blocked kernels equal a scalar model; extra roundings",
	            test_blocked_vs_scalar);
	CU_add_test(s, "reference passes the conv specs; rounding bands", test_reference_specs);
	CU_add_test(s, "float requantization: within 1 LSB, not exact", test_float_requant);
	CU_add_test(s, "ignoring per-axis weight scales fails per-axis cases", test_ignore_axis);
	CU_add_test(s, "one element's terms equal the kernels' accumulators", test_element_terms);
	CU_add_test(s, "outputs' axes by the op's layout", test_output_axes);
	CU_add_test(s, "a kernel wrong in channel 3: the report locates it", test_channel3_located);
}
