/*
 * TensorFlow fake_quant_with_min_max_{args,vars,vars_per_channel}
 * (tensorflow/core/kernels/fake_quant_ops.cc, fake_quant_ops_functor.h).
 * FACTS.md sections 1 and 6. Everything is float32, one rounding per
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
	if (r == QREF_ROUND_DEFAULT || qref_rounding_is_half(r))
		return QCF_OK;
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
		return qref_fail(d, QCF_INVALID_PARAM, "%s: num_bits must be an integer", call->op);
	if (bits < 2 || bits > 16)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: num_bits must be between 2 and 16, inclusive (got %lld)",
		                 call->op, (long long)bits);
	r = qref_attr_int(call, "narrow_range", &narrow);
	if (r < 0 || (narrow != 0 && narrow != 1))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: narrow_range must be 0 or 1", call->op);
	*qmin = narrow ? 1 : 0;
	*qmax = (1 << bits) - 1;
	return QCF_OK;
}

static qcf_status check_io(const qcf_op_call *call, int n_inputs, qref_detail *d)
{
	qcf_status s = qref_check_call(call, n_inputs, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	for (int k = 0; k < n_inputs; k++)
		if (call->inputs[k].dtype != QCF_FLOAT32)
			return qref_fail(d, QCF_INVALID_PARAM, "%s: input %d must be float32",
			                 call->op, k);
	if (call->outputs[0].dtype != QCF_FLOAT32 || !qref_same_shape(x, &call->outputs[0]))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: output must be float32 with the input's shape", call->op);
	return QCF_OK;
}

/* Nudges one (min, max) pair of a vars op; *zero = 1 for min == max == 0. */
static qcf_status nudge_vars(const qcf_op_call *call, float min, float max, int qmin, int qmax,
                             tf_nudged *n, int *zero, qref_detail *d)
{
	*zero = min == 0.0f && max == 0.0f;
	if (*zero)
		return QCF_OK;
	/* TF only asserts min < max in debug builds; beyond it the result is garbage */
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

static qcf_status qref_tf_fq_args(const qcf_op_call *call, qref_detail *d)
{
	qcf_status s = check_io(call, 1, d);
	int qmin, qmax;
	if (s != QCF_OK || (s = qrange(call, &qmin, &qmax, d)) != QCF_OK)
		return s;
	double min = -6.0, max = 6.0; /* op registration defaults */
	if (qref_attr_number(call, "min", &min) < 0 || qref_attr_number(call, "max", &max) < 0)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: min and max must be numbers", call->op);
	float fmin_ = (float)min, fmax_ = (float)max;
	if (!(fmin_ < fmax_))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: min has to be smaller than max, was: %g >= %g", call->op,
		                 (double)fmin_, (double)fmax_);
	tf_nudged n;
	if (nudge(fmin_, fmax_, qmin, qmax, &n) != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: range [%g, %g] gives no finite positive scale", call->op,
		                 (double)fmin_, (double)fmax_);
	if ((s = check_rounding(call, qref_detail_rounding(d), d)) != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	size_t count = qref_tensor_numel(x);
	for (size_t i = 0; i < count; i++)
		put(call, d, i, &n, TF_MUL, (float)qref_get(x, i));
	return QCF_OK;
}

static qcf_status qref_tf_fq_vars(const qcf_op_call *call, qref_detail *d)
{
	qcf_status s = check_io(call, 3, d);
	int qmin, qmax;
	if (s != QCF_OK || (s = qrange(call, &qmin, &qmax, d)) != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	if (qref_tensor_numel(&call->inputs[1]) != 1 || qref_tensor_numel(&call->inputs[2]) != 1)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: min and max must have one element each",
		                 call->op);
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

static qcf_status qref_tf_fq_vars_per_channel(const qcf_op_call *call, qref_detail *d)
{
	qcf_status s = check_io(call, 3, d);
	int qmin, qmax;
	if (s != QCF_OK || (s = qrange(call, &qmin, &qmax, d)) != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	const qcf_tensor *mn = &call->inputs[1], *mx = &call->inputs[2];
	if (x->rank < 1)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input must have rank >= 1", call->op);
	int64_t depth = x->shape[x->rank - 1];
	if (mn->rank != 1 || mn->shape[0] != depth)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: min has incorrect size, expected %lld",
		                 call->op, (long long)depth);
	if (mx->rank != 1 || mx->shape[0] != depth)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: max has incorrect size, expected %lld",
		                 call->op, (long long)depth);
	/* validate every channel before writing anything */
	for (int64_t c = 0; c < depth; c++) {
		tf_nudged n;
		int zero;
		s = nudge_vars(call, (float)qref_get(mn, (size_t)c), (float)qref_get(mx, (size_t)c),
		               qmin, qmax, &n, &zero, d);
		if (s != QCF_OK)
			return s;
	}
	if ((s = check_rounding(call, qref_detail_rounding(d), d)) != QCF_OK)
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

const qref_op_entry qref_ops_tf[] = {
        {"tf", "fake_quant_with_min_max_args", qref_tf_fq_args, NULL},
        {"tf", "fake_quant_with_min_max_vars", qref_tf_fq_vars, NULL},
        {"tf", "fake_quant_with_min_max_vars_per_channel", qref_tf_fq_vars_per_channel, NULL},
        {NULL, NULL, NULL, NULL},
};
