/*
 * Internal to the reference: the rounding checks of litert_activations.c that the other LiteRT
 * activation families (litert_lut.c, litert_piecewise.c) share. Not part of qref.h.
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

/* For ops that round nothing a named rounding selects (tables, float math, fixed-point steps
 * of their own): any named rounding does not apply. */
qcf_status qref_litert_no_rounding(const qcf_op_call *call, qref_detail *d, const char *what);

#endif
