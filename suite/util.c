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
