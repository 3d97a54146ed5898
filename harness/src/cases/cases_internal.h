/*
 * cases_internal: what the files of the cases iterator share (cases.c, cases_lua.c,
 * cases_tensor.c, cases_data.c, cases_validate.c): the iterator's state and the steps of
 * building a case. Not for use outside cases/.
 */
#ifndef QC_CASES_INTERNAL_H
#define QC_CASES_INTERNAL_H

#include "cases/cases.h"
#include "spec/slua.h"

typedef struct binding {
	const char *name;
	yaml_node_t *node;
} binding;

#define MAX_REPORTED 64

/* A built tensor's Lua value, kept while the tensor stays as it was when it was made: compared
 * field by field at each use, contents of the quantization included (qc_cases_auto_quant rewrites
 * an output's in place). Made in the case's Lua-made memory, so it lives until the case ends. */
typedef struct tval {
	uint64_t gen; /* the case (qc_cases.gen) it was made in; 0: none */
	const qcf_tensor *t;
	const char *name;
	qcf_dtype dtype;
	int32_t rank;
	int64_t shape[QCF_MAX_RANK];
	const qcf_quant *q;
	int32_t axis, count, block_size;
	float *scales; /* copies (count), malloc'd */
	int32_t *zero_points;
	int32_t cap;
	qc_lval val;
} tval;

/* A sweep variable's Lua value, kept for the case. */
typedef struct vval {
	uint64_t gen;
	const yaml_node_t *node;
	qc_lval val;
} vval;

struct qc_cases {
	const qc_spec *s;
	uint64_t run_seed;
	int with_data;
	qc_diag *diag;
	uint64_t n_points; /* sweep points (0 when the spec has only explicit cases) */
	uint64_t next;     /* index over points * repeat, then explicit cases */
	int n_explicit;
	/* current evaluation context */
	binding bind[2 * QC_MAX_VARS];
	int n_bind;
	int failed;
	int expect_error;
	const yaml_node_t *reported[MAX_REPORTED];
	int n_reported;
	/* items of packed lists reported at: one node an item, so each is reported once */
	struct {
		const yaml_node_t *list;
		uint32_t i;
		yaml_node_t node;
	} pack_err[8];
	int n_pack_err;
	/* the case being built: its tensors built so far are visible to expressions */
	qc_case *cur;
	int n_in_built, n_out_built, n_mid_built;
	int channel;        /* > 0 while a per-channel expression is evaluated (its `c`, from 1) */
	qc_vnode_mark mark; /* Lua-made nodes of earlier cases are dropped back to here */
	qc_case name_case;  /* qc_cases_name's */
	/* the Lua values of the bindings, converted once per case (qc_cases_bindings()) */
	uint64_t gen; /* counts the cases begun: the values of earlier ones are gone */
	tval tv_in[QC_MAX_TENSORS], tv_out[QC_MAX_TENSORS], tv_mid[QC_MAX_TENSORS];
	vval vv[2 * QC_MAX_VARS];
	qc_lval chan_val; /* `c` */
};

/* Template node merged with a case override: override keys win. */
typedef struct tview {
	const char *name;
	yaml_node_t *base;
	yaml_node_t *over; /* mapping, or a sequence meaning {data: [...]} */
} tview;

/* Items of a sequence node, packed (qc_yaml_pack) or not. */
#define seq_len(s, n)   qc_seq_len((s), (n))
#define seq_at(s, n, i) qc_seq_item((s), (n), (i))

/* cases.c: the iterator's reports */
const char *qc_cases_path_of(qc_cases *it);
/* Reports once per node: a sweep repeats the same template many times. */
void qc_cases_fail(qc_cases *it, const yaml_node_t *at, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
int qc_cases_first_report(qc_cases *it, const yaml_node_t *at);

/* cases_lua.c: the values a case reads, through the spec's Lua */
qc_lua *qc_cases_spec_lua(qc_cases *it, const yaml_node_t *at);
void qc_cases_lua_fail(qc_cases *it, const yaml_node_t *n, const char *msg, int line);
int qc_cases_bindings(qc_cases *it, qc_lbind *b, int max);
yaml_node_t *qc_cases_resolve(qc_cases *it, yaml_node_t *n);
int qc_cases_get_num(qc_cases *it, yaml_node_t *n, double *out, const char *what);
const yaml_node_t *qc_cases_pack_err_node(qc_cases *it, const yaml_node_t *r, const qc_yaml_pack *p,
                                          uint32_t i);
int qc_cases_seq_num(qc_cases *it, yaml_node_t *r, const qc_yaml_pack *p, uint64_t i, double *v,
                     const yaml_node_t **at, const char *what);
int qc_cases_get_int(qc_cases *it, yaml_node_t *n, int64_t *out, const char *what);
const char *qc_cases_get_str(qc_cases *it, yaml_node_t *n, const char *what);
int64_t qc_cases_get_nums(qc_cases *it, qc_case *c, yaml_node_t *n, double **out, const char *what);
int64_t qc_cases_get_channel_nums(qc_cases *it, qc_case *c, yaml_node_t *n, int64_t count,
                                  double **out, const char *what);

/* cases_tensor.c: a case's tensors */
yaml_node_t *qc_cases_tget(qc_cases *it, const tview *t, const char *key);
int qc_cases_quant_options(qc_cases *it, yaml_node_t *r, int *nudge, int *narrow);
int qc_cases_one_qparams(qc_cases *it, yaml_node_t *r, int nudge, int64_t qmin, int64_t qmax,
                         qcf_dtype zp_dt, float *scale, int32_t *zp);
int qc_cases_build_tensor(qc_cases *it, qc_case *c, const tview *tv, qcf_tensor *t, qcf_quant *q,
                          int64_t *shape, qc_tensor_nodes *where);
int qc_cases_auto_quant(qc_cases *it, qc_case *c, int k);

/* cases_data.c: the inputs' data */
int qc_cases_fill_explicit(qc_cases *it, qcf_tensor *t, yaml_node_t *dn);
int qc_cases_fill_generated(qc_cases *it, qc_case *c, qcf_tensor *t, yaml_node_t *gn,
                            uint64_t repeat);
int qc_cases_fill_lua(qc_cases *it, qc_case *c, qcf_tensor *t, yaml_node_t *gn);

#endif
