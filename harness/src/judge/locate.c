#include "judge/locate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/dtype.h"

int qc_along_axis(const qc_case *c, int k)
{
	int ch = -1;
	int rank = qref_output_axes(&c->call, k, NULL, &ch);
	return ch >= 0 ? ch : rank > 0 ? rank - 1 : -1;
}

void qc_coords(int32_t rank, const int64_t *shape, uint64_t index, int64_t *coords)
{
	for (int32_t d = rank - 1; d >= 0; d--) {
		uint64_t n = shape[d] > 0 ? (uint64_t)shape[d] : 1;
		coords[d] = (int64_t)(index % n);
		index /= n;
	}
}

int qc_axis_names(const qc_case *c, int k, char (*names)[QREF_AXIS_NAME], int *named)
{
	int rank = qref_output_axes(&c->call, k, names, NULL);
	*named = 0;
	for (int d = 0; d < rank; d++) {
		char plain[QREF_AXIS_NAME];
		snprintf(plain, sizeof plain, "d%d", d);
		*named |= strcmp(names[d], plain) != 0;
	}
	return rank < 0 ? 0 : rank;
}

/* The worst elements' real values in output units, v / scale + zero point, from the op's
 * real-valued output (ADD, SUB, MUL, ...: qref_real_output) when its output is quantized. */
static void real_values(const qc_case *c, const qcf_op_call *call, int k, qc_metrics *m)
{
	const qcf_tensor *y = &c->out[k];
	const qcf_quant *q = y->quant;
	if (!q || !q->scales || q->block_size > 0 || qref_dtype_is_float(y->dtype))
		return;
	size_t n = qref_numel(y->rank, y->shape);
	double *v = n ? malloc(n * sizeof *v) : NULL;
	if (v && qref_real_output(call, k, v) == QCF_OK)
		for (int w = 0; w < m->n_worst; w++) {
			size_t i = (size_t)m->worst[w].index;
			int32_t ch = q->axis >= 0 ? qref_channel(y, q, i) : 0;
			double zp = q->zero_points ? q->zero_points[ch] : 0;
			m->worst[w].real = v[i] / (double)q->scales[ch] + zp;
			m->worst[w].has_real = 1;
		}
	free(v);
}

void qc_locate_worst(const qc_case *c, const qc_expected *ref, qc_result *r)
{
	qcf_op_call call = c->call;
	call.outputs = (qcf_tensor *)ref->out; /* the call the reference answered */
	for (int k = 0; k < r->n_outputs; k++) {
		qc_metrics *m = &r->m[k];
		size_t idx[QC_WORST];
		qref_terms t[QC_WORST];
		for (int w = 0; w < m->n_worst; w++)
			idx[w] = (size_t)m->worst[w].index;
		if (!m->n_worst)
			continue;
		if (qref_element_terms(&call, k, idx, m->n_worst, t) == QCF_OK) {
			for (int w = 0; w < m->n_worst; w++) {
				m->worst[w].has_terms = m->worst[w].has_real = 1;
				m->worst[w].acc = t[w].acc;
				m->worst[w].real = t[w].real;
			}
			continue;
		}
		real_values(c, &call, k, m);
	}
}

/* Appends to buf (size bytes) at *used; nothing once it is full. */
static void put(char *buf, size_t size, size_t *used, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
	if (*used >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *used, size - *used, fmt, ap);
	va_end(ap);
	*used += n > 0 ? (size_t)n : 0;
}

void qc_worst_text(const qc_case *c, int k, const qc_worst *w, char *buf, size_t size)
{
	char names[QCF_MAX_RANK][QREF_AXIS_NAME];
	int64_t at[QCF_MAX_RANK];
	int32_t rank = c->out[k].rank < 0              ? 0
	               : c->out[k].rank > QCF_MAX_RANK ? QCF_MAX_RANK
	                                               : c->out[k].rank;
	int layout, nr = qc_axis_names(c, k, names, &layout);
	int named = layout && nr == rank;
	qc_coords(rank, c->out[k].shape, w->index, at);
	size_t used = 0;
	buf[0] = 0;
	put(buf, size, &used, "at [");
	for (int d = 0; d < rank; d++)
		put(buf, size, &used, "%s%lld", d ? "," : "", (long long)at[d]);
	put(buf, size, &used, "]");
	for (int d = 0; named && d < rank; d++)
		put(buf, size, &used, "%s%s=%lld", d ? "," : " (", names[d], (long long)at[d]);
	if (named && rank)
		put(buf, size, &used, ")");
	put(buf, size, &used, ": expected %.9g", w->expected);
	if (w->lo != w->hi)
		put(buf, size, &used, " (legal %.9g to %.9g)", w->lo, w->hi);
	put(buf, size, &used, " got %.9g", w->got);
	if (w->lo != w->hi && w->beyond == 0)
		put(buf, size, &used, ", a legal rounding");
	if (w->has_terms)
		put(buf, size, &used, ", acc %lld", (long long)w->acc);
	if (w->has_real)
		put(buf, size, &used, ", real %.9g", w->real);
}
