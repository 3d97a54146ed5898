/*
 * The cross build (`make cross ARCH=aarch64`, README.md "Cross builds"): the aarch64 worker and
 * reference plugin, run under qemu-user through the worker wrapper (qconform-worker-qemu, as
 * QCONFORM_WORKER) by the native harness, give the native run's report case for case: the same
 * cases, verdicts, messages and metrics (everything but the timings and the reproduce line).
 * That holds the reference to bit-exactness across architectures and the worker's protocol
 * (the socket, the arena mapped at the harness's address) to working through qemu-user. The
 * same again through --remote (the wrapper as `qconform-worker --stdio`, harness/src/run/
 * stream.h): the stream between an x86-64 harness and an aarch64 worker, as with a board.
 *
 * Skipped, with a line on stderr, where qemu-aarch64 or aarch64-linux-gnu-gcc is missing (`make
 * deps-cross` installs them) and under the sanitizers (the worker would be built without them;
 * the plain pass runs it). The build is `make cross ARCH=aarch64 CROSS_GOALS=cross-core` into
 * $QCONFORM_BUILD/aarch64: the worker, the reference and the wrapper, not the adapters.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qct.h"

/* Every reference source file's ops, the float-heavy ones (softmax, logistic, L2
 * normalization, bilinear resize, mean, dynamic quantization, the gradients) included: about
 * 4700 cases, a few seconds for both runs on two idle cores. */
static const char *cross_specs =
        "specs/litert/add.yaml specs/litert/conv_2d.yaml specs/litert/depthwise_conv_2d.yaml "
        "specs/litert/fully_connected.yaml specs/litert/softmax.yaml specs/litert/logistic.yaml "
        "specs/litert/l2_normalization.yaml specs/litert/resize_bilinear.yaml "
        "specs/litert/mean.yaml specs/litert/quantize.yaml specs/litert/concatenation3.yaml "
        "specs/onnx/quantize_linear.yaml specs/onnx/qlinear_matmul.yaml "
        "specs/onnx/qlinear_conv.yaml specs/onnx/dynamic_quantize_linear.yaml "
        "specs/torch/fake_quantize_per_tensor_affine.yaml "
        "specs/torch/_fake_quantize_learnable_per_tensor_affine_backward.yaml "
        "specs/torch/quantized_linear.yaml specs/torch/quantize_per_tensor.yaml "
        "specs/tf/fake_quant_with_min_max_args.yaml "
        "specs/tf/fake_quant_with_min_max_vars_gradient.yaml";

static int have_cross(void)
{
	if (qct_under_sanitizers()) {
		fprintf(stderr, "\n  cross: not run under sanitizers; the plain pass runs it\n");
		return 0;
	}
	qct_proc p;
	if (qct_sh(&p, "command -v qemu-aarch64 && command -v aarch64-linux-gnu-gcc") != 0)
		return 0;
	int ok = p.status == 0;
	qct_proc_free(&p);
	if (!ok)
		fprintf(stderr,
		        "\n  cross: qemu-aarch64 or aarch64-linux-gnu-gcc is missing ('make "
		        "deps-cross' installs them): skipped\n");
	return ok;
}

/* A case without its timings (every "seconds" or "*_seconds" member, at any depth) and its
 * "reproduce" command line, which names the plugin's path. */
static void drop_timings(json_t *j)
{
	if (json_is_array(j)) {
		size_t i;
		json_t *v;
		json_array_foreach(j, i, v) drop_timings(v);
		return;
	}
	if (!json_is_object(j))
		return;
	const char *k;
	json_t *v;
	void *tmp;
	json_object_foreach_safe(j, tmp, k, v)
	{
		size_t n = strlen(k);
		if (!strcmp(k, "seconds") || !strcmp(k, "reproduce") ||
		    (n > 8 && !strcmp(k + n - 8, "_seconds")))
			json_object_del(j, k);
		else
			drop_timings(v);
	}
}

static json_t *run_specs(const char *specs, const char *tmp, const char *name,
                         const char *worker_env, const char *plugin, const char *extra)
{
	char json[700];
	snprintf(json, sizeof json, "%s/%s.json", tmp, name);
	qct_proc p;
	if (qct_sh(&p, "%s %s run %s %s%s --jobs 2 --quiet --json %s %s", worker_env,
	           qct_build_path("qconform"), specs, plugin[0] ? "--plugin " : "", plugin, json,
	           extra) != 0)
		return NULL;
	if (p.status > 1) /* 1: the run does not conform, a result */
		fprintf(stderr, "\n  cross: %s run: exit %d\n%s", name, p.status, p.err);
	CU_ASSERT(p.status <= 1);
	qct_proc_free(&p);
	json_error_t e;
	json_t *r = json_load_file(json, 0, &e);
	if (!r)
		fprintf(stderr, "\n  cross: %s: %s\n", json, e.text);
	return r;
}

static json_t *run(const char *tmp, const char *name, const char *worker_env, const char *plugin,
                   const char *extra)
{
	return run_specs(cross_specs, tmp, name, worker_env, plugin, extra);
}

/* Every case of b as a's, timings and reproduce lines aside. */
static void same_cases(json_t *nat, json_t *cross, const char *what)
{
	CU_ASSERT_PTR_NOT_NULL(cross);
	if (!nat || !cross)
		return;
	json_t *a = json_object_get(nat, "cases"), *b = json_object_get(cross, "cases");
	CU_ASSERT(json_array_size(a) > 50);
	CU_ASSERT_EQUAL(json_array_size(a), json_array_size(b));
	size_t i, differ = 0;
	json_t *c;
	json_array_foreach(a, i, c)
	{
		json_t *d = json_deep_copy(json_array_get(b, i));
		c = json_deep_copy(c);
		drop_timings(c);
		drop_timings(d);
		if (!d || !json_equal(c, d)) {
			if (differ++ < 3) {
				char *x = json_dumps(c, JSON_COMPACT),
				     *y = d ? json_dumps(d, JSON_COMPACT) : NULL;
				fprintf(stderr,
				        "\n  cross: case %zu differs\n    x86_64:  %.600s\n    %s: "
				        "%.600s\n",
				        i, x ? x : "?", what, y ? y : "(none)");
				free(x);
				free(y);
			}
		}
		json_decref(c);
		json_decref(d);
	}
	CU_ASSERT_EQUAL(differ, 0);
	fprintf(stderr, "\n  cross: %zu cases, %zu differ between x86_64 and %s\n",
	        json_array_size(a), differ, what);
}

static void test_reference_under_qemu(void)
{
	if (!have_cross())
		return;
	char build[600];
	snprintf(build, sizeof build, "%s", qct_build_path(""));
	build[strlen(build) - 1] = 0; /* "build/" -> "build" */
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL nice make -s "
	                             "--no-print-directory -j2 BUILD='%s' cross ARCH=aarch64 "
	                             "CROSS_GOALS=cross-core",
	                             build),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	qct_proc_free(&p);

	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	char env[1200], plugin[1024];
	snprintf(env, sizeof env, "QCONFORM_WORKER='%s'",
	         qct_build_path("aarch64/qconform-worker-qemu"));
	snprintf(plugin, sizeof plugin, "%s", qct_build_path("aarch64/libqconform_reference.so"));
	json_t *nat = run(tmp, "native", "", qct_build_path("libqconform_reference.so"), "");
	json_t *cross = run(tmp, "aarch64", env, plugin, "");
	char remote[1200];
	snprintf(remote, sizeof remote, "--remote '%s --stdio'",
	         qct_build_path("aarch64/qconform-worker-qemu"));
	json_t *stream = run(tmp, "aarch64-remote", "", plugin, remote);
	CU_ASSERT_PTR_NOT_NULL(nat);
	same_cases(nat, cross, "aarch64 under qemu");
	same_cases(nat, stream, "aarch64 under qemu, --remote");
	/* the worker under qemu-user sees the host's /proc/cpuinfo: it says it is emulated */
	json_t *pf = json_object_get(json_object_get(json_object_get(stream, "run"), "plugin"),
	                             "platform");
	CU_ASSERT_STRING_EQUAL(qct_str(pf, "machine"), "aarch64");
	CU_ASSERT_STRING_EQUAL(qct_str(pf, "source"), "device");
	CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(pf, "emulation"), "emulated: the kernel describes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(pf, "cpu"), "asimd")); /* the emulated CPU's */
	pf = json_object_get(json_object_get(json_object_get(cross, "run"), "plugin"), "platform");
	CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(pf, "emulation"), "emulated: "));
	json_decref(stream);
	json_decref(nat);
	json_decref(cross);
	qct_rmdir(tmp);
}

/* Builds goal into BUILD/aarch64 (`make cross`), or into BUILD natively with cross 0. */
static int make_goal(const char *goal, int cross)
{
	char build[600];
	snprintf(build, sizeof build, "%s", qct_build_path(""));
	build[strlen(build) - 1] = 0; /* "build/" -> "build" */
	qct_proc p;
	int rc = qct_sh(&p,
	                "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL nice make -s --no-print-directory "
	                "-j2 BUILD='%s' %s'%s'",
	                build, cross ? "cross ARCH=aarch64 CROSS_GOALS=" : "", goal);
	int ok = rc == 0 && p.status == 0;
	if (!ok)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	qct_proc_free(&p);
	return ok ? 0 : -1;
}

/*
 * A device whose libc is not the build's: the static worker (the reference linked in, no
 * dlopen, every library static), native and aarch64 under qemu-user with no sysroot, through
 * --remote with no --plugin: the native run's cases. And the stub plugins built for aarch64
 * (make cross builds them): a crashing kernel's cases are CRASH there as natively.
 */
static void test_static_worker(void)
{
	if (!have_cross())
		return;
	CU_ASSERT_EQUAL_FATAL(make_goal("static-worker", 0), 0);
	char goals[1400]; /* of the stubs (cross-stubs builds them all), the one run here */
	snprintf(goals, sizeof goals, "static-worker cross-core %s",
	         qct_build_path("aarch64/stubs/libstub_crash.so"));
	CU_ASSERT_EQUAL_FATAL(make_goal(goals, 1), 0);
	const char *tmp = qct_tmpdir();
	const char *specs = "specs/litert/add.yaml specs/litert/dequantize.yaml";
	char remote[1400], stub[1024];
	json_t *nat =
	        run_specs(specs, tmp, "native", "", qct_build_path("libqconform_reference.so"), "");
	const char *workers[] = {"qconform-worker-static", "aarch64/qconform-worker-static"};
	for (int i = 0; i < 2; i++) {
		snprintf(remote, sizeof remote, "--remote '%s%s --stdio'", i ? "qemu-aarch64 " : "",
		         qct_build_path(workers[i]));
		json_t *st = run_specs(specs, tmp, i ? "static-aarch64" : "static", "", "", remote);
		same_cases(nat, st, i ? "the static aarch64 worker" : "the static worker");
		json_t *pl = json_object_get(json_object_get(st, "run"), "plugin");
		CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(pl, "path"), "(the plugin linked in)"));
		json_decref(st);
		qct_proc p;
		CU_ASSERT_EQUAL(qct_sh(&p, "LC_ALL=C ldd %s", qct_build_path(workers[i])), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.out ? p.out : "", "not a dynamic executable") ||
		                       strstr(p.err ? p.err : "", "not a dynamic executable"));
		qct_proc_free(&p);
	}
	json_decref(nat);
	/* a stub built for aarch64 through the dynamic worker, as natively */
	snprintf(stub, sizeof stub, "%s", qct_build_path("aarch64/stubs/libstub_crash.so"));
	snprintf(remote, sizeof remote, "--remote '%s --stdio'",
	         qct_build_path("aarch64/qconform-worker-qemu"));
	json_t *sx = run_specs(specs, tmp, "stub-aarch64", "", stub, remote);
	json_t *sn = run_specs(specs, tmp, "stub-native", "", qct_stub("crash"), "");
	size_t crashes = 0, n = json_array_size(json_object_get(sn, "cases"));
	CU_ASSERT_EQUAL(json_array_size(json_object_get(sx, "cases")), n);
	for (size_t i = 0; i < n; i++) {
		const char *a = qct_verdict(json_array_get(json_object_get(sn, "cases"), i)),
		           *b = qct_verdict(json_array_get(json_object_get(sx, "cases"), i));
		CU_ASSERT_STRING_EQUAL(a, b);
		crashes += !strcmp(b, "CRASH");
	}
	CU_ASSERT_TRUE(crashes > 0);
	json_decref(sx);
	json_decref(sn);
	qct_rmdir(tmp);
}

void qct_register_cross(void)
{
	CU_pSuite s = qct_suite("cross");
	CU_add_test(s,
	            "the aarch64 reference under qemu: the native run's cases, verdicts, metrics",
	            test_reference_under_qemu);
	CU_add_test(s, "static workers, native and aarch64; the stubs built for aarch64",
	            test_static_worker);
}
