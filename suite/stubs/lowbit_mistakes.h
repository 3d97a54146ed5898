/*
 * The reference with one of the typical low-bit mistakes (ABI version 2, so it is offered the
 * float8 cases); each stub of suite/stubs/f8_*.c defines MISTAKE and includes this:
 *  no_saturate     QuantizeLinear to a float8 type ignores saturate = 1: a value past the
 *                  largest finite one gives inf (e5m2) or NaN, as with saturate = 0;
 *  subnormal_trunc QuantizeLinear to a float8 type truncates results in the subnormal range
 *                  (toward zero) instead of rounding them to nearest even.
 * Every other op and type, and a division in float16 or bfloat16 (precision), is the
 * reference's answer.
 */
#ifndef QC_STUB_LOWBIT_MISTAKES_H
#define QC_STUB_LOWBIT_MISTAKES_H

#include <math.h>
#include <string.h>

#include "stub.h"

static int is_float8(qcf_dtype t)
{
	return t == QCF_FLOAT8E4M3FN || t == QCF_FLOAT8E4M3FNUZ || t == QCF_FLOAT8E5M2 ||
	       t == QCF_FLOAT8E5M2FNUZ;
}

/* v = x / scale, as the reference computes it for a float8 y (reference/onnx_qdq.c: the
 * float8 zero point is not added). */
static float scaled(const qcf_op_call *call, size_t i)
{
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	const qcf_quant *q = y->quant;
	int32_t c = q->axis >= 0 ? qref_channel(y, q, i) : 0;
	return (float)qref_get(x, i) / q->scales[c];
}

static qcf_status mistakes_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	const char *m = MISTAKE;
	int64_t precision = 0; /* 10, 16: a float16 / bfloat16 division, left as the reference's */
	if (st != QCF_OK || !stub_op_is(call, "QuantizeLinear") ||
	    !is_float8(call->outputs[0].dtype) ||
	    qref_attr_int(call, "precision", &precision) < 0 || precision == 10 || precision == 16)
		return st;
	qcf_tensor *y = &call->outputs[0];
	size_t n = qref_numel(y->rank, y->shape);
	double tiny = qref_small_to_f32(
	        y->dtype, 0x08 >> (y->dtype == QCF_FLOAT8E5M2 || y->dtype == QCF_FLOAT8E5M2FNUZ));
	for (size_t i = 0; i < n; i++) {
		float v = scaled(call, i);
		if (!strcmp(m, "no_saturate"))
			qref_set(y, i,
			         qref_small_to_f32(y->dtype, qref_small_from(y->dtype, v, 0)));
		else if (!strcmp(m, "subnormal_trunc") && fabs(v) < tiny) {
			/* the subnormal step is the smallest subnormal: truncate to a multiple */
			double step = qref_small_to_f32(y->dtype, 1);
			qref_set(y, i, trunc(v / step) * step);
		}
	}
	return QCF_OK;
}

STUB_PLUGIN_V2(MISTAKE, mistakes_execute)

#endif
