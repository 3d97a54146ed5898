/*
 * qref_supports / qref_execute / qref_real_output: the table from
 * (semantics, op) to kernel, and to the op's real-valued output hook.
 *
 * `real` is NULL for ops none of whose outputs is quantized (float outputs,
 * masks); qref_real_output then answers QCF_NOT_SUPPORTED. An op with a
 * quantized output (CONV_2D, FULLY_CONNECTED, ... as they are added) lists
 * its hook here beside its kernel; the hook answers QCF_NOT_SUPPORTED itself
 * for any of its outputs that is not quantized.
 */
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "kernel.h"

/* LiteRT QUANTIZE / DEQUANTIZE (litert_quantize.c). */
const qref_op_entry qref_ops_qdq[] = {
        {"litert", "QUANTIZE", qref_litert_quantize, qref_litert_quantize_real},
        {"litert", "DEQUANTIZE", qref_litert_dequantize, NULL},
        {NULL, NULL, NULL, NULL},
};

static const qref_op_entry *const families[] = {
        qref_ops_qdq,
        qref_ops_litert_conv,
        qref_ops_litert_elementwise,
        qref_ops_litert_activations,
        qref_ops_litert_layout,
        qref_ops_torch,
        qref_ops_tf,
        qref_ops_onnx,
        qref_ops_onnx_linear,
};

typedef qref_op_entry entry;

static const entry *lookup(const qcf_op_call *call)
{
	if (!call || !call->semantics || !call->op)
		return NULL;
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
		for (const entry *e = families[f]; e->op; e++)
			if (strcmp(e->semantics, call->semantics) == 0 &&
			    strcmp(e->op, call->op) == 0)
				return e;
	return NULL;
}

static qcf_status no_such_op(const qcf_op_call *call, qref_detail *detail)
{
	return qref_fail(detail, QCF_NOT_SUPPORTED, "the reference has no %s op '%s'",
	                 call->semantics ? call->semantics : "(null)",
	                 call->op ? call->op : "(null)");
}

qcf_status qref_supports(const qcf_op_call *call)
{
	return lookup(call) ? QCF_OK : QCF_NOT_SUPPORTED;
}

qcf_status qref_execute(const qcf_op_call *call, qref_detail *detail)
{
	if (detail) {
		detail->message[0] = '\0';
		memset(&detail->cause, 0, sizeof detail->cause);
		detail->extra_done = 0;
		detail->default_rounding = QREF_ROUND_DEFAULT;
	}
	if (!call)
		return qref_fail(detail, QCF_ERROR, "no op call");
	const entry *e = lookup(call);
	if (!e)
		return no_such_op(call, detail);
	const qcf_op_call *outer = qref_running_call;
	qref_running_call = call;
	qcf_status s = e->fn(call, detail);
	qref_running_call = outer;
	return s;
}

static qcf_status real_output(const qcf_op_call *call, int k, double *values, qref_detail *d)
{
	if (!call)
		return qref_fail(d, QCF_ERROR, "no op call");
	const entry *e = lookup(call);
	if (!e)
		return no_such_op(call, d);
	if (k < 0 || k >= call->n_outputs)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: no output %d (it has %d)", call->op, k,
		                 call->n_outputs);
	if (!e->real) {
		const char *dt = call->outputs ? qref_dtype_name(call->outputs[k].dtype) : "?";
		return qref_fail(
		        d, QCF_NOT_SUPPORTED,
		        "%s: output %d (%s) is not quantized: it has no real-valued result "
		        "to choose a quantization for",
		        call->op, k, dt);
	}
	if (!values)
		return qref_fail(d, QCF_ERROR, "no values buffer");
	const qcf_op_call *outer = qref_running_call;
	qref_running_call = call;
	qcf_status s = e->real(call, k, values, d);
	qref_running_call = outer;
	return s;
}

qcf_status qref_real_output_msg(const qcf_op_call *call, int k, double *values, char *message,
                                size_t size)
{
	qref_detail d;
	memset(&d, 0, sizeof d);
	qcf_status s = real_output(call, k, values, &d);
	if (message && size)
		snprintf(message, size, "%s", s == QCF_OK ? "" : d.message);
	return s;
}

qcf_status qref_real_output(const qcf_op_call *call, int k, double *values)
{
	return qref_real_output_msg(call, k, values, NULL, 0);
}
