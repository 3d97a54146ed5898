/*
 * The cases on the HTML page (report_html.c): one case (its metrics, histograms and worst
 * elements), and the drill-down: per failing operator its diagnosis, where its failures are and
 * its cases; the cases within tolerance; the operators the plugin does not support.
 */
#include "report/report_html_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/compare.h"
#include "judge/where.h"

/* ---- one case ---- */

/* A metrics column head: the JSON key with spaces, so a narrow page can wrap it. */
static void head_cell(FILE *f, const char *key)
{
	fputs("<th class=\"n\">", f);
	for (const char *p = key; *p; p++)
		fputc(*p == '_' ? ' ' : *p, f);
	fputs("</th>", f);
}

/* "0,3,2,5" and, when the op names its axes, "n=0, h=3, w=2, c=5" */
static void coords_cell(FILE *f, json_t *coords, json_t *axes)
{
	size_t d;
	json_t *v;
	int named = qc_report_axes_named(coords, axes);
	json_array_foreach(coords, d, v)
	{
		fputs(d ? ", " : "", f);
		if (named) {
			qc_html_esc(f, json_string_value(json_array_get(axes, d)));
			fputc('=', f);
		}
		fprintf(f, "%llu", qc_json_count(v));
	}
}

/* An output's worst elements: where each is (its index, its coordinates), the inputs at the
 * index, expected, the legal outputs, got, error, and the reference's accumulator and real
 * value when known. A row outside every legal output is marked (class "out"), one that is a
 * legal rounding other than expected is not: the first are what fails the case. */
static void worst_table(FILE *f, json_t *o)
{
	json_t *worst = json_object_get(o, "worst"), *e;
	size_t w;
	char b1[32], b2[32], b3[32];
	int coords = 0, terms = 0, reals = 0, inputs = 0, band = 0;
	json_array_foreach(worst, w, e)
	{
		coords |= json_is_array(json_object_get(e, "coords"));
		terms |= json_object_get(e, "acc") != NULL;
		reals |= json_object_get(e, "real") != NULL;
		inputs |= json_object_get(e, "inputs") != NULL;
		json_t *l = json_object_get(e, "legal");
		band |= json_array_size(l) == 2 &&
		        qc_json_num(json_array_get(l, 0)) != qc_json_num(json_array_get(l, 1));
	}
	if (!json_array_size(worst))
		return;
	fputs("<table class=\"worst\"><tr><th class=\"n\">index</th>", f);
	if (coords)
		fputs("<th>at</th>", f);
	if (inputs)
		fputs("<th>inputs at the index</th>", f);
	fputs("<th class=\"n\">expected</th>", f);
	if (band)
		fputs("<th class=\"n\">legal outputs</th>", f);
	fputs("<th class=\"n\">got</th><th class=\"n\">error</th>", f);
	if (terms)
		fputs("<th class=\"n\">accumulator</th>", f);
	if (reals)
		fputs(terms ? "<th class=\"n\">real value (acc &times; s_in &times; s_w / s_out + "
		              "zp_out)</th>"
		            : "<th class=\"n\">real value (in output units)</th>",
		      f);
	fputs("</tr>\n", f);
	json_array_foreach(worst, w, e)
	{
		json_t *beyond = json_object_get(e, "beyond");
		int out = !beyond || qc_json_num(beyond) != 0;
		fprintf(f, "<tr%s><td class=\"n\">%llu</td>",
		        out ? " class=\"out\" title=\"outside every legal output\""
		            : " class=\"legal\" title=\"a legal rounding\"",
		        qc_json_key_count(e, "index"));
		if (coords) {
			fputs("<td>", f);
			coords_cell(f, json_object_get(e, "coords"), json_object_get(o, "axes"));
			fputs("</td>", f);
		}
		if (inputs) {
			fputs("<td>", f);
			const char *in;
			json_t *iv;
			int first = 1;
			json_object_foreach(json_object_get(e, "inputs"), in, iv)
			{
				fputs(first ? "" : ", ", f);
				qc_html_esc(f, in);
				fprintf(f, " = %s", qc_json_num_text(b1, sizeof b1, iv));
				first = 0;
			}
			fputs("</td>", f);
		}
		fprintf(f, "<td class=\"n\">%s</td>",
		        qc_json_num_text(b1, sizeof b1, json_object_get(e, "expected")));
		if (band) {
			json_t *l = json_object_get(e, "legal");
			fprintf(f, "<td class=\"n\">%s to %s</td>",
			        qc_json_num_text(b2, sizeof b2, json_array_get(l, 0)),
			        qc_json_num_text(b3, sizeof b3, json_array_get(l, 1)));
		}
		fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td>",
		        qc_json_num_text(b2, sizeof b2, json_object_get(e, "got")),
		        qc_json_num_text(b3, sizeof b3, json_object_get(e, "error")));
		if (terms)
			fprintf(f, "<td class=\"n\">%s</td>",
			        json_object_get(e, "acc")
			                ? qc_json_num_text(b1, sizeof b1, json_object_get(e, "acc"))
			                : "");
		if (reals && json_object_get(e, "real"))
			fprintf(f, "<td class=\"n\">%.9g</td>",
			        qc_json_num(json_object_get(e, "real")));
		else if (reals)
			fputs("<td></td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void case_article(FILE *f, json_t *c, size_t index)
{
	/* names written into markup unescaped come from qconform's own tables */
	int vi = qc_verdict_of_name(qc_json_str(c, "verdict"));
	const char *verdict = vi >= 0 ? qc_verdict_name((qc_verdict)vi) : "UNKNOWN";
	char b1[32], b2[32];
	fprintf(f, "<article class=\"case v-%s\" id=\"case-%zu\">\n<h3><span class=\"badge v-%s\">",
	        verdict, index, verdict);
	qc_html_esc(f, verdict);
	fputs("</span><span class=\"name\">", f);
	qc_html_esc(f, qc_json_str(c, "name"));
	fputs("</span></h3>\n<table class=\"kv\">\n", f);
	qc_html_kv_row(f, "message", qc_json_str(c, "message"), 0);
	fputs("<tr><th>operator</th><td>", f);
	qc_html_esc(f, qc_json_str(c, "semantics"));
	fputs("/", f);
	qc_html_esc(f, qc_json_str(c, "op"));
	fputs("</td></tr>\n", f);
	qc_html_kv_row(f, "spec", qc_json_str(c, "spec"), 0);
	qc_html_kv_row(f, "params", qc_json_str(c, "params"), 1);
	qc_html_kv_row(f, "case seed", qc_json_str(c, "seed"), 1);
	if (json_object_get(c, "waived"))
		qc_html_kv_row(f, "waived", qc_json_str(c, "waived"), 0);
	qc_html_kv_row(f, "expect", qc_json_str(c, "expect"), 0);
	qc_html_kv_row(f, "kernel seconds",
	               qc_json_num_text(b1, sizeof b1, json_object_get(c, "seconds")), 0);
	json_t *aq = json_object_get(c, "auto_quant");
	if (json_is_object(aq)) {
		const char *k;
		json_t *q;
		fputs("<tr><th>auto quant</th><td>", f);
		json_object_foreach(aq, k, q)
		{
			qc_html_esc(f, k);
			fprintf(f, ": scale %s, zero point %s; ",
			        qc_json_num_text(b1, sizeof b1, json_object_get(q, "scale")),
			        qc_json_num_text(b2, sizeof b2, json_object_get(q, "zero_point")));
		}
		fputs("</td></tr>\n", f);
	}
	if (json_object_get(c, "golden_source"))
		qc_html_kv_row(f, "golden source", qc_json_str(c, "golden_source"), 0);
	fputs("</table>\n", f);
	size_t k;
	json_t *o;
	json_array_foreach(json_object_get(c, "outputs"), k, o)
	{
		const char *unit = qc_html_safe_unit(qc_json_str(o, "unit"));
		fputs("<h4>output ", f);
		qc_html_esc(f, qc_json_str(o, "name"));
		fputs(" (", f);
		qc_html_esc(f, qc_json_str(o, "dtype"));
		fputs(", e in ", f);
		qc_html_esc(f, unit);
		fputs(")</h4>\n<table class=\"metrics\"><tr>", f);
		static const char *const counts[] = {"elements", "mismatches", "within_rounding",
		                                     "unpredictable", "out_of_range"};
		static const char *const nums[] = {"max_abs",      "bias",    "mse",
		                                   "saturated",    "max_ulp", "max_abs_error",
		                                   "max_rel_error"};
		for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++)
			head_cell(f, counts[j]);
		for (size_t j = 0; j < sizeof nums / sizeof nums[0]; j++)
			if (json_object_get(o, nums[j]))
				head_cell(f, !strcmp(nums[j], "max_abs") ? "max |e|" : nums[j]);
		fputs("</tr><tr>", f);
		for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++)
			fprintf(f, "<td class=\"n\">%llu</td>", qc_json_key_count(o, counts[j]));
		for (size_t j = 0; j < sizeof nums / sizeof nums[0]; j++)
			if (json_object_get(o, nums[j]))
				fprintf(f, "<td class=\"n\">%s</td>",
				        qc_json_num_text(b1, sizeof b1,
				                         json_object_get(o, nums[j])));
		fputs("</tr></table>\n", f);
		qc_html_case_hist(f, json_object_get(o, "histogram"),
		                  json_object_get(o, "histogram_outside_band"), unit);
		worst_table(f, o);
	}
	if (json_object_get(c, "reproduce")) {
		fputs("<div class=\"note\">reproduce:</div><pre class=\"repro\">", f);
		qc_html_esc(f, qc_json_str(c, "reproduce"));
		fputs("</pre>\n", f);
	}
	fputs("</article>\n", f);
}

/* ---- where an op's failures are, rendered ---- */

typedef struct ranked {
	const char *key;
	json_int_t n, m; /* what it is ranked by (most first), and a second count */
	size_t order;    /* first met: the tie-break */
} ranked;

static int by_count(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The entries of a tally object ({KEY: n} or {KEY: [cases, failing]}), most first. */
static ranked *ranked_of(json_t *o, size_t *n)
{
	*n = json_object_size(o);
	ranked *r = calloc(*n ? *n : 1, sizeof *r);
	const char *key;
	json_t *v;
	size_t i = 0;
	if (!r) {
		*n = 0;
		return NULL;
	}
	json_object_foreach(o, key, v)
	{
		r[i].key = key;
		r[i].order = i;
		if (json_is_array(v)) {
			r[i].n = json_integer_value(json_array_get(v, 1));
			r[i].m = json_integer_value(json_array_get(v, 0));
		} else {
			r[i].n = json_integer_value(v);
		}
		i++;
	}
	qsort(r, *n, sizeof *r, by_count);
	return r;
}

/* "1 case", "2 cases" */
static const char *plural(json_int_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The findings of the breakdown w (judge/where.h), as a list. Returns how many. */
static int where_findings(FILE *f, json_t *w)
{
	qc_where_finding F[QC_WHERE_MAX_FINDINGS];
	int n = qc_where_findings(w, F, QC_WHERE_MAX_FINDINGS);
	for (int i = 0; i < n; i++) {
		const qc_where_finding *x = &F[i];
		fputs(i ? "<li>" : "<ul class=\"findings\"><li>", f);
		if (x->kind == QC_WHERE_INDEX) {
			fputs("output <code>", f);
			qc_html_esc(f, x->output);
			fputs("</code>: <b>", f);
			if (x->channel)
				fputs("channel ", f);
			else {
				fputs("only at ", f);
				qc_html_esc(f, x->axis);
				fputs(" = ", f);
			}
			qc_html_esc(f, x->index);
			fprintf(f, "%s</b> (%lld failing %s)</li>", x->channel ? " only" : "",
			        x->elements, plural(x->elements, "element", "elements"));
		} else {
			fputs(x->failing == 1 ? "<b>the failing case has <code>"
			                      : "<b>all failing cases have <code>",
			      f);
			qc_html_esc(f, x->var);
			fputc('=', f);
			qc_html_esc(f, x->value);
			fprintf(f, "</code></b> (%lld of the %lld cases %s)</li>", x->have,
			        x->cases, plural(x->have, "has it", "have it"));
		}
	}
	if (n)
		fputs("</ul>\n", f);
	return n;
}

/* The breakdown of an op's failures (qc_html_page_cases.where): findings, the failing elements
 * along each output's axis, the values of the sweep variables that the failing cases have. */
static void where_section(FILE *f, json_t *w, size_t id)
{
	json_int_t failing = json_integer_value(json_object_get(w, "failing")),
	           cases = json_integer_value(json_object_get(w, "cases"));
	fprintf(f,
	        "<div class=\"where\" id=\"where-%zu\">\n<p><b>%" JSON_INTEGER_FORMAT
	        "</b> of %" JSON_INTEGER_FORMAT " %s %s.</p>\n",
	        id, failing, cases, plural(cases, "case", "cases"),
	        plural(failing, "fails", "fail"));
	if (!where_findings(f, w) && failing > 1)
		fputs("<p class=\"note\">No one channel and no one value of a sweep variable holds "
		      "every failure.</p>\n",
		      f);
	const char *key;
	json_t *t;
	if (json_object_size(json_object_get(w, "along"))) {
		fputs("<table class=\"along\"><tr><th>output</th><th>along</th><th>failing "
		      "elements "
		      "per index (most first)</th></tr>\n",
		      f);
		json_object_foreach(json_object_get(w, "along"), key, t)
		{
			size_t n;
			ranked *r = ranked_of(json_object_get(t, "counts"), &n);
			fputs("<tr><td>", f);
			qc_html_esc(f, qc_json_str(t, "output"));
			fputs("</td><td>", f);
			qc_html_esc(f, qc_json_str(t, "axis"));
			fprintf(f, "%s</td><td>",
			        json_is_true(json_object_get(t, "channel")) ? " (channels)" : "");
			for (size_t i = 0; i < n && i < 16; i++) {
				fputs(i ? ", " : "", f);
				qc_html_esc(f, r[i].key);
				fprintf(f, ": %" JSON_INTEGER_FORMAT, r[i].n);
			}
			if (n > 16)
				fprintf(f, ", %zu more indices", n - 16);
			json_int_t other = json_integer_value(json_object_get(t, "other"));
			if (other)
				fprintf(f, "; %" JSON_INTEGER_FORMAT " at other indices", other);
			fputs("</td></tr>\n", f);
			free(r);
		}
		fputs("</table>\n", f);
	}
	int head = 0;
	json_object_foreach(json_object_get(w, "vars"), key, t)
	{
		size_t n;
		ranked *r = ranked_of(json_object_get(t, "vals"), &n);
		json_t *other = json_object_get(t, "other");
		json_int_t other_cases = json_integer_value(json_array_get(other, 0));
		if (n < 2 && !other_cases) { /* one value in every case that has it */
			free(r);
			continue;
		}
		if (!head++)
			fputs("<table class=\"vars\"><tr><th>sweep variable</th><th>its values in "
			      "the "
			      "failing cases (failing / cases with the value)</th><th>values with "
			      "no "
			      "failing case</th></tr>\n",
			      f);
		fputs("<tr><td><code>", f);
		qc_html_esc(f, key);
		fputs("</code></td><td>", f);
		size_t shown = 0, clean = 0;
		for (size_t i = 0; i < n; i++) {
			if (!r[i].n) {
				clean++;
				continue;
			}
			if (shown++ == 8)
				continue;
			fputs(shown > 1 ? "; <code>" : "<code>", f);
			qc_html_esc(f, r[i].key);
			fprintf(f, "</code> %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT, r[i].n,
			        r[i].m);
		}
		if (shown > 8)
			fprintf(f, "; %zu more values", shown - 8);
		json_int_t of = json_integer_value(json_array_get(other, 1));
		if (of)
			fprintf(f, "; other values %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT,
			        of, other_cases);
		fprintf(f, "</td><td class=\"n\">%zu</td></tr>\n", clean);
		free(r);
	}
	if (head)
		fputs("</table>\n", f);
	fputs("</div>\n", f);
}

/* The description of the spec at path (run.specs), or NULL. */
static const char *spec_description(json_t *r, const char *path)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(json_object_get(r, "run"), "specs"), i, s)
	{
		if (strcmp(qc_json_str(s, "path"), path) == 0)
			return json_string_value(json_object_get(s, "description"));
	}
	return NULL;
}

/* The cases of list ([index, case] pairs) whose op is `key` (any op: NULL), by spec in the
 * order each spec first comes: per spec its path and what it is for once, then its cases. */
static void cases_by_spec(FILE *f, json_t *r, json_t *list, const char *key)
{
	json_t *done = json_object();
	size_t i, j;
	json_t *c, *d;
	json_array_foreach(list, i, c)
	{
		json_t *cc = json_array_get(c, 1);
		char k[512];
		qc_html_op_slot(k, sizeof k, qc_json_str(cc, "semantics"), qc_json_str(cc, "op"));
		const char *spec = qc_json_str(cc, "spec");
		if ((key && strcmp(k, key) != 0) || json_object_get(done, spec))
			continue;
		json_object_set_new(done, spec, json_true());
		const char *why = spec_description(r, spec);
		fputs("<div class=\"spec\"><h4>spec <code>", f);
		qc_html_esc(f, spec);
		fputs("</code></h4>", f);
		if (why) {
			fputs("<p class=\"spec-what\">", f);
			qc_html_esc(f, why);
			fputs("</p>", f);
		}
		fputs("</div>\n", f);
		json_array_foreach(list, j, d)
		{
			json_t *dc = json_array_get(d, 1);
			qc_html_op_slot(k, sizeof k, qc_json_str(dc, "semantics"),
			                qc_json_str(dc, "op"));
			if ((!key || !strcmp(k, key)) && !strcmp(qc_json_str(dc, "spec"), spec))
				case_article(f, dc,
				             (size_t)json_integer_value(json_array_get(d, 0)));
		}
	}
	json_decref(done);
}

/* The op's diagnosis (README, Diagnosis): which rule explains its failures, as the console
 * says it; key is "semantics\nop". */
static void diagnosis_section(FILE *f, json_t *r, const char *key)
{
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(r, "ops"), i, o)
	{
		char k[512];
		qc_html_op_slot(k, sizeof k, qc_json_str(o, "semantics"), qc_json_str(o, "op"));
		json_t *d = json_object_get(o, "diagnosis");
		if (strcmp(k, key) || !d)
			continue;
		fputs("<div class=\"diagnosis\"><h4>Diagnosis: ", f);
		qc_html_esc(f, qc_json_str(d, "status"));
		fputs("</h4>\n<pre>", f);
		qc_html_esc(f, qc_json_str(d, "text"));
		fputs("</pre>\n", f);
		if (qc_json_str(d, "note")[0]) {
			fputs("<p class=\"note\">", f);
			qc_html_esc(f, qc_json_str(d, "note"));
			fputs("</p>\n", f);
		}
		fputs("</div>\n", f);
		return;
	}
}

/* Failing cases (up to QC_HTML_MAX_LISTED) per failing operator, each operator's breakdown
 * first; cases within tolerance (when few); the operators the plugin does not support. */
void qc_html_drill_down(FILE *f, json_t *r, const qc_html_page_cases *pc, const char *json_path)
{
	unsigned long long failing = pc->failing, within = pc->within;
	size_t i;
	json_t *c;
	fprintf(f, "<h2 id=\"failing\">Failing cases (%llu)</h2>\n", failing);
	if (!failing)
		fputs("<p class=\"note\">No case failed, errored, crashed or timed out.</p>\n", f);
	if (failing > QC_HTML_MAX_LISTED)
		fprintf(f,
		        "<p class=\"note\" id=\"more-failing\">The first %d are listed here; %llu "
		        "more failing %s in the JSON report (<code>",
		        QC_HTML_MAX_LISTED, failing - QC_HTML_MAX_LISTED,
		        failing - QC_HTML_MAX_LISTED == 1 ? "case is" : "cases are");
	if (failing > QC_HTML_MAX_LISTED) {
		qc_html_esc(f, json_path);
		fputs("</code>).</p>\n", f);
	}
	/* per failing op (the roll-up's order): where its failures are, then its listed cases */
	const char *key;
	json_t *w;
	size_t id = 0;
	json_object_foreach(pc->where, key, w)
	{
		/* the key is "semantics\nop": shown as semantics/op */
		char name[512];
		snprintf(name, sizeof name, "%s", key);
		char *nl = strchr(name, '\n');
		if (nl)
			*nl = '/';
		fprintf(f, "<section class=\"opfail\" id=\"failing-op-%zu\">\n<h3>", id);
		qc_html_esc(f, name);
		fputs("</h3>\n", f);
		diagnosis_section(f, r, key);
		where_section(f, w, id++);
		cases_by_spec(f, r, pc->failing_list, key);
		fputs("</section>\n", f);
	}
	/* listed failing cases of an op the roll-up does not name (a report edited by hand) */
	json_t *rest = json_array();
	json_array_foreach(pc->failing_list, i, c)
	{
		json_t *cc = json_array_get(c, 1);
		char k[512];
		qc_html_op_slot(k, sizeof k, qc_json_str(cc, "semantics"), qc_json_str(cc, "op"));
		if (!json_object_get(pc->where, k))
			json_array_append(rest, c);
	}
	if (json_array_size(rest))
		cases_by_spec(f, r, rest, NULL);
	json_decref(rest);
	fprintf(f, "<h2 id=\"within\">Passed within tolerance (%llu)</h2>\n", within);
	if (within > QC_HTML_MAX_WITHIN) {
		fprintf(f,
		        "<p class=\"note\">%llu cases are not bit-exact but within their spec's "
		        "tolerance; the operator table counts them per operator and the JSON "
		        "report "
		        "lists them.</p>\n",
		        within);
	} else if (!within) {
		fputs("<p class=\"note\">None: every passing case is bit-exact.</p>\n", f);
	} else {
		cases_by_spec(f, r, pc->within_list, NULL);
	}
	/* NOT_SUPPORTED: per operator, every distinct message of the plugin with its count */
	json_t *ops = json_object_get(r, "ops"), *o;
	unsigned long long ns = 0;
	json_array_foreach(ops, i, o) ns +=
	        qc_json_key_count(json_object_get(o, "verdicts"), "NOT_SUPPORTED");
	fprintf(f, "<h2 id=\"not-supported\">Not supported (%llu)</h2>\n", ns);
	if (!ns) {
		fputs("<p class=\"note\">The plugin ran every case.</p>\n", f);
		return;
	}
	fputs("<table id=\"not-supported-reasons\"><tr><th>operator</th><th class=\"n\">"
	      "cases</th><th>the plugin's message</th><th>first case</th></tr>\n",
	      f);
	json_array_foreach(ops, i, o)
	{
		unsigned long long n =
		        qc_json_key_count(json_object_get(o, "verdicts"), "NOT_SUPPORTED");
		if (!n)
			continue;
		const char *sem = qc_json_str(o, "semantics"), *op = qc_json_str(o, "op");
		char key[512];
		qc_html_op_slot(key, sizeof key, sem, op);
		const char *msg;
		json_t *e;
		json_object_foreach(json_object_get(pc->unsupported, key), msg, e)
		{
			fputs("<tr><td>", f);
			qc_html_esc(f, sem);
			fputs("/", f);
			qc_html_esc(f, op);
			fprintf(f, "</td><td class=\"n\">%lld</td><td>",
			        (long long)json_integer_value(json_array_get(e, 0)));
			qc_html_esc(f, msg);
			fputs("</td><td>", f);
			qc_html_esc(f, json_string_value(json_array_get(e, 1)));
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}
