/* A descriptor whose struct_size is too small for version 1. */
#include "stub.h"

static const qcf_plugin descriptor = {.struct_size = 16,
                                      .abi_version = 1,
                                      .name = "stub_short_struct",
                                      .version = "1.0",
                                      .create = stub_create,
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
