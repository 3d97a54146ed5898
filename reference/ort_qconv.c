/*
 * ONNX Runtime's com.microsoft QLinearConv (specs/ort/OPERATORS.md), semantics "ort".
 *
 * Kernel: onnxruntime/core/providers/cpu/quantization/qlinearconv.cc (registered in the ONNX
 * domain and, with the channels_last attribute, in com.microsoft), its geometry
 * onnxruntime/core/providers/cpu/nn/conv_attributes.h (ComputePadAndOutputShape), MLAS's integer
 * GEMM, depthwise and symmetric convolutions (onnxruntime/core/mlas/lib/qgemm.cpp, qdwconv.cpp,
 * convsym.cpp) and MlasRequantizeOutput (quantize.cpp).
 *
 * The accumulators are exact int32 sums of (x - x_zero_point)(w - w_zero_point[m]) plus the
 * int32 bias (onnx_linear.c's qref_conv_acc, shared with ONNX QLinearConv: MLAS's zero-point
 * corrections, column sums and packed layouts change nothing in integers, and every sum wraps
 * in int32). The output scale of channel m is x_scale * w_scale[m] / y_scale in float32, left
 * to right (qlinearconv.cc ComputeOutputScale), and y = MlasRequantizeOutput: float32(acc) *
 * scale in float32, clamped to [qmin - y_zp, qmax - y_zp], rounded half to even, plus y_zp
 * (the symmetric kernels of convsym.cpp clamp and round the same way). Where ONNX's numpy
 * reference (onnx_linear.c) multiplies in float64 and adds y_zero_point before it rounds, MLAS
 * rounds the float32 product and adds the zero point after: ties with an odd zero point and
 * products that float32 rounds onto a tie differ. Every step is one float32 operation in a fixed
 * order, so the outputs are exact on every ISA (but see OPERATORS.md: the AVX2 u8 x s8 kernels
 * without VNNI saturate pairs of products in int16).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "linear_geom.h"
#include "op.h"
#include "ort_qlinear.h"

static const char *tn(qcf_dtype t)
{
	return qref_dtype_name(t);
}

static int is_q8(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8;
}

/* The 8-bit tensor t in channels-first order: t is [N, spatial..., C], *out [N, C, spatial...]
 * with its own shape and data (free out->data). -1 when out of memory. */
static int to_channels_first(const qcf_tensor *t, qcf_tensor *out, int64_t *shape)
{
	int32_t r = t->rank;
	int64_t n = t->shape[0], c = t->shape[r - 1];
	size_t sp = 1;
	for (int32_t i = 1; i + 1 < r; i++)
		sp *= (size_t)t->shape[i];
	shape[0] = n;
	shape[1] = c;
	for (int32_t i = 1; i + 1 < r; i++)
		shape[i + 1] = t->shape[i];
	*out = *t;
	out->shape = shape;
	size_t total = (size_t)n * (size_t)c * sp;
	uint8_t *dst = malloc(total ? total : 1);
	if (!dst)
		return -1;
	const uint8_t *src = t->data;
	for (int64_t b = 0; b < n; b++)
		for (size_t s = 0; s < sp; s++)
			for (int64_t ch = 0; ch < c; ch++)
				dst[((size_t)b * (size_t)c + (size_t)ch) * sp + s] =
				        src[((size_t)b * sp + s) * (size_t)c + (size_t)ch];
	out->data = dst;
	return 0;
}

/*
 * qlinearconv.cc Compute: x [N, C, spatial...] (channels_last: [N, spatial..., C]), w [M,
 * C / group, kernel...], y x's type. ORT's own refusals beyond ONNX's geometry: SAME_UPPER and
 * SAME_LOWER with a dilation other than 1 (ComputePadAndOutputShape), differing per-channel
 * shapes of w's scale and zero point (IsValidQuantParam), a bias other than [M].
 */
static qcf_status qref_ort_qlinear_conv(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	if (call->n_inputs < 2 || call->n_inputs > 3 || call->n_outputs != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s takes inputs x, w and an optional B, and one output y, got "
		                 "%" PRId32 " and %" PRId32 "",
		                 call->op, call->n_inputs, call->n_outputs);
	qcf_status s = qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1];
	const qcf_tensor *bias = call->n_inputs == 3 ? &call->inputs[2] : NULL;
	qcf_tensor *y = &call->outputs[0];
	/* qlinearconv.cc registers uint8 X with uint8 or int8 W, and int8 X with int8 W; Y (T3)
	 * has X's type */
	if (!is_q8(x->dtype) || !is_q8(w->dtype) || (x->dtype == QCF_INT8 && w->dtype != QCF_INT8))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: x and w must be uint8 and uint8 or int8, or int8 and int8, "
		                 "got %s and %s",
		                 call->op, tn(x->dtype), tn(w->dtype));
	if (y->dtype != x->dtype)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: y must have x's type %s, got %s",
		                 call->op, tn(x->dtype), tn(y->dtype));
	if (bias && (bias->dtype != QCF_INT32 || bias->quant))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: B must be int32 without quantization, got %s", call->op,
		                 tn(bias->dtype));
	if (x->rank < 3 || y->rank != x->rank)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: x must have at least 3 dimensions and y x's rank, got %" PRId32
		        " and %" PRId32 "",
		        call->op, x->rank, y->rank);
	int64_t cl = 0;
	qref_attr_int(call, "channels_last", &cl);
	/* ComputePadAndOutputShape: ORT_ENFORCE(dilation == 1) for SAME_UPPER and SAME_LOWER */
	const qcf_attr *ap = qref_attr_find(call, "auto_pad");
	const qcf_attr *dl = qref_attr_find(call, "dilations");
	if (ap && ap->type == QCF_ATTR_STRING && ap->v.s && strncmp(ap->v.s, "SAME_", 5) == 0 &&
	    dl && dl->type == QCF_ATTR_INTS)
		for (int32_t i = 0; i < dl->count; i++)
			if (dl->v.ints[i] != 1)
				return qref_fail_attr(d, "dilations", QCF_INVALID_PARAM,
				                      "%s: auto_pad %s with dilations other than 1 "
				                      "(ORT: \"Dilation not supported for "
				                      "AutoPadType::SAME_UPPER or "
				                      "AutoPadType::SAME_LOWER\")",
				                      call->op, ap->v.s);
	/* channels last: the geometry and the accumulators on channels-first views */
	qcf_tensor xv = *x, yv = *y;
	int64_t xshape[QCF_MAX_RANK], yshape[QCF_MAX_RANK];
	if (cl) {
		yshape[0] = y->shape[0];
		yshape[1] = y->shape[y->rank - 1];
		for (int32_t i = 1; i + 1 < y->rank; i++)
			yshape[i + 1] = y->shape[i];
		yv.shape = yshape;
		xshape[0] = x->shape[0];
		xshape[1] = x->shape[x->rank - 1];
		for (int32_t i = 1; i + 1 < x->rank; i++)
			xshape[i + 1] = x->shape[i];
		xv.shape = xshape;
	}
	qref_conv_geom g;
	if ((s = qref_conv_shape(call, &xv, w, &yv, &g, d)) != QCF_OK)
		return s;
	if (bias && (bias->rank != 1 || bias->shape[0] != g.cout))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: B must have shape [M] = [%lld] (ORT 1.30: \"bias shape "
		                 "invalid\")",
		                 call->op, (long long)g.cout);
	qref_ort_q qx, qy;
	qcf_quant qw;
	if ((s = qref_ort_param(call, x, "x", &qx, d)) != QCF_OK ||
	    (s = qref_ort_param(call, y, "y", &qy, d)) != QCF_OK ||
	    (s = qref_get_quant(w, "QLinearConv w", 0, &qw, d)) != QCF_OK)
		return s;
	if (qw.axis > 0)
		return qref_fail_tensor(d, w, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s: w is quantized per tensor or per output channel (axis "
		                        "0), not along axis %" PRId32 "",
		                        call->op, qw.axis);
	double wlo, whi;
	qref_range_d(w->dtype, &wlo, &whi);
	for (int32_t i = 0; i < qw.count; i++) {
		if (!(qw.scales[i] > 0) || !isfinite(qw.scales[i]))
			return qref_fail_tensor(d, w, QREF_PART_QUANT, QCF_INVALID_PARAM,
			                        "%s: w scale %g: ORT reads it without a check; "
			                        "qconform needs scales positive and finite",
			                        call->op, (double)qw.scales[i]);
		if (qw.zero_points[i] < wlo || qw.zero_points[i] > whi)
			return qref_fail_tensor(d, w, QREF_PART_QUANT, QCF_INVALID_PARAM,
			                        "%s: w zero point %" PRId32 " does not fit %s",
			                        call->op, qw.zero_points[i], tn(w->dtype));
	}
	const qref_rounding rnd = qref_detail_rounding(d);
	if (rnd != QREF_ROUND_DEFAULT && rnd != QREF_ROUND_HALF_EVEN)
		return qref_rounding_na(call, d, rnd,
		                        "half to even, in MLAS's float32 requantization");
	qref_set_default_rounding(d, QREF_ROUND_HALF_EVEN);
	size_t n = qref_tensor_numel(y);
	int64_t *acc = malloc((n ? n : 1) * sizeof *acc);
	int64_t xs_first[QCF_MAX_RANK];
	qcf_tensor xf = xv;
	int fail = !acc || (cl && to_channels_first(x, &xf, xs_first) < 0);
	if (!fail)
		fail = qref_conv_acc(&g, &xf, w, qx.zp, qw.zero_points, qw.count, bias, acc) < 0;
	if (cl && xf.data != x->data)
		free(xf.data);
	if (fail) {
		free(acc);
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	}
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	for (size_t o = 0; o < n; o++) {
		size_t sp = o % g.out_sp;
		int64_t m = (int64_t)((o / g.out_sp) % (size_t)g.cout);
		size_t nb = o / g.out_sp / (size_t)g.cout;
		/* ComputeOutputScale: X_scale * W_scale[m] / Y_scale, float32, left to right */
		float scale = qx.s * qw.scales[qw.count > 1 ? m : 0] / qy.s;
		size_t at = cl ? (nb * g.out_sp + sp) * (size_t)g.cout + (size_t)m : o;
		qref_mark_exact(d, 0, at);
		qref_set(y, at,
		         qref_mlas_requantize((int32_t)(uint32_t)(uint64_t)acc[o], scale, qy.zp, lo,
		                              hi));
	}
	free(acc);
	return QCF_OK;
}

static const qref_attr_schema qconv_attrs[] = {
        A_ENUM("auto_pad", LIST("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"), 0, "NOTSET"),
        A_INT("channels_last", -I32, I32, "0 (any other value: channels last)"),
        A_INTS("dilations", 1, "1 per spatial axis"),
        A_INT("group", 1, INF, "1"),
        A_INTS("kernel_shape", 0, "w's kernel dimensions"),
        A_INTS("pads", 0, "0 (begin and end of every spatial axis)"),
        A_INTS("strides", 1, "1 per spatial axis"),
        END,
};

const qref_op qref_ops_ort_qconv[] = {
        {.schema = {.semantics = "ort",
                    .op = "QLinearConv",
                    IO(LIST("x", "w", "B"), 2, 3, LIST("y"), 1),
                    .attrs = qconv_attrs},
         .layout = QREF_LAYOUT_NCHW,
         .kernel = qref_ort_qlinear_conv},
        {.schema = {.op = NULL}},
};
