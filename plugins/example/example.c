/*
 * The smallest real plugin: ONNX DequantizeLinear of int8 and uint8, per tensor, to float32.
 * Everything else is QCF_NOT_SUPPORTED, with the reason. Built out of tree against the installed
 * header, as a vendor's own plugin is:
 *
 *   cc $(pkg-config --cflags qconform-plugin) -O2 -shared -fPIC -fvisibility=hidden \
 *      -o libexample.so example.c
 *   qconform run --profile onnx-qdq --plugin ./libexample.so
 *
 * ONNX computes y = (x - zero_point) * scale in float32: the difference of two 8-bit integers
 * is exact in float32, so the one rounding is the product's (round to nearest even).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qconform/plugin.h>

struct qcf_instance {
	char error[256];
};

static qcf_status create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                         char *msg, size_t msg_size)
{
	if (n_options > 0) {
		snprintf(msg, msg_size, "no options are known, got '%s'", options[0].key);
		return QCF_INVALID_PARAM;
	}
	*out = calloc(1, sizeof **out);
	return *out ? QCF_OK : QCF_ERROR;
}

static void destroy(qcf_instance *inst)
{
	free(inst);
}

static qcf_status refuse(qcf_instance *inst, const char *why)
{
	snprintf(inst->error, sizeof inst->error, "%s", why);
	return QCF_NOT_SUPPORTED;
}

static qcf_status supports(qcf_instance *inst, const qcf_op_call *call)
{
	if (strcmp(call->semantics, "onnx") != 0 || strcmp(call->op, "DequantizeLinear") != 0)
		return refuse(inst, "only ONNX DequantizeLinear");
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return refuse(inst, "only one input and one output");
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if ((x->dtype != QCF_INT8 && x->dtype != QCF_UINT8) || y->dtype != QCF_FLOAT32)
		return refuse(inst, "only int8 or uint8 to float32");
	const qcf_quant *q = x->quant;
	if (!q || q->axis != -1 || q->count != 1)
		return refuse(inst, "only per-tensor parameters");
	/* block_size came later: a shorter struct has none */
	if (q->struct_size >= offsetof(qcf_quant, block_size) + sizeof q->block_size &&
	    q->block_size != 0)
		return refuse(inst, "no blocked quantization");
	/* parameters ONNX forbids are refused, as the framework would: a negative case passes
	 * only when the plugin says QCF_INVALID_PARAM */
	int same = x->rank == y->rank;
	for (int32_t d = 0; same && d < x->rank; d++)
		same = x->shape[d] == y->shape[d];
	if (!same) {
		snprintf(inst->error, sizeof inst->error, "output shape must equal input shape");
		return QCF_INVALID_PARAM;
	}
	/* an attribute the plugin does not know is never ignored; output_dtype (opset 25) must
	 * name y's type, float (1), or be 0 (the scale's type, float32 here) */
	for (int32_t a = 0; a < call->n_attrs; a++) {
		const qcf_attr *at = &call->attrs[a];
		if (strcmp(at->name, "output_dtype") != 0)
			return refuse(inst, "no attribute but output_dtype");
		if (at->type != QCF_ATTR_INT || (at->v.i != 0 && at->v.i != 1)) {
			snprintf(inst->error, sizeof inst->error,
			         "output_dtype must name y's type, float (1)");
			return QCF_INVALID_PARAM;
		}
	}
	return QCF_OK;
}

static qcf_status execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)inst;
	(void)prep;
	const qcf_tensor *x = &call->inputs[0];
	float *y = call->outputs[0].data;
	float scale = x->quant->scales[0], zp = (float)x->quant->zero_points[0];
	size_t n = 1;
	for (int32_t d = 0; d < x->rank; d++)
		n *= (size_t)x->shape[d];
	for (size_t i = 0; i < n; i++) {
		float q = x->dtype == QCF_INT8 ? (float)((const int8_t *)x->data)[i]
		                               : (float)((const uint8_t *)x->data)[i];
		y[i] = (q - zp) * scale;
	}
	return QCF_OK;
}

static const char *last_error(qcf_instance *inst)
{
	return inst->error;
}

static const qcf_plugin descriptor = {.struct_size = sizeof descriptor,
                                      .abi_version = 1,
                                      .name = "example-dequantize",
                                      .version = "1.0",
                                      .create = create,
                                      .destroy = destroy,
                                      .supports = supports,
                                      .prepare = NULL,
                                      .execute = execute,
                                      .release = NULL,
                                      .last_error = last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return qcf_negotiate_answer(n, 1, &descriptor);
}
