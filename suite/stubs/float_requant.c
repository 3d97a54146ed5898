/*
 * Requantizes CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED as XNNPACK's
 * qs8/qc8 kernels do (reports/examples/xnnpack/README.md): the int32 accumulator (bias
 * included, as the reference computes it) converted to float, times the
 * requantization scale s_in * s_w[c] / s_out computed in float, rounded to
 * nearest with ties to even (lrintf), plus the output zero point, clamped to
 * the fused activation's range:
 *     y = clamp(lrintf((float)acc * (float)(s_in * s_w[c] / s_out)) + zp_out)
 * Against LiteRT's integer requantization it differs by one at exact ties
 * (even where both LiteRT builds agree) and where a large accumulator loses
 * bits in the conversion to float; the rounding band of the two LiteRT builds
 * covers some of these, a 1-LSB margin beyond it covers all.
 *
 * int8 activations only (XNNPACK has no 16x8 convolution); int16 activations
 * and every other op run the reference unchanged. The parameter checks are the
 * reference's (qref_litert_conv_terms answers as the kernel does).
 */
#include <math.h>

#include "reference/kernel.h"
#include "stub.h"

static int is_target(const qcf_op_call *call)
{
	return (stub_op_is(call, "CONV_2D") || stub_op_is(call, "DEPTHWISE_CONV_2D") ||
	        stub_op_is(call, "FULLY_CONNECTED")) &&
	       call->n_inputs >= 1 && call->inputs && call->inputs[0].dtype == QCF_INT8 &&
	       call->n_outputs == 1 && call->outputs;
}

static qcf_status fr_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (!is_target(call))
		return stub_delegate(inst, call);
	qcf_tensor *out = &call->outputs[0];
	size_t n = out->rank >= 0 && out->rank <= QCF_MAX_RANK && (out->rank == 0 || out->shape)
	                   ? qref_numel(out->rank, out->shape)
	                   : 0;
	qref_conv_terms t;
	memset(&t, 0, sizeof t);
	t.n = n;
	t.acc = malloc((n ? n : 1) * sizeof *t.acc);
	t.channel = malloc((n ? n : 1) * sizeof *t.channel);
	if (!t.acc || !t.channel) {
		free(t.acc);
		free(t.channel);
		return stub_fail(inst, QCF_ERROR, "out of memory");
	}
	qref_detail d;
	memset(&d, 0, sizeof d);
	qcf_status st = qref_litert_conv_terms(call, &t, &d);
	if (st != QCF_OK) {
		snprintf(inst->err, sizeof inst->err, "%s",
		         d.message[0] ? d.message : "the reference refused the call");
	} else {
		for (size_t i = 0; i < n; i++) {
			int32_t c = t.n_filter_scales > 1 ? t.channel[i] : 0;
			float scale = t.input_scale * t.filter_scales[c] / t.output_scale;
			float v = (float)t.acc[i] * scale;
			double y;
			if (!(fabsf(v) < 0x1p30f))
				y = v > 0 ? t.act_max : t.act_min; /* NaN too: any value in range */
			else
				y = (double)lrintf(v) + t.output_zero_point;
			y = y < t.act_min ? t.act_min : y > t.act_max ? t.act_max : y;
			qref_set(out, i, y);
		}
	}
	free(t.acc);
	free(t.channel);
	return st;
}

STUB_PLUGIN("float_requant", fr_execute)
