/*
 * The diagnosis (harness/src/judge/diagnose.h, README "Diagnosis"): the project's buggy stubs
 * each diagnosed as their bug (not merely FAIL), a kernel that mixes two rules diagnosed as
 * mixing (with its vector tail), bugs outside the catalogue located instead of misnamed, a
 * passing kernel's datasheet, and `qconform diagnose REPORT.json` re-running a report's cases
 * only when its kernel and specs are the report's. (Every mutant named first: the mutation
 * suite, suite/mutants/score.sh.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "qct.h"

/* The op's diagnosis object in report r, or NULL. */
static json_t *diagnosis_of(json_t *r, const char *semantics, const char *op)
{
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(r, "ops"), i, o)
	{
		if (!strcmp(qct_str(o, "semantics"), semantics) && !strcmp(qct_str(o, "op"), op))
			return json_object_get(o, "diagnosis");
	}
	return NULL;
}

static const char *best_id(json_t *d)
{
	return qct_str(json_array_get(json_object_get(d, "best"), 0), "id");
}

typedef struct expect {
	const char *semantics, *op, *status, *best; /* best NULL: not checked */
	const char *text;                           /* in the diagnosis's text, or NULL */
} expect;

/* Runs stub over specs and checks each op's diagnosis. */
static void check_stub(const char *stub, const char *specs, const expect *x, size_t n)
{
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	int status;
	json_t *r = qct_run_report(tmp, &status, NULL, "%s --plugin %s", specs, qct_stub(stub));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(status, 1);
	for (size_t k = 0; k < n; k++) {
		json_t *d = diagnosis_of(r, x[k].semantics, x[k].op);
		int ok = d && !strcmp(qct_str(d, "status"), x[k].status) &&
		         (!x[k].best || !strcmp(best_id(d), x[k].best)) &&
		         (!x[k].text || strstr(qct_str(d, "text"), x[k].text));
		if (!ok)
			fprintf(stderr, "\n%s %s/%s: expected %s %s, got: %s", stub, x[k].semantics,
			        x[k].op, x[k].status, x[k].best ? x[k].best : "",
			        d ? qct_str(d, "text") : "no diagnosis");
		CU_ASSERT(ok);
		/* bounded: at most 24 failing cases diagnosed, 16 passing ones sampled */
		if (d) {
			CU_ASSERT(json_integer_value(
			                  json_object_get(d, "failing_cases_diagnosed")) <= 24);
			CU_ASSERT(json_integer_value(json_object_get(d, "passing_cases_sampled")) <=
			          16);
		}
	}
	json_decref(r);
	qct_rmdir(tmp);
}

static void test_float_requant(void)
{
	static const expect x[] = {
	        {"litert", "CONV_2D", "explained", "87-conv-fp32-requantization", "XNNPACK"},
	        {"litert", "DEPTHWISE_CONV_2D", "explained", "87-conv-fp32-requantization", NULL},
	        {"litert", "FULLY_CONNECTED", "explained", "87-conv-fp32-requantization", NULL}};
	check_stub("float_requant",
	           "specs/litert/conv_2d.yaml specs/litert/depthwise_conv_2d.yaml "
	           "specs/litert/fully_connected.yaml",
	           x, 3);
}

static void test_per_axis_ignored(void)
{
	static const expect x[] = {
	        {"litert", "DEQUANTIZE", "explained", "88-per-axis-channel-0", NULL},
	        {"litert", "CONV_2D", "explained", "89-conv-per-channel-scale-0", NULL}};
	check_stub("ignore_axis", "specs/litert/dequantize.yaml specs/litert/conv_2d.yaml", x, 2);
}

static void test_lowbit_and_torch_stubs(void)
{
	static const expect zp[] = {{"torch", "quantize_per_token", "explained",
	                             "90-per-token-zero-point-after-rounding", NULL}};
	check_stub("zp_after_round", "specs/torch/quantize_per_token.yaml", zp, 1);
	static const expect sat[] = {{"onnx", "QuantizeLinear", "explained",
	                              "91-float8-quantize-saturate-ignored", NULL}};
	check_stub("f8_no_saturate", "specs/onnx/quantize_linear_float8.yaml", sat, 1);
	static const expect sub[] = {{"onnx", "QuantizeLinear", "explained",
	                              "92-float8-quantize-subnormal-truncated", NULL}};
	check_stub("f8_subnormal_trunc", "specs/onnx/quantize_linear_float8.yaml", sub, 1);
	static const expect nib[] = {
	        {"ggml", "dequantize_row", "explained", "94-ggml-q4-0-read-nibbles-swapped", NULL},
	        {"ggml", "quantize_row", "explained", "95-ggml-q4-0-write-nibbles-swapped", NULL}};
	check_stub("ggml_q4_0_nibbles",
	           "specs/ggml/dequantize_row.yaml specs/ggml/quantize_row.yaml", nib, 2);
	static const expect nb[] = {
	        {"ort", "MatMulNBits", "explained", "96-matmul-nbits-default-zero-point-0", NULL}};
	check_stub("nbits_zero_default", "specs/ort/matmul_nbits_default_zp_sweep.yaml", nb, 1);
	/* the MX stub also moves the scale of blocks the variant leaves (a tiny maximum): the
	 * variant is still its best lead */
	static const expect mx[] = {
	        {"mx", "quantize_mx", "partly", "93-mx-shared-exponent-one-high", NULL}};
	check_stub("mx_scale_off_by_one", "specs/mx/quantize_mx.yaml", mx, 1);
	/* a named rounding of the reference is a hypothesis too */
	static const expect up[] = {{"torch", "fake_quantize_per_tensor_affine", "explained",
	                             "rounding:half_up", NULL}};
	check_stub("ties_half_up", "specs/torch/fake_quantize_per_tensor_affine.yaml", up, 1);
}

/* Bugs the catalogue does not hold: no rule is named as their cause, and where the wrong
 * elements lie is said instead. */
static void test_outside_the_catalogue(void)
{
	static const expect ch[] = {
	        {"litert", "CONV_2D", "unexplained", NULL, "index 3 along axis 3 of 4"}};
	check_stub("channel3", "specs/litert/conv_2d.yaml", ch, 1);
	static const expect lane[] = {
	        {"litert", "ADD", "unexplained", NULL, "a flat index of 2 modulo 5"}};
	check_stub("worse_add", "specs/litert/add.yaml", lane, 1);
}

/* A SIMD body in float32 with ties to even and a scalar tail as the reference: two rules, and
 * the tail's width. */
static void test_mixed_rules(void)
{
	static const expect x[] = {{"litert", "FULLY_CONNECTED", "mixed", NULL,
	                            "past the last multiple of 16 of the innermost dimension"}};
	check_stub("fp32_body_exact_tail", "suite/specs/diagnose/fc_ties.yaml", x, 1);
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	int status;
	json_t *r =
	        qct_run_report(tmp, &status, NULL, "suite/specs/diagnose/fc_ties.yaml --plugin %s",
	                       qct_stub("fp32_body_exact_tail"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *d = diagnosis_of(r, "litert", "FULLY_CONNECTED");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(d, "tail_width")), 16);
	CU_ASSERT_STRING_EQUAL(qct_str(json_object_get(d, "mixed_with"), "id"), "reference");
	/* the body's rule: ties to even, by a named rounding or the catalogue's fp32 variant */
	const char *b = best_id(d);
	CU_ASSERT(!strcmp(b, "rounding:half_even") || !strcmp(b, "87-conv-fp32-requantization"));
	json_decref(r);
	qct_rmdir(tmp);
}

/* The same cases, one job or two: the same diagnosis (the cases kept do not depend on the
 * order the jobs finish in). */
static void test_deterministic(void)
{
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	json_t *d[2] = {NULL, NULL}, *r[2];
	for (int k = 0; k < 2; k++) {
		int status;
		r[k] = qct_run_report(tmp, &status, NULL,
		                      "specs/litert/conv_2d.yaml --jobs %d --plugin %s", k + 1,
		                      qct_stub("ignore_axis"));
		CU_ASSERT_PTR_NOT_NULL_FATAL(r[k]);
		d[k] = diagnosis_of(r[k], "litert", "CONV_2D");
		CU_ASSERT_PTR_NOT_NULL(d[k]);
	}
	CU_ASSERT(d[0] && d[1] && json_equal(d[0], d[1]));
	json_decref(r[0]);
	json_decref(r[1]);
	/* --no-diagnose: none */
	int status;
	json_t *n = qct_run_report(tmp, &status, NULL,
	                           "specs/litert/conv_2d.yaml --no-diagnose --plugin %s",
	                           qct_stub("ignore_axis"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_PTR_NULL(diagnosis_of(n, "litert", "CONV_2D"));
	json_decref(n);
	qct_rmdir(tmp);
}

/* A kernel that passes: which rule it follows where the legal rules differ. */
static void test_datasheet(void)
{
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	int status;
	json_t *r = qct_run_report(tmp, &status, NULL, "specs/litert/conv_2d.yaml --plugin %s",
	                           qct_stub("single_rounding"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(status, 0);
	json_decref(r);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s diagnose %s/report.json --datasheet",
	                             qct_build_path("qconform"), tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	const char *line =
	        strstr(p.out, "where single [rounding:single] differs from the reference");
	if (!line)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_PTR_NOT_NULL(line);
	if (line) {
		unsigned long long n = 0, followed = 0;
		CU_ASSERT_EQUAL(sscanf(line,
		                       "where single [rounding:single] differs from the reference "
		                       "(%llu elements): the kernel follows it on %llu",
		                       &n, &followed),
		                2);
		CU_ASSERT(n > 0 && followed == n);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, "(100%)"));
		CU_ASSERT(strstr(line, "; allowed under the spec's tolerance.") <
		          strchr(line, '\n'));
	}
	qct_proc_free(&p);
	/* the reference itself: equal everywhere, following the default build where the
	 * builds differ */
	r = qct_run_report(tmp, &status, NULL, "specs/litert/conv_2d.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_decref(r);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s diagnose %s/report.json --datasheet",
	                             qct_build_path("qconform"), tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "litert/CONV_2D: 16 cases (16 passing, 0 failing): "
	                                     "the kernel equals the reference on every element."));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "the kernel follows it on 0 (0%)"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* qconform diagnose REPORT: the report's cases through the report's kernel; a plugin or a spec
 * changed since is refused (the cases or the kernel would not be the report's). */
static void test_diagnose_command(void)
{
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "cp %s %s/k.so && cp specs/litert/fully_connected.yaml %s/",
	                             qct_stub("float_requant"), tmp, tmp),
	                      0);
	qct_proc_free(&p);
	int status;
	json_t *r = qct_run_report(tmp, &status, NULL, "%s/fully_connected.yaml --plugin %s/k.so",
	                           tmp, tmp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *d = diagnosis_of(r, "litert", "FULLY_CONNECTED");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	char run_best[128];
	snprintf(run_best, sizeof run_best, "%s", best_id(d));
	json_decref(r);
	const char *q = qct_build_path("qconform");
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s diagnose %s/report.json --json %s/again.json", q, tmp, tmp), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "run again through"));
	qct_proc_free(&p);
	char again[600];
	snprintf(again, sizeof again, "%s/again.json", tmp);
	json_error_t e;
	json_t *a = json_load_file(again, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	qct_validate_report_later(again, "qconform diagnose --json");
	json_t *ad = diagnosis_of(a, "litert", "FULLY_CONNECTED");
	CU_ASSERT_PTR_NOT_NULL(ad);
	CU_ASSERT_STRING_EQUAL(ad ? best_id(ad) : "", run_best);
	json_decref(a);
	/* the spec changed: refused */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "echo '# changed' >> %s/fully_connected.yaml && "
	                             "%s diagnose %s/report.json",
	                             tmp, q, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "changed or missing since the report"));
	qct_proc_free(&p);
	/* the plugin changed: refused, unless --plugin names the one to diagnose */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "cp specs/litert/fully_connected.yaml %s/ && "
	                             "printf x >> %s/k.so && %s diagnose %s/report.json",
	                             tmp, tmp, q, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "has changed since the report"));
	qct_proc_free(&p);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s diagnose %s/report.json --plugin %s", q, tmp,
	                             qct_stub("float_requant")),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "[87-conv-fp32-requantization]"));
	qct_proc_free(&p);
	/* a forged report naming a FIFO as its plugin: refused at once, not blocked on */
	snprintf(again, sizeof again, "%s/report.json", tmp);
	json_t *forged = json_load_file(again, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(forged);
	char fifo[600], forged_path[600];
	snprintf(fifo, sizeof fifo, "%s/fifo", tmp);
	snprintf(forged_path, sizeof forged_path, "%s/forged.json", tmp);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	json_object_set_new(json_object_get(json_object_get(forged, "run"), "plugin"), "path",
	                    json_string(fifo));
	CU_ASSERT_EQUAL_FATAL(json_dump_file(forged, forged_path, 0), 0);
	json_decref(forged);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "timeout 60 %s diagnose %s", q, forged_path), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "FIFO"));
	qct_proc_free(&p);
	/* not a report: one line, exit 2 */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s diagnose %s/fully_connected.yaml", q, tmp), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* The input elements a case.yaml holds (the lengths of its data lists). */
static int yaml_values(const char *path)
{
	char *t = qct_read_file(path);
	if (!t)
		return -1;
	int n = 0;
	for (char *l = strstr(t, "data: ["); l; l = strstr(l + 1, "data: [")) {
		n++;
		for (char *p = l; *p && *p != ']'; p++)
			n += *p == ',';
	}
	free(t);
	return n;
}

/* qconform shrink: a failing CONV_2D case cut to one output element's receptive field, as a
 * spec that fails the same way and an export for the runner; a kernel that crashes on the
 * small cuts costs the tries, not the command; --max-calls bounds the kernel calls. */
static void test_shrink(void)
{
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	const char *q = qct_build_path("qconform");
	static const char name[] =
	        "litert/conv_2d/shape=[1;8;8;2],k=[1;1],cout=2,groups=1,pad=VALID,stride=[1;1],"
	        "dil=[1;1],act=NONE,s_in=0.5,zp_in=0,wq={axis:0;scales:[0.25;0.125];zero_points:[0;"
	        "0]},oq={scale:1.0;zero_point:3},wdt=int8,wmax=3,bmax=40/0";
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s shrink '%s' specs/litert/conv_2d.yaml --plugin %s --out %s/s", q,
	               name, qct_stub("float_requant"), tmp),
	        0);
	CU_ASSERT_EQUAL(p.status, 0);
	if (p.status)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "to 5 (5 not zero): its receptive field"));
	const char *rep = strstr(p.out, "reproduce: ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	char yaml[1024];
	CU_ASSERT_EQUAL_FATAL(sscanf(rep, "reproduce: %*s run '%1023[^']'", yaml), 1);
	qct_proc_free(&p);
	CU_ASSERT_EQUAL(yaml_values(yaml), 5);
	/* the shrunk case fails the same way, and the rule is still XNNPACK's */
	int status;
	json_t *r = qct_run_report(tmp, &status, NULL, "'%s' --plugin %s", yaml,
	                           qct_stub("float_requant"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(status, 1);
	json_t *d = diagnosis_of(r, "litert", "CONV_2D");
	CU_ASSERT_STRING_EQUAL(d ? best_id(d) : "", "87-conv-fp32-requantization");
	json_decref(r);
	/* the reference passes it; the export is there for the runner */
	r = qct_run_report(tmp, &status, NULL, "'%s'", yaml);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(status, 0);
	json_decref(r);
	char manifest[1100];
	snprintf(manifest, sizeof manifest, "%.1000s", yaml);
	char *slash = strrchr(manifest, '/');
	CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
	snprintf(slash, sizeof manifest - (size_t)(slash - manifest), "/export/manifest.qcm");
	CU_ASSERT_EQUAL(access(manifest, R_OK), 0);
	/* a crash on every cut of fewer than 4 elements: the element's cut costs a try, its row
	 * (5 elements) is kept */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s shrink 'litert/add/sh=[[3;1;5];[1;4;1];[3;4;5]],p=[0.05;0;"
	                             "0.05;0]/1' specs/litert/add.yaml --plugin %s --out %s/c "
	                             "--max-calls 12",
	                             q, qct_stub("crash_when_small"), tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	if (p.status)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	int calls = -1;
	const char *in = strstr(p.out, "kernel calls");
	for (const char *b = in; b && b > p.out && b[-1] != ' ';)
		b--;
	if (in) {
		const char *num = in - 2;
		while (num > p.out && num[-1] >= '0' && num[-1] <= '9')
			num--;
		calls = atoi(num);
	}
	CU_ASSERT(calls >= 1 && calls <= 12);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, ": its row of the last axis, in"));
	qct_proc_free(&p);
	/* run --shrink 1: the first FAIL case shrunk beside the report */
	int st;
	json_t *r2 =
	        qct_run_report(tmp, &st, NULL, "specs/litert/conv_2d.yaml --shrink 1 --plugin %s",
	                       qct_stub("float_requant"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r2);
	CU_ASSERT_EQUAL(st, 1);
	json_decref(r2);
	char index[700];
	snprintf(index, sizeof index, "%s/shrunk/index.txt", tmp);
	char *idx = qct_read_file(index);
	CU_ASSERT(idx && strstr(idx, "/shrunk -> ") && !strchr(strchr(idx, '\n') + 1, '\n'));
	free(idx);
	/* a case the kernel passes: nothing to shrink, exit 1 */
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s shrink '%s' specs/litert/conv_2d.yaml --out %s/n", q, name, tmp), 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "nothing to shrink"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* Elements that are legal roundings other than the answer, apart from those outside every
 * legal one: worst elements outside the band first, each with its legal outputs; the band's
 * own histogram; the HTML's two colours (suite/test_reports.c checks the page's structure). */
static void test_legal_apart(void)
{
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	int status;
	json_t *r = qct_run_report(tmp, &status, NULL,
	                           "specs/litert/conv_2d.yaml --plugin %s --html %s/r.html",
	                           qct_stub("float_requant"), tmp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	size_t i, mixed = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
		if (strcmp(qct_verdict(c), "FAIL") ||
		    !json_integer_value(json_object_get(o, "within_rounding")))
			continue;
		mixed++;
		/* the first worst element is outside the band; a legal one, if listed, after */
		json_t *w = json_object_get(o, "worst"), *e;
		size_t k;
		int seen_legal = 0, out_after_legal = 0;
		json_array_foreach(w, k, e)
		{
			double beyond = json_number_value(json_object_get(e, "beyond"));
			json_t *legal = json_object_get(e, "legal");
			CU_ASSERT_EQUAL(json_array_size(legal), 2);
			out_after_legal |= seen_legal && beyond != 0;
			seen_legal |= beyond == 0;
		}
		CU_ASSERT(json_number_value(json_object_get(json_array_get(w, 0), "beyond")) != 0);
		CU_ASSERT_FALSE(out_after_legal);
		/* of the histogram, the elements outside the band */
		json_t *h = json_object_get(o, "histogram"),
		       *ho = json_object_get(o, "histogram_outside_band");
		CU_ASSERT_PTR_NOT_NULL_FATAL(ho);
		json_int_t all = 0, out = 0;
		const char *key;
		json_t *v;
		json_object_foreach(h, key, v) all += strcmp(key, "0") ? json_integer_value(v) : 0;
		json_object_foreach(ho, key, v) out += json_integer_value(v);
		CU_ASSERT(out > 0 && out < all);
	}
	CU_ASSERT(mixed > 0);
	json_decref(r);
	char html[600];
	snprintf(html, sizeof html, "%s/r.html", tmp);
	char *page = qct_read_file(html);
	CU_ASSERT(page && strstr(page, "class=\"bar barl\"") && strstr(page, "<tr class=\"out\"") &&
	          strstr(page, "<tr class=\"legal\"") &&
	          strstr(page, "<th class=\"n\">legal outputs</th>"));
	free(page);
	qct_rmdir(tmp);
}

void qct_register_diagnose(void)
{
	CU_pSuite s = qct_suite("diagnose");
	CU_add_test(s, "XNNPACK's fp32 requantization named on the three conv ops",
	            test_float_requant);
	CU_add_test(s, "per-axis parameters ignored named on quantize and conv ops",
	            test_per_axis_ignored);
	CU_add_test(s, "the low-bit and torch stubs named as their bugs",
	            test_lowbit_and_torch_stubs);
	CU_add_test(s, "bugs outside the catalogue located, not misnamed",
	            test_outside_the_catalogue);
	CU_add_test(s, "a vector body and its scalar tail: two rules and the tail",
	            test_mixed_rules);
	CU_add_test(s, "the same diagnosis with one job or two; --no-diagnose", test_deterministic);
	CU_add_test(s, "a passing kernel's datasheet: the rounding it follows", test_datasheet);
	CU_add_test(s, "qconform diagnose REPORT: the report's kernel and specs only",
	            test_diagnose_command);
	CU_add_test(s, "qconform shrink: a receptive field, crashes survived, calls bounded",
	            test_shrink);
	CU_add_test(s, "legal roundings apart from the elements outside every legal one",
	            test_legal_apart);
}
