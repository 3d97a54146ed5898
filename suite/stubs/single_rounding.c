/*
 * A legal kernel that is not the reference's default: every op that has LiteRT's
 * TFLITE_SINGLE_ROUNDING build (the named rounding 'single', reference/qref.h) computes with
 * it; every other op is the reference's answer. Specs that allow both builds pass it; the
 * datasheet (qconform diagnose --datasheet) must say it follows 'single' where the builds
 * differ (suite/test_diagnose.c).
 */
#include "stub.h"

static qcf_status single_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qref_detail d;
	memset(&d, 0, sizeof d);
	d.rounding = QREF_ROUND_SINGLE;
	if (qref_execute(call, &d) == QCF_OK)
		return QCF_OK;
	return stub_delegate(inst, call); /* no such rounding (or a refusal): the reference */
}

STUB_PLUGIN("single_rounding", single_execute)
