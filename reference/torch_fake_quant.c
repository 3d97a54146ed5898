/*
 * PyTorch fake quantization, CPU kernels (aten/src/ATen/native/quantized/
 * FakeQuantPerTensorAffine.cpp, FakeQuantPerChannelAffine.cpp,
 * cpu/kernels/QuantizedOpKernels.cpp). specs/torch/OPERATORS.md, "Fake quantization".
 *
 * Arithmetic types, as the C++ promotions in those kernels give them:
 *  - inv = 1.0f / scale in float. The product x * inv is float for float32,
 *    float16 and bfloat16 inputs, double for float64 inputs.
 *  - per tensor: qf = zp + nearbyint(x * inv) in that type; clamp in double
 *    (fmin/fmax); out = (float)(q - zp) * scale in float, then converted
 *    to the input dtype (a float64 input gets a float-precision result).
 *    torch 1.13 converted qf to int64 first and clamped it with fmin/fmax,
 *    whose double result made out = (double)(q - zp) * (double)scale, in
 *    double (a float64 input gets the double product): where the two
 *    differ the element accepts either (qref_torch_pt_elem's y113), so does
 *    the learnable per-tensor forward built on the same kernel.
 *  - per channel, int32 zp: q = (int64)(zp + nearbyint(x * inv)) (the add
 *    in the product's type); out = ((double)clamp(q) - zp) * (double)scale.
 *  - per channel, float zp: q = lrintf(zp + x * inv) (zp added BEFORE
 *    rounding; a float64 sum is first converted to float); out as above.
 * Named roundings (qref.h): the one rounding to an integer, nearbyint /
 * nearbyintf / lrintf in the current rounding mode (ties to even), of
 * x * inv or, on the float zero point path, zp + x * inv; QREF_ROUND_HALF_*
 * replace it (on both the plain and the fused float zero point variants),
 * nothing else changes.
 * Undefined (specs/torch/OPERATORS.md, "Fake quantization"; torch <= 1.13 and the per-channel
 * kernels cast to int64 before clamping): NaN, +-inf, |value| >= 2^63. Those elements are marked
 * unpredictable.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "op.h"
#include "torch.h"

#define TWO63 0x1p63

int qref_torch_is_float(qcf_dtype t)
{
	return t == QCF_FLOAT32 || t == QCF_FLOAT64 || t == QCF_FLOAT16 || t == QCF_BFLOAT16;
}

double qref_torch_to_dtype(qcf_dtype t, double v)
{
	switch (t) {
	case QCF_FLOAT64: return v;
	case QCF_FLOAT16: return qref_f16_to_f32(qref_f32_to_f16((float)v));
	case QCF_BFLOAT16: return qref_bf16_to_f32(qref_f32_to_bf16((float)v));
	default: return (float)v;
	}
}

/* int64 of a double already clamped to [qmin, qmax] (saturating at the ends). */
static int64_t to_i64(double v)
{
	if (v >= TWO63)
		return INT64_MAX;
	if (v < -TWO63)
		return INT64_MIN;
	return (int64_t)v;
}

/* a - b with int64 wrap-around (no undefined overflow). */
static int64_t sub_wrap(int64_t a, int64_t b)
{
	uint64_t u = (uint64_t)a - (uint64_t)b;
	if (u <= (uint64_t)INT64_MAX)
		return (int64_t)u;
	return (int64_t)(u - (uint64_t)INT64_MAX - 1) + INT64_MIN;
}

/* The torch rounding (nearbyint: ties to even) or a named QREF_ROUND_HALF_*. */
static double round_d(double v, qref_rounding r)
{
	if (r == QREF_ROUND_DEFAULT || r == QREF_ROUND_HALF_EVEN)
		return nearbyint(v);
	return qref_round_half(v, r);
}

float qref_torch_round_f(float v, qref_rounding r)
{
	if (r == QREF_ROUND_DEFAULT || r == QREF_ROUND_HALF_EVEN)
		return nearbyintf(v);
	return (float)qref_round_half((double)v, r); /* exact: an integer of a float */
}

qcf_status qref_torch_check_rounding(const qcf_op_call *call, qref_detail *d, const char *what)
{
	qref_rounding r = qref_detail_rounding(d);
	if (r == QREF_ROUND_DEFAULT || qref_rounding_is_half(r)) {
		qref_set_default_rounding(d, QREF_ROUND_HALF_EVEN); /* nearbyint */
		return QCF_OK;
	}
	return qref_rounding_na(call, d, r, what);
}

qcf_status qref_torch_int_attr(const qcf_op_call *call, const char *name, int64_t *v,
                               qref_detail *d)
{
	int r = qref_attr_int(call, name, v);
	if (r == 0)
		return qref_fail_attr(d, name, QCF_INVALID_PARAM, "%s: missing attribute '%s'",
		                      call->op, name);
	if (r < 0)
		return qref_fail_attr(d, name, QCF_INVALID_PARAM,
		                      "%s: attribute '%s' must be an integer", call->op, name);
	return QCF_OK;
}

/* Checks x and the outputs (y same dtype and shape; mask bool same shape). */
static qcf_status check_io(const qcf_op_call *call, int n_inputs, int cachemask, qref_detail *d)
{
	qcf_status s = qref_check_call(call, n_inputs, cachemask ? 2 : 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	if (!qref_torch_is_float(x->dtype))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input must be float32, float64, float16 or bfloat16, got %s",
		                 call->op, qref_dtype_name(x->dtype));
	const qcf_tensor *y = &call->outputs[0];
	if (y->dtype != x->dtype || !qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_TENSOR, QCF_INVALID_PARAM,
		                        "%s: output must have the input's dtype and shape",
		                        call->op);
	if (cachemask) {
		const qcf_tensor *m = &call->outputs[1];
		if (m->dtype != QCF_BOOL || !qref_same_shape(x, m))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: mask output must be bool with the input's shape",
			                 call->op);
	}
	return QCF_OK;
}

static qcf_status check_range(const qcf_op_call *call, int64_t qmin, int64_t qmax, qref_detail *d)
{
	if (qmin > qmax)
		return qref_fail_attr(d, "quant_min", QCF_INVALID_PARAM,
		                      "%s: `quant_min` should be less than or equal to `quant_max` "
		                      "(%lld > %lld)",
		                      call->op, (long long)qmin, (long long)qmax);
	return QCF_OK;
}

/* Writes element i: value, mask, step, and any marks when ub. */
static void put(const qcf_op_call *call, qref_detail *d, size_t i, double y, int mask, int ub,
                double lo, double hi, double scale)
{
	qcf_tensor *out = &call->outputs[0];
	qref_set(out, i, y);
	qref_set_step(d, 0, i, scale > 0 ? scale : 0.0);
	if (ub)
		qref_mark_any(d, 0, i, lo < hi ? lo : hi, lo < hi ? hi : lo);
	else
		qref_mark_exact(d, 0, i);
	if (call->n_outputs > 1) {
		qref_set(&call->outputs[1], i, mask ? 1.0 : 0.0);
		if (ub)
			qref_mark_any(d, 1, i, 0.0, 1.0);
		else
			qref_mark_exact(d, 1, i);
	}
}

/* torch <= 1.13's y of a clamped q: fmin/fmax of int64 arguments are double, so
 * (double)(q - zp) * (double)sc, then converted to the input dtype. */
static double pt_y_113(qcf_dtype xt, double qc, int64_t zp, float sc)
{
	return qref_torch_to_dtype(xt, (qc - (double)zp) * (double)sc);
}

int qref_torch_pt_elem(qcf_dtype xt, double x, float sc, int64_t zp, int64_t qmin, int64_t qmax,
                       qref_rounding r, double *y, int *mask, double *y113)
{
	const float inv = 1.0f / sc;
	double qf, rnd;
	if (xt == QCF_FLOAT64) {
		/* double * float promotes to double */
		double p = x * (double)inv;
		rnd = round_d(p, r);
		qf = (double)zp + rnd;
		*mask = (double)qmin <= qf && qf <= (double)qmax;
	} else {
		/* float, Half and BFloat16 times float compute in float */
		float p = (float)x * inv;
		float rf = qref_torch_round_f(p, r);
		float qff = (float)zp + rf;
		rnd = rf;
		qf = qff;
		*mask = (float)qmin <= qff && qff <= (float)qmax;
	}
	int ub = !isfinite(qf) || fabs(rnd) >= TWO63 || fabs(qf) >= TWO63;
	/* current torch clamps in double first (NaN -> quant_min) */
	const double qc = fmin(fmax(qf, (double)qmin), (double)qmax);
	*y = (float)sub_wrap(to_i64(qc), zp) * sc;
	if (y113)
		*y113 = pt_y_113(xt, qc, zp, sc);
	return ub;
}

/* fake_quantize_per_tensor_affine, and its _cachemask (row->param 1). */
static qcf_status per_tensor(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int cachemask = row->param;
	qcf_status s = check_io(call, 1, cachemask, d);
	if (s != QCF_OK)
		return s;
	double scale_attr;
	int r = qref_attr_number(call, "scale", &scale_attr);
	if (r <= 0)
		return qref_fail_attr(d, "scale", QCF_INVALID_PARAM, "%s: attribute 'scale' %s",
		                      call->op, r == 0 ? "missing" : "must be a number");
	int64_t zp, qmin, qmax;
	if ((s = qref_torch_int_attr(call, "zero_point", &zp, d)) != QCF_OK ||
	    (s = qref_torch_int_attr(call, "quant_min", &qmin, d)) != QCF_OK ||
	    (s = qref_torch_int_attr(call, "quant_max", &qmax, d)) != QCF_OK ||
	    (s = check_range(call, qmin, qmax, d)) != QCF_OK)
		return s;
	if (zp < qmin || zp > qmax)
		return qref_fail_attr(
		        d, "zero_point", QCF_INVALID_PARAM,
		        "%s: `zero_point` must be between `quant_min` and `quant_max`", call->op);
	const qref_rounding rmode = qref_detail_rounding(d);
	if ((s = qref_torch_check_rounding(call, d, "x * inv to an integer")) != QCF_OK)
		return s;

	const qcf_tensor *x = &call->inputs[0];
	const qcf_dtype xt = x->dtype;
	const float sc = (float)scale_attr;
	double lo, hi;
	qref_torch_pt_range(xt, sc, zp, qmin, qmax, &lo, &hi);
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		double y, y113;
		int mask;
		int ub = qref_torch_pt_elem(xt, qref_get(x, i), sc, zp, qmin, qmax, rmode, &y,
		                            &mask, &y113);
		put(call, d, i, y, mask, ub, lo, hi, sc);
		if (!ub) /* the value as stored (rounded to x's dtype) against 1.13's */
			qref_torch_pt_mark_113(d, 0, i, qref_get(&call->outputs[0], i), y113);
	}
	return QCF_OK;
}

void qref_torch_pt_range(qcf_dtype xt, float sc, int64_t zp, int64_t qmin, int64_t qmax, double *lo,
                         double *hi)
{
	double a = qref_torch_to_dtype(xt, (float)sub_wrap(qmin, zp) * sc);
	double b = qref_torch_to_dtype(xt, (float)sub_wrap(qmax, zp) * sc);
	double a13 = pt_y_113(xt, (double)qmin, zp, sc), b13 = pt_y_113(xt, (double)qmax, zp, sc);
	*lo = fmin(fmin(a, b), fmin(a13, b13));
	*hi = fmax(fmax(a, b), fmax(a13, b13));
}

void qref_torch_pt_mark_113(qref_detail *d, int k, size_t i, double y, double y113)
{
	if (y113 != y)
		qref_mark_any(d, k, i, fmin(y, y113), fmax(y, y113));
}

/* Per-channel: one element with scale s, zero point z (int) or zf (float). */
typedef struct {
	qcf_dtype xt;
	int float_zp;
	int64_t qmin, qmax;
	qref_rounding rmode;
} pc_ctx;

typedef struct {
	double y;
	int mask;
	int ub;
} pc_result;

/* q (already an integer) to output and mask; zpd is the zero point as double. */
static pc_result pc_finish(const pc_ctx *c, int64_t q, double zpd, float s)
{
	pc_result r;
	double cl = fmin(fmax((double)q, (double)c->qmin), (double)c->qmax);
	r.y = qref_torch_to_dtype(c->xt, (cl - zpd) * (double)s);
	r.mask = c->qmin <= q && q <= c->qmax;
	r.ub = 0;
	return r;
}

/* Result for the undefined cases: the value a clamp-first kernel gives. */
static pc_result pc_undefined(const pc_ctx *c, double v, double zpd, float s)
{
	pc_result r;
	double cl = fmin(fmax(v, (double)c->qmin), (double)c->qmax);
	r.y = qref_torch_to_dtype(c->xt, (cl - zpd) * (double)s);
	r.mask = 0;
	r.ub = 1;
	return r;
}

static pc_result pc_int_zp(const pc_ctx *c, double x, float s, int32_t z)
{
	const float inv = 1.0f / s;
	double qf;
	if (c->xt == QCF_FLOAT64) {
		qf = (double)z + round_d(x * (double)inv, c->rmode);
	} else {
		float p = (float)x * inv;
		qf = (float)z + qref_torch_round_f(p, c->rmode);
	}
	if (!isfinite(qf) || fabs(qf) >= TWO63)
		return pc_undefined(c, qf, (double)z, s);
	return pc_finish(c, (int64_t)qf, (double)z, s);
}

/* zf + x * inv as lrintf sees it (float); fused: one rounding (FMA). */
static float pc_float_arg(const pc_ctx *c, double x, float inv, float zf, int fused)
{
	if (c->xt == QCF_FLOAT64) {
		double v = fused ? fma(x, (double)inv, (double)zf) : (double)zf + x * (double)inv;
		return (float)v;
	}
	float xf = (float)x;
	return fused ? fmaf(xf, inv, zf) : zf + xf * inv;
}

static pc_result pc_float_zp(const pc_ctx *c, double x, float s, float zf, double *alt_y,
                             int *alt_mask)
{
	const float inv = 1.0f / s;
	float v = pc_float_arg(c, x, inv, zf, 0);
	float rv = qref_torch_round_f(v, c->rmode);
	if (!isfinite(rv) || fabsf(rv) >= (float)TWO63)
		return pc_undefined(c, v, (double)zf, s);
	pc_result r = pc_finish(c, (int64_t)rv, (double)zf, s);
	/* the vectorised kernel fuses x * inv + zp into one FMA */
	float vf = pc_float_arg(c, x, inv, zf, 1);
	float rf = qref_torch_round_f(vf, c->rmode);
	*alt_y = r.y;
	*alt_mask = r.mask;
	if (rf != rv && isfinite(rf) && fabsf(rf) < (float)TWO63) {
		pc_result a = pc_finish(c, (int64_t)rf, (double)zf, s);
		*alt_y = a.y;
		*alt_mask = a.mask;
	}
	return r;
}

qcf_status qref_torch_pc_check(const qcf_op_call *call, const qcf_tensor *x, const qcf_tensor *st,
                               const qcf_tensor *zt, int64_t *axis, int64_t *qmin, int64_t *qmax,
                               qref_detail *d)
{
	qcf_status s;
	if (st->dtype == QCF_BFLOAT16)
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: bfloat16 scale is not implemented",
		                 call->op);
	if (st->dtype != QCF_FLOAT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Scale must be Float or BFloat16, found %s", call->op,
		                 qref_dtype_name(st->dtype));
	if (zt->dtype != QCF_INT32 && zt->dtype != QCF_FLOAT32 && zt->dtype != QCF_FLOAT16)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Zero-point must be Int32, Float or Half, found %s", call->op,
		                 qref_dtype_name(zt->dtype));
	if (st->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: scale should be a 1-D tensor",
		                 call->op);
	if (zt->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: zero point should be a 1-D tensor",
		                 call->op);
	if (st->shape[0] != zt->shape[0])
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: scale and zero-point need to have the same dimensions",
		                 call->op);
	if ((s = qref_torch_int_attr(call, "axis", axis, d)) != QCF_OK ||
	    (s = qref_torch_int_attr(call, "quant_min", qmin, d)) != QCF_OK ||
	    (s = qref_torch_int_attr(call, "quant_max", qmax, d)) != QCF_OK)
		return s;
	/* self.size(axis) raises for an axis outside [0, dim) before torch's own axis check */
	if (*axis < 0 || *axis >= x->rank)
		return qref_fail_attr(
		        d, "axis", QCF_INVALID_PARAM,
		        "%s: `axis` must be between 0 and number of dimensions of input "
		        "(axis %lld, rank %" PRId32 ")",
		        call->op, (long long)*axis, x->rank);
	if (st->shape[0] != x->shape[*axis])
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: dimensions of scale and zero-point are not consistent with "
		                 "input tensor",
		                 call->op);
	if ((s = check_range(call, *qmin, *qmax, d)) != QCF_OK)
		return s;
	if (zt->dtype == QCF_INT32)
		for (int64_t k = 0; k < zt->shape[0]; k++) {
			double z = qref_get(zt, (size_t)k);
			if (z < (double)*qmin || z > (double)*qmax)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "%s: `zero_point` must be between `quant_min` and "
				                 "`quant_max`",
				                 call->op);
		}
	return qref_torch_check_rounding(call, d,
	                                 zt->dtype != QCF_INT32 ? "zp + x * inv to an integer"
	                                                        : "x * inv to an integer");
}

qref_torch_pc_out qref_torch_pc_elem(qcf_dtype xt, double x, float s, double zp, int float_zp,
                                     int64_t qmin, int64_t qmax, qref_rounding r)
{
	pc_ctx c = {xt, float_zp, qmin, qmax, r};
	qref_torch_pc_out o;
	pc_result pr;
	if (!float_zp) {
		pr = pc_int_zp(&c, x, s, (int32_t)zp);
		o.alt_y = pr.y;
		o.alt_mask = pr.mask;
	} else {
		pr = pc_float_zp(&c, x, s, (float)zp, &o.alt_y, &o.alt_mask);
		if (pr.ub) {
			o.alt_y = pr.y;
			o.alt_mask = pr.mask;
		}
	}
	o.y = pr.y;
	o.mask = pr.mask;
	o.ub = pr.ub;
	return o;
}

/* fake_quantize_per_channel_affine, and its _cachemask (row->param 1). */
static qcf_status per_channel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int cachemask = row->param;
	qcf_status s = check_io(call, 3, cachemask, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	const qcf_tensor *st = &call->inputs[1];
	const qcf_tensor *zt = &call->inputs[2];
	int64_t axis, qmin, qmax;
	if ((s = qref_torch_pc_check(call, x, st, zt, &axis, &qmin, &qmax, d)) != QCF_OK)
		return s;
	const int float_zp = zt->dtype != QCF_INT32;
	const qref_rounding rmode = qref_detail_rounding(d);

	qcf_quant ax;
	memset(&ax, 0, sizeof ax);
	ax.axis = (int32_t)axis;
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		size_t ch = (size_t)qref_channel(x, &ax, i);
		float sc = (float)qref_get(st, ch);
		double zpd = qref_get(zt, ch); /* exact for int32, float32, float16 */
		double lo = qref_torch_to_dtype(x->dtype, ((double)qmin - zpd) * (double)sc);
		double hi = qref_torch_to_dtype(x->dtype, ((double)qmax - zpd) * (double)sc);
		qref_torch_pc_out r = qref_torch_pc_elem(x->dtype, qref_get(x, i), sc, zpd,
		                                         float_zp, qmin, qmax, rmode);
		put(call, d, i, r.y, r.mask, r.ub, lo, hi, sc);
		if (r.ub)
			continue;
		/* a fused-multiply-add build may round the other way: accept both */
		if (r.alt_y != r.y)
			qref_mark_any(d, 0, i, fmin(r.alt_y, r.y), fmax(r.alt_y, r.y));
		if (r.alt_mask != r.mask && cachemask)
			qref_mark_any(d, 1, i, 0.0, 1.0);
	}
	return QCF_OK;
}

const qref_attr_schema qref_torch_pt_attrs[] = {
        A_NUM_REQ("scale"),
        A_INT_REQ("zero_point", -INF, INF),
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        END,
};

const qref_attr_schema qref_torch_pc_attrs[] = {
        A_INT_REQ("axis", -INF, INF),
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        END,
};

const qref_op qref_ops_torch_fake_quant[] = {
        {.schema = {.semantics = "torch",
                    .op = "fake_quantize_per_tensor_affine",
                    XY,
                    .attrs = qref_torch_pt_attrs},
         .kernel = per_tensor,
         .param = 0},
        {.schema = {.semantics = "torch",
                    .op = "fake_quantize_per_tensor_affine_cachemask",
                    IO(LIST("x"), 1, 1, LIST("y", "mask"), 2),
                    .attrs = qref_torch_pt_attrs},
         .kernel = per_tensor,
         .param = 1},
        {.schema = {.semantics = "torch",
                    .op = "fake_quantize_per_channel_affine",
                    IO(LIST("x", "scale", "zero_point"), 3, 3, LIST("y"), 1),
                    .attrs = qref_torch_pc_attrs},
         .kernel = per_channel,
         .param = 0},
        {.schema = {.semantics = "torch",
                    .op = "fake_quantize_per_channel_affine_cachemask",
                    IO(LIST("x", "scale", "zero_point"), 3, 3, LIST("y", "mask"), 2),
                    .attrs = qref_torch_pc_attrs},
         .kernel = per_channel,
         .param = 1},
        {.schema = {.op = NULL}},
};
