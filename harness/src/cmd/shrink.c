/*
 * qconform shrink CASE --plugin P: a failing case cut down to the smallest one that fails the
 * same way, written as a standalone spec (and an export for the offline runner).
 *
 * The failure tracked is the worst element outside the legal band: a case fails the same way
 * when the kernel's output at the tracked element still lies outside the band, on the same
 * side. The cuts, each kept only when the kernel still fails so (every try is one kernel
 * call, in the worker: a crash or a hang costs the try, not the command):
 *  1. the element's window, so that the output is that element alone: its inputs (an
 *     elementwise or broadcasting op), its row of the last axis (softmax-like ops), its
 *     FULLY_CONNECTED row and unit, its CONV_2D / DEPTHWISE_CONV_2D receptive field (padding
 *     written out as the input's zero point, one output channel, VALID);
 *  2. the fewest values: input elements set to their zero point (real value 0), in halves,
 *     quarters, ... down to single elements.
 * Deterministic; at most --max-calls kernel calls (default 256).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cases/expected.h"
#include "cmd/commands.h"
#include "judge/locate.h"
#include "offline/export.h"
#include "pipeline/jobs.h"
#include "reference/dtype.h"
#include "reference/ggml.h"
#include "report/dump.h"

#define SHRINK_MAX_CALLS 256

typedef struct shrinker {
	const qc_run_opts *o;
	qc_runner *runner;
	int calls, max_calls;
	int sign; /* the side of the band the tracked element lies on: +1 above, -1 below */
	char err[512];
} shrinker;

/* ---- cases that can be changed ---- */

static void *dup_into(qc_case *c, const void *src, size_t n)
{
	void *p = qc_case_alloc(c, n ? n : 1);
	if (src && n)
		memcpy(p, src, n);
	return p;
}

/* t's quantization copied into storage q, its arrays into c's memory. */
static void quant_copy(qc_case *c, qcf_tensor *t, qcf_quant *q)
{
	if (!t->quant)
		return;
	*q = *t->quant;
	size_t n = q->count > 0 ? (size_t)q->count : 0;
	q->scales = q->scales ? dup_into(c, q->scales, n * sizeof(float)) : NULL;
	q->zero_points = q->zero_points ? dup_into(c, q->zero_points, n * sizeof(int32_t)) : NULL;
	q->float_zero_points =
	        q->float_zero_points ? dup_into(c, q->float_zero_points, n * sizeof(float)) : NULL;
	t->quant = q;
}

/* A copy of c that owns its data, shapes and quantization (attributes stay c's, whose case
 * outlives every copy). */
static qc_case *case_copy(const qc_case *c)
{
	qc_case *n = qc_xcalloc(1, sizeof *n);
	*n = *c;
	n->mem = NULL;
	for (int k = 0; k < QC_MAX_OUTPUTS; k++)
		n->golden[k] = NULL;
	for (int k = 0; k < c->call.n_inputs; k++) {
		n->in[k].shape = n->shape_in[k];
		memcpy(n->shape_in[k], c->in[k].shape, (size_t)c->in[k].rank * sizeof(int64_t));
		n->in[k].data = c->in[k].data ? dup_into(n, c->in[k].data, c->in[k].nbytes) : NULL;
		quant_copy(n, &n->in[k], &n->quant_in[k]);
	}
	for (int k = 0; k < c->call.n_outputs; k++) {
		n->out[k].shape = n->shape_out[k];
		memcpy(n->shape_out[k], c->out[k].shape, (size_t)c->out[k].rank * sizeof(int64_t));
		quant_copy(n, &n->out[k], &n->quant_out[k]);
	}
	n->call.inputs = n->in;
	n->call.outputs = n->out;
	n->call.attrs = n->attrs;
	return n;
}

/* Gives t (of case c) a new shape and zeroed data of that shape. */
static void reshape(qc_case *c, qcf_tensor *t, int64_t *storage, int rank, const int64_t *dims)
{
	memcpy(storage, dims, (size_t)rank * sizeof(int64_t));
	t->shape = storage;
	t->rank = rank;
	t->nbytes = qcf_dtype_nbytes(t->dtype, qref_numel(rank, dims));
	t->data = qc_case_alloc(c, t->nbytes ? t->nbytes : 1);
}

/* t's per-axis quantization reduced to its channel ch (count 1). */
static void one_channel(qcf_tensor *t, int64_t ch)
{
	qcf_quant *q = (qcf_quant *)t->quant;
	if (!q || q->axis < 0 || q->count <= 1 || ch < 0 || ch >= q->count)
		return;
	if (q->scales)
		((float *)q->scales)[0] = q->scales[ch];
	if (q->zero_points)
		((int32_t *)q->zero_points)[0] = q->zero_points[ch];
	if (q->float_zero_points)
		((float *)q->float_zero_points)[0] = q->float_zero_points[ch];
	q->count = 1;
}

static qcf_attr *attr_of(qc_case *c, const char *name)
{
	for (int i = 0; i < c->call.n_attrs; i++)
		if (!strcmp(c->attrs[i].name, name))
			return &c->attrs[i];
	return NULL;
}

static int64_t attr_int(qc_case *c, const char *name, int64_t dflt)
{
	qcf_attr *a = attr_of(c, name);
	return a && a->type == QCF_ATTR_INT ? a->v.i : dflt;
}

/* ---- running the kernel ---- */

/* Does the kernel fail cand the same way at element `at` of output 0 (-1: at any element,
 * then *at_out gets the worst one)? One kernel call. */
static int fails_same(shrinker *s, qc_case *cand, int64_t at, int64_t *at_out, int *sign_out)
{
	if (s->calls >= s->max_calls)
		return 0;
	char err[256];
	qc_expected *e = qc_expected_new(cand, err, sizeof err);
	if (e->status != QCF_OK) { /* a cut the reference refuses is no case */
		qc_expected_free(e, cand->call.n_outputs);
		return 0;
	}
	const qcf_op_call *calls[1] = {&cand->call}, *staged[1] = {NULL};
	qc_exec_result ex;
	s->calls++;
	if (qc_runner_execute(s->runner, calls, 1, &ex, staged, s->err, sizeof s->err) != 0) {
		qc_expected_free(e, cand->call.n_outputs);
		return -1;
	}
	qcf_tensor kout[QC_MAX_TENSORS];
	for (int k = 0; k < cand->call.n_outputs; k++) {
		kout[k] = cand->out[k];
		kout[k].data =
		        ex.outcome == QC_EXEC_OK && staged[0] ? staged[0]->outputs[k].data : NULL;
	}
	int same = 0;
	if (ex.outcome == QC_EXEC_OK && staged[0] && e->status == QCF_OK) {
		const qcf_tensor *y = &cand->out[0];
		size_t n = qref_numel(y->rank, y->shape);
		const qref_output_detail *d = &e->detail.out[0];
		/* the element's band: the tolerance's roundings, or the answer; open elements
		 * their range */
		double worst = 0;
		for (size_t i = 0; i < n; i++) {
			if (at >= 0 && (size_t)at != i)
				continue;
			double r = qref_get(&e->out[0], i), v = qref_get(&kout[0], i);
			double lo = e->band_lo[0] ? e->band_lo[0][i] : r;
			double hi = e->band_hi[0] ? e->band_hi[0][i] : r;
			if (d->any && d->any[i]) {
				lo = d->lo ? d->lo[i] : lo;
				hi = d->hi ? d->hi[i] : hi;
			}
			double beyond = v > hi ? v - hi : v < lo ? v - lo : 0;
			if (beyond != beyond || beyond == 0)
				continue;
			if (at >= 0) {
				same = (beyond > 0 ? 1 : -1) == s->sign;
			} else if (fabs(beyond) > worst) {
				worst = fabs(beyond);
				*at_out = (int64_t)i;
				*sign_out = beyond > 0 ? 1 : -1;
				same = 1;
			}
		}
		/* the verdict too: the tolerance may allow a difference of one element */
		if (same) {
			qc_result *r = qc_xcalloc(1, sizeof *r);
			qc_judge(cand, e, &ex, kout, r);
			same = r->verdict == QC_FAIL;
			free(r);
		}
	}
	qc_expected_free(e, cand->call.n_outputs);
	return same;
}

/* ---- windows: the output reduced to the tracked element (or its row) ---- */

/* Flat index of coords in shape. */
static size_t flat(int rank, const int64_t *shape, const int64_t *coords)
{
	size_t i = 0;
	for (int d = 0; d < rank; d++)
		i = i * (size_t)shape[d] + (size_t)coords[d];
	return i;
}

static int windowable(const qcf_tensor *t)
{
	return !qref_ggml_is_block(t->dtype) && (!t->quant || t->quant->block_size <= 0) &&
	       t->rank >= 0 && t->rank <= QCF_MAX_RANK;
}

/* Ops whose inputs broadcast onto output 0: the tracked element's inputs (keep_last: its row
 * of the last axis too). *at: the tracked element's index in the cut. */
static qc_case *window_broadcast(const qc_case *c, int64_t *at, int keep_last)
{
	const qcf_tensor *y = &c->out[0];
	int R = y->rank;
	if (c->call.n_outputs != 1 || R < 1 || !windowable(y) || (keep_last && R < 2))
		return NULL;
	for (int k = 0; k < c->call.n_inputs; k++) {
		const qcf_tensor *t = &c->in[k];
		if (!windowable(t) || t->rank > R || !t->data)
			return NULL;
		for (int j = 0; j < t->rank; j++)
			if (t->shape[j] != 1 && t->shape[j] != y->shape[R - t->rank + j])
				return NULL;
	}
	int64_t coord[QCF_MAX_RANK], od[QCF_MAX_RANK];
	qc_coords(R, y->shape, (uint64_t)*at, coord);
	for (int d = 0; d < R; d++)
		od[d] = keep_last && d == R - 1 ? y->shape[d] : 1;
	qc_case *n = case_copy(c);
	memcpy(n->shape_out[0], od, (size_t)R * sizeof(int64_t));
	n->out[0].nbytes = qcf_dtype_nbytes(y->dtype, qref_numel(R, od));
	if (y->quant && y->quant->axis >= 0 && y->quant->axis < R && od[y->quant->axis] == 1)
		one_channel(&n->out[0], coord[y->quant->axis]);
	for (int k = 0; k < c->call.n_inputs; k++) {
		const qcf_tensor *t = &c->in[k];
		int r = t->rank, off = R - r;
		int64_t nd[QCF_MAX_RANK], nc[QCF_MAX_RANK], oc[QCF_MAX_RANK];
		for (int j = 0; j < r; j++)
			nd[j] = t->shape[j] == 1 ? 1 : od[off + j];
		reshape(n, &n->in[k], n->shape_in[k], r, nd);
		size_t m = qref_numel(r, nd);
		for (size_t e = 0; e < m; e++) {
			qc_coords(r, nd, e, nc);
			for (int j = 0; j < r; j++)
				oc[j] = t->shape[j] == 1 ? 0 : nd[j] == 1 ? coord[off + j] : nc[j];
			qref_set(&n->in[k], e, qref_get(t, flat(r, t->shape, oc)));
		}
		const qcf_quant *q = t->quant;
		if (q && q->axis >= 0 && q->axis < r && nd[q->axis] == 1 && t->shape[q->axis] > 1)
			one_channel(&n->in[k], coord[off + q->axis]);
	}
	*at = keep_last ? coord[R - 1] : 0;
	return n;
}

/* litert FULLY_CONNECTED: the tracked element's input row and filter unit. */
static qc_case *window_fc(const qc_case *c, int64_t *at)
{
	if (strcmp(c->call.semantics, "litert") || strcmp(c->call.op, "FULLY_CONNECTED") ||
	    c->call.n_inputs < 2 || c->in[1].rank != 2 || !windowable(&c->in[0]) ||
	    !windowable(&c->in[1]) || !c->in[0].data || !c->in[1].data)
		return NULL;
	const qcf_tensor *x = &c->in[0], *w = &c->in[1];
	int64_t units = w->shape[0], depth = w->shape[1];
	if (units <= 0 || depth <= 0)
		return NULL;
	int64_t b = *at / units, u = *at % units;
	qc_case *n = case_copy(c);
	int64_t row[2] = {1, depth}, one[2] = {1, 1};
	reshape(n, &n->in[0], n->shape_in[0], 2, row);
	reshape(n, &n->in[1], n->shape_in[1], 2, row);
	for (int64_t j = 0; j < depth; j++) {
		qref_set(&n->in[0], (size_t)j, qref_get(x, (size_t)(b * depth + j)));
		qref_set(&n->in[1], (size_t)j, qref_get(w, (size_t)(u * depth + j)));
	}
	one_channel(&n->in[1], u);
	if (c->call.n_inputs > 2 && c->in[2].data && c->in[2].rank == 1) {
		reshape(n, &n->in[2], n->shape_in[2], 1, one);
		qref_set(&n->in[2], 0, qref_get(&c->in[2], (size_t)u));
		one_channel(&n->in[2], u);
	}
	memcpy(n->shape_out[0], one, sizeof one);
	n->out[0].rank = 2;
	n->out[0].nbytes = qcf_dtype_nbytes(n->out[0].dtype, 1);
	qcf_attr *keep = attr_of(n, "keep_num_dims");
	if (keep)
		keep->v.i = 0;
	*at = 0;
	return n;
}

/* litert CONV_2D / DEPTHWISE_CONV_2D: the tracked element's receptive field (the padding
 * written out as the input's zero point), its one output channel, VALID. */
static qc_case *window_conv(const qc_case *c, int64_t *at)
{
	int dw = !strcmp(c->call.op, "DEPTHWISE_CONV_2D");
	if (strcmp(c->call.semantics, "litert") || (!dw && strcmp(c->call.op, "CONV_2D")) ||
	    c->call.n_inputs < 2 || c->in[0].rank != 4 || c->in[1].rank != 4 ||
	    c->out[0].rank != 4 || !windowable(&c->in[0]) || !windowable(&c->in[1]) ||
	    !c->in[0].data || !c->in[1].data)
		return NULL;
	const qcf_tensor *x = &c->in[0], *f = &c->in[1], *y = &c->out[0];
	int64_t co[4];
	qc_coords(4, y->shape, (uint64_t)*at, co);
	int64_t H = x->shape[1], W = x->shape[2], C = x->shape[3];
	int64_t KH = f->shape[1], KW = f->shape[2], cout = y->shape[3];
	int64_t sh = attr_int((qc_case *)c, "stride_h", 1),
	        sw = attr_int((qc_case *)c, "stride_w", 1);
	int64_t dh = attr_int((qc_case *)c, "dilation_h_factor", 1),
	        dwf = attr_int((qc_case *)c, "dilation_w_factor", 1);
	qcf_attr *pad = attr_of((qc_case *)c, "padding");
	int same = !pad || pad->type != QCF_ATTR_STRING || strcmp(pad->v.s, "VALID");
	if (sh <= 0 || sw <= 0 || dh <= 0 || dwf <= 0 || KH <= 0 || KW <= 0 || C <= 0 || cout <= 0)
		return NULL;
	int64_t eh = (KH - 1) * dh + 1, ew = (KW - 1) * dwf + 1;
	int64_t top = same ? ((y->shape[1] - 1) * sh + eh - H) / 2 : 0;
	int64_t left = same ? ((y->shape[2] - 1) * sw + ew - W) / 2 : 0;
	top = top > 0 ? top : 0;
	left = left > 0 ? left : 0;
	int64_t cin0, ncin;
	if (dw) {
		int64_t dm = cout / C;
		if (dm <= 0)
			return NULL;
		cin0 = co[3] / dm;
		ncin = 1;
	} else {
		int64_t fcin = f->shape[3], groups = fcin > 0 ? C / fcin : 0;
		if (groups <= 0 || cout % groups)
			return NULL;
		cin0 = co[3] / (cout / groups) * fcin;
		ncin = fcin;
	}
	double zp = x->quant && x->quant->zero_points ? x->quant->zero_points[0] : 0;
	qc_case *n = case_copy(c);
	int64_t xd[4] = {1, eh, ew, ncin}, fd[4] = {1, KH, KW, ncin}, one[4] = {1, 1, 1, 1};
	reshape(n, &n->in[0], n->shape_in[0], 4, xd);
	for (int64_t a = 0; a < eh; a++)
		for (int64_t b = 0; b < ew; b++)
			for (int64_t ch = 0; ch < ncin; ch++) {
				int64_t ih = co[1] * sh - top + a, iw = co[2] * sw - left + b;
				int64_t src[4] = {co[0], ih, iw, cin0 + ch}, dst[4] = {0, a, b, ch};
				int inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
				qref_set(&n->in[0], flat(4, xd, dst),
				         inside ? qref_get(x, flat(4, x->shape, src)) : zp);
			}
	reshape(n, &n->in[1], n->shape_in[1], 4, fd);
	for (int64_t a = 0; a < KH; a++)
		for (int64_t b = 0; b < KW; b++)
			for (int64_t ch = 0; ch < ncin; ch++) {
				int64_t src[4] = {dw ? 0 : co[3], a, b, dw ? co[3] : ch},
				        dst[4] = {0, a, b, ch};
				qref_set(&n->in[1], flat(4, fd, dst),
				         qref_get(f, flat(4, f->shape, src)));
			}
	one_channel(&n->in[1], co[3]);
	if (c->call.n_inputs > 2 && c->in[2].data && c->in[2].rank == 1) {
		reshape(n, &n->in[2], n->shape_in[2], 1, one);
		qref_set(&n->in[2], 0, qref_get(&c->in[2], (size_t)co[3]));
		one_channel(&n->in[2], co[3]);
	}
	memcpy(n->shape_out[0], one, sizeof one);
	n->out[0].nbytes = qcf_dtype_nbytes(n->out[0].dtype, 1);
	one_channel(&n->out[0], co[3]);
	qcf_attr *p = attr_of(n, "padding");
	if (p)
		p->v.s = "VALID";
	qcf_attr *dm = attr_of(n, "depth_multiplier");
	if (dm)
		dm->v.i = 1;
	*at = 0;
	return n;
}

/* ---- the fewest values ---- */

/* The value that is 0 in element i of t: its zero point, or 0. */
static double zero_of(const qcf_tensor *t, size_t i)
{
	const qcf_quant *q = t->quant;
	if (!q || !q->zero_points || qref_dtype_is_float(t->dtype))
		return 0;
	int32_t ch = q->axis >= 0 && q->count > 1 ? qref_channel(t, q, i) : 0;
	return q->zero_points[ch];
}

/* Input elements set to their zero, in halves, quarters, ... down to single ones, each kept
 * while the kernel still fails at the tracked element. 1 when one was kept. */
static int fewest_values_pass(shrinker *s, qc_case **cur, int *owned, const qc_case *orig,
                              int64_t at)
{
	int kept = 0;
	for (int k = 0; k < (*cur)->call.n_inputs; k++) {
		const qcf_tensor *t0 = &(*cur)->in[k];
		if (!t0->data || qref_ggml_is_block(t0->dtype) || t0->dtype == QCF_BOOL)
			continue;
		size_t n = qref_numel(t0->rank, t0->shape);
		for (size_t chunk = n > 1 ? (n + 1) / 2 : 1; chunk >= 1; chunk /= 2) {
			for (size_t start = 0; start < n; start += chunk) {
				const qcf_tensor *t = &(*cur)->in[k];
				size_t end = start + chunk < n ? start + chunk : n, nz = 0;
				for (size_t i = start; i < end; i++)
					nz += qref_get(t, i) != zero_of(t, i);
				if (!nz)
					continue;
				if (s->calls >= s->max_calls)
					return kept;
				qc_case *cand = case_copy(*cur);
				for (size_t i = start; i < end; i++)
					qref_set(&cand->in[k], i, zero_of(t, i));
				if (fails_same(s, cand, at, NULL, NULL) == 1) {
					if (*owned && *cur != orig)
						qc_case_free(*cur);
					*cur = cand;
					*owned = 1;
					kept = 1;
				} else {
					qc_case_free(cand);
				}
			}
			if (chunk == 1)
				break;
		}
	}
	return kept;
}

/* Passes until one keeps nothing: a value zeroed in a later input (a weight) can free one of
 * an earlier input (the activation it multiplied). */
static void fewest_values(shrinker *s, qc_case **cur, int *owned, const qc_case *orig, int64_t at)
{
	while (s->calls < s->max_calls && fewest_values_pass(s, cur, owned, orig, at))
		;
}

/* ---- the command ---- */

typedef struct shrink_run {
	shrinker s;
	const char *out_dir;
	int found, rc;
} shrink_run;

/* Input elements, and those that are not their zero. */
static void census(const qc_case *c, size_t *elements, size_t *nonzero)
{
	*elements = *nonzero = 0;
	for (int k = 0; k < c->call.n_inputs; k++) {
		const qcf_tensor *t = &c->in[k];
		size_t n = qref_numel(t->rank, t->shape);
		*elements += n;
		for (size_t i = 0; t->data && !qref_ggml_is_block(t->dtype) && i < n; i++)
			*nonzero += qref_get(t, i) != zero_of(t, i);
	}
}

/* The case written as a standalone spec under out_dir (dump.h), with the kernel's outputs,
 * and the path of its case.yaml in yaml. 0, or -1 (said why). */
static int write_case(shrink_run *sr, qc_case *c, char *yaml, size_t yaml_size)
{
	const qc_run_opts *o = sr->s.o;
	char err[512];
	qc_dump *d =
	        qc_dump_open(sr->out_dir, 1, o->plugin, o->options, o->n_options, err, sizeof err);
	if (!d) {
		fprintf(stderr, "qconform shrink: %s\n", err);
		return -1;
	}
	qc_dump_by(d, "qconform shrink");
	qc_expected *e = qc_expected_new(c, err, sizeof err);
	const qcf_op_call *calls[1] = {&c->call}, *staged[1] = {NULL};
	qc_exec_result ex;
	int rc = qc_runner_execute(sr->s.runner, calls, 1, &ex, staged, err, sizeof err);
	qcf_tensor kout[QC_MAX_TENSORS];
	for (int k = 0; k < c->call.n_outputs; k++) {
		kout[k] = c->out[k];
		kout[k].data = rc == 0 && ex.outcome == QC_EXEC_OK && staged[0]
		                       ? staged[0]->outputs[k].data
		                       : NULL;
	}
	qc_result *r = qc_xcalloc(1, sizeof *r);
	if (rc == 0)
		qc_judge(c, e, &ex, kout, r);
	if (rc != 0 || qc_dump_case(d, c, e, kout[0].data ? kout : NULL, r, err, sizeof err) < 0) {
		fprintf(stderr, "qconform shrink: %s\n", err);
		rc = -1;
	}
	free(r);
	qc_expected_free(e, c->call.n_outputs);
	if (qc_dump_close(d, stdout) != 0)
		rc = -1;
	/* where it went: the index's line "name -> directory" */
	char index[1200];
	snprintf(index, sizeof index, "%s/index.txt", sr->out_dir);
	FILE *f = rc == 0 ? fopen(index, "r") : NULL;
	char line[2048];
	yaml[0] = 0;
	while (f && fgets(line, sizeof line, f)) {
		char *arrow = strstr(line, " -> ");
		if (!arrow)
			continue;
		arrow[strcspn(arrow, "\n")] = 0;
		snprintf(yaml, yaml_size, "%s/%s/case.yaml", sr->out_dir, arrow + 4);
	}
	if (f)
		fclose(f);
	return rc == 0 && yaml[0] ? 0 : -1;
}

static int shrink_one(void *ctx, qc_case *c, uint64_t ordinal)
{
	(void)ordinal;
	shrink_run *sr = ctx;
	shrinker *s = &sr->s;
	sr->found = 1;
	int64_t at = -1;
	int sign = 0;
	int r = fails_same(s, c, -1, &at, &sign);
	if (r < 0) {
		fprintf(stderr, "qconform shrink: %s\n", s->err);
		sr->rc = 2;
		return -1;
	}
	if (!r) {
		printf("%s: the kernel gives no element outside the legal band (or the case "
		       "passes): "
		       "nothing to shrink\n",
		       c->name);
		sr->rc = 1;
		return 0;
	}
	s->sign = sign;
	size_t el0, nz0;
	census(c, &el0, &nz0);
	qc_case *cur = c;
	int owned = 0;
	const char *how = "the whole case";
	/* the window: the op's own (its receptive field, its row and unit), else the element's
	 * inputs, else its row */
	static const char *const names[] = {"its receptive field", "its input row and unit",
	                                    "its inputs", "its row of the last axis"};
	for (int w = 0; w < 4 && !owned; w++) {
		int64_t a = at;
		qc_case *cand = w == 0   ? window_conv(c, &a)
		                : w == 1 ? window_fc(c, &a)
		                         : window_broadcast(c, &a, w == 3);
		if (!cand)
			continue;
		if (fails_same(s, cand, a, NULL, NULL) == 1) {
			cur = cand;
			owned = 1;
			at = a;
			how = names[w];
		} else {
			qc_case_free(cand);
		}
	}
	fewest_values(s, &cur, &owned, c, at);
	if (!owned)
		cur = case_copy(c);
	snprintf(cur->name, sizeof cur->name, "%.490s/shrunk", c->name);
	size_t el1, nz1;
	census(cur, &el1, &nz1);
	printf("shrunk %s\n  from %zu input elements (%zu not zero) to %zu (%zu not zero): %s, "
	       "in %d kernel call%s\n",
	       c->name, el0, nz0, el1, nz1, how, s->calls, s->calls == 1 ? "" : "s");
	char yaml[1400];
	if (write_case(sr, cur, yaml, sizeof yaml) != 0) {
		sr->rc = 2;
	} else {
		/* the same case for the offline runner */
		char exp_dir[1500];
		snprintf(exp_dir, sizeof exp_dir, "%.1400s.export", yaml);
		char *slash = strrchr(exp_dir, '/');
		if (slash)
			snprintf(slash + 1, sizeof exp_dir - (size_t)(slash + 1 - exp_dir),
			         "export");
		qc_run_opts eo;
		memset(&eo, 0, sizeof eo);
		char *paths[1] = {yaml};
		eo.paths = paths;
		eo.n_paths = 1;
		eo.seed = s->o->seed;
		eo.self = s->o->self;
		eo.timeout_s = s->o->timeout_s;
		eo.jobs = 1;
		eo.quiet = 1;
		eo.command = "qconform shrink";
		if (qc_export(&eo, exp_dir, 0, NULL) != 0)
			sr->rc = 2;
		printf("reproduce: %s run '%s' --no-reports%s%s\n",
		       s->o->self ? s->o->self : "qconform", yaml, s->o->plugin ? " --plugin " : "",
		       s->o->plugin ? s->o->plugin : "");
	}
	qc_case_free(cur);
	return 0;
}

int qc_cmd_shrink(const qc_run_opts *o, const char *name, const char *out_dir, int max_calls)
{
	shrink_run sr = {.s = {.o = o, .max_calls = max_calls > 0 ? max_calls : SHRINK_MAX_CALLS},
	                 .out_dir = out_dir ? out_dir : "reports/out/shrunk"};
	char err[1024], ref[1024];
	/* --remote: the first command, its {job} the job 0's */
	qc_pool pool = {0};
	if (o->remote && qc_pool_make(&pool, &o->remote, 1, 1, err, sizeof err) != 0) {
		fprintf(stderr, "qconform shrink: %s\n", err);
		return 2;
	}
	qc_runner_config cfg = {.plugin_path = o->plugin || o->remote ? o->plugin
	                                                              : qc_default_reference_plugin(
	                                                                        ref, sizeof ref),
	                        .options = o->options,
	                        .n_options = o->n_options,
	                        .timeout_s = o->timeout_s,
	                        .sandbox = !o->no_sandbox,
	                        .sandbox_allow = o->sandbox_allow,
	                        .n_sandbox_allow = o->n_sandbox_allow,
	                        .remote = o->remote ? pool.boards[0].command : NULL};
	qc_plugin_info info;
	int orc = qc_runner_open(&cfg, &sr.s.runner, &info, err, sizeof err);
	qc_pool_free(&pool); /* the runner has its copy */
	if (orc != 0) {
		fprintf(stderr, "qconform shrink: %s\n", err);
		return 2;
	}
	qc_run_opts one = *o;
	const char *names[1] = {name};
	one.case_names = names;
	one.n_case_names = 1;
	qc_run_visitor v = {.each = shrink_one, .ctx = &sr};
	int rc = qc_run_each_case(&one, &v);
	qc_runner_close(sr.s.runner);
	if (rc)
		return rc;
	if (!sr.found) {
		fprintf(stderr, "qconform shrink: no case named %s\n", name);
		return 2;
	}
	return sr.rc;
}
