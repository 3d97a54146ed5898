/*
 * ONNX backend node tests -> qconform specs; see onnx_import.h. The ONNX
 * inputs map to the plugin ABI as specs/README.md ("Operators") gives it:
 * scales and zero points of QuantizeLinear, DequantizeLinear, QLinearMatMul
 * and QLinearConv become the quantization of the tensor they describe; the
 * integer-only ops keep their zero points as ordinary inputs. A test's data
 * files are positional: input_K.pb is the K-th graph input that is not an
 * initializer, output_K.pb the K-th graph output (onnx/backend/test/runner).
 */
#include "tools/onnx_import.h"
#include "base/util.h"

#include "base/rfile.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/digest.h"
#include "tools/onnx_proto.h"

#define MAX_FILE   QC_ONNX_MAX_BYTES /* a node test's files are a few KiB */
#define MAX_IO     16                /* inputs or outputs of one of the seven ops */
#define MAX_SETS   64                /* test_data_set_N per test */
#define WRAP_WIDTH 96

/* ---- growing strings --------------------------------------------------- */

typedef struct sbuf {
	char *p;
	size_t n, cap;
	int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
	if (b->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = b->cap - b->n;
		int k = vsnprintf(b->p ? b->p + b->n : NULL, room, fmt, ap);
		va_end(ap);
		if (k < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap - b->n <= (size_t)k)
			cap *= 2;
		char *np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
}

static void sb_free(sbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

/* A name from the package or a model, made safe for a one-line message, a
 * Markdown table or YAML: anything outside [A-Za-z0-9_.:/+-] becomes '?',
 * and it is cut at 80 characters. */
static const char *safe(const char *s, char *buf, size_t size)
{
	size_t i = 0;
	for (; s && s[i] && i + 4 < size && i < 80; i++) {
		unsigned char c = (unsigned char)s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		         (c >= '0' && c <= '9') || strchr("_.:/+-", c);
		buf[i] = ok ? (char)c : '?';
	}
	if (s && s[i])
		buf[i++] = '.', buf[i++] = '.';
	buf[i] = 0;
	return buf;
}

/* ---- files ------------------------------------------------------------- */

static int read_all(const char *path, uint8_t **data, size_t *len, char *err, size_t n)
{
	/* a regular file only (a FIFO would block), at most MAX_FILE */
	*len = 0;
	*data = (uint8_t *)qc_read_regular(path, MAX_FILE, "node test's file", len, err, n);
	return *data ? 0 : -1;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entry names of a directory (no "." or ".."), sorted bytewise. */
static char **list_dir(const char *path, size_t *n, char *err, size_t err_size)
{
	*n = 0;
	DIR *d = opendir(path);
	if (!d) {
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 64;
	char **v = malloc(cap * sizeof *v);
	struct dirent *e;
	while (v && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			char **nv = realloc(v, (cap *= 2) * sizeof *v);
			if (!nv) {
				for (size_t i = 0; i < *n; i++)
					free(v[i]);
				free(v);
			}
			v = nv;
			if (!v)
				break;
		}
		if (!(v[*n] = strdup(e->d_name)))
			break;
		++*n;
	}
	closedir(d);
	if (!v) {
		snprintf(err, err_size, "%s: out of memory", path);
		return NULL;
	}
	qsort(v, *n, sizeof *v, cmp_str);
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- the seven ops ----------------------------------------------------- */

enum { Q, DQ, DQL, QMM, QCONV, MMI, CONVI, NOPS };

static const struct {
	const char *op;   /* ONNX op_type = qconform op name */
	const char *file; /* onnx/backend/test/case/node/<file>.py */
	const char *key;  /* lower case, for spotting its tests by name */
} ops[NOPS] = {
        {"QuantizeLinear", "quantizelinear", "quantizelinear"},
        {"DequantizeLinear", "dequantizelinear", "dequantizelinear"},
        {"DynamicQuantizeLinear", "dynamicquantizelinear", "dynamicquantizelinear"},
        {"QLinearMatMul", "qlinearmatmul", "qlinearmatmul"},
        {"QLinearConv", "qlinearconv", "qlinearconv"},
        {"MatMulInteger", "matmulinteger", "matmulinteger"},
        {"ConvInteger", "convinteger", "convinteger"},
};

/* An optional string of a message: "" when absent. */
static const char *str(const char *s)
{
	return s ? s : "";
}

static int op_index(const Onnx__NodeProto *n)
{
	if (strcmp(str(n->domain), "") && strcmp(str(n->domain), "ai.onnx"))
		return -1;
	for (int i = 0; i < NOPS; i++)
		if (!strcmp(str(n->op_type), ops[i].op))
			return i;
	return -1;
}

/* qconform dtype names of the ONNX types the ABI carries. */
static const char *qc_dtype(int32_t dt)
{
	switch (dt) {
	case QC_ONNX_FLOAT: return "float32";
	case QC_ONNX_UINT8: return "uint8";
	case QC_ONNX_INT8: return "int8";
	case QC_ONNX_UINT16: return "uint16";
	case QC_ONNX_INT16: return "int16";
	case QC_ONNX_INT32: return "int32";
	case QC_ONNX_INT64: return "int64";
	case QC_ONNX_BOOL: return "bool";
	case QC_ONNX_FLOAT16: return "float16";
	case QC_ONNX_BFLOAT16: return "bfloat16";
	case QC_ONNX_DOUBLE: return "float64";
	case QC_ONNX_UINT4: return "uint4";
	case QC_ONNX_INT4: return "int4";
	default: return NULL;
	}
}

/* ---- one test ---------------------------------------------------------- */

/* A tensor of the spec: data (or golden values) from a .pb, quant from two more. */
typedef struct itensor {
	const char *key;
	const qc_onnx_tensor *v; /* decoded; NULL: a zero of `dtype`, shape [] */
	int32_t dtype;
	int quant; /* 0 none, 1 per tensor, 2 per axis, 3 blocked */
	int64_t axis, block;
	const qc_onnx_tensor *scale, *zp; /* zp NULL: zero points 0 */
} itensor;

typedef struct dataset {
	char name[64];
	qc_onnx_tensor *in[MAX_IO], *out[MAX_IO];
	int n_in, n_out;
	itensor ins[MAX_IO], outs[MAX_IO];
	int n_ins, n_outs;
} dataset;

typedef struct test {
	const char *dir, *name;
	char path[4096];
	Onnx__ModelProto *model;
	const Onnx__GraphProto *graph; /* the model's; NULL if it has none */
	const Onnx__NodeProto *node;
	qc_onnx_tensor **inits; /* the graph's initializers, as read (NULL: not yet) */
	int op;
	int64_t opset;
	sbuf hashes; /* "  sha256 FILE HEX" lines */
	dataset sets[MAX_SETS];
	int n_sets;
	char reason[512]; /* why it cannot be imported */
} test;

static int skip(test *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int skip(test *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->reason, sizeof t->reason, fmt, ap);
	va_end(ap);
	return 1;
}

/* Reads and hashes a file of the test; 0, or -1 (fatal) with err. */
static int test_file(test *t, const char *rel, uint8_t **data, size_t *len, char *err, size_t n)
{
	char path[8192];
	snprintf(path, sizeof path, "%s/%s", t->path, rel);
	if (read_all(path, data, len, err, n))
		return -1;
	char hex[65];
	qc_sha256_hex(*data, *len, hex);
	sb_printf(&t->hashes, "  sha256 %s %s\n", rel, hex);
	return 0;
}

static void free_test(test *t)
{
	for (int s = 0; s < t->n_sets; s++) {
		for (int k = 0; k < t->sets[s].n_in; k++)
			qc_onnx_tensor_free(t->sets[s].in[k]);
		for (int k = 0; k < t->sets[s].n_out; k++)
			qc_onnx_tensor_free(t->sets[s].out[k]);
	}
	for (size_t i = 0; t->inits && i < t->graph->n_initializer; i++)
		qc_onnx_tensor_free(t->inits[i]);
	free(t->inits);
	if (t->model)
		onnx__model_proto__free_unpacked(t->model, NULL);
	sb_free(&t->hashes);
}

/* Reads a data file (fatal if malformed); 1 and a reason if its type is one
 * the ABI cannot carry. */
static int read_pb(test *t, const char *rel, qc_onnx_tensor **out, char *err, size_t n)
{
	uint8_t *data;
	size_t len;
	char msg[512], sn[96];
	if (test_file(t, rel, &data, &len, err, n))
		return -1;
	int rc = qc_onnx_tensor_read(out, data, len, msg, sizeof msg);
	free(data);
	if (rc) {
		snprintf(err, n, "%s/%s: %s", t->path, rel, msg);
		return -1;
	}
	if (!qc_dtype((*out)->data_type))
		return skip(t, "%s holds %s data, which the plugin ABI has no type for",
		            safe(rel, sn, sizeof sn), qc_onnx_dtype_name((*out)->data_type));
	if (qc_onnx_tensor_decode(*out, msg, sizeof msg)) {
		snprintf(err, n, "%s/%s: %s", t->path, rel, msg);
		return -1;
	}
	return 0;
}

/* Where node input `name` comes from: the K-th non-initializer graph input
 * (returns K), initializer *init (the last of that name), or nowhere (-1;
 * *init is SIZE_MAX when no initializer has the name). */
static int find_input(const Onnx__GraphProto *g, const char *name, size_t *init)
{
	*init = SIZE_MAX;
	for (size_t i = 0; i < g->n_initializer; i++)
		if (!strcmp(str(g->initializer[i]->name), name))
			*init = i;
	int k = 0;
	for (size_t i = 0; i < g->n_input; i++) {
		int is_init = 0;
		for (size_t j = 0; j < g->n_initializer; j++)
			is_init |= !strcmp(str(g->initializer[j]->name), str(g->input[i]->name));
		if (is_init)
			continue;
		if (!strcmp(str(g->input[i]->name), name))
			return k;
		k++;
	}
	return -1;
}

static int find_output(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_output; i++)
		if (!strcmp(str(g->output[i]->name), name))
			return (int)i;
	return -1;
}

/* Graph input or output k of data set ds (kind "input" or "output"): the files KIND_0.pb ..
 * KIND_k.pb of the data set, each read once into tensors (*count of them read so far). */
static int read_upto(test *t, dataset *ds, const char *kind, qc_onnx_tensor **tensors, int *count,
                     int k, const qc_onnx_tensor **v, char *err, size_t n)
{
	if (k >= MAX_IO)
		return skip(t, "more than %d graph %ss", MAX_IO, kind);
	while (*count <= k) {
		char rel[128];
		snprintf(rel, sizeof rel, "%s/%s_%d.pb", ds->name, kind, *count);
		int rc = read_pb(t, rel, &tensors[*count], err, n);
		if (tensors[*count])
			(*count)++;
		if (rc)
			return rc;
	}
	*v = tensors[k];
	return 0;
}

/* Node input j of data set s, or NULL when omitted (absent or ""). */
static int node_input(test *t, int s, size_t j, const qc_onnx_tensor **v, char *err, size_t n)
{
	const Onnx__NodeProto *nd = t->node;
	const Onnx__GraphProto *g = t->graph;
	dataset *ds = &t->sets[s];
	char sn[96];
	*v = NULL;
	if (j >= nd->n_input || !nd->input[j][0])
		return 0;
	size_t init;
	int k = find_input(g, nd->input[j], &init);
	if (k < 0 && init == SIZE_MAX)
		return skip(t, "node input '%s' is neither a graph input nor an initializer",
		            safe(nd->input[j], sn, sizeof sn));
	if (k < 0) {
		if (!t->inits && !(t->inits = calloc(g->n_initializer, sizeof *t->inits))) {
			snprintf(err, n, "%s/model.onnx: out of memory", t->path);
			return -1;
		}
		if (!t->inits[init] &&
		    !(t->inits[init] = qc_onnx_tensor_of(g->initializer[init]))) {
			snprintf(err, n, "%s/model.onnx: out of memory", t->path);
			return -1;
		}
		qc_onnx_tensor *it = t->inits[init];
		if (!qc_dtype(it->data_type))
			return skip(t, "initializer '%s' holds %s data",
			            safe(nd->input[j], sn, sizeof sn),
			            qc_onnx_dtype_name(it->data_type));
		char msg[512];
		if (!it->count && !it->ints && !it->reals &&
		    qc_onnx_tensor_decode(it, msg, sizeof msg)) {
			snprintf(err, n, "%s/model.onnx: %s", t->path, msg);
			return -1;
		}
		*v = it;
		return 0;
	}
	return read_upto(t, ds, "input", ds->in, &ds->n_in, k, v, err, n);
}

static int node_output(test *t, int s, size_t j, const qc_onnx_tensor **v, char *err, size_t n)
{
	const Onnx__NodeProto *nd = t->node;
	dataset *ds = &t->sets[s];
	char sn[96];
	*v = NULL;
	if (j >= nd->n_output || !nd->output[j][0])
		return skip(t, "node output %zu is not given", j);
	int k = find_output(t->graph, nd->output[j]);
	if (k < 0)
		return skip(t, "node output '%s' is not a graph output",
		            safe(nd->output[j], sn, sizeof sn));
	return read_upto(t, ds, "output", ds->out, &ds->n_out, k, v, err, n);
}

/* ---- attributes -------------------------------------------------------- */

typedef Onnx__AttributeProto attr_pb;

/* AttributeProto.AttributeType, the values the ops here take */
enum {
	ATTR_UNDEFINED = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED,
	ATTR_FLOAT = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT,
	ATTR_INT = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT,
	ATTR_STRING = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING,
	ATTR_TENSOR = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR,
	ATTR_FLOATS = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS,
	ATTR_INTS = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS
};

static const attr_pb *attr(const test *t, const char *name)
{
	for (size_t i = 0; i < t->node->n_attribute; i++)
		if (!strcmp(str(t->node->attribute[i]->name), name))
			return t->node->attribute[i];
	return NULL;
}

/* The attribute's type: as declared, or (IR version 1) from the field given. */
static int32_t attr_type(const attr_pb *a)
{
	if (a->type)
		return a->type;
	if (a->has_f)
		return ATTR_FLOAT;
	if (a->has_i)
		return ATTR_INT;
	if (a->has_s)
		return ATTR_STRING;
	if (a->t)
		return ATTR_TENSOR;
	if (a->n_floats)
		return ATTR_FLOATS;
	if (a->n_ints)
		return ATTR_INTS;
	return ATTR_UNDEFINED;
}

/* Values of the kinds none of the ops here take: strings, tensors, graphs, sparse tensors,
 * types, a reference to a function's attribute. */
static size_t other_values(const attr_pb *a)
{
	return a->n_strings + a->n_tensors + a->n_graphs + a->n_sparse_tensors + a->n_type_protos +
	       !!a->g + !!a->sparse_tensor + !!a->tp + !!a->ref_attr_name;
}

/* Is attribute a's string value s? (a bytes field: no NUL of its own) */
static int attr_is(const attr_pb *a, const char *s)
{
	return a->s.len == strlen(s) && (!a->s.len || !memcmp(a->s.data, s, a->s.len));
}

/* Every attribute must be one this op's ABI takes: `allowed` lists
 * name/type pairs. */
static int check_attrs(test *t, const char *const *allowed, const int32_t *types)
{
	char sn[96];
	for (size_t i = 0; i < t->node->n_attribute; i++) {
		const attr_pb *a = t->node->attribute[i];
		const char *nm = str(a->name);
		int k = 0;
		while (allowed[k] && strcmp(allowed[k], nm))
			k++;
		if (!allowed[k])
			return skip(t, "attribute '%s' has no place in the plugin ABI of %s",
			            safe(nm, sn, sizeof sn), ops[t->op].op);
		if (attr_type(a) != types[k] || other_values(a))
			return skip(t, "attribute '%s' is not of the type %s takes",
			            safe(nm, sn, sizeof sn), ops[t->op].op);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(str(t->node->attribute[j]->name), nm))
				return skip(t, "attribute '%s' is given twice",
				            safe(nm, sn, sizeof sn));
	}
	return 0;
}

/* ---- quantization of one tensor from its scale and zero point ---------- */

static size_t count_of(const qc_onnx_tensor *v)
{
	return v ? v->count : 1;
}

/*
 * Sets x's quant from scale (and zp, NULL = zero points 0). Per tensor when
 * the scale has one element; per axis when it is 1-D with shape[axis]
 * entries (axis_hint < 0: no per-axis form); blocked when block > 0 and the
 * scale has x's rank with dim `axis` = ceil(shape[axis] / block). 1 + reason
 * if none fits.
 */
static int set_quant(test *t, itensor *x, const qc_onnx_tensor *xv, const qc_onnx_tensor *scale,
                     const qc_onnx_tensor *zp, int64_t axis_hint, int64_t block, const char *what)
{
	if (!scale)
		return skip(t, "%s has no scale", what);
	if (scale->data_type != QC_ONNX_FLOAT)
		return skip(t, "the scale of %s is %s; the plugin ABI carries float32 scales", what,
		            qc_onnx_dtype_name(scale->data_type));
	for (size_t i = 0; i < scale->count; i++)
		if (!(scale->reals[i] > 0) || isinf(scale->reals[i]))
			return skip(t, "the scale of %s is not finite and > 0", what);
	if (zp) {
		if (zp->data_type != x->dtype)
			return skip(t, "the zero point of %s is %s, the tensor %s", what,
			            qc_onnx_dtype_name(zp->data_type),
			            qc_onnx_dtype_name(x->dtype));
		if (zp->count != scale->count || zp->n_dims != scale->n_dims)
			return skip(t, "the zero point of %s does not have the scale's shape",
			            what);
		for (size_t i = 0; i < zp->n_dims; i++)
			if (zp->dims[i] != scale->dims[i])
				return skip(t,
				            "the zero point of %s does not have the scale's shape",
				            what);
	}
	x->scale = scale;
	x->zp = zp;
	int64_t rank = (int64_t)xv->n_dims;
	if (block > 0) {
		int64_t a = axis_hint < 0 ? axis_hint + rank : axis_hint;
		if (a < 0 || a >= rank || (int64_t)scale->n_dims != rank)
			return skip(t, "blocked quantization of %s: scale shape does not fit",
			            what);
		for (int64_t i = 0; i < rank; i++) {
			int64_t want = i == a ? (xv->dims[i] + block - 1) / block : xv->dims[i];
			if (scale->dims[i] != want)
				return skip(t,
				            "blocked quantization of %s: scale shape does not fit",
				            what);
		}
		x->quant = 3, x->axis = a, x->block = block;
		return 0;
	}
	if (scale->count == 1) {
		x->quant = 1;
		return 0;
	}
	int64_t a = axis_hint < 0 && axis_hint >= -rank ? axis_hint + rank : axis_hint;
	if (scale->n_dims == 1 && a >= 0 && a < rank && scale->dims[0] == xv->dims[a]) {
		x->quant = 2, x->axis = a;
		return 0;
	}
	return skip(t,
	            "the scale of %s (%zu values) is neither per tensor nor along a supported axis",
	            what, scale->count);
}

/* ---- mapping each op --------------------------------------------------- */

static int want_dtype(test *t, const qc_onnx_tensor *v, const char *what, const int32_t *ok)
{
	for (int i = 0; ok[i] >= 0; i++)
		if (v->data_type == ok[i])
			return 0;
	return skip(t, "%s is %s, which %s does not take in the plugin ABI", what,
	            qc_onnx_dtype_name(v->data_type), ops[t->op].op);
}

static const int32_t t_f32[] = {QC_ONNX_FLOAT, -1};
static const int32_t t_q[] = {QC_ONNX_INT8,
                              QC_ONNX_UINT8,
                              QC_ONNX_INT16,
                              QC_ONNX_UINT16,
                              QC_ONNX_INT4,
                              QC_ONNX_UINT4,
                              -1};
static const int32_t t_dq[] = {QC_ONNX_INT8, QC_ONNX_UINT8, QC_ONNX_INT16, QC_ONNX_UINT16,
                               QC_ONNX_INT4, QC_ONNX_UINT4, QC_ONNX_INT32, -1};
static const int32_t t_8[] = {QC_ONNX_INT8, QC_ONNX_UINT8, -1};
static const int32_t t_i32[] = {QC_ONNX_INT32, -1};
static const int32_t t_u8[] = {QC_ONNX_UINT8, -1};

/* Fills data set s's spec tensors. 0, 1 (reason in t) or -1 (fatal). */
/* The attributes of the matmul ops (none) and of the conv ops (onnx/defs/nn/defs.cc
 * QLinearConv, ConvInteger). */
static int check_linear_attrs(test *t, int conv)
{
	static const char *const names[] = {"auto_pad", "dilations", "group", "kernel_shape",
	                                    "pads",     "strides",   NULL};
	static const int32_t types[] = {ATTR_STRING, ATTR_INTS, ATTR_INT,
	                                ATTR_INTS,   ATTR_INTS, ATTR_INTS};
	if (!conv)
		return check_attrs(t, (const char *const[]){NULL}, NULL);
	return check_attrs(t, names, types);
}

static int map_set(test *t, int s, char *err, size_t n)
{
	dataset *ds = &t->sets[s];
	const qc_onnx_tensor *in[9] = {0}, *out[3] = {0};
	int rc;
	for (size_t j = 0; j < 9; j++)
		if ((rc = node_input(t, s, j, &in[j], err, n)))
			return rc;
	int n_out = t->op == DQL ? 3 : 1;
	for (int j = 0; j < n_out; j++)
		if ((rc = node_output(t, s, (size_t)j, &out[j], err, n)))
			return rc;
	if (t->node->n_output > (size_t)n_out)
		return skip(t, "the node has %zu outputs, %s has %d", t->node->n_output,
		            ops[t->op].op, n_out);
	static const size_t max_in[NOPS] = {3, 3, 1, 8, 9, 4, 4};
	if (t->node->n_input > max_in[t->op])
		return skip(t, "the node has %zu inputs, %s takes at most %zu", t->node->n_input,
		            ops[t->op].op, max_in[t->op]);
	itensor *I = ds->ins, *O = ds->outs;
#define NEED(j, what)                                                                              \
	do {                                                                                       \
		if (!in[j])                                                                        \
			return skip(t, "required input %s is missing", what);                      \
	} while (0)
	const attr_pb *ax = attr(t, "axis"), *bs = attr(t, "block_size");
	int64_t axis = ax ? ax->i : 1, block = bs ? bs->i : 0;
	if (bs && block < 0)
		return skip(t, "block_size %" PRId64 " is negative", block);
	switch (t->op) {
	case Q:
	case DQ: {
		static const char *const names[] = {"axis", "block_size", "saturate",
		                                    "output_dtype", NULL};
		static const int32_t types[] = {ATTR_INT, ATTR_INT, ATTR_INT, ATTR_INT};
		if ((rc = check_attrs(t, names, types)))
			return rc;
		NEED(0, "x");
		NEED(1, "the scale");
		const qc_onnx_tensor *q = t->op == Q ? out[0] : in[0];
		const qc_onnx_tensor *f = t->op == Q ? in[0] : out[0];
		if ((rc = want_dtype(t, f, t->op == Q ? "x" : "y", t_f32)) ||
		    (rc = want_dtype(t, q, t->op == Q ? "y" : "x", t->op == Q ? t_q : t_dq)))
			return rc;
		/* output_dtype (opset 21) names the type y has; saturate applies to
		 * float8 outputs only (onnx/defs/quantization/defs.cc), none of which
		 * reach here */
		const attr_pb *od = attr(t, "output_dtype");
		if (od && od->i && od->i != (t->op == Q ? q : f)->data_type)
			return skip(t, "output_dtype %" PRId64 " differs from the output's type",
			            od->i);
		I[0] = (itensor){"x", in[0], in[0]->data_type, 0, 0, 0, NULL, NULL};
		O[0] = (itensor){"y", out[0], out[0]->data_type, 0, 0, 0, NULL, NULL};
		itensor *qt = t->op == Q ? &O[0] : &I[0];
		if ((rc = set_quant(t, qt, q, in[1], in[2], axis, block, t->op == Q ? "y" : "x")))
			return rc;
		ds->n_ins = ds->n_outs = 1;
		return 0;
	}
	case DQL:
		if ((rc = check_attrs(t, (const char *const[]){NULL}, NULL)))
			return rc;
		NEED(0, "x");
		if ((rc = want_dtype(t, in[0], "x", t_f32)) ||
		    (rc = want_dtype(t, out[0], "y", t_u8)) ||
		    (rc = want_dtype(t, out[1], "y_scale", t_f32)) ||
		    (rc = want_dtype(t, out[2], "y_zero_point", t_u8)))
			return rc;
		I[0] = (itensor){"x", in[0], in[0]->data_type, 0, 0, 0, NULL, NULL};
		O[0] = (itensor){"y", out[0], out[0]->data_type, 0, 0, 0, NULL, NULL};
		O[1] = (itensor){"y_scale", out[1], out[1]->data_type, 0, 0, 0, NULL, NULL};
		O[2] = (itensor){"y_zero_point", out[2], out[2]->data_type, 0, 0, 0, NULL, NULL};
		ds->n_ins = 1, ds->n_outs = 3;
		return 0;
	case QMM:
	case QCONV: {
		if ((rc = check_linear_attrs(t, t->op == QCONV)))
			return rc;
		NEED(0, "a / x");
		NEED(1, "a_scale / x_scale");
		NEED(3, "b / w");
		NEED(4, "b_scale / w_scale");
		NEED(6, "y_scale");
		int conv = t->op == QCONV;
		if ((rc = want_dtype(t, in[0], conv ? "x" : "a", t_8)) ||
		    (rc = want_dtype(t, in[3], conv ? "w" : "b", t_8)) ||
		    (rc = want_dtype(t, out[0], "y", t_8)))
			return rc;
		I[0] = (itensor){conv ? "x" : "a", in[0], in[0]->data_type, 0, 0, 0, NULL, NULL};
		I[1] = (itensor){conv ? "w" : "b", in[3], in[3]->data_type, 0, 0, 0, NULL, NULL};
		O[0] = (itensor){"y", out[0], out[0]->data_type, 0, 0, 0, NULL, NULL};
		int64_t ra = (int64_t)in[0]->n_dims, rb = (int64_t)in[3]->n_dims;
		/* a per row (axis rank-2), b per column (rank-1), w per output channel (0) */
		if ((rc = set_quant(t, &I[0], in[0], in[1], in[2], conv ? -1000 : ra - 2, 0,
		                    conv ? "x" : "a")) ||
		    (rc = set_quant(t, &I[1], in[3], in[4], in[5], conv ? 0 : rb - 1, 0,
		                    conv ? "w" : "b")) ||
		    (rc = set_quant(t, &O[0], out[0], in[6], in[7], -1000, 0, "y")))
			return rc;
		ds->n_ins = 2;
		if (conv && in[8]) {
			if ((rc = want_dtype(t, in[8], "B", t_i32)))
				return rc;
			I[2] = (itensor){"B", in[8], in[8]->data_type, 0, 0, 0, NULL, NULL};
			ds->n_ins = 3;
		}
		ds->n_outs = 1;
		return 0;
	}
	case MMI:
	case CONVI: {
		int conv = t->op == CONVI;
		if ((rc = check_linear_attrs(t, conv)))
			return rc;
		NEED(0, conv ? "x" : "A");
		NEED(1, conv ? "w" : "B");
		if ((rc = want_dtype(t, in[0], conv ? "x" : "a", t_8)) ||
		    (rc = want_dtype(t, in[1], conv ? "w" : "b", t_8)) ||
		    (rc = want_dtype(t, out[0], "y", t_i32)))
			return rc;
		I[0] = (itensor){conv ? "x" : "a", in[0], in[0]->data_type, 0, 0, 0, NULL, NULL};
		I[1] = (itensor){conv ? "w" : "b", in[1], in[1]->data_type, 0, 0, 0, NULL, NULL};
		O[0] = (itensor){"y", out[0], out[0]->data_type, 0, 0, 0, NULL, NULL};
		ds->n_ins = 2, ds->n_outs = 1;
		const char *zn[2] = {conv ? "x_zero_point" : "a_zero_point",
		                     conv ? "w_zero_point" : "b_zero_point"};
		for (int z = 0; z < 2; z++) {
			const qc_onnx_tensor *zv = in[2 + z];
			if (zv && zv->data_type != in[z]->data_type)
				return skip(t, "%s is %s, its tensor %s", zn[z],
				            qc_onnx_dtype_name(zv->data_type),
				            qc_onnx_dtype_name(in[z]->data_type));
			if (zv && zv->n_dims > 1)
				return skip(t, "%s has rank %zu", zn[z], zv->n_dims);
		}
		if (in[2] || in[3]) {
			/* a_zero_point given as a zero of shape [] when only b's is */
			I[2] = (itensor){zn[0], in[2], in[0]->data_type, 0, 0, 0, NULL, NULL};
			ds->n_ins = 3;
		}
		if (in[3]) {
			I[3] = (itensor){zn[1], in[3], in[1]->data_type, 0, 0, 0, NULL, NULL};
			ds->n_ins = 4;
		}
		return 0;
	}
	}
#undef NEED
	return skip(t, "internal: no mapping");
}

/* ---- YAML -------------------------------------------------------------- */

/* A float32 value as the shortest decimal that the spec parser (strtod,
 * then the nearest float32: harness/src/spec/spec.c qc_parse_float) reads back
 * to the same bits; .nan / .inf / -.inf as YAML spells them; -0 as -0.0. */
static void fmt_f32(char *buf, size_t size, float f)
{
	if (isnan(f)) {
		snprintf(buf, size, ".nan");
		return;
	}
	if (isinf(f)) {
		snprintf(buf, size, f > 0 ? ".inf" : "-.inf");
		return;
	}
	if (f == 0) {
		snprintf(buf, size, signbit(f) ? "-0.0" : "0");
		return;
	}
	/* the fewest digits that read back; more where %g would otherwise write
	 * 1e+01 for 10 (an exponent only below 1e-4 or from 1e16 up) */
	int big = fabsf(f) >= 1 && fabsf(f) < 1e16f;
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, size, "%.*g", p, (double)f);
		float back = (float)strtod(buf, NULL);
		if (memcmp(&back, &f, sizeof f) == 0 && !(big && strchr(buf, 'e')))
			return;
	}
	snprintf(buf, size, "%a", (double)f); /* never reached: 9 digits always do */
}

static void fmt_f64(char *buf, size_t size, double d)
{
	if (isnan(d))
		snprintf(buf, size, ".nan");
	else if (isinf(d))
		snprintf(buf, size, d > 0 ? ".inf" : "-.inf");
	else if (d == 0)
		snprintf(buf, size, signbit(d) ? "-0.0" : "0");
	else
		for (int p = 1; p <= 17; p++) {
			snprintf(buf, size, "%.*g", p, d);
			if (strtod(buf, NULL) == d)
				break;
		}
}

/* Element i of v as the spec writes it. */
static void fmt_elem(char *buf, size_t size, const qc_onnx_tensor *v, size_t i)
{
	if (!v->is_real)
		snprintf(buf, size, "%" PRId64, v->ints[i]);
	else if (v->data_type == QC_ONNX_DOUBLE)
		fmt_f64(buf, size, v->reals[i]);
	else
		fmt_f32(buf, size, (float)v->reals[i]); /* float, float16, bfloat16: exact */
}

/* A flow list of v's elements (or `count` zeros), wrapped under `indent`. */
static void emit_list(sbuf *b, size_t col, int indent, const qc_onnx_tensor *v, size_t count)
{
	char e[64];
	sb_printf(b, "[");
	col++;
	for (size_t i = 0; i < count; i++) {
		if (v)
			fmt_elem(e, sizeof e, v, i);
		else
			snprintf(e, sizeof e, "0");
		size_t w = strlen(e) + 2;
		if (i && col + w > WRAP_WIDTH) {
			sb_printf(b, ",\n%*s", indent, "");
			col = (size_t)indent;
		} else if (i) {
			sb_printf(b, ", ");
			col += 2;
		}
		sb_printf(b, "%s", e);
		col += strlen(e);
	}
	sb_printf(b, "]");
}

static void emit_shape(sbuf *b, const qc_onnx_tensor *v)
{
	sb_printf(b, "[");
	for (size_t i = 0; v && i < v->n_dims; i++)
		sb_printf(b, "%s%" PRId64, i ? ", " : "", v->dims[i]);
	sb_printf(b, "]");
}

static void emit_quant(sbuf *b, const itensor *x, int indent)
{
	char s[64];
	if (x->quant == 1) {
		fmt_f32(s, sizeof s, (float)x->scale->reals[0]);
		sb_printf(b, "%*squant: {scale: %s, zero_point: %" PRId64 "}\n", indent, "", s,
		          x->zp ? x->zp->ints[0] : 0);
		return;
	}
	sb_printf(b, "%*squant:\n", indent, "");
	sb_printf(b, "%*saxis: %" PRId64 "\n", indent + 2, "", x->axis);
	if (x->quant == 3)
		sb_printf(b, "%*sblock_size: %" PRId64 "\n", indent + 2, "", x->block);
	sb_printf(b, "%*sscales: ", indent + 2, "");
	emit_list(b, (size_t)indent + 10, indent + 4, x->scale, x->scale->count);
	sb_printf(b, "\n%*szero_points: ", indent + 2, "");
	emit_list(b, (size_t)indent + 15, indent + 4, x->zp, x->scale->count);
	sb_printf(b, "\n");
}

static void emit_attrs(sbuf *b, const test *t)
{
	/* the order of the ABI's attribute list: stable whatever the model's order */
	static const char *const order[] = {"auto_pad", "dilations", "group", "kernel_shape",
	                                    "pads",     "strides",   NULL};
	int any = 0;
	for (int k = 0; order[k]; k++) {
		const attr_pb *a = attr(t, order[k]);
		if (!a)
			continue;
		if (!any++)
			sb_printf(b, "    attrs:\n");
		sb_printf(b, "      %s: ", order[k]);
		switch (attr_type(a)) {
		case ATTR_STRING:
			sb_printf(b, "\"%.*s\"\n", (int)a->s.len, (const char *)a->s.data);
			break;
		case ATTR_INT: sb_printf(b, "%" PRId64 "\n", a->i); break;
		default:
			sb_printf(b, "[");
			for (size_t i = 0; i < a->n_ints; i++)
				sb_printf(b, "%s%" PRId64, i ? ", " : "", a->ints[i]);
			sb_printf(b, "]\n");
		}
	}
}

static int check_attr_values(test *t)
{
	const attr_pb *a = attr(t, "auto_pad");
	static const char *const pads[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", NULL};
	char sn[96], s[96];
	if (a) {
		int k = 0;
		while (pads[k] && !attr_is(a, pads[k]))
			k++;
		snprintf(s, sizeof s, "%.*s", a->s.len < 90 ? (int)a->s.len : 90,
		         a->s.len ? (const char *)a->s.data : "");
		if (!pads[k])
			return skip(t, "auto_pad '%s' is not one ONNX defines",
			            safe(s, sn, sizeof sn));
	}
	return 0;
}

static void emit_spec(sbuf *b, test *t, const char *prov)
{
	const char *op = ops[t->op].op;
	sb_printf(b,
	          "# Generated by `qconform import-onnx` from ONNX's backend test data: do not "
	          "edit.\n"
	          "# Regenerate with `make import-onnx` (README.md in this directory).\n"
	          "qconform: 1\n"
	          "op: %s\n"
	          "semantics: onnx\n"
	          "profile: [onnx-qdq]\n",
	          op);
	sb_printf(b,
	          "description: >-\n"
	          "  ONNX backend node test %s: one %s node",
	          t->name, op);
	if (t->opset > 0)
		sb_printf(b, " (opset %" PRId64 ")", t->opset);
	sb_printf(
	        b,
	        ",\n  one case per test data set, its expected outputs as ONNX publishes them.\n");
	sb_printf(b,
	          "source: |-\n"
	          "  ONNX backend node test %s\n"
	          "  (onnx/backend/test/case/node/%s.py in onnx/onnx),\n"
	          "  node/%s in %s\n",
	          t->name, ops[t->op].file, t->name, prov);
	sb_printf(b, "%.*s", t->hashes.n ? (int)t->hashes.n - 1 : 0,
	          t->hashes.p ? t->hashes.p : "");
	sb_printf(b, "\n");
	const dataset *d0 = &t->sets[0];
	for (int io = 0; io < 2; io++) {
		const itensor *x = io ? d0->outs : d0->ins;
		int nx = io ? d0->n_outs : d0->n_ins;
		sb_printf(b, "%s:\n", io ? "outputs" : "inputs");
		for (int k = 0; k < nx; k++) {
			sb_printf(b, "  %s: {dtype: %s, shape: ", x[k].key, qc_dtype(x[k].dtype));
			emit_shape(b, x[k].v);
			sb_printf(b, "}\n");
		}
	}
	sb_printf(b, "tolerance: exact\ncases:\n");
	for (int s = 0; s < t->n_sets; s++) {
		const dataset *d = &t->sets[s];
		sb_printf(b, "  - name: %s\n", d->name);
		for (int io = 0; io < 2; io++) {
			const itensor *x = io ? d->outs : d->ins;
			int nx = io ? d->n_outs : d->n_ins;
			sb_printf(b, "    %s:\n", io ? "outputs" : "inputs");
			for (int k = 0; k < nx; k++) {
				sb_printf(b, "      %s:\n        shape: ", x[k].key);
				emit_shape(b, x[k].v);
				sb_printf(b, "\n");
				if (x[k].quant)
					emit_quant(b, &x[k], 8);
				if (!io) {
					sb_printf(b, "        data: ");
					emit_list(b, 14, 10, x[k].v, count_of(x[k].v));
					sb_printf(b, "\n");
				}
			}
		}
		emit_attrs(b, t);
		sb_printf(b, "    golden:\n");
		for (int k = 0; k < d->n_outs; k++) {
			sb_printf(b, "      %s: ", d->outs[k].key);
			emit_list(b, 8 + strlen(d->outs[k].key), 8, d->outs[k].v,
			          d->outs[k].v->count);
			sb_printf(b, "\n");
		}
		sb_printf(b, "    source: \"ONNX backend node test %s, %s (", t->name, d->name);
		for (const char *p = prov; *p; p++)
			sb_printf(b, "%s%c", *p == '"' || *p == '\\' ? "\\" : "", *p);
		sb_printf(b, ")\"\n");
	}
}

/* ---- one test directory ------------------------------------------------ */

static int cmp_set(const void *a, const void *b)
{
	const char *x = *(char *const *)a + 14, *y = *(char *const *)b + 14;
	size_t lx = strlen(x), ly = strlen(y);
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* Is test t one of the seven ops' (by its graph or its name)? */
static int relevant(const test *t)
{
	for (size_t i = 0; t->graph && i < t->graph->n_node; i++)
		if (op_index(t->graph->node[i]) >= 0)
			return 1;
	char low[256];
	size_t i = 0;
	for (; t->name[i] && i + 1 < sizeof low; i++)
		low[i] = (char)(t->name[i] >= 'A' && t->name[i] <= 'Z' ? t->name[i] + 32
		                                                       : t->name[i]);
	low[i] = 0;
	for (int k = 0; k < NOPS; k++)
		if (strstr(low, ops[k].key))
			return 1;
	return 0;
}

/* 0 imported (yaml in out), 1 listed with t->reason, 2 not a test of these
 * ops, -1 fatal (err). */
static int import_test(test *t, const char *prov, sbuf *out, char *err, size_t n)
{
	char path[8192], sn[96];
	snprintf(path, sizeof path, "%s/model.onnx", t->path);
	if (!is_file(path))
		return 2;
	uint8_t *data;
	size_t len;
	if (test_file(t, "model.onnx", &data, &len, err, n))
		return -1;
	char msg[512];
	int rc;
	t->model = qc_onnx_model_unpack(data, len, msg, sizeof msg);
	free(data);
	if (!t->model) {
		snprintf(err, n, "%s: %s", path, msg);
		return -1;
	}
	t->graph = t->model->graph;
	if (!relevant(t))
		return 2;
	if (!valid_name(t->name))
		return skip(t, "the test's name has characters outside [A-Za-z0-9_-]");
	const Onnx__GraphProto *g = t->graph;
	if (!g || g->n_node != 1)
		return skip(t, "the graph has %zu nodes (an expanded function body), not one",
		            g ? g->n_node : 0);
	t->node = g->node[0];
	if ((t->op = op_index(t->node)) < 0)
		return skip(t, "its one node is %s, not one of the seven ops",
		            safe(str(t->node->op_type), sn, sizeof sn));
	for (size_t i = 0; i < t->model->n_opset_import; i++)
		if (!strcmp(str(t->model->opset_import[i]->domain), "") ||
		    !strcmp(str(t->model->opset_import[i]->domain), "ai.onnx"))
			t->opset = t->model->opset_import[i]->version;
	if (g->n_sparse_initializer)
		return skip(t, "the graph has sparse initializers");
	if ((rc = check_attr_values(t)))
		return rc;
	size_t ne;
	char **ents = list_dir(t->path, &ne, err, n);
	if (!ents)
		return -1;
	char **sets = malloc((ne ? ne : 1) * sizeof *sets);
	size_t ns = 0;
	for (size_t i = 0; sets && i < ne; i++) {
		const char *e = ents[i];
		if (strncmp(e, "test_data_set_", 14) || !e[14] ||
		    strspn(e + 14, "0123456789") != strlen(e + 14))
			continue;
		snprintf(path, sizeof path, "%s/%s", t->path, e);
		if (is_dir(path))
			sets[ns++] = ents[i];
	}
	if (!sets) {
		free_list(ents, ne);
		snprintf(err, n, "%s: out of memory", t->path);
		return -1;
	}
	qsort(sets, ns, sizeof *sets, cmp_set);
	rc = 0;
	if (!ns)
		rc = skip(t, "no test_data_set_N directory");
	else if (ns > MAX_SETS)
		rc = skip(t, "more than %d data sets", MAX_SETS);
	for (size_t s = 0; !rc && s < ns; s++) {
		snprintf(t->sets[s].name, sizeof t->sets[s].name, "%.60s", sets[s]);
		t->n_sets++;
		rc = map_set(t, (int)s, err, n);
	}
	free(sets);
	free_list(ents, ne);
	if (rc)
		return rc;
	for (int s = 1; s < t->n_sets; s++)
		if (t->sets[s].n_ins != t->sets[0].n_ins)
			return skip(t, "its data sets give different optional inputs");
	emit_spec(out, t, prov);
	if (out->oom) {
		snprintf(err, n, "%s: out of memory", t->path);
		return -1;
	}
	return 0;
}

/* ---- the whole directory ----------------------------------------------- */

typedef struct result {
	char *name;
	sbuf yaml;
	char op[32];
	int64_t opset;
	int cases;
	char reason[512];
	int imported;
} result;

static int write_file(const char *dir, const char *name, const sbuf *b, char *err, size_t n)
{
	char path[8192];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f)) {
		snprintf(err, n, "%s: %s", path, strerror(errno ? errno : EIO));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

static void emit_readme(sbuf *b, const result *r, size_t nr, const char *prov)
{
	int imp = 0, cases = 0, sk = 0;
	for (size_t i = 0; i < nr; i++) {
		imp += r[i].imported;
		sk += !r[i].imported;
		cases += r[i].cases;
	}
	sb_printf(
	        b,
	        "# ONNX backend test vectors, imported\n"
	        "\n"
	        "Generated by `qconform import-onnx`: do not edit by hand.\n"
	        "\n"
	        "Each `test_*.yaml` is one of ONNX's own backend node tests (onnx/onnx,\n"
	        "`onnx/backend/test/case/node/*.py`) of QuantizeLinear, DequantizeLinear,\n"
	        "DynamicQuantizeLinear, QLinearMatMul, QLinearConv, MatMulInteger or ConvInteger,\n"
	        "as a qconform spec: one explicit case per `test_data_set_N`, the inputs with "
	        "their\n"
	        "data, the expected outputs as `golden:` values, `tolerance: exact`. Scales and "
	        "zero\n"
	        "points of the Q/DQ and QLinear ops travel as the tensors' `quant`; MatMulInteger\n"
	        "and ConvInteger keep their zero points as inputs (specs/README.md, Operators).\n"
	        "Each spec's `source:` gives the sha256 of `model.onnx` and of every `.pb` file\n"
	        "it was made from.\n"
	        "\n"
	        "Source: %s (its `data/node` directory).\n"
	        "\n"
	        "Regenerate (byte-identical from the same package):\n"
	        "\n"
	        "```sh\n"
	        "make import-onnx   # qconform import-onnx <package>/data/node --out "
	        "specs/onnx/imported"
	        " --provenance TEXT\n"
	        "```\n"
	        "\n"
	        "## Imported: %d tests, %d cases\n"
	        "\n"
	        "| spec | op | opset | cases |\n"
	        "|---|---|---|---|\n",
	        prov, imp, cases);
	for (size_t i = 0; i < nr; i++)
		if (r[i].imported)
			sb_printf(b, "| %s.yaml | %s | %" PRId64 " | %d |\n", r[i].name, r[i].op,
			          r[i].opset, r[i].cases);
	sb_printf(b,
	          "\n"
	          "## Not imported: %d tests\n"
	          "\n",
	          sk);
	if (!sk) {
		sb_printf(b, "None.\n");
		return;
	}
	sb_printf(b, "| test | reason |\n|---|---|\n");
	char sn[96];
	for (size_t i = 0; i < nr; i++)
		if (!r[i].imported)
			sb_printf(b, "| %s | %s |\n", safe(r[i].name, sn, sizeof sn), r[i].reason);
}

int qc_onnx_import(const char *dir, const char *outdir, const char *prov,
                   qc_onnx_import_stats *stats, char *err, size_t n)
{
	qc_onnx_import_stats st = {0};
	if (stats)
		*stats = st;
	struct stat sd;
	if (stat(dir, &sd)) {
		snprintf(err, n, "%s: %s", dir, strerror(errno));
		return 2;
	}
	if (!S_ISDIR(sd.st_mode)) {
		snprintf(err, n, "%s: not a directory", dir);
		return 2;
	}
	size_t ne;
	char **ents = list_dir(dir, &ne, err, n);
	if (!ents)
		return 2;
	result *res = calloc(ne ? ne : 1, sizeof *res);
	size_t nr = 0;
	int rc = 0;
	test *t = calloc(1, sizeof *t);
	if (!res || !t) {
		snprintf(err, n, "%s: out of memory", dir);
		rc = 2;
	}
	for (size_t i = 0; !rc && i < ne; i++) {
		memset(t, 0, sizeof *t);
		t->dir = dir;
		t->name = ents[i];
		snprintf(t->path, sizeof t->path, "%s/%s", dir, ents[i]);
		if (!is_dir(t->path))
			continue;
		sbuf y = {0};
		int r = import_test(t, prov, &y, err, n);
		if (r == 0 || r == 1) {
			result *x = &res[nr++];
			x->name = ents[i];
			x->imported = r == 0;
			x->yaml = y;
			x->opset = t->opset;
			x->cases = r == 0 ? t->n_sets : 0;
			snprintf(x->op, sizeof x->op, "%s",
			         t->node && t->op >= 0 ? ops[t->op].op : "");
			snprintf(x->reason, sizeof x->reason, "%s", t->reason);
			if (r == 1)
				sb_free(&x->yaml);
		} else {
			sb_free(&y);
		}
		free_test(t);
		if (r < 0)
			rc = 2;
	}
	free(t);
	if (!rc && qc_mkdirs(outdir) != 0) {
		snprintf(err, n, "%s: %s", outdir, strerror(errno));
		rc = 2;
	}
	for (size_t i = 0; !rc && i < nr; i++) {
		if (!res[i].imported)
			continue;
		char fn[300];
		snprintf(fn, sizeof fn, "%s.yaml", res[i].name);
		if (write_file(outdir, fn, &res[i].yaml, err, n))
			rc = 2;
		st.imported++;
		st.cases += res[i].cases;
	}
	if (!rc) {
		sbuf readme = {0};
		emit_readme(&readme, res, nr, prov);
		st.skipped = (int)nr - st.imported;
		if (readme.oom) {
			snprintf(err, n, "%s: out of memory", outdir);
			rc = 2;
		} else if (write_file(outdir, "README.md", &readme, err, n)) {
			rc = 2;
		}
		sb_free(&readme);
	}
	for (size_t i = 0; res && i < nr; i++)
		sb_free(&res[i].yaml);
	free(res);
	free_list(ents, ne);
	if (stats && !rc)
		*stats = st;
	return rc;
}
