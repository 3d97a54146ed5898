/*
 * A kernel of exactly the LiteRT 8-bit quantization spec (quantization_spec.md) and nothing
 * else: it answers like the reference, but declines (NOT_SUPPORTED) every call with a tensor a
 * pure LiteRT int8 kernel does not take. It takes quantized int8 tensors, a quantized int32
 * bias (an input after the first), int16, int32 and int64 tensors that are not quantized
 * (bias, indices such as GATHER's int16 positions, shapes, axes, ARG_MAX's output), bool
 * outputs, float32 only as QUANTIZE's input and
 * DEQUANTIZE's output. It declines before it looks at anything else, as a kernel whose
 * supports() checks its types first: a negative case (expect: error) with a tensor it does not
 * take is answered NOT_SUPPORTED, which satisfies the expected error (README "Verdicts").
 */
#include "stub.h"

/* Why the kernel does not take tensor t (input i, or output i when out), or NULL. */
static const char *declined(const qcf_op_call *call, const qcf_tensor *t, int i, int out)
{
	if (t->quant) {
		if (t->dtype == QCF_INT8)
			return NULL;
		if (t->dtype == QCF_INT32 && !out && i > 0)
			return NULL; /* the bias */
		return "quantized tensors are int8 (and an int32 bias)";
	}
	switch (t->dtype) {
	case QCF_INT16:
	case QCF_INT32:
	case QCF_INT64: return NULL;
	case QCF_BOOL: return out ? NULL : "bool is an output only";
	case QCF_FLOAT32:
		if ((stub_op_is(call, "QUANTIZE") && !out && i == 0) ||
		    (stub_op_is(call, "DEQUANTIZE") && out && i == 0))
			return NULL;
		return "float32 is QUANTIZE's input and DEQUANTIZE's output only";
	default: return "not a type of the int8 spec";
	}
}

static qcf_status int8_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	for (int out = 0; out < 2; out++) {
		int n = out ? call->n_outputs : call->n_inputs;
		const qcf_tensor *ts = out ? call->outputs : call->inputs;
		for (int i = 0; i < n; i++) {
			const char *why = declined(call, &ts[i], i, out);
			if (why) {
				snprintf(inst->err, sizeof inst->err,
				         "int8 only: %s '%s' is %s%s: %s", out ? "output" : "input",
				         ts[i].name ? ts[i].name : "?",
				         ts[i].quant ? "quantized " : "",
				         qref_dtype_name(ts[i].dtype), why);
				return QCF_NOT_SUPPORTED;
			}
		}
	}
	return stub_delegate(inst, call);
}

STUB_PLUGIN("int8_only", int8_execute)
