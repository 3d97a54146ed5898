/*
 * diagnose: which rule explains a kernel's outputs (diagnose.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "judge/diagnose.h"
#include "reference/dtype.h"

/* A failing case's elements get a bit per hypothesis (equal to the kernel's or not) for the
 * split between two rules, up to this many elements. */
#define DIAG_BITMAP_MAX 65536

struct qc_diag_case {
	const qc_case *c;
	const qc_expected *e;
	void *const *kout;
	uint64_t seq; /* the case's position among the op's failing (passing) cases */
	void *owner;
	void (*release)(void *);
	size_t n_elems;
	uint8_t *agree[QC_DIAG_MAX_HYPS]; /* failing cases: bit i, element i equals the kernel's */
};

/* An op's cases kept: failing and passing, each thinned by its stride. */
typedef struct op_keep {
	qc_op_diagnosis d;
	qc_diag_case fail[QC_DIAG_FAILING], pass[QC_DIAG_PASSING];
	uint64_t fail_stride, pass_stride;
	qc_diag_case merged[QC_DIAG_FAILING + QC_DIAG_PASSING];
} op_keep;

struct qc_diagnosis {
	op_keep **ops;
	int n_ops, cap;
};

const char *qc_diag_status_name(qc_diag_status s)
{
	switch (s) {
	case QC_DIAG_EXPLAINED: return "explained";
	case QC_DIAG_MIXED: return "mixed";
	case QC_DIAG_PARTLY: return "partly";
	case QC_DIAG_UNEXPLAINED: return "unexplained";
	case QC_DIAG_NOT_RUN: return "not_run";
	default: return "none";
	}
}

qc_diagnosis *qc_diagnosis_new(void)
{
	return qc_xcalloc(1, sizeof(qc_diagnosis));
}

static void case_drop(qc_diag_case *k)
{
	for (int h = 0; h < QC_DIAG_MAX_HYPS; h++)
		free(k->agree[h]);
	if (k->release)
		k->release(k->owner);
	memset(k, 0, sizeof *k);
}

void qc_diagnosis_free(qc_diagnosis *D)
{
	if (!D)
		return;
	for (int i = 0; i < D->n_ops; i++) {
		op_keep *o = D->ops[i];
		for (int j = 0; j < o->d.n_fail + o->d.n_pass; j++)
			case_drop(&o->merged[j]);
		for (int j = 0; j < QC_DIAG_FAILING; j++)
			case_drop(&o->fail[j]);
		for (int j = 0; j < QC_DIAG_PASSING; j++)
			case_drop(&o->pass[j]);
		free(o);
	}
	free(D->ops);
	free(D);
}

static op_keep *op_of(qc_diagnosis *D, const char *semantics, const char *op)
{
	for (int i = 0; i < D->n_ops; i++)
		if (!strcmp(D->ops[i]->d.semantics, semantics) && !strcmp(D->ops[i]->d.op, op))
			return D->ops[i];
	QC_GROW(D->ops, D->n_ops, D->cap, 16);
	op_keep *o = qc_xcalloc(1, sizeof *o);
	snprintf(o->d.semantics, sizeof o->d.semantics, "%s", semantics);
	snprintf(o->d.op, sizeof o->d.op, "%s", op);
	o->fail_stride = o->pass_stride = 1;
	o->d.mix_other = -1;
	D->ops[D->n_ops++] = o;
	return o;
}

/* Keeps the case with sequence number seq in list[0..*n) of capacity cap when seq is on the
 * stride; a full list doubles its stride and lets go of the cases off it. */
static qc_diag_case *thin_keep(qc_diag_case *list, int *n, int cap, uint64_t *stride, uint64_t seq)
{
	if (seq % *stride)
		return NULL;
	if (*n == cap) {
		*stride *= 2;
		int m = 0;
		for (int j = 0; j < *n; j++) {
			if (list[j].seq % *stride) {
				case_drop(&list[j]);
				continue;
			}
			if (m != j) {
				list[m] = list[j];
				memset(&list[j], 0, sizeof list[j]);
			}
			m++;
		}
		*n = m;
		if (seq % *stride)
			return NULL;
	}
	return &list[(*n)++];
}

void qc_diagnosis_count(qc_diagnosis *D, const char *semantics, const char *op, qc_verdict v,
                        int replayed)
{
	op_keep *o = op_of(D, semantics, op);
	o->d.failing_replayed += replayed && v == QC_FAIL;
	if (v == QC_FAIL)
		o->d.failing_total++;
	else if (v == QC_PASS || v == QC_PASS_WITHIN_TOLERANCE)
		o->d.passing_total++;
}

int qc_diagnosis_offer(qc_diagnosis *D, const qc_case *c, const qc_expected *e, void *const *kout,
                       qc_verdict v, void *owner, void (*release)(void *))
{
	op_keep *o = op_of(D, c->call.semantics, c->call.op);
	int failing = v == QC_FAIL;
	if (!failing && v != QC_PASS && v != QC_PASS_WITHIN_TOLERANCE)
		return 0;
	uint64_t seq = failing ? o->d.failing_total++ : o->d.passing_total++;
	/* a case the reference refuses has no answer to explain; nor a kernel without outputs */
	if (!e || e->status != QCF_OK || !kout || !kout[0] || c->call.n_outputs < 1)
		return 0;
	qc_diag_case *k =
	        failing ? thin_keep(o->fail, &o->d.n_fail, QC_DIAG_FAILING, &o->fail_stride, seq)
	                : thin_keep(o->pass, &o->d.n_pass, QC_DIAG_PASSING, &o->pass_stride, seq);
	if (!k)
		return 0;
	memset(k, 0, sizeof *k);
	k->c = c;
	k->e = e;
	k->kout = kout;
	k->seq = seq;
	k->owner = owner;
	k->release = release;
	for (int t = 0; t < c->call.n_outputs; t++)
		k->n_elems += qref_numel(c->out[t].rank, c->out[t].shape);
	return 1;
}

int qc_diagnosis_n_ops(const qc_diagnosis *D)
{
	return D->n_ops;
}

/* The kept cases in one array, failing first (done once, when the hypotheses are asked for). */
static void merge(op_keep *o)
{
	if (o->merged[0].c || (!o->d.n_fail && !o->d.n_pass))
		return;
	for (int j = 0; j < o->d.n_fail; j++) {
		o->merged[j] = o->fail[j];
		memset(&o->fail[j], 0, sizeof o->fail[j]);
	}
	for (int j = 0; j < o->d.n_pass; j++) {
		o->merged[o->d.n_fail + j] = o->pass[j];
		memset(&o->pass[j], 0, sizeof o->pass[j]);
	}
	o->d.cases = o->merged;
	if (!o->d.n_hyps)
		o->d.n_hyps = qc_hyps_for(o->d.semantics, o->d.op, o->d.hyps, QC_DIAG_MAX_HYPS);
}

qc_op_diagnosis *qc_diagnosis_op(qc_diagnosis *D, int i)
{
	merge(D->ops[i]);
	return &D->ops[i]->d;
}

const qc_case *qc_diag_case_at(const qc_op_diagnosis *o, int j)
{
	return o->cases[j].c;
}

const qc_expected *qc_diag_expected_at(const qc_op_diagnosis *o, int j)
{
	return o->cases[j].e;
}

static int same(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* Outside the legal band [lo, hi] (a NaN answer allows a NaN alone). */
static int outside(double v, double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		return !isnan(v);
	return isnan(v) || v < lo || v > hi;
}

/* Element i of output t of c lies outside the band: where it is (diagnose.h, where_*). */
static void where_add(qc_op_diagnosis *o, const qc_case *c, int t, size_t i, double delta)
{
	const qcf_tensor *y = &c->out[t];
	int rank = c->call.n_outputs == 1 && y->rank <= 8 ? y->rank : 0;
	if (!o->where_n) {
		o->where_rank = rank;
		for (int a = 0; a < 8; a++)
			o->where_axis[a] = -1;
		for (int m = 0; m < QC_DIAG_PERIODS; m++)
			o->where_mod[m] = -1;
		o->where_delta = delta;
	}
	o->where_n++;
	if (rank != o->where_rank)
		o->where_rank = 0;
	if (!same(delta, o->where_delta))
		o->where_delta = NAN;
	size_t rest = i;
	for (int a = o->where_rank - 1; a >= 0; a--) {
		int64_t k = y->shape[a] > 0 ? (int64_t)(rest % (size_t)y->shape[a]) : 0;
		rest = y->shape[a] > 0 ? rest / (size_t)y->shape[a] : 0;
		o->where_wide[a] |= y->shape[a] > 1;
		if (o->where_axis[a] == -1)
			o->where_axis[a] = k;
		else if (o->where_axis[a] != k)
			o->where_axis[a] = -2;
	}
	for (int m = 0; m < QC_DIAG_PERIODS; m++) {
		int64_t r = (int64_t)(i % (size_t)(m + 2));
		if (o->where_mod[m] == -1)
			o->where_mod[m] = r;
		else if (o->where_mod[m] != r)
			o->where_mod[m] = -2;
	}
}

/* How far beyond the band of legal roundings element i of output y may lie under the case's
 * tolerance (its per-element bounds: LSB or steps, absolute, relative). */
static double allowance(const qc_case *c, const qcf_tensor *y, const qref_output_detail *d,
                        size_t i, double rv)
{
	const qc_tolerance *t = &c->tol;
	if (t->exact)
		return 0;
	if (!qref_dtype_is_float(y->dtype))
		return t->max_abs > 0 ? t->max_abs : 0;
	double a = 0, step = d && d->step ? d->step[i] : 0;
	if (step > 0)
		a = fmax(a, fmax(t->max_abs, t->steps) * step);
	if (t->abs > 0)
		a = fmax(a, t->abs);
	if (t->rel > 0 && isfinite(rv))
		a = fmax(a, t->rel * fabs(rv));
	return a;
}

void qc_diagnosis_score(qc_op_diagnosis *o, int h, int j, void *const *out)
{
	qc_diag_case *k = &o->cases[j];
	qc_hyp_score *s = &o->score[h];
	int failing = j < o->n_fail;
	if (!out) {
		s->refused++;
		s->refused_fail += failing;
		return;
	}
	const qc_case *c = k->c;
	const qc_expected *e = k->e;
	if (failing && k->n_elems <= DIAG_BITMAP_MAX && !k->agree[h])
		k->agree[h] = qc_xcalloc(k->n_elems / 8 + 1, 1);
	uint64_t disagree = 0;
	size_t at = 0;
	qcf_tensor got[QC_MAX_TENSORS];
	for (int t = 0; t < c->call.n_outputs; t++) {
		qcf_tensor kt = c->out[t], ht = c->out[t];
		kt.data = k->kout[t];
		ht.data = out[t];
		got[t] = ht;
		size_t n = qref_numel(c->out[t].rank, c->out[t].shape);
		const qref_output_detail *d = t < QREF_MAX_OUTPUTS ? &e->detail.out[t] : NULL;
		for (size_t i = 0; i < n; i++, at++) {
			double kv = qref_get(&kt, i), hv = qref_get(&ht, i),
			       rv = qref_get(&e->out[t], i);
			if (d && d->any && d->any[i]) {
				/* left open by the semantics: wrong only outside its allowed range
				 */
				int bad = failing && d->lo && d->hi &&
				          outside(kv, d->lo[i], d->hi[i]);
				int eq = same(kv, hv);
				disagree += bad && !eq;
				if (eq && k->agree[h])
					k->agree[h][at / 8] |= (uint8_t)(1u << (at % 8));
				s->wrong += bad;
				s->wrong_explained += bad && eq;
				s->illegal += bad;
				s->illegal_explained += bad && eq;
				if (bad && h == 0)
					where_add(o, c, t, i, NAN);
				continue;
			}
			int eq = same(kv, hv), own = !same(hv, rv);
			disagree += !eq;
			s->distinct += own;
			s->distinct_followed += own && eq;
			s->distinct_reference += own && same(kv, rv);
			if (!failing)
				continue;
			if (eq && k->agree[h])
				k->agree[h][at / 8] |= (uint8_t)(1u << (at % 8));
			double lo = e->band_lo[t] ? e->band_lo[t][i] : rv;
			double hi = e->band_hi[t] ? e->band_hi[t][i] : rv;
			double slack = allowance(c, &c->out[t], d, i, rv);
			int wrong = !same(kv, rv), bad = outside(kv, lo - slack, hi + slack);
			s->wrong += wrong;
			s->wrong_explained += wrong && eq;
			s->illegal += bad;
			s->illegal_explained += bad && eq;
			if (bad && h == 0)
				where_add(o, c, t, i, kv - rv);
		}
	}
	if (failing) {
		s->fail_cases++;
		s->fail_exact += !disagree;
		s->disagree_fail += disagree;
	} else {
		s->pass_cases++;
		s->pass_exact += !disagree;
		s->disagree_pass += disagree;
	}
	/* would the tolerance take the hypothesis's outputs? (a custom check is not run here) */
	if (c->tol.check || h == 0)
		return;
	qc_exec_result ex;
	memset(&ex, 0, sizeof ex);
	ex.outcome = QC_EXEC_OK;
	qc_result *r = qc_xcalloc(1, sizeof *r);
	qc_judge(c, e, &ex, got, r);
	s->judged++;
	if (qc_verdict_conforms(r->verdict))
		s->legal_cases++;
	else if (!s->not_legal[0]) {
		snprintf(s->not_legal, sizeof s->not_legal, "%s", r->message);
		snprintf(s->not_legal_case, sizeof s->not_legal_case, "%s", c->name);
	}
	free(r);
}

/* Sort key of a hypothesis: what it explains of the elements outside the band, then of the
 * elements that differ, then how close it is to the kernel, then the more specific rule. */
static int better(const qc_op_diagnosis *o, int a, int b)
{
	const qc_hyp_score *x = &o->score[a], *y = &o->score[b];
	if (x->illegal_explained != y->illegal_explained)
		return x->illegal_explained > y->illegal_explained ? -1 : 1;
	if (x->wrong_explained != y->wrong_explained)
		return x->wrong_explained > y->wrong_explained ? -1 : 1;
	if (x->fail_exact != y->fail_exact)
		return x->fail_exact > y->fail_exact ? -1 : 1;
	if (x->disagree_fail != y->disagree_fail)
		return x->disagree_fail < y->disagree_fail ? -1 : 1;
	if (x->pass_exact != y->pass_exact)
		return x->pass_exact > y->pass_exact ? -1 : 1;
	if (x->disagree_pass != y->disagree_pass)
		return x->disagree_pass < y->disagree_pass ? -1 : 1;
	return 0;
}

static int specificity(const qc_hyp *h)
{
	return h->n_ops ? h->n_ops : 100000;
}

static int bit(const uint8_t *b, size_t i)
{
	return b[i / 8] >> (i % 8) & 1;
}

/* The split between rank[0] and h2 over the failing cases kept: 1 when every element of
 * every one equals one of the two (each explaining some the other does not). */
static int splits(qc_op_diagnosis *o, int h1, int h2, uint64_t *only1, uint64_t *only2)
{
	*only1 = *only2 = 0;
	for (int j = 0; j < o->n_fail; j++) {
		const qc_diag_case *k = &o->cases[j];
		const uint8_t *a = k->agree[h1], *b = k->agree[h2];
		if (!a || !b)
			return 0;
		const qc_case *c = k->c;
		size_t at = 0;
		for (int t = 0; t < c->call.n_outputs; t++) {
			size_t n = qref_numel(c->out[t].rank, c->out[t].shape);
			const qref_output_detail *d =
			        t < QREF_MAX_OUTPUTS ? &k->e->detail.out[t] : NULL;
			for (size_t i = 0; i < n; i++, at++) {
				/* an element left open counts when it lies outside its range */
				if (d && d->any && d->any[i]) {
					qcf_tensor kt = c->out[t];
					kt.data = k->kout[t];
					if (!d->lo || !d->hi ||
					    !outside(qref_get(&kt, i), d->lo[i], d->hi[i]))
						continue;
				}
				int x = bit(a, at), y = bit(b, at);
				if (!x && !y)
					return 0;
				*only1 += x && !y;
				*only2 += y && !x;
			}
		}
	}
	return *only1 && *only2;
}

/* The widest W (64 .. 2) such that h2 alone gives exactly the elements past the last multiple
 * of W of the innermost dimension and h1 alone the others; 0 when none does. */
static int tail_width(const qc_op_diagnosis *o, int h1, int h2)
{
	for (int w = 64; w >= 2; w /= 2) {
		int ok = 1, seen_tail = 0;
		for (int j = 0; j < o->n_fail && ok; j++) {
			const qc_diag_case *k = &o->cases[j];
			const qc_case *c = k->c;
			const qcf_tensor *y = &c->out[0];
			if (c->call.n_outputs != 1 || y->rank < 1) {
				ok = 0;
				break;
			}
			int64_t inner = y->shape[y->rank - 1];
			int64_t body = inner - inner % w;
			size_t n = qref_numel(y->rank, y->shape);
			for (size_t i = 0; i < n && ok; i++) {
				int x = bit(k->agree[h1], i), z = bit(k->agree[h2], i);
				if (x == z)
					continue;
				int tail = (int64_t)(i % (size_t)inner) >= body;
				ok = tail == z;
				seen_tail |= tail;
			}
		}
		if (ok && seen_tail)
			return w;
	}
	return 0;
}

static void finish_op(qc_op_diagnosis *o)
{
	if (!o->n_fail) {
		o->status = QC_DIAG_NONE;
		return;
	}
	if (o->status == QC_DIAG_NOT_RUN)
		return;
	o->wrong = o->score[0].wrong;
	o->illegal = o->score[0].illegal;
	o->n_rank = 0;
	for (int h = 1; h < o->n_hyps; h++)
		if (o->score[h].wrong_explained || o->score[h].illegal_explained)
			o->rank[o->n_rank++] = h;
	/* insertion sort: few hypotheses, and equal keys keep the more specific rule first */
	for (int i = 1; i < o->n_rank; i++)
		for (int j = i; j > 0; j--) {
			int a = o->rank[j - 1], b = o->rank[j];
			int cmp = better(o, a, b);
			if (cmp < 0 ||
			    (cmp == 0 && specificity(&o->hyps[a]) <= specificity(&o->hyps[b])))
				break;
			o->rank[j - 1] = b;
			o->rank[j] = a;
		}
	o->n_equal = 0;
	while (o->n_equal + 1 < o->n_rank && !better(o, o->rank[0], o->rank[o->n_equal + 1]))
		o->n_equal++;
	if (!o->n_rank) {
		o->status = QC_DIAG_UNEXPLAINED;
		return;
	}
	int best = o->rank[0];
	const qc_hyp_score *s = &o->score[best];
	if (!s->disagree_fail && !s->refused_fail && s->fail_cases == o->n_fail) {
		o->status = QC_DIAG_EXPLAINED;
		return;
	}
	/* two rules: the best and the first of the others (the reference, the named roundings,
	 * the catalogue) that gives every element the best does not */
	for (int h = 0; h < o->n_hyps; h++) {
		if (h == best)
			continue;
		uint64_t a, b;
		if (splits(o, best, h, &a, &b)) {
			o->status = QC_DIAG_MIXED;
			o->mix_other = h;
			o->mix_first = a;
			o->mix_second = b;
			o->tail_width = tail_width(o, best, h);
			return;
		}
	}
	/* a lead only when it explains half the elements outside the band, or half the cases */
	o->status = 2 * s->illegal_explained >= s->illegal || 2 * s->fail_exact >= s->fail_cases
	                    ? QC_DIAG_PARTLY
	                    : QC_DIAG_UNEXPLAINED;
}

void qc_diagnosis_finish(qc_diagnosis *D)
{
	for (int i = 0; i < D->n_ops; i++) {
		merge(D->ops[i]);
		finish_op(&D->ops[i]->d);
	}
}

/* ---- words ---- */

typedef struct out {
	char *buf;
	size_t size, used;
} out;

static void say(out *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(out *w, const char *fmt, ...)
{
	if (w->used >= w->size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(w->buf + w->used, w->size - w->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		w->used += (size_t)n < w->size - w->used ? (size_t)n : w->size - w->used - 1;
}

static void say_hyp(out *w, const qc_hyp *h)
{
	say(w, "\"%s\" [%s]", h->rule, h->id);
	if (h->def && h->def->as)
		say(w, " (as %s)", h->def->as);
}

static void say_legal(out *w, const qc_hyp_score *s)
{
	if (!s->judged)
		return;
	if (s->legal_cases == s->judged)
		say(w,
		    "  The spec's tolerance allows this rule on every case it was judged on "
		    "(%d).\n",
		    s->judged);
	else
		say(w, "  Not allowed by the spec's tolerance: %s (%s).\n", s->not_legal,
		    s->not_legal_case);
}

static void say_passing(out *w, const qc_hyp_score *s)
{
	int n_na = s->refused - s->refused_fail;
	if (n_na)
		say(w,
		    "  It does not apply to %d passing case%s sampled (the rule has no meaning "
		    "there).\n",
		    n_na, n_na == 1 ? "" : "s");
	if (!s->pass_cases)
		return;
	if (s->pass_exact == s->pass_cases)
		say(w, "  It also gives every passing case sampled exactly (%d of %d).\n",
		    s->pass_exact, s->pass_cases);
	else
		say(w,
		    "  But it differs from the kernel on %d of %d passing cases sampled "
		    "(%llu elements): not the kernel's whole rule.\n",
		    s->pass_cases - s->pass_exact, s->pass_cases,
		    (unsigned long long)s->disagree_pass);
}

/* Where the elements outside the band lie, when they have something in common. */
static void say_where(out *w, const qc_op_diagnosis *o)
{
	if (o->where_n < 2)
		return;
	int last = 0;
	for (int a = 0; a < o->where_rank; a++)
		if (o->where_axis[a] >= 0 && o->where_wide[a]) {
			say(w,
			    "  Where: all %llu elements outside the band have index %lld along "
			    "axis %d "
			    "of %d.\n",
			    (unsigned long long)o->where_n, (long long)o->where_axis[a], a,
			    o->where_rank);
			last |= a == o->where_rank - 1;
		}
	for (int m = 0; m < QC_DIAG_PERIODS && !last && o->where_n >= 3; m++)
		if (o->where_mod[m] >= 0) {
			say(w,
			    "  Where: all %llu elements outside the band have a flat index of %lld "
			    "modulo %d (every %d-th element: one lane of a vector?).\n",
			    (unsigned long long)o->where_n, (long long)o->where_mod[m], m + 2,
			    m + 2);
			break;
		}
	if (!isnan(o->where_delta))
		say(w, "  Each is the reference's value %+g: an offset, not a rounding.\n",
		    o->where_delta);
}

void qc_diagnosis_text(const qc_op_diagnosis *o, char *buf, size_t size)
{
	out w = {buf, size, 0};
	buf[0] = 0;
	char kept[160];
	snprintf(kept, sizeof kept, "%d of %llu failing case%s", o->n_fail,
	         (unsigned long long)o->failing_total, o->failing_total == 1 ? "" : "s");
	say(&w, "%s/%s: ", o->semantics, o->op);
	switch (o->status) {
	case QC_DIAG_NONE: say(&w, "nothing to diagnose (no failing case with outputs).\n"); return;
	case QC_DIAG_NOT_RUN: say(&w, "not diagnosed: %s\n", o->err); return;
	case QC_DIAG_UNEXPLAINED:
		say(&w,
		    "UNEXPLAINED: no rule of the catalogue (%d hypotheses) gives the %llu elements "
		    "outside the legal band (%s diagnosed)",
		    o->n_hyps - 1, (unsigned long long)o->illegal, kept);
		if (o->n_rank) {
			say(&w, "; the closest,\n  ");
			say_hyp(&w, &o->hyps[o->rank[0]]);
			say(&w, ",\n  gives %llu of them",
			    (unsigned long long)o->score[o->rank[0]].illegal_explained);
		}
		say(&w, ".\n");
		say_where(&w, o);
		return;
	default: break;
	}
	int best = o->rank[0];
	const qc_hyp_score *s = &o->score[best];
	if (o->status == QC_DIAG_EXPLAINED) {
		say(&w, "EXPLAINED: %s diagnosed, every element is exactly\n  ", kept);
		say_hyp(&w, &o->hyps[best]);
		say(&w,
		    "\n  (%llu of %llu elements outside the legal band, %llu of %llu that differ "
		    "from "
		    "the reference).\n",
		    (unsigned long long)s->illegal_explained, (unsigned long long)s->illegal,
		    (unsigned long long)s->wrong_explained, (unsigned long long)s->wrong);
	} else if (o->status == QC_DIAG_MIXED) {
		say(&w, "MIXED RULES: %s diagnosed; %llu elements follow\n  ", kept,
		    (unsigned long long)o->mix_first);
		say_hyp(&w, &o->hyps[best]);
		say(&w, "\n  and %llu follow\n  ", (unsigned long long)o->mix_second);
		say_hyp(&w, &o->hyps[o->mix_other]);
		say(&w, "\n");
		if (o->tail_width)
			say(&w,
			    "  The second rule's elements are exactly those past the last multiple "
			    "of %d "
			    "of the innermost dimension: a vector body and its scalar tail.\n",
			    o->tail_width);
	} else {
		say(&w, "PARTLY EXPLAINED: %s diagnosed; the best rule,\n  ", kept);
		say_hyp(&w, &o->hyps[best]);
		say(&w,
		    ",\n  gives %llu of %llu elements outside the legal band (%d of %d failing "
		    "cases "
		    "exactly).\n",
		    (unsigned long long)s->illegal_explained, (unsigned long long)s->illegal,
		    s->fail_exact, s->fail_cases);
		if (o->n_rank > 1) {
			const qc_hyp_score *t = &o->score[o->rank[1]];
			say(&w, "  Next: ");
			say_hyp(&w, &o->hyps[o->rank[1]]);
			say(&w, ": %llu of %llu.\n", (unsigned long long)t->illegal_explained,
			    (unsigned long long)t->illegal);
		}
		say_where(&w, o);
	}
	if (o->n_equal) {
		say(&w, "  Equally explained by:");
		for (int i = 1; i <= o->n_equal; i++)
			say(&w, "%s %s", i > 1 ? "," : "", o->hyps[o->rank[i]].id);
		say(&w, " (the cases diagnosed do not tell them apart).\n");
	}
	if (o->status != QC_DIAG_PARTLY)
		say_passing(&w, s);
	say_legal(&w, s);
}

void qc_diagnosis_datasheet(const qc_op_diagnosis *o, char *buf, size_t size)
{
	out w = {buf, size, 0};
	buf[0] = 0;
	const qc_hyp_score *ref = &o->score[0];
	int n_cases = ref->fail_cases + ref->pass_cases;
	if (!n_cases)
		return;
	say(&w, "%s/%s: %d case%s (%d passing, %d failing): ", o->semantics, o->op, n_cases,
	    n_cases == 1 ? "" : "s", ref->pass_cases, ref->fail_cases);
	uint64_t off = ref->disagree_fail + ref->disagree_pass;
	if (!off)
		say(&w, "the kernel equals the reference on every element.\n");
	else
		say(&w, "the kernel differs from the reference on %llu elements.\n",
		    (unsigned long long)off);
	/* the rules that differ from the reference somewhere, most followed first */
	int order[QC_DIAG_MAX_HYPS], n = 0;
	for (int h = 1; h < o->n_hyps; h++)
		if (o->score[h].distinct)
			order[n++] = h;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			const qc_hyp_score *a = &o->score[order[j - 1]], *b = &o->score[order[j]];
			/* by the share followed, then by the number of elements */
			double fa = (double)a->distinct_followed / (double)a->distinct,
			       fb = (double)b->distinct_followed / (double)b->distinct;
			if (fa > fb || (fa == fb && a->distinct >= b->distinct))
				break;
			int t = order[j - 1];
			order[j - 1] = order[j];
			order[j] = t;
		}
	if (!n) {
		say(&w,
		    "  No rule of the catalogue (%d hypotheses) differs from the reference on "
		    "these cases: they do not tell the rules apart.\n",
		    o->n_hyps - 1);
		return;
	}
	int shown = 0;
	for (int i = 0; i < n && shown < 4; i++) {
		const qc_hyp *h = &o->hyps[order[i]];
		const qc_hyp_score *s = &o->score[order[i]];
		/* the named roundings always, the catalogue's variants when followed */
		if (h->kind == QC_HYP_VARIANT && !s->distinct_followed)
			continue;
		say(&w,
		    "  where %s [%s] differs from the reference (%llu elements): the kernel "
		    "follows it on %llu (%.0f%%), the reference on %llu",
		    h->kind == QC_HYP_ROUNDING ? h->id + strlen("rounding:") : "the rule", h->id,
		    (unsigned long long)s->distinct, (unsigned long long)s->distinct_followed,
		    100.0 * (double)s->distinct_followed / (double)s->distinct,
		    (unsigned long long)s->distinct_reference);
		if (s->judged)
			say(&w, "; %s under the spec's tolerance",
			    s->legal_cases == s->judged ? "allowed" : "not allowed");
		say(&w, ".\n");
		shown++;
	}
	if (!shown)
		say(&w,
		    "  The kernel follows none of the %d rules that differ from the reference "
		    "on these cases.\n",
		    n);
}
