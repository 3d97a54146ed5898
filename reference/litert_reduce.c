/*
 * LiteRT REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, RESIZE_NEAREST_NEIGHBOR and EMBEDDING_LOOKUP on
 * quantized tensors.
 *
 * Sources (google-ai-edge/LiteRT): tflite/kernels/{reduce,resize_nearest_neighbor,
 * embedding_lookup}.cc, tflite/kernels/internal/reference/{reduce,resize_nearest_neighbor}.h,
 * tflite/kernels/internal/optimized/{reduce,reduce_utils,optimized_ops}.h (where the default
 * kernel differs), tflite/kernels/internal/common.cc (the int64 MultiplyByQuantizedMultiplier).
 * The arithmetic and ABI: specs/litert/OPERATORS.md ("LiteRT REDUCE_MAX, REDUCE_MIN and
 * REDUCE_PROD", "LiteRT RESIZE_NEAREST_NEIGHBOR and EMBEDDING_LOOKUP"). The axes are MEAN's and
 * SUM's (litert_reduce.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "litert_reduce.h"
#include "op.h"
#include "requant.h"

/* ---- common ------------------------------------------------------------- */

static int is_q(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8 || t == QCF_INT16;
}

/* Per-tensor quantization of t with a positive finite scale. */
static qcf_status get_pt(const qcf_op_call *call, const qcf_tensor *t, const char *what,
                         qcf_quant *q, qref_detail *d)
{
	qcf_status s = qref_get_quant(t, what, 1, q, d);
	if (s != QCF_OK)
		return s;
	if (!(q->scales[0] > 0.0f && isfinite(q->scales[0])))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: %s scale must be positive and finite",
		                 call->op, what);
	return QCF_OK;
}

/* Integer attribute (0 when absent). */
static int attr_flag(const qcf_op_call *call, const char *name)
{
	int64_t v = 0;
	return qref_attr_int(call, name, &v) > 0 && v != 0;
}

/* ---- REDUCE_MAX, REDUCE_MIN, REDUCE_PROD (reduce.cc) -------------------- */

enum { RED_MAX, RED_MIN, RED_PROD };

typedef struct red {
	int red[QCF_MAX_RANK];
	int64_t n; /* elements per output */
	qcf_quant qi, qo;
} red;

/*
 * PrepareSimple / PrepareProd / EvalType: axes (litert_reduce.h; int32), one dtype for input and
 * output; MAX, MIN: uint8, int8, int16 with the input's scale and zero point on the output
 * (EvalType); PROD: int8, int16 (PrepareProd's quantized types). int16 zero points 0.
 * full = 0 for the real-valued hook (output quantization not read).
 */
static qcf_status red_check(const qcf_op_call *call, const qref_op *row, red *r, int full,
                            qref_detail *d)
{
	qcf_status s =
	        full ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	memset(r, 0, sizeof *r);
	if ((s = qref_litert_reduce_axes(call, r->red, &r->n, d)) != QCF_OK)
		return s;
	if (out->dtype != in->dtype)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: output type %s differs from input %s",
		                 call->op, qref_dtype_name(out->dtype), qref_dtype_name(in->dtype));
	if (row->param == RED_PROD && in->dtype == QCF_UINT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "REDUCE_PROD: quantized uint8 is refused (PrepareProd takes int8 "
		                 "and int16)");
	if (!is_q(in->dtype))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: the reference implements the quantized %s, not %s", call->op,
		                 row->param == RED_PROD ? "int8 and int16"
		                                        : "uint8, int8 and int16",
		                 qref_dtype_name(in->dtype));
	if ((s = get_pt(call, in, "input", &r->qi, d)) != QCF_OK)
		return s;
	if (in->dtype == QCF_INT16 && r->qi.zero_points[0] != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s int16 needs zero points 0, got input zero point %" PRId32,
		                 call->op, r->qi.zero_points[0]);
	if (!full)
		return QCF_OK;
	if ((s = get_pt(call, out, "output", &r->qo, d)) != QCF_OK)
		return s;
	if (in->dtype == QCF_INT16 && r->qo.zero_points[0] != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s int16 needs zero points 0, got output zero point %" PRId32,
		                 call->op, r->qo.zero_points[0]);
	if (row->param != RED_PROD &&
	    (r->qi.scales[0] != r->qo.scales[0] || r->qi.zero_points[0] != r->qo.zero_points[0]))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the output scale %.9g and zero point %" PRId32
		                 " must equal the input's %.9g and %" PRId32 " (EvalType)",
		                 call->op, (double)r->qo.scales[0], r->qo.zero_points[0],
		                 (double)r->qi.scales[0], r->qi.zero_points[0]);
	return QCF_OK;
}

/* Names no rounding: the builds agree (MAX and MIN compare, PROD's int64 MBQM is the same in
 * both). */
static qcf_status red_rounding(const qcf_op_call *call, int prod, qref_detail *d)
{
	qref_rounding r = qref_detail_rounding(d);
	if (prod && (r == QREF_ROUND_DOUBLE || r == QREF_ROUND_SINGLE))
		return QCF_OK;
	if (r != QREF_ROUND_DEFAULT)
		return qref_rounding_na(call, d, r,
		                        prod ? "with the int64 MultiplyByQuantizedMultiplier, the "
		                               "same in both builds"
		                             : "nothing: it compares raw values");
	return QCF_OK;
}

/* REDUCE_MAX, REDUCE_MIN: raw values compared; an empty reduction gives the dtype's lowest
 * (MAX) or highest (MIN) value, the reducer's initial value (ReduceGeneric). */
static qcf_status reduce_minmax(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	red r;
	qcf_status s = red_check(call, row, &r, 1, d);
	if (s == QCF_OK)
		s = red_rounding(call, 0, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	size_t ni = qref_tensor_numel(in), no = qref_tensor_numel(out);
	double lo, hi;
	qref_range_d(in->dtype, &lo, &hi);
	const int is_max = row->param == RED_MAX;
	for (size_t i = 0; i < no; i++)
		qref_set(out, i, is_max ? lo : hi);
	for (size_t i = 0; i < ni; i++) {
		size_t oi = qref_litert_reduce_out_index(in, r.red, i);
		double v = qref_get(in, i), c = qref_get(out, oi);
		if (is_max ? v > c : v < c)
			qref_set(out, oi, v);
	}
	return QCF_OK;
}

static qcf_status reduce_minmax_real(const qcf_op_call *call, const qref_op *row, int k,
                                     double *values, qref_detail *d)
{
	(void)k; /* one output */
	red r;
	qcf_status s = red_check(call, row, &r, 0, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t ni = qref_tensor_numel(in), no = qref_tensor_numel(&call->outputs[0]);
	double lo, hi;
	qref_range_d(in->dtype, &lo, &hi);
	const int is_max = row->param == RED_MAX;
	double sc = r.qi.scales[0], zp = r.qi.zero_points[0];
	for (size_t i = 0; i < no; i++)
		values[i] = ((is_max ? lo : hi) - zp) * sc;
	for (size_t i = 0; i < ni; i++) {
		size_t oi = qref_litert_reduce_out_index(in, r.red, i);
		double v = (qref_get(in, i) - zp) * sc;
		if (is_max ? v > values[oi] : v < values[oi])
			values[oi] = v;
	}
	return QCF_OK;
}

/*
 * One rescaling of the product, MultiplyByQuantizedMultiplier(int64 x, m, shift) (common.cc, the
 * same in both builds): 0 when outside LiteRT's contract (shift in [-31, 7], x in [-2^47, 2^47),
 * the result in int32).
 */
static int prod_rescale(int64_t x, int32_t m, int sh, int64_t *y)
{
	if (sh > 7 || sh < -31 || x < -(INT64_C(1) << 47) || x >= (INT64_C(1) << 47))
		return 0;
	int32_t rm = m < 0x7FFF0000 ? (m + (1 << 15)) >> 16 : 0x7FFF;
	int64_t v = qref_asr64(x * (int64_t)rm + (INT64_C(1) << (14 - sh)), 15 - sh);
	*y = v;
	return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * REDUCE_PROD (EvalQuantizedProd, reference QuantizedReduceProd): per output, over its inputs in
 * row-major order, p = x_0 - zp_in, then p = MBQM64(p * (x_j - zp_in), m, shift) for each next
 * one, y = clamp(MBQM64(p, m, shift) + zp_out): n rescalings by (m, shift) = QuantizeMultiplier(
 * s_in / pow(s_out, 1.0 / n)) in double, n = input size / output size (PrepareProd). The default
 * kernel copies the raw input when no reduced dimension is larger than 1 (n = 1): such an
 * output may be either.
 */
static qcf_status reduce_prod(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	red r;
	qcf_status s = red_check(call, row, &r, 1, d);
	if (s == QCF_OK)
		s = red_rounding(call, 1, d);
	if (s != QCF_OK)
		return s;
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	size_t ni = qref_tensor_numel(in), no = qref_tensor_numel(out);
	double lo, hi;
	qref_range_d(out->dtype, &lo, &hi);
	if (ni == 0) { /* an early return: the output is never written */
		for (size_t i = 0; i < no; i++) {
			qref_mark_any(d, 0, i, lo, hi);
			qref_set(out, i, lo);
		}
		return QCF_OK;
	}
	int64_t reduced = (int64_t)(ni / no); /* int in LiteRT */
	double scaling =
	        (double)r.qi.scales[0] / pow((double)r.qo.scales[0], 1.0 / (double)reduced);
	int32_t m;
	int sh;
	qref_quantize_multiplier(scaling, QREF_ROUND_DOUBLE, &m, &sh);
	int64_t *p = calloc(no, sizeof *p);
	unsigned char *seen = calloc(no, 1), *ub = calloc(no, 1);
	if (!p || !seen || !ub) {
		free(p);
		free(seen);
		free(ub);
		return qref_fail(d, QCF_ERROR, "out of memory");
	}
	int32_t zi = r.qi.zero_points[0], zo = r.qo.zero_points[0];
	for (size_t i = 0; i < ni; i++) {
		size_t oi = qref_litert_reduce_out_index(in, r.red, i);
		int64_t v = (int64_t)qref_get(in, i) - zi;
		if (!seen[oi]) {
			seen[oi] = 1;
			p[oi] = v;
		} else if (!ub[oi]) {
			ub[oi] = !prod_rescale(p[oi] * v, m, sh, &p[oi]);
		}
	}
	for (size_t i = 0; i < no; i++) {
		int64_t y = 0;
		int bad = ub[i] || !prod_rescale(p[i], m, sh, &y);
		y += zo;
		bad = bad || y < INT32_MIN || y > INT32_MAX;
		double v = bad ? lo : qref_clamp_d((double)y, lo, hi);
		if (bad) {
			qref_mark_any(d, 0, i, lo, hi);
		} else if (reduced == 1 && v != qref_get(in, i)) {
			/* the default kernel: a raw copy (ReduceIsCopy) */
			double c = qref_get(in, i);
			qref_mark_any(d, 0, i, c < v ? c : v, c < v ? v : c);
		} else {
			qref_mark_exact(d, 0, i);
		}
		qref_set(out, i, v);
	}
	free(p);
	free(seen);
	free(ub);
	return QCF_OK;
}

static qcf_status reduce_prod_real(const qcf_op_call *call, const qref_op *row, int k,
                                   double *values, qref_detail *d)
{
	(void)k; /* one output */
	red r;
	qcf_status s = red_check(call, row, &r, 0, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t ni = qref_tensor_numel(in), no = qref_tensor_numel(&call->outputs[0]);
	for (size_t i = 0; i < no; i++)
		values[i] = 1.0;
	for (size_t i = 0; i < ni; i++)
		values[qref_litert_reduce_out_index(in, r.red, i)] *=
		        (qref_get(in, i) - r.qi.zero_points[0]) * (double)r.qi.scales[0];
	return QCF_OK;
}

/* ---- RESIZE_NEAREST_NEIGHBOR (resize_nearest_neighbor.cc) --------------- */

typedef struct nn {
	int64_t n, h, w, c, oh, ow;
	int align, half;
	qcf_quant q;
} nn;

/* Prepare: input rank 4, size int32 1-D of 2 values, output [n, size0, size1, c] of the input's
 * dtype (uint8, int8, int16 here); no quantization rule (raw values are copied). */
static qcf_status nn_check(const qcf_op_call *call, nn *z, int full, qref_detail *d)
{
	qcf_status s =
	        full ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *sz = &call->inputs[1], *out = &call->outputs[0];
	if (in->rank != 4)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "RESIZE_NEAREST_NEIGHBOR input must have rank 4, got %" PRId32,
		                 in->rank);
	if (sz->dtype != QCF_INT32 || sz->rank != 1 || sz->shape[0] != 2)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "RESIZE_NEAREST_NEIGHBOR: size must be an int32 1-D tensor of 2 "
		                 "values");
	if (out->dtype != in->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "RESIZE_NEAREST_NEIGHBOR: output type %s differs from input %s",
		                 qref_dtype_name(out->dtype), qref_dtype_name(in->dtype));
	if (!is_q(in->dtype))
		return qref_fail(
		        d, QCF_NOT_SUPPORTED,
		        "RESIZE_NEAREST_NEIGHBOR: the reference implements uint8, int8 and "
		        "int16, not %s",
		        qref_dtype_name(in->dtype));
	memset(z, 0, sizeof *z);
	z->n = in->shape[0];
	z->h = in->shape[1];
	z->w = in->shape[2];
	z->c = in->shape[3];
	z->oh = (int64_t)qref_get(sz, 0);
	z->ow = (int64_t)qref_get(sz, 1);
	if (out->rank != 4 || out->shape[0] != z->n || out->shape[1] != z->oh ||
	    out->shape[2] != z->ow || out->shape[3] != z->c)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "RESIZE_NEAREST_NEIGHBOR output shape must be [%lld, %lld, "
		                        "%lld, %lld]",
		                        (long long)z->n, (long long)z->oh, (long long)z->ow,
		                        (long long)z->c);
	z->align = attr_flag(call, "align_corners");
	z->half = attr_flag(call, "half_pixel_centers");
	if (!full)
		return get_pt(call, in, "input", &z->q, d);
	return QCF_OK;
}

/* GetNearestNeighbor: the source index of output index o, in float32. */
static int64_t nn_index(int64_t o, int64_t in, int64_t out, int align, int half)
{
	float scale =
	        align && out > 1 ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
	float v = ((float)o + (half ? 0.5f : 0.0f)) * scale;
	int64_t i = (int64_t)(align ? roundf(v) : floorf(v));
	if (i > in - 1)
		i = in - 1;
	if (half && i < 0)
		i = 0;
	return i;
}

/* The default kernel's 8-bit index without align_corners and half_pixel_centers
 * (optimized_ops.h): (o * ((in << 16) / out + 1)) >> 16 in int64, at most in - 1. */
static int64_t nn_index_fixed(int64_t o, int64_t in, int64_t out)
{
	int64_t i = (o * ((in << 16) / out + 1)) >> 16;
	return i < in - 1 ? i : in - 1;
}

/* The flat input index of output element (b, y, x, ch), or -1 when LiteRT reads outside the
 * input (an empty height or width); *alt: the default 8-bit kernel's, when it differs. */
static int64_t nn_source(const nn *z, int eight, int64_t b, int64_t y, int64_t x, int64_t ch,
                         int64_t *alt)
{
	if (z->h == 0 || z->w == 0)
		return -1;
	int64_t iy = nn_index(y, z->h, z->oh, z->align, z->half);
	int64_t ix = nn_index(x, z->w, z->ow, z->align, z->half);
	int64_t at = ((b * z->h + iy) * z->w + ix) * z->c + ch;
	*alt = at;
	if (eight && !z->align && !z->half) {
		int64_t fy = nn_index_fixed(y, z->h, z->oh), fx = nn_index_fixed(x, z->w, z->ow);
		*alt = ((b * z->h + fy) * z->w + fx) * z->c + ch;
	}
	return at;
}

static qcf_status resize_nn(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	nn z;
	qcf_status s = nn_check(call, &z, 1, d);
	if (s != QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "nothing: raw values are copied")) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	int eight = in->dtype != QCF_INT16;
	double lo, hi;
	qref_range_d(out->dtype, &lo, &hi);
	size_t oi = 0;
	for (int64_t b = 0; b < z.n; b++)
		for (int64_t y = 0; y < z.oh; y++)
			for (int64_t x = 0; x < z.ow; x++)
				for (int64_t ch = 0; ch < z.c; ch++, oi++) {
					int64_t alt = 0,
					        at = nn_source(&z, eight, b, y, x, ch, &alt);
					if (at < 0) {
						qref_mark_any(d, 0, oi, lo, hi);
						qref_set(out, oi, lo);
						continue;
					}
					double v = qref_get(in, (size_t)at);
					double w = qref_get(in, (size_t)alt);
					if (w != v)
						qref_mark_any(d, 0, oi, v < w ? v : w,
						              v < w ? w : v);
					qref_set(out, oi, v);
				}
	return QCF_OK;
}

static qcf_status resize_nn_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                                 qref_detail *d)
{
	(void)row;
	(void)k;
	nn z;
	qcf_status s = nn_check(call, &z, 0, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t oi = 0;
	for (int64_t b = 0; b < z.n; b++)
		for (int64_t y = 0; y < z.oh; y++)
			for (int64_t x = 0; x < z.ow; x++)
				for (int64_t ch = 0; ch < z.c; ch++, oi++) {
					int64_t alt, at = nn_source(&z, 0, b, y, x, ch, &alt);
					values[oi] = at < 0 ? 0.0
					                    : (qref_get(in, (size_t)at) -
					                       z.q.zero_points[0]) *
					                              (double)z.q.scales[0];
				}
	return QCF_OK;
}

/* ---- EMBEDDING_LOOKUP (embedding_lookup.cc) ----------------------------- */

/*
 * Prepare and EvalSimple, the quantized-in, quantized-out path: ids int32 1-D, value rank >= 2,
 * output [len(ids), value.shape[1:]] of the value's dtype (uint8, int8, int16 here), each id in
 * [0, rows) (EvalSimple's bounds check); whole rows of raw values copied, no quantization rule.
 */
static qcf_status emb_check(const qcf_op_call *call, int full, qcf_quant *q, qref_detail *d)
{
	qcf_status s =
	        full ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *ids = &call->inputs[0], *val = &call->inputs[1], *out = &call->outputs[0];
	if (ids->rank != 1 || ids->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "EMBEDDING_LOOKUP: ids must be int32 and 1-D");
	if (val->rank < 2)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "EMBEDDING_LOOKUP: value must have rank >= 2, got %" PRId32,
		                 val->rank);
	if (out->dtype == QCF_FLOAT32 || out->dtype == QCF_FLOAT16)
		return qref_fail(
		        d, QCF_NOT_SUPPORTED,
		        "EMBEDDING_LOOKUP: the hybrid path (quantized value, float output) "
		        "is LiteRT's but not implemented by the reference");
	if (out->dtype != val->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "EMBEDDING_LOOKUP: output type %s differs from value %s (LiteRT "
		                 "would copy the value's bytes)",
		                 qref_dtype_name(out->dtype), qref_dtype_name(val->dtype));
	if (!is_q(val->dtype))
		return qref_fail(
		        d, QCF_NOT_SUPPORTED,
		        "EMBEDDING_LOOKUP: the reference implements uint8, int8 and int16, "
		        "not %s",
		        qref_dtype_name(val->dtype));
	int ok = out->rank == val->rank && out->shape[0] == ids->shape[0];
	for (int k = 1; ok && k < val->rank; k++)
		ok = out->shape[k] == val->shape[k];
	if (!ok)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "EMBEDDING_LOOKUP output shape must be [len(ids), "
		                        "value.shape[1:]]");
	int64_t rows = val->shape[0];
	for (size_t i = 0; rows > 0 && i < qref_tensor_numel(ids); i++) {
		double id = qref_get(ids, i);
		if (id < 0 || id >= (double)rows)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "EMBEDDING_LOOKUP: id %.0f at %zu out of [0, %lld)", id, i,
			                 (long long)rows);
	}
	if (!full)
		return get_pt(call, val, "value", q, d);
	return QCF_OK;
}

static qcf_status embedding_lookup(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = emb_check(call, 1, NULL, d);
	if (s != QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "nothing: raw values are copied")) != QCF_OK)
		return s;
	const qcf_tensor *ids = &call->inputs[0], *val = &call->inputs[1];
	qcf_tensor *out = &call->outputs[0];
	size_t len = qref_tensor_numel(ids), no = qref_tensor_numel(out);
	size_t cols = len ? no / len : 0;
	double lo, hi;
	qref_range_d(out->dtype, &lo, &hi);
	for (size_t i = 0; i < len; i++)
		for (size_t j = 0; j < cols; j++) {
			if (val->shape[0] == 0) { /* EvalSimple returns before writing */
				qref_mark_any(d, 0, i * cols + j, lo, hi);
				qref_set(out, i * cols + j, lo);
				continue;
			}
			size_t id = (size_t)qref_get(ids, i);
			qref_set(out, i * cols + j, qref_get(val, id * cols + j));
		}
	return QCF_OK;
}

static qcf_status embedding_lookup_real(const qcf_op_call *call, const qref_op *row, int k,
                                        double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	qcf_quant q;
	qcf_status s = emb_check(call, 0, &q, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *ids = &call->inputs[0], *val = &call->inputs[1];
	size_t len = qref_tensor_numel(ids), no = qref_tensor_numel(&call->outputs[0]);
	size_t cols = len ? no / len : 0;
	for (size_t i = 0; i < len; i++)
		for (size_t j = 0; j < cols; j++)
			values[i * cols + j] =
			        val->shape[0] == 0
			                ? 0.0
			                : (qref_get(val, (size_t)qref_get(ids, i) * cols + j) -
			                   q.zero_points[0]) *
			                          (double)q.scales[0];
	return QCF_OK;
}

/* ---- rows ---------------------------------------------------------------- */

static const qref_attr_schema reduce_attrs[] = {
        A_BOOL("keep_dims", "0"),
        END,
};

static const qref_attr_schema resize_nn_attrs[] = {
        A_BOOL("align_corners", "0"),
        A_BOOL("half_pixel_centers", "0"),
        END,
};

const qref_op qref_ops_litert_reduce[] = {
        {.schema = {.semantics = "litert",
                    .op = "REDUCE_MAX",
                    IO(LIST("x", "axis"), 2, 2, LIST("y"), 1),
                    .attrs = reduce_attrs},
         .kernel = reduce_minmax,
         .real = reduce_minmax_real,
         .param = RED_MAX},
        {.schema = {.semantics = "litert",
                    .op = "REDUCE_MIN",
                    IO(LIST("x", "axis"), 2, 2, LIST("y"), 1),
                    .attrs = reduce_attrs},
         .kernel = reduce_minmax,
         .real = reduce_minmax_real,
         .param = RED_MIN},
        {.schema = {.semantics = "litert",
                    .op = "REDUCE_PROD",
                    IO(LIST("x", "axis"), 2, 2, LIST("y"), 1),
                    .attrs = reduce_attrs},
         .kernel = reduce_prod,
         .real = reduce_prod_real,
         .param = RED_PROD},
        {.schema = {.semantics = "litert",
                    .op = "RESIZE_NEAREST_NEIGHBOR",
                    IO(LIST("x", "size"), 2, 2, LIST("y"), 1),
                    .attrs = resize_nn_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = resize_nn,
         .real = resize_nn_real},
        {.schema = {.semantics = "litert",
                    .op = "EMBEDDING_LOOKUP",
                    IO(LIST("ids", "value"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = embedding_lookup,
         .real = embedding_lookup_real},
        {.schema = {.op = NULL}},
};
