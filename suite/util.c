/* Helpers shared by the tests: running commands, temporary directories. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
