/* qconform show: one case, its tensors and the reference's answer. */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cases/expected.h"
#include "cmd/commands.h"
#include "pipeline/plan.h"
#include "reference/dtype.h"

static void print_tensor(const qcf_tensor *t, const qref_output_detail *d)
{
	size_t n = qref_numel(t->rank, t->shape);
	printf("  %s: %s[", t->name, qref_dtype_name(t->dtype));
	for (int i = 0; i < t->rank; i++)
		printf("%s%lld", i ? "," : "", (long long)t->shape[i]);
	printf("]");
	if (t->quant) {
		const qcf_quant *q = t->quant;
		if (q->axis < 0)
			printf(" scale %.9g (%a) zero_point %d", q->scales[0], q->scales[0],
			       q->zero_points[0]);
		else {
			printf(" axis %d", q->axis);
			if (q->block_size > 0)
				printf(" block_size %d", q->block_size);
			printf(" scales [");
			for (int i = 0; i < q->count; i++)
				printf("%s%.9g", i ? ", " : "", q->scales[i]);
			printf("] zero_points [");
			for (int i = 0; i < q->count; i++)
				printf("%s%d", i ? ", " : "", q->zero_points[i]);
			printf("]");
		}
	}
	/* one row per innermost line of the shape, labelled with its index when the rank is 2 or
	 * more (a row longer than 16 values goes on over more lines) */
	size_t row = t->rank > 0 && t->shape[t->rank - 1] > 0 ? (size_t)t->shape[t->rank - 1] : 1;
	int label = 0; /* the row label's width */
	for (size_t i = 0; i < n; i++) {
		if (i % row == 0) {
			printf("\n   ");
			if (t->rank >= 2) {
				size_t rest = i / row;
				int64_t idx[QCF_MAX_RANK];
				for (int k = t->rank - 2; k >= 0; k--) {
					idx[k] = t->shape[k] ? (int64_t)(rest % (size_t)t->shape[k])
					                     : 0;
					rest = t->shape[k] ? rest / (size_t)t->shape[k] : 0;
				}
				label = printf(" [");
				for (int k = 0; k + 1 < t->rank; k++)
					label += printf("%" PRId64 ",", idx[k]);
				label += printf(":]");
			}
		} else if (i % row % 16 == 0) {
			printf("\n   %*s", label, "");
		}
		double v = qref_get(t, i);
		if (d && d->any && d->any[i])
			printf(" (any in [%g, %g])", d->lo[i], d->hi[i]);
		else if (qref_dtype_is_float(t->dtype))
			printf(" %.9g", v);
		else
			printf(" %.0f", v);
	}
	printf("\n");
}

int qc_cmd_show(const qc_run_opts *o, const char *name)
{
	qc_diag diag = {0, 0, stderr};
	qc_plan ss = {0};
	if (qc_plan_load(o, &ss, &diag, QC_PLAN_NAMES) != 0) {
		qc_plan_free(&ss);
		return 2;
	}
	int found = 0;
	for (int i = 0; i < ss.n && !found; i++) {
		size_t idl = strlen(ss.specs[i]->id);
		if (strncmp(name, ss.specs[i]->id, idl) != 0 || name[idl] != '/')
			continue;
		qc_cases *it = qc_cases_begin(ss.specs[i], o->seed, 1, &diag);
		qc_case *c;
		int got;
		while (!found && (got = qc_cases_next(it, &c)) != 0) {
			if (got < 0)
				continue;
			if (strcmp(c->name, name) == 0) {
				found = 1;
				printf("case %s\n  spec %s\n  op %s (%s)\n  params %s\n  seed "
				       "%016llx\n",
				       c->name, c->spec->path, c->call.op, c->call.semantics,
				       c->params, (unsigned long long)c->seed);
				for (int a = 0; a < c->call.n_attrs; a++) {
					const qcf_attr *at = &c->attrs[a];
					printf("  attr %s = ", at->name);
					if (at->type == QCF_ATTR_INT)
						printf("%lld\n", (long long)at->v.i);
					else if (at->type == QCF_ATTR_FLOAT)
						printf("%.17g\n", at->v.f);
					else if (at->type == QCF_ATTR_STRING)
						printf("%s\n", at->v.s);
					else
						printf("(list of %d)\n", at->count);
				}
				printf("inputs\n");
				for (int k = 0; k < c->call.n_inputs; k++)
					print_tensor(&c->in[k], NULL);
				char err[256];
				qc_expected *e = qc_expected_new(c, err, sizeof err);
				if (e->status == QCF_OK) {
					printf("reference outputs%s\n",
					       e->golden_mismatch ? " (GOLDEN MISMATCH)" : "");
					for (int k = 0; k < c->call.n_outputs; k++)
						print_tensor(&e->out[k], &e->detail.out[k]);
				} else {
					printf("reference refuses: %s\n", e->detail.message);
				}
				qc_expected_free(e, c->call.n_outputs);
			}
			qc_case_free(c);
		}
		qc_cases_end(it);
	}
	qc_plan_free(&ss);
	if (!found) {
		fprintf(stderr, "qconform show: no case named %s\n", name);
		return 2;
	}
	return 0;
}
