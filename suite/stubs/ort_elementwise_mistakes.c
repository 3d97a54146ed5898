/*
 * Two typical mistakes in ONNX Runtime's quantized elementwise ops, one per family:
 *
 * - QLinearAdd and QLinearMul requantize in double: y = rint(exact real result / s_c) + zp_c,
 *   saturated, where MLAS works in float32 (the scale ratios r_a = s_a / s_c, r_b = s_b / s_c
 *   or s_a s_b / s_c rounded to float32, then the float32 sum or product). The two differ where
 *   the float32 value falls on the other side of a half than the exact one, outside the band of
 *   MLAS's ISA kernels (reference/ort_qlinear_elementwise.c);
 * - QLinearLeakyRelu and QLinearSigmoid round the table's entries half away from zero (roundf),
 *   where MlasQuantizeLinear rounds half to even: it shows on exact ties (LeakyRelu's alpha 1/2
 *   on unit scales); and QLinearSigmoid takes the exact logistic 1 / (1 + e^-v) in double
 *   instead of MLAS's rational polynomial: it shows where the two straddle a half.
 *
 * Every call goes to the reference first (its refusals stand); the stub then rewrites output 0.
 */
#include <math.h>

#include "reference/kernel.h"
#include "reference/litert_bcast.h"
#include "stub.h"

static int32_t clamp_type(double v, qcf_dtype t)
{
	double lo, hi;
	qref_range_d(t, &lo, &hi);
	return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

static void binary_in_double(const qcf_op_call *call, int mul)
{
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	double sa = a->quant->scales[0], sb = b->quant->scales[0], sc = y->quant->scales[0];
	int32_t za = a->quant->zero_points[0], zb = b->quant->zero_points[0];
	int32_t zc = y->quant->zero_points[0];
	qref_bcast bc;
	if (qref_bcast_init(call, 0, 2, QCF_MAX_RANK, "stub", &bc, NULL) != QCF_OK)
		return;
	for (size_t i = 0; i < bc.n; i++) {
		size_t ix[2];
		qref_bcast_index(&bc, i, ix);
		double da = sa * (qref_get(a, ix[0]) - za), db = sb * (qref_get(b, ix[1]) - zb);
		double v = (mul ? da * db : da + db) / sc;
		qref_set(y, i, clamp_type(nearbyint(v) + zc, y->dtype));
	}
}

static void table_half_away(const qcf_op_call *call, int sigmoid)
{
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	float sx = x->quant->scales[0], sy = y->quant->scales[0];
	int32_t zx = x->quant->zero_points[0], zy = y->quant->zero_points[0];
	double alpha = 0.01;
	qref_attr_number(call, "alpha", &alpha);
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		float v = sx * (float)((int32_t)qref_get(x, i) - zx), f;
		if (sigmoid)
			f = (float)(1.0 / (1.0 + exp(-(double)v)));
		else
			f = v >= 0.0f ? v : (float)alpha * v;
		qref_set(y, i, clamp_type((double)roundf(f / sy) + zy, y->dtype));
	}
}

static qcf_status ew_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK)
		return st;
	if (stub_op_is(call, "QLinearAdd") || stub_op_is(call, "QLinearMul"))
		binary_in_double(call, stub_op_is(call, "QLinearMul"));
	else if (stub_op_is(call, "QLinearLeakyRelu") || stub_op_is(call, "QLinearSigmoid"))
		table_half_away(call, stub_op_is(call, "QLinearSigmoid"));
	return QCF_OK;
}

STUB_PLUGIN("ort_elementwise_mistakes", ew_execute)
