/*
 * Internal to the reference: the checks of litert_activations.c that the other LiteRT families
 * (litert_lut.c, litert_piecewise.c, litert_arith.c, litert_index.c) share. Not part of qref.h.
 */
#ifndef QREF_LITERT_ACTIVATIONS_H
#define QREF_LITERT_ACTIVATIONS_H

#include "kernel.h"

/*
 * The requantization build a named rounding selects, for ops that requantize with
 * MultiplyByQuantizedMultiplier: *build = DOUBLE or SINGLE (DOUBLE by default); other named
 * roundings do not apply (what: what the op rounds).
 */
qcf_status qref_litert_mbqm_build(const qcf_op_call *call, qref_detail *d, const char *what,
                                  qref_rounding *build);

/* A quantized tensor's per-tensor scale and zero point (what: "input", "output", ...), the scale
 * positive and finite: LiteRT divides by it or builds a multiplier from it. */
qcf_status qref_litert_act_quant(const qcf_tensor *t, const char *what, const char *op,
                                 qcf_quant *q, qref_detail *d);

/* The dtypes a quantized unary op's Eval takes (qref_litert_unary.dtypes). */
enum { QREF_UNARY_UINT8 = 1, QREF_UNARY_INT8 = 2, QREF_UNARY_INT16 = 4 };

/* A quantized LiteRT unary op, as its Prepare checks it. */
typedef struct qref_litert_unary {
	const char *op;
	unsigned dtypes;     /* QREF_UNARY_*: the dtypes of its quantized Eval */
	int int16_zp0;       /* Prepare checks that int16 zero points are 0 */
	const char *prepare; /* the function that checks them, for messages */
} qref_litert_unary;

/*
 * What a quantized LiteRT unary op's Prepare checks (RELU family, the LUT ops, HARD_SWISH):
 * counts, output shape = input shape, one dtype for both, the Eval's dtypes (float32 is
 * LiteRT's, not this reference's: QCF_NOT_SUPPORTED), per-tensor quantization with a positive
 * finite scale (LiteRT divides by it or builds a multiplier from it, mostly without a check),
 * int16 zero points 0 where Prepare checks them. full = 0 for the real-valued hook: no output
 * buffer, qo not read (NULL is fine).
 */
qcf_status qref_litert_unary_check(const qcf_op_call *call, const qref_litert_unary *u, int full,
                                   qcf_quant *qi, qcf_quant *qo, qref_detail *d);

#endif
