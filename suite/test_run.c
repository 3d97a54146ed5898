/*
 * End to end: the qconform binary against the reference and the stub plugins,
 * judged from the JSON report it writes (read back with jansson).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/cases.h"
#include "qct.h"
#include "reference/attrs.h"
#include "reference/dtype.h"
#include "spec/profile.h"
#include "spec/spec.h"

static long long summary_count(json_t *r, const char *v)
{
	return json_integer_value(
	        json_object_get(json_object_get(json_object_get(r, "summary"), "verdicts"), v));
}

/* The reference against its own specs: every case PASS or EXPECTED_ERROR, over 2,000 cases,
 * and the report is consistent with itself. All of specs/ in the sanitizer pass too: this run
 * takes every reference kernel through ASan and UBSan. */
static void test_reference_run(void)
{
	int st;
	/* the same run is the pipeline suite's --jobs 1 run (qct_run_shared) */
	json_t *r = qct_run_shared(&st, NULL, NULL, "specs --jobs 1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	size_t n = t.cases, bad = t.other, expected_error = t.expected_error, golden = t.golden;
	printf("\n  reference: %zu cases\n", n);
	CU_ASSERT(n >= 2000);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(expected_error >= 10);
	CU_ASSERT(golden >= 5);
	CU_ASSERT_EQUAL(
	        (size_t)json_integer_value(json_object_get(json_object_get(r, "summary"), "cases")),
	        n);
	CU_ASSERT_EQUAL((size_t)summary_count(r, "PASS") + expected_error, n);
	CU_ASSERT(json_is_true(json_object_get(json_object_get(r, "summary"), "conforms")));
	/* roll-ups add up to the run */
	json_t *ops = json_object_get(r, "ops");
	size_t sum = 0;
	for (size_t i = 0; i < json_array_size(ops); i++)
		sum += (size_t)json_integer_value(json_object_get(json_array_get(ops, i), "cases"));
	CU_ASSERT_EQUAL(sum, n);
	json_t *plug = json_object_get(json_object_get(r, "run"), "plugin");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(plug, "name")),
	                       "qconform-reference");
	CU_ASSERT_EQUAL(strlen(json_string_value(json_object_get(plug, "sha256"))), 64);
	json_decref(r);
}

/* Would rounding ties half up instead of to even change element i's output? */
static int even_tie_changes(double v, double zp, double lo, double hi)
{
	if (!isfinite(v) || v - floor(v) != 0.5 || fmod(floor(v), 2.0) != 0)
		return 0;
	double even = fmin(fmax(floor(v) + zp, lo), hi), up = fmin(fmax(floor(v) + 1 + zp, lo), hi);
	return even != up;
}

/* Cases of a spec whose inputs hold a tie where half-up and to-even differ, computed here
 * from the expanded inputs, independently of any kernel. */
static int tie_case(const qc_case *c)
{
	const qcf_tensor *x = &c->in[0];
	size_t n = qref_numel(x->rank, x->shape);
	if (!strcmp(c->call.op, "fake_quantize_per_tensor_affine")) {
		double scale, zp, lo, hi;
		if (qref_attr_number(&c->call, "scale", &scale) != 1 ||
		    qref_attr_number(&c->call, "zero_point", &zp) != 1 ||
		    qref_attr_number(&c->call, "quant_min", &lo) != 1 ||
		    qref_attr_number(&c->call, "quant_max", &hi) != 1)
			return 0;
		float inv = 1.0f / (float)scale;
		for (size_t i = 0; i < n; i++)
			if (even_tie_changes((float)qref_get(x, i) * inv, zp, lo, hi))
				return 1;
		return 0;
	}
	const qcf_tensor *y = &c->out[0];
	const qcf_quant *q = y->quant;
	int64_t lo, hi;
	qref_dtype_range(y->dtype, &lo, &hi);
	for (size_t i = 0; i < n; i++) {
		int32_t ch = qref_channel(y, q, i);
		float v = (float)qref_get(x, i) / q->scales[ch];
		if (even_tie_changes(v, q->zero_points[ch], (double)lo, (double)hi))
			return 1;
	}
	return 0;
}

/* The off-by-one stub (ties half up) fails exactly the cases with a tie, by +1. */
static void test_ties_half_up(void)
{
	const char *specs[] = {"specs/torch/fake_quantize_per_tensor_affine.yaml",
	                       "specs/onnx/quantize_linear.yaml",
	                       "specs/onnx/quantize_linear_per_axis.yaml"};
	const char *tmp = qct_tmpdir();
	size_t total_ties = 0, total = 0;
	for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
		int st;
		json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", specs[s],
		                           qct_stub("ties_half_up"));
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL(st, 1);
		json_t *cases = json_object_get(r, "cases");
		qc_diag diag = {0, 0, stderr};
		qc_spec *sp = qc_spec_load(specs[s], &diag);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
		qc_cases *it = qc_cases_begin(sp, 0, 1, &diag);
		qc_case *c;
		size_t i = 0, ties = 0, wrong = 0;
		while (qc_cases_next(it, &c) == 1) {
			json_t *jc = json_array_get(cases, i++);
			CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(jc, "name")),
			                       c->name);
			const char *v = qct_verdict(jc);
			int tie = !c->expect_error && tie_case(c);
			ties += tie;
			const char *want = c->expect_error ? "EXPECTED_ERROR"
			                   : tie           ? "FAIL"
			                                   : "PASS";
			if (strcmp(v, want) != 0 && wrong++ < 3)
				fprintf(stderr, "\n  %s: %s, want %s", c->name, v, want);
			if (tie) {
				/* the histogram shows the +1 bin, nothing else but 0 */
				json_t *h = json_object_get(
				        json_array_get(json_object_get(jc, "outputs"), 0),
				        "histogram");
				const char *key;
				json_t *val;
				int only = json_object_get(h, "1") != NULL;
				json_object_foreach(h, key, val) only &=
				        !strcmp(key, "0") || !strcmp(key, "1");
				CU_ASSERT(only);
			}
			qc_case_free(c);
		}
		qc_cases_end(it);
		qc_spec_free(sp);
		CU_ASSERT_EQUAL(wrong, 0);
		CU_ASSERT_EQUAL(i, json_array_size(cases));
		CU_ASSERT((long long)ties == summary_count(r, "FAIL"));
		total_ties += ties;
		total += i;
		json_decref(r);
	}
	printf("\n  ties_half_up: %zu of %zu cases hold a tie, all FAIL, the rest PASS\n",
	       total_ties, total);
	CU_ASSERT(total_ties >= 50);
	qct_rmdir(tmp);
}

/* Counts verdicts of the cases whose name starts with prefix. */
static void count_prefix(json_t *r, const char *prefix, size_t *match, size_t *n, const char *want)
{
	json_t *cases = json_object_get(r, "cases");
	*match = *n = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		if (strncmp(json_string_value(json_object_get(c, "name")), prefix, strlen(prefix)))
			continue;
		(*n)++;
		*match += !strcmp(qct_verdict(c), want);
	}
}

/* Crash, abort and hang cost their cases, and the other cases of the same run still run. */
static void test_crash_abort_hang(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	size_t m, n;
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/dequantize.yaml specs/litert/quantize.yaml --plugin %s",
	        qct_stub("crash"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	count_prefix(r, "litert/dequantize/", &m, &n, "CRASH");
	CU_ASSERT(n > 5 && m == n);
	count_prefix(r, "litert/quantize/", &m, &n, "PASS");
	CU_ASSERT(n > 50 && m + 0 == n - (size_t)0);
	json_t *c0 = json_array_get(json_object_get(r, "cases"), 0);
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(json_string_value(json_object_get(c0, "message")), "SIGSEGV"));
	json_decref(r);

	/* each aborted case costs a worker's start: two specs, not all of specs/tf, and a
	 * quarter of their cases under the sanitizers (0.1 s to start a sanitized worker) */
	r = qct_run_report(tmp, &st, NULL,
	                   "specs/tf/fake_quant_with_min_max_args.yaml "
	                   "specs/tf/fake_quant_with_min_max_vars.yaml --plugin %s%s",
	                   qct_stub("abort"), qct_under_sanitizers() ? " --shard 1/4" : "");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	count_prefix(r, "tf/fake_quant_with_min_max_args/", &m, &n, "CRASH");
	CU_ASSERT(n > 10 && m == n);
	count_prefix(r, "tf/fake_quant_with_min_max_vars/", &m, &n, "PASS");
	CU_ASSERT(n > 10 && m == n);
	json_decref(r);

	r = qct_run_report(tmp, &st, NULL,
	                   "specs/onnx --plugin %s --timeout 0.3 --filter "
	                   "'onnx/quantize_linear/dtype=int8,zp=0,*' "
	                   "--filter 'onnx/dequantize_linear/*' "
	                   "--filter '-onnx/dequantize_linear/case/output_dtype_not_a_float'",
	                   qct_stub("hang"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	count_prefix(r, "onnx/quantize_linear/", &m, &n, "TIMEOUT");
	CU_ASSERT(n == 9 && m == n);
	count_prefix(r, "onnx/dequantize_linear/", &m, &n, "PASS");
	CU_ASSERT(n > 5 && m == n);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Using channel 0's parameters everywhere fails every per-axis case with distinct channels
 * (the quantize and dequantize specs of both semantics: the conv/FC families have their own
 * test in test_litert_conv.c). */
static void test_ignore_axis(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	size_t m, n;
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/quantize_per_axis.yaml specs/litert/quantize.yaml "
	        "specs/litert/dequantize.yaml specs/onnx/quantize_linear_per_axis.yaml "
	        "--plugin %s",
	        qct_stub("ignore_axis"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	count_prefix(r, "litert/quantize_per_axis/axis=", &m, &n, "FAIL");
	CU_ASSERT(n > 5 && m == n);
	count_prefix(r, "onnx/quantize_linear_per_axis/dtype=", &m, &n, "FAIL");
	CU_ASSERT(n > 5 && m == n);
	count_prefix(r, "litert/quantize/", &m, &n, "PASS");
	CU_ASSERT(n > 5 && m == n);
	count_prefix(r, "litert/dequantize/dtype=int8,shape=[3;2;128],q={axis:0", &m, &n, "FAIL");
	CU_ASSERT(n > 0 && m == n);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Plugins that must not load: one line, exit 2, nothing run. */
static void test_load_refusals(void)
{
	struct {
		const char *stub, *reason;
	} cases[] = {{"old_abi", "no common ABI version"},
	             {"future_abi", "no common ABI version"},
	             {"no_entry", "qconform_plugin_negotiate"},
	             {"short_struct", "short descriptor"},
	             {"null_execute", "execute"},
	             {"null_descriptor", "descriptor"},
	             {"does_not_exist", "libstub_does_not_exist.so"}};
	const char *tmp = qct_tmpdir();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int st;
		char *err = NULL;
		json_t *r =
		        qct_run_report(tmp, &st, &err, "specs/litert/dequantize.yaml --plugin %s",
		                       qct_stub(cases[i].stub));
		CU_ASSERT_PTR_NULL(r);
		CU_ASSERT_EQUAL(st, 2);
		CU_ASSERT_PTR_NOT_NULL(err);
		if (err) {
			if (!strstr(err, cases[i].reason))
				fprintf(stderr, "\n  %s: %s", cases[i].stub, err);
			CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].reason));
			char *nl = strchr(err, '\n');
			CU_ASSERT(nl && nl[1] == 0); /* one line */
		}
		free(err);
		json_decref(r);
	}
	qct_rmdir(tmp);
}

/* Not supported is an answer; memory-rule breakers are ERROR. */
static void test_answers_and_memory_rules(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	size_t m, n;
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/quantize.yaml specs/litert/add.yaml specs/litert/conv_2d.yaml "
	        "specs/litert/softmax.yaml specs/litert/gather.yaml specs/litert/mean.yaml "
	        "--plugin %s",
	        qct_stub("supports_nothing"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1); /* every verdict allowed, nothing judged: NOTHING VERIFIED */
	count_prefix(r, "litert/", &m, &n, "NOT_SUPPORTED");
	CU_ASSERT(n > 10 && m == n);
	json_decref(r);
	/* the pure delegate conforms everywhere */
	r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", qct_specs(), qct_stub("ok"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT(json_is_true(json_object_get(json_object_get(r, "summary"), "conforms")));
	CU_ASSERT(summary_count(r, "PASS") >= 2000);
	json_decref(r);
	const char *rules[] = {"scribble", "modify_input"};
	for (int k = 0; k < 2; k++) {
		r = qct_run_report(tmp, &st, NULL, "specs/litert/dequantize.yaml --plugin %s",
		                   qct_stub(rules[k]));
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL(st, 1);
		count_prefix(r, "litert/dequantize/dtype", &m, &n, "ERROR");
		CU_ASSERT(n > 5 && m == n);
		json_decref(r);
	}
	qct_rmdir(tmp);
}

/* Parallel workers change nothing but the wall time: same cases, same order, same verdicts, with
 * timeouts among them (test_pipeline.c compares whole runs of every spec across --jobs). */
static void test_jobs_same_result(void)
{
	const char *tmp = qct_tmpdir();
	int st1, st3;
	const char *args =
	        "specs/litert/quantize.yaml specs/litert/dequantize.yaml "
	        "specs/litert/add.yaml specs/litert/conv_2d.yaml "
	        "specs/litert/fully_connected.yaml specs/onnx --timeout 0.3 --filter 'litert/*' "
	        "--filter 'onnx/dequantize_linear/*' --filter "
	        "'onnx/quantize_linear/dtype=int8,zp=0,*'";
	json_t *a =
	        qct_run_report(tmp, &st1, NULL, "%s --plugin %s --jobs 1", args, qct_stub("hang"));
	json_t *b =
	        qct_run_report(tmp, &st3, NULL, "%s --plugin %s --jobs 3", args, qct_stub("hang"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(st1, 1);
	CU_ASSERT_EQUAL(st3, 1);
	json_t *ca = json_object_get(a, "cases"), *cb = json_object_get(b, "cases");
	CU_ASSERT_EQUAL(json_array_size(ca), json_array_size(cb));
	size_t differ = 0, timeouts = 0;
	for (size_t i = 0; i < json_array_size(ca) && i < json_array_size(cb); i++) {
		json_t *x = json_array_get(ca, i), *y = json_array_get(cb, i);
		differ += strcmp(json_string_value(json_object_get(x, "name")),
		                 json_string_value(json_object_get(y, "name"))) != 0 ||
		          strcmp(qct_verdict(x), qct_verdict(y)) != 0;
		timeouts += !strcmp(qct_verdict(x), "TIMEOUT");
	}
	CU_ASSERT_EQUAL(differ, 0);
	CU_ASSERT(timeouts > 5);
	json_decref(a);
	json_decref(b);
	qct_rmdir(tmp);
}

/* A profile cannot be run from a suite that lost its required ops or cases. */
static void test_profile_guard(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	char *err = NULL;
	json_t *r = qct_run_report(
	        tmp, &st, &err,
	        "specs/torch/fake_quantize_per_tensor_affine.yaml --profile torch-fakequant");
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_EQUAL(st, 2);
	CU_ASSERT_PTR_NOT_NULL(err &&
	                       strstr(err, "requires torch/fake_quantize_per_channel_affine"));
	CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "needs at least"));
	free(err);
	r = qct_run_shared(&st, NULL, NULL, "specs --profile onnx-qdq"); /* also reports' */
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	json_t *p = json_object_get(r, "profile");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "name")), "onnx-qdq");
	json_t *ops = json_object_get(p, "required_ops");
	qc_diag pdiag = {0, 0, stderr};
	qc_profile *prof = qc_profile_load("specs/profiles/onnx-qdq.yaml", &pdiag);
	CU_ASSERT_PTR_NOT_NULL_FATAL(prof);
	CU_ASSERT(prof->n_ops >= 2);
	CU_ASSERT_EQUAL(json_array_size(ops), (size_t)prof->n_ops);
	qc_profile_free(prof);
	for (size_t i = 0; i < json_array_size(ops); i++)
		CU_ASSERT(json_integer_value(json_object_get(json_array_get(ops, i), "cases")) >
		          10);
	/* only specs of the profile ran */
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++)
		CU_ASSERT_STRING_EQUAL(
		        json_string_value(json_object_get(json_array_get(cases, i), "semantics")),
		        "onnx");
	json_decref(r);
	qct_rmdir(tmp);
}

/* A single-rounding kernel is legal under rounding: [double, single] and not under exact;
 * the report counts the elements that needed the wider rounding. */
static void test_rounding_tolerance(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "suite/specs/rounding.yaml --plugin-option rounding=single");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	size_t within = 0, failed = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *v = qct_verdict(c);
		json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
		long long wider = json_integer_value(json_object_get(o, "within_rounding"));
		long long mism = json_integer_value(json_object_get(o, "mismatches"));
		if (strstr(name, "/band_")) {
			CU_ASSERT(!strcmp(v, "PASS") || !strcmp(v, "PASS_WITHIN_TOLERANCE"));
			CU_ASSERT_EQUAL(wider, mism); /* every difference is a legal rounding */
			within += !strcmp(v, "PASS_WITHIN_TOLERANCE");
		} else {
			CU_ASSERT(!strcmp(v, mism ? "FAIL" : "PASS"));
			failed += !strcmp(v, "FAIL");
		}
	}
	CU_ASSERT(within >= 3);
	CU_ASSERT_EQUAL(within, failed); /* the same s_out values differ under both tolerances */
	json_decref(r);
	r = qct_run_report(tmp, &st, NULL, "suite/specs/rounding.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_EQUAL(summary_count(r, "PASS"), 12);
	json_decref(r);
	qct_rmdir(tmp);
}

/* A golden value is checked against the set the reference accepts (the rounding band), or
 * within the case's golden_tolerance of it; a golden value outside fails the case, naming the
 * element and the set; one inside changes nothing for the kernel. */
static void test_golden_against_accepted_set(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "suite/specs/golden_band.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	static const struct {
		const char *name, *verdict, *message;
	} want[] = {
	        {"default_build", "PASS", ""},
	        {"single_rounding_build", "PASS", ""},
	        {"outside_the_band", "FAIL",
	         "REFERENCE DISAGREES WITH GOLDEN: output 'y'[0]: reference accepts [-3, -2], "
	         "golden -4 (a wrong table)"},
	        {"outside_within_its_tolerance", "PASS", ""},
	        {"beyond_its_tolerance", "FAIL",
	         "REFERENCE DISAGREES WITH GOLDEN: output 'y'[1]: reference 1, golden 3 (golden "
	         "tolerance 1) (a test that compared within one step)"},
	};
	json_t *cases = json_object_get(r, "cases");
	CU_ASSERT_EQUAL_FATAL(json_array_size(cases), sizeof want / sizeof want[0]);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		json_t *c = json_array_get(cases, i);
		CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(c, "name"), want[i].name));
		CU_ASSERT_STRING_EQUAL(qct_verdict(c), want[i].verdict);
		CU_ASSERT_STRING_EQUAL(qct_str(c, "message"), want[i].message);
	}
	json_decref(r);
	/* a golden tolerance states its bound and why */
	char path[1100];
	snprintf(path, sizeof path, "%s/g.yaml", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("qconform: 1\nop: QUANTIZE\nsemantics: litert\n"
	      "inputs:\n  x: {dtype: int8, shape: [1], quant: {scale: 0.1}, data: [-10]}\n"
	      "outputs:\n  y: {dtype: int8, shape: [1], quant: {scale: 0.4}}\n"
	      "cases:\n  - name: a\n    golden: {y: [-3]}\n    source: s\n"
	      "    golden_tolerance: {max_abs: -1}\n",
	      f);
	fclose(f);
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "g.yaml:12:33: golden_tolerance needs max_abs"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "g.yaml:12:23: golden_tolerance needs a 'reason'"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* A kernel that computes what it should refuse fails every negative case. */
static void test_negative_cases_lenient(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r =
	        qct_run_report(tmp, &st, NULL, "%s --plugin %s", qct_specs(), qct_stub("lenient"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	size_t neg = 0, neg_failed = 0, pos_bad = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		int is_neg = !strcmp(json_string_value(json_object_get(c, "expect")), "error");
		/* the stub speaks ABI 1: the float8 and GGML cases are not offered to it */
		if (strstr(json_string_value(json_object_get(c, "message")), "not offered"))
			continue;
		neg += is_neg;
		if (is_neg) {
			neg_failed += !strcmp(qct_verdict(c), "FAIL");
			CU_ASSERT_PTR_NOT_NULL(
			        strstr(json_string_value(json_object_get(c, "message")), "forbid"));
		} else {
			pos_bad += strcmp(qct_verdict(c), "PASS") != 0;
		}
	}
	CU_ASSERT(neg >= 10);
	CU_ASSERT_EQUAL(neg_failed, neg);
	CU_ASSERT_EQUAL(pos_bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Counts of a report's cases: of verdict v, and of v whose message holds words. */
static size_t count_verdict(json_t *r, const char *v, const char *words)
{
	size_t i, n = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *m = json_string_value(json_object_get(c, "message"));
		n += !strcmp(json_string_value(json_object_get(c, "verdict")), v) &&
		     (!words || (m && strstr(m, words)));
	}
	return n;
}

/*
 * --repeat K: a kernel whose answer depends on its thread count (it declares its threads
 * option: the later runs get 1, 2, ...) or on what it ran before (a stale cache: the later
 * runs in the same worker) is NONDETERMINISTIC on exactly the cases that differ, with the
 * runs, the thread count and the first differing byte; a crash in a later run that a fresh
 * worker does not repeat is one too. The reference is deterministic; one run sees nothing;
 * the reproduce command keeps --repeat; the run does not conform.
 */
static void test_repeat(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml --repeat 3 --plugin %s",
	                           qct_build_path("libqconform_reference.so"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_EQUAL(count_verdict(r, "NONDETERMINISTIC", NULL), 0);
	json_t *rep = json_object_get(json_object_get(r, "run"), "repeat");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(rep, "runs")), 3);
	CU_ASSERT(json_is_null(json_object_get(rep, "threads_option")));
	json_decref(r);

	/* threads: odd-sized int8 ADD outputs differ once the kernel has two threads */
	r = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml --plugin %s",
	                   qct_stub("threads_race"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0); /* one run, one thread: nothing to see */
	json_decref(r);
	r = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml --repeat 2 --plugin %s",
	                   qct_stub("threads_race"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0); /* run 2 has 1 thread too */
	json_decref(r);
	r = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml --repeat 3 --plugin %s",
	                   qct_stub("threads_race"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	size_t odd = 0, nondet = 0, i;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		/* only the cases the stub may change (an int8 output of an odd element count,
		 * its last element below 127) are NONDETERMINISTIC */
		json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
		const char *v = json_string_value(json_object_get(c, "verdict"));
		int may = o && !strcmp(json_string_value(json_object_get(o, "dtype")), "int8") &&
		          json_integer_value(json_object_get(o, "elements")) % 2 == 1;
		odd += may;
		nondet += !strcmp(v, "NONDETERMINISTIC");
		if (!may)
			CU_ASSERT_STRING_NOT_EQUAL(v, "NONDETERMINISTIC");
	}
	CU_ASSERT(nondet > odd / 2);
	CU_ASSERT(odd > 0);
	CU_ASSERT_EQUAL(count_verdict(r, "NONDETERMINISTIC",
	                              "runs 1 and 3 of 3, threads=2 differ: "
	                              "output 'y' byte "),
	                nondet);
	rep = json_object_get(json_object_get(r, "run"), "repeat");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(rep, "threads_option")),
	                       "threads");
	const char *cmd = NULL;
	json_array_foreach(json_object_get(r, "cases"), i,
	                   c) if (!cmd && !strcmp(json_string_value(json_object_get(c, "verdict")),
	                                          "NONDETERMINISTIC")) cmd =
	        json_string_value(json_object_get(c, "reproduce"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(cmd);
	CU_ASSERT_PTR_NOT_NULL(strstr(cmd, " --repeat 3 "));
	/* the reproduce command, run: the same finding */
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "%s", cmd) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "NONDETERMINISTIC"));
	qct_proc_free(&p);
	json_decref(r);

	/* state between calls: the same worker, run 2 flips a bit, or crashes */
	r = qct_run_report(tmp, &st, NULL, "specs/litert/quantize.yaml --repeat 2 --plugin %s",
	                   qct_stub("flaky"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	CU_ASSERT(count_verdict(r, "NONDETERMINISTIC",
	                        "runs 1 and 2 of 2 differ: output 'y' byte 3 "
	                        "(element 3): ") > 0);
	CU_ASSERT_EQUAL(count_verdict(r, "NONDETERMINISTIC", NULL),
	                count_verdict(r, "NONDETERMINISTIC", "byte 3 (element 3)"));
	json_decref(r);
	r = qct_run_report(tmp, &st, NULL,
	                   "specs/litert/quantize.yaml --repeat 2 --plugin %s --plugin-option "
	                   "mode=crash",
	                   qct_stub("flaky"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	CU_ASSERT(
	        count_verdict(r, "NONDETERMINISTIC",
	                      "killed by signal 11 (SIGSEGV) in execute() in a worker that had run "
	                      "other cases; alone in a fresh worker it returned QCF_OK") > 0);
	json_decref(r);

	/* usage: 0 and 65 runs, and an offline import */
	CU_ASSERT_FATAL(qct_sh(&p, "%s run specs/litert/add.yaml --repeat 0 --no-reports",
	                       qct_build_path("qconform")) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "--repeat needs a number of runs from 1 to 64"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

void qct_register_run(void)
{
	CU_pSuite s = qct_suite("run");
	CU_add_test(s, "reference passes its own specs", test_reference_run);
	CU_add_test(s, "--repeat: NONDETERMINISTIC by threads, by state, by a crash", test_repeat);
	CU_add_test(s, "ties-half-up stub fails exactly the tie cases", test_ties_half_up);
	CU_add_test(s, "crash, abort and hang cost one case each", test_crash_abort_hang);
	CU_add_test(s, "ignoring per-axis params fails per-axis cases", test_ignore_axis);
	CU_add_test(s, "plugin load refusals", test_load_refusals);
	CU_add_test(s, "ok, not supported, scribble, modify input", test_answers_and_memory_rules);
	CU_add_test(s, "--jobs 3 gives the --jobs 1 result", test_jobs_same_result);
	CU_add_test(s, "profiles guard their ops and case counts", test_profile_guard);
	CU_add_test(s, "rounding band: single rounding legal, not exact", test_rounding_tolerance);
	CU_add_test(s, "a kernel accepting forbidden params fails negative cases",
	            test_negative_cases_lenient);
	CU_add_test(s, "goldens are checked against what the reference accepts",
	            test_golden_against_accepted_set);
}
