/*
 * qconform adapter for oneDNN (Debian libdnnl-dev 2.6, C API).
 *
 * Ops, each mapped onto one oneDNN primitive with int8 attributes:
 *   litert FULLY_CONNECTED            matmul       (src [M, K], weights = filter^T)
 *   litert CONV_2D, DEPTHWISE_CONV_2D convolution  (NHWC; depthwise = C groups)
 *   onnx   QLinearMatMul, MatMulInteger            matmul
 *   onnx   QLinearConv, ConvInteger                convolution (1-D to 3-D, NC...)
 *
 * oneDNN 2.x int8 arithmetic (the reference matmul, ref_matmul_int8.cpp, and the
 * convolution kernels): acc = sum (src - zp_src) * (wei - zp_wei) in int32;
 * d = float(acc) + float(bias); d *= output_scale[c]; post-ops (eltwise) on d;
 * d += zp_dst; the destination store saturates and rounds to nearest even.
 * So the LiteRT and ONNX parameters become:
 *   output scale   s_in * s_w[c] / s_out as one float32 (per output channel: mask
 *                  on the channel dimension of dst), none for the int32 ops;
 *   zero points    src and dst zero points (runtime, per tensor); a weights zero
 *                  point only for matmul and only per tensor; otherwise the adapter
 *                  subtracts the weights' zero point itself when every w - zp fits
 *                  int8 (exact), and answers NOT_SUPPORTED when it does not;
 *   uint8 weights  oneDNN's int8 primitives take s8 weights only: shifted by their
 *                  zero point as above;
 *   activation     LiteRT's fused activation range [act_min, act_max] as an eltwise
 *                  clip post-op on d, i.e. [act_min - zp_out, act_max - zp_out]
 *                  (clipping at integers before rounding equals clamping after it).
 * Per-axis parameters whose values are all equal are used per tensor.
 *
 * Option isa=VALUE caps the JIT kernels (dnnl_set_max_cpu_isa); create() refuses a
 * value the CPU cannot run, so a report never names an ISA it did not use.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dnnl.h>

#include "qconform/plugin.h"
#include "qconform/plugin_util.h"

#define ONEDNN_ADAPTER_VERSION "1.1"
#define MAXD                   DNNL_MAX_NDIMS

struct qcf_instance {
	dnnl_engine_t engine;
	dnnl_stream_t stream;
	char isa[32]; /* the effective ISA's name */
	char err[768];
};

/* ---- small helpers ---------------------------------------------------------------------- */

static qcf_status fail(qcf_instance *inst, qcf_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static qcf_status fail(qcf_instance *inst, qcf_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(inst->err, sizeof inst->err, fmt, ap);
	va_end(ap);
	return st;
}

static const struct {
	const char *name;
	dnnl_cpu_isa_t isa;
} isa_names[] = {
        {"all", dnnl_cpu_isa_all},
        {"sse41", dnnl_cpu_isa_sse41},
        {"avx", dnnl_cpu_isa_avx},
        {"avx2", dnnl_cpu_isa_avx2},
        {"avx2_vnni", dnnl_cpu_isa_avx2_vnni},
        {"avx512_mic", dnnl_cpu_isa_avx512_mic},
        {"avx512_mic_4ops", dnnl_cpu_isa_avx512_mic_4ops},
        {"avx512_core", dnnl_cpu_isa_avx512_core},
        {"avx512_core_vnni", dnnl_cpu_isa_avx512_core_vnni},
        {"avx512_core_bf16", dnnl_cpu_isa_avx512_core_bf16},
        {"avx512_core_amx", dnnl_cpu_isa_avx512_core_amx},
};
#define N_ISA ((int)(sizeof isa_names / sizeof isa_names[0]))

static const char *isa_name(dnnl_cpu_isa_t isa)
{
	for (int i = 0; i < N_ISA; i++)
		if (isa_names[i].isa == isa)
			return isa_names[i].name;
	return "unknown";
}

static int dtype_range(qcf_dtype t, int64_t *lo, int64_t *hi)
{
	switch (t) {
	case QCF_INT8: *lo = -128, *hi = 127; return 1;
	case QCF_UINT8: *lo = 0, *hi = 255; return 1;
	case QCF_INT16: *lo = -32768, *hi = 32767; return 1;
	case QCF_INT32: *lo = INT32_MIN, *hi = INT32_MAX; return 1;
	default: return 0;
	}
}

static dnnl_data_type_t dnnl_dt(qcf_dtype t)
{
	switch (t) {
	case QCF_INT8: return dnnl_s8;
	case QCF_UINT8: return dnnl_u8;
	case QCF_INT32: return dnnl_s32;
	default: return dnnl_data_type_undef;
	}
}

static int good_scale(float s)
{
	return isfinite(s) && s > 0;
}

/* Per-tensor quantization (or per axis with equal values): 1 and (scale, zp), else 0. */
static int quant_uniform(const qcf_quant *q, float *scale, int32_t *zp)
{
	if (!q || q->count < 1 || !q->scales || q->block_size > 0)
		return 0;
	for (int32_t i = 1; i < q->count; i++)
		if (q->scales[i] != q->scales[0] ||
		    (q->zero_points && q->zero_points[i] != q->zero_points[0]))
			return 0;
	*scale = q->scales[0];
	*zp = q->zero_points ? q->zero_points[0] : 0;
	return 1;
}

static int quant_is_per_tensor(const qcf_quant *q)
{
	return q && q->axis < 0 && q->count == 1 && q->block_size <= 0;
}

/* ---- the oneDNN problem ------------------------------------------------------------------ */

enum { K_MATMUL, K_CONV };

typedef struct plan {
	int kind;
	int nd; /* src/dst rank as oneDNN sees it */
	dnnl_dims_t src_dims, src_str, dst_dims, dst_str;
	int wnd; /* weights rank (conv: +1 when grouped) */
	dnnl_dims_t wei_dims, wei_str;
	dnnl_data_type_t src_dt, wei_dt, dst_dt;
	const void *src, *wei;
	void *dst;
	int64_t wei_count;   /* weight elements (dense) */
	int wei_raw_u8;      /* the weights as given are uint8 */
	const int32_t *bias; /* NULL: none */
	int bias_nd;
	dnnl_dims_t bias_dims;
	dnnl_dims_t strides, dilates, pad_l, pad_r; /* conv, nd - 2 entries */
	int n_scales;                               /* 0: no output scales */
	float *scales;
	int scale_mask;
	int has_zp_src, has_zp_dst, has_zp_wei;
	int32_t zp_src, zp_dst, zp_wei;
	/* per output channel zero point of the weights (shift) */
	int32_t *wzp; /* NULL: none; else wzp[oc] for every output channel */
	int64_t n_oc; /* output channels (conv M / matmul N) */
	int64_t (*oc_of)(const struct plan *, int64_t); /* output channel of weight element i */
	int64_t oc_div, oc_mod;                         /* oc = (i / oc_div) % oc_mod */
	int has_clip;
	float clip_lo, clip_hi;
	int force_shift; /* subtract a matmul weights zero point here, not in oneDNN */
} plan;

static int64_t oc_by_div_mod(const plan *p, int64_t i)
{
	return (i / p->oc_div) % p->oc_mod;
}

struct chain;
static void chain_free(struct chain *c);

struct qcf_prepared {
	struct chain *ch; /* the ops run as a chain of primitives; NULL for matmul/conv */
	dnnl_primitive_t prim, re_src, re_dst;
	dnnl_memory_t u_src, u_dst, m_src, m_dst, m_wei, m_bias, m_zsrc, m_zdst, m_zwei;
	int8_t *wei_shifted;
	int32_t zp_src, zp_dst, zp_wei;
	char impl[128];
};

static void prep_free(qcf_prepared *p)
{
	if (!p)
		return;
	chain_free(p->ch);
	dnnl_primitive_t prims[] = {p->prim, p->re_src, p->re_dst};
	for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
		if (prims[i])
			dnnl_primitive_destroy(prims[i]);
	dnnl_memory_t mems[] = {p->u_src,  p->u_dst,  p->m_src,  p->m_dst, p->m_wei,
	                        p->m_bias, p->m_zsrc, p->m_zdst, p->m_zwei};
	for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
		if (mems[i] && mems[i] != p->u_src && mems[i] != p->u_dst)
			dnnl_memory_destroy(mems[i]);
	if (p->u_src)
		dnnl_memory_destroy(p->u_src);
	if (p->u_dst)
		dnnl_memory_destroy(p->u_dst);
	free(p->wei_shifted);
	free(p);
}

static qcf_status dnnl_fail(qcf_instance *inst, dnnl_status_t s, const char *what)
{
	if (s == dnnl_unimplemented)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "oneDNN %d.%d.%d (isa %s) has no implementation of %s",
		            DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH, inst->isa,
		            what);
	return fail(inst, QCF_ERROR, "oneDNN failed (status %d) at %s", (int)s, what);
}

#define CHK(call, what)                                                                            \
	do {                                                                                       \
		dnnl_status_t s_ = (call);                                                         \
		if (s_ != dnnl_success) {                                                          \
			st = dnnl_fail(inst, s_, what);                                            \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

/* A reorder from a to b (both memories); *re NULL when the descriptors are equal. */
static dnnl_status_t make_reorder(qcf_instance *inst, dnnl_memory_t a, dnnl_memory_t b,
                                  dnnl_primitive_t *re)
{
	const dnnl_memory_desc_t *da, *db;
	dnnl_primitive_desc_t pd;
	*re = NULL;
	dnnl_memory_get_memory_desc(a, &da);
	dnnl_memory_get_memory_desc(b, &db);
	dnnl_status_t s =
	        dnnl_reorder_primitive_desc_create(&pd, da, inst->engine, db, inst->engine, NULL);
	if (s != dnnl_success)
		return s;
	s = dnnl_primitive_create(re, pd);
	dnnl_primitive_desc_destroy(pd);
	return s;
}

static dnnl_status_t run_reorder(qcf_instance *inst, dnnl_primitive_t re, dnnl_memory_t a,
                                 dnnl_memory_t b)
{
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}};
	return dnnl_primitive_execute(re, inst->stream, 2, args);
}

static dnnl_status_t scalar_mem(qcf_instance *inst, dnnl_data_type_t dt, int64_t n, void *data,
                                dnnl_memory_t *m)
{
	dnnl_memory_desc_t md;
	dnnl_dims_t d = {n};
	dnnl_status_t s = dnnl_memory_desc_init_by_tag(&md, 1, d, dt, dnnl_a);
	if (s != dnnl_success)
		return s;
	return dnnl_memory_create(m, &md, inst->engine, data);
}

/* Subtracts the weights' zero point into an owned int8 copy: 0 when a value leaves int8. */
static int shift_weights(plan *p, int by_128, int8_t **out)
{
	int8_t *w = malloc(p->wei_count > 0 ? (size_t)p->wei_count : 1);
	if (!w)
		return -1;
	for (int64_t i = 0; i < p->wei_count; i++) {
		int32_t v =
		        p->wei_raw_u8 ? ((const uint8_t *)p->wei)[i] : ((const int8_t *)p->wei)[i];
		int32_t zp = p->wzp ? p->wzp[p->oc_of(p, i)] : (p->has_zp_wei ? p->zp_wei : 0);
		int32_t d = by_128 ? v - 128 : v - zp;
		if (d < -128 || d > 127) {
			free(w);
			return 0;
		}
		w[i] = (int8_t)d;
	}
	*out = w;
	return 1;
}

static qcf_status build(qcf_instance *inst, plan *p, qcf_prepared **outp, const char *what)
{
	qcf_status st = QCF_OK;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_post_ops_t ops = NULL;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_primitive_t re_w = NULL;
	dnnl_memory_t u_wei = NULL;
	qcf_prepared *pr = calloc(1, sizeof *pr);
	if (!pr)
		return fail(inst, QCF_ERROR, "out of memory");

	/* Weights: oneDNN's int8 primitives read s8 only. A matmul takes one weights zero
	 * point: uint8 weights become w - 128 (exact) with zero point zp - 128. Zero points
	 * the primitive cannot take (conv: none; matmul: per column) are subtracted here
	 * when every w - zp fits int8. */
	int whole = p->kind == K_CONV || p->wzp || p->force_shift;
	int use_wzp_attr = !whole && (p->wei_raw_u8 ? p->zp_wei != 128 : p->has_zp_wei);
	int32_t wzp_value = p->wei_raw_u8 ? p->zp_wei - 128 : p->zp_wei;
	const void *wei = p->wei;
	if (p->wei_raw_u8 || (whole && (p->wzp || p->has_zp_wei))) {
		int r = shift_weights(p, !whole, &pr->wei_shifted);
		if (r < 0) {
			st = fail(inst, QCF_ERROR, "out of memory");
			goto out;
		}
		if (r == 0) {
			st = fail(
			        inst, QCF_NOT_SUPPORTED,
			        "%s: oneDNN 2.6 int8 %s takes int8 weights%s; these weights minus "
			        "their zero point leave int8",
			        what, p->kind == K_CONV ? "convolution" : "matmul",
			        p->kind == K_CONV ? " without a zero point"
			                          : " with at most one zero point per tensor");
			goto out;
		}
		wei = pr->wei_shifted;
	}

	dnnl_memory_desc_t src_u, dst_u, wei_u, src_a, dst_a, wei_a, bias_md;
	CHK(dnnl_memory_desc_init_by_strides(&src_u, p->nd, p->src_dims, p->src_dt, p->src_str),
	    "the source descriptor");
	CHK(dnnl_memory_desc_init_by_strides(&dst_u, p->nd, p->dst_dims, p->dst_dt, p->dst_str),
	    "the destination descriptor");
	CHK(dnnl_memory_desc_init_by_strides(&wei_u, p->wnd, p->wei_dims, dnnl_s8, p->wei_str),
	    "the weights descriptor");
	CHK(dnnl_memory_desc_init_by_tag(&src_a, p->nd, p->src_dims, p->src_dt,
	                                 dnnl_format_tag_any),
	    "the source descriptor");
	CHK(dnnl_memory_desc_init_by_tag(&dst_a, p->nd, p->dst_dims, p->dst_dt,
	                                 dnnl_format_tag_any),
	    "the destination descriptor");
	CHK(dnnl_memory_desc_init_by_tag(&wei_a, p->wnd, p->wei_dims, dnnl_s8, dnnl_format_tag_any),
	    "the weights descriptor");
	if (p->bias)
		CHK(dnnl_memory_desc_init_by_tag(&bias_md, p->bias_nd, p->bias_dims, dnnl_s32,
		                                 p->bias_nd == 1 ? dnnl_a : dnnl_ab),
		    "the bias descriptor");

	CHK(dnnl_primitive_attr_create(&attr), "the attributes");
	/* output scales are fixed at creation: oneDNN 2.6's int8 convolutions have no
	 * run-time output scales (dnnl_unimplemented) */
	if (p->n_scales)
		CHK(dnnl_primitive_attr_set_output_scales(attr, p->n_scales, p->scale_mask,
		                                          p->scales),
		    "output scales");
	if (p->has_zp_src)
		CHK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
		                                        &DNNL_RUNTIME_S32_VAL),
		    "a source zero point");
	if (p->has_zp_dst)
		CHK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
		                                        &DNNL_RUNTIME_S32_VAL),
		    "a destination zero point");
	if (use_wzp_attr)
		CHK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_WEIGHTS, 1, 0,
		                                        &DNNL_RUNTIME_S32_VAL),
		    "a weights zero point");
	if (p->has_clip) {
		CHK(dnnl_post_ops_create(&ops), "post-ops");
		CHK(dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_clip, p->clip_lo,
		                                 p->clip_hi),
		    "an eltwise clip post-op");
		CHK(dnnl_primitive_attr_set_post_ops(attr, ops), "post-ops");
	}

	if (p->kind == K_MATMUL) {
		dnnl_matmul_desc_t md;
		CHK(dnnl_matmul_desc_init(&md, &src_u, &wei_a, p->bias ? &bias_md : NULL, &dst_u),
		    "the matmul descriptor");
		CHK(dnnl_primitive_desc_create(&pd, &md, attr, inst->engine, NULL), what);
	} else {
		dnnl_convolution_desc_t cd;
		CHK(dnnl_dilated_convolution_forward_desc_init(
		            &cd, dnnl_forward_inference, dnnl_convolution_direct, &src_a, &wei_a,
		            p->bias ? &bias_md : NULL, &dst_a, p->strides, p->dilates, p->pad_l,
		            p->pad_r),
		    "the convolution descriptor");
		CHK(dnnl_primitive_desc_create(&pd, &cd, attr, inst->engine, NULL), what);
	}
	const char *impl = NULL;
	if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
	    impl)
		snprintf(pr->impl, sizeof pr->impl, "%s", impl);
	CHK(dnnl_primitive_create(&pr->prim, pd), "the primitive");

	const dnnl_memory_desc_t *src_p = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
	const dnnl_memory_desc_t *dst_p = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
	const dnnl_memory_desc_t *wei_p =
	        dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);

	/* Source and destination: the caller's buffers (handles set at execute), reordered
	 * when the primitive picked another layout. */
	CHK(dnnl_memory_create(&pr->u_src, &src_u, inst->engine, DNNL_MEMORY_NONE), "memory");
	CHK(dnnl_memory_create(&pr->u_dst, &dst_u, inst->engine, DNNL_MEMORY_NONE), "memory");
	if (dnnl_memory_desc_equal(&src_u, src_p)) {
		pr->m_src = pr->u_src;
	} else {
		CHK(dnnl_memory_create(&pr->m_src, src_p, inst->engine, DNNL_MEMORY_ALLOCATE),
		    "memory");
		CHK(make_reorder(inst, pr->u_src, pr->m_src, &pr->re_src), "a source reorder");
	}
	if (dnnl_memory_desc_equal(&dst_u, dst_p)) {
		pr->m_dst = pr->u_dst;
	} else {
		CHK(dnnl_memory_create(&pr->m_dst, dst_p, inst->engine, DNNL_MEMORY_ALLOCATE),
		    "memory");
		CHK(make_reorder(inst, pr->m_dst, pr->u_dst, &pr->re_dst), "a destination reorder");
	}
	/* Weights: packed once, here. */
	CHK(dnnl_memory_create(&u_wei, &wei_u, inst->engine, (void *)wei), "memory");
	CHK(dnnl_memory_create(&pr->m_wei, wei_p, inst->engine, DNNL_MEMORY_ALLOCATE), "memory");
	CHK(make_reorder(inst, u_wei, pr->m_wei, &re_w), "the weights reorder");
	CHK(run_reorder(inst, re_w, u_wei, pr->m_wei), "the weights reorder");
	CHK(dnnl_stream_wait(inst->stream), "the weights reorder");
	if (p->bias)
		CHK(dnnl_memory_create(&pr->m_bias, &bias_md, inst->engine, (void *)p->bias),
		    "memory");
	pr->zp_src = p->zp_src;
	pr->zp_dst = p->zp_dst;
	pr->zp_wei = wzp_value;
	if (p->has_zp_src)
		CHK(scalar_mem(inst, dnnl_s32, 1, &pr->zp_src, &pr->m_zsrc), "memory");
	if (p->has_zp_dst)
		CHK(scalar_mem(inst, dnnl_s32, 1, &pr->zp_dst, &pr->m_zdst), "memory");
	if (use_wzp_attr)
		CHK(scalar_mem(inst, dnnl_s32, 1, &pr->zp_wei, &pr->m_zwei), "memory");
out:
	if (re_w)
		dnnl_primitive_destroy(re_w);
	if (u_wei)
		dnnl_memory_destroy(u_wei);
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (ops)
		dnnl_post_ops_destroy(ops);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	if (st != QCF_OK) {
		prep_free(pr);
		return st;
	}
	*outp = pr;
	return QCF_OK;
}

static void plan_init(plan *p, int kind)
{
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->oc_of = oc_by_div_mod;
	p->oc_div = 1;
	p->oc_mod = 1;
}

static void plan_free(plan *p)
{
	free(p->scales);
	free(p->wzp);
	p->scales = NULL;
	p->wzp = NULL;
}

static void dense_strides(int nd, const dnnl_dims_t dims, dnnl_dims_t str)
{
	int64_t s = 1;
	for (int i = nd - 1; i >= 0; i--) {
		str[i] = s;
		s *= dims[i] > 0 ? dims[i] : 1;
	}
}

/* ---- LiteRT ------------------------------------------------------------------------------ */

/* q(f) = zp + (int)roundf(f / s) in float; 0 when it leaves int32. */
static int act_bound(float f, float s, int32_t zp, int64_t *q)
{
	float v = roundf(f / s);
	if (!(v >= -2147483648.0f && v < 2147483648.0f))
		return 0;
	*q = (int64_t)zp + (int64_t)v;
	return *q >= INT32_MIN && *q <= INT32_MAX;
}

/* The fused activation as a clip on d = scale * (acc + bias), before zp_out is added. */
static qcf_status litert_activation(qcf_instance *inst, const qcf_op_call *call, int fc,
                                    float s_out, int32_t zp_out, plan *p)
{
	const char *act = NULL;
	if (qcf_attr_str(call, "fused_activation_function", &act) < 0)
		return fail(inst, QCF_INVALID_PARAM, "fused_activation_function is not a string");
	int64_t lo = -128, hi = 127, q;
	if (!act || strcmp(act, "NONE") == 0) {
	} else if (strcmp(act, "RELU") == 0 || strcmp(act, "RELU6") == 0) {
		if (!act_bound(0.0f, s_out, zp_out, &q))
			return fail(inst, QCF_INVALID_PARAM, "activation bound leaves int32");
		lo = q > lo ? q : lo;
		if (act[4] == '6') {
			if (!act_bound(6.0f, s_out, zp_out, &q))
				return fail(inst, QCF_INVALID_PARAM,
				            "activation bound leaves int32");
			hi = q < hi ? q : hi;
		}
	} else if (strcmp(act, "RELU_N1_TO_1") == 0) {
		int64_t a, b;
		if (!act_bound(-1.0f, s_out, zp_out, &a) || !act_bound(1.0f, s_out, zp_out, &b))
			return fail(inst, QCF_INVALID_PARAM, "activation bound leaves int32");
		lo = a > lo ? a : lo;
		hi = b < hi ? b : hi;
	} else if (!fc && (strcmp(act, "TANH") == 0 || strcmp(act, "SIGN_BIT") == 0)) {
		/* the convolutions clamp to the dtype only */
	} else {
		return fail(inst, QCF_INVALID_PARAM, "fused_activation_function %s is not accepted",
		            act);
	}
	if (lo > -128 || hi < 127) {
		p->has_clip = 1;
		p->clip_lo = (float)(lo - zp_out);
		p->clip_hi = (float)(hi - zp_out);
	}
	return QCF_OK;
}

/* Checks shared by the three LiteRT ops: activations, bias. */
static qcf_status litert_common(qcf_instance *inst, const qcf_op_call *call, const char *op,
                                float *s_in, int32_t *zp_in, float *s_out, int32_t *zp_out)
{
	if (call->n_inputs < 2 || call->n_inputs > 3 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 2 or 3 inputs and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1], *y = &call->outputs[0];
	if (x->dtype == QCF_INT16 || x->dtype == QCF_UINT8)
		return fail(
		        inst, QCF_NOT_SUPPORTED,
		        "%s with %s activations: oneDNN 2.6 int8 primitives take s8/u8 sources "
		        "with LiteRT int8 only (16x8 has no int16 convolution or matmul; uint8 is "
		        "LiteRT's legacy path, not implemented here)",
		        op, qcf_dtype_name(x->dtype));
	if (x->dtype != QCF_INT8)
		return fail(inst, QCF_INVALID_PARAM, "%s input must be int8 or int16", op);
	if (y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype must be the input's", op);
	if (!quant_is_per_tensor(x->quant) || !quant_is_per_tensor(y->quant) ||
	    !good_scale(x->quant->scales[0]) || !good_scale(y->quant->scales[0]))
		return fail(
		        inst, QCF_INVALID_PARAM,
		        "%s input and output need per-tensor quantization with a positive scale",
		        op);
	*s_in = x->quant->scales[0];
	*zp_in = x->quant->zero_points ? x->quant->zero_points[0] : 0;
	*s_out = y->quant->scales[0];
	*zp_out = y->quant->zero_points ? y->quant->zero_points[0] : 0;
	if (*zp_in < -128 || *zp_in > 127 || *zp_out < -128 || *zp_out > 127)
		return fail(inst, QCF_INVALID_PARAM, "%s zero point outside int8", op);
	if (w->dtype == QCF_INT4) {
		if (w->quant && w->quant->zero_points)
			for (int32_t i = 0; i < w->quant->count; i++)
				if (w->quant->zero_points[i] != 0)
					return fail(inst, QCF_INVALID_PARAM,
					            "%s int4 filter zero point must be 0", op);
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with int4 weights: oneDNN 2.6 has no int4 weights", op);
	}
	if (w->dtype == QCF_UINT8 || w->dtype == QCF_INT16)
		return fail(inst, QCF_NOT_SUPPORTED, "%s with %s weights is not implemented", op,
		            qcf_dtype_name(w->dtype));
	if (w->dtype != QCF_INT8)
		return fail(inst, QCF_INVALID_PARAM, "%s filter must be int8 or int4", op);
	if (call->n_inputs == 3) {
		const qcf_tensor *b = &call->inputs[2];
		if (b->dtype != QCF_INT32)
			return fail(inst, QCF_INVALID_PARAM,
			            "%s with int8 input takes an int32 bias", op);
		if (b->quant && b->quant->zero_points)
			for (int32_t i = 0; i < b->quant->count; i++)
				if (b->quant->zero_points[i] != 0)
					return fail(inst, QCF_INVALID_PARAM,
					            "%s bias zero point must be 0", op);
		const char *qbt = NULL; /* one not a string is left to the spec's checks */
		(void)qcf_attr_str(call, "quantized_bias_type", &qbt);
		if (qbt && strcmp(qbt, "int32") != 0)
			return fail(inst, QCF_INVALID_PARAM,
			            "quantized_bias_type %s does not name the bias dtype", qbt);
	}
	return QCF_OK;
}

/* Filter scales: s_in * s_w[c] / s_out per output channel, one float32 each. */
static qcf_status filter_scales(qcf_instance *inst, const qcf_tensor *w, int axis, int64_t cout,
                                float s_in, float s_out, int fc_per_tensor_float, plan *p)
{
	const qcf_quant *q = w->quant;
	if (!q || !q->scales || q->block_size > 0)
		return fail(inst, QCF_INVALID_PARAM, "filter quantization missing");
	if (!(q->axis < 0 && q->count == 1) && !(q->axis == axis && q->count == cout))
		return fail(
		        inst, QCF_INVALID_PARAM,
		        "filter quantization must be per tensor or per axis %d with %lld entries",
		        axis, (long long)cout);
	for (int32_t i = 0; i < q->count; i++)
		if (!good_scale(q->scales[i]))
			return fail(inst, QCF_INVALID_PARAM, "filter scale not positive");
	float s0;
	int32_t z0;
	int uniform = quant_uniform(q, &s0, &z0);
	p->n_scales = uniform ? 1 : (int)cout;
	p->scales = malloc(sizeof(float) * (size_t)p->n_scales);
	if (!p->scales)
		return fail(inst, QCF_ERROR, "out of memory");
	for (int i = 0; i < p->n_scales; i++) {
		double e;
		if (fc_per_tensor_float)
			e = (double)(float)(s_in * q->scales[i]) / (double)s_out;
		else
			e = (double)s_in * (double)q->scales[i] / (double)s_out;
		p->scales[i] = (float)e;
	}
	p->scale_mask = uniform ? 0 : 1 << 1;
	return QCF_OK;
}

static qcf_status litert_fc(qcf_instance *inst, const qcf_op_call *call, plan *p)
{
	float s_in, s_out;
	int32_t zp_in, zp_out;
	qcf_status st =
	        litert_common(inst, call, "FULLY_CONNECTED", &s_in, &zp_in, &s_out, &zp_out);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1], *y = &call->outputs[0];
	const qcf_tensor *b = call->n_inputs == 3 ? &call->inputs[2] : NULL;
	if (w->rank != 2)
		return fail(inst, QCF_INVALID_PARAM, "FULLY_CONNECTED filter rank must be 2");
	if (x->rank < 1)
		return fail(inst, QCF_INVALID_PARAM, "FULLY_CONNECTED input rank 0");
	int64_t units = w->shape[0], depth = w->shape[1];
	if (b && qcf_numel(b) != units)
		return fail(inst, QCF_INVALID_PARAM, "bias has %lld elements, filter %lld units",
		            (long long)qcf_numel(b), (long long)units);
	int64_t keep = 0;
	if (qcf_attr_int(call, "keep_num_dims", &keep) < 0 || (keep != 0 && keep != 1))
		return fail(inst, QCF_INVALID_PARAM, "keep_num_dims must be 0 or 1");
	if (keep && x->shape[x->rank - 1] != depth)
		return fail(inst, QCF_INVALID_PARAM, "keep_num_dims with last input dim != depth");
	if (depth == 0)
		return fail(inst, QCF_NOT_SUPPORTED, "FULLY_CONNECTED with depth 0");
	int64_t rows = qcf_numel(x) / depth;
	/* expected output shape */
	int ok = 1;
	if (keep) {
		ok = y->rank == x->rank;
		for (int32_t i = 0; ok && i < x->rank; i++)
			ok = y->shape[i] == (i == x->rank - 1 ? units : x->shape[i]);
	} else {
		ok = y->rank == 2 && y->shape[0] == rows && y->shape[1] == units;
	}
	if (!ok)
		return fail(inst, QCF_INVALID_PARAM,
		            "FULLY_CONNECTED output shape is not the computed one");
	int per_tensor = w->quant && w->quant->axis < 0 && w->quant->count == 1;
	if (per_tensor && b && b->quant && b->quant->scales && b->quant->count == 1) {
		double sb = b->quant->scales[0];
		if (fabs((double)s_in * w->quant->scales[0] - sb) / s_out > 0.02)
			return fail(inst, QCF_INVALID_PARAM,
			            "bias scale differs from s_in * s_w by more than 2%% of s_out");
	}
	st = filter_scales(inst, w, 0, units, s_in, s_out, per_tensor, p);
	if (st != QCF_OK)
		return st;
	st = litert_activation(inst, call, 1, s_out, zp_out, p);
	if (st != QCF_OK)
		return st;
	if (rows == 0 || units == 0)
		return QCF_OK; /* nothing to compute; execute writes nothing */
	p->nd = 2;
	p->src_dims[0] = rows, p->src_dims[1] = depth;
	p->dst_dims[0] = rows, p->dst_dims[1] = units;
	dense_strides(2, p->src_dims, p->src_str);
	dense_strides(2, p->dst_dims, p->dst_str);
	p->wnd = 2;
	p->wei_dims[0] = depth, p->wei_dims[1] = units;
	p->wei_str[0] = 1, p->wei_str[1] = depth;
	p->src_dt = p->wei_dt = p->dst_dt = dnnl_s8;
	p->src = x->data, p->wei = w->data, p->dst = y->data;
	p->wei_count = units * depth;
	if (b) {
		p->bias = b->data;
		p->bias_nd = 2;
		p->bias_dims[0] = 1, p->bias_dims[1] = units;
	}
	p->has_zp_src = zp_in != 0, p->zp_src = zp_in;
	p->has_zp_dst = zp_out != 0, p->zp_dst = zp_out;
	/* per-tensor weights subtract their zero point; per-channel ones ignore it */
	if (per_tensor && w->quant->zero_points && w->quant->zero_points[0] != 0) {
		if (w->quant->zero_points[0] < -128 || w->quant->zero_points[0] > 127)
			return fail(inst, QCF_INVALID_PARAM, "filter zero point outside int8");
		p->has_zp_wei = 1;
		p->zp_wei = w->quant->zero_points[0];
	}
	return QCF_OK;
}

static qcf_status litert_conv(qcf_instance *inst, const qcf_op_call *call, int dw, plan *p)
{
	const char *op = dw ? "DEPTHWISE_CONV_2D" : "CONV_2D";
	float s_in, s_out;
	int32_t zp_in, zp_out;
	qcf_status st = litert_common(inst, call, op, &s_in, &zp_in, &s_out, &zp_out);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1], *y = &call->outputs[0];
	const qcf_tensor *b = call->n_inputs == 3 ? &call->inputs[2] : NULL;
	if (x->rank != 4 || w->rank != 4)
		return fail(inst, QCF_INVALID_PARAM, "%s input and filter must have rank 4", op);
	for (int i = 0; i < 4; i++)
		if (x->shape[i] <= 0 || w->shape[i] <= 0)
			return fail(inst, QCF_INVALID_PARAM, "%s zero or negative dimension", op);
	int64_t n = x->shape[0], h = x->shape[1], wd = x->shape[2], c = x->shape[3];
	int64_t kh = w->shape[1], kw = w->shape[2], cout, groups;
	if (dw) {
		cout = w->shape[3];
		if (w->shape[0] != 1)
			return fail(inst, QCF_INVALID_PARAM,
			            "depthwise filter dimension 0 must be 1");
		if (cout % c != 0)
			return fail(inst, QCF_INVALID_PARAM, "C_out not a multiple of C");
		int64_t dm;
		int r = qcf_attr_int(call, "depth_multiplier", &dm);
		if (r < 0 || (r == 1 && dm != cout / c))
			return fail(inst, QCF_INVALID_PARAM,
			            "depth_multiplier disagrees with the shapes");
		groups = c;
		if (b && b->rank != 1)
			return fail(inst, QCF_INVALID_PARAM, "bias must be 1-D");
	} else {
		cout = w->shape[0];
		if (c % w->shape[3] != 0)
			return fail(inst, QCF_INVALID_PARAM,
			            "C not a multiple of the filter depth");
		groups = c / w->shape[3];
		if (cout % groups != 0)
			return fail(inst, QCF_INVALID_PARAM, "C_out not a multiple of the groups");
	}
	if (b && qcf_numel(b) != cout)
		return fail(inst, QCF_INVALID_PARAM, "bias has %lld elements, C_out is %lld",
		            (long long)qcf_numel(b), (long long)cout);
	int64_t sh = 1, sw = 1, dh = 1, dwl = 1;
	if (qcf_attr_int(call, "stride_h", &sh) < 0 || qcf_attr_int(call, "stride_w", &sw) < 0 ||
	    qcf_attr_int(call, "dilation_h_factor", &dh) < 0 ||
	    qcf_attr_int(call, "dilation_w_factor", &dwl) < 0 || sh <= 0 || sw <= 0 || dh <= 0 ||
	    dwl <= 0)
		return fail(inst, QCF_INVALID_PARAM, "strides and dilations must be > 0");
	if (dw && (sh > 32767 || sw > 32767 || dh > 32767 || dwl > 32767))
		return fail(inst, QCF_INVALID_PARAM, "depthwise strides and dilations <= 32767");
	const char *pad = NULL; /* absent or not a string: SAME, as before */
	(void)qcf_attr_str(call, "padding", &pad);
	int same;
	if (!pad || strcmp(pad, "SAME") == 0)
		same = 1;
	else if (strcmp(pad, "VALID") == 0)
		same = 0;
	else
		return fail(inst, QCF_INVALID_PARAM, "unknown padding %s", pad);
	int64_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dwl + 1, oh, ow;
	if (same) {
		oh = (h + sh - 1) / sh;
		ow = (wd + sw - 1) / sw;
	} else {
		oh = (h + sh - eh) / sh;
		ow = (wd + sw - ew) / sw;
		if (h + sh - eh < 0 || wd + sw - ew < 0 || oh <= 0 || ow <= 0)
			return fail(inst, QCF_INVALID_PARAM, "VALID gives a negative output size");
	}
	if (y->rank != 4 || y->shape[0] != n || y->shape[1] != oh || y->shape[2] != ow ||
	    y->shape[3] != cout)
		return fail(inst, QCF_INVALID_PARAM, "%s output shape is not the computed one", op);
	const qcf_quant *wq = w->quant;
	if (wq && wq->zero_points)
		for (int32_t i = 0; i < wq->count; i++)
			if (wq->zero_points[i] != 0)
				return fail(inst, QCF_INVALID_PARAM,
				            "%s filter zero point must be 0", op);
	st = filter_scales(inst, w, dw ? 3 : 0, cout, s_in, s_out, 0, p);
	if (st != QCF_OK)
		return st;
	st = litert_activation(inst, call, 0, s_out, zp_out, p);
	if (st != QCF_OK)
		return st;
	int64_t th = (oh - 1) * sh + eh - h, tw = (ow - 1) * sw + ew - wd;
	th = th > 0 ? th : 0;
	tw = tw > 0 ? tw : 0;
	p->nd = 4;
	/* oneDNN's logical order is N, C, H, W; the data stays NHWC */
	p->src_dims[0] = n, p->src_dims[1] = c, p->src_dims[2] = h, p->src_dims[3] = wd;
	p->src_str[0] = h * wd * c, p->src_str[1] = 1, p->src_str[2] = wd * c, p->src_str[3] = c;
	p->dst_dims[0] = n, p->dst_dims[1] = cout, p->dst_dims[2] = oh, p->dst_dims[3] = ow;
	p->dst_str[0] = oh * ow * cout, p->dst_str[1] = 1, p->dst_str[2] = ow * cout,
	p->dst_str[3] = cout;
	if (dw) {
		int64_t dm = cout / c;
		/* filter [1, kh, kw, C*dm] as groups C x (dm out, 1 in) */
		p->wnd = 5;
		int64_t d[5] = {c, dm, 1, kh, kw}, s[5] = {dm, 1, kh * kw * cout, kw * cout, cout};
		memcpy(p->wei_dims, d, sizeof d);
		memcpy(p->wei_str, s, sizeof s);
	} else if (groups == 1) {
		p->wnd = 4;
		int64_t ci = w->shape[3];
		int64_t d[4] = {cout, ci, kh, kw}, s[4] = {kh * kw * ci, 1, kw * ci, ci};
		memcpy(p->wei_dims, d, sizeof d);
		memcpy(p->wei_str, s, sizeof s);
	} else {
		p->wnd = 5;
		int64_t ci = w->shape[3], og = cout / groups;
		int64_t d[5] = {groups, og, ci, kh, kw};
		int64_t s[5] = {og * kh * kw * ci, kh * kw * ci, 1, kw * ci, ci};
		memcpy(p->wei_dims, d, sizeof d);
		memcpy(p->wei_str, s, sizeof s);
	}
	p->strides[0] = sh, p->strides[1] = sw;
	p->dilates[0] = dh - 1, p->dilates[1] = dwl - 1;
	p->pad_l[0] = same ? th / 2 : 0, p->pad_l[1] = same ? tw / 2 : 0;
	p->pad_r[0] = (oh - 1) * sh + eh - h - p->pad_l[0];
	p->pad_r[1] = (ow - 1) * sw + ew - wd - p->pad_l[1];
	p->src_dt = p->wei_dt = p->dst_dt = dnnl_s8;
	p->src = x->data, p->wei = w->data, p->dst = y->data;
	p->wei_count = qcf_numel(w);
	if (b) {
		p->bias = b->data;
		p->bias_nd = 1;
		p->bias_dims[0] = cout;
	}
	p->has_zp_src = zp_in != 0, p->zp_src = zp_in;
	p->has_zp_dst = zp_out != 0, p->zp_dst = zp_out;
	return QCF_OK;
}

/* ---- ONNX -------------------------------------------------------------------------------- */

static int onnx_x8(qcf_dtype t)
{
	return t == QCF_INT8 || t == QCF_UINT8;
}

/* A zero point from an optional input tensor: the values (count entries), or all 0. */
static qcf_status zp_input(qcf_instance *inst, const qcf_op_call *call, int idx,
                           const qcf_tensor *of, int64_t allowed_n, const char *name, int32_t **out,
                           int64_t *count)
{
	*out = NULL;
	*count = 0;
	if (call->n_inputs <= idx)
		return QCF_OK;
	const qcf_tensor *z = &call->inputs[idx];
	if (z->dtype != of->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s dtype %s is not its tensor's %s", name,
		            qcf_dtype_name(z->dtype), qcf_dtype_name(of->dtype));
	if (z->quant)
		return fail(inst, QCF_INVALID_PARAM, "%s must not be quantized", name);
	int64_t n = qcf_numel(z);
	if (!(z->rank == 0 || (z->rank == 1 && (n == 1 || (allowed_n > 0 && n == allowed_n)))))
		return fail(inst, QCF_INVALID_PARAM, "%s must have shape [], [1] or [%lld]", name,
		            (long long)allowed_n);
	*out = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
	if (!*out)
		return fail(inst, QCF_ERROR, "out of memory");
	for (int64_t i = 0; i < n; i++)
		(*out)[i] = z->dtype == QCF_UINT8 ? ((const uint8_t *)z->data)[i]
		                                  : ((const int8_t *)z->data)[i];
	*count = n;
	return QCF_OK;
}

/* all entries equal: 1 and the value */
static int all_equal(const int32_t *v, int64_t n, int32_t *val)
{
	*val = n > 0 ? v[0] : 0;
	for (int64_t i = 1; i < n; i++)
		if (v[i] != v[0])
			return 0;
	return 1;
}

static int all_equal_f(const float *v, int64_t n)
{
	for (int64_t i = 1; i < n; i++)
		if (v[i] != v[0])
			return 0;
	return 1;
}

static qcf_status quant_check_zp(qcf_instance *inst, const qcf_tensor *t, const char *name)
{
	int64_t lo = 0, hi = 0;
	const qcf_quant *q = t->quant;
	if (!dtype_range(t->dtype, &lo, &hi))
		return QCF_OK;
	for (int32_t i = 0; q && q->zero_points && i < q->count; i++)
		if (q->zero_points[i] < lo || q->zero_points[i] > hi)
			return fail(inst, QCF_INVALID_PARAM, "%s zero point %d outside %s", name,
			            q->zero_points[i], qcf_dtype_name(t->dtype));
	for (int32_t i = 0; q && i < q->count; i++)
		if (!good_scale(q->scales[i]))
			return fail(inst, QCF_INVALID_PARAM, "%s scale not positive and finite",
			            name);
	return QCF_OK;
}

/* matmul geometry (numpy.matmul): fills nd, dims and strides; M, K, N. */
static qcf_status matmul_geometry(qcf_instance *inst, const qcf_tensor *a, const qcf_tensor *b,
                                  const qcf_tensor *y, plan *p, int64_t *M, int64_t *K, int64_t *N)
{
	if (a->rank < 1 || b->rank < 1)
		return fail(inst, QCF_INVALID_PARAM, "matmul operands of rank 0");
	int64_t ad[MAXD + 1], bd[MAXD + 1];
	int ar = a->rank, br = b->rank;
	if (ar > MAXD || br > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	/* promote 1-D operands */
	if (ar == 1) {
		ad[0] = 1, ad[1] = a->shape[0], ar = 2;
	} else {
		for (int i = 0; i < ar; i++)
			ad[i] = a->shape[i];
	}
	if (br == 1) {
		bd[0] = b->shape[0], bd[1] = 1, br = 2;
	} else {
		for (int i = 0; i < br; i++)
			bd[i] = b->shape[i];
	}
	*M = ad[ar - 2], *K = ad[ar - 1], *N = bd[br - 1];
	if (bd[br - 2] != *K)
		return fail(inst, QCF_INVALID_PARAM, "inner dimensions %lld and %lld differ",
		            (long long)*K, (long long)bd[br - 2]);
	int nd = ar > br ? ar : br;
	if (nd > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	int64_t sa[MAXD], sb[MAXD], sd[MAXD];
	for (int i = 0; i < nd; i++) {
		int ia = i - (nd - ar), ib = i - (nd - br);
		sa[i] = ia >= 0 ? ad[ia] : 1;
		sb[i] = ib >= 0 ? bd[ib] : 1;
	}
	for (int i = 0; i < nd - 2; i++) {
		if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
			return fail(inst, QCF_INVALID_PARAM, "batch dimensions do not broadcast");
		sd[i] = sa[i] == 1 ? sb[i] : sa[i];
	}
	sd[nd - 2] = *M, sd[nd - 1] = *N;
	/* numpy's output shape: the broadcast batch, then M unless a was 1-D, N unless b was */
	int64_t want[MAXD + 1];
	int wr = 0;
	for (int i = 0; i < nd - 2; i++)
		want[wr++] = sd[i];
	if (a->rank > 1)
		want[wr++] = *M;
	if (b->rank > 1)
		want[wr++] = *N;
	int ok = y->rank == wr;
	for (int i = 0; ok && i < wr; i++)
		ok = y->shape[i] == want[i];
	if (!ok)
		return fail(inst, QCF_INVALID_PARAM, "output shape is not numpy.matmul's");
	p->nd = nd;
	p->wnd = nd;
	for (int i = 0; i < nd; i++) {
		p->src_dims[i] = sa[i];
		p->wei_dims[i] = sb[i];
		p->dst_dims[i] = sd[i];
	}
	dense_strides(nd, p->src_dims, p->src_str);
	dense_strides(nd, p->wei_dims, p->wei_str);
	dense_strides(nd, p->dst_dims, p->dst_str);
	p->wei_count = 1;
	for (int i = 0; i < nd; i++)
		p->wei_count *= sb[i];
	p->n_oc = *N;
	p->oc_div = 1, p->oc_mod = *N; /* weights element i is column i % N */
	return QCF_OK;
}

/* The weights' zero points: per tensor (value) or per output channel (wzp). */
static qcf_status weights_zp(qcf_instance *inst, plan *p, const int32_t *zp, int64_t n)
{
	int32_t v;
	if (n == 0 || all_equal(zp, n, &v)) {
		v = n ? zp[0] : 0;
		p->has_zp_wei = v != 0;
		p->zp_wei = v;
		return QCF_OK;
	}
	p->wzp = malloc(sizeof(int32_t) * (size_t)n);
	if (!p->wzp)
		return fail(inst, QCF_ERROR, "out of memory");
	memcpy(p->wzp, zp, sizeof(int32_t) * (size_t)n);
	return QCF_OK;
}

static qcf_status onnx_matmul(qcf_instance *inst, const qcf_op_call *call, int qlinear, plan *p)
{
	const char *op = qlinear ? "QLinearMatMul" : "MatMulInteger";
	if (call->n_outputs != 1 || call->n_inputs < 2 || call->n_inputs > (qlinear ? 2 : 4))
		return fail(inst, QCF_INVALID_PARAM, "%s: wrong input or output count", op);
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1], *y = &call->outputs[0];
	if (!onnx_x8(a->dtype) || !onnx_x8(b->dtype))
		return fail(inst, QCF_INVALID_PARAM, "%s operands must be int8 or uint8", op);
	if (qlinear ? !onnx_x8(y->dtype) : y->dtype != QCF_INT32)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype %s", op,
		            qcf_dtype_name(y->dtype));
	int64_t M = 0, K = 0, N = 0;
	qcf_status st = matmul_geometry(inst, a, b, y, p, &M, &K, &N);
	if (st != QCF_OK)
		return st;
	p->src_dt = dnnl_dt(a->dtype);
	p->wei_raw_u8 = b->dtype == QCF_UINT8;
	p->dst_dt = dnnl_dt(y->dtype);
	p->src = a->data, p->wei = b->data, p->dst = y->data;
	if (qlinear) {
		const qcf_quant *qa = a->quant, *qb = b->quant, *qy = y->quant;
		if (!qa || !qb || !qy || !qa->scales || !qb->scales || !qy->scales)
			return fail(inst, QCF_INVALID_PARAM,
			            "QLinearMatMul needs a, b and y quantization");
		if (qa->block_size > 0 || qb->block_size > 0 || qy->block_size > 0)
			return fail(inst, QCF_INVALID_PARAM, "blocked quantization");
		if (!(qa->axis < 0 && qa->count == 1) &&
		    !(a->rank >= 2 && qa->axis == a->rank - 2 && qa->count == M))
			return fail(inst, QCF_INVALID_PARAM, "a must be per tensor or per row");
		if (!(qb->axis < 0 && qb->count == 1) &&
		    !(b->rank >= 2 && qb->axis == b->rank - 1 && qb->count == N))
			return fail(inst, QCF_INVALID_PARAM, "b must be per tensor or per column");
		if (!quant_is_per_tensor(qy))
			return fail(inst, QCF_INVALID_PARAM, "y must be per tensor");
		if ((st = quant_check_zp(inst, a, "a")) != QCF_OK ||
		    (st = quant_check_zp(inst, b, "b")) != QCF_OK ||
		    (st = quant_check_zp(inst, y, "y")) != QCF_OK)
			return st;
		float sa;
		int32_t za;
		if (!quant_uniform(qa, &sa, &za))
			return fail(
			        inst, QCF_NOT_SUPPORTED,
			        "QLinearMatMul with distinct per-row a scales or zero points: "
			        "oneDNN 2.6 matmul takes output scales along N only and one source "
			        "zero point");
		int32_t zb0;
		int uni_b = quant_uniform(qb, &(float){0}, &zb0);
		p->n_scales = uni_b ? 1 : (int)N;
		p->scale_mask = uni_b ? 0 : 1 << (p->nd - 1);
		p->scales = malloc(sizeof(float) * (size_t)p->n_scales);
		if (!p->scales)
			return fail(inst, QCF_ERROR, "out of memory");
		for (int i = 0; i < p->n_scales; i++)
			p->scales[i] = (float)(sa * qb->scales[i]) / qy->scales[0];
		p->has_zp_src = za != 0, p->zp_src = za;
		p->zp_dst = qy->zero_points ? qy->zero_points[0] : 0;
		p->has_zp_dst = p->zp_dst != 0;
		int32_t *zb = NULL;
		int32_t one = 0;
		if (qb->zero_points) {
			if (qb->count == 1) {
				one = qb->zero_points[0];
				st = weights_zp(inst, p, &one, 1);
			} else {
				zb = malloc(sizeof(int32_t) * (size_t)qb->count);
				if (!zb)
					return fail(inst, QCF_ERROR, "out of memory");
				memcpy(zb, qb->zero_points, sizeof(int32_t) * (size_t)qb->count);
				st = weights_zp(inst, p, zb, qb->count);
				free(zb);
			}
		}
		return st;
	}
	if (a->quant || b->quant || y->quant)
		return fail(inst, QCF_INVALID_PARAM, "MatMulInteger tensors carry no quantization");
	int32_t *za = NULL, *zb = NULL;
	int64_t na, nb;
	st = zp_input(inst, call, 2, a, a->rank >= 2 ? M : -1, "a_zero_point", &za, &na);
	if (st == QCF_OK)
		st = zp_input(inst, call, 3, b, b->rank >= 2 ? N : -1, "b_zero_point", &zb, &nb);
	if (st == QCF_OK) {
		int32_t v;
		if (na && !all_equal(za, na, &v))
			st = fail(inst, QCF_NOT_SUPPORTED,
			          "MatMulInteger with distinct per-row a zero points: oneDNN 2.6 "
			          "matmul takes one source zero point");
		else if (na) {
			p->has_zp_src = v != 0;
			p->zp_src = v;
		}
	}
	if (st == QCF_OK && nb)
		st = weights_zp(inst, p, zb, nb);
	free(za);
	free(zb);
	return st;
}

static qcf_status onnx_conv(qcf_instance *inst, const qcf_op_call *call, int qlinear, plan *p)
{
	const char *op = qlinear ? "QLinearConv" : "ConvInteger";
	if (call->n_outputs != 1 || call->n_inputs < 2 || call->n_inputs > (qlinear ? 3 : 4))
		return fail(inst, QCF_INVALID_PARAM, "%s: wrong input or output count", op);
	const qcf_tensor *x = &call->inputs[0], *w = &call->inputs[1], *y = &call->outputs[0];
	if (!onnx_x8(x->dtype) || !onnx_x8(w->dtype))
		return fail(inst, QCF_INVALID_PARAM, "%s x and w must be int8 or uint8", op);
	if (qlinear ? !onnx_x8(y->dtype) : y->dtype != QCF_INT32)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype %s", op,
		            qcf_dtype_name(y->dtype));
	if (x->rank < 3 || w->rank != x->rank)
		return fail(inst, QCF_INVALID_PARAM, "%s: x rank < 3 or w rank != x rank", op);
	int S = x->rank - 2;
	if (x->rank > 5)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with %d spatial dimensions: oneDNN 2.6 "
		            "convolutions are 1-D to 3-D",
		            op, S);
	int64_t group = 1;
	if (qcf_attr_int(call, "group", &group) < 0 || group < 1)
		return fail(inst, QCF_INVALID_PARAM, "group must be >= 1");
	int64_t Nb = x->shape[0], C = x->shape[1], Mo = w->shape[0];
	if (C != w->shape[1] * group || Mo % group != 0)
		return fail(inst, QCF_INVALID_PARAM, "channels do not match group");
	int64_t ks[3], st_[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pads[6] = {0}, v[6];
	int32_t r = 0;
	if (qcf_attr_ints(call, "kernel_shape", v, 3, &r) < 0 || (r > 0 && r != S))
		return fail(inst, QCF_INVALID_PARAM, "kernel_shape of the wrong length");
	for (int i = 0; i < S; i++) {
		ks[i] = w->shape[2 + i];
		if (r > 0 && v[i] != ks[i])
			return fail(inst, QCF_INVALID_PARAM, "kernel_shape is not w's kernel");
	}
	r = 0;
	if (qcf_attr_ints(call, "strides", v, 3, &r) < 0 || (r > 0 && r != S))
		return fail(inst, QCF_INVALID_PARAM, "strides of the wrong length");
	for (int i = 0; i < r; i++)
		st_[i] = v[i];
	r = 0;
	if (qcf_attr_ints(call, "dilations", v, 3, &r) < 0 || (r > 0 && r != S))
		return fail(inst, QCF_INVALID_PARAM, "dilations of the wrong length");
	for (int i = 0; i < r; i++)
		dl[i] = v[i];
	for (int i = 0; i < S; i++)
		if (st_[i] < 1 || dl[i] < 1)
			return fail(inst, QCF_INVALID_PARAM, "strides and dilations must be >= 1");
	int32_t npads = 0;
	if (qcf_attr_ints(call, "pads", v, 6, &npads) < 0 || (npads > 0 && npads != 2 * S))
		return fail(inst, QCF_INVALID_PARAM, "pads of the wrong length");
	for (int i = 0; i < npads; i++) {
		if (v[i] < 0)
			return fail(inst, QCF_INVALID_PARAM, "negative pad");
		pads[i] = v[i];
	}
	const char *ap = NULL;
	if (qcf_attr_str(call, "auto_pad", &ap) < 0)
		return fail(inst, QCF_INVALID_PARAM, "auto_pad is not a string");
	int mode = 0; /* 0 NOTSET, 1 VALID, 2 SAME_UPPER, 3 SAME_LOWER */
	if (ap && strcmp(ap, "NOTSET") != 0) {
		if (strcmp(ap, "VALID") == 0)
			mode = 1;
		else if (strcmp(ap, "SAME_UPPER") == 0)
			mode = 2;
		else if (strcmp(ap, "SAME_LOWER") == 0)
			mode = 3;
		else
			return fail(inst, QCF_INVALID_PARAM, "unknown auto_pad %s", ap);
		if (npads > 0)
			return fail(inst, QCF_INVALID_PARAM, "pads given together with auto_pad");
	}
	int64_t out[3], pb[3], pe[3];
	for (int i = 0; i < S; i++) {
		int64_t in = x->shape[2 + i], eff = (ks[i] - 1) * dl[i] + 1;
		if (mode == 0 || mode == 1) {
			pb[i] = mode == 0 ? pads[i] : 0;
			pe[i] = mode == 0 ? pads[S + i] : 0;
			if (in + pb[i] + pe[i] < eff)
				return fail(inst, QCF_INVALID_PARAM,
				            "dilated kernel larger than the padded input");
			out[i] = (in + pb[i] + pe[i] - eff) / st_[i] + 1;
		} else {
			int64_t tot = in % st_[i] == 0 ? eff - st_[i] : eff - in % st_[i];
			tot = tot > 0 ? tot : 0;
			pb[i] = mode == 2 ? tot / 2 : tot - tot / 2;
			pe[i] = tot - pb[i];
			out[i] = (in + st_[i] - 1) / st_[i];
		}
	}
	int ok = y->rank == x->rank && y->shape[0] == Nb && y->shape[1] == Mo;
	for (int i = 0; ok && i < S; i++)
		ok = y->shape[2 + i] == out[i];
	if (!ok)
		return fail(inst, QCF_INVALID_PARAM, "output shape is not [N, M, out...]");
	const qcf_tensor *B = qlinear && call->n_inputs == 3 ? &call->inputs[2] : NULL;
	if (B && (B->dtype != QCF_INT32 || B->rank != 1 || B->shape[0] != Mo || B->quant))
		return fail(inst, QCF_INVALID_PARAM, "B must be int32 [M] without quantization");

	/* geometry in oneDNN terms */
	p->nd = x->rank;
	for (int i = 0; i < x->rank; i++) {
		p->src_dims[i] = x->shape[i];
		p->dst_dims[i] = y->shape[i];
	}
	dense_strides(p->nd, p->src_dims, p->src_str);
	dense_strides(p->nd, p->dst_dims, p->dst_str);
	if (group == 1) {
		p->wnd = w->rank;
		for (int i = 0; i < w->rank; i++)
			p->wei_dims[i] = w->shape[i];
	} else {
		p->wnd = w->rank + 1;
		p->wei_dims[0] = group;
		p->wei_dims[1] = Mo / group;
		for (int i = 1; i < w->rank; i++)
			p->wei_dims[i + 1] = w->shape[i];
	}
	dense_strides(p->wnd, p->wei_dims, p->wei_str);
	for (int i = 0; i < S; i++) {
		p->strides[i] = st_[i];
		p->dilates[i] = dl[i] - 1;
		p->pad_l[i] = pb[i];
		p->pad_r[i] = pe[i];
	}
	p->wei_count = qcf_numel(w);
	p->n_oc = Mo;
	p->oc_div =
	        p->wei_count / (Mo > 0 ? Mo : 1); /* w element i is output channel i / (C/g*k) */
	p->oc_mod = Mo > 0 ? Mo : 1;
	p->src_dt = dnnl_dt(x->dtype);
	p->wei_raw_u8 = w->dtype == QCF_UINT8;
	p->dst_dt = dnnl_dt(y->dtype);
	p->src = x->data, p->wei = w->data, p->dst = y->data;
	if (B) {
		p->bias = B->data;
		p->bias_nd = 1;
		p->bias_dims[0] = Mo;
	}
	qcf_status st;
	if (qlinear) {
		const qcf_quant *qx = x->quant, *qw = w->quant, *qy = y->quant;
		if (!qx || !qw || !qy || !qx->scales || !qw->scales || !qy->scales)
			return fail(inst, QCF_INVALID_PARAM,
			            "QLinearConv needs x, w and y quantization");
		if (!quant_is_per_tensor(qx) || !quant_is_per_tensor(qy))
			return fail(inst, QCF_INVALID_PARAM, "x and y must be per tensor");
		if (!(qw->axis < 0 && qw->count == 1) && !(qw->axis == 0 && qw->count == Mo))
			return fail(inst, QCF_INVALID_PARAM, "w must be per tensor or per axis 0");
		if (qw->block_size > 0)
			return fail(inst, QCF_INVALID_PARAM, "blocked quantization");
		if ((st = quant_check_zp(inst, x, "x")) != QCF_OK ||
		    (st = quant_check_zp(inst, w, "w")) != QCF_OK ||
		    (st = quant_check_zp(inst, y, "y")) != QCF_OK)
			return st;
		int32_t zw0;
		int uni = quant_uniform(qw, &(float){0}, &zw0);
		int uni_s = all_equal_f(qw->scales, qw->count);
		p->n_scales = uni_s ? 1 : (int)Mo;
		p->scale_mask = uni_s ? 0 : 1 << 1;
		p->scales = malloc(sizeof(float) * (size_t)p->n_scales);
		if (!p->scales)
			return fail(inst, QCF_ERROR, "out of memory");
		for (int i = 0; i < p->n_scales; i++)
			p->scales[i] = (float)(qx->scales[0] * qw->scales[i]) / qy->scales[0];
		p->zp_src = qx->zero_points ? qx->zero_points[0] : 0;
		p->has_zp_src = p->zp_src != 0;
		p->zp_dst = qy->zero_points ? qy->zero_points[0] : 0;
		p->has_zp_dst = p->zp_dst != 0;
		(void)uni;
		if (qw->zero_points)
			return weights_zp(inst, p, qw->zero_points, qw->count);
		return QCF_OK;
	}
	if (x->quant || w->quant || y->quant)
		return fail(inst, QCF_INVALID_PARAM, "ConvInteger tensors carry no quantization");
	int32_t *zx = NULL, *zw = NULL;
	int64_t nx, nw;
	st = zp_input(inst, call, 2, x, -1, "x_zero_point", &zx, &nx);
	if (st == QCF_OK)
		st = zp_input(inst, call, 3, w, Mo, "w_zero_point", &zw, &nw);
	if (st == QCF_OK && nx) {
		p->zp_src = zx[0];
		p->has_zp_src = zx[0] != 0;
	}
	if (st == QCF_OK && nw)
		st = weights_zp(inst, p, zw, nw);
	free(zx);
	free(zw);
	return st;
}

/* ---- the other LiteRT ops: chains of oneDNN primitives ----------------------------------- */

/*
 * Ops that are no matmul or convolution run as a short chain of primitives (pooling, binary,
 * reorder, concat, reduction, softmax_v2, resampling) on memories bound to the call's buffers
 * at execute; intermediate memories are owned by the chain. The int8 arithmetic of each is
 * oneDNN's: a float value d per element (scales and post-ops applied in float32), stored
 * with round-to-nearest-even and saturation (src/cpu/simple_q10n.hpp, out_round and
 * saturate, oneapi-src/oneDNN).
 */

#define CH_MEM   16
#define CH_STEPS 6
#define CH_ARGS  8
#define BIND_OWN (-1)
#define BIND_OUT (-2)

typedef struct ch_step {
	dnnl_primitive_t prim;
	int n;
	int arg[CH_ARGS], mem[CH_ARGS];
} ch_step;

typedef struct chain {
	int n_mem, n_steps, n_s32;
	dnnl_memory_t mem[CH_MEM];
	int bind[CH_MEM]; /* BIND_OWN, BIND_OUT or the input index */
	ch_step step[CH_STEPS];
	int32_t s32[CH_MEM]; /* the zero points the scalar memories point at */
} chain;

static void chain_free(chain *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n_steps; i++)
		if (c->step[i].prim)
			dnnl_primitive_destroy(c->step[i].prim);
	for (int i = 0; i < c->n_mem; i++)
		if (c->mem[i])
			dnnl_memory_destroy(c->mem[i]);
	free(c);
}

/* A memory of descriptor md: bound to a buffer of the call (bind >= 0, BIND_OUT) or owned. */
static dnnl_status_t ch_mem(qcf_instance *inst, chain *c, const dnnl_memory_desc_t *md, int bind,
                            int *idx)
{
	if (c->n_mem >= CH_MEM)
		return dnnl_out_of_memory;
	dnnl_status_t s =
	        dnnl_memory_create(&c->mem[c->n_mem], md, inst->engine,
	                           bind == BIND_OWN ? DNNL_MEMORY_ALLOCATE : DNNL_MEMORY_NONE);
	if (s != dnnl_success)
		return s;
	c->bind[c->n_mem] = bind;
	*idx = c->n_mem++;
	return dnnl_success;
}

/* A run-time s32 zero point. */
static dnnl_status_t ch_zp(qcf_instance *inst, chain *c, int32_t v, int *idx)
{
	if (c->n_mem >= CH_MEM || c->n_s32 >= CH_MEM)
		return dnnl_out_of_memory;
	c->s32[c->n_s32] = v;
	dnnl_status_t s = scalar_mem(inst, dnnl_s32, 1, &c->s32[c->n_s32], &c->mem[c->n_mem]);
	if (s != dnnl_success)
		return s;
	c->n_s32++;
	c->bind[c->n_mem] = BIND_OWN;
	*idx = c->n_mem++;
	return dnnl_success;
}

/* Appends the primitive of pd with n (argument, memory index) pairs. */
static dnnl_status_t ch_step_add(chain *c, const_dnnl_primitive_desc_t pd, int n, const int *pairs)
{
	if (c->n_steps >= CH_STEPS || n > CH_ARGS)
		return dnnl_out_of_memory;
	ch_step *st = &c->step[c->n_steps];
	dnnl_status_t s = dnnl_primitive_create(&st->prim, pd);
	if (s != dnnl_success)
		return s;
	st->n = n;
	for (int i = 0; i < n; i++) {
		st->arg[i] = pairs[2 * i];
		st->mem[i] = pairs[2 * i + 1];
	}
	c->n_steps++;
	return dnnl_success;
}

static dnnl_status_t ch_run(qcf_instance *inst, chain *c, const qcf_op_call *call)
{
	dnnl_status_t s;
	for (int i = 0; i < c->n_mem; i++) {
		if (c->bind[i] == BIND_OWN)
			continue;
		void *h = c->bind[i] == BIND_OUT ? call->outputs[0].data
		                                 : call->inputs[c->bind[i]].data;
		if ((s = dnnl_memory_set_data_handle(c->mem[i], h)) != dnnl_success)
			return s;
	}
	for (int i = 0; i < c->n_steps; i++) {
		dnnl_exec_arg_t args[CH_ARGS];
		for (int k = 0; k < c->step[i].n; k++)
			args[k] = (dnnl_exec_arg_t){c->step[i].arg[k], c->mem[c->step[i].mem[k]]};
		s = dnnl_primitive_execute(c->step[i].prim, inst->stream, c->step[i].n, args);
		if (s != dnnl_success)
			return s;
	}
	return dnnl_stream_wait(inst->stream);
}

/* Dense row-major descriptor of shape (rank r, right-aligned into nd >= 1 dimensions). */
static dnnl_status_t dense_md(dnnl_memory_desc_t *md, int nd, int r, const int64_t *shape,
                              dnnl_data_type_t dt)
{
	dnnl_dims_t d, s;
	for (int i = 0; i < nd; i++) {
		int k = i - (nd - r);
		d[i] = k >= 0 ? shape[k] : 1;
	}
	dense_strides(nd, d, s);
	return dnnl_memory_desc_init_by_strides(md, nd, d, dt, s);
}

static dnnl_status_t tensor_md(dnnl_memory_desc_t *md, const qcf_tensor *t, int nd,
                               dnnl_data_type_t dt)
{
	return dense_md(md, nd, t->rank, t->shape, dt);
}

/* An 8-bit per-tensor quantized tensor: scale and zero point, or INVALID_PARAM. */
static qcf_status q8_params(qcf_instance *inst, const qcf_tensor *t, const char *op,
                            const char *what, float *s, int32_t *zp)
{
	int64_t lo = 0, hi = 0;
	if (!quant_is_per_tensor(t->quant) || !t->quant->scales || !good_scale(t->quant->scales[0]))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s %s needs per-tensor quantization with a positive finite scale", op,
		            what);
	*s = t->quant->scales[0];
	*zp = t->quant->zero_points ? t->quant->zero_points[0] : 0;
	dtype_range(t->dtype, &lo, &hi);
	if (*zp < lo || *zp > hi)
		return fail(inst, QCF_INVALID_PARAM, "%s %s zero point %d outside %s", op, what,
		            *zp, qcf_dtype_name(t->dtype));
	return QCF_OK;
}

/* int8 or uint8 data (oneDNN's s8, u8); int16 is NOT_SUPPORTED (oneDNN 2.6 has no s16). */
static qcf_status x8_dtype(qcf_instance *inst, const qcf_tensor *t, const char *op)
{
	if (t->dtype == QCF_INT8 || t->dtype == QCF_UINT8)
		return QCF_OK;
	if (t->dtype == QCF_INT16)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with int16 data: oneDNN 2.6 has no 16-bit integer data type", op);
	return fail(inst, QCF_INVALID_PARAM, "%s takes int8, uint8 or int16 data, not %s", op,
	            qcf_dtype_name(t->dtype));
}

/* LiteRT's fused activation as quantized bounds [lo, hi] inside the output type's range. */
static qcf_status act_range(qcf_instance *inst, const qcf_op_call *call, const qcf_tensor *y,
                            float s_out, int32_t zp_out, int64_t *lo, int64_t *hi)
{
	const char *act = NULL;
	int64_t q, a, b;
	dtype_range(y->dtype, lo, hi);
	if (qcf_attr_str(call, "fused_activation_function", &act) < 0)
		return fail(inst, QCF_INVALID_PARAM, "fused_activation_function is not a string");
	if (!act || strcmp(act, "NONE") == 0)
		return QCF_OK;
	if (strcmp(act, "RELU") == 0 || strcmp(act, "RELU6") == 0) {
		if (!act_bound(0.0f, s_out, zp_out, &q))
			return fail(inst, QCF_INVALID_PARAM, "activation bound leaves int32");
		*lo = q > *lo ? q : *lo;
		if (act[4] == '6') {
			if (!act_bound(6.0f, s_out, zp_out, &q))
				return fail(inst, QCF_INVALID_PARAM,
				            "activation bound leaves int32");
			*hi = q < *hi ? q : *hi;
		}
		return QCF_OK;
	}
	if (strcmp(act, "RELU_N1_TO_1") == 0) {
		if (!act_bound(-1.0f, s_out, zp_out, &a) || !act_bound(1.0f, s_out, zp_out, &b))
			return fail(inst, QCF_INVALID_PARAM, "activation bound leaves int32");
		*lo = a > *lo ? a : *lo;
		*hi = b < *hi ? b : *hi;
		return QCF_OK;
	}
	return fail(inst, QCF_INVALID_PARAM, "fused_activation_function %s is not accepted", act);
}

/* Post-ops: d -> alpha * d + beta (when not the identity), then a clip to [lo, hi] (when
 * narrower than the type): clipping at integers before rounding equals clamping after it. */
static dnnl_status_t linear_clip_attr(dnnl_primitive_attr_t attr, float alpha, float beta,
                                      const qcf_tensor *y, int64_t lo, int64_t hi)
{
	int64_t tlo = 0, thi = 0;
	dtype_range(y->dtype, &tlo, &thi);
	int lin = alpha != 1.0f || beta != 0.0f, clip = lo > tlo || hi < thi;
	if (!lin && !clip)
		return dnnl_success;
	dnnl_post_ops_t ops;
	dnnl_status_t s = dnnl_post_ops_create(&ops);
	if (s != dnnl_success)
		return s;
	if (lin)
		s = dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_linear, alpha, beta);
	if (s == dnnl_success && clip)
		s = dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_clip, (float)lo,
		                                 (float)hi);
	if (s == dnnl_success)
		s = dnnl_primitive_attr_set_post_ops(attr, ops);
	dnnl_post_ops_destroy(ops);
	return s;
}

#define CCHK(call, what)                                                                           \
	do {                                                                                       \
		dnnl_status_t s_ = (call);                                                         \
		if (s_ != dnnl_success) {                                                          \
			st = dnnl_fail(inst, s_, what);                                            \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

/* NHWC data as oneDNN's logical N, C, H, W. */
static dnnl_status_t nhwc_md(dnnl_memory_desc_t *md, const qcf_tensor *t, dnnl_data_type_t dt)
{
	const int64_t *s = t->shape;
	dnnl_dims_t d = {s[0], s[3], s[1], s[2]};
	dnnl_dims_t str = {s[1] * s[2] * s[3], 1, s[2] * s[3], s[3]};
	return dnnl_memory_desc_init_by_strides(md, 4, d, dt, str);
}

/* MAX_POOL_2D, AVERAGE_POOL_2D: pooling_v2 on the raw values (LiteRT does not requantize). */
static qcf_status lt_pool(qcf_instance *inst, const qcf_op_call *call, int avg, chain *c)
{
	const char *op = avg ? "AVERAGE_POOL_2D" : "MAX_POOL_2D";
	qcf_status st;
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if ((st = x8_dtype(inst, x, op)) != QCF_OK)
		return st;
	if (y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype must be the input's", op);
	if (x->rank != 4 || y->rank != 4)
		return fail(inst, QCF_INVALID_PARAM, "%s takes rank-4 NHWC tensors", op);
	float s_in, s_out;
	int32_t zp_in, zp_out;
	if ((st = q8_params(inst, x, op, "input", &s_in, &zp_in)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &s_out, &zp_out)) != QCF_OK)
		return st;
	int64_t sh = 1, sw = 1, fh = 1, fw = 1;
	if (qcf_attr_int(call, "stride_h", &sh) < 0 || qcf_attr_int(call, "stride_w", &sw) < 0 ||
	    qcf_attr_int(call, "filter_height", &fh) < 0 ||
	    qcf_attr_int(call, "filter_width", &fw) < 0 || sh <= 0 || sw <= 0 || fh <= 0 ||
	    fw <= 0 || sh > INT32_MAX || sw > INT32_MAX || fh > INT32_MAX || fw > INT32_MAX)
		return fail(inst, QCF_INVALID_PARAM, "%s strides and filter sizes must be > 0", op);
	const char *pad = NULL;
	if (qcf_attr_str(call, "padding", &pad) < 0)
		return fail(inst, QCF_INVALID_PARAM, "padding is not a string");
	int same;
	if (!pad || strcmp(pad, "SAME") == 0)
		same = 1;
	else if (strcmp(pad, "VALID") == 0)
		same = 0;
	else
		return fail(inst, QCF_INVALID_PARAM, "unknown padding %s", pad);
	int64_t lo = 0, hi = 0;
	if ((st = act_range(inst, call, y, s_out, zp_out, &lo, &hi)) != QCF_OK)
		return st;
	int64_t in[2] = {x->shape[1], x->shape[2]}, f[2] = {fh, fw}, s[2] = {sh, sw}, out[2];
	dnnl_dims_t strides, kernel, dil = {0, 0}, pl, pr;
	for (int i = 0; i < 2; i++) {
		if (same) {
			out[i] = (in[i] + s[i] - 1) / s[i];
		} else {
			int64_t num = in[i] + s[i] - f[i];
			if (num <= -s[i])
				return fail(inst, QCF_INVALID_PARAM,
				            "%s VALID gives a negative output size", op);
			out[i] = num / s[i];
		}
		int64_t tot = (out[i] - 1) * s[i] + f[i] - in[i];
		pl[i] = same && tot > 0 ? tot / 2 : 0;
		pr[i] = same && tot - pl[i] > 0 ? tot - pl[i] : 0;
		strides[i] = s[i];
		kernel[i] = f[i];
	}
	if (y->shape[0] != x->shape[0] || y->shape[1] != out[0] || y->shape[2] != out[1] ||
	    y->shape[3] != x->shape[3])
		return fail(inst, QCF_INVALID_PARAM, "%s output shape is not the computed one", op);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	dnnl_memory_desc_t xm, ym;
	dnnl_pooling_v2_desc_t pdsc;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL;
	int mx, my;
	CCHK(nhwc_md(&xm, x, dnnl_dt(x->dtype)), "the source descriptor");
	CCHK(nhwc_md(&ym, y, dnnl_dt(y->dtype)), "the destination descriptor");
	CCHK(dnnl_pooling_v2_forward_desc_init(&pdsc, dnnl_forward_inference,
	                                       avg ? dnnl_pooling_avg_exclude_padding
	                                           : dnnl_pooling_max,
	                                       &xm, &ym, strides, kernel, dil, pl, pr),
	     "the pooling descriptor");
	CCHK(dnnl_primitive_attr_create(&attr), "the attributes");
	CCHK(linear_clip_attr(attr, 1.0f, 0.0f, y, lo, hi), "a clip post-op");
	CCHK(dnnl_primitive_desc_create(&pd, &pdsc, attr, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	CCHK(ch_step_add(c, pd, 2, (int[]){DNNL_ARG_SRC, mx, DNNL_ARG_DST, my}), "the primitive");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return st;
}

/* numpy broadcasting of a and b onto y's shape: 1 when it holds. */
static int broadcasts_to(const qcf_tensor *a, const qcf_tensor *b, const qcf_tensor *y)
{
	int r = a->rank > b->rank ? a->rank : b->rank;
	if (y->rank != r)
		return 0;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return 0;
		if (y->shape[i] != (da == 1 ? db : da))
			return 0;
	}
	return 1;
}

/* Reorder of input idx (s8/u8) to f32 with its zero point: q - zp, exact in float. */
static qcf_status to_f32(qcf_instance *inst, chain *c, int idx, const qcf_tensor *t, int nd,
                         int32_t zp, int *m_out)
{
	qcf_status st = QCF_OK;
	dnnl_memory_desc_t a, b;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL;
	int ma, mz = -1;
	CCHK(tensor_md(&a, t, nd, dnnl_dt(t->dtype)), "a descriptor");
	CCHK(tensor_md(&b, t, nd, dnnl_f32), "a descriptor");
	CCHK(dnnl_primitive_attr_create(&attr), "the attributes");
	if (zp)
		CCHK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a source zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&pd, &a, inst->engine, &b, inst->engine, attr),
	     "the reorder to f32");
	CCHK(ch_mem(inst, c, &a, idx, &ma), "memory");
	CCHK(ch_mem(inst, c, &b, BIND_OWN, m_out), "memory");
	if (zp)
		CCHK(ch_zp(inst, c, zp, &mz), "memory");
	CCHK(ch_step_add(c, pd, zp ? 3 : 2,
	                 (int[]){DNNL_ARG_FROM, ma, DNNL_ARG_TO, *m_out,
	                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mz}),
	     "the reorder to f32");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return st;
}

static int same_shape_t(const qcf_tensor *a, const qcf_tensor *b);

enum { B_ADD, B_SUB, B_MUL, B_MAX, B_MIN };

/*
 * ADD, SUB: binary add/sub with input scales s_a/s_out, s_b/s_out and a linear post-op
 * adding zp_out - (s_a zp_a +- s_b zp_b)/s_out. MUL: binary mul with scale s_a s_b/s_out
 * on raw values when both input zero points are 0; otherwise each input is first reordered
 * to f32 with its zero point (exact) and the product scaled by a linear post-op.
 * MAXIMUM, MINIMUM: binary max/min on the raw values (LiteRT compares stored integers).
 */
static qcf_status lt_binary(qcf_instance *inst, const qcf_op_call *call, int kind, chain *c)
{
	static const char *names[] = {"ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM"};
	static const dnnl_alg_kind_t algs[] = {dnnl_binary_add, dnnl_binary_sub, dnnl_binary_mul,
	                                       dnnl_binary_max, dnnl_binary_min};
	const char *op = names[kind];
	qcf_status st;
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 2 inputs and 1 output", op);
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1], *y = &call->outputs[0];
	if ((st = x8_dtype(inst, a, op)) != QCF_OK)
		return st;
	if (b->dtype != a->dtype || y->dtype != a->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s inputs and output must share a dtype", op);
	float sa, sb, so;
	int32_t za, zb, zo;
	if ((st = q8_params(inst, a, op, "input 1", &sa, &za)) != QCF_OK ||
	    (st = q8_params(inst, b, op, "input 2", &sb, &zb)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	if (!broadcasts_to(a, b, y))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output shape is not the broadcast of the input shapes", op);
	if (kind >= B_MAX && y->rank > 5 && !(same_shape_t(a, b) && same_shape_t(a, y)))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s broadcasting at rank %d: LiteRT's broadcast loop takes rank <= 5",
		            op, (int)y->rank);
	int64_t lo = 0, hi = 0;
	dtype_range(y->dtype, &lo, &hi);
	if (kind <= B_MUL && (st = act_range(inst, call, y, so, zo, &lo, &hi)) != QCF_OK)
		return st;
	if (y->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	int nd = y->rank > 0 ? y->rank : 1;
	int f32in = kind == B_MUL && (za != 0 || zb != 0);
	float alpha = 1.0f, beta = 0.0f, s0 = 1.0f, s1 = 1.0f;
	if (kind == B_ADD || kind == B_SUB) {
		/* add.cc / sub.cc (8-bit): the output multiplier 2 max(s_a, s_b) / (2^20 s_out)
		 * must be below 1 (QuantizeMultiplierSmallerThanOneExp aborts otherwise) */
		double twice_max = 2.0 * (sa > sb ? (double)sa : (double)sb);
		if (!(twice_max / (1048576.0 * (double)so) < 1.0))
			return fail(
			        inst, QCF_INVALID_PARAM,
			        "%s: the output multiplier 2 max(s1, s2) / (2^20 s_out) must be "
			        "below 1",
			        op);
		s0 = (float)((double)sa / so);
		s1 = (float)((double)sb / so);
		double off = ((double)sa * za + (kind == B_ADD ? 1 : -1) * (double)sb * zb) / so;
		beta = (float)((double)zo - off);
	} else if (kind == B_MUL) {
		/* mul.cc: float(float(s_a s_b) / s_out) */
		float m = (sa * sb) / so;
		if (f32in)
			alpha = m;
		else
			s0 = m;
		beta = (float)zo;
	}
	dnnl_memory_desc_t am, bm, ym;
	dnnl_binary_desc_t bd;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL;
	int ma, mb, my;
	if (f32in) {
		if ((st = to_f32(inst, c, 0, a, nd, za, &ma)) != QCF_OK ||
		    (st = to_f32(inst, c, 1, b, nd, zb, &mb)) != QCF_OK)
			return st;
		CCHK(tensor_md(&am, a, nd, dnnl_f32), "a descriptor");
		CCHK(tensor_md(&bm, b, nd, dnnl_f32), "a descriptor");
	} else {
		CCHK(tensor_md(&am, a, nd, dnnl_dt(a->dtype)), "a descriptor");
		CCHK(tensor_md(&bm, b, nd, dnnl_dt(b->dtype)), "a descriptor");
		CCHK(ch_mem(inst, c, &am, 0, &ma), "memory");
		CCHK(ch_mem(inst, c, &bm, 1, &mb), "memory");
	}
	CCHK(tensor_md(&ym, y, nd, dnnl_dt(y->dtype)), "a descriptor");
	CCHK(dnnl_binary_desc_init(&bd, algs[kind], &am, &bm, &ym), "the binary descriptor");
	CCHK(dnnl_primitive_attr_create(&attr), "the attributes");
	if (s0 != 1.0f)
		CCHK(dnnl_primitive_attr_set_scales(attr, DNNL_ARG_SRC_0, 1, 0, &s0), "scales");
	if (s1 != 1.0f)
		CCHK(dnnl_primitive_attr_set_scales(attr, DNNL_ARG_SRC_1, 1, 0, &s1), "scales");
	CCHK(linear_clip_attr(attr, alpha, beta, y, lo, hi), "post-ops");
	CCHK(dnnl_primitive_desc_create(&pd, &bd, attr, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	CCHK(ch_step_add(c, pd, 3,
	                 (int[]){DNNL_ARG_SRC_0, ma, DNNL_ARG_SRC_1, mb, DNNL_ARG_DST, my}),
	     "the primitive");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return st;
}

/*
 * One reorder from input 0 to the output: d = (x - zp_src) * scale[c], then + zp_dst, stored
 * rounded to nearest even with saturation (float x for QUANTIZE; f32 out for DEQUANTIZE).
 * scales: n entries along dimension axis (n == 1: per tensor).
 */
static qcf_status reorder_q(qcf_instance *inst, const qcf_tensor *x, const qcf_tensor *y,
                            const char *op, int32_t zp_src, int32_t zp_dst, const float *scales,
                            int n, int axis, chain *c)
{
	qcf_status st = QCF_OK;
	if (qcf_numel(y) == 0)
		return QCF_OK;
	if (x->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	int nd = x->rank > 0 ? x->rank : 1;
	dnnl_memory_desc_t a, b;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL;
	int ma, mb, mzs = -1, mzd = -1, n_args = 2;
	int pairs[8];
	CCHK(tensor_md(&a, x, nd, x->dtype == QCF_FLOAT32 ? dnnl_f32 : dnnl_dt(x->dtype)),
	     "the source descriptor");
	/* the output is dense with x's element count (a reduction over dimensions of size 1
	 * may drop them): described with x's dimensions */
	CCHK(tensor_md(&b, x, nd, y->dtype == QCF_FLOAT32 ? dnnl_f32 : dnnl_dt(y->dtype)),
	     "the destination descriptor");
	CCHK(dnnl_primitive_attr_create(&attr), "the attributes");
	if (n > 1 || scales[0] != 1.0f)
		CCHK(dnnl_primitive_attr_set_output_scales(
		             attr, n, n > 1 ? 1 << (axis + (nd - (x->rank > 0 ? x->rank : 1))) : 0,
		             scales),
		     "output scales");
	if (zp_src)
		CCHK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a source zero point");
	if (zp_dst)
		CCHK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a destination zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&pd, &a, inst->engine, &b, inst->engine, attr), op);
	CCHK(ch_mem(inst, c, &a, 0, &ma), "memory");
	CCHK(ch_mem(inst, c, &b, BIND_OUT, &mb), "memory");
	pairs[0] = DNNL_ARG_FROM, pairs[1] = ma, pairs[2] = DNNL_ARG_TO, pairs[3] = mb;
	if (zp_src) {
		CCHK(ch_zp(inst, c, zp_src, &mzs), "memory");
		pairs[2 * n_args] = DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC;
		pairs[2 * n_args++ + 1] = mzs;
	}
	if (zp_dst) {
		CCHK(ch_zp(inst, c, zp_dst, &mzd), "memory");
		pairs[2 * n_args] = DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST;
		pairs[2 * n_args++ + 1] = mzd;
	}
	CCHK(ch_step_add(c, pd, n_args, pairs), "the reorder");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return st;
}

static int same_shape_t(const qcf_tensor *a, const qcf_tensor *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->shape[i] != b->shape[i])
			return 0;
	return 1;
}

/*
 * QUANTIZE (float32 -> int8/uint8: a reorder with output scale 1/s and the zero point;
 * int8/uint8 -> int8/uint8: the requantization, output scale s_in/s_out and both zero
 * points) and DEQUANTIZE (int8/uint8 -> float32, output scale s and the source zero point).
 * Per-axis scales become per-dimension output scales when the zero points are all equal.
 */
static qcf_status lt_quantize(qcf_instance *inst, const qcf_op_call *call, int deq, chain *c)
{
	const char *op = deq ? "DEQUANTIZE" : "QUANTIZE";
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (!same_shape_t(x, y))
		return fail(inst, QCF_INVALID_PARAM, "%s output shape must be the input's", op);
	const qcf_tensor *qt = deq ? x : y;
	qcf_status st;
	if (deq) {
		if (y->dtype != QCF_FLOAT32)
			return fail(inst, QCF_INVALID_PARAM, "DEQUANTIZE outputs float32");
		if (x->dtype == QCF_INT16 || x->dtype == QCF_FLOAT16 || x->dtype == QCF_INT4)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "DEQUANTIZE from %s: oneDNN 2.6's reorder takes s8/u8/s32",
			            qcf_dtype_name(x->dtype));
		if (x->dtype != QCF_INT8 && x->dtype != QCF_UINT8)
			return fail(inst, QCF_INVALID_PARAM, "DEQUANTIZE from %s",
			            qcf_dtype_name(x->dtype));
	} else {
		if (y->dtype == QCF_INT16 || y->dtype == QCF_INT4 || x->dtype == QCF_INT16)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "QUANTIZE %s -> %s: oneDNN 2.6 has no 16- or 4-bit integers",
			            qcf_dtype_name(x->dtype), qcf_dtype_name(y->dtype));
		if ((y->dtype != QCF_INT8 && y->dtype != QCF_UINT8) ||
		    (x->dtype != QCF_FLOAT32 && x->dtype != QCF_INT8 && x->dtype != QCF_UINT8))
			return fail(inst, QCF_INVALID_PARAM, "QUANTIZE %s -> %s",
			            qcf_dtype_name(x->dtype), qcf_dtype_name(y->dtype));
	}
	const qcf_quant *q = qt->quant;
	if (!q || !q->scales || q->count < 1 || q->block_size > 0)
		return fail(inst, QCF_INVALID_PARAM, "%s needs quantization parameters", op);
	int per_axis = !(q->axis < 0 && q->count == 1);
	if (per_axis && (q->axis < 0 || q->axis >= qt->rank || q->count != qt->shape[q->axis]))
		return fail(inst, QCF_INVALID_PARAM, "%s per-axis quantization does not fit", op);
	int64_t lo = 0, hi = 0;
	dtype_range(qt->dtype, &lo, &hi);
	for (int32_t i = 0; i < q->count; i++) {
		if (!good_scale(q->scales[i]))
			return fail(inst, QCF_INVALID_PARAM, "%s scale not positive and finite",
			            op);
		if (q->zero_points && (q->zero_points[i] < lo || q->zero_points[i] > hi))
			return fail(inst, QCF_INVALID_PARAM, "%s zero point outside %s", op,
			            qcf_dtype_name(qt->dtype));
	}
	int32_t zp;
	if (q->zero_points && !all_equal(q->zero_points, q->count, &zp))
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with distinct per-axis zero points: oneDNN 2.6's reorder takes one "
		            "zero point per tensor",
		            op);
	zp = q->zero_points ? q->zero_points[0] : 0;
	int n = all_equal_f(q->scales, q->count) ? 1 : q->count;
	float *sc = malloc(sizeof(float) * (size_t)n);
	if (!sc)
		return fail(inst, QCF_ERROR, "out of memory");
	if (!deq && x->dtype != QCF_FLOAT32) {
		/* requantization: int8 -> int8 with both zero points */
		float s_in;
		int32_t zp_in;
		if ((st = q8_params(inst, x, op, "input", &s_in, &zp_in)) != QCF_OK) {
			free(sc);
			return st;
		}
		for (int i = 0; i < n; i++)
			sc[i] = (float)((double)s_in / q->scales[i]);
		st = reorder_q(inst, x, y, op, zp_in, zp, sc, n, q->axis, c);
	} else {
		for (int i = 0; i < n; i++)
			sc[i] = deq ? q->scales[i] : (float)(1.0 / (double)q->scales[i]);
		st = reorder_q(inst, x, y, op, deq ? zp : 0, deq ? 0 : zp, sc, n, q->axis, c);
	}
	free(sc);
	return st;
}

/* CONCATENATION: oneDNN's concat of the non-empty inputs (int8 parameters all equal). */
static qcf_status lt_concat(qcf_instance *inst, const qcf_op_call *call, chain *c)
{
	const char *op = "CONCATENATION";
	qcf_status st;
	if (call->n_inputs < 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes inputs and 1 output", op);
	const qcf_tensor *y = &call->outputs[0];
	if ((st = x8_dtype(inst, y, op)) != QCF_OK)
		return st;
	const char *act = NULL;
	if (qcf_attr_str(call, "fused_activation_function", &act) < 0 ||
	    (act && strcmp(act, "NONE") != 0))
		return fail(inst, QCF_INVALID_PARAM, "%s takes no fused activation", op);
	int64_t axis = 0;
	if (qcf_attr_int(call, "axis", &axis) < 0)
		return fail(inst, QCF_INVALID_PARAM, "axis is not an integer");
	if (axis < 0)
		axis += y->rank;
	if (axis < 0 || axis >= y->rank)
		return fail(inst, QCF_INVALID_PARAM, "%s axis outside the rank", op);
	float so;
	int32_t zo;
	if ((st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	int64_t total = 0;
	for (int32_t i = 0; i < call->n_inputs; i++) {
		const qcf_tensor *x = &call->inputs[i];
		float s;
		int32_t z;
		if (x->dtype != y->dtype || x->rank != y->rank)
			return fail(inst, QCF_INVALID_PARAM,
			            "%s inputs must have the output's dtype and rank", op);
		if ((st = q8_params(inst, x, op, "input", &s, &z)) != QCF_OK)
			return st;
		if ((s != so || z != zo) && y->dtype == QCF_UINT8)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s of uint8 inputs with other parameters than the output's: "
			            "LiteRT "
			            "requantizes them, oneDNN's concat copies",
			            op);
		if (s != so || z != zo)
			return fail(inst, QCF_INVALID_PARAM,
			            "%s int8 inputs must share the output's scale and zero point",
			            op);
		for (int k = 0; k < y->rank; k++)
			if (k != axis && x->shape[k] != y->shape[k])
				return fail(inst, QCF_INVALID_PARAM,
				            "%s dimensions other than the axis differ", op);
		total += x->shape[axis];
	}
	if (total != y->shape[axis])
		return fail(inst, QCF_INVALID_PARAM, "%s output size along the axis is not the sum",
		            op);
	if (y->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	dnnl_memory_desc_t srcs[CH_MEM - 2], ym;
	int pairs[2 * CH_ARGS], n = 0;
	dnnl_primitive_desc_t pd = NULL;
	int my;
	for (int32_t i = 0; i < call->n_inputs; i++) {
		const qcf_tensor *x = &call->inputs[i];
		if (qcf_numel(x) == 0)
			continue; /* contributes nothing; oneDNN refuses zero dims here */
		if (n >= CH_ARGS - 1)
			return fail(inst, QCF_NOT_SUPPORTED, "more than %d non-empty inputs",
			            CH_ARGS - 1);
		CCHK(tensor_md(&srcs[n], x, y->rank, dnnl_dt(x->dtype)), "a descriptor");
		int m;
		CCHK(ch_mem(inst, c, &srcs[n], i, &m), "memory");
		pairs[2 * n] = DNNL_ARG_MULTIPLE_SRC + n;
		pairs[2 * n + 1] = m;
		n++;
	}
	CCHK(tensor_md(&ym, y, y->rank, dnnl_dt(y->dtype)), "a descriptor");
	CCHK(dnnl_concat_primitive_desc_create(&pd, &ym, n, (int)axis, srcs, NULL, inst->engine),
	     op);
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	pairs[2 * n] = DNNL_ARG_DST;
	pairs[2 * n + 1] = my;
	CCHK(ch_step_add(c, pd, n + 1, pairs), "the primitive");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	return st;
}

/* An int32 1-D tensor's values (axes, perm, size): count, or -1. */
static int int_values(const qcf_tensor *t, int64_t *v, int cap)
{
	if (t->dtype != QCF_INT32 || t->rank > 1)
		return -1;
	int64_t n = qcf_numel(t);
	if (n > cap)
		return -1;
	for (int64_t i = 0; i < n; i++)
		v[i] = ((const int32_t *)t->data)[i];
	return (int)n;
}

/* TRANSPOSE: a reorder from the input seen through the permutation to the dense output. */
static qcf_status lt_transpose(qcf_instance *inst, const qcf_op_call *call, chain *c)
{
	const char *op = "TRANSPOSE";
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes data, perm and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	int64_t perm[QCF_MAX_RANK];
	int n = int_values(&call->inputs[1], perm, QCF_MAX_RANK);
	if (n < 0 || n != x->rank)
		return fail(inst, QCF_INVALID_PARAM, "%s perm must be int32 of the input's rank",
		            op);
	int seen[QCF_MAX_RANK] = {0};
	for (int i = 0; i < n; i++) {
		if (perm[i] < -n || perm[i] >= n)
			return fail(inst, QCF_INVALID_PARAM, "%s perm entry out of range", op);
		if (perm[i] < 0)
			perm[i] += n;
		if (seen[perm[i]]++)
			return fail(inst, QCF_INVALID_PARAM, "%s perm repeats an axis", op);
	}
	if (y->dtype != x->dtype || y->rank != x->rank)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype and rank must be the input's",
		            op);
	for (int i = 0; i < n; i++)
		if (y->shape[i] != x->shape[perm[i]])
			return fail(inst, QCF_INVALID_PARAM,
			            "%s output shape is not the permuted one", op);
	dnnl_data_type_t dt = x->dtype == QCF_FLOAT32 ? dnnl_f32 : dnnl_dt(x->dtype);
	if (dt == dnnl_data_type_undef)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s of %s: oneDNN 2.6's reorder moves s8/u8/s32/f32 elements", op,
		            qcf_dtype_name(x->dtype));
	if (n > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	qcf_status st = QCF_OK;
	int nd = n > 0 ? n : 1;
	dnnl_dims_t xs, d, s;
	dense_strides(n, x->shape, xs);
	for (int i = 0; i < n; i++)
		d[i] = y->shape[i], s[i] = xs[perm[i]];
	if (n == 0)
		d[0] = 1, s[0] = 1;
	dnnl_memory_desc_t a, b;
	dnnl_primitive_desc_t pd = NULL;
	int ma, mb;
	CCHK(dnnl_memory_desc_init_by_strides(&a, nd, d, dt, s), "the source descriptor");
	CCHK(tensor_md(&b, y, nd, dt), "the destination descriptor");
	CCHK(dnnl_reorder_primitive_desc_create(&pd, &a, inst->engine, &b, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &a, 0, &ma), "memory");
	CCHK(ch_mem(inst, c, &b, BIND_OUT, &mb), "memory");
	CCHK(ch_step_add(c, pd, 2, (int[]){DNNL_ARG_FROM, ma, DNNL_ARG_TO, mb}), "the reorder");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	return st;
}

/*
 * MEAN, SUM: reduction mean/sum over the axes (same rank, reduced dimensions 1), then a linear
 * post-op d * s_in/s_out + (zp_out - zp_in n s_in/s_out) (n = 1 for the mean).
 */
static qcf_status lt_reduce(qcf_instance *inst, const qcf_op_call *call, int mean, chain *c)
{
	const char *op = mean ? "MEAN" : "SUM";
	qcf_status st;
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes data, axes and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if ((st = x8_dtype(inst, x, op)) != QCF_OK)
		return st;
	if (y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype must be the input's", op);
	float si, so;
	int32_t zi, zo;
	if ((st = q8_params(inst, x, op, "input", &si, &zi)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	int64_t ax[64];
	int na = int_values(&call->inputs[1], ax, 64);
	if (na < 0)
		return fail(inst, QCF_INVALID_PARAM, "%s axes must be a 1-D int32 tensor", op);
	int red[QCF_MAX_RANK] = {0};
	for (int i = 0; i < na; i++) {
		if (ax[i] < -x->rank || ax[i] >= x->rank)
			return fail(inst, QCF_INVALID_PARAM, "%s axis %lld outside the rank", op,
			            (long long)ax[i]);
		red[ax[i] < 0 ? ax[i] + x->rank : ax[i]] = 1;
	}
	int64_t keep = 0;
	if (qcf_attr_int(call, "keep_dims", &keep) < 0)
		return fail(inst, QCF_INVALID_PARAM, "keep_dims is not an integer");
	int64_t want[QCF_MAX_RANK], nred = 1;
	int wr = 0;
	for (int i = 0; i < x->rank; i++) {
		if (red[i]) {
			nred *= x->shape[i];
			if (keep)
				want[wr++] = 1;
		} else {
			want[wr++] = x->shape[i];
		}
	}
	int ok = y->rank == wr;
	for (int i = 0; ok && i < wr; i++)
		ok = y->shape[i] == want[i];
	if (!ok)
		return fail(inst, QCF_INVALID_PARAM, "%s output shape is not the reduced one", op);
	if (x->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	if (nred == 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s over an empty axis: oneDNN's reduction takes no zero dimension",
		            op);
	double alpha = (double)si / so;
	double beta = (double)zo - (double)zi * (mean ? 1.0 : (double)nred) * alpha;
	int nd = x->rank > 0 ? x->rank : 1, any = 0;
	dnnl_dims_t dd;
	for (int i = 0; i < nd; i++) {
		int k = i - (nd - x->rank);
		dd[i] = k < 0 ? 1 : red[k] ? 1 : x->shape[k];
		any |= k >= 0 && red[k] && x->shape[k] != 1;
	}
	if (!any) {
		/* nothing is reduced (every axis has size 1): the requantization alone */
		float sc = (float)alpha;
		return reorder_q(inst, x, y, op, zi, zo, &sc, 1, 0, c);
	}
	dnnl_memory_desc_t xm, ym;
	dnnl_dims_t ds;
	dnnl_reduction_desc_t rd;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL;
	int mx, my;
	CCHK(tensor_md(&xm, x, nd, dnnl_dt(x->dtype)), "the source descriptor");
	dense_strides(nd, dd, ds);
	CCHK(dnnl_memory_desc_init_by_strides(&ym, nd, dd, dnnl_dt(y->dtype), ds),
	     "the destination descriptor");
	CCHK(dnnl_reduction_desc_init(&rd, mean ? dnnl_reduction_mean : dnnl_reduction_sum, &xm,
	                              &ym, 0.0f, 0.0f),
	     "the reduction descriptor");
	CCHK(dnnl_primitive_attr_create(&attr), "the attributes");
	int64_t lo = 0, hi = 0;
	dtype_range(y->dtype, &lo, &hi);
	CCHK(linear_clip_attr(attr, (float)alpha, (float)beta, y, lo, hi), "post-ops");
	CCHK(dnnl_primitive_desc_create(&pd, &rd, attr, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	CCHK(ch_step_add(c, pd, 2, (int[]){DNNL_ARG_SRC, mx, DNNL_ARG_DST, my}), "the primitive");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return st;
}

/*
 * SOFTMAX int8 -> int8 (output scale 1/256, zero point -128) or uint8 -> uint8 (1/256, 0):
 * a reorder to f32 with the zero point and scale beta * s_in, softmax_v2 along the last axis
 * into u8 with output scale 256, and for int8 a reorder u8 -> s8 with zero point 128
 * (v - 128 is exact and saturates as LiteRT's clamp does: 256 p rounds to at most 256).
 */
static qcf_status lt_softmax(qcf_instance *inst, const qcf_op_call *call, chain *c)
{
	const char *op = "SOFTMAX";
	qcf_status st;
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if ((st = x8_dtype(inst, x, op)) != QCF_OK)
		return st;
	if (y->dtype == QCF_INT16)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with int16 output: oneDNN 2.6 has no 16-bit integer data type", op);
	if (y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype must be the input's", op);
	if (!same_shape_t(x, y) || x->rank < 1)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output shape must be the input's (rank >= 1)", op);
	float si, so, s1;
	int32_t zi, zo;
	if ((st = q8_params(inst, x, op, "input", &si, &zi)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	int i8 = y->dtype == QCF_INT8;
	if (so != 1.0f / 256 || zo != (i8 ? -128 : 0))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output must have scale 1/256 and zero point %d", op, i8 ? -128 : 0);
	double beta = 1.0;
	if (qcf_attr_float(call, "beta", &beta) < 0)
		return fail(inst, QCF_INVALID_PARAM, "beta is not a number");
	/* LiteRT's int8 path (softmax.cc, QuantizeMultiplierGreaterThanOne) aborts unless
	 * beta * s_in * 2^26 > 1, and for beta <= 0 */
	float fbeta = (float)beta;
	if (!(fbeta > 0) || !isfinite(fbeta))
		return fail(inst, QCF_INVALID_PARAM, "%s beta must be positive and finite", op);
	if (!((double)fbeta * si * 0x1p26 > 1.0))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s: LiteRT aborts unless beta * input_scale * 2^26 > 1", op);
	/* and when a row's Q12 sum of exponentials reaches 2^28: each maximum adds 2^19, so
	 * 512 equal maxima always do (fewer maxima with near-maximal values can too; those
	 * the adapter does not detect) */
	if (x->data && qcf_numel(x) > 0) {
		int64_t depth = x->shape[x->rank - 1], rows = depth ? qcf_numel(x) / depth : 0;
		for (int64_t r = 0; depth >= 512 && r < rows; r++) {
			int mx = -1000, n = 0;
			for (int64_t k = 0; k < depth; k++) {
				int64_t i = r * depth + k;
				int v = x->dtype == QCF_INT8 ? ((const int8_t *)x->data)[i]
				                             : ((const uint8_t *)x->data)[i];
				n = v > mx ? 1 : v == mx ? n + 1 : n;
				mx = v > mx ? v : mx;
			}
			if (n >= 512)
				return fail(inst, QCF_INVALID_PARAM,
				            "%s: %d equal maxima in a row: LiteRT's sum of "
				            "exponentials reaches 2^28 and it aborts",
				            op, n);
		}
	}
	s1 = (float)((double)fbeta * (double)si);
	if (x->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	int nd = x->rank;
	dnnl_memory_desc_t xm, fm, um, ym;
	dnnl_softmax_v2_desc_t sd;
	dnnl_primitive_attr_t a1 = NULL, a2 = NULL, a3 = NULL;
	dnnl_primitive_desc_t p1 = NULL, p2 = NULL, p3 = NULL;
	int mx, mf, mu, my, mz, m128;
	float s2 = 256.0f;
	CCHK(tensor_md(&xm, x, nd, dnnl_dt(x->dtype)), "the source descriptor");
	CCHK(tensor_md(&fm, x, nd, dnnl_f32), "a descriptor");
	CCHK(tensor_md(&um, y, nd, dnnl_u8), "a descriptor");
	CCHK(tensor_md(&ym, y, nd, dnnl_s8), "a descriptor");
	CCHK(dnnl_primitive_attr_create(&a1), "the attributes");
	CCHK(dnnl_primitive_attr_set_output_scales(a1, 1, 0, &s1), "output scales");
	CCHK(dnnl_primitive_attr_set_zero_points(a1, DNNL_ARG_SRC, 1, 0, &DNNL_RUNTIME_S32_VAL),
	     "a source zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&p1, &xm, inst->engine, &fm, inst->engine, a1),
	     "the reorder to f32");
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &fm, BIND_OWN, &mf), "memory");
	CCHK(ch_zp(inst, c, zi, &mz), "memory");
	CCHK(ch_step_add(c, p1, 3,
	                 (int[]){DNNL_ARG_FROM, mx, DNNL_ARG_TO, mf,
	                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mz}),
	     "the reorder to f32");
	CCHK(dnnl_softmax_v2_forward_desc_init(&sd, dnnl_forward_inference, dnnl_softmax_accurate,
	                                       &fm, &um, nd - 1),
	     "the softmax descriptor");
	CCHK(dnnl_primitive_attr_create(&a2), "the attributes");
	CCHK(dnnl_primitive_attr_set_output_scales(a2, 1, 0, &s2), "output scales");
	CCHK(dnnl_primitive_desc_create(&p2, &sd, a2, inst->engine, NULL), "softmax_v2 f32 -> u8");
	CCHK(ch_mem(inst, c, &um, i8 ? BIND_OWN : BIND_OUT, &mu), "memory");
	CCHK(ch_step_add(c, p2, 2, (int[]){DNNL_ARG_SRC, mf, DNNL_ARG_DST, mu}), "the softmax");
	if (i8) {
		CCHK(dnnl_primitive_attr_create(&a3), "the attributes");
		CCHK(dnnl_primitive_attr_set_zero_points(a3, DNNL_ARG_SRC, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a source zero point");
		CCHK(dnnl_reorder_primitive_desc_create(&p3, &um, inst->engine, &ym, inst->engine,
		                                        a3),
		     "the reorder u8 -> s8");
		CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
		CCHK(ch_zp(inst, c, 128, &m128), "memory");
		CCHK(ch_step_add(c, p3, 3,
		                 (int[]){DNNL_ARG_FROM, mu, DNNL_ARG_TO, my,
		                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, m128}),
		     "the reorder u8 -> s8");
	}
out:
	if (p1)
		dnnl_primitive_desc_destroy(p1);
	if (p2)
		dnnl_primitive_desc_destroy(p2);
	if (p3)
		dnnl_primitive_desc_destroy(p3);
	if (a1)
		dnnl_primitive_attr_destroy(a1);
	if (a2)
		dnnl_primitive_attr_destroy(a2);
	if (a3)
		dnnl_primitive_attr_destroy(a3);
	return st;
}

/*
 * RESIZE_BILINEAR with half_pixel_centers (and no align_corners): resampling_linear, whose
 * source coordinate is (y + 0.5) * in / out - 0.5, weights in float, the store rounded to
 * nearest even. The other coordinate modes have no oneDNN algorithm.
 */
static qcf_status lt_resize(qcf_instance *inst, const qcf_op_call *call, chain *c)
{
	const char *op = "RESIZE_BILINEAR";
	qcf_status st;
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes data, size and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if ((st = x8_dtype(inst, x, op)) != QCF_OK)
		return st;
	if (y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype must be the input's", op);
	if (x->rank != 4 || y->rank != 4)
		return fail(inst, QCF_INVALID_PARAM, "%s takes rank-4 NHWC tensors", op);
	int64_t size[4];
	if (int_values(&call->inputs[1], size, 4) != 2 || size[0] <= 0 || size[1] <= 0)
		return fail(inst, QCF_INVALID_PARAM, "%s size must be two positive int32 values",
		            op);
	if (y->shape[0] != x->shape[0] || y->shape[1] != size[0] || y->shape[2] != size[1] ||
	    y->shape[3] != x->shape[3])
		return fail(inst, QCF_INVALID_PARAM, "%s output shape is not [N, size, C]", op);
	int64_t ac = 0, hp = 0;
	if (qcf_attr_int(call, "align_corners", &ac) < 0 ||
	    qcf_attr_int(call, "half_pixel_centers", &hp) < 0)
		return fail(inst, QCF_INVALID_PARAM, "align_corners, half_pixel_centers not 0/1");
	if (ac && hp)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s align_corners with half_pixel_centers is refused", op);
	if (ac || !hp)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with %s: oneDNN's linear resampling has half-pixel centers only",
		            op, ac ? "align_corners" : "asymmetric coordinates");
	if (qcf_numel(y) == 0 || qcf_numel(x) == 0)
		return qcf_numel(y) == 0
		               ? QCF_OK
		               : fail(inst, QCF_NOT_SUPPORTED, "%s of an empty input", op);
	dnnl_memory_desc_t xm, ym;
	dnnl_resampling_desc_t rd;
	dnnl_primitive_desc_t pd = NULL;
	int mx, my;
	CCHK(nhwc_md(&xm, x, dnnl_dt(x->dtype)), "the source descriptor");
	CCHK(nhwc_md(&ym, y, dnnl_dt(y->dtype)), "the destination descriptor");
	CCHK(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, dnnl_resampling_linear,
	                                       NULL, &xm, &ym),
	     "the resampling descriptor");
	CCHK(dnnl_primitive_desc_create(&pd, &rd, NULL, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	CCHK(ch_step_add(c, pd, 2, (int[]){DNNL_ARG_SRC, mx, DNNL_ARG_DST, my}), "the primitive");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	return st;
}

/* SPACE_TO_DEPTH, DEPTH_TO_SPACE: a reorder from the input seen as a 6-D tensor in the output's
 * element order to the dense output. */
static qcf_status lt_space_depth(qcf_instance *inst, const qcf_op_call *call, int to_depth,
                                 chain *c)
{
	const char *op = to_depth ? "SPACE_TO_DEPTH" : "DEPTH_TO_SPACE";
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (x->rank != 4 || y->rank != 4)
		return fail(inst, QCF_INVALID_PARAM, "%s takes rank-4 NHWC tensors", op);
	if (x->dtype == QCF_INT16)
		return fail(inst, QCF_INVALID_PARAM, "%s refuses int16", op);
	if (y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype must be the input's", op);
	dnnl_data_type_t dt = x->dtype == QCF_FLOAT32 ? dnnl_f32 : dnnl_dt(x->dtype);
	if (dt == dnnl_data_type_undef)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s of %s: oneDNN 2.6's reorder moves s8/u8/s32/f32 elements", op,
		            qcf_dtype_name(x->dtype));
	int64_t b = 0;
	if (qcf_attr_int(call, "block_size", &b) < 0 || b <= 0 || b > 65536)
		return fail(inst, QCF_INVALID_PARAM, "%s block_size must be > 0", op);
	int64_t n = x->shape[0], h = x->shape[1], w = x->shape[2], ch = x->shape[3];
	int64_t want[4];
	if (to_depth) {
		if (h % b || w % b)
			return fail(inst, QCF_INVALID_PARAM, "%s block_size must divide H and W",
			            op);
		want[0] = n, want[1] = h / b, want[2] = w / b, want[3] = ch * b * b;
	} else {
		if (ch % (b * b))
			return fail(inst, QCF_INVALID_PARAM,
			            "%s channels must be a multiple of block_size^2", op);
		want[0] = n, want[1] = h * b, want[2] = w * b, want[3] = ch / (b * b);
	}
	for (int i = 0; i < 4; i++)
		if (y->shape[i] != want[i])
			return fail(inst, QCF_INVALID_PARAM,
			            "%s output shape is not the computed one", op);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	qcf_status st = QCF_OK;
	dnnl_dims_t d, s;
	if (to_depth) {
		/* out [n, y, x, by, bx, c] = in [n, y*b + by, x*b + bx, c] */
		int64_t dd[6] = {n, h / b, w / b, b, b, ch};
		int64_t ss[6] = {h * w * ch, b * w * ch, b * ch, w * ch, ch, 1};
		memcpy(d, dd, sizeof dd), memcpy(s, ss, sizeof ss);
	} else {
		/* out [n, y, by, x, bx, c] = in [n, y, x, (by*b + bx)*Co + c] */
		int64_t co = ch / (b * b);
		int64_t dd[6] = {n, h, b, w, b, co};
		int64_t ss[6] = {h * w * ch, w * ch, b * co, ch, co, 1};
		memcpy(d, dd, sizeof dd), memcpy(s, ss, sizeof ss);
	}
	dnnl_memory_desc_t a, o;
	dnnl_dims_t os;
	dnnl_primitive_desc_t pd = NULL;
	int ma, mo;
	dense_strides(6, d, os);
	CCHK(dnnl_memory_desc_init_by_strides(&a, 6, d, dt, s), "the source descriptor");
	CCHK(dnnl_memory_desc_init_by_strides(&o, 6, d, dt, os), "the destination descriptor");
	CCHK(dnnl_reorder_primitive_desc_create(&pd, &a, inst->engine, &o, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &a, 0, &ma), "memory");
	CCHK(ch_mem(inst, c, &o, BIND_OUT, &mo), "memory");
	CCHK(ch_step_add(c, pd, 2, (int[]){DNNL_ARG_FROM, ma, DNNL_ARG_TO, mo}), "the reorder");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	return st;
}

/*
 * RELU, RELU6, RELU_N1_TO_1: one binary add of the input (input scale s_in/s_out) and a
 * one-element zero, with post-ops linear (+ zp_out - zp_in s_in/s_out) and clip to LiteRT's
 * bounds. (oneDNN 2.6 refuses an s8 clip descriptor with these bounds, and its reference s8
 * eltwise with a clip post-op leaves the destination unwritten: measured, so not used.)
 * TANH, LOGISTIC, ELU, LEAKY_RELU: float_unary.
 */
/*
 * TANH, LOGISTIC, ELU, LEAKY_RELU (int8): three primitives, a reorder to f32 with the zero point
 * and output scale s_in (the real input), the f32 eltwise function, and a reorder to int8 with
 * output scale float(1/s_out) and the output zero point. LiteRT builds a 256-entry table from
 * the same real function, rounded half away from zero. (As post-ops of one binary primitive,
 * linear, f, linear, oneDNN 2.6's jit:uni kernel applies the second linear with the first one's
 * alpha and beta: measured, so not used.)
 */
static qcf_status float_unary(qcf_instance *inst, const qcf_tensor *x, const qcf_tensor *y,
                              const char *op, dnnl_alg_kind_t alg, float alpha, float si,
                              int32_t zi, float so, int32_t zo, chain *c)
{
	qcf_status st = QCF_OK;
	int nd = x->rank > 0 ? x->rank : 1, mx, m1, m2, my, mzi = -1, mzo = -1;
	float s_out_inv = (float)(1.0 / (double)so);
	dnnl_memory_desc_t xm, fm, ym;
	dnnl_eltwise_desc_t ed;
	dnnl_primitive_attr_t a1 = NULL, a3 = NULL;
	dnnl_primitive_desc_t p1 = NULL, p2 = NULL, p3 = NULL;
	CCHK(tensor_md(&xm, x, nd, dnnl_dt(x->dtype)), "a descriptor");
	CCHK(tensor_md(&fm, x, nd, dnnl_f32), "a descriptor");
	CCHK(tensor_md(&ym, x, nd, dnnl_dt(y->dtype)), "a descriptor");
	CCHK(dnnl_primitive_attr_create(&a1), "the attributes");
	CCHK(dnnl_primitive_attr_set_output_scales(a1, 1, 0, &si), "output scales");
	if (zi)
		CCHK(dnnl_primitive_attr_set_zero_points(a1, DNNL_ARG_SRC, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a source zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&p1, &xm, inst->engine, &fm, inst->engine, a1),
	     "the reorder to f32");
	CCHK(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, alg, &fm, alpha, 0.0f),
	     "the eltwise descriptor");
	CCHK(dnnl_primitive_desc_create(&p2, &ed, NULL, inst->engine, NULL), op);
	CCHK(dnnl_primitive_attr_create(&a3), "the attributes");
	CCHK(dnnl_primitive_attr_set_output_scales(a3, 1, 0, &s_out_inv), "output scales");
	if (zo)
		CCHK(dnnl_primitive_attr_set_zero_points(a3, DNNL_ARG_DST, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a destination zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&p3, &fm, inst->engine, &ym, inst->engine, a3),
	     "the reorder to int8");
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &fm, BIND_OWN, &m1), "memory");
	CCHK(ch_mem(inst, c, &fm, BIND_OWN, &m2), "memory");
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	if (zi)
		CCHK(ch_zp(inst, c, zi, &mzi), "memory");
	if (zo)
		CCHK(ch_zp(inst, c, zo, &mzo), "memory");
	CCHK(ch_step_add(c, p1, zi ? 3 : 2,
	                 (int[]){DNNL_ARG_FROM, mx, DNNL_ARG_TO, m1,
	                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mzi}),
	     "the reorder to f32");
	CCHK(ch_step_add(c, p2, 2, (int[]){DNNL_ARG_SRC, m1, DNNL_ARG_DST, m2}), "the eltwise");
	CCHK(ch_step_add(c, p3, zo ? 3 : 2,
	                 (int[]){DNNL_ARG_FROM, m2, DNNL_ARG_TO, my,
	                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, mzo}),
	     "the reorder to int8");
out:
	if (p1)
		dnnl_primitive_desc_destroy(p1);
	if (p2)
		dnnl_primitive_desc_destroy(p2);
	if (p3)
		dnnl_primitive_desc_destroy(p3);
	if (a1)
		dnnl_primitive_attr_destroy(a1);
	if (a3)
		dnnl_primitive_attr_destroy(a3);
	return st;
}

enum { U_RELU, U_RELU6, U_RELU_N1, U_TANH, U_LOGISTIC, U_ELU, U_LEAKY };

static qcf_status lt_relu(qcf_instance *inst, const qcf_op_call *call, const char *op, chain *c)
{
	static const char *names[] = {"RELU",     "RELU6", "RELU_N1_TO_1", "TANH",
	                              "LOGISTIC", "ELU",   "LEAKY_RELU"};
	int kind = 0;
	while (kind < U_LEAKY && strcmp(names[kind], op) != 0)
		kind++;
	qcf_status st;
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if ((st = x8_dtype(inst, x, op)) != QCF_OK)
		return st;
	if (y->dtype != x->dtype || !same_shape_t(x, y))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output dtype and shape must be the input's", op);
	float si, so;
	int32_t zi, zo;
	if ((st = q8_params(inst, x, op, "input", &si, &zi)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	int64_t lo = 0, hi = 0, q;
	dtype_range(y->dtype, &lo, &hi);
	double alpha = 0;
	if (kind >= U_TANH) {
		if (x->dtype != QCF_INT8)
			return fail(inst, QCF_NOT_SUPPORTED, "%s on %s: the adapter maps int8 only",
			            op, qcf_dtype_name(x->dtype));
		/* logistic.cc: int8 output scale exactly 1/256 */
		if (kind == U_LOGISTIC && so != 1.0f / 256)
			return fail(inst, QCF_INVALID_PARAM, "%s int8 output scale must be 1/256",
			            op);
		if (kind == U_LEAKY && qcf_attr_float(call, "alpha", &alpha) < 0)
			return fail(inst, QCF_INVALID_PARAM, "alpha is not a number");
		/* leaky_relu.cc builds its two multipliers from these float32 values */
		float fa = (float)alpha;
		if (kind == U_LEAKY &&
		    (!isfinite(fa) || !isfinite(si * fa / so) || !isfinite(si / so)))
			return fail(
			        inst, QCF_INVALID_PARAM,
			        "%s alpha, s_in * alpha / s_out and s_in / s_out must be finite "
			        "in float32",
			        op);
	} else if (strcmp(op, "RELU_N1_TO_1") == 0) {
		int64_t a, b;
		if (!act_bound(-1.0f, so, zo, &a) || !act_bound(1.0f, so, zo, &b))
			return fail(inst, QCF_INVALID_PARAM, "activation bound leaves int32");
		lo = a > lo ? a : lo;
		hi = b < hi ? b : hi;
	} else {
		lo = zo > lo ? zo : lo;
		if (strcmp(op, "RELU6") == 0) {
			if (!act_bound(6.0f, so, zo, &q))
				return fail(inst, QCF_INVALID_PARAM,
				            "activation bound leaves int32");
			hi = q < hi ? q : hi;
		}
	}
	if (x->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	int nd = x->rank > 0 ? x->rank : 1, mx, mz, my;
	/* ReluEval: the quotient in float32 */
	float sc = si / so, beta = (float)((double)zo - (double)zi * (double)sc);
	if (kind >= U_TANH)
		return float_unary(inst, x, y, op,
		                   kind == U_TANH       ? dnnl_eltwise_tanh
		                   : kind == U_LOGISTIC ? dnnl_eltwise_logistic
		                   : kind == U_ELU      ? dnnl_eltwise_elu
		                                        : dnnl_eltwise_relu,
		                   kind == U_ELU ? 1.0f : (float)alpha, si, zi, so, zo, c);
	dnnl_memory_desc_t xm, zm;
	dnnl_dims_t ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, os;
	dnnl_binary_desc_t bd;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t pd = NULL;
	void *h = NULL;
	dense_strides(nd, ones, os);
	CCHK(tensor_md(&xm, x, nd, dnnl_dt(x->dtype)), "a descriptor");
	CCHK(dnnl_memory_desc_init_by_strides(&zm, nd, ones, dnnl_dt(x->dtype), os),
	     "a descriptor");
	CCHK(dnnl_binary_desc_init(&bd, dnnl_binary_add, &xm, &zm, &xm), "the binary descriptor");
	CCHK(dnnl_primitive_attr_create(&attr), "the attributes");
	if (sc != 1.0f)
		CCHK(dnnl_primitive_attr_set_scales(attr, DNNL_ARG_SRC_0, 1, 0, &sc), "scales");
	CCHK(linear_clip_attr(attr, 1.0f, beta, y, lo, hi), "post-ops");
	CCHK(dnnl_primitive_desc_create(&pd, &bd, attr, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &zm, BIND_OWN, &mz), "memory");
	CCHK(dnnl_memory_get_data_handle(c->mem[mz], &h), "memory");
	memset(h, 0, 1);
	CCHK(ch_mem(inst, c, &xm, BIND_OUT, &my), "memory");
	CCHK(ch_step_add(c, pd, 3,
	                 (int[]){DNNL_ARG_SRC_0, mx, DNNL_ARG_SRC_1, mz, DNNL_ARG_DST, my}),
	     "the primitive");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return st;
}

/* REDUCE_MAX, REDUCE_MIN: reduction max/min of the raw values (LiteRT requires equal input
 * and output parameters and does not requantize). */
static qcf_status lt_reduce_mm(qcf_instance *inst, const qcf_op_call *call, int is_max, chain *c)
{
	const char *op = is_max ? "REDUCE_MAX" : "REDUCE_MIN";
	qcf_status st;
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes data, axes and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if ((st = x8_dtype(inst, x, op)) != QCF_OK)
		return st;
	if (y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype must be the input's", op);
	float si, so;
	int32_t zi, zo;
	if ((st = q8_params(inst, x, op, "input", &si, &zi)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	if (si != so || zi != zo)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output scale and zero point must be the input's", op);
	int64_t ax[64];
	int na = int_values(&call->inputs[1], ax, 64);
	if (na < 0)
		return fail(inst, QCF_INVALID_PARAM, "%s axes must be a 1-D int32 tensor", op);
	int red[QCF_MAX_RANK] = {0};
	for (int i = 0; i < na; i++) {
		if (ax[i] < -x->rank || ax[i] >= x->rank)
			return fail(inst, QCF_INVALID_PARAM, "%s axis outside the rank", op);
		red[ax[i] < 0 ? ax[i] + x->rank : ax[i]] = 1;
	}
	int64_t keep = 0;
	if (qcf_attr_int(call, "keep_dims", &keep) < 0)
		return fail(inst, QCF_INVALID_PARAM, "keep_dims is not an integer");
	int64_t want[QCF_MAX_RANK], nred = 1;
	int wr = 0, any = 0;
	for (int i = 0; i < x->rank; i++) {
		if (red[i]) {
			nred *= x->shape[i];
			any |= x->shape[i] != 1;
			if (keep)
				want[wr++] = 1;
		} else {
			want[wr++] = x->shape[i];
		}
	}
	int ok = y->rank == wr;
	for (int i = 0; ok && i < wr; i++)
		ok = y->shape[i] == want[i];
	if (!ok)
		return fail(inst, QCF_INVALID_PARAM, "%s output shape is not the reduced one", op);
	if (x->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	if (nred == 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s over an empty axis: oneDNN's reduction takes no zero dimension",
		            op);
	float one = 1.0f;
	if (!any) /* nothing reduced: a copy */
		return reorder_q(inst, x, y, op, 0, 0, &one, 1, 0, c);
	int nd = x->rank;
	dnnl_dims_t dd, ds;
	for (int i = 0; i < nd; i++)
		dd[i] = red[i] ? 1 : x->shape[i];
	dnnl_memory_desc_t xm, ym;
	dnnl_reduction_desc_t rd;
	dnnl_primitive_desc_t pd = NULL;
	int mx, my;
	CCHK(tensor_md(&xm, x, nd, dnnl_dt(x->dtype)), "the source descriptor");
	dense_strides(nd, dd, ds);
	CCHK(dnnl_memory_desc_init_by_strides(&ym, nd, dd, dnnl_dt(y->dtype), ds),
	     "the destination descriptor");
	CCHK(dnnl_reduction_desc_init(&rd, is_max ? dnnl_reduction_max : dnnl_reduction_min, &xm,
	                              &ym, 0.0f, 0.0f),
	     "the reduction descriptor");
	CCHK(dnnl_primitive_desc_create(&pd, &rd, NULL, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	CCHK(ch_step_add(c, pd, 2, (int[]){DNNL_ARG_SRC, mx, DNNL_ARG_DST, my}), "the primitive");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	return st;
}

/* ONNX's TensorProto data type code of t (0 when it has none here). */
static int64_t onnx_type_code(qcf_dtype t)
{
	switch (t) {
	case QCF_FLOAT32: return 1;
	case QCF_UINT8: return 2;
	case QCF_INT8: return 3;
	case QCF_UINT16: return 4;
	case QCF_INT16: return 5;
	case QCF_INT32: return 6;
	case QCF_FLOAT16: return 10;
	case QCF_BFLOAT16: return 16;
	case QCF_UINT4: return 21;
	case QCF_INT4: return 22;
	default: return 0;
	}
}

/* ONNX QuantizeLinear (float32 -> int8/uint8) and DequantizeLinear (int8/uint8 -> float32):
 * the reorders of QUANTIZE and DEQUANTIZE. */
static qcf_status onnx_qdq(qcf_instance *inst, const qcf_op_call *call, int deq, chain *c)
{
	const char *op = deq ? "DequantizeLinear" : "QuantizeLinear";
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	const qcf_tensor *q = deq ? x : y, *f = deq ? y : x;
	int q_ok = q->dtype == QCF_INT8 || q->dtype == QCF_UINT8;
	int q_legal = q_ok || q->dtype == QCF_INT16 || q->dtype == QCF_UINT16 ||
	              q->dtype == QCF_INT4 || q->dtype == QCF_UINT4 ||
	              (deq && q->dtype == QCF_INT32);
	int f_legal = f->dtype == QCF_FLOAT32 || f->dtype == QCF_FLOAT16 ||
	              f->dtype == QCF_BFLOAT16 || (!deq && f->dtype == QCF_INT32);
	if (!q_legal || !f_legal || !q->quant || !same_shape_t(x, y))
		return fail(inst, QCF_INVALID_PARAM, "%s: %s -> %s (or shape) is not accepted", op,
		            qcf_dtype_name(x->dtype), qcf_dtype_name(y->dtype));
	/* the attributes ONNX's schema checks (onnx/defs/quantization/defs.cc, onnx/onnx) */
	int64_t v;
	int k = qcf_attr_int(call, "output_dtype", &v);
	if (k < 0 || (k == 1 && v != 0 && v != onnx_type_code(y->dtype)))
		return fail(inst, QCF_INVALID_PARAM, "%s output_dtype is not the output's type",
		            op);
	k = qcf_attr_int(call, "precision", &v);
	if (k < 0 || (k == 1 && v != 0 && v != 1 && v != 10 && v != 16))
		return fail(inst, QCF_INVALID_PARAM, "%s precision is not a float type", op);
	k = qcf_attr_int(call, "block_size", &v);
	if (k < 0 || (k == 1 && v < 0))
		return fail(inst, QCF_INVALID_PARAM, "%s block_size must not be negative", op);
	if (qcf_attr_int(call, "precision", &v) == 1 && v != 0 && v != 1)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with precision %lld: the reorder computes in float32, not in the "
		            "16-bit float type asked for",
		            op, (long long)v);
	if (!q_ok || f->dtype != QCF_FLOAT32)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s %s -> %s: the adapter maps int8/uint8 <-> float32 onto oneDNN's "
		            "reorder",
		            op, qcf_dtype_name(x->dtype), qcf_dtype_name(y->dtype));
	if (q->quant->block_size < 0)
		return fail(inst, QCF_INVALID_PARAM, "%s block_size must not be negative", op);
	if (q->quant->block_size > 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with blocked quantization: oneDNN 2.6's reorder scales per "
		            "dimension",
		            op);
	return lt_quantize(inst, call, deq, c);
}

/*
 * LiteRT BATCH_MATMUL int8: matmul with run-time source, weights and destination zero points
 * and the output scale double(float(s_lhs * s_rhs)) / s_out as one float32; adj_x and adj_y
 * are strides; batch dimensions broadcast as oneDNN's matmul does.
 */
static qcf_status lt_batch_matmul(qcf_instance *inst, const qcf_op_call *call, plan *p)
{
	const char *op = "BATCH_MATMUL";
	qcf_status st;
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 2 inputs and 1 output", op);
	const qcf_tensor *l = &call->inputs[0], *r = &call->inputs[1], *y = &call->outputs[0];
	if (l->dtype == QCF_INT16 || r->dtype == QCF_INT16)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s with int16 operands: oneDNN 2.6 has no 16-bit integer matmul", op);
	if (l->dtype != QCF_INT8 || r->dtype != QCF_INT8 || y->dtype != QCF_INT8)
		return fail(inst, QCF_INVALID_PARAM, "%s quantized path takes int8 (or int16)", op);
	float sl, sr, so;
	int32_t zl, zr, zo;
	if ((st = q8_params(inst, l, op, "lhs", &sl, &zl)) != QCF_OK ||
	    (st = q8_params(inst, r, op, "rhs", &sr, &zr)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	if (l->rank < 2 || r->rank < 2 || l->rank > 5 || r->rank > 5)
		return fail(inst, QCF_INVALID_PARAM, "%s operands have ranks 2 to 5", op);
	int64_t ax = 0, ay = 0;
	if (qcf_attr_int(call, "adj_x", &ax) < 0 || qcf_attr_int(call, "adj_y", &ay) < 0)
		return fail(inst, QCF_INVALID_PARAM, "adj_x, adj_y must be 0 or 1");
	int lr = l->rank, rr = r->rank, nd = lr > rr ? lr : rr;
	int64_t M = ax ? l->shape[lr - 1] : l->shape[lr - 2];
	int64_t K = ax ? l->shape[lr - 2] : l->shape[lr - 1];
	int64_t K2 = ay ? r->shape[rr - 1] : r->shape[rr - 2];
	int64_t N = ay ? r->shape[rr - 2] : r->shape[rr - 1];
	if (K != K2)
		return fail(inst, QCF_INVALID_PARAM, "%s inner dimensions %lld and %lld differ", op,
		            (long long)K, (long long)K2);
	dnnl_dims_t lstr, rstr;
	dense_strides(lr, l->shape, lstr);
	dense_strides(rr, r->shape, rstr);
	int ok = y->rank == nd;
	for (int i = 0; i < nd - 2; i++) {
		int il = i - (nd - lr), ir = i - (nd - rr);
		int64_t dl = il >= 0 ? l->shape[il] : 1, dr = ir >= 0 ? r->shape[ir] : 1;
		if (dl != dr && dl != 1 && dr != 1)
			return fail(inst, QCF_INVALID_PARAM, "%s batch dimensions do not broadcast",
			            op);
		p->src_dims[i] = dl, p->wei_dims[i] = dr, p->dst_dims[i] = dl == 1 ? dr : dl;
		p->src_str[i] = il >= 0 ? lstr[il] : 0;
		p->wei_str[i] = ir >= 0 ? rstr[ir] : 0;
		ok = ok && y->shape[i] == p->dst_dims[i];
	}
	ok = ok && y->shape[nd - 2] == M && y->shape[nd - 1] == N;
	if (!ok)
		return fail(inst, QCF_INVALID_PARAM, "%s output shape is not [batch..., M, N]", op);
	p->nd = p->wnd = nd;
	p->src_dims[nd - 2] = M, p->src_dims[nd - 1] = K;
	p->src_str[nd - 2] = ax ? 1 : K, p->src_str[nd - 1] = ax ? M : 1;
	p->wei_dims[nd - 2] = K, p->wei_dims[nd - 1] = N;
	p->wei_str[nd - 2] = ay ? 1 : N, p->wei_str[nd - 1] = ay ? K : 1;
	p->dst_dims[nd - 2] = M, p->dst_dims[nd - 1] = N;
	dense_strides(nd, p->dst_dims, p->dst_str);
	/* a broadcast batch dimension of one is stride 0 to nobody: give it the next stride */
	for (int i = nd - 3; i >= 0; i--) {
		if (p->src_str[i] == 0)
			p->src_str[i] = p->src_str[i + 1] * p->src_dims[i + 1];
		if (p->wei_str[i] == 0)
			p->wei_str[i] = p->wei_str[i + 1] * p->wei_dims[i + 1];
	}
	p->src_dt = p->wei_dt = p->dst_dt = dnnl_s8;
	p->src = l->data, p->wei = r->data, p->dst = y->data;
	p->wei_count = qcf_numel(r);
	p->n_scales = 1;
	p->scales = malloc(sizeof(float));
	if (!p->scales)
		return fail(inst, QCF_ERROR, "out of memory");
	p->scales[0] = (float)((double)(sl * sr) / (double)so);
	p->has_zp_src = zl != 0, p->zp_src = zl;
	p->has_zp_wei = zr != 0, p->zp_wei = zr;
	p->has_zp_dst = zo != 0, p->zp_dst = zo;
	if (qcf_numel(y) == 0 || K == 0)
		p->nd = 0; /* nothing to compute, or an empty sum: see make_plan */
	return QCF_OK;
}

/*
 * LOG_SOFTMAX int8 (output scale 16/256, zero point 127): a reorder to f32 with the zero point
 * and scale s_in, softmax_v2 (log) along the last axis in f32, and a reorder to s8 with output
 * scale 16 and zero point 127.
 */
static qcf_status lt_log_softmax(qcf_instance *inst, const qcf_op_call *call, chain *c)
{
	const char *op = "LOG_SOFTMAX";
	qcf_status st;
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (x->dtype == QCF_UINT8)
		return fail(inst, QCF_NOT_SUPPORTED, "%s on uint8: the adapter maps int8 only", op);
	if (x->dtype != QCF_INT8 || y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s takes int8 (or uint8) in and out", op);
	if (!same_shape_t(x, y) || x->rank < 1)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output shape must be the input's (rank >= 1)", op);
	float si, so;
	int32_t zi, zo;
	if ((st = q8_params(inst, x, op, "input", &si, &zi)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	if (so != 16.0f / 256 || zo != 127)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output must have scale 16/256 and zero point 127", op);
	/* LogSoftmaxPrepare: QuantizeMultiplierGreaterThanOne(s_in * 2^26) aborts unless > 1 */
	if (!((double)si * 0x1p26 > 1.0))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s: LiteRT aborts unless input_scale * 2^26 > 1", op);
	if (x->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	int nd = x->rank, mx, m1, m2, my, mzi = -1, mzo;
	float s3 = 16.0f;
	dnnl_memory_desc_t xm, fm, ym;
	dnnl_softmax_v2_desc_t sd;
	dnnl_primitive_attr_t a1 = NULL, a3 = NULL;
	dnnl_primitive_desc_t p1 = NULL, p2 = NULL, p3 = NULL;
	CCHK(tensor_md(&xm, x, nd, dnnl_s8), "a descriptor");
	CCHK(tensor_md(&fm, x, nd, dnnl_f32), "a descriptor");
	CCHK(tensor_md(&ym, y, nd, dnnl_s8), "a descriptor");
	CCHK(dnnl_primitive_attr_create(&a1), "the attributes");
	CCHK(dnnl_primitive_attr_set_output_scales(a1, 1, 0, &si), "output scales");
	if (zi)
		CCHK(dnnl_primitive_attr_set_zero_points(a1, DNNL_ARG_SRC, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a source zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&p1, &xm, inst->engine, &fm, inst->engine, a1),
	     "the reorder to f32");
	CCHK(dnnl_softmax_v2_forward_desc_init(&sd, dnnl_forward_inference, dnnl_softmax_log, &fm,
	                                       &fm, nd - 1),
	     "the softmax descriptor");
	CCHK(dnnl_primitive_desc_create(&p2, &sd, NULL, inst->engine, NULL), "softmax_v2 (log)");
	CCHK(dnnl_primitive_attr_create(&a3), "the attributes");
	CCHK(dnnl_primitive_attr_set_output_scales(a3, 1, 0, &s3), "output scales");
	CCHK(dnnl_primitive_attr_set_zero_points(a3, DNNL_ARG_DST, 1, 0, &DNNL_RUNTIME_S32_VAL),
	     "a destination zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&p3, &fm, inst->engine, &ym, inst->engine, a3),
	     "the reorder to s8");
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &fm, BIND_OWN, &m1), "memory");
	CCHK(ch_mem(inst, c, &fm, BIND_OWN, &m2), "memory");
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	if (zi)
		CCHK(ch_zp(inst, c, zi, &mzi), "memory");
	CCHK(ch_zp(inst, c, 127, &mzo), "memory");
	CCHK(ch_step_add(c, p1, zi ? 3 : 2,
	                 (int[]){DNNL_ARG_FROM, mx, DNNL_ARG_TO, m1,
	                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mzi}),
	     "the reorder to f32");
	CCHK(ch_step_add(c, p2, 2, (int[]){DNNL_ARG_SRC, m1, DNNL_ARG_DST, m2}), "the softmax");
	CCHK(ch_step_add(c, p3, 3,
	                 (int[]){DNNL_ARG_FROM, m2, DNNL_ARG_TO, my,
	                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, mzo}),
	     "the reorder to s8");
out:
	if (p1)
		dnnl_primitive_desc_destroy(p1);
	if (p2)
		dnnl_primitive_desc_destroy(p2);
	if (p3)
		dnnl_primitive_desc_destroy(p3);
	if (a1)
		dnnl_primitive_attr_destroy(a1);
	if (a3)
		dnnl_primitive_attr_destroy(a3);
	return st;
}

/* Input idx (s8/u8) as LiteRT's comparison value round((q - zp) * 256 * s) in f32: a reorder to
 * s32 with the zero point and output scale float(256 s) (rounded to nearest even), then an exact
 * reorder to f32. */
static qcf_status cmp_value(qcf_instance *inst, chain *c, int idx, const qcf_tensor *t, int nd,
                            float s, int32_t zp, int *m_out)
{
	qcf_status st = QCF_OK;
	dnnl_memory_desc_t a, i32, f;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_primitive_desc_t p1 = NULL, p2 = NULL;
	float sc = (float)(256.0 * (double)s);
	int ma, mi, mz = -1;
	CCHK(tensor_md(&a, t, nd, dnnl_dt(t->dtype)), "a descriptor");
	CCHK(tensor_md(&i32, t, nd, dnnl_s32), "a descriptor");
	CCHK(tensor_md(&f, t, nd, dnnl_f32), "a descriptor");
	CCHK(dnnl_primitive_attr_create(&attr), "the attributes");
	CCHK(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &sc), "output scales");
	if (zp)
		CCHK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a source zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&p1, &a, inst->engine, &i32, inst->engine, attr),
	     "the reorder to s32");
	CCHK(dnnl_reorder_primitive_desc_create(&p2, &i32, inst->engine, &f, inst->engine, NULL),
	     "the reorder to f32");
	CCHK(ch_mem(inst, c, &a, idx, &ma), "memory");
	CCHK(ch_mem(inst, c, &i32, BIND_OWN, &mi), "memory");
	CCHK(ch_mem(inst, c, &f, BIND_OWN, m_out), "memory");
	if (zp)
		CCHK(ch_zp(inst, c, zp, &mz), "memory");
	CCHK(ch_step_add(c, p1, zp ? 3 : 2,
	                 (int[]){DNNL_ARG_FROM, ma, DNNL_ARG_TO, mi,
	                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mz}),
	     "the reorder to s32");
	CCHK(ch_step_add(c, p2, 2, (int[]){DNNL_ARG_FROM, mi, DNNL_ARG_TO, *m_out}),
	     "the reorder to f32");
out:
	if (p1)
		dnnl_primitive_desc_destroy(p1);
	if (p2)
		dnnl_primitive_desc_destroy(p2);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return st;
}

/*
 * EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL on int8/uint8: each input as
 * LiteRT's value at 1/256 real resolution (cmp_value), then the binary comparison into the
 * bool output (u8 0/1).
 */
static qcf_status lt_compare(qcf_instance *inst, const qcf_op_call *call, const char *op, chain *c)
{
	static const char *names[] = {"EQUAL",         "NOT_EQUAL", "GREATER",
	                              "GREATER_EQUAL", "LESS",      "LESS_EQUAL"};
	static const dnnl_alg_kind_t algs[] = {dnnl_binary_eq, dnnl_binary_ne, dnnl_binary_gt,
	                                       dnnl_binary_ge, dnnl_binary_lt, dnnl_binary_le};
	int k = 0;
	while (k < 5 && strcmp(names[k], op) != 0)
		k++;
	qcf_status st;
	if (call->n_inputs != 2 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 2 inputs and 1 output", op);
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1], *y = &call->outputs[0];
	if (a->dtype != b->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s inputs must share a dtype", op);
	if (y->dtype != QCF_BOOL)
		return fail(inst, QCF_INVALID_PARAM, "%s outputs bool", op);
	if (!a->quant || !b->quant)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s of unquantized %s: the adapter maps the quantized comparisons", op,
		            qcf_dtype_name(a->dtype));
	if ((st = x8_dtype(inst, a, op)) != QCF_OK)
		return st;
	float sa, sb;
	int32_t za, zb;
	if ((st = q8_params(inst, a, op, "input 1", &sa, &za)) != QCF_OK ||
	    (st = q8_params(inst, b, op, "input 2", &sb, &zb)) != QCF_OK)
		return st;
	/* comparisons.cc: QuantizeMultiplierSmallerThanOneExp needs scales below 1 */
	if (!(sa < 1.0f) || !(sb < 1.0f))
		return fail(inst, QCF_INVALID_PARAM, "%s input scales must be below 1", op);
	if (!broadcasts_to(a, b, y))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output shape is not the broadcast of the input shapes", op);
	if (y->rank > 4 && !(same_shape_t(a, b) && same_shape_t(a, y)))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s broadcasting at rank %d: LiteRT's comparison loop takes rank <= 4",
		            op, (int)y->rank);
	if (y->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	int nd = y->rank > 0 ? y->rank : 1, ma, mb, my;
	if ((st = cmp_value(inst, c, 0, a, nd, sa, za, &ma)) != QCF_OK ||
	    (st = cmp_value(inst, c, 1, b, nd, sb, zb, &mb)) != QCF_OK)
		return st;
	dnnl_memory_desc_t am, bm, ym;
	dnnl_binary_desc_t bd;
	dnnl_primitive_desc_t pd = NULL;
	CCHK(tensor_md(&am, a, nd, dnnl_f32), "a descriptor");
	CCHK(tensor_md(&bm, b, nd, dnnl_f32), "a descriptor");
	CCHK(tensor_md(&ym, y, nd, dnnl_u8), "a descriptor");
	CCHK(dnnl_binary_desc_init(&bd, algs[k], &am, &bm, &ym), "the binary descriptor");
	CCHK(dnnl_primitive_desc_create(&pd, &bd, NULL, inst->engine, NULL), op);
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	CCHK(ch_step_add(c, pd, 3,
	                 (int[]){DNNL_ARG_SRC_0, ma, DNNL_ARG_SRC_1, mb, DNNL_ARG_DST, my}),
	     "the primitive");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	return st;
}

/*
 * L2_NORMALIZATION int8 (output scale 1/128, zero point 0): d = x - zp_in in f32 (a reorder),
 * the norm sqrt(max(sum d^2, 0.5)) by reduction norm_lp_max (p 2; any non-zero integer row has
 * sum >= 1, a zero row gives 0 / sqrt(0.5) = 0 as LiteRT's), and a binary division d / norm into
 * s8 with a linear post-op scaling by 128. The input scale cancels, as in LiteRT.
 */
static qcf_status lt_l2norm(qcf_instance *inst, const qcf_op_call *call, chain *c)
{
	const char *op = "L2_NORMALIZATION";
	qcf_status st;
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (x->dtype == QCF_UINT8)
		return fail(inst, QCF_NOT_SUPPORTED, "%s on uint8: the adapter maps int8 only", op);
	if (x->dtype != QCF_INT8 || y->dtype != x->dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s takes int8 (or uint8) in and out", op);
	if (!same_shape_t(x, y) || x->rank < 1)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output shape must be the input's (rank >= 1)", op);
	float si, so;
	int32_t zi, zo;
	if ((st = q8_params(inst, x, op, "input", &si, &zi)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	if (so != 1.0f / 128 || zo != 0)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s output must have scale 1/128 and zero point 0", op);
	const char *act = NULL;
	if (qcf_attr_str(call, "fused_activation_function", &act) < 0 ||
	    (act && strcmp(act, "NONE") != 0))
		return fail(inst, QCF_INVALID_PARAM, "%s takes no fused activation", op);
	if (x->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	if (x->shape[x->rank - 1] == 1)
		return fail(
		        inst, QCF_NOT_SUPPORTED,
		        "%s of rows of one element: oneDNN's reduction refuses a reduction that "
		        "reduces nothing (invalid_arguments)",
		        op);
	int nd = x->rank, mx, md, mn, my, mz = -1;
	dnnl_dims_t nd_dims, nd_str;
	for (int i = 0; i < nd; i++)
		nd_dims[i] = i == nd - 1 ? 1 : x->shape[i];
	dense_strides(nd, nd_dims, nd_str);
	dnnl_memory_desc_t xm, fm, nm, ym;
	dnnl_reduction_desc_t rd;
	dnnl_binary_desc_t bd;
	dnnl_primitive_attr_t a1 = NULL, a3 = NULL;
	dnnl_primitive_desc_t p1 = NULL, p2 = NULL, p3 = NULL;
	CCHK(tensor_md(&xm, x, nd, dnnl_s8), "a descriptor");
	CCHK(tensor_md(&fm, x, nd, dnnl_f32), "a descriptor");
	CCHK(dnnl_memory_desc_init_by_strides(&nm, nd, nd_dims, dnnl_f32, nd_str), "a descriptor");
	CCHK(tensor_md(&ym, y, nd, dnnl_s8), "a descriptor");
	CCHK(dnnl_primitive_attr_create(&a1), "the attributes");
	if (zi)
		CCHK(dnnl_primitive_attr_set_zero_points(a1, DNNL_ARG_SRC, 1, 0,
		                                         &DNNL_RUNTIME_S32_VAL),
		     "a source zero point");
	CCHK(dnnl_reorder_primitive_desc_create(&p1, &xm, inst->engine, &fm, inst->engine, a1),
	     "the reorder to f32");
	CCHK(dnnl_reduction_desc_init(&rd, dnnl_reduction_norm_lp_max, &fm, &nm, 2.0f, 0.5f),
	     "the reduction descriptor");
	CCHK(dnnl_primitive_desc_create(&p2, &rd, NULL, inst->engine, NULL),
	     "reduction norm_lp_max");
	CCHK(dnnl_binary_desc_init(&bd, dnnl_binary_div, &fm, &nm, &ym), "the binary descriptor");
	CCHK(dnnl_primitive_attr_create(&a3), "the attributes");
	CCHK(linear_clip_attr(a3, 128.0f, 0.0f, y, -128, 127), "post-ops");
	CCHK(dnnl_primitive_desc_create(&p3, &bd, a3, inst->engine, NULL), "binary div f32 -> s8");
	CCHK(ch_mem(inst, c, &xm, 0, &mx), "memory");
	CCHK(ch_mem(inst, c, &fm, BIND_OWN, &md), "memory");
	CCHK(ch_mem(inst, c, &nm, BIND_OWN, &mn), "memory");
	CCHK(ch_mem(inst, c, &ym, BIND_OUT, &my), "memory");
	if (zi)
		CCHK(ch_zp(inst, c, zi, &mz), "memory");
	CCHK(ch_step_add(c, p1, zi ? 3 : 2,
	                 (int[]){DNNL_ARG_FROM, mx, DNNL_ARG_TO, md,
	                         DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mz}),
	     "the reorder to f32");
	CCHK(ch_step_add(c, p2, 2, (int[]){DNNL_ARG_SRC, md, DNNL_ARG_DST, mn}), "the norm");
	CCHK(ch_step_add(c, p3, 3,
	                 (int[]){DNNL_ARG_SRC_0, md, DNNL_ARG_SRC_1, mn, DNNL_ARG_DST, my}),
	     "the division");
out:
	if (p1)
		dnnl_primitive_desc_destroy(p1);
	if (p2)
		dnnl_primitive_desc_destroy(p2);
	if (p3)
		dnnl_primitive_desc_destroy(p3);
	if (a1)
		dnnl_primitive_attr_destroy(a1);
	if (a3)
		dnnl_primitive_attr_destroy(a3);
	return st;
}

/* An int32 or int64 1-D tensor's values: count, or -1. */
static int index_values(const qcf_tensor *t, int64_t *v, int cap)
{
	if ((t->dtype != QCF_INT32 && t->dtype != QCF_INT64) || t->rank != 1)
		return -1;
	int64_t n = qcf_numel(t);
	if (n > cap)
		return -1;
	for (int64_t i = 0; i < n; i++)
		v[i] = t->dtype == QCF_INT64 ? ((const int64_t *)t->data)[i]
		                             : ((const int32_t *)t->data)[i];
	return (int)n;
}

/* SLICE: a reorder from the input's sub-memory (dnnl_memory_desc_init_submemory) to the dense
 * output. */
static qcf_status lt_slice(qcf_instance *inst, const qcf_op_call *call, chain *c)
{
	const char *op = "SLICE";
	if (call->n_inputs != 3 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes data, begin, size and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	int64_t b[QCF_MAX_RANK], sz[QCF_MAX_RANK];
	int r = x->rank;
	if (call->inputs[1].dtype != call->inputs[2].dtype)
		return fail(inst, QCF_INVALID_PARAM, "%s begin and size must share a type", op);
	if (index_values(&call->inputs[1], b, QCF_MAX_RANK) != r ||
	    index_values(&call->inputs[2], sz, QCF_MAX_RANK) != r)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s begin and size must be int32 or int64 of the input's rank", op);
	if (r > 5)
		return fail(inst, QCF_INVALID_PARAM, "%s takes rank <= 5", op);
	if (y->dtype != x->dtype || y->rank != r)
		return fail(inst, QCF_INVALID_PARAM, "%s output dtype and rank must be the input's",
		            op);
	for (int i = 0; i < r; i++) {
		if (sz[i] == -1)
			sz[i] = x->shape[i] - b[i];
		if (b[i] < 0 || sz[i] < 0 || b[i] + sz[i] > x->shape[i])
			return fail(inst, QCF_INVALID_PARAM, "%s begin or size out of range", op);
		if (y->shape[i] != sz[i])
			return fail(inst, QCF_INVALID_PARAM, "%s output shape is not the size", op);
	}
	dnnl_data_type_t dt = x->dtype == QCF_FLOAT32 ? dnnl_f32 : dnnl_dt(x->dtype);
	if (dt == dnnl_data_type_undef)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s of %s: oneDNN 2.6's reorder moves s8/u8/s32/f32 elements", op,
		            qcf_dtype_name(x->dtype));
	if (qcf_numel(y) == 0)
		return QCF_OK;
	qcf_status st = QCF_OK;
	int nd = r > 0 ? r : 1;
	dnnl_dims_t dims, offs;
	for (int i = 0; i < nd; i++) {
		dims[i] = r > 0 ? sz[i] : 1;
		offs[i] = r > 0 ? b[i] : 0;
	}
	dnnl_memory_desc_t whole, sub, o;
	dnnl_primitive_desc_t pd = NULL;
	int ma, mo;
	CCHK(tensor_md(&whole, x, nd, dt), "the source descriptor");
	CCHK(dnnl_memory_desc_init_submemory(&sub, &whole, dims, offs), "the sub-memory");
	CCHK(tensor_md(&o, y, nd, dt), "the destination descriptor");
	CCHK(dnnl_reorder_primitive_desc_create(&pd, &sub, inst->engine, &o, inst->engine, NULL),
	     op);
	CCHK(ch_mem(inst, c, &sub, 0, &ma), "memory");
	CCHK(ch_mem(inst, c, &o, BIND_OUT, &mo), "memory");
	CCHK(ch_step_add(c, pd, 2, (int[]){DNNL_ARG_FROM, ma, DNNL_ARG_TO, mo}), "the reorder");
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	return st;
}

/* EXP, LOG, GELU, HARD_SWISH, ABS (int8): float_unary with oneDNN's f32 eltwise function. */
static qcf_status lt_float_fn(qcf_instance *inst, const qcf_op_call *call, const char *op, chain *c)
{
	static const char *names[] = {"EXP", "LOG", "GELU", "HARD_SWISH", "ABS"};
	int k = 0;
	while (k < 4 && strcmp(names[k], op) != 0)
		k++;
	qcf_status st;
	if (call->n_inputs != 1 || call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 1 input and 1 output", op);
	const qcf_tensor *x = &call->inputs[0], *y = &call->outputs[0];
	if (!x->quant)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s of unquantized %s: the adapter maps the quantized int8 op", op,
		            qcf_dtype_name(x->dtype));
	int u8_ok = k == 2 || k == 3; /* LiteRT's EXP, LOG, ABS refuse uint8 */
	if (x->dtype == QCF_UINT8)
		return fail(inst, u8_ok ? QCF_NOT_SUPPORTED : QCF_INVALID_PARAM, "%s on uint8: %s",
		            op, u8_ok ? "the adapter maps int8 only" : "LiteRT refuses it");
	if (x->dtype == QCF_INT16)
		return fail(inst, k == 3 ? QCF_INVALID_PARAM : QCF_NOT_SUPPORTED, "%s on int16: %s",
		            op,
		            k == 3 ? "LiteRT refuses it"
		                   : "oneDNN 2.6 has no 16-bit integer data type");
	if (x->dtype != QCF_INT8 || y->dtype != x->dtype || !same_shape_t(x, y))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s takes int8 and outputs the input's dtype and shape", op);
	float si, so;
	int32_t zi, zo;
	if ((st = q8_params(inst, x, op, "input", &si, &zi)) != QCF_OK ||
	    (st = q8_params(inst, y, op, "output", &so, &zo)) != QCF_OK)
		return st;
	dnnl_alg_kind_t alg = k == 0   ? dnnl_eltwise_exp
	                      : k == 1 ? dnnl_eltwise_log
	                      : k == 3 ? dnnl_eltwise_hardswish
	                      : k == 4 ? dnnl_eltwise_abs
	                               : dnnl_eltwise_gelu_erf;
	if (k == 2) {
		int64_t approx = 0;
		if (qcf_attr_int(call, "approximate", &approx) < 0 || (approx != 0 && approx != 1))
			return fail(inst, QCF_INVALID_PARAM, "%s approximate must be a bool", op);
		if (approx)
			alg = dnnl_eltwise_gelu_tanh;
	}
	if (k == 3) {
		/* hard_swish.cc: the output multiplier (s_in / 128) / s_out, in float32, below 1 */
		float m = (si / 128.0f) / so;
		if (!(m < 1.0f))
			return fail(inst, QCF_INVALID_PARAM,
			            "%s output multiplier (s_in / 128) / s_out must be below 1",
			            op);
	}
	/* log of a real at or below 0 is -inf or NaN: oneDNN's reorder to s8 stores -inf as 127
	 * (measured), LiteRT's table holds -128; such data is not run */
	if (k == 1 && x->data)
		for (int64_t i = 0; i < qcf_numel(x); i++)
			if (((const int8_t *)x->data)[i] <= zi)
				return fail(
				        inst, QCF_NOT_SUPPORTED,
				        "%s of a value at or below the zero point (log of <= 0): "
				        "oneDNN's reorder stores -inf as 127, LiteRT -128",
				        op);
	if (x->rank > MAXD)
		return fail(inst, QCF_NOT_SUPPORTED, "rank above oneDNN's %d", MAXD);
	if (qcf_numel(y) == 0)
		return QCF_OK;
	return float_unary(inst, x, y, op, alg, 0.0f, si, zi, so, zo, c);
}

/* ---- the ABI ------------------------------------------------------------------------------ */

enum { OP_NONE, OP_FC, OP_CONV, OP_DW, OP_QMM, OP_MMI, OP_QCONV, OP_CONVI, OP_BMM };

static int op_of(const qcf_op_call *call)
{
	const char *s = call->semantics ? call->semantics : "", *o = call->op ? call->op : "";
	if (strcmp(s, "litert") == 0) {
		if (strcmp(o, "FULLY_CONNECTED") == 0)
			return OP_FC;
		if (strcmp(o, "CONV_2D") == 0)
			return OP_CONV;
		if (strcmp(o, "DEPTHWISE_CONV_2D") == 0)
			return OP_DW;
		if (strcmp(o, "BATCH_MATMUL") == 0)
			return OP_BMM;
	} else if (strcmp(s, "onnx") == 0) {
		if (strcmp(o, "QLinearMatMul") == 0)
			return OP_QMM;
		if (strcmp(o, "MatMulInteger") == 0)
			return OP_MMI;
		if (strcmp(o, "QLinearConv") == 0)
			return OP_QCONV;
		if (strcmp(o, "ConvInteger") == 0)
			return OP_CONVI;
	}
	return OP_NONE;
}

/* The LiteRT ops that run as chains of primitives: the builder's number, or -1. */
static const char *const chain_ops[] = {
        "MAX_POOL_2D",
        "AVERAGE_POOL_2D",
        "ADD",
        "SUB",
        "MUL",
        "MAXIMUM",
        "MINIMUM",
        "QUANTIZE",
        "DEQUANTIZE",
        "CONCATENATION",
        "TRANSPOSE",
        "MEAN",
        "SUM",
        "SOFTMAX",
        "RESIZE_BILINEAR",
        "SPACE_TO_DEPTH",
        "DEPTH_TO_SPACE",
        "RELU",
        "RELU6",
        "RELU_N1_TO_1",
        "REDUCE_MAX",
        "REDUCE_MIN",
        "QuantizeLinear",
        "DequantizeLinear",
        "TANH",
        "LOGISTIC",
        "ELU",
        "LEAKY_RELU",
        "LOG_SOFTMAX",
        "EQUAL",
        "NOT_EQUAL",
        "GREATER",
        "GREATER_EQUAL",
        "LESS",
        "LESS_EQUAL",
        "L2_NORMALIZATION",
        "SLICE",
        "EXP",
        "LOG",
        "GELU",
        "HARD_SWISH",
        "ABS",
};

static int chain_op_of(const qcf_op_call *call)
{
	if (!call->semantics || !call->op)
		return -1;
	int onnx = strcmp(call->semantics, "onnx") == 0;
	if (!onnx && strcmp(call->semantics, "litert") != 0)
		return -1;
	for (int i = 0; i < (int)(sizeof chain_ops / sizeof chain_ops[0]); i++)
		if (strcmp(call->op, chain_ops[i]) == 0 && onnx == (i == 22 || i == 23))
			return i;
	return -1;
}

static qcf_status build_chain(qcf_instance *inst, const qcf_op_call *call, int k, chain *c)
{
	switch (k) {
	case 0:
	case 1: return lt_pool(inst, call, k == 1, c);
	case 2: return lt_binary(inst, call, B_ADD, c);
	case 3: return lt_binary(inst, call, B_SUB, c);
	case 4: return lt_binary(inst, call, B_MUL, c);
	case 5: return lt_binary(inst, call, B_MAX, c);
	case 6: return lt_binary(inst, call, B_MIN, c);
	case 7:
	case 8: return lt_quantize(inst, call, k == 8, c);
	case 9: return lt_concat(inst, call, c);
	case 10: return lt_transpose(inst, call, c);
	case 11:
	case 12: return lt_reduce(inst, call, k == 11, c);
	case 13: return lt_softmax(inst, call, c);
	case 14: return lt_resize(inst, call, c);
	case 15:
	case 16: return lt_space_depth(inst, call, k == 15, c);
	case 17:
	case 18:
	case 19: return lt_relu(inst, call, chain_ops[k], c);
	case 20:
	case 21: return lt_reduce_mm(inst, call, k == 20, c);
	case 22:
	case 23: return onnx_qdq(inst, call, k == 23, c);
	case 28: return lt_log_softmax(inst, call, c);
	case 29:
	case 30:
	case 31:
	case 32:
	case 33:
	case 34: return lt_compare(inst, call, chain_ops[k], c);
	case 35: return lt_l2norm(inst, call, c);
	case 36: return lt_slice(inst, call, c);
	case 37:
	case 38:
	case 39:
	case 40:
	case 41: return lt_float_fn(inst, call, chain_ops[k], c);
	default: return lt_relu(inst, call, chain_ops[k], c);
	}
}

/* A chain op: *out holds the chain (no steps when there is nothing to compute). */
static qcf_status prepare_chain(qcf_instance *inst, const qcf_op_call *call, int k,
                                qcf_prepared **out)
{
	chain *c = calloc(1, sizeof *c);
	qcf_prepared *pr = calloc(1, sizeof *pr);
	if (!c || !pr) {
		free(c);
		free(pr);
		return fail(inst, QCF_ERROR, "out of memory");
	}
	pr->ch = c;
	if (call->n_outputs < 1)
		return prep_free(pr), fail(inst, QCF_INVALID_PARAM, "%s has no output", call->op);
	for (int32_t i = 0; i < call->n_inputs && k != 22 && k != 23; i++)
		if (call->inputs[i].quant && call->inputs[i].quant->block_size > 0) {
			prep_free(pr);
			return fail(inst, QCF_INVALID_PARAM, "blocked quantization");
		}
	qcf_status st = build_chain(inst, call, k, c);
	if (st != QCF_OK) {
		prep_free(pr);
		return st;
	}
	*out = pr;
	return QCF_OK;
}

/* The call as a oneDNN problem. *empty: a valid call with nothing to compute. */
static qcf_status make_plan(qcf_instance *inst, const qcf_op_call *call, plan *p, int *empty)
{
	int op = op_of(call);
	qcf_status st;
	*empty = 0;
	if (op == OP_NONE)
		return fail(inst, QCF_NOT_SUPPORTED, "%s/%s is not mapped onto oneDNN",
		            call->semantics ? call->semantics : "?", call->op ? call->op : "?");
	if (call->n_outputs < 1 || call->n_inputs < 2)
		return fail(inst, QCF_INVALID_PARAM, "%s: wrong input or output count", call->op);
	for (int32_t i = 0; i < call->n_inputs; i++)
		if (call->inputs[i].quant && call->inputs[i].quant->block_size > 0)
			return fail(inst, QCF_INVALID_PARAM, "blocked quantization outside Q/DQ");
	switch (op) {
	case OP_FC:
		plan_init(p, K_MATMUL);
		st = litert_fc(inst, call, p);
		break;
	case OP_CONV:
		plan_init(p, K_CONV);
		st = litert_conv(inst, call, 0, p);
		break;
	case OP_DW:
		plan_init(p, K_CONV);
		st = litert_conv(inst, call, 1, p);
		break;
	case OP_QMM:
		plan_init(p, K_MATMUL);
		st = onnx_matmul(inst, call, 1, p);
		break;
	case OP_MMI:
		plan_init(p, K_MATMUL);
		st = onnx_matmul(inst, call, 0, p);
		break;
	case OP_QCONV:
		plan_init(p, K_CONV);
		st = onnx_conv(inst, call, 1, p);
		break;
	case OP_BMM:
		plan_init(p, K_MATMUL);
		st = lt_batch_matmul(inst, call, p);
		break;
	default:
		plan_init(p, K_CONV);
		st = onnx_conv(inst, call, 0, p);
		break;
	}
	if (st != QCF_OK)
		return st;
	if (p->nd == 0 || qcf_numel(&call->outputs[0]) == 0)
		*empty = 1;
	for (int i = 0; i < p->nd && !*empty; i++)
		if (p->src_dims[i] == 0 || p->wei_dims[i] == 0)
			*empty = 1;
	return QCF_OK;
}

/* A zero-size output: nothing to write. The int32 ops with K = 0 write zeros. */
static void fill_empty(const qcf_op_call *call)
{
	qcf_tensor *y = &call->outputs[0];
	if (y->data && y->nbytes)
		memset(y->data, 0, y->nbytes);
}

static const char *dt_name(dnnl_data_type_t t)
{
	return t == dnnl_s8 ? "s8" : t == dnnl_u8 ? "u8" : t == dnnl_s32 ? "s32" : "?";
}

/* "QLinearMatMul (u8 x s8 -> u8 matmul, output scales per N, ...)" for messages. */
static void describe(const qcf_op_call *call, const plan *p, char *buf, size_t size)
{
	snprintf(buf, size, "%s (%s x %s -> %s %s%s%s%s%s%s%s)", call->op, dt_name(p->src_dt),
	         p->wei_raw_u8 ? "u8 (shifted to s8)" : "s8", dt_name(p->dst_dt),
	         p->kind == K_MATMUL ? "matmul" : "convolution",
	         p->n_scales
	                 ? (p->scale_mask ? ", output scales per channel" : ", one output scale")
	                 : "",
	         p->has_zp_src ? ", src zero point" : "",
	         p->has_zp_wei && !p->wzp ? ", weights zero point" : "",
	         p->wzp ? ", per-channel weights zero points" : "",
	         p->has_zp_dst ? ", dst zero point" : "", p->has_clip ? ", clip post-op" : "");
}

static qcf_status od_prepare(qcf_instance *inst, const qcf_op_call *call, qcf_prepared **out)
{
	plan p;
	int empty;
	*out = NULL;
	inst->err[0] = '\0';
	int k = chain_op_of(call);
	if (k >= 0)
		return prepare_chain(inst, call, k, out);
	memset(&p, 0, sizeof p);
	qcf_status st = make_plan(inst, call, &p, &empty);
	if (st == QCF_OK && empty) {
		/* a zero-size problem: oneDNN refuses zero dims in some primitives; the only
		 * output values an empty reduction can have need no kernel */
		plan_free(&p);
		if (qcf_numel(&call->outputs[0]) != 0 && op_of(call) != OP_MMI &&
		    op_of(call) != OP_CONVI)
			return fail(inst, QCF_NOT_SUPPORTED, "empty reduction (K = 0) not run");
		*out = calloc(1, sizeof **out);
		return *out ? QCF_OK : fail(inst, QCF_ERROR, "out of memory");
	}
	if (st == QCF_OK) {
		char what[160];
		describe(call, &p, what, sizeof what);
		st = build(inst, &p, out, what);
		/* a weights zero point the matmul does not take: subtracted here instead */
		if (st == QCF_NOT_SUPPORTED && p.kind == K_MATMUL &&
		    (p.has_zp_wei || p.wei_raw_u8) && !p.force_shift && !p.wzp) {
			char first[sizeof inst->err];
			snprintf(first, sizeof first, "%s", inst->err);
			p.force_shift = 1;
			st = build(inst, &p, out, what);
			if (st != QCF_OK)
				fail(inst, st, "%s; with oneDNN's weights zero point: %s",
				     inst->err, first);
		}
	}
	plan_free(&p);
	return st;
}

static qcf_status od_supports(qcf_instance *inst, const qcf_op_call *call)
{
	qcf_prepared *p = NULL;
	qcf_status st = od_prepare(inst, call, &p);
	prep_free(p);
	return st;
}

static qcf_status od_execute(qcf_instance *inst, qcf_prepared *pr, const qcf_op_call *call)
{
	qcf_status st = QCF_OK;
	if (!pr) {
		st = od_prepare(inst, call, &pr);
		if (st != QCF_OK)
			return st;
		st = od_execute(inst, pr, call);
		prep_free(pr);
		return st;
	}
	if (pr->ch) {
		dnnl_status_t s = ch_run(inst, pr->ch, call);
		return s == dnnl_success ? QCF_OK : dnnl_fail(inst, s, "execute");
	}
	if (!pr->prim) {
		fill_empty(call);
		return QCF_OK;
	}
	CHK(dnnl_memory_set_data_handle(pr->u_src, call->inputs[0].data), "the source");
	CHK(dnnl_memory_set_data_handle(pr->u_dst, call->outputs[0].data), "the destination");
	if (pr->re_src)
		CHK(run_reorder(inst, pr->re_src, pr->u_src, pr->m_src), "the source reorder");
	dnnl_exec_arg_t args[10];
	int n = 0;
	args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, pr->m_src};
	args[n++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, pr->m_wei};
	args[n++] = (dnnl_exec_arg_t){DNNL_ARG_DST, pr->m_dst};
	if (pr->m_bias)
		args[n++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, pr->m_bias};
	if (pr->m_zsrc)
		args[n++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, pr->m_zsrc};
	if (pr->m_zdst)
		args[n++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, pr->m_zdst};
	if (pr->m_zwei)
		args[n++] =
		        (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS, pr->m_zwei};
	CHK(dnnl_primitive_execute(pr->prim, inst->stream, n, args), "execute");
	if (pr->re_dst)
		CHK(run_reorder(inst, pr->re_dst, pr->m_dst, pr->u_dst), "the destination reorder");
	CHK(dnnl_stream_wait(inst->stream), "execute");
out:
	return st;
}

static void od_release(qcf_instance *inst, qcf_prepared *pr)
{
	(void)inst;
	prep_free(pr);
}

static const char *od_last_error(qcf_instance *inst)
{
	return inst ? inst->err : "";
}

static void od_destroy(qcf_instance *inst)
{
	if (!inst)
		return;
	if (inst->stream)
		dnnl_stream_destroy(inst->stream);
	if (inst->engine)
		dnnl_engine_destroy(inst->engine);
	free(inst);
}

static qcf_status od_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                            char *msg, size_t msg_size)
{
	int want = -1;
	*out = NULL;
	for (int32_t i = 0; i < n_options; i++) {
		const char *k = options[i].key ? options[i].key : "";
		const char *v = options[i].value ? options[i].value : "";
		if (strcmp(k, "isa") != 0) {
			snprintf(msg, msg_size, "unknown option '%s' (known: isa)", k);
			return QCF_INVALID_PARAM;
		}
		want = -1;
		for (int j = 0; j < N_ISA; j++)
			if (strcmp(v, isa_names[j].name) == 0)
				want = j;
		if (want < 0) {
			char list[256] = "";
			for (int j = 0; j < N_ISA; j++)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				         j ? ", " : "", isa_names[j].name);
			snprintf(msg, msg_size, "isa=%s: unknown ISA (oneDNN %d.%d offers: %s)", v,
			         DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, list);
			return QCF_INVALID_PARAM;
		}
	}
	if (want > 0) {
		dnnl_status_t s = dnnl_set_max_cpu_isa(isa_names[want].isa);
		if (s != dnnl_success) {
			snprintf(msg, msg_size,
			         "isa=%s: this oneDNN build refuses it as the maximum ISA "
			         "(dnnl_set_max_cpu_isa: %s)",
			         isa_names[want].name,
			         s == dnnl_invalid_arguments ? "invalid arguments" : "failed");
			return QCF_NOT_SUPPORTED;
		}
	}
	dnnl_cpu_isa_t eff = dnnl_get_effective_cpu_isa();
	if (want > 0 && eff != isa_names[want].isa) {
		snprintf(msg, msg_size,
		         "isa=%s: this CPU cannot run it (oneDNN's effective ISA is %s); refusing "
		         "to run under a name that did not run",
		         isa_names[want].name, isa_name(eff));
		return QCF_NOT_SUPPORTED;
	}
	qcf_instance *inst = calloc(1, sizeof *inst);
	if (!inst) {
		snprintf(msg, msg_size, "out of memory");
		return QCF_ERROR;
	}
	snprintf(inst->isa, sizeof inst->isa, "%s", isa_name(eff));
	if (dnnl_engine_create(&inst->engine, dnnl_cpu, 0) != dnnl_success ||
	    dnnl_stream_create(&inst->stream, inst->engine, dnnl_stream_default_flags) !=
	            dnnl_success) {
		snprintf(msg, msg_size, "oneDNN could not create a CPU engine and stream");
		od_destroy(inst);
		return QCF_ERROR;
	}
	*out = inst;
	return QCF_OK;
}

static char plugin_version[64];

static qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                .abi_version = 1,
                                .name = "onednn",
                                .version = plugin_version,
                                .create = od_create,
                                .destroy = od_destroy,
                                .supports = od_supports,
                                .prepare = od_prepare,
                                .execute = od_execute,
                                .release = od_release,
                                .last_error = od_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	const dnnl_version_t *v = dnnl_version();
	snprintf(plugin_version, sizeof plugin_version, "%s+onednn%d.%d.%d", ONEDNN_ADAPTER_VERSION,
	         v->major, v->minor, v->patch);
	return qcf_negotiate_answer(n, 1, &descriptor);
}
