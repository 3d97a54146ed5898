/*
 * Internal to the reference: what ONNX Runtime's QLinear* family files (ort_qlinear_elementwise.c,
 * ort_qlinear_pool.c, ort_qmatmul.c, ort_qconv.c) share. Not part of qref.h.
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

#endif
