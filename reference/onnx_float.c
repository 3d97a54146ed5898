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
 *
 * AveragePool and GlobalAveragePool are MLAS's float pooling (onnxruntime/core/providers/cpu/nn/
 * pool.cc calls MlasPool; onnxruntime/core/mlas/lib/pooling.cpp): a window's sum, then one
 * float32 division by the count (AveragePool: the kernel's size with count_include_pad, else
 * the taps inside x; GlobalAveragePool: the image's size). MLAS's vector kernels sum a window
 * column by column, so the sum, like MatMul's, is computed only where every partial sum is a
 * float32 (else refused); the division, one correctly rounded float32 quotient, is the same on
 * every ISA. No dilations (MlasPool has none). Concat moves values: exact always.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "linear_geom.h"
#include "litert_bcast.h"
#include "op.h"
#include "ort_qlinear.h"

enum { FL_ADD, FL_MUL, FL_LEAKY_RELU, FL_MATMUL, FL_CONV, FL_AVG_POOL, FL_GAVG_POOL };

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

/* sum / count (MLAS's AveragePool: one float32 division) of the n values of x at base +
 * taps[t], each added exactly; 0 when a partial sum is not exact. */
static int exact_average(const float *x, const size_t *taps, size_t n, float count, float *avg)
{
	float acc = 0.0f;
	for (size_t t = 0; t < n; t++)
		if (!exact_add_product(&acc, x[taps[t]], 1.0f))
			return 0;
	*avg = acc / count;
	return 1;
}

static qcf_status onnx_float_avg_pool(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK || (s = all_float32(call, d)) != QCF_OK)
		return s;
	const qcf_tensor *tx = &call->inputs[0], *ty = &call->outputs[0];
	if (tx->rank < 3 || tx->rank > 5)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: X is [N, C, spatial...] with 1 to 3 spatial dimensions "
		                 "(MlasPool), got rank %d",
		                 call->op, (int)tx->rank);
	qref_pool_geom g;
	if (row->param == FL_AVG_POOL) {
		if ((s = qref_pool_shape(call, 0, 0, &g, d)) != QCF_OK)
			return s;
	} else {
		/* GlobalAveragePool: the kernel is the image, no padding, Y [N, C, 1...] */
		memset(&g, 0, sizeof g);
		g.nsp = tx->rank - 2;
		g.batch = tx->shape[0];
		g.ch = tx->shape[1];
		g.in_sp = g.k_sp = g.out_sp = 1;
		int same = ty->rank == tx->rank;
		for (int32_t i = 0; i < tx->rank; i++) {
			if (i >= 2) {
				g.in[i - 2] = g.k[i - 2] = tx->shape[i];
				g.out[i - 2] = g.stride[i - 2] = g.dil[i - 2] = 1;
				g.in_sp *= (size_t)tx->shape[i];
			}
			same = same && ty->shape[i] == (i >= 2 ? 1 : tx->shape[i]);
		}
		g.k_sp = g.in_sp;
		if (!same)
			return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			                        "%s: Y is X's shape with every spatial dimension 1",
			                        call->op);
		if (g.in_sp == 0 || g.in_sp >= 0x1000000)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: the image holds %zu values; the count must be 1 to "
			                 "2^24 - 1 (a float32 integer)",
			                 call->op, g.in_sp);
	}
	if ((s = qref_no_rounding(call, d, "exact float32 sums, one float32 division")) != QCF_OK)
		return s;
	int64_t cip = 0;
	if (row->param == FL_AVG_POOL)
		qref_attr_int(call, "count_include_pad", &cip);
	size_t *taps = malloc((g.k_sp ? g.k_sp : 1) * sizeof *taps);
	if (!taps)
		return qref_fail(d, QCF_ERROR, "out of memory");
	const float *x = tx->data;
	float *y = ty->data;
	for (size_t os = 0; os < g.out_sp; os++) {
		size_t nt = qref_pool_taps(&g, os, taps);
		float count = (float)(cip ? g.k_sp : nt);
		for (int64_t nb = 0; nb < g.batch; nb++)
			for (int64_t c = 0; c < g.ch; c++) {
				const float *img = x + qref_pool_off(&g, nb, c, 0, g.in_sp);
				size_t o = qref_pool_off(&g, nb, c, os, g.out_sp);
				if (!exact_average(img, taps, nt, count, &y[o])) {
					free(taps);
					return inexact(call, o, d);
				}
			}
	}
	free(taps);
	return QCF_OK;
}

static qcf_status onnx_float_concat(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, call->n_inputs < 1 ? 1 : call->n_inputs, 1, d);
	if (s != QCF_OK || (s = all_float32(call, d)) != QCF_OK)
		return s;
	const qcf_tensor *t0 = &call->inputs[0], *ty = &call->outputs[0];
	int32_t rank = t0->rank;
	int64_t axis = 0;
	qref_attr_int(call, "axis", &axis);
	if (rank < 1 || axis < -rank || axis >= rank)
		return qref_fail_attr(d, "axis", QCF_INVALID_PARAM,
		                      "%s: axis %lld outside [-%d, %d)", call->op, (long long)axis,
		                      (int)rank, (int)rank);
	if (axis < 0)
		axis += rank;
	int64_t total = 0;
	for (int32_t k = 0; k < call->n_inputs; k++) {
		const qcf_tensor *t = &call->inputs[k];
		int same = t->rank == rank;
		for (int32_t j = 0; same && j < rank; j++)
			same = j == axis || t->shape[j] == t0->shape[j];
		if (!same)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: input %d has the first's rank and shape except on "
			                 "the axis",
			                 call->op, (int)k);
		total += t->shape[axis];
	}
	int same = ty->rank == rank;
	for (int32_t j = 0; same && j < rank; j++)
		same = ty->shape[j] == (j == axis ? total : t0->shape[j]);
	if (!same)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: Y is the inputs' shape with dimension %lld their sum "
		                        "(%lld)",
		                        call->op, (long long)axis, (long long)total);
	if ((s = qref_no_rounding(call, d, "nothing (values are moved)")) != QCF_OK)
		return s;
	size_t outer = 1, inner = 1, ybase = 0;
	for (int32_t j = 0; j < axis; j++)
		outer *= (size_t)ty->shape[j];
	for (int32_t j = (int32_t)axis + 1; j < rank; j++)
		inner *= (size_t)ty->shape[j];
	float *y = ty->data;
	for (int32_t k = 0; k < call->n_inputs; k++) {
		const qcf_tensor *t = &call->inputs[k];
		const float *x = t->data;
		size_t pitch = (size_t)t->shape[axis] * inner, ypitch = (size_t)total * inner;
		for (size_t o = 0; o < outer; o++)
			memcpy(y + o * ypitch + ybase, x + o * pitch, pitch * sizeof *x);
		ybase += pitch;
	}
	return QCF_OK;
}

static const qref_attr_schema leaky_relu_attrs[] = {
        A_NUM("alpha", "0.01"),
        END,
};

static const qref_attr_schema avg_pool_attrs[] = {
        A_ENUM("auto_pad", LIST("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"), 0, "NOTSET"),
        A_INT("ceil_mode", 0, 1, "0"),
        A_INT("count_include_pad", 0, 1, "0"),
        A_INTS("kernel_shape", 1, "required: one per spatial dimension"),
        A_INTS("pads", 0, "0 (begin and end of every spatial dimension)"),
        A_INTS("strides", 1, "1 per spatial dimension"),
        END,
};

static const qref_attr_schema concat_attrs[] = {
        A_INT_REQ("axis", -QCF_MAX_RANK, QCF_MAX_RANK - 1),
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
        {.schema = {.semantics = "onnx",
                    .op = "AveragePool",
                    IO(LIST("X"), 1, 1, LIST("Y"), 1),
                    .attrs = avg_pool_attrs},
         .layout = QREF_LAYOUT_NCHW,
         .kernel = onnx_float_avg_pool,
         .param = FL_AVG_POOL},
        {.schema = {.semantics = "onnx",
                    .op = "GlobalAveragePool",
                    IO(LIST("X"), 1, 1, LIST("Y"), 1),
                    .attrs = qref_no_attrs},
         .layout = QREF_LAYOUT_NCHW,
         .kernel = onnx_float_avg_pool,
         .param = FL_GAVG_POOL},
        {.schema = {.semantics = "onnx",
                    .op = "Concat",
                    IO(LIST("inputs"), 1, 16, LIST("concat_result"), 1),
                    .attrs = concat_attrs},
         .kernel = onnx_float_concat},
        {.schema = {.op = NULL}},
};
