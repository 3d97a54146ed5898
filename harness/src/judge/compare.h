/*
 * compare: kernel outputs against expected outputs, and the case verdict.
 *
 * Quantized (integer) outputs are compared in output LSB:
 * e = q_kernel - q_expected. Float outputs on a quantization grid (the
 * reference reports the step) are compared in steps of the scale,
 * e = (f_kernel - f_expected) / step; other float outputs in ULP of their
 * dtype. Elements the semantics leave unpredictable are not compared,
 * only checked to lie in their allowed range.
 */
#ifndef QC_COMPARE_H
#define QC_COMPARE_H

#include <stdint.h>

#include "cases/cases.h"
#include "cases/expected.h"
#include "reference/qref.h"
#include "run/runner.h"

#define QC_HIST_BINS 16
#define QC_HIST_NAN  15 /* bin of non-finite errors (one side NaN or inf) */
#define QC_WORST     8

/* Bins of e: exact for |e| <= 4, then 5..16, 17..64, >=65 and their negatives. A non-integer
 * e (float outputs in steps) falls in the bin of the next integer away from zero. */
extern const char *const qc_hist_labels[QC_HIST_BINS];
/* Bin of an integer error. */
int qc_hist_bin(int64_t e);

typedef enum qc_unit { QC_UNIT_LSB = 0, QC_UNIT_STEPS = 1, QC_UNIT_ULP = 2 } qc_unit;
const char *qc_unit_name(qc_unit u);

typedef struct qc_worst {
	uint64_t index;
	double expected, got, error;
	/* the legal outputs of the element: the band of the tolerance's roundings, [expected,
	 * expected] without one; beyond: got's error past the band (0: a legal rounding), in the
	 * output's unit */
	double lo, hi, beyond;
	/* a failing case of an op whose output is a requantized accumulator (qref_element_terms):
	 * the element's accumulator, bias included (has_terms), and its exact rescaled value
	 * (has_real: also for the ops with a real-valued output, qref_real_output) (locate.h) */
	int has_terms, has_real;
	int64_t acc;
	double real;
} qc_worst;

/* Elements that differ or lie outside their allowed range (the ones worst[] is drawn from),
 * counted per index along one axis of the output: the first QC_ALONG_KEYS indices met in
 * element order, and the elements at any other index. */
#define QC_ALONG_KEYS 8
typedef struct qc_along {
	int axis; /* -1: not counted */
	int n;
	int64_t index[QC_ALONG_KEYS];
	uint64_t count[QC_ALONG_KEYS];
	uint64_t other;
} qc_along;

typedef struct qc_metrics {
	qc_unit unit;
	uint64_t n;             /* elements compared (unpredictable ones excluded) */
	uint64_t mismatches;    /* e != 0 */
	uint64_t unpredictable; /* elements the semantics leave open */
	uint64_t out_of_range;  /* unpredictable elements outside their allowed range */
	double max_abs;         /* max |e| */
	double sum_e, sum_e2;
	uint64_t hist[QC_HIST_BINS];
	uint64_t hist_out[QC_HIST_BINS]; /* of hist: the elements outside the legal band */
	int n_worst;
	qc_worst worst[QC_WORST]; /* outside the legal band first (largest |e| beyond it), then
	                             largest |e|; earliest index first among equals */
	qc_along along;           /* not merged, as worst */
	double max_ulp, max_abs_err, max_rel_err; /* float outputs, beyond the legal band */
	/* With a rounding tolerance, the legal band of an element runs from its lowest to its
	 * highest legal rounding; tolerance bounds apply to the errors beyond the band. */
	uint64_t in_band;        /* e != 0 but within the band: needed a wider rounding */
	uint64_t in_fused;       /* of in_band, a chain's: between the graph and its fused form */
	uint64_t tol_mismatches; /* elements outside the band */
	double tol_max_abs, tol_sum_e, tol_sum_e2;
} qc_metrics;

void qc_metrics_init(qc_metrics *m, qc_unit unit);
/* Adds src's counts and histogram into dst (worst elements are not merged). */
void qc_metrics_merge(qc_metrics *dst, const qc_metrics *src);
double qc_metrics_bias(const qc_metrics *m);
double qc_metrics_mse(const qc_metrics *m);

/*
 * Compares got against expected element by element. d may be NULL. band_lo and
 * band_hi (both or neither) give per element the lowest and highest output of the
 * legal roundings; errors (optional) receives e per element (0 where unpredictable).
 * m->along counts the failing elements along axis along_axis of the output's shape (-1:
 * not counted).
 */
void qc_compare_output(const qcf_tensor *expected, const qcf_tensor *got,
                       const qref_output_detail *d, const double *band_lo, const double *band_hi,
                       double *errors, int along_axis, qc_metrics *m);

/* 1 if m is within tol; else 0 with the first bound broken in why. */
int qc_tolerance_check(const qc_tolerance *tol, const qc_metrics *m, char *why, size_t why_size);

typedef enum qc_verdict {
	QC_PASS = 0,
	QC_PASS_WITHIN_TOLERANCE,
	QC_FAIL,
	QC_NOT_SUPPORTED,
	QC_EXPECTED_ERROR,
	QC_ERROR,
	QC_CRASH,
	QC_TIMEOUT,
	QC_NONDETERMINISTIC, /* run --repeat: two runs of the case differ (bits, or outcome) */
	QC_N_VERDICTS
} qc_verdict;

const char *qc_verdict_name(qc_verdict v);
/* The verdict a report spells name (qc_verdict_name's inverse), or -1 (NULL included). */
int qc_verdict_of_name(const char *name);
/* PASS, PASS_WITHIN_TOLERANCE, NOT_SUPPORTED, EXPECTED_ERROR */
int qc_verdict_conforms(qc_verdict v);
/* PASS, PASS_WITHIN_TOLERANCE, FAIL: the kernel's outputs were compared */
int qc_verdict_judged(qc_verdict v);

/* What the reference said about a case. */
typedef struct qc_result {
	qc_verdict verdict;
	char message[512];
	double seconds;
	int n_outputs;
	qc_metrics m[QC_MAX_OUTPUTS];
	double saturated[QC_MAX_OUTPUTS]; /* share of the expected output at a dtype end */
	/* the kernel's execute returned QCF_OK: engine is what the plugin reported (a
	 * qcf_engine_kind, 0 unreported), engine_name its name; -1: it did not execute */
	int engine;
	char engine_name[64];
	/* a chain case: how the kernel was offered it (QC_CHAIN_*), and, op by op, the first node
	 * (from 1) whose output differs from the reference's intermediate (0: none found) */
	int chain_mode;
	int chain_node;
} qc_result;

#define QC_CHAIN_NONE   0                 /* a single op */
#define QC_CHAIN_OPBYOP 1                 /* each node in turn, the kernel's outputs fed forward */
#define QC_CHAIN_FUSED  2                 /* the chain as one fused call (plugin ABI version 3) */
const char *qc_chain_mode_name(int mode); /* "", "op by op", "fused" */

/*
 * The verdict of one case from the reference's answer and the kernel's:
 * kernel_out are the kernel's output tensors (valid when ex->outcome is OK).
 */
void qc_judge(const qc_case *c, const qc_expected *ref, const qc_exec_result *ex,
              const qcf_tensor *kernel_out, qc_result *r);

#endif
