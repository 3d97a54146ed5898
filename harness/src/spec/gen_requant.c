/*
 * gen_requant: the requantization edges (gen.h): scale triples and accumulators where integer
 * kernels' requantizations part ways, and the input pairs of LiteRT's elementwise ADD, SUB and
 * MUL that reach the ties of their stages.
 */
#include "spec/gen.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "reference/requant.h"

/* ---- requantization edges ------------------------------------------------- */

void qc_edge_opts_default(qc_edge_opts *o)
{
	memset(o, 0, sizeof *o);
	o->conv = QC_EDGE_LITERT;
	o->fl = QC_F32_PRODUCT;
	o->s_in = 0.02f;
	o->s_w = 0.005f;
	o->mult = 0x1p-10;
	o->shift = -31;
	o->ymax = 100;
	o->accmax = INT32_MAX;
	o->min_acc = 1;
	o->ref_f32 = 0;
	o->half_away = 0;
}

double qc_edge_mult(const qc_scale3 *t)
{
	return (double)t->s_in * (double)t->s_w / (double)t->s_out;
}

double qc_edge_mult_f32(const qc_scale3 *t, qc_edge_float fl)
{
	float p = t->s_in * t->s_w; /* one float32 rounding (FLT_EVAL_METHOD 0) */
	if (fl == QC_F32_ALL)
		return (double)(float)(p / t->s_out);
	return (double)p / (double)t->s_out;
}

/* The multiplier the op itself uses: ONNX's is the float32 one, LiteRT's the double one. */
static int op_f32(const qc_edge_opts *o)
{
	return o->ref_f32;
}

/* The double multiplier (f32 = 0) or the float32 variant of the convention (f32 = 1). */
static double own_mult(const qc_scale3 *t, const qc_edge_opts *o, int f32)
{
	return f32 ? qc_edge_mult_f32(t, o->conv == QC_EDGE_ONNX ? QC_F32_ALL : o->fl)
	           : qc_edge_mult(t);
}

int64_t qc_edge_output(const qc_scale3 *t, const qc_edge_opts *o, int f32, int single, int64_t acc,
                       int *ok)
{
	double d = own_mult(t, o, f32);
	*ok = 1;
	if (o->conv == QC_EDGE_ONNX) {
		double v = nearbyint((double)acc * d);
		if (!(fabs(v) < 0x1p62)) {
			*ok = 0;
			return 0;
		}
		return (int64_t)v;
	}
	if (acc < INT32_MIN || acc > INT32_MAX) {
		*ok = 0;
		return 0;
	}
	/* the searches ask for a few multipliers over and over (an accumulator at a time): the
	 * last ones, per thread */
	static _Thread_local struct {
		double d;
		int single, sh;
		int32_t m;
	} memo[4];
	static _Thread_local unsigned memo_n;
	int32_t m = 0;
	int sh = 0, hit = 0;
	for (unsigned k = 0; k < memo_n && !hit; k++)
		if (memo[k].d == d && memo[k].single == single) {
			m = memo[k].m;
			sh = memo[k].sh;
			hit = 1;
		}
	if (!hit) {
		qref_quantize_multiplier(d, single ? QREF_ROUND_SINGLE : QREF_ROUND_DOUBLE, &m,
		                         &sh);
		unsigned k = memo_n < 4 ? memo_n++ : (unsigned)(acc & 3);
		memo[k].d = d;
		memo[k].single = single;
		memo[k].m = m;
		memo[k].sh = sh;
	}
	if (!single) {
		if (sh >= 31 || !qref_mbqm_preshift_fits((int32_t)acc, sh)) {
			*ok = 0;
			return 0;
		}
		return qref_mbqm((int32_t)acc, m, sh, QREF_ROUND_DOUBLE);
	}
	int64_t v = qref_mbqm_single_wide((int32_t)acc, m, sh);
	if (v < INT32_MIN || v > INT32_MAX)
		*ok = 0;
	return v;
}

/* The most candidates one search may try (about a second of work): a search that cannot
 * succeed stops instead of holding the harness, whatever its options. */
#define EDGE_WORK_MAX (UINT64_C(1) << 23)

static int over_budget(const uint64_t *work, char *err, size_t err_size)
{
	if (*work <= EDGE_WORK_MAX)
		return 0;
	snprintf(err, err_size, "the search tried more than %llu candidates",
	         (unsigned long long)EDGE_WORK_MAX);
	return 1;
}

/* Boundary number b of the walk (b = 0, 1, 2, ...): j + 1/2 with j = 0, -1, 1, -2, 2, ... */
static int64_t walk_j(int64_t b)
{
	return b % 2 ? -(b + 1) / 2 : b / 2;
}

static int acc_ok(const qc_edge_opts *o, int64_t a)
{
	return a >= -o->accmax && a <= o->accmax;
}

static int push_acc(int64_t *out, int n, int max, int64_t a)
{
	for (int i = 0; i < n; i++)
		if (out[i] == a)
			return n;
	if (n < max)
		out[n++] = a;
	return n;
}

/* Bit b set when the kernel with the other multiplier (not the op's own), in build b
 * (0 double, 1 single; ONNX: b = 0 only), gives an output that no build of the op's
 * multiplier gives at acc, every output within ymax. */
static int f32_catches(const qc_scale3 *t, const qc_edge_opts *o, int64_t a)
{
	const int f = op_f32(o), nb = o->conv == QC_EDGE_LITERT ? 2 : 1;
	int64_t r[2];
	for (int b = 0; b < nb; b++) {
		int ok;
		r[b] = qc_edge_output(t, o, f, b, a, &ok);
		if (!ok || r[b] < -o->ymax || r[b] > o->ymax)
			return 0;
	}
	int64_t h = r[0];
	if (o->half_away) { /* round half away from zero, exactly as round() does */
		h = (int64_t)round((double)a * qc_edge_mult(t));
		if (h < -o->ymax || h > o->ymax)
			return 0;
	}
	int bits = 0;
	for (int b = 0; b < nb; b++) {
		int ok;
		int64_t x = qc_edge_output(t, o, !f, b, a, &ok);
		if (ok && x >= -o->ymax && x <= o->ymax && x != r[0] && x != r[nb - 1] && x != h)
			bits |= 1 << b;
	}
	return bits;
}

static int requant_acc(const qc_scale3 *t, qc_edge_kind kind, const qc_edge_opts *o, int64_t *out,
                       int max, uint64_t *work, char *err, size_t err_size)
{
	if (kind != QC_EDGE_TIE && kind != QC_EDGE_F32 && kind != QC_EDGE_BOUNDARY) {
		snprintf(err, err_size, "not an accumulator kind");
		return -1;
	}
	if (!(t->s_in > 0) || !(t->s_w > 0) || !(t->s_out > 0) || !isfinite(t->s_in) ||
	    !isfinite(t->s_w) || !isfinite(t->s_out)) {
		snprintf(err, err_size, "scales must be finite and > 0");
		return -1;
	}
	const int f = op_f32(o);
	const double d = own_mult(t, o, f);
	const double d2 = kind == QC_EDGE_F32 ? own_mult(t, o, !f) : d;
	if (!(d > 0) || !isfinite(d) || !(d2 > 0) || !isfinite(d2)) {
		snprintf(err, err_size, "the multiplier s_in * s_w / s_out is not finite and > 0");
		return -1;
	}
	int32_t m = 0;
	int sh = 0;
	if (o->conv == QC_EDGE_LITERT) {
		qref_quantize_multiplier(d, QREF_ROUND_DOUBLE, &m, &sh);
		if (m == 0) {
			snprintf(err, err_size, "the multiplier %.17g is flushed to 0", d);
			return -1;
		}
		if (kind == QC_EDGE_TIE && sh >= 0) {
			snprintf(err, err_size,
			         "shift %d: no final RoundingDivideByPOT, so no tie after the "
			         "multiplier",
			         sh);
			return -1;
		}
	}
	int n = 0;
	for (int64_t b = 0; b < 2 * o->ymax + 2 && n < max; b++) {
		if (over_budget(work, err, err_size))
			return -1;
		int64_t j = walk_j(b);
		if (j < -o->ymax - 1 || j > o->ymax)
			continue;
		double y = (double)j + 0.5;
		if (kind == QC_EDGE_TIE && o->conv == QC_EDGE_LITERT) {
			int r = -sh;
			double x = (double)j * ldexp(1.0, r) + ldexp(1.0, r - 1);
			if (fabs(x) >= 0x1p31)
				break;
			double a0 = floor(x * 0x1p31 / (double)m);
			for (int64_t a = (int64_t)a0 - 3; a <= (int64_t)a0 + 3; a++) {
				++*work;
				if (a < INT32_MIN || a > INT32_MAX || !acc_ok(o, a))
					continue;
				if ((double)qref_srdhm((int32_t)a, m) == x)
					n = push_acc(out, n, max, a);
			}
			continue;
		}
		double b1 = y / d, b2 = y / d2;
		double lo = floor(b1 < b2 ? b1 : b2) - 2, hi = ceil(b1 < b2 ? b2 : b1) + 2;
		if (!(fabs(lo) < 0x1p62) || !(fabs(hi) < 0x1p62) || hi - lo > 4096)
			continue;
		for (int64_t a = (int64_t)lo; a <= (int64_t)hi && n < max; a++) {
			++*work;
			if (!acc_ok(o, a))
				continue;
			int ok1, ok2;
			if (kind == QC_EDGE_TIE) { /* ONNX */
				double v2 = 2.0 * ((double)a * d);
				if (fabs(v2) < 0x1p52 && v2 == floor(v2) && ((int64_t)v2 & 1))
					n = push_acc(out, n, max, a);
			} else if (kind == QC_EDGE_BOUNDARY) {
				int64_t y0 = qc_edge_output(t, o, f, 0, a - 1, &ok1);
				int64_t y1 = qc_edge_output(t, o, f, 0, a, &ok2);
				if (ok1 && ok2 && y0 <= j && y1 > j)
					for (int64_t k = a - 2; k <= a + 1; k++)
						if (acc_ok(o, k))
							n = push_acc(out, n, max, k);
			} else if (f32_catches(t, o, a) != 0) {
				n = push_acc(out, n, max, a);
			}
		}
	}
	return n;
}

/* F32: the accumulators that catch the double-build kernel and those that catch the
 * single-build one, alternately, so that the first few catch both. */
int qc_requant_acc(const qc_scale3 *t, qc_edge_kind kind, const qc_edge_opts *o, int64_t *out,
                   int max, uint64_t *work, char *err, size_t err_size)
{
	if (kind != QC_EDGE_F32 || o->conv != QC_EDGE_LITERT)
		return requant_acc(t, kind, o, out, max, work, err, err_size);
	enum { CAP = 1024 };
	int64_t *all = malloc(CAP * sizeof *all);
	if (!all) {
		snprintf(err, err_size, "out of memory");
		return -1;
	}
	int c = requant_acc(t, kind, o, all, CAP, work, err, err_size);
	int n = 0;
	for (int pass = 0; c > 0 && n < max; pass++) {
		int any = 0;
		for (int b = 0; b < 2 && n < max; b++) {
			/* the pass-th accumulator that catches build b */
			for (int i = 0, seen = 0; i < c; i++) {
				if (!((f32_catches(t, o, all[i]) >> b) & 1))
					continue;
				if (seen++ == pass) {
					n = push_acc(out, n, max, all[i]);
					any = 1;
					break;
				}
			}
		}
		if (!any)
			break;
	}
	free(all);
	return c < 0 ? -1 : n;
}

static int shift_of(double d, int32_t *m)
{
	int sh;
	qref_quantize_multiplier(d, QREF_ROUND_DOUBLE, m, &sh);
	return sh;
}

int qc_requant_scales(qc_edge_kind kind, const qc_edge_opts *o, qc_scale3 *out, int max,
                      uint64_t *work, char *err, size_t err_size)
{
	if (!(o->s_in > 0) || !(o->s_w > 0) || !isfinite(o->s_in) || !isfinite(o->s_w) ||
	    !(o->mult > 0) || !isfinite(o->mult)) {
		snprintf(err, err_size, "s_in, s_w and mult must be finite and > 0");
		return -1;
	}
	int n = 0;
	float sw = o->s_w;
	if (kind == QC_EDGE_ROUND_UP) {
		int k;
		if (frexp(o->mult, &k) != 0.5) {
			snprintf(err, err_size, "round_up: mult must be a power of two");
			return -1;
		}
		if (o->conv != QC_EDGE_LITERT) {
			snprintf(err, err_size,
			         "round_up: only the LiteRT convention has an integer multiplier");
			return -1;
		}
		for (long it = 0; it < (1L << 22) && n < max; it++, sw = nextafterf(sw, INFINITY)) {
			if (++*work > EDGE_WORK_MAX)
				break;
			float fp = (float)((double)o->s_in * (double)sw);
			float so = (float)((double)fp / o->mult);
			if (!(so >= FLT_MIN) || !isfinite(so) || (double)so * o->mult != (double)fp)
				continue;
			qc_scale3 t = {o->s_in, sw, so, 0, 0};
			double d = qc_edge_mult(&t);
			int e;
			t.shift = shift_of(d, &t.multiplier);
			if (t.multiplier == (INT32_C(1) << 30) &&
			    frexp(d, &e) > 0.75) /* q rounded up */
				out[n++] = t;
		}
		if (n < max) {
			snprintf(err, err_size, "round_up: only %d of %d triples found", n, max);
			return -1;
		}
		return n;
	}
	if (kind == QC_EDGE_F32_PRODUCT) {
		float so = (float)((double)o->s_in * (double)o->s_w / o->mult);
		if (!(so >= FLT_MIN) || !isfinite(so)) {
			snprintf(err, err_size, "f32_product: s_in * s_w / mult is not a float32");
			return -1;
		}
		int64_t acc[64];
		int need = o->min_acc < 1 ? 1 : o->min_acc > 64 ? 64 : o->min_acc;
		float si = o->s_in;
		const int ratio = o->s_w == 1.0f; /* s_in / s_out: s_in steps */
		for (long it = 0; it < 4096 && n < max; it++) {
			if (over_budget(work, err, err_size))
				return -1;
			++*work;
			qc_scale3 t = {si, sw, so, 0, 0};
			if (ratio)
				si = nextafterf(si, INFINITY);
			else
				sw = nextafterf(sw, INFINITY);
			double d = qc_edge_mult(&t);
			double df =
			        qc_edge_mult_f32(&t, o->conv == QC_EDGE_ONNX ? QC_F32_ALL : o->fl);
			t.shift = shift_of(d, &t.multiplier);
			int32_t mf;
			int shf = shift_of(df, &mf);
			if (o->conv == QC_EDGE_LITERT ? (mf == t.multiplier && shf == t.shift)
			                              : d == df)
				continue;
			int c = requant_acc(&t, QC_EDGE_F32, o, acc, 64, work, err, err_size);
			if (c < 0)
				return -1;
			int per[2] = {0, 0};
			for (int i = 0; i < c; i++) {
				int bits = f32_catches(&t, o, acc[i]);
				per[0] += bits & 1;
				per[1] += (bits >> 1) & 1;
			}
			if (per[0] >= need && (o->conv == QC_EDGE_ONNX || per[1] >= need))
				out[n++] = t;
		}
		if (n < max) {
			snprintf(err, err_size, "f32_product: only %d of %d triples found", n, max);
			return -1;
		}
		return n;
	}
	if (kind == QC_EDGE_SHIFT) {
		if (o->shift < -31 || o->shift > 30) {
			snprintf(err, err_size, "shift: %d outside [-31, 30]", o->shift);
			return -1;
		}
		double top = ldexp(1.0, o->shift); /* d in [top / 2, top) */
		float si = o->s_in;
		const int ratio = o->s_w == 1.0f; /* s_in / s_out: s_in steps */
		for (int j = 0; j < max; j++) {
			if (j > 0 && ratio)
				si = nextafterf(si, INFINITY);
			else if (j > 0)
				sw = nextafterf(sw, INFINITY);
			double p = (double)si * (double)sw;
			double u = j == 0   ? 0.5
			           : j == 1 ? 1.0
			                    : 0.5 + 0.5 * (2.0 * (j - 2) + 1) / (2.0 * (max - 2));
			float so = (float)(p / (u * top));
			qc_scale3 t = {si, sw, so, 0, 0};
			/* the ends: step s_out until d is inside [top / 2, top) after rounding */
			for (int step = 0; step < 64; step++) {
				++*work;
				if (!(t.s_out >= FLT_MIN) || !isfinite(t.s_out))
					break;
				t.shift = shift_of(qc_edge_mult(&t), &t.multiplier);
				if (t.shift == o->shift && t.multiplier != 0)
					break;
				int low = t.multiplier == 0 || t.shift < o->shift;
				t.s_out = nextafterf(t.s_out, low ? 0.0f : INFINITY);
			}
			if (t.shift != o->shift || t.multiplier == 0) {
				snprintf(err, err_size,
				         "shift: no triple of shift %d near s_in %.9g s_w %.9g",
				         o->shift, (double)si, (double)sw);
				return -1;
			}
			out[n++] = t;
		}
		return n;
	}
	snprintf(err, err_size, "not a scale kind");
	return -1;
}

/* ---- elementwise requantization edges (LiteRT ADD, SUB, MUL) ---------------- */

#define EW_WORK_MAX  (UINT64_C(1) << 25) /* pairs one scale search may try */
#define EW_PAIRS_MAX (INT64_C(1) << 24)  /* pairs of one search range */
#define EW_CLASSES   6                   /* at most: tie_in's 2 inputs x 3 stages */

void qc_ew_opts_default(qc_ew_opts *o, int int16)
{
	memset(o, 0, sizeof *o);
	o->op = QC_EW_ADD;
	o->int16 = int16;
	o->s1 = 0.02f;
	o->s2 = 0.01f;
	o->s_out = 0.02f;
	o->lo1 = o->lo2 = int16 ? -32768 : -128;
	o->hi1 = o->hi2 = int16 ? 32767 : 127;
	o->ymax = 100;
	o->min_pairs = 4;
	o->stage = QC_EW_STAGE_ANY;
}

/* p mod 2^k (floor, as two's complement bits), k in [1, 62]. */
static uint64_t mod_pot(int64_t p, int k)
{
	return (uint64_t)p & ((UINT64_C(1) << k) - 1);
}

/* One requantization stage x -> MBQM(x, m, e) of one build (b = 0 double, 1 single). */
typedef struct ew_stage {
	int32_t m;
	int e;
} ew_stage;

static ew_stage ew_quantize(double d, int b)
{
	ew_stage s;
	qref_quantize_multiplier(d, b ? QREF_ROUND_SINGLE : QREF_ROUND_DOUBLE, &s.m, &s.e);
	return s;
}

/* The stage's output for x in build b; *ok = 0 where the kernel is undefined (the
 * pre-shift wraps, a result beyond int32, a shift beyond 30). */
static int64_t ew_out(const ew_stage *s, int b, int64_t x, int *ok)
{
	*ok = x >= INT32_MIN && x <= INT32_MAX && s->e <= 30;
	if (!*ok)
		return 0;
	if (b == 0) {
		*ok = qref_mbqm_preshift_fits((int32_t)x, s->e);
		return *ok ? qref_mbqm((int32_t)x, s->m, s->e, QREF_ROUND_DOUBLE) : 0;
	}
	int64_t v = qref_mbqm_single_wide((int32_t)x, s->m, s->e);
	*ok = v >= INT32_MIN && v <= INT32_MAX;
	return v;
}

/* Tie stages: 0 the double build's high mul, 1 its final shift, 2 the single build's. */
static int stage_wanted(const qc_ew_opts *o, int st)
{
	return o->stage == QC_EW_STAGE_ANY || (o->stage == QC_EW_STAGE_HIGH_MUL && st != 1) ||
	       (o->stage == QC_EW_STAGE_SHIFT && st == 1);
}

/* The exact ties of the stage at x (build b; with b = 0 the pre-shifted x fits in int32): bit
 * 0 the double build's high mul rounded up, bit 1 its final shift rounded away from zero (*h
 * its high mul), bit 2 the single build's shift. */
static int ew_ties(const ew_stage *s, int b, int32_t x, int32_t *h)
{
	if (b) {
		int total = 31 - s->e; /* in [1, 62] */
		return (mod_pot((int64_t)x * s->m, total) == UINT64_C(1) << (total - 1)) << 2;
	}
	int pre = s->e > 0 ? s->e : 0, r = s->e < 0 ? -s->e : 0;
	int32_t xs = (int32_t)((int64_t)x * ((int64_t)1 << pre));
	*h = qref_srdhm(xs, s->m);
	return (mod_pot((int64_t)xs * s->m, 31) == UINT64_C(1) << 30) |
	       (r > 0 && mod_pot(*h, r) == UINT64_C(1) << (r - 1)) << 1;
}

/* The outputs the stage gives at x (output y, ew_out ok) when one of its exact ties goes the
 * other way, into alt with their tie stages in st (at most 2); returns their count. */
static int ew_alts(const ew_stage *s, int b, int32_t x, int64_t y, int64_t *alt, int *st)
{
	int32_t h = 0;
	int ties = ew_ties(s, b, x, &h), n = 0;
	if (ties & 1) { /* rounded up */
		st[n] = 0;
		alt[n++] = qref_rdbpot(h - 1, s->e < 0 ? -s->e : 0);
	}
	if (ties & 2) { /* away from zero */
		st[n] = 1;
		alt[n++] = h > 0 ? y - 1 : y + 1;
	}
	if (ties & 4) {
		st[n] = 2;
		alt[n++] = y - 1; /* ties toward +infinity */
	}
	int k = 0;
	for (int i = 0; i < n; i++)
		if (alt[i] != y) {
			st[k] = st[i];
			alt[k++] = alt[i];
		}
	return k;
}

typedef struct ew_pipe {
	qc_ew_op op;
	int ls;
	ew_stage in[2][2], out[2]; /* [input][build], [build] */
	ew_stage other[3][2];      /* MUL: the other kernels' multipliers, [kind][build] */
	int64_t qmin, qmax;
} ew_pipe;

static int ew_setup(const float s[3], const qc_ew_opts *o, ew_pipe *p, char *err, size_t es)
{
	memset(p, 0, sizeof *p);
	p->op = o->op;
	p->qmin = o->int16 ? -32768 : -128;
	p->qmax = o->int16 ? 32767 : 127;
	for (int j = 0; j < 3; j++)
		if (!(s[j] > 0) || !isfinite(s[j]))
			return qc_errf(err, es, "scales must be finite and > 0");
	const int32_t zp[3] = {o->zp1, o->zp2, o->zp_out};
	for (int j = 0; j < 3; j++)
		if (zp[j] < p->qmin || zp[j] > p->qmax)
			return qc_errf(err, es, "zero point %d outside the dtype", (int)zp[j]);
	if (o->lo1 < p->qmin || o->hi1 > p->qmax || o->lo1 > o->hi1 || o->lo2 < p->qmin ||
	    o->hi2 > p->qmax || o->lo2 > o->hi2)
		return qc_errf(err, es, "lo1..hi1 and lo2..hi2 must be ranges within the dtype");
	if ((o->hi1 - o->lo1 + 1) * (o->hi2 - o->lo2 + 1) > EW_PAIRS_MAX)
		return qc_errf(err, es, "more than 2^24 pairs: narrow lo1..hi1 or lo2..hi2");
	if (o->ymax < 0 || o->ymax > QC_EW_YMAX)
		return qc_errf(err, es, "ymax must be in [0, %d]", QC_EW_YMAX);
	if (o->op == QC_EW_MUL) {
		float prod = s[0] * s[1]; /* float32 math, one rounding each (mul.cc) */
		float ratio = prod / s[2];
		double dd = (double)s[0] * (double)s[1] / (double)s[2];
		if (!isfinite(ratio) || !(ratio > 0))
			return qc_errf(err, es,
			               "MUL: f32(s1 * s2) / s_out is not a positive float32");
		for (int b = 0; b < 2; b++) {
			p->out[b] = ew_quantize((double)ratio, b);
			p->other[0][b] = ew_quantize(dd, b);
			p->other[1][b] = ew_quantize((double)prod / (double)s[2], b);
			p->other[2][b] = ew_quantize((double)(float)dd, b);
		}
		return 0;
	}
	p->ls = o->int16 ? 15 : 20;
	double tm = 2.0 * (double)(s[0] > s[1] ? s[0] : s[1]);
	double r[3] = {(double)s[0] / tm, (double)s[1] / tm,
	               tm / ((double)(1 << p->ls) * (double)s[2])};
	if (!(r[2] < 1.0))
		return qc_errf(err, es, "ADD / SUB: 2 max(s1, s2) / (2^%d s_out) must be < 1",
		               p->ls);
	for (int b = 0; b < 2; b++) {
		p->in[0][b] = ew_quantize(r[0], b);
		p->in[1][b] = ew_quantize(r[1], b);
		p->out[b] = ew_quantize(r[2], b);
		if (p->in[0][b].e > 0 || p->in[1][b].e > 0 || p->out[b].e > 0)
			return qc_errf(err, es, "ADD / SUB: a multiplier rounds up to 1");
	}
	return 0;
}

static int ew_in_range(const ew_pipe *p, const qc_ew_opts *o, int64_t y)
{
	return y >= -o->ymax && y <= o->ymax && y + o->zp_out >= p->qmin &&
	       y + o->zp_out <= p->qmax;
}

/* One input's rescale v = MBQM_LT1((q - zp) 2^ls) per build and its other roundings. */
typedef struct ew_in {
	int32_t v[2];
	int64_t alt[2][2];
	int st[2][2], nalt[2];
} ew_in;

static ew_in *ew_inputs(const ew_pipe *p, int i, int64_t lo, int64_t hi, int32_t zp)
{
	ew_in *t = calloc((size_t)(hi - lo + 1), sizeof *t);
	if (!t)
		return NULL;
	for (int64_t q = lo; q <= hi; q++) {
		ew_in *e = &t[q - lo];
		/* |q - zp| <= 255 with ls 20, <= 65535 with ls 15: fits int32 */
		int32_t x = (int32_t)((q - zp) * ((int64_t)1 << p->ls));
		for (int b = 0; b < 2; b++) {
			e->v[b] = qref_mbqm_lt1(x, p->in[i][b].m, p->in[i][b].e,
			                        b ? QREF_ROUND_SINGLE : QREF_ROUND_DOUBLE);
			e->nalt[b] = ew_alts(&p->in[i][b], b, x, e->v[b], e->alt[b], e->st[b]);
		}
	}
	return t;
}

static int sgn3(int64_t v)
{
	return v < 0 ? 0 : v == 0 ? 1 : 2;
}

/* Could the output stage tie at x (the double build's input) or x2 (the single build's)?
 * ew_ties before any output is computed: 0 only where neither build has a tie, or where a
 * build's stage is undefined (ew_out not ok: the pair is of no class). */
static int ew_may_tie(const ew_pipe *p, int64_t x, int64_t x2)
{
	const ew_stage *d = &p->out[0], *f = &p->out[1];
	if (x < INT32_MIN || x > INT32_MAX || x2 < INT32_MIN || x2 > INT32_MAX || d->e > 30 ||
	    f->e > 30)
		return 0;
	if (!qref_mbqm_preshift_fits((int32_t)x, d->e))
		return 1; /* ew_out decides */
	int32_t h;
	return ew_ties(d, 0, (int32_t)x, &h) || ew_ties(f, 1, (int32_t)x2, &h);
}

/* The classes (bit c) the pair (q1, q2) is of kind in, *y its double-build output: TIE the tie
 * stage, TIE_IN 3 * input + stage, F32 the other multiplier. */
static int ew_pair_classes(const ew_pipe *p, const qc_ew_opts *o, qc_ew_kind kind, const ew_in *i1,
                           const ew_in *i2, int64_t q1, int64_t q2, int64_t *y)
{
	int64_t yb[2], alt[2], x[2];
	int ok, st[2], bits = 0;
	const int sub = p->op == QC_EW_SUB;
	for (int b = 0; b < 2; b++)
		x[b] = p->op == QC_EW_MUL ? (q1 - o->zp1) * (q2 - o->zp2)
		       : sub              ? (int64_t)i1->v[b] - i2->v[b]
		                          : (int64_t)i1->v[b] + i2->v[b];
	if (kind == QC_EW_TIE && !o->exhaustive && !ew_may_tie(p, x[0], x[1]))
		return 0;
	for (int b = 0; b < 2; b++) {
		yb[b] = ew_out(&p->out[b], b, x[b], &ok);
		if (!ok || !ew_in_range(p, o, yb[b]))
			return 0;
	}
	*y = yb[0];
	for (int b = 0; b < 2; b++) {
		if (kind == QC_EW_TIE) {
			int n = ew_alts(&p->out[b], b, (int32_t)x[b], yb[b], alt, st);
			for (int k = 0; k < n; k++)
				if (stage_wanted(o, st[k]) && ew_in_range(p, o, alt[k]))
					bits |= 1 << st[k];
		} else if (kind == QC_EW_F32) {
			for (int k = 0; k < 3; k++) {
				int64_t v = ew_out(&p->other[k][b], b, x[b], &ok);
				if (ok && v != yb[0] && v != yb[1] && ew_in_range(p, o, v))
					bits |= 1 << k;
			}
		} else {
			const ew_in *in[2] = {i1, i2};
			for (int i = 0; i < 2; i++)
				for (int k = 0; k < in[i]->nalt[b]; k++) {
					if (!stage_wanted(o, in[i]->st[b][k]))
						continue;
					int64_t d = in[i]->alt[b][k] - in[i]->v[b];
					int64_t v = ew_out(&p->out[b], b,
					                   x[b] + (sub && i ? -d : d), &ok);
					if (ok && v != yb[b] && ew_in_range(p, o, v))
						bits |= 1 << (3 * i + in[i]->st[b][k]);
				}
		}
	}
	return bits;
}

/* The pairs (a, c) of one a whose double-build output is in range: an interval of c. The
 * output as a key: y where ew_out is ok, else -/+ infinity by the sign of x (ok holds on an
 * interval of x around 0, on which y does not decrease, the multiplier being positive); x is
 * monotone in c (ADD: v2 does not decrease with c; SUB: x falls; MUL: (a - zp1)(c - zp2)). */
typedef struct ew_row {
	const ew_pipe *p;
	const qc_ew_opts *o;
	const ew_in *i1, *in2;
	int64_t a;
} ew_row;

static int64_t ew_key(const ew_row *r, int64_t c)
{
	const ew_pipe *p = r->p;
	const qc_ew_opts *o = r->o;
	int64_t x = p->op == QC_EW_MUL   ? (r->a - o->zp1) * (c - o->zp2)
	            : p->op == QC_EW_SUB ? (int64_t)r->i1->v[0] - r->in2[c - o->lo2].v[0]
	                                 : (int64_t)r->i1->v[0] + r->in2[c - o->lo2].v[0];
	int ok;
	int64_t y = ew_out(&p->out[0], 0, x, &ok);
	return ok ? y : x > 0 ? INT64_MAX : INT64_MIN;
}

/* The first c in [lo, hi + 1] with key(c) >= v (up: the key does not decrease with c) or
 * key(c) <= v (down: it does not increase). */
static int64_t ew_first(const ew_row *r, int64_t lo, int64_t hi, int64_t v, int up)
{
	while (lo <= hi) {
		int64_t mid = lo + (hi - lo) / 2, k = ew_key(r, mid);
		if (up ? k >= v : k <= v)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The c of row r whose output is within [ylo, yhi]: [*c0, *c1] (empty when *c0 > *c1). */
static void ew_row_span(const ew_row *r, int64_t ylo, int64_t yhi, int64_t *c0, int64_t *c1)
{
	const qc_ew_opts *o = r->o;
	int up = r->p->op == QC_EW_ADD || (r->p->op == QC_EW_MUL && r->a >= o->zp1);
	if (up) {
		*c0 = ew_first(r, o->lo2, o->hi2, ylo, 1);
		*c1 = ew_first(r, o->lo2, o->hi2, yhi + 1, 1) - 1;
	} else {
		*c0 = ew_first(r, o->lo2, o->hi2, yhi, 0);
		*c1 = ew_first(r, o->lo2, o->hi2, ylo - 1, 0) - 1;
	}
}

/* qc_ew_pairs, stopping at the first stop_after pairs found when stop_after > 0 (what
 * qc_ew_scales needs to know of a candidate: whether it has that many). */
static int ew_search(const float s[3], qc_ew_kind kind, const qc_ew_opts *o, int32_t *q1,
                     int32_t *q2, int max, int stop_after, uint64_t *work, char *err,
                     size_t err_size)
{
	ew_pipe p;
	if (ew_setup(s, o, &p, err, err_size) < 0)
		return -1;
	if (kind == QC_EW_TIE_IN && o->op == QC_EW_MUL)
		return qc_errf(err, err_size, "tie_in: ADD and SUB only (MUL has one stage)");
	if (kind == QC_EW_F32 && o->op != QC_EW_MUL)
		return qc_errf(err, err_size, "f32: MUL only (ADD's multipliers are double)");
	if (kind != QC_EW_TIE && kind != QC_EW_TIE_IN && kind != QC_EW_F32)
		return qc_errf(err, err_size, "unknown kind %d", (int)kind);
	/* buckets: class-major; within a class by y (0, -1, 1, ...), then the signs */
	const size_t per = (size_t)(2 * o->ymax + 1) * 9, nb = per * EW_CLASSES;
	int64_t *best = malloc(nb * sizeof *best);
	ew_in *in1 = NULL, *in2 = NULL;
	if (o->op != QC_EW_MUL) {
		in1 = ew_inputs(&p, 0, o->lo1, o->hi1, o->zp1);
		in2 = ew_inputs(&p, 1, o->lo2, o->hi2, o->zp2);
	}
	if (!best || (o->op != QC_EW_MUL && (!in1 || !in2))) {
		free(best);
		free(in1);
		free(in2);
		return qc_errf(err, err_size, "out of memory");
	}
	for (size_t k = 0; k < nb; k++)
		best[k] = -1;
	const int64_t n2 = o->hi2 - o->lo2 + 1;
	/* tie_in: a pair is of a class only where one of its inputs has another rounding; in a
	 * row whose first input has none, only the columns whose second input has one are
	 * looked at (next_alt[c]: the first such column from c, or hi2 + 1), the others counted
	 * as visited all the same */
	int64_t *next_alt = NULL;
	if (kind == QC_EW_TIE_IN && !o->exhaustive) {
		next_alt = malloc((size_t)n2 * sizeof *next_alt);
		if (!next_alt) {
			free(best);
			free(in1);
			free(in2);
			return qc_errf(err, err_size, "out of memory");
		}
		for (int64_t c = o->hi2, nx = o->hi2 + 1; c >= o->lo2; c--) {
			const ew_in *e = &in2[c - o->lo2];
			if (e->nalt[0] || e->nalt[1])
				nx = c;
			next_alt[c - o->lo2] = nx;
		}
	}
	int64_t visited = 0;
	int found = 0; /* pairs kept (each in a bucket of its own: none is a duplicate) */
	/* outside [ylo, yhi] a pair is of no class (ew_pair_classes, ew_in_range) */
	int64_t ylo = -o->ymax > p.qmin - o->zp_out ? -o->ymax : p.qmin - o->zp_out;
	int64_t yhi = o->ymax < p.qmax - o->zp_out ? o->ymax : p.qmax - o->zp_out;
	for (int64_t a = o->lo1; a <= o->hi1 && !(stop_after > 0 && found >= stop_after); a++) {
		const ew_in *i1 = in1 ? &in1[a - o->lo1] : NULL;
		int64_t c0 = o->lo2, c1 = o->hi2;
		if (!o->exhaustive) {
			ew_row row = {&p, o, i1, in2, a};
			ew_row_span(&row, ylo, yhi, &c0, &c1);
		}
		int sparse = next_alt && !i1->nalt[0] && !i1->nalt[1];
		for (int64_t c = c0; c <= c1 && !(stop_after > 0 && found >= stop_after); c++) {
			if (sparse) {
				int64_t nc = next_alt[c - o->lo2];
				if (nc > c1) {
					visited += c1 - c + 1;
					break;
				}
				visited += nc - c;
				c = nc;
			}
			int64_t y = 0;
			visited++;
			int bits = ew_pair_classes(&p, o, kind, i1, in2 ? &in2[c - o->lo2] : NULL,
			                           a, c, &y);
			size_t k = (size_t)(y >= 0 ? 2 * y : -2 * y - 1) * 9 +
			           (size_t)(3 * sgn3(a - o->zp1) + sgn3(c - o->zp2));
			int kept = 0;
			for (int cl = 0; bits && cl < EW_CLASSES; cl++)
				if ((bits >> cl & 1) && best[cl * per + k] < 0) {
					best[cl * per + k] = (a - o->lo1) * n2 + (c - o->lo2);
					kept = 1;
				}
			found += kept;
		}
	}
	*work += (uint64_t)visited;
	/* round robin over the classes: the first pair of each, then the second, ... */
	size_t cur[EW_CLASSES] = {0};
	int n = 0, more = 1;
	while (n < max && more) {
		more = 0;
		for (int cl = 0; cl < EW_CLASSES && n < max; cl++) {
			while (cur[cl] < per && best[cl * per + cur[cl]] < 0)
				cur[cl]++;
			if (cur[cl] == per)
				continue;
			more = 1;
			int64_t v = best[cl * per + cur[cl]++];
			int32_t a = (int32_t)(o->lo1 + v / n2), c = (int32_t)(o->lo2 + v % n2);
			int dup = 0;
			for (int i = 0; i < n && !dup; i++)
				dup = q1[i] == a && q2[i] == c;
			if (!dup) {
				q1[n] = a;
				q2[n] = c;
				n++;
			}
		}
	}
	free(best);
	free(next_alt);
	free(in1);
	free(in2);
	return n;
}

int qc_ew_pairs(const float s[3], qc_ew_kind kind, const qc_ew_opts *o, int32_t *q1, int32_t *q2,
                int max, uint64_t *work, char *err, size_t err_size)
{
	return ew_search(s, kind, o, q1, q2, max, 0, work, err, err_size);
}

int qc_ew_scales(qc_ew_kind kind, const qc_ew_opts *o, float (*out)[3], int max, uint64_t *work,
                 char *err, size_t err_size)
{
	float s[3] = {o->s1, o->s2, o->s_out};
	int need = o->min_pairs < 1 ? 1 : o->min_pairs;
	int32_t *a = malloc((size_t)need * 2 * sizeof *a);
	if (!a)
		return qc_errf(err, err_size, "out of memory");
	int n = 0, it;
	uint64_t w0 = *work;
	char why[256] = "";
	if (o->ratio < 0 || (o->ratio > 0 && o->step_out) || !isfinite(o->ratio)) {
		free(a);
		return qc_errf(err, err_size, "ratio must be finite and > 0, and s2 must step");
	}
	for (it = 0; it < 4096 && n < max && *work - w0 <= EW_WORK_MAX; it++) {
		if (o->ratio > 0)
			s[2] = (float)((o->op == QC_EW_MUL ? (double)s[0] * (double)s[1]
			                                   : (double)(s[0] > s[1] ? s[0] : s[1])) /
			               o->ratio);
		int c = ew_search(s, kind, o, a, a + need, need, need, work, why, sizeof why);
		if (c < 0 && !strstr(why, "ADD / SUB:") && !strstr(why, "MUL:")) {
			free(a);
			return qc_errf(err, err_size, "%s", why); /* the options, not the scales */
		}
		if (c >= need)
			memcpy(out[n++], s, sizeof s);
		float *st = o->step_out ? &s[2] : &s[1];
		*st = nextafterf(*st, INFINITY);
	}
	free(a);
	if (n < max)
		return qc_errf(err, err_size,
		               "only %d of %d triples with %d pairs found in %d candidates", n, max,
		               need, it);
	return n;
}
