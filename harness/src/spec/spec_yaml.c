/*
 * spec_yaml: reading a file, and its YAML within the limits (qc_limits.h) in one pass over
 * libyaml's events (spec.h: qc_read_file, qc_yaml_parse); the lists of numbers a spec reads
 * as numbers only, kept as their text (qc_yaml_pack_of, qc_yaml_pack_item).
 */
#include "spec/spec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/rfile.h"
#include "spec/qc_limits.h"

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
