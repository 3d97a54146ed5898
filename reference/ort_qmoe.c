/*
 * ONNX Runtime's com.microsoft QMoE (specs/ort/OPERATORS.md), semantics "ort": a mixture of
 * experts whose expert weights are quantized row-wise to 4 or 8 bits.
 *
 * Schema: onnxruntime/core/graph/contrib_ops/contrib_defs.cc and ContribOperators.md in
 * microsoft/onnxruntime's docs folder. Kernel: onnxruntime/contrib_ops/cpu/moe/
 * moe_quantization_cpu.cc (QMoECPU), moe_base_cpu.h, moe_utils.cc; what follows is what ONNX
 * Runtime 1.30's binary computes, measured (specs/ort/OPERATORS.md, QMoE).
 *
 * Per token t (a row of input [T, H]):
 *   routing: p = softmax(router_probs[t]) over the E experts; the k largest, a tie to the higher
 *   expert index; their weights p_j / sum of the k p (whatever normalize_routing_weights says);
 *   expert e: W[r][c] = float32((q - zp) * scale[e][r]), q packed low bits first along c,
 *   zp 2^(bits - 1); a = x W1^T (+ fc1 bias); h = act(a); y_e = h W2^T (+ fc2 bias);
 *   y[t] = sum of weight_j * y_e over the k experts.
 * act: relu, identity, silu (x sigmoid(x)), gelu (the tanh form 0.5 x (1 + tanh(sqrt(2 / pi) (x +
 * 0.044715 x^3)))), swiglu (fc1's rows interleaved gate, linear: g' = min(g, limit), l' =
 * clamp(l, -limit, limit), h = g' sigmoid(alpha g') (l' + beta)).
 *
 * The reference computes every stage in double. ORT sums in float32 in orders of its own and
 * evaluates softmax, sigmoid and tanh by MLAS's approximations, so each element gets a band
 * carried through the stages (OPERATORS.md, QMoE, "The band"); with k = 1, relu or identity
 * and data whose every float32 sum is exact (qref_sum_bound, linear_geom.h) the band is 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "linear_geom.h"
#include "op.h"

enum { ACT_RELU, ACT_GELU, ACT_SILU, ACT_IDENTITY, ACT_SWIGLU };
static const char *const act_names[] = {"relu", "gelu", "silu", "identity", "swiglu", NULL};

#define U 0x1p-24
/* relative error allowed for MLAS's exp, logistic and tanh (a few float32 ulps; measured
 * within 2^-23 for silu) and for the float32 routing weights */
#define APPROX 0x1p-20

typedef struct qmoe_call {
	const qcf_tensor *x, *logits, *w[2], *s[2], *b[2];
	qcf_tensor *y;
	int act;
	int64_t T, H, I, E, k, bits, f1; /* f1: fc1's rows (2 I for swiglu) */
	double alpha, beta, limit;
} qmoe_call;

static int shape_is(const qcf_tensor *t, int32_t rank, int64_t d0, int64_t d1, int64_t d2)
{
	int64_t d[3] = {d0, d1, d2};
	if (t->rank != rank)
		return 0;
	for (int32_t i = 0; i < rank; i++)
		if (t->shape[i] != d[i])
			return 0;
	return 1;
}

static qcf_status qmoe_check(const qcf_op_call *call, qmoe_call *p, qref_detail *d)
{
	qcf_status s = qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK)
		return s;
	memset(p, 0, sizeof *p);
	/* input, router_probs, fc1 weights and scales, then the optional fc1 bias by name, fc2
	 * weights and scales, the optional fc2 bias */
	p->x = &call->inputs[0];
	p->logits = &call->inputs[1];
	p->w[0] = qref_input_named(call, 2, "fc1_experts_weights");
	p->s[0] = qref_input_named(call, 2, "fc1_scales");
	p->b[0] = qref_input_named(call, 2, "fc1_experts_bias");
	p->w[1] = qref_input_named(call, 2, "fc2_experts_weights");
	p->s[1] = qref_input_named(call, 2, "fc2_scales");
	p->b[1] = qref_input_named(call, 2, "fc2_experts_bias");
	p->y = &call->outputs[0];
	int known = 2 + !!p->w[0] + !!p->s[0] + !!p->b[0] + !!p->w[1] + !!p->s[1] + !!p->b[1];
	if (!p->w[0] || !p->s[0] || !p->w[1] || !p->s[1] || known != call->n_inputs)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: the inputs are input, router_probs, fc1_experts_weights, "
		                 "fc1_scales, fc2_experts_weights, fc2_scales and the optional "
		                 "fc1_experts_bias and fc2_experts_bias (by name); fc3 and zero "
		                 "points are not implemented",
		                 call->op);
	const qcf_attr *a = qref_attr_find(call, "activation_type");
	p->act = a ? -1 : ACT_RELU;
	for (int i = 0; a && a->type == QCF_ATTR_STRING && act_names[i]; i++)
		if (strcmp(a->v.s, act_names[i]) == 0)
			p->act = i;
	if (p->act < 0) /* moe_base_cpu.h */
		return qref_fail_attr(d, "activation_type", QCF_INVALID_PARAM,
		                      "%s: unsupported MoE activation type (relu, gelu, silu, "
		                      "identity or swiglu)",
		                      call->op);
	int64_t fusion = 0, sparse = 0, bs = 0;
	p->k = 1, p->bits = 4, p->alpha = 1, p->beta = 0, p->limit = INFINITY;
	qref_attr_int(call, "k", &p->k);
	qref_attr_int(call, "expert_weight_bits", &p->bits);
	qref_attr_int(call, "swiglu_fusion", &fusion);
	qref_attr_int(call, "use_sparse_mixer", &sparse);
	qref_attr_int(call, "block_size", &bs);
	qref_attr_number(call, "activation_alpha", &p->alpha);
	qref_attr_number(call, "activation_beta", &p->beta);
	qref_attr_number(call, "swiglu_limit", &p->limit);
	/* normalize_routing_weights: measured to change nothing on the CPU (the top k are
	 * renormalized either way): read, not used */
	(void)qref_attr_find(call, "normalize_routing_weights");
	if (p->act == ACT_SWIGLU && fusion != 1)
		return qref_fail_attr(d, "swiglu_fusion", QCF_INVALID_PARAM,
		                      "%s: CPU QMoE only supports interleaved SwiGLU format "
		                      "(swiglu_fusion 1), got %lld",
		                      call->op, (long long)fusion);
	if (p->bits == 2)
		return qref_fail_attr(d, "expert_weight_bits", QCF_NOT_SUPPORTED,
		                      "%s: 2-bit experts are not implemented", call->op);
	if (p->bits != 4 && p->bits != 8)
		return qref_fail_attr(d, "expert_weight_bits", QCF_INVALID_PARAM,
		                      "%s: expert_weight_bits must be 4 or 8, got %lld", call->op,
		                      (long long)p->bits);
	if (sparse)
		return qref_fail_attr(d, "use_sparse_mixer", QCF_NOT_SUPPORTED,
		                      "%s: the sparse mixer is not implemented", call->op);
	if (bs)
		return qref_fail_attr(d, "block_size", QCF_NOT_SUPPORTED,
		                      "%s: block-wise scales are not implemented (row-wise only)",
		                      call->op);
	if (!(p->limit > 0))
		return qref_fail_attr(d, "swiglu_limit", QCF_NOT_SUPPORTED,
		                      "%s: swiglu_limit must be positive here", call->op);
	if (p->x->dtype == QCF_FLOAT16)
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: float16 is not implemented", call->op);
	for (int i = 0; i < 2; i++)
		if (p->x->dtype != QCF_FLOAT32 || p->logits->dtype != QCF_FLOAT32 ||
		    p->y->dtype != QCF_FLOAT32 || p->s[i]->dtype != QCF_FLOAT32 ||
		    (p->b[i] && p->b[i]->dtype != QCF_FLOAT32) || p->w[i]->dtype != QCF_UINT8)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: input, router_probs, scales, biases and output must be "
			        "float32 and the weights uint8",
			        call->op);
	if (p->x->rank < 2 || p->x->rank > 3)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input must be [tokens, hidden] or [batch, sequence, hidden]",
		                 call->op);
	p->H = p->x->shape[p->x->rank - 1];
	p->T = (int64_t)(qref_tensor_numel(p->x) / (size_t)(p->H ? p->H : 1));
	if (p->logits->rank != 2 || p->logits->shape[0] != p->T)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: router_probs must be [tokens, experts]",
		                 call->op);
	p->E = p->logits->shape[1];
	int64_t per = 8 / p->bits;
	const qcf_tensor *w1 = p->w[0], *w2 = p->w[1];
	if (w1->rank != 3 || w1->shape[0] != p->E || w2->rank != 3 || w2->shape[0] != p->E ||
	    w2->shape[1] != p->H || p->H < 1 || p->H % per || w1->shape[2] * per != p->H)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: fc1_experts_weights must be [experts, rows, hidden * bits / 8] "
		        "and fc2_experts_weights [experts, hidden, inter * bits / 8]",
		        call->op);
	p->I = w2->shape[2] * per;
	p->f1 = p->act == ACT_SWIGLU ? 2 * p->I : p->I;
	if (w1->shape[1] != p->f1 || p->I < 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: fc1_experts_weights has %lld rows, fc2 implies %lld (2 inter "
		                 "for swiglu)",
		                 call->op, (long long)w1->shape[1], (long long)p->f1);
	int64_t rows[2] = {p->f1, p->H};
	for (int i = 0; i < 2; i++)
		if (!shape_is(p->s[i], 2, p->E, rows[i], 0) ||
		    (p->b[i] && !shape_is(p->b[i], 2, p->E, rows[i], 0)))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: fc%d scales and bias must be [experts, %lld] (row-wise)",
			        call->op, i + 1, (long long)rows[i]);
	if (p->k < 1 || p->k > p->E)
		return qref_fail_attr(d, "k", QCF_INVALID_PARAM,
		                      "%s: k must be in [1, num_experts = %lld], got %lld",
		                      call->op, (long long)p->E, (long long)p->k);
	int same = p->y->rank == p->x->rank;
	for (int32_t i = 0; same && i < p->x->rank; i++)
		same = p->y->shape[i] == p->x->shape[i];
	if (!same)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: the output has input's shape", call->op);
	return QCF_OK;
}

/* W[r][c] of expert e of layer l (0: fc1, 1: fc2): float32((q - zp) * scale) */
static double qmoe_w(const qmoe_call *p, int l, int64_t e, int64_t r, int64_t c)
{
	const qcf_tensor *w = p->w[l];
	int64_t rows = w->shape[1];
	int64_t bit = c * p->bits;
	uint8_t byte = ((const uint8_t *)w->data)[(e * rows + r) * w->shape[2] + bit / 8];
	int q = (byte >> (bit % 8)) & ((1 << p->bits) - 1);
	float s = (float)qref_get(p->s[l], (size_t)(e * rows + r));
	return (double)((float)(q - (1 << (p->bits - 1))) * s);
}

static double sigm(double v)
{
	return 1 / (1 + exp(-v));
}

/* h = act(a) and its error bound given a's, ea (swiglu: a[0] gate, a[1] linear) */
static double qmoe_act(const qmoe_call *p, const double *a, const double *ea, double *eh)
{
	double v = a[0], e = ea[0], h;
	switch (p->act) {
	case ACT_RELU: *eh = e; return v > 0 ? v : 0;
	case ACT_IDENTITY: *eh = e; return v;
	case ACT_SILU: /* |d silu| <= 1.1 */
		h = v * sigm(v);
		*eh = 1.1 * e + APPROX * (fabs(h) + fabs(v));
		return h;
	case ACT_GELU: /* the tanh form; |d gelu| <= 1.13 */
		h = 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
		*eh = 1.13 * e + APPROX * (fabs(h) + fabs(v));
		return h;
	default: { /* swiglu; clamping is 1-Lipschitz */
		double g = fmin(v, p->limit), l = fmax(-p->limit, fmin(a[1], p->limit));
		double sg = g * sigm(p->alpha * g), lb = l + p->beta;
		double dg = (0.3 * fabs(p->alpha * g) + 1.1) * (fabs(lb) + ea[1]);
		h = sg * lb;
		*eh = dg * e + (fabs(sg) + 1.1 * e) * ea[1] + APPROX * (fabs(h) + fabs(g * lb));
		return h;
	}
	}
}

/* y_e (H values) and its bounds eb for token xt through expert e; 0, or -1 out of memory */
static int qmoe_expert(const qmoe_call *p, const float *xt, int64_t e, double *ye, double *eb,
                       int *exact)
{
	double *a = malloc((size_t)p->f1 * sizeof *a), *ea = malloc((size_t)p->f1 * sizeof *ea);
	double *h = malloc((size_t)p->I * sizeof *h), *eh = malloc((size_t)p->I * sizeof *eh);
	if (!a || !ea || !h || !eh) {
		free(a), free(ea), free(h), free(eh);
		return -1;
	}
	for (int64_t r = 0; r < p->f1; r++) {
		qref_sum_bound bd = QREF_SUM_BOUND_INIT;
		double acc = 0;
		for (int64_t c = 0; c < p->H; c++) {
			double w = qmoe_w(p, 0, e, r, c), t = (double)xt[c] * w;
			acc += t;
			qref_sum_part(&bd, t, w, t);
		}
		if (p->b[0]) {
			double b = (double)(float)qref_get(p->b[0], (size_t)(e * p->f1 + r));
			acc += b;
			qref_sum_part(&bd, b, b, b);
		}
		a[r] = acc;
		ea[r] = qref_sum_width(&bd, 2); /* the dequantization's product, x w */
	}
	for (int64_t i = 0; i < p->I; i++) {
		double pair[2] = {0, 0}, epair[2] = {0, 0};
		int64_t r = p->act == ACT_SWIGLU ? 2 * i : i;
		pair[0] = a[r], epair[0] = ea[r];
		if (p->act == ACT_SWIGLU)
			pair[1] = a[r + 1], epair[1] = ea[r + 1];
		h[i] = qmoe_act(p, pair, epair, &eh[i]);
		if (eh[i] > 0 || (double)(float)h[i] != h[i])
			*exact = 0;
	}
	for (int64_t o = 0; o < p->H; o++) {
		qref_sum_bound bd = QREF_SUM_BOUND_INIT;
		double acc = 0, carried = 0, mag = 0;
		for (int64_t i = 0; i < p->I; i++) {
			double w = qmoe_w(p, 1, e, o, i), t = h[i] * w;
			acc += t;
			qref_sum_part(&bd, t, w, t);
			carried += fabs(w) * eh[i];
			mag += (fabs(h[i]) + eh[i]) * fabs(w);
		}
		double bias = 0;
		if (p->b[1]) {
			bias = (double)(float)qref_get(p->b[1], (size_t)(e * p->H + o));
			acc += bias;
			qref_sum_part(&bd, bias, bias, bias);
		}
		ye[o] = acc;
		double w0 = qref_sum_width(&bd, 2);
		/* h is ORT's float32 h, within eh of this one: the sum's bound over |h| + eh */
		double g = (double)(p->I + 3) * U;
		eb[o] = carried + (w0 > 0 || carried > 0 ? g / (1 - g) * (mag + fabs(bias)) : 0);
		if (eb[o] > 0)
			*exact = 0;
	}
	free(a), free(ea), free(h), free(eh);
	return 0;
}

/* the k experts of a token: indices by probability, ties to the higher index */
static void qmoe_topk(const double *pr, int64_t E, int64_t *sel)
{
	for (int64_t e = 0; e < E; e++)
		sel[e] = e;
	for (int64_t i = 0; i < E; i++) /* a selection sort: E is small */
		for (int64_t j = i + 1; j < E; j++)
			if (pr[sel[j]] > pr[sel[i]] ||
			    (pr[sel[j]] == pr[sel[i]] && sel[j] > sel[i])) {
				int64_t t = sel[i];
				sel[i] = sel[j], sel[j] = t;
			}
}

static qcf_status qref_ort_qmoe(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qmoe_call p;
	qcf_status s = qmoe_check(call, &p, d);
	if (s != QCF_OK || (s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;
	int64_t E = p.E, H = p.H;
	double *pr = malloc((size_t)E * sizeof *pr), *ye = malloc((size_t)(E * H) * sizeof *ye);
	double *eb = malloc((size_t)(E * H) * sizeof *eb);
	int64_t *sel = malloc((size_t)E * sizeof *sel);
	if (!pr || !ye || !eb || !sel) {
		free(pr), free(ye), free(eb), free(sel);
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	}
	for (int64_t t = 0; t < p.T && s == QCF_OK; t++) {
		const float *lg = (const float *)p.logits->data + t * E;
		const float *xt = (const float *)p.x->data + t * H;
		double mx = -INFINITY, sum = 0;
		for (int64_t e = 0; e < E; e++)
			mx = fmax(mx, (double)lg[e]);
		for (int64_t e = 0; e < E; e++)
			sum += pr[e] = exp((double)lg[e] - mx);
		for (int64_t e = 0; e < E; e++)
			pr[e] /= sum;
		qmoe_topk(pr, E, sel);
		/* a choice float32 may make otherwise: the k-th and the next within 2^-18 */
		int near = p.k < E && pr[sel[p.k - 1]] != pr[sel[p.k]] &&
		           pr[sel[p.k - 1]] - pr[sel[p.k]] <= 0x1p-18 * pr[sel[p.k - 1]];
		int exact = p.k == 1 && !near && (p.act == ACT_RELU || p.act == ACT_IDENTITY);
		for (int64_t j = 0; j < p.k + near; j++) {
			int64_t e = sel[j];
			if (qmoe_expert(&p, xt, e, ye + e * H, eb + e * H, &exact) != 0) {
				s = qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
				break;
			}
		}
		if (s != QCF_OK)
			break;
		/* the answers of the two selections when near, else one */
		for (int64_t o = 0; o < H; o++) {
			double lo = INFINITY, hi = -INFINITY, y0 = 0;
			for (int alt = 0; alt <= near; alt++) {
				double ksum = 0, acc = 0, err = 0, mag = 0;
				for (int64_t j = 0; j < p.k; j++) {
					int64_t e = sel[alt && j == p.k - 1 ? p.k : j];
					ksum += pr[e];
				}
				for (int64_t j = 0; j < p.k; j++) {
					int64_t e = sel[alt && j == p.k - 1 ? p.k : j];
					double v = ye[e * H + o], ev = eb[e * H + o];
					double w = pr[e] / ksum;
					acc += w * v;
					err += w * ev + (p.k > 1 ? APPROX * w * (fabs(v) + ev) : 0);
					mag += w * (fabs(v) + ev);
				}
				if (p.k > 1) {
					double g = (double)(p.k + 2) * U;
					err += g / (1 - g) * mag;
				}
				if (!alt)
					y0 = acc;
				lo = fmin(lo, acc - err);
				hi = fmax(hi, acc + err);
			}
			size_t i = (size_t)(t * H + o);
			if (exact && lo == hi)
				qref_mark_exact(d, 0, i);
			else
				qref_mark_any(d, 0, i, lo, hi);
			qref_set(p.y, i, (double)(float)y0);
		}
	}
	free(pr), free(ye), free(eb), free(sel);
	return s;
}

static const qref_attr_schema qmoe_attrs[] = {
        A_ENUM("activation_type", act_names, 0, "relu"),
        A_INT("k", -INF, INF, "1"),
        A_INT("normalize_routing_weights", 0, 1, "0"),
        A_INT("use_sparse_mixer", 0, 1, "0"),
        A_INT("expert_weight_bits", -INF, INF, "4"),
        A_INT("swiglu_fusion", 0, 2, "0"),
        A_INT("block_size", 0, INF, "0"),
        A_NUM("activation_alpha", "1.0"),
        A_NUM("activation_beta", "0.0"),
        A_NUM("swiglu_limit", "inf"),
        END,
};

const qref_op qref_ops_ort_qmoe[] = {
        {.schema = {.semantics = "ort",
                    .op = "QMoE",
                    IO(LIST("input", "router_probs", "fc1_experts_weights", "fc1_scales",
                            "fc1_experts_bias", "fc2_experts_weights", "fc2_scales",
                            "fc2_experts_bias"),
                       6, 8, LIST("output"), 1),
                    .attrs = qmoe_attrs},
         .kernel = qref_ort_qmoe},
        {.schema = {.op = NULL}},
};
