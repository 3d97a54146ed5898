/*
 * LiteRT ADD, SUB, MUL, MAXIMUM, MINIMUM and the comparisons.
 * (The op table below is filled as the kernels land.)
 */
#include "kernel.h"

const qref_op_entry qref_ops_litert_elementwise[] = {
        {NULL, NULL, NULL, NULL},
};
