/* cases_validate: qconform validate's check of a case against the reference (cases.h). */
#include "cases/cases_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/qref.h"

/* ---- validate: the case against the reference ---- */

/* The node of a case that a refusal's cause names (qref_cause, qref.h). */
static const yaml_node_t *cause_node(qc_cases *it, const qc_case *c, const qref_cause *why)
{
	const qc_spec *s = it->s;
	yaml_node_t *root = yaml_document_get_root_node((yaml_document_t *)&s->doc);
	const yaml_node_t *at = NULL;
	switch (why->kind) {
	case QREF_CAUSE_ATTR:
		for (int i = 0; i < c->call.n_attrs && !at; i++)
			if (!strcmp(c->attrs[i].name, why->attr))
				at = c->attr_nodes[i];
		if (!at && c->case_node)
			at = qc_map_get(s, c->case_node, "attrs");
		if (!at)
			at = qc_map_get(s, root, "attrs");
		break;
	case QREF_CAUSE_INPUT:
	case QREF_CAUSE_OUTPUT: {
		int out = why->kind == QREF_CAUSE_OUTPUT;
		int n = out ? c->call.n_outputs : c->call.n_inputs;
		if (why->index < 0 || why->index >= n)
			break;
		const qc_tensor_nodes *tn =
		        out ? &c->out_nodes[why->index] : &c->in_nodes[why->index];
		switch (why->part) {
		case QREF_PART_DTYPE: at = tn->dtype; break;
		case QREF_PART_SHAPE: at = tn->shape; break;
		case QREF_PART_QUANT: at = tn->quant; break;
		case QREF_PART_DATA: at = tn->data; break;
		case QREF_PART_TENSOR: break;
		}
		if (!at)
			at = tn->tensor;
		break;
	}
	case QREF_CAUSE_INPUTS: at = qc_map_get(s, root, "inputs"); break;
	case QREF_CAUSE_OP: break;
	}
	return at ? at : c->where;
}

/* "2 inputs (a, b)", "2 to 3 inputs (input, filter, bias)" */
static void tensor_list(const qref_op_schema *o, int out, char *buf, size_t size)
{
	int lo = out ? (o->min_outputs ? o->min_outputs : o->n_outputs) : o->min_inputs;
	int hi = out ? o->n_outputs : o->max_inputs;
	size_t used;
	if (lo == hi)
		used = (size_t)snprintf(buf, size, "%d %s%s (", lo, out ? "output" : "input",
		                        lo == 1 ? "" : "s");
	else
		used = (size_t)snprintf(buf, size, "%d to %d %ss (", lo, hi,
		                        out ? "output" : "input");
	const char *const *names = out ? o->outputs : o->inputs;
	int k;
	for (k = 0; names[k] && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s%s", k ? ", " : "", names[k],
		                         !out && k >= o->min_inputs ? " (optional)" : "");
	if (used < size)
		snprintf(buf + used, size - used, "%s)", hi > k ? ", ..." : "");
}

void qc_cases_check_reference(qc_cases *it, const qc_case *c)
{
	const qc_spec *s = it->s;
	const qref_op_schema *o = qref_op_schema_find(s->semantics, s->op);
	if (!o)
		return; /* reported when the spec was loaded */
	yaml_node_t *root = yaml_document_get_root_node((yaml_document_t *)&s->doc);
	if (!c->expect_error) {
		char want[256];
		if (c->call.n_inputs < o->min_inputs || c->call.n_inputs > o->max_inputs) {
			tensor_list(o, 0, want, sizeof want);
			qc_cases_fail(it, qc_map_get(s, root, "inputs"),
			              "%s/%s takes %s, the spec gives %d", s->semantics, s->op,
			              want, c->call.n_inputs);
			return;
		}
		int min_out = o->min_outputs ? o->min_outputs : o->n_outputs;
		if (c->call.n_outputs < min_out || c->call.n_outputs > o->n_outputs) {
			tensor_list(o, 1, want, sizeof want);
			qc_cases_fail(it, qc_map_get(s, root, "outputs"),
			              "%s/%s gives %s, the spec has %d", s->semantics, s->op, want,
			              c->call.n_outputs);
			return;
		}
	}
	/* the reference computes the case: its checks and its arithmetic are one step */
	qcf_tensor out[QC_MAX_TENSORS];
	qcf_op_call call = c->call;
	for (int k = 0; k < c->call.n_outputs; k++) {
		out[k] = c->out[k];
		out[k].data = calloc(1, c->out[k].nbytes ? c->out[k].nbytes : 1);
		if (!out[k].data) {
			fprintf(stderr, "qconform: out of memory (%zu bytes)\n", c->out[k].nbytes);
			exit(2);
		}
	}
	call.outputs = out;
	qref_detail d;
	memset(&d, 0, sizeof d);
	qcf_status st = qref_execute(&call, &d);
	for (int k = 0; k < c->call.n_outputs; k++)
		free(out[k].data);
	if (c->expect_error) {
		if (st == QCF_OK)
			qc_cases_fail(
			        it, c->expect_node ? c->expect_node : c->where,
			        "case %s expects an error, but the reference accepts it (run would "
			        "judge it ERROR: the spec and the reference disagree)",
			        c->name);
		else if (st != QCF_INVALID_PARAM)
			qc_cases_fail(it, cause_node(it, c, &d.cause),
			              "the reference cannot run case %s: %s", c->name, d.message);
		return;
	}
	if (st == QCF_INVALID_PARAM)
		qc_cases_fail(it, cause_node(it, c, &d.cause),
		              "the reference refuses case %s, which the spec calls valid: %s",
		              c->name, d.message);
	else if (st != QCF_OK)
		qc_cases_fail(it, cause_node(it, c, &d.cause),
		              "the reference cannot run case %s: %s", c->name, d.message);
}
