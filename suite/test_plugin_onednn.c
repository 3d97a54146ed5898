/*
 * The oneDNN adapter (plugins/onednn): it loads, answers supports() as its README says, and
 * its verdicts are the ones reports/examples/onednn/README.md explains:
 *  - with VNNI (avx512_core_vnni or avx2_vnni): LiteRT CONV_2D, DEPTHWISE_CONV_2D and
 *    FULLY_CONNECTED within 1 LSB of the reference, the only failures 1-LSB tie breaks;
 *    ONNX QLinearMatMul, MatMulInteger, QLinearConv and ConvInteger bit-exact;
 *  - without VNNI: CONV_2D off by several LSB at isa=avx2 (the weights are halved to avoid
 *    16-bit saturation), FULLY_CONNECTED by many at isa=avx512_core (the s8 x s8 matmul
 *    saturates 16-bit pair sums), as oneDNN's int8 documentation warns;
 *  - an unknown isa value stops the run at create() with exit 2 and a one-line reason.
 * Skipped with a note on stderr when the plugin was not built (libdnnl-dev absent) or when
 * the CPU cannot run the ISA a test pins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "qct.h"

#define LITERT_SPECS                                                                               \
	"specs/litert/conv_2d.yaml specs/litert/depthwise_conv_2d.yaml "                           \
	"specs/litert/fully_connected.yaml specs/litert/fully_connected_no_bias.yaml"
#define ONNX_SPECS                                                                                 \
	"specs/onnx/qlinear_matmul.yaml specs/onnx/qlinear_matmul_per_row.yaml "                   \
	"specs/onnx/matmul_integer.yaml specs/onnx/qlinear_conv.yaml "                             \
	"specs/onnx/qlinear_conv_per_channel.yaml specs/onnx/conv_integer.yaml"

static const char *plugin(void)
{
	return qct_adapter("onednn", "libdnnl-dev");
}

/* Runs the adapter with isa=ISA over ARGS; NULL (and a note) when the CPU cannot run it. */
static json_t *run_isa(const char *tmp, const char *isa, int *status, const char *args)
{
	char *err = NULL;
	json_t *r = qct_run_report(tmp, status, &err, "%s --plugin %s --plugin-option isa=%s", args,
	                           plugin(), isa);
	if (!r && *status == 2 && err && strstr(err, "this CPU cannot run it"))
		fprintf(stderr, "\n  plugin/onednn: this CPU cannot run isa=%s: skipped\n", isa);
	else if (!r)
		fprintf(stderr, "\n  plugin/onednn: run failed (%d): %s\n", *status,
		        err ? err : "");
	free(err);
	return r;
}

/* The first VNNI ISA this CPU runs, or NULL. */
static const char *vnni_isa(const char *tmp)
{
	static const char *isas[] = {"avx512_core_vnni", "avx2_vnni"};
	for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
		int st;
		json_t *r = run_isa(tmp, isas[i], &st,
		                    "specs/litert/fully_connected.yaml --filter "
		                    "'litert/fully_connected/case/simple_per_channel_int8'");
		if (r) {
			json_decref(r);
			return isas[i];
		}
	}
	return NULL;
}

/* Per op of a report: verdict counts and the largest |e| of any computed case. */
typedef struct op_tally {
	int cases, pass, within, fail, ns, expected_error, bad; /* bad: ERROR, CRASH, TIMEOUT */
	double max_abs, fail_min_abs;
} op_tally;

static op_tally tally_op(json_t *r, const char *op)
{
	op_tally t = {0};
	t.fail_min_abs = 1e300;
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		if (strcmp(qct_str(c, "op"), op) != 0)
			continue;
		const char *v = qct_verdict(c);
		t.cases++;
		if (!strcmp(v, "PASS"))
			t.pass++;
		else if (!strcmp(v, "PASS_WITHIN_TOLERANCE"))
			t.within++;
		else if (!strcmp(v, "FAIL"))
			t.fail++;
		else if (!strcmp(v, "NOT_SUPPORTED"))
			t.ns++;
		else if (!strcmp(v, "EXPECTED_ERROR"))
			t.expected_error++;
		else {
			t.bad++;
			fprintf(stderr, "\n  %s: %s (%s)\n", qct_str(c, "name"), v,
			        qct_str(c, "message"));
		}
		double case_max = qct_case_max_abs(c);
		t.max_abs = case_max > t.max_abs ? case_max : t.max_abs;
		if (!strcmp(v, "FAIL") && case_max < t.fail_min_abs)
			t.fail_min_abs = case_max;
	}
	return t;
}

static void test_loads_and_golden(void)
{
	if (!plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/litert/fully_connected.yaml specs/litert/conv_2d.yaml "
	                           "--filter '*/case/simple_*_int8' --filter "
	                           "'*/case/simple_per_channel' --plugin %s",
	                           plugin());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *pl = json_object_get(json_object_get(r, "run"), "plugin");
	CU_ASSERT_STRING_EQUAL(qct_str(pl, "name"), "onednn");
	CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(pl, "version"), "+onednn2."));
	/* LiteRT's published goldens: per-tensor weights with zero point -1 (oneDNN's matmul
	 * weights zero point), per-channel FC and conv */
	qct_tally t = qct_tally_report(r);
	CU_ASSERT_EQUAL(t.cases, 3);
	json_decref(r);
	/* the conv golden needs VNNI: without it oneDNN halves the convolution's weights
	 * (test_no_vnni); the two FULLY_CONNECTED goldens pass on any ISA */
	if (vnni_isa(tmp)) {
		CU_ASSERT_EQUAL(st, 0);
		CU_ASSERT_EQUAL(t.pass, 3);
	} else {
		fprintf(stderr, "\n  plugin/onednn: no VNNI: the CONV_2D golden is not checked\n");
		CU_ASSERT(t.pass >= 2);
	}
	qct_rmdir(tmp);
}

static void test_supports(void)
{
	if (!plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st;
	/* int4 weights, int16 activations and unmapped ops are NOT_SUPPORTED; the LiteRT
	 * rules (filter zero point, shapes, strides, activations) are refused as the spec
	 * expects */
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/conv_2d.yaml specs/litert/fully_connected_16x8.yaml "
	        "specs/litert/gather.yaml specs/litert/depthwise_conv_2d.yaml "
	        "specs/litert/fully_connected.yaml --filter '*wdt=int4*' --filter "
	        "'litert/fully_connected_16x8/*' --filter 'litert/gather/*' --filter '*/case/*' "
	        "--filter '-*/case/simple*' --filter '-*/case/per_channel_keep_num_dims' "
	        "--plugin %s",
	        plugin());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	size_t i;
	json_t *c;
	int ns_int4 = 0, ns_16x8 = 0, ns_gather = 0, refused = 0;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *name = qct_str(c, "name"), *v = qct_verdict(c);
		int named = !strncmp(name, "litert/conv_2d/case/", 20) ||
		            !strncmp(name, "litert/depthwise_conv_2d/case/", 30) ||
		            !strncmp(name, "litert/fully_connected/case/", 28);
		if (named) {
			if (strstr(name, "int4") && !strstr(name, "zero_point")) {
				CU_ASSERT_STRING_EQUAL(v, "NOT_SUPPORTED");
			} else {
				CU_ASSERT_STRING_EQUAL(v, "EXPECTED_ERROR");
				refused += !strcmp(v, "EXPECTED_ERROR");
				if (strcmp(v, "EXPECTED_ERROR"))
					fprintf(stderr, "\n  %s: %s\n", name, v);
			}
		} else if (strstr(name, "wdt=int4")) {
			CU_ASSERT_STRING_EQUAL(v, "NOT_SUPPORTED");
			ns_int4 += !strcmp(v, "NOT_SUPPORTED") &&
			           strstr(qct_str(c, "message"), "no int4 weights") != NULL;
		} else if (strstr(name, "fully_connected_16x8")) {
			if (strcmp(qct_str(c, "expect"), "error") != 0) {
				CU_ASSERT_STRING_EQUAL(v, "NOT_SUPPORTED");
				ns_16x8 += !strcmp(v, "NOT_SUPPORTED");
			}
		} else if (strstr(name, "litert/gather/")) {
			if (strcmp(qct_str(c, "expect"), "error") != 0) {
				CU_ASSERT_STRING_EQUAL(v, "NOT_SUPPORTED");
				ns_gather += strstr(qct_str(c, "message"),
				                    "not mapped onto oneDNN") != NULL;
			}
		}
	}
	CU_ASSERT(ns_int4 > 0);
	CU_ASSERT(ns_16x8 > 0);
	CU_ASSERT(ns_gather > 0);
	CU_ASSERT(refused >= 20);
	json_decref(r);
	qct_rmdir(tmp);
}

static void test_unknown_isa(void)
{
	if (!plugin())
		return;
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/litert/fully_connected.yaml --quiet --plugin %s "
	                             "--plugin-option isa=avx9000 --json /dev/null",
	                             qct_build_path("qconform"), plugin()),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	/* one line: the value, why, and what oneDNN 2.6 offers */
	const char *nl = strchr(p.err, '\n');
	CU_ASSERT(nl != NULL && nl[1] == '\0');
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "isa=avx9000: unknown ISA"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "avx2, avx2_vnni"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "avx512_core_amx"));
	qct_proc_free(&p);
	/* an option it does not know */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/litert/fully_connected.yaml --quiet --plugin %s "
	                             "--plugin-option threads=2 --json /dev/null",
	                             qct_build_path("qconform"), plugin()),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "unknown option 'threads'"));
	qct_proc_free(&p);
}

static void test_vnni_verdicts(void)
{
	if (!plugin())
		return;
	const char *tmp = qct_tmpdir();
	const char *isa = vnni_isa(tmp);
	if (!isa) {
		fprintf(stderr, "\n  plugin/onednn: no VNNI on this CPU: the 1-LSB claims are not "
		                "checked\n");
		qct_rmdir(tmp);
		return;
	}
	int st;
	json_t *r = run_isa(tmp, isa, &st, LITERT_SPECS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1); /* the tie breaks do not conform */
	static const char *ops[] = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"};
	for (int k = 0; k < 3; k++) {
		op_tally t = tally_op(r, ops[k]);
		CU_ASSERT(t.cases > 50);
		CU_ASSERT_EQUAL(t.bad, 0);
		CU_ASSERT(t.pass > t.cases / 2);
		/* within 1 LSB everywhere; what fails is a 1-LSB tie break */
		CU_ASSERT_EQUAL(t.max_abs, 1);
		CU_ASSERT(t.fail > 0);
		CU_ASSERT_EQUAL(t.fail_min_abs, 1);
	}
	json_decref(r);

	r = run_isa(tmp, isa, &st, ONNX_SPECS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	static const char *onnx[] = {"QLinearMatMul", "MatMulInteger", "QLinearConv",
	                             "ConvInteger"};
	for (int k = 0; k < 4; k++) {
		op_tally t = tally_op(r, onnx[k]);
		CU_ASSERT(t.pass > 0);
		/* bit-exact whenever oneDNN computes it */
		CU_ASSERT_EQUAL(t.within + t.fail + t.bad, 0);
		CU_ASSERT_EQUAL(t.max_abs, 0);
	}
	json_decref(r);
	qct_rmdir(tmp);
}

/*
 * The ops adapter 1.1 maps as chains of primitives (plugins/onednn/README.md, "Mapping"):
 * data movement and max/min bit-exact, the requantizing ops within 1 LSB of the reference
 * (oneDNN rounds a float32 value to nearest even), int16 NOT_SUPPORTED, every negative case
 * refused. Independent of the ISA: none of them runs an int8 dot product.
 */
static void test_chain_ops(void)
{
	if (!plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/max_pool_2d.yaml specs/litert/average_pool_2d.yaml "
	        "specs/litert/maximum.yaml specs/litert/minimum.yaml specs/litert/transpose.yaml "
	        "specs/litert/concatenation.yaml specs/litert/space_to_depth.yaml "
	        "specs/litert/depth_to_space.yaml specs/litert/reduce_max.yaml "
	        "specs/litert/reduce_min.yaml specs/litert/dequantize.yaml specs/litert/add.yaml "
	        "specs/litert/sub.yaml specs/litert/mul.yaml specs/litert/quantize.yaml "
	        "specs/litert/requantize.yaml specs/litert/mean.yaml specs/litert/sum.yaml "
	        "specs/litert/softmax.yaml specs/litert/relu6.yaml specs/litert/relu_n1_to_1.yaml "
	        "specs/litert/resize_bilinear.yaml specs/onnx/dequantize_linear.yaml "
	        "specs/onnx/quantize_linear.yaml specs/litert/tanh.yaml specs/litert/logistic.yaml "
	        "specs/litert/elu.yaml specs/litert/leaky_relu.yaml specs/litert/log_softmax.yaml "
	        "specs/litert/equal.yaml specs/litert/greater.yaml "
	        "specs/litert/l2_normalization.yaml specs/litert/slice.yaml specs/litert/exp.yaml "
	        "specs/litert/gelu.yaml specs/litert/hard_swish.yaml specs/litert/abs.yaml "
	        "specs/litert/log.yaml --plugin %s",
	        plugin());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	static const char *exact[] = {"MAX_POOL_2D",    "MAXIMUM",          "MINIMUM",
	                              "TRANSPOSE",      "CONCATENATION",    "SPACE_TO_DEPTH",
	                              "DEPTH_TO_SPACE", "REDUCE_MAX",       "REDUCE_MIN",
	                              "DEQUANTIZE",     "DequantizeLinear", "SLICE"};
	for (size_t k = 0; k < sizeof exact / sizeof exact[0]; k++) {
		op_tally t = tally_op(r, exact[k]);
		if (t.pass < 5 || t.within + t.fail + t.bad > 0)
			fprintf(stderr, "\n  %s: %d pass, %d within, %d fail, %d bad\n", exact[k],
			        t.pass, t.within, t.fail, t.bad);
		CU_ASSERT(t.pass >= 5);
		CU_ASSERT_EQUAL(t.within + t.fail + t.bad, 0);
		CU_ASSERT_EQUAL(t.max_abs, 0);
	}
	/* rounded once in float32, to nearest even: 1-LSB differences at (near) ties; RELU6's
	 * clip post-op output is written (an eltwise clip post-op left it unwritten) */
	static const char *one_lsb[] = {"AVERAGE_POOL_2D",
	                                "ADD",
	                                "SUB",
	                                "MUL",
	                                "QUANTIZE",
	                                "MEAN",
	                                "SUM",
	                                "RELU6",
	                                "RELU_N1_TO_1",
	                                "RESIZE_BILINEAR",
	                                "SOFTMAX",
	                                "QuantizeLinear",
	                                "ELU",
	                                "LEAKY_RELU",
	                                "EQUAL",
	                                "GREATER",
	                                "L2_NORMALIZATION",
	                                "HARD_SWISH",
	                                "ABS"};
	for (size_t k = 0; k < sizeof one_lsb / sizeof one_lsb[0]; k++) {
		op_tally t = tally_op(r, one_lsb[k]);
		if (t.bad || t.max_abs > 1)
			fprintf(stderr, "\n  %s: %d bad, max |e| %g\n", one_lsb[k], t.bad,
			        t.max_abs);
		CU_ASSERT(t.pass > 0);
		CU_ASSERT_EQUAL(t.bad, 0);
		CU_ASSERT(t.max_abs <= 1);
	}
	/* TANH, LOGISTIC, LOG_SOFTMAX in float32: every computed case within the tolerance (as
	 * post-ops of one binary primitive, the second linear took the first one's parameters) */
	static const char *in_tol[] = {"TANH", "LOGISTIC", "LOG_SOFTMAX", "EXP", "GELU"};
	for (size_t k = 0; k < 5; k++) {
		op_tally t = tally_op(r, in_tol[k]);
		CU_ASSERT(t.pass > 100);
		CU_ASSERT_EQUAL(t.fail + t.bad, 0);
	}
	/* LOG of data at or below the zero point (log of <= 0) is not run: oneDNN stores -inf as
	 * 127 where LiteRT's table holds -128; every LOG sweep holds such values */
	{
		op_tally t = tally_op(r, "LOG");
		CU_ASSERT_EQUAL(t.pass + t.within + t.fail + t.bad, 0);
		CU_ASSERT(t.ns > 0);
	}
	/* and nothing else: every negative case refused, no valid case refused as invalid */
	size_t i;
	json_t *c;
	int int16_ns = 0;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *v = qct_verdict(c), *m = qct_str(c, "message");
		if (!strcmp(v, "FAIL") && !strcmp(qct_str(c, "expect"), "error"))
			fprintf(stderr, "\n  computed a negative case: %s\n", qct_str(c, "name"));
		CU_ASSERT(strcmp(v, "FAIL") != 0 || strcmp(qct_str(c, "expect"), "error") != 0);
		CU_ASSERT(strstr(m, "refused a valid case") == NULL);
		int16_ns += !strcmp(v, "NOT_SUPPORTED") && strstr(m, "int16") != NULL;
	}
	CU_ASSERT(int16_ns > 0);
	json_decref(r);
	/* LiteRT's ADD and SUB abort on an output multiplier of 1 or more: refused, not run */
	r = qct_run_report(tmp, &st, NULL,
	                   "specs/litert/add_fixed.yaml specs/litert/sub_fixed.yaml --filter "
	                   "'*/case/output_multiplier_*' --plugin %s",
	                   plugin());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	int negatives = 0;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		if (strcmp(qct_str(c, "expect"), "error") != 0)
			continue;
		negatives++;
		CU_ASSERT_STRING_EQUAL(qct_verdict(c), "EXPECTED_ERROR");
	}
	CU_ASSERT_EQUAL(negatives, 3);
	json_decref(r);
	qct_rmdir(tmp);
}

static void test_no_vnni(void)
{
	if (!plugin())
		return;
	const char *tmp = qct_tmpdir();
	int st;
	/* avx2: the convolution's weights reorder halves the weights (rounded) to keep the
	 * 16-bit pair sums from saturating, and doubles the output scale: errors of several LSB */
	json_t *r = run_isa(tmp, "avx2", &st, "specs/litert/conv_2d.yaml");
	if (r) {
		CU_ASSERT_EQUAL(st, 1);
		op_tally t = tally_op(r, "CONV_2D");
		CU_ASSERT_EQUAL(t.bad, 0);
		CU_ASSERT(t.fail > 10);
		CU_ASSERT(t.max_abs > 1);
		json_decref(r);
	}
	/* avx512_core (no VNNI): the s8 x s8 matmul saturates u8 x s8 pair sums to 16 bits */
	r = run_isa(tmp, "avx512_core", &st, "specs/litert/fully_connected.yaml");
	if (r) {
		CU_ASSERT_EQUAL(st, 1);
		op_tally t = tally_op(r, "FULLY_CONNECTED");
		CU_ASSERT_EQUAL(t.bad, 0);
		CU_ASSERT(t.fail > 10);
		CU_ASSERT(t.max_abs > 16);
		json_decref(r);
	}
	qct_rmdir(tmp);
}

void qct_register_plugin_onednn(void)
{
	CU_pSuite s = qct_suite("plugin/onednn");
	CU_add_test(s, "loads; LiteRT's goldens through matmul and convolution",
	            test_loads_and_golden);
	CU_add_test(s, "supports(): int4, 16x8, unmapped ops; LiteRT rules refused", test_supports);
	CU_add_test(s, "isa=unknown and unknown options refused at create, exit 2",
	            test_unknown_isa);
	CU_add_test(s, "VNNI: LiteRT within 1 LSB (tie breaks), ONNX bit-exact",
	            test_vnni_verdicts);
	CU_add_test(s, "pooling, binary, Q/DQ, movement, reductions, softmax: exact or 1 LSB",
	            test_chain_ops);
	CU_add_test(s, "no VNNI: halved conv weights (avx2), saturated matmul (avx512_core)",
	            test_no_vnni);
}
