/*
 * Internal to the reference: helpers shared by the kernel files (their rows are in op.h).
 * Not part of qref.h.
 */
#ifndef QREF_KERNEL_H
#define QREF_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "qref.h"

/* y = (x - zero point) * scale elementwise, in float32 (ONNX DequantizeLinear, onnx_qdq.c): every
 * element exact to the product, its step the scale; also com.microsoft DequantizeLinear. */
void qref_dequantize_linear_values(const qcf_tensor *x, const qcf_quant *q, qcf_tensor *y,
                                   qref_detail *d);

/* ONNX DynamicQuantizeLinear's arithmetic on float32 x (onnx_linear.c), also com.microsoft
 * DynamicQuantizeMatMul's A (ORT's qmath.h GetQuantizationParameter, MlasQuantizeLinear):
 * scale = (max(0, max x) - min(0, min x)) / 255 (1 when both are 0), zero point = round half to
 * even(clamp(0 - min / scale, 0, 255)), q = saturate(round half to even(x / scale) + zero
 * point), float32 throughout. 0, or -1 when x holds a NaN or an infinity (nothing written). */
int qref_dynamic_quantize_u8(const qcf_tensor *x, uint8_t *q, float *scale, int32_t *zero_point);

#if defined(__GNUC__)
#define QREF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define QREF_PRINTF(f, a)
#endif

/* Writes the message into detail (when given) and returns status; the refusal is about the
 * op as a whole (detail->cause QREF_CAUSE_OP). */
qcf_status qref_fail(qref_detail *detail, qcf_status status, const char *fmt, ...)
        QREF_PRINTF(3, 4);

/* As qref_fail, about the attribute called attr. */
qcf_status qref_fail_attr(qref_detail *detail, const char *attr, qcf_status status, const char *fmt,
                          ...) QREF_PRINTF(4, 5);

/* The call qref_execute / qref_real_output is running in this thread (NULL outside them): how
 * qref_fail_tensor and qref_get_quant know which input or output a tensor is. */
extern _Thread_local const qcf_op_call *qref_running_call;

/* As qref_fail, about part of tensor t: input or output k of the call qref_execute runs when t
 * is one of its tensors (about the op otherwise, e.g. for a tensor the kernel made). */
qcf_status qref_fail_tensor(qref_detail *detail, const qcf_tensor *t, qref_tensor_part part,
                            qcf_status status, const char *fmt, ...) QREF_PRINTF(5, 6);

/* As qref_fail, about part of output k. */
qcf_status qref_fail_output(qref_detail *detail, int k, qref_tensor_part part, qcf_status status,
                            const char *fmt, ...) QREF_PRINTF(5, 6);

/* Reads (qref_attr_find and the readers on it, reference/attrs.h) of an attribute that the
 * op's schema does not list, since the process started; the first one is described in first
 * ("litert/ADD reads 'x'", size bytes) when it is not NULL. Zero unless a kernel and its
 * schema disagree. */
unsigned long qref_attr_unlisted_reads(char *first, size_t size);

/* 1 once a kernel has read attribute a of op (a row of op's schema) in this process, whether
 * or not the call had it: a listed attribute no kernel reads would be accepted and ignored. */
int qref_attr_was_read(const qref_op_schema *op, const qref_attr_schema *a);
/* The ops and attributes per op whose reads are kept (the validate suite checks the schemas
 * stay within them). */
#define QREF_ATTR_TRACKED_OPS   512
#define QREF_ATTR_TRACKED_ATTRS 32

/*
 * Checks the counts of inputs and outputs and that every tensor's buffer
 * holds its elements (QCF_INVALID_PARAM for wrong counts, QCF_ERROR for a
 * buffer the host got wrong).
 */
qcf_status qref_check_call(const qcf_op_call *call, int n_inputs, int n_outputs,
                           qref_detail *detail);

/*
 * As qref_check_call for the inputs; outputs need a valid rank, shape and
 * dtype but no buffer (qref_real_output runs before outputs exist).
 */
qcf_status qref_check_call_shapes(const qcf_op_call *call, int n_inputs, int n_outputs,
                                  qref_detail *detail);

int qref_same_shape(const qcf_tensor *a, const qcf_tensor *b);
size_t qref_tensor_numel(const qcf_tensor *t);

/* The input called name, from index first on, or NULL: ONNX Runtime's optional inputs, which a
 * spec cannot leave as positional holes, are told apart by name. */
const qcf_tensor *qref_input_named(const qcf_op_call *call, int first, const char *name);

/*
 * Reads t->quant into *q (missing trailing fields read as zero) and checks
 * it: present; per-tensor (axis -1, count 1) or, unless per_tensor_only,
 * per-axis (0 <= axis < rank, count == shape[axis]); scales and zero points
 * present. QCF_INVALID_PARAM naming `what` otherwise.
 */
qcf_status qref_get_quant(const qcf_tensor *t, const char *what, int per_tensor_only, qcf_quant *q,
                          qref_detail *detail);

/* Index into q->scales / q->zero_points of element i of t. */
int32_t qref_quant_index(const qcf_tensor *t, const qcf_quant *q, size_t i);

/*
 * Detail writers for output k, element i; each does nothing when detail or
 * the array is NULL. qref_mark_any sets any = 1 and [lo, hi]; qref_mark_exact
 * sets any = 0.
 */
void qref_mark_any(qref_detail *detail, int k, size_t i, double lo, double hi);
void qref_mark_exact(qref_detail *detail, int k, size_t i);
void qref_set_step(qref_detail *detail, int k, size_t i, double step);

/* Integer dtype range as double (exact for every dtype here but int64). */
void qref_range_d(qcf_dtype t, double *lo, double *hi);
/* v clamped to [lo, hi]; NaN gives lo. */
double qref_clamp_d(double v, double lo, double hi);

/* ---- named roundings (rounding.c) ---- */

/* detail->rounding, or QREF_ROUND_DEFAULT when detail is NULL. */
qref_rounding qref_detail_rounding(const qref_detail *detail);

/* detail->default_rounding = rounding (when detail is not NULL): the kernel's
 * QREF_ROUND_DEFAULT outputs are those of that named rounding, so that a caller asking for
 * it does not compute it again. Kernels call it once the rounding check has passed. */
void qref_set_default_rounding(qref_detail *detail, qref_rounding rounding);

/* 1 for QREF_ROUND_HALF_EVEN, _HALF_AWAY, _HALF_UP, _HALF_DOWN. */
int qref_rounding_is_half(qref_rounding rounding);

/*
 * v rounded to an integer, ties as rounding (one of QREF_ROUND_HALF_*; any
 * other value rounds ties to even), exactly: one rounding of the real value
 * v, whatever its magnitude. A zero result keeps v's sign (as nearbyint and
 * round do); NaN and infinities are returned unchanged. For a float v the
 * result converts back to float exactly.
 */
double qref_round_half(double v, qref_rounding rounding);

/*
 * QCF_NOT_SUPPORTED with the message
 * "<op>: rounding '<name>' does not apply (it rounds <what>)".
 */
qcf_status qref_rounding_na(const qcf_op_call *call, qref_detail *detail, qref_rounding rounding,
                            const char *what);

/* For an op that rounds nothing a named rounding selects (raw copies, tables, float math,
 * fixed-point steps of its own): QCF_OK under the default, qref_rounding_na otherwise. */
qcf_status qref_no_rounding(const qcf_op_call *call, qref_detail *detail, const char *what);

/*
 * What CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED compute before they
 * requantize, for kernels built on the reference (the stubs): the caller sets
 * n = elements of output 0 and the acc and channel buffers (n entries each);
 * qref_litert_conv_terms checks the call as the kernel does (same answers)
 * and fills the rest.
 */
typedef struct qref_conv_terms {
	size_t n;         /* in: elements of output 0 */
	int64_t *acc;     /* in: buffer; out: exact accumulator, bias included */
	int32_t *channel; /* in: buffer; out: output channel of each element */
	float input_scale, output_scale;
	const float *filter_scales; /* the call's filter scales: one per channel, or one */
	int32_t n_filter_scales;
	int32_t output_zero_point;
	int32_t act_min, act_max; /* the fused activation's clamp, within the output dtype */
	int wide;                 /* 1: LiteRT accumulates in int64 (16x8, int64 bias) */
} qref_conv_terms;

qcf_status qref_litert_conv_terms(const qcf_op_call *call, qref_conv_terms *terms,
                                  qref_detail *detail);

#endif
