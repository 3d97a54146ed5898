/*
 * ONNX QLinearMatMul, MatMulInteger, QLinearConv, ConvInteger and
 * DynamicQuantizeLinear (specs/onnx/OPERATORS.md).
 *
 * Sources: onnx/defs/math/defs.cc (QLinearMatMul, MatMulInteger),
 * onnx/defs/nn/defs.cc (QLinearConv, ConvInteger, convPoolShapeInference),
 * onnx/defs/quantization/defs.cc (DynamicQuantizeLinear) and the numpy
 * reference onnx/reference/ops/op_qlinear_matmul.py, op_qlinear_conv.py,
 * op_matmul_integer.py, op_conv_integer.py, op_dynamic_quantize_linear.py.
 *
 * Requantization (QLinearMatMul, QLinearConv): the accumulator is an int32
 * sum of (a - za) * (b - zb) (plus the int32 bias in QLinearConv); the
 * combined scale a_scale * b_scale / y_scale is computed in float32 (numpy
 * float32 arrays: one float32 product, one float32 quotient); the int32
 * accumulator times that float32 array is float64 (numpy promotes int32 with
 * float32 to float64); y_zero_point is added in float64 BEFORE rounding;
 * np.rint / np.round round ties to even; then saturate to the output type.
 * Per-row a scales and per-column b scales (QLinearMatMul) and per-output-
 * channel w scales (QLinearConv) select the scale of each output element.
 *
 * Where the numpy reference and the schema differ, this file follows the
 * schema: the reference broadcasts a 1-D per-row scale or zero point along
 * the last axis, and its auto_pad reads the wrong input dimension.
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

static int is_q8(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8;
}

static const char *tname(qcf_dtype t)
{
	return qref_dtype_name(t);
}

/* Element i of an int8 or uint8 tensor (the operands of every op here are 8-bit). */
static inline int32_t q8_at(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

/* An 8-bit value minus a zero point of its type lies in [-255, 255]: operands are kept as int16,
 * and a product's magnitude is at most 255 * 255, so that DOT16_CHUNK products sum exactly in
 * int32. */
#define DOT16_CHUNK 32768

/* The exact sum of x[k] * y[k] for k < n: int32 sums of DOT16_CHUNK products, added in int64. */
static int64_t dot16(const int16_t *x, const int16_t *y, int64_t n)
{
	int64_t s = 0;
	for (int64_t k0 = 0; k0 < n; k0 += DOT16_CHUNK) {
		int64_t k1 = n - k0 < DOT16_CHUNK ? n : k0 + DOT16_CHUNK;
		int32_t a = 0;
		for (int64_t k = k0; k < k1; k++)
			a += (int32_t)x[k] * y[k];
		s += a;
	}
	return s;
}

/* Wraps an exact sum to int32 as numpy's int32 matmul does (two's complement). */
static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

/* A zero point that must lie in its tensor's type (ONNX: the zero point has that type). */
static qcf_status check_zp_range(const qcf_op_call *call, const char *what, qcf_dtype t,
                                 const int32_t *zp, int32_t n, qref_detail *d)
{
	double lo, hi;
	qref_range_d(t, &lo, &hi);
	for (int32_t i = 0; i < n; i++)
		if (zp[i] < lo || zp[i] > hi)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: %s %" PRId32
			                 " does not fit %s (the zero point has its tensor's "
			                 "type)",
			                 call->op, what, zp[i], tname(t));
	return QCF_OK;
}

/* Tensors whose parameters travel as inputs must carry no quantization. */
static qcf_status no_quant(const qcf_op_call *call, qref_detail *d)
{
	for (int32_t i = 0; i < call->n_inputs; i++)
		if (call->inputs[i].quant)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: input %" PRId32
			                 " carries quantization; this op takes its zero "
			                 "points as input tensors",
			                 call->op, i);
	for (int32_t i = 0; i < call->n_outputs; i++)
		if (call->outputs[i].quant)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: output %" PRId32
			                 " carries quantization; the output is plain "
			                 "int32",
			                 call->op, i);
	return QCF_OK;
}

/* Default, or half_even (the same), or another half_* where an op honours it. */
static qcf_status rounding_ok(const qcf_op_call *call, qref_detail *d, int allow_half,
                              const char *what)
{
	const qref_rounding r = qref_detail_rounding(d);
	if (r == QREF_ROUND_DEFAULT || r == QREF_ROUND_HALF_EVEN ||
	    (allow_half && qref_rounding_is_half(r))) {
		qref_set_default_rounding(d, QREF_ROUND_HALF_EVEN);
		return QCF_OK;
	}
	return qref_rounding_na(call, d, r, what);
}

/* rint (ties to even) or the named QREF_ROUND_HALF_* rounding. */
static double round_named(double v, qref_rounding r)
{
	if (r == QREF_ROUND_DEFAULT || r == QREF_ROUND_HALF_EVEN)
		return nearbyint(v);
	return qref_round_half(v, r);
}

/* Inputs 0 and 1 (a, b or x, w) must be 8-bit: QLinearMatMul, QLinearConv, MatMulInteger and
 * ConvInteger take T1, T2 in {int8, uint8} (onnx/defs/math/defs.cc, onnx/defs/nn/defs.cc). */
static qcf_status q8_inputs(const qcf_op_call *call, const char *n0, const char *n1, qref_detail *d)
{
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	if (!is_q8(a->dtype) || !is_q8(b->dtype))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: %s and %s must be int8 or uint8, got %s, %s", call->op, n0,
		                 n1, tname(a->dtype), tname(b->dtype));
	return QCF_OK;
}

/* The checks MatMulInteger and ConvInteger share: inputs [n0, n1, n0_zero_point?,
 * n1_zero_point?] with no quantization, 8-bit n0 and n1, output [y: int32], nothing to round. */
static qcf_status integer_op_check(const qcf_op_call *call, const char *n0, const char *n1,
                                   qref_detail *d)
{
	if (call->n_inputs < 2 || call->n_inputs > 4)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s expects 2 to 4 inputs (%s, %s, %s_zero_point, %s_zero_point), "
		                 "got %" PRId32 "",
		                 call->op, n0, n1, n0, n1, call->n_inputs);
	qcf_status s = qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK || (s = no_quant(call, d)) != QCF_OK ||
	    (s = rounding_ok(call, d, 0, "nothing")) != QCF_OK ||
	    (s = q8_inputs(call, n0, n1, d)) != QCF_OK)
		return s;
	const qcf_tensor *y = &call->outputs[0];
	if (y->dtype != QCF_INT32)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: y must be int32, got %s", call->op,
		                 tname(y->dtype));
	return QCF_OK;
}

/* The output of QLinearMatMul and QLinearConv: quantized per tensor, its zero point in its type,
 * rounding by `formula` (default: half to even). */
static qcf_status qlinear_output(const qcf_op_call *call, const char *what, const char *formula,
                                 qcf_quant *qy, qref_detail *d)
{
	const qcf_tensor *y = &call->outputs[0];
	qcf_status s;
	if ((s = qref_get_quant(y, what, 1, qy, d)) != QCF_OK ||
	    (s = check_zp_range(call, "y_zero_point", y->dtype, qy->zero_points, 1, d)) != QCF_OK ||
	    (s = rounding_ok(call, d, 1, formula)) != QCF_OK)
		return s;
	return QCF_OK;
}

/* y[o] = clip(round(v)) as op_qlinear_matmul.py / op_qlinear_conv.py do (np.round, or the named
 * rounding); any value of y's type [lo, hi] where the reference is undefined (a NaN, or
 * `undefined`). */
static void qlinear_set(qcf_tensor *y, size_t o, double v, int undefined, qref_rounding rnd,
                        double lo, double hi, qref_detail *d)
{
	if (undefined || isnan(v)) {
		qref_mark_any(d, 0, o, lo, hi);
		qref_set(y, o, lo);
		return;
	}
	qref_mark_exact(d, 0, o);
	double q = qref_clamp_d(round_named(v, rnd), lo, hi); /* an integer of y's type */
	if (y->dtype == QCF_INT8)
		((int8_t *)y->data)[o] = (int8_t)q;
	else
		((uint8_t *)y->data)[o] = (uint8_t)q;
}

/* ------------------------------------------------------------------ */
/* matmul geometry (numpy.matmul broadcasting; onnx/defs/math/utils.cc MatMulShapeInference) */

qcf_status qref_mm_shape(const qcf_op_call *call, const qcf_tensor *a, const qcf_tensor *b,
                         const qcf_tensor *y, qref_mm_geom *g, qref_detail *d)
{
	if (a->rank < 1 || b->rank < 1)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: a and b need rank >= 1 (numpy.matmul)",
		                 call->op);
	int32_t ra = a->rank, rb = b->rank;
	g->m = ra >= 2 ? a->shape[ra - 2] : 1;
	g->k = a->shape[ra - 1];
	int64_t kb = rb >= 2 ? b->shape[rb - 2] : b->shape[0];
	g->n = rb >= 2 ? b->shape[rb - 1] : 1;
	if (kb != g->k)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: shapes do not multiply: a has %lld columns, b %lld rows",
		                 call->op, (long long)g->k, (long long)kb);
	int32_t na = ra > 2 ? ra - 2 : 0, nbb = rb > 2 ? rb - 2 : 0;
	g->nb = na > nbb ? na : nbb;
	int64_t sa = 1, sb = 1;
	g->nbatch = 1;
	for (int32_t j = g->nb - 1; j >= 0; j--) {
		int32_t ja = j - (g->nb - na), jb = j - (g->nb - nbb);
		int64_t da = ja >= 0 ? a->shape[ja] : 1, db = jb >= 0 ? b->shape[jb] : 1;
		if (da != db && da != 1 && db != 1)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: batch dimensions %lld and %lld do not broadcast",
			                 call->op, (long long)da, (long long)db);
		g->bdim[j] = da > db ? da : db;
		if (da == 0 || db == 0)
			g->bdim[j] = 0;
		g->astride[j] = da == 1 ? 0 : sa;
		g->bstride[j] = db == 1 ? 0 : sb;
		sa *= da;
		sb *= db;
		g->nbatch *= (size_t)g->bdim[j];
	}
	/* the output: batch dims, then M unless a is 1-D, then N unless b is 1-D */
	int64_t want[QCF_MAX_RANK + 2];
	int32_t rw = 0;
	for (int32_t j = 0; j < g->nb; j++)
		want[rw++] = g->bdim[j];
	if (ra >= 2)
		want[rw++] = g->m;
	if (rb >= 2)
		want[rw++] = g->n;
	int same = y->rank == rw;
	for (int32_t j = 0; same && j < rw; j++)
		same = y->shape[j] == want[j];
	if (!same)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: output shape does not match numpy.matmul of a and b",
		                        call->op);
	return QCF_OK;
}

/* Matrix offsets (in matrices) of a and b for output batch index bi. */
void qref_mm_batch(const qref_mm_geom *g, size_t bi, int64_t *ao, int64_t *bo)
{
	*ao = *bo = 0;
	for (int32_t j = g->nb - 1; j >= 0; j--) {
		int64_t c = (int64_t)(bi % (size_t)g->bdim[j]);
		bi /= (size_t)g->bdim[j];
		*ao += c * g->astride[j];
		*bo += c * g->bstride[j];
	}
}

/*
 * Exact sum over k of (a - za[row]) * (b - zb[col]) for every output element, in row-major
 * output order; za / zb index with row / column when per-row / per-column (na, nb > 1). Per
 * batch, a minus its zero points as int16 rows and b minus its zero points transposed to int16
 * rows, then one dot16 per element. -1 when out of memory.
 */
static int mm_acc(const qref_mm_geom *g, const qcf_tensor *a, const qcf_tensor *b,
                  const int32_t *za, int32_t nza, const int32_t *zb, int32_t nzb, int64_t *acc)
{
	size_t mk = (size_t)(g->m * g->k), kn = (size_t)(g->k * g->n), out = 0;
	int16_t *ar = malloc((mk ? mk : 1) * sizeof *ar), *bt = malloc((kn ? kn : 1) * sizeof *bt);
	if (!ar || !bt) {
		free(ar);
		free(bt);
		return -1;
	}
	for (size_t bi = 0; bi < g->nbatch; bi++) {
		int64_t ao, bo;
		qref_mm_batch(g, bi, &ao, &bo);
		size_t abase = (size_t)ao * mk, bbase = (size_t)bo * kn;
		for (int64_t i = 0; i < g->m; i++) {
			int32_t zi = za[nza > 1 ? i : 0];
			for (int64_t t = 0; t < g->k; t++)
				ar[i * g->k + t] =
				        (int16_t)(q8_at(a, abase + (size_t)(i * g->k + t)) - zi);
		}
		for (int64_t t = 0; t < g->k; t++)
			for (int64_t j = 0; j < g->n; j++)
				bt[j * g->k + t] =
				        (int16_t)(q8_at(b, bbase + (size_t)(t * g->n + j)) -
				                  zb[nzb > 1 ? j : 0]);
		for (int64_t i = 0; i < g->m; i++)
			for (int64_t j = 0; j < g->n; j++)
				acc[out++] = dot16(ar + i * g->k, bt + j * g->k, g->k);
	}
	free(ar);
	free(bt);
	return 0;
}

/* ------------------------------------------------------------------ */
/* QLinearMatMul: inputs [a, b] with quant, output [y] with quant */

typedef struct qmm {
	qref_mm_geom g;
	qcf_quant qa, qb;
} qmm;

static qcf_status qmm_inputs(const qcf_op_call *call, qmm *p, qref_detail *d)
{
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1], *y = &call->outputs[0];
	qcf_status s = q8_inputs(call, "a", "b", d);
	if (s != QCF_OK)
		return s;
	if (!is_q8(y->dtype))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: y must be int8 or uint8, got %s",
		                 call->op, tname(y->dtype));
	if ((s = qref_mm_shape(call, a, b, y, &p->g, d)) != QCF_OK ||
	    (s = qref_get_quant(a, "QLinearMatMul a", 0, &p->qa, d)) != QCF_OK ||
	    (s = qref_get_quant(b, "QLinearMatMul b", 0, &p->qb, d)) != QCF_OK)
		return s;
	if (p->qa.axis >= 0 && (a->rank < 2 || p->qa.axis != a->rank - 2))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: a is quantized per tensor or per row (axis rank(a)-2), not "
		                 "along axis %" PRId32 "",
		                 call->op, p->qa.axis);
	if (p->qb.axis >= 0 && (b->rank < 2 || p->qb.axis != b->rank - 1))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: b is quantized per tensor or per column (axis rank(b)-1), not "
		        "along axis %" PRId32 "",
		        call->op, p->qb.axis);
	if ((s = check_zp_range(call, "a_zero_point", a->dtype, p->qa.zero_points, p->qa.count,
	                        d)) != QCF_OK ||
	    (s = check_zp_range(call, "b_zero_point", b->dtype, p->qb.zero_points, p->qb.count,
	                        d)) != QCF_OK)
		return s;
	return QCF_OK;
}

/* Row-major output element o -> (row, column) of its matrix. */
static void mm_rc(const qref_mm_geom *g, size_t o, int64_t *i, int64_t *j)
{
	size_t in_mat = o % (size_t)(g->m * g->n);
	*i = (int64_t)in_mat / g->n;
	*j = (int64_t)in_mat % g->n;
}

static qcf_status qref_onnx_qlinear_matmul(const qcf_op_call *call, const qref_op *row,
                                           qref_detail *d)
{
	(void)row;
	qmm p;
	qcf_quant qy;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK || (s = qmm_inputs(call, &p, d)) != QCF_OK)
		return s;
	qcf_tensor *y = &call->outputs[0];
	if ((s = qlinear_output(call, "QLinearMatMul y",
	                        "acc * (a_scale * b_scale / y_scale) + y_zero_point", &qy, d)) !=
	    QCF_OK)
		return s;
	const qref_rounding rnd = qref_detail_rounding(d);
	size_t n = qref_tensor_numel(y);
	int64_t *acc = n ? malloc(n * sizeof *acc) : NULL;
	if (n && !acc)
		return qref_fail(d, QCF_ERROR, "out of memory");
	if (mm_acc(&p.g, &call->inputs[0], &call->inputs[1], p.qa.zero_points, p.qa.count,
	           p.qb.zero_points, p.qb.count, acc) < 0) {
		free(acc);
		return qref_fail(d, QCF_ERROR, "out of memory");
	}
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	for (size_t o = 0; o < n; o++) {
		int64_t i, j;
		mm_rc(&p.g, o, &i, &j);
		/* op_qlinear_matmul.py: a_scale * b_scale / y_scale in float32 */
		float ms = (p.qa.scales[p.qa.count > 1 ? i : 0] *
		            p.qb.scales[p.qb.count > 1 ? j : 0]) /
		           qy.scales[0];
		/* C (int32) * float32 -> float64, + y_zero_point, rint, clip */
		double v = (double)wrap32(acc[o]) * (double)ms + (double)qy.zero_points[0];
		qlinear_set(y, o, v, 0, rnd, lo, hi, d);
	}
	free(acc);
	return QCF_OK;
}

/* Real-valued y: sum of real(a) * real(b) = acc * a_scale * b_scale in double. */
static qcf_status qref_onnx_qlinear_matmul_real(const qcf_op_call *call, const qref_op *row, int k,
                                                double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	qmm p;
	qcf_status s = qref_check_call_shapes(call, 2, 1, d);
	if (s != QCF_OK || (s = qmm_inputs(call, &p, d)) != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(&call->outputs[0]);
	int64_t *acc = n ? malloc(n * sizeof *acc) : NULL;
	if (n && !acc)
		return qref_fail(d, QCF_ERROR, "out of memory");
	if (mm_acc(&p.g, &call->inputs[0], &call->inputs[1], p.qa.zero_points, p.qa.count,
	           p.qb.zero_points, p.qb.count, acc) < 0) {
		free(acc);
		return qref_fail(d, QCF_ERROR, "out of memory");
	}
	for (size_t o = 0; o < n; o++) {
		int64_t i, j;
		mm_rc(&p.g, o, &i, &j);
		values[o] = (double)acc[o] * (double)p.qa.scales[p.qa.count > 1 ? i : 0] *
		            (double)p.qb.scales[p.qb.count > 1 ? j : 0];
	}
	free(acc);
	return QCF_OK;
}

/* ------------------------------------------------------------------ */
/* zero points as input tensors (MatMulInteger, ConvInteger) */

/*
 * Optional zero point input idx of the tensor `of`: absent -> {0}; it must have of's dtype
 * and shape [] or [1] (per tensor) or [per] (when per > 0: per row / column / channel).
 * *n gets 1 or per.
 */
static qcf_status zp_input(const qcf_op_call *call, int idx, const char *what, const qcf_tensor *of,
                           int64_t per, const char *per_what, int32_t *buf, int32_t *n,
                           qref_detail *d)
{
	*n = 1;
	buf[0] = 0;
	if (idx >= call->n_inputs)
		return QCF_OK;
	const qcf_tensor *z = &call->inputs[idx];
	if (z->dtype != of->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: %s must have the type of %s (%s), got %s", call->op, what,
		                 of->name ? of->name : "its input", tname(of->dtype),
		                 tname(z->dtype));
	size_t cnt = qref_tensor_numel(z);
	int per_tensor = z->rank == 0 || (z->rank == 1 && z->shape[0] == 1);
	int per_axis = per > 0 && z->rank == 1 && z->shape[0] == per;
	if (!per_tensor && !per_axis) {
		if (per > 0)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: %s must have shape [] or [1] (per tensor) or [%lld] (%s)",
			        call->op, what, (long long)per, per_what);
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: %s must have shape [] or [1] (per tensor)", call->op, what);
	}
	if (per_axis && per > (1 << 24))
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: %s too long", call->op, what);
	*n = (int32_t)cnt;
	for (size_t i = 0; i < cnt; i++)
		buf[i] = (int32_t)qref_get(z, i);
	return QCF_OK;
}

/* ------------------------------------------------------------------ */
/* MatMulInteger: inputs [a, b, a_zero_point?, b_zero_point?], output [y: int32] */

static qcf_status qref_onnx_matmul_integer(const qcf_op_call *call, const qref_op *row,
                                           qref_detail *d)
{
	(void)row;
	qcf_status s = integer_op_check(call, "a", "b", d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	qref_mm_geom g;
	if ((s = qref_mm_shape(call, a, b, y, &g, d)) != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(y);
	int32_t *za = calloc((size_t)g.m + 1, sizeof *za);
	int32_t *zb = calloc((size_t)g.n + 1, sizeof *zb);
	int64_t *acc = calloc(n + 1, sizeof *acc);
	int32_t nza = 1, nzb = 1;
	if (!za || !zb || !acc)
		s = qref_fail(d, QCF_ERROR, "out of memory");
	if (s == QCF_OK)
		s = zp_input(call, 2, "a_zero_point", a, a->rank >= 2 ? g.m : 0, "per row of a", za,
		             &nza, d);
	if (s == QCF_OK)
		s = zp_input(call, 3, "b_zero_point", b, b->rank >= 2 ? g.n : 0, "per column of b",
		             zb, &nzb, d);
	if (s == QCF_OK && mm_acc(&g, a, b, za, nza, zb, nzb, acc) < 0)
		s = qref_fail(d, QCF_ERROR, "out of memory");
	if (s == QCF_OK) {
		/* op_matmul_integer.py: int32 arrays, A32 @ B32 (wraps on overflow) */
		for (size_t o = 0; o < n; o++) {
			qref_mark_exact(d, 0, o);
			((int32_t *)y->data)[o] = wrap32(acc[o]);
		}
	}
	free(za);
	free(zb);
	free(acc);
	return s;
}

/* ------------------------------------------------------------------ */
/* convolution geometry (convPoolShapeInference, onnx/defs/nn/defs.cc) */

/* An INTS attribute of n entries, each >= min; def when absent. */
static qcf_status ints_attr(const qcf_op_call *call, const char *name, int32_t n, int64_t min,
                            int64_t def, int64_t *out, int *given, qref_detail *d)
{
	const qcf_attr *a = qref_attr_find(call, name);
	if (given)
		*given = a != NULL;
	for (int32_t i = 0; i < n; i++)
		out[i] = def;
	if (!a)
		return QCF_OK;
	if (a->count != n || (a->type != QCF_ATTR_INTS && a->type != QCF_ATTR_FLOATS &&
	                      !(n == 1 && (a->type == QCF_ATTR_INT || a->type == QCF_ATTR_FLOAT))))
		return qref_fail_attr(d, name, QCF_INVALID_PARAM,
		                      "%s: attribute %s needs %" PRId32 " integers", call->op, name,
		                      n);
	for (int32_t i = 0; i < n; i++) {
		double v = a->type == QCF_ATTR_INTS     ? (double)a->v.ints[i]
		           : a->type == QCF_ATTR_FLOATS ? a->v.floats[i]
		           : a->type == QCF_ATTR_INT    ? (double)a->v.i
		                                        : a->v.f;
		if (v != floor(v) || v < (double)min || v > 1e9)
			return qref_fail_attr(d, name, QCF_INVALID_PARAM,
			                      "%s: attribute %s: %g is not an integer >= %lld",
			                      call->op, name, v, (long long)min);
		out[i] = (int64_t)v;
	}
	return QCF_OK;
}

qcf_status qref_conv_shape(const qcf_op_call *call, const qcf_tensor *x, const qcf_tensor *w,
                           const qcf_tensor *y, qref_conv_geom *g, qref_detail *d)
{
	if (x->rank < 3)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: x must have at least 3 dimensions (N, C, spatial...), got "
		                 "rank %" PRId32 "",
		                 call->op, x->rank);
	if (w->rank != x->rank)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: w must have x's rank %" PRId32
		                 " (M, C/group, kernel...), got %" PRId32 "",
		                 call->op, x->rank, w->rank);
	g->nsp = x->rank - 2;
	g->batch = x->shape[0];
	g->cin = x->shape[1];
	g->cout = w->shape[0];
	int64_t grp = 1;
	if (qref_attr_int(call, "group", &grp) < 0 || grp < 1)
		return qref_fail_attr(d, "group", QCF_INVALID_PARAM,
		                      "%s: group must be an integer >= 1", call->op);
	g->group = grp;
	if (g->cin != w->shape[1] * grp || g->cout % grp != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: x has %lld channels and w is [%lld, %lld, ...] with group "
		                 "%lld: need C == w[1] * group and M divisible by group",
		                 call->op, (long long)g->cin, (long long)g->cout,
		                 (long long)w->shape[1], (long long)grp);
	g->cg = w->shape[1];
	g->mg = g->cout / grp;
	int64_t ks[QCF_MAX_RANK], pads[2 * QCF_MAX_RANK];
	int ks_given, pads_given;
	qcf_status s;
	if ((s = ints_attr(call, "kernel_shape", g->nsp, 0, 0, ks, &ks_given, d)) != QCF_OK ||
	    (s = ints_attr(call, "strides", g->nsp, 1, 1, g->stride, NULL, d)) != QCF_OK ||
	    (s = ints_attr(call, "dilations", g->nsp, 1, 1, g->dil, NULL, d)) != QCF_OK ||
	    (s = ints_attr(call, "pads", 2 * g->nsp, 0, 0, pads, &pads_given, d)) != QCF_OK)
		return s;
	g->in_sp = g->k_sp = g->out_sp = 1;
	for (int32_t i = 0; i < g->nsp; i++) {
		g->in[i] = x->shape[2 + i];
		g->k[i] = w->shape[2 + i];
		if (ks_given && ks[i] != g->k[i])
			return qref_fail_attr(d, "kernel_shape", QCF_INVALID_PARAM,
			                      "%s: kernel_shape[%" PRId32
			                      "] = %lld but w's kernel dimension is %lld",
			                      call->op, i, (long long)ks[i], (long long)g->k[i]);
		g->in_sp *= (size_t)g->in[i];
		g->k_sp *= (size_t)g->k[i];
	}
	static const char *const modes[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
	int mode = 0;
	const qcf_attr *ap = qref_attr_find(call, "auto_pad");
	if (ap) {
		mode = -1;
		for (int i = 0; ap->type == QCF_ATTR_STRING && ap->v.s && i < 4; i++)
			if (strcmp(ap->v.s, modes[i]) == 0)
				mode = i;
		if (mode < 0)
			return qref_fail_attr(
			        d, "auto_pad", QCF_INVALID_PARAM,
			        "%s: auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID",
			        call->op);
	}
	if (mode != 0 && pads_given)
		return qref_fail_attr(d, "pads", QCF_INVALID_PARAM,
		                      "%s: pads cannot be used together with auto_pad %s", call->op,
		                      modes[mode]);
	int64_t want[QCF_MAX_RANK];
	want[0] = g->batch;
	want[1] = g->cout;
	for (int32_t i = 0; i < g->nsp; i++) {
		int64_t keff = (g->k[i] - 1) * g->dil[i] + 1, pb = pads[i], pe = pads[i + g->nsp];
		if (mode == 1 || mode == 2) {
			/* convPoolShapeInference: total pad from the residual of in / stride */
			int64_t st = g->stride[i], res = st > 1 ? g->in[i] % st : 0;
			int64_t total = res == 0 ? keff - st : keff - res;
			if (total < 0)
				total = 0;
			int64_t small = total >> 1, big = total - small;
			pb = mode == 1 ? small : big;
			pe = mode == 1 ? big : small;
		} else if (mode == 3) {
			pb = pe = 0;
		}
		int64_t span = g->in[i] + pb + pe - keff;
		if (span < 0)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: the dilated kernel (%lld) is larger than the padded input "
			        "(%lld) in spatial dimension %" PRId32 "",
			        call->op, (long long)keff, (long long)(g->in[i] + pb + pe), i);
		g->out[i] = span / g->stride[i] + 1;
		g->pad0[i] = pb;
		g->out_sp *= (size_t)g->out[i];
		want[2 + i] = g->out[i];
	}
	int same = y->rank == x->rank;
	for (int32_t i = 0; same && i < y->rank; i++)
		same = y->shape[i] == want[i];
	if (!same)
		return qref_fail_output(
		        d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "%s: output shape must be [N, M, out...] = [%lld, %lld, %lld, ...]",
		        call->op, (long long)want[0], (long long)want[1], (long long)want[2]);
	return QCF_OK;
}

/*
 * Exact conv accumulators in y's row-major order: sum of (x - zx) * (w - zw[m]) over the
 * group's channels and the taps inside x (padding contributes 0: the reference pads x after
 * subtracting its zero point), plus bias[m] when bias != NULL. w minus its zero points as int16
 * once ([m][c][tap], w's own order); per batch, group and output position the input patch in
 * that order (int16, 0 outside x), then one dot16 per output channel of the group. -1 when out
 * of memory.
 */
int qref_conv_acc(const qref_conv_geom *g, const qcf_tensor *x, const qcf_tensor *w, int32_t zx,
                  const int32_t *zw, int32_t nzw, const qcf_tensor *bias, int64_t *acc)
{
	size_t kk = (size_t)g->cg * g->k_sp;
	int16_t *wb = malloc(((size_t)g->cout * kk + 1) * sizeof *wb);
	int16_t *patch = malloc((kk + 1) * sizeof *patch);
	size_t *off = malloc((g->k_sp + 1) * sizeof *off);
	if (!wb || !patch || !off) {
		free(wb);
		free(patch);
		free(off);
		return -1;
	}
	for (int64_t m = 0; m < g->cout; m++) {
		int32_t wz = zw[nzw > 1 ? m : 0];
		for (size_t e = 0; e < kk; e++)
			wb[(size_t)m * kk + e] = (int16_t)(q8_at(w, (size_t)m * kk + e) - wz);
	}
	int64_t opos[QCF_MAX_RANK], kpos[QCF_MAX_RANK];
	for (int64_t nb = 0; nb < g->batch; nb++)
		for (int64_t grp = 0; grp < g->group; grp++)
			for (size_t os = 0; os < g->out_sp; os++) {
				size_t rem = os;
				for (int32_t i = g->nsp - 1; i >= 0; i--) {
					opos[i] = (int64_t)(rem % (size_t)g->out[i]);
					rem /= (size_t)g->out[i];
				}
				/* x's spatial offset of each tap, or SIZE_MAX outside x */
				for (size_t ks = 0; ks < g->k_sp; ks++) {
					size_t kr = ks, xoff = 0;
					for (int32_t i = g->nsp - 1; i >= 0; i--) {
						kpos[i] = (int64_t)(kr % (size_t)g->k[i]);
						kr /= (size_t)g->k[i];
					}
					for (int32_t i = 0; i < g->nsp && xoff != SIZE_MAX; i++) {
						int64_t p = opos[i] * g->stride[i] - g->pad0[i] +
						            kpos[i] * g->dil[i];
						xoff = p < 0 || p >= g->in[i]
						               ? SIZE_MAX
						               : xoff * (size_t)g->in[i] +
						                         (size_t)p;
					}
					off[ks] = xoff;
				}
				for (int64_t c = 0; c < g->cg; c++) {
					size_t xb =
					        (size_t)(nb * g->cin + grp * g->cg + c) * g->in_sp;
					int16_t *pr = patch + (size_t)c * g->k_sp;
					for (size_t ks = 0; ks < g->k_sp; ks++)
						pr[ks] =
						        off[ks] == SIZE_MAX
						                ? 0
						                : (int16_t)(q8_at(x, xb + off[ks]) -
						                            zx);
				}
				for (int64_t m = grp * g->mg; m < (grp + 1) * g->mg; m++) {
					int64_t s0 = bias ? ((const int32_t *)bias->data)[m] : 0;
					acc[(size_t)(nb * g->cout + m) * g->out_sp + os] =
					        s0 + dot16(patch, wb + (size_t)m * kk, (int64_t)kk);
				}
			}
	free(wb);
	free(patch);
	free(off);
	return 0;
}

/* Output channel of y's element o. */
static int64_t conv_channel(const qref_conv_geom *g, size_t o)
{
	return (int64_t)((o / g->out_sp) % (size_t)g->cout);
}

/* ------------------------------------------------------------------ */
/* QLinearConv: inputs [x, w, B?] (x, w with quant), output [y] with quant */

typedef struct qconv {
	qref_conv_geom g;
	qcf_quant qx, qw;
	const qcf_tensor *bias;
} qconv;

static qcf_status qconv_inputs(const qcf_op_call *call, qconv *p, qref_detail *d)
{
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1], *y = &call->outputs[0];
	qcf_status s = q8_inputs(call, "x", "w", d);
	if (s != QCF_OK)
		return s;
	if (!is_q8(y->dtype))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: y must be int8 or uint8, got %s",
		                 call->op, tname(y->dtype));
	if ((s = qref_conv_shape(call, x, w, y, &p->g, d)) != QCF_OK ||
	    (s = qref_get_quant(x, "QLinearConv x", 1, &p->qx, d)) != QCF_OK ||
	    (s = qref_get_quant(w, "QLinearConv w", 0, &p->qw, d)) != QCF_OK)
		return s;
	if (p->qw.axis > 0)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: w is quantized per tensor or per output channel (axis 0), not "
		        "along axis %" PRId32 "",
		        call->op, p->qw.axis);
	if ((s = check_zp_range(call, "x_zero_point", x->dtype, p->qx.zero_points, 1, d)) !=
	            QCF_OK ||
	    (s = check_zp_range(call, "w_zero_point", w->dtype, p->qw.zero_points, p->qw.count,
	                        d)) != QCF_OK)
		return s;
	p->bias = NULL;
	if (call->n_inputs == 3) {
		const qcf_tensor *b = &call->inputs[2];
		if (b->dtype != QCF_INT32 || b->rank != 1 || b->shape[0] != p->g.cout)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: B must be int32 of shape [%lld] (one per output channel)",
			        call->op, (long long)p->g.cout);
		if (b->quant)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: B carries no quantization (its scale is x_scale * "
			                 "w_scale)",
			                 call->op);
		p->bias = b;
	}
	return QCF_OK;
}

static qcf_status qconv_check(const qcf_op_call *call, int shapes_only, qconv *p, qref_detail *d)
{
	if (call->n_inputs != 2 && call->n_inputs != 3)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s expects 2 or 3 inputs (x, w, B), got %" PRId32 "", call->op,
		                 call->n_inputs);
	qcf_status s = shapes_only ? qref_check_call_shapes(call, call->n_inputs, 1, d)
	                           : qref_check_call(call, call->n_inputs, 1, d);
	return s != QCF_OK ? s : qconv_inputs(call, p, d);
}

static int64_t *qconv_acc(const qcf_op_call *call, const qconv *p, size_t n)
{
	int64_t *acc = malloc((n ? n : 1) * sizeof *acc);
	if (acc && qref_conv_acc(&p->g, &call->inputs[0], &call->inputs[1], p->qx.zero_points[0],
	                         p->qw.zero_points, p->qw.count, p->bias, acc) < 0) {
		free(acc);
		return NULL;
	}
	return acc;
}

static qcf_status qref_onnx_qlinear_conv(const qcf_op_call *call, const qref_op *row,
                                         qref_detail *d)
{
	(void)row;
	qconv p;
	qcf_quant qy;
	qcf_status s = qconv_check(call, 0, &p, d);
	if (s != QCF_OK)
		return s;
	qcf_tensor *y = &call->outputs[0];
	if ((s = qlinear_output(call, "QLinearConv y",
	                        "acc * (x_scale * w_scale / y_scale) + y_zero_point", &qy, d)) !=
	    QCF_OK)
		return s;
	const qref_rounding rnd = qref_detail_rounding(d);
	size_t n = qref_tensor_numel(y);
	int64_t *acc = qconv_acc(call, &p, n);
	if (!acc)
		return qref_fail(d, QCF_ERROR, "out of memory");
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	for (size_t o = 0; o < n; o++) {
		int64_t m = conv_channel(&p.g, o);
		/* op_qlinear_conv.py: x_scale * w_scale / y_scale in float32; res (int32) * it in
		 * float64; + y_zero_point; clip; np.round (ties to even) */
		float ms = (p.qx.scales[0] * p.qw.scales[p.qw.count > 1 ? m : 0]) / qy.scales[0];
		double v = (double)acc[o] * (double)ms + (double)qy.zero_points[0];
		/* the reference's float64 sum converted to int32 out of range: undefined */
		qlinear_set(y, o, v, acc[o] < INT32_MIN || acc[o] > INT32_MAX, rnd, lo, hi, d);
	}
	free(acc);
	return QCF_OK;
}

/* Real-valued y: (acc + bias) * x_scale * w_scale[m] in double. */
static qcf_status qref_onnx_qlinear_conv_real(const qcf_op_call *call, const qref_op *row, int k,
                                              double *values, qref_detail *d)
{
	(void)row;
	(void)k;
	qconv p;
	qcf_status s = qconv_check(call, 1, &p, d);
	if (s != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(&call->outputs[0]);
	int64_t *acc = qconv_acc(call, &p, n);
	if (!acc)
		return qref_fail(d, QCF_ERROR, "out of memory");
	for (size_t o = 0; o < n; o++) {
		int64_t m = conv_channel(&p.g, o);
		values[o] = (double)acc[o] * (double)p.qx.scales[0] *
		            (double)p.qw.scales[p.qw.count > 1 ? m : 0];
	}
	free(acc);
	return QCF_OK;
}

/* ------------------------------------------------------------------ */
/* ConvInteger: inputs [x, w, x_zero_point?, w_zero_point?], output [y: int32] */

static qcf_status qref_onnx_conv_integer(const qcf_op_call *call, const qref_op *row,
                                         qref_detail *d)
{
	(void)row;
	qcf_status s = integer_op_check(call, "x", "w", d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	qref_conv_geom g;
	if ((s = qref_conv_shape(call, x, w, y, &g, d)) != QCF_OK)
		return s;
	int32_t zx = 0, nzx = 1, nzw = 1;
	int32_t *zw = malloc(((size_t)g.cout + 1) * sizeof *zw);
	size_t n = qref_tensor_numel(y);
	int64_t *acc = malloc((n ? n : 1) * sizeof *acc);
	if (!zw || !acc)
		s = qref_fail(d, QCF_ERROR, "out of memory");
	else if ((s = zp_input(call, 2, "x_zero_point", x, 0, NULL, &zx, &nzx, d)) == QCF_OK &&
	         (s = zp_input(call, 3, "w_zero_point", w, g.cout, "per output channel", zw, &nzw,
	                       d)) == QCF_OK) {
		if (qref_conv_acc(&g, x, w, zx, zw, nzw, NULL, acc) < 0) {
			free(zw);
			free(acc);
			return qref_fail(d, QCF_ERROR, "out of memory");
		}
		double lo, hi;
		qref_range_d(QCF_INT32, &lo, &hi);
		for (size_t o = 0; o < n; o++) {
			if (acc[o] < INT32_MIN || acc[o] > INT32_MAX) {
				qref_mark_any(d, 0, o, lo, hi);
				qref_set(y, o, lo);
				continue;
			}
			qref_mark_exact(d, 0, o);
			((int32_t *)y->data)[o] = (int32_t)acc[o];
		}
	}
	free(zw);
	free(acc);
	return s;
}

/* ------------------------------------------------------------------ */
/* DynamicQuantizeLinear: input [x: float32], outputs [y: uint8, y_scale: float32 [],
 * y_zero_point: uint8 []] (op_dynamic_quantize_linear.py; specs/onnx/OPERATORS.md,
 * "Arithmetic") */

/* The arithmetic, also com.microsoft DynamicQuantizeMatMul's quantization of A (kernel.h). */
int qref_dynamic_quantize_u8(const qcf_tensor *x, uint8_t *q, float *scale_out, int32_t *zp_out)
{
	size_t n = qref_tensor_numel(x);
	/* float32 throughout: maxx = max(0, max(x)), minx = min(0, min(x)) */
	float maxx = 0.0f, minx = 0.0f;
	for (size_t i = 0; i < n; i++) {
		float v = (float)qref_get(x, i);
		if (!isfinite(v))
			return -1;
		if (v > maxx)
			maxx = v;
		if (v < minx)
			minx = v;
	}
	/* all zeros: the range is empty and the scale is defined as 1 (zero point 0) */
	float scale = maxx == minx ? 1.0f : (maxx - minx) / 255.0f;
	float zp0 = 0.0f - minx / scale; /* float32(qmin) - minx / y_scale */
	float zpc = zp0 < 0.0f ? 0.0f : zp0 > 255.0f ? 255.0f : zp0;
	float zpi = nearbyintf(zpc); /* np.rint: ties to even */
	for (size_t i = 0; i < n; i++) {
		float v = nearbyintf((float)qref_get(x, i) / scale);
		q[i] = (uint8_t)qref_clamp_d((double)v + (double)zpi, 0, 255);
	}
	*scale_out = scale;
	*zp_out = (int32_t)zpi;
	return 0;
}

static qcf_status qref_onnx_dynamic_quantize_linear(const qcf_op_call *call, const qref_op *row,
                                                    qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 3, d);
	if (s != QCF_OK || (s = no_quant(call, d)) != QCF_OK ||
	    (s = rounding_ok(call, d, 0, "x / y_scale and the zero point to integers")) != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0], *ys = &call->outputs[1], *yz = &call->outputs[2];
	if (x->dtype != QCF_FLOAT32)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: x must be float32, got %s", call->op,
		                 tname(x->dtype));
	if (y->dtype != QCF_UINT8 || !qref_same_shape(x, y))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: y must be uint8 of x's shape",
		                 call->op);
	if (ys->dtype != QCF_FLOAT32 || ys->rank != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: y_scale must be a float32 scalar (shape [])", call->op);
	if (yz->dtype != QCF_UINT8 || yz->rank != 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: y_zero_point must be a uint8 scalar (shape [])", call->op);
	size_t n = qref_tensor_numel(x);
	if (n == 0)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: x is empty (the reference's min and max of a zero-size array)",
		        call->op);
	uint8_t *q = malloc(n);
	float scale;
	int32_t zpi;
	if (!q)
		return qref_fail(d, QCF_ERROR, "out of memory");
	if (qref_dynamic_quantize_u8(x, q, &scale, &zpi) < 0) {
		free(q);
		/* NaN or inf make the scale NaN or inf and the numpy casts undefined */
		for (size_t i = 0; i < n; i++) {
			qref_mark_any(d, 0, i, 0, 255);
			qref_set(y, i, 0);
		}
		qref_mark_any(d, 1, 0, -INFINITY, INFINITY);
		qref_set(ys, 0, 1.0);
		qref_mark_any(d, 2, 0, 0, 255);
		qref_set(yz, 0, 0);
		return QCF_OK;
	}
	for (size_t i = 0; i < n; i++) {
		qref_mark_exact(d, 0, i);
		qref_set(y, i, q[i]);
	}
	free(q);
	qref_mark_exact(d, 1, 0);
	qref_mark_exact(d, 2, 0);
	qref_set(ys, 0, (double)scale);
	qref_set(yz, 0, (double)zpi);
	return QCF_OK;
}

/* ------------------------------------------------------------------ */
/* qref_element_terms: one element's accumulator by a scalar sum */

enum { LIN_MATMUL, LIN_CONV };

/* QLinearMatMul element o: sum over k of (a - za[row]) * (b - zb[col]), wrapped to int32 as the
 * kernel uses it. */
static int64_t qmm_acc_at(const qmm *p, const qcf_tensor *a, const qcf_tensor *b, size_t o,
                          int64_t *i, int64_t *j)
{
	const qref_mm_geom *g = &p->g;
	int64_t ao, bo;
	qref_mm_batch(g, o / (size_t)(g->m * g->n), &ao, &bo);
	mm_rc(g, o, i, j);
	size_t abase = (size_t)ao * (size_t)(g->m * g->k) + (size_t)(*i * g->k);
	size_t bbase = (size_t)bo * (size_t)(g->k * g->n) + (size_t)*j;
	int32_t za = p->qa.zero_points[p->qa.count > 1 ? *i : 0];
	int32_t zb = p->qb.zero_points[p->qb.count > 1 ? *j : 0];
	int64_t s = 0;
	for (int64_t t = 0; t < g->k; t++)
		s += (int64_t)(q8_at(a, abase + (size_t)t) - za) *
		     (q8_at(b, bbase + (size_t)(t * g->n)) - zb);
	return wrap32(s);
}

/* QLinearConv element o: bias[m] plus the sum over the group's channels and the taps inside x
 * of (x - zx) * (w - zw[m]), as qref_conv_acc adds them. */
static int64_t qconv_acc_at(const qconv *p, const qcf_tensor *x, const qcf_tensor *w, size_t o,
                            int64_t *m_out)
{
	const qref_conv_geom *g = &p->g;
	size_t os = o % g->out_sp;
	int64_t m = conv_channel(g, o), nb = (int64_t)(o / g->out_sp / (size_t)g->cout);
	int64_t grp = m / g->mg, opos[QCF_MAX_RANK], kpos[QCF_MAX_RANK];
	for (int32_t i = g->nsp - 1; i >= 0; i--) {
		opos[i] = (int64_t)(os % (size_t)g->out[i]);
		os /= (size_t)g->out[i];
	}
	int32_t zx = p->qx.zero_points[0], zw = p->qw.zero_points[p->qw.count > 1 ? m : 0];
	int64_t s = p->bias ? ((const int32_t *)p->bias->data)[m] : 0;
	for (size_t ks = 0; ks < g->k_sp; ks++) {
		size_t kr = ks, xoff = 0;
		int inside = 1;
		for (int32_t i = g->nsp - 1; i >= 0; i--) {
			kpos[i] = (int64_t)(kr % (size_t)g->k[i]);
			kr /= (size_t)g->k[i];
		}
		for (int32_t i = 0; i < g->nsp && inside; i++) {
			int64_t q = opos[i] * g->stride[i] - g->pad0[i] + kpos[i] * g->dil[i];
			inside = q >= 0 && q < g->in[i];
			if (inside)
				xoff = xoff * (size_t)g->in[i] + (size_t)q;
		}
		if (!inside)
			continue;
		for (int64_t c = 0; c < g->cg; c++) {
			size_t xi = (size_t)(nb * g->cin + grp * g->cg + c) * g->in_sp + xoff;
			size_t wi = ((size_t)m * (size_t)g->cg + (size_t)c) * g->k_sp + ks;
			s += (int64_t)(q8_at(x, xi) - zx) * (q8_at(w, wi) - zw);
		}
	}
	*m_out = m;
	return s;
}

/* QLinearMatMul (row->param LIN_MATMUL) and QLinearConv. */
static qcf_status linear_terms(const qcf_op_call *call, const qref_op *row, int k,
                               const size_t *idx, int n, qref_terms *terms, qref_detail *d)
{
	const int mm = row->param == LIN_MATMUL;
	if (k != 0)
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: no accumulator for output %d",
		                 call->op ? call->op : "(null)", k);
	qmm pm;
	qconv pc;
	qcf_quant qy;
	qcf_status s;
	if (mm) {
		if ((s = qref_check_call(call, 2, 1, d)) != QCF_OK ||
		    (s = qmm_inputs(call, &pm, d)) != QCF_OK)
			return s;
		s = qlinear_output(call, "QLinearMatMul y", "", &qy, d);
	} else {
		if ((s = qconv_check(call, 0, &pc, d)) != QCF_OK)
			return s;
		s = qlinear_output(call, "QLinearConv y", "", &qy, d);
	}
	if (s != QCF_OK)
		return s;
	size_t numel = qref_tensor_numel(&call->outputs[0]);
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1];
	for (int j = 0; j < n; j++) {
		if (idx[j] >= numel)
			return qref_fail(d, QCF_INVALID_PARAM, "%s: no element %zu (y has %zu)",
			                 call->op, idx[j], numel);
		double scale;
		if (mm) {
			int64_t r, c;
			terms[j].acc = qmm_acc_at(&pm, x, w, idx[j], &r, &c);
			scale = (double)pm.qa.scales[pm.qa.count > 1 ? r : 0] *
			        (double)pm.qb.scales[pm.qb.count > 1 ? c : 0];
		} else {
			int64_t m;
			terms[j].acc = qconv_acc_at(&pc, x, w, idx[j], &m);
			scale = (double)pc.qx.scales[0] *
			        (double)pc.qw.scales[pc.qw.count > 1 ? m : 0];
		}
		terms[j].real = (double)terms[j].acc * scale / (double)qy.scales[0] +
		                (double)qy.zero_points[0];
	}
	return QCF_OK;
}

/* ONNX Conv's attributes: QLinearConv, ConvInteger and the float32 Conv of a QDQ group */
const qref_attr_schema qref_onnx_conv_attrs[] = {
        A_ENUM("auto_pad", LIST("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"), 0, "NOTSET"),
        A_INTS("dilations", 1, "1 per spatial axis"),
        A_INT("group", 1, INF, "1"),
        A_INTS("kernel_shape", 0, "w's kernel dimensions"),
        A_INTS("pads", 0, "0 (begin and end of every spatial axis)"),
        A_INTS("strides", 1, "1 per spatial axis"),
        END,
};

const qref_op qref_ops_onnx_linear[] = {
        {.schema = {.semantics = "onnx", .op = "QLinearMatMul", AB_Y, .attrs = qref_no_attrs},
         .kernel = qref_onnx_qlinear_matmul,
         .real = qref_onnx_qlinear_matmul_real,
         .terms = linear_terms,
         .param = LIN_MATMUL},
        {.schema = {.semantics = "onnx",
                    .op = "MatMulInteger",
                    IO(LIST("a", "b", "a_zero_point", "b_zero_point"), 2, 4, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = qref_onnx_matmul_integer},
        {.schema = {.semantics = "onnx",
                    .op = "QLinearConv",
                    IO(LIST("x", "w", "B"), 2, 3, LIST("y"), 1),
                    .attrs = qref_onnx_conv_attrs},
         .layout = QREF_LAYOUT_NCHW,
         .kernel = qref_onnx_qlinear_conv,
         .real = qref_onnx_qlinear_conv_real,
         .terms = linear_terms,
         .param = LIN_CONV},
        {.schema = {.semantics = "onnx",
                    .op = "ConvInteger",
                    IO(LIST("x", "w", "x_zero_point", "w_zero_point"), 2, 4, LIST("y"), 1),
                    .attrs = qref_onnx_conv_attrs},
         .layout = QREF_LAYOUT_NCHW,
         .kernel = qref_onnx_conv_integer},
        {.schema = {.semantics = "onnx",
                    .op = "DynamicQuantizeLinear",
                    IO(LIST("x"), 1, 1, LIST("y", "y_scale", "y_zero_point"), 3),
                    .attrs = qref_no_attrs},
         .kernel = qref_onnx_dynamic_quantize_linear},
        {.schema = {.op = NULL}},
};
