/*
 * report_html: a JSON report (README.md, "Reports"; reports/schema/report.schema.json) read
 * back with jansson and rendered as one self-contained HTML file: inline CSS and inline SVG,
 * no script, nothing fetched. Every string that comes from a spec or a plugin is escaped.
 * Also `qconform report`.
 */
#ifndef QC_REPORT_HTML_H
#define QC_REPORT_HTML_H

#include <stddef.h>

#include <jansson.h>

#include "report/report_read.h"

/* Most failing cases the HTML lists one by one; the rest are counted (the JSON has them). */
#define QC_HTML_MAX_LISTED 500
/* Cases that passed within tolerance are listed only when there are at most this many. */
#define QC_HTML_MAX_WITHIN 50

/* Writes the HTML report of json_path to html_path. 0, or -1 with "path: reason" in err. */
int qc_html_write(const char *json_path, const char *html_path, char *err, size_t errsz);

/* The same from an open report (report_read.h; json_path is named in the page): one pass over
 * its cases, in memory bounded by the cases the page lists. */
int qc_html_write_doc(qc_report *report, const char *json_path, const char *html_path, char *err,
                      size_t errsz);

/*
 * The same with a certificate (harness/src/gate/certify.c, qconform certify) on top: a banner
 * CERTIFIED / NOT CERTIFIED, the reasons, the waived cases, the profile's required ops, the
 * plugin's identity and sha256, the suite version, the spec hashes, the host and the report
 * it was made from. cert NULL: exactly qc_html_write_doc.
 */
int qc_html_write_cert(qc_report *report, json_t *cert, const char *json_path,
                       const char *html_path, char *err, size_t errsz);

/* Writes the HTML (html_path) and the JUnit XML (junit_path) of the report rep, opened from
 * json_path; either path may be NULL. The JUnit is written on a thread of its own with a
 * reader of its own (each reads every case, and they take about as long). Prints "html:
 * PATH" and "junit: PATH" for what was written, "PREFIXmessage" on stderr for what failed.
 * 0, or -1. */
int qc_render_reports(qc_report *rep, const char *json_path, const char *html_path,
                      const char *junit_path, const char *prefix);

#endif
