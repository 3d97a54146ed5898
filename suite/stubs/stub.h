/*
 * Helpers for the stub plugins: each stub is the reference plus one bug.
 *
 *   #include "stub.h"
 *   static qcf_status my_execute(qcf_instance *inst, qcf_prepared *prep,
 *                                const qcf_op_call *call)
 *   {
 *           if (stub_op_is(call, "DEQUANTIZE"))
 *                   ... the bug ...
 *           return stub_delegate(inst, call);
 *   }
 *   STUB_PLUGIN("my", my_execute)
 *
 * STUB_PLUGIN_FULL names every function of the descriptor; stub_supports,
 * stub_execute etc. are the pure delegates.
 */
#ifndef QC_STUB_H
#define QC_STUB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qconform/plugin.h"
#include "reference/attrs.h"
#include "reference/dtype.h"
#include "reference/qref.h"

struct qcf_instance {
	char err[256];
};

static inline qcf_status stub_create(const qcf_option *options, int32_t n_options,
                                     qcf_instance **out, char *msg, size_t msg_size)
{
	(void)options;
	(void)n_options;
	*out = calloc(1, sizeof **out);
	if (!*out) {
		snprintf(msg, msg_size, "out of memory");
		return QCF_ERROR;
	}
	return QCF_OK;
}

static inline void stub_destroy(qcf_instance *inst)
{
	free(inst);
}

static inline const char *stub_last_error(qcf_instance *inst)
{
	return inst->err;
}

static inline qcf_status stub_fail(qcf_instance *inst, qcf_status st, const char *msg)
{
	snprintf(inst->err, sizeof inst->err, "%s", msg);
	return st;
}

static inline int stub_op_is(const qcf_op_call *call, const char *op)
{
	return call->op && strcmp(call->op, op) == 0;
}

static inline qcf_status stub_supports(qcf_instance *inst, const qcf_op_call *call)
{
	qcf_status st = qref_supports(call);
	if (st != QCF_OK)
		snprintf(inst->err, sizeof inst->err, "the reference does not implement %s/%s",
		         call->semantics ? call->semantics : "?", call->op ? call->op : "?");
	return st;
}

/* Runs call through the reference; its refusal becomes the stub's message. */
static inline qcf_status stub_delegate(qcf_instance *inst, const qcf_op_call *call)
{
	qref_detail d;
	memset(&d, 0, sizeof d);
	qcf_status st = qref_execute(call, &d);
	if (st != QCF_OK)
		snprintf(inst->err, sizeof inst->err, "%s",
		         d.message[0] ? d.message : "the reference refused the call");
	return st;
}

static inline qcf_status stub_execute(qcf_instance *inst, qcf_prepared *prep,
                                      const qcf_op_call *call)
{
	(void)prep;
	return stub_delegate(inst, call);
}

/* Answers ABI version 1 if the host speaks it. */
static inline qcf_status stub_negotiate(qcf_negotiation *n, const qcf_plugin *plugin)
{
	return qcf_negotiate_answer(n, 1, plugin);
}

/* A stub's attribute, or NULL. */
static inline const qcf_attr *stub_attr(const qcf_op_call *call, const char *name)
{
	for (int32_t i = 0; i < call->n_attrs; i++)
		if (call->attrs[i].name && strcmp(call->attrs[i].name, name) == 0)
			return &call->attrs[i];
	return NULL;
}

/*
 * The parameters of a torch fake-quantization call with an integer zero point: per tensor in
 * the attributes scale / zero_point, per channel in input tensors 1 and 2 along attribute
 * axis; quant_min / quant_max in the attributes. 0 when the call is not one (a float zero
 * point rounds elsewhere).
 */
typedef struct stub_torch_fq {
	int per_channel;
	int64_t qmin, qmax, zp;
	float scale;
	qcf_quant along;
} stub_torch_fq;

static inline int stub_torch_fq_params(const qcf_op_call *call, int per_channel, stub_torch_fq *p)
{
	int64_t axis = 0;
	double scale = 0;
	memset(p, 0, sizeof *p);
	p->per_channel = per_channel;
	if (qref_attr_int(call, "quant_min", &p->qmin) != 1 ||
	    qref_attr_int(call, "quant_max", &p->qmax) != 1)
		return 0;
	if (per_channel) {
		if (call->n_inputs < 3 || call->inputs[2].dtype != QCF_INT32 ||
		    qref_attr_int(call, "axis", &axis) != 1)
			return 0;
	} else if (qref_attr_number(call, "scale", &scale) != 1 ||
	           qref_attr_int(call, "zero_point", &p->zp) != 1) {
		return 0;
	}
	p->scale = (float)scale;
	p->along.struct_size = sizeof p->along;
	p->along.axis = (int32_t)axis;
	return 1;
}

/* The scale and zero point of element i of input 0. */
static inline void stub_torch_fq_elem(const qcf_op_call *call, const stub_torch_fq *p, size_t i,
                                      float *s, int64_t *zp)
{
	*s = p->scale;
	*zp = p->zp;
	if (p->per_channel) {
		int32_t c = qref_channel(&call->inputs[0], &p->along, i);
		*s = (float)qref_get(&call->inputs[1], (size_t)c);
		*zp = (int64_t)qref_get(&call->inputs[2], (size_t)c);
	}
}

#define STUB_PLUGIN_FULL(NAME, SUPPORTS, PREPARE, EXECUTE, RELEASE)                                \
	static const qcf_plugin stub_descriptor = {.struct_size = sizeof(qcf_plugin),              \
	                                           .abi_version = 1,                               \
	                                           .name = "stub_" NAME,                           \
	                                           .version = "1.0",                               \
	                                           .create = stub_create,                          \
	                                           .destroy = stub_destroy,                        \
	                                           .supports = SUPPORTS,                           \
	                                           .prepare = PREPARE,                             \
	                                           .execute = EXECUTE,                             \
	                                           .release = RELEASE,                             \
	                                           .last_error = stub_last_error};                 \
	QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)                        \
	{                                                                                          \
		return stub_negotiate(n, &stub_descriptor);                                        \
	}

#define STUB_PLUGIN(NAME, EXECUTE) STUB_PLUGIN_FULL(NAME, stub_supports, NULL, EXECUTE, NULL)

/* A stub of ABI version 2 (the low-bit types): offered every case. */
#define STUB_PLUGIN_V2(NAME, EXECUTE)                                                              \
	static const qcf_plugin stub_descriptor = {.struct_size = sizeof(qcf_plugin),              \
	                                           .abi_version = 2,                               \
	                                           .name = "stub_" NAME,                           \
	                                           .version = "1.0",                               \
	                                           .create = stub_create,                          \
	                                           .destroy = stub_destroy,                        \
	                                           .supports = stub_supports,                      \
	                                           .prepare = NULL,                                \
	                                           .execute = EXECUTE,                             \
	                                           .release = NULL,                                \
	                                           .last_error = stub_last_error};                 \
	QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)                        \
	{                                                                                          \
		return qcf_negotiate_answer(n, 2, &stub_descriptor);                               \
	}

#endif
