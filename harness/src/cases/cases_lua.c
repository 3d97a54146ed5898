/* cases_lua: the values a case reads from its spec: "=expr" through the spec's Lua (the sweep
 * variables and the tensors built so far bound), numbers, lists, per-channel lists. */
#include "cases/cases_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference/dtype.h"
#include "spec/slua.h"

/* ---- values ---- */

/* Follows "=name" to the bound node; NULL (reported) if undefined. */
/* ---- Lua: expressions, generators, checks ---- */

qc_lua *qc_spec_lua(qc_spec *s, char *err, size_t err_size)
{
	if (!s->lua && (s->lua = qc_lua_new(err, err_size)) && s->lua_share)
		qc_lua_share_budget(s->lua, s->lua_share);
	return s->lua;
}

qc_lua *qc_cases_spec_lua(qc_cases *it, const yaml_node_t *at)
{
	char err[256];
	qc_lua *L = qc_spec_lua((qc_spec *)it->s, err, sizeof err);
	if (!L)
		qc_cases_fail(it, at, "cannot start Lua: %s", err);
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

void qc_cases_lua_fail(qc_cases *it, const yaml_node_t *n, const char *msg, int line)
{
	yaml_node_t at = qc_chunk_at(n, line);
	if (qc_cases_first_report(it, n))
		qc_diag_error(it->diag, qc_cases_path_of(it), &at, "Lua: %s", msg);
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
int qc_cases_bindings(qc_cases *it, qc_lbind *b, int max)
{
	int n = 0;
	qc_case *c = it->cur;
	for (int i = 0; c && i < it->n_in_built && n < max; i++)
		b[n++] = (qc_lbind){c->in[i].name, tensor_value(it, &it->tv_in[i], &c->in[i])};
	for (int i = 0; c && i < it->n_mid_built && n < max; i++)
		b[n++] = (qc_lbind){c->mid[i].name, tensor_value(it, &it->tv_mid[i], &c->mid[i])};
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
yaml_node_t *qc_cases_resolve(qc_cases *it, yaml_node_t *n)
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
		for (int i = 0; it->cur && i < it->n_mid_built; i++)
			tensor |= !strncmp(it->cur->mid[i].name, name, len) &&
			          !it->cur->mid[i].name[len];
		if (!tensor && !(len == 1 && name[0] == 'c' && it->channel > 0)) {
			qc_cases_fail(it, n, "sweep variable '%.*s' undefined", (int)len, name);
			return NULL;
		}
	}
	qc_lua *L = qc_cases_spec_lua(it, n);
	if (!L)
		return NULL;
	qc_lbind b[2 * QC_MAX_VARS + 3 * QC_MAX_TENSORS + 1];
	int nb = qc_cases_bindings(it, b, (int)(sizeof b / sizeof b[0]));
	qc_lval out;
	char err[512];
	int line = 0;
	if (qc_lua_eval(L, v + 1, b, nb, vnode_alloc_cb, (void *)it->s, &out, err, sizeof err,
	                &line) != 0) {
		qc_cases_lua_fail(it, n, err, line);
		return NULL;
	}
	return qc_node(it->s, qc_node_of_lval(it->s, &out, n));
}

int qc_cases_get_num(qc_cases *it, yaml_node_t *n, double *out, const char *what)
{
	yaml_node_t *r = qc_cases_resolve(it, n);
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
	qc_cases_fail(it, n, "%s must be a number, not %s", what, v ? v : "a list or mapping");
	return 0;
}

/* Item i of packed list r (pack p) as a node to report at: for the same item, the same node,
 * held by the iterator (qc_cases_fail reports each node once). */
const yaml_node_t *qc_cases_pack_err_node(qc_cases *it, const yaml_node_t *r, const qc_yaml_pack *p,
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
int qc_cases_seq_num(qc_cases *it, yaml_node_t *r, const qc_yaml_pack *p, uint64_t i, double *v,
                     const yaml_node_t **at, const char *what)
{
	if (p) {
		char buf[64];
		qc_yaml_pack_item(it->s->text, &it->s->packs, p, (uint32_t)i, buf, sizeof buf, NULL,
		                  NULL, NULL);
		*at = NULL;
		if (qc_parse_float(buf, v))
			return 1;
		*at = qc_cases_pack_err_node(it, r, p, (uint32_t)i);
		qc_cases_fail(it, *at, "%s must be a number, not %s", what, buf);
		return 0;
	}
	yaml_node_t *e = seq_at(it->s, r, i);
	*at = e;
	return qc_cases_get_num(it, e, v, what);
}

int qc_cases_get_int(qc_cases *it, yaml_node_t *n, int64_t *out, const char *what)
{
	yaml_node_t *r = qc_cases_resolve(it, n);
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
	qc_cases_fail(it, n, "%s must be an integer, not %s", what, v ? v : "a list or mapping");
	return 0;
}

const char *qc_cases_get_str(qc_cases *it, yaml_node_t *n, const char *what)
{
	yaml_node_t *r = qc_cases_resolve(it, n);
	if (!r)
		return NULL;
	const char *v = qc_scalar(r);
	if (!v)
		qc_cases_fail(it, n, "%s must be a scalar", what);
	return v;
}

/* A list of numbers (sequence, possibly through a variable). Returns count or -1. */
int64_t qc_cases_get_nums(qc_cases *it, qc_case *c, yaml_node_t *n, double **out, const char *what)
{
	yaml_node_t *r = qc_cases_resolve(it, n);
	if (!r)
		return -1;
	if (r->type != YAML_SEQUENCE_NODE) {
		qc_cases_fail(it, n, "%s must be a list of numbers", what);
		return -1;
	}
	uint64_t len = seq_len(it->s, r);
	double *v = qc_case_alloc(c, (len ? len : 1) * sizeof *v);
	const qc_yaml_pack *p = qc_yaml_pack_of(&it->s->doc, &it->s->packs, r);
	for (uint64_t i = 0; i < len; i++) {
		const yaml_node_t *at;
		if (!qc_cases_seq_num(it, r, p, i, &v[i], &at, what))
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
int64_t qc_cases_get_channel_nums(qc_cases *it, qc_case *c, yaml_node_t *n, int64_t count,
                                  double **out, const char *what)
{
	yaml_node_t *r = mentions_channel(qc_scalar(n)) ? NULL : qc_cases_resolve(it, n);
	if (r && qc_scalar(r) && count >= 1 && count <= (1 << 24)) {
		/* one number for every channel: zero_points: 0 */
		double v0;
		if (!qc_cases_get_num(it, r, &v0, what))
			return -1;
		double *v = qc_case_alloc(c, (size_t)count * sizeof *v);
		for (int64_t ch = 0; ch < count; ch++)
			v[ch] = v0;
		*out = v;
		return count;
	}
	if (!mentions_channel(qc_scalar(n)))
		return qc_cases_get_nums(it, c, n, out, what);
	if (count < 1 || count > (1 << 24)) {
		qc_cases_fail(it, n, "%s: a per-channel expression needs a valid axis", what);
		return -1;
	}
	double *v = qc_case_alloc(c, (size_t)count * sizeof *v);
	for (int64_t ch = 0; ch < count; ch++) {
		it->channel = (int)ch + 1;
		yaml_node_t *r = qc_cases_resolve(it, n);
		it->channel = 0;
		if (!r || !qc_cases_get_num(it, r, &v[ch], what))
			return -1;
	}
	*out = v;
	return count;
}
