#include "spec/profile.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/dtype.h"

static void free_tensor_cond(qc_profile_tensor *t)
{
	for (int i = 0; i < t->n_names; i++)
		free(t->names[i]);
}

static void free_rule(qc_profile_rule *r)
{
	for (int i = 0; i < r->n_tensor; i++)
		free_tensor_cond(&r->tensor[i]);
	for (int i = 0; i < r->n_no_tensor; i++)
		free_tensor_cond(&r->no_tensor[i]);
	for (int i = 0; i < r->n_ops; i++)
		free(r->ops[i]);
	for (int i = 0; i < r->n_no_ops; i++)
		free(r->no_ops[i]);
	for (int i = 0; i < r->n_attrs; i++) {
		free(r->attrs[i].name);
		for (int k = 0; k < r->attrs[i].n_values; k++)
			free(r->attrs[i].values[k]);
	}
}

void qc_profile_free(qc_profile *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->name);
	free(p->description);
	free(p->require_engine);
	free(p->base_description);
	for (int i = 0; i < p->n_ops; i++)
		free(p->ops[i]);
	for (int e = 0; e < p->n_ext; e++) {
		qc_profile_ext *x = &p->ext[e];
		free(x->name);
		free(x->description);
		for (int i = 0; i < x->n_ops; i++)
			free(x->ops[i]);
		for (int r = 0; r < x->n_rules; r++)
			free_rule(&x->rules[r]);
	}
	free(p);
}

const qc_profile *qc_profile_find(qc_profile *const *profiles, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(profiles[i]->name, name) == 0)
			return profiles[i];
	return NULL;
}

int qc_profile_ext_index(const qc_profile *p, const char *name)
{
	for (int i = 0; i < p->n_ext; i++)
		if (!strcmp(p->ext[i].name, name))
			return i;
	return -1;
}

const char *qc_profile_class_name(const qc_profile *p, int k)
{
	return k <= 0 || k > p->n_ext ? "base" : p->ext[k - 1].name;
}

/* ---- classification ---- */

static int tensor_meets(const qc_profile_tensor *t, const qcf_tensor *x)
{
	if (t->n_dtypes) {
		int hit = 0;
		for (int i = 0; i < t->n_dtypes && !hit; i++)
			hit = x->dtype == t->dtypes[i];
		if (!hit)
			return 0;
	}
	if (t->n_names) {
		int hit = 0;
		for (int i = 0; i < t->n_names && !hit; i++)
			hit = x->name && fnmatch(t->names[i], x->name, 0) == 0;
		if (!hit)
			return 0;
	}
	const qcf_quant *q = x->quant;
	if (t->quantized >= 0 && (q != NULL) != t->quantized)
		return 0;
	if (t->per_axis >= 0 && (q && q->axis >= 0 && q->block_size <= 0) != t->per_axis)
		return 0;
	if (t->blocked >= 0 && (q && q->block_size > 0) != t->blocked)
		return 0;
	return 1;
}

static int some_tensor(const qc_profile_tensor *t, const qcf_op_call *c)
{
	for (int i = 0; c->inputs && i < c->n_inputs; i++)
		if (tensor_meets(t, &c->inputs[i]))
			return 1;
	for (int i = 0; c->outputs && i < c->n_outputs; i++)
		if (tensor_meets(t, &c->outputs[i]))
			return 1;
	return 0;
}

static int attr_is(const qcf_attr *a, const char *v)
{
	char buf[64];
	double d;
	switch (a->type) {
	case QCF_ATTR_INT:
		snprintf(buf, sizeof buf, "%lld", (long long)a->v.i);
		return !strcmp(buf, v);
	case QCF_ATTR_FLOAT: return qc_parse_float(v, &d) && d == a->v.f;
	case QCF_ATTR_STRING: return a->v.s && !strcmp(a->v.s, v);
	default: return 0;
	}
}

static int rule_meets(const qc_profile_rule *r, const qcf_op_call *c)
{
	for (int i = 0; i < r->n_tensor; i++)
		if (!some_tensor(&r->tensor[i], c))
			return 0;
	for (int i = 0; i < r->n_no_tensor; i++)
		if (some_tensor(&r->no_tensor[i], c))
			return 0;
	char op[256];
	snprintf(op, sizeof op, "%s/%s", c->semantics ? c->semantics : "", c->op ? c->op : "");
	if (r->n_ops) {
		int hit = 0;
		for (int i = 0; i < r->n_ops && !hit; i++)
			hit = fnmatch(r->ops[i], op, 0) == 0;
		if (!hit)
			return 0;
	}
	for (int i = 0; i < r->n_no_ops; i++)
		if (fnmatch(r->no_ops[i], op, 0) == 0)
			return 0;
	for (int i = 0; i < r->n_attrs; i++) {
		const qcf_attr *a = NULL;
		for (int k = 0; c->attrs && k < c->n_attrs && !a; k++)
			if (c->attrs[k].name && !strcmp(c->attrs[k].name, r->attrs[i].name))
				a = &c->attrs[k];
		int hit = 0;
		for (int k = 0; a && k < r->attrs[i].n_values && !hit; k++)
			hit = attr_is(a, r->attrs[i].values[k]);
		if (!hit)
			return 0;
	}
	return 1;
}

int qc_profile_classify(const qc_profile *p, const qcf_op_call *c, int first[2], int second[2],
                        uint64_t hits[][QC_PROFILE_MAX_RULES])
{
	int cls = 0;
	for (int e = 0; e < p->n_ext; e++) {
		for (int r = 0; r < p->ext[e].n_rules; r++) {
			if (!rule_meets(&p->ext[e].rules[r], c))
				continue;
			if (hits)
				hits[e][r]++;
			if (!cls) {
				cls = e + 1;
				first[0] = e;
				first[1] = r;
			} else if (cls > 0 && cls != e + 1) {
				second[0] = e;
				second[1] = r;
				cls = -1;
			}
		}
	}
	return cls;
}

/* ---- YAML helpers ---- */

const char *qc_yaml_scalar_at(yaml_document_t *doc, yaml_node_t *map, const char *key,
                              yaml_node_t **node)
{
	*node = NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp((char *)k->data.scalar.value, key)) {
			*node = yaml_document_get_node(doc, p->value);
			return (*node)->type == YAML_SCALAR_NODE
			               ? (char *)(*node)->data.scalar.value
			               : NULL;
		}
	}
	return NULL;
}

void qc_yaml_check_keys(yaml_document_t *doc, yaml_node_t *map, const char *const *keys,
                        const char *what, const char *list, const char *path, qc_diag *diag)
{
	for (yaml_node_pair_t *kp = map->data.mapping.pairs.start; kp < map->data.mapping.pairs.top;
	     kp++) {
		yaml_node_t *k = yaml_document_get_node(doc, kp->key);
		const char *ks = k->type == YAML_SCALAR_NODE ? (char *)k->data.scalar.value : "";
		int known = 0;
		for (const char *const *a = keys; *a; a++)
			known |= !strcmp(*a, ks);
		if (!known)
			qc_diag_error(diag, path, k, "unknown key '%s' in %s (%s)", ks, what, list);
	}
}

int qc_yaml_load(const char *path, const char *what, yaml_document_t *doc, qc_diag *diag)
{
	return qc_yaml_load_file(path, what, doc, diag);
}

/* ---- loading ---- */

typedef struct loader {
	yaml_document_t *doc;
	const char *path;
	qc_diag *diag;
} loader;

#define LERR(L, node, ...) qc_diag_error((L)->diag, (L)->path, (node), __VA_ARGS__)

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The scalars of a scalar or a sequence of scalars, at most max; -1 on an error (reported). */
static int scalars(loader *L, yaml_node_t *n, const char **out, yaml_node_t **at, int max,
                   const char *what)
{
	if (scalar(n)) {
		out[0] = scalar(n);
		at[0] = n;
		return 1;
	}
	if (!n || n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top) {
		LERR(L, n, "%s must be a value or a non-empty list of values", what);
		return -1;
	}
	int k = 0;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *v = yaml_document_get_node(L->doc, *it);
		if (!scalar(v)) {
			LERR(L, v, "%s must be a value or a non-empty list of values", what);
			return -1;
		}
		if (k == max) {
			LERR(L, v, "%s: at most %d values", what, max);
			return -1;
		}
		at[k] = v;
		out[k++] = scalar(v);
	}
	return k;
}

static void required_ops(loader *L, yaml_node_t *n, yaml_node_t *parent, char **ops, int *n_ops)
{
	if (!n || n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top) {
		LERR(L, n ? n : parent, "'required_ops' must be a non-empty list of semantics/OP");
		return;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *o = yaml_document_get_node(L->doc, *it);
		const char *os = scalar(o);
		if (!os || !strchr(os, '/'))
			LERR(L, o, "a required op is written semantics/OP");
		else if (*n_ops == QC_PROFILE_MAX_OPS)
			LERR(L, o, "too many required ops");
		else
			ops[(*n_ops)++] = strdup(os);
	}
}

static void min_cases(loader *L, yaml_node_t *map, uint64_t *out)
{
	yaml_node_t *n;
	const char *v = qc_yaml_scalar_at(L->doc, map, "min_cases", &n);
	int64_t mc;
	if (!v || !qc_parse_int(v, &mc) || mc < 1)
		LERR(L, n ? n : map, "'min_cases' must be an integer >= 1");
	else
		*out = (uint64_t)mc;
}

static int boolean(loader *L, yaml_node_t *n, const char *key)
{
	int b;
	if (!scalar(n) || !qc_parse_bool(scalar(n), &b)) {
		LERR(L, n, "'%s' must be true or false", key);
		return -1;
	}
	return b;
}

static void tensor_cond(loader *L, yaml_node_t *n, qc_profile_tensor *t)
{
	t->quantized = t->per_axis = t->blocked = -1;
	if (!n || n->type != YAML_MAPPING_NODE || !n->data.mapping.pairs.top ||
	    n->data.mapping.pairs.start == n->data.mapping.pairs.top) {
		LERR(L, n,
		     "a tensor condition is a mapping of dtype, name, quantized, per_axis, "
		     "blocked");
		return;
	}
	static const char *const keys[] = {"dtype",    "name",    "quantized",
	                                   "per_axis", "blocked", NULL};
	qc_yaml_check_keys(L->doc, n, keys, "a tensor condition",
	                   "dtype, name, quantized, per_axis, blocked", L->path, L->diag);
	for (yaml_node_pair_t *kp = n->data.mapping.pairs.start; kp < n->data.mapping.pairs.top;
	     kp++) {
		const char *k = scalar(yaml_document_get_node(L->doc, kp->key));
		yaml_node_t *v = yaml_document_get_node(L->doc, kp->value);
		const char *vals[QC_PROFILE_MAX_VALUES];
		yaml_node_t *at[QC_PROFILE_MAX_VALUES];
		if (!k)
			continue;
		if (!strcmp(k, "dtype")) {
			int m = scalars(L, v, vals, at, QC_PROFILE_MAX_VALUES, "'dtype'");
			for (int i = 0; i < m; i++) {
				qcf_dtype d = qref_dtype_parse(vals[i]);
				if (d == QCF_DTYPE_INVALID)
					LERR(L, at[i], "unknown dtype '%s'", vals[i]);
				else
					t->dtypes[t->n_dtypes++] = d;
			}
		} else if (!strcmp(k, "name")) {
			int m = scalars(L, v, vals, at, QC_PROFILE_MAX_VALUES, "'name'");
			for (int i = 0; i < m; i++)
				t->names[t->n_names++] = strdup(vals[i]);
		} else if (!strcmp(k, "quantized")) {
			t->quantized = boolean(L, v, k);
		} else if (!strcmp(k, "per_axis")) {
			t->per_axis = boolean(L, v, k);
		} else if (!strcmp(k, "blocked")) {
			t->blocked = boolean(L, v, k);
		}
	}
}

/* tensor / no_tensor: one condition or a list of them */
static void tensor_conds(loader *L, yaml_node_t *n, qc_profile_tensor *t, int *count)
{
	if (n && n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.items.start == n->data.sequence.items.top)
			LERR(L, n, "an empty list of tensor conditions");
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			if (*count == QC_PROFILE_MAX_TENSORS) {
				LERR(L, n, "at most %d tensor conditions", QC_PROFILE_MAX_TENSORS);
				return;
			}
			tensor_cond(L, yaml_document_get_node(L->doc, *it), &t[(*count)++]);
		}
	} else {
		tensor_cond(L, n, &t[(*count)++]);
	}
}

static void rule(loader *L, yaml_node_t *n, qc_profile_rule *r)
{
	r->line = n->start_mark.line;
	r->column = n->start_mark.column;
	if (n->type != YAML_MAPPING_NODE ||
	    n->data.mapping.pairs.start == n->data.mapping.pairs.top) {
		LERR(L, n, "a match rule is a mapping of tensor, no_tensor, op, no_op, attr");
		return;
	}
	static const char *const keys[] = {"tensor", "no_tensor", "op", "no_op", "attr", NULL};
	qc_yaml_check_keys(L->doc, n, keys, "a match rule", "tensor, no_tensor, op, no_op, attr",
	                   L->path, L->diag);
	for (yaml_node_pair_t *kp = n->data.mapping.pairs.start; kp < n->data.mapping.pairs.top;
	     kp++) {
		const char *k = scalar(yaml_document_get_node(L->doc, kp->key));
		yaml_node_t *v = yaml_document_get_node(L->doc, kp->value);
		const char *vals[QC_PROFILE_MAX_VALUES];
		yaml_node_t *at[QC_PROFILE_MAX_VALUES];
		if (!k)
			continue;
		if (!strcmp(k, "tensor")) {
			tensor_conds(L, v, r->tensor, &r->n_tensor);
		} else if (!strcmp(k, "no_tensor")) {
			tensor_conds(L, v, r->no_tensor, &r->n_no_tensor);
		} else if (!strcmp(k, "op")) {
			int m = scalars(L, v, vals, at, QC_PROFILE_MAX_VALUES, "'op'");
			for (int i = 0; i < m; i++) {
				if (!strchr(vals[i], '/'))
					LERR(L, at[i], "an op is written semantics/OP (a glob)");
				r->ops[r->n_ops++] = strdup(vals[i]);
			}
		} else if (!strcmp(k, "no_op")) {
			int m = scalars(L, v, vals, at, QC_PROFILE_MAX_VALUES, "'no_op'");
			for (int i = 0; i < m; i++) {
				if (!strchr(vals[i], '/'))
					LERR(L, at[i], "an op is written semantics/OP (a glob)");
				r->no_ops[r->n_no_ops++] = strdup(vals[i]);
			}
		} else if (!strcmp(k, "attr")) {
			if (v->type != YAML_MAPPING_NODE ||
			    v->data.mapping.pairs.start == v->data.mapping.pairs.top) {
				LERR(L, v,
				     "'attr' is a mapping of attribute names to a value or a "
				     "list of values");
				continue;
			}
			for (yaml_node_pair_t *ap = v->data.mapping.pairs.start;
			     ap < v->data.mapping.pairs.top; ap++) {
				yaml_node_t *an = yaml_document_get_node(L->doc, ap->key);
				if (!scalar(an) || r->n_attrs == QC_PROFILE_MAX_VALUES) {
					LERR(L, an, "an attribute name (at most %d)",
					     QC_PROFILE_MAX_VALUES);
					continue;
				}
				int m = scalars(L, yaml_document_get_node(L->doc, ap->value), vals,
				                at, QC_PROFILE_MAX_VALUES, "an attribute's value");
				r->attrs[r->n_attrs].name = strdup(scalar(an));
				for (int i = 0; i < m; i++)
					r->attrs[r->n_attrs].values[i] = strdup(vals[i]);
				r->attrs[r->n_attrs++].n_values = m > 0 ? m : 0;
			}
		}
	}
}

static int valid_ext_name(const char *s)
{
	if (!s || !*s || !strcmp(s, "base") || !strcmp(s, "all") || strlen(s) > 64)
		return 0;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		      (c > s && (*c == '-' || *c == '_' || *c == '.'))))
			return 0;
	return 1;
}

static void extension(loader *L, qc_profile *p, yaml_node_t *key, yaml_node_t *n)
{
	const char *name = scalar(key);
	if (!valid_ext_name(name)) {
		LERR(L, key,
		     "an extension's name is lowercase letters, digits, '-', '_' and '.', not "
		     "'base' or 'all'");
		return;
	}
	if (qc_profile_ext_index(p, name) >= 0) {
		LERR(L, key, "extension '%s' is defined twice", name);
		return;
	}
	if (p->n_ext == QC_PROFILE_MAX_EXT) {
		LERR(L, key, "at most %d extensions", QC_PROFILE_MAX_EXT);
		return;
	}
	qc_profile_ext *x = &p->ext[p->n_ext++];
	x->name = strdup(name);
	x->line = key->start_mark.line;
	x->column = key->start_mark.column;
	if (!n || n->type != YAML_MAPPING_NODE) {
		LERR(L, n ? n : key,
		     "extension '%s' is a mapping of description, match, required_ops, min_cases",
		     name);
		return;
	}
	static const char *const keys[] = {"description", "match", "required_ops", "min_cases",
	                                   NULL};
	qc_yaml_check_keys(L->doc, n, keys, "an extension",
	                   "description, match, required_ops, min_cases", L->path, L->diag);
	yaml_node_t *v;
	const char *d = qc_yaml_scalar_at(L->doc, n, "description", &v);
	if (d)
		x->description = strdup(d);
	min_cases(L, n, &x->min_cases);
	qc_yaml_scalar_at(L->doc, n, "required_ops", &v);
	if (v) {
		x->ops_given = 1;
		required_ops(L, v, n, x->ops, &x->n_ops);
	}
	qc_yaml_scalar_at(L->doc, n, "match", &v);
	if (!v || v->type != YAML_SEQUENCE_NODE ||
	    v->data.sequence.items.start == v->data.sequence.items.top) {
		LERR(L, v ? v : n, "extension '%s' needs 'match', a non-empty list of rules", name);
		return;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		if (x->n_rules == QC_PROFILE_MAX_RULES) {
			LERR(L, v, "at most %d match rules", QC_PROFILE_MAX_RULES);
			break;
		}
		rule(L, yaml_document_get_node(L->doc, *it), &x->rules[x->n_rules++]);
	}
}

int qc_require_engine_valid(const char *s)
{
	return s && (!strcmp(s, "reported") || !strcmp(s, "accelerator"));
}

const char *qc_require_engine_stricter(const char *a, const char *b)
{
	if ((a && !strcmp(a, "accelerator")) || (b && !strcmp(b, "accelerator")))
		return "accelerator";
	return a ? a : b;
}

qc_profile *qc_profile_load(const char *path, qc_diag *diag)
{
	yaml_document_t doc;
	if (!qc_yaml_load(path, "profile", &doc, diag))
		return NULL;

	int before = diag ? diag->errors : 0;
	qc_profile *p = calloc(1, sizeof *p);
	p->path = strdup(path);
	loader L = {&doc, path, diag};
	yaml_node_t *root = yaml_document_get_root_node(&doc), *n;
	if (!root || root->type != YAML_MAPPING_NODE) {
		qc_diag_error(diag, path, root, "a profile must be a mapping");
		goto done;
	}
	const char *v = qc_yaml_scalar_at(&doc, root, "qconform_profile", &n);
	int64_t fmt;
	if (!v || !qc_parse_int(v, &fmt) || fmt < 1 || fmt > QC_PROFILE_FORMAT) {
		qc_diag_error(diag, path, n ? n : root,
		              "missing or unsupported 'qconform_profile: %d' (1 and %d are known)",
		              QC_PROFILE_FORMAT, QC_PROFILE_FORMAT);
		goto done;
	}
	p->format = (int)fmt;
	if (fmt == 1) {
		/* format 1: the base is every case, no extensions */
		static const char *const keys[] = {"qconform_profile", "name",      "description",
		                                   "required_ops",     "min_cases", NULL};
		qc_yaml_check_keys(&doc, root, keys, "a format-1 profile",
		                   "qconform_profile, name, description, required_ops, min_cases",
		                   path, diag);
	} else {
		static const char *const keys[] = {
		        "qconform_profile", "name",           "description", "base",
		        "extensions",       "require_engine", NULL};
		qc_yaml_check_keys(
		        &doc, root, keys, "a profile",
		        "qconform_profile, name, description, base, extensions, require_engine",
		        path, diag);
		if ((v = qc_yaml_scalar_at(&doc, root, "require_engine", &n))) {
			/* the engine every judged case must be reported to have run on */
			if (!qc_require_engine_valid(v))
				qc_diag_error(diag, path, n,
				              "require_engine must be 'reported' or 'accelerator', "
				              "got '%s'",
				              v);
			else
				p->require_engine = strdup(v);
		}
	}
	if (!(v = qc_yaml_scalar_at(&doc, root, "name", &n)) || !*v)
		qc_diag_error(diag, path, n ? n : root, "missing 'name'");
	else
		p->name = strdup(v);
	if ((v = qc_yaml_scalar_at(&doc, root, "description", &n)))
		p->description = strdup(v);
	yaml_node_t *base = root;
	if (fmt >= 2) {
		qc_yaml_scalar_at(&doc, root, "base", &base);
		if (!base || base->type != YAML_MAPPING_NODE) {
			qc_diag_error(diag, path, base ? base : root,
			              "'base' must be a mapping of description, required_ops, "
			              "min_cases");
			goto done;
		}
		static const char *const keys[] = {"description", "required_ops", "min_cases",
		                                   NULL};
		qc_yaml_check_keys(&doc, base, keys, "the base",
		                   "description, required_ops, min_cases", path, diag);
		if ((v = qc_yaml_scalar_at(&doc, base, "description", &n)))
			p->base_description = strdup(v);
	}
	min_cases(&L, base, &p->min_cases);
	qc_yaml_scalar_at(&doc, base, "required_ops", &n);
	required_ops(&L, n, base, p->ops, &p->n_ops);
	if (fmt >= 2) {
		qc_yaml_scalar_at(&doc, root, "extensions", &n);
		if (n && n->type != YAML_MAPPING_NODE)
			qc_diag_error(diag, path, n,
			              "'extensions' must be a mapping of names to extensions");
		else if (n)
			for (yaml_node_pair_t *kp = n->data.mapping.pairs.start;
			     kp < n->data.mapping.pairs.top; kp++)
				extension(&L, p, yaml_document_get_node(&doc, kp->key),
				          yaml_document_get_node(&doc, kp->value));
	}
done:
	qc_yaml_free(&doc);
	if (diag && diag->errors > before) {
		qc_profile_free(p);
		return NULL;
	}
	return p;
}
