/*
 * The reference kernels as a plugin ("qconform-reference"): the harness can
 * run them as a kernel under test like any vendor library. Options:
 *   rounding=default|double|single|half_even|half_away|half_up|half_down
 *     the named rounding (qref.h, qref_rounding) of every op it applies to:
 *     double|single choose the LiteRT requantization build, half_* the tie
 *     rule of the ops that round a real value to an integer. Ops it does not
 *     apply to run with their own rounding, so rounding=double (or single)
 *     changes LiteRT requantization and nothing else, as before named
 *     roundings existed. Default: default (double for requantization).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qconform/plugin.h"
#include "qref.h"

struct qcf_instance {
	qref_rounding rounding;
	char last_error[256];
};

static qcf_status ref_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                             char *msg, size_t msg_size)
{
	qref_rounding rounding = QREF_ROUND_DEFAULT;
	if (!out)
		return QCF_ERROR;
	*out = NULL;
	for (int32_t i = 0; i < n_options; i++) {
		const char *k = options[i].key ? options[i].key : "";
		const char *v = options[i].value ? options[i].value : "";
		if (strcmp(k, "rounding") == 0) {
			int r = qref_rounding_parse(v);
			if (r < 0) {
				if (msg && msg_size)
					snprintf(msg, msg_size,
					         "rounding=%s: expected default, double, single, "
					         "half_even, half_away, half_up or half_down",
					         v);
				return QCF_INVALID_PARAM;
			}
			rounding = (qref_rounding)r;
		} else {
			if (msg && msg_size)
				snprintf(msg, msg_size, "unknown option '%s' (known: rounding)", k);
			return QCF_INVALID_PARAM;
		}
	}
	qcf_instance *inst = calloc(1, sizeof *inst);
	if (!inst) {
		if (msg && msg_size)
			snprintf(msg, msg_size, "out of memory");
		return QCF_ERROR;
	}
	inst->rounding = rounding;
	*out = inst;
	return QCF_OK;
}

static void ref_destroy(qcf_instance *inst)
{
	free(inst);
}

static qcf_status ref_supports(qcf_instance *inst, const qcf_op_call *call)
{
	qcf_status s = qref_supports(call);
	if (inst)
		snprintf(inst->last_error, sizeof inst->last_error, "%s",
		         s == QCF_OK ? "" : "op not implemented by the reference");
	return s;
}

static qcf_status ref_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qref_detail detail;
	memset(&detail, 0, sizeof detail);
	detail.rounding = inst ? inst->rounding : QREF_ROUND_DEFAULT;
	qcf_status s = qref_execute(call, &detail);
	/* a rounding that does not apply to this op is declined before any
	 * output is written: run the op's own rounding instead */
	if (s == QCF_NOT_SUPPORTED && detail.rounding != QREF_ROUND_DEFAULT) {
		detail.rounding = QREF_ROUND_DEFAULT;
		s = qref_execute(call, &detail);
	}
	if (inst)
		snprintf(inst->last_error, sizeof inst->last_error, "%s", detail.message);
	return s;
}

static const char *ref_last_error(qcf_instance *inst)
{
	return inst ? inst->last_error : "no instance";
}

/* The same functions under every ABI version: version 2 only adds types, 3 chains. */
#define REF_DESCRIPTOR(v)                                                                          \
	{                                                                                          \
		.struct_size = sizeof(qcf_plugin), .abi_version = (v),                             \
		.name = "qconform-reference", .version = "0.1.0", .create = ref_create,            \
		.destroy = ref_destroy, .supports = ref_supports, .prepare = NULL,                 \
		.execute = ref_execute, .release = NULL, .last_error = ref_last_error,             \
	}
static const qcf_plugin descriptor_v3 = REF_DESCRIPTOR(3), descriptor = REF_DESCRIPTOR(2),
                        descriptor_v1 = REF_DESCRIPTOR(1);

/* The newest version the host speaks, 3, 2 or 1. Version 3 adds chains: qref_execute computes
 * a fused call the way its graph writes it (reference/chain.c). */
QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	if (n && n->struct_size >= sizeof *n && n->host_max_version >= 3)
		return qcf_negotiate_answer(n, 3, &descriptor_v3);
	if (n && n->struct_size >= sizeof *n && n->host_max_version >= 2)
		return qcf_negotiate_answer(n, 2, &descriptor);
	return qcf_negotiate_answer(n, 1, &descriptor_v1);
}
