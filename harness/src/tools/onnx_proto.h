/*
 * The onnx.proto messages of ONNX's backend node tests (model.onnx and the .pb files of
 * test_data_set_N), decoded by protobuf-c: onnx.pb-c.h and onnx.pb-c.c are what protoc-c generates
 * at build time from the onnx.proto of Debian's libonnx-dev (the Makefile), libprotobuf-c unpacks.
 * Here is what protobuf-c leaves to its caller: an unpack with bounded memory and nesting, and the
 * elements of a TensorProto as numbers.
 *
 * Every function that can fail returns 0 (or a message) on success, or -1 (NULL) with a
 * one-line reason in err.
 */
#ifndef QC_ONNX_PROTO_H
#define QC_ONNX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"

/* The most bytes an unpack takes (a node test's files are a few KiB); it keeps protobuf-c's
 * element counts, which it holds in unsigned int while it allocates, far from overflowing. */
#define QC_ONNX_MAX_BYTES ((size_t)256 << 20)

/* TensorProto.DataType (onnx/onnx.proto), with the 4-bit types of ONNX versions later than
 * the onnx.proto the code is generated from. */
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

/*
 * Unpacks a serialized ModelProto; free it with onnx__model_proto__free_unpacked(m, NULL).
 * Fails on what protobuf-c refuses (a truncated field, a length past the end, a wire type
 * that does not fit the field, a group), on more than QC_ONNX_MAX_BYTES, and when the
 * decoded messages would take more than 64 bytes per byte read (and 1 MiB; 1 GiB at most) or
 * nest deeper than a bounded stack allows (protobuf-c recurses once per nested message and
 * has no limit of its own).
 */
Onnx__ModelProto *qc_onnx_model_unpack(const void *data, size_t len, char *err, size_t err_size);

/* A TensorProto and, once qc_onnx_tensor_decode has run, its elements. */
typedef struct qc_onnx_tensor {
	const Onnx__TensorProto *pb;
	Onnx__TensorProto *owned; /* pb when qc_onnx_tensor_read unpacked it, else NULL */
	/* pb's fields the importer reads */
	const char *name; /* "" if absent */
	int32_t data_type;
	size_t n_dims;
	const int64_t *dims;
	/* Filled by qc_onnx_tensor_decode: the elements, row-major; ints for the
	 * integer types and bool, reals for float, double, float16, bfloat16. */
	size_t count;
	int is_real;
	int64_t *ints;
	double *reals;
} qc_onnx_tensor;

/* Unpacks a serialized TensorProto (a test_data_set_N/input_K.pb), as
 * qc_onnx_model_unpack does a model. Free with qc_onnx_tensor_free. */
int qc_onnx_tensor_read(qc_onnx_tensor **t, const void *data, size_t len, char *err,
                        size_t err_size);
/* A tensor of a model (an initializer): pb stays the model's. NULL if out of memory. */
qc_onnx_tensor *qc_onnx_tensor_of(const Onnx__TensorProto *pb);
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
 * UNDEFINED), external or segmented data are errors.
 */
int qc_onnx_tensor_decode(qc_onnx_tensor *t, char *err, size_t err_size);

/* "FLOAT", "UINT8", ...; "type 42" for numbers onnx.proto does not name
 * (static buffer for those). */
const char *qc_onnx_dtype_name(int32_t data_type);

#endif
