/*
 * ONNX Runtime's QEmbedLayerNormalization (reference/ort_qembed.c): every spec of the op PASSes
 * against the reference (or is a negative case it refuses), ORT's goldens within the reference's
 * bands; the stub suite/stubs/ort_embed_mistakes.c, which reads gamma's and beta's zero points as
 * 0, FAILs exactly the cases where either is not 0 and PASSes the rest.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

#define SPECS "specs/ort/qembed_layer_norm*.yaml specs/ort/imported/qembed_layer_norm_*.yaml"

static void test_specs_pass(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, SPECS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	printf("\n  QEmbedLayerNormalization: %zu cases, %zu PASS, %zu EXPECTED_ERROR, %zu golden",
	       t.cases, t.pass, t.expected_error, t.golden);
	CU_ASSERT(t.golden >= 82 + 3);
	CU_ASSERT(t.expected_error >= 31);
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	json_decref(r);
	qct_rmdir(tmp);
}

/* the cases whose gamma and beta zero points are both 0: the imported zp0 kind, the sweep's and
 * the edges' uint8 cases with zero point 0 (the worked cases have beta's zero point 8) */
static int zero_points_zero(const char *name)
{
	return strstr(name, "/zp0_") != NULL || strstr(name, "t=uint8,zw=0,zg=0,") != NULL ||
	       strstr(name, "t=uint8,z=0,") != NULL;
}

static void test_stub_zero_points_ignored(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", SPECS,
	                           qct_stub("ort_embed_mistakes"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	size_t failed = 0, passed = 0, bad = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *v = json_string_value(json_object_get(c, "verdict"));
		if (!name || !v) {
			bad++;
			continue;
		}
		if (strcmp(v, "EXPECTED_ERROR") == 0)
			continue;
		int f = !zero_points_zero(name);
		f ? failed++ : passed++;
		if (strcmp(v, f ? "FAIL" : "PASS") != 0) {
			bad++;
			fprintf(stderr, "\n  %s: %s", name, v);
		}
	}
	printf("\n  QEmbedLayerNormalization gamma and beta zero points read as 0: %zu cases FAIL, "
	       "%zu PASS",
	       failed, passed);
	CU_ASSERT_EQUAL(failed, 131);
	CU_ASSERT_EQUAL(passed, 20);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_ort_embed(void)
{
	CU_pSuite s = qct_suite("ort/embed");
	CU_add_test(
	        s,
	        "QEmbedLayerNormalization: every spec PASS or EXPECTED_ERROR, ORT's goldens in the "
	        "bands",
	        test_specs_pass);
	CU_add_test(s,
	            "a QEmbedLayerNormalization reading gamma's and beta's zero points as 0 FAILs "
	            "exactly the cases where one is not 0",
	            test_stub_zero_points_ignored);
}
