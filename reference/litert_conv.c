/*
 * LiteRT CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: int8 activations
 * (per-tensor or per-axis weights), 16x8 (int16 activations, int32 or int64
 * bias), int4 weights; the legacy uint8 FULLY_CONNECTED (uint8 input, output
 * and per-tensor weights, any zero points: internal/reference/
 * fully_connected.h, the uint8 overloads).
 *
 * Sources: tflite/kernels/{conv,depthwise_conv,fully_connected,padding,
 * kernel_util}.cc, internal/reference/integer_ops/{conv,depthwise_conv,
 * fully_connected}.h (google-ai-edge/LiteRT), the same files in
 * tensorflow/tflite-micro. The arithmetic, ops, tensors and attributes:
 * specs/litert/OPERATORS.md ("Integer requantization", "LiteRT convolution
 * operators").
 *
 * The norm is the integer pipeline every LiteRT optimized kernel and TFLM run:
 *   acc = sum w * (x - zp_in) + bias[c]          (int32; int64 for 16x8 with int64 bias)
 *   y   = clamp(MBQM(acc, QM(s_in * s_w[c] / s_out)) + zp_out, act_min, act_max)
 * MBQM64 for an int64 accumulator. Legal variants, by named rounding:
 *   double (default) / single   the two MultiplyByQuantizedMultiplier builds
 *   half_* (FULLY_CONNECTED)     (int32)round(acc * e) in double, e = s_in * s_w / s_out in
 *                                double: LiteRT's FULLY_CONNECTED_REF since April 2025 (half_away);
 *                                the other tie rules round the same product
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

enum { OP_CONV, OP_DW, OP_FC };

enum { ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6, ACT_TANH, ACT_SIGN_BIT };

static const char *const act_names[] = {"NONE",  "RELU", "RELU_N1_TO_1",
                                        "RELU6", "TANH", "SIGN_BIT"};

/* Everything the checks establish about a call; the kernels, the real-value
 * hook and qref_litert_conv_terms read it. */
typedef struct plan {
	int op;
	const char *name;
	const qcf_tensor *in, *w, *bias;
	const qcf_tensor *out;
	qcf_quant qi, qw, qo, qb;
	int has_qo, has_qb;
	int wide;  /* int64 accumulator */
	int int16; /* 16x8 */
	int u8;    /* legacy uint8 FULLY_CONNECTED: uint8 input, filter and output */
	int act;
	int32_t act_min, act_max;
	int64_t n_ch; /* output channels (units for FC) */
	/* CONV / DW geometry, NHWC */
	int64_t nb, ih, iw, ic, kh, kw, oh, ow;
	int64_t fc_in, groups, dm;
	int64_t sh, sw, dh, dw, ph, pw;
	/* FC */
	int64_t batches, depth;
	int32_t zp_w; /* FC per-tensor filter zero point (applied) */
	int64_t out_shape[QCF_MAX_RANK];
	int32_t out_rank;
} plan;

static int32_t scale_index(const qcf_quant *q, int64_t c)
{
	return q->count > 1 ? (int32_t)c : 0;
}

/* This and the next: litert_conv.h. */
int qref_litert_int_attr(const qcf_op_call *call, const char *name, int64_t def, int64_t *out,
                         qref_detail *d)
{
	int r = qref_attr_int(call, name, out);
	if (r == 0)
		*out = def;
	if (r < 0) {
		qref_fail_attr(d, name, QCF_INVALID_PARAM, "%s: attribute %s must be an integer",
		               call->op, name);
		return -1;
	}
	return 0;
}

/* A string attribute among names[0..n), or with by_index its index in the list (the TFLite
 * schema's enum value) as an integer; def when absent. */
static int enum_attr(const qcf_op_call *call, const char *name, const char *const *names, int n,
                     int by_index, int def, int *out, qref_detail *d)
{
	const qcf_attr *a = qref_attr_find(call, name);
	*out = def;
	if (!a)
		return 0;
	if (a->type == QCF_ATTR_STRING && a->v.s) {
		for (int k = 0; k < n; k++)
			if (strcmp(a->v.s, names[k]) == 0) {
				*out = k;
				return 0;
			}
	} else if (by_index) {
		int64_t v;
		if (qref_attr_int(call, name, &v) == 1 && v >= 0 && v < n) {
			*out = (int)v;
			return 0;
		}
	}
	char list[160];
	size_t len = 0;
	list[0] = 0;
	for (int k = 0; k < n && len < sizeof list; k++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "",
		                        names[k]);
	qref_fail_attr(d, name, QCF_INVALID_PARAM, "%s: attribute %s must be one of %s", call->op,
	               name, list);
	return -1;
}

int qref_litert_enum_attr(const qcf_op_call *call, const char *name, const char *const *names,
                          int n, int by_index, int def, int *out, qref_detail *d)
{
	return enum_attr(call, name, names, n, by_index, def, out, d);
}

static int scale_ok(float s)
{
	return s > 0.0f && isfinite(s);
}

/* Quantize(f) of kernel_util.cc CalculateActivationRangeQuantized: zp + (int)roundf(f / s). */
static int act_quantize(float s, int32_t zp, float f, int64_t *q)
{
	float t = roundf(f / s);
	if (!(t >= -0x1p31f && t < 0x1p31f))
		return -1;
	*q = (int64_t)zp + (int64_t)t;
	return 0;
}

qcf_status qref_litert_act_range(const qcf_op_call *call, int act, qcf_dtype dt, float s,
                                 int32_t zp, int32_t *act_min, int32_t *act_max, qref_detail *d)
{
	int64_t lo = 0, hi = 0, q = 0;
	qref_dtype_range(dt, &lo, &hi);
	int64_t mn = lo, mx = hi;
	int bad = 0;
	switch (act) {
	case ACT_RELU:
		bad = act_quantize(s, zp, 0.0f, &q) < 0;
		mn = q > lo ? q : lo;
		break;
	case ACT_RELU6:
		bad = act_quantize(s, zp, 0.0f, &q) < 0;
		mn = q > lo ? q : lo;
		bad = bad || act_quantize(s, zp, 6.0f, &q) < 0;
		mx = q < hi ? q : hi;
		break;
	case ACT_RELU_N1_TO_1:
		bad = act_quantize(s, zp, -1.0f, &q) < 0;
		mn = q > lo ? q : lo;
		bad = bad || act_quantize(s, zp, 1.0f, &q) < 0;
		mx = q < hi ? q : hi;
		break;
	default: break;
	}
	if (bad)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: a bound of %s does not fit int32 at output scale %g",
		                 call->op, act_names[act], (double)s);
	*act_min = (int32_t)mn;
	*act_max = (int32_t)mx;
	return QCF_OK;
}

static qcf_status act_range(const qcf_op_call *call, plan *p, qref_detail *d)
{
	return qref_litert_act_range(call, p->act, p->out->dtype, p->qo.scales[0],
	                             p->qo.zero_points[0], &p->act_min, &p->act_max, d);
}

/* SAME / VALID padding (kernels/padding.h): output size and the padding before. */
static int padding(int same, int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t *out,
                   int64_t *before)
{
	int64_t eff = (k - 1) * dil + 1;
	int64_t o = same ? (in + stride - 1) / stride : (in + stride - eff) / stride;
	if (o < 0)
		return -1;
	int64_t total = (o - 1) * stride + eff - in;
	*out = o;
	*before = total > 0 ? total / 2 : 0;
	return 0;
}

int qref_litert_padding(int same, int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t *out,
                        int64_t *before)
{
	return padding(same, in, k, stride, dil, out, before);
}

static int is_rank(const qcf_tensor *t, int r)
{
	return t->rank == r;
}

static qcf_status conv_geometry(const qcf_op_call *call, plan *p, qref_detail *d)
{
	const qcf_tensor *in = p->in, *w = p->w;
	const char *op = call->op;
	if (!is_rank(in, 4) || !is_rank(w, 4))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input and filter must have rank 4", op);
	p->nb = in->shape[0], p->ih = in->shape[1], p->iw = in->shape[2], p->ic = in->shape[3];
	p->kh = w->shape[1], p->kw = w->shape[2];
	if (p->ih <= 0 || p->iw <= 0 || p->ic <= 0 || w->shape[0] <= 0 || p->kh <= 0 ||
	    p->kw <= 0 || w->shape[3] <= 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input height, width, depth and filter dimensions must be > 0",
		                 op);
	int same;
	static const char *const pads[] = {"SAME", "VALID"};
	if (enum_attr(call, "padding", pads, 2, 1, 0, &same, d) < 0)
		return QCF_INVALID_PARAM;
	same = same == 0;
	if (qref_litert_int_attr(call, "stride_h", 1, &p->sh, d) < 0 ||
	    qref_litert_int_attr(call, "stride_w", 1, &p->sw, d) < 0 ||
	    qref_litert_int_attr(call, "dilation_h_factor", 1, &p->dh, d) < 0 ||
	    qref_litert_int_attr(call, "dilation_w_factor", 1, &p->dw, d) < 0)
		return QCF_INVALID_PARAM;
	if (p->sh <= 0 || p->sw <= 0 || p->dh <= 0 || p->dw <= 0)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: strides and dilations must be > 0", op);
	if (p->sh > INT32_MAX || p->sw > INT32_MAX || p->dh > INT32_MAX || p->dw > INT32_MAX)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: strides and dilations must fit int32",
		                 op);
	if (p->op == OP_DW && (p->sh > 32767 || p->sw > 32767 || p->dh > 32767 || p->dw > 32767))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: strides and dilations must be <= 32767",
		                 op);
	if (p->op == OP_CONV) {
		p->n_ch = w->shape[0];
		p->fc_in = w->shape[3];
		if (p->ic % p->fc_in != 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: input depth %lld is not a multiple of the filter's "
			                 "input depth %lld",
			                 op, (long long)p->ic, (long long)p->fc_in);
		p->groups = p->ic / p->fc_in;
		if (p->n_ch % p->groups != 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: %lld output channels do not split into %lld groups",
			                 op, (long long)p->n_ch, (long long)p->groups);
	} else {
		if (w->shape[0] != 1)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: filter dimension 0 must be 1 (filter [1, kh, kw, "
			                 "C_out])",
			                 op);
		p->n_ch = w->shape[3];
		if (p->n_ch % p->ic != 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: %lld output channels are not a multiple of the input "
			                 "depth %lld",
			                 op, (long long)p->n_ch, (long long)p->ic);
		p->dm = p->n_ch / p->ic;
		int64_t dm;
		if (qref_litert_int_attr(call, "depth_multiplier", p->dm, &dm, d) < 0)
			return QCF_INVALID_PARAM;
		if (dm != p->dm)
			return qref_fail_attr(d, "depth_multiplier", QCF_INVALID_PARAM,
			                      "%s: depth_multiplier %lld, but the shapes give %lld "
			                      "(C_out / C_in)",
			                      op, (long long)dm, (long long)p->dm);
	}
	if (padding(same, p->ih, p->kh, p->sh, p->dh, &p->oh, &p->ph) < 0 ||
	    padding(same, p->iw, p->kw, p->sw, p->dw, &p->ow, &p->pw) < 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the dilated filter is larger than the input (VALID padding)",
		                 op);
	p->out_rank = 4;
	p->out_shape[0] = p->nb;
	p->out_shape[1] = p->oh;
	p->out_shape[2] = p->ow;
	p->out_shape[3] = p->n_ch;
	return QCF_OK;
}

static qcf_status fc_geometry(const qcf_op_call *call, plan *p, qref_detail *d)
{
	const qcf_tensor *in = p->in, *w = p->w;
	const char *op = call->op;
	if (!is_rank(w, 2))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: filter must have rank 2", op);
	if (in->rank < 1)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input must have rank >= 1", op);
	p->n_ch = w->shape[0];
	p->depth = w->shape[1];
	int64_t keep;
	if (qref_litert_int_attr(call, "keep_num_dims", 0, &keep, d) < 0)
		return QCF_INVALID_PARAM;
	if (p->depth == 0)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s with filter dimension 1 == 0 is not implemented (LiteRT's "
		                 "Prepare returns before it sets up the requantization)",
		                 op);
	int64_t n = (int64_t)qref_tensor_numel(in);
	p->batches = n / p->depth; /* LiteRT does not check divisibility */
	if (keep) {
		if (in->shape[in->rank - 1] != p->depth)
			return qref_fail_attr(
			        d, "keep_num_dims", QCF_INVALID_PARAM,
			        "%s: keep_num_dims needs the input's last dimension (%lld) "
			        "equal to the filter's dimension 1 (%lld)",
			        op, (long long)in->shape[in->rank - 1], (long long)p->depth);
		p->out_rank = in->rank;
		for (int32_t k = 0; k < in->rank; k++)
			p->out_shape[k] = in->shape[k];
		p->out_shape[in->rank - 1] = p->n_ch;
	} else {
		p->out_rank = 2;
		p->out_shape[0] = p->batches;
		p->out_shape[1] = p->n_ch;
	}
	return QCF_OK;
}

static const char *op_name(int op)
{
	return op == OP_CONV ? "CONV_2D" : op == OP_DW ? "DEPTHWISE_CONV_2D" : "FULLY_CONNECTED";
}

/*
 * Every check of the op's Prepare (and this reference's own limits), in the
 * order: tensors, types, geometry, quantization, bias, activation. need_qo:
 * output quantization must be present (not for the real-value hook).
 */
static qcf_status plan_init(const qcf_op_call *call, int op, int need_qo, plan *p, qref_detail *d)
{
	memset(p, 0, sizeof *p);
	p->op = op;
	p->name = op_name(op);
	int nin = call->n_inputs == 2 ? 2 : 3;
	qcf_status s = need_qo ? qref_check_call(call, nin, 1, d)
	                       : qref_check_call_shapes(call, nin, 1, d);
	if (s != QCF_OK)
		return s;
	p->in = &call->inputs[0];
	p->w = &call->inputs[1];
	p->bias = nin == 3 ? &call->inputs[2] : NULL;
	p->out = &call->outputs[0];
	const char *opn = call->op;
	qcf_dtype it = p->in->dtype, wt = p->w->dtype;

	/* types */
	if ((it == QCF_UINT8 && op != OP_FC) || it == QCF_FLOAT32)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: %s activations are not implemented (int8 and int16 are)", opn,
		                 qref_dtype_name(it));
	if (it != QCF_INT8 && it != QCF_INT16 && it != QCF_UINT8)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input must be int8 or int16, got %s",
		                 opn, qref_dtype_name(it));
	p->int16 = it == QCF_INT16;
	p->u8 = it == QCF_UINT8;
	if (p->u8 && p->out->dtype == QCF_INT16)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: uint8 input with int16 output (LiteRT's legacy int16 output "
		                 "kernel) is not implemented",
		                 opn);
	if (p->out->dtype != it)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: output type %s must equal input type %s", opn,
		                 qref_dtype_name(p->out->dtype), qref_dtype_name(it));
	/* legacy uint8 FULLY_CONNECTED: uint8 weights with any zero point (LiteRT's Prepare
	 * accepts other filter types with uint8 input, but its uint8 kernels read the filter as
	 * uint8, so no other combination has a defined result) */
	if (p->u8 && wt != QCF_UINT8)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: uint8 activations with %s filters are not implemented (uint8 "
		                 "filters are)",
		                 opn, qref_dtype_name(wt));
	if (!p->u8 && (wt == QCF_UINT8 || wt == QCF_INT16))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: %s filters are not implemented (int8 and int4 are)", opn,
		                 qref_dtype_name(wt));
	if (!p->u8 && wt != QCF_INT8 && wt != QCF_INT4)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: filter must be int8 or int4, got %s",
		                 opn, qref_dtype_name(wt));
	if (p->bias) {
		qcf_dtype bt = p->bias->dtype;
		if (!p->int16 && bt != QCF_INT32)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: int8 activations need an int32 bias, got %s", opn,
			                 qref_dtype_name(bt));
		if (p->int16 && op == OP_DW && bt != QCF_INT64)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: int16 activations need an int64 bias, got %s", opn,
			                 qref_dtype_name(bt));
		if (p->int16 && bt != QCF_INT32 && bt != QCF_INT64)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: int16 activations need an int32 or int64 bias, got %s", opn,
			        qref_dtype_name(bt));
	}
	/* 16x8 accumulator: by the bias type (TFLM); quantized_bias_type, when given, must
	 * match it (LiteRT) */
	if (p->int16 && op != OP_DW) {
		static const char *const bts[] = {"int32", "int64"};
		const qcf_attr *a = qref_attr_find(call, "quantized_bias_type");
		int qbt = -1;
		if (a && enum_attr(call, "quantized_bias_type", bts, 2, 0, -1, &qbt, d) < 0)
			return QCF_INVALID_PARAM;
		if (qbt >= 0 && p->bias && p->bias->dtype != (qbt == 0 ? QCF_INT32 : QCF_INT64))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: quantized_bias_type %s, but the bias is %s", opn,
			                 bts[qbt], qref_dtype_name(p->bias->dtype));
		p->wide = p->bias ? p->bias->dtype == QCF_INT64 : qbt != 0;
	} else {
		p->wide = p->int16;
	}

	/* geometry */
	s = op == OP_FC ? fc_geometry(call, p, d) : conv_geometry(call, p, d);
	if (s != QCF_OK)
		return s;
	int same = p->out->rank == p->out_rank;
	for (int32_t k = 0; same && k < p->out_rank; k++)
		same = p->out->shape[k] == p->out_shape[k];
	if (!same) {
		char buf[160];
		size_t len = 0;
		buf[0] = 0;
		for (int32_t k = 0; k < p->out_rank && len < sizeof buf - 24; k++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld",
			                        k ? ", " : "", (long long)p->out_shape[k]);
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: output shape must be [%s]", opn, buf);
	}

	/* quantization */
	s = qref_get_quant(p->in, "input", 1, &p->qi, d);
	if (s != QCF_OK)
		return s;
	s = qref_get_quant(p->w, "filter", 0, &p->qw, d);
	if (s != QCF_OK)
		return s;
	if (need_qo || p->out->quant) {
		s = qref_get_quant(p->out, "output", 1, &p->qo, d);
		if (s != QCF_OK)
			return s;
		p->has_qo = 1;
	}
	if (!scale_ok(p->qi.scales[0]) || (p->has_qo && !scale_ok(p->qo.scales[0])))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input and output scales must be positive and finite", opn);
	int qdim = op == OP_DW ? 3 : 0;
	if (p->u8 && p->qw.count > 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: uint8 activations take per-tensor weights only (LiteRT's "
		                 "Prepare allows per-channel weights with int8 and int16 input)",
		                 opn);
	if (p->qw.axis >= 0 && p->qw.count > 1) {
		if (p->qw.axis != qdim)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: per-axis filter quantization must be on dimension %d, "
			        "got %" PRId32 "",
			        opn, qdim, p->qw.axis);
		if (p->qw.count != p->n_ch)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: %" PRId32 " filter scales for %lld output channels",
			                 opn, p->qw.count, (long long)p->n_ch);
	}
	for (int32_t c = 0; c < p->qw.count; c++) {
		if (!scale_ok(p->qw.scales[c]))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: filter scales must be positive and finite", opn);
		int32_t z = p->qw.zero_points[c];
		int per_tensor_fc =
		        op == OP_FC && p->qw.count == 1 && (wt == QCF_INT8 || wt == QCF_UINT8);
		if (z != 0 && (op != OP_FC || wt == QCF_INT4))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: filter zero points must be 0 (symmetric weights), got "
			        "%" PRId32 "",
			        opn, z);
		if (per_tensor_fc)
			p->zp_w = z; /* applied (LiteRT keeps it for backward compatibility) */
	}
	if (p->int16 && (p->qi.zero_points[0] != 0 || (p->has_qo && p->qo.zero_points[0] != 0)))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: int16 activations need zero points 0 (got input %" PRId32
		                 ", output "
		                 "%" PRId32 ")",
		                 opn, p->qi.zero_points[0], p->has_qo ? p->qo.zero_points[0] : 0);

	/* bias */
	if (p->bias) {
		if ((int64_t)qref_tensor_numel(p->bias) != p->n_ch ||
		    (op == OP_DW && p->bias->rank != 1))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: the bias needs %lld elements (one per output channel)%s", opn,
			        (long long)p->n_ch, op == OP_DW ? " in one dimension" : "");
		if (p->bias->quant) {
			s = qref_get_quant(p->bias, "bias", 0, &p->qb, d);
			if (s != QCF_OK)
				return s;
			p->has_qb = 1;
			for (int32_t c = 0; c < p->qb.count; c++)
				if (p->qb.zero_points[c] != 0)
					return qref_fail(
					        d, QCF_INVALID_PARAM,
					        "%s: bias zero points must be 0, got %" PRId32 "",
					        opn, p->qb.zero_points[c]);
		}
		/* per-tensor FULLY_CONNECTED: GetQuantizedConvolutionMultipler's bias check,
		 * when the bias carries its scale (without one it is read at s_in * s_w) */
		if (op == OP_FC && p->qw.count == 1 && p->has_qo && p->has_qb) {
			double prod = (double)p->qi.scales[0] * (double)p->qw.scales[0];
			double sb = (double)p->qb.scales[0];
			if (!(fabs(prod - sb) / (double)p->qo.scales[0] <= 0.02))
				return qref_fail(
				        d, QCF_INVALID_PARAM,
				        "%s: bias scale %g is not input scale * filter scale "
				        "(%g) within 0.02 output scales",
				        opn, sb, prod);
		}
	}

	/* activation */
	if (enum_attr(call, "fused_activation_function", act_names, 6, 1, ACT_NONE, &p->act, d) < 0)
		return QCF_INVALID_PARAM;
	if (op == OP_FC && p->act > ACT_RELU6)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: fused activation %s is not allowed (NONE, RELU, RELU_N1_TO_1, "
		        "RELU6)",
		        opn, act_names[p->act]);
	if (p->has_qo)
		return act_range(call, p, d);
	return QCF_OK;
}

/* ---- accumulation ------------------------------------------------------------------------ */

/*
 * The scalar model: the input minus its zero point and the filter minus the applied zero point,
 * unpacked to int32, and one output's accumulator at a time in int64. It runs the calls the
 * blocked kernels below do not take (uint8 FULLY_CONNECTED, a filter zero point, an input
 * zero point that takes x - zp_in outside int16).
 */
typedef struct operands {
	int32_t *x, *w;
} operands;

static qcf_status operands_load(const plan *p, operands *o, qref_detail *d)
{
	size_t nx = qref_tensor_numel(p->in), nw = qref_tensor_numel(p->w);
	o->x = malloc((nx ? nx : 1) * sizeof *o->x);
	o->w = malloc((nw ? nw : 1) * sizeof *o->w);
	if (!o->x || !o->w) {
		free(o->x);
		free(o->w);
		o->x = o->w = NULL;
		return qref_fail(d, QCF_ERROR, "%s: out of memory", p->name);
	}
	int32_t zi = p->qi.zero_points[0];
	for (size_t i = 0; i < nx; i++)
		o->x[i] = (int32_t)((uint32_t)(int32_t)qref_get(p->in, i) - (uint32_t)zi);
	for (size_t i = 0; i < nw; i++)
		o->w[i] = (int32_t)((uint32_t)(int32_t)qref_get(p->w, i) - (uint32_t)p->zp_w);
	return QCF_OK;
}

static void operands_free(operands *o)
{
	free(o->x);
	free(o->w);
}

/* The exact accumulator of output element i, without the bias (the scalar model). */
static int64_t accumulate(const plan *p, const operands *o, size_t i)
{
	int64_t acc = 0;
	int64_t c = (int64_t)(i % (size_t)p->n_ch);
	if (p->op == OP_FC) {
		int64_t b = (int64_t)(i / (size_t)p->n_ch);
		const int32_t *x = o->x + b * p->depth, *w = o->w + c * p->depth;
		for (int64_t k = 0; k < p->depth; k++)
			acc += (int64_t)w[k] * x[k];
		return acc;
	}
	int64_t r = (int64_t)(i / (size_t)p->n_ch);
	int64_t ox = r % p->ow;
	r /= p->ow;
	int64_t oy = r % p->oh, b = r / p->oh;
	int64_t y0 = oy * p->sh - p->ph, x0 = ox * p->sw - p->pw;
	for (int64_t ky = 0; ky < p->kh; ky++) {
		int64_t y = y0 + ky * p->dh;
		if (y < 0 || y >= p->ih)
			continue;
		for (int64_t kx = 0; kx < p->kw; kx++) {
			int64_t xx = x0 + kx * p->dw;
			if (xx < 0 || xx >= p->iw)
				continue;
			const int32_t *px = o->x + ((b * p->ih + y) * p->iw + xx) * p->ic;
			if (p->op == OP_DW) {
				int64_t wv = o->w[(ky * p->kw + kx) * p->n_ch + c];
				acc += wv * px[c / p->dm];
				continue;
			}
			int64_t g = c / (p->n_ch / p->groups);
			const int32_t *pw = o->w + ((c * p->kh + ky) * p->kw + kx) * p->fc_in;
			for (int64_t k = 0; k < p->fc_in; k++)
				acc += (int64_t)pw[k] * px[g * p->fc_in + k];
		}
	}
	return acc;
}

/*
 * The blocked kernels. Operands, read in their own types:
 *   x  int16 [rows][k]  the input minus its zero point, every value in [-32768, 32767]
 *                       (an int16 input is used as it is: its zero point is 0)
 *   w  int8  [cols][k]  filter rows as stored: FULLY_CONNECTED [units][depth], CONV_2D OHWI
 *                       (k = kh * kw * C_in / groups), DEPTHWISE_CONV_2D [kh][kw][C_out];
 *                       an int4 filter is unpacked to int8 once per call
 * A block of 4 rows x 4 filter rows accumulates its 16 dot products in int32, with the k loop
 * innermost so that the compiler vectorises it. int32 is exact when
 *   k * max|x| * max|w| <= INT32_MAX;
 * gemm_acc splits k into chunks that keep it so (kchunk) and adds each chunk's sums to the
 * int64 accumulators, so the result is the exact int64 sum the scalar model computes.
 */
/*
 * Built by GCC for x86-64 with optimisation and without sanitizers, the kernels marked
 * QREF_KERNEL are also compiled for AVX2 and the one for the running CPU is chosen at load time
 * (target_clones), with the vectoriser's cost model that -O3 uses; the C is the same, and so
 * is the result (integer arithmetic).
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__OPTIMIZE__) &&    \
        !defined(__SANITIZE_ADDRESS__)
#define QREF_KERNEL                                                                                \
	__attribute__((target_clones("avx2", "default"), optimize("vect-cost-model=dynamic")))
#else
#define QREF_KERNEL
#endif

#define QREF_MR 4 /* rows (pixels, batches) per block */
#define QREF_NR 4 /* filter rows (output channels) per block */

QREF_KERNEL
static int32_t dot_1x1(const int16_t *x, const int8_t *w, int64_t n)
{
	int32_t a = 0;
	for (int64_t k = 0; k < n; k++)
		a += (int32_t)x[k] * w[k];
	return a;
}

/* a[j] = dot(x, w + j * ws) for j < 4 */
QREF_KERNEL
static void dot_1x4(const int16_t *x, const int8_t *w, int64_t ws, int64_t n, int32_t *a)
{
	const int8_t *w0 = w, *w1 = w + ws, *w2 = w + 2 * ws, *w3 = w + 3 * ws;
	int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
	for (int64_t k = 0; k < n; k++) {
		int32_t v = x[k];
		a0 += v * w0[k];
		a1 += v * w1[k];
		a2 += v * w2[k];
		a3 += v * w3[k];
	}
	a[0] = a0, a[1] = a1, a[2] = a2, a[3] = a3;
}

/* a[4 * i + j] = dot(x + i * xs, w + j * ws) for i, j < 4 */
QREF_KERNEL
static void dot_4x4(const int16_t *x, int64_t xs, const int8_t *w, int64_t ws, int64_t n,
                    int32_t *a)
{
	const int16_t *x0 = x, *x1 = x + xs, *x2 = x + 2 * xs, *x3 = x + 3 * xs;
	const int8_t *w0 = w, *w1 = w + ws, *w2 = w + 2 * ws, *w3 = w + 3 * ws;
	int32_t a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
	int32_t a20 = 0, a21 = 0, a22 = 0, a23 = 0, a30 = 0, a31 = 0, a32 = 0, a33 = 0;
	for (int64_t k = 0; k < n; k++) {
		int32_t u0 = w0[k], u1 = w1[k], u2 = w2[k], u3 = w3[k];
		int32_t v0 = x0[k], v1 = x1[k], v2 = x2[k], v3 = x3[k];
		a00 += v0 * u0, a01 += v0 * u1, a02 += v0 * u2, a03 += v0 * u3;
		a10 += v1 * u0, a11 += v1 * u1, a12 += v1 * u2, a13 += v1 * u3;
		a20 += v2 * u0, a21 += v2 * u1, a22 += v2 * u2, a23 += v2 * u3;
		a30 += v3 * u0, a31 += v3 * u1, a32 += v3 * u2, a33 += v3 * u3;
	}
	a[0] = a00, a[1] = a01, a[2] = a02, a[3] = a03, a[4] = a10, a[5] = a11, a[6] = a12;
	a[7] = a13, a[8] = a20, a[9] = a21, a[10] = a22, a[11] = a23, a[12] = a30, a[13] = a31;
	a[14] = a32, a[15] = a33;
}

/* The longest k for which the int32 sums of a block are exact. */
static int64_t kchunk(int32_t xmax, int32_t wmax, int64_t k)
{
	int64_t per = (int64_t)xmax * wmax;
	int64_t kc = per ? INT32_MAX / per : k;
	return kc < 1 ? 1 : kc < k ? kc : k;
}

/*
 * acc[r * as + c] += sum over j < k of x[r * xs + j] * w[c * ws + j], for r < rows, c < cols,
 * in chunks of kc; filter rows in tiles of about 32 KiB, so that a tile stays in cache while
 * every row block passes over it.
 */
static void gemm_acc(const int16_t *x, int64_t xs, int64_t rows, const int8_t *w, int64_t ws,
                     int64_t cols, int64_t k, int64_t kc, int64_t *acc, int64_t as)
{
	int32_t a[QREF_MR * QREF_NR];
	for (int64_t k0 = 0; k0 < k; k0 += kc) {
		int64_t n = k - k0 < kc ? k - k0 : kc;
		int64_t tile = (32768 / n) & ~(int64_t)(QREF_NR - 1);
		if (tile < QREF_NR)
			tile = QREF_NR;
		for (int64_t c0 = 0; c0 < cols; c0 += tile) {
			int64_t c1 = c0 + tile < cols ? c0 + tile : cols;
			int64_t r = 0;
			for (; r + QREF_MR <= rows; r += QREF_MR) {
				const int16_t *xr = x + r * xs + k0;
				int64_t *ar = acc + r * as;
				int64_t c = c0;
				for (; c + QREF_NR <= c1; c += QREF_NR) {
					dot_4x4(xr, xs, w + c * ws + k0, ws, n, a);
					for (int i = 0; i < QREF_MR; i++)
						for (int j = 0; j < QREF_NR; j++)
							ar[i * as + c + j] += a[i * QREF_NR + j];
				}
				for (; c < c1; c++)
					for (int i = 0; i < QREF_MR; i++)
						ar[i * as + c] +=
						        dot_1x1(xr + i * xs, w + c * ws + k0, n);
			}
			for (; r < rows; r++) {
				const int16_t *xr = x + r * xs + k0;
				int64_t *ar = acc + r * as;
				int64_t c = c0;
				for (; c + QREF_NR <= c1; c += QREF_NR) {
					dot_1x4(xr, w + c * ws + k0, ws, n, a);
					for (int j = 0; j < QREF_NR; j++)
						ar[c + j] += a[j];
				}
				for (; c < c1; c++)
					ar[c] += dot_1x1(xr, w + c * ws + k0, n);
			}
		}
	}
}

/* CONV_2D: the input patches of a block of output pixels (im2col, int16, padding as 0 = the
 * zero point) against each group's filter rows. */
#define QREF_PIXELS 32

/* Output pixels [r0, r1); acc[(pix - r0) * n_ch + c] += ... */
static void conv_acc(const plan *p, const int16_t *x, const int8_t *w, int32_t xmax, int32_t wmax,
                     int16_t *patch, int64_t r0, int64_t r1, int64_t *acc)
{
	int64_t k = p->kh * p->kw * p->fc_in, cpg = p->n_ch / p->groups;
	int64_t kc = kchunk(xmax, wmax, k);
	for (int64_t p0 = r0; p0 < r1; p0 += QREF_PIXELS) {
		int64_t np = r1 - p0 < QREF_PIXELS ? r1 - p0 : QREF_PIXELS;
		for (int64_t g = 0; g < p->groups; g++) {
			for (int64_t q = 0; q < np; q++) {
				int64_t pix = p0 + q, ox = pix % p->ow, oy = pix / p->ow % p->oh;
				int64_t b = pix / p->ow / p->oh;
				int64_t y0 = oy * p->sh - p->ph, x0 = ox * p->sw - p->pw;
				int16_t *row = patch + q * k;
				for (int64_t ky = 0; ky < p->kh; ky++) {
					int64_t y = y0 + ky * p->dh;
					for (int64_t kx = 0; kx < p->kw; kx++) {
						int64_t xx = x0 + kx * p->dw;
						int16_t *dst = row + (ky * p->kw + kx) * p->fc_in;
						if (y < 0 || y >= p->ih || xx < 0 || xx >= p->iw) {
							memset(dst, 0,
							       (size_t)p->fc_in * sizeof *dst);
							continue;
						}
						const int16_t *src =
						        x + ((b * p->ih + y) * p->iw + xx) * p->ic +
						        g * p->fc_in;
						memcpy(dst, src, (size_t)p->fc_in * sizeof *dst);
					}
				}
			}
			gemm_acc(patch, k, np, w + g * cpg * k, k, cpg, k, kc,
			         acc + (p0 - r0) * p->n_ch + g * cpg, p->n_ch);
		}
	}
}

/* DEPTHWISE_CONV_2D: per output pixel and tap, a pass over the output channels (int64, so no
 * chunking: one tap adds one product to each accumulator). */
QREF_KERNEL
static void dw_acc(const plan *p, const int16_t *x, const int8_t *w, int64_t r0, int64_t r1,
                   int64_t *acc)
{
	int64_t nc = p->n_ch, dm = p->dm;
	for (int64_t pix = r0; pix < r1; pix++) {
		int64_t ox = pix % p->ow, oy = pix / p->ow % p->oh, b = pix / p->ow / p->oh;
		int64_t *a = acc + (pix - r0) * nc;
		int64_t y0 = oy * p->sh - p->ph, x0 = ox * p->sw - p->pw;
		for (int64_t ky = 0; ky < p->kh; ky++) {
			int64_t y = y0 + ky * p->dh;
			if (y < 0 || y >= p->ih)
				continue;
			for (int64_t kx = 0; kx < p->kw; kx++) {
				int64_t xx = x0 + kx * p->dw;
				if (xx < 0 || xx >= p->iw)
					continue;
				const int16_t *px = x + ((b * p->ih + y) * p->iw + xx) * p->ic;
				const int8_t *pw = w + (ky * p->kw + kx) * nc;
				if (dm == 1)
					for (int64_t c = 0; c < nc; c++)
						a[c] += (int32_t)pw[c] * px[c];
				else
					for (int64_t c = 0; c < nc; c++)
						a[c] += (int32_t)pw[c] * px[c / dm];
			}
		}
	}
}

/*
 * What the accumulators of a call read, prepared once: the blocked kernels take int8 and int16
 * inputs whose x - zp_in fits int16 with int8 or int4 filters and no filter zero point (fast),
 * the scalar model the rest (o).
 */
typedef struct acc_src {
	int fast;
	const int16_t *x; /* fast: the input minus its zero point */
	const int8_t *w;  /* fast: the filter as int8 */
	int32_t xmax, wmax;
	int16_t *xbuf, *patch;
	int8_t *wbuf;
	operands o; /* !fast */
} acc_src;

static void acc_src_free(acc_src *a)
{
	free(a->xbuf);
	free(a->wbuf);
	free(a->patch);
	if (!a->fast)
		operands_free(&a->o);
	memset(a, 0, sizeof *a);
}

static qcf_status acc_src_init(const plan *p, acc_src *a, qref_detail *d)
{
	memset(a, 0, sizeof *a);
	size_t nx = qref_tensor_numel(p->in), nw = qref_tensor_numel(p->w);
	int32_t zi = p->qi.zero_points[0];
	a->fast = !p->u8 && p->zp_w == 0;
	if (a->fast && p->int16) {
		a->x = (const int16_t *)p->in->data; /* zero point 0 */
		for (size_t i = 0; i < nx; i++) {
			int32_t v = a->x[i] < 0 ? -(int32_t)a->x[i] : a->x[i];
			a->xmax = v > a->xmax ? v : a->xmax;
		}
	} else if (a->fast) {
		/* every int8 x - zp_in fits int16 (else the scalar model, which gives the same
		 * sums) */
		a->fast = zi >= INT16_MIN + 128 && zi <= INT16_MAX - 127;
		a->xbuf = a->fast ? malloc((nx ? nx : 1) * sizeof *a->xbuf) : NULL;
		if (a->fast && !a->xbuf)
			return qref_fail(d, QCF_ERROR, "%s: out of memory", p->name);
		const int8_t *xi = (const int8_t *)p->in->data;
		int32_t xmax = 0;
		for (size_t i = 0; a->fast && i < nx; i++) {
			int32_t v = (int32_t)xi[i] - zi;
			a->xbuf[i] = (int16_t)v;
			v = v < 0 ? -v : v;
			xmax = v > xmax ? v : xmax;
		}
		a->xmax = xmax;
		a->x = a->xbuf;
	}
	if (!a->fast) {
		free(a->xbuf);
		a->xbuf = NULL;
		return operands_load(p, &a->o, d);
	}
	a->w = (const int8_t *)p->w->data;
	a->wmax = 128;
	if (p->w->dtype == QCF_INT4) {
		a->wbuf = malloc(nw ? nw : 1);
		if (!a->wbuf) {
			acc_src_free(a);
			return qref_fail(d, QCF_ERROR, "%s: out of memory", p->name);
		}
		const uint8_t *packed = (const uint8_t *)p->w->data;
		for (size_t i = 0; i < nw; i++) {
			int v = (i & 1) ? packed[i / 2] >> 4 : packed[i / 2] & 0xf;
			a->wbuf[i] = (int8_t)(v >= 8 ? v - 16 : v);
		}
		a->w = a->wbuf;
		a->wmax = 8;
	}
	if (p->op == OP_CONV) {
		int64_t k = p->kh * p->kw * p->fc_in;
		a->patch = malloc((size_t)(QREF_PIXELS * (k ? k : 1)) * sizeof *a->patch);
		if (!a->patch) {
			acc_src_free(a);
			return qref_fail(d, QCF_ERROR, "%s: out of memory", p->name);
		}
	}
	return QCF_OK;
}

/* The output's rows: pixels (CONV_2D, DEPTHWISE_CONV_2D) or batches (FULLY_CONNECTED), each
 * of n_ch elements. */
static int64_t out_rows(const plan *p)
{
	return p->n_ch ? (int64_t)(qref_tensor_numel(p->out) / (size_t)p->n_ch) : 0;
}

/* The exact accumulators, without the bias, of output rows [r0, r1) into acc
 * ((r1 - r0) * n_ch entries, in the output's order). */
static void acc_rows(const plan *p, const acc_src *a, int64_t r0, int64_t r1, int64_t *acc)
{
	size_t n = (size_t)((r1 - r0) * p->n_ch), i0 = (size_t)(r0 * p->n_ch);
	if (!a->fast) {
		for (size_t i = 0; i < n; i++)
			acc[i] = accumulate(p, &a->o, i0 + i);
		return;
	}
	memset(acc, 0, n * sizeof *acc);
	if (p->op == OP_FC)
		gemm_acc(a->x + r0 * p->depth, p->depth, r1 - r0, a->w, p->depth, p->n_ch, p->depth,
		         kchunk(a->xmax, a->wmax, p->depth), acc, p->n_ch);
	else if (p->op == OP_CONV)
		conv_acc(p, a->x, a->w, a->xmax, a->wmax, a->patch, r0, r1, acc);
	else
		dw_acc(p, a->x, a->w, r0, r1, acc);
}

/* The accumulators of every output element into a fresh array (NULL after a refusal in d). */
static int64_t *accumulators_new(const plan *p, qref_detail *d)
{
	size_t n = qref_tensor_numel(p->out);
	int64_t *acc = malloc((n ? n : 1) * sizeof *acc);
	if (!acc) {
		qref_fail(d, QCF_ERROR, "%s: out of memory", p->name);
		return NULL;
	}
	acc_src a;
	if (acc_src_init(p, &a, d) != QCF_OK) {
		free(acc);
		return NULL;
	}
	acc_rows(p, &a, 0, out_rows(p), acc);
	acc_src_free(&a);
	return acc;
}

/* ---- requantization ---------------------------------------------------------------------- */

static float filter_scale(const plan *p, int64_t c)
{
	return p->qw.scales[scale_index(&p->qw, c)];
}

/* s_in * s_w[c] / s_out as LiteRT's integer pipeline computes it before QuantizeMultiplier:
 * in double, except per-tensor FULLY_CONNECTED, whose product is float. */
static double multiplier_real(const plan *p, int64_t c)
{
	double so = (double)p->qo.scales[0];
	if (p->op == OP_FC && p->qw.count == 1)
		return (double)(p->qi.scales[0] * p->qw.scales[0]) / so;
	return (double)p->qi.scales[0] * (double)filter_scale(p, c) / so;
}

/* The FULLY_CONNECTED_REF product: all double. */
static double multiplier_double(const plan *p, int64_t c)
{
	return (double)p->qi.scales[0] * (double)filter_scale(p, c) / (double)p->qo.scales[0];
}

/* What requantizing channel c under one rounding needs, computed once per channel. */
typedef struct channel_rq {
	qref_rounding rnd; /* as asked (half_*), or the build (double, single) */
	int half;          /* rnd is a QREF_ROUND_HALF_* */
	int usable;        /* 0: every element of the channel is unpredictable */
	double md;         /* multiplier_double */
	int32_t m;         /* QuantizeMultiplier of multiplier_real */
	int sh;
} channel_rq;

static void channel_rq_init(const plan *p, int64_t c, qref_rounding rnd, channel_rq *q)
{
	memset(q, 0, sizeof *q);
	q->md = multiplier_double(p, c);
	q->usable = 1;
	if (qref_rounding_is_half(rnd)) {
		q->rnd = rnd;
		q->half = 1;
		return;
	}
	q->rnd = qref_requant_build(rnd);
	double e = multiplier_real(p, c);
	if (!isfinite(e)) { /* a float product beyond FLT_MAX */
		q->usable = 0;
		return;
	}
	qref_quantize_multiplier(e, p->wide ? QREF_ROUND_DOUBLE : q->rnd, &q->m, &q->sh);
	if (p->wide)
		q->usable = q->sh >= -31 && q->sh <= 7;
	else if (q->rnd == QREF_ROUND_DOUBLE)
		q->usable = q->sh < 31;
}

/*
 * Requantizes acc (bias included) of channel q; returns 0 and *y (before zp_out and the
 * clamp), or -1 where the step LiteRT takes is outside its contract (int32 overflow, shift
 * domain): the element is unpredictable.
 */
static inline int requantize(const plan *p, int64_t acc, const channel_rq *q, int64_t *y)
{
	if (q->half) {
		double v = qref_round_half((double)acc * q->md, q->rnd);
		if (!(v >= -0x1p31 && v < 0x1p31))
			return -1;
		*y = (int64_t)v;
		return 0;
	}
	if (!p->wide && (acc < INT32_MIN || acc > INT32_MAX))
		return -1;
	if (!q->usable)
		return -1;
	if (p->wide) {
		if (acc < -(INT64_C(1) << 47) || acc >= (INT64_C(1) << 47))
			return -1;
		*y = qref_mbqm64(acc, q->m, q->sh);
		return 0;
	}
	if (q->rnd == QREF_ROUND_DOUBLE) {
		if (q->sh > 0 &&
		    !qref_mbqm_preshift_fits((int32_t)acc, q->sh)) /* fits for sh <= 0 */
			return -1;
		*y = qref_mbqm((int32_t)acc, q->m, q->sh, q->rnd);
		return 0;
	}
	int64_t v = qref_mbqm_single_wide((int32_t)acc, q->m, q->sh);
	if (v < INT32_MIN || v > INT32_MAX)
		return -1;
	*y = v;
	return 0;
}

static int rounding_applies(const plan *p, qref_rounding rnd)
{
	return rnd == QREF_ROUND_DEFAULT || rnd == QREF_ROUND_DOUBLE || rnd == QREF_ROUND_SINGLE ||
	       (p->op == OP_FC && qref_rounding_is_half(rnd));
}

static qcf_status check_rounding(const qcf_op_call *call, const plan *p, qref_rounding rnd,
                                 qref_detail *d)
{
	if (rounding_applies(p, rnd))
		return QCF_OK;
	return qref_rounding_na(call, d, rnd,
	                        p->op == OP_FC
	                                ? "acc * s_in * s_w / s_out: by an integer multiplier "
	                                  "(double, single) or in double precision (half_*)"
	                                : "acc * s_in * s_w / s_out by an integer multiplier");
}

/* The bias of every channel as int64 (zeros without one); NULL when out of memory. */
static int64_t *bias_new(const plan *p)
{
	int64_t *b = calloc((size_t)(p->n_ch ? p->n_ch : 1), sizeof *b);
	if (b && p->bias)
		for (int64_t c = 0; c < p->n_ch; c++)
			b[c] = qref_get_int(p->bias, (size_t)c);
	return b;
}

/* y, in the output dtype's range, as element i of out: stored by type for the output dtypes of
 * these ops, through qref_set for any other. */
static inline void store_int(qcf_tensor *out, size_t i, int32_t y)
{
	switch (out->dtype) {
	case QCF_INT8: ((int8_t *)out->data)[i] = (int8_t)y; break;
	case QCF_UINT8: ((uint8_t *)out->data)[i] = (uint8_t)y; break;
	case QCF_INT16: ((int16_t *)out->data)[i] = (int16_t)y; break;
	default: qref_set(out, i, (double)y); break;
	}
}

/* Output 0 under one rounding: its channels' requantization, where it goes, its details. */
typedef struct rq_target {
	qref_rounding rnd;
	channel_rq *q; /* per channel */
	qcf_tensor out;
	qref_detail *d; /* element details: the asked rounding only (NULL for an extra) */
	double lo, hi;  /* the output dtype's range */
} rq_target;

static qcf_status rq_target_init(const plan *p, qref_rounding rnd, const qcf_tensor *out,
                                 qref_detail *d, rq_target *t)
{
	t->rnd = rnd;
	t->out = *out;
	t->d = d;
	qref_range_d(out->dtype, &t->lo, &t->hi);
	t->q = malloc((size_t)(p->n_ch ? p->n_ch : 1) * sizeof *t->q);
	if (!t->q)
		return qref_fail(d, QCF_ERROR, "%s: out of memory", p->name);
	for (int64_t c = 0; c < p->n_ch; c++)
		channel_rq_init(p, c, rnd, &t->q[c]);
	return QCF_OK;
}

/* Output rows [r0, r1) under t from their accumulators acc (without the bias; row r0 first). */
static void requant_rows(const plan *p, const int64_t *acc, const int64_t *bias, rq_target *t,
                         int64_t r0, int64_t r1)
{
	size_t nc = (size_t)p->n_ch;
	int32_t zo = p->qo.zero_points[0], amin = p->act_min, amax = p->act_max;
	uint8_t *any = t->d ? t->d->out[0].any : NULL;
	for (int64_t r = r0; r < r1; r++, acc += nc)
		for (size_t c = 0; c < nc; c++) {
			size_t i = (size_t)r * nc + c;
			int64_t a = acc[c] + bias[c], y = 0;
			if (requantize(p, a, &t->q[c], &y) < 0 || y + zo < INT32_MIN ||
			    y + zo > INT32_MAX) {
				qref_mark_any(t->d, 0, i, t->lo, t->hi);
				qref_set(&t->out, i,
				         qref_clamp_d(round((double)a * t->q[c].md) + zo, amin,
				                      amax));
				continue;
			}
			if (any)
				any[i] = 0; /* qref_mark_exact */
			y += zo;
			store_int(&t->out, i, (int32_t)(y < amin ? amin : y > amax ? amax : y));
		}
}

/* Output rows per block: the accumulators of a block are requantized while in cache. A
 * FULLY_CONNECTED block is all its batches up to 64 (each block passes over the whole
 * filter). */
static int64_t block_rows(const plan *p)
{
	return p->op == OP_FC ? 64 : QREF_PIXELS;
}

/*
 * The kernel: checks, then per block of output rows the accumulators once, requantized into
 * output 0 under the asked rounding and under every applicable rounding in d->extra
 * (qref_detail).
 */
static qcf_status conv_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	plan p;
	qcf_status s = plan_init(call, row->param, 1, &p, d);
	if (s != QCF_OK)
		return s;
	qref_rounding rnd = qref_detail_rounding(d);
	s = check_rounding(call, &p, rnd, d);
	if (s != QCF_OK)
		return s;
	rq_target t[QREF_ROUND_COUNT];
	int nt = 0;
	int64_t *acc = NULL, *bias = NULL;
	acc_src a;
	memset(&a, 0, sizeof a);
	a.fast = 1;
	s = rq_target_init(&p, rnd, &call->outputs[0], d, &t[nt]);
	if (s == QCF_OK)
		nt++;
	for (int r = 1; d && s == QCF_OK && r < QREF_ROUND_COUNT; r++) {
		if (!d->extra[r][0] || r == (int)rnd || !rounding_applies(&p, (qref_rounding)r))
			continue;
		qcf_tensor o = call->outputs[0];
		o.data = d->extra[r][0];
		s = rq_target_init(&p, (qref_rounding)r, &o, NULL, &t[nt]);
		if (s == QCF_OK)
			nt++;
	}
	int64_t rows = out_rows(&p), br = block_rows(&p);
	if (s == QCF_OK) {
		acc = malloc((size_t)((rows < br ? rows : br) * p.n_ch + 1) * sizeof *acc);
		bias = bias_new(&p);
		if (!acc || !bias)
			s = qref_fail(d, QCF_ERROR, "%s: out of memory", p.name);
	}
	if (s == QCF_OK)
		s = acc_src_init(&p, &a, d);
	if (s == QCF_OK) {
		for (int64_t r0 = 0; r0 < rows; r0 += br) {
			int64_t r1 = rows - r0 < br ? rows : r0 + br;
			acc_rows(&p, &a, r0, r1, acc);
			for (int k = 0; k < nt; k++)
				requant_rows(&p, acc, bias, &t[k], r0, r1);
		}
		acc_src_free(&a);
		if (d)
			d->default_rounding = QREF_ROUND_DOUBLE;
		for (int k = 1; k < nt; k++)
			d->extra_done |= 1u << t[k].rnd;
	}
	for (int k = 0; k < nt; k++)
		free(t[k].q);
	free(acc);
	free(bias);
	return s;
}

/*
 * Real-valued output: s_in * s_w[c] * (the accumulator without the bias) plus the
 * bias's real value ((b - zp) * s_b with its own quantization, else b * s_in * s_w[c],
 * as the kernel reads it), then the fused activation (RELU: max(0, v), RELU6: [0, 6],
 * RELU_N1_TO_1: [-1, 1]).
 */
static qcf_status conv_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                            qref_detail *d)
{
	(void)k; /* one output */
	plan p;
	qcf_status s = plan_init(call, row->param, 0, &p, d);
	if (s != QCF_OK)
		return s;
	int64_t *acc = accumulators_new(&p, d);
	if (!acc)
		return QCF_ERROR;
	size_t n = qref_tensor_numel(p.out);
	double si = (double)p.qi.scales[0];
	for (size_t i = 0; i < n; i++) {
		int64_t c = (int64_t)(i % (size_t)p.n_ch);
		double sw = (double)filter_scale(&p, c);
		double v = (double)acc[i] * si * sw;
		if (p.bias) {
			double b = (double)qref_get_int(p.bias, (size_t)c);
			v += p.has_qb ? b * (double)p.qb.scales[scale_index(&p.qb, c)]
			              : b * si * sw;
		}
		switch (p.act) {
		case ACT_RELU: v = v > 0 ? v : 0; break;
		case ACT_RELU6: v = v < 0 ? 0 : v > 6 ? 6 : v; break;
		case ACT_RELU_N1_TO_1: v = v < -1 ? -1 : v > 1 ? 1 : v; break;
		default: break;
		}
		values[i] = v;
	}
	free(acc);
	return QCF_OK;
}

qcf_status qref_litert_conv_terms(const qcf_op_call *call, qref_conv_terms *t, qref_detail *d)
{
	int op = -1;
	for (int k = OP_CONV; k <= OP_FC; k++)
		if (call && call->op && strcmp(call->op, op_name(k)) == 0)
			op = k;
	if (op < 0)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "not CONV_2D, DEPTHWISE_CONV_2D or "
		                 "FULLY_CONNECTED");
	plan p;
	qcf_status s = plan_init(call, op, 1, &p, d);
	if (s != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(p.out);
	if (t->n != n || (n && (!t->acc || !t->channel)))
		return qref_fail(d, QCF_ERROR, "%s: buffers for %zu elements, need %zu", call->op,
		                 t->n, n);
	if (n) {
		acc_src a;
		if (acc_src_init(&p, &a, d) != QCF_OK)
			return QCF_ERROR;
		acc_rows(&p, &a, 0, out_rows(&p), t->acc);
		acc_src_free(&a);
	}
	for (size_t i = 0; i < n; i++) {
		int64_t c = (int64_t)(i % (size_t)p.n_ch);
		t->acc[i] += p.bias ? qref_get_int(p.bias, (size_t)c) : 0;
		t->channel[i] = (int32_t)c;
	}
	t->input_scale = p.qi.scales[0];
	t->output_scale = p.qo.scales[0];
	t->filter_scales = p.qw.scales;
	t->n_filter_scales = p.qw.count;
	t->output_zero_point = p.qo.zero_points[0];
	t->act_min = p.act_min;
	t->act_max = p.act_max;
	t->wide = p.wide;
	return QCF_OK;
}

/* One element at a time: the scalar model's accumulator plus the channel's bias, and its value
 * rescaled in double (multiplier_double) plus the output zero point. */
static qcf_status conv_terms(const qcf_op_call *call, const qref_op *row, int k, const size_t *idx,
                             int n, qref_terms *terms, qref_detail *d)
{
	if (k != 0)
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: no accumulator for output %d",
		                 call->op ? call->op : "(null)", k);
	plan p;
	qcf_status s = plan_init(call, row->param, 1, &p, d);
	if (s != QCF_OK)
		return s;
	size_t numel = qref_tensor_numel(p.out);
	for (int j = 0; j < n; j++)
		if (idx[j] >= numel)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: no element %zu (output has %zu)", p.name, idx[j],
			                 numel);
	operands o;
	if (n == 0)
		return QCF_OK;
	if ((s = operands_load(&p, &o, d)) != QCF_OK)
		return s;
	for (int j = 0; j < n; j++) {
		int64_t c = (int64_t)(idx[j] % (size_t)p.n_ch);
		int64_t acc =
		        accumulate(&p, &o, idx[j]) + (p.bias ? qref_get_int(p.bias, (size_t)c) : 0);
		terms[j].acc = acc;
		terms[j].real = (double)acc * multiplier_double(&p, c) + p.qo.zero_points[0];
	}
	operands_free(&o);
	return QCF_OK;
}

/* TFLite's ActivationFunctionType, in the schema's order (the three ops take the name or its
 * index) */
#define TFLITE_ACT LIST("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT")

static const qref_attr_schema conv_attrs[] = {
        A_ENUM("padding", LIST("SAME", "VALID"), 1, "SAME"),
        A_INT("stride_h", 1, I32, "1"),
        A_INT("stride_w", 1, I32, "1"),
        A_INT("dilation_h_factor", 1, I32, "1"),
        A_INT("dilation_w_factor", 1, I32, "1"),
        A_ENUM("fused_activation_function", TFLITE_ACT, 1, "NONE"),
        A_ENUM("quantized_bias_type", LIST("int32", "int64"), 0, "the bias's type"),
        END,
};

static const qref_attr_schema dw_attrs[] = {
        A_ENUM("padding", LIST("SAME", "VALID"), 1, "SAME"),
        A_INT("stride_h", 1, I32, "1"),
        A_INT("stride_w", 1, I32, "1"),
        A_INT("dilation_h_factor", 1, I32, "1"),
        A_INT("dilation_w_factor", 1, I32, "1"),
        A_INT("depth_multiplier", 1, I32, "C_out / C_in"),
        A_ENUM("fused_activation_function", TFLITE_ACT, 1, "NONE"),
        END,
};

static const qref_attr_schema fc_attrs[] = {
        A_BOOL("keep_num_dims", "0"),
        A_ENUM("fused_activation_function", TFLITE_ACT, 1, "NONE"),
        A_ENUM("quantized_bias_type", LIST("int32", "int64"), 0, "the bias's type"),
        END,
};

#define IFB_OUTPUT IO(LIST("input", "filter", "bias"), 2, 3, LIST("output"), 1)

const qref_op qref_ops_litert_conv[] = {
        {.schema = {.semantics = "litert", .op = "CONV_2D", IFB_OUTPUT, .attrs = conv_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = conv_kernel,
         .real = conv_real,
         .terms = conv_terms,
         .param = OP_CONV},
        {.schema =
                 {.semantics = "litert", .op = "DEPTHWISE_CONV_2D", IFB_OUTPUT, .attrs = dw_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = conv_kernel,
         .real = conv_real,
         .terms = conv_terms,
         .param = OP_DW},
        {.schema = {.semantics = "litert", .op = "FULLY_CONNECTED", IFB_OUTPUT, .attrs = fc_attrs},
         .layout = QREF_LAYOUT_FC,
         .kernel = conv_kernel,
         .real = conv_real,
         .terms = conv_terms,
         .param = OP_FC},
        {.schema = {.op = NULL}},
};
