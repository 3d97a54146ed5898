/*
 * report_junit: a JSON report as JUnit XML, the format Jenkins, GitLab and GitHub test
 * reporters read. <testsuites> holds one <testsuite> per operator (name "semantics/op") and
 * one <testcase> per case (classname "semantics.op", name the case name): <failure
 * type="FAIL"> with the metrics for FAIL, <error type="ERROR|CRASH|TIMEOUT"> for the cases
 * that did not finish, <skipped> for NOT_SUPPORTED and for failures a waiver accepts. Every string
 * is XML-escaped; characters XML 1.0 forbids become U+FFFD.
 */
#ifndef QC_REPORT_JUNIT_H
#define QC_REPORT_JUNIT_H

#include <stddef.h>

#include <jansson.h>

/* Writes the JUnit XML of json_path to xml_path. 0, or -1 with "path: reason" in err. */
int qc_junit_write(const char *json_path, const char *xml_path, char *err, size_t errsz);

/* The same from a report loaded with qc_report_read (report_html.h). */
int qc_junit_write_doc(json_t *report, const char *xml_path, char *err, size_t errsz);

#endif
