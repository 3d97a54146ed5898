/*
 * gen: the input generators (gen.h): values of a float dtype carried as double, the edge
 * lists, grid and tensor checks, storing, the other kinds. The requantization edges are in
 * gen_requant.c.
 */
#include "spec/gen.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "reference/dtype.h"
#include "reference/ggml.h"

static const char *const kind_names[] = {"uniform", "normal", "choice", "sequence", "edges"};

int qc_gen_kind_parse(const char *name)
{
	for (int k = 0; name && k < 5; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return -1;
}

const char *qc_gen_kind_name(qc_gen_kind k)
{
	return (int)k >= 0 && (int)k < 5 ? kind_names[k] : "unknown";
}

/* ---- values of a float dtype T, carried as double ---------------------- */

static double from16(qcf_dtype T, uint16_t b)
{
	return T == QCF_FLOAT16 ? qref_f16_to_f32(b) : qref_bf16_to_f32(b);
}

/* Bits of x, which must be representable in T. */
static uint64_t tbits(qcf_dtype T, double x)
{
	switch (T) {
	case QCF_FLOAT16: return qref_f32_to_f16((float)x);
	case QCF_BFLOAT16: return qref_f32_to_bf16((float)x);
	case QCF_FLOAT32: {
		float f = (float)x;
		uint32_t b;
		memcpy(&b, &f, 4);
		return b;
	}
	default: {
		uint64_t b;
		memcpy(&b, &x, 8);
		return b;
	}
	}
}

/* The small floats (float8/6/4, e8m0) of ABI 2: their values by code. */
static int is_small(qcf_dtype T)
{
	return qref_dtype_is_small_float(T) || T == QCF_FLOAT8E8M0;
}

static double small_value(qcf_dtype T, unsigned code)
{
	return T == QCF_FLOAT8E8M0 ? qref_e8m0_to_f32((uint8_t)code)
	                           : qref_small_to_f32(T, (uint8_t)code);
}

static unsigned small_codes(qcf_dtype T)
{
	return T == QCF_FLOAT4E2M1 ? 16 : (T == QCF_FLOAT6E3M2 || T == QCF_FLOAT6E2M3) ? 64 : 256;
}

static double tmax(qcf_dtype T)
{
	if (is_small(T))
		return T == QCF_FLOAT8E8M0 ? 0x1p127 : qref_small_max(T);
	switch (T) {
	case QCF_FLOAT16: return 65504.0;
	case QCF_BFLOAT16: return qref_bf16_to_f32(0x7f7f);
	case QCF_FLOAT32: return FLT_MAX;
	default: return DBL_MAX;
	}
}

static double tmin_sub(qcf_dtype T)
{
	if (is_small(T))
		return small_value(T, T == QCF_FLOAT8E8M0 ? 0 : 1);
	switch (T) {
	case QCF_FLOAT16: return 0x1p-24;
	case QCF_BFLOAT16: return 0x1p-133;
	case QCF_FLOAT32: return 0x1p-149;
	default: return 0x1p-1074;
	}
}

/* Next value of T after x (representable in T) towards +inf (dir > 0) or -inf. */
static double tnext(qcf_dtype T, double x, int dir)
{
	if (isnan(x))
		return x;
	if (T == QCF_FLOAT64)
		return nextafter(x, dir > 0 ? INFINITY : -INFINITY);
	if (T == QCF_FLOAT32)
		return nextafterf((float)x, dir > 0 ? INFINITY : -INFINITY);
	if (is_small(T)) { /* the nearest value past x, by search over the codes */
		double best = x;
		for (unsigned c = 0; c < small_codes(T); c++) {
			double v = small_value(T, c);
			if (!isnan(v) && (dir > 0 ? v > x : v < x) &&
			    (best == x || (dir > 0 ? v < best : v > best)))
				best = v;
		}
		return best;
	}
	uint16_t b = (uint16_t)tbits(T, x), sign = b & 0x8000, mag = b & 0x7fff;
	uint16_t inf = T == QCF_FLOAT16 ? 0x7c00 : 0x7f80;
	if (mag == 0)
		return from16(T, dir > 0 ? 0x0001 : 0x8001);
	if ((dir > 0) == (sign == 0)) { /* away from zero */
		if (mag == inf)
			return x;
		mag++;
	} else {
		mag--;
	}
	return from16(T, (uint16_t)(sign | mag));
}

/* v rounded to nearest T, ties to even (one rounding, no double rounding). */
static double tround(qcf_dtype T, double v)
{
	if (T == QCF_FLOAT64 || isnan(v))
		return v;
	if (T == QCF_FLOAT32)
		return (float)v;
	if (T == QCF_FLOAT8E8M0)
		return qref_e8m0_to_f32(qref_e8m0_from(v, 1, QREF_E8M0_NEAREST));
	if (is_small(T)) /* saturating: small floats mostly have no infinity */
		return qref_small_to_f32(T, qref_small_from(T, v, 1));
	/* via float32: at most one ulp of T off, then corrected */
	float f = (float)v;
	double c = from16(T, T == QCF_FLOAT16 ? qref_f32_to_f16(f) : qref_f32_to_bf16(f));
	if (isinf(v))
		return c;
	double mx = tmax(T);
	if (isinf(c) || fabs(c) == mx) {
		double threshold = mx + (mx - tnext(T, mx, -1)) / 2; /* ties go to inf (even) */
		if (fabs(v) >= threshold)
			return v > 0 ? INFINITY : -INFINITY;
		if (isinf(c))
			c = v > 0 ? mx : -mx;
	}
	if (v == c)
		return c;
	double o = tnext(T, c, v > c ? 1 : -1);
	if (isinf(o))
		return c;
	double m = (c + o) / 2; /* exact: T has few bits */
	if (v == m)
		return (tbits(T, c) & 1) ? o : c;
	return (v > c) == (v > m) ? o : c;
}

/* ---- edge lists -------------------------------------------------------- */

typedef struct elist {
	double *f;  /* float tensors */
	int64_t *q; /* integer tensors */
	size_t n, cap;
	int oom;
} elist;

static int grow(elist *l, int is_int)
{
	if (l->n < l->cap)
		return 1;
	size_t cap = l->cap ? 2 * l->cap : 256;
	void *p = is_int ? realloc(l->q, cap * sizeof *l->q) : realloc(l->f, cap * sizeof *l->f);
	if (!p) {
		l->oom = 1;
		return 0;
	}
	if (is_int)
		l->q = p;
	else
		l->f = p;
	l->cap = cap;
	return 1;
}

static void push_q(elist *l, int64_t v)
{
	if (grow(l, 1))
		l->q[l->n++] = v;
}

/* One channel of a float grid. */
typedef struct fch {
	qcf_dtype T;
	float sf;   /* scale */
	double s;   /* the same, as double */
	int64_t zi; /* integer zero point */
	double z;   /* exact zero point (float_zero_points if given) */
	int float_zp;
	int64_t qmin, qmax;
	int nonfinite;
} fch;

static void push_f(elist *l, const fch *c, double v)
{
	if (!c->nonfinite && isinf(v))
		v = v > 0 ? tmax(c->T) : -tmax(c->T);
	if (grow(l, 0))
		l->f[l->n++] = v;
}

/* Tie between levels j and j + 1, rounded to T. */
static double tie_of(const fch *c, int64_t j)
{
	double h = c->float_zp ? ((double)j + 0.5 - c->z) : ((double)(j - c->zi) + 0.5);
	return tround(c->T, h * c->s);
}

/* Does a kernel multiplying by the reciprocal scale land exactly on the tie above level j? */
static int recip_hit(const fch *c, double x, int64_t j)
{
	if (isinf(x) || isnan(x))
		return 0;
	if (c->T == QCF_FLOAT64) {
		double inv = 1.0 / c->s, p = x * inv;
		if (c->float_zp)
			return c->z + p == (double)j + 0.5;
		return p == (double)(j - c->zi) + 0.5;
	}
	const float inv = 1.0f / c->sf;
	const float xf = (float)x;
	const float p = xf * inv;
	if (c->float_zp) {
		const float zf = (float)c->z;
		const float sum = zf + p;
		return (double)sum == (double)j + 0.5;
	}
	return (double)p == (double)(j - c->zi) + 0.5;
}

#define RECIP_ULPS 4

/* Entries for level j: tie, its neighbours, reciprocal ties. fixed4: exactly 4 entries. */
static void push_level(elist *l, const fch *c, int64_t j, int fixed4)
{
	double t = tie_of(c, j), below = tnext(c->T, t, -1), above = tnext(c->T, t, 1);
	push_f(l, c, t);
	push_f(l, c, below);
	push_f(l, c, above);
	double x = t;
	for (int u = 0; u < RECIP_ULPS; u++)
		x = tnext(c->T, x, -1);
	int found = 0;
	for (int u = -RECIP_ULPS; u <= RECIP_ULPS; u++, x = tnext(c->T, x, 1)) {
		if (!recip_hit(c, x, j))
			continue;
		if (fixed4) {
			push_f(l, c, x);
			return;
		}
		if (u < -1 || u > 1) /* -1, 0, 1 are already in */
			push_f(l, c, x);
		found = 1;
	}
	if (fixed4 && !found)
		push_f(l, c, t);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Adds v to set if lo <= v <= hi. */
static void add_in(int64_t *set, size_t *n, int64_t v, int64_t lo, int64_t hi)
{
	if (v >= lo && v <= hi)
		set[(*n)++] = v;
}

static size_t sort_unique(int64_t *set, size_t n)
{
	qsort(set, n, sizeof *set, cmp_i64);
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (m == 0 || set[m - 1] != set[k])
			set[m++] = set[k];
	return m;
}

/* a + b clamped to int64 */
static int64_t sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/* Offsets 0, +-1, +-2^b, +-2^b - 1 ... used around the zero point and in the integer lists. */
static void add_pow2(int64_t *set, size_t *n, int64_t base, int64_t lo, int64_t hi)
{
	for (int b = 0; b < 63; b++) {
		int64_t p = (int64_t)1 << b;
		add_in(set, n, sat_add(base, p), lo, hi);
		add_in(set, n, sat_add(base, p - 1), lo, hi);
		add_in(set, n, sat_add(base, -p), lo, hi);
		add_in(set, n, sat_add(sat_add(base, -p), -1), lo, hi);
	}
}

#define SET_MAX 400

static void build_float(elist *l, const fch *c, qc_rng *rng)
{
	int64_t lo = c->qmin - 1, hi = c->qmax;
	if (c->qmax - c->qmin + 1 <= 256) {
		for (int64_t j = lo; j <= hi; j++)
			push_level(l, c, j, 0);
	} else {
		int64_t set[SET_MAX];
		size_t n = 0;
		for (int64_t d = 0; d < 4; d++) {
			add_in(set, &n, c->qmin - 1 + d, lo, hi);
			add_in(set, &n, c->qmax - d, lo, hi);
		}
		for (int64_t k = -4; k <= 3; k++)
			add_in(set, &n, c->zi + k, lo, hi);
		add_pow2(set, &n, c->zi, lo, hi);
		n = sort_unique(set, n);
		for (size_t k = 0; k < n; k++)
			push_level(l, c, set[k], 0);
	}
	/* saturation ends, beyond them, specials */
	double qlo = c->float_zp ? (double)c->qmin - c->z : (double)(c->qmin - c->zi);
	double qhi = c->float_zp ? (double)c->qmax - c->z : (double)(c->qmax - c->zi);
	double ends[2] = {tround(c->T, qlo * c->s), tround(c->T, qhi * c->s)};
	for (int e = 0; e < 2; e++) {
		push_f(l, c, ends[e]);
		push_f(l, c, tnext(c->T, ends[e], -1));
		push_f(l, c, tnext(c->T, ends[e], 1));
	}
	push_f(l, c, tround(c->T, (qlo - 1e6) * c->s));
	push_f(l, c, tround(c->T, (qhi + 1e6) * c->s));
	push_f(l, c, tround(c->T, (qlo - 0x1p32) * c->s));
	push_f(l, c, tround(c->T, (qhi + 0x1p32) * c->s));
	push_f(l, c, -tmax(c->T));
	push_f(l, c, tmax(c->T));
	push_f(l, c, 0.0);
	push_f(l, c, -0.0);
	push_f(l, c, tmin_sub(c->T));
	push_f(l, c, -tmin_sub(c->T));
	if (c->nonfinite) {
		push_f(l, c, NAN);
		push_f(l, c, INFINITY);
		push_f(l, c, -INFINITY);
	}
	if (c->qmax - c->qmin + 1 > 256)
		for (int k = 0; k < QC_GEN_EDGE_PICKS; k++)
			push_level(l, c, qc_rng_uniform_int(rng, lo, hi), 1);
}

static void build_int(elist *l, qcf_dtype T, int64_t qmin, int64_t qmax, int64_t zp, qc_rng *rng)
{
	int64_t dlo, dhi;
	qref_dtype_range(T, &dlo, &dhi);
	if ((uint64_t)dhi - (uint64_t)dlo < 256) {
		for (int64_t v = dlo; v <= dhi; v++)
			push_q(l, v);
		return;
	}
	int64_t set[SET_MAX];
	size_t n = 0;
	const int64_t fixed[] = {dlo,  sat_add(dlo, 1),  sat_add(dhi, -1),  dhi,  sat_add(qmin, -1),
	                         qmin, sat_add(qmin, 1), sat_add(qmax, -1), qmax, sat_add(qmax, 1),
	                         0};
	for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
		add_in(set, &n, fixed[k], dlo, dhi);
	for (int64_t d = -2; d <= 2; d++)
		add_in(set, &n, sat_add(zp, d), dlo, dhi);
	add_pow2(set, &n, 0, dlo, dhi);
	n = sort_unique(set, n);
	for (size_t k = 0; k < n; k++)
		push_q(l, set[k]);
	int64_t plo = qmin > dlo ? qmin : dlo, phi = qmax < dhi ? qmax : dhi;
	if (plo > phi) {
		plo = dlo;
		phi = dhi;
	}
	for (int k = 0; k < QC_GEN_EDGE_PICKS; k++)
		push_q(l, qc_rng_uniform_int(rng, plo, phi));
}

/* ---- grid and tensor checks -------------------------------------------- */

typedef struct layout {
	size_t n;     /* elements */
	size_t C;     /* channels (1 if per-tensor) */
	size_t inner; /* elements after the axis */
	int per_axis;
} layout;

static int check_tensor(const qcf_tensor *t, int need_data, size_t *n, char *err, size_t err_size)
{
	if (!t)
		return qc_errf(err, err_size, "gen: no tensor");
	if (!qref_dtype_is_int(t->dtype) && !qref_dtype_is_float(t->dtype))
		return qc_errf(err, err_size, "gen: tensor %s has an invalid dtype",
		               t->name ? t->name : "?");
	if (t->rank < 0 || t->rank > QCF_MAX_RANK || (t->rank > 0 && !t->shape))
		return qc_errf(err, err_size, "gen: tensor %s has a bad rank",
		               t->name ? t->name : "?");
	for (int32_t k = 0; k < t->rank; k++)
		if (t->shape[k] < 0)
			return qc_errf(err, err_size, "gen: tensor %s has a negative dimension",
			               t->name ? t->name : "?");
	*n = qref_numel(t->rank, t->shape);
	if (need_data && *n && (!t->data || t->nbytes < qcf_dtype_nbytes(t->dtype, *n)))
		return qc_errf(err, err_size, "gen: tensor %s buffer holds %zu bytes, needs %zu",
		               t->name ? t->name : "?", t->data ? t->nbytes : (size_t)0,
		               qcf_dtype_nbytes(t->dtype, *n));
	return 0;
}

static int check_grid(const qc_grid *g, const qcf_tensor *t, size_t n, layout *lay, char *err,
                      size_t err_size)
{
	int is_float = qref_dtype_is_float(t->dtype) && !is_small(t->dtype);
	lay->n = n;
	lay->C = 1;
	lay->inner = 1;
	lay->per_axis = 0;
	if (!g || (is_small(t->dtype) && !g->quant)) {
		if (is_float)
			return qc_errf(err, err_size, "gen: edges for a float tensor need a grid");
		return 0;
	}
	if (g->qmin > g->qmax)
		return qc_errf(err, err_size, "gen: grid range [%" PRId64 ", %" PRId64 "] is empty",
		               g->qmin, g->qmax);
	if (g->qmin < INT32_MIN || g->qmax > INT32_MAX)
		return qc_errf(err, err_size, "gen: grid range exceeds int32");
	const qcf_quant *q = g->quant;
	if (!q) {
		if (is_float)
			return qc_errf(err, err_size,
			               "gen: edges for a float tensor need grid scales");
		return 0;
	}
	if (q->count < 1 || !q->scales || !q->zero_points)
		return qc_errf(err, err_size,
		               "gen: grid quantization has no scales or zero points");
	if (q->axis < 0) {
		if (q->count != 1)
			return qc_errf(err, err_size,
			               "gen: per-tensor grid with %" PRId32 " scales", q->count);
	} else {
		if (q->axis >= t->rank || t->shape[q->axis] != q->count)
			return qc_errf(err, err_size,
			               "gen: grid axis %" PRId32 " with %" PRId32
			               " channels does not match tensor %s",
			               q->axis, q->count, t->name ? t->name : "?");
		lay->per_axis = 1;
		lay->C = (size_t)q->count;
		for (int32_t k = q->axis + 1; k < t->rank; k++)
			lay->inner *= (size_t)t->shape[k];
	}
	for (int32_t c = 0; c < q->count; c++) {
		if (is_float && !(isfinite(q->scales[c]) && q->scales[c] > 0))
			return qc_errf(err, err_size,
			               "gen: grid scale[%" PRId32 "] = %.9g is not positive", c,
			               (double)q->scales[c]);
		if (q->float_zero_points && !isfinite(q->float_zero_points[c]))
			return qc_errf(err, err_size,
			               "gen: grid float zero point[%" PRId32 "] is not finite", c);
	}
	return 0;
}

/* Builds every channel's list (channel order). lists[C] must be zeroed. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A small-float tensor's list: every value of the type, in code order (NaN and the
 * infinities only with nonfinite). */
static void build_codes(elist *l, qcf_dtype T, int nonfinite)
{
	for (unsigned c = 0; c < small_codes(T); c++) {
		double v = small_value(T, c);
		if (nonfinite || isfinite(v))
			if (grow(l, 0))
				l->f[l->n++] = v;
	}
}

/* A float tensor quantized to the small float G (scale s, float zero point z): per value v of
 * G, (v - z) * s; per pair of neighbours, the tie between them and its two neighbours in T;
 * the tie past the largest value (where saturation or overflow starts) and its neighbours,
 * twice the largest value, T's largest; zeros and T's smallest subnormals; NaN and the
 * infinities with nonfinite. Every x is rounded to T once. */
static void build_small_grid(elist *l, const fch *c, qcf_dtype G)
{
	double vals[256];
	size_t n = 0;
	for (unsigned k = 0; k < small_codes(G); k++) {
		double v = small_value(G, k);
		if (isfinite(v) && !(v == 0 && signbit(v)))
			vals[n++] = v;
	}
	qsort(vals, n, sizeof *vals, cmp_double);
	for (size_t k = 0; k < n; k++)
		push_f(l, c, tround(c->T, (vals[k] - c->z) * c->s));
	for (size_t k = 0; k + 1 < n; k++) {
		double t = tround(c->T, ((vals[k] + vals[k + 1]) / 2 - c->z) * c->s);
		push_f(l, c, t);
		push_f(l, c, tnext(c->T, t, -1));
		push_f(l, c, tnext(c->T, t, 1));
	}
	double top = vals[n - 1], bottom = vals[0];
	double over_hi = top + (top - vals[n - 2]) / 2, over_lo = bottom - (vals[1] - bottom) / 2;
	const double past[] = {over_hi, over_lo};
	for (int k = 0; k < 2; k++) {
		double t = tround(c->T, (past[k] - c->z) * c->s);
		push_f(l, c, t);
		push_f(l, c, tnext(c->T, t, -1));
		push_f(l, c, tnext(c->T, t, 1));
	}
	push_f(l, c, tround(c->T, (2 * top - c->z) * c->s));
	push_f(l, c, tround(c->T, (2 * bottom - c->z) * c->s));
	push_f(l, c, tmax(c->T));
	push_f(l, c, -tmax(c->T));
	push_f(l, c, 0.0);
	push_f(l, c, -0.0);
	push_f(l, c, tmin_sub(c->T));
	push_f(l, c, -tmin_sub(c->T));
	if (c->nonfinite) {
		push_f(l, c, NAN);
		push_f(l, c, INFINITY);
		push_f(l, c, -INFINITY);
	}
}

static int build_lists(const qc_grid *g, const qcf_tensor *t, const layout *lay, qc_rng *rng,
                       elist *lists, char *err, size_t err_size)
{
	const qcf_quant *q = g ? g->quant : NULL;
	for (size_t c = 0; c < lay->C; c++) {
		if (is_small(t->dtype)) {
			build_codes(&lists[c], t->dtype, g && g->nonfinite);
		} else if (qref_dtype_is_float(t->dtype)) {
			fch ch = {.T = t->dtype,
			          .sf = q->scales[c],
			          .s = q->scales[c],
			          .zi = q->zero_points[c],
			          .z = q->float_zero_points ? q->float_zero_points[c]
			                                    : q->zero_points[c],
			          .float_zp = q->float_zero_points != NULL,
			          .qmin = g->qmin,
			          .qmax = g->qmax,
			          .nonfinite = g->nonfinite};
			if (g->dtype && is_small(g->dtype))
				build_small_grid(&lists[c], &ch, g->dtype);
			else
				build_float(&lists[c], &ch, rng);
		} else {
			int64_t dlo, dhi;
			qref_dtype_range(t->dtype, &dlo, &dhi);
			build_int(&lists[c], t->dtype, g ? g->qmin : dlo, g ? g->qmax : dhi,
			          q ? q->zero_points[c] : 0, rng);
		}
		if (lists[c].oom)
			return qc_errf(err, err_size, "gen: out of memory");
	}
	return 0;
}

static void free_lists(elist *lists, size_t C)
{
	for (size_t c = 0; lists && c < C; c++) {
		free(lists[c].f);
		free(lists[c].q);
	}
	free(lists);
}

/* Builds the lists for t; returns NULL (with err) on failure. */
static elist *edge_lists(const qc_grid *g, const qcf_tensor *t, size_t n, layout *lay, qc_rng *rng,
                         char *err, size_t err_size)
{
	if (check_grid(g, t, n, lay, err, err_size))
		return NULL;
	elist *lists = calloc(lay->C, sizeof *lists);
	if (!lists) {
		qc_errf(err, err_size, "gen: out of memory");
		return NULL;
	}
	if (build_lists(g, t, lay, rng, lists, err, err_size)) {
		free_lists(lists, lay->C);
		return NULL;
	}
	return lists;
}

/* ---- storing ------------------------------------------------------------ */

static void store_int(qcf_tensor *t, size_t i, int64_t v)
{
	if (t->dtype == QCF_INT64)
		((int64_t *)t->data)[i] = v;
	else
		qref_set(t, i, (double)v);
}

/* v must be representable in the tensor's float type (or NaN/inf). */
static void store_float(qcf_tensor *t, size_t i, double v)
{
	qref_set(t, i, v);
}

/* Random values saturate at the largest finite value: only edges make inf. */
static double finite_in(qcf_dtype T, double v)
{
	double r = tround(T, v);
	return isinf(r) ? (r > 0 ? tmax(T) : -tmax(T)) : r;
}

/* (a * b + c) mod m without overflow for m < 2^32 */
static uint64_t walk(uint64_t r, uint64_t m, uint64_t p, uint64_t off, uint64_t len)
{
	return ((r % len) * (m % len) % len + p % len + off % len) % len;
}

static int fill_edges(const qc_gen *gen, qc_rng *rng, uint64_t repeat, const qc_grid *g,
                      qcf_tensor *t, size_t n, char *err, size_t err_size)
{
	layout lay;
	elist *lists = edge_lists(g, t, n, &lay, rng, err, err_size);
	if (!lists)
		return -1;
	const qcf_quant *q = g ? g->quant : NULL;
	size_t m = lay.C ? n / lay.C : 0;
	int is_float = qref_dtype_is_float(t->dtype);
	for (size_t i = 0; i < n; i++) {
		size_t c = 0, p = i;
		if (lay.per_axis) {
			c = (size_t)qref_channel(t, q, i);
			p = (i / (lay.inner * lay.C)) * lay.inner + i % lay.inner;
		}
		const elist *l = &lists[c];
		uint64_t k = walk(repeat, m, p, gen->offset, l->n);
		if (is_float)
			store_float(t, i, l->f[k]);
		else
			store_int(t, i, l->q[k]);
	}
	free_lists(lists, lay.C);
	return 0;
}

size_t qc_gen_edges_count(const qc_grid *grid, const qcf_tensor *t)
{
	size_t n, best = 0;
	layout lay;
	qc_rng rng;
	qc_rng_seed(&rng, 0); /* lengths do not depend on the draws */
	if (check_tensor(t, 0, &n, NULL, 0))
		return 0;
	elist *lists = edge_lists(grid, t, n, &lay, &rng, NULL, 0);
	if (!lists)
		return 0;
	for (size_t c = 0; c < lay.C; c++)
		if (lists[c].n > best)
			best = lists[c].n;
	free_lists(lists, lay.C);
	return best;
}

uint64_t qc_gen_edges_repeats(const qc_grid *grid, const qcf_tensor *t)
{
	size_t n;
	layout lay;
	qc_rng rng;
	qc_rng_seed(&rng, 0);
	if (check_tensor(t, 0, &n, NULL, 0))
		return 0;
	elist *lists = edge_lists(grid, t, n, &lay, &rng, NULL, 0);
	if (!lists)
		return 0;
	uint64_t best = 1;
	size_t m = lay.C ? n / lay.C : 0;
	for (size_t c = 0; m && c < lay.C; c++) {
		uint64_t r = (lists[c].n + m - 1) / m;
		if (r > best)
			best = r;
	}
	free_lists(lists, lay.C);
	return best;
}

/* ---- the other kinds ----------------------------------------------------- */

/* An integer value of dtype T given as double: integral and in range. */
static int int_value(qcf_dtype T, double v, int64_t *out, const char *what, char *err,
                     size_t err_size)
{
	int64_t lo, hi;
	qref_dtype_range(T, &lo, &hi);
	if (!(v == floor(v)) || v < -0x1p63 || v >= 0x1p63 || (int64_t)v < lo || (int64_t)v > hi)
		return qc_errf(err, err_size,
		               "gen: %s %.17g is not a %s value (integer in [%" PRId64 ", %" PRId64
		               "])",
		               what, v, qref_dtype_name(T), lo, hi);
	*out = (int64_t)v;
	return 0;
}

static int64_t round_clamp(double v, int64_t lo, int64_t hi)
{
	double r = nearbyint(v); /* half to even */
	if (isnan(r))
		return lo > 0 ? lo : (hi < 0 ? hi : 0);
	if (r <= (double)lo)
		return lo;
	if (r >= (double)hi)
		return hi;
	return (int64_t)r;
}

/* A GGML block tensor (reference/ggml.h): its values generated as float32 (every generator as
 * for a float32 tensor of the same shape), then each row quantized with the format's reference
 * quantizer (qref_ggml_fill): the blocks a model file would hold. */
static int fill_ggml(const qc_gen *g, qc_rng *rng, uint64_t repeat, const qc_grid *grid,
                     qcf_tensor *t, char *err, size_t err_size)
{
	const size_t qk = qcf_ggml_block_elements(t->dtype);
	if (t->rank < 1 || !t->shape || t->shape[t->rank - 1] < 0 ||
	    t->shape[t->rank - 1] % (int64_t)qk)
		return qc_errf(
		        err, err_size,
		        "gen: tensor %s (%s) needs a last dimension that is a multiple of %zu",
		        t->name ? t->name : "?", qref_dtype_name(t->dtype), qk);
	qcf_tensor f = *t;
	f.dtype = QCF_FLOAT32;
	f.quant = NULL;
	const size_t n = qref_numel(t->rank, t->shape);
	f.nbytes = n * sizeof(float);
	f.data = malloc(n ? f.nbytes : 1);
	if (!f.data)
		return qc_errf(err, err_size, "gen: out of memory");
	int r = qc_gen_fill(g, rng, repeat, grid, &f, err, err_size);
	if (r == 0 && qref_ggml_fill(t, f.data) != 0)
		r = qc_errf(err, err_size, "gen: tensor %s buffer holds %zu bytes, needs %zu",
		            t->name ? t->name : "?", t->data ? t->nbytes : (size_t)0,
		            qcf_dtype_nbytes(t->dtype, n));
	free(f.data);
	return r;
}

int qc_gen_fill(const qc_gen *g, qc_rng *rng, uint64_t repeat, const qc_grid *grid, qcf_tensor *t,
                char *err, size_t err_size)
{
	size_t n;
	if (!g || !rng)
		return qc_errf(err, err_size, "gen: no generator or rng");
	if (t && qref_ggml_is_block(t->dtype))
		return fill_ggml(g, rng, repeat, grid, t, err, err_size);
	if (check_tensor(t, 1, &n, err, err_size))
		return -1;
	const qcf_dtype T = t->dtype;
	const int is_int = qref_dtype_is_int(T);
	int64_t dlo = 0, dhi = 0;
	qref_dtype_range(T, &dlo, &dhi);
	if (n)
		memset(t->data, 0, qcf_dtype_nbytes(T, n)); /* int4 padding too */

	switch (g->kind) {
	case QC_GEN_UNIFORM:
	case QC_GEN_NORMAL: {
		int64_t lo = dlo, hi = dhi;
		double flo = -1, fhi = 1;
		if (g->has_range) {
			if (is_int) {
				if (int_value(T, g->lo, &lo, "range lo", err, err_size) ||
				    int_value(T, g->hi, &hi, "range hi", err, err_size))
					return -1;
			} else if (!isfinite(g->lo) || !isfinite(g->hi) ||
			           !isfinite(g->hi - g->lo)) {
				return qc_errf(err, err_size,
				               "gen: range [%.17g, %.17g] is not finite", g->lo,
				               g->hi);
			}
			flo = g->lo;
			fhi = g->hi;
			if (flo > fhi)
				return qc_errf(err, err_size, "gen: range lo %.17g above hi %.17g",
				               flo, fhi);
		}
		if (g->kind == QC_GEN_NORMAL &&
		    (!isfinite(g->mean) || !isfinite(g->std) || g->std < 0))
			return qc_errf(err, err_size,
			               "gen: normal needs a finite mean and std >= 0");
		for (size_t i = 0; i < n; i++) {
			if (g->kind == QC_GEN_UNIFORM && is_int) {
				store_int(t, i, qc_rng_uniform_int(rng, lo, hi));
			} else if (g->kind == QC_GEN_UNIFORM) {
				double u = qc_rng_uniform01(rng);
				store_float(t, i, finite_in(T, flo + (fhi - flo) * u));
			} else {
				double x = qc_rng_normal(rng, g->mean, g->std);
				if (is_int)
					store_int(t, i, round_clamp(x, lo, hi));
				else
					store_float(t, i, finite_in(T, x));
			}
		}
		return 0;
	}
	case QC_GEN_CHOICE:
	case QC_GEN_SEQUENCE: {
		if (!g->values || g->n_values == 0)
			return qc_errf(err, err_size, "gen: %s needs at least one value",
			               qc_gen_kind_name(g->kind));
		int64_t tmp;
		for (size_t k = 0; is_int && k < g->n_values; k++)
			if (int_value(T, g->values[k], &tmp, "value", err, err_size))
				return -1;
		for (size_t i = 0; i < n; i++) {
			size_t k;
			if (g->kind == QC_GEN_CHOICE)
				k = (size_t)qc_rng_uniform_int(rng, 0, (int64_t)g->n_values - 1);
			else
				k = (size_t)walk(repeat, n, i, g->offset, g->n_values);
			if (is_int)
				store_int(t, i, (int64_t)g->values[k]);
			else
				store_float(t, i, tround(T, g->values[k]));
		}
		return 0;
	}
	case QC_GEN_EDGES: return fill_edges(g, rng, repeat, grid, t, n, err, err_size);
	}
	return qc_errf(err, err_size, "gen: unknown generator kind %d", (int)g->kind);
}
