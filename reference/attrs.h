/*
 * Typed attribute lookup for op calls (qcf_attr). Where a number is
 * expected, QCF_ATTR_INT and QCF_ATTR_FLOAT are interchangeable, and a
 * one-element QCF_ATTR_INTS / QCF_ATTR_FLOATS counts as a scalar.
 */
#ifndef QREF_ATTRS_H
#define QREF_ATTRS_H

#include <stdint.h>

#include "qconform/plugin.h"

/* The attribute called name (first match), or NULL. */
const qcf_attr *qref_attr_find(const qcf_op_call *call, const char *name);

/*
 * Scalar number. Returns 1 and sets *out when present and numeric, 0 when
 * absent (*out untouched), -1 when present but not a scalar number.
 */
int qref_attr_number(const qcf_op_call *call, const char *name, double *out);

/*
 * Scalar integer. As qref_attr_number; a FLOAT value must be integral and
 * within [-2^63, 2^63) or the result is -1.
 */
int qref_attr_int(const qcf_op_call *call, const char *name, int64_t *out);

#endif
