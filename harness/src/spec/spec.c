#include "spec/spec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/rfile.h"
#include "base/util.h"
#include "reference/qref.h"
#include "spec/slua.h"

static void diag_emit(qc_diag *d, const char *kind, const char *file, const yaml_node_t *at,
                      const char *fmt, va_list ap)
{
	FILE *out = d && d->out ? d->out : stderr;
	if (at)
		fprintf(out, "%s:%zu:%zu: %s", file, at->start_mark.line + 1,
		        at->start_mark.column + 1, kind);
	else
		fprintf(out, "%s: %s", file, kind);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
}

void qc_diag_error(qc_diag *d, const char *file, const yaml_node_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_emit(d, "", file, at, fmt, ap);
	va_end(ap);
	if (d)
		d->errors++;
}

void qc_diag_warn(qc_diag *d, const char *file, const yaml_node_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_emit(d, "warning: ", file, at, fmt, ap);
	va_end(ap);
	if (d)
		d->warnings++;
}

/* ---- nodes made from Lua values ----
 * Ids below 0 name nodes outside the YAML document, built from the value of an
 * expression. They live in blocks that never move (node pointers stay valid),
 * and everything made after a mark is dropped by qc_vnode_reset. */

#define VNODE_BLOCK 256

struct qc_vnodes {
	yaml_node_t **blocks;
	size_t n_blocks;
	size_t n; /* nodes in use */
	struct vmem {
		struct vmem *next;
		size_t start;     /* the position of data[0] among every byte handed out */
		size_t cap, used; /* bytes */
		max_align_t data[];
	} * mem; /* chunks of strings, item and pair arrays, newest first */
};

#define VMEM_CHUNK ((size_t)64 << 10)
#if defined(__SANITIZE_ADDRESS__)
#define VMEM_OWN(need) 1 /* each allocation its own chunk: AddressSanitizer sees its ends */
#else
#define VMEM_OWN(need) ((need) > VMEM_CHUNK / 4)
#endif

static struct qc_vnodes *vnodes(const qc_spec *s)
{
	qc_spec *m = (qc_spec *)s;
	if (!m->vn && !(m->vn = calloc(1, sizeof *m->vn))) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	return m->vn;
}

yaml_node_t *qc_node(const qc_spec *s, int id)
{
	if (id >= 0)
		return yaml_document_get_node((yaml_document_t *)&s->doc, id);
	size_t i = (size_t)(-(int64_t)id - 1);
	if (!s->vn || i >= s->vn->n)
		return NULL;
	return &s->vn->blocks[i / VNODE_BLOCK][i % VNODE_BLOCK];
}

/* n (its marks set) as a Lua-made scalar of a copy of text; its id. */
static int vnode_scalar(const qc_spec *s, yaml_node_t *n, const char *text,
                        yaml_scalar_style_t style)
{
	size_t len = strlen(text);
	char *copy = qc_vnode_alloc(s, len + 1);
	memcpy(copy, text, len);
	n->type = YAML_SCALAR_NODE;
	n->data.scalar.value = (yaml_char_t *)copy;
	n->data.scalar.length = len;
	n->data.scalar.style = style;
	return qc_vnode_add(s, n);
}

uint64_t qc_seq_len(const qc_spec *s, const yaml_node_t *n)
{
	const qc_yaml_pack *p = qc_yaml_pack_of(&s->doc, &s->packs, n);
	if (p)
		return p->n;
	return n && n->type == YAML_SEQUENCE_NODE
	               ? (uint64_t)(n->data.sequence.items.top - n->data.sequence.items.start)
	               : 0;
}

yaml_node_t *qc_seq_item(const qc_spec *s, const yaml_node_t *n, uint64_t i)
{
	const qc_yaml_pack *p = qc_yaml_pack_of(&s->doc, &s->packs, n);
	if (!p)
		return qc_node(s, n->data.sequence.items.start[i]);
	char buf[64];
	yaml_node_t e;
	memset(&e, 0, sizeof e);
	qc_yaml_pack_item(s->text, &s->packs, p, (uint32_t)i, buf, sizeof buf, NULL, &e.start_mark,
	                  &e.end_mark);
	return qc_node(s, vnode_scalar(s, &e, buf, YAML_PLAIN_SCALAR_STYLE));
}

/* Zeroed memory that lives until a reset to a mark taken before it: bumped from chunks (a
 * case's Lua-made data is thousands of small strings). */
void *qc_vnode_alloc(const qc_spec *s, size_t n)
{
	struct qc_vnodes *v = vnodes(s);
	size_t need = (n ? n + sizeof(max_align_t) - 1 : sizeof(max_align_t)) /
	              sizeof(max_align_t) * sizeof(max_align_t);
	struct vmem *m = v->mem;
	if (!m || m->cap - m->used < need) {
		size_t cap = VMEM_OWN(need) ? need : VMEM_CHUNK;
		struct vmem *c = malloc(sizeof *c + cap);
		if (!c) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
		c->next = m;
		c->start = m ? m->start + m->used : 0;
		c->cap = cap;
		c->used = 0;
		v->mem = m = c;
	}
	void *p = (unsigned char *)m->data + m->used;
	m->used += need;
	memset(p, 0, need);
	return p;
}

int qc_vnode_add(const qc_spec *s, const yaml_node_t *node)
{
	struct qc_vnodes *v = vnodes(s);
	if (v->n == v->n_blocks * VNODE_BLOCK) {
		yaml_node_t **nb = realloc(v->blocks, (v->n_blocks + 1) * sizeof *nb);
		yaml_node_t *blk = nb ? calloc(VNODE_BLOCK, sizeof *blk) : NULL;
		if (!blk) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
		v->blocks = nb;
		v->blocks[v->n_blocks++] = blk;
	}
	size_t i = v->n++;
	v->blocks[i / VNODE_BLOCK][i % VNODE_BLOCK] = *node;
	return -(int)i - 1;
}

qc_vnode_mark qc_vnode_get_mark(const qc_spec *s)
{
	qc_vnode_mark m = {0, 0};
	if (s->vn) {
		m.nodes = s->vn->n;
		m.mem = s->vn->mem ? s->vn->mem->start + s->vn->mem->used : 0;
	}
	return m;
}

void qc_vnode_reset(const qc_spec *s, qc_vnode_mark mark)
{
	struct qc_vnodes *v = s->vn;
	if (!v)
		return;
	while (v->mem && v->mem->start >= mark.mem) { /* made after the mark */
		struct vmem *m = v->mem;
		v->mem = m->next;
		free(m);
	}
	if (v->mem && mark.mem - v->mem->start < v->mem->used)
		v->mem->used = mark.mem - v->mem->start;
	v->n = mark.nodes;
}

/* YAML (or Lua-made) node -> Lua value. Plain scalars are typed as YAML types them. */
void qc_lval_of_node(const qc_spec *s, const yaml_node_t *n, qc_lval *v)
{
	memset(v, 0, sizeof *v);
	const char *t = qc_scalar(n);
	int64_t i;
	double d;
	int b;
	if (t) {
		if (qc_scalar_is_quoted(n)) {
			v->kind = QC_LV_STR, v->str = t;
		} else if (!*t || !strcmp(t, "~") || !strcmp(t, "null")) {
			v->kind = QC_LV_NIL;
		} else if (qc_parse_int(t, &i)) {
			v->kind = QC_LV_INT, v->i = i;
		} else if (qc_parse_float(t, &d)) {
			v->kind = QC_LV_NUM, v->num = d;
		} else if (qc_parse_bool(t, &b)) {
			v->kind = QC_LV_BOOL, v->b = b;
		} else {
			v->kind = QC_LV_STR, v->str = t;
		}
	} else if (n->type == YAML_SEQUENCE_NODE) {
		const qc_yaml_pack *p = qc_yaml_pack_of(&s->doc, &s->packs, n);
		size_t len = (size_t)qc_seq_len(s, n);
		qc_lval *items = qc_vnode_alloc(s, (len ? len : 1) * sizeof *items);
		for (size_t k = 0; k < len; k++) {
			if (!p) {
				qc_lval_of_node(s, qc_node(s, n->data.sequence.items.start[k]),
				                &items[k]);
				continue;
			}
			/* a packed number, typed as its plain scalar would be */
			char buf[64];
			qc_yaml_pack_item(s->text, &s->packs, p, (uint32_t)k, buf, sizeof buf, NULL,
			                  NULL, NULL);
			if (qc_parse_int(buf, &i)) {
				items[k].kind = QC_LV_INT, items[k].i = i;
			} else if (qc_parse_float(buf, &d)) {
				items[k].kind = QC_LV_NUM, items[k].num = d;
			} else {
				size_t bl = strlen(buf);
				char *copy = qc_vnode_alloc(s, bl + 1);
				memcpy(copy, buf, bl);
				items[k].kind = QC_LV_STR, items[k].str = copy;
			}
		}
		v->kind = QC_LV_LIST, v->n = len, v->items = items;
	} else if (n->type == YAML_MAPPING_NODE) {
		size_t len = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
		qc_lval *items = qc_vnode_alloc(s, (len ? len : 1) * sizeof *items);
		const char **keys = qc_vnode_alloc(s, (len ? len : 1) * sizeof *keys);
		for (size_t k = 0; k < len; k++) {
			keys[k] = qc_scalar(qc_node(s, n->data.mapping.pairs.start[k].key));
			qc_lval_of_node(s, qc_node(s, n->data.mapping.pairs.start[k].value),
			                &items[k]);
		}
		v->kind = QC_LV_MAP, v->n = len, v->items = items, v->keys = keys;
	}
}

/* The decimal text of i, as "%lld" prints it, ending just before end. */
static const char *int_text(int64_t i, char *end)
{
	uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
	char *p = end;
	*--p = 0;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (i < 0)
		*--p = '-';
	return p;
}

/* Lua value -> a node (marked where the expression is written); returns its id. */
int qc_node_of_lval(const qc_spec *s, const qc_lval *v, const yaml_node_t *at)
{
	yaml_node_t n;
	memset(&n, 0, sizeof n);
	n.start_mark = n.end_mark = at->start_mark;
	char buf[64];
	const char *text = NULL;
	switch (v->kind) {
	case QC_LV_NIL: text = "null"; break;
	case QC_LV_BOOL: text = v->b ? "true" : "false"; break;
	case QC_LV_INT: text = int_text(v->i, buf + sizeof buf); break;
	case QC_LV_NUM:
		if (isnan(v->num))
			text = ".nan";
		else if (isinf(v->num))
			text = v->num > 0 ? ".inf" : "-.inf";
		else
			snprintf(buf, sizeof buf, "%.17g", v->num), text = buf;
		break;
	case QC_LV_STR: text = v->str; break;
	case QC_LV_LIST:
	case QC_LV_MAP: break;
	}
	if (text)
		return vnode_scalar(s, &n, text,
		                    v->kind == QC_LV_STR ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
		                                         : YAML_PLAIN_SCALAR_STYLE);
	if (v->kind == QC_LV_LIST) {
		yaml_node_item_t *items = qc_vnode_alloc(s, (v->n ? v->n : 1) * sizeof *items);
		for (size_t k = 0; k < v->n; k++)
			items[k] = qc_node_of_lval(s, &v->items[k], at);
		n.type = YAML_SEQUENCE_NODE;
		n.data.sequence.items.start = items;
		n.data.sequence.items.top = n.data.sequence.items.end = items + v->n;
		return qc_vnode_add(s, &n);
	}
	yaml_node_pair_t *pairs = qc_vnode_alloc(s, (v->n ? v->n : 1) * sizeof *pairs);
	for (size_t k = 0; k < v->n; k++) {
		qc_lval key = {.kind = QC_LV_STR, .str = v->keys[k]};
		pairs[k].key = qc_node_of_lval(s, &key, at);
		pairs[k].value = qc_node_of_lval(s, &v->items[k], at);
	}
	n.type = YAML_MAPPING_NODE;
	n.data.mapping.pairs.start = pairs;
	n.data.mapping.pairs.top = n.data.mapping.pairs.end = pairs + v->n;
	return qc_vnode_add(s, &n);
}

static void vnodes_free(struct qc_vnodes *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n_blocks; i++)
		free(v->blocks[i]);
	free(v->blocks);
	while (v->mem) {
		struct vmem *m = v->mem;
		v->mem = m->next;
		free(m);
	}
	free(v);
}

const char *qc_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int qc_scalar_is_quoted(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE &&
	       (n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
	        n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

yaml_node_t *qc_map_get(const qc_spec *s, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = qc_scalar(qc_node(s, p->key));
		if (k && strcmp(k, key) == 0)
			return qc_node(s, p->value);
	}
	return NULL;
}

int qc_parse_int(const char *s, int64_t *out)
{
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno)
		return 0;
	*out = v;
	return 1;
}

int qc_parse_float(const char *s, double *out)
{
	if (!s || !*s)
		return 0;
	/* [+-] and up to 15 digits: exact as a double, as strtod gives it */
	const char *q = s + (*s == '-' || *s == '+');
	uint64_t u = 0;
	size_t k = 0;
	for (; q[k] >= '0' && q[k] <= '9' && k < 16; k++)
		u = u * 10 + (uint64_t)(q[k] - '0');
	if (k && k < 16 && !q[k]) {
		*out = *s == '-' ? -(double)u : (double)u;
		return 1;
	}
	const char *p = s;
	int neg = 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (strcmp(p, ".inf") == 0 || strcmp(p, ".Inf") == 0 || strcmp(p, ".INF") == 0) {
		*out = neg ? -INFINITY : INFINITY;
		return 1;
	}
	if (p == s &&
	    (strcmp(p, ".nan") == 0 || strcmp(p, ".NaN") == 0 || strcmp(p, ".NAN") == 0)) {
		*out = NAN;
		return 1;
	}
	/* strtod would also take "inf", "nan" and "infinity": YAML spells them .inf / .nan */
	if (strchr(s, 'n') || strchr(s, 'N') || strchr(s, 'i') || strchr(s, 'I'))
		return 0;
	char *end;
	double v = strtod(s, &end);
	if (*end)
		return 0;
	*out = v;
	return 1;
}

int qc_parse_bool(const char *s, int *out)
{
	if (!s)
		return 0;
	if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0) {
		*out = 1;
		return 1;
	}
	if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0) {
		*out = 0;
		return 1;
	}
	return 0;
}

static void *sweep_alloc(void *ctx, size_t n)
{
	return qc_vnode_alloc((const qc_spec *)ctx, n);
}

/* ---- structure checks ---- */

typedef struct checker {
	qc_spec *s;
	qc_diag *d;
	const qc_spec *src; /* qc_spec_copy: the spec the text was loaded as, or NULL */
} checker;

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
        "qconform",  "op",     "semantics", "profile", "description", "source",
        "seed",      "repeat", "sweep",     "inputs",  "outputs",     "attrs",
        "tolerance", "cases",  "expect",    "notes",   "saturation",  NULL};

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
	if ((v = qc_map_get(c->s, cn, "attrs")) && want(c, v, YAML_MAPPING_NODE, "attrs")) {
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
	qc_spec *s = c->s;
	const qref_op_schema *o = qref_op_schema_find(s->semantics, s->op);
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
			    s->semantics, s->op);
		else if (close_to(k, best, bd))
			ERR(c, kn, "unknown attribute '%s' of %s/%s; did you mean '%s'?", k,
			    s->semantics, s->op, best);
		else
			ERR(c, kn, "unknown attribute '%s' of %s/%s (its attributes: %s)", k,
			    s->semantics, s->op, all);
	}
}

static void check_spec(checker *c)
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
		s->n_outputs = collect_named(c, v, s->outputs, QC_MAX_TENSORS, "outputs");
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
	check_op(c, qc_map_get(s, root, "op"));
	if ((v = qc_map_get(s, root, "attrs"))) {
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

/* ---- reading a file, and its YAML within the limits (qc_limits.h) ---- */

char *qc_read_file(const char *path, const char *what, size_t *len, qc_diag *diag)
{
	char kind[64], err[1200];
	snprintf(kind, sizeof kind, "%s file", what);
	char *buf = qc_read_regular(path, QC_SPEC_MAX_BYTES, kind, len, err, sizeof err);
	if (!buf) { /* "PATH: reason": the diagnostic names the path itself */
		size_t pl = strlen(path);
		int named = !strncmp(err, path, pl) && !strncmp(err + pl, ": ", 2);
		qc_diag_error(diag, path, NULL, "%s", named ? err + pl + 2 : err);
	}
	return buf;
}

static void yaml_error(qc_diag *d, const char *path, const yaml_parser_t *p)
{
	FILE *out = d && d->out ? d->out : stderr;
	fprintf(out, "%s:%zu:%zu: YAML error: %s%s%s\n", path, p->problem_mark.line + 1,
	        p->problem_mark.column + 1, p->problem ? p->problem : "unknown",
	        p->context ? " " : "", p->context ? p->context : "");
	if (d)
		d->errors++;
}

static void mark_error(qc_diag *d, const char *path, yaml_mark_t m, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void mark_error(qc_diag *d, const char *path, yaml_mark_t m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	yaml_node_t at;
	memset(&at, 0, sizeof at);
	at.start_mark = m;
	qc_diag_error(d, path, &at, "%s", msg);
}

/* Anchors of the document being read: name -> its node and the size of that node, expanded. */
typedef struct anchor {
	char *name;
	uint64_t size;
	int open;         /* its node has not ended yet: an alias to it would be a cycle */
	int next;         /* chain of the hash bucket */
	int node;         /* its node in the document built, or 0 */
	yaml_mark_t mark; /* where it is defined */
} anchor;

#define ANCHOR_BUCKETS 4096

typedef struct scan {
	anchor *a;
	size_t n, cap;
	int bucket[ANCHOR_BUCKETS];
	struct frame {
		uint64_t size;
		long anchor; /* index in a, or -1 */
		int node;    /* the collection in the document built, or 0 */
		int key;     /* a mapping's key waiting for its value, or 0 */
	} stack[QC_YAML_MAX_DEPTH + 1];
	int depth;
	uint64_t nodes, alias_nodes, root;
	yaml_document_t *doc; /* the document being built, or NULL */
} scan;

static unsigned anchor_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % ANCHOR_BUCKETS;
}

static void scan_reset(scan *sc)
{
	for (size_t i = 0; i < sc->n; i++)
		free(sc->a[i].name);
	sc->n = 0;
	for (int i = 0; i < ANCHOR_BUCKETS; i++)
		sc->bucket[i] = -1;
	sc->depth = 0;
	sc->root = 0;
}

static void *yaml_grow(void *p, size_t *cap, size_t size)
{
	size_t n = *cap ? 2 * *cap : 16;
	void *q = realloc(p, n * size);
	if (!q) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	*cap = n;
	return q;
}

/* Room for one more element on a libyaml stack (its start, top and end pointers). */
#define STACK_ROOM(st)                                                                             \
	do {                                                                                       \
		if ((st).top == (st).end) {                                                        \
			size_t used_ = (size_t)((st).top - (st).start);                            \
			size_t cap_ = (size_t)((st).end - (st).start);                             \
			(st).start = yaml_grow((st).start, &cap_, sizeof *(st).start);             \
			(st).top = (st).start + used_;                                             \
			(st).end = (st).start + cap_;                                              \
		}                                                                                  \
	} while (0)

/* The latest definition of name, or NULL. */
static anchor *anchor_find(scan *sc, const char *name)
{
	for (int i = sc->bucket[anchor_hash(name)]; i >= 0; i = sc->a[i].next)
		if (strcmp(sc->a[i].name, name) == 0)
			return &sc->a[i];
	return NULL;
}

static long anchor_add(scan *sc, const char *name, int node, yaml_mark_t mark)
{
	if (!name)
		return -1;
	if (sc->n == sc->cap)
		sc->a = yaml_grow(sc->a, &sc->cap, sizeof *sc->a);
	unsigned b = anchor_hash(name);
	anchor *x = &sc->a[sc->n];
	x->name = strdup(name);
	if (!x->name) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	x->size = 1;
	x->open = 1;
	x->node = node;
	x->mark = mark;
	x->next = sc->bucket[b]; /* newest first: a redefinition hides the older one */
	sc->bucket[b] = (int)sc->n;
	return (long)sc->n++;
}

/* Sizes saturate just past the alias limit: any alias of such a node is refused anyway. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t cap = (uint64_t)QC_YAML_MAX_ALIAS_NODES + 1;
	return a >= cap || b >= cap || a + b >= cap ? cap : a + b;
}

static void scan_add(scan *sc, uint64_t size)
{
	if (sc->depth)
		sc->stack[sc->depth - 1].size = sat_add(sc->stack[sc->depth - 1].size, size);
	else
		sc->root = sat_add(sc->root, size);
}

/* libyaml's default tags, shared by the nodes that have them */
static char default_tags[3][32] = {YAML_DEFAULT_SCALAR_TAG, YAML_DEFAULT_SEQUENCE_TAG,
                                   YAML_DEFAULT_MAPPING_TAG};
/* The tag of a packed list: libyaml's sequence tag, at an address of its own. */
static char packed_tag[32] = YAML_DEFAULT_SEQUENCE_TAG;

void qc_yaml_free(yaml_document_t *doc)
{
	for (yaml_node_t *n = doc->nodes.start; n && n < doc->nodes.top; n++)
		if (n->tag == (yaml_char_t *)default_tags[0] ||
		    n->tag == (yaml_char_t *)default_tags[1] ||
		    n->tag == (yaml_char_t *)default_tags[2] || n->tag == (yaml_char_t *)packed_tag)
			n->tag = NULL;
	yaml_document_delete(doc);
}

void qc_yaml_packs_free(qc_yaml_packs *ps)
{
	free(ps->v);
	free(ps->offs);
	memset(ps, 0, sizeof *ps);
}

/* Appends n to the document built; its index (1-based). */
static int doc_push(yaml_document_t *doc, const yaml_node_t *n)
{
	STACK_ROOM(doc->nodes);
	*doc->nodes.top++ = *n;
	return (int)(doc->nodes.top - doc->nodes.start);
}

/* Appends a node to the document built (libyaml's default tag when the event has none, or
 * "!"; tag and scalar value are taken from the event); its index (1-based). */
static int doc_add(yaml_document_t *doc, yaml_event_t *ev)
{
	yaml_node_t n;
	memset(&n, 0, sizeof n);
	yaml_char_t **tag = NULL;
	char *deflt = NULL;
	if (ev->type == YAML_SCALAR_EVENT) {
		n.type = YAML_SCALAR_NODE;
		n.data.scalar.value = ev->data.scalar.value;
		n.data.scalar.length = ev->data.scalar.length;
		n.data.scalar.style = ev->data.scalar.style;
		ev->data.scalar.value = NULL;
		tag = &ev->data.scalar.tag;
		deflt = default_tags[0];
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		n.type = YAML_SEQUENCE_NODE;
		n.data.sequence.style = ev->data.sequence_start.style;
		tag = &ev->data.sequence_start.tag;
		deflt = default_tags[1];
	} else {
		n.type = YAML_MAPPING_NODE;
		n.data.mapping.style = ev->data.mapping_start.style;
		tag = &ev->data.mapping_start.tag;
		deflt = default_tags[2];
	}
	if (!*tag || strcmp((const char *)*tag, "!") == 0) {
		n.tag = (yaml_char_t *)deflt; /* shared: qc_yaml_free does not free it */
	} else {
		n.tag = *tag;
		*tag = NULL;
	}
	n.start_mark = ev->start_mark;
	n.end_mark = ev->end_mark;
	return doc_push(doc, &n);
}

/* Puts node `index` where the document built expects it: the root, a sequence's next item,
 * a mapping's key or the value of the key before it. */
static void doc_attach(scan *sc, int index)
{
	if (!sc->depth)
		return; /* the root: nodes.start[0] */
	struct frame *f = &sc->stack[sc->depth - 1];
	yaml_node_t *c = &sc->doc->nodes.start[f->node - 1];
	if (c->type == YAML_SEQUENCE_NODE) {
		STACK_ROOM(c->data.sequence.items);
		*c->data.sequence.items.top++ = index;
	} else if (!f->key) {
		f->key = index;
	} else {
		STACK_ROOM(c->data.mapping.pairs);
		yaml_node_pair_t pr = {f->key, index};
		*c->data.mapping.pairs.top++ = pr;
		f->key = 0;
	}
}

/* ---- number lists kept as text ----
 * A flow list of plain decimal numbers ([12, -3, 0.5e-2, ...]) costs libyaml a token, an event
 * and a node of about 130 bytes an item, and the data of imported specs is mostly such lists.
 * Where a spec reads a list only as numbers (a tensor's data, a case's golden values: data_path
 * below), the reader keeps it as its text: libyaml reads a copy of the file in which the insides
 * of every such list are blank, and the list's node is "packed", its items read from the text
 * when a case needs them (qc_yaml_pack_item). Elsewhere the reader makes the items as libyaml
 * would have. Should the blank copy not give, at every list, the sequence start and end the list
 * gives (a list inside a string, a comment, after an anchor), or should it fail at all, the file
 * is read again as it is: a list is packed only where reading it with libyaml would give the same
 * items, and errors are always libyaml's own. */

#define PACK_MIN_ITEMS 8  /* shorter lists are not worth it */
#define PACK_TOKEN_MAX 40 /* bytes of one number */

typedef struct pack_list {
	size_t at, close;  /* byte offsets of its '[' and ']' */
	size_t c_at;       /* libyaml's mark index (characters) of its '[' */
	uint32_t n, first; /* items; the first's offset in packer.offs */
} pack_list;

typedef struct packer {
	const unsigned char *text; /* as it is (the items' text) */
	pack_list *l;
	size_t n, cap;
	uint32_t *offs; /* per item: byte offset from its list's '[' */
	size_t n_offs, cap_offs;
	size_t next; /* the first list not yet met */
	long open;   /* the list whose start was the last event, or -1 */
	qc_yaml_packs *out;
	size_t cap_out;
} packer;

/* The end of the run of digits at q. */
static const unsigned char *digits(const unsigned char *q, const unsigned char *end)
{
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	return q;
}

/* Length of the plain decimal number at p: [-+]?[0-9]+(.[0-9]*)?([eE][-+]?[0-9]+)?, followed
 * by a blank, ',' or ']'; 0 if there is none. */
static size_t number_len(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *q = p + (p < end && (*p == '-' || *p == '+'));
	const unsigned char *d = q;
	if ((q = digits(q, end)) == d)
		return 0;
	if (q < end && *q == '.')
		q = digits(q + 1, end);
	if (q < end && (*q == 'e' || *q == 'E')) {
		const unsigned char *e = q + 1;
		e += e < end && (*e == '-' || *e == '+');
		if ((q = digits(e, end)) == e)
			return 0;
	}
	if (q == end || (*q != ' ' && *q != '\n' && *q != '\r' && *q != ',' && *q != ']'))
		return 0;
	return (size_t)(q - p) <= PACK_TOKEN_MAX ? (size_t)(q - p) : 0;
}

static size_t skip_blanks(const unsigned char *t, size_t i, size_t len)
{
	while (i < len && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* Is there a list of numbers at t[at] == '['? Then it is recorded and its ']' returned;
 * otherwise 0. */
static size_t pack_try(packer *pk, size_t len, size_t at, size_t c_at)
{
	const unsigned char *t = pk->text;
	size_t i = at + 1, first = pk->n_offs;
	uint32_t n = 0;
	for (;;) {
		i = skip_blanks(t, i, len);
		size_t k = number_len(t + i, t + len);
		if (!k || i - at > UINT32_MAX)
			break;
		if (pk->n_offs == pk->cap_offs)
			pk->offs = yaml_grow(pk->offs, &pk->cap_offs, sizeof *pk->offs);
		pk->offs[pk->n_offs++] = (uint32_t)(i - at);
		n++;
		i = skip_blanks(t, i + k, len);
		if (i < len && t[i] == ',') {
			i++;
			continue;
		}
		if (i < len && t[i] == ']' && n >= PACK_MIN_ITEMS) {
			if (pk->n == pk->cap)
				pk->l = yaml_grow(pk->l, &pk->cap, sizeof *pk->l);
			pack_list L = {at, i, c_at, n, (uint32_t)first};
			pk->l[pk->n++] = L;
			return i;
		}
		break;
	}
	pk->n_offs = first;
	return 0;
}

/* Finds the lists of numbers of a UTF-8 text. libyaml's mark index counts characters, after a
 * byte order mark; the lists themselves are ASCII. On a line once a comment begins, none. */
static void pack_find(packer *pk, size_t len)
{
	const unsigned char *t = pk->text;
	if (len >= 2 && ((t[0] == 0xFE && t[1] == 0xFF) || (t[0] == 0xFF && t[1] == 0xFE)))
		return; /* UTF-16: read as it is */
	size_t i = len >= 3 && t[0] == 0xEF && t[1] == 0xBB && t[2] == 0xBF ? 3 : 0;
	size_t chars = 0;
	int comment = 0;
	for (size_t start = i; i < len; i++) {
		unsigned char ch = t[i];
		if (ch == '\n' || ch == '\r') {
			comment = 0;
		} else if (ch == '#' && (i == start || t[i - 1] == ' ' || t[i - 1] == '\t' ||
		                         t[i - 1] == '\n' || t[i - 1] == '\r')) {
			comment = 1;
		} else if (ch == '[' && !comment) {
			size_t close = pack_try(pk, len, i, chars);
			if (close) {
				chars += close - i; /* ASCII: a byte a character */
				i = close;
			}
		}
		chars += (t[i] & 0xC0) != 0x80;
	}
}

/* The text libyaml reads: the insides of the lists blank (line breaks kept). */
static unsigned char *pack_blank(const packer *pk, size_t len)
{
	unsigned char *b = malloc(len ? len : 1);
	if (!b) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	memcpy(b, pk->text, len);
	for (size_t k = 0; k < pk->n; k++)
		for (size_t i = pk->l[k].at + 1; i < pk->l[k].close; i++)
			if (b[i] != '\n' && b[i] != '\r')
				b[i] = ' ';
	return b;
}

/* Moves mark m at byte pos forward to byte to, as libyaml's reader counts (a CR LF is one line
 * break of two characters); the bytes are ASCII. */
static void mark_walk(const unsigned char *t, size_t *pos, size_t to, yaml_mark_t *m)
{
	for (size_t i = *pos; i < to;) {
		if (t[i] == '\r' && i + 1 < to && t[i + 1] == '\n') {
			m->index += 2, m->line++, m->column = 0, i += 2;
		} else if (t[i] == '\r' || t[i] == '\n') {
			m->index++, m->line++, m->column = 0, i++;
		} else {
			m->index++, m->column++, i++;
		}
	}
	*pos = to;
}

static int by_node(const void *a, const void *b)
{
	int x = ((const qc_yaml_pack *)a)->node, y = ((const qc_yaml_pack *)b)->node;
	return (x > y) - (x < y);
}

const qc_yaml_pack *qc_yaml_pack_of(const yaml_document_t *doc, const qc_yaml_packs *ps,
                                    const yaml_node_t *n)
{
	if (!n || n->tag != (yaml_char_t *)packed_tag || !ps || !ps->n)
		return NULL;
	qc_yaml_pack key;
	key.node = (int)(n - doc->nodes.start) + 1;
	return bsearch(&key, ps->v, ps->n, sizeof *ps->v, by_node);
}

const char *qc_yaml_pack_item(const char *text, const qc_yaml_packs *ps, const qc_yaml_pack *p,
                              uint32_t i, char *buf, size_t size, qc_pack_cursor *cur,
                              yaml_mark_t *start, yaml_mark_t *end)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t at = p->at + ps->offs[p->first + i];
	size_t k = number_len(t + at, t + at + PACK_TOKEN_MAX + 1);
	if (size) {
		size_t m = k < size ? k : 0;
		memcpy(buf, text + at, m);
		buf[m] = 0;
	}
	if (start || end) {
		qc_pack_cursor c = {p->mark, p->at + 1};
		if (cur && cur->pos >= p->at + 1 && cur->pos <= at)
			c = *cur;
		mark_walk(t, &c.pos, at, &c.mark);
		if (start)
			*start = c.mark;
		mark_walk(t, &c.pos, at + k, &c.mark);
		if (end)
			*end = c.mark;
		if (cur)
			*cur = c;
	}
	return buf;
}

/* Is the list just started and attached (not yet on the stack) where a spec reads numbers
 * only: inputs.<name>.data, cases[i].inputs.<name>.data, cases[i].inputs.<name> (a case's
 * short form of data) or cases[i].golden.<name>? Each mapping around it holds it under the key
 * of its last pair. */
static int data_path(const scan *sc)
{
	const char *key[6] = {0};
	if (sc->depth < 2 || sc->depth > 5)
		return 0;
	for (int d = 0; d < sc->depth; d++) {
		const struct frame *f = &sc->stack[d];
		const yaml_node_t *c = &sc->doc->nodes.start[f->node - 1];
		if (c->type == YAML_SEQUENCE_NODE) {
			key[d] = "#";
			continue;
		}
		int k = c->data.mapping.pairs.top > c->data.mapping.pairs.start
		                ? c->data.mapping.pairs.top[-1].key
		                : 0;
		const yaml_node_t *kn = k > 0 ? &sc->doc->nodes.start[k - 1] : NULL;
		if (!kn || kn->type != YAML_SCALAR_NODE)
			return 0;
		key[d] = (const char *)kn->data.scalar.value;
	}
#define K(d, s) (strcmp(key[d], s) == 0)
	if (sc->depth == 3)
		return K(0, "inputs") && !K(1, "#") && K(2, "data");
	if (sc->depth == 4)
		return K(0, "cases") && K(1, "#") && (K(2, "inputs") || K(2, "golden")) &&
		       !K(3, "#");
	if (sc->depth == 5)
		return K(0, "cases") && K(1, "#") && K(2, "inputs") && !K(3, "#") && K(4, "data");
#undef K
	return 0;
}

/* The items of list L, just started (on the stack, `after` the mark past its '['), as libyaml
 * makes them: plain scalars with the default tag, attached to the list. */
static void pack_make_items(scan *sc, const packer *pk, const pack_list *L, yaml_mark_t after)
{
	qc_pack_cursor c = {after, L->at + 1};
	for (uint32_t i = 0; i < L->n; i++) {
		size_t at = L->at + pk->offs[L->first + i];
		size_t k = number_len(pk->text + at, pk->text + L->close + 1);
		yaml_node_t n;
		memset(&n, 0, sizeof n);
		n.type = YAML_SCALAR_NODE;
		n.tag = (yaml_char_t *)default_tags[0];
		n.data.scalar.value = malloc(k + 1);
		if (!n.data.scalar.value) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
		memcpy(n.data.scalar.value, pk->text + at, k);
		n.data.scalar.value[k] = 0;
		n.data.scalar.length = k;
		n.data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
		mark_walk(pk->text, &c.pos, at, &c.mark);
		n.start_mark = c.mark;
		mark_walk(pk->text, &c.pos, at + k, &c.mark);
		n.end_mark = c.mark;
		doc_attach(sc, doc_push(sc->doc, &n));
	}
}

/* Records list L, started as node `node`, as packed. */
static void pack_keep(packer *pk, const pack_list *L, int node, yaml_mark_t after)
{
	qc_yaml_packs *o = pk->out;
	if (o->n == pk->cap_out)
		o->v = yaml_grow(o->v, &pk->cap_out, sizeof *o->v);
	qc_yaml_pack p = {node, L->n, L->first, L->at, after};
	o->v[o->n++] = p;
}

/* One reading of text (qc_yaml_parse below); with pk, the lists of pk are blank in text. */
static int read_pass(const char *path, const unsigned char *text, size_t len, int one_document,
                     yaml_document_t *doc, qc_diag *diag, packer *pk)
{
	/* a trial with lists blank (pk) says nothing: any error, even one that would let the
	 * reading go on, ends it, and the file is read again as it is */
#define READ_ERROR(...)                                                                            \
	do {                                                                                       \
		if (pk)                                                                            \
			ok = 0;                                                                    \
		else                                                                               \
			mark_error(diag, path, __VA_ARGS__);                                       \
	} while (0)
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, text, len);
	scan *sc = calloc(1, sizeof *sc);
	if (!sc) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	scan_reset(sc);
	memset(doc, 0, sizeof *doc);
	size_t cap = 0;
	doc->nodes.start = doc->nodes.top = yaml_grow(NULL, &cap, sizeof(yaml_node_t));
	doc->nodes.end = doc->nodes.start + cap;
	int ok = 1, done = 0, documents = 0, refused_extra = 0;
	while (ok && !done) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			if (!pk)
				yaml_error(diag, path, &p);
			ok = 0;
			break;
		}
		yaml_mark_t m = ev.start_mark;
		const char *anchor_name = NULL;
		const pack_list *list = NULL; /* a list of numbers starts here */
		int packed = 0;               /* and is kept as text */
		if (pk && pk->open >= 0) {
			const pack_list *L = &pk->l[pk->open];
			pk->open = -1;
			if (ev.type != YAML_SEQUENCE_END_EVENT ||
			    ev.start_mark.index != L->c_at + (L->close - L->at)) {
				ok = 0;
				goto next;
			}
		} else if (pk && pk->next < pk->n) {
			const pack_list *L = &pk->l[pk->next];
			if (ev.type == YAML_SEQUENCE_START_EVENT &&
			    ev.end_mark.index == L->c_at + 1) {
				list = L;
				pk->next++;
			} else if (ev.start_mark.index >= L->c_at) {
				ok = 0; /* passed it: the list is in a string or a comment */
				goto next;
			}
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT: done = 1; break;
		case YAML_DOCUMENT_START_EVENT:
			if (++documents == 1) {
				sc->doc = doc;
				doc->version_directive = ev.data.document_start.version_directive;
				doc->tag_directives.start =
				        ev.data.document_start.tag_directives.start;
				doc->tag_directives.end = ev.data.document_start.tag_directives.end;
				doc->start_implicit = ev.data.document_start.implicit;
				doc->start_mark = ev.start_mark;
				ev.data.document_start.version_directive = NULL;
				ev.data.document_start.tag_directives.start = NULL;
				ev.data.document_start.tag_directives.end = NULL;
			}
			break;
		case YAML_DOCUMENT_END_EVENT:
			if (sc->doc) {
				doc->end_implicit = ev.data.document_end.implicit;
				doc->end_mark = ev.end_mark;
				sc->doc = NULL;
			}
			scan_reset(sc); /* anchors are per document */
			break;
		case YAML_SCALAR_EVENT:
		case YAML_ALIAS_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++sc->nodes > QC_YAML_MAX_NODES) {
				READ_ERROR(m, "more than %d YAML nodes in one file",
				           QC_YAML_MAX_NODES);
				ok = 0;
			} else if (one_document && documents > 1 && !sc->depth && !refused_extra) {
				READ_ERROR(m, "a spec file holds one YAML document");
				refused_extra = 1;
			}
			break;
		default: break;
		}
		if (!ok)
			goto next;
		int node = 0;
		if (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT) {
			anchor_name = ev.type == YAML_SCALAR_EVENT
			                      ? (const char *)ev.data.scalar.anchor
			              : ev.type == YAML_SEQUENCE_START_EVENT
			                      ? (const char *)ev.data.sequence_start.anchor
			                      : (const char *)ev.data.mapping_start.anchor;
			if (ev.type != YAML_SCALAR_EVENT && sc->depth == QC_YAML_MAX_DEPTH) {
				READ_ERROR(m, "nesting deeper than %d levels", QC_YAML_MAX_DEPTH);
				ok = 0;
				goto next;
			}
			if (sc->doc && anchor_name) {
				const anchor *first = anchor_find(sc, anchor_name);
				if (first) {
					READ_ERROR(
					        m,
					        "YAML error: anchor &%s is defined twice (first at "
					        "line %zu, column %zu)",
					        anchor_name, first->mark.line + 1,
					        first->mark.column + 1);
					ok = 0;
					goto next;
				}
			}
			if (sc->doc) {
				int tagged = list && ev.data.sequence_start.tag;
				node = doc_add(sc->doc, &ev);
				doc_attach(sc, node);
				packed = list && !anchor_name && !tagged && data_path(sc);
				if (packed) {
					sc->doc->nodes.start[node - 1].tag =
					        (yaml_char_t *)packed_tag;
					pack_keep(pk, list, node, ev.end_mark);
				}
			}
		}
		if (ev.type == YAML_SCALAR_EVENT) {
			long a = anchor_add(sc, anchor_name, node, m);
			if (a >= 0)
				sc->a[a].open = 0;
			scan_add(sc, 1);
		} else if (ev.type == YAML_SEQUENCE_START_EVENT ||
		           ev.type == YAML_MAPPING_START_EVENT) {
			sc->stack[sc->depth].size = 1;
			sc->stack[sc->depth].anchor = anchor_add(sc, anchor_name, node, m);
			sc->stack[sc->depth].node = node;
			sc->stack[sc->depth].key = 0;
			sc->depth++;
			if (list) {
				/* its items count as the events libyaml would have given */
				sc->nodes += list->n;
				if (sc->nodes > QC_YAML_MAX_NODES) {
					ok = 0;
					goto next;
				}
				sc->stack[sc->depth - 1].size = sat_add(1, list->n);
				if (sc->doc && !packed)
					pack_make_items(sc, pk, list, ev.end_mark);
				pk->open = (long)(list - pk->l);
			}
		} else if (ev.type == YAML_SEQUENCE_END_EVENT ||
		           ev.type == YAML_MAPPING_END_EVENT) {
			if (sc->depth > 0) {
				struct frame f = sc->stack[--sc->depth];
				if (f.anchor >= 0) {
					sc->a[f.anchor].size = f.size;
					sc->a[f.anchor].open = 0;
				}
				if (sc->doc && f.node)
					sc->doc->nodes.start[f.node - 1].end_mark = ev.end_mark;
				scan_add(sc, f.size);
			}
		} else if (ev.type == YAML_ALIAS_EVENT) {
			const char *name = (const char *)ev.data.alias.anchor;
			anchor *a = anchor_find(sc, name);
			if (a && a->open) {
				READ_ERROR(m,
				           "alias *%s refers to a node that contains it (a cycle)",
				           name);
				ok = 0;
			} else if (a) {
				sc->alias_nodes = sat_add(sc->alias_nodes, a->size);
				if (sc->alias_nodes > QC_YAML_MAX_ALIAS_NODES) {
					READ_ERROR(m,
					           "alias expansion exceeds %d nodes (alias bomb?)",
					           QC_YAML_MAX_ALIAS_NODES);
					ok = 0;
				}
				scan_add(sc, a->size);
				if (ok && sc->doc)
					doc_attach(sc, a->node);
			} else if (sc->doc) {
				READ_ERROR(m, "YAML error: found undefined alias *%s", name);
				ok = 0;
			}
		}
	next:
		yaml_event_delete(&ev);
	}
	scan_reset(sc);
	free(sc->a);
	free(sc);
	yaml_parser_delete(&p);
	if (!ok)
		qc_yaml_free(doc);
	return ok;
#undef READ_ERROR
}

/*
 * Reads the event stream once, checking as it goes what each event costs (nesting, the number
 * of nodes, what aliases expand to) in O(1), so a hostile file is refused after O(limit) work
 * (libyaml's scanner is quadratic in the flow depth, and an alias bomb expands only when the
 * spec is walked), and building the first document as libyaml's yaml_parser_load would: nodes
 * in event order, default tags, an alias is its anchor's node, an anchor defined twice or an
 * undefined alias is an error. The documents after the first are read for their errors only;
 * with one_document the first of them is refused. With packs, lists of numbers where a spec
 * reads numbers only are packed (above). 1 with *doc built.
 */
int qc_yaml_parse(const char *path, const unsigned char *text, size_t len, int one_document,
                  yaml_document_t *doc, qc_yaml_packs *packs, qc_diag *diag)
{
	if (packs) {
		memset(packs, 0, sizeof *packs);
		packer pk;
		memset(&pk, 0, sizeof pk);
		pk.text = text;
		pk.open = -1;
		pk.out = packs;
		pack_find(&pk, len);
		int ok = 0;
		if (pk.n) {
			unsigned char *blank = pack_blank(&pk, len);
			ok = read_pass(path, blank, len, one_document, doc, NULL, &pk);
			free(blank);
			if (ok && (pk.next < pk.n || pk.open >= 0)) {
				qc_yaml_free(doc);
				ok = 0;
			}
		}
		free(pk.l);
		if (ok && packs->n) {
			packs->offs = pk.offs;
			return 1;
		}
		free(pk.offs);
		qc_yaml_packs_free(packs);
		if (ok)
			return 1;
	}
	return read_pass(path, text, len, one_document, doc, diag, NULL);
}

int qc_yaml_load_file(const char *path, const char *what, yaml_document_t *doc, qc_diag *diag)
{
	size_t len;
	char *text = qc_read_file(path, what, &len, diag);
	if (!text)
		return 0;
	int r = qc_yaml_parse(path, (const unsigned char *)text, len, 0, doc, NULL, diag);
	free(text);
	return r;
}

int qc_spec_declares_profile(const char *path, const char *profile)
{
	FILE *sink = fopen("/dev/null", "w");
	if (!sink)
		return -1;
	qc_diag quiet = {0, 0, sink};
	yaml_document_t doc;
	int ok = qc_yaml_load_file(path, "spec", &doc, &quiet);
	fclose(sink);
	if (!ok)
		return -1;
	int r = -1;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_MAPPING_NODE) {
		r = 0;
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
		     p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			yaml_node_t *v = yaml_document_get_node(&doc, p->value);
			if (!k || k->type != YAML_SCALAR_NODE ||
			    strcmp((const char *)k->data.scalar.value, "profile") != 0 || !v)
				continue;
			if (v->type == YAML_SCALAR_NODE) {
				r |= !strcmp((const char *)v->data.scalar.value, profile);
			} else if (v->type == YAML_SEQUENCE_NODE) {
				for (yaml_node_item_t *it = v->data.sequence.items.start;
				     it < v->data.sequence.items.top; it++) {
					yaml_node_t *e = yaml_document_get_node(&doc, *it);
					r |= e && e->type == YAML_SCALAR_NODE &&
					     !strcmp((const char *)e->data.scalar.value, profile);
				}
			} else {
				r = -1; /* not a profile list: the full load says so */
				break;
			}
		}
	}
	qc_yaml_free(&doc);
	return r;
}

static char *make_id(const char *path, const char *semantics)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strcspn(base, ".");
	size_t n = strlen(semantics) + 1 + len + 1;
	char *id = malloc(n);
	if (id)
		snprintf(id, n, "%s/%.*s", semantics, (int)len, base);
	return id;
}

static qc_spec *load_text(const char *path, const char *text, size_t len, qc_diag *diag,
                          const qc_spec *src)
{
	qc_spec *s = calloc(1, sizeof *s);
	if (!s || !(s->path = strdup(path))) {
		free(s);
		qc_diag_error(diag, path, NULL, "out of memory");
		return NULL;
	}
	if (src) {
		/* the document and its text are read, never written (Lua-made nodes live in
		 * s->vn) */
		s->text = src->text;
		s->text_len = src->text_len;
		memcpy(s->sha256, src->sha256, sizeof s->sha256);
		s->doc = src->doc;
		s->packs = src->packs;
		s->doc_borrowed = 1;
	} else {
		if (!(s->text = malloc(len + 1))) {
			free(s->path);
			free(s);
			qc_diag_error(diag, path, NULL, "out of memory");
			return NULL;
		}
		memcpy(s->text, text, len);
		s->text[len] = 0;
		s->text_len = len;
		qc_sha256_hex((const unsigned char *)text, len, s->sha256);
		if (!qc_yaml_parse(path, (const unsigned char *)text, len, 1, &s->doc, &s->packs,
		                   diag)) {
			free(s->text);
			free(s->path);
			free(s);
			return NULL;
		}
	}
	int before = diag ? diag->errors : 0;
	checker c = {s, diag, src};
	check_spec(&c);
	if (s->semantics)
		s->id = make_id(path, s->semantics);
	if ((diag && diag->errors > before) || !s->id) {
		qc_spec_free(s);
		return NULL;
	}
	return s;
}

qc_spec *qc_spec_load_text(const char *path, const char *text, size_t len, qc_diag *diag)
{
	return load_text(path, text, len, diag, NULL);
}

qc_spec *qc_spec_copy(const qc_spec *s, qc_diag *diag)
{
	return load_text(s->path, s->text, s->text_len, diag, s);
}

qc_spec *qc_spec_load(const char *path, qc_diag *diag)
{
	size_t len;
	char *text = qc_read_file(path, "spec", &len, diag);
	if (!text)
		return NULL;
	qc_spec *s = qc_spec_load_text(path, text, len, diag);
	free(text);
	return s;
}

void qc_spec_free(qc_spec *s)
{
	if (!s)
		return;
	if (!s->doc_borrowed) {
		qc_yaml_free(&s->doc);
		qc_yaml_packs_free(&s->packs);
		free(s->text);
	}
	vnodes_free(s->vn);
	if (s->lua)
		qc_lua_free(s->lua);
	free(s->path);
	free(s->id);
	free(s);
}

/* ---- finding spec files ---- */

typedef struct strvec {
	char **v;
	int n, cap;
} strvec;

static int push(strvec *sv, const char *s)
{
	if (sv->n == sv->cap) {
		int cap = sv->cap ? sv->cap * 2 : 16;
		char **nv = realloc(sv->v, (size_t)cap * sizeof *nv);
		if (!nv)
			return -1;
		sv->v = nv;
		sv->cap = cap;
	}
	return (sv->v[sv->n++] = strdup(s)) ? 0 : -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_yaml_ext(const char *name)
{
	size_t n = strlen(name);
	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

/* Files and directories already listed, by device and inode: a file reached twice (two
 * paths, a symlink) is listed once; a directory that is its own ancestor is a symlink loop. */
typedef struct fileid {
	dev_t dev;
	ino_t ino;
} fileid;

typedef struct finder {
	strvec *out, *profiles;
	qc_diag *diag;
	fileid *seen; /* open addressing, dev == 0 && ino == 0 is empty */
	size_t n_seen, cap;
	fileid stack[QC_SPEC_MAX_DIR_DEPTH + 1]; /* directories being walked */
	const char *stack_path[QC_SPEC_MAX_DIR_DEPTH + 1];
	int depth;
} finder;

static size_t fileid_slot(const finder *f, fileid id)
{
	uint64_t h = ((uint64_t)id.dev * 0x9e3779b97f4a7c15ull) ^
	             ((uint64_t)id.ino * 0xc2b2ae3d27d4eb4full);
	return (size_t)(h ^ (h >> 29)) & (f->cap - 1);
}

/* 1 if id was not seen before (it is now). */
static int mark_seen(finder *f, const struct stat *st)
{
	fileid id = {st->st_dev, st->st_ino};
	if (2 * (f->n_seen + 1) > f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 256;
		fileid *old = f->seen;
		size_t old_cap = f->cap;
		f->seen = qc_xcalloc(cap, sizeof *f->seen);
		f->cap = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].dev || old[i].ino) {
				size_t k = fileid_slot(f, old[i]);
				while (f->seen[k].dev || f->seen[k].ino)
					k = (k + 1) & (f->cap - 1);
				f->seen[k] = old[i];
			}
		free(old);
	}
	size_t k = fileid_slot(f, id);
	while (f->seen[k].dev || f->seen[k].ino) {
		if (f->seen[k].dev == id.dev && f->seen[k].ino == id.ino)
			return 0;
		k = (k + 1) & (f->cap - 1);
	}
	f->seen[k] = id;
	f->n_seen++;
	return 1;
}

/* Spec files below dir, sorted; files in a directory named "profiles" are profiles. */
static void walk(finder *f, const char *dir, const struct stat *dst)
{
	for (int i = 0; i < f->depth; i++)
		if (f->stack[i].dev == dst->st_dev && f->stack[i].ino == dst->st_ino) {
			qc_diag_error(f->diag, dir, NULL, "symlink loop: the same directory as %s",
			              f->stack_path[i]);
			return;
		}
	if (!mark_seen(f, dst))
		return; /* reached before through another path */
	if (f->depth == QC_SPEC_MAX_DIR_DEPTH) {
		qc_diag_error(f->diag, dir, NULL, "directories nested deeper than %d levels",
		              QC_SPEC_MAX_DIR_DEPTH);
		return;
	}
	DIR *d = opendir(dir);
	if (!d) {
		qc_diag_error(f->diag, dir, NULL, "cannot open directory: %s", strerror(errno));
		return;
	}
	f->stack[f->depth] = (fileid){dst->st_dev, dst->st_ino};
	f->stack_path[f->depth++] = dir;
	const char *base = strrchr(dir, '/');
	int in_profiles = strcmp(base ? base + 1 : dir, "profiles") == 0;
	strvec here = {0};
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p) {
			qc_diag_error(f->diag, dir, NULL, "a path below is longer than %zu bytes",
			              sizeof p - 1);
			continue;
		}
		struct stat st;
		if (stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) || has_yaml_ext(e->d_name))
			push(&here, p);
	}
	closedir(d);
	if (here.n > 1) /* an empty directory has no list: qsort(NULL, 0) is undefined */
		qsort(here.v, (size_t)here.n, sizeof *here.v, cmp_str);
	for (int i = 0; i < here.n; i++) {
		struct stat st;
		if (stat(here.v[i], &st) != 0) {
			free(here.v[i]);
			continue;
		}
		if (S_ISDIR(st.st_mode))
			walk(f, here.v[i], &st);
		else if (mark_seen(f, &st)) /* FIFOs, devices: refused when read */
			push(in_profiles ? f->profiles : f->out, here.v[i]);
		free(here.v[i]);
	}
	free(here.v);
	f->depth--;
}

int qc_spec_find(char *const *paths, int n_paths, char ***out, char ***profiles, int *n_profiles,
                 qc_diag *diag)
{
	strvec sv = {0}, pv = {0};
	finder f = {&sv, &pv, diag, NULL, 0, 0, {{0, 0}}, {NULL}, 0};
	for (int i = 0; i < n_paths; i++) {
		struct stat st;
		char p[4096];
		snprintf(p, sizeof p, "%s", paths[i]);
		size_t l = strlen(p);
		while (l > 1 && p[l - 1] == '/')
			p[--l] = 0;
		if (stat(p, &st) != 0)
			qc_diag_error(diag, p, NULL, "no such file or directory");
		else if (S_ISDIR(st.st_mode))
			walk(&f, p, &st);
		else if (mark_seen(&f, &st))
			push(&sv, p);
	}
	free(f.seen);
	*out = sv.v;
	*profiles = pv.v;
	*n_profiles = pv.n;
	return sv.n;
}
