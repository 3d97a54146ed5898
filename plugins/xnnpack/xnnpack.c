/*
 * qconform plugin on XNNPACK's operator API (xnnpack.h, libxnnpack-dev
 * 0.0~git20220216): LiteRT's 8-bit operators mapped onto XNNPACK's qs8, qc8
 * and qu8 operators. See plugins/xnnpack/README.md for the mapping.
 *
 * supports() checks what the adapter can hand to XNNPACK at all (dtypes,
 * ranks, quantization layouts, attributes that have an XNNPACK counterpart);
 * prepare() creates and sets up the operator, so XNNPACK itself judges the
 * parameters: xnn_status_invalid_parameter becomes QCF_INVALID_PARAM,
 * xnn_status_unsupported_parameter QCF_NOT_SUPPORTED, with the function and
 * status in last_error(). The adapter never refuses a case on LiteRT's behalf:
 * a negative case XNNPACK accepts is computed (and judged FAIL).
 *
 * Buffers: XNNPACK's kernels may read up to XNN_EXTRA_BYTES past an input, so
 * every input is copied into a padded buffer the prepared call owns, and the
 * output is written to an owned buffer and copied out. Operators that exist in
 * XNNPACK for uint8 only (average pooling, softmax) and FULLY_CONNECTED with a
 * non-zero weight zero point run int8 data through the qu8 operator with every
 * value and zero point shifted by +128 (q ^ 0x80), which leaves every
 * difference q - zp, hence every real value, unchanged.
 *
 * Option same_padding=flag (default) hands SAME padding to XNNPACK as
 * XNN_FLAG_TENSORFLOW_SAME_PADDING; same_padding=explicit passes LiteRT's
 * padding (padding.h) as explicit values.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>

#include "qconform/plugin.h"
#include "qconform/plugin_util.h"

#define XP_VERSION "1.1.0"

struct qcf_instance {
	char err[512];
	int explicit_same; /* option same_padding=explicit */
};

struct qcf_prepared {
	xnn_operator_t op;
	int n_in;
	int src;     /* the call's input that in[0] copies (TRANSPOSE_CONV: 2) */
	void *in[2]; /* padded copies of the activation inputs */
	size_t in_bytes[2];
	void *out; /* the operator writes here; copied to the call's output */
	size_t out_bytes;
	int flip_in;  /* int8 inputs shifted to uint8 (q ^ 0x80) */
	int flip_out; /* uint8 output shifted back to int8 */
};

/* ------------------------------------------------------------------ helpers */

static qcf_status xp_fail(qcf_instance *inst, qcf_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static qcf_status xp_fail(qcf_instance *inst, qcf_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(inst->err, sizeof inst->err, fmt, ap);
	va_end(ap);
	return st;
}

static const char *xnn_status_name(enum xnn_status s)
{
	switch (s) {
	case xnn_status_success: return "xnn_status_success";
	case xnn_status_uninitialized: return "xnn_status_uninitialized";
	case xnn_status_invalid_parameter: return "xnn_status_invalid_parameter";
	case xnn_status_invalid_state: return "xnn_status_invalid_state";
	case xnn_status_unsupported_parameter: return "xnn_status_unsupported_parameter";
	case xnn_status_unsupported_hardware: return "xnn_status_unsupported_hardware";
	case xnn_status_out_of_memory: return "xnn_status_out_of_memory";
	default: return "unknown xnn_status";
	}
}

/* XNNPACK's verdict on the parameters, as the ABI's answer. */
static qcf_status xp_status(qcf_instance *inst, enum xnn_status s, const char *fn)
{
	if (s == xnn_status_success)
		return QCF_OK;
	qcf_status st = s == xnn_status_invalid_parameter       ? QCF_INVALID_PARAM
	                : s == xnn_status_unsupported_parameter ? QCF_NOT_SUPPORTED
	                : s == xnn_status_unsupported_hardware  ? QCF_NOT_SUPPORTED
	                                                        : QCF_ERROR;
	return xp_fail(inst, st, "%s returned %s", fn, xnn_status_name(s));
}

static int op_is(const qcf_op_call *call, const char *op)
{
	return call->op && strcmp(call->op, op) == 0;
}

/* The element count as XNNPACK's sizes take it (the host checked the shapes). */
static size_t numel(const qcf_tensor *t)
{
	return (size_t)qcf_numel(t);
}

static int tensor_ok(const qcf_tensor *t)
{
	if (t->rank < 0 || t->rank > QCF_MAX_RANK || (t->rank > 0 && !t->shape))
		return 0;
	for (int32_t i = 0; i < t->rank; i++)
		if (t->shape[i] < 0)
			return 0;
	return t->nbytes >= qcf_dtype_nbytes(t->dtype, numel(t)) && (t->data || t->nbytes == 0);
}

/* Per-tensor quantization of an int8/uint8 tensor whose zero point fits it. */
static int per_tensor(const qcf_tensor *t, float *scale, int32_t *zp)
{
	const qcf_quant *q = t->quant;
	if (!q || q->count != 1 || q->axis != -1 || !q->scales || !q->zero_points)
		return 0;
	*scale = q->scales[0];
	*zp = q->zero_points[0];
	return 1;
}

static int zp_fits(qcf_dtype t, int32_t zp)
{
	return t == QCF_INT8 ? zp >= -128 && zp <= 127 : zp >= 0 && zp <= 255;
}

/*
 * The fused activation as LiteRT clamps it (CalculateActivationRangeQuantized):
 * q(f) = zp + (int)roundf(f / s_out) in float, RELU [q(0), max], RELU6
 * [q(0), q(6)], RELU_N1_TO_1 [q(-1), q(1)], each within [qmin, qmax].
 */
static int act_bounds(const char *act, float s_out, int32_t zp, int32_t qmin, int32_t qmax,
                      int32_t *lo, int32_t *hi, qcf_instance *inst, qcf_status *st);

static int act_range(const qcf_op_call *call, float s_out, int32_t zp, int32_t qmin, int32_t qmax,
                     int32_t *lo, int32_t *hi, qcf_instance *inst, qcf_status *st)
{
	const char *act = "NONE";
	int k = qcf_attr_str(call, "fused_activation_function", &act);
	*lo = qmin;
	*hi = qmax;
	if (k < 0) {
		*st = xp_fail(inst, QCF_NOT_SUPPORTED, "fused_activation_function is not a string");
		return 0;
	}
	return act_bounds(act, s_out, zp, qmin, qmax, lo, hi, inst, st);
}

/* The bounds of activation act (also the standalone RELU ops) on the output's grid. */
static int act_bounds(const char *act, float s_out, int32_t zp, int32_t qmin, int32_t qmax,
                      int32_t *lo, int32_t *hi, qcf_instance *inst, qcf_status *st)
{
	*lo = qmin;
	*hi = qmax;
	double flo = -INFINITY, fhi = INFINITY;
	if (strcmp(act, "NONE") == 0)
		return 1;
	if (strcmp(act, "RELU") == 0) {
		flo = 0;
	} else if (strcmp(act, "RELU6") == 0) {
		flo = 0;
		fhi = 6;
	} else if (strcmp(act, "RELU_N1_TO_1") == 0) {
		flo = -1;
		fhi = 1;
	} else {
		*st = xp_fail(inst, QCF_NOT_SUPPORTED,
		              "fused activation %s: the adapter maps NONE, RELU, RELU6 and "
		              "RELU_N1_TO_1 to XNNPACK's output_min/output_max only",
		              act);
		return 0;
	}
	if (flo > -INFINITY) {
		float r = roundf((float)flo / s_out);
		if (!(fabsf(r) < 2147483648.0f - 256)) {
			*st = xp_fail(inst, QCF_NOT_SUPPORTED, "activation bound leaves int32");
			return 0;
		}
		int32_t v = zp + (int32_t)r;
		*lo = v > qmin ? (v < qmax ? v : qmax) : qmin;
	}
	if (fhi < INFINITY) {
		float r = roundf((float)fhi / s_out);
		if (!(fabsf(r) < 2147483648.0f - 256)) {
			*st = xp_fail(inst, QCF_NOT_SUPPORTED, "activation bound leaves int32");
			return 0;
		}
		int32_t v = zp + (int32_t)r;
		*hi = v < qmax ? (v > qmin ? v : qmin) : qmax;
	}
	if (*lo >= *hi) {
		*st = xp_fail(inst, QCF_NOT_SUPPORTED,
		              "fused activation %s collapses the output range to [%d, %d]: XNNPACK "
		              "requires output_min < output_max",
		              act, (int)*lo, (int)*hi);
		return 0;
	}
	return 1;
}

/* A non-negative integer attribute that fits uint32 (default when absent). */
static int attr_u32(const qcf_op_call *call, const char *name, uint32_t def, uint32_t *out,
                    qcf_instance *inst, qcf_status *st)
{
	double v;
	int k = qcf_attr_float(call, name, &v);
	if (k == 0) {
		*out = def;
		return 1;
	}
	if (k < 0 || v != floor(v) || v < 0 || v > 4294967295.0) {
		*st = xp_fail(inst, QCF_NOT_SUPPORTED,
		              "%s: XNNPACK takes an unsigned 32-bit value, got something else",
		              name);
		return 0;
	}
	*out = (uint32_t)v;
	return 1;
}

/* ------------------------------------------------------------- op checks */

typedef struct conv_geom {
	int depthwise, fc;
	size_t n, h, w, c, kh, kw, cout, groups, gin, gout;
	uint32_t sh, sw, dh, dw, flags;
	int same;
	size_t oh, ow;
} conv_geom;

static size_t out_dim(size_t in, size_t k, uint32_t d, uint32_t s, int same)
{
	if (same)
		return (in + s - 1) / s;
	size_t eff = (k - 1) * d + 1;
	return (in > eff ? in - eff : 0) / s + 1; /* XNNPACK: doz(padded, eff) / s + 1 */
}

/* LiteRT's SAME padding (padding.h): the total never below 0, the smaller half first. */
static void same_pads(size_t in, size_t k, uint32_t d, uint32_t s, uint32_t *before,
                      uint32_t *after)
{
	size_t out = (in + s - 1) / s, eff = (k - 1) * d + 1;
	size_t need = (out - 1) * s + eff;
	size_t total = need > in ? need - in : 0;
	*before = (uint32_t)(total / 2);
	*after = (uint32_t)(total - total / 2);
}

static qcf_status check_act_tensors(qcf_instance *inst, const qcf_tensor *x, const qcf_tensor *y,
                                    int allow_uint8)
{
	float s;
	int32_t zp;
	if (!(x->dtype == QCF_INT8 || (allow_uint8 && x->dtype == QCF_UINT8)))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "input dtype %d: the adapter maps int8%s activations only", x->dtype,
		               allow_uint8 ? " and uint8" : "");
	if (y->dtype != x->dtype)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "output dtype differs from the input's: XNNPACK's quantized "
		               "operators keep the type");
	if (!per_tensor(x, &s, &zp) || !zp_fits(x->dtype, zp))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "input quantization: XNNPACK takes one scale and a zero point of "
		               "the tensor's type");
	if (!per_tensor(y, &s, &zp) || !zp_fits(y->dtype, zp))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "output quantization: XNNPACK takes one scale and a zero point of "
		               "the tensor's type");
	return QCF_OK;
}

static qcf_status check_conv(qcf_instance *inst, const qcf_op_call *call, conv_geom *g)
{
	memset(g, 0, sizeof *g);
	g->depthwise = op_is(call, "DEPTHWISE_CONV_2D");
	if (call->n_inputs < 2 || call->n_inputs > 3 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "expects input, filter, optional bias");
	const qcf_tensor *x = &call->inputs[0], *f = &call->inputs[1], *y = &call->outputs[0];
	qcf_status st = check_act_tensors(inst, x, y, 0);
	if (st != QCF_OK)
		return st;
	if (f->dtype != QCF_INT8)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "filter dtype %d: XNNPACK's qs8/qc8 convolutions take int8 weights",
		               f->dtype);
	if (x->rank != 4 || f->rank != 4)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "input and filter must be 4-D (NHWC)");
	for (int i = 0; i < 4; i++)
		if (x->shape[i] <= 0 || f->shape[i] <= 0)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "empty input or filter dimension: nothing to hand to XNNPACK");
	g->n = (size_t)x->shape[0];
	g->h = (size_t)x->shape[1];
	g->w = (size_t)x->shape[2];
	g->c = (size_t)x->shape[3];
	g->kh = (size_t)f->shape[1];
	g->kw = (size_t)f->shape[2];
	if (g->depthwise) {
		g->cout = (size_t)f->shape[3];
		if (f->shape[0] != 1 || g->cout % g->c != 0)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "depthwise filter must be [1, kh, kw, C * multiplier] to map "
			        "onto XNNPACK's HWGo layout");
		g->groups = g->c;
		g->gin = 1;
		g->gout = g->cout / g->c;
		double dm;
		int k = qcf_attr_float(call, "depth_multiplier", &dm);
		if (k < 0 || (k == 1 && dm != (double)g->gout))
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "depth_multiplier disagrees with the shapes; XNNPACK takes one "
			        "group_output_channels");
		g->flags |= XNN_FLAG_DEPTHWISE_CONVOLUTION;
	} else {
		g->cout = (size_t)f->shape[0];
		size_t cg = (size_t)f->shape[3];
		if (g->c % cg != 0 || g->cout % (g->c / cg) != 0)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "channels do not split into groups: XNNPACK takes groups x "
			               "group_input_channels");
		g->groups = g->c / cg;
		g->gin = cg;
		g->gout = g->cout / g->groups;
	}
	const qcf_quant *wq = f->quant;
	if (!wq || !wq->scales || !wq->zero_points)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "filter quantization missing");
	if (wq->axis == -1 && wq->count == 1) {
		if (wq->zero_points[0] != 0)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "filter zero point %d: XNNPACK's qs8 convolution has no kernel "
			        "zero point",
			        (int)wq->zero_points[0]);
	} else {
		int axis = g->depthwise ? 3 : 0;
		if (wq->axis != axis || (size_t)wq->count != g->cout)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "per-axis filter scales on dimension %d: XNNPACK's qc8 takes one "
			        "scale per output channel",
			        (int)wq->axis);
		for (int32_t i = 0; i < wq->count; i++)
			if (wq->zero_points[i] != 0)
				return xp_fail(
				        inst, QCF_NOT_SUPPORTED,
				        "filter zero point %d: XNNPACK's qc8 convolution has "
				        "no kernel zero point",
				        (int)wq->zero_points[i]);
	}
	if (call->n_inputs == 3) {
		const qcf_tensor *b = &call->inputs[2];
		if (b->dtype != QCF_INT32 || numel(b) != g->cout)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "bias: XNNPACK reads C_out int32 values, the tensor differs");
	}
	const char *pad = "SAME";
	int k = qcf_attr_str(call, "padding", &pad);
	if (k < 0 || (strcmp(pad, "SAME") != 0 && strcmp(pad, "VALID") != 0))
		return xp_fail(inst, QCF_NOT_SUPPORTED, "padding: the adapter maps SAME and VALID");
	g->same = strcmp(pad, "SAME") == 0;
	if (g->same)
		g->flags |= XNN_FLAG_TENSORFLOW_SAME_PADDING;
	if (!attr_u32(call, "stride_h", 1, &g->sh, inst, &st) ||
	    !attr_u32(call, "stride_w", 1, &g->sw, inst, &st) ||
	    !attr_u32(call, "dilation_h_factor", 1, &g->dh, inst, &st) ||
	    !attr_u32(call, "dilation_w_factor", 1, &g->dw, inst, &st))
		return st;
	return QCF_OK;
}

static qcf_status check_fc(qcf_instance *inst, const qcf_op_call *call, size_t *rows, size_t *depth,
                           size_t *units)
{
	if (call->n_inputs < 2 || call->n_inputs > 3 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "expects input, filter, optional bias");
	const qcf_tensor *x = &call->inputs[0], *f = &call->inputs[1], *y = &call->outputs[0];
	qcf_status st = check_act_tensors(inst, x, y, 1);
	if (st != QCF_OK)
		return st;
	if (f->dtype != x->dtype)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "filter dtype %d: XNNPACK's fully connected takes int8 weights with "
		               "int8 activations, uint8 with uint8",
		               f->dtype);
	if (f->rank != 2 || x->rank < 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "filter must be [units, depth]");
	*units = (size_t)f->shape[0];
	*depth = (size_t)f->shape[1];
	if (*depth == 0 || *units == 0)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "XNNPACK's fully connected needs input and output channels >= 1");
	size_t n = numel(x);
	if (n % *depth != 0)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "input elements are not a multiple of depth: no batch for XNNPACK");
	*rows = n / *depth;
	double keep = 0;
	if (qcf_attr_float(call, "keep_num_dims", &keep) == 1 && keep &&
	    (size_t)x->shape[x->rank - 1] != *depth)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "keep_num_dims with a last dimension other than depth has no "
		               "XNNPACK counterpart");
	if (numel(y) != *rows * *units || y->rank < 1 || (size_t)y->shape[y->rank - 1] != *units)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "output shape is not [..., units] with rows x units elements");
	const qcf_quant *wq = f->quant;
	if (!wq || !wq->scales || !wq->zero_points)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "filter quantization missing");
	if (!(wq->axis == -1 && wq->count == 1) && !(wq->axis == 0 && (size_t)wq->count == *units))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "filter quantization: per tensor or per output unit (axis 0) only");
	if (wq->axis == -1 && !zp_fits(f->dtype, wq->zero_points[0]))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "filter zero point outside the filter's type");
	if (wq->axis != -1 && f->dtype == QCF_UINT8)
		return xp_fail(
		        inst, QCF_NOT_SUPPORTED,
		        "per-channel uint8 weights: XNNPACK has no qu8 per-channel operator");
	if (call->n_inputs == 3) {
		const qcf_tensor *b = &call->inputs[2];
		if (b->dtype != QCF_INT32 || numel(b) != *units)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "bias: XNNPACK reads units int32 values, the tensor differs");
	}
	return QCF_OK;
}

/* numpy broadcast of a and b into out (rank r); 0 if they do not broadcast. */
static int broadcast(const qcf_tensor *a, const qcf_tensor *b, int64_t *out, int32_t *r)
{
	int32_t n = a->rank > b->rank ? a->rank : b->rank;
	for (int32_t i = 0; i < n; i++) {
		int32_t ia = a->rank - n + i, ib = b->rank - n + i;
		int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return 0;
		out[i] = da == 1 ? db : da;
	}
	*r = n;
	return 1;
}

static qcf_status check_binary(qcf_instance *inst, const qcf_op_call *call)
{
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "expects two inputs and one output");
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1], *y = &call->outputs[0];
	qcf_status st = check_act_tensors(inst, a, y, 1);
	if (st != QCF_OK)
		return st;
	if (b->dtype != a->dtype)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "inputs of different dtypes");
	st = check_act_tensors(inst, b, y, 1);
	if (st != QCF_OK)
		return st;
	int64_t bs[QCF_MAX_RANK];
	int32_t r;
	if (broadcast(a, b, bs, &r)) {
		if (r != y->rank || memcmp(bs, y->shape, (size_t)r * sizeof *bs) != 0)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "output shape is not the broadcast shape XNNPACK writes");
		int same = a->rank == b->rank &&
		           memcmp(a->shape, b->shape, (size_t)a->rank * sizeof *a->shape) == 0;
		if (!same && r > XNN_MAX_TENSOR_DIMS)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "broadcast of rank %d: XNNPACK takes at most %d dimensions",
			               (int)r, XNN_MAX_TENSOR_DIMS);
	} else if (a->rank > XNN_MAX_TENSOR_DIMS || b->rank > XNN_MAX_TENSOR_DIMS ||
	           numel(a) > numel(y) || numel(b) > numel(y)) {
		return xp_fail(inst, QCF_NOT_SUPPORTED, "shapes that do not broadcast, rank > %d",
		               XNN_MAX_TENSOR_DIMS);
	}
	/* shapes that do not broadcast go to XNNPACK's setup, which judges them */
	return QCF_OK;
}

static qcf_status check_unary(qcf_instance *inst, const qcf_op_call *call)
{
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "expects one input and one output");
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (numel(x) != numel(y) || x->rank != y->rank ||
	    memcmp(x->shape, y->shape, (size_t)x->rank * sizeof *x->shape) != 0)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "output shape differs from the input's: XNNPACK's element-wise "
		               "operators keep it");
	float s;
	int32_t zp;
	if (op_is(call, "QUANTIZE")) {
		if (x->dtype != QCF_FLOAT32)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "QUANTIZE from dtype %d: XNNPACK converts float32 only "
			               "(no requantization operator)",
			               x->dtype);
		if (y->dtype != QCF_INT8 && y->dtype != QCF_UINT8)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "QUANTIZE to dtype %d: XNNPACK converts to int8/uint8",
			               y->dtype);
		if (!per_tensor(y, &s, &zp) || !zp_fits(y->dtype, zp))
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "per-axis or out-of-type quantization: XNNPACK's convert takes "
			        "one scale and zero point");
		return QCF_OK;
	}
	if (op_is(call, "DEQUANTIZE")) {
		if (x->dtype != QCF_INT8 && x->dtype != QCF_UINT8)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "DEQUANTIZE from dtype %d: XNNPACK converts int8/uint8",
			               x->dtype);
		if (y->dtype != QCF_FLOAT32)
			return xp_fail(inst, QCF_NOT_SUPPORTED, "DEQUANTIZE to float32 only");
		if (!per_tensor(x, &s, &zp) || !zp_fits(x->dtype, zp))
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "per-axis or out-of-type quantization: XNNPACK's convert takes "
			        "one scale and zero point");
		return QCF_OK;
	}
	qcf_status st = check_act_tensors(inst, x, y, 1);
	if (st != QCF_OK)
		return st;
	if (op_is(call, "SOFTMAX")) {
		if (x->rank < 1 || x->shape[x->rank - 1] <= 0)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "SOFTMAX rows of length 0: XNNPACK needs channels >= 1");
		double beta = 1;
		if (qcf_attr_float(call, "beta", &beta) < 0)
			return xp_fail(inst, QCF_NOT_SUPPORTED, "beta is not a number");
	}
	return QCF_OK;
}

static qcf_status check_pool(qcf_instance *inst, const qcf_op_call *call)
{
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "expects one input and one output");
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	qcf_status st = check_act_tensors(inst, x, y, 1);
	if (st != QCF_OK)
		return st;
	if (x->rank != 4 || y->rank != 4)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "pooling takes NHWC tensors");
	const char *pad = "SAME";
	int k = qcf_attr_str(call, "padding", &pad);
	if (k < 0 || (strcmp(pad, "SAME") != 0 && strcmp(pad, "VALID") != 0))
		return xp_fail(inst, QCF_NOT_SUPPORTED, "padding: the adapter maps SAME and VALID");
	uint32_t u;
	if (!attr_u32(call, "stride_h", 1, &u, inst, &st) ||
	    !attr_u32(call, "stride_w", 1, &u, inst, &st) ||
	    !attr_u32(call, "filter_height", 1, &u, inst, &st) ||
	    !attr_u32(call, "filter_width", 1, &u, inst, &st))
		return st;
	uint32_t fh = 1, fw = 1;
	attr_u32(call, "filter_height", 1, &fh, inst, &st);
	attr_u32(call, "filter_width", 1, &fw, inst, &st);
	if (fh == 1 && fw == 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "a 1x1 window: XNNPACK's pooling operators refuse it "
		               "(xnn_status_invalid_parameter), LiteRT copies and clamps");
	return QCF_OK;
}

/* ------------------------------------- standalone activations and data movement */

/* Element i of an int32 or int64 index tensor. */
static int64_t int_at(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT64 ? ((const int64_t *)t->data)[i]
	                             : ((const int32_t *)t->data)[i];
}

static int same_shape(const qcf_tensor *a, const qcf_tensor *b)
{
	return a->rank == b->rank &&
	       (a->rank == 0 ||
	        memcmp(a->shape, b->shape, (size_t)a->rank * sizeof *a->shape) == 0);
}

/* The element size of XNNPACK's x8 / x16 / x32 movers for dtype t, or 0. */
static size_t mover_size(qcf_dtype t)
{
	switch (t) {
	case QCF_BOOL:
	case QCF_INT8:
	case QCF_UINT8: return 1;
	case QCF_INT16:
	case QCF_UINT16:
	case QCF_FLOAT16:
	case QCF_BFLOAT16: return 2;
	case QCF_INT32:
	case QCF_FLOAT32: return 4;
	default: return 0;
	}
}

/* A zero point the pad value can hold (8- and 16-bit integers; others as they are). */
static int zp_in_type(qcf_dtype t, int32_t zp)
{
	switch (t) {
	case QCF_INT8:
	case QCF_UINT8: return zp_fits(t, zp);
	case QCF_INT16: return zp >= -32768 && zp <= 32767;
	case QCF_UINT16: return zp >= 0 && zp <= 65535;
	case QCF_INT32: return 1;
	default: return zp == 0;
	}
}

/* One input, one output of its shape, 8-bit per-tensor quantized (uint8 where allowed). */
static qcf_status check_elementwise(qcf_instance *inst, const qcf_op_call *call, int allow_uint8)
{
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "expects one input and one output");
	if (!same_shape(&call->inputs[0], &call->outputs[0]))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "output shape differs from the input's: XNNPACK's element-wise "
		               "operators keep it");
	return check_act_tensors(inst, &call->inputs[0], &call->outputs[0], allow_uint8);
}

/* RELU, RELU6, RELU_N1_TO_1: XNNPACK's clamp, where LiteRT's requantization is the identity. */
static qcf_status check_relu(qcf_instance *inst, const qcf_op_call *call)
{
	qcf_status st = check_elementwise(inst, call, 1);
	if (st != QCF_OK)
		return st;
	float sx = 0, sy = 0;
	int32_t zx = 0, zy = 0;
	per_tensor(&call->inputs[0], &sx, &zx);
	per_tensor(&call->outputs[0], &sy, &zy);
	if (!(sx > 0 && isfinite(sx)) || sx != sy || zx != zy)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "input and output quantization differ (or the scale is not positive "
		               "and finite): XNNPACK's clamp does not requantize");
	return QCF_OK;
}

/* LEAKY_RELU (qu8, int8 shifted by 128) and ELU (qs8): XNNPACK's 256-entry tables. */
static qcf_status check_lut(qcf_instance *inst, const qcf_op_call *call)
{
	int leaky = op_is(call, "LEAKY_RELU");
	qcf_status st = check_elementwise(inst, call, leaky);
	if (st != QCF_OK)
		return st;
	if (!leaky)
		return QCF_OK;
	double alpha = 0;
	if (qcf_attr_float(call, "alpha", &alpha) < 0)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "alpha is not a number");
	float a = (float)alpha;
	if (!(a > 0 && a <= 1 && isnormal(a)))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "alpha %g: XNNPACK's leaky ReLU takes a normal slope in (0, 1] "
		               "(xnn_status_invalid_parameter otherwise)",
		               alpha);
	return QCF_OK;
}

/* RESHAPE, SQUEEZE, EXPAND_DIMS: a copy, where the output is the shape the op computes. */
static qcf_status check_copy(qcf_instance *inst, const qcf_op_call *call)
{
	if (call->n_inputs < 1 || call->n_inputs > 2 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "expects the data, an optional shape input "
		               "and one output");
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (y->dtype != x->dtype || !mover_size(x->dtype))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "dtypes %s -> %s: XNNPACK's copy moves 8-, 16- and 32-bit elements "
		               "of one type",
		               qcf_dtype_name(x->dtype), qcf_dtype_name(y->dtype));
	const char *why = NULL;
	if (numel(x) != numel(y)) {
		why = "element counts differ";
	} else if (op_is(call, "RESHAPE") && call->n_inputs == 2) {
		const qcf_tensor *t = &call->inputs[1];
		int holes = 0;
		if (t->dtype != QCF_INT32 || t->rank > 1 || (int64_t)numel(t) != y->rank)
			why = "the shape tensor is not int32 with one entry per output dimension";
		for (size_t i = 0; !why && i < numel(t); i++) {
			int64_t v = int_at(t, i);
			if (v == -1)
				holes++;
			else if (v != y->shape[i])
				why = "the shape tensor names another shape than the output's";
		}
		if (!why && holes > 1)
			why = "the shape tensor has more than one -1";
	} else if (op_is(call, "SQUEEZE")) {
		int64_t dims[QCF_MAX_RANK], want[QCF_MAX_RANK];
		int32_t nd = 0, r = 0;
		int drop[QCF_MAX_RANK] = {0};
		if (qcf_attr_ints(call, "squeeze_dims", dims, QCF_MAX_RANK, &nd) < 0)
			why = "squeeze_dims is not a list of integers";
		for (int32_t i = 0; !why && i < nd; i++) {
			int64_t d = dims[i] < 0 ? dims[i] + x->rank : dims[i];
			if (d < 0 || d >= x->rank || x->shape[d] != 1)
				why = "a squeeze_dims entry out of range or of a size other than 1";
			else
				drop[d] = 1;
		}
		for (int32_t i = 0; !why && i < x->rank; i++)
			if (!(nd == 0 ? x->shape[i] == 1 : drop[i]))
				want[r++] = x->shape[i];
		if (!why &&
		    (r != y->rank || (r && memcmp(want, y->shape, (size_t)r * sizeof *want))))
			why = "the output is not the input without the squeezed dimensions";
	} else if (op_is(call, "EXPAND_DIMS")) {
		const qcf_tensor *t = call->n_inputs == 2 ? &call->inputs[1] : NULL;
		if (!t || (t->dtype != QCF_INT32 && t->dtype != QCF_INT64) || numel(t) != 1) {
			why = "axis is not one int32 or int64 value";
		} else {
			int64_t a = int_at(t, 0);
			a = a < 0 ? a + x->rank + 1 : a;
			if (a < 0 || a > x->rank || y->rank != x->rank + 1 || y->shape[a] != 1)
				why = "the output is not the input with a 1 at axis";
			for (int32_t i = 0; !why && i < x->rank; i++)
				if (x->shape[i] != y->shape[i < a ? i : i + 1])
					why = "the output is not the input with a 1 at axis";
		}
		/* LiteRT copies RESHAPE and SQUEEZE raw whatever the parameters; EXPAND_DIMS
		 * requires them equal, and a raw copy cannot tell */
		float sx, sy;
		int32_t zx, zy;
		if (!why && (!x->quant != !y->quant ||
		             (x->quant && (!per_tensor(x, &sx, &zx) || !per_tensor(y, &sy, &zy) ||
		                           sx != sy || zx != zy))))
			why = "input and output quantization differ (XNNPACK's copy moves raw "
			      "values)";
	}
	if (why)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "%s: the adapter maps %s onto XNNPACK's copy, which takes no shape, "
		               "only where the output is the shape the op computes",
		               why, call->op);
	return QCF_OK;
}

/* PAD, PADV2: XNNPACK's constant pad of up to XNN_MAX_TENSOR_DIMS dimensions. */
static qcf_status check_pad(qcf_instance *inst, const qcf_op_call *call)
{
	int v2 = op_is(call, "PADV2");
	if (call->n_inputs < 2 || call->n_inputs > (v2 ? 3 : 2) || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "expects the data, paddings%s and one output",
		               v2 ? ", an optional constant" : "");
	const qcf_tensor *x = &call->inputs[0], *t = &call->inputs[1], *y = &call->outputs[0];
	if (y->dtype != x->dtype || !mover_size(x->dtype))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "dtypes %s -> %s: XNNPACK's constant pad moves 8-, 16- and 32-bit "
		               "elements of one type",
		               qcf_dtype_name(x->dtype), qcf_dtype_name(y->dtype));
	if (x->rank > XNN_MAX_TENSOR_DIMS || y->rank != x->rank)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "rank %d: XNNPACK's constant pad takes at most %d dimensions, the "
		               "output the input's",
		               (int)x->rank, XNN_MAX_TENSOR_DIMS);
	if ((t->dtype != QCF_INT32 && t->dtype != QCF_INT64) || t->rank != 2 ||
	    t->shape[0] != x->rank || t->shape[1] != 2)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "paddings are not [rank, 2] int32 or int64");
	for (int32_t i = 0; i < x->rank; i++) {
		int64_t pre = int_at(t, 2 * (size_t)i), post = int_at(t, 2 * (size_t)i + 1);
		if (pre < 0 || post < 0)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "negative paddings: XNNPACK's constant pad takes sizes");
		if (x->shape[i] + pre + post != y->shape[i])
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "the output shape is not the padded input's");
		if (x->shape[i] == 0)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "an empty input dimension: XNNPACK's constant pad refuses it "
			        "(xnn_status_invalid_parameter)");
	}
	float s, sc;
	int32_t zp, zc;
	if (y->quant && (!per_tensor(y, &s, &zp) || !zp_in_type(y->dtype, zp)))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "output quantization: the pad value is one zero point of the type");
	if (v2 && call->n_inputs == 3) {
		const qcf_tensor *c = &call->inputs[2];
		if (c->dtype != x->dtype || numel(c) != 1)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "constant_values is not one value of the input's type");
		if (!y->quant != !c->quant ||
		    (y->quant &&
		     (!per_tensor(y, &s, &zp) || !per_tensor(c, &sc, &zc) || s != sc || zp != zc)))
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "constant_values quantized otherwise than the output: XNNPACK's "
			        "constant pad writes one raw value");
	}
	return QCF_OK;
}

/* RESIZE_BILINEAR: XNNPACK's s8 / u8 resize (Q11 weights). */
static qcf_status check_resize(qcf_instance *inst, const qcf_op_call *call)
{
	if (call->n_inputs < 1 || call->n_inputs > 2 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "expects the image, size and one output");
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if ((x->dtype != QCF_INT8 && x->dtype != QCF_UINT8) || y->dtype != x->dtype)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "dtypes %s -> %s: XNNPACK's 8-bit resize takes int8 or uint8 to the "
		               "same type",
		               qcf_dtype_name(x->dtype), qcf_dtype_name(y->dtype));
	if (x->rank != 4 || y->rank != 4 || y->shape[0] != x->shape[0] ||
	    y->shape[3] != x->shape[3])
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "not [N, H, W, C] to [N, OH, OW, C]: XNNPACK resizes NHWC images");
	if (call->n_inputs == 2) {
		const qcf_tensor *t = &call->inputs[1];
		if (t->dtype != QCF_INT32 || numel(t) != 2 || int_at(t, 0) != y->shape[1] ||
		    int_at(t, 1) != y->shape[2])
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "size is not the output's [OH, OW] as int32");
	}
	for (int i = 1; i < 3; i++)
		if (x->shape[i] < 1 || y->shape[i] < 1 || x->shape[i] >= (1 << 24) ||
		    y->shape[i] >= (1 << 24))
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "image sizes outside [1, 2^24): XNNPACK refuses them");
	if (x->shape[3] < 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "no channels: XNNPACK needs channels >= 1");
	int64_t ac = 0, hp = 0;
	if (qcf_attr_int(call, "align_corners", &ac) < 0 ||
	    qcf_attr_int(call, "half_pixel_centers", &hp) < 0)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "align_corners / half_pixel_centers are not integers");
	if (ac && hp)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "align_corners with half_pixel_centers: XNNPACK has no such mode");
	return QCF_OK;
}

/* MEAN over one contiguous block of axes: XNNPACK's global average pooling on [B, W, C]. */
static qcf_status check_mean(qcf_instance *inst, const qcf_op_call *call, size_t *b, size_t *w,
                             size_t *c)
{
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "expects the data, axis and one output");
	const qcf_tensor *x = &call->inputs[0], *t = &call->inputs[1], *y = &call->outputs[0];
	qcf_status st = check_act_tensors(inst, x, y, 1);
	if (st != QCF_OK)
		return st;
	if (t->dtype != QCF_INT32 || t->rank > 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "axis is not a 0-D or 1-D int32 tensor");
	int red[QCF_MAX_RANK] = {0};
	for (size_t i = 0; i < numel(t); i++) {
		int64_t a = int_at(t, i);
		a = a < 0 ? a + x->rank : a;
		if (a < 0 || a >= x->rank)
			return xp_fail(inst, QCF_NOT_SUPPORTED, "an axis out of range");
		red[a] = 1;
	}
	int64_t keep = 0, want[QCF_MAX_RANK];
	int32_t r = 0;
	if (qcf_attr_int(call, "keep_dims", &keep) < 0)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "keep_dims is not an integer");
	for (int32_t i = 0; i < x->rank; i++)
		if (!red[i] || keep)
			want[r++] = red[i] ? 1 : x->shape[i];
	if (r != y->rank || (r && memcmp(want, y->shape, (size_t)r * sizeof *want) != 0))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "the output shape is not the reduced input's");
	if (numel(x) == 0)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "an empty input: XNNPACK's global average pooling needs width >= 1");
	/* dimensions of size 1 may sit anywhere; the others must read kept, reduced, kept */
	int phase = 0;
	*b = *w = *c = 1;
	for (int32_t i = 0; i < x->rank; i++) {
		size_t d = (size_t)x->shape[i];
		if (d == 1)
			continue;
		if (red[i]) {
			if (phase == 2)
				return xp_fail(inst, QCF_NOT_SUPPORTED,
				               "the reduced axes are not one contiguous block: "
				               "XNNPACK's global average pooling reduces [B, W, C] "
				               "over W");
			phase = 1;
			*w *= d;
		} else if (phase == 0) {
			*b *= d;
		} else {
			phase = 2;
			*c *= d;
		}
	}
	float sx = 0, sy = 0;
	int32_t zx, zy;
	per_tensor(x, &sx, &zx);
	per_tensor(y, &sy, &zy);
	if (sx > 0 && isnormal(sx) && sy > 0 && isnormal(sy) &&
	    !(sx / (sy * (float)*w) >= 0x1.0p-32f))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "s_in / (s_out * %zu) below 2^-32: XNNPACK asserts against it "
		               "(xnn_update_qs8_avgpool_minmax_fp32_*_params)",
		               *w);
	return QCF_OK;
}

typedef struct tconv_geom {
	size_t n, h, w, cin, cout, kh, kw;
	uint32_t sh, sw, pt, pb, pl, pr, adj_h, adj_w;
} tconv_geom;

/*
 * One dimension of TRANSPOSE_CONV: LiteRT's padding.h on the output (ComputeOutSize must give
 * the input size back), then XNNPACK's padding, or its adjustment where the total is negative.
 */
static const char *tconv_dim(size_t in, size_t out, size_t k, uint32_t s, int same,
                             uint32_t *before, uint32_t *after, uint32_t *adj)
{
	int64_t back = same ? ((int64_t)out + s - 1) / s : ((int64_t)out + s - (int64_t)k) / s;
	if (!same && (int64_t)out + s < (int64_t)k)
		back = -1;
	if (back != (int64_t)in)
		return "padding.h does not give the input size back from the output's: no "
		       "XNNPACK geometry";
	int64_t total = ((int64_t)in - 1) * s + (int64_t)k - (int64_t)out;
	*before = *after = *adj = 0;
	if (total >= 0) {
		*before = (uint32_t)(total / 2);
		*after = (uint32_t)(total - total / 2);
	} else if (-total < s) {
		*adj = (uint32_t)-total;
	} else {
		return "an output beyond XNNPACK's adjustment (below the stride)";
	}
	return NULL;
}

/* TRANSPOSE_CONV: XNNPACK's qs8 deconvolution (per-tensor int8 weights, zero point 0). */
static qcf_status check_tconv(qcf_instance *inst, const qcf_op_call *call, tconv_geom *g)
{
	memset(g, 0, sizeof *g);
	if (call->n_inputs < 3 || call->n_inputs > 4 || call->n_outputs != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "expects output_shape, weights, input, optional bias");
	const qcf_tensor *os = &call->inputs[0], *f = &call->inputs[1], *x = &call->inputs[2],
	                 *y = &call->outputs[0];
	qcf_status st = check_act_tensors(inst, x, y, 0);
	if (st != QCF_OK)
		return st;
	if (f->dtype != QCF_INT8 || f->rank != 4 || x->rank != 4 || y->rank != 4)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "weights int8 [C_out, kh, kw, C_in], input and output 4-D");
	for (int i = 0; i < 4; i++)
		if (x->shape[i] <= 0 || f->shape[i] <= 0 || y->shape[i] <= 0)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "an empty dimension: nothing to hand to XNNPACK");
	if (os->dtype != QCF_INT32 || numel(os) != 4)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "output_shape is not four int32 values");
	for (int i = 0; i < 4; i++)
		if (int_at(os, (size_t)i) != y->shape[i])
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "output_shape is not the output's shape");
	if (y->shape[0] != x->shape[0] || y->shape[3] != f->shape[0] || x->shape[3] != f->shape[3])
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "batch or channels disagree between input, weights and output");
	const qcf_quant *wq = f->quant;
	if (!wq || !wq->scales || !wq->zero_points)
		return xp_fail(inst, QCF_NOT_SUPPORTED, "weight quantization missing");
	if (wq->axis != -1 || wq->count != 1)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "per-channel weights: this XNNPACK has no qc8 deconvolution, only "
		               "qs8 (one kernel scale)");
	if (wq->zero_points[0] != 0)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "weight zero point %d: XNNPACK's qs8 deconvolution has none",
		               (int)wq->zero_points[0]);
	g->n = (size_t)x->shape[0];
	g->h = (size_t)x->shape[1];
	g->w = (size_t)x->shape[2];
	g->cin = (size_t)x->shape[3];
	g->cout = (size_t)f->shape[0];
	g->kh = (size_t)f->shape[1];
	g->kw = (size_t)f->shape[2];
	if (call->n_inputs == 4) {
		const qcf_tensor *b = &call->inputs[3];
		if (b->dtype != QCF_INT32 || numel(b) != g->cout)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "bias: XNNPACK reads C_out int32 values, the tensor differs");
	}
	const char *pad = "SAME";
	int k = qcf_attr_str(call, "padding", &pad);
	if (k < 0 || (strcmp(pad, "SAME") != 0 && strcmp(pad, "VALID") != 0))
		return xp_fail(inst, QCF_NOT_SUPPORTED, "padding: the adapter maps SAME and VALID");
	int same = strcmp(pad, "SAME") == 0;
	if (!attr_u32(call, "stride_h", 1, &g->sh, inst, &st) ||
	    !attr_u32(call, "stride_w", 1, &g->sw, inst, &st))
		return st;
	if (g->sh && g->sw) { /* zero strides go to XNNPACK, which refuses them */
		const char *why = tconv_dim(g->h, (size_t)y->shape[1], g->kh, g->sh, same, &g->pt,
		                            &g->pb, &g->adj_h);
		if (!why)
			why = tconv_dim(g->w, (size_t)y->shape[2], g->kw, g->sw, same, &g->pl,
			                &g->pr, &g->adj_w);
		if (why)
			return xp_fail(inst, QCF_NOT_SUPPORTED, "%s", why);
	}
	float sx = 0, sy = 0, sw = wq->scales[0];
	int32_t zx, zy;
	per_tensor(x, &sx, &zx);
	per_tensor(y, &sy, &zy);
	if (sx > 0 && isnormal(sx) && sw > 0 && isnormal(sw) && sy > 0 && isnormal(sy) &&
	    !(sx * sw / sy >= 0x1.0p-32f))
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "requantization scale s_in * s_w / s_out below 2^-32: XNNPACK "
		               "asserts against it (xnn_init_qs8_conv_minmax_fp32_*_params)");
	return QCF_OK;
}

/* --------------------------------------------------------------- plugin */

static qcf_status xp_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                            char *msg, size_t msg_size)
{
	int explicit_same = 0;
	for (int32_t i = 0; i < n_options; i++) {
		const char *k = options[i].key, *v = options[i].value;
		if (k && strcmp(k, "same_padding") == 0 && v && strcmp(v, "explicit") == 0) {
			explicit_same = 1;
		} else if (k && strcmp(k, "same_padding") == 0 && v && strcmp(v, "flag") == 0) {
			explicit_same = 0;
		} else {
			snprintf(msg, msg_size,
			         "unknown option %s=%s (known: same_padding=flag|explicit)",
			         k ? k : "?", v ? v : "?");
			return QCF_ERROR;
		}
	}
	enum xnn_status s = xnn_initialize(NULL);
	if (s != xnn_status_success) {
		snprintf(msg, msg_size, "xnn_initialize returned %s", xnn_status_name(s));
		return QCF_ERROR;
	}
	*out = calloc(1, sizeof **out);
	if (!*out) {
		snprintf(msg, msg_size, "out of memory");
		return QCF_ERROR;
	}
	(*out)->explicit_same = explicit_same;
	return QCF_OK;
}

static void xp_destroy(qcf_instance *inst)
{
	free(inst);
	xnn_deinitialize();
}

static const char *xp_last_error(qcf_instance *inst)
{
	return inst->err;
}

static qcf_status xp_supports(qcf_instance *inst, const qcf_op_call *call)
{
	inst->err[0] = '\0';
	if (!call->semantics || strcmp(call->semantics, "litert") != 0 || !call->op)
		return xp_fail(inst, QCF_NOT_SUPPORTED,
		               "the XNNPACK adapter implements LiteRT semantics only");
	for (int32_t i = 0; i < call->n_inputs; i++)
		if (!tensor_ok(&call->inputs[i]))
			return xp_fail(inst, QCF_NOT_SUPPORTED, "input %d is malformed", (int)i);
	for (int32_t i = 0; i < call->n_outputs; i++)
		if (!tensor_ok(&call->outputs[i]))
			return xp_fail(inst, QCF_NOT_SUPPORTED, "output %d is malformed", (int)i);
	if (op_is(call, "CONV_2D") || op_is(call, "DEPTHWISE_CONV_2D")) {
		conv_geom g;
		return check_conv(inst, call, &g);
	}
	if (op_is(call, "FULLY_CONNECTED")) {
		size_t r, d, u;
		return check_fc(inst, call, &r, &d, &u);
	}
	if (op_is(call, "ADD") || op_is(call, "SUB") || op_is(call, "MUL"))
		return check_binary(inst, call);
	if (op_is(call, "LOGISTIC") || op_is(call, "TANH") || op_is(call, "SOFTMAX") ||
	    op_is(call, "QUANTIZE") || op_is(call, "DEQUANTIZE"))
		return check_unary(inst, call);
	if (op_is(call, "AVERAGE_POOL_2D") || op_is(call, "MAX_POOL_2D"))
		return check_pool(inst, call);
	if (op_is(call, "RELU") || op_is(call, "RELU6") || op_is(call, "RELU_N1_TO_1"))
		return check_relu(inst, call);
	if (op_is(call, "LEAKY_RELU") || op_is(call, "ELU"))
		return check_lut(inst, call);
	if (op_is(call, "RESHAPE") || op_is(call, "SQUEEZE") || op_is(call, "EXPAND_DIMS"))
		return check_copy(inst, call);
	if (op_is(call, "PAD") || op_is(call, "PADV2"))
		return check_pad(inst, call);
	if (op_is(call, "RESIZE_BILINEAR"))
		return check_resize(inst, call);
	if (op_is(call, "MEAN")) {
		size_t b, w, c;
		return check_mean(inst, call, &b, &w, &c);
	}
	if (op_is(call, "TRANSPOSE_CONV")) {
		tconv_geom g;
		return check_tconv(inst, call, &g);
	}
	return xp_fail(inst, QCF_NOT_SUPPORTED, "XNNPACK has no operator mapped for litert/%s",
	               call->op);
}

static void xp_release(qcf_instance *inst, qcf_prepared *p)
{
	(void)inst;
	if (!p)
		return;
	if (p->op)
		xnn_delete_operator(p->op);
	free(p->in[0]);
	free(p->in[1]);
	free(p->out);
	free(p);
}

/* Owned, padded input copies and the output buffer. */
static qcf_status alloc_buffers(qcf_instance *inst, qcf_prepared *p, const qcf_op_call *call,
                                int n_in, int flip_in, int flip_out)
{
	p->n_in = n_in;
	p->flip_in = flip_in;
	p->flip_out = flip_out;
	for (int i = 0; i < n_in; i++) {
		const qcf_tensor *t = &call->inputs[p->src + i];
		p->in_bytes[i] = qcf_dtype_nbytes(t->dtype, numel(t));
		p->in[i] = calloc(1, p->in_bytes[i] + XNN_EXTRA_BYTES);
		if (!p->in[i])
			return xp_fail(inst, QCF_ERROR, "out of memory");
	}
	const qcf_tensor *y = &call->outputs[0];
	p->out_bytes = qcf_dtype_nbytes(y->dtype, numel(y));
	p->out = calloc(1, p->out_bytes + XNN_EXTRA_BYTES);
	if (!p->out)
		return xp_fail(inst, QCF_ERROR, "out of memory");
	return QCF_OK;
}

static uint8_t clampu8(int32_t v)
{
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static qcf_status prep_conv(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	conv_geom g;
	qcf_status st = check_conv(inst, call, &g);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *f = &call->inputs[1], *y = &call->outputs[0];
	g.oh = out_dim(g.h, g.kh, g.dh ? g.dh : 1, g.sh ? g.sh : 1, g.same);
	g.ow = out_dim(g.w, g.kw, g.dw ? g.dw : 1, g.sw ? g.sw : 1, g.same);
	if (g.sh && g.sw && g.dh && g.dw &&
	    ((size_t)y->shape[0] != g.n || (size_t)y->shape[1] != g.oh ||
	     (size_t)y->shape[2] != g.ow || (size_t)y->shape[3] != g.cout))
		return xp_fail(
		        inst, QCF_NOT_SUPPORTED,
		        "output shape [%lld, %lld, %lld, %lld] differs from the [%zu, %zu, %zu, "
		        "%zu] XNNPACK computes",
		        (long long)y->shape[0], (long long)y->shape[1], (long long)y->shape[2],
		        (long long)y->shape[3], g.n, g.oh, g.ow, g.cout);
	float s_in = 0, s_out = 0;
	int32_t zp_in = 0, zp_out = 0, lo = 0, hi = 0;
	per_tensor(x, &s_in, &zp_in);
	per_tensor(y, &s_out, &zp_out);
	if (!act_range(call, s_out, zp_out, -128, 127, &lo, &hi, inst, &st))
		return st;
	uint32_t pt = 0, pr = 0, pb = 0, pl = 0;
	if (g.same && inst->explicit_same && g.sh && g.sw && g.dh && g.dw) {
		g.flags &= ~(uint32_t)XNN_FLAG_TENSORFLOW_SAME_PADDING;
		same_pads(g.h, g.kh, g.dh, g.sh, &pt, &pb);
		same_pads(g.w, g.kw, g.dw, g.sw, &pl, &pr);
	}
	const int32_t *bias = call->n_inputs == 3 ? (const int32_t *)call->inputs[2].data : NULL;
	enum xnn_status s;
	const char *fn;
	if (f->quant->axis == -1) {
		fn = "xnn_create_convolution2d_nhwc_qs8";
		s = xnn_create_convolution2d_nhwc_qs8(
		        pt, pr, pb, pl, (uint32_t)g.kh, (uint32_t)g.kw, g.sh, g.sw, g.dh, g.dw,
		        (uint32_t)g.groups, g.gin, g.gout, g.c, g.cout, (int8_t)zp_in, s_in,
		        f->quant->scales[0], (const int8_t *)f->data, bias, (int8_t)zp_out, s_out,
		        (int8_t)lo, (int8_t)hi, g.flags, &p->op);
	} else {
		fn = "xnn_create_convolution2d_nhwc_qc8";
		s = xnn_create_convolution2d_nhwc_qc8(
		        pt, pr, pb, pl, (uint32_t)g.kh, (uint32_t)g.kw, g.sh, g.sw, g.dh, g.dw,
		        (uint32_t)g.groups, g.gin, g.gout, g.c, g.cout, (int8_t)zp_in, s_in,
		        f->quant->scales, (const int8_t *)f->data, bias, (int8_t)zp_out, s_out,
		        (int8_t)lo, (int8_t)hi, g.flags, &p->op);
	}
	if ((st = xp_status(inst, s, fn)) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
		return st;
	if (f->quant->axis == -1) {
		fn = "xnn_setup_convolution2d_nhwc_qs8";
		s = xnn_setup_convolution2d_nhwc_qs8(p->op, g.n, g.h, g.w, p->in[0], p->out, NULL);
	} else {
		fn = "xnn_setup_convolution2d_nhwc_qc8";
		s = xnn_setup_convolution2d_nhwc_qc8(p->op, g.n, g.h, g.w, p->in[0], p->out, NULL);
	}
	return xp_status(inst, s, fn);
}

static qcf_status prep_fc(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	size_t rows, depth, units;
	qcf_status st = check_fc(inst, call, &rows, &depth, &units);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *f = &call->inputs[1], *y = &call->outputs[0];
	float s_in = 0, s_out = 0;
	int32_t zp_in = 0, zp_out = 0, lo = 0, hi = 0;
	per_tensor(x, &s_in, &zp_in);
	per_tensor(y, &s_out, &zp_out);
	int u8 = x->dtype == QCF_UINT8;
	if (!act_range(call, s_out, zp_out, u8 ? 0 : -128, u8 ? 255 : 127, &lo, &hi, inst, &st))
		return st;
	const int32_t *bias = call->n_inputs == 3 ? (const int32_t *)call->inputs[2].data : NULL;
	const qcf_quant *wq = f->quant;
	enum xnn_status s;
	const char *fn;
	if (u8) {
		fn = "xnn_create_fully_connected_nc_qu8";
		s = xnn_create_fully_connected_nc_qu8(
		        depth, units, depth, units, (uint8_t)zp_in, s_in,
		        (uint8_t)wq->zero_points[0], wq->scales[0], (const uint8_t *)f->data, bias,
		        (uint8_t)zp_out, s_out, (uint8_t)lo, (uint8_t)hi, 0, &p->op);
		if ((st = xp_status(inst, s, fn)) != QCF_OK)
			return st;
		if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
			return st;
		s = xnn_setup_fully_connected_nc_qu8(p->op, rows, p->in[0], p->out, NULL);
		return xp_status(inst, s, "xnn_setup_fully_connected_nc_qu8");
	}
	if (wq->axis == 0) {
		/* per output unit: a 1x1 qc8 convolution over rows one-pixel images (LiteRT
		 * ignores per-channel weight zero points; qc8 has none) */
		fn = "xnn_create_convolution2d_nhwc_qc8";
		s = xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, depth, units,
		                                      depth, units, (int8_t)zp_in, s_in, wq->scales,
		                                      (const int8_t *)f->data, bias, (int8_t)zp_out,
		                                      s_out, (int8_t)lo, (int8_t)hi, 0, &p->op);
		if ((st = xp_status(inst, s, fn)) != QCF_OK)
			return st;
		if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
			return st;
		s = xnn_setup_convolution2d_nhwc_qc8(p->op, rows, 1, 1, p->in[0], p->out, NULL);
		return xp_status(inst, s, "xnn_setup_convolution2d_nhwc_qc8");
	}
	if (wq->zero_points[0] == 0) {
		fn = "xnn_create_fully_connected_nc_qs8";
		s = xnn_create_fully_connected_nc_qs8(depth, units, depth, units, (int8_t)zp_in,
		                                      s_in, wq->scales[0], (const int8_t *)f->data,
		                                      bias, (int8_t)zp_out, s_out, (int8_t)lo,
		                                      (int8_t)hi, 0, &p->op);
		if ((st = xp_status(inst, s, fn)) != QCF_OK)
			return st;
		if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
			return st;
		s = xnn_setup_fully_connected_nc_qs8(p->op, rows, p->in[0], p->out, NULL);
		return xp_status(inst, s, "xnn_setup_fully_connected_nc_qs8");
	}
	/* a weight zero point: XNNPACK's qu8 fully connected, everything shifted by 128 */
	size_t nw = units * depth;
	uint8_t *wu = malloc(nw ? nw : 1);
	if (!wu)
		return xp_fail(inst, QCF_ERROR, "out of memory");
	for (size_t i = 0; i < nw; i++)
		wu[i] = (uint8_t)(((const int8_t *)f->data)[i] ^ 0x80);
	fn = "xnn_create_fully_connected_nc_qu8";
	s = xnn_create_fully_connected_nc_qu8(depth, units, depth, units, (uint8_t)(zp_in + 128),
	                                      s_in, (uint8_t)(wq->zero_points[0] + 128),
	                                      wq->scales[0], wu, bias, (uint8_t)(zp_out + 128),
	                                      s_out, (uint8_t)(lo + 128), (uint8_t)(hi + 128), 0,
	                                      &p->op);
	free(wu);
	if ((st = xp_status(inst, s, fn)) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, 1, 1)) != QCF_OK)
		return st;
	s = xnn_setup_fully_connected_nc_qu8(p->op, rows, p->in[0], p->out, NULL);
	return xp_status(inst, s, "xnn_setup_fully_connected_nc_qu8");
}

static qcf_status prep_binary(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	qcf_status st = check_binary(inst, call);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1], *y = &call->outputs[0];
	float sa = 0, sb = 0, sy = 0;
	int32_t za = 0, zb = 0, zy = 0, lo = 0, hi = 0;
	per_tensor(a, &sa, &za);
	per_tensor(b, &sb, &zb);
	per_tensor(y, &sy, &zy);
	int u8 = a->dtype == QCF_UINT8;
	if (!act_range(call, sy, zy, u8 ? 0 : -128, u8 ? 255 : 127, &lo, &hi, inst, &st))
		return st;
	enum xnn_status s;
	const char *fn;
	int kind = op_is(call, "ADD") ? 0 : op_is(call, "SUB") ? 1 : 2;
	if (!u8) {
		static const char *names[] = {"xnn_create_add_nd_qs8", "xnn_create_subtract_nd_qs8",
		                              "xnn_create_multiply_nd_qs8"};
		fn = names[kind];
		if (kind == 0)
			s = xnn_create_add_nd_qs8((int8_t)za, sa, (int8_t)zb, sb, (int8_t)zy, sy,
			                          (int8_t)lo, (int8_t)hi, 0, &p->op);
		else if (kind == 1)
			s = xnn_create_subtract_nd_qs8((int8_t)za, sa, (int8_t)zb, sb, (int8_t)zy,
			                               sy, (int8_t)lo, (int8_t)hi, 0, &p->op);
		else
			s = xnn_create_multiply_nd_qs8((int8_t)za, sa, (int8_t)zb, sb, (int8_t)zy,
			                               sy, (int8_t)lo, (int8_t)hi, 0, &p->op);
	} else {
		static const char *names[] = {"xnn_create_add_nd_qu8", "xnn_create_subtract_nd_qu8",
		                              "xnn_create_multiply_nd_qu8"};
		fn = names[kind];
		if (kind == 0)
			s = xnn_create_add_nd_qu8((uint8_t)za, sa, (uint8_t)zb, sb, (uint8_t)zy, sy,
			                          (uint8_t)lo, (uint8_t)hi, 0, &p->op);
		else if (kind == 1)
			s = xnn_create_subtract_nd_qu8((uint8_t)za, sa, (uint8_t)zb, sb,
			                               (uint8_t)zy, sy, (uint8_t)lo, (uint8_t)hi, 0,
			                               &p->op);
		else
			s = xnn_create_multiply_nd_qu8((uint8_t)za, sa, (uint8_t)zb, sb,
			                               (uint8_t)zy, sy, (uint8_t)lo, (uint8_t)hi, 0,
			                               &p->op);
	}
	if ((st = xp_status(inst, s, fn)) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 2, 0, 0)) != QCF_OK)
		return st;
	size_t sha[QCF_MAX_RANK], shb[QCF_MAX_RANK], ra, rb;
	int same = a->rank == b->rank &&
	           memcmp(a->shape, b->shape, (size_t)a->rank * sizeof *a->shape) == 0;
	if (same && a->rank > XNN_MAX_TENSOR_DIMS) {
		/* equal shapes: element-wise on the flat data */
		ra = rb = 1;
		sha[0] = shb[0] = numel(a);
	} else {
		ra = (size_t)a->rank;
		rb = (size_t)b->rank;
		for (size_t i = 0; i < ra; i++)
			sha[i] = (size_t)a->shape[i];
		for (size_t i = 0; i < rb; i++)
			shb[i] = (size_t)b->shape[i];
	}
	static const char *setups[2][3] = {
	        {"xnn_setup_add_nd_qs8", "xnn_setup_subtract_nd_qs8", "xnn_setup_multiply_nd_qs8"},
	        {"xnn_setup_add_nd_qu8", "xnn_setup_subtract_nd_qu8", "xnn_setup_multiply_nd_qu8"}};
	fn = setups[u8][kind];
	if (!u8) {
		if (kind == 0)
			s = xnn_setup_add_nd_qs8(p->op, ra, sha, rb, shb, p->in[0], p->in[1],
			                         p->out, NULL);
		else if (kind == 1)
			s = xnn_setup_subtract_nd_qs8(p->op, ra, sha, rb, shb, p->in[0], p->in[1],
			                              p->out, NULL);
		else
			s = xnn_setup_multiply_nd_qs8(p->op, ra, sha, rb, shb, p->in[0], p->in[1],
			                              p->out, NULL);
	} else {
		if (kind == 0)
			s = xnn_setup_add_nd_qu8(p->op, ra, sha, rb, shb, p->in[0], p->in[1],
			                         p->out, NULL);
		else if (kind == 1)
			s = xnn_setup_subtract_nd_qu8(p->op, ra, sha, rb, shb, p->in[0], p->in[1],
			                              p->out, NULL);
		else
			s = xnn_setup_multiply_nd_qu8(p->op, ra, sha, rb, shb, p->in[0], p->in[1],
			                              p->out, NULL);
	}
	return xp_status(inst, s, fn);
}

static qcf_status prep_unary(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	qcf_status st = check_unary(inst, call);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	size_t n = numel(x);
	float sx = 0, sy = 0;
	int32_t zx = 0, zy = 0;
	enum xnn_status s;
	const char *fn, *sfn;
	if (op_is(call, "QUANTIZE")) {
		per_tensor(y, &sy, &zy);
		if (y->dtype == QCF_INT8) {
			fn = "xnn_create_convert_nc_f32_qs8";
			s = xnn_create_convert_nc_f32_qs8(1, 1, 1, sy, (int8_t)zy, -128, 127, 0,
			                                  &p->op);
		} else {
			fn = "xnn_create_convert_nc_f32_qu8";
			s = xnn_create_convert_nc_f32_qu8(1, 1, 1, sy, (uint8_t)zy, 0, 255, 0,
			                                  &p->op);
		}
		if ((st = xp_status(inst, s, fn)) != QCF_OK)
			return st;
		if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
			return st;
		if (y->dtype == QCF_INT8) {
			sfn = "xnn_setup_convert_nc_f32_qs8";
			s = xnn_setup_convert_nc_f32_qs8(p->op, n, p->in[0], p->out, NULL);
		} else {
			sfn = "xnn_setup_convert_nc_f32_qu8";
			s = xnn_setup_convert_nc_f32_qu8(p->op, n, p->in[0], p->out, NULL);
		}
		return xp_status(inst, s, sfn);
	}
	if (op_is(call, "DEQUANTIZE")) {
		per_tensor(x, &sx, &zx);
		if (x->dtype == QCF_INT8) {
			fn = "xnn_create_convert_nc_qs8_f32";
			s = xnn_create_convert_nc_qs8_f32(1, 1, 1, sx, (int8_t)zx, 0, &p->op);
		} else {
			fn = "xnn_create_convert_nc_qu8_f32";
			s = xnn_create_convert_nc_qu8_f32(1, 1, 1, sx, (uint8_t)zx, 0, &p->op);
		}
		if ((st = xp_status(inst, s, fn)) != QCF_OK)
			return st;
		if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
			return st;
		if (x->dtype == QCF_INT8) {
			sfn = "xnn_setup_convert_nc_qs8_f32";
			s = xnn_setup_convert_nc_qs8_f32(p->op, n, p->in[0], p->out, NULL);
		} else {
			sfn = "xnn_setup_convert_nc_qu8_f32";
			s = xnn_setup_convert_nc_qu8_f32(p->op, n, p->in[0], p->out, NULL);
		}
		return xp_status(inst, s, sfn);
	}
	per_tensor(x, &sx, &zx);
	per_tensor(y, &sy, &zy);
	int u8 = x->dtype == QCF_UINT8;
	if (op_is(call, "SOFTMAX")) {
		/* qu8 only: int8 shifted by 128 (the output zero point -128 becomes 0); beta
		 * folded into the input scale, exp(beta * s * d) = exp((beta * s) * d) */
		double beta = 1;
		(void)qcf_attr_float(call, "beta", &beta);
		size_t ch = (size_t)x->shape[x->rank - 1];
		int32_t zu = u8 ? zy : zy + 128;
		if (zu < 0 || zu > 255)
			return xp_fail(inst, QCF_NOT_SUPPORTED,
			               "output zero point outside the qu8 range after the shift");
		s = xnn_create_softmax_nc_qu8(ch, ch, ch, (float)(beta * (double)sx), (uint8_t)zu,
		                              sy, 0, &p->op);
		if ((st = xp_status(inst, s, "xnn_create_softmax_nc_qu8")) != QCF_OK)
			return st;
		if ((st = alloc_buffers(inst, p, call, 1, !u8, !u8)) != QCF_OK)
			return st;
		s = xnn_setup_softmax_nc_qu8(p->op, n / ch, p->in[0], p->out, NULL);
		return xp_status(inst, s, "xnn_setup_softmax_nc_qu8");
	}
	int sig = op_is(call, "LOGISTIC");
	if (!u8) {
		fn = sig ? "xnn_create_sigmoid_nc_qs8" : "xnn_create_tanh_nc_qs8";
		s = (sig ? xnn_create_sigmoid_nc_qs8 : xnn_create_tanh_nc_qs8)(
		        1, 1, 1, (int8_t)zx, sx, (int8_t)zy, sy, -128, 127, 0, &p->op);
	} else {
		fn = sig ? "xnn_create_sigmoid_nc_qu8" : "xnn_create_tanh_nc_qu8";
		s = (sig ? xnn_create_sigmoid_nc_qu8 : xnn_create_tanh_nc_qu8)(
		        1, 1, 1, (uint8_t)zx, sx, (uint8_t)zy, sy, 0, 255, 0, &p->op);
	}
	if ((st = xp_status(inst, s, fn)) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
		return st;
	if (!u8) {
		sfn = sig ? "xnn_setup_sigmoid_nc_qs8" : "xnn_setup_tanh_nc_qs8";
		s = (sig ? xnn_setup_sigmoid_nc_qs8 : xnn_setup_tanh_nc_qs8)(p->op, n, p->in[0],
		                                                             p->out, NULL);
	} else {
		sfn = sig ? "xnn_setup_sigmoid_nc_qu8" : "xnn_setup_tanh_nc_qu8";
		s = (sig ? xnn_setup_sigmoid_nc_qu8 : xnn_setup_tanh_nc_qu8)(p->op, n, p->in[0],
		                                                             p->out, NULL);
	}
	return xp_status(inst, s, sfn);
}

static qcf_status prep_pool(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	qcf_status st = check_pool(inst, call);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	uint32_t sh = 1, sw = 1, fh = 1, fw = 1;
	attr_u32(call, "stride_h", 1, &sh, inst, &st);
	attr_u32(call, "stride_w", 1, &sw, inst, &st);
	attr_u32(call, "filter_height", 1, &fh, inst, &st);
	attr_u32(call, "filter_width", 1, &fw, inst, &st);
	const char *pad = "SAME";
	(void)qcf_attr_str(call, "padding", &pad);
	int same = strcmp(pad, "SAME") == 0;
	size_t n = (size_t)x->shape[0], h = (size_t)x->shape[1], w = (size_t)x->shape[2],
	       c = (size_t)x->shape[3];
	if (fh && fw && sh && sw) {
		size_t oh = out_dim(h, fh, 1, sh, same), ow = out_dim(w, fw, 1, sw, same);
		if ((size_t)y->shape[0] != n || (size_t)y->shape[1] != oh ||
		    (size_t)y->shape[2] != ow || (size_t)y->shape[3] != c)
			return xp_fail(
			        inst, QCF_NOT_SUPPORTED,
			        "output shape [%lld, %lld, %lld, %lld] differs from the [%zu, "
			        "%zu, %zu, %zu] XNNPACK computes",
			        (long long)y->shape[0], (long long)y->shape[1],
			        (long long)y->shape[2], (long long)y->shape[3], n, oh, ow, c);
	}
	float sx = 0, sy = 0;
	int32_t zx = 0, zy = 0, lo = 0, hi = 0;
	per_tensor(x, &sx, &zx);
	per_tensor(y, &sy, &zy);
	int u8 = x->dtype == QCF_UINT8;
	if (!act_range(call, sy, zy, u8 ? 0 : -128, u8 ? 255 : 127, &lo, &hi, inst, &st))
		return st;
	uint32_t flags = same ? XNN_FLAG_TENSORFLOW_SAME_PADDING : 0;
	uint32_t pt = 0, pr = 0, pb = 0, pl = 0;
	if (same && inst->explicit_same && sh && sw && fh && fw) {
		flags = 0;
		same_pads(h, fh, 1, sh, &pt, &pb);
		same_pads(w, fw, 1, sw, &pl, &pr);
	}
	enum xnn_status s;
	if (op_is(call, "MAX_POOL_2D")) {
		if (!u8)
			s = xnn_create_max_pooling2d_nhwc_s8(pt, pr, pb, pl, fh, fw, sh, sw, 1, 1,
			                                     c, c, c, (int8_t)lo, (int8_t)hi, flags,
			                                     &p->op);
		else
			s = xnn_create_max_pooling2d_nhwc_u8(pt, pr, pb, pl, fh, fw, sh, sw, 1, 1,
			                                     c, c, c, (uint8_t)lo, (uint8_t)hi,
			                                     flags, &p->op);
		if ((st = xp_status(inst, s,
		                    u8 ? "xnn_create_max_pooling2d_nhwc_u8"
		                       : "xnn_create_max_pooling2d_nhwc_s8")) != QCF_OK)
			return st;
		if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
			return st;
		if (!u8)
			s = xnn_setup_max_pooling2d_nhwc_s8(p->op, n, h, w, p->in[0], p->out, NULL);
		else
			s = xnn_setup_max_pooling2d_nhwc_u8(p->op, n, h, w, p->in[0], p->out, NULL);
		return xp_status(inst, s,
		                 u8 ? "xnn_setup_max_pooling2d_nhwc_u8"
		                    : "xnn_setup_max_pooling2d_nhwc_s8");
	}
	/* average pooling: qu8 only, int8 shifted by 128 */
	int32_t off = u8 ? 0 : 128;
	s = xnn_create_average_pooling2d_nhwc_qu8(
	        pt, pr, pb, pl, fh, fw, sh, sw, c, c, c, clampu8(zx + off), sx, clampu8(zy + off),
	        sy, clampu8(lo + off), clampu8(hi + off), flags, &p->op);
	if ((st = xp_status(inst, s, "xnn_create_average_pooling2d_nhwc_qu8")) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, !u8, !u8)) != QCF_OK)
		return st;
	s = xnn_setup_average_pooling2d_nhwc_qu8(p->op, n, h, w, p->in[0], p->out, NULL);
	return xp_status(inst, s, "xnn_setup_average_pooling2d_nhwc_qu8");
}

static qcf_status prep_relu(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	qcf_status st = check_relu(inst, call);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	float s = 0;
	int32_t zp = 0, lo = 0, hi = 0;
	per_tensor(x, &s, &zp);
	int u8 = x->dtype == QCF_UINT8;
	if (!act_bounds(call->op, s, zp, u8 ? 0 : -128, u8 ? 255 : 127, &lo, &hi, inst, &st))
		return st;
	enum xnn_status xs =
	        u8 ? xnn_create_clamp_nc_u8(1, 1, 1, (uint8_t)lo, (uint8_t)hi, 0, &p->op)
	           : xnn_create_clamp_nc_s8(1, 1, 1, (int8_t)lo, (int8_t)hi, 0, &p->op);
	if ((st = xp_status(inst, xs, u8 ? "xnn_create_clamp_nc_u8" : "xnn_create_clamp_nc_s8")) !=
	    QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
		return st;
	xs = u8 ? xnn_setup_clamp_nc_u8(p->op, numel(x), p->in[0], p->out, NULL)
	        : xnn_setup_clamp_nc_s8(p->op, numel(x), p->in[0], p->out, NULL);
	return xp_status(inst, xs, u8 ? "xnn_setup_clamp_nc_u8" : "xnn_setup_clamp_nc_s8");
}

static qcf_status prep_lut(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	qcf_status st = check_lut(inst, call);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	float sx = 0, sy = 0;
	int32_t zx = 0, zy = 0;
	per_tensor(x, &sx, &zx);
	per_tensor(y, &sy, &zy);
	enum xnn_status xs;
	if (op_is(call, "ELU")) {
		xs = xnn_create_elu_nc_qs8(1, 1, 1, 1.0f, (int8_t)zx, sx, (int8_t)zy, sy, -128, 127,
		                           0, &p->op);
		if ((st = xp_status(inst, xs, "xnn_create_elu_nc_qs8")) != QCF_OK)
			return st;
		if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
			return st;
		xs = xnn_setup_elu_nc_qs8(p->op, numel(x), p->in[0], p->out, NULL);
		return xp_status(inst, xs, "xnn_setup_elu_nc_qs8");
	}
	/* qu8 only: int8 shifted by 128 */
	double alpha = 0;
	(void)qcf_attr_float(call, "alpha", &alpha);
	int32_t off = x->dtype == QCF_UINT8 ? 0 : 128;
	xs = xnn_create_leaky_relu_nc_qu8(1, 1, 1, (float)alpha, (uint8_t)(zx + off), sx,
	                                  (uint8_t)(zy + off), sy, 0, 255, 0, &p->op);
	if ((st = xp_status(inst, xs, "xnn_create_leaky_relu_nc_qu8")) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, off != 0, off != 0)) != QCF_OK)
		return st;
	xs = xnn_setup_leaky_relu_nc_qu8(p->op, numel(x), p->in[0], p->out, NULL);
	return xp_status(inst, xs, "xnn_setup_leaky_relu_nc_qu8");
}

static qcf_status prep_copy(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	qcf_status st = check_copy(inst, call);
	if (st != QCF_OK)
		return st;
	size_t es = mover_size(call->inputs[0].dtype), n = numel(&call->inputs[0]);
	enum xnn_status xs = es == 1   ? xnn_create_copy_nc_x8(1, 1, 1, 0, &p->op)
	                     : es == 2 ? xnn_create_copy_nc_x16(1, 1, 1, 0, &p->op)
	                               : xnn_create_copy_nc_x32(1, 1, 1, 0, &p->op);
	if ((st = xp_status(inst, xs, "xnn_create_copy_nc_x8/x16/x32")) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
		return st;
	xs = es == 1   ? xnn_setup_copy_nc_x8(p->op, n, p->in[0], p->out, NULL)
	     : es == 2 ? xnn_setup_copy_nc_x16(p->op, n, p->in[0], p->out, NULL)
	               : xnn_setup_copy_nc_x32(p->op, n, p->in[0], p->out, NULL);
	return xp_status(inst, xs, "xnn_setup_copy_nc_x8/x16/x32");
}

static qcf_status prep_pad(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	qcf_status st = check_pad(inst, call);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *t = &call->inputs[1], *y = &call->outputs[0];
	size_t es = mover_size(x->dtype);
	/* the pad value: PADV2's constant as it is, else the output zero point (0 unquantized) */
	unsigned char value[4] = {0};
	float s;
	int32_t zp = 0;
	if (call->n_inputs == 3) {
		memcpy(value, call->inputs[2].data, es);
	} else if (y->quant && per_tensor(y, &s, &zp)) {
		int8_t v8 = (int8_t)zp;
		int16_t v16 = (int16_t)zp;
		if (es == 1)
			memcpy(value, &v8, 1);
		else if (es == 2)
			memcpy(value, &v16, 2);
		else
			memcpy(value, &zp, 4);
	}
	enum xnn_status xs = es == 1   ? xnn_create_constant_pad_nd_x8(value, 0, &p->op)
	                     : es == 2 ? xnn_create_constant_pad_nd_x16(value, 0, &p->op)
	                               : xnn_create_constant_pad_nd_x32(value, 0, &p->op);
	if ((st = xp_status(inst, xs, "xnn_create_constant_pad_nd_x8/x16/x32")) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
		return st;
	size_t shape[XNN_MAX_TENSOR_DIMS], pre[XNN_MAX_TENSOR_DIMS], post[XNN_MAX_TENSOR_DIMS];
	for (int32_t i = 0; i < x->rank; i++) {
		shape[i] = (size_t)x->shape[i];
		pre[i] = (size_t)int_at(t, 2 * (size_t)i);
		post[i] = (size_t)int_at(t, 2 * (size_t)i + 1);
	}
	size_t r = (size_t)x->rank;
	xs = es == 1   ? xnn_setup_constant_pad_nd_x8(p->op, r, shape, pre, post, p->in[0], p->out,
	                                              NULL)
	     : es == 2 ? xnn_setup_constant_pad_nd_x16(p->op, r, shape, pre, post, p->in[0], p->out,
	                                               NULL)
	               : xnn_setup_constant_pad_nd_x32(p->op, r, shape, pre, post, p->in[0], p->out,
	                                               NULL);
	return xp_status(inst, xs, "xnn_setup_constant_pad_nd_x8/x16/x32");
}

static qcf_status prep_resize(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	qcf_status st = check_resize(inst, call);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	int64_t ac = 0, hp = 0;
	(void)qcf_attr_int(call, "align_corners", &ac);
	(void)qcf_attr_int(call, "half_pixel_centers", &hp);
	/* XNNPACK's default is half-pixel centres; TensorFlow 1's mapping is its legacy mode */
	uint32_t flags = ac ? XNN_FLAG_ALIGN_CORNERS : hp ? 0 : XNN_FLAG_TENSORFLOW_LEGACY_MODE;
	size_t c = (size_t)x->shape[3];
	int u8 = x->dtype == QCF_UINT8;
	enum xnn_status xs = u8 ? xnn_create_resize_bilinear2d_nhwc_u8(c, c, c, flags, &p->op)
	                        : xnn_create_resize_bilinear2d_nhwc_s8(c, c, c, flags, &p->op);
	if ((st = xp_status(inst, xs,
	                    u8 ? "xnn_create_resize_bilinear2d_nhwc_u8"
	                       : "xnn_create_resize_bilinear2d_nhwc_s8")) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
		return st;
	size_t n = (size_t)x->shape[0], h = (size_t)x->shape[1], w = (size_t)x->shape[2],
	       oh = (size_t)y->shape[1], ow = (size_t)y->shape[2];
	xs = u8 ? xnn_setup_resize_bilinear2d_nhwc_u8(p->op, n, h, w, oh, ow, p->in[0], p->out,
	                                              NULL)
	        : xnn_setup_resize_bilinear2d_nhwc_s8(p->op, n, h, w, oh, ow, p->in[0], p->out,
	                                              NULL);
	return xp_status(inst, xs,
	                 u8 ? "xnn_setup_resize_bilinear2d_nhwc_u8"
	                    : "xnn_setup_resize_bilinear2d_nhwc_s8");
}

static qcf_status prep_mean(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	size_t b, w, c;
	qcf_status st = check_mean(inst, call, &b, &w, &c);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	float sx = 0, sy = 0;
	int32_t zx = 0, zy = 0;
	per_tensor(x, &sx, &zx);
	per_tensor(y, &sy, &zy);
	int u8 = x->dtype == QCF_UINT8;
	enum xnn_status xs =
	        u8 ? xnn_create_global_average_pooling_nwc_qu8(c, c, c, (uint8_t)zx, sx,
	                                                       (uint8_t)zy, sy, 0, 255, 0, &p->op)
	           : xnn_create_global_average_pooling_nwc_qs8(c, c, c, (int8_t)zx, sx, (int8_t)zy,
	                                                       sy, -128, 127, 0, &p->op);
	if ((st = xp_status(inst, xs,
	                    u8 ? "xnn_create_global_average_pooling_nwc_qu8"
	                       : "xnn_create_global_average_pooling_nwc_qs8")) != QCF_OK)
		return st;
	if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
		return st;
	xs = u8 ? xnn_setup_global_average_pooling_nwc_qu8(p->op, b, w, p->in[0], p->out, NULL)
	        : xnn_setup_global_average_pooling_nwc_qs8(p->op, b, w, p->in[0], p->out, NULL);
	return xp_status(inst, xs,
	                 u8 ? "xnn_setup_global_average_pooling_nwc_qu8"
	                    : "xnn_setup_global_average_pooling_nwc_qs8");
}

static qcf_status prep_tconv(qcf_instance *inst, const qcf_op_call *call, qcf_prepared *p)
{
	tconv_geom g;
	qcf_status st = check_tconv(inst, call, &g);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *f = &call->inputs[1], *x = &call->inputs[2], *y = &call->outputs[0];
	float sx = 0, sy = 0;
	int32_t zx = 0, zy = 0, lo = 0, hi = 0;
	per_tensor(x, &sx, &zx);
	per_tensor(y, &sy, &zy);
	if (!act_range(call, sy, zy, -128, 127, &lo, &hi, inst, &st))
		return st;
	const int32_t *bias = call->n_inputs == 4 ? (const int32_t *)call->inputs[3].data : NULL;
	/* LiteRT's [C_out, kh, kw, C_in] weights are XNNPACK's OHWI kernel (one group) */
	enum xnn_status xs = xnn_create_deconvolution2d_nhwc_qs8(
	        g.pt, g.pr, g.pb, g.pl, (uint32_t)g.kh, (uint32_t)g.kw, g.sh, g.sw, 1, 1, 1, g.cin,
	        g.cout, g.cin, g.cout, (int8_t)zx, sx, f->quant->scales[0], (const int8_t *)f->data,
	        bias, (int8_t)zy, sy, (int8_t)lo, (int8_t)hi, 0, &p->op);
	if ((st = xp_status(inst, xs, "xnn_create_deconvolution2d_nhwc_qs8")) != QCF_OK)
		return st;
	p->src = 2;
	if ((st = alloc_buffers(inst, p, call, 1, 0, 0)) != QCF_OK)
		return st;
	xs = xnn_setup_deconvolution2d_nhwc_qs8(p->op, g.n, g.h, g.w, g.adj_h, g.adj_w, p->in[0],
	                                        p->out, NULL);
	return xp_status(inst, xs, "xnn_setup_deconvolution2d_nhwc_qs8");
}

static qcf_status xp_prepare(qcf_instance *inst, const qcf_op_call *call, qcf_prepared **out)
{
	inst->err[0] = '\0';
	*out = NULL;
	qcf_status st = xp_supports(inst, call);
	if (st != QCF_OK)
		return st;
	qcf_prepared *p = calloc(1, sizeof *p);
	if (!p)
		return xp_fail(inst, QCF_ERROR, "out of memory");
	if (op_is(call, "CONV_2D") || op_is(call, "DEPTHWISE_CONV_2D"))
		st = prep_conv(inst, call, p);
	else if (op_is(call, "FULLY_CONNECTED"))
		st = prep_fc(inst, call, p);
	else if (op_is(call, "ADD") || op_is(call, "SUB") || op_is(call, "MUL"))
		st = prep_binary(inst, call, p);
	else if (op_is(call, "AVERAGE_POOL_2D") || op_is(call, "MAX_POOL_2D"))
		st = prep_pool(inst, call, p);
	else if (op_is(call, "RELU") || op_is(call, "RELU6") || op_is(call, "RELU_N1_TO_1"))
		st = prep_relu(inst, call, p);
	else if (op_is(call, "LEAKY_RELU") || op_is(call, "ELU"))
		st = prep_lut(inst, call, p);
	else if (op_is(call, "RESHAPE") || op_is(call, "SQUEEZE") || op_is(call, "EXPAND_DIMS"))
		st = prep_copy(inst, call, p);
	else if (op_is(call, "PAD") || op_is(call, "PADV2"))
		st = prep_pad(inst, call, p);
	else if (op_is(call, "RESIZE_BILINEAR"))
		st = prep_resize(inst, call, p);
	else if (op_is(call, "MEAN"))
		st = prep_mean(inst, call, p);
	else if (op_is(call, "TRANSPOSE_CONV"))
		st = prep_tconv(inst, call, p);
	else
		st = prep_unary(inst, call, p);
	if (st != QCF_OK) {
		xp_release(inst, p);
		return st;
	}
	*out = p;
	return QCF_OK;
}

static qcf_status xp_execute(qcf_instance *inst, qcf_prepared *p, const qcf_op_call *call)
{
	if (!p)
		return xp_fail(inst, QCF_ERROR, "execute without prepare");
	for (int i = 0; i < p->n_in; i++) {
		const qcf_tensor *t = &call->inputs[p->src + i];
		if (t->nbytes < p->in_bytes[i])
			return xp_fail(inst, QCF_ERROR, "input %d changed size since prepare",
			               p->src + i);
		memcpy(p->in[i], t->data, p->in_bytes[i]);
		if (p->flip_in)
			for (size_t k = 0; k < p->in_bytes[i]; k++)
				((uint8_t *)p->in[i])[k] ^= 0x80;
	}
	qcf_tensor *y = &call->outputs[0];
	if (y->nbytes < p->out_bytes)
		return xp_fail(inst, QCF_ERROR, "output changed size since prepare");
	enum xnn_status s = xnn_run_operator(p->op, NULL);
	if (s != xnn_status_success)
		return xp_fail(inst, QCF_ERROR, "xnn_run_operator returned %s", xnn_status_name(s));
	if (p->flip_out)
		for (size_t k = 0; k < p->out_bytes; k++)
			((uint8_t *)p->out)[k] ^= 0x80;
	memcpy(y->data, p->out, p->out_bytes);
	return QCF_OK;
}

static const qcf_plugin xp_desc = {.struct_size = sizeof(qcf_plugin),
                                   .abi_version = 1,
                                   .name = "xnnpack",
                                   .version = XP_VERSION,
                                   .create = xp_create,
                                   .destroy = xp_destroy,
                                   .supports = xp_supports,
                                   .prepare = xp_prepare,
                                   .execute = xp_execute,
                                   .release = xp_release,
                                   .last_error = xp_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return qcf_negotiate_answer(n, 1, &xp_desc);
}
