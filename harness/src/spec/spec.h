/*
 * spec: loads a YAML spec (format v1, specs/README.md) with libyaml's
 * document API and checks its structure: known keys, types, required
 * fields. Values that may name sweep variables ("=name") are kept as YAML
 * nodes and evaluated per case by cases/, which reports value errors
 * (scale <= 0, zero point outside the dtype, ...) at the node's mark.
 *
 * Every error is "file:line:col: message" (1-based), collected in a
 * qc_diag; a spec with an error of its own (not of a case's values) runs nothing.
 */
#ifndef QC_SPEC_H
#define QC_SPEC_H

#include <stdint.h>
#include <stdio.h>
#include <yaml.h>

#define QC_SPEC_FORMAT  1
#define QC_MAX_TENSORS  24 /* inputs (and intermediates) of one case */
#define QC_MAX_OUTPUTS  8  /* outputs of one call: the worker's wire carries as many */
#define QC_MAX_ATTRS    16
#define QC_MAX_VARS     16
#define QC_MAX_PROFILES 8
#define QC_MAX_SWEEPS   32

/* Collected diagnostics. */
typedef struct qc_diag {
	int errors;
	int warnings;
	FILE *out; /* where messages go as they are found (stderr by default) */
} qc_diag;

void qc_diag_error(qc_diag *d, const char *file, const yaml_node_t *at, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
void qc_diag_warn(qc_diag *d, const char *file, const yaml_node_t *at, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* A named node inside a mapping: tensor templates, attrs, sweep variables. */
typedef struct qc_named {
	const char *name;
	yaml_node_t *node;
} qc_named;

struct qc_lval;

/* One cartesian product of sweep variables. */
typedef struct qc_sweep {
	qc_named vars[QC_MAX_VARS]; /* name -> sequence of values */
	int n_vars;
	/* a variable written "=expr": the list it evaluated to (a copy takes it from here) */
	const struct qc_lval *values[QC_MAX_VARS];
} qc_sweep;

/* A flow list of plain decimal numbers where a spec reads numbers only (a tensor's data, a
 * case's golden values), kept as its text rather than a node an item (qc_yaml_parse). Its node
 * is a sequence without items; qc_yaml_pack_of finds its pack. */
typedef struct qc_yaml_pack {
	int node;         /* the list's node id */
	uint32_t n;       /* its items */
	uint32_t first;   /* its first item's entry in qc_yaml_packs.offs */
	size_t at;        /* byte offset of its '[' in the text read */
	yaml_mark_t mark; /* libyaml's mark just after the '[' */
} qc_yaml_pack;

typedef struct qc_yaml_packs {
	qc_yaml_pack *v; /* by node id */
	size_t n;
	uint32_t *offs; /* per item: the byte offset of its number from its list's '[' */
} qc_yaml_packs;

/* Where reading a pack's items in order has got to (qc_yaml_pack_item). */
typedef struct qc_pack_cursor {
	yaml_mark_t mark;
	size_t pos; /* the byte of the text at mark */
} qc_pack_cursor;

struct qc_vnodes;
struct qc_lua;

#define QC_MAX_NODES 8

/* One node of a chain (`chain:`), or a chain's fused form (`fusion: {fused: ...}`): a
 * single-op call whose tensors are named graph inputs, intermediates or graph outputs. */
typedef struct qc_chain_node {
	yaml_node_t *node; /* its mapping */
	const char *op;
	const char *semantics; /* the spec's when not written */
	const char *inputs[QC_MAX_TENSORS];
	int n_inputs;
	const char *outputs[QC_MAX_OUTPUTS];
	int n_outputs;
	qc_named attrs[QC_MAX_ATTRS];
	int n_attrs;
	/* the fused form's `unquantized:`: inputs it reads without their quantization */
	const char *unquantized[QC_MAX_TENSORS];
	int n_unquantized;
} qc_chain_node;

/* A chain's fusion contract: what a kernel that fuses it may answer. */
typedef enum qc_fusion {
	QC_FUSION_GRAPH = 0,     /* the decomposed graph, bit for bit */
	QC_FUSION_ROUND_ONCE = 1 /* anything between the graph and the fused op, per element */
} qc_fusion;

typedef struct qc_spec {
	char *path;
	char *id; /* "<semantics>/<file stem>": prefix of every case name */
	char sha256[65];
	yaml_document_t doc;
	qc_yaml_packs packs; /* the document's lists kept as text (in `text`) */
	const char *op;
	const char *semantics;
	const char *description;
	const char *profiles[QC_MAX_PROFILES];
	yaml_node_t *profile_nodes[QC_MAX_PROFILES];
	int n_profiles;
	uint64_t seed;
	int repeat;
	qc_sweep sweeps[QC_MAX_SWEEPS]; /* sweep: one product, or a list of them (their union) */
	int n_sweeps;
	qc_named inputs[QC_MAX_TENSORS];
	int n_inputs;
	qc_named outputs[QC_MAX_OUTPUTS];
	int n_outputs;
	qc_named attrs[QC_MAX_ATTRS];
	int n_attrs;
	yaml_node_t *tolerance; /* NULL: exact */
	yaml_node_t *cases;     /* sequence of explicit cases, or NULL */
	yaml_node_t *expect;    /* "ok" (default) or "error" for every sweep case */
	/* a chain (`chain:`): op is then the chain's name, the nodes' ops are the reference's */
	qc_chain_node nodes[QC_MAX_NODES];
	int n_nodes;                   /* 0: a single op */
	qc_named mids[QC_MAX_TENSORS]; /* `intermediates:`, the tensors between nodes */
	int n_mids;
	qc_fusion fusion;
	qc_chain_node fused; /* QC_FUSION_ROUND_ONCE: the single op a fused kernel may equal */
	yaml_node_t *fusion_node;
	struct qc_lua *lua;             /* the spec's sandboxed Lua, made on first use */
	struct qc_vnodes *vn;           /* nodes made from Lua values (ids < 0) */
	struct qc_lua_share *lua_share; /* a run's budgets shared by the copies, or NULL */
	char *text;                     /* the file as loaded (packed lists, qc_spec_copy) */
	size_t text_len;
	int doc_borrowed; /* doc, packs and text are the source's (qc_spec_copy): not freed here */
} qc_spec;

/* Loads and checks one file. Returns NULL (errors in diag) on failure. */
qc_spec *qc_spec_load(const char *path, qc_diag *diag);
/* The same from text in memory (len bytes); path names it in messages and case names. */
qc_spec *qc_spec_load_text(const char *path, const char *text, size_t len, qc_diag *diag);

/* Reads a whole file without blocking or growing past QC_SPEC_MAX_BYTES (qc_limits.h): a
 * FIFO, device, socket or directory is "not a regular file". Returns the text (malloc'd,
 * NUL-terminated, *len bytes) or NULL with "path: message" in diag; `what` names the file in
 * the size message ("spec", "profile", "waiver"). */
char *qc_read_file(const char *path, const char *what, size_t *len, qc_diag *diag);
/* Loads the YAML document of text, checking its nesting, node count and alias expansion
 * (qc_limits.h) in the same pass; one_document: a second document is an error. The document
 * is the one libyaml's yaml_parser_load builds, except that with packs (NULL: none) a list of
 * 8 or more plain decimal numbers at inputs.<name>.data, cases[i].inputs.<name>(.data) or
 * cases[i].golden.<name> (no anchor, no tag) is packed: its items stay in text. 1 on success;
 * 0 with "path:line:col: message" in diag (the document is then not initialised). */
int qc_yaml_parse(const char *path, const unsigned char *text, size_t len, int one_document,
                  yaml_document_t *doc, qc_yaml_packs *packs, qc_diag *diag);
/* Frees a document qc_yaml_parse built (not libyaml's yaml_document_delete: default tags are
 * shared), and its packs. */
void qc_yaml_free(yaml_document_t *doc);
void qc_yaml_packs_free(qc_yaml_packs *ps);
/* The pack of node n of doc, or NULL when n is not a packed list. */
const qc_yaml_pack *qc_yaml_pack_of(const yaml_document_t *doc, const qc_yaml_packs *ps,
                                    const yaml_node_t *n);
/* Item i (< p->n) of pack p of a document read from text: the number's text into buf
 * (NUL-terminated, "" if it does not fit), and where libyaml would have marked its node into
 * start and end (either may be NULL). With cur, items read in increasing order cost their own
 * length only (zero cur before the first). */
const char *qc_yaml_pack_item(const char *text, const qc_yaml_packs *ps, const qc_yaml_pack *p,
                              uint32_t i, char *buf, size_t size, qc_pack_cursor *cur,
                              yaml_mark_t *start, yaml_mark_t *end);
/* qc_read_file then qc_yaml_parse (one document not required). */
int qc_yaml_load_file(const char *path, const char *what, yaml_document_t *doc, qc_diag *diag);
/* Does the spec file at path declare this profile (its `profile` key), read as YAML only (no
 * checks, no Lua)? 1 yes, 0 no, -1 cannot tell (the file or its YAML is broken): load it. */
int qc_spec_declares_profile(const char *path, const char *profile);
void qc_spec_free(qc_spec *s);
/* A private copy of s, checked again from s's YAML document (shared, read-only, not parsed
 * again) with its "=expr" sweep lists taken from s rather than evaluated again (s must outlive
 * the copy): its Lua state and its Lua-made nodes are its own, so threads expand one spec at
 * once, each through its own copy. NULL (errors in diag) only when out of memory. */
qc_spec *qc_spec_copy(const qc_spec *s, qc_diag *diag);

/* Lists the spec files named by paths (files, or directories searched
 * recursively for *.yaml / *.yml, sorted); files inside a directory named
 * "profiles" are listed in *profiles instead. Returns the number of spec
 * files; *out and *profiles are malloc'd. */
int qc_spec_find(char *const *paths, int n_paths, char ***out, char ***profiles, int *n_profiles,
                 qc_diag *diag);

/* Nodes made from Lua values: negative ids, valid until qc_vnode_reset below
 * a mark taken before they were made. Memory from qc_vnode_alloc likewise. */
typedef struct qc_vnode_mark {
	size_t nodes, mem;
} qc_vnode_mark;
int qc_vnode_add(const qc_spec *s, const yaml_node_t *node);
void *qc_vnode_alloc(const qc_spec *s, size_t n);
qc_vnode_mark qc_vnode_get_mark(const qc_spec *s);
void qc_vnode_reset(const qc_spec *s, qc_vnode_mark mark);

/* Conversions between nodes and Lua values (slua.h). Plain scalars are typed as
 * YAML types them; Lua strings become quoted scalars. */
struct qc_lval;
void qc_lval_of_node(const qc_spec *s, const yaml_node_t *n, struct qc_lval *v);
int qc_node_of_lval(const qc_spec *s, const struct qc_lval *v, const yaml_node_t *at);

/* Node helpers shared with cases/. */
yaml_node_t *qc_node(const qc_spec *s, int id);
/* The items of sequence n, packed or not; item i as a node (of a packed list, a Lua-made node,
 * valid as those are: the numbers' fast path is qc_yaml_pack_item). */
uint64_t qc_seq_len(const qc_spec *s, const yaml_node_t *n);
yaml_node_t *qc_seq_item(const qc_spec *s, const yaml_node_t *n, uint64_t i);
yaml_node_t *qc_map_get(const qc_spec *s, const yaml_node_t *map, const char *key);
const char *qc_scalar(const yaml_node_t *n); /* NULL if not a scalar */
int qc_scalar_is_quoted(const yaml_node_t *n);
/* Plain-scalar typing: 1 and sets out on success. */
int qc_parse_int(const char *s, int64_t *out);
int qc_parse_float(const char *s, double *out); /* also .inf, -.inf, .nan, hex floats */
int qc_parse_bool(const char *s, int *out);

#endif
