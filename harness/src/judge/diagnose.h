/*
 * diagnose: which rule explains a kernel's outputs.
 *
 * Enters: judged cases with their data (the case, the reference's answer, the kernel's
 * outputs), offered in the run's order, and then, per op, the outputs each hypothesis
 * (hypotheses.h) computes for the cases kept. Leaves: per op, the hypotheses ranked by what
 * they explain, and the verdict: one rule explains every failing element (explained), two
 * rules split the elements between them (mixed, with the split's pattern when it is a
 * vector's tail), one explains some (partly), none explains any (unexplained).
 *
 * Bounded: per op at most QC_DIAG_FAILING failing cases and QC_DIAG_PASSING passing ones
 * are kept, spread over the op's cases by a stride that doubles when the list is full (the
 * same cases whatever the number of jobs). A hypothesis is scored on the failing cases kept
 * and confirmed on the passing ones.
 */
#ifndef QC_DIAGNOSE_H
#define QC_DIAGNOSE_H

#include <stdint.h>

#include "judge/compare.h"
#include "judge/hypotheses.h"

#define QC_DIAG_FAILING  24
#define QC_DIAG_PASSING  16
#define QC_DIAG_MAX_HYPS 96
#define QC_DIAG_PERIODS  63

/* What one hypothesis explains of an op's cases kept. Elements: every output element the
 * semantics do not leave open, over the cases the hypothesis could compute. */
typedef struct qc_hyp_score {
	int fail_cases, fail_exact; /* failing cases computed; of them, equal on every element */
	int pass_cases, pass_exact;
	int refused, refused_fail; /* cases it could not compute (refused, crashed); failing ones */
	uint64_t wrong, wrong_explained; /* failing cases: elements the kernel has != reference */
	uint64_t illegal, illegal_explained;   /* of them, outside every legal rounding */
	uint64_t disagree_fail, disagree_pass; /* elements where it differs from the kernel */
	int judged, legal_cases; /* cases its outputs were judged on; of them, conforming */
	/* every case kept: elements where it differs from the reference (its own rule shows);
	 * of them, where the kernel gives its value, and where the kernel gives the reference's */
	uint64_t distinct, distinct_followed, distinct_reference;
	char not_legal[256]; /* the tolerance's message on the first case it fails */
	char not_legal_case[512];
} qc_hyp_score;

typedef enum qc_diag_status {
	QC_DIAG_NONE = 0,    /* nothing to diagnose (no failing case with outputs) */
	QC_DIAG_EXPLAINED,   /* one rule: every element of every failing case kept */
	QC_DIAG_MIXED,       /* two rules share the elements */
	QC_DIAG_PARTLY,      /* the best rule explains some of the elements outside the band */
	QC_DIAG_UNEXPLAINED, /* no rule of the catalogue explains any */
	QC_DIAG_NOT_RUN      /* the hypotheses could not be computed (err says why) */
} qc_diag_status;

const char *qc_diag_status_name(qc_diag_status s);

typedef struct qc_diag_case qc_diag_case;

typedef struct qc_op_diagnosis {
	char semantics[32], op[64];
	uint64_t failing_total; /* failing cases (FAIL) of the op offered */
	uint64_t passing_total;
	uint64_t failing_replayed; /* of failing_total: judged before a --resume, not diagnosed */
	int n_fail, n_pass;        /* cases kept: failing first, then passing */
	qc_diag_case *cases;       /* n_fail + n_pass */
	int n_hyps;
	qc_hyp hyps[QC_DIAG_MAX_HYPS];
	qc_hyp_score score[QC_DIAG_MAX_HYPS];
	/* after qc_diagnosis_finish */
	qc_diag_status status;
	int rank[QC_DIAG_MAX_HYPS]; /* hypotheses that explain something, best first */
	int n_rank;
	int n_equal;             /* rank[1 .. n_equal] explain exactly what rank[0] does */
	uint64_t wrong, illegal; /* elements of the failing cases kept */
	/* QC_DIAG_MIXED: rank[0] and mix_other share the elements */
	int mix_other;
	uint64_t mix_first, mix_second; /* elements only the one or the other explains */
	int tail_width; /* > 0: mix_other's elements are those past the last multiple of
	                   tail_width of the innermost dimension (a vector body and its tail) */
	/* Where the elements outside the band lie, over every failing case kept (one output):
	 * the one index they all have along an axis (-1: none yet, -2: not one), the one residue
	 * of their flat index modulo m = 2 .. QC_DIAG_PERIODS + 1, the one difference from the
	 * reference's value (NaN: not one) */
	int where_rank;
	int64_t where_axis[8];
	int where_wide[8]; /* the axis is longer than 1 in some failing case */
	int64_t where_mod[QC_DIAG_PERIODS];
	double where_delta;
	uint64_t where_n;
	char err[256]; /* QC_DIAG_NOT_RUN: why; otherwise a note (variants that could not run) */
	int datasheet; /* the hypotheses were computed for the datasheet (passing cases too) */
} qc_op_diagnosis;

typedef struct qc_diagnosis qc_diagnosis;

qc_diagnosis *qc_diagnosis_new(void);
void qc_diagnosis_free(qc_diagnosis *D);

/*
 * Offers a judged case: verdict v, its data c, e (the reference's answer) and kout (the
 * kernel's outputs). Returns 1 when the diagnosis keeps it: it then owns owner and calls
 * release(owner) when done with c, e and kout; 0 when it does not (the caller keeps them).
 */
int qc_diagnosis_offer(qc_diagnosis *D, const qc_case *c, const qc_expected *e, void *const *kout,
                       qc_verdict v, void *owner, void (*release)(void *));
/* Counts a case whose data the caller does not offer (its verdict alone); replayed: a case
 * judged before a --resume, whose outputs the journal does not keep. */
void qc_diagnosis_count(qc_diagnosis *D, const char *semantics, const char *op, qc_verdict v,
                        int replayed);

/* The ops, in the order first met; an op with failing cases kept needs its hypotheses. */
int qc_diagnosis_n_ops(const qc_diagnosis *D);
qc_op_diagnosis *qc_diagnosis_op(qc_diagnosis *D, int i);
/* Case j of op o (0 <= j < n_fail + n_pass). */
const qc_case *qc_diag_case_at(const qc_op_diagnosis *o, int j);
const qc_expected *qc_diag_expected_at(const qc_op_diagnosis *o, int j);

/*
 * Scores hypothesis h of op o on case j with its outputs out[k] (NULL: it could not compute
 * them). Call once per (h, j); any order.
 */
void qc_diagnosis_score(qc_op_diagnosis *o, int h, int j, void *const *out);

/* Ranks the hypotheses and finds the verdict of every op. */
void qc_diagnosis_finish(qc_diagnosis *D);

/* One paragraph on op o (lines of at most about 100 columns, each ending in a newline, the
 * first not indented): the verdict and the best hypotheses, their coverage, whether the
 * tolerance allows them. */
void qc_diagnosis_text(const qc_op_diagnosis *o, char *buf, size_t size);

/* The datasheet of op o: which rule the kernel follows where the rules differ, on every case
 * kept (passing ones too), whether or not any failed. "" when no hypothesis was computed. */
void qc_diagnosis_datasheet(const qc_op_diagnosis *o, char *buf, size_t size);

#endif
