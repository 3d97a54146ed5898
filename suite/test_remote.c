/*
 * --remote: workers reached over a byte stream (harness/src/run/stream.h), here a local
 * `qconform-worker --stdio` (the hostile catalogue runs through it too: test_hostile.c).
 *   - the report of a remote run equals the local run's case by case (timings aside), over
 *     specs of every semantics, with --jobs 2, and records the command and what the worker
 *     said of itself (machine, system, the plugin's sha256 computed where it ran);
 *   - --plugin names the plugin where the worker runs; the worker's own --plugin otherwise;
 *   - a failing case's reproduce command runs it through the same --remote command;
 *   - what breaks the stream is one line and exit 2, and what ran before is in the report:
 *     a command that does not start, one that writes something else, a worker of another
 *     stream protocol (a frame written by Python with its own CRC-32), a truncated stream, a
 *     corrupted frame.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "digest.h"
#include "qct.h"

#define SPECS                                                                                      \
	"specs/litert/add.yaml specs/litert/conv_2d.yaml specs/litert/quantize_per_axis.yaml "     \
	"specs/onnx/quantize_linear_blocked.yaml specs/onnx/qlinear_matmul.yaml "                  \
	"specs/torch/fake_quantize_per_channel_affine.yaml "                                       \
	"specs/tf/fake_quant_with_min_max_args.yaml"

/* The worker as an absolute path (the remote command runs from the same directory, but a
 * path with a slash must not depend on it). */
static const char *worker(void)
{
	static char path[1200];
	const char *w = qct_build_path("qconform-worker");
	char cwd[1024];
	if (w[0] == '/' || !getcwd(cwd, sizeof cwd))
		snprintf(path, sizeof path, "%s", w);
	else
		snprintf(path, sizeof path, "%s/%s", cwd, w);
	return path;
}

/* Cases equal but for their timings. */
static size_t differing(json_t *a, json_t *b)
{
	json_t *ca = json_object_get(a, "cases"), *cb = json_object_get(b, "cases");
	if (json_array_size(ca) != json_array_size(cb))
		return (size_t)-1;
	size_t n = 0;
	for (size_t i = 0; i < json_array_size(ca); i++) {
		json_t *x = json_deep_copy(json_array_get(ca, i)),
		       *y = json_deep_copy(json_array_get(cb, i));
		json_object_del(x, "seconds");
		json_object_del(y, "seconds");
		if (!json_equal(x, y) && n++ < 3)
			printf("\n    differs: %s", json_string_value(json_object_get(x, "name")));
		json_decref(x);
		json_decref(y);
	}
	return n;
}

static void test_same_report(void)
{
	const char *tmp = qct_tmpdir();
	int st, rst;
	json_t *local = qct_run_report(tmp, &st, NULL, "%s", SPECS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	json_t *remote =
	        qct_run_report(tmp, &rst, NULL, "%s --jobs 2 --remote '%s --stdio' --plugin %s",
	                       SPECS, worker(), qct_build_path("libqconform_reference.so"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(remote);
	CU_ASSERT_EQUAL(rst, st);
	CU_ASSERT(json_array_size(json_object_get(local, "cases")) > 500);
	CU_ASSERT_EQUAL(differing(local, remote), 0);
	json_t *lp = json_object_get(json_object_get(local, "run"), "plugin"),
	       *rp = json_object_get(json_object_get(remote, "run"), "plugin"),
	       *rr = json_object_get(rp, "remote");
	CU_ASSERT_PTR_NULL(json_object_get(lp, "remote"));
	CU_ASSERT_STRING_EQUAL(qct_str(lp, "sha256"), qct_str(rp, "sha256"));
	CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(rr, "command"), "qconform-worker --stdio"));
	json_t *rpf = json_object_get(rp, "platform");
	CU_ASSERT(strlen(qct_str(rpf, "machine")) > 0);
	CU_ASSERT(strncmp(qct_str(rpf, "system"), "Linux ", 6) == 0);
	CU_ASSERT_STRING_EQUAL(qct_str(rpf, "source"), "device");
	json_decref(local);
	json_decref(remote);
	/* the worker's own --plugin, none given to qconform */
	remote = qct_run_report(
	        tmp, &rst, NULL,
	        "specs/litert/quantize_per_axis.yaml --remote '%s --stdio --plugin %s'", worker(),
	        qct_stub("ignore_axis"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(remote);
	CU_ASSERT_EQUAL(rst, 1);
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(qct_str(json_object_get(json_object_get(remote, "run"), "plugin"), "path"),
	               "libstub_ignore_axis.so"));
	/* the reproduce command of a failing case names the same --remote command */
	json_t *cases = json_object_get(remote, "cases");
	const char *cmd = "";
	for (size_t i = 0; i < json_array_size(cases) && !*cmd; i++)
		cmd = qct_str(json_array_get(cases, i), "reproduce");
	char want[1400];
	snprintf(want, sizeof want, " --remote '%s --stdio --plugin ", worker());
	if (!strstr(cmd, want))
		printf("\n    reproduce: %s", cmd);
	CU_ASSERT_PTR_NOT_NULL(strstr(cmd, want));
	json_decref(remote);
	qct_rmdir(tmp);
}

/* `qconform run --remote CMD` that must stop: exit 2, one line holding words. */
static void refused(const char *tmp, const char *remote, const char *words)
{
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/litert/add.yaml --quiet --json %s/r.json "
	                             "--plugin %s --remote \"%s\"",
	                             qct_build_path("qconform"), tmp,
	                             qct_build_path("libqconform_reference.so"), remote),
	                      0);
	const char *nl = strchr(p.err, '\n');
	int ok = p.status == 2 && strstr(p.err, words) && nl && !strchr(nl + 1, '\n');
	if (!ok)
		printf("\n    --remote \"%s\": exit %d, stderr: %s", remote, p.status, p.err);
	CU_ASSERT(ok);
	qct_proc_free(&p);
}

/* A worker of protocol 99: its LOADED frame (magic "QCS1", type 2, length, CRC-32 of the
 * first three fields and the payload) written by Python with zlib's CRC. */
static const char fake_worker[] =
        "import struct, sys, zlib\n"
        "sys.stdin.buffer.read(16)\n"
        "body = struct.pack('<II', 99, 0) + bytes(1200)\n"
        "head = struct.pack('<III', 0x31534351, 2, len(body))\n"
        "sys.stdout.buffer.write(head + struct.pack('<I', zlib.crc32(head + body)) + body)\n"
        "sys.stdout.flush()\n";

/* Runs the worker (argv[3:]) and passes its stream on unbuffered, but flips the byte at offset
 * argv[2] (flip) or ends the stream there (cut: the worker is killed, as a dropped connection
 * would leave it). */
static const char filter[] =
        "import subprocess, sys\n"
        "mode, at, seen = sys.argv[1], int(sys.argv[2]), 0\n"
        "w = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE)\n"
        "while True:\n"
        "    b = w.stdout.read1(65536)\n"
        "    if not b: break\n"
        "    b = bytearray(b)\n"
        "    if seen <= at < seen + len(b):\n"
        "        if mode == 'cut':\n"
        "            sys.stdout.buffer.write(b[:at - seen]); sys.stdout.flush(); w.kill(); break\n"
        "        b[at - seen] ^= 0x40\n"
        "    seen += len(b)\n"
        "    sys.stdout.buffer.write(b); sys.stdout.flush()\n";

static void test_broken_streams(void)
{
	const char *tmp = qct_tmpdir();
	char cmd[2000], path[700];
	refused(tmp, "/nonexistent/qconform-worker --stdio", "cannot start the remote command");
	refused(tmp, "false", "`false` exited with status 1 before its worker answered");
	snprintf(path, sizeof path, "%s/filter.py", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(filter, f);
	fclose(f);
	refused(tmp, "echo hello", "not a qconform frame");
	/* the same, deterministic: a hello frame larger than a pipe holds (a 70 kB option) is
	 * still being written when the command closes its stdin; what it wrote is what counts
	 * (this was "exited with status 0 before its worker answered" when echo was quick) */
	{
		qct_proc p;
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p,
		               "%s run specs/litert/add.yaml --quiet --json %s/r.json --plugin %s "
		               "--plugin-option big=$(head -c 70000 /dev/zero | tr '\\0' x) "
		               "--remote 'echo hello; exec 0<&-; sleep 1'",
		               qct_build_path("qconform"), tmp,
		               qct_build_path("libqconform_reference.so")),
		        0);
		int ok = p.status == 2 && strstr(p.err, "not a qconform frame");
		if (!ok)
			printf("\n    --remote with a 70 kB hello: exit %d, stderr: %.300s",
			       p.status, p.err);
		CU_ASSERT(ok);
		qct_proc_free(&p);
	}
	snprintf(path, sizeof path, "%s/fake.py", tmp);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(fake_worker, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "python3 %s", path);
	refused(tmp, cmd, "speaks stream protocol 99, this qconform 3");
	/* the stream cut after 40 kB: the cases answered before it are in the report */
	snprintf(cmd, sizeof cmd, "python3 %s/filter.py cut 40000 %s --stdio", tmp, worker());
	refused(tmp, cmd, "truncated frame");
	snprintf(path, sizeof path, "%s/r.json", tmp);
	json_t *r = json_load_file(path, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL(r);
	size_t done = json_array_size(json_object_get(r, "cases"));
	CU_ASSERT(done > 0 && done < 195);
	json_decref(r);
	/* and its journal, for --resume once the link is back */
	snprintf(path, sizeof path, "%s/r.json.journal", tmp);
	CU_ASSERT(access(path, F_OK) == 0);
	unlink(path);
	snprintf(cmd, sizeof cmd, "python3 %s/filter.py flip 30000 %s --stdio", tmp, worker());
	refused(tmp, cmd, "CRC-32 mismatch");
	qct_rmdir(tmp);
}

/* Runs the worker (argv[3:]) and passes its stream on, but first rewrites the bytes argv[1]
 * in its first frame (LOADED) as argv[2] (NUL-padded to the same length), with a new CRC:
 * a device that reports what it likes of itself. */
static const char rewrite_loaded[] =
        "import struct, subprocess, sys, zlib\n"
        "old, new = sys.argv[1].encode(), sys.argv[2].encode()\n"
        "w = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE)\n"
        "magic, typ, n, crc = struct.unpack('<IIII', w.stdout.read(16))\n"
        "body = bytearray(w.stdout.read(n))\n"
        "i = body.find(old)\n"
        "assert i >= 0, 'not in the LOADED frame'\n"
        "body[i:i + len(old)] = new.ljust(len(old), b'\\0')[:len(old)]\n"
        "h = struct.pack('<III', magic, typ, n)\n"
        "sys.stdout.buffer.write(h + struct.pack('<I', zlib.crc32(h + body)) + body)\n"
        "sys.stdout.flush()\n"
        "while True:\n"
        "    b = w.stdout.read1(65536)\n"
        "    if not b: break\n"
        "    sys.stdout.buffer.write(b); sys.stdout.flush()\n";

/*
 * What the device reports is labelled so: a worker that runs the reference while it reports
 * another plugin's sha256 gets a certificate that states the hash as the device's report
 * (sha256_source, platform.source, provenance, the console and the HTML), never as a fact the
 * harness checked; a reported hash that is not 64 hex digits stops the run (exit 2, one line).
 * A local run says the harness computed them.
 */
static void test_device_reports(void)
{
	const char *tmp = qct_tmpdir();
	char path[700], cmd[3000], real[65], forged[65];
	const char *ref = qct_build_path("libqconform_reference.so");
	CU_ASSERT_EQUAL_FATAL(qc_sha256_file(ref, real), 0);
	CU_ASSERT_EQUAL_FATAL(qc_sha256_file(qct_stub("ignore_axis"), forged), 0);
	snprintf(path, sizeof path, "%s/rewrite.py", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(rewrite_loaded, f);
	fclose(f);
	/* a hash of another plugin's: certified (the kernel is the reference), as the device's */
	char abs_ref[1200], cwd[1024];
	snprintf(abs_ref, sizeof abs_ref, "%s%s%s", ref[0] == '/' ? "" : getcwd(cwd, sizeof cwd),
	         ref[0] == '/' ? "" : "/", ref);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s certify --profile tf-fakequant --out %s/cert --plugin %s "
	                             "--remote \"python3 %s %s %s %s --stdio\"",
	                             qct_build_path("qconform"), tmp, abs_ref, path, real, forged,
	                             worker()),
	                      0);
	if (p.status != 0)
		printf("\n    %s%s", p.out, p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	char want[300];
	snprintf(want, sizeof want, "(sha256 %s, REPORTED BY THE DEVICE: not verified", forged);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "(REPORTED BY THE DEVICE)"));
	qct_proc_free(&p);
	snprintf(cmd, sizeof cmd, "%s/cert/certificate.json", tmp);
	json_t *c = json_load_file(cmd, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	json_t *pl = json_object_get(c, "plugin"), *pv = json_object_get(c, "provenance");
	CU_ASSERT_STRING_EQUAL(qct_str(pl, "sha256"), forged);
	CU_ASSERT_STRING_EQUAL(qct_str(pl, "sha256_source"), "device");
	CU_ASSERT_STRING_EQUAL(qct_str(json_object_get(pl, "platform"), "source"), "device");
	int listed = 0;
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(pv, "reported_by_device"), i, x) listed +=
	        !strcmp(json_string_value(x), "plugin.sha256");
	json_array_foreach(json_object_get(pv, "computed_by_harness"), i, x) listed -=
	        !strcmp(json_string_value(x), "plugin.sha256");
	CU_ASSERT_EQUAL(listed, 1);
	json_decref(c);
	qct_validate_json_later("reports/schema/certificate.schema.json", cmd, "certificate");
	snprintf(cmd, sizeof cmd, "%s/cert/certificate.html", tmp);
	char *html = qct_read_file(cmd);
	CU_ASSERT_PTR_NOT_NULL(html && strstr(html, "reported by the device, not verified"));
	free(html);
	/* a reported hash that is no hash: refused, nothing written as if it were one */
	snprintf(cmd, sizeof cmd, "python3 %s %s %s %s --stdio", path, real,
	         "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ", worker());
	refused(tmp, cmd, "reported a plugin sha256 that is not 64 lowercase hex digits");
	snprintf(cmd, sizeof cmd, "python3 %s %s %s %s --stdio", path, real, "abc", worker());
	refused(tmp, cmd, "reported a plugin sha256 that is not 64 lowercase hex digits");
	/* locally, the harness hashed the file and saw the machine */
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	pl = json_object_get(json_object_get(r, "run"), "plugin");
	CU_ASSERT_STRING_EQUAL(qct_str(pl, "sha256_source"), "harness");
	json_t *pf = json_object_get(pl, "platform");
	CU_ASSERT_STRING_EQUAL(qct_str(pf, "source"), "harness");
	CU_ASSERT(strlen(qct_str(pf, "machine")) > 0);
	CU_ASSERT_STRING_EQUAL(qct_str(pf, "emulation"), ""); /* native */
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_remote(void)
{
	CU_pSuite s = qct_suite("remote");
	CU_add_test(s, "--remote: the local run's report, what the worker is", test_same_report);
	CU_add_test(s, "--remote: broken streams are one line, exit 2", test_broken_streams);
	CU_add_test(s, "--remote: what the device reports is labelled so", test_device_reports);
}
