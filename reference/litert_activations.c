/*
 * LiteRT SOFTMAX, LOGISTIC, TANH, L2_NORMALIZATION, LOG_SOFTMAX (fixed point).
 * (The op table below is filled as the kernels land.)
 */
#include "kernel.h"

const qref_op_entry qref_ops_litert_activations[] = {
        {NULL, NULL, NULL, NULL},
};
