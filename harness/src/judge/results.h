/*
 * results: roll-ups of case results per operator and per run.
 */
#ifndef QC_RESULTS_H
#define QC_RESULTS_H

#include "judge/compare.h"

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
	/* the judged cases (qc_verdict_judged) by the engine the plugin reported:
	 * qcf_engine_kind, then QCF_ENGINE_COUNT for a value the ABI does not know */
	uint64_t engines[QCF_ENGINE_COUNT + 1];
} qc_run_stats;

void qc_stats_add(qc_run_stats *s, const qc_case *c, const qc_result *r);
/* The index of r's engine in qc_run_stats.engines. */
int qc_engine_index(int engine);
/* The engine index of a report's case (its "engine"."kind"; absent: unreported). */
int qc_engine_of_kind(const char *kind);
/* Did some judged case report an engine (a kind other than unreported)? */
int qc_stats_engines_reported(const qc_run_stats *s);
/* --require-engine (or the profile's require_engine): "reported", "accelerator", or NULL for
 * none. The judged cases that break it (0: met). */
uint64_t qc_stats_engine_breaches(const qc_run_stats *s, const char *require);
/* Does a case with engine index e (qc_engine_index) meet require? */
int qc_engine_meets(int e, const char *require);
/* 1 if every case has a conforming verdict (and there was at least one case). */
int qc_stats_conforms(const qc_run_stats *s);
/* Cases whose verdict does not conform (waived or not). */
uint64_t qc_stats_failing(const qc_run_stats *s);
void qc_stats_free(qc_run_stats *s);

#endif
