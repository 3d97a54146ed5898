/*
 * ONNX Runtime's quantized elementwise ops (reference/ort_qlinear_elementwise.c): the reference
 * PASSes every spec of QLinearAdd, QLinearMul, QLinearLeakyRelu, QLinearSigmoid, QLinearSoftmax
 * and QLinearWhere, hand-written
 * and ORT's goldens (specs/ort/qlinear_*.yaml, specs/ort/imported/qlinear_*.yaml), refusing
 * exactly the negative cases; a stub with one typical mistake per family
 * (suite/stubs/ort_elementwise_mistakes.c: the binary ops requantized in double, the tables
 * rounded half away from zero and the logistic taken exactly, the textbook softmax
 * requantization, Where's plain copy) FAILs the cases that expose it
 * and PASSes the rest.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

/* the family's specs, hand-written and imported (not the pooling family's qlinear_* ones) */
#define EW_SPECS                                                                                   \
	"specs/ort --filter 'ort/qlinear_add*' --filter 'ort/qlinear_mul*' "                       \
	"--filter 'ort/qlinear_leaky_relu*' --filter 'ort/qlinear_sigmoid*' "                      \
	"--filter 'ort/qlinear_softmax*' --filter 'ort/qlinear_where*'"

static void test_reference_passes(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, EW_SPECS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	printf("\n  qlinear elementwise: %zu cases, %zu PASS, %zu EXPECTED_ERROR, %zu golden",
	       t.cases, t.pass, t.expected_error, t.golden);
	CU_ASSERT(t.golden >= 92 + 58 + 8 + 7); /* ORT's goldens and the hand-worked ones */
	CU_ASSERT_EQUAL(t.expected_error, 26 + 8 + 8);
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Which cases must FAIL with the stub: name fragments, per op. */
static int must_fail(const char *name)
{
	if (strstr(name, "golden_int8_half_alpha_ties") || strstr(name, "golden_uint8_tables") ||
	    strstr(name, "golden_int8_ties_and_copy") || strstr(name, "golden_int8_broadcast"))
		return 1;            /* ties and tables, worked by hand */
	if (strstr(name, "golden_")) /* the other hand-worked goldens: no tie, no near-tie */
		return 0;
	return -1; /* either: counted, not predicted */
}

static void test_stub_mistakes(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, EW_SPECS " --plugin %s",
	                           qct_stub("ort_elementwise_mistakes"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	const char *ops[] = {"QLinearAdd",     "QLinearMul",     "QLinearLeakyRelu",
	                     "QLinearSigmoid", "QLinearSoftmax", "QLinearWhere"};
	size_t fail[6] = {0}, pass[6] = {0}, bad = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *op = qct_str(c, "op"), *name = qct_str(c, "name"),
		           *v = qct_str(c, "verdict");
		int k = -1;
		for (int j = 0; j < 6; j++)
			if (!strcmp(op, ops[j]))
				k = j;
		if (k < 0 || !strcmp(v, "EXPECTED_ERROR"))
			continue;
		int f = !strcmp(v, "FAIL"), want = must_fail(name);
		if (!f && strcmp(v, "PASS"))
			bad++;
		if (want >= 0 && want != f) {
			bad++;
			fprintf(stderr, "\n  %s %s: %s", op, name, v);
		}
		f ? fail[k]++ : pass[k]++;
	}
	for (int j = 0; j < 6; j++)
		printf("\n  ort_elementwise_mistakes: %s %zu FAIL, %zu PASS", ops[j], fail[j],
		       pass[j]);
	CU_ASSERT_EQUAL(bad, 0);
	/* every family's mistake is seen, and not everywhere */
	for (int j = 0; j < 6; j++) {
		CU_ASSERT(fail[j] >= 1);
		CU_ASSERT(pass[j] >= 1);
	}
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_ort_elementwise(void)
{
	CU_pSuite s = qct_suite("ort_elementwise");
	CU_add_test(s, "QLinearAdd/Mul/LeakyRelu/Sigmoid: every spec PASSes the reference",
	            test_reference_passes);
	CU_add_test(s, "a stub requantizing in double and rounding tables half away FAILs them",
	            test_stub_mistakes);
}
