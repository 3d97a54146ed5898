/*
 * qconform diagnose REPORT.json: the diagnosis of an existing report. Its failing cases (at most
 * QC_DIAG_FAILING per op, spread over the op's by a stride) and a sample of its passing ones
 * run again through the report's kernel, with the report's seed, specs and plugin options, and
 * the run's diagnosis (diagnose.h) says which rule explains them. The specs must be unchanged
 * (their sha256 in the report) and the plugin the same file (its sha256), unless --plugin names
 * another: the cases and the kernel are then the report's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/digest.h"
#include "base/rfile.h"
#include "base/util.h"
#include "cmd/commands.h"
#include "cmd/help.h"
#include "judge/diagnose.h"

#define MAX_OPS 512

typedef struct op_pick {
	const char *semantics, *op;
	unsigned long long fail, pass; /* the report's counts */
	unsigned long long fail_seen, pass_seen;
	unsigned long long fail_stride, pass_stride;
} op_pick;

/* One line on stderr, "qconform diagnose: ..."; returns 2. */
static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "qconform diagnose: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 2;
}

static op_pick *pick_of(op_pick *ops, int n, const char *semantics, const char *op)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(ops[i].semantics, semantics) && !strcmp(ops[i].op, op))
			return &ops[i];
	return NULL;
}

static unsigned long long stride_for(unsigned long long n, int keep)
{
	return n <= (unsigned long long)keep
	               ? 1
	               : (n + (unsigned long long)keep - 1) / (unsigned long long)keep;
}

/* Adds s to the list (once); 1 when it was not there. */
static int add_unique(char ***list, int *n, int *cap, const char *s)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*list)[i], s))
			return 0;
	QC_GROW(*list, *n, *cap, 64);
	(*list)[(*n)++] = strdup(s);
	return 1;
}

static void free_list(char **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* The sha256 of a file a report names (its plugin, its specs): a regular file only, so that a
 * forged report naming a FIFO cannot block. 0, or -1 with "path: reason" in err. */
static int sha_regular(const char *path, const char *what, char hex[65], char *err, size_t err_size)
{
	int fd = qc_open_regular(path, 0, what, err, err_size);
	if (fd < 0)
		return -1;
	int rc = qc_sha256_fd(fd, hex);
	if (rc != 0)
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
	close(fd);
	return rc;
}

/* The spec's sha256 in the report's run.specs, or NULL. */
static const char *report_spec_sha(json_t *run, const char *path)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(run, "specs"), i, s)
	{
		if (!strcmp(qc_json_str(s, "path"), path))
			return qc_json_str(s, "sha256");
	}
	return NULL;
}

int qc_cmd_diagnose(int argc, char **argv, const char *self)
{
	const char *report = NULL, *plugin = NULL, *remote = NULL, *json_path = NULL;
	qcf_option options[QC_MAX_OPTIONS];
	int n_options = 0, datasheet = 0, no_sandbox = 0, jobs = 1, given_options = 0;
	double timeout = 0;
	qc_opt_reader rd = {.cmd = "diagnose", .argc = argc - 1, .argv = argv + 1};
	const char *a, *v;
	for (int k; (k = qc_opt_next(&rd, &a, &v)) != QC_OPT_END;) {
		if (k == QC_OPT_BAD)
			return 2;
		if (k == QC_OPT_WORD) {
			if (report)
				return bad("one report at a time, got '%s' after '%s'", v, report);
			report = v;
		} else if (!strcmp(a, "--plugin")) {
			plugin = v;
		} else if (!strcmp(a, "--plugin-option")) {
			const char *eq = strchr(v, '=');
			if (!eq || eq == v || n_options == QC_MAX_OPTIONS)
				return bad("--plugin-option needs KEY=VALUE (at most 32), got '%s'",
				           v);
			options[n_options++] = (qcf_option){strndup(v, (size_t)(eq - v)), eq + 1};
			given_options = 1;
		} else if (!strcmp(a, "--remote")) {
			remote = v;
		} else if (!strcmp(a, "--json")) {
			json_path = v;
		} else if (!strcmp(a, "--timeout")) {
			char *end;
			timeout = strtod(v, &end);
			if (*end || !(timeout > 0))
				return bad("--timeout needs a number of seconds > 0, got '%s'", v);
		} else if (!strcmp(a, "--jobs")) {
			char *end;
			long j = strtol(v, &end, 10);
			if (*end || j < 1 || j > 64)
				return bad("--jobs needs a number of workers in [1, 64], got '%s'",
				           v);
			jobs = (int)j;
		} else if (!strcmp(a, "--datasheet")) {
			datasheet = 1;
		} else if (!strcmp(a, "--no-sandbox")) {
			no_sandbox = 1;
		} else {
			return qc_opt_unread("diagnose", a);
		}
	}
	if (!report)
		return bad("needs a report: qconform diagnose REPORT.json");
	char err[1200];
	qc_report *r = qc_report_open(report, err, sizeof err);
	if (!r)
		return bad("%s", err);
	json_t *doc = qc_report_doc(r), *run = json_object_get(doc, "run");
	json_t *pl = json_object_get(run, "plugin");
	int rc = 2;
	char **names = NULL, **specs = NULL;
	int n_names = 0, cap_names = 0, n_specs = 0, cap_specs = 0;
	op_pick ops[MAX_OPS];
	int n_ops = 0;
	if (json_object_get(run, "import")) {
		bad("%s: its kernel's outputs were imported from an offline runner: re-run the "
		    "cases "
		    "on the device and import them again",
		    report);
		goto done;
	}
	const char *rep_remote = qc_json_str(json_object_get(pl, "remote"), "command");
	if (rep_remote[0] && !remote && !plugin) {
		bad("%s: its kernel ran through --remote '%s': give --remote (and --plugin)",
		    report, rep_remote);
		goto done;
	}
	/* the plugin: the report's file, unchanged, or the one named */
	const char *path = plugin ? plugin : qc_json_str(pl, "path");
	if (!path[0]) {
		bad("%s: names no plugin: give --plugin", report);
		goto done;
	}
	if (!plugin && !remote) {
		char sha[65];
		if (sha_regular(path, "plugin", sha, err, sizeof err) != 0) {
			bad("%s (the report's plugin): give --plugin", err);
			goto done;
		}
		if (strcmp(sha, qc_json_str(pl, "sha256"))) {
			bad("%s has changed since the report (sha256 %s): give --plugin to "
			    "diagnose "
			    "this one",
			    path, sha);
			goto done;
		}
	}
	if (!given_options) {
		size_t i;
		json_t *opt;
		json_array_foreach(json_object_get(pl, "options"), i, opt)
		{
			const char *kv = json_string_value(opt), *eq = kv ? strchr(kv, '=') : NULL;
			if (!eq || n_options == QC_MAX_OPTIONS)
				continue;
			options[n_options++] = (qcf_option){strndup(kv, (size_t)(eq - kv)), eq + 1};
		}
	}
	/* what each op holds, from the report's roll-ups */
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(doc, "ops"), i, o)
	{
		if (n_ops == MAX_OPS)
			break;
		json_t *v = json_object_get(o, "verdicts");
		op_pick *p = &ops[n_ops++];
		memset(p, 0, sizeof *p);
		p->semantics = qc_json_str(o, "semantics");
		p->op = qc_json_str(o, "op");
		p->fail = qc_json_key_count(v, "FAIL");
		p->pass = qc_json_key_count(v, "PASS") +
		          qc_json_key_count(v, "PASS_WITHIN_TOLERANCE");
		p->fail_stride = stride_for(p->fail, QC_DIAG_FAILING);
		p->pass_stride = stride_for(p->pass, QC_DIAG_PASSING);
	}
	json_t *c;
	int got;
	unsigned long long n_fail = 0, n_pass = 0;
	while ((got = qc_report_next(r, &c, err, sizeof err)) == 1) {
		const char *verdict = qc_json_str(c, "verdict");
		op_pick *p = pick_of(ops, n_ops, qc_json_str(c, "semantics"), qc_json_str(c, "op"));
		int failing = !strcmp(verdict, "FAIL");
		int passing = !strcmp(verdict, "PASS") || !strcmp(verdict, "PASS_WITHIN_TOLERANCE");
		int take = 0;
		if (p && failing)
			take = p->fail_seen++ % p->fail_stride == 0;
		else if (p && passing && (p->fail || datasheet))
			take = p->pass_seen++ % p->pass_stride == 0;
		if (take) {
			const char *spec = qc_json_str(c, "spec");
			const char *sha = report_spec_sha(run, spec);
			add_unique(&names, &n_names, &cap_names, qc_json_str(c, "name"));
			n_fail += failing;
			n_pass += passing;
			if (add_unique(&specs, &n_specs, &cap_specs, spec)) {
				char now[65];
				char serr[1200];
				if (!sha ||
				    sha_regular(spec, "spec", now, serr, sizeof serr) != 0 ||
				    strcmp(now, sha)) {
					bad("%s: changed or missing since the report (sha256 %s in "
					    "the "
					    "report): its cases would not be the report's",
					    spec, sha ? sha : "none");
					json_decref(c);
					goto done;
				}
			}
		}
		json_decref(c);
	}
	if (got < 0) {
		bad("%s", err);
		goto done;
	}
	if (!n_fail && !datasheet) {
		printf("%s: no failing case (FAIL) to diagnose; --datasheet says which rules the "
		       "kernel follows\n",
		       report);
		rc = 0;
		goto done;
	}
	if (!n_names) {
		printf("%s: no case with outputs (FAIL, PASS) to diagnose\n", report);
		rc = 0;
		goto done;
	}
	printf("diagnose %s: %llu failing and %llu passing case%s run again through %s\n", report,
	       n_fail, n_pass, n_fail + n_pass == 1 ? "" : "s", path);
	fflush(stdout);
	qc_run_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.paths = specs;
	ro.n_paths = n_specs;
	ro.plugin = path;
	memcpy(ro.options, options, sizeof options);
	ro.n_options = n_options;
	ro.case_names = (const char **)names;
	ro.n_case_names = n_names;
	ro.self = self;
	ro.seed = (uint64_t)qc_json_int(json_object_get(run, "seed"));
	ro.timeout_s = timeout > 0 ? timeout : qc_json_num(json_object_get(run, "timeout_seconds"));
	if (!(ro.timeout_s > 0))
		ro.timeout_s = 30;
	ro.jobs = jobs;
	ro.quiet = 1;
	ro.json_path = json_path;
	ro.no_reports = !json_path;
	ro.no_sandbox = no_sandbox;
	ro.remote = remote;
	ro.datasheet = datasheet;
	ro.command = "qconform diagnose";
	int st = qc_cmd_run(&ro);
	rc = st <= 1 ? 0 : st;
done:
	for (int k = 0; k < n_options; k++)
		free((char *)options[k].key);
	free_list(names, n_names);
	free_list(specs, n_specs);
	qc_report_close(r);
	return rc;
}
