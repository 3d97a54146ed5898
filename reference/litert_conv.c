/*
 * LiteRT CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: int8 per-axis, 16x8, int4 weights.
 * (The op table below is filled as the kernels land.)
 */
#include "kernel.h"

const qref_op_entry qref_ops_litert_conv[] = {
        {NULL, NULL, NULL, NULL},
};
