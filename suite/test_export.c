/*
 * Offline devices: qconform export, the runner (harness/runner/qconform_runner.c) compiled
 * with the system's cc and linked with a plugin's objects, qconform import. The import's
 * report must be the direct run's, case by case; every damaged or foreign input is one line
 * and exit 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <jansson.h>

#include "offline/qcbin.h"
#include "qct.h"
#include "report/report.h"

/* The runner, as a vendor builds it: C99, pedantic, every warning an error. */
#define RUNNER_CFLAGS                                                                              \
	"-std=c99 -pedantic -Wall -Wextra -Werror -O1 -Iharness/include -Iharness/runner"

/* Compiles the runner (and extra sources) with plugin object obj into out; 0 when it built. */
static int build_runner(const char *out, const char *obj, const char *extra)
{
	qct_proc p;
	const char *san = qct_under_sanitizers() ? "-fsanitize=address,undefined" : "";
	char ref[512];
	snprintf(ref, sizeof ref, "%s", qct_build_path("libqconform_reference.a"));
	int rc = qct_sh(
	        &p, "cc " RUNNER_CFLAGS " %s %s harness/runner/qconform_runner.c %s %s -lm -o %s",
	        san, extra ? extra : "", obj, ref, out);
	int ok = rc == 0 && p.status == 0;
	if (!ok)
		fprintf(stderr, "\n  building the runner failed: %s%s", p.out ? p.out : "",
		        p.err ? p.err : "");
	qct_proc_free(&p);
	return ok ? 0 : -1;
}

static json_t *without(json_t *o, const char *const *keys)
{
	json_t *c = json_deep_copy(o);
	for (; *keys; keys++)
		json_object_del(c, *keys);
	return c;
}

/*
 * The import's report against the direct run's: the same cases in the same order with the
 * same objects (timings and the reproduce command aside), the same roll-ups and summary.
 * Returns the number of cases whose verdict is not allowed (0 when the reports differ).
 */
static size_t same_report(const char *import_json, const char *run_json)
{
	json_error_t e;
	json_t *a = json_load_file(import_json, 0, &e), *b = json_load_file(run_json, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	json_t *ca = json_object_get(a, "cases"), *cb = json_object_get(b, "cases");
	CU_ASSERT_EQUAL(json_array_size(ca), json_array_size(cb));
	CU_ASSERT_TRUE(json_array_size(ca) > 0);
	static const char *const case_keys[] = {"seconds", "reproduce", NULL};
	size_t differ = 0, failing = 0;
	for (size_t i = 0; i < json_array_size(ca) && i < json_array_size(cb); i++) {
		json_t *x = without(json_array_get(ca, i), case_keys),
		       *y = without(json_array_get(cb, i), case_keys);
		if (!json_equal(x, y) && differ++ < 3) {
			char *sx = json_dumps(x, JSON_COMPACT), *sy = json_dumps(y, JSON_COMPACT);
			fprintf(stderr, "\n  import: %.400s\n  run:    %.400s", sx, sy);
			free(sx);
			free(sy);
		}
		const char *v = qct_verdict(x);
		failing += strcmp(v, "PASS") && strcmp(v, "PASS_WITHIN_TOLERANCE") &&
		           strcmp(v, "EXPECTED_ERROR") && strcmp(v, "NOT_SUPPORTED");
		json_decref(x);
		json_decref(y);
	}
	CU_ASSERT_EQUAL(differ, 0);
	json_t *oa = json_object_get(a, "ops"), *ob = json_object_get(b, "ops");
	CU_ASSERT_EQUAL(json_array_size(oa), json_array_size(ob));
	static const char *const op_keys[] = {"seconds", NULL};
	for (size_t i = 0; i < json_array_size(oa) && i < json_array_size(ob); i++) {
		json_t *x = without(json_array_get(oa, i), op_keys),
		       *y = without(json_array_get(ob, i), op_keys);
		CU_ASSERT_TRUE(json_equal(x, y));
		json_decref(x);
		json_decref(y);
	}
	static const char *const sum_keys[] = {"wall_seconds", "finished", NULL};
	json_t *sa = without(json_object_get(a, "summary"), sum_keys),
	       *sb = without(json_object_get(b, "summary"), sum_keys);
	CU_ASSERT_TRUE(json_equal(sa, sb));
	json_decref(sa);
	json_decref(sb);
	/* the import says so; the plugin is the one the runner linked */
	json_t *ra = json_object_get(a, "run"), *rb = json_object_get(b, "run");
	CU_ASSERT_PTR_NOT_NULL(json_object_get(ra, "import"));
	CU_ASSERT_PTR_NULL(json_object_get(rb, "import"));
	CU_ASSERT_STRING_EQUAL(qct_str(json_object_get(ra, "plugin"), "name"),
	                       qct_str(json_object_get(rb, "plugin"), "name"));
	CU_ASSERT_STRING_EQUAL(qct_str(json_object_get(ra, "plugin"), "version"),
	                       qct_str(json_object_get(rb, "plugin"), "version"));
	json_decref(a);
	json_decref(b);
	qct_validate_report_later(import_json, "qconform import");
	return differ ? 0 : failing;
}

/* The runner's version is qconform's: its records say which qconform it belongs to. */
static void test_runner_version(void)
{
	char *src = qct_read_file("harness/runner/qconform_runner.c");
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	char want[64];
	snprintf(want, sizeof want, "#define QCONFORM_RUNNER_VERSION \"%s\"", QC_VERSION);
	CU_ASSERT_PTR_NOT_NULL(strstr(src, want));
	free(src);
	/* the CRC-32 of the format's definition */
	CU_ASSERT_EQUAL(qc_crc32(0, "123456789", 9), 0xCBF43926u);
}

/* A profile through the reference plugin, hosted runner writing one file per case. */
static void test_profile_reference(void)
{
	const char *tmp = qct_tmpdir();
	char q[600]; /* qct_build_path's buffers are reused */
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	char dir[1024], runner[1024], obj[512], ij[1024], rj[1024];
	snprintf(dir, sizeof dir, "%s/export", tmp);
	snprintf(runner, sizeof runner, "%s/runner", tmp);
	snprintf(obj, sizeof obj, "%s", qct_build_path("reference/plugin.o"));
	snprintf(ij, sizeof ij, "%s/import.json", tmp);
	snprintf(rj, sizeof rj, "%s/run.json", tmp);
	/* the sanitizer pass takes a quarter of the profile (the same paths, a quarter of the
	 * cases; the run suite runs every case through the sanitized reference) */
	const char *part = qct_under_sanitizers() ? " --shard 1/4" : "";
	CU_ASSERT_TRUE_FATAL(qct_sh_ok(
	        "export", "%s export --profile onnx-qdq --extension all%s --out %s", q, part, dir));
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("runner", "%s %s --quiet", runner, dir));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("import", "%s import %s --json %s --quiet", q, dir, ij));
	CU_ASSERT_TRUE_FATAL(
	        qct_sh_ok("run", "%s run --profile onnx-qdq --extension all%s --json %s --quiet", q,
	                  part, rj));
	CU_ASSERT_EQUAL(same_report(ij, rj), 0); /* the reference conforms */
	qct_rmdir(tmp);
}

/*
 * A failing kernel (per-axis quantization ignored) over LiteRT and torch specs with per-axis,
 * int4 and blocked parameters and attributes: the hosted runner's stream, in two runs of
 * half the cases each (as after a device stopped), joined.
 */
static void test_failing_stub_stream(void)
{
	const char *tmp = qct_tmpdir();
	char q[600]; /* qct_build_path's buffers are reused */
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	const char *specs = "specs/litert/conv_2d.yaml specs/litert/depthwise_conv_2d.yaml "
	                    "specs/litert/fully_connected.yaml specs/litert/quantize_per_axis.yaml "
	                    "specs/onnx/dequantize_linear_blocked.yaml "
	                    "specs/torch/fake_quantize_per_channel_affine.yaml";
	char dir[1024], runner[1024], obj[512], ij[1024], rj[1024], s1[1024], s2[1024], all[1024];
	snprintf(dir, sizeof dir, "%s/export", tmp);
	snprintf(runner, sizeof runner, "%s/runner", tmp);
	snprintf(obj, sizeof obj, "%s", qct_build_path("suite/stubs/ignore_axis.o"));
	snprintf(ij, sizeof ij, "%s/import.json", tmp);
	snprintf(rj, sizeof rj, "%s/run.json", tmp);
	snprintf(s1, sizeof s1, "%s/first.log", tmp);
	snprintf(s2, sizeof s2, "%s/rest.log", tmp);
	snprintf(all, sizeof all, "%s/all.log", tmp);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export", "%s export %s --seed 7 --out %s", q, specs, dir));
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
	CU_ASSERT_TRUE_FATAL(
	        qct_sh_ok("runner", "%s %s --quiet --count 100 --stream %s", runner, dir, s1));
	CU_ASSERT_TRUE_FATAL(
	        qct_sh_ok("runner", "%s %s --quiet --first 100 --stream %s", runner, dir, s2));
	/* the first part alone: the rest is missing, named */
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s import %s --outputs %s --json %s", q, dir, s1, ij), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "no record of case 100 ("));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "ends after case 99"));
	qct_proc_free(&p);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("join", "cat %s %s > %s", s1, s2, all));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("import", "%s import %s --outputs %s --json %s --quiet", q,
	                               dir, all, ij));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("run", "%s run %s --seed 7 --plugin %s --json %s --quiet", q,
	                               specs, qct_stub("ignore_axis"), rj));
	CU_ASSERT_TRUE(same_report(ij, rj) > 10); /* it fails, the same way */
	qct_rmdir(tmp);
}

/* The kernel broke a memory rule: the runner sees it as the worker does. */
static void test_memory_rules(void)
{
	static const char *const stubs[] = {"modify_input", "scribble"};
	for (int i = 0; i < 2; i++) {
		const char *tmp = qct_tmpdir();
		char q[600]; /* qct_build_path's buffers are reused */
		snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
		char dir[1024], runner[1024], obj[512], ij[1024], rj[1024], rel[128];
		snprintf(dir, sizeof dir, "%s/export", tmp);
		snprintf(runner, sizeof runner, "%s/runner", tmp);
		snprintf(rel, sizeof rel, "suite/stubs/%s.o", stubs[i]);
		snprintf(obj, sizeof obj, "%s", qct_build_path(rel));
		snprintf(ij, sizeof ij, "%s/import.json", tmp);
		snprintf(rj, sizeof rj, "%s/run.json", tmp);
		CU_ASSERT_TRUE_FATAL(qct_sh_ok(
		        "export", "%s export specs/litert/dequantize.yaml --out %s", q, dir));
		CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
		CU_ASSERT_TRUE_FATAL(qct_sh_ok("runner", "%s %s --quiet", runner, dir));
		CU_ASSERT_TRUE_FATAL(
		        qct_sh_ok("import", "%s import %s --json %s --quiet", q, dir, ij));
		CU_ASSERT_TRUE_FATAL(qct_sh_ok(
		        "run", "%s run specs/litert/dequantize.yaml --plugin %s --json %s --quiet",
		        q, qct_stub(stubs[i]), rj));
		CU_ASSERT_TRUE(same_report(ij, rj) > 0);
		char *r = qct_read_file(ij);
		CU_ASSERT_PTR_NOT_NULL(
		        r && strstr(r, i ? "wrote past the end of output 0" : "modified input 0"));
		free(r);
		qct_rmdir(tmp);
	}
}

/*
 * A kernel that crashes the hosted runner on every DEQUANTIZE case: each run stops in a case,
 * leaving its start without a record; --resume goes on after it; import judges those cases
 * CRASH and the others as a direct run does.
 */
static void test_crash_resume(void)
{
	const char *tmp = qct_tmpdir();
	char q[600]; /* qct_build_path's buffers are reused */
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	const char *specs = "specs/litert/dequantize.yaml specs/litert/quantize.yaml";
	char dir[1024], runner[1024], obj[512], ij[1024], rj[1024];
	snprintf(dir, sizeof dir, "%s/export", tmp);
	snprintf(runner, sizeof runner, "%s/runner", tmp);
	snprintf(obj, sizeof obj, "%s", qct_build_path("suite/stubs/crash.o"));
	snprintf(ij, sizeof ij, "%s/import.json", tmp);
	snprintf(rj, sizeof rj, "%s/run.json", tmp);
	const char *pick =
	        "--filter '*/1' --filter 'litert/dequantize/dtype=int8,shape=\\[256\\]*'";
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export", "%s export %s %s --out %s", q, specs, pick, dir));
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
	/* the first run stops in case 0: no end, the records stop in a case */
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s %s --quiet", runner, dir), 0);
	CU_ASSERT_NOT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s import %s --json %s", q, dir, ij), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "the records end during case 0 ("));
	qct_proc_free(&p);
	/* --resume until a run gets to the end (one run per crash, and a bound) */
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("resume",
	                               "for i in $(seq 400); do %s %s --quiet --resume >/dev/null "
	                               "2>&1 && exit 0; done; exit 2",
	                               runner, dir));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("import", "%s import %s --json %s --quiet", q, dir, ij));
	char run[2048];
	snprintf(run, sizeof run, "%s run %s %s --plugin %s --json %s --quiet", q, specs, pick,
	         qct_stub("crash"), rj);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("run", "%s", run));
	json_error_t e;
	json_t *a = json_load_file(ij, 0, &e), *b = json_load_file(rj, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	json_t *ca = json_object_get(a, "cases"), *cb = json_object_get(b, "cases");
	CU_ASSERT_EQUAL(json_array_size(ca), json_array_size(cb));
	size_t crashes = 0, differ = 0;
	for (size_t i = 0; i < json_array_size(ca) && i < json_array_size(cb); i++) {
		json_t *x = json_array_get(ca, i), *y = json_array_get(cb, i);
		differ += strcmp(qct_verdict(x), qct_verdict(y)) != 0 ||
		          strcmp(qct_str(x, "name"), qct_str(y, "name")) != 0;
		if (!strcmp(qct_verdict(x), "CRASH")) {
			crashes++;
			CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(x, "message"), "the runner stopped "
			                                                     "during the case"));
		}
	}
	CU_ASSERT_EQUAL(differ, 0);
	CU_ASSERT_TRUE(crashes > 0 && crashes < json_array_size(ca));
	CU_ASSERT_EQUAL(
	        (size_t)json_integer_value(json_object_get(
	                json_object_get(json_object_get(a, "run"), "import"), "judged_unanswered")),
	        crashes);
	json_decref(a);
	json_decref(b);
	qct_rmdir(tmp);
}

static const char board_c[] =
        "#include <stdio.h>\n"
        "#include \"qconform/plugin.h\"\n"
        "long qconform_runner_run(const qcf_option *options, int n_options,\n"
        "                         unsigned long first, unsigned long count);\n"
        "static FILE *uart;\n"
        "/* a UART as a terminal program captures it: CR LF, the board's own lines between */\n"
        "void qconform_runner_putc(int byte)\n"
        "{\n"
        "\tif (byte == '\\n')\n"
        "\t\tfputc('\\r', uart);\n"
        "\tfputc(byte, uart);\n"
        "}\n"
        "int main(int argc, char **argv)\n"
        "{\n"
        "\tlong n;\n"
        "\tif (argc < 2 || !(uart = fopen(argv[1], \"wb\")))\n"
        "\t\treturn 2;\n"
        "\tfputs(\"boot: board rev 3\\r\\nQC1: self test ok\\r\\n\", uart);\n"
        "\tn = qconform_runner_run(0, 0, 0, 0);\n"
        "\tfprintf(uart, \"done: %ld cases\\r\\n\", n);\n"
        "\treturn fclose(uart) != 0 || n < 0;\n"
        "}\n";

/* --c-arrays, the freestanding runner and a putc hook writing a serial log; then an arena too
 * small for some cases: those are ERROR, said why, the rest judged. */
static void test_freestanding(void)
{
	const char *tmp = qct_tmpdir();
	char q[600]; /* qct_build_path's buffers are reused */
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	const char *specs = "specs/litert/quantize.yaml specs/onnx/quantize_linear.yaml";
	char dir[1024], runner[1024], obj[512], ij[1024], rj[1024], log[1024], board[1024],
	        extra[4096];
	snprintf(dir, sizeof dir, "%s/export", tmp);
	snprintf(runner, sizeof runner, "%s/firmware", tmp);
	snprintf(obj, sizeof obj, "%s", qct_build_path("suite/stubs/ties_half_up.o"));
	snprintf(ij, sizeof ij, "%s/import.json", tmp);
	snprintf(rj, sizeof rj, "%s/run.json", tmp);
	snprintf(log, sizeof log, "%s/uart.log", tmp);
	snprintf(board, sizeof board, "%s/board.c", tmp);
	FILE *f = fopen(board, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(board_c, f);
	fclose(f);
	CU_ASSERT_TRUE_FATAL(
	        qct_sh_ok("export", "%s export %s --out %s --c-arrays", q, specs, dir));
	snprintf(
	        extra, sizeof extra,
	        "-DQCONFORM_RUNNER_FREESTANDING -DQCONFORM_RUNNER_ARENA=4194304 -I%s %s/cases.c %s",
	        dir, dir, board);
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, extra), 0);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("firmware", "%s %s", runner, log));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("import", "%s import %s --outputs %s --json %s --quiet", q,
	                               dir, log, ij));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("run", "%s run %s --plugin %s --json %s --quiet", q, specs,
	                               qct_stub("ties_half_up"), rj));
	CU_ASSERT_TRUE(same_report(ij, rj) > 0);
	json_error_t e;
	json_t *r = json_load_file(ij, 0, &e);
	json_t *im = json_object_get(json_object_get(r, "run"), "import");
	CU_ASSERT_STRING_EQUAL(qct_str(im, "runner_mode"), "freestanding");
	CU_ASSERT_STRING_EQUAL(qct_str(im, "outputs_kind"), "stream");
	json_decref(r);

	/* 1200 bytes of arena: the larger cases do not fit */
	snprintf(extra, sizeof extra,
	         "-DQCONFORM_RUNNER_FREESTANDING -DQCONFORM_RUNNER_ARENA=1200 -I%s %s/cases.c %s",
	         dir, dir, board);
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, extra), 0);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("firmware", "%s %s", runner, log));
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s import %s --outputs %s --json %s --quiet", q, dir, log, ij), 0);
	if (p.status != 1)
		fprintf(stderr, "\n  import with a small arena: exit %d: %.500s", p.status, p.err);
	CU_ASSERT_EQUAL(p.status, 1);
	qct_proc_free(&p);
	r = json_load_file(ij, 0, &e);
	size_t not_run = 0, cases = json_array_size(json_object_get(r, "cases"));
	for (size_t i = 0; i < cases; i++) {
		json_t *c = json_array_get(json_object_get(r, "cases"), i);
		if (strstr(qct_str(c, "message"), "the runner could not run it: the case needs ")) {
			not_run++;
			CU_ASSERT_STRING_EQUAL(qct_verdict(c), "ERROR");
		}
	}
	CU_ASSERT_TRUE(not_run > 0 && not_run < cases);
	json_decref(r);
	qct_rmdir(tmp);
}

/* ---- bad input: one line, exit 2, nothing run ---- */

static void flip(const char *path, long at)
{
	FILE *f = fopen(path, "r+b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, at, SEEK_SET);
	int c = fgetc(f);
	fseek(f, at, SEEK_SET);
	fputc(c ^ 0x40, f);
	fclose(f);
}

/* Rewrites bytes [at, at + n) of a file of the format and its CRC-32 (a well-formed file of
 * another version). */
static void patch(const char *path, long at, const void *bytes, size_t n)
{
	size_t len;
	char why[600];
	unsigned char *p = qc_read_whole(path, 0, "file", &len, why, sizeof why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memcpy(p + at, bytes, n);
	uint32_t crc = qc_crc32(0, p, len - 4);
	for (int i = 0; i < 4; i++)
		p[len - 4 + (size_t)i] = (unsigned char)(crc >> (8 * i));
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(p, 1, len, f);
	fclose(f);
	free(p);
}

static void test_bad_input(void)
{
	const char *tmp = qct_tmpdir();
	char q[600]; /* qct_build_path's buffers are reused */
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	char base[1024], spec[1024], runner[1024], obj[512], other[1024];
	snprintf(base, sizeof base, "%s/base", tmp);
	snprintf(other, sizeof other, "%s/other", tmp);
	snprintf(spec, sizeof spec, "%s/spec/dequantize.yaml", tmp);
	snprintf(runner, sizeof runner, "%s/runner", tmp);
	snprintf(obj, sizeof obj, "%s", qct_build_path("reference/plugin.o"));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok(
	        "copy", "mkdir -p %s/spec && cp specs/litert/dequantize.yaml %s", tmp, spec));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export", "%s export %s --out %s", q, spec, base));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export", "%s export %s --seed 5 --out %s", q, spec, other));
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("runner", "%s %s --quiet", runner, base));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("runner", "%s %s --quiet", runner, other));
	CU_ASSERT_TRUE_FATAL(
	        qct_sh_ok("runner", "%s %s --quiet --stream %s/stream.log", runner, base, base));
	enum {
		FORMAT,
		VERSION,
		SPEC,
		CASE_GONE,
		CASE_CUT,
		CASE_CRC,
		OUT_GONE,
		OUT_CUT,
		OUT_CRC,
		STREAM_LINE,
		FOREIGN,
		OPTIONS,
		STREAM_NO_END,
		STREAM_JUNK,
		DIR_NO_END,
		DIR_JUNK,
		N_BAD
	};
	static const char *const says[N_BAD] = {
	        "manifest.qcm: format version 5, this qconform reads 3 to 4",
	        "manifest.qcm: written by qconform 0.0.9, this is qconform " QC_VERSION,
	        "dequantize.yaml changed since the export",
	        "cases/000002.qcc: No such file or directory (case 2, ",
	        "cases/000001.qcc: truncated: 40 of its",
	        "cases/000003.qcc: fails its CRC-32",
	        "outputs/000004.qco: missing (no record of case 4, ",
	        "outputs/000005.qco: its record is truncated",
	        "outputs/000006.qco: fails its CRC-32",
	        "stream.log: record 3 (byte ",
	        "the runner ran another export",
	        "runner.qco: malformed runner header",
	        "stream.log: no runner end after the last record",
	        "stream.log: record ",
	        "outputs/end.qco: missing",
	        "outputs/000003.qco: its record is truncated, of another case, or followed by "
	        "other bytes"};
	for (int k = 0; k < N_BAD; k++) {
		char dir[1200], path[1400], outputs[1400] = "";
		snprintf(dir, sizeof dir, "%s/bad%d", tmp, k);
		CU_ASSERT_TRUE_FATAL(qct_sh_ok("copy", "rm -rf %s && cp -r %s %s", dir, base, dir));
		switch (k) {
		case FORMAT:
			snprintf(path, sizeof path, "%s/manifest.qcm", dir);
			patch(path, 4, "\x05", 1); /* QCF_FORMAT_VERSION + 1 */
			break;
		case VERSION:
			snprintf(path, sizeof path, "%s/manifest.qcm", dir);
			patch(path, 16, "0.0.9\0\0", 7);
			break;
		case SPEC: CU_ASSERT_TRUE(qct_sh_ok("edit", "echo '# edited' >> %s", spec)); break;
		case CASE_GONE:
			CU_ASSERT_TRUE(qct_sh_ok("rm", "rm %s/cases/000002.qcc", dir));
			break;
		case CASE_CUT:
			CU_ASSERT_TRUE(qct_sh_ok("cut", "truncate -s 40 %s/cases/000001.qcc", dir));
			break;
		case CASE_CRC:
			snprintf(path, sizeof path, "%s/cases/000003.qcc", dir);
			flip(path, 45);
			break;
		case OUT_GONE:
			CU_ASSERT_TRUE(qct_sh_ok("rm", "rm %s/outputs/000004.qco", dir));
			break;
		case OUT_CUT:
			CU_ASSERT_TRUE(
			        qct_sh_ok("cut", "truncate -s 50 %s/outputs/000005.qco", dir));
			break;
		case OUT_CRC:
			snprintf(path, sizeof path, "%s/outputs/000006.qco", dir);
			flip(path, 60);
			break;
		case STREAM_LINE: /* a line of the capture lost */
			snprintf(outputs, sizeof outputs, "--outputs %s/stream.log", dir);
			CU_ASSERT_TRUE(qct_sh_ok("cut", "sed -i 5d %s/stream.log", dir));
			break;
		case FOREIGN: /* the outputs of another export */
			snprintf(outputs, sizeof outputs, "--outputs %s/outputs", other);
			break;
		case OPTIONS: { /* a runner header announcing more options than the limit */
			snprintf(path, sizeof path, "%s/outputs/runner.qco", dir);
			size_t len;
			char why[600];
			unsigned char *h = qc_read_whole(path, 0, "file", &len, why, sizeof why);
			CU_ASSERT_PTR_NOT_NULL_FATAL(h);
			size_t at = QCF_HEADER_BYTES + 12; /* CRC-32, ABI, create's status */
			for (int str = 0; str < 4 && at + 4 <= len; str++)
				at += 4 + ((size_t)h[at] | (size_t)h[at + 1] << 8 |
				           (size_t)h[at + 2] << 16 | (size_t)h[at + 3] << 24);
			free(h);
			CU_ASSERT_FATAL(at + 4 <= len);
			patch(path, (long)at, "\xe8\x03\x00\x00", 4); /* 1000 */
			break;
		}
		case STREAM_NO_END: /* the capture cut after a whole record: the end's lines gone */
			snprintf(outputs, sizeof outputs, "--outputs %s/stream.log", dir);
			CU_ASSERT_TRUE(qct_sh_ok("cut", "sed -i '$d' %s/stream.log", dir));
			break;
		case STREAM_JUNK: /* a stream line after the end that is no record */
			snprintf(outputs, sizeof outputs, "--outputs %s/stream.log", dir);
			CU_ASSERT_TRUE(
			        qct_sh_ok("junk", "echo 'QC1 AAAAAAAA' >> %s/stream.log", dir));
			break;
		case DIR_NO_END:
			CU_ASSERT_TRUE(qct_sh_ok("rm", "rm %s/outputs/end.qco", dir));
			break;
		case DIR_JUNK:
			CU_ASSERT_TRUE(qct_sh_ok("junk", "printf x >> %s/outputs/000003.qco", dir));
			break;
		}
		qct_proc p;
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p, "%s import %s %s --json %s/r.json", q, dir, outputs, tmp), 0);
		const char *nl = strchr(p.err, '\n');
		int ok = p.status == 2 && strstr(p.err, says[k]) && nl && !nl[1] && !p.out[0] &&
		         !strncmp(p.err, "qconform import: ", 17);
		if (!ok)
			fprintf(stderr, "\n  bad input %d: exit %d, stdout %.200s, stderr %.400s",
			        k, p.status, p.out, p.err);
		CU_ASSERT_TRUE(ok);
		qct_proc_free(&p);
		if (k == SPEC)
			CU_ASSERT_TRUE(
			        qct_sh_ok("restore", "cp specs/litert/dequantize.yaml %s", spec));
	}
	/* and the intact copy imports */
	CU_ASSERT_TRUE(qct_sh_ok("import", "%s import %s --json %s/r.json --quiet", q, base, tmp));
	qct_rmdir(tmp);
}

/*
 * An NPU's plugin linked into the hosted runner: the records carry what its engine() said
 * (format version 3), import reports it per case and in summary.engines, and certify
 * --import --require-engine accelerator certifies a kernel that ran every tf case on the NPU
 * and refuses one that fell back (its option mode=cpu), the engines listed as the device's
 * word.
 */
static void test_engine_records(void)
{
	const char *tmp = qct_tmpdir();
	char q[600];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	char dir[1024], runner[1024], obj[512], ij[1024], out[1024];
	snprintf(dir, sizeof dir, "%s/export", tmp);
	snprintf(runner, sizeof runner, "%s/runner", tmp);
	snprintf(obj, sizeof obj, "%s", qct_build_path("suite/stubs/npu.o"));
	snprintf(ij, sizeof ij, "%s/import.json", tmp);
	CU_ASSERT_TRUE_FATAL(
	        qct_sh_ok("export", "%s export --profile tf-fakequant --out %s", q, dir));
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("runner", "%s %s --quiet", runner, dir));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("import", "%s import %s --json %s --quiet", q, dir, ij));
	json_t *r = json_load_file(ij, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *eng = json_object_get(json_object_get(r, "summary"), "engines");
	json_int_t cases =
	        json_integer_value(json_object_get(json_object_get(r, "summary"), "cases"));
	CU_ASSERT(cases > 0);
	CU_ASSERT_EQUAL(
	        json_integer_value(json_object_get(eng, "npu")),
	        json_integer_value(json_object_get(
	                json_object_get(json_object_get(r, "summary"), "verdicts"), "PASS")));
	json_t *e0 = json_object_get(json_array_get(json_object_get(r, "cases"), 0), "engine");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e0, "name")),
	                       "qconform test NPU v1");
	json_decref(r);
	snprintf(out, sizeof out, "%s/cert", tmp);
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s certify --quiet --profile tf-fakequant --import %s --out %s "
	                       "--require-engine accelerator",
	                       q, dir, out) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	char cpath[1100];
	snprintf(cpath, sizeof cpath, "%s/certificate.json", out);
	json_t *c = json_load_file(cpath, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	int listed = 0;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(json_object_get(c, "provenance"), "reported_by_device"),
	                   i, x) listed |= !strcmp(json_string_value(x), "engines");
	CU_ASSERT(listed);
	json_decref(c);
	/* the same kernel falling back: its records say the CPU */
	CU_ASSERT_TRUE_FATAL(
	        qct_sh_ok("runner", "rm -f %s/outputs/* && %s %s --quiet --plugin-option mode=cpu",
	                  dir, runner, dir));
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s certify --quiet --profile tf-fakequant --import %s --out %s "
	                       "--require-engine accelerator",
	                       q, dir, out) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "judged that the plugin reported on the CPU"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/*
 * Chains offline: a kernel wrong in RELU6 (ABI 1: its runner offers the nodes in turn, its own
 * outputs fed forward) and one that fuses and rounds once (ABI 3: fused, and op by op for the
 * chain it declines) give, through the runner and import, the direct run's report case for
 * case: verdicts, the chain's mode and first_differing_node.
 */
static void test_chains(void)
{
	static const char *const stubs[] = {"relu6_high", "fuse_once"};
	const char *specs = "specs/chains/conv_2d_relu6.yaml specs/chains/conv_2d_relu6_ties.yaml "
	                    "specs/chains/conv_2d_relu6_ties_fused.yaml "
	                    "specs/chains/depthwise_conv_2d_hard_swish.yaml";
	const char *tmp = qct_tmpdir();
	char q[600];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	char dir[1024], runner[1024], obj[512], ij[1024], rj[1024], rel[128];
	snprintf(dir, sizeof dir, "%s/export", tmp);
	snprintf(runner, sizeof runner, "%s/runner", tmp);
	snprintf(ij, sizeof ij, "%s/import.json", tmp);
	snprintf(rj, sizeof rj, "%s/run.json", tmp);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export", "%s export %s --out %s", q, specs, dir));
	for (int i = 0; i < 2; i++) {
		snprintf(rel, sizeof rel, "suite/stubs/%s.o", stubs[i]);
		snprintf(obj, sizeof obj, "%s", qct_build_path(rel));
		CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
		CU_ASSERT_TRUE_FATAL(qct_sh_ok("runner", "rm -f %s/outputs/* && %s %s --quiet", dir,
		                               runner, dir));
		CU_ASSERT_TRUE_FATAL(
		        qct_sh_ok("import", "%s import %s --json %s --quiet", q, dir, ij));
		CU_ASSERT_TRUE_FATAL(qct_sh_ok("run", "%s run %s --plugin %s --json %s --quiet", q,
		                               specs, qct_stub(stubs[i]), rj));
		CU_ASSERT_TRUE(same_report(ij, rj) > 0);
		json_t *r = json_load_file(ij, JSON_REJECT_DUPLICATES, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		size_t k, node2 = 0, fused = 0, opbyop = 0;
		json_t *c;
		json_array_foreach(json_object_get(r, "cases"), k, c)
		{
			json_t *ch = json_object_get(c, "chain");
			const char *mode = qct_str(ch, "mode");
			fused += !strcmp(mode, "fused");
			opbyop += !strcmp(mode, "op by op");
			node2 += json_integer_value(json_object_get(ch, "first_differing_node")) ==
			                 2 &&
			         strstr(qct_str(c, "message"), "node 2 (RELU6) is the first") !=
			                 NULL;
		}
		CU_ASSERT_EQUAL(fused + opbyop, json_array_size(json_object_get(r, "cases")));
		if (i == 0) { /* ABI 1: every chain op by op, RELU6 named where it fails */
			CU_ASSERT_TRUE(opbyop > 0 && !fused && node2 > 0);
		} else { /* fused, but the hard-swish chain it declines */
			CU_ASSERT_TRUE(fused > 0 && opbyop > 0 && !node2);
		}
		json_decref(r);
	}
	qct_rmdir(tmp);
}

/* A file of format version 3 (qcbin.c's rules): the version set, and a case file's or a case
 * record's chain fields, empty for a single op, cut off. *crc gets the old and new CRC-32. */
static void to_format3(const char *path, uint32_t crc[2], unsigned char *size_pair)
{
	size_t len;
	char why[600];
	unsigned char *p = qc_read_whole(path, 0, "file", &len, why, sizeof why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	size_t out = 0;
	for (size_t at = 0; at + QCF_HEADER_BYTES + 4 <= len;) {
		unsigned char *h = p + at;
		size_t total = qc_le32(h + 8), cut = 0;
		CU_ASSERT_FATAL(total >= QCF_HEADER_BYTES + 4 && at + total <= len);
		crc[0] = qc_le32(h + total - 4);
		if (!memcmp(h, QCF_MAGIC_CASE, 4))
			cut = 4; /* u32 n_nodes */
		else if (!memcmp(h, QCF_MAGIC_RESULT, 4))
			cut = 16; /* chain_mode, chain_node, nodes_ok, n_intermediates */
		static const unsigned char zero[16];
		CU_ASSERT_FATAL(!memcmp(h + total - 4 - cut, zero, cut));
		memmove(p + out, h, total - 4 - cut);
		unsigned char *o = p + out;
		size_t n = total - cut;
		o[4] = 3;
		o[5] = 0;
		for (int i = 0; i < 4; i++)
			o[8 + i] = (unsigned char)(n >> (8 * i));
		if (size_pair) { /* the manifest lists the case file's CRC-32 and size */
			for (int i = 0; i < 4; i++)
				size_pair[4 + i] = (unsigned char)(n >> (8 * i));
		}
		crc[1] = qc_crc32(0, o, n - 4);
		for (int i = 0; i < 4; i++)
			o[n - 4 + (size_t)i] = (unsigned char)(crc[1] >> (8 * i));
		if (size_pair)
			for (int i = 0; i < 4; i++)
				size_pair[i] = (unsigned char)(crc[1] >> (8 * i));
		out += n;
		at += total;
	}
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(p, 1, out, f);
	fclose(f);
	free(p);
}

/* Replaces every run `from` of n bytes of a file after body_at by `to` (a manifest's case
 * list, a runner header's manifest CRC, a record's case CRC), then with fix_crc the CRC-32 of
 * the file's one record. */
static void replace_bytes(const char *path, const unsigned char *from, const unsigned char *to,
                          size_t n, long body_at, int fix_crc)
{
	size_t len;
	char why[600];
	unsigned char *p = qc_read_whole(path, 0, "file", &len, why, sizeof why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	int found = 0;
	for (size_t at = (size_t)body_at; at + n <= len - 4; at++)
		if (!memcmp(p + at, from, n)) {
			memcpy(p + at, to, n);
			found++;
		}
	CU_ASSERT(found > 0);
	uint32_t crc = qc_crc32(0, p, len - 4);
	for (int i = 0; fix_crc && i < 4; i++)
		p[len - 4 + (size_t)i] = (unsigned char)(crc >> (8 * i));
	FILE *f = fopen(path, "wb");
	fwrite(p, 1, len, f);
	fclose(f);
	free(p);
}

/*
 * Format 3 and format 5: an export and records of format 3 (as the qconform before chains
 * wrote them) still import, to the same report; a manifest of a format newer than this
 * qconform's is refused, one line and exit 2, by import and by the runner alike (as the runner
 * of format 3 refuses a format 4 export); so is an export whose records are of another format.
 */
static void test_format_versions(void)
{
	const char *tmp = qct_tmpdir();
	char q[600];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	char dir[1024], runner[1024], obj[512], ij[1024], rj[1024], path[1300], ij3[1024];
	snprintf(dir, sizeof dir, "%s/export", tmp);
	snprintf(runner, sizeof runner, "%s/runner", tmp);
	snprintf(obj, sizeof obj, "%s", qct_build_path("suite/stubs/ties_half_up.o"));
	snprintf(ij, sizeof ij, "%s/import.json", tmp);
	snprintf(ij3, sizeof ij3, "%s/import3.json", tmp);
	snprintf(rj, sizeof rj, "%s/run.json", tmp);
	const char *spec = "specs/litert/quantize.yaml specs/onnx/quantize_linear.yaml";
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export", "%s export %s --out %s", q, spec, dir));
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("runner", "%s %s --quiet", runner, dir));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("import", "%s import %s --json %s --quiet", q, dir, ij));
	/* the same export and records as format 3 */
	size_t len;
	char why[600];
	snprintf(path, sizeof path, "%s/manifest.qcm", dir);
	unsigned char *m = qc_read_whole(path, 0, "file", &len, why, sizeof why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	uint32_t n_cases = qc_le32(m + 12), mcrc[2], crc[2];
	free(m);
	CU_ASSERT_FATAL(n_cases > 0);
	to_format3(path, mcrc, NULL);
	for (uint32_t i = 0; i < n_cases; i++) {
		unsigned char pair[8], old[8];
		snprintf(path, sizeof path, "%s/cases/%06u.qcc", dir, i);
		unsigned char *c = qc_read_whole(path, 0, "file", &len, why, sizeof why);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		for (int k = 0; k < 4; k++) {
			old[k] = c[len - 4 + (size_t)k];
			old[4 + k] = (unsigned char)(len >> (8 * k));
		}
		free(c);
		to_format3(path, crc, pair);
		snprintf(path, sizeof path, "%s/manifest.qcm", dir);
		replace_bytes(path, old, pair, 8, QCF_HEADER_BYTES, 1);
		/* the case's start and record name it by its CRC-32 */
		snprintf(path, sizeof path, "%s/outputs/%06u.qco", dir, i);
		replace_bytes(path, old, pair, 4, QCF_HEADER_BYTES, 0);
		to_format3(path, crc, NULL);
	}
	snprintf(path, sizeof path, "%s/manifest.qcm", dir);
	unsigned char *m3 = qc_read_whole(path, 0, "file", &len, why, sizeof why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m3);
	uint32_t new_crc = qc_le32(m3 + len - 4), old_crc = 0;
	free(m3);
	snprintf(path, sizeof path, "%s/outputs/runner.qco", dir);
	to_format3(path, crc, NULL);
	snprintf(path, sizeof path, "%s/outputs/end.qco", dir);
	to_format3(path, crc, NULL);
	/* the headers name the manifest by its CRC-32: the one before the edits of its list */
	snprintf(path, sizeof path, "%s/outputs/runner.qco", dir);
	unsigned char *h = qc_read_whole(path, 0, "file", &len, why, sizeof why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	old_crc = qc_le32(h + QCF_HEADER_BYTES);
	free(h);
	unsigned char from[4], to[4];
	for (int k = 0; k < 4; k++) {
		from[k] = (unsigned char)(old_crc >> (8 * k));
		to[k] = (unsigned char)(new_crc >> (8 * k));
	}
	replace_bytes(path, from, to, 4, QCF_HEADER_BYTES, 1);
	snprintf(path, sizeof path, "%s/outputs/end.qco", dir);
	replace_bytes(path, from, to, 4, QCF_HEADER_BYTES, 1);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("import", "%s import %s --json %s --quiet", q, dir, ij3));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("run", "%s run %s --plugin %s --json %s --quiet", q, spec,
	                               qct_stub("ties_half_up"), rj));
	CU_ASSERT_TRUE(same_report(ij3, rj) > 0);
	CU_ASSERT_TRUE(same_report(ij, rj) > 0);
	/* records of format 4 for an export of format 3: refused */
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s %s --quiet --stream %s/s.log", runner, dir, tmp), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "format version 3, this runner reads 4"));
	qct_proc_free(&p);
	/* a format newer than this qconform's: the runner and import refuse it */
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export", "%s export %s --out %s", q, spec, dir));
	snprintf(path, sizeof path, "%s/manifest.qcm", dir);
	patch(path, 4, "\x05", 1);
	const char *cmd[2] = {runner, q};
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p, "%s %s %s --quiet", cmd[i], i ? "import" : "", dir), 0);
		const char *nl = strchr(p.err, '\n');
		CU_ASSERT_EQUAL(p.status, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "format version 5, this "));
		CU_ASSERT_TRUE(nl && !nl[1]);
		qct_proc_free(&p);
	}
	qct_rmdir(tmp);
}

/*
 * LiteRT's LSTM (15 inputs here, up to 24) exports and runs through the runner, its import the
 * direct run's; a runner built for 8 tensors records each such case not run, naming the count, and
 * import judges them ERROR.
 */
static void test_lstm(void)
{
	const char *tmp = qct_tmpdir();
	char q[600];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	char dir[1024], runner[1024], obj[512], ij[1024], rj[1024];
	snprintf(dir, sizeof dir, "%s/export", tmp);
	snprintf(runner, sizeof runner, "%s/runner", tmp);
	snprintf(obj, sizeof obj, "%s", qct_build_path("reference/plugin.o"));
	snprintf(ij, sizeof ij, "%s/import.json", tmp);
	snprintf(rj, sizeof rj, "%s/run.json", tmp);
	const char *spec = "specs/litert/lstm.yaml";
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export", "%s export %s --out %s", q, spec, dir));
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, NULL), 0);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("runner", "%s %s --quiet", runner, dir));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("import", "%s import %s --json %s --quiet", q, dir, ij));
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("run", "%s run %s --json %s --quiet", q, spec, rj));
	CU_ASSERT_EQUAL(same_report(ij, rj), 0);
	CU_ASSERT_EQUAL_FATAL(build_runner(runner, obj, "-DQCONFORM_RUNNER_MAX_TENSORS=8"), 0);
	CU_ASSERT_TRUE_FATAL(
	        qct_sh_ok("runner", "rm -f %s/outputs/* && %s %s --quiet", dir, runner, dir));
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s import %s --json %s --quiet", q, dir, ij), 0);
	CU_ASSERT_EQUAL(p.status, 1);
	qct_proc_free(&p);
	json_t *r = json_load_file(ij, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	size_t k, refused = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), k, c)
	{
		const char *msg = qct_str(c, "message");
		refused += !strcmp(qct_verdict(c), "ERROR") &&
		           !strncmp(msg, "the runner could not run it: the case has ", 42) &&
		           strstr(msg, " inputs, this runner takes 8 (built with "
		                       "QCONFORM_RUNNER_MAX_TENSORS)");
	}
	CU_ASSERT_EQUAL(refused, json_array_size(json_object_get(r, "cases")));
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_export(void)
{
	CU_pSuite s = qct_suite("export");
	CU_add_test(s, "the runner's version and the CRC-32", test_runner_version);
	CU_add_test(s, "a profile through the reference, hosted", test_profile_reference);
	CU_add_test(s, "a failing kernel, two streams joined", test_failing_stub_stream);
	CU_add_test(s, "memory rules seen by the runner", test_memory_rules);
	CU_add_test(s, "freestanding: C arrays and a putc hook", test_freestanding);
	CU_add_test(s, "a crashing kernel: --resume, CRASH from a start", test_crash_resume);
	CU_add_test(s, "bad input: one line, exit 2", test_bad_input);
	CU_add_test(s, "an NPU's engines in the records, certified offline", test_engine_records);
	CU_add_test(s, "chains offline, op by op and fused: the run's report", test_chains);
	CU_add_test(s, "format 3 still imports; a newer format is refused", test_format_versions);
	CU_add_test(s, "LiteRT's LSTM (24 tensors) exports; a smaller runner says so", test_lstm);
}
