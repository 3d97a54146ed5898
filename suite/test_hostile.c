/*
 * The catalogue of hostile kernels: one row a fault (suite/stubs/hostile.c, chosen by its
 * create() options), run end to end over a few specs beside a clean run of the same. Each
 * row asserts that
 *   - every case of the faulty op that has something to compute gets the row's verdict,
 *     with the row's words in its message (the culprit);
 *   - every other case keeps its verdict from the clean run (or, for a plugin that cannot
 *     be restarted, the cases after the first culprit are ERROR "no worker: ...");
 *   - the JSON report validates against its schema, the HTML and JUnit reports exist;
 *   - the run ends, within a generous bound (a hang detector, ten times what a loaded
 *     machine takes; not a speed test), also when its output goes into a pipe (`| cat` must
 *     not wait for a child the kernel forked);
 *   - no process the kernel started outlives the run.
 * Adding a fault is one row. The catalogue runs with local workers, through --remote with
 * `qconform-worker --stdio` (harness/src/run/stream.h), and as a user who is not root (uid
 * 65534 when the suite runs as root), where every row must end the same way: the sandbox's
 * escapes are refused for any user.
 */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "qct.h"

#define SPECS "specs/litert/dequantize.yaml specs/litert/quantize.yaml specs/litert/equal.yaml"

typedef enum { OTHERS_KEEP, OTHERS_NO_WORKER } others_rule;

typedef struct fault_row {
	const char *fault, *op;
	long long arg;
	const char *verdict; /* of every culprit */
	const char *words;   /* in every culprit's message */
	others_rule others;
	const char *extra; /* more run options */
	double budget_s;   /* what a loaded machine takes; the run must end within 10 times it */
	int no_state_file; /* the state file must not exist after the run */
	int needs_limit;   /* needs the worker memory limit (not under AddressSanitizer) */
} fault_row;

static const fault_row rows[] = {
        /* 1: nothing the kernel writes into shared memory can garble what the harness reads */
        {"thread-stray", "DEQUANTIZE", 1 << 20, "ERROR", "outside its buffers", OTHERS_KEEP, "", 30,
         0, 0},
        {"meta", "DEQUANTIZE", 0, "ERROR", "modified the call's description", OTHERS_KEEP, "", 30,
         0, 0},
        {"input", "QUANTIZE", 0, "ERROR", "modified input 0", OTHERS_KEEP, "", 30, 0, 0},
        /* 2: unwritten outputs fail, named */
        {"unwritten", "EQUAL", 0, "FAIL", "never written", OTHERS_KEEP, "", 30, 0, 0},
        {"unwritten", "QUANTIZE", 0, "FAIL", "never written", OTHERS_KEEP, "", 30, 0, 0},
        {"unwritten", "DEQUANTIZE", 0, "FAIL", "never written", OTHERS_KEEP, "", 30, 0, 0},
        /* 3: late writes: an answer that lands after execute returned is no answer, and a
         * right answer overwritten later is ERROR. The worker closes the case's memory the
         * instruction after execute returns; a write that lands before that (the worker
         * preempted, as it is while the job threads keep both cores busy) is the kernel's
         * answer, so the stub's thread writes 2 ms later and only once it sees the memory
         * closed (a preempted worker took longer than 2 ms on a loaded machine). */
        {"late", "DEQUANTIZE", 2000, "FAIL", "never written", OTHERS_KEEP, "", 30, 0, 0},
        /* late-garble: 0.1 ms after the memory is seen closed, well inside the worker's wait
         * at the command's end (QC_SETTLE_MS), also when the thread is scheduled late */
        {"late-garble", "DEQUANTIZE", 100, "ERROR", "output changed after execute returned",
         OTHERS_KEEP, "", 30, 0, 0},
        {"late-garble", "QUANTIZE", 100, "ERROR", "output changed after execute returned",
         OTHERS_KEEP, "--jobs 2", 30, 0, 0},
        /* 4: stray writes near and far cost the culprit only */
        {"stray", "DEQUANTIZE", 1, "ERROR", "past the end of output 0", OTHERS_KEEP, "", 30, 0, 0},
        {"stray", "DEQUANTIZE", 64, "ERROR", "past the end of output 0", OTHERS_KEEP, "", 30, 0, 0},
        {"stray", "DEQUANTIZE", 4096, "ERROR", "outside its buffers (output 0 +", OTHERS_KEEP, "",
         30, 0, 0},
        {"stray", "DEQUANTIZE", -1, "ERROR", "before the start of output 0", OTHERS_KEEP, "", 30, 0,
         0},
        {"stray", "DEQUANTIZE", -4096, "ERROR", "", OTHERS_KEEP, "", 30, 0, 0},
        {"stray", "QUANTIZE", 1 << 20, "ERROR", "outside its buffers", OTHERS_KEEP, "--jobs 2", 30,
         0, 0},
        /* every EQUAL case with data crashes its worker: one restart each, about 200 (60 s: a
         * hang detector that allows for the sanitizers on a loaded machine) */
        {"stray", "EQUAL", -(1 << 20), "ERROR", "outside its buffers", OTHERS_KEEP, "", 60, 0, 0},
        /* 6: a worker that cannot restart: the cases before keep their verdicts, the rest
         * are ERROR, the report is complete, in bounded time */
        {"no-restart", "DEQUANTIZE", 2, "CRASH", "SIGSEGV", OTHERS_NO_WORKER, "--jobs 1", 30, 0, 0},
        {"hang-restart", "DEQUANTIZE", 2, "CRASH", "SIGSEGV", OTHERS_NO_WORKER,
         "--jobs 1 --timeout 2", 40, 0, 0},
        /* 7: children of the plugin: a crash is a crash (not a timeout), and no child keeps
         * the run or a pipe waiting */
        {"fork-crash", "DEQUANTIZE", 0, "CRASH", "SIGSEGV", OTHERS_KEEP, "--timeout 20", 15, 0, 0},
        {"fork-linger", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "--timeout 20", 15, 0, 0},
        {"exit", "QUANTIZE", 3, "CRASH", "worker exited with status 3", OTHERS_KEEP, "", 30, 0, 0},
        /* 8: limits and the sandbox: memory runs out in the worker, not the machine; the
         * harness cannot be signalled; no program can be run */
        {"alloc", "DEQUANTIZE", 4096, "CRASH", "out of memory", OTHERS_KEEP, "--worker-memory 64M",
         60, 0, 1},
        {"kill-parent", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "", 30, 0, 0},
        {"shell", "DEQUANTIZE", 0, "ERROR", "system() failed", OTHERS_KEEP, "", 30, 1, 0},
        /* 9: escapes from the sandbox, refused (the kernel then answers right, PASS) as root
         * and as any user: the harness cannot be signalled through an fd's owner nor its
         * memory opened, no io_uring, /proc/sys is read-only, no socket reaches a path, no
         * file is written where the user may write, a memfd is no way around
         * --worker-memory, a fork bomb stops, and no child outlives the run in a session of
         * its own */
        {"setown", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "", 30, 0, 0},
        {"proc-mem", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "", 30, 0, 0},
        {"io-uring", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "", 30, 0, 0},
        {"proc-sys", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "", 30, 0, 0},
        {"unix-socket", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "", 30, 0, 0},
        {"write-tmp", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "", 30, 0, 0},
        {"memfd", "DEQUANTIZE", 1536, "PASS", "", OTHERS_KEEP, "--worker-memory 512M", 30, 0, 0},
        {"fork-bomb", "DEQUANTIZE", 1100, "PASS", "", OTHERS_KEEP, "", 60, 0, 0},
        {"setsid", "DEQUANTIZE", 0, "PASS", "", OTHERS_KEEP, "--timeout 20", 15, 0, 0},
};

/* How the catalogue's runs are started: "" (the suite's user), or a prefix that runs them as
 * uid 65534 */
static const char *as_user = "";

static json_t *case_by_name(json_t *cases, const char *name)
{
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		if (!strcmp(qct_str(c, "name"), name))
			return c;
	}
	return NULL;
}

/* Has the case something to compute (an output with elements)? */
static int computes(json_t *c)
{
	json_t *outs = json_object_get(c, "outputs");
	for (size_t k = 0; k < json_array_size(outs); k++)
		if (json_integer_value(json_object_get(json_array_get(outs, k), "elements")) > 0)
			return 1;
	return 0;
}

/* Workers (and their forked children) whose command line names this row's state file. */
static int leftovers(const char *tmp)
{
	qct_proc p;
	/* "stat[e]" matches "state" (a local worker's options, a remote worker's name) but not
	 * this shell's own command line */
	if (qct_sh(&p, "pgrep -f -- '%s/stat[e]' | wc -l", tmp) != 0)
		return -1;
	int n = atoi(p.out);
	qct_proc_free(&p);
	return n;
}

/* The report of a run with the hostile stub, its exit status and elapsed time; the run's
 * stdout goes through `| cat`. */
static json_t *run_row(const char *tmp, const fault_row *f, int remote, int *status,
                       double *elapsed)
{
	char json[600], via[1400] = "";
	snprintf(json, sizeof json, "%s/report.json", tmp);
	if (remote) {
		/* the remote worker is tmp/state.worker, so that leftovers() finds it */
		char cwd[512], link[700];
		const char *w = qct_build_path("qconform-worker");
		snprintf(link, sizeof link, "%s/state.worker", tmp);
		if (!getcwd(cwd, sizeof cwd))
			return NULL;
		char target[1100];
		snprintf(target, sizeof target, "%s%s%s", w[0] == '/' ? "" : cwd,
		         w[0] == '/' ? "" : "/", w);
		if (symlink(target, link) != 0)
			return NULL;
		snprintf(via, sizeof via, "--remote '%s --stdio'", link);
	}
	qct_proc p;
	double t0 = qct_now_s();
	/* the state file's path names the row's processes for leftovers() too */
	int rc = qct_sh(
	        &p,
	        "{ timeout -k 5 %.0f %s %s run %s --quiet --json %s --html %s/report.html "
	        "--junit %s/report.xml --plugin %s --plugin-option fault=%s "
	        "--plugin-option op=%s --plugin-option arg=%lld --plugin-option state=%s/state "
	        "--sandbox-allow %s %s %s; echo $? > %s/status; } | cat",
	        10 * f->budget_s, as_user, qct_build_path("qconform"), SPECS, json, tmp, tmp,
	        qct_stub("hostile"), f->fault, f->op, f->arg, tmp, tmp, f->extra, via, tmp);
	*elapsed = qct_now_s() - t0;
	if (rc != 0)
		return NULL;
	qct_proc_free(&p);
	char path[700];
	snprintf(path, sizeof path, "%s/status", tmp);
	FILE *s = fopen(path, "r");
	*status = -1;
	if (s) {
		if (fscanf(s, "%d", status) != 1)
			*status = -1;
		fclose(s);
	}
	json_error_t e;
	json_t *r = json_load_file(json, 0, &e);
	if (r) {
		char what[200];
		snprintf(what, sizeof what, "fault %s on %s", f->fault, f->op);
		qct_validate_report_later(json, what);
	}
	return r;
}

/* The rows whose outcome depends on the worker's privileges: what a user who is not root runs
 * again (the others test what the harness does with a worker's memory and messages, the same
 * for any user). */
static int privilege_row(const fault_row *f)
{
	static const char *const faults[] = {
	        "kill-parent", "shell",    "fork-crash", "fork-linger", "alloc",
	        "setown",      "proc-mem", "io-uring",   "proc-sys",    "unix-socket",
	        "write-tmp",   "memfd",    "fork-bomb",  "setsid",
	};
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
		if (!strcmp(f->fault, faults[i]))
			return 1;
	return 0;
}

static void check_row(const fault_row *f, json_t *clean, int remote)
{
	if (*as_user && !privilege_row(f))
		return;
	/* an escape: the harness sees only its answer; the plain pass runs it */
	int escape = privilege_row(f) && strcmp(f->fault, "alloc") != 0 &&
	             strcmp(f->fault, "fork-crash") != 0 && strcmp(f->fault, "fork-linger") != 0;
	if (qct_under_sanitizers() && escape) {
		printf("\n  %-12s %-10s: the sandbox's, run in the plain pass", f->fault, f->op);
		return;
	}
	/* under the sanitizers, a path another row takes already: one restart per case (exit),
	 * the late garble of QUANTIZE's (DEQUANTIZE's row is the same path) */
	if (qct_under_sanitizers() &&
	    (!strcmp(f->fault, "exit") ||
	     (!strcmp(f->fault, "late-garble") && !strcmp(f->op, "QUANTIZE")))) {
		printf("\n  %-12s %-10s: skipped under the sanitizers (the plain pass runs it)",
		       f->fault, f->op);
		return;
	}
#if defined(__SANITIZE_ADDRESS__)
	if (f->needs_limit) {
		printf("\n  %-12s %-10s: skipped (no memory limit under AddressSanitizer)",
		       f->fault, f->op);
		return;
	}
#endif
	/* the one row a second time through --remote, or under the sanitizers, adds nothing to:
	 * a restart per case, as the stray QUANTIZE row's far write before it */
	if ((remote || qct_under_sanitizers()) && !strcmp(f->fault, "stray") &&
	    !strcmp(f->op, "EQUAL")) {
		printf("\n  %-12s %-10s%s: skipped (the far stray write above covers it)", f->fault,
		       f->op, remote ? " remote" : "");
		return;
	}
	const char *tmp = qct_tmpdir();
	if (*as_user)
		chmod(tmp, 0777); /* for the runs as uid 65534 */
	int status;
	double elapsed;
	json_t *r = run_row(tmp, f, remote, &status, &elapsed);
	printf("\n  %-12s %-10s %8lld%s: %.1f s", f->fault, f->op, f->arg, remote ? " remote" : "",
	       elapsed);
	if (status == 124 || status == 137)
		printf(" (did not end within %.0f s)", 10 * f->budget_s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	int conforming = !strcmp(f->verdict, "PASS");
	if (status != (conforming ? 0 : 1))
		printf(" (exit %d)", status);
	CU_ASSERT_EQUAL(status, conforming ? 0 : 1);
	char path[700];
	struct stat sb;
	snprintf(path, sizeof path, "%s/report.html", tmp);
	CU_ASSERT(stat(path, &sb) == 0 && sb.st_size > 0);
	snprintf(path, sizeof path, "%s/report.xml", tmp);
	CU_ASSERT(stat(path, &sb) == 0 && sb.st_size > 0);

	json_t *cases = json_object_get(r, "cases"), *ccases = json_object_get(clean, "cases");
	CU_ASSERT_EQUAL(json_array_size(cases), json_array_size(ccases));
	size_t culprits = 0, wrong = 0, no_worker = 0;
	int after_culprit = 0;
	for (size_t i = 0; i < json_array_size(ccases); i++) {
		json_t *cc = json_array_get(ccases, i);
		json_t *c = case_by_name(cases, qct_str(cc, "name"));
		if (!c) {
			wrong++;
			continue;
		}
		const char *v = qct_verdict(c), *cv = qct_verdict(cc);
		int culprit = !strcmp(qct_str(cc, "op"), f->op) && computes(cc) &&
		              (!strcmp(cv, "PASS") || !strcmp(cv, "PASS_WITHIN_TOLERANCE"));
		if (f->others == OTHERS_NO_WORKER && after_culprit) {
			/* after the first culprit no worker loads: every case is ERROR */
			int ok =
			        !strcmp(v, "ERROR") && strstr(qct_str(c, "message"), "no worker: ");
			no_worker += ok;
			if (!ok && wrong++ < 3)
				printf("\n    %s: %s \"%s\", want ERROR \"no worker: ...\"",
				       qct_str(c, "name"), v, qct_str(c, "message"));
			continue;
		}
		if (culprit) {
			culprits++;
			after_culprit = 1;
			int ok = !strcmp(v, f->verdict) && strstr(qct_str(c, "message"), f->words);
			if (!ok && wrong++ < 3)
				printf("\n    culprit %s: %s \"%s\", want %s \"%s\"",
				       qct_str(c, "name"), v, qct_str(c, "message"), f->verdict,
				       f->words);
		} else if (strcmp(qct_str(cc, "op"), f->op) != 0 && strcmp(v, cv) != 0) {
			if (wrong++ < 3)
				printf("\n    innocent %s: %s \"%s\", clean run %s",
				       qct_str(c, "name"), v, qct_str(c, "message"), cv);
		}
	}
	CU_ASSERT(culprits > 0);
	CU_ASSERT_EQUAL(wrong, 0);
	if (f->others == OTHERS_NO_WORKER)
		CU_ASSERT(no_worker > 0);
	CU_ASSERT_EQUAL(leftovers(tmp), 0);
	if (f->no_state_file) {
		snprintf(path, sizeof path, "%s/state", tmp);
		CU_ASSERT(access(path, F_OK) != 0);
	}
	json_decref(r);
	qct_rmdir(tmp);
}

static void catalogue(int remote)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *clean =
	        qct_run_report(tmp, &st, NULL, "%s --plugin %s", SPECS, qct_stub("hostile"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(clean);
	CU_ASSERT_EQUAL(st, 0);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		check_row(&rows[i], clean, remote);
	json_decref(clean);
	qct_rmdir(tmp);
}

static void test_catalogue(void)
{
	catalogue(0);
}

/* Not in the sanitizer pass: it runs the local catalogue there, and test_remote.c the stream. */
static void test_catalogue_remote(void)
{
	if (qct_under_sanitizers()) {
		printf("\n  skipped under the sanitizers (the plain pass runs it)");
		return;
	}
	catalogue(1);
}

/*
 * A kernel that keeps a pointer from its last call and writes through it: the write lands in
 * the previous case's output. A slot a worker leaves open until its command's end (wire.h,
 * QC_CMD_DEFER_CLOSE) lets that write through, so this is what the comparison at the
 * command's end and the run with closed slots after it must catch: the writer is ERROR
 * ("in another case's memory"), the case written into keeps its verdict, no case is blamed
 * for a late write it did not make. Not a catalogue row: a fresh worker's first case has no
 * last call, so each DEQUANTIZE case is either a culprit or keeps its verdict.
 */
static void stale_pointer(int remote)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *clean =
	        qct_run_report(tmp, &st, NULL, "%s --plugin %s", SPECS, qct_stub("hostile"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(clean);
	const fault_row f = {"stale",     "DEQUANTIZE", 0,  "ERROR", "in another case's memory",
	                     OTHERS_KEEP, "--jobs 1",   60, 0,       0};
	double elapsed;
	json_t *r = run_row(tmp, &f, remote, &st, &elapsed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases"), *ccases = json_object_get(clean, "cases");
	CU_ASSERT_EQUAL(json_array_size(cases), json_array_size(ccases));
	size_t culprits = 0, kept = 0, wrong = 0;
	for (size_t i = 0; i < json_array_size(ccases); i++) {
		json_t *cc = json_array_get(ccases, i);
		json_t *c = case_by_name(cases, qct_str(cc, "name"));
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		const char *v = qct_verdict(c), *cv = qct_verdict(cc);
		if (!strcmp(v, cv)) {
			kept++;
			continue;
		}
		if (!strcmp(qct_str(cc, "op"), f.op) && !strcmp(v, f.verdict) &&
		    strstr(qct_str(c, "message"), f.words)) {
			culprits++;
			continue;
		}
		if (wrong++ < 3)
			printf("\n    %s: %s \"%s\", clean run %s", qct_str(c, "name"), v,
			       qct_str(c, "message"), cv);
	}
	printf("\n  %s%zu culprits, %zu cases kept their verdicts: %.1f s",
	       remote ? "remote: " : "", culprits, kept, elapsed);
	CU_ASSERT(culprits >= 3);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(leftovers(tmp), 0);
	json_decref(r);
	json_decref(clean);
	qct_rmdir(tmp);
}

/* Locally and through --remote, whose worker leaves slots open too: what a later case wrote
 * there comes back with the command's end. */
static void test_stale_pointer(void)
{
	stale_pointer(0);
	stale_pointer(1);
}

/*
 * A late write whose report faults too: the kernel's thread unmaps output 0's page once the
 * case's memory is closed and writes there, before the worker answers (release() waits for
 * it). A remote worker's fault handler answers the case before its FAULT, and reading the
 * outputs for that answer faults again in the same handler: that second fault must neither
 * wait for the answer it interrupted (the worker fell silent until the device's keeper killed
 * it at the timeout: TIMEOUT) nor replace the first (a read of output 0). Every culprit is
 * the late write; remotely its outputs were in the page it unmapped and never come back
 * (FAIL, never written, with the late write said). The other cases keep their verdicts.
 */
static void late_unmap(json_t *clean, int remote)
{
	const char *tmp = qct_tmpdir();
	const fault_row f = {"late-unmap",
	                     "DEQUANTIZE",
	                     0,
	                     remote ? "FAIL" : "ERROR",
	                     "output changed after execute returned (output 0 written later)",
	                     OTHERS_KEEP,
	                     "",
	                     30,
	                     0,
	                     0};
	int st;
	double elapsed;
	json_t *r = run_row(tmp, &f, remote, &st, &elapsed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases"), *ccases = json_object_get(clean, "cases");
	CU_ASSERT_EQUAL(json_array_size(cases), json_array_size(ccases));
	size_t culprits = 0, wrong = 0;
	for (size_t i = 0; i < json_array_size(ccases); i++) {
		json_t *cc = json_array_get(ccases, i);
		json_t *c = case_by_name(cases, qct_str(cc, "name"));
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		const char *v = qct_verdict(c), *cv = qct_verdict(cc);
		int culprit = !strcmp(qct_str(cc, "op"), f.op) && computes(cc) &&
		              (!strcmp(cv, "PASS") || !strcmp(cv, "PASS_WITHIN_TOLERANCE"));
		int ok = culprit ? !strcmp(v, f.verdict) && strstr(qct_str(c, "message"), f.words)
		                 : !strcmp(v, cv);
		culprits += culprit && ok;
		if (!ok && wrong++ < 3)
			printf("\n    %s %s: %s \"%s\", clean run %s",
			       culprit ? "culprit" : "innocent", qct_str(c, "name"), v,
			       qct_str(c, "message"), cv);
	}
	printf("\n  late-unmap DEQUANTIZE%s: %zu culprits, %.1f s", remote ? " remote" : "",
	       culprits, elapsed);
	CU_ASSERT(culprits > 0);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(leftovers(tmp), 0);
	json_decref(r);
	qct_rmdir(tmp);
}

static void test_late_unmap(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *clean =
	        qct_run_report(tmp, &st, NULL, "%s --plugin %s", SPECS, qct_stub("hostile"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(clean);
	late_unmap(clean, 0);
	if (!qct_under_sanitizers()) /* as the remote catalogue */
		late_unmap(clean, 1);
	json_decref(clean);
	qct_rmdir(tmp);
}

/*
 * Faults after the kernel's answer is computed, and on the worker's own ground (its channel,
 * its stream, the arena's protection): only some calls of the op are culprits (pick=odd: the
 * others of the op run as the reference does), and every case that is not a culprit keeps
 * its verdict from the clean run, locally and through --remote. A culprit is a case of the
 * op with the row's verdict and words; with no verdict, the culprits cannot be told from the
 * op's other cases, and the cases of the other ops are the innocents.
 */
typedef struct ground_row {
	const char *fault, *op;
	long long arg;
	const char *verdict, *words; /* of every culprit; verdict NULL: any */
	int plain_only; /* the harness path is another row's: not again under the sanitizers */
	int remote;     /* what --remote does differently (its keeper, its stream): run it there */
} ground_row;

static const ground_row ground_rows[] = {
        {"release-crash", "QUANTIZE", 0, "CRASH", "in release()", 0, 1},
        {"last-error-bad", "QUANTIZE", 0, "CRASH", "in last_error()", 1, 1},
        {"forge-fault", "QUANTIZE", 0, "CRASH", "in execute()", 1, 0},
        {"forge-answer", "QUANTIZE", 0, NULL, NULL, 1, 1},
        {"reopen", "QUANTIZE", 0, "PASS", "", 0, 1},
        {"reopen", "QUANTIZE", 1, "PASS", "", 1, 0},
        {"stray-fd", "QUANTIZE", 0, "ERROR", "garbled answer from the worker", 1, 1},
        {"forge-broken", "QUANTIZE", 0, NULL, NULL, 1, 0}, /* no channel to forge remotely */
        /* its thread writes the moment execute returns: which of its cases the closing wins
         * depends on the machine; none of the others may be touched */
        {"late-now", "QUANTIZE", 0, NULL, NULL, 1, 0},
};

static void check_ground(const ground_row *g, json_t *clean, int remote)
{
	const char *tmp = qct_tmpdir();
	const fault_row f = {
	        g->fault, g->op, g->arg, "", "", OTHERS_KEEP, "--plugin-option pick=odd",
	        120,      0,     0};
	int status;
	double elapsed;
	json_t *r = run_row(tmp, &f, remote, &status, &elapsed);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT(status == 0 || status == 1);
	json_t *cases = json_object_get(r, "cases"), *ccases = json_object_get(clean, "cases");
	CU_ASSERT_EQUAL(json_array_size(cases), json_array_size(ccases));
	size_t culprits = 0, innocents = 0;
	for (size_t i = 0; i < json_array_size(ccases); i++) {
		json_t *cc = json_array_get(ccases, i);
		json_t *c = case_by_name(cases, qct_str(cc, "name"));
		const char *v = c ? qct_verdict(c) : "", *cv = qct_verdict(cc);
		int of_op = !strcmp(qct_str(cc, "op"), g->op);
		if (of_op && (!g->verdict || (!strcmp(v, g->verdict) &&
		                              strstr(qct_str(c, "message"), g->words)))) {
			culprits += g->verdict && strcmp(v, cv) != 0;
			continue;
		}
		if (!c || strcmp(v, cv) != 0) {
			if (innocents++ < 3)
				printf("\n    innocent %s: %s \"%s\", clean run %s",
				       qct_str(cc, "name"), v,
				       c ? qct_str(c, "message") : "(missing)", cv);
		}
	}
	printf("\n  %-14s %-9s %lld%s: %zu culprits, %zu innocent cases blamed, %.1f s", g->fault,
	       g->op, g->arg, remote ? " remote" : "", culprits, innocents, elapsed);
	CU_ASSERT_EQUAL(innocents, 0);
	if (g->verdict && strcmp(g->verdict, "PASS") != 0)
		CU_ASSERT(culprits > 0);
	CU_ASSERT_EQUAL(leftovers(tmp), 0);
	json_decref(r);
	qct_rmdir(tmp);
}

static void test_ground(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *clean =
	        qct_run_report(tmp, &st, NULL, "%s --plugin %s", SPECS, qct_stub("hostile"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(clean);
	for (size_t i = 0; i < sizeof ground_rows / sizeof ground_rows[0]; i++) {
		if (ground_rows[i].plain_only && qct_under_sanitizers())
			continue;
		check_ground(&ground_rows[i], clean, 0);
		if (!qct_under_sanitizers() && ground_rows[i].remote) /* as the remote catalogue */
			check_ground(&ground_rows[i], clean, 1);
	}
	json_decref(clean);
	qct_rmdir(tmp);
}

/*
 * The catalogue as a user who is not root: the sandbox must hold without root's privileges
 * (a user namespace of its own where the kernel allows, the filter in any case). Run as root,
 * the suite drops to uid/gid 65534 with setpriv; run as another user, it runs as itself.
 */
static void test_catalogue_not_root(void)
{
	/* the sandbox's behaviour, not the harness's memory: the plain pass runs it */
	if (qct_under_sanitizers()) {
		printf("\n  sanitizer pass: the catalogue as uid 65534 runs in the plain pass");
		return;
	}
	if (geteuid() == 0) {
		qct_proc p;
		int rc = qct_sh(&p,
		                "setpriv --reuid=65534 --regid=65534 --clear-groups %s --version "
		                ">/dev/null 2>&1 && echo ok",
		                qct_build_path("qconform"));
		int ok = rc == 0 && strstr(p.out, "ok") != NULL;
		if (rc == 0)
			qct_proc_free(&p);
		if (!ok) {
			printf("\n  SKIPPED: cannot run the build as uid 65534 (setpriv missing, "
			       "or "
			       "the build directory not readable by that user)");
			return;
		}
		as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups";
	}
	catalogue(0);
	as_user = "";
}

void qct_register_hostile(void)
{
	CU_pSuite s = qct_suite("hostile");
	CU_add_test(s, "catalogue of hostile kernels", test_catalogue);
	CU_add_test(s, "a stale pointer writes into the case before", test_stale_pointer);
	/* a suite of its own: it runs without the catalogue's two passes */
	CU_pSuite g = qct_suite("faults");
	CU_add_test(g, "faults after the answer, on the worker's ground: the culprit's only",
	            test_ground);
	CU_add_test(g, "a late write whose report faults again: reported, and at once",
	            test_late_unmap);
	CU_add_test(s, "the catalogue through --remote (qconform-worker --stdio)",
	            test_catalogue_remote);
	CU_add_test(s, "the catalogue as a user who is not root", test_catalogue_not_root);
}
