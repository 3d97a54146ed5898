/*
 * The gemmlowp adapter (plugins/gemmlowp, README.md there) and the reference's legacy uint8
 * FULLY_CONNECTED it is judged against (reference/litert_conv.c,
 * specs/litert/fully_connected_uint8.yaml).
 *
 * The adapter's tests need $QCONFORM_BUILD/plugins/libqcf_gemmlowp.so; where Debian's
 * libgemmlowp-dev is not installed the plugin is not built, and they say so on stderr and pass.
 * What they hold the adapter to is what its README claims: it loads and exports only the ABI
 * entry; it answers FULLY_CONNECTED with 8-bit activations, refuses LiteRT's forbidden
 * parameters with QCF_INVALID_PARAM, and declines int16 activations and every other op with
 * QCF_NOT_SUPPORTED; and every FULLY_CONNECTED case it supports is bit-exact with the
 * reference (PASS), uint8 and int8, per tensor and per channel, with one thread or two.
 */
#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qconform/plugin.h"
#include "qct.h"
#include "reference/qref.h"
#include "tensor.h"

static const char *plugin_path(void)
{
	return qct_build_path("plugins/libqcf_gemmlowp.so");
}

/* 1 if the plugin was built; else a line on stderr (the test then passes). */
static int have_plugin(void)
{
	return qct_adapter("gemmlowp", "libgemmlowp-dev") != NULL;
}

/* ---- the reference's uint8 FULLY_CONNECTED ----------------------------- */

/* The hand-worked case of fully_connected_uint8.yaml: e = 0.25 = 2^30 * 2^-1 * 2^-31. */
static void hand_case(qt *x, qt *w, qt *b, qt *y)
{
	static const int64_t xs[] = {2, 3}, ws[] = {2, 3}, bs[] = {2}, ys[] = {2, 2};
	static const double xv[] = {130, 126, 129, 120, 140, 128},
	                    wv[] = {104, 98, 100, 101, 99, 103};
	static const double bv[] = {8, -6};
	qt_make(x, QCF_UINT8, 2, xs, 0.5f, 128);
	qt_fill(x, xv, 6);
	qt_make(w, QCF_UINT8, 2, ws, 0.25f, 100);
	qt_fill(w, wv, 6);
	qt_init(b, QCF_INT32, 1, bs);
	qt_fill(b, bv, 2);
	qt_make(y, QCF_UINT8, 2, ys, 0.5f, 128);
}

static qcf_status ref_fc(qt **in, int nin, qt *y, const qcf_attr *a, int na, qref_rounding r,
                         qref_detail *d)
{
	return qref_execute(qt_call("litert", "FULLY_CONNECTED", in, nin, &y, 1, a, na),
	                    qt_detail(d, r));
}

static void test_reference_uint8(void)
{
	qt x, w, b, y;
	qref_detail d;
	hand_case(&x, &w, &b, &y);
	qt *in[] = {&x, &w, &b};
	/* acc {20, 1, -48, -26} * 0.25: the default build rounds twice (0.25 -> 0.5 -> 1) */
	static const double dbl[] = {133, 129, 116, 121}, sgl[] = {133, 128, 116, 122},
	                    away[] = {133, 128, 116, 121};
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_OK);
	CU_ASSERT(qt_equals(&y, dbl, 4));
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, NULL, 0, QREF_ROUND_SINGLE, &d), QCF_OK);
	CU_ASSERT(qt_equals(&y, sgl, 4));
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, NULL, 0, QREF_ROUND_HALF_AWAY, &d), QCF_OK);
	CU_ASSERT(qt_equals(&y, away, 4));
	/* RELU6 clamps at q(0) = 128 and q(6) = 140 */
	qcf_attr relu6 = qt_str("fused_activation_function", "RELU6");
	static const double r6[] = {133, 129, 128, 128};
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, &relu6, 1, QREF_ROUND_DEFAULT, &d), QCF_OK);
	CU_ASSERT(qt_equals(&y, r6, 4));

	/* Prepare's refusals and what the reference does not implement */
	static const float sc[] = {0.25f, 0.5f};
	static const int32_t zp[] = {100, 100};
	hand_case(&x, &w, &b, &y);
	qt_quant(&w, 0, 2, sc, zp);
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "per-tensor weights only"));
	qcf_attr tanh_act = qt_str("fused_activation_function", "TANH");
	hand_case(&x, &w, &b, &y);
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, &tanh_act, 1, QREF_ROUND_DEFAULT, &d), QCF_INVALID_PARAM);
	static const int64_t ys[] = {2, 2}, ws[] = {2, 3};
	qt_make(&y, QCF_INT16, 2, ys, 0.5f, 0);
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_NOT_SUPPORTED);
	qt_make(&y, QCF_INT8, 2, ys, 0.5f, 0);
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_INVALID_PARAM);
	hand_case(&x, &w, &b, &y);
	qt_make(&w, QCF_INT8, 2, ws, 0.25f, 0);
	CU_ASSERT_EQUAL(ref_fc(in, 3, &y, NULL, 0, QREF_ROUND_DEFAULT, &d), QCF_NOT_SUPPORTED);
	/* uint8 stays unimplemented for the convolutions */
	static const int64_t s4[] = {1, 1, 1, 1};
	qt xc, wc, yc;
	qt_make(&xc, QCF_UINT8, 4, s4, 0.5f, 128);
	qt_make(&wc, QCF_UINT8, 4, s4, 0.5f, 128);
	qt_make(&yc, QCF_UINT8, 4, s4, 0.5f, 128);
	qt *inc[] = {&xc, &wc};
	qt *yp = &yc;
	CU_ASSERT_EQUAL(qref_execute(qt_call("litert", "CONV_2D", inc, 2, &yp, 1, NULL, 0),
	                             qt_detail(&d, QREF_ROUND_DEFAULT)),
	                QCF_NOT_SUPPORTED);
}

/* The reference passes its own uint8 spec (golden values included), and the spec's ties tell
 * the legal roundings apart: single rounding is within the band and differs, half to even
 * fails. */
static void test_reference_uint8_spec(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/litert/fully_connected_uint8.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	CU_ASSERT(t.golden >= 3);
	CU_ASSERT(t.expected_error >= 7);
	CU_ASSERT(t.cases >= 400);
	json_decref(r);
	r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/fully_connected_uint8.yaml --plugin-option rounding=single");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	json_t *v = json_object_get(json_object_get(r, "summary"), "verdicts");
	CU_ASSERT(json_integer_value(json_object_get(v, "PASS_WITHIN_TOLERANCE")) >= 20);
	json_decref(r);
	r = qct_run_report(tmp, &st, NULL,
	                   "specs/litert/fully_connected_uint8.yaml --plugin-option "
	                   "rounding=half_even");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	v = json_object_get(json_object_get(r, "summary"), "verdicts");
	CU_ASSERT(json_integer_value(json_object_get(v, "FAIL")) >= 10);
	json_decref(r);
	qct_rmdir(tmp);
}

/* ---- the adapter through the ABI ---------------------------------------- */

static void test_adapter_abi(void)
{
	if (!have_plugin())
		return;
	qct_proc p;
	/* exactly one dynamic symbol of its own */
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "nm -D --defined-only '%s' | grep -v ' [wWuUV] '", plugin_path()), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "qconform_plugin_negotiate"));
	size_t lines = 0;
	for (const char *c = p.out; *c; c++)
		lines += *c == '\n';
	CU_ASSERT_EQUAL(lines, 1);
	qct_proc_free(&p);

	void *h = dlopen(plugin_path(), RTLD_NOW | RTLD_LOCAL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	qcf_negotiate_fn neg;
	*(void **)&neg = dlsym(h, QCF_ENTRY_SYMBOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(neg);
	qcf_negotiation n = {sizeof n, 1, 1, 0, NULL};
	CU_ASSERT_EQUAL_FATAL(neg(&n), QCF_OK);
	const qcf_plugin *pl = n.plugin;
	CU_ASSERT_STRING_EQUAL(pl->name, "gemmlowp");
	char msg[256] = "";
	qcf_instance *inst = NULL;
	qcf_option bad = {"isa", "neon"};
	CU_ASSERT_EQUAL(pl->create(&bad, 1, &inst, msg, sizeof msg), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "threads"));
	qcf_option two = {"threads", "2"};
	CU_ASSERT_EQUAL_FATAL(pl->create(&two, 1, &inst, msg, sizeof msg), QCF_OK);

	qt x, w, b, y;
	hand_case(&x, &w, &b, &y);
	qt *in[] = {&x, &w, &b}, *yp = &y;
	const qcf_op_call *call = qt_call("litert", "FULLY_CONNECTED", in, 3, &yp, 1, NULL, 0);
	CU_ASSERT_EQUAL(pl->supports(inst, call), QCF_OK);
	CU_ASSERT_EQUAL(pl->execute(inst, NULL, call), QCF_OK);
	static const double dbl[] = {133, 129, 116, 121};
	CU_ASSERT(qt_equals(&y, dbl, 4)); /* the default build's double rounding, bit for bit */

	/* refused as LiteRT's Prepare refuses */
	qcf_attr tanh_act = qt_str("fused_activation_function", "TANH");
	call = qt_call("litert", "FULLY_CONNECTED", in, 3, &yp, 1, &tanh_act, 1);
	CU_ASSERT_EQUAL(pl->supports(inst, call), QCF_INVALID_PARAM);
	static const float sc[] = {0.25f, 0.5f};
	static const int32_t zp[] = {100, 100};
	qt_quant(&w, 0, 2, sc, zp);
	call = qt_call("litert", "FULLY_CONNECTED", in, 3, &yp, 1, NULL, 0);
	CU_ASSERT_EQUAL(pl->supports(inst, call), QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(pl->last_error(inst), "per-channel"));

	/* declined: int16 activations, other ops */
	static const int64_t s2[] = {1, 2}, w2[] = {1, 2}, y2[] = {1, 1};
	qt_make(&x, QCF_INT16, 2, s2, 0.5f, 0);
	qt_make(&w, QCF_INT8, 2, w2, 0.5f, 0);
	qt_make(&y, QCF_INT16, 2, y2, 0.5f, 0);
	call = qt_call("litert", "FULLY_CONNECTED", in, 2, &yp, 1, NULL, 0);
	CU_ASSERT_EQUAL(pl->supports(inst, call), QCF_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(pl->last_error(inst), "int16"));
	call = qt_call("litert", "ADD", in, 2, &yp, 1, NULL, 0);
	CU_ASSERT_EQUAL(pl->supports(inst, call), QCF_NOT_SUPPORTED);
	call = qt_call("onnx", "FULLY_CONNECTED", in, 2, &yp, 1, NULL, 0);
	CU_ASSERT_EQUAL(pl->supports(inst, call), QCF_NOT_SUPPORTED);
	pl->destroy(inst);
	dlclose(h);
}

/* Every FULLY_CONNECTED case of the given specs: PASS (bit-exact), EXPECTED_ERROR, or
 * NOT_SUPPORTED for int16 activations only. Returns the report. */
static json_t *run_fc(const char *tmp, const char *args, size_t *pass, size_t *ns)
{
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", args, plugin_path());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	json_t *cases = json_object_get(r, "cases");
	*pass = *ns = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_verdict(c);
		int is16 = strstr(qct_str(c, "spec"), "16x8") != NULL;
		int ok = !strcmp(v, "PASS") || !strcmp(v, "EXPECTED_ERROR");
		if (!strcmp(v, "NOT_SUPPORTED"))
			ok = strstr(qct_str(c, "message"), "int16 activations") != NULL;
		if (is16)
			ok = !strcmp(v, "NOT_SUPPORTED");
		if (!ok)
			fprintf(stderr, "\n  %s: %s %s", qct_str(c, "name"), v,
			        qct_str(c, "message"));
		CU_ASSERT(ok);
		*pass += !strcmp(v, "PASS");
		*ns += !strcmp(v, "NOT_SUPPORTED");
		json_t *outs = json_object_get(c, "outputs");
		for (size_t k = 0; k < json_array_size(outs); k++)
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(outs, k),
			                                                   "mismatches")),
			                0);
	}
	return r;
}

static void test_adapter_uint8(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	size_t pass, ns;
	json_t *r = run_fc(tmp, "specs/litert/fully_connected_uint8.yaml", &pass, &ns);
	qct_tally t = qct_tally_report(r);
	printf("\n  gemmlowp uint8: %zu cases, %zu PASS, %zu EXPECTED_ERROR, %zu golden\n", t.cases,
	       pass, t.expected_error, t.golden);
	CU_ASSERT_EQUAL(ns, 0);
	CU_ASSERT_EQUAL(pass + t.expected_error, t.cases);
	CU_ASSERT(t.golden >= 3 && t.expected_error >= 7 && pass >= 400);
	json_decref(r);
	/* gemmlowp's worker threads give the same bits */
	r = run_fc(tmp, "specs/litert/fully_connected_uint8.yaml --plugin-option threads=2", &pass,
	           &ns);
	CU_ASSERT_EQUAL(ns, 0);
	CU_ASSERT(pass >= 400);
	json_decref(r);
	qct_rmdir(tmp);
}

static void test_adapter_int8(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	size_t pass, ns;
	json_t *r =
	        run_fc(tmp,
	               "specs/litert/fully_connected.yaml specs/litert/fully_connected_shapes.yaml "
	               "specs/litert/fully_connected_no_bias.yaml "
	               "specs/litert/fully_connected_16x8.yaml",
	               &pass, &ns);
	/* per-channel and int4 weights are among the bit-exact cases */
	json_t *cases = json_object_get(r, "cases");
	size_t n = json_array_size(cases), neg = 0, int4 = 0, per_axis = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array_get(cases, i);
		neg += !strcmp(qct_verdict(c), "EXPECTED_ERROR");
		if (strcmp(qct_verdict(c), "PASS"))
			continue;
		const char *name = qct_str(c, "name");
		int4 += strstr(name, "wdt=int4") != NULL;
		per_axis += strstr(name, "axis") != NULL;
	}
	printf("\n  gemmlowp int8 / 16x8: %zu cases, %zu PASS (%zu per-channel, %zu int4), %zu "
	       "NOT_SUPPORTED (int16), %zu EXPECTED_ERROR\n",
	       n, pass, per_axis, int4, ns, neg);
	CU_ASSERT(pass >= 1000);
	CU_ASSERT(ns >= 50);
	CU_ASSERT_EQUAL(pass + ns + neg, n);
	CU_ASSERT(int4 >= 4);
	CU_ASSERT(per_axis >= 100);
	json_decref(r);
	qct_rmdir(tmp);
}

static void test_adapter_other_ops(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/litert/add.yaml specs/litert/conv_2d.yaml --plugin %s",
	                           plugin_path());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1); /* every case refused: NOTHING VERIFIED */
	json_t *v = json_object_get(json_object_get(r, "summary"), "verdicts");
	json_t *cases = json_object_get(r, "cases");
	CU_ASSERT(json_array_size(cases) > 100);
	CU_ASSERT_EQUAL((size_t)json_integer_value(json_object_get(v, "NOT_SUPPORTED")),
	                json_array_size(cases));
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_plugin_gemmlowp(void)
{
	CU_pSuite s = qct_suite("plugin/gemmlowp");
	CU_add_test(s, "reference: uint8 FULLY_CONNECTED by hand, roundings, refusals",
	            test_reference_uint8);
	CU_add_test(s, "reference: fully_connected_uint8.yaml, golden values, rounding band",
	            test_reference_uint8_spec);
	CU_add_test(s, "adapter: one symbol, options, supports() answers", test_adapter_abi);
	CU_add_test(s, "adapter: uint8 FULLY_CONNECTED bit-exact (1 and 2 threads)",
	            test_adapter_uint8);
	CU_add_test(s, "adapter: int8 per-tensor, per-channel, int4 bit-exact; 16x8 declined",
	            test_adapter_int8);
	CU_add_test(s, "adapter: other ops NOT_SUPPORTED", test_adapter_other_ops);
}
