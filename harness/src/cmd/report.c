/* qconform report: the HTML (and JUnit) of a JSON report, written again. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/help.h"
#include "report/report_html.h"

/* path without a trailing ".json", plus ext */
static char *beside(const char *path, const char *ext)
{
	size_t n = strlen(path);
	if (n > 5 && !strcmp(path + n - 5, ".json"))
		n -= 5;
	char *s = malloc(n + strlen(ext) + 1);
	if (s) {
		memcpy(s, path, n);
		strcpy(s + n, ext);
	}
	return s;
}

int qc_cmd_report(int argc, char **argv)
{
	const char *json = NULL, *html = NULL, *junit = NULL;
	qc_opt_reader rd = {.cmd = "report", .argc = argc - 1, .argv = argv + 1};
	const char *a, *v;
	for (int k; (k = qc_opt_next(&rd, &a, &v)) != QC_OPT_END;) {
		if (k == QC_OPT_BAD)
			return 2;
		if (k == QC_OPT_FLAG && !strcmp(a, "--html")) {
			html = v;
		} else if (k == QC_OPT_FLAG && !strcmp(a, "--junit")) {
			junit = v;
		} else if (k == QC_OPT_FLAG) {
			return qc_opt_unread("report", a);
		} else if (json) {
			fprintf(stderr, "qconform report: one JSON report at a time (%s, %s)\n",
			        json, v);
			return 2;
		} else {
			json = v;
		}
	}
	if (!json) {
		fprintf(stderr, "qconform report: needs a JSON report (qconform report --help)\n");
		return 2;
	}
	char err[1024];
	qc_report *r = qc_report_open(json, err, sizeof err);
	if (!r) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	char *html_def = NULL, *junit_def = NULL;
	if (!html && !junit) {
		html = html_def = beside(json, ".html");
		junit = junit_def = beside(json, ".junit.xml");
	}
	int rc = qc_render_reports(r, json, html, junit, "") != 0 ? 2 : 0;
	free(html_def);
	free(junit_def);
	qc_report_close(r);
	return rc;
}
