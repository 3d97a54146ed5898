/*
 * PyTorch 2 export's per-token and per-channel-group quantization with the
 * zero point added AFTER rounding, clamp(round(x * (1.0 / scale)) + zp), as
 * quantize_per_tensor does, where torch's quantize_per_token and
 * quantize_per_channel_group add it BEFORE: clamp(round(x * (1.0 / scale) +
 * zp)) (torch/ao/quantization/fx/_decomposed.py; specs/torch/OPERATORS.md,
 * "PyTorch 2 export"). Everything else is torch's: the reciprocal and the
 * product in the scales' dtype, ties to even, the clamp. Integer zero points
 * only; a float zero point call is left to the reference.
 *
 * The reference computes every output first (and checks the parameters);
 * the stub then rewrites every element that is not NaN.
 */
#include <math.h>

#include "stub.h"

static void zp_after(const qcf_op_call *call, int per_group)
{
	const qcf_tensor *x = &call->inputs[0], *s = &call->inputs[1], *z = &call->inputs[2];
	qcf_tensor *y = &call->outputs[0];
	if (z->dtype != QCF_INT32 && z->dtype != QCF_INT64)
		return;
	double qmin, qmax;
	if (qref_attr_number(call, "quant_min", &qmin) != 1 ||
	    qref_attr_number(call, "quant_max", &qmax) != 1)
		return;
	size_t n = qref_numel(x->rank, x->shape);
	size_t ns = qref_numel(s->rank, s->shape), nz = qref_numel(z->rank, z->shape);
	size_t per = (size_t)x->shape[x->rank - 1]; /* a token's elements */
	if (per_group) {
		double gs = 128;
		qref_attr_number(call, "group_size", &gs);
		if (gs > (double)per && s->shape[s->rank - 1] == 1)
			gs = (double)per;
		per = (size_t)gs;
	}
	for (size_t i = 0; i < n; i++) {
		size_t g = per ? i / per : 0;
		double xi = qref_get(x, i), sc = qref_get(s, ns == 1 ? 0 : g);
		double zp = qref_get(z, nz == 1 ? 0 : g), v, lo = qmin, hi = qmax;
		if (isnan(xi))
			continue; /* undefined in torch: the reference accepts anything */
		if (s->dtype == QCF_FLOAT64) {
			v = nearbyint(xi * (1.0 / sc)) + zp;
		} else {
			float inv = 1.0f / (float)sc;
			v = (double)(nearbyintf((float)xi * inv) + (float)zp);
			lo = (float)qmin;
			hi = (float)qmax;
		}
		v = v < lo ? lo : v > hi ? hi : v;
		int64_t dlo, dhi;
		qref_dtype_range(y->dtype, &dlo, &dhi);
		if (v >= (double)dlo && v <= (double)dhi)
			qref_set(y, i, v);
	}
}

static qcf_status after_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK)
		return st;
	if (stub_op_is(call, "quantize_per_token"))
		zp_after(call, 0);
	else if (stub_op_is(call, "quantize_per_channel_group"))
		zp_after(call, 1);
	return QCF_OK;
}

STUB_PLUGIN("zp_after_round", after_execute)
