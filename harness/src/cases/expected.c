#include "cases/expected.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "reference/dtype.h"
#include "spec/slua.h"

void qc_expected_free(qc_expected *e, int n_outputs)
{
	if (!e)
		return;
	for (int k = 0; k < n_outputs; k++) {
		free(e->out[k].data);
		free(e->detail.out[k].any);
		free(e->detail.out[k].lo);
		free(e->detail.out[k].hi);
		free(e->detail.out[k].step);
		free(e->band_lo[k]);
		free(e->band_hi[k]);
		free(e->errors[k]);
		free(e->fused[k]);
	}
	for (int k = 0; k < e->n_mid; k++)
		free(e->mid[k]);
	free(e);
}

/*
 * Published values check the reference: a golden value must lie in the set the reference
 * accepts for its element (its answer, the band of the tolerance's legal roundings, the range
 * of an unpredictable element), or within the case's golden_tolerance of it (in the output's
 * unit: LSB, or steps of a float grid). A golden value outside fails the case; one inside
 * changes nothing (the kernel is judged against the reference and its band). A NaN matches
 * only a NaN, an infinity only the same infinity: neither is within any distance of a number;
 * in a float8 or float4 output, -0 matches only -0.
 */
static void apply_golden(const qc_case *c, qc_expected *e)
{
	for (int k = 0; k < c->call.n_outputs; k++) {
		if (!c->golden[k])
			continue;
		size_t n = qref_numel(c->out[k].rank, c->out[k].shape);
		const qref_output_detail *d = k < QREF_MAX_OUTPUTS ? &e->detail.out[k] : NULL;
		for (size_t i = 0; i < n && !e->golden_mismatch; i++) {
			/* a golden value means the nearest value of the output dtype */
			uint64_t cell = 0;
			int64_t one = 1;
			qcf_tensor gt = e->out[k];
			gt.data = &cell;
			gt.rank = 1;
			gt.shape = &one;
			qref_set(&gt, 0, c->golden[k][i]);
			double r = qref_get(&e->out[k], i), g = qref_get(&gt, 0);
			/* -0 is a code of its own in the float8 and float4 types */
			int zero_sign = r == 0 && g == 0 && signbit(r) != signbit(g) &&
			                qref_dtype_is_small_float(c->out[k].dtype);
			if ((r == g && !zero_sign) || (isnan(r) && isnan(g)))
				continue;
			double lo = r, hi = r;
			if (d && d->any && d->any[i]) {
				lo = d->lo[i];
				hi = d->hi[i];
			} else if (e->band_lo[k] && e->band_hi[k]) {
				lo = e->band_lo[k][i];
				hi = e->band_hi[k][i];
			}
			/* NaN equals NaN only, an infinity the same infinity only (the reference's
			 * answer or an end of its band): no distance or tolerance makes them near
			 */
			int nonfinite = isnan(r) || isnan(g) || isnan(lo) || isnan(hi) || isinf(g);
			if (nonfinite && !isnan(g) && (g == lo || g == hi))
				continue;
			double dist = g < lo ? lo - g : g > hi ? g - hi : 0;
			if (d && d->step && d->step[i] > 0)
				dist /= d->step[i];
			if (!nonfinite && !zero_sign && dist <= c->golden_max_abs)
				continue;
			e->golden_mismatch = 1;
			char within[64] = "";
			if (c->golden_max_abs > 0)
				snprintf(within, sizeof within, " (golden tolerance %g)",
				         c->golden_max_abs);
			if (lo == hi)
				snprintf(e->golden_note, sizeof e->golden_note,
				         "output '%s'[%zu]: reference %.9g, golden %.9g%s (%s)",
				         c->out[k].name, i, r, g, within,
				         c->golden_source ? c->golden_source : "no source");
			else
				snprintf(e->golden_note, sizeof e->golden_note,
				         "output '%s'[%zu]: reference accepts [%.9g, %.9g], golden "
				         "%.9g%s "
				         "(%s)",
				         c->out[k].name, i, lo, hi, g, within,
				         c->golden_source ? c->golden_source : "no source");
		}
	}
}

/* The tolerance's roundings, in its order, parsed once: the buffers for their outputs (one set
 * per distinct rounding other than the default, which e->out holds). */
typedef struct roundings {
	void *out[QREF_ROUND_COUNT][QC_MAX_TENSORS];
} roundings;

static void roundings_alloc(const qc_case *c, roundings *rs)
{
	memset(rs, 0, sizeof *rs);
	for (int r = 0; r < c->tol.n_roundings; r++) {
		int mode = qref_rounding_parse(c->tol.roundings[r]);
		if (mode <= QREF_ROUND_DEFAULT || rs->out[mode][0])
			continue;
		for (int k = 0; k < c->call.n_outputs; k++)
			rs->out[mode][k] = qc_xcalloc(c->out[k].nbytes ? c->out[k].nbytes : 1, 1);
	}
}

static void roundings_free(const qc_case *c, roundings *rs)
{
	for (int m = 0; m < QREF_ROUND_COUNT; m++)
		for (int k = 0; k < c->call.n_outputs; k++)
			free(rs->out[m][k]);
}

/*
 * The band of legal roundings: per element the lowest and highest output over the tolerance's
 * roundings (and the default, which is always legal). A rounding is computed once: not at all
 * when it is the default (the kernel says which named rounding that is), from the default's
 * call when the kernel wrote it there (qref_detail.extra), else by a call of its own.
 */
static qcf_status rounding_band(const qc_case *c, qc_expected *e, roundings *rs, char *err,
                                size_t err_size)
{
	qcf_tensor alt[QC_MAX_TENSORS];
	qcf_op_call call = c->call;
	call.outputs = alt;
	for (int k = 0; k < c->call.n_outputs; k++) {
		size_t n = qref_numel(c->out[k].rank, c->out[k].shape);
		e->band_lo[k] = qc_xcalloc(n, sizeof(double));
		e->band_hi[k] = qc_xcalloc(n, sizeof(double));
		for (size_t i = 0; i < n; i++)
			e->band_lo[k][i] = e->band_hi[k][i] = qref_get(&e->out[k], i);
		alt[k] = c->out[k];
	}
	int seen[QREF_ROUND_COUNT] = {0};
	for (int r = 0; r < c->tol.n_roundings; r++) {
		int mode = qref_rounding_parse(c->tol.roundings[r]);
		if (mode < 0) {
			snprintf(err, err_size, "unknown rounding '%s'", c->tol.roundings[r]);
			return QCF_NOT_SUPPORTED;
		}
		if (mode == QREF_ROUND_DEFAULT || mode == (int)e->detail.default_rounding ||
		    seen[mode])
			continue; /* the default's outputs, or already in the band */
		seen[mode] = 1;
		for (int k = 0; k < c->call.n_outputs; k++)
			alt[k].data = rs->out[mode][k];
		if (!(e->detail.extra_done & (1u << mode))) {
			qref_detail d;
			memset(&d, 0, sizeof d);
			d.rounding = (qref_rounding)mode;
			qcf_status st = qref_execute(&call, &d);
			if (st != QCF_OK) {
				snprintf(err, err_size, "rounding '%s': %s", c->tol.roundings[r],
				         d.message);
				return st;
			}
		}
		for (int k = 0; k < c->call.n_outputs; k++) {
			size_t n = qref_numel(c->out[k].rank, c->out[k].shape);
			for (size_t i = 0; i < n; i++) {
				double v = qref_get(&alt[k], i);
				e->band_lo[k][i] = fmin(e->band_lo[k][i], v);
				e->band_hi[k][i] = fmax(e->band_hi[k][i], v);
			}
		}
	}
	return QCF_OK;
}

/*
 * A chain: the reference's intermediates (from the decomposed run just made: the last run of
 * the chain was the default's only when no other rounding ran, so it runs again) and, under
 * the round_once contract, the fused form's answer, which widens the band: per element,
 * anything between the decomposed graph (and its legal roundings) and the fused op is legal.
 */
static void chain_expected(const qc_case *c, qc_expected *e, char *err, size_t err_size)
{
	if (c->tol.n_roundings) {
		qcf_tensor out[QC_MAX_TENSORS];
		qcf_op_call call = c->call;
		for (int k = 0; k < c->call.n_outputs; k++) {
			out[k] = c->out[k];
			out[k].data = qc_xcalloc(c->out[k].nbytes ? c->out[k].nbytes : 1, 1);
		}
		call.outputs = out;
		qref_execute(&call, NULL);
		for (int k = 0; k < c->call.n_outputs; k++)
			free(out[k].data);
	}
	e->n_mid = c->n_mid;
	for (int i = 0; i < c->n_mid; i++) {
		e->mid[i] = qc_xcalloc(c->mid[i].nbytes ? c->mid[i].nbytes : 1, 1);
		memcpy(e->mid[i], c->mid[i].data, c->mid[i].nbytes);
	}
	if (!c->fused)
		return;
	qcf_tensor out[QC_MAX_TENSORS];
	qcf_op_call call = *c->fused;
	for (int k = 0; k < c->call.n_outputs; k++) {
		out[k] = c->out[k];
		out[k].data = e->fused[k] = qc_xcalloc(c->out[k].nbytes ? c->out[k].nbytes : 1, 1);
	}
	call.outputs = out;
	qref_detail d;
	memset(&d, 0, sizeof d);
	qcf_status st = qref_execute(&call, &d);
	if (st != QCF_OK) {
		e->status = st == QCF_INVALID_PARAM ? QCF_ERROR : st;
		snprintf(err, err_size, "the fused form (%s/%s) of the chain: %s", call.semantics,
		         call.op, d.message);
		snprintf(e->detail.message, sizeof e->detail.message, "%s", err);
		return;
	}
	for (int k = 0; k < c->call.n_outputs; k++) {
		size_t n = qref_numel(c->out[k].rank, c->out[k].shape);
		if (!e->band_lo[k]) {
			e->band_lo[k] = qc_xcalloc(n ? n : 1, sizeof(double));
			e->band_hi[k] = qc_xcalloc(n ? n : 1, sizeof(double));
			for (size_t i = 0; i < n; i++)
				e->band_lo[k][i] = e->band_hi[k][i] = qref_get(&e->out[k], i);
		}
		for (size_t i = 0; i < n; i++) {
			double v = qref_get(&out[k], i);
			e->band_lo[k][i] = fmin(e->band_lo[k][i], v);
			e->band_hi[k][i] = fmax(e->band_hi[k][i], v);
		}
	}
}

qc_expected *qc_expected_new(const qc_case *c, char *err, size_t err_size)
{
	qc_expected *e = qc_xcalloc(1, sizeof *e);
	qcf_op_call call = c->call;
	call.outputs = e->out;
	for (int k = 0; k < c->call.n_outputs; k++) {
		size_t n = qref_numel(c->out[k].rank, c->out[k].shape);
		e->out[k] = c->out[k];
		e->out[k].data = qc_xcalloc(c->out[k].nbytes, 1);
		if (k < QREF_MAX_OUTPUTS) {
			e->detail.out[k].any = qc_xcalloc(n, 1);
			e->detail.out[k].lo = qc_xcalloc(n, sizeof(double));
			e->detail.out[k].hi = qc_xcalloc(n, sizeof(double));
			e->detail.out[k].step = qc_xcalloc(n, sizeof(double));
		}
		if (c->tol.check)
			e->errors[k] = qc_xcalloc(n, sizeof(double));
	}
	/* the tolerance's other roundings from the same call, where the kernel can */
	roundings rs;
	roundings_alloc(c, &rs);
	if (c->call.n_outputs <= QREF_MAX_OUTPUTS)
		for (int m = 0; m < QREF_ROUND_COUNT; m++)
			for (int k = 0; k < c->call.n_outputs; k++)
				e->detail.extra[m][k] = rs.out[m][k];
	e->status = qref_execute(&call, &e->detail);
	memset(e->detail.extra, 0, sizeof e->detail.extra);
	if (e->status == QCF_OK && c->tol.n_roundings) {
		qcf_status st = rounding_band(c, e, &rs, err, err_size);
		if (st != QCF_OK) {
			e->status = st;
			snprintf(e->detail.message, sizeof e->detail.message, "%s", err);
		}
	}
	roundings_free(c, &rs);
	if (e->status == QCF_OK && c->n_nodes)
		chain_expected(c, e, err, err_size);
	if (e->status == QCF_OK)
		apply_golden(c, e);
	return e;
}

qcf_status qc_expected_rounding(const qc_case *c, int rounding, void *const *out, char *msg,
                                size_t msg_size)
{
	qcf_tensor alt[QC_MAX_TENSORS];
	qcf_op_call call = c->call;
	call.outputs = alt;
	for (int k = 0; k < c->call.n_outputs; k++) {
		alt[k] = c->out[k];
		alt[k].data = out[k];
	}
	qref_detail d;
	memset(&d, 0, sizeof d);
	d.rounding = (qref_rounding)rounding;
	qcf_status st = qref_execute(&call, &d);
	snprintf(msg, msg_size, "%s", st == QCF_OK ? "" : d.message);
	return st;
}

double qc_expected_saturation(const qc_case *c, const qc_expected *e, int k)
{
	int64_t lo, hi;
	if (e->status != QCF_OK || !qref_dtype_range(c->out[k].dtype, &lo, &hi) ||
	    c->out[k].dtype == QCF_BOOL)
		return 0;
	size_t n = qref_numel(c->out[k].rank, c->out[k].shape), sat = 0, counted = 0;
	for (size_t i = 0; i < n; i++) {
		if (e->detail.out[k].any && e->detail.out[k].any[i])
			continue;
		double v = qref_get(&e->out[k], i);
		sat += v == (double)lo || v == (double)hi;
		counted++;
	}
	return counted ? (double)sat / (double)counted : 0;
}

const yaml_node_t *qc_expected_spec_error(const qc_case *c, const qc_expected *e, char *msg,
                                          size_t size)
{
	if (e->status == QCF_NOT_SUPPORTED && c->tol.n_roundings) {
		snprintf(msg, size, "%s (case %s)", e->detail.message, c->name);
		return c->rounding_node;
	}
	if (e->status != QCF_OK || c->max_saturation < 0)
		return NULL;
	for (int k = 0; k < c->call.n_outputs; k++) {
		double sat = qc_expected_saturation(c, e, k);
		if (sat > c->max_saturation) {
			snprintf(msg, size,
			         "%.1f%% of output '%s' saturates in case %s, the spec allows "
			         "%.1f%%: "
			         "widen the output range (quant: {auto: range})",
			         100 * sat, c->out[k].name, c->name, 100 * c->max_saturation);
			return c->saturation_node;
		}
	}
	return NULL;
}

int qc_expected_check(struct qc_lua *L, const qc_case *c, const qc_expected *e, int k,
                      const qcf_tensor *got, int *ok, char *why, size_t why_size, char *err,
                      size_t err_size, yaml_node_t *at)
{
	size_t n = qref_numel(e->out[k].rank, e->out[k].shape);
	double *want = qc_xcalloc(n ? n : 1, sizeof *want), *g = qc_xcalloc(n ? n : 1, sizeof *g);
	for (size_t i = 0; i < n; i++) {
		want[i] = qref_get(&e->out[k], i);
		g[i] = qref_get(got, i);
	}
	int line = 0;
	*ok = 1;
	int rc = qc_lua_check(L, c->tol.check, e->errors[k], want, g, n, ok, why, why_size, err,
	                      err_size, &line);
	free(want);
	free(g);
	if (rc != 0)
		*at = qc_chunk_at(c->tol.check_node, line);
	return rc;
}
