/*
 * qconform plugin ABI: the one header a kernel vendor needs.
 *
 * A plugin is a shared library that exports exactly one symbol,
 * qconform_plugin_negotiate (see QCF_ENTRY_SYMBOL). The host fills a
 * qcf_negotiation with the range of ABI versions it speaks; the plugin
 * picks one and answers with its descriptor (qcf_plugin). Everything else
 * is reached through the descriptor's function pointers.
 *
 * Rules that keep old plugins and new hosts compatible:
 *  - every extensible struct starts with struct_size; structs only grow at
 *    the end; a reader uses min(its sizeof, struct_size) bytes and treats
 *    missing fields as zero;
 *  - version numbers are plain integers (QCF_ABI_VERSION);
 *  - nothing here is C++ or needs a C++ runtime.
 *
 * Lifecycle, per plugin instance:
 *   create(options) -> { supports(call) -> prepare(call) -> execute(call)
 *   -> release } ... -> destroy
 * The host runs the plugin in a worker process: a crash or hang in a kernel
 * costs that case, never the run.
 *
 * Version history
 *   1  first version: dtypes bool..float64 (packed int4/uint4), per-tensor
 *      and per-axis quantization, typed attributes, create / supports /
 *      prepare / execute / release / destroy, status plus message.
 *      Grown since, at the end (a shorter struct_size reads as zero):
 *      qcf_quant.block_size (ONNX blocked quantization).
 */
#ifndef QCONFORM_PLUGIN_H
#define QCONFORM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QCF_ABI_VERSION     1 /* newest version this header describes */
#define QCF_ABI_VERSION_MIN 1 /* oldest version a host built from it accepts */

#if defined(_WIN32)
#define QCF_EXPORT __declspec(dllexport)
#else
#define QCF_EXPORT __attribute__((visibility("default")))
#endif

#define QCF_ENTRY_SYMBOL "qconform_plugin_negotiate"
#define QCF_MAX_RANK     8

/* Element types. Values are part of the ABI: never renumber. */
typedef enum qcf_dtype {
	QCF_DTYPE_INVALID = 0,
	QCF_BOOL = 1,  /* one byte per element, 0 or 1 */
	QCF_INT4 = 2,  /* packed two per byte: element 2i in the low nibble, */
	QCF_UINT4 = 3, /* element 2i+1 in the high nibble; int4 sign-extends */
	QCF_INT8 = 4,
	QCF_UINT8 = 5,
	QCF_INT16 = 6,
	QCF_UINT16 = 7,
	QCF_INT32 = 8,
	QCF_INT64 = 9,
	QCF_FLOAT16 = 10,  /* IEEE binary16 bits in a uint16_t */
	QCF_BFLOAT16 = 11, /* upper 16 bits of a binary32, in a uint16_t */
	QCF_FLOAT32 = 12,
	QCF_FLOAT64 = 13
} qcf_dtype;

/* Return codes of every plugin function. */
typedef enum qcf_status {
	QCF_OK = 0,
	QCF_NOT_SUPPORTED = 1, /* an answer: this op/params is not implemented */
	QCF_INVALID_PARAM = 2, /* an answer: the params break the op's rules */
	QCF_ERROR = 3          /* the plugin failed (out of memory, internal) */
} qcf_status;

/*
 * Quantization of one tensor: real = (q - zero_point) * scale.
 * Per-tensor: axis = -1, count = 1. Per-axis: scale[i], zero_point[i]
 * apply to slice i of dimension `axis`, and count = shape[axis].
 * Blocked (block_size > 0, ONNX opset 21): scales and zero_points hold a
 * tensor of the tensor's shape with dimension `axis` replaced by
 * ceil(shape[axis] / block_size), row-major, and count is its number of
 * entries; the element at coordinates (i0, ..., i_axis, ...) uses the entry
 * at (i0, ..., i_axis / block_size, ...). block_size = 0: not blocked (a
 * reader whose struct_size stops before block_size reads it as 0).
 * zero_points is always set; float_zero_points is non-NULL only where the
 * semantics use a floating-point zero point (PyTorch per-channel), and then
 * holds the exact values (zero_points holds them rounded to nearest).
 */
typedef struct qcf_quant {
	uint32_t struct_size;
	int32_t axis;
	int32_t count;
	const float *scales;
	const int32_t *zero_points;
	const float *float_zero_points;
	int32_t block_size; /* 0: not blocked; > 0: blocked, see above */
} qcf_quant;

/*
 * A tensor. Inputs must not be written (the host compares them afterwards), and may be read up
 * to 64 bytes past their end. Output data is 64-byte aligned, starts filled with values that
 * are not the answer (a poison), and must be complete when execute() returns: the host closes
 * the call's memory then, so an access from a thread of the plugin after that is a fault blamed
 * on the call.
 */
typedef struct qcf_tensor {
	uint32_t struct_size;
	const char *name;
	qcf_dtype dtype;
	int32_t rank;
	const int64_t *shape; /* rank entries; all >= 0 */
	void *data;           /* row-major, packed for int4/uint4 */
	size_t nbytes;
	const qcf_quant *quant; /* NULL: not quantized */
} qcf_tensor;

typedef enum qcf_attr_type {
	QCF_ATTR_INT = 1,    /* int64 */
	QCF_ATTR_FLOAT = 2,  /* double */
	QCF_ATTR_STRING = 3, /* NUL-terminated */
	QCF_ATTR_INTS = 4,   /* count int64 values */
	QCF_ATTR_FLOATS = 5  /* count double values */
} qcf_attr_type;

typedef struct qcf_attr {
	const char *name;
	qcf_attr_type type;
	int32_t count; /* 1 for scalars */
	union {
		int64_t i;
		double f;
		const char *s;
		const int64_t *ints;
		const double *floats;
	} v;
} qcf_attr;

/* One invocation of one operator. */
typedef struct qcf_op_call {
	uint32_t struct_size;
	const char *op;        /* spec op name: "QUANTIZE", "QuantizeLinear", ... */
	const char *semantics; /* "litert", "torch", "onnx", "tf" */
	int32_t n_inputs;
	const qcf_tensor *inputs;
	int32_t n_outputs;
	qcf_tensor *outputs; /* shapes, dtypes, quant and buffers set by the host */
	int32_t n_attrs;
	const qcf_attr *attrs;
} qcf_op_call;

typedef struct qcf_option {
	const char *key;
	const char *value;
} qcf_option;

typedef struct qcf_instance qcf_instance; /* opaque, the plugin's own */
typedef struct qcf_prepared qcf_prepared; /* opaque, one prepared call */

/*
 * The descriptor. Functions taking an instance report details of a non-OK
 * status through last_error(instance), valid until the next call.
 * Required: create, destroy, supports, execute, last_error.
 * Optional (may be NULL): prepare, release. Without prepare, execute gets
 * prepared == NULL.
 */
typedef struct qcf_plugin {
	uint32_t struct_size;
	uint32_t abi_version;
	const char *name;
	const char *version;

	qcf_status (*create)(const qcf_option *options, int32_t n_options, qcf_instance **out,
	                     char *msg, size_t msg_size);
	void (*destroy)(qcf_instance *inst);
	qcf_status (*supports)(qcf_instance *inst, const qcf_op_call *call);
	qcf_status (*prepare)(qcf_instance *inst, const qcf_op_call *call, qcf_prepared **out);
	qcf_status (*execute)(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call);
	void (*release)(qcf_instance *inst, qcf_prepared *prep);
	const char *(*last_error)(qcf_instance *inst);
} qcf_plugin;

/*
 * Negotiation. The host sets struct_size, host_min_version and
 * host_max_version. The plugin picks the highest version it speaks within
 * that range, sets abi_version and plugin, and returns QCF_OK; if there is
 * none, it returns QCF_NOT_SUPPORTED.
 */
typedef struct qcf_negotiation {
	uint32_t struct_size;
	uint32_t host_min_version;
	uint32_t host_max_version;
	uint32_t abi_version;     /* out */
	const qcf_plugin *plugin; /* out */
} qcf_negotiation;

typedef qcf_status (*qcf_negotiate_fn)(qcf_negotiation *n);

/*
 * The answer of a plugin that speaks one ABI version: refuses a negotiation
 * struct too short to take the answer (QCF_ERROR), a host whose range does
 * not hold the version (QCF_NOT_SUPPORTED), else answers with the descriptor.
 *   QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
 *   { return qcf_negotiate_answer(n, 1, &my_descriptor); }
 */
static inline qcf_status qcf_negotiate_answer(qcf_negotiation *n, uint32_t version,
                                              const qcf_plugin *plugin)
{
	if (!n || n->struct_size < offsetof(qcf_negotiation, plugin) + sizeof n->plugin)
		return QCF_ERROR;
	if (n->host_min_version > version || n->host_max_version < version)
		return QCF_NOT_SUPPORTED;
	n->abi_version = version;
	n->plugin = plugin;
	return QCF_OK;
}

/* The one exported symbol. */
QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n);

/* The dtype's name as specs and reports spell it ("int8", "bfloat16"), or "invalid". */
static inline const char *qcf_dtype_name(qcf_dtype t)
{
	static const char *const names[] = {"invalid", "bool",     "int4",    "uint4",  "int8",
	                                    "uint8",   "int16",    "uint16",  "int32",  "int64",
	                                    "float16", "bfloat16", "float32", "float64"};
	return t > QCF_DTYPE_INVALID && t <= QCF_FLOAT64 ? names[t] : "invalid";
}

/* Bytes needed for count elements of dtype (int4/uint4 round up). */
static inline size_t qcf_dtype_nbytes(qcf_dtype t, size_t count)
{
	switch (t) {
	case QCF_INT4:
	case QCF_UINT4: return (count + 1) / 2;
	case QCF_BOOL:
	case QCF_INT8:
	case QCF_UINT8: return count;
	case QCF_INT16:
	case QCF_UINT16:
	case QCF_FLOAT16:
	case QCF_BFLOAT16: return count * 2;
	case QCF_INT32:
	case QCF_FLOAT32: return count * 4;
	case QCF_INT64:
	case QCF_FLOAT64: return count * 8;
	default: return 0;
	}
}

#ifdef __cplusplus
}
#endif
#endif /* QCONFORM_PLUGIN_H */
