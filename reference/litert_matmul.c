/*
 * LiteRT BATCH_MATMUL (int8, int16 x int16 and int16 x int8) and TRANSPOSE_CONV (int8 with
 * int8 weights, 16x8 with an int32 or int64 bias).
 *
 * Sources (google-ai-edge/LiteRT): tflite/kernels/batch_matmul.cc (Prepare, EvalInt8Int8,
 * EvalInt16, EvalInt16Int8), internal/reference/batch_matmul.h; tflite/kernels/
 * transpose_conv.cc (Prepare, Eval, EvalQuantizedPerChannel, EvalQuantizedPerChannel16x8),
 * internal/reference/integer_ops/transpose_conv.h, padding.h, kernel_util.cc
 * (GetQuantizedConvolutionMultipler, PopulateConvolutionQuantizationParams,
 * CalculateActivationRangeQuantized). The arithmetic, tensors and attributes:
 * specs/litert/OPERATORS.md ("LiteRT BATCH_MATMUL and TRANSPOSE_CONV").
 *
 *   acc = sum (a - zp_a) * (b - zp_b) [+ bias[c]]    int32; int64 for int16 activations
 * (BATCH_MATMUL) and 16x8 TRANSPOSE_CONV with an int64 bias y   = clamp(MBQM(acc,
 * QuantizeMultiplier(e_c)) + zp_out, act_min, act_max)      MBQM64 for int64 e   = double(float(s_a
 * * s_b)) / double(s_out)         BATCH_MATMUL (the product in float) e_c = double(s_in) *
 * double(s_w[c]) / double(s_out)    TRANSPOSE_CONV (per channel, double) The padding and the
 * activation range are CONV_2D's (litert_conv.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "litert_conv.h"
#include "op.h"
#include "requant.h"

enum { OP_BMM, OP_TCONV };

#define MAX_RANK 5 /* BATCH_MATMUL: ranks 2 to 5 */

/* Everything the checks establish about a call. a and b are the two multiplied tensors:
 * BATCH_MATMUL lhs and rhs, TRANSPOSE_CONV input and weights. */
typedef struct mplan {
	int op;
	const char *name;
	const qcf_tensor *a, *b, *bias, *out;
	qcf_quant qa, qb, qo;
	int has_qo;
	int wide; /* int64 accumulator */
	int act;
	int32_t act_min, act_max;
	int64_t n_ch; /* channels with their own multiplier: C_out (TRANSPOSE_CONV), 1 */
	/* BATCH_MATMUL, every shape extended to rank (leading 1s) */
	int rank, adj_x, adj_y;
	int64_t ls[MAX_RANK], rs[MAX_RANK], os[MAX_RANK];
	int64_t m, n, k; /* output rows, columns, the accumulated depth */
	/* TRANSPOSE_CONV, NHWC; weights [C_out, kh, kw, C_in] */
	int64_t nb, ih, iw, ic, kh, kw, oh, ow, sh, sw, ph, pw;
} mplan;

static int scale_ok(float s)
{
	return s > 0.0f && isfinite(s);
}

/* Per-tensor quantization of the activations, positive finite scales, int16 zero points 0. */
static qcf_status act_quant(const qcf_op_call *call, mplan *p, int need_qo, int int16,
                            qref_detail *d)
{
	qcf_status s = qref_get_quant(p->a, p->op == OP_BMM ? "lhs" : "input", 1, &p->qa, d);
	if (s != QCF_OK)
		return s;
	if (need_qo || p->out->quant) {
		if ((s = qref_get_quant(p->out, "output", 1, &p->qo, d)) != QCF_OK)
			return s;
		p->has_qo = 1;
	}
	if (!scale_ok(p->qa.scales[0]) || (p->has_qo && !scale_ok(p->qo.scales[0])))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input and output scales must be positive and finite",
		                 call->op);
	if (int16 && (p->qa.zero_points[0] != 0 || (p->has_qo && p->qo.zero_points[0] != 0)))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: int16 activations need zero points 0 (got input %" PRId32
		                 ", output %" PRId32 ")",
		                 call->op, p->qa.zero_points[0],
		                 p->has_qo ? p->qo.zero_points[0] : 0);
	return QCF_OK;
}

/* The output's shape against the one computed, rank r. */
static qcf_status check_out_shape(const qcf_op_call *call, const mplan *p, const int64_t *shape,
                                  int r, qref_detail *d)
{
	int same = p->out->rank == r;
	for (int i = 0; same && i < r; i++)
		same = p->out->shape[i] == shape[i];
	if (same)
		return QCF_OK;
	char buf[160];
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < r && len < sizeof buf - 24; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld", i ? ", " : "",
		                        (long long)shape[i]);
	return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
	                        "%s: output shape must be [%s]", call->op, buf);
}

/* ---- BATCH_MATMUL: Prepare ----------------------------------------------------------------- */

static qcf_status bmm_init(const qcf_op_call *call, int need_qo, mplan *p, qref_detail *d)
{
	qcf_status s =
	        need_qo ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const char *op = call->op;
	p->a = &call->inputs[0];
	p->b = &call->inputs[1];
	p->out = &call->outputs[0];
	p->n_ch = 1;
	qcf_dtype lt = p->a->dtype, rt = p->b->dtype, ot = p->out->dtype;
	if (lt == QCF_FLOAT32)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: float32 and hybrid (float32 x int8) are LiteRT's but not "
		                 "implemented by the reference",
		                 op);
	if (lt != QCF_INT8 && lt != QCF_INT16)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: lhs must be int8 or int16, got %s", op,
		                 qref_dtype_name(lt));
	if (!(rt == lt || (lt == QCF_INT16 && rt == QCF_INT8)))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: rhs must be %s, got %s (Prepare: the same type as lhs, or "
		                 "int8 with int16 lhs)",
		                 op, lt == QCF_INT8 ? "int8" : "int16 or int8",
		                 qref_dtype_name(rt));
	if (lt == QCF_INT8 && ot == QCF_INT32)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: int8 x int8 -> int32 (EvalInt8Int32, the raw product without "
		                 "zero points) is not implemented",
		                 op);
	if (ot != lt)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: output type %s must equal lhs type %s",
		                 op, qref_dtype_name(ot), qref_dtype_name(lt));
	p->wide = lt == QCF_INT16;

	/* shapes: ranks 2 to 5, broadcastable batch dimensions, matching depths */
	int lr = p->a->rank, rr = p->b->rank;
	if (lr < 2 || lr > MAX_RANK || rr < 2 || rr > MAX_RANK)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: lhs and rhs need ranks 2 to 5, got %d and %d", op, lr, rr);
	int64_t adj_x, adj_y;
	if (qref_litert_int_attr(call, "adj_x", 0, &adj_x, d) < 0 ||
	    qref_litert_int_attr(call, "adj_y", 0, &adj_y, d) < 0)
		return QCF_INVALID_PARAM;
	p->adj_x = adj_x != 0;
	p->adj_y = adj_y != 0;
	int r = lr > rr ? lr : rr;
	p->rank = r;
	for (int i = 0; i < r; i++) {
		p->ls[i] = i < r - lr ? 1 : p->a->shape[i - (r - lr)];
		p->rs[i] = i < r - rr ? 1 : p->b->shape[i - (r - rr)];
	}
	for (int i = 0; i < r - 2; i++) {
		if (p->ls[i] != p->rs[i] && p->ls[i] != 1 && p->rs[i] != 1)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: batch dimensions %lld and %lld do not broadcast", op,
			                 (long long)p->ls[i], (long long)p->rs[i]);
		p->os[i] = p->ls[i] == 1 ? p->rs[i] : p->ls[i];
	}
	p->m = p->adj_x ? p->ls[r - 1] : p->ls[r - 2];
	p->k = p->adj_x ? p->ls[r - 2] : p->ls[r - 1];
	int64_t kr = p->adj_y ? p->rs[r - 1] : p->rs[r - 2];
	p->n = p->adj_y ? p->rs[r - 2] : p->rs[r - 1];
	if (p->k != kr)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: lhs depth %lld (adj_x %d) differs from rhs depth %lld (adj_y "
		                 "%d)",
		                 op, (long long)p->k, p->adj_x, (long long)kr, p->adj_y);
	p->os[r - 2] = p->m;
	p->os[r - 1] = p->n;
	if ((s = check_out_shape(call, p, p->os, r, d)) != QCF_OK)
		return s;

	/* quantization: per tensor (Prepare reads params.scale and params.zero_point) */
	if ((s = act_quant(call, p, need_qo, p->wide, d)) != QCF_OK)
		return s;
	if ((s = qref_get_quant(p->b, "rhs", 1, &p->qb, d)) != QCF_OK)
		return s;
	if (!scale_ok(p->qb.scales[0]))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the rhs scale must be positive and finite", op);
	if (p->wide && p->qb.zero_points[0] != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: int16 lhs needs an rhs zero point 0, got %" PRId32, op,
		                 p->qb.zero_points[0]);
	p->act_min = ot == QCF_INT8 ? INT8_MIN : INT16_MIN; /* no fused activation */
	p->act_max = ot == QCF_INT8 ? INT8_MAX : INT16_MAX;
	return QCF_OK;
}

/* ---- TRANSPOSE_CONV: Prepare and Eval's checks ---------------------------------------------- */

static qcf_status tconv_init(const qcf_op_call *call, int need_qo, mplan *p, qref_detail *d)
{
	int nin = call->n_inputs == 3 ? 3 : 4;
	qcf_status s = need_qo ? qref_check_call(call, nin, 1, d)
	                       : qref_check_call_shapes(call, nin, 1, d);
	if (s != QCF_OK)
		return s;
	const char *op = call->op;
	const qcf_tensor *os = &call->inputs[0];
	p->b = &call->inputs[1];
	p->a = &call->inputs[2];
	p->bias = nin == 4 ? &call->inputs[3] : NULL;
	p->out = &call->outputs[0];
	const qcf_tensor *in = p->a, *w = p->b;
	qcf_dtype it = in->dtype;

	/* types */
	if (it == QCF_FLOAT32 || it == QCF_UINT8)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: %s activations are LiteRT's but not implemented (int8 and "
		                 "int16 are)",
		                 op, qref_dtype_name(it));
	if (it != QCF_INT8 && it != QCF_INT16)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input must be int8 or int16, got %s",
		                 op, qref_dtype_name(it));
	int int16 = it == QCF_INT16;
	if (w->dtype != QCF_INT8)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: weights must be int8 with %s input, got %s (Prepare)", op,
		                 qref_dtype_name(it), qref_dtype_name(w->dtype));
	if (p->out->dtype != it)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: output type %s must equal input type %s", op,
		                 qref_dtype_name(p->out->dtype), qref_dtype_name(it));
	if (p->bias) {
		qcf_dtype bt = p->bias->dtype;
		if (!int16 && bt != QCF_INT32)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: int8 activations need an int32 bias, got %s", op,
			                 qref_dtype_name(bt));
		if (int16 && bt != QCF_INT32 && bt != QCF_INT64)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: int16 activations need an int32 or int64 bias, got %s", op,
			        qref_dtype_name(bt));
	}
	/* 16x8 accumulator: quantized_bias_type when given (it must name the bias's type), else
	 * int64; an int32 bias without it is read by LiteRT as int64 (EvalQuantizedPerChannel16x8)
	 */
	if (int16) {
		static const char *const bts[] = {"int32", "int64"};
		int qbt = -1;
		if (qref_litert_enum_attr(call, "quantized_bias_type", bts, 2, 0, -1, &qbt, d) < 0)
			return QCF_INVALID_PARAM;
		if (qbt >= 0 && p->bias && p->bias->dtype != (qbt == 0 ? QCF_INT32 : QCF_INT64))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: quantized_bias_type %s, but the bias is %s", op,
			                 bts[qbt], qref_dtype_name(p->bias->dtype));
		if (qbt < 0 && p->bias && p->bias->dtype == QCF_INT32)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: an int32 bias with int16 activations needs "
			        "quantized_bias_type int32 (without it LiteRT reads the bias "
			        "as int64)",
			        op);
		p->wide = qbt != 0;
	}

	/* geometry: ranks, the output_shape tensor, strides, padding.h */
	if (in->rank != 4 || w->rank != 4)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input and weights must have rank 4",
		                 op);
	if (os->dtype != QCF_INT32 || os->rank != 1 || os->shape[0] != 4)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: output_shape must be an int32 tensor of shape [4], got %s of "
		                 "rank %" PRId32,
		                 op, qref_dtype_name(os->dtype), os->rank);
	p->nb = in->shape[0], p->ih = in->shape[1], p->iw = in->shape[2], p->ic = in->shape[3];
	p->n_ch = w->shape[0], p->kh = w->shape[1], p->kw = w->shape[2];
	if (p->ih <= 0 || p->iw <= 0 || p->ic <= 0 || p->n_ch <= 0 || p->kh <= 0 || p->kw <= 0)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: input height, width, depth and weights dimensions 0 to 2 must "
		        "be > 0",
		        op);
	if (w->shape[3] != p->ic)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: input depth %lld differs from the weights' dimension 3 (%lld)", op,
		        (long long)p->ic, (long long)w->shape[3]);
	if (p->bias && (int64_t)qref_tensor_numel(p->bias) != p->n_ch)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the bias needs %lld elements (one per output channel)", op,
		                 (long long)p->n_ch);
	int same;
	static const char *const pads[] = {"SAME", "VALID"};
	if (qref_litert_enum_attr(call, "padding", pads, 2, 1, 0, &same, d) < 0)
		return QCF_INVALID_PARAM;
	same = same == 0;
	if (qref_litert_int_attr(call, "stride_h", 1, &p->sh, d) < 0 ||
	    qref_litert_int_attr(call, "stride_w", 1, &p->sw, d) < 0)
		return QCF_INVALID_PARAM;
	if (p->sh <= 0 || p->sw <= 0 || p->sh > INT16_MAX || p->sw > INT16_MAX)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: strides must be in [1, 32767]", op);
	int64_t shape[4];
	for (int i = 0; i < 4; i++)
		shape[i] = qref_get_int(os, (size_t)i);
	if (shape[0] != p->nb || shape[1] <= 0 || shape[2] <= 0 || shape[3] != p->n_ch)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: output_shape [%lld, %lld, %lld, %lld] needs the input's batch "
		        "%lld, height and width > 0 and the weights' %lld channels",
		        op, (long long)shape[0], (long long)shape[1], (long long)shape[2],
		        (long long)shape[3], (long long)p->nb, (long long)p->n_ch);
	p->oh = shape[1];
	p->ow = shape[2];
	/* Eval: the convolution of the output that this op transposes must give the input */
	int64_t ch, cw;
	if (qref_litert_padding(same, p->oh, p->kh, p->sh, 1, &ch, &p->ph) < 0 ||
	    qref_litert_padding(same, p->ow, p->kw, p->sw, 1, &cw, &p->pw) < 0 || ch != p->ih ||
	    cw != p->iw)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: %s padding of a %lldx%lld output by a %lldx%lld kernel at "
		                 "strides %lld, %lld needs a %lldx%lld input, got %lldx%lld",
		                 op, same ? "SAME" : "VALID", (long long)p->oh, (long long)p->ow,
		                 (long long)p->kh, (long long)p->kw, (long long)p->sh,
		                 (long long)p->sw,
		                 (long long)(same ? (p->oh + p->sh - 1) / p->sh : ch),
		                 (long long)(same ? (p->ow + p->sw - 1) / p->sw : cw),
		                 (long long)p->ih, (long long)p->iw);
	if ((s = check_out_shape(call, p, shape, 4, d)) != QCF_OK)
		return s;

	/* quantization */
	if ((s = act_quant(call, p, need_qo, int16, d)) != QCF_OK)
		return s;
	if ((s = qref_get_quant(w, "weights", 0, &p->qb, d)) != QCF_OK)
		return s;
	if (p->qb.axis >= 0 && p->qb.count > 1 && (p->qb.axis != 0 || p->qb.count != p->n_ch))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: per-axis weights need %lld scales on dimension 0, got %" PRId32
		        " on dimension %" PRId32,
		        op, (long long)p->n_ch, p->qb.count, p->qb.axis);
	for (int32_t c = 0; c < p->qb.count; c++) {
		if (!scale_ok(p->qb.scales[c]))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: weight scales must be positive and finite", op);
		if (p->qb.zero_points[c] != 0)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: weight zero points must be 0 (symmetric weights), got "
			        "%" PRId32,
			        op, p->qb.zero_points[c]);
	}
	if (p->bias && p->bias->quant) {
		qcf_quant qbias;
		if ((s = qref_get_quant(p->bias, "bias", 0, &qbias, d)) != QCF_OK)
			return s;
		for (int32_t c = 0; c < qbias.count; c++)
			if (qbias.zero_points[c] != 0)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "%s: bias zero points must be 0, got %" PRId32, op,
				                 qbias.zero_points[c]);
	}

	/* the fused activation (read through TfLiteConvParams, whose field it shares) */
	static const char *const acts[] = {QREF_LITERT_ACTS};
	if (qref_litert_enum_attr(call, "fused_activation_function", acts, QREF_LITERT_N_ACTS, 1, 0,
	                          &p->act, d) < 0)
		return QCF_INVALID_PARAM;
	p->act_min = int16 ? INT16_MIN : INT8_MIN;
	p->act_max = int16 ? INT16_MAX : INT8_MAX;
	if (p->has_qo)
		return qref_litert_act_range(call, p->act, p->out->dtype, p->qo.scales[0],
		                             p->qo.zero_points[0], &p->act_min, &p->act_max, d);
	return QCF_OK;
}

static qcf_status plan_init(const qcf_op_call *call, const qref_op *row, int need_qo, mplan *p,
                            qref_detail *d)
{
	memset(p, 0, sizeof *p);
	p->op = row->param;
	p->name = call->op;
	return p->op == OP_BMM ? bmm_init(call, need_qo, p, d) : tconv_init(call, need_qo, p, d);
}

/* ---- accumulators ------------------------------------------------------------------------- */

static int32_t channel_of(const mplan *p, size_t i)
{
	return p->op == OP_TCONV ? (int32_t)(i % (size_t)p->n_ch) : 0;
}

/* BATCH_MATMUL, element i of the output: the batch index broadcast into each input (a
 * dimension of 1 stays at 0), then row r of lhs (column r with adj_x) against column c of rhs
 * (row c with adj_y). */
static int64_t bmm_acc(const mplan *p, size_t i)
{
	int r = p->rank;
	int64_t c = (int64_t)(i % (size_t)p->n), row = (int64_t)(i / (size_t)p->n % (size_t)p->m);
	int64_t bi = (int64_t)(i / (size_t)(p->n * p->m));
	int64_t lb = 0, rb = 0, lstride = p->m * p->k, rstride = p->k * p->n;
	for (int dim = r - 3; dim >= 0; dim--) {
		int64_t v = bi % p->os[dim];
		bi /= p->os[dim];
		if (p->ls[dim] != 1)
			lb += v * lstride;
		if (p->rs[dim] != 1)
			rb += v * rstride;
		lstride *= p->ls[dim];
		rstride *= p->rs[dim];
	}
	int32_t za = p->qa.zero_points[0], zb = p->qb.zero_points[0];
	int64_t acc = 0;
	for (int64_t k = 0; k < p->k; k++) {
		int64_t li = lb + (p->adj_x ? k * p->m + row : row * p->k + k);
		int64_t ri = rb + (p->adj_y ? c * p->k + k : k * p->n + c);
		int64_t lv = (int64_t)qref_get(p->a, (size_t)li) - za;
		int64_t rv = (int64_t)qref_get(p->b, (size_t)ri) - zb;
		acc += lv * rv;
	}
	return acc;
}

/* TRANSPOSE_CONV, element (b, oy, ox, co): the scatter of integer_ops/transpose_conv.h read
 * backwards, every input pixel (iy, ix) with oy = iy * stride_h - pad_h + fy for a tap fy (and
 * the same across), times weights[co, fy, fx, ci]. */
static int64_t tconv_acc(const mplan *p, size_t i)
{
	int64_t co = (int64_t)(i % (size_t)p->n_ch), r = (int64_t)(i / (size_t)p->n_ch);
	int64_t ox = r % p->ow, oy = r / p->ow % p->oh, b = r / p->ow / p->oh;
	int32_t zi = p->qa.zero_points[0];
	int64_t acc = 0;
	for (int64_t fy = 0; fy < p->kh; fy++) {
		int64_t ty = oy + p->ph - fy;
		if (ty < 0 || ty % p->sh != 0 || ty / p->sh >= p->ih)
			continue;
		for (int64_t fx = 0; fx < p->kw; fx++) {
			int64_t tx = ox + p->pw - fx;
			if (tx < 0 || tx % p->sw != 0 || tx / p->sw >= p->iw)
				continue;
			size_t xi =
			        (size_t)(((b * p->ih + ty / p->sh) * p->iw + tx / p->sw) * p->ic);
			size_t wi = (size_t)(((co * p->kh + fy) * p->kw + fx) * p->ic);
			for (int64_t ci = 0; ci < p->ic; ci++)
				acc += ((int64_t)qref_get(p->a, xi + (size_t)ci) - zi) *
				       (int64_t)qref_get(p->b, wi + (size_t)ci);
		}
	}
	return acc;
}

/* The exact accumulator of output element i, bias included. */
static int64_t accumulate(const mplan *p, size_t i)
{
	if (p->op == OP_BMM)
		return bmm_acc(p, i);
	int64_t acc = tconv_acc(p, i);
	return p->bias ? acc + qref_get_int(p->bias, i % (size_t)p->n_ch) : acc;
}

/* ---- requantization ----------------------------------------------------------------------- */

static float weight_scale(const mplan *p, int64_t c)
{
	return p->qb.scales[p->qb.count > 1 ? c : 0];
}

/* The real multiplier as LiteRT's Prepare computes it: BATCH_MATMUL's
 * GetQuantizedConvolutionMultipler multiplies the two float scales in float; TRANSPOSE_CONV's
 * PopulateConvolutionQuantizationParams works in double. */
static double multiplier_real(const mplan *p, int64_t c)
{
	double so = (double)p->qo.scales[0];
	if (p->op == OP_BMM)
		return (double)(p->qa.scales[0] * p->qb.scales[0]) / so;
	return (double)p->qa.scales[0] * (double)weight_scale(p, c) / so;
}

/* s_a * s_b[c] / s_out in double: the exact rescaling (the terms hook, the fallback value). */
static double multiplier_double(const mplan *p, int64_t c)
{
	return (double)p->qa.scales[0] * (double)weight_scale(p, c) / (double)p->qo.scales[0];
}

typedef struct chan_rq {
	int usable; /* 0: every element of the channel is unpredictable */
	int32_t m;
	int sh;
} chan_rq;

static void chan_rq_init(const mplan *p, int64_t c, qref_rounding build, chan_rq *q)
{
	double e = multiplier_real(p, c);
	q->usable = isfinite(e); /* a float product beyond FLT_MAX */
	q->m = 0;
	q->sh = 0;
	if (!q->usable)
		return;
	qref_quantize_multiplier(e, p->wide ? QREF_ROUND_DOUBLE : build, &q->m, &q->sh);
	if (p->wide)
		q->usable = q->sh >= -31 && q->sh <= 7;
	else if (build == QREF_ROUND_DOUBLE)
		q->usable = q->sh < 31;
}

/* 0 and *y = MBQM(acc) (MBQM64 for an int64 accumulator), or -1 where LiteRT's step is outside
 * its contract (an int32 sum that overflows, the pre-shift leaving int32, MBQM64's domain). */
static int requantize(const mplan *p, int64_t acc, qref_rounding build, const chan_rq *q,
                      int64_t *y)
{
	if (!q->usable)
		return -1;
	if (p->wide) {
		if (acc < -(INT64_C(1) << 47) || acc >= (INT64_C(1) << 47))
			return -1;
		*y = qref_mbqm64(acc, q->m, q->sh);
		return 0;
	}
	if (acc < INT32_MIN || acc > INT32_MAX)
		return -1;
	if (build == QREF_ROUND_DOUBLE) {
		if (!qref_mbqm_preshift_fits((int32_t)acc, q->sh))
			return -1;
		*y = qref_mbqm((int32_t)acc, q->m, q->sh, build);
		return 0;
	}
	*y = qref_mbqm_single_wide((int32_t)acc, q->m, q->sh);
	return *y < INT32_MIN || *y > INT32_MAX ? -1 : 0;
}

static qcf_status matmul_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	mplan p;
	qcf_status s = plan_init(call, row, 1, &p, d);
	if (s != QCF_OK)
		return s;
	qref_rounding r = qref_detail_rounding(d);
	if (r != QREF_ROUND_DEFAULT && r != QREF_ROUND_DOUBLE && r != QREF_ROUND_SINGLE)
		return qref_rounding_na(call, d, r,
		                        "acc * s_a * s_b / s_out by an integer multiplier");
	qref_rounding build = qref_requant_build(r);
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);
	chan_rq *q = malloc((size_t)p.n_ch * sizeof *q);
	if (!q)
		return qref_fail(d, QCF_ERROR, "%s: out of memory", p.name);
	for (int64_t c = 0; c < p.n_ch; c++)
		chan_rq_init(&p, c, build, &q[c]);
	qcf_tensor *out = &call->outputs[0];
	double lo, hi;
	qref_range_d(out->dtype, &lo, &hi);
	int32_t zo = p.qo.zero_points[0];
	size_t n = qref_tensor_numel(out);
	for (size_t i = 0; i < n; i++) {
		int32_t c = channel_of(&p, i);
		int64_t acc = accumulate(&p, i), y = 0;
		if (requantize(&p, acc, build, &q[c], &y) < 0 || y + zo < INT32_MIN ||
		    y + zo > INT32_MAX) {
			qref_mark_any(d, 0, i, lo, hi);
			qref_set(out, i,
			         qref_clamp_d(round((double)acc * multiplier_double(&p, c)) + zo,
			                      p.act_min, p.act_max));
			continue;
		}
		qref_mark_exact(d, 0, i);
		y += zo;
		qref_set(out, i,
		         (double)(y < p.act_min   ? p.act_min
		                  : y > p.act_max ? p.act_max
		                                  : y));
	}
	free(q);
	return QCF_OK;
}

/*
 * Real-valued output: s_a * s_b[c] * (the accumulator without the bias), plus the bias's real
 * value ((b - zp) * s_bias with its own quantization, else b * s_in * s_w[c], as the kernel
 * reads it), through the fused activation (RELU max(0, v), RELU6 [0, 6], RELU_N1_TO_1 [-1, 1]).
 */
static qcf_status matmul_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                              qref_detail *d)
{
	(void)k; /* one output */
	mplan p;
	qcf_status s = plan_init(call, row, 0, &p, d);
	if (s != QCF_OK)
		return s;
	qcf_quant qbias;
	int has_qbias = p.bias && p.bias->quant &&
	                qref_get_quant(p.bias, "bias", 0, &qbias, NULL) == QCF_OK;
	size_t n = qref_tensor_numel(p.out);
	double sa = (double)p.qa.scales[0];
	for (size_t i = 0; i < n; i++) {
		int32_t c = channel_of(&p, i);
		double sb = (double)weight_scale(&p, c);
		double v = (double)(p.op == OP_BMM ? bmm_acc(&p, i) : tconv_acc(&p, i)) * sa * sb;
		if (p.bias) {
			double b = (double)qref_get_int(p.bias, (size_t)c);
			v += has_qbias ? (b - qbias.zero_points[qbias.count > 1 ? c : 0]) *
			                         (double)qbias.scales[qbias.count > 1 ? c : 0]
			               : b * sa * sb;
		}
		switch (p.act) {
		case 1: v = v > 0 ? v : 0; break;               /* RELU */
		case 2: v = v < -1 ? -1 : v > 1 ? 1 : v; break; /* RELU_N1_TO_1 */
		case 3: v = v < 0 ? 0 : v > 6 ? 6 : v; break;   /* RELU6 */
		default: break;
		}
		values[i] = v;
	}
	return QCF_OK;
}

/* One element at a time: the accumulator, bias included, and its value rescaled in double
 * (multiplier_double) plus the output zero point. */
static qcf_status matmul_terms(const qcf_op_call *call, const qref_op *row, int k,
                               const size_t *idx, int n, qref_terms *terms, qref_detail *d)
{
	if (k != 0)
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: no accumulator for output %d",
		                 call->op ? call->op : "(null)", k);
	mplan p;
	qcf_status s = plan_init(call, row, 1, &p, d);
	if (s != QCF_OK)
		return s;
	size_t numel = qref_tensor_numel(p.out);
	for (int j = 0; j < n; j++) {
		if (idx[j] >= numel)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: no element %zu (output has %zu)", p.name, idx[j],
			                 numel);
		int32_t c = channel_of(&p, idx[j]);
		terms[j].acc = accumulate(&p, idx[j]);
		terms[j].real =
		        (double)terms[j].acc * multiplier_double(&p, c) + p.qo.zero_points[0];
	}
	return QCF_OK;
}

static const qref_attr_schema bmm_attrs[] = {
        A_BOOL("adj_x", "0"),
        A_BOOL("adj_y", "0"),
        END,
};

static const qref_attr_schema tconv_attrs[] = {
        A_ENUM("padding", LIST("SAME", "VALID"), 1, "SAME"),
        A_INT("stride_h", 1, 32767, "1"),
        A_INT("stride_w", 1, 32767, "1"),
        A_ENUM("fused_activation_function", LIST(QREF_LITERT_ACTS), 1, "NONE"),
        A_ENUM("quantized_bias_type", LIST("int32", "int64"), 0,
               "int64 (int16 input; int8 ignores it)"),
        END,
};

const qref_op qref_ops_litert_matmul[] = {
        {.schema = {.semantics = "litert",
                    .op = "BATCH_MATMUL",
                    IO(LIST("lhs", "rhs"), 2, 2, LIST("output"), 1),
                    .attrs = bmm_attrs},
         .kernel = matmul_kernel,
         .real = matmul_real,
         .terms = matmul_terms,
         .param = OP_BMM},
        {.schema = {.semantics = "litert",
                    .op = "TRANSPOSE_CONV",
                    IO(LIST("output_shape", "weights", "input", "bias"), 3, 4, LIST("output"), 1),
                    .attrs = tconv_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = matmul_kernel,
         .real = matmul_real,
         .terms = matmul_terms,
         .param = OP_TCONV},
        {.schema = {.op = NULL}},
};
