/*
 * A strictly bounds-checked reader of the protobuf wire format and, on it,
 * the decoding of the few onnx.proto messages the ONNX importer needs
 * (ModelProto.graph, GraphProto, NodeProto, AttributeProto, ValueInfoProto
 * name, TensorProto). Field numbers are those of onnx/onnx.proto (onnx/onnx).
 *
 * Why hand-written: Debian's protobuf C runtime (libprotobuf-c) and nanopb
 * both decode only through descriptors generated from the .proto by their
 * compilers (protoc-c, nanopb_generator), which would put a code generator
 * and generated sources into the build. The wire format is four cases and
 * the messages are six, so a small reader that checks every length against
 * the bytes left is less to trust than generated code plus a runtime.
 *
 * Every function that decodes returns 0 on success or -1 with a one-line
 * reason in err (with the byte offset in the buffer). Nothing is read past
 * the buffer, no length is trusted before it is checked, and nothing
 * recurses: the messages nest to a fixed depth (model > graph > node >
 * attribute > tensor) and subgraphs (AttributeProto.g, .graphs) are skipped.
 */
#ifndef QC_ONNXPB_H
#define QC_ONNXPB_H

#include <stddef.h>
#include <stdint.h>

/* ---- the wire format -------------------------------------------------- */

enum { QC_PB_VARINT = 0, QC_PB_I64 = 1, QC_PB_LEN = 2, QC_PB_I32 = 5 };

/* A message being read: [p, end) is what is left; base is the start of the
 * whole buffer, for offsets in error messages. */
typedef struct qc_pb {
	const uint8_t *base, *p, *end;
} qc_pb;

typedef struct qc_pb_field {
	uint32_t number;
	int wire;            /* QC_PB_VARINT, QC_PB_I64, QC_PB_LEN or QC_PB_I32 */
	uint64_t u;          /* VARINT value; I64 and I32 values as little-endian bits */
	const uint8_t *data; /* LEN: the bytes (inside the buffer) */
	size_t len;
	size_t offset; /* of the field's tag in the buffer */
} qc_pb_field;

void qc_pb_init(qc_pb *r, const void *data, size_t len);
/* A reader over a LEN field's bytes (a nested message or a packed list). */
qc_pb qc_pb_sub(const qc_pb *r, const qc_pb_field *f);

/* Reads one varint of at most 10 bytes. 0, or -1 with the reason. */
int qc_pb_varint(qc_pb *r, uint64_t *v, char *err, size_t err_size);

/* Reads the next field. 1: a field; 0: end of the message; -1: error
 * (truncated tag or value, a length past the end, field number 0, the
 * group wire types 3 and 4 or the undefined 6 and 7). */
int qc_pb_next(qc_pb *r, qc_pb_field *f, char *err, size_t err_size);

/*
 * Repeated scalar fields arrive one value per field or packed (one LEN
 * field holding the values back to back); a decoder must take both. For a
 * field f of a repeated field whose values have wire type `wire`
 * (QC_PB_VARINT, QC_PB_I64, QC_PB_I32): qc_pb_count adds to *n the number of
 * values f holds; qc_pb_values stores them (as in qc_pb_field.u) at out[*n...]
 * and advances *n, never past cap.
 */
int qc_pb_count(const qc_pb *r, const qc_pb_field *f, int wire, size_t *n, char *err,
                size_t err_size);
int qc_pb_values(const qc_pb *r, const qc_pb_field *f, int wire, uint64_t *out, size_t cap,
                 size_t *n, char *err, size_t err_size);

/* ---- onnx.proto ------------------------------------------------------- */

/* TensorProto.DataType (onnx/onnx.proto). */
enum {
	QC_ONNX_UNDEFINED = 0,
	QC_ONNX_FLOAT = 1,
	QC_ONNX_UINT8 = 2,
	QC_ONNX_INT8 = 3,
	QC_ONNX_UINT16 = 4,
	QC_ONNX_INT16 = 5,
	QC_ONNX_INT32 = 6,
	QC_ONNX_INT64 = 7,
	QC_ONNX_STRING = 8,
	QC_ONNX_BOOL = 9,
	QC_ONNX_FLOAT16 = 10,
	QC_ONNX_DOUBLE = 11,
	QC_ONNX_UINT32 = 12,
	QC_ONNX_UINT64 = 13,
	QC_ONNX_COMPLEX64 = 14,
	QC_ONNX_COMPLEX128 = 15,
	QC_ONNX_BFLOAT16 = 16,
	QC_ONNX_UINT4 = 21,
	QC_ONNX_INT4 = 22
};

/* AttributeProto.AttributeType (onnx/onnx.proto). */
enum {
	QC_ONNX_ATTR_UNDEFINED = 0,
	QC_ONNX_ATTR_FLOAT = 1,
	QC_ONNX_ATTR_INT = 2,
	QC_ONNX_ATTR_STRING = 3,
	QC_ONNX_ATTR_TENSOR = 4,
	QC_ONNX_ATTR_GRAPH = 5,
	QC_ONNX_ATTR_FLOATS = 6,
	QC_ONNX_ATTR_INTS = 7,
	QC_ONNX_ATTR_STRINGS = 8
};

typedef struct qc_arena qc_arena; /* every decoded object lives in one */

/* A byte string from the message, NUL-terminated (len excludes the NUL). */
typedef struct qc_onnx_str {
	char *s;
	size_t len;
} qc_onnx_str;

typedef struct qc_onnx_tensor {
	qc_arena *arena; /* the arena it lives in */
	qc_onnx_str name;
	int32_t data_type;
	size_t n_dims;
	int64_t *dims;
	int has_raw;
	uint8_t *raw;
	size_t raw_len;
	/* the typed fields, as read */
	size_t n_float, n_int32, n_int64, n_double, n_uint64, n_string;
	float *float_data;
	int32_t *int32_data;
	int64_t *int64_data;
	double *double_data;
	uint64_t *uint64_data;
	int external; /* data_location EXTERNAL or external_data given */
	int segment;  /* a segment of a larger tensor */
	/* Filled by qc_onnx_tensor_decode: the elements, row-major; ints for the
	 * integer types and bool, reals for float, double, float16, bfloat16. */
	size_t count;
	int is_real;
	int64_t *ints;
	double *reals;
} qc_onnx_tensor;

typedef struct qc_onnx_attr {
	qc_onnx_str name;
	int32_t type; /* QC_ONNX_ATTR_*, as given (0 if absent) */
	int has_f, has_i, has_s, has_t;
	float f;
	int64_t i;
	qc_onnx_str s;
	qc_onnx_tensor *t;
	size_t n_floats, n_ints;
	float *floats;
	int64_t *ints;
	size_t n_other; /* strings, tensors, graphs, g, sparse tensors, ref_attr_name */
} qc_onnx_attr;

typedef struct qc_onnx_node {
	size_t n_inputs, n_outputs, n_attrs;
	qc_onnx_str *inputs, *outputs;
	qc_onnx_str op_type, domain;
	qc_onnx_attr *attrs;
} qc_onnx_node;

typedef struct qc_onnx_opset {
	qc_onnx_str domain;
	int64_t version;
} qc_onnx_opset;

typedef struct qc_onnx_graph {
	size_t n_nodes, n_initializers, n_inputs, n_outputs, n_sparse;
	qc_onnx_node *nodes;
	qc_onnx_tensor *initializers;
	qc_onnx_str *inputs, *outputs; /* ValueInfoProto names */
} qc_onnx_graph;

typedef struct qc_onnx_model {
	int64_t ir_version;
	int has_graph;
	qc_onnx_graph graph;
	size_t n_opsets;
	qc_onnx_opset *opsets;
	qc_arena *arena;
} qc_onnx_model;

/* Decodes a serialized ModelProto. On success the model owns an arena that
 * qc_onnx_model_free releases; on error nothing is left allocated. */
int qc_onnx_model_decode(qc_onnx_model *m, const void *data, size_t len, char *err,
                         size_t err_size);
void qc_onnx_model_free(qc_onnx_model *m);

/* Decodes a serialized TensorProto (a test_data_set_N/input_K.pb); its
 * elements are read by qc_onnx_tensor_decode. Free with qc_onnx_tensor_free. */
int qc_onnx_tensor_read(qc_onnx_tensor **t, const void *data, size_t len, char *err,
                        size_t err_size);
void qc_onnx_tensor_free(qc_onnx_tensor *t);

/*
 * Fills t->count and t->ints / t->reals from raw_data (little-endian,
 * fixed width; int4/uint4 two per byte, element 2i in the low nibble; bool
 * one byte, 0 or 1) or from the typed field of the data type: float_data
 * (FLOAT), int32_data (INT32, INT16, INT8, UINT16, UINT8, BOOL, and the bits
 * of FLOAT16 / BFLOAT16; INT4 / UINT4 as one packed byte per entry),
 * int64_data (INT64), double_data (DOUBLE), uint64_data (UINT32, UINT64).
 * The number of values must match the dims exactly and every value must lie
 * in its type. Types with no number per element (STRING, COMPLEX*, float8,
 * UNDEFINED), external or segmented data are errors. Needs the arena of the
 * model (or of qc_onnx_tensor_read's tensor) the tensor came from.
 */
int qc_onnx_tensor_decode(qc_onnx_tensor *t, char *err, size_t err_size);

/* "FLOAT", "UINT8", ...; "type 42" for numbers onnx.proto does not name
 * (static buffer for those). */
const char *qc_onnx_dtype_name(int32_t data_type);

#endif
