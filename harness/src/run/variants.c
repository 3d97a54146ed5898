/*
 * variants: cases through a variant plugin, their outputs copied out (variants.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expected.h"
#include "hypotheses.h"
#include "runner.h"
#include "util.h"
#include "variants.h"

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

static void compute_op(qc_op_diagnosis *o)
{
	int n = o->n_fail + o->n_pass, missing = 0;
	void **out = alloc_outputs(o, n);
	int *ok = qc_xcalloc((size_t)n, sizeof *ok);
	qc_case **cases = qc_xcalloc((size_t)n, sizeof *cases);
	for (int j = 0; j < n; j++)
		cases[j] = (qc_case *)qc_diag_case_at(o, j);
	for (int h = 0; h < o->n_hyps; h++) {
		const qc_hyp *hy = &o->hyps[h];
		char err[256] = "", path[1024];
		if (hy->kind == QC_HYP_REFERENCE) {
			for (int j = 0; j < n; j++)
				ok[j] = 1;
		} else if (hy->kind == QC_HYP_ROUNDING) {
			for (int j = 0; j < n; j++)
				ok[j] = qc_expected_rounding(cases[j], hy->rounding,
				                             &out[(size_t)j * QC_MAX_TENSORS], err,
				                             sizeof err) == QCF_OK;
		} else if (qc_variant_path(hy->def, path, sizeof path) != 0 ||
		           qc_variant_outputs(path, 10, cases, n, out, ok, err, sizeof err) != 0) {
			memset(ok, 0, (size_t)n * sizeof *ok);
			missing++;
		}
		for (int j = 0; j < n; j++) {
			void *ref[QC_MAX_TENSORS];
			void *const *o_j = &out[(size_t)j * QC_MAX_TENSORS];
			if (hy->kind == QC_HYP_REFERENCE) {
				const qc_expected *e = qc_diag_expected_at(o, j);
				for (int k = 0; k < cases[j]->call.n_outputs; k++)
					ref[k] = e->out[k].data;
				o_j = ref;
			}
			qc_diagnosis_score(o, h, j, ok[j] ? o_j : NULL);
		}
	}
	if (missing)
		snprintf(o->err, sizeof o->err,
		         "%d variant%s of the catalogue could not run (not built: make variants)",
		         missing, missing == 1 ? "" : "s");
	free(cases);
	free(ok);
	free_outputs(out, n);
}

void qc_diagnosis_compute(qc_diagnosis *D, int datasheet)
{
	for (int i = 0; i < qc_diagnosis_n_ops(D); i++) {
		qc_op_diagnosis *o = qc_diagnosis_op(D, i);
		if (o->n_fail || (datasheet && o->n_pass)) {
			o->datasheet = datasheet;
			compute_op(o);
		}
	}
	qc_diagnosis_finish(D);
}
