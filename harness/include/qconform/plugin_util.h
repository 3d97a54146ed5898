/*
 * qconform plugin helpers: reading an op call's attributes and a tensor's element count, the
 * code every plugin otherwise writes again. Header only (static inline), C99 and C++; nothing
 * here is part of the ABI (plugin.h is), and a plugin that does not include it loses nothing.
 *
 * The readers answer 1 (read), 0 (the call has no attribute of that name) or -1 (it has one,
 * of a type or value the reader does not take), so that a plugin can tell "use the default"
 * from "refuse the call".
 */
#ifndef QCONFORM_PLUGIN_UTIL_H
#define QCONFORM_PLUGIN_UTIL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The attribute called name, or NULL. */
static inline const qcf_attr *qcf_attr_find(const qcf_op_call *call, const char *name)
{
	for (int32_t i = 0; call && name && call->attrs && i < call->n_attrs; i++)
		if (call->attrs[i].name && strcmp(call->attrs[i].name, name) == 0)
			return &call->attrs[i];
	return NULL;
}

/* A double that is an integer an int64_t holds: [-2^63, 2^63), no NaN or infinity. */
static inline int qcf_double_is_int64(double f)
{
	return f >= -9223372036854775808.0 && f < 9223372036854775808.0 && f == floor(f);
}

/* The integer of attribute a (one INT, or one FLOAT holding an integer): 1, or -1. */
static inline int qcf_attr_int_of(const qcf_attr *a, int64_t *v)
{
	if (a->type == QCF_ATTR_INT && a->count == 1) {
		*v = a->v.i;
		return 1;
	}
	if (a->type == QCF_ATTR_FLOAT && a->count == 1 && qcf_double_is_int64(a->v.f)) {
		*v = (int64_t)a->v.f;
		return 1;
	}
	return -1;
}

/* An integer: one INT, or one FLOAT holding an integer (specs write 3 and 3.0 alike). */
static inline int qcf_attr_int(const qcf_op_call *call, const char *name, int64_t *v)
{
	const qcf_attr *a = qcf_attr_find(call, name);
	return a ? qcf_attr_int_of(a, v) : 0;
}

/* A number: one FLOAT, or one INT (converted to double). */
static inline int qcf_attr_float(const qcf_op_call *call, const char *name, double *v)
{
	const qcf_attr *a = qcf_attr_find(call, name);
	if (!a)
		return 0;
	if (a->type == QCF_ATTR_FLOAT && a->count == 1) {
		*v = a->v.f;
		return 1;
	}
	if (a->type == QCF_ATTR_INT && a->count == 1) {
		*v = (double)a->v.i;
		return 1;
	}
	return -1;
}

/* A STRING (never NULL when read). */
static inline int qcf_attr_str(const qcf_op_call *call, const char *name, const char **s)
{
	const qcf_attr *a = qcf_attr_find(call, name);
	if (!a)
		return 0;
	if (a->type != QCF_ATTR_STRING || !a->v.s)
		return -1;
	*s = a->v.s;
	return 1;
}

/*
 * A list of integers into v[0..cap), its length in *count: INTS, FLOATS whose values are all
 * integers, or one INT or integral FLOAT (a list of one). -1 also when it has more than cap.
 */
static inline int qcf_attr_ints(const qcf_op_call *call, const char *name, int64_t *v, int32_t cap,
                                int32_t *count)
{
	const qcf_attr *a = qcf_attr_find(call, name);
	if (!a)
		return 0;
	if (a->type == QCF_ATTR_INT || a->type == QCF_ATTR_FLOAT) {
		if (cap < 1 || qcf_attr_int_of(a, v) != 1)
			return -1;
		*count = 1;
		return 1;
	}
	if ((a->type != QCF_ATTR_INTS && a->type != QCF_ATTR_FLOATS) || a->count < 0 ||
	    a->count > cap || (a->count > 0 && !a->v.ints))
		return -1;
	for (int32_t i = 0; i < a->count; i++) {
		if (a->type == QCF_ATTR_INTS)
			v[i] = a->v.ints[i];
		else if (qcf_double_is_int64(a->v.floats[i]))
			v[i] = (int64_t)a->v.floats[i];
		else
			return -1;
	}
	*count = a->count;
	return 1;
}

/* The number of elements of t: the product of its shape (1 at rank 0). */
static inline int64_t qcf_numel(const qcf_tensor *t)
{
	int64_t n = 1;
	for (int32_t i = 0; i < t->rank; i++)
		n *= t->shape[i];
	return n;
}

#ifdef __cplusplus
}
#endif

#endif
