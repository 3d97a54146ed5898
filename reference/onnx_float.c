/*
 * ONNX float32 ops, the float middle of a QDQ group (DequantizeLinear -> op -> QuantizeLinear,
 * specs/chains/): Add, Mul (numpy broadcasting) and LeakyRelu, semantics "onnx", float32 in
 * and out. Each output element is one float32 operation on float32 operands, rounded once to
 * nearest even, as ONNX Runtime's CPU kernels compute them (onnxruntime/core/providers/cpu/
 * math/element_wise_ops.cc: Add and Mul through Eigen's float arithmetic;
 * activations.h LeakyRelu: x >= 0 ? x : alpha * x with a float alpha). Only the ops the chain
 * catalogue needs.
 *
 * MatMul and Conv (numpy.matmul; Conv with Conv's attributes and an optional bias B) are sums,
 * and the order of their float32 partial sums is no part of ONNX (ONNX Runtime's MLAS SGEMM
 * blocks them by ISA: onnxruntime/core/mlas/lib/sgemm.cpp, conv.cpp). They are computed only
 * where no order matters: every product and every partial sum (the bias among the addends) is
 * exactly a float32, so each output is the exact real sum. Where one is not, the reference
 * refuses the call (QCF_NOT_SUPPORTED, naming the output element): a spec whose data would
 * need an order is an error of the spec, not a value to judge. Integers times powers of two
 * below 2^24 in magnitude, as a QDQ group's DequantizeLinear makes them, are exact.
 */
#include <math.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "linear_geom.h"
#include "litert_bcast.h"
#include "op.h"

enum { FL_ADD, FL_MUL, FL_LEAKY_RELU, FL_MATMUL, FL_CONV };

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

/* *s += a * b when the float32 product and sum are both exact (TwoSum's error term is 0, the
 * product equals the double one): 1; else 0 and *s unchanged. */
static int exact_add_product(float *s, float a, float b)
{
	float p = a * b;
	if (!isfinite(p) || (double)p != (double)a * (double)b)
		return 0;
	float t = *s + p, bb = t - *s;
	float err = (*s - (t - bb)) + (p - bb);
	if (!isfinite(t) || err != 0.0f)
		return 0;
	*s = t;
	return 1;
}

static qcf_status inexact(const qcf_op_call *call, size_t o, qref_detail *d)
{
	return qref_fail(
	        d, QCF_NOT_SUPPORTED,
	        "%s: output element %zu: a float32 product or partial sum is not exact, so "
	        "its value depends on the order of the additions, which ONNX leaves open; "
	        "qconform computes float32 %s only on data where every partial sum is a "
	        "float32 (reference/onnx_float.c)",
	        call->op, o, call->op);
}

static qcf_status onnx_float_matmul(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK || (s = all_float32(call, d)) != QCF_OK)
		return s;
	const qcf_tensor *ta = &call->inputs[0], *tb = &call->inputs[1];
	qref_mm_geom g;
	if ((s = qref_mm_shape(call, ta, tb, &call->outputs[0], &g, d)) != QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "exact float32 sums only")) != QCF_OK)
		return s;
	const float *a = ta->data, *b = tb->data;
	float *y = call->outputs[0].data;
	size_t o = 0;
	for (size_t bi = 0; bi < g.nbatch; bi++) {
		int64_t ao, bo;
		qref_mm_batch(&g, bi, &ao, &bo);
		const float *am = a + ao * g.m * g.k, *bm = b + bo * g.k * g.n;
		for (int64_t i = 0; i < g.m; i++)
			for (int64_t j = 0; j < g.n; j++, o++) {
				float acc = 0.0f;
				for (int64_t t = 0; t < g.k; t++)
					if (!exact_add_product(&acc, am[i * g.k + t],
					                       bm[t * g.n + j]))
						return inexact(call, o, d);
				y[o] = acc;
			}
	}
	return QCF_OK;
}

static qcf_status onnx_float_conv(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK || (s = all_float32(call, d)) != QCF_OK)
		return s;
	const qcf_tensor *tx = &call->inputs[0], *tw = &call->inputs[1];
	const qcf_tensor *tb = call->n_inputs > 2 ? &call->inputs[2] : NULL;
	qref_conv_geom g;
	if ((s = qref_conv_shape(call, tx, tw, &call->outputs[0], &g, d)) != QCF_OK)
		return s;
	if (tb && (tb->rank != 1 || tb->shape[0] != g.cout))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: B must be 1-D with w's M = %lld entries", call->op,
		                 (long long)g.cout);
	if ((s = qref_no_rounding(call, d, "exact float32 sums only")) != QCF_OK)
		return s;
	const float *x = tx->data, *w = tw->data, *bias = tb ? tb->data : NULL;
	float *y = call->outputs[0].data;
	size_t kk = (size_t)g.cg * g.k_sp;
	int64_t opos[QCF_MAX_RANK], kpos[QCF_MAX_RANK];
	for (int64_t nb = 0; nb < g.batch; nb++)
		for (int64_t m = 0; m < g.cout; m++) {
			int64_t grp = m / g.mg;
			for (size_t os = 0; os < g.out_sp; os++) {
				size_t o = (size_t)(nb * g.cout + m) * g.out_sp + os, rem = os;
				for (int32_t i = g.nsp - 1; i >= 0; i--) {
					opos[i] = (int64_t)(rem % (size_t)g.out[i]);
					rem /= (size_t)g.out[i];
				}
				float acc = 0.0f;
				if (bias && !exact_add_product(&acc, bias[m], 1.0f))
					return inexact(call, o, d);
				for (int64_t c = 0; c < g.cg; c++)
					for (size_t ks = 0; ks < g.k_sp; ks++) {
						size_t kr = ks, xoff = 0;
						for (int32_t i = g.nsp - 1; i >= 0; i--) {
							kpos[i] = (int64_t)(kr % (size_t)g.k[i]);
							kr /= (size_t)g.k[i];
						}
						int inside = 1;
						for (int32_t i = 0; i < g.nsp && inside; i++) {
							int64_t p = opos[i] * g.stride[i] -
							            g.pad0[i] + kpos[i] * g.dil[i];
							inside = p >= 0 && p < g.in[i];
							xoff = xoff * (size_t)g.in[i] + (size_t)p;
						}
						if (!inside) /* padding: a zero addend */
							continue;
						size_t xb = (size_t)(nb * g.cin + grp * g.cg + c) *
						            g.in_sp;
						float wv =
						        w[(size_t)m * kk + (size_t)c * g.k_sp + ks];
						if (!exact_add_product(&acc, x[xb + xoff], wv))
							return inexact(call, o, d);
					}
				y[o] = acc;
			}
		}
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
        {.schema = {.semantics = "onnx", .op = "MatMul", AB_Y, .attrs = qref_no_attrs},
         .kernel = onnx_float_matmul,
         .param = FL_MATMUL},
        {.schema = {.semantics = "onnx",
                    .op = "Conv",
                    IO(LIST("X", "W", "B"), 2, 3, LIST("Y"), 1),
                    .attrs = qref_onnx_conv_attrs},
         .layout = QREF_LAYOUT_NCHW,
         .kernel = onnx_float_conv,
         .param = FL_CONV},
        {.schema = {.op = NULL}},
};
