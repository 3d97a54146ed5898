/*
 * report_junit: a JSON report as JUnit XML, the format Jenkins, GitLab and GitHub test
 * reporters read. <testsuites> holds one <testsuite> per operator (name "semantics/op") and
 * one <testcase> per case (classname "semantics.op", name the case name): <failure
 * type="FAIL"> with the metrics for FAIL, <error type="ERROR|CRASH|TIMEOUT"> for the cases
 * that did not finish, <skipped> for NOT_SUPPORTED and for failures a waiver accepts. Every string
 * is XML-escaped; characters XML 1.0 forbids become U+FFFD.
 *
 * A <testcase>'s time is the report's case "seconds": the kernel's time alone (prepare and
 * execute; for a CRASH or TIMEOUT, until the harness stopped it), not the time qconform took to
 * build the case, compute the reference's answer and judge. A <testsuite>'s time sums its cases';
 * each suite's properties say so (qconform.time, QC_JUNIT_TIME) and give the run's whole wall
 * time (qconform.wall_seconds, the report's summary.wall_seconds).
 */
#define QC_JUNIT_TIME                                                                              \
	"testcase time: the kernel's prepare and execute seconds (the report's case seconds), "    \
	"not "                                                                                     \
	"building the case, the reference or judging; testsuite time: the sum over its cases"

#ifndef QC_REPORT_JUNIT_H
#define QC_REPORT_JUNIT_H

#include <stddef.h>

#include <jansson.h>

#include "report/report_read.h"

/* Writes the JUnit XML of json_path to xml_path. 0, or -1 with "path: reason" in err. */
int qc_junit_write(const char *json_path, const char *xml_path, char *err, size_t errsz);

/* The same from an open report (report_read.h): the cases are grouped by operator through
 * their positions in the file (8 bytes a case), then read again one at a time. */
int qc_junit_write_doc(qc_report *report, const char *xml_path, char *err, size_t errsz);

#endif
