#include "judge/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/locate.h"
#include "reference/dtype.h"
#include "reference/ggml.h"
#include "run/poison.h"

const char *const qc_hist_labels[QC_HIST_BINS] = {
        "<=-65", "-64..-17", "-16..-5", "-4", "-3",    "-2",     "-1",   "0",
        "1",     "2",        "3",       "4",  "5..16", "17..64", ">=65", "nonfinite"};

int qc_hist_bin(int64_t e)
{
	if (e <= -65)
		return 0;
	if (e <= -17)
		return 1;
	if (e <= -5)
		return 2;
	if (e <= 4)
		return (int)(e + 7); /* -4 -> 3 ... 4 -> 11 */
	if (e <= 16)
		return 12;
	if (e <= 64)
		return 13;
	return 14;
}

const char *qc_unit_name(qc_unit u)
{
	static const char *const n[] = {"lsb", "steps", "ulp"};
	return n[u];
}

static const char *const verdict_names[QC_N_VERDICTS] = {"PASS",
                                                         "PASS_WITHIN_TOLERANCE",
                                                         "FAIL",
                                                         "NOT_SUPPORTED",
                                                         "EXPECTED_ERROR",
                                                         "ERROR",
                                                         "CRASH",
                                                         "TIMEOUT",
                                                         "NONDETERMINISTIC"};

const char *qc_verdict_name(qc_verdict v)
{
	return v < QC_N_VERDICTS ? verdict_names[v] : "?";
}

int qc_verdict_conforms(qc_verdict v)
{
	return v == QC_PASS || v == QC_PASS_WITHIN_TOLERANCE || v == QC_NOT_SUPPORTED ||
	       v == QC_EXPECTED_ERROR;
}

int qc_verdict_of_name(const char *name)
{
	for (int v = 0; name && v < QC_N_VERDICTS; v++)
		if (!strcmp(name, verdict_names[v]))
			return v;
	return -1;
}

int qc_verdict_judged(qc_verdict v)
{
	return v == QC_PASS || v == QC_PASS_WITHIN_TOLERANCE || v == QC_FAIL;
}

void qc_metrics_init(qc_metrics *m, qc_unit unit)
{
	memset(m, 0, sizeof *m);
	m->unit = unit;
	m->along.axis = -1;
}

void qc_metrics_merge(qc_metrics *dst, const qc_metrics *src)
{
	dst->n += src->n;
	dst->mismatches += src->mismatches;
	dst->unpredictable += src->unpredictable;
	dst->out_of_range += src->out_of_range;
	dst->sum_e += src->sum_e;
	dst->sum_e2 += src->sum_e2;
	dst->in_band += src->in_band;
	dst->in_fused += src->in_fused;
	dst->tol_mismatches += src->tol_mismatches;
	dst->tol_sum_e += src->tol_sum_e;
	dst->tol_sum_e2 += src->tol_sum_e2;
	dst->tol_max_abs = fmax(dst->tol_max_abs, src->tol_max_abs);
	for (int i = 0; i < QC_HIST_BINS; i++) {
		dst->hist[i] += src->hist[i];
		dst->hist_out[i] += src->hist_out[i];
	}
	if (src->max_abs > dst->max_abs || isnan(src->max_abs))
		dst->max_abs = src->max_abs;
	if (src->max_ulp > dst->max_ulp)
		dst->max_ulp = src->max_ulp;
	if (src->max_abs_err > dst->max_abs_err)
		dst->max_abs_err = src->max_abs_err;
	if (src->max_rel_err > dst->max_rel_err)
		dst->max_rel_err = src->max_rel_err;
}

double qc_metrics_bias(const qc_metrics *m)
{
	return m->n ? m->sum_e / (double)m->n : 0;
}

double qc_metrics_mse(const qc_metrics *m)
{
	return m->n ? m->sum_e2 / (double)m->n : 0;
}

/* Position of v on the ordered line of values of dtype t: adjacent values differ by 1. */
static int64_t ordered(qcf_dtype t, double v)
{
	if (qref_dtype_is_small_float(t) || t == QCF_FLOAT8E8M0) {
		/* the number of the type's values between v and 0 (v a value of the type) */
		double a = fabs(v);
		int64_t n = 0;
		unsigned codes = t == QCF_FLOAT8E8M0   ? 256
		                 : t == QCF_FLOAT4E2M1 ? 8 /* the positive half of each */
		                 : t == QCF_FLOAT6E3M2 || t == QCF_FLOAT6E2M3 ? 32
		                                                              : 128;
		for (unsigned c = 0; c < codes; c++) {
			double x = t == QCF_FLOAT8E8M0 ? qref_e8m0_to_f32((uint8_t)c)
			                               : qref_small_to_f32(t, (uint8_t)c);
			n += isfinite(x) && x > 0 && x <= a;
		}
		if (isinf(v))
			n++;
		return v < 0 ? -n : n;
	}
	int64_t bits;
	if (t == QCF_FLOAT64) {
		memcpy(&bits, &v, 8);
		return bits < 0 ? INT64_MIN - bits : bits;
	}
	uint32_t b32;
	if (t == QCF_FLOAT16)
		b32 = (uint32_t)qref_f32_to_f16((float)v) << 16;
	else if (t == QCF_BFLOAT16)
		b32 = (uint32_t)qref_f32_to_bf16((float)v) << 16;
	else {
		float f = (float)v;
		memcpy(&b32, &f, 4);
	}
	int32_t s = (int32_t)b32;
	int64_t o = s < 0 ? (int64_t)INT32_MIN - s : s;
	return (t == QCF_FLOAT16 || t == QCF_BFLOAT16) ? o >> 16 : o;
}

static double ulp_distance(qcf_dtype t, double a, double b)
{
	if (a == b)
		return 0; /* also +0 vs -0 */
	int64_t x = ordered(t, a), y = ordered(t, b);
	double d = (double)x - (double)y;
	return fabs(d);
}

static double magnitude(double e)
{
	return isnan(e) ? INFINITY : fabs(e);
}

/* Is element x worse than element y: further beyond the legal band, then a larger error? */
static int worse(const qc_worst *x, const qc_worst *y)
{
	double a = magnitude(x->beyond), b = magnitude(y->beyond);
	if (a != b)
		return a > b;
	return magnitude(x->error) > magnitude(y->error);
}

static void add_worst(qc_metrics *m, const qc_worst *w)
{
	int pos = m->n_worst;
	while (pos > 0 && worse(w, &m->worst[pos - 1]))
		pos--;
	if (pos >= QC_WORST)
		return;
	int last = m->n_worst < QC_WORST ? m->n_worst : QC_WORST - 1;
	memmove(&m->worst[pos + 1], &m->worst[pos], (size_t)(last - pos) * sizeof m->worst[0]);
	m->worst[pos] = *w;
	if (m->n_worst < QC_WORST)
		m->n_worst++;
}

/* Where the index along m->along.axis is: element i is at (i / inner) % dim. */
typedef struct along_geom {
	uint64_t inner, dim;
} along_geom;

/* A failing element: among the worst, and counted along the axis. */
static void add_failing(qc_metrics *m, const along_geom *g, const qc_worst *w)
{
	uint64_t i = w->index;
	add_worst(m, w);
	qc_along *a = &m->along;
	if (a->axis < 0)
		return;
	int64_t at = (int64_t)(i / g->inner % g->dim);
	for (int j = 0; j < a->n; j++)
		if (a->index[j] == at) {
			a->count[j]++;
			return;
		}
	if (a->n < QC_ALONG_KEYS) {
		a->index[a->n] = at;
		a->count[a->n++] = 1;
	} else {
		a->other++;
	}
}

/* got - want in the output's unit; NAN when exactly one side is not finite. */
static double unit_error(qcf_dtype t, qc_unit unit, double want, double got, double step)
{
	if (want == got || (isnan(want) && isnan(got)))
		return 0;
	if (unit == QC_UNIT_LSB)
		return got - want;
	if (!isfinite(want) || !isfinite(got))
		return NAN;
	if (unit == QC_UNIT_STEPS && step > 0) {
		/* grid values are (q - zp) * scale rounded to the float type: a whole number of
		 * steps comes out within float rounding of an integer; count it exactly */
		double e = (got - want) / step, k = nearbyint(e);
		/* ...but a value off the grid by float rounding alone is not 0 steps: it differs */
		return k != 0 && fabs(e - k) <= 1e-3 * fabs(k) ? k : e;
	}
	return (got > want ? 1 : -1) * ulp_distance(t, want, got);
}

void qc_compare_output(const qcf_tensor *expected, const qcf_tensor *got,
                       const qref_output_detail *d, const double *band_lo, const double *band_hi,
                       double *errors, int along_axis, qc_metrics *m)
{
	size_t n = qref_numel(expected->rank, expected->shape);
	int is_float = qref_dtype_is_float(expected->dtype);
	/* GGML block outputs: in steps of the expected block's step (qref_ggml_error) */
	const int ggml = qref_ggml_is_block(expected->dtype) && got->dtype == expected->dtype;
	int stepped = 0;
	if (is_float && d && d->step)
		for (size_t i = 0; i < n && !stepped; i++)
			stepped = d->step[i] > 0;
	qc_metrics_init(m, ggml        ? QC_UNIT_STEPS
	                   : !is_float ? QC_UNIT_LSB
	                   : stepped   ? QC_UNIT_STEPS
	                               : QC_UNIT_ULP);
	along_geom g = {1, 1};
	m->along.axis = along_axis >= 0 && along_axis < expected->rank ? along_axis : -1;
	if (m->along.axis >= 0) {
		for (int32_t k = m->along.axis + 1; k < expected->rank; k++)
			g.inner *= (uint64_t)expected->shape[k];
		g.dim = (uint64_t)expected->shape[m->along.axis];
		if (!g.inner || !g.dim) /* no elements */
			m->along.axis = -1;
	}
	for (size_t i = 0; i < n; i++) {
		double x = qref_get(expected, i), y = qref_get(got, i);
		double step = stepped ? d->step[i] : 0;
		if (errors)
			errors[i] = 0;
		if (got->dtype == QCF_BOOL)
			y = ((const uint8_t *)
			             got->data)[i]; /* the ABI's bools are the bytes 0 and 1 */
		if (d && d->any && d->any[i]) {
			m->unpredictable++;
			double lo = d->lo ? d->lo[i] : -INFINITY, hi = d->hi ? d->hi[i] : INFINITY;
			if (!(y >= lo && y <= hi)) {
				m->out_of_range++;
				add_failing(m, &g,
				            &(qc_worst){.index = i,
				                        .expected = NAN,
				                        .got = y,
				                        .error = NAN,
				                        .lo = lo,
				                        .hi = hi,
				                        .beyond = NAN});
			}
			continue;
		}
		m->n++;
		double e = ggml ? qref_ggml_error(expected, got, i)
		                : unit_error(expected->dtype, m->unit, x, y, step);
		if (errors)
			errors[i] = e;
		/* the legal band: the expected value and every legal rounding of it */
		double lo = x, hi = x;
		if (band_lo && band_hi && !isnan(x)) {
			lo = fmin(x, band_lo[i]);
			hi = fmax(x, band_hi[i]);
		}
		double near = y < lo ? lo : y > hi ? hi : isnan(y) ? x : y;
		double et = ggml ? e : unit_error(expected->dtype, m->unit, near, y, step);
		if (is_float && et != 0) {
			double u = isnan(et) ? INFINITY : ulp_distance(expected->dtype, near, y);
			double ae = isnan(et) ? INFINITY : fabs(y - near);
			double re = near != 0 ? ae / fabs(near) : INFINITY;
			m->max_ulp = fmax(m->max_ulp, u);
			m->max_abs_err = fmax(m->max_abs_err, ae);
			m->max_rel_err = fmax(m->max_rel_err, re);
		}
		if (e != 0 && et == 0)
			m->in_band++;
		if (et != 0) {
			m->tol_mismatches++;
			if (!isnan(et)) {
				m->tol_sum_e += et;
				m->tol_sum_e2 += et * et;
			}
			m->tol_max_abs = isnan(et) ? INFINITY : fmax(m->tol_max_abs, fabs(et));
		}
		if (e != 0)
			m->mismatches++;
		qc_worst w = {.index = i,
		              .expected = x,
		              .got = y,
		              .error = e,
		              .lo = lo,
		              .hi = hi,
		              .beyond = et};
		if (isnan(e)) {
			m->hist[QC_HIST_NAN]++;
			m->hist_out[QC_HIST_NAN] += et != 0;
			m->max_abs = INFINITY;
			add_failing(m, &g, &w);
			continue;
		}
		/* bin k holds k-1 < |e| <= k: a fraction of a step is never counted as exact */
		int bin = qc_hist_bin((int64_t)copysign(ceil(fmin(fabs(e), 1e18)), e));
		m->hist[bin]++;
		m->hist_out[bin] += et != 0;
		m->sum_e += e;
		m->sum_e2 += e * e;
		if (fabs(e) > m->max_abs)
			m->max_abs = fabs(e);
		if (e != 0)
			add_failing(m, &g, &w);
	}
}

int qc_tolerance_check(const qc_tolerance *tol, const qc_metrics *m, char *why, size_t why_size)
{
	const char *u = qc_unit_name(m->unit);
	if (m->out_of_range) {
		snprintf(why, why_size, "%llu unpredictable %s outside %s allowed range",
		         (unsigned long long)m->out_of_range,
		         m->out_of_range == 1 ? "element" : "elements",
		         m->out_of_range == 1 ? "its" : "their");
		return 0;
	}
	if (m->mismatches == 0)
		return 1;
	if (tol->exact) {
		snprintf(why, why_size, "%llu of %llu %s %s (max |e| %.6g %s); tolerance is exact",
		         (unsigned long long)m->mismatches, (unsigned long long)m->n,
		         m->n == 1 ? "element" : "elements",
		         m->mismatches == 1 ? "differs" : "differ", m->max_abs, u);
		return 0;
	}
	/* Bounds apply to the errors left outside the legal rounding band (all of them when
	 * the tolerance names no rounding). */
	if (m->hist[QC_HIST_NAN] && isinf(m->tol_max_abs)) {
		snprintf(why, why_size,
		         "%llu %s non-finite where the expected value is not (or the reverse)",
		         (unsigned long long)m->hist[QC_HIST_NAN],
		         m->hist[QC_HIST_NAN] == 1 ? "element" : "elements");
		return 0;
	}
	double n = m->n ? (double)m->n : 1;
	double rate = (double)m->tol_mismatches / n, bias = m->tol_sum_e / n,
	       mse = m->tol_sum_e2 / n;
	int bounded = tol->max_abs >= 0 || tol->steps >= 0 || tol->bias >= 0 || tol->mse >= 0 ||
	              tol->mismatch_rate >= 0 || tol->ulp >= 0 || tol->abs >= 0 || tol->rel >= 0;
	if (!bounded && (tol->n_roundings || tol->fused) && m->tol_mismatches) {
		snprintf(why, why_size, "%llu %s outside every legal %s (max %.6g %s beyond)",
		         (unsigned long long)m->tol_mismatches,
		         m->tol_mismatches == 1 ? "element" : "elements",
		         tol->n_roundings ? "rounding" : "form (graph or fused)", m->tol_max_abs,
		         u);
		return 0;
	}
	double max_abs = tol->max_abs;
	if (m->unit == QC_UNIT_STEPS && tol->steps >= 0)
		max_abs = max_abs >= 0 ? fmin(max_abs, tol->steps) : tol->steps;
	if (max_abs >= 0 && m->tol_max_abs > max_abs) {
		snprintf(why, why_size, "max |e| %.6g %s > %.6g%s", m->tol_max_abs, u, max_abs,
		         tol->n_roundings ? " beyond the legal roundings" : "");
		return 0;
	}
	if (tol->bias >= 0 && fabs(bias) > tol->bias) {
		snprintf(why, why_size, "|bias| %.6g %s > %.6g", fabs(bias), u, tol->bias);
		return 0;
	}
	if (tol->mse >= 0 && mse > tol->mse) {
		snprintf(why, why_size, "mse %.6g > %.6g", mse, tol->mse);
		return 0;
	}
	if (tol->mismatch_rate >= 0 && rate > tol->mismatch_rate) {
		snprintf(why, why_size, "mismatch rate %.6g > %.6g", rate, tol->mismatch_rate);
		return 0;
	}
	if (m->unit != QC_UNIT_LSB) {
		if (tol->ulp >= 0 && m->max_ulp > tol->ulp) {
			snprintf(why, why_size, "max %.6g ulp > %.6g", m->max_ulp, tol->ulp);
			return 0;
		}
		if (tol->abs >= 0 && m->max_abs_err > tol->abs) {
			snprintf(why, why_size, "max abs error %.6g > %.6g", m->max_abs_err,
			         tol->abs);
			return 0;
		}
		if (tol->rel >= 0 && m->max_rel_err > tol->rel) {
			snprintf(why, why_size, "max rel error %.6g > %.6g", m->max_rel_err,
			         tol->rel);
			return 0;
		}
	}
	return 1;
}

const char *qc_chain_mode_name(int mode)
{
	return mode == QC_CHAIN_OPBYOP ? "op by op" : mode == QC_CHAIN_FUSED ? "fused" : "";
}

/* A chain's round_once contract: the elements that differ from the graph's answer and lie
 * between it and the fused form's (the fused form was needed). */
static uint64_t fused_count(const qc_expected *ref, int k, const qcf_tensor *got)
{
	if (!ref->fused[k])
		return 0;
	qcf_tensor f = ref->out[k];
	f.data = ref->fused[k];
	size_t n = qref_numel(f.rank, f.shape);
	uint64_t count = 0;
	for (size_t i = 0; i < n; i++) {
		double x = qref_get(&ref->out[k], i), y = qref_get(&f, i), g = qref_get(got, i);
		count += g != x && g >= fmin(x, y) && g <= fmax(x, y);
	}
	return count;
}

void qc_judge(const qc_case *c, const qc_expected *ref, const qc_exec_result *ex,
              const qcf_tensor *kernel_out, qc_result *r)
{
	memset(r, 0, sizeof *r);
	r->seconds = ex ? ex->seconds : 0;
	r->engine = -1;
	if (ex && ex->outcome == QC_EXEC_OK) {
		r->engine = ex->engine;
		memcpy(r->engine_name, ex->engine_name, sizeof r->engine_name);
	}
	if (ref->status != QCF_OK && ref->status != QCF_INVALID_PARAM) {
		r->verdict = QC_ERROR;
		snprintf(r->message, sizeof r->message, "the reference failed: %s",
		         ref->detail.message);
		return;
	}
	if (c->expect_error && ref->status == QCF_OK) {
		r->verdict = QC_ERROR;
		snprintf(r->message, sizeof r->message,
		         "spec expects an error but the reference accepts the parameters");
		return;
	}
	if (!c->expect_error && ref->status == QCF_INVALID_PARAM) {
		r->verdict = QC_ERROR;
		snprintf(r->message, sizeof r->message,
		         "the reference refuses a case the spec calls valid: %s",
		         ref->detail.message);
		return;
	}
	switch (ex->outcome) {
	case QC_EXEC_NOT_SUPPORTED:
		r->verdict = QC_NOT_SUPPORTED;
		snprintf(r->message, sizeof r->message, "%s", ex->message);
		return;
	case QC_EXEC_CRASH:
		r->verdict = QC_CRASH;
		snprintf(r->message, sizeof r->message, "%s", ex->message);
		return;
	case QC_EXEC_TIMEOUT:
		r->verdict = QC_TIMEOUT;
		snprintf(r->message, sizeof r->message, "%s", ex->message);
		return;
	case QC_EXEC_ERROR:
		r->verdict = QC_ERROR;
		snprintf(r->message, sizeof r->message, "%s", ex->message);
		return;
	case QC_EXEC_INVALID_PARAM:
		if (c->expect_error) {
			r->verdict = QC_EXPECTED_ERROR;
			snprintf(r->message, sizeof r->message,
			         "refused as expected (%s); reference rule: %s", ex->message,
			         ref->detail.message);
		} else {
			r->verdict = QC_ERROR;
			snprintf(r->message, sizeof r->message, "refused a valid case: %s",
			         ex->message);
		}
		return;
	case QC_EXEC_OK: break;
	}
	if (c->expect_error) {
		r->verdict = QC_FAIL;
		snprintf(r->message, sizeof r->message,
		         "accepted and computed parameters the semantics forbid (%s)",
		         ref->detail.message);
		return;
	}
	r->n_outputs = c->call.n_outputs;
	int exact = 1, within = 1, bad = 0;
	char why[256] = "";
	for (int k = 0; k < c->call.n_outputs; k++) {
		qc_compare_output(&ref->out[k], &kernel_out[k], &ref->detail.out[k],
		                  ref->band_lo[k], ref->band_hi[k], ref->errors[k],
		                  qc_along_axis(c, k), &r->m[k]);
		r->m[k].in_fused = fused_count(ref, k, &kernel_out[k]);
		if (r->m[k].mismatches || r->m[k].out_of_range)
			exact = 0;
		char w[256];
		if (!qc_tolerance_check(&c->tol, &r->m[k], w, sizeof w) && within) {
			within = 0;
			bad = k;
			snprintf(why, sizeof why, "output '%s': %s", c->out[k].name, w);
		}
	}
	if (ref->golden_mismatch) {
		r->verdict = QC_FAIL;
		snprintf(r->message, sizeof r->message, "REFERENCE DISAGREES WITH GOLDEN: %s",
		         ref->golden_note);
		return;
	}
	r->verdict = exact ? QC_PASS : within ? QC_PASS_WITHIN_TOLERANCE : QC_FAIL;
	if (!within) {
		/* where: the failing output's worst element, with its accumulator (locate.h) */
		char at[256] = "";
		qc_locate_worst(c, ref, r);
		if (r->m[bad].n_worst)
			qc_worst_text(c, bad, &r->m[bad].worst[0], at, sizeof at);
		snprintf(r->message, sizeof r->message, "%s%s%s", why, at[0] ? "; worst " : "", at);
	} else if (!exact) {
		uint64_t fused = 0;
		for (int k = 0; k < c->call.n_outputs; k++)
			fused += r->m[k].in_fused;
		if (fused)
			snprintf(r->message, sizeof r->message,
			         "within the fusion contract round_once: %llu %s as the fused form "
			         "(%s) rounds once where the graph rounds twice",
			         (unsigned long long)fused, fused == 1 ? "element" : "elements",
			         c->fused && c->fused->op ? c->fused->op : "?");
		else
			snprintf(r->message, sizeof r->message, "within tolerance%s%s",
			         c->tol.reason ? ": " : "", c->tol.reason ? c->tol.reason : "");
	}
	/* a failure where the kernel left the poison (poison.h) is named for what it is */
	for (int k = 0; k < c->call.n_outputs && r->verdict == QC_FAIL; k++) {
		size_t first = 0, n = qref_numel(c->out[k].rank, c->out[k].shape);
		const uint8_t *any = ref->detail.out[k].any;
		size_t left = qc_poison_left(&c->out[k], &kernel_out[k], &ref->out[k], any, &first);
		size_t defined = n; /* the elements whose answer is not any value */
		for (size_t i = 0; any && i < n; i++)
			defined -= any[i] != 0;
		if (left == defined && left)
			snprintf(r->message, sizeof r->message,
			         "output '%s' never written (element %zu still holds the poison)",
			         c->out[k].name, first);
		else if (left)
			snprintf(r->message, sizeof r->message,
			         "output '%s' partly written: %zu of %zu elements still %s the "
			         "poison, the first at element %zu",
			         c->out[k].name, left, n, left == 1 ? "holds" : "hold", first);
		if (left)
			break;
	}
	/* outputs that changed after execute returned: what a caller would have read was not
	 * final, so a right answer is no pass (runner.h) */
	if (ex->late_write) {
		char note[sizeof r->message];
		snprintf(note, sizeof note, "%s", r->message);
		if (qc_verdict_conforms(r->verdict)) {
			r->verdict = QC_ERROR;
			snprintf(r->message, sizeof r->message, "%s", ex->message);
		} else {
			snprintf(r->message, sizeof r->message, "%s; and %s", note, ex->message);
		}
	}
}
