/*
 * What the LiteRT elementwise families share (reference/litert_elementwise.c,
 * litert_arith.c): numpy broadcasting of two or three inputs against output 0,
 * the fused activation's clamp (kernel_util.cc CalculateActivationRangeQuantized)
 * and the requantization build a named rounding selects.
 */
#ifndef QREF_LITERT_BCAST_H
#define QREF_LITERT_BCAST_H

#include "kernel.h"
#include "op.h"

#define QREF_BCAST_MAX_IN 3

typedef struct qref_bcast {
	int n_in;
	int rank;
	int64_t shape[QCF_MAX_RANK];
	size_t stride[QREF_BCAST_MAX_IN][QCF_MAX_RANK]; /* aligned to the output; 0 = broadcast */
	size_t n;
} qref_bcast;

/*
 * Numpy broadcasting of inputs first .. first + n_in - 1 (trailing dimensions aligned; each
 * set equal or 1; 1 with 0 gives 0), checked against output 0's shape. max_rank: the rank
 * LiteRT's broadcast loop (named by loop) handles when the input shapes are not all equal
 * (beyond it LiteRT aborts in a TFLITE_CHECK or refuses in Prepare).
 */
qcf_status qref_bcast_init(const qcf_op_call *call, int first, int n_in, int max_rank,
                           const char *loop, qref_bcast *b, qref_detail *d);

/* Element indices idx[j] into input first + j of output element i. */
void qref_bcast_index(const qref_bcast *b, size_t i, size_t *idx);

/* The fused activations, by the names of fused_activation_function. */
enum { QREF_ACT_NONE, QREF_ACT_RELU, QREF_ACT_RELU6, QREF_ACT_RELU_N1_TO_1 };

/* fused_activation_function (NONE when absent). */
qcf_status qref_act_get(const qcf_op_call *call, int *act, qref_detail *d);

/* CalculateActivationRangeQuantized: the clamp [*lo, *hi] of an output of dtype out->dtype,
 * scale s, zero point zp (the bounds zp + (int)roundf(bound / s), float math). */
qcf_status qref_act_range(const qcf_op_call *call, int act, const qcf_tensor *out, float s,
                          int32_t zp, int32_t *lo, int32_t *hi, qref_detail *d);

/* The activation on a real value. */
double qref_act_real(int act, double v);

/* The MultiplyByQuantizedMultiplier build a named rounding selects (double by default);
 * NOT_SUPPORTED for the roundings of a real value (half_*), naming what the op rounds. */
qcf_status qref_requant_rounding(const qcf_op_call *call, qref_detail *d, const char *what,
                                 qref_rounding *rnd);

#endif
