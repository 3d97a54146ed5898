/*
 * ONNX Runtime's pooling and concatenation ops (reference/ort_qlinear_pool.c): the reference
 * PASSes every case of their specs, ORT's goldens (specs/ort/imported) and the hand-written ones
 * (specs/ort/qlinear_*, nhwc_max_pool*), or refuses a negative case; the stub with one typical
 * mistake per op (suite/stubs/ort_pool_mistakes.c) FAILs the cases that expose each mistake, as
 * many as measured, and PASSes every case its mistake cannot reach.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

#define POOL_SPECS                                                                                 \
	"specs/ort --filter 'ort/qlinear_average_pool*' --filter "                                 \
	"'ort/qlinear_global_average_pool*' "                                                      \
	"--filter 'ort/qlinear_concat*' --filter 'ort/nhwc_max_pool*'"

static void test_reference_passes(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s", POOL_SPECS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	printf("\n  ort pooling and concat: %zu cases, %zu PASS, %zu EXPECTED_ERROR, %zu golden",
	       t.cases, t.pass, t.expected_error, t.golden);
	CU_ASSERT(t.golden >= 232 + 12);   /* ORT's, and the hand-worked ones */
	CU_ASSERT(t.expected_error >= 34); /* one per rule of the four kernels */
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Which op a case of the report belongs to, from its spec's file name. */
static int op_of(const char *spec)
{
	if (strstr(spec, "global_average_pool"))
		return 1;
	if (strstr(spec, "average_pool"))
		return 0;
	if (strstr(spec, "concat"))
		return 2;
	if (strstr(spec, "max_pool"))
		return 3;
	return -1;
}

/* Whether the op's mistake can reach the case (its name tells the parameters that matter). */
static int reachable(int op, const char *name, const char *spec)
{
	switch (op) {
	case 0: /* count_include_pad 1: the imported "cip1" and auto_pad cases, the sweep's cip:1 */
		return strstr(name, "cip1") || strstr(name, "cip:1") || strstr(name, "auto_pad") ||
		       strstr(name, "count_include_pad");
	case 1: /* an input zero point other than 0 */
		return !strstr(name, "qx={scale:0.02;zero_point:0}") && !strstr(name, "zp_0_");
	case 2: /* an input quantized otherwise than Y */ return !strstr(name, "same_params_copy");
	default: /* int8 */
		return strstr(spec, "int8") || strstr(name, "dtype=int8") || strstr(spec, "_cases");
	}
}

static void test_stub_mistakes(void)
{
	static const char *const ops[] = {"QLinearAveragePool", "QLinearGlobalAveragePool",
	                                  "QLinearConcat", "NhwcMaxPool"};
	/* measured: the cases each mistake changes */
	static const size_t want_fail[] = {78, 131, 231, 19};
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", POOL_SPECS,
	                           qct_stub("ort_pool_mistakes"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	size_t fail[4] = {0}, pass[4] = {0}, bad = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *spec = json_string_value(json_object_get(c, "spec"));
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *v = json_string_value(json_object_get(c, "verdict"));
		int op = spec ? op_of(spec) : -1;
		if (op < 0 || !name || !v) {
			bad++;
			continue;
		}
		if (!strcmp(v, "FAIL")) {
			fail[op]++;
			if (!reachable(op, name, spec)) {
				bad++;
				fprintf(stderr, "\n  %s FAILs though the mistake cannot reach it",
				        name);
			}
		} else if (!strcmp(v, "PASS") || !strcmp(v, "EXPECTED_ERROR")) {
			pass[op]++;
		} else {
			bad++;
			fprintf(stderr, "\n  %s: %s", name, v);
		}
	}
	for (int k = 0; k < 4; k++) {
		printf("\n  ort_pool_mistakes %s: %zu cases FAIL, %zu PASS", ops[k], fail[k],
		       pass[k]);
		CU_ASSERT_EQUAL(fail[k], want_fail[k]);
		CU_ASSERT(pass[k] > 0);
	}
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_ort_pool(void)
{
	CU_pSuite s = qct_suite("ort/pool");
	CU_add_test(s, "specs of the pooling and concat ops: PASS or EXPECTED_ERROR",
	            test_reference_passes);
	CU_add_test(s, "a stub with a mistake per op FAILs the cases that expose it",
	            test_stub_mistakes);
}
