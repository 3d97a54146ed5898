/*
 * ONNX float32 ops, the float middle of a QDQ group (DequantizeLinear -> op -> QuantizeLinear,
 * specs/chains/): Add, Mul (numpy broadcasting) and LeakyRelu, semantics "onnx", float32 in
 * and out. Each output element is one float32 operation on float32 operands, rounded once to
 * nearest even, as ONNX Runtime's CPU kernels compute them (onnxruntime/core/providers/cpu/
 * math/element_wise_ops.cc: Add and Mul through Eigen's float arithmetic;
 * activations.h LeakyRelu: x >= 0 ? x : alpha * x with a float alpha). Only the ops the chain
 * catalogue needs; the reference has no float32 MatMul or Conv (an order of float32 partial
 * sums is no part of ONNX).
 */
#include <math.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "litert_bcast.h"
#include "op.h"

enum { FL_ADD, FL_MUL, FL_LEAKY_RELU };

/* Every tensor of the call float32. */
static qcf_status all_float32(const qcf_op_call *call, qref_detail *d)
{
	for (int32_t j = 0; j < call->n_inputs; j++)
		if (call->inputs[j].dtype != QCF_FLOAT32)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: input %d must be float32 (qconform's float ops are the "
			        "float32 middle of a QDQ group), got %s",
			        call->op, (int)j, qref_dtype_name(call->inputs[j].dtype));
	if (call->outputs[0].dtype != QCF_FLOAT32)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: the output must be float32, got %s",
		                 call->op, qref_dtype_name(call->outputs[0].dtype));
	return QCF_OK;
}

static qcf_status onnx_float_binary(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK || (s = all_float32(call, d)) != QCF_OK)
		return s;
	qref_bcast bc;
	if ((s = qref_bcast_init(call, 0, 2, QCF_MAX_RANK, "ONNX's multidirectional broadcast", &bc,
	                         d)) != QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "one float32 operation, to nearest even")) != QCF_OK)
		return s;
	const float *a = call->inputs[0].data, *b = call->inputs[1].data;
	float *y = call->outputs[0].data;
	for (size_t i = 0; i < bc.n; i++) {
		size_t ix[2];
		qref_bcast_index(&bc, i, ix);
		y[i] = row->param == FL_ADD ? a[ix[0]] + b[ix[1]] : a[ix[0]] * b[ix[1]];
	}
	return QCF_OK;
}

static qcf_status onnx_float_leaky_relu(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK || (s = all_float32(call, d)) != QCF_OK)
		return s;
	if (!qref_same_shape(&call->inputs[0], &call->outputs[0]))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: Y has X's shape", call->op);
	if ((s = qref_no_rounding(call, d, "one float32 product, to nearest even")) != QCF_OK)
		return s;
	double alpha = 0.01;
	qref_attr_number(call, "alpha", &alpha);
	const float al = (float)alpha; /* the attribute is a float */
	const float *x = call->inputs[0].data;
	float *y = call->outputs[0].data;
	size_t n = qref_tensor_numel(&call->inputs[0]);
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] >= 0.0f ? x[i] : al * x[i];
	return QCF_OK;
}

static const qref_attr_schema leaky_relu_attrs[] = {
        A_NUM("alpha", "0.01"),
        END,
};

const qref_op qref_ops_onnx_float[] = {
        {.schema = {.semantics = "onnx", .op = "Add", AB_Y, .attrs = qref_no_attrs},
         .kernel = onnx_float_binary,
         .param = FL_ADD},
        {.schema = {.semantics = "onnx", .op = "Mul", AB_Y, .attrs = qref_no_attrs},
         .kernel = onnx_float_binary,
         .param = FL_MUL},
        {.schema = {.semantics = "onnx", .op = "LeakyRelu", XY, .attrs = leaky_relu_attrs},
         .kernel = onnx_float_leaky_relu,
         .param = FL_LEAKY_RELU},
        {.schema = {.op = NULL}},
};
