/*
 * Broadcasting, fused activations and the requantization build of the LiteRT elementwise
 * families (reference/litert_bcast.h). Sources (google-ai-edge/LiteRT): tflite/kernels/
 * kernel_util.cc (CalculateShapeForBroadcast, CalculateActivationRangeQuantized),
 * internal/reference/broadcast_loop.h and the per-op broadcast loops named by the callers.
 */
#include "litert_bcast.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "requant.h"

static void shape_str(const qcf_tensor *t, char *buf, size_t size)
{
	size_t used = 0;
	used += (size_t)snprintf(buf, size, "[");
	for (int32_t k = 0; k < t->rank && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s%lld", k ? "," : "",
		                         (long long)t->shape[k]);
	if (used < size)
		snprintf(buf + used, size - used, "]");
}

qcf_status qref_bcast_init(const qcf_op_call *call, int first, int n_in, int max_rank,
                           const char *loop, qref_bcast *b, qref_detail *d)
{
	const qcf_tensor *in[QREF_BCAST_MAX_IN];
	const qcf_tensor *out = &call->outputs[0];
	char s0[96], s1[96], s2[96];
	memset(b, 0, sizeof *b);
	b->n_in = n_in;
	for (int j = 0; j < n_in; j++) {
		in[j] = &call->inputs[first + j];
		if (in[j]->rank > b->rank)
			b->rank = in[j]->rank;
	}
	for (int k = 0; k < b->rank; k++) {
		int64_t dim = 1;
		int ok = 1;
		for (int j = 0; j < n_in; j++) {
			int kk = k - (b->rank - in[j]->rank);
			int64_t dj = kk >= 0 ? in[j]->shape[kk] : 1;
			if (dj == 1)
				continue;
			if (dim != 1 && dj != dim)
				ok = 0;
			dim = dj;
		}
		if (!ok) {
			shape_str(in[0], s0, sizeof s0);
			shape_str(in[1], s1, sizeof s1);
			if (n_in > 2)
				shape_str(in[2], s2, sizeof s2);
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: input shapes %s%s%s and %s do not broadcast (numpy "
			                 "rules: trailing dimensions equal or 1)",
			                 call->op, s0, n_in > 2 ? ", " : "", n_in > 2 ? s1 : "",
			                 n_in > 2 ? s2 : s1);
		}
		b->shape[k] = dim;
	}
	int same_out = out->rank == b->rank;
	for (int k = 0; same_out && k < b->rank; k++)
		same_out = out->shape[k] == b->shape[k];
	if (!same_out) {
		shape_str(out, s0, sizeof s0);
		return qref_fail_output(
		        d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "%s: output shape %s is not the broadcast shape of the inputs", call->op,
		        s0);
	}
	int same_in = 1;
	for (int j = 1; j < n_in; j++)
		same_in = same_in && qref_same_shape(in[0], in[j]);
	if (!same_in && b->rank > max_rank)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: broadcasting at rank %d: LiteRT's broadcast loop (%s) handles "
		        "rank <= %d and aborts (TFLITE_CHECK) above it",
		        call->op, b->rank, loop, max_rank);
	for (int j = 0; j < n_in; j++) {
		size_t st = 1;
		for (int kk = in[j]->rank - 1; kk >= 0; kk--) {
			int k = kk + (b->rank - in[j]->rank);
			b->stride[j][k] = in[j]->shape[kk] == 1 ? 0 : st;
			st *= (size_t)in[j]->shape[kk];
		}
	}
	b->n = qref_numel(b->rank, b->shape);
	return QCF_OK;
}

void qref_bcast_index(const qref_bcast *b, size_t i, size_t *idx)
{
	for (int j = 0; j < b->n_in; j++)
		idx[j] = 0;
	for (int k = b->rank - 1; k >= 0; k--) {
		size_t dim = (size_t)b->shape[k];
		size_t x = i % dim;
		i /= dim;
		for (int j = 0; j < b->n_in; j++)
			idx[j] += x * b->stride[j][k];
	}
}

qcf_status qref_act_get(const qcf_op_call *call, int *act, qref_detail *d)
{
	static const char *const names[] = {"NONE", "RELU", "RELU6", "RELU_N1_TO_1"};
	const qcf_attr *a = qref_attr_find(call, "fused_activation_function");
	*act = QREF_ACT_NONE;
	if (!a)
		return QCF_OK;
	if (a->type == QCF_ATTR_STRING && a->v.s)
		for (int k = 0; k < 4; k++)
			if (strcmp(a->v.s, names[k]) == 0) {
				*act = k;
				return QCF_OK;
			}
	return qref_fail_attr(d, "fused_activation_function", QCF_INVALID_PARAM,
	                      "%s: fused_activation_function must be NONE, RELU, RELU6 or "
	                      "RELU_N1_TO_1",
	                      call->op);
}

/* zp + (int)roundf(f / scale), as kernel_util.cc Quantize: fails when the
 * rounded quotient leaves int32. */
static int act_quantize(float scale, int32_t zp, float f, int64_t *q)
{
	float t = roundf(f / scale);
	if (!(t >= -0x1p31f && t < 0x1p31f))
		return 0;
	*q = (int64_t)zp + (int64_t)t;
	return *q >= INT32_MIN && *q <= INT32_MAX;
}

qcf_status qref_act_range(const qcf_op_call *call, int act, const qcf_tensor *out, float s,
                          int32_t zp, int32_t *lo, int32_t *hi, qref_detail *d)
{
	int64_t qmin, qmax, a, b = 0; /* b is read only when it was set (not RELU) */
	qref_dtype_range(out->dtype, &qmin, &qmax);
	*lo = (int32_t)qmin;
	*hi = (int32_t)qmax;
	if (act == QREF_ACT_NONE)
		return QCF_OK;
	float fl = act == QREF_ACT_RELU_N1_TO_1 ? -1.0f : 0.0f;
	float fh = act == QREF_ACT_RELU6 ? 6.0f : 1.0f;
	if (!act_quantize(s, zp, fl, &a) || (act != QREF_ACT_RELU && !act_quantize(s, zp, fh, &b)))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the fused activation's bounds divided by the output scale "
		                 "%g overflow int32 (CalculateActivationRangeQuantized fails)",
		                 call->op, (double)s);
	if (a > qmin)
		*lo = (int32_t)a;
	if (act != QREF_ACT_RELU && b < qmax)
		*hi = (int32_t)b;
	return QCF_OK;
}

double qref_act_real(int act, double v)
{
	switch (act) {
	case QREF_ACT_RELU: return v > 0 ? v : 0;
	case QREF_ACT_RELU6: return v < 0 ? 0 : v > 6 ? 6 : v;
	case QREF_ACT_RELU_N1_TO_1: return v < -1 ? -1 : v > 1 ? 1 : v;
	default: return v;
	}
}

qcf_status qref_requant_rounding(const qcf_op_call *call, qref_detail *d, const char *what,
                                 qref_rounding *rnd)
{
	qref_rounding r = qref_detail_rounding(d);
	if (r != QREF_ROUND_DEFAULT && r != QREF_ROUND_DOUBLE && r != QREF_ROUND_SINGLE)
		return qref_rounding_na(call, d, r, what);
	*rnd = qref_requant_build(r);
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);
	return QCF_OK;
}
