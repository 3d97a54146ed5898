/*
 * PyTorch quantized linear (quantized::linear_prepack + quantized::linear;
 * torch.ao.nn.quantized.Linear) as torch defines its reference: the
 * reference quantized module (torch.ao.nn.quantized.reference.Linear) runs
 * the float linear on the dequantized tensors and quantizes the result,
 *
 *   y = quantize_per_tensor(dequantize(x) @ dequantize(w)^T + bias, y_scale, y_zp)
 *
 * (specs/torch/OPERATORS.md "Quantized linear"). Tensors: x uint8 (quint8)
 * or int8 (qint8), quantized per tensor, shape [..., K] with rank >= 2;
 * weight int8 (qint8) [O, K], per tensor or per channel along axis 0; an
 * optional float32 bias [O]; y of x's dtype, [..., O], per tensor.
 *
 * dequantize gives float32 values (torch_quantize.c: per tensor
 * scale * (float)(q - zp), per channel (float)((double)((float)q -
 * (float)zp) * (double)scale)); the float32 linear is taken exactly (products
 * and sums in double, bias added) and rounded once to float32: the value any
 * float32 summation order approximates. The quantization of that float32 is
 * torch's quantize_per_tensor (qref_torch_quantize_per_tensor, with the
 * values it accepts from each CPU build).
 *
 * Refusals, as torch (qnnpack and fbgemm prepack and linear): a weight that
 * is not qint8 ("expected scalar type QInt8 but found ..."), of rank other
 * than 2 ("Weight tensor rank should be == 2"), a bias that is not float32
 * [O] ("expected bias to be 1-dimensional with O elements"), an input of rank
 * < 2 ("Input tensor rank should be >= 2"), not quint8/qint8, or not per
 * tensor; in_features that differ between x and the weight (what the float
 * linear refuses: "mat1 and mat2 shapes cannot be multiplied").
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "kernel.h"
#include "op.h"
#include "torch.h"

typedef struct lin_geom {
	size_t rows; /* product of x's dimensions but the last */
	int64_t k, o;
	int has_bias;
} lin_geom;

static qcf_status lin_check(const qcf_op_call *call, int shapes_only, lin_geom *g, qref_detail *d)
{
	if (!call || (call->n_inputs != 2 && call->n_inputs != 3))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized_linear: takes x, weight and an optional bias");
	qcf_status s = shapes_only ? qref_check_call_shapes(call, call->n_inputs, 1, d)
	                           : qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1], *y = &call->outputs[0];
	const qcf_tensor *b = call->n_inputs == 3 ? &call->inputs[2] : NULL;
	qcf_quant wq, xq;
	/* linear_prepack first: the weight and the bias */
	if (w->dtype != QCF_INT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized::linear_prepack: expected scalar type QInt8 but found "
		                 "%s (the weight is qint8 = int8)",
		                 qref_dtype_name(w->dtype));
	if (w->rank != 2)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "quantized::linear_prepack: Weight tensor rank should be == 2, got "
		        "%" PRId32 "",
		        w->rank);
	if ((s = qref_get_quant(w, "weight", 0, &wq, d)) != QCF_OK)
		return s;
	if (wq.axis > 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized::linear_prepack: per-channel weight quantization is "
		                 "along axis 0 (output channels), got axis %" PRId32 "",
		                 wq.axis);
	g->o = w->shape[0];
	g->k = w->shape[1];
	g->has_bias = b != NULL;
	if (b && (b->dtype != QCF_FLOAT32 || b->rank != 1 || b->shape[0] != g->o))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized::linear_prepack: Given weight of size [%lld, %lld], "
		                 "expected bias to be 1-dimensional float32 with %lld elements",
		                 (long long)g->o, (long long)g->k, (long long)g->o);
	/* then linear: the input and the output */
	if (x->dtype != QCF_UINT8 && x->dtype != QCF_INT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized::linear: Expected input data type QUInt8 or QInt8 but "
		                 "got %s",
		                 qref_dtype_name(x->dtype));
	if (x->rank < 2)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized::linear(): Input tensor rank should be >= 2");
	if ((s = qref_get_quant(x, "x", 1, &xq, d)) != QCF_OK)
		return s;
	if (x->shape[x->rank - 1] != g->k)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized_linear: x has %lld in_features, the weight %lld (mat1 "
		                 "and mat2 shapes cannot be multiplied)",
		                 (long long)x->shape[x->rank - 1], (long long)g->k);
	if (y->dtype != x->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized_linear: the output has x's dtype (%s), got %s",
		                 qref_dtype_name(x->dtype), qref_dtype_name(y->dtype));
	int same = y->rank == x->rank && y->shape[y->rank - 1] == g->o;
	for (int32_t i = 0; same && i + 1 < x->rank; i++)
		same = y->shape[i] == x->shape[i];
	if (!same)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "quantized_linear: the output's shape is x's with the last "
		                 "dimension %lld",
		                 (long long)g->o);
	g->rows = qref_numel(x->rank - 1, x->shape);
	return QCF_OK;
}

/* dequantize's float32 value of element i (8-bit values: the difference fits int32) */
static float dq(const qcf_tensor *t, size_t i)
{
	int ub;
	return qref_torch_dequantize_elem(t, i, &ub);
}

/* The float linear on the dequantized tensors, exactly (double), one value per output. */
static void lin_values(const qcf_op_call *call, const lin_geom *g, double *out)
{
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1];
	for (size_t r = 0; r < g->rows; r++)
		for (int64_t o = 0; o < g->o; o++) {
			double acc = 0;
			for (int64_t k = 0; k < g->k; k++)
				acc += (double)dq(x, r * (size_t)g->k + (size_t)k) *
				       (double)dq(w, (size_t)o * (size_t)g->k + (size_t)k);
			if (g->has_bias)
				acc += qref_get(&call->inputs[2], (size_t)o);
			out[r * (size_t)g->o + (size_t)o] = acc;
		}
}

static qcf_status qref_torch_quantized_linear(const qcf_op_call *call, const qref_op *row,
                                              qref_detail *d)
{
	(void)row;
	lin_geom g;
	qcf_status s = lin_check(call, 0, &g, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *y = &call->outputs[0];
	const size_t n = g.rows * (size_t)g.o;
	double *v = malloc((n ? n : 1) * sizeof *v);
	float *f = malloc((n ? n : 1) * sizeof *f);
	if (!v || !f) {
		free(v);
		free(f);
		return qref_fail(d, QCF_ERROR, "quantized_linear: out of memory");
	}
	lin_values(call, &g, v);
	for (size_t i = 0; i < n; i++)
		f[i] = (float)v[i];
	/* quantize_per_tensor(float32 result): the float32 tensor as its input */
	qcf_tensor fx = *y;
	fx.name = "linear";
	fx.dtype = QCF_FLOAT32;
	fx.data = f;
	fx.nbytes = n * sizeof *f;
	fx.quant = NULL;
	qcf_op_call qc = *call;
	qc.n_inputs = 1;
	qc.inputs = &fx;
	qc.n_attrs = 0;
	qc.attrs = NULL;
	s = qref_torch_quantize_per_tensor(&qc, NULL, d);
	free(v);
	free(f);
	return s;
}

static qcf_status qref_torch_quantized_linear_real(const qcf_op_call *call, const qref_op *row,
                                                   int k, double *values, qref_detail *d)
{
	(void)row;
	(void)k; /* one output */
	lin_geom g;
	qcf_status s = lin_check(call, 1, &g, d);
	if (s != QCF_OK)
		return s;
	lin_values(call, &g, values);
	return QCF_OK;
}

const qref_op qref_ops_torch_linear[] = {
        {.schema = {.semantics = "torch",
                    .op = "quantized_linear",
                    IO(LIST("x", "weight", "bias"), 2, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = qref_torch_quantized_linear,
         .real = qref_torch_quantized_linear_real},
        {.schema = {.op = NULL}},
};
