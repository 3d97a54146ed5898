/*
 * LiteRT pooling, reductions and data movement: AVERAGE_POOL_2D,
 * MAX_POOL_2D, MEAN, SUM, CONCATENATION, RESHAPE, RESIZE_BILINEAR,
 * SPACE_TO_DEPTH, PAD, PADV2, GATHER, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND,
 * TRANSPOSE, SQUEEZE, SLICE, ARG_MAX, SHAPE.
 *
 * Sources (google-ai-edge/LiteRT): tflite/kernels/{pooling,reduce,
 * concatenation,reshape,resize_bilinear,space_to_depth,pad,gather,
 * batch_to_space_nd,space_to_batch_nd,transpose,squeeze,slice,arg_min_max,
 * shape}.cc and tflite/kernels/internal/reference/{integer_ops/pooling.h,
 * reduce.h,resize_bilinear.h}. The arithmetic and ABI: specs/litert/
 * OPERATORS.md ("Integer requantization", "LiteRT layout family"; padding as
 * for the convolutions).
 *
 * The data movement ops are written once as index mappings over a "mover":
 * the kernel moves raw stored elements (bytes), the real-valued hook moves
 * the dequantized values, so both follow exactly the same rules and checks.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "litert_layout.h"
#include "litert_reduce.h"
#include "op.h"
#include "requant.h"

#define MAXR       QCF_MAX_RANK
#define MAX_CONCAT 16

/* ---- common helpers ----------------------------------------------------- */

static const char *dt(qcf_dtype t)
{
	return qref_dtype_name(t);
}

/* Bytes per element of the dtypes a raw copy handles; 0 for the others (int4: LiteRT's
 * movement kernels switch on 8, 16, 32 and 64 bits; this and the rest up to the mover:
 * litert_layout.h). */
size_t qref_litert_elem_size(qcf_dtype t)
{
	switch (t) {
	case QCF_INT8:
	case QCF_UINT8: return 1;
	case QCF_INT16: return 2;
	case QCF_INT32:
	case QCF_FLOAT32: return 4;
	case QCF_INT64: return 8;
	default: return 0;
	}
}

int qref_litert_is_q(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8 || t == QCF_INT16;
}

void qref_litert_strides_of(int r, const int64_t *shape, int64_t *st)
{
	int64_t s = 1;
	for (int k = r - 1; k >= 0; k--) {
		st[k] = s;
		s *= shape[k];
	}
}

void qref_litert_strides(const qcf_tensor *t, int64_t *st)
{
	qref_litert_strides_of(t->rank, t->shape, st);
}

/* Coordinates of flat index i of shape (rank r). */
void qref_litert_unravel(size_t i, int r, const int64_t *shape, int64_t *co)
{
	for (int k = r - 1; k >= 0; k--) {
		int64_t n = shape[k] > 0 ? shape[k] : 1;
		co[k] = (int64_t)(i % (size_t)n);
		i /= (size_t)n;
	}
}

int qref_litert_shape_is(const qcf_tensor *t, int rank, const int64_t *shape)
{
	if (t->rank != rank)
		return 0;
	for (int k = 0; k < rank; k++)
		if (t->shape[k] != shape[k])
			return 0;
	return 1;
}

void qref_litert_shape_text(char *buf, size_t size, int rank, const int64_t *shape)
{
	size_t o = 0;
	buf[0] = 0;
	for (int k = 0; k < rank && o < size - 24; k++)
		o += (size_t)snprintf(buf + o, size - o, "%s%lld", k ? ", " : "",
		                      (long long)shape[k]);
}

qcf_status qref_litert_shape_mismatch(qref_detail *d, const char *op, int rank,
                                      const int64_t *shape)
{
	char buf[160];
	qref_litert_shape_text(buf, sizeof buf, rank, shape);
	return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
	                        "%s output shape must be [%s]", op, buf);
}

/* String attribute (default def when absent); NULL when present but not a string. */
static const char *attr_s(const qcf_op_call *call, const char *name, const char *def)
{
	const qcf_attr *a = qref_attr_find(call, name);
	if (!a)
		return def;
	return a->type == QCF_ATTR_STRING ? a->v.s : NULL;
}

/* Integer attribute with a default; QCF_INVALID_PARAM when not an integer. */
static qcf_status attr_i(const qcf_op_call *call, const char *name, int64_t def, int64_t *out,
                         qref_detail *d)
{
	int r = qref_attr_int(call, name, out);
	if (r == 0)
		*out = def;
	if (r < 0)
		return qref_fail_attr(d, name, QCF_INVALID_PARAM,
		                      "%s: attribute %s must be an integer", call->op, name);
	return QCF_OK;
}

/*
 * Values of an index tensor (LiteRT passes them as int32 tensors; int64
 * too where allow64). Element count must be <= max. rank_max: 1 for 1-D
 * (a scalar is refused unless scalar_ok), 2 for [n, 2] tables (caller checks).
 * Shared with litert_index.c (litert_layout.h).
 */
qcf_status qref_litert_read_index(const qcf_op_call *call, int k, const char *what, int allow64,
                                  int64_t *v, size_t max, size_t *n, qref_detail *d)
{
	const qcf_tensor *t = &call->inputs[k];
	if (t->dtype != QCF_INT32 && !(allow64 && t->dtype == QCF_INT64))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: %s must be int32%s, got %s", call->op,
		                 what, allow64 ? " or int64" : "", dt(t->dtype));
	size_t c = qref_tensor_numel(t);
	if (c > max)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: %s has %zu values, at most %zu",
		                 call->op, what, c, max);
	for (size_t i = 0; i < c; i++)
		v[i] = qref_get_int(t, i);
	*n = c;
	return QCF_OK;
}

/* Per-tensor quantization of a quantized tensor (NULL quant allowed when !need). */
qcf_status qref_litert_get_q(const qcf_op_call *call, const qcf_tensor *t, const char *what,
                             qcf_quant *q, qref_detail *d)
{
	char w[96];
	snprintf(w, sizeof w, "%s %s", call->op, what);
	qcf_status s = qref_get_quant(t, w, 1, q, d);
	if (s != QCF_OK)
		return s;
	if (!(q->scales[0] > 0.0f) || !isfinite(q->scales[0]))
		return qref_fail_tensor(d, t, QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s needs a positive finite scale", w);
	return QCF_OK;
}

/* ---- the mover: raw bytes (kernel) or dequantized values (real hook) ---- */

typedef struct mover {
	const qcf_op_call *call;
	qcf_tensor *out; /* kernel: output 0 */
	double *real;    /* real hook: output values */
	size_t es;       /* bytes per element; 0: int4, moved as values (two per byte) */
	double scale[MAX_CONCAT], zp[MAX_CONCAT];
} mover;

static void mv(mover *m, size_t oi, int k, size_t ii)
{
	const qcf_tensor *in = &m->call->inputs[k];
	if (m->real)
		m->real[oi] = (qref_get(in, ii) - m->zp[k]) * m->scale[k];
	else if (!m->es)
		qref_set(m->out, oi, qref_get(in, ii));
	else
		memcpy((unsigned char *)m->out->data + oi * m->es,
		       (const unsigned char *)in->data + ii * m->es, m->es);
}

/* Writes the raw value raw (kernel), or its real value on input k's grid (hook). */
static void mv_fill(mover *m, size_t oi, double raw, double scale, double zp)
{
	if (m->real)
		m->real[oi] = (raw - zp) * scale;
	else
		qref_set(m->out, oi, raw);
}

typedef qcf_status (*move_fn)(const qcf_op_call *call, qref_detail *d, mover *m);

/*
 * Checks shared by every data movement op: input counts in [nmin, nmax],
 * one output, buffers, data inputs 0 .. ndata-1 (all inputs when ndata < 0)
 * and the output of one dtype that a raw copy handles (int4 too when int4:
 * the ops whose LiteRT kernels take it). want_real: the real hook (no output
 * buffer; data inputs need per-tensor quantization).
 */
static qcf_status move_setup(const qcf_op_call *call, qref_detail *d, mover *m, int nmin, int nmax,
                             int ndata, int int4, int want_real)
{
	if (call->n_inputs < nmin || call->n_inputs > nmax || call->n_outputs != 1) {
		if (nmin == nmax)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s expects %d input(s) and 1 output, got %" PRId32
			                 " and %" PRId32 "",
			                 call->op, nmin, call->n_inputs, call->n_outputs);
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s expects %d to %d inputs and 1 output, got %" PRId32
		                 " and %" PRId32 "",
		                 call->op, nmin, nmax, call->n_inputs, call->n_outputs);
	}
	qcf_status s = want_real ? qref_check_call_shapes(call, call->n_inputs, 1, d)
	                         : qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK)
		return s;
	if (ndata < 0)
		ndata = call->n_inputs;
	qcf_dtype t = call->outputs[0].dtype;
	for (int k = 0; k < ndata; k++)
		if (call->inputs[k].dtype != t)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: input %d type %s differs from the output type %s",
			                 call->op, k, dt(call->inputs[k].dtype), dt(t));
	if (!qref_litert_elem_size(t) && !(int4 && t == QCF_INT4))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: the reference moves int8, uint8, int16, int32, int64 and "
		                 "float32 data%s, not %s",
		                 call->op, int4 ? " and int4" : "", dt(t));
	memset(m, 0, sizeof *m);
	m->call = call;
	m->es = qref_litert_elem_size(t);
	if (!want_real) {
		m->out = &call->outputs[0];
		if ((s = qref_no_rounding(call, d, "nothing: raw values are copied")) != QCF_OK)
			return s;
		return QCF_OK;
	}
	if (!qref_litert_is_q(t) && t != QCF_INT4)
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: output of type %s is not quantized",
		                 call->op, dt(t));
	for (int k = 0; k < ndata; k++) {
		qcf_quant q;
		s = qref_litert_get_q(call, &call->inputs[k], "input", &q, d);
		if (s != QCF_OK)
			return s;
		m->scale[k] = q.scales[0];
		m->zp[k] = q.zero_points[0];
	}
	return QCF_OK;
}

/* Exact equality of input k's and the output's scale and zero point (int16: zp 0). */
static qcf_status same_params(const qcf_op_call *call, int k, const char *why, qref_detail *d)
{
	qcf_quant qi, qo;
	qcf_status s = qref_litert_get_q(call, &call->inputs[k], "input", &qi, d);
	if (s == QCF_OK)
		s = qref_litert_get_q(call, &call->outputs[0], "output", &qo, d);
	if (s != QCF_OK)
		return s;
	if (call->outputs[0].dtype == QCF_INT16 &&
	    (qi.zero_points[0] != 0 || qo.zero_points[0] != 0))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s int16 needs zero points 0 (input %d zp %" PRId32
		                 ", output zp %" PRId32 ")",
		                 call->op, k, qi.zero_points[0], qo.zero_points[0]);
	if (why && (qi.scales[0] != qo.scales[0] || qi.zero_points[0] != qo.zero_points[0]))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: input %d scale %.9g zp %" PRId32
		                 " must equal the output's scale "
		                 "%.9g zp %" PRId32 " (%s)",
		                 call->op, k, (double)qi.scales[0], qi.zero_points[0],
		                 (double)qo.scales[0], qo.zero_points[0], why);
	return QCF_OK;
}

/* ---- activation range (kernel_util.cc; specs/litert/OPERATORS.md) ------- */

typedef enum { ACT_NONE, ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1 } act_kind;

static qcf_status get_act(const qcf_op_call *call, act_kind *a, qref_detail *d)
{
	const char *s = attr_s(call, "fused_activation_function", "NONE");
	if (s && !strcmp(s, "NONE"))
		*a = ACT_NONE;
	else if (s && !strcmp(s, "RELU"))
		*a = ACT_RELU;
	else if (s && !strcmp(s, "RELU6"))
		*a = ACT_RELU6;
	else if (s && !strcmp(s, "RELU_N1_TO_1"))
		*a = ACT_RELU_N1_TO_1;
	else
		return qref_fail_attr(d, "fused_activation_function", QCF_INVALID_PARAM,
		                      "%s: fused_activation_function must be NONE, RELU, RELU6 or "
		                      "RELU_N1_TO_1",
		                      call->op);
	return QCF_OK;
}

/* q(f) = zp + (int)RA(f / scale) in float; 0 when it leaves int32. */
static int act_q(float f, float scale, int32_t zp, int64_t *out)
{
	float v = roundf(f / scale);
	if (!(v >= -0x1p31f && v < 0x1p31f))
		return 0;
	*out = (int64_t)zp + (int64_t)v;
	return 1;
}

/* Quantized activation range of output t (CalculateActivationRangeQuantized). */
static qcf_status act_range(const qcf_op_call *call, act_kind a, const qcf_tensor *t, int64_t *lo,
                            int64_t *hi, qref_detail *d)
{
	qref_dtype_range(t->dtype, lo, hi);
	if (a == ACT_NONE)
		return QCF_OK;
	qcf_quant q;
	qcf_status s = qref_litert_get_q(call, t, "output", &q, d);
	if (s != QCF_OK)
		return s;
	int64_t q0, q6, qm1, q1;
	float sc = q.scales[0];
	int32_t zp = q.zero_points[0];
	if (!act_q(0.0f, sc, zp, &q0) || !act_q(6.0f, sc, zp, &q6) || !act_q(-1.0f, sc, zp, &qm1) ||
	    !act_q(1.0f, sc, zp, &q1))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: activation bound out of int32 at output scale %.9g", call->op,
		                 (double)sc);
	if (a == ACT_RELU || a == ACT_RELU6)
		*lo = q0 > *lo ? q0 : *lo;
	if (a == ACT_RELU6)
		*hi = q6 < *hi ? q6 : *hi;
	if (a == ACT_RELU_N1_TO_1) {
		*lo = qm1 > *lo ? qm1 : *lo;
		*hi = q1 < *hi ? q1 : *hi;
	}
	return QCF_OK;
}

static double act_real(act_kind a, double v)
{
	switch (a) {
	case ACT_RELU: return v < 0 ? 0 : v;
	case ACT_RELU6: return v < 0 ? 0 : (v > 6 ? 6 : v);
	case ACT_RELU_N1_TO_1: return v < -1 ? -1 : (v > 1 ? 1 : v);
	default: return v;
	}
}

/* ---- AVERAGE_POOL_2D, MAX_POOL_2D (pooling.cc; integer_ops/pooling.h) --- */

typedef struct pool {
	int64_t n, h, w, c, oh, ow;
	int64_t sh, sw, fh, fw, ph, pw;
	act_kind act;
} pool;

/* padding.h: SAME out = ceil(in/s); VALID out = trunc((in + s - f)/s);
 * pad_before = max(0, (out-1)*s + f - in) / 2. */
static int pool_dim(int same, int64_t in, int64_t f, int64_t s, int64_t *out, int64_t *pad)
{
	int64_t o = same ? (in + s - 1) / s : (in + s - f) / s;
	if (o < 0)
		return 0;
	int64_t total = (o - 1) * s + f - in;
	*out = o;
	*pad = total > 0 ? total / 2 : 0;
	return 1;
}

static qcf_status pool_setup(const qcf_op_call *call, pool *p, int need_out, qref_detail *d)
{
	qcf_status s =
	        need_out ? qref_check_call(call, 1, 1, d) : qref_check_call_shapes(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	if (in->rank != 4)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s input must have rank 4 (NHWC), got %" PRId32 "", call->op,
		                 in->rank);
	if (in->dtype != out->dtype)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input type %s differs from output %s",
		                 call->op, dt(in->dtype), dt(out->dtype));
	if (!qref_litert_is_q(in->dtype))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: the reference implements int8, uint8 and int16, not %s",
		                 call->op, dt(in->dtype));
	memset(p, 0, sizeof *p);
	if ((s = attr_i(call, "stride_h", 1, &p->sh, d)) != QCF_OK ||
	    (s = attr_i(call, "stride_w", 1, &p->sw, d)) != QCF_OK ||
	    (s = attr_i(call, "filter_height", 1, &p->fh, d)) != QCF_OK ||
	    (s = attr_i(call, "filter_width", 1, &p->fw, d)) != QCF_OK)
		return s;
	if (p->sh <= 0 || p->sw <= 0)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: strides must be > 0 (got %lld, %lld)",
		                 call->op, (long long)p->sh, (long long)p->sw);
	if (p->fh <= 0 || p->fw <= 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: filter sizes must be > 0 (got %lld, %lld): a window with no "
		                 "taps is an Eval error in LiteRT's AveragePool",
		                 call->op, (long long)p->fh, (long long)p->fw);
	const char *pad = attr_s(call, "padding", "VALID");
	if (!pad || (strcmp(pad, "SAME") && strcmp(pad, "VALID")))
		return qref_fail_attr(d, "padding", QCF_INVALID_PARAM,
		                      "%s: padding must be SAME or VALID", call->op);
	int same = !strcmp(pad, "SAME");
	p->n = in->shape[0];
	p->h = in->shape[1];
	p->w = in->shape[2];
	p->c = in->shape[3];
	if (!pool_dim(same, p->h, p->fh, p->sh, &p->oh, &p->ph) ||
	    !pool_dim(same, p->w, p->fw, p->sw, &p->ow, &p->pw))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: VALID output size is negative (filter larger than input)",
		                 call->op);
	int64_t want[4] = {p->n, p->oh, p->ow, p->c};
	if (!qref_litert_shape_is(out, 4, want))
		return qref_litert_shape_mismatch(d, call->op, 4, want);
	return get_act(call, &p->act, d);
}

/* The in-image window of output (oy, ox): rows [y0, y1), cols [x0, x1). */
static void pool_window(const pool *p, int64_t oy, int64_t ox, int64_t *y0, int64_t *y1,
                        int64_t *x0, int64_t *x1)
{
	int64_t oy0 = oy * p->sh - p->ph, ox0 = ox * p->sw - p->pw;
	*y0 = oy0 > 0 ? oy0 : 0;
	*y1 = oy0 + p->fh < p->h ? oy0 + p->fh : p->h;
	*x0 = ox0 > 0 ? ox0 : 0;
	*x1 = ox0 + p->fw < p->w ? ox0 + p->fw : p->w;
}

/* AVERAGE_POOL_2D (row->param 0) and MAX_POOL_2D (1). */
static qcf_status pool_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int is_max = row->param;
	pool p;
	qcf_status s = pool_setup(call, &p, 1, d);
	if (s != QCF_OK)
		return s;
	int64_t lo, hi;
	if ((s = act_range(call, p.act, &call->outputs[0], &lo, &hi, d)) != QCF_OK)
		return s;
	qref_rounding r = qref_detail_rounding(d);
	if (r != QREF_ROUND_DEFAULT)
		return qref_rounding_na(call, d, r,
		                        is_max ? "nothing: the maximum of raw values"
		                               : "an integer average, ties away from zero");
	const qcf_tensor *in = &call->inputs[0];
	size_t oi = 0;
	for (int64_t b = 0; b < p.n; b++)
		for (int64_t oy = 0; oy < p.oh; oy++)
			for (int64_t ox = 0; ox < p.ow; ox++)
				for (int64_t c = 0; c < p.c; c++, oi++) {
					int64_t y0, y1, x0, x1;
					pool_window(&p, oy, ox, &y0, &y1, &x0, &x1);
					int64_t acc = is_max ? INT64_MIN : 0, n = 0;
					for (int64_t y = y0; y < y1; y++)
						for (int64_t x = x0; x < x1; x++, n++) {
							size_t ii = (size_t)(((b * p.h + y) * p.w +
							                      x) * p.c +
							                     c);
							int64_t v = (int64_t)qref_get(in, ii);
							if (is_max)
								acc = v > acc ? v : acc;
							else
								acc += v;
						}
					if (n == 0)
						return qref_fail(
						        d, QCF_INVALID_PARAM,
						        "%s: a window has no in-image taps "
						        "(Eval error in LiteRT)",
						        call->op);
					if (!is_max)
						acc = acc > 0 ? (acc + n / 2) / n
						              : (acc - n / 2) / n;
					acc = acc < lo ? lo : (acc > hi ? hi : acc);
					qref_set(&call->outputs[0], oi, (double)acc);
				}
	return QCF_OK;
}

static qcf_status pool_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                            qref_detail *d)
{
	(void)k; /* one output */
	const int is_max = row->param;
	pool p;
	qcf_status s = pool_setup(call, &p, 0, d);
	if (s != QCF_OK)
		return s;
	qcf_quant q;
	if ((s = qref_litert_get_q(call, &call->inputs[0], "input", &q, d)) != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t oi = 0;
	for (int64_t b = 0; b < p.n; b++)
		for (int64_t oy = 0; oy < p.oh; oy++)
			for (int64_t ox = 0; ox < p.ow; ox++)
				for (int64_t c = 0; c < p.c; c++, oi++) {
					int64_t y0, y1, x0, x1;
					pool_window(&p, oy, ox, &y0, &y1, &x0, &x1);
					double acc = is_max ? -INFINITY : 0;
					int64_t n = 0;
					for (int64_t y = y0; y < y1; y++)
						for (int64_t x = x0; x < x1; x++, n++) {
							size_t ii = (size_t)(((b * p.h + y) * p.w +
							                      x) * p.c +
							                     c);
							double v = (qref_get(in, ii) -
							            q.zero_points[0]) *
							           (double)q.scales[0];
							acc = is_max ? (v > acc ? v : acc)
							             : acc + v;
						}
					if (n == 0)
						return qref_fail(
						        d, QCF_INVALID_PARAM,
						        "%s: a window has no in-image taps",
						        call->op);
					values[oi] =
					        act_real(p.act, is_max ? acc : acc / (double)n);
				}
	return QCF_OK;
}

/* ---- the axes of a reduction (reduce.cc; litert_reduce.h) --------------- */

qcf_status qref_litert_reduce_axes(const qcf_op_call *call, int *red, int64_t *n, qref_detail *d)
{
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	qcf_status s;
	if (call->inputs[1].rank > 1)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: axis must be a scalar or 1-D tensor",
		                 call->op);
	int64_t ax[64];
	size_t na;
	if ((s = qref_litert_read_index(call, 1, "axis", 0, ax, 64, &na, d)) != QCF_OK)
		return s;
	for (int k = 0; k < MAXR; k++)
		red[k] = 0;
	for (size_t i = 0; i < na; i++) {
		if (ax[i] < -in->rank || ax[i] >= in->rank)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: axis %lld out of range [-%" PRId32 ", %" PRId32 ")",
			                 call->op, (long long)ax[i], in->rank, in->rank);
		red[ax[i] < 0 ? ax[i] + in->rank : ax[i]] = 1; /* duplicates dropped */
	}
	int64_t keep;
	if ((s = attr_i(call, "keep_dims", 0, &keep, d)) != QCF_OK)
		return s;
	int64_t want[MAXR];
	int wr = 0;
	*n = 1;
	for (int k = 0; k < in->rank; k++) {
		if (red[k])
			*n *= in->shape[k];
		if (!red[k])
			want[wr++] = in->shape[k];
		else if (keep)
			want[wr++] = 1;
	}
	if (!qref_litert_shape_is(out, wr, want))
		return qref_litert_shape_mismatch(d, call->op, wr, want);
	return QCF_OK;
}

size_t qref_litert_reduce_out_index(const qcf_tensor *in, const int *red, size_t i)
{
	int64_t co[MAXR];
	qref_litert_unravel(i, in->rank, in->shape, co);
	size_t oi = 0;
	for (int k = 0; k < in->rank; k++)
		if (!red[k])
			oi = oi * (size_t)in->shape[k] + (size_t)co[k];
	return oi;
}

/* ---- MEAN, SUM (reduce.cc; reference/reduce.h) ------------------------- */

typedef struct reduce {
	int red[MAXR]; /* 1: axis reduced */
	int64_t n;     /* reduced element count */
	qcf_quant qi, qo;
} reduce;

static qcf_status reduce_setup(const qcf_op_call *call, reduce *r, int need_out, qref_detail *d)
{
	qcf_status s =
	        need_out ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	if (in->dtype != out->dtype)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: input type %s differs from output %s",
		                 call->op, dt(in->dtype), dt(out->dtype));
	if (!qref_litert_is_q(in->dtype))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: the reference implements int8, uint8 and int16, not %s",
		                 call->op, dt(in->dtype));
	memset(r, 0, sizeof *r);
	if ((s = qref_litert_reduce_axes(call, r->red, &r->n, d)) != QCF_OK)
		return s;
	if ((s = qref_litert_get_q(call, in, "input", &r->qi, d)) != QCF_OK)
		return s;
	if (need_out && (s = qref_litert_get_q(call, out, "output", &r->qo, d)) != QCF_OK)
		return s;
	if (in->dtype == QCF_INT16 &&
	    (r->qi.zero_points[0] != 0 || (need_out && r->qo.zero_points[0] != 0)))
		return qref_fail(d, QCF_INVALID_PARAM, "%s int16 needs zero points 0", call->op);
	return QCF_OK;
}

/* MEAN (row->param 0) and SUM (1). */
static qcf_status reduce_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	const int is_sum = row->param;
	reduce r;
	qcf_status s = reduce_setup(call, &r, 1, d);
	if (s != QCF_OK)
		return s;
	const qref_rounding named = qref_detail_rounding(d);
	if (named != QREF_ROUND_DEFAULT && named != QREF_ROUND_DOUBLE && named != QREF_ROUND_SINGLE)
		return qref_rounding_na(call, d, named, "the sum by an integer multiplier");
	const qref_rounding rnd = qref_requant_build(named);
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	size_t ni = qref_tensor_numel(in), no = qref_tensor_numel(out);
	if (ni == 0) { /* reduce.h: outputs reset to 0, then an early return */
		for (size_t i = 0; i < no; i++)
			qref_set(out, i, 0);
		return QCF_OK;
	}
	int64_t *sum = calloc(no ? no : 1, sizeof *sum);
	if (!sum)
		return qref_fail(d, QCF_ERROR, "out of memory");
	for (size_t i = 0; i < ni; i++)
		sum[qref_litert_reduce_out_index(in, r.red, i)] += (int64_t)qref_get(in, i);
	int32_t m;
	int sh;
	qref_quantize_multiplier((double)r.qi.scales[0] / (double)r.qo.scales[0], rnd, &m, &sh);
	if (!is_sum) { /* fold 1/n into the multiplier */
		int k = 0;
		while (k < 62 && ((int64_t)1 << (k + 1)) <= r.n)
			k++;
		if (k > 32)
			k = 32;
		if (k > 31 + sh)
			k = 31 + sh;
		m = (int32_t)(((int64_t)m << k) / r.n);
		sh -= k;
	}
	double lo, hi;
	qref_range_d(out->dtype, &lo, &hi);
	int32_t zi = r.qi.zero_points[0], zo = r.qo.zero_points[0];
	for (size_t i = 0; i < no; i++) {
		int64_t x = sum[i] - (int64_t)zi * r.n;
		int ub = sum[i] < INT32_MIN || sum[i] > INT32_MAX || x < INT32_MIN ||
		         x > INT32_MAX || sh > 31;
		int64_t y = 0;
		if (!ub && rnd == QREF_ROUND_DOUBLE) {
			ub = !qref_mbqm_preshift_fits((int32_t)x, sh);
			if (!ub)
				y = qref_mbqm((int32_t)x, m, sh, rnd);
		} else if (!ub) {
			ub = sh > 30;
			if (!ub)
				y = qref_mbqm_single_wide((int32_t)x, m, sh);
			ub = ub || y < INT32_MIN || y > INT32_MAX;
		}
		y += zo;
		double v;
		if (ub || y < INT32_MIN || y > INT32_MAX) {
			qref_mark_any(d, 0, i, lo, hi);
			v = round((double)x * r.qi.scales[0] / r.qo.scales[0] /
			          (is_sum ? 1.0 : (double)r.n)) +
			    zo;
		} else {
			v = (double)y;
		}
		qref_set(out, i, qref_clamp_d(v, lo, hi));
	}
	free(sum);
	return QCF_OK;
}

static qcf_status reduce_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                              qref_detail *d)
{
	(void)k; /* one output */
	const int is_sum = row->param;
	reduce r;
	qcf_status s = reduce_setup(call, &r, 0, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	size_t ni = qref_tensor_numel(in), no = qref_tensor_numel(&call->outputs[0]);
	for (size_t i = 0; i < no; i++)
		values[i] = 0;
	if (ni == 0)
		return QCF_OK;
	for (size_t i = 0; i < ni; i++)
		values[qref_litert_reduce_out_index(in, r.red, i)] +=
		        (qref_get(in, i) - r.qi.zero_points[0]) * (double)r.qi.scales[0];
	if (!is_sum)
		for (size_t i = 0; i < no; i++)
			values[i] /= (double)r.n;
	return QCF_OK;
}

/* ---- CONCATENATION (concatenation.cc) ---------------------------------- */

static qcf_status concat_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *out = &call->outputs[0], *in0 = &call->inputs[0];
	int64_t axis;
	qcf_status s = attr_i(call, "axis", 0, &axis, d);
	if (s != QCF_OK)
		return s;
	act_kind a;
	if ((s = get_act(call, &a, d)) != QCF_OK)
		return s;
	if (a != ACT_NONE)
		return qref_fail_attr(d, "fused_activation_function", QCF_INVALID_PARAM,
		                      "CONCATENATION: fused_activation_function must be NONE for "
		                      "quantized types");
	int rank = in0->rank;
	if (axis < -rank || axis >= rank)
		return qref_fail(d, QCF_INVALID_PARAM, "CONCATENATION: axis %lld out of [-%d, %d)",
		                 (long long)axis, rank, rank);
	if (axis < 0)
		axis += rank;
	int64_t want[MAXR];
	memcpy(want, in0->shape, sizeof(int64_t) * (size_t)rank);
	want[axis] = 0;
	for (int k = 0; k < call->n_inputs; k++) {
		const qcf_tensor *t = &call->inputs[k];
		if (t->rank != rank)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "CONCATENATION: input %d has rank %" PRId32
			                 ", input 0 rank %d",
			                 k, t->rank, rank);
		for (int j = 0; j < rank; j++)
			if (j != axis && t->shape[j] != in0->shape[j])
				return qref_fail(
				        d, QCF_INVALID_PARAM,
				        "CONCATENATION: input %d dimension %d is %lld, input "
				        "0's is %lld (only the axis may differ)",
				        k, j, (long long)t->shape[j], (long long)in0->shape[j]);
		want[axis] += t->shape[axis];
	}
	if (!qref_litert_shape_is(out, rank, want))
		return qref_litert_shape_mismatch(d, "CONCATENATION", rank, want);
	if (out->dtype == QCF_INT8 || out->dtype == QCF_INT16)
		for (int k = 0; k < call->n_inputs; k++) {
			s = same_params(call, k,
			                out->dtype == QCF_INT8
			                        ? "LiteRT's int8 CONCATENATION does not rescale"
			                        : NULL,
			                d);
			if (s != QCF_OK)
				return s;
		}
	if (out->dtype == QCF_UINT8)
		for (int k = 0; k < call->n_inputs; k++) {
			qcf_quant qi, qo;
			if ((s = qref_litert_get_q(call, &call->inputs[k], "input", &qi, d)) !=
			            QCF_OK ||
			    (s = qref_litert_get_q(call, out, "output", &qo, d)) != QCF_OK)
				return s;
			if (qi.scales[0] != qo.scales[0] || qi.zero_points[0] != qo.zero_points[0])
				return qref_fail(d, QCF_NOT_SUPPORTED,
				                 "CONCATENATION: uint8 with differing parameters "
				                 "rescales in LiteRT; not implemented");
		}
	/* outer = product of dims before axis, inner = after */
	size_t outer = 1, inner = 1;
	for (int j = 0; j < axis; j++)
		outer *= (size_t)want[j];
	for (int j = (int)axis + 1; j < rank; j++)
		inner *= (size_t)want[j];
	size_t oi = 0;
	for (size_t o = 0; o < outer; o++)
		for (int k = 0; k < call->n_inputs; k++) {
			size_t chunk = (size_t)call->inputs[k].shape[axis] * inner;
			for (size_t e = 0; e < chunk; e++)
				mv(m, oi++, k, o * chunk + e);
		}
	return QCF_OK;
}

/* ---- RESHAPE (reshape.cc) ------------------------------------------------ */

static qcf_status reshape_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	if (call->inputs[1].rank > 1)
		return qref_fail(d, QCF_INVALID_PARAM, "RESHAPE: shape must be a 1-D tensor");
	int64_t sh[MAXR + 1];
	size_t n;
	qcf_status s = qref_litert_read_index(call, 1, "shape", 0, sh, MAXR, &n, d);
	if (s != QCF_OK)
		return s;
	int stretch = -1;
	int64_t prod = 1;
	for (size_t k = 0; k < n; k++) {
		if (sh[k] == -1) {
			if (stretch >= 0)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "RESHAPE: at most one dimension may be -1");
			stretch = (int)k;
		} else if (sh[k] < 0) {
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "RESHAPE: dimension %zu is %lld (only -1 may be negative)",
			                 k, (long long)sh[k]);
		} else {
			prod *= sh[k];
		}
	}
	int64_t ni = (int64_t)qref_tensor_numel(in);
	if (stretch >= 0) {
		if (prod == 0 || ni % prod != 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "RESHAPE: -1 cannot be inferred (%lld elements, other "
			                 "dimensions' product %lld)",
			                 (long long)ni, (long long)prod);
		sh[stretch] = ni / prod;
		prod = ni;
	}
	if (prod != ni)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "RESHAPE: shape holds %lld elements, input %lld", (long long)prod,
		                 (long long)ni);
	if (!qref_litert_shape_is(out, (int)n, sh))
		return qref_litert_shape_mismatch(d, "RESHAPE", (int)n, sh);
	for (size_t i = 0; i < (size_t)ni; i++)
		mv(m, i, 0, i);
	return QCF_OK;
}

/* ---- TRANSPOSE (transpose.cc) -------------------------------------------- */

static qcf_status transpose_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	int r = in->rank;
	if (call->inputs[1].rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM, "TRANSPOSE: perm must be 1-D");
	int64_t p[MAXR];
	size_t n;
	qcf_status s = qref_litert_read_index(call, 1, "perm", 0, p, MAXR, &n, d);
	if (s != QCF_OK)
		return s;
	if ((int)n != r)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "TRANSPOSE: perm has %zu entries, input rank is %d", n, r);
	unsigned seen = 0;
	for (int k = 0; k < r; k++) {
		if (p[k] < -r || p[k] >= r)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "TRANSPOSE: perm[%d] = %lld out of [-%d, %d)", k,
			                 (long long)p[k], r, r);
		if (p[k] < 0)
			p[k] += r;
		if (seen & (1u << p[k]))
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "TRANSPOSE: perm must not repeat a value (%lld)",
			                 (long long)p[k]);
		seen |= 1u << p[k];
	}
	int64_t want[MAXR], ist[MAXR], co[MAXR];
	for (int k = 0; k < r; k++)
		want[k] = in->shape[p[k]];
	if (!qref_litert_shape_is(out, r, want))
		return qref_litert_shape_mismatch(d, "TRANSPOSE", r, want);
	qref_litert_strides(in, ist);
	size_t no = qref_tensor_numel(out);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, r, want, co);
		int64_t ii = 0;
		for (int k = 0; k < r; k++)
			ii += co[k] * ist[p[k]];
		mv(m, i, 0, (size_t)ii);
	}
	return QCF_OK;
}

/* ---- PAD, PADV2 (pad.cc) -------------------------------------------------- */

static qcf_status pad_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	const qcf_tensor *pt = &call->inputs[1];
	int r = in->rank;
	if (r > 5)
		return qref_fail(d, QCF_INVALID_PARAM, "%s supports rank <= 5, got %d", call->op,
		                 r);
	if (pt->rank != 2 || pt->shape[0] != r || pt->shape[1] != 2)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: paddings must have shape [%d, 2]",
		                 call->op, r);
	int64_t pv[2 * MAXR];
	size_t n;
	qcf_status s = qref_litert_read_index(call, 1, "paddings", 1, pv, 2 * MAXR, &n, d);
	if (s != QCF_OK)
		return s;
	for (size_t k = 0; k < n; k++)
		if (pv[k] < 0)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: paddings must be >= 0, got %lld", call->op,
			                 (long long)pv[k]);
	int64_t want[MAXR];
	for (int k = 0; k < r; k++)
		want[k] = in->shape[k] + pv[2 * k] + pv[2 * k + 1];
	if (!qref_litert_shape_is(out, r, want))
		return qref_litert_shape_mismatch(d, call->op, r, want);
	/* the pad value, raw, and its real value */
	double raw = 0, psc = 1, pzp = 0;
	if (call->n_inputs == 3) {
		const qcf_tensor *cv = &call->inputs[2];
		if (cv->dtype != out->dtype || qref_tensor_numel(cv) != 1)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "PADV2: constant_values must be one element of the input "
			                 "type");
		raw = qref_get(cv, 0);
		if (qref_litert_is_q(out->dtype)) {
			qcf_quant qc, qo;
			if ((s = qref_litert_get_q(call, cv, "constant_values", &qc, d)) != QCF_OK)
				return s;
			if (m->out) {
				if ((s = qref_litert_get_q(call, out, "output", &qo, d)) != QCF_OK)
					return s;
				if (qc.scales[0] != qo.scales[0] ||
				    qc.zero_points[0] != qo.zero_points[0])
					return qref_fail(
					        d, QCF_INVALID_PARAM,
					        "PADV2: constant_values scale %.9g zp %" PRId32
					        " must "
					        "equal the output's scale %.9g zp %" PRId32,
					        (double)qc.scales[0], qc.zero_points[0],
					        (double)qo.scales[0], qo.zero_points[0]);
			}
			psc = qc.scales[0];
			pzp = qc.zero_points[0];
		}
	} else if (qref_litert_is_q(out->dtype)) {
		qcf_quant qo;
		/* PAD pads with the output zero point; the real hook has no output
		 * quantization: it pads with the real value 0 */
		if (m->out) {
			if ((s = qref_litert_get_q(call, out, "output", &qo, d)) != QCF_OK)
				return s;
			int64_t lo, hi;
			qref_dtype_range(out->dtype, &lo, &hi);
			if (qo.zero_points[0] < lo || qo.zero_points[0] > hi)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "PAD: output zero point %" PRId32
				                 " does not fit %s",
				                 qo.zero_points[0], dt(out->dtype));
			raw = qo.zero_points[0];
		}
	}
	int64_t ist[MAXR], co[MAXR];
	qref_litert_strides(in, ist);
	size_t no = qref_tensor_numel(out);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, r, want, co);
		int64_t ii = 0;
		int inside = 1;
		for (int k = 0; k < r && inside; k++) {
			int64_t c = co[k] - pv[2 * k];
			inside = c >= 0 && c < in->shape[k];
			ii += c * ist[k];
		}
		if (inside)
			mv(m, i, 0, (size_t)ii);
		else
			mv_fill(m, i, raw, psc, pzp);
	}
	return QCF_OK;
}

/* ---- SLICE (slice.cc) ---------------------------------------------------- */

static qcf_status slice_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	int r = in->rank;
	if (r > 5)
		return qref_fail(d, QCF_INVALID_PARAM, "SLICE supports rank <= 5, got %d", r);
	if (call->inputs[1].rank != 1 || call->inputs[2].rank != 1 ||
	    call->inputs[1].dtype != call->inputs[2].dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SLICE: begin and size must be 1-D tensors of one type");
	int64_t b[MAXR], sz[MAXR];
	size_t nb, ns;
	qcf_status s = qref_litert_read_index(call, 1, "begin", 1, b, MAXR, &nb, d);
	if (s == QCF_OK)
		s = qref_litert_read_index(call, 2, "size", 1, sz, MAXR, &ns, d);
	if (s != QCF_OK)
		return s;
	if ((int)nb != r || (int)ns != r)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SLICE: begin and size need %d entries (the input rank)", r);
	int64_t want[MAXR];
	for (int k = 0; k < r; k++) {
		if (b[k] < 0 || b[k] > in->shape[k])
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "SLICE: begin[%d] = %lld outside [0, %lld]", k,
			                 (long long)b[k], (long long)in->shape[k]);
		int64_t z = sz[k] == -1 ? in->shape[k] - b[k] : sz[k];
		if (z < 0 || b[k] + z > in->shape[k])
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "SLICE: size[%d] = %lld invalid (-1, or 0 <= size <= dim "
			                 "- begin = %lld)",
			                 k, (long long)sz[k], (long long)(in->shape[k] - b[k]));
		want[k] = z;
	}
	if (!qref_litert_shape_is(out, r, want))
		return qref_litert_shape_mismatch(d, "SLICE", r, want);
	int64_t ist[MAXR], co[MAXR];
	qref_litert_strides(in, ist);
	size_t no = qref_tensor_numel(out);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, r, want, co);
		int64_t ii = 0;
		for (int k = 0; k < r; k++)
			ii += (co[k] + b[k]) * ist[k];
		mv(m, i, 0, (size_t)ii);
	}
	return QCF_OK;
}

/* ---- GATHER (gather.cc) -------------------------------------------------- */

static qcf_status gather_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0], *pos = &call->inputs[1], *out = &call->outputs[0];
	if (pos->dtype != QCF_INT16 && pos->dtype != QCF_INT32 && pos->dtype != QCF_INT64)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER: positions must be int16, int32 or int64, got %s",
		                 dt(pos->dtype));
	int64_t axis, bd;
	qcf_status s = attr_i(call, "axis", 0, &axis, d);
	if (s == QCF_OK)
		s = attr_i(call, "batch_dims", 0, &bd, d);
	if (s != QCF_OK)
		return s;
	int r = in->rank, pr = pos->rank;
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis >= r)
		return qref_fail(d, QCF_INVALID_PARAM, "GATHER: axis out of [-%d, %d)", r, r);
	if (bd < 0)
		bd += pr;
	if (bd < 0 || bd > pr || bd > axis)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "GATHER: batch_dims must be in [0, positions rank] and <= axis");
	for (int k = 0; k < bd; k++)
		if (in->shape[k] != pos->shape[k])
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "GATHER: batch dimension %d differs (%lld vs %lld)", k,
			                 (long long)in->shape[k], (long long)pos->shape[k]);
	int64_t want[MAXR * 2];
	int wr = 0;
	for (int k = 0; k < axis; k++)
		want[wr++] = in->shape[k];
	for (int k = (int)bd; k < pr; k++)
		want[wr++] = pos->shape[k];
	for (int k = (int)axis + 1; k < r; k++)
		want[wr++] = in->shape[k];
	if (wr > MAXR || !qref_litert_shape_is(out, wr, want))
		return qref_litert_shape_mismatch(d, "GATHER", wr, want);
	size_t npos = qref_tensor_numel(pos);
	int64_t ax_size = in->shape[axis];
	for (size_t i = 0; i < npos; i++) {
		double v = qref_get(pos, i);
		if (v < 0 || v >= (double)ax_size)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "GATHER: position %.0f outside [0, %lld) (Eval error)", v,
			                 (long long)ax_size);
	}
	/* batch B = prod in[0:bd]; outer = prod in[bd:axis]; inner = prod in[axis+1:];
	 * per batch, P = prod pos[bd:] positions */
	size_t B = 1, outer = 1, inner = 1, P = 1;
	for (int k = 0; k < bd; k++)
		B *= (size_t)in->shape[k];
	for (int k = (int)bd; k < axis; k++)
		outer *= (size_t)in->shape[k];
	for (int k = (int)axis + 1; k < r; k++)
		inner *= (size_t)in->shape[k];
	for (int k = (int)bd; k < pr; k++)
		P *= (size_t)pos->shape[k];
	if (in->dtype == QCF_INT4 && inner % 2)
		return qref_fail(
		        d, QCF_NOT_SUPPORTED,
		        "GATHER: int4 with an odd inner size (%zu): LiteRT's gather copies "
		        "whole bytes, two values each, and leaves odd sizes undefined",
		        inner);
	size_t oi = 0;
	for (size_t b = 0; b < B; b++)
		for (size_t o = 0; o < outer; o++)
			for (size_t p = 0; p < P; p++) {
				size_t idx = (size_t)qref_get_int(pos, b * P + p);
				size_t base = ((b * outer + o) * (size_t)ax_size + idx) * inner;
				for (size_t e = 0; e < inner; e++)
					mv(m, oi++, 0, base + e);
			}
	return QCF_OK;
}

/* ---- SQUEEZE (squeeze.cc) ------------------------------------------------ */

static qcf_status squeeze_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	int r = in->rank, sq[MAXR] = {0};
	const qcf_attr *a = qref_attr_find(call, "squeeze_dims");
	int64_t one;
	const int64_t *dims = NULL;
	int nd = 0;
	if (a && a->type == QCF_ATTR_INTS) {
		dims = a->v.ints;
		nd = a->count;
	} else if (a && qref_attr_int(call, "squeeze_dims", &one) == 1) {
		dims = &one;
		nd = 1;
	} else if (a) {
		return qref_fail(d, QCF_INVALID_PARAM, "SQUEEZE: squeeze_dims must be integers");
	}
	if (nd > MAXR)
		return qref_fail(d, QCF_INVALID_PARAM, "SQUEEZE: more than %d squeeze_dims", MAXR);
	for (int k = 0; k < nd; k++) {
		int64_t v = dims[k];
		if (v < -r || v >= r)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "SQUEEZE: squeeze_dims value %lld out of [-%d, %d)",
			                 (long long)v, r, r);
		if (v < 0)
			v += r;
		if (in->shape[v] != 1)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "SQUEEZE: dimension %lld has size %lld, not 1",
			                 (long long)v, (long long)in->shape[v]);
		sq[v] = 1;
	}
	if (nd == 0)
		for (int k = 0; k < r; k++)
			sq[k] = in->shape[k] == 1;
	int64_t want[MAXR];
	int wr = 0;
	for (int k = 0; k < r; k++)
		if (!sq[k])
			want[wr++] = in->shape[k];
	if (!qref_litert_shape_is(out, wr, want))
		return qref_litert_shape_mismatch(d, "SQUEEZE", wr, want);
	size_t n = qref_tensor_numel(in);
	for (size_t i = 0; i < n; i++)
		mv(m, i, 0, i);
	return QCF_OK;
}

/* ---- SPACE_TO_DEPTH (space_to_depth.cc) ---------------------------------- */

static qcf_status s2d_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	if (in->rank != 4)
		return qref_fail(d, QCF_INVALID_PARAM, "SPACE_TO_DEPTH input must have rank 4");
	if (in->dtype == QCF_INT16)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SPACE_TO_DEPTH: LiteRT accepts float32, uint8, int8, int32 and "
		                 "int64, not int16");
	int64_t bs;
	qcf_status s = attr_i(call, "block_size", 0, &bs, d);
	if (s != QCF_OK)
		return s;
	if (bs <= 0)
		return qref_fail_attr(d, "block_size", QCF_INVALID_PARAM,
		                      "SPACE_TO_DEPTH: block_size must be > 0");
	int64_t N = in->shape[0], H = in->shape[1], W = in->shape[2], C = in->shape[3];
	if (H % bs || W % bs)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SPACE_TO_DEPTH: height %lld and width %lld must be multiples of "
		                 "block_size %lld",
		                 (long long)H, (long long)W, (long long)bs);
	int64_t want[4] = {N, H / bs, W / bs, C * bs * bs};
	if (!qref_litert_shape_is(out, 4, want))
		return qref_litert_shape_mismatch(d, "SPACE_TO_DEPTH", 4, want);
	size_t no = qref_tensor_numel(out);
	int64_t co[4];
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, 4, want, co);
		int64_t oc = co[3], c = oc % C, bx = (oc / C) % bs, by = oc / C / bs;
		int64_t y = co[1] * bs + by, x = co[2] * bs + bx;
		mv(m, i, 0, (size_t)(((co[0] * H + y) * W + x) * C + c));
	}
	return QCF_OK;
}

/* ---- BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND -------------------------------- */

/*
 * Shared checks: rank 3 or 4 (rank 3 is [N, H, C], treated as [N, H, 1, C]
 * with block 1 along W), block_shape 1-D of rank - 2 values >= 1, the
 * [rank - 2, 2] table (crops or paddings) >= 0, exact in/out scale and zero
 * point equality for quantized types and int16 zero points 0.
 */
static qcf_status b2s_common(const qcf_op_call *call, qref_detail *d, int64_t *blk, int64_t *tab,
                             int *nsp)
{
	const qcf_tensor *in = &call->inputs[0];
	const char *tname = !strcmp(call->op, "BATCH_TO_SPACE_ND") ? "crops" : "paddings";
	if (in->rank != 3 && in->rank != 4)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s input must have rank 3 or 4, got %" PRId32 "", call->op,
		                 in->rank);
	int sp = in->rank - 2;
	*nsp = sp;
	size_t nb, nt;
	const qcf_tensor *bt = &call->inputs[1], *tt = &call->inputs[2];
	if (bt->rank != 1 || bt->shape[0] != sp)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: block_shape must have shape [%d]",
		                 call->op, sp);
	if (tt->rank != 2 || tt->shape[0] != sp || tt->shape[1] != 2)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: %s must have shape [%d, 2]", call->op,
		                 tname, sp);
	qcf_status s = qref_litert_read_index(call, 1, "block_shape", 0, blk, 2, &nb, d);
	if (s == QCF_OK)
		s = qref_litert_read_index(call, 2, tname, 0, tab, 4, &nt, d);
	if (s != QCF_OK)
		return s;
	for (int k = 0; k < sp; k++) {
		if (blk[k] < 1)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: block_shape[%d] = %lld must be >= 1", call->op, k,
			                 (long long)blk[k]);
		if (tab[2 * k] < 0 || tab[2 * k + 1] < 0)
			return qref_fail(d, QCF_INVALID_PARAM, "%s: %s must be >= 0", call->op,
			                 tname);
	}
	if (sp == 1) {
		blk[1] = 1;
		tab[2] = tab[3] = 0;
	}
	if (qref_litert_is_q(in->dtype))
		return same_params(call, 0, "LiteRT's Prepare compares them exactly", d);
	return QCF_OK;
}

/* The 4-D view [N, H, W, C] of a rank 3 or 4 tensor. */
static void view4(const qcf_tensor *t, int64_t *v)
{
	v[0] = t->shape[0];
	v[1] = t->shape[1];
	v[2] = t->rank == 4 ? t->shape[2] : 1;
	v[3] = t->shape[t->rank - 1];
}

static qcf_status b2s_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	int64_t blk[2], cr[4];
	int sp;
	qcf_status s = b2s_common(call, d, blk, cr, &sp);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	int64_t v[4];
	view4(in, v);
	int64_t bb = blk[0] * blk[1];
	if (v[0] % bb)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "BATCH_TO_SPACE_ND: batch %lld must be a multiple of the block "
		                 "product %lld",
		                 (long long)v[0], (long long)bb);
	int64_t ob = v[0] / bb, oh = v[1] * blk[0] - cr[0] - cr[1],
	        ow = v[2] * blk[1] - cr[2] - cr[3];
	if (oh < 0 || ow < 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "BATCH_TO_SPACE_ND: crops larger than the spatial size");
	int64_t want[4] = {ob, oh, ow, v[3]};
	if (sp == 1)
		want[2] = v[3];
	if (!qref_litert_shape_is(out, in->rank, want))
		return qref_litert_shape_mismatch(d, call->op, in->rank, want);
	int64_t co[4], o4[4] = {ob, oh, ow, v[3]};
	size_t no = qref_tensor_numel(out);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, 4, o4, co);
		/* output (b, y, x) comes from the input batch whose block offset
		 * (oy, ox) puts it there: y + crop_top = iy * blk0 + oy */
		int64_t yy = co[1] + cr[0], xx = co[2] + cr[2];
		int64_t iy = yy / blk[0], offy = yy % blk[0], ix = xx / blk[1], offx = xx % blk[1];
		int64_t ib = (offy * blk[1] + offx) * ob + co[0];
		mv(m, i, 0, (size_t)(((ib * v[1] + iy) * v[2] + ix) * v[3] + co[3]));
	}
	return QCF_OK;
}

static qcf_status s2b_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	int64_t blk[2], pd[4];
	int sp;
	qcf_status s = b2s_common(call, d, blk, pd, &sp);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	int64_t v[4];
	view4(in, v);
	int64_t ph = v[1] + pd[0] + pd[1], pw = v[2] + pd[2] + pd[3];
	if (ph % blk[0] || pw % blk[1])
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SPACE_TO_BATCH_ND: padded spatial sizes (%lld, %lld) must be "
		                 "multiples of block_shape",
		                 (long long)ph, (long long)pw);
	int64_t ob = v[0] * blk[0] * blk[1], oh = ph / blk[0], ow = pw / blk[1];
	int64_t want[4] = {ob, oh, ow, v[3]};
	if (sp == 1)
		want[2] = v[3];
	if (!qref_litert_shape_is(out, in->rank, want))
		return qref_litert_shape_mismatch(d, call->op, in->rank, want);
	/* pad value: the output zero point (kernel), real 0 (hook) */
	double raw = 0;
	if (m->out && qref_litert_is_q(out->dtype)) {
		qcf_quant qo;
		if ((s = qref_litert_get_q(call, out, "output", &qo, d)) != QCF_OK)
			return s;
		raw = qo.zero_points[0];
	}
	int64_t co[4], o4[4] = {ob, oh, ow, v[3]};
	size_t no = qref_tensor_numel(out);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, 4, o4, co);
		int64_t ib = co[0] % v[0], off = co[0] / v[0];
		int64_t iy = co[1] * blk[0] + off / blk[1] - pd[0];
		int64_t ix = co[2] * blk[1] + off % blk[1] - pd[2];
		if (iy < 0 || iy >= v[1] || ix < 0 || ix >= v[2])
			mv_fill(m, i, raw, 1, raw);
		else
			mv(m, i, 0, (size_t)(((ib * v[1] + iy) * v[2] + ix) * v[3] + co[3]));
	}
	return QCF_OK;
}

/* ---- the data movement ops' kernel and real hook ------------------------- */

/* Which move a row is (its param), and its data inputs (-1: all; the others are indices). */
enum {
	MV_CONCAT,
	MV_RESHAPE,
	MV_TRANSPOSE,
	MV_PAD,
	MV_SLICE,
	MV_GATHER,
	MV_SQUEEZE,
	MV_S2D,
	MV_B2S,
	MV_S2B
};

/* int4: LiteRT's kernel takes int4 data (concatenation.cc, slice.cc SliceInt4, gather.cc). */
static const struct {
	move_fn fn;
	int ndata, int4;
} moves[] = {
        [MV_CONCAT] = {concat_move, -1, 1},
        [MV_RESHAPE] = {reshape_move, 1, 0},
        [MV_TRANSPOSE] = {transpose_move, 1, 0},
        [MV_PAD] = {pad_move, 1, 0},
        [MV_SLICE] = {slice_move, 1, 1},
        [MV_GATHER] = {gather_move, 1, 1},
        [MV_SQUEEZE] = {squeeze_move, 1, 0},
        [MV_S2D] = {s2d_move, 1, 0},
        [MV_B2S] = {b2s_move, 1, 0},
        [MV_S2B] = {s2b_move, 1, 0},
};

/* The input counts are the schema's. */
static qcf_status move_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	mover m;
	qcf_status s = move_setup(call, d, &m, row->schema.min_inputs, row->schema.max_inputs,
	                          moves[row->param].ndata, moves[row->param].int4, 0);
	return s != QCF_OK ? s : moves[row->param].fn(call, d, &m);
}

static qcf_status move_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                            qref_detail *d)
{
	(void)k; /* one output */
	mover m;
	qcf_status s = move_setup(call, d, &m, row->schema.min_inputs, row->schema.max_inputs,
	                          moves[row->param].ndata, moves[row->param].int4, 1);
	if (s != QCF_OK)
		return s;
	m.real = values;
	return moves[row->param].fn(call, d, &m);
}

/* ---- RESIZE_BILINEAR int8/int16 (ResizeBilinearInteger) ----------------- */

typedef struct resize {
	int64_t n, h, w, c, oh, ow, sh, sw;
	int align, half;
} resize;

static qcf_status resize_setup(const qcf_op_call *call, resize *z, int need_out, qref_detail *d)
{
	qcf_status s =
	        need_out ? qref_check_call(call, 2, 1, d) : qref_check_call_shapes(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0], *out = &call->outputs[0];
	if (in->rank != 4)
		return qref_fail(d, QCF_INVALID_PARAM, "RESIZE_BILINEAR input must have rank 4");
	if (in->dtype != out->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "RESIZE_BILINEAR: input type %s differs from output %s",
		                 dt(in->dtype), dt(out->dtype));
	if (in->dtype != QCF_INT8 && in->dtype != QCF_INT16)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "RESIZE_BILINEAR: the reference implements the integer path "
		                 "(int8, int16), not %s",
		                 dt(in->dtype));
	if (call->inputs[1].rank != 1 || call->inputs[1].shape[0] != 2)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "RESIZE_BILINEAR: size must be a 1-D tensor of 2 values");
	int64_t sz[2];
	size_t n;
	if ((s = qref_litert_read_index(call, 1, "size", 0, sz, 2, &n, d)) != QCF_OK)
		return s;
	if (sz[0] <= 0 || sz[1] <= 0)
		return qref_fail(d, QCF_INVALID_PARAM, "RESIZE_BILINEAR: size values must be > 0");
	int64_t a, hp;
	if ((s = attr_i(call, "align_corners", 0, &a, d)) != QCF_OK ||
	    (s = attr_i(call, "half_pixel_centers", 0, &hp, d)) != QCF_OK)
		return s;
	if (a && hp)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "RESIZE_BILINEAR: align_corners and half_pixel_centers cannot both "
		        "be set");
	memset(z, 0, sizeof *z);
	z->align = a != 0;
	z->half = hp != 0;
	z->n = in->shape[0];
	z->h = in->shape[1];
	z->w = in->shape[2];
	z->c = in->shape[3];
	z->oh = sz[0];
	z->ow = sz[1];
	int64_t want[4] = {z->n, z->oh, z->ow, z->c};
	if (!qref_litert_shape_is(out, 4, want))
		return qref_litert_shape_mismatch(d, "RESIZE_BILINEAR", 4, want);
	/* Q10 scales: trunc((1024 * in + out / 2) / out); align_corners and out > 1
	 * use (in - 1) / (out - 1) */
	z->sh = z->align && z->oh > 1 ? (1024 * (z->h - 1) + (z->oh - 1) / 2) / (z->oh - 1)
	                              : (1024 * z->h + z->oh / 2) / z->oh;
	z->sw = z->align && z->ow > 1 ? (1024 * (z->w - 1) + (z->ow - 1) / 2) / (z->ow - 1)
	                              : (1024 * z->w + z->ow / 2) / z->ow;
	return QCF_OK;
}

/* Source rows (i0, i1) and the Q10 fraction of output coordinate o. */
static void resize_coord(int64_t o, int64_t scale, int half, int64_t in, int64_t *i0, int64_t *i1,
                         int64_t *frac)
{
	int64_t Y = half ? o * scale + scale / 2 - 512 : o * scale;
	int64_t a = Y / 1024, b = (Y + 1023) / 1024;
	*i0 = a > 0 ? a : 0;
	*i1 = b < in - 1 ? b : in - 1;
	*frac = Y - 1024 * *i0;
}

/* The Q20 interpolation sum o of output element (b, y, x, c). */
static int64_t resize_sum(const qcf_tensor *in, const resize *z, int64_t b, int64_t y, int64_t x,
                          int64_t c, double scale, double zp, double *real)
{
	int64_t y0, y1, dy, x0, x1, dx;
	resize_coord(y, z->sh, z->half, z->h, &y0, &y1, &dy);
	resize_coord(x, z->sw, z->half, z->w, &x0, &x1, &dx);
#define AT(yy, xx) qref_get(in, (size_t)(((b * z->h + (yy)) * z->w + (xx)) * z->c + c))
	double q00 = AT(y0, x0), q10 = AT(y1, x0), q01 = AT(y0, x1), q11 = AT(y1, x1);
#undef AT
	int64_t o = (int64_t)q00 * (1024 - dy) * (1024 - dx) + (int64_t)q10 * dy * (1024 - dx) +
	            (int64_t)q01 * (1024 - dy) * dx + (int64_t)q11 * dy * dx;
	if (real)
		*real = ((double)o / 1048576.0 - zp) * scale;
	return o;
}

static qcf_status resize_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	resize z;
	qcf_status s = resize_setup(call, &z, 1, d);
	if (s != QCF_OK)
		return s;
	qref_rounding r = qref_detail_rounding(d);
	if (r != QREF_ROUND_DEFAULT && r != QREF_ROUND_DOUBLE && r != QREF_ROUND_SINGLE)
		return qref_rounding_na(call, d, r, "the Q20 interpolation sum to an integer");
	qref_set_default_rounding(d, QREF_ROUND_DOUBLE);
	int single = r == QREF_ROUND_SINGLE;
	size_t oi = 0;
	for (int64_t b = 0; b < z.n; b++)
		for (int64_t y = 0; y < z.oh; y++)
			for (int64_t x = 0; x < z.ow; x++)
				for (int64_t c = 0; c < z.c; c++, oi++) {
					int64_t o = resize_sum(&call->inputs[0], &z, b, y, x, c, 1,
					                       0, NULL);
					/* default: ties away from zero; single-rounding build:
					 * (o + 2^19) >> 20 */
					int64_t v =
					        single ? qref_asr64(o + (1 << 19), 20)
					               : (o + (o > 0 ? (1 << 19) : -(1 << 19))) /
					                         (1 << 20);
					qref_set(&call->outputs[0], oi, (double)v);
				}
	return QCF_OK;
}

static qcf_status resize_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                              qref_detail *d)
{
	(void)row;
	(void)k;
	resize z;
	qcf_status s = resize_setup(call, &z, 0, d);
	if (s != QCF_OK)
		return s;
	qcf_quant q;
	if ((s = qref_litert_get_q(call, &call->inputs[0], "input", &q, d)) != QCF_OK)
		return s;
	size_t oi = 0;
	for (int64_t b = 0; b < z.n; b++)
		for (int64_t y = 0; y < z.oh; y++)
			for (int64_t x = 0; x < z.ow; x++)
				for (int64_t c = 0; c < z.c; c++, oi++)
					resize_sum(&call->inputs[0], &z, b, y, x, c, q.scales[0],
					           q.zero_points[0], &values[oi]);
	return QCF_OK;
}

/* ---- ARG_MAX (arg_min_max.cc), SHAPE (shape.cc) ------------------------- */

static qcf_status arg_max(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	if (in->dtype != QCF_INT8 && in->dtype != QCF_UINT8 && in->dtype != QCF_INT32 &&
	    in->dtype != QCF_FLOAT32 && in->dtype != QCF_BOOL)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "ARG_MAX input must be float32, uint8, int8, int32 or bool, got %s",
		        dt(in->dtype));
	if (out->dtype != QCF_INT32 && out->dtype != QCF_INT64)
		return qref_fail(d, QCF_INVALID_PARAM, "ARG_MAX output must be int32 or int64");
	if (qref_tensor_numel(&call->inputs[1]) != 1)
		return qref_fail(d, QCF_INVALID_PARAM, "ARG_MAX: axis must hold exactly 1 value");
	int64_t axis;
	size_t n;
	if ((s = qref_litert_read_index(call, 1, "axis", 1, &axis, 1, &n, d)) != QCF_OK)
		return s;
	int r = in->rank;
	if (r < 1)
		return qref_fail(d, QCF_INVALID_PARAM, "ARG_MAX input must have rank >= 1");
	if (axis < -r || axis >= r)
		return qref_fail(d, QCF_INVALID_PARAM, "ARG_MAX: axis %lld out of [-%d, %d)",
		                 (long long)axis, r, r);
	if (axis < 0)
		axis += r;
	if (in->shape[axis] <= 0)
		return qref_fail(d, QCF_INVALID_PARAM, "ARG_MAX: the axis must not be empty");
	int64_t want[MAXR];
	int wr = 0;
	for (int k = 0; k < r; k++)
		if (k != axis)
			want[wr++] = in->shape[k];
	if (!qref_litert_shape_is(out, wr, want))
		return qref_litert_shape_mismatch(d, "ARG_MAX", wr, want);
	if ((s = qref_no_rounding(call, d, "nothing: it compares raw values")) != QCF_OK)
		return s;
	size_t outer = 1, inner = 1, len = (size_t)in->shape[axis];
	for (int k = 0; k < axis; k++)
		outer *= (size_t)in->shape[k];
	for (int k = (int)axis + 1; k < r; k++)
		inner *= (size_t)in->shape[k];
	for (size_t o = 0; o < outer; o++)
		for (size_t e = 0; e < inner; e++) {
			size_t best = 0;
			double bv = qref_get(in, o * len * inner + e);
			for (size_t j = 1; j < len; j++) {
				double v = qref_get(in, (o * len + j) * inner + e);
				if (v > bv) { /* strict: ties keep the lowest index */
					bv = v;
					best = j;
				}
			}
			qref_set(out, o * inner + e, (double)best);
		}
	return QCF_OK;
}

static qcf_status shape_op(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *in = &call->inputs[0];
	qcf_tensor *out = &call->outputs[0];
	if (out->dtype != QCF_INT32 && out->dtype != QCF_INT64)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SHAPE output must be int32 or int64, got %s", dt(out->dtype));
	int64_t want[1] = {in->rank};
	if (!qref_litert_shape_is(out, 1, want))
		return qref_litert_shape_mismatch(d, "SHAPE", 1, want);
	if ((s = qref_no_rounding(call, d, "nothing: it reports the shape")) != QCF_OK)
		return s;
	for (int k = 0; k < in->rank; k++)
		qref_set(out, (size_t)k, (double)in->shape[k]);
	return QCF_OK;
}

static const qref_attr_schema pool_attrs[] = {
        A_ENUM("padding", LIST("SAME", "VALID"), 0, "VALID"),
        A_INT("stride_h", 1, INF, "1"),
        A_INT("stride_w", 1, INF, "1"),
        A_INT("filter_height", 1, INF, "1"),
        A_INT("filter_width", 1, INF, "1"),
        A_ENUM("fused_activation_function", ACT4, 0, "NONE"),
        END,
};

static const qref_attr_schema reduce_attrs[] = {
        A_BOOL("keep_dims", "0"),
        END,
};

static const qref_attr_schema concat_attrs[] = {
        A_INT("axis", -INF, INF, "0"),
        A_ENUM("fused_activation_function", LIST("NONE"), 0, "NONE"),
        END,
};

static const qref_attr_schema gather_attrs[] = {
        A_INT("axis", -INF, INF, "0"),
        A_INT("batch_dims", -INF, INF, "0"),
        END,
};

static const qref_attr_schema squeeze_attrs[] = {
        A_INTS("squeeze_dims", -INF, "every dimension of size 1"),
        END,
};

static const qref_attr_schema resize_attrs[] = {
        A_BOOL("align_corners", "0"),
        A_BOOL("half_pixel_centers", "0"),
        END,
};

static const qref_attr_schema s2d_attrs[] = {
        A_INT_REQ("block_size", 1, INF),
        END,
};

const qref_op qref_ops_litert_layout[] = {
        {.schema = {.semantics = "litert", .op = "AVERAGE_POOL_2D", XY, .attrs = pool_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = pool_kernel,
         .real = pool_real,
         .param = 0},
        {.schema = {.semantics = "litert", .op = "MAX_POOL_2D", XY, .attrs = pool_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = pool_kernel,
         .real = pool_real,
         .param = 1},
        {.schema = {.semantics = "litert",
                    .op = "MEAN",
                    IO(LIST("x", "axis"), 2, 2, LIST("y"), 1),
                    .attrs = reduce_attrs},
         .kernel = reduce_kernel,
         .real = reduce_real,
         .param = 0},
        {.schema = {.semantics = "litert",
                    .op = "SUM",
                    IO(LIST("x", "axis"), 2, 2, LIST("y"), 1),
                    .attrs = reduce_attrs},
         .kernel = reduce_kernel,
         .real = reduce_real,
         .param = 1},
        {.schema = {.semantics = "litert",
                    .op = "CONCATENATION",
                    IO(LIST("values"), 1, MAX_CONCAT, LIST("y"), 1),
                    .attrs = concat_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_CONCAT},
        {.schema = {.semantics = "litert",
                    .op = "RESHAPE",
                    IO(LIST("x", "shape"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_RESHAPE},
        {.schema = {.semantics = "litert",
                    .op = "TRANSPOSE",
                    IO(LIST("x", "perm"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_TRANSPOSE},
        {.schema = {.semantics = "litert",
                    .op = "PAD",
                    IO(LIST("x", "paddings"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_PAD},
        {.schema = {.semantics = "litert",
                    .op = "PADV2",
                    IO(LIST("x", "paddings", "constant_values"), 3, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_PAD},
        {.schema = {.semantics = "litert",
                    .op = "SLICE",
                    IO(LIST("x", "begin", "size"), 3, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_SLICE},
        {.schema = {.semantics = "litert",
                    .op = "GATHER",
                    IO(LIST("x", "positions"), 2, 2, LIST("y"), 1),
                    .attrs = gather_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_GATHER},
        {.schema = {.semantics = "litert", .op = "SQUEEZE", XY, .attrs = squeeze_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_SQUEEZE},
        {.schema = {.semantics = "litert",
                    .op = "RESIZE_BILINEAR",
                    IO(LIST("x", "size"), 2, 2, LIST("y"), 1),
                    .attrs = resize_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = resize_kernel,
         .real = resize_real},
        {.schema = {.semantics = "litert", .op = "SPACE_TO_DEPTH", XY, .attrs = s2d_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_S2D},
        {.schema = {.semantics = "litert",
                    .op = "BATCH_TO_SPACE_ND",
                    IO(LIST("x", "block_shape", "crops"), 3, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_B2S},
        {.schema = {.semantics = "litert",
                    .op = "SPACE_TO_BATCH_ND",
                    IO(LIST("x", "block_shape", "paddings"), 3, 3, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_S2B},
        {.schema = {.semantics = "litert",
                    .op = "ARG_MAX",
                    IO(LIST("x", "axis"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = arg_max},
        {.schema = {.semantics = "litert", .op = "SHAPE", XY, .attrs = qref_no_attrs},
         .kernel = shape_op},
        {.schema = {.op = NULL}},
};
