/*
 * LiteRT index ops on quantized tensors: GATHER_ND, SCATTER_ND, REVERSE_V2, FILL and WHERE.
 *
 * Sources (google-ai-edge/LiteRT): tflite/kernels/{gather_nd,scatter_nd,reverse,fill,where}.cc
 * and tflite/kernels/internal/reference/{reference_ops.h (GatherNd, ScatterNd,
 * SelectTrueCoords), reverse.h, fill.h}; WrappingAdd in tflite/kernels/internal/common.h.
 * ABI, arithmetic and refusals: specs/litert/OPERATORS.md ("LiteRT index family").
 *
 * None of them requantizes: they move raw stored values (SCATTER_ND adds them, wrapping), so
 * the rigour is in the index arithmetic and in the refusals, which follow Prepare and Eval.
 * The kernels write raw values; the real-valued hooks dequantize the same raw values with the
 * data input's parameters. Shape and index helpers: litert_layout.h.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "kernel.h"
#include "litert_activations.h"
#include "litert_layout.h"
#include "op.h"

#define MAXR QCF_MAX_RANK

/* ---- common ---------------------------------------------------------------- */

static const char *dt(qcf_dtype t)
{
	return qref_dtype_name(t);
}

/* The quantized dtypes the reference implements for these ops. */
static int is_q(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8 || t == QCF_INT16;
}

/* Element i of an int16, int32 or int64 index tensor, read exactly (not through a double). */
static int64_t ival(const qcf_tensor *t, size_t i)
{
	const unsigned char *p = t->data;
	switch (t->dtype) {
	case QCF_INT16: {
		int16_t v;
		memcpy(&v, p + i * sizeof v, sizeof v);
		return v;
	}
	case QCF_INT32: {
		int32_t v;
		memcpy(&v, p + i * sizeof v, sizeof v);
		return v;
	}
	default: {
		int64_t v;
		memcpy(&v, p + i * sizeof v, sizeof v);
		return v;
	}
	}
}

/* The data dtypes LiteRT's kernel takes beyond the quantized ones (QCF_NOT_SUPPORTED here). */
static int litert_other(qcf_dtype t)
{
	return t == QCF_FLOAT32 || t == QCF_FLOAT16 || t == QCF_BFLOAT16 || t == QCF_INT32 ||
	       t == QCF_INT64 || t == QCF_BOOL;
}

static qcf_status not_implemented(const qcf_op_call *call, const char *what, qcf_dtype t,
                                  qref_detail *d)
{
	return qref_fail(d, QCF_NOT_SUPPORTED,
	                 "%s: %s of type %s is LiteRT's but the reference implements uint8, int8 "
	                 "and int16",
	                 call->op, what, dt(t));
}

/* Output values: raw (kernel) or raw dequantized with (scale, zp) (real hook). */
typedef struct sink {
	qcf_tensor *out; /* kernel */
	double *real;    /* real hook */
	double scale, zp;
} sink;

static void put(const sink *s, size_t oi, double raw)
{
	if (s->real)
		s->real[oi] = (raw - s->zp) * s->scale;
	else
		qref_set(s->out, oi, raw);
}

/* The sink of a call: kernel (values NULL) or real hook on data input k's parameters. */
static qcf_status sink_of(const qcf_op_call *call, int k, double *values, sink *s, qref_detail *d)
{
	memset(s, 0, sizeof *s);
	if (!values) {
		s->out = &call->outputs[0];
		return QCF_OK;
	}
	qcf_quant q;
	qcf_status st = qref_litert_get_q(call, &call->inputs[k], "input", &q, d);
	if (st != QCF_OK)
		return st;
	s->real = values;
	s->scale = q.scales[0];
	s->zp = q.zero_points[0];
	return QCF_OK;
}

/* ---- GATHER_ND (gather_nd.cc; reference_ops.h GatherNd) -------------------- */

/*
 * Prepare and Eval, then the gather: output = indices.shape[:-1] + params.shape[nd:], slice i
 * the params block at the nd coordinates of row i of indices. values: the real hook's.
 */
static qcf_status gather_nd(const qcf_op_call *call, double *values, qref_detail *d)
{
	qcf_status s =
	        values ? qref_check_call_shapes(call, 2, 1, d) : qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *p = &call->inputs[0], *ix = &call->inputs[1], *out = &call->outputs[0];
	if (!is_q(p->dtype)) {
		if (litert_other(p->dtype))
			return not_implemented(call, "params", p->dtype, d);
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER_ND params must be uint8, int8, int16, int32, int64, "
		                 "float32, float16, bfloat16 or bool, got %s",
		                 dt(p->dtype));
	}
	if (ix->dtype != QCF_INT16 && ix->dtype != QCF_INT32 && ix->dtype != QCF_INT64)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER_ND indices must be int16, int32 or int64, got %s",
		                 dt(ix->dtype));
	if (out->dtype != p->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER_ND output type must be the params type %s, got %s",
		                 dt(p->dtype), dt(out->dtype));
	int pr = p->rank, ir = ix->rank;
	if (pr < 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER_ND params must be at least a vector");
	if (ir < 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER_ND indices must be at least a vector");
	int64_t nd = ix->shape[ir - 1];
	if (nd > pr)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER_ND: the innermost dimension of indices (%lld) must be in "
		                 "[0, params rank %d]",
		                 (long long)nd, pr);
	int64_t want[2 * MAXR];
	int wr = 0;
	for (int k = 0; k < ir - 1; k++)
		want[wr++] = ix->shape[k];
	for (int k = (int)nd; k < pr; k++)
		want[wr++] = p->shape[k];
	if (wr > MAXR || !qref_litert_shape_is(out, wr, want))
		return qref_litert_shape_mismatch(d, "GATHER_ND", wr, want);
	size_t np = qref_tensor_numel(p), ni = qref_tensor_numel(ix);
	if (np == 0 && ni != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER_ND: empty params need empty indices (Eval)");
	for (size_t i = 0; i < ni; i++)
		if (ival(ix, i) < 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "GATHER_ND: index %lld is negative (Eval refuses any)",
			                 (long long)ival(ix, i));
	size_t slices = qref_numel(ir - 1, ix->shape);
	if (nd == 0 && slices > 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER_ND: indices [..., 0] with rows hold no data, and GatherNd "
		                 "refuses a null indices buffer (Eval)");
	for (size_t i = 0; i < slices; i++)
		for (int j = 0; j < nd; j++) {
			int64_t c = ival(ix, i * (size_t)nd + (size_t)j);
			if (c >= p->shape[j])
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "GATHER_ND: index %lld of dimension %d is out of "
				                 "range [0, %lld) (Eval)",
				                 (long long)c, j, (long long)p->shape[j]);
		}
	if (!values && (s = qref_no_rounding(call, d, "nothing: raw values are copied")) != QCF_OK)
		return s;
	sink k;
	if ((s = sink_of(call, 0, values, &k, d)) != QCF_OK)
		return s;
	int64_t st[MAXR];
	qref_litert_strides(p, st);
	size_t slice = qref_numel(pr - (int32_t)nd, p->shape + nd), oi = 0;
	for (size_t i = 0; i < slices; i++) {
		int64_t from = 0;
		for (int j = 0; j < nd; j++)
			from += ival(ix, i * (size_t)nd + (size_t)j) * st[j];
		for (size_t e = 0; e < slice; e++)
			put(&k, oi++, qref_get(p, (size_t)from + e));
	}
	return QCF_OK;
}

static qcf_status gather_nd_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	return gather_nd(call, NULL, d);
}

static qcf_status gather_nd_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                                 qref_detail *d)
{
	(void)row;
	(void)k; /* one output */
	return gather_nd(call, values, d);
}

/* ---- SCATTER_ND (scatter_nd.cc; reference_ops.h ScatterNd) ------------------ */

/* a + b on the raw stored values, wrapped to the 8-bit dtype (WrappingAdd). */
static int64_t wrap_add(qcf_dtype t, int64_t a, int64_t b)
{
	uint8_t u = (uint8_t)((uint8_t)a + (uint8_t)b);
	return t == QCF_INT8 ? (int64_t)(int8_t)u : (int64_t)u;
}

/*
 * Prepare's CheckShapes and Eval, then the scatter: the output (shape = the shape input)
 * starts at raw 0, not the zero point; row i of indices names where slice i of updates is
 * added, duplicates adding up with 8-bit wrap-around.
 */
static qcf_status scatter_nd(const qcf_op_call *call, double *values, qref_detail *d)
{
	qcf_status s =
	        values ? qref_check_call_shapes(call, 3, 1, d) : qref_check_call(call, 3, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *ix = &call->inputs[0], *up = &call->inputs[1], *sh = &call->inputs[2];
	const qcf_tensor *out = &call->outputs[0];
	if (up->dtype != QCF_INT8 && up->dtype != QCF_UINT8) {
		if (up->dtype == QCF_FLOAT32 || up->dtype == QCF_INT32 || up->dtype == QCF_INT64 ||
		    up->dtype == QCF_BOOL)
			return qref_fail(d, QCF_NOT_SUPPORTED,
			                 "SCATTER_ND: updates of type %s are LiteRT's but the "
			                 "reference implements uint8 and int8",
			                 dt(up->dtype));
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SCATTER_ND updates must be float32, uint8, int8, int32, int64 or "
		                 "bool, got %s",
		                 dt(up->dtype));
	}
	if (ix->dtype != sh->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SCATTER_ND: indices (%s) and shape (%s) must have the same type",
		                 dt(ix->dtype), dt(sh->dtype));
	if (ix->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM, "SCATTER_ND indices must be int32, got %s",
		                 dt(ix->dtype));
	if (out->dtype != up->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SCATTER_ND output type must be the updates type %s, got %s",
		                 dt(up->dtype), dt(out->dtype));
	if (ix->rank < 1 || up->rank < 1 || sh->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SCATTER_ND: indices and updates need rank >= 1, shape rank 1");
	int outer = ix->rank - 1;
	int64_t nd = ix->shape[outer];
	int64_t v[MAXR];
	size_t n;
	if ((s = qref_litert_read_index(call, 2, "shape", 0, v, MAXR, &n, d)) != QCF_OK)
		return s;
	int ok = up->rank >= outer && (int64_t)(up->rank - outer) == (int64_t)n - nd;
	for (int k = 0; ok && k < outer; k++)
		ok = ix->shape[k] == up->shape[k];
	for (int k = 0; ok && k + outer < up->rank; k++)
		ok = up->shape[k + outer] == v[nd + k];
	if (!ok)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SCATTER_ND: updates must have shape indices.shape[:-1] + "
		                 "shape[indices.shape[-1]:] (CheckShapes)");
	for (size_t k = 0; k < n; k++)
		if (v[k] < 0)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "SCATTER_ND: shape[%zu] = %lld is negative (LiteRT's output "
			        "size would be undefined)",
			        k, (long long)v[k]);
	if (!qref_litert_shape_is(out, (int)n, v))
		return qref_litert_shape_mismatch(d, "SCATTER_ND", (int)n, v);
	size_t slices = qref_numel(outer, ix->shape);
	for (size_t i = 0; i < slices; i++)
		for (int j = 0; j < nd; j++) {
			int64_t c = ival(ix, i * (size_t)nd + (size_t)j);
			if (c < 0 || c >= v[j])
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "SCATTER_ND: index %lld of dimension %d is out of "
				                 "range [0, %lld) (Eval)",
				                 (long long)c, j, (long long)v[j]);
		}
	if (!values && (s = qref_no_rounding(call, d, "nothing: raw values are added")) != QCF_OK)
		return s;
	sink k;
	if ((s = sink_of(call, 1, values, &k, d)) != QCF_OK)
		return s;
	size_t no = qref_tensor_numel(out);
	int64_t *acc = calloc(no ? no : 1, sizeof *acc);
	if (!acc)
		return qref_fail(d, QCF_ERROR, "SCATTER_ND: out of memory");
	int64_t st[MAXR];
	qref_litert_strides(out, st);
	size_t slice = qref_numel((int32_t)(n - (size_t)nd), v + nd);
	for (size_t i = 0; i < slices; i++) {
		int64_t to = 0;
		for (int j = 0; j < nd; j++)
			to += ival(ix, i * (size_t)nd + (size_t)j) * st[j];
		for (size_t e = 0; e < slice; e++) {
			int64_t *a = &acc[(size_t)to + e];
			*a = wrap_add(up->dtype, *a, (int64_t)qref_get(up, i * slice + e));
		}
	}
	for (size_t i = 0; i < no; i++)
		put(&k, i, (double)acc[i]);
	free(acc);
	return QCF_OK;
}

static qcf_status scatter_nd_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	return scatter_nd(call, NULL, d);
}

static qcf_status scatter_nd_real(const qcf_op_call *call, const qref_op *row, int k,
                                  double *values, qref_detail *d)
{
	(void)row;
	(void)k; /* one output */
	return scatter_nd(call, values, d);
}

/* ---- REVERSE_V2 (reverse.cc; internal/reference/reverse.h) ------------------ */

/* Prepare and Eval, then the copy with the coordinates of the listed axes reversed. */
static qcf_status reverse(const qcf_op_call *call, double *values, qref_detail *d)
{
	qcf_status s =
	        values ? qref_check_call_shapes(call, 2, 1, d) : qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *ax = &call->inputs[1], *out = &call->outputs[0];
	int r = in->rank;
	if (ax->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM, "REVERSE_V2: axis must be 1-D, got rank %d",
		                 (int)ax->rank);
	if (ax->shape[0] > r)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "REVERSE_V2: %lld axes for an input of rank %d",
		                 (long long)ax->shape[0], r);
	if (!is_q(in->dtype)) {
		if (litert_other(in->dtype))
			return not_implemented(call, "input", in->dtype, d);
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "REVERSE_V2 input must be int32, float32, uint8, int8, int16, "
		                 "int64, bool, float16 or bfloat16, got %s",
		                 dt(in->dtype));
	}
	int64_t a[MAXR];
	size_t n;
	if ((s = qref_litert_read_index(call, 1, "axis", 0, a, MAXR, &n, d)) != QCF_OK)
		return s;
	if (out->dtype != in->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "REVERSE_V2 output type must be the input type %s, got %s",
		                 dt(in->dtype), dt(out->dtype));
	if (!qref_litert_shape_is(out, r, in->shape))
		return qref_litert_shape_mismatch(d, "REVERSE_V2", r, in->shape);
	if (n == 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "REVERSE_V2: an empty axis list is undefined in LiteRT (Reverse "
		                 "reads axes[num_axes - 1])");
	int flip[MAXR] = {0};
	int lo = r, hi = -1;
	for (size_t k = 0; k < n; k++) {
		int64_t x = a[k] < 0 ? a[k] + r : a[k];
		if (x < 0 || x >= r)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "REVERSE_V2: axis %lld out of [-%d, %d) (Eval)",
			                 (long long)a[k], r, r);
		if (flip[x])
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "REVERSE_V2: axis %lld repeated: the sorted axes are not "
			                 "contiguous (Eval)",
			                 (long long)x);
		flip[x] = 1;
		lo = x < lo ? (int)x : lo;
		hi = x > hi ? (int)x : hi;
	}
	if ((int64_t)(hi - lo + 1) != (int64_t)n)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "REVERSE_V2: the axes must be contiguous (Eval: non-contiguous "
		                 "axes not supported)");
	if (!values && (s = qref_no_rounding(call, d, "nothing: raw values are copied")) != QCF_OK)
		return s;
	sink k;
	if ((s = sink_of(call, 0, values, &k, d)) != QCF_OK)
		return s;
	int64_t st[MAXR], co[MAXR];
	qref_litert_strides(in, st);
	size_t no = qref_tensor_numel(in);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, r, in->shape, co);
		int64_t src = 0;
		for (int j = 0; j < r; j++)
			src += (flip[j] ? in->shape[j] - 1 - co[j] : co[j]) * st[j];
		put(&k, i, qref_get(in, (size_t)src));
	}
	return QCF_OK;
}

static qcf_status reverse_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	return reverse(call, NULL, d);
}

static qcf_status reverse_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                               qref_detail *d)
{
	(void)row;
	(void)k; /* one output */
	return reverse(call, values, d);
}

/* ---- FILL (fill.cc; internal/reference/fill.h) -------------------------------- */

/* Prepare and Eval: the output of shape dims, every element the raw scalar value. */
static qcf_status fill(const qcf_op_call *call, double *values, qref_detail *d)
{
	qcf_status s =
	        values ? qref_check_call_shapes(call, 2, 1, d) : qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *dims = &call->inputs[0], *val = &call->inputs[1];
	const qcf_tensor *out = &call->outputs[0];
	if (dims->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM, "FILL: dims must be 1-D, got rank %d",
		                 (int)dims->rank);
	int64_t v[MAXR];
	size_t n;
	if ((s = qref_litert_read_index(call, 0, "dims", 1, v, MAXR, &n, d)) != QCF_OK)
		return s;
	if (val->rank != 0)
		return qref_fail(d, QCF_INVALID_PARAM, "FILL: value must be a scalar, got rank %d",
		                 (int)val->rank);
	if (out->dtype != val->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "FILL output type must be the value type %s, got %s",
		                 dt(val->dtype), dt(out->dtype));
	if (!is_q(val->dtype)) {
		if (val->dtype == QCF_INT4 || val->dtype == QCF_UINT4)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "FILL: a value of %s is refused (Eval fills 8-, 16-, 32- "
			                 "and 64-bit elements only)",
			                 dt(val->dtype));
		return qref_fail(
		        d, QCF_NOT_SUPPORTED,
		        "FILL: a value of type %s is LiteRT's (a raw copy of its bits) but "
		        "the reference implements uint8, int8 and int16",
		        dt(val->dtype));
	}
	qcf_quant qv, qo;
	if ((s = qref_get_quant(val, "FILL value", 1, &qv, d)) != QCF_OK)
		return s;
	if (!values) {
		if ((s = qref_get_quant(out, "FILL output", 1, &qo, d)) != QCF_OK)
			return s;
		if (qo.scales[0] != qv.scales[0] || qo.zero_points[0] != qv.zero_points[0])
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "FILL: output scale %.9g and zero point %" PRId32
			                 " must equal the value's %.9g and %" PRId32 " (Prepare)",
			                 (double)qo.scales[0], qo.zero_points[0],
			                 (double)qv.scales[0], qv.zero_points[0]);
	}
	if (val->dtype == QCF_INT16 && qv.zero_points[0] != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "FILL int16 needs zero point 0 (Prepare), got %" PRId32,
		                 qv.zero_points[0]);
	for (size_t k = 0; k < n; k++)
		if (v[k] < 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "FILL: dims[%zu] = %lld must be >= 0", k, (long long)v[k]);
	if (!qref_litert_shape_is(out, (int)n, v))
		return qref_litert_shape_mismatch(d, "FILL", (int)n, v);
	if (!values &&
	    (s = qref_no_rounding(call, d, "nothing: the raw value is copied")) != QCF_OK)
		return s;
	sink k;
	if ((s = sink_of(call, 1, values, &k, d)) != QCF_OK)
		return s;
	double raw = qref_get(val, 0);
	size_t no = qref_numel((int32_t)n, v);
	for (size_t i = 0; i < no; i++)
		put(&k, i, raw);
	return QCF_OK;
}

static qcf_status fill_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	return fill(call, NULL, d);
}

static qcf_status fill_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                            qref_detail *d)
{
	(void)row;
	(void)k; /* one output */
	return fill(call, values, d);
}

/* ---- WHERE (where.cc; reference_ops.h SelectTrueCoords) --------------------- */

/*
 * The int64 coordinates, row-major, of the elements whose raw stored value is not 0: the zero
 * point plays no part, so uint8 with zero point 128 counts the real 0 (raw 128) as true and
 * raw 0 as false. Output [count, rank].
 */
static qcf_status where_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	if (in->dtype != QCF_INT8 && in->dtype != QCF_UINT8 && in->dtype != QCF_BOOL) {
		if (in->dtype == QCF_FLOAT32 || in->dtype == QCF_INT32 || in->dtype == QCF_INT64)
			return qref_fail(d, QCF_NOT_SUPPORTED,
			                 "WHERE: a condition of type %s is LiteRT's but the "
			                 "reference implements bool, uint8 and int8",
			                 dt(in->dtype));
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "WHERE condition must be bool, float32, int64, int32, int8, uint8 "
		                 "or uint32, got %s",
		                 dt(in->dtype));
	}
	if (out->dtype != QCF_INT64)
		return qref_fail(d, QCF_INVALID_PARAM, "WHERE output must be int64, got %s",
		                 dt(out->dtype));
	int r = in->rank;
	size_t ni = qref_tensor_numel(in), count = 0;
	for (size_t i = 0; i < ni; i++)
		count += qref_get(in, i) != 0;
	int64_t want[2] = {(int64_t)count, r};
	if (!qref_litert_shape_is(out, 2, want))
		return qref_litert_shape_mismatch(d, "WHERE", 2, want);
	if (r == 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "WHERE needs a condition of rank > 0 (Eval), got a scalar");
	if ((s = qref_no_rounding(call, d, "nothing: it lists coordinates")) != QCF_OK)
		return s;
	int64_t co[MAXR];
	size_t oi = 0;
	for (size_t i = 0; i < ni; i++) {
		if (qref_get(in, i) == 0)
			continue;
		qref_litert_unravel(i, r, in->shape, co);
		for (int j = 0; j < r; j++)
			qref_set(out, oi++, (double)co[j]);
	}
	return QCF_OK;
}

const qref_op qref_ops_litert_index[] = {
        {.schema = {.semantics = "litert",
                    .op = "GATHER_ND",
                    IO(LIST("params", "indices"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = gather_nd_kernel,
         .real = gather_nd_real},
        {.schema = {.semantics = "litert",
                    .op = "SCATTER_ND",
                    IO(LIST("indices", "updates", "shape"), 3, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = scatter_nd_kernel,
         .real = scatter_nd_real},
        {.schema = {.semantics = "litert",
                    .op = "REVERSE_V2",
                    IO(LIST("x", "axis"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = reverse_kernel,
         .real = reverse_real},
        {.schema = {.semantics = "litert",
                    .op = "FILL",
                    IO(LIST("dims", "value"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = fill_kernel,
         .real = fill_real},
        {.schema = {.semantics = "litert",
                    .op = "WHERE",
                    IO(LIST("condition"), 1, 1, LIST("index"), 1),
                    .attrs = qref_no_attrs},
         .kernel = where_kernel},
        {.schema = {.op = NULL}},
};
