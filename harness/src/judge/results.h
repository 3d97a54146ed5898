/*
 * results: roll-ups of case results per operator and per run.
 */
#ifndef QC_RESULTS_H
#define QC_RESULTS_H

#include "compare.h"

typedef struct qc_op_stats {
	char semantics[16];
	char op[96];
	uint64_t cases;
	uint64_t verdicts[QC_N_VERDICTS];
	int n_outputs;
	char out_names[QC_MAX_TENSORS][32];
	qc_metrics m[QC_MAX_TENSORS]; /* per output name, over all compared cases */
	double seconds;
} qc_op_stats;

typedef struct qc_run_stats {
	qc_op_stats *ops;
	int n_ops, cap;
	uint64_t cases;
	uint64_t verdicts[QC_N_VERDICTS];
} qc_run_stats;

void qc_stats_add(qc_run_stats *s, const qc_case *c, const qc_result *r);
/* 1 if every case has a conforming verdict (and there was at least one case). */
int qc_stats_conforms(const qc_run_stats *s);
/* Cases whose verdict does not conform (waived or not). */
uint64_t qc_stats_failing(const qc_run_stats *s);
void qc_stats_free(qc_run_stats *s);

#endif
