#include "journal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "report_read.h"
#include "utf8.h"

struct qc_journal {
	FILE *f;
	char path[1024];
	int bad; /* a write failed */
};

static qc_journal *open_mode(const char *path, const char *mode, char *err, size_t err_size)
{
	qc_journal *j = calloc(1, sizeof *j);
	if (!j || !(j->f = fopen(path, mode))) {
		snprintf(err, err_size, "cannot write the journal %s: %s", path, strerror(errno));
		free(j);
		return NULL;
	}
	snprintf(j->path, sizeof j->path, "%s", path);
	return j;
}

qc_journal *qc_journal_create(const char *path, const json_t *header, char *err, size_t err_size)
{
	qc_journal *j = open_mode(path, "w", err, err_size);
	if (!j)
		return NULL;
	if (json_dumpf(header, j->f, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0)
		j->bad = 1;
	fputc('\n', j->f);
	if (qc_journal_sync(j) != 0) {
		snprintf(err, err_size, "cannot write the journal %s: %s", path, strerror(errno));
		fclose(j->f);
		free(j);
		return NULL;
	}
	return j;
}

qc_journal *qc_journal_reopen(const char *path, long keep_bytes, char *err, size_t err_size)
{
	if (truncate(path, (off_t)keep_bytes) != 0) {
		snprintf(err, err_size, "cannot write the journal %s: %s", path, strerror(errno));
		return NULL;
	}
	return open_mode(path, "a", err, err_size);
}

/* A double that reads back to the same bits: NaN and infinities as the report writes them. */
static void exact(FILE *f, double v)
{
	if (isnan(v))
		fputs("\"nan\"", f);
	else if (isinf(v))
		fputs(v > 0 ? "\"inf\"" : "\"-inf\"", f);
	else if (v == 0)
		fputs(signbit(v) ? "-0.0" : "0", f);
	else
		fprintf(f, "%.17g", v);
}

char *qc_journal_stats_text(const qc_result *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	fputs("{\"stats\":[", f);
	for (int k = 0; k < r->n_outputs; k++) {
		const qc_metrics *m = &r->m[k];
		fprintf(f,
		        "%s{\"unit\":%d,\"n\":%llu,\"mismatches\":%llu,\"unpredictable\":%llu,"
		        "\"out_of_range\":%llu,\"in_band\":%llu,\"tol_mismatches\":%llu,\"hist\":[",
		        k ? "," : "", (int)m->unit, (unsigned long long)m->n,
		        (unsigned long long)m->mismatches, (unsigned long long)m->unpredictable,
		        (unsigned long long)m->out_of_range, (unsigned long long)m->in_band,
		        (unsigned long long)m->tol_mismatches);
		for (int b = 0; b < QC_HIST_BINS; b++)
			fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)m->hist[b]);
		static const char *const keys[] = {"max_abs",     "sum_e",       "sum_e2",
		                                   "max_ulp",     "max_abs_err", "max_rel_err",
		                                   "tol_max_abs", "tol_sum_e",   "tol_sum_e2"};
		const double vals[] = {m->max_abs,     m->sum_e,       m->sum_e2,
		                       m->max_ulp,     m->max_abs_err, m->max_rel_err,
		                       m->tol_max_abs, m->tol_sum_e,   m->tol_sum_e2};
		fputs("]", f);
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			fprintf(f, ",\"%s\":", keys[i]);
			exact(f, vals[i]);
		}
		fputs("}", f);
	}
	fputs("],\"case\":", f);
	if (fclose(f) != 0) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	return buf;
}

void qc_journal_case(qc_journal *j, const char *stats, size_t stats_len, const char *text,
                     size_t len)
{
	fwrite(stats, 1, stats_len, j->f);
	fwrite(text, 1, len, j->f);
	fputs("}\n", j->f);
}

int qc_journal_flush(qc_journal *j)
{
	if (fflush(j->f) != 0 || ferror(j->f))
		j->bad = 1;
	return j->bad ? -1 : 0;
}

int qc_journal_sync(qc_journal *j)
{
	if (fflush(j->f) != 0 || ferror(j->f))
		j->bad = 1;
	else if (fdatasync(fileno(j->f)) != 0 && errno != EINVAL && errno != EROFS)
		j->bad = 1;
	return j->bad ? -1 : 0;
}

int qc_journal_close(qc_journal *j)
{
	if (!j)
		return 0;
	int rc = qc_journal_sync(j);
	if (fclose(j->f) != 0)
		rc = -1;
	free(j);
	return rc;
}

/* ---- reading ---- */

static int verdict_of(const char *s)
{
	for (int v = 0; v < QC_N_VERDICTS; v++)
		if (!strcmp(s, qc_verdict_name((qc_verdict)v)))
			return v;
	return -1;
}

static uint64_t count_of(const json_t *o, const char *key)
{
	return (uint64_t)qc_report_count(json_object_get(o, key));
}

/* A case line: 0, or -1 if it is not one. Its verdict and metrics into r when r is not NULL
 * (the loader only checks the line; a replayed case reads it again: qc_journal_result). */
static int parse_entry(const char *line, size_t len, qc_journal_entry *e, qc_result *r)
{
	json_error_t je;
	json_t *v = json_loadb(line, len, 0, &je);
	if (!json_is_object(v)) {
		json_decref(v);
		return -1;
	}
	json_t *c = json_object_get(v, "case"), *stats = json_object_get(v, "stats");
	const char *name = json_string_value(json_object_get(c, "name"));
	const char *verdict = json_string_value(json_object_get(c, "verdict"));
	json_t *ord = json_object_get(c, "ordinal");
	int vi = verdict ? verdict_of(verdict) : -1;
	/* the case object's bytes: the line is {"stats":[...],"case":OBJECT} */
	static const char key[] = ",\"case\":";
	const char *at = memmem(line, len, key, sizeof key - 1);
	if (!name || vi < 0 || !json_is_integer(ord) || json_integer_value(ord) < 0 ||
	    !json_is_array(stats) || json_array_size(stats) > QC_MAX_TENSORS || !at ||
	    line[len - 1] != '}') {
		json_decref(v);
		return -1;
	}
	if (e) {
		memset(e, 0, sizeof *e);
		e->ordinal = (uint64_t)json_integer_value(ord);
		e->name = strdup(name);
		e->line = line;
		e->line_len = len;
		e->text = at + sizeof key - 1;
		e->len = (size_t)(line + len - 1 - e->text);
		if (!e->name) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
	}
	if (!r) {
		json_decref(v);
		return 0;
	}
	memset(r, 0, sizeof *r);
	r->verdict = (qc_verdict)vi;
	r->seconds = qc_report_num(json_object_get(c, "seconds"));
	qc_utf8_copy(r->message, sizeof r->message, qc_report_str(c, "message"));
	r->n_outputs = (int)json_array_size(stats);
	for (int k = 0; k < r->n_outputs; k++) {
		json_t *s = json_array_get(stats, (size_t)k);
		qc_metrics *m = &r->m[k];
		qc_metrics_init(m, (qc_unit)qc_report_int(json_object_get(s, "unit")));
		m->n = count_of(s, "n");
		m->mismatches = count_of(s, "mismatches");
		m->unpredictable = count_of(s, "unpredictable");
		m->out_of_range = count_of(s, "out_of_range");
		m->in_band = count_of(s, "in_band");
		m->tol_mismatches = count_of(s, "tol_mismatches");
		json_t *h = json_object_get(s, "hist");
		for (int b = 0; b < QC_HIST_BINS; b++)
			m->hist[b] = (uint64_t)qc_report_count(json_array_get(h, (size_t)b));
		m->max_abs = qc_report_num(json_object_get(s, "max_abs"));
		m->sum_e = qc_report_num(json_object_get(s, "sum_e"));
		m->sum_e2 = qc_report_num(json_object_get(s, "sum_e2"));
		m->max_ulp = qc_report_num(json_object_get(s, "max_ulp"));
		m->max_abs_err = qc_report_num(json_object_get(s, "max_abs_err"));
		m->max_rel_err = qc_report_num(json_object_get(s, "max_rel_err"));
		m->tol_max_abs = qc_report_num(json_object_get(s, "tol_max_abs"));
		m->tol_sum_e = qc_report_num(json_object_get(s, "tol_sum_e"));
		m->tol_sum_e2 = qc_report_num(json_object_get(s, "tol_sum_e2"));
	}
	json_decref(v);
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	uint64_t x = ((const qc_journal_entry *)a)->ordinal,
	         y = ((const qc_journal_entry *)b)->ordinal;
	return x < y ? -1 : x > y;
}

static char *slurp(const char *path, size_t *len, char *err, size_t err_size)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		snprintf(err, err_size, "%s: %s", path, buf ? "read error" : "out of memory");
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static json_t *parse_header(const char *path, const char *line, size_t len, char *err,
                            size_t err_size)
{
	json_error_t je;
	json_t *h = json_loadb(line, len, 0, &je);
	const char *fmt = json_string_value(json_object_get(h, "format"));
	if (!h || !fmt || strcmp(fmt, "qconform-journal") != 0) {
		snprintf(err, err_size, "%s: not a qconform journal (no header line)", path);
		json_decref(h);
		return NULL;
	}
	if (qc_report_int(json_object_get(h, "format_version")) != 1 ||
	    !json_is_object(json_object_get(h, "identity")) ||
	    !json_is_array(json_object_get(h, "argv"))) {
		snprintf(err, err_size,
		         "%s: journal format_version is not 1 (or its header is "
		         "incomplete)",
		         path);
		json_decref(h);
		return NULL;
	}
	return h;
}

json_t *qc_journal_header(const char *path, char *err, size_t err_size)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, f);
	fclose(f);
	json_t *h = NULL;
	if (n > 0 && line[n - 1] == '\n')
		h = parse_header(path, line, (size_t)n - 1, err, err_size);
	else
		snprintf(err, err_size, "%s: not a qconform journal (no header line)", path);
	free(line);
	return h;
}

int qc_journal_load(const char *path, qc_journal_data *d, char *err, size_t err_size)
{
	memset(d, 0, sizeof *d);
	size_t len;
	char *buf = slurp(path, &len, err, err_size);
	if (!buf)
		return -1;
	d->buf = buf;
	char *nl = memchr(buf, '\n', len);
	if (!nl || !(d->header = parse_header(path, buf, (size_t)(nl - buf), err, err_size))) {
		if (!nl)
			snprintf(err, err_size, "%s: not a qconform journal (no header line)",
			         path);
		qc_journal_data_free(d);
		return -1;
	}
	size_t cap = 0, at = (size_t)(nl - buf) + 1;
	d->good_bytes = (long)at;
	for (int line_no = 2; at < len; line_no++) {
		char *end = memchr(buf + at, '\n', len - at);
		size_t l = end ? (size_t)(end - (buf + at)) : len - at;
		int last = !end || (size_t)(end - buf) + 1 == len;
		qc_journal_entry e;
		if (!end) {
			d->dropped_tail = 1; /* cut by the crash, whatever it holds */
			break;
		}
		if (l == 0 || parse_entry(buf + at, l, &e, NULL) != 0) {
			if (last) {
				d->dropped_tail = 1;
				break;
			}
			snprintf(err, err_size, "%s:%d: damaged journal line (not the last one)",
			         path, line_no);
			qc_journal_data_free(d);
			return -1;
		}
		if (d->n == cap) {
			cap = cap ? 2 * cap : 256;
			qc_journal_entry *ne = realloc(d->e, cap * sizeof *ne);
			if (!ne) {
				fprintf(stderr, "qconform: out of memory\n");
				exit(2);
			}
			d->e = ne;
		}
		d->e[d->n++] = e;
		at += l + 1;
		d->good_bytes = (long)at;
	}
	qsort(d->e, d->n, sizeof *d->e, cmp_entry);
	for (size_t i = 1; i < d->n; i++)
		if (d->e[i].ordinal == d->e[i - 1].ordinal) {
			snprintf(err, err_size, "%s: case %s is in the journal twice", path,
			         d->e[i].name);
			qc_journal_data_free(d);
			return -1;
		}
	return 0;
}

int qc_journal_result(const qc_journal_entry *e, qc_result *r)
{
	return parse_entry(e->line, e->line_len, NULL, r);
}

const qc_journal_entry *qc_journal_find(const qc_journal_data *d, uint64_t ordinal)
{
	size_t lo = 0, hi = d->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->e[mid].ordinal < ordinal)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->e[lo].ordinal == ordinal ? &d->e[lo] : NULL;
}

void qc_journal_data_free(qc_journal_data *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->e[i].name);
	}
	free(d->e);
	json_decref(d->header);
	free(d->buf);
	memset(d, 0, sizeof *d);
}
