/*
 * report_read: a JSON report read back (README.md, "Reports"), with jansson: the one
 * reader of reports for the HTML and JUnit renderers, merge, diff and --baseline.
 */
#ifndef QC_REPORT_READ_H
#define QC_REPORT_READ_H

#include <stddef.h>

#include <jansson.h>

/*
 * Reads a report: a JSON file with format "qconform-report", version 1, and the run, cases,
 * ops and summary members. Returns the document, or NULL with "path: reason" in err.
 */
json_t *qc_report_read(const char *json_path, char *err, size_t errsz);

/* Values of a report read back, for every reader (HTML, JUnit, diff, merge). */
/* A report number: an integer, a real, or "nan", "inf", "-inf"; NAN when absent. */
double qc_report_num(const json_t *v);
/* A report integer (also when read as a double); 0 when absent. */
json_int_t qc_report_int(const json_t *v);
/* The string member key of o, or "" when absent or not a string. */
const char *qc_report_str(const json_t *o, const char *key);
/* A report count: a positive integer or finite real (truncated), else 0. qc_report_key_count
 * reads member key of o. */
unsigned long long qc_report_count(const json_t *v);
unsigned long long qc_report_key_count(const json_t *o, const char *key);
/* A report number as text: integers exactly, others with 6 significant digits; "nan", "inf",
 * "-inf". Returns buf. */
const char *qc_report_num_text(char *buf, size_t n, const json_t *v);

/* json_string of any bytes: s made reportable first (qc_utf8_sanitize, harness/src/utf8.h), so
 * never NULL for a string jansson would refuse; NULL s gives "". */
json_t *qc_report_jstring(const char *s);

#endif
