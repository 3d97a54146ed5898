/*
 * Takes its time: every execute() sleeps QCT_SLOW_MS milliseconds (the environment, default
 * 4), so that a test can signal a run in the middle (suite/test_interrupt.c). Its results
 * vary with the data, for a report with every kind of roll-up: QuantizeLinear with a uint8
 * output gets 1 added to element 0 when input 0's first element is above 1 (within a 1 LSB
 * tolerance) and 3 added to element 1 when it is above 2.5 (outside); everything else is the
 * reference.
 */
#include <time.h>

#include "stub.h"

static qcf_status slow_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	const char *env = getenv("QCT_SLOW_MS");
	long ms = env && *env ? strtol(env, NULL, 10) : 4;
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (ms > 0 && nanosleep(&t, &t) != 0)
		;
	qcf_status st = stub_delegate(inst, call);
	const qcf_tensor *x = call->n_inputs > 0 ? &call->inputs[0] : NULL;
	qcf_tensor *y = call->n_outputs > 0 ? &call->outputs[0] : NULL;
	if (st != QCF_OK || !stub_op_is(call, "QuantizeLinear") || !x || !y ||
	    y->dtype != QCF_UINT8 || qref_numel(y->rank, y->shape) < 2 ||
	    qref_numel(x->rank, x->shape) < 1)
		return st;
	uint8_t *q = y->data;
	double x0 = qref_get(x, 0);
	if (x0 > 1 && q[0] < 255)
		q[0]++;
	if (x0 > 2.5 && q[1] < 252)
		q[1] += 3;
	return st;
}

STUB_PLUGIN("slow", slow_execute)
