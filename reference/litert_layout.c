/*
 * LiteRT pooling, reductions and data movement.
 * (The op table below is filled as the kernels land.)
 */
#include "kernel.h"

const qref_op_entry qref_ops_litert_layout[] = {
        {NULL, NULL, NULL, NULL},
};
