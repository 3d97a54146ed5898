/* Helpers shared by the tests: running commands, temporary directories. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "qct.h"

static char *slurp(FILE *f)
{
	size_t cap = 4096, n = 0, r;
	char *buf = malloc(cap);
	rewind(f);
	while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (buf)
		buf[n] = 0;
	return buf;
}

char *qct_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *b = slurp(f);
	fclose(f);
	return b;
}

int qct_sh(qct_proc *p, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	memset(p, 0, sizeof *p);
	FILE *out = tmpfile(), *err = tmpfile();
	if (!out || !err)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		;
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	p->out = slurp(out);
	p->err = slurp(err);
	fclose(out);
	fclose(err);
	return p->out && p->err ? 0 : -1;
}

void qct_proc_free(qct_proc *p)
{
	free(p->out);
	free(p->err);
	memset(p, 0, sizeof *p);
}

const char *qct_tmpdir(void)
{
	static char buf[4][512];
	static int next;
	char *d = buf[next++ % 4];
	const char *t = getenv("TMPDIR");
	snprintf(d, sizeof buf[0], "%s/qct.XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(d);
}

void qct_rmdir(const char *dir)
{
	if (!dir || strncmp(dir, "/", 1) != 0 || !strstr(dir, "/qct."))
		return;
	qct_proc p;
	if (qct_sh(&p, "rm -rf '%s'", dir) == 0)
		qct_proc_free(&p);
}

/*
 * Validates a JSON file against a JSON schema (e.g. reports/schema/report.schema.json) with an
 * independent validator, Debian's python3-jsonschema (4.10 in Debian 12: validator_for picks
 * the schema's draft, 2020-12). Returns 0 if valid; 1 if not, with the validator's messages
 * (up to three, "path: message") in msg; -1 if the validator could not run, with the reason in
 * msg. qct_validate_report is the same against the report schema. Declared where they are used
 * (suite/test_reports.c, suite/test_certify.c).
 */
int qct_validate_json(const char *schema_path, const char *json_path, char *msg, size_t msg_size);
int qct_validate_report(const char *json_path, char *msg, size_t msg_size);

static const char validate_py[] =
        "import json, sys, itertools\n"
        "try:\n"
        "    import jsonschema\n"
        "except ImportError:\n"
        "    print(\"python3-jsonschema is missing: apt-get install python3-jsonschema (or make "
        "deps)\")\n"
        "    sys.exit(3)\n"
        "def bare(c):\n"
        "    print(\"bare \" + c + \" is not JSON\")\n"
        "    sys.exit(1)\n"
        "schema = json.load(open(sys.argv[1]))\n"
        "V = jsonschema.validators.validator_for(schema)\n"
        "V.check_schema(schema)\n"
        "report = json.load(open(sys.argv[2]), parse_constant=bare)\n"
        "errs = list(itertools.islice(V(schema).iter_errors(report), 50))\n"
        "errs.sort(key=lambda e: len(e.absolute_path), reverse=True)\n"
        "for e in errs[:3]:\n"
        "    where = \"/\".join(str(p) for p in e.absolute_path) or \"(top)\"\n"
        "    m = e.message if len(e.message) < 300 else e.message[:300] + \"...\"\n"
        "    print(where + \": \" + m)\n"
        "sys.exit(1 if errs else 0)\n";

int qct_validate_json(const char *schema_path, const char *json_path, char *msg, size_t msg_size)
{
	/* Debian's interpreter first: its python3-jsonschema is the one CI installs */
	const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	qct_proc p;
	/* the script has no single quote: one shell word */
	if (qct_sh(&p, "%s -c '%s' '%s' '%s'", py, validate_py, schema_path, json_path) != 0) {
		snprintf(msg, msg_size, "cannot run %s", py);
		return -1;
	}
	int st = p.status;
	snprintf(msg, msg_size, "%s%s", p.out, p.err);
	size_t n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	qct_proc_free(&p);
	return st == 0 ? 0 : st == 1 ? 1 : -1;
}

int qct_validate_report(const char *json_path, char *msg, size_t msg_size)
{
	return qct_validate_json("reports/schema/report.schema.json", json_path, msg, msg_size);
}

/* Runs `qconform run ARGS --json TMP/report.json`; returns the parsed report (or NULL). */
json_t *qct_run_report(const char *tmp, int *status, char **err_out, const char *fmt, ...)
{
	char args[4096], json[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(json, sizeof json, "%s/report.json", tmp);
	unlink(json);
	qct_proc p;
	if (qct_sh(&p, "%s run --quiet --json %s %s", qct_build_path("qconform"), json, args) != 0)
		return NULL;
	*status = p.status;
	if (err_out)
		*err_out = strdup(p.err);
	qct_proc_free(&p);
	json_error_t e;
	json_t *r = json_load_file(json, 0, &e);
	if (!r && *status != 2)
		fprintf(stderr, "\nreport %s: %s (line %d)\n", json, e.text, e.line);
	if (r) {
		/* every report the tests produce must match its published schema */
		char msg[2048], what[2200];
		if (qct_validate_report(json, msg, sizeof msg) != 0) {
			snprintf(what, sizeof what, "report does not match report.schema.json: %s",
			         msg);
			fprintf(stderr, "\n%s (qconform run %s)\n", what, args);
			CU_assertImplementation(CU_FALSE, __LINE__, what, __FILE__, "", CU_FALSE);
		}
	}
	return r;
}

const char *qct_stub(const char *name)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];
	char rel[128];
	snprintf(rel, sizeof rel, "stubs/libstub_%s.so", name);
	snprintf(b, sizeof buf[0], "%s", qct_build_path(rel));
	return b;
}

const char *qct_verdict(json_t *c)
{
	return json_string_value(json_object_get(c, "verdict"));
}

const char *qct_adapter(const char *name, const char *package)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];
	char rel[128];
	snprintf(rel, sizeof rel, "plugins/libqcf_%s.so", name);
	snprintf(b, sizeof buf[0], "%s", qct_build_path(rel));
	if (access(b, R_OK) == 0)
		return b;
	fprintf(stderr,
	        "\n  plugin/%s: %s not built (Debian package %s is not installed): skipped\n", name,
	        b, package);
	return NULL;
}

const char *qct_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

double qct_case_max_abs(json_t *c)
{
	double m = 0;
	size_t i;
	json_t *out;
	json_array_foreach(json_object_get(c, "outputs"), i, out)
	{
		double v = json_number_value(json_object_get(out, "max_abs"));
		m = v > m ? v : m;
	}
	return m;
}

qct_tally qct_tally_report(json_t *r)
{
	qct_tally t = {0};
	json_t *cases = json_object_get(r, "cases");
	t.cases = json_array_size(cases);
	for (size_t i = 0; i < t.cases; i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_verdict(c);
		if (!strcmp(v, "PASS")) {
			t.pass++;
		} else if (!strcmp(v, "EXPECTED_ERROR")) {
			t.expected_error++;
		} else if (t.other++ < 5) {
			fprintf(stderr, "\n  %s: %s %s",
			        json_string_value(json_object_get(c, "name")), v,
			        json_string_value(json_object_get(c, "message")));
		}
		t.golden += json_object_get(c, "golden_source") != NULL;
	}
	return t;
}

int qct_under_sanitizers(void)
{
	const char *b = getenv("QCONFORM_BUILD"), *san = getenv("SAN");
	if (!b || !*b)
		b = "build";
	size_t n = strlen(b);
	if (san && *san && strcmp(san, "0") != 0)
		return 1;
	return n >= 3 && strcmp(b + n - 3, "san") == 0;
}
