/*
 * diff: regressions between two JSON reports (qconform diff BASE NEW, and
 * run --baseline FILE). Cases are matched by name, ops by semantics/op.
 *
 * A regression is a case whose verdict was allowed and no longer is; a case
 * or op whose error histogram got wider (max |e| up, mismatches up, |bias| or
 * MSE up beyond noise); and lost coverage: a case the kernel took in BASE
 * that NEW refuses (NOT_SUPPORTED), lacks, or leaves out by its --filter or
 * --case (a case another shard holds is not lost). A negative case (expect:
 * error) is covered by a refusal as by an error: NOT_SUPPORTED answers it.
 * Lost coverage that --allow-coverage-loss GLOB names is accepted, counted
 * and listed, never silent. Improvements are the reverse and never fail.
 */
#ifndef QC_DIFF_H
#define QC_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "report/report_read.h" /* qc_json_num, qc_json_int */

/* Reports are read with qc_report_read (harness/src/report/report_html.h). */
/* An allowed verdict (README "Verdicts"), or a failure a waiver accepted ("waived"). */
int qc_report_case_allowed(const json_t *c);

/* What the comparison accepts: lost coverage of the cases these globs match. */
typedef struct qc_diff_opts {
	const char *const *allow_loss; /* --allow-coverage-loss GLOB ... */
	int n_allow_loss;
} qc_diff_opts;

typedef struct qc_diff_counts {
	uint64_t regressions, case_regressions, op_regressions;
	uint64_t coverage_lost;     /* cases BASE covered that NEW does not (in case_regressions) */
	uint64_t coverage_accepted; /* ... that --allow-coverage-loss accepted (not regressions) */
	char coverage_ops[512];     /* "litert/ADD 195, litert/SUB 3": lost, per op, unaccepted */
	uint64_t improvements, changes;
	uint64_t compared, added, gone;
	uint64_t new_failing;   /* cases only NEW holds, failing (counted in regressions) */
	uint64_t still_failing; /* cases failing in both reports (not regressions by themselves) */
} qc_diff_counts;

/* Compares NEW against BASE (open reports, report_read.h; their cases are streamed, matched
 * by name through an index of 16 bytes a case): prints every regression (one line each), then
 * improvements, accepted losses and other changes, then a summary line to out. opts may be
 * NULL (nothing accepted). 0, or -1 with the reason in err when the reports cannot be compared
 * (different seeds) or a case cannot be read. */
int qc_diff_reports(qc_report *base, qc_report *cur, const qc_diff_opts *opts, FILE *out,
                    qc_diff_counts *n, char *err, size_t err_size);

#endif
