/*
 * cases: expands a loaded spec into concrete cases, one at a time.
 *
 * Sweep points are the cartesian product of the sweep variables in the
 * order they are declared (the last varies fastest), each repeated
 * `repeat` times with fresh random data; explicit cases follow. A case's
 * name and seed depend only on the spec, the point and the run seed, so
 * filters and shards never change a case's inputs.
 *
 * Iteration holds one case at a time: memory does not grow with the
 * number of cases.
 */
#ifndef QC_CASES_H
#define QC_CASES_H

#include "qconform/plugin.h"
#include "spec/spec.h"

/* Bounds a kernel's outputs must keep; a value < 0 means "not bounded". */
typedef struct qc_tolerance {
	int exact;            /* 1: only bit-exact outputs conform */
	double max_abs;       /* max |e| in output LSB (quantized) or steps of scale (float) */
	double bias;          /* |mean e| */
	double mse;           /* mean e^2 */
	double mismatch_rate; /* share of elements with e != 0 */
	double ulp;           /* float outputs: max distance in ULP */
	double abs;           /* float outputs: max |got - expected| */
	double rel;           /* float outputs: max |got - expected| / |expected| */
	double steps;         /* float outputs on a grid: max |e| in steps of the scale */
	int fused;            /* a chain's round_once contract: its fused form bounds a band too */
	int n_roundings;      /* rounding: the legal roundings, by name */
	const char *roundings[8];
	const char *check;             /* Lua chunk of a custom check, or NULL */
	const yaml_node_t *check_node; /* where it is written */
	const char *reason;
} qc_tolerance;

/* Where a tensor of a case is written: the tensor's mapping and its keys' values. */
typedef struct qc_tensor_nodes {
	const yaml_node_t *tensor, *dtype, *shape, *quant, *data;
} qc_tensor_nodes;

typedef struct qc_case {
	char name[512];
	char params[384]; /* "var=value,..." of the sweep point, or the explicit case's name */
	const qc_spec *spec;
	uint64_t seed;
	int expect_error;
	qc_tolerance tol;
	double max_saturation;              /* saturation bound, or < 0 */
	const yaml_node_t *saturation_node; /* where it is written */
	const yaml_node_t *rounding_node;   /* the tolerance's rounding list, or NULL */
	qcf_op_call call;
	qcf_tensor in[QC_MAX_TENSORS];
	qcf_tensor out[QC_MAX_OUTPUTS];
	double *golden[QC_MAX_OUTPUTS]; /* published expected outputs, or NULL */
	/* quant: {auto: range} outputs: parameters chosen from the real-valued result */
	int auto_quant[QC_MAX_OUTPUTS];
	int auto_nudge[QC_MAX_OUTPUTS];
	int64_t auto_qmin[QC_MAX_OUTPUTS], auto_qmax[QC_MAX_OUTPUTS];
	const yaml_node_t *auto_node[QC_MAX_OUTPUTS];
	const char *golden_source;
	/* golden_tolerance: how far a golden value may lie from the set the reference accepts
	 * (in the output's unit: LSB, or steps of a float grid); 0 without one */
	double golden_max_abs;
	const char *golden_tolerance_reason;
	/* storage behind the pointers above */
	qcf_quant quant_in[QC_MAX_TENSORS], quant_out[QC_MAX_OUTPUTS];
	int64_t shape_in[QC_MAX_TENSORS][QCF_MAX_RANK], shape_out[QC_MAX_OUTPUTS][QCF_MAX_RANK];
	qcf_attr attrs[QC_MAX_ATTRS];
	struct qc_chunk *mem;
	/* where the case is defined: an explicit case's name, the sweep, or the document */
	const yaml_node_t *where;
	/* the --profile extension the case belongs to (set by pipeline/plan.c; NULL: the base, or
	 * no profile): the report's case "extension" */
	const char *extension;
	/* where its parts are written (NULL when not written): for reporting at the node that
	 * causes a refusal. A case's override wins over the spec's template. */
	const yaml_node_t *case_node;   /* the explicit case's mapping, or NULL */
	const yaml_node_t *expect_node; /* the expect that applies, or NULL */
	qc_tensor_nodes in_nodes[QC_MAX_TENSORS], out_nodes[QC_MAX_OUTPUTS];
	const yaml_node_t *attr_nodes[QC_MAX_ATTRS]; /* the value of attrs[i] as written */
	/* a chain (the spec's chain:; n_nodes 0: a single op): call.chain is &chain, call.op the
	 * chain's name. Each node is a complete single-op call whose tensors are copies of in[],
	 * mid[] or out[] (same data); mid[] are the intermediates, with buffers of their own. The
	 * storage behind nodes, mid and fused is the case's, allocated for chains only (ch). */
	int n_nodes;
	qcf_chain chain;
	const qcf_op_call *nodes;
	int n_mid;
	qcf_tensor *mid;
	/* the fusion contract; QC_FUSION_ROUND_ONCE: fused is the single op a fused kernel may
	 * also equal (on the graph's inputs, into the graph's outputs); NULL otherwise */
	qc_fusion fusion;
	const qcf_op_call *fused;
	struct qc_case_chain *ch;
} qc_case;

typedef struct qc_cases qc_cases;

/*
 * Starts expanding spec s. with_data = 0 evaluates everything but the
 * input data (validation, listing). Errors go to diag.
 */
qc_cases *qc_cases_begin(const qc_spec *s, uint64_t run_seed, int with_data, qc_diag *diag);

/* 1: *out is the next case (free it with qc_case_free); 0: no more;
 * -1: this case has an error (reported in diag); iteration may continue. */
int qc_cases_next(qc_cases *it, qc_case **out);
void qc_cases_end(qc_cases *it);
/* The next qc_cases_next builds case idx (0 <= idx < qc_cases_count): a case depends only on
 * its index, so any range of a spec's cases can be expanded on its own. */
void qc_cases_seek(qc_cases *it, uint64_t idx);
/* The name of case idx, and where it is defined, without building it (no Lua, no data): the
 * name depends only on the sweep point. Valid until the next call on it. */
const char *qc_cases_name(qc_cases *it, uint64_t idx, const yaml_node_t **where);
void qc_case_free(qc_case *c);

/*
 * qconform validate's check of case c (just returned by qc_cases_next(it)) against the
 * reference: its input and output counts against the op's schema, then the reference's own
 * parameter checks (it computes the case). A case the spec calls valid that the reference
 * refuses (or cannot compute) is an error at the node that causes it (the attribute, the
 * tensor's dtype, shape or quant, the case), with the reference's message; a case with
 * expect: error that the reference accepts is an error at its expect. Errors go to the
 * iterator's diag, once per node.
 */
void qc_cases_check_reference(qc_cases *it, const qc_case *c);

/* Number of cases the spec expands to (without building them). */
uint64_t qc_cases_count(const qc_spec *s);

/* Where line `line` (1-based, 0 unknown) of the Lua chunk written at node n is: a copy of n
 * whose start mark points there (block scalars start on the line after the indicator). */
yaml_node_t qc_chunk_at(const yaml_node_t *n, int line);

/* The spec's sandboxed Lua state, made on first use (drawing on s->lua_share's budgets when a
 * run shares them between copies of the spec); NULL with the reason in err. */
struct qc_lua *qc_spec_lua(qc_spec *s, char *err, size_t err_size);
/* Allocates zeroed memory owned by the case. */
void *qc_case_alloc(qc_case *c, size_t n);

#endif
