/*
 * PyTorch fake quantization that divides by the scale, v = x / scale, where
 * torch multiplies by the float reciprocal, v = x * (1.0f / scale)
 * (docs/conventions.md, "PyTorch"). Everything else is torch's: ties to even, the zero
 * point added after rounding, the clamp, the output arithmetic. Integer zero
 * points only (per tensor in the attributes, per channel in input tensors 1
 * and 2 along attribute axis); a float zero point call is left to the
 * reference.
 *
 * The reference computes every output first (and checks the parameters);
 * the stub then rewrites the elements whose quantized value the division
 * changes: the only places where the two kernels differ.
 */
#include <math.h>

#include "stub.h"

/* The quantized value, clamped to [qmin, qmax]; *inside: the unclamped one was in range. */
static double quantize(double v, int64_t zp, int64_t qmin, int64_t qmax, int *inside)
{
	double q = (double)zp + nearbyint(v);
	*inside = q >= (double)qmin && q <= (double)qmax;
	return q < (double)qmin ? (double)qmin : q > (double)qmax ? (double)qmax : q;
}

static void torch_divide(const qcf_op_call *call, int per_channel)
{
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *mask = call->n_outputs > 1 ? &call->outputs[1] : NULL;
	stub_torch_fq p;
	if (!stub_torch_fq_params(call, per_channel, &p))
		return;
	const int64_t qmin = p.qmin, qmax = p.qmax;
	size_t n = qref_numel(x->rank, x->shape);
	for (size_t i = 0; i < n; i++) {
		float s;
		int64_t zp;
		stub_torch_fq_elem(call, &p, i, &s, &zp);
		double xi = qref_get(x, i);
		if (!isfinite(xi))
			continue; /* undefined in torch: the reference accepts anything */
		float inv = 1.0f / s;
		double mul, div;
		if (x->dtype == QCF_FLOAT64) {
			mul = xi * (double)inv;
			div = xi / (double)s;
		} else {
			mul = (float)xi * inv;
			div = (float)xi / s;
		}
		if (fabs(div) >= 0x1p62 || fabs(mul) >= 0x1p62)
			continue;
		int in_mul, in_div;
		double q_mul = quantize(mul, zp, qmin, qmax, &in_mul);
		double q_div = quantize(div, zp, qmin, qmax, &in_div);
		if (q_mul == q_div && in_mul == in_div)
			continue;
		if (per_channel)
			qref_set(&call->outputs[0], i, (q_div - (double)zp) * (double)s);
		else
			qref_set(&call->outputs[0], i, (float)(q_div - (double)zp) * s);
		if (mask)
			qref_set(mask, i, in_div);
	}
}

static qcf_status divide_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK)
		return st;
	if (stub_op_is(call, "fake_quantize_per_tensor_affine") ||
	    stub_op_is(call, "fake_quantize_per_tensor_affine_cachemask"))
		torch_divide(call, 0);
	else if (stub_op_is(call, "fake_quantize_per_channel_affine") ||
	         stub_op_is(call, "fake_quantize_per_channel_affine_cachemask"))
		torch_divide(call, 1);
	return QCF_OK;
}

STUB_PLUGIN("torch_divide", divide_execute)
