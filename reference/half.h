/*
 * float16 and bfloat16 as float32, the formats every other part of the reference reads (dtype.c
 * for tensors of them, ggml.c for the fp16 fields of GGML's blocks): no include of the
 * reference's own, so that both can use it.
 */
#ifndef QREF_HALF_H
#define QREF_HALF_H

#include <stdint.h>

float qref_f16_to_f32(uint16_t h);
uint16_t qref_f32_to_f16(float f); /* round to nearest even; NaN stays NaN */
float qref_bf16_to_f32(uint16_t h);
uint16_t qref_f32_to_bf16(float f); /* round to nearest even; NaN stays NaN */

#endif
