/*
 * qref: the reference kernels' native API.
 *
 * The reference judges every vendor, so it is portable C with no
 * dependency, compiled with -ffp-contract=off, float vs double explicit.
 * The harness links it directly (qref_execute) to compute expected outputs;
 * reference/plugin.c wraps the same entry points in the plugin ABI so the
 * reference can also be run as a kernel under test.
 *
 * Operators, their inputs, outputs and attributes are listed in
 * specs/README.md ("Operators").
 */
#ifndef QREF_H
#define QREF_H

#include "qconform/plugin.h"

#define QREF_MAX_OUTPUTS 4

/* Requantization rounding of the LiteRT integer pipeline. */
typedef enum qref_rounding {
	QREF_ROUND_DOUBLE = 0, /* default LiteRT build: SRDHM then RDBPOT */
	QREF_ROUND_SINGLE = 1  /* TFLITE_SINGLE_ROUNDING=1 build */
} qref_rounding;

/*
 * What the reference knows about each output element beyond its value.
 * Every array is caller-allocated with one entry per output element (or
 * NULL when the caller does not want it) and zero-initialised by the caller.
 *  any[i]  = 1: the semantics leave element i unpredictable (e.g. torch
 *            fake quantization of NaN or inf); any value in [lo[i], hi[i]]
 *            is accepted (for integer outputs lo/hi are the dtype's range).
 *  step[i] > 0: float output on a quantization grid with this step (the
 *            scale of element i's channel); errors are reported in steps.
 */
typedef struct qref_output_detail {
	uint8_t *any;
	double *lo;
	double *hi;
	double *step;
} qref_output_detail;

typedef struct qref_detail {
	qref_rounding rounding;                   /* in */
	qref_output_detail out[QREF_MAX_OUTPUTS]; /* in: buffers; out: filled */
	char message[256]; /* out: for QCF_INVALID_PARAM, the rule that failed */
} qref_detail;

/* QCF_OK if the reference implements call->semantics / call->op. */
qcf_status qref_supports(const qcf_op_call *call);

/*
 * Computes call->outputs from call->inputs. Checks every parameter rule of
 * the semantics first and returns QCF_INVALID_PARAM (message in detail,
 * when given) without writing outputs if one fails. detail may be NULL.
 */
qcf_status qref_execute(const qcf_op_call *call, qref_detail *detail);

#endif
