/*
 * Internal to the reference: what ONNX Runtime's QLinear* family files (ort_qlinear_elementwise.c,
 * ort_qlinear_pool.c, ort_qmatmul.c, ort_qconv.c) share, and the pooling geometry that ONNX's
 * float32 AveragePool (onnx_float.c) shares with QLinearAveragePool. Not part of qref.h.
 */
#ifndef QREF_ORT_QLINEAR_H
#define QREF_ORT_QLINEAR_H

#include <stdint.h>

#include "kernel.h"

/* One tensor's per-tensor scale and zero point. */
typedef struct qref_ort_q {
	float s;
	int32_t zp;
} qref_ort_q;

/*
 * The scale and zero point of a QLinear op's tensor t (what: its role, for messages): one of
 * each (ORT: a scalar or 1-element input), the scale positive and finite (ORT reads it
 * without a check and divides by it, or by a quotient of scales), the zero point of t's type
 * (ORT's zero-point inputs have the type T).
 */
qcf_status qref_ort_param(const qcf_op_call *call, const qcf_tensor *t, const char *what,
                          qref_ort_q *p, qref_detail *d);

/*
 * MLAS's MlasRequantizeOutput (onnxruntime/core/mlas/lib/quantize.cpp) of one int32
 * accumulator (ort_qmatmul.c; QGemm, QLinearConv): float32(acc) * scale in float32, clamped to
 * [lo - zp, hi - zp], rounded half to even, plus zp; lo, hi: the output type's range.
 */
double qref_mlas_requantize(int32_t acc, float scale, int32_t zp, double lo, double hi);

/* A pooling call's geometry (ort_qlinear_pool.c): ORT's PoolAttributes output sizes. */
typedef struct qref_pool_geom {
	int32_t nsp;       /* spatial dimensions */
	int channels_last; /* x is [N, spatial..., C] */
	int64_t batch, ch; /* N, C */
	int64_t in[QCF_MAX_RANK], out[QCF_MAX_RANK];
	int64_t k[QCF_MAX_RANK], stride[QCF_MAX_RANK], dil[QCF_MAX_RANK];
	int64_t pad0[QCF_MAX_RANK], pad1[QCF_MAX_RANK];
	size_t in_sp, out_sp, k_sp;
} qref_pool_geom;

/* The geometry of x -> y from kernel_shape, strides, pads, auto_pad, ceil_mode (and dilations
 * when dilated): y's shape must be the one ORT computes; QCF_INVALID_PARAM otherwise. */
qcf_status qref_pool_shape(const qcf_op_call *call, int dilated, int channels_last,
                           qref_pool_geom *g, qref_detail *d);

/* Offset of element (n, c, spatial position sp) of a tensor of spatial size spn. */
size_t qref_pool_off(const qref_pool_geom *g, int64_t n, int64_t c, size_t sp, size_t spn);

/* The spatial offsets in x of output position os's taps inside x (row-major order of the
 * window), into taps (room for k_sp); returns their number. */
size_t qref_pool_taps(const qref_pool_geom *g, size_t os, size_t *taps);

#endif
