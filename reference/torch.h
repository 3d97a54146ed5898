/*
 * The PyTorch family of the reference (specs/torch/OPERATORS.md): the helpers the torch_*.c
 * files share. Each file has the rows of its ops (op.h).
 */
#ifndef QREF_TORCH_H
#define QREF_TORCH_H

#include <stdint.h>

#include "kernel.h"
#include "op.h"

/* float32, float64, float16 or bfloat16: the dtypes torch's fake quantization dispatches. */
int qref_torch_is_float(qcf_dtype t);

/* v rounded to the value an output of float dtype t stores. */
double qref_torch_to_dtype(qcf_dtype t, double v);

/* v rounded to an integer in float: nearbyintf (the current rounding mode, ties to even) as
 * torch's CPU kernels do, or the named QREF_ROUND_HALF_* (exact: an integer of a float). */
float qref_torch_round_f(float v, qref_rounding r);

/* NOT_SUPPORTED unless d's rounding is the default or a QREF_ROUND_HALF_* one; `what` says what
 * the op rounds. */
qcf_status qref_torch_check_rounding(const qcf_op_call *call, qref_detail *d, const char *what);

/* Integer attribute name (QCF_INVALID_PARAM naming it when missing or not an integer). */
qcf_status qref_torch_int_attr(const qcf_op_call *call, const char *name, int64_t *v,
                               qref_detail *d);

/*
 * One element of fake_quantize_per_tensor_affine(_cachemask) on an input of
 * dtype xt (FakeQuantPerTensorAffine.cpp, QuantizedOpKernels.cpp
 * _fake_quantize_tensor_helper): *y the output (in xt), *mask the
 * straight-through mask; returns 1 when torch leaves the element undefined
 * (NaN, inf, |q| >= 2^63). *y113 (unless NULL): the same element as torch
 * 1.13 computes it (and every release before the clamp moved ahead of the
 * int64 conversion): the same q, but (double)(clamp(q) - zp) * (double)sc in
 * double, then converted to xt, where current torch rounds (q - zp) * sc to
 * float first. The two differ for a float64 input (and for |q - zp| beyond
 * 2^24); *y113 means nothing for an undefined element.
 */
int qref_torch_pt_elem(qcf_dtype xt, double x, float sc, int64_t zp, int64_t qmin, int64_t qmax,
                       qref_rounding r, double *y, int *mask, double *y113);

/* The grid's ends [lo, hi] of either version (an undefined element takes any value there). */
void qref_torch_pt_range(qcf_dtype xt, float sc, int64_t zp, int64_t qmin, int64_t qmax, double *lo,
                         double *hi);

/* Element i of output k accepts y (current torch) and y113 (torch 1.13) when they differ. */
void qref_torch_pt_mark_113(qref_detail *d, int k, size_t i, double y, double y113);

/* One element of fake_quantize_per_channel_affine(_cachemask). */
typedef struct qref_torch_pc_out {
	double y;
	int mask;
	int ub;       /* undefined in torch: NaN, inf, |q| >= 2^63 */
	double alt_y; /* float zero point: the fused multiply-add build's value */
	int alt_mask; /* ... and its mask (== y, mask when no such build differs) */
} qref_torch_pc_out;

/*
 * The parameter checks of fake_quantize_per_channel_affine(_cachemask)
 * (FakeQuantPerChannelAffine.cpp, in torch's order) on input x, scale st and
 * zero point zt, reading the attributes axis, quant_min and quant_max.
 */
qcf_status qref_torch_pc_check(const qcf_op_call *call, const qcf_tensor *x, const qcf_tensor *st,
                               const qcf_tensor *zt, int64_t *axis, int64_t *qmin, int64_t *qmax,
                               qref_detail *d);

/* Element x of channel with scale s and zero point zp (float_zp: zp is a float zero point). */
qref_torch_pc_out qref_torch_pc_elem(qcf_dtype xt, double x, float s, double zp, int float_zp,
                                     int64_t qmin, int64_t qmax, qref_rounding r);

/* The attributes of the per-tensor and per-channel fake quantization (and of their
 * straight-through backward). */
extern const qref_attr_schema qref_torch_pt_attrs[];
extern const qref_attr_schema qref_torch_pc_attrs[];

/* The quantize_per_tensor kernel; it reads nothing of its row (row may be NULL): torch_linear.c
 * quantizes its float32 result with it. */
qcf_status qref_torch_quantize_per_tensor(const qcf_op_call *call, const qref_op *row,
                                          qref_detail *d);

/* dequantize's float32 value of element i of t (per tensor or per axis, t->quant set);
 * *ub = 1 where the per-tensor difference leaves int32 (undefined in fbgemm). */
float qref_torch_dequantize_elem(const qcf_tensor *t, size_t i, int *ub);

#endif
