/*
 * PyTorch 2 export quantization: the torch.ops.quantized_decomposed ops that
 * torch.export / the PT2E flow puts in a graph (torch/ao/quantization/fx/
 * _decomposed.py and torch/ao/quantization/utils.py determine_qparams,
 * pytorch/pytorch). specs/torch/OPERATORS.md, "PyTorch 2 export".
 *
 * These ops are Python compositions of aten ops, so their arithmetic is the
 * aten ops' on CPU, in the dtype torch's type promotion gives:
 *  - per token and per channel group quantize: (x * (1.0 / scales)) +
 *    zero_points, THEN round (half to even), then clamp, then .to(dtype): the
 *    zero point is added BEFORE rounding. 1.0 / scales is the reciprocal in
 *    the scales' dtype; x * inv computes in float32 for float32 scales (a
 *    float16 or bfloat16 x is widened, exactly) and in float64 for float64
 *    scales (choose_qparams_per_token_asymmetric returns float64 scales).
 *  - per token and per channel group dequantize: (x - zero_points) in the
 *    promoted integer type (int32 for int32 zero points, int64 for int64 ones,
 *    x's own dtype when the group op has none), times scales in the scales'
 *    dtype, then .to(output_dtype). A float32 zero point (what
 *    choose_qparams_per_token returns) makes the difference float32.
 *  - the choose_qparams ops: float32 arithmetic on the row's (or tensor's)
 *    min and max, true divisions, torch.round (half to even); their scales
 *    and zero points are output tensors in the dtypes torch returns.
 * Where a float result is converted to an integer type out of its range
 * (NaN, a clamp bound beyond the dtype) torch's conversion is undefined: any
 * value is accepted there.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "op.h"
#include "torch.h"

/* torch.finfo(torch.float32).eps */
#define F32_EPS 0x1p-23f

static const char *tdt(qcf_dtype t)
{
	switch (t) {
	case QCF_INT8: return "torch.int8";
	case QCF_UINT8: return "torch.uint8";
	case QCF_INT16: return "torch.int16";
	case QCF_UINT16: return "torch.uint16";
	case QCF_INT32: return "torch.int32";
	case QCF_INT64: return "torch.int64";
	case QCF_FLOAT16: return "torch.float16";
	case QCF_BFLOAT16: return "torch.bfloat16";
	case QCF_FLOAT32: return "torch.float32";
	case QCF_FLOAT64: return "torch.float64";
	default: return qref_dtype_name(t);
	}
}

/* The integer dtypes of _DTYPE_TO_QVALUE_BOUNDS (_decomposed.py). */
static int bounds_dtype(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8 || t == QCF_INT16 || t == QCF_UINT16 ||
	       t == QCF_INT32;
}

/* _quant_min_max_bounds_check(quant_min, quant_max, dtype), output 0's dtype. */
static qcf_status bounds_check(const qcf_op_call *call, qcf_dtype t, int64_t qmin, int64_t qmax,
                               qref_detail *d)
{
	if (!bounds_dtype(t))
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: _quant_min_max_bounds_check: ValueError: Unsupported "
		                        "dtype: %s",
		                        call->op, tdt(t));
	int64_t lo, hi;
	qref_dtype_range(t, &lo, &hi);
	if (qmin < lo)
		return qref_fail_attr(
		        d, "quant_min", QCF_INVALID_PARAM,
		        "%s: quant_min out of bound for dtype, quant_min_lower_bound: "
		        "%lld quant_min: %lld",
		        call->op, (long long)lo, (long long)qmin);
	if (qmax > hi)
		return qref_fail_attr(
		        d, "quant_max", QCF_INVALID_PARAM,
		        "%s: quant_max out of bound for dtype, quant_max_upper_bound: "
		        "%lld quant_max: %lld",
		        call->op, (long long)hi, (long long)qmax);
	return QCF_OK;
}

/* Inputs and outputs: the counts of the op's schema, buffers. */
static qcf_status io(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int min_in = row->schema.min_inputs, max_in = row->schema.max_inputs;
	int n = call->n_inputs >= min_in && call->n_inputs <= max_in ? call->n_inputs : min_in;
	return qref_check_call(call, n, row->schema.n_outputs, d);
}

static int is_qfloat(qcf_dtype t)
{
	return t == QCF_FLOAT32 || t == QCF_FLOAT16 || t == QCF_BFLOAT16;
}

/* The scales: float32 (float arithmetic) or float64 (double). */
static qcf_status check_scales(const qcf_op_call *call, const qcf_tensor *s, qref_detail *d)
{
	if (s->dtype == QCF_FLOAT32 || s->dtype == QCF_FLOAT64)
		return QCF_OK;
	return qref_fail_tensor(d, s, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
	                        "%s: scales of dtype %s: the reference takes float32 or float64 "
	                        "scales (torch would compute in the scales' dtype)",
	                        call->op, tdt(s->dtype));
}

/* Zero points: int32, int64, or (float_ok) float32. */
static qcf_status check_zps(const qcf_op_call *call, const qcf_tensor *z, int float_ok,
                            qref_detail *d)
{
	if (z->dtype == QCF_INT32 || z->dtype == QCF_INT64 || (float_ok && z->dtype == QCF_FLOAT32))
		return QCF_OK;
	return qref_fail_tensor(d, z, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
	                        "%s: zero points of dtype %s: the reference takes int32, int64%s "
	                        "zero points",
	                        call->op, tdt(z->dtype), float_ok ? " or float32" : "");
}

/* torch.clamp(v, lo, hi) on a float: NaN stays NaN; lo > hi gives hi. */
static double tclamp(double v, double lo, double hi)
{
	if (isnan(v))
		return v;
	v = v < lo ? lo : v;
	return v > hi ? hi : v;
}

/*
 * One element of quantize_per_token / quantize_per_channel_group:
 * clamp(round(x * (1.0 / s) + zp), qmin, qmax), in float (f64 = 0) or double
 * (f64 = 1). zp_after = 1 is the mistake (round, then add): for the tests.
 */
static double q_elem(double x, double s, double zp, int f64, double qmin, double qmax,
                     qref_rounding r)
{
	double v;
	if (f64) {
		double inv = 1.0 / s;
		v = qref_round_half(x * inv + zp,
		                    r == QREF_ROUND_DEFAULT ? QREF_ROUND_HALF_EVEN : r);
	} else {
		float inv = 1.0f / (float)s;
		float t = (float)x * inv;
		float u = t + (float)zp;
		v = qref_torch_round_f(u, r);
		/* the clamp bounds are float scalars in float arithmetic */
		qmin = (float)qmin;
		qmax = (float)qmax;
	}
	return tclamp(v, qmin, qmax);
}

/* Writes v (a clamped float value) to integer output y at i; NaN or a value y cannot hold is
 * torch's undefined float-to-int conversion: any value of y's dtype. */
static void put_int(qcf_tensor *y, qref_detail *d, int k, size_t i, double v)
{
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	if (isnan(v) || v < lo || v > hi) {
		qref_set(y, i, lo);
		qref_mark_any(d, k, i, lo, hi);
		return;
	}
	qref_set(y, i, v);
	qref_mark_exact(d, k, i);
}

/* a and b have the same shape except that b's last dimension is 1 (the per-token shape). */
static int token_shape(const qcf_tensor *x, const qcf_tensor *p)
{
	if (p->rank != x->rank || x->rank < 1)
		return 0;
	for (int k = 0; k + 1 < x->rank; k++)
		if (p->shape[k] != x->shape[k])
			return 0;
	return p->shape[x->rank - 1] == 1;
}

/* Whether b broadcasts onto a without changing a's shape (numpy rules). */
static int broadcasts_onto(const qcf_tensor *a, const qcf_tensor *b)
{
	if (b->rank > a->rank)
		return 0;
	for (int k = 1; k <= b->rank; k++) {
		int64_t bs = b->shape[b->rank - k], as = a->shape[a->rank - k];
		if (bs != as && bs != 1)
			return 0;
	}
	return 1;
}

/* The per-token parameter p (scales or zero points) of x: the numel check of quantize
 * (check_numel), then broadcasting. */
static qcf_status token_param(const qcf_op_call *call, const qcf_tensor *x, const qcf_tensor *p,
                              const char *what, int check_numel, qref_detail *d)
{
	size_t tokens = qref_numel(x->rank - 1, x->shape);
	size_t n = qref_tensor_numel(p);
	if (check_numel && n != tokens)
		return qref_fail_tensor(
		        d, p, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "%s: _per_token_quant_qparam_dim_check: num_tokens: %zu %s: "
		        "%zu elements",
		        call->op, tokens, what, n);
	if (token_shape(x, p))
		return QCF_OK;
	if (!broadcasts_onto(x, p))
		return qref_fail_tensor(d, p, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: the %s do not broadcast onto the input (the size of "
		                        "tensor a must match the size of tensor b at non-singleton "
		                        "dimensions)",
		                        call->op, what);
	return qref_fail_tensor(d, p, QREF_PART_SHAPE, QCF_NOT_SUPPORTED,
	                        "%s: %s of another shape than input.shape[:-1] + [1]: torch "
	                        "broadcasts them across the tokens in another way; the reference "
	                        "takes the per-token shape only",
	                        call->op, what);
}

static qcf_status same_shape_out(const qcf_op_call *call, qref_detail *d)
{
	if (!qref_same_shape(&call->inputs[0], &call->outputs[0]))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: the output has the input's shape", call->op);
	return QCF_OK;
}

/* The float input of a quantize op: float32, float16 or bfloat16 (is_qfloat). */
static qcf_status check_qfloat(const qcf_op_call *call, const qcf_tensor *x, qref_detail *d)
{
	if (is_qfloat(x->dtype))
		return QCF_OK;
	return qref_fail_tensor(d, x, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
	                        "%s: input of dtype %s: the reference takes float32, float16 or "
	                        "bfloat16 input",
	                        call->op, tdt(x->dtype));
}

/* ---- quantize_per_token, dequantize_per_token ---------------------------- */

static qcf_status quantize_per_token(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	qcf_status st = io(call, row, d);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *s = &call->inputs[1], *z = &call->inputs[2];
	qcf_tensor *y = &call->outputs[0];
	int64_t qmin, qmax;
	if ((st = qref_torch_int_attr(call, "quant_min", &qmin, d)) != QCF_OK ||
	    (st = qref_torch_int_attr(call, "quant_max", &qmax, d)) != QCF_OK ||
	    (st = bounds_check(call, y->dtype, qmin, qmax, d)) != QCF_OK)
		return st;
	if (x->rank < 1)
		return qref_fail_tensor(d, x, QREF_PART_SHAPE, QCF_NOT_SUPPORTED,
		                        "%s: a 0-d input (no token dimension) is not supported",
		                        call->op);
	if ((st = token_param(call, x, s, "scales", 1, d)) != QCF_OK ||
	    (st = token_param(call, x, z, "zero_points", 1, d)) != QCF_OK)
		return st;
	if ((st = check_qfloat(call, x, d)) != QCF_OK)
		return st;
	if ((st = check_scales(call, s, d)) != QCF_OK ||
	    (st = check_zps(call, z, 1, d)) != QCF_OK || (st = same_shape_out(call, d)) != QCF_OK)
		return st;
	if ((st = qref_torch_check_rounding(call, d, "x * (1.0 / scale) + zero_point")) != QCF_OK)
		return st;
	const qref_rounding r = qref_detail_rounding(d);
	const int f64 = s->dtype == QCF_FLOAT64;
	const size_t n = qref_tensor_numel(x);
	const size_t row_len = (size_t)x->shape[x->rank - 1];
	for (size_t i = 0; i < n; i++) {
		size_t t = i / row_len;
		double v = q_elem(qref_get(x, i), qref_get(s, t), qref_get(z, t), f64, (double)qmin,
		                  (double)qmax, r);
		put_int(y, d, 0, i, v);
	}
	return QCF_OK;
}

/* The output dtypes of the dequantize ops (output_dtype). */
static qcf_status check_out_float(const qcf_op_call *call, qref_detail *d)
{
	qcf_dtype t = call->outputs[0].dtype;
	if (t == QCF_FLOAT32 || t == QCF_FLOAT64 || t == QCF_FLOAT16 || t == QCF_BFLOAT16)
		return QCF_OK;
	return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
	                        "%s: output_dtype %s: the reference takes float32, float64, "
	                        "float16 or bfloat16",
	                        call->op, tdt(t));
}

/* The integer input of a dequantize op: int8, uint8, int16, int32 (torch's type promotion has no
 * rule for uint16 with another integer type). */
static qcf_status check_qin(const qcf_op_call *call, const qcf_tensor *x, qref_detail *d)
{
	if (x->dtype == QCF_INT8 || x->dtype == QCF_UINT8 || x->dtype == QCF_INT16 ||
	    x->dtype == QCF_INT32)
		return QCF_OK;
	return qref_fail_tensor(d, x, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
	                        "%s: input of dtype %s: the reference takes int8, uint8, int16 or "
	                        "int32",
	                        call->op, tdt(x->dtype));
}

/*
 * (q - zp) * s then .to(output dtype t): zt the zero point's dtype (0: none, the group op's
 * default), the difference in the promoted type (int32 wraps), the product in float (f64 0) or
 * double.
 */
static double dq_elem(double q, qcf_dtype zt, double zp, double s, int f64, qcf_dtype t)
{
	double diff;
	if (zt == QCF_FLOAT32) {
		diff = (float)((float)q - (float)zp);
	} else {
		int64_t v = (int64_t)q - (int64_t)zp;
		if (zt == QCF_INT32)
			v = (int32_t)(uint32_t)(uint64_t)v; /* int32 arithmetic wraps */
		diff = (double)v;
	}
	double y = f64 ? diff * s : (double)((float)diff * (float)s);
	return qref_torch_to_dtype(t, y);
}

static qcf_status dequantize_per_token(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	qcf_status st = io(call, row, d);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *s = &call->inputs[1], *z = &call->inputs[2];
	qcf_tensor *y = &call->outputs[0];
	int64_t qmin, qmax; /* in the signature, unused by the computation */
	if ((st = qref_torch_int_attr(call, "quant_min", &qmin, d)) != QCF_OK ||
	    (st = qref_torch_int_attr(call, "quant_max", &qmax, d)) != QCF_OK)
		return st;
	if (x->rank < 1)
		return qref_fail_tensor(d, x, QREF_PART_SHAPE, QCF_NOT_SUPPORTED,
		                        "%s: a 0-d input (no token dimension) is not supported",
		                        call->op);
	if ((st = token_param(call, x, z, "zero_points", 0, d)) != QCF_OK ||
	    (st = token_param(call, x, s, "scales", 0, d)) != QCF_OK ||
	    (st = check_qin(call, x, d)) != QCF_OK || (st = check_scales(call, s, d)) != QCF_OK ||
	    (st = check_zps(call, z, 1, d)) != QCF_OK ||
	    (st = check_out_float(call, d)) != QCF_OK || (st = same_shape_out(call, d)) != QCF_OK)
		return st;
	if (qref_detail_rounding(d) != QREF_ROUND_DEFAULT)
		return qref_rounding_na(call, d, qref_detail_rounding(d), "nothing");
	const int f64 = s->dtype == QCF_FLOAT64;
	const size_t n = qref_tensor_numel(x);
	const size_t row_len = (size_t)x->shape[x->rank - 1];
	for (size_t i = 0; i < n; i++) {
		size_t t = i / row_len;
		qref_set(y, i,
		         dq_elem(qref_get(x, i), z->dtype, qref_get(z, t), qref_get(s, t), f64,
		                 y->dtype));
		qref_mark_exact(d, 0, i);
	}
	return QCF_OK;
}

/* ---- choose_qparams_per_token(_asymmetric) -------------------------------- */

/* The dtype attribute ("int8", ...); QCF_DTYPE_INVALID when absent or unknown. */
static qcf_dtype dtype_attr(const qcf_op_call *call)
{
	const qcf_attr *a = qref_attr_find(call, "dtype");
	if (!a || a->type != QCF_ATTR_STRING || !a->v.s)
		return QCF_DTYPE_INVALID;
	if (strncmp(a->v.s, "float8", 6) == 0)
		return QCF_FLOAT8E4M3FN; /* stands for both float8 types: only membership matters */
	return qref_dtype_parse(a->v.s);
}

static const char *dtype_attr_name(const qcf_op_call *call)
{
	const qcf_attr *a = qref_attr_find(call, "dtype");
	return a && a->type == QCF_ATTR_STRING && a->v.s ? a->v.s : "(none)";
}

/* Output k of a per-token choose op: shape input.shape[:-1] + [1], dtype t. */
static qcf_status token_out(const qcf_op_call *call, int k, qcf_dtype t, qref_detail *d)
{
	const qcf_tensor *o = &call->outputs[k];
	if (o->dtype != t)
		return qref_fail_output(d, k, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: output %d is %s (torch returns %s)", call->op, k,
		                        tdt(o->dtype), tdt(t));
	if (!token_shape(&call->inputs[0], o))
		return qref_fail_output(d, k, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: output %d has shape input.shape[:-1] + [1] "
		                        "(keepdim=True)",
		                        call->op, k);
	return QCF_OK;
}

/* Rank >= 1 and a non-empty last dimension (torch.amax / amin over an empty dim raise). */
static qcf_status token_rows(const qcf_op_call *call, const qcf_tensor *x, qref_detail *d)
{
	if (x->rank < 1)
		return qref_fail_tensor(d, x, QREF_PART_SHAPE, QCF_NOT_SUPPORTED,
		                        "%s: a 0-d input (no token dimension) is not supported",
		                        call->op);
	if (x->shape[x->rank - 1] == 0)
		return qref_fail_tensor(
		        d, x, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "%s: amax(): Expected reduction dim -1 to have non-zero size", call->op);
	return QCF_OK;
}

/* torch.amax / amin (NaN propagates), torch.maximum / minimum likewise. */
static float nmax(float a, float b)
{
	return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
}

static float nmin(float a, float b)
{
	return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
}

static qcf_status choose_qparams_per_token(const qcf_op_call *call, const qref_op *row,
                                           qref_detail *d)
{
	qcf_status st = io(call, row, d);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	if ((st = token_rows(call, x, d)) != QCF_OK)
		return st;
	if (x->dtype != QCF_FLOAT32 && x->dtype != QCF_FLOAT16)
		return qref_fail_tensor(d, x, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
		                        "%s: input of dtype %s: the reference takes float32 or "
		                        "float16 (a bfloat16 input is computed in bfloat16)",
		                        call->op, tdt(x->dtype));
	if (dtype_attr(call) != QCF_INT8)
		return qref_fail_attr(
		        d, "dtype", QCF_INVALID_PARAM,
		        "%s: Exception: unsupported dtype in choose_qparams_per_token: "
		        "%s",
		        call->op, dtype_attr_name(call));
	if ((st = token_out(call, 0, QCF_FLOAT32, d)) != QCF_OK ||
	    (st = token_out(call, 1, QCF_FLOAT32, d)) != QCF_OK)
		return st;
	if (qref_detail_rounding(d) != QREF_ROUND_DEFAULT)
		return qref_rounding_na(call, d, qref_detail_rounding(d), "nothing");
	const size_t row_len = (size_t)x->shape[x->rank - 1];
	const size_t rows = qref_numel(x->rank - 1, x->shape);
	for (size_t t = 0; t < rows; t++) {
		float a = 0.0f;
		for (size_t j = 0; j < row_len; j++)
			a = nmax(a, fabsf((float)qref_get(x, t * row_len + j)));
		/* scales.clamp(min=1e-5).div(127) in float32 */
		float sc = isnan(a) ? a : a < 1e-5f ? 1e-5f : a;
		sc = sc / 127.0f;
		qref_set(&call->outputs[0], t, sc);
		qref_set(&call->outputs[1], t, 0.0);
		qref_mark_exact(d, 0, t);
		qref_mark_exact(d, 1, t);
	}
	return QCF_OK;
}

static qcf_status choose_qparams_per_token_asymmetric(const qcf_op_call *call, const qref_op *row,
                                                      qref_detail *d)
{
	qcf_status st = io(call, row, d);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	if ((st = token_rows(call, x, d)) != QCF_OK)
		return st;
	if (x->dtype != QCF_FLOAT32)
		return qref_fail_tensor(d, x, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
		                        "%s: input of dtype %s: the reference takes float32 (torch "
		                        "computes in the input's dtype)",
		                        call->op, tdt(x->dtype));
	(void)dtype_attr(call); /* dtype is ignored: qmin, qmax = -128, 127 */
	if ((st = token_out(call, 0, QCF_FLOAT64, d)) != QCF_OK ||
	    (st = token_out(call, 1, QCF_INT64, d)) != QCF_OK)
		return st;
	if ((st = qref_torch_check_rounding(call, d, "the zero point")) != QCF_OK)
		return st;
	const qref_rounding r = qref_detail_rounding(d);
	const size_t row_len = (size_t)x->shape[x->rank - 1];
	const size_t rows = qref_numel(x->rank - 1, x->shape);
	const float qmin = -128.0f, qmax = 127.0f;
	for (size_t t = 0; t < rows; t++) {
		float mn = (float)qref_get(x, t * row_len), mx = mn;
		for (size_t j = 1; j < row_len; j++) {
			float v = (float)qref_get(x, t * row_len + j);
			mn = nmin(mn, v);
			mx = nmax(mx, v);
		}
		float mnn = nmin(mn, 0.0f), mxp = nmax(mx, 0.0f);
		float sc = (mxp - mnn) / 255.0f;
		sc = isnan(sc) ? sc : sc < F32_EPS ? F32_EPS : sc;
		float dmin = mnn / sc, dmax = mxp / sc;
		float emin = qmin + dmin, emax = qmax + dmax;
		float zp = emin + emax > 0.0f ? qmin - dmin : qmax - dmax;
		zp = (float)tclamp(zp, qmin, qmax);
		zp = qref_torch_round_f(zp, r);
		qref_set(&call->outputs[0], t, (double)sc);
		qref_mark_exact(d, 0, t);
		put_int(&call->outputs[1], d, 1, t, zp);
	}
	return QCF_OK;
}

/* ---- quantize_per_channel_group, dequantize_per_channel_group ------------- */

/* The group checks of both ops, in torch's order, on input x (2-D) and scales s: *gs the group
 * size after the GPTQ rule, *rows the number of groups. */
static qcf_status group_check(const qcf_op_call *call, const qcf_tensor *x, const qcf_tensor *s,
                              const qcf_tensor *z, int64_t *gs, size_t *rows, qref_detail *d)
{
	int r = qref_attr_int(call, "group_size", gs);
	if (r < 0)
		return qref_fail_attr(d, "group_size", QCF_INVALID_PARAM,
		                      "%s: group_size must be an integer", call->op);
	if (r == 0)
		*gs = 128; /* the Python default */
	if (!(*gs > 1))
		return qref_fail_attr(d, "group_size", QCF_INVALID_PARAM,
		                      "%s: assert group_size > 1 (group_size %lld)", call->op,
		                      (long long)*gs);
	if (x->rank < 1)
		return qref_fail_tensor(d, x, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: input.shape[-1] of a 0-d input: IndexError", call->op);
	const int64_t n = x->shape[x->rank - 1];
	if (*gs > n) {
		/* "needed for GPTQ single column quantize" */
		if (s->rank < 1)
			return qref_fail_tensor(d, s, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			                        "%s: scales.shape[-1] of 0-d scales: IndexError",
			                        call->op);
		if (s->shape[s->rank - 1] == 1)
			*gs = n;
	}
	if (*gs == 0)
		return qref_fail_attr(
		        d, "group_size", QCF_INVALID_PARAM,
		        "%s: input.shape[-1] %% group_size with group_size 0 (an empty "
		        "last dimension): ZeroDivisionError",
		        call->op);
	if (n % *gs != 0)
		return qref_fail_attr(
		        d, "group_size", QCF_INVALID_PARAM,
		        "%s: assert input.shape[-1] %% group_size == 0 (%lld %% %lld)", call->op,
		        (long long)n, (long long)*gs);
	if (x->rank != 2)
		return qref_fail_tensor(d, x, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: assert input.dim() == 2 (got %d)", call->op,
		                        (int)x->rank);
	*rows = qref_tensor_numel(x) / (size_t)*gs;
	/* scales.reshape(-1, 1) (and the zero points) against input.reshape(-1, group_size):
	 * one row each, or one for all (broadcast); anything else fails to broadcast or to
	 * reshape_as(input) */
	const qcf_tensor *p[2] = {s, z};
	for (int k = 0; k < 2; k++) {
		if (!p[k])
			continue;
		size_t c = qref_tensor_numel(p[k]);
		if (c != *rows && c != 1)
			return qref_fail_tensor(d, p[k], QREF_PART_SHAPE, QCF_INVALID_PARAM,
			                        "%s: %zu %s for %zu groups (input.numel() / "
			                        "group_size): the shapes do not broadcast",
			                        call->op, c, k ? "zero points" : "scales", *rows);
	}
	return QCF_OK;
}

static qcf_status quantize_per_channel_group(const qcf_op_call *call, const qref_op *row,
                                             qref_detail *d)
{
	qcf_status st = io(call, row, d);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *s = &call->inputs[1], *z = &call->inputs[2];
	qcf_tensor *y = &call->outputs[0];
	int64_t qmin, qmax, gs;
	size_t rows;
	if ((st = qref_torch_int_attr(call, "quant_min", &qmin, d)) != QCF_OK ||
	    (st = qref_torch_int_attr(call, "quant_max", &qmax, d)) != QCF_OK ||
	    (st = group_check(call, x, s, z, &gs, &rows, d)) != QCF_OK)
		return st;
	if ((st = check_qfloat(call, x, d)) != QCF_OK)
		return st;
	const size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++)
		if (isnan(qref_get(x, i)))
			return qref_fail_tensor(
			        d, x, QREF_PART_DATA, QCF_INVALID_PARAM,
			        "%s: assert torch.isnan(to_quant).sum() == 0 (element "
			        "%zu is NaN)",
			        call->op, i);
	if ((st = check_scales(call, s, d)) != QCF_OK || (st = check_zps(call, z, 1, d)) != QCF_OK)
		return st;
	/* "TODO: dtype is ignored for now": no bounds check; .to(dtype) of the clamped value */
	if (!bounds_dtype(y->dtype))
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
		                        "%s: output of dtype %s: the reference takes int8, uint8, "
		                        "int16, uint16 or int32",
		                        call->op, tdt(y->dtype));
	if ((st = same_shape_out(call, d)) != QCF_OK)
		return st;
	if ((st = qref_torch_check_rounding(call, d, "x * (1.0 / scale) + zero_point")) != QCF_OK)
		return st;
	const qref_rounding r = qref_detail_rounding(d);
	const int f64 = s->dtype == QCF_FLOAT64;
	const size_t ns = qref_tensor_numel(s), nz = qref_tensor_numel(z);
	for (size_t i = 0; i < n; i++) {
		size_t g = i / (size_t)gs;
		double v = q_elem(qref_get(x, i), qref_get(s, ns == 1 ? 0 : g),
		                  qref_get(z, nz == 1 ? 0 : g), f64, (double)qmin, (double)qmax, r);
		put_int(y, d, 0, i, v);
	}
	return QCF_OK;
}

static qcf_status dequantize_per_channel_group(const qcf_op_call *call, const qref_op *row,
                                               qref_detail *d)
{
	qcf_status st = io(call, row, d);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *s = &call->inputs[1];
	const qcf_tensor *z = call->n_inputs > 2 ? &call->inputs[2] : NULL;
	qcf_tensor *y = &call->outputs[0];
	int64_t qmin, qmax, gs; /* quant_min, quant_max: in the signature, unused */
	size_t rows;
	if ((st = qref_torch_int_attr(call, "quant_min", &qmin, d)) != QCF_OK ||
	    (st = qref_torch_int_attr(call, "quant_max", &qmax, d)) != QCF_OK ||
	    (st = group_check(call, x, s, z, &gs, &rows, d)) != QCF_OK)
		return st;
	if ((st = check_qin(call, x, d)) != QCF_OK || (st = check_scales(call, s, d)) != QCF_OK ||
	    (z && (st = check_zps(call, z, 0, d)) != QCF_OK) ||
	    (st = check_out_float(call, d)) != QCF_OK || (st = same_shape_out(call, d)) != QCF_OK)
		return st;
	if (qref_detail_rounding(d) != QREF_ROUND_DEFAULT)
		return qref_rounding_na(call, d, qref_detail_rounding(d), "nothing");
	const int f64 = s->dtype == QCF_FLOAT64;
	const size_t n = qref_tensor_numel(x), ns = qref_tensor_numel(s);
	const size_t nz = z ? qref_tensor_numel(z) : 0;
	for (size_t i = 0; i < n; i++) {
		size_t g = i / (size_t)gs;
		/* no zero points: torch.zeros([], dtype=torch.int32), a 0-d tensor that does not
		 * promote: the difference stays in x's dtype, unchanged */
		qcf_dtype zt = z ? z->dtype : QCF_INT64;
		double zp = z ? qref_get(z, nz == 1 ? 0 : g) : 0.0;
		qref_set(y, i,
		         dq_elem(qref_get(x, i), zt, zp, qref_get(s, ns == 1 ? 0 : g), f64,
		                 y->dtype));
		qref_mark_exact(d, 0, i);
	}
	return QCF_OK;
}

/* ---- choose_qparams.tensor, choose_qparams_symmetric.tensor --------------- */

/* choose_qparams.tensor, and choose_qparams_symmetric.tensor (row->param 1). */
static qcf_status choose_qparams_tensor(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int symmetric = row->param;
	qcf_status st = io(call, row, d);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	if (x->dtype != QCF_FLOAT32 && x->dtype != QCF_FLOAT16 && x->dtype != QCF_BFLOAT16)
		return qref_fail_tensor(
		        d, x, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		        "%s: Expecting input to have dtype torch.float32/16/b16, but "
		        "got dtype: %s",
		        call->op, tdt(x->dtype));
	qcf_dtype dt = dtype_attr(call);
	if (!bounds_dtype(dt) && dt != QCF_FLOAT8E4M3FN)
		return qref_fail_attr(d, "dtype", QCF_INVALID_PARAM,
		                      "%s: Expecting target dtype to be one of the keys of "
		                      "_DTYPE_TO_QVALUE_BOUNDS, but got: %s",
		                      call->op, dtype_attr_name(call));
	int64_t qmin, qmax;
	double eps_d = 0;
	if ((st = qref_torch_int_attr(call, "quant_min", &qmin, d)) != QCF_OK ||
	    (st = qref_torch_int_attr(call, "quant_max", &qmax, d)) != QCF_OK)
		return st;
	if (qref_attr_number(call, "eps", &eps_d) != 1)
		return qref_fail_attr(d, "eps", QCF_INVALID_PARAM, "%s: missing attribute 'eps'",
		                      call->op);
	if (!(qmin <= 0 && 0 <= qmax))
		return qref_fail_attr(d, qmin > 0 ? "quant_min" : "quant_max", QCF_INVALID_PARAM,
		                      "%s: validate_qmin_qmax: Used-specified quantization range "
		                      "must include 0.",
		                      call->op);
	if (!(qmin < qmax))
		return qref_fail_attr(
		        d, "quant_max", QCF_INVALID_PARAM,
		        "%s: validate_qmin_qmax: qmin must be strictly less than qmax "
		        "for user-specified quantization range.",
		        call->op);
	const size_t n = qref_tensor_numel(x);
	if (n == 0)
		return qref_fail_tensor(
		        d, x, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "%s: aminmax(): cannot compute aminmax over an empty dimension "
		        "as the operation has no identity",
		        call->op);
	if (x->dtype != QCF_FLOAT32)
		return qref_fail_tensor(d, x, QREF_PART_DTYPE, QCF_NOT_SUPPORTED,
		                        "%s: input of dtype %s: the reference takes float32 (torch "
		                        "computes the scale in the input's dtype)",
		                        call->op, tdt(x->dtype));
	if (qmin < INT32_MIN || qmax > INT32_MAX)
		return qref_fail_attr(d, qmin < INT32_MIN ? "quant_min" : "quant_max",
		                      QCF_NOT_SUPPORTED,
		                      "%s: a quantization range beyond int32 (the zero point is "
		                      "computed in int32)",
		                      call->op);
	const qcf_tensor *so = &call->outputs[0], *zo = &call->outputs[1];
	if (so->dtype != QCF_FLOAT64 || zo->dtype != QCF_INT64)
		return qref_fail_output(d, so->dtype != QCF_FLOAT64 ? 0 : 1, QREF_PART_DTYPE,
		                        QCF_INVALID_PARAM,
		                        "%s: determine_qparams returns scale.to(torch.double), "
		                        "zero_point.to(torch.int64)",
		                        call->op);
	if (so->rank != 1 || so->shape[0] != 1 || zo->rank != 1 || zo->shape[0] != 1)
		return qref_fail_output(d, so->rank != 1 || so->shape[0] != 1 ? 0 : 1,
		                        QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: the scale and the zero point have shape [1]",
		                        call->op);
	/* torch.aminmax (NaN propagates) */
	float mn = (float)qref_get(x, 0), mx = mn;
	for (size_t i = 1; i < n; i++) {
		float v = (float)qref_get(x, i);
		mn = nmin(mn, v);
		mx = nmax(mx, v);
	}
	/* check_min_max_valid: assert min_val <= max_val (False for NaN) */
	if (!(mn <= mx))
		return qref_fail_tensor(
		        d, x, QREF_PART_DATA, QCF_INVALID_PARAM,
		        "%s: check_min_max_valid: AssertionError: min nan should be "
		        "less than max nan",
		        call->op);
	if ((st = qref_torch_check_rounding(call, d, "min_val_neg / scale")) != QCF_OK)
		return st;
	const qref_rounding r = qref_detail_rounding(d);
	const float eps = (float)eps_d; /* torch.Tensor([eps]): float32 */
	float mnn = nmin(mn, 0.0f), mxp = nmax(mx, 0.0f), sc;
	if (symmetric) {
		mxp = nmax(-mnn, mxp);
		sc = mxp / (float)((double)(qmax - qmin) / 2.0);
		sc = nmax(sc, eps);
		qref_set(&call->outputs[0], 0, (double)sc);
		qref_set(&call->outputs[1], 0, dt == QCF_UINT8 ? 128.0 : 0.0);
		qref_mark_exact(d, 0, 0);
		qref_mark_exact(d, 1, 0);
		return QCF_OK;
	}
	sc = (mxp - mnn) / (float)(double)(qmax - qmin);
	sc = nmax(sc, eps);
	qref_set(&call->outputs[0], 0, (double)sc);
	qref_mark_exact(d, 0, 0);
	/* quant_min - torch.round(min_val_neg / scale).to(torch.int), int32, then clamped */
	float rq = qref_torch_round_f(mnn / sc, r);
	if (isnan(rq) || rq < -0x1p31f || rq >= 0x1p31f) {
		/* the float-to-int32 conversion is undefined; the clamp bounds the result */
		qref_set(&call->outputs[1], 0, (double)qmin);
		qref_mark_any(d, 1, 0, (double)qmin, (double)qmax);
		return QCF_OK;
	}
	int32_t zp = (int32_t)(uint32_t)((uint64_t)qmin - (uint64_t)(int64_t)rq);
	int64_t zc = zp < qmin ? qmin : zp > qmax ? qmax : zp;
	qref_set(&call->outputs[1], 0, (double)zc);
	qref_mark_exact(d, 1, 0);
	return QCF_OK;
}

/* torch's ScalarType arguments by name */
#define TORCH_QDTYPES                                                                              \
	LIST("int8", "uint8", "int16", "uint16", "int32", "int64", "float8_e5m2", "float8_e4m3fn", \
	     "float32")
#define A_DTYPE                                                                                    \
	{                                                                                          \
		"dtype", QREF_ATTR_ENUM, 1, 0, 0, 0, TORCH_QDTYPES, 0, NULL                        \
	}

static const qref_attr_schema qrange_attrs[] = {
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        END,
};

static const qref_attr_schema group_attrs[] = {
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        A_INT("group_size", -INF, INF, "128"),
        END,
};

static const qref_attr_schema dtype_attrs[] = {
        A_DTYPE,
        END,
};

static const qref_attr_schema choose_attrs[] = {
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        A_NUM_REQ("eps"),
        A_DTYPE,
        END,
};

#define QIN LIST("input", "scales", "zero_points")

const qref_op qref_ops_torch_pt2e[] = {
        {.schema = {.semantics = "torch",
                    .op = "quantize_per_token",
                    IO(QIN, 3, 3, LIST("output"), 1),
                    .attrs = qrange_attrs},
         .kernel = quantize_per_token},
        {.schema = {.semantics = "torch",
                    .op = "dequantize_per_token",
                    IO(QIN, 3, 3, LIST("output"), 1),
                    .attrs = qrange_attrs},
         .kernel = dequantize_per_token},
        {.schema = {.semantics = "torch",
                    .op = "choose_qparams_per_token",
                    IO(LIST("input"), 1, 1, LIST("scales", "zero_points"), 2),
                    .attrs = dtype_attrs},
         .kernel = choose_qparams_per_token},
        {.schema = {.semantics = "torch",
                    .op = "choose_qparams_per_token_asymmetric",
                    IO(LIST("input"), 1, 1, LIST("scales", "zero_points"), 2),
                    .attrs = dtype_attrs},
         .kernel = choose_qparams_per_token_asymmetric},
        {.schema = {.semantics = "torch",
                    .op = "quantize_per_channel_group",
                    IO(QIN, 3, 3, LIST("output"), 1),
                    .attrs = group_attrs},
         .kernel = quantize_per_channel_group},
        {.schema = {.semantics = "torch",
                    .op = "dequantize_per_channel_group",
                    IO(QIN, 2, 3, LIST("output"), 1),
                    .attrs = group_attrs},
         .kernel = dequantize_per_channel_group},
        {.schema = {.semantics = "torch",
                    .op = "choose_qparams.tensor",
                    IO(LIST("input"), 1, 1, LIST("scale", "zero_point"), 2),
                    .attrs = choose_attrs},
         .kernel = choose_qparams_tensor,
         .param = 0},
        {.schema = {.semantics = "torch",
                    .op = "choose_qparams_symmetric.tensor",
                    IO(LIST("input"), 1, 1, LIST("scale", "zero_point"), 2),
                    .attrs = choose_attrs},
         .kernel = choose_qparams_tensor,
         .param = 1},
        {.schema = {.op = NULL}},
};
