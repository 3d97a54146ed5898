/*
 * Tests of the LiteRT layout family (reference/litert_layout.c): pooling,
 * MEAN/SUM, RESIZE_BILINEAR and the data movement ops, on hand-checked
 * values (specs/litert/OPERATORS.md, "LiteRT layout family"), their refusals, and
 * an end-to-end run of the family's specs with the reference.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"
#include "reference/dtype.h"
#include "reference/kernel.h"
#include "reference/qref.h"
#include "tensor.h"

/* A tensor of the given shape, data v (n values, may be NULL), quantized when s > 0. */
static void lt_init(qt *x, qcf_dtype dt, int rank, const int64_t *shape, const double *v, float s,
                    int32_t zp)
{
	qt_make(x, dt, rank, shape, s, zp);
	if (v)
		qt_fill(x, v, qref_numel(rank, shape));
}

static qref_detail g_d;

static qcf_status run(const char *op, qt **ins, int nin, qt *out, const qcf_attr *attrs, int na,
                      qref_rounding r)
{
	return qt_run("litert", op, ins, nin, &out, 1, attrs, na, qt_detail(&g_d, r));
}

#define ASSERT_INVALID(st, rule)                                                                   \
	do {                                                                                       \
		CU_ASSERT_EQUAL(st, QCF_INVALID_PARAM);                                            \
		CU_ASSERT_PTR_NOT_NULL(strstr(g_d.message, rule));                                 \
	} while (0)

/* ---- AVERAGE_POOL_2D / MAX_POOL_2D ------------------------------------- */

static void pool_attrs(qcf_attr *a, const char *pad, int sh, int sw, int fh, int fw,
                       const char *act)
{
	a[0] = qt_str("padding", pad);
	a[1] = qt_int("stride_h", sh);
	a[2] = qt_int("stride_w", sw);
	a[3] = qt_int("filter_height", fh);
	a[4] = qt_int("filter_width", fw);
	a[5] = qt_str("fused_activation_function", act);
}

static void test_avg_pool_ties_and_border(void)
{
	static const int64_t s4[4] = {1, 2, 2, 1}, s1[4] = {1, 1, 2, 1}, so[4] = {1, 1, 1, 1};
	qt x, y;
	qcf_attr a[6];
	/* ties away from zero: (1 + 2) / 2 = 1.5 -> 2, (-1 - 2) / 2 -> -2 */
	lt_init(&x, QCF_INT8, 4, s1, (double[]){1, 2}, 0.1f, 0);
	lt_init(&y, QCF_INT8, 4, so, NULL, 0.1f, 0);
	pool_attrs(a, "VALID", 1, 2, 1, 2, "NONE");
	CU_ASSERT_EQUAL(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){2}, 1));
	lt_init(&x, QCF_INT8, 4, s1, (double[]){-1, -2}, 0.1f, 0);
	CU_ASSERT_EQUAL(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){-2}, 1));
	/* SAME 2x2 over 2x2: only in-image taps count */
	lt_init(&x, QCF_INT8, 4, s4, (double[]){10, 20, 30, 41}, 0.1f, 0);
	lt_init(&y, QCF_INT8, 4, s4, NULL, 0.1f, 0);
	pool_attrs(a, "SAME", 1, 1, 2, 2, "NONE");
	CU_ASSERT_EQUAL(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){25, 31, 36, 41}, 4));
	/* max over in-image taps only: all-negative windows stay negative */
	lt_init(&x, QCF_INT8, 4, s4, (double[]){-100, -20, -30, -128}, 0.1f, 0);
	CU_ASSERT_EQUAL(run("MAX_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){-20, -20, -30, -128}, 4));
	/* RELU6 range at the output's parameters: [zp, zp + 6/scale] */
	lt_init(&x, QCF_INT8, 4, s4, (double[]){-50, 120, 0, 30}, 0.1f, -10);
	lt_init(&y, QCF_INT8, 4, s4, NULL, 0.1f, -10);
	pool_attrs(a, "VALID", 1, 1, 1, 1, "RELU6");
	CU_ASSERT_EQUAL(run("MAX_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){-10, 50, 0, 30}, 4));
	/* RELU_N1_TO_1: [zp - 10, zp + 10] */
	pool_attrs(a, "VALID", 1, 1, 1, 1, "RELU_N1_TO_1");
	CU_ASSERT_EQUAL(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){-20, 0, 0, 0}, 4));
	/* int16 saturation is the activation clamp, not a wrap */
	lt_init(&x, QCF_INT16, 4, s1, (double[]){32767, 32767}, 0.001f, 0);
	lt_init(&y, QCF_INT16, 4, so, NULL, 0.001f, 0);
	pool_attrs(a, "VALID", 1, 2, 1, 2, "NONE");
	CU_ASSERT_EQUAL(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){32767}, 1));
}

static void test_pool_refusals(void)
{
	static const int64_t s4[4] = {1, 2, 2, 1}, s3[3] = {2, 2, 1}, s0[4] = {1, 0, 0, 1};
	qt x, y;
	qcf_attr a[6];
	lt_init(&x, QCF_INT8, 4, s4, (double[]){1, 2, 3, 4}, 0.1f, 0);
	lt_init(&y, QCF_INT8, 4, s4, NULL, 0.1f, 0);
	pool_attrs(a, "SAME", 0, 1, 2, 2, "NONE");
	ASSERT_INVALID(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), "strides must be > 0");
	pool_attrs(a, "SAME", 1, 1, 0, 2, "NONE");
	ASSERT_INVALID(run("MAX_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0),
	               "filter sizes must be > 0");
	pool_attrs(a, "FULL", 1, 1, 1, 1, "NONE");
	ASSERT_INVALID(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), "SAME or VALID");
	pool_attrs(a, "SAME", 1, 1, 1, 1, "TANH");
	ASSERT_INVALID(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0),
	               "fused_activation_function");
	pool_attrs(a, "VALID", 1, 1, 4, 1, "NONE");
	lt_init(&y, QCF_INT8, 4, s0, NULL, 0.1f, 0);
	ASSERT_INVALID(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), "VALID output size");
	pool_attrs(a, "SAME", 1, 1, 1, 1, "NONE");
	lt_init(&y, QCF_INT8, 4, s0, NULL, 0.1f, 0);
	ASSERT_INVALID(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), "output shape");
	lt_init(&x, QCF_INT8, 3, s3, (double[]){1, 2, 3, 4}, 0.1f, 0);
	lt_init(&y, QCF_INT8, 3, s3, NULL, 0.1f, 0);
	ASSERT_INVALID(run("MAX_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), "rank 4");
	lt_init(&x, QCF_INT8, 4, s4, (double[]){1, 2, 3, 4}, 0.1f, 0);
	lt_init(&y, QCF_INT16, 4, s4, NULL, 0.1f, 0);
	ASSERT_INVALID(run("MAX_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, 0), "differs");
	/* no requantization rounding in pooling */
	lt_init(&y, QCF_INT8, 4, s4, NULL, 0.1f, 0);
	CU_ASSERT_EQUAL(run("AVERAGE_POOL_2D", (qt *[]){&x}, 1, &y, a, 6, QREF_ROUND_SINGLE),
	                QCF_NOT_SUPPORTED);
}

/* ---- MEAN / SUM -------------------------------------------------------- */

static void test_mean_sum(void)
{
	static const int64_t s16[2] = {1, 6}, s13[2] = {1, 3}, s1[1] = {1}, s2[1] = {2},
	                     s23[2] = {2, 3}, s30[2] = {3, 0}, s3[1] = {3};
	qt x, ax, y;
	qcf_attr k0 = qt_int("keep_dims", 0);
	/* TFLM MEAN golden: [2,48,26,6,18,34] at 0.5 -> 0.5 gives 23 (double rounding),
	 * 22 in the single-rounding build (specs/litert/OPERATORS.md, MEAN / SUM) */
	lt_init(&x, QCF_INT8, 2, s16, (double[]){2, 48, 26, 6, 18, 34}, 0.5f, 0);
	lt_init(&ax, QCF_INT32, 1, s1, (double[]){1}, 0, 0);
	lt_init(&y, QCF_INT8, 1, s1, NULL, 0.5f, 0);
	CU_ASSERT_EQUAL(run("MEAN", (qt *[]){&x, &ax}, 2, &y, &k0, 1, QREF_ROUND_DOUBLE), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){23}, 1));
	CU_ASSERT_EQUAL(run("MEAN", (qt *[]){&x, &ax}, 2, &y, &k0, 1, QREF_ROUND_SINGLE), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){22}, 1));
	CU_ASSERT_EQUAL(run("MEAN", (qt *[]){&x, &ax}, 2, &y, &k0, 1, QREF_ROUND_HALF_EVEN),
	                QCF_NOT_SUPPORTED);
	/* SUM: (134 - 2*6) * 0.5 / 1.0 = 61, + zp_out -3 = 58 */
	lt_init(&x, QCF_INT8, 2, s16, (double[]){2, 48, 26, 6, 18, 34}, 0.5f, 2);
	lt_init(&y, QCF_INT8, 1, s1, NULL, 1.0f, -3);
	CU_ASSERT_EQUAL(run("SUM", (qt *[]){&x, &ax}, 2, &y, &k0, 1, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){58}, 1));
	/* SRDHM sends the negative tie -1.5 up to -1 (specs/litert/OPERATORS.md, "Integer
	 * requantization") */
	lt_init(&x, QCF_INT8, 2, s13, (double[]){-1, -1, -1}, 0.5f, 0);
	lt_init(&y, QCF_INT8, 1, s1, NULL, 1.0f, 0);
	CU_ASSERT_EQUAL(run("SUM", (qt *[]){&x, &ax}, 2, &y, &k0, 1, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){-1}, 1));
	/* saturation */
	lt_init(&x, QCF_INT8, 2, s13, (double[]){127, 127, 127}, 1.0f, 0);
	CU_ASSERT_EQUAL(run("SUM", (qt *[]){&x, &ax}, 2, &y, &k0, 1, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){127}, 1));
	/* duplicate and negative axes reduce once; keep_dims */
	qcf_attr k1 = qt_int("keep_dims", 1);
	static const int64_t s11[2] = {1, 1};
	lt_init(&x, QCF_INT8, 2, s23, (double[]){1, 2, 3, 4, 5, 6}, 1.0f, 0);
	lt_init(&ax, QCF_INT32, 1, s3, (double[]){0, -1, 1}, 0, 0);
	lt_init(&y, QCF_INT8, 2, s11, NULL, 1.0f, 0);
	CU_ASSERT_EQUAL(run("SUM", (qt *[]){&x, &ax}, 2, &y, &k1, 1, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){21}, 1));
	/* empty input: zero-filled output */
	lt_init(&x, QCF_INT8, 2, s30, NULL, 0.5f, 7);
	lt_init(&ax, QCF_INT32, 1, s1, (double[]){1}, 0, 0);
	lt_init(&y, QCF_INT8, 1, s3, (double[]){9, 9, 9}, 0.5f, 7);
	CU_ASSERT_EQUAL(run("MEAN", (qt *[]){&x, &ax}, 2, &y, &k0, 1, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){0, 0, 0}, 3));
	/* refusals */
	lt_init(&x, QCF_INT8, 2, s23, (double[]){1, 2, 3, 4, 5, 6}, 1.0f, 0);
	lt_init(&ax, QCF_INT32, 1, s1, (double[]){2}, 0, 0);
	lt_init(&y, QCF_INT8, 1, s2, NULL, 1.0f, 0);
	ASSERT_INVALID(run("MEAN", (qt *[]){&x, &ax}, 2, &y, &k0, 1, 0), "out of range");
	lt_init(&ax, QCF_INT64, 1, s1, (double[]){1}, 0, 0);
	ASSERT_INVALID(run("MEAN", (qt *[]){&x, &ax}, 2, &y, &k0, 1, 0), "int32");
	lt_init(&ax, QCF_INT32, 1, s1, (double[]){1}, 0, 0);
	lt_init(&x, QCF_INT16, 2, s23, (double[]){1, 2, 3, 4, 5, 6}, 1.0f, 1);
	lt_init(&y, QCF_INT16, 1, s2, NULL, 1.0f, 0);
	ASSERT_INVALID(run("SUM", (qt *[]){&x, &ax}, 2, &y, &k0, 1, 0), "zero points 0");
	lt_init(&x, QCF_INT8, 2, s23, (double[]){1, 2, 3, 4, 5, 6}, 1.0f, 0);
	lt_init(&y, QCF_INT8, 1, s3, NULL, 1.0f, 0);
	ASSERT_INVALID(run("SUM", (qt *[]){&x, &ax}, 2, &y, &k0, 1, 0), "output shape");
}

/* ---- RESIZE_BILINEAR --------------------------------------------------- */

static void test_resize(void)
{
	static const int64_t si[4] = {1, 1, 2, 1}, so[4] = {1, 1, 4, 1}, s2[1] = {2};
	qt x, sz, y;
	qcf_attr a[2] = {qt_int("align_corners", 0), qt_int("half_pixel_centers", 0)};
	lt_init(&x, QCF_INT8, 4, si, (double[]){3, 6}, 0.5f, 0);
	lt_init(&sz, QCF_INT32, 1, s2, (double[]){1, 4}, 0, 0);
	lt_init(&y, QCF_INT8, 4, so, NULL, 0.5f, 0);
	CU_ASSERT_EQUAL(run("RESIZE_BILINEAR", (qt *[]){&x, &sz}, 2, &y, a, 2, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){3, 5, 6, 6}, 4));
	/* negative tie: -4.5 -> -5 (default, away), -4 (single rounding, floor(x + 1/2)) */
	lt_init(&x, QCF_INT8, 4, si, (double[]){-3, -6}, 0.5f, 0);
	CU_ASSERT_EQUAL(run("RESIZE_BILINEAR", (qt *[]){&x, &sz}, 2, &y, a, 2, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){-3, -5, -6, -6}, 4));
	CU_ASSERT_EQUAL(run("RESIZE_BILINEAR", (qt *[]){&x, &sz}, 2, &y, a, 2, QREF_ROUND_SINGLE),
	                QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){-3, -4, -6, -6}, 4));
	/* align_corners: 2 -> 4 samples at 0, 1/3, 2/3, 1 */
	a[0] = qt_int("align_corners", 1);
	lt_init(&x, QCF_INT8, 4, si, (double[]){0, 90}, 0.5f, 0);
	CU_ASSERT_EQUAL(run("RESIZE_BILINEAR", (qt *[]){&x, &sz}, 2, &y, a, 2, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){0, 30, 60, 90}, 4));
	a[1] = qt_int("half_pixel_centers", 1);
	ASSERT_INVALID(run("RESIZE_BILINEAR", (qt *[]){&x, &sz}, 2, &y, a, 2, 0), "cannot both");
	a[0] = qt_int("align_corners", 0);
	lt_init(&sz, QCF_INT32, 1, s2, (double[]){0, 4}, 0, 0);
	ASSERT_INVALID(run("RESIZE_BILINEAR", (qt *[]){&x, &sz}, 2, &y, a, 2, 0), "> 0");
}

/* ---- data movement ----------------------------------------------------- */

static void test_concat(void)
{
	static const int64_t s2[1] = {2}, s1[1] = {1}, s3[1] = {3};
	qt a, b, y;
	qcf_attr at[2] = {qt_int("axis", -1), qt_str("fused_activation_function", "NONE")};
	lt_init(&a, QCF_INT8, 1, s2, (double[]){1, -128}, 0.05f, -7);
	lt_init(&b, QCF_INT8, 1, s1, (double[]){127}, 0.05f, -7);
	lt_init(&y, QCF_INT8, 1, s3, NULL, 0.05f, -7);
	CU_ASSERT_EQUAL(run("CONCATENATION", (qt *[]){&a, &b}, 2, &y, at, 2, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){1, -128, 127}, 3));
	lt_init(&b, QCF_INT8, 1, s1, (double[]){127}, 0.06f, -7);
	ASSERT_INVALID(run("CONCATENATION", (qt *[]){&a, &b}, 2, &y, at, 2, 0), "must equal");
	lt_init(&b, QCF_INT8, 1, s1, (double[]){127}, 0.05f, -6);
	ASSERT_INVALID(run("CONCATENATION", (qt *[]){&a, &b}, 2, &y, at, 2, 0), "must equal");
	/* int16: scales not compared, zero points must be 0 */
	lt_init(&a, QCF_INT16, 1, s2, (double[]){1, -2}, 0.01f, 0);
	lt_init(&b, QCF_INT16, 1, s1, (double[]){300}, 0.5f, 0);
	lt_init(&y, QCF_INT16, 1, s3, NULL, 0.02f, 0);
	CU_ASSERT_EQUAL(run("CONCATENATION", (qt *[]){&a, &b}, 2, &y, at, 2, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){1, -2, 300}, 3));
	lt_init(&b, QCF_INT16, 1, s1, (double[]){300}, 0.5f, 1);
	ASSERT_INVALID(run("CONCATENATION", (qt *[]){&a, &b}, 2, &y, at, 2, 0), "zero points 0");
	at[0] = qt_int("axis", 1);
	ASSERT_INVALID(run("CONCATENATION", (qt *[]){&a, &b}, 2, &y, at, 2, 0), "axis");
	at[0] = qt_int("axis", 0);
	at[1] = qt_str("fused_activation_function", "RELU");
	ASSERT_INVALID(run("CONCATENATION", (qt *[]){&a, &b}, 2, &y, at, 2, 0), "NONE");
}

static void test_transpose_reshape_slice(void)
{
	static const int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s2[1] = {2}, s12[2] = {1, 2},
	                     s6[1] = {6};
	qt x, p, y, b, z;
	lt_init(&x, QCF_INT8, 2, s23, (double[]){1, 2, 3, 4, 5, 6}, 0.1f, 0);
	lt_init(&p, QCF_INT32, 1, s2, (double[]){-1, 0}, 0, 0);
	lt_init(&y, QCF_INT8, 2, s32, NULL, 0.1f, 0);
	CU_ASSERT_EQUAL(run("TRANSPOSE", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){1, 4, 2, 5, 3, 6}, 6));
	lt_init(&p, QCF_INT32, 1, s2, (double[]){1, -1}, 0, 0);
	ASSERT_INVALID(run("TRANSPOSE", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), "repeat");
	lt_init(&p, QCF_INT32, 1, s2, (double[]){2, 0}, 0, 0);
	ASSERT_INVALID(run("TRANSPOSE", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), "out of");
	/* RESHAPE with -1 */
	lt_init(&p, QCF_INT32, 1, s2, (double[]){-1, 2}, 0, 0);
	CU_ASSERT_EQUAL(run("RESHAPE", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){1, 2, 3, 4, 5, 6}, 6));
	lt_init(&p, QCF_INT32, 1, s2, (double[]){-1, -1}, 0, 0);
	ASSERT_INVALID(run("RESHAPE", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), "at most one");
	lt_init(&p, QCF_INT32, 1, s2, (double[]){4, 2}, 0, 0);
	ASSERT_INVALID(run("RESHAPE", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), "elements");
	/* SLICE with size -1 */
	lt_init(&b, QCF_INT32, 1, s2, (double[]){1, 1}, 0, 0);
	lt_init(&z, QCF_INT32, 1, s2, (double[]){-1, -1}, 0, 0);
	lt_init(&y, QCF_INT8, 2, s12, NULL, 0.1f, 0);
	CU_ASSERT_EQUAL(run("SLICE", (qt *[]){&x, &b, &z}, 3, &y, NULL, 0, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){5, 6}, 2));
	lt_init(&z, QCF_INT32, 1, s2, (double[]){-2, 1}, 0, 0);
	ASSERT_INVALID(run("SLICE", (qt *[]){&x, &b, &z}, 3, &y, NULL, 0, 0), "size[0]");
	lt_init(&z, QCF_INT32, 1, s2, (double[]){1, 3}, 0, 0);
	ASSERT_INVALID(run("SLICE", (qt *[]){&x, &b, &z}, 3, &y, NULL, 0, 0), "size[1]");
	/* raw copies ignore the rounding only when it is the default */
	lt_init(&p, QCF_INT32, 1, s2, (double[]){6, 1}, 0, 0);
	lt_init(&y, QCF_INT8, 1, s6, NULL, 0.1f, 0);
	CU_ASSERT_EQUAL(run("RESHAPE", (qt *[]){&x, &p}, 2, &y, NULL, 0, QREF_ROUND_DOUBLE),
	                QCF_NOT_SUPPORTED);
}

static void test_pad_gather_squeeze(void)
{
	static const int64_t s2[1] = {2}, s12[2] = {1, 2}, s5[1] = {5}, s1[1] = {1}, s4[1] = {4},
	                     s3[1] = {3}, s21[2] = {2, 1};
	qt x, p, c, y;
	lt_init(&x, QCF_INT8, 1, s2, (double[]){5, -5}, 0.05f, 9);
	lt_init(&p, QCF_INT32, 2, s12, (double[]){1, 2}, 0, 0);
	lt_init(&y, QCF_INT8, 1, s5, NULL, 0.05f, 9);
	CU_ASSERT_EQUAL(run("PAD", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){9, 5, -5, 9, 9}, 5));
	lt_init(&c, QCF_INT8, 1, s1, (double[]){-128}, 0.05f, 9);
	CU_ASSERT_EQUAL(run("PADV2", (qt *[]){&x, &p, &c}, 3, &y, NULL, 0, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){-128, 5, -5, -128, -128}, 5));
	lt_init(&c, QCF_INT8, 1, s1, (double[]){-128}, 0.05f, 8);
	ASSERT_INVALID(run("PADV2", (qt *[]){&x, &p, &c}, 3, &y, NULL, 0, 0), "must equal");
	lt_init(&p, QCF_INT32, 2, s12, (double[]){-1, 2}, 0, 0);
	ASSERT_INVALID(run("PAD", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), ">= 0");
	/* int64 paddings are read whole: -(2^53 + 1) is named as it is, not as the nearest double
	 */
	lt_init(&p, QCF_INT64, 2, s12, NULL, 0, 0);
	p.i64[0] = -INT64_C(9007199254740993);
	p.i64[1] = 2;
	ASSERT_INVALID(run("PAD", (qt *[]){&x, &p}, 2, &y, NULL, 0, 0), "got -9007199254740993");
	/* GATHER with int16 positions; out of range refused */
	qcf_attr ga[2] = {qt_int("axis", 0), qt_int("batch_dims", 0)};
	lt_init(&x, QCF_INT8, 1, s4, (double[]){10, 20, 30, 40}, 0.1f, 0);
	lt_init(&p, QCF_INT16, 1, s3, (double[]){3, 0, 3}, 0, 0);
	lt_init(&y, QCF_INT8, 1, s3, NULL, 0.1f, 0);
	CU_ASSERT_EQUAL(run("GATHER", (qt *[]){&x, &p}, 2, &y, ga, 2, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){40, 10, 40}, 3));
	lt_init(&p, QCF_INT32, 1, s3, (double[]){3, 4, 0}, 0, 0);
	ASSERT_INVALID(run("GATHER", (qt *[]){&x, &p}, 2, &y, ga, 2, 0), "position 4");
	lt_init(&p, QCF_INT32, 1, s3, (double[]){-1, 0, 0}, 0, 0);
	ASSERT_INVALID(run("GATHER", (qt *[]){&x, &p}, 2, &y, ga, 2, 0), "position -1");
	/* SQUEEZE */
	int64_t d0 = 0;
	qcf_attr sq = {.name = "squeeze_dims", .type = QCF_ATTR_INTS, .count = 1};
	sq.v.ints = &d0;
	lt_init(&x, QCF_INT8, 2, s21, (double[]){1, 2}, 0.1f, 0);
	lt_init(&y, QCF_INT8, 1, s2, NULL, 0.1f, 0);
	ASSERT_INVALID(run("SQUEEZE", (qt *[]){&x}, 1, &y, &sq, 1, 0), "not 1");
	d0 = -1;
	CU_ASSERT_EQUAL(run("SQUEEZE", (qt *[]){&x}, 1, &y, &sq, 1, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){1, 2}, 2));
}

static void test_space_batch(void)
{
	static const int64_t s4111[4] = {4, 1, 1, 1}, s1221[4] = {1, 2, 2, 1}, s2[1] = {2},
	                     s22[2] = {2, 2}, s1222[4] = {1, 2, 2, 2}, s1118[4] = {1, 1, 1, 8};
	qt x, b, c, y, back;
	lt_init(&x, QCF_INT8, 4, s4111, (double[]){1, 2, 3, 4}, 0.05f, -7);
	lt_init(&b, QCF_INT32, 1, s2, (double[]){2, 2}, 0, 0);
	lt_init(&c, QCF_INT32, 2, s22, (double[]){0, 0, 0, 0}, 0, 0);
	lt_init(&y, QCF_INT8, 4, s1221, NULL, 0.05f, -7);
	CU_ASSERT_EQUAL(run("BATCH_TO_SPACE_ND", (qt *[]){&x, &b, &c}, 3, &y, NULL, 0, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){1, 2, 3, 4}, 4));
	/* SPACE_TO_BATCH_ND undoes it */
	lt_init(&back, QCF_INT8, 4, s4111, NULL, 0.05f, -7);
	lt_init(&x, QCF_INT8, 4, s1221, (double[]){1, 2, 3, 4}, 0.05f, -7);
	CU_ASSERT_EQUAL(run("SPACE_TO_BATCH_ND", (qt *[]){&x, &b, &c}, 3, &back, NULL, 0, 0),
	                QCF_OK);
	CU_ASSERT(qt_equals(&back, (double[]){1, 2, 3, 4}, 4));
	/* the SAME rule: these two refuse differing parameters */
	lt_init(&back, QCF_INT8, 4, s4111, NULL, 0.05f, -6);
	ASSERT_INVALID(run("SPACE_TO_BATCH_ND", (qt *[]){&x, &b, &c}, 3, &back, NULL, 0, 0),
	               "must equal");
	lt_init(&x, QCF_INT8, 4, s4111, (double[]){1, 2, 3, 4}, 0.05f, -7);
	lt_init(&y, QCF_INT8, 4, s1221, NULL, 0.1f, -7);
	ASSERT_INVALID(run("BATCH_TO_SPACE_ND", (qt *[]){&x, &b, &c}, 3, &y, NULL, 0, 0),
	               "must equal");
	lt_init(&b, QCF_INT32, 1, s2, (double[]){0, 2}, 0, 0);
	lt_init(&y, QCF_INT8, 4, s1221, NULL, 0.05f, -7);
	ASSERT_INVALID(run("BATCH_TO_SPACE_ND", (qt *[]){&x, &b, &c}, 3, &y, NULL, 0, 0), ">= 1");
	/* SPACE_TO_DEPTH: int16 refused */
	qcf_attr bs = qt_int("block_size", 2);
	lt_init(&x, QCF_INT8, 4, s1222, (double[]){1, 2, 3, 4, 5, 6, 7, 8}, 0.1f, 0);
	lt_init(&y, QCF_INT8, 4, s1118, NULL, 0.1f, 0);
	CU_ASSERT_EQUAL(run("SPACE_TO_DEPTH", (qt *[]){&x}, 1, &y, &bs, 1, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){1, 2, 3, 4, 5, 6, 7, 8}, 8));
	lt_init(&x, QCF_INT16, 4, s1222, (double[]){1, 2, 3, 4, 5, 6, 7, 8}, 0.1f, 0);
	lt_init(&y, QCF_INT16, 4, s1118, NULL, 0.1f, 0);
	ASSERT_INVALID(run("SPACE_TO_DEPTH", (qt *[]){&x}, 1, &y, &bs, 1, 0), "not int16");
}

static void test_argmax_shape(void)
{
	static const int64_t s24[2] = {2, 4}, s1[1] = {1}, s2[1] = {2}, s3[1] = {3},
	                     s235[3] = {2, 3, 5};
	qt x, ax, y;
	lt_init(&x, QCF_INT8, 2, s24, (double[]){5, 9, 9, 1, -3, -3, -3, -3}, 0.1f, 0);
	lt_init(&ax, QCF_INT32, 1, s1, (double[]){-1}, 0, 0);
	lt_init(&y, QCF_INT32, 1, s2, NULL, 0, 0);
	CU_ASSERT_EQUAL(run("ARG_MAX", (qt *[]){&x, &ax}, 2, &y, NULL, 0, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){1, 0}, 2));
	lt_init(&ax, QCF_INT32, 1, s1, (double[]){2}, 0, 0);
	ASSERT_INVALID(run("ARG_MAX", (qt *[]){&x, &ax}, 2, &y, NULL, 0, 0), "axis");
	lt_init(&x, QCF_INT16, 2, s24, NULL, 0.1f, 0);
	lt_init(&ax, QCF_INT32, 1, s1, (double[]){1}, 0, 0);
	ASSERT_INVALID(run("ARG_MAX", (qt *[]){&x, &ax}, 2, &y, NULL, 0, 0), "int16");
	lt_init(&x, QCF_INT8, 3, s235, NULL, 0.1f, 0);
	lt_init(&y, QCF_INT64, 1, s3, NULL, 0, 0);
	CU_ASSERT_EQUAL(run("SHAPE", (qt *[]){&x}, 1, &y, NULL, 0, 0), QCF_OK);
	CU_ASSERT(qt_equals(&y, (double[]){2, 3, 5}, 3));
	lt_init(&y, QCF_INT8, 1, s3, NULL, 0, 0);
	ASSERT_INVALID(run("SHAPE", (qt *[]){&x}, 1, &y, NULL, 0, 0), "int32 or int64");
}

/* ---- real-valued hooks -------------------------------------------------- */

static void test_real_hooks(void)
{
	static const int64_t s1[4] = {1, 1, 2, 1}, so[4] = {1, 1, 1, 1}, s16[2] = {1, 6},
	                     sr[1] = {1};
	qt x, y, ax;
	qcf_attr a[6] = {qt_str("padding", "VALID"), qt_int("stride_h", 1),
	                 qt_int("stride_w", 2),      qt_int("filter_height", 1),
	                 qt_int("filter_width", 2),  qt_str("fused_activation_function", "RELU")};
	lt_init(&x, QCF_INT8, 4, s1, (double[]){-10, -20}, 0.5f, 0);
	lt_init(&y, QCF_INT8, 4, so, NULL, 0.5f, 0);
	qt *in[] = {&x, &ax}, *out[] = {&y};
	qcf_op_call *c = qt_call("litert", "AVERAGE_POOL_2D", in, 1, out, 1, a, 6);
	double v[8];
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[0], 0.0, 0); /* mean -7.5, RELU */
	a[5] = qt_str("fused_activation_function", "NONE");
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[0], -7.5, 0);
	/* MEAN: (mean of q - zp) * scale */
	qcf_attr k0 = qt_int("keep_dims", 0);
	lt_init(&x, QCF_INT8, 2, s16, (double[]){2, 48, 26, 6, 18, 34}, 0.5f, 2);
	lt_init(&ax, QCF_INT32, 1, sr, (double[]){1}, 0, 0);
	lt_init(&y, QCF_INT8, 1, sr, NULL, 0.5f, 0);
	c = qt_call("litert", "MEAN", in, 2, out, 1, &k0, 1);
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[0], (134.0 / 6 - 2) * 0.5, 1e-12);
	c->op = "SUM";
	CU_ASSERT_EQUAL(qref_real_output(c, 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[0], (134.0 - 12) * 0.5, 1e-12);
}

/* ---- the family's specs, end to end ------------------------------------- */

static void test_specs_run(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/average_pool_2d.yaml specs/litert/max_pool_2d.yaml "
	        "specs/litert/mean.yaml specs/litert/mean_hw.yaml specs/litert/sum.yaml "
	        "specs/litert/sum_float.yaml specs/litert/concatenation.yaml "
	        "specs/litert/concatenation3.yaml specs/litert/reshape.yaml "
	        "specs/litert/transpose.yaml specs/litert/pad.yaml specs/litert/padv2.yaml "
	        "specs/litert/slice.yaml specs/litert/gather.yaml specs/litert/squeeze.yaml "
	        "specs/litert/resize_bilinear.yaml specs/litert/space_to_depth.yaml "
	        "specs/litert/batch_to_space_nd.yaml specs/litert/space_to_batch_nd.yaml "
	        "specs/litert/arg_max.yaml specs/litert/shape.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	size_t n = t.cases, bad = t.other, neg = t.expected_error, golden = t.golden;
	printf("\n  layout: %zu cases, %zu expected errors, %zu golden\n", n, neg, golden);
	CU_ASSERT(n >= 4500);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(neg >= 100);
	CU_ASSERT(golden >= 20);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_litert_layout(void)
{
	CU_pSuite s = qct_suite("litert_layout");
	CU_add_test(s, "avg/max pool: ties, border, activations", test_avg_pool_ties_and_border);
	CU_add_test(s, "pool refusals", test_pool_refusals);
	CU_add_test(s, "MEAN/SUM: goldens, roundings, refusals", test_mean_sum);
	CU_add_test(s, "RESIZE_BILINEAR", test_resize);
	CU_add_test(s, "CONCATENATION", test_concat);
	CU_add_test(s, "TRANSPOSE/RESHAPE/SLICE", test_transpose_reshape_slice);
	CU_add_test(s, "PAD/PADV2/GATHER/SQUEEZE", test_pad_gather_squeeze);
	CU_add_test(s, "space/batch/depth", test_space_batch);
	CU_add_test(s, "ARG_MAX/SHAPE", test_argmax_shape);
	CU_add_test(s, "real hooks", test_real_hooks);
	CU_add_test(s, "layout specs end to end", test_specs_run);
}
