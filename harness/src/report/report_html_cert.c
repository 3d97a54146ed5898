/* The certificate on top of the HTML page (report_html.c; qc_html_write_cert). */
#include "report/report_html_internal.h"

#include <stdio.h>
#include <string.h>

#include "judge/compare.h"

/* ---- the certificate (qconform certify; harness/src/gate/certify.c) ---- */

static void cert_kv_count(FILE *f, const char *key, unsigned long long n)
{
	fprintf(f, "<tr><th>%s</th><td>%llu</td></tr>\n", key, n);
}

void qc_html_certificate(FILE *f, json_t *c)
{
	int ok = json_is_true(json_object_get(c, "certified"));
	json_t *p = json_object_get(c, "profile"), *plugin = json_object_get(c, "plugin");
	json_t *reasons = json_object_get(c, "reasons"), *waived = json_object_get(c, "waived");
	fprintf(f,
	        "<section class=\"cert %s\" id=\"certificate\">\n<div class=\"certhead\">"
	        "<div class=\"small\">qconform certificate &middot; profile <b>",
	        ok ? "ok" : "bad");
	qc_html_esc(f, qc_json_str(p, "name"));
	fprintf(f, "</b></div>\n<div class=\"big\" id=\"certificate-verdict\">%s</div>\n",
	        ok ? "CERTIFIED" : "NOT CERTIFIED");
	fputs("<div class=\"sub\">plugin <b>", f);
	qc_html_esc(f, qc_json_str(plugin, "name"));
	fputs("</b> ", f);
	qc_html_esc(f, qc_json_str(plugin, "version"));
	fputs(" &middot; sha256 <code>", f);
	qc_html_esc(f, qc_json_str(plugin, "sha256"));
	fputs("</code>", f);
	if (!strcmp(qc_json_str(plugin, "sha256_source"), "device"))
		fputs(" <b>(reported by the device, not verified)</b>", f);
	else if (!strcmp(qc_json_str(plugin, "sha256_source"), "records"))
		fputs(" <b>(offline: the sha256 of the runner's records; the plugin's name, "
		      "version "
		      "and ABI are what the device's runner recorded)</b>",
		      f);
	fprintf(f, " &middot; %llu cases (the profile needs %llu)</div>\n",
	        qc_json_key_count(c, "cases"), qc_json_key_count(p, "min_cases"));
	if (json_array_size(reasons)) {
		fprintf(f, "<ol class=\"reasons\" id=\"certificate-reasons\">");
		size_t i;
		json_t *x;
		json_array_foreach(reasons, i, x)
		{
			fputs("<li>", f);
			qc_html_esc(f, json_string_value(x));
			fputs("</li>", f);
		}
		fputs("</ol>\n", f);
	} else {
		fputs("<div class=\"sub\">every required operator ran, none NOT_SUPPORTED; "
		      "enough cases; every verdict allowed; no waiver expired</div>\n",
		      f);
	}
	fputs("</div>\n<div class=\"certbody\">\n", f);
	if (json_array_size(waived)) {
		fprintf(f,
		        "<h3>%zu failing case%s accepted by a waiver</h3>\n<table "
		        "id=\"certificate-waived\"><tr><th>case</th><th>verdict</th><th>reason</th>"
		        "<th>expires</th></tr>\n",
		        json_array_size(waived), json_array_size(waived) == 1 ? "" : "s");
		size_t i;
		json_t *w;
		json_array_foreach(waived, i, w)
		{
			if (i == QC_HTML_MAX_LISTED) {
				fprintf(f,
				        "<tr><td colspan=\"4\">%zu more in "
				        "certificate.json</td></tr>\n",
				        json_array_size(waived) - i);
				break;
			}
			json_t *e = json_object_get(w, "expires");
			fputs("<tr><td>", f);
			qc_html_esc(f, qc_json_str(w, "case"));
			fputs("</td><td>", f);
			qc_html_esc(f, qc_json_str(w, "verdict"));
			fputs("</td><td>", f);
			qc_html_esc(f, qc_json_str(w, "reason"));
			fputs("</td><td>", f);
			qc_html_esc(f, json_is_string(e) ? json_string_value(e) : "never");
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	json_t *ops = json_object_get(p, "required_ops");
	fprintf(f,
	        "<h3>Required operators (%zu)</h3>\n<table "
	        "id=\"certificate-ops\"><tr><th>operator</th><th class=\"n\">cases</th>",
	        json_array_size(ops));
	for (int k = 0; k < QC_N_VERDICTS; k++)
		fprintf(f, "<th class=\"n\">%s</th>", qc_verdict_name((qc_verdict)k));
	fputs("</tr>\n", f);
	size_t i;
	json_t *o;
	json_array_foreach(ops, i, o)
	{
		json_t *v = json_object_get(o, "verdicts");
		int bad = !qc_json_key_count(o, "cases") || qc_json_key_count(v, "NOT_SUPPORTED");
		for (int k = 0; k < QC_N_VERDICTS; k++)
			bad |= qc_html_is_failing(k) &&
			       qc_json_key_count(v, qc_verdict_name((qc_verdict)k));
		fprintf(f, "<tr%s><td>", bad ? " class=\"bad\"" : "");
		qc_html_esc(f, qc_json_str(o, "op"));
		fprintf(f, "</td><td class=\"n\">%llu</td>", qc_json_key_count(o, "cases"));
		for (int k = 0; k < QC_N_VERDICTS; k++) {
			unsigned long long n = qc_json_key_count(v, qc_verdict_name((qc_verdict)k));
			fprintf(f, "<td class=\"n%s\">%llu</td>", n ? "" : " z", n);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h3>Identity</h3>\n<table class=\"kv\" id=\"certificate-identity\">\n", f);
	qc_html_kv_row(f, "profile", qc_json_str(p, "name"), 0);
	{
		/* what the certificate covers: the base and the declared extensions */
		char covers[1024] = "";
		size_t k, used = 0;
		json_t *x;
		json_array_foreach(json_object_get(p, "covers"), k, x) if (used < sizeof covers)
		        used += (size_t)snprintf(covers + used, sizeof covers - used, "%s%s",
		                                 k ? ", " : "", json_string_value(x));
		qc_html_kv_row(f, "covers", covers[0] ? covers : "base", 0);
	}
	qc_html_kv_row(f, "profile description", qc_json_str(p, "description"), 0);
	qc_html_kv_row(f, "profile file", qc_json_str(p, "path"), 1);
	qc_html_kv_row(f, "profile sha256", qc_json_str(p, "sha256"), 1);
	cert_kv_count(f, "profile min_cases", qc_json_key_count(p, "min_cases"));
	cert_kv_count(f, "cases run", qc_json_key_count(c, "cases"));
	qc_html_plugin_rows(f, plugin);
	qc_html_engine_row(f, json_object_get(c, "engines"), qc_json_str(c, "require_engine"));
	qc_html_kv_row(f, "qconform (suite)", qc_json_str(c, "qconform_version"), 0);
	qc_html_kv_row(f, "host", qc_json_str(c, "host"), 0);
	qc_html_kv_seed(f, json_object_get(c, "seed"));
	qc_html_kv_row(f, "started", qc_json_str(c, "started"), 0);
	qc_html_kv_row(f, "finished", qc_json_str(c, "finished"), 0);
	qc_html_kv_row(f, "command", qc_json_str(c, "command"), 1);
	json_t *ev = json_object_get(c, "report");
	qc_html_kv_row(f, "evidence (JSON report)", qc_json_str(ev, "path"), 1);
	qc_html_kv_row(f, "evidence sha256", qc_json_str(ev, "sha256"), 1);
	fputs("</table>\n", f);
	json_t *specs = json_object_get(c, "specs");
	fprintf(f,
	        "<details id=\"certificate-specs\"><summary>%zu spec files (path, sha256, "
	        "cases)</summary>\n<table><tr><th>spec</th><th>sha256</th><th "
	        "class=\"n\">cases</th></tr>\n",
	        json_array_size(specs));
	qc_html_spec_rows(f, specs);
	fputs("</table></details>\n<p class=\"note\">The run's full report follows.</p>\n"
	      "</div>\n</section>\n",
	      f);
}
