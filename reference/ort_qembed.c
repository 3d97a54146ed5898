/*
 * ONNX Runtime's com.microsoft QEmbedLayerNormalization (specs/ort/OPERATORS.md), semantics "ort".
 *
 * Schema: onnxruntime/core/graph/contrib_ops/quantization_defs.cc (QEmbedLayerNormalization) and
 * ContribOperators.md in microsoft/onnxruntime's docs folder. Kernel:
 * onnxruntime/contrib_ops/cpu/quantization/qembed_layer_norm.cc (ComputeInternal,
 * CheckQuantizedInputs) on onnxruntime/contrib_ops/cpu/bert/embed_layer_norm_helper.cc
 * (CheckInputs) and embed_layer_norm.cc (EmbedLayerNormBase: epsilon >= 0); the dequantization is
 * onnxruntime/core/quantization/quantization.h Dequantize.
 *
 * Per token (b, s): x[i] = word[id][i] + position[s][i] (+ segment[sid][i]), each dequantized
 * as float(q - zero_point) * scale in float32; mean = sum x / n, a = x - mean, e = sqrt(sum a^2 /
 * n + epsilon), y = a / e * gamma + beta, all float32, summed in index order (the kernel is plain
 * C++, one token a task). The reference writes that float32 evaluation (what ORT's x86-64 build
 * gives, bit for bit) and marks each element with the band of every float32 evaluation of the
 * same formula, in any summation order, with or without fused multiply-adds (qembed_band below;
 * the derivation in specs/ort/OPERATORS.md, QEmbedLayerNormalization). mask_index_out is exact:
 * per batch, the count of mask values equal to 1 (0 without a mask).
 *
 * Tensors: input_ids (int32 [B, S]), word_embedding, position_embedding (int8 or uint8 [rows,
 * n]), gamma, beta (the same type, [n]), each quantized per tensor (scale / zero_point), then the
 * optional segment_ids (int32 [B, S]), segment_embedding (the same type, [rows, n]) and mask
 * (int32 [B, S]), told apart by name; outputs layernorm_out (float32 [B, S, n]) and mask_index_out
 * (int32 [B], required: ORT refuses the model without it).
 */
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

/* gamma(m) = m u / (1 - m u) (Higham, Accuracy and Stability of Numerical Algorithms, 3.1) */
static double gam(double m)
{
	return m * U32 / (1 - m * U32);
}

static const qcf_tensor *named(const qcf_op_call *call, const char *name)
{
	for (int i = 5; i < call->n_inputs; i++)
		if (call->inputs[i].name && strcmp(call->inputs[i].name, name) == 0)
			return &call->inputs[i];
	return NULL;
}

static int32_t q8(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

/* A quantized tensor of the op: its integer, the zero point and scale (per tensor) */
typedef struct {
	const qcf_tensor *t;
	int32_t zp;
	float scale;
} qe_quant;

/* quantization.h Dequantize: float(q - zero_point) * scale, one float32 rounding */
static float dq(const qe_quant *q, size_t i)
{
	return (float)(q8(q->t, i) - q->zp) * q->scale;
}

/* the same product, exact (an integer of 9 bits times a float32 fits a double) */
static double dq_exact(const qe_quant *q, size_t i)
{
	return (double)(q8(q->t, i) - q->zp) * (double)q->scale;
}

/* CheckQuantizedInputs: a scale and a zero point per tensor (a scalar or one element), the zero
 * point of the tensor's type. Not ort_qlinear.h's qref_ort_param: that one refuses a scale of 0
 * or below (the QLinear kernels divide by theirs), which this kernel only multiplies by. */
static qcf_status get_param(const qcf_tensor *t, const char *what, qe_quant *out, qref_detail *d)
{
	qcf_quant q;
	qcf_status s = qref_get_quant(t, what, 1, &q, d);
	if (s != QCF_OK)
		return s;
	double lo, hi;
	qref_range_d(t->dtype, &lo, &hi);
	if (q.zero_points[0] < lo || q.zero_points[0] > hi || !isfinite(q.scales[0]))
		return qref_fail_tensor(
		        d, t, QREF_PART_QUANT, QCF_INVALID_PARAM,
		        "QEmbedLayerNormalization: %s's zero point must fit %s and its "
		        "scale be finite (ORT reads them unchecked)",
		        what, qref_dtype_name(t->dtype));
	out->t = t;
	out->zp = (int32_t)q.zero_points[0];
	out->scale = q.scales[0];
	return QCF_OK;
}

/* The inputs' rules, in the order CheckInputs (embed_layer_norm_helper.cc) tests them */
static qcf_status check_shapes(const qcf_op_call *call, const qcf_tensor *ids,
                               const qcf_tensor *sids, const qcf_tensor *word,
                               const qcf_tensor *pos, const qcf_tensor *seg,
                               const qcf_tensor *gamma, const qcf_tensor *beta,
                               const qcf_tensor *mask, qref_detail *d)
{
	if (sids && !qref_same_shape(ids, sids))
		return qref_fail_tensor(d, sids, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: segment_ids must have input_ids' shape (CheckInputs)",
		                        call->op);
	if (mask && !qref_same_shape(ids, mask))
		return qref_fail_tensor(d, mask, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: mask must have input_ids' shape (CheckInputs)",
		                        call->op);
	if (ids->rank != 2)
		return qref_fail_tensor(d, ids, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: input_ids has 2 dimensions, got %" PRId32, call->op,
		                        ids->rank);
	if (word->rank != 2 || pos->rank != 2 || (seg && seg->rank != 2))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: word_embedding, position_embedding and segment_embedding have 2 "
		        "dimensions (CheckInputs)",
		        call->op);
	int64_t n = word->shape[1];
	if ((seg && seg->shape[1] != n) || pos->shape[1] != n)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: position_embedding and segment_embedding have word_embedding's "
		        "dimension 1, %lld (CheckInputs)",
		        call->op, (long long)n);
	if (gamma->rank != 1 || gamma->shape[0] != n || beta->rank != 1 || beta->shape[0] != n)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: gamma and beta are [hidden_size] = [%lld] (CheckInputs)",
		                 call->op, (long long)n);
	return QCF_OK;
}

/*
 * The band of one token's outputs (specs/ort/OPERATORS.md, QEmbedLayerNormalization): the exact
 * terms in double, then the bound of every float32 evaluation of each stage. x[i] = w + p + s
 * (3 roundings at most: a product, two sums), the mean (a sum of n, a division), a = x - mean,
 * the variance (n squares summed), its division, + epsilon, the square root, then a / e (taken
 * as two roundings: a kernel may multiply by 1 / e), times gamma (a product of its own), plus
 * beta (a product of its own): y in [c - w, c + w].
 */
static void qembed_band(const qe_quant *word, const qe_quant *pos, const qe_quant *seg,
                        const qe_quant *gamma, const qe_quant *beta, size_t wrow, size_t prow,
                        size_t srow, int64_t n, float eps, double *x, double *dx, double *lo,
                        double *hi)
{
	double sx = 0, sabs = 0, sdx = 0;
	for (int64_t i = 0; i < n; i++) {
		double w = dq_exact(word, wrow + (size_t)i), p = dq_exact(pos, prow + (size_t)i);
		double s = seg ? dq_exact(seg, srow + (size_t)i) : 0;
		x[i] = w + p + s;
		dx[i] = gam(3) * (fabs(w) + fabs(p) + fabs(s));
		sx += x[i];
		sabs += fabs(x[i]) + dx[i];
		sdx += dx[i];
	}
	double nn = (double)n, mu = sx / nn;
	/* the mean: the terms' errors, a sum of n in any order, one division */
	double em = (sdx + gam(nn - 1) * sabs) / nn * (1 + U32) + U32 * fabs(mu);
	double v = 0, ev = 0, ev2 = 0;
	for (int64_t i = 0; i < n; i++) {
		double a = x[i] - mu;
		/* a = x - mean: x's error, the mean's, one rounding; 2^-50 for this double model */
		double ea = (dx[i] + em) * (1 + U32) + U32 * fabs(a) +
		            0x1p-50 * (fabs(x[i]) + fabs(mu));
		v += a * a;
		ev += 2 * fabs(a) * ea + ea * ea;
		ev2 += (fabs(a) + ea) * (fabs(a) + ea);
		x[i] = a;
		dx[i] = ea;
	}
	/* the sum of n squares (fused or not): gamma(n); / n and + epsilon: a rounding each */
	ev += gam(nn) * ev2;
	double q = v / nn, eq = ev / nn + U32 * (q + ev / nn);
	double r = q + (double)eps, er = eq + U32 * (r + eq);
	double sigma = sqrt(r), rho = r > 0 ? er / r * (1 + U32) + U32 : INFINITY;
	for (int64_t i = 0; i < n; i++) {
		double g = dq_exact(gamma, (size_t)i), b = dq_exact(beta, (size_t)i);
		if (!(rho < 0.5)) {
			lo[i] = -INFINITY;
			hi[i] = INFINITY;
			continue;
		}
		double t = x[i] / sigma;
		double et = (dx[i] + fabs(x[i]) * rho) / (sigma * (1 - rho)) * (1 + 2.01 * U32) +
		            2.01 * U32 * fabs(t);
		double c = t * g + b;
		double w = et * fabs(g) * (1 + gam(3)) + gam(3) * fabs(t * g) + gam(2) * fabs(b) +
		           0x1p-40 * (fabs(t * g) + fabs(b));
		lo[i] = c - w;
		hi[i] = c + w;
	}
}

static qcf_status qref_ort_qembed(const qcf_op_call *call, const qref_op *op_row, qref_detail *d)
{
	(void)op_row;
	/* both outputs: ONNX Runtime 1.30 refuses the model without mask_index_out (measured) */
	if (call->n_inputs < 5 || call->n_inputs > 8 || call->n_outputs != 2)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s takes input_ids, word_embedding, position_embedding, gamma, beta "
		        "and the optional segment_ids, segment_embedding and mask, and the "
		        "outputs layernorm_out and mask_index_out, got %" PRId32 " and %" PRId32,
		        call->op, call->n_inputs, call->n_outputs);
	qcf_status s = qref_check_call(call, call->n_inputs, call->n_outputs, d);
	if (s != QCF_OK)
		return s;
	static const char *const opt[] = {"segment_ids", "segment_embedding", "mask"};
	for (int i = 5; i < call->n_inputs; i++) {
		const char *nm = call->inputs[i].name;
		int known = 0, twice = 0;
		for (int k = 0; k < 3; k++)
			known |= nm && strcmp(nm, opt[k]) == 0;
		for (int j = 5; j < i; j++)
			twice |=
			        nm && call->inputs[j].name && strcmp(nm, call->inputs[j].name) == 0;
		if (!known || twice)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: optional input %d must be named 'segment_ids', "
			                 "'segment_embedding' or 'mask', each once (ORT's optional "
			                 "inputs are told apart by name)",
			                 call->op, i);
	}
	const qcf_tensor *ids = &call->inputs[0], *word = &call->inputs[1], *pos = &call->inputs[2];
	const qcf_tensor *gamma = &call->inputs[3], *beta = &call->inputs[4];
	const qcf_tensor *sids = named(call, "segment_ids"),
	                 *seg = named(call, "segment_embedding");
	const qcf_tensor *mask = named(call, "mask");
	qcf_tensor *y = &call->outputs[0];
	qcf_tensor *mi = &call->outputs[1];
	/* the schema's inference (measured): segment_ids, segment_embedding and its scale and zero
	 * point all given or all left out */
	if (!sids != !seg)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: segment_ids and segment_embedding are given together or not at "
		        "all (ORT's shape inference)",
		        call->op);
	/* T1 int32; T2 int8 or uint8, one type for every quantized tensor; T float32 */
	if (ids->dtype != QCF_INT32 || (sids && sids->dtype != QCF_INT32) ||
	    (mask && mask->dtype != QCF_INT32) || mi->dtype != QCF_INT32)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: input_ids, segment_ids, mask and mask_index_out are int32 (the "
		        "schema's T1)",
		        call->op);
	qcf_dtype t2 = word->dtype;
	if ((t2 != QCF_INT8 && t2 != QCF_UINT8) || pos->dtype != t2 || gamma->dtype != t2 ||
	    beta->dtype != t2 || (seg && seg->dtype != t2))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: the embeddings, gamma and beta are all int8 or all uint8 (the "
		        "schema's T2), got word_embedding %s",
		        call->op, qref_dtype_name(t2));
	if (y->dtype != QCF_FLOAT32)
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: layernorm_out is float32 (ORT's CPU kernel registers "
		                        "float32 only)",
		                        call->op);
	if ((s = check_shapes(call, ids, sids, word, pos, seg, gamma, beta, mask, d)) != QCF_OK)
		return s;
	double eps_d = 1e-12;
	qref_attr_number(call, "epsilon", &eps_d);
	float eps = (float)eps_d;
	if (!(eps >= 0) || isinf(eps))
		return qref_fail_attr(d, "epsilon", QCF_INVALID_PARAM,
		                      "%s: epsilon must be >= 0 (EmbedLayerNormBase's ORT_ENFORCE) "
		                      "and finite",
		                      call->op);
	int64_t B = ids->shape[0], S = ids->shape[1], n = word->shape[1];
	if (y->rank != 3 || y->shape[0] != B || y->shape[1] != S || y->shape[2] != n)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: layernorm_out must be [batch_size, sequence_length, "
		                        "hidden_size] = [%lld, %lld, %lld]",
		                        call->op, (long long)B, (long long)S, (long long)n);
	if (mi->rank != 1 || mi->shape[0] != B)
		return qref_fail_output(d, 1, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: mask_index_out must be [batch_size] = [%lld]",
		                        call->op, (long long)B);
	qe_quant qw, qp, qs = {0}, qg, qb;
	if ((s = get_param(word, "word_embedding", &qw, d)) != QCF_OK ||
	    (s = get_param(pos, "position_embedding", &qp, d)) != QCF_OK ||
	    (seg && (s = get_param(seg, "segment_embedding", &qs, d)) != QCF_OK) ||
	    (s = get_param(gamma, "gamma", &qg, d)) != QCF_OK ||
	    (s = get_param(beta, "beta", &qb, d)) != QCF_OK)
		return s;
	/* ComputeInternal: "input index out of range" */
	int64_t wrows = word->shape[0], prows = pos->shape[0], srows = seg ? seg->shape[0] : 0;
	if (B * S > 0 && S > prows)
		return qref_fail_tensor(d, pos, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: position_embedding has %lld rows, fewer than "
		                        "sequence_length %lld (ORT: input index out of range)",
		                        call->op, (long long)prows, (long long)S);
	for (size_t k = 0; k < (size_t)(B * S); k++) {
		int64_t id = qref_get_int(ids, k), sid = sids ? qref_get_int(sids, k) : 0;
		if (id < 0 || id >= wrows || (sids && (sid < 0 || sid >= srows)))
			return qref_fail_tensor(
			        d, id < 0 || id >= wrows ? ids : sids, QREF_PART_DATA,
			        QCF_INVALID_PARAM,
			        "%s: token %zu's %s %lld is outside [0, %lld) (ORT: "
			        "input index out of range)",
			        call->op, k, id < 0 || id >= wrows ? "id" : "segment id",
			        (long long)(id < 0 || id >= wrows ? id : sid),
			        (long long)(id < 0 || id >= wrows ? wrows : srows));
	}
	if ((s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;

	size_t nn = (size_t)(n > 0 ? n : 1);
	float *row = malloc(nn * sizeof *row);
	double *x = malloc(4 * nn * sizeof *x);
	if (!row || !x) {
		free(row), free(x);
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	}
	double *dx = x + nn, *lo = x + 2 * nn, *hi = x + 3 * nn;
	const qe_quant *qsp = seg ? &qs : NULL;
	for (int64_t k = 0; k < B * S; k++) {
		size_t wrow = (size_t)(qref_get_int(ids, (size_t)k) * n);
		size_t prow = (size_t)((k % S) * n);
		size_t srow = sids ? (size_t)(qref_get_int(sids, (size_t)k) * n) : 0;
		/* ComputeInternal's float32 evaluation, in its order */
		float sum = 0;
		for (int64_t i = 0; i < n; i++) {
			float sub = dq(&qw, wrow + (size_t)i) + dq(&qp, prow + (size_t)i);
			if (qsp)
				sub += dq(qsp, srow + (size_t)i);
			row[i] = sub;
			sum += sub;
		}
		float mean = sum / (float)n;
		sum = 0;
		for (int64_t i = 0; i < n; i++) {
			float a = row[i] - mean;
			row[i] = a;
			sum += a * a;
		}
		float e = sqrtf(sum / (float)n + eps);
		qembed_band(&qw, &qp, qsp, &qg, &qb, wrow, prow, srow, n, eps, x, dx, lo, hi);
		for (int64_t i = 0; i < n; i++) {
			float v = row[i] / e * dq(&qg, (size_t)i) + dq(&qb, (size_t)i);
			size_t o = (size_t)(k * n + i);
			qref_mark_any(d, 0, o, lo[i], hi[i]);
			qref_set(y, o, v);
		}
	}
	/* mask_index_out: per batch, the mask values equal to 1 (others count nothing) */
	for (int64_t b = 0; b < B; b++) {
		int32_t c = 0;
		for (int64_t t = 0; mask && t < S; t++)
			c += qref_get_int(mask, (size_t)(b * S + t)) == 1;
		qref_mark_exact(d, 1, (size_t)b);
		qref_set(mi, (size_t)b, c);
	}
	free(row), free(x);
	return QCF_OK;
}

static const qref_attr_schema qembed_attrs[] = {
        A_NUM("epsilon", "1e-12"),
        END,
};

const qref_op qref_ops_ort_qembed[] = {
        {.schema = {.semantics = "ort",
                    .op = "QEmbedLayerNormalization",
                    IO_OUTS(LIST("input_ids", "word_embedding", "position_embedding", "gamma",
                                 "beta", "segment_ids", "segment_embedding", "mask"),
                            5, 8, LIST("layernorm_out", "mask_index_out"), 2, 2),
                    .attrs = qembed_attrs},
         .kernel = qref_ort_qembed},
        {.schema = {.op = NULL}},
};
