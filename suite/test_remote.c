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
 *     stream protocol (a frame written by Python with its own CRC-32), a corrupted frame, a
 *     stream through a terminal (a pty, or CR inserted before LF), a link lost four times in
 *     a row with no case answered between;
 *   - a lost link is not a verdict: the transport killed mid-run (within a frame, between
 *     frames, or silent while alive) is started again, the cases in flight run again, and the
 *     report equals an uninterrupted run's, with the reconnects counted;
 *   - the timeout is the device's: a link slower per transfer than the timeout turns no case
 *     into TIMEOUT, and a kernel that hangs is TIMEOUT from the device's keeper;
 *   - the keeper kills its worker the moment its stdin closes (a hung create() included);
 *   - a pool of boards (--remote repeated, or {job}): a board that stays unreachable leaves
 *     the pool and the run ends on the others with the local run's report, every case on a
 *     board that is alive; {job} makes a board per job;
 *   - the ssh recipe, against a local sshd where one can be started: the local run's report,
 *     and the ssh client killed mid-run changes nothing but the reconnect count.
 */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/platform.h"
#include "qct.h"
#include "run/stream.h"

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

/* Cases equal but for their timings (and reproduce commands). */
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
		json_object_del(x, "reproduce"); /* names --remote, or not */
		json_object_del(y, "reproduce");
		json_object_del(x, "board"); /* a pool's */
		json_object_del(y, "board");
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
	refused(tmp, "false",
	        "no answer from the remote worker: the remote command `false` exited with status "
	        "1");
	snprintf(path, sizeof path, "%s/filter.py", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(filter, f);
	fclose(f);
	refused(tmp, "echo hello", "not a qconform frame");
	/* the same, deterministic: a hello frame larger than a pipe holds (a 70 kB option) is
	 * still being written when the command closes its stdin; what it wrote is what counts
	 * (this was "no answer from the remote worker" when echo was quick) */
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
	char words[80];
	snprintf(words, sizeof words, "speaks stream protocol 99, this qconform %d",
	         QC_STREAM_PROTOCOL);
	refused(tmp, cmd, words);
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

/*
 * A transport that passes the stream frame by frame (argv[4:] is the worker, argv[3] a file
 * counting the connections), and on frame K (argv[2]) up from the worker of the first
 * connection (n = 0):
 *   drop     ends within the frame (half of it written), and exits; later connections pass
 *   between  exits before the frame
 *   drop-all as drop, and every later connection drops its second frame (no answer again)
 *   stall    writes nothing more, alive, until killed
 *   kill     kills the worker command (SIGKILL: an ssh client killed) and ends with it
 *   delay    sleeps K/10 s before every frame but the first, on every connection
 *   crlf     LF turned into CR LF in everything from the worker (a terminal's output)
 *   hello    passes the HELLO down and exits, the worker left running on its own
 * Counting frames, not time: where the link fails does not depend on the machine's load.
 */
static const char link_filter[] =
        "import os, struct, subprocess, sys, threading, time\n"
        "mode, k, state, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]\n"
        "try: n = int(open(state).read())\n"
        "except Exception: n = 0\n"
        "open(state, 'w').write(str(n + 1))\n"
        "w = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
        "def exact(fd, m):\n"
        "    b = b''\n"
        "    while len(b) < m:\n"
        "        c = os.read(fd, m - len(b))\n"
        "        if not c: break\n"
        "        b += c\n"
        "    return b\n"
        "if mode == 'hello':\n"
        "    h = exact(0, 16)\n"
        "    w.stdin.write(h + exact(0, struct.unpack('<IIII', h)[2])); w.stdin.flush()\n"
        "    os._exit(0)\n"
        "def down():\n"
        "    while True:\n"
        "        b = os.read(0, 65536)\n"
        "        if not b: break\n"
        "        w.stdin.write(b); w.stdin.flush()\n"
        "    w.stdin.close()\n"
        "threading.Thread(target=down, daemon=True).start()\n"
        "up, out, i = w.stdout.fileno(), sys.stdout.buffer, 0\n"
        "while True:\n"
        "    h = exact(up, 16)\n"
        "    if len(h) < 16:\n"
        "        out.write(h); out.flush(); os._exit(0)\n"
        "    f = h + exact(up, struct.unpack('<IIII', h)[2])\n"
        "    at = k if n == 0 else 1 if mode == 'drop-all' else -1\n"
        "    if i == at and mode in ('drop', 'drop-all'):\n"
        "        out.write(f[:len(f) // 2]); out.flush(); os._exit(0)\n"
        "    if i == at and mode == 'between': os._exit(0)\n"
        "    if i == at and mode == 'stall': time.sleep(3600)\n"
        "    if i == at and mode == 'kill':\n"
        "        w.kill(); w.wait(); os._exit(0)\n"
        "    if mode == 'delay' and i > 0: time.sleep(k / 10)\n"
        "    if mode == 'crlf': f = f.replace(b'\\n', b'\\r\\n')\n"
        "    out.write(f); out.flush(); i += 1\n";

/* The link filter at tmp/link.py, its connection count (tmp/connections) reset. */
static void link_filter_file(const char *tmp)
{
	char path[700];
	snprintf(path, sizeof path, "%s/link.py", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(link_filter, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/connections", tmp);
	unlink(path);
}

/* The --remote command through the link filter to worker_path --stdio. */
static void link_command(const char *tmp, const char *mode, int k, const char *worker_path,
                         char *cmd, size_t size)
{
	link_filter_file(tmp);
	snprintf(cmd, size, "python3 %s/link.py %s %d %s/connections %s --stdio", tmp, mode, k, tmp,
	         worker_path);
}

/* The run through the link filter: its report, exit status, stdout (out, freed by the
 * caller) and the connections made. */
static json_t *run_linked(const char *tmp, const char *args, const char *remote, int *status,
                          char **out, int *connections)
{
	char json[700];
	snprintf(json, sizeof json, "%s/linked.json", tmp);
	unlink(json);
	qct_proc p;
	*out = NULL;
	if (qct_sh(&p, "%s run %s --jobs 1 --json %s --plugin %s --remote \"%s\"",
	           qct_build_path("qconform"), args, json,
	           qct_build_path("libqconform_reference.so"), remote) != 0)
		return NULL;
	*status = p.status;
	*out = strdup(p.out);
	if (p.status != 0)
		printf("\n    exit %d: %.400s", p.status, p.err);
	qct_proc_free(&p);
	char path[700];
	snprintf(path, sizeof path, "%s/connections", tmp);
	char *c = qct_read_file(path);
	*connections = c ? atoi(c) : 0;
	free(c);
	json_t *r = json_load_file(json, 0, NULL);
	if (r)
		qct_validate_report_later(json, "a run through a failing link");
	return r;
}

static int reconnects(json_t *r)
{
	json_t *n = json_object_get(json_object_get(r, "summary"), "remote_reconnects");
	return n ? (int)json_integer_value(n) : -1;
}

/*
 * The transport killed mid-run (a frame cut, or between frames; the worker left behind sees
 * its stdin end and dies): the run reconnects once and its report equals the local run's.
 * A transport that is alive and silent is dropped after the case's timeout and the link's
 * allowance, and the same follows. A link lost four times in a row without an answer stops
 * the run as a broken stream does, the cases judged before it in the report and its journal.
 */
static void test_link_lost(void)
{
	const char *tmp = qct_tmpdir();
	int st, rst, conns;
	char cmd[2000], *out;
	json_t *local = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	static const char *const modes[] = {"drop", "between"};
	for (size_t i = 0; i < 2; i++) {
		link_command(tmp, modes[i], 40, worker(), cmd, sizeof cmd);
		json_t *r = run_linked(tmp, "specs/litert/add.yaml", cmd, &rst, &out, &conns);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		printf("\n    %s at frame 40: exit %d, %d connections, %d reconnect(s)", modes[i],
		       rst, conns, reconnects(r));
		CU_ASSERT_EQUAL(rst, st);
		CU_ASSERT_EQUAL(differing(local, r), 0);
		CU_ASSERT_EQUAL(conns, 2);
		CU_ASSERT_EQUAL(reconnects(r), 1);
		CU_ASSERT_PTR_NOT_NULL(
		        strstr(out, "remote: the link to the worker was lost 1 time:"));
		free(out);
		json_decref(r);
	}
	/* alive and silent: the harness's own deadline (0.5 s, and 5.5 s for the link) */
	double t0 = qct_now_s();
	link_command(tmp, "stall", 20, worker(), cmd, sizeof cmd);
	json_t *r = run_linked(tmp, "specs/litert/add.yaml --timeout 0.5", cmd, &rst, &out, &conns);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	printf("\n    stall at frame 20: exit %d, %d connections, %d reconnect(s), %.1f s", rst,
	       conns, reconnects(r), qct_now_s() - t0);
	CU_ASSERT_EQUAL(rst, st);
	CU_ASSERT_EQUAL(differing(local, r), 0);
	CU_ASSERT_EQUAL(reconnects(r), 1);
	free(out);
	json_decref(r);
	/* lost again and again: the run stops, one line */
	link_command(tmp, "drop-all", 40, worker(), cmd, sizeof cmd);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p,
	               "%s run specs/litert/add.yaml --quiet --jobs 1 --json %s/r.json "
	               "--plugin %s --remote \"%s\"",
	               qct_build_path("qconform"), tmp, qct_build_path("libqconform_reference.so"),
	               cmd),
	        0);
	const char *nl = strchr(p.err, '\n');
	int ok = p.status == 2 && strstr(p.err, "was lost 4 times in a row, no case answered") &&
	         strstr(p.err, "truncated frame") && nl && !strchr(nl + 1, '\n');
	if (!ok)
		printf("\n    drop-all: exit %d, stderr: %s", p.status, p.err);
	CU_ASSERT(ok);
	qct_proc_free(&p);
	char path[700];
	snprintf(path, sizeof path, "%s/r.json", tmp);
	r = json_load_file(path, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	size_t done = json_array_size(json_object_get(r, "cases"));
	printf("\n    drop-all: %zu cases in the report", done);
	CU_ASSERT(done > 0 && done <= 39); /* at most the first connection's 39 answers */
	CU_ASSERT_EQUAL(reconnects(r), 3);
	json_decref(r);
	/* and its journal, for --resume once the link is back */
	snprintf(path, sizeof path, "%s/r.json.journal", tmp);
	CU_ASSERT(access(path, F_OK) == 0);
	json_decref(local);
	qct_rmdir(tmp);
}

/* The first cases of add.yaml, by name (--case). */
static const char few_cases[] = "--case 'litert/add/sh=[[];[7];[7]],p=[0.05;0;0.05;0]/0' "
                                "--case 'litert/add/sh=[[];[7];[7]],p=[0.05;0;0.05;0]/1' "
                                "--case 'litert/add/sh=[[];[7];[7]],p=[0.05;0;0.05;0]/2' "
                                "--case 'litert/add/sh=[[];[7];[7]],p=[0.1;-128;0.1;-128]/0'";

/*
 * The timeout is the kernel's, on the device: a link that takes 0.6 s per frame with a
 * --timeout of 0.5 s turns no case into TIMEOUT (each answer comes 0.6 s after the one
 * before: the harness's clock alone would call every case TIMEOUT); a kernel that hangs is
 * TIMEOUT by the device's keeper, with the local run's message (were it the harness's
 * deadline instead, the link would be called lost, four times, and the run would stop).
 */
static void test_device_timeout(void)
{
	const char *tmp = qct_tmpdir();
	int st, rst, conns;
	char cmd[2000], *out, args[1200];
	snprintf(args, sizeof args, "specs/litert/add.yaml %s --timeout 0.5", few_cases);
	json_t *local = qct_run_report(tmp, &st, NULL, "%s", args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(local, "cases")), 4);
	link_command(tmp, "delay", 6, worker(), cmd, sizeof cmd);
	double t0 = qct_now_s();
	json_t *r = run_linked(tmp, args, cmd, &rst, &out, &conns);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	printf("\n    0.6 s a frame, --timeout 0.5: exit %d, %.1f s", rst, qct_now_s() - t0);
	CU_ASSERT_EQUAL(rst, st);
	CU_ASSERT_EQUAL(differing(local, r), 0);
	CU_ASSERT_EQUAL(reconnects(r), 0);
	CU_ASSERT_EQUAL(conns, 1);
	free(out);
	json_decref(r);
	json_decref(local);
	/* a kernel that hangs (QuantizeLinear), through --remote */
	const char *spec = "specs/onnx/quantize_linear.yaml --filter '*int8,zp=0,scale=2.0/0'";
	local = qct_run_report(tmp, &st, NULL, "%s --plugin %s --timeout 0.5", spec,
	                       qct_stub("hang"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	r = qct_run_report(tmp, &rst, NULL, "%s --timeout 0.5 --remote '%s --stdio --plugin %s'",
	                   spec, worker(), qct_stub("hang"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(rst, st);
	size_t timeouts = 0;
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		timeouts += !strcmp(qct_verdict(c), "TIMEOUT") &&
		            !strcmp(qct_str(c, "message"), "timed out after 0.5 s (worker killed)");
	}
	printf("\n    hang through --remote: %zu TIMEOUT of %zu cases", timeouts,
	       json_array_size(cases));
	CU_ASSERT(timeouts > 0);
	CU_ASSERT_EQUAL(differing(local, r), 0);
	CU_ASSERT_EQUAL(reconnects(r), 0);
	json_decref(r);
	json_decref(local);
	qct_rmdir(tmp);
}

/* Live processes whose command line holds pattern (pgrep: a zombie has none). */
static int alive(const char *pattern)
{
	qct_proc p;
	if (qct_sh(&p, "pgrep -f -- '%s' | wc -l", pattern) != 0)
		return -1;
	int n = atoi(p.out);
	qct_proc_free(&p);
	return n;
}

/*
 * The keeper kills its worker the moment its stdin closes: a transport that passes the HELLO
 * and dies leaves a worker hung in create() (the plugin's, from its first call), which must
 * be gone at once, not at a timeout (this one is 30 s): polled for up to 10 s.
 */
static void test_keeper_stdin(void)
{
	const char *tmp = qct_tmpdir();
	char link[700], cmd[2000], pattern[800];
	snprintf(link, sizeof link, "%s/keeper.worker", tmp);
	CU_ASSERT_EQUAL_FATAL(symlink(worker(), link), 0);
	link_command(tmp, "hello", 0, link, cmd, sizeof cmd);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/litert/add.yaml --quiet --json %s/r.json "
	                             "--timeout 30 --plugin %s --plugin-option fault=hang-restart "
	                             "--plugin-option arg=1 --plugin-option state=%s/state "
	                             "--remote \"%s\"",
	                             qct_build_path("qconform"), tmp, qct_stub("hostile"), tmp,
	                             cmd),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	qct_proc_free(&p);
	snprintf(pattern, sizeof pattern, "%s/keeper.worke[r]", tmp);
	double t0 = qct_now_s();
	int n = alive(pattern);
	while (n > 0 && qct_now_s() - t0 < 10) {
		usleep(20000);
		n = alive(pattern);
	}
	printf("\n    the worker is gone %.2f s after the run", qct_now_s() - t0);
	CU_ASSERT_EQUAL(n, 0);
	if (n > 0) {
		qct_sh(&p, "pkill -KILL -f -- '%s'", pattern);
		qct_proc_free(&p);
	}
	qct_rmdir(tmp);
}

/* A stream through a terminal: one line that says so, whether what came was mangled output (CR
 * before LF) or the terminal's echo of the harness's own frames (script(1) gives a pty). */
static void test_terminal(void)
{
	const char *tmp = qct_tmpdir();
	char cmd[2000];
	link_command(tmp, "crlf", 0, worker(), cmd, sizeof cmd);
	refused(tmp, cmd, "passed through a terminal");
	qct_proc p;
	int have_script = qct_sh(&p, "command -v script") == 0 && p.status == 0;
	qct_proc_free(&p);
	if (have_script) {
		snprintf(cmd, sizeof cmd, "script -qfc '%s --stdio' /dev/null", worker());
		refused(tmp, cmd, "passed through a terminal");
	} else {
		printf("\n    no script(1): the pty is not tried");
	}
	qct_rmdir(tmp);
}

/* The board of a case of a pool's report, or -1. */
static int board_of(json_t *c)
{
	json_t *b = json_object_get(c, "board");
	return json_is_integer(b) ? (int)json_integer_value(b) : -1;
}

/*
 * A pool of three boards (three commands, each the local worker; board 1's through the link
 * filter), --jobs 3; board 1 drops its link at its first answer (frame 1, after its LOADED),
 * and every later connection ends before its worker answers (no Python to start again): after
 * 3 reconnects it leaves the pool. Each job starts with a unit of its own,
 * so board 1 always holds cases when it dies (nothing here depends on the order the threads run
 * in). The run completes on boards 0 and 2: the local run's exit status and report case by case,
 * board 1 named dead on the console and in the report, every case on a board that is alive, the
 * cases counted per board.
 */
static void test_pool(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *local = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	link_filter_file(tmp);
	char cmds[3][1500];
	snprintf(cmds[0], sizeof cmds[0], "env %s --stdio", worker());
	snprintf(cmds[1], sizeof cmds[1],
	         "test -e %s/conn1 && exit 1; python3 %s/link.py drop 1 %s/conn1 %s --stdio", tmp,
	         tmp, tmp, worker());
	snprintf(cmds[2], sizeof cmds[2], "%s --stdio", worker());
	char json[700];
	snprintf(json, sizeof json, "%s/pool.json", tmp);
	qct_proc p;
	double t0 = qct_now_s();
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/litert/add.yaml --jobs 3 --json %s --plugin %s "
	                             "--remote \"%s\" --remote \"%s\" --remote \"%s\"",
	                             qct_build_path("qconform"), json,
	                             qct_build_path("libqconform_reference.so"), cmds[0], cmds[1],
	                             cmds[2]),
	                      0);
	printf("\n    a pool of 3, board 1 dead: exit %d, %.1f s", p.status, qct_now_s() - t0);
	CU_ASSERT_EQUAL(p.status, st);
	char want[1700];
	snprintf(want, sizeof want, "remote: board 1 `%s` is dead, out of the pool after 0 cases",
	         cmds[1]);
	if (!strstr(p.out, want) || !strstr(p.out, "was lost 4 times in a row"))
		printf("\n    stdout: %.2000s\n    stderr: %.500s", p.out, p.err);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "was lost 4 times in a row"));
	qct_proc_free(&p);
	json_t *r = json_load_file(json, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	qct_validate_report_later(json, "a run on a pool with a dead board");
	CU_ASSERT_EQUAL(differing(local, r), 0);
	json_t *pool = json_object_get(
	        json_object_get(json_object_get(json_object_get(r, "run"), "plugin"), "remote"),
	        "pool");
	json_t *fared = json_object_get(json_object_get(r, "summary"), "remote_pool");
	CU_ASSERT_EQUAL_FATAL(json_array_size(pool), 3);
	CU_ASSERT_EQUAL_FATAL(json_array_size(fared), 3);
	for (int b = 0; b < 3; b++) {
		CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(pool, b)), cmds[b]);
		CU_ASSERT_STRING_EQUAL(qct_str(json_array_get(fared, b), "state"),
		                       b == 1 ? "dead" : "alive");
	}
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(qct_str(json_array_get(fared, 1), "why"), "was lost 4 times in a row"));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(fared, 1), "reconnects")),
	                3);
	/* every case on a live board, the boards' counts those of the report */
	json_t *cases = json_object_get(r, "cases");
	size_t on[3] = {0, 0, 0}, elsewhere = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		int b = board_of(json_array_get(cases, i));
		if (b == 0 || b == 2)
			on[b]++;
		else
			elsewhere++;
	}
	CU_ASSERT_EQUAL(elsewhere, 0);
	CU_ASSERT_EQUAL(on[0] + on[2], json_array_size(cases));
	for (int b = 0; b < 3; b++)
		CU_ASSERT_EQUAL((size_t)json_integer_value(
		                        json_object_get(json_array_get(fared, b), "cases")),
		                b == 1 ? 0 : on[b]);
	char path[700];
	snprintf(path, sizeof path, "%s/conn1", tmp);
	char *c = qct_read_file(path);
	CU_ASSERT(c && atoi(c) == 1); /* the one connection that loaded, then 3 that did not */
	free(c);
	json_decref(r);
	json_decref(local);
	qct_rmdir(tmp);
}

/*
 * {job} in one --remote command is the job's number, 0-based: --jobs 2 makes a pool of two
 * boards (each touches a file of its own); a failing case's reproduce command names the
 * command of the board that ran it. --jobs below the number of --remote commands is refused.
 */
static void test_pool_job(void)
{
	const char *tmp = qct_tmpdir();
	const char *spec = "specs/litert/quantize_per_axis.yaml";
	int st, rst;
	json_t *local =
	        qct_run_report(tmp, &st, NULL, "%s --plugin %s", spec, qct_stub("ignore_axis"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	json_t *r = qct_run_report(tmp, &rst, NULL,
	                           "%s --jobs 2 --plugin %s --remote 'touch %s/conn{job} && "
	                           "exec %s --stdio'",
	                           spec, qct_stub("ignore_axis"), tmp, worker());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(rst, st);
	CU_ASSERT_EQUAL(st, 1);
	CU_ASSERT_EQUAL(differing(local, r), 0);
	json_t *remote =
	        json_object_get(json_object_get(json_object_get(r, "run"), "plugin"), "remote");
	json_t *pool = json_object_get(remote, "pool");
	CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(remote, "command"), "/conn{job} &&"));
	CU_ASSERT_EQUAL_FATAL(json_array_size(pool), 2);
	for (int b = 0; b < 2; b++) {
		char want[800], path[700];
		snprintf(want, sizeof want, "%s/conn%d ", tmp, b);
		CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_array_get(pool, b)), want));
		snprintf(path, sizeof path, "%s/conn%d", tmp, b);
		CU_ASSERT(access(path, F_OK) == 0);
	}
	json_t *cases = json_object_get(r, "cases");
	size_t failing = 0, named = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		int b = board_of(c);
		CU_ASSERT(b == 0 || b == 1);
		const char *cmd = qct_str(c, "reproduce");
		if (!*cmd || b < 0 || b > 1)
			continue;
		failing++;
		named += strstr(cmd, json_string_value(json_array_get(pool, b))) != NULL;
	}
	printf("\n    {job}: %zu failing cases, %zu reproduce on their board", failing, named);
	CU_ASSERT(failing > 0);
	CU_ASSERT_EQUAL(named, failing);
	json_decref(r);
	json_decref(local);
	/* a board without a job: refused */
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run %s --quiet --json %s/r.json --jobs 1 --remote 'a' "
	                             "--remote 'b'",
	                             qct_build_path("qconform"), spec, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "--jobs is below the number of --remote commands"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/*
 * A board out of reach from the start (its command ends before its worker answers: a device
 * off, an ssh refused) is dead at once, and the run ends on the others; with no board that
 * answers, the run stops as with one command: one line, exit 2.
 */
static void test_pool_unreachable(void)
{
	const char *tmp = qct_tmpdir();
	char spec[1200];
	snprintf(spec, sizeof spec, "specs/litert/add.yaml %s", few_cases);
	int st, rst;
	json_t *local = qct_run_report(tmp, &st, NULL, "%s", spec);
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	json_t *r = qct_run_report(tmp, &rst, NULL,
	                           "%s --plugin %s --remote '%s --stdio' --remote false", spec,
	                           qct_build_path("libqconform_reference.so"), worker());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(rst, st);
	CU_ASSERT_EQUAL(differing(local, r), 0);
	json_t *fared = json_object_get(json_object_get(r, "summary"), "remote_pool");
	CU_ASSERT_EQUAL_FATAL(json_array_size(fared), 2);
	CU_ASSERT_STRING_EQUAL(qct_str(json_array_get(fared, 0), "state"), "alive");
	CU_ASSERT_STRING_EQUAL(qct_str(json_array_get(fared, 1), "state"), "dead");
	CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(json_array_get(fared, 1), "why"),
	                              "no answer from the remote worker: the remote command "
	                              "`false` exited with status 1"));
	json_t *cases = json_object_get(r, "cases");
	size_t on0 = 0;
	for (size_t i = 0; i < json_array_size(cases); i++)
		on0 += board_of(json_array_get(cases, i)) == 0;
	CU_ASSERT(on0 > 0);
	CU_ASSERT_EQUAL(on0, json_array_size(cases));
	json_decref(r);
	json_decref(local);
	refused(tmp, "false\" --remote \"sh -c 'exit 3'",
	        "no answer from the remote worker: the remote command `sh -c 'exit 3'` exited with "
	        "status 3");
	qct_rmdir(tmp);
}

/* A port nobody listens on now (the kernel's pick; another may take it before sshd). */
static int free_port(void)
{
	qct_proc p;
	int port = 0;
	if (qct_sh(&p, "python3 -c 'import socket; s = socket.socket(); "
	               "s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])'") == 0)
		port = atoi(p.out);
	qct_proc_free(&p);
	return port;
}

/*
 * The ssh recipe of the README against a local sshd of the test's own (its host key, a client
 * key, its config; skipped with a note where sshd is not installed or cannot start, as when
 * not root): the report equals the local run's; the ssh client killed mid-run (by the link
 * filter, at a frame of the first connection) costs a reconnect and nothing else, and the
 * remote worker it left is gone (its keeper saw sshd close its stdin).
 */
static void test_ssh(void)
{
	if (access("/usr/sbin/sshd", X_OK) != 0) {
		printf("\n    no /usr/sbin/sshd: skipped");
		return;
	}
	const char *tmp = qct_tmpdir();
	qct_proc p;
	int port = free_port();
	/* privilege separation wants its directory; as root it can be made */
	if (geteuid() == 0 && access("/run/sshd", F_OK) != 0)
		mkdir("/run/sshd", 0755);
	char cfg[700];
	snprintf(cfg, sizeof cfg, "%s/sshd_config", tmp);
	FILE *f = fopen(cfg, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f,
	        "HostKey %s/host_key\nAuthorizedKeysFile %s/client_key.pub\nPidFile %s/sshd.pid\n"
	        "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n"
	        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nLogLevel ERROR\n",
	        tmp, tmp, tmp);
	fclose(f);
	int started =
	        port > 0 &&
	        qct_sh(&p,
	               "ssh-keygen -q -t ed25519 -N '' -f %s/host_key && "
	               "ssh-keygen -q -t ed25519 -N '' -f %s/client_key && "
	               "{ /usr/sbin/sshd -D -f %s -p %d -o ListenAddress=127.0.0.1 -E %s/sshd.log "
	               "</dev/null >/dev/null 2>&1 & echo $!; }",
	               tmp, tmp, cfg, port, tmp) == 0 &&
	        p.status == 0;
	pid_t sshd = started ? (pid_t)atoi(p.out) : 0;
	if (started)
		qct_proc_free(&p);
	char ssh[1500], user[64] = "root";
	if (geteuid() != 0 && qct_sh(&p, "id -un") == 0) {
		snprintf(user, sizeof user, "%.*s", (int)strcspn(p.out, "\n"), p.out);
		qct_proc_free(&p);
	}
	snprintf(ssh, sizeof ssh,
	         "ssh -T -p %d -i %s/client_key -o StrictHostKeyChecking=no "
	         "-o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR %s@127.0.0.1",
	         port, tmp, user);
	/* up when a login works (sshd may take a moment to listen) */
	int up = 0;
	for (double t0 = qct_now_s(); sshd > 0 && !up && qct_now_s() - t0 < 10;) {
		up = qct_sh(&p, "%s true </dev/null", ssh) == 0 && p.status == 0;
		qct_proc_free(&p);
		if (!up)
			usleep(100000);
	}
	if (!up) {
		char path[700];
		snprintf(path, sizeof path, "%s/sshd.log", tmp);
		char *log = qct_read_file(path);
		printf("\n    sshd could not be started or reached (%.200s): skipped",
		       log && *log ? log : "no log");
		free(log);
		if (sshd > 0)
			kill(sshd, SIGTERM);
		qct_rmdir(tmp);
		return;
	}
	/* the worker under a name of its own, to find what outlives the link */
	char link[700], remote[2400], cmd[3000], pattern[800], abs_ref[1200], cwd[1024];
	snprintf(link, sizeof link, "%s/ssh.worker", tmp);
	CU_ASSERT_EQUAL_FATAL(symlink(worker(), link), 0);
	const char *ref = qct_build_path("libqconform_reference.so");
	snprintf(abs_ref, sizeof abs_ref, "%s%s%s", ref[0] == '/' ? "" : getcwd(cwd, sizeof cwd),
	         ref[0] == '/' ? "" : "/", ref);
	snprintf(remote, sizeof remote, "%s %s --stdio --plugin %s", ssh, link, abs_ref);
	int st, rst, conns;
	json_t *local = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(local);
	json_t *r = qct_run_report(tmp, &rst, NULL, "specs/litert/add.yaml --remote '%s'", remote);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(rst, st);
	CU_ASSERT_EQUAL(differing(local, r), 0);
	CU_ASSERT_EQUAL(reconnects(r), 0);
	json_decref(r);
	/* the ssh client killed at frame 40 of its first connection */
	link_filter_file(tmp);
	snprintf(cmd, sizeof cmd, "python3 %s/link.py kill 40 %s/connections %s", tmp, tmp, remote);
	char *out;
	r = run_linked(tmp, "specs/litert/add.yaml", cmd, &rst, &out, &conns);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	printf("\n    ssh killed at frame 40: exit %d, %d connections, %d reconnect(s)", rst, conns,
	       reconnects(r));
	CU_ASSERT_EQUAL(rst, st);
	CU_ASSERT_EQUAL(differing(local, r), 0);
	CU_ASSERT_EQUAL(conns, 2);
	CU_ASSERT_EQUAL(reconnects(r), 1);
	free(out);
	json_decref(r);
	snprintf(pattern, sizeof pattern, "%s/ssh.worke[r]", tmp);
	double t0 = qct_now_s();
	int n = alive(pattern);
	while (n > 0 && qct_now_s() - t0 < 10) {
		usleep(20000);
		n = alive(pattern);
	}
	printf(", the remote workers gone %.2f s after the run", qct_now_s() - t0);
	CU_ASSERT_EQUAL(n, 0);
	json_decref(local);
	kill(sshd, SIGTERM);
	qct_rmdir(tmp);
}

/* The worker's default memory limit is the device's: half its RAM over the workers the board
 * runs (two boards, four jobs: two each), computed where the worker runs and reported back;
 * --worker-memory, given, is what holds. (No limit under AddressSanitizer, whose shadow
 * memory takes terabytes of address space.) */
static void test_device_memory(void)
{
#if defined(__SANITIZE_ADDRESS__)
	printf("\n    skipped under AddressSanitizer: the worker sets no memory limit there");
	return;
#endif
	const char *tmp = qct_tmpdir();
	int st;
	char remote[1400];
	snprintf(remote, sizeof remote, "%s --stdio", worker());
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/litert/add.yaml --jobs 4 --plugin %s --remote '%s' "
	                           "--remote 'env %s'", /* two boards: two commands */
	                           qct_build_path("libqconform_reference.so"), remote, remote);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	json_t *plugin = json_object_get(json_object_get(r, "run"), "plugin");
	json_int_t got = json_integer_value(json_object_get(plugin, "worker_memory"));
	printf("\n    two boards, four jobs: %lld MiB a worker (the host's default for four jobs: "
	       "%zu MiB)",
	       (long long)got >> 20, qc_worker_memory_default(4) >> 20);
	CU_ASSERT_EQUAL((size_t)got, qc_worker_memory_default(2));
	json_decref(r);
	r = qct_run_report(tmp, &st, NULL,
	                   "specs/litert/add.yaml --plugin %s --remote '%s' --worker-memory 768M",
	                   qct_build_path("libqconform_reference.so"), remote);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	plugin = json_object_get(json_object_get(r, "run"), "plugin");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(plugin, "worker_memory")),
	                (json_int_t)768 << 20);
	json_decref(r);
	qct_rmdir(tmp);
}

/* A journal of a pool run resumes only with the same pool: a journaled case's board indexes
 * run.plugin.remote.pool. */
static void test_pool_resume(void)
{
	const char *tmp = qct_tmpdir();
	char a[1400], b[1400], json[700];
	snprintf(a, sizeof a, "%s --stdio", worker());
	snprintf(b, sizeof b, "env %s --stdio", worker());
	snprintf(json, sizeof json, "%s/r.json", tmp);
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s run specs/litert/add.yaml --quiet --json %s --keep-journal "
	                       "--plugin %s --remote '%s' --remote '%s'",
	                       qct_build_path("qconform"), json,
	                       qct_build_path("libqconform_reference.so"), a, b) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s run specs/litert/add.yaml --quiet --json %s --resume %s.journal "
	                       "--plugin %s --remote '%s' --remote '%s'",
	                       qct_build_path("qconform"), json, json,
	                       qct_build_path("libqconform_reference.so"), b, a) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "another pool of --remote boards"));
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s run specs/litert/add.yaml --quiet --json %s --resume %s.journal "
	                       "--plugin %s --remote '%s' --remote '%s'",
	                       qct_build_path("qconform"), json, json,
	                       qct_build_path("libqconform_reference.so"), a, b) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/*
 * Chains through --remote: a kernel of ABI 1 gets the nodes in turn (its own outputs fed
 * forward, first_differing_node named) and the reference's fused calls carry the chain's nodes
 * and intermediates over the stream; both reports are the local runs'.
 */
static void test_chains(void)
{
	const char *tmp = qct_tmpdir();
	const char *specs =
	        "specs/chains/conv_2d_relu6.yaml specs/chains/conv_2d_relu6_ties.yaml "
	        "specs/chains/qdq_add_ties.yaml specs/chains/requantize_requantize.yaml";
	const char *plugins[2] = {qct_stub("relu6_high"),
	                          qct_build_path("libqconform_reference.so")};
	char plugin[2][600];
	for (int i = 0; i < 2; i++)
		snprintf(plugin[i], sizeof plugin[i], "%s", plugins[i]);
	for (int i = 0; i < 2; i++) {
		int st, rst;
		json_t *local = qct_run_report(tmp, &st, NULL, "%s --plugin %s", specs, plugin[i]);
		json_t *remote =
		        qct_run_report(tmp, &rst, NULL, "%s --remote '%s --stdio' --plugin %s",
		                       specs, worker(), plugin[i]);
		CU_ASSERT_FATAL(local && remote);
		CU_ASSERT_EQUAL(rst, st);
		CU_ASSERT_EQUAL(st, i ? 0 : 1);
		CU_ASSERT_EQUAL(differing(local, remote), 0);
		json_t *cases = json_object_get(remote, "cases"), *c;
		size_t k, node2 = 0;
		json_array_foreach(cases, k, c)
		{
			json_t *ch = json_object_get(c, "chain");
			CU_ASSERT_STRING_EQUAL(qct_str(ch, "mode"), i ? "fused" : "op by op");
			node2 += json_integer_value(json_object_get(ch, "first_differing_node")) ==
			         2;
		}
		CU_ASSERT(i ? node2 == 0 : node2 > 0);
		json_decref(local);
		json_decref(remote);
	}
	qct_rmdir(tmp);
}

void qct_register_remote(void)
{
	CU_pSuite s = qct_suite("remote");
	CU_add_test(s, "--remote: the local run's report, what the worker is", test_same_report);
	CU_add_test(s, "--remote: broken streams are one line, exit 2", test_broken_streams);
	CU_add_test(s, "--remote: what the device reports is labelled so", test_device_reports);
	CU_add_test(s, "--remote: a lost link is no verdict, reconnected", test_link_lost);
	CU_add_test(s, "--remote: the timeout is the device's", test_device_timeout);
	CU_add_test(s, "--remote: the keeper kills its worker at stdin's end", test_keeper_stdin);
	CU_add_test(s, "--remote: a terminal in the stream is named", test_terminal);
	CU_add_test(s, "--remote: a pool of boards, one dead: the run ends on the others",
	            test_pool);
	CU_add_test(s, "--remote: {job} in the command, a board per job", test_pool_job);
	CU_add_test(s, "--remote: a board out of reach from the start", test_pool_unreachable);
	CU_add_test(s, "--remote: the ssh recipe, its client killed mid-run", test_ssh);
	CU_add_test(s, "--remote: the worker's memory limit is the device's", test_device_memory);
	CU_add_test(s, "--remote: a pool's journal resumes with that pool only", test_pool_resume);
	CU_add_test(s, "--remote: chains, op by op and fused", test_chains);
}
