/*
 * ONNX QuantizeLinear / DequantizeLinear (onnx/defs/quantization/defs.cc,
 * onnx/reference/ops/op_quantize_linear.py, op_dequantize_linear.py).
 * specs/onnx/OPERATORS.md, "Arithmetic".
 *  QuantizeLinear: y = saturate(rint(x / scale) + zp), x / scale a float32
 *    division (numpy float32 arrays), rint ties to even, zp added after
 *    rounding. +-inf saturates (the spec's saturate; the numpy reference's
 *    astype(int32) would be platform dependent); NaN is unpredictable.
 *    A named QREF_ROUND_HALF_* rounding replaces only the rint.
 *  DequantizeLinear: y = (x - zp) * scale with x - zp exact in float32 for
 *    every 4-, 8- and 16-bit type, then one float32 multiply. int32 has no
 *    zero point (it must be 0), so y = (float)x * scale. Nothing is rounded
 *    to an integer: only QREF_ROUND_DEFAULT.
 * Per tensor, per axis (opset 13) and blocked (opset 21: qcf_quant.block_size,
 * the scale of element i is the entry at i's coordinates with coordinate[axis]
 * / block_size, op_quantize_linear.py _reshape_input, the last block possibly
 * short); qref_get_quant checks the count of the blocked scale tensor.
 * Float8 and float4 (opsets 19 and 23; ABI version 2): QuantizeLinear's
 *   y = convert(x / scale) to a float8 type, x / scale a float32 division and
 *   convert the float32 -> float8 cast, nearest even, saturating unless the
 *   saturate attribute (default 1) is 0 (reference/dtype.h qref_small_from).
 *   The float8 zero point is not added (op_quantize_linear.py casts x / scale
 *   alone; so does ONNX Runtime's quantize_linear.cc): -0 stays -0, and a
 *   non-zero float8 zero point changes nothing. float4e2m1: convert(x / scale
 *   + zp), zp added in float32 (op_quantize_linear.py), always saturating.
 *   DequantizeLinear: y = (x - zp) * scale, the difference exact in float32; a
 *   float8 zero point other than +0 is refused (op_dequantize_linear.py raises,
 *   ONNX Runtime enforces it). specs/onnx/OPERATORS.md, "Float8 and float4",
 *   and specs/onnx/ort/README.md for where ONNX Runtime's cast differs.
 * DynamicQuantizeLinear is in onnx_linear.c.
 */
#include <inttypes.h>
#include <math.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "op.h"

/* ONNX's float8 types and float4e2m1 (the float6 types and e8m0 are not ONNX element types
 * of QuantizeLinear) */
static int onnx_ftype(qcf_dtype t)
{
	return t == QCF_FLOAT8E4M3FN || t == QCF_FLOAT8E4M3FNUZ || t == QCF_FLOAT8E5M2 ||
	       t == QCF_FLOAT8E5M2FNUZ || t == QCF_FLOAT4E2M1;
}

static int onnx_qtype(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8 || t == QCF_INT16 || t == QCF_UINT16 ||
	       t == QCF_INT4 || t == QCF_UINT4 || t == QCF_INT2 || t == QCF_UINT2 || onnx_ftype(t);
}

/* QuantizeLinear's output types by their onnx.proto TensorProto.DataType code (the
 * output_dtype attribute); QCF_DTYPE_INVALID for any other code. */
static qcf_dtype onnx_qtype_of_code(int64_t code)
{
	switch (code) {
	case 2: return QCF_UINT8;
	case 3: return QCF_INT8;
	case 4: return QCF_UINT16;
	case 5: return QCF_INT16;
	case 17: return QCF_FLOAT8E4M3FN;
	case 18: return QCF_FLOAT8E4M3FNUZ;
	case 19: return QCF_FLOAT8E5M2;
	case 20: return QCF_FLOAT8E5M2FNUZ;
	case 21: return QCF_UINT4;
	case 22: return QCF_INT4;
	case 23: return QCF_FLOAT4E2M1;
	case 25: return QCF_UINT2;
	case 26: return QCF_INT2;
	default: return QCF_DTYPE_INVALID;
	}
}

/* The zero point of channel c as a value: a float8 zero point's, else the integer. */
static double zero_point(const qcf_quant *q, int32_t c)
{
	return q->zero_point_dtype && q->float_zero_points ? (double)q->float_zero_points[c]
	                                                   : (double)q->zero_points[c];
}

/* Zero points have the quantized tensor's type in ONNX, so they fit its range. */
static qcf_status check_zero_points(const qcf_op_call *call, qcf_dtype t, const qcf_quant *q,
                                    qref_detail *d)
{
	double lo, hi;
	if (onnx_ftype(t)) {
		/* a value of the float type (NaN is not a zero point) */
		for (int32_t c = 0; c < q->count; c++) {
			double z = zero_point(q, c);
			if (!isfinite(z) || qref_small_to_f32(t, qref_small_from(t, z, 0)) != z)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "%s: zero point %g is not a %s value (it has the "
				                 "quantized type)",
				                 call->op, z, qref_dtype_name(t));
		}
		return QCF_OK;
	}
	qref_range_d(t, &lo, &hi);
	for (int32_t c = 0; c < q->count; c++) {
		double z = q->zero_points[c];
		if (z < lo || z > hi)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: zero point %" PRId32
			                 " does not fit %s (it has the quantized "
			                 "type)",
			                 call->op, q->zero_points[c], qref_dtype_name(t));
		if (t == QCF_INT32 && z != 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: int32 has no zero point (it must be 0), got %" PRId32
			                 "",
			                 call->op, q->zero_points[c]);
	}
	return QCF_OK;
}

/* The checks of QuantizeLinear on its input (and the output's shape). */
static qcf_status quantize_input(const qcf_op_call *call, qref_detail *d)
{
	const qcf_tensor *x = &call->inputs[0];
	if (!qref_same_shape(x, &call->outputs[0]))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: output shape must equal input shape", call->op);
	/* T1: float, float16, bfloat16, int32 (converted to float32 for the division, to nearest
	 * even: the scale's type, float32, is the division's) */
	if (x->dtype != QCF_FLOAT32 && x->dtype != QCF_FLOAT16 && x->dtype != QCF_BFLOAT16 &&
	    x->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input must be float32, float16, bfloat16 or int32, got %s",
		                 call->op, qref_dtype_name(x->dtype));
	return QCF_OK;
}

/* v rounded to bfloat16 (nearest even) from its exact value: an int32 x above 2^24, rounded
 * to float32 first, could round twice. */
static float bf16_of(double v)
{
	if (!isfinite(v) || fabs(v) <= 0x1p24)
		return qref_bf16_to_f32(qref_f32_to_bf16((float)v)); /* (float)v is exact */
	int e;
	double m = frexp(v, &e); /* [0.5, 1): 8 significant bits are m * 2^8 */
	return (float)ldexp(rint(ldexp(m, 8)), e - 8);
}

/*
 * x / scale as QuantizeLinear divides. precision 0 (absent) or 1: in float32, x converted to
 * float32 (exactly, but for an int32 x beyond 2^24: to nearest even) and the scale as it is
 * (ONNX Runtime's CPU provider divides in float32 whatever the types and whatever precision
 * says; see specs/onnx/OPERATORS.md). precision 10 or 16: x and the scale rounded to float16
 * / bfloat16 (nearest even), divided, the quotient rounded to that type (onnx/reference:
 * x.astype(p) / y_scale.astype(p)); the float32 quotient of two such values rounded again to
 * the type is the correctly rounded one (24 >= 2 x 11 bits).
 */
static float onnx_divide(double x, float scale, int64_t precision)
{
	if (precision == 10) {
		/* an int32 beyond 2^24 is past float16's range either way */
		float a = qref_f16_to_f32(qref_f32_to_f16((float)x)),
		      b = qref_f16_to_f32(qref_f32_to_f16(scale));
		return qref_f16_to_f32(qref_f32_to_f16(a / b));
	}
	if (precision == 16)
		return bf16_of((double)(bf16_of(x) / bf16_of(scale)));
	return (float)x / scale;
}

static qcf_status qref_onnx_quantize_linear(const qcf_op_call *call, const qref_op *row,
                                            qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK || (s = quantize_input(call, d)) != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	if (!onnx_qtype(y->dtype))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: output must be int8, uint8, int16, uint16, int4, uint4, int2, "
		        "uint2, a float8 type or float4e2m1, got %s",
		        call->op, qref_dtype_name(y->dtype));
	/* opset 21: output_dtype names y's type (0: the zero point's, uint8 without one); given
	 * with a zero point, it must be the zero point's type, which is y's */
	int64_t output_dtype = 0;
	int r = qref_attr_int(call, "output_dtype", &output_dtype);
	qcf_dtype out_t = onnx_qtype_of_code(output_dtype);
	if (r < 0 || (output_dtype != 0 && !out_t))
		return qref_fail_attr(d, "output_dtype", QCF_INVALID_PARAM,
		                      "%s: output_dtype %lld is not a TensorProto type "
		                      "QuantizeLinear can output",
		                      call->op, (long long)output_dtype);
	if (output_dtype != 0 && out_t != y->dtype)
		return qref_fail_attr(d, "output_dtype", QCF_INVALID_PARAM,
		                      "%s: output_dtype %lld (%s) is not the output's type %s",
		                      call->op, (long long)output_dtype, qref_dtype_name(out_t),
		                      qref_dtype_name(y->dtype));
	qcf_quant q;
	if ((s = qref_get_quant(y, "QuantizeLinear output", -1, &q, d)) != QCF_OK ||
	    (s = check_zero_points(call, y->dtype, &q, d)) != QCF_OK)
		return s;
	int64_t precision = 0; /* opset 23: the division's type (onnx_divide) */
	r = qref_attr_int(call, "precision", &precision);
	if (r < 0 || (precision != 0 && precision != 1 && precision != 10 && precision != 16))
		return qref_fail_attr(d, "precision", QCF_INVALID_PARAM,
		                      "%s: precision %lld is not float (1), float16 (10) or "
		                      "bfloat16 (16)",
		                      call->op, (long long)precision);
	int64_t saturate = 1; /* opset 19: 1 by default, for float8 outputs only */
	r = qref_attr_int(call, "saturate", &saturate);
	if (r < 0 || (r > 0 && saturate != 0 && saturate != 1))
		return qref_fail_attr(d, "saturate", QCF_INVALID_PARAM,
		                      "%s: saturate must be 0 or 1", call->op);
	const qref_rounding rnd = qref_detail_rounding(d);
	if (onnx_ftype(y->dtype)) {
		if (rnd != QREF_ROUND_DEFAULT && rnd != QREF_ROUND_HALF_EVEN)
			return qref_rounding_na(call, d, rnd,
			                        "the float8 cast rounds to nearest even");
		qref_set_default_rounding(d, QREF_ROUND_HALF_EVEN);
		size_t n = qref_tensor_numel(x);
		for (size_t i = 0; i < n; i++) {
			int32_t c = qref_quant_index(y, &q, i);
			float v = onnx_divide(qref_get(x, i), q.scales[c], precision);
			if (y->dtype == QCF_FLOAT4E2M1) /* a float8 zero point is not added */
				v += (float)zero_point(&q, c);
			qref_mark_exact(d, 0, i);
			uint8_t code = qref_small_from(y->dtype, v, saturate != 0);
			qref_set(y, i, qref_small_to_f32(y->dtype, code));
		}
		return QCF_OK;
	}
	if (rnd != QREF_ROUND_DEFAULT && !qref_rounding_is_half(rnd))
		return qref_rounding_na(call, d, rnd, "x / scale to an integer");
	const int named = rnd != QREF_ROUND_DEFAULT && rnd != QREF_ROUND_HALF_EVEN;
	qref_set_default_rounding(d, QREF_ROUND_HALF_EVEN); /* nearbyintf */
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		int32_t c = qref_quant_index(y, &q, i);
		float v = onnx_divide(qref_get(x, i), q.scales[c], precision);
		double zp = q.zero_points[c];
		if (isnan(v)) {
			qref_mark_any(d, 0, i, lo, hi);
			qref_set(y, i, zp);
			continue;
		}
		qref_mark_exact(d, 0, i);
		float r = named ? (float)qref_round_half((double)v, rnd) : nearbyintf(v);
		qref_set(y, i, qref_clamp_d((double)r + zp, lo, hi));
	}
	return QCF_OK;
}

void qref_dequantize_linear_values(const qcf_tensor *x, const qcf_quant *q, qcf_tensor *y,
                                   qref_detail *d)
{
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		int32_t c = qref_quant_index(x, q, i);
		float sc = q->scales[c];
		/* exact for <= 16-bit types and the float8/4 types; int32 (zp 0) rounds x to
		 * float32 as numpy does */
		float dx = (float)(qref_get(x, i) - zero_point(q, c));
		qref_mark_exact(d, 0, i);
		qref_set_step(d, 0, i, sc > 0 ? sc : 0.0);
		qref_set(y, i, dx * sc);
	}
}

static qcf_status qref_onnx_dequantize_linear(const qcf_op_call *call, const qref_op *row,
                                              qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	if (!qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: output shape must equal input shape", call->op);
	if (!onnx_qtype(x->dtype) && x->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input must be int8, uint8, int16, uint16, int32, int4, "
		                 "uint4, int2, uint2, a float8 type or float4e2m1, got %s",
		                 call->op, qref_dtype_name(x->dtype));
	if (y->dtype != QCF_FLOAT32 && y->dtype != QCF_FLOAT16 && y->dtype != QCF_BFLOAT16)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: output must be float32, float16 or bfloat16 (the scale's type), "
		        "got %s",
		        call->op, qref_dtype_name(y->dtype));
	qcf_quant q;
	if ((s = qref_get_quant(x, "DequantizeLinear input", -1, &q, d)) != QCF_OK ||
	    (s = check_zero_points(call, x->dtype, &q, d)) != QCF_OK)
		return s;
	/* a float8 x has no zero point but +0 (-0 is code 0x80, refused as well) */
	for (int32_t c = 0; onnx_ftype(x->dtype) && x->dtype != QCF_FLOAT4E2M1 && c < q.count;
	     c++) {
		double z = zero_point(&q, c);
		if (z != 0 || signbit(z))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: a %s zero point must be 0, got %g (a float8 type has "
			                 "no zero point)",
			                 call->op, qref_dtype_name(x->dtype), z);
	}
	/* x_scale: float32, float16, bfloat16, or float8e8m0 (opset 25, a power of two) */
	qcf_dtype sd = q.scale_dtype ? q.scale_dtype : QCF_FLOAT32;
	if (sd != QCF_FLOAT32 && sd != QCF_FLOAT16 && sd != QCF_BFLOAT16 && sd != QCF_FLOAT8E8M0)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: x_scale must be float32, float16, bfloat16 or float8e8m0, got %s",
		        call->op, qref_dtype_name(sd));
	/* y has the type output_dtype names (opset 25: 1 float, 10 float16, 16 bfloat16), else
	 * the scale's (opset 19: T2 of x_scale and y), which float8e8m0 cannot be */
	int64_t output_dtype = 0;
	int r = qref_attr_int(call, "output_dtype", &output_dtype);
	qcf_dtype want = output_dtype == 1    ? QCF_FLOAT32
	                 : output_dtype == 10 ? QCF_FLOAT16
	                 : output_dtype == 16 ? QCF_BFLOAT16
	                                      : QCF_DTYPE_INVALID;
	if (r < 0 || (output_dtype != 0 && !want))
		return qref_fail_attr(d, "output_dtype", QCF_INVALID_PARAM,
		                      "%s: output_dtype %lld is not 1 (float), 10 (float16) or 16 "
		                      "(bfloat16)",
		                      call->op, (long long)output_dtype);
	if (!want && sd == QCF_FLOAT8E8M0)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: a float8e8m0 scale needs output_dtype (y cannot be float8e8m0)",
		        call->op);
	if (!want)
		want = sd;
	if (y->dtype != want)
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: output %s must be %s (%s)", call->op,
		                        qref_dtype_name(y->dtype), qref_dtype_name(want),
		                        output_dtype ? "output_dtype" : "the scale's type");
	/* the product in float32, rounded once to y's type, to nearest even (what ONNX Runtime
	 * computes: MLFloat16 and BFloat16 from float) */
	if ((s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;
	qref_dequantize_linear_values(x, &q, y, d);
	return QCF_OK;
}

/* Real-valued output of QuantizeLinear: x itself (a float32 input). */
static qcf_status qref_onnx_quantize_linear_real(const qcf_op_call *call, const qref_op *row, int k,
                                                 double *values, qref_detail *d)
{
	(void)row;
	(void)k; /* one output */
	qcf_status s = qref_check_call_shapes(call, 1, 1, d);
	if (s != QCF_OK || (s = quantize_input(call, d)) != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++)
		values[i] = qref_get(x, i);
	return QCF_OK;
}

/* saturate (opset 19) applies to float8 outputs; output_dtype (opset 21) is a
 * TensorProto.DataType code, 0 for the zero point's type; precision (opset 23) the type of the
 * division, 0 when absent (1 float, 10 float16, 16 bfloat16) */
static const qref_attr_schema quantize_attrs[] = {
        A_BOOL("saturate", "1"),
        A_INT("output_dtype", 0, 26, "0"),
        A_INT("precision", 0, 16, "0"),
        END,
};

/* output_dtype (opset 25) names y's type, 0 for the scale's */
static const qref_attr_schema dequantize_attrs[] = {
        A_INT("output_dtype", 0, 16, "0"),
        END,
};

const qref_op qref_ops_onnx[] = {
        {.schema = {.semantics = "onnx", .op = "QuantizeLinear", XY, .attrs = quantize_attrs},
         .kernel = qref_onnx_quantize_linear,
         .real = qref_onnx_quantize_linear_real},
        {.schema = {.semantics = "onnx", .op = "DequantizeLinear", XY, .attrs = dequantize_attrs},
         .kernel = qref_onnx_dequantize_linear},
        {.schema = {.op = NULL}},
};
