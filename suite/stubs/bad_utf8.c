/*
 * Strings that are not UTF-8 everywhere a plugin hands one over (suite/test_utf8.c): its name
 * and version hold ill-formed bytes and run past the host's fields (128 and 64 bytes) so that
 * the cut falls inside a 4-byte and a 2-byte character; last_error() is longer than 255 bytes,
 * with a stray byte, an overlong form, a surrogate, control characters and 4-byte characters
 * where the 255-byte cut lands.
 *
 * Behaviour: DEQUANTIZE fails (QCF_ERROR, so ERROR with that message); QuantizeLinear adds 1
 * to its first output element (within a 1 LSB tolerance, for a spec's custom check to judge);
 * everything else is the reference.
 */
#include "stub.h"

/* 13 bytes, then 4-byte U+1F600 from byte 13: the 127th byte (the last the 128-byte field
 * keeps) is the second of the 29th, bytes 125..128. */
#define NAME                                                                                       \
	"stub_\xff\xc0\xafutf8 "                                                                   \
	"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"         \
	"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"         \
	"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"         \
	"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"         \
	"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"         \
	"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"

/* 6 bytes, then 2-byte U+00E9: the 63rd byte (the last of a 64-byte field) is the first
 * half of the 29th. */
#define VERSION                                                                                    \
	"1.0-\xed\xa0"                                                                             \
	"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"         \
	"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"         \
	"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"

static const char *bad_last_error(qcf_instance *inst)
{
	(void)inst;
	/* 28 bytes of ill-formed and control bytes, then 60 4-byte characters: the 255th byte
	 * is the third of the 57th */
	return "bad \xff \x80 \xc0\x80 \xed\xa0\x80 \x1b[31m \x01\x7f end "
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
	       "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80";
}

static qcf_status bad_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (stub_op_is(call, "DEQUANTIZE"))
		return QCF_ERROR;
	qcf_status st = stub_delegate(inst, call);
	if (st == QCF_OK && stub_op_is(call, "QuantizeLinear") && call->n_outputs > 0 &&
	    call->outputs[0].dtype == QCF_UINT8 &&
	    qref_numel(call->outputs[0].rank, call->outputs[0].shape) > 0) {
		uint8_t *y = call->outputs[0].data;
		if (y[0] < 255)
			y[0]++;
	}
	return st;
}

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 1,
                                      .name = NAME,
                                      .version = VERSION,
                                      .create = stub_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .prepare = NULL,
                                      .execute = bad_execute,
                                      .release = NULL,
                                      .last_error = bad_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return stub_negotiate(n, &descriptor);
}
