/*
 * The axes of a LiteRT reduction, shared by MEAN and SUM (litert_layout.c) and REDUCE_MAX,
 * REDUCE_MIN and REDUCE_PROD (litert_reduce.c): tflite/kernels/reduce.cc
 * (ResolveAxisForShape, GetOutputShape).
 */
#ifndef QREF_LITERT_REDUCE_H
#define QREF_LITERT_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "qref.h"

/*
 * Input 1 of call is the axis list of input 0: int32, a scalar or 1-D, each value in [-rank,
 * rank) (negative from the end), duplicates dropped. red[k] = 1 for each reduced dimension k
 * (red has QCF_MAX_RANK entries), *n = the product of their sizes. Output 0 must have the shape
 * of input 0 with the reduced dimensions dropped, or set to 1 when the attribute keep_dims is 1.
 */
qcf_status qref_litert_reduce_axes(const qcf_op_call *call, int *red, int64_t *n, qref_detail *d);

/* The flat output index of flat input index i (the reduced dimensions dropped). */
size_t qref_litert_reduce_out_index(const qcf_tensor *in, const int *red, size_t i);

#endif
