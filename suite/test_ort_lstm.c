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
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, SPECS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	printf("\n  DynamicQuantizeLSTM: %zu cases, %zu PASS, %zu EXPECTED_ERROR, %zu golden",
	       t.cases, t.pass, t.expected_error, t.golden);
	CU_ASSERT(t.golden >= 46 + 6);
	CU_ASSERT(t.expected_error >= 33);
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	json_decref(r);
	qct_rmdir(tmp);
}

/* the cases with a row shorter than seq_length: the imported ones whose sequence_lens are mixed
 * (the import makes row 1 a step shorter) or hold a 0, the worked zero length, and every case of
 * the edges sweep (its seeded lengths of 3 rows from 0 to 4 all hold one below 4) */
static int has_short_row(const char *name)
{
	return strstr(name, "_sl_mixed") != NULL || strstr(name, "_sl_zero") != NULL ||
	       strstr(name, "/worked_zero_length") != NULL ||
	       strstr(name, "dynamic_quantize_lstm_edges/") != NULL;
}

static void test_stub_sequence_lens_ignored(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", SPECS,
	                           qct_stub("ort_lstm_mistakes"));
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
		int f = has_short_row(name);
		f ? failed++ : passed++;
		if (strcmp(v, f ? "FAIL" : "PASS") != 0) {
			bad++;
			fprintf(stderr, "\n  %s: %s", name, v);
		}
	}
	printf("\n  DynamicQuantizeLSTM sequence_lens ignored: %zu cases FAIL, %zu PASS", failed,
	       passed);
	CU_ASSERT_EQUAL(failed, 37);
	CU_ASSERT_EQUAL(passed, 57);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
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
