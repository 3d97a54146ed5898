/*
 * The geometry of ONNX's matrix products and convolutions (onnx_linear.c), shared by the
 * quantized ops and the float32 ones of a QDQ group (onnx_float.c): numpy.matmul's batch
 * broadcasting (onnx/defs/math/utils.cc MatMulShapeInference) and convPoolShapeInference
 * (onnx/defs/nn/defs.cc) with the output shape checked.
 */
#ifndef QREF_ONNX_GEOM_H
#define QREF_ONNX_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

typedef struct qref_mm_geom {
	int64_t m, k, n;
	int32_t nb;                    /* batch dims of the output */
	int64_t bdim[QCF_MAX_RANK];    /* output batch dims */
	int64_t astride[QCF_MAX_RANK]; /* a's batch stride (in matrices) per output dim, 0 bcast */
	int64_t bstride[QCF_MAX_RANK];
	size_t nbatch;
} qref_mm_geom;

typedef struct qref_conv_geom {
	int32_t nsp; /* spatial dims */
	int64_t batch, cin, cout, group, cg, mg;
	int64_t in[QCF_MAX_RANK], k[QCF_MAX_RANK], out[QCF_MAX_RANK];
	int64_t stride[QCF_MAX_RANK], dil[QCF_MAX_RANK], pad0[QCF_MAX_RANK];
	size_t in_sp, k_sp, out_sp; /* spatial element counts */
} qref_conv_geom;

/* y = matmul(a, b)'s geometry; QCF_INVALID_PARAM (the reason in d) when the shapes do not
 * multiply or y's shape is not numpy.matmul's. */
qcf_status qref_onnx_mm_shape(const qcf_op_call *call, const qcf_tensor *a, const qcf_tensor *b,
                              const qcf_tensor *y, qref_mm_geom *g, qref_detail *d);

/* The matrix offsets (in matrices) of a and b for output batch index bi. */
void qref_onnx_mm_batch(const qref_mm_geom *g, size_t bi, int64_t *ao, int64_t *bo);

/* y = conv(x, w)'s geometry from the call's attributes (group, kernel_shape, strides,
 * dilations, pads, auto_pad); QCF_INVALID_PARAM when they or y's shape are wrong. */
qcf_status qref_onnx_conv_shape(const qcf_op_call *call, const qcf_tensor *x, const qcf_tensor *w,
                                const qcf_tensor *y, qref_conv_geom *g, qref_detail *d);

#endif
