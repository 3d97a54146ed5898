#include "report/report_read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rfile.h"
#include "base/utf8.h"
#include "judge/compare.h" /* qc_verdict_name */

static int is_report(json_t *r, const char **why)
{
	static const struct {
		const char *key;
		json_type type;
	} members[] = {{"run", JSON_OBJECT},
	               {"cases", JSON_ARRAY},
	               {"ops", JSON_ARRAY},
	               {"summary", JSON_OBJECT}};
	if (!json_is_object(r)) {
		*why = "not a qconform report (not a JSON object)";
		return 0;
	}
	const char *fmt = json_string_value(json_object_get(r, "format"));
	if (!fmt || strcmp(fmt, "qconform-report") != 0) {
		*why = "not a qconform report (no \"format\": \"qconform-report\")";
		return 0;
	}
	json_t *v = json_object_get(r, "format_version");
	if (!json_is_integer(v) && !json_is_real(v)) {
		*why = "not a qconform report (no format_version)";
		return 0;
	}
	if (json_number_value(v) != 1) {
		*why = "report format_version is not 1 (this qconform reads version 1)";
		return 0;
	}
	for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
		json_t *m = json_object_get(r, members[i].key);
		if (!m || json_typeof(m) != members[i].type) {
			static _Thread_local char buf[96]; /* reports are read on two threads */
			snprintf(buf, sizeof buf,
			         "not a qconform report (\"%s\" missing or not %s)", members[i].key,
			         members[i].type == JSON_ARRAY ? "a list" : "an object");
			*why = buf;
			return 0;
		}
	}
	return 1;
}

int qc_report_check_case(const json_t *c, int strict, char *why, size_t why_size)
{
	if (!json_is_object(c)) {
		snprintf(why, why_size, "a case is not a JSON object");
		return -1;
	}
	const char *name = json_string_value(json_object_get(c, "name"));
	if (!name || !*name) {
		snprintf(why, why_size, "a case has no name");
		return -1;
	}
	const char *v = json_string_value(json_object_get(c, "verdict"));
	if (qc_verdict_of_name(v) < 0) {
		char shown[64];
		qc_utf8_copy(shown, sizeof shown, v ? v : "(none)");
		snprintf(why, why_size, "case %.80s: verdict %s is not one of qconform's", name,
		         shown);
		return -1;
	}
	if (!strict)
		return 0;
	static const struct {
		const char *key;
		int type; /* 's' a string, 'n' a number (or "nan", "inf", "-inf"), 'a' a list,
		             'c' a count */
	} members[] = {{"ordinal", 'c'}, {"spec", 's'},   {"semantics", 's'}, {"op", 's'},
	               {"params", 's'},  {"seed", 's'},   {"expect", 's'},    {"seconds", 'n'},
	               {"message", 's'}, {"outputs", 'a'}};
	for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
		json_t *m = json_object_get(c, members[i].key);
		int ok = members[i].type == 's'   ? json_is_string(m)
		         : members[i].type == 'a' ? json_is_array(m)
		         : members[i].type == 'c' ? json_is_integer(m) && json_integer_value(m) >= 0
		                                  : json_is_number(m) || json_is_string(m);
		if (!ok) {
			snprintf(why, why_size, "case %.80s: \"%s\" missing or of another type",
			         name, members[i].key);
			return -1;
		}
	}
	return 0;
}

const char *qc_report_stopped_by(const json_t *interrupted, char *buf, size_t size)
{
	const json_t *sig = json_object_get(interrupted, "signal");
	if (json_is_string(sig))
		snprintf(buf, size, "%s", json_string_value(sig));
	else
		snprintf(buf, size, "--max-failures %llu",
		         qc_json_key_count(interrupted, "max_failures"));
	return buf;
}

/* ---- the streaming reader ---- */

/*
 * A report is read in two steps. qc_report_open scans the whole file once with a small
 * scanner of its own (strings, brackets and the commas of the top level and of the case
 * list: a cut or unbalanced file fails here, with its line and column) and parses every
 * member but "cases" with jansson. The cases are parsed one at a time, each with jansson from
 * the bytes of its value (json_loadb), when qc_report_next or qc_report_at asks for it. Any
 * layout of valid JSON reads, not only the writer's one case a line.
 */
struct qc_report {
	json_t *doc;       /* every member; "cases" an empty list when read from a file */
	json_t *mem_cases; /* qc_report_of: the document's own case list */
	FILE *f;
	char *path;
	size_t flags; /* jansson flags: JSON_DECODE_INT_AS_REAL for a --seed above 2^63 */
	size_t n_cases;
	long long cases_at; /* offset of the case list's '[', or -1 without a list */
	long cases_line, cases_col;
	int state; /* R_START, R_VALUE, R_DONE, R_AT */
	long long next_i;
	long long last_pos;
	/* the scanner */
	long line, col;
	long long off;   /* the byte offset of the next character */
	int at_pos_mode; /* positions without line numbers (after a seek) */
	char *buf;
	size_t len, cap;
	int capture;
	int bigint;   /* an integer beyond int64: every integer is read as a double */
	char tok[40]; /* the number token being scanned */
	size_t ntok;
	int tok_bad; /* longer than tok: 1 all digits (an integer beyond int64), 2 not */
	/* the cases checked so far (qc_report_check_case, names unique): a hash set of names */
	size_t seq, checked; /* the next case of this pass; the cases checked */
	char **names;
	size_t names_cap;
};

enum { R_START, R_VALUE, R_DONE, R_AT };

static int rd(qc_report *r)
{
	int c = getc_unlocked(r->f);
	r->off += c != EOF;
	if (c == '\n') {
		r->line++;
		r->col = 0;
	} else if (c != EOF && (c & 0xC0) != 0x80) {
		r->col++;
	}
	return c;
}

static void unrd(qc_report *r, int c)
{
	if (c == EOF)
		return;
	ungetc(c, r->f);
	r->off--;
	if (c == '\n')
		r->line--; /* the column is not needed again before the next character */
	else if ((c & 0xC0) != 0x80)
		r->col--;
}

static int put(qc_report *r, int c)
{
	if (!r->capture)
		return 0;
	if (r->len + 1 >= r->cap) {
		size_t nc = r->cap ? 2 * r->cap : 4096;
		char *nb = realloc(r->buf, nc);
		if (!nb)
			return -1;
		r->buf = nb;
		r->cap = nc;
	}
	r->buf[r->len++] = (char)c;
	return 0;
}

static int skip_ws(qc_report *r)
{
	int c;
	do
		c = rd(r);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	return c;
}

static int syntax(qc_report *r, char *err, size_t errsz, int c, const char *what)
{
	/* jansson's words: "X expected near 'c'", "premature end of input" */
	char near[32];
	if (c == EOF && !strcmp(what, "premature end of input"))
		near[0] = 0;
	else if (c == EOF)
		snprintf(near, sizeof near, " near end of file");
	else if (c >= 0x20 && c < 0x7f)
		snprintf(near, sizeof near, " near '%c'", c);
	else
		snprintf(near, sizeof near, " near byte 0x%02x", c & 0xff);
	if (r->at_pos_mode)
		snprintf(err, errsz, "%s: invalid JSON near byte %lld: %s%s", r->path, r->off, what,
		         near);
	else
		snprintf(err, errsz, "%s: invalid JSON at line %ld, column %ld: %s%s", r->path,
		         r->line, r->col, what, near);
	return -1;
}

/* The end of a number token: an integer jansson cannot hold makes the whole report read with
 * JSON_DECODE_INT_AS_REAL, as qc_report_read always did. */
static void end_token(qc_report *r)
{
	if (!r->ntok)
		return;
	r->tok[r->ntok] = 0;
	if (r->tok_bad < 2 && r->ntok > 18 &&
	    strspn(r->tok + (r->tok[0] == '-'), "0123456789") == r->ntok - (r->tok[0] == '-')) {
		errno = 0;
		(void)strtoll(r->tok, NULL, 10);
		if (errno == ERANGE || r->tok_bad)
			r->bigint = 1;
	}
	r->ntok = 0;
	r->tok_bad = 0;
}

/* Scans one value whose first character is c (put into buf when capturing). 0, or -1 with
 * the reason in err. */
static int scan_value(qc_report *r, int c, char *err, size_t errsz)
{
	char stack[2048]; /* jansson's own limit of nesting */
	int depth = 0;
	for (;;) {
		if (c == EOF)
			return syntax(r, err, errsz, c,
			              !depth                    ? "premature end of input"
			              : stack[depth - 1] == '[' ? "']' expected"
			                                        : "'}' expected");
		if (put(r, c) != 0)
			goto oom;
		if (c == '"') {
			end_token(r);
			for (;;) {
				c = rd(r);
				if (c == EOF)
					return syntax(r, err, errsz, c, "premature end of input");
				if (put(r, c) != 0)
					goto oom;
				if (c == '"')
					break;
				if (c == '\\') {
					c = rd(r);
					if (c == EOF)
						return syntax(r, err, errsz, c,
						              "premature end of input");
					if (put(r, c) != 0)
						goto oom;
				}
			}
		} else if (c == '{' || c == '[') {
			end_token(r);
			if (depth == (int)sizeof stack)
				return syntax(r, err, errsz, c, "too deeply nested");
			stack[depth++] = (char)c;
		} else if (c == '}' || c == ']') {
			end_token(r);
			if (!depth || stack[depth - 1] != (c == '}' ? '{' : '['))
				return syntax(r, err, errsz, c, "unexpected token");
			depth--;
		} else if (c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' ||
		           c == '\r') {
			end_token(r);
			if (!depth)
				return syntax(r, err, errsz, c, "unexpected token");
		} else if (r->ntok + 1 < sizeof r->tok) {
			r->tok[r->ntok++] = (char)c;
		} else {
			/* long: an integer beyond int64, or a real, or jansson's error later */
			r->tok_bad = r->tok_bad == 2 || c < '0' || c > '9' ? 2 : 1;
		}
		if (!depth && c != '{' && c != '[') {
			if (c == '"' || c == '}' || c == ']')
				return 0;
			/* a scalar: up to the character after it */
			int d = rd(r);
			if (d == EOF || strchr(",:]} \t\n\r\"[{", d)) {
				end_token(r);
				unrd(r, d);
				return 0;
			}
			c = d;
			continue;
		}
		if (!depth)
			return 0;
		c = rd(r);
	}
oom:
	snprintf(err, errsz, "%s: out of memory", r->path);
	return -1;
}

/* Parses the captured bytes (they started at line, col) with jansson. */
static json_t *parse_buf(qc_report *r, long line, long col, char *err, size_t errsz)
{
	json_error_t e;
	json_t *v = json_loadb(r->buf, r->len, r->flags | JSON_DECODE_ANY, &e);
	if (v)
		return v;
	if (r->at_pos_mode)
		snprintf(err, errsz, "%s: invalid JSON near byte %lld: %s", r->path,
		         (long long)r->last_pos + e.position, e.text);
	else
		snprintf(err, errsz, "%s: invalid JSON at line %ld, column %ld: %s", r->path,
		         line + e.line - 1, e.line == 1 ? col - 1 + e.column : (long)e.column,
		         e.text);
	return NULL;
}

typedef struct member {
	json_t *key;
	char *text; /* NULL: the case list */
	size_t len;
	long line, col;
} member;

static void members_free(member *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_decref(m[i].key);
		free(m[i].text);
	}
	free(m);
}

/* The case list at the scanner (its '[' read): counts and checks it. */
static int scan_cases(qc_report *r, char *err, size_t errsz)
{
	size_t n = 0;
	int c = skip_ws(r);
	if (c != ']')
		for (;;) {
			if (scan_value(r, c, err, errsz) != 0)
				return -1;
			n++;
			c = skip_ws(r);
			if (c == ']')
				break;
			if (c != ',')
				return syntax(r, err, errsz, c, "']' expected");
			c = skip_ws(r);
		}
	r->n_cases = n;
	return 0;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* A case read in order: checked once, the first time a pass reaches it. 0, or -1 (err). */
static int check_next(qc_report *r, const json_t *c, char *err, size_t errsz)
{
	size_t i = r->seq++;
	if (i < r->checked)
		return 0;
	char why[200];
	if (qc_report_check_case(c, 0, why, sizeof why) != 0) {
		snprintf(err, errsz, "%s: case %zu: %s", r->path, i + 1, why);
		return -1;
	}
	if (2 * (r->checked + 1) > r->names_cap) {
		size_t nc = r->names_cap ? 2 * r->names_cap : 1024;
		char **nn = calloc(nc, sizeof *nn);
		if (!nn)
			goto oom;
		for (size_t k = 0; k < r->names_cap; k++)
			if (r->names[k]) {
				size_t h = (size_t)name_hash(r->names[k]) & (nc - 1);
				while (nn[h])
					h = (h + 1) & (nc - 1);
				nn[h] = r->names[k];
			}
		free(r->names);
		r->names = nn;
		r->names_cap = nc;
	}
	const char *name = json_string_value(json_object_get(c, "name"));
	size_t h = (size_t)name_hash(name) & (r->names_cap - 1);
	for (; r->names[h]; h = (h + 1) & (r->names_cap - 1))
		if (!strcmp(r->names[h], name)) {
			char shown[128];
			qc_utf8_copy(shown, sizeof shown, name);
			snprintf(err, errsz, "%s: case %zu: the name %s is another case's too",
			         r->path, i + 1, shown);
			return -1;
		}
	if (!(r->names[h] = strdup(name)))
		goto oom;
	r->checked++;
	return 0;
oom:
	snprintf(err, errsz, "%s: out of memory", r->path);
	return -1;
}

static qc_report *report_new(void)
{
	qc_report *r = calloc(1, sizeof *r);
	if (r)
		r->cases_at = -1;
	return r;
}

/* Reads a report whose top level is not an object: jansson's error, or not a report. */
static qc_report *not_object(qc_report *r, char *err, size_t errsz)
{
	rewind(r->f);
	json_error_t e;
	json_t *v = json_loadf(r->f, JSON_DECODE_INT_AS_REAL, &e);
	if (!v)
		snprintf(err, errsz, "%s: invalid JSON at line %d, column %d: %s", r->path, e.line,
		         e.column, e.text);
	else
		snprintf(err, errsz, "%s: not a qconform report (not a JSON object)", r->path);
	json_decref(v);
	qc_report_close(r);
	return NULL;
}

qc_report *qc_report_open(const char *json_path, char *err, size_t errsz)
{
	qc_report *r = report_new();
	if (!r || !(r->path = strdup(json_path))) {
		free(r);
		snprintf(err, errsz, "%s: out of memory", json_path);
		return NULL;
	}
	int fd = qc_open_regular(json_path, QC_REPORT_MAX_BYTES, "report", err, errsz);
	if (fd < 0 || !(r->f = fdopen(fd, "rb"))) {
		if (fd >= 0) {
			snprintf(err, errsz, "%s: %s", json_path, strerror(errno));
			close(fd);
		}
		qc_report_close(r);
		return NULL;
	}
	r->line = 1;
	member *m = NULL;
	size_t nm = 0, capm = 0;
	int c = skip_ws(r);
	if (c != '{')
		return not_object(r, err, errsz);
	c = skip_ws(r);
	if (c != '}')
		for (;;) {
			if (c != '"') {
				syntax(r, err, errsz, c, "string or '}' expected");
				goto fail;
			}
			/* the key, decoded by jansson */
			r->capture = 1;
			r->len = 0;
			long kl = r->line, kc = r->col;
			if (scan_value(r, c, err, errsz) != 0)
				goto fail;
			if (nm == capm) {
				capm = capm ? 2 * capm : 8;
				member *nmm = realloc(m, capm * sizeof *m);
				if (!nmm)
					goto oom;
				m = nmm;
			}
			member *cur = &m[nm++];
			memset(cur, 0, sizeof *cur);
			if (!(cur->key = parse_buf(r, kl, kc, err, errsz)))
				goto fail;
			c = skip_ws(r);
			if (c != ':') {
				syntax(r, err, errsz, c, "':' expected");
				goto fail;
			}
			c = skip_ws(r);
			cur->line = r->line;
			cur->col = r->col;
			if (c == '[' && !strcmp(json_string_value(cur->key), "cases")) {
				r->cases_at = r->off - 1;
				r->cases_line = r->line;
				r->cases_col = r->col;
				r->capture = 0;
				if (scan_cases(r, err, errsz) != 0)
					goto fail;
			} else {
				r->capture = 1;
				r->len = 0;
				if (scan_value(r, c, err, errsz) != 0)
					goto fail;
				if (!(cur->text = malloc(r->len ? r->len : 1)))
					goto oom;
				memcpy(cur->text, r->buf, r->len);
				cur->len = r->len;
			}
			c = skip_ws(r);
			if (c == '}')
				break;
			if (c != ',') {
				syntax(r, err, errsz, c, "'}' expected");
				goto fail;
			}
			c = skip_ws(r);
		}
	c = skip_ws(r);
	if (c != EOF) {
		syntax(r, err, errsz, c, "end of file expected");
		goto fail;
	}
	if (ferror(r->f)) {
		snprintf(err, errsz, "%s: %s", r->path, strerror(errno));
		goto fail;
	}
	/* the members, now that the integers' reading is known */
	r->flags = r->bigint ? JSON_DECODE_INT_AS_REAL : 0;
	r->doc = json_object();
	for (size_t i = 0; i < nm; i++) {
		json_t *v;
		if (m[i].text) {
			free(r->buf);
			r->buf = m[i].text;
			r->len = r->cap = m[i].len;
			m[i].text = NULL;
			v = parse_buf(r, m[i].line, m[i].col, err, errsz);
		} else {
			v = json_array();
		}
		if (!v)
			goto fail;
		json_object_set_new(r->doc, json_string_value(m[i].key), v);
	}
	members_free(m, nm);
	const char *why;
	if (!is_report(r->doc, &why)) {
		snprintf(err, errsz, "%s: %s", json_path, why);
		qc_report_close(r);
		return NULL;
	}
	r->state = R_START;
	return r;
oom:
	snprintf(err, errsz, "%s: out of memory", r->path);
fail:
	members_free(m, nm);
	qc_report_close(r);
	return NULL;
}

qc_report *qc_report_of(json_t *doc)
{
	qc_report *r = report_new();
	if (!r)
		return NULL;
	r->doc = json_incref(doc);
	r->mem_cases = json_object_get(doc, "cases");
	r->n_cases = json_array_size(r->mem_cases);
	r->path = strdup("(report)");
	return r;
}

json_t *qc_report_doc(const qc_report *r)
{
	return r->doc;
}

const char *qc_report_path(const qc_report *r)
{
	return r->path;
}

size_t qc_report_ncases(const qc_report *r)
{
	return r->n_cases;
}

void qc_report_rewind(qc_report *r)
{
	r->seq = 0;
	r->state = R_START;
	r->next_i = 0;
}

/* To byte pos of the file: a short way forward is read through (cases in file order, the
 * usual order of every reader, then cost no seek and no refill of stdio's buffer). */
static int seek(qc_report *r, long long pos)
{
	if (pos >= r->off && pos - r->off <= 4096) {
		while (r->off < pos)
			if (getc_unlocked(r->f) == EOF)
				break;
			else
				r->off++;
		if (r->off == pos)
			return 0;
	}
	if (fseeko(r->f, pos, SEEK_SET) != 0)
		return -1;
	r->off = pos;
	return 0;
}

int qc_report_next(qc_report *r, json_t **c, char *err, size_t errsz)
{
	*c = NULL;
	if (r->mem_cases) {
		if (r->state == R_START)
			r->next_i = 0, r->state = R_VALUE;
		if ((size_t)r->next_i >= json_array_size(r->mem_cases))
			return 0;
		r->last_pos = r->next_i;
		*c = json_incref(json_array_get(r->mem_cases, (size_t)r->next_i++));
		if (r->next_i == 1)
			r->seq = 0;
		if (check_next(r, *c, err, errsz) != 0) {
			json_decref(*c);
			*c = NULL;
			return -1;
		}
		return 1;
	}
	int ch;
	if (r->state == R_DONE || r->cases_at < 0)
		return 0;
	if (r->state == R_START || r->state == R_AT) {
		if (seek(r, r->cases_at) != 0) {
			snprintf(err, errsz, "%s: %s", r->path, strerror(errno));
			return -1;
		}
		r->line = r->cases_line;
		r->col = r->cases_col - 1; /* the [ is read again */
		r->at_pos_mode = 0;
		ch = rd(r);
		if (ch != '[')
			return syntax(r, err, errsz, ch,
			              "the report changed while read: '[' expected");
		ch = skip_ws(r);
		if (ch == ']') {
			r->state = R_DONE;
			return 0;
		}
		r->state = R_VALUE;
		r->seq = 0;
	} else {
		ch = skip_ws(r);
	}
	r->last_pos = r->off - 1;
	long line = r->line, col = r->col;
	r->capture = 1;
	r->len = 0;
	if (scan_value(r, ch, err, errsz) != 0)
		return -1;
	if (!(*c = parse_buf(r, line, col, err, errsz)))
		return -1;
	ch = skip_ws(r);
	if (ch == ']') {
		r->state = R_DONE;
	} else if (ch != ',') {
		json_decref(*c);
		*c = NULL;
		return syntax(r, err, errsz, ch, "']' expected");
	}
	if (check_next(r, *c, err, errsz) != 0) {
		json_decref(*c);
		*c = NULL;
		return -1;
	}
	return 1;
}

long long qc_report_pos_of_last(const qc_report *r)
{
	return r->last_pos;
}

int qc_report_at(qc_report *r, long long pos, json_t **c, char *err, size_t errsz)
{
	*c = NULL;
	if (r->mem_cases) {
		*c = json_incref(json_array_get(r->mem_cases, (size_t)pos));
		if (!*c) {
			snprintf(err, errsz, "%s: no case %lld", r->path, pos);
			return -1;
		}
		return 0;
	}
	r->state = R_AT;
	r->at_pos_mode = 1;
	if (seek(r, pos) != 0) {
		snprintf(err, errsz, "%s: %s", r->path, strerror(errno));
		return -1;
	}
	r->last_pos = pos;
	r->capture = 1;
	r->len = 0;
	if (scan_value(r, rd(r), err, errsz) != 0)
		return -1;
	return (*c = parse_buf(r, 0, 0, err, errsz)) ? 0 : -1;
}

void qc_report_close(qc_report *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	json_decref(r->doc);
	free(r->path);
	free(r->buf);
	for (size_t k = 0; k < r->names_cap; k++)
		free(r->names[k]);
	free(r->names);
	free(r);
}

json_t *qc_report_read(const char *json_path, char *err, size_t errsz)
{
	qc_report *r = qc_report_open(json_path, err, errsz);
	if (!r)
		return NULL;
	json_t *doc = json_incref(r->doc), *cases = json_object_get(doc, "cases"), *c;
	int rc;
	while ((rc = qc_report_next(r, &c, err, errsz)) > 0)
		json_array_append_new(cases, c);
	qc_report_close(r);
	if (rc < 0) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int qc_report_axes_named(json_t *coords, json_t *axes)
{
	size_t d;
	json_t *v;
	int named = json_array_size(axes) == json_array_size(coords), layout = 0;
	json_array_foreach(axes, d, v)
	{
		char plain[32];
		snprintf(plain, sizeof plain, "d%zu", d);
		named &= json_is_string(v);
		layout |= json_is_string(v) && strcmp(json_string_value(v), plain) != 0;
	}
	return named && layout;
}
