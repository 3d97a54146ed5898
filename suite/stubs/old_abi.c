/* Speaks only ABI version 0, which no host accepts. */
#include "stub.h"

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 0,
                                      .name = "stub_old_abi",
                                      .version = "0.1",
                                      .create = stub_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .prepare = NULL,
                                      .execute = stub_execute,
                                      .release = NULL,
                                      .last_error = stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	if (n->host_min_version > 0)
		return QCF_NOT_SUPPORTED;
	n->abi_version = 0;
	n->plugin = &descriptor;
	return QCF_OK;
}
