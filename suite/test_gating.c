/*
 * CI gating: run --shard K/N and merge, diff and run --baseline, run --waivers
 * (harness/src/cmd/run.c, gate/merge.c, gate/diff.c, judge/waivers.c), end to end through the
 * qconform binary and its JSON reports (read back with jansson).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gate/diff.h"
#include "qct.h"

/* A small run with every unit: LSB outputs (litert ADD, SUB, MUL), outputs in steps of the
 * scale and negative cases (torch fake quantization). */
#define SPECS                                                                                      \
	"specs/litert/add.yaml specs/litert/sub.yaml specs/litert/mul.yaml "                       \
	"specs/torch/fake_quantize_per_tensor_affine.yaml"

static json_t *load(const char *dir, const char *file)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	json_error_t e;
	json_t *r = json_load_file(path, 0, &e);
	if (!r)
		fprintf(stderr, "\n%s: %s\n", path, e.text);
	return r;
}

/* Runs `qconform run SPECS ARGS --json DIR/FILE` (stdout to DIR/FILE.log); exit status. */
static int run_specs_to(const char *specs, const char *dir, const char *file, const char *args)
{
	qct_proc p;
	if (qct_sh(&p, "%s run %s --quiet %s --json %s/%s > %s/%s.log", qct_build_path("qconform"),
	           specs, args, dir, file, dir, file) != 0)
		return -1;
	int st = p.status;
	qct_proc_free(&p);
	return st;
}

static int run_to(const char *dir, const char *file, const char *args)
{
	return run_specs_to(SPECS, dir, file, args);
}

/* Lines of text holding needle. */
static size_t count_lines(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char buf[4096];
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1),
		         l);
		n += strstr(buf, needle) != NULL;
		l = end ? end + 1 : NULL;
	}
	return n;
}

static size_t lines(const char *text)
{
	size_t n = 0;
	for (const char *p = text; p && *p; p++)
		n += *p == '\n';
	return n;
}

/* ---- shards ---- */

/* --shard K/N splits the listed cases into N disjoint parts that together are the whole list;
 * a case stays in its shard when other specs join the run; bad K/N is a one-line usage error. */
static void test_shard_split(void)
{
	const char *tmp = qct_tmpdir();
	const char *q = qct_build_path("qconform");
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "D=%s; %s list %s > $D/all.txt && for k in 1 2 3 4; do %s list %s "
	                       "--shard $k/4 > $D/s$k.txt && %s list specs/litert/add.yaml --shard "
	                       "$k/4 > $D/add$k.txt || exit 9; done",
	                       tmp, q, SPECS, q, SPECS, q) == 0);
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	qct_proc_free(&p);
	/* the four shards together, sorted, are the whole list sorted: disjoint and complete */
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "cd %s && sort s1.txt s2.txt s3.txt s4.txt > u.txt && sort "
	                       "all.txt > a.txt && cmp u.txt a.txt && wc -l < all.txt",
	                       tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	long n_all = atol(p.out);
	CU_ASSERT(n_all > 500);
	qct_proc_free(&p);
	for (int k = 1; k <= 4; k++) {
		/* a hash of the name balances a few hundred cases to within a few tens */
		CU_ASSERT_FATAL(qct_sh(&p, "wc -l < %s/s%d.txt", tmp, k) == 0);
		CU_ASSERT(atol(p.out) > n_all / 8);
		qct_proc_free(&p);
		/* a case keeps its shard when other specs join the run */
		CU_ASSERT_FATAL(qct_sh(&p, "cd %s && grep '^litert/add/' s%d.txt | cmp - add%d.txt",
		                       tmp, k, k) == 0);
		CU_ASSERT_EQUAL(p.status, 0);
		qct_proc_free(&p);
	}

	static const char *const bad[] = {"0/4", "5/4", "1/0", "2", "a/b", "1/4x", "-1/4"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CU_ASSERT_FATAL(qct_sh(&p, "%s run %s --shard %s", q, SPECS, bad[i]) == 0);
		CU_ASSERT_EQUAL(p.status, 2);
		CU_ASSERT_EQUAL(lines(p.err), 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "--shard"));
		CU_ASSERT_EQUAL(p.out[0], 0);
		qct_proc_free(&p);
	}
	qct_rmdir(tmp);
}

/* Four shards run by GNU parallel, merged: case by case (ordinal, verdict, metrics,
 * histogram, worst elements) and op by op the unsharded run; the summary's counts too. */
static void check_merge_equals_single(const char *plugin_args, int want_status)
{
	const char *tmp = qct_tmpdir();
	const char *q = qct_build_path("qconform");
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "command -v parallel") == 0);
	if (p.status != 0)
		fprintf(stderr,
		        "\nGNU parallel is missing: apt-get install parallel (or make deps)\n");
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	qct_proc_free(&p);
	CU_ASSERT_EQUAL(run_to(tmp, "single.json", plugin_args), want_status);
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "parallel --will-cite --halt never '%s run %s --quiet %s --shard "
	                       "{}/4 --json %s/shard{}.json > %s/shard{}.log' ::: 1 2 3 4",
	                       q, SPECS, plugin_args, tmp, tmp) == 0);
	/* parallel's status: how many shards exited non-zero */
	CU_ASSERT(want_status == 0 ? p.status == 0 : p.status >= 1);
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s merge %s/shard1.json %s/shard2.json %s/shard3.json "
	                       "%s/shard4.json --json %s/merged.json",
	                       q, tmp, tmp, tmp, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, want_status);
	qct_proc_free(&p);
	char path[600];
	snprintf(path, sizeof path, "%s/merged.json", tmp);
	qct_validate_report_later(path, "merge of four shards");

	json_t *single = load(tmp, "single.json"), *merged = load(tmp, "merged.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(single);
	CU_ASSERT_PTR_NOT_NULL_FATAL(merged);
	json_t *sc = json_object_get(single, "cases"), *mc = json_object_get(merged, "cases");
	CU_ASSERT_EQUAL_FATAL(json_array_size(mc), json_array_size(sc));
	size_t differ = 0, failed = 0;
	for (size_t i = 0; i < json_array_size(sc); i++) {
		json_t *a = json_array_get(sc, i), *b = json_array_get(mc, i);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(a, "ordinal")), (json_int_t)i);
		const char *key;
		json_t *v;
		json_object_foreach(a, key, v)
		{
			if (!strcmp(key, "seconds"))
				continue; /* timing */
			if (!json_equal(v, json_object_get(b, key)) && differ++ < 3)
				fprintf(stderr, "\n  %s: %s differs after merge",
				        json_string_value(json_object_get(a, "name")), key);
		}
		failed += !strcmp(qct_verdict(b), "FAIL");
	}
	CU_ASSERT_EQUAL(differ, 0);
	CU_ASSERT(want_status == 0 ? failed == 0 : failed > 100);
	json_t *so = json_object_get(single, "ops"), *mo = json_object_get(merged, "ops");
	CU_ASSERT_EQUAL_FATAL(json_array_size(mo), json_array_size(so));
	for (size_t i = 0; i < json_array_size(so); i++) {
		json_t *a = json_array_get(so, i), *b = json_array_get(mo, i);
		static const char *const keys[] = {"semantics", "op", "cases", "verdicts",
		                                   "outputs"};
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (!json_equal(json_object_get(a, keys[k]), json_object_get(b, keys[k]))) {
				CU_FAIL("an op roll-up differs after merge");
				fprintf(stderr, "\n  op %s: %s differs after merge",
				        json_string_value(json_object_get(a, "op")), keys[k]);
			}
	}
	json_t *ss = json_object_get(single, "summary"), *ms = json_object_get(merged, "summary");
	static const char *const skeys[] = {"cases", "verdicts", "waived", "conforms"};
	for (size_t k = 0; k < sizeof skeys / sizeof skeys[0]; k++)
		CU_ASSERT(json_equal(json_object_get(ss, skeys[k]), json_object_get(ms, skeys[k])));
	CU_ASSERT(json_equal(json_object_get(json_object_get(single, "run"), "specs"),
	                     json_object_get(json_object_get(merged, "run"), "specs")));
	json_decref(single);
	json_decref(merged);
	qct_rmdir(tmp);
}

static void test_merge_reference(void)
{
	check_merge_equals_single("", 0);
}

static void test_merge_failing_stub(void)
{
	char args[600];
	snprintf(args, sizeof args, "--plugin %s", qct_stub("worse_add"));
	check_merge_equals_single(args, 1);
}

/* merge refuses, in one line and exit 2, what is not the shards of one run. */
static void test_merge_refuses(void)
{
	const char *tmp = qct_tmpdir();
	const char *q = qct_build_path("qconform");
	char args[600];
	for (int k = 1; k <= 3; k++) {
		char file[32];
		snprintf(file, sizeof file, "s%d.json", k);
		snprintf(args, sizeof args, "--shard %d/3", k);
		CU_ASSERT_EQUAL(run_to(tmp, file, args), 0);
	}
	CU_ASSERT_EQUAL(run_to(tmp, "seed.json", "--shard 3/3 --seed 7"), 0);
	snprintf(args, sizeof args, "--shard 3/3 --plugin %s", qct_stub("worse_add"));
	CU_ASSERT_EQUAL(run_to(tmp, "plugin.json", args), 1);
	CU_ASSERT_EQUAL(run_to(tmp, "four.json", "--shard 3/4"), 0);
	CU_ASSERT_EQUAL(run_to(tmp, "filter.json", "--shard 3/3 --filter 'litert/*'"), 0);
	CU_ASSERT_EQUAL(run_to(tmp, "opts.json", "--shard 3/3 --plugin-option rounding=double"), 0);
	/* the report names the options create() got (a oneDNN ISA, say) */
	json_t *opts = load(tmp, "opts.json");
	json_t *got =
	        json_object_get(json_object_get(json_object_get(opts, "run"), "plugin"), "options");
	CU_ASSERT_EQUAL(json_array_size(got), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(got, 0))
	                               ? json_string_value(json_array_get(got, 0))
	                               : "",
	                       "rounding=double");
	json_decref(opts);
	static const struct {
		const char *files, *says;
	} bad[] = {
	        {"s1 s2", "shard 3/3 is missing"},      {"s1 s2 s2 s3", "shard 2/3 given twice"},
	        {"s1 s2 seed", "another seed"},         {"s1 s2 plugin", "another plugin (sha256)"},
	        {"s1 s2 four", "another shard count"},  {"s1 s2 filter", "other filters"},
	        {"s1 s2 opts", "other plugin options"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char files[600] = "";
		char *save, *copy = strdup(bad[i].files);
		for (char *f = strtok_r(copy, " ", &save); f; f = strtok_r(NULL, " ", &save)) {
			size_t used = strlen(files);
			snprintf(files + used, sizeof files - used, " %s/%s.json", tmp, f);
		}
		free(copy);
		qct_proc p;
		CU_ASSERT_FATAL(qct_sh(&p, "%s merge %s --json %s/m.json", q, files, tmp) == 0);
		CU_ASSERT_EQUAL(p.status, 2);
		CU_ASSERT_EQUAL(lines(p.err), 1);
		if (!strstr(p.err, bad[i].says)) {
			CU_FAIL("merge refused for another reason");
			fprintf(stderr, "\n  merge%s: %s (want: %s)", files, p.err, bad[i].says);
		}
		qct_proc_free(&p);
	}
	/* the right three in any order merge */
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "%s merge %s/s3.json %s/s1.json %s/s2.json --json %s/m.json", q,
	                       tmp, tmp, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* ---- diff and --baseline ---- */

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* A stub worse on litert ADD only: diff names litert/ADD and exactly the cases whose errors
 * grew, nothing else; exit 1. The reverse diff lists improvements and exits 0. run
 * --baseline does the same comparison after the run. */
static void test_diff_names_the_worse_op(void)
{
	const char *tmp = qct_tmpdir();
	const char *q = qct_build_path("qconform");
	char args[600];
	CU_ASSERT_EQUAL(run_to(tmp, "ref.json", ""), 0);
	snprintf(args, sizeof args, "--plugin %s", qct_stub("worse_add"));
	CU_ASSERT_EQUAL(run_to(tmp, "worse.json", args), 1);
	json_t *worse = load(tmp, "worse.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(worse);
	/* the cases the stub changed: ADD outputs with a mismatch */
	size_t changed = 0;
	json_t *cases = json_object_get(worse, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
		if (json_integer_value(json_object_get(o, "mismatches")) > 0) {
			CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "op")), "ADD");
			changed++;
		}
	}
	CU_ASSERT(changed > 100);

	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "%s diff %s/ref.json %s/worse.json", q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	size_t regressions = count_lines(p.out, "regression  ");
	CU_ASSERT_EQUAL(regressions, changed + 1); /* the cases and the op roll-up */
	CU_ASSERT_EQUAL(count_lines(p.out, "regression  litert/ADD  litert/add/"), changed);
	CU_ASSERT_EQUAL(count_lines(p.out, "regression  litert/ADD  (op, 195 cases)"), 1);
	CU_ASSERT_EQUAL(count_lines(p.out, "improvement "), 0);
	CU_ASSERT_EQUAL(count_lines(p.out, "mismatches 0 -> "), changed + 1);
	CU_ASSERT_EQUAL(count_lines(p.out, "verdict PASS -> FAIL"), changed);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "regressions ("));
	for (size_t i = 0; i < json_array_size(cases); i++) {
		/* each changed case by name, on a line with its numbers */
		json_t *c = json_array_get(cases, i);
		json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
		if (json_integer_value(json_object_get(o, "mismatches")) > 0) {
			char want[1200];
			snprintf(want, sizeof want,
			         "%s: verdict PASS -> FAIL; output y: max|e| 0 -> 1",
			         json_string_value(json_object_get(c, "name")));
			CU_ASSERT_PTR_NOT_NULL(strstr(p.out, want));
		}
	}
	qct_proc_free(&p);

	CU_ASSERT_FATAL(qct_sh(&p, "%s diff %s/worse.json %s/ref.json", q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_EQUAL(count_lines(p.out, "regression  "), 0);
	CU_ASSERT_EQUAL(count_lines(p.out, "improvement litert/ADD"), changed + 1);
	qct_proc_free(&p);

	CU_ASSERT_FATAL(qct_sh(&p, "%s diff %s/ref.json %s/ref.json", q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_EQUAL(lines(p.out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "diff: 0 regressions"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\ncoverage lost: 0 cases\n"));
	qct_proc_free(&p);

	/* run --baseline: every verdict of the worse run on SUB is allowed, ADD regresses */
	snprintf(args, sizeof args, "--plugin %s --baseline %s/ref.json", qct_stub("worse_add"),
	         tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "again.json", args), 1);
	CU_ASSERT_EQUAL(run_to(tmp, "same.json", "--baseline ref.json"), 2); /* no such file */
	char base[600];
	snprintf(base, sizeof base, "--baseline %s/ref.json", tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "same.json", base), 0);
	/* every verdict allowed (the failures waived), the errors wider: still exit 1 */
	write_file(tmp, "w.yaml",
	           "qconform_waivers: 1\nwaivers:\n  - {case: 'litert/add/*', reason: known}\n");
	snprintf(args, sizeof args, "--plugin %s --waivers %s/w.yaml", qct_stub("worse_add"), tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "waived.json", args), 0);
	snprintf(args, sizeof args, "--plugin %s --waivers %s/w.yaml --baseline %s/ref.json",
	         qct_stub("worse_add"), tmp, tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "waived2.json", args), 1);
	json_decref(worse);

	/* the gate is "no new failure and nothing worse": the same failures as the baseline pass
	 * it (one verdict line, the gate's), an ADD failure the baseline lacks fails it */
	snprintf(args, sizeof args, "--plugin %s --baseline %s/worse.json", qct_stub("worse_add"),
	         tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "gate.json", args), 0);
	CU_ASSERT_FATAL(qct_sh(&p, "cat %s/gate.json.log", tmp) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "0 regressions"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "GATE PASSED against "));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "each failing in the baseline too"));
	CU_ASSERT_PTR_NULL(strstr(p.out, "CONFORMS"));
	qct_proc_free(&p);
	CU_ASSERT_EQUAL(run_to(tmp, "noadd.json", "--filter '-litert/add/*'"), 0);
	snprintf(args, sizeof args, "--plugin %s --baseline %s/noadd.json", qct_stub("worse_add"),
	         tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "gate2.json", args), 1);
	CU_ASSERT_FATAL(qct_sh(&p, "cat %s/gate2.json.log", tmp) == 0);
	CU_ASSERT_EQUAL(count_lines(p.out, ": new case, FAIL"), changed);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "GATE FAILED against "));
	qct_proc_free(&p);

	/* left out by NEW's --filter: coverage lost, unless accepted by name */
	CU_ASSERT_EQUAL(run_to(tmp, "nosub.json", "--filter '-litert/sub/*'"), 0);
	CU_ASSERT_FATAL(qct_sh(&p, "%s diff %s/ref.json %s/nosub.json", q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\ncoverage lost: 195 cases (litert/SUB 195)\n"));
	CU_ASSERT_EQUAL(count_lines(p.out, "coverage lost, left out by NEW's --filter"), 195);
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s diff %s/ref.json %s/nosub.json --allow-coverage-loss "
	                       "'litert/sub/*'",
	                       q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "coverage lost: 0 cases; 195 more accepted"));
	CU_ASSERT_EQUAL(count_lines(p.out, "accepted    litert/SUB"), 195);
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s run specs/litert/add.yaml --quiet --json %s/addonly.json "
	                       ">/dev/null && %s diff %s/ref.json %s/addonly.json",
	                       q, tmp, q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_EQUAL(count_lines(p.out, "case gone"), 781 - 195);
	qct_proc_free(&p);

	CU_ASSERT_EQUAL(run_to(tmp, "seed.json", "--seed 9"), 0);
	CU_ASSERT_FATAL(qct_sh(&p, "%s diff %s/ref.json %s/seed.json", q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "seeds"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* The noise rule: bias and MSE count only beyond 1e-6 relative + 1e-9 absolute; max |e| and
 * mismatches count at any increase. */
static json_t *one_case(const char *verdict, double max_abs, int mismatches, double bias,
                        double mse)
{
	return json_pack("{s:{s:i, s:[]}, s:[{s:s, s:s, s:s, s:s, s:[{s:s, s:f, s:i, s:f, s:f}]}], "
	                 "s:[]}",
	                 "run", "seed", 0, "filters", "cases", "name", "litert/x/0", "semantics",
	                 "litert", "op", "X", "verdict", verdict, "outputs", "name", "y", "max_abs",
	                 max_abs, "mismatches", mismatches, "bias", bias, "mse", mse, "ops");
}

static void test_diff_noise(void)
{
	static const struct {
		double max_abs;
		int mismatches;
		double bias, mse;
		int regressions, improvements;
	} t[] = {
	        {1, 10, 0.25, 0.5, 0, 0},                   /* the same */
	        {1, 10, 0.25 * (1 + 1e-9), 0.5, 0, 0},      /* summation order */
	        {1, 10, 0.25, 0.5 + 1e-10, 0, 0},           /* below the absolute epsilon */
	        {1, 10, -0.25 * (1 + 1e-9), 0.5, 0, 0},     /* |bias| compared */
	        {1, 10, 0.25 * (1 + 1e-5), 0.5, 1, 0},      /* beyond noise */
	        {1, 10, 0.25, 0.5 * (1 + 1e-5), 1, 0},      /* MSE beyond noise */
	        {1, 11, 0.25, 0.5, 1, 0},                   /* one more mismatch */
	        {2, 10, 0.25, 0.5, 1, 0},                   /* wider */
	        {1, 9, 0.25 * (1 - 1e-3), 0.5, 0, 1},       /* better */
	        {1, 11, 0.25 * (1 - 1e-3), 0.5 * 0.9, 1, 0} /* worse wins over better */
	};
	json_t *base = one_case("PASS_WITHIN_TOLERANCE", 1, 10, 0.25, 0.5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(base);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		json_t *cur = one_case("PASS_WITHIN_TOLERANCE", t[i].max_abs, t[i].mismatches,
		                       t[i].bias, t[i].mse);
		qc_diff_counts n;
		char err[256];
		FILE *out = fopen("/dev/null", "w");
		qc_report *rb = qc_report_of(base), *rc = qc_report_of(cur);
		CU_ASSERT_EQUAL(qc_diff_reports(rb, rc, NULL, out, &n, err, sizeof err), 0);
		qc_report_close(rb);
		qc_report_close(rc);
		fclose(out);
		if (n.regressions != (uint64_t)t[i].regressions ||
		    n.improvements != (uint64_t)t[i].improvements) {
			CU_FAIL("diff's noise rule");
			fprintf(stderr, "\n  row %zu: %llu regressions, %llu improvements", i,
			        (unsigned long long)n.regressions,
			        (unsigned long long)n.improvements);
		}
		json_decref(cur);
	}
	/* a verdict that stops being allowed is a regression whatever the numbers */
	json_t *cur = one_case("FAIL", 1, 10, 0.25, 0.5);
	qc_diff_counts n;
	char err[256];
	FILE *out = fopen("/dev/null", "w");
	qc_report *rb = qc_report_of(base), *rc = qc_report_of(cur);
	CU_ASSERT_EQUAL(qc_diff_reports(rb, rc, NULL, out, &n, err, sizeof err), 0);
	qc_report_close(rb);
	qc_report_close(rc);
	fclose(out);
	CU_ASSERT_EQUAL(n.regressions, 1);
	json_decref(cur);
	json_decref(base);
}

/* ---- waivers ---- */

/* A waived failure keeps its verdict, is marked with the reason and counts as allowed; every
 * waiver is listed with its counts; an unused one is reported; an expired one waives nothing
 * and fails the run with a line saying which and since when. */
static void test_waivers(void)
{
	const char *tmp = qct_tmpdir();
	char args[1200];
	write_file(tmp, "ok.yaml",
	           "qconform_waivers: 1\n"
	           "waivers:\n"
	           "  - case: 'litert/add/*'\n"
	           "    reason: lane 2 offset, vendor bug 1234\n"
	           "    expires: 2999-12-31\n"
	           "  - case: 'litert/nothing/*'\n"
	           "    reason: never matches\n");
	snprintf(args, sizeof args, "--plugin %s --waivers %s/ok.yaml", qct_stub("worse_add"), tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "w.json", args), 0);
	json_t *r = load(tmp, "w.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *cases = json_object_get(r, "cases");
	size_t fails = 0, waived = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		int fail = !strcmp(qct_verdict(c), "FAIL");
		const char *why = json_string_value(json_object_get(c, "waived"));
		fails += fail;
		waived += why != NULL;
		CU_ASSERT_EQUAL(fail, why != NULL);
		if (why)
			CU_ASSERT_STRING_EQUAL(why, "lane 2 offset, vendor bug 1234");
	}
	CU_ASSERT(fails > 100);
	json_t *sum = json_object_get(r, "summary");
	CU_ASSERT_EQUAL((size_t)json_integer_value(json_object_get(sum, "waived")), waived);
	CU_ASSERT(json_is_true(json_object_get(sum, "conforms")));
	json_t *ws = json_object_get(r, "waivers");
	CU_ASSERT_EQUAL_FATAL(json_array_size(ws), 2);
	json_t *w0 = json_array_get(ws, 0), *w1 = json_array_get(ws, 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(w0, "matched")), 195);
	CU_ASSERT_EQUAL((size_t)json_integer_value(json_object_get(w0, "applied")), fails);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(w0, "expires")), "2999-12-31");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(w1, "matched")), 0);
	CU_ASSERT(json_is_null(json_object_get(w1, "expires")));
	json_decref(r);
	char log[600];
	snprintf(log, sizeof log, "cat %s/w.json.log", tmp);
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "%s", log) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "waiver unused: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "'litert/nothing/*' matches no case"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "CONFORMS with waivers: "));
	CU_ASSERT_PTR_NULL(strstr(p.out, "DOES NOT CONFORM"));
	qct_proc_free(&p);

	/* expired: the run fails even though the reference passes everything */
	write_file(tmp, "old.yaml",
	           "qconform_waivers: 1\n"
	           "waivers:\n"
	           "  - case: 'litert/add/*'\n"
	           "    reason: old bug\n"
	           "    expires: 2020-02-28\n");
	snprintf(args, sizeof args, "--waivers %s/old.yaml", tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "old.json", args), 1);
	CU_ASSERT_FATAL(qct_sh(&p, "cat %s/old.json.log", tmp) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "old.yaml:3: 'litert/add/*' (old bug) held until "
	                                     "2020-02-28: expired since 2020-02-29"));
	qct_proc_free(&p);
	r = load(tmp, "old.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT(json_is_true(
	        json_object_get(json_array_get(json_object_get(r, "waivers"), 0), "expired")));
	CU_ASSERT(json_is_false(json_object_get(json_object_get(r, "summary"), "conforms")));
	json_decref(r);
	/* an expired waiver waives nothing */
	snprintf(args, sizeof args, "--plugin %s --waivers %s/old.yaml", qct_stub("worse_add"),
	         tmp);
	CU_ASSERT_EQUAL(run_to(tmp, "old2.json", args), 1);
	r = load(tmp, "old2.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(
	        json_integer_value(json_object_get(json_object_get(r, "summary"), "waived")), 0);
	json_decref(r);

	/* errors as file:line:col: message, nothing run */
	write_file(tmp, "bad.yaml",
	           "qconform_waivers: 1\n"
	           "waivers:\n"
	           "  - case: 'a/*'\n"
	           "    reason: x\n"
	           "    expires: 2025-02-30\n"
	           "  - case: 'b/*'\n"
	           "  - case: 'c'\n"
	           "    reason: y\n"
	           "    until: 2025-01-01\n");
	CU_ASSERT_FATAL(qct_sh(&p, "%s run %s --waivers %s/bad.yaml", qct_build_path("qconform"),
	                       SPECS, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "bad.yaml:5:14: 'expires' must be a date YYYY-MM-DD"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "bad.yaml:6:5: a waiver needs a 'reason'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "bad.yaml:9:5: unknown key 'until'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "nothing was run"));
	CU_ASSERT_PTR_NULL(strstr(p.out, "cases from"));
	qct_proc_free(&p);

	/* shards with waivers merge: counts add up */
	snprintf(args, sizeof args,
	         "parallel --will-cite --halt never '%s run %s --quiet --plugin %s --waivers "
	         "%s/ok.yaml --shard {}/2 --json %s/ws{}.json > /dev/null' ::: 1 2 && %s merge "
	         "%s/ws1.json %s/ws2.json --json %s/wm.json",
	         qct_build_path("qconform"), SPECS, qct_stub("worse_add"), tmp, tmp,
	         qct_build_path("qconform"), tmp, tmp, tmp);
	CU_ASSERT_FATAL(qct_sh(&p, "%s", args) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	r = load(tmp, "wm.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL((size_t)json_integer_value(json_object_get(
	                        json_array_get(json_object_get(r, "waivers"), 0), "applied")),
	                fails);
	CU_ASSERT_EQUAL((size_t)json_integer_value(
	                        json_object_get(json_object_get(r, "summary"), "waived")),
	                fails);
	json_decref(r);
	qct_rmdir(tmp);
}

/* --case NAME keeps exactly the cases so named, '[' and all (a --filter glob of the same name
 * matches nothing); a name that selects nothing is an error; the run's report says which;
 * the reproduce command of a failing case is such a command and runs that case alone. */
static void test_case_names(void)
{
	const char *q = qct_build_path("qconform");
	const char *name = "litert/add/sh=[[];[7];[7]],p=[0.05;0;0.05;0]/1";
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "%s list specs/litert/add.yaml --case '%s' --case '%s'", q, name,
	                       "litert/add/sh=[[];[7];[7]],p=[0.05;0;0.05;0]/2") == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_EQUAL(lines(p.out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, name));
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p, "%s list specs/litert/add.yaml --filter '%s'", q, name) == 0);
	CU_ASSERT_EQUAL(lines(p.out), 0); /* the brackets are a glob's character class */
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p, "%s run specs/litert/add.yaml --case 'litert/add/nope' --quiet",
	                       q) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "--case: no case of the selected specs is named "
	                                     "'litert/add/nope'"));
	qct_proc_free(&p);

	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml --plugin %s",
	                           qct_stub("worse_add"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases"), *fail = NULL;
	for (size_t i = 0; i < json_array_size(cases) && !fail; i++)
		if (!strcmp(qct_verdict(json_array_get(cases, i)), "FAIL"))
			fail = json_array_get(cases, i);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fail);
	const char *cmd = qct_str(fail, "reproduce");
	char want[200];
	snprintf(want, sizeof want, "%s run 'specs/litert/add.yaml' --seed 0 --plugin ", q);
	CU_ASSERT_EQUAL(strncmp(cmd, want, strlen(want)), 0);
	CU_ASSERT_FATAL(qct_sh(&p, "%s --quiet --json %s/one.json", cmd, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	qct_proc_free(&p);
	json_t *one = load(tmp, "one.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(one);
	json_t *oc = json_object_get(one, "cases");
	CU_ASSERT_EQUAL_FATAL(json_array_size(oc), 1);
	CU_ASSERT_STRING_EQUAL(qct_str(json_array_get(oc, 0), "name"), qct_str(fail, "name"));
	CU_ASSERT_STRING_EQUAL(qct_verdict(json_array_get(oc, 0)), "FAIL");
	json_t *names = json_object_get(json_object_get(one, "run"), "case_names");
	CU_ASSERT_EQUAL(json_array_size(names), 1);
	json_decref(one);
	/* as it is, it writes no report: the default one of its plugin is left as it was */
	struct stat before, after;
	const char *dflt = "reports/out/worse_add/report.json";
	int had = stat(dflt, &before) == 0;
	CU_ASSERT_FATAL(qct_sh(&p, "%s", cmd) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "report: none written (--no-reports)"));
	CU_ASSERT_EQUAL(stat(dflt, &after) == 0, had);
	if (had)
		CU_ASSERT_TRUE(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
		               before.st_mtim.tv_nsec == after.st_mtim.tv_nsec &&
		               before.st_size == after.st_size);
	qct_proc_free(&p);
	json_decref(r);
	qct_rmdir(tmp);
}

/*
 * Lost coverage is a regression (harness/src/gate/diff.c): a kernel that stops taking one op
 * fails --baseline with a gate line naming the op and the count, diff counts it on a line of its
 * own, a FAIL the kernel now refuses is no improvement, and --allow-coverage-loss accepts what it
 * names, listed. A run that judged nothing, or a profile whose required op the kernel refused
 * whole, does not conform.
 */
static void test_coverage_loss(void)
{
#define ADD_SUB "specs/litert/add.yaml specs/litert/sub.yaml"
	char q[1024]; /* qct_build_path's buffers are reused by qct_stub */
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	const char *tmp = qct_tmpdir();
	char args[1200];
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(run_specs_to(ADD_SUB, tmp, "ref.json", ""), 0);
	snprintf(args, sizeof args, "--plugin %s --baseline %s/ref.json", qct_stub("loses_add"),
	         tmp);
	CU_ASSERT_EQUAL(run_specs_to(ADD_SUB, tmp, "lost.json", args), 1);
	CU_ASSERT_FATAL(qct_sh(&p, "cat %s/lost.json.log", tmp) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\ncoverage lost: 195 cases (litert/ADD 195)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "GATE FAILED against "));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "195 regressions, 195 of them coverage lost: "
	                                     "litert/ADD 195"));
	CU_ASSERT_EQUAL(count_lines(p.out, ": coverage lost, verdict PASS -> NOT_SUPPORTED"), 195);
	qct_proc_free(&p);
	/* diff, both ways: the loss is its own count; regaining the op is an improvement */
	CU_ASSERT_FATAL(qct_sh(&p, "%s diff %s/ref.json %s/lost.json", q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\ncoverage lost: 195 cases (litert/ADD 195)\n"));
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p, "%s diff %s/lost.json %s/ref.json", q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_EQUAL(count_lines(p.out, "coverage gained, verdict NOT_SUPPORTED -> PASS"), 195);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\ncoverage lost: 0 cases\n"));
	qct_proc_free(&p);
	/* a FAIL the kernel now refuses: coverage lost, not an improvement */
	snprintf(args, sizeof args, "--plugin %s", qct_stub("worse_add"));
	CU_ASSERT_EQUAL(run_specs_to(ADD_SUB, tmp, "worse.json", args), 1);
	CU_ASSERT_FATAL(qct_sh(&p, "%s diff %s/worse.json %s/lost.json", q, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_EQUAL(count_lines(p.out, "improvement "), 0);
	CU_ASSERT_TRUE(count_lines(p.out, "coverage lost, verdict FAIL -> NOT_SUPPORTED") > 0);
	qct_proc_free(&p);
	/* accepted by name: listed, counted, the gate passes */
	snprintf(args, sizeof args,
	         "--plugin %s --baseline %s/ref.json --allow-coverage-loss 'litert/add/*'",
	         qct_stub("loses_add"), tmp);
	CU_ASSERT_EQUAL(run_specs_to(ADD_SUB, tmp, "accepted.json", args), 0);
	CU_ASSERT_FATAL(qct_sh(&p, "cat %s/accepted.json.log", tmp) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "coverage lost: 0 cases; 195 more accepted"));
	CU_ASSERT_EQUAL(count_lines(p.out, "accepted    litert/ADD"), 195);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "GATE PASSED against "));
	qct_proc_free(&p);
	/* a glob that names another op accepts nothing of ADD's */
	snprintf(args, sizeof args,
	         "--plugin %s --baseline %s/ref.json --allow-coverage-loss 'litert/sub/*'",
	         qct_stub("loses_add"), tmp);
	CU_ASSERT_EQUAL(run_specs_to(ADD_SUB, tmp, "other.json", args), 1);
	CU_ASSERT_EQUAL(run_specs_to(ADD_SUB, tmp, "nobase.json", "--allow-coverage-loss '*'"), 2);

	/* nothing judged is not conformance, with or without a baseline */
	snprintf(args, sizeof args, "--plugin %s", qct_stub("supports_nothing"));
	CU_ASSERT_EQUAL(run_specs_to(ADD_SUB, tmp, "nothing.json", args), 1);
	CU_ASSERT_FATAL(qct_sh(&p, "cat %s/nothing.json.log", tmp) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "NOTHING VERIFIED: the kernel refused (NOT_SUPPORTED) "
	                                     "every one of the "));
	CU_ASSERT_PTR_NULL(strstr(p.out, "CONFORMS"));
	qct_proc_free(&p);
	snprintf(args, sizeof args, "--plugin %s --baseline %s/nothing.json",
	         qct_stub("supports_nothing"), tmp);
	CU_ASSERT_EQUAL(run_specs_to(ADD_SUB, tmp, "nothing2.json", args),
	                1); /* no regression, nothing judged */
	CU_ASSERT_FATAL(qct_sh(&p, "cat %s/nothing2.json.log", tmp) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "GATE FAILED against "));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, ": NOTHING VERIFIED, the kernel refused"));
	qct_proc_free(&p);
	/* a profile's required op refused whole: named on the verdict line (certify refuses it) */
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s run --profile litert-int8 --filter 'litert/add/*' --filter "
	                       "'litert/sub/*' --quiet --no-reports --plugin %s",
	                       q, qct_stub("loses_add")) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "CONFORMS: 390 cases, every verdict allowed, 195 "
	                                     "refused (NOT_SUPPORTED); profile litert-int8: 1 of "
	                                     "2 required ops refused whole: litert/ADD (195 "
	                                     "cases)\n"));
	qct_proc_free(&p);
	/* ... every one of them: not CONFORMS */
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s run --profile litert-int8 --filter 'litert/add/*' --quiet "
	                       "--no-reports --plugin %s",
	                       q, qct_stub("loses_add")) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "NOTHING VERIFIED: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "profile litert-int8: 1 of 1 required op refused "
	                                     "whole: litert/ADD (195 cases)"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/*
 * A waiver file of 200,000 waivers and one glob waived twice at its end: the duplicate is found,
 * named with both lines, and the run refused (exit 2) at once: the check is linear (it took a
 * minute when each waiver was compared with every one before it; a second now). The bound
 * below is generous, 30 times what it takes.
 */
static void test_many_waivers(void)
{
	const char *tmp = qct_tmpdir();
	char path[700];
	snprintf(path, sizeof path, "%s/many.yaml", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("qconform_waivers: 1\nwaivers:\n", f);
	for (int i = 0; i < 200000; i++)
		fprintf(f, "  - {case: \"litert/x/%d\", reason: r}\n", i);
	fputs("  - {case: \"litert/x/7\", reason: r}\n", f);
	fclose(f);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p,
	               "timeout 30 %s run specs/litert/dequantize.yaml --waivers '%s' "
	               "--json '%s/r.json'",
	               qct_build_path("qconform"), path, tmp),
	        0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "case 'litert/x/7' is waived twice (line 10)"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

void qct_register_gating(void)
{
	CU_pSuite s = qct_suite("gating");
	CU_add_test(s, "--shard K/N splits the cases, stably", test_shard_split);
	CU_add_test(s, "4 shards by GNU parallel, merged = the single run", test_merge_reference);
	CU_add_test(s, "... with FAILs (worse_add stub)", test_merge_failing_stub);
	CU_add_test(s, "merge refuses what is not one run's shards", test_merge_refuses);
	CU_add_test(s, "diff names litert ADD and its cases, nothing else",
	            test_diff_names_the_worse_op);
	CU_add_test(s, "diff: the noise rule", test_diff_noise);
	CU_add_test(s, "waivers: waived, unused, expired, errors", test_waivers);
	CU_add_test(s, "--case: exact names; reproduce commands run their case", test_case_names);
	CU_add_test(s, "lost coverage fails the gate; nothing judged is not CONFORMS",
	            test_coverage_loss);
	CU_add_test(s, "200,000 waivers: a duplicate found in linear time", test_many_waivers);
}
