/*
 * variants: cases through a variant plugin, their outputs copied out (variants.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cases/expected.h"
#include "judge/variants.h"

#define VARIANT_BATCH 16

int qc_variant_outputs(const char *path, double timeout_s, qc_case *const *cases, int n,
                       void *const *out, int *ok, char *err, size_t err_size)
{
	memset(ok, 0, (size_t)n * sizeof *ok);
	qc_runner_config cfg = {.plugin_path = path, .timeout_s = timeout_s};
	qc_runner *r;
	qc_plugin_info info;
	if (qc_runner_open(&cfg, &r, &info, err, err_size) != 0)
		return -1;
	for (int i = 0; i < n; i += VARIANT_BATCH) {
		int m = n - i < VARIANT_BATCH ? n - i : VARIANT_BATCH;
		const qcf_op_call *calls[VARIANT_BATCH], *staged[VARIANT_BATCH];
		qc_exec_result ex[VARIANT_BATCH];
		for (int j = 0; j < m; j++)
			calls[j] = &cases[i + j]->call;
		memset(staged, 0, sizeof staged);
		if (qc_runner_execute(r, calls, m, ex, staged, err, err_size) != 0) {
			qc_runner_close(r);
			return -1;
		}
		for (int j = 0; j < m; j++) {
			const qc_case *c = cases[i + j];
			if (ex[j].outcome != QC_EXEC_OK || ex[j].late_write || !staged[j])
				continue;
			for (int k = 0; k < c->call.n_outputs; k++)
				memcpy(out[(size_t)(i + j) * QC_MAX_TENSORS + k],
				       staged[j]->outputs[k].data, c->out[k].nbytes);
			ok[i + j] = 1;
		}
	}
	qc_runner_close(r);
	return 0;
}

/* Outputs for every case of o: n * QC_MAX_TENSORS buffers. */
static void **alloc_outputs(const qc_op_diagnosis *o, int n)
{
	void **out = qc_xcalloc((size_t)n * QC_MAX_TENSORS, sizeof *out);
	for (int j = 0; j < n; j++) {
		const qc_case *c = qc_diag_case_at(o, j);
		for (int k = 0; k < c->call.n_outputs; k++)
			out[(size_t)j * QC_MAX_TENSORS + k] =
			        qc_xcalloc(c->out[k].nbytes ? c->out[k].nbytes : 1, 1);
	}
	return out;
}

static void free_outputs(void **out, int n)
{
	for (size_t i = 0; i < (size_t)n * QC_MAX_TENSORS; i++)
		free(out[i]);
	free(out);
}

/* The reference and its named roundings on every case of o, in this process. */
static void compute_local(qc_op_diagnosis *o)
{
	int n = o->n_fail + o->n_pass;
	void **out = alloc_outputs(o, n);
	for (int h = 0; h < o->n_hyps; h++) {
		const qc_hyp *hy = &o->hyps[h];
		if (hy->kind == QC_HYP_VARIANT)
			continue;
		for (int j = 0; j < n; j++) {
			const qc_case *c = qc_diag_case_at(o, j);
			void *ref[QC_MAX_TENSORS], *const *o_j = &out[(size_t)j * QC_MAX_TENSORS];
			char err[256];
			int ok = 1;
			if (hy->kind == QC_HYP_REFERENCE) {
				const qc_expected *e = qc_diag_expected_at(o, j);
				for (int k = 0; k < c->call.n_outputs; k++)
					ref[k] = e->out[k].data;
				o_j = ref;
			} else {
				ok = qc_expected_rounding(c, hy->rounding, o_j, err, sizeof err) ==
				     QCF_OK;
			}
			qc_diagnosis_score(o, h, j, ok ? o_j : NULL);
		}
	}
	free_outputs(out, n);
}

/* The hypothesis of o that is variant d, or -1. */
static int hyp_of(const qc_op_diagnosis *o, const qc_variant_def *d)
{
	for (int h = 0; h < o->n_hyps; h++)
		if (o->hyps[h].def == d)
			return h;
	return -1;
}

/* Variant d on the cases of every op of ops[0..n) it reaches, in one worker: each op's
 * hypothesis scored. 0, or -1 when it could not run (not built, no worker). */
static int compute_variant(qc_op_diagnosis **ops, int n, const qc_variant_def *d)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		if (hyp_of(ops[i], d) >= 0)
			total += ops[i]->n_fail + ops[i]->n_pass;
	if (!total)
		return 0;
	qc_case **cases = qc_xcalloc((size_t)total, sizeof *cases);
	void **out = qc_xcalloc((size_t)total * QC_MAX_TENSORS, sizeof *out);
	int *ok = qc_xcalloc((size_t)total, sizeof *ok), m = 0;
	for (int i = 0; i < n; i++) {
		if (hyp_of(ops[i], d) < 0)
			continue;
		for (int j = 0; j < ops[i]->n_fail + ops[i]->n_pass; j++, m++) {
			const qc_case *c = qc_diag_case_at(ops[i], j);
			cases[m] = (qc_case *)c;
			for (int k = 0; k < c->call.n_outputs; k++)
				out[(size_t)m * QC_MAX_TENSORS + k] =
				        qc_xcalloc(c->out[k].nbytes ? c->out[k].nbytes : 1, 1);
		}
	}
	char path[1024], err[256];
	int rc = qc_variant_path(d, path, sizeof path) == 0 &&
	                         qc_variant_outputs(path, 10, cases, total, out, ok, err,
	                                            sizeof err) == 0
	                 ? 0
	                 : -1;
	m = 0;
	for (int i = 0; i < n; i++) {
		int h = hyp_of(ops[i], d);
		if (h < 0)
			continue;
		for (int j = 0; j < ops[i]->n_fail + ops[i]->n_pass; j++, m++)
			qc_diagnosis_score(ops[i], h, j,
			                   rc == 0 && ok[m] ? &out[(size_t)m * QC_MAX_TENSORS]
			                                    : NULL);
	}
	free_outputs(out, total);
	free(ok);
	free(cases);
	return rc;
}

void qc_diagnosis_compute(qc_diagnosis *D, int datasheet)
{
	int n_ops = qc_diagnosis_n_ops(D), n = 0;
	qc_op_diagnosis **ops = qc_xcalloc((size_t)(n_ops ? n_ops : 1), sizeof *ops);
	int *missing = qc_xcalloc((size_t)(n_ops ? n_ops : 1), sizeof *missing);
	for (int i = 0; i < n_ops; i++) {
		qc_op_diagnosis *o = qc_diagnosis_op(D, i);
		if (o->n_fail || (datasheet && o->n_pass)) {
			o->datasheet = datasheet;
			compute_local(o);
			ops[n++] = o;
		}
	}
	/* each variant once, over the cases of every op it can change: one worker each */
	for (int v = 0; v < qc_variant_count; v++)
		if (compute_variant(ops, n, &qc_variant_table[v]) != 0)
			for (int i = 0; i < n; i++)
				missing[i] += hyp_of(ops[i], &qc_variant_table[v]) >= 0;
	for (int i = 0; i < n; i++) {
		qc_op_diagnosis *o = ops[i];
		size_t used = 0;
		o->err[0] = 0;
		if (missing[i])
			qc_list_add(o->err, sizeof o->err, &used,
			            "%d variant%s of the catalogue could not run (not built: make "
			            "variants)",
			            missing[i], missing[i] == 1 ? "" : "s");
		if (o->failing_replayed)
			qc_list_add(o->err, sizeof o->err, &used,
			            "%llu failing case%s judged before --resume not diagnosed (the "
			            "journal keeps verdicts, not outputs)",
			            (unsigned long long)o->failing_replayed,
			            o->failing_replayed == 1 ? "" : "s");
	}
	free(missing);
	free(ops);
	qc_diagnosis_finish(D);
}
