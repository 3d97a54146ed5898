#include "attrs.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "op.h"
#include "qref.h"

/* Reads of a name the op's schema (its row, op.h) does not list: a kernel that reads an
 * attribute its schema lacks is counted here, whether or not the call has it. */
static atomic_ulong unlisted_reads;
static atomic_int unlisted_first_set;
static char unlisted_first[160];

/* Which listed attributes were read (any call, present or not): [op][attribute]. */
#define MAX_OPS   QREF_ATTR_TRACKED_OPS
#define MAX_ATTRS QREF_ATTR_TRACKED_ATTRS
static atomic_bool listed_read[MAX_OPS][MAX_ATTRS];

static void note_read(const qcf_op_call *call, const char *name)
{
	const qref_op_schema *op = qref_op_schema_find(call->semantics, call->op);
	if (!op)
		return;
	const qref_attr_schema *a = qref_attr_schema_find(op, name);
	if (a) {
		ptrdiff_t i = qref_op_index(op), k = a - op->attrs;
		if (i >= 0 && i < MAX_OPS && k >= 0 && k < MAX_ATTRS)
			atomic_store(&listed_read[i][k], 1);
		return;
	}
	atomic_fetch_add(&unlisted_reads, 1);
	int expected = 0;
	if (atomic_compare_exchange_strong(&unlisted_first_set, &expected, 1))
		snprintf(unlisted_first, sizeof unlisted_first, "%s/%s reads '%s'", call->semantics,
		         call->op, name);
}

int qref_attr_was_read(const qref_op_schema *op, const qref_attr_schema *a)
{
	if (!op || !a)
		return 0;
	ptrdiff_t i = qref_op_index(op), k = a - op->attrs;
	return i >= 0 && i < MAX_OPS && k >= 0 && k < MAX_ATTRS && atomic_load(&listed_read[i][k]);
}

unsigned long qref_attr_unlisted_reads(char *first, size_t size)
{
	unsigned long n = atomic_load(&unlisted_reads);
	if (first && size)
		snprintf(first, size, "%s", n ? unlisted_first : "");
	return n;
}

const qcf_attr *qref_attr_find(const qcf_op_call *call, const char *name)
{
	if (call && name)
		note_read(call, name);
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
