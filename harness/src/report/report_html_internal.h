/*
 * report_html_internal: what the files of the HTML report share, and nothing outside them
 * includes: report_html.c (the page: its head, banners, run table, histograms, operator table,
 * waivers, and the entry points), report_html_cases.c (the cases on the page: one case, the
 * failing operators with where their failures are, the cases within tolerance, what is not
 * supported) and report_html_cert.c (a certificate on top of the page). The rest of the
 * harness has report_html.h.
 */
#ifndef QC_REPORT_HTML_INTERNAL_H
#define QC_REPORT_HTML_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "report/report_html.h"

/* What the page needs of the cases, gathered in one pass over them (the cases stream:
 * harness/src/report/report_read.h), in memory bounded by the listed cases and the caps of
 * the breakdowns (judge/where.h). */
typedef struct qc_html_page_cases {
	unsigned long long failing, within;
	json_t *failing_list; /* the first QC_HTML_MAX_LISTED failing cases: [index, case] */
	json_t *within_list;  /* the cases within tolerance, while QC_HTML_MAX_WITHIN at most */
	json_t *waived;       /* "semantics\nop" -> how many cases a waiver accepted */
	json_t *unsupported;  /* "semantics\nop" -> {message: [count, first case]} */
	json_t *where;        /* "semantics\nop" of an op with failing cases -> its breakdown */
} qc_html_page_cases;

/* report_html.c: values, escaping, the rows and pieces the page and the certificate share */
/* Verdicts that fail a run (qc_verdict_conforms is 0). */
int qc_html_is_failing(int v);
/* Text and attribute values, escaped (harness/src/base/utf8.h). */
void qc_html_esc(FILE *f, const char *s);
/* The key "semantics\nop" of an op in qc_html_page_cases' objects. */
void qc_html_op_slot(char *key, size_t n, const char *sem, const char *op);
void qc_html_kv_row(FILE *f, const char *key, const char *value, int code);
void qc_html_engine_row(FILE *f, json_t *engines, const char *require);
void qc_html_plugin_rows(FILE *f, json_t *plugin);
void qc_html_spec_rows(FILE *f, json_t *specs);
void qc_html_kv_seed(FILE *f, json_t *seed);
/* The unit of a report's metrics, as one of qconform's own names ("?" otherwise). */
const char *qc_html_safe_unit(const char *u);
/* The histogram of one case's output. */
void qc_html_case_hist(FILE *f, json_t *hist, json_t *outside, const char *unit);

/* report_html_cases.c: the failing cases per failing operator, the cases within tolerance,
 * the operators not supported. */
void qc_html_drill_down(FILE *f, json_t *r, const qc_html_page_cases *pc, const char *json_path);

/* report_html_cert.c: the certificate c, on top of the page. */
void qc_html_certificate(FILE *f, json_t *c);

#endif
