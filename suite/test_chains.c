/*
 * Chains (specs/chains/): a kernel that fuses and rounds once passes the round_once chains and
 * fails the graph ones at exactly the tie elements (CONV_2D + RELU6, and the QDQ groups that ORT
 * fuses into QLinearAdd, QLinearAveragePool and the others), and passes the graph chains it cannot
 * change (no requantization between, or no fused form); a kernel wrong in node 2, offered the chain
 * op by op, fails and the result names node 2; the reference conforms either way; a chain
 * that reads a tensor no node makes is a spec error.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "qct.h"

static json_t *find_case(json_t *r, const char *name)
{
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++)
		if (!strcmp(qct_str(json_array_get(cases, i), "name"), name))
			return json_array_get(cases, i);
	return NULL;
}

static json_int_t output_count(json_t *c, const char *key)
{
	json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
	return json_integer_value(json_object_get(o, key));
}

static const char *mode(json_t *c)
{
	return qct_str(json_object_get(c, "chain"), "mode");
}

/* A dispute in r: the graph twin's case FAILs, fused, at exactly n elements; the round_once
 * twin's case passes with those n counted as needing the fused form. */
static void dispute(json_t *r, const char *graph_case, const char *fused_case, json_int_t n)
{
	json_t *g = find_case(r, graph_case), *f = find_case(r, fused_case);
	CU_ASSERT_FATAL(g && f);
	CU_ASSERT_STRING_EQUAL(qct_verdict(g), "FAIL");
	CU_ASSERT_EQUAL(output_count(g, "mismatches"), n);
	CU_ASSERT_STRING_EQUAL(mode(g), "fused");
	CU_ASSERT_STRING_EQUAL(qct_verdict(f), "PASS_WITHIN_TOLERANCE");
	CU_ASSERT_EQUAL(output_count(f, "within_fusion"), n);
	CU_ASSERT_STRING_EQUAL(mode(f), "fused");
}

/* Rounding once: the dispute's 12 tie elements fail the graph contract and nothing else;
 * under round_once they pass, counted as needing the fused form. */
static void test_fuse_once(void)
{
	int st;
	json_t *r = qct_run_report(qct_tmpdir(), &st, NULL, "specs/chains --plugin %s",
	                           qct_stub("fuse_once"));
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(st, 1);
	json_t *g = find_case(r, "litert/conv_2d_relu6_ties/case/golden_graph");
	json_t *f = find_case(r, "litert/conv_2d_relu6_ties_fused/case/golden_fused");
	CU_ASSERT_FATAL(g && f);
	CU_ASSERT_STRING_EQUAL(qct_verdict(g), "FAIL");
	CU_ASSERT_EQUAL(output_count(g, "mismatches"), 12);
	CU_ASSERT_STRING_EQUAL(mode(g), "fused");
	CU_ASSERT_STRING_EQUAL(qct_verdict(f), "PASS_WITHIN_TOLERANCE");
	CU_ASSERT_EQUAL(output_count(f, "within_fusion"), 12);
	/* the QDQ dispute: QLinearAdd for DQ -> Add -> Q, one off at exactly the 10 ties */
	json_t *qg = find_case(r, "onnx/qdq_add_ties/case/golden_graph");
	json_t *qf = find_case(r, "onnx/qdq_add_ties_fused/case/golden_fused");
	CU_ASSERT_FATAL(qg && qf);
	CU_ASSERT_STRING_EQUAL(qct_verdict(qg), "FAIL");
	CU_ASSERT_EQUAL(output_count(qg, "mismatches"), 10);
	CU_ASSERT_STRING_EQUAL(mode(qg), "fused");
	CU_ASSERT_STRING_EQUAL(qct_verdict(qf), "PASS_WITHIN_TOLERANCE");
	CU_ASSERT_EQUAL(output_count(qf, "within_fusion"), 10);
	/* MUL -> RELU6 where only the intermediate's saturation differs: a = 18 .. 31 */
	dispute(r, "litert/mul_relu6_saturation/case/golden_graph",
	        "litert/mul_relu6_saturation_fused/case/golden_fused", 14);
	/* QLinearMul, QLinearMatMul, QLinearConv for their QDQ groups: one off at every tie */
	dispute(r, "onnx/qdq_mul_ties/ysh=[40;20]", "onnx/qdq_mul_ties_fused/ysh=[40;20]", 200);
	dispute(r, "onnx/qdq_matmul_ties/m=40,n=20", "onnx/qdq_matmul_ties_fused/m=40,n=20", 400);
	dispute(r, "onnx/qdq_conv_ties/case/golden_graph",
	        "onnx/qdq_conv_ties_fused/case/golden_fused", 24);
	/* QLinearAveragePool adds zp_y before its rounding: the 20 ties of 40 */
	dispute(r, "onnx/qdq_average_pool_ties/case/golden_graph",
	        "onnx/qdq_average_pool_ties_fused/case/golden_fused", 20);
	/* QLinearGlobalAveragePool's folded multiplier lands on 8 ties the graph falls short of */
	dispute(r, "onnx/qdq_global_average_pool_ties/c=256",
	        "onnx/qdq_global_average_pool_ties_fused/c=256", 8);
	/* QLinearLeakyRelu's and QLinearConcat's tables are the QDQ group's arithmetic: fused,
	 * they equal the graph */
	int leaky = 0, concat = 0;
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		int l = strstr(qct_str(c, "spec"), "qdq_leaky_relu.yaml") != NULL;
		int k = strstr(qct_str(c, "spec"), "qdq_concat.yaml") != NULL;
		if (!l && !k)
			continue;
		leaky += l;
		concat += k;
		CU_ASSERT_STRING_EQUAL(qct_verdict(c), "PASS");
		CU_ASSERT_STRING_EQUAL(mode(c), "fused");
	}
	CU_ASSERT(leaky > 1 && concat > 1);
	/* QLinearConv with the graph's int32 bias, read without its quantization (unquantized:) */
	int bias = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		if (!strstr(qct_str(c, "spec"), "qdq_conv_bias.yaml"))
			continue;
		bias++;
		CU_ASSERT_STRING_EQUAL(mode(c), "fused");
		CU_ASSERT(!strcmp(qct_verdict(c), "PASS") ||
		          !strcmp(qct_verdict(c), "PASS_WITHIN_TOLERANCE"));
	}
	CU_ASSERT(bias > 1);
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *spec = qct_str(c, "spec");
		int graph = strstr(spec, "relu6_ties.yaml") || strstr(spec, "qdq_add_ties.yaml") ||
		            strstr(spec, "requantize_requantize") ||
		            strstr(spec, "mul_relu6_saturation.yaml") ||
		            strstr(spec, "qdq_mul_ties.yaml") ||
		            strstr(spec, "qdq_matmul_ties.yaml") ||
		            strstr(spec, "qdq_conv_ties.yaml") ||
		            strstr(spec, "qdq_average_pool_ties.yaml") ||
		            strstr(spec, "qdq_global_average_pool_ties.yaml");
		if (!graph && strcmp(qct_verdict(c), "PASS") &&
		    strcmp(qct_verdict(c), "PASS_WITHIN_TOLERANCE"))
			CU_FAIL(qct_str(c, "name"));
	}
	json_decref(r);
}

/* Op by op, a RELU6 one step high: FAIL, node 2 named. */
static void test_node2_named(void)
{
	int st;
	json_t *r = qct_run_report(qct_tmpdir(), &st, NULL,
	                           "specs/chains/conv_2d_relu6.yaml --plugin %s",
	                           qct_stub("relu6_high"));
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	int failed = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		CU_ASSERT_STRING_EQUAL(mode(c), "op by op");
		if (strcmp(qct_verdict(c), "FAIL"))
			continue;
		failed++;
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(c, "chain"),
		                                                   "first_differing_node")),
		                2);
		CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(c, "message"), "node 2 (RELU6)"));
	}
	CU_ASSERT(failed > 0);
	json_decref(r);
}

/* The reference (ABI 3: fused) conforms on every chain. */
static void test_reference(void)
{
	int st;
	json_t *r = qct_run_report(qct_tmpdir(), &st, NULL, "specs/chains");
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(st, 0);
	json_decref(r);
}

/* A node that reads a tensor no earlier node makes, and round_once without a fused form. */
static void test_validate(void)
{
	const char *tmp = qct_tmpdir();
	char path[512];
	snprintf(path, sizeof path, "%s/bad_chain.yaml", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("qconform: 1\nop: QUANTIZE+QUANTIZE\nsemantics: litert\n"
	      "inputs:\n  x: {dtype: int8, shape: [4], quant: {scale: 0.1}, data: [1, 2, 3, 4]}\n"
	      "intermediates:\n  mid: {dtype: int8, shape: [4], quant: {scale: 0.2}}\n"
	      "outputs:\n  y: {dtype: int8, shape: [4], quant: {scale: 0.4}}\n"
	      "chain:\n  - {op: QUANTIZE, inputs: [mid], outputs: [y]}\n"
	      "  - {op: QUANTIZE, inputs: [x], outputs: [mid]}\n"
	      "fusion: {contract: round_once}\n",
	      f);
	fclose(f);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "reads 'mid' before a node makes it"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "contract round_once names the single op"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* The float32 MatMul and AveragePool of a QDQ group where a partial sum is not a float32: the
 * order of the additions would decide the value, so the reference refuses and validate says
 * why. */
static void test_inexact_float_sum(void)
{
	const char *tmp = qct_tmpdir();
	char path[512];
	snprintf(path, sizeof path, "%s/inexact.yaml", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("qconform: 1\nop: MatMul\nsemantics: onnx\n"
	      "inputs:\n  a: {dtype: float32, shape: [1, 2], data: [16777216.0, 1.0]}\n"
	      "  b: {dtype: float32, shape: [2, 1], data: [1.0, 1.0]}\n"
	      "outputs:\n  y: {dtype: float32, shape: [1, 1]}\n",
	      f);
	fclose(f);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "the reference cannot run case"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "partial sum is not exact"));
	qct_proc_free(&p);
	/* AveragePool's window sum likewise: 2^24 + 1 is no float32 */
	snprintf(path, sizeof path, "%s/inexact_pool.yaml", tmp);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("qconform: 1\nop: AveragePool\nsemantics: onnx\n"
	      "inputs:\n  X: {dtype: float32, shape: [1, 1, 1, 2], data: [16777216.0, 1.0]}\n"
	      "outputs:\n  Y: {dtype: float32, shape: [1, 1, 1, 1]}\n"
	      "attrs: {kernel_shape: [1, 2]}\n",
	      f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "partial sum is not exact"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/*
 * --repeat runs a chain again as it ran the first time: op by op for a kernel of ABI 1 whose
 * QUANTIZE answers a seen input differently (suite/stubs/flaky.c), NONDETERMINISTIC with its
 * chain record; fused for the reference, which answers the same every time.
 */
static void test_repeat(void)
{
	int st;
	json_t *r = qct_run_report(qct_tmpdir(), &st, NULL,
	                           "specs/chains/requantize_requantize.yaml --repeat 3 --plugin %s",
	                           qct_stub("flaky"));
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(st, 1);
	size_t i, nondet = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		CU_ASSERT_STRING_EQUAL(mode(c), "op by op");
		if (!strcmp(qct_verdict(c), "NONDETERMINISTIC")) {
			nondet++;
			CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(c, "message"), " of 3 differ: "));
		}
	}
	CU_ASSERT(nondet > 0);
	json_decref(r);
	r = qct_run_report(qct_tmpdir(), &st, NULL, "specs/chains --repeat 2");
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT_EQUAL(st, 0);
	json_array_foreach(json_object_get(r, "cases"), i, c)
	        CU_ASSERT_STRING_EQUAL(mode(c), "fused");
	json_decref(r);
}

/*
 * --resume keeps a chain's record: a run's journal cut to its first half (as a run killed
 * there leaves it) resumed gives the whole run's cases, mode and first_differing_node included,
 * for the cases it took from the journal and for those it ran.
 */
static void test_resume(void)
{
	const char *tmp = qct_tmpdir();
	char q[600], args[1024], journal[700], cut[800];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	snprintf(journal, sizeof journal, "%s/full.json.journal", tmp);
	snprintf(args, sizeof args,
	         "run specs/chains/conv_2d_relu6.yaml specs/chains/add_relu6.yaml --plugin %s "
	         "--quiet",
	         qct_stub("relu6_high"));
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s %s --json %s/full.json --keep-journal", q, args, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	qct_proc_free(&p);
	/* the header line and the first half of the cases' lines */
	snprintf(cut, sizeof cut, "%s/cut.json.journal", tmp);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("cut", "n=$(wc -l < %s); head -n $((n / 2)) %s > %s",
	                               journal, journal, cut));
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s %s --json %s/cut.json --resume %s", q, args, tmp, cut),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "cases done before"));
	qct_proc_free(&p);
	char a[800], b[800];
	snprintf(a, sizeof a, "%s/full.json", tmp);
	snprintf(b, sizeof b, "%s/cut.json", tmp);
	json_t *x = json_load_file(a, JSON_REJECT_DUPLICATES, NULL),
	       *y = json_load_file(b, JSON_REJECT_DUPLICATES, NULL);
	CU_ASSERT_FATAL(x && y);
	json_t *cx = json_object_get(x, "cases"), *cy = json_object_get(y, "cases");
	CU_ASSERT_EQUAL(json_array_size(cx), json_array_size(cy));
	size_t named = 0;
	for (size_t i = 0; i < json_array_size(cx) && i < json_array_size(cy); i++) {
		json_t *u = json_array_get(cx, i), *v = json_array_get(cy, i);
		json_t *chu = json_object_get(u, "chain"), *chv = json_object_get(v, "chain");
		CU_ASSERT_TRUE(chu && json_equal(chu, chv));
		CU_ASSERT_STRING_EQUAL(qct_verdict(u), qct_verdict(v));
		CU_ASSERT_STRING_EQUAL(qct_str(u, "message"), qct_str(v, "message"));
		named += json_integer_value(json_object_get(chv, "first_differing_node")) == 2;
	}
	CU_ASSERT(named > 0);
	json_decref(x);
	json_decref(y);
	qct_rmdir(tmp);
}

void qct_register_chains(void)
{
	CU_pSuite s = qct_suite("chains");
	CU_add_test(s, "a fused kernel: round_once passes, graph fails at the ties",
	            test_fuse_once);
	CU_add_test(s, "op by op, the first differing node is named", test_node2_named);
	CU_add_test(s, "the reference conforms on every chain", test_reference);
	CU_add_test(s, "a chain's order and contract are checked", test_validate);
	CU_add_test(s, "a float32 sum that is not exact is refused", test_inexact_float_sum);
	CU_add_test(s, "--repeat runs a chain again, op by op or fused", test_repeat);
	CU_add_test(s, "--resume keeps a chain's record", test_resume);
}
