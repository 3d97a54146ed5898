#include "cases/cases.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cases/qparams.h"
#include "reference/dtype.h"
#include "reference/ggml.h"
#include "reference/qref.h"
#include "spec/gen.h"
#include "spec/slua.h"

/* ---- case-owned memory ---- */

typedef struct qc_chunk {
	struct qc_chunk *next;
	max_align_t data[];
} qc_chunk;

void *qc_case_alloc(qc_case *c, size_t n)
{
	qc_chunk *k = calloc(1, sizeof *k + (n ? n : 1));
	if (!k) {
		fprintf(stderr, "qconform: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	k->next = c->mem;
	c->mem = k;
	return k->data;
}

/* Strings a case keeps: nodes made by Lua do not outlive the case's expansion. */
static const char *case_strdup(qc_case *c, const char *v)
{
	size_t n = strlen(v) + 1;
	return memcpy(qc_case_alloc(c, n), v, n);
}

void qc_case_free(qc_case *c)
{
	if (!c)
		return;
	for (qc_chunk *k = c->mem, *n; k; k = n) {
		n = k->next;
		free(k);
	}
	free(c);
}

/* ---- iteration state ---- */

typedef struct binding {
	const char *name;
	yaml_node_t *node;
} binding;

#define MAX_REPORTED 64

/* A built tensor's Lua value, kept while the tensor stays as it was when it was made: compared
 * field by field at each use, contents of the quantization included (auto_quant rewrites an
 * output's in place). Made in the case's Lua-made memory, so it lives until the case ends. */
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
	int n_in_built, n_out_built;
	int channel;        /* > 0 while a per-channel expression is evaluated (its `c`, from 1) */
	qc_vnode_mark mark; /* Lua-made nodes of earlier cases are dropped back to here */
	qc_case name_case;  /* qc_cases_name's */
	/* the Lua values of the bindings, converted once per case (bindings()) */
	uint64_t gen; /* counts the cases begun: the values of earlier ones are gone */
	tval tv_in[QC_MAX_TENSORS], tv_out[QC_MAX_TENSORS];
	vval vv[2 * QC_MAX_VARS];
	qc_lval chan_val; /* `c` */
};

static const char *path_of(qc_cases *it)
{
	return it->s->path;
}

/* Reports once per node: a sweep repeats the same template many times. */
static void fail(qc_cases *it, const yaml_node_t *at, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Marks the case failed; 1 if an error at node `at` is still to be reported. */
static int first_report(qc_cases *it, const yaml_node_t *at)
{
	it->failed = 1;
	for (int i = 0; i < it->n_reported; i++)
		if (it->reported[i] == at)
			return 0;
	if (it->n_reported < MAX_REPORTED)
		it->reported[it->n_reported++] = at;
	return 1;
}

static void fail(qc_cases *it, const yaml_node_t *at, const char *fmt, ...)
{
	if (!first_report(it, at))
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	qc_diag_error(it->diag, path_of(it), at, "%s", msg);
}

/* Items of a sequence node, packed (qc_yaml_pack) or not. */
#define seq_len(s, n)   qc_seq_len((s), (n))
#define seq_at(s, n, i) qc_seq_item((s), (n), (i))

static uint64_t block_points(const qc_spec *s, const qc_sweep *sw)
{
	uint64_t n = 1;
	for (int i = 0; i < sw->n_vars; i++)
		n *= seq_len(s, sw->vars[i].node);
	return n;
}

/* Sweep points: the union of the blocks; one point without a sweep unless
 * the spec has only explicit cases. */
static uint64_t sweep_points(const qc_spec *s)
{
	if (!s->n_sweeps)
		return s->cases ? 0 : 1;
	uint64_t n = 0;
	for (int b = 0; b < s->n_sweeps; b++)
		n += block_points(s, &s->sweeps[b]);
	return n;
}

uint64_t qc_cases_count(const qc_spec *s)
{
	return sweep_points(s) * (uint64_t)s->repeat + (s->cases ? seq_len(s, s->cases) : 0);
}

qc_cases *qc_cases_begin(const qc_spec *s, uint64_t run_seed, int with_data, qc_diag *diag)
{
	qc_cases *it = calloc(1, sizeof *it);
	if (!it)
		return NULL;
	it->s = s;
	it->run_seed = run_seed;
	it->with_data = with_data;
	it->diag = diag;
	it->n_points = sweep_points(s);
	it->n_explicit = s->cases ? (int)seq_len(s, s->cases) : 0;
	it->mark = qc_vnode_get_mark(s);
	it->gen = 1;
	if (s->lua) /* the spec-wide Lua budgets count per expansion */
		qc_lua_budget_reset(s->lua);
	return it;
}

void qc_cases_end(qc_cases *it)
{
	if (!it)
		return;
	qc_vnode_reset(it->s, it->mark);
	for (int i = 0; i < QC_MAX_TENSORS; i++) {
		free(it->tv_in[i].scales);
		free(it->tv_in[i].zero_points);
		free(it->tv_out[i].scales);
		free(it->tv_out[i].zero_points);
	}
	free(it);
}

/* ---- values ---- */

/* Follows "=name" to the bound node; NULL (reported) if undefined. */
/* ---- Lua: expressions, generators, checks ---- */

qc_lua *qc_spec_lua(qc_spec *s, char *err, size_t err_size)
{
	if (!s->lua && (s->lua = qc_lua_new(err, err_size)) && s->lua_share)
		qc_lua_share_budget(s->lua, s->lua_share);
	return s->lua;
}

static qc_lua *spec_lua(qc_cases *it, const yaml_node_t *at)
{
	char err[256];
	qc_lua *L = qc_spec_lua((qc_spec *)it->s, err, sizeof err);
	if (!L)
		fail(it, at, "cannot start Lua: %s", err);
	return L;
}

static void *vnode_alloc_cb(void *ctx, size_t n)
{
	return qc_vnode_alloc((const qc_spec *)ctx, n);
}

/* A Lua error at line `line` (1-based, 0 unknown) of the chunk written at node n. */
yaml_node_t qc_chunk_at(const yaml_node_t *n, int line)
{
	yaml_node_t at = *n;
	int block =
	        n->type == YAML_SCALAR_NODE && (n->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
	                                        n->data.scalar.style == YAML_FOLDED_SCALAR_STYLE);
	if (block) /* a block scalar's text starts on the line after its indicator */
		at.start_mark.line += (size_t)(line > 0 ? line : 1);
	else if (line > 1)
		at.start_mark.line += (size_t)(line - 1);
	if (block || line > 1)
		at.start_mark.column = n->start_mark.column;
	return at;
}

static void lua_fail(qc_cases *it, const yaml_node_t *n, const char *msg, int line)
{
	yaml_node_t at = qc_chunk_at(n, line);
	if (first_report(it, n))
		qc_diag_error(it->diag, path_of(it), &at, "Lua: %s", msg);
}

static qc_lval *lval_list_num(const qc_spec *s, const double *x, size_t n, int as_int)
{
	qc_lval *l = qc_vnode_alloc(s, sizeof *l);
	qc_lval *items = qc_vnode_alloc(s, (n ? n : 1) * sizeof *items);
	for (size_t k = 0; k < n; k++) {
		if (as_int)
			items[k].kind = QC_LV_INT, items[k].i = (int64_t)x[k];
		else
			items[k].kind = QC_LV_NUM, items[k].num = x[k];
	}
	l->kind = QC_LV_LIST, l->n = n, l->items = items;
	return l;
}

/* A built tensor as Lua sees it: {name, dtype, rank, shape, and when quantized axis, scale,
 * zero_point, scales, zero_points, qmin, qmax, block_size (blocked only)}; per axis, scale and
 * zero_point are lists too, so that filter.scale[c] reads channel c (from 1). */
static void lval_of_tensor(const qc_spec *s, const qcf_tensor *t, qc_lval *v)
{
	static const char *const keys[] = {"axis",   "block_size", "dtype",      "name",
	                                   "qmax",   "qmin",       "rank",       "scale",
	                                   "scales", "shape",      "zero_point", "zero_points"};
	const size_t nkeys = sizeof keys / sizeof keys[0];
	qc_lval *items = qc_vnode_alloc(s, nkeys * sizeof *items);
	size_t n = 0;
	const char **k = qc_vnode_alloc(s, nkeys * sizeof *k);
	double shape[QCF_MAX_RANK];
	for (int i = 0; i < t->rank; i++)
		shape[i] = (double)t->shape[i];
	const qcf_quant *q = t->quant;
	int64_t qmin = 0, qmax = 0;
	int has_range = qref_dtype_range(t->dtype, &qmin, &qmax);
	for (size_t i = 0; i < nkeys; i++) {
		const char *key = keys[i];
		qc_lval *x = &items[n];
		if (!strcmp(key, "dtype")) {
			x->kind = QC_LV_STR, x->str = qref_dtype_name(t->dtype);
		} else if (!strcmp(key, "name")) {
			x->kind = QC_LV_STR, x->str = t->name;
		} else if (!strcmp(key, "rank")) {
			x->kind = QC_LV_INT, x->i = t->rank;
		} else if (!strcmp(key, "shape")) {
			*x = *lval_list_num(s, shape, (size_t)t->rank, 1);
		} else if ((!strcmp(key, "qmin") || !strcmp(key, "qmax")) && has_range) {
			x->kind = QC_LV_INT, x->i = !strcmp(key, "qmin") ? qmin : qmax;
		} else if (q && !strcmp(key, "axis")) {
			x->kind = QC_LV_INT, x->i = q->axis;
		} else if (q && q->block_size > 0 && !strcmp(key, "block_size")) {
			x->kind = QC_LV_INT, x->i = q->block_size;
		} else if (q &&
		           (!strcmp(key, "scales") || (!strcmp(key, "scale") && q->axis >= 0))) {
			double sc[1];
			double *arr = q->count > 1
			                      ? qc_vnode_alloc(s, (size_t)q->count * sizeof *arr)
			                      : sc;
			for (int c = 0; c < q->count; c++)
				arr[c] = q->scales[c];
			*x = *lval_list_num(s, arr, (size_t)q->count, 0);
		} else if (q && (!strcmp(key, "zero_points") ||
		                 (!strcmp(key, "zero_point") && q->axis >= 0))) {
			double zb[1];
			double *arr = q->count > 1
			                      ? qc_vnode_alloc(s, (size_t)q->count * sizeof *arr)
			                      : zb;
			for (int c = 0; c < q->count; c++)
				arr[c] = q->zero_points[c];
			*x = *lval_list_num(s, arr, (size_t)q->count, 1);
		} else if (q && !strcmp(key, "scale")) {
			x->kind = QC_LV_NUM, x->num = q->scales[0];
		} else if (q && !strcmp(key, "zero_point")) {
			x->kind = QC_LV_INT, x->i = q->zero_points[0];
		} else {
			continue;
		}
		k[n++] = key;
	}
	v->kind = QC_LV_MAP, v->n = n, v->items = items, v->keys = k;
}

/* Does the tensor still look as it did when its value was made in this case? */
static int tval_fresh(const qc_cases *it, const tval *v, const qcf_tensor *t)
{
	const qcf_quant *q = t->quant;
	if (v->gen != it->gen || v->t != t || v->name != t->name || v->dtype != t->dtype ||
	    v->rank != t->rank || v->q != q)
		return 0;
	for (int d = 0; d < t->rank; d++)
		if (v->shape[d] != t->shape[d])
			return 0;
	if (!q)
		return 1;
	return v->axis == q->axis && v->count == q->count && v->block_size == q->block_size &&
	       (q->count <= 0 ||
	        (!memcmp(v->scales, q->scales, (size_t)q->count * sizeof(float)) &&
	         !memcmp(v->zero_points, q->zero_points, (size_t)q->count * sizeof(int32_t))));
}

/* The Lua value of built tensor t, converted once per case (and again if t changes). */
static const qc_lval *tensor_value(qc_cases *it, tval *v, const qcf_tensor *t)
{
	if (tval_fresh(it, v, t))
		return &v->val;
	const qcf_quant *q = t->quant;
	v->gen = 0;
	if (q && q->count > v->cap) {
		float *sc = realloc(v->scales, (size_t)q->count * sizeof *sc);
		if (sc)
			v->scales = sc;
		int32_t *zp = sc ? realloc(v->zero_points, (size_t)q->count * sizeof *zp) : NULL;
		if (zp)
			v->zero_points = zp;
		if (!sc || !zp) { /* no copy to compare with: convert at every use */
			qc_lval *x = qc_vnode_alloc(it->s, sizeof *x);
			lval_of_tensor(it->s, t, x);
			return x;
		}
		v->cap = q->count;
	}
	lval_of_tensor(it->s, t, &v->val);
	v->t = t;
	v->name = t->name;
	v->dtype = t->dtype;
	v->rank = t->rank;
	for (int d = 0; d < t->rank; d++)
		v->shape[d] = t->shape[d];
	v->q = q;
	if (q) {
		v->axis = q->axis;
		v->count = q->count;
		v->block_size = q->block_size;
		if (q->count > 0) {
			memcpy(v->scales, q->scales, (size_t)q->count * sizeof(float));
			memcpy(v->zero_points, q->zero_points, (size_t)q->count * sizeof(int32_t));
		}
	}
	v->gen = it->gen;
	return &v->val;
}

/* The Lua value of sweep variable i, converted once per case. */
static const qc_lval *var_value(qc_cases *it, int i)
{
	vval *v = &it->vv[i];
	if (v->gen != it->gen || v->node != it->bind[i].node) {
		qc_lval_of_node(it->s, it->bind[i].node, &v->val);
		v->node = it->bind[i].node;
		v->gen = it->gen;
	}
	return &v->val;
}

/* Everything an expression may name: sweep variables, built tensors, `c`. Lua converts a
 * name to a Lua value on its first use in an evaluation (slua.h), from these values, which
 * are converted once per case. */
static int bindings(qc_cases *it, qc_lbind *b, int max)
{
	int n = 0;
	qc_case *c = it->cur;
	for (int i = 0; c && i < it->n_in_built && n < max; i++)
		b[n++] = (qc_lbind){c->in[i].name, tensor_value(it, &it->tv_in[i], &c->in[i])};
	for (int i = 0; c && i < it->n_out_built && n < max; i++)
		b[n++] = (qc_lbind){c->out[i].name, tensor_value(it, &it->tv_out[i], &c->out[i])};
	for (int i = 0; i < it->n_bind && n < max; i++) /* variables win over tensor names */
		b[n++] = (qc_lbind){it->bind[i].name, var_value(it, i)};
	if (it->channel > 0 && n < max) {
		it->chan_val = (qc_lval){.kind = QC_LV_INT, .i = it->channel};
		b[n++] = (qc_lbind){"c", &it->chan_val};
	}
	return n;
}

/* Follows "=expr": a bound variable directly, anything else through Lua. NULL (reported)
 * on an error. */
static yaml_node_t *resolve(qc_cases *it, yaml_node_t *n)
{
	const char *v = qc_scalar(n);
	if (!v || v[0] != '=')
		return n;
	const char *name = v + 1;
	while (*name == ' ')
		name++;
	size_t len = strlen(name);
	while (len && name[len - 1] == ' ')
		len--;
	int ident = len > 0;
	for (size_t i = 0; i < len; i++) {
		char ch = name[i];
		ident &= ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		         (i && ch >= '0' && ch <= '9');
	}
	if (ident) {
		for (int i = it->n_bind - 1; i >= 0; i--)
			if (strlen(it->bind[i].name) == len &&
			    strncmp(it->bind[i].name, name, len) == 0)
				return it->bind[i].node;
		int tensor = 0;
		for (int i = 0; it->cur && i < it->n_in_built; i++)
			tensor |= !strncmp(it->cur->in[i].name, name, len) &&
			          !it->cur->in[i].name[len];
		for (int i = 0; it->cur && i < it->n_out_built; i++)
			tensor |= !strncmp(it->cur->out[i].name, name, len) &&
			          !it->cur->out[i].name[len];
		if (!tensor && !(len == 1 && name[0] == 'c' && it->channel > 0)) {
			fail(it, n, "sweep variable '%.*s' undefined", (int)len, name);
			return NULL;
		}
	}
	qc_lua *L = spec_lua(it, n);
	if (!L)
		return NULL;
	qc_lbind b[2 * QC_MAX_VARS + 2 * QC_MAX_TENSORS + 1];
	int nb = bindings(it, b, (int)(sizeof b / sizeof b[0]));
	qc_lval out;
	char err[512];
	int line = 0;
	if (qc_lua_eval(L, v + 1, b, nb, vnode_alloc_cb, (void *)it->s, &out, err, sizeof err,
	                &line) != 0) {
		lua_fail(it, n, err, line);
		return NULL;
	}
	return qc_node(it->s, qc_node_of_lval(it->s, &out, n));
}

static int get_num(qc_cases *it, yaml_node_t *n, double *out, const char *what)
{
	yaml_node_t *r = resolve(it, n);
	if (!r)
		return 0;
	const char *v = qc_scalar(r);
	int b;
	if (v && qc_parse_float(v, out))
		return 1;
	if (v && qc_parse_bool(v, &b)) {
		*out = b;
		return 1;
	}
	fail(it, n, "%s must be a number, not %s", what, v ? v : "a list or mapping");
	return 0;
}

/* Item i of packed list r (pack p) as a node to report at: for the same item, the same node,
 * held by the iterator (fail reports each node once). */
static const yaml_node_t *pack_err_node(qc_cases *it, const yaml_node_t *r, const qc_yaml_pack *p,
                                        uint32_t i)
{
	int k = 0;
	while (k < it->n_pack_err && !(it->pack_err[k].list == r && it->pack_err[k].i == i))
		k++;
	if (k == it->n_pack_err) {
		int cap = (int)(sizeof it->pack_err / sizeof it->pack_err[0]);
		k = it->n_pack_err < cap ? it->n_pack_err++ : cap - 1;
		it->pack_err[k].list = r;
		it->pack_err[k].i = i;
		memset(&it->pack_err[k].node, 0, sizeof it->pack_err[k].node);
		it->pack_err[k].node.type = YAML_SCALAR_NODE;
		qc_yaml_pack_item(it->s->text, &it->s->packs, p, i, NULL, 0, NULL,
		                  &it->pack_err[k].node.start_mark, &it->pack_err[k].node.end_mark);
	}
	return &it->pack_err[k].node;
}

/* Value i of sequence r (resolved) as a number: a packed list's read from its text. 0 after
 * reporting (at *at, the item's node) when it is not one. */
static int seq_num(qc_cases *it, yaml_node_t *r, const qc_yaml_pack *p, uint64_t i, double *v,
                   const yaml_node_t **at, const char *what)
{
	if (p) {
		char buf[64];
		qc_yaml_pack_item(it->s->text, &it->s->packs, p, (uint32_t)i, buf, sizeof buf, NULL,
		                  NULL, NULL);
		*at = NULL;
		if (qc_parse_float(buf, v))
			return 1;
		*at = pack_err_node(it, r, p, (uint32_t)i);
		fail(it, *at, "%s must be a number, not %s", what, buf);
		return 0;
	}
	yaml_node_t *e = seq_at(it->s, r, i);
	*at = e;
	return get_num(it, e, v, what);
}

static int get_int(qc_cases *it, yaml_node_t *n, int64_t *out, const char *what)
{
	yaml_node_t *r = resolve(it, n);
	if (!r)
		return 0;
	const char *v = qc_scalar(r);
	double d;
	if (v && qc_parse_int(v, out))
		return 1;
	if (v && qc_parse_float(v, &d) && d == floor(d) && fabs(d) < 9007199254740992.0) {
		*out = (int64_t)d;
		return 1;
	}
	fail(it, n, "%s must be an integer, not %s", what, v ? v : "a list or mapping");
	return 0;
}

static const char *get_str(qc_cases *it, yaml_node_t *n, const char *what)
{
	yaml_node_t *r = resolve(it, n);
	if (!r)
		return NULL;
	const char *v = qc_scalar(r);
	if (!v)
		fail(it, n, "%s must be a scalar", what);
	return v;
}

/* A list of numbers (sequence, possibly through a variable). Returns count or -1. */
static int64_t get_nums(qc_cases *it, qc_case *c, yaml_node_t *n, double **out, const char *what)
{
	yaml_node_t *r = resolve(it, n);
	if (!r)
		return -1;
	if (r->type != YAML_SEQUENCE_NODE) {
		fail(it, n, "%s must be a list of numbers", what);
		return -1;
	}
	uint64_t len = seq_len(it->s, r);
	double *v = qc_case_alloc(c, (len ? len : 1) * sizeof *v);
	const qc_yaml_pack *p = qc_yaml_pack_of(&it->s->doc, &it->s->packs, r);
	for (uint64_t i = 0; i < len; i++) {
		const yaml_node_t *at;
		if (!seq_num(it, r, p, i, &v[i], &at, what))
			return -1;
	}
	*out = v;
	return (int64_t)len;
}

/* Does expression text name the channel variable c (as a whole identifier)? */
static int mentions_channel(const char *e)
{
	if (!e || e[0] != '=')
		return 0;
	for (const char *p = e + 1; *p; p++) {
		int before = p > e + 1 &&
		             (p[-1] == '_' || p[-1] == '.' || isalnum((unsigned char)p[-1]));
		int after = p[1] == '_' || isalnum((unsigned char)p[1]);
		if (*p == 'c' && !before && !after)
			return 1;
	}
	return 0;
}

/* A per-axis list: a list (or a variable or expression giving one), or one expression of
 * the channel c (from 1) evaluated for each channel: "=input.scale * filter.scale[c]". */
static int64_t get_channel_nums(qc_cases *it, qc_case *c, yaml_node_t *n, int64_t count,
                                double **out, const char *what)
{
	yaml_node_t *r = mentions_channel(qc_scalar(n)) ? NULL : resolve(it, n);
	if (r && qc_scalar(r) && count >= 1 && count <= (1 << 24)) {
		/* one number for every channel: zero_points: 0 */
		double v0;
		if (!get_num(it, r, &v0, what))
			return -1;
		double *v = qc_case_alloc(c, (size_t)count * sizeof *v);
		for (int64_t ch = 0; ch < count; ch++)
			v[ch] = v0;
		*out = v;
		return count;
	}
	if (!mentions_channel(qc_scalar(n)))
		return get_nums(it, c, n, out, what);
	if (count < 1 || count > (1 << 24)) {
		fail(it, n, "%s: a per-channel expression needs a valid axis", what);
		return -1;
	}
	double *v = qc_case_alloc(c, (size_t)count * sizeof *v);
	for (int64_t ch = 0; ch < count; ch++) {
		it->channel = (int)ch + 1;
		yaml_node_t *r = resolve(it, n);
		it->channel = 0;
		if (!r || !get_num(it, r, &v[ch], what))
			return -1;
	}
	*out = v;
	return count;
}

/* Writes t at buf + used as snprintf(buf + used, size - used, "%s", t) would (nothing once
 * used >= size, the text cut to what fits, NUL-terminated) and returns used plus the length
 * of t, as snprintf counts. Names are built a case at a time: without printf's parsing. */
static size_t text_put(char *buf, size_t size, size_t used, const char *t)
{
	size_t n = strlen(t);
	if (used < size) {
		size_t room = size - used - 1, k = n < room ? n : room;
		memcpy(buf + used, t, k);
		buf[used + k] = 0;
	}
	return used + n;
}

/* Text of a sweep value for case names: scalars as written, lists joined by ';'. */
static void value_text(const qc_spec *s, const yaml_node_t *n, char *buf, size_t size)
{
	const char *v = qc_scalar(n);
	if (v) {
		text_put(buf, size, 0, v);
		return;
	}
	size_t used = 0;
	buf[0] = 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		used = text_put(buf, size, used, "[");
		for (uint64_t i = 0; i < seq_len(s, n) && used < size; i++) {
			char part[64];
			value_text(s, seq_at(s, n, i), part, sizeof part);
			used = text_put(buf, size, used, i ? ";" : "");
			used = text_put(buf, size, used, part);
		}
		if (used < size)
			text_put(buf, size, used, "]");
	} else if (n->type == YAML_MAPPING_NODE) {
		used = text_put(buf, size, used, "{");
		int first = 1;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top && used < size; p++, first = 0) {
			char part[96];
			value_text(s, qc_node(s, p->value), part, sizeof part);
			const char *key = qc_scalar(qc_node(s, p->key));
			used = text_put(buf, size, used, first ? "" : ";");
			used = text_put(buf, size, used, key ? key : "(null)");
			used = text_put(buf, size, used, ":");
			used = text_put(buf, size, used, part);
		}
		if (used < size)
			text_put(buf, size, used, "}");
	}
}

/* ---- tensors ---- */

/* Template node merged with a case override: override keys win. */
typedef struct tview {
	const char *name;
	yaml_node_t *base;
	yaml_node_t *over; /* mapping, or a sequence meaning {data: [...]} */
} tview;

static yaml_node_t *tget(qc_cases *it, const tview *t, const char *key)
{
	if (t->over) {
		if (t->over->type == YAML_SEQUENCE_NODE) {
			if (strcmp(key, "data") == 0)
				return t->over;
		} else {
			yaml_node_t *v = qc_map_get(it->s, t->over, key);
			if (v)
				return v;
		}
	}
	return qc_map_get(it->s, t->base, key);
}

static int build_shape(qc_cases *it, yaml_node_t *n, int64_t *shape, int32_t *rank)
{
	yaml_node_t *r = resolve(it, n);
	if (!r)
		return 0;
	if (r->type != YAML_SEQUENCE_NODE) {
		fail(it, n, "shape must be a list of sizes");
		return 0;
	}
	if (seq_len(it->s, r) > QCF_MAX_RANK) {
		fail(it, n, "rank %llu exceeds the maximum %d",
		     (unsigned long long)seq_len(it->s, r), QCF_MAX_RANK);
		return 0;
	}
	*rank = (int32_t)seq_len(it->s, r);
	for (int32_t i = 0; i < *rank; i++) {
		yaml_node_t *d = seq_at(it->s, r, (uint64_t)i);
		if (!get_int(it, d, &shape[i], "a dimension"))
			return 0;
		if (shape[i] < 0 || shape[i] > (1 << 28)) {
			fail(it, d, "dimension %lld out of range [0, 2^28]", (long long)shape[i]);
			return 0;
		}
	}
	uint64_t n_el = 1; /* the product without overflow: 2^16 x 2^16 x 2^16 x 2^16 is not 0 */
	for (int32_t i = 0; i < *rank; i++) {
		if (shape[i] && n_el > QC_TENSOR_MAX_ELEMENTS / (uint64_t)shape[i]) {
			fail(it, n, "tensor of more than %llu elements is too large",
			     (unsigned long long)QC_TENSOR_MAX_ELEMENTS);
			return 0;
		}
		n_el *= (uint64_t)shape[i];
	}
	return 1;
}

static int check_scale(qc_cases *it, yaml_node_t *at, double s)
{
	if (it->expect_error)
		return 1;
	if (!(s > 0) || !isfinite(s) || !isfinite((float)s) || (float)s == 0) {
		fail(it, at, "scale %g must be finite and > 0 (as a float32)", s);
		return 0;
	}
	return 1;
}

static int check_zp(qc_cases *it, yaml_node_t *at, int64_t zp, qcf_dtype dt)
{
	int64_t lo, hi;
	if (it->expect_error || !qref_dtype_range(dt, &lo, &hi))
		return 1;
	if (zp < lo || zp > hi) {
		fail(it, at, "zero point %lld outside %s [%lld, %lld]", (long long)zp,
		     qref_dtype_name(dt), (long long)lo, (long long)hi);
		return 0;
	}
	return 1;
}

/* Converts one (scale, zp) / (mean, std_dev) / (min, max) form. */
/* nudge and narrow_range of a quant mapping. */
static int quant_options(qc_cases *it, yaml_node_t *r, int *nudge, int *narrow)
{
	yaml_node_t *v;
	*nudge = QC_NUDGE_TF;
	*narrow = 0;
	if ((v = qc_map_get(it->s, r, "nudge"))) {
		const char *nm = get_str(it, v, "nudge");
		if (!nm)
			return 0;
		if ((*nudge = qc_nudge_parse(nm)) < 0) {
			fail(it, v, "unknown nudge '%s' (tf, onnx or symmetric)", nm);
			return 0;
		}
	}
	if ((v = qc_map_get(it->s, r, "narrow_range"))) {
		double b;
		if (!get_num(it, v, &b, "narrow_range"))
			return 0;
		*narrow = b != 0;
	}
	return 1;
}

/* One (scale, zp) / (mean, std_dev) / (min, max) form of mapping r over [qmin, qmax].
 * The zero point of the (scale, zp) form is checked against dtype zp_dt (if not INVALID)
 * and against [qmin, qmax]. */
static int one_qparams(qc_cases *it, yaml_node_t *r, int nudge, int64_t qmin, int64_t qmax,
                       qcf_dtype zp_dt, float *scale, int32_t *zp)
{
	const qc_spec *s = it->s;
	yaml_node_t *scale_n = qc_map_get(s, r, "scale"), *zp_n = qc_map_get(s, r, "zero_point");
	yaml_node_t *mean_n = qc_map_get(s, r, "mean"), *std_n = qc_map_get(s, r, "std_dev");
	yaml_node_t *min_n = qc_map_get(s, r, "min"), *max_n = qc_map_get(s, r, "max");
	char err[256];
	qc_qparams qp;
	int forms = !!scale_n + !!(mean_n || std_n) + !!(min_n || max_n);
	if (forms != 1) {
		fail(it, r,
		     "quant takes exactly one of: scale (+ zero_point), mean + std_dev, min + max");
		return 0;
	}
	double a, b;
	int rc;
	if (scale_n) {
		int64_t z = 0;
		if (!get_num(it, scale_n, &a, "scale") ||
		    (zp_n && !get_int(it, zp_n, &z, "zero_point")))
			return 0;
		if (!check_scale(it, scale_n, a) || !check_zp(it, zp_n ? zp_n : scale_n, z, zp_dt))
			return 0;
		if (zp_dt != QCF_DTYPE_INVALID || it->expect_error) {
			*scale = (float)a;
			*zp = (int32_t)z;
			return 1;
		}
		rc = qc_qparams_from_scale_zp(a, z, qmin, qmax, &qp, err, sizeof err);
	} else if (zp_n) {
		fail(it, zp_n, "zero_point goes with scale, not with mean/std_dev or min/max");
		return 0;
	} else if (mean_n || std_n) {
		if (!mean_n || !std_n) {
			fail(it, r, "mean and std_dev go together");
			return 0;
		}
		if (!get_num(it, mean_n, &a, "mean") || !get_num(it, std_n, &b, "std_dev"))
			return 0;
		rc = qc_qparams_from_mean_std(a, b, qmin, qmax, &qp, err, sizeof err);
	} else {
		if (!min_n || !max_n) {
			fail(it, r, "min and max go together");
			return 0;
		}
		if (!get_num(it, min_n, &a, "min") || !get_num(it, max_n, &b, "max"))
			return 0;
		rc = qc_qparams_from_min_max(a, b, qmin, qmax, (qc_nudge)nudge, &qp, err,
		                             sizeof err);
	}
	if (rc != 0) {
		fail(it, r, "%s", err);
		return 0;
	}
	*scale = qp.scale;
	*zp = qp.zero_point;
	return 1;
}

static int build_quant_values(qc_cases *it, qc_case *c, yaml_node_t *qn, yaml_node_t *r,
                              qcf_tensor *t, qcf_quant *q);

/*
 * A tensor's quant: its values (build_quant_values), then what ABI version 2 adds.
 * scale_dtype (float32, float16, bfloat16, float8e8m0, float8e4m3fn): the type a model stores
 * the scales in; each scale is rounded to it (nearest even; e8m0: the nearest power of two)
 * and must stay finite and > 0. A float8/6/4 tensor's zero point is a value of its own type
 * (ONNX QuantizeLinear's y_zero_point of a float8 type): an integer that type holds exactly,
 * in float_zero_points, with zero_point_dtype set to the tensor's type.
 */
static int build_quant(qc_cases *it, qc_case *c, yaml_node_t *qn, qcf_tensor *t, qcf_quant *q)
{
	yaml_node_t *r = resolve(it, qn);
	if (!r)
		return 0;
	if (r->type != YAML_MAPPING_NODE) {
		fail(it, qn, "quant must be a mapping");
		return 0;
	}
	if (!build_quant_values(it, c, qn, r, t, q))
		return 0;
	yaml_node_t *sd_n = qc_map_get(it->s, r, "scale_dtype");
	if (sd_n) {
		const char *name = get_str(it, sd_n, "scale_dtype");
		if (!name)
			return 0;
		qcf_dtype sd = qref_dtype_parse(name);
		if (sd != QCF_FLOAT32 && sd != QCF_FLOAT16 && sd != QCF_BFLOAT16 &&
		    sd != QCF_FLOAT8E8M0 && sd != QCF_FLOAT8E4M3FN) {
			fail(it, sd_n,
			     "scale_dtype '%s': float32, float16, bfloat16, float8e8m0 or "
			     "float8e4m3fn",
			     name);
			return 0;
		}
		if (q->count > 0 && q->scales && sd != QCF_FLOAT32) {
			float *sc = qc_case_alloc(c, (size_t)q->count * sizeof *sc);
			int64_t one = 1;
			qcf_tensor cell = {sizeof cell, "scale", sd, 1, &one, NULL, 8, NULL};
			uint8_t buf[8];
			cell.data = buf;
			for (int32_t i = 0; i < q->count; i++) {
				memset(buf, 0, sizeof buf);
				qref_set(&cell, 0, q->scales[i]);
				sc[i] = (float)qref_get(&cell, 0);
				if (!(sc[i] > 0) || !isfinite(sc[i])) {
					if (it->expect_error)
						continue;
					fail(it, sd_n,
					     "scale %g is %g as %s: a scale must be finite and > 0",
					     (double)q->scales[i], (double)sc[i], name);
					return 0;
				}
			}
			q->scales = sc;
		}
		q->scale_dtype = sd;
	}
	if (qref_dtype_is_small_float(t->dtype) && q->zero_points) {
		float *fz = qc_case_alloc(c, (size_t)q->count * sizeof *fz);
		for (int32_t i = 0; i < q->count; i++) {
			double z = q->zero_points[i];
			if (qref_small_to_f32(t->dtype, qref_small_from(t->dtype, z, 0)) != z &&
			    !it->expect_error) {
				fail(it, qn, "zero point %g is not a %s value", z,
				     qref_dtype_name(t->dtype));
				return 0;
			}
			fz[i] = (float)z;
		}
		q->float_zero_points = fz;
		q->zero_point_dtype = t->dtype;
	}
	return 1;
}

static int build_quant_values(qc_cases *it, qc_case *c, yaml_node_t *qn, yaml_node_t *r,
                              qcf_tensor *t, qcf_quant *q)
{
	const qc_spec *s = it->s;
	int nudge, narrow;
	int64_t qmin, qmax;
	if (!quant_options(it, r, &nudge, &narrow))
		return 0;
	if (qref_dtype_is_small_float(t->dtype)) {
		/* scale (+ zero_point) forms only: the ranges' forms are integer arithmetic */
		if (qc_map_get(s, r, "mean") || qc_map_get(s, r, "min") ||
		    qc_map_get(s, r, "auto")) {
			fail(it, qn, "a %s tensor's quant takes scale (+ zero_point) or scales",
			     qref_dtype_name(t->dtype));
			return 0;
		}
		qmin = qmax = 0;
	} else if (t->dtype == QCF_INT64) {
		/* an int64 bias carries (scale, 0): the range forms need a range qparams can hold
		 */
		qmin = INT64_MIN;
		qmax = INT64_MAX;
	} else if (!qc_dtype_qrange(t->dtype, narrow, &qmin, &qmax)) {
		fail(it, qn, "quant needs an integer dtype, not %s", qref_dtype_name(t->dtype));
		return 0;
	}
	memset(q, 0, sizeof *q);
	q->struct_size = sizeof *q;
	yaml_node_t *auto_n = qc_map_get(s, r, "auto");
	if (auto_n) {
		/* chosen once the inputs exist (auto_quant); a placeholder until then */
		const char *how = get_str(it, auto_n, "auto");
		if (!how)
			return 0;
		if (strcmp(how, "range") != 0) {
			fail(it, auto_n,
			     "auto must be 'range' (parameters from the real-valued result)");
			return 0;
		}
		for (yaml_node_pair_t *p = r->data.mapping.pairs.start;
		     p < r->data.mapping.pairs.top; p++) {
			const char *k = qc_scalar(qc_node(s, p->key));
			if (strcmp(k, "auto") && strcmp(k, "nudge") && strcmp(k, "narrow_range")) {
				fail(it, qc_node(s, p->key),
				     "auto quant takes only nudge and narrow_range besides auto");
				return 0;
			}
		}
		float *sc = qc_case_alloc(c, sizeof *sc);
		int32_t *zp = qc_case_alloc(c, sizeof *zp);
		*sc = 1;
		q->axis = -1;
		q->count = 1;
		q->scales = sc;
		q->zero_points = zp;
		int k = (int)(t - c->out);
		if (k < 0 || k >= QC_MAX_TENSORS) {
			fail(it, auto_n, "auto quant is for outputs");
			return 0;
		}
		c->auto_quant[k] = 1;
		c->auto_nudge[k] = qc_map_get(s, r, "nudge") ? nudge : QC_NUDGE_ONNX;
		c->auto_qmin[k] = qmin;
		c->auto_qmax[k] = qmax;
		c->auto_node[k] = auto_n;
		return 1;
	}
	yaml_node_t *axis_n = qc_map_get(s, r, "axis");
	yaml_node_t *scales_n = qc_map_get(s, r, "scales");
	yaml_node_t *zps_n = qc_map_get(s, r, "zero_points");
	if (!axis_n) {
		if (qc_map_get(s, r, "block_size")) {
			fail(it, qc_map_get(s, r, "block_size"),
			     "block_size needs an axis (blocked quantization)");
			return 0;
		}
		if (scales_n || zps_n) {
			fail(it, scales_n ? scales_n : zps_n,
			     "scales/zero_points need an axis (per-axis quantization)");
			return 0;
		}
		float *sc = qc_case_alloc(c, sizeof *sc);
		int32_t *zp = qc_case_alloc(c, sizeof *zp);
		if (!one_qparams(it, r, nudge, qmin, qmax, t->dtype, sc, zp))
			return 0;
		q->axis = -1;
		q->count = 1;
		q->scales = sc;
		q->zero_points = zp;
		return 1;
	}
	int64_t axis;
	if (!get_int(it, axis_n, &axis, "axis"))
		return 0;
	if (axis < 0 || axis >= t->rank) {
		if (!it->expect_error) {
			fail(it, axis_n, "axis %lld out of range for a tensor of rank %d",
			     (long long)axis, t->rank);
			return 0;
		}
	}
	int64_t axis_size = axis >= 0 && axis < t->rank ? t->shape[axis] : -1;
	/* block_size (ONNX blocked quantization, opset 21): the scales are a tensor of t's shape
	 * with dimension axis replaced by ceil(shape[axis] / block_size), row-major */
	int64_t block_size = 0;
	yaml_node_t *bs_n = qc_map_get(s, r, "block_size");
	if (bs_n) {
		if (!get_int(it, bs_n, &block_size, "block_size"))
			return 0;
		if ((block_size < 0 || block_size > INT32_MAX) && !it->expect_error) {
			fail(it, bs_n, "block_size must be > 0 (0: not blocked), got %lld",
			     (long long)block_size);
			return 0;
		}
		if (block_size < INT32_MIN || block_size > INT32_MAX) {
			fail(it, bs_n, "block_size %lld is not an int32", (long long)block_size);
			return 0;
		}
		if (block_size > 0 && axis_size >= 0) {
			int64_t n = 1;
			for (int k = 0; k < t->rank && n >= 0; k++) {
				int64_t d = k == axis ? (t->shape[k] + block_size - 1) / block_size
				                      : t->shape[k];
				n = d != 0 && n > (1 << 24) / d ? -1 : n * d;
			}
			axis_size = n; /* the number of scale entries */
		}
	}
	double *sv = NULL, *zv = NULL, *minv = NULL, *maxv = NULL;
	int64_t ns = -1, nz = -1, nmin = -1, nmax = -1;
	yaml_node_t *min_n = qc_map_get(s, r, "min"), *max_n = qc_map_get(s, r, "max");
	if (qc_map_get(s, r, "scale") || qc_map_get(s, r, "zero_point") ||
	    qc_map_get(s, r, "mean")) {
		fail(it, r, "per-axis quant takes scales (+ zero_points) or min + max lists");
		return 0;
	}
	if (scales_n) {
		if ((ns = get_channel_nums(it, c, scales_n, axis_size, &sv, "scales")) < 0)
			return 0;
		if (zps_n &&
		    (nz = get_channel_nums(it, c, zps_n, axis_size, &zv, "zero_points")) < 0)
			return 0;
	} else if (min_n && max_n) {
		if ((nmin = get_nums(it, c, min_n, &minv, "min")) < 0 ||
		    (nmax = get_nums(it, c, max_n, &maxv, "max")) < 0)
			return 0;
		if (nmin != nmax) {
			fail(it, max_n, "per-axis min has %lld values but max has %lld",
			     (long long)nmin, (long long)nmax);
			return 0;
		}
		ns = nmin;
	} else {
		fail(it, r, "per-axis quant needs scales (or min and max lists)");
		return 0;
	}
	if (nz >= 0 && nz != ns) {
		fail(it, zps_n, "%lld zero_points for %lld scales", (long long)nz, (long long)ns);
		return 0;
	}
	if (ns != axis_size && !it->expect_error) {
		if (block_size > 0)
			fail(it, scales_n ? scales_n : min_n,
			     "blocked count %lld differs from the %lld entries of the "
			     "blocked scale tensor (axis %lld, block_size %lld)",
			     (long long)ns, (long long)axis_size, (long long)axis,
			     (long long)block_size);
		else
			fail(it, scales_n ? scales_n : min_n,
			     "per-axis count %lld differs from the size %lld of axis %lld",
			     (long long)ns, (long long)axis_size, (long long)axis);
		return 0;
	}
	if (ns < 1 || ns > (1 << 24)) {
		fail(it, scales_n ? scales_n : min_n, "per-axis quant needs 1 to 2^24 channels");
		return 0;
	}
	float *sc = qc_case_alloc(c, (size_t)ns * sizeof *sc);
	int32_t *zp = qc_case_alloc(c, (size_t)ns * sizeof *zp);
	for (int64_t i = 0; i < ns; i++) {
		if (sv) {
			yaml_node_t *at = scales_n;
			if (!check_scale(it, at, sv[i]))
				return 0;
			sc[i] = (float)sv[i];
			if (zv) {
				if (zv[i] != floor(zv[i]) || fabs(zv[i]) > 2147483647.0) {
					fail(it, zps_n, "zero point %g is not an int32", zv[i]);
					return 0;
				}
				if (!check_zp(it, zps_n, (int64_t)zv[i], t->dtype))
					return 0;
				zp[i] = (int32_t)zv[i];
			}
		} else {
			char err[256];
			qc_qparams qp;
			if (qc_qparams_from_min_max(minv[i], maxv[i], qmin, qmax, (qc_nudge)nudge,
			                            &qp, err, sizeof err) != 0) {
				fail(it, min_n, "channel %lld: %s", (long long)i, err);
				return 0;
			}
			sc[i] = qp.scale;
			zp[i] = qp.zero_point;
		}
	}
	q->axis = (int32_t)axis;
	q->block_size = (int32_t)block_size;
	q->count = (int32_t)ns;
	q->scales = sc;
	q->zero_points = zp;
	return 1;
}

static int build_tensor(qc_cases *it, qc_case *c, const tview *tv, qcf_tensor *t, qcf_quant *q,
                        int64_t *shape, qc_tensor_nodes *where)
{
	where->tensor = tv->over && tv->over->type == YAML_MAPPING_NODE ? tv->over : tv->base;
	where->dtype = tget(it, tv, "dtype");
	where->shape = tget(it, tv, "shape");
	where->quant = tget(it, tv, "quant");
	where->data = tget(it, tv, "data");
	memset(t, 0, sizeof *t);
	t->struct_size = sizeof *t;
	t->name = tv->name;
	yaml_node_t *dn = tget(it, tv, "dtype");
	const char *dts = dn ? get_str(it, dn, "dtype") : NULL;
	if (!dts)
		return 0;
	t->dtype = qref_dtype_parse(dts);
	if (t->dtype == QCF_DTYPE_INVALID) {
		fail(it, dn, "unknown dtype '%s'", dts);
		return 0;
	}
	if (!build_shape(it, tget(it, tv, "shape"), shape, &t->rank))
		return 0;
	t->shape = shape;
	size_t n = qref_numel(t->rank, shape);
	t->nbytes = qcf_dtype_nbytes(t->dtype, n);
	yaml_node_t *qn = tget(it, tv, "quant");
	yaml_node_t *qr = qn ? resolve(it, qn) : NULL;
	if (qn && !qr)
		return 0;
	const char *qs = qc_scalar(qr);
	int none = qs && !qc_scalar_is_quoted(qr) &&
	           (!*qs || !strcmp(qs, "~") || !strcmp(qs, "null") || !strcmp(qs, "none"));
	if (qn && !none) {
		if (!build_quant(it, c, qn, t, q))
			return 0;
		t->quant = q;
	}
	return 1;
}

/* The float values gf (NULL: nothing to do) of a GGML block tensor, quantized row by row with
 * the format's reference quantizer (reference/ggml.h); frees gf. */
static int ggml_rows(qc_cases *it, yaml_node_t *at, qcf_tensor *t, float *gf)
{
	if (!gf)
		return 1;
	int ok = qref_ggml_fill(t, gf) == 0;
	free(gf);
	if (!ok)
		fail(it, at, "'%s' (%s) needs a last dimension that is a multiple of %zu", t->name,
		     qref_dtype_name(t->dtype), qcf_ggml_block_elements(t->dtype));
	return ok;
}

/* Explicit data: exactly one number per element, within the dtype. */
static int fill_explicit(qc_cases *it, qcf_tensor *t, yaml_node_t *dn)
{
	yaml_node_t *r = resolve(it, dn);
	if (!r)
		return 0;
	size_t n = qref_numel(t->rank, t->shape);
	if (r->type != YAML_SEQUENCE_NODE || seq_len(it->s, r) != n) {
		fail(it, dn, "data of '%s' needs %zu values (its shape), got %llu", t->name, n,
		     r->type == YAML_SEQUENCE_NODE ? (unsigned long long)seq_len(it->s, r) : 0ull);
		return 0;
	}
	int64_t lo = 0, hi = 0;
	int is_int = qref_dtype_range(t->dtype, &lo, &hi);
	/* a GGML block tensor: float values, quantized row by row (ggml_rows) */
	float *gf = qref_ggml_is_block(t->dtype) ? malloc((n ? n : 1) * sizeof *gf) : NULL;
	if (qref_ggml_is_block(t->dtype) && !gf) {
		fail(it, dn, "out of memory");
		return 0;
	}
	const qc_yaml_pack *p = qc_yaml_pack_of(&it->s->doc, &it->s->packs, r);
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *e;
		double v;
		if (!seq_num(it, r, p, i, &v, &e, "a data value")) {
			free(gf);
			return 0;
		}
		if (is_int && v != floor(v)) {
			fail(it, e ? e : pack_err_node(it, r, p, (uint32_t)i),
			     "value %g is not an integer (dtype %s)", v, qref_dtype_name(t->dtype));
			free(gf);
			return 0;
		}
		if (is_int && (v < (double)lo || v > (double)hi)) {
			fail(it, e ? e : pack_err_node(it, r, p, (uint32_t)i),
			     "value %g outside %s [%lld, %lld]", v, qref_dtype_name(t->dtype),
			     (long long)lo, (long long)hi);
			free(gf);
			return 0;
		}
		if (gf)
			gf[i] = (float)v;
		else
			qref_set(t, i, v);
	}
	return ggml_rows(it, dn, t, gf);
}

/* [qmin, qmax] of an edges grid: qmin/qmax keys, else the quantized dtype's range. */
static int edges_range(qc_cases *it, yaml_node_t *gn, qcf_dtype dt, qc_grid *grid)
{
	yaml_node_t *v;
	if (!qc_dtype_qrange(qref_dtype_is_int(dt) ? dt : QCF_INT8, 0, &grid->qmin, &grid->qmax))
		qc_dtype_qrange(QCF_INT8, 0, &grid->qmin, &grid->qmax);
	if ((v = qc_map_get(it->s, gn, "qmin")) && !get_int(it, v, &grid->qmin, "qmin"))
		return 0;
	if ((v = qc_map_get(it->s, gn, "qmax")) && !get_int(it, v, &grid->qmax, "qmax"))
		return 0;
	return 1;
}

/* edges: {quant: {min, max, nudge, narrow_range} | {scale, zero_point} | {mean, std_dev}} */
static int edges_quant(qc_cases *it, qc_case *c, yaml_node_t *gn, yaml_node_t *qn,
                       const qcf_tensor *t, qcf_quant *gq, qc_grid *grid)
{
	yaml_node_t *r = resolve(it, qn);
	if (!r)
		return 0;
	if (r->type != YAML_MAPPING_NODE) {
		fail(it, qn, "edges quant must be a mapping");
		return 0;
	}
	if (!edges_range(it, gn, t->dtype, grid))
		return 0;
	int nudge, narrow;
	if (!quant_options(it, r, &nudge, &narrow))
		return 0;
	grid->qmin += narrow;
	if (grid->qmin > grid->qmax) {
		fail(it, gn, "edges qmin %lld > qmax %lld", (long long)grid->qmin,
		     (long long)grid->qmax);
		return 0;
	}
	float *sc = qc_case_alloc(c, sizeof *sc);
	int32_t *zp = qc_case_alloc(c, sizeof *zp);
	/* a grid's zero point is checked against its own [qmin, qmax], not a dtype */
	if (!one_qparams(it, r, nudge, grid->qmin, grid->qmax, QCF_DTYPE_INVALID, sc, zp))
		return 0;
	*gq = (qcf_quant){sizeof *gq, -1, 1, sc, zp, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	return 1;
}

static int fill_generated(qc_cases *it, qc_case *c, qcf_tensor *t, yaml_node_t *gn, uint64_t repeat)
{
	const qc_spec *s = it->s;
	qc_gen g;
	memset(&g, 0, sizeof g);
	int nonfinite = 0;
	const char *kind = get_str(it, qc_map_get(s, gn, "gen"), "gen");
	if (!kind)
		return 0;
	int k = qc_gen_kind_parse(kind);
	if (k < 0) {
		fail(it, qc_map_get(s, gn, "gen"),
		     "unknown generator '%s' (uniform, normal, choice, sequence, edges)", kind);
		return 0;
	}
	g.kind = (qc_gen_kind)k;
	yaml_node_t *v, *min_n = qc_map_get(s, gn, "min"), *max_n = qc_map_get(s, gn, "max");
	if (!!min_n != !!max_n) {
		fail(it, gn, "generator min and max go together");
		return 0;
	}
	if (min_n) {
		if (!get_num(it, min_n, &g.lo, "min") || !get_num(it, max_n, &g.hi, "max"))
			return 0;
		if (!(g.lo <= g.hi)) {
			fail(it, gn, "generator min %g > max %g", g.lo, g.hi);
			return 0;
		}
		g.has_range = 1;
	}
	if ((v = qc_map_get(s, gn, "mean")) && !get_num(it, v, &g.mean, "mean"))
		return 0;
	if ((v = qc_map_get(s, gn, "std")) && !get_num(it, v, &g.std, "std"))
		return 0;
	if (g.std < 0) {
		fail(it, v, "std must be >= 0");
		return 0;
	}
	if ((v = qc_map_get(s, gn, "values"))) {
		double *vals;
		int64_t nv = get_nums(it, c, v, &vals, "values");
		if (nv < 0)
			return 0;
		if (nv == 0) {
			fail(it, v, "values must not be empty");
			return 0;
		}
		g.values = vals;
		g.n_values = (size_t)nv;
	}
	if ((g.kind == QC_GEN_CHOICE || g.kind == QC_GEN_SEQUENCE) && !g.values) {
		fail(it, gn, "generator '%s' needs values", kind);
		return 0;
	}
	if ((v = qc_map_get(s, gn, "nonfinite"))) {
		double b;
		if (!get_num(it, v, &b, "nonfinite"))
			return 0;
		nonfinite = b != 0;
	}

	/* The grid whose edges matter: explicit, a named tensor's quant, or the first quantized
	 * tensor. */
	qc_grid grid;
	memset(&grid, 0, sizeof grid);
	qcf_quant gq = {sizeof gq,        -1, 1, NULL, NULL, NULL, 0, QCF_DTYPE_INVALID,
	                QCF_DTYPE_INVALID};
	const qcf_tensor *gt = NULL;
	if (g.kind == QC_GEN_EDGES) {
		yaml_node_t *sn = qc_map_get(s, gn, "scale"), *zn = qc_map_get(s, gn, "zero_point");
		yaml_node_t *an = qc_map_get(s, gn, "axis"), *grid_n = qc_map_get(s, gn, "grid");
		yaml_node_t *qn = qc_map_get(s, gn, "quant");
		if (qn && (sn || grid_n)) {
			fail(it, qn, "edges take one of: scale (+ zero_point), quant, grid");
			return 0;
		}
		if (qn) {
			/* a grid given in any parameter form, over [qmin, qmax] of the generator */
			if (!edges_quant(it, c, gn, qn, t, &gq, &grid))
				return 0;
			grid.quant = &gq;
		} else if (sn) {
			double *sv, *zv = NULL;
			int64_t ns, nz = 0;
			yaml_node_t *sr = resolve(it, sn);
			if (!sr)
				return 0;
			if (sr->type == YAML_SEQUENCE_NODE) {
				if ((ns = get_nums(it, c, sn, &sv, "scale")) < 0)
					return 0;
			} else {
				sv = qc_case_alloc(c, sizeof *sv);
				ns = 1;
				if (!get_num(it, sn, sv, "scale"))
					return 0;
			}
			if (zn) {
				yaml_node_t *zr = resolve(it, zn);
				if (!zr)
					return 0;
				if (zr->type == YAML_SEQUENCE_NODE) {
					if ((nz = get_nums(it, c, zn, &zv, "zero_point")) < 0)
						return 0;
				} else {
					zv = qc_case_alloc(c, sizeof *zv);
					nz = 1;
					if (!get_num(it, zn, zv, "zero_point"))
						return 0;
				}
				if (nz != ns) {
					fail(it, zn, "%lld zero points for %lld scales",
					     (long long)nz, (long long)ns);
					return 0;
				}
			}
			float *sc = qc_case_alloc(c, (size_t)ns * sizeof *sc);
			int32_t *zp = qc_case_alloc(c, (size_t)ns * sizeof *zp);
			for (int64_t i = 0; i < ns; i++) {
				if (!(sv[i] > 0) || !isfinite(sv[i])) {
					fail(it, sn, "edges scale %g must be finite and > 0",
					     sv[i]);
					return 0;
				}
				sc[i] = (float)sv[i];
				zp[i] = zv ? (int32_t)llrint(zv[i]) : 0;
			}
			gq.scales = sc;
			gq.zero_points = zp;
			gq.count = (int32_t)ns;
			if (ns > 1 || an) {
				int64_t axis = 0;
				if (!an || !get_int(it, an, &axis, "axis"))
					return an ? 0
					          : (fail(it, sn,
					                  "a list of edge scales needs an axis"),
					             0);
				if (axis < 0 || axis >= t->rank || t->shape[axis] != ns) {
					fail(it, an,
					     "edges axis %lld does not fit %lld scales on '%s'",
					     (long long)axis, (long long)ns, t->name);
					return 0;
				}
				gq.axis = (int32_t)axis;
			}
			grid.quant = &gq;
		} else {
			const char *gname = grid_n ? get_str(it, grid_n, "grid") : NULL;
			if (grid_n && !gname)
				return 0;
			for (int i = 0; i < c->call.n_outputs && !gt; i++)
				if ((gname && strcmp(c->out[i].name, gname) == 0) ||
				    (!gname && c->out[i].quant))
					gt = &c->out[i];
			for (int i = 0; i < c->call.n_inputs && !gt; i++)
				if ((gname && strcmp(c->in[i].name, gname) == 0) ||
				    (!gname && c->in[i].quant))
					gt = &c->in[i];
			if (gt && gt >= c->out && gt < c->out + QC_MAX_TENSORS &&
			    c->auto_quant[gt - c->out]) {
				fail(it, gn,
				     "edges cannot use the grid of '%s': its parameters are "
				     "automatic",
				     gt->name);
				return 0;
			}
			if (gt && gt->quant && gt != t)
				grid.quant = gt->quant;
			else if (gt == t)
				grid.quant = t->quant;
			if (gt && grid.quant && qref_dtype_is_small_float(gt->dtype))
				grid.dtype = gt->dtype; /* the values of a float8/6/4, scaled */
			if (!grid.quant && !qref_dtype_is_int(t->dtype) &&
			    !qref_dtype_is_small_float(t->dtype) && t->dtype != QCF_FLOAT8E8M0) {
				fail(it, gn,
				     "edges of float tensor '%s' need a grid: scale (+ "
				     "zero_point), or "
				     "grid: NAME of a quantized tensor",
				     t->name);
				return 0;
			}
			/* per-axis grid of another tensor applies only with the same shape */
			if (grid.quant && grid.quant->axis >= 0 && gt && gt != t &&
			    (gt->rank != t->rank ||
			     memcmp(gt->shape, t->shape, (size_t)t->rank * 8))) {
				fail(it, gn,
				     "per-axis grid of '%s' does not match the shape of '%s'",
				     gt->name, t->name);
				return 0;
			}
		}
		if (!qn && !edges_range(it, gn, gt ? gt->dtype : t->dtype, &grid))
			return 0;
		if (grid.qmin > grid.qmax) {
			fail(it, gn, "edges qmin %lld > qmax %lld", (long long)grid.qmin,
			     (long long)grid.qmax);
			return 0;
		}
		grid.nonfinite = nonfinite;
	}
	qc_rng rng;
	qc_rng_seed(&rng, qc_hash64(t->name, c->seed));
	char err[256];
	if (qc_gen_fill(&g, &rng, repeat, g.kind == QC_GEN_EDGES ? &grid : NULL, t, err,
	                sizeof err) != 0) {
		fail(it, gn, "%s", err);
		return 0;
	}
	return 1;
}

/* quant: {auto: range}: the output's parameters from the range of the reference's
 * real-valued result, so that the output covers its dtype instead of saturating. */
static int auto_quant(qc_cases *it, qc_case *c, int k)
{
	qcf_tensor *t = &c->out[k];
	size_t n = qref_numel(t->rank, t->shape);
	double *v = malloc((n ? n : 1) * sizeof *v);
	char msg[256] = "";
	if (!v) {
		fail(it, c->auto_node[k], "out of memory");
		return 0;
	}
	qcf_status st = qref_real_output_msg(&c->call, k, v, msg, sizeof msg);
	if (st != QCF_OK) {
		free(v);
		fail(it, c->auto_node[k], "auto: the reference has no real-valued result here: %s",
		     msg);
		return 0;
	}
	double lo = 0, hi = 0; /* the range always holds 0, so that 0 is exact */
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	free(v);
	qc_qparams qp;
	char err[256];
	if (qc_qparams_from_min_max(lo, hi, c->auto_qmin[k], c->auto_qmax[k],
	                            (qc_nudge)c->auto_nudge[k], &qp, err, sizeof err) != 0) {
		fail(it, c->auto_node[k], "auto: range [%g, %g]: %s", lo, hi, err);
		return 0;
	}
	*(float *)t->quant->scales = qp.scale;
	*(int32_t *)t->quant->zero_points = qp.zero_point;
	return 1;
}

/* data: {lua: "return function(i, shape, rng) ... end"} */
static int fill_lua(qc_cases *it, qc_case *c, qcf_tensor *t, yaml_node_t *gn)
{
	const qc_spec *s = it->s;
	if (gn->data.mapping.pairs.top - gn->data.mapping.pairs.start != 1) {
		fail(it, gn, "a Lua generator takes only the key lua");
		return 0;
	}
	yaml_node_t *ln = qc_map_get(s, gn, "lua");
	const char *chunk = qc_scalar(ln);
	qc_lua *L = chunk ? spec_lua(it, ln) : NULL;
	if (!chunk) {
		fail(it, ln, "lua must be a string holding a Lua chunk");
		return 0;
	}
	if (!L)
		return 0;
	size_t n = qref_numel(t->rank, t->shape);
	double *v = malloc((n ? n : 1) * sizeof *v);
	if (!v) {
		fail(it, ln, "out of memory");
		return 0;
	}
	qc_lbind b[2 * QC_MAX_VARS + 2 * QC_MAX_TENSORS + 1];
	int nb = bindings(it, b, (int)(sizeof b / sizeof b[0]));
	qc_rng rng;
	qc_rng_seed(&rng, qc_hash64(t->name, c->seed));
	char err[512];
	int line = 0;
	if (qc_lua_generate(L, chunk, b, nb, t->shape, t->rank, &rng, v, n, err, sizeof err,
	                    &line) != 0) {
		free(v);
		lua_fail(it, ln, err, line);
		return 0;
	}
	int64_t lo = 0, hi = 0;
	int is_int = qref_dtype_range(t->dtype, &lo, &hi);
	for (size_t i = 0; i < n; i++) {
		if (is_int && (v[i] != floor(v[i]) || v[i] < (double)lo || v[i] > (double)hi)) {
			fail(it, ln, "the generator gave %g for element %zu, not a %s value", v[i],
			     i, qref_dtype_name(t->dtype));
			free(v);
			return 0;
		}
		if (!qref_ggml_is_block(t->dtype))
			qref_set(t, i, v[i]);
	}
	float *gf = qref_ggml_is_block(t->dtype) ? malloc((n ? n : 1) * sizeof *gf) : NULL;
	for (size_t i = 0; gf && i < n; i++)
		gf[i] = (float)v[i];
	free(v);
	if (qref_ggml_is_block(t->dtype) && !gf) {
		fail(it, ln, "out of memory");
		return 0;
	}
	return ggml_rows(it, ln, t, gf);
}

static int build_attrs(qc_cases *it, qc_case *c, yaml_node_t *over)
{
	const qc_spec *s = it->s;
	/* attribute set: spec attrs, overridden or extended by the case's */
	qc_named all[2 * QC_MAX_ATTRS];
	int n = 0;
	for (int i = 0; i < s->n_attrs; i++)
		all[n++] = s->attrs[i];
	if (over) {
		for (yaml_node_pair_t *p = over->data.mapping.pairs.start;
		     p < over->data.mapping.pairs.top; p++) {
			const char *k = qc_scalar(qc_node(s, p->key));
			int j;
			for (j = 0; j < n && strcmp(all[j].name, k); j++)
				;
			if (j == n && n == QC_MAX_ATTRS) {
				fail(it, qc_node(s, p->key), "too many attributes (at most %d)",
				     QC_MAX_ATTRS);
				return 0;
			}
			all[j].name = k;
			all[j].node = qc_node(s, p->value);
			if (j == n)
				n++;
		}
	}
	const qref_op_schema *schema = qref_op_schema_find(s->semantics, s->op);
	for (int i = 0; i < n; i++) {
		qcf_attr *a = &c->attrs[i];
		a->name = all[i].name;
		a->count = 1;
		c->attr_nodes[i] = all[i].node;
		yaml_node_t *r = resolve(it, all[i].node);
		if (!r)
			return 0;
		const char *v = qc_scalar(r);
		int64_t iv;
		double dv;
		int b;
		if (v && qc_scalar_is_quoted(r)) {
			a->type = QCF_ATTR_STRING;
			a->v.s = case_strdup(c, v);
		} else if (v && qc_parse_int(v, &iv)) {
			a->type = QCF_ATTR_INT;
			a->v.i = iv;
		} else if (v && qc_parse_float(v, &dv)) {
			a->type = QCF_ATTR_FLOAT;
			a->v.f = dv;
		} else if (v && qc_parse_bool(v, &b)) {
			a->type = QCF_ATTR_INT;
			a->v.i = b;
		} else if (v) {
			a->type = QCF_ATTR_STRING;
			a->v.s = case_strdup(c, v);
		} else if (r->type == YAML_SEQUENCE_NODE) {
			uint64_t len = seq_len(s, r);
			int all_int = 1;
			for (uint64_t k = 0; k < len; k++)
				all_int &=
				        qc_parse_int(qc_scalar(resolve(it, seq_at(s, r, k))), &iv);
			a->count = (int32_t)len;
			if (all_int) {
				int64_t *iv_arr =
				        qc_case_alloc(c, (len ? len : 1) * sizeof *iv_arr);
				for (uint64_t k = 0; k < len; k++)
					qc_parse_int(qc_scalar(resolve(it, seq_at(s, r, k))),
					             &iv_arr[k]);
				a->type = QCF_ATTR_INTS;
				a->v.ints = iv_arr;
			} else {
				double *fv;
				if (get_nums(it, c, r, &fv, "attribute list") < 0)
					return 0;
				a->type = QCF_ATTR_FLOATS;
				a->v.floats = fv;
			}
		} else {
			fail(it, all[i].node, "attribute '%s' must be a scalar or a list",
			     all[i].name);
			return 0;
		}
	}
	c->call.n_attrs = n;
	c->call.attrs = c->attrs;
	/* the op's schema (qref.h): each value of the type and range it reads, every attribute
	 * it needs present; a negative case may break either on purpose */
	if (!schema || it->expect_error)
		return 1;
	for (int i = 0; i < n; i++) {
		const qref_attr_schema *as = qref_attr_schema_find(schema, c->attrs[i].name);
		char why[256];
		if (as && qref_attr_check(as, &c->attrs[i], why, sizeof why) != 0) {
			fail(it, all[i].node, "attribute '%s' of %s/%s %s", c->attrs[i].name,
			     s->semantics, s->op, why);
			return 0;
		}
	}
	for (const qref_attr_schema *as = schema->attrs; as->name; as++) {
		if (!as->required)
			continue;
		int j;
		for (j = 0; j < n && strcmp(c->attrs[j].name, as->name); j++)
			;
		if (j == n) {
			yaml_node_t *root = yaml_document_get_root_node((yaml_document_t *)&s->doc);
			const yaml_node_t *at = over ? over : qc_map_get(s, root, "attrs");
			fail(it, at ? at : c->where,
			     "%s/%s needs attribute '%s' (it has no default)", s->semantics, s->op,
			     as->name);
			return 0;
		}
	}
	return 1;
}

static int build_tolerance(qc_cases *it, yaml_node_t *tn, qc_tolerance *tol)
{
	const qc_spec *s = it->s;
	memset(tol, 0, sizeof *tol);
	tol->exact = 1;
	tol->max_abs = tol->bias = tol->mse = tol->mismatch_rate = -1;
	tol->ulp = tol->abs = tol->rel = tol->steps = -1;
	if (!tn || tn->type == YAML_SCALAR_NODE)
		return 1;
	tol->exact = 0;
	struct {
		const char *key;
		double *dst;
	} keys[] = {{"max_abs", &tol->max_abs}, {"bias", &tol->bias},
	            {"mse", &tol->mse},         {"mismatch_rate", &tol->mismatch_rate},
	            {"ulp", &tol->ulp},         {"abs", &tol->abs},
	            {"rel", &tol->rel},         {"steps", &tol->steps}};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		yaml_node_t *v = qc_map_get(s, tn, keys[i].key);
		if (v && !get_num(it, v, keys[i].dst, keys[i].key))
			return 0;
		if (v && (!(*keys[i].dst >= 0) || isinf(*keys[i].dst))) {
			fail(it, v, "tolerance '%s' must be a finite number >= 0", keys[i].key);
			return 0;
		}
	}
	yaml_node_t *v;
	int b;
	if ((v = qc_map_get(s, tn, "exact")) && qc_parse_bool(qc_scalar(v), &b))
		tol->exact = b;
	if ((v = qc_map_get(s, tn, "reason")))
		tol->reason = qc_scalar(v);
	if ((v = qc_map_get(s, tn, "rounding")))
		for (uint64_t i = 0; i < seq_len(s, v) && tol->n_roundings < 8; i++)
			tol->roundings[tol->n_roundings++] = qc_scalar(seq_at(s, v, i));
	if ((v = qc_map_get(s, tn, "check"))) {
		tol->check = qc_scalar(qc_map_get(s, v, "lua"));
		tol->check_node = qc_map_get(s, v, "lua");
	}
	return 1;
}

static int build_golden(qc_cases *it, qc_case *c, yaml_node_t *gn)
{
	const qc_spec *s = it->s;
	for (yaml_node_pair_t *p = gn->data.mapping.pairs.start; p < gn->data.mapping.pairs.top;
	     p++) {
		const char *k = qc_scalar(qc_node(s, p->key));
		yaml_node_t *v = qc_node(s, p->value);
		for (int i = 0; i < c->call.n_outputs; i++) {
			if (strcmp(c->out[i].name, k) != 0)
				continue;
			double *vals;
			int64_t n = get_nums(it, c, v, &vals, "golden values");
			if (n < 0)
				return 0;
			size_t want_n = qref_numel(c->out[i].rank, c->out[i].shape);
			if ((size_t)n != want_n) {
				fail(it, v, "golden '%s' has %lld values, its shape needs %zu", k,
				     (long long)n, want_n);
				return 0;
			}
			c->golden[i] = vals;
		}
	}
	return 1;
}

static void case_name(qc_cases *it, qc_case *c, uint64_t rep)
{
	const qc_spec *s = it->s;
	size_t used = 0;
	c->params[0] = 0;
	for (int i = 0; i < it->n_bind; i++) {
		char val[256];
		value_text(s, it->bind[i].node, val, sizeof val);
		used = text_put(c->params, sizeof c->params, used, i ? "," : "");
		used = text_put(c->params, sizeof c->params, used, it->bind[i].name);
		used = text_put(c->params, sizeof c->params, used, "=");
		used = text_put(c->params, sizeof c->params, used, val);
	}
	if (!it->n_bind)
		text_put(c->params, sizeof c->params, 0, "default");
	used = text_put(c->name, sizeof c->name, 0, s->id);
	used = text_put(c->name, sizeof c->name, used, "/");
	used = text_put(c->name, sizeof c->name, used, c->params);
	if (s->repeat > 1) {
		char r[24];
		snprintf(r, sizeof r, "/%llu", (unsigned long long)rep);
		text_put(c->name, sizeof c->name, used, r);
	}
}

/*
 * Binds the sweep point (or explicit case) of case idx: it->bind, and its name into c->name
 * and c->params. Returns the explicit case's node (NULL for a sweep point); *rep is the
 * repetition. No Lua, no data: the name depends only on the point.
 */
static yaml_node_t *bind_case(qc_cases *it, uint64_t idx, qc_case *c, uint64_t *rep)
{
	const qc_spec *s = it->s;
	uint64_t n_sweep = it->n_points * (uint64_t)s->repeat;
	yaml_node_t *cn = NULL;
	it->n_bind = 0;
	*rep = 0;
	if (idx < n_sweep) {
		uint64_t point = idx / (uint64_t)s->repeat;
		*rep = idx % (uint64_t)s->repeat;
		const qc_sweep *sw = NULL;
		for (int b = 0; b < s->n_sweeps; b++) {
			uint64_t np = block_points(s, &s->sweeps[b]);
			if (point < np) {
				sw = &s->sweeps[b];
				break;
			}
			point -= np;
		}
		for (int i = sw ? sw->n_vars - 1 : -1; i >= 0; i--) {
			uint64_t len = seq_len(s, sw->vars[i].node);
			it->bind[i].name = sw->vars[i].name;
			it->bind[i].node = seq_at(s, sw->vars[i].node, point % len);
			point /= len;
		}
		it->n_bind = sw ? sw->n_vars : 0;
		case_name(it, c, *rep);
		c->where =
		        sw ? qc_map_get(s, yaml_document_get_root_node((yaml_document_t *)&s->doc),
		                        "sweep")
		           : NULL;
	} else {
		cn = seq_at(s, s->cases, idx - n_sweep);
		const char *nm = qc_scalar(qc_map_get(s, cn, "name"));
		snprintf(c->params, sizeof c->params, "%s", nm ? nm : "");
		snprintf(c->name, sizeof c->name, "%s/case/%s", s->id, nm ? nm : "");
		c->where = qc_map_get(s, cn, "name");
		yaml_node_t *vars = qc_map_get(s, cn, "vars");
		if (vars)
			for (yaml_node_pair_t *p = vars->data.mapping.pairs.start;
			     p < vars->data.mapping.pairs.top && it->n_bind < 2 * QC_MAX_VARS;
			     p++) {
				it->bind[it->n_bind].name = qc_scalar(qc_node(s, p->key));
				it->bind[it->n_bind].node = qc_node(s, p->value);
				it->n_bind++;
			}
	}
	if (!c->where)
		c->where = yaml_document_get_root_node((yaml_document_t *)&s->doc);
	return cn;
}

void qc_cases_seek(qc_cases *it, uint64_t idx)
{
	it->next = idx;
}

const char *qc_cases_name(qc_cases *it, uint64_t idx, const yaml_node_t **where)
{
	uint64_t rep;
	qc_case *c = &it->name_case;
	bind_case(it, idx, c, &rep);
	it->n_bind = 0;
	if (where)
		*where = c->where;
	return c->name;
}

int qc_cases_next(qc_cases *it, qc_case **out)
{
	const qc_spec *s = it->s;
	uint64_t n_sweep = it->n_points * (uint64_t)s->repeat;
	if (it->next >= n_sweep + (uint64_t)it->n_explicit)
		return 0;
	if (s->lua && qc_lua_exhausted(s->lua)) {
		/* the spec's Lua budget ran out (reported once): the rest would fail the same way
		 */
		it->next = n_sweep + (uint64_t)it->n_explicit;
		return 0;
	}
	uint64_t idx = it->next++;
	qc_case *c = calloc(1, sizeof *c);
	if (!c)
		return -1;
	c->spec = s;
	it->failed = 0;
	/* nodes Lua made for the previous case are no longer needed (the case copies what
	 * it keeps) */
	qc_vnode_reset(s, it->mark);
	it->gen++; /* the bindings' values were in that memory */
	it->cur = c;
	it->n_in_built = it->n_out_built = 0;
	it->channel = 0;
	uint64_t rep;
	yaml_node_t *cn = bind_case(it, idx, c, &rep); /* explicit case node */
	c->seed = qc_hash64(c->name, s->seed ^ (it->run_seed * 0x9e3779b97f4a7c15ull));

	yaml_node_t *expect = cn ? qc_map_get(s, cn, "expect") : NULL;
	if (!expect)
		expect = s->expect;
	c->case_node = cn;
	c->expect_node = expect;
	if (expect) {
		/* "ok", "error", or an expression giving one of them (a negative sweep point) */
		const char *e = get_str(it, expect, "expect");
		if (e && strcmp(e, "ok") && strcmp(e, "error"))
			fail(it, expect, "expect must be 'ok' or 'error', not '%s'", e);
		c->expect_error = e && !strcmp(e, "error");
	}
	it->expect_error = c->expect_error;

	c->call.struct_size = sizeof c->call;
	c->call.op = s->op;
	c->call.semantics = s->semantics;
	c->call.inputs = c->in;
	c->call.outputs = c->out;
	yaml_node_t *ov_in = cn ? qc_map_get(s, cn, "inputs") : NULL;
	yaml_node_t *ov_out = cn ? qc_map_get(s, cn, "outputs") : NULL;

	/* inputs, then outputs: each tensor's expressions see the tensors before it */
	int ok = !it->failed;
	c->call.n_inputs = s->n_inputs;
	for (int i = 0; i < s->n_inputs && ok; i++) {
		tview tv = {s->inputs[i].name, s->inputs[i].node,
		            ov_in ? qc_map_get(s, ov_in, s->inputs[i].name) : NULL};
		ok = build_tensor(it, c, &tv, &c->in[i], &c->quant_in[i], c->shape_in[i],
		                  &c->in_nodes[i]);
		it->n_in_built += ok;
	}
	c->call.n_outputs = s->n_outputs;
	for (int i = 0; i < s->n_outputs && ok; i++) {
		tview tv = {s->outputs[i].name, s->outputs[i].node,
		            ov_out ? qc_map_get(s, ov_out, s->outputs[i].name) : NULL};
		ok = build_tensor(it, c, &tv, &c->out[i], &c->quant_out[i], c->shape_out[i],
		                  &c->out_nodes[i]);
		it->n_out_built += ok;
	}
	/* data after all tensors exist: an edges generator may use another tensor's grid */
	for (int i = 0; i < s->n_inputs && ok; i++) {
		tview tv = {s->inputs[i].name, s->inputs[i].node,
		            ov_in ? qc_map_get(s, ov_in, s->inputs[i].name) : NULL};
		yaml_node_t *dn = tget(it, &tv, "data");
		qcf_tensor *t = &c->in[i];
		if (!dn) {
			fail(it, tv.over ? tv.over : tv.base, "input '%s' has no data", t->name);
			ok = 0;
			break;
		}
		t->data = qc_case_alloc(c, t->nbytes);
		yaml_node_t *dr = resolve(it, dn);
		if (!dr) {
			ok = 0;
		} else if (dr->type == YAML_SEQUENCE_NODE) {
			ok = fill_explicit(it, t, dn);
		} else if (dr->type == YAML_MAPPING_NODE && qc_map_get(s, dr, "lua")) {
			ok = it->with_data ? fill_lua(it, c, t, dr) : 1;
		} else if (dr->type == YAML_MAPPING_NODE) {
			ok = it->with_data ? fill_generated(it, c, t, dr, rep) : 1;
		} else {
			fail(it, dn, "data must be a list of values or a generator mapping");
			ok = 0;
		}
	}
	if (ok)
		ok = build_attrs(it, c, cn ? qc_map_get(s, cn, "attrs") : NULL);
	for (int k = 0; k < s->n_outputs && ok; k++)
		if (c->auto_quant[k] && it->with_data)
			ok = auto_quant(it, c, k);
	if (ok) {
		yaml_node_t *tn = cn ? qc_map_get(s, cn, "tolerance") : NULL;
		ok = build_tolerance(it, tn ? tn : s->tolerance, &c->tol);
		c->rounding_node = qc_map_get(s, tn ? tn : s->tolerance, "rounding");
	}
	c->max_saturation = -1;
	yaml_node_t *sat = cn ? qc_map_get(s, cn, "saturation") : NULL;
	if (!sat)
		sat = qc_map_get(s, yaml_document_get_root_node((yaml_document_t *)&s->doc),
		                 "saturation");
	if (ok && sat) {
		ok = get_num(it, sat, &c->max_saturation, "saturation");
		c->saturation_node = sat;
	}
	if (ok && cn) {
		yaml_node_t *gn = qc_map_get(s, cn, "golden");
		if (gn)
			ok = build_golden(it, c, gn);
		c->golden_source = qc_scalar(qc_map_get(s, cn, "source"));
		yaml_node_t *gt = qc_map_get(s, cn, "golden_tolerance");
		if (ok && gt) {
			ok = get_num(it, qc_map_get(s, gt, "max_abs"), &c->golden_max_abs,
			             "golden_tolerance max_abs");
			c->golden_tolerance_reason = qc_scalar(qc_map_get(s, gt, "reason"));
		}
	}
	for (int i = 0; i < s->n_outputs && ok; i++)
		c->out[i].data = qc_case_alloc(c, c->out[i].nbytes);
	if (!ok || it->failed) {
		qc_case_free(c);
		return -1;
	}
	*out = c;
	return 1;
}

/* ---- validate: the case against the reference ---- */

/* The node of a case that a refusal's cause names (qref_cause, qref.h). */
static const yaml_node_t *cause_node(qc_cases *it, const qc_case *c, const qref_cause *why)
{
	const qc_spec *s = it->s;
	yaml_node_t *root = yaml_document_get_root_node((yaml_document_t *)&s->doc);
	const yaml_node_t *at = NULL;
	switch (why->kind) {
	case QREF_CAUSE_ATTR:
		for (int i = 0; i < c->call.n_attrs && !at; i++)
			if (!strcmp(c->attrs[i].name, why->attr))
				at = c->attr_nodes[i];
		if (!at && c->case_node)
			at = qc_map_get(s, c->case_node, "attrs");
		if (!at)
			at = qc_map_get(s, root, "attrs");
		break;
	case QREF_CAUSE_INPUT:
	case QREF_CAUSE_OUTPUT: {
		int out = why->kind == QREF_CAUSE_OUTPUT;
		int n = out ? c->call.n_outputs : c->call.n_inputs;
		if (why->index < 0 || why->index >= n)
			break;
		const qc_tensor_nodes *tn =
		        out ? &c->out_nodes[why->index] : &c->in_nodes[why->index];
		switch (why->part) {
		case QREF_PART_DTYPE: at = tn->dtype; break;
		case QREF_PART_SHAPE: at = tn->shape; break;
		case QREF_PART_QUANT: at = tn->quant; break;
		case QREF_PART_DATA: at = tn->data; break;
		case QREF_PART_TENSOR: break;
		}
		if (!at)
			at = tn->tensor;
		break;
	}
	case QREF_CAUSE_INPUTS: at = qc_map_get(s, root, "inputs"); break;
	case QREF_CAUSE_OP: break;
	}
	return at ? at : c->where;
}

/* "2 inputs (a, b)", "2 to 3 inputs (input, filter, bias)" */
static void tensor_list(const qref_op_schema *o, int out, char *buf, size_t size)
{
	int lo = out ? o->n_outputs : o->min_inputs, hi = out ? o->n_outputs : o->max_inputs;
	size_t used;
	if (lo == hi)
		used = (size_t)snprintf(buf, size, "%d %s%s (", lo, out ? "output" : "input",
		                        lo == 1 ? "" : "s");
	else
		used = (size_t)snprintf(buf, size, "%d to %d %ss (", lo, hi,
		                        out ? "output" : "input");
	const char *const *names = out ? o->outputs : o->inputs;
	int k;
	for (k = 0; names[k] && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s%s", k ? ", " : "", names[k],
		                         !out && k >= o->min_inputs ? " (optional)" : "");
	if (used < size)
		snprintf(buf + used, size - used, "%s)", hi > k ? ", ..." : "");
}

void qc_cases_check_reference(qc_cases *it, const qc_case *c)
{
	const qc_spec *s = it->s;
	const qref_op_schema *o = qref_op_schema_find(s->semantics, s->op);
	if (!o)
		return; /* reported when the spec was loaded */
	yaml_node_t *root = yaml_document_get_root_node((yaml_document_t *)&s->doc);
	if (!c->expect_error) {
		char want[256];
		if (c->call.n_inputs < o->min_inputs || c->call.n_inputs > o->max_inputs) {
			tensor_list(o, 0, want, sizeof want);
			fail(it, qc_map_get(s, root, "inputs"), "%s/%s takes %s, the spec gives %d",
			     s->semantics, s->op, want, c->call.n_inputs);
			return;
		}
		if (c->call.n_outputs != o->n_outputs) {
			tensor_list(o, 1, want, sizeof want);
			fail(it, qc_map_get(s, root, "outputs"), "%s/%s gives %s, the spec has %d",
			     s->semantics, s->op, want, c->call.n_outputs);
			return;
		}
	}
	/* the reference computes the case: its checks and its arithmetic are one step */
	qcf_tensor out[QC_MAX_TENSORS];
	qcf_op_call call = c->call;
	for (int k = 0; k < c->call.n_outputs; k++) {
		out[k] = c->out[k];
		out[k].data = calloc(1, c->out[k].nbytes ? c->out[k].nbytes : 1);
		if (!out[k].data) {
			fprintf(stderr, "qconform: out of memory (%zu bytes)\n", c->out[k].nbytes);
			exit(2);
		}
	}
	call.outputs = out;
	qref_detail d;
	memset(&d, 0, sizeof d);
	qcf_status st = qref_execute(&call, &d);
	for (int k = 0; k < c->call.n_outputs; k++)
		free(out[k].data);
	if (c->expect_error) {
		if (st == QCF_OK)
			fail(it, c->expect_node ? c->expect_node : c->where,
			     "case %s expects an error, but the reference accepts it (run would "
			     "judge it ERROR: the spec and the reference disagree)",
			     c->name);
		else if (st != QCF_INVALID_PARAM)
			fail(it, cause_node(it, c, &d.cause),
			     "the reference cannot run case %s: %s", c->name, d.message);
		return;
	}
	if (st == QCF_INVALID_PARAM)
		fail(it, cause_node(it, c, &d.cause),
		     "the reference refuses case %s, which the spec calls valid: %s", c->name,
		     d.message);
	else if (st != QCF_OK)
		fail(it, cause_node(it, c, &d.cause), "the reference cannot run case %s: %s",
		     c->name, d.message);
}
