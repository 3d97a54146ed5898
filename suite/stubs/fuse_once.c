/*
 * A kernel that fuses (plugin ABI version 3): offered a chain whose last node is an activation
 * (RELU, RELU6, RELU_N1_TO_1) after an op that has fused_activation_function, it computes the
 * first node alone with that activation fused and the graph's output parameters: it rounds once
 * where the graph rounds twice. A chain of QUANTIZE nodes becomes one QUANTIZE from the graph's
 * input to its output (the requantization collapse). Other chains: QCF_NOT_SUPPORTED, so the
 * host offers their nodes one at a time; single calls are the reference's. A QDQ group
 * (DequantizeLinear nodes -> Add, Mul, LeakyRelu, MatMul, Conv, AveragePool, GlobalAveragePool
 * or Concat -> QuantizeLinear) becomes ONNX Runtime's QLinearAdd, QLinearMul,
 * QLinearLeakyRelu, QLinearAveragePool, QLinearGlobalAveragePool or QLinearConcat, or ONNX's
 * QLinearMatMul or QLinearConv (the float op's attributes kept), on the graph's inputs, as
 * ORT's QDQ selector fuses it (a Conv's int32 bias read without its quantization, which
 * QLinearConv implies). QUANTIZE -> LOGISTIC or SOFTMAX becomes the table op on the graph's
 * input (the requantization folded into the table). Under contract round_once it conforms; under
 * contract graph it fails at exactly the tie elements (specs/chains/, suite/test_chains.c).
 */
#include "stub.h"

/* The single call a chain fuses to, in *one (with room for its attributes in attrs and its
 * inputs in ins), or 0. */
static int fuse(const qcf_op_call *call, qcf_op_call *one, qcf_attr *attrs, qcf_tensor *ins)
{
	const qcf_chain *ch = qcf_call_chain(call);
	if (!ch || ch->n_nodes < 2 || call->n_outputs != 1)
		return 0;
	const qcf_op_call *first = &ch->nodes[0], *last = &ch->nodes[ch->n_nodes - 1];
	int all_quantize = 1;
	for (int32_t k = 0; k < ch->n_nodes; k++)
		all_quantize &= stub_op_is(&ch->nodes[k], "QUANTIZE");
	*one = *first;
	one->chain = NULL;
	one->n_outputs = 1;
	one->outputs = call->outputs;
	const qcf_op_call *mid = ch->n_nodes >= 3 ? &ch->nodes[ch->n_nodes - 2] : NULL;
	if (mid && stub_op_is(last, "QuantizeLinear")) {
		/* the float op, the fused op, its semantics */
		static const char *const qdq[][3] = {
		        {"Add", "QLinearAdd", "ort"},
		        {"Mul", "QLinearMul", "ort"},
		        {"LeakyRelu", "QLinearLeakyRelu", "ort"},
		        {"MatMul", "QLinearMatMul", "onnx"},
		        {"Conv", "QLinearConv", "onnx"},
		        {"AveragePool", "QLinearAveragePool", "ort"},
		        {"GlobalAveragePool", "QLinearGlobalAveragePool", "ort"},
		        {"Concat", "QLinearConcat", "ort"}};
		for (int32_t k = 0; k < ch->n_nodes - 2; k++)
			if (!stub_op_is(&ch->nodes[k], "DequantizeLinear"))
				return 0;
		for (size_t q = 0; q < sizeof qdq / sizeof qdq[0]; q++)
			if (stub_op_is(mid, qdq[q][0])) {
				*one = *mid;
				one->op = qdq[q][1];
				one->semantics = qdq[q][2];
				one->chain = NULL;
				one->n_inputs = call->n_inputs;
				one->inputs = call->inputs;
				one->n_outputs = 1;
				one->outputs = call->outputs;
				if (!strcmp(qdq[q][1], "QLinearConv") && call->n_inputs == 3) {
					/* B: the int32 the graph dequantizes at x_scale * w_scale,
					 * which QLinearConv implies */
					memcpy(ins, call->inputs, 3 * sizeof *ins);
					ins[2].quant = NULL;
					one->inputs = ins;
				}
				return 1;
			}
		return 0;
	}
	if (ch->n_nodes == 2 && stub_op_is(first, "QUANTIZE") &&
	    (stub_op_is(last, "LOGISTIC") || stub_op_is(last, "SOFTMAX"))) {
		/* the requantization folded into the table: the LUT op on the graph's input */
		*one = *last;
		one->chain = NULL;
		one->n_inputs = 1;
		one->inputs = call->inputs;
		one->n_outputs = 1;
		one->outputs = call->outputs;
		return call->n_inputs == 1;
	}
	if (all_quantize) {
		one->n_inputs = 1;
		one->inputs = call->inputs;
		return call->n_inputs == 1;
	}
	const char *act = stub_op_is(last, "RELU")           ? "RELU"
	                  : stub_op_is(last, "RELU6")        ? "RELU6"
	                  : stub_op_is(last, "RELU_N1_TO_1") ? "RELU_N1_TO_1"
	                                                     : NULL;
	if (!act || first->n_attrs >= 16 || !stub_attr(first, "fused_activation_function"))
		return 0;
	for (int32_t i = 0; i < first->n_attrs; i++) {
		attrs[i] = first->attrs[i];
		if (!strcmp(attrs[i].name, "fused_activation_function"))
			attrs[i].v.s = act;
	}
	one->attrs = attrs;
	return 1;
}

static qcf_status fuse_supports(qcf_instance *inst, const qcf_op_call *call)
{
	qcf_op_call one;
	qcf_attr attrs[16];
	qcf_tensor ins[3];
	if (qcf_call_chain(call) && !fuse(call, &one, attrs, ins))
		return stub_fail(inst, QCF_NOT_SUPPORTED, "this chain does not fuse");
	return stub_supports(inst, qcf_call_chain(call) ? &one : call);
}

static qcf_status fuse_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_op_call one;
	qcf_attr attrs[16];
	qcf_tensor ins[3];
	if (qcf_call_chain(call) && !fuse(call, &one, attrs, ins))
		return stub_fail(inst, QCF_NOT_SUPPORTED, "this chain does not fuse");
	return stub_delegate(inst, qcf_call_chain(call) ? &one : call);
}

static const qcf_plugin stub_descriptor = {.struct_size = sizeof(qcf_plugin),
                                           .abi_version = 3,
                                           .name = "stub_fuse_once",
                                           .version = "1.0",
                                           .create = stub_create,
                                           .destroy = stub_destroy,
                                           .supports = fuse_supports,
                                           .execute = fuse_execute,
                                           .last_error = stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return qcf_negotiate_answer(n, 3, &stub_descriptor);
}
