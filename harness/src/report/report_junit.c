#include "report/report_junit.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/afile.h"
#include "base/utf8.h"
#include "judge/compare.h"

/* Seconds for a time attribute: non-negative and finite. */
static double secs(json_t *v)
{
	double d = qc_json_num(v);
	return isfinite(d) && d > 0 ? d : 0;
}

/*
 * XML text or attribute value. XML 1.0 (section 2.2, Char) allows tab, newline, carriage
 * return, U+0020..U+D7FF, U+E000..U+FFFD and U+10000..U+10FFFF: other C0 controls, U+FFFE,
 * U+FFFF and any ill-formed UTF-8 (harness/src/base/utf8.h) become U+FFFD. In attributes, tab and
 * line ends are written as character references so attribute-value normalization keeps them.
 */
static void xesc(FILE *f, const char *s, int attr)
{
	size_t n = s ? strlen(s) : 0;
	for (size_t i = 0; i < n;) {
		int32_t cp;
		size_t k = qc_utf8_next(s + i, n - i, &cp);
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs(attr ? "&quot;" : "\"", f); break;
		case '\'': fputs(attr ? "&apos;" : "'", f); break;
		case '\t': fputs(attr ? "&#9;" : "\t", f); break;
		case '\n': fputs(attr ? "&#10;" : "\n", f); break;
		case '\r': fputs("&#13;", f); break;
		default:
			if (!qc_utf8_reportable(cp))
				fputs("&#xFFFD;", f);
			else
				fwrite(s + i, 1, k, f);
		}
		i += k;
	}
}

/* "[0,3,2,5] (n=0,h=3,w=2,c=5)": coordinates, with the output's axis names when the op has
 * them (not only d0, d1, ...). */
static void coords_text(FILE *f, json_t *coords, json_t *axes)
{
	size_t d;
	json_t *v;
	int named = qc_report_axes_named(coords, axes);
	fputc('[', f);
	json_array_foreach(coords, d, v) fprintf(f, "%s%llu", d ? "," : "", qc_json_count(v));
	fputc(']', f);
	if (!named)
		return;
	json_array_foreach(coords, d, v)
	{
		fputs(d ? "," : " (", f);
		xesc(f, json_string_value(json_array_get(axes, d)), 0);
		fprintf(f, "=%llu", qc_json_count(v));
	}
	fputc(')', f);
}

/* The metrics of a case's outputs as text: the body of a <failure>. */
static void metrics_text(FILE *f, json_t *c)
{
	size_t k;
	json_t *o;
	char b1[32], b2[32], b3[32];
	json_array_foreach(json_object_get(c, "outputs"), k, o)
	{
		fputs("output ", f);
		xesc(f, qc_json_str(o, "name"), 0);
		fputs(" (", f);
		xesc(f, qc_json_str(o, "dtype"), 0);
		fputs(", e in ", f);
		xesc(f, qc_json_str(o, "unit"), 0);
		unsigned long long mism = qc_json_key_count(o, "mismatches"),
		                   n = qc_json_key_count(o, "elements");
		fprintf(f, "): %llu of %llu %s %s, max |e| %s, bias %s, mse %s", mism, n,
		        n == 1 ? "element" : "elements", mism == 1 ? "differs" : "differ",
		        qc_json_num_text(b1, sizeof b1, json_object_get(o, "max_abs")),
		        qc_json_num_text(b2, sizeof b2, json_object_get(o, "bias")),
		        qc_json_num_text(b3, sizeof b3, json_object_get(o, "mse")));
		fprintf(f, ", within rounding %llu, unpredictable %llu, out of range %llu",
		        qc_json_key_count(o, "within_rounding"),
		        qc_json_key_count(o, "unpredictable"),
		        qc_json_key_count(o, "out_of_range"));
		if (json_object_get(o, "max_ulp"))
			fprintf(f, ", max ulp %s, max abs error %s, max rel error %s",
			        qc_json_num_text(b1, sizeof b1, json_object_get(o, "max_ulp")),
			        qc_json_num_text(b2, sizeof b2,
			                         json_object_get(o, "max_abs_error")),
			        qc_json_num_text(b3, sizeof b3,
			                         json_object_get(o, "max_rel_error")));
		fputs("\n  histogram (e: elements):", f);
		json_t *hist = json_object_get(o, "histogram");
		for (int b = 0; b < QC_HIST_BINS; b++) {
			json_t *n = json_object_get(hist, qc_hist_labels[b]);
			if (n) {
				fputc(' ', f);
				xesc(f, qc_hist_labels[b], 0);
				fprintf(f, ": %s", qc_json_num_text(b1, sizeof b1, n));
			}
		}
		json_t *along = json_object_get(o, "failing_along");
		if (json_is_object(along)) {
			/* per index along the axis: where the failing elements are */
			json_t *axes = json_object_get(o, "axes");
			size_t ax = (size_t)qc_json_key_count(along, "axis");
			const char *an = json_string_value(json_array_get(axes, ax));
			fputs("\n  failing elements along ", f);
			if (an)
				xesc(f, an, 0);
			else
				fprintf(f, "axis %zu", ax);
			fputc(':', f);
			const char *at;
			json_t *cnt;
			json_object_foreach(json_object_get(along, "counts"), at, cnt)
			{
				fputc(' ', f);
				xesc(f, at, 0);
				fprintf(f, ": %llu", qc_json_count(cnt));
			}
			if (qc_json_key_count(along, "other"))
				fprintf(f, " other: %llu", qc_json_key_count(along, "other"));
		}
		size_t w;
		json_t *e;
		json_array_foreach(json_object_get(o, "worst"), w, e)
		{
			fprintf(f, "\n  worst: index %llu", qc_json_key_count(e, "index"));
			json_t *coords = json_object_get(e, "coords");
			if (json_is_array(coords)) {
				fputs(" at ", f);
				coords_text(f, coords, json_object_get(o, "axes"));
			}
			const char *in;
			json_t *iv;
			json_object_foreach(json_object_get(e, "inputs"), in, iv)
			{
				fputs(", ", f);
				xesc(f, in, 0);
				fprintf(f, " = %s", qc_json_num_text(b1, sizeof b1, iv));
			}
			fprintf(f, ", expected %s, got %s, error %s",
			        qc_json_num_text(b1, sizeof b1, json_object_get(e, "expected")),
			        qc_json_num_text(b2, sizeof b2, json_object_get(e, "got")),
			        qc_json_num_text(b3, sizeof b3, json_object_get(e, "error")));
			if (json_object_get(e, "acc"))
				fprintf(f, ", acc %s, real %.9g",
				        qc_json_num_text(b1, sizeof b1, json_object_get(e, "acc")),
				        qc_json_num(json_object_get(e, "real")));
		}
		fputc('\n', f);
	}
}

static void reproduce_text(FILE *f, json_t *c)
{
	if (json_object_get(c, "reproduce")) {
		fputs("reproduce: ", f);
		xesc(f, qc_json_str(c, "reproduce"), 0);
		fputc('\n', f);
	}
}

static void testcase(FILE *f, json_t *c)
{
	const char *verdict = qc_json_str(c, "verdict");
	fputs("    <testcase classname=\"", f);
	xesc(f, qc_json_str(c, "semantics"), 1);
	fputc('.', f);
	xesc(f, qc_json_str(c, "op"), 1);
	fputs("\" name=\"", f);
	xesc(f, qc_json_str(c, "name"), 1);
	fprintf(f, "\" time=\"%.6f\"", secs(json_object_get(c, "seconds")));
	const char *tag = NULL;
	if (json_object_get(c, "waived")) {
		/* a failure a waiver accepts: skipped, so a CI gate agrees with the run's verdict
		 */
		fputs(">\n      <skipped message=\"", f);
		xesc(f, verdict, 1);
		fputs(" waived: ", f);
		xesc(f, qc_json_str(c, "waived"), 1);
		fputs("\"/>\n    </testcase>\n", f);
		return;
	}
	if (!strcmp(verdict, "FAIL") || !strcmp(verdict, "NONDETERMINISTIC"))
		tag = "failure";
	else if (!strcmp(verdict, "ERROR") || !strcmp(verdict, "CRASH") ||
	         !strcmp(verdict, "TIMEOUT"))
		tag = "error";
	if (tag) {
		fprintf(f, ">\n      <%s message=\"", tag);
		xesc(f, qc_json_str(c, "message"), 1);
		fputs("\" type=\"", f);
		xesc(f, verdict, 1);
		fputs("\">", f);
		xesc(f, qc_json_str(c, "message"), 0);
		fputc('\n', f);
		metrics_text(f, c);
		reproduce_text(f, c);
		fprintf(f, "</%s>\n    </testcase>\n", tag);
	} else if (!strcmp(verdict, "NOT_SUPPORTED")) {
		fputs(">\n      <skipped message=\"", f);
		xesc(f, qc_json_str(c, "message"), 1);
		fputs("\"/>\n    </testcase>\n", f);
	} else if (!strcmp(verdict, "PASS_WITHIN_TOLERANCE")) {
		/* a pass, with what it took */
		fputs(">\n      <system-out>PASS_WITHIN_TOLERANCE: ", f);
		xesc(f, qc_json_str(c, "message"), 0);
		fputc('\n', f);
		metrics_text(f, c);
		fputs("</system-out>\n    </testcase>\n", f);
	} else {
		fputs("/>\n", f);
	}
}

/* ---- cases grouped by operator ---- */

typedef struct op_group {
	char *sem, *op;
	long long rollup; /* its cases by the report's roll-up */
	FILE *tmp;        /* one of the JUNIT_TMP_FILES largest: its <testcase> elements, written
	                     as the cases are read (one pass); NULL: its cases are read again */
	long long *cases; /* then where each case of the group is in the report (qc_report_at) */
	size_t n, n_at, cap;
	unsigned long long failures, errors, skipped;
	double time;
} op_group;

static uint64_t hash2(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)a; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h = (h ^ '/') * 1099511628211ull;
	for (const unsigned char *p = (const unsigned char *)b; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

typedef struct op_table {
	op_group *g;
	size_t n, cap;
	size_t *slot, nslots; /* open addressing: index + 1 into g, 0 empty */
} op_table;

static op_group *group_of(op_table *t, const char *sem, const char *op)
{
	if (2 * (t->n + 1) > t->nslots) {
		size_t ns = t->nslots ? 2 * t->nslots : 64;
		size_t *s = calloc(ns, sizeof *s);
		if (!s)
			return NULL;
		for (size_t i = 0; i < t->n; i++) {
			size_t h = (size_t)hash2(t->g[i].sem, t->g[i].op) & (ns - 1);
			while (s[h])
				h = (h + 1) & (ns - 1);
			s[h] = i + 1;
		}
		free(t->slot);
		t->slot = s;
		t->nslots = ns;
	}
	size_t h = (size_t)hash2(sem, op) & (t->nslots - 1);
	for (; t->slot[h]; h = (h + 1) & (t->nslots - 1)) {
		op_group *g = &t->g[t->slot[h] - 1];
		if (!strcmp(g->sem, sem) && !strcmp(g->op, op))
			return g;
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 64;
		op_group *ng = realloc(t->g, nc * sizeof *ng);
		if (!ng)
			return NULL;
		t->g = ng;
		t->cap = nc;
	}
	op_group *g = &t->g[t->n];
	memset(g, 0, sizeof *g);
	g->sem = strdup(sem);
	g->op = strdup(op);
	if (!g->sem || !g->op) {
		free(g->sem);
		free(g->op);
		return NULL;
	}
	t->slot[h] = ++t->n;
	return g;
}

static void table_free(op_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->g[i].tmp)
			fclose(t->g[i].tmp);
		free(t->g[i].cases);
		free(t->g[i].sem);
		free(t->g[i].op);
	}
	free(t->g);
	free(t->slot);
}

/* Temporary files at most (descriptors are bounded): the largest ops' cases are read once, the
 * others' twice. */
#define JUNIT_TMP_FILES 64

/* qsort: groups by their roll-up's case count, largest first, then in order */
static int by_rollup(const void *a, const void *b)
{
	const op_group *x = *(op_group *const *)a, *y = *(op_group *const *)b;
	return x->rollup != y->rollup ? (x->rollup < y->rollup ? 1 : -1) : (x > y) - (x < y);
}

/* Appends what was written to tmp to f: 0, or -1 when tmp could not hold it. */
static int copy_tmp(FILE *tmp, FILE *f)
{
	char buf[65536];
	if (fflush(tmp) != 0 || ferror(tmp) || fseek(tmp, 0, SEEK_SET) != 0)
		return -1;
	for (size_t n; (n = fread(buf, 1, sizeof buf, tmp)) > 0;)
		fwrite(buf, 1, n, f);
	return ferror(tmp) ? -1 : 0;
}

int qc_junit_write_doc(qc_report *rep, const char *xml_path, char *err, size_t errsz)
{
	json_t *r = qc_report_doc(rep), *run = json_object_get(r, "run");
	json_t *plugin = json_object_get(run, "plugin");
	op_table t = {0};
	/* operators in the order of the report's roll-up, then any others in case order */
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(r, "ops"), i, x)
	{
		op_group *g = group_of(&t, qc_json_str(x, "semantics"), qc_json_str(x, "op"));
		if (!g)
			goto oom;
		g->rollup = json_integer_value(json_object_get(x, "cases"));
	}
	if (t.n) {
		op_group **by = malloc(t.n * sizeof *by);
		if (!by)
			goto oom;
		for (i = 0; i < t.n; i++)
			by[i] = &t.g[i];
		qsort(by, t.n, sizeof *by, by_rollup);
		for (i = 0; i < t.n && i < JUNIT_TMP_FILES; i++)
			by[i]->tmp = tmpfile(); /* NULL: read again, as the others */
		free(by);
	}
	unsigned long long failures = 0, errors = 0, skipped = 0;
	double total_time = 0;
	size_t n_cases = 0;
	int rc;
	qc_report_rewind(rep);
	while ((rc = qc_report_next(rep, &x, err, errsz)) > 0) {
		n_cases++;
		op_group *g = group_of(&t, qc_json_str(x, "semantics"), qc_json_str(x, "op"));
		if (!g) {
			json_decref(x);
			goto oom;
		}
		if (g->tmp) {
			testcase(g->tmp, x);
		} else {
			if (g->n_at == g->cap) {
				size_t nc = g->cap ? 2 * g->cap : 16;
				long long *nca = realloc(g->cases, nc * sizeof *nca);
				if (!nca) {
					json_decref(x);
					goto oom;
				}
				g->cases = nca;
				g->cap = nc;
			}
			g->cases[g->n_at++] = qc_report_pos_of_last(rep);
		}
		g->n++;
		const char *v = qc_json_str(x, "verdict");
		if (json_object_get(x, "waived")) {
			g->skipped++;
		} else {
			g->failures += !strcmp(v, "FAIL") || !strcmp(v, "NONDETERMINISTIC");
			g->errors +=
			        !strcmp(v, "ERROR") || !strcmp(v, "CRASH") || !strcmp(v, "TIMEOUT");
			g->skipped += !strcmp(v, "NOT_SUPPORTED");
		}
		g->time += secs(json_object_get(x, "seconds"));
		json_decref(x);
	}
	if (rc < 0) {
		table_free(&t);
		return -1;
	}
	for (i = 0; i < t.n; i++) {
		failures += t.g[i].failures;
		errors += t.g[i].errors;
		skipped += t.g[i].skipped;
		total_time += t.g[i].time;
	}
	qc_afile af;
	if (qc_afile_open(&af, xml_path, err, errsz) != 0) {
		table_free(&t);
		return -1;
	}
	FILE *f = af.f;
	/* an interrupted run: one more test case, in error, so that a CI does not take the
	 * cases that finished for the run */
	json_t *intr = json_object_get(r, "interrupted");
	int interrupted = json_is_object(intr);
	/* timestamp: JUnit's is ISO 8601 without a zone; the report's is UTC */
	char stamp[32];
	snprintf(stamp, sizeof stamp, "%s", qc_json_str(run, "started"));
	size_t sl = strlen(stamp);
	if (sl && stamp[sl - 1] == 'Z')
		stamp[sl - 1] = 0;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"qconform ", f);
	xesc(f, qc_json_str(plugin, "name"), 1);
	fprintf(f,
	        "\" tests=\"%zu\" failures=\"%llu\" errors=\"%llu\" skipped=\"%llu\" "
	        "time=\"%.6f\">\n",
	        n_cases + (size_t)interrupted, failures, errors + (unsigned long long)interrupted,
	        skipped, total_time);
	if (interrupted) {
		fputs("  <testsuite name=\"qconform\" tests=\"1\" failures=\"0\" errors=\"1\" "
		      "skipped=\"0\" time=\"0\">\n    <testcase classname=\"qconform\" "
		      "name=\"run interrupted\" time=\"0\">\n      <error type=\"INTERRUPTED\" "
		      "message=\"",
		      f);
		char what[256], by[64];
		unsigned long long planned = qc_json_key_count(intr, "cases_planned");
		snprintf(what, sizeof what, "stopped by %s after %llu of %llu case%s",
		         qc_report_stopped_by(intr, by, sizeof by),
		         qc_json_key_count(intr, "cases_done"), planned, planned == 1 ? "" : "s");
		xesc(f, what, 1);
		fputs("\">", f);
		xesc(f, what, 0);
		if (json_is_string(json_object_get(intr, "journal"))) {
			fputs("\nresume: qconform run --resume ", f);
			xesc(f, qc_json_str(intr, "journal"), 0);
		}
		fputs("</error>\n    </testcase>\n  </testsuite>\n", f);
	}
	for (i = 0; i < t.n; i++) {
		op_group *g = &t.g[i];
		if (!g->n)
			continue;
		fputs("  <testsuite name=\"", f);
		xesc(f, g->sem, 1);
		fputc('/', f);
		xesc(f, g->op, 1);
		fprintf(f,
		        "\" tests=\"%zu\" failures=\"%llu\" errors=\"%llu\" skipped=\"%llu\" "
		        "time=\"%.6f\" timestamp=\"",
		        g->n, g->failures, g->errors, g->skipped, g->time);
		xesc(f, stamp, 1);
		fputs("\" hostname=\"", f);
		xesc(f, qc_json_str(run, "host"), 1);
		fputs("\">\n    <properties>\n", f);
		static const char *const props[][2] = {{"plugin", "name"},
		                                       {"plugin.version", "version"},
		                                       {"plugin.sha256", "sha256"},
		                                       {"plugin.path", "path"}};
		for (size_t p = 0; p < sizeof props / sizeof props[0]; p++) {
			fprintf(f, "      <property name=\"%s\" value=\"", props[p][0]);
			xesc(f, qc_json_str(plugin, props[p][1]), 1);
			fputs("\"/>\n", f);
		}
		char seed[32];
		json_t *sv = json_object_get(run, "seed");
		if (json_is_integer(sv))
			snprintf(seed, sizeof seed, "%" JSON_INTEGER_FORMAT,
			         json_integer_value(sv));
		else
			qc_json_num_text(seed, sizeof seed, sv);
		fprintf(f, "      <property name=\"seed\" value=\"%s\"/>\n", seed);
		fputs("      <property name=\"qconform.version\" value=\"", f);
		xesc(f, qc_json_str(run, "qconform_version"), 1);
		fputs("\"/>\n", f);
		/* what the times are: the report's case seconds, the kernel's alone; the run's
		 * whole wall time beside them */
		fputs("      <property name=\"qconform.time\" value=\"" QC_JUNIT_TIME "\"/>\n", f);
		fprintf(f, "      <property name=\"qconform.wall_seconds\" value=\"%.3f\"/>\n",
		        secs(json_object_get(json_object_get(r, "summary"), "wall_seconds")));
		fputs("    </properties>\n", f);
		if (g->tmp && copy_tmp(g->tmp, f) != 0) {
			snprintf(err, errsz, "%s: cannot write a temporary file: %s", xml_path,
			         strerror(errno));
			qc_afile_abort(&af);
			table_free(&t);
			return -1;
		}
		for (size_t k = 0; k < g->n_at; k++) {
			if (qc_report_at(rep, g->cases[k], &x, err, errsz) != 0) {
				qc_afile_abort(&af);
				table_free(&t);
				return -1;
			}
			testcase(f, x);
			json_decref(x);
		}
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	table_free(&t);
	return qc_afile_commit(&af, err, errsz);
oom:
	table_free(&t);
	snprintf(err, errsz, "%s: out of memory", xml_path);
	return -1;
}

int qc_junit_write(const char *json_path, const char *xml_path, char *err, size_t errsz)
{
	qc_report *r = qc_report_open(json_path, err, errsz);
	if (!r)
		return -1;
	int rc = qc_junit_write_doc(r, xml_path, err, errsz);
	qc_report_close(r);
	return rc;
}
