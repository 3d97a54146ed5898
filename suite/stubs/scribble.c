/*
 * Writes past the end of output 0 on DEQUANTIZE: one byte, or as many as
 * the create option bytes=N says (far enough to reach the next case's
 * slot in the runner's arena).
 */
#include "stub.h"

static size_t overrun = 1;

static qcf_status scribble_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                                  char *msg, size_t msg_size)
{
	for (int32_t i = 0; i < n_options; i++)
		if (strcmp(options[i].key, "bytes") == 0)
			overrun = strtoul(options[i].value, NULL, 10);
	return stub_create(options, n_options, out, msg, msg_size);
}

static qcf_status scribble_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st == QCF_OK && stub_op_is(call, "DEQUANTIZE") && call->n_outputs > 0) {
		unsigned char *p = (unsigned char *)call->outputs[0].data + call->outputs[0].nbytes;
		for (size_t i = 0; i < overrun; i++)
			((volatile unsigned char *)p)[i] =
			        0; /* a store only: no pattern byte is 0 */
	}
	return st;
}

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 1,
                                      .name = "stub_scribble",
                                      .version = "1.0",
                                      .create = scribble_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .prepare = NULL,
                                      .execute = scribble_execute,
                                      .release = NULL,
                                      .last_error = stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return stub_negotiate(n, &descriptor);
}
