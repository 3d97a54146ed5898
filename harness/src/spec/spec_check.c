/*
 * spec_check: a spec's structure checked once its YAML is read (spec_internal.h): known keys,
 * types and required fields, sweeps, cases and how many there are; its op and attributes
 * against the reference's schema (qref.h).
 */
#include "spec/spec_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "reference/qref.h"
#include "spec/slua.h"

/* ---- structure checks ---- */

#define ERR(c, node, ...) qc_diag_error((c)->d, (c)->s->path, (node), __VA_ARGS__)

static const char *type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

static int want(checker *c, const yaml_node_t *n, yaml_node_type_t t, const char *what)
{
	if (n->type == t)
		return 1;
	const char *tn = t == YAML_SCALAR_NODE     ? "a scalar"
	                 : t == YAML_SEQUENCE_NODE ? "a list"
	                                           : "a mapping";
	ERR(c, n, "%s must be %s, not %s", what, tn, type_name(n));
	return 0;
}

/* Keys of a mapping must be scalars from `allowed`, each at most once. */
static int check_keys(checker *c, const yaml_node_t *map, const char *const *allowed,
                      const char *where)
{
	int ok = 1;
	unsigned char seen[32] = {0};
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = qc_node(c->s, p->key);
		const char *k = qc_scalar(kn);
		if (!k) {
			ERR(c, kn, "keys of %s must be scalars", where);
			ok = 0;
			continue;
		}
		int known = 0;
		for (const char *const *a = allowed; *a; a++)
			if (strcmp(*a, k) == 0) {
				known = 1;
				/* duplicates of known keys only (an unknown key is an error
				 * already): O(keys) however large the mapping */
				if (seen[a - allowed]) {
					ERR(c, kn, "duplicate key '%s' in %s", k, where);
					ok = 0;
				}
				seen[a - allowed] = 1;
			}
		if (!known) {
			char list[512] = "";
			for (const char *const *a = allowed; *a; a++) {
				strncat(list, *a, sizeof list - strlen(list) - 3);
				if (a[1])
					strncat(list, ", ", sizeof list - strlen(list) - 1);
			}
			ERR(c, kn, "unknown key '%s' in %s (expected one of: %s)", k, where, list);
			ok = 0;
		}
	}
	return ok;
}

static int is_ident(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return 0;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static const char *const quant_keys[] = {"scale",      "zero_point",  "mean",        "std_dev",
                                         "min",        "max",         "nudge",       "narrow_range",
                                         "axis",       "scales",      "zero_points", "auto",
                                         "block_size", "scale_dtype", NULL};
static const char *const data_gen_keys[] = {"gen",    "min",       "max",        "mean",  "std",
                                            "values", "scale",     "zero_point", "axis",  "qmin",
                                            "qmax",   "nonfinite", "grid",       "quant", NULL};
static const char *const tensor_keys[] = {"dtype", "shape", "quant", "data", NULL};
static const char *const tol_keys[] = {"exact",         "max_abs", "steps", "bias", "mse",
                                       "mismatch_rate", "ulp",     "abs",   "rel",  "rounding",
                                       "check",         "reason",  NULL};
static const char *const case_keys[] = {
        "name",   "description",      "vars",      "inputs", "outputs",    "attrs", "golden",
        "source", "golden_tolerance", "tolerance", "expect", "saturation", NULL};
static const char *const golden_tol_keys[] = {"max_abs", "reason", NULL};
static const char *const top_keys[] = {
        "qconform", "op",    "semantics",  "profile", "description",   "source",    "seed",
        "repeat",   "sweep", "inputs",     "outputs", "attrs",         "tolerance", "cases",
        "expect",   "notes", "saturation", "chain",   "intermediates", "fusion",    NULL};
static const char *const node_keys[] = {"op",    "semantics",   "inputs", "outputs",
                                        "attrs", "unquantized", NULL};
static const char *const fusion_keys[] = {"contract", "fused", "reason", NULL};

static void check_tensor(checker *c, yaml_node_t *t, const char *name, int partial)
{
	char where[160];
	snprintf(where, sizeof where, "tensor '%s'", name);
	if (!want(c, t, YAML_MAPPING_NODE, where))
		return;
	check_keys(c, t, tensor_keys, where);
	if (!partial && !qc_map_get(c->s, t, "dtype"))
		ERR(c, t, "tensor '%s' has no dtype", name);
	if (!partial && !qc_map_get(c->s, t, "shape"))
		ERR(c, t, "tensor '%s' has no shape", name);
	yaml_node_t *sh = qc_map_get(c->s, t, "shape");
	if (sh && sh->type == YAML_MAPPING_NODE)
		ERR(c, sh, "shape of '%s' must be a list of sizes or \"=variable\"", name);
	yaml_node_t *q = qc_map_get(c->s, t, "quant");
	const char *qs = qc_scalar(q);
	if (qs && qs[0] != '=' && *qs && strcmp(qs, "~") && strcmp(qs, "null") &&
	    strcmp(qs, "none"))
		ERR(c, q, "quant must be a mapping, \"=variable\" or null");
	else if (q && !qs && want(c, q, YAML_MAPPING_NODE, "quant"))
		check_keys(c, q, quant_keys, "quant");
	yaml_node_t *dn = qc_map_get(c->s, t, "data");
	if (dn && dn->type == YAML_MAPPING_NODE && qc_map_get(c->s, dn, "lua")) {
		static const char *const lua_keys[] = {"lua", NULL};
		check_keys(c, dn, lua_keys, "a Lua generator");
	} else if (dn && dn->type == YAML_MAPPING_NODE) {
		check_keys(c, dn, data_gen_keys, "data generator");
		if (!qc_map_get(c->s, dn, "gen"))
			ERR(c, dn,
			    "data generator of '%s' has no 'gen' (uniform, normal, choice, "
			    "sequence, edges)",
			    name);
	}
}

static int collect_named(checker *c, yaml_node_t *map, qc_named *out, int max, const char *what)
{
	int n = 0;
	if (!want(c, map, YAML_MAPPING_NODE, what))
		return 0;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = qc_node(c->s, p->key);
		const char *k = qc_scalar(kn);
		if (!k) {
			ERR(c, kn, "names in %s must be scalars", what);
			continue;
		}
		for (int i = 0; i < n; i++)
			if (strcmp(out[i].name, k) == 0)
				ERR(c, kn, "duplicate name '%s' in %s", k, what);
		if (n == max) {
			ERR(c, kn, "too many entries in %s (at most %d)", what, max);
			break;
		}
		out[n].name = k;
		out[n].node = qc_node(c->s, p->value);
		n++;
	}
	return n;
}

static const char *const rounding_names[] = {"double",  "single",    "half_even", "half_away",
                                             "half_up", "half_down", NULL};

static void check_tolerance(checker *c, yaml_node_t *t)
{
	if (t->type == YAML_SCALAR_NODE) {
		if (strcmp(qc_scalar(t), "exact") != 0)
			ERR(c, t, "tolerance must be 'exact' or a mapping of bounds");
		return;
	}
	if (!want(c, t, YAML_MAPPING_NODE, "tolerance"))
		return;
	check_keys(c, t, tol_keys, "tolerance");
	int bounds = 0, exact = 0;
	for (yaml_node_pair_t *p = t->data.mapping.pairs.start; p < t->data.mapping.pairs.top;
	     p++) {
		const char *k = qc_scalar(qc_node(c->s, p->key));
		yaml_node_t *v = qc_node(c->s, p->value);
		if (!k || strcmp(k, "reason") == 0)
			continue;
		double x;
		int b;
		const char *vs = qc_scalar(v);
		if (strcmp(k, "exact") == 0) {
			if (!qc_parse_bool(vs, &b))
				ERR(c, v, "tolerance 'exact' must be true or false");
			exact = b;
		} else if (strcmp(k, "rounding") == 0) {
			bounds++;
			if (v->type != YAML_SEQUENCE_NODE ||
			    v->data.sequence.items.start == v->data.sequence.items.top) {
				ERR(c, v,
				    "rounding must be a list of legal roundings, e.g. [double, "
				    "single]");
				continue;
			}
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				yaml_node_t *r = qc_node(c->s, *it);
				int known = 0;
				for (const char *const *n = rounding_names; *n; n++)
					known |= qc_scalar(r) && !strcmp(*n, qc_scalar(r));
				if (!known)
					ERR(c, r,
					    "unknown rounding '%s' (double, single, half_even, "
					    "half_away, "
					    "half_up, half_down)",
					    qc_scalar(r) ? qc_scalar(r) : "?");
			}
		} else if (strcmp(k, "check") == 0) {
			bounds++;
			yaml_node_t *l =
			        v->type == YAML_MAPPING_NODE ? qc_map_get(c->s, v, "lua") : NULL;
			if (!l || !qc_scalar(l) ||
			    v->data.mapping.pairs.top - v->data.mapping.pairs.start != 1)
				ERR(c, v,
				    "check must be {lua: \"return function(e, expected, got) ... "
				    "end\"}");
		} else if (vs && vs[0] == '=') {
			bounds++; /* an expression, checked when the case is built */
		} else if (!qc_parse_float(vs, &x) || !(x >= 0) || isinf(x)) {
			ERR(c, v, "tolerance '%s' must be a finite number >= 0", k);
		} else {
			bounds++;
		}
	}
	if (!bounds && !exact)
		ERR(c, t,
		    "tolerance names no bound (max_abs, steps, bias, mse, mismatch_rate, ulp, abs, "
		    "rel, "
		    "rounding or check); write 'exact' for bit-exact");
	else if (bounds && !qc_map_get(c->s, t, "reason"))
		qc_diag_warn(c->d, c->s->path, t,
		             "a tolerance wider than exact should say why (reason: ...)");
}

/* saturation: the largest share of the reference's quantized outputs at either end of the
 * dtype that keeps a case meaningful. */
static void check_saturation(checker *c, yaml_node_t *v)
{
	double x;
	const char *vs = qc_scalar(v);
	if (!vs || (vs[0] != '=' && (!qc_parse_float(vs, &x) || !(x >= 0 && x <= 1))))
		ERR(c, v, "saturation must be a share in [0, 1] (e.g. 0.05)");
}

static void check_attr_names(checker *c, yaml_node_t *map);
static void check_attr_names_of(checker *c, yaml_node_t *map, const char *semantics,
                                const char *op);

static void check_case(checker *c, yaml_node_t *cn, int index)
{
	char where[64];
	snprintf(where, sizeof where, "case %d", index + 1);
	if (!want(c, cn, YAML_MAPPING_NODE, where))
		return;
	check_keys(c, cn, case_keys, where);
	yaml_node_t *name = qc_map_get(c->s, cn, "name");
	if (!name)
		ERR(c, cn, "case %d has no name", index + 1);
	else if (!qc_scalar(name) || !*qc_scalar(name))
		ERR(c, name, "case name must be a non-empty scalar");
	yaml_node_t *v;
	if ((v = qc_map_get(c->s, cn, "vars")) && want(c, v, YAML_MAPPING_NODE, "vars")) {
		qc_named tmp[QC_MAX_VARS];
		collect_named(c, v, tmp, QC_MAX_VARS, "vars");
	}
	const char *groups[] = {"inputs", "outputs"};
	for (int g = 0; g < 2; g++) {
		if (!(v = qc_map_get(c->s, cn, groups[g])))
			continue;
		qc_named tmp[QC_MAX_TENSORS];
		int n = collect_named(c, v, tmp, QC_MAX_TENSORS, groups[g]);
		const qc_named *tmpl = g ? c->s->outputs : c->s->inputs;
		int nt = g ? c->s->n_outputs : c->s->n_inputs;
		for (int i = 0; i < n; i++) {
			int found = 0;
			for (int j = 0; j < nt; j++)
				found |= strcmp(tmpl[j].name, tmp[i].name) == 0;
			if (!found)
				ERR(c, tmp[i].node,
				    "case overrides %s '%s', which the spec does not declare",
				    groups[g], tmp[i].name);
			/* a bare list is shorthand for {data: [...]} */
			if (tmp[i].node->type != YAML_SEQUENCE_NODE)
				check_tensor(c, tmp[i].node, tmp[i].name, 1);
		}
	}
	if ((v = qc_map_get(c->s, cn, "attrs")) && c->s->n_nodes)
		ERR(c, v, "a chain's attributes are its nodes' (bind sweep variables with 'vars')");
	else if (v && want(c, v, YAML_MAPPING_NODE, "attrs")) {
		qc_named tmp[QC_MAX_ATTRS];
		collect_named(c, v, tmp, QC_MAX_ATTRS, "attrs");
		check_attr_names(c, v);
	}
	if ((v = qc_map_get(c->s, cn, "golden"))) {
		qc_named tmp[QC_MAX_TENSORS];
		int n = collect_named(c, v, tmp, QC_MAX_TENSORS, "golden");
		for (int i = 0; i < n; i++) {
			int found = 0;
			for (int j = 0; j < c->s->n_outputs; j++)
				found |= strcmp(c->s->outputs[j].name, tmp[i].name) == 0;
			if (!found)
				ERR(c, tmp[i].node,
				    "golden output '%s' is not an output of the spec", tmp[i].name);
			want(c, tmp[i].node, YAML_SEQUENCE_NODE, "golden data");
		}
		if (n && !qc_map_get(c->s, cn, "source"))
			ERR(c, v,
			    "golden outputs need a 'source' (where the values were published)");
	}
	if ((v = qc_map_get(c->s, cn, "golden_tolerance")) &&
	    want(c, v, YAML_MAPPING_NODE, "golden_tolerance")) {
		/* how far the published values themselves may be from what the reference accepts,
		 * when their source compared within a bound (TFLM's tests: within a step) */
		check_keys(c, v, golden_tol_keys, "golden_tolerance");
		yaml_node_t *m = qc_map_get(c->s, v, "max_abs");
		const char *ms = m ? qc_scalar(m) : NULL;
		char *end = NULL;
		double d = ms ? strtod(ms, &end) : -1;
		if (!m || !ms || !end || *end || !(d >= 0))
			ERR(c, m ? m : v,
			    "golden_tolerance needs max_abs: a number >= 0 (in the output's unit: "
			    "LSB, or steps of a float output's grid)");
		if (!qc_map_get(c->s, v, "reason"))
			ERR(c, v, "golden_tolerance needs a 'reason' (how its source compared)");
		if (!qc_map_get(c->s, cn, "golden"))
			ERR(c, v, "golden_tolerance without golden outputs");
	}
	if ((v = qc_map_get(c->s, cn, "tolerance")))
		check_tolerance(c, v);
	if ((v = qc_map_get(c->s, cn, "saturation")))
		check_saturation(c, v);
	if ((v = qc_map_get(c->s, cn, "expect"))) {
		const char *e = qc_scalar(v);
		if (!e || (e[0] != '=' && strcmp(e, "ok") && strcmp(e, "error")))
			ERR(c, v, "expect must be 'ok', 'error' or an expression giving one");
	}
}

static void *sweep_alloc(void *ctx, size_t n)
{
	return qc_vnode_alloc((const qc_spec *)ctx, n);
}

/* A sweep variable whose values are an expression: evaluated once, without bindings, to a
 * non-empty list of scalars that stands in for the written list. A copy takes the list its
 * source evaluated (the same text): a job thread's copy neither runs the searches a sweep
 * may make again nor starts Lua for them, and its cases are the ones the run planned. */
static void eval_sweep(checker *c, qc_sweep *sw, int i)
{
	qc_spec *s = c->s;
	qc_named *var = &sw->vars[i];
	size_t k_sweep = (size_t)(sw - s->sweeps);
	const qc_sweep *from =
	        c->src && k_sweep < (size_t)c->src->n_sweeps ? &c->src->sweeps[k_sweep] : NULL;
	if (from && i < from->n_vars && from->values[i] && !strcmp(from->vars[i].name, var->name)) {
		sw->values[i] = from->values[i];
		var->node = qc_node(s, qc_node_of_lval(s, from->values[i], var->node));
		return;
	}
	char err[512];
	int line = 0;
	if (!s->lua && !(s->lua = qc_lua_new(err, sizeof err))) {
		ERR(c, var->node, "cannot start Lua: %s", err);
		return;
	}
	qc_lval out;
	const char *expr = qc_scalar(var->node) + 1;
	if (qc_lua_eval(s->lua, expr, NULL, 0, sweep_alloc, s, &out, err, sizeof err, &line) != 0) {
		ERR(c, var->node, "Lua: %s", err);
		return;
	}
	if (out.kind != QC_LV_LIST || out.n == 0) {
		ERR(c, var->node, "sweep values of '%s' must be a non-empty list", var->name);
		return;
	}
	for (size_t k = 0; k < out.n; k++)
		if (out.items[k].kind == QC_LV_NIL) {
			ERR(c, var->node, "sweep value %zu of '%s' is nil", k + 1, var->name);
			return;
		}
	qc_lval *keep = qc_vnode_alloc(s, sizeof *keep);
	*keep = out;
	sw->values[i] = keep;
	var->node = qc_node(s, qc_node_of_lval(s, &out, var->node));
}

static void check_sweep(checker *c, yaml_node_t *v, qc_sweep *sw)
{
	qc_spec *s = c->s;
	sw->n_vars = collect_named(c, v, sw->vars, QC_MAX_VARS, "sweep");
	for (int i = 0; i < sw->n_vars; i++) {
		yaml_node_t *vals = sw->vars[i].node;
		if (!is_ident(sw->vars[i].name))
			ERR(c, vals, "sweep variable name '%s' is not an identifier",
			    sw->vars[i].name);
		const char *expr = qc_scalar(vals);
		if (expr && expr[0] == '=') {
			/* a Lua expression giving the list, e.g. "=qc.sizes('vector')" */
			eval_sweep(c, sw, i);
			continue;
		}
		if (!want(c, vals, YAML_SEQUENCE_NODE, "sweep values"))
			continue;
		if (vals->data.sequence.items.start == vals->data.sequence.items.top)
			ERR(c, vals, "sweep variable '%s' has no values", sw->vars[i].name);
		for (yaml_node_item_t *it = vals->data.sequence.items.start;
		     it < vals->data.sequence.items.top; it++) {
			const char *sv = qc_scalar(qc_node(s, *it));
			if (sv && sv[0] == '=')
				ERR(c, qc_node(s, *it), "sweep values cannot refer to variables");
		}
	}
}

/* Explicit case names are unique in a spec: sorted, so 100,000 cases cost O(n log n). */
typedef struct named_case {
	const char *name;
	int index;
} named_case;

static int cmp_named_case(const void *a, const void *b)
{
	const named_case *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	return r ? r : (x->index > y->index) - (x->index < y->index);
}

static void check_case_names(checker *c, yaml_node_t *cases)
{
	qc_spec *s = c->s;
	size_t n = (size_t)(cases->data.sequence.items.top - cases->data.sequence.items.start);
	named_case *v = qc_xcalloc(n, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *nm = qc_scalar(
		        qc_map_get(s, qc_node(s, cases->data.sequence.items.start[i]), "name"));
		if (nm)
			v[k++] = (named_case){nm, (int)i};
	}
	qsort(v, k, sizeof *v, cmp_named_case);
	for (size_t i = 1, first = 0; i < k; i++) {
		if (strcmp(v[i - 1].name, v[i].name) != 0)
			first = i; /* v[first]: the earliest case of this name */
		else
			ERR(c,
			    qc_map_get(s, qc_node(s, cases->data.sequence.items.start[v[i].index]),
			               "name"),
			    "duplicate case name '%s' (also case %d)", v[i].name,
			    v[first].index + 1);
	}
	free(v);
}

/* The number of cases, without overflow, against QC_SPEC_MAX_CASES; reported at the sweep
 * block (or the repeat, or the case list) that crosses the limit. */
static void check_case_count(checker *c, yaml_node_t *root)
{
	qc_spec *s = c->s;
	const uint64_t lim = QC_SPEC_MAX_CASES;
	uint64_t points = 0;
	yaml_node_t *at = NULL;
	char what[64] = "";
	for (int b = 0; b < s->n_sweeps && !at; b++) {
		const qc_sweep *sw = &s->sweeps[b];
		uint64_t n = 1;
		for (int i = 0; i < sw->n_vars && !at; i++) {
			const yaml_node_t *vals = sw->vars[i].node;
			uint64_t len = vals->type == YAML_SEQUENCE_NODE
			                       ? (uint64_t)(vals->data.sequence.items.top -
			                                    vals->data.sequence.items.start)
			                       : 1;
			if (len &&
			    n > lim / len) /* n * len > lim: the exact count is in the message */
				at = qc_map_get(s, root, "sweep");
			n *= len;
		}
		if (!at && points + n > lim)
			at = qc_map_get(s, root, "sweep");
		points += n;
	}
	if (!s->n_sweeps)
		points = s->cases ? 0 : 1;
	if (at) {
		/* the product may not fit 64 bits: say it as the factors' exact product in decimal
		 * when it fits, else as a power of ten */
		long double total = 0;
		for (int b = 0; b < s->n_sweeps; b++) {
			long double n = 1;
			for (int i = 0; i < s->sweeps[b].n_vars; i++) {
				const yaml_node_t *vals = s->sweeps[b].vars[i].node;
				n *= vals->type == YAML_SEQUENCE_NODE
				             ? (long double)(vals->data.sequence.items.top -
				                             vals->data.sequence.items.start)
				             : 1;
			}
			total += n;
		}
		total *= (long double)s->repeat;
		if (total < 1e19L)
			snprintf(what, sizeof what, "%llu", (unsigned long long)total);
		else
			snprintf(what, sizeof what, "%.3Le", total);
		ERR(c, at, "sweep expands to %s cases, more than the limit of %llu", what,
		    (unsigned long long)lim);
		return;
	}
	uint64_t explicit_n = s->cases ? (uint64_t)(s->cases->data.sequence.items.top -
	                                            s->cases->data.sequence.items.start)
	                               : 0;
	if (points && (uint64_t)s->repeat > lim / points) {
		ERR(c, qc_map_get(s, root, "repeat"),
		    "sweep expands to %llu cases (%llu points, repeat %d), more than the limit of "
		    "%llu",
		    (unsigned long long)points * (unsigned long long)s->repeat,
		    (unsigned long long)points, s->repeat, (unsigned long long)lim);
	} else if (points * (uint64_t)s->repeat + explicit_n > lim) {
		ERR(c, s->cases, "the spec expands to %llu cases, more than the limit of %llu",
		    (unsigned long long)(points * (uint64_t)s->repeat + explicit_n),
		    (unsigned long long)lim);
	}
}

static const char *const semantics_names[] = {"litert", "torch", "onnx", "tf",
                                              "ort",    "mx",    "ggml", NULL};

/* ---- the op and its attributes, against the reference's schema (qref.h) ---- */

/* Edit distance of a and b (insertions, deletions, substitutions; case-insensitive), capped:
 * names of 64 bytes or more count as far. */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la >= 64 || lb >= 64)
		return 1000;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int same = tolower((unsigned char)a[i - 1]) ==
			           tolower((unsigned char)b[j - 1]);
			int v = diag + !same;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	return row[lb];
}

/* Close enough to be a misspelling: at most a third of the longer name, at least 1. */
static int close_to(const char *a, const char *b, int d)
{
	size_t n = strlen(a) > strlen(b) ? strlen(a) : strlen(b);
	int lim = (int)(n / 3);
	return d <= (lim < 1 ? 1 : lim);
}

/* The op must be one the reference implements: reported at the op's node with the nearest
 * names of the same semantics. */
static void check_op(checker *c, yaml_node_t *at)
{
	qc_spec *s = c->s;
	if (!s->op || !s->semantics || qref_op_schema_find(s->semantics, s->op))
		return;
	const char *best[3] = {NULL, NULL, NULL};
	int bd[3] = {1 << 30, 1 << 30, 1 << 30}, n_ops = 0;
	for (int i = 0; qref_op_schema_at(i); i++) {
		const qref_op_schema *o = qref_op_schema_at(i);
		if (strcmp(o->semantics, s->semantics) != 0)
			continue;
		n_ops++;
		int d = distance(s->op, o->op);
		for (int k = 0; k < 3; k++)
			if (d < bd[k]) {
				for (int m = 2; m > k; m--) {
					bd[m] = bd[m - 1];
					best[m] = best[m - 1];
				}
				bd[k] = d;
				best[k] = o->op;
				break;
			}
	}
	if (best[0] && *s->op && close_to(s->op, best[0], bd[0])) {
		ERR(c, at, "unknown op '%s' of %s; did you mean '%s'?", s->op, s->semantics,
		    best[0]);
		return;
	}
	char near[256] = "";
	size_t used = 0;
	for (int k = 0; k < 3 && best[k] && used < sizeof near; k++)
		used += (size_t)snprintf(near + used, sizeof near - used, "%s'%s'", k ? ", " : "",
		                         best[k]);
	ERR(c, at,
	    "unknown op '%s' of %s; the nearest of its %d ops are %s (specs/README.md, "
	    "\"Operators\")",
	    s->op, s->semantics, n_ops, near);
}

/* Every attribute name of map (spec or case attrs) must be one of the op's. */
static void check_attr_names(checker *c, yaml_node_t *map)
{
	check_attr_names_of(c, map, c->s->semantics, c->s->op);
}

static void check_attr_names_of(checker *c, yaml_node_t *map, const char *semantics, const char *op)
{
	qc_spec *s = c->s;
	const qref_op_schema *o = qref_op_schema_find(semantics, op);
	if (!o || !map || map->type != YAML_MAPPING_NODE)
		return;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = qc_node(s, p->key);
		const char *k = qc_scalar(kn);
		if (!k || qref_attr_schema_find(o, k))
			continue;
		const char *best = NULL;
		int bd = 1 << 30;
		char all[512] = "";
		size_t used = 0;
		for (const qref_attr_schema *a = o->attrs; a->name; a++) {
			int d = distance(k, a->name);
			if (d < bd) {
				bd = d;
				best = a->name;
			}
			if (used < sizeof all)
				used += (size_t)snprintf(all + used, sizeof all - used, "%s%s",
				                         used ? ", " : "", a->name);
		}
		if (!best)
			ERR(c, kn, "unknown attribute '%s' of %s/%s, which takes no attributes", k,
			    semantics, op);
		else if (close_to(k, best, bd))
			ERR(c, kn, "unknown attribute '%s' of %s/%s; did you mean '%s'?", k,
			    semantics, op, best);
		else
			ERR(c, kn, "unknown attribute '%s' of %s/%s (its attributes: %s)", k,
			    semantics, op, all);
	}
}

/* ---- chains ---- */

/* Where the tensor called name is declared: 'i' graph input, 'm' intermediate, 'o' graph
 * output, 0 nowhere. */
static int tensor_kind(const qc_spec *s, const char *name, int *index)
{
	for (int i = 0; i < s->n_inputs; i++)
		if (!strcmp(s->inputs[i].name, name))
			return *index = i, 'i';
	for (int i = 0; i < s->n_mids; i++)
		if (!strcmp(s->mids[i].name, name))
			return *index = i, 'm';
	for (int i = 0; i < s->n_outputs; i++)
		if (!strcmp(s->outputs[i].name, name))
			return *index = i, 'o';
	return 0;
}

/* A list of tensor names (a node's inputs or outputs) into names[]. */
static int name_list(checker *c, yaml_node_t *v, const char **names, int max, const char *what)
{
	int n = 0;
	if (!v || !want(c, v, YAML_SEQUENCE_NODE, what))
		return 0;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		yaml_node_t *t = qc_node(c->s, *it);
		if (!want(c, t, YAML_SCALAR_NODE, what))
			continue;
		if (n == max) {
			ERR(c, t, "too many %s (at most %d)", what, max);
			break;
		}
		names[n++] = qc_scalar(t);
	}
	return n;
}

/* A node's mapping (or the fused form's) read into nd: its op of the reference, its
 * attributes' names, its tensors' names (fused: outputs are the graph's). */
static int read_node(checker *c, yaml_node_t *m, qc_chain_node *nd, const char *where, int fused)
{
	qc_spec *s = c->s;
	memset(nd, 0, sizeof *nd);
	nd->node = m;
	if (!want(c, m, YAML_MAPPING_NODE, where))
		return 0;
	check_keys(c, m, node_keys, where);
	yaml_node_t *v = qc_map_get(s, m, "op");
	nd->op = v ? qc_scalar(v) : NULL;
	nd->semantics = s->semantics;
	if ((v = qc_map_get(s, m, "semantics")) && want(c, v, YAML_SCALAR_NODE, "semantics"))
		nd->semantics = qc_scalar(v);
	if (!nd->op) {
		ERR(c, m, "%s has no op", where);
		return 0;
	}
	const qref_op_schema *o = qref_op_schema_find(nd->semantics, nd->op);
	if (!o) {
		ERR(c, qc_map_get(s, m, "op"), "%s: the reference has no %s op '%s'", where,
		    nd->semantics ? nd->semantics : "?", nd->op);
		return 0;
	}
	nd->n_inputs =
	        name_list(c, qc_map_get(s, m, "inputs"), nd->inputs, QC_MAX_TENSORS, "node inputs");
	if (fused && !qc_map_get(s, m, "inputs")) {
		for (int i = 0; i < s->n_inputs; i++)
			nd->inputs[nd->n_inputs++] = s->inputs[i].name;
	} else if (!qc_map_get(s, m, "inputs")) {
		ERR(c, m, "%s has no inputs", where);
	}
	if (fused) {
		if (qc_map_get(s, m, "outputs"))
			ERR(c, qc_map_get(s, m, "outputs"),
			    "the fused form's outputs are the graph's outputs");
		for (int i = 0; i < s->n_outputs; i++)
			nd->outputs[nd->n_outputs++] = s->outputs[i].name;
	} else {
		nd->n_outputs = name_list(c, qc_map_get(s, m, "outputs"), nd->outputs,
		                          QC_MAX_OUTPUTS, "node outputs");
		if (!qc_map_get(s, m, "outputs"))
			ERR(c, m, "%s has no outputs", where);
	}
	if (nd->n_inputs < o->min_inputs || nd->n_inputs > o->max_inputs)
		ERR(c, m, "%s: %s/%s takes %d to %d inputs, the node gives %d", where,
		    nd->semantics, nd->op, o->min_inputs, o->max_inputs, nd->n_inputs);
	int min_out = o->min_outputs ? o->min_outputs : o->n_outputs;
	if (nd->n_outputs < min_out || nd->n_outputs > o->n_outputs)
		ERR(c, m, "%s: %s/%s gives %d to %d outputs, the node has %d", where, nd->semantics,
		    nd->op, min_out, o->n_outputs, nd->n_outputs);
	if ((v = qc_map_get(s, m, "attrs"))) {
		nd->n_attrs = collect_named(c, v, nd->attrs, QC_MAX_ATTRS, "attrs");
		check_attr_names_of(c, v, nd->semantics, nd->op);
	}
	/* unquantized: graph inputs the fused op reads as stored values, their quantization
	 * implied by the op (QLinearConv's int32 B: x_scale * w_scale) while the graph's
	 * DequantizeLinear needs it on the tensor */
	if ((v = qc_map_get(s, m, "unquantized"))) {
		if (!fused) {
			ERR(c, v,
			    "'unquantized' belongs to the fused form: a node reads its tensors "
			    "as declared");
			return 1;
		}
		nd->n_unquantized = name_list(c, v, nd->unquantized, QC_MAX_TENSORS, "unquantized");
		for (int i = 0; i < nd->n_unquantized; i++) {
			int k, read = 0;
			for (int j = 0; j < nd->n_inputs; j++)
				read |= !strcmp(nd->inputs[j], nd->unquantized[i]);
			if (!read || tensor_kind(s, nd->unquantized[i], &k) != 'i')
				ERR(c, v, "unquantized: the fused form reads no graph input '%s'",
				    nd->unquantized[i]);
			else if (!qc_map_get(s, s->inputs[k].node, "quant"))
				ERR(c, v,
				    "unquantized: graph input '%s' has no quantization to leave "
				    "out",
				    nd->unquantized[i]);
		}
	}
	return 1;
}

/* chain:, intermediates: and fusion: (specs/chains/OPERATORS.md): every node a call of a
 * reference op, every name declared, every tensor made once before it is read (the order is
 * the graph's), every intermediate and graph output made. */
static void check_chain(checker *c, yaml_node_t *root)
{
	qc_spec *s = c->s;
	yaml_node_t *ch = qc_map_get(s, root, "chain"), *v;
	if (!ch) {
		if ((v = qc_map_get(s, root, "intermediates")) ||
		    (v = qc_map_get(s, root, "fusion")))
			ERR(c, v, "'intermediates' and 'fusion' belong to a chain ('chain:')");
		return;
	}
	if (!want(c, ch, YAML_SEQUENCE_NODE, "chain"))
		return;
	if ((v = qc_map_get(s, root, "attrs")))
		ERR(c, v, "a chain's attributes are its nodes' ('attrs' under each node)");
	if ((v = qc_map_get(s, root, "intermediates"))) {
		s->n_mids = collect_named(c, v, s->mids, QC_MAX_TENSORS, "intermediates");
		for (int i = 0; i < s->n_mids; i++) {
			check_tensor(c, s->mids[i].node, s->mids[i].name, 0);
			int k;
			if (qc_map_get(s, s->mids[i].node, "data"))
				ERR(c, qc_map_get(s, s->mids[i].node, "data"),
				    "intermediates have no data: the nodes before them make it");
			if (tensor_kind(s, s->mids[i].name, &k) != 'm')
				ERR(c, s->mids[i].node, "intermediate '%s' is also a graph tensor",
				    s->mids[i].name);
		}
	}
	unsigned char made_m[QC_MAX_TENSORS] = {0}, made_o[QC_MAX_TENSORS] = {0};
	for (yaml_node_item_t *it = ch->data.sequence.items.start; it < ch->data.sequence.items.top;
	     it++) {
		if (s->n_nodes == QC_MAX_NODES) {
			ERR(c, qc_node(s, *it), "too many chain nodes (at most %d)", QC_MAX_NODES);
			break;
		}
		char where[48];
		snprintf(where, sizeof where, "chain node %d", s->n_nodes + 1);
		qc_chain_node *nd = &s->nodes[s->n_nodes++];
		if (!read_node(c, qc_node(s, *it), nd, where, 0))
			continue;
		for (int i = 0; i < nd->n_inputs; i++) {
			int k, kind = tensor_kind(s, nd->inputs[i], &k);
			if (!kind)
				ERR(c, nd->node,
				    "%s reads '%s', which is neither a graph input nor an "
				    "intermediate",
				    where, nd->inputs[i]);
			else if ((kind == 'm' && !made_m[k]) || (kind == 'o' && !made_o[k]))
				ERR(c, nd->node,
				    "%s reads '%s' before a node makes it (nodes run in "
				    "the order written)",
				    where, nd->inputs[i]);
		}
		for (int i = 0; i < nd->n_outputs; i++) {
			int k, kind = tensor_kind(s, nd->outputs[i], &k);
			if (!kind || kind == 'i')
				ERR(c, nd->node,
				    "%s writes '%s', which is neither an intermediate nor "
				    "a graph output",
				    where, nd->outputs[i]);
			else if ((kind == 'm' && made_m[k]) || (kind == 'o' && made_o[k]))
				ERR(c, nd->node, "%s writes '%s', which an earlier node makes",
				    where, nd->outputs[i]);
			else if (kind == 'm')
				made_m[k] = 1;
			else
				made_o[k] = 1;
		}
	}
	if (!s->n_nodes)
		ERR(c, ch, "chain is empty");
	/* the chain's name is its nodes' ops joined by '+' (a repeated op may be named once):
	 * reports read it, and the diagnosis takes a node's variants for the chain by it
	 * (judge/hypotheses.c) */
	yaml_node_t *on = qc_map_get(s, root, "op");
	/* each '+'-part of the name is some node's op; each node's op is some part */
	unsigned char part_of[QC_MAX_NODES] = {0};
	int named = s->op != NULL;
	for (const char *p = s->op; p && named;) {
		size_t len = strcspn(p, "+");
		named = 0;
		for (int k = 0; k < s->n_nodes; k++)
			if (s->nodes[k].op && strlen(s->nodes[k].op) == len &&
			    !strncmp(s->nodes[k].op, p, len))
				named = part_of[k] = 1;
		p = p[len] ? p + len + 1 : NULL;
	}
	for (int k = 0; k < s->n_nodes; k++)
		named &= part_of[k];
	if (s->n_nodes && !named)
		ERR(c, on ? on : root,
		    "a chain's op names its nodes' ops joined by '+' (CONV_2D+RELU6), and no "
		    "other, not '%s'",
		    s->op ? s->op : "");
	s->fusion = QC_FUSION_GRAPH;
	if ((v = qc_map_get(s, root, "fusion")) && want(c, v, YAML_MAPPING_NODE, "fusion")) {
		s->fusion_node = v;
		check_keys(c, v, fusion_keys, "fusion");
		yaml_node_t *ct = qc_map_get(s, v, "contract"), *f = qc_map_get(s, v, "fused");
		const char *cs = ct ? qc_scalar(ct) : NULL;
		if (!cs || (strcmp(cs, "graph") && strcmp(cs, "round_once")))
			ERR(c, ct ? ct : v, "fusion contract must be 'graph' or 'round_once'");
		else if (!strcmp(cs, "round_once")) {
			s->fusion = QC_FUSION_ROUND_ONCE;
			if (!f)
				ERR(c, v,
				    "contract round_once names the single op a fused kernel "
				    "may equal ('fused: {op: ..., attrs: ...}')");
			else if (read_node(c, f, &s->fused, "the fused form", 1))
				for (int i = 0; i < s->fused.n_inputs; i++) {
					int k;
					if (tensor_kind(s, s->fused.inputs[i], &k) != 'i')
						ERR(c, f,
						    "the fused form reads '%s', which is not a "
						    "graph input",
						    s->fused.inputs[i]);
				}
		} else if (f)
			ERR(c, f,
			    "contract graph has no fused form: the kernel must equal the "
			    "graph");
	}
}

void qc_spec_check(checker *c)
{
	qc_spec *s = c->s;
	yaml_node_t *root = yaml_document_get_root_node(&s->doc);
	if (!root) {
		ERR(c, NULL, "empty document");
		return;
	}
	if (!want(c, root, YAML_MAPPING_NODE, "a spec"))
		return;
	check_keys(c, root, top_keys, "the spec");
	yaml_node_t *v = qc_map_get(s, root, "qconform");
	int64_t fmt;
	if (!v)
		ERR(c, root, "missing 'qconform: %d' (the spec format version)", QC_SPEC_FORMAT);
	else if (!qc_parse_int(qc_scalar(v), &fmt) || fmt != QC_SPEC_FORMAT)
		ERR(c, v, "unsupported spec format '%s' (this qconform reads format %d)",
		    qc_scalar(v) ? qc_scalar(v) : "?", QC_SPEC_FORMAT);

	if (!(v = qc_map_get(s, root, "op")))
		ERR(c, root, "missing 'op'");
	else if (want(c, v, YAML_SCALAR_NODE, "op"))
		s->op = qc_scalar(v);
	if (!(v = qc_map_get(s, root, "semantics"))) {
		ERR(c, root, "missing 'semantics' (litert, torch, onnx or tf)");
	} else if (want(c, v, YAML_SCALAR_NODE, "semantics")) {
		int ok = 0;
		for (const char *const *n = semantics_names; *n; n++)
			ok |= strcmp(*n, qc_scalar(v)) == 0;
		if (!ok)
			ERR(c, v, "unknown semantics '%s' (litert, torch, onnx or tf)",
			    qc_scalar(v));
		else
			s->semantics = qc_scalar(v);
	}
	if ((v = qc_map_get(s, root, "description")) && want(c, v, YAML_SCALAR_NODE, "description"))
		s->description = qc_scalar(v);
	if ((v = qc_map_get(s, root, "profile"))) {
		if (v->type == YAML_SCALAR_NODE) {
			s->profile_nodes[s->n_profiles] = v;
			s->profiles[s->n_profiles++] = qc_scalar(v);
		} else if (want(c, v, YAML_SEQUENCE_NODE, "profile")) {
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				yaml_node_t *p = qc_node(s, *it);
				if (!want(c, p, YAML_SCALAR_NODE, "a profile name"))
					continue;
				if (s->n_profiles == QC_MAX_PROFILES)
					ERR(c, p, "too many profiles (at most %d)",
					    QC_MAX_PROFILES);
				else {
					s->profile_nodes[s->n_profiles] = p;
					s->profiles[s->n_profiles++] = qc_scalar(p);
				}
			}
		}
	}
	int64_t n;
	if ((v = qc_map_get(s, root, "seed"))) {
		if (!qc_parse_int(qc_scalar(v), &n) || n < 0)
			ERR(c, v, "seed must be an integer >= 0");
		else
			s->seed = (uint64_t)n;
	}
	s->repeat = 1;
	if ((v = qc_map_get(s, root, "repeat"))) {
		if (!qc_parse_int(qc_scalar(v), &n) || n < 1 || n > 1000000)
			ERR(c, v, "repeat must be an integer in [1, 1000000]");
		else
			s->repeat = (int)n;
	}
	if ((v = qc_map_get(s, root, "sweep"))) {
		if (v->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				if (s->n_sweeps == QC_MAX_SWEEPS) {
					ERR(c, qc_node(s, *it),
					    "too many sweep blocks (at most %d)", QC_MAX_SWEEPS);
					break;
				}
				check_sweep(c, qc_node(s, *it), &s->sweeps[s->n_sweeps++]);
			}
			if (!s->n_sweeps)
				ERR(c, v, "sweep list is empty");
		} else {
			check_sweep(c, v, &s->sweeps[s->n_sweeps++]);
		}
	}
	if ((v = qc_map_get(s, root, "inputs")))
		s->n_inputs = collect_named(c, v, s->inputs, QC_MAX_TENSORS, "inputs");
	else
		ERR(c, root, "missing 'inputs'");
	if ((v = qc_map_get(s, root, "outputs")))
		s->n_outputs = collect_named(c, v, s->outputs, QC_MAX_OUTPUTS, "outputs");
	else
		ERR(c, root, "missing 'outputs'");
	for (int i = 0; i < s->n_inputs; i++)
		check_tensor(c, s->inputs[i].node, s->inputs[i].name, 0);
	for (int i = 0; i < s->n_outputs; i++) {
		check_tensor(c, s->outputs[i].node, s->outputs[i].name, 0);
		if (qc_map_get(s, s->outputs[i].node, "data"))
			ERR(c, qc_map_get(s, s->outputs[i].node, "data"),
			    "outputs have no data; give expected values as a case's 'golden'");
	}
	check_chain(c, root);
	if (!s->n_nodes)
		check_op(c, qc_map_get(s, root, "op"));
	if ((v = qc_map_get(s, root, "attrs")) && !s->n_nodes) {
		s->n_attrs = collect_named(c, v, s->attrs, QC_MAX_ATTRS, "attrs");
		check_attr_names(c, v);
	}
	if ((v = qc_map_get(s, root, "tolerance"))) {
		s->tolerance = v;
		check_tolerance(c, v);
	}
	if ((v = qc_map_get(s, root, "saturation")))
		check_saturation(c, v);
	if ((v = qc_map_get(s, root, "expect"))) {
		const char *e = qc_scalar(v);
		if (!e || (e[0] != '=' && strcmp(e, "ok") && strcmp(e, "error")))
			ERR(c, v, "expect must be 'ok', 'error' or an expression giving one");
		s->expect = v;
	}
	if ((v = qc_map_get(s, root, "cases")) && want(c, v, YAML_SEQUENCE_NODE, "cases")) {
		s->cases = v;
		int i = 0;
		for (yaml_node_item_t *it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top; it++, i++)
			check_case(c, qc_node(s, *it), i);
		check_case_names(c, v);
	}
	check_case_count(c, root);
}
