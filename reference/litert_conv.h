/*
 * The pieces of litert_conv.c that other LiteRT families share (litert_matmul.c): the geometry
 * of padding.h, the fused activation range of kernel_util.cc and the enum attributes.
 */
#ifndef QREF_LITERT_CONV_H
#define QREF_LITERT_CONV_H

#include <stdint.h>

#include "qref.h"

/* TFLite's ActivationFunctionType, in the schema's order: the index qref_litert_act_range takes
 * and the names the rows list. */
#define QREF_LITERT_ACTS   "NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"
#define QREF_LITERT_N_ACTS 6

/*
 * padding.h, SAME (same = 1) or VALID, for an image of in pixels and a kernel of k taps at the
 * given stride and dilation: *out = ComputeOutSize, *before = max(0, total) / 2 with total =
 * (out - 1) * stride + eff - in (ComputePaddingWithOffset; the odd pixel goes after). -1 when
 * VALID gives a negative size.
 */
int qref_litert_padding(int same, int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t *out,
                        int64_t *before);

/*
 * A string attribute among names[0..n), or with by_index its index in the list (the TFLite
 * schema's enum value) as an integer: its index into *out, def when absent. -1 and a
 * QCF_INVALID_PARAM message naming the attribute and the list otherwise.
 */
/* An integer attribute with a default; -1 (and a message) when present but not an integer. */
int qref_litert_int_attr(const qcf_op_call *call, const char *name, int64_t def, int64_t *out,
                         qref_detail *d);

int qref_litert_enum_attr(const qcf_op_call *call, const char *name, const char *const *names,
                          int n, int by_index, int def, int *out, qref_detail *d);

/*
 * CalculateActivationRangeQuantized (kernel_util.cc) for activation act (the index in
 * QREF_LITERT_ACTS) on output dtype dt with scale s and zero point zp: RELU [q(0), max], RELU6
 * [q(0), q(6)], RELU_N1_TO_1 [q(-1), q(1)] within the dtype, q(f) = zp + (int)roundf(f / s);
 * the others the dtype's range. QCF_INVALID_PARAM when a bound leaves int32.
 */
qcf_status qref_litert_act_range(const qcf_op_call *call, int act, qcf_dtype dt, float s,
                                 int32_t zp, int32_t *act_min, int32_t *act_max, qref_detail *d);

#endif
