/*
 * ONNX Runtime's QEmbedLayerNormalization (reference/ort_qembed.c): every spec of the op PASSes
 * against the reference (or is a negative case it refuses), ORT's goldens within the reference's
 * bands; the stub suite/stubs/ort_embed_mistakes.c, which reads gamma's and beta's zero points as
 * 0, FAILs exactly the cases where either is not 0 and PASSes the rest; the stub
 * suite/stubs/ort_embed_fused.c, another legal float32 evaluation, PASSes every case.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

#define SPECS "specs/ort/qembed_layer_norm*.yaml specs/ort/imported/qembed_layer_norm_*.yaml"

static void test_specs_pass(void)
{
	qct_specs_conform("QEmbedLayerNormalization", SPECS, 82 + 3, 31);
}

/* every case but those whose gamma and beta zero points are both 0: the imported zp0 kind, the
 * sweep's and the edges' uint8 cases with zero point 0 (the worked cases have beta's zero point
 * 8) */
static int zero_point_not_zero(const char *spec, const char *name)
{
	(void)spec;
	return strstr(name, "/zp0_") == NULL && strstr(name, "t=uint8,zw=0,zg=0,") == NULL &&
	       strstr(name, "t=uint8,z=0,") == NULL;
}

/* qct_stub_verdicts: every FAIL has a zero point not 0 and every other case PASSes; with the
 * counts, every case with one FAILs */
static void test_stub_zero_points_ignored(void)
{
	static const char *const must[] = {"worked_place_not_id", "zp_ends_", "t=int8,zw=0,", NULL};
	size_t passed, failed = qct_stub_verdicts(SPECS, "ort_embed_mistakes", zero_point_not_zero,
	                                          must, &passed);
	printf("\n  QEmbedLayerNormalization gamma and beta zero points read as 0: %zu cases FAIL, "
	       "%zu PASS",
	       failed, passed);
	CU_ASSERT_EQUAL(failed, 131);
	CU_ASSERT_EQUAL(passed, 20);
}

/* another legal float32 evaluation (suite/stubs/ort_embed_fused.c: fused, four partial sums, a
 * reciprocal; it differs from ORT 1.30's outputs in 15487 of the 24016 imported elements,
 * measured) stays in every band: every case PASSes or is refused */
static void test_stub_fused_conforms(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", SPECS,
	                           qct_stub("ort_embed_fused"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	printf("\n  QEmbedLayerNormalization fused, in 4 lanes: %zu cases, %zu PASS", t.cases,
	       t.pass);
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	CU_ASSERT(t.pass >= 151);
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
	CU_add_test(s,
	            "a QEmbedLayerNormalization fused and summed in four lanes stays in the bands",
	            test_stub_fused_conforms);
}
