/*
 * OCP Microscaling (MX) formats and NVFP4 (semantics "mx"; specs/mx/OPERATORS.md).
 *
 * Sources: OCP Microscaling Formats (MX) Specification v1.0 (Open Compute Project, 2023):
 * 5 (the scale X, float8 e8m0, and the element types), 6.1 and 6.2 (Dot, DotGeneral), 6.3
 * (conversion from a vector of scalars: X is the largest power of two <= max |V_i| divided by
 * the largest power of two of the element type, P_i = V_i / X quantized with the normal
 * numbers past the largest clamped to it, roundTiesToEven); the companion paper
 * "Microscaling Data Formats for Deep Learning" (arXiv 2310.10537), Algorithm 1; the emulation
 * library microsoft/microxcaling, mx/mx_ops.py (_shared_exponents, _quantize_mx) and
 * mx/formats.py (_get_format_params: emax and the largest element of each type). NVFP4:
 * pytorch/ao, torchao/prototype/mx_formats/nvfp4_tensor.py (_nvfp4_quantize with a per-tensor
 * scale, NVFP4Tensor.to_dtype / get_hp_scales).
 *
 * Every rounding is named here and in OPERATORS.md:
 *  - quantize_mx: shared_exp = floor(log2(amax)) - emax_elem (exact, from the float32's
 *    exponent), clamped below at -127 (the smallest e8m0 scale, as _quantize_mx clamps);
 *    V_i / X is exact (X a power of two; computed in double), then rounded once to the element
 *    type, nearest, ties to even, saturating at its largest value (qref_small_from). MXINT8:
 *    the element is an int8 q with value q / 64 (1.6 fixed point, emax 0), q = V_i / X * 64
 *    rounded to nearest even and clamped to [-127, 127] (the largest magnitude 1 63/64 of
 *    either sign, microxcaling's max_norm for int8).
 *  - a block holding a NaN or an infinity: X is NaN (0xff), as _shared_exponents makes a
 *    shared exponent past the range NaN; the float8 elements are V_i / NaN = NaN, the
 *    elements of types without NaN are unpredictable (any value of the type).
 *  - a block of zeros: max |V| = 0 has no log2; the spec gives no X. Every scale decodes the
 *    zero elements to 0, so the scale is unpredictable (any value but NaN); the reference
 *    writes 0x00 (2^-127, TOSA CAST_TO_BLOCK_SCALED's normal_min for a zero block).
 *  - dequantize_mx: element * 2^(s - 127), exact in double, rounded once to float32 (an
 *    overflow is +-inf); s = 0xff gives NaN.
 *  - dot_mx: the exact sum over the blocks of 2^(sa + sb - 254) * sum_i a_i * b_i (a wide
 *    fixed-point accumulator), rounded once to float32, nearest even. The spec leaves the
 *    internal precision to the implementation; each element's step is the bound of a float32
 *    accumulation of the same products (specs/mx/dot_mx.yaml's tolerance).
 *  - quantize_nvfp4 (torchao's float32 steps): bs = amax / 6; s = e4m3(clamp(bs / g, 2^-6,
 *    448)) nearest even; t = g * s; q = e2m1(clamp(x / t, -6, 6)) nearest even. A block
 *    holding a NaN: s is NaN (0x7f) and its elements are unpredictable; a zero block's scale is
 *    unpredictable in [0, 448] (its elements are 0 whatever it is).
 *  - dequantize_nvfp4: y = q * (g * s), the product g * s rounded to float32 first
 *    (get_hp_scales), then the product with q.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "kernel.h"
#include "op.h"

#define MX_BLOCK    32
#define NVFP4_BLOCK 16
#define ACC_LIMBS   12   /* 768 bits of fixed point */
#define ACC_LSB     -320 /* the accumulator's bit 0 is worth 2^ACC_LSB */

/* ---- element types ---- */

static int mx_elem(qcf_dtype t)
{
	return t == QCF_FLOAT8E4M3FN || t == QCF_FLOAT8E5M2 || t == QCF_FLOAT6E3M2 ||
	       t == QCF_FLOAT6E2M3 || t == QCF_FLOAT4E2M1 || t == QCF_INT8;
}

/* emax_elem: the exponent of the largest power of two of the element type (OCP MX v1.0,
 * 5.3; microxcaling mx/formats.py): E4M3 8, E5M2 15, E3M2 4, E2M3 2, E2M1 2, INT8 0. */
static int emax_elem(qcf_dtype t)
{
	switch (t) {
	case QCF_FLOAT8E4M3FN: return 8;
	case QCF_FLOAT8E5M2: return 15;
	case QCF_FLOAT6E3M2: return 4;
	case QCF_FLOAT6E2M3:
	case QCF_FLOAT4E2M1: return 2;
	default: return 0; /* INT8 */
	}
}

/* The exponent of the type's smallest step: every element value is an integer times
 * 2^unit_exp (int8: q / 64). */
static int unit_exp(qcf_dtype t)
{
	switch (t) {
	case QCF_FLOAT8E4M3FN: return -9;
	case QCF_FLOAT8E5M2: return -16;
	case QCF_FLOAT6E3M2: return -4;
	case QCF_FLOAT6E2M3: return -3;
	case QCF_FLOAT4E2M1: return -1;
	default: return -6;
	}
}

/* Element i of an MX element tensor as a value (int8: q / 64). */
static double elem_value(const qcf_tensor *t, size_t i)
{
	const double v = qref_get(t, i);
	return t->dtype == QCF_INT8 ? v / 64 : v;
}

static int has_nan(qcf_dtype t)
{
	return t == QCF_FLOAT8E4M3FN || t == QCF_FLOAT8E5M2;
}

/* ---- checks ---- */

/* The named roundings of the MX ops: none applies (they round to the element type). */
#define MX_NO_ROUNDING "to the element type's nearest even, not to an integer"

/* t's dtype is want ("what" names it in the message). */
static qcf_status want_dtype(const qcf_op_call *call, const qcf_tensor *t, qcf_dtype want,
                             qref_detail *d)
{
	if (t->dtype == want)
		return QCF_OK;
	return qref_fail_tensor(
	        d, t, QREF_PART_DTYPE, QCF_INVALID_PARAM, "%s: %s must be %s, got %s", call->op,
	        t->name ? t->name : "a tensor", qref_dtype_name(want), qref_dtype_name(t->dtype));
}

/* data [..., K] with K a multiple of bs, and scale [..., K / bs] (same leading dimensions). */
static qcf_status check_blocks(const qcf_op_call *call, const qcf_tensor *data,
                               const qcf_tensor *scale, int bs, qref_detail *d)
{
	if (data->rank < 1 || data->shape[data->rank - 1] % bs)
		return qref_fail_tensor(d, data, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: %s must have rank >= 1 and a last dimension that is a "
		                        "multiple of the block of %d",
		                        call->op, data->name ? data->name : "the data", bs);
	int ok = scale->rank == data->rank;
	for (int32_t k = 0; ok && k < data->rank; k++)
		ok = scale->shape[k] == (k + 1 < data->rank ? data->shape[k] : data->shape[k] / bs);
	if (!ok)
		return qref_fail_tensor(d, scale, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: %s must have %s's shape with the last dimension "
		                        "divided by %d",
		                        call->op, scale->name ? scale->name : "the scale",
		                        data->name ? data->name : "the data", bs);
	return QCF_OK;
}

/* ---- quantize_mx ---- */

/* One block: x[0..31] -> elements of y at base, the scale code. */
static uint8_t mx_block(const float *x, qcf_tensor *y, size_t base, qref_detail *d)
{
	const qcf_dtype t = y->dtype;
	float amax = 0;
	int special = 0;
	for (int j = 0; j < MX_BLOCK; j++) {
		if (!isfinite(x[j]))
			special = 1;
		else if (fabsf(x[j]) > amax)
			amax = fabsf(x[j]);
	}
	if (special) {
		/* X is NaN: the block is NaN whatever its elements */
		for (int j = 0; j < MX_BLOCK; j++) {
			if (has_nan(t)) {
				qref_mark_exact(d, 0, base + j);
				qref_set(y, base + j, NAN);
			} else {
				double lo = t == QCF_INT8 ? -128 : -qref_small_max(t);
				qref_mark_any(d, 0, base + j, lo, -lo);
				qref_set(y, base + j, 0);
			}
		}
		return 0xff;
	}
	int e = -127; /* a zero block: X = 2^-127 (unpredictable, marked by the caller) */
	if (amax > 0) {
		int ex;
		frexpf(amax, &ex); /* amax = m * 2^ex, m in [0.5, 1): floor(log2) = ex - 1 */
		e = ex - 1 - emax_elem(t);
		if (e < -127)
			e = -127;
	}
	for (int j = 0; j < MX_BLOCK; j++) {
		const double v = ldexp((double)x[j], -e); /* exact */
		qref_mark_exact(d, 0, base + j);
		if (t == QCF_INT8) {
			double q = qref_round_half(v * 64, QREF_ROUND_HALF_EVEN);
			qref_set(y, base + j, q > 127 ? 127 : q < -127 ? -127 : q);
		} else {
			qref_set(y, base + j, qref_small_to_f32(t, qref_small_from(t, v, 1)));
		}
	}
	return (uint8_t)(e + 127);
}

static qcf_status mx_quantize(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 2, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0], *sc = &call->outputs[1];
	if ((s = want_dtype(call, x, QCF_FLOAT32, d)) != QCF_OK ||
	    (s = want_dtype(call, sc, QCF_FLOAT8E8M0, d)) != QCF_OK)
		return s;
	if (!mx_elem(y->dtype))
		return qref_fail_output(
		        d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		        "%s: y must be an MX element type (float8e4m3fn, float8e5m2, "
		        "float6e3m2, float6e2m3, float4e2m1 or int8), got %s",
		        call->op, qref_dtype_name(y->dtype));
	if (!qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y's shape must equal x's", call->op);
	if ((s = check_blocks(call, x, sc, MX_BLOCK, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, MX_NO_ROUNDING)) != QCF_OK)
		return s;
	const size_t nb = qref_tensor_numel(x) / MX_BLOCK;
	for (size_t b = 0; b < nb; b++) {
		const float *xb = (const float *)x->data + b * MX_BLOCK;
		uint8_t code = mx_block(xb, y, b * MX_BLOCK, d);
		((uint8_t *)sc->data)[b] = code;
		int zero = code != 0xff;
		for (int j = 0; zero && j < MX_BLOCK; j++)
			zero = xb[j] == 0;
		if (zero)
			qref_mark_any(d, 1, b, 0x1p-127, 0x1p127);
		else
			qref_mark_exact(d, 1, b);
	}
	return QCF_OK;
}

/* ---- dequantize_mx ---- */

static qcf_status mx_dequantize(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *q = &call->inputs[0], *sc = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	if (!mx_elem(q->dtype))
		return qref_fail_tensor(
		        d, q, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		        "%s: x must be an MX element type (float8e4m3fn, float8e5m2, "
		        "float6e3m2, float6e2m3, float4e2m1 or int8), got %s",
		        call->op, qref_dtype_name(q->dtype));
	if ((s = want_dtype(call, sc, QCF_FLOAT8E8M0, d)) != QCF_OK ||
	    (s = want_dtype(call, y, QCF_FLOAT32, d)) != QCF_OK)
		return s;
	if (!qref_same_shape(q, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y's shape must equal x's", call->op);
	if ((s = check_blocks(call, q, sc, MX_BLOCK, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, MX_NO_ROUNDING)) != QCF_OK)
		return s;
	const size_t n = qref_tensor_numel(q);
	const uint8_t *codes = sc->data;
	for (size_t i = 0; i < n; i++) {
		const uint8_t c = codes[i / MX_BLOCK];
		const double v = c == 0xff ? NAN : ldexp(elem_value(q, i), (int)c - 127);
		qref_mark_exact(d, 0, i);
		((float *)y->data)[i] = (float)v; /* one rounding (only an overflow rounds) */
	}
	return QCF_OK;
}

/* ---- dot_mx: an exact accumulator ---- */

typedef struct acc {
	uint64_t pos[ACC_LIMBS], neg[ACC_LIMBS];
} acc;

static void limbs_add(uint64_t *a, uint64_t m, int bit)
{
	const int l = bit / 64, sh = bit % 64;
	const uint64_t add[2] = {m << sh, sh ? m >> (64 - sh) : 0};
	uint64_t carry = 0;
	for (int k = l; k < ACC_LIMBS; k++) {
		const uint64_t v = k - l < 2 ? add[k - l] : 0;
		const uint64_t s1 = a[k] + v, s2 = s1 + carry;
		carry = (uint64_t)(s1 < v) | (uint64_t)(s2 < carry);
		a[k] = s2;
		if (k - l >= 1 && !carry)
			break;
	}
}

/* acc += sign * m * 2^e; m * 2^e lies within the accumulator (checked by the caller's
 * ranges: ACC_LSB <= e, e + 64 < ACC_LSB + 64 * ACC_LIMBS). */
static void acc_add(acc *a, int neg, uint64_t m, int e)
{
	limbs_add(neg ? a->neg : a->pos, m, e - ACC_LSB);
}

/* a - b for a >= b (limb arrays); returns 1 when a < b (then computes b - a). */
static int limbs_sub(const uint64_t *a, const uint64_t *b, uint64_t *r)
{
	int k = ACC_LIMBS - 1;
	while (k >= 0 && a[k] == b[k])
		k--;
	int swap = k >= 0 && a[k] < b[k];
	if (swap) {
		const uint64_t *t = a;
		a = b;
		b = t;
	}
	uint64_t borrow = 0;
	for (k = 0; k < ACC_LIMBS; k++) {
		uint64_t d = a[k] - b[k] - borrow;
		borrow = a[k] < b[k] || (a[k] == b[k] && borrow);
		r[k] = d;
	}
	return swap;
}

static int limb_bit(const uint64_t *m, int bit)
{
	return bit < 0 ? 0 : (int)((m[bit / 64] >> (bit % 64)) & 1);
}

/* The accumulator's value rounded once to float32, nearest even (overflow: +-inf). */
static float acc_to_f32(const acc *a)
{
	uint64_t m[ACC_LIMBS];
	const int neg = limbs_sub(a->pos, a->neg, m);
	int top = ACC_LIMBS * 64 - 1;
	while (top >= 0 && !limb_bit(m, top))
		top--;
	if (top < 0)
		return 0.0f;
	/* the value is in [2^(top + ACC_LSB), 2^(top + ACC_LSB + 1)): keep 24 bits, fewer for a
	 * float32 subnormal (whose last bit is 2^-149) */
	int e_top = top + ACC_LSB;
	int keep_lsb = e_top - 23 < -149 ? -149 : e_top - 23; /* exponent of the last kept bit */
	int lsb = keep_lsb - ACC_LSB;                         /* its bit index */
	uint64_t sig = 0;
	for (int b = top; b >= lsb; b--)
		sig = sig << 1 | (uint64_t)limb_bit(m, b);
	int round = limb_bit(m, lsb - 1), sticky = 0;
	for (int b = lsb - 2; b >= 0 && !sticky; b--)
		sticky = limb_bit(m, b);
	if (round && (sticky || (sig & 1)))
		sig++;
	double v = ldexp((double)sig, keep_lsb); /* exact: sig <= 2^24 */
	float f = v > FLT_MAX ? INFINITY : (float)v;
	return neg ? -f : f;
}

/*
 * One output element: the dot of the rows a[ra .. ra + k), b[rb .. rb + k) and their scales.
 * *bound: the most a float32 accumulation of the same block terms (each product exact, each
 * block's sum of 32 and the sum over the blocks rounded at every addition, in any order) can
 * differ from the exact value: gamma(k + 2) * sum |terms| (Higham, Accuracy and Stability of
 * Numerical Algorithms, 3.1 and 4.2).
 */
static float mx_dot_row(const qcf_tensor *a, const uint8_t *sa, const qcf_tensor *b,
                        const uint8_t *sb, size_t ra, size_t rb, size_t k, double *bound)
{
	acc A;
	memset(&A, 0, sizeof A);
	int nan = 0, pinf = 0, ninf = 0;
	double mag = 0;
	const int ua = unit_exp(a->dtype), ub = unit_exp(b->dtype);
	for (size_t blk = 0; blk < k / MX_BLOCK; blk++) {
		const uint8_t ca = sa[ra / MX_BLOCK + blk], cb = sb[rb / MX_BLOCK + blk];
		if (ca == 0xff || cb == 0xff) {
			nan = 1;
			continue;
		}
		const int e = (int)ca + (int)cb - 254;
		for (int j = 0; j < MX_BLOCK; j++) {
			const size_t ia = ra + blk * MX_BLOCK + j, ib = rb + blk * MX_BLOCK + j;
			const double va = elem_value(a, ia), vb = elem_value(b, ib);
			if (isnan(va) || isnan(vb) || (isinf(va) && vb == 0) ||
			    (isinf(vb) && va == 0)) {
				nan = 1;
				continue;
			}
			if (isinf(va) || isinf(vb)) {
				if ((va < 0) != (vb < 0))
					ninf = 1;
				else
					pinf = 1;
				continue;
			}
			/* integers: |value| / 2^unit, each < 2^32 (e5m2: 57344 * 2^16) */
			const uint64_t ma = (uint64_t)ldexp(fabs(va), -ua),
			               mb = (uint64_t)ldexp(fabs(vb), -ub);
			if (!ma || !mb)
				continue;
			acc_add(&A, (va < 0) != (vb < 0), ma * mb, e + ua + ub);
			mag += ldexp(fabs(va * vb), e);
		}
	}
	const double u = 0x1p-24, g = (double)(k + 2) * u;
	*bound = 2 * g / (1 - g) * mag;
	if (nan || (pinf && ninf))
		return NAN;
	if (pinf || ninf)
		return pinf ? INFINITY : -INFINITY;
	return acc_to_f32(&A);
}

static qcf_status mx_dot(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 4, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *sa = &call->inputs[1], *b = &call->inputs[2],
	                 *sb = &call->inputs[3];
	qcf_tensor *y = &call->outputs[0];
	if (!mx_elem(a->dtype) || !mx_elem(b->dtype))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: a and b must be MX element types (float8e4m3fn, float8e5m2, "
		                 "float6e3m2, float6e2m3, float4e2m1 or int8), got %s and %s",
		                 call->op, qref_dtype_name(a->dtype), qref_dtype_name(b->dtype));
	if ((s = want_dtype(call, sa, QCF_FLOAT8E8M0, d)) != QCF_OK ||
	    (s = want_dtype(call, sb, QCF_FLOAT8E8M0, d)) != QCF_OK ||
	    (s = want_dtype(call, y, QCF_FLOAT32, d)) != QCF_OK ||
	    (s = check_blocks(call, a, sa, MX_BLOCK, d)) != QCF_OK ||
	    (s = check_blocks(call, b, sb, MX_BLOCK, d)) != QCF_OK)
		return s;
	int ok = qref_same_shape(a, b) && y->rank == a->rank - 1;
	for (int32_t k = 0; ok && k < y->rank; k++)
		ok = y->shape[k] == a->shape[k];
	if (!ok)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: a and b must have one shape [..., K] and y [...] (a's shape "
		                 "without K)",
		                 call->op);
	if ((s = qref_no_rounding(call, d, MX_NO_ROUNDING)) != QCF_OK)
		return s;
	const size_t k = (size_t)a->shape[a->rank - 1], rows = qref_tensor_numel(y);
	for (size_t r = 0; r < rows; r++) {
		double bound;
		((float *)y->data)[r] =
		        mx_dot_row(a, sa->data, b, sb->data, r * k, r * k, k, &bound);
		qref_mark_exact(d, 0, r);
		qref_set_step(d, 0, r, bound);
	}
	return QCF_OK;
}

/* ---- NVFP4 ---- */

/* The global (per-tensor) scale: a float32 scalar, finite and > 0. */
static qcf_status global_scale(const qcf_op_call *call, const qcf_tensor *g, float *out,
                               qref_detail *d)
{
	qcf_status s = want_dtype(call, g, QCF_FLOAT32, d);
	if (s != QCF_OK)
		return s;
	if (qref_tensor_numel(g) != 1 || g->rank > 1)
		return qref_fail_tensor(d, g, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: global_scale must be a scalar (shape [] or [1])",
		                        call->op);
	*out = *(const float *)g->data;
	if (!(*out > 0) || isinf(*out))
		return qref_fail_tensor(d, g, QREF_PART_DATA, QCF_INVALID_PARAM,
		                        "%s: global_scale must be finite and > 0, got %g", call->op,
		                        (double)*out);
	return QCF_OK;
}

static qcf_status nvfp4_quantize(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 2, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0], *sc = &call->outputs[1];
	float g;
	if ((s = want_dtype(call, x, QCF_FLOAT32, d)) != QCF_OK ||
	    (s = global_scale(call, &call->inputs[1], &g, d)) != QCF_OK ||
	    (s = want_dtype(call, y, QCF_FLOAT4E2M1, d)) != QCF_OK ||
	    (s = want_dtype(call, sc, QCF_FLOAT8E4M3FN, d)) != QCF_OK)
		return s;
	if (!qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y's shape must equal x's", call->op);
	if ((s = check_blocks(call, x, sc, NVFP4_BLOCK, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, MX_NO_ROUNDING)) != QCF_OK)
		return s;
	const size_t nb = qref_tensor_numel(x) / NVFP4_BLOCK;
	for (size_t b = 0; b < nb; b++) {
		const float *xb = (const float *)x->data + b * NVFP4_BLOCK;
		float amax = 0;
		int nan = 0;
		for (int j = 0; j < NVFP4_BLOCK; j++) {
			if (isnan(xb[j]))
				nan = 1;
			else if (fabsf(xb[j]) > amax)
				amax = fabsf(xb[j]);
		}
		const size_t base = b * NVFP4_BLOCK;
		if (nan) {
			((uint8_t *)sc->data)[b] = 0x7f; /* e4m3fn NaN */
			qref_mark_exact(d, 1, b);
			for (int j = 0; j < NVFP4_BLOCK; j++) {
				qref_mark_any(d, 0, base + j, -6, 6);
				qref_set(y, base + j, 0);
			}
			continue;
		}
		float bs = amax / 6.0f;
		float r = bs / g;
		r = r < 0x1p-6f ? 0x1p-6f : r > 448.0f ? 448.0f : r; /* torch.clamp */
		const uint8_t code = qref_small_from(QCF_FLOAT8E4M3FN, r, 1);
		((uint8_t *)sc->data)[b] = code;
		if (amax == 0)
			qref_mark_any(d, 1, b, 0, 448);
		else
			qref_mark_exact(d, 1, b);
		const float total = g * qref_small_to_f32(QCF_FLOAT8E4M3FN, code);
		for (int j = 0; j < NVFP4_BLOCK; j++) {
			float v = xb[j] / total;
			v = v < -6.0f ? -6.0f : v > 6.0f ? 6.0f : v;
			qref_mark_exact(d, 0, base + j);
			qref_set(y, base + j,
			         qref_small_to_f32(QCF_FLOAT4E2M1,
			                           qref_small_from(QCF_FLOAT4E2M1, v, 1)));
		}
	}
	return QCF_OK;
}

static qcf_status nvfp4_dequantize(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 3, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *q = &call->inputs[0], *sc = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	float g;
	if ((s = want_dtype(call, q, QCF_FLOAT4E2M1, d)) != QCF_OK ||
	    (s = want_dtype(call, sc, QCF_FLOAT8E4M3FN, d)) != QCF_OK ||
	    (s = global_scale(call, &call->inputs[2], &g, d)) != QCF_OK ||
	    (s = want_dtype(call, y, QCF_FLOAT32, d)) != QCF_OK)
		return s;
	if (!qref_same_shape(q, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y's shape must equal x's", call->op);
	if ((s = check_blocks(call, q, sc, NVFP4_BLOCK, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, MX_NO_ROUNDING)) != QCF_OK)
		return s;
	const size_t n = qref_tensor_numel(q);
	const uint8_t *codes = sc->data;
	for (size_t i = 0; i < n; i++) {
		const float t = g * qref_small_to_f32(QCF_FLOAT8E4M3FN, codes[i / NVFP4_BLOCK]);
		qref_mark_exact(d, 0, i);
		((float *)y->data)[i] = (float)qref_get(q, i) * t;
	}
	return QCF_OK;
}

const qref_op qref_ops_mx[] = {
        {.schema = {.semantics = "mx",
                    .op = "quantize_mx",
                    IO(LIST("x"), 1, 1, LIST("y", "scale"), 2),
                    .attrs = qref_no_attrs},
         .kernel = mx_quantize},
        {.schema = {.semantics = "mx",
                    .op = "dequantize_mx",
                    IO(LIST("x", "scale"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = mx_dequantize},
        {.schema = {.semantics = "mx",
                    .op = "dot_mx",
                    IO(LIST("a", "a_scale", "b", "b_scale"), 4, 4, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = mx_dot},
        {.schema = {.semantics = "mx",
                    .op = "quantize_nvfp4",
                    IO(LIST("x", "global_scale"), 2, 2, LIST("y", "scale"), 2),
                    .attrs = qref_no_attrs},
         .kernel = nvfp4_quantize},
        {.schema = {.semantics = "mx",
                    .op = "dequantize_nvfp4",
                    IO(LIST("x", "scale", "global_scale"), 3, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = nvfp4_dequantize},
        {.schema = {.op = NULL}},
};
