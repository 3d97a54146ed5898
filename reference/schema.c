/*
 * The generic side of the operators' schemas (qref.h): attribute lookup and checking, tensor
 * names. The schemas themselves are in the ops' rows (op.h), in the family files beside the
 * kernels that read them. The documentation of each op is in specs/<semantics>/OPERATORS.md
 * (specs/README.md, "Operators"); attribute names are the frameworks' own (TFLite's option
 * names, ONNX's attributes, torch's and TensorFlow's arguments).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "op.h"
#include "qref.h"

const qref_attr_schema qref_no_attrs[] = {END};

const qref_attr_schema *qref_attr_schema_find(const qref_op_schema *op, const char *name)
{
	if (!op || !name)
		return NULL;
	for (const qref_attr_schema *a = op->attrs; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

const char *qref_schema_tensor_name(const qref_op_schema *op, int is_output, int k, char *buf,
                                    size_t size)
{
	const char *const *names = op ? (is_output ? op->outputs : op->inputs) : NULL;
	int n = 0;
	while (names && names[n])
		n++;
	if (k >= 0 && k < n)
		return names[k];
	if (k >= 0 && n && !is_output && op->max_inputs > n)
		return names[n - 1]; /* CONCATENATION's values */
	snprintf(buf, size, "%s %d", is_output ? "output" : "input", k);
	return buf;
}

/* "an integer", "an integer >= 1", "an integer in [2, 16]", "a number > 0" */
static void describe(const qref_attr_schema *s, const char *what, char *buf, size_t size)
{
	int lo = s->min > -INF, hi = s->max < INF;
	if (lo && hi)
		snprintf(buf, size, "%s in [%.17g, %.17g]", what, s->min, s->max);
	else if (lo)
		snprintf(buf, size, "%s %s %.17g", what, s->min_open ? ">" : ">=", s->min);
	else if (hi)
		snprintf(buf, size, "%s <= %.17g", what, s->max);
	else
		snprintf(buf, size, "%s", what);
}

static int in_range(const qref_attr_schema *s, double v)
{
	return (s->min_open ? v > s->min : v >= s->min) && v <= s->max;
}

/* The value as written, for messages. */
static void shown(const qcf_attr *a, char *buf, size_t size)
{
	switch (a->type) {
	case QCF_ATTR_INT: snprintf(buf, size, "%lld", (long long)a->v.i); break;
	case QCF_ATTR_FLOAT: snprintf(buf, size, "%.17g", a->v.f); break;
	case QCF_ATTR_STRING: snprintf(buf, size, "'%s'", a->v.s ? a->v.s : ""); break;
	default: snprintf(buf, size, "a list of %d", (int)a->count); break;
	}
}

/* One number of a (a scalar, or a one-element list); 0 when a is not one. */
static int scalar(const qcf_attr *a, double *v, int *integral)
{
	switch (a->type) {
	case QCF_ATTR_INT:
		*v = (double)a->v.i;
		*integral = 1;
		return 1;
	case QCF_ATTR_FLOAT:
		*v = a->v.f;
		*integral = 0;
		return 1;
	case QCF_ATTR_INTS:
		if (a->count != 1 || !a->v.ints)
			return 0;
		*v = (double)a->v.ints[0];
		*integral = 1;
		return 1;
	case QCF_ATTR_FLOATS:
		if (a->count != 1 || !a->v.floats)
			return 0;
		*v = a->v.floats[0];
		*integral = 0;
		return 1;
	default: return 0;
	}
}

static int is_int(double v, int integral)
{
	return integral || (v >= -0x1p63 && v < 0x1p63 && v == trunc(v));
}

int qref_attr_check(const qref_attr_schema *s, const qcf_attr *a, char *message, size_t size)
{
	char want[160], got[64];
	if (message && size)
		message[0] = '\0';
	if (!s || !a)
		return 0;
	shown(a, got, sizeof got);
	double v;
	int integral;
	switch (s->type) {
	case QREF_ATTR_INT:
	case QREF_ATTR_BOOL:
		if (s->type == QREF_ATTR_BOOL)
			snprintf(want, sizeof want, "0 or 1 (false or true)");
		else
			describe(s, "an integer", want, sizeof want);
		if (scalar(a, &v, &integral) && is_int(v, integral) && in_range(s, v))
			return 0;
		break;
	case QREF_ATTR_FLOAT:
		describe(s, "a number", want, sizeof want);
		if (scalar(a, &v, &integral) && !isnan(v) && in_range(s, v))
			return 0;
		break;
	case QREF_ATTR_ENUM: {
		size_t o = (size_t)snprintf(want, sizeof want, "one of ");
		for (int k = 0; s->names[k] && o < sizeof want; k++)
			o += (size_t)snprintf(want + o, sizeof want - o, "%s%s", k ? ", " : "",
			                      s->names[k]);
		if (s->by_index && o < sizeof want)
			snprintf(want + o, sizeof want - o, " (or its index)");
		if (a->type == QCF_ATTR_STRING && a->v.s)
			for (int k = 0; s->names[k]; k++)
				if (strcmp(a->v.s, s->names[k]) == 0)
					return 0;
		int n = 0;
		while (s->names[n])
			n++;
		if (s->by_index && a->type != QCF_ATTR_STRING && scalar(a, &v, &integral) &&
		    is_int(v, integral) && v >= 0 && v < n)
			return 0;
		break;
	}
	case QREF_ATTR_INTS: {
		if (s->min > -INF)
			snprintf(want, sizeof want, "a list of integers, each >= %.17g", s->min);
		else
			snprintf(want, sizeof want, "a list of integers");
		if (a->type == QCF_ATTR_INT || a->type == QCF_ATTR_FLOAT) {
			if (scalar(a, &v, &integral) && is_int(v, integral) && in_range(s, v))
				return 0;
			break;
		}
		if (a->type != QCF_ATTR_INTS && a->type != QCF_ATTR_FLOATS)
			break;
		int ok = a->count >= 0;
		for (int32_t k = 0; ok && k < a->count; k++) {
			double e = a->type == QCF_ATTR_INTS ? (double)a->v.ints[k] : a->v.floats[k];
			ok = is_int(e, a->type == QCF_ATTR_INTS) && in_range(s, e);
			if (!ok)
				snprintf(got, sizeof got, "%.17g at index %d", e, (int)k);
		}
		if (ok)
			return 0;
		break;
	}
	}
	if (message && size)
		snprintf(message, size, "must be %s, got %s", want, got);
	return -1;
}
