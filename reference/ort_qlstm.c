/*
 * ONNX Runtime's com.microsoft DynamicQuantizeLSTM (specs/ort/OPERATORS.md), semantics "ort".
 *
 * Schema: onnxruntime/core/graph/contrib_ops/quantization_defs.cc (DynamicQuantizeLSTM) and
 * ContribOperators.md in microsoft/onnxruntime's docs folder. Kernel:
 * onnxruntime/contrib_ops/cpu/quantization/dynamic_quantize_lstm.cc on the deep-CPU LSTM of
 * onnxruntime/core/providers/cpu/rnn/ (lstm_base.h/.cc, uni_directional_lstm.cc, rnn_helpers.h/.cc
 * ComputeGemm and the deepcpu gate functions); onnxruntime/core/util/qmath.h
 * GetQuantizationParameter; MLAS's integer GEMM with its scale-bias output processor and its
 * logistic and tanh kernels.
 *
 * Per direction, ComputeGemm quantizes its float32 A to uint8 as DynamicQuantizeLinear does
 * (qref_dynamic_quantize_u8's formula) over the whole matrix: X once, over the first
 * max(sequence_lens) steps of every batch row (reversed per row for the reverse direction), and
 * H_{t-1} once per step, over the whole batch (with one intra-op thread: more threads split the
 * batch, each part with its own scale). acc = sum (q - zp)(w - w_zp) is exact in int32; the
 * X part of a gate is float32(float(acc) * float32(a_scale * w_scale[j])), exact; the H part is
 * added to it by the output processor, then the peephole, the bias (Wb + Rb in float32), the
 * clip, MLAS's sigmoid and tanh polynomials, C = C f + i g and H = tanh(C) o: float32 steps that
 * may fuse (ARM) and a polynomial that depends on the ISA, so the reference computes them in
 * double and gives each element the band of ort_lstm_step below (derivation: OPERATORS.md,
 * DynamicQuantizeLSTM). H_t's band decides the codes of step t + 1: when a band straddles a
 * rounding boundary of its quantization (or the scale's, or the zero point's), every later
 * output of that direction is judged by its range alone (|H| <= 1, |C| by the recurrence).
 *
 * Tensors, by name: X (float32 [S, B, I]), W (uint8 or int8 [D, I, 4H]), R (W's type
 * [D, H, 4H]), W_scale / R_scale (float32 [D] or [D, 4H]), W_zero_point / R_zero_point (W's
 * type, same shapes), then the optional B (float32 [D, 8H]), sequence_lens (int32 [B]),
 * initial_h, initial_c (float32 [D, B, H]) and P (float32 [D, 3H]); outputs Y ([S, D, B, H]),
 * Y_h and Y_c ([D, B, H]), any of them, by name. Gates in the order i, o, f, c.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "op.h"

#define U32 0x1p-24 /* the unit roundoff of float32 */
/* MLAS's logistic and tanh (MlasComputeLogistic, MlasComputeTanh) within these of the exact
 * function, absolutely: ORT 1.30 measured at most 2^-22.5 and 2^-21.8 over 900000 inputs
 * (OPERATORS.md); its logistic stays in [0, 1], its tanh in [-1 - 2^-23, 1 + 2^-23] */
#define E_SIG  0x1p-21
#define E_TANH 0x1p-20
#define H_MAX  (1 + 0x1p-22)

enum { IN_X, IN_W, IN_R, IN_WS, IN_WZ, IN_RS, IN_RZ, IN_B, IN_SL, IN_H0, IN_C0, IN_P, N_IN };
static const char *const in_names[N_IN] = {"X",
                                           "W",
                                           "R",
                                           "W_scale",
                                           "W_zero_point",
                                           "R_scale",
                                           "R_zero_point",
                                           "B",
                                           "sequence_lens",
                                           "initial_h",
                                           "initial_c",
                                           "P"};
static const char *const out_names[3] = {"Y", "Y_h", "Y_c"};

/* a value and the bound of its distance from what ORT computes */
typedef struct {
	double v, e;
} bd;

static int32_t q8(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

/* the float32 below (dir -1) or above (dir 1) the double x, or x when it is one */
static float f32_out(double x, int dir)
{
	float f = (float)x;
	if (dir < 0 && (double)f > x)
		f = nextafterf(f, -INFINITY);
	if (dir > 0 && (double)f < x)
		f = nextafterf(f, INFINITY);
	return f;
}

/*
 * GetQuantizationParameter and MlasQuantizeLinear over n values known to lie in [v - e, v + e]:
 * 1 and the codes, scale range [*slo, *shi], nominal scale (of the values v rounded to float32)
 * and zero point when every value in the bands gives the same codes and zero point; 0 otherwise.
 */
static int quantize_band(const bd *x, size_t n, uint8_t *q, float *slo, float *shi, float *snom,
                         int32_t *zp)
{
	float mxl = 0, mxh = 0, mnl = 0, mnh = 0, mxn = 0, mnn = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i].v - x[i].e) || !isfinite(x[i].v + x[i].e))
			return 0;
		float lo = f32_out(x[i].v - x[i].e, -1), hi = f32_out(x[i].v + x[i].e, 1);
		float nv = (float)x[i].v;
		mxl = fmaxf(mxl, lo), mxh = fmaxf(mxh, hi), mnl = fminf(mnl, lo),
		mnh = fminf(mnh, hi);
		mxn = fmaxf(mxn, nv), mnn = fminf(mnn, nv);
	}
	if (mxh == 0 && mnl == 0) { /* every value 0: scale 1, zero point 0 */
		*slo = *shi = *snom = 1.0f, *zp = 0;
		memset(q, 0, n);
		return 1;
	}
	if (mxl == mnh) /* the values may all be 0 */
		return 0;
	float sl = (mxl - mnh) / 255.0f, sh = (mxh - mnl) / 255.0f;
	*slo = sl, *shi = sh, *snom = (mxn - mnn) / 255.0f;
	int32_t z = -1;
	const float mins[2] = {mnl, mnh}, sc[2] = {sl, sh};
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++) {
			float z0 = 0.0f - mins[a] / sc[b];
			float zc = z0 < 0.0f ? 0.0f : z0 > 255.0f ? 255.0f : z0;
			int32_t zi = (int32_t)nearbyintf(zc);
			if (z >= 0 && zi != z)
				return 0;
			z = zi;
		}
	*zp = z;
	for (size_t i = 0; i < n; i++) {
		const float xs[2] = {f32_out(x[i].v - x[i].e, -1), f32_out(x[i].v + x[i].e, 1)};
		int c = -1;
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 2; b++) {
				float r = nearbyintf(xs[a] / sc[b]);
				int ci = (int)qref_clamp_d((double)r + z, 0, 255);
				if (c >= 0 && ci != c)
					return 0;
				c = ci;
			}
		q[i] = (uint8_t)c;
	}
	return 1;
}

static double sigm(double x)
{
	return 1 / (1 + exp(-x));
}

/* a product of two banded values, rounded once in float32 (or fused into the next sum) */
static bd mul(bd a, bd b)
{
	bd r = {a.v * b.v, fabs(a.v) * b.e + fabs(b.v) * a.e + a.e * b.e};
	r.e += U32 * (fabs(r.v) + r.e);
	return r;
}

/* a float32 sum */
static bd add(bd a, bd b)
{
	bd r = {a.v + b.v, a.e + b.e};
	r.e += U32 * (fabs(r.v) + r.e);
	return r;
}

/* the activation of a gate: clip (1-Lipschitz), then MLAS's logistic or tanh */
static bd act(bd x, float clip, int is_tanh)
{
	double v = x.v > clip ? clip : x.v < -clip ? -(double)clip : x.v;
	if (is_tanh)
		return (bd){tanh(v), x.e + E_TANH};
	return (bd){sigm(v), x.e / 4 + E_SIG};
}

typedef struct {
	const qcf_tensor *t[N_IN];
	qcf_tensor *y[3];
	int yk[3]; /* output index of Y, Y_h, Y_c */
	int64_t S, B, I, H, D;
	int input_forget;
	float clip;
} lstm_call;

static const qcf_tensor *tin(const lstm_call *c, int k)
{
	return c->t[k];
}

/* the scale and zero point of direction dir's gate column j (per tensor: [D]; per column:
 * [D, 4H]); ORT reads the zero point at the scale's offset (dynamic_quantize_lstm.cc) */
static float wscale(const qcf_tensor *s, int64_t dir, int64_t j, int64_t H)
{
	return (float)qref_get(s, (size_t)(s->rank == 2 ? dir * 4 * H + j : dir));
}
static int32_t wzero(const qcf_tensor *z, const qcf_tensor *s, int64_t dir)
{
	return q8(z, (size_t)(s->rank == 2 ? dir * z->shape[z->rank - 1] : dir));
}

/* element i of output k: any in [v - e, v + e], or in [-r, r] when that is not finite or the
 * codes were lost */
static void mark(qref_detail *d, int k, size_t i, bd x, int lost, double r)
{
	double lo = x.v - x.e, hi = x.v + x.e;
	if (lost || !isfinite(lo) || !isfinite(hi))
		lo = -r, hi = r;
	qref_mark_any(d, k, i, lo, hi);
}

/* one direction, written into the outputs with the band of every element */
static qcf_status run_direction(const lstm_call *c, int64_t dir, int reverse, qref_detail *d)
{
	const int64_t S = c->S, B = c->B, I = c->I, H = c->H, G = 4 * H;
	const qcf_tensor *X = tin(c, IN_X), *W = tin(c, IN_W), *R = tin(c, IN_R);
	const qcf_tensor *Bt = tin(c, IN_B), *SL = tin(c, IN_SL), *P = tin(c, IN_P);
	const qcf_tensor *H0 = tin(c, IN_H0), *C0 = tin(c, IN_C0);
	const int ysq = c->y[0] != NULL;
	int64_t *len = malloc((size_t)B * sizeof *len);
	int64_t maxlen = 0;
	for (int64_t b = 0; b < B && len; b++) {
		len[b] = SL ? (int64_t)qref_get(SL, (size_t)b) : S;
		maxlen = len[b] > maxlen ? len[b] : maxlen;
	}
	size_t nx = (size_t)(maxlen * B * I);
	bd *xa = malloc((nx ? nx : 1) * sizeof *xa);
	uint8_t *qx = malloc(nx ? nx : 1), *qh = malloc((size_t)(B * H));
	bd *h = malloc((size_t)(B * H) * sizeof *h), *cs = malloc((size_t)(B * H) * sizeof *cs);
	bd *ha = malloc((size_t)(B * H) * sizeof *ha), *g = malloc((size_t)G * sizeof *g);
	float *bias = malloc((size_t)G * sizeof *bias);
	if (!len || !xa || !qx || !qh || !h || !cs || !ha || !g || !bias) {
		free(len), free(xa), free(qx), free(qh), free(h), free(cs), free(ha), free(g);
		free(bias);
		return qref_fail(d, QCF_ERROR, "%s: out of memory", "DynamicQuantizeLSTM");
	}
	/* LoadBias: Wb + Rb in float32, per gate */
	for (int64_t j = 0; j < G; j++)
		bias[j] = Bt ? (float)qref_get(Bt, (size_t)(dir * 2 * G + j)) +
		                          (float)qref_get(Bt, (size_t)(dir * 2 * G + G + j))
		             : 0.0f;
	/* the input ComputeGemm sees: ReverseSequence per batch row for the reverse direction */
	for (int64_t t = 0; t < maxlen; t++)
		for (int64_t b = 0; b < B; b++) {
			int64_t ts = reverse && t < len[b] ? len[b] - 1 - t : t;
			for (int64_t i = 0; i < I; i++)
				xa[(t * B + b) * I + i] =
				        (bd){qref_get(X, (size_t)((ts * B + b) * I + i)), 0};
		}
	float sx = 1, sxl, sxh;
	int32_t zx = 0;
	if (nx)
		quantize_band(xa, nx, qx, &sxl, &sxh, &sx, &zx); /* exact inputs: certain */
	for (int64_t k = 0; k < B * H; k++) {
		size_t o = (size_t)(dir * B * H + k);
		h[k] = (bd){H0 ? qref_get(H0, o) : 0, 0};
		cs[k] = (bd){C0 ? qref_get(C0, o) : 0, 0};
		ha[k] = h[k];
	}
	const qcf_tensor *ws = tin(c, IN_WS), *rs = tin(c, IN_RS);
	int32_t zw = wzero(tin(c, IN_WZ), ws, dir), zr = wzero(tin(c, IN_RZ), rs, dir);
	int lost = 0;    /* the codes of some H are not certain */
	double cmax = 0; /* |C| <= cmax for every row (the recurrence's bound) */
	for (int64_t k = 0; k < B * H; k++)
		cmax = fmax(cmax, fabs(cs[k].v));
	for (int64_t t = 0; t < maxlen; t++) {
		float shl = 1, shh = 1, shn = 1;
		int32_t zh = 0;
		if (!lost && !quantize_band(ha, (size_t)(B * H), qh, &shl, &shh, &shn, &zh))
			lost = 1;
		cmax = (cmax + H_MAX) * (1 + 0x1p-20);
		for (int64_t b = 0; b < B; b++) {
			if (t >= len[b]) {
				if (ysq) /* GateComputations zeroes the row of Y, the next step's H
				          */
					for (int64_t k = 0; k < H; k++)
						ha[b * H + k] = (bd){0, 0};
				continue;
			}
			/* the integer products and the output processor's two stages */
			for (int64_t j = 0; j < G; j++) {
				int64_t ax = 0, ah = 0;
				for (int64_t i = 0; i < I; i++)
					ax += (int64_t)(qx[(t * B + b) * I + i] - zx) *
					      (q8(W, (size_t)((dir * I + i) * G + j)) - zw);
				for (int64_t k = 0; k < H && !lost; k++)
					ah += (int64_t)(qh[b * H + k] - zh) *
					      (q8(R, (size_t)((dir * H + k) * G + j)) - zr);
				float mx = sx * wscale(ws, dir, j, H);
				float tx = (float)(int32_t)(uint32_t)(uint64_t)ax * mx;
				float r = wscale(rs, dir, j, H);
				float m0 = shl * r, m1 = shh * r, mn = shn * r;
				double dm = fmax(fabs((double)m0 - mn), fabs((double)m1 - mn));
				double p = (double)(int32_t)(uint32_t)(uint64_t)ah;
				bd th = {p * mn, fabs(p) * dm};
				th.e += U32 * (fabs(th.v) + th.e);
				g[j] = add((bd){tx, 0}, th);
			}
			for (int64_t k = 0; k < H; k++) {
				bd *cp = &cs[b * H + k];
				bd gi = g[k], go = g[H + k], gf = g[2 * H + k], gc = g[3 * H + k];
				double pi = 0, po = 0, pf = 0;
				if (P) {
					pi = qref_get(P, (size_t)(dir * 3 * H + k));
					po = qref_get(P, (size_t)(dir * 3 * H + H + k));
					pf = qref_get(P, (size_t)(dir * 3 * H + 2 * H + k));
					gi = add(gi, mul(*cp, (bd){pi, 0}));
				}
				bd i = act(Bt ? add(gi, (bd){bias[k], 0}) : gi, c->clip, 0), f;
				if (c->input_forget) {
					f = (bd){1 - i.v, i.e};
					f.e += U32 * (fabs(f.v) + f.e);
				} else {
					if (P)
						gf = add(gf, mul(*cp, (bd){pf, 0}));
					f = act(Bt ? add(gf, (bd){bias[2 * H + k], 0}) : gf,
					        c->clip, 0);
				}
				bd gg = act(Bt ? add(gc, (bd){bias[3 * H + k], 0}) : gc, c->clip,
				            1);
				/* C = C f + i g: two products and a sum, any of them fused */
				bd cn = add(mul(*cp, f), mul(i, gg));
				if (P)
					go = add(go, mul(cn, (bd){po, 0}));
				bd o = act(Bt ? add(go, (bd){bias[H + k], 0}) : go, c->clip, 0);
				bd th = {tanh(cn.v), cn.e + E_TANH};
				bd hn = mul(th, o);
				*cp = cn;
				h[b * H + k] = hn;
				ha[b * H + k] = hn;
				if (ysq) {
					int64_t to = reverse ? len[b] - 1 - t : t;
					size_t yi = (size_t)(((to * c->D + dir) * B + b) * H + k);
					mark(d, c->yk[0], yi, hn, lost, H_MAX);
					qref_set(c->y[0], yi, (double)(float)hn.v);
				}
			}
		}
		/* the C and H of a row whose last step this is are its Y_c and Y_h */
		for (int64_t b = 0; b < B; b++)
			for (int64_t k = 0; k < H && t + 1 == len[b]; k++) {
				size_t o = (size_t)((dir * B + b) * H + k);
				bd hv = h[b * H + k], cv = cs[b * H + k];
				if (c->y[1]) {
					mark(d, c->yk[1], o, hv, lost, H_MAX);
					qref_set(c->y[1], o, (double)(float)hv.v);
				}
				if (c->y[2]) {
					mark(d, c->yk[2], o, cv, lost, cmax);
					qref_set(c->y[2], o, (double)(float)cv.v);
				}
			}
	}
	free(len), free(xa), free(qx), free(qh), free(h), free(cs), free(ha), free(g), free(bias);
	return QCF_OK;
}

/* 1 when t has this rank and these dimensions */
static int shape_is(const qcf_tensor *t, int32_t rank, const int64_t *dims)
{
	if (t->rank != rank)
		return 0;
	for (int32_t i = 0; i < rank; i++)
		if (t->shape[i] != dims[i])
			return 0;
	return 1;
}

/* WeightCheck: [D] (per direction) or [D, 4H] (per column) */
static int qparam_shape_ok(const qcf_tensor *t, int64_t D, int64_t H)
{
	return (t->rank == 1 || t->rank == 2) && t->shape[0] == D &&
	       (t->rank == 1 || t->shape[1] == 4 * H);
}

static qcf_status qref_ort_dq_lstm(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	const char *op = call->op;
	if (call->n_inputs < 7 || call->n_inputs > N_IN || call->n_outputs < 1 ||
	    call->n_outputs > 3)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s takes X, W, R, W_scale, W_zero_point, R_scale, R_zero_point and "
		        "the optional B, sequence_lens, initial_h, initial_c and P, and one "
		        "to three of the outputs Y, Y_h, Y_c, got %" PRId32 " and %" PRId32,
		        op, call->n_inputs, call->n_outputs);
	qcf_status s = qref_check_call(call, call->n_inputs, call->n_outputs, d);
	if (s != QCF_OK)
		return s;
	lstm_call c;
	memset(&c, 0, sizeof c);
	for (int i = 0; i < call->n_inputs; i++) {
		const char *nm = call->inputs[i].name;
		int k = 0;
		while (k < N_IN && !(nm && strcmp(nm, in_names[k]) == 0))
			k++;
		if (k == N_IN || c.t[k])
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: input %d must be named X, W, R, B, sequence_lens, "
			        "initial_h, initial_c, P, W_scale, W_zero_point, R_scale or "
			        "R_zero_point, each once (ORT's inputs are told apart by "
			        "position; qconform's by name)",
			        op, i);
		c.t[k] = &call->inputs[i];
	}
	for (int k = 0; k <= IN_RZ; k++)
		if (!c.t[k])
			return qref_fail(d, QCF_INVALID_PARAM, "%s: the input %s is required", op,
			                 in_names[k]);
	for (int i = 0; i < call->n_outputs; i++) {
		const char *nm = call->outputs[i].name;
		int k = 0;
		while (k < 3 && !(nm && strcmp(nm, out_names[k]) == 0))
			k++;
		if (k == 3 || c.y[k])
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: output %d must be named Y, Y_h or Y_c, each once", op,
			                 i);
		c.y[k] = &call->outputs[i];
		c.yk[k] = i;
	}
	/* attributes: the constructors of LSTMBase */
	const qcf_attr *da = qref_attr_find(call, "direction");
	const char *dir = da && da->type == QCF_ATTR_STRING ? da->v.s : "forward";
	int64_t hs = 0, inf = 0;
	double clip = FLT_MAX;
	qref_attr_int(call, "hidden_size", &hs);
	qref_attr_int(call, "input_forget", &inf);
	qref_attr_number(call, "clip", &clip);
	int bidi = strcmp(dir, "bidirectional") == 0, rev = strcmp(dir, "reverse") == 0;
	if (!bidi && !rev && strcmp(dir, "forward") != 0)
		return qref_fail_attr(d, "direction", QCF_INVALID_PARAM,
		                      "%s: direction is forward, reverse or bidirectional "
		                      "(MakeDirection), got '%s'",
		                      op, dir);
	if (hs <= 0 || hs > INT32_MAX)
		return qref_fail_attr(d, "hidden_size", QCF_INVALID_PARAM,
		                      "%s: hidden_size must be positive (LSTMBase)", op);
	c.clip = (float)clip;
	if (!(c.clip > 0.0f))
		return qref_fail_attr(d, "clip", QCF_INVALID_PARAM,
		                      "%s: clip must be > 0 as a float32 (LSTMBase: clip_ > 0.f)",
		                      op);
	c.input_forget = inf != 0;
	c.H = hs;
	c.D = bidi ? 2 : 1;
	const qcf_tensor *X = c.t[IN_X], *W = c.t[IN_W], *R = c.t[IN_R];
	/* types: T float32, T1 int32, T2 uint8 or int8 bound once (W, R and both zero points) */
	if (W->dtype != QCF_UINT8 && W->dtype != QCF_INT8)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: W must be uint8 or int8, got %s", op,
		                 qref_dtype_name(W->dtype));
	if (R->dtype != W->dtype || c.t[IN_WZ]->dtype != W->dtype || c.t[IN_RZ]->dtype != W->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: R, W_zero_point and R_zero_point must have W's type %s (one "
		                 "type parameter T2)",
		                 op, qref_dtype_name(W->dtype));
	int fl[] = {IN_X, IN_WS, IN_RS, IN_B, IN_H0, IN_C0, IN_P};
	for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++)
		if (c.t[fl[i]] && c.t[fl[i]]->dtype != QCF_FLOAT32)
			return qref_fail(d, QCF_INVALID_PARAM, "%s: %s must be float32, got %s", op,
			                 in_names[fl[i]], qref_dtype_name(c.t[fl[i]]->dtype));
	if (c.t[IN_SL] && c.t[IN_SL]->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: sequence_lens must be int32, got %s",
		                 op, qref_dtype_name(c.t[IN_SL]->dtype));
	for (int k = 0; k < 3; k++)
		if (c.y[k] && c.y[k]->dtype != QCF_FLOAT32)
			return qref_fail_output(d, c.yk[k], QREF_PART_DTYPE, QCF_INVALID_PARAM,
			                        "%s: %s must be float32", op, out_names[k]);
	for (int k = 0; k < N_IN; k++)
		if (c.t[k] && c.t[k]->quant)
			return qref_fail_tensor(
			        d, c.t[k], QREF_PART_QUANT, QCF_INVALID_PARAM,
			        "%s: %s carries no quantization (the scales and zero "
			        "points are inputs)",
			        op, in_names[k]);
	/* shapes: ValidateInputs and the kernel's checks */
	if (X->rank != 3)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: X must have 3 dimensions, got %" PRId32,
		                 op, X->rank);
	c.S = X->shape[0], c.B = X->shape[1], c.I = X->shape[2];
	const int64_t D = c.D, H = c.H, B = c.B, S = c.S;
	if (!shape_is(W, 3, (int64_t[]){D, c.I, 4 * H}))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: W must have shape [num_directions, input_size, 4 * "
		                 "hidden_size] = [%lld, %lld, %lld]",
		                 op, (long long)D, (long long)c.I, (long long)(4 * H));
	if (!shape_is(R, 3, (int64_t[]){D, H, 4 * H}))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: R must have shape [num_directions, hidden_size, 4 * "
		                 "hidden_size] = [%lld, %lld, %lld]",
		                 op, (long long)D, (long long)H, (long long)(4 * H));
	for (int k = IN_WS; k <= IN_RZ; k++)
		if (!qparam_shape_ok(c.t[k], D, H))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: %s must have shape [%lld] (per tensor and direction) or "
			        "[%lld, %lld] (per column) (WeightCheck)",
			        op, in_names[k], (long long)D, (long long)D, (long long)(4 * H));
	for (int k = IN_WZ; k <= IN_RZ; k += 2) { /* ZeroPointCheck, on a 2-D zero point only */
		const qcf_tensor *z = c.t[k];
		size_t n = qref_tensor_numel(z);
		for (size_t i = 0; z->rank == 2 && i < n; i++)
			if (z->dtype == QCF_INT8 ? q8(z, i) != 0 : q8(z, i) != q8(z, 0))
				return qref_fail_tensor(
				        d, z, QREF_PART_DATA, QCF_INVALID_PARAM,
				        "%s: a per-column %s must be all zero (int8) or all one "
				        "value (uint8) (ZeroPointCheck)",
				        op, in_names[k]);
	}
	if (D == 2 && ((c.t[IN_WS]->rank == 2 && c.t[IN_WZ]->rank == 1) ||
	               (c.t[IN_RS]->rank == 2 && c.t[IN_RZ]->rank == 1)))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: a per-column scale with a per-direction zero point, "
		                 "bidirectional: ORT reads the second direction's zero point 4 * "
		                 "hidden_size values on, past the tensor's end",
		                 op);
	if (c.t[IN_B] && !shape_is(c.t[IN_B], 2, (int64_t[]){D, 8 * H}))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: B must have shape [%lld, %lld]", op,
		                 (long long)D, (long long)(8 * H));
	const qcf_tensor *SL = c.t[IN_SL];
	int64_t maxlen = S, zero_row = 0;
	if (SL) {
		if (!shape_is(SL, 1, (int64_t[]){B}))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: sequence_lens must have shape [batch_size] = [%lld]",
			                 op, (long long)B);
		maxlen = 0;
		for (int64_t b = 0; b < B; b++) {
			double v = qref_get(SL, (size_t)b);
			if (v < 0 || v > (double)S)
				return qref_fail_tensor(
				        d, SL, QREF_PART_DATA, QCF_INVALID_PARAM,
				        "%s: sequence_lens[%lld] = %.0f is outside [0, "
				        "seq_length = %lld] (ValidateInputs)",
				        op, (long long)b, v, (long long)S);
			maxlen = (int64_t)v > maxlen ? (int64_t)v : maxlen;
			zero_row |= v == 0;
		}
	}
	for (int k = IN_H0; k <= IN_C0; k++)
		if (c.t[k] && !shape_is(c.t[k], 3, (int64_t[]){D, B, H}))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: %s must have shape [%lld, %lld, %lld]", op,
			                 in_names[k], (long long)D, (long long)B, (long long)H);
	if (c.t[IN_P] && !shape_is(c.t[IN_P], 2, (int64_t[]){D, 3 * H}))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: P must have shape [%lld, %lld]", op,
		                 (long long)D, (long long)(3 * H));
	if (c.y[0] && !shape_is(c.y[0], 4, (int64_t[]){S, D, B, H}))
		return qref_fail_output(d, c.yk[0], QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: Y must have shape [seq_length, num_directions, "
		                        "batch_size, hidden_size] = [%lld, %lld, %lld, %lld]",
		                        op, (long long)S, (long long)D, (long long)B, (long long)H);
	for (int k = 1; k < 3; k++)
		if (c.y[k] && !shape_is(c.y[k], 3, (int64_t[]){D, B, H}))
			return qref_fail_output(d, c.yk[k], QREF_PART_SHAPE, QCF_INVALID_PARAM,
			                        "%s: %s must have shape [%lld, %lld, %lld]", op,
			                        out_names[k], (long long)D, (long long)B,
			                        (long long)H);
	if (S == 0 || B == 0 || c.I == 0)
		return qref_fail(
		        d, QCF_NOT_SUPPORTED,
		        "%s: an empty X is not implemented (MLAS's integer GEMM with K = 0 "
		        "leaves its output unwritten)",
		        op);
	if (!c.y[0] && zero_row && maxlen > 1)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: without Y, a batch row of sequence length 0 feeds the next "
		                 "step's quantization of H the uninitialized row of ORT's final "
		                 "hidden state",
		                 op);
	for (int k = 0; k < N_IN; k++) {
		const qcf_tensor *t = c.t[k];
		if (!t || t->dtype != QCF_FLOAT32)
			continue;
		size_t n = qref_tensor_numel(t);
		for (size_t i = 0; i < n; i++)
			if (!isfinite(qref_get(t, i)))
				return qref_fail_tensor(
				        d, t, QREF_PART_DATA, QCF_NOT_SUPPORTED,
				        "%s: a NaN or infinite %s is not implemented "
				        "(ORT's dynamic quantization then makes NaN "
				        "scales)",
				        op, in_names[k]);
	}
	float xmax = 0, xmin = 0;
	for (size_t i = 0; i < qref_tensor_numel(X); i++) {
		xmax = fmaxf(xmax, (float)qref_get(X, i));
		xmin = fminf(xmin, (float)qref_get(X, i));
	}
	if (!isfinite(xmax - xmin))
		return qref_fail_tensor(d, X, QREF_PART_DATA, QCF_NOT_SUPPORTED,
		                        "%s: X's range overflows float32 (ORT's scale is then "
		                        "infinite and its outputs NaN): not implemented",
		                        op);
	if ((s = qref_no_rounding(call, d, "nothing to an integer but the dynamic quantization")) !=
	    QCF_OK)
		return s;
	/* every element 0 until a step writes it: padded steps, rows of length 0 */
	for (int k = 0; k < 3; k++)
		if (c.y[k]) {
			size_t n = qref_tensor_numel(c.y[k]);
			for (size_t i = 0; i < n; i++) {
				qref_mark_exact(d, c.yk[k], i);
				qref_set(c.y[k], i, 0);
			}
		}
	for (int64_t dr = 0; dr < D; dr++)
		if ((s = run_direction(&c, dr, rev || dr == 1, d)) != QCF_OK)
			return s;
	return QCF_OK;
}

static const qref_attr_schema dq_lstm_attrs[] = {
        A_ENUM("direction", LIST("forward", "reverse", "bidirectional"), 0, "forward"),
        A_INT_REQ("hidden_size", 1, I32),
        A_INT("input_forget", -I32, I32, "0"),
        A_NUM("clip", "FLT_MAX (no clipping)"),
        END,
};

const qref_op qref_ops_ort_qlstm[] = {
        {.schema = {.semantics = "ort",
                    .op = "DynamicQuantizeLSTM",
                    IO_OUTS(LIST("X", "W", "R", "W_scale", "W_zero_point", "R_scale",
                                 "R_zero_point", "B", "sequence_lens", "initial_h", "initial_c",
                                 "P"),
                            7, 12, LIST("Y", "Y_h", "Y_c"), 1, 3),
                    .attrs = dq_lstm_attrs},
         .kernel = qref_ort_dq_lstm},
        {.schema = {.op = NULL}},
};
