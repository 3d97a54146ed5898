/*
 * A kernel whose answer depends on its thread count, as a reduction split over threads may:
 * it declares the create() option "threads" (threads_option) and, with more than one thread,
 * returns an ADD output whose element count is odd with its last element one higher (the
 * last chunk summed in another order). With one thread (the default) it answers like the
 * reference: a single run cannot see the difference, `run --repeat` can.
 */
#include "stub.h"

static int threads = 1;

static qcf_status race_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                              char *msg, size_t msg_size)
{
	for (int32_t i = 0; i < n_options; i++)
		if (!strcmp(options[i].key, "threads")) {
			char *end;
			long t = strtol(options[i].value, &end, 10);
			if (*end || t < 1 || t > 64) {
				snprintf(msg, msg_size, "threads must be 1..64, got '%s'",
				         options[i].value);
				return QCF_INVALID_PARAM;
			}
			threads = (int)t;
		}
	return stub_create(options, n_options, out, msg, msg_size);
}

static qcf_status race_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK || threads == 1 || !stub_op_is(call, "ADD"))
		return st;
	qcf_tensor *o = &call->outputs[0];
	size_t n = qref_numel(o->rank, o->shape);
	if (o->dtype == QCF_INT8 && n % 2 == 1) {
		int8_t *v = o->data;
		if (v[n - 1] < 127)
			v[n - 1]++;
	}
	return st;
}

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 1,
                                      .name = "stub_threads_race",
                                      .version = "1.0",
                                      .create = race_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .execute = race_execute,
                                      .last_error = stub_last_error,
                                      .threads_option = "threads"};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return stub_negotiate(n, &descriptor);
}
