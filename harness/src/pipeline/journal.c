#include "pipeline/journal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/rfile.h"
#include "base/utf8.h"
#include "base/util.h"
#include "judge/results.h"
#include "report/report_read.h"

struct qc_journal {
	FILE *f;
	char path[1024];
	int bad;           /* a write failed */
	uint8_t chain[32]; /* the checksum of the last line written */
};

/* A line's checksum: SHA-256 of the previous line's (raw) and of the line's body. */
static void chain_next(uint8_t chain[32], const char *a, size_t alen, const char *b, size_t blen,
                       const char *c, size_t clen)
{
	qc_sha256 s;
	qc_sha256_init(&s);
	qc_sha256_update(&s, chain, 32);
	qc_sha256_update(&s, a, alen);
	qc_sha256_update(&s, b, blen);
	qc_sha256_update(&s, c, clen);
	qc_sha256_final(&s, chain);
}

static void hex32(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

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
	char *text = json_dumps(header, JSON_COMPACT | JSON_PRESERVE_ORDER);
	qc_journal *j = text ? open_mode(path, "w", err, err_size) : NULL;
	if (!j) {
		if (!text)
			snprintf(err, err_size, "cannot write the journal %s: out of memory", path);
		free(text);
		return NULL;
	}
	/* the chain starts from the header line: a header edited breaks every line */
	qc_sha256 s;
	qc_sha256_init(&s);
	qc_sha256_update(&s, text, strlen(text));
	qc_sha256_final(&s, j->chain);
	if (fputs(text, j->f) == EOF)
		j->bad = 1;
	free(text);
	fputc('\n', j->f);
	if (qc_journal_sync(j) != 0) {
		snprintf(err, err_size, "cannot write the journal %s: %s", path, strerror(errno));
		fclose(j->f);
		free(j);
		return NULL;
	}
	return j;
}

qc_journal *qc_journal_reopen(const char *path, const qc_journal_data *d, char *err,
                              size_t err_size)
{
	if (truncate(path, (off_t)d->good_bytes) != 0) {
		snprintf(err, err_size, "cannot write the journal %s: %s", path, strerror(errno));
		return NULL;
	}
	qc_journal *j = open_mode(path, "a", err, err_size);
	if (j)
		memcpy(j->chain, d->chain, sizeof j->chain);
	return j;
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
	/* {"chain":"HEX", then the body: "stats":[...],"case":{...}} */
	chain_next(j->chain, stats + 1, stats_len - 1, text, len, "}", 1);
	char hex[65];
	hex32(j->chain, hex);
	fprintf(j->f, "{\"chain\":\"%s\",", hex);
	fwrite(stats + 1, 1, stats_len - 1, j->f);
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

static uint64_t count_of(const json_t *o, const char *key)
{
	return (uint64_t)qc_json_count(json_object_get(o, key));
}

/* A case line: 0, or -1 if it is not one (why says what is wrong, when not NULL). Its verdict
 * and metrics into r when r is not NULL (the loader only checks the line; a replayed case reads
 * it again: qc_journal_result). */
static int parse_entry(const char *line, size_t len, qc_journal_entry *e, qc_result *r, char *why,
                       size_t why_size)
{
	json_error_t je;
	json_t *v = json_loadb(line, len, 0, &je);
	if (!json_is_object(v)) {
		if (why)
			snprintf(why, why_size, "not JSON: %s", je.text);
		json_decref(v);
		return -1;
	}
	json_t *c = json_object_get(v, "case"), *stats = json_object_get(v, "stats");
	const char *name = json_string_value(json_object_get(c, "name"));
	const char *verdict = json_string_value(json_object_get(c, "verdict"));
	json_t *ord = json_object_get(c, "ordinal");
	int vi = verdict ? qc_verdict_of_name(verdict) : -1;
	/* the case object's bytes: the line is {"chain":"HEX","stats":[...],"case":OBJECT}, and
	 * those bytes must be that object (they go into the report as they are) */
	static const char key[] = ",\"case\":";
	const char *at = memmem(line, len, key, sizeof key - 1);
	char cwhy[160] = "";
	if (c && qc_report_check_case(c, 1, cwhy, sizeof cwhy) != 0) {
		if (why)
			snprintf(why, why_size, "its case is not a report's case: %s", cwhy);
		json_decref(v);
		return -1;
	}
	json_t *same = NULL;
	if (at && line[len - 1] == '}')
		same = json_loadb(at + sizeof key - 1,
		                  (size_t)(line + len - 1 - (at + sizeof key - 1)), 0, &je);
	int ok = name && vi >= 0 && json_is_integer(ord) && json_integer_value(ord) >= 0 &&
	         json_is_array(stats) && json_array_size(stats) <= QC_MAX_OUTPUTS && same &&
	         json_equal(same, c);
	json_decref(same);
	for (size_t k = 0; ok && k < json_array_size(stats); k++)
		ok = json_is_object(json_array_get(stats, k));
	if (!ok) {
		if (why)
			snprintf(why, why_size, "not a case line of a journal");
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
	/* a replayed case's unit and metrics: only values the judge can make */
	memset(r, 0, sizeof *r);
	r->verdict = (qc_verdict)vi;
	r->seconds = qc_json_num(json_object_get(c, "seconds"));
	qc_utf8_copy(r->message, sizeof r->message, qc_json_str(c, "message"));
	/* the engine the plugin reported, for summary.engines */
	r->engine = qc_verdict_judged(r->verdict) ? QCF_ENGINE_UNREPORTED : -1;
	json_t *eng = json_object_get(c, "engine");
	if (r->engine >= 0)
		r->engine = qc_engine_of_kind(json_string_value(json_object_get(eng, "kind")));
	qc_utf8_copy(r->engine_name, sizeof r->engine_name,
	             json_string_value(json_object_get(eng, "name")));
	/* a chain's record: how the kernel was offered it, the first node that differed */
	json_t *ch = json_object_get(c, "chain");
	const char *mode = json_string_value(json_object_get(ch, "mode"));
	r->chain_mode = !mode                       ? QC_CHAIN_NONE
	                : !strcmp(mode, "fused")    ? QC_CHAIN_FUSED
	                : !strcmp(mode, "op by op") ? QC_CHAIN_OPBYOP
	                                            : QC_CHAIN_NONE;
	json_int_t node = qc_json_int(json_object_get(ch, "first_differing_node"));
	r->chain_node = r->chain_mode && node > 0 && node <= QC_MAX_NODES ? (int)node : 0;
	r->n_outputs = (int)json_array_size(stats);
	for (int k = 0; k < r->n_outputs; k++) {
		json_t *s = json_array_get(stats, (size_t)k);
		qc_metrics *m = &r->m[k];
		json_int_t unit = qc_json_int(json_object_get(s, "unit"));
		qc_metrics_init(m, unit >= 0 && unit <= QC_UNIT_ULP ? (qc_unit)unit : (qc_unit)0);
		m->n = count_of(s, "n");
		m->mismatches = count_of(s, "mismatches");
		m->unpredictable = count_of(s, "unpredictable");
		m->out_of_range = count_of(s, "out_of_range");
		m->in_band = count_of(s, "in_band");
		m->tol_mismatches = count_of(s, "tol_mismatches");
		json_t *h = json_object_get(s, "hist");
		for (int b = 0; b < QC_HIST_BINS; b++)
			m->hist[b] = (uint64_t)qc_json_count(json_array_get(h, (size_t)b));
		m->max_abs = qc_json_num(json_object_get(s, "max_abs"));
		m->sum_e = qc_json_num(json_object_get(s, "sum_e"));
		m->sum_e2 = qc_json_num(json_object_get(s, "sum_e2"));
		m->max_ulp = qc_json_num(json_object_get(s, "max_ulp"));
		m->max_abs_err = qc_json_num(json_object_get(s, "max_abs_err"));
		m->max_rel_err = qc_json_num(json_object_get(s, "max_rel_err"));
		m->tol_max_abs = qc_json_num(json_object_get(s, "tol_max_abs"));
		m->tol_sum_e = qc_json_num(json_object_get(s, "tol_sum_e"));
		m->tol_sum_e2 = qc_json_num(json_object_get(s, "tol_sum_e2"));
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
	if (qc_json_int(json_object_get(h, "format_version")) != QC_JOURNAL_FORMAT ||
	    !json_is_object(json_object_get(h, "identity"))) {
		snprintf(err, err_size,
		         "%s: journal format_version is not %d (or its header is "
		         "incomplete): run without --resume to start again",
		         path, QC_JOURNAL_FORMAT);
		json_decref(h);
		return NULL;
	}
	return h;
}

int qc_journal_load(const char *path, qc_journal_data *d, char *err, size_t err_size)
{
	memset(d, 0, sizeof *d);
	size_t len;
	char *buf = qc_read_regular(path, QC_JOURNAL_MAX_BYTES, "journal", &len, err, err_size);
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
	qc_sha256 s;
	qc_sha256_init(&s);
	qc_sha256_update(&s, buf, (size_t)(nl - buf));
	qc_sha256_final(&s, d->chain);
	static const char pre[] = "{\"chain\":\"";
	const size_t pre_len = sizeof pre - 1, body_at = pre_len + 64 + 2;
	size_t cap = 0, at = (size_t)(nl - buf) + 1;
	d->good_bytes = (long)at;
	for (int line_no = 2; at < len; line_no++) {
		char *end = memchr(buf + at, '\n', len - at);
		if (!end) {
			d->dropped_tail = 1; /* cut by the crash, whatever it holds */
			break;
		}
		const char *line = buf + at;
		size_t l = (size_t)(end - line);
		int last = (size_t)(end - buf) + 1 == len;
		/* the line's checksum, then the line: one that does not check is run again,
		 * with every line after it (the chain cannot vouch for them) */
		uint8_t next[32];
		memcpy(next, d->chain, sizeof next);
		char hex[65], why[200] = "";
		int chained = l > body_at && !memcmp(line, pre, pre_len) &&
		              line[pre_len + 64] == '"' && line[pre_len + 65] == ',';
		if (chained) {
			chain_next(next, line + body_at, l - body_at, "", 0, "", 0);
			hex32(next, hex);
			chained = !memcmp(hex, line + pre_len, 64);
		}
		qc_journal_entry e;
		if (!chained || parse_entry(line, l, &e, NULL, why, sizeof why) != 0) {
			if (last && l == 0) {
				d->dropped_tail = 1;
				break;
			}
			size_t after = 0;
			for (const char *q = end + 1; q < buf + len; q++)
				after += *q == '\n';
			snprintf(d->note, sizeof d->note,
			         "%s:%d: %s: this case and the %zu after it in the journal are "
			         "run again",
			         path, line_no,
			         chained ? why : "the line does not match its checksum (edited?)",
			         after);
			break;
		}
		QC_GROW(d->e, d->n, cap, 256);
		d->e[d->n++] = e;
		memcpy(d->chain, next, sizeof next);
		at += l + 1;
		d->good_bytes = (long)at;
	}
	if (d->n > 1)
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
	return parse_entry(e->line, e->line_len, NULL, r, NULL, 0);
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
