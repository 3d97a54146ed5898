/*
 * Where an op's failures cluster, over every case of a run as its report records them: by the
 * values of the sweep variables of the case names' parameters, and along each output's axes
 * (a failing output's failing_along). The analysis of judging, not of a page: the HTML report
 * renders it, and any reader of a report can ask it.
 *
 * A breakdown is a JSON object bounded by the caps below, over every case of the op (not only
 * the listed ones):
 *   {"cases": n, "failing": n,
 *    "vars": {NAME: {"vals": {VALUE: [cases, failing]}, "other": [cases, failing]}},
 *    "along": {"OUTPUT\nAXIS": {"output", "axis", "channel": bool, "counts": {INDEX: n},
 *              "other": n}}}
 * NAME is a sweep variable of the case name's parameters (params, "name=value,..."), or
 * NAME.KEY for a key of a map value ({key:value;...}), so that "wq.axis" stands beside "wq".
 */
#ifndef QC_WHERE_H
#define QC_WHERE_H

#include <jansson.h>

#define QC_WHERE_VARS   32 /* sweep variables (and keys of their map values) kept per op */
#define QC_WHERE_VALUES 64 /* values kept per variable; the cases with any other count as other */
#define QC_WHERE_AXES   16 /* outputs and axes kept per op */
#define QC_WHERE_INDICES                                                                           \
	64 /* indices kept per output axis; the elements at others count as other */
/* At most one finding per kept axis and per kept variable. */
#define QC_WHERE_MAX_FINDINGS (QC_WHERE_AXES + QC_WHERE_VARS)

/* An empty breakdown. */
json_t *qc_where_new(void);

/* Adds one case of the op, as its report records it (its "params", its outputs'
 * failing_along when it fails). */
void qc_where_add(json_t *w, json_t *case_record, int failing);

typedef enum { QC_WHERE_INDEX, QC_WHERE_VALUE } qc_where_kind;

/* What a breakdown shows first. Its strings point into the breakdown. */
typedef struct qc_where_finding {
	qc_where_kind kind;
	/* QC_WHERE_INDEX: every failing element of output `output` lies at `index` along `axis`
	 * (its channel axis when channel), `elements` of them */
	const char *output, *axis, *index;
	int channel;
	long long elements;
	/* QC_WHERE_VALUE: every failing case has var=value, which `have` of the op's `cases` have
	 */
	const char *var, *value;
	long long have;
	long long failing, cases; /* the op's failing cases, and all its cases */
} qc_where_finding;

/* The findings of w, the axes first, then the variables, at most max into out. Returns how
 * many were written. */
int qc_where_findings(json_t *w, qc_where_finding *out, int max);

#endif
