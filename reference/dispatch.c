/*
 * The lookups over every op's row (op.h): qref_supports, qref_execute, qref_real_output, the
 * schemas (qref_op_schema_find, qref_op_schema_at), qref_output_axes and qref_element_terms.
 * The rows live in the family files; this file only lists the families.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "kernel.h"
#include "op.h"

static const qref_op *const families[] = {
        qref_ops_litert_quantize,
        qref_ops_litert_conv,
        qref_ops_litert_elementwise,
        qref_ops_litert_activations,
        qref_ops_litert_layout,
        qref_ops_litert_index,
        qref_ops_litert_recurrent,
        qref_ops_litert_piecewise,
        qref_ops_litert_matmul,
        qref_ops_litert_arith,
        qref_ops_litert_lut,
        qref_ops_litert_reduce,
        qref_ops_litert_movement,
        qref_ops_litert_lstm,
        qref_ops_torch_fake_quant,
        qref_ops_torch_fake_quant_grad,
        qref_ops_torch_quantize,
        qref_ops_torch_linear,
        qref_ops_torch_pt2e,
        qref_ops_tf,
        qref_ops_onnx,
        qref_ops_onnx_linear,
        qref_ops_ort,
        qref_ops_ort_qlinear_elementwise,
        qref_ops_ort_qlinear_pool,
        qref_ops_onnx_float,
        qref_ops_ort_qmatmul,
        qref_ops_ort_qattention,
        qref_ops_ort_qembed,
        qref_ops_ggml,
        qref_ops_mx,
        qref_ops_ort_qconv,
        qref_ops_ort_matmul_fpq4,
        qref_ops_ort_qmoe,
        qref_ops_ort_qlstm,
};

#define N_FAMILIES (sizeof families / sizeof families[0])

const qref_op *qref_op_find(const char *semantics, const char *op)
{
	if (!semantics || !op)
		return NULL;
	for (size_t f = 0; f < N_FAMILIES; f++)
		for (const qref_op *r = families[f]; r->schema.op; r++)
			if (strcmp(r->schema.op, op) == 0 &&
			    strcmp(r->schema.semantics, semantics) == 0)
				return r;
	return NULL;
}

/* The row i (0, 1, ...) of every family in turn, or NULL past the last. */
static const qref_op *row_at(int i)
{
	for (size_t f = 0; i >= 0 && f < N_FAMILIES; f++)
		for (const qref_op *r = families[f]; r->schema.op; r++)
			if (i-- == 0)
				return r;
	return NULL;
}

int qref_op_index(const qref_op_schema *schema)
{
	int i = 0;
	for (size_t f = 0; schema && f < N_FAMILIES; f++)
		for (const qref_op *r = families[f]; r->schema.op; r++, i++)
			if (&r->schema == schema)
				return i;
	return -1;
}

const qref_op_schema *qref_op_schema_at(int i)
{
	const qref_op *r = row_at(i);
	return r ? &r->schema : NULL;
}

const qref_op_schema *qref_op_schema_find(const char *semantics, const char *op)
{
	const qref_op *r = qref_op_find(semantics, op);
	return r ? &r->schema : NULL;
}

static const qref_op *lookup(const qcf_op_call *call)
{
	return call ? qref_op_find(call->semantics, call->op) : NULL;
}

static qcf_status no_such_op(const qcf_op_call *call, qref_detail *detail)
{
	return qref_fail(detail, QCF_NOT_SUPPORTED, "the reference has no %s op '%s'",
	                 call->semantics ? call->semantics : "(null)",
	                 call->op ? call->op : "(null)");
}

qcf_status qref_supports(const qcf_op_call *call)
{
	const qcf_chain *ch = qcf_call_chain(call);
	for (int32_t k = 0; ch && ch->nodes && k < ch->n_nodes; k++)
		if (!lookup(&ch->nodes[k]))
			return QCF_NOT_SUPPORTED;
	if (ch)
		return ch->nodes && ch->n_nodes > 0 ? QCF_OK : QCF_NOT_SUPPORTED;
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
	if (qcf_call_chain(call))
		return qref_chain_execute(call, detail);
	const qref_op *row = lookup(call);
	if (!row)
		return no_such_op(call, detail);
	const qcf_op_call *outer = qref_running_call;
	qref_running_call = call;
	qcf_status s = row->kernel(call, row, detail);
	qref_running_call = outer;
	return s;
}

/*
 * An op none of whose outputs is quantized (float outputs, masks) has no real hook: its
 * outputs have no real-valued result to choose a quantization for. An op with one has its
 * hook in its row, and the hook refuses its outputs that are not quantized.
 */
static qcf_status real_output(const qcf_op_call *call, int k, double *values, qref_detail *d)
{
	if (!call)
		return qref_fail(d, QCF_ERROR, "no op call");
	const qref_op *row = lookup(call);
	if (!row)
		return no_such_op(call, d);
	if (k < 0 || k >= call->n_outputs)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: no output %d (it has %" PRId32 ")",
		                 call->op, k, call->n_outputs);
	if (!row->real) {
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
	qcf_status s = row->real(call, row, k, values, d);
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
	const qref_op *row = lookup(call);
	qref_layout layout = row && k == 0 ? row->layout : QREF_LAYOUT_PLAIN;
	int ch = -1;
	if (layout == QREF_LAYOUT_NHWC && rank == 4) {
		for (int i = 0; i < 4; i++)
			named[i] = nhwc[i];
		ch = 3;
	} else if (layout == QREF_LAYOUT_NCHW && rank >= 3) {
		for (int i = 0; i < (rank == 4 ? 4 : 2); i++)
			named[i] = nchw[i]; /* n, c, then h, w or d2, d3, ... */
		ch = 1;
	} else if (layout == QREF_LAYOUT_FC && rank >= 1) {
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

qcf_status qref_element_terms(const qcf_op_call *call, int k, const size_t *idx, int n,
                              qref_terms *terms)
{
	if (!call || n < 0 || (n && (!idx || !terms)))
		return QCF_ERROR;
	const qref_op *row = lookup(call);
	if (!row || !row->terms)
		return QCF_NOT_SUPPORTED;
	qref_detail d;
	memset(&d, 0, sizeof d);
	const qcf_op_call *outer = qref_running_call;
	qref_running_call = call;
	qcf_status s = row->terms(call, row, k, idx, n, terms, &d);
	qref_running_call = outer;
	return s;
}
