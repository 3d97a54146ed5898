#include "gate/merge.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/afile.h"
#include "base/utf8.h"
#include "base/util.h"
#include "gate/diff.h"
#include "judge/results.h"

/* A number as the run's writer prints it: whole numbers as integers, NaN and infinities as
 * strings (harness/src/report/report.c num). */
static json_t *jnum(double v)
{
	if (isnan(v))
		return json_string("nan");
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v);
}

/* ---- per-op roll-ups from the cases, as harness/src/judge/results.c qc_stats_add does ---- */

typedef struct mout {
	char name[32];
	char unit[8];
	double n, mismatches, unpredictable, out_of_range, within;
	double max_abs, sum_e, sum_e2, max_ulp, max_abs_err, max_rel_err;
	double hist[QC_HIST_BINS];
	double hist_out[QC_HIST_BINS]; /* of hist: outside the legal band */
} mout;

typedef struct mop {
	char semantics[16], op[96];
	double cases, seconds;
	double verdicts[QC_N_VERDICTS];
	int n_outputs;
	mout out[QC_MAX_TENSORS];
} mop;

/* Adds one case output's metrics, as qc_metrics_merge does (harness/src/judge/compare.c). The sums
 * of e and e^2 come back as mean * elements; in LSB the errors are integers, so the sums are
 * whole numbers and rounding them recovers them exactly: the merged LSB bias and MSE equal
 * the unsharded run's bit for bit. In steps and ULP they agree to rounding (diff's noise). */
static void mout_add(mout *m, const json_t *o)
{
	double n = qc_json_num(json_object_get(o, "elements"));
	double se = qc_json_num(json_object_get(o, "bias")) * n,
	       se2 = qc_json_num(json_object_get(o, "mse")) * n;
	int lsb = !strcmp(m->unit, "lsb");
	m->n += n;
	m->mismatches += qc_json_num(json_object_get(o, "mismatches"));
	m->unpredictable += qc_json_num(json_object_get(o, "unpredictable"));
	m->out_of_range += qc_json_num(json_object_get(o, "out_of_range"));
	m->within += qc_json_num(json_object_get(o, "within_rounding"));
	m->sum_e += lsb && isfinite(se) ? nearbyint(se) : se;
	m->sum_e2 += lsb && isfinite(se2) ? nearbyint(se2) : se2;
	double ma = qc_json_num(json_object_get(o, "max_abs"));
	if (ma > m->max_abs || isnan(ma))
		m->max_abs = ma;
	if (!lsb) {
		double u = qc_json_num(json_object_get(o, "max_ulp")),
		       a = qc_json_num(json_object_get(o, "max_abs_error")),
		       r = qc_json_num(json_object_get(o, "max_rel_error"));
		if (u > m->max_ulp)
			m->max_ulp = u;
		if (a > m->max_abs_err)
			m->max_abs_err = a;
		if (r > m->max_rel_err)
			m->max_rel_err = r;
	}
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(o, "histogram"), key, v)
	{
		for (int b = 0; b < QC_HIST_BINS; b++)
			if (!strcmp(key, qc_hist_labels[b]))
				m->hist[b] += qc_json_num(v);
	}
	/* without legal roundings other than the answer, every element that differs is
	 * outside the band: the histogram's bins but 0 */
	json_t *out = json_object_get(o, "histogram_outside_band");
	json_object_foreach(out ? out : json_object_get(o, "histogram"), key, v)
	{
		for (int b = 0; b < QC_HIST_BINS; b++)
			if (!strcmp(key, qc_hist_labels[b]) && (out || strcmp(key, "0")))
				m->hist_out[b] += qc_json_num(v);
	}
}

/* The non-empty bins of h as a JSON object. */
static json_t *hist_object(const double *h)
{
	json_t *o = json_object();
	for (int b = 0; b < QC_HIST_BINS; b++)
		if (h[b])
			set(o, qc_hist_labels[b], jnum(h[b]));
	return o;
}

static json_t *mout_json(const mout *m)
{
	json_t *o = json_object();
	set(o, "name", qc_json_new_string(m->name));
	set(o, "unit", qc_json_new_string(m->unit));
	set(o, "elements", jnum(m->n));
	set(o, "mismatches", jnum(m->mismatches));
	set(o, "unpredictable", jnum(m->unpredictable));
	set(o, "out_of_range", jnum(m->out_of_range));
	set(o, "within_rounding", jnum(m->within));
	set(o, "max_abs", jnum(m->max_abs));
	set(o, "bias", jnum(m->n ? m->sum_e / m->n : 0));
	set(o, "mse", jnum(m->n ? m->sum_e2 / m->n : 0));
	if (strcmp(m->unit, "lsb") != 0) {
		set(o, "max_ulp", jnum(m->max_ulp));
		set(o, "max_abs_error", jnum(m->max_abs_err));
		set(o, "max_rel_error", jnum(m->max_rel_err));
	}
	set(o, "histogram", hist_object(m->hist));
	/* as run writes it: with legal roundings other than the answer */
	if (m->within)
		set(o, "histogram_outside_band", hist_object(m->hist_out));
	return o;
}

static json_t *verdicts_json(const double *v)
{
	json_t *o = json_object();
	for (int i = 0; i < QC_N_VERDICTS; i++)
		set(o, qc_verdict_name((qc_verdict)i), jnum(v[i]));
	return o;
}

/* ---- checks that the reports are the shards of one run ---- */

static int shard_of(const json_t *r, int *index, int *count)
{
	const json_t *s = json_object_get(json_object_get(r, "run"), "shard");
	if (!s || json_is_null(s)) {
		*index = *count = 1;
		return 0;
	}
	*index = (int)qc_json_int(json_object_get(s, "index"));
	*count = (int)qc_json_int(json_object_get(s, "count"));
	return *count >= 1 && *index >= 1 && *index <= *count ? 0 : -1;
}

/* The fields of the spec list that must agree (each shard counts only its own cases). */
static int same_specs(const json_t *a, const json_t *b)
{
	if (json_array_size(a) != json_array_size(b))
		return 0;
	for (size_t i = 0; i < json_array_size(a); i++) {
		const json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
		if (strcmp(qc_json_str(x, "path"), qc_json_str(y, "path")) ||
		    strcmp(qc_json_str(x, "sha256"), qc_json_str(y, "sha256")))
			return 0;
	}
	return 1;
}

static int same_waivers(const json_t *a, const json_t *b)
{
	if (json_array_size(a) != json_array_size(b))
		return 0;
	for (size_t i = 0; i < json_array_size(a); i++) {
		const json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
		static const char *const keys[] = {"case", "reason", "expires"};
		for (int k = 0; k < 3; k++)
			if (!json_equal(json_object_get(x, keys[k]), json_object_get(y, keys[k])))
				return 0;
	}
	return 1;
}

static int cmp_ordinal(const void *a, const void *b)
{
	const qc_merge_case *x = a, *y = b;
	if (x->ordinal != y->ordinal)
		return x->ordinal < y->ordinal ? -1 : 1;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The case of the merge order at i: a new reference, or NULL with the reason in err. */
static json_t *merge_case(qc_report *const *reps, const qc_merge_order *order, size_t i, char *err,
                          size_t err_size)
{
	json_t *c;
	const qc_merge_case *m = &order->c[i];
	return qc_report_at(reps[m->shard], m->pos, &c, err, err_size) == 0 ? c : NULL;
}

void qc_merge_order_free(qc_merge_order *order)
{
	free(order->c);
	order->c = NULL;
	order->n = 0;
}

json_t *qc_merge_reports(qc_report *const *reps, const char *const *names, int n,
                         const char *command, qc_merge_order *order, char *err, size_t err_size)
{
	order->c = NULL;
	order->n = 0;
	if (n < 1) {
		qc_errf(err, err_size, "no reports to merge");
		return NULL;
	}
	json_t *reports[n];
	for (int i = 0; i < n; i++)
		reports[i] = qc_report_doc(reps[i]);
	const json_t *run0 = json_object_get(reports[0], "run");
	int idx0, count;
	if (shard_of(reports[0], &idx0, &count) != 0) {
		qc_errf(err, err_size,
		        "%s: run.shard is not {index, count} with 1 <= index <= count", names[0]);
		return NULL;
	}
	const char **by_shard = qc_xcalloc((size_t)count + 1, sizeof *by_shard);
	size_t total = 0;
	for (int i = 0; i < n; i++) {
		const json_t *run = json_object_get(reports[i], "run");
		int k, c;
		const char *what = NULL;
		const json_t *intr = json_object_get(reports[i], "interrupted");
		if (json_is_object(intr)) {
			char by[64];
			qc_errf(err, err_size,
			        "%s is an interrupted run (%s after %llu of %llu cases): finish it "
			        "with qconform run --resume %s, then merge",
			        names[i], qc_report_stopped_by(intr, by, sizeof by),
			        qc_json_key_count(intr, "cases_done"),
			        qc_json_key_count(intr, "cases_planned"),
			        json_is_string(json_object_get(intr, "journal"))
			                ? qc_json_str(intr, "journal")
			                : "JOURNAL");
			free(by_shard);
			return NULL;
		}
		if (shard_of(reports[i], &k, &c) != 0)
			what = "run.shard is not {index, count} with 1 <= index <= count";
		else if (strcmp(qc_json_str(json_object_get(run, "plugin"), "sha256"),
		                qc_json_str(json_object_get(run0, "plugin"), "sha256")))
			what = "another plugin (sha256)";
		else if (!json_equal(json_object_get(json_object_get(run, "plugin"), "options"),
		                     json_object_get(json_object_get(run0, "plugin"), "options")))
			what = "other plugin options";
		else if (!json_equal(json_object_get(run, "seed"), json_object_get(run0, "seed")))
			what = "another seed";
		else if (!same_specs(json_object_get(run, "specs"), json_object_get(run0, "specs")))
			what = "another spec set (paths or sha256)";
		else if (!json_equal(json_object_get(run, "filters"),
		                     json_object_get(run0, "filters")))
			what = "other filters";
		else if ((json_object_get(run, "case_names") ||
		          json_object_get(run0, "case_names")) &&
		         !json_equal(json_object_get(run, "case_names"),
		                     json_object_get(run0, "case_names")))
			what = "other --case names";
		else if (!json_equal(json_object_get(run, "profile"),
		                     json_object_get(run0, "profile")))
			what = "another profile";
		else if (!same_waivers(json_object_get(reports[i], "waivers"),
		                       json_object_get(reports[0], "waivers")))
			what = "other waivers";
		else if (c != count)
			what = "another shard count";
		if (what) {
			qc_errf(err, err_size, "%s has %s than %s: not shards of one run", names[i],
			        what, names[0]);
			free(by_shard);
			return NULL;
		}
		if (by_shard[k]) {
			qc_errf(err, err_size, "shard %d/%d given twice (%s, %s)", k, count,
			        by_shard[k], names[i]);
			free(by_shard);
			return NULL;
		}
		by_shard[k] = names[i];
		total += qc_report_ncases(reps[i]);
	}
	for (int k = 1; k <= count; k++)
		if (!by_shard[k]) {
			qc_errf(err, err_size, "shard %d/%d is missing", k, count);
			free(by_shard);
			return NULL;
		}
	free(by_shard);

	/* the cases in unsharded order: where each is (24 bytes a case), sorted by ordinal; the
	 * cases are read again from the shards one at a time */
	qc_merge_case *cases = qc_xcalloc(total ? total : 1, sizeof *cases);
	size_t nc = 0;
	for (int i = 0; i < n; i++) {
		json_t *c;
		int rc;
		qc_report_rewind(reps[i]);
		while ((rc = qc_report_next(reps[i], &c, err, err_size)) > 0) {
			if (!json_is_number(json_object_get(c, "ordinal"))) {
				qc_errf(err, err_size, "%s: case %s has no ordinal", names[i],
				        qc_json_str(c, "name"));
				rc = -1;
			} else if (nc == total) {
				qc_errf(err, err_size, "%s: changed while read", names[i]);
				rc = -1;
			} else {
				cases[nc++] =
				        (qc_merge_case){qc_json_int(json_object_get(c, "ordinal")),
				                        qc_report_pos_of_last(reps[i]), i};
			}
			json_decref(c);
			if (rc < 0)
				break;
		}
		if (rc < 0) {
			free(cases);
			return NULL;
		}
	}
	if (nc)
		qsort(cases, nc, sizeof *cases, cmp_ordinal);
	order->c = cases;
	order->n = nc;
	for (size_t i = 0; i < nc; i++)
		if (cases[i].ordinal != (json_int_t)i) {
			json_t *c = merge_case(reps, order, i, err, err_size);
			if (c)
				qc_errf(err, err_size,
				        "the shards' cases are not one run's: ordinal %zu is %s "
				        "(%s)",
				        i,
				        i && cases[i].ordinal < (json_int_t)i + 1 ? "given twice"
				                                                  : "missing",
				        qc_json_str(c, "name"));
			json_decref(c);
			qc_merge_order_free(order);
			return NULL;
		}

	json_t *out = json_object();
	set(out, "format", json_string("qconform-report"));
	set(out, "format_version", json_integer(1));
	json_t *run = json_deep_copy(run0);
	set(run, "command", qc_json_new_string(command));
	set(run, "shard", json_null());
	set(run, "merged_shards", json_integer(count));
	const char *started = qc_json_str(run0, "started");
	json_t *specs = json_object_get(run, "specs");
	for (int i = 1; i < n; i++) {
		const json_t *ri = json_object_get(reports[i], "run");
		if (strcmp(qc_json_str(ri, "started"), started) < 0)
			started = qc_json_str(ri, "started");
		for (size_t s = 0; s < json_array_size(specs); s++) {
			json_t *sp = json_array_get(specs, s);
			double c =
			        qc_json_num(json_object_get(sp, "cases")) +
			        qc_json_num(json_object_get(
			                json_array_get(json_object_get(ri, "specs"), s), "cases"));
			set(sp, "cases", jnum(c));
		}
	}
	set(run, "started", qc_json_new_string(started));
	set(out, "run", run);

	json_t *jcases = json_array(); /* written from the order by qc_report_write */
	mop *ops = NULL;
	int n_ops = 0, cap = 0;
	double verdicts[QC_N_VERDICTS] = {0}, waived = 0;
	qc_run_stats es = {0}; /* its engines only: the judged cases by engine */
	int conforms = nc > 0;
	for (size_t i = 0; i < nc; i++) {
		json_t *c = merge_case(reps, order, i, err, err_size);
		if (!c) {
			free(ops);
			json_decref(jcases);
			json_decref(out);
			qc_merge_order_free(order);
			return NULL;
		}
		mop *o = NULL;
		for (int k = 0; k < n_ops && !o; k++)
			if (!strcmp(ops[k].op, qc_json_str(c, "op")) &&
			    !strcmp(ops[k].semantics, qc_json_str(c, "semantics")))
				o = &ops[k];
		if (!o) {
			QC_GROW(ops, n_ops, cap, 16);
			o = &ops[n_ops++];
			memset(o, 0, sizeof *o);
			qc_utf8_copy(o->semantics, sizeof o->semantics,
			             qc_json_str(c, "semantics"));
			qc_utf8_copy(o->op, sizeof o->op, qc_json_str(c, "op"));
		}
		int v = qc_verdict_of_name(qc_json_str(c, "verdict"));
		o->cases++;
		if (v >= 0) {
			o->verdicts[v]++;
			verdicts[v]++;
			if (qc_verdict_judged((qc_verdict)v))
				es.engines[qc_engine_of_kind(
				        qc_json_str(json_object_get(c, "engine"), "kind"))]++;
		}
		o->seconds += qc_json_num(json_object_get(c, "seconds"));
		if (json_object_get(c, "waived"))
			waived++;
		conforms &= qc_report_case_allowed(c);
		size_t j;
		json_t *out_m;
		json_array_foreach(json_object_get(c, "outputs"), j, out_m)
		{
			const char *name = qc_json_str(out_m, "name");
			int k;
			for (k = 0; k < o->n_outputs && strcmp(o->out[k].name, name); k++)
				;
			if (k == o->n_outputs) {
				if (k == QC_MAX_TENSORS)
					continue;
				qc_utf8_copy(o->out[k].name, sizeof o->out[k].name, name);
				qc_utf8_copy(o->out[k].unit, sizeof o->out[k].unit,
				             qc_json_str(out_m, "unit"));
				o->n_outputs++;
			}
			mout_add(&o->out[k], out_m);
		}
		json_decref(c);
	}
	set(out, "cases", jcases);
	json_t *jops = json_array();
	for (int i = 0; i < n_ops; i++) {
		json_t *o = json_object();
		set(o, "semantics", qc_json_new_string(ops[i].semantics));
		set(o, "op", qc_json_new_string(ops[i].op));
		set(o, "cases", jnum(ops[i].cases));
		set(o, "verdicts", verdicts_json(ops[i].verdicts));
		set(o, "seconds", jnum(ops[i].seconds));
		json_t *outs = json_array();
		for (int k = 0; k < ops[i].n_outputs; k++)
			json_array_append_new(outs, mout_json(&ops[i].out[k]));
		set(o, "outputs", outs);
		json_array_append_new(jops, o);
	}
	set(out, "ops", jops);

	/* waivers: the same list in every shard; counts add up, expired in any shard counts */
	const json_t *w0 = json_object_get(reports[0], "waivers");
	if (w0) {
		json_t *ws = json_deep_copy(w0);
		for (size_t k = 0; k < json_array_size(ws); k++) {
			json_t *w = json_array_get(ws, k);
			double matched = 0, applied = 0;
			int expired = 0;
			for (int i = 0; i < n; i++) {
				const json_t *wi =
				        json_array_get(json_object_get(reports[i], "waivers"), k);
				matched += qc_json_num(json_object_get(wi, "matched"));
				applied += qc_json_num(json_object_get(wi, "applied"));
				expired |= json_is_true(json_object_get(wi, "expired"));
			}
			set(w, "matched", jnum(matched));
			set(w, "applied", jnum(applied));
			set(w, "expired", json_boolean(expired));
			conforms &= !expired;
		}
		set(out, "waivers", ws);
	}

	/* the profile's required ops, counted again over the merged ops */
	const json_t *p0 = json_object_get(reports[0], "profile");
	if (p0) {
		json_t *p = json_deep_copy(p0);
		set(p, "cases", jnum((double)nc));
		size_t k;
		json_t *req;
		int n_run = 0, n_refused = 0; /* required ops with cases; of them, refused whole */
		json_array_foreach(json_object_get(p, "required_ops"), k, req)
		{
			double none[QC_N_VERDICTS] = {0}, *v = none, cases_of = 0;
			for (int i = 0; i < n_ops; i++) {
				char key[128];
				snprintf(key, sizeof key, "%s/%s", ops[i].semantics, ops[i].op);
				if (!strcmp(key, qc_json_str(req, "op"))) {
					v = ops[i].verdicts;
					cases_of = ops[i].cases;
				}
			}
			set(req, "cases", jnum(cases_of));
			set(req, "verdicts", verdicts_json(v));
			n_run += cases_of > 0;
			n_refused += cases_of > 0 && v[QC_NOT_SUPPORTED] == cases_of;
		}
		/* every required op refused whole: as qc_run_conforms (which also tells a negative
		 * case refused apart; a report's roll-up does not) */
		if (n_run && n_refused == n_run)
			conforms = 0;
		set(out, "profile", p);
	}
	free(ops);

	/* a run in which the kernel took no case verified nothing */
	if (verdicts[QC_NOT_SUPPORTED] == (double)nc)
		conforms = 0;
	json_t *sum = json_object();
	set(sum, "cases", jnum((double)nc));
	set(sum, "verdicts", verdicts_json(verdicts));
	set(sum, "waived", jnum(waived));
	const char *req = json_string_value(
	        json_object_get(json_object_get(reports[0], "run"), "require_engine"));
	if (qc_stats_engines_reported(&es) || req) {
		json_t *e = json_object();
		for (int k = 0; k <= QCF_ENGINE_COUNT; k++)
			if (es.engines[k])
				set(e, qcf_engine_name(k), jnum((double)es.engines[k]));
		set(sum, "engines", e);
		if (req) {
			uint64_t breaches = qc_stats_engine_breaches(&es, req);
			set(sum, "engine_breaches", jnum((double)breaches));
			conforms &= !breaches;
		}
	}
	set(sum, "conforms", json_boolean(conforms));
	const char *finished = "";
	double wall = 0;
	for (int i = 0; i < n; i++) {
		const json_t *s = json_object_get(reports[i], "summary");
		if (strcmp(qc_json_str(s, "finished"), finished) > 0)
			finished = qc_json_str(s, "finished");
		/* the work of every shard, as if one machine had run them one after another */
		wall += qc_json_num(json_object_get(s, "wall_seconds"));
	}
	set(sum, "finished", qc_json_new_string(finished));
	set(sum, "wall_seconds", json_real(floor(wall * 1000 + 0.5) / 1000));
	set(out, "summary", sum);
	return out;
}

static int dump_line(FILE *f, const json_t *v)
{
	return json_dumpf(v, f, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
}

int qc_report_write(const char *path, const json_t *r, qc_report *const *reps,
                    const qc_merge_order *order)
{
	qc_afile af;
	char err[1200];
	if (qc_afile_open(&af, path, err, sizeof err) != 0)
		return -1;
	FILE *f = af.f;
	int bad = 0;
	const char *key;
	json_t *v;
	fputs("{", f);
	int first = 1;
	json_object_foreach((json_t *)r, key, v)
	{
		fputs(first ? "\n\"" : ",\n\"", f);
		fputs(key, f);
		fputs("\": ", f);
		first = 0;
		if (!strcmp(key, "cases") || !strcmp(key, "ops")) {
			/* one element a line, as run writes them */
			fputs("[", f);
			size_t i;
			json_t *c;
			json_array_foreach(v, i, c)
			{
				fputs(i ? ",\n " : "\n ", f);
				bad |= dump_line(f, c);
			}
			for (size_t k = 0; order && !strcmp(key, "cases") && k < order->n && !bad;
			     k++) {
				char rerr[1200];
				if (!(c = merge_case(reps, order, k, rerr, sizeof rerr))) {
					fprintf(stderr, "qconform merge: %s\n", rerr);
					bad = 1;
					break;
				}
				fputs(k ? ",\n " : "\n ", f);
				bad |= dump_line(f, c);
				json_decref(c);
			}
			fputs("\n]", f);
		} else {
			bad |= dump_line(f, v);
		}
	}
	fputs("\n}\n", f);
	if (bad) {
		qc_afile_abort(&af);
		errno = EIO;
		return -1;
	}
	int e = 0, rc = qc_afile_commit(&af, err, sizeof err);
	if (rc)
		e = errno;
	errno = e;
	return rc;
}
