/*
 * Rounds ties half up (floor(v + 0.5)) where the semantics round them to
 * even: PyTorch fake quantization with an integer zero point (v = x * inv,
 * inv = 1.0f / scale; float, or double for float64 input) and ONNX
 * QuantizeLinear (v = x / scale in float). The reference computes every
 * output first (and checks the parameters); the stub then rewrites the
 * elements whose v is an exact tie, the only places where the two roundings
 * differ, with the op's own clamping and output arithmetic.
 *
 * Parameters as in specs/README.md "Operators": torch per tensor in the
 * attributes scale / zero_point, torch per channel in input tensors 1 and 2
 * along attribute axis, ONNX in the quantization of output 0.
 */
#include <math.h>

#include "stub.h"

static int is_tie(double v)
{
	return v - floor(v) == 0.5;
}

/* x * inv as the torch kernel computes it for x's dtype. */
static double torch_product(const qcf_tensor *x, size_t i, float inv)
{
	if (x->dtype == QCF_FLOAT64)
		return qref_get(x, i) * (double)inv;
	return (float)qref_get(x, i) * inv;
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void torch_half_up(const qcf_op_call *call, int per_channel)
{
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *mask = call->n_outputs > 1 ? &call->outputs[1] : NULL;
	stub_torch_fq p;
	if (!stub_torch_fq_params(call, per_channel, &p))
		return; /* a float zero point rounds elsewhere: not this stub's bug */
	const double qmin = (double)p.qmin, qmax = (double)p.qmax;
	size_t n = qref_numel(x->rank, x->shape);
	for (size_t i = 0; i < n; i++) {
		float s;
		int64_t zp;
		stub_torch_fq_elem(call, &p, i, &s, &zp);
		double v = torch_product(x, i, 1.0f / s);
		if (!is_tie(v))
			continue;
		double q = (double)zp + floor(v + 0.5);
		double qc = clamp(q, qmin, qmax);
		if (per_channel)
			qref_set(&call->outputs[0], i, (qc - (double)zp) * (double)s);
		else
			qref_set(&call->outputs[0], i, (float)(qc - (double)zp) * s);
		if (mask)
			qref_set(mask, i, q >= qmin && q <= qmax);
	}
}

static void onnx_half_up(const qcf_op_call *call)
{
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	const qcf_quant *q = y->quant;
	int64_t lo, hi;
	if (!q || !q->scales || !qref_dtype_range(y->dtype, &lo, &hi))
		return;
	size_t n = qref_numel(x->rank, x->shape);
	for (size_t i = 0; i < n; i++) {
		int32_t c = q->count > 1 ? qref_channel(x, q, i) : 0;
		float v = (float)qref_get(x, i) / q->scales[c];
		if (!is_tie(v))
			continue;
		int32_t zp = q->zero_points ? q->zero_points[c] : 0;
		qref_set(y, i, clamp(floor((double)v + 0.5) + zp, (double)lo, (double)hi));
	}
}

static qcf_status ties_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK)
		return st;
	if (stub_op_is(call, "fake_quantize_per_tensor_affine") ||
	    stub_op_is(call, "fake_quantize_per_tensor_affine_cachemask"))
		torch_half_up(call, 0);
	else if (stub_op_is(call, "fake_quantize_per_channel_affine") ||
	         stub_op_is(call, "fake_quantize_per_channel_affine_cachemask"))
		torch_half_up(call, 1);
	else if (stub_op_is(call, "QuantizeLinear"))
		onnx_half_up(call);
	return QCF_OK;
}

STUB_PLUGIN("ties_half_up", ties_execute)
