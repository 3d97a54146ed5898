/*
 * diff: regressions between two JSON reports (qconform diff BASE NEW, and
 * run --baseline FILE). Cases are matched by name, ops by semantics/op.
 *
 * A regression is a case whose verdict was allowed and no longer is; a case
 * or op whose error histogram got wider (max |e| up, mismatches up, |bias| or
 * MSE up beyond noise); a case of the base that NEW's selection (its filters
 * and shard) includes but NEW lacks. Improvements are the reverse and never
 * fail.
 */
#ifndef QC_DIFF_H
#define QC_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "report_read.h" /* qc_report_num, qc_report_int */

/* Reports are read with qc_report_read (harness/src/report/report_html.h). */
/* An allowed verdict (README "Verdicts"), or a failure a waiver accepted ("waived"). */
int qc_report_case_allowed(const json_t *c);

typedef struct qc_diff_counts {
	uint64_t regressions, case_regressions, op_regressions;
	uint64_t improvements, changes;
	uint64_t compared, added, gone;
	uint64_t new_failing;   /* cases only NEW holds, failing (counted in regressions) */
	uint64_t still_failing; /* cases failing in both reports (not regressions by themselves) */
} qc_diff_counts;

/* Compares NEW against BASE (open reports, report_read.h; their cases are streamed, matched
 * by name through an index of 16 bytes a case): prints every regression (one line each), then
 * improvements and other changes, then a summary line to out. 0, or -1 with the reason in err
 * when the reports cannot be compared (different seeds) or a case cannot be read. */
int qc_diff_reports(qc_report *base, qc_report *cur, FILE *out, qc_diff_counts *n, char *err,
                    size_t err_size);

/* qconform diff BASE.json NEW.json: exit 1 if there is a regression, 2 on a usage error. */
int qc_cmd_diff(int argc, char **argv);

#endif
