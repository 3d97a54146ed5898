/*
 * A kernel that mixes two rules, as a SIMD body and its scalar tail do: FULLY_CONNECTED int8
 * requantizes the output channels of each row in float32 with ties to even (XNNPACK's fp32
 * path: lrintf((float)acc * scale) + zp_out) in blocks of 16, and the channels past the last
 * multiple of 16 as the reference does (LiteRT's integer requantization). Every other op is
 * the reference's answer. The diagnosis must name both rules and the tail of width 16
 * (suite/test_diagnose.c).
 */
#include <math.h>
#include <stdlib.h>

#include "reference/kernel.h"
#include "stub.h"

static qcf_status mix_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !stub_op_is(call, "FULLY_CONNECTED") || call->n_inputs < 1 ||
	    call->inputs[0].dtype != QCF_INT8 || call->n_outputs != 1)
		return st;
	qcf_tensor *out = &call->outputs[0];
	if (out->rank < 1)
		return st;
	size_t n = qref_numel(out->rank, out->shape), inner = (size_t)out->shape[out->rank - 1];
	qref_conv_terms t;
	memset(&t, 0, sizeof t);
	t.n = n;
	t.acc = malloc((n ? n : 1) * sizeof *t.acc);
	t.channel = malloc((n ? n : 1) * sizeof *t.channel);
	qref_detail d;
	memset(&d, 0, sizeof d);
	if (t.acc && t.channel && qref_litert_conv_terms(call, &t, &d) == QCF_OK)
		for (size_t i = 0; i < n && inner; i++) {
			if (i % inner >= inner - inner % 16)
				continue; /* the tail: the reference's */
			int32_t c = t.n_filter_scales > 1 ? t.channel[i] : 0;
			float scale = t.input_scale * t.filter_scales[c] / t.output_scale;
			float v = (float)t.acc[i] * scale;
			double y = !(fabsf(v) < 0x1p30f) ? (v > 0 ? t.act_max : t.act_min)
			                                 : (double)lrintf(v) + t.output_zero_point;
			qref_set(out, i, y < t.act_min ? t.act_min : y > t.act_max ? t.act_max : y);
		}
	free(t.acc);
	free(t.channel);
	return st;
}

STUB_PLUGIN("fp32_body_exact_tail", mix_execute)
