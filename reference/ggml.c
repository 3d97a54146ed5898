/*
 * GGML's block formats (specs/ggml/OPERATORS.md): their layouts, quantizers, values, vec_dot and
 * comparison. The ops of semantics "ggml" built on them are ggml_ops.c; dtype.c reads and
 * writes their elements through qref_ggml_get and qref_ggml_fill.
 *
 * Source: ggml (github.com/ggml-org/ggml, the same files as ggml/ in ggml-org/llama.cpp):
 * src/ggml-common.h (block layouts), src/ggml-quants.c (quantize_row_*_ref, the helpers they
 * use, dequantize_row_*), src/ggml-cpu/quants.c (ggml_vec_dot_*_generic), src/ggml-cpu/ggml-cpu.c
 * (type_traits_cpu: vec_dot_type, from_float; ggml_compute_forward_mul_mat). Checked against
 * ggml-org/ggml d99724f2 (2026) and ggerganov/ggml 9a4acb37 (2025), whose quantizers agree
 * except that the newer make_q3_quants returns 0 instead of 0/0 for a group whose sum of
 * l^2 weights is 0 (followed here).
 *
 * Arithmetic. Every step is float32 as ggml writes it (the reference is compiled with
 * -ffp-contract=off: no fused multiply-add), left to right as C evaluates it: "a * b * c" is
 * (a * b) * c; an int operand converts to float at its operator. fp16 fields are
 * qref_f32_to_f16 / qref_f16_to_f32: round to nearest even, as ggml's
 * ggml_compute_fp32_to_fp16 (the scalar path without F16C) and F16C's _cvtss_sh(x, 0) both do.
 * nearest_int below is ggml's: the float f + 1.5 * 2^23, whose low mantissa bits are the
 * integer rounded half to even (for |f| <= 2^22 - 1; beyond, the same bits, as ggml gets).
 * A float converted to an integer type truncates toward zero, as the C casts in ggml do.
 *
 * Summation order. Integer sums are exact; the float steps that depend on order are
 *  - every vec_dot: the sum over blocks (sumf += per-block term, in block order), and the
 *    association of each block's product (Q4_0: sumi * dx * dy is (sumi * dx) * dy; Q5_0:
 *    (dx * dy) * sumi; Q8_0: sumi * (dx * dy));
 *  - Q4_1 / Q5_1: the block term (dx * dy) * sumi + m * s, two products then one sum;
 *  - Q2_K: dall * isum - dmin * summs per super-block;
 *  - Q3_K..Q6_K: eight float lanes sums[l] += d * aux32[l] across super-blocks (lane l holds
 *    the elements whose index is l mod 8), then Q4_K / Q5_K subtract dmin * sumi from sumf per
 *    super-block first, and the eight lanes are added to sumf last, lane 0 first;
 *  - the quantizers' searches (make_qkx2_quants, make_q3_quants, make_qx_quants): their float
 *    sums over a group run in element order and decide which scale wins, so a quantizer that
 *    sums in another order may pick another scale (rarely; the bytes then differ).
 * SIMD builds of ggml sum in other orders (and x86's quantize_row_q8_0 / q8_1 multiply by
 * 127 / amax and round ties to even, where the reference path divides by d and rounds ties
 * away): the bound qref_ggml_vec_dot returns covers the reordering of the same products, not
 * a different activation quantization.
 */
#include "ggml.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "qconform/plugin_util.h"

#define QK            32  /* elements of a Q4_0..Q8_1 block */
#define QK_K          256 /* elements of a K-quant super-block */
#define GROUP_MAX_EPS 1e-15f

int qref_ggml_is_block(qcf_dtype t)
{
	return qcf_ggml_block_elements(t) > 0;
}

/* ---- fields ---- */

static float rd16(const uint8_t *p)
{
	return qref_f16_to_f32((uint16_t)(p[0] | (p[1] << 8)));
}

static void wr16(uint8_t *p, float v)
{
	uint16_t h = qref_f32_to_f16(v);
	p[0] = (uint8_t)(h & 0xff);
	p[1] = (uint8_t)(h >> 8);
}

static float rdf32(const uint8_t *p)
{
	uint32_t b =
	        (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	float f;
	memcpy(&f, &b, 4);
	return f;
}

static void wrf32(uint8_t *p, float v)
{
	uint32_t b;
	memcpy(&b, &v, 4);
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(b >> (8 * k));
}

static int16_t rd_i16(const uint8_t *p)
{
	return (int16_t)(uint16_t)(p[0] | (p[1] << 8));
}

static void wr_i16(uint8_t *p, int v)
{
	uint16_t u = (uint16_t)v;
	p[0] = (uint8_t)(u & 0xff);
	p[1] = (uint8_t)(u >> 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ggml's nearest_int: the low 23 bits of f + 1.5 * 2^23, less 2^22. */
static int nearest_int(float f)
{
	float v = f + 12582912.f;
	int32_t i;
	memcpy(&i, &v, 4);
	return (i & 0x007fffff) - 0x00400000;
}

/* A C conversion of an int to uint8_t / int8_t (modulo 256). */
static uint8_t u8(int v)
{
	return (uint8_t)(unsigned)v;
}

static int8_t i8(int v)
{
	unsigned u = (unsigned)v & 0xffu;
	return (int8_t)(u >= 128 ? (int)u - 256 : (int)u);
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/* ---- Q4_0 .. Q8_1: blocks of 32 ---- */

/* The value of largest magnitude (the first such), as quantize_row_q4_0_ref / q5_0 pick it. */
static float signed_absmax(const float *x, int n)
{
	float amax = 0.0f, max = 0.0f;
	for (int j = 0; j < n; j++)
		if (amax < fabsf(x[j])) {
			amax = fabsf(x[j]);
			max = x[j];
		}
	return max;
}

/* quantize_row_q4_0_ref (nmax 8) and quantize_row_q5_0_ref (nmax 16), one block. */
static void quant_q4_0_q5_0(const float *x, uint8_t *b, int five)
{
	const float max = signed_absmax(x, QK);
	const float d = five ? max / -16 : max / -8;
	const float id = d != 0.0f ? 1.0f / d : 0.0f;
	wr16(b, d);
	uint32_t qh = 0;
	uint8_t *qs = b + (five ? 6 : 2);
	for (int j = 0; j < QK / 2; j++) {
		const float x0 = x[j] * id, x1 = x[j + QK / 2] * id;
		/* (int8_t)(x0 + 8.5f): truncation of a value in [0.5, 16.5] */
		int q0 = (int)(x0 + (five ? 16.5f : 8.5f)), q1 = (int)(x1 + (five ? 16.5f : 8.5f));
		q0 = imin(five ? 31 : 15, q0);
		q1 = imin(five ? 31 : 15, q1);
		qs[j] = (uint8_t)((q0 & 0x0f) | ((q1 & 0x0f) << 4));
		qh |= (uint32_t)((q0 & 0x10) >> 4) << j;
		qh |= (uint32_t)((q1 & 0x10) >> 4) << (j + QK / 2);
	}
	if (five)
		for (int k = 0; k < 4; k++)
			b[2 + k] = (uint8_t)(qh >> (8 * k));
}

/* quantize_row_q4_1_ref and quantize_row_q5_1_ref, one block. */
static void quant_q4_1_q5_1(const float *x, uint8_t *b, int five)
{
	float min = FLT_MAX, max = -FLT_MAX;
	for (int j = 0; j < QK; j++) {
		if (x[j] < min)
			min = x[j];
		if (x[j] > max)
			max = x[j];
	}
	const float d = (max - min) / (five ? 31 : 15);
	const float id = d != 0.0f ? 1.0f / d : 0.0f;
	wr16(b, d);
	wr16(b + 2, min);
	uint32_t qh = 0;
	uint8_t *qs = b + (five ? 8 : 4);
	for (int j = 0; j < QK / 2; j++) {
		const float x0 = (x[j] - min) * id, x1 = (x[j + QK / 2] - min) * id;
		int q0 = (int)(x0 + 0.5f), q1 = (int)(x1 + 0.5f);
		if (!five) { /* Q4_1 clamps at 15; Q5_1 converts to uint8_t without a clamp */
			q0 = imin(15, q0);
			q1 = imin(15, q1);
		}
		q0 = u8(q0);
		q1 = u8(q1);
		qs[j] = (uint8_t)((q0 & 0x0f) | ((q1 & 0x0f) << 4));
		qh |= (uint32_t)((q0 & 0x10) >> 4) << j;
		qh |= (uint32_t)((q1 & 0x10) >> 4) << (j + QK / 2);
	}
	if (five)
		for (int k = 0; k < 4; k++)
			b[4 + k] = (uint8_t)(qh >> (8 * k));
}

/* quantize_row_q8_0_ref and quantize_row_q8_1_ref (s = fp16(sum * d)), one block. */
static void quant_q8(const float *x, uint8_t *b, int with_sum)
{
	float amax = 0.0f;
	for (int j = 0; j < QK; j++)
		amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]); /* MAX(amax, fabsf(v)) */
	const float d = amax / ((1 << 7) - 1);
	const float id = d != 0.0f ? 1.0f / d : 0.0f;
	wr16(b, d);
	int8_t *qs = (int8_t *)(b + (with_sum ? 4 : 2));
	int sum = 0;
	for (int j = 0; j < QK; j++) {
		qs[j] = (int8_t)roundf(x[j] * id); /* |x * id| <= 127 (+ rounding) */
		sum += qs[j];
	}
	if (with_sum)
		wr16(b + 2, (float)sum * d);
}

/* ---- K-quant helpers (ggml-quants.c), without importance weights ---- */

/* make_qkx2_quants: an asymmetric grid [min, min + nmax * scale] for n values with weights,
 * searched over nstep + 1 candidate scales; L gets the levels, *the_min = -min. */
static float make_qkx2_quants(int n, int nmax, const float *x, const float *weights, uint8_t *L,
                              float *the_min, uint8_t *Laux, float rmin, float rdelta, int nstep,
                              int use_mad)
{
	float min = x[0], max = x[0];
	float sum_w = weights[0];
	float sum_x = sum_w * x[0];
	for (int i = 1; i < n; i++) {
		if (x[i] < min)
			min = x[i];
		if (x[i] > max)
			max = x[i];
		const float w = weights[i];
		sum_w += w;
		sum_x += w * x[i];
	}
	if (min > 0)
		min = 0;
	if (max == min) {
		memset(L, 0, (size_t)n);
		*the_min = -min;
		return 0.f;
	}
	float iscale = nmax / (max - min);
	float scale = 1 / iscale;
	float best = 0;
	for (int i = 0; i < n; i++) {
		const int l = nearest_int(iscale * (x[i] - min));
		L[i] = (uint8_t)imax(0, imin(nmax, l));
		float diff = scale * L[i] + min - x[i];
		diff = use_mad ? fabsf(diff) : diff * diff;
		best += weights[i] * diff;
	}
	if (nstep < 1) {
		*the_min = -min;
		return scale;
	}
	for (int is = 0; is <= nstep; is++) {
		iscale = (rmin + rdelta * is + nmax) / (max - min);
		float sum_l = 0, sum_l2 = 0, sum_xl = 0;
		for (int i = 0; i < n; i++) {
			int l = nearest_int(iscale * (x[i] - min));
			l = imax(0, imin(nmax, l));
			Laux[i] = (uint8_t)l;
			const float w = weights[i];
			sum_l += w * l;
			sum_l2 += w * l * l;
			sum_xl += w * l * x[i];
		}
		const float D = sum_w * sum_l2 - sum_l * sum_l;
		if (D > 0) {
			float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
			float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
			if (this_min > 0) {
				this_min = 0;
				this_scale = sum_xl / sum_l2;
			}
			float err = 0;
			for (int i = 0; i < n; i++) {
				float diff = this_scale * Laux[i] + this_min - x[i];
				diff = use_mad ? fabsf(diff) : diff * diff;
				err += weights[i] * diff;
			}
			if (err < best) {
				memcpy(L, Laux, (size_t)n);
				best = err;
				scale = this_scale;
				min = this_min;
			}
		}
	}
	*the_min = -min;
	return scale;
}

/* make_q3_quants with do_rmse: a symmetric grid of levels -nmax .. nmax - 1 (stored + nmax),
 * refined for 5 rounds one level at a time, weighted by x^2. */
static float make_q3_quants(int n, int nmax, const float *x, int8_t *L)
{
	const float max = signed_absmax(x, n), amax = fabsf(max);
	if (amax < GROUP_MAX_EPS) {
		memset(L, 0, (size_t)n);
		return 0.f;
	}
	const float iscale = -nmax / max;
	float sumlx = 0, suml2 = 0;
	for (int i = 0; i < n; i++) {
		int l = nearest_int(iscale * x[i]);
		l = imax(-nmax, imin(nmax - 1, l));
		L[i] = (int8_t)l;
		const float w = x[i] * x[i];
		sumlx += w * x[i] * l;
		suml2 += w * l * l;
	}
	for (int itry = 0; itry < 5; itry++) {
		int n_changed = 0;
		for (int i = 0; i < n; i++) {
			const float w = x[i] * x[i];
			float slx = sumlx - w * x[i] * L[i];
			if (slx > 0) {
				float sl2 = suml2 - w * L[i] * L[i];
				int new_l = nearest_int(x[i] * sl2 / slx);
				new_l = imax(-nmax, imin(nmax - 1, new_l));
				if (new_l != L[i]) {
					slx += w * x[i] * new_l;
					sl2 += w * new_l * new_l;
					if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
						L[i] = (int8_t)new_l;
						sumlx = slx;
						suml2 = sl2;
						n_changed++;
					}
				}
			}
		}
		if (!n_changed)
			break;
	}
	for (int i = 0; i < n; i++)
		L[i] = (int8_t)(L[i] + nmax);
	return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

/* make_qx_quants with rmse_type 1 and no importance weights (Q6_K): a symmetric grid of
 * levels -nmax .. nmax - 1 (stored + nmax), the best of 19 candidate scales, weights x^2. */
static float make_qx_quants(int n, int nmax, const float *x, int8_t *L)
{
	const float max = signed_absmax(x, n), amax = fabsf(max);
	if (amax < GROUP_MAX_EPS) {
		memset(L, 0, (size_t)n);
		return 0.f;
	}
	float iscale = -nmax / max;
	float sumlx = 0, suml2 = 0;
	for (int i = 0; i < n; i++) {
		int l = nearest_int(iscale * x[i]);
		l = imax(-nmax, imin(nmax - 1, l));
		L[i] = (int8_t)(l + nmax);
		const float w = x[i] * x[i];
		sumlx += w * x[i] * l;
		suml2 += w * l * l;
	}
	float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
	float best = scale * sumlx;
	for (int is = -9; is <= 9; is++) {
		if (is == 0)
			continue;
		iscale = -(nmax + 0.1f * is) / max;
		sumlx = suml2 = 0;
		for (int i = 0; i < n; i++) {
			int l = nearest_int(iscale * x[i]);
			l = imax(-nmax, imin(nmax - 1, l));
			const float w = x[i] * x[i];
			sumlx += w * x[i] * l;
			suml2 += w * l * l;
		}
		if (suml2 > 0 && sumlx * sumlx > best * suml2) {
			for (int i = 0; i < n; i++) {
				const int l = nearest_int(iscale * x[i]);
				L[i] = (int8_t)(nmax + imax(-nmax, imin(nmax - 1, l)));
			}
			scale = sumlx / suml2;
			best = scale * sumlx;
		}
	}
	return scale;
}

/* get_scale_min_k4: the 6-bit scale and min of sub-block j (0..7) of a Q4_K / Q5_K block's
 * 12 scale bytes q: j < 4: the low 6 bits of q[j] and q[j + 4]; j >= 4: the low (scale) and
 * high (min) nibble of q[j + 4] below the top 2 bits of q[j - 4] (scale) and q[j] (min). */
static void scale_min_k4(int j, const uint8_t *q, uint8_t *d, uint8_t *m)
{
	if (j < 4) {
		*d = q[j] & 63;
		*m = q[j + 4] & 63;
	} else {
		*d = (uint8_t)((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
		*m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
	}
}

/* The 6-bit scale of Q3_K sub-block j (0..15), minus 32: its low nibble is nibble j / 8 of
 * scales[j % 8], its top 2 bits bits 2 * (j / 4) of scales[8 + j % 4]. */
static int q3k_scale(const uint8_t *scales, int j)
{
	int lo = j < 8 ? scales[j] & 0xf : scales[j - 8] >> 4;
	int hi = (scales[8 + j % 4] >> (2 * (j / 4))) & 3;
	return (lo | (hi << 4)) - 32;
}

/* qs[64] of Q2_K / Q3_K: element j of each 128 in bits 2 * ((j % 128) / 32) of byte
 * (j / 128) * 32 + j % 32. */
static void pack_2bit(const uint8_t *L, uint8_t *qs)
{
	for (int j = 0; j < QK_K; j += 128)
		for (int l = 0; l < 32; l++)
			qs[j / 4 + l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 2) |
			                          (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
}

/* quantize_row_q2_K_ref, one super-block (84 bytes: scales, qs, d, dmin). */
static void quant_q2_k(const float *x, uint8_t *b)
{
	uint8_t L[QK_K], Laux[16], *sc = b, *qs = b + 16;
	float weights[16], mins[16], scales[16];
	const float q4scale = 15.f;
	float max_scale = 0, max_min = 0;
	for (int j = 0; j < 16; j++) {
		for (int l = 0; l < 16; l++)
			weights[l] = fabsf(x[16 * j + l]);
		scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux,
		                             -0.5f, 0.1f, 15, 1);
		if (scales[j] > max_scale)
			max_scale = scales[j];
		if (mins[j] > max_min)
			max_min = mins[j];
	}
	if (max_scale > 0) {
		const float iscale = q4scale / max_scale;
		for (int j = 0; j < 16; j++)
			sc[j] = u8(nearest_int(iscale * scales[j]));
		wr16(b + 80, max_scale / q4scale);
	} else {
		memset(sc, 0, 16);
		wr16(b + 80, 0.f);
	}
	if (max_min > 0) {
		const float iscale = q4scale / max_min;
		for (int j = 0; j < 16; j++)
			sc[j] = u8(sc[j] | (int)((unsigned)nearest_int(iscale * mins[j]) << 4));
		wr16(b + 82, max_min / q4scale);
	} else {
		wr16(b + 82, 0.f);
	}
	for (int j = 0; j < 16; j++) {
		const float d = rd16(b + 80) * (sc[j] & 0xf);
		if (d == 0.0f)
			continue; /* L keeps make_qkx2_quants's levels */
		const float dm = rd16(b + 82) * (sc[j] >> 4);
		for (int ii = 0; ii < 16; ii++) {
			const int l = nearest_int((x[16 * j + ii] + dm) / d);
			L[16 * j + ii] = (uint8_t)imax(0, imin(3, l));
		}
	}
	pack_2bit(L, qs);
}

/* quantize_row_q3_K_ref, one super-block (110 bytes: hmask, qs, scales, d). */
static void quant_q3_k(const float *x, uint8_t *b)
{
	int8_t L[QK_K];
	float scales[16];
	uint8_t *hmask = b, *qs = b + 32, *sc = b + 96;
	float max_scale = 0, amax = 0;
	for (int j = 0; j < 16; j++) {
		scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j);
		const float s = fabsf(scales[j]);
		if (s > amax) {
			amax = s;
			max_scale = scales[j];
		}
	}
	memset(sc, 0, 12);
	if (max_scale != 0.0f) {
		const float iscale = -32.f / max_scale;
		for (int j = 0; j < 16; j++) {
			int l = i8(
			        nearest_int(iscale * scales[j])); /* int8_t l = nearest_int(...) */
			l = imax(-32, imin(31, l)) + 32;
			if (j < 8)
				sc[j] = (uint8_t)(l & 0xf);
			else
				sc[j - 8] |= (uint8_t)((l & 0xf) << 4);
			l >>= 4;
			sc[j % 4 + 8] |= (uint8_t)(l << (2 * (j / 4)));
		}
		wr16(b + 108, 1 / iscale);
	} else {
		wr16(b + 108, 0.f);
	}
	for (int j = 0; j < 16; j++) {
		const float d = rd16(b + 108) * i8(q3k_scale(sc, j));
		if (d == 0.0f)
			continue;
		for (int ii = 0; ii < 16; ii++) {
			const int l = nearest_int(x[16 * j + ii] / d);
			L[16 * j + ii] = (int8_t)(imax(-4, imin(3, l)) + 4);
		}
	}
	/* the third bit: element j in bit j / 32 of hmask[j % 32] */
	memset(hmask, 0, 32);
	uint8_t low[QK_K];
	for (int j = 0; j < QK_K; j++) {
		int l = L[j];
		if (l > 3) {
			hmask[j % 32] |= (uint8_t)(1u << (j / 32));
			l -= 4;
		}
		low[j] = (uint8_t)l;
	}
	pack_2bit(low, qs);
}

/* quantize_row_q4_K_ref (five 0) and quantize_row_q5_K_ref (five 1), one super-block. */
static void quant_q45_k(const float *x, uint8_t *b, int five)
{
	uint8_t L[QK_K], Laux[32];
	float weights[32], mins[8], scales[8];
	const int nmax = five ? 31 : 15;
	uint8_t *sc = b + 4;
	float max_scale = 0, max_min = 0;
	for (int j = 0; j < 8; j++) {
		float sum_x2 = 0;
		for (int l = 0; l < 32; l++)
			sum_x2 += x[32 * j + l] * x[32 * j + l];
		const float av_x = sqrtf(sum_x2 / 32);
		for (int l = 0; l < 32; l++)
			weights[l] = av_x + fabsf(x[32 * j + l]);
		scales[j] = make_qkx2_quants(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j],
		                             Laux, five ? -0.5f : -1.f, 0.1f, five ? 15 : 20, 0);
		if (scales[j] > max_scale)
			max_scale = scales[j];
		if (mins[j] > max_min)
			max_min = mins[j];
	}
	const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
	const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
	for (int j = 0; j < 8; j++) {
		uint8_t ls = u8(nearest_int(inv_scale * scales[j]));
		uint8_t lm = u8(nearest_int(inv_min * mins[j]));
		ls = ls < 63 ? ls : 63;
		lm = lm < 63 ? lm : 63;
		if (j < 4) {
			sc[j] = ls;
			sc[j + 4] = lm;
		} else {
			sc[j + 4] = (uint8_t)((ls & 0xf) | ((lm & 0xf) << 4));
			sc[j - 4] |= (uint8_t)((ls >> 4) << 6);
			sc[j] |= (uint8_t)((lm >> 4) << 6);
		}
	}
	wr16(b, max_scale / 63.f);
	wr16(b + 2, max_min / 63.f);
	for (int j = 0; j < 8; j++) {
		uint8_t s, m;
		scale_min_k4(j, sc, &s, &m);
		const float d = rd16(b) * s;
		if (d == 0.0f)
			continue;
		const float dm = rd16(b + 2) * m;
		for (int ii = 0; ii < 32; ii++) {
			const int l = nearest_int((x[32 * j + ii] + dm) / d);
			L[32 * j + ii] = (uint8_t)imax(0, imin(nmax, l));
		}
	}
	/* element j of each 64: j < 32 the low nibble of qs[(j / 64) * 32 + j % 32], else the
	 * high; Q5_K's fifth bit in bit 2 * (j / 64) + (j % 64 >= 32) of qh[j % 32] */
	uint8_t *qh = five ? b + 16 : NULL, *q = b + (five ? 48 : 16);
	if (five)
		memset(qh, 0, 32);
	for (int n = 0; n < QK_K; n += 64) {
		for (int j = 0; j < 32; j++) {
			int l1 = L[n + j], l2 = L[n + j + 32];
			if (five && l1 > 15) {
				l1 -= 16;
				qh[j] |= (uint8_t)(1u << (n / 32));
			}
			if (five && l2 > 15) {
				l2 -= 16;
				qh[j] |= (uint8_t)(2u << (n / 32));
			}
			q[j] = (uint8_t)(l1 | (l2 << 4));
		}
		q += 32;
	}
}

/* quantize_row_q6_K_ref, one super-block (210 bytes: ql, qh, scales, d). */
static void quant_q6_k(const float *x, uint8_t *b)
{
	int8_t L[QK_K];
	float scales[16];
	uint8_t *ql = b, *qh = b + 128;
	int8_t *sc = (int8_t *)(b + 192);
	float max_scale = 0, max_abs_scale = 0;
	for (int ib = 0; ib < 16; ib++) {
		scales[ib] = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib);
		const float a = fabsf(scales[ib]);
		if (a > max_abs_scale) {
			max_abs_scale = a;
			max_scale = scales[ib];
		}
	}
	if (max_abs_scale < GROUP_MAX_EPS) {
		memset(b, 0, 210); /* d = fp16(0) is the zero bytes too */
		return;
	}
	const float iscale = -128.f / max_scale;
	wr16(b + 208, 1 / iscale);
	for (int ib = 0; ib < 16; ib++)
		sc[ib] = i8(imin(127, nearest_int(iscale * scales[ib])));
	for (int j = 0; j < 16; j++) {
		const float d = rd16(b + 208) * sc[j];
		if (d == 0.0f)
			continue;
		for (int ii = 0; ii < 16; ii++) {
			const int l = nearest_int(x[16 * j + ii] / d);
			L[16 * j + ii] = (int8_t)(imax(-32, imin(31, l)) + 32);
		}
	}
	/* element j of each 128 (r = j % 128, l = r % 32, part = r / 32): low 4 bits in
	 * ql[64 * (j / 128) + l + 32 * (part & 1)], low nibble for part < 2, high nibble
	 * otherwise; top 2 bits in bits 2 * part of qh[32 * (j / 128) + l] */
	for (int j = 0; j < QK_K; j += 128) {
		for (int l = 0; l < 32; l++) {
			const uint8_t q1 = L[j + l] & 0xf, q2 = L[j + l + 32] & 0xf;
			const uint8_t q3 = L[j + l + 64] & 0xf, q4 = L[j + l + 96] & 0xf;
			ql[l] = (uint8_t)(q1 | (q3 << 4));
			ql[l + 32] = (uint8_t)(q2 | (q4 << 4));
			qh[l] = (uint8_t)((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) |
			                  ((L[j + l + 64] >> 4) << 4) |
			                  ((L[j + l + 96] >> 4) << 6));
		}
		ql += 64;
		qh += 32;
	}
}

/* quantize_row_q8_K_ref, one super-block (292 bytes: d f32, qs, bsums). An all-zero block
 * gets d 0 and qs 0; ggml leaves its bsums as they were (its buffer's previous bytes): the
 * reference writes 0, what they sum to, and the comparison requires that. */
static void quant_q8_k(const float *x, uint8_t *b)
{
	const float max = signed_absmax(x, QK_K), amax = fabsf(max);
	int8_t *qs = (int8_t *)(b + 4);
	if (amax == 0.0f) {
		memset(b, 0, 292);
		return;
	}
	const float iscale = -127.f / max;
	for (int j = 0; j < QK_K; j++)
		qs[j] = i8(imin(127, nearest_int(iscale * x[j])));
	for (int g = 0; g < 16; g++) {
		int sum = 0;
		for (int ii = 0; ii < 16; ii++)
			sum += qs[16 * g + ii];
		wr_i16(b + 260 + 2 * g, sum);
	}
	wrf32(b, 1 / iscale);
}

int qref_ggml_quantize_row(qcf_dtype t, const float *x, void *dst, size_t n)
{
	const size_t qk = qcf_ggml_block_elements(t), bytes = qcf_ggml_block_bytes(t);
	if (!qk || n % qk)
		return -1;
	uint8_t *b = dst;
	for (size_t i = 0; i < n / qk; i++, x += qk, b += bytes) {
		switch (t) {
		case QCF_GGML_Q4_0: quant_q4_0_q5_0(x, b, 0); break;
		case QCF_GGML_Q5_0: quant_q4_0_q5_0(x, b, 1); break;
		case QCF_GGML_Q4_1: quant_q4_1_q5_1(x, b, 0); break;
		case QCF_GGML_Q5_1: quant_q4_1_q5_1(x, b, 1); break;
		case QCF_GGML_Q8_0: quant_q8(x, b, 0); break;
		case QCF_GGML_Q8_1: quant_q8(x, b, 1); break;
		case QCF_GGML_Q2_K: quant_q2_k(x, b); break;
		case QCF_GGML_Q3_K: quant_q3_k(x, b); break;
		case QCF_GGML_Q4_K: quant_q45_k(x, b, 0); break;
		case QCF_GGML_Q5_K: quant_q45_k(x, b, 1); break;
		case QCF_GGML_Q6_K: quant_q6_k(x, b); break;
		case QCF_GGML_Q8_K: quant_q8_k(x, b); break;
		default: return -1;
		}
	}
	return 0;
}

/* ---- values: dequantize_row_*, one element at a time ---- */

/*
 * Element j's integer q, its float factor f and offset o, so that its value is f * q - o
 * (Q4_1 / Q5_1: f * q + m, as o = -m) with the float32 operations of dequantize_row_<t>.
 * Returns the kind of expression: 0: f * q; 1: f * q + m (o holds m); 2: f * q - o.
 */
static int element_terms(qcf_dtype t, const uint8_t *b, int j, float *f, int *q, float *o)
{
	*o = 0;
	const int lo = j % 16, hi = j >= 16; /* Q4_0..Q5_1: qs[j % 16], nibble j / 16 */
	switch (t) {
	case QCF_GGML_Q4_0:
		*f = rd16(b);
		*q = (hi ? b[2 + lo] >> 4 : b[2 + lo] & 0xf) - 8;
		return 0;
	case QCF_GGML_Q4_1:
		*f = rd16(b);
		*o = rd16(b + 2);
		*q = hi ? b[4 + lo] >> 4 : b[4 + lo] & 0xf;
		return 1;
	case QCF_GGML_Q5_0:
		*f = rd16(b);
		*q = ((hi ? b[6 + lo] >> 4 : b[6 + lo] & 0xf) |
		      (int)(((rd32(b + 2) >> j) & 1) << 4)) -
		     16;
		return 0;
	case QCF_GGML_Q5_1:
		*f = rd16(b);
		*o = rd16(b + 2);
		*q = (hi ? b[8 + lo] >> 4 : b[8 + lo] & 0xf) | (int)(((rd32(b + 4) >> j) & 1) << 4);
		return 1;
	case QCF_GGML_Q8_0:
		*f = rd16(b);
		*q = (int8_t)b[2 + j];
		return 0;
	case QCF_GGML_Q8_1:
		*f = rd16(b);
		*q = (int8_t)b[4 + j];
		return 0;
	case QCF_GGML_Q8_K:
		*f = rdf32(b);
		*q = (int8_t)b[4 + j];
		return 0;
	case QCF_GGML_Q2_K: {
		const uint8_t sc = b[j / 16];
		const int byte = 16 + 32 * (j / 128) + j % 32, shift = 2 * ((j % 128) / 32);
		*f = rd16(b + 80) * (sc & 0xf);
		*o = rd16(b + 82) * (sc >> 4);
		*q = (b[byte] >> shift) & 3;
		return 2;
	}
	case QCF_GGML_Q3_K: {
		const int byte = 32 + 32 * (j / 128) + j % 32, shift = 2 * ((j % 128) / 32);
		const int high = (b[j % 32] >> (j / 32)) & 1;
		*f = rd16(b + 108) * q3k_scale(b + 96, j / 16);
		*q = ((b[byte] >> shift) & 3) - (high ? 0 : 4);
		return 0;
	}
	case QCF_GGML_Q4_K:
	case QCF_GGML_Q5_K: {
		const int five = t == QCF_GGML_Q5_K, r = j % 64;
		uint8_t s, m;
		scale_min_k4(j / 32, b + 4, &s, &m);
		*f = rd16(b) * s;
		*o = rd16(b + 2) * m;
		const uint8_t byte = b[(five ? 48 : 16) + 32 * (j / 64) + r % 32];
		*q = r < 32 ? byte & 0xf : byte >> 4;
		if (five && (b[16 + r % 32] >> (j / 32)) & 1)
			*q += 16;
		return 2;
	}
	case QCF_GGML_Q6_K: {
		const int n = j / 128, r = j % 128, l = r % 32, part = r / 32;
		const uint8_t lowb = b[64 * n + l + 32 * (part & 1)];
		const int low = part < 2 ? lowb & 0xf : lowb >> 4;
		const int top = (b[128 + 32 * n + l] >> (2 * part)) & 3;
		*f = rd16(b + 208) * (int8_t)b[192 + j / 16];
		*q = (low | (top << 4)) - 32;
		return 0;
	}
	default: *f = 0, *q = 0; return 0;
	}
}

float qref_ggml_block_value(qcf_dtype t, const void *block, int j)
{
	float f, o;
	int q;
	switch (element_terms(t, block, j, &f, &q, &o)) {
	case 1: return f * q + o;
	case 2: return f * q - o;
	default: return f * q;
	}
}

double qref_ggml_block_step(qcf_dtype t, const void *block, int j)
{
	float f, o;
	int q;
	element_terms(t, block, j, &f, &q, &o);
	return fabs((double)f);
}

int qref_ggml_dequantize_row(qcf_dtype t, const void *src, float *y, size_t n)
{
	const size_t qk = qcf_ggml_block_elements(t), bytes = qcf_ggml_block_bytes(t);
	if (!qk || n % qk)
		return -1;
	const uint8_t *b = src;
	for (size_t i = 0; i < n; i++)
		y[i] = qref_ggml_block_value(t, b + i / qk * bytes, (int)(i % qk));
	return 0;
}

double qref_ggml_get(const qcf_tensor *t, size_t i)
{
	const size_t qk = qcf_ggml_block_elements(t->dtype);
	if (!qk)
		return 0;
	const uint8_t *b = (const uint8_t *)t->data + i / qk * qcf_ggml_block_bytes(t->dtype);
	return qref_ggml_block_value(t->dtype, b, (int)(i % qk));
}

/* ---- vec_dot ---- */

qcf_dtype qref_ggml_vec_dot_type(qcf_dtype t)
{
	switch (t) {
	case QCF_GGML_Q4_0:
	case QCF_GGML_Q5_0:
	case QCF_GGML_Q8_0: return QCF_GGML_Q8_0;
	case QCF_GGML_Q4_1:
	case QCF_GGML_Q5_1: return QCF_GGML_Q8_1;
	case QCF_GGML_Q2_K:
	case QCF_GGML_Q3_K:
	case QCF_GGML_Q4_K:
	case QCF_GGML_Q5_K:
	case QCF_GGML_Q6_K: return QCF_GGML_Q8_K;
	default: return QCF_DTYPE_INVALID;
	}
}

/* The integers of one weight block, in element order (the a[] / aux8[] of the generic
 * vec_dots: Q4_1 / Q5_1 without their min, the K-quants without the sub-block scales). */
static void block_ints(qcf_dtype t, const uint8_t *b, int qk, int *q)
{
	float f, o;
	for (int j = 0; j < qk; j++) {
		element_terms(t, b, j, &f, &q[j], &o);
		if (t == QCF_GGML_Q2_K) /* a bare 2-bit level */
			q[j] = (b[16 + 32 * (j / 128) + j % 32] >> (2 * ((j % 128) / 32))) & 3;
	}
}

/* The integer sub-block scale of element j of a K-quant block (as the generic vec_dot
 * multiplies it in: Q2_K's low nibble, Q3_K's scale - 32, Q4_K / Q5_K's 6-bit scale, Q6_K's
 * int8 scale). */
static int kscale(qcf_dtype t, const uint8_t *b, int j)
{
	uint8_t s, m;
	switch (t) {
	case QCF_GGML_Q2_K: return b[j / 16] & 0xf;
	case QCF_GGML_Q3_K: return q3k_scale(b + 96, j / 16);
	case QCF_GGML_Q4_K:
	case QCF_GGML_Q5_K: scale_min_k4(j / 32, b + 4, &s, &m); return s;
	case QCF_GGML_Q6_K: return (int8_t)b[192 + j / 16];
	default: return 0;
	}
}

/* The integer sub-block min of element j of a Q2_K / Q4_K / Q5_K block. */
static int kmin(qcf_dtype t, const uint8_t *b, int j)
{
	uint8_t s, m;
	if (t == QCF_GGML_Q2_K)
		return b[j / 16] >> 4;
	scale_min_k4(j / 32, b + 4, &s, &m);
	return m;
}

float qref_ggml_vec_dot(qcf_dtype t, size_t n, const void *w, const void *a, double *bound)
{
	const qcf_dtype at = qref_ggml_vec_dot_type(t);
	const size_t qk = qcf_ggml_block_elements(t), wb = qcf_ggml_block_bytes(t),
	             ab = qcf_ggml_block_bytes(at);
	const uint8_t *x = w, *y = a;
	float sumf = 0;
	double mag = 0; /* sum of |every float product| */
	size_t terms = 0;
	int q[QK_K];
	if (!qk || at == QCF_DTYPE_INVALID) {
		if (bound)
			*bound = 0;
		return 0;
	}
	if (qk == QK) {
		for (size_t ib = 0; ib < n / qk; ib++, x += wb, y += ab) {
			const int8_t *q8 = (const int8_t *)(y + (at == QCF_GGML_Q8_1 ? 4 : 2));
			block_ints(t, x, QK, q);
			int sumi0 = 0, sumi1 = 0;
			for (int j = 0; j < QK / 2; j++) {
				sumi0 += q[j] * q8[j];
				sumi1 += q[j + QK / 2] * q8[j + QK / 2];
			}
			const int sumi = sumi0 + sumi1;
			const float dx = rd16(x), dy = rd16(y);
			switch (t) {
			case QCF_GGML_Q4_0: sumf += sumi * dx * dy; break;
			case QCF_GGML_Q5_0: sumf += (dx * dy) * sumi; break;
			case QCF_GGML_Q8_0: sumf += sumi * (dx * dy); break;
			default: /* Q4_1, Q5_1 with Q8_1: the min times Q8_1's s */
				sumf += (dx * dy) * sumi + rd16(x + 2) * rd16(y + 2);
				mag += fabs((double)rd16(x + 2) * rd16(y + 2));
				terms++;
				break;
			}
			mag += fabs((double)sumi * dx * dy);
			terms++;
		}
	} else {
		float sums[8] = {0};
		for (size_t i = 0; i < n / qk; i++, x += wb, y += ab) {
			const float yd = rdf32(y);
			const int8_t *q8 = (const int8_t *)(y + 4);
			block_ints(t, x, QK_K, q);
			if (t == QCF_GGML_Q2_K) {
				/* ggml_vec_dot_q2_K_q8_K_generic: one integer sum per super-block
				 */
				int summs = 0, isum = 0;
				for (int g = 0; g < 16; g++)
					summs += rd_i16(y + 260 + 2 * g) * kmin(t, x, 16 * g);
				for (int g = 0; g < 16; g++) {
					int isuml = 0;
					for (int l = 0; l < 16; l++)
						isuml += q8[16 * g + l] * q[16 * g + l];
					isum += kscale(t, x, 16 * g) * isuml;
				}
				const float dall = yd * rd16(x + 80), dmin = yd * rd16(x + 82);
				sumf += dall * isum - dmin * summs;
				mag += fabs((double)dall * isum) + fabs((double)dmin * summs);
				terms += 2;
				continue;
			}
			/* Q3_K..Q6_K: eight integer lanes (element e in lane e % 8), scaled per
			 * sub-block, then eight float lanes across super-blocks */
			int32_t aux32[8] = {0};
			for (int e = 0; e < QK_K; e++)
				aux32[e % 8] += kscale(t, x, e) * (int16_t)(q8[e] * q[e]);
			const float d = (t == QCF_GGML_Q6_K   ? rd16(x + 208)
			                 : t == QCF_GGML_Q3_K ? rd16(x + 108)
			                                      : rd16(x)) *
			                yd;
			for (int l = 0; l < 8; l++) {
				sums[l] += d * aux32[l];
				mag += fabs((double)d * aux32[l]);
			}
			terms += 8;
			if (t == QCF_GGML_Q4_K || t == QCF_GGML_Q5_K) {
				int sumi = 0;
				for (int g = 0; g < 16; g++)
					sumi += rd_i16(y + 260 + 2 * g) * kmin(t, x, 16 * g);
				const float dmin = rd16(x + 2) * yd;
				sumf -= dmin * sumi;
				mag += fabs((double)dmin * sumi);
				terms++;
			}
		}
		for (int l = 0; l < 8; l++)
			sumf += sums[l];
	}
	/* Any order of `terms` float additions of products of up to three float factors, each
	 * rounded once per operation, lies within gamma(terms + 2) * mag of the exact sum
	 * (Higham, Accuracy and Stability of Numerical Algorithms, 3.1 and 4.2); two such
	 * results lie within twice that of each other. */
	if (bound) {
		const double u = 0x1p-24, k = (double)terms + 2;
		*bound = 2 * (k * u / (1 - k * u)) * mag;
	}
	return sumf;
}

/* ---- comparison ---- */

/* Q8_1's s and Q8_K's bsums[g] covering element j of a block: 0 when got's equals
 * expected's, else the sign of got - expected. */
static int aux_diff(qcf_dtype t, const uint8_t *be, const uint8_t *bg, int j)
{
	if (t == QCF_GGML_Q8_1) {
		const float se = rd16(be + 2), sg = rd16(bg + 2);
		if (se == sg || (isnan(se) && isnan(sg)))
			return 0;
		return sg > se ? 1 : -1;
	}
	if (t == QCF_GGML_Q8_K) {
		const int off = 260 + 2 * (j / 16);
		const int se = rd_i16(be + off), sg = rd_i16(bg + off);
		return sg == se ? 0 : sg > se ? 1 : -1;
	}
	return 0;
}

double qref_ggml_error(const qcf_tensor *expected, const qcf_tensor *got, size_t i)
{
	const qcf_dtype t = expected->dtype;
	const size_t qk = qcf_ggml_block_elements(t), bytes = qcf_ggml_block_bytes(t);
	if (!qk || got->dtype != t)
		return NAN;
	const uint8_t *be = (const uint8_t *)expected->data + i / qk * bytes;
	const uint8_t *bg = (const uint8_t *)got->data + i / qk * bytes;
	const int j = (int)(i % qk);
	const double ve = qref_ggml_block_value(t, be, j), vg = qref_ggml_block_value(t, bg, j);
	double e = 0;
	if (!(ve == vg || (isnan(ve) && isnan(vg)))) {
		if (!isfinite(ve) || !isfinite(vg))
			return NAN;
		double step = qref_ggml_block_step(t, be, j);
		if (!(step > 0)) { /* float32 ulp of the expected value */
			const float fe = fabsf((float)ve);
			step = (double)nextafterf(fe, INFINITY) - fe;
		}
		e = (vg - ve) / step;
	}
	const int a = aux_diff(t, be, bg, j);
	if (a && fabs(e) < 1)
		e = a;
	return e;
}

int qref_ggml_fill(qcf_tensor *t, const float *x)
{
	const size_t qk = qcf_ggml_block_elements(t->dtype);
	if (!qk || t->rank < 1 || !t->shape || t->shape[t->rank - 1] % (int64_t)qk)
		return -1;
	const size_t n = (size_t)qcf_numel(t);
	if (n && (!t->data || t->nbytes < qcf_dtype_nbytes(t->dtype, n)))
		return -1;
	return n ? qref_ggml_quantize_row(t->dtype, x, t->data, n) : 0;
}
