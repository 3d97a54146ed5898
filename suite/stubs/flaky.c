/*
 * A kernel that does not give the same answer twice: a QUANTIZE call with at least 8 int8 or
 * uint8 elements whose input it has seen before (state kept between calls, as a stale cache
 * would) returns element 3 with its lowest bit flipped. With the option mode=crash, it dies
 * on such a call instead (SIGSEGV). The first call of each input is right, so a single run
 * passes. It declares no threads option: run --repeat runs it again in the same worker.
 */
#include <signal.h>

#include "stub.h"

static int crash_mode;
static uint64_t seen[4096]; /* FNV-1a of the inputs seen, open addressing; 0: free */

/* Was this input seen before? Records it. */
static int seen_before(const qcf_tensor *t)
{
	uint64_t h = 14695981039346656037ull;
	const unsigned char *p = t->data;
	for (size_t i = 0; i < t->nbytes; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	h |= 1;
	for (size_t k = 0, i = (size_t)(h % 4096); k < 4096; k++, i = (i + 1) % 4096) {
		if (seen[i] == h)
			return 1;
		if (!seen[i]) {
			seen[i] = h;
			return 0;
		}
	}
	return 0;
}

static qcf_status flaky_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                               char *msg, size_t msg_size)
{
	for (int32_t i = 0; i < n_options; i++)
		if (!strcmp(options[i].key, "mode"))
			crash_mode = !strcmp(options[i].value, "crash");
	return stub_create(options, n_options, out, msg, msg_size);
}

static qcf_status flaky_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	qcf_tensor *o = &call->outputs[0];
	if (st != QCF_OK || !stub_op_is(call, "QUANTIZE") || qref_numel(o->rank, o->shape) < 8 ||
	    qcf_dtype_nbytes(o->dtype, 1) != 1)
		return st;
	if (seen_before(&call->inputs[0])) {
		if (crash_mode)
			raise(SIGSEGV);
		((unsigned char *)o->data)[3] ^= 1;
	}
	return st;
}

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 1,
                                      .name = "stub_flaky",
                                      .version = "1.0",
                                      .create = flaky_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .execute = flaky_execute,
                                      .last_error = stub_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return stub_negotiate(n, &descriptor);
}
