/* A descriptor whose struct_size is too small for version 1. */
#include "stub.h"

static const qcf_plugin descriptor = {16,
                                      1,
                                      "stub_short_struct",
                                      "1.0",
                                      stub_create,
                                      stub_destroy,
                                      stub_supports,
                                      NULL,
                                      stub_execute,
                                      NULL,
                                      stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return stub_negotiate(n, &descriptor);
}
