/*
 * The convention matrix (harness/src/tools/conventions.c) on the worked examples
 * of docs/conventions.md, the compare-conventions command, and the
 * divide-by-scale stub: a torch kernel that divides where torch multiplies
 * by the reciprocal fails exactly the cases where the two differ.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "qct.h"
#include "reference/attrs.h"
#include "reference/dtype.h"
#include "spec/spec.h"
#include "tools/conventions.h"

static void run_rows(const qc_conv_params *p, const float *x, size_t n, qc_conv_row *rows)
{
	char err[256] = "";
	int rc = qc_conventions_run(p, x, n, rows, NULL, NULL, err, sizeof err);
	if (rc != 0)
		fprintf(stderr, "\n  qc_conventions_run: %s", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* docs/conventions.md ("Where they part"): x * (1.0f/s) is exactly 127.5 (ties to even: 128) while
 * x / s is 127.499992 (127): torch multiplies, ONNX and LiteRT's reference divide. */
static void test_reciprocal_tie(void)
{
	qc_conv_params p = {QCF_UINT8, 0, 0.00214854861f, 0};
	float x = 0.273939937f;
	qc_conv_row r;
	run_rows(&p, &x, 1, &r);
	CU_ASSERT_EQUAL(r.q[QC_CONV_TORCH], 128);
	CU_ASSERT_EQUAL(r.q[QC_CONV_TORCH_FZP], 128);
	CU_ASSERT_EQUAL(r.q[QC_CONV_ONNX], 127);
	CU_ASSERT_EQUAL(r.q[QC_CONV_LITERT], 127);
	CU_ASSERT(r.why & QC_WHY_MUL_DIV);
	CU_ASSERT(r.why & QC_WHY_TIE_MUL);
	CU_ASSERT_FALSE(r.why & QC_WHY_TIE_DIV);
}

/* docs/conventions.md ("PyTorch"), the example on ties: scale 0.1, zero point 3,
 * [-0.25, -0.15, -0.05, 0.05, 0.15, 0.25, 0.35] -> [-0.2, -0.2, 0, 0, 0.2, 0.2, 0.4], that is
 * codes [1, 1, 3, 3, 5, 5, 7] (ties to even, zero point after rounding). The float zero point
 * path rounds zp + x*inv: every value is a tie and zp is odd, so each moves by one; TF rounds
 * ties up; LiteRT's reference away from zero. */
static void test_libtorch_example(void)
{
	qc_conv_params p = {QCF_UINT8, 0, 0.1f, 3};
	const float x[7] = {-0.25f, -0.15f, -0.05f, 0.05f, 0.15f, 0.25f, 0.35f};
	const int64_t torch[7] = {1, 1, 3, 3, 5, 5, 7}, fzp[7] = {0, 2, 2, 4, 4, 6, 6};
	const int64_t tf[7] = {1, 2, 3, 4, 5, 6, 7}, litert[7] = {0, 1, 2, 4, 5, 6, 7};
	qc_conv_row r[7];
	run_rows(&p, x, 7, r);
	for (int i = 0; i < 7; i++) {
		CU_ASSERT_EQUAL(r[i].q[QC_CONV_TORCH], torch[i]);
		CU_ASSERT_EQUAL(r[i].q[QC_CONV_ONNX], torch[i]);
		CU_ASSERT_EQUAL(r[i].q[QC_CONV_TORCH_FZP], fzp[i]);
		CU_ASSERT_EQUAL(r[i].q[QC_CONV_TF], tf[i]);
		CU_ASSERT_EQUAL(r[i].q[QC_CONV_LITERT], litert[i]);
		CU_ASSERT(r[i].why & QC_WHY_ZP_FIRST);
		CU_ASSERT(r[i].why & QC_WHY_TIE_MUL);
		CU_ASSERT_FALSE(r[i].why & QC_WHY_NUDGE);
	}
}

/* docs/conventions.md ("ONNX"), ONNX QuantizeLinear's documented example: scale 2, zero point 128,
 * uint8: [0, 2, 3, 1000, -254, -1000] -> [128, 129, 130, 255, 1, 0]; 3/2 = 1.5 is a tie
 * that every convention here rounds to 2 (even, away and up agree on it). */
static void test_onnx_example(void)
{
	qc_conv_params p = {QCF_UINT8, 0, 2.0f, 128};
	const float x[6] = {0, 2, 3, 1000, -254, -1000};
	const int64_t want[6] = {128, 129, 130, 255, 1, 0};
	qc_conv_row r[6];
	run_rows(&p, x, 6, r);
	for (int i = 0; i < 6; i++) {
		for (int c = 0; c < QC_CONV_COUNT; c++)
			CU_ASSERT_EQUAL(r[i].q[c], want[i]);
		CU_ASSERT_EQUAL(r[i].why, 0);
	}
}

/* Narrow range: ONNX and LiteRT's QUANTIZE have none, their columns are empty; torch and TF
 * clamp to [-127, 127]. */
static void test_narrow_range(void)
{
	qc_conv_params p = {QCF_INT8, 1, 0.5f, 0};
	const float x[2] = {-1000.0f, 1000.0f};
	qc_conv_row r[2];
	run_rows(&p, x, 2, r);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_FALSE(r[i].has[QC_CONV_ONNX]);
		CU_ASSERT_FALSE(r[i].has[QC_CONV_LITERT]);
		CU_ASSERT_EQUAL(r[i].q[QC_CONV_TORCH], i ? 127 : -127);
		CU_ASSERT_EQUAL(r[i].q[QC_CONV_TF], i ? 127 : -127);
	}
}

/* The probe set finds every kind of disagreement for a scale with inexact reciprocal, and
 * each disagreement it reports is real. */
static void test_probe(void)
{
	qc_conv_params p = {QCF_UINT8, 0, 0.00214854861f, 3};
	float x[4 * 520];
	long n = qc_conventions_probe(&p, x, sizeof x / sizeof x[0]);
	CU_ASSERT_FATAL(n > 255 * 2);
	for (long i = 1; i < n; i++)
		CU_ASSERT(x[i - 1] < x[i]);
	qc_conv_row *r = calloc((size_t)n, sizeof *r);
	run_rows(&p, x, (size_t)n, r);
	size_t kinds[6] = {0}, differ = 0;
	for (long i = 0; i < n; i++) {
		int agree = 1;
		for (int c = 1; c < QC_CONV_COUNT; c++)
			agree &= r[i].q[c] == r[i].q[0];
		CU_ASSERT_EQUAL(agree, r[i].why == 0);
		differ += !agree;
		for (int b = 0; b < 6; b++)
			kinds[b] += (r[i].why >> b) & 1;
		/* a multiply-versus-divide disagreement is one between torch and onnx */
		if ((r[i].why & QC_WHY_MUL_DIV) && !(r[i].why & (QC_WHY_TIE_MUL | QC_WHY_TIE_DIV)))
			CU_ASSERT(r[i].q[QC_CONV_TORCH] != r[i].q[QC_CONV_ONNX]);
	}
	printf("\n  probe: %ld values, %zu disagree (ties %zu/%zu, mul-vs-div %zu, zp first %zu)\n",
	       n, differ, kinds[0], kinds[1], kinds[2], kinds[3]);
	CU_ASSERT(kinds[0] > 0 && kinds[2] > 0 && kinds[3] > 0);
	free(r);
}

/* The command: the reciprocal tie row, and one-line errors with status 2. */
static void test_command(void)
{
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s compare-conventions --dtype uint8 --scale 0.00214854861 "
	                             "--zero-point 0 0.273939937",
	                             qct_build_path("qconform")),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	const char *row = strstr(p.out, "\n0.273939937 ");
	CU_ASSERT_PTR_NOT_NULL(row);
	if (row) {
		char line[256];
		sscanf(row + 1, "%255[^\n]", line);
		long long q[5];
		CU_ASSERT_EQUAL(sscanf(line, "%*s %*s %*s %lld %lld %lld %lld %lld", &q[0], &q[1],
		                       &q[2], &q[3], &q[4]),
		                5);
		CU_ASSERT(q[0] == 128 && q[2] == 127);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, "x*(1/s) vs x/s"));
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "1 where the conventions disagree"));
	qct_proc_free(&p);

	const char *bad[] = {"--dtype float32 --scale 1 --zero-point 0",
	                     "--dtype uint8 --scale 0 --zero-point 0",
	                     "--dtype uint8 --scale 1 --zero-point 300",
	                     "--dtype uint8 --scale 1 --zero-point 0.5",
	                     "--dtype uint8 --scale x",
	                     "--dtype uint8 --scale 1 --zero-point 0 -- 1 zz"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p, "%s compare-conventions %s", qct_build_path("qconform"), bad[i]),
		        0);
		CU_ASSERT_EQUAL(p.status, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "compare-conventions"));
		qct_proc_free(&p);
	}
}

/* ---- the divide-by-scale stub ---- */

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Does dividing by the scale change element i's code (bit 0) or its in-range flag, the
 * cachemask ops' second output (bit 1)? Computed here
 * from the expanded case: torch's product x * (1.0f/s) against the quotient x / s, each in
 * the input's precision, both rounded to even, zero point after rounding.
 */
static int divide_differs(const qcf_tensor *x, size_t i, float s, double zp, double lo, double hi)
{
	double xi = qref_get(x, i), m, d;
	if (!isfinite(xi))
		return 0;
	if (x->dtype == QCF_FLOAT64) {
		m = xi * (double)(1.0f / s);
		d = xi / (double)s;
	} else {
		m = (float)xi * (1.0f / s);
		d = (float)xi / s;
	}
	if (fabs(m) >= 0x1p62 || fabs(d) >= 0x1p62)
		return 0;
	double qm = zp + nearbyint(m), qd = zp + nearbyint(d);
	return (clampd(qm, lo, hi) != clampd(qd, lo, hi)) |
	       ((qm >= lo && qm <= hi) != (qd >= lo && qd <= hi)) << 1;
}

/* 1 if division changes an output of the case (the code of some element, or its mask bit
 * for the cachemask ops); -1 if the case is not one the stub changes (float zero point). */
static int divide_case(const qc_case *c)
{
	const qcf_tensor *x = &c->in[0];
	const int seen = strstr(c->call.op, "cachemask") ? 3 : 1;
	size_t n = qref_numel(x->rank, x->shape);
	double lo, hi;
	if (qref_attr_number(&c->call, "quant_min", &lo) != 1 ||
	    qref_attr_number(&c->call, "quant_max", &hi) != 1)
		return 0;
	if (!strncmp(c->call.op, "fake_quantize_per_tensor_affine", 31)) {
		double scale, zp;
		if (qref_attr_number(&c->call, "scale", &scale) != 1 ||
		    qref_attr_number(&c->call, "zero_point", &zp) != 1)
			return 0;
		for (size_t i = 0; i < n; i++)
			if (divide_differs(x, i, (float)scale, zp, lo, hi) & seen)
				return 1;
		return 0;
	}
	double axis;
	if (c->call.n_inputs < 3 || c->in[2].dtype != QCF_INT32 ||
	    qref_attr_number(&c->call, "axis", &axis) != 1)
		return -1;
	qcf_quant along = {.struct_size = sizeof along, .axis = (int32_t)axis};
	for (size_t i = 0; i < n; i++) {
		int32_t ch = qref_channel(x, &along, i);
		float s = (float)qref_get(&c->in[1], (size_t)ch);
		if (divide_differs(x, i, s, qref_get(&c->in[2], (size_t)ch), lo, hi) & seen)
			return 1;
	}
	return 0;
}

static int stub_op(const char *op)
{
	return !strcmp(op, "fake_quantize_per_tensor_affine") ||
	       !strcmp(op, "fake_quantize_per_tensor_affine_cachemask") ||
	       !strcmp(op, "fake_quantize_per_channel_affine") ||
	       !strcmp(op, "fake_quantize_per_channel_affine_cachemask");
}

/* Every torch spec through the stub: FAIL exactly where division changes a code (every
 * other case as against the reference), each failure off by one step, and the report's
 * worst element of a failing case is an element where the two differ. */
static void test_divide_stub(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r =
	        qct_run_report(tmp, &st, NULL, "specs/torch --plugin %s", qct_stub("torch_divide"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	qc_diag diag = {0, 0, stderr};
	size_t idx = 0, differ = 0, wrong = 0, total = 0;
	/* the report lists cases in spec order (sorted file names), as `qconform list` does */
	for (size_t k = 0; k < json_array_size(cases); k++) {
		json_t *jc = json_array_get(cases, k);
		const char *spec_path = json_string_value(json_object_get(jc, "spec"));
		if (k > 0 && !strcmp(spec_path, json_string_value(json_object_get(
		                                        json_array_get(cases, k - 1), "spec"))))
			continue;
		qc_spec *sp = qc_spec_load(spec_path, &diag);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
		qc_cases *it = qc_cases_begin(sp, 0, 1, &diag);
		qc_case *c;
		idx = k;
		while (qc_cases_next(it, &c) == 1) {
			json_t *cj = json_array_get(cases, idx++);
			CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(cj, "name")),
			                       c->name);
			const char *v = qct_verdict(cj);
			int d = 0;
			if (!c->expect_error && stub_op(c->call.op))
				d = divide_case(c);
			total++;
			if (d < 0) {
				qc_case_free(c);
				continue; /* float zero point: the stub leaves it to the reference
				           */
			}
			differ += d == 1;
			int ok = d == 1 ? !strcmp(v, "FAIL")
			                : !strcmp(v, "PASS") || !strcmp(v, "EXPECTED_ERROR");
			if (!ok && wrong++ < 3)
				fprintf(stderr, "\n  %s: %s, division differs: %d", c->name, v, d);
			if (d == 1) {
				/* off by one step (mask: by one), and the worst element of y is one
				 * where division changes the code */
				json_t *outs = json_object_get(cj, "outputs");
				for (size_t k2 = 0; k2 < json_array_size(outs); k2++)
					CU_ASSERT(json_number_value(json_object_get(
					                  json_array_get(outs, k2), "max_abs")) <=
					          1.0);
				json_t *o = json_array_get(outs, 0);
				json_t *w = json_array_get(json_object_get(o, "worst"), 0);
				double lo, hi, s = 0, zp = 0;
				qref_attr_number(&c->call, "quant_min", &lo);
				qref_attr_number(&c->call, "quant_max", &hi);
				if (w && qref_attr_number(&c->call, "scale", &s) == 1 &&
				    qref_attr_number(&c->call, "zero_point", &zp) == 1) {
					size_t wi = (size_t)json_integer_value(
					        json_object_get(w, "index"));
					CU_ASSERT(divide_differs(&c->in[0], wi, (float)s, zp, lo,
					                         hi) &
					          1);
					/* the report gives the input value of that element */
					json_t *xin =
					        json_object_get(json_object_get(w, "inputs"), "x");
					CU_ASSERT(json_is_number(xin) &&
					          (float)json_number_value(xin) ==
					                  (float)qref_get(&c->in[0], wi));
				}
			}
			qc_case_free(c);
		}
		qc_cases_end(it);
		qc_spec_free(sp);
	}
	printf("\n  torch_divide: %zu of %zu cases hold a value that division quantizes "
	       "differently, all FAIL, the rest as the reference\n",
	       differ, total);
	CU_ASSERT_EQUAL(total, json_array_size(cases));
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT(differ >= 50);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_conventions(void)
{
	CU_pSuite s = qct_suite("conventions");
	CU_add_test(s, "reciprocal tie: torch 128, onnx 127", test_reciprocal_tie);
	CU_add_test(s, "libtorch example through every convention", test_libtorch_example);
	CU_add_test(s, "ONNX QuantizeLinear documented example", test_onnx_example);
	CU_add_test(s, "narrow range: onnx and litert not applicable", test_narrow_range);
	CU_add_test(s, "probe values find every kind of disagreement", test_probe);
	CU_add_test(s, "compare-conventions command", test_command);
	CU_add_test(s, "divide-by-scale stub fails exactly where division differs",
	            test_divide_stub);
}
