#include "attrs.h"

#include <math.h>
#include <string.h>

const qcf_attr *qref_attr_find(const qcf_op_call *call, const char *name)
{
	if (!call || !call->attrs)
		return NULL;
	for (int32_t i = 0; i < call->n_attrs; i++) {
		const qcf_attr *a = &call->attrs[i];
		if (a->name && strcmp(a->name, name) == 0)
			return a;
	}
	return NULL;
}

/* 1: integer in *iv; 2: float in *fv; -1: not a scalar number. */
static int scalar(const qcf_attr *a, int64_t *iv, double *fv)
{
	switch (a->type) {
	case QCF_ATTR_INT: *iv = a->v.i; return 1;
	case QCF_ATTR_FLOAT: *fv = a->v.f; return 2;
	case QCF_ATTR_INTS:
		if (a->count != 1 || !a->v.ints)
			return -1;
		*iv = a->v.ints[0];
		return 1;
	case QCF_ATTR_FLOATS:
		if (a->count != 1 || !a->v.floats)
			return -1;
		*fv = a->v.floats[0];
		return 2;
	default: return -1;
	}
}

int qref_attr_number(const qcf_op_call *call, const char *name, double *out)
{
	const qcf_attr *a = qref_attr_find(call, name);
	if (!a)
		return 0;
	int64_t iv = 0;
	double fv = 0;
	switch (scalar(a, &iv, &fv)) {
	case 1: *out = (double)iv; return 1;
	case 2: *out = fv; return 1;
	default: return -1;
	}
}

int qref_attr_int(const qcf_op_call *call, const char *name, int64_t *out)
{
	const qcf_attr *a = qref_attr_find(call, name);
	if (!a)
		return 0;
	int64_t iv = 0;
	double fv = 0;
	switch (scalar(a, &iv, &fv)) {
	case 1: *out = iv; return 1;
	case 2:
		/* 0x1p63 itself does not fit */
		if (!(fv >= -0x1p63 && fv < 0x1p63) || fv != trunc(fv))
			return -1;
		*out = (int64_t)fv;
		return 1;
	default: return -1;
	}
}
