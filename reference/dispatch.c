/*
 * qref_supports / qref_execute / qref_real_output: the table from
 * (semantics, op) to kernel, and to the op's real-valued output hook.
 *
 * `real` is NULL for ops none of whose outputs is quantized (float outputs,
 * masks); qref_real_output then answers QCF_NOT_SUPPORTED. An op with a
 * quantized output (CONV_2D, FULLY_CONNECTED, ... as they are added) lists
 * its hook here beside its kernel; the hook answers QCF_NOT_SUPPORTED itself
 * for any of its outputs that is not quantized.
 *
 * qref_output_axes and qref_element_terms: the ops' output layouts, and the
 * ops that give one element's accumulator (for the report of a failing
 * element).
 */
#include <inttypes.h>
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
        qref_ops_torch_pt2e,
        qref_ops_tf,
        qref_ops_onnx,
        qref_ops_onnx_linear,
        qref_ops_ort,
        qref_ops_ggml,
        qref_ops_mx,
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
		return qref_fail(d, QCF_INVALID_PARAM, "%s: no output %d (it has %" PRId32 ")",
		                 call->op, k, call->n_outputs);
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

/* ---- where an element is, and its terms ---- */

/* Ops whose rank-4 output is NHWC (n, h, w, c). */
static const char *const nhwc_ops[] = {"CONV_2D",     "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D",
                                       "MAX_POOL_2D", "RESIZE_BILINEAR",   "SPACE_TO_DEPTH",
                                       NULL};

static int op_is(const qcf_op_call *call, const char *semantics, const char *op)
{
	return call->semantics && call->op && !strcmp(call->semantics, semantics) &&
	       !strcmp(call->op, op);
}

int qref_output_axes(const qcf_op_call *call, int k, char (*names)[QREF_AXIS_NAME],
                     int *channel_axis)
{
	if (!call || k < 0 || k >= call->n_outputs || !call->outputs)
		return -1;
	const qcf_tensor *t = &call->outputs[k];
	int rank = t->rank < 0 ? 0 : t->rank > QCF_MAX_RANK ? QCF_MAX_RANK : t->rank;
	static const char *const nhwc[] = {"n", "h", "w", "c"};
	static const char *const nchw[] = {"n", "c", "h", "w"};
	const char *named[QCF_MAX_RANK] = {NULL}; /* the layout's names; NULL: d<i> */
	int ch = -1, nhwc_op = 0;
	for (int i = 0; nhwc_ops[i]; i++)
		nhwc_op |= op_is(call, "litert", nhwc_ops[i]);
	if (k == 0 && rank == 4 && nhwc_op) {
		for (int i = 0; i < 4; i++)
			named[i] = nhwc[i];
		ch = 3;
	} else if (k == 0 && rank >= 3 &&
	           (op_is(call, "onnx", "QLinearConv") || op_is(call, "onnx", "ConvInteger"))) {
		for (int i = 0; i < (rank == 4 ? 4 : 2); i++)
			named[i] = nchw[i]; /* n, c, then h, w or d2, d3, ... */
		ch = 1;
	} else if (k == 0 && rank >= 1 && op_is(call, "litert", "FULLY_CONNECTED")) {
		if (rank == 2)
			named[0] = "batch";
		named[rank - 1] = "out_channel";
		ch = rank - 1;
	} else if (t->quant && t->quant->count > 1 && t->quant->axis >= 0 &&
	           t->quant->axis < rank) {
		ch = t->quant->axis; /* per-axis quantized: its channels */
	}
	for (int i = 0; names && i < rank; i++)
		if (named[i])
			snprintf(names[i], QREF_AXIS_NAME, "%s", named[i]);
		else
			snprintf(names[i], QREF_AXIS_NAME, "d%d", i);
	if (channel_axis)
		*channel_axis = ch;
	return rank;
}

/* The ops with qref_element_terms. */
static const struct {
	const char *semantics, *op;
	qref_terms_fn fn;
} terms_ops[] = {
        {"litert", "CONV_2D", qref_litert_conv_element_terms},
        {"litert", "DEPTHWISE_CONV_2D", qref_litert_conv_element_terms},
        {"litert", "FULLY_CONNECTED", qref_litert_conv_element_terms},
        {"onnx", "QLinearConv", qref_onnx_linear_element_terms},
        {"onnx", "QLinearMatMul", qref_onnx_linear_element_terms},
};

qcf_status qref_element_terms(const qcf_op_call *call, int k, const size_t *idx, int n,
                              qref_terms *terms)
{
	if (!call || n < 0 || (n && (!idx || !terms)))
		return QCF_ERROR;
	for (size_t i = 0; i < sizeof terms_ops / sizeof terms_ops[0]; i++) {
		if (!op_is(call, terms_ops[i].semantics, terms_ops[i].op))
			continue;
		qref_detail d;
		memset(&d, 0, sizeof d);
		const qcf_op_call *outer = qref_running_call;
		qref_running_call = call;
		qcf_status s = terms_ops[i].fn(call, k, idx, n, terms, &d);
		qref_running_call = outer;
		return s;
	}
	return QCF_NOT_SUPPORTED;
}
