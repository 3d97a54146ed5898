/* The run on a terminal (console.h). */
#include "report/console.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int qc_console_colour(FILE *f)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	if (no && *no)
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return isatty(fileno(f));
}

const char *qc_console_verdict_on(int colour, qc_verdict v)
{
	if (!colour)
		return "";
	switch (v) {
	case QC_PASS: return "\033[32m";                  /* green */
	case QC_PASS_WITHIN_TOLERANCE: return "\033[36m"; /* cyan */
	case QC_NOT_SUPPORTED:
	case QC_EXPECTED_ERROR: return "\033[2m"; /* dim */
	case QC_FAIL:
	case QC_ERROR:
	case QC_CRASH:
	case QC_TIMEOUT:
	case QC_NONDETERMINISTIC: return "\033[1;31m"; /* bold red */
	default: return "";
	}
}

const char *qc_console_off(int colour)
{
	return colour ? "\033[0m" : "";
}

static const char *const short_names[QC_N_VERDICTS] = {
        "pass", "within", "FAIL", "n/s", "exp.err", "ERROR", "CRASH", "TIMEOUT", "NONDET"};

void qc_progress_init(qc_progress *p, FILE *f, uint64_t total, int enabled)
{
	memset(p, 0, sizeof *p);
	p->f = f;
	p->total = total;
	p->enabled = enabled && isatty(fileno(f));
	p->colour = p->enabled && qc_console_colour(f);
	clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static double since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) * 1e-9;
}

/* the line under construction: bytes used, columns left */
typedef struct line {
	char *buf;
	size_t size, used;
	int left;
} line;

/* s, as many of its characters as fit (a UTF-8 character is one column), coloured */
static void put(line *l, const char *s, const char *on, const char *off)
{
	if (l->left <= 0 || !*s)
		return;
	size_t n = 0;
	int cols = 0;
	while (s[n]) {
		int lead = ((unsigned char)s[n] & 0xC0) != 0x80;
		if (lead && cols == l->left)
			break;
		cols += lead;
		n++;
	}
	l->left -= cols;
	int w = snprintf(l->buf + l->used, l->size - l->used, "%s%.*s%s", on, (int)n, s,
	                 *on ? off : "");
	if (w > 0)
		l->used += (size_t)w < l->size - l->used ? (size_t)w : l->size - l->used - 1;
}

char *qc_progress_line(const qc_progress *p, const char *name, int width, double elapsed_s,
                       char *buf, size_t size)
{
	line l = {buf, size, 0, width - 1}; /* the last column left free: no wrap */
	buf[0] = 0;
	char t[96];
	snprintf(t, sizeof t, "[%llu/%llu %3d%%]", (unsigned long long)p->done,
	         (unsigned long long)p->total,
	         p->total ? (int)(100.0 * (double)p->done / (double)p->total) : 100);
	put(&l, t, "", "");
	for (int v = 0; v < QC_N_VERDICTS; v++) {
		if (!p->counts[v])
			continue;
		snprintf(t, sizeof t, " %llu %s", (unsigned long long)p->counts[v], short_names[v]);
		put(&l, t, qc_console_verdict_on(p->colour, (qc_verdict)v),
		    qc_console_off(p->colour));
	}
	if (p->done && p->done < p->total && elapsed_s >= 1.0) {
		double left = elapsed_s / (double)p->done * (double)(p->total - p->done);
		long s = (long)(left + 0.5);
		if (s >= 3600)
			snprintf(t, sizeof t, ", %ld:%02ld:%02ld left", s / 3600, s / 60 % 60,
			         s % 60);
		else
			snprintf(t, sizeof t, ", %ld:%02ld left", s / 60, s % 60);
		put(&l, t, "", "");
	}
	if (name && *name) {
		put(&l, " ", "", "");
		put(&l, name, "", "");
	}
	return buf;
}

static int term_width(FILE *f)
{
	struct winsize ws;
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	int n = c ? atoi(c) : 0;
	return n > 0 ? n : 80;
}

void qc_progress_case(qc_progress *p, qc_verdict v, const char *name)
{
	p->done++;
	if ((int)v >= 0 && v < QC_N_VERDICTS)
		p->counts[v]++;
	if (!p->enabled)
		return;
	if (p->shown && p->done < p->total && since(&p->drawn) < 0.1)
		return;
	char buf[2048];
	qc_progress_line(p, name, term_width(p->f), since(&p->start), buf, sizeof buf);
	fprintf(p->f, "\r\033[K%s", buf);
	fflush(p->f);
	clock_gettime(CLOCK_MONOTONIC, &p->drawn);
	p->shown = 1;
}

void qc_progress_clear(qc_progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", p->f);
	p->shown = 0;
}
