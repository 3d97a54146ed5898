/*
 * hypotheses: the rules that may explain a kernel's outputs, for the diagnosis (diagnose.h).
 *
 * A hypothesis is computed by the reference: the reference itself (what the op's semantics
 * do), the reference under one of its named roundings (qref.h: double, single, half_even, ...),
 * or a variant of the catalogue (reference/variants/README.md): the reference with one named
 * change, built as a plugin. The catalogue's table is generated from the definitions in
 * reference/variants/.
 */
#ifndef QC_HYPOTHESES_H
#define QC_HYPOTHESES_H

#include <stddef.h>

typedef struct qc_variant_def {
	const char *id;          /* the definition's name: "49-conv-float-scale-product" */
	const char *description; /* the rule, in one line */
	const char *as;          /* who computes it so (a library, a build), or NULL */
	const char *ops;         /* "semantics/OP ..." the changed code can reach, or "*" */
} qc_variant_def;

extern const qc_variant_def qc_variant_table[];
extern const int qc_variant_count;

typedef enum qc_hyp_kind {
	QC_HYP_REFERENCE = 0, /* the reference as it is */
	QC_HYP_ROUNDING = 1,  /* the reference under a named rounding */
	QC_HYP_VARIANT = 2    /* a variant of the catalogue */
} qc_hyp_kind;

typedef struct qc_hyp {
	qc_hyp_kind kind;
	int rounding;              /* QC_HYP_ROUNDING: a qref_rounding */
	const qc_variant_def *def; /* QC_HYP_VARIANT */
	char id[96];               /* "reference", "rounding:half_even", a variant's id */
	char rule[320];            /* what it computes, in words */
	int n_ops;                 /* ops the hypothesis can change (0: every op) */
} qc_hyp;

/* The hypotheses for op semantics/op, reference first, then the named roundings, then the
 * catalogue's variants that can change the op, in catalogue order. Returns how many (at most
 * max). */
int qc_hyps_for(const char *semantics, const char *op, qc_hyp *out, int max);

/* Does a variant's ops list name semantics/op? ("*" names every op) */
int qc_variant_applies(const qc_variant_def *d, const char *semantics, const char *op);

/* The plugin of variant d: $QCONFORM_VARIANTS/ID.so when that variable is set, else
 * lib/qconform/variants/ID.so beside an installed qconform, or variants/ID.so in a build tree.
 * 0, or -1 when no such file exists (path holds the last one tried). */
int qc_variant_path(const qc_variant_def *d, char *path, size_t size);

#endif
