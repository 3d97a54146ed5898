/*
 * ONNX Runtime's DynamicQuantizeLSTM (reference/ort_qlstm.c): every spec of the op PASSes against
 * the reference (or is a negative case it refuses), ORT's goldens within the reference's bands;
 * the stub suite/stubs/ort_lstm_mistakes.c, which ignores sequence_lens, FAILs exactly the cases
 * with a row shorter than seq_length and PASSes the rest.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

#define SPECS                                                                                      \
	"specs/ort/dynamic_quantize_lstm*.yaml specs/ort/imported/dynamic_quantize_lstm_*.yaml"

static void test_specs_pass(void)
{
	qct_specs_conform("DynamicQuantizeLSTM", SPECS, 46 + 6, 33);
}

/* the cases with a row shorter than seq_length: the imported ones whose sequence_lens are mixed
 * (the import makes row 1 a step shorter) or hold a 0, the worked zero length, and every case of
 * the edges sweep (its seeded lengths of 3 rows from 0 to 4 all hold one below 4) */
static int has_short_row(const char *spec, const char *name)
{
	(void)spec;
	return strstr(name, "_sl_mixed") != NULL || strstr(name, "_sl_zero") != NULL ||
	       strstr(name, "/worked_zero_length") != NULL ||
	       strstr(name, "dynamic_quantize_lstm_edges/") != NULL;
}

/* qct_stub_verdicts: every FAIL has a short row, and every case with one FAILs */
static void test_stub_sequence_lens_ignored(void)
{
	static const char *const must[] = {"_sl_mixed", "_sl_zero", "/worked_zero_length",
	                                   "dynamic_quantize_lstm_edges/", NULL};
	size_t passed, failed = qct_stub_verdicts(SPECS, "ort_lstm_mistakes", has_short_row, must,
	                                          &passed);
	printf("\n  DynamicQuantizeLSTM sequence_lens ignored: %zu cases FAIL, %zu PASS", failed,
	       passed);
	CU_ASSERT_EQUAL(failed, 37);
	CU_ASSERT_EQUAL(passed, 57);
}

void qct_register_ort_lstm(void)
{
	CU_pSuite s = qct_suite("ort/lstm");
	CU_add_test(s,
	            "DynamicQuantizeLSTM: every spec PASS or EXPECTED_ERROR, ORT's goldens in the "
	            "bands",
	            test_specs_pass);
	CU_add_test(s, "a DynamicQuantizeLSTM ignoring sequence_lens FAILs exactly the short rows",
	            test_stub_sequence_lens_ignored);
}
