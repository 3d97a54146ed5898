/*
 * ONNX Runtime's com.microsoft MatMulFpQ4 (specs/ort/OPERATORS.md), semantics "ort": Y = A B,
 * float32 A [..., M, K] times B [K, N] packed blockwise in 4 bits by MLAS.
 *
 * Schema: onnxruntime/core/graph/contrib_ops/contrib_defs.cc and ContribOperators.md in
 * microsoft/onnxruntime's docs folder. Kernel: onnxruntime/contrib_ops/cpu/matmul_fpq4.cc,
 * MLAS onnxruntime/core/mlas/lib/q4common.h (the blob), q4_dq.cpp (MlasQ4GemmPackBSize,
 * MlasQ4GemmUnPackB), q4gemm_avx512.cpp (the only kernel: MlasQ4GemmPackBSize is 0 without
 * AVX-512, and the op refuses to run).
 *
 * blk_quant_type 0 is BlkQ4Sym, every other value BlkQ4Zp8 (the kernel's constructor). Column n
 * of B is ceil(K / 32) blocks of 32 values along K, block j of column n at (n * k_blocks + j)
 * * blob_size: a float32 scale (little-endian), for BlkQ4Zp8 a zero point byte, then 16 bytes;
 * value i of a block is the low nibble of byte i (i < 16) or the high nibble of byte i - 16.
 * B[k][n] = float32((q - zp) * scale), zp 8 for BlkQ4Sym; the difference is formed in int8
 * (_mm256_sub_epi8), so a zero point above 15, which MLAS's packer never writes, wraps.
 * The AVX-512 kernel sums a B in float32 with fused multiply-adds, 16 lanes then a fold: each
 * element gets the band of every order of that sum (qref_sum_bound, linear_geom.h), width 0
 * where every partial sum is exact.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "linear_geom.h"
#include "op.h"

#define FPQ4_BLK 32 /* MLAS_QUANT4_BLK_UNIT: BlkQ4Sym and BlkQ4Zp8 */

typedef struct fpq4_call {
	const qcf_tensor *a, *blob;
	qcf_tensor *y;
	qref_mm_geom g;
	int zp8;           /* BlkQ4Zp8 */
	int64_t kb, bsize; /* blocks a column, bytes a block */
} fpq4_call;

static qcf_status fpq4_check(const qcf_op_call *call, fpq4_call *p, qref_detail *d)
{
	qcf_status s = qref_check_call(call, 3, 1, d);
	if (s != QCF_OK)
		return s;
	memset(p, 0, sizeof *p);
	p->a = &call->inputs[0];
	p->blob = &call->inputs[1];
	const qcf_tensor *bs = &call->inputs[2];
	p->y = &call->outputs[0];
	int64_t t = 1;
	qref_attr_int(call, "blk_quant_type", &t);
	p->zp8 = t != 0;
	p->bsize = 4 + p->zp8 + FPQ4_BLK / 2;
	if (p->a->dtype != QCF_FLOAT32 || p->y->dtype != QCF_FLOAT32)
		return qref_fail(
		        d, QCF_INVALID_PARAM,
		        "%s: A and Y must be float32 (T1 of the CPU kernel), got %s and %s",
		        call->op, qref_dtype_name(p->a->dtype), qref_dtype_name(p->y->dtype));
	if (p->blob->dtype != QCF_UINT8 || p->blob->rank != 1)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: B must be a 1-D uint8 blob, got %s rank %d", call->op,
		                 qref_dtype_name(p->blob->dtype), (int)p->blob->rank);
	if (bs->dtype != QCF_INT64 || bs->rank != 1 || bs->shape[0] != 2)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: B_shape must be a 1-D int64 tensor of length 2 ([K, N])",
		                 call->op);
	int64_t K = (int64_t)qref_get(bs, 0), N = (int64_t)qref_get(bs, 1);
	/* MlasQ4GemmPackBSize is 0 for an empty B: ORT_ENFORCE(buf_size > 0) */
	if (K < 1 || N < 1 || K > INT32_MAX || N > INT32_MAX)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: B_shape [K, N] must be positive, got [%lld, %lld] (an empty "
		                 "B has no packed size: ORT refuses it)",
		                 call->op, (long long)K, (long long)N);
	p->kb = (K + FPQ4_BLK - 1) / FPQ4_BLK;
	if ((int64_t)qref_tensor_numel(p->blob) != N * p->kb * p->bsize)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: B must hold N * ceil(K / 32) * %lld = %lld bytes "
		                 "(MlasQ4GemmPackBSize), got %zu",
		                 call->op, (long long)p->bsize, (long long)(N * p->kb * p->bsize),
		                 qref_tensor_numel(p->blob));
	const int64_t kn[2] = {K, N};
	qcf_tensor bview = {.dtype = QCF_FLOAT32, .rank = 2, .shape = kn};
	return qref_mm_shape(call, p->a, &bview, p->y, &p->g, d);
}

/* B[k][n] as the kernel forms it: float32((q - zp) * scale), q - zp in int8 */
static float fpq4_b(const fpq4_call *p, int64_t k, int64_t n)
{
	const uint8_t *blk = (const uint8_t *)p->blob->data + (n * p->kb + k / FPQ4_BLK) * p->bsize;
	float scale;
	memcpy(&scale, blk, sizeof scale); /* little-endian, as the blob is */
	int zp = p->zp8 ? blk[4] : 8;
	int i = (int)(k % FPQ4_BLK);
	uint8_t byte = blk[4 + p->zp8 + i % 16];
	int q = i < 16 ? byte & 0xf : byte >> 4;
	return (float)(int8_t)(uint8_t)(q - zp) * scale;
}

static qcf_status qref_ort_matmul_fpq4(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	fpq4_call p;
	qcf_status s = fpq4_check(call, &p, d);
	if (s != QCF_OK || (s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;
	const float *pa = p.a->data;
	size_t o = 0;
	for (size_t bi = 0; bi < p.g.nbatch; bi++) {
		int64_t ao, bo;
		qref_mm_batch(&p.g, bi, &ao, &bo);
		const float *ma = pa + ao * p.g.m * p.g.k;
		for (int64_t m = 0; m < p.g.m; m++)
			for (int64_t n = 0; n < p.g.n; n++, o++) {
				double acc = 0;
				qref_sum_bound bd = QREF_SUM_BOUND_INIT;
				for (int64_t k = 0; k < p.g.k; k++) {
					double b = fpq4_b(&p, k, n);
					double ab = (double)ma[m * p.g.k + k] * b;
					acc += ab; /* exact in double */
					qref_sum_part(&bd, ab, b, ab);
				}
				/* one rounding inside a part: a b (none when fused) */
				double w = qref_sum_width(&bd, 1);
				if (w > 0)
					qref_mark_any(d, 0, o, acc - w, acc + w);
				else
					qref_mark_exact(d, 0, o);
				qref_set(p.y, o, (double)(float)acc);
			}
	}
	return QCF_OK;
}

static const qref_attr_schema fpq4_attrs[] = {
        A_INT("blk_quant_type", -INF, INF, "1"),
        END,
};

const qref_op qref_ops_ort_matmul_fpq4[] = {
        {.schema = {.semantics = "ort",
                    .op = "MatMulFpQ4",
                    IO(LIST("a", "b", "b_shape"), 3, 3, LIST("y"), 1),
                    .attrs = fpq4_attrs},
         .kernel = qref_ort_matmul_fpq4},
        {.schema = {.op = NULL}},
};
