/*
 * ONNX Runtime's QAttention (reference/ort_qattention.c): every spec of the op PASSes against the
 * reference (or is a negative case it refuses), ORT's goldens within the reference's bands; the
 * stub suite/stubs/ort_attention_mistakes.c, which ignores mask_index, FAILs the cases whose mask
 * masks a key and PASSes the rest.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

#define SPECS "specs/ort/qattention*.yaml specs/ort/imported/qattention_*.yaml"

static void test_specs_pass(void)
{
	qct_specs_conform("QAttention", SPECS, 62 + 6, 20);
}

/* the cases whose mask_index masks some key: every case of the imported mask specs but the dummy
 * mask (the import makes every other mask cover a key of batch 0), and the worked end positions */
static int masks_a_key(const char *spec, const char *name)
{
	return (strstr(spec, "_mask.yaml") != NULL && strstr(name, "/mask_dummy") == NULL) ||
	       strstr(name, "/worked_end_") != NULL;
}

static void test_stub_mask_ignored(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", SPECS,
	                           qct_stub("ort_attention_mistakes"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	size_t failed = 0, passed = 0, bad = 0;
	qct_count_verdicts(r, masks_a_key, &failed, &passed, &bad);
	printf("\n  QAttention mask_index ignored: %zu cases FAIL, %zu PASS", failed, passed);
	CU_ASSERT(failed >= 24 && passed >= 60);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_ort_attention(void)
{
	CU_pSuite s = qct_suite("ort/attention");
	CU_add_test(s, "QAttention: every spec PASS or EXPECTED_ERROR, ORT's goldens in the bands",
	            test_specs_pass);
	CU_add_test(s, "a QAttention ignoring mask_index FAILs exactly the cases it masks",
	            test_stub_mask_ignored);
}
