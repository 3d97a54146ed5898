/*
 * An "NPU" plugin: it answers like the reference and says, through engine(), which engine ran
 * each call, as an accelerator's plugin with a CPU fallback would: the NPU ("qconform test NPU
 * v1") for every call but those with an int16 tensor, which "fall back" to the CPU, and those
 * of a SOFTMAX, for which it says nothing (engine() returns QCF_NOT_SUPPORTED).
 *
 * Options (create()): mode=cpu says the CPU ran every call; mode=garble reports an engine kind the
 * ABI does not have (77) and a name of 64 bytes without a NUL, holding control and non-ASCII bytes;
 * mode=crash dies in engine() (SIGSEGV) for QUANTIZE calls.
 */
#include <signal.h>

#include "stub.h"

static int mode_cpu, mode_garble, mode_crash;
static qcf_engine_kind last_kind;
static int last_said, last_quantize;

static qcf_status npu_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                             char *msg, size_t msg_size)
{
	for (int32_t i = 0; i < n_options; i++) {
		if (strcmp(options[i].key, "mode") != 0)
			continue;
		mode_cpu = !strcmp(options[i].value, "cpu");
		mode_garble = !strcmp(options[i].value, "garble");
		mode_crash = !strcmp(options[i].value, "crash");
	}
	return stub_create(options, n_options, out, msg, msg_size);
}

static qcf_status npu_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	int wide = 0;
	for (int i = 0; i < call->n_inputs; i++)
		wide |= call->inputs[i].dtype == QCF_INT16;
	for (int i = 0; i < call->n_outputs; i++)
		wide |= call->outputs[i].dtype == QCF_INT16;
	last_kind = wide || mode_cpu ? QCF_ENGINE_CPU : QCF_ENGINE_NPU;
	last_said = !stub_op_is(call, "SOFTMAX");
	last_quantize = stub_op_is(call, "QUANTIZE");
	return stub_delegate(inst, call);
}

static qcf_status npu_engine(qcf_instance *inst, qcf_prepared *prep, qcf_engine *out)
{
	(void)inst;
	(void)prep;
	if (mode_crash && last_quantize)
		raise(SIGSEGV);
	if (!last_said)
		return QCF_NOT_SUPPORTED;
	if (mode_garble) {
		out->kind = (qcf_engine_kind)77;
		for (size_t i = 0; i < sizeof out->name; i++)
			out->name[i] = (char)(i % 3 == 0 ? 0x07 : i % 3 == 1 ? 0xc3 : 'A');
		return QCF_OK;
	}
	out->kind = last_kind;
	snprintf(out->name, sizeof out->name, "%s",
	         last_kind == QCF_ENGINE_NPU ? "qconform test NPU v1" : "host CPU");
	return QCF_OK;
}

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 2,
                                      .name = "stub_npu",
                                      .version = "1.0",
                                      .create = npu_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .execute = npu_execute,
                                      .last_error = stub_last_error,
                                      .engine = npu_engine};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return qcf_negotiate_answer(n, 2, &descriptor);
}
