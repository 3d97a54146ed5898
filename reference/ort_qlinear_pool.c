/*
 * ONNX Runtime's com.microsoft quantized pooling and concatenation (specs/ort/OPERATORS.md),
 * semantics "ort": QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat and NhwcMaxPool.
 * Every scale and zero point is per tensor (ORT enforces a scalar or a 1-element vector) and
 * travels as its tensor's quant.
 *
 * Sources (microsoft/onnxruntime): the schemas in onnxruntime/core/graph/contrib_ops/
 * quantization_defs.cc and contrib_defs.cc; the CPU kernels in onnxruntime/contrib_ops/cpu/
 * quantization/ qlinear_pool.cc, qlinear_global_average_pool.cc, qlinear_concat.cc,
 * qlinear_lookup_table.cc and nhwc_max_pool.cc; the output sizes of
 * onnxruntime/core/providers/cpu/nn/pool_attributes.h; MLAS onnxruntime/core/mlas/lib/
 * qlgavgpool.cpp, quantize.cpp (MlasQuantizeLinear, MlasRequantizeOutput) and pooling.cpp.
 *
 * QLinearAveragePool, in float32 throughout (qlinear_pool.cc): every input is dequantized as
 *   x_scale * (x - x_zp); a window's values are summed in row-major order of the window (the
 *   taps inside x only), the sum divided by the count (the kernel's size with
 *   count_include_pad, else the taps inside x), then q = nearbyintf(avg / y_scale + y_zp)
 *   (half to even), saturated. When the kernel covers the whole image and every pad is 0 the
 *   kernel takes QLinearGlobalAveragePool's path instead (below): the zero point is then added
 *   AFTER rounding, which differs at ties.
 * QLinearGlobalAveragePool (MlasQLinearGlobalAveragePoolNchw / Nhwc): acc = sum (x) - x_zp * n
 *   exactly in int32; scale = x_scale / (y_scale * float(n)) in float32; v = float(acc) * scale,
 *   clamped to [lo - y_zp, hi - y_zp], rounded half to even (cvtps2dq, vcvtnq), plus y_zp. MLAS
 *   throws for n >= 2^24 and for scale outside [2^-32, 256).
 * QLinearConcat: each input whose scale and zero point both equal the output's is copied; any
 *   other goes through a 256-entry table (QlinearBuildLookupTable): x_scale * (i - x_zp) in
 *   float32, then MlasQuantizeLinear: divided by y_scale in float32, clamped, half to even, plus
 *   y_zp. Every ISA's kernel divides and rounds the same way: bit-exact.
 * NhwcMaxPool: the maximum of each window (padding never wins), int8 or uint8, channels last.
 *
 * Output sizes (PoolAttributes::ComputeSizePadDilations): floor or ceil of (in + pads -
 * dilation (k - 1) - 1) / stride + 1; with ceil_mode a last window that would start at or past
 * in + pad_head is dropped (ORT 1.30); auto_pad SAME_UPPER / SAME_LOWER pad (ceil(in / stride) -
 * 1) stride + k - in, the odd one at the end / start.
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
#include "op.h"
#include "ort_qlinear.h"

enum { PL_AVG, PL_GAVG };

#define POOL_MAX_SP 3  /* QLinearAveragePool: 1-D to 3-D (ORT refuses more) */
#define CONCAT_MAX  16 /* QLinearConcat inputs the reference takes */

static const char *tn(qcf_dtype t)
{
	return qref_dtype_name(t);
}

static int is_q8(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8;
}

static inline int32_t q8_at(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

static void q8_put(qcf_tensor *t, size_t i, int32_t v)
{
	if (t->dtype == QCF_INT8)
		((int8_t *)t->data)[i] = (int8_t)v;
	else
		((uint8_t *)t->data)[i] = (uint8_t)v;
}

/* Rounds v half to even and saturates to [lo, hi] as quantize_value does: nearbyintf, then
 * static_cast<int32_t>, which x86 turns into INT32_MIN out of int32's range (undefined in C++:
 * such an element may be any value, *any set). */
static int32_t sat_round(float v, int32_t lo, int32_t hi, int *any)
{
	float r = nearbyintf(v);
	*any = 0;
	if (!(r >= -2147483648.0f && r < 2147483648.0f)) {
		*any = 1;
		return lo;
	}
	int32_t q = (int32_t)r;
	return q < lo ? lo : q > hi ? hi : q;
}

/* MlasQuantizeLinear / MlasRequantizeOutput after the scaling: clamp v to the type minus the
 * zero point (float32), round half to even, add the zero point. */
static int32_t mlas_round(float v, int32_t zp, int32_t lo, int32_t hi)
{
	float flo = (float)(lo - zp), fhi = (float)(hi - zp);
	v = v < flo ? flo : v;
	v = v > fhi ? fhi : v;
	return (int32_t)nearbyintf(v) + zp;
}

/* ---- pooling geometry --------------------------------------------------------------------- */

/* An INTS attribute of n entries, each >= min (def when absent). */
static qcf_status ints_attr(const qcf_op_call *call, const char *name, int32_t n, int64_t min,
                            int64_t def, int64_t *out, int *given, qref_detail *d)
{
	const qcf_attr *a = qref_attr_find(call, name);
	*given = a != NULL;
	for (int32_t i = 0; i < n; i++)
		out[i] = def;
	if (!a)
		return QCF_OK;
	if (a->type != QCF_ATTR_INTS || a->count != n)
		return qref_fail_attr(
		        d, name, QCF_INVALID_PARAM,
		        "%s: %s needs %" PRId32 " integers (one per spatial dimension%s)", call->op,
		        name, n, strcmp(name, "pads") ? "" : ", begins then ends");
	for (int32_t i = 0; i < n; i++) {
		if (a->v.ints[i] < min || a->v.ints[i] > 1000000000)
			return qref_fail_attr(d, name, QCF_INVALID_PARAM,
			                      "%s: %s[%" PRId32 "] = %lld, must be >= %lld",
			                      call->op, name, i, (long long)a->v.ints[i],
			                      (long long)min);
		out[i] = a->v.ints[i];
	}
	return QCF_OK;
}

/* PoolAttributes::ComputeOutputSize on an exact rational (ORT divides in float32: the same
 * for the sizes of a spec), and the ceil_mode correction of ORT 1.30. */
static int64_t pool_out_size(int64_t in, int64_t pad_head, int64_t pad_total, int64_t k,
                             int64_t stride, int64_t dil, int ceil_mode)
{
	int64_t num = in + pad_total - dil * (k - 1) - 1;
	if (num < 0)
		return -1;
	int64_t out = (ceil_mode ? (num + stride - 1) / stride : num / stride) + 1;
	if (ceil_mode && (out - 1) * stride >= in + pad_head)
		out--;
	return out;
}

/* The geometry of a QLinearAveragePool or ONNX float32 AveragePool (dilated 0) or NhwcMaxPool
 * (dilated 1) call; y's shape must be the one ORT computes. */
qcf_status qref_pool_shape(const qcf_op_call *call, int dilated, int channels_last,
                           qref_pool_geom *g, qref_detail *d)
{
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	memset(g, 0, sizeof *g);
	if (x->rank < 3)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: x must have rank >= 3 (N, C and spatial dimensions), got %" PRId32
		        " (ORT: \"Input dimension cannot be less than 3\")",
		        call->op, x->rank);
	g->nsp = x->rank - 2;
	g->channels_last = channels_last;
	g->batch = x->shape[0];
	g->ch = channels_last ? x->shape[x->rank - 1] : x->shape[1];
	for (int32_t i = 0; i < g->nsp; i++)
		g->in[i] = x->shape[(channels_last ? 1 : 2) + i];
	int64_t pads[2 * QCF_MAX_RANK];
	int kgiven, sgiven, dgiven, pgiven;
	qcf_status s;
	const qcf_attr *ka = qref_attr_find(call, "kernel_shape");
	if (!ka)
		return qref_fail_attr(
		        d, "kernel_shape", QCF_INVALID_PARAM,
		        "%s: kernel_shape is required (ORT: \"No kernel shape is set\")", call->op);
	if ((s = ints_attr(call, "kernel_shape", g->nsp, 1, 1, g->k, &kgiven, d)) != QCF_OK ||
	    (s = ints_attr(call, "strides", g->nsp, 1, 1, g->stride, &sgiven, d)) != QCF_OK ||
	    (s = ints_attr(call, "pads", 2 * g->nsp, 0, 0, pads, &pgiven, d)) != QCF_OK)
		return s;
	if (dilated) {
		if ((s = ints_attr(call, "dilations", g->nsp, 1, 1, g->dil, &dgiven, d)) != QCF_OK)
			return s;
	} else {
		for (int32_t i = 0; i < g->nsp; i++)
			g->dil[i] = 1;
	}
	/* ceil_mode, auto_pad (and channels_last, count_include_pad): the schema's rows below hold
	 * them to 0 or 1 and to the four names before a kernel runs */
	int64_t ceil_mode = 0;
	qref_attr_int(call, "ceil_mode", &ceil_mode);
	static const char *const modes[] = {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"};
	int mode = 0;
	const qcf_attr *ap = qref_attr_find(call, "auto_pad");
	for (int i = 0; ap && ap->type == QCF_ATTR_STRING && ap->v.s && i < 4; i++)
		if (strcmp(ap->v.s, modes[i]) == 0)
			mode = i;
	int64_t want[QCF_MAX_RANK];
	want[0] = g->batch;
	want[channels_last ? x->rank - 1 : 1] = g->ch;
	g->in_sp = g->out_sp = g->k_sp = 1;
	for (int32_t i = 0; i < g->nsp; i++) {
		int64_t pb = pads[i], pe = pads[i + g->nsp];
		/* PoolAttributes' constructor: ORT_ENFORCE(pads < kernel) */
		if (pb >= g->k[i] || pe >= g->k[i])
			return qref_fail_attr(
			        d, "pads", QCF_INVALID_PARAM,
			        "%s: pads must be smaller than the kernel (ORT: \"Pad "
			        "should be smaller than kernel\"), dimension %" PRId32
			        ": %lld, %lld, kernel %lld",
			        call->op, i, (long long)pb, (long long)pe, (long long)g->k[i]);
		int64_t total = pb + pe;
		if (mode == 1) {
			pb = pe = total = 0;
		} else if (mode >= 2) {
			int64_t target = (g->in[i] + g->stride[i] - 1) / g->stride[i];
			total = (target - 1) * g->stride[i] + g->k[i] - g->in[i];
			pb = mode == 2 ? total / 2 : (total + 1) / 2;
			pe = total - pb;
		}
		int64_t o = pool_out_size(g->in[i], pb, total, g->k[i], g->stride[i], g->dil[i],
		                          (int)ceil_mode);
		if (o < 1)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: the kernel (%lld, dilation %lld) is larger than the padded "
			        "input (%lld) in spatial dimension %" PRId32
			        " (ORT would make an empty or negative output dimension)",
			        call->op, (long long)g->k[i], (long long)g->dil[i],
			        (long long)(g->in[i] + total), i);
		g->out[i] = o;
		g->pad0[i] = pb;
		g->pad1[i] = pe;
		g->in_sp *= (size_t)g->in[i];
		g->out_sp *= (size_t)o;
		g->k_sp *= (size_t)g->k[i];
		want[(channels_last ? 1 : 2) + i] = o;
	}
	int same = y->rank == x->rank;
	for (int32_t i = 0; same && i < y->rank; i++)
		same = y->shape[i] == want[i];
	if (!same)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y's shape must be the pooled shape (%s, dimension 1 "
		                        "spatial: %lld)",
		                        call->op,
		                        channels_last ? "N, spatial..., C" : "N, C, spatial...",
		                        (long long)g->out[0]);
	return QCF_OK;
}

/* Offset of element (n, c, spatial position sp) of a tensor of spatial size spn. */
size_t qref_pool_off(const qref_pool_geom *g, int64_t n, int64_t c, size_t sp, size_t spn)
{
	if (g->channels_last)
		return ((size_t)n * spn + sp) * (size_t)g->ch + (size_t)c;
	return ((size_t)n * (size_t)g->ch + (size_t)c) * spn + sp;
}

/*
 * The taps of output position os: x's spatial offsets of the taps inside x, in row-major order
 * of the window (ORT's loops: h, then w, then d), into taps; returns their number.
 */
size_t qref_pool_taps(const qref_pool_geom *g, size_t os, size_t *taps)
{
	int64_t opos[QCF_MAX_RANK], kpos[QCF_MAX_RANK];
	size_t rem = os, n = 0;
	for (int32_t i = g->nsp - 1; i >= 0; i--) {
		opos[i] = (int64_t)(rem % (size_t)g->out[i]);
		rem /= (size_t)g->out[i];
	}
	for (size_t ks = 0; ks < g->k_sp; ks++) {
		size_t kr = ks, off = 0;
		int inside = 1;
		for (int32_t i = g->nsp - 1; i >= 0; i--) {
			kpos[i] = (int64_t)(kr % (size_t)g->k[i]);
			kr /= (size_t)g->k[i];
		}
		for (int32_t i = 0; i < g->nsp && inside; i++) {
			int64_t p = opos[i] * g->stride[i] - g->pad0[i] + kpos[i] * g->dil[i];
			inside = p >= 0 && p < g->in[i];
			off = off * (size_t)g->in[i] + (size_t)p;
		}
		if (inside)
			taps[n++] = off;
	}
	return n;
}

/* ---- QLinearAveragePool and QLinearGlobalAveragePool ---------------------------------------- */

/* channels_last, 0 or 1 (the schema's range) */
static int avg_channels_last(const qcf_op_call *call)
{
	int64_t v = 0;
	qref_attr_int(call, "channels_last", &v);
	return v != 0;
}

static qcf_status avg_io(const qcf_op_call *call, qref_ort_q *qx, qref_ort_q *qy, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (!is_q8(x->dtype) || y->dtype != x->dtype)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: x and y must both be int8 or both uint8 (ORT's T), got %s, %s",
		        call->op, tn(x->dtype), tn(y->dtype));
	if ((s = qref_ort_param(call, x, "x", qx, d)) != QCF_OK ||
	    (s = qref_ort_param(call, y, "y", qy, d)) != QCF_OK)
		return s;
	const qref_rounding r = qref_detail_rounding(d);
	if (r != QREF_ROUND_DEFAULT && r != QREF_ROUND_HALF_EVEN)
		return qref_rounding_na(call, d, r, "half to even (nearbyintf, cvtps2dq)");
	return QCF_OK;
}

/* MLAS's global average of n values per output: int32 sum minus x_zp * n, times the float32
 * scale x_scale / (y_scale * n), rounded half to even, plus y_zp. */
static qcf_status gavg_scale(const qcf_op_call *call, const qref_ort_q *qx, const qref_ort_q *qy,
                             size_t n, float *scale, qref_detail *d)
{
	if (n >= 0x1000000)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: the image holds %zu values; MLAS refuses 2^24 or more "
		                 "(\"QLinearGlobalAveragePool ImageSize too large!\")",
		                 call->op, n);
	*scale = qx->s / (qy->s * (float)n);
	if (!(*scale >= 0x1p-32f && *scale < 256.0f))
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: x_scale / (y_scale * %zu) = %g lies outside [2^-32, 256): MLAS "
		        "refuses it (\"QLinearGlobalAveragePool parameter out of computation "
		        "range!\")",
		        call->op, n, (double)*scale);
	return QCF_OK;
}

static int32_t gavg_one(const qcf_tensor *x, const size_t *idx, size_t n, const qref_ort_q *qx,
                        const qref_ort_q *qy, float scale, int32_t lo, int32_t hi)
{
	int64_t acc = -(int64_t)qx->zp * (int64_t)n; /* |acc| < 255 * 2^24: exact in int32 */
	for (size_t i = 0; i < n; i++)
		acc += q8_at(x, idx[i]);
	return mlas_round((float)(int32_t)acc * scale, qy->zp, lo, hi);
}

/* Every image of x (n images of `size` values, N * C of them) through gavg_one into y. */
static qcf_status gavg_all(const qcf_op_call *call, const qref_pool_geom *g, const qref_ort_q *qx,
                           const qref_ort_q *qy, qref_detail *d)
{
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	float scale = 0.0f;
	qcf_status s = gavg_scale(call, qx, qy, g->in_sp, &scale, d);
	if (s != QCF_OK)
		return s;
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	size_t *idx = malloc((g->in_sp ? g->in_sp : 1) * sizeof *idx);
	if (!idx)
		return qref_fail(d, QCF_ERROR, "out of memory");
	for (int64_t n = 0; n < g->batch; n++)
		for (int64_t c = 0; c < g->ch; c++) {
			for (size_t sp = 0; sp < g->in_sp; sp++)
				idx[sp] = qref_pool_off(g, n, c, sp, g->in_sp);
			size_t o = qref_pool_off(g, n, c, 0, 1);
			q8_put(y, o,
			       gavg_one(x, idx, g->in_sp, qx, qy, scale, (int32_t)lo, (int32_t)hi));
			qref_mark_exact(d, 0, o);
		}
	free(idx);
	return QCF_OK;
}

static qcf_status qref_ort_qlinear_avg_pool(const qcf_op_call *call, const qref_op *row,
                                            qref_detail *d)
{
	(void)row;
	qref_ort_q qx, qy;
	int cl, cip;
	int64_t v = 0;
	qref_pool_geom g;
	qcf_status s;
	if ((s = avg_io(call, &qx, &qy, d)) != QCF_OK)
		return s;
	cl = avg_channels_last(call);
	qref_attr_int(call, "count_include_pad", &v);
	cip = v != 0;
	if (call->inputs[0].rank > 2 + POOL_MAX_SP)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: 1 to 3 spatial dimensions (ORT: \"QLinear Pooling unsupported "
		        "pooling size!\"), got %" PRId32,
		        call->op, call->inputs[0].rank - 2);
	if ((s = qref_pool_shape(call, 0, cl, &g, d)) != QCF_OK)
		return s;
	/* qlinear_pool.cc: a kernel the size of the image with no padding is a global average */
	int global = 1;
	for (int32_t i = 0; i < g.nsp; i++)
		global &= g.k[i] == g.in[i] && g.pad0[i] == 0 && g.pad1[i] == 0;
	if (global)
		return gavg_all(call, &g, &qx, &qy, d);
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	size_t *taps = malloc((g.k_sp ? g.k_sp : 1) * sizeof *taps);
	if (!taps)
		return qref_fail(d, QCF_ERROR, "out of memory");
	float deq[256]; /* x_scale * (x - x_zp) in float32, by x - lo */
	for (int32_t v = (int32_t)lo; v <= (int32_t)hi; v++)
		deq[v - (int32_t)lo] = qx.s * (float)(v - qx.zp);
	for (size_t os = 0; os < g.out_sp; os++) {
		size_t nt = qref_pool_taps(&g, os, taps);
		float count = (float)(cip ? (int64_t)g.k_sp : (int64_t)nt);
		for (int64_t n = 0; n < g.batch; n++)
			for (int64_t c = 0; c < g.ch; c++) {
				float sum = 0.0f;
				for (size_t t = 0; t < nt; t++)
					sum += deq[q8_at(x, qref_pool_off(&g, n, c, taps[t],
					                                  g.in_sp)) -
					           (int32_t)lo];
				float avg = sum / count;
				int any;
				int32_t q = sat_round(avg / qy.s + (float)qy.zp, (int32_t)lo,
				                      (int32_t)hi, &any);
				size_t o = qref_pool_off(&g, n, c, os, g.out_sp);
				q8_put(y, o, q);
				if (any)
					qref_mark_any(d, 0, o, lo, hi);
				else
					qref_mark_exact(d, 0, o);
			}
	}
	free(taps);
	return QCF_OK;
}

static qcf_status qref_ort_qlinear_global_avg_pool(const qcf_op_call *call, const qref_op *row,
                                                   qref_detail *d)
{
	(void)row;
	qref_ort_q qx, qy;
	int cl;
	qcf_status s;
	if ((s = avg_io(call, &qx, &qy, d)) != QCF_OK)
		return s;
	cl = avg_channels_last(call);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (x->rank < 3)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: x must have rank >= 3 (N, C and spatial dimensions), got %" PRId32
		        " (ORT: \"Input dimension cannot be less than 3\")",
		        call->op, x->rank);
	qref_pool_geom g;
	memset(&g, 0, sizeof g);
	g.nsp = x->rank - 2;
	g.channels_last = cl;
	g.batch = x->shape[0];
	g.ch = cl ? x->shape[x->rank - 1] : x->shape[1];
	g.in_sp = 1;
	int same = y->rank == x->rank;
	for (int32_t i = 0; i < x->rank; i++) {
		int sp = cl ? i >= 1 && i < x->rank - 1 : i >= 2;
		if (sp)
			g.in_sp *= (size_t)x->shape[i];
		same = same && y->shape[i] == (sp ? 1 : x->shape[i]);
	}
	if (!same)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y's shape must be x's with every spatial dimension 1",
		                        call->op);
	if (g.in_sp == 0)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: an empty image (MLAS divides by its size)", call->op);
	return gavg_all(call, &g, &qx, &qy, d);
}

/* ---- QLinearConcat ------------------------------------------------------------------------ */

static qcf_status qref_ort_qlinear_concat(const qcf_op_call *call, const qref_op *row,
                                          qref_detail *d)
{
	(void)row;
	if (call->n_inputs > CONCAT_MAX)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: the reference takes up to %d inputs, got %" PRId32, call->op,
		                 CONCAT_MAX, call->n_inputs);
	qcf_status s = qref_check_call(call, call->n_inputs < 1 ? 1 : call->n_inputs, 1, d);
	if (s != QCF_OK)
		return s;
	qcf_tensor *y = &call->outputs[0];
	if (!is_q8(y->dtype))
		return qref_fail(d, QCF_INVALID_PARAM, "%s: Y must be int8 or uint8, got %s",
		                 call->op, tn(y->dtype));
	qref_ort_q qy, qi[CONCAT_MAX];
	if ((s = qref_ort_param(call, y, "Y", &qy, d)) != QCF_OK)
		return s;
	int32_t rank = call->inputs[0].rank;
	int64_t axis;
	if (qref_attr_int(call, "axis", &axis) != 1)
		return qref_fail_attr(d, "axis", QCF_INVALID_PARAM,
		                      "%s: attribute axis is required (an integer)", call->op);
	if (axis < -rank || axis >= rank)
		return qref_fail_attr(d, "axis", QCF_INVALID_PARAM,
		                      "%s: axis %lld outside [-%" PRId32 ", %" PRId32 ")", call->op,
		                      (long long)axis, rank, rank);
	if (axis < 0)
		axis += rank;
	int64_t total = 0;
	for (int32_t k = 0; k < call->n_inputs; k++) {
		const qcf_tensor *t = &call->inputs[k];
		char what[32];
		snprintf(what, sizeof what, "input %" PRId32, k);
		/* ORT: the zero point's type is the output zero point's; concat needs one type */
		if (t->dtype != y->dtype)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: input %" PRId32
			                 " is %s, Y is %s: every input and its zero "
			                 "point have Y's zero point's type",
			                 call->op, k, tn(t->dtype), tn(y->dtype));
		if ((s = qref_ort_param(call, t, what, &qi[k], d)) != QCF_OK)
			return s;
		if (t->rank != rank)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: every input has the rank of the first (%" PRId32
			                 "), input %" PRId32 " has %" PRId32,
			                 call->op, rank, k, t->rank);
		for (int32_t j = 0; j < rank; j++)
			if (j != axis && t->shape[j] != call->inputs[0].shape[j])
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "%s: input %" PRId32 " differs from the first in "
				                 "dimension %" PRId32 " (only the axis may differ)",
				                 call->op, k, j);
		total += t->shape[axis];
	}
	int same = y->rank == rank;
	for (int32_t j = 0; same && j < rank; j++)
		same = y->shape[j] == (j == axis ? total : call->inputs[0].shape[j]);
	if (!same)
		return qref_fail_output(
		        d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "%s: Y must be the inputs' shape with dimension %lld the sum "
		        "(%lld)",
		        call->op, (long long)axis, (long long)total);
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	size_t outer = 1, inner = 1;
	for (int32_t j = 0; j < axis; j++)
		outer *= (size_t)y->shape[j];
	for (int32_t j = (int32_t)axis + 1; j < rank; j++)
		inner *= (size_t)y->shape[j];
	size_t ybase = 0;
	for (int32_t k = 0; k < call->n_inputs; k++) {
		const qcf_tensor *t = &call->inputs[k];
		/* QlinearBuildLookupTable, or a copy when scale and zero point both equal Y's */
		int copy = qi[k].s == qy.s && qi[k].zp == qy.zp;
		int32_t table[256];
		for (int v = (int)lo; v <= (int)hi; v++) {
			float deq = qi[k].s * (float)(v - qi[k].zp);
			table[v - (int)lo] =
			        copy ? v : mlas_round(deq / qy.s, qy.zp, (int32_t)lo, (int32_t)hi);
		}
		size_t pitch = (size_t)t->shape[axis] * inner, ypitch = (size_t)total * inner;
		for (size_t o = 0; o < outer; o++)
			for (size_t i = 0; i < pitch; i++) {
				size_t yo = o * ypitch + ybase + i;
				q8_put(y, yo, table[q8_at(t, o * pitch + i) - (int)lo]);
				qref_mark_exact(d, 0, yo);
			}
		ybase += pitch;
	}
	return QCF_OK;
}

/* ---- NhwcMaxPool -------------------------------------------------------------------------- */

static qcf_status qref_ort_nhwc_max_pool(const qcf_op_call *call, const qref_op *row,
                                         qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	if (!is_q8(x->dtype) || y->dtype != x->dtype)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: x and y must both be int8 or both uint8, got %s, %s",
		                 call->op, tn(x->dtype), tn(y->dtype));
	if (x->quant || y->quant)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: x and y carry no quantization (a maximum of stored values)",
		                 call->op);
	if ((s = qref_no_rounding(call, d, "nothing")) != QCF_OK)
		return s;
	qref_pool_geom g;
	if ((s = qref_pool_shape(call, 1, 1, &g, d)) != QCF_OK)
		return s;
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	size_t *taps = malloc((g.k_sp ? g.k_sp : 1) * sizeof *taps);
	if (!taps)
		return qref_fail(d, QCF_ERROR, "out of memory");
	for (size_t os = 0; os < g.out_sp; os++) {
		size_t nt = qref_pool_taps(&g, os, taps);
		for (int64_t n = 0; n < g.batch; n++)
			for (int64_t c = 0; c < g.ch; c++) {
				/* the padding is the type's lowest value: it never wins */
				int32_t m = (int32_t)lo;
				for (size_t t = 0; t < nt; t++) {
					int32_t v =
					        q8_at(x, qref_pool_off(&g, n, c, taps[t], g.in_sp));
					m = v > m ? v : m;
				}
				size_t o = qref_pool_off(&g, n, c, os, g.out_sp);
				q8_put(y, o, m);
				qref_mark_exact(d, 0, o);
			}
	}
	free(taps);
	return QCF_OK;
}

/* ---- rows --------------------------------------------------------------------------------- */

#define POOL_ATTRS                                                                                 \
	A_ENUM("auto_pad", LIST("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"), 0, "NOTSET"),      \
	        A_INT("ceil_mode", 0, 1, "0"),                                                     \
	        A_INTS("kernel_shape", 1, "required: one per spatial dimension"),                  \
	        A_INTS("pads", 0, "0 (begin and end of every spatial dimension)"),                 \
	        A_INTS("strides", 1, "1 per spatial dimension")

static const qref_attr_schema avg_pool_attrs[] = {
        POOL_ATTRS,
        A_INT("channels_last", 0, 1, "0"),
        A_INT("count_include_pad", 0, 1, "0"),
        END,
};

static const qref_attr_schema gavg_pool_attrs[] = {
        A_INT("channels_last", 0, 1, "0"),
        END,
};

static const qref_attr_schema concat_attrs[] = {
        A_INT_REQ("axis", -QCF_MAX_RANK, QCF_MAX_RANK - 1),
        END,
};

static const qref_attr_schema max_pool_attrs[] = {
        POOL_ATTRS,
        A_INTS("dilations", 1, "1 per spatial dimension"),
        END,
};

const qref_op qref_ops_ort_qlinear_pool[] = {
        {.schema = {.semantics = "ort", .op = "QLinearAveragePool", XY, .attrs = avg_pool_attrs},
         .kernel = qref_ort_qlinear_avg_pool,
         .param = PL_AVG},
        {.schema = {.semantics = "ort",
                    .op = "QLinearGlobalAveragePool",
                    XY,
                    .attrs = gavg_pool_attrs},
         .kernel = qref_ort_qlinear_global_avg_pool,
         .param = PL_GAVG},
        {.schema = {.semantics = "ort",
                    .op = "QLinearConcat",
                    IO(LIST("inputs"), 1, CONCAT_MAX, LIST("Y"), 1),
                    .attrs = concat_attrs},
         .kernel = qref_ort_qlinear_concat},
        {.schema = {.semantics = "ort", .op = "NhwcMaxPool", XY, .attrs = max_pool_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = qref_ort_nhwc_max_pool},
        {.schema = {.op = NULL}},
};
