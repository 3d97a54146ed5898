/*
 * ONNX Runtime's com.microsoft QLinearConv and MatMulInteger16 (reference/ort_qconv.c,
 * ort_qmatmul.c): every spec of the two ops PASSes against the reference (or is a negative case
 * it refuses), ORT's goldens included; the stub suite/stubs/ort_conv_mistakes.c, with one
 * typical mistake per op, FAILs only the cases that can expose it, and at least the ones named.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

#define CONV_SPECS  "specs/ort/qlinear_conv*.yaml specs/ort/imported/qlinear_conv_*.yaml"
#define MMI16_SPECS "specs/ort/matmul_integer16*.yaml specs/ort/imported/matmul_integer16.yaml"

static void test_specs_pass(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, CONV_SPECS " " MMI16_SPECS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	printf("\n  ort conv: %zu cases, %zu PASS, %zu EXPECTED_ERROR, %zu golden", t.cases, t.pass,
	       t.expected_error, t.golden);
	CU_ASSERT(t.golden >= 122); /* 117 from ORT 1.30, 5 by hand */
	CU_ASSERT(t.expected_error >= 28);
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Runs specs against the stub: every FAIL is a case may_fail accepts, every case whose name
 * contains an entry of must_fail FAILs (and each entry is seen), every other case PASSes or is
 * EXPECTED_ERROR; returns the FAIL count. */
static size_t stub_run(const char *specs, int (*may_fail)(const char *name),
                       const char *const *must_fail, size_t *passed)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", specs,
	                           qct_stub("ort_conv_mistakes"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	size_t failed = 0, bad = 0, nmust = 0, seen[8] = {0};
	while (must_fail[nmust])
		nmust++;
	*passed = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *v = json_string_value(json_object_get(c, "verdict"));
		if (!name || !v) {
			bad++;
			continue;
		}
		int must = 0;
		for (size_t k = 0; k < nmust; k++)
			if (strstr(name, must_fail[k])) {
				must = 1;
				seen[k]++;
			}
		if (strcmp(v, "FAIL") == 0) {
			failed++;
			if (!may_fail(name)) {
				bad++;
				fprintf(stderr, "\n  unexpected FAIL: %s", name);
			}
		} else if (strcmp(v, "PASS") == 0) {
			(*passed)++;
			if (must) {
				bad++;
				fprintf(stderr, "\n  should FAIL: %s", name);
			}
		} else if (strcmp(v, "EXPECTED_ERROR") != 0) {
			bad++;
			fprintf(stderr, "\n  %s: %s", name, v);
		}
	}
	for (size_t k = 0; k < nmust; k++)
		CU_ASSERT(seen[k] > 0);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
	return failed;
}

/* QLinearConv: only a case whose w zero points differ per channel can differ (the sweep's
 * pc=1, ORT's zp_differ and zp_extremes goldens, the hand-worked channels_last one) */
static int conv_zp_differ(const char *name)
{
	return strstr(name, "pc=1") || strstr(name, "zp_differ") || strstr(name, "zp_extremes") ||
	       strstr(name, "worked_channels_last_per_channel");
}

static void test_stub_conv(void)
{
	static const char *const must[] = {"zp_differ", "zp_extremes",
	                                   "worked_channels_last_per_channel", NULL};
	size_t passed, failed = stub_run(CONV_SPECS, conv_zp_differ, must, &passed);
	printf("\n  QLinearConv w_zero_point[0] for every channel: %zu cases FAIL, %zu PASS",
	       failed, passed);
	CU_ASSERT(failed >= 70 && passed >= 200);
}

/* MatMulInteger16 in float32: any 2-D case but one whose products and sums are float32
 * integers (worked_extremes) can differ */
static int mmi16_inexact(const char *name)
{
	return strstr(name, "worked_extremes") == NULL;
}

static void test_stub_mmi16(void)
{
	static const char *const must[] = {"worked_wrap", "wrap_1x3_3x2", "random_3x5_5x4",
	                                   "extremes_2x4_4x2", NULL};
	size_t passed, failed = stub_run(MMI16_SPECS, mmi16_inexact, must, &passed);
	printf("\n  MatMulInteger16 summed in float32: %zu cases FAIL, %zu PASS", failed, passed);
	CU_ASSERT(failed >= 8);
}

void qct_register_ort_conv(void)
{
	CU_pSuite s = qct_suite("ort/conv");
	CU_add_test(s, "QLinearConv and MatMulInteger16: every spec PASS or EXPECTED_ERROR",
	            test_specs_pass);
	CU_add_test(s, "a QLinearConv reading w_zero_point[0] FAILs only per-channel zero points",
	            test_stub_conv);
	CU_add_test(s, "a MatMulInteger16 summing in float32 FAILs the inexact and wrapping cases",
	            test_stub_mmi16);
}
