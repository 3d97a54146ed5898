/* Spec loading, case expansion and the errors a spec author sees. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "base/rng.h"
#include "cases/cases.h"
#include "qct.h"
#include "reference/dtype.h"
#include "run/run.h"
#include "spec/slua.h"
#include "spec/spec.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file in suite/specs/bad starts with "# error: LINE:COL: message": validate must print
 * exactly that, prefixed by the path, exit 2, and run must run nothing. */
static void test_bad_specs(void)
{
	const char *dir = "suite/specs/bad";
	DIR *d = opendir(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	char *names[128];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 128)
		if (strstr(e->d_name, ".yaml"))
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, cmp_str);
	CU_ASSERT(n >= 20);
	const char *tmp = qct_tmpdir();
	for (int i = 0; i < n; i++) {
		char path[512], want[512], line[512];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "r");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
		fclose(f);
		line[strcspn(line, "\n")] = 0;
		CU_ASSERT_EQUAL(strncmp(line, "# error: ", 9), 0);
		snprintf(want, sizeof want, "%s:%s", path, line + 9);

		qct_proc p;
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
		CU_ASSERT_EQUAL(p.status, 2);
		size_t first = strcspn(p.err, "\n");
		if (strncmp(p.err, want, first) != 0 || strlen(want) != first)
			fprintf(stderr, "\n%s: want\n  %s\ngot\n  %.*s\n", names[i], want,
			        (int)first, p.err);
		CU_ASSERT(strncmp(p.err, want, first) == 0 && strlen(want) == first);
		qct_proc_free(&p);

		char json[600];
		snprintf(json, sizeof json, "%s/r.json", tmp);
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p, "%s run %s --json %s", qct_build_path("qconform"), path, json),
		        0);
		/* run: the same error first; an error the plan finds (the format, the names, a
		 * profile) runs nothing, one only building the case finds makes that case an ERROR
		 * that names it, in a complete report */
		CU_ASSERT_EQUAL(p.status, 2);
		first = strcspn(p.err, "\n");
		if (strncmp(p.err, want, first) != 0 || strlen(want) != first)
			fprintf(stderr, "\n%s (run): want\n  %s\ngot\n  %.*s\n", names[i], want,
			        (int)first, p.err);
		CU_ASSERT(strncmp(p.err, want, first) == 0 && strlen(want) == first);
		if (access(json, F_OK) != 0) {
			CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "nothing was run"));
		} else {
			json_error_t je;
			json_t *r = json_load_file(json, 0, &je);
			CU_ASSERT_PTR_NOT_NULL_FATAL(r);
			char spec_error[600];
			snprintf(spec_error, sizeof spec_error, "spec error: %s", want);
			int named = 0;
			json_t *cases = json_object_get(r, "cases");
			for (size_t k = 0; k < json_array_size(cases); k++) {
				json_t *c = json_array_get(cases, k);
				named += !strcmp(qct_verdict(c), "ERROR") &&
				         !strcmp(qct_str(c, "message"), spec_error);
			}
			if (!named)
				fprintf(stderr, "\n%s (run): no ERROR case says %s\n", names[i],
				        spec_error);
			CU_ASSERT(named > 0);
			json_decref(r);
			unlink(json);
		}
		qct_proc_free(&p);
		free(names[i]);
	}
	qct_rmdir(tmp);
}

/* A tolerance wider than exact without a reason is a warning, not an error: the spec runs. */
static void test_reason_warning(void)
{
	const char *path = "suite/specs/warn/no_reason.yaml";
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	char want[256];
	snprintf(want, sizeof want, "%s:9:12: warning: a tolerance wider than exact should say why",
	         path);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	qct_proc_free(&p);
	/* with a reason there is nothing to say */
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s validate specs/litert/requantize.yaml", qct_build_path("qconform")),
	        0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NULL(strstr(p.err, "warning"));
	qct_proc_free(&p);
}

/* Hash of every case name and input byte of a spec. */
static uint64_t expand_hash(const char *path, uint64_t seed, uint64_t *n_cases)
{
	qc_diag diag = {0, 0, stderr};
	qc_spec *s = qc_spec_load(path, &diag);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	qc_cases *it = qc_cases_begin(s, seed, 1, &diag);
	qc_case *c;
	uint64_t h = 1469598103934665603ull;
	int rc;
	*n_cases = 0;
	while ((rc = qc_cases_next(it, &c)) != 0) {
		CU_ASSERT_EQUAL(rc, 1);
		if (rc < 0)
			continue;
		h = qc_hash64(c->name, h);
		for (int i = 0; i < c->call.n_inputs; i++) {
			const unsigned char *b = c->in[i].data;
			for (size_t k = 0; k < c->in[i].nbytes; k++)
				h = (h ^ b[k]) * 1099511628211ull;
		}
		(*n_cases)++;
		qc_case_free(c);
	}
	qc_cases_end(it);
	qc_spec_free(s);
	CU_ASSERT_EQUAL(diag.errors, 0);
	return h;
}

/* Same spec and seed: the same cases, bit for bit, on every machine. The constant was
 * recorded once; it changes only if the generators or the naming change (a format break). */
static void test_stable_expansion(void)
{
	uint64_t n1, n2, n3;
	uint64_t a = expand_hash("suite/specs/stable.yaml", 0, &n1);
	uint64_t b = expand_hash("suite/specs/stable.yaml", 0, &n2);
	uint64_t c = expand_hash("suite/specs/stable.yaml", 7, &n3);
	CU_ASSERT_EQUAL(n1, 12);
	CU_ASSERT_EQUAL(n1, n2);
	CU_ASSERT_EQUAL(a, b);
	CU_ASSERT_NOT_EQUAL(a, c); /* another seed draws other random data */
	printf("\n  stable.yaml expansion hash %016llx\n", (unsigned long long)a);
	CU_ASSERT_EQUAL(a, 0x23aae35eeda23d45ull);
}

/* `show` draws the same inputs as a run: the seed defaults to 0 and --seed changes it. */
static void test_show_seed(void)
{
	qct_proc a, b, c;
	const char *q = qct_build_path("qconform");
	const char *name = "tf/stable/n=7,lo=-2/1";
	CU_ASSERT_EQUAL_FATAL(qct_sh(&a, "%s show '%s' suite/specs/stable.yaml", q, name), 0);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&b, "%s show '%s' suite/specs/stable.yaml --seed 0", q, name),
	                      0);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&c, "%s show '%s' suite/specs/stable.yaml --seed 5", q, name),
	                      0);
	CU_ASSERT_EQUAL(a.status, 0);
	CU_ASSERT_STRING_EQUAL(a.out, b.out);
	CU_ASSERT_STRING_NOT_EQUAL(a.out, c.out);
	CU_ASSERT_PTR_NOT_NULL(strstr(a.out, "inputs"));
	qct_proc_free(&a);
	qct_proc_free(&b);
	qct_proc_free(&c);
}

static void test_parse_scalars(void)
{
	double d;
	int64_t i;
	int b;
	CU_ASSERT(qc_parse_float(".inf", &d) && d > 0 && d == d * 2);
	CU_ASSERT(qc_parse_float("-.inf", &d) && d < 0);
	CU_ASSERT(qc_parse_float(".nan", &d) && d != d);
	CU_ASSERT(!qc_parse_float("nan", &d));
	CU_ASSERT(!qc_parse_float("inf", &d));
	CU_ASSERT(qc_parse_float("0x1.8p-3", &d) && d == 0.1875);
	CU_ASSERT(qc_parse_float("3.7e-05", &d) && d == 3.7e-05);
	CU_ASSERT(!qc_parse_float("1.5x", &d));
	/* integers of up to 15 digits are read without strtod: as strtod reads them */
	CU_ASSERT(qc_parse_float("-0", &d) && d == 0 && signbit(d));
	CU_ASSERT(qc_parse_float("+12", &d) && d == 12);
	CU_ASSERT(qc_parse_float("007", &d) && d == 7);
	CU_ASSERT(qc_parse_float("999999999999999", &d) && d == 999999999999999.0);
	CU_ASSERT(qc_parse_float("-9007199254740993", &d) && d == -9007199254740992.0);
	CU_ASSERT(!qc_parse_float("-", &d));
	CU_ASSERT(!qc_parse_float("12-", &d));
	CU_ASSERT(qc_parse_int("-128", &i) && i == -128);
	CU_ASSERT(!qc_parse_int("1.0", &i));
	CU_ASSERT(!qc_parse_int("99999999999999999999", &i));
	CU_ASSERT(qc_parse_bool("true", &b) && b == 1);
	CU_ASSERT(!qc_parse_bool("yes", &b));
}

/* Lua-made integers are written as "%lld" writes them (the names and messages show them). */
static void test_lua_integer_text(void)
{
	static const char text[] =
	        "qconform: 1\nop: ADD\nsemantics: litert\n"
	        "inputs:\n  x: {dtype: int8, shape: [1], quant: {scale: 0.5, zero_point: 0}}\n"
	        "  y: {dtype: int8, shape: [1], quant: {scale: 0.5, zero_point: 0}}\n"
	        "outputs:\n  z: {dtype: int8, shape: [1], quant: {scale: 0.5, zero_point: 0}}\n"
	        "tolerance: exact\n";
	qc_diag d = {0, 0, stderr};
	qc_spec *sp = qc_spec_load_text("ints.yaml", text, strlen(text), &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	const yaml_node_t *at = yaml_document_get_root_node(&sp->doc);
	const int64_t v[] = {0, 7, -1, 10, -10, 1234567890123, INT64_MAX, INT64_MIN};
	for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
		qc_lval lv = {.kind = QC_LV_INT, .i = v[k]};
		char want[32];
		snprintf(want, sizeof want, "%lld", (long long)v[k]);
		const char *got = qc_scalar(qc_node(sp, qc_node_of_lval(sp, &lv, at)));
		CU_ASSERT_PTR_NOT_NULL(got);
		if (got)
			CU_ASSERT_STRING_EQUAL(got, want);
	}
	qc_spec_free(sp);
}

static void test_filters(void)
{
	const char *inc[] = {"torch/*"};
	const char *mixed[] = {"torch/*", "-*cachemask*"};
	const char *exc[] = {"-*/case/*"};
	CU_ASSERT(qc_filter_match(inc, 1, "torch/a/b"));
	CU_ASSERT(!qc_filter_match(inc, 1, "onnx/a/b"));
	CU_ASSERT(qc_filter_match(mixed, 2, "torch/x/y"));
	CU_ASSERT(!qc_filter_match(mixed, 2, "torch/x_cachemask/y"));
	CU_ASSERT(qc_filter_match(exc, 1, "onnx/a/b"));
	CU_ASSERT(!qc_filter_match(exc, 1, "onnx/a/case/x"));
	CU_ASSERT(qc_filter_match(NULL, 0, "anything"));
}

/* `list` and `validate` agree on the number of cases of the shipped specs. */
static void test_list_matches_validate(void)
{
	qct_proc l, v;
	const char *q = qct_build_path("qconform");
	/* qct_specs(): the sanitizer pass expands all of specs/ in the run suite's reference run */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&l, "%s list %s | wc -l", q, qct_specs()), 0);
	CU_ASSERT_EQUAL_FATAL(qct_sh_shared(&v, "%s validate %s", q, qct_specs()), 0);
	CU_ASSERT_EQUAL(v.status, 0);
	long n = strtol(l.out, NULL, 10);
	char want[64];
	snprintf(want, sizeof want, "valid, %ld cases", n);
	CU_ASSERT(n > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.out, want));
	qct_proc_free(&l);
	qct_proc_free(&v);
}

/* The high-water mark (KiB) of /proc/PID/status, or -1. */
static long vm_hwm(pid_t pid)
{
	char path[64], line[256];
	long v = -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/*
 * Peak RSS (KiB) of `qconform ARGS...` run through `qconform_tests --maxrss` (suite/main.c: this
 * process may be large from the suites before, and a child forked from it would count that).
 * With lag_fifo, the run's --json is that FIFO, which this process leaves unread until the
 * run's high-water mark stops rising (or passes 64 MiB), then drains. -1 on an error or a run
 * that does not exit 0.
 */
static long peak_rss(const char *tmp, const char *const *args, const char *lag_fifo)
{
	char out[600];
	snprintf(out, sizeof out, "%s/maxrss", tmp);
	const char *argv[16] = {qct_build_path("qconform_tests"), "--maxrss", out,
	                        qct_build_path("qconform")};
	int n = 4;
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (lag_fifo) {
		unlink(lag_fifo);
		if (mkfifo(lag_fifo, 0600) != 0)
			return -1;
	}
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (lag_fifo) {
		int rd = open(lag_fifo, O_RDONLY);
		/* the run (the spawner's child) blocks writing its report while the job threads
		 * take units: wait until 2 s pass without its high-water mark rising */
		char path[96];
		long child = 0, hwm = 0;
		snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
		for (int still = 0; still < 40 && hwm < 65536;) {
			usleep(50000);
			FILE *f = child ? NULL : fopen(path, "r");
			if (f) {
				if (fscanf(f, "%ld", &child) != 1)
					child = 0;
				fclose(f);
			}
			long now = child ? vm_hwm((pid_t)child) : -1;
			still = now > hwm ? 0 : still + 1;
			hwm = now > hwm ? now : hwm;
		}
		char buf[65536];
		while (rd >= 0 && read(rd, buf, sizeof buf) > 0)
			;
		if (rd >= 0)
			close(rd);
		unlink(lag_fifo);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	long kib = -1;
	FILE *f = fopen(out, "r");
	if (f) {
		if (fscanf(f, "%ld", &kib) != 1)
			kib = -1;
		fclose(f);
	}
	return kib;
}

/* Peak memory of a run must not grow with the number of cases. (Not under AddressSanitizer:
 * its quarantine keeps freed memory on purpose; LeakSanitizer covers leaks there.) */
static void test_memory_flat(void)
{
#if defined(__SANITIZE_ADDRESS__)
	printf("\n  skipped under AddressSanitizer\n");
	return;
#endif
	const char *tmp = qct_tmpdir();
	long rss[2], lag[2];
	int repeats[3] = {10, 400, 800};
	char spec[3][600], json[700], fifo[700], journal[720];
	for (int k = 0; k < 3; k++) {
		snprintf(spec[k], sizeof spec[k], "%s/many%d.yaml", tmp, k);
		FILE *f = fopen(spec[k], "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fprintf(f,
		        "qconform: 1\nop: QuantizeLinear\nsemantics: onnx\nrepeat: %d\n"
		        "sweep: {scale: [0.1, 0.5, 2.0], zp: [0, 3, 128, 255]}\n"
		        "inputs:\n  x: {dtype: float32, shape: [1000], data: {gen: edges, grid: "
		        "y}}\n"
		        "outputs:\n  y: {dtype: uint8, shape: [1000], quant: {scale: =scale, "
		        "zero_point: =zp}}\n",
		        repeats[k]);
		fclose(f);
	}
	for (int k = 0; k < 2; k++) {
		snprintf(json, sizeof json, "%s/r%d.json", tmp, k);
		rss[k] = peak_rss(tmp,
		                  (const char *[]){"run", spec[k], "--quiet", "--json", json, NULL},
		                  NULL);
		CU_ASSERT(rss[k] > 0);
	}
	/* The same while the report's reader lags: the main thread blocks writing it, the job
	 * threads run ahead, and what they hold for it stops at HELD_BYTES (jobs.c; 8 MB as they
	 * count it, about twice in RSS), whatever the number of cases: 4800 and 9600 cases hold the
	 * same. Before, every unit of the window: 57 MB over the run's own for 4800 cases. */
	snprintf(fifo, sizeof fifo, "%s/lag.fifo", tmp);
	for (int k = 0; k < 2; k++) {
		lag[k] = peak_rss(
		        tmp, (const char *[]){"run", spec[k + 1], "--quiet", "--json", fifo, NULL},
		        fifo);
		CU_ASSERT(lag[k] > 0);
	}
	printf("\n  peak RSS: %ld KiB for 120 cases, %ld KiB for 4800 cases; with a reader that "
	       "lags, %ld KiB for 4800 cases, %ld KiB for 9600\n",
	       rss[0], rss[1], lag[0], lag[1]);
	CU_ASSERT(rss[1] < rss[0] + 32768);
	CU_ASSERT(lag[0] < rss[0] + 32768);
	CU_ASSERT(lag[1] < lag[0] + 4096);
	/* --resume of the 4800 cases holds the journal's text, not a result per case (it held
	 * 7 KiB a case: 35 MB here) */
	snprintf(json, sizeof json, "%s/k.json", tmp);
	snprintf(journal, sizeof journal, "%s.journal", json);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s run %s --quiet --json %s --keep-journal",
	                             qct_build_path("qconform"), spec[1], json),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	struct stat js;
	CU_ASSERT_EQUAL_FATAL(stat(journal, &js), 0);
	long resumed = peak_rss(tmp,
	                        (const char *[]){"run", spec[1], "--resume", journal, "--quiet",
	                                         "--json", json, NULL},
	                        NULL);
	printf("  --resume of the 4800 cases: %ld KiB (journal %lld KiB)\n", resumed,
	       (long long)js.st_size / 1024);
	/* above what the run holds at most (a loaded machine may lag it to HELD_BYTES: lag[0]) */
	CU_ASSERT(resumed > 0 && resumed < lag[0] + (long)(js.st_size / 1024) + 4096);
	qct_rmdir(tmp);
}

void qct_register_validate(void); /* suite/test_validate.c */

/* A job thread's copy of a spec (qc_spec_copy) takes the lists its source's "=expr" sweeps
 * evaluated to: it starts no Lua for them (a sweep may run a search costing a good part of a
 * second, once per thread per spec before), and it names the same cases. */
static void test_copy_reuses_sweeps(void)
{
	static const char text[] = "qconform: 1\nop: QuantizeLinear\nsemantics: onnx\n"
	                           "sweep: {s: \"=qc.range(1, 3)\", z: [0, 1]}\n"
	                           "inputs: {x: {dtype: float32, shape: [4]}}\n"
	                           "outputs: {y: {dtype: int8, shape: [4], "
	                           "quant: {scale: =s, zero_point: =z}}}\n";
	qc_diag d = {0, 0, stderr};
	qc_spec *s = qc_spec_load_text("x.yaml", text, sizeof text - 1, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL(s->lua); /* the source evaluated the sweep */
	qc_spec *c = qc_spec_copy(s, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_PTR_NULL(c->lua);
	CU_ASSERT_PTR_EQUAL(c->sweeps[0].values[0], s->sweeps[0].values[0]);
	CU_ASSERT_PTR_NULL(c->sweeps[0].values[1]); /* a written list */
	CU_ASSERT_EQUAL(qc_cases_count(c), 6);
	CU_ASSERT_EQUAL(qc_cases_count(c), qc_cases_count(s));
	qc_cases *a = qc_cases_begin(s, 1, 0, &d), *b = qc_cases_begin(c, 1, 0, &d);
	for (uint64_t i = 0; i < qc_cases_count(s); i++)
		CU_ASSERT_STRING_EQUAL(qc_cases_name(a, i, NULL), qc_cases_name(b, i, NULL));
	qc_cases_end(a);
	qc_cases_end(b);
	qc_spec_free(c);
	qc_spec_free(s);
}

static int same_mark(yaml_mark_t a, yaml_mark_t b)
{
	return a.index == b.index && a.line == b.line && a.column == b.column;
}

/* Node by node: what libyaml's loader built (a) and what qc_yaml_parse built (b). */
static int same_document(const yaml_document_t *a, const yaml_document_t *b, const char *what)
{
	long na = a->nodes.top - a->nodes.start, nb = b->nodes.top - b->nodes.start;
	int ok = na == nb && a->start_implicit == b->start_implicit &&
	         a->end_implicit == b->end_implicit && same_mark(a->start_mark, b->start_mark) &&
	         same_mark(a->end_mark, b->end_mark) &&
	         !a->version_directive == !b->version_directive &&
	         a->tag_directives.end - a->tag_directives.start ==
	                 b->tag_directives.end - b->tag_directives.start;
	for (long i = 0; ok && i < na; i++) {
		const yaml_node_t *x = &a->nodes.start[i], *y = &b->nodes.start[i];
		ok = x->type == y->type && !strcmp((const char *)x->tag, (const char *)y->tag) &&
		     same_mark(x->start_mark, y->start_mark) && same_mark(x->end_mark, y->end_mark);
		if (ok && x->type == YAML_SCALAR_NODE)
			ok = x->data.scalar.length == y->data.scalar.length &&
			     !memcmp(x->data.scalar.value, y->data.scalar.value,
			             x->data.scalar.length) &&
			     x->data.scalar.style == y->data.scalar.style;
		if (ok && x->type == YAML_SEQUENCE_NODE) {
			long n = x->data.sequence.items.top - x->data.sequence.items.start;
			ok = x->data.sequence.style == y->data.sequence.style &&
			     n == y->data.sequence.items.top - y->data.sequence.items.start &&
			     (!n ||
			      !memcmp(x->data.sequence.items.start, y->data.sequence.items.start,
			              (size_t)n * sizeof(yaml_node_item_t)));
		}
		if (ok && x->type == YAML_MAPPING_NODE) {
			long n = x->data.mapping.pairs.top - x->data.mapping.pairs.start;
			ok = x->data.mapping.style == y->data.mapping.style &&
			     n == y->data.mapping.pairs.top - y->data.mapping.pairs.start;
			for (long k = 0; ok && k < n; k++)
				ok = x->data.mapping.pairs.start[k].key ==
				             y->data.mapping.pairs.start[k].key &&
				     x->data.mapping.pairs.start[k].value ==
				             y->data.mapping.pairs.start[k].value;
		}
		if (!ok)
			fprintf(stderr, "\n  %s: node %ld differs from libyaml's\n", what, i + 1);
	}
	if (!ok && na != nb)
		fprintf(stderr, "\n  %s: %ld nodes, libyaml %ld\n", what, nb, na);
	return ok;
}

/* From node ia of a (libyaml's) and ib of b (qc_yaml_parse's with packs ps, from text): the
 * same tree, each packed list of b holding, item for item, the text and the marks of the plain
 * scalars of a's list. *packed counts b's packed lists met. */
static int same_tree(const yaml_document_t *a, int ia, const yaml_document_t *b, int ib,
                     const qc_yaml_packs *ps, const char *text, long *packed)
{
	const yaml_node_t *x = yaml_document_get_node((yaml_document_t *)a, ia);
	const yaml_node_t *y = yaml_document_get_node((yaml_document_t *)b, ib);
	if (!x || !y)
		return !x && !y;
	if (x->type != y->type || strcmp((const char *)x->tag, (const char *)y->tag) ||
	    !same_mark(x->start_mark, y->start_mark) || !same_mark(x->end_mark, y->end_mark))
		return 0;
	if (x->type == YAML_SCALAR_NODE)
		return x->data.scalar.length == y->data.scalar.length &&
		       !memcmp(x->data.scalar.value, y->data.scalar.value, x->data.scalar.length) &&
		       x->data.scalar.style == y->data.scalar.style;
	if (x->type == YAML_SEQUENCE_NODE) {
		long n = x->data.sequence.items.top - x->data.sequence.items.start;
		if (x->data.sequence.style != y->data.sequence.style)
			return 0;
		const qc_yaml_pack *pk = qc_yaml_pack_of(b, ps, y);
		if (pk) {
			(*packed)++;
			if (pk->n != (uint32_t)n || y->data.sequence.items.start)
				return 0;
			qc_pack_cursor cur;
			memset(&cur, 0, sizeof cur);
			for (long k = 0; k < n; k++) {
				const yaml_node_t *e = yaml_document_get_node(
				        (yaml_document_t *)a, x->data.sequence.items.start[k]);
				char buf[64];
				yaml_mark_t s0, s1;
				qc_yaml_pack_item(text, ps, pk, (uint32_t)k, buf, sizeof buf, &cur,
				                  &s0, &s1);
				if (e->type != YAML_SCALAR_NODE ||
				    e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
				    strcmp((const char *)e->data.scalar.value, buf) ||
				    strcmp((const char *)e->tag, YAML_DEFAULT_SCALAR_TAG) ||
				    !same_mark(e->start_mark, s0) || !same_mark(e->end_mark, s1))
					return 0;
			}
			return 1;
		}
		if (n != y->data.sequence.items.top - y->data.sequence.items.start)
			return 0;
		for (long k = 0; k < n; k++)
			if (!same_tree(a, x->data.sequence.items.start[k], b,
			               y->data.sequence.items.start[k], ps, text, packed))
				return 0;
		return 1;
	}
	long n = x->data.mapping.pairs.top - x->data.mapping.pairs.start;
	if (x->data.mapping.style != y->data.mapping.style ||
	    n != y->data.mapping.pairs.top - y->data.mapping.pairs.start)
		return 0;
	for (long k = 0; k < n; k++)
		if (!same_tree(a, x->data.mapping.pairs.start[k].key, b,
		               y->data.mapping.pairs.start[k].key, ps, text, packed) ||
		    !same_tree(a, x->data.mapping.pairs.start[k].value, b,
		               y->data.mapping.pairs.start[k].value, ps, text, packed))
			return 0;
	return 1;
}

/* libyaml's loader and qc_yaml_parse agree on text: node for node without packs; with them,
 * tree for tree (same_tree), *packed lists packed (NULL: not counted). */
static int reads_like_libyaml(const char *what, const char *text, size_t len, long *packed)
{
	yaml_parser_t p;
	yaml_document_t a, b, c;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int la = yaml_parser_load(&p, &a);
	yaml_parser_delete(&p);
	FILE *sink = fopen("/dev/null", "w");
	qc_diag d = {0, 0, sink};
	int lb = qc_yaml_parse(what, (const unsigned char *)text, len, 0, &b, NULL, &d);
	qc_yaml_packs ps;
	int lc = qc_yaml_parse(what, (const unsigned char *)text, len, 0, &c, &ps, &d);
	fclose(sink);
	long n_packed = 0;
	int ok = la == lb && la == lc && (!la || same_document(&a, &b, what));
	if (ok && la && !same_tree(&a, 1, &c, 1, &ps, text, &n_packed)) {
		fprintf(stderr, "\n  %s: packed, the tree differs from libyaml's\n", what);
		ok = 0;
	}
	if (ok && la && (size_t)n_packed != ps.n) {
		fprintf(stderr, "\n  %s: %zu lists packed, %ld met\n", what, ps.n, n_packed);
		ok = 0;
	}
	if (packed)
		*packed = n_packed;
	if (la)
		yaml_document_delete(&a);
	if (lb)
		qc_yaml_free(&b);
	if (lc) {
		qc_yaml_free(&c);
		qc_yaml_packs_free(&ps);
	}
	if (la != lb || la != lc)
		fprintf(stderr, "\n  %s: libyaml %s, qc_yaml_parse %s, packing %s\n", what,
		        la ? "loads" : "refuses", lb ? "loads" : "refuses",
		        lc ? "loads" : "refuses");
	return ok;
}

/* The spec reader builds its document from the one pass that checks the limits: node for
 * node (types, tags, values, styles, marks, items, pairs) what libyaml's yaml_parser_load
 * builds, over every file of specs/ and the YAML the specs do not use (tags, directives,
 * anchors and aliases, complex keys, block scalars, several documents, none), long number
 * sequences as golden data holds them, and where they only look like one (in a block scalar,
 * a string or a comment, behind an anchor or a tag), after multibyte characters and a byte
 * order mark, with carriage returns, and broken. With lists of numbers packed, the same tree,
 * each packed list's items (text and marks) libyaml's, and lists packed exactly where a spec
 * reads numbers only (and the list has no anchor or tag, and nothing that looks like a list
 * hides in a string). */
static void test_yaml_reader(void)
{
#define NUMS "1, -2.5, 3e2, +4, 5, 6., 7E-1, 8, -9.25e+3, 10, 11, 12, 13, 14, 15, 16, 17"
	static const char *const docs[] = {
	        "data: [" NUMS "]\n",
	        "a: [" NUMS ",\n    " NUMS ",\n" NUMS "\n   ]\nb: [" NUMS "]\n",
	        "d: |\n  [" NUMS "]\ne: \"[" NUMS "]\" # [" NUMS "]\nf: [" NUMS "]\n",
	        "a: &x [" NUMS "]\nb: *x\nc: !!seq [" NUMS "]\n",
	        "[[" NUMS "], {k: [" NUMS "]}, [" NUMS ", ]]\n",
	        "? [" NUMS "]\n: [" NUMS ", 1e, 2]\n",
	        "t: \"\xc3\xa9 \xe2\x89\xa4 \xf0\x9f\x99\x82\"\nx: [" NUMS "]\n",
	        "\xef\xbb\xbfx: [" NUMS "]\n",
	        "x: [" NUMS "]\r\ny: [" NUMS "]\r\n",
	        "x: [" NUMS "]\n---\ny: [" NUMS "]\n",
	        "x: [" NUMS ",\t1]\n",
	        "x: [" NUMS "\n",
	        "x: [" NUMS "] y\n",
	        "",
	        "---\n...\n",
	        "a: 1\n---\nb: 2\n",
	        "a: &x [1, {b: &y c}]\nd: *x\ne: *y\nf: &z\n  - *x\n",
	        "%YAML 1.1\n%TAG !e! tag:example.com,2000:\n---\n- !e!x 1\n- ! y\n- !!str 2\n- "
	        "!local "
	        "{k: v}\n- !!seq [1]\n",
	        "- 'single'\n- \"double\\tq\"\n- |\n  literal\n  two\n- >-\n  folded\n  text\n- "
	        "plain text\n",
	        "? [complex, key]\n: value\n? {a: b}\n: [x]\n",
	        "[1, [2, [3, [4]]], {a: [b, {c: d}]}, '', ~, null]\n",
	        "k: v # comment\n# only a comment\nl:\n- - 1\n  - 2\n- -\n",
	        "a: [1, *undefined]\n", /* refused by both */
	        "a: [1\n",              /* refused by both */
	        "x: [.5, " NUMS "]\n",
	};
	/* where a spec reads lists as numbers only, and how many of those are packed */
	static const struct {
		const char *text;
		long packed;
	} data[] = {
	        {"inputs: {a: {data: [" NUMS "]}, b: {data: [" NUMS "]}}\ncases:\n- inputs: {a: "
	         "[" NUMS "], b: {data: [" NUMS "]}}\n  golden: {y: [" NUMS "]}\n",
	         5},
	        {"inputs:\r\n  a:\r\n    data: [" NUMS ",\r\n      " NUMS "\r\n    ]\r\ncases:\r\n"
	         "  - golden:\r\n      y: [\r\n" NUMS "]\r\n",
	         2},
	        {"\xef\xbb\xbf"
	         "description: \"\xc3\xa9 \xe2\x89\xa4 \xf0\x9f\x99\x82\"\ninputs: {a: {data: "
	         "[" NUMS ",\n  " NUMS "]}}\n",
	         1},
	        {"inputs:\n  a:\n    data: [" NUMS "] # [" NUMS "]\n# [" NUMS "]\n", 1},
	        {"inputs:\n  a:\n    data: [" NUMS "]\n  b:\n    data: |\n      [" NUMS "]\n", 0},
	        {"inputs: {a: {data: \"[" NUMS "]\"}, b: {data: [" NUMS "]}}\n", 0},
	        {"inputs: {a: {data: &x [" NUMS "]}, b: {data: !!seq [" NUMS "]}, c: {data: [" NUMS
	         "]}}\nvars: *x\n",
	         1},
	        {"inputs: {a: {shape: [" NUMS "], quant: {scales: [" NUMS "]}}}\nsweep: {z: [" NUMS
	         "]}\noutputs: {y: {data: [" NUMS "]}}\ncases:\n- golden: [" NUMS
	         "]\n- inputs: {a: "
	         "{data: {values: [" NUMS "]}}}\n- {inputs: {a: {data: [1, 2]}}}\n",
	         0},
	        {"cases:\n- inputs: {a: [[" NUMS "], [" NUMS "]], b: [" NUMS ", ], c: [" NUMS
	         ",\t1], d: [" NUMS ", x]}\n",
	         0},
	        {"inputs: {a: {data: [" NUMS "]}}\n---\ninputs: {a: {data: [" NUMS "]}}\n", 1},
	        {"inputs:\n  a:\n    data: [" NUMS ",\n" NUMS "]\n", 1},
	        {"inputs: {a: {data: [" NUMS "]}}\nb: [1\n", 0}, /* refused by both */
	};
#undef NUMS
	for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
		char what[32];
		snprintf(what, sizeof what, "document %zu", i);
		CU_ASSERT_TRUE(reads_like_libyaml(what, docs[i], strlen(docs[i]), NULL));
	}
	for (size_t i = 0; i < sizeof data / sizeof *data; i++) {
		char what[32];
		long packed = -1;
		snprintf(what, sizeof what, "data document %zu", i);
		CU_ASSERT_TRUE(
		        reads_like_libyaml(what, data[i].text, strlen(data[i].text), &packed));
		if (packed != data[i].packed)
			fprintf(stderr, "\n  %s: %ld lists packed, not %ld\n", what, packed,
			        data[i].packed);
		CU_ASSERT_EQUAL(packed, data[i].packed);
	}
	char *paths[] = {"specs"};
	char **files = NULL, **pfiles = NULL;
	int n_pfiles = 0;
	qc_diag d = {0, 0, stderr};
	int n = qc_spec_find(paths, 1, &files, &pfiles, &n_pfiles, &d);
	CU_ASSERT_TRUE(n > 300);
	int differ = 0;
	long packed = 0;
	for (int i = 0; i < n + n_pfiles; i++) {
		const char *f = i < n ? files[i] : pfiles[i - n];
		size_t len;
		long k = 0;
		char *text = qc_read_file(f, "spec", &len, &d);
		CU_ASSERT_PTR_NOT_NULL(text);
		if (text && !reads_like_libyaml(f, text, len, &k))
			differ++;
		packed += k;
		free(text);
	}
	CU_ASSERT_EQUAL(differ, 0);
	CU_ASSERT_TRUE(packed > 1000); /* the imported specs' data and goldens */
	for (int i = 0; i < n; i++)
		free(files[i]);
	for (int i = 0; i < n_pfiles; i++)
		free(pfiles[i]);
	free(files);
	free(pfiles);
}

/* The spec's text with an anchor before each packed list: the same lists, none packed. */
static char *unpacked_text(const qc_spec *s, size_t *len)
{
	char *t = malloc(s->text_len + 16 * s->packs.n + 1);
	size_t u = 0, from = 0;
	for (size_t k = 0; k < s->packs.n; k++) {
		size_t at = s->packs.v[k].at;
		memcpy(t + u, s->text + from, at - from);
		u += at - from;
		u += (size_t)sprintf(t + u, "&p%zu ", k);
		from = at;
	}
	memcpy(t + u, s->text + from, s->text_len - from);
	u += s->text_len - from;
	t[u] = 0;
	*len = u;
	return t;
}

/* Cases built from packed lists (a tensor's data, a case's own data, golden values) are the
 * cases built from the same lists as nodes: every input's bytes, every golden value, over
 * imported specs of several dtypes. */
static void test_packed_lists_build_the_same_cases(void)
{
	static const char *const files[] = {
	        "specs/ort/imported/matmul_nbits_4bit_zp.yaml",
	        "specs/onnx/ort/dequantize_linear_int4_blocked_opset21.yaml",
	        "specs/onnx/ort/quantize_linear_output_dtype_int8_opset21.yaml",
	};
	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		qc_diag d = {0, 0, stderr};
		qc_spec *a = qc_spec_load(files[f], &d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_TRUE(a->packs.n >= 2);
		size_t len;
		char *text = unpacked_text(a, &len);
		qc_spec *b = qc_spec_load_text(files[f], text, len, &d);
		free(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL(b->packs.n, 0);
		qc_cases *ia = qc_cases_begin(a, 0, 1, &d), *ib = qc_cases_begin(b, 0, 1, &d);
		qc_case *x, *y;
		int n = 0, differ = 0;
		while (qc_cases_next(ia, &x) == 1) {
			CU_ASSERT_EQUAL_FATAL(qc_cases_next(ib, &y), 1);
			int same =
			        x->call.n_inputs == y->call.n_inputs && !strcmp(x->name, y->name);
			for (int i = 0; same && i < x->call.n_inputs; i++)
				same = x->in[i].nbytes == y->in[i].nbytes &&
				       !memcmp(x->in[i].data, y->in[i].data, x->in[i].nbytes);
			for (int k = 0; same && k < x->call.n_outputs; k++) {
				size_t m = qref_numel(x->out[k].rank, x->out[k].shape);
				same = !x->golden[k] == !y->golden[k] &&
				       (!x->golden[k] ||
				        !memcmp(x->golden[k], y->golden[k], m * sizeof(double)));
			}
			differ += !same;
			n++;
			qc_case_free(x);
			qc_case_free(y);
		}
		CU_ASSERT_EQUAL(qc_cases_next(ib, &y), 0);
		CU_ASSERT_TRUE(n >= 1);
		CU_ASSERT_EQUAL(differ, 0);
		CU_ASSERT_EQUAL(d.errors, 0);
		qc_cases_end(ia);
		qc_cases_end(ib);
		qc_spec_free(b);
		qc_spec_free(a);
	}
}

/* A value of a packed list that the tensor cannot hold is reported where it is written, once
 * for all the cases that use the list. */
static void test_packed_list_errors(void)
{
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	qc_diag d = {0, 0, f};
	/* an int8 input holding 300, at line 3, column 23 of its tensor's data */
	static const char bad[] = "qconform: 1\nop: DequantizeLinear\nsemantics: onnx\n"
	                          "sweep: {s: [0.5, 0.25, 0.125]}\n"
	                          "inputs:\n  x:\n    dtype: int8\n    shape: [10]\n"
	                          "    quant: {scale: =s, zero_point: 0}\n"
	                          "    data: [1, 2, 3, 4,\n      5, 6, 300, 8, 9, 10]\n"
	                          "outputs: {y: {dtype: float32, shape: [10]}}\n";
	qc_spec *s = qc_spec_load_text("bad.yaml", bad, sizeof bad - 1, &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->packs.n, 1);
	qc_cases *it = qc_cases_begin(s, 0, 1, &d);
	qc_case *c;
	int built = 0, failed = 0;
	for (int rc; (rc = qc_cases_next(it, &c)) != 0;) {
		built += rc == 1;
		failed += rc < 0;
		if (rc == 1)
			qc_case_free(c);
	}
	qc_cases_end(it);
	qc_spec_free(s);
	fclose(f);
	CU_ASSERT_EQUAL(built, 0);
	CU_ASSERT_EQUAL(failed, 3);
	CU_ASSERT_EQUAL(d.errors, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad.yaml:11:13: value 300 outside int8 [-128, 127]"));
	if (!strstr(out, "bad.yaml:11:13: value 300 outside int8"))
		fprintf(stderr, "\n  said: %s", out);
	free(out);
}

/* Case names whose values outgrow their buffers (a value's part past 64 or 96 bytes, the
 * parameters past 383, the name past 511) are cut where they always were: the names of such a
 * spec hash to what they hashed to when names were printed with snprintf. */
static void test_long_names(void)
{
	char x[301], list[512], nested[1024], map[512], text[4096];
	memset(x, 'x', 300);
	x[300] = 0;
	size_t u = (size_t)snprintf(list, sizeof list, "[");
	for (int i = 0; i < 40; i++)
		u += (size_t)snprintf(list + u, sizeof list - u, "%s%d", i ? ", " : "",
		                      i * 1000003);
	snprintf(list + u, sizeof list - u, "]");
	u = (size_t)snprintf(nested, sizeof nested, "[");
	for (int i = 0; i < 5; i++) {
		u += (size_t)snprintf(nested + u, sizeof nested - u, "%s[", i ? ", " : "");
		for (int j = i; j < i + 30; j++)
			u += (size_t)snprintf(nested + u, sizeof nested - u, "%s%d",
			                      j > i ? ", " : "", j);
		u += (size_t)snprintf(nested + u, sizeof nested - u, "]");
	}
	snprintf(nested + u, sizeof nested - u, "]");
	u = (size_t)snprintf(map, sizeof map, "{");
	for (int i = 0; i < 6; i++)
		u += (size_t)snprintf(map + u, sizeof map - u,
		                      "%skey%d: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv",
		                      i ? ", " : "", i);
	snprintf(map + u, sizeof map - u, "}");
	snprintf(text, sizeof text,
	         "qconform: 1\nop: ADD\nsemantics: litert\nsweep:\n  a: [\"%s\", short]\n  b: "
	         "[%s]\n  c: [%s]\n  d: [%s]\n  e: [[1, [2, [3, {k: [4, 5]}]]]]\nrepeat: 2\n"
	         "inputs:\n  x: {dtype: int8, shape: [2], quant: {scale: 0.5, zero_point: 0}}\n"
	         "  y: {dtype: int8, shape: [2], quant: {scale: 0.5, zero_point: 0}}\noutputs:\n"
	         "  z: {dtype: int8, shape: [2], quant: {scale: 0.5, zero_point: 0}}\n"
	         "tolerance: exact\n",
	         x, list, nested, map);
	qc_diag d = {0, 0, stderr};
	qc_spec *sp = qc_spec_load_text("long_names.yaml", text, strlen(text), &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	qc_cases *it = qc_cases_begin(sp, 0, 0, &d);
	uint64_t h = 1469598103934665603ull;
	for (uint64_t i = 0; i < qc_cases_count(sp); i++) {
		const char *name = qc_cases_name(it, i, NULL);
		CU_ASSERT_EQUAL(strlen(name), 403);
		h = qc_hash64(name, h);
	}
	CU_ASSERT_EQUAL(qc_cases_count(sp), 4);
	printf("\n  long names hash %016llx", (unsigned long long)h);
	CU_ASSERT_EQUAL(h, 0xbca502db60286797ull);
	qc_cases_end(it);
	qc_spec_free(sp);
}

void qct_register_spec(void)
{
	CU_pSuite s = qct_suite("spec");
	CU_add_test(s, "bad specs: file:line:col, exit 2, nothing run", test_bad_specs);
	CU_add_test(s, "stable expansion across runs and machines", test_stable_expansion);
	CU_add_test(s, "a tolerance without a reason warns", test_reason_warning);
	CU_add_test(s, "show honours the seed", test_show_seed);
	CU_add_test(s, "long names are cut where they always were", test_long_names);
	CU_add_test(s, "YAML scalar typing", test_parse_scalars);
	CU_add_test(s, "Lua-made integers read as %lld writes them", test_lua_integer_text);
	CU_add_test(s, "filters include and exclude", test_filters);
	CU_add_test(s, "list agrees with validate", test_list_matches_validate);
	CU_add_test(s, "memory flat in the number of cases", test_memory_flat);
	CU_add_test(s, "a copy takes its source's sweep lists", test_copy_reuses_sweeps);
	CU_add_test(s, "the spec reader builds libyaml's document in one pass", test_yaml_reader);
	CU_add_test(s, "packed lists build the cases their nodes build",
	            test_packed_lists_build_the_same_cases);
	CU_add_test(s, "a packed list's bad value is reported where it is, once",
	            test_packed_list_errors);
	qct_register_validate();
}
