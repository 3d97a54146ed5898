/* Answers an ABI version newer than the host's whatever the host offers (a negotiation bug). */
#include "stub.h"

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = QCF_ABI_VERSION + 1,
                                      .name = "stub_future_abi",
                                      .version = "9.0",
                                      .create = stub_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .prepare = NULL,
                                      .execute = stub_execute,
                                      .release = NULL,
                                      .last_error = stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	n->abi_version = QCF_ABI_VERSION + 1;
	n->plugin = &descriptor;
	return QCF_OK;
}
