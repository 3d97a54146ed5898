/*
 * The XNNPACK adapter (plugins/xnnpack): it loads, answers what it maps, and
 * its verdicts are the ones plugins/xnnpack/README.md and
 * reports/examples/xnnpack/README.md describe:
 *  - requantized ops within 1 LSB of LiteRT (fp32 requantization, ties to
 *    even), except CONV_2D with XNNPACK's own SAME padding where the window's
 *    padding total is negative, and AVERAGE_POOL_2D with SAME padding (XNNPACK
 *    divides by the whole window);
 *  - the table-based LOGISTIC/TANH, SOFTMAX, MAX_POOL_2D and DEQUANTIZE exact;
 *  - the mappings of version 1.1: RELU/RELU6/RELU_N1_TO_1 (clamp, equal
 *    quantization only), RESHAPE/SQUEEZE/EXPAND_DIMS (copy) and PAD/PADV2
 *    exact; ELU, LEAKY_RELU, RESIZE_BILINEAR, MEAN and TRANSPOSE_CONV within
 *    1 LSB; what XNNPACK's operators cannot take NOT_SUPPORTED, not FAIL;
 *  - other ops, int16, int4 weights: NOT_SUPPORTED;
 *  - XNNPACK's assert on a requantization scale below 2^-32 costs one CRASH
 *    case and the run goes on.
 * Without libxnnpack-dev the plugin is not built and the tests say so and pass.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "qct.h"

static char xnn_so[1024];

static int have_plugin(void)
{
	const char *p = qct_adapter("xnnpack", "libxnnpack-dev");
	snprintf(xnn_so, sizeof xnn_so, "%s", p ? p : "");
	return p != NULL;
}

/* One spec per operator (and the shapes spec that hits XNNPACK's SAME padding). */
static const char *op_specs =
        "specs/litert/conv_2d.yaml specs/litert/conv_2d_shapes.yaml "
        "specs/litert/depthwise_conv_2d.yaml specs/litert/fully_connected.yaml "
        "specs/litert/add.yaml specs/litert/sub.yaml specs/litert/mul.yaml "
        "specs/litert/average_pool_2d.yaml specs/litert/max_pool_2d.yaml "
        "specs/litert/logistic.yaml specs/litert/tanh.yaml specs/litert/softmax.yaml "
        "specs/litert/quantize.yaml specs/litert/dequantize.yaml "
        "specs/litert/dequantize_shapes.yaml";

/* A representative subset: the first data draw of every sweep point (names end in /0). */
static const char *first_draw = "--filter '-*/[1-9]'";

static json_t *find_op(json_t *r, const char *op)
{
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(r, "ops"), i, o)
	{
		const char *name = json_string_value(json_object_get(o, "op"));
		if (name && strcmp(name, op) == 0)
			return o;
	}
	return NULL;
}

static long long verdict_count(json_t *counts, const char *v)
{
	return json_integer_value(json_object_get(counts, v));
}

/* Cases of the op that the adapter ran (not declined, not refused). */
static long long op_ran(json_t *o)
{
	json_t *v = json_object_get(o, "verdicts");
	return verdict_count(v, "PASS") + verdict_count(v, "PASS_WITHIN_TOLERANCE") +
	       verdict_count(v, "FAIL");
}

static double op_max_abs(json_t *o)
{
	return json_number_value(
	        json_object_get(json_array_get(json_object_get(o, "outputs"), 0), "max_abs"));
}

static void test_ops(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r =
	        qct_run_report(tmp, &st, NULL, "%s %s --plugin %s", op_specs, first_draw, xnn_so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1); /* FAILs exist: see below */

	/* every op mapped runs cases; none errs or crashes */
	static const struct {
		const char *op;
		double max_abs; /* the bound on the op's max |e|, or -1: above 1 */
	} ops[] = {
	        {"CONV_2D", -1},
	        {"DEPTHWISE_CONV_2D", 1},
	        {"FULLY_CONNECTED", 1},
	        {"ADD", 1},
	        {"SUB", 1},
	        {"MUL", 1},
	        {"AVERAGE_POOL_2D", -1},
	        {"MAX_POOL_2D", 0},
	        {"LOGISTIC", 0},
	        {"TANH", 0},
	        {"SOFTMAX", 0},
	        {"QUANTIZE", 1},
	        {"DEQUANTIZE", 0},
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		json_t *o = find_op(r, ops[i].op);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		json_t *v = json_object_get(o, "verdicts");
		if (op_ran(o) < 20 || verdict_count(v, "ERROR") || verdict_count(v, "CRASH") ||
		    verdict_count(v, "TIMEOUT"))
			fprintf(stderr, "\n%s: ran %lld, ERROR %lld, CRASH %lld\n", ops[i].op,
			        op_ran(o), verdict_count(v, "ERROR"), verdict_count(v, "CRASH"));
		CU_ASSERT(op_ran(o) >= 20);
		CU_ASSERT_EQUAL(verdict_count(v, "ERROR"), 0);
		CU_ASSERT_EQUAL(verdict_count(v, "CRASH"), 0);
		CU_ASSERT_EQUAL(verdict_count(v, "TIMEOUT"), 0);
		double m = op_max_abs(o);
		if (ops[i].max_abs >= 0) {
			if (m > ops[i].max_abs)
				fprintf(stderr, "\n%s: max |e| %g, README says <= %g\n", ops[i].op,
				        m, ops[i].max_abs);
			CU_ASSERT(m <= ops[i].max_abs);
		} else {
			CU_ASSERT(m > 1);
		}
	}
	/* the exact ops are exact; the 1-LSB ops show the tie pattern (some FAIL at +-1) */
	CU_ASSERT_EQUAL(verdict_count(json_object_get(find_op(r, "LOGISTIC"), "verdicts"), "FAIL"),
	                0);
	CU_ASSERT(verdict_count(json_object_get(find_op(r, "MUL"), "verdicts"), "FAIL") > 0);
	CU_ASSERT(verdict_count(json_object_get(find_op(r, "QUANTIZE"), "verdicts"), "FAIL") > 0);

	/* errors beyond 1 LSB: only CONV_2D and AVERAGE_POOL_2D, only with SAME padding */
	size_t i, big_conv = 0, big_pool = 0, valid_pool = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *op = json_string_value(json_object_get(c, "op"));
		const char *name = json_string_value(json_object_get(c, "name"));
		double m = qct_case_max_abs(c);
		if (strcmp(op, "AVERAGE_POOL_2D") == 0 && strstr(name, "padding=VALID") &&
		    json_array_size(json_object_get(c, "outputs")) > 0) {
			valid_pool++;
			CU_ASSERT(m <= 1);
		}
		if (m <= 1)
			continue;
		if (strcmp(op, "CONV_2D") == 0) {
			big_conv++;
			CU_ASSERT_PTR_NOT_NULL(strstr(name, "pad=SAME"));
		} else if (strcmp(op, "AVERAGE_POOL_2D") == 0) {
			big_pool++;
			CU_ASSERT(strstr(name, "padding=SAME") || strstr(name, "same_border"));
		} else {
			fprintf(stderr, "\n%s: max |e| %g\n", name, m);
			CU_FAIL("an error beyond 1 LSB outside CONV_2D / AVERAGE_POOL_2D SAME");
		}
	}
	CU_ASSERT(big_conv > 0);
	CU_ASSERT(big_pool > 0);
	CU_ASSERT(valid_pool > 0);

	/* a negative case XNNPACK refuses itself: stride 0 is xnn_status_invalid_parameter */
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *name = json_string_value(json_object_get(c, "name"));
		if (strcmp(name, "litert/conv_2d/case/stride_zero") == 0) {
			CU_ASSERT_STRING_EQUAL(qct_verdict(c), "EXPECTED_ERROR");
			const char *msg = json_string_value(json_object_get(c, "message"));
			CU_ASSERT(msg && strstr(msg, "xnn_status_invalid_parameter"));
		}
	}
	json_decref(r);
	qct_rmdir(tmp);
}

/* The mappings of version 1.1 (README "Mapping"): every op runs cases, the copies, pads and
 * clamps are exact, the float-table and fp32-requantizing ones within 1 LSB, and what the
 * operators cannot take is NOT_SUPPORTED with the reason. */
static void test_v11_ops(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/relu.yaml specs/litert/relu6.yaml specs/litert/relu_n1_to_1.yaml "
	        "specs/litert/reshape.yaml specs/litert/squeeze.yaml specs/litert/expand_dims.yaml "
	        "specs/litert/pad.yaml specs/litert/padv2.yaml specs/litert/elu.yaml "
	        "specs/litert/leaky_relu.yaml specs/litert/resize_bilinear.yaml "
	        "specs/litert/mean.yaml specs/litert/mean_hw.yaml specs/litert/transpose_conv.yaml "
	        "--plugin %s",
	        xnn_so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1); /* ELU, LEAKY_RELU, RESIZE_BILINEAR, MEAN FAIL at +-1 */
	static const struct {
		const char *op;
		long long min_ran;
		double max_abs;
		int fails; /* FAIL allowed */
	} ops[] = {
	        {"RELU", 6, 0, 0},
	        {"RELU6", 20, 0, 0},
	        {"RELU_N1_TO_1", 20, 0, 0},
	        {"RESHAPE", 100, 0, 0},
	        {"SQUEEZE", 50, 0, 0},
	        {"EXPAND_DIMS", 30, 0, 0},
	        {"PAD", 50, 0, 1},
	        {"PADV2", 50, 0, 0},
	        {"ELU", 200, 1, 1},
	        {"LEAKY_RELU", 200, 1, 1},
	        {"RESIZE_BILINEAR", 50, 1, 1},
	        {"MEAN", 200, 1, 1},
	        {"TRANSPOSE_CONV", 5, 1, 0},
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		json_t *o = find_op(r, ops[i].op);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		json_t *v = json_object_get(o, "verdicts");
		if (op_ran(o) < ops[i].min_ran || op_max_abs(o) > ops[i].max_abs ||
		    (!ops[i].fails && verdict_count(v, "FAIL")))
			fprintf(stderr, "\n%s: ran %lld, FAIL %lld, max |e| %g\n", ops[i].op,
			        op_ran(o), verdict_count(v, "FAIL"), op_max_abs(o));
		CU_ASSERT(op_ran(o) >= ops[i].min_ran);
		CU_ASSERT(op_max_abs(o) <= ops[i].max_abs);
		if (!ops[i].fails)
			CU_ASSERT_EQUAL(verdict_count(v, "FAIL"), 0);
		CU_ASSERT_EQUAL(verdict_count(v, "ERROR"), 0);
		CU_ASSERT_EQUAL(verdict_count(v, "CRASH"), 0);
		CU_ASSERT_EQUAL(verdict_count(v, "TIMEOUT"), 0);
	}
	/* NOT_SUPPORTED where XNNPACK's operator cannot take the case, each with its reason */
	static const struct {
		const char *op, *reason;
	} declined[] = {
	        {"RELU", "does not requantize"},            /* clamp: quantization differs */
	        {"LEAKY_RELU", "slope in (0, 1]"},          /* alpha 0, negative or above 1 */
	        {"LEAKY_RELU", "int8 and uint8"},           /* int16 */
	        {"MEAN", "one contiguous block"},           /* axes XNNPACK cannot pool over */
	        {"TRANSPOSE_CONV", "no qc8 deconvolution"}, /* per-channel weights */
	        {"RESIZE_BILINEAR", "int8 or uint8"},       /* int16 */
	};
	size_t i, found[sizeof declined / sizeof declined[0]] = {0}, pad_rank6 = 0, elu_up = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *op = json_string_value(json_object_get(c, "op"));
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *msg = json_string_value(json_object_get(c, "message"));
		if (strcmp(qct_verdict(c), "NOT_SUPPORTED") == 0)
			for (size_t k = 0; k < sizeof declined / sizeof declined[0]; k++)
				if (strcmp(op, declined[k].op) == 0 && msg &&
				    strstr(msg, declined[k].reason))
					found[k]++;
		/* XNNPACK's constant pad takes 6 dimensions where LiteRT's PAD refuses 6 */
		if (strcmp(name, "litert/pad/case/rank_6") == 0) {
			pad_rank6++;
			CU_ASSERT_STRING_EQUAL(qct_verdict(c), "FAIL");
		}
		/* ELU's table rounds half to even (lrintf): every error is one step down */
		if (strcmp(op, "ELU") == 0)
			for (size_t k = 0; k < json_array_size(json_object_get(c, "outputs")); k++)
				if (json_object_get(
				            json_object_get(
				                    json_array_get(json_object_get(c, "outputs"),
				                                   k),
				                    "histogram"),
				            "1"))
					elu_up++;
	}
	for (size_t k = 0; k < sizeof declined / sizeof declined[0]; k++) {
		if (!found[k])
			fprintf(stderr, "\n%s: no NOT_SUPPORTED case says \"%s\"\n", declined[k].op,
			        declined[k].reason);
		CU_ASSERT(found[k] > 0);
	}
	CU_ASSERT_EQUAL(pad_rank6, 1);
	CU_ASSERT_EQUAL(elu_up, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/* With LiteRT's padding passed explicitly, CONV_2D is within 1 LSB; AVERAGE_POOL_2D's SAME
 * difference stays (it is the divisor, not the padding). */
static void test_explicit_padding(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r =
	        qct_run_report(tmp, &st, NULL,
	                       "specs/litert/conv_2d.yaml specs/litert/conv_2d_shapes.yaml "
	                       "specs/litert/average_pool_2d.yaml %s --plugin %s --plugin-option "
	                       "same_padding=explicit",
	                       first_draw, xnn_so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *conv = find_op(r, "CONV_2D"), *pool = find_op(r, "AVERAGE_POOL_2D");
	CU_ASSERT_PTR_NOT_NULL_FATAL(conv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
	CU_ASSERT(op_ran(conv) > 500);
	CU_ASSERT(op_max_abs(conv) <= 1);
	CU_ASSERT(op_max_abs(pool) > 1);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Ops, dtypes and semantics XNNPACK does not have: every case NOT_SUPPORTED, with a reason. */
static void test_out_of_scope(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/litert/transpose.yaml specs/litert/conv_2d_16x8.yaml "
	                           "specs/litert/add_int16.yaml specs/litert/l2_normalization.yaml "
	                           "specs/torch/fake_quantize_per_tensor_affine.yaml --plugin %s",
	                           xnn_so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1); /* every case refused: NOTHING VERIFIED */
	size_t i, n = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		n++;
		CU_ASSERT_STRING_EQUAL(qct_verdict(c), "NOT_SUPPORTED");
		const char *msg = json_string_value(json_object_get(c, "message"));
		CU_ASSERT(msg && *msg);
	}
	CU_ASSERT(n > 500);
	json_decref(r);
	qct_rmdir(tmp);
}

/* XNNPACK (Debian build, asserts on) aborts in its fp32 requantization parameters when
 * s_in * s_w / s_out < 2^-32; no committed spec gets there, so the test writes one. */
static void test_abort_is_one_crash(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	char spec[600];
	snprintf(spec, sizeof spec, "%s/tiny_scale.yaml", tmp);
	FILE *f = fopen(spec, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("qconform: 1\n"
	      "op: FULLY_CONNECTED\n"
	      "semantics: litert\n"
	      "description: a requantization scale below 2^-32 between two ordinary ones\n"
	      "source: XNNPACK fp32 requantization parameters\n"
	      "sweep:\n"
	      "  - {s_w: [0.01, 1.0e-7, 0.02]}\n"
	      "inputs:\n"
	      "  input: {dtype: int8, shape: [2, 8], quant: {scale: 1.0e-4, zero_point: 0},\n"
	      "          data: {gen: uniform}}\n"
	      "  filter: {dtype: int8, shape: [3, 8], quant: {scale: =s_w, zero_point: 0},\n"
	      "           data: {gen: uniform, min: -127, max: 127}}\n"
	      "outputs:\n"
	      "  output: {dtype: int8, shape: [2, 3], quant: {scale: 1.0, zero_point: 0}}\n"
	      "tolerance: {rounding: [double, single, half_away], max_abs: 1,\n"
	      "            reason: float32 requantization}\n",
	      f);
	fclose(f);
	int st = -1;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", spec, xnn_so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	CU_ASSERT_EQUAL_FATAL(json_array_size(cases), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_verdict(c);
		if (i == 1) {
			CU_ASSERT_STRING_EQUAL(v, "CRASH");
			const char *msg = json_string_value(json_object_get(c, "message"));
			CU_ASSERT(msg && strstr(msg, "SIGABRT"));
		} else {
			CU_ASSERT(strcmp(v, "PASS") == 0 ||
			          strcmp(v, "PASS_WITHIN_TOLERANCE") == 0);
		}
	}
	json_t *sum = json_object_get(r, "summary");
	CU_ASSERT_EQUAL(verdict_count(json_object_get(sum, "verdicts"), "CRASH"), 1);
	CU_ASSERT_PTR_NOT_NULL(json_object_get(sum, "finished"));
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_plugin_xnnpack(void)
{
	CU_pSuite s = qct_suite("plugin/xnnpack");
	CU_add_test(s, "mapped ops run; max |e| per op as documented", test_ops);
	CU_add_test(s, "version 1.1 mappings: exact, within 1 LSB or NOT_SUPPORTED", test_v11_ops);
	CU_add_test(s, "explicit SAME padding: CONV_2D within 1 LSB", test_explicit_padding);
	CU_add_test(s, "other ops, int16, other semantics: NOT_SUPPORTED", test_out_of_scope);
	CU_add_test(s, "requantization scale below 2^-32: one CRASH, the run goes on",
	            test_abort_is_one_crash);
}
