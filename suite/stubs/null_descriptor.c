/* Negotiates version 1 but hands over no descriptor. */
#include "stub.h"

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	n->abi_version = 1;
	n->plugin = NULL;
	return QCF_OK;
}
