/*
 * PyTorch fake quantization, the backward side (specs/torch/OPERATORS.md):
 *
 *  - fake_quantize_per_{tensor,channel}_affine_backward(dY, X, ...): the
 *    autograd formula of the forward ops (tools/autograd/derivatives.yaml:
 *    fake_quantize_per_*_affine_cachemask_backward(grad, mask) with the mask
 *    the forward kernel computes from X): dX = dY * mask, the mask of
 *    reference/torch_fake_quant.c (quant_min <= unclamped q <= quant_max).
 *    aten has no op of that signature today (torch <= 1.9 had one of this
 *    name); the name is "<forward>_backward".
 *  - fake_quantize_per_{tensor,channel}_affine_cachemask_backward(dY, mask):
 *    aten's own ops (FakeQuantPerTensorAffine.cpp, FakeQuantPerChannelAffine
 *    .cpp): dY * mask in dY's dtype.
 *  - _fake_quantize_learnable_per_{tensor,channel}_affine and their
 *    _backward (same files; kernels in cpu/kernels/QuantizedOpKernels.cpp
 *    fake_quantize_learnable_{tensor,channel}_grad_kernel_cpu).
 *
 * Arithmetic of the learnable backward kernels, all float32 (the kernels'
 * variables are float; grad_factor arrives as float):
 *   inv = 1.0f / s; dsmall = qmin - z; dbig = qmax - z (in float)
 *   xq  = (int64) nearbyintf(z + x * inv)     zero point BEFORE rounding
 *   dX  = dY * (qmin <= xq <= qmax)
 *   xfq = (clamp(xq) - z) * s
 *   outside: dZ = ((dY * -1) * s) * gf; dS = (dY * (xq < qmin ? dsmall : dbig)) * gf
 *   inside:  dZ = 0;                    dS = ((dY * (xfq - x)) * inv) * gf
 *   per tensor z is trunc(clamp(zp[0] + 0.5f)) (an int64; the forward uses
 *   nearbyint), per channel z = round_half_even(zp[c]) clamped (a float).
 * Then dScale and dZeroPoint are sums of those per-element terms (at::sum
 * over a float tensor: a cascade/vectorised float sum whose order is the
 * library's). The reference sums in double in index order and rounds once
 * to float; it accepts any value within the error bound of float summation
 * in ANY order, n * 2^-24 * sum|term| (+1%), around the exact sum, widened by
 * the terms a fused-multiply-add build computes (QuantizedOpKernels.cpp is
 * compiled again with -mavx2 -mfma, where `z + x * inv` and `xfq - x` may
 * contract to one FMA; specs/torch/OPERATORS.md, "Fake quantization"). Elements whose mask the FMA
 * build would flip get dX marked as either value.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "op.h"
#include "torch.h"

#define TWO63 0x1p63

/* ---- small helpers ------------------------------------------------------- */

static qcf_status grad_factor(const qcf_op_call *call, double *gf, qref_detail *d)
{
	*gf = 1.0; /* native_functions.yaml: float grad_factor=1.0 */
	if (qref_attr_number(call, "grad_factor", gf) < 0)
		return qref_fail_attr(d, "grad_factor", QCF_INVALID_PARAM,
		                      "%s: attribute 'grad_factor' must be a number", call->op);
	return QCF_OK;
}

static qcf_status check_qrange(const qcf_op_call *call, int64_t qmin, int64_t qmax, qref_detail *d)
{
	if (qmin > qmax)
		return qref_fail_attr(
		        d, "quant_min", QCF_INVALID_PARAM,
		        "%s: `quant_min` should be less than or equal to `quant_max`.", call->op);
	return QCF_OK;
}

/* The learnable kernels mix int64 and float arithmetic on quant_min, quant_max and the zero
 * point; beyond int32 that is not modelled (torch itself checks no such bound). */
static qcf_status check_int32_range(const qcf_op_call *call, int64_t qmin, int64_t qmax,
                                    qref_detail *d)
{
	if (qmin < INT32_MIN || qmax > INT32_MAX)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: quant_min/quant_max beyond int32 are not implemented",
		                 call->op);
	return QCF_OK;
}

/* quant_min, quant_max and grad_factor of the learnable ops, quant_min/max within int32. */
static qcf_status learn_attrs(const qcf_op_call *call, int64_t *qmin, int64_t *qmax, double *gf,
                              qref_detail *d)
{
	qcf_status s;
	if ((s = qref_torch_int_attr(call, "quant_min", qmin, d)) != QCF_OK ||
	    (s = qref_torch_int_attr(call, "quant_max", qmax, d)) != QCF_OK ||
	    (s = grad_factor(call, gf, d)) != QCF_OK)
		return s;
	return check_int32_range(call, *qmin, *qmax, d);
}

/* FakeQuantPerTensorAffine.cpp: "`zero_point` must be between `quant_min` and `quant_max`." */
static qcf_status check_zp_in(const qcf_op_call *call, int64_t zp, int64_t qmin, int64_t qmax,
                              qref_detail *d)
{
	if (zp < qmin || zp > qmax)
		return qref_fail_attr(
		        d, "zero_point", QCF_INVALID_PARAM,
		        "%s: `zero_point` must be between `quant_min` and `quant_max`.", call->op);
	return QCF_OK;
}

/* Output dX of dY * mask: exact in double (the mask is 0 or 1), stored in the output dtype. */
static void put_dx(const qcf_op_call *call, qref_detail *d, size_t i, double dy, int mask,
                   int either)
{
	qref_set(&call->outputs[0], i, dy * (mask ? 1.0 : 0.0));
	if (either)
		qref_mark_any(d, 0, i, fmin(dy * 0.0, dy), fmax(dy * 0.0, dy));
	else
		qref_mark_exact(d, 0, i);
}

/* Fake-quantized output on the grid of step s. */
static void put_y(const qcf_op_call *call, qref_detail *d, size_t i, double y, int ub, double lo,
                  double hi, float s)
{
	qref_set(&call->outputs[0], i, y);
	qref_set_step(d, 0, i, s > 0 ? (double)s : 0.0);
	if (ub)
		qref_mark_any(d, 0, i, fmin(lo, hi), fmax(lo, hi));
	else
		qref_mark_exact(d, 0, i);
}

static qcf_status need_float_io(const qcf_op_call *call, const qcf_tensor *x, qref_detail *d)
{
	if (!qref_torch_is_float(x->dtype))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input must be float32, float64, float16 or bfloat16, got %s",
		                 call->op, qref_dtype_name(x->dtype));
	const qcf_tensor *y = &call->outputs[0];
	if (y->dtype != x->dtype || !qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_TENSOR, QCF_INVALID_PARAM,
		                        "%s: output must have the input's dtype and shape",
		                        call->op);
	return QCF_OK;
}

/* dY (input 0) and X (input 1) of the straight-through backward ops. */
static qcf_status check_dy_x(const qcf_op_call *call, qref_detail *d)
{
	const qcf_tensor *dy = &call->inputs[0], *x = &call->inputs[1];
	qcf_status s = need_float_io(call, x, d);
	if (s != QCF_OK)
		return s;
	if (dy->dtype != x->dtype || !qref_same_shape(dy, x))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: dY must have X's dtype and shape (the forward output's)",
		                 call->op);
	return QCF_OK;
}

/* ---- straight-through estimator ------------------------------------------ */

static qcf_status qref_torch_fq_per_tensor_backward(const qcf_op_call *call, const qref_op *row,
                                                    qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK || (s = check_dy_x(call, d)) != QCF_OK)
		return s;
	double scale;
	int r = qref_attr_number(call, "scale", &scale);
	if (r <= 0)
		return qref_fail_attr(d, "scale", QCF_INVALID_PARAM, "%s: attribute 'scale' %s",
		                      call->op, r == 0 ? "missing" : "must be a number");
	int64_t zp, qmin, qmax;
	if ((s = qref_torch_int_attr(call, "zero_point", &zp, d)) != QCF_OK ||
	    (s = qref_torch_int_attr(call, "quant_min", &qmin, d)) != QCF_OK ||
	    (s = qref_torch_int_attr(call, "quant_max", &qmax, d)) != QCF_OK ||
	    (s = check_qrange(call, qmin, qmax, d)) != QCF_OK)
		return s;
	/* FakeQuantPerTensorAffine.cpp, the forward's TORCH_CHECKs */
	if ((s = check_zp_in(call, zp, qmin, qmax, d)) != QCF_OK)
		return s;
	if ((s = qref_torch_check_rounding(call, d, "x * inv to an integer")) != QCF_OK)
		return s;
	const qcf_tensor *dy = &call->inputs[0], *x = &call->inputs[1];
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		double y;
		int mask;
		int ub = qref_torch_pt_elem(x->dtype, qref_get(x, i), (float)scale, zp, qmin, qmax,
		                            qref_detail_rounding(d), &y, &mask, NULL);
		put_dx(call, d, i, qref_get(dy, i), mask, ub);
	}
	return QCF_OK;
}

static qcf_status qref_torch_fq_per_channel_backward(const qcf_op_call *call, const qref_op *row,
                                                     qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 4, 1, d);
	if (s != QCF_OK || (s = check_dy_x(call, d)) != QCF_OK)
		return s;
	const qcf_tensor *dy = &call->inputs[0], *x = &call->inputs[1];
	const qcf_tensor *st = &call->inputs[2], *zt = &call->inputs[3];
	int64_t axis, qmin, qmax;
	if ((s = qref_torch_pc_check(call, x, st, zt, &axis, &qmin, &qmax, d)) != QCF_OK)
		return s;
	qcf_quant ax;
	memset(&ax, 0, sizeof ax);
	ax.axis = (int32_t)axis;
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		size_t c = (size_t)qref_channel(x, &ax, i);
		qref_torch_pc_out o = qref_torch_pc_elem(
		        x->dtype, qref_get(x, i), (float)qref_get(st, c), qref_get(zt, c),
		        zt->dtype != QCF_INT32, qmin, qmax, qref_detail_rounding(d));
		put_dx(call, d, i, qref_get(dy, i), o.mask, o.ub || o.alt_mask != o.mask);
	}
	return QCF_OK;
}

static qcf_status qref_torch_fq_cachemask_backward(const qcf_op_call *call, const qref_op *row,
                                                   qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *dy = &call->inputs[0], *m = &call->inputs[1];
	/* FakeQuantPer{Tensor,Channel}Affine.cpp *_cachemask_backward */
	if (m->dtype != QCF_BOOL)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Expected mask.scalar_type() == ScalarType::Bool to be true, "
		                 "got %s",
		                 call->op, qref_dtype_name(m->dtype));
	size_t n = qref_tensor_numel(dy);
	if (qref_tensor_numel(m) != n)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: `mask` and `dY` are not the same size: `mask` is size %zu and "
		        "`dY` is size %zu",
		        call->op, qref_tensor_numel(m), n);
	if (!qref_same_shape(dy, m))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: dY * mask broadcasts shapes that differ; not implemented",
		                 call->op);
	if ((s = need_float_io(call, dy, d)) != QCF_OK)
		return s;
	if (qref_detail_rounding(d) != QREF_ROUND_DEFAULT)
		return qref_rounding_na(call, d, qref_detail_rounding(d), "nothing");
	for (size_t i = 0; i < n; i++)
		put_dx(call, d, i, qref_get(dy, i), qref_get(m, i) != 0.0, 0);
	return QCF_OK;
}

/* ---- learnable forward ---------------------------------------------------- */

static qcf_status qref_torch_learnable_per_tensor(const qcf_op_call *call, const qref_op *row,
                                                  qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 3, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0], *st = &call->inputs[1], *zt = &call->inputs[2];
	if ((s = need_float_io(call, x, d)) != QCF_OK)
		return s;
	if (!qref_dtype_is_float(st->dtype) || !qref_dtype_is_float(zt->dtype))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: scale and zero_point must be float tensors", call->op);
	int64_t qmin, qmax;
	double gf;
	if ((s = learn_attrs(call, &qmin, &qmax, &gf, d)) != QCF_OK)
		return s;
	/* scale[0].item<float>(), zero_point[0].item<float>() */
	if (qref_tensor_numel(st) < 1 || qref_tensor_numel(zt) < 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: index 0 is out of bounds for dimension 0 with size 0",
		                 call->op);
	const float sc = (float)qref_get(st, 0);
	/* _get_zero_point_from_tensor(is_forward = true): nearbyint, clamp in float, to int64 */
	float zf = nearbyintf((float)qref_get(zt, 0));
	zf = fminf(fmaxf(zf, (float)qmin), (float)qmax);
	if (isnan(zf))
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: NaN zero point is undefined", call->op);
	int64_t zp = (int64_t)zf;
	/* then fake_quantize_per_tensor_affine's TORCH_CHECKs */
	if ((s = check_qrange(call, qmin, qmax, d)) != QCF_OK)
		return s;
	if ((s = check_zp_in(call, zp, qmin, qmax, d)) != QCF_OK)
		return s;
	if ((s = qref_torch_check_rounding(call, d, "x * inv to an integer")) != QCF_OK)
		return s;
	/* an undefined element may be any value on either torch version's grid */
	double lo, hi;
	qref_torch_pt_range(x->dtype, sc, zp, qmin, qmax, &lo, &hi);
	const qref_rounding rmode = qref_detail_rounding(d);
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		double y, y113;
		int mask;
		int ub = qref_torch_pt_elem(x->dtype, qref_get(x, i), sc, zp, qmin, qmax, rmode, &y,
		                            &mask, &y113);
		put_y(call, d, i, y, ub, lo, hi, sc);
		if (!ub) /* float64: torch 1.13's double product is torch too */
			qref_torch_pt_mark_113(d, 0, i, qref_get(&call->outputs[0], i), y113);
	}
	return QCF_OK;
}

/* zero_point.round().clamp_(quant_min, quant_max), element c (a float). */
static float rounded_zp(const qcf_tensor *zt, size_t c, int64_t qmin, int64_t qmax)
{
	double z = qref_get(zt, c);
	float zr = zt->dtype == QCF_FLOAT64 ? (float)nearbyint(z) : nearbyintf((float)z);
	/* clamp: min(max(v, lo), hi), so hi wins when lo > hi */
	return fminf(fmaxf(zr, (float)qmin), (float)qmax);
}

static qcf_status qref_torch_learnable_per_channel(const qcf_op_call *call, const qref_op *row,
                                                   qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 3, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0], *st = &call->inputs[1], *zt = &call->inputs[2];
	if ((s = need_float_io(call, x, d)) != QCF_OK)
		return s;
	if (zt->dtype != QCF_FLOAT32 && zt->dtype != QCF_FLOAT16 && zt->dtype != QCF_INT32)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: zero_point must be float32, float16 or int32, got %s",
		                 call->op, qref_dtype_name(zt->dtype));
	int64_t qmin, qmax, axis;
	double gf;
	if ((s = learn_attrs(call, &qmin, &qmax, &gf, d)) != QCF_OK)
		return s;
	/* _get_rounded_zero_point(...).to(at::kInt), then fake_quantize_per_channel_affine */
	size_t nz = qref_tensor_numel(zt);
	int32_t *zi = malloc(sizeof(int32_t) * (nz ? nz : 1));
	if (!zi)
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	for (size_t c = 0; c < nz; c++) {
		float z = rounded_zp(zt, c, qmin, qmax);
		if (!(fabsf(z) < 0x1p31f)) {
			free(zi);
			return qref_fail(d, QCF_NOT_SUPPORTED,
			                 "%s: zero point %g does not convert to int32 (undefined)",
			                 call->op, (double)z);
		}
		zi[c] = (int32_t)z;
	}
	qcf_tensor zint = *zt;
	zint.dtype = QCF_INT32;
	zint.data = zi;
	zint.nbytes = sizeof(int32_t) * nz;
	s = qref_torch_pc_check(call, x, st, &zint, &axis, &qmin, &qmax, d);
	if (s == QCF_OK) {
		qcf_quant ax;
		memset(&ax, 0, sizeof ax);
		ax.axis = (int32_t)axis;
		size_t n = qref_tensor_numel(x);
		for (size_t i = 0; i < n; i++) {
			size_t c = (size_t)qref_channel(x, &ax, i);
			float sc = (float)qref_get(st, c);
			double z = (double)zi[c];
			qref_torch_pc_out o =
			        qref_torch_pc_elem(x->dtype, qref_get(x, i), sc, z, 0, qmin, qmax,
			                           qref_detail_rounding(d));
			double lo = qref_torch_to_dtype(x->dtype, ((double)qmin - z) * (double)sc);
			double hi = qref_torch_to_dtype(x->dtype, ((double)qmax - z) * (double)sc);
			put_y(call, d, i, o.y, o.ub, lo, hi, sc);
		}
	}
	free(zi);
	return s;
}

/* ---- learnable backward --------------------------------------------------- */

/* One term of the learnable gradient kernels (see the top of this file). */
typedef struct {
	int ub;       /* (int64) of NaN, inf or |q| >= 2^63: undefined */
	int mask;     /* qmin <= xq <= qmax */
	float dscale; /* dScale term */
	float dzp;    /* dZeroPoint term */
} lterm;

/*
 * fused: the z + x * inv and xfq - x of an FMA build. z is the zero point as
 * the kernel holds it (per tensor an int64, converted to float where it meets
 * a float; per channel a float); zi its int64 value for the per-tensor kernel
 * (xfq = (float)(clamp(xq) - zi) * s), or per_channel: xfq = ((float)clamp(xq) - z) * s.
 */
static lterm learn_term(float x, float dy, float s, float z, int64_t zi, int per_channel,
                        int64_t qmin, int64_t qmax, float gf, qref_rounding r, int fused)
{
	lterm t;
	const float inv = 1.0f / s;
	float dsmall, dbig;
	if (per_channel) {
		dsmall = (float)qmin - z;
		dbig = (float)qmax - z;
	} else {
		dsmall = (float)(qmin - zi);
		dbig = (float)(qmax - zi);
	}
	float v = fused ? fmaf(x, inv, z) : z + x * inv;
	float rv = qref_torch_round_f(v, r);
	t.ub = !(fabsf(rv) < (float)TWO63);
	/* torch on x86 converts those to INT64_MIN: "below quant_min" */
	int64_t xq = t.ub ? INT64_MIN : (int64_t)rv;
	t.mask = xq >= qmin && xq <= qmax;
	int64_t k = xq < qmin ? qmin : xq > qmax ? qmax : xq;
	if (!t.mask) {
		t.dzp = ((dy * -1.0f) * s) * gf;
		t.dscale = (dy * (xq < qmin ? dsmall : dbig)) * gf;
	} else {
		float kz = per_channel ? (float)k - z : (float)(k - zi);
		float diff = fused ? fmaf(kz, s, -x) : kz * s - x;
		t.dzp = 0.0f;
		t.dscale = ((dy * diff) * inv) * gf;
	}
	return t;
}

/* Running sum of one reduced output element. */
typedef struct {
	double sum, lo, hi, abs;
	double quantum; /* the smallest lowest set bit of a nonzero term; 0: none yet */
	size_t n;
} lsum;

static void lsum_quantum(lsum *a, double v)
{
	if (v == 0.0 || !isfinite(v))
		return;
	int e;
	frexp(v, &e);
	double u = ldexp(1.0, e - 24); /* v is a float32: a multiple of this ... */
	while (fmod(v, 2.0 * u) == 0.0)
		u *= 2.0; /* ... and of its lowest set bit */
	if (a->quantum == 0.0 || u < a->quantum)
		a->quantum = u;
}

static void lsum_add(lsum *a, double v, double alt1, double alt2)
{
	a->sum += v;
	a->lo += fmin(v, fmin(alt1, alt2));
	a->hi += fmax(v, fmax(alt1, alt2));
	a->abs += fmax(fabs(v), fmax(fabs(alt1), fabs(alt2)));
	lsum_quantum(a, v);
	lsum_quantum(a, alt1);
	lsum_quantum(a, alt2);
	a->n++;
}

/* Writes element j of output k: the double sum rounded to float, and the band of float sums. */
static void lsum_put(const qcf_op_call *call, qref_detail *d, int k, size_t j, const lsum *a)
{
	float v = (float)a->sum;
	qref_set(&call->outputs[k], j, (double)v);
	double b = 1.01 * (double)a->n * 0x1p-24 * a->abs;
	/* every term a multiple of the quantum and the sum of |term| below 2^24 quanta: every
	 * partial sum in any order is a float32, the float sum is exact */
	if (a->abs <= 0x1p24 * a->quantum)
		b = 0.0;
	double lo = a->lo - b, hi = a->hi + b;
	if (lo == hi && (double)v == lo)
		qref_mark_exact(d, k, j);
	else
		qref_mark_any(d, k, j, fmin(lo, (double)v), fmax(hi, (double)v));
}

/* One element of the learnable backward: dX, and the terms into the sums ds and dz. */
static void learn_elem(const qcf_op_call *call, qref_detail *d, size_t i, float x, float dy,
                       float s, float z, int64_t zi, int per_channel, int64_t qmin, int64_t qmax,
                       float gf, lsum *ds, lsum *dz)
{
	qref_rounding r = qref_detail_rounding(d);
	lterm a = learn_term(x, dy, s, z, zi, per_channel, qmin, qmax, gf, r, 0);
	lterm b = learn_term(x, dy, s, z, zi, per_channel, qmin, qmax, gf, r, 1);
	put_dx(call, d, i, (double)dy, a.mask, a.ub || a.mask != b.mask);
	double s_alt = b.dscale, z_alt = b.dzp, s_alt2 = s_alt, z_alt2 = z_alt;
	if (a.ub) {
		/* another build saturates instead: either end's term */
		float below = (dy * ((per_channel ? (float)qmin - z : (float)(qmin - zi)))) * gf;
		float above = (dy * ((per_channel ? (float)qmax - z : (float)(qmax - zi)))) * gf;
		s_alt = below;
		s_alt2 = above;
		z_alt = z_alt2 = ((dy * -1.0f) * s) * gf;
	}
	lsum_add(ds, a.dscale, s_alt, s_alt2);
	lsum_add(dz, a.dzp, z_alt, z_alt2);
}

static qcf_status need_f32(const qcf_op_call *call, const qcf_tensor *t, const char *name,
                           qref_detail *d)
{
	if (t->dtype != QCF_FLOAT32)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: Expected %s.scalar_type() == ScalarType::Float to be true, but "
		        "got false (%s)",
		        call->op, name, qref_dtype_name(t->dtype));
	return QCF_OK;
}

static qcf_status check_learn_outputs(const qcf_op_call *call, const qcf_tensor *x,
                                      const qcf_tensor *want_s, const qcf_tensor *want_z,
                                      qref_detail *d)
{
	const qcf_tensor *dx = &call->outputs[0];
	if (dx->dtype != QCF_FLOAT32 || !qref_same_shape(dx, x))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: dX must be float32 with X's shape",
		                 call->op);
	if (call->outputs[1].dtype != QCF_FLOAT32 || call->outputs[2].dtype != QCF_FLOAT32 ||
	    !qref_same_shape(&call->outputs[1], want_s) ||
	    !qref_same_shape(&call->outputs[2], want_z))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: dScale and dZeroPoint must be float32 with the shapes of "
		                 "scale and zero_point",
		                 call->op);
	return QCF_OK;
}

/* X.numel() == 0: torch returns (X, scale, zero_point) themselves. */
static qcf_status learn_empty(const qcf_op_call *call, qref_detail *d)
{
	for (int k = 1; k <= 2; k++) {
		const qcf_tensor *in = &call->inputs[k + 1];
		size_t m = qref_tensor_numel(in);
		for (size_t j = 0; j < m; j++) {
			qref_set(&call->outputs[k], j, qref_get(in, j));
			qref_mark_exact(d, k, j);
		}
	}
	return QCF_OK;
}

static qcf_status qref_torch_learnable_per_tensor_backward(const qcf_op_call *call,
                                                           const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 4, 3, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *dy = &call->inputs[0], *x = &call->inputs[1];
	const qcf_tensor *st = &call->inputs[2], *zt = &call->inputs[3];
	int64_t qmin, qmax;
	double gfd;
	if ((s = learn_attrs(call, &qmin, &qmax, &gfd, d)) != QCF_OK)
		return s;
	/* FakeQuantPerTensorAffine.cpp, in its order */
	if (qref_tensor_numel(st) < 1 || qref_tensor_numel(zt) < 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: index 0 is out of bounds for dimension 0 with size 0",
		                 call->op);
	if ((s = need_f32(call, dy, "dY", d)) != QCF_OK ||
	    (s = need_f32(call, x, "X", d)) != QCF_OK ||
	    (s = need_f32(call, st, "scale", d)) != QCF_OK ||
	    (s = need_f32(call, zt, "zero_point", d)) != QCF_OK)
		return s;
	const float sc = (float)qref_get(st, 0);
	/* _get_zero_point_from_tensor(is_forward = false): zp + 0.5f, clamp in float, to int64
	 * (truncation toward zero) */
	float zf = (float)qref_get(zt, 0) + 0.5f;
	zf = fminf(fmaxf(zf, (float)qmin), (float)qmax);
	if (isnan(zf))
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: NaN zero point is undefined", call->op);
	const int64_t zp = (int64_t)zf;
	if (qref_tensor_numel(x) != qref_tensor_numel(dy))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: `X` and `dY` are not the same size",
		                 call->op);
	if (!qref_same_shape(x, dy))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: X and dY of the same size but different shapes", call->op);
	if (!(qmin <= 0 && qmax >= 0))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: `quant_min` should be less than or equal to `quant_max`, and "
		                 "the quantization range should include 0.",
		                 call->op);
	if ((s = check_zp_in(call, zp, qmin, qmax, d)) != QCF_OK)
		return s;
	if ((s = qref_torch_check_rounding(call, d, "z + x * inv to an integer")) != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(x);
	static const int64_t one = 1;
	qcf_tensor t1 = {0};
	t1.rank = 1;
	t1.shape = &one;
	if ((s = check_learn_outputs(call, x, n ? &t1 : st, n ? &t1 : zt, d)) != QCF_OK)
		return s;
	if (n == 0)
		return learn_empty(call, d);
	lsum ds = {0}, dz = {0};
	for (size_t i = 0; i < n; i++)
		learn_elem(call, d, i, (float)qref_get(x, i), (float)qref_get(dy, i), sc, (float)zp,
		           zp, 0, qmin, qmax, (float)gfd, &ds, &dz);
	lsum_put(call, d, 1, 0, &ds);
	lsum_put(call, d, 2, 0, &dz);
	return QCF_OK;
}

static qcf_status qref_torch_learnable_per_channel_backward(const qcf_op_call *call,
                                                            const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 4, 3, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *dy = &call->inputs[0], *x = &call->inputs[1];
	const qcf_tensor *st = &call->inputs[2], *zt = &call->inputs[3];
	int64_t qmin, qmax, axis;
	double gfd;
	if ((s = qref_torch_int_attr(call, "axis", &axis, d)) != QCF_OK ||
	    (s = learn_attrs(call, &qmin, &qmax, &gfd, d)) != QCF_OK)
		return s;
	/* FakeQuantPerChannelAffine.cpp: a bfloat16 X converts X, dY, scale and zero_point to
	 * float first (dX is then float32); otherwise all four must be float32 */
	if (x->dtype != QCF_BFLOAT16) {
		if ((s = need_f32(call, dy, "dY_", d)) != QCF_OK ||
		    (s = need_f32(call, x, "X_", d)) != QCF_OK ||
		    (s = need_f32(call, st, "scale_", d)) != QCF_OK ||
		    (s = need_f32(call, zt, "zero_point_", d)) != QCF_OK)
			return s;
	} else if (!qref_dtype_is_float(dy->dtype) || !qref_dtype_is_float(st->dtype) ||
	           !qref_dtype_is_float(zt->dtype)) {
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: dY, scale and zero_point must be float",
		                 call->op);
	}
	if (!qref_same_shape(x, dy))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: `X` and `dY` are not the same size",
		                 call->op);
	if (!(qmin <= 0 && qmax >= 0))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Expecting `quant_min` <= 0 and `quant_max` >= 0", call->op);
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
	/* X_.size(axis) raises first for an axis outside [-dim, dim); then torch's own check */
	if (axis < 0 || axis >= x->rank)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: `axis` must be between 0 and number of dimensions of input "
		                 "(axis %lld, rank %" PRId32 ")",
		                 call->op, (long long)axis, x->rank);
	if (st->shape[0] != x->shape[axis])
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: dimensions of scale and zero-point are not consistent with "
		                 "input tensor",
		                 call->op);
	/* the rounded zero points lie in [quant_min, quant_max] after the clamp */
	if ((s = qref_torch_check_rounding(call, d, "z + x * inv to an integer")) != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(x);
	if (n > 0 && x->rank < 2)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: a 1-D X sums dScale over an empty dim list, i.e. over every "
		                 "channel, into a 0-d tensor; not implemented",
		                 call->op);
	const qcf_tensor *dx = &call->outputs[0];
	if (dx->dtype != QCF_FLOAT32 || !qref_same_shape(dx, x))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: dX must be float32 with X's shape",
		                 call->op);
	if ((s = check_learn_outputs(call, x, st, zt, d)) != QCF_OK)
		return s;
	if (n == 0)
		return learn_empty(call, d);
	size_t nc = (size_t)st->shape[0];
	lsum *ds = calloc(nc * 2, sizeof *ds);
	if (!ds)
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	lsum *dz = ds + nc;
	qcf_quant ax;
	memset(&ax, 0, sizeof ax);
	ax.axis = (int32_t)axis;
	for (size_t i = 0; i < n; i++) {
		size_t c = (size_t)qref_channel(x, &ax, i);
		float z = rounded_zp(zt, c, qmin, qmax);
		learn_elem(call, d, i, (float)qref_get(x, i), (float)qref_get(dy, i),
		           (float)qref_get(st, c), z, (int64_t)z, 1, qmin, qmax, (float)gfd, &ds[c],
		           &dz[c]);
	}
	for (size_t c = 0; c < nc; c++) {
		lsum_put(call, d, 1, c, &ds[c]);
		lsum_put(call, d, 2, c, &dz[c]);
	}
	free(ds);
	return QCF_OK;
}

static const qref_attr_schema learn_pt_attrs[] = {
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        A_NUM("grad_factor", "1"),
        END,
};

static const qref_attr_schema learn_pc_attrs[] = {
        A_INT_REQ("axis", -INF, INF),
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        A_NUM("grad_factor", "1"),
        END,
};

const qref_op qref_ops_torch_fake_quant_grad[] = {
        {.schema = {.semantics = "torch",
                    .op = "fake_quantize_per_tensor_affine_backward",
                    IO(LIST("dY", "X"), 2, 2, LIST("dX"), 1),
                    .attrs = qref_torch_pt_attrs},
         .kernel = qref_torch_fq_per_tensor_backward},
        {.schema = {.semantics = "torch",
                    .op = "fake_quantize_per_channel_affine_backward",
                    IO(LIST("dY", "X", "scale", "zero_point"), 4, 4, LIST("dX"), 1),
                    .attrs = qref_torch_pc_attrs},
         .kernel = qref_torch_fq_per_channel_backward},
        {.schema = {.semantics = "torch",
                    .op = "fake_quantize_per_tensor_affine_cachemask_backward",
                    IO(LIST("dY", "mask"), 2, 2, LIST("dX"), 1),
                    .attrs = qref_no_attrs},
         .kernel = qref_torch_fq_cachemask_backward},
        {.schema = {.semantics = "torch",
                    .op = "fake_quantize_per_channel_affine_cachemask_backward",
                    IO(LIST("dY", "mask"), 2, 2, LIST("dX"), 1),
                    .attrs = qref_no_attrs},
         .kernel = qref_torch_fq_cachemask_backward},
        {.schema = {.semantics = "torch",
                    .op = "_fake_quantize_learnable_per_tensor_affine",
                    IO(LIST("x", "scale", "zero_point"), 3, 3, LIST("y"), 1),
                    .attrs = learn_pt_attrs},
         .kernel = qref_torch_learnable_per_tensor},
        {.schema = {.semantics = "torch",
                    .op = "_fake_quantize_learnable_per_tensor_affine_backward",
                    IO(LIST("dY", "X", "scale", "zero_point"), 4, 4,
                       LIST("dX", "dScale", "dZeroPoint"), 3),
                    .attrs = learn_pt_attrs},
         .kernel = qref_torch_learnable_per_tensor_backward},
        {.schema = {.semantics = "torch",
                    .op = "_fake_quantize_learnable_per_channel_affine",
                    IO(LIST("x", "scale", "zero_point"), 3, 3, LIST("y"), 1),
                    .attrs = learn_pc_attrs},
         .kernel = qref_torch_learnable_per_channel},
        {.schema = {.semantics = "torch",
                    .op = "_fake_quantize_learnable_per_channel_affine_backward",
                    IO(LIST("dY", "X", "scale", "zero_point"), 4, 4,
                       LIST("dX", "dScale", "dZeroPoint"), 3),
                    .attrs = learn_pc_attrs},
         .kernel = qref_torch_learnable_per_channel_backward},
        {.schema = {.op = NULL}},
};
