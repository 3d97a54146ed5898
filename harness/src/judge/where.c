/* Where an op's failures cluster (where.h): the breakdown of its cases, and its findings. */
#include "judge/where.h"

#include <stdio.h>
#include <string.h>

#include "base/json.h"

json_t *qc_where_new(void)
{
	return json_pack("{s:i,s:i,s:{},s:{}}", "cases", 0, "failing", 0, "vars", "along");
}

static void count_add(json_t *o, const char *key, json_int_t n)
{
	json_object_set_new(o, key, json_integer(json_integer_value(json_object_get(o, key)) + n));
}

/* [cases, failing] += [1, failing] */
static void pair_add(json_t *p, int failing)
{
	json_array_set_new(p, 0, json_integer(json_integer_value(json_array_get(p, 0)) + 1));
	json_array_set_new(p, 1, json_integer(json_integer_value(json_array_get(p, 1)) + failing));
}

static void where_var(json_t *op, const char *name, const char *value, int failing)
{
	json_t *vars = json_object_get(op, "vars"), *v = json_object_get(vars, name);
	if (!v) {
		if (json_object_size(vars) >= QC_WHERE_VARS)
			return; /* a variable first met past the cap is left out, always */
		v = json_pack("{s:{},s:[ii]}", "vals", "other", 0, 0);
		if (json_object_set_new(vars, name, v) != 0)
			return;
	}
	json_t *vals = json_object_get(v, "vals"), *p = json_object_get(vals, value);
	if (!p && json_object_size(vals) < QC_WHERE_VALUES) {
		p = json_pack("[ii]", 0, 0);
		if (json_object_set_new(vals, value, p) != 0)
			p = NULL;
	}
	pair_add(p ? p : json_object_get(v, "other"), failing);
}

/* Splits s[0..n) at the separator sep outside brackets and braces; each part to fn. */
static void split_top(const char *s, size_t n, char sep,
                      void (*fn)(const char *part, size_t len, void *ctx), void *ctx)
{
	int depth = 0;
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && (s[i] == '[' || s[i] == '{'))
			depth++;
		else if (i < n && (s[i] == ']' || s[i] == '}') && depth > 0)
			depth--;
		else if (i == n || (s[i] == sep && depth == 0)) {
			fn(s + start, i - start, ctx);
			start = i + 1;
		}
	}
}

typedef struct var_ctx {
	json_t *op;
	int failing;
	const char *name; /* map keys: the variable they belong to */
} var_ctx;

/* "key:value" of a map value of variable ctx->name: the variable NAME.KEY */
static void map_entry(const char *part, size_t len, void *ctx)
{
	var_ctx *v = ctx;
	const char *colon = memchr(part, ':', len);
	if (!colon || colon == part)
		return;
	char name[256], value[512];
	snprintf(name, sizeof name, "%s.%.*s", v->name, (int)(colon - part), part);
	snprintf(value, sizeof value, "%.*s", (int)(len - (size_t)(colon + 1 - part)), colon + 1);
	where_var(v->op, name, value, v->failing);
}

/* "name=value" of a case's params */
static void param(const char *part, size_t len, void *ctx)
{
	var_ctx *v = ctx;
	const char *eq = memchr(part, '=', len);
	if (!eq || eq == part)
		return;
	char name[128], value[512];
	snprintf(name, sizeof name, "%.*s", (int)(eq - part), part);
	size_t vl = len - (size_t)(eq + 1 - part);
	snprintf(value, sizeof value, "%.*s", (int)vl, eq + 1);
	where_var(v->op, name, value, v->failing);
	if (vl >= 2 && eq[1] == '{' && eq[vl] == '}') {
		var_ctx m = {v->op, v->failing, name};
		split_top(eq + 2, vl - 2, ';', map_entry, &m);
	}
}

/* The pieces of params between top-level commas: a piece with '=' starts a variable, one
 * without continues the value before it (a comma of a scalar value). */
typedef struct params_ctx {
	var_ctx v;
	const char *start; /* the variable being read, or NULL */
	size_t len;
} params_ctx;

static void params_piece(const char *part, size_t len, void *ctx)
{
	params_ctx *p = ctx;
	if (p->start && memchr(part, '=', len)) {
		param(p->start, p->len, &p->v);
		p->start = NULL;
	}
	if (!p->start)
		p->start = part;
	p->len = (size_t)(part + len - p->start);
}

/* A case's params, "name=value,...": each variable (and each key of a map value). An explicit
 * case's params are its name, with no '=': no variables. */
static void where_params(json_t *op, const char *params, int failing)
{
	params_ctx p = {{op, failing, NULL}, NULL, 0};
	split_top(params, strlen(params), ',', params_piece, &p);
	if (p.start)
		param(p.start, p.len, &p.v);
}

/* The failing elements of a failing case's outputs along their axes (failing_along). */
static void where_along(json_t *op, json_t *c)
{
	json_t *along = json_object_get(op, "along"), *o;
	size_t k;
	json_array_foreach(json_object_get(c, "outputs"), k, o)
	{
		json_t *fa = json_object_get(o, "failing_along");
		if (!json_is_object(fa))
			continue;
		json_int_t ax = qc_json_int(json_object_get(fa, "axis"));
		const char *an = json_string_value(json_array_get(json_object_get(o, "axes"), ax));
		char axis[32], key[256];
		if (an)
			snprintf(axis, sizeof axis, "%s", an);
		else
			snprintf(axis, sizeof axis, "axis %" JSON_INTEGER_FORMAT, ax);
		snprintf(key, sizeof key, "%s\n%s", qc_json_str(o, "name"), axis);
		json_t *t = json_object_get(along, key);
		if (!t) {
			if (json_object_size(along) >= QC_WHERE_AXES)
				continue;
			json_t *ch = json_object_get(o, "channel_axis");
			t = json_pack("{s:s,s:s,s:b,s:{},s:i}", "output", qc_json_str(o, "name"),
			              "axis", axis, "channel",
			              json_is_integer(ch) && json_integer_value(ch) == ax, "counts",
			              "other", 0);
			if (!t || json_object_set_new(along, key, t) != 0)
				continue;
		}
		json_t *counts = json_object_get(t, "counts"), *n;
		const char *idx;
		json_object_foreach(json_object_get(fa, "counts"), idx, n)
		{
			if (json_object_get(counts, idx) ||
			    json_object_size(counts) < QC_WHERE_INDICES)
				count_add(counts, idx, (json_int_t)qc_json_count(n));
			else
				count_add(t, "other", (json_int_t)qc_json_count(n));
		}
		count_add(t, "other", (json_int_t)qc_json_key_count(fa, "other"));
	}
}

void qc_where_add(json_t *w, json_t *c, int failing)
{
	count_add(w, "cases", 1);
	count_add(w, "failing", failing);
	where_params(w, qc_json_str(c, "params"), failing);
	if (failing)
		where_along(w, c);
}

int qc_where_findings(json_t *w, qc_where_finding *out, int max)
{
	json_int_t failing = json_integer_value(json_object_get(w, "failing")),
	           cases = json_integer_value(json_object_get(w, "cases"));
	int n = 0;
	const char *key;
	json_t *t;
	/* every axis whose failing elements lie at one index */
	json_object_foreach(json_object_get(w, "along"), key, t)
	{
		json_t *counts = json_object_get(t, "counts");
		if (json_object_size(counts) != 1 ||
		    json_integer_value(json_object_get(t, "other")))
			continue;
		if (n == max)
			return n;
		void *it = json_object_iter(counts);
		out[n++] = (qc_where_finding){
		        .kind = QC_WHERE_INDEX,
		        .output = qc_json_str(t, "output"),
		        .axis = qc_json_str(t, "axis"),
		        .channel = json_is_true(json_object_get(t, "channel")),
		        .index = json_object_iter_key(it),
		        .elements = (long long)json_integer_value(json_object_iter_value(it)),
		        .failing = (long long)failing,
		        .cases = (long long)cases};
	}
	/* every sweep variable whose value all failing cases share, when not every case has it */
	json_object_foreach(json_object_get(w, "vars"), key, t)
	{
		json_t *vals = json_object_get(t, "vals"), *p, *shared = NULL;
		const char *vk, *shared_key = NULL;
		int with_failures =
		        json_integer_value(json_array_get(json_object_get(t, "other"), 1)) > 0;
		json_object_foreach(vals, vk, p)
		{
			if (json_integer_value(json_array_get(p, 1)) > 0) {
				with_failures++;
				shared = p;
				shared_key = vk;
			}
		}
		if (with_failures != 1 || !shared ||
		    json_integer_value(json_array_get(shared, 1)) != failing)
			continue;
		json_int_t have = json_integer_value(json_array_get(shared, 0));
		if (have >= cases)
			continue; /* every case has it: it says nothing */
		if (n == max)
			return n;
		out[n++] = (qc_where_finding){.kind = QC_WHERE_VALUE,
		                              .var = key,
		                              .value = shared_key,
		                              .have = (long long)have,
		                              .failing = (long long)failing,
		                              .cases = (long long)cases};
	}
	return n;
}
