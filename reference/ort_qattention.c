/*
 * ONNX Runtime's com.microsoft QAttention (specs/ort/OPERATORS.md), semantics "ort".
 *
 * Schema: onnxruntime/core/graph/contrib_ops/quantization_defs.cc (QAttention) and
 * ContribOperators.md in microsoft/onnxruntime's docs folder. Kernel:
 * onnxruntime/contrib_ops/cpu/quantization/attention_quant.cc on the attention base of
 * onnxruntime/contrib_ops/cpu/bert/ (attention_base.h CheckInputs / CheckMask / GetPresent,
 * attention_cpu_base.h ApplyAttention, attention_helper.h PrepareMask); MLAS's integer GEMM with
 * its scale-bias output processor (onnxruntime/core/mlas/lib/qgemm.cpp, qpostprocessor.cpp), its
 * float32 SGEMM and its softmax (compute.cpp MlasComputeSoftmax with its polynomial exp).
 *
 * Q, K and V are exact: acc = sum_d (x - x_zp)(w - w_zp[j]) in int32, then float32
 * float(acc) * (w_scale[j] * x_scale), then + bias[j] (two float32 roundings, no fusion), the
 * same on every ISA; so is `present`, a copy of past and K, V. The attention after them is
 * float32 SGEMMs and MLAS's softmax whose summation order, fused multiply-adds and exp
 * polynomial depend on the ISA's kernel: the reference computes it in double from the exact
 * Q, K, V and gives each output element the band of every such computation (qatt_bound below;
 * the derivation in specs/ort/OPERATORS.md, QAttention).
 *
 * Tensors: input (uint8, quant = input_scale / input_zero_point), weight (uint8 or int8, quant
 * per tensor or per column along axis 1 = weight_scale / weight_zero_point), bias (float32),
 * then the optional mask_index (int32) and past (float32), told apart by name; outputs output
 * and the optional present.
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

/* MLAS's exp (compute.cpp MlasComputeSumExpVector): a degree-6 polynomial on the reduced
 * argument after a two-constant ln 2 reduction, with or without fused multiply-adds; taken
 * within 16 float32 units of the exact exp (relative), which its few roundings stay inside. */
#define EXP_REL (16 * U32)
/* MlasComputeSumExpVector clamps x - max at -88.3763: every exp it returns of a smaller argument
 * is exp(-88.3763) < 2^-127, where the exact value is smaller still */
#define EXP_FLOOR 0x1p-127

static const qcf_tensor *named(const qcf_op_call *call, const char *name)
{
	for (int i = 3; i < call->n_inputs; i++)
		if (call->inputs[i].name && strcmp(call->inputs[i].name, name) == 0)
			return &call->inputs[i];
	return NULL;
}

static int32_t q8(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

/* The mask's form (attention_base.h CheckMask) */
enum { MASK_NONE, MASK_END, MASK_END_START, MASK_2D, MASK_3D };

static qcf_status check_mask(const qcf_op_call *call, const qcf_tensor *m, int64_t B, int64_t S,
                             int64_t T, int *form, qref_detail *d)
{
	*form = MASK_NONE;
	if (!m)
		return QCF_OK;
	if (m->dtype != QCF_INT32)
		return qref_fail_tensor(d, m, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: mask_index must be int32, got %s", call->op,
		                        qref_dtype_name(m->dtype));
	if (m->rank == 1) {
		int64_t n = m->shape[0];
		if (n != B && n != 2 * B && n != 3 * B + 2)
			return qref_fail_tensor(
			        d, m, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			        "%s: a 1-D mask_index holds batch_size, 2 * batch_size "
			        "or 3 * batch_size + 2 values (CheckMask)",
			        call->op);
		/* (3B + 2): the CPU kernel reads its first B values as end positions only */
		*form = n == 2 * B ? MASK_END_START : MASK_END;
		for (int64_t b = 0; b < B; b++)
			if (qref_get(m, (size_t)b) < 0)
				return qref_fail_tensor(
				        d, m, QREF_PART_DATA, QCF_INVALID_PARAM,
				        "%s: mask_index end position %lld of batch %lld "
				        "is negative (CheckMask)",
				        call->op, (long long)qref_get(m, (size_t)b), (long long)b);
	} else if (m->rank == 2) {
		if (m->shape[0] == B && m->shape[1] == T)
			*form = MASK_2D;
		else if ((m->shape[0] == B || m->shape[0] == 1) && m->shape[1] == 1)
			*form = MASK_NONE; /* the dummy mask: CheckInputs drops it */
		else
			return qref_fail_tensor(
			        d, m, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			        "%s: a 2-D mask_index is [batch_size, "
			        "total_sequence_length] = [%lld, %lld] (or the dummy "
			        "[1 or batch_size, 1])",
			        call->op, (long long)B, (long long)T);
	} else if (m->rank == 3) {
		if (m->shape[0] != B || m->shape[1] != S || m->shape[2] != T)
			return qref_fail_tensor(
			        d, m, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			        "%s: a 3-D mask_index is [batch_size, sequence_length, "
			        "total_sequence_length] = [%lld, %lld, %lld]",
			        call->op, (long long)B, (long long)S, (long long)T);
		*form = MASK_3D;
	} else if (m->rank == 4) {
		return qref_fail_tensor(d, m, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: a 4-D (Megatron) mask_index: ORT's CPU kernel refuses "
		                        "it (\"4D mask in attention cpu kernel is not supported\")",
		                        call->op);
	} else {
		return qref_fail_tensor(d, m, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: mask_index has 1, 2, 3 or 4 dimensions, got %" PRId32,
		                        call->op, m->rank);
	}
	return QCF_OK;
}

/*
 * attention_helper.h PrepareMask: the additive mask [B][S][T], 0 or -10000 (the kernel's
 * mask_filter_value, an attribute ORT 1.30's schema does not list). The causal part
 * (unidirectional == 1 and S > 1: key t > past + s) takes no weight at all in ORT 1.30, even in
 * a row whose other keys the padding mask covers (measured: such a row attends to its padded
 * keys alone, where a -10000 added to them would weigh every key alike): -inf here.
 */
static void prepare_mask(const qcf_tensor *m, int form, int causal, int64_t B, int64_t S, int64_t P,
                         int64_t T, float *mask)
{
	const float f = -10000.0f;
	for (int64_t b = 0; b < B; b++)
		for (int64_t s = 0; s < S; s++)
			for (int64_t t = 0; t < T; t++) {
				float v = 0.0f;
				size_t bt = (size_t)(b * T + t);
				if (form == MASK_3D)
					v = qref_get(m, (size_t)((b * S + s) * T + t)) > 0 ? 0.0f
					                                                   : f;
				else if (form == MASK_2D)
					v = qref_get(m, bt) > 0 ? 0.0f : f;
				else if (form == MASK_END || form == MASK_END_START) {
					if (t >= qref_get(m, (size_t)b))
						v = f;
					if (form == MASK_END_START &&
					    t < qref_get(m, (size_t)(b + B)))
						v = f;
				}
				if (causal && s < S - 1 && t >= P + s + 1)
					v = -INFINITY;
				mask[(b * S + s) * T + t] = v;
			}
}

static qcf_status qref_ort_qattention(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	if (call->n_inputs < 3 || call->n_inputs > 5 || call->n_outputs < 1 || call->n_outputs > 2)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s takes input, weight, bias and the optional mask_index and past, "
		        "and the outputs output and an optional present, got %" PRId32
		        " and %" PRId32,
		        call->op, call->n_inputs, call->n_outputs);
	qcf_status s = qref_check_call(call, call->n_inputs, call->n_outputs, d);
	if (s != QCF_OK)
		return s;
	for (int i = 3; i < call->n_inputs; i++) {
		const char *nm = call->inputs[i].name;
		int twice = 0;
		for (int j = 3; j < i; j++)
			twice |=
			        nm && call->inputs[j].name && strcmp(nm, call->inputs[j].name) == 0;
		if (!nm || (strcmp(nm, "mask_index") != 0 && strcmp(nm, "past") != 0) || twice)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: optional input %d must be named 'mask_index' or 'past', "
			        "each once (ORT's optional inputs are told apart by name)",
			        call->op, i);
	}
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1], *bias = &call->inputs[2];
	const qcf_tensor *mask = named(call, "mask_index"), *past = named(call, "past");
	qcf_tensor *y = &call->outputs[0];
	qcf_tensor *present = call->n_outputs > 1 ? &call->outputs[1] : NULL;
	int64_t nh = 0, uni = 0, rotary = 0, share = 0;
	double scale_d = 0;
	/* the constructor: num_heads > 0 (ORT_ENFORCE); unidirectional: only 1 is causal */
	qref_attr_int(call, "num_heads", &nh);
	qref_attr_int(call, "unidirectional", &uni);
	/* do_rotary: read by the attention base, used by no step of the CPU QAttention (measured:
	 * 1 gives the outputs of 0) */
	qref_attr_int(call, "do_rotary", &rotary);
	qref_attr_int(call, "past_present_share_buffer", &share);
	qref_attr_number(call, "scale", &scale_d);
	(void)rotary;
	/* attention_quant.cc registers a uint8 input, a uint8 or int8 weight, float32 T3 */
	if (x->dtype != QCF_UINT8 || (w->dtype != QCF_UINT8 && w->dtype != QCF_INT8))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input must be uint8 and weight uint8 or int8 (ORT's CPU "
		                 "kernel), got %s and %s",
		                 call->op, qref_dtype_name(x->dtype), qref_dtype_name(w->dtype));
	if (bias->dtype != QCF_FLOAT32 || y->dtype != QCF_FLOAT32 ||
	    (past && past->dtype != QCF_FLOAT32) || (present && present->dtype != QCF_FLOAT32))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: bias, past, output and present must be float32 (ORT's CPU "
		                 "kernel registers float32 only)",
		                 call->op);
	/* CheckInputs */
	if (x->rank != 3 || w->rank != 2 || bias->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input has 3 dimensions, weight 2 and bias 1, got %" PRId32
		                 ", %" PRId32 " and %" PRId32,
		                 call->op, x->rank, w->rank, bias->rank);
	int64_t B = x->shape[0], S = x->shape[1], D = x->shape[2];
	if (w->shape[0] != D)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: weight's dimension 0 must be input's dimension 2, %lld",
		                 call->op, (long long)D);
	if (bias->shape[0] != w->shape[1] || w->shape[1] % 3 != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: bias must have weight's dimension 1, 3 * hidden_size",
		                 call->op);
	int64_t NH = w->shape[1] / 3;
	if (NH % nh != 0)
		return qref_fail_attr(d, "num_heads", QCF_INVALID_PARAM,
		                      "%s: hidden_size %lld must be divisible by num_heads %lld",
		                      call->op, (long long)NH, (long long)nh);
	int64_t H = NH / nh, P = 0;
	if (past) {
		if (past->rank != 5 || past->shape[0] != 2 || past->shape[1] != B ||
		    past->shape[2] != nh || past->shape[4] != H)
			return qref_fail_tensor(
			        d, past, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			        "%s: past must be [2, batch_size, num_heads, "
			        "past_sequence_length, head_size] = [2, %lld, %lld, P, "
			        "%lld]",
			        call->op, (long long)B, (long long)nh, (long long)H);
		P = past->shape[3];
		if (share)
			return qref_fail_attr(d, "past_present_share_buffer", QCF_NOT_SUPPORTED,
			                      "%s: past_present_share_buffer with past is not "
			                      "implemented (past is then a buffer of "
			                      "max_sequence_length with a length input)",
			                      call->op);
		if (!present)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: past needs the output present (GetPresent: ORT "
			                 "fails without it)",
			                 call->op);
	}
	int64_t T = P + S;
	int form;
	if ((s = check_mask(call, mask, B, S, T, &form, d)) != QCF_OK)
		return s;
	if (D == 0)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: input_hidden_size 0 is not implemented (MLAS's integer GEMM "
		                 "with K = 0 leaves its output unwritten)",
		                 call->op);
	if (y->rank != 3 || y->shape[0] != B || y->shape[1] != S || y->shape[2] != NH)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: output must be [batch_size, sequence_length, "
		                        "hidden_size] = [%lld, %lld, %lld]",
		                        call->op, (long long)B, (long long)S, (long long)NH);
	if (present &&
	    (present->rank != 5 || present->shape[0] != 2 || present->shape[1] != B ||
	     present->shape[2] != nh || present->shape[3] != T || present->shape[4] != H))
		return qref_fail_output(d, 1, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: present must be [2, batch_size, num_heads, "
		                        "total_sequence_length, head_size] = [2, %lld, %lld, %lld, "
		                        "%lld]",
		                        call->op, (long long)B, (long long)nh, (long long)T,
		                        (long long)H);
	qcf_quant qx, qw;
	if ((s = qref_get_quant(x, "input", 1, &qx, d)) != QCF_OK ||
	    (s = qref_get_quant(w, "weight", 0, &qw, d)) != QCF_OK)
		return s;
	if (qw.axis >= 0 && qw.axis != 1)
		return qref_fail_tensor(
		        d, w, QREF_PART_QUANT, QCF_INVALID_PARAM,
		        "%s: weight is quantized per tensor or per column (axis 1), "
		        "not along axis %" PRId32,
		        call->op, qw.axis);
	double lo, hi;
	qref_range_d(w->dtype, &lo, &hi);
	int ok = qx.zero_points[0] >= 0 && qx.zero_points[0] <= 255 && isfinite(qx.scales[0]);
	for (int32_t i = 0; i < qw.count; i++)
		ok = ok && qw.zero_points[i] >= lo && qw.zero_points[i] <= hi &&
		     isfinite(qw.scales[i]);
	if (!ok)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: zero points must fit their tensor's type and scales be finite "
		        "(ORT reads them unchecked; an infinite scale makes every output "
		        "NaN)",
		        call->op);
	if ((s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;

	size_t nqkv = (size_t)(B * nh * S * H), nkv = (size_t)(B * nh * T * H);
	float *qkv = malloc(3 * nqkv * sizeof *qkv);
	float *kv = malloc(2 * (nkv ? nkv : 1) * sizeof *kv);
	float *mk = malloc((size_t)(B * S * T > 0 ? B * S * T : 1) * sizeof *mk);
	double *sc = malloc((size_t)(T ? T : 1) * 3 * sizeof *sc);
	if (!qkv || !kv || !mk || !sc) {
		free(qkv), free(kv), free(mk), free(sc);
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	}
	/* STEP 1: Q, K, V [3][B][N][S][H], MLAS's integer GEMM and scale-bias output processor */
	for (int64_t b = 0; b < B; b++)
		for (int64_t t = 0; t < S; t++)
			for (int64_t j = 0; j < 3 * NH; j++) {
				int32_t zw = qw.zero_points[qw.count > 1 ? j : 0];
				int64_t acc = 0;
				for (int64_t k = 0; k < D; k++)
					acc += (int64_t)(q8(x, (size_t)((b * S + t) * D + k)) -
					                 qx.zero_points[0]) *
					       (q8(w, (size_t)(k * 3 * NH + j)) - zw);
				float scale = qw.scales[qw.count > 1 ? j : 0] * qx.scales[0];
				float v = (float)(int32_t)(uint32_t)(uint64_t)acc * scale;
				v = v + (float)qref_get(bias, (size_t)j);
				int64_t which = j / NH, n = (j % NH) / H, h = j % H;
				qkv[(size_t)which * nqkv +
				    (size_t)(((b * nh + n) * S + t) * H + h)] = v;
			}
	/* present: past's K and V, then this step's (ConcatStateChunk), exact copies */
	for (int64_t which = 0; which < 2; which++)
		for (int64_t bn = 0; bn < B * nh; bn++)
			for (int64_t t = 0; t < T; t++)
				for (int64_t h = 0; h < H; h++) {
					size_t o = (size_t)which * nkv +
					           (size_t)((bn * T + t) * H + h);
					kv[o] = t < P ? (float)qref_get(
					                        past,
					                        (size_t)which * (size_t)(B * nh *
					                                                 P * H) +
					                                (size_t)((bn * P + t) * H +
					                                         h))
					              : qkv[(size_t)(which + 1) * nqkv +
					                    (size_t)((bn * S + t - P) * H + h)];
				}
	if (present)
		for (size_t o = 0; o < 2 * nkv; o++) {
			qref_mark_exact(d, 1, o);
			qref_set(present, o, kv[o]);
		}
	int causal = uni == 1 && S > 1;
	prepare_mask(mask, form, causal, B, S, P, T, mk);
	int masked = form != MASK_NONE || causal;
	float alpha = scale_d != 0 ? (float)scale_d : 1.0f / sqrtf((float)H);
	/* STEPS 2 to 4 per (b, n, s): scores, softmax, probabilities times V, in double */
	double *es = sc + T, *pe = sc + 2 * T;
	for (int64_t b = 0; b < B; b++)
		for (int64_t n = 0; n < nh; n++)
			for (int64_t t = 0; t < S; t++) {
				const float *q = qkv + (size_t)(((b * nh + n) * S + t) * H);
				const float *kk = kv + (size_t)((b * nh + n) * T * H);
				const float *vv = kv + nkv + (size_t)((b * nh + n) * T * H);
				double mx = -INFINITY, emax = 0;
				for (int64_t u = 0; u < T; u++) {
					double dot = 0, mag = 0;
					for (int64_t h = 0; h < H; h++) {
						double p = (double)q[h] * kk[u * H + h];
						dot += p;
						mag += fabs(p);
					}
					double m = masked ? mk[(b * S + t) * T + u] : 0;
					sc[u] = (double)alpha * dot + m;
					if (isinf(m)) { /* a causal key: weight 0 */
						es[u] = 0;
						continue;
					}
					/* the SGEMM's dot (any order, fused or not), times alpha,
					 * plus the mask: gamma(H + 2) of alpha sum |q k|, and one
					 * rounding of the sum */
					es[u] = gam((double)H + 2) * fabs((double)alpha) * mag +
					        U32 * (fabs((double)alpha * dot) + fabs(m)) *
					                (1 + gam((double)H + 2));
					if (sc[u] > mx)
						mx = sc[u], emax = es[u];
				}
				/* the computed maximum is off by the error of a score that may be
				 * it */
				double ea = emax;
				for (int64_t u = 0; u < T; u++)
					if (sc[u] + es[u] >= mx - ea && es[u] > emax)
						emax = es[u];
				/* exp(s - max): the argument off by its score's error, the
				 * maximum's (at most emax) and the subtraction's rounding */
				double sum = 0, werr = 0;
				for (int64_t u = 0; u < T; u++) {
					double xa = sc[u] - mx;
					if (isinf(xa)) {
						pe[u] = 0;
						continue;
					}
					double dl = es[u] + emax + U32 * (fabs(xa) + es[u] + emax);
					double e = exp(xa);
					pe[u] = expm1(dl +
					              1.01 * EXP_REL); /* relative error of e */
					sum += e;
					werr += pe[u] * e;
				}
				/* the float32 sum of T exps in any order; EXP_FLOOR for each
				 * exp MLAS clamps (sum >= 1: the maximum's exp) */
				double rho = (werr + (double)T * EXP_FLOOR) / sum *
				                     (1 + gam((double)T)) +
				             gam((double)T);
				for (int64_t h = 0; h < H; h++) {
					double o = 0, err = 0, mag = 0;
					for (int64_t u = 0; u < T; u++) {
						double p = exp(sc[u] - mx) / sum, v = vv[u * H + h];
						/* y = e * (1 / sum) or e / sum: two roundings */
						double pr = p * ((1 + pe[u]) * (1 + 2.01 * U32) /
						                         (1 - rho) -
						                 1) +
						            2 * EXP_FLOOR;
						o += p * v;
						err += pr * fabs(v);
						mag += (p + pr) * fabs(v);
					}
					/* the SGEMM of the probabilities and V: gamma(T + 1);
					 * 2^-40 for this double evaluation */
					double wd = err + gam((double)T + 1) * mag + 0x1p-40 * mag;
					size_t oi = (size_t)((b * S + t) * NH + n * H + h);
					if (!(rho < 0.5) || !isfinite(wd))
						qref_mark_any(d, 0, oi, -INFINITY, INFINITY);
					else
						qref_mark_any(d, 0, oi, o - wd, o + wd);
					qref_set(y, oi, (double)(float)o);
				}
			}
	free(qkv), free(kv), free(mk), free(sc);
	return QCF_OK;
}

static const qref_attr_schema qattention_attrs[] = {
        A_INT_REQ("num_heads", 1, I32),
        A_INT("unidirectional", -I32, I32, "0"),
        A_INT("do_rotary", -I32, I32, "0"),
        A_INT("past_present_share_buffer", -I32, I32, "0"),
        A_NUM("scale", "0.0"),
        END,
};

const qref_op qref_ops_ort_qattention[] = {
        {.schema = {.semantics = "ort",
                    .op = "QAttention",
                    IO_OUTS(LIST("input", "weight", "bias", "mask_index", "past"), 3, 5,
                            LIST("output", "present"), 1, 2),
                    .attrs = qattention_attrs},
         .kernel = qref_ort_qattention},
        {.schema = {.op = NULL}},
};
