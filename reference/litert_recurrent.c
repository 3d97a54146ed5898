/*
 * LiteRT's fully integer recurrent kernels: SVDF on int8 input and feature weights, int16 time
 * weights and state, int32 bias (tflite/kernels/svdf.cc Prepare and Eval; internal/reference/
 * svdf.h EvalIntegerSVDF; the int16 dot products of internal/reference/portable_tensor_utils.cc).
 * Algorithm, ABI and refusals: specs/litert/OPERATORS.md ("LiteRT SVDF"). The variable state
 * tensor LiteRT updates in place is an input here (the state before the step) and an output
 * (the state after it).
 *
 * Every kernel checks all of its rules before it writes any output. Where LiteRT's int32
 * arithmetic would overflow (undefined in C++), the elements that depend on it are marked
 * "any value of the dtype".
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "op.h"
#include "requant.h"

/* ---- SVDF ---------------------------------------------------------------------------------- */

/* The call's tensors and sizes, after svdf_check. */
typedef struct svdf_call {
	const qcf_tensor *x, *wf, *wt, *bias, *state; /* bias NULL when absent */
	qcf_tensor *y, *state_out;
	int64_t batch, n_input, n_filter, n_unit, n_memory, rank;
	qcf_quant qx, qwf, qwt, qs, qy, qso;
} svdf_call;

/* The activation names of TFLite's schema, in its order (ActivationFunctionType). */
#define SVDF_ACT LIST("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT")

/* 1 when fused_activation_function is RELU (the only one the integer Eval takes); absent is
 * NONE, the schema's default. */
static int svdf_act_is_relu(const qcf_op_call *call)
{
	const qcf_attr *a = qref_attr_find(call, "fused_activation_function");
	if (!a)
		return 0;
	if (a->type == QCF_ATTR_STRING)
		return a->v.s && strcmp(a->v.s, "RELU") == 0;
	int64_t v;
	return qref_attr_int(call, "fused_activation_function", &v) == 1 && v == 1;
}

/*
 * Prepare's rules and those of the integer Eval: 4 inputs (input, weights_feature,
 * weights_time, state: no bias) or 5 (input, weights_feature, weights_time, bias, state), two
 * outputs (output, state_out); dtypes int8 / int8 / int16 / int32 / int16 -> int8, int16;
 * ranks 2 (bias 1); per-tensor quantization with positive finite scales, the weights and the
 * state symmetric; the sizes of svdf.cc Prepare; rank != 0 dividing the filters; RELU.
 */
static qcf_status svdf_check(const qcf_op_call *call, qref_detail *d, svdf_call *c)
{
	qcf_status s = qref_check_call(call, call->n_inputs == 4 ? 4 : 5, 2, d);
	if (s != QCF_OK)
		return s;
	memset(c, 0, sizeof *c);
	c->x = &call->inputs[0];
	c->wf = &call->inputs[1];
	c->wt = &call->inputs[2];
	c->bias = call->n_inputs == 5 ? &call->inputs[3] : NULL;
	c->state = &call->inputs[call->n_inputs - 1];
	c->y = &call->outputs[0];
	c->state_out = &call->outputs[1];

	if (c->x->dtype == QCF_FLOAT32)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "SVDF: float32 and hybrid (float input, int8 weights) SVDF are "
		                 "LiteRT's but not implemented by the reference");
	const struct {
		const qcf_tensor *t;
		const char *name;
		qcf_dtype dtype;
		int rank;
	} want[] = {
	        {c->x, "input", QCF_INT8, 2},
	        {c->wf, "weights_feature", QCF_INT8, 2},
	        {c->wt, "weights_time", QCF_INT16, 2},
	        {c->bias, "bias", QCF_INT32, 1},
	        {c->state, "state", QCF_INT16, 2},
	        {c->y, "output", QCF_INT8, 2},
	        {c->state_out, "state_out", QCF_INT16, 2},
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		if (!want[k].t)
			continue;
		if (want[k].t->dtype != want[k].dtype)
			return qref_fail_tensor(d, want[k].t, QREF_PART_DTYPE, QCF_INVALID_PARAM,
			                        "SVDF (integer) %s must be %s, got %s",
			                        want[k].name, qref_dtype_name(want[k].dtype),
			                        qref_dtype_name(want[k].t->dtype));
		if (want[k].t->rank != want[k].rank)
			return qref_fail_tensor(
			        d, want[k].t, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			        "SVDF %s must have rank %d (LiteRT reads only its first "
			        "%d dimension(s)), got %d",
			        want[k].name, want[k].rank, want[k].rank, (int)want[k].t->rank);
	}

	/* quantization: LiteRT reads scale[0] of each and the zero points of input and output
	 * only; the others it takes as 0 (EvalIntegerSVDF: "assumes state is symmetrically
	 * quantized") */
	const struct {
		const qcf_tensor *t;
		const char *name;
		qcf_quant *q;
		int symmetric;
	} qs[] = {
	        {c->x, "input", &c->qx, 0},          {c->wf, "weights_feature", &c->qwf, 1},
	        {c->wt, "weights_time", &c->qwt, 1}, {c->state, "state", &c->qs, 1},
	        {c->y, "output", &c->qy, 0},         {c->state_out, "state_out", &c->qso, 1},
	};
	for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
		if ((s = qref_get_quant(qs[k].t, qs[k].name, 1, qs[k].q, d)) != QCF_OK)
			return s;
		float sc = qs[k].q->scales[0];
		if (!(sc > 0.0f && isfinite(sc)))
			return qref_fail_tensor(d, qs[k].t, QREF_PART_QUANT, QCF_INVALID_PARAM,
			                        "SVDF %s scale must be positive and finite",
			                        qs[k].name);
		if (qs[k].symmetric && qs[k].q->zero_points[0] != 0)
			return qref_fail_tensor(d, qs[k].t, QREF_PART_QUANT, QCF_INVALID_PARAM,
			                        "SVDF %s zero point must be 0 (EvalIntegerSVDF "
			                        "reads none and takes it as 0), got %" PRId32,
			                        qs[k].name, qs[k].q->zero_points[0]);
	}
	if (c->qso.scales[0] != c->qs.scales[0])
		return qref_fail_tensor(d, c->state_out, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "SVDF state_out scale must equal the state's (%g), got %g",
		                        (double)c->qs.scales[0], (double)c->qso.scales[0]);

	/* attributes: rank (SVDFOptions.rank, 0 by default) and the activation */
	int64_t rank = 0;
	(void)qref_attr_int(call, "rank", &rank);
	if (rank == 0)
		return qref_fail_attr(d, "rank", QCF_INVALID_PARAM,
		                      "SVDF rank must not be 0 (Prepare)");
	if (!svdf_act_is_relu(call))
		return qref_fail_attr(d, "fused_activation_function", QCF_INVALID_PARAM,
		                      "SVDF (integer) needs fused_activation_function RELU (Eval "
		                      "refuses any other, though it applies none)");

	/* the sizes of Prepare */
	c->rank = rank;
	c->batch = c->x->shape[0];
	c->n_input = c->x->shape[1];
	c->n_filter = c->wf->shape[0];
	c->n_memory = c->wt->shape[1];
	if (c->n_filter % rank != 0)
		return qref_fail_attr(d, "rank", QCF_INVALID_PARAM,
		                      "SVDF rank %" PRId64 " must divide the %" PRId64
		                      " filters (weights_feature dimension 0)",
		                      rank, c->n_filter);
	c->n_unit = c->n_filter / rank;
	if (c->wf->shape[1] != c->n_input)
		return qref_fail_tensor(d, c->wf, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SVDF weights_feature dimension 1 (%" PRId64
		                        ") must equal the input size (%" PRId64 ")",
		                        c->wf->shape[1], c->n_input);
	if (c->wt->shape[0] != c->n_filter)
		return qref_fail_tensor(d, c->wt, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SVDF weights_time dimension 0 (%" PRId64
		                        ") must equal the filters (%" PRId64 ")",
		                        c->wt->shape[0], c->n_filter);
	if (c->n_memory < 1)
		return qref_fail_tensor(d, c->wt, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SVDF memory size (weights_time dimension 1) must be >= 1 "
		                        "(with 0 EvalIntegerSVDF writes before the state)");
	if (c->bias && c->bias->shape[0] != c->n_unit)
		return qref_fail_tensor(d, c->bias, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SVDF bias size (%" PRId64
		                        ") must equal the units (%" PRId64 ")",
		                        c->bias->shape[0], c->n_unit);
	if (c->state->shape[0] != c->batch || c->state->shape[1] != c->n_memory * c->n_filter)
		return qref_fail_tensor(d, c->state, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SVDF state must be [batch %" PRId64
		                        ", memory * filters %" PRId64 "]",
		                        c->batch, c->n_memory * c->n_filter);
	if (c->y->shape[0] != c->batch || c->y->shape[1] != c->n_unit)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SVDF output must be [batch %" PRId64 ", units %" PRId64
		                        "]",
		                        c->batch, c->n_unit);
	if (!qref_same_shape(c->state_out, c->state))
		return qref_fail_output(d, 1, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SVDF state_out shape must equal the state's");
	return QCF_OK;
}

/* 1 when MultiplyByQuantizedMultiplier(x, m, sh) is defined in the build and *y its value
 * (int32 in LiteRT); 0 when LiteRT overflows (the double-rounding pre-shift, a shift of 31 or
 * more, or a single-rounding result beyond int32). */
static int svdf_mbqm(int32_t x, int32_t m, int sh, qref_rounding build, int64_t *y)
{
	if (build == QREF_ROUND_DOUBLE) {
		if (sh >= 31 || !qref_mbqm_preshift_fits(x, sh))
			return 0;
		*y = qref_mbqm(x, m, sh, build);
		return 1;
	}
	*y = qref_mbqm_single_wide(x, m, sh);
	return *y >= INT32_MIN && *y <= INT32_MAX;
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * One step of EvalIntegerSVDF. For batch b, filter f, memory slot t (state index
 * (b * F + f) * M + t):
 *   state_out[.., t] = state[.., t + 1] for t < M - 1 (the shift left by one),
 *   state_out[.., M - 1] = clamp16(MBQM(sum_c wf[f][c] * (x[b][c] - zp_in), m1, s1)),
 *   acc[b][u] = sum_{r < rank} sum_t wt[u * rank + r][t] * state_out[b][u * rank + r][t]
 *               + bias[u],
 *   y[b][u] = clamp8(MBQM(acc, m2, s2) + zp_out),
 * (m1, s1) = QuantizeMultiplier(s_in * s_wf / s_state), (m2, s2) = QuantizeMultiplier(s_state *
 * s_wt / s_out), both products and quotients in double (svdf.cc Prepare). No activation is
 * applied. Sums are int32 in LiteRT, in the order written (the feature dot over c, the time
 * dot over t, the rank reduction over r, then the bias).
 */
static qcf_status litert_svdf(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	svdf_call c;
	qcf_status s = svdf_check(call, d, &c);
	if (s != QCF_OK)
		return s;
	qref_rounding r = qref_detail_rounding(d);
	if (r != QREF_ROUND_DEFAULT && r != QREF_ROUND_DOUBLE && r != QREF_ROUND_SINGLE)
		return qref_rounding_na(call, d, r,
		                        "the state and the output by integer multipliers");
	qref_rounding build = qref_requant_build(r);
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);

	const int64_t B = c.batch, I = c.n_input, F = c.n_filter, U = c.n_unit, M = c.n_memory,
	              R = c.rank;
	const int32_t zp_in = c.qx.zero_points[0], zp_out = c.qy.zero_points[0];
	int32_t m1, m2;
	int sh1, sh2;
	qref_quantize_multiplier((double)c.qx.scales[0] * (double)c.qwf.scales[0] /
	                                 (double)c.qs.scales[0],
	                         build, &m1, &sh1);
	qref_quantize_multiplier((double)c.qs.scales[0] * (double)c.qwt.scales[0] /
	                                 (double)c.qy.scales[0],
	                         build, &m2, &sh2);

	/* the new state, and whether each (b, f) row of it is defined */
	unsigned char *row_ub = calloc((size_t)(B * F) + 1, 1);
	if (!row_ub)
		return qref_fail(d, QCF_ERROR, "SVDF: out of memory");
	for (int64_t b = 0; b < B; b++)
		for (int64_t f = 0; f < F; f++) {
			size_t base = (size_t)((b * F + f) * M);
			for (int64_t t = 0; t + 1 < M; t++) {
				qref_set(c.state_out, base + (size_t)t,
				         qref_get(c.state, base + (size_t)t + 1));
				qref_mark_exact(d, 1, base + (size_t)t);
			}
			int64_t acc = 0;
			int ok = 1;
			for (int64_t k = 0; k < I; k++) {
				acc += (int64_t)qref_get(c.wf, (size_t)(f * I + k)) *
				       ((int64_t)qref_get(c.x, (size_t)(b * I + k)) - zp_in);
				ok = ok && fits32(acc);
			}
			int64_t v = 0;
			ok = ok && svdf_mbqm((int32_t)acc, m1, sh1, build, &v);
			size_t last = base + (size_t)(M - 1);
			if (ok) {
				v = v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v;
				qref_set(c.state_out, last, (double)v);
				qref_mark_exact(d, 1, last);
			} else {
				row_ub[b * F + f] = 1;
				qref_set(c.state_out, last, 0.0);
				qref_mark_any(d, 1, last, INT16_MIN, INT16_MAX);
			}
		}

	/* the time dot products, the rank reduction, the bias, the output */
	for (int64_t b = 0; b < B; b++)
		for (int64_t u = 0; u < U; u++) {
			int ok = 1;
			int64_t sum = 0;
			for (int64_t k = 0; k < R; k++) {
				int64_t f = u * R + k;
				size_t base = (size_t)((b * F + f) * M);
				int64_t dot = 0;
				ok = ok && !row_ub[b * F + f];
				for (int64_t t = 0; t < M; t++) {
					dot += (int64_t)qref_get(c.wt, (size_t)(f * M + t)) *
					       (int64_t)qref_get(c.state_out, base + (size_t)t);
					ok = ok && fits32(dot);
				}
				sum += dot;
				ok = ok && fits32(sum);
			}
			if (c.bias) {
				sum += (int64_t)qref_get(c.bias, (size_t)u);
				ok = ok && fits32(sum);
			}
			int64_t v = 0;
			ok = ok && svdf_mbqm((int32_t)sum, m2, sh2, build, &v);
			v += zp_out;
			ok = ok && fits32(v);
			size_t i = (size_t)(b * U + u);
			if (ok) {
				v = v < INT8_MIN ? INT8_MIN : v > INT8_MAX ? INT8_MAX : v;
				qref_set(c.y, i, (double)v);
				qref_mark_exact(d, 0, i);
			} else {
				qref_set(c.y, i, 0.0);
				qref_mark_any(d, 0, i, INT8_MIN, INT8_MAX);
			}
		}
	free(row_ub);
	return QCF_OK;
}

static const qref_attr_schema svdf_attrs[] = {
        A_INT("rank", 0, I32, "0"),
        A_ENUM("fused_activation_function", SVDF_ACT, 1, "NONE"),
        END,
};

const qref_op qref_ops_litert_recurrent[] = {
        {.schema = {.semantics = "litert",
                    .op = "SVDF",
                    IO(LIST("input", "weights_feature", "weights_time", "bias", "state"), 4, 5,
                       LIST("output", "state_out"), 2),
                    .attrs = svdf_attrs},
         .kernel = litert_svdf},
        {.schema = {.op = NULL}},
};
