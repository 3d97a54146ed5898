/* cases: a spec's cases one at a time (cases.h): the iteration, and each case built from its
 * sweep point. Its steps: the values read through Lua (cases_lua.c), the tensors
 * (cases_tensor.c), their data (cases_data.c); validate's check is cases_validate.c. */
#include "cases/cases_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "reference/dtype.h"
#include "reference/qref.h"
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

const char *qc_cases_path_of(qc_cases *it)
{
	return it->s->path;
}

/* Marks the case failed; 1 if an error at node `at` is still to be reported. */
int qc_cases_first_report(qc_cases *it, const yaml_node_t *at)
{
	it->failed = 1;
	for (int i = 0; i < it->n_reported; i++)
		if (it->reported[i] == at)
			return 0;
	if (it->n_reported < MAX_REPORTED)
		it->reported[it->n_reported++] = at;
	return 1;
}

void qc_cases_fail(qc_cases *it, const yaml_node_t *at, const char *fmt, ...)
{
	if (!qc_cases_first_report(it, at))
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	qc_diag_error(it->diag, qc_cases_path_of(it), at, "%s", msg);
}

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
		free(it->tv_mid[i].scales);
		free(it->tv_mid[i].zero_points);
	}
	free(it);
}

/* ---- the case: attributes, tolerance, golden values, its name ---- */

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

static int eval_attrs(qc_cases *it, qc_case *c, const qc_named *all, int n, qcf_attr *out,
                      const yaml_node_t **where, const char *semantics, const char *op,
                      const yaml_node_t *missing_at);

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
				qc_cases_fail(it, qc_node(s, p->key),
				              "too many attributes (at most %d)", QC_MAX_ATTRS);
				return 0;
			}
			all[j].name = k;
			all[j].node = qc_node(s, p->value);
			if (j == n)
				n++;
		}
	}
	if (!eval_attrs(it, c, all, n, c->attrs, c->attr_nodes, s->semantics, s->op, over))
		return 0;
	c->call.n_attrs = n;
	c->call.attrs = c->attrs;
	return 1;
}

/* The attributes all[0..n) of op semantics/op evaluated into out[] (where each is written
 * into where[]), checked against the op's schema; missing_at: where to report one missing
 * (NULL: the spec's attrs). */
static int eval_attrs(qc_cases *it, qc_case *c, const qc_named *all, int n, qcf_attr *out,
                      const yaml_node_t **where, const char *semantics, const char *op,
                      const yaml_node_t *missing_at)
{
	const qc_spec *s = it->s;
	const qref_op_schema *schema = qref_op_schema_find(semantics, op);
	for (int i = 0; i < n; i++) {
		qcf_attr *a = &out[i];
		a->name = all[i].name;
		a->count = 1;
		where[i] = all[i].node;
		yaml_node_t *r = qc_cases_resolve(it, all[i].node);
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
				all_int &= qc_parse_int(
				        qc_scalar(qc_cases_resolve(it, seq_at(s, r, k))), &iv);
			a->count = (int32_t)len;
			if (all_int) {
				int64_t *iv_arr =
				        qc_case_alloc(c, (len ? len : 1) * sizeof *iv_arr);
				for (uint64_t k = 0; k < len; k++)
					qc_parse_int(
					        qc_scalar(qc_cases_resolve(it, seq_at(s, r, k))),
					        &iv_arr[k]);
				a->type = QCF_ATTR_INTS;
				a->v.ints = iv_arr;
			} else {
				double *fv;
				if (qc_cases_get_nums(it, c, r, &fv, "attribute list") < 0)
					return 0;
				a->type = QCF_ATTR_FLOATS;
				a->v.floats = fv;
			}
		} else {
			qc_cases_fail(it, all[i].node, "attribute '%s' must be a scalar or a list",
			              all[i].name);
			return 0;
		}
	}
	/* the op's schema (qref.h): each value of the type and range it reads, every attribute
	 * it needs present; a negative case may break either on purpose */
	if (!schema || it->expect_error)
		return 1;
	for (int i = 0; i < n; i++) {
		const qref_attr_schema *as = qref_attr_schema_find(schema, out[i].name);
		char why[256];
		if (as && qref_attr_check(as, &out[i], why, sizeof why) != 0) {
			qc_cases_fail(it, all[i].node, "attribute '%s' of %s/%s %s", out[i].name,
			              semantics, op, why);
			return 0;
		}
	}
	for (const qref_attr_schema *as = schema->attrs; as->name; as++) {
		if (!as->required)
			continue;
		int j;
		for (j = 0; j < n && strcmp(out[j].name, as->name); j++)
			;
		if (j == n) {
			yaml_node_t *root = yaml_document_get_root_node((yaml_document_t *)&s->doc);
			const yaml_node_t *at =
			        missing_at ? missing_at : qc_map_get(s, root, "attrs");
			qc_cases_fail(it, at ? at : c->where,
			              "%s/%s needs attribute '%s' (it has no default)", semantics,
			              op, as->name);
			return 0;
		}
	}
	return 1;
}

/* ---- chains ---- */

/* What a chain case holds beyond a single op's (in the case's memory, for chains only). */
typedef struct qc_case_chain {
	qcf_op_call nodes[QC_MAX_NODES];
	qcf_tensor node_in[QC_MAX_NODES][QC_MAX_TENSORS], node_out[QC_MAX_NODES][QC_MAX_TENSORS];
	qcf_attr node_attrs[QC_MAX_NODES][QC_MAX_ATTRS];
	const yaml_node_t *node_attr_nodes[QC_MAX_NODES][QC_MAX_ATTRS];
	qcf_tensor mid[QC_MAX_TENSORS];
	qcf_quant quant_mid[QC_MAX_TENSORS];
	int64_t shape_mid[QC_MAX_TENSORS][QCF_MAX_RANK];
	qc_tensor_nodes mid_nodes[QC_MAX_TENSORS];
	qcf_op_call fused;
	qcf_tensor fused_in[QC_MAX_TENSORS];
	qcf_attr fused_attrs[QC_MAX_ATTRS];
	const yaml_node_t *fused_attr_nodes[QC_MAX_ATTRS];
} qc_case_chain;

/* The case's tensor called name: a graph input, an intermediate or a graph output. */
static const qcf_tensor *chain_tensor(const qc_case *c, const char *name)
{
	for (int i = 0; i < c->call.n_inputs; i++)
		if (!strcmp(c->in[i].name, name))
			return &c->in[i];
	for (int i = 0; i < c->n_mid; i++)
		if (!strcmp(c->mid[i].name, name))
			return &c->mid[i];
	for (int i = 0; i < c->call.n_outputs; i++)
		if (!strcmp(c->out[i].name, name))
			return &c->out[i];
	return NULL;
}

/* One node (or the fused form) of the spec as a complete single-op call of the case. */
static int build_node(qc_cases *it, qc_case *c, const qc_chain_node *nd, qcf_op_call *call,
                      qcf_tensor *in, qcf_tensor *out, qcf_attr *attrs,
                      const yaml_node_t **attr_nodes)
{
	memset(call, 0, sizeof *call);
	call->struct_size = sizeof *call;
	call->op = nd->op;
	call->semantics = nd->semantics;
	call->n_inputs = nd->n_inputs;
	call->n_outputs = nd->n_outputs;
	call->inputs = in;
	call->outputs = out;
	for (int j = 0; j < nd->n_inputs; j++) {
		const qcf_tensor *t = chain_tensor(c, nd->inputs[j]);
		if (!t) {
			qc_cases_fail(it, nd->node, "no tensor '%s'", nd->inputs[j]);
			return 0;
		}
		in[j] = *t;
		for (int u = 0; u < nd->n_unquantized; u++)
			if (!strcmp(nd->unquantized[u], nd->inputs[j]))
				in[j].quant = NULL; /* the fused op's: its quantization implied */
	}
	for (int j = 0; out && j < nd->n_outputs; j++) {
		const qcf_tensor *t = chain_tensor(c, nd->outputs[j]);
		if (!t) {
			qc_cases_fail(it, nd->node, "no tensor '%s'", nd->outputs[j]);
			return 0;
		}
		out[j] = *t;
	}
	if (!eval_attrs(it, c, nd->attrs, nd->n_attrs, attrs, attr_nodes, nd->semantics, nd->op,
	                qc_map_get(it->s, nd->node, "attrs") ? qc_map_get(it->s, nd->node, "attrs")
	                                                     : nd->node))
		return 0;
	call->n_attrs = nd->n_attrs;
	call->attrs = attrs;
	return 1;
}

/* The nodes, the chain and the fused form of a chain case (data bound later). */
static int build_chain(qc_cases *it, qc_case *c)
{
	const qc_spec *s = it->s;
	qc_case_chain *ch = c->ch;
	c->n_nodes = s->n_nodes;
	for (int k = 0; k < s->n_nodes; k++)
		if (!build_node(it, c, &s->nodes[k], &ch->nodes[k], ch->node_in[k], ch->node_out[k],
		                ch->node_attrs[k], ch->node_attr_nodes[k]))
			return 0;
	c->nodes = ch->nodes;
	c->chain.struct_size = sizeof c->chain;
	c->chain.n_nodes = c->n_nodes;
	c->chain.nodes = ch->nodes;
	c->chain.n_intermediates = c->n_mid;
	c->chain.intermediates = c->mid;
	c->call.chain = &c->chain;
	c->fusion = s->fusion;
	if (s->fusion != QC_FUSION_ROUND_ONCE)
		return 1;
	if (!build_node(it, c, &s->fused, &ch->fused, ch->fused_in, NULL, ch->fused_attrs,
	                ch->fused_attr_nodes))
		return 0;
	ch->fused.outputs = c->out;
	ch->fused.n_outputs = c->call.n_outputs;
	c->fused = &ch->fused;
	return 1;
}

/* The nodes' tensors point at the data their names bind to (built last). */
static void chain_bind_data(qc_case *c)
{
	qc_case_chain *ch = c->ch;
	for (int k = 0; k < c->n_nodes; k++) {
		for (int j = 0; j < ch->nodes[k].n_inputs; j++)
			ch->node_in[k][j].data = chain_tensor(c, ch->node_in[k][j].name)->data;
		for (int j = 0; j < ch->nodes[k].n_outputs; j++)
			ch->node_out[k][j].data = chain_tensor(c, ch->node_out[k][j].name)->data;
	}
	for (int j = 0; c->fused && j < ch->fused.n_inputs; j++)
		ch->fused_in[j].data = chain_tensor(c, ch->fused_in[j].name)->data;
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
		if (v && !qc_cases_get_num(it, v, keys[i].dst, keys[i].key))
			return 0;
		if (v && (!(*keys[i].dst >= 0) || isinf(*keys[i].dst))) {
			qc_cases_fail(it, v, "tolerance '%s' must be a finite number >= 0",
			              keys[i].key);
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
			int64_t n = qc_cases_get_nums(it, c, v, &vals, "golden values");
			if (n < 0)
				return 0;
			size_t want_n = qref_numel(c->out[i].rank, c->out[i].shape);
			if ((size_t)n != want_n) {
				qc_cases_fail(it, v,
				              "golden '%s' has %lld values, its shape needs %zu", k,
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
	it->n_in_built = it->n_out_built = it->n_mid_built = 0;
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
		const char *e = qc_cases_get_str(it, expect, "expect");
		if (e && strcmp(e, "ok") && strcmp(e, "error"))
			qc_cases_fail(it, expect, "expect must be 'ok' or 'error', not '%s'", e);
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
		ok = qc_cases_build_tensor(it, c, &tv, &c->in[i], &c->quant_in[i], c->shape_in[i],
		                           &c->in_nodes[i]);
		it->n_in_built += ok;
	}
	/* a chain's intermediates, between its inputs and its outputs */
	if (s->n_nodes) {
		c->ch = qc_case_alloc(c, sizeof *c->ch);
		c->mid = c->ch->mid;
		c->n_mid = s->n_mids;
	}
	for (int i = 0; i < c->n_mid && ok; i++) {
		tview tv = {s->mids[i].name, s->mids[i].node, NULL};
		ok = qc_cases_build_tensor(it, c, &tv, &c->mid[i], &c->ch->quant_mid[i],
		                           c->ch->shape_mid[i], &c->ch->mid_nodes[i]);
		it->n_mid_built += ok;
	}
	c->call.n_outputs = s->n_outputs;
	for (int i = 0; i < s->n_outputs && ok; i++) {
		tview tv = {s->outputs[i].name, s->outputs[i].node,
		            ov_out ? qc_map_get(s, ov_out, s->outputs[i].name) : NULL};
		ok = qc_cases_build_tensor(it, c, &tv, &c->out[i], &c->quant_out[i],
		                           c->shape_out[i], &c->out_nodes[i]);
		it->n_out_built += ok;
	}
	/* data after all tensors exist: an edges generator may use another tensor's grid */
	for (int i = 0; i < s->n_inputs && ok; i++) {
		tview tv = {s->inputs[i].name, s->inputs[i].node,
		            ov_in ? qc_map_get(s, ov_in, s->inputs[i].name) : NULL};
		yaml_node_t *dn = qc_cases_tget(it, &tv, "data");
		qcf_tensor *t = &c->in[i];
		if (!dn) {
			qc_cases_fail(it, tv.over ? tv.over : tv.base, "input '%s' has no data",
			              t->name);
			ok = 0;
			break;
		}
		t->data = qc_case_alloc(c, t->nbytes);
		yaml_node_t *dr = qc_cases_resolve(it, dn);
		if (!dr) {
			ok = 0;
		} else if (dr->type == YAML_SEQUENCE_NODE) {
			ok = qc_cases_fill_explicit(it, t, dn);
		} else if (dr->type == YAML_MAPPING_NODE && qc_map_get(s, dr, "lua")) {
			ok = it->with_data ? qc_cases_fill_lua(it, c, t, dr) : 1;
		} else if (dr->type == YAML_MAPPING_NODE) {
			ok = it->with_data ? qc_cases_fill_generated(it, c, t, dr, rep) : 1;
		} else {
			qc_cases_fail(it, dn,
			              "data must be a list of values or a generator mapping");
			ok = 0;
		}
	}
	if (ok)
		ok = build_attrs(it, c, cn ? qc_map_get(s, cn, "attrs") : NULL);
	if (ok && s->n_nodes)
		ok = build_chain(it, c);
	for (int k = 0; k < s->n_outputs && ok; k++)
		if (c->auto_quant[k] && it->with_data)
			ok = qc_cases_auto_quant(it, c, k);
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
		ok = qc_cases_get_num(it, sat, &c->max_saturation, "saturation");
		c->saturation_node = sat;
	}
	if (ok && cn) {
		yaml_node_t *gn = qc_map_get(s, cn, "golden");
		if (gn)
			ok = build_golden(it, c, gn);
		c->golden_source = qc_scalar(qc_map_get(s, cn, "source"));
		yaml_node_t *gt = qc_map_get(s, cn, "golden_tolerance");
		if (ok && gt) {
			ok = qc_cases_get_num(it, qc_map_get(s, gt, "max_abs"), &c->golden_max_abs,
			                      "golden_tolerance max_abs");
			c->golden_tolerance_reason = qc_scalar(qc_map_get(s, gt, "reason"));
		}
	}
	for (int i = 0; i < s->n_outputs && ok; i++)
		c->out[i].data = qc_case_alloc(c, c->out[i].nbytes);
	for (int i = 0; i < c->n_mid && ok; i++)
		c->mid[i].data = qc_case_alloc(c, c->mid[i].nbytes ? c->mid[i].nbytes : 1);
	if (ok && s->n_nodes)
		chain_bind_data(c);
	if (ok && c->fused) {
		c->tol.fused = 1;
		c->tol.exact = 0;
	}
	if (!ok || it->failed) {
		qc_case_free(c);
		return -1;
	}
	*out = c;
	return 1;
}
