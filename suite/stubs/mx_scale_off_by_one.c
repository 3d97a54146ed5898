/*
 * The reference with the typical MX scale mistake (ABI version 2): quantize_mx picks a shared
 * exponent one too high, as floor(log2(amax)) + 1 - emax_elem would (the ceil of log2 for
 * every maximum that is not a power of two), and quantizes the block's elements against that
 * scale. Blocks whose scale is NaN (a NaN or an infinity) are unchanged; every other op is the
 * reference's answer.
 */
#include <math.h>

#include "stub.h"

static qcf_status off_by_one_execute(qcf_instance *inst, qcf_prepared *prep,
                                     const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || !stub_op_is(call, "quantize_mx"))
		return st;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	uint8_t *codes = call->outputs[1].data;
	const size_t nb = qref_numel(x->rank, x->shape) / 32;
	for (size_t b = 0; b < nb; b++) {
		if (codes[b] >= 0xfe) /* NaN, or no larger scale */
			continue;
		codes[b]++;
		const int e = (int)codes[b] - 127;
		for (size_t i = b * 32; i < b * 32 + 32; i++) {
			const double v = ldexp(((const float *)x->data)[i], -e);
			if (y->dtype == QCF_INT8) {
				double q = nearbyint(v * 64);
				qref_set(y, i, q > 127 ? 127 : q < -127 ? -127 : q);
			} else {
				qref_set(y, i,
				         qref_small_to_f32(y->dtype,
				                           qref_small_from(y->dtype, v, 1)));
			}
		}
	}
	return QCF_OK;
}

STUB_PLUGIN_V2("mx_scale_off_by_one", off_by_one_execute)
