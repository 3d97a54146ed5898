/* Answers an ABI version newer than the host's whatever the host offers (a negotiation bug). */
#include "stub.h"

static const qcf_plugin descriptor = {sizeof(qcf_plugin), QCF_ABI_VERSION + 1,
                                      "stub_future_abi",  "9.0",
                                      stub_create,        stub_destroy,
                                      stub_supports,      NULL,
                                      stub_execute,       NULL,
                                      stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	n->abi_version = QCF_ABI_VERSION + 1;
	n->plugin = &descriptor;
	return QCF_OK;
}
