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
	/* 117 from ORT 1.30, 5 by hand */
	qct_specs_conform("ort conv", CONV_SPECS " " MMI16_SPECS, 122, 28);
}

/* QLinearConv: only a case whose w zero points differ per channel can differ (the sweep's
 * pc=1, ORT's zp_differ and zp_extremes goldens, the hand-worked channels_last one) */
static int conv_zp_differ(const char *spec, const char *name)
{
	(void)spec;
	return strstr(name, "pc=1") || strstr(name, "zp_differ") || strstr(name, "zp_extremes") ||
	       strstr(name, "worked_channels_last_per_channel");
}

static void test_stub_conv(void)
{
	static const char *const must[] = {"zp_differ", "zp_extremes",
	                                   "worked_channels_last_per_channel", NULL};
	size_t passed, failed = qct_stub_verdicts(CONV_SPECS, "ort_conv_mistakes", conv_zp_differ,
	                                          must, &passed);
	printf("\n  QLinearConv w_zero_point[0] for every channel: %zu cases FAIL, %zu PASS",
	       failed, passed);
	CU_ASSERT(failed >= 70 && passed >= 200);
}

/* MatMulInteger16 in float32: any 2-D case but one whose products and sums are float32
 * integers (worked_extremes) can differ */
static int mmi16_inexact(const char *spec, const char *name)
{
	(void)spec;
	return strstr(name, "worked_extremes") == NULL;
}

static void test_stub_mmi16(void)
{
	static const char *const must[] = {"worked_wrap", "wrap_1x3_3x2", "random_3x5_5x4",
	                                   "extremes_2x4_4x2", NULL};
	size_t passed, failed = qct_stub_verdicts(MMI16_SPECS, "ort_conv_mistakes", mmi16_inexact,
	                                          must, &passed);
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
