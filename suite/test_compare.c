/* Comparison metrics, tolerances and verdicts; a spec's golden values against the reference. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/compare.h"
#include "qct.h"
#include "reference/dtype.h"
#include "run/poison.h"

static int64_t shape8[1] = {8};

static qcf_tensor tensor(qcf_dtype t, void *data)
{
	qcf_tensor x = {sizeof x, "y", t, 1, shape8, data, qcf_dtype_nbytes(t, 8), NULL};
	return x;
}

static qc_tolerance tol_exact(void)
{
	qc_tolerance t = {.exact = 1,
	                  .max_abs = -1,
	                  .bias = -1,
	                  .mse = -1,
	                  .mismatch_rate = -1,
	                  .ulp = -1,
	                  .abs = -1,
	                  .rel = -1,
	                  .steps = -1};
	return t;
}

static void test_lsb_histogram(void)
{
	int8_t want[8] = {0, 1, 2, 3, -4, 5, 100, -128};
	int8_t got[8] = {0, 2, 1, 3, -4, 105, 30, -128};
	qcf_tensor x = tensor(QCF_INT8, want), y = tensor(QCF_INT8, got);
	qc_metrics m;
	qc_compare_output(&x, &y, NULL, NULL, NULL, NULL, -1, &m);
	CU_ASSERT_EQUAL(m.unit, QC_UNIT_LSB);
	CU_ASSERT_EQUAL(m.n, 8);
	CU_ASSERT_EQUAL(m.mismatches, 4);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(0)], 4);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(1)], 1);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(-1)], 1);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(100)], 1);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(-70)], 1);
	CU_ASSERT_STRING_EQUAL(qc_hist_labels[qc_hist_bin(-70)], "<=-65");
	CU_ASSERT_STRING_EQUAL(qc_hist_labels[qc_hist_bin(17)], "17..64");
	CU_ASSERT_STRING_EQUAL(qc_hist_labels[qc_hist_bin(-4)], "-4");
	CU_ASSERT_EQUAL(m.max_abs, 100);
	CU_ASSERT_DOUBLE_EQUAL(qc_metrics_bias(&m), (1 - 1 + 100 - 70) / 8.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(qc_metrics_mse(&m), (1 + 1 + 10000 + 4900) / 8.0, 1e-12);
	/* worst first: |100| at index 5, then |-70| at 6, then the two 1s in index order */
	CU_ASSERT_EQUAL(m.n_worst, 4);
	CU_ASSERT_EQUAL(m.worst[0].index, 5);
	CU_ASSERT_EQUAL(m.worst[1].index, 6);
	CU_ASSERT_EQUAL(m.worst[2].index, 1);
	CU_ASSERT_EQUAL(m.worst[3].index, 2);
	char why[256];
	qc_tolerance t = tol_exact();
	CU_ASSERT_FALSE(qc_tolerance_check(&t, &m, why, sizeof why));
	t.exact = 0;
	t.max_abs = 100;
	CU_ASSERT_TRUE(qc_tolerance_check(&t, &m, why, sizeof why));
	t.max_abs = 99;
	CU_ASSERT_FALSE(qc_tolerance_check(&t, &m, why, sizeof why));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "max |e| 100"));
	t.max_abs = -1;
	t.mismatch_rate = 0.4;
	CU_ASSERT_FALSE(qc_tolerance_check(&t, &m, why, sizeof why));
	t.mismatch_rate = 0.5;
	CU_ASSERT_TRUE(qc_tolerance_check(&t, &m, why, sizeof why));
}

/* A float output one grid step off is exactly 1 step, though (q - zp) * scale is rounded:
 * a 1-step tolerance must accept it (it did not, when e came out as 1.0000038). */
static void test_steps_exact(void)
{
	float s = 0.1f;
	float want[8], got[8];
	double step[8];
	for (int i = 0; i < 8; i++) {
		want[i] = (float)(i - 3) * s;
		got[i] = (float)(i - 3 + (i % 2)) * s;
		step[i] = s;
	}
	qcf_tensor x = tensor(QCF_FLOAT32, want), y = tensor(QCF_FLOAT32, got);
	qref_output_detail d = {NULL, NULL, NULL, step};
	qc_metrics m;
	qc_compare_output(&x, &y, &d, NULL, NULL, NULL, -1, &m);
	CU_ASSERT_EQUAL(m.unit, QC_UNIT_STEPS);
	CU_ASSERT_EQUAL(m.mismatches, 4);
	CU_ASSERT_EQUAL(m.max_abs, 1.0);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(1)], 4);
	CU_ASSERT_EQUAL(m.sum_e, 4.0);
	qc_tolerance t = tol_exact();
	t.exact = 0;
	t.max_abs = 1;
	char why[256];
	CU_ASSERT_TRUE(qc_tolerance_check(&t, &m, why, sizeof why));
	/* half a step off is not snapped */
	got[0] = want[0] + 0.05f;
	qc_compare_output(&x, &y, &d, NULL, NULL, NULL, -1, &m);
	int seen = 0;
	for (int i = 0; i < m.n_worst; i++)
		if (m.worst[i].index == 0)
			seen = fabs(m.worst[i].error - 0.5) < 1e-3;
	CU_ASSERT(seen);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(1)], 5); /* half a step is counted in bin 1, not 0 */
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(0)], 3);
	/* one ulp off the grid point is a (tiny) mismatch, never "0 steps" */
	got[0] = nextafterf(want[0], 1.0f);
	qc_compare_output(&x, &y, &d, NULL, NULL, NULL, -1, &m);
	CU_ASSERT_EQUAL(m.mismatches, 5);
	CU_ASSERT(m.worst[m.n_worst - 1].error != 0 && fabs(m.worst[m.n_worst - 1].error) < 1e-3);
}

static void test_float_ulp_and_nan(void)
{
	float want[8] = {1.0f, -0.0f, NAN, 2.0f, 3.0f, INFINITY, 0.5f, 7.0f};
	float got[8] = {1.0f, 0.0f, NAN, 2.0f, 3.0f, INFINITY, 0.5f, 7.0f};
	got[3] = nextafterf(2.0f, 3.0f);
	got[4] = nextafterf(nextafterf(3.0f, 0.0f), 0.0f);
	qcf_tensor x = tensor(QCF_FLOAT32, want), y = tensor(QCF_FLOAT32, got);
	qc_metrics m;
	qc_compare_output(&x, &y, NULL, NULL, NULL, NULL, -1, &m);
	CU_ASSERT_EQUAL(m.unit, QC_UNIT_ULP);
	CU_ASSERT_EQUAL(m.mismatches, 2); /* -0 == +0, NaN == NaN, inf == inf */
	CU_ASSERT_EQUAL(m.max_ulp, 2);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(1)], 1);
	CU_ASSERT_EQUAL(m.hist[qc_hist_bin(-2)], 1);
	got[7] = NAN;
	qc_compare_output(&x, &y, NULL, NULL, NULL, NULL, -1, &m);
	CU_ASSERT_EQUAL(m.hist[QC_HIST_NAN], 1);
	qc_tolerance t = tol_exact();
	t.exact = 0;
	t.ulp = 1000;
	char why[256];
	CU_ASSERT_FALSE(qc_tolerance_check(&t, &m, why, sizeof why)); /* NaN never within */
}

static void test_unpredictable(void)
{
	float want[8] = {0}, got[8] = {0, 0, 0, 0, 0, 0, 9.0f, NAN};
	uint8_t any[8] = {0, 0, 0, 0, 0, 0, 1, 1};
	double lo[8], hi[8];
	for (int i = 0; i < 8; i++)
		lo[i] = -1, hi[i] = 10;
	qcf_tensor x = tensor(QCF_FLOAT32, want), y = tensor(QCF_FLOAT32, got);
	qref_output_detail d = {any, lo, hi, NULL};
	qc_metrics m;
	qc_compare_output(&x, &y, &d, NULL, NULL, NULL, -1, &m);
	CU_ASSERT_EQUAL(m.n, 6);
	CU_ASSERT_EQUAL(m.unpredictable, 2);
	CU_ASSERT_EQUAL(m.out_of_range, 1); /* NaN is not in [-1, 10]; 9 is */
	CU_ASSERT_EQUAL(m.mismatches, 0);
	qc_tolerance t = tol_exact();
	char why[256];
	CU_ASSERT_FALSE(qc_tolerance_check(&t, &m, why, sizeof why));
}

/* The verdict table of README.md ("Verdicts"), from the reference's and the kernel's answers. */
static void test_verdicts(void)
{
	int8_t ref[8] = {1, 2, 3, 4, 5, 6, 7, 8}, ker[8] = {1, 2, 3, 4, 5, 6, 7, 9};
	qc_case c;
	memset(&c, 0, sizeof c);
	c.call.n_outputs = 1;
	c.out[0] = tensor(QCF_INT8, ref);
	c.tol = tol_exact();
	qc_expected e;
	memset(&e, 0, sizeof e);
	e.status = QCF_OK;
	e.out[0] = tensor(QCF_INT8, ref);
	qc_exec_result ex;
	memset(&ex, 0, sizeof ex);
	qcf_tensor kout = tensor(QCF_INT8, ref);
	qc_result r;

	qc_judge(&c, &e, &ex, &kout, &r);
	CU_ASSERT_EQUAL(r.verdict, QC_PASS);
	kout.data = ker;
	qc_judge(&c, &e, &ex, &kout, &r);
	CU_ASSERT_EQUAL(r.verdict, QC_FAIL);
	c.tol.exact = 0;
	c.tol.max_abs = 1;
	qc_judge(&c, &e, &ex, &kout, &r);
	CU_ASSERT_EQUAL(r.verdict, QC_PASS_WITHIN_TOLERANCE);

	struct {
		qc_outcome outcome;
		int expect_error;
		qc_verdict want;
	} rows[] = {{QC_EXEC_NOT_SUPPORTED, 0, QC_NOT_SUPPORTED},
	            {QC_EXEC_CRASH, 0, QC_CRASH},
	            {QC_EXEC_TIMEOUT, 0, QC_TIMEOUT},
	            {QC_EXEC_ERROR, 0, QC_ERROR},
	            {QC_EXEC_INVALID_PARAM, 0, QC_ERROR},
	            {QC_EXEC_INVALID_PARAM, 1, QC_EXPECTED_ERROR},
	            {QC_EXEC_OK, 1, QC_FAIL}};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		ex.outcome = rows[i].outcome;
		c.expect_error = rows[i].expect_error;
		e.status = rows[i].expect_error ? QCF_INVALID_PARAM : QCF_OK;
		qc_judge(&c, &e, &ex, &kout, &r);
		CU_ASSERT_EQUAL(r.verdict, rows[i].want);
	}
	/* a spec that calls a case negative while the reference accepts it is the spec's error */
	c.expect_error = 1;
	e.status = QCF_OK;
	ex.outcome = QC_EXEC_INVALID_PARAM;
	qc_judge(&c, &e, &ex, &kout, &r);
	CU_ASSERT_EQUAL(r.verdict, QC_ERROR);
	CU_ASSERT_TRUE(qc_verdict_conforms(QC_NOT_SUPPORTED));
	CU_ASSERT_FALSE(qc_verdict_conforms(QC_TIMEOUT));
}

/* A failing case's message counts in the singular and the plural and ends with the worst
 * element: its coordinates (no axis names for an op without a layout), expected and got. */
static void test_messages(void)
{
	int8_t ref[8] = {1, 2, 3, 4, 5, 6, 7, 8}, ker[8] = {1, 2, 3, 4, 5, 6, 7, 9};
	qc_case c;
	memset(&c, 0, sizeof c);
	c.call.n_outputs = 1;
	c.call.outputs = c.out;
	c.out[0] = tensor(QCF_INT8, ref);
	c.tol = tol_exact();
	qc_expected e;
	memset(&e, 0, sizeof e);
	e.status = QCF_OK;
	e.out[0] = tensor(QCF_INT8, ref);
	qc_exec_result ex;
	memset(&ex, 0, sizeof ex);
	qcf_tensor kout = tensor(QCF_INT8, ker);
	qc_result r;
	qc_judge(&c, &e, &ex, &kout, &r);
	CU_ASSERT_EQUAL(r.verdict, QC_FAIL);
	CU_ASSERT_STRING_EQUAL(r.message, "output 'y': 1 of 8 elements differs (max |e| 1 lsb); "
	                                  "tolerance is exact; worst at [7]: expected 8 got 9");
	/* the failing element, counted along the last axis */
	CU_ASSERT_EQUAL(r.m[0].along.axis, 0);
	CU_ASSERT_EQUAL(r.m[0].along.n, 1);
	CU_ASSERT_EQUAL(r.m[0].along.index[0], 7);
	CU_ASSERT_EQUAL(r.m[0].along.count[0], 1);
	ker[0] = 3;
	qc_judge(&c, &e, &ex, &kout, &r);
	CU_ASSERT_STRING_EQUAL(r.message, "output 'y': 2 of 8 elements differ (max |e| 2 lsb); "
	                                  "tolerance is exact; worst at [0]: expected 1 got 3");
	/* one element in all */
	int64_t one = 1;
	c.out[0].shape = e.out[0].shape = kout.shape = &one;
	c.out[0].nbytes = e.out[0].nbytes = kout.nbytes = 1;
	qc_judge(&c, &e, &ex, &kout, &r);
	CU_ASSERT_STRING_EQUAL(r.message, "output 'y': 1 of 1 element differs (max |e| 2 lsb); "
	                                  "tolerance is exact; worst at [0]: expected 1 got 3");
	/* outside the legal roundings, and outside the allowed range */
	qc_metrics m;
	qc_metrics_init(&m, QC_UNIT_LSB);
	m.n = m.mismatches = m.tol_mismatches = 1;
	m.tol_max_abs = 1;
	qc_tolerance t = tol_exact();
	t.exact = 0;
	t.n_roundings = 1;
	char why[256];
	CU_ASSERT_FALSE(qc_tolerance_check(&t, &m, why, sizeof why));
	CU_ASSERT_STRING_EQUAL(why, "1 element outside every legal rounding (max 1 lsb beyond)");
	m.out_of_range = 1;
	CU_ASSERT_FALSE(qc_tolerance_check(&t, &m, why, sizeof why));
	CU_ASSERT_STRING_EQUAL(why, "1 unpredictable element outside its allowed range");
	m.out_of_range = 3;
	CU_ASSERT_FALSE(qc_tolerance_check(&t, &m, why, sizeof why));
	CU_ASSERT_STRING_EQUAL(why, "3 unpredictable elements outside their allowed range");
}

/* The verdict of case `name` of spec `spec` in report r ("" when absent). */
static const char *verdict_of(json_t *r, const char *spec, const char *name)
{
	char full[256];
	snprintf(full, sizeof full, "onnx/%s/case/%s", spec, name);
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		if (!strcmp(qct_str(c, "name"), full))
			return qct_str(c, "verdict");
	}
	return "";
}

/* A golden NaN matches only a NaN and a golden infinity only the same infinity, whatever the
 * golden tolerance; in a float8 output, -0 only -0 (harness/src/cases/expected.c apply_golden).
 * The reference's answers: y = [1, inf, NaN, -inf] (DequantizeLinear of float8e5m2) and
 * [-0, 0] (QuantizeLinear of -0 and 0 to float8e4m3fn). */
static void test_golden_nonfinite(void)
{
	const char *tmp = qct_tmpdir();
	char path[512];
	snprintf(path, sizeof path, "%s/golden_nonfinite.yaml", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("qconform: 1\nop: DequantizeLinear\nsemantics: onnx\n"
	      "inputs:\n  x:\n    dtype: float8e5m2\n    shape: [4]\n"
	      "    quant: {scale: 1.0, zero_point: 0}\n    data: [1, .inf, .nan, -.inf]\n"
	      "outputs:\n  y: {dtype: float32, shape: [4]}\ntolerance: exact\ncases:\n"
	      "  - {name: nan_for_numbers, golden: {y: [.nan, .nan, .nan, -.inf]}, source: t}\n"
	      "  - {name: inf_for_number, golden: {y: [.inf, .inf, .nan, -.inf]}, source: t}\n"
	      "  - {name: number_for_nan, golden: {y: [1, .inf, 0, -.inf]}, source: t}\n"
	      "  - {name: opposite_inf, golden: {y: [1, -.inf, .nan, -.inf]}, source: t}\n"
	      "  - {name: huge_for_inf, golden: {y: [1, 3.0e+38, .nan, -.inf]}, source: t}\n"
	      "  - name: nan_within_tolerance\n    golden: {y: [.nan, .inf, .nan, -.inf]}\n"
	      "    golden_tolerance: {max_abs: 1.0e+30, reason: t}\n    source: t\n"
	      "  - {name: same, golden: {y: [1, .inf, .nan, -.inf]}, source: t}\n",
	      f);
	fclose(f);
	snprintf(path, sizeof path, "%s/golden_zero.yaml", tmp);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("qconform: 1\nop: QuantizeLinear\nsemantics: onnx\n"
	      "inputs:\n  x: {dtype: float32, shape: [2], data: [-0.0, 0.0]}\n"
	      "outputs:\n  y: {dtype: float8e4m3fn, shape: [2], quant: {scale: 1.0, zero_point: "
	      "0}}\n"
	      "attrs: {saturate: 1}\ntolerance: exact\ncases:\n"
	      "  - {name: plus_zero_for_minus_zero, golden: {y: [0, 0]}, source: t}\n"
	      "  - {name: minus_zero_for_plus_zero, golden: {y: [-0.0, -0.0]}, source: t}\n"
	      "  - {name: same, golden: {y: [-0.0, 0]}, source: t}\n",
	      f);
	fclose(f);
	int st = -1;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s/golden_nonfinite.yaml %s/golden_zero.yaml",
	                           tmp, tmp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	static const char *const fail[] = {"nan_for_numbers", "inf_for_number",
	                                   "number_for_nan",  "opposite_inf",
	                                   "huge_for_inf",    "nan_within_tolerance"};
	for (size_t i = 0; i < sizeof fail / sizeof *fail; i++) {
		const char *v = verdict_of(r, "golden_nonfinite", fail[i]);
		if (strcmp(v, "FAIL"))
			fprintf(stderr, "\n  golden_nonfinite/%s: %s, want FAIL", fail[i], v);
		CU_ASSERT_STRING_EQUAL(v, "FAIL");
	}
	CU_ASSERT_STRING_EQUAL(verdict_of(r, "golden_nonfinite", "same"), "PASS");
	CU_ASSERT_STRING_EQUAL(verdict_of(r, "golden_zero", "plus_zero_for_minus_zero"), "FAIL");
	CU_ASSERT_STRING_EQUAL(verdict_of(r, "golden_zero", "minus_zero_for_plus_zero"), "FAIL");
	CU_ASSERT_STRING_EQUAL(verdict_of(r, "golden_zero", "same"), "PASS");
	json_decref(r);
	qct_rmdir(tmp);
}

/* An element left holding the poison counts as unwritten only where the answer is not "any
 * value": a kernel that clamps an undefined quotient to the type's end may write exactly the
 * poison there, and is not a kernel that skipped it. */
static void test_poison_left_skips_any(void)
{
	int8_t want[4] = {-3, 5, 100, 7}, pois[4], got[4];
	int64_t shape[1] = {4};
	qcf_tensor e = {.struct_size = sizeof e,
	                .dtype = QCF_INT8,
	                .rank = 1,
	                .shape = shape,
	                .data = want,
	                .nbytes = sizeof want};
	qcf_tensor p = e, g = e;
	p.data = pois;
	g.data = got;
	qc_poison_fill(&p, &e);
	memcpy(got, pois, sizeof got);
	got[0] = want[0]; /* written; 1, 2 and 3 left as the poison */
	size_t first = 99;
	CU_ASSERT_EQUAL(qc_poison_left(&p, &g, &e, NULL, &first), 3);
	CU_ASSERT_EQUAL(first, 1);
	uint8_t any[4] = {0, 1, 0, 1}; /* 1 and 3: any value is the answer */
	CU_ASSERT_EQUAL(qc_poison_left(&p, &g, &e, any, &first), 1);
	CU_ASSERT_EQUAL(first, 2);
}

void qct_register_compare(void)
{
	CU_pSuite s = qct_suite("compare");
	CU_add_test(s, "LSB errors, histogram, worst elements, bounds", test_lsb_histogram);
	CU_add_test(s, "steps of scale counted exactly", test_steps_exact);
	CU_add_test(s, "float ULP, signed zero, NaN", test_float_ulp_and_nan);
	CU_add_test(s, "unpredictable elements range-checked", test_unpredictable);
	CU_add_test(s, "verdicts", test_verdicts);
	CU_add_test(s, "messages: singular, plural, the worst element", test_messages);
	CU_add_test(s, "a golden NaN, infinity or float8 -0 matches only itself",
	            test_golden_nonfinite);
	CU_add_test(s, "the poison left in any-value elements is no unwritten element",
	            test_poison_left_skips_any);
}
