/*
 * ONNX Runtime's quantized matrix products (reference/ort_qmatmul.c, ort_matmul_fpq4.c): every spec
 * of the ops PASSes against the reference (or is a negative case it refuses), ORT's goldens
 * included; the stub suite/stubs/ort_matmul_mistakes.c, with one typical mistake per op, FAILs
 * exactly the cases that expose its mistake and PASSes the rest.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

#define SPECS                                                                                      \
	"specs/ort/qgemm*.yaml specs/ort/imported/qgemm_*.yaml "                                   \
	"specs/ort/matmul_integer_to_float*.yaml "                                                 \
	"specs/ort/imported/matmul_integer_to_float_*.yaml "                                       \
	"specs/ort/dynamic_quantize_matmul*.yaml "                                                 \
	"specs/ort/imported/dynamic_quantize_matmul_*.yaml "                                       \
	"specs/ort/matmul_bnb4*.yaml specs/ort/imported/matmul_bnb4_*.yaml "                       \
	"specs/ort/matmul_fpq4*.yaml specs/ort/imported/matmul_fpq4.yaml"

static void test_specs_pass(void)
{
	qct_specs_conform("ort matmul", SPECS, 240, 37);
}

/* QGemm: the cases with an exact tie of a quantized y (ORT's tie goldens, the hand-worked ones) */
static int qgemm_tie(const char *spec, const char *name)
{
	if (strstr(spec, "qgemm_float") || strstr(spec, "_float"))
		return 0;
	return strstr(name, "ties") != NULL || strstr(name, "worked") != NULL;
}

static void test_stub_qgemm(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/ort/qgemm_cases.yaml specs/ort/qgemm_float.yaml "
	                           "specs/ort/imported/qgemm_*.yaml --plugin %s",
	                           qct_stub("ort_matmul_mistakes"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	size_t failed = 0, passed = 0, bad = 0;
	qct_count_verdicts(r, qgemm_tie, &failed, &passed, &bad);
	printf("\n  QGemm ties half away: %zu cases FAIL, %zu PASS", failed, passed);
	CU_ASSERT(failed >= 8 && passed >= 80);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/* MatMulIntegerToFloat: only a case with a bias can differ */
static int i2f_bias(const char *spec, const char *name)
{
	(void)name;
	return strstr(spec, "_bias") != NULL || strstr(spec, "matmul_integer_to_float.yaml") ||
	       strstr(spec, "matmul_integer_to_float_cases.yaml");
}

static void test_stub_i2f(void)
{
	static const char *const must[] = {"worked_bias_not_fused", NULL};
	size_t passed,
	        failed = qct_stub_verdicts("specs/ort/matmul_integer_to_float*.yaml "
	                                   "specs/ort/imported/matmul_integer_to_float_*.yaml",
	                                   "ort_matmul_mistakes", i2f_bias, must, &passed);
	printf("\n  MatMulIntegerToFloat bias fused: %zu cases FAIL, %zu PASS", failed, passed);
	CU_ASSERT(failed >= 10);
}

/* DynamicQuantizeMatMul: only a tie of a / a_scale can differ */
static int dqmm_tie(const char *spec, const char *name)
{
	(void)spec;
	return strstr(name, "ties") != NULL || strstr(name, "dynamic_quantize_matmul/") != NULL;
}

static void test_stub_dqmm(void)
{
	static const char *const must[] = {"worked_ties_to_even", "ties_a4x16", NULL};
	size_t passed,
	        failed = qct_stub_verdicts("specs/ort/dynamic_quantize_matmul*.yaml "
	                                   "specs/ort/imported/dynamic_quantize_matmul_*.yaml",
	                                   "ort_matmul_mistakes", dqmm_tie, must, &passed);
	printf("\n  DynamicQuantizeMatMul a ties half away: %zu cases FAIL, %zu PASS", failed,
	       passed);
	CU_ASSERT(failed >= 5);
}

/* MatMulBnb4: any case can differ (every byte's nibbles are swapped) */
static int bnb4_any(const char *spec, const char *name)
{
	(void)spec;
	(void)name;
	return 1;
}

static void test_stub_bnb4(void)
{
	static const char *const must[] = {"worked_fp4", "worked_nf4_block_across_rows", NULL};
	size_t passed, failed = qct_stub_verdicts("specs/ort/matmul_bnb4*.yaml "
	                                          "specs/ort/imported/matmul_bnb4_*.yaml",
	                                          "ort_matmul_mistakes", bnb4_any, must, &passed);
	printf("\n  MatMulBnb4 low nibble first: %zu cases FAIL, %zu PASS", failed, passed);
	CU_ASSERT(failed >= 100);
}

/* MatMulFpQ4: every case but the one whose blocks hold a single value (value 0 is the low
 * nibble of byte 0 in both orders) */
static int fpq4_multi(const char *spec, const char *name)
{
	(void)spec;
	return strstr(name, "worked_zero_point_wraps") == NULL;
}

static void test_stub_fpq4(void)
{
	static const char *const must[] = {"worked_zp8", "worked_sym_high_nibble", NULL};
	size_t passed, failed = qct_stub_verdicts("specs/ort/matmul_fpq4*.yaml "
	                                          "specs/ort/imported/matmul_fpq4.yaml",
	                                          "ort_matmul_mistakes", fpq4_multi, must, &passed);
	printf("\n  MatMulFpQ4 in MatMulNBits' nibble order: %zu cases FAIL, %zu PASS", failed,
	       passed);
	CU_ASSERT_EQUAL(failed, 48);
	CU_ASSERT_EQUAL(passed, 1);
}

void qct_register_ort_matmul(void)
{
	CU_pSuite s = qct_suite("ort/matmul");
	CU_add_test(s, "QGemm and the ORT matmuls: every spec PASS or EXPECTED_ERROR",
	            test_specs_pass);
	CU_add_test(s, "a QGemm rounding ties half away FAILs exactly the tie cases",
	            test_stub_qgemm);
	CU_add_test(s, "a MatMulIntegerToFloat fusing the bias FAILs only cases with a bias",
	            test_stub_i2f);
	CU_add_test(s, "a DynamicQuantizeMatMul rounding a's ties away FAILs only tie cases",
	            test_stub_dqmm);
	CU_add_test(s, "a MatMulBnb4 reading B low nibble first FAILs", test_stub_bnb4);
	CU_add_test(s, "a MatMulFpQ4 reading MatMulNBits' nibble order FAILs all but K = 1",
	            test_stub_fpq4);
}
