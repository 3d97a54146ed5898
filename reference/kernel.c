#include "kernel.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"

static void set_cause(qref_detail *d, qref_cause_kind kind, int index, qref_tensor_part part,
                      const char *attr)
{
	memset(&d->cause, 0, sizeof d->cause);
	d->cause.kind = kind;
	d->cause.index = index;
	d->cause.part = part;
	if (attr)
		snprintf(d->cause.attr, sizeof d->cause.attr, "%s", attr);
}

qcf_status qref_fail(qref_detail *detail, qcf_status status, const char *fmt, ...)
{
	if (detail) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(detail->message, sizeof detail->message, fmt, ap);
		va_end(ap);
		set_cause(detail, QREF_CAUSE_OP, 0, QREF_PART_TENSOR, NULL);
	}
	return status;
}

qcf_status qref_fail_attr(qref_detail *detail, const char *attr, qcf_status status, const char *fmt,
                          ...)
{
	if (detail) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(detail->message, sizeof detail->message, fmt, ap);
		va_end(ap);
		set_cause(detail, QREF_CAUSE_ATTR, 0, QREF_PART_TENSOR, attr);
	}
	return status;
}

_Thread_local const qcf_op_call *qref_running_call;

/* Which tensor of the running call t is: sets the cause, or the op's when it is none. */
static void tensor_cause(qref_detail *d, const qcf_tensor *t, qref_tensor_part part)
{
	const qcf_op_call *c = qref_running_call;
	for (int32_t k = 0; c && c->inputs && k < c->n_inputs; k++)
		if (t == &c->inputs[k]) {
			set_cause(d, QREF_CAUSE_INPUT, k, part, NULL);
			return;
		}
	for (int32_t k = 0; c && c->outputs && k < c->n_outputs; k++)
		if (t == &c->outputs[k]) {
			set_cause(d, QREF_CAUSE_OUTPUT, k, part, NULL);
			return;
		}
	set_cause(d, QREF_CAUSE_OP, 0, QREF_PART_TENSOR, NULL);
}

qcf_status qref_fail_tensor(qref_detail *detail, const qcf_tensor *t, qref_tensor_part part,
                            qcf_status status, const char *fmt, ...)
{
	if (detail) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(detail->message, sizeof detail->message, fmt, ap);
		va_end(ap);
		tensor_cause(detail, t, part);
	}
	return status;
}

qcf_status qref_fail_output(qref_detail *detail, int k, qref_tensor_part part, qcf_status status,
                            const char *fmt, ...)
{
	if (detail) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(detail->message, sizeof detail->message, fmt, ap);
		va_end(ap);
		set_cause(detail, QREF_CAUSE_OUTPUT, k, part, NULL);
	}
	return status;
}

/* The cause of the message just written: input or output idx (kind "input" / "output"). */
static qcf_status at_tensor(qref_detail *d, const char *kind, int idx, qref_tensor_part part,
                            qcf_status status)
{
	if (d)
		set_cause(d, kind[0] == 'i' ? QREF_CAUSE_INPUT : QREF_CAUSE_OUTPUT, idx, part,
		          NULL);
	return status;
}

size_t qref_tensor_numel(const qcf_tensor *t)
{
	return qref_numel(t->rank, t->shape);
}

const qcf_tensor *qref_input_named(const qcf_op_call *call, int first, const char *name)
{
	for (int i = first; i < call->n_inputs; i++)
		if (call->inputs[i].name && strcmp(call->inputs[i].name, name) == 0)
			return &call->inputs[i];
	return NULL;
}

static qcf_status check_tensor(const qcf_tensor *t, const char *kind, int idx, int need_data,
                               qref_detail *d)
{
	if (t->rank < 0 || t->rank > QCF_MAX_RANK || (t->rank > 0 && !t->shape))
		return at_tensor(d, kind, idx, QREF_PART_SHAPE,
		                 qref_fail(d, QCF_INVALID_PARAM, "%s %d: bad rank %" PRId32 "",
		                           kind, idx, t->rank));
	for (int32_t k = 0; k < t->rank; k++)
		if (t->shape[k] < 0)
			return at_tensor(d, kind, idx, QREF_PART_SHAPE,
			                 qref_fail(d, QCF_INVALID_PARAM,
			                           "%s %d: negative dimension", kind, idx));
	size_t need = qcf_dtype_nbytes(t->dtype, qref_tensor_numel(t));
	if (need == 0 && qref_tensor_numel(t) > 0)
		return at_tensor(d, kind, idx, QREF_PART_DTYPE,
		                 qref_fail(d, QCF_INVALID_PARAM, "%s %d: invalid dtype %d", kind,
		                           idx, (int)t->dtype));
	if (need_data && need > 0 && (!t->data || t->nbytes < need))
		return at_tensor(d, kind, idx, QREF_PART_DATA,
		                 qref_fail(d, QCF_ERROR, "%s %d: buffer of %zu bytes, need %zu",
		                           kind, idx, t->data ? t->nbytes : 0, need));
	return QCF_OK;
}

static qcf_status check_call(const qcf_op_call *call, int n_inputs, int n_outputs, int output_data,
                             qref_detail *detail)
{
	if (call->n_inputs != n_inputs || call->n_outputs != n_outputs) {
		qcf_status s = qref_fail(
		        detail, QCF_INVALID_PARAM,
		        "%s expects %d input(s) and %d output(s), got %" PRId32 " and %" PRId32 "",
		        call->op, n_inputs, n_outputs, call->n_inputs, call->n_outputs);
		if (detail)
			set_cause(detail, QREF_CAUSE_INPUTS, 0, QREF_PART_TENSOR, NULL);
		return s;
	}
	if ((n_inputs > 0 && !call->inputs) || (n_outputs > 0 && !call->outputs))
		return qref_fail(detail, QCF_ERROR, "missing tensor array");
	for (int i = 0; i < n_inputs; i++) {
		qcf_status s = check_tensor(&call->inputs[i], "input", i, 1, detail);
		if (s != QCF_OK)
			return s;
	}
	for (int i = 0; i < n_outputs; i++) {
		qcf_status s = check_tensor(&call->outputs[i], "output", i, output_data, detail);
		if (s != QCF_OK)
			return s;
	}
	return QCF_OK;
}

qcf_status qref_check_call(const qcf_op_call *call, int n_inputs, int n_outputs,
                           qref_detail *detail)
{
	return check_call(call, n_inputs, n_outputs, 1, detail);
}

qcf_status qref_check_call_shapes(const qcf_op_call *call, int n_inputs, int n_outputs,
                                  qref_detail *detail)
{
	return check_call(call, n_inputs, n_outputs, 0, detail);
}

int qref_same_shape(const qcf_tensor *a, const qcf_tensor *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int32_t k = 0; k < a->rank; k++)
		if (a->shape[k] != b->shape[k])
			return 0;
	return 1;
}

/* Entries of a blocked scale tensor: t's shape with dimension axis replaced by
 * ceil(shape[axis] / block_size); -1 when that does not fit an int32. */
static int64_t blocked_count(const qcf_tensor *t, int32_t axis, int32_t block_size)
{
	int64_t n = 1;
	for (int32_t k = 0; k < t->rank; k++) {
		int64_t d = k == axis ? (t->shape[k] + block_size - 1) / block_size : t->shape[k];
		if (d != 0 && n > INT32_MAX / d)
			return -1;
		n *= d;
	}
	return n;
}

/*
 * As kernel.h says; also blocked quantization (qcf_quant.block_size > 0, ONNX
 * opset 21, onnx/defs/quantization/defs.cc): accepted only when per_tensor_only
 * is -1 (the ONNX Q/DQ kernels), refused otherwise; blocked needs 0 <= axis <
 * rank and count == the entries of the blocked scale tensor (t's shape with
 * dimension axis replaced by ceil(shape[axis] / block_size)). A negative
 * block_size is refused everywhere.
 */
static qcf_status get_quant(const qcf_tensor *t, const char *what, int per_tensor_only,
                            qcf_quant *q, qref_detail *detail)
{
	memset(q, 0, sizeof *q);
	if (!t->quant)
		return qref_fail(detail, QCF_INVALID_PARAM, "%s needs quantization parameters",
		                 what);
	size_t n = t->quant->struct_size < sizeof *q ? t->quant->struct_size : sizeof *q;
	memcpy(q, t->quant, n);
	if (!q->scales || !q->zero_points)
		return qref_fail(detail, QCF_INVALID_PARAM, "%s: scales and zero points missing",
		                 what);
	if (q->block_size < 0)
		return qref_fail(detail, QCF_INVALID_PARAM,
		                 "%s: block_size must be positive (0: not blocked), got %" PRId32
		                 "",
		                 what, q->block_size);
	if (q->block_size > 0 && per_tensor_only != -1)
		return qref_fail(detail, QCF_INVALID_PARAM,
		                 "%s: blocked quantization (block_size %" PRId32
		                 ") does not apply to this "
		                 "op",
		                 what, q->block_size);
	if (q->axis < 0) {
		if (q->block_size > 0)
			return qref_fail(detail, QCF_INVALID_PARAM,
			                 "%s: blocked quantization needs an axis", what);
		if (q->count != 1)
			return qref_fail(detail, QCF_INVALID_PARAM,
			                 "%s: per-tensor quantization needs count 1, got %" PRId32
			                 "",
			                 what, q->count);
		return QCF_OK;
	}
	if (per_tensor_only == 1)
		return qref_fail(detail, QCF_INVALID_PARAM,
		                 "%s must be quantized per tensor, not per axis", what);
	if (q->axis >= t->rank)
		return qref_fail(detail, QCF_INVALID_PARAM,
		                 "%s: quantization axis %" PRId32 " out of range for rank %" PRId32
		                 "",
		                 what, q->axis, t->rank);
	if (q->block_size > 0) {
		int64_t want = blocked_count(t, q->axis, q->block_size);
		if (want < 0 || (int64_t)q->count != want)
			return qref_fail(detail, QCF_INVALID_PARAM,
			                 "%s: %" PRId32 " scales for blocks of %" PRId32
			                 " along dimension %" PRId32 " of size "
			                 "%lld: the blocked scale tensor has %lld entries",
			                 what, q->count, q->block_size, q->axis,
			                 (long long)t->shape[q->axis], (long long)want);
		return QCF_OK;
	}
	if ((int64_t)q->count != t->shape[q->axis])
		return qref_fail(detail, QCF_INVALID_PARAM,
		                 "%s: %" PRId32 " scales for dimension %" PRId32 " of size %lld",
		                 what, q->count, q->axis, (long long)t->shape[q->axis]);
	return QCF_OK;
}

qcf_status qref_get_quant(const qcf_tensor *t, const char *what, int per_tensor_only, qcf_quant *q,
                          qref_detail *detail)
{
	qcf_status s = get_quant(t, what, per_tensor_only, q, detail);
	if (s != QCF_OK && detail)
		tensor_cause(detail, t, QREF_PART_QUANT);
	return s;
}

int32_t qref_quant_index(const qcf_tensor *t, const qcf_quant *q, size_t i)
{
	if (q->axis < 0)
		return 0;
	if (q->block_size <= 0 || q->axis >= t->rank)
		return qref_channel(t, q, i);
	/* blocked: the entry at i's coordinates with coordinate[axis] / block_size */
	size_t inner = 1;
	for (int32_t k = q->axis + 1; k < t->rank; k++)
		inner *= (size_t)t->shape[k];
	size_t dim = (size_t)t->shape[q->axis], bs = (size_t)q->block_size;
	size_t nb = (dim + bs - 1) / bs;
	size_t outer = i / (inner * dim), a = (i / inner) % dim, r = i % inner;
	return (int32_t)((outer * nb + a / bs) * inner + r);
}

void qref_mark_any(qref_detail *detail, int k, size_t i, double lo, double hi)
{
	if (!detail)
		return;
	qref_output_detail *o = &detail->out[k];
	if (o->any)
		o->any[i] = 1;
	if (o->lo)
		o->lo[i] = lo;
	if (o->hi)
		o->hi[i] = hi;
}

void qref_mark_exact(qref_detail *detail, int k, size_t i)
{
	if (detail && detail->out[k].any)
		detail->out[k].any[i] = 0;
}

void qref_set_step(qref_detail *detail, int k, size_t i, double step)
{
	if (detail && detail->out[k].step)
		detail->out[k].step[i] = step;
}

void qref_range_d(qcf_dtype t, double *lo, double *hi)
{
	int64_t a = 0, b = 0;
	qref_dtype_range(t, &a, &b);
	*lo = (double)a;
	*hi = (double)b;
}

double qref_clamp_d(double v, double lo, double hi)
{
	if (isnan(v) || v < lo)
		return lo;
	return v > hi ? hi : v;
}
