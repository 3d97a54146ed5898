/*
 * spec: the spec as the rest of the harness sees it (spec.h): diagnostics, the nodes made from
 * Lua values and the node helpers, loading a spec (its YAML read by spec_yaml.c, its structure
 * checked by spec_check.c), finding spec files.
 */
#include "spec/spec.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/digest.h"
#include "base/util.h"
#include "spec/slua.h"
#include "spec/spec_internal.h"

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

/* ---- loading a spec ---- */

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
	qc_spec_check(&c);
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
