/*
 * qref: the reference kernels' native API.
 *
 * The reference judges every vendor, so it is portable C with no
 * dependency, compiled with -ffp-contract=off, float vs double explicit.
 * The harness links it directly (qref_execute) to compute expected outputs;
 * reference/plugin.c wraps the same entry points in the plugin ABI so the
 * reference can also be run as a kernel under test.
 *
 * Operators, their inputs, outputs and attributes are listed in
 * specs/README.md ("Operators") and, for programs, in the schemas below
 * (qref_op_schema, each in its op's row: reference/op.h).
 */
#ifndef QREF_H
#define QREF_H

#include "qconform/plugin.h"

#define QREF_MAX_OUTPUTS 4

/*
 * Named roundings. A spec's tolerance may list the legal roundings of an op
 * (`rounding: [double, single]`, `[half_even, half_away, half_up]`); the
 * harness then asks the reference for the output under each and accepts an
 * element between the lowest and the highest. Each kernel honours the
 * roundings that name what it rounds and answers QCF_NOT_SUPPORTED, with the
 * message "<op>: rounding '<name>' does not apply (it rounds <what>)", to
 * the others:
 *
 *   op                                 rounds                       default    applies
 *   litert QUANTIZE float -> int       x / scale                    half_away  half_*
 *   litert QUANTIZE int -> int         (q - zp_in) * s_in / s_out   double     double, single
 *   litert DEQUANTIZE                  nothing                      -          default only
 *   litert CONV_2D, DEPTHWISE_CONV_2D  acc * s_in * s_w / s_out     double     double, single
 *                                      (integer multiplier)
 *   litert FULLY_CONNECTED             the same, by an integer      double     double, single,
 *                                      multiplier or in double                 half_* (half_away:
 *                                      precision                               FULLY_CONNECTED_REF)
 *   torch fake_quantize_* (all four)   x * inv (int zero point),    half_even  half_*
 *                                      zp + x * inv (float zp)
 *   tf fake_quant_with_min_max_*       the scaled value v           half_up    half_*
 *                                      (half_up is floorf(v + 0.5f), the default, exactly)
 *   onnx QuantizeLinear                x / scale                    half_even  half_*
 *   onnx DequantizeLinear              nothing                      -          default only
 *
 * Only the named rounding changes; every other operation (the float32
 * product or quotient that is rounded, the clamp, the output arithmetic)
 * stays as the op's semantics write it. A zero-initialised qref_detail (and
 * detail == NULL) means QREF_ROUND_DEFAULT.
 */
typedef enum qref_rounding {
	QREF_ROUND_DEFAULT = 0, /* what the op's semantics do */
	/* LiteRT MultiplyByQuantizedMultiplier builds (integer requantization) */
	QREF_ROUND_DOUBLE = 1, /* default build: SRDHM then RDBPOT */
	QREF_ROUND_SINGLE = 2, /* TFLITE_SINGLE_ROUNDING=1 build */
	/* rounding a real value to an integer; the name says where ties go */
	QREF_ROUND_HALF_EVEN = 3, /* to even */
	QREF_ROUND_HALF_AWAY = 4, /* away from zero */
	QREF_ROUND_HALF_UP = 5,   /* toward +infinity */
	QREF_ROUND_HALF_DOWN = 6  /* toward -infinity */
} qref_rounding;

#define QREF_ROUND_COUNT 7

/* "default", "double", "single", "half_even", "half_away", "half_up",
 * "half_down"; "unknown" for a value outside the enum. */
const char *qref_rounding_name(qref_rounding rounding);

/* The qref_rounding called name (as above), or -1 if unknown or NULL. */
int qref_rounding_parse(const char *name);

/*
 * What the reference knows about each output element beyond its value.
 * Every array is caller-allocated with one entry per output element (or
 * NULL when the caller does not want it) and zero-initialised by the caller.
 *  any[i]  = 1: the semantics leave element i unpredictable (e.g. torch
 *            fake quantization of NaN or inf); any value in [lo[i], hi[i]]
 *            is accepted (for integer outputs lo/hi are the dtype's range).
 *  step[i] > 0: float output on a quantization grid with this step (the
 *            scale of element i's channel); errors are reported in steps.
 */
typedef struct qref_output_detail {
	uint8_t *any;
	double *lo;
	double *hi;
	double *step;
} qref_output_detail;

/*
 * What a refusal is about, so that a host can point at what its user wrote
 * (qconform validate reports a refused case at the attribute's, the
 * tensor's or the case's line). Set with every message: by the common
 * checks (the tensor checks and qref_get_quant in kernel.c name the input or
 * output and its part; the attribute checks name the attribute) and at the
 * kernels' refusal sites that name one; every other refusal is about the op
 * as a whole (QREF_CAUSE_OP), which is also what a zero-initialised cause
 * means.
 */
typedef enum qref_cause_kind {
	QREF_CAUSE_OP = 0,     /* the call as a whole, or a rule that ties several parts */
	QREF_CAUSE_ATTR = 1,   /* the attribute named attr */
	QREF_CAUSE_INPUT = 2,  /* input index, its part */
	QREF_CAUSE_OUTPUT = 3, /* output index, its part */
	QREF_CAUSE_INPUTS = 4  /* the number of inputs or outputs */
} qref_cause_kind;

typedef enum qref_tensor_part {
	QREF_PART_TENSOR = 0, /* the tensor as a whole (or several of its parts) */
	QREF_PART_DTYPE = 1,
	QREF_PART_SHAPE = 2,
	QREF_PART_QUANT = 3, /* its quantization parameters */
	QREF_PART_DATA = 4   /* its values (an index tensor's entries, a buffer) */
} qref_tensor_part;

typedef struct qref_cause {
	qref_cause_kind kind;
	int index;             /* QREF_CAUSE_INPUT / _OUTPUT: which tensor */
	qref_tensor_part part; /* QREF_CAUSE_INPUT / _OUTPUT: which part of it */
	char attr[64];         /* QREF_CAUSE_ATTR: the attribute's name */
} qref_cause;

/*
 * Several roundings from one call. An op whose cost is its accumulation
 * (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) computes the accumulators
 * once and requantizes them under `rounding` into call->outputs and under
 * every rounding r with extra[r][k] != NULL into extra[r][k] (a buffer like
 * call->outputs[k]'s data: same dtype, element count and size). It sets bit
 * r of extra_done for each such r it wrote; a rounding it refuses, and every
 * rounding of a kernel that does not read extra, stays unset, and the
 * caller computes it with a call of its own (which also gives the refusal's
 * message). The element details (out) and the status are those of
 * `rounding` alone. qref_execute clears extra_done and default_rounding.
 */
typedef struct qref_detail {
	qref_rounding rounding;                   /* in: see qref_rounding */
	qref_output_detail out[QREF_MAX_OUTPUTS]; /* in: buffers; out: filled */
	char message[256]; /* out: for QCF_INVALID_PARAM, the rule that failed */
	qref_cause cause;  /* out: with message, what it is about */
	void *extra[QREF_ROUND_COUNT][QREF_MAX_OUTPUTS]; /* in: outputs under other roundings */
	uint32_t extra_done;                             /* out: bit r: extra[r] written */
	/* out: the named rounding QREF_ROUND_DEFAULT is for this call (its outputs are those of
	 * that rounding: the "default" column above), set by every kernel that accepts a named
	 * rounding; QREF_ROUND_DEFAULT for the kernels that accept none */
	qref_rounding default_rounding;
} qref_detail;

/*
 * The operators' schemas: for every op the reference implements, its inputs
 * (names in ABI order; the ones past min_inputs are optional), its outputs
 * and its attributes with their types, ranges or values and defaults. The
 * reference reads attributes only through reference/attrs.c, which counts a
 * read of a name the op's schema does not list (a test keeps that at zero),
 * so the schema and the kernels cannot drift apart; qconform validate checks
 * every spec's attributes against it.
 */
typedef enum qref_attr_type {
	QREF_ATTR_INT = 1,   /* an integer (an integral float, a one-element list) in [min, max] */
	QREF_ATTR_BOOL = 2,  /* 0 or 1 (true, false) */
	QREF_ATTR_FLOAT = 3, /* a number (an integer, a one-element list) in [min, max]; */
	                     /* min_open: > min */
	QREF_ATTR_ENUM = 4,  /* a string among names; by_index: or its index as an integer */
	QREF_ATTR_INTS = 5   /* a list of integers, each in [min, max] (one integer: a list of */
	                     /* one) */
} qref_attr_type;

typedef struct qref_attr_schema {
	const char *name;
	qref_attr_type type;
	int required; /* 1: the kernel refuses a call without it */
	double min, max;
	int min_open;
	const char *const *names; /* QREF_ATTR_ENUM: the values, NULL-terminated */
	int by_index;
	const char *def; /* the value when absent, as text; NULL when required */
} qref_attr_schema;

#define QREF_MAX_SCHEMA_TENSORS 24

typedef struct qref_op_schema {
	const char *semantics;
	const char *op;
	const char *const *inputs; /* NULL-terminated; input k >= their count is named as */
	                           /* the last (CONCATENATION's 1..16 values) */
	int min_inputs, max_inputs;
	const char *const *outputs;    /* NULL-terminated, one per output */
	int n_outputs;                 /* the outputs' count, or their maximum (min_outputs) */
	const qref_attr_schema *attrs; /* ends with a NULL name */
	int min_outputs;               /* 0: exactly n_outputs; else n_outputs is the maximum */
} qref_op_schema;

/* The schema of semantics / op, or NULL when the reference has no such op. */
const qref_op_schema *qref_op_schema_find(const char *semantics, const char *op);

/* Schema i (0, 1, ...) of every op the reference implements; NULL past the last. */
const qref_op_schema *qref_op_schema_at(int i);

/* The attribute called name of op's schema, or NULL. */
const qref_attr_schema *qref_attr_schema_find(const qref_op_schema *op, const char *name);

/* The name of input (is_output 0) or output k of op ("input 3" beyond the schema). */
const char *qref_schema_tensor_name(const qref_op_schema *op, int is_output, int k, char *buf,
                                    size_t size);

/*
 * Checks value a against attribute schema s, as the kernels read it (types
 * as in reference/attrs.h). 0 if it fits; -1 with the reason in message
 * ("must be an integer >= 1, got 0"; size bytes, NUL-terminated).
 */
int qref_attr_check(const qref_attr_schema *s, const qcf_attr *a, char *message, size_t size);

/* QCF_OK if the reference implements call->semantics / call->op. */
qcf_status qref_supports(const qcf_op_call *call);

/*
 * Computes call->outputs from call->inputs. Checks every parameter rule of
 * the semantics first and returns QCF_INVALID_PARAM (message in detail,
 * when given) without writing outputs if one fails. detail may be NULL.
 */
qcf_status qref_execute(const qcf_op_call *call, qref_detail *detail);

/*
 * A chain (plugin.h version 3, qcf_call_chain(call) != NULL): qref_execute computes it the
 * way the graph writes it, node by node with the reference's kernels, every intermediate
 * quantized as declared into the chain's intermediate buffers (reference/chain.c). A named
 * rounding applies to the nodes that have it (the others round as they always do); a
 * refusal names the node ("CONV_2D+RELU6: node 2 (RELU6): ..."). qref_supports answers for
 * every node.
 */
#define QREF_CHAIN_MAX_NODES   8
#define QREF_CHAIN_MAX_TENSORS 16
qcf_status qref_chain_execute(const qcf_op_call *call, qref_detail *detail);

/*
 * Real-valued outputs, for automatic output quantization: the harness calls
 * this to choose the quantization of a quantized output (from the range of
 * the ideal result) before it runs the op.
 *
 * Writes to values (one double per element of output k, in the order of
 * call->outputs[k]'s shape) the ideal real-valued result of output k, before
 * any quantization of that output: computed in double from the real values
 * of the inputs, each dequantized with its own quantization when it is
 * quantized ((q - zp) * scale) and taken as is when it is float. Implemented:
 *  - litert QUANTIZE: float32 input: x itself; integer input (requantize):
 *    (q - zp_in) * s_in.
 *  - onnx QuantizeLinear: x itself.
 *  - litert CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: the accumulator
 *    times s_in * s_w[c], plus the bias's real value, then the fused
 *    activation (specs/litert/OPERATORS.md).
 * NaN and infinities of a float input are passed through.
 *
 * Needs the inputs (checked as the kernel checks them: counts, dtypes,
 * buffers, their quantization) and output k's shape; does not need output
 * k's quantization, data or buffer, and writes nothing to call->outputs.
 * QCF_NOT_SUPPORTED when output k of the op is not quantized (float outputs,
 * masks: DEQUANTIZE, DequantizeLinear, torch and tf fake quantization), the
 * reference has no such op, or the kernel does not implement the inputs;
 * QCF_INVALID_PARAM for inputs the kernel would refuse or k outside
 * [0, n_outputs); QCF_ERROR for a NULL call or values.
 *
 * This is the hook every op with a quantized output implements next to its
 * kernel (CONV_2D, FULLY_CONNECTED, ADD, ...: the accumulator times the
 * input and weight scales, plus the bias, before requantization); the
 * per-op function is in the op's row beside its kernel (reference/op.h).
 */
qcf_status qref_real_output(const qcf_op_call *call, int k, double *values);

/* As qref_real_output; the reason for a status other than QCF_OK goes to
 * message (size bytes, NUL-terminated; "" on QCF_OK) when message != NULL. */
qcf_status qref_real_output_msg(const qcf_op_call *call, int k, double *values, char *message,
                                size_t size);

/*
 * Where an output element is and what the reference computed for it before
 * it rounded it: for the report of a failing element, a few elements at a
 * time (nothing here is on the kernels' path).
 *
 * qref_output_axes: the names of output k's axes in the op's layout, into
 * names[0 .. rank) when names is not NULL, and the axis of its output
 * channels into *channel_axis (-1: none):
 *
 *   op                                          axes                          channels
 *   litert CONV_2D, DEPTHWISE_CONV_2D,          n, h, w, c                    c
 *     AVERAGE_POOL_2D, MAX_POOL_2D,
 *     RESIZE_BILINEAR, SPACE_TO_DEPTH (rank 4)
 *   litert FULLY_CONNECTED                      batch, out_channel (rank 2);  out_channel
 *                                               d0, ..., out_channel
 *                                               (keep_num_dims)
 *   onnx QLinearConv, ConvInteger               n, c, h, w (rank 4);          c
 *                                               n, c, d2, ... (other ranks)
 *   every other op (or another rank)            d0, d1, ...                   the output's
 *                                                                             per-axis
 *                                                                             quantization
 *                                                                             axis, or none
 *
 * Reads the call's semantics and op and output k's rank and quantization.
 * Returns the rank, or -1 when output k does not exist.
 */
#define QREF_AXIS_NAME 16
int qref_output_axes(const qcf_op_call *call, int k, char (*names)[QREF_AXIS_NAME],
                     int *channel_axis);

/* What an op whose output is a requantized accumulator computed for one element before it
 * rounded it. */
typedef struct qref_terms {
	int64_t acc; /* the integer accumulator, bias included */
	/* acc * s_in * s_w[c] / s_out + zp_out in double (c the element's output channel): the
	 * exact value the requantization rounds, before the clamp to the output dtype and the
	 * fused activation */
	double real;
} qref_terms;

/*
 * terms[j] of element idx[j] (j < n) of output k, for litert CONV_2D,
 * DEPTHWISE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL, TRANSPOSE_CONV and onnx
 * QLinearConv, QLinearMatMul (output 0). Each accumulator is summed on its own (a scalar sum over
 * the element's inputs, not the kernels' blocked path). Needs the call as qref_execute does (output
 * k's quantization and buffer). QCF_OK; QCF_NOT_SUPPORTED for another op or output; the kernel's
 * refusal for a call it refuses; QCF_INVALID_PARAM for an index outside the output.
 */
qcf_status qref_element_terms(const qcf_op_call *call, int k, const size_t *idx, int n,
                              qref_terms *terms);

#endif
