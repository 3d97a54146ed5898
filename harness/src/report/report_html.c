/*
 * The HTML report (report_html.h): the page, its head, banners, run table, histograms, operator
 * table and waivers, and the entry points; report_html_cases.c renders the cases on it,
 * report_html_cert.c a certificate on top (report_html_internal.h: what they share).
 */
#include "report/report_html.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/afile.h"
#include "base/utf8.h"
#include "judge/compare.h"
#include "judge/where.h"
#include "report/report_html_internal.h"
#include "report/report_junit.h"

/* ---- values ---- */

/* Verdicts that fail a run (qc_verdict_conforms is 0). */
int qc_html_is_failing(int v)
{
	return v >= 0 && !qc_verdict_conforms((qc_verdict)v);
}

/* ---- escaping ---- */

/* Text and attribute values: & < > " ' escaped; C0 controls other than tab and newline, DEL,
 * U+FFFE, U+FFFF and ill-formed UTF-8 (harness/src/base/utf8.h) become U+FFFD. */
void qc_html_esc(FILE *f, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	for (size_t i = 0; i < n;) {
		int32_t cp;
		size_t k = qc_utf8_next(s + i, n - i, &cp);
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\r':
		case 0x7f: fputs("&#xFFFD;", f); break;
		default:
			if (!qc_utf8_reportable(cp))
				fputs("&#xFFFD;", f);
			else
				fwrite(s + i, 1, k, f);
		}
		i += k;
	}
}

/* ---- the page ---- */

static const char css[] =
        "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
        "margin:0;color:#1d1d1f;background:#f6f7f9}"
        "main{max-width:1200px;margin:0 auto;padding:0 20px 40px}"
        "h2{font-size:18px;margin:28px 0 10px;border-bottom:1px solid #d0d4da;padding-bottom:4px}"
        "h3{font-size:15px;margin:0 0 8px;word-break:break-all}"
        "h4{font-size:13px;margin:12px 0 4px}"
        ".banner{color:#fff;padding:18px 20px 14px}"
        ".banner.ok{background:#1b7f3b}.banner.bad{background:#b3261e}"
        ".banner .big{font-size:34px;font-weight:700;letter-spacing:.5px}"
        ".banner .sub{font-size:15px;opacity:.95;margin-top:2px;word-break:break-all}"
        ".counts{list-style:none;padding:0;margin:10px 0 0;display:flex;flex-wrap:wrap;gap:8px}"
        ".counts li{background:rgba(255,255,255,.16);border-radius:4px;padding:3px 10px}"
        ".counts li.zero{opacity:.55}.counts b{font-size:17px;margin-right:4px}"
        ".profile{border-left:6px solid;padding:8px 14px;margin:14px 0;background:#fff}"
        ".profile.ok{border-color:#1b7f3b}.profile.bad{border-color:#b3261e}"
        ".profile h2{border:0;margin:4px 0}"
        "table{border-collapse:collapse;background:#fff;font-size:13px}"
        "th,td{border:1px solid #dde1e6;padding:3px 7px;text-align:left;vertical-align:top}"
        "th{background:#eef1f4;font-weight:600}"
        "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
        "table.kv th{width:150px}table.kv td{word-break:break-all}"
        "table.ops{width:100%}table.ops td.z{color:#b0b6bd}"
        "table.ops td:nth-child(2){word-break:break-word}"
        ".meta{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}"
        ".meta table{flex:1 1 480px}"
        ".banner .failing{margin-top:10px;font-size:14px}"
        ".banner a{color:#fff}"
        "tr.bad td{background:#fdecea}tr.ns td{background:#fff8e1}"
        "table.worst tr.out td{background:#fdecea}table.worst tr.legal td{color:#555}"
        ".diagnosis{background:#fff;border:1px solid #dde1e6;border-left:6px solid #1565c0;"
        "padding:6px 14px;margin:6px 0 10px}.diagnosis pre{background:#f3f6fa;color:#1d1d1f}"
        "td.bad{color:#b3261e;font-weight:700}"
        "code,pre{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}"
        "pre{background:#1e2329;color:#e8eaed;padding:8px 10px;border-radius:4px;"
        "white-space:pre-wrap;word-break:break-all;margin:4px 0}"
        ".case{background:#fff;border:1px solid #dde1e6;border-left:6px solid #b3261e;"
        "padding:10px 14px;margin:12px 0}"
        ".case.v-PASS_WITHIN_TOLERANCE{border-left-color:#c77c02}"
        ".badge{display:inline-block;color:#fff;border-radius:3px;padding:0 6px;font-size:12px;"
        "margin-right:6px;vertical-align:1px}"
        ".v-FAIL .badge,.badge.v-FAIL{background:#b3261e}"
        ".badge.v-ERROR,.badge.v-CRASH,.badge.v-TIMEOUT{background:#6a1b9a}"
        ".badge.v-PASS_WITHIN_TOLERANCE{background:#c77c02}"
        "svg.hist{display:block;margin:4px 0}svg.mini{vertical-align:middle}"
        ".bar0{fill:#2e7d32}.barx{fill:#c62828}.barn{fill:#6a1b9a}.barl{fill:#e0a030}"
        "svg text{font:10px system-ui,sans-serif;fill:#444}"
        ".note{color:#555}.muted{color:#777}"
        "section.opfail{margin:18px 0 26px}section.opfail h3{font-size:16px;margin:0 0 6px}"
        ".where{background:#fff;border:1px solid #dde1e6;padding:8px 14px;margin:6px 0 10px}"
        ".where p{margin:4px 0}.where table{margin:6px 0}"
        "ul.findings{margin:4px 0;padding-left:22px}ul.findings li{margin:2px 0}"
        ".spec h4{margin:14px 0 2px;font-size:13px}.spec p.spec-what{margin:0 0 4px;color:#444}"
        ".cert{border:6px solid;margin:0}.cert.ok{border-color:#1b7f3b}"
        ".cert.bad{border-color:#b3261e}"
        ".certhead{color:#fff;padding:20px 22px 16px}.cert.ok .certhead{background:#1b7f3b}"
        ".cert.bad .certhead{background:#b3261e}"
        ".certhead .big{font-size:44px;font-weight:800;letter-spacing:1px}"
        ".certhead .small{font-size:13px;text-transform:uppercase;letter-spacing:1px}"
        ".certhead .sub{font-size:15px;margin-top:4px;word-break:break-all}"
        ".certhead code{color:#fff}"
        ".reasons{font-size:16px;font-weight:600;margin:10px 0 0;padding-left:22px}"
        ".certbody{background:#fff;padding:6px 22px 12px}.certbody h3{margin:14px 0 6px}";

static void head(FILE *f, json_t *run)
{
	json_t *plugin = json_object_get(run, "plugin");
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", f);
	fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
	fputs("<title>qconform report: ", f);
	qc_html_esc(f, qc_json_str(plugin, "name"));
	fputs(" ", f);
	qc_html_esc(f, qc_json_str(plugin, "version"));
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
}

static void verdict_counts(FILE *f, json_t *verdicts, const char *id_prefix)
{
	fputs("<ul class=\"counts\">", f);
	for (int v = 0; v < QC_N_VERDICTS; v++) {
		const char *name = qc_verdict_name((qc_verdict)v);
		unsigned long long n = qc_json_key_count(verdicts, name);
		fprintf(f, "<li class=\"v-%s%s\"><b id=\"%s%s\">%llu</b>%s</li>", name,
		        n ? "" : " zero", id_prefix, name, n, name);
	}
	fputs("</ul>\n", f);
}

void qc_html_op_slot(char *key, size_t n, const char *sem, const char *op)
{
	snprintf(key, n, "%s\n%s", sem, op);
}

static void page_cases_free(qc_html_page_cases *pc)
{
	json_decref(pc->failing_list);
	json_decref(pc->within_list);
	json_decref(pc->waived);
	json_decref(pc->unsupported);
	json_decref(pc->where);
}

static void page_case(qc_html_page_cases *pc, json_t *c, size_t i)
{
	char key[512];
	const char *verdict = qc_json_str(c, "verdict");
	int v = qc_verdict_of_name(verdict);
	qc_html_op_slot(key, sizeof key, qc_json_str(c, "semantics"), qc_json_str(c, "op"));
	if (qc_html_is_failing(v) && pc->failing++ < QC_HTML_MAX_LISTED)
		json_array_append_new(pc->failing_list, json_pack("[IO]", (json_int_t)i, c));
	if (v == QC_PASS_WITHIN_TOLERANCE && pc->within++ < QC_HTML_MAX_WITHIN)
		json_array_append_new(pc->within_list, json_pack("[IO]", (json_int_t)i, c));
	else if (v == QC_PASS_WITHIN_TOLERANCE)
		json_array_clear(pc->within_list); /* too many: counted only */
	if (json_object_get(c, "waived"))
		json_object_set_new(
		        pc->waived, key,
		        json_integer(json_integer_value(json_object_get(pc->waived, key)) + 1));
	json_t *where = json_object_get(pc->where, key);
	if (where)
		qc_where_add(where, c, qc_html_is_failing(v));
	if (strcmp(verdict, "NOT_SUPPORTED") != 0)
		return;
	/* every distinct message of the op, in the order first given, with its count */
	json_t *seen = json_object_get(pc->unsupported, key);
	if (!seen)
		json_object_set_new(pc->unsupported, key, seen = json_object());
	const char *msg = qc_json_str(c, "message");
	json_t *e = json_object_get(seen, msg);
	if (e)
		json_array_set_new(e, 0,
		                   json_integer(json_integer_value(json_array_get(e, 0)) + 1));
	else
		json_object_set_new(seen, msg, json_pack("[iO]", 1, json_object_get(c, "name")));
}

/* Reads every case of rep into pc. 0, or -1 with the reason in err. */
static int page_cases_read(qc_html_page_cases *pc, qc_report *rep, char *err, size_t errsz)
{
	memset(pc, 0, sizeof *pc);
	pc->failing_list = json_array();
	pc->within_list = json_array();
	pc->waived = json_object();
	pc->unsupported = json_object();
	/* a breakdown for each op the roll-up says fails */
	pc->where = json_object();
	size_t k;
	json_t *o;
	json_array_foreach(json_object_get(qc_report_doc(rep), "ops"), k, o)
	{
		json_t *v = json_object_get(o, "verdicts");
		unsigned long long bad = 0;
		for (int x = 0; x < QC_N_VERDICTS; x++)
			if (qc_html_is_failing(x))
				bad += qc_json_key_count(v, qc_verdict_name((qc_verdict)x));
		char key[512];
		qc_html_op_slot(key, sizeof key, qc_json_str(o, "semantics"), qc_json_str(o, "op"));
		if (bad && !json_object_get(pc->where, key))
			json_object_set_new(pc->where, key, qc_where_new());
	}
	json_t *c;
	int rc;
	size_t i = 0;
	qc_report_rewind(rep);
	while ((rc = qc_report_next(rep, &c, err, errsz)) > 0) {
		page_case(pc, c, i++);
		json_decref(c);
	}
	return rc;
}

/* Failing cases of semantics/op that a waiver accepted (the case's "waived"; issue 6). */
static unsigned long long waived_in(json_t *r, const qc_html_page_cases *pc, const char *sem,
                                    const char *op)
{
	if (!qc_json_key_count(json_object_get(r, "summary"), "waived"))
		return 0;
	char key[512];
	qc_html_op_slot(key, sizeof key, sem, op);
	return (unsigned long long)json_integer_value(json_object_get(pc->waived, key));
}

static void banner(FILE *f, json_t *r, const qc_html_page_cases *pc)
{
	json_t *summary = json_object_get(r, "summary");
	json_t *plugin = json_object_get(json_object_get(r, "run"), "plugin");
	int ok = json_is_true(json_object_get(summary, "conforms"));
	json_t *intr = json_object_get(r, "interrupted");
	char ws[32];
	fprintf(f, "<header class=\"banner %s\">\n<div class=\"big\" id=\"verdict\">%s</div>\n",
	        ok ? "ok" : "bad",
	        json_is_object(intr) ? "INTERRUPTED"
	        : ok                 ? "CONFORMS"
	                             : "DOES NOT CONFORM");
	if (json_is_object(intr)) {
		/* a partial run: what finished, and how to go on */
		char by[64];
		fputs("<div class=\"sub\" id=\"interrupted\">stopped by ", f);
		qc_html_esc(f, qc_report_stopped_by(intr, by, sizeof by));
		unsigned long long planned = qc_json_key_count(intr, "cases_planned");
		fprintf(f,
		        " after <b>%llu</b> of %llu case%s: the cases below are the ones that "
		        "finished",
		        qc_json_key_count(intr, "cases_done"), planned, planned == 1 ? "" : "s");
		if (json_is_string(json_object_get(intr, "journal"))) {
			fputs("; resume with <code>qconform run --resume ", f);
			qc_html_esc(f, qc_json_str(intr, "journal"));
			fputs("</code>", f);
		}
		fputs("</div>\n", f);
	}
	fputs("<div class=\"sub\">plugin <b>", f);
	qc_html_esc(f, qc_json_str(plugin, "name"));
	fputs("</b> ", f);
	qc_html_esc(f, qc_json_str(plugin, "version"));
	unsigned long long total = qc_json_key_count(summary, "cases");
	fprintf(f, " &middot; <b id=\"total-cases\">%llu</b> case%s in %s s &middot; %s</div>\n",
	        total, total == 1 ? "" : "s",
	        qc_json_num_text(ws, sizeof ws, json_object_get(summary, "wall_seconds")),
	        ok ? "every verdict allowed" : "failing cases are listed below");
	verdict_counts(f, json_object_get(summary, "verdicts"), "count-");
	/* where it failed: each operator with failing cases, linked to its table row */
	size_t i, shown = 0;
	json_t *o;
	json_array_foreach(json_object_get(r, "ops"), i, o)
	{
		json_t *v = json_object_get(o, "verdicts");
		unsigned long long bad = 0;
		for (int k = 0; k < QC_N_VERDICTS; k++)
			if (qc_html_is_failing(k))
				bad += qc_json_key_count(v, qc_verdict_name((qc_verdict)k));
		bad -= waived_in(r, pc, qc_json_str(o, "semantics"), qc_json_str(o, "op"));
		if (!bad)
			continue;
		if (shown++ == 12) {
			fputs(" &middot; more in the operator table", f);
			break;
		}
		fputs(shown == 1 ? "<div class=\"failing\">Failing: " : " &middot; ", f);
		fprintf(f, "<a href=\"#op-%zu\">", i);
		qc_html_esc(f, qc_json_str(o, "semantics"));
		fputs("/", f);
		qc_html_esc(f, qc_json_str(o, "op"));
		fprintf(f, "</a> (%llu of %llu)", bad, qc_json_key_count(o, "cases"));
	}
	if (shown)
		fputs("</div>\n", f);
	unsigned long long waived = qc_json_key_count(summary, "waived");
	if (waived)
		fprintf(f,
		        "<div class=\"failing\"><b id=\"waived\">%llu</b> failing %s accepted by a "
		        "waiver: <a href=\"#waivers\">waivers</a></div>\n",
		        waived, waived == 1 ? "case" : "cases");
	fputs("</header>\n<main>\n", f);
}

/* waived_in for a profile's "semantics/op" */
static unsigned long long op_waived(json_t *r, const qc_html_page_cases *pc, const char *sem_op)
{
	const char *slash = strchr(sem_op, '/');
	if (!slash)
		return 0;
	char sem[64];
	snprintf(sem, sizeof sem, "%.*s", (int)(slash - sem_op), sem_op);
	return waived_in(r, pc, sem, slash + 1);
}

/* The profile's verdict: every required op ran, none NOT_SUPPORTED or failing, and at least
 * min_cases cases (README.md, "Certificates"; specs/README.md, "Profiles"). */
static void profile_banner(FILE *f, json_t *r, const qc_html_page_cases *pc)
{
	json_t *p = json_object_get(r, "profile");
	if (!json_is_object(p))
		return;
	json_t *ops = json_object_get(p, "required_ops");
	unsigned long long cases = qc_json_key_count(p, "cases"),
	                   min = qc_json_key_count(p, "min_cases");
	int ok = json_is_true(json_object_get(json_object_get(r, "summary"), "conforms")) &&
	         cases >= min;
	size_t i;
	json_t *o;
	json_array_foreach(ops, i, o)
	{
		json_t *v = json_object_get(o, "verdicts");
		unsigned long long bad = 0;
		for (int k = 0; k < QC_N_VERDICTS; k++)
			if (qc_html_is_failing(k) || k == QC_NOT_SUPPORTED)
				bad += qc_json_key_count(v, qc_verdict_name((qc_verdict)k));
		bad -= op_waived(r, pc, qc_json_str(o, "op"));
		if (!qc_json_key_count(o, "cases") || bad)
			ok = 0;
	}
	fprintf(f, "<section class=\"profile %s\" id=\"profile\">\n<h2>Profile ",
	        ok ? "ok" : "bad");
	qc_html_esc(f, qc_json_str(p, "name"));
	fprintf(f, ": <span id=\"profile-verdict\">%s</span></h2>\n",
	        ok ? "CONFORMS" : "DOES NOT CONFORM");
	fprintf(f, "<p><b>%llu</b> case%s (the profile asks for at least %llu)%s. ", cases,
	        cases == 1 ? "" : "s", min, cases < min ? ": <b>too few</b>" : "");
	fprintf(f, "%zu required operators:</p>\n", json_array_size(ops));
	fputs("<table><tr><th>operator</th><th class=\"n\">cases</th>", f);
	for (int k = 0; k < QC_N_VERDICTS; k++)
		fprintf(f, "<th class=\"n\">%s</th>", qc_verdict_name((qc_verdict)k));
	fputs("<th>status</th></tr>\n", f);
	json_array_foreach(ops, i, o)
	{
		json_t *v = json_object_get(o, "verdicts");
		const char *why = NULL;
		if (!qc_json_key_count(o, "cases"))
			why = "no cases ran";
		else if (qc_json_key_count(v, "NOT_SUPPORTED"))
			why = "not supported";
		unsigned long long failing = 0, waived = op_waived(r, pc, qc_json_str(o, "op"));
		for (int k = 0; k < QC_N_VERDICTS; k++)
			if (qc_html_is_failing(k))
				failing += qc_json_key_count(v, qc_verdict_name((qc_verdict)k));
		if (!why && failing > waived)
			why = "failing cases";
		fprintf(f, "<tr%s><td>", why ? " class=\"bad\"" : "");
		qc_html_esc(f, qc_json_str(o, "op"));
		fprintf(f, "</td><td class=\"n\">%llu</td>", qc_json_key_count(o, "cases"));
		for (int k = 0; k < QC_N_VERDICTS; k++) {
			unsigned long long n = qc_json_key_count(v, qc_verdict_name((qc_verdict)k));
			fprintf(f, "<td class=\"n%s\">%llu</td>", n ? "" : " z", n);
		}
		if (why || !waived)
			fprintf(f, "<td>%s</td></tr>\n", why ? why : "ok");
		else
			fprintf(f, "<td>ok (%llu waived)</td></tr>\n", waived);
	}
	fputs("</table>\n</section>\n", f);
}

void qc_html_kv_row(FILE *f, const char *key, const char *value, int code)
{
	fprintf(f, "<tr><th>%s</th><td>%s", key, code ? "<code>" : "");
	qc_html_esc(f, value);
	fprintf(f, "%s</td></tr>\n", code ? "</code>" : "");
}

/* The engines that ran the judged cases as the plugin reported them (engine()), and the
 * requirement on them: a row when either is there. */
void qc_html_engine_row(FILE *f, json_t *engines, const char *require)
{
	if (!json_is_object(engines) && !*require)
		return;
	char line[400];
	size_t used = 0;
	const char *kind;
	json_t *n;
	line[0] = '\0';
	json_object_foreach(engines, kind, n) if (used < sizeof line) used +=
	        (size_t)snprintf(line + used, sizeof line - used, "%s%s %lld", used ? ", " : "",
	                         kind, (long long)json_integer_value(n));
	if (*require && used < sizeof line)
		snprintf(line + used, sizeof line - used, "%srequired: %s", used ? "; " : "",
		         require);
	qc_html_kv_row(f, "engines (reported by the plugin, not verified)", line, 0);
}

/* The plugin's identity rows, in the run table and in a certificate. */
void qc_html_plugin_rows(FILE *f, json_t *plugin)
{
	char buf[64];
	/* what the device reported (--remote, or an offline runner's records) is said to be so,
	 * on the row itself */
	int dev = !strcmp(qc_json_str(plugin, "sha256_source"), "device");
	int rec = !strcmp(qc_json_str(plugin, "sha256_source"), "records");
	qc_html_kv_row(
	        f, rec ? "plugin (as the runner recorded it, reported by the device)" : "plugin",
	        qc_json_str(plugin, "name"), 0);
	qc_html_kv_row(f, rec ? "plugin version (reported by the device)" : "plugin version",
	               qc_json_str(plugin, "version"), 0);
	snprintf(buf, sizeof buf, "%llu", qc_json_key_count(plugin, "abi_version"));
	qc_html_kv_row(f, rec ? "plugin ABI (reported by the device)" : "plugin ABI", buf, 0);
	qc_html_kv_row(f,
	               dev   ? "plugin path (reported by the device)"
	               : rec ? "the runner's records (offline)"
	                     : "plugin path",
	               qc_json_str(plugin, "path"), 1);
	qc_html_kv_row(f,
	               dev   ? "plugin sha256 (reported by the device, not verified by the harness)"
	               : rec ? "sha256 of the runner's records (computed by the harness)"
	                     : "plugin sha256 (computed by the harness)",
	               qc_json_str(plugin, "sha256"), 1);
	json_t *pf = json_object_get(plugin, "platform");
	if (pf) {
		int pdev = !strcmp(qc_json_str(pf, "source"), "device");
		char line[700];
		snprintf(line, sizeof line, "%s, %s%s%s", qc_json_str(pf, "machine"),
		         qc_json_str(pf, "system"), *qc_json_str(pf, "cpu") ? "; " : "",
		         qc_json_str(pf, "cpu"));
		qc_html_kv_row(f,
		               pdev ? "ran on (reported by the device)"
		                    : "ran on (seen by the harness)",
		               line, 0);
		if (*qc_json_str(pf, "emulation"))
			qc_html_kv_row(f, "EMULATED", qc_json_str(pf, "emulation"), 0);
	}
	const char *sb = qc_json_str(plugin, "sandbox");
	if (*sb) {
		char line[400];
		int weak = !strcmp(qc_json_str(plugin, "sandbox_isolation"), "reduced");
		snprintf(line, sizeof line, "%s%s", weak ? "WEAKER, no namespaces: " : "", sb);
		qc_html_kv_row(f, "sandbox", line, 0);
	}
	json_t *opts = json_object_get(plugin, "options");
	if (json_array_size(opts) == 0) {
		qc_html_kv_row(f, "plugin options", "none", 0);
		return;
	}
	fputs("<tr><th>plugin options</th><td><code>", f);
	size_t i;
	json_t *o;
	json_array_foreach(opts, i, o)
	{
		if (i)
			fputc(' ', f);
		qc_html_esc(f, json_string_value(o) ? json_string_value(o) : "");
	}
	fputs("</code></td></tr>\n", f);
}

/* One table row per spec file: path, sha256, cases (the run's and the certificate's lists). */
void qc_html_spec_rows(FILE *f, json_t *specs)
{
	size_t i;
	json_t *x;
	json_array_foreach(specs, i, x)
	{
		fputs("<tr><td>", f);
		qc_html_esc(f, qc_json_str(x, "path"));
		fputs("</td><td><code>", f);
		qc_html_esc(f, qc_json_str(x, "sha256"));
		fprintf(f, "</code></td><td class=\"n\">%llu</td></tr>\n",
		        qc_json_key_count(x, "cases"));
	}
}

/* The seed row: an integer as is, a seed read back as a double (above 2^63) as a number. */
void qc_html_kv_seed(FILE *f, json_t *seed)
{
	char buf[64];
	if (json_is_integer(seed))
		snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(seed));
	else
		qc_json_num_text(buf, sizeof buf, seed);
	qc_html_kv_row(f, "seed", buf, 0);
}

static void metadata(FILE *f, json_t *r, const char *json_path)
{
	json_t *run = json_object_get(r, "run"), *summary = json_object_get(r, "summary");
	json_t *plugin = json_object_get(run, "plugin");
	char buf[64];
	fputs("<h2 id=\"run\">Run</h2>\n<div class=\"meta\"><table class=\"kv\">\n", f);
	qc_html_kv_row(f, "qconform", qc_json_str(run, "qconform_version"), 0);
	qc_html_kv_seed(f, json_object_get(run, "seed"));
	qc_html_kv_row(f, "started", qc_json_str(run, "started"), 0);
	qc_html_kv_row(f, "finished", qc_json_str(summary, "finished"), 0);
	qc_html_kv_row(f, "host", qc_json_str(run, "host"), 0);
	qc_html_kv_row(f, "command", qc_json_str(run, "command"), 1);
	qc_html_kv_row(f, "timeout per case",
	               qc_json_num_text(buf, sizeof buf, json_object_get(run, "timeout_seconds")),
	               0);
	json_t *prof = json_object_get(run, "profile");
	qc_html_kv_row(f, "profile", json_is_string(prof) ? json_string_value(prof) : "(none)", 0);
	json_t *filters = json_object_get(run, "filters");
	fputs("<tr><th>filters</th><td>", f);
	size_t i;
	json_t *x;
	json_array_foreach(filters, i, x)
	{
		fputs(i ? ", <code>" : "<code>", f);
		qc_html_esc(f, json_string_value(x));
		fputs("</code>", f);
	}
	if (!json_array_size(filters))
		fputs("(none: every case)", f);
	fputs("</td></tr>\n", f);
	json_t *names = json_object_get(run, "case_names");
	if (json_array_size(names)) {
		fputs("<tr><th>cases named</th><td>", f);
		json_array_foreach(names, i, x)
		{
			fputs(i ? ", <code>" : "<code>", f);
			qc_html_esc(f, json_string_value(x));
			fputs("</code>", f);
		}
		fputs("</td></tr>\n", f);
	}
	json_t *shard = json_object_get(run, "shard");
	if (json_is_object(shard)) {
		snprintf(buf, sizeof buf, "%llu of %llu", qc_json_key_count(shard, "index"),
		         qc_json_key_count(shard, "count"));
		qc_html_kv_row(f, "shard", buf, 0);
	}
	if (json_object_get(run, "merged_shards")) {
		snprintf(buf, sizeof buf, "merged from %llu shard reports",
		         qc_json_key_count(run, "merged_shards"));
		qc_html_kv_row(f, "shards", buf, 0);
	}
	fputs("</table>\n<table class=\"kv\">\n", f);
	qc_html_plugin_rows(f, plugin);
	qc_html_engine_row(f, json_object_get(summary, "engines"),
	                   qc_json_str(run, "require_engine"));
	qc_html_kv_row(f, "JSON report", json_path, 1);
	fputs("</table></div>\n", f);
	json_t *specs = json_object_get(run, "specs");
	unsigned long long total = 0;
	json_array_foreach(specs, i, x) total += qc_json_key_count(x, "cases");
	fprintf(f,
	        "<details id=\"specs\"><summary>%zu spec file%s, %llu case%s (path, sha256, "
	        "cases of each)</summary>\n<table><tr><th>spec</th><th>sha256</th><th "
	        "class=\"n\">cases</th></tr>\n",
	        json_array_size(specs), json_array_size(specs) == 1 ? "" : "s", total,
	        total == 1 ? "" : "s");
	qc_html_spec_rows(f, specs);
	fputs("</table></details>\n", f);
}

/* ---- histograms as SVG ---- */

/* The unit of a report's metrics, as one of qconform's own names ("?" otherwise). */
const char *qc_html_safe_unit(const char *u)
{
	for (int k = QC_UNIT_LSB; k <= QC_UNIT_ULP; k++)
		if (!strcmp(u, qc_unit_name((qc_unit)k)))
			return qc_unit_name((qc_unit)k);
	return "?";
}

static int hist_counts(json_t *hist, unsigned long long c[QC_HIST_BINS])
{
	int n = 0;
	for (int b = 0; b < QC_HIST_BINS; b++) {
		c[b] = qc_json_key_count(hist, qc_hist_labels[b]);
		n += c[b] != 0;
	}
	return n;
}

static const char *bar_class(int b)
{
	return b == 7 ? "bar0" : b == QC_HIST_NAN ? "barn" : "barx";
}

/* Bar height on a log scale: 1 element still shows, the largest bin fills h. */
static double bar_height(unsigned long long c, unsigned long long max, double h)
{
	if (!c)
		return 0;
	double v = log1p((double)c) / log1p((double)max) * h;
	return v < 2 ? 2 : v;
}

/* One bar of bin b (count c, of which out outside the legal band; out = c without the band's
 * histogram): the legal roundings' part amber on top, the part outside the band in the bin's
 * colour below. */
static void bar(FILE *f, const char *cls, int b, double x, double base, double width, double bh,
                unsigned long long c, unsigned long long out)
{
	double oh = c ? bh * (double)out / (double)c : 0, lh = bh - oh;
	if (out < c && b != 7)
		fprintf(f,
		        "<rect class=\"%sbarl\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		        "height=\"%.1f\">"
		        "<title>e %s: %llu, %llu of them legal roundings</title></rect>",
		        cls, x, base - bh, width, lh, qc_hist_labels[b], c, c - out);
	if (out || b == 7)
		fprintf(f,
		        "<rect class=\"%s%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
		        "<title>e %s: %llu%s</title></rect>",
		        cls, bar_class(b), x, base - (b == 7 ? bh : oh), width, b == 7 ? bh : oh,
		        qc_hist_labels[b], c,
		        b == 7 || out == c ? ""
		                           : " (the lower part: outside "
		                             "the legal band)");
}

/* The part of each bin outside the legal band: the band's histogram, or the whole bin. */
static void outside_counts(json_t *outside, const unsigned long long *c,
                           unsigned long long o[QC_HIST_BINS])
{
	for (int b = 0; b < QC_HIST_BINS; b++)
		o[b] = outside ? qc_json_key_count(outside, qc_hist_labels[b]) : c[b];
}

/* A small histogram for the operator table: one bar per non-empty bin (log scale), the bins
 * labelled below the axis (<=-65, 0, >=65 and nf, the non-finite errors), the largest bin's
 * count beside the top; a bin's legal roundings (outside: the band's histogram) in amber. */
static void mini_hist(FILE *f, json_t *hist, json_t *outside, const char *unit)
{
	unsigned long long c[QC_HIST_BINS], o[QC_HIST_BINS], max = 0;
	hist_counts(hist, c);
	outside_counts(outside, c, o);
	for (int b = 0; b < QC_HIST_BINS; b++)
		max = c[b] > max ? c[b] : max;
	const int bw = 8, w = QC_HIST_BINS * bw; /* a bin's width, all the bins' */
	fprintf(f,
	        "<svg class=\"mini\" width=\"%d\" height=\"34\" viewBox=\"0 0 %d 34\" "
	        "role=\"img\"><title>elements per error bin (e in %s), log scale; the largest "
	        "bin: %llu</title><line x1=\"0\" y1=\"21.5\" x2=\"%d\" y2=\"21.5\" "
	        "stroke=\"#bbb\"/>",
	        w + 34, w + 34, unit, max, w);
	for (int b = 0; b < QC_HIST_BINS; b++) {
		if (!c[b])
			continue;
		bar(f, "", b, b * bw + 1, 21, bw - 2, bar_height(c[b], max, 20), c[b], o[b]);
	}
	/* ticks under the first, the zero, the last finite and the non-finite bin */
	static const struct {
		int bin;
		const char *anchor, *text;
	} ticks[] = {{0, "start", "&#8804;-65"},
	             {7, "middle", "0"},
	             {14, "end", "&#8805;65"},
	             {QC_HIST_NAN, "start", "nf"}};
	for (size_t t = 0; t < sizeof ticks / sizeof ticks[0]; t++) {
		int b = ticks[t].bin;
		double x = !strcmp(ticks[t].anchor, "start") ? b * bw + (b ? 2 : 0)
		           : !strcmp(ticks[t].anchor, "end") ? (b + 1) * bw
		                                             : b * bw + bw / 2.0;
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"22\" x2=\"%.1f\" y2=\"24\" stroke=\"#bbb\"/>"
		        "<text x=\"%.1f\" y=\"32\" text-anchor=\"%s\" font-size=\"8\">%s</text>",
		        b * bw + bw / 2.0, b * bw + bw / 2.0, x, ticks[t].anchor, ticks[t].text);
	}
	if (max)
		fprintf(f, "<text x=\"%d\" y=\"9\" font-size=\"8\" class=\"mini-max\">%llu</text>",
		        w + 3, max);
	fputs("</svg>", f);
}

/* The histogram of one case's output: every bin labelled, a bar with its count per
 * non-empty bin (class "bar"), log scale; a bin's legal roundings (outside: the band's
 * histogram) in amber above the elements outside the band. */
void qc_html_case_hist(FILE *f, json_t *hist, json_t *outside, const char *unit)
{
	unsigned long long c[QC_HIST_BINS], o[QC_HIST_BINS], max = 0;
	int n = hist_counts(hist, c);
	outside_counts(outside, c, o);
	for (int b = 0; b < QC_HIST_BINS; b++)
		max = c[b] > max ? c[b] : max;
	const int w = 46, top = 16, h = 90, width = QC_HIST_BINS * w;
	fprintf(f,
	        "<svg class=\"hist\" data-bins=\"%d\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
	        "%d\" role=\"img\"><title>error histogram (%s), elements per bin, log "
	        "scale</title>",
	        n, width, top + h + 30, width, top + h + 30, unit);
	fprintf(f, "<line x1=\"0\" y1=\"%d.5\" x2=\"%d\" y2=\"%d.5\" stroke=\"#999\"/>", top + h,
	        width, top + h);
	for (int b = 0; b < QC_HIST_BINS; b++) {
		double x = b * w;
		if (c[b]) {
			double bh = bar_height(c[b], max, h);
			bar(f, "bar ", b, x + 4, top + h, w - 8, bh, c[b], o[b]);
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"middle\">%llu</text>",
			        x + w / 2.0, top + h - bh - 3, c[b]);
		}
		fprintf(f, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">", x + w / 2.0,
		        top + h + 13);
		qc_html_esc(f, qc_hist_labels[b]);
		fputs("</text>", f);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">e in %s</text></svg>\n", width,
	        top + h + 27, unit);
}

/* ---- the operator table ---- */

static const int op_cols[] = {
        QC_PASS,    QC_PASS_WITHIN_TOLERANCE, QC_FAIL,           QC_ERROR,           QC_CRASH,
        QC_TIMEOUT, QC_NOT_SUPPORTED,         QC_EXPECTED_ERROR, QC_NONDETERMINISTIC};
static const char *const op_heads[] = {"pass",    "within", "fail",     "error",  "crash",
                                       "timeout", "n/s",    "exp. err", "nondet."};

static void ops_table(FILE *f, json_t *r)
{
	json_t *ops = json_object_get(r, "ops");
	fprintf(f,
	        "<h2 id=\"ops\">Operators (%zu)</h2>\n<p class=\"note\">Errors e are in the "
	        "output's unit: lsb for quantized outputs, steps of the scale for fake-quantized "
	        "float outputs, ulp for other floats. The histogram bins run from &le;-65 through "
	        "0 (green) to &ge;65, then non-finite; log scale.</p>\n",
	        json_array_size(ops));
	fputs("<table class=\"ops\"><thead><tr><th>semantics</th><th>op</th><th "
	      "class=\"n\">cases</th>",
	      f);
	for (size_t k = 0; k < sizeof op_heads / sizeof op_heads[0]; k++)
		fprintf(f, "<th class=\"n\">%s</th>", op_heads[k]);
	fputs("<th>max |e|</th><th>errors: elements per bin of e (log scale)</th></tr></thead>\n"
	      "<tbody>\n",
	      f);
	size_t i;
	json_t *o;
	json_array_foreach(ops, i, o)
	{
		json_t *v = json_object_get(o, "verdicts");
		unsigned long long bad = 0;
		for (int k = 0; k < QC_N_VERDICTS; k++)
			if (qc_html_is_failing(k))
				bad += qc_json_key_count(v, qc_verdict_name((qc_verdict)k));
		int ns = qc_json_key_count(v, "NOT_SUPPORTED") != 0;
		fprintf(f, "<tr id=\"op-%zu\"%s><td>", i,
		        bad  ? " class=\"bad\""
		        : ns ? " class=\"ns\""
		             : "");
		qc_html_esc(f, qc_json_str(o, "semantics"));
		fputs("</td><td>", f);
		qc_html_esc(f, qc_json_str(o, "op"));
		fprintf(f, "</td><td class=\"n\">%llu</td>", qc_json_key_count(o, "cases"));
		for (size_t k = 0; k < sizeof op_cols / sizeof op_cols[0]; k++) {
			unsigned long long n =
			        qc_json_key_count(v, qc_verdict_name((qc_verdict)op_cols[k]));
			fprintf(f, "<td class=\"n%s\">%llu</td>",
			        !n                               ? " z"
			        : qc_html_is_failing(op_cols[k]) ? " bad"
			                                         : "",
			        n);
		}
		json_t *outs = json_object_get(o, "outputs"), *m;
		size_t k;
		fputs("<td>", f);
		json_array_foreach(outs, k, m)
		{
			char b[32];
			if (k)
				fputs("<br>", f);
			if (json_array_size(outs) > 1) {
				qc_html_esc(f, qc_json_str(m, "name"));
				fputs(": ", f);
			}
			fprintf(f, "%s ",
			        qc_json_num_text(b, sizeof b, json_object_get(m, "max_abs")));
			qc_html_esc(f, qc_json_str(m, "unit"));
		}
		if (!json_array_size(outs))
			fputs("&ndash;", f);
		fputs("</td><td>", f);
		json_array_foreach(outs, k, m)
		{
			if (k)
				fputs("<br>", f);
			mini_hist(f, json_object_get(m, "histogram"),
			          json_object_get(m, "histogram_outside_band"),
			          qc_html_safe_unit(qc_json_str(m, "unit")));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* Every waiver of the run's waiver file, used or not, and what it did. */
static void waivers(FILE *f, json_t *r)
{
	json_t *ws = json_object_get(r, "waivers");
	if (!json_is_array(ws))
		return;
	fprintf(f,
	        "<h2 id=\"waivers\">Waivers (%zu)</h2>\n<table><tr><th>cases</th><th>reason</th>"
	        "<th>expires</th><th class=\"n\">matched</th><th class=\"n\">applied</th></tr>\n",
	        json_array_size(ws));
	size_t i;
	json_t *w;
	json_array_foreach(ws, i, w)
	{
		int expired = json_is_true(json_object_get(w, "expired"));
		fprintf(f, "<tr%s><td><code>", expired ? " class=\"bad\"" : "");
		qc_html_esc(f, qc_json_str(w, "case"));
		fputs("</code></td><td>", f);
		qc_html_esc(f, qc_json_str(w, "reason"));
		fputs("</td><td>", f);
		json_t *e = json_object_get(w, "expires");
		qc_html_esc(f, json_is_string(e) ? json_string_value(e) : "never");
		fprintf(f, "%s</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td></tr>\n",
		        expired ? " (expired: fails the run)" : "", qc_json_key_count(w, "matched"),
		        qc_json_key_count(w, "applied"));
	}
	fputs("</table>\n", f);
}

/* ---- the entry points ---- */

int qc_html_write_doc(qc_report *rep, const char *json_path, const char *html_path, char *err,
                      size_t errsz)
{
	return qc_html_write_cert(rep, NULL, json_path, html_path, err, errsz);
}

int qc_html_write_cert(qc_report *rep, json_t *cert, const char *json_path, const char *html_path,
                       char *err, size_t errsz)
{
	qc_html_page_cases pc;
	if (page_cases_read(&pc, rep, err, errsz) != 0) {
		page_cases_free(&pc);
		return -1;
	}
	json_t *r = qc_report_doc(rep);
	qc_afile af;
	if (qc_afile_open(&af, html_path, err, errsz) != 0) {
		page_cases_free(&pc);
		return -1;
	}
	FILE *f = af.f;
	json_t *run = json_object_get(r, "run");
	head(f, run);
	if (cert)
		qc_html_certificate(f, cert);
	banner(f, r, &pc);
	profile_banner(f, r, &pc);
	metadata(f, r, json_path);
	ops_table(f, r);
	waivers(f, r);
	qc_html_drill_down(f, r, &pc, json_path);
	fputs("<p class=\"muted\">Generated by qconform ", f);
	qc_html_esc(f, qc_json_str(run, "qconform_version"));
	fputs(" from <code>", f);
	qc_html_esc(f, json_path);
	fputs("</code>.</p>\n</main>\n</body>\n</html>\n", f);
	page_cases_free(&pc);
	return qc_afile_commit(&af, err, errsz);
}

int qc_html_write(const char *json_path, const char *html_path, char *err, size_t errsz)
{
	qc_report *r = qc_report_open(json_path, err, errsz);
	if (!r)
		return -1;
	int rc = qc_html_write_doc(r, json_path, html_path, err, errsz);
	qc_report_close(r);
	return rc;
}

typedef struct junit_job {
	const char *json_path, *xml_path;
	int rc;
	char err[1024];
} junit_job;

static void *junit_main(void *arg)
{
	junit_job *j = arg;
	j->rc = qc_junit_write(j->json_path, j->xml_path, j->err, sizeof j->err);
	return NULL;
}

int qc_render_reports(qc_report *rep, const char *json_path, const char *html_path,
                      const char *junit_path, const char *prefix)
{
	char err[1024];
	int rc = 0;
	junit_job jj = {json_path, junit_path, 0, ""};
	pthread_t t;
	int threaded = html_path && junit_path && pthread_create(&t, NULL, junit_main, &jj) == 0;
	if (html_path && qc_html_write_doc(rep, json_path, html_path, err, sizeof err) != 0)
		rc = -1;
	if (threaded)
		pthread_join(t, NULL);
	else if (junit_path)
		jj.rc = qc_junit_write_doc(rep, junit_path, jj.err, sizeof jj.err);
	if (html_path && rc == 0)
		printf("html: %s\n", html_path);
	if (junit_path && jj.rc == 0)
		printf("junit: %s\n", junit_path);
	if (rc != 0)
		fprintf(stderr, "%s%s\n", prefix, err);
	if (junit_path && jj.rc != 0)
		fprintf(stderr, "%s%s\n", prefix, jj.err);
	return rc != 0 || (junit_path && jj.rc != 0) ? -1 : 0;
}
