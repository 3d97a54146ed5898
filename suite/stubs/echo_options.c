/*
 * create() always refuses, and its message echoes the options it got:
 * "n=2 [key]=[value] [key]=[value]", every byte outside printable ASCII as
 * \xNN, so a test can see them arrive byte for byte.
 */
#include "stub.h"

static size_t echo(char *msg, size_t at, size_t size, const char *s)
{
	for (; s && *s && at + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c < 0x7f)
			msg[at++] = (char)c;
		else
			at += (size_t)snprintf(msg + at, size - at, "\\x%02x", c);
	}
	msg[at] = '\0';
	return at;
}

static qcf_status echo_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                              char *msg, size_t msg_size)
{
	*out = NULL;
	size_t at = (size_t)snprintf(msg, msg_size, "n=%d", (int)n_options);
	for (int32_t i = 0; i < n_options && at + 8 < msg_size; i++) {
		at = echo(msg, at, msg_size, " [");
		at = echo(msg, at, msg_size, options[i].key);
		at = echo(msg, at, msg_size, "]=[");
		at = echo(msg, at, msg_size, options[i].value);
		at = echo(msg, at, msg_size, "]");
	}
	return QCF_INVALID_PARAM;
}

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 1,
                                      .name = "stub_echo_options",
                                      .version = "1.0",
                                      .create = echo_create,
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
