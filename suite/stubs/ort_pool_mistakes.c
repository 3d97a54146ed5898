/*
 * ONNX Runtime's pooling and concatenation ops (reference/ort_qlinear_pool.c) with one typical
 * mistake each; every other call goes to the reference unchanged:
 *
 *   QLinearAveragePool        count_include_pad ignored: every window divides by its taps
 *                             inside x (qlinear_pool.cc divides by the kernel's size when the
 *                             attribute is 1), so windows that reach the padding, or lie past
 *                             the end with ceil_mode, come out smaller;
 *   QLinearGlobalAveragePool  the input zero point forgotten: the sum of x, not of x - x_zp
 *                             (MLAS's bias -x_zp * n left out);
 *   QLinearConcat             no requantization: every input copied as stored, as if it had Y's
 *                             scale and zero point (qlinear_concat.cc copies only those that do,
 *                             and maps the others through their table);
 *   NhwcMaxPool               int8 compared as uint8 (a uint8-only maximum kernel run on int8
 *                             data): a negative value beats every positive one.
 */
#include "stub.h"

#define MAX_IN 16

static qcf_status pool_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_op_call c = *call;
	if (stub_op_is(call, "QLinearAveragePool")) {
		qcf_attr attrs[32];
		int32_t n = 0;
		for (int32_t i = 0; i < call->n_attrs && n < 31; i++)
			if (!call->attrs[i].name ||
			    strcmp(call->attrs[i].name, "count_include_pad"))
				attrs[n++] = call->attrs[i];
		c.attrs = attrs;
		c.n_attrs = n;
		return stub_delegate(inst, &c);
	}
	if (stub_op_is(call, "QLinearGlobalAveragePool") && call->n_inputs == 1 &&
	    call->inputs[0].quant) {
		qcf_tensor x = call->inputs[0];
		qcf_quant q = *x.quant;
		int32_t zero = 0;
		q.zero_points = &zero;
		x.quant = &q;
		c.inputs = &x;
		return stub_delegate(inst, &c);
	}
	if (stub_op_is(call, "QLinearConcat") && call->n_inputs <= MAX_IN && call->n_outputs == 1 &&
	    call->outputs[0].quant) {
		qcf_tensor in[MAX_IN];
		for (int32_t i = 0; i < call->n_inputs; i++) {
			in[i] = call->inputs[i];
			if (in[i].quant)
				in[i].quant = call->outputs[0].quant;
		}
		c.inputs = in;
		return stub_delegate(inst, &c);
	}
	if (stub_op_is(call, "NhwcMaxPool") && call->n_inputs == 1 && call->n_outputs == 1 &&
	    call->inputs[0].dtype == QCF_INT8 && call->outputs[0].dtype == QCF_INT8) {
		qcf_tensor x = call->inputs[0], y = call->outputs[0];
		x.dtype = QCF_UINT8; /* the same bytes, read unsigned */
		y.dtype = QCF_UINT8;
		c.inputs = &x;
		c.outputs = &y;
		return stub_delegate(inst, &c);
	}
	return stub_delegate(inst, call);
}

STUB_PLUGIN("ort_pool_mistakes", pool_execute)
