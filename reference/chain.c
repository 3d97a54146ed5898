/*
 * chain: a chain of op calls (qcf_chain, plugin.h version 3) computed the way the graph
 * writes it: node by node with the reference's own kernels, every intermediate quantized
 * (rounded, clamped) as it is declared, and fed to the nodes after it. Tensors bind by name
 * to the call's inputs and outputs and to the chain's intermediates (whose buffers are the
 * caller's), so the same chain computes into any output buffers the caller gives.
 */
#include <string.h>

#include "kernel.h"
#include "op.h"

/* The buffer of the tensor called name: a graph input, a graph output or an intermediate;
 * own (the node's pointer) when the name is none of them. */
static void *bound(const qcf_op_call *call, const qcf_chain *ch, const char *name, void *own)
{
	for (int32_t j = 0; name && j < call->n_inputs; j++)
		if (call->inputs[j].name && !strcmp(call->inputs[j].name, name))
			return call->inputs[j].data;
	for (int32_t j = 0; name && j < call->n_outputs; j++)
		if (call->outputs[j].name && !strcmp(call->outputs[j].name, name))
			return call->outputs[j].data;
	for (int32_t j = 0; name && j < ch->n_intermediates; j++)
		if (ch->intermediates[j].name && !strcmp(ch->intermediates[j].name, name))
			return ch->intermediates[j].data;
	return own;
}

/* Output g of the call that the node's output called name is, or -1 (an intermediate). */
static int graph_output(const qcf_op_call *call, const char *name)
{
	for (int32_t j = 0; name && j < call->n_outputs; j++)
		if (call->outputs[j].name && !strcmp(call->outputs[j].name, name))
			return (int)j;
	return -1;
}

qcf_status qref_chain_execute(const qcf_op_call *call, qref_detail *detail)
{
	const qcf_chain *ch = qcf_call_chain(call);
	if (!ch || ch->n_nodes < 1 || ch->n_nodes > QREF_CHAIN_MAX_NODES || !ch->nodes)
		return qref_fail(detail, QCF_ERROR, "%s: a chain has 1 to %d nodes",
		                 call->op ? call->op : "chain", QREF_CHAIN_MAX_NODES);
	/* (a malformed chain is the host's error, not a rule of any op: specs cannot write one) */
	qref_rounding rounding = detail ? detail->rounding : QREF_ROUND_DEFAULT;
	qref_rounding chain_default = QREF_ROUND_DEFAULT;
	int took_rounding = rounding == QREF_ROUND_DEFAULT;
	for (int32_t k = 0; k < ch->n_nodes; k++) {
		const qcf_op_call *nd = &ch->nodes[k];
		if (nd->n_inputs > QREF_CHAIN_MAX_TENSORS ||
		    nd->n_outputs > QREF_CHAIN_MAX_TENSORS || nd->n_inputs < 0 ||
		    nd->n_outputs < 0 || qcf_call_chain(nd))
			return qref_fail(detail, QCF_ERROR,
			                 "%s: node %d (%s) has too many tensors or is a chain",
			                 call->op, (int)k + 1, nd->op ? nd->op : "?");
		qcf_tensor in[QREF_CHAIN_MAX_TENSORS], out[QREF_CHAIN_MAX_TENSORS];
		for (int32_t j = 0; j < nd->n_inputs; j++) {
			in[j] = nd->inputs[j];
			in[j].data = bound(call, ch, in[j].name, in[j].data);
		}
		for (int32_t j = 0; j < nd->n_outputs; j++) {
			out[j] = nd->outputs[j];
			out[j].data = bound(call, ch, out[j].name, out[j].data);
		}
		qcf_op_call one;
		memset(&one, 0, sizeof one);
		memcpy(&one, nd, nd->struct_size < sizeof one ? nd->struct_size : sizeof one);
		one.struct_size = sizeof one;
		one.chain = NULL;
		one.inputs = in;
		one.outputs = out;
		/* the element details of the graph's outputs come from the node that writes them */
		qref_detail d;
		memset(&d, 0, sizeof d);
		d.rounding = rounding;
		for (int32_t j = 0; detail && j < nd->n_outputs && j < QREF_MAX_OUTPUTS; j++) {
			int g = graph_output(call, out[j].name);
			if (g >= 0 && g < QREF_MAX_OUTPUTS)
				d.out[j] = detail->out[g];
		}
		qcf_status st = qref_execute(&one, &d);
		if (st == QCF_NOT_SUPPORTED && rounding != QREF_ROUND_DEFAULT) {
			/* a node that has not the named rounding rounds as it always does */
			d.rounding = QREF_ROUND_DEFAULT;
			st = qref_execute(&one, &d);
		} else if (st == QCF_OK) {
			took_rounding = 1;
		}
		if (st != QCF_OK) {
			qcf_status s = qref_fail(detail, st, "%s: node %d (%s): %s", call->op,
			                         (int)k + 1, nd->op ? nd->op : "?", d.message);
			return s;
		}
		if (chain_default == QREF_ROUND_DEFAULT)
			chain_default = d.default_rounding;
	}
	if (!took_rounding)
		return qref_fail(detail, QCF_NOT_SUPPORTED,
		                 "%s: rounding '%s' does not apply (no node of the chain has it)",
		                 call->op, qref_rounding_name(rounding));
	if (detail)
		detail->default_rounding = chain_default;
	return QCF_OK;
}
