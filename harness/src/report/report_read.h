/*
 * report_read: a JSON report read back (README.md, "Reports"), with jansson: the one
 * reader of reports for the HTML and JUnit renderers, merge, diff, --baseline and certify.
 */
#ifndef QC_REPORT_READ_H
#define QC_REPORT_READ_H

#include <stddef.h>

#include <jansson.h>

#include "base/json.h"

/*
 * A report read as a stream: qc_report_open checks the whole file (a cut or unbalanced file
 * fails there) and parses every member but the cases, which qc_report_next then parses one at
 * a time; the memory needed is the largest case's, whatever the number of cases. Any layout of
 * the JSON reads. Errors: one line "path: reason" in err, with the line and column of
 * the fault (or its byte offset after qc_report_at).
 */
typedef struct qc_report qc_report;

/* Opens a report: a regular JSON file of at most QC_REPORT_MAX_BYTES (harness/src/base/rfile.h)
 * with format "qconform-report", version 1, and the run, cases, ops and summary members. NULL
 * with "path: reason" in err. */
qc_report *qc_report_open(const char *json_path, char *err, size_t errsz);
/* A stream over a report document in memory (its "cases"); NULL when out of memory. */
qc_report *qc_report_of(json_t *doc);
void qc_report_close(qc_report *r);
/* The document: every member; from a file, "cases" is an empty list (the cases stream). */
json_t *qc_report_doc(const qc_report *r);
/* The file's path. */
const char *qc_report_path(const qc_report *r);
/* How many cases the report holds. */
size_t qc_report_ncases(const qc_report *r);
/* The next case: 1 with a new reference in *c, 0 after the last, -1 with the reason in err
 * (also a case that is not one, qc_report_check_case, or whose name an earlier case has).
 * The first call, and the first after qc_report_rewind or qc_report_at, starts at the first
 * case. */
int qc_report_next(qc_report *r, json_t **c, char *err, size_t errsz);
void qc_report_rewind(qc_report *r);
/* Where the case qc_report_next returned last is, for qc_report_at. */
long long qc_report_pos_of_last(const qc_report *r);
/* The case at pos (from qc_report_pos_of_last): 0 with a new reference in *c, or -1. */
int qc_report_at(qc_report *r, long long pos, json_t **c, char *err, size_t errsz);

/*
 * Whether c is a report's case: an object with a non-empty "name" and a known "verdict" (and,
 * strict, every member the report schema requires of a case, of its type: what a journal's
 * line must hold to go into a report as it is). 0, or -1 with the reason in why.
 */
int qc_report_check_case(const json_t *c, int strict, char *why, size_t why_size);

/* The whole report in memory (qc_report_open, then every case): the document, or NULL with
 * "path: reason" in err. */
json_t *qc_report_read(const char *json_path, char *err, size_t errsz);

/* Values of a report read back, for every reader (HTML, JUnit, diff, merge): base/json.h. */
/* What stopped an interrupted run (its "interrupted" object): the signal ("SIGINT") or
 * "--max-failures N". Returns buf. */
const char *qc_report_stopped_by(const json_t *interrupted, char *buf, size_t size);

/* Whether a worst element's coordinates are worth naming by the output's axes: one name per
 * coordinate, and a layout of the op's own (not only d0, d1, ...). */
int qc_report_axes_named(json_t *coords, json_t *axes);

#endif
