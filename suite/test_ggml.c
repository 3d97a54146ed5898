/*
 * GGML block formats (reference/ggml.c, specs/ggml/OPERATORS.md): one block of every format
 * quantized by hand from ggml's reference quantizers (ggml-org/ggml src/ggml-quants.c,
 * quantize_row_<t>_ref and the helpers they call), its dequantized values
 * (dequantize_row_<t>), hand-worked dot products (src/ggml-cpu/quants.c,
 * ggml_vec_dot_<t>_<vec_dot_type>_generic), round trips on random rows, the comparison of
 * GGML outputs (qref_ggml_error), and the ops through qref_execute.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/dtype.h"
#include "reference/ggml.h"
#include <jansson.h>

#include "qct.h"
#include "reference/qref.h"
#include "tensor.h"

static int bytes_equal(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i]) {
			fprintf(stderr, "\n  %s: byte %zu is 0x%02x, want 0x%02x\n", what, i,
			        got[i], want[i]);
			return 0;
		}
	return 1;
}

static float value(qcf_dtype t, const uint8_t *b, int j)
{
	return qref_ggml_block_value(t, b, j);
}

/* ---- Q4_0 ---- */

/*
 * quantize_row_q4_0_ref, x[j] = j - 16 (j = 0..31). The first element of largest magnitude is
 * x[0] = -16, so max = -16, d = max / -8 = 2 (fp16 0x4000), id = 0.5. Element j < 16:
 * q = (int8_t)((j - 16) * 0.5 + 8.5) = floor(j / 2 + 0.5) = (j + 1) / 2 (0, 1, 1, 2, 2, ...);
 * element j + 16: (int8_t)(j * 0.5 + 8.5) = 8 + (j + 1) / 2, so element 31 gives 16 and MIN
 * makes it 15. qs[j] = q(j) | q(j + 16) << 4: element j in the low nibble, j + 16 in the high.
 * dequantize_row_q4_0: (q - 8) * d.
 */
static void test_q4_0_golden(void)
{
	float x[32];
	for (int j = 0; j < 32; j++)
		x[j] = (float)(j - 16);
	uint8_t b[18], want[18] = {0x00, 0x40};
	for (int j = 0; j < 16; j++) {
		int lo = (j + 1) / 2, hi = 8 + (j + 1) / 2;
		want[2 + j] = (uint8_t)(lo | (hi > 15 ? 15 : hi) << 4);
	}
	CU_ASSERT_EQUAL(want[2], 0x80); /* element 0 -> 0, element 16 (x = 0) -> 8 */
	CU_ASSERT_EQUAL(want[17], 0xf8);
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q4_0, x, b, 32), 0);
	CU_ASSERT(bytes_equal(b, want, 18, "q4_0"));
	CU_ASSERT_EQUAL(value(QCF_GGML_Q4_0, b, 0), -16.0f);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q4_0, b, 1), -14.0f); /* -15 * 0.5 + 8.5 = 1: a tie, up */
	CU_ASSERT_EQUAL(value(QCF_GGML_Q4_0, b, 16), 0.0f);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q4_0, b, 31), 14.0f); /* 16 clamped to 15 */
	/* nibble order: a block whose low nibbles differ from its high nibbles */
	uint8_t s[18] = {0x00, 0x3c};
	memset(s + 2, 0x9f, 16); /* low 15 -> 7, high 9 -> 1 */
	CU_ASSERT_EQUAL(value(QCF_GGML_Q4_0, s, 3), 7.0f);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q4_0, s, 19), 1.0f);
}

/* ---- Q4_1 ---- */

/*
 * quantize_row_q4_1_ref, x[j] = (j % 16) - 8: min -8, max 7, d = 15 / 15 = 1 (0x3c00),
 * m = -8 (fp16 0xc800), id = 1; q = (int8_t)((x + 8) * 1 + 0.5) = j % 16, so qs[j] = j | j << 4.
 * dequantize_row_q4_1: q * d + m. A kernel that drops m is off by 8 everywhere.
 */
static void test_q4_1_golden(void)
{
	float x[32];
	for (int j = 0; j < 32; j++)
		x[j] = (float)(j % 16 - 8);
	uint8_t b[20], want[20] = {0x00, 0x3c, 0x00, 0xc8};
	for (int j = 0; j < 16; j++)
		want[4 + j] = (uint8_t)(j | j << 4);
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q4_1, x, b, 32), 0);
	CU_ASSERT(bytes_equal(b, want, 20, "q4_1"));
	for (int j = 0; j < 32; j++)
		CU_ASSERT_EQUAL(value(QCF_GGML_Q4_1, b, j), x[j]);
	/* all equal: d = 0, id = 0, every q = (int8_t)(0 + 0.5) = 0, the value is m alone */
	for (int j = 0; j < 32; j++)
		x[j] = 3.0f;
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q4_1, x, b, 32), 0);
	CU_ASSERT_EQUAL(b[0] | b[1], 0);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q4_1, b, 20), 3.0f);
	CU_ASSERT_EQUAL(qref_ggml_block_step(QCF_GGML_Q4_1, b, 20), 0.0);
}

/* ---- Q5_0, Q5_1 ---- */

/*
 * quantize_row_q5_0_ref, x[j] = j - 16: max = x[0] = -16, d = -16 / -16 = 1 (0x3c00), id = 1.
 * j < 16: (int8_t)(j - 16 + 16.5) = j (bit 4 clear); element j + 16: j + 16 (bit 4 set). qs[j]
 * = j | j << 4, qh = 0xffff0000 (bit k: the fifth bit of element k), little-endian 00 00 ff ff.
 * dequantize_row_q5_0: (q - 16) * d gives x back exactly.
 *
 * quantize_row_q5_1_ref, x[j] = j + 100: min 100 (m = fp16 0x5640), max 131, d = 31 / 31 = 1,
 * q = (uint8_t)(j + 0.5) = j: the same qs and qh. dequantize_row_q5_1: q * d + m = x.
 */
static void test_q5_golden(void)
{
	float x[32];
	uint8_t b[24], want0[22] = {0x00, 0x3c, 0x00, 0x00, 0xff, 0xff};
	uint8_t want1[24] = {0x00, 0x3c, 0x40, 0x56, 0x00, 0x00, 0xff, 0xff};
	for (int j = 0; j < 16; j++)
		want0[6 + j] = want1[8 + j] = (uint8_t)(j | j << 4);
	for (int j = 0; j < 32; j++)
		x[j] = (float)(j - 16);
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q5_0, x, b, 32), 0);
	CU_ASSERT(bytes_equal(b, want0, 22, "q5_0"));
	for (int j = 0; j < 32; j++)
		CU_ASSERT_EQUAL(value(QCF_GGML_Q5_0, b, j), x[j]);
	for (int j = 0; j < 32; j++)
		x[j] = (float)(j + 100);
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q5_1, x, b, 32), 0);
	CU_ASSERT(bytes_equal(b, want1, 24, "q5_1"));
	for (int j = 0; j < 32; j++)
		CU_ASSERT_EQUAL(value(QCF_GGML_Q5_1, b, j), x[j]);
}

/* ---- Q8_0, Q8_1 ---- */

/*
 * quantize_row_q8_0_ref: x[0] = 127, x[1] = 2.5, x[2] = -2.5, x[j] = j - 16 for j >= 3. amax =
 * 127, d = 127 / 127 = 1 (0x3c00), id = 1, q = roundf(x): ties away from zero, 2.5 -> 3 and
 * -2.5 -> -3. quantize_row_q8_1_ref: the same d and qs, s = fp16(sum(qs) * d) with sum = 127 +
 * 3 - 3 + sum(j - 16, j = 3..31) = 127 + 29 = 156, fp16 0x58e0.
 */
static void test_q8_golden(void)
{
	float x[32];
	x[0] = 127.0f;
	x[1] = 2.5f;
	x[2] = -2.5f;
	for (int j = 3; j < 32; j++)
		x[j] = (float)(j - 16);
	uint8_t b0[34], b1[36];
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q8_0, x, b0, 32), 0);
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q8_1, x, b1, 32), 0);
	CU_ASSERT(b0[0] == 0x00 && b0[1] == 0x3c);
	CU_ASSERT(b1[0] == 0x00 && b1[1] == 0x3c && b1[2] == 0xe0 && b1[3] == 0x58);
	CU_ASSERT_EQUAL((int8_t)b0[2], 127);
	CU_ASSERT_EQUAL((int8_t)b0[3], 3);
	CU_ASSERT_EQUAL((int8_t)b0[4], -3);
	CU_ASSERT_EQUAL(memcmp(b0 + 2, b1 + 4, 32), 0);
	for (int j = 3; j < 32; j++)
		CU_ASSERT_EQUAL((int8_t)b0[2 + j], j - 16);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q8_1, b1, 1), 3.0f);
}

/* ---- Q8_K ---- */

/*
 * quantize_row_q8_K_ref: x[0] = 127, x[j] = (j % 16) - 8 for j >= 1, except x[17] = 0.5. The
 * first largest magnitude is 127 (positive), iscale = -127 / 127 = -1, so qs = nearest_int(-x)
 * and d = 1 / iscale = -1 (float32 0xbf800000). nearest_int(-0.5) is 0 (half to even). bsums:
 * group 0: -127 - sum(j - 8, j = 1..15) = -127 - 0 = -127; a full group: -sum(j - 8, j =
 * 0..15) = 8; group 1 has 0 instead of 7 at element 17: 8 - 7 = 1; groups 2..15: 8.
 */
static void test_q8_k_golden(void)
{
	float x[256];
	x[0] = 127.0f;
	for (int j = 1; j < 256; j++)
		x[j] = (float)(j % 16 - 8);
	x[17] = 0.5f;
	uint8_t b[292];
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q8_K, x, b, 256), 0);
	const uint8_t d[4] = {0x00, 0x00, 0x80, 0xbf};
	CU_ASSERT(bytes_equal(b, d, 4, "q8_K d"));
	CU_ASSERT_EQUAL((int8_t)b[4], -127);
	CU_ASSERT_EQUAL((int8_t)b[4 + 17], 0);
	CU_ASSERT_EQUAL((int8_t)b[4 + 18], 6); /* x = -6 */
	int16_t bs[16];
	memcpy(bs, b + 260, 32);
	CU_ASSERT_EQUAL(bs[0], -127);
	CU_ASSERT_EQUAL(bs[1], 1);
	for (int g = 2; g < 16; g++)
		CU_ASSERT_EQUAL(bs[g], 8);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q8_K, b, 0), 127.0f);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q8_K, b, 18), -6.0f);
	/* an all-zero row: d 0, qs 0, and bsums 0 (ggml leaves them as they were) */
	memset(x, 0, sizeof x);
	memset(b, 0x5a, sizeof b);
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q8_K, x, b, 256), 0);
	for (int k = 0; k < 292; k++)
		CU_ASSERT_EQUAL_FATAL(b[k], 0);
}

/* ---- Q2_K ---- */

/*
 * quantize_row_q2_K_ref, x[16 g + i] = (i % 4) - 1 in every group g. make_qkx2_quants(16, 3,
 * ...): min -1, max 2, iscale = 3 / 3 = 1, scale 1, L = x + 1, every diff 1 * L - 1 - x = 0,
 * so best_mad is 0 and no candidate is below it: scale 1, the_min 1 for all 16 groups. Then
 * max_scale = max_min = 1: scales[g] = nearest_int(15 * 1) | nearest_int(15 * 1) << 4 = 0xff,
 * d = dmin = fp16(1 / 15) = 0x2c44 (273 / 4096). Requantized with d * 15 = 4095 / 4096 and dm
 * the same: nearest_int((x + 4095/4096) / (4095/4096)) = x + 1 again, L = (e % 4). qs byte l of
 * each 32: L[l] | L[l + 32] << 2 | L[l + 64] << 4 | L[l + 96] << 6 = (l % 4) * 0x55.
 * dequantize_row_q2_K: dl * q - ml = 4095/4096 * (q - 1), exactly.
 */
static void test_q2_k_golden(void)
{
	float x[256];
	for (int e = 0; e < 256; e++)
		x[e] = (float)(e % 4 - 1);
	uint8_t b[84], want[84];
	memset(want, 0xff, 16);
	for (int k = 0; k < 64; k++)
		want[16 + k] = (uint8_t)((k % 4) * 0x55);
	want[80] = want[82] = 0x44;
	want[81] = want[83] = 0x2c;
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q2_K, x, b, 256), 0);
	CU_ASSERT(bytes_equal(b, want, 84, "q2_K"));
	for (int e = 0; e < 256; e += 37)
		CU_ASSERT_EQUAL(value(QCF_GGML_Q2_K, b, e), x[e] * (4095.0f / 4096.0f));
	/* element 101 reads bits 2 * ((101 % 128) / 32) = 6..7 of qs byte 101 % 32 = 5 (0x55) */
	uint8_t m[84];
	memcpy(m, b, 84);
	m[16 + 5] = 0x15; /* bits 6..7: 1 -> 0 */
	CU_ASSERT_EQUAL(value(QCF_GGML_Q2_K, b, 101), 0.0f);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q2_K, m, 101), -4095.0f / 4096.0f);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q2_K, m, 5), value(QCF_GGML_Q2_K, b, 5));
}

/* ---- Q3_K ---- */

/*
 * quantize_row_q3_K_ref, x[16 g + i] = (i % 8) - 4. make_q3_quants(16, 4, ..., do_rmse): max =
 * x[0] = -4, iscale = -4 / -4 = 1, L = x; the refinement finds x * sl2 / slx = x (sl2 = slx)
 * for every i, so nothing changes and it returns sumlx / suml2 = 1. All 16 scales are 1:
 * max_scale 1, iscale = -32, l = nearest_int(-32) = -32 -> +32 = 0: every 6-bit scale is 0
 * (the 12 scale bytes 0), d = fp16(1 / -32) = 0xa800. Requantized with d * (0 - 32) = 1: L = x
 * + 4 = e % 8. hmask: L > 3 sets bit e / 32 of hmask[e % 32], i.e. hmask[b] = 0xff for b % 8
 * >= 4; the low two bits are e % 4, qs = (l % 4) * 0x55. dequantize_row_q3_K: dl = d * (s - 32)
 * = 1, value = (q & 3) - (hmask bit ? 0 : 4) = x.
 */
static void test_q3_k_golden(void)
{
	float x[256];
	for (int e = 0; e < 256; e++)
		x[e] = (float)(e % 8 - 4);
	uint8_t b[110], want[110];
	memset(want, 0, sizeof want);
	for (int k = 0; k < 32; k++)
		want[k] = k % 8 >= 4 ? 0xff : 0x00;
	for (int k = 0; k < 64; k++)
		want[32 + k] = (uint8_t)((k % 4) * 0x55);
	want[108] = 0x00;
	want[109] = 0xa8;
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q3_K, x, b, 256), 0);
	CU_ASSERT(bytes_equal(b, want, 110, "q3_K"));
	for (int e = 0; e < 256; e++)
		CU_ASSERT_EQUAL(value(QCF_GGML_Q3_K, b, e), x[e]);
	/* the 6-bit scale of sub-block 9: low nibble = high nibble of scales[1], top bits =
	 * bits 4..5 of scales[8 + 1]; 0x20 there and 0x10 in scales[9] give 2 | 1 << 4 = 18,
	 * dl = -1/32 * (18 - 32) = 0.4375 */
	uint8_t m[110];
	memcpy(m, b, 110);
	m[96 + 1] = 0x20;
	m[96 + 9] = 0x10;
	CU_ASSERT_EQUAL(value(QCF_GGML_Q3_K, m, 9 * 16), 0.4375f * x[144]);
	CU_ASSERT_EQUAL(value(QCF_GGML_Q3_K, m, 1 * 16), x[16]); /* sub-block 1: low nibble 0 */
}

/* ---- Q4_K, Q5_K ---- */

/*
 * quantize_row_q4_K_ref with sub-block s (32 elements, k = i % 16) x = M[s] * (k - 8), M =
 * {1, 2, 4, 8, 1, 2, 4, 8}. make_qkx2_quants(32, 15, ...): min = -8 M, max = 7 M, iscale =
 * 15 / (15 M) = 1 / M exactly, L = k, every diff 0, so scale M and the_min 8 M. max_scale 8,
 * max_min 64: inv_scale = 63 / 8 = 7.875, inv_min = 63 / 64; ls = lm = nearest_int(7.875 M) =
 * 8, 16, 32 (31.5: half to even), 63. Packing (j < 4: scales[j] = ls, scales[j + 4] = lm;
 * j >= 4: scales[j + 4] = ls & 15 | (lm & 15) << 4, the top two bits into bits 6..7 of
 * scales[j - 4] (ls) and scales[j] (lm)): 08 50 a0 ff 08 50 a0 ff 88 00 00 ff. d = fp16(8 /
 * 63) = 0x3010 (65/512), dmin = fp16(64 / 63) = 0x3c10 (65/64). Requantized: (x + dmin * lm)
 * / (d * ls) = 0.9846 k + 0.123 for M = 1, 2, 4 and k - 0.002 for M = 8: L = k. qs byte l of
 * each 32: L[l] | L[l + 32] << 4 = (l % 16) * 0x11. dequantize_row_q4_K: d * ls * k - dmin * lm.
 *
 * quantize_row_q5_K_ref with x = M[s] * (k - 16), k = i % 32: scale M, min 16 M; max_min 128,
 * inv_min = 63 / 128: the same ls, lm and scale bytes; d = 0x3010, dmin = fp16(128 / 63) =
 * 0x4010 (65/32); L = k (0.9846 k + 0.246, and 1.0002 k - 0.004 for M = 8). ql byte j of each
 * 32: (j % 16) * 0x11; qh[j] = 0xff for j >= 16 (bits 2c and 2c + 1 of chunk c), else 0.
 */
static const float M[8] = {1, 2, 4, 8, 1, 2, 4, 8};
static const uint8_t KSCALES[12] = {0x08, 0x50, 0xa0, 0xff, 0x08, 0x50,
                                    0xa0, 0xff, 0x88, 0x00, 0x00, 0xff};
static const int LS[8] = {8, 16, 32, 63, 8, 16, 32, 63};

static void test_q4_k_golden(void)
{
	float x[256];
	for (int e = 0; e < 256; e++)
		x[e] = M[e / 32] * (float)(e % 16 - 8);
	uint8_t b[144], want[144] = {0x10, 0x30, 0x10, 0x3c};
	memcpy(want + 4, KSCALES, 12);
	for (int k = 0; k < 128; k++)
		want[16 + k] = (uint8_t)((k % 16) * 0x11);
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q4_K, x, b, 256), 0);
	CU_ASSERT(bytes_equal(b, want, 144, "q4_K"));
	for (int e = 0; e < 256; e++) {
		const float d = 0.126953125f * LS[e / 32], m = 1.015625f * LS[e / 32];
		CU_ASSERT_EQUAL(value(QCF_GGML_Q4_K, b, e), d * (e % 16) - m);
	}
	/* sub-block 5 (element 170): scale (scales[9] & 15) | (scales[1] >> 6) << 4 = 16, min
	 * (scales[9] >> 4) | (scales[5] >> 6) << 4 = 16 */
	CU_ASSERT_EQUAL(value(QCF_GGML_Q4_K, b, 170),
	                0.126953125f * 16 * (170 % 16) - 1.015625f * 16);
}

static void test_q5_k_golden(void)
{
	float x[256];
	for (int e = 0; e < 256; e++)
		x[e] = M[e / 32] * (float)(e % 32 - 16);
	uint8_t b[176], want[176] = {0x10, 0x30, 0x10, 0x40};
	memcpy(want + 4, KSCALES, 12);
	for (int j = 0; j < 32; j++)
		want[16 + j] = j >= 16 ? 0xff : 0x00;
	for (int k = 0; k < 128; k++)
		want[48 + k] = (uint8_t)((k % 16) * 0x11);
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q5_K, x, b, 256), 0);
	CU_ASSERT(bytes_equal(b, want, 176, "q5_K"));
	for (int e = 0; e < 256; e++) {
		const float d = 0.126953125f * LS[e / 32], m = 2.03125f * LS[e / 32];
		CU_ASSERT_EQUAL(value(QCF_GGML_Q5_K, b, e), d * (e % 32) - m);
	}
}

/* ---- Q6_K ---- */

/*
 * quantize_row_q6_K_ref, x[16 g + i] = i - 16 (-16..-1 in every group). make_qx_quants(16, 32,
 * ..., rmse_type 1): max = -16, iscale = 2, L = 2 x + 32; scale = sumlx / suml2 = 0.5 exactly
 * (integer sums); no other candidate scale's levels are proportional to x, so none beats it.
 * max_scale 0.5: iscale = -256, d = fp16(-1 / 256) = 0x9c00, every scale nearest_int(-128) =
 * -128 (0x80). Requantized with d * -128 = 0.5: L = 2 x + 32 = 2 i. ql byte l: (L[l] & 15) |
 * (L[l + 64] & 15) << 4 = ((2 (l % 16)) & 15) * 0x11; qh byte l: L >> 4 of the four elements l,
 * l + 32, l + 64, l + 96 in bits 0-1, 2-3, 4-5, 6-7 = 0x55 for l % 16 >= 8.
 * dequantize_row_q6_K: d * sc * (q - 32) = 0.5 * (2 i - 32) = x.
 */
static void test_q6_k_golden(void)
{
	float x[256];
	for (int e = 0; e < 256; e++)
		x[e] = (float)(e % 16 - 16);
	uint8_t b[210], want[210];
	for (int k = 0; k < 128; k++)
		want[k] = (uint8_t)(((2 * (k % 16)) & 15) * 0x11);
	for (int k = 0; k < 64; k++)
		want[128 + k] = k % 16 >= 8 ? 0x55 : 0x00;
	memset(want + 192, 0x80, 16);
	want[208] = 0x00;
	want[209] = 0x9c;
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q6_K, x, b, 256), 0);
	CU_ASSERT(bytes_equal(b, want, 210, "q6_K"));
	for (int e = 0; e < 256; e++)
		CU_ASSERT_EQUAL(value(QCF_GGML_Q6_K, b, e), x[e]);
}

/* ---- round trips ---- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static float urand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (float)((double)(rng_state >> 11) * 0x1p-53 * 2.0 - 1.0);
}

/*
 * Random rows (512 rows of 256 uniform values in [-1, 1)): dequantize(quantize(x)) against x,
 * in steps of each element's block step. The quantizers round with the float32 d and
 * dequantize_row uses fp16(d) (relative error up to 2^-11), so an element with level q moves
 * by up to |q| * 2^-11 steps more; Q4_1 / Q5_1 store the min as fp16 too (|min| / d <= 7.5 and
 * 15.5 steps here). Bounds: Q4_0 1 + 8 / 2048 (rounds with + 8.5 and clamps the far end at
 * 15, a full step), Q5_0 1 + 16 / 2048, Q4_1 0.5 + 23 / 2048, Q5_1 0.5 + 47 / 2048, Q8_0 and
 * Q8_1 0.5 + 127 / 2048, Q8_K 0.5 + 2^-16 (float32 d). Measured: 1.0001, 1.0017, 0.5053,
 * 0.5152, 0.5549, 0.5519, 0.5000. The K-quants' searches trade the largest error for a smaller
 * weighted sum, so they have no half-step bound: measured Q2_K 1.3515, Q3_K 1.1565, Q4_K
 * 0.8959, Q5_K 1.2115, Q6_K 0.6487; the bound 2 catches a wrong scale or min (QCT_GGML_MEASURE=1
 * prints the maxima).
 */
static void test_round_trip(void)
{
	static const struct {
		qcf_dtype t;
		double bound;
	} fm[] = {
	        {QCF_GGML_Q4_0, 1 + 8 / 2048.0},
	        {QCF_GGML_Q4_1, 0.5 + 23 / 2048.0},
	        {QCF_GGML_Q5_0, 1 + 16 / 2048.0},
	        {QCF_GGML_Q5_1, 0.5 + 47 / 2048.0},
	        {QCF_GGML_Q8_0, 0.5 + 127 / 2048.0},
	        {QCF_GGML_Q8_1, 0.5 + 127 / 2048.0},
	        {QCF_GGML_Q2_K, 2.0},
	        {QCF_GGML_Q3_K, 2.0},
	        {QCF_GGML_Q4_K, 2.0},
	        {QCF_GGML_Q5_K, 2.0},
	        {QCF_GGML_Q6_K, 2.0},
	        {QCF_GGML_Q8_K, 0.5 + 0x1p-16},
	};
	float x[256], y[256];
	static uint8_t b[292];
	for (size_t f = 0; f < sizeof fm / sizeof fm[0]; f++) {
		double worst = 0;
		for (int row = 0; row < 512; row++) {
			for (int j = 0; j < 256; j++)
				x[j] = urand();
			CU_ASSERT_EQUAL_FATAL(qref_ggml_quantize_row(fm[f].t, x, b, 256), 0);
			CU_ASSERT_EQUAL_FATAL(qref_ggml_dequantize_row(fm[f].t, b, y, 256), 0);
			const size_t qk = qcf_ggml_block_elements(fm[f].t);
			for (int j = 0; j < 256; j++) {
				const uint8_t *blk = b + j / qk * qcf_ggml_block_bytes(fm[f].t);
				double st = qref_ggml_block_step(fm[f].t, blk, (int)(j % qk));
				double e = st > 0 ? fabs((double)y[j] - x[j]) / st : 0;
				worst = e > worst ? e : worst;
			}
		}
		if (getenv("QCT_GGML_MEASURE") || worst > fm[f].bound)
			fprintf(stderr, "\n  %s: round trip off by %.4f steps\n",
			        qref_dtype_name(fm[f].t), worst);
		CU_ASSERT(worst <= fm[f].bound);
		CU_ASSERT(worst > 0.1); /* the bound is not vacuous */
	}
}

/* ---- vec_dot ---- */

/*
 * ggml_vec_dot_q4_0_q8_0_generic by hand: Q4_0 d = 1, qs all 0x98 (elements 0..15: 8 - 8 = 0,
 * elements 16..31: 9 - 8 = 1); Q8_0 d = 0.5, qs[j] = j. sumi = sum(j, j = 16..31) = 376, sumf
 * = 376 * 1 * 0.5 = 188. A kernel that swaps the nibbles gets sum(0..15) * 0.5 = 60.
 * ggml_vec_dot_q4_1_q8_1_generic: Q4_1 d = 1, m = 2, qs all 0x21 (1 low, 2 high); Q8_1 d = 0.5,
 * qs all 1, s = fp16(0.5 * 32) = 16; sumi = 16 * 1 + 16 * 2 = 48, sumf = (1 * 0.5) * 48 + 2 *
 * 16 = 56 (= sum of (q + 2) * 0.5).
 */
static void test_vec_dot_golden(void)
{
	uint8_t w[18] = {0x00, 0x3c}, a[34] = {0x00, 0x38};
	memset(w + 2, 0x98, 16);
	for (int j = 0; j < 32; j++)
		a[2 + j] = (uint8_t)j;
	double bound;
	CU_ASSERT_EQUAL(qref_ggml_vec_dot(QCF_GGML_Q4_0, 32, w, a, &bound), 188.0f);
	CU_ASSERT(bound > 0 && bound < 1e-3);
	uint8_t w1[20] = {0x00, 0x3c, 0x00, 0x40}, a1[36] = {0x00, 0x38, 0x00, 0x4c};
	memset(w1 + 4, 0x21, 16);
	memset(a1 + 4, 1, 32);
	CU_ASSERT_EQUAL(qref_ggml_vec_dot(QCF_GGML_Q4_1, 32, w1, a1, NULL), 56.0f);
	/* Q8_1's s enters directly: s = 0 drops the min's share (2 * 16) */
	a1[3] = 0;
	CU_ASSERT_EQUAL(qref_ggml_vec_dot(QCF_GGML_Q4_1, 32, w1, a1, NULL), 24.0f);
}

/*
 * ggml_vec_dot_q4_K_q8_K_generic on the Q4_K block of test_q4_k_golden and a Q8_K block with d
 * = 1, qs all 1 (bsums 16): the lanes hold sum over sub-blocks of ls * (sum of k = 2 * 120),
 * d * that = 65/512 * 238 * 240 = 7251.5625; sumi = sum over 16 groups of bsums * lm = 16 * 2
 * * 238 = 7616, dmin * sumi = 65/64 * 7616 = 7735; result 7251.5625 - 7735 = -483.4375 (every
 * step exact in float32).
 */
static void test_vec_dot_k_golden(void)
{
	float x[256];
	for (int e = 0; e < 256; e++)
		x[e] = M[e / 32] * (float)(e % 16 - 8);
	uint8_t w[144], a[292];
	CU_ASSERT_EQUAL(qref_ggml_quantize_row(QCF_GGML_Q4_K, x, w, 256), 0);
	const float one = 1.0f;
	memcpy(a, &one, 4);
	memset(a + 4, 1, 256);
	for (int g = 0; g < 16; g++) {
		a[260 + 2 * g] = 16;
		a[261 + 2 * g] = 0;
	}
	CU_ASSERT_EQUAL(qref_ggml_vec_dot(QCF_GGML_Q4_K, 256, w, a, NULL), -483.4375f);
	/* the mins go through bsums: bsums of 0 leave 7251.5625 */
	memset(a + 260, 0, 32);
	CU_ASSERT_EQUAL(qref_ggml_vec_dot(QCF_GGML_Q4_K, 256, w, a, NULL), 7251.5625f);
}

/* Every weight format against its activations on random rows: the vec_dot lies within its
 * bound of the double sum of the dequantized products. */
static void test_vec_dot_vs_dequantized(void)
{
	static const qcf_dtype ws[] = {QCF_GGML_Q4_0, QCF_GGML_Q4_1, QCF_GGML_Q5_0, QCF_GGML_Q5_1,
	                               QCF_GGML_Q8_0, QCF_GGML_Q2_K, QCF_GGML_Q3_K, QCF_GGML_Q4_K,
	                               QCF_GGML_Q5_K, QCF_GGML_Q6_K};
	enum { N = 1024 };
	static float x[N], z[N], dw[N], da[N];
	static uint8_t w[N / 256 * 292 + 64], a[N / 256 * 292 + 64];
	for (size_t f = 0; f < sizeof ws / sizeof ws[0]; f++) {
		const qcf_dtype at = qref_ggml_vec_dot_type(ws[f]);
		CU_ASSERT_NOT_EQUAL_FATAL(at, QCF_DTYPE_INVALID);
		for (int rep = 0; rep < 8; rep++) {
			for (int j = 0; j < N; j++) {
				x[j] = urand();
				z[j] = urand() * 4;
			}
			qref_ggml_quantize_row(ws[f], x, w, N);
			qref_ggml_quantize_row(at, z, a, N);
			qref_ggml_dequantize_row(ws[f], w, dw, N);
			/* Q8_1 has no dequantize_row in ggml; its value is d * q */
			for (int j = 0; j < N; j++)
				da[j] = qref_ggml_block_value(
				        at,
				        a + j / qcf_ggml_block_elements(at) *
				                        qcf_ggml_block_bytes(at),
				        (int)(j % qcf_ggml_block_elements(at)));
			double exact = 0, bound;
			for (int j = 0; j < N; j++)
				exact += (double)dw[j] * da[j];
			const float got = qref_ggml_vec_dot(ws[f], N, w, a, &bound);
			/* Q4_1 / Q5_1: the min's term is m * s with s = fp16(d * sum q), not the
			 * sum of m * d * q: s's fp16 rounding (half an ulp, 2^-11 relative) adds to
			 * the bound */
			double extra = 0;
			for (int ib = 0; at == QCF_GGML_Q8_1 && ib < N / 32; ib++) {
				const uint8_t *wb = w + ib * qcf_ggml_block_bytes(ws[f]),
				              *ab = a + ib * 36;
				const float m = qref_f16_to_f32((uint16_t)(wb[2] | wb[3] << 8));
				const float sv = qref_f16_to_f32((uint16_t)(ab[2] | ab[3] << 8));
				extra += fabs((double)m * sv) * 0x1p-10;
			}
			if (!(fabs(got - exact) <= bound + extra))
				fprintf(stderr,
				        "\n  %s: vec_dot %.9g, dequantized %.9g, bound %.3g\n",
				        qref_dtype_name(ws[f]), got, exact, bound + extra);
			CU_ASSERT(fabs(got - exact) <= bound + extra);
		}
	}
}

/* ---- comparison ---- */

static qcf_tensor tensor_of(qcf_dtype t, int64_t *shape, void *data)
{
	qcf_tensor x;
	memset(&x, 0, sizeof x);
	x.struct_size = sizeof x;
	x.dtype = t;
	x.rank = 1;
	x.shape = shape;
	x.data = data;
	x.nbytes = qcf_dtype_nbytes(t, (size_t)shape[0]);
	return x;
}

/* A kernel that swaps Q4_0's nibbles, one that skips Q4_1's min, one with a wrong Q8_1 s and a
 * wrong Q8_K bsum: each is off by at least one step where it differs, and 0 elsewhere. */
static void test_error(void)
{
	float x[256];
	for (int j = 0; j < 32; j++)
		x[j] = (float)(j - 16);
	uint8_t e[292], g[292];
	int64_t n32 = 32, n256 = 256;
	qref_ggml_quantize_row(QCF_GGML_Q4_0, x, e, 32);
	memcpy(g, e, 18);
	for (int j = 0; j < 16; j++)
		g[2 + j] = (uint8_t)(e[2 + j] << 4 | e[2 + j] >> 4);
	qcf_tensor te = tensor_of(QCF_GGML_Q4_0, &n32, e), tg = tensor_of(QCF_GGML_Q4_0, &n32, g);
	CU_ASSERT_EQUAL(qref_ggml_error(&te, &te, 5), 0.0);
	/* element 0: want q 0 (-16), the swap gives q 8 (0): +8 steps of d = 2 */
	CU_ASSERT_EQUAL(qref_ggml_error(&te, &tg, 0), 8.0);
	CU_ASSERT_EQUAL(qref_ggml_error(&te, &tg, 16), -8.0);
	CU_ASSERT_EQUAL(qref_get(&tg, 16), -16.0); /* qref_get: the dequantized value */

	for (int j = 0; j < 32; j++)
		x[j] = (float)(j % 16 - 8);
	qref_ggml_quantize_row(QCF_GGML_Q4_1, x, e, 32);
	memcpy(g, e, 20);
	g[2] = g[3] = 0; /* m = 0 */
	te = tensor_of(QCF_GGML_Q4_1, &n32, e);
	tg = tensor_of(QCF_GGML_Q4_1, &n32, g);
	CU_ASSERT_EQUAL(qref_ggml_error(&te, &tg, 7), 8.0);

	qref_ggml_quantize_row(QCF_GGML_Q8_1, x, e, 32);
	memcpy(g, e, 36);
	g[2] ^= 1; /* s one fp16 ulp off */
	te = tensor_of(QCF_GGML_Q8_1, &n32, e);
	tg = tensor_of(QCF_GGML_Q8_1, &n32, g);
	CU_ASSERT_EQUAL(fabs(qref_ggml_error(&te, &tg, 31)), 1.0);

	for (int j = 0; j < 256; j++)
		x[j] = urand();
	qref_ggml_quantize_row(QCF_GGML_Q8_K, x, e, 256);
	memcpy(g, e, 292);
	g[260 + 2 * 3] ^= 1; /* bsums[3]: elements 48..63 */
	te = tensor_of(QCF_GGML_Q8_K, &n256, e);
	tg = tensor_of(QCF_GGML_Q8_K, &n256, g);
	CU_ASSERT_EQUAL(qref_ggml_error(&te, &tg, 47), 0.0);
	CU_ASSERT_EQUAL(fabs(qref_ggml_error(&te, &tg, 48)), 1.0);
	CU_ASSERT_EQUAL(fabs(qref_ggml_error(&te, &tg, 63)), 1.0);
	CU_ASSERT_EQUAL(qref_ggml_error(&te, &tg, 64), 0.0);
	/* a different scale: the error is a fraction of the expected step */
	memcpy(g, e, 292);
	float d;
	memcpy(&d, g, 4);
	d *= 1.25f;
	memcpy(g, &d, 4);
	const double err = qref_ggml_error(&te, &tg, 100);
	CU_ASSERT(err != 0 && fabs(fabs(err) - 0.25 * abs((int8_t)e[4 + 100])) < 1e-5 * fabs(err));
}

/* ---- the ops through qref_execute ---- */

static qref_detail g_d;

static void ginit(qt *x, const char *name, qcf_dtype dt, int rank, const int64_t *shape)
{
	qt_init(x, dt, rank, shape);
	x->t.name = name;
}

static void test_ops(void)
{
	/* quantize_row then dequantize_row of [2, 32] through qref_execute */
	static const int64_t s2[] = {2, 32};
	qt x, q, y;
	ginit(&x, "x", QCF_FLOAT32, 2, s2);
	for (int j = 0; j < 64; j++)
		x.f32[j] = (float)(j % 32 - 16) * (j < 32 ? 1.0f : 0.5f);
	ginit(&q, "y", QCF_GGML_Q4_0, 2, s2);
	CU_ASSERT_EQUAL(qt_run("ggml", "quantize_row", (qt *[]){&x}, 1, (qt *[]){&q}, 1, NULL, 0,
	                       qt_detail(&g_d, QREF_ROUND_DEFAULT)),
	                QCF_OK);
	CU_ASSERT_EQUAL(q.buf[0], 0x00);
	CU_ASSERT_EQUAL(q.buf[1], 0x40);           /* row 0: d = 2 */
	CU_ASSERT_EQUAL(q.buf[18 + 1], 0x3c);      /* row 1: d = 1 */
	CU_ASSERT_EQUAL(q.buf[2], 0x80);           /* element 16 in the high nibble */
	CU_ASSERT_EQUAL(qt_get(&q, 32 + 1), -7.0); /* row 1, x = -7.5: a tie, up */
	q.t.name = "x";
	ginit(&y, "y", QCF_FLOAT32, 2, s2);
	CU_ASSERT_EQUAL(qt_run("ggml", "dequantize_row", (qt *[]){&q}, 1, (qt *[]){&y}, 1, NULL, 0,
	                       qt_detail(&g_d, QREF_ROUND_DEFAULT)),
	                QCF_OK);
	CU_ASSERT_EQUAL(y.f32[0], -16.0f);
	CU_ASSERT_EQUAL(y.f32[32 + 31], 7.0f);

	/* mul_mat: a = that Q4_0 [2, 32], b float32 [1, 32] all 1 -> quantized to Q8_0: amax 1,
	 * d = fp16(1 / 127), q = roundf(1 * (1 / d)) = 127; y[0][r] = sumi_r * d_r * d_b with
	 * sumi_r = 127 * sum of row r's (q - 8) */
	static const int64_t sb[] = {1, 32}, sy[] = {1, 2};
	qt b, out;
	ginit(&b, "b", QCF_FLOAT32, 2, sb);
	for (int j = 0; j < 32; j++)
		b.f32[j] = 1.0f;
	q.t.name = "a";
	ginit(&out, "y", QCF_FLOAT32, 2, sy);
	CU_ASSERT_EQUAL(qt_run("ggml", "mul_mat", (qt *[]){&q, &b}, 2, (qt *[]){&out}, 1, NULL, 0,
	                       qt_detail(&g_d, QREF_ROUND_DEFAULT)),
	                QCF_OK);
	const float db = qref_f16_to_f32(qref_f32_to_f16(1.0f / 127));
	for (int r = 0; r < 2; r++) {
		int s = 0;
		for (int j = 0; j < 32; j++) {
			const uint8_t by = q.buf[18 * r + 2 + j % 16];
			s += (j < 16 ? by & 15 : by >> 4) - 8;
		}
		const float dr = r == 0 ? 2.0f : 1.0f;
		CU_ASSERT_EQUAL(out.f32[r], (float)(127 * s) * dr * db);
	}
	/* refusals */
	qt bad;
	static const int64_t s30[] = {1, 30};
	ginit(&bad, "x", QCF_FLOAT32, 2, s30);
	ginit(&y, "y", QCF_GGML_Q8_0, 2, s30);
	CU_ASSERT_EQUAL(qt_run("ggml", "quantize_row", (qt *[]){&bad}, 1, (qt *[]){&y}, 1, NULL, 0,
	                       qt_detail(&g_d, QREF_ROUND_DEFAULT)),
	                QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(g_d.message, "multiple of"));
	ginit(&x, "x", QCF_GGML_Q8_1, 2, s2);
	ginit(&y, "y", QCF_FLOAT32, 2, s2);
	CU_ASSERT_EQUAL(qt_run("ggml", "dequantize_row", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0,
	                       qt_detail(&g_d, QREF_ROUND_DEFAULT)),
	                QCF_INVALID_PARAM);
	ginit(&x, "a", QCF_GGML_Q8_K, 2, (const int64_t[]){1, 256});
	ginit(&b, "b", QCF_FLOAT32, 2, (const int64_t[]){1, 256});
	ginit(&y, "y", QCF_FLOAT32, 2, (const int64_t[]){1, 1});
	CU_ASSERT_EQUAL(qt_run("ggml", "mul_mat", (qt *[]){&x, &b}, 2, (qt *[]){&y}, 1, NULL, 0,
	                       qt_detail(&g_d, QREF_ROUND_DEFAULT)),
	                QCF_INVALID_PARAM);
	CU_ASSERT_PTR_NOT_NULL(strstr(g_d.message, "vec_dot"));
	CU_ASSERT_EQUAL(qref_dtype_parse("ggml_q5_k"), QCF_GGML_Q5_K);
	CU_ASSERT_STRING_EQUAL(qref_dtype_name(QCF_GGML_Q8_K), "ggml_q8_k");
}

/* A kernel with Q4_0's nibbles swapped (suite/stubs/ggml_q4_0_nibbles.c: element j high,
 * j + 16 low) fails every Q4_0 case, writer and readers, and nothing else. */
static void test_stub_q4_0_nibbles(void)
{
	const char *tmp = qct_tmpdir();
	int st, q4 = 0, bad = 0;
	json_t *r = qct_run_report(tmp, &st, NULL, "--profile ggml --plugin %s",
	                           qct_stub("ggml_q4_0_nibbles"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_str(c, "verdict"), *name = qct_str(c, "name");
		int neg = !strcmp(qct_str(c, "expect"), "error");
		int want_fail = strstr(name, "q4_0") && !neg;
		q4 += want_fail;
		if (want_fail ? strcmp(v, "FAIL") != 0
		              : strcmp(v, "PASS") != 0 && strcmp(v, "EXPECTED_ERROR") != 0) {
			if (bad++ < 3)
				fprintf(stderr, "\n  q4_0 nibbles: %s %s", name, v);
		}
	}
	CU_ASSERT(q4 >= 40);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_ggml(void)
{
	CU_pSuite s = qct_suite("ggml");
	CU_add_test(s, "Q4_0 block by hand, nibble order", test_q4_0_golden);
	CU_add_test(s, "Q4_1 block by hand, the min, a constant block", test_q4_1_golden);
	CU_add_test(s, "Q5_0 and Q5_1 blocks by hand, qh", test_q5_golden);
	CU_add_test(s, "Q8_0 and Q8_1 blocks by hand, roundf ties, s", test_q8_golden);
	CU_add_test(s, "Q8_K block by hand, bsums, all zero", test_q8_k_golden);
	CU_add_test(s, "Q2_K block by hand", test_q2_k_golden);
	CU_add_test(s, "Q3_K block by hand, hmask, 6-bit scales", test_q3_k_golden);
	CU_add_test(s, "Q4_K block by hand, get_scale_min_k4", test_q4_k_golden);
	CU_add_test(s, "Q5_K block by hand, qh", test_q5_k_golden);
	CU_add_test(s, "Q6_K block by hand", test_q6_k_golden);
	CU_add_test(s, "round trips within their steps", test_round_trip);
	CU_add_test(s, "vec_dot Q4_0 x Q8_0 and Q4_1 x Q8_1 by hand", test_vec_dot_golden);
	CU_add_test(s, "vec_dot Q4_K x Q8_K by hand", test_vec_dot_k_golden);
	CU_add_test(s, "vec_dot within its bound of the dequantized sum",
	            test_vec_dot_vs_dequantized);
	CU_add_test(s, "comparison in steps, Q8_1 s and Q8_K bsums", test_error);
	CU_add_test(s, "quantize_row, dequantize_row, mul_mat through qref_execute", test_ops);
	CU_add_test(s, "Q4_0 with its nibbles swapped fails every Q4_0 case",
	            test_stub_q4_0_nibbles);
}
