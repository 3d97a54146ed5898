#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <dirent.h>
#include <sanitizer/lsan_interface.h>
#endif
#include <CUnit/Basic.h>
#include <CUnit/TestRun.h>

#include "qct.h"

/* Weak so a test file can be added or removed without editing this list. */
#pragma weak qct_register_reference
#pragma weak qct_register_qparams
#pragma weak qct_register_gen
#pragma weak qct_register_runner
#pragma weak qct_register_hostile
#pragma weak qct_register_spec
#pragma weak qct_register_spec_limits
#pragma weak qct_register_compare
#pragma weak qct_register_run
#pragma weak qct_register_litert_conv
#pragma weak qct_register_litert_elementwise
#pragma weak qct_register_litert_activations
#pragma weak qct_register_litert_layout
#pragma weak qct_register_lua
#pragma weak qct_register_onnx
#pragma weak qct_register_onnx_import
#pragma weak qct_register_ort_import
#pragma weak qct_register_ort_elementwise
#pragma weak qct_register_ort_pool
#pragma weak qct_register_ort_matmul
#pragma weak qct_register_ort_conv
#pragma weak qct_register_ort_attention
#pragma weak qct_register_ort_embed
#pragma weak qct_register_ort_moe
#pragma weak qct_register_ort_lstm
#pragma weak qct_register_torch
#pragma weak qct_register_tf
#pragma weak qct_register_conventions
#pragma weak qct_register_reports
#pragma weak qct_register_gating
#pragma weak qct_register_certify
#pragma weak qct_register_dump
#pragma weak qct_register_plugin_xnnpack
#pragma weak qct_register_plugin_onednn
#pragma weak qct_register_plugin_gemmlowp
#pragma weak qct_register_plugin_libtorch
#pragma weak qct_register_plugin_armnn
#pragma weak qct_register_mutation
#pragma weak qct_register_utf8
#pragma weak qct_register_interrupt
#pragma weak qct_register_examples
#pragma weak qct_register_refusals
#pragma weak qct_register_pipeline
#pragma weak qct_register_cli
#pragma weak qct_register_docs
#pragma weak qct_register_lowbit
#pragma weak qct_register_ci_examples
#pragma weak qct_register_remote
#pragma weak qct_register_export
#pragma weak qct_register_cross
#pragma weak qct_register_mcu
#pragma weak qct_register_ggml
#pragma weak qct_register_mx
#pragma weak qct_register_diagnose

const char *qct_build_path(const char *rel)
{
	static char buf[4][1024];
	static int next;
	const char *b = getenv("QCONFORM_BUILD");
	char *out = buf[next++ % 4];
	snprintf(out, sizeof buf[0], "%s/%s", b && *b ? b : "build", rel);
	return out;
}

/* Every suite ends with the schema checks its tests asked for (qct_validate_report_later):
 * one validator process for all of them; an invalid file fails the suite. */
static int suite_cleanup(void)
{
	int bad = qct_validate_pending(stderr);
	if (bad)
		fprintf(stderr, "  suite %s: %d file(s) failed their schema check\n",
		        CU_get_current_suite() ? CU_get_current_suite()->pName : "?",
		        bad < 0 ? 1 : bad);
	return bad != 0;
}

static int suite_selected(const char *name, const char *patterns)
{
	for (const char *p = patterns; *p;) {
		size_t len = strcspn(p, ",");
		char pat[256];
		snprintf(pat, sizeof pat, "%.*s", (int)len, p);
		if (pat[0] == '=' ? !strcmp(name, pat + 1) : pat[0] && strstr(name, pat))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

CU_pSuite qct_suite(const char *name)
{
	/* QCT_SUITE=TEXT keeps the suites whose name contains TEXT, QCT_SUITE==NAME the one
	 * named NAME, and a comma-separated list of these the suites any of them keeps; QCT_SKIP,
	 * in the same syntax, leaves out the suites it names. The others are registered inactive
	 * (CUnit counts them as not run). */
	const char *only = getenv("QCT_SUITE"), *skip = getenv("QCT_SKIP");
	CU_pSuite s = CU_add_suite(name, NULL, suite_cleanup);
	if (s && ((only && *only && !suite_selected(name, only)) ||
	          (skip && *skip && suite_selected(name, skip))))
		CU_set_suite_active(s, CU_FALSE);
	if (!s) {
		fprintf(stderr, "CU_add_suite(%s): %s\n", name, CU_get_error_msg());
		exit(2);
	}
	return s;
}

/* Prints the failures of the suite just run, as CUnit's basic mode would at the end. */
static void print_failures(void)
{
	for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext)
		fprintf(stderr, "  FAILED %s / %s: %s:%u: %s\n",
		        f->pSuite && f->pSuite->pName ? f->pSuite->pName : "?",
		        f->pTest && f->pTest->pName ? f->pTest->pName
		                                    : "(suite set-up or clean-up)",
		        f->strFileName ? f->strFileName : "?", f->uiLineNumber,
		        f->strCondition ? f->strCondition : "");
}

/*
 * The next suite to run: with QCT_QUEUE=FILE, the lanes that share FILE (make test starts
 * several, each a process of its own) take suites from one counter kept in it, under flock,
 * so whichever lane is free takes the next suite and the lanes end close together. Without
 * it, 0, 1, 2, ... in this process. -1 on an error with FILE (said on stderr).
 */
static int next_suite(const char *queue, int *local)
{
	if (!queue || !*queue)
		return (*local)++;
	int fd = open(queue, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		fprintf(stderr, "QCT_QUEUE %s: %s\n", queue, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	int k = n > 0 ? atoi(buf) : 0;
	int len = snprintf(buf, sizeof buf, "%d\n", k + 1);
	if (pwrite(fd, buf, (size_t)len, 0) != len || ftruncate(fd, len) != 0) {
		fprintf(stderr, "QCT_QUEUE %s: %s\n", queue, strerror(errno));
		k = -1;
	}
	close(fd); /* and the lock with it */
	return k;
}

#if defined(__SANITIZE_ADDRESS__)
/* Threads of this process (entries of /proc/self/task), or -1. */
static int threads_alive(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The leak check, once this is the only thread left: LeakSanitizer's end-of-process check
 * stops every thread and reads its stack, and a thread a test left ending at that moment can
 * crash its tracer ("Tracer caught signal 11", a fatal error after every suite passed). After
 * this call the end-of-process check does not run again. */
static void leak_check_alone(void)
{
	for (int i = 0; i < 500 && threads_alive() > 1; i++)
		usleep(10000);
	__lsan_do_leak_check();
}
#endif

/* CPU seconds of this process and of the children it waited for (their workers included):
 * where make test's budget goes, printed beside each suite's wall time */
static double cpu_s(void)
{
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
	                kids.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
	                kids.ru_stime.tv_usec) /
	               1e6;
}

/* -v: each test as it ends, with its seconds (where a suite's time goes) */
static double test_started;

static void start_test(const CU_pTest test, const CU_pSuite suite)
{
	(void)test;
	(void)suite;
	test_started = qct_now_s();
}

static void say_test(const CU_pTest test, const CU_pSuite suite, const CU_pFailureRecord failures)
{
	printf("  %s / %s: %s (%.1f s)\n", suite->pName, test->pName,
	       failures ? "FAILED" : "passed", qct_now_s() - test_started);
	fflush(stdout);
}

/*
 * qconform_tests --maxrss FILE CMD [ARG...]: runs CMD (its stdout to /dev/null), writes its peak
 * RSS in KiB to FILE and exits with its status. A child's ru_maxrss counts the memory it was
 * forked with (Linux keeps the pre-exec high-water mark), so a test process grown large by the
 * suites before it measures itself, not CMD; this small process forks CMD instead.
 */
static int maxrss_main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execv(argv[3], argv + 3);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid)
		return 2;
	FILE *f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f) != 0)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--maxrss") == 0)
		return maxrss_main(argc, argv);
	/* Heaviest suites first: a lane that takes the last suite then waits least for it. */
	void (*regs[])(void) = {qct_register_hostile,
	                        qct_register_certify,
	                        qct_register_run,
	                        qct_register_reports,
	                        qct_register_spec_limits,
	                        qct_register_gating,
	                        qct_register_export,
	                        qct_register_mcu,
	                        qct_register_mutation,
	                        qct_register_diagnose,
	                        qct_register_pipeline,
	                        qct_register_ci_examples,
	                        qct_register_spec,
	                        qct_register_plugin_libtorch,
	                        qct_register_plugin_armnn,
	                        qct_register_dump,
	                        qct_register_examples,
	                        qct_register_cli,
	                        qct_register_lua,
	                        qct_register_lowbit,
	                        qct_register_remote,
	                        qct_register_litert_conv,
	                        qct_register_plugin_onednn,
	                        qct_register_interrupt,
	                        qct_register_mx,
	                        qct_register_cross,
	                        qct_register_runner,
	                        qct_register_reference,
	                        qct_register_qparams,
	                        qct_register_gen,
	                        qct_register_compare,
	                        qct_register_litert_elementwise,
	                        qct_register_litert_activations,
	                        qct_register_litert_layout,
	                        qct_register_onnx,
	                        qct_register_onnx_import,
	                        qct_register_ort_import,
	                        qct_register_ort_elementwise,
	                        qct_register_ort_pool,
	                        qct_register_ort_matmul,
	                        qct_register_ort_conv,
	                        qct_register_ort_attention,
	                        qct_register_ort_embed,
	                        qct_register_ort_moe,
	                        qct_register_ort_lstm,
	                        qct_register_torch,
	                        qct_register_tf,
	                        qct_register_conventions,
	                        qct_register_plugin_xnnpack,
	                        qct_register_plugin_gemmlowp,
	                        qct_register_utf8,
	                        qct_register_refusals,
	                        qct_register_docs,
	                        qct_register_layers,
	                        qct_register_plugin_util,
	                        qct_register_base,
	                        qct_register_where,
	                        qct_register_ggml,
	                        qct_register_chains};
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	CU_set_fail_on_inactive(CU_FALSE);
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
		if (regs[i])
			regs[i]();
	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		CU_set_test_start_handler(start_test);
		CU_set_test_complete_handler(say_test);
	}
	CU_pSuite active[256];
	int n_active = 0;
	for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
		if (s->fActive && n_active < (int)(sizeof active / sizeof active[0]))
			active[n_active++] = s;
	const char *queue = getenv("QCT_QUEUE");
	unsigned ran = 0, failed = 0, suites = 0;
	int local = 0, k;
	double t_all = qct_now_s();
	while ((k = next_suite(queue, &local)) >= 0 && k < n_active) {
		double t0 = qct_now_s(), c0 = cpu_s();
		CU_run_suite(active[k]);
		CU_pRunSummary r = CU_get_run_summary();
		unsigned bad = r->nFailureRecords;
		printf("%s: %u test%s, %s (%.1f s, cpu %.1f s)\n", active[k]->pName, r->nTestsRun,
		       r->nTestsRun == 1 ? "" : "s", bad ? "FAILED" : "passed", qct_now_s() - t0,
		       cpu_s() - c0);
		fflush(stdout);
		print_failures();
		ran += r->nTestsRun;
		failed += bad;
		suites++;
	}
	CU_cleanup_registry();
	printf("%u suite%s, %u tests, %u failure%s (%.1f s)%s\n", suites, suites == 1 ? "" : "s",
	       ran, failed, failed == 1 ? "" : "s", qct_now_s() - t_all,
	       queue && *queue ? " in this lane" : "");
#if defined(__SANITIZE_ADDRESS__)
	leak_check_alone();
#endif
	if (k < 0)
		return 1;
	if (ran == 0 && !(queue && *queue)) {
		fprintf(stderr, "no tests ran\n");
		return 1;
	}
	return failed ? 1 : 0;
}
