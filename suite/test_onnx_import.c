/*
 * The ONNX importer (harness/src/tools/onnx_proto.c, harness/src/tools/onnx_import.c):
 * protobuf-c's unpacking of hand-made and hostile bytes under the importer's bounds (memory,
 * nesting), the TensorProto decoder on every element type, SHA-256, the `import-onnx` command
 * on hostile and hand-made test directories, and end to end: the installed libonnx-testdata
 * gives exactly the committed specs/onnx/imported/, whose cases all PASS against the
 * reference.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "qct.h"
#include "tools/onnx_import.h"
#include "tools/onnx_proto.h"

#define ONNX_NODE_DIR "/usr/share/libonnx-testdata/data/node"

/* ---- a small protobuf writer for the tests ----------------------------- */

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

typedef struct pbw {
	uint8_t b[8192];
	size_t n;
} pbw;

static void w_raw(pbw *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

/* v as a varint at p; returns its length */
static size_t varint_at(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		p[n++] = c | (v ? 0x80 : 0);
	} while (v);
	return n;
}

static void w_varint(pbw *w, uint64_t v)
{
	w->n += varint_at(w->b + w->n, v);
}

static void w_tag(pbw *w, unsigned field, int wire)
{
	w_varint(w, (uint64_t)field << 3 | (unsigned)wire);
}

static void w_u(pbw *w, unsigned field, uint64_t v)
{
	w_tag(w, field, WIRE_VARINT);
	w_varint(w, v);
}

static void w_bytes(pbw *w, unsigned field, const void *p, size_t n)
{
	w_tag(w, field, WIRE_LEN);
	w_varint(w, n);
	w_raw(w, p, n);
}

static void w_str(pbw *w, unsigned field, const char *s)
{
	w_bytes(w, field, s, strlen(s));
}

static void w_msg(pbw *w, unsigned field, const pbw *m)
{
	w_bytes(w, field, m->b, m->n);
}

static void w_f32(pbw *w, unsigned field, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint8_t le[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
	w_tag(w, field, WIRE_I32);
	w_raw(w, le, 4);
}

/* A TensorProto: dims (unpacked, as proto2 writes them), data type, raw bytes. */
static void w_tensor_raw(pbw *w, int32_t dt, int rank, const int64_t *dims, const void *raw,
                         size_t n)
{
	for (int i = 0; i < rank; i++)
		w_u(w, 1, (uint64_t)dims[i]);
	w_u(w, 2, (uint64_t)dt);
	w_bytes(w, 9, raw, n);
}

/* ---- unpacking: what protobuf-c takes and refuses ---------------------- */

#define REFUSED "protobuf-c cannot unpack its "

/* bytes as a TensorProto (model 0) or a ModelProto (1): refused with `what` in the reason */
static void expect_unpack_error(int model, const void *bytes, size_t n, const char *what)
{
	char err[512] = "";
	uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees any over-read */
	memcpy(copy, bytes, n);
	int rc;
	if (model) {
		Onnx__ModelProto *m = qc_onnx_model_unpack(copy, n, err, sizeof err);
		rc = m ? 0 : -1;
		if (m)
			onnx__model_proto__free_unpacked(m, NULL);
	} else {
		qc_onnx_tensor *t;
		rc = qc_onnx_tensor_read(&t, copy, n, err, sizeof err);
		if (!rc)
			qc_onnx_tensor_free(t);
	}
	free(copy);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	if (rc != -1 || !strstr(err, what))
		fprintf(stderr, "\n  wanted '%s', got %d '%s'", what, rc, err);
}

static void test_unpack_errors(void)
{
	/* TensorProto.name (8), length 100, 3 bytes left */
	expect_unpack_error(0,
	                    "\x42\x64"
	                    "abc",
	                    5, REFUSED "5 bytes as a TensorProto");
	/* a length that would wrap a pointer */
	expect_unpack_error(0, "\x42\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10, REFUSED);
	/* group wire types, the undefined 6 and 7, field number 0 (in unknown fields too) */
	expect_unpack_error(0, "\x10\x01\x0b", 3, REFUSED);
	expect_unpack_error(0, "\xfc\x01", 2, REFUSED);
	expect_unpack_error(0, "\xfe\x01\x00", 3, REFUSED);
	expect_unpack_error(0, "\xff\x01", 2, REFUSED);
	expect_unpack_error(0, "\x00\x01", 2, REFUSED);
	/* truncated 8-byte, 4-byte and varint values; a varint of 11 bytes */
	expect_unpack_error(0, "\x51\x01\x02\x03", 4, REFUSED);
	expect_unpack_error(0, "\x25\x01", 2, REFUSED);
	expect_unpack_error(0, "\x10", 1, REFUSED);
	expect_unpack_error(0, "\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, REFUSED);
	/* a wire type that does not fit its field: name as a varint, data_type as bytes */
	expect_unpack_error(0, "\x40\x01", 2, REFUSED);
	expect_unpack_error(0, "\x12\x01\x01", 3, REFUSED);
	/* ModelProto.graph (7) as a varint */
	expect_unpack_error(1, "\x38\x01", 2, REFUSED "2 bytes as a ModelProto");
	/* fields the importer does not know, of every wire type, are skipped */
	pbw w = {0};
	w_u(&w, 1000, 150);
	w_tag(&w, 1001, WIRE_I64);
	w_raw(&w, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	w_str(&w, 1002, "hi");
	w_tag(&w, 536870911, WIRE_I32); /* the largest field number */
	w_raw(&w, "\xef\xbe\xad\xde", 4);
	w_u(&w, 2, QC_ONNX_UINT8);
	w_bytes(&w, 9, "\x07", 1);
	char err[256];
	qc_onnx_tensor *t;
	CU_ASSERT_EQUAL_FATAL(qc_onnx_tensor_read(&t, w.b, w.n, err, sizeof err), 0);
	CU_ASSERT_EQUAL(qc_onnx_tensor_decode(t, err, sizeof err), 0);
	CU_ASSERT(t->count == 1 && t->ints[0] == 7);
	qc_onnx_tensor_free(t);
}

static void test_packed(void)
{
	/* dims [2, 3] packed and unpacked, float_data packed and unpacked: same tensor */
	float v[6] = {1, -2, 0.5f, 3, 4, -0.25f};
	pbw a = {0}, b = {0};
	w_bytes(&a, 1, "\x02\x03", 2);
	w_u(&a, 2, QC_ONNX_FLOAT);
	w_bytes(&a, 4, v, sizeof v); /* little-endian host, as the wire */
	w_u(&b, 1, 2);
	w_u(&b, 2, QC_ONNX_FLOAT);
	for (int i = 0; i < 3; i++)
		w_f32(&b, 4, v[i]);
	w_u(&b, 1, 3);
	w_bytes(&b, 4, v + 3, 3 * sizeof(float)); /* packed and unpacked mixed */
	char err[256];
	for (int k = 0; k < 2; k++) {
		const pbw *w = k ? &b : &a;
		qc_onnx_tensor *t;
		CU_ASSERT_EQUAL_FATAL(qc_onnx_tensor_read(&t, w->b, w->n, err, sizeof err), 0);
		CU_ASSERT_EQUAL(qc_onnx_tensor_decode(t, err, sizeof err), 0);
		CU_ASSERT_EQUAL(t->n_dims, 2);
		CU_ASSERT(t->dims[0] == 2 && t->dims[1] == 3);
		CU_ASSERT_EQUAL(t->count, 6);
		CU_ASSERT(t->is_real);
		for (int i = 0; i < 6 && t->reals; i++)
			CU_ASSERT_EQUAL(t->reals[i], (double)v[i]);
		qc_onnx_tensor_free(t);
	}
	/* a packed list of 32-bit values whose length is not a multiple of 4 */
	pbw c = {0};
	w_u(&c, 2, QC_ONNX_FLOAT);
	w_bytes(&c, 4, v, 5);
	expect_unpack_error(0, c.b, c.n, REFUSED);
	/* a packed varint list cut inside its last value */
	pbw d = {0};
	w_u(&d, 2, QC_ONNX_INT32);
	w_bytes(&d, 5, "\x01\x96", 2);
	expect_unpack_error(0, d.b, d.n, REFUSED);
}

/* Every proper prefix of a tensor message fails (to parse, or its data no
 * longer fits its dims); under ASan, none reads a byte past the prefix. */
static void test_truncation(void)
{
	int8_t raw[6] = {-128, -1, 0, 1, 2, 127};
	pbw w = {0};
	w_u(&w, 2, QC_ONNX_INT8);
	w_str(&w, 8, "name");
	w_bytes(&w, 9, raw, sizeof raw);
	w_u(&w, 1, 2);
	w_u(&w, 1, 3);
	char err[256];
	int failures = 0;
	for (size_t k = 0; k < w.n; k++) {
		uint8_t *copy = malloc(k ? k : 1); /* exactly k bytes: ASan sees any over-read */
		memcpy(copy, w.b, k);
		qc_onnx_tensor *t;
		int rc = qc_onnx_tensor_read(&t, copy, k, err, sizeof err);
		if (rc == 0) {
			rc = qc_onnx_tensor_decode(t, err, sizeof err);
			qc_onnx_tensor_free(t);
		}
		failures += rc == -1;
		CU_ASSERT_PTR_NULL(strchr(err, '\n'));
		free(copy);
	}
	CU_ASSERT_EQUAL(failures, (int)w.n);
	qc_onnx_tensor *t;
	CU_ASSERT_EQUAL_FATAL(qc_onnx_tensor_read(&t, w.b, w.n, err, sizeof err), 0);
	CU_ASSERT_EQUAL(qc_onnx_tensor_decode(t, err, sizeof err), 0);
	CU_ASSERT_STRING_EQUAL(t->name, "name");
	CU_ASSERT(t->ints && t->ints[0] == -128 && t->ints[5] == 127);
	qc_onnx_tensor_free(t);
}

/* A one-node model: QuantizeLinear(x, s, z) -> y, with an axis attribute. */
static void build_model(pbw *m, const char *op, int n_inputs)
{
	static const char *const names[] = {"x", "s", "z"};
	pbw g = {0}, node = {0}, at = {0}, op_set = {0};
	for (int i = 0; i < n_inputs; i++)
		w_str(&node, 1, names[i]);
	w_str(&node, 2, "y");
	w_str(&node, 4, op);
	w_str(&at, 1, "axis");
	w_u(&at, 3, 1);
	w_u(&at, 20, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	w_msg(&node, 5, &at);
	w_msg(&g, 1, &node);
	w_str(&g, 2, "graph");
	for (int i = 0; i < n_inputs; i++) {
		pbw vi = {0};
		w_str(&vi, 1, names[i]);
		w_msg(&g, 11, &vi);
	}
	pbw vo = {0};
	w_str(&vo, 1, "y");
	w_msg(&g, 12, &vo);
	memset(m, 0, sizeof *m);
	w_u(m, 1, 7);
	w_str(&op_set, 1, "");
	w_u(&op_set, 2, 13);
	w_msg(m, 8, &op_set);
	w_msg(m, 7, &g);
}

static void test_model(void)
{
	pbw m;
	build_model(&m, "QuantizeLinear", 3);
	char err[512];
	Onnx__ModelProto *md = qc_onnx_model_unpack(m.b, m.n, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(md);
	CU_ASSERT_EQUAL(md->ir_version, 7);
	CU_ASSERT(md->n_opset_import == 1 && md->opset_import[0]->version == 13);
	CU_ASSERT_PTR_NOT_NULL_FATAL(md->graph);
	CU_ASSERT_EQUAL_FATAL(md->graph->n_node, 1);
	const Onnx__NodeProto *n = md->graph->node[0];
	CU_ASSERT_STRING_EQUAL(n->op_type, "QuantizeLinear");
	CU_ASSERT_EQUAL(n->n_input, 3);
	CU_ASSERT_STRING_EQUAL(n->input[2], "z");
	CU_ASSERT(n->n_attribute == 1 && n->attribute[0]->has_i && n->attribute[0]->i == 1);
	CU_ASSERT_EQUAL(md->graph->n_input, 3);
	CU_ASSERT_STRING_EQUAL(md->graph->output[0]->name, "y");
	onnx__model_proto__free_unpacked(md, NULL);
	/* every prefix: decoded or refused, never read past (ASan) */
	int refused = 0;
	for (size_t k = 0; k < m.n; k++) {
		uint8_t *copy = malloc(k ? k : 1);
		memcpy(copy, m.b, k);
		if ((md = qc_onnx_model_unpack(copy, k, err, sizeof err)))
			onnx__model_proto__free_unpacked(md, NULL);
		else
			refused++;
		free(copy);
	}
	CU_ASSERT(refused > (int)m.n / 2);
	/* hostile: a node whose attribute's tensor claims a huge length */
	expect_unpack_error(1, "\x3a\x08\x0a\x06\x2a\x04\x2a\xff\xff\x7f", 10,
	                    REFUSED "10 bytes as a ModelProto");
}

/* Puts a field's tag and length in front of the len bytes at *p (the buffer has room). */
static void wrap(uint8_t **p, uint8_t tag, size_t len)
{
	uint8_t v[10];
	size_t k = varint_at(v, len);
	*p -= k;
	memcpy(*p, v, k);
	*--*p = tag;
}

enum {
	T_MODEL_GRAPH = 0x3a,    /* ModelProto.graph (7) */
	T_GRAPH_NODE = 0x0a,     /* GraphProto.node (1) */
	T_NODE_ATTRIBUTE = 0x2a, /* NodeProto.attribute (5) */
	T_ATTRIBUTE_G = 0x32     /* AttributeProto.g (6) */
};

/* A ModelProto whose graph holds a node whose attribute holds a graph, and so on, `cycles`
 * times (3 * cycles + 1 nested messages); malloc'd, its length in *len. */
static uint8_t *nested_model(size_t cycles, size_t *len)
{
	static const uint8_t tags[] = {T_ATTRIBUTE_G, T_NODE_ATTRIBUTE, T_GRAPH_NODE};
	size_t cap = 16 * (3 * cycles + 2);
	uint8_t *buf = malloc(cap), *end = buf + cap, *p = end;
	/* from the innermost (empty) graph outwards */
	for (size_t i = 0; i < 3 * cycles; i++)
		wrap(&p, tags[i % 3], (size_t)(end - p));
	wrap(&p, T_MODEL_GRAPH, (size_t)(end - p));
	*len = (size_t)(end - p);
	memmove(buf, p, *len);
	return buf;
}

static void test_nesting(void)
{
	char err[512];
	size_t len;
	/* 31 levels: decoded, every level there */
	uint8_t *b = nested_model(10, &len);
	Onnx__ModelProto *m = qc_onnx_model_unpack(b, len, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	const Onnx__GraphProto *g = m->graph;
	int levels = 0;
	while (g && g->n_node == 1 && g->node[0]->n_attribute == 1) {
		g = g->node[0]->attribute[0]->g;
		levels++;
	}
	CU_ASSERT_EQUAL(levels, 10);
	onnx__model_proto__free_unpacked(m, NULL);
	free(b);
	/* 300001 levels (1.5 MB): refused before protobuf-c's recursion exhausts the stack */
	b = nested_model(100000, &len);
	m = qc_onnx_model_unpack(b, len, err, sizeof err);
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "as a ModelProto, its messages nest deeper than"));
	if (m)
		onnx__model_proto__free_unpacked(m, NULL);
	free(b);
}

/* A graph of one node with 100000 empty attributes: 200 kB that protobuf-c would unpack into
 * some 300 bytes per attribute, more than the 64 per byte read it may take. */
static void test_memory_budget(void)
{
	enum { N = 100000 };
	size_t cap = 2 * N + 64;
	uint8_t *buf = malloc(cap), *end = buf + cap, *p = end - 2 * N;
	memset(p, 0, 2 * N);
	for (size_t i = 0; i < N; i++)
		p[2 * i] = T_NODE_ATTRIBUTE;
	wrap(&p, T_GRAPH_NODE, (size_t)(end - p));
	wrap(&p, T_MODEL_GRAPH, (size_t)(end - p));
	char err[512];
	Onnx__ModelProto *m = qc_onnx_model_unpack(p, (size_t)(end - p), err, sizeof err);
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(err, "as a ModelProto, its 200008 bytes would take more than"));
	if (m || !strstr(err, "would take more than"))
		fprintf(stderr, "\n  %s", m ? "decoded" : err);
	if (m)
		onnx__model_proto__free_unpacked(m, NULL);
	free(buf);
}

/* ---- TensorProto elements ---------------------------------------------- */

typedef struct dcase {
	int32_t dt;
	size_t n;
	const char *raw; /* little-endian bytes */
	size_t raw_len;
	int field; /* the typed field, and its values */
	uint64_t typed[6];
	size_t n_typed;
	double want[6];
} dcase;

static void test_tensor_dtypes(void)
{
	static const dcase cases[] = {
	        {QC_ONNX_FLOAT,
	         2,
	         "\x00\x00\x80\x3f\x00\x00\xc0\xc0",
	         8,
	         4,
	         {0x3f800000, 0xc0c00000},
	         2,
	         {1, -6}},
	        {QC_ONNX_DOUBLE,
	         1,
	         "\x00\x00\x00\x00\x00\x00\xf8\x3f",
	         8,
	         10,
	         {0x3ff8000000000000},
	         1,
	         {1.5}},
	        {QC_ONNX_FLOAT16,
	         3,
	         "\x00\x3c\x00\xc0\x01\x00",
	         6,
	         5,
	         {0x3c00, 0xc000, 1},
	         3,
	         {1, -2, 0x1p-24}},
	        {QC_ONNX_BFLOAT16, 2, "\x80\x3f\x40\xc0", 4, 5, {0x3f80, 0xc040}, 2, {1, -3}},
	        {QC_ONNX_INT8,
	         3,
	         "\x80\xff\x7f",
	         3,
	         5,
	         {(uint64_t)-128, (uint64_t)-1, 127},
	         3,
	         {-128, -1, 127}},
	        {QC_ONNX_UINT8, 3, "\x00\x80\xff", 3, 5, {0, 128, 255}, 3, {0, 128, 255}},
	        {QC_ONNX_INT16,
	         2,
	         "\x00\x80\xff\x7f",
	         4,
	         5,
	         {(uint64_t)-32768, 32767},
	         2,
	         {-32768, 32767}},
	        {QC_ONNX_UINT16, 2, "\x01\x80\xff\xff", 4, 5, {32769, 65535}, 2, {32769, 65535}},
	        {QC_ONNX_INT32,
	         2,
	         "\x00\x00\x00\x80\xfe\xff\xff\xff",
	         8,
	         5,
	         {(uint64_t)INT32_MIN, (uint64_t)-2},
	         2,
	         {INT32_MIN, -2}},
	        {QC_ONNX_INT64,
	         1,
	         "\xfe\xff\xff\xff\xff\xff\xff\xff",
	         8,
	         7,
	         {(uint64_t)-2},
	         1,
	         {-2}},
	        {QC_ONNX_UINT32, 1, "\xff\xff\xff\xff", 4, 11, {0xffffffff}, 1, {4294967295.0}},
	        {QC_ONNX_UINT64, 1, "\x05\x00\x00\x00\x00\x00\x00\x00", 8, 11, {5}, 1, {5}},
	        {QC_ONNX_BOOL, 2, "\x01\x00", 2, 5, {1, 0}, 2, {1, 0}},
	        /* 4-bit: element 2i in the low nibble; int32_data holds the packed bytes */
	        {QC_ONNX_INT4, 3, "\x78\x0f", 2, 5, {0x78, 0x0f}, 2, {-8, 7, -1}},
	        {QC_ONNX_UINT4, 3, "\xf0\x09", 2, 5, {0xf0, 0x09}, 2, {0, 15, 9}},
	};
	char err[256];
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const dcase *d = &cases[c];
		for (int typed = 0; typed < 2; typed++) {
			pbw w = {0};
			w_u(&w, 1, d->n);
			w_u(&w, 2, (uint64_t)d->dt);
			if (!typed) {
				w_bytes(&w, 9, d->raw, d->raw_len);
			} else if (d->field == 4 || d->field == 10) {
				/* fixed-width fields, packed */
				pbw p = {0};
				for (size_t i = 0; i < d->n_typed; i++)
					for (int k = 0; k < (d->field == 4 ? 4 : 8); k++)
						p.b[p.n++] = (uint8_t)(d->typed[i] >> (8 * k));
				w_msg(&w, (unsigned)d->field, &p);
			} else {
				/* varint fields, unpacked; int32 negatives as 10-byte varints */
				for (size_t i = 0; i < d->n_typed; i++)
					w_u(&w, (unsigned)d->field,
					    d->field == 5 ? (uint64_t)(int64_t)(int32_t)d->typed[i]
					                  : d->typed[i]);
			}
			qc_onnx_tensor *t;
			int ok = qc_onnx_tensor_read(&t, w.b, w.n, err, sizeof err) == 0;
			CU_ASSERT(ok);
			if (!ok)
				continue;
			int dec = qc_onnx_tensor_decode(t, err, sizeof err) == 0;
			CU_ASSERT(dec);
			if (!dec)
				fprintf(stderr, "\n  %s %s: %s", qc_onnx_dtype_name(d->dt),
				        typed ? "typed" : "raw", err);
			for (size_t i = 0; dec && i < d->n; i++) {
				double got = t->is_real ? t->reals[i] : (double)t->ints[i];
				CU_ASSERT_EQUAL(got, d->want[i]);
				if (got != d->want[i])
					fprintf(stderr, "\n  %s %s [%zu]: %g, want %g",
					        qc_onnx_dtype_name(d->dt), typed ? "typed" : "raw",
					        i, got, d->want[i]);
			}
			qc_onnx_tensor_free(t);
		}
	}
}

static void expect_decode_error(const pbw *w, const char *what)
{
	char err[256] = "";
	qc_onnx_tensor *t;
	int rc = qc_onnx_tensor_read(&t, w->b, w->n, err, sizeof err);
	if (rc == 0) {
		rc = qc_onnx_tensor_decode(t, err, sizeof err);
		qc_onnx_tensor_free(t);
	}
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
	if (!strstr(err, what))
		fprintf(stderr, "\n  wanted '%s', got '%s'", what, err);
}

static void test_tensor_errors(void)
{
	pbw w = {0};
	int64_t d3[] = {3};
	w_tensor_raw(&w, QC_ONNX_FLOAT, 1, d3, "\0\0\0\0\0\0\0\0", 8);
	expect_decode_error(&w, "raw_data has 8 bytes, 3 FLOAT elements need 12");
	memset(&w, 0, sizeof w);
	w_u(&w, 2, QC_ONNX_INT8);
	w_u(&w, 5, 300);
	expect_decode_error(&w, "int32_data[0] = 300 is out of range for INT8");
	memset(&w, 0, sizeof w);
	w_tensor_raw(&w, QC_ONNX_INT32, 0, NULL, "\0\0\0\0", 4);
	w_u(&w, 5, 1);
	expect_decode_error(&w, "both raw_data and int32_data");
	memset(&w, 0, sizeof w);
	w_u(&w, 2, QC_ONNX_FLOAT);
	w_u(&w, 5, 1);
	expect_decode_error(&w, "FLOAT data in a field other than float_data");
	memset(&w, 0, sizeof w);
	w_u(&w, 2, QC_ONNX_STRING);
	w_str(&w, 6, "s");
	expect_decode_error(&w, "STRING has no numeric elements");
	memset(&w, 0, sizeof w);
	w_u(&w, 1, (uint64_t)-2);
	w_u(&w, 2, QC_ONNX_UINT8);
	expect_decode_error(&w, "dimension 0 is negative");
	memset(&w, 0, sizeof w);
	w_u(&w, 1, (uint64_t)1 << 62);
	w_u(&w, 1, (uint64_t)1 << 62);
	w_u(&w, 2, QC_ONNX_UINT8);
	expect_decode_error(&w, "too many elements");
	memset(&w, 0, sizeof w);
	w_tensor_raw(&w, QC_ONNX_BOOL, 0, NULL, "\x02", 1);
	expect_decode_error(&w, "BOOL element 0 is 2");
	memset(&w, 0, sizeof w);
	w_u(&w, 1, 4);
	w_u(&w, 2, QC_ONNX_UINT8);
	expect_decode_error(&w, "int32_data has 0 values, 4 UINT8 elements need 4");
	memset(&w, 0, sizeof w);
	w_u(&w, 2, QC_ONNX_FLOAT);
	w_u(&w, 14, 1);
	expect_decode_error(&w, "external data");
	/* a scalar (no dims) of one element and an empty tensor decode */
	char err[256];
	qc_onnx_tensor *t;
	memset(&w, 0, sizeof w);
	w_tensor_raw(&w, QC_ONNX_UINT8, 0, NULL, "\x07", 1);
	CU_ASSERT_EQUAL_FATAL(qc_onnx_tensor_read(&t, w.b, w.n, err, sizeof err), 0);
	CU_ASSERT_EQUAL(qc_onnx_tensor_decode(t, err, sizeof err), 0);
	CU_ASSERT(t->count == 1 && t->ints[0] == 7);
	qc_onnx_tensor_free(t);
	memset(&w, 0, sizeof w);
	int64_t d0[] = {2, 0};
	w_tensor_raw(&w, QC_ONNX_FLOAT, 2, d0, "", 0);
	CU_ASSERT_EQUAL_FATAL(qc_onnx_tensor_read(&t, w.b, w.n, err, sizeof err), 0);
	CU_ASSERT_EQUAL(qc_onnx_tensor_decode(t, err, sizeof err), 0);
	CU_ASSERT_EQUAL(t->count, 0);
	qc_onnx_tensor_free(t);
}

/* ---- SHA-256 ----------------------------------------------------------- */

static void test_sha256(void)
{
	char hex[65], fhex[65];
	/* FIPS 180-4 examples (NIST CSRC example values) */
	qc_sha256_hex("abc", 3, hex);
	CU_ASSERT_STRING_EQUAL(hex,
	                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	qc_sha256_hex("", 0, hex);
	CU_ASSERT_STRING_EQUAL(hex,
	                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	CU_ASSERT_EQUAL(strlen(m448) * 8, 448);
	qc_sha256_hex(m448, strlen(m448), hex);
	CU_ASSERT_STRING_EQUAL(hex,
	                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* a file hashes as its bytes (the importer's provenance) */
	const char *tmp = qct_tmpdir();
	char path[600];
	snprintf(path, sizeof path, "%s/m", tmp);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(m448, f);
	fclose(f);
	CU_ASSERT_EQUAL(qc_sha256_file(path, fhex), 0);
	CU_ASSERT_STRING_EQUAL(fhex, hex);
	qct_rmdir(tmp);
}

/* ---- the command ------------------------------------------------------- */

static void write_bytes(const char *dir, const char *rel, const void *p, size_t n)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	/* make the parent directories */
	for (char *s = path + strlen(dir) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(path, 0777);
			*s = '/';
		}
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(p, 1, n, f);
	fclose(f);
}

static void write_pb(const char *dir, const char *rel, const pbw *w)
{
	write_bytes(dir, rel, w->b, w->n);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* A hand-made test directory: QuantizeLinear(x, 0.5, 10) on [0, 1, -1.25]
 * gives [10, 12, 8] (-2.5 rounds half to even). */
static void make_q_test(const char *root, const char *name)
{
	char rel[256];
	pbw m;
	build_model(&m, "QuantizeLinear", 3);
	snprintf(rel, sizeof rel, "%s/model.onnx", name);
	write_pb(root, rel, &m);
	float x[3] = {0, 1, -1.25f};
	float s = 0.5f;
	int64_t d3[] = {3};
	pbw in0 = {0}, in1 = {0}, in2 = {0}, out0 = {0};
	w_tensor_raw(&in0, QC_ONNX_FLOAT, 1, d3, x, sizeof x);
	w_tensor_raw(&in1, QC_ONNX_FLOAT, 0, NULL, &s, 4);
	w_u(&in2, 2, QC_ONNX_UINT8);
	w_u(&in2, 5, 10); /* int32_data */
	w_tensor_raw(&out0, QC_ONNX_UINT8, 1, d3, "\x0a\x0c\x08", 3);
	snprintf(rel, sizeof rel, "%s/test_data_set_0/input_0.pb", name);
	write_pb(root, rel, &in0);
	snprintf(rel, sizeof rel, "%s/test_data_set_0/input_1.pb", name);
	write_pb(root, rel, &in1);
	snprintf(rel, sizeof rel, "%s/test_data_set_0/input_2.pb", name);
	write_pb(root, rel, &in2);
	snprintf(rel, sizeof rel, "%s/test_data_set_0/output_0.pb", name);
	write_pb(root, rel, &out0);
}

static void test_cmd_handmade(void)
{
	const char *tmp = qct_tmpdir();
	char src[600], out[600];
	snprintf(src, sizeof src, "%s/node", tmp);
	snprintf(out, sizeof out, "%s/out", tmp);
	mkdir(src, 0777);
	make_q_test(src, "test_quantizelinear_handmade");
	/* two nodes: listed as not importable; an unrelated op: ignored */
	pbw m, g = {0}, n1 = {0}, n2 = {0}, model = {0};
	w_str(&n1, 4, "QuantizeLinear");
	w_str(&n2, 4, "DequantizeLinear");
	w_msg(&g, 1, &n1);
	w_msg(&g, 1, &n2);
	w_msg(&model, 7, &g);
	write_pb(src, "test_quantizelinear_handmade_expanded/model.onnx", &model);
	build_model(&m, "Relu", 1);
	write_pb(src, "test_relu/model.onnx", &m);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s import-onnx %s --out %s --provenance 'hand-made 1.0'",
	                             qct_build_path("qconform"), src, out),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	if (p.status)
		fprintf(stderr, "\n  %s", p.err);
	qct_proc_free(&p);
	char path[700];
	snprintf(path, sizeof path, "%s/test_quantizelinear_handmade.yaml", out);
	const char *y = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	CU_ASSERT_PTR_NOT_NULL(strstr(y, "op: QuantizeLinear\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(y, "data: [0, 1, -1.25]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(y, "quant: {scale: 0.5, zero_point: 10}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(y, "y: [10, 12, 8]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(y, "hand-made 1.0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(y, "sha256 test_data_set_0/input_2.pb "));
	snprintf(path, sizeof path, "%s/README.md", out);
	y = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	CU_ASSERT_PTR_NOT_NULL(strstr(y,
	                              "| test_quantizelinear_handmade_expanded | the graph has 2 "
	                              "nodes (an expanded function body), not one |"));
	CU_ASSERT_PTR_NULL(strstr(y, "relu"));
	snprintf(path, sizeof path, "%s/test_relu.yaml", out);
	CU_ASSERT_PTR_NULL(fopen(path, "r"));
	/* the spec runs: the reference agrees with the hand-made golden values */
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s", out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	CU_ASSERT(t.cases == 1 && t.pass == 1 && t.golden == 1);
	json_decref(r);
	qct_rmdir(tmp);
}

/* Runs the command; wants exit 2 and exactly one line on stderr starting with `prefix`. */
static void expect_cmd_error(const char *args, const char *prefix, const char *what)
{
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s import-onnx %s", qct_build_path("qconform"), args), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_EQUAL(count_lines(p.err), 1);
	CU_ASSERT_EQUAL(strncmp(p.err, prefix, strlen(prefix)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, what));
	if (p.status != 2 || count_lines(p.err) != 1 || strncmp(p.err, prefix, strlen(prefix)) ||
	    !strstr(p.err, what))
		fprintf(stderr, "\n  import-onnx %s: status %d, stderr '%s'", args, p.status,
		        p.err);
	qct_proc_free(&p);
}

static void test_cmd_hostile(void)
{
	const char *tmp = qct_tmpdir();
	char dir[600], args[1400], prefix[700];
	/* a model whose graph claims 4 GiB */
	snprintf(dir, sizeof dir, "%s/a", tmp);
	mkdir(dir, 0777);
	write_bytes(dir, "test_quantizelinear/model.onnx", "\x3a\xff\xff\xff\xff\x0f\nzz", 8);
	snprintf(args, sizeof args, "%s --out %s/out", dir, tmp);
	snprintf(prefix, sizeof prefix, "%s/test_quantizelinear/model.onnx: ", dir);
	expect_cmd_error(args, prefix, REFUSED "8 bytes as a ModelProto");
	snprintf(prefix, sizeof prefix, "%s/out", tmp);
	struct stat st;
	CU_ASSERT_NOT_EQUAL(stat(prefix, &st), 0); /* nothing written */
	/* a good model cut short, then one whose graph is a varint */
	pbw m;
	build_model(&m, "QuantizeLinear", 3);
	write_bytes(dir, "test_quantizelinear/model.onnx", m.b, m.n - 5);
	snprintf(prefix, sizeof prefix, "%s/test_quantizelinear/model.onnx: ", dir);
	expect_cmd_error(args, prefix, REFUSED);
	write_bytes(dir, "test_quantizelinear/model.onnx", "\x08\x07\x38\x01", 4);
	expect_cmd_error(args, prefix, REFUSED "4 bytes as a ModelProto");
	/* nested 300001 deep: refused, not a stack overflow */
	size_t len;
	uint8_t *deep = nested_model(100000, &len);
	write_bytes(dir, "test_quantizelinear/model.onnx", deep, len);
	free(deep);
	expect_cmd_error(args, prefix, "its messages nest deeper than the decoder allows");
	/* a file larger than the importer reads: refused before it is read (a sparse file) */
	snprintf(prefix, sizeof prefix, "%s/test_quantizelinear/model.onnx", dir);
	CU_ASSERT_EQUAL(truncate(prefix, (off_t)QC_ONNX_MAX_BYTES + 1), 0);
	snprintf(prefix, sizeof prefix, "%s/test_quantizelinear/model.onnx: ", dir);
	expect_cmd_error(args, prefix, "the limit is 256 MiB");
	/* a good model whose data file is cut short */
	snprintf(dir, sizeof dir, "%s/b", tmp);
	mkdir(dir, 0777);
	make_q_test(dir, "test_quantizelinear_x");
	write_bytes(dir, "test_quantizelinear_x/test_data_set_0/input_0.pb",
	            "\x08\x03\x10\x01\x4a\x0c", 6);
	snprintf(args, sizeof args, "%s --out %s/out", dir, tmp);
	snprintf(prefix, sizeof prefix,
	         "%s/test_quantizelinear_x/test_data_set_0/input_0.pb: ", dir);
	expect_cmd_error(args, prefix, REFUSED "6 bytes as a TensorProto");
	/* a data file missing */
	snprintf(prefix, sizeof prefix, "%s/test_quantizelinear_x/test_data_set_0/input_0.pb", dir);
	unlink(prefix);
	snprintf(prefix, sizeof prefix,
	         "%s/test_quantizelinear_x/test_data_set_0/input_0.pb: ", dir);
	expect_cmd_error(args, prefix, "No such file");
	/* a model with a newline and control bytes in a truncated string: still one line */
	snprintf(dir, sizeof dir, "%s/c", tmp);
	mkdir(dir, 0777);
	write_bytes(dir, "test_x\nmatmulinteger/model.onnx", "\x08\x01\x3a\x05\x0a\x03\x22\x01", 8);
	snprintf(args, sizeof args, "%s --out %s/out", dir, tmp);
	snprintf(prefix, sizeof prefix, "%s/test_x?matmulinteger/model.onnx: ", dir);
	expect_cmd_error(args, prefix, REFUSED);
	/* not a directory, missing, usage */
	snprintf(args, sizeof args, "%s/nope --out %s/out", tmp, tmp);
	snprintf(prefix, sizeof prefix, "%s/nope: ", tmp);
	expect_cmd_error(args, prefix, "No such file or directory");
	snprintf(args, sizeof args, "%s/a/test_quantizelinear/model.onnx", tmp);
	snprintf(prefix, sizeof prefix, "%s/a/test_quantizelinear/model.onnx: ", tmp);
	expect_cmd_error(args, prefix, "not a directory");
	expect_cmd_error("", "qconform import-onnx: ", "needs DIR");
	expect_cmd_error("a --frobnicate", "qconform import-onnx: ", "unknown option --frobnicate");
	expect_cmd_error("a --out", "qconform import-onnx: ", "missing value after --out");
	qct_rmdir(tmp);
}

/* ---- end to end -------------------------------------------------------- */

static void test_package_matches_committed(void)
{
	const char *node = getenv("QCONFORM_ONNX_TESTDATA");
	if (!node || !*node)
		node = ONNX_NODE_DIR;
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "dpkg-query -W -f='${Version}' libonnx-testdata"), 0);
	struct stat st;
	if (p.status != 0 || !*p.out || stat(node, &st) != 0) {
		fprintf(stderr,
		        "\n  libonnx-testdata is not installed (%s): `make deps` installs it",
		        node);
		CU_FAIL("libonnx-testdata is not installed: `make deps` installs it");
		qct_proc_free(&p);
		return;
	}
	char version[128];
	snprintf(version, sizeof version, "%s", p.out);
	qct_proc_free(&p);
	const char *tmp = qct_tmpdir();
	/* the provenance text as the Makefile's import-onnx target builds it */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s import-onnx %s --out %s/imported --provenance "
	                             "'Debian package libonnx-testdata %s' && "
	                             "diff -r %s/imported specs/onnx/imported",
	                             qct_build_path("qconform"), node, tmp, version, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	if (p.status)
		fprintf(stderr,
		        "\n  specs/onnx/imported differs from libonnx-testdata %s (run `make "
		        "import-onnx`):\n%.2000s%s",
		        version, p.out, p.err);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

static void test_imported_specs_pass(void)
{
	const char *tmp = qct_tmpdir();
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s validate specs/onnx/imported", qct_build_path("qconform")), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/onnx/imported");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	printf("\n  onnx imported: %zu cases, %zu PASS", t.cases, t.pass);
	/* 14 tests of libonnx-testdata 1.12, one data set each */
	CU_ASSERT(t.cases >= 14);
	CU_ASSERT_EQUAL(t.pass, t.cases);
	CU_ASSERT_EQUAL(t.golden, t.cases);
	/* Q/DQ among them, by op */
	size_t qdq = 0;
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		const char *nm =
		        json_string_value(json_object_get(json_array_get(cases, i), "name"));
		qdq += nm &&
		       (strstr(nm, "/test_quantizelinear") || strstr(nm, "/test_dequantizelinear"));
	}
	CU_ASSERT(qdq >= 4);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_onnx_import(void)
{
	CU_pSuite s = qct_suite("onnx/import");
	CU_add_test(s, "unpack: over-long lengths, groups, bad wire types, field 0; unknown fields",
	            test_unpack_errors);
	CU_add_test(s, "unpack: packed and unpacked repeated fields", test_packed);
	CU_add_test(s, "TensorProto cut at every byte", test_truncation);
	CU_add_test(s, "ModelProto: graph, node, attribute; every prefix", test_model);
	CU_add_test(s, "ModelProto nested 31 levels, and 300001: refused", test_nesting);
	CU_add_test(s, "ModelProto over the memory budget: refused", test_memory_budget);
	CU_add_test(s, "TensorProto: raw and typed data of every type", test_tensor_dtypes);
	CU_add_test(s, "TensorProto: malformed data", test_tensor_errors);
	CU_add_test(s, "SHA-256 FIPS 180-4 vectors", test_sha256);
	CU_add_test(s, "import-onnx on a hand-made test directory", test_cmd_handmade);
	CU_add_test(s, "import-onnx on hostile input: exit 2, one line", test_cmd_hostile);
	CU_add_test(s, "libonnx-testdata gives exactly specs/onnx/imported",
	            test_package_matches_committed);
	CU_add_test(s, "specs/onnx/imported all PASS against the reference",
	            test_imported_specs_pass);
}
