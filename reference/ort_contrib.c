/*
 * ONNX Runtime's com.microsoft quantization ops that LLM exports use (specs/ort/OPERATORS.md):
 * MatMulNBits, GatherBlockQuantized and DequantizeLinear, semantics "ort".
 *
 * Definitions: microsoft/onnxruntime ContribOperators.md in its docs folder and
 * onnxruntime/core/graph/contrib_ops/contrib_defs.cc (schemas); the CPU kernels
 * onnxruntime/contrib_ops/cpu/quantization/matmul_nbits.cc, gather_block_quantized.cc,
 * quantize_ops.cc (with onnxruntime/core/providers/cpu/quantization/quantize_linear.cc), and
 * MLAS's blocked n-bit GEMM (onnxruntime/core/mlas/lib/qnbitgemm.cpp, sqnbitgemm_kernel_avx2.cpp
 * QuantizeARow_CompInt8_avx2).
 *
 * MatMulNBits: Y[m][n] = sum_k A[m][k] * B[n][k] (+ bias[n]), B[n][k] = (q[n][k] -
 * zp[n][k / block_size]) * scales[n][k / block_size]; q packed in B [N, k_blocks, blob_size]
 * low bits first; zero_points [N, ceil(k_blocks * bits / 8)] packed the same way, default
 * 2^(bits - 1) when absent. ORT's CPU kernel computes in float32 (float16 A is converted to
 * float32, the result back); accuracy_level 4 (CompInt8) first quantizes each block of
 * block_size elements of a row of A to int8: scale_a = amax / 127, q_a = round half to even (a *
 * (127 / amax)), both float32; then each block contributes scale_a * scale_b * sum q_a (q_b -
 * zp). This kernel computes exactly that, in double, and rounds once to float32. MLAS sums
 * in float32, in an order that depends on the ISA's kernel, and may add the zero point's part
 * as a term of its own (CompInt8 through the block sums of A), so each element gets the band
 * of every such sum (nbits_bound: gamma(n + c) times the sum of the parts' magnitudes, plus a
 * neighbouring int8 of A where a * 127 / amax is at a tie); data whose every partial sum is
 * exact in float32 (the "exact" goldens) keeps a width of 0. specs/ort/OPERATORS.md, "The
 * bound".
 *
 * GatherBlockQuantized: Gather along gather_axis, each gathered element dequantized as
 * T(float(q - zp) * float(scale)), the scale of block (coordinate[quantize_axis] / block_size).
 *
 * DequantizeLinear (com.microsoft): y = float(x - zp) * scale in float32, per tensor or along
 * the attribute axis (default 1).
 *
 * QuantizeLinear (com.microsoft): y = saturate(nearbyintf(x / scale) + zp), the quotient in
 * float32 (MlasQuantizeLinear), per tensor or along the attribute axis (default 1).
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

static const char *tn(qcf_dtype t)
{
	return qref_dtype_name(t);
}

static int is_pow2_ge16(int64_t v)
{
	return v >= 16 && (v & (v - 1)) == 0;
}

/* Inputs past the required ones must each be one of the names given (NULL-terminated). */
static qcf_status optional_names(const qcf_op_call *call, int first, const char *const *names,
                                 qref_detail *d)
{
	for (int i = first; i < call->n_inputs; i++) {
		const char *n = call->inputs[i].name ? call->inputs[i].name : "";
		int ok = 0;
		for (int k = 0; names[k]; k++)
			ok |= strcmp(n, names[k]) == 0;
		if (!ok)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: optional input %d is named '%s': ORT's optional inputs are "
			        "told apart by name (%s%s%s)",
			        call->op, i, n, names[0], names[1] ? ", " : "",
			        names[1] ? names[1] : "");
	}
	return QCF_OK;
}

static qcf_status need_int_attr(const qcf_op_call *call, const char *name, int required,
                                int64_t def, int64_t *out, qref_detail *d)
{
	int r = qref_attr_int(call, name, out);
	if (r < 0)
		return qref_fail_attr(d, name, QCF_INVALID_PARAM, "%s: %s must be an integer",
		                      call->op, name);
	if (r == 0) {
		if (required)
			return qref_fail_attr(d, name, QCF_INVALID_PARAM,
			                      "%s: attribute %s is required", call->op, name);
		*out = def;
	}
	return QCF_OK;
}

/* ---- MatMulNBits ------------------------------------------------------------------------ */

typedef struct nbits_call {
	const qcf_tensor *a, *b, *scales, *zp, *bias;
	qcf_tensor *y;
	int64_t K, N, bits, bs, level, kb, blob, rows;
} nbits_call;

static qcf_status nbits_check(const qcf_op_call *call, nbits_call *p, qref_detail *d)
{
	static const char *const opt[] = {"zero_points", "bias", NULL};
	if (call->n_inputs < 3 || call->n_inputs > 5 || call->n_outputs != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s takes 3 to 5 inputs (a, b, scales, zero_points, bias) and one "
		                 "output, got %" PRId32 " and %" PRId32 "",
		                 call->op, call->n_inputs, call->n_outputs);
	qcf_status s = qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK || (s = optional_names(call, 3, opt, d)) != QCF_OK)
		return s;
	memset(p, 0, sizeof *p);
	p->a = &call->inputs[0];
	p->b = &call->inputs[1];
	p->scales = &call->inputs[2];
	p->zp = qref_input_named(call, 3, "zero_points");
	p->bias = qref_input_named(call, 3, "bias");
	p->y = &call->outputs[0];
	if ((s = need_int_attr(call, "K", 1, 0, &p->K, d)) != QCF_OK ||
	    (s = need_int_attr(call, "N", 1, 0, &p->N, d)) != QCF_OK ||
	    (s = need_int_attr(call, "bits", 0, 4, &p->bits, d)) != QCF_OK ||
	    (s = need_int_attr(call, "block_size", 1, 0, &p->bs, d)) != QCF_OK ||
	    (s = need_int_attr(call, "accuracy_level", 0, 0, &p->level, d)) != QCF_OK)
		return s;
	if (p->K < 1 || p->N < 1 || p->K > INT32_MAX || p->N > INT32_MAX)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: K and N must be >= 1, got %lld and %lld", call->op,
		                 (long long)p->K, (long long)p->N);
	if (p->bits == 2)
		return qref_fail_attr(d, "bits", QCF_NOT_SUPPORTED,
		                      "%s: bits 2 is not implemented (no ORT golden checks it)",
		                      call->op);
	if (p->bits != 4 && p->bits != 8)
		return qref_fail_attr(d, "bits", QCF_INVALID_PARAM,
		                      "%s: bits must be 4 or 8, got %lld", call->op,
		                      (long long)p->bits);
	if (!is_pow2_ge16(p->bs))
		return qref_fail_attr(d, "block_size", QCF_INVALID_PARAM,
		                      "%s: block_size must be a power of 2 and >= 16, got %lld",
		                      call->op, (long long)p->bs);
	/* accuracy_level: ORT reads it without a range check and computes every value but 4 as
	 * level 0 (matmul_nbits.cc GetComputeType: SQNBIT_CompFp32), so neither does this */
	qcf_dtype T = p->a->dtype;
	if (T != QCF_FLOAT32 && T != QCF_FLOAT16)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: A must be float32 or float16, got %s",
		                 call->op, tn(T));
	if (p->scales->dtype != T || p->y->dtype != T || (p->bias && p->bias->dtype != T))
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: scales, bias and Y have A's type (%s), got %s, %s and %s",
		                 call->op, tn(T), tn(p->scales->dtype),
		                 p->bias ? tn(p->bias->dtype) : "-", tn(p->y->dtype));
	if (p->a->rank < 1 || p->a->shape[p->a->rank - 1] != p->K)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: A's last dimension must be K = %lld",
		                 call->op, (long long)p->K);
	p->kb = (p->K + p->bs - 1) / p->bs;
	p->blob = p->bs * p->bits / 8;
	if (p->b->dtype != QCF_UINT8 || p->b->rank != 3 || p->b->shape[0] != p->N ||
	    p->b->shape[1] != p->kb || p->b->shape[2] != p->blob)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: B must be uint8 [N, k_blocks, blob_size] = [%lld, %lld, %lld]",
		        call->op, (long long)p->N, (long long)p->kb, (long long)p->blob);
	if ((int64_t)qref_tensor_numel(p->scales) != p->N * p->kb)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: scales must hold N * k_blocks = %lld values", call->op,
		                 (long long)(p->N * p->kb));
	if (p->zp) {
		if (p->zp->dtype == T)
			return qref_fail(
			        d, QCF_NOT_SUPPORTED,
			        "%s: zero_points of A's type (unpacked) are not implemented",
			        call->op);
		if (p->zp->dtype != QCF_UINT8)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: zero_points must be uint8 (packed), got %s", call->op,
			                 tn(p->zp->dtype));
		int64_t per = (p->kb * p->bits + 7) / 8;
		if ((int64_t)qref_tensor_numel(p->zp) != p->N * per)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: zero_points must hold N * ceil(k_blocks * bits / 8) = %lld "
			        "bytes",
			        call->op, (long long)(p->N * per));
	}
	if (p->bias && (int64_t)qref_tensor_numel(p->bias) != p->N)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: bias must hold N = %lld values",
		                 call->op, (long long)p->N);
	p->rows = (int64_t)(qref_tensor_numel(p->a) / (size_t)p->K);
	if (p->y->rank != p->a->rank || p->y->shape[p->y->rank - 1] != p->N)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: Y must be A's shape with the last dimension N",
		                        call->op);
	for (int32_t k = 0; k + 1 < p->a->rank; k++)
		if (p->y->shape[k] != p->a->shape[k])
			return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
			                        "%s: Y must be A's shape with the last dimension N",
			                        call->op);
	return QCF_OK;
}

/* q[n][k] from B: byte (k % bs) * bits / 8 of block k / bs, low bits first. */
static int32_t nbits_q(const nbits_call *p, int64_t n, int64_t k)
{
	const uint8_t *b = p->b->data;
	int64_t i = k % p->bs, bit = i * p->bits;
	uint8_t byte = b[(n * p->kb + k / p->bs) * p->blob + bit / 8];
	return (byte >> (bit % 8)) & ((1 << p->bits) - 1);
}

/* zero point of block j of row n; 2^(bits - 1) without zero_points */
static int32_t nbits_zp(const nbits_call *p, int64_t n, int64_t j)
{
	if (!p->zp)
		return 1 << (p->bits - 1);
	const uint8_t *z = p->zp->data;
	int64_t per = (p->kb * p->bits + 7) / 8, bit = j * p->bits;
	return (z[n * per + bit / 8] >> (bit % 8)) & ((1 << p->bits) - 1);
}

/*
 * The float32 sums ORT may compute for one output element, as a bound around the exact value
 * of the level's model (specs/ort/OPERATORS.md, "The bound"). A term is what MLAS sums: level 0
 * a[k] * (q - zp) * scale, level 4 scale_a * scale_b * sum q_a (q - zp) per block; either may be
 * formed with the zero point as a term of its own (q * scale and zp * scale, or sum q_a q and zp
 * sum q_a: MLAS's CompInt8 adds the zero-point correction through the block sums of A), so the
 * magnitudes are those of the two parts, which need not cancel when their difference does.
 * The bound itself (qref_sum_bound, linear_geom.h) is shared with MatMulFpQ4.
 */

/* exponent of v's lowest set bit (v a non-zero double) */
static int lsb_exp(double v)
{
	int e;
	double m = frexp(fabs(v), &e); /* [0.5, 1) * 2^e */
	int z = 0;
	double w = ldexp(m, 53); /* an integer below 2^53 */
	while (z < 53 && fmod(w, 2.0) == 0)
		w /= 2, z++;
	return e - 53 + z;
}

void qref_sum_part(qref_sum_bound *b, double v, double p1, double p2)
{
	b->n++;
	b->mag += fabs(v);
	if ((double)(float)p1 != p1 || (double)(float)p2 != p2 || (double)(float)v != v)
		b->exact = 0;
	else if (v != 0) {
		int e = lsb_exp(v);
		b->emin = e < b->emin ? e : b->emin;
	}
}

double qref_sum_width(const qref_sum_bound *b, int c)
{
	if (b->exact && b->extra == 0 && (b->mag == 0 || b->mag < ldexp(1, 24 + b->emin)))
		return 0;
	double g = (b->n + c) * 0x1p-24;
	return g / (1 - g) * b->mag + b->extra;
}

static qcf_status qref_ort_matmul_nbits(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	nbits_call p;
	qcf_status s = nbits_check(call, &p, d);
	if (s != QCF_OK)
		return s;
	if ((s = qref_no_rounding(call, d, "nothing to an integer but A at level 4")) != QCF_OK)
		return s;
	int64_t K = p.K, N = p.N, bs = p.bs;
	float *arow = malloc((size_t)K * sizeof *arow);
	int32_t *qa = malloc((size_t)K * sizeof *qa);
	float *sa = malloc((size_t)p.kb * sizeof *sa);
	uint8_t *tie = malloc((size_t)K);
	if (!arow || !qa || !sa || !tie) {
		free(arow), free(qa), free(sa), free(tie);
		return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
	}
	int int8 = p.level == 4; /* MLAS CompInt8: 4 and 8 bits, every block size >= 16 */
	for (int64_t m = 0; m < p.rows; m++) {
		for (int64_t k = 0; k < K; k++)
			arow[k] =
			        (float)qref_get(p.a, (size_t)(m * K + k)); /* float16 -> float32 */
		if (int8)
			for (int64_t j = 0; j < p.kb; j++) {
				int64_t k0 = j * bs, k1 = k0 + bs < K ? k0 + bs : K;
				float amax = 0;
				for (int64_t k = k0; k < k1; k++)
					amax = fmaxf(amax, fabsf(arow[k]));
				sa[j] = amax / 127.0f;
				float inv = amax != 0 ? 127.0f / amax : 0.0f;
				for (int64_t k = k0; k < k1; k++) {
					float v = arow[k] * inv, r = nearbyintf(v);
					qa[k] = (int32_t)(r > 127 ? 127 : r < -128 ? -128 : r);
					/* within 4 float32 steps of a tie: another ISA's reciprocal
					 * or scale may give the neighbouring int8 */
					tie[k] = 0.5 - fabs((double)v - r) <=
					         0x1p-21 * fabs((double)v);
				}
			}
		for (int64_t n = 0; n < N; n++) {
			double acc = 0;
			qref_sum_bound bd = QREF_SUM_BOUND_INIT;
			for (int64_t j = 0; j < p.kb; j++) {
				int64_t k0 = j * bs, k1 = k0 + bs < K ? k0 + bs : K;
				int32_t zp = nbits_zp(&p, n, j);
				float sb = (float)qref_get(p.scales, (size_t)(n * p.kb + j));
				if (int8) {
					int64_t dot = 0, dq = 0, sq = 0, near = 0;
					for (int64_t k = k0; k < k1; k++) {
						int32_t q = nbits_q(&p, n, k);
						dot += (int64_t)qa[k] * (q - zp);
						dq += (int64_t)qa[k] * q;
						sq += qa[k];
						near += tie[k] ? abs(q - zp) : 0;
					}
					double ss = (double)sa[j] * sb;
					acc += ss * (double)dot;
					/* scale_a scale_b sum q_a q and the correction zp scale_b
					 * scale_a sum q_a */
					qref_sum_part(&bd, ss * (double)dq, ss, (double)dq);
					qref_sum_part(&bd, ss * zp * (double)sq,
					              (double)sa[j] * (double)sq, (double)zp * sb);
					bd.extra += ss * (double)near;
				} else {
					for (int64_t k = k0; k < k1; k++) {
						int32_t q = nbits_q(&p, n, k);
						float b = (float)(q - zp) * sb;
						acc += (double)arow[k] * b;
						/* a q scale and a zp scale */
						qref_sum_part(&bd, (double)arow[k] * q * sb,
						              (double)q * sb,
						              (double)(q - zp) * sb);
						qref_sum_part(&bd, (double)arow[k] * zp * sb,
						              (double)zp * sb, (double)arow[k] * b);
					}
				}
			}
			if (p.bias) {
				double bias = (double)(float)qref_get(p.bias, (size_t)n);
				acc += bias;
				qref_sum_part(&bd, bias, bias, bias);
			}
			size_t i = (size_t)(m * N + n);
			/* roundings inside a term: level 0 q scale, a times it; level 4 scale_a
			 * (another ISA's), scale_a scale_b, the product with the block's sum */
			double w = qref_sum_width(&bd, int8 ? 4 : 2);
			if (p.y->dtype == QCF_FLOAT16 && w > 0) /* Y rounded to float16 */
				w += 0x1p-11 * (fabs(acc) + w);
			if (w > 0)
				qref_mark_any(d, 0, i, acc - w, acc + w);
			else
				qref_mark_exact(d, 0, i);
			qref_set(p.y, i,
			         (double)(float)acc); /* float32, then float16 for float16 A */
		}
	}
	free(arow), free(qa), free(sa), free(tie);
	return QCF_OK;
}

/* ---- GatherBlockQuantized ---------------------------------------------------------------- */

static qcf_status qref_ort_gather_block_quantized(const qcf_op_call *call, const qref_op *row,
                                                  qref_detail *d)
{
	(void)row;
	static const char *const opt[] = {"zero_points", NULL};
	if (call->n_inputs < 3 || call->n_inputs > 4 || call->n_outputs != 1)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s takes 3 or 4 inputs (data, indices, scales, zero_points) and one "
		        "output, got %" PRId32 " and %" PRId32 "",
		        call->op, call->n_inputs, call->n_outputs);
	qcf_status s = qref_check_call(call, call->n_inputs, 1, d);
	if (s != QCF_OK || (s = optional_names(call, 3, opt, d)) != QCF_OK)
		return s;
	const qcf_tensor *data = &call->inputs[0], *idx = &call->inputs[1], *sc = &call->inputs[2];
	const qcf_tensor *zp = qref_input_named(call, 3, "zero_points");
	qcf_tensor *y = &call->outputs[0];
	int64_t gaxis, qaxis, bs, bits;
	if ((s = need_int_attr(call, "gather_axis", 0, 0, &gaxis, d)) != QCF_OK ||
	    (s = need_int_attr(call, "quantize_axis", 0, 1, &qaxis, d)) != QCF_OK ||
	    (s = need_int_attr(call, "block_size", 0, 128, &bs, d)) != QCF_OK ||
	    (s = need_int_attr(call, "bits", 0, 4, &bits, d)) != QCF_OK)
		return s;
	qcf_dtype dt = data->dtype;
	if (dt != QCF_UINT8 && dt != QCF_INT4 && dt != QCF_UINT4)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: data must be uint8, int4 or uint4, got %s", call->op, tn(dt));
	if (idx->dtype != QCF_INT32 && idx->dtype != QCF_INT64)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: indices must be int32 or int64, got %s",
		                 call->op, tn(idx->dtype));
	if ((sc->dtype != QCF_FLOAT32 && sc->dtype != QCF_FLOAT16) || y->dtype != sc->dtype)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: scales must be float32 or float16 and Y of their type, got %s "
		        "and %s",
		        call->op, tn(sc->dtype), tn(y->dtype));
	if (zp && zp->dtype != dt)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: zero_points must have data's type %s",
		                 call->op, tn(dt));
	if (!is_pow2_ge16(bs))
		return qref_fail_attr(d, "block_size", QCF_INVALID_PARAM,
		                      "%s: block_size must be a power of 2 and >= 16, got %lld",
		                      call->op, (long long)bs);
	int32_t r = data->rank;
	if (r < 1)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: data must have rank >= 1", call->op);
	if (gaxis < -r || gaxis >= r || qaxis < -r || qaxis >= r)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: gather_axis and quantize_axis must be in "
		                 "[-rank, rank)",
		                 call->op);
	gaxis = gaxis < 0 ? gaxis + r : gaxis;
	qaxis = qaxis < 0 ? qaxis + r : qaxis;
	int64_t comps = 1;
	if (dt == QCF_UINT8) {
		if (bits == 2)
			return qref_fail_attr(
			        d, "bits", QCF_NOT_SUPPORTED,
			        "%s: bits 2 is not implemented (no ORT golden checks it)",
			        call->op);
		if (bits != 4 && bits != 8)
			return qref_fail_attr(d, "bits", QCF_INVALID_PARAM,
			                      "%s: bits must be 4 or 8 for uint8 data, got %lld",
			                      call->op, (long long)bits);
		if (gaxis != 0 || qaxis != r - 1)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: for uint8 data gather_axis must be 0 and quantize_axis the "
			        "last dimension",
			        call->op);
		comps = 8 / bits;
	} else if (bits != 4) {
		return qref_fail_attr(d, "bits", QCF_INVALID_PARAM,
		                      "%s: int4 and uint4 data take bits 4, got %lld", call->op,
		                      (long long)bits);
	}
	if (gaxis == qaxis)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: gather_axis and quantize_axis must differ", call->op);
	/* the logical data shape (uint8: the last dimension times comps) and the scales' shape */
	int64_t L[QCF_MAX_RANK], S[QCF_MAX_RANK];
	for (int32_t k = 0; k < r; k++) {
		L[k] = data->shape[k] * (k == r - 1 ? comps : 1);
		S[k] = k == qaxis ? (L[k] + bs - 1) / bs : L[k];
		if (sc->rank != r || sc->shape[k] != S[k])
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: scales must be data's shape with quantize_axis in blocks",
			        call->op);
	}
	if (zp) {
		for (int32_t k = 0; k < r; k++) {
			int64_t want = k == qaxis ? (S[k] + comps - 1) / comps : S[k];
			if (zp->rank != r || zp->shape[k] != want)
				return qref_fail(d, QCF_INVALID_PARAM,
				                 "%s: zero_points must be scales' shape (uint8: "
				                 "quantize_axis "
				                 "packed)",
				                 call->op);
		}
	}
	/* output: L[0:g] + indices.shape + L[g+1:] */
	int32_t yr = r - 1 + idx->rank;
	int ok = y->rank == yr;
	for (int32_t k = 0; ok && k < yr; k++) {
		int64_t want = k < gaxis               ? L[k]
		               : k < gaxis + idx->rank ? idx->shape[k - gaxis]
		                                       : L[k - idx->rank + 1];
		ok = y->shape[k] == want;
	}
	if (!ok)
		return qref_fail_output(
		        d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "%s: Y must be data's shape with gather_axis replaced by the "
		        "indices' shape",
		        call->op);
	size_t nidx = qref_tensor_numel(idx);
	for (size_t i = 0; i < nidx; i++) {
		double v = qref_get(idx, i);
		if (v < -(double)L[gaxis] || v >= (double)L[gaxis])
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: index %.0f is outside [-%lld, %lld)", call->op, v,
			                 (long long)L[gaxis], (long long)L[gaxis]);
	}
	int64_t inner = 1, outer = 1, qinner = 1;
	for (int32_t k = gaxis + 1; k < r; k++)
		inner *= L[k];
	for (int32_t k = 0; k < gaxis; k++)
		outer *= L[k];
	for (int32_t k = qaxis + 1; k < r; k++)
		qinner *= L[k];
	const uint8_t *raw = data->data, *zraw = zp ? zp->data : NULL;
	size_t i = 0;
	for (int64_t o = 0; o < outer; o++)
		for (size_t g = 0; g < nidx; g++) {
			int64_t ix = (int64_t)qref_get(idx, g);
			ix = ix < 0 ? ix + L[gaxis] : ix;
			for (int64_t e = 0; e < inner; e++, i++) {
				int64_t li =
				        (o * L[gaxis] + ix) * inner + e; /* logical data index */
				int32_t q;
				if (dt == QCF_UINT8)
					q = comps == 1 ? raw[li]
					               : (raw[li / 2] >> (4 * (li % 2))) & 0xf;
				else
					q = (int32_t)qref_get(data, (size_t)li);
				/* scale index: li's coordinates with quantize_axis divided by bs */
				int64_t qc = (li / qinner) % L[qaxis],
				        before = li / (qinner * L[qaxis]);
				int64_t si = (before * S[qaxis] + qc / bs) * qinner + li % qinner;
				int32_t z;
				if (!zp) {
					z = dt == QCF_UINT8 ? 1 << (bits - 1) : 0;
				} else if (dt == QCF_UINT8 && comps == 2) {
					/* quantize_axis is the last: row si / S, block si % S, two
					 * per byte */
					int64_t per = (S[qaxis] + 1) / 2, row = si / S[qaxis],
					        j = si % S[qaxis];
					z = (zraw[row * per + j / 2] >> (4 * (j % 2))) & 0xf;
				} else {
					z = (int32_t)qref_get(zp, (size_t)si);
				}
				float v = (float)(q - z) * (float)qref_get(sc, (size_t)si);
				qref_mark_exact(d, 0, i);
				qref_set(y, i, v);
			}
		}
	return QCF_OK;
}

/* ---- DequantizeLinear (com.microsoft) ---------------------------------------------------- */

static qcf_status qref_ort_dequantize_linear(const qcf_op_call *call, const qref_op *row,
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
	if (x->dtype != QCF_INT8 && x->dtype != QCF_UINT8 && x->dtype != QCF_INT16 &&
	    x->dtype != QCF_UINT16)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: x must be int8, uint8, int16 or uint16 (ORT's CPU kernels), got "
		        "%s",
		        call->op, tn(x->dtype));
	if (y->dtype != QCF_FLOAT32)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: y must be float32, got %s", call->op,
		                 tn(y->dtype));
	int64_t axis;
	if ((s = need_int_attr(call, "axis", 0, 1, &axis, d)) != QCF_OK)
		return s;
	qcf_quant q;
	if ((s = qref_get_quant(x, "DequantizeLinear input", 0, &q, d)) != QCF_OK)
		return s;
	if (q.axis >= 0) {
		int64_t a = axis < 0 ? axis + x->rank : axis;
		if (a != q.axis)
			return qref_fail_attr(d, "axis", QCF_INVALID_PARAM,
			                      "%s: per-axis scales along axis %" PRId32
			                      ", but the attribute axis "
			                      "is %lld",
			                      call->op, q.axis, (long long)axis);
	}
	double lo, hi;
	qref_range_d(x->dtype, &lo, &hi);
	for (int32_t c = 0; c < q.count; c++)
		if (q.zero_points[c] < lo || q.zero_points[c] > hi)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: zero point %" PRId32 " does not fit %s", call->op,
			                 q.zero_points[c], tn(x->dtype));
	if ((s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;
	qref_dequantize_linear_values(x, &q, y, d); /* ONNX's arithmetic (onnx_qdq.c) */
	return QCF_OK;
}

/* ---- QuantizeLinear (com.microsoft) ------------------------------------------------------ */

/* y = saturate(nearbyintf(x / y_scale) + y_zero_point): ORT's QuantizeLinear kernel
 * (onnxruntime/core/providers/cpu/quantization/quantize_linear.cc, registered in the
 * com.microsoft domain by contrib_ops/cpu/quantization/quantize_ops.cc) with MLAS's
 * MlasQuantizeLinear: the quotient in float32 (a float16 x and scale converted to float32
 * first), clamped to the type minus the zero point, rounded half to even, plus the zero point;
 * per tensor or along the attribute axis (default 1). A NaN quotient depends on the ISA's
 * min / max (MINPS / MAXPS, FMINNM / FMAXNM): any value of the type. */
static qcf_status qref_ort_quantize_linear(const qcf_op_call *call, const qref_op *row,
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
	if (x->dtype != QCF_FLOAT32 && x->dtype != QCF_FLOAT16)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: x must be float32 or float16, got %s",
		                 call->op, tn(x->dtype));
	if (y->dtype != QCF_INT8 && y->dtype != QCF_UINT8 && y->dtype != QCF_INT16 &&
	    y->dtype != QCF_UINT16 && y->dtype != QCF_INT4 && y->dtype != QCF_UINT4)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: y must be int8, uint8, int16, uint16, int4 or uint4 (ORT's CPU "
		        "kernels), got %s",
		        call->op, tn(y->dtype));
	int64_t axis;
	if ((s = need_int_attr(call, "axis", 0, 1, &axis, d)) != QCF_OK)
		return s;
	qcf_quant q;
	if ((s = qref_get_quant(y, "QuantizeLinear output", 0, &q, d)) != QCF_OK)
		return s;
	if (q.axis >= 0) {
		int64_t a = axis < 0 ? axis + y->rank : axis;
		if (a != q.axis)
			return qref_fail_attr(d, "axis", QCF_INVALID_PARAM,
			                      "%s: per-axis scales along axis %" PRId32
			                      ", but the attribute axis is %lld",
			                      call->op, q.axis, (long long)axis);
	}
	double lo, hi;
	qref_range_d(y->dtype, &lo, &hi);
	for (int32_t c = 0; c < q.count; c++) {
		if (q.zero_points[c] < lo || q.zero_points[c] > hi)
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "%s: zero point %" PRId32 " does not fit %s", call->op,
			                 q.zero_points[c], tn(y->dtype));
		if (!(q.scales[c] > 0) || !isfinite(q.scales[c]))
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "%s: scale %g: ORT divides by it unchecked; qconform needs "
			        "scales positive and finite",
			        call->op, (double)q.scales[c]);
	}
	const qref_rounding rnd = qref_detail_rounding(d);
	if (rnd != QREF_ROUND_DEFAULT && rnd != QREF_ROUND_HALF_EVEN)
		return qref_rounding_na(call, d, rnd, "half to even (cvtps2dq, vcvtnq)");
	size_t n = qref_tensor_numel(x);
	for (size_t i = 0; i < n; i++) {
		int32_t c = qref_quant_index(y, &q, i);
		int32_t zp = q.zero_points[c];
		float v = (float)qref_get(x, i) / q.scales[c]; /* x exact in float32 */
		if (isnan(v)) {
			qref_mark_any(d, 0, i, lo, hi);
			qref_set(y, i, lo);
			continue;
		}
		float flo = (float)(lo - zp), fhi = (float)(hi - zp);
		v = v < flo ? flo : v > fhi ? fhi : v;
		qref_mark_exact(d, 0, i);
		qref_set(y, i, (double)nearbyintf(v) + zp);
	}
	return QCF_OK;
}

static const qref_attr_schema matmul_nbits_attrs[] = {
        A_INT_REQ("K", 1, I32),
        A_INT_REQ("N", 1, I32),
        A_INT("bits", 2, 8, "4"),
        A_INT_REQ("block_size", 16, I32),
        A_INT("accuracy_level", 0, 4, "0"),
        END,
};

static const qref_attr_schema gather_bq_attrs[] = {
        A_INT("gather_axis", -QCF_MAX_RANK, QCF_MAX_RANK - 1, "0"),
        A_INT("quantize_axis", -QCF_MAX_RANK, QCF_MAX_RANK - 1, "1"),
        A_INT("block_size", 16, I32, "128"),
        A_INT("bits", 2, 8, "4"),
        END,
};

static const qref_attr_schema dq_attrs[] = {
        A_INT("axis", -QCF_MAX_RANK, QCF_MAX_RANK - 1, "1"),
        END,
};

/* The optional inputs are told apart by name. */
const qref_op qref_ops_ort[] = {
        {.schema = {.semantics = "ort",
                    .op = "MatMulNBits",
                    IO(LIST("a", "b", "scales", "zero_points", "bias"), 3, 5, LIST("y"), 1),
                    .attrs = matmul_nbits_attrs},
         .kernel = qref_ort_matmul_nbits},
        {.schema = {.semantics = "ort",
                    .op = "GatherBlockQuantized",
                    IO(LIST("data", "indices", "scales", "zero_points"), 3, 4, LIST("y"), 1),
                    .attrs = gather_bq_attrs},
         .kernel = qref_ort_gather_block_quantized},
        {.schema = {.semantics = "ort", .op = "DequantizeLinear", XY, .attrs = dq_attrs},
         .kernel = qref_ort_dequantize_linear},
        {.schema = {.semantics = "ort", .op = "QuantizeLinear", XY, .attrs = dq_attrs},
         .kernel = qref_ort_quantize_linear},
        {.schema = {.op = NULL}},
};
