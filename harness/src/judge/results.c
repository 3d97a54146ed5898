#include "judge/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/util.h"

static qc_op_stats *find_op(qc_run_stats *s, const char *semantics, const char *op)
{
	for (int i = 0; i < s->n_ops; i++)
		if (strcmp(s->ops[i].op, op) == 0 && strcmp(s->ops[i].semantics, semantics) == 0)
			return &s->ops[i];
	QC_GROW(s->ops, s->n_ops, s->cap, 16);
	qc_op_stats *o = &s->ops[s->n_ops++];
	memset(o, 0, sizeof *o);
	/* a longer name is cut on a character boundary: the report stays UTF-8 */
	qc_utf8_copy(o->semantics, sizeof o->semantics, semantics);
	qc_utf8_copy(o->op, sizeof o->op, op);
	return o;
}

void qc_stats_add(qc_run_stats *s, const qc_case *c, const qc_result *r)
{
	qc_op_stats *o = find_op(s, c->call.semantics, c->call.op);
	o->cases++;
	o->verdicts[r->verdict]++;
	o->seconds += r->seconds;
	for (int k = 0; k < r->n_outputs; k++) {
		const char *name = c->out[k].name;
		int j;
		for (j = 0; j < o->n_outputs && strcmp(o->out_names[j], name); j++)
			;
		if (j == o->n_outputs) {
			if (j == QC_MAX_TENSORS)
				continue;
			qc_utf8_copy(o->out_names[j], sizeof o->out_names[j], name);
			qc_metrics_init(&o->m[j], r->m[k].unit);
			o->n_outputs++;
		}
		qc_metrics_merge(&o->m[j], &r->m[k]);
	}
	s->cases++;
	s->verdicts[r->verdict]++;
	if (qc_verdict_judged(r->verdict))
		s->engines[qc_engine_index(r->engine)]++;
}

int qc_engine_index(int engine)
{
	return engine <= 0                 ? QCF_ENGINE_UNREPORTED
	       : engine < QCF_ENGINE_COUNT ? engine
	                                   : QCF_ENGINE_COUNT;
}

int qc_engine_of_kind(const char *kind)
{
	for (int k = 1; kind && k <= QCF_ENGINE_COUNT; k++)
		if (!strcmp(kind, qcf_engine_name(k)))
			return k;
	return QCF_ENGINE_UNREPORTED;
}

int qc_stats_engines_reported(const qc_run_stats *s)
{
	for (int e = 1; e <= QCF_ENGINE_COUNT; e++)
		if (s->engines[e])
			return 1;
	return 0;
}

int qc_engine_meets(int e, const char *require)
{
	if (!require)
		return 1;
	if (e <= QCF_ENGINE_UNREPORTED || e >= QCF_ENGINE_COUNT)
		return 0; /* not said, or said in words the ABI does not have */
	return strcmp(require, "accelerator") != 0 || e != QCF_ENGINE_CPU;
}

uint64_t qc_stats_engine_breaches(const qc_run_stats *s, const char *require)
{
	uint64_t n = 0;
	for (int e = 0; e <= QCF_ENGINE_COUNT; e++)
		if (!qc_engine_meets(e, require))
			n += s->engines[e];
	return n;
}

uint64_t qc_stats_failing(const qc_run_stats *s)
{
	uint64_t n = 0;
	for (int v = 0; v < QC_N_VERDICTS; v++)
		if (!qc_verdict_conforms((qc_verdict)v))
			n += s->verdicts[v];
	return n;
}

int qc_stats_conforms(const qc_run_stats *s)
{
	return s->cases && !qc_stats_failing(s);
}

void qc_stats_free(qc_run_stats *s)
{
	free(s->ops);
	memset(s, 0, sizeof *s);
}
