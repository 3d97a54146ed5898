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

#endif
