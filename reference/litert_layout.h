/*
 * Internal to the reference: the shape and index helpers of litert_layout.c that the other
 * LiteRT data-movement families (litert_index.c, litert_movement.c) share. Not part of qref.h.
 */
#ifndef QREF_LITERT_LAYOUT_H
#define QREF_LITERT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "qref.h"

/* Bytes per element of the dtypes a raw copy handles (8, 16, 32 and 64 bits); 0 otherwise. */
size_t qref_litert_elem_size(qcf_dtype t);

/* 1 for the quantized dtypes the movers dequantize: int8, uint8, int16. */
int qref_litert_is_q(qcf_dtype t);

/* Row-major strides of shape (rank r; r may exceed QCF_MAX_RANK). */
void qref_litert_strides_of(int r, const int64_t *shape, int64_t *st);

/* Row-major strides of t. */
void qref_litert_strides(const qcf_tensor *t, int64_t *st);

/* Coordinates co[0 .. r-1] of flat index i of shape (rank r). */
void qref_litert_unravel(size_t i, int r, const int64_t *shape, int64_t *co);

/* 1 when t has rank rank and shape shape. */
int qref_litert_shape_is(const qcf_tensor *t, int rank, const int64_t *shape);

/* shape as "d0, d1, ..." into buf (size >= 25 bytes; stops before it would overflow). */
void qref_litert_shape_text(char *buf, size_t size, int rank, const int64_t *shape);

/* QCF_INVALID_PARAM about output 0's shape: "<op> output shape must be [shape]". */
qcf_status qref_litert_shape_mismatch(qref_detail *d, const char *op, int rank,
                                      const int64_t *shape);

/*
 * Values of index tensor input k (int32; int64 too where allow64) into v, at most max of
 * them, their count in *n; QCF_INVALID_PARAM naming `what` otherwise.
 */
qcf_status qref_litert_read_index(const qcf_op_call *call, int k, const char *what, int allow64,
                                  int64_t *v, size_t max, size_t *n, qref_detail *d);

/* Per-tensor quantization of t with a positive finite scale, or QCF_INVALID_PARAM. */
qcf_status qref_litert_get_q(const qcf_op_call *call, const qcf_tensor *t, const char *what,
                             qcf_quant *q, qref_detail *d);

#endif
