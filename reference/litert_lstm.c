/*
 * LiteRT's fully integer LSTM: LSTM (one step) and UNIDIRECTIONAL_SEQUENCE_LSTM (a sequence),
 * the 8x8_16 path LiteRT's quantizer produces: int8 input, weights and output state, int16 cell
 * state, peephole weights and layer norm coefficients, int32 biases, int16 gates (Q3.12 before
 * their activation, Q0.15 after). Prepare: tflite/kernels/lstm.cc and
 * unidirectional_sequence_lstm.cc (CheckInputTensorDimensions, PopulateQuantizedLstmParams8x8_16,
 * PopulatePrecomputedZPTimesWeightsWithBias); Eval: tflite/kernels/lstm_eval.cc
 * (EvalInteger8x8_16, LstmStepInteger8x8_16) on internal/reference/portable_tensor_utils.cc.
 * Algorithm, ABI and refusals: specs/litert/OPERATORS.md ("LiteRT integer LSTM").
 *
 * LiteRT's optional inputs are positional holes (-1); here they are told apart by name. The
 * variable tensors (output_state, cell_state) are inputs (before) and outputs (after). The
 * quantization of the op's intermediate tensors (the gate scales with layer norm, the hidden
 * state's scale and zero point) is given as attributes.
 *
 * Every value carries whether it is defined: where LiteRT's int32 arithmetic overflows, a shift
 * leaves its range, or a buffer is read beyond its end, the values depending on it are "any
 * value of the dtype".
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "fixedpoint.h"
#include "kernel.h"
#include "op.h"
#include "requant.h"

/* ---- gemmlowp fixed point on W-bit raw values (W = 16 here; 32 checks against fixedpoint.c) */

/* v reduced modulo 2^W into [-2^(W-1), 2^(W-1)): the C++ conversion back to the raw type. */
static int64_t fx_wrap(int64_t v, int w)
{
	uint64_t m = (UINT64_C(1) << w) - 1, u = (uint64_t)v & m;
	return u >> (w - 1) ? (int64_t)(u - (m + 1)) : (int64_t)u;
}

static int64_t fx_max(int w)
{
	return (INT64_C(1) << (w - 1)) - 1;
}

/* SaturatingRoundingDoublingHighMul */
static int64_t fx_srdhm(int64_t a, int64_t b, int w)
{
	if (a == b && a == -fx_max(w) - 1)
		return fx_max(w);
	int64_t ab = a * b, half = INT64_C(1) << (w - 2);
	int64_t nudge = ab >= 0 ? half : 1 - half;
	return fx_wrap((ab + nudge) / (INT64_C(1) << (w - 1)), w);
}

/* RoundingDivideByPOT, e in [0, W - 1]: ties away from zero */
static int64_t fx_rdbpot(int64_t x, int e)
{
	int64_t mask = (INT64_C(1) << e) - 1, rem = x & mask;
	int64_t thr = (mask >> 1) + (x < 0);
	return (x >> e) + (rem > thr);
}

/* SaturatingRoundingMultiplyByPOT<e> */
static int64_t fx_satpot(int64_t x, int e, int w)
{
	if (e < 0)
		return fx_rdbpot(x, -e);
	if (e == 0)
		return x;
	int64_t thr = (INT64_C(1) << (w - 1 - e)) - 1;
	return x > thr ? fx_max(w) : x < -thr ? -fx_max(w) - 1 : x * (INT64_C(1) << e);
}

/* RoundingHalfSum */
static int64_t fx_rhs(int64_t a, int64_t b, int w)
{
	int64_t s = a + b;
	return fx_wrap((s + (s >= 0 ? 1 : -1)) / 2, w);
}

/* A gemmlowp constant written as its int32 raw value, at W bits (RescaleConstantInitializer) */
static int64_t fx_const(int64_t c32, int w)
{
	return w == 32 ? c32 : fx_wrap(fx_rdbpot(c32, 32 - w), w);
}

/* exp(a) for a in [-1/4, 0), Q0 in and out */
static int64_t fx_exp_quarter(int64_t a, int w)
{
	const int64_t c = fx_const(1895147668, w), third = fx_const(715827883, w);
	int64_t x = fx_wrap(a + (INT64_C(1) << (w - 4)), w);
	int64_t x2 = fx_srdhm(x, x, w), x3 = fx_srdhm(x2, x, w), x4 = fx_srdhm(x2, x2, w);
	int64_t t = fx_wrap(fx_srdhm(fx_wrap(fx_rdbpot(x4, 2) + x3, w), third, w) + x2, w);
	t = fx_rdbpot(t, 1);
	int64_t r = c + fx_srdhm(c, fx_wrap(x + t, w), w);
	/* AddSaturatingIf16Bit */
	if (w == 16)
		return r > 32767 ? 32767 : r < -32768 ? -32768 : r;
	return fx_wrap(r, w);
}

/* exp(a) for a <= 0 with ib integer bits; Q0 out */
static int64_t fx_exp_neg(int64_t a, int ib, int w)
{
	static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308,
	                                  39332535,   720401,     242};
	int fb = w - 1 - ib;
	int64_t quarter = INT64_C(1) << (fb - 2);
	int64_t amq = fx_wrap((a & fx_wrap(quarter - 1, w)) - quarter, w);
	int64_t r = fx_exp_quarter(fx_satpot(amq, ib, w), w);
	int64_t rem = fx_wrap(amq - a, w);
	for (int e = -2; e <= 4; e++)
		if (ib > e && (rem & (INT64_C(1) << (fb + e))))
			r = fx_srdhm(r, fx_const(barrel[e + 2], w), w);
	if (ib > 5 && a < fx_const(-(INT64_C(1) << (36 - ib)), w))
		r = 0;
	if (a == 0)
		r = fx_max(w);
	return r;
}

/* The Newton-Raphson core shared by 1 / (1 + a) and (1 - a) / (1 + a): x ~ 1 / half_denominator
 * in Q2 */
static int64_t fx_nr(int64_t a, int w)
{
	int64_t h = fx_rhs(a, fx_max(w), w), one2 = INT64_C(1) << (w - 3);
	int64_t x = fx_wrap(fx_const(1515870810, w) + fx_srdhm(h, fx_const(-1010580540, w), w), w);
	for (int k = 0; k < 3; k++) {
		int64_t omh = fx_wrap(one2 - fx_srdhm(h, x, w), w);
		x = fx_wrap(x + fx_satpot(fx_srdhm(x, omh, w), 2, w), w);
	}
	return x;
}

/* gemmlowp logistic(a) for a with ib integer bits: Q0 */
static int64_t fx_logistic(int64_t a, int ib, int w)
{
	if (a == 0)
		return fx_const(1 << 30, w);
	int64_t abs = a > 0 ? a : fx_wrap(-a, w);
	int64_t p = fx_satpot(fx_nr(fx_exp_neg(fx_wrap(-abs, w), ib, w), w), 1, w);
	return a > 0 ? p : fx_wrap(fx_max(w) - p, w);
}

/* gemmlowp tanh(a) for a with ib integer bits: Q0 */
static int64_t fx_tanh(int64_t a, int ib, int w)
{
	if (a == 0)
		return 0;
	int64_t n = a < 0 ? a : fx_wrap(-a, w);
	int64_t e = fx_exp_neg(n, ib + 1, w);
	int64_t t = fx_satpot(fx_wrap(fx_nr(e, w) - (INT64_C(1) << (w - 3)), w), 2, w);
	return a < 0 ? fx_wrap(-t, w) : t;
}

/* Exported for the reference's own checks (suite): the W-bit logistic and tanh. */
int64_t qref_lstm_fx_logistic(int64_t a, int ib, int w);
int64_t qref_lstm_fx_tanh(int64_t a, int ib, int w);
int64_t qref_lstm_fx_logistic(int64_t a, int ib, int w)
{
	return fx_logistic(a, ib, w);
}
int64_t qref_lstm_fx_tanh(int64_t a, int ib, int w)
{
	return fx_tanh(a, ib, w);
}

/* ---- the call -------------------------------------------------------------------------------- */

enum { G_IN, G_FORGET, G_CELL, G_OUT };
static const char *const gate_names[4] = {"input", "forget", "cell", "output"};

/* LiteRT's 24 inputs in their order (lstm_shared.h); here told apart by name */
#define LSTM_INPUTS                                                                                \
	LIST("input", "input_to_input_weights", "input_to_forget_weights",                         \
	     "input_to_cell_weights", "input_to_output_weights", "recurrent_to_input_weights",     \
	     "recurrent_to_forget_weights", "recurrent_to_cell_weights",                           \
	     "recurrent_to_output_weights", "cell_to_input_weights", "cell_to_forget_weights",     \
	     "cell_to_output_weights", "input_gate_bias", "forget_gate_bias", "cell_gate_bias",    \
	     "output_gate_bias", "projection_weights", "projection_bias", "output_state",          \
	     "cell_state", "input_layer_norm_coefficients", "forget_layer_norm_coefficients",      \
	     "cell_layer_norm_coefficients", "output_layer_norm_coefficients")
#define LSTM_OUTPUTS LIST("output", "output_state_out", "cell_state_out")

typedef struct lstm_call {
	int seq, time_major;
	const qcf_tensor *x, *wx[4], *wh[4], *wc[4], *bias[4], *ln[4], *wp, *bp, *hs, *cs;
	qcf_tensor *y, *hs_out, *cs_out;
	int64_t T, B, I, C, O;
	int cifg, peephole, layer_norm, projection, cell_scale;
	float sx, swx[4], swh[4], swc[4], sln[4], swp, shs, scs, sy, s_gate[4], s_hidden;
	int32_t zpx, zphs, zp_hidden;
	float cell_clip, proj_clip;
} lstm_call;

static const qcf_tensor *lstm_input(const qcf_op_call *call, const char *name)
{
	for (int i = 0; i < call->n_inputs; i++)
		if (call->inputs[i].name && strcmp(call->inputs[i].name, name) == 0)
			return &call->inputs[i];
	return NULL;
}

static const qcf_tensor *lstm_named(const qcf_op_call *call, const char *fmt, const char *gate)
{
	char name[64];
	snprintf(name, sizeof name, fmt, gate);
	return lstm_input(call, name);
}

/* The per-tensor scale of t into *s, and its zero point into *zp (NULL: it must be 0). */
static qcf_status lstm_quant(const qcf_tensor *t, const char *what, float *s, int32_t *zp,
                             qref_detail *d)
{
	qcf_quant q;
	qcf_status st = qref_get_quant(t, what, 1, &q, d);
	if (st != QCF_OK)
		return st;
	if (!(q.scales[0] > 0.0f && isfinite(q.scales[0])))
		return qref_fail_tensor(d, t, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "LSTM %s scale must be positive and finite", what);
	if (!zp && q.zero_points[0] != 0)
		return qref_fail_tensor(d, t, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "LSTM %s zero point must be 0 (the integer Eval reads none "
		                        "and takes it as 0), got %" PRId32,
		                        what, q.zero_points[0]);
	*s = q.scales[0];
	if (zp)
		*zp = q.zero_points[0];
	return QCF_OK;
}

/* t must be dtype and, with n1 < 0, [n0], else [n0, n1] */
static qcf_status lstm_want(const qcf_tensor *t, const char *what, qcf_dtype dtype, int64_t n0,
                            int64_t n1, qref_detail *d)
{
	if (t->dtype != dtype)
		return qref_fail_tensor(d, t, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "LSTM (integer) %s must be %s, got %s", what,
		                        qref_dtype_name(dtype), qref_dtype_name(t->dtype));
	int rank = n1 < 0 ? 1 : 2;
	if (t->rank != rank || t->shape[0] != n0 || (rank == 2 && t->shape[1] != n1))
		return qref_fail_tensor(d, t, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "LSTM %s must be %s[%" PRId64 "%s%.0" PRId64
		                        "] (CheckInputTensorDimensions)",
		                        what, rank == 1 ? "rank 1, " : "rank 2, ", n0,
		                        rank == 2 ? ", " : "", rank == 2 ? n1 : 0);
	return QCF_OK;
}

/* A positive finite float attribute (an intermediate tensor's scale); absent is refused. */
static qcf_status lstm_scale_attr(const qcf_op_call *call, const char *name, float *out,
                                  qref_detail *d)
{
	double v = 0;
	int r = qref_attr_number(call, name, &v);
	if (r != 1 || !((float)v > 0.0f && isfinite((float)v)))
		return qref_fail_attr(d, name, QCF_INVALID_PARAM,
		                      "LSTM attribute %s must be given, a positive finite number "
		                      "(the scale of an intermediate tensor of LiteRT's op)",
		                      name);
	*out = (float)v;
	return QCF_OK;
}

/*
 * Prepare's rules (lstm.cc / unidirectional_sequence_lstm.cc Prepare, CheckInputTensorDimensions,
 * PopulateQuantizedLstmParams8x8_16) for the integer path, and the reference's own: every input
 * named, the states' outputs quantized as their inputs.
 */
static qcf_status lstm_check(const qcf_op_call *call, const qref_op *row, qref_detail *d,
                             lstm_call *c)
{
	qcf_status s = qref_check_call(call, call->n_inputs, 3, d);
	if (s != QCF_OK)
		return s;
	memset(c, 0, sizeof *c);
	c->seq = row->param;
	const char *const *names = row->schema.inputs;
	for (int i = 0; i < call->n_inputs; i++) {
		const char *n = call->inputs[i].name ? call->inputs[i].name : "";
		int known = 0;
		for (int k = 0; names[k]; k++)
			known |= strcmp(n, names[k]) == 0;
		if (!known || lstm_input(call, n) != &call->inputs[i])
			return qref_fail_tensor(
			        d, &call->inputs[i], QREF_PART_TENSOR, QCF_INVALID_PARAM,
			        "%s input %d is named '%s': the inputs are told apart "
			        "by LiteRT's names (input, input_to_forget_weights, "
			        "...), each at most once",
			        call->op, i, n);
	}
	c->x = lstm_input(call, "input");
	c->hs = lstm_input(call, "output_state");
	c->cs = lstm_input(call, "cell_state");
	for (int g = 0; g < 4; g++) {
		c->wx[g] = lstm_named(call, "input_to_%s_weights", gate_names[g]);
		c->wh[g] = lstm_named(call, "recurrent_to_%s_weights", gate_names[g]);
		c->wc[g] =
		        g == G_CELL ? NULL : lstm_named(call, "cell_to_%s_weights", gate_names[g]);
		c->bias[g] = lstm_named(call, "%s_gate_bias", gate_names[g]);
		c->ln[g] = lstm_named(call, "%s_layer_norm_coefficients", gate_names[g]);
	}
	c->wp = lstm_input(call, "projection_weights");
	c->bp = lstm_input(call, "projection_bias");
	c->y = &call->outputs[0];
	c->hs_out = &call->outputs[1];
	c->cs_out = &call->outputs[2];
	const struct {
		const qcf_tensor *t;
		const char *name;
	} required[] = {
	        {c->x, "input"},
	        {c->wx[G_FORGET], "input_to_forget_weights"},
	        {c->wx[G_CELL], "input_to_cell_weights"},
	        {c->wx[G_OUT], "input_to_output_weights"},
	        {c->wh[G_FORGET], "recurrent_to_forget_weights"},
	        {c->wh[G_CELL], "recurrent_to_cell_weights"},
	        {c->wh[G_OUT], "recurrent_to_output_weights"},
	        {c->bias[G_FORGET], "forget_gate_bias"},
	        {c->bias[G_CELL], "cell_gate_bias"},
	        {c->bias[G_OUT], "output_gate_bias"},
	        {c->hs, "output_state"},
	        {c->cs, "cell_state"},
	};
	for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
		if (!required[k].t)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s needs the input %s (GetInputSafe / GetVariableInput)",
			                 call->op, required[k].name);
	if (c->x->dtype == QCF_FLOAT32)
		return qref_fail_tensor(d, c->x, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
		                        "%s: the float32 and hybrid LSTM are LiteRT's but not "
		                        "implemented by the reference",
		                        call->op);

	/* the sizes of Prepare: n_input from the input, n_cell from input_to_output_weights,
	 * n_output from recurrent_to_output_weights */
	int want_rank = c->seq ? 3 : 2;
	if (c->x->dtype != QCF_INT8 || c->x->rank != want_rank)
		return qref_fail_tensor(
		        d, c->x, QREF_PART_TENSOR, QCF_INVALID_PARAM,
		        "%s (integer) input must be int8 of rank %d, got %s of rank "
		        "%d",
		        call->op, want_rank, qref_dtype_name(c->x->dtype), (int)c->x->rank);
	int64_t attr = 0;
	c->time_major = c->seq && qref_attr_int(call, "time_major", &attr) == 1 && attr != 0;
	if (c->seq) {
		c->T = c->x->shape[c->time_major ? 0 : 1];
		c->B = c->x->shape[c->time_major ? 1 : 0];
		c->I = c->x->shape[2];
	} else {
		c->T = 1;
		c->B = c->x->shape[0];
		c->I = c->x->shape[1];
	}
	const qcf_tensor *wxo = c->wx[G_OUT], *who = c->wh[G_OUT];
	c->C = wxo->rank >= 1 ? wxo->shape[0] : 0;
	c->O = who->rank == 2 ? who->shape[1] : 0;
	c->cifg = c->wx[G_IN] == NULL;
	c->peephole = c->wc[G_OUT] != NULL;
	c->projection = c->wp != NULL;
	c->layer_norm = c->ln[G_FORGET] != NULL;

	/* dtypes and shapes (CheckInputTensorDimensions, is_integer) */
	for (int g = 0; g < 4; g++) {
		char what[48];
		if (c->wx[g]) {
			snprintf(what, sizeof what, "input_to_%s_weights", gate_names[g]);
			if ((s = lstm_want(c->wx[g], what, QCF_INT8, c->C, c->I, d)) != QCF_OK)
				return s;
		}
		if (c->wh[g]) {
			snprintf(what, sizeof what, "recurrent_to_%s_weights", gate_names[g]);
			if ((s = lstm_want(c->wh[g], what, QCF_INT8, c->C, c->O, d)) != QCF_OK)
				return s;
		}
		if (c->wc[g]) {
			snprintf(what, sizeof what, "cell_to_%s_weights", gate_names[g]);
			if ((s = lstm_want(c->wc[g], what, QCF_INT16, c->C, -1, d)) != QCF_OK)
				return s;
		}
		if (c->bias[g]) {
			snprintf(what, sizeof what, "%s_gate_bias", gate_names[g]);
			if ((s = lstm_want(c->bias[g], what, QCF_INT32, c->C, -1, d)) != QCF_OK)
				return s;
		}
		if (c->ln[g] && c->layer_norm) {
			snprintf(what, sizeof what, "%s_layer_norm_coefficients", gate_names[g]);
			if ((s = lstm_want(c->ln[g], what, QCF_INT16, c->C, -1, d)) != QCF_OK)
				return s;
		}
	}
	if (c->wp &&
	    (s = lstm_want(c->wp, "projection_weights", QCF_INT8, c->O, c->C, d)) != QCF_OK)
		return s;
	if (c->bp && (s = lstm_want(c->bp, "projection_bias", QCF_INT32, c->O, -1, d)) != QCF_OK)
		return s;

	/* the optional tensors that come in groups */
	if ((c->wx[G_IN] == NULL) != (c->wh[G_IN] == NULL))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input_to_input_weights and recurrent_to_input_weights come "
		                 "together or not at all (CIFG)",
		                 call->op);
	int n_peep = (c->wc[G_IN] != NULL || c->cifg) + (c->wc[G_FORGET] != NULL) +
	             (c->wc[G_OUT] != NULL);
	if (n_peep != 3 && (c->wc[G_IN] || c->wc[G_FORGET] || c->wc[G_OUT]))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the peephole weights cell_to_forget_weights, "
		                 "cell_to_output_weights (and cell_to_input_weights without CIFG) "
		                 "come together or not at all",
		                 call->op);
	if ((c->bias[G_IN] != NULL) != !c->cifg)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input_gate_bias is given exactly when the input gate is (no "
		                 "CIFG)",
		                 call->op);
	if (c->bp && !c->wp)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: projection_bias needs projection_weights", call->op);
	if (c->layer_norm)
		for (int g = 0; g < 4; g++)
			if ((c->ln[g] != NULL) != (g != G_IN || !c->cifg))
				return qref_fail(
				        d, QCF_INVALID_PARAM,
				        "%s: with layer norm (forget_layer_norm_coefficients "
				        "given), %s_layer_norm_coefficients must be %s",
				        call->op, gate_names[g],
				        c->ln[g] ? "absent (CIFG)" : "given");
	if (!c->projection && c->O != c->C)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: without projection the output size (%" PRId64
		                 ") must equal the cells (%" PRId64
		                 "): the integer Eval writes n_cell values per batch into the "
		                 "output state",
		                 call->op, c->O, c->C);

	/* the states, the outputs */
	if (c->hs->dtype != QCF_INT8 || c->cs->dtype != QCF_INT16 ||
	    (int64_t)qref_tensor_numel(c->hs) != c->B * c->O ||
	    (int64_t)qref_tensor_numel(c->cs) != c->B * c->C)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: output_state must be int8 of batch * n_output = %" PRId64
		                 " elements, cell_state int16 of batch * n_cell = %" PRId64,
		                 call->op, c->B * c->O, c->B * c->C);
	int out_ok = c->y->dtype == QCF_INT8 && c->y->rank == c->x->rank;
	for (int k = 0; out_ok && k < c->x->rank; k++)
		out_ok = c->y->shape[k] == (k == c->x->rank - 1 ? c->O : c->x->shape[k]);
	if (!out_ok)
		return qref_fail_output(d, 0, QREF_PART_TENSOR, QCF_INVALID_PARAM,
		                        "%s output must be int8 of the input's shape with the last "
		                        "dimension n_output = %" PRId64,
		                        call->op, c->O);
	if (!qref_same_shape(c->hs_out, c->hs) || !qref_same_shape(c->cs_out, c->cs) ||
	    c->hs_out->dtype != QCF_INT8 || c->cs_out->dtype != QCF_INT16)
		return qref_fail_output(
		        d, 1, QREF_PART_TENSOR, QCF_INVALID_PARAM,
		        "%s output_state_out and cell_state_out must have the dtype "
		        "and shape of output_state and cell_state",
		        call->op);

	/* quantization: LiteRT reads the scales of every tensor but the biases and the zero points
	 * of the input, the output state and the hidden state only */
	int32_t zp_y, zp_hso;
	float s_hso, s_cso;
	if ((s = lstm_quant(c->x, "input", &c->sx, &c->zpx, d)) != QCF_OK ||
	    (s = lstm_quant(c->hs, "output_state", &c->shs, &c->zphs, d)) != QCF_OK ||
	    (s = lstm_quant(c->cs, "cell_state", &c->scs, NULL, d)) != QCF_OK ||
	    (s = lstm_quant(c->y, "output", &c->sy, &zp_y, d)) != QCF_OK ||
	    (s = lstm_quant(c->hs_out, "output_state_out", &s_hso, &zp_hso, d)) != QCF_OK ||
	    (s = lstm_quant(c->cs_out, "cell_state_out", &s_cso, NULL, d)) != QCF_OK)
		return s;
	if (s_hso != c->shs || zp_hso != c->zphs || s_cso != c->scs)
		return qref_fail_output(d, s_cso != c->scs ? 2 : 1, QREF_PART_QUANT,
		                        QCF_INVALID_PARAM,
		                        "%s output_state_out and cell_state_out must be quantized "
		                        "as output_state and cell_state (LiteRT updates them in "
		                        "place)",
		                        call->op);
	for (int g = 0; g < 4; g++) {
		char what[48];
		if (c->wx[g]) {
			snprintf(what, sizeof what, "input_to_%s_weights", gate_names[g]);
			if ((s = lstm_quant(c->wx[g], what, &c->swx[g], NULL, d)) != QCF_OK)
				return s;
			snprintf(what, sizeof what, "recurrent_to_%s_weights", gate_names[g]);
			if ((s = lstm_quant(c->wh[g], what, &c->swh[g], NULL, d)) != QCF_OK)
				return s;
		}
		if (c->wc[g] && (g != G_IN || !c->cifg)) {
			snprintf(what, sizeof what, "cell_to_%s_weights", gate_names[g]);
			if ((s = lstm_quant(c->wc[g], what, &c->swc[g], NULL, d)) != QCF_OK)
				return s;
		}
		if (c->ln[g] && c->layer_norm) {
			snprintf(what, sizeof what, "%s_layer_norm_coefficients", gate_names[g]);
			if ((s = lstm_quant(c->ln[g], what, &c->sln[g], NULL, d)) != QCF_OK)
				return s;
		}
	}
	if (c->wp && (s = lstm_quant(c->wp, "projection_weights", &c->swp, NULL, d)) != QCF_OK)
		return s;

	/* the cell state's scale: a power of two (CheckedLog2), at most 2^-9 for LSTM */
	if (!qfp_checked_log2(c->scs, &c->cell_scale))
		return qref_fail_tensor(d, c->cs, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s cell_state scale must be a power of two (CheckedLog2), "
		                        "got %g",
		                        call->op, (double)c->scs);
	if (!c->seq && c->cell_scale > -9)
		return qref_fail_tensor(d, c->cs, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "LSTM cell_state scale must be at most 2^-9 (lstm.cc "
		                        "PopulateQuantizedLstmParams8x8_16), got 2^%d",
		                        c->cell_scale);

	/* attributes: the clips, the intermediates' quantization */
	/* LstmStepInteger8x8_16 (lstm_eval.cc) applies kTfLiteActTanh to the cell whatever the
	 * options' activation says: the attribute is read (the schema checks its value) and has
	 * no effect on the integer path. */
	(void)qref_attr_find(call, "fused_activation_function");
	const char *clips[2] = {"cell_clip", "proj_clip"};
	float *clipv[2] = {&c->cell_clip, &c->proj_clip};
	for (int k = 0; k < 2; k++) {
		double v = 0;
		int r = qref_attr_number(call, clips[k], &v);
		*clipv[k] = (float)v;
		if (r < 0 || !(*clipv[k] >= 0.0f))
			return qref_fail_attr(d, clips[k], QCF_INVALID_PARAM,
			                      "%s %s must be a number >= 0 (0: no clipping)",
			                      call->op, clips[k]);
	}
	if ((s = lstm_scale_attr(call, "hidden_scale", &c->s_hidden, d)) != QCF_OK)
		return s;
	attr = 0;
	(void)qref_attr_int(call, "hidden_zero_point", &attr);
	c->zp_hidden = (int32_t)attr;
	if (c->layer_norm)
		for (int g = 0; g < 4; g++) {
			char name[32];
			snprintf(name, sizeof name, "%s_gate_scale", gate_names[g]);
			if (g == G_IN &&
			    c->cifg) { /* no input gate: its scale, if given, is unused */
				(void)qref_attr_find(call, name);
				continue;
			}
			if ((s = lstm_scale_attr(call, name, &c->s_gate[g], d)) != QCF_OK)
				return s;
		}
	return QCF_OK;
}

/* ---- Prepare's parameters -------------------------------------------------------------------- */

/* A vector of values and, per element, whether LiteRT defines it. */
typedef struct lstm_vec {
	int32_t *v;
	unsigned char *ok;
} lstm_vec;

typedef struct lstm_params {
	qref_rounding build;
	int32_t mx[4], mh[4], mc[4], mln[4], mp, mhid, guard[4];
	int shx[4], shh[4], shc[4], shln[4], shp, shhid;
	int32_t qcell_clip, qproj_clip;
	int32_t *wx[4], *wh[4], *wc[4], *bias[4], *ln[4], *wp; /* the tensors' values */
	lstm_vec effx[4], effh[4], effp; /* the folded biases and zero points */
	int all_any; /* LiteRT reads or writes beyond a buffer: nothing is defined */
} lstm_params;

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* MultiplyByQuantizedMultiplier(x, m, sh) in the build: 1 and *y when defined (x an int32, the
 * pre-shift in range, the shift in the build's domain, the result an int32), else 0. */
static int lstm_mbqm(int64_t x, int32_t m, int sh, qref_rounding build, int64_t *y)
{
	if (!fits32(x))
		return 0;
	if (build == QREF_ROUND_SINGLE) {
		if (sh > 30 || sh < -31)
			return 0;
		*y = qref_mbqm_single_wide((int32_t)x, m, sh);
		return fits32(*y);
	}
	if (sh >= 31 || sh < -31 || !qref_mbqm_preshift_fits((int32_t)x, sh))
		return 0;
	*y = qref_mbqm((int32_t)x, m, sh, build);
	return 1;
}

/* QuantizeMultiplier of a float effective scale (LiteRT passes the float to the double
 * parameter); 0 when the scale is not finite (LiteRT's frexp of an infinity). */
static int lstm_qm(float e, qref_rounding build, int32_t *m, int *sh)
{
	if (!isfinite(e)) {
		*m = 0;
		*sh = 0;
		return 0;
	}
	qref_quantize_multiplier((double)e, build, m, sh);
	return 1;
}

static int32_t *lstm_load(const qcf_tensor *t)
{
	if (!t)
		return NULL;
	size_t n = qref_tensor_numel(t);
	int32_t *v = malloc((n ? n : 1) * sizeof *v);
	if (v)
		for (size_t i = 0; i < n; i++)
			v[i] = (int32_t)qref_get(t, i);
	return v;
}

static int lstm_vec_new(lstm_vec *a, int64_t n)
{
	a->v = calloc((size_t)(n ? n : 1), sizeof *a->v);
	a->ok = malloc((size_t)(n ? n : 1));
	if (a->ok)
		memset(a->ok, 1, (size_t)(n ? n : 1));
	return a->v && a->ok;
}

static void lstm_vec_free(lstm_vec *a)
{
	free(a->v);
	free(a->ok);
}

/* PrecomputeZeroPointTimesWeightWithBias: out[r] = bias[r] (or 0) + zp * sum_k w[r][k], int32
 * as LiteRT (the row sum, its product and the sum each an int32 operation). */
static int lstm_fold(const int32_t *w, int64_t rows, int64_t cols, const int32_t *bias, int32_t zp,
                     lstm_vec *out)
{
	if (!lstm_vec_new(out, rows))
		return 0;
	for (int64_t r = 0; r < rows; r++) {
		int64_t acc = bias ? bias[r] : 0;
		int ok = 1;
		if (zp != 0) {
			int64_t sum = 0;
			for (int64_t k = 0; k < cols; k++)
				sum += w[r * cols + k];
			int64_t p = sum * zp;
			ok = fits32(p);
			acc += p;
			ok = ok && fits32(acc);
		}
		out->v[r] = ok ? (int32_t)acc : 0;
		out->ok[r] = (unsigned char)ok;
	}
	return 1;
}

static void lstm_params_free(lstm_params *p)
{
	for (int g = 0; g < 4; g++) {
		free(p->wx[g]);
		free(p->wh[g]);
		free(p->wc[g]);
		free(p->bias[g]);
		free(p->ln[g]);
		lstm_vec_free(&p->effx[g]);
		lstm_vec_free(&p->effh[g]);
	}
	free(p->wp);
	lstm_vec_free(&p->effp);
}

/*
 * PopulateQuantizedLstmParams8x8_16 and PopulatePrecomputedZPTimesWeightsWithBias. The effective
 * scales are float products and quotients (the peephole and hidden ones double, rounded to
 * float), each decomposed by QuantizeMultiplier; the gates' intermediate scale is 2^-12 without
 * layer norm.
 */
static int lstm_prepare(const lstm_call *c, lstm_params *p)
{
	float inter[4];
	for (int g = 0; g < 4; g++)
		inter[g] = c->layer_norm ? c->s_gate[g] : 0x1p-12f;
	int fin = 1;
	for (int g = 0; g < 4; g++) {
		if (g == G_IN && c->cifg)
			continue;
		float ex = c->swx[g] * c->sx;
		ex = ex / inter[g];
		float eh = c->swh[g] * c->shs;
		eh = eh / inter[g];
		fin &= lstm_qm(ex, p->build, &p->mx[g], &p->shx[g]);
		fin &= lstm_qm(eh, p->build, &p->mh[g], &p->shh[g]);
		if (c->peephole && g != G_CELL) {
			double e = ldexp(1.0, c->cell_scale) * (double)c->swc[g];
			e = e / (double)inter[g];
			fin &= lstm_qm((float)e, p->build, &p->mc[g], &p->shc[g]);
		}
		if (c->layer_norm) {
			fin &= lstm_qm(c->sln[g], p->build, &p->mln[g], &p->shln[g]);
			float gv = 10000.0f * c->sln[g];
			fin &= gv < 2147483648.0f;
			p->guard[g] = gv >= 1.0f && gv < 2147483648.0f ? (int32_t)gv : 1;
		}
	}
	double eh = 0x1p-15 / (double)c->s_hidden;
	eh = eh * 0x1p-15;
	fin &= lstm_qm((float)eh, p->build, &p->mhid, &p->shhid);
	if (c->projection) {
		float ep = c->swp * c->s_hidden;
		ep = ep / c->shs;
		fin &= lstm_qm(ep, p->build, &p->mp, &p->shp);
	}
	p->all_any = !fin;

	/* the quantized clips: float quotients, clamped, truncated toward zero */
	p->qcell_clip = 0;
	if (c->cell_clip > 0.0f) {
		float q = c->cell_clip / c->scs;
		q = q < -32768.0f ? -32768.0f : q;
		p->qcell_clip = (int32_t)(q > 32767.0f ? 32767.0f : q);
	}
	p->qproj_clip = 0;
	if (c->proj_clip > 0.0f) {
		float q = c->proj_clip / c->sy;
		q = q < -128.0f ? -128.0f : q;
		p->qproj_clip = (int32_t)(q > 127.0f ? 127.0f : q);
	}

	/* the tensors, the folded zero points (the gate biases only without layer norm) */
	for (int g = 0; g < 4; g++) {
		if (g == G_IN && c->cifg)
			continue;
		p->wx[g] = lstm_load(c->wx[g]);
		p->wh[g] = lstm_load(c->wh[g]);
		p->bias[g] = lstm_load(c->bias[g]);
		if (!p->wx[g] || !p->wh[g] || !p->bias[g])
			return 0;
		if (c->peephole && g != G_CELL && !(p->wc[g] = lstm_load(c->wc[g])))
			return 0;
		if (c->layer_norm && !(p->ln[g] = lstm_load(c->ln[g])))
			return 0;
		if (!lstm_fold(p->wx[g], c->C, c->I, c->layer_norm ? NULL : p->bias[g], -c->zpx,
		               &p->effx[g]) ||
		    !lstm_fold(p->wh[g], c->C, c->O, NULL, -c->zphs, &p->effh[g]))
			return 0;
	}
	if (c->projection) {
		int32_t *bp = lstm_load(c->bp);
		p->wp = lstm_load(c->wp);
		int ok = p->wp && (!c->bp || bp) &&
		         lstm_fold(p->wp, c->O, c->C, bp, c->zp_hidden, &p->effp);
		free(bp);
		if (!ok)
			return 0;
	}
	/* the peephole reads n_output weights (VectorBatchVectorCwiseProductAccumulate is given
	 * n_output as the vector size): beyond the n_cell weights when n_output > n_cell */
	if (c->peephole && c->O > c->C)
		p->all_any = 1;
	return 1;
}

/* ---- one step (LstmStepInteger8x8_16) -------------------------------------------------------- */

static int32_t clampi(int64_t v, int64_t lo, int64_t hi)
{
	return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* MatrixBatchVectorMultiplyAccumulate (int8 in, int16 or int8 out): out[b][r] = clamp(
 * MBQM(eff[r] + sum_k in[b][k] * w[r][k], m, sh) + zp + out[b][r]), every sum an int32. */
static void lstm_matmul(const lstm_vec *in, int64_t nb, int64_t n_in, const int32_t *w,
                        const lstm_vec *eff, int64_t rows, int32_t m, int sh, int32_t zp,
                        int64_t lo, int64_t hi, qref_rounding build, lstm_vec *out)
{
	for (int64_t b = 0; b < nb; b++)
		for (int64_t r = 0; r < rows; r++) {
			int64_t acc = eff->v[r], y = 0;
			int ok = eff->ok[r];
			for (int64_t k = 0; k < n_in; k++) {
				acc += (int64_t)in->v[b * n_in + k] * w[r * n_in + k];
				ok = ok && in->ok[b * n_in + k] && fits32(acc);
			}
			size_t o = (size_t)(b * rows + r);
			ok = ok && lstm_mbqm(acc, m, sh, build, &y);
			y += zp;
			ok = ok && fits32(y);
			y += out->v[o];
			ok = ok && fits32(y) && out->ok[o];
			out->v[o] = ok ? clampi(y, lo, hi) : 0;
			out->ok[o] = (unsigned char)ok;
		}
}

/* ApplyLayerNorm on each batch's n_cell gate values, in place. */
static void lstm_layer_norm(lstm_vec *gate, int64_t nb, int64_t n, const int32_t *w,
                            const int32_t *bias, int32_t m, int sh, int32_t guard,
                            qref_rounding build)
{
	for (int64_t b = 0; b < nb; b++) {
		int32_t *v = gate->v + b * n;
		unsigned char *ok = gate->ok + b * n;
		int row_ok = 1;
		int64_t sum = 0, sum_sq = 0;
		for (int64_t j = 0; j < n; j++) {
			row_ok = row_ok && ok[j];
			sum += v[j];
			sum_sq += (int64_t)v[j] * v[j];
		}
		int32_t mean = (int32_t)(sum * 1024 / n);
		int32_t temp = (int32_t)((1 << 20) / n);
		int64_t variance = sum_sq * temp - (int64_t)mean * mean;
		int32_t variance2 = (int32_t)(variance / (1 << 20));
		if (variance2 < 1)
			variance2 = guard;
		int32_t inv_m;
		int inv_sh;
		qfp_inv_sqrt(variance2, &inv_m, &inv_sh);
		for (int64_t j = 0; j < n; j++) {
			int64_t shifted = 1024 * (int64_t)v[j] - mean, rescaled = 0, val5 = 0;
			int e = row_ok && lstm_mbqm(shifted, inv_m, inv_sh, build, &rescaled);
			int64_t val3 = rescaled * w[j];
			e = e && fits32(val3);
			val3 += bias[j];
			e = e && fits32(val3);
			int64_t val4 = (val3 > 0 ? val3 + 512 : val3 - 512) / 1024;
			e = e && lstm_mbqm(val4, m, sh + 12, build, &val5);
			v[j] = e ? clampi(val5, INT16_MIN, INT16_MAX) : 0;
			ok[j] = (unsigned char)e;
		}
	}
}

/* CalculateLstmGateInteger8x8_16: the input and recurrent products, the peephole, the layer
 * norm, then sigmoid (or tanh for the cell gate) from Q3.12 to Q0.15. */
static void lstm_gate(const lstm_call *c, const lstm_params *p, int g, const lstm_vec *x,
                      const lstm_vec *h, const lstm_vec *cell, int64_t nb, lstm_vec *gate)
{
	int64_t n = nb * c->C;
	memset(gate->v, 0, (size_t)n * sizeof *gate->v);
	memset(gate->ok, 1, (size_t)n);
	lstm_matmul(x, nb, c->I, p->wx[g], &p->effx[g], c->C, p->mx[g], p->shx[g], 0, INT16_MIN,
	            INT16_MAX, p->build, gate);
	lstm_matmul(h, nb, c->O, p->wh[g], &p->effh[g], c->C, p->mh[g], p->shh[g], 0, INT16_MIN,
	            INT16_MAX, p->build, gate);
	if (c->peephole && g != G_CELL && c->O <= c->C)
		/* n_output as the vector size: the first nb * n_output values, flat */
		for (int64_t k = 0; k < nb * c->O; k++) {
			int64_t y = 0;
			int ok = gate->ok[k] && cell->ok[k] &&
			         lstm_mbqm((int64_t)p->wc[g][k % c->O] * cell->v[k], p->mc[g],
			                   p->shc[g], p->build, &y);
			y += gate->v[k];
			gate->v[k] = ok ? clampi(y, INT16_MIN, INT16_MAX) : 0;
			gate->ok[k] = (unsigned char)ok;
		}
	if (c->layer_norm)
		lstm_layer_norm(gate, nb, c->C, p->ln[g], p->bias[g], p->mln[g], p->shln[g],
		                p->guard[g], p->build);
	for (int64_t k = 0; k < n; k++)
		gate->v[k] = (int32_t)(g == G_CELL ? fx_tanh(gate->v[k], 3, 16)
		                                   : fx_logistic(gate->v[k], 3, 16));
}

/* wrap to int16 (static_cast<int16_t> of an int32) */
static int32_t wrap16(int64_t v)
{
	return (int32_t)fx_wrap(v, 16);
}

/* One step on nb batches: x [nb, I] int8, h [nb, O] (the output state, updated), cell [nb, C]
 * (updated); gates: 4 scratch vectors of nb * C, hid: nb * C. */
static void lstm_step(const lstm_call *c, const lstm_params *p, const lstm_vec *x, lstm_vec *h,
                      lstm_vec *cell, int64_t nb, lstm_vec gates[4], lstm_vec *hid)
{
	int64_t n = nb * c->C;
	if (!c->cifg)
		lstm_gate(c, p, G_IN, x, h, cell, nb, &gates[G_IN]);
	lstm_gate(c, p, G_FORGET, x, h, cell, nb, &gates[G_FORGET]);
	lstm_gate(c, p, G_CELL, x, h, cell, nb, &gates[G_CELL]);

	/* UpdateLstmCellInteger: c = sat16(f * c / 2^15 + i * g / 2^(30 + cell_scale)), each
	 * product rounded (RoundingDivideByPOT) and narrowed to int16; i = 32767 - f with CIFG */
	int sh = 30 + c->cell_scale;
	for (int64_t k = 0; k < n; k++) {
		int32_t f = gates[G_FORGET].v[k], g = gates[G_CELL].v[k];
		int32_t i = c->cifg ? wrap16(32767 - (int64_t)f) : gates[G_IN].v[k];
		int ok = cell->ok[k] && gates[G_FORGET].ok[k] && gates[G_CELL].ok[k] &&
		         (c->cifg || gates[G_IN].ok[k]) && sh >= 0 && sh <= 31;
		int32_t cf = wrap16(fx_rdbpot((int64_t)f * cell->v[k], 15));
		int32_t ig = ok ? wrap16(fx_rdbpot((int64_t)i * g, sh)) : 0;
		int32_t v = clampi((int64_t)cf + ig, INT16_MIN, INT16_MAX);
		if (p->qcell_clip > 0)
			v = clampi(v, -p->qcell_clip, p->qcell_clip);
		cell->v[k] = ok ? v : 0;
		cell->ok[k] = (unsigned char)ok;
	}
	lstm_gate(c, p, G_OUT, x, h, cell, nb, &gates[G_OUT]);

	/* CalculateLstmOutputInteger8x8_16: tanh of the cell in Q(15 + cell_scale) (no tanh at
	 * all outside 0..6 integer bits: LiteRT's switch has no case, the scratch keeps stale
	 * values), times the output gate, rescaled to the hidden state */
	int ib = 15 + c->cell_scale;
	int32_t zp_mul = c->projection ? -c->zp_hidden : c->zp_hidden;
	lstm_vec *dst = c->projection ? hid : h;
	for (int64_t k = 0; k < n; k++) {
		int ok = cell->ok[k] && gates[G_OUT].ok[k] && ib >= 0 && ib <= 6;
		int64_t t = ok ? fx_tanh(cell->v[k], ib, 16) : 0, y = 0;
		ok = ok &&
		     lstm_mbqm((int64_t)gates[G_OUT].v[k] * t, p->mhid, p->shhid, p->build, &y);
		y += zp_mul;
		ok = ok && fits32(y);
		dst->v[k] = ok ? clampi(y, INT8_MIN, INT8_MAX) : 0;
		dst->ok[k] = (unsigned char)ok;
	}
	if (c->projection) {
		memset(h->v, 0, (size_t)(nb * c->O) * sizeof *h->v);
		memset(h->ok, 1, (size_t)(nb * c->O));
		lstm_matmul(hid, nb, c->C, p->wp, &p->effp, c->O, p->mp, p->shp, c->zphs, INT8_MIN,
		            INT8_MAX, p->build, h);
		if (p->qproj_clip > 0)
			for (int64_t k = 0; k < nb * c->O; k++)
				h->v[k] = clampi(h->v[k], -p->qproj_clip, p->qproj_clip);
	}
}

/* ---- the kernels ----------------------------------------------------------------------------- */

static void lstm_put(qcf_tensor *t, int k, size_t i, int32_t v, int ok, qref_detail *d)
{
	double lo, hi;
	qref_range_d(t->dtype, &lo, &hi);
	qref_set(t, i, ok ? (double)v : 0.0);
	if (ok)
		qref_mark_exact(d, k, i);
	else
		qref_mark_any(d, k, i, lo, hi);
}

/*
 * EvalInteger8x8_16: time major, every step on all batches; batch major (sequence only), each
 * batch's steps on its own (n_batch 1). The output at each step is the new output state.
 */
static qcf_status litert_lstm(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	lstm_call c;
	qcf_status s = lstm_check(call, row, d, &c);
	if (s != QCF_OK)
		return s;
	qref_rounding r = qref_detail_rounding(d);
	if (r != QREF_ROUND_DEFAULT && r != QREF_ROUND_DOUBLE && r != QREF_ROUND_SINGLE)
		return qref_rounding_na(call, d, r,
		                        "the gates and the states by integer multipliers");
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);

	lstm_params p;
	memset(&p, 0, sizeof p);
	p.build = qref_requant_build(r);
	const int64_t T = c.T, B = c.B, I = c.I, C = c.C, O = c.O;
	const int tm = !c.seq || c.time_major;
	const int64_t nb = tm ? B : 1;
	lstm_vec x, h, cell, gates[4], hid;
	memset(gates, 0, sizeof gates);
	int ok = lstm_prepare(&c, &p) && lstm_vec_new(&x, nb * I) && lstm_vec_new(&h, B * O) &&
	         lstm_vec_new(&cell, B * C) && lstm_vec_new(&hid, nb * C);
	for (int g = 0; ok && g < 4; g++)
		ok = lstm_vec_new(&gates[g], nb * C);
	if (!ok) {
		lstm_params_free(&p);
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	}
	for (int64_t k = 0; k < B * O; k++)
		h.v[k] = (int32_t)qref_get(c.hs, (size_t)k);
	for (int64_t k = 0; k < B * C; k++)
		cell.v[k] = (int32_t)qref_get(c.cs, (size_t)k);

	for (int64_t b0 = 0; b0 < (tm ? 1 : B); b0++)
		for (int64_t t = 0; t < T; t++) {
			/* the rows of this step: all batches at time t, or batch b0 at time t */
			size_t xoff = (size_t)(tm ? t * B * I : (b0 * T + t) * I);
			size_t yoff = (size_t)(tm ? t * B * O : (b0 * T + t) * O);
			for (int64_t k = 0; k < nb * I; k++)
				x.v[k] = (int32_t)qref_get(c.x, xoff + (size_t)k);
			lstm_vec hv = {h.v + b0 * O, h.ok + b0 * O};
			lstm_vec cv = {cell.v + b0 * C, cell.ok + b0 * C};
			lstm_step(&c, &p, &x, &hv, &cv, nb, gates, &hid);
			for (int64_t k = 0; k < nb * O; k++)
				lstm_put(c.y, 0, yoff + (size_t)k, hv.v[k], hv.ok[k] && !p.all_any,
				         d);
		}
	for (int64_t k = 0; k < B * O; k++)
		lstm_put(c.hs_out, 1, (size_t)k, h.v[k], h.ok[k] && !p.all_any, d);
	for (int64_t k = 0; k < B * C; k++)
		lstm_put(c.cs_out, 2, (size_t)k, cell.v[k], cell.ok[k] && !p.all_any, d);

	lstm_vec_free(&x);
	lstm_vec_free(&h);
	lstm_vec_free(&cell);
	lstm_vec_free(&hid);
	for (int g = 0; g < 4; g++)
		lstm_vec_free(&gates[g]);
	lstm_params_free(&p);
	return QCF_OK;
}

/* The activation names of TFLite's schema (ActivationFunctionType): the integer Eval applies
 * sigmoid and tanh whatever the option says. */
#define LSTM_ACT LIST("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT")

static const qref_attr_schema lstm_attrs[] = {
        A_ENUM("fused_activation_function", LSTM_ACT, 1, "TANH"),
        A_NUM("cell_clip", "0"),
        A_NUM("proj_clip", "0"),
        A_NUM_REQ("hidden_scale"),
        A_INT("hidden_zero_point", -128, 127, "0"),
        A_NUM("input_gate_scale", "0"),
        A_NUM("forget_gate_scale", "0"),
        A_NUM("cell_gate_scale", "0"),
        A_NUM("output_gate_scale", "0"),
        END,
};

static const qref_attr_schema sequence_lstm_attrs[] = {
        A_ENUM("fused_activation_function", LSTM_ACT, 1, "TANH"),
        A_NUM("cell_clip", "0"),
        A_NUM("proj_clip", "0"),
        A_BOOL("time_major", "0"),
        A_NUM_REQ("hidden_scale"),
        A_INT("hidden_zero_point", -128, 127, "0"),
        A_NUM("input_gate_scale", "0"),
        A_NUM("forget_gate_scale", "0"),
        A_NUM("cell_gate_scale", "0"),
        A_NUM("output_gate_scale", "0"),
        END,
};

const qref_op qref_ops_litert_lstm[] = {
        {.schema = {.semantics = "litert",
                    .op = "LSTM",
                    IO(LSTM_INPUTS, 12, 24, LSTM_OUTPUTS, 3),
                    .attrs = lstm_attrs},
         .kernel = litert_lstm,
         .param = 0},
        {.schema = {.semantics = "litert",
                    .op = "UNIDIRECTIONAL_SEQUENCE_LSTM",
                    IO(LSTM_INPUTS, 12, 24, LSTM_OUTPUTS, 3),
                    .attrs = sequence_lstm_attrs},
         .kernel = litert_lstm,
         .param = 1},
        {.schema = {.op = NULL}},
};
