/*
 * Typical mistakes in ONNX Runtime's quantized elementwise ops, one per family:
 *
 * - QLinearAdd and QLinearMul requantize in double: y = rint(exact real result / s_c) + zp_c,
 *   saturated, where MLAS works in float32 (the scale ratios r_a = s_a / s_c, r_b = s_b / s_c
 *   or s_a s_b / s_c rounded to float32, then the float32 sum or product). The two differ where
 *   the float32 value falls on the other side of a half than the exact one, outside the band of
 *   MLAS's ISA kernels (reference/ort_qlinear_elementwise.c);
 * - QLinearLeakyRelu and QLinearSigmoid round the table's entries half away from zero (roundf),
 *   where MlasQuantizeLinear rounds half to even: it shows on exact ties (LeakyRelu's alpha 1/2
 *   on unit scales); and QLinearSigmoid takes the exact logistic 1 / (1 + e^-v) in double
 *   instead of MLAS's rational polynomial: it shows where the two straddle a half;
 * - QLinearSoftmax takes the textbook requantization: the exact softmax in double divided by
 *   y_scale, rounded, plus zp, saturated, where ORT multiplies the float32 quotient of its table
 *   entries by floor(1 / y_scale): it shows with decimal output scales;
 * - QLinearWhere copies the stored values, as ONNX's Where (and LiteRT's SELECT) do, where ORT
 *   requantizes each side to Z: it shows wherever a side's scale or zero point differs from Z's.
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

static void softmax_textbook(const qcf_op_call *call)
{
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	double sx = x->quant->scales[0], sy = y->quant->scales[0];
	int32_t zy = y->quant->zero_points[0];
	int64_t opset = 13, axis = -1;
	qref_attr_int(call, "opset", &opset);
	qref_attr_int(call, "axis", &axis);
	int32_t ax = (int32_t)(axis < 0 ? axis + x->rank : axis);
	size_t inner = 1, n = qref_tensor_numel(x);
	for (int32_t k = ax + 1; k < x->rank; k++)
		inner *= (size_t)x->shape[k];
	size_t d = (size_t)x->shape[ax];
	if (opset < 13) {
		d *= inner;
		inner = 1;
	}
	if (n == 0 || d == 0)
		return;
	for (size_t r = 0; r < n / d; r++) {
		size_t b = (r / inner) * d * inner + r % inner;
		double mx = -1e300, sum = 0;
		for (size_t j = 0; j < d; j++)
			mx = fmax(mx, sx * qref_get(x, b + j * inner));
		for (size_t j = 0; j < d; j++)
			sum += exp(sx * qref_get(x, b + j * inner) - mx);
		for (size_t j = 0; j < d; j++) {
			double p = exp(sx * qref_get(x, b + j * inner) - mx) / sum;
			qref_set(y, b + j * inner, clamp_type(nearbyint(p / sy) + zy, y->dtype));
		}
	}
}

static void where_copies(const qcf_op_call *call)
{
	qref_bcast bc;
	if (qref_bcast_init(call, 0, 3, QCF_MAX_RANK, "stub", &bc, NULL) != QCF_OK)
		return;
	for (size_t i = 0; i < bc.n; i++) {
		size_t ix[3];
		qref_bcast_index(&bc, i, ix);
		int c = qref_get(&call->inputs[0], ix[0]) != 0;
		qref_set(&call->outputs[0], i, qref_get(&call->inputs[c ? 1 : 2], ix[c ? 1 : 2]));
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
	else if (stub_op_is(call, "QLinearSoftmax"))
		softmax_textbook(call);
	else if (stub_op_is(call, "QLinearWhere"))
		where_copies(call);
	return QCF_OK;
}

STUB_PLUGIN("ort_elementwise_mistakes", ew_execute)
