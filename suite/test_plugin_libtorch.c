/*
 * The libtorch adapter (plugins/libtorch): it loads, declines what it does not
 * implement, refuses torch's TORCH_CHECK cases, never lets an exception reach
 * the host, and gives the verdicts plugins/libtorch/README.md and
 * reports/examples/libtorch/README.md state for Debian's libtorch 1.13:
 * bit-exact wherever the reference models torch 1.13's arithmetic, the
 * documented differences exactly where they are, quantized linear within
 * 1 LSB. Skipped (with a line on stderr) when the adapter was not built.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "qct.h"
#include "tensor.h"

static const char *so(void)
{
	return qct_build_path("plugins/libqcf_libtorch.so");
}

static int built(void)
{
	return qct_adapter("libtorch", "libtorch-dev") != NULL;
}

static int has_prefix(const char *s, const char *p)
{
	return s && strncmp(s, p, strlen(p)) == 0;
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Runs ARGS against the adapter; the report, or NULL (a failed assertion). */
static json_t *run(const char *tmp, int *status, const char *args)
{
	json_t *r = qct_run_report(tmp, status, NULL, "%s --plugin %s --jobs 2", args, so());
	CU_ASSERT_PTR_NOT_NULL(r);
	return r;
}

/* An unknown option stops the run at load (exit 2): create() refuses, nothing escapes. */
static void test_load_and_options(void)
{
	if (!built())
		return;
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/torch/dequantize.yaml --plugin %s "
	                             "--plugin-option engine=fbgemm --quiet --json /dev/null",
	                             qct_build_path("qconform"), so()),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "engine=fbgemm"));
	qct_proc_free(&p);
	/* an op of another semantics is declined, not failed */
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = run(tmp, &st, "specs/onnx/quantize_linear.yaml --filter '*/0'");
	if (r) {
		json_t *c;
		size_t i, n = 0;
		json_array_foreach(json_object_get(r, "cases"), i, c)
		{
			n++;
			CU_ASSERT_STRING_EQUAL(qct_verdict(c), "NOT_SUPPORTED");
		}
		CU_ASSERT(n > 0);
		CU_ASSERT_EQUAL(st, 1); /* every case refused: NOTHING VERIFIED */
		json_decref(r);
	}
	qct_rmdir(tmp);
}

/*
 * The torch-fakequant profile conforms: every case PASS or EXPECTED_ERROR except
 *  - bfloat16 fake quantization: NOT_SUPPORTED, torch 1.13's own dispatch error ("... not
 *    implemented for 'BFloat16'"), and the adapter's version limit for the learnable
 *    per-channel backward, which torch 1.13 refuses for a bfloat16 X (later torch converts
 *    its tensors to float);
 * and PASS includes, bit-exact or accepted as the reference marks them:
 *  - float64 per-tensor fake quantization (and the learnable per-tensor forward built on it):
 *    torch 1.13 computes y = (double)(q - zp) * (double)scale, current torch the product in
 *    float; the reference accepts either, so most y elements of those cases are counted as
 *    accepted alternatives ("unpredictable") rather than compared exactly;
 *  - quantize_per_tensor: +inf and FLT_MAX, which the build without fbgemm converts to int64
 *    out of range (quant_min on x86), accepted as undefined.
 * No ERROR, CRASH or TIMEOUT (an escaped exception would be a CRASH), and the refusals are
 * torch's own TORCH_CHECKs.
 */
static void test_fakequant_profile(void)
{
	if (!built())
		return;
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = run(tmp, &st, "specs --profile torch-fakequant --extension all");
	if (!r) {
		qct_rmdir(tmp);
		return;
	}
	CU_ASSERT_EQUAL(st, 0);
	size_t i, pass = 0, refused = 0, torch_refusals = 0, call_refusals = 0, bf16 = 0, limit = 0;
	size_t other = 0;
	size_t f64 = 0, f64_either = 0, f64_exact = 0, big = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *v = qct_verdict(c), *name = qct_str(c, "name"), *op = qct_str(c, "op");
		const char *msg = qct_str(c, "message");
		json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
		if (strcmp(v, "PASS") == 0) {
			pass++;
			if (strstr(name, "float64") &&
			    (strcmp(op, "fake_quantize_per_tensor_affine") == 0 ||
			     strcmp(op, "fake_quantize_per_tensor_affine_cachemask") == 0 ||
			     strcmp(op, "_fake_quantize_learnable_per_tensor_affine") == 0)) {
				f64++;
				f64_either += (size_t)num(o, "unpredictable");
				f64_exact += (size_t)num(o, "elements");
			}
			if (strcmp(op, "quantize_per_tensor") == 0 && num(o, "unpredictable") > 0)
				big++;
		} else if (strcmp(v, "EXPECTED_ERROR") == 0) {
			refused++;
			torch_refusals += !strstr(msg ? msg : "", "(adapter:");
			/* outputs torch would make itself, arguments its signature types: the
			 * adapter's to refuse, torch never sees them */
			call_refusals += strstr(msg ? msg : "", "(adapter: output '") ||
			                 strstr(msg ? msg : "", "(adapter: attribute '");
		} else if (strcmp(v, "NOT_SUPPORTED") == 0 && strstr(name, "bfloat16") &&
		           strstr(msg ? msg : "", "not implemented for 'BFloat16'")) {
			bf16++;
		} else if (strcmp(v, "NOT_SUPPORTED") == 0 && strstr(name, "xt=bfloat16") &&
		           strcmp(op, "_fake_quantize_learnable_per_channel_affine_backward") ==
		                   0 &&
		           strstr(msg ? msg : "", "torch <= 1.13 takes float32 tensors only")) {
			limit++;
		} else {
			other++;
			fprintf(stderr, "\n  unexpected: %s %s: %s\n", v, name, msg ? msg : "");
		}
	}
	fprintf(stderr,
	        "\n  torch-fakequant: %zu PASS (float64 per tensor %zu cases: %zu y elements "
	        "either version's, %zu exact; quantize_per_tensor cases accepting alternatives "
	        "%zu), "
	        "%zu EXPECTED_ERROR, %zu NOT_SUPPORTED bfloat16 + %zu version limit\n",
	        pass, f64, f64_either, f64_exact, big, refused, bf16, limit);
	CU_ASSERT(pass >= 740);
	CU_ASSERT(refused >= 100);
	/* the refusals torch can make are torch's own */
	CU_ASSERT(torch_refusals * 10 >= (refused - call_refusals) * 9);
	CU_ASSERT(f64 >= 40);
	CU_ASSERT(f64_either > f64_exact); /* torch 1.13's double product: most elements */
	CU_ASSERT(big > 0);
	CU_ASSERT(bf16 > 0);
	CU_ASSERT_EQUAL(limit, 4);
	CU_ASSERT_EQUAL(other, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/* aten's TORCH_CHECK (quant_min > quant_max) reaches the host as QCF_INVALID_PARAM with
 * torch's message: EXPECTED_ERROR. */
static void test_torch_check_refusal(void)
{
	if (!built())
		return;
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = run(tmp, &st, "specs/torch/fake_quantize_per_tensor_affine_params.yaml");
	if (!r) {
		qct_rmdir(tmp);
		return;
	}
	json_t *c;
	size_t i, hits = 0;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *msg = qct_str(c, "message");
		if (strcmp(qct_verdict(c), "EXPECTED_ERROR") == 0 && msg &&
		    strstr(msg, "`quant_min` should be less than or equal to `quant_max`"))
			hits++;
		CU_ASSERT(strcmp(qct_verdict(c), "PASS") == 0 ||
		          strcmp(qct_verdict(c), "EXPECTED_ERROR") == 0);
	}
	CU_ASSERT(hits > 0);
	CU_ASSERT_EQUAL(st, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/*
 * quantized_linear on the qnnpack engine: every computed case within 1 LSB, NOT_SUPPORTED
 * only for the qint8 activations XNNPACK cannot take (asymmetric or per-channel weights),
 * and the one FAIL is the in_features mismatch torch does not check.
 */
static void test_quantized_linear(void)
{
	if (!built())
		return;
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = run(tmp, &st, "specs/torch/quantized_linear.yaml");
	if (!r) {
		qct_rmdir(tmp);
		return;
	}
	CU_ASSERT_EQUAL(st, 1);
	json_t *c;
	size_t i, ok = 0, within = 0, ns = 0, fail = 0, refused = 0, other = 0;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *v = qct_verdict(c), *name = qct_str(c, "name");
		json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
		if (strcmp(v, "PASS") == 0 || strcmp(v, "PASS_WITHIN_TOLERANCE") == 0) {
			CU_ASSERT(num(o, "max_abs") <= 1);
			ok++;
			within += v[4] == '_';
		} else if (strcmp(v, "NOT_SUPPORTED") == 0) {
			CU_ASSERT(has_prefix(name, "torch/quantized_linear/tx=int8,wq=tensor3") ||
			          has_prefix(name, "torch/quantized_linear/tx=int8,wq=channel"));
			ns++;
		} else if (strcmp(v, "FAIL") == 0) {
			CU_ASSERT_STRING_EQUAL(
			        name, "torch/quantized_linear/case/in_features_mismatch_refused");
			fail++;
		} else if (strcmp(v, "EXPECTED_ERROR") == 0) {
			refused++;
		} else {
			other++;
			fprintf(stderr, "\n  unexpected: %s %s\n", v, name);
		}
	}
	CU_ASSERT(ok >= 80);
	CU_ASSERT(within >= 1); /* the requantization really differs somewhere */
	CU_ASSERT_EQUAL(ns, 40);
	CU_ASSERT_EQUAL(fail, 1);
	CU_ASSERT_EQUAL(refused, 10);
	CU_ASSERT_EQUAL(other, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

/*
 * The reference of quantized_linear (reference/torch_linear.c) by hand, without libtorch:
 * x uint8 (scale 0.5, zp 128) [130, 126; 129, 128] is [1, -1; 0.5, 0]; the weight int8 per
 * channel (scales 0.25, 0.5; zps 0, 1) [2, 4; 3, -1] is [0.5, 1; 1, -1]; bias [0.25, -0.5].
 * y = [-0.25, 1.5; 0.5, 0], over y_scale 0.5: [-0.5, 3; 1, 0]. With y_zp 10 every CPU build of
 * quantize_per_tensor gives 10 + [0, 3, 1, 0] (the tie -0.5 goes to even both ways); with
 * y_zp 11 the tie is 10 (zero point before rounding, fbgemm) or 11 (after, no fbgemm), and the
 * element accepts both.
 */
static void test_reference_linear(void)
{
	static const int64_t sx[] = {2, 2}, sb[] = {2};
	qt x, w, b, y;
	qt_make(&x, QCF_UINT8, 2, sx, 0.5f, 128);
	qt_fill(&x, (const double[]){130, 126, 129, 128}, 4);
	qt_init(&w, QCF_INT8, 2, sx);
	qt_quant(&w, 0, 2, (const float[]){0.25f, 0.5f}, (const int32_t[]){0, 1});
	qt_fill(&w, (const double[]){2, 4, 3, -1}, 4);
	qt_init(&b, QCF_FLOAT32, 1, sb);
	qt_fill(&b, (const double[]){0.25, -0.5}, 2);
	qt_make(&y, QCF_UINT8, 2, sx, 0.5f, 10);
	qt *in[] = {&x, &w, &b}, *out[] = {&y};
	qt_det d;
	CU_ASSERT_EQUAL_FATAL(qt_run("torch", "quantized_linear", in, 3, out, 1, NULL, 0,
	                             qt_det_init(&d, QREF_ROUND_DEFAULT)),
	                      QCF_OK);
	CU_ASSERT(qt_equals(&y, (const double[]){10, 13, 11, 10}, 4));
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(d.any[0][i], 0);
	qt_quant1(&y, 0.5f, 11);
	CU_ASSERT_EQUAL_FATAL(qt_run("torch", "quantized_linear", in, 3, out, 1, NULL, 0,
	                             qt_det_init(&d, QREF_ROUND_DEFAULT)),
	                      QCF_OK);
	CU_ASSERT_EQUAL(qt_get(&y, 0), 10);
	CU_ASSERT_EQUAL(d.any[0][0], 1);
	CU_ASSERT_EQUAL(d.lo[0][0], 10);
	CU_ASSERT_EQUAL(d.hi[0][0], 11);
	CU_ASSERT(qt_equals(&y, (const double[]){10, 14, 12, 11}, 4));
	/* without the bias: 2 inputs */
	CU_ASSERT_EQUAL(qt_run("torch", "quantized_linear", in, 2, out, 1, NULL, 0,
	                       qt_det_init(&d, QREF_ROUND_DEFAULT)),
	                QCF_OK);
	CU_ASSERT(
	        qt_equals(&y, (const double[]){10, 15, 12, 12}, 4)); /* y = [-0.5, 2; 0.25, 0.5] */
	/* refusals: in_features that differ, a quint8 weight */
	static const int64_t s23[] = {2, 3};
	qt x3;
	qt_make(&x3, QCF_UINT8, 2, s23, 0.5f, 128);
	qt *in3[] = {&x3, &w, &b};
	CU_ASSERT_EQUAL(qt_run("torch", "quantized_linear", in3, 3, out, 1, NULL, 0,
	                       qt_det_init(&d, QREF_ROUND_DEFAULT)),
	                QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.d.message, "in_features"));
	qt wu;
	qt_make(&wu, QCF_UINT8, 2, sx, 0.25f, 128);
	qt *inu[] = {&x, &wu, &b};
	CU_ASSERT_EQUAL(qt_run("torch", "quantized_linear", inu, 3, out, 1, NULL, 0,
	                       qt_det_init(&d, QREF_ROUND_DEFAULT)),
	                QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.d.message, "QInt8"));
}

void qct_register_plugin_libtorch(void)
{
	CU_pSuite s = qct_suite("plugin/libtorch");
	CU_add_test(s, "loads; options; other semantics declined", test_load_and_options);
	CU_add_test(s, "torch-fakequant conforms: bit-exact, either torch version, bfloat16 limits",
	            test_fakequant_profile);
	CU_add_test(s, "a TORCH_CHECK is EXPECTED_ERROR", test_torch_check_refusal);
	CU_add_test(s, "quantized_linear (qnnpack): within 1 LSB", test_quantized_linear);
	CU_add_test(s, "quantized_linear reference by hand", test_reference_linear);
}
