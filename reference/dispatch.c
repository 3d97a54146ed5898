/* qref_supports / qref_execute: the table from (semantics, op) to kernel. */
#include <string.h>

#include "kernel.h"

typedef struct {
	const char *semantics;
	const char *op;
	qref_kernel_fn fn;
} entry;

static const entry table[] = {
        {"litert", "QUANTIZE", qref_litert_quantize},
        {"litert", "DEQUANTIZE", qref_litert_dequantize},
        {"torch", "fake_quantize_per_tensor_affine", qref_torch_fq_per_tensor},
        {"torch", "fake_quantize_per_tensor_affine_cachemask", qref_torch_fq_per_tensor_cachemask},
        {"torch", "fake_quantize_per_channel_affine", qref_torch_fq_per_channel},
        {"torch", "fake_quantize_per_channel_affine_cachemask",
         qref_torch_fq_per_channel_cachemask},
        {"tf", "fake_quant_with_min_max_args", qref_tf_fq_args},
        {"tf", "fake_quant_with_min_max_vars", qref_tf_fq_vars},
        {"tf", "fake_quant_with_min_max_vars_per_channel", qref_tf_fq_vars_per_channel},
        {"onnx", "QuantizeLinear", qref_onnx_quantize_linear},
        {"onnx", "DequantizeLinear", qref_onnx_dequantize_linear},
};

static qref_kernel_fn lookup(const qcf_op_call *call)
{
	if (!call || !call->semantics || !call->op)
		return NULL;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].semantics, call->semantics) == 0 &&
		    strcmp(table[i].op, call->op) == 0)
			return table[i].fn;
	return NULL;
}

qcf_status qref_supports(const qcf_op_call *call)
{
	return lookup(call) ? QCF_OK : QCF_NOT_SUPPORTED;
}

qcf_status qref_execute(const qcf_op_call *call, qref_detail *detail)
{
	if (detail)
		detail->message[0] = '\0';
	if (!call)
		return qref_fail(detail, QCF_ERROR, "no op call");
	qref_kernel_fn fn = lookup(call);
	if (!fn)
		return qref_fail(detail, QCF_NOT_SUPPORTED, "the reference has no %s op '%s'",
		                 call->semantics ? call->semantics : "(null)",
		                 call->op ? call->op : "(null)");
	return fn(call, detail);
}
