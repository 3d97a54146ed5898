/* Speaks only ABI version 0, which no host accepts. */
#include "stub.h"

static const qcf_plugin descriptor = {
        sizeof(qcf_plugin), 0,    "stub_old_abi", "0.1", stub_create,    stub_destroy,
        stub_supports,      NULL, stub_execute,   NULL,  stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	if (n->host_min_version > 0)
		return QCF_NOT_SUPPORTED;
	n->abi_version = 0;
	n->plugin = &descriptor;
	return QCF_OK;
}
