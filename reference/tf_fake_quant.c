/*
 * TensorFlow fake_quant_with_min_max_{args,vars,vars_per_channel}
 * (tensorflow/core/kernels/fake_quant_ops.cc, fake_quant_ops_functor.h).
 * specs/tf/OPERATORS.md, "Arithmetic". Everything is float32, one rounding per
 * operation, in the order the functor writes it:
 *   Nudge: scale = (max - min) / (qmax - qmin); inv = (qmax - qmin) / (max - min);
 *          zf = qmin - min / scale; zp = qmin if zf < qmin, qmax if zf > qmax,
 *          else roundf(zf) (ties away); nmin = (qmin - zp) * scale,
 *          nmax = (qmax - zp) * scale; quant_zero = floorf(-nmin * inv + 0.5f).
 *   y = floorf(c * inv - quant_zero + 0.5f) * scale, c = clamp(x, nmin, nmax) - nmin
 *       (args, per-channel); vars divides: c / scale instead of c * inv.
 * Rounding is therefore half up. min == max == 0 gives zeros (vars and
 * per-channel only; args requires min < max). Checked against
 * tensorflow/core/kernels/fake_quant_ops_functor.h (the version with
 * quant_zero and inv_nudged_scale from Nudge).
 *
 * Gradients (the same files: Fake*GradientFunctor): with the nudged range of
 * the forward op (min == max == 0: everything passes, min/max gradients 0),
 *   backprops[i]      = g[i] * (nmin <= x[i] <= nmax ? 1.0f : 0.0f)
 *   backprop_wrt_min  = sum of g[i] * (x[i] < nmin ? 1.0f : 0.0f)
 *   backprop_wrt_max  = sum of g[i] * (x[i] > nmax ? 1.0f : 0.0f)
 * in float32: a gradient outside the range gives g * 0 (a signed zero, NaN
 * for an infinite g), a NaN x fails every comparison. TF sums with an Eigen
 * reduction (.sum(), per channel .sum over dimension 0) whose order depends
 * on the build (packets, tree, threads); the reference fixes one: a float32
 * accumulator from +0.0f, adding the terms in flat (row-major) index order,
 * which is Eigen's scalar path. The specs bound the difference in ULP where
 * the sum is inexact (specs/tf/OPERATORS.md).
 *
 * Shape rules: the kernels in fake_quant_ops.cc and the op registrations
 * (tensorflow/core/ops/array_ops.cc shape functions) together; every
 * message quotes TF's.
 *
 * Named roundings (qref.h) replace floorf(v + 0.5f), v = c * inv - quant_zero
 * (or c / scale - quant_zero), by a QREF_ROUND_HALF_* rounding of v; the
 * default and QREF_ROUND_HALF_UP both keep TF's expression exactly (it is
 * not an exact half-up rounding where v + 0.5f rounds: v = 0.49999997f gives
 * 1). quant_zero and the nudged zero point keep their own rounding.
 */
#include <math.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "op.h"

typedef struct {
	float scale, inv, nmin, nmax, qzero;
} tf_nudged;

typedef enum { TF_MUL, TF_DIV } tf_form;

/* 0, or -1 when the range gives no finite positive scale (undefined in TF). */
static int nudge(float min, float max, int qmin, int qmax, tf_nudged *n)
{
	const float qminf = (float)qmin, qmaxf = (float)qmax;
	n->scale = (max - min) / (qmaxf - qminf);
	n->inv = (qmaxf - qminf) / (max - min);
	if (!(n->scale > 0.0f && isfinite(n->scale) && isfinite(n->inv)))
		return -1;
	const float zf = qminf - min / n->scale;
	float zp;
	if (zf < qminf)
		zp = qminf;
	else if (zf > qmaxf)
		zp = qmaxf;
	else if (zf == zf)
		zp = roundf(zf);
	else
		return -1;
	n->nmin = (qminf - zp) * n->scale;
	n->nmax = (qmaxf - zp) * n->scale;
	n->qzero = floorf(-n->nmin * n->inv + 0.5f);
	if (!isfinite(n->nmin) || !isfinite(n->nmax))
		return -1;
	return 0;
}

static float fq(const tf_nudged *n, tf_form form, qref_rounding r, float x)
{
	float c = n->nmax < x ? n->nmax : x; /* Eigen's scalar cwiseMin, then cwiseMax */
	c = c < n->nmin ? n->nmin : c;
	c = c - n->nmin;
	float v = (form == TF_MUL ? c * n->inv : c / n->scale) - n->qzero;
	float q;
	if (r == QREF_ROUND_DEFAULT || r == QREF_ROUND_HALF_UP)
		q = floorf(v + 0.5f);
	else
		q = (float)qref_round_half((double)v, r); /* exact: an integer of a float */
	return q * n->scale;
}

/* NOT_SUPPORTED unless r is the default or a QREF_ROUND_HALF_* rounding. */
static qcf_status check_rounding(const qcf_op_call *call, qref_rounding r, qref_detail *d)
{
	if (r == QREF_ROUND_DEFAULT || qref_rounding_is_half(r)) {
		qref_set_default_rounding(d, QREF_ROUND_HALF_UP); /* floorf(v + 0.5f) */
		return QCF_OK;
	}
	return qref_rounding_na(call, d, r, "(x - nudged_min) / scale - quant_zero to an integer");
}

/* Writes element i of output 0 for one channel's parameters. */
static void put(const qcf_op_call *call, qref_detail *d, size_t i, const tf_nudged *n, tf_form form,
                float x)
{
	qcf_tensor *out = &call->outputs[0];
	const qref_rounding r = qref_detail_rounding(d);
	qref_set_step(d, 0, i, n->scale);
	if (isnan(x)) {
		/* Eigen's scalar and packet min/max treat NaN differently */
		float a = fq(n, form, r, n->nmin), b = fq(n, form, r, n->nmax);
		qref_mark_any(d, 0, i, a < b ? a : b, a < b ? b : a);
		qref_set(out, i, a);
		return;
	}
	qref_mark_exact(d, 0, i);
	qref_set(out, i, fq(n, form, r, x));
}

static void put_zero(const qcf_op_call *call, qref_detail *d, size_t i)
{
	qref_mark_exact(d, 0, i);
	qref_set_step(d, 0, i, 0.0);
	qref_set(&call->outputs[0], i, 0.0);
}

/* num_bits and narrow_range -> [qmin, qmax]. */
static qcf_status qrange(const qcf_op_call *call, int *qmin, int *qmax, qref_detail *d)
{
	int64_t bits = 8, narrow = 0;
	int r = qref_attr_int(call, "num_bits", &bits);
	if (r < 0)
		return qref_fail_attr(d, "num_bits", QCF_INVALID_PARAM,
		                      "%s: num_bits must be an integer", call->op);
	if (bits < 2 || bits > 16)
		return qref_fail_attr(d, "num_bits", QCF_INVALID_PARAM,
		                      "%s: num_bits must be between 2 and 16, inclusive (got %lld)",
		                      call->op, (long long)bits);
	r = qref_attr_int(call, "narrow_range", &narrow);
	if (r < 0 || (narrow != 0 && narrow != 1))
		return qref_fail_attr(d, "narrow_range", QCF_INVALID_PARAM,
		                      "%s: narrow_range must be 0 or 1", call->op);
	*qmin = narrow ? 1 : 0;
	*qmax = (1 << bits) - 1;
	return QCF_OK;
}

/* Every input float32 (TF registers the ops for float only). */
static qcf_status check_float_inputs(const qcf_op_call *call, qref_detail *d)
{
	for (int k = 0; k < call->n_inputs; k++)
		if (call->inputs[k].dtype != QCF_FLOAT32)
			return qref_fail(d, QCF_INVALID_PARAM, "%s: input %d must be float32",
			                 call->op, k);
	return QCF_OK;
}

/* Output k float32 with shape like t's (t NULL: rank 0). */
static qcf_status check_output(const qcf_op_call *call, int k, const qcf_tensor *like,
                               int64_t depth, qref_detail *d)
{
	const qcf_tensor *o = &call->outputs[k];
	int ok = o->dtype == QCF_FLOAT32;
	if (like)
		ok = ok && qref_same_shape(like, o);
	else if (depth < 0)
		ok = ok && o->rank == 0;
	else
		ok = ok && o->rank == 1 && o->shape[0] == depth;
	if (!ok)
		return qref_fail_output(d, k, QREF_PART_TENSOR, QCF_INVALID_PARAM,
		                        "%s: output %d must be float32 of shape %s", call->op, k,
		                        like        ? "the inputs' shape"
		                        : depth < 0 ? "[]"
		                                    : "[depth]");
	return QCF_OK;
}

static qcf_status check_io(const qcf_op_call *call, int n_inputs, qref_detail *d)
{
	qcf_status s = qref_check_call(call, n_inputs, 1, d);
	if (s != QCF_OK || (s = check_float_inputs(call, d)) != QCF_OK)
		return s;
	return check_output(call, 0, &call->inputs[0], -1, d);
}

/* Gradient ops: (gradients, inputs, ...) -> n_outputs; output 0 has the inputs' shape.
 * fake_quant_ops.cc: OP_REQUIRES(input.IsSameSize(gradient)). */
static qcf_status check_grad_io(const qcf_op_call *call, int n_inputs, int n_outputs,
                                qref_detail *d)
{
	qcf_status s = qref_check_call(call, n_inputs, n_outputs, d);
	if (s != QCF_OK || (s = check_float_inputs(call, d)) != QCF_OK)
		return s;
	if (!qref_same_shape(&call->inputs[0], &call->inputs[1]))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: gradient and input must be the same size", call->op);
	return check_output(call, 0, &call->inputs[1], -1, d);
}

/* Nudges one (min, max) pair of a vars op; *zero = 1 for min == max == 0. */
static qcf_status nudge_vars(const qcf_op_call *call, float min, float max, int qmin, int qmax,
                             tf_nudged *n, int *zero, qref_detail *d)
{
	*zero = min == 0.0f && max == 0.0f;
	if (*zero)
		return QCF_OK;
	/* TF has no check here (old versions asserted min < max in debug builds only);
	 * min >= max gives a zero or negative scale and a meaningless result */
	if (!(min < max))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: min must be smaller than max (or both 0), got %g and %g",
		                 call->op, (double)min, (double)max);
	if (nudge(min, max, qmin, qmax, n) != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: range [%g, %g] gives no finite positive scale", call->op,
		                 (double)min, (double)max);
	return QCF_OK;
}

/* The _args attrs: min, max (defaults -6, 6: array_ops.cc), then num_bits and narrow_range,
 * in the order the kernel's constructor checks them (fake_quant_ops.cc). */
static qcf_status args_params(const qcf_op_call *call, tf_nudged *n, qref_detail *d)
{
	double min = -6.0, max = 6.0;
	if (qref_attr_number(call, "min", &min) < 0 || qref_attr_number(call, "max", &max) < 0)
		return qref_fail_attr(d, "min", QCF_INVALID_PARAM,
		                      "%s: min and max must be numbers", call->op);
	float fmin_ = (float)min, fmax_ = (float)max; /* float attrs */
	if (!(fmin_ < fmax_))
		return qref_fail_attr(d, "min", QCF_INVALID_PARAM,
		                      "%s: min has to be smaller than max, was: %g >= %g", call->op,
		                      (double)fmin_, (double)fmax_);
	int qmin, qmax;
	qcf_status s = qrange(call, &qmin, &qmax, d);
	if (s != QCF_OK)
		return s;
	if (nudge(fmin_, fmax_, qmin, qmax, n) != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: range [%g, %g] gives no finite positive scale", call->op,
		                 (double)fmin_, (double)fmax_);
	return QCF_OK;
}

/* min and max of a vars op: rank 0 (fake_quant_ops.cc for the forward op, the
 * registration's WithRank(0) for both). */
static qcf_status check_scalar_minmax(const qcf_op_call *call, int k, qref_detail *d)
{
	for (int j = 0; j < 2; j++) {
		const qcf_tensor *t = &call->inputs[k + j];
		if (t->rank != 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: `%s` must be rank 0 but is rank %d", call->op,
			                 j ? "max" : "min", (int)t->rank);
	}
	return QCF_OK;
}

/* min and max of a per-channel op (inputs k, k + 1) against x's last dimension:
 * rank 1, length depth (fake_quant_ops.cc, array_ops.cc). */
static qcf_status check_channel_minmax(const qcf_op_call *call, const qcf_tensor *x, int k,
                                       int64_t *depth, qref_detail *d)
{
	if (x->rank < 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Shape must be at least rank 1 but is rank 0 (inputs)",
		                 call->op);
	*depth = x->shape[x->rank - 1];
	for (int j = 0; j < 2; j++) {
		const qcf_tensor *t = &call->inputs[k + j];
		const char *name = j ? "max" : "min";
		if (t->rank != 1)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: `%s` must be rank 1 but is rank %d", call->op, name,
			                 (int)t->rank);
		if (t->shape[0] != *depth)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: %s has incorrect size, expected %lld was %lld",
			                 call->op, name, (long long)*depth, (long long)t->shape[0]);
	}
	return QCF_OK;
}

/* Validates every channel's range (nothing written on a refusal). */
static qcf_status check_channels(const qcf_op_call *call, const qcf_tensor *mn,
                                 const qcf_tensor *mx, int64_t depth, int qmin, int qmax,
                                 qref_detail *d)
{
	for (int64_t c = 0; c < depth; c++) {
		tf_nudged n;
		int zero;
		qcf_status s = nudge_vars(call, (float)qref_get(mn, (size_t)c),
		                          (float)qref_get(mx, (size_t)c), qmin, qmax, &n, &zero, d);
		if (s != QCF_OK)
			return s;
	}
	return QCF_OK;
}

static qcf_status qref_tf_fq_args(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = check_io(call, 1, d);
	tf_nudged n;
	if (s != QCF_OK || (s = args_params(call, &n, d)) != QCF_OK ||
	    (s = check_rounding(call, qref_detail_rounding(d), d)) != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	size_t count = qref_tensor_numel(x);
	for (size_t i = 0; i < count; i++)
		put(call, d, i, &n, TF_MUL, (float)qref_get(x, i));
	return QCF_OK;
}

static qcf_status qref_tf_fq_vars(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = check_io(call, 3, d);
	int qmin, qmax;
	if (s != QCF_OK || (s = qrange(call, &qmin, &qmax, d)) != QCF_OK ||
	    (s = check_scalar_minmax(call, 1, d)) != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	float min = (float)qref_get(&call->inputs[1], 0);
	float max = (float)qref_get(&call->inputs[2], 0);
	tf_nudged n;
	int zero;
	if ((s = nudge_vars(call, min, max, qmin, qmax, &n, &zero, d)) != QCF_OK ||
	    (s = check_rounding(call, qref_detail_rounding(d), d)) != QCF_OK)
		return s;
	size_t count = qref_tensor_numel(x);
	for (size_t i = 0; i < count; i++) {
		if (zero)
			put_zero(call, d, i);
		else
			put(call, d, i, &n, TF_DIV, (float)qref_get(x, i));
	}
	return QCF_OK;
}

static qcf_status qref_tf_fq_vars_per_channel(const qcf_op_call *call, const qref_op *row,
                                              qref_detail *d)
{
	(void)row;
	qcf_status s = check_io(call, 3, d);
	int qmin, qmax;
	int64_t depth;
	const qcf_tensor *x = &call->inputs[0];
	const qcf_tensor *mn = &call->inputs[1], *mx = &call->inputs[2];
	if (s != QCF_OK || (s = qrange(call, &qmin, &qmax, d)) != QCF_OK ||
	    (s = check_channel_minmax(call, x, 1, &depth, d)) != QCF_OK ||
	    (s = check_channels(call, mn, mx, depth, qmin, qmax, d)) != QCF_OK ||
	    (s = check_rounding(call, qref_detail_rounding(d), d)) != QCF_OK)
		return s;
	size_t count = qref_tensor_numel(x);
	for (size_t i = 0; i < count; i++) {
		size_t c = i % (size_t)depth;
		tf_nudged n;
		int zero;
		nudge_vars(call, (float)qref_get(mn, c), (float)qref_get(mx, c), qmin, qmax, &n,
		           &zero, d);
		if (zero)
			put_zero(call, d, i);
		else
			put(call, d, i, &n, TF_MUL, (float)qref_get(x, i));
	}
	return QCF_OK;
}

/* ---- gradients (Fake*GradientFunctor in fake_quant_ops_functor.h) ---- */

/* 1.0f inside [nmin, nmax], else 0.0f; NaN x gives 0.0f (every comparison false). */
static float inside(const tf_nudged *n, float x)
{
	return x >= n->nmin && x <= n->nmax ? 1.0f : 0.0f;
}

/* Writes output k, element i, exactly (no grid: compared in ULP). */
static void put_grad(const qcf_op_call *call, qref_detail *d, int k, size_t i, float v)
{
	qref_mark_exact(d, k, i);
	qref_set_step(d, k, i, 0.0);
	qref_set(&call->outputs[k], i, v);
}

/*
 * The gradients of one channel: elements first, first + stride, ... (count of them)
 * of gradients g and inputs x, with range n (NULL: min == max == 0, everything passes);
 * backprops go to output 0, the two sums to element c of outputs 1 and 2 (when
 * sums is set). Sums: float32, +0.0f, then in index order.
 */
static void grad_channel(const qcf_op_call *call, qref_detail *d, const tf_nudged *n, size_t first,
                         size_t stride, size_t count, int sums, size_t c)
{
	const qcf_tensor *g = &call->inputs[0], *x = &call->inputs[1];
	float below = 0.0f, above = 0.0f;
	for (size_t j = 0, i = first; j < count; j++, i += stride) {
		const float gi = (float)qref_get(g, i), xi = (float)qref_get(x, i);
		if (!n) {
			put_grad(call, d, 0, i, gi);
			continue;
		}
		put_grad(call, d, 0, i, gi * inside(n, xi));
		below += gi * (xi < n->nmin ? 1.0f : 0.0f);
		above += gi * (xi > n->nmax ? 1.0f : 0.0f);
	}
	if (sums) {
		put_grad(call, d, 1, c, below); /* min == max == 0: constant 0.0f */
		put_grad(call, d, 2, c, above);
	}
}

static qcf_status qref_tf_fq_args_gradient(const qcf_op_call *call, const qref_op *row,
                                           qref_detail *d)
{
	(void)row;
	qcf_status s = check_grad_io(call, 2, 1, d);
	tf_nudged n;
	if (s != QCF_OK || (s = args_params(call, &n, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, "nothing: gradients are selected, and summed")) !=
	            QCF_OK)
		return s;
	grad_channel(call, d, &n, 0, 1, qref_tensor_numel(&call->inputs[1]), 0, 0);
	return QCF_OK;
}

static qcf_status qref_tf_fq_vars_gradient(const qcf_op_call *call, const qref_op *row,
                                           qref_detail *d)
{
	(void)row;
	qcf_status s = check_grad_io(call, 4, 3, d);
	int qmin, qmax;
	if (s != QCF_OK || (s = qrange(call, &qmin, &qmax, d)) != QCF_OK ||
	    (s = check_scalar_minmax(call, 2, d)) != QCF_OK ||
	    (s = check_output(call, 1, NULL, -1, d)) != QCF_OK ||
	    (s = check_output(call, 2, NULL, -1, d)) != QCF_OK)
		return s;
	float min = (float)qref_get(&call->inputs[2], 0);
	float max = (float)qref_get(&call->inputs[3], 0);
	tf_nudged n;
	int zero;
	if ((s = nudge_vars(call, min, max, qmin, qmax, &n, &zero, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, "nothing: gradients are selected, and summed")) !=
	            QCF_OK)
		return s;
	grad_channel(call, d, zero ? NULL : &n, 0, 1, qref_tensor_numel(&call->inputs[1]), 1, 0);
	return QCF_OK;
}

static qcf_status qref_tf_fq_vars_per_channel_gradient(const qcf_op_call *call, const qref_op *row,
                                                       qref_detail *d)
{
	(void)row;
	qcf_status s = check_grad_io(call, 4, 3, d);
	int qmin, qmax;
	int64_t depth;
	const qcf_tensor *x = &call->inputs[1];
	const qcf_tensor *mn = &call->inputs[2], *mx = &call->inputs[3];
	if (s != QCF_OK || (s = qrange(call, &qmin, &qmax, d)) != QCF_OK)
		return s;
	/* array_ops.cc: gradients WithRankAtLeast(1), WithRankAtMost(4) */
	if (x->rank > 4)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: Shape must be at most rank 4 but is rank %d (gradients)",
		                 call->op, (int)x->rank);
	if ((s = check_channel_minmax(call, x, 2, &depth, d)) != QCF_OK ||
	    (s = check_output(call, 1, NULL, depth, d)) != QCF_OK ||
	    (s = check_output(call, 2, NULL, depth, d)) != QCF_OK ||
	    (s = check_channels(call, mn, mx, depth, qmin, qmax, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, "nothing: gradients are selected, and summed")) !=
	            QCF_OK)
		return s;
	const size_t ud = (size_t)depth, rows = ud ? qref_tensor_numel(x) / ud : 0;
	for (size_t c = 0; c < ud; c++) {
		tf_nudged n;
		int zero;
		nudge_vars(call, (float)qref_get(mn, c), (float)qref_get(mx, c), qmin, qmax, &n,
		           &zero, d);
		grad_channel(call, d, zero ? NULL : &n, c, ud, rows, 1, c);
	}
	return QCF_OK;
}

static const qref_attr_schema args_attrs[] = {
        A_NUM("min", "-6"),
        A_NUM("max", "6"),
        A_INT("num_bits", 2, 16, "8"),
        A_BOOL("narrow_range", "0"),
        END,
};

static const qref_attr_schema vars_attrs[] = {
        A_INT("num_bits", 2, 16, "8"),
        A_BOOL("narrow_range", "0"),
        END,
};

#define BACKPROPS LIST("backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max")

const qref_op qref_ops_tf[] = {
        {.schema = {.semantics = "tf",
                    .op = "fake_quant_with_min_max_args",
                    IO(LIST("inputs"), 1, 1, LIST("outputs"), 1),
                    .attrs = args_attrs},
         .kernel = qref_tf_fq_args},
        {.schema = {.semantics = "tf",
                    .op = "fake_quant_with_min_max_vars",
                    IO(LIST("inputs", "min", "max"), 3, 3, LIST("outputs"), 1),
                    .attrs = vars_attrs},
         .kernel = qref_tf_fq_vars},
        {.schema = {.semantics = "tf",
                    .op = "fake_quant_with_min_max_vars_per_channel",
                    IO(LIST("inputs", "min", "max"), 3, 3, LIST("outputs"), 1),
                    .attrs = vars_attrs},
         .kernel = qref_tf_fq_vars_per_channel},
        {.schema = {.semantics = "tf",
                    .op = "fake_quant_with_min_max_args_gradient",
                    IO(LIST("gradients", "inputs"), 2, 2, LIST("backprops"), 1),
                    .attrs = args_attrs},
         .kernel = qref_tf_fq_args_gradient},
        {.schema = {.semantics = "tf",
                    .op = "fake_quant_with_min_max_vars_gradient",
                    IO(LIST("gradients", "inputs", "min", "max"), 4, 4, BACKPROPS, 3),
                    .attrs = vars_attrs},
         .kernel = qref_tf_fq_vars_gradient},
        {.schema = {.semantics = "tf",
                    .op = "fake_quant_with_min_max_vars_per_channel_gradient",
                    IO(LIST("gradients", "inputs", "min", "max"), 4, 4, BACKPROPS, 3),
                    .attrs = vars_attrs},
         .kernel = qref_tf_fq_vars_per_channel_gradient},
        {.schema = {.op = NULL}},
};
