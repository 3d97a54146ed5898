/* create() fails unless the option token=secret is given. */
#include "stub.h"

static qcf_status needs_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                               char *msg, size_t msg_size)
{
	for (int32_t i = 0; i < n_options; i++)
		if (strcmp(options[i].key, "token") == 0 && strcmp(options[i].value, "secret") == 0)
			return stub_create(options, n_options, out, msg, msg_size);
	snprintf(msg, msg_size, "option token=secret missing");
	return QCF_INVALID_PARAM;
}

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 1,
                                      .name = "stub_needs_option",
                                      .version = "1.0",
                                      .create = needs_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .prepare = NULL,
                                      .execute = stub_execute,
                                      .release = NULL,
                                      .last_error = stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return stub_negotiate(n, &descriptor);
}
