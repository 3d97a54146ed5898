/* Answers ABI version 2 whatever the host offers (a negotiation bug). */
#include "stub.h"

static const qcf_plugin descriptor = {
        sizeof(qcf_plugin), 2,    "stub_future_abi", "2.0", stub_create,    stub_destroy,
        stub_supports,      NULL, stub_execute,      NULL,  stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	n->abi_version = 2;
	n->plugin = &descriptor;
	return QCF_OK;
}
