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
 *   2  low-bit formats: float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz), float6
 *      (e3m2, e2m3), float4 e2m1, float8 e8m0, int2/uint2 and GGML's block
 *      types; qcf_quant.scale_dtype and zero_point_dtype (scales stored as
 *      float16, bfloat16, e8m0 or e4m3; float8 zero points). A host never
 *      offers a version-1 plugin a call that uses any of them.
 *      Grown since, at the end: qcf_plugin.engine (which engine ran a call:
 *      an NPU, a DSP, or a fallback to the CPU) and qcf_plugin.threads_option
 *      (the create() option that sets the kernel's threads).
 */
#ifndef QCONFORM_PLUGIN_H
#define QCONFORM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QCF_ABI_VERSION     3 /* newest version this header describes */
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
	QCF_FLOAT64 = 13,
	/*
	 * Version 2. Small floats: one byte per element unless packed; no
	 * infinities unless said. "fn": finite, NaN only at S.1111.111;
	 * "fnuz": finite, no negative zero, the one NaN is 0x80.
	 */
	QCF_FLOAT8E4M3FN = 14,   /* bias 7, max 448, NaN 0x7f/0xff */
	QCF_FLOAT8E4M3FNUZ = 15, /* bias 8, max 240, NaN 0x80 */
	QCF_FLOAT8E5M2 = 16,     /* bias 15, max 57344, IEEE infinities and NaNs */
	QCF_FLOAT8E5M2FNUZ = 17, /* bias 16, max 57344, NaN 0x80 */
	QCF_FLOAT4E2M1 = 18,     /* bias 1, max 6, no NaN; packed like int4 */
	QCF_FLOAT6E3M2 = 19,     /* bias 3, max 28, no NaN; low 6 bits of a byte */
	QCF_FLOAT6E2M3 = 20,     /* bias 1, max 7.5, no NaN; low 6 bits of a byte */
	QCF_FLOAT8E8M0 = 21,     /* 2^(e - 127), e = 0..254; 0xff NaN; no sign, no zero */
	QCF_INT2 = 22,           /* packed four per byte: element 4i in bits 0-1, */
	QCF_UINT2 = 23,          /* 4i+1 in bits 2-3, ...; int2 sign-extends */
	/*
	 * GGML's block types, as llama.cpp's ggml stores them (ggml-common.h):
	 * a row of n elements (n a multiple of the block) is n / block blocks,
	 * each a packed little-endian struct; float16 fields are IEEE binary16.
	 *   type   block bytes  layout
	 *   Q4_0   32    18     d f16, qs[16]: element j low nibble of qs[j],
	 *                       element j+16 high nibble (j < 16); x = d*(q-8)
	 *   Q4_1   32    20     d f16, m f16, qs[16] as Q4_0; x = d*q + m
	 *   Q5_0   32    22     d f16, qh[4] (bit j: 5th bit of element j), qs[16]
	 *   Q5_1   32    24     d f16, m f16, qh[4], qs[16]
	 *   Q8_0   32    34     d f16, qs[32] int8
	 *   Q8_1   32    36     d f16, s f16 (d * sum of qs), qs[32] int8
	 *   Q2_K   256   84     scales[16], qs[64], d f16, dmin f16
	 *   Q3_K   256   110    hmask[32], qs[64], scales[12], d f16
	 *   Q4_K   256   144    d f16, dmin f16, scales[12], qs[128]
	 *   Q5_K   256   176    d f16, dmin f16, scales[12], qh[32], qs[128]
	 *   Q6_K   256   210    ql[128], qh[64], scales[16] int8, d f16
	 *   Q8_K   256   292    d f32, qs[256] int8, bsums[16] int16
	 */
	QCF_GGML_Q4_0 = 32,
	QCF_GGML_Q4_1 = 33,
	QCF_GGML_Q5_0 = 34,
	QCF_GGML_Q5_1 = 35,
	QCF_GGML_Q8_0 = 36,
	QCF_GGML_Q8_1 = 37,
	QCF_GGML_Q2_K = 38,
	QCF_GGML_Q3_K = 39,
	QCF_GGML_Q4_K = 40,
	QCF_GGML_Q5_K = 41,
	QCF_GGML_Q6_K = 42,
	QCF_GGML_Q8_K = 43
} qcf_dtype;

#define QCF_DTYPE_COUNT 44 /* one past the largest value */

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
 * semantics use a floating-point zero point (PyTorch per-channel, float8
 * zero points), and then holds the exact values (zero_points holds them
 * rounded to nearest).
 * Version 2: scale_dtype is the type the model stores its scales in (0 and
 * QCF_FLOAT32: float32; QCF_FLOAT16, QCF_BFLOAT16, QCF_FLOAT8E8M0,
 * QCF_FLOAT8E4M3FN); scales still holds their values as float32, exactly.
 * zero_point_dtype is 0 for an integer zero point of the tensor's own range
 * (zero_points), or a float8 dtype whose values float_zero_points holds.
 */
typedef struct qcf_quant {
	uint32_t struct_size;
	int32_t axis;
	int32_t count;
	const float *scales;
	const int32_t *zero_points;
	const float *float_zero_points;
	int32_t block_size;         /* 0: not blocked; > 0: blocked, see above */
	qcf_dtype scale_dtype;      /* version 2; 0: float32 */
	qcf_dtype zero_point_dtype; /* version 2; 0: integer, in zero_points */
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

struct qcf_chain;

/* One invocation of one operator (or, version 3, of a chain of them: chain != NULL). */
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
	/* Version 3 (a shorter struct_size reads as NULL): NULL for a single op; else the call
	 * is the chain as one fused call: op is the chain's name ("CONV_2D+RELU6"), inputs and
	 * outputs are the graph's, n_attrs is 0, and chain lists the nodes (qcf_chain). */
	const struct qcf_chain *chain;
} qcf_op_call;

/*
 * Version 3: a chain, a small graph of single-op calls run in order (a DequantizeLinear ->
 * op -> QuantizeLinear group, a CONV_2D followed by RELU6, two requantizations). Each node is
 * a complete single-op call, exactly as the host would offer it alone. Tensors are bound by
 * name: a node's tensor named like one of the call's inputs or outputs, or like one of the
 * intermediates, is that tensor, and its data points at the same buffer. Intermediates are
 * the tensors between nodes, with their dtype, shape and quantization as the graph declares
 * them; their buffers are the host's, writable, poisoned, and the kernel may use them as
 * scratch or ignore them: only the call's outputs are judged. What a fused answer may differ
 * by from the graph's (rounding once where the graph rounds twice) is the spec's contract,
 * not the plugin's choice.
 */
typedef struct qcf_chain {
	uint32_t struct_size;
	int32_t n_nodes;
	const qcf_op_call *nodes; /* in order: each input is a graph input or an earlier output */
	int32_t n_intermediates;
	const qcf_tensor *intermediates;
} qcf_chain;

/* The chain of a call, or NULL (a single op, or a call from a host older than version 3). */
static inline const qcf_chain *qcf_call_chain(const qcf_op_call *call)
{
	return call && call->struct_size >= offsetof(qcf_op_call, chain) + sizeof call->chain
	               ? call->chain
	               : NULL;
}

typedef struct qcf_option {
	const char *key;
	const char *value;
} qcf_option;

typedef struct qcf_instance qcf_instance; /* opaque, the plugin's own */
typedef struct qcf_prepared qcf_prepared; /* opaque, one prepared call */

/*
 * Which engine ran a call, as the plugin reports it (the host cannot check it: reports and
 * certificates label it as the plugin's word). Values are part of the ABI: never renumber. A
 * call split between engines reports QCF_ENGINE_CPU when any part of it ran on the CPU.
 */
typedef enum qcf_engine_kind {
	QCF_ENGINE_UNREPORTED = 0, /* the plugin does not say */
	QCF_ENGINE_CPU = 1,        /* the application processor: a fallback, for an accelerator */
	QCF_ENGINE_NPU = 2,
	QCF_ENGINE_DSP = 3,
	QCF_ENGINE_GPU = 4,
	QCF_ENGINE_ACCELERATOR = 5, /* another accelerator */
	QCF_ENGINE_COUNT
} qcf_engine_kind;

typedef struct qcf_engine {
	uint32_t struct_size; /* set by the host */
	qcf_engine_kind kind;
	char name[64]; /* "Ethos-U55 r1", "Hexagon HTP v73", or "": NUL-terminated */
} qcf_engine;

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
	/* Optional (grown in version 2; a shorter struct_size reads as NULL): which engine ran
	 * the execute() that just returned QCF_OK for prep. Called after execute, before release,
	 * with the call's memory closed; fills out (out->struct_size is the host's) and returns
	 * QCF_OK, or anything else for "not reported". */
	qcf_status (*engine)(qcf_instance *inst, qcf_prepared *prep, qcf_engine *out);
	/* Optional (grown in version 2): the key of the create() option that sets how many
	 * threads the kernel may use ("threads", taking a decimal count), or NULL. With it,
	 * `qconform run --repeat K` runs the repetitions with other counts. */
	const char *threads_option;
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

/*
 * The lowest ABI version whose types a call uses: 3 for a chain, 2 when a tensor has a
 * version-2 dtype or its quantization a version-2 scale or zero point type, else 1. A host
 * offers a call only to a plugin that negotiated at least this version.
 */
static inline uint32_t qcf_call_abi_version(const qcf_op_call *call)
{
	if (qcf_call_chain(call))
		return 3;
	for (int32_t k = 0; call && k < call->n_inputs + call->n_outputs; k++) {
		const qcf_tensor *t =
		        k < call->n_inputs ? &call->inputs[k] : &call->outputs[k - call->n_inputs];
		const qcf_quant *q = t->quant;
		if (t->dtype > QCF_FLOAT64)
			return 2;
		if (q &&
		    q->struct_size >= offsetof(qcf_quant, zero_point_dtype) + sizeof(qcf_dtype) &&
		    ((q->scale_dtype != QCF_DTYPE_INVALID && q->scale_dtype != QCF_FLOAT32) ||
		     q->zero_point_dtype != QCF_DTYPE_INVALID))
			return 2;
	}
	return 1;
}

/* The dtype's name as specs and reports spell it ("int8", "float8e4m3fn", "ggml_q4_0"), or
 * "invalid". */
static inline const char *qcf_dtype_name(qcf_dtype t)
{
	static const char *const names[QCF_DTYPE_COUNT] = {"invalid",      "bool",
	                                                   "int4",         "uint4",
	                                                   "int8",         "uint8",
	                                                   "int16",        "uint16",
	                                                   "int32",        "int64",
	                                                   "float16",      "bfloat16",
	                                                   "float32",      "float64",
	                                                   "float8e4m3fn", "float8e4m3fnuz",
	                                                   "float8e5m2",   "float8e5m2fnuz",
	                                                   "float4e2m1",   "float6e3m2",
	                                                   "float6e2m3",   "float8e8m0",
	                                                   "int2",         "uint2",
	                                                   NULL,           NULL,
	                                                   NULL,           NULL,
	                                                   NULL,           NULL,
	                                                   NULL,           NULL,
	                                                   "ggml_q4_0",    "ggml_q4_1",
	                                                   "ggml_q5_0",    "ggml_q5_1",
	                                                   "ggml_q8_0",    "ggml_q8_1",
	                                                   "ggml_q2_k",    "ggml_q3_k",
	                                                   "ggml_q4_k",    "ggml_q5_k",
	                                                   "ggml_q6_k",    "ggml_q8_k"};
	const char *n = t > QCF_DTYPE_INVALID && t < QCF_DTYPE_COUNT ? names[t] : NULL;
	return n ? n : "invalid";
}

/* Elements per block and bytes per block of a GGML block type; 0 for other dtypes. */
static inline size_t qcf_ggml_block_elements(qcf_dtype t)
{
	return t >= QCF_GGML_Q4_0 && t <= QCF_GGML_Q8_1   ? 32
	       : t >= QCF_GGML_Q2_K && t <= QCF_GGML_Q8_K ? 256
	                                                  : 0;
}
static inline size_t qcf_ggml_block_bytes(qcf_dtype t)
{
	static const unsigned char bytes[] = {18, 20, 22, 24, 34, 36};
	static const unsigned short kbytes[] = {84, 110, 144, 176, 210, 292};
	return t >= QCF_GGML_Q4_0 && t <= QCF_GGML_Q8_1   ? bytes[t - QCF_GGML_Q4_0]
	       : t >= QCF_GGML_Q2_K && t <= QCF_GGML_Q8_K ? kbytes[t - QCF_GGML_Q2_K]
	                                                  : 0;
}

/* The engine kind's name as reports spell it ("npu", "cpu", "unreported"), or "invalid". */
static inline const char *qcf_engine_name(int kind)
{
	static const char *const names[QCF_ENGINE_COUNT] = {"unreported", "cpu", "npu",
	                                                    "dsp",        "gpu", "accelerator"};
	return kind >= 0 && kind < QCF_ENGINE_COUNT ? names[kind] : "invalid";
}

/* Bytes needed for count elements of dtype (packed types round up; a GGML type takes whole
 * blocks). */
static inline size_t qcf_dtype_nbytes(qcf_dtype t, size_t count)
{
	size_t block = qcf_ggml_block_elements(t);
	if (block)
		return (count + block - 1) / block * qcf_ggml_block_bytes(t);
	switch (t) {
	case QCF_INT2:
	case QCF_UINT2: return (count + 3) / 4;
	case QCF_INT4:
	case QCF_UINT4:
	case QCF_FLOAT4E2M1: return (count + 1) / 2;
	case QCF_BOOL:
	case QCF_INT8:
	case QCF_UINT8:
	case QCF_FLOAT8E4M3FN:
	case QCF_FLOAT8E4M3FNUZ:
	case QCF_FLOAT8E5M2:
	case QCF_FLOAT8E5M2FNUZ:
	case QCF_FLOAT6E3M2:
	case QCF_FLOAT6E2M3:
	case QCF_FLOAT8E8M0: return count;
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
