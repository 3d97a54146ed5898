/*
 * The Arm NN adapter (plugins/armnn) on its CpuRef backend: the verdicts of the litert-int8
 * profile with every extension are the ones plugins/armnn/README.md and
 * reports/examples/armnn/README.md explain, class by class:
 *  - PASS: exactly the counts of the table below, per op (a change in Arm NN, the adapter or
 *    the specs shows up here first);
 *  - FAIL, one of five explained classes and nothing else: a negative case Arm NN computes
 *    (it has no such rule); an answer at most 1 LSB off in the ops CpuRef computes in float
 *    (requantizing, averaging, comparing dequantized values, bilinear weights); int16
 *    RESIZE_BILINEAR, where LiteRT's Q10 weights are the coarse side; int16 SOFTMAX, where CpuRef's
 *    float softmax is the exact one and LiteRT's lookup tables are up to 70 LSB away; and the
 *    two cases where Arm NN rescales data LiteRT copies raw (PAD with unequal input and output
 *    parameters, int16 CONCATENATION with unequal scales);
 *  - CRASH: an assertion of Debian's Arm NN (built with them on) aborting the worker, only on
 *    negative cases, on QUANTIZE of NaN (armnn::Quantize asserts !isnan) and on empty tensors
 *    (armnnUtils' Transpose asserts srcData < srcEnd, MEAN over an empty axis);
 *  - ERROR (a valid case refused) only where Arm NN's shape inference disagrees on an empty
 *    output: a 0 broadcast against a 1 (Arm NN infers 1), a VALID pooling window larger than
 *    the input (Arm NN infers one output);
 *  - no TIMEOUT; every NOT_SUPPORTED with its reason.
 * Without libarmnn-dev the plugin is not built and the tests say so and pass.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"

static char armnn_so[1024];

static int have_plugin(void)
{
	const char *p = qct_adapter("armnn", "libarmnn-dev");
	snprintf(armnn_so, sizeof armnn_so, "%s", p ? p : "");
	return p != NULL;
}

static long long count(json_t *o, const char *v)
{
	return json_integer_value(json_object_get(json_object_get(o, "verdicts"), v));
}

static json_t *find_op(json_t *r, const char *op)
{
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(r, "ops"), i, o)
	{
		if (!strcmp(qct_str(o, "op"), op))
			return o;
	}
	return NULL;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Ops whose CpuRef workload decodes to float, computes and encodes (std::round): their
 * answers may sit 1 LSB from LiteRT's integer pipeline. */
static int float_op(const char *op)
{
	static const char *const ops[] = {"ADD",
	                                  "SUB",
	                                  "MUL",
	                                  "CONV_2D",
	                                  "DEPTHWISE_CONV_2D",
	                                  "FULLY_CONNECTED",
	                                  "QUANTIZE",
	                                  "MEAN",
	                                  "AVERAGE_POOL_2D",
	                                  "EQUAL",
	                                  "NOT_EQUAL",
	                                  "LESS",
	                                  "LESS_EQUAL",
	                                  "GREATER",
	                                  "GREATER_EQUAL",
	                                  "RESIZE_BILINEAR"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}

/* PASS per op on CpuRef, litert-int8 with every extension, seed 0. */
static const struct {
	const char *op;
	long long pass;
} kPass[] = {
        {"ADD", 869},
        {"ARG_MAX", 55},
        {"AVERAGE_POOL_2D", 577},
        {"BATCH_TO_SPACE_ND", 73},
        {"CONCATENATION", 740},
        {"CONV_2D", 2540},
        {"DEPTHWISE_CONV_2D", 653},
        {"DEQUANTIZE", 104},
        {"EQUAL", 193},
        {"FULLY_CONNECTED", 1467},
        {"GATHER", 34},
        {"GREATER", 197},
        {"GREATER_EQUAL", 221},
        {"L2_NORMALIZATION", 467},
        {"LESS", 221},
        {"LESS_EQUAL", 197},
        {"LOG_SOFTMAX", 0},
        {"LOGISTIC", 508},
        {"MAX_POOL_2D", 418},
        {"MAXIMUM", 144},
        {"MEAN", 316},
        {"MINIMUM", 144},
        {"MUL", 739},
        {"NOT_EQUAL", 193},
        {"PAD", 84},
        {"PADV2", 70},
        {"QUANTIZE", 473},
        {"RESHAPE", 144},
        {"RESIZE_BILINEAR", 70},
        {"SHAPE", 0},
        {"SLICE", 103},
        {"SOFTMAX", 1396},
        {"SPACE_TO_BATCH_ND", 73},
        {"SPACE_TO_DEPTH", 55},
        {"SQUEEZE", 90},
        {"SUB", 863},
        {"SUM", 0},
        {"TANH", 797},
        {"TRANSPOSE", 289},
};

static void test_profile(void)
{
	if (!have_plugin())
		return;
	if (qct_under_sanitizers()) {
		fprintf(stderr, "\n  plugin/armnn: the profile run is in the unsanitized pass\n");
		return;
	}
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs --profile litert-int8 --extension all --plugin %s "
	                           "--plugin-option backend=CpuRef",
	                           armnn_so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *sum = json_object_get(r, "summary");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(sum, "cases")), 21665);
	CU_ASSERT_EQUAL(count(sum, "TIMEOUT"), 0);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "ops")), sizeof kPass / sizeof kPass[0]);
	for (size_t i = 0; i < sizeof kPass / sizeof kPass[0]; i++) {
		json_t *o = find_op(r, kPass[i].op);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		if (count(o, "PASS") != kPass[i].pass)
			fprintf(stderr, "\n  %s: %lld PASS, the README says %lld", kPass[i].op,
			        count(o, "PASS"), kPass[i].pass);
		CU_ASSERT_EQUAL(count(o, "PASS"), kPass[i].pass);
	}
	/* the unmapped ops and LOG_SOFTMAX (CpuRef 20.08 has no quantized LogSoftmax) */
	static const char *const unmapped[] = {"SHAPE", "SUM", "LOG_SOFTMAX"};
	for (size_t i = 0; i < sizeof unmapped / sizeof unmapped[0]; i++) {
		json_t *o = find_op(r, unmapped[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		CU_ASSERT_EQUAL(count(o, "NOT_SUPPORTED"),
		                json_integer_value(json_object_get(o, "cases")));
	}

	size_t i, neg = 0, lsb1 = 0, softmax16 = 0, rescale = 0, resize16 = 0, crash_neg = 0;
	size_t crash_nan = 0;
	size_t crash_empty = 0, shape = 0, ns = 0, other = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *v = qct_verdict(c), *op = qct_str(c, "op"), *name = qct_str(c, "name");
		const char *msg = qct_str(c, "message");
		int negative = !strcmp(qct_str(c, "expect"), "error");
		if (!strcmp(v, "ERROR")) {
			/* Arm NN's shape inference with zero extents (or a VALID window larger
			 * than the input) infers another output shape and refuses the layer */
			if (strstr(msg, "does not match the inferred shape"))
				shape++;
			else {
				other++;
				fprintf(stderr, "\n  unexplained ERROR: %s: %s", name, msg);
			}
		} else if (!strcmp(v, "NOT_SUPPORTED")) {
			ns++;
			CU_ASSERT(*msg != 0);
		} else if (!strcmp(v, "CRASH")) {
			if (negative)
				crash_neg++;
			else if (!strcmp(op, "QUANTIZE") && starts(name, "litert/quantize/"))
				crash_nan++;
			else if (strstr(name, ";0") || strstr(name, "empty"))
				crash_empty++; /* an empty tensor: Transpose, Mean assert */
			else {
				other++;
				fprintf(stderr, "\n  unexplained CRASH: %s", name);
			}
		} else if (!strcmp(v, "FAIL")) {
			if (negative && starts(msg, "accepted and computed parameters"))
				neg++;
			else if (float_op(op) && qct_case_max_abs(c) <= 1)
				lsb1++;
			else if (starts(name, "litert/softmax_int16/"))
				softmax16++;
			else if (!strcmp(name, "litert/pad/case/pads_with_output_zero_point") ||
			         !strcmp(name,
			                 "litert/concatenation/case/int16_scales_not_compared"))
				rescale++;
			else if (!strcmp(op, "RESIZE_BILINEAR") && strstr(name, "dtype=int16"))
				resize16++; /* LiteRT's Q10 weights on int16, Arm NN's float */
			else {
				other++;
				fprintf(stderr, "\n  unexplained FAIL: %s: %s", name, msg);
			}
		}
	}
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(neg, 91);
	CU_ASSERT_EQUAL(lsb1, 922);
	CU_ASSERT_EQUAL(softmax16, 28);
	CU_ASSERT_EQUAL(rescale, 2);
	CU_ASSERT_EQUAL(resize16, 18);
	CU_ASSERT_EQUAL(crash_neg, 19);
	CU_ASSERT_EQUAL(crash_nan, 43);
	CU_ASSERT_EQUAL(crash_empty, 25);
	CU_ASSERT_EQUAL(shape, 312);
	CU_ASSERT_EQUAL(ns, 2366);
	if (neg != 91 || lsb1 != 922 || softmax16 != 28 || resize16 != 18 || crash_neg != 19 ||
	    crash_nan != 43 || crash_empty != 25 || shape != 312 || ns != 2366)
		fprintf(stderr,
		        "\n  FAIL classes %zu negative, %zu 1 LSB, %zu int16 softmax, %zu "
		        "rescaled, %zu int16 resize; "
		        "CRASH %zu negative, %zu NaN, %zu empty; ERROR %zu; NOT_SUPPORTED %zu",
		        neg, lsb1, softmax16, rescale, resize16, crash_neg, crash_nan, crash_empty,
		        shape, ns);
	json_decref(r);
	qct_rmdir(tmp);
}

/* The data-movement ops, max pooling and DEQUANTIZE: every valid case Arm NN computes is
 * exact (PASS). */
static void test_exact_ops(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/litert/reshape.yaml specs/litert/transpose.yaml "
	                           "specs/litert/max_pool_2d.yaml specs/litert/dequantize.yaml "
	                           "specs/litert/space_to_depth.yaml --plugin %s",
	                           armnn_so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	size_t i, ran = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *v = qct_verdict(c);
		/* computed valid cases (the refusals and crashes are test_profile's) */
		if (!strcmp(qct_str(c, "expect"), "error") ||
		    (strcmp(v, "PASS") && strcmp(v, "PASS_WITHIN_TOLERANCE") && strcmp(v, "FAIL")))
			continue;
		ran++;
		if (strcmp(v, "PASS"))
			fprintf(stderr, "\n  %s: %s", qct_str(c, "name"), v);
		CU_ASSERT_STRING_EQUAL(v, "PASS");
	}
	CU_ASSERT(ran > 500);
	json_decref(r);
	qct_rmdir(tmp);
}

/* The mappings of adapter 1.1: the copies (DEPTH_TO_SPACE, EXPAND_DIMS, SPLIT, SPLIT_V, UNPACK,
 * PACK, GATHER, STRIDED_SLICE, RESIZE_NEAREST_NEIGHBOR) and ELU compute every valid case they
 * take exactly (PASS); what Arm NN would abort on or cannot express is NOT_SUPPORTED before it
 * runs: no CRASH and no ERROR, also for SQRT, RSQRT and DIV (negative inputs, 0 / 0). */
static void test_new_ops(void)
{
	if (!have_plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/depth_to_space.yaml specs/litert/expand_dims.yaml "
	        "specs/litert/split.yaml specs/litert/split_v.yaml specs/litert/unpack.yaml "
	        "specs/litert/pack.yaml specs/litert/gather.yaml specs/litert/strided_slice.yaml "
	        "specs/litert/resize_nearest_neighbor.yaml specs/litert/elu.yaml "
	        "specs/litert/sqrt.yaml specs/litert/rsqrt.yaml specs/litert/div.yaml "
	        "--plugin %s",
	        armnn_so);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	size_t i, ran = 0, ns = 0;
	int pack0 = 0, nn_pair = 0, gather_bd = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *v = qct_verdict(c), *op = qct_str(c, "op"), *name = qct_str(c, "name");
		const char *msg = qct_str(c, "message");
		if (!strcmp(v, "CRASH") || !strcmp(v, "ERROR") || !strcmp(v, "TIMEOUT"))
			fprintf(stderr, "\n  %s: %s %s", name, v, msg);
		CU_ASSERT(strcmp(v, "CRASH") && strcmp(v, "ERROR") && strcmp(v, "TIMEOUT"));
		if (!strcmp(v, "NOT_SUPPORTED")) {
			ns++;
			CU_ASSERT(*msg != 0);
			pack0 |= strstr(msg, "PACK along axis 0") != NULL;
			nn_pair |= strstr(msg, "align_corners and half_pixel_centers") != NULL;
			gather_bd |= strstr(msg, "GATHER with batch_dims") != NULL;
			continue;
		}
		if (!strcmp(qct_str(c, "expect"), "error") || !strcmp(op, "SQRT") ||
		    !strcmp(op, "RSQRT") || !strcmp(op, "DIV"))
			continue;
		ran++;
		if (strcmp(v, "PASS"))
			fprintf(stderr, "\n  %s: %s", name, v);
		CU_ASSERT_STRING_EQUAL(v, "PASS");
	}
	CU_ASSERT(ran > 700);
	CU_ASSERT(ns > 100);
	CU_ASSERT(pack0 && nn_pair && gather_bd);
	json_decref(r);
	qct_rmdir(tmp);
}

/* create() takes backend=NAME among the backends the runtime offers, nothing else. */
static void test_options(void)
{
	if (!have_plugin())
		return;
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/litert/add.yaml --plugin %s --plugin-option "
	                             "backend=NoSuchBackend --quiet --json /dev/null",
	                             qct_build_path("qconform"), armnn_so),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "backend=NoSuchBackend"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "CpuRef"));
	qct_proc_free(&p);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/litert/add.yaml --plugin %s --plugin-option "
	                             "threads=2 --quiet --json /dev/null",
	                             qct_build_path("qconform"), armnn_so),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "unknown option threads=2"));
	qct_proc_free(&p);
}

void qct_register_plugin_armnn(void)
{
	CU_pSuite s = qct_suite("plugin/armnn");
	CU_add_test(s, "litert-int8 on CpuRef: PASS per op, each other verdict explained",
	            test_profile);
	CU_add_test(s, "data movement, max pooling, dequantize: every valid case PASS",
	            test_exact_ops);
	CU_add_test(s, "the 1.1 mappings: copies and ELU PASS, no CRASH or ERROR", test_new_ops);
	CU_add_test(s, "backend option: only a backend the runtime offers", test_options);
}
