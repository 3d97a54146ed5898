/*
 * ONNX Runtime's QEmbedLayerNormalization (reference/ort_qembed.c) evaluated another legal way,
 * as a build that vectorizes and fuses would: every other call goes to the reference unchanged.
 *
 *   The dequantized terms fused into the sum (fmaf), the sums over four partial accumulators
 *   (as a 4-lane loop adds them), the squares fused into the variance's accumulators, a / e as
 *   a times 1 / e, and y = fmaf(a / e, gamma, beta). The reference's band holds every such
 *   evaluation: the stub must never FAIL, and it differs from ORT's x86-64 order in many
 *   elements (PASS_WITHIN_TOLERANCE).
 */
#include <math.h>

#include "stub.h"

static const qcf_tensor *named(const qcf_op_call *call, const char *name)
{
	for (int i = 5; i < call->n_inputs; i++)
		if (call->inputs[i].name && strcmp(call->inputs[i].name, name) == 0)
			return &call->inputs[i];
	return NULL;
}

/* float(q - zero_point) and the scale of element i of a per-tensor quantized int8 / uint8 t */
static float diff(const qcf_tensor *t, size_t i)
{
	int32_t q =
	        t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
	return (float)(q - t->quant->zero_points[0]);
}

/* four partial sums of n values v(i), then added pairwise */
static float sum4(const float *v, int64_t n, int squares)
{
	float acc[4] = {0, 0, 0, 0};
	for (int64_t i = 0; i < n; i++)
		acc[i % 4] = squares ? fmaf(v[i], v[i], acc[i % 4]) : acc[i % 4] + v[i];
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static qcf_status fused_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !stub_op_is(call, "QEmbedLayerNormalization"))
		return st;
	const qcf_tensor *ids = &call->inputs[0], *word = &call->inputs[1], *pos = &call->inputs[2];
	const qcf_tensor *gamma = &call->inputs[3], *beta = &call->inputs[4];
	const qcf_tensor *sids = named(call, "segment_ids"),
	                 *seg = named(call, "segment_embedding");
	const qcf_attr *ea = stub_attr(call, "epsilon");
	float eps = ea ? (float)(ea->type == QCF_ATTR_INT ? (double)ea->v.i : ea->v.f) : 1e-12f;
	int64_t B = ids->shape[0], S = ids->shape[1], n = word->shape[1];
	float *y = call->outputs[0].data;
	float *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
	if (!x)
		return stub_fail(inst, QCF_ERROR, "out of memory");
	for (int64_t k = 0; k < B * S; k++) {
		size_t wr = (size_t)(((const int32_t *)ids->data)[k] * n),
		       pr = (size_t)((k % S) * n);
		size_t sr = sids ? (size_t)(((const int32_t *)sids->data)[k] * n) : 0;
		for (int64_t i = 0; i < n; i++) {
			float v = diff(word, wr + (size_t)i) * word->quant->scales[0];
			v = fmaf(diff(pos, pr + (size_t)i), pos->quant->scales[0], v);
			if (sids)
				v = fmaf(diff(seg, sr + (size_t)i), seg->quant->scales[0], v);
			x[i] = v;
		}
		float mean = sum4(x, n, 0) / (float)n;
		for (int64_t i = 0; i < n; i++)
			x[i] = x[i] - mean;
		float r = 1.0f / sqrtf(sum4(x, n, 1) / (float)n + eps);
		for (int64_t i = 0; i < n; i++)
			y[k * n + i] =
			        fmaf(x[i] * r, diff(gamma, (size_t)i) * gamma->quant->scales[0],
			             diff(beta, (size_t)i) * beta->quant->scales[0]);
	}
	free(x);
	return QCF_OK;
}

STUB_PLUGIN("ort_embed_fused", fused_execute)
