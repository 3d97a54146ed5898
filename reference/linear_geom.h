/*
 * Internal to the reference: the matrix-product and convolution geometry and the exact integer
 * convolution accumulators of onnx_linear.c, shared with ONNX Runtime's com.microsoft QLinearConv
 * and MatMulInteger16 (ort_qconv.c, ort_qmatmul.c), and the bound of a float32 sum in any order
 * (MatMulNBits, MatMulFpQ4). Not part of qref.h.
 */
#ifndef QREF_LINEAR_GEOM_H
#define QREF_LINEAR_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "qref.h"

/* numpy.matmul broadcasting (onnx/defs/math/utils.cc MatMulShapeInference). */
typedef struct qref_mm_geom {
	int64_t m, k, n;
	int32_t nb;                    /* batch dims of the output */
	int64_t bdim[QCF_MAX_RANK];    /* output batch dims */
	int64_t astride[QCF_MAX_RANK]; /* a's batch stride (in matrices) per output dim, 0 bcast */
	int64_t bstride[QCF_MAX_RANK];
	size_t nbatch;
} qref_mm_geom;

/* The geometry of y = a @ b (ranks >= 1, numpy's 1-D rules); QCF_INVALID_PARAM when K differs,
 * the batch dimensions do not broadcast or y is not the broadcast shape. */
qcf_status qref_mm_shape(const qcf_op_call *call, const qcf_tensor *a, const qcf_tensor *b,
                         const qcf_tensor *y, qref_mm_geom *g, qref_detail *d);

/* Matrix offsets (in matrices) of a and b for output batch index bi. */
void qref_mm_batch(const qref_mm_geom *g, size_t bi, int64_t *ao, int64_t *bo);

/* A convolution over NCHW x [N, C, spatial...] and w [M, C / group, kernel...]
 * (convPoolShapeInference, onnx/defs/nn/defs.cc). */
typedef struct qref_conv_geom {
	int32_t nsp; /* spatial dims */
	int64_t batch, cin, cout, group, cg, mg;
	int64_t in[QCF_MAX_RANK], k[QCF_MAX_RANK], out[QCF_MAX_RANK];
	int64_t stride[QCF_MAX_RANK], dil[QCF_MAX_RANK], pad0[QCF_MAX_RANK];
	size_t in_sp, k_sp, out_sp; /* spatial element counts */
} qref_conv_geom;

/* ONNX Conv's attributes (auto_pad, dilations, group, kernel_shape, pads, strides), as the ops
 * that take them list them (onnx_linear.c). */
extern const qref_attr_schema qref_onnx_conv_attrs[];

/* The geometry from x, w and the attributes group, kernel_shape, strides, dilations, pads and
 * auto_pad; y must be [N, M, out...]. QCF_INVALID_PARAM (with the attribute's name) otherwise. */
qcf_status qref_conv_shape(const qcf_op_call *call, const qcf_tensor *x, const qcf_tensor *w,
                           const qcf_tensor *y, qref_conv_geom *g, qref_detail *d);

/* Exact accumulators of 8-bit x and w in y's row-major (NCHW) order: the sum of (x - zx) *
 * (w - zw[m]) over the group's channels and the taps inside x (padding adds 0), plus bias[m]
 * (int32, one per output channel) when bias != NULL; zw holds nzw values (1, or M). -1 when out
 * of memory. */
int qref_conv_acc(const qref_conv_geom *g, const qcf_tensor *x, const qcf_tensor *w, int32_t zx,
                  const int32_t *zw, int32_t nzw, const qcf_tensor *bias, int64_t *acc);

/*
 * The bound of a float32 sum computed in any order (ort_contrib.c; MatMulNBits and MatMulFpQ4):
 * n parts, each carrying c roundings inside it, err at most gamma(n + c) * sum |parts| (u =
 * 2^-24, gamma(m) = m u / (1 - m u); Higham, Accuracy and Stability of Numerical Algorithms,
 * 3.1 and 4.2). When every part and product is a float32 and every part a multiple of 2^e with
 * sum |parts| < 2^(24 + e), every partial sum in every order is exact and the bound is 0.
 */
typedef struct qref_sum_bound {
	double mag;   /* sum |parts| */
	double extra; /* added as it is (MatMulNBits: a neighbouring int8 of A at a tie) */
	int n;        /* parts */
	int exact;    /* every part and product a float32 so far */
	int emin;     /* the smallest exponent of a part's lowest set bit */
} qref_sum_bound;
#define QREF_SUM_BOUND_INIT                                                                        \
	{                                                                                          \
		0, 0, 0, 1, INT32_MAX                                                              \
	}

/* Part v, with the products p1 and p2 that formed it (each must be a float32 for exactness). */
void qref_sum_part(qref_sum_bound *b, double v, double p1, double p2);

/* The half width of the band: 0 when exact in any order, else gamma(n + c) sum |parts| plus
 * extra. */
double qref_sum_width(const qref_sum_bound *b, int c);

#endif
