/*
 * Ignores per-axis quantization in the quantize/dequantize ops and in the
 * LiteRT ops with per-axis weights (CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED): every element uses channel 0's scale and zero point
 * (the weights' scale[0] for every output channel). The stub hands the
 * reference a copy of the call whose per-axis parameters (the tensors'
 * quantization arrays, and the scale / zero point input tensors 1 and 2 of
 * fake_quantize_per_channel_affine) repeat element 0.
 */
#include "stub.h"

static int is_target(const qcf_op_call *call)
{
	return stub_op_is(call, "QUANTIZE") || stub_op_is(call, "DEQUANTIZE") ||
	       stub_op_is(call, "QuantizeLinear") || stub_op_is(call, "DequantizeLinear") ||
	       stub_op_is(call, "fake_quantize_per_channel_affine") ||
	       stub_op_is(call, "CONV_2D") || stub_op_is(call, "DEPTHWISE_CONV_2D") ||
	       stub_op_is(call, "FULLY_CONNECTED");
}

typedef struct flat {
	qcf_quant q;
	float *scales, *fzps;
	int32_t *zps;
	void *data;
} flat;

/* Points t at a copy of its quantization whose arrays repeat element 0. */
static int flatten_quant(qcf_tensor *t, flat *f)
{
	const qcf_quant *q = t->quant;
	if (!q || q->count <= 1 || !q->scales)
		return 0;
	size_t n = (size_t)q->count;
	f->q = *q;
	f->scales = malloc(n * sizeof *f->scales);
	f->zps = q->zero_points ? malloc(n * sizeof *f->zps) : NULL;
	f->fzps = q->float_zero_points ? malloc(n * sizeof *f->fzps) : NULL;
	if (!f->scales || (q->zero_points && !f->zps) || (q->float_zero_points && !f->fzps))
		return -1;
	for (size_t i = 0; i < n; i++) {
		f->scales[i] = q->scales[0];
		if (f->zps)
			f->zps[i] = q->zero_points[0];
		if (f->fzps)
			f->fzps[i] = q->float_zero_points[0];
	}
	f->q.scales = f->scales;
	f->q.zero_points = f->zps;
	f->q.float_zero_points = f->fzps;
	t->quant = &f->q;
	return 0;
}

/* Points t at a copy of its data whose elements all equal element 0. */
static int flatten_data(qcf_tensor *t, flat *f)
{
	size_t n = qref_numel(t->rank, t->shape);
	if (n <= 1 || !t->data)
		return 0;
	qcf_tensor src = *t;
	f->data = malloc(t->nbytes ? t->nbytes : 1);
	if (!f->data)
		return -1;
	memcpy(f->data, t->data, t->nbytes);
	t->data = f->data;
	double v0 = qref_get(&src, 0);
	for (size_t i = 1; i < n; i++)
		qref_set(t, i, v0);
	return 0;
}

static qcf_status ignore_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (!is_target(call))
		return stub_delegate(inst, call);
	int32_t ni = call->n_inputs, no = call->n_outputs;
	qcf_tensor *t = calloc((size_t)(ni + no) + 1, sizeof *t);
	flat *f = calloc((size_t)(ni + no) + 1, sizeof *f);
	qcf_status st = QCF_ERROR;
	if (!t || !f)
		goto oom;
	memcpy(t, call->inputs, (size_t)ni * sizeof *t);
	memcpy(t + ni, call->outputs, (size_t)no * sizeof *t);
	int torch = stub_op_is(call, "fake_quantize_per_channel_affine");
	for (int32_t k = 0; k < ni + no; k++) {
		if (flatten_quant(&t[k], &f[k]) < 0)
			goto oom;
		if (torch && (k == 1 || k == 2) && k < ni && flatten_data(&t[k], &f[k]) < 0)
			goto oom;
	}
	qcf_op_call c = *call;
	c.inputs = t;
	c.outputs = t + ni; /* same output buffers: the results land where the host looks */
	st = stub_delegate(inst, &c);
	goto out;
oom:
	st = stub_fail(inst, QCF_ERROR, "out of memory");
out:
	for (int32_t k = 0; f && k < ni + no; k++) {
		free(f[k].scales);
		free(f[k].zps);
		free(f[k].fzps);
		free(f[k].data);
	}
	free(f);
	free(t);
	return st;
}

STUB_PLUGIN("ignore_axis", ignore_execute)
