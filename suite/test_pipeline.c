/*
 * The run's pipeline (harness/src/pipeline/jobs.c, cmd/run.c): the job threads expand, compute the
 * reference's answer, run and judge; the main thread reports in order. Whatever the number of
 * jobs and however the run is sharded, the report holds the same cases in the same order with
 * the same bytes (timings aside).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qct.h"

/* The whole suite in the plain pass; under the sanitizers (minutes per run) a part of it that
 * still has sweeps, explicit and golden cases, custom checks and negative cases. */
static const char *specs(void)
{
	return qct_under_sanitizers() ? "specs/torch specs/tf" : "specs";
}

/* The report's case lines with their timing removed: one case object a line, as written. */
static char *case_lines(const char *tmp, const char *report)
{
	qct_proc p;
	if (qct_sh(&p,
	           "grep '^ {\"name\"' %s/%s | sed 's/\"seconds\": [-+.0-9eE]*,//' > "
	           "%s/%s.cases && wc -l < %s/%s.cases",
	           tmp, report, tmp, report, tmp, report) != 0)
		return NULL;
	char *n = p.status == 0 ? strdup(p.out) : NULL;
	qct_proc_free(&p);
	return n;
}

static void test_jobs_and_shards_give_one_report(void)
{
	const char *tmp = qct_tmpdir();
	const char *q = qct_build_path("qconform");
	qct_proc p;
	/* --jobs 1 over specs/ is the run suite's reference run too: made once (qct_run_shared) */
	int st;
	const char *j1;
	json_t *r1 = qct_run_shared(&st, NULL, &j1, "%s --jobs 1", specs());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
	json_decref(r1);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_FATAL(qct_sh(&p, "cp '%s' %s/j1.json", j1, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	CU_ASSERT_FATAL(
	        qct_sh(&p, "%s run %s --quiet --jobs 2 --json %s/j2.json", q, specs(), tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	for (int k = 1; k <= 4; k++) {
		CU_ASSERT_FATAL(qct_sh(&p,
		                       "%s run %s --quiet --jobs 2 --shard %d/4 --json %s/s%d.json",
		                       q, specs(), k, tmp, k) == 0);
		CU_ASSERT_EQUAL(p.status, 0);
		qct_proc_free(&p);
	}
	CU_ASSERT_FATAL(
	        qct_sh(&p, "%s merge %s/s1.json %s/s2.json %s/s3.json %s/s4.json --json %s/m.json",
	               q, tmp, tmp, tmp, tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);

	/* --jobs 1 and --jobs 2: the same case objects, byte for byte, in the same order */
	char *n1 = case_lines(tmp, "j1.json"), *n2 = case_lines(tmp, "j2.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(n1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n2);
	CU_ASSERT(atol(n1) > 1000 || qct_under_sanitizers());
	CU_ASSERT_STRING_EQUAL(n1, n2);
	free(n1);
	free(n2);
	CU_ASSERT_FATAL(qct_sh(&p, "cmp %s/j1.json.cases %s/j2.json.cases", tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	if (p.status)
		fprintf(stderr, "\n  --jobs 1 and --jobs 2 differ: %s", p.out);
	qct_proc_free(&p);
	/* the op roll-ups and the summary's counts too */
	json_error_t e;
	char path[600];
	snprintf(path, sizeof path, "%s/j1.json", tmp);
	json_t *a = json_load_file(path, 0, &e);
	snprintf(path, sizeof path, "%s/j2.json", tmp);
	json_t *b = json_load_file(path, 0, &e);
	snprintf(path, sizeof path, "%s/m.json", tmp);
	json_t *m = json_load_file(path, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	static const char *const op_keys[] = {"semantics", "op", "cases", "verdicts", "outputs"};
	json_t *oa = json_object_get(a, "ops"), *ob = json_object_get(b, "ops"),
	       *om = json_object_get(m, "ops");
	CU_ASSERT_EQUAL_FATAL(json_array_size(oa), json_array_size(ob));
	CU_ASSERT_EQUAL_FATAL(json_array_size(oa), json_array_size(om));
	for (size_t i = 0; i < json_array_size(oa); i++)
		for (size_t k = 0; k < sizeof op_keys / sizeof op_keys[0]; k++) {
			json_t *x = json_object_get(json_array_get(oa, i), op_keys[k]);
			CU_ASSERT(
			        json_equal(x, json_object_get(json_array_get(ob, i), op_keys[k])));
			CU_ASSERT(
			        json_equal(x, json_object_get(json_array_get(om, i), op_keys[k])));
		}
	/* four shards merged: the unsharded run's cases, each as that run wrote it */
	json_t *ca = json_object_get(a, "cases"), *cm = json_object_get(m, "cases");
	CU_ASSERT_EQUAL_FATAL(json_array_size(ca), json_array_size(cm));
	size_t differ = 0;
	for (size_t i = 0; i < json_array_size(ca); i++) {
		json_t *x = json_array_get(ca, i), *y = json_array_get(cm, i);
		const char *key;
		json_t *v;
		json_object_foreach(x, key, v)
		{
			if (strcmp(key, "seconds") && !json_equal(v, json_object_get(y, key)) &&
			    differ++ < 3)
				fprintf(stderr, "\n  %s: %s differs in the merged shards",
				        json_string_value(json_object_get(x, "name")), key);
		}
		if (json_object_size(x) != json_object_size(y))
			differ++;
	}
	CU_ASSERT_EQUAL(differ, 0);
	json_decref(a);
	json_decref(b);
	json_decref(m);
	qct_rmdir(tmp);
}

void qct_register_pipeline(void)
{
	CU_pSuite s = qct_suite("pipeline");
	CU_add_test(s, "--jobs 1, --jobs 2 and four shards merged give one report",
	            test_jobs_and_shards_give_one_report);
}
