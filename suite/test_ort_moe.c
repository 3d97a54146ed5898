/*
 * ONNX Runtime's QMoE (reference/ort_qmoe.c): every spec of the op PASSes against the reference
 * (or is a negative case it refuses), ORT's goldens within the reference's bands; the stub
 * suite/stubs/ort_moe_mistakes.c, which breaks a tie of logits toward the lower expert index,
 * FAILs exactly the tie cases and PASSes the rest.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

#define SPECS "specs/ort/qmoe*.yaml specs/ort/imported/qmoe*.yaml"

static void test_specs_pass(void)
{
	qct_specs_conform("QMoE", SPECS, 32 + 4, 7);
}

/* the cases whose logits tie at the k-th place */
static int ties(const char *spec, const char *name)
{
	(void)spec;
	return strstr(name, "tie") != NULL;
}

static void test_stub_ties_lower(void)
{
	static const char *const must[] = {"worked_tie_higher_index", "_tie", NULL};
	size_t passed, failed = qct_stub_verdicts(SPECS, "ort_moe_mistakes", ties, must, &passed);
	printf("\n  QMoE ties to the lower index: %zu cases FAIL, %zu PASS", failed, passed);
	CU_ASSERT_EQUAL(failed, 3);
	CU_ASSERT(passed >= 30);
}

void qct_register_ort_moe(void)
{
	CU_pSuite s = qct_suite("ort/moe");
	CU_add_test(s, "QMoE: every spec PASS or EXPECTED_ERROR", test_specs_pass);
	CU_add_test(s, "a QMoE breaking ties toward the lower expert FAILs exactly the ties",
	            test_stub_ties_lower);
}
