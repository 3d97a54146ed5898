/*
 * ONNX reference ops (reference/onnx_qdq.c, reference/onnx_linear.c,
 * specs/onnx/OPERATORS.md): the documented examples and ONNX's backend test
 * vectors through qref_execute, each refusal, and blocked quantization
 * (qcf_quant.block_size) from a spec through the harness and a worker.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "qct.h"
#include "qref.h"
#include "tensor.h"

/* ---- building calls ---------------------------------------------------- */

static void ot_init(qt *x, const char *name, qcf_dtype dt, int rank, const int64_t *shape)
{
	qt_init(x, dt, rank, shape);
	x->t.name = name;
}

static qref_detail g_d;

static qcf_status run(const char *op, qt **ins, int nin, qt **outs, int nout, const qcf_attr *attrs,
                      int na)
{
	return qt_run("onnx", op, ins, nin, outs, nout, attrs, na,
	              qt_detail(&g_d, QREF_ROUND_DEFAULT));
}

/* QCF_INVALID_PARAM with a message containing `part`. */
static int refused(qcf_status s, const char *part)
{
	if (s != QCF_INVALID_PARAM || !strstr(g_d.message, part)) {
		fprintf(stderr, "\n  status %d, message '%s', want INVALID_PARAM with '%s'\n",
		        (int)s, g_d.message, part);
		return 0;
	}
	return 1;
}

/* ---- QLinearMatMul ------------------------------------------------------- */

/* test_qlinearmatmul_2D (onnx/backend/test/case/node/qlinearmatmul.py) */
static void qmm_2d(qt *a, qt *b, qt *y)
{
	static const int64_t as[] = {2, 4}, bs[] = {4, 3}, ys[] = {2, 3};
	static const double av[] = {208, 236, 0, 238, 3, 214, 255, 29};
	static const double bv[] = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247};
	ot_init(a, "a", QCF_UINT8, 2, as);
	qt_quant1(a, 0.0066f, 113);
	qt_fill(a, av, 8);
	ot_init(b, "b", QCF_UINT8, 2, bs);
	qt_quant1(b, 0.00705f, 114);
	qt_fill(b, bv, 12);
	ot_init(y, "y", QCF_UINT8, 2, ys);
	qt_quant1(y, 0.0107f, 118);
}

static void test_qlinear_matmul_golden(void)
{
	qt a, b, y;
	qmm_2d(&a, &b, &y);
	static const double want[] = {168, 115, 255, 1, 66, 151};
	CU_ASSERT_EQUAL(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                QCF_OK);
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, want, 6));

	/* the real-valued result (quant: {auto: range}): acc * a_scale * b_scale */
	double real[6];
	CU_ASSERT_EQUAL(qref_real_output(&qt_last, 0, real), QCF_OK);
	/* row 0, column 0: sum (a - 113) * (b - 114) = 95*38 + 123*(-54) + (-113)*(-114) + 125*13
	 */
	double acc = 95.0 * 38 + 123.0 * -54 + -113.0 * -114 + 125.0 * 13;
	CU_ASSERT_DOUBLE_EQUAL(real[0], acc * (double)0.0066f * (double)0.00705f, 1e-12);
}

/* y_zero_point is added before rounding: 0.5 + 1 = 1.5 rounds to 2 (after rounding: 1), and
 * rint rounds ties to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2). */
static void test_qlinear_matmul_zero_point_before_rounding(void)
{
	static const int64_t as[] = {4, 1}, bs[] = {1, 1}, ys[] = {4, 1};
	static const double av[] = {1, 3, 5, -1};
	qt a, b, y;
	ot_init(&a, "a", QCF_INT8, 2, as);
	qt_quant1(&a, 0.5f, 0);
	qt_fill(&a, av, 4);
	ot_init(&b, "b", QCF_INT8, 2, bs);
	qt_quant1(&b, 1.0f, 0);
	qref_set(&b.t, 0, 1);
	ot_init(&y, "y", QCF_INT8, 2, ys);
	qt_quant1(&y, 1.0f, 1);
	CU_ASSERT_EQUAL(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                QCF_OK);
	static const double want[] = {2, 2, 4,
	                              0}; /* rint(0.5+1), rint(1.5+1), rint(2.5+1), rint(-0.5+1) */
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, want, 4));
}

/* Per-row a and per-column b: element (i, j) uses a_scale[i], a_zp[i], b_scale[j], b_zp[j]. */
static void test_qlinear_matmul_per_row(void)
{
	static const int64_t as[] = {2, 2}, bs[] = {2, 2}, ys[] = {2, 2};
	static const double av[] = {11, 12, 23, 24}, bv[] = {1, 10, 2, 20};
	static const float sa[] = {1.0f, 0.5f}, sb[] = {1.0f, 0.25f};
	static const int32_t za[] = {10, 20}, zb[] = {0, 10};
	qt a, b, y;
	ot_init(&a, "a", QCF_UINT8, 2, as);
	qt_quant_blocked(&a, 0, 0, 2, sa, za);
	qt_fill(&a, av, 4);
	ot_init(&b, "b", QCF_INT8, 2, bs);
	qt_quant_blocked(&b, 1, 0, 2, sb, zb);
	qt_fill(&b, bv, 4);
	ot_init(&y, "y", QCF_INT8, 2, ys);
	qt_quant1(&y, 1.0f, 0);
	CU_ASSERT_EQUAL(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                QCF_OK);
	/* row 0: a - 10 = {1, 2}; row 1: a - 20 = {3, 4}; col 0: b = {1, 2}; col 1: b - 10 =
	 * {0, 10}. acc = {5, 20, 11, 40}; scales {1, 0.25, 0.5, 0.125} -> {5, 5, 5.5, 5} */
	static const double want[] = {5, 5, 6, 5};
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, want, 4));

	/* a per-row count that does not match the rows */
	static const float s3[] = {1, 1, 1};
	static const int32_t z3[] = {0, 0, 0};
	qt_quant_blocked(&a, 0, 0, 3, s3, z3);
	CU_ASSERT(refused(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "3 scales for dimension 0"));
	/* a quantized along its columns */
	qt_quant_blocked(&a, 1, 0, 2, sa, za);
	CU_ASSERT(refused(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "per row"));
}

static void test_qlinear_matmul_refusals(void)
{
	qt a, b, y;
	qmm_2d(&a, &b, &y);
	static const int64_t s33[] = {3, 3};
	ot_init(&b, "b", QCF_UINT8, 2, s33);
	qt_quant1(&b, 0.5f, 0);
	CU_ASSERT(refused(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "do not multiply"));
	qmm_2d(&a, &b, &y);
	a.q.zero_points = a.zps;
	a.zps[0] = 256;
	CU_ASSERT(refused(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "a_zero_point 256 does not fit uint8"));
	qmm_2d(&a, &b, &y);
	y.t.dtype = QCF_INT16;
	y.t.nbytes = 12;
	CU_ASSERT(refused(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "y must be int8 or uint8"));
	qmm_2d(&a, &b, &y);
	y.zps[0] = -1;
	CU_ASSERT(refused(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "y_zero_point -1 does not fit uint8"));
	qmm_2d(&a, &b, &y);
	a.t.quant = NULL;
	CU_ASSERT(refused(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "needs quantization parameters"));
	qmm_2d(&a, &b, &y);
	static const int64_t wrong[] = {3, 2};
	ot_init(&y, "y", QCF_UINT8, 2, wrong);
	qt_quant1(&y, 1.0f, 0);
	CU_ASSERT(refused(run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "output shape"));
}

/* ---- MatMulInteger -------------------------------------------------------- */

static void test_matmul_integer(void)
{
	/* test_matmulinteger (onnx/backend/test/case/node/matmulinteger.py) */
	static const int64_t as[] = {4, 3}, bs[] = {3, 2}, ys[] = {4, 2}, one[] = {1};
	static const double av[] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0},
	                    bv[] = {1, 4, 2, 5, 3, 6};
	qt a, b, za, zb, y;
	ot_init(&a, "a", QCF_UINT8, 2, as);
	qt_fill(&a, av, 12);
	ot_init(&b, "b", QCF_UINT8, 2, bs);
	qt_fill(&b, bv, 6);
	ot_init(&za, "a_zero_point", QCF_UINT8, 1, one);
	qref_set(&za.t, 0, 12);
	ot_init(&zb, "b_zero_point", QCF_UINT8, 1, one);
	ot_init(&y, "y", QCF_INT32, 2, ys);
	static const double want[] = {-38, -83, -44, -98, -50, -113, -56, -128};
	CU_ASSERT_EQUAL(
	        run("MatMulInteger", (qt *[]){&a, &b, &za, &zb}, 4, (qt *[]){&y}, 1, NULL, 0),
	        QCF_OK);
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, want, 8));
	/* the zero points are optional: b_zero_point 0 may be left out */
	memset(y.buf, 0, sizeof y.buf);
	CU_ASSERT_EQUAL(run("MatMulInteger", (qt *[]){&a, &b, &za}, 3, (qt *[]){&y}, 1, NULL, 0),
	                QCF_OK);
	CU_ASSERT(qt_equals(&y, want, 8));
	/* without a_zero_point: a @ b */
	CU_ASSERT_EQUAL(run("MatMulInteger", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                QCF_OK);
	CU_ASSERT_EQUAL(qref_get(&y.t, 0), 11 * 1 + 7 * 2 + 3 * 3);

	/* refusals: zero point of another type, per-row count wrong, int8 output, quantization */
	za.t.dtype = QCF_INT8;
	CU_ASSERT(refused(run("MatMulInteger", (qt *[]){&a, &b, &za}, 3, (qt *[]){&y}, 1, NULL, 0),
	                  "a_zero_point must have the type of a"));
	static const int64_t three[] = {3};
	ot_init(&za, "a_zero_point", QCF_UINT8, 1, three);
	CU_ASSERT(refused(run("MatMulInteger", (qt *[]){&a, &b, &za}, 3, (qt *[]){&y}, 1, NULL, 0),
	                  "or [4] (per row of a)"));
	ot_init(&y, "y", QCF_INT8, 2, ys);
	CU_ASSERT(refused(run("MatMulInteger", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "y must be int32"));
	ot_init(&y, "y", QCF_INT32, 2, ys);
	qt_quant1(&a, 0.5f, 0);
	CU_ASSERT(refused(run("MatMulInteger", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "carries quantization"));
}

/* ---- QLinearConv / ConvInteger -------------------------------------------- */

/* test_qlinearconv (onnx/backend/test/case/node/qlinearconv.py) */
static void test_qlinear_conv_golden(void)
{
	static const int64_t xs[] = {1, 1, 7, 7}, ws[] = {1, 1, 1, 1};
	static const double xv[] = {255, 174, 162, 25,  203, 168, 58,  15,  59,  237, 95,  129, 0,
	                            64,  56,  242, 153, 221, 168, 12,  166, 232, 178, 186, 195, 237,
	                            162, 237, 188, 39,  124, 77,  80,  102, 43,  127, 230, 21,  83,
	                            41,  40,  134, 255, 154, 92,  141, 42,  148, 247};
	static const double want[] = {
	        0,   81,  93,  230, 52,  87,  197, 240, 196, 18,  160, 126, 255, 191, 199, 13,  102,
	        34,  87,  243, 89,  23,  77,  69,  60,  18,  93,  18,  67,  216, 131, 178, 175, 153,
	        212, 128, 25,  234, 172, 214, 215, 121, 0,   101, 163, 114, 213, 107, 8};
	qt x, w, y;
	ot_init(&x, "x", QCF_UINT8, 4, xs);
	qt_quant1(&x, 0.00369204697f, 132);
	qt_fill(&x, xv, 49);
	ot_init(&w, "w", QCF_UINT8, 4, ws);
	qt_quant1(&w, 0.00172794575f, 255);
	ot_init(&y, "y", QCF_UINT8, 4, xs);
	qt_quant1(&y, 0.00162681262f, 123);
	CU_ASSERT_EQUAL(run("QLinearConv", (qt *[]){&x, &w}, 2, (qt *[]){&y}, 1, NULL, 0), QCF_OK);
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, want, 49));
}

/* Grouped, per-channel, SAME_LOWER vs SAME_UPPER, with a bias; and the refusals. */
static void test_qlinear_conv_attrs(void)
{
	/* x [1, 2, 1, 4] = {1, 2, 3, 4 | 5, 6, 7, 8}, zp 0; w [2, 1, 1, 2] = {1, 1 | 1, -1}, group
	 * 2; per channel scales {1, 2}; bias {10, 0}; y scale 1. SAME_UPPER pads (0, 1) along
	 * width: ch0: 1+2, 2+3, 3+4, 4+0 -> +10; ch1 (x 5..8, w {1, -1}, scale 2): -1, -1, -1, 8 ->
	 * *2 */
	static const int64_t xs[] = {1, 2, 1, 4}, ws[] = {2, 1, 1, 2}, bs[] = {2};
	static const double xv[] = {1, 2, 3, 4, 5, 6, 7, 8}, wv[] = {1, 1, 1, -1}, bv[] = {10, 0};
	static const float wsc[] = {1, 2};
	static const int32_t wz[] = {0, 0};
	qt x, w, b, y;
	ot_init(&x, "x", QCF_INT8, 4, xs);
	qt_quant1(&x, 1, 0);
	qt_fill(&x, xv, 8);
	ot_init(&w, "w", QCF_INT8, 4, ws);
	qt_quant_blocked(&w, 0, 0, 2, wsc, wz);
	qt_fill(&w, wv, 4);
	ot_init(&b, "B", QCF_INT32, 1, bs);
	qt_fill(&b, bv, 2);
	ot_init(&y, "y", QCF_INT8, 4, xs);
	qt_quant1(&y, 1, 0);
	qcf_attr at[2] = {qt_str("auto_pad", "SAME_UPPER"),
	                  {.name = "group", .type = QCF_ATTR_INT}};
	at[1].v.i = 2;
	at[1].count = 1;
	CU_ASSERT_EQUAL(run("QLinearConv", (qt *[]){&x, &w, &b}, 3, (qt *[]){&y}, 1, at, 2),
	                QCF_OK);
	static const double upper[] = {13, 15, 17, 14, -2, -2, -2, 16};
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, upper, 8));
	/* SAME_LOWER pads (1, 0): ch0: 0+1, 1+2, 2+3, 3+4; ch1: -5, -1, -1, -1 */
	at[0] = qt_str("auto_pad", "SAME_LOWER");
	CU_ASSERT_EQUAL(run("QLinearConv", (qt *[]){&x, &w, &b}, 3, (qt *[]){&y}, 1, at, 2),
	                QCF_OK);
	static const double lower[] = {11, 13, 15, 17, -10, -2, -2, -2};
	CU_ASSERT(qt_equals(&y, lower, 8));

	/* refusals */
	static const int64_t pads[] = {0, 0, 0, 0}, zero[] = {0, 1};
	qcf_attr bad[3] = {qt_str("auto_pad", "SAME_UPPER"), at[1], qt_ints("pads", pads, 4)};
	CU_ASSERT(refused(run("QLinearConv", (qt *[]){&x, &w, &b}, 3, (qt *[]){&y}, 1, bad, 3),
	                  "pads cannot be used together with auto_pad"));
	bad[0] = qt_str("auto_pad", "SAME");
	CU_ASSERT(refused(run("QLinearConv", (qt *[]){&x, &w, &b}, 3, (qt *[]){&y}, 1, bad, 2),
	                  "auto_pad must be"));
	bad[0] = qt_ints("strides", zero, 2);
	CU_ASSERT(refused(run("QLinearConv", (qt *[]){&x, &w, &b}, 3, (qt *[]){&y}, 1, bad, 2),
	                  "strides: 0 is not an integer >= 1"));
	CU_ASSERT(refused(run("QLinearConv", (qt *[]){&x, &w, &b}, 3, (qt *[]){&y}, 1, at, 1),
	                  "need C == w[1] * group")); /* group 1: C 2 != w[1] 1 */
	b.t.dtype = QCF_INT8;
	b.t.nbytes = 2;
	CU_ASSERT(refused(run("QLinearConv", (qt *[]){&x, &w, &b}, 3, (qt *[]){&y}, 1, at, 2),
	                  "B must be int32"));
	w.q.axis = 3;
	CU_ASSERT(refused(run("QLinearConv", (qt *[]){&x, &w}, 2, (qt *[]){&y}, 1, at, 2),
	                  "per output channel (axis 0)"));
}

/* test_convinteger_with_padding (onnx/backend/test/case/node/convinteger.py) */
static void test_conv_integer(void)
{
	static const int64_t xs[] = {1, 1, 3, 3}, ws[] = {1, 1, 2, 2}, ys[] = {1, 1, 4, 4};
	static const int64_t pads[] = {1, 1, 1, 1};
	static const double xv[] = {2, 3, 4, 5, 6, 7, 8, 9, 10}, wv[] = {1, 1, 1, 1};
	static const double want[] = {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9};
	qt x, w, zx, y;
	ot_init(&x, "x", QCF_UINT8, 4, xs);
	qt_fill(&x, xv, 9);
	ot_init(&w, "w", QCF_UINT8, 4, ws);
	qt_fill(&w, wv, 4);
	ot_init(&zx, "x_zero_point", QCF_UINT8, 0, NULL);
	qref_set(&zx.t, 0, 1);
	ot_init(&y, "y", QCF_INT32, 4, ys);
	qcf_attr at[1] = {qt_ints("pads", pads, 4)};
	CU_ASSERT_EQUAL(run("ConvInteger", (qt *[]){&x, &w, &zx}, 3, (qt *[]){&y}, 1, at, 1),
	                QCF_OK);
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, want, 16));
	/* x_zero_point per channel is refused; so is a rank-2 x */
	static const int64_t two[] = {2};
	ot_init(&zx, "x_zero_point", QCF_UINT8, 1, two);
	CU_ASSERT(refused(run("ConvInteger", (qt *[]){&x, &w, &zx}, 3, (qt *[]){&y}, 1, at, 1),
	                  "x_zero_point must have shape [] or [1] (per tensor)"));
	x.t.rank = 2;
	CU_ASSERT(refused(run("ConvInteger", (qt *[]){&x, &w}, 2, (qt *[]){&y}, 1, NULL, 0),
	                  "at least 3 dimensions"));
}

/* ---- DynamicQuantizeLinear ------------------------------------------------ */

static qcf_status dql(const double *xv, int n, qt *y, qt *ys, qt *yz)
{
	static qt x;
	int64_t shape[1] = {n};
	ot_init(&x, "x", QCF_FLOAT32, 1, shape);
	qt_fill(&x, xv, (size_t)n);
	ot_init(y, "y", QCF_UINT8, 1, shape);
	ot_init(ys, "y_scale", QCF_FLOAT32, 0, NULL);
	ot_init(yz, "y_zero_point", QCF_UINT8, 0, NULL);
	qcf_status s =
	        run("DynamicQuantizeLinear", (qt *[]){&x}, 1, (qt *[]){y, ys, yz}, 3, NULL, 0);
	y->t = qt_out[0];
	ys->t = qt_out[1];
	yz->t = qt_out[2];
	return s;
}

static void test_dynamic_quantize_linear(void)
{
	qt y, ys, yz;
	/* test_dynamicquantizelinear (onnx/backend/test/case/node/dynamicquantizelinear.py) */
	static const double x1[] = {0, 2, -3, -2.5, 1.34, 0.5}, y1[] = {153, 255, 0, 26, 221, 179};
	CU_ASSERT_EQUAL(dql(x1, 6, &y, &ys, &yz), QCF_OK);
	CU_ASSERT(qt_equals(&y, y1, 6));
	CU_ASSERT_EQUAL(qref_get(&ys.t, 0), (double)(5.0f / 255.0f));
	CU_ASSERT_EQUAL(qref_get(&yz.t, 0), 153);
	/* max adjusted: every x negative, max is 0, zero point 255 */
	static const double x2[] = {-1.0, -2.1, -1.3, -2.5, -3.34, -4.0},
	                    y2[] = {191, 121, 172, 96, 42, 0};
	CU_ASSERT_EQUAL(dql(x2, 6, &y, &ys, &yz), QCF_OK);
	CU_ASSERT(qt_equals(&y, y2, 6));
	CU_ASSERT_EQUAL(qref_get(&yz.t, 0), 255);
	/* all zero: the scale is 1 and the zero point 0 (op_dynamic_quantize_linear.py) */
	static const double x3[] = {0, -0.0, 0}, y3[] = {0, 0, 0};
	CU_ASSERT_EQUAL(dql(x3, 3, &y, &ys, &yz), QCF_OK);
	CU_ASSERT(qt_equals(&y, y3, 3));
	CU_ASSERT_EQUAL(qref_get(&ys.t, 0), 1.0);
	CU_ASSERT_EQUAL(qref_get(&yz.t, 0), 0);
	/* FACTS.md section 1: min -253, max 257 -> scale 2, zero point 126.5 -> 126 (to even);
	 * y = rint(-126.5) + 126 = 0 and rint(128.5) + 126 = 254 */
	static const double x4[] = {-253, 257}, y4[] = {0, 254};
	CU_ASSERT_EQUAL(dql(x4, 2, &y, &ys, &yz), QCF_OK);
	CU_ASSERT_EQUAL(qref_get(&ys.t, 0), 2.0);
	CU_ASSERT_EQUAL(qref_get(&yz.t, 0), 126);
	CU_ASSERT(qt_equals(&y, y4, 2));
	/* refusals: an empty x, an int8 y */
	CU_ASSERT(refused(dql(x4, 0, &y, &ys, &yz), "x is empty"));
	static qt x;
	static const int64_t s2[] = {2};
	ot_init(&x, "x", QCF_FLOAT32, 1, s2);
	ot_init(&y, "y", QCF_INT8, 1, s2);
	CU_ASSERT(refused(
	        run("DynamicQuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y, &ys, &yz}, 3, NULL, 0),
	        "y must be uint8"));
}

/* ---- blocked quantization ---------------------------------------------------- */

/* test_quantizelinear_blocked_asymmetric (onnx/backend/test/case/node/quantizelinear.py) */
static void blocked_q(qt *x, qt *y)
{
	static const int64_t s[] = {3, 4};
	static const double xv[] = {6, 12, 50, 5, 1, 8, 4, 5, 0, 20, 10, 4};
	static const float sc[] = {1.5f, 2.5f, 3.0f, 4.9f, 5.1f, 6.9f};
	static const int32_t zp[] = {0, 1, 1, 0, 2, 3};
	ot_init(x, "x", QCF_FLOAT32, 2, s);
	qt_fill(x, xv, 12);
	ot_init(y, "y", QCF_UINT8, 2, s);
	qt_quant_blocked(y, 1, 2, 6, sc, zp);
}

static void test_blocked_quantize(void)
{
	qt x, y;
	blocked_q(&x, &y);
	static const double want[] = {4, 8, 21, 3, 1, 4, 1, 1, 2, 6, 4, 4};
	CU_ASSERT_EQUAL(run("QuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0), QCF_OK);
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, want, 12));

	/* refusals: wrong count, negative block_size, no axis */
	blocked_q(&x, &y);
	y.q.count = 4;
	CU_ASSERT(refused(run("QuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0),
	                  "the blocked scale tensor has 6 entries"));
	blocked_q(&x, &y);
	y.q.block_size = -2;
	CU_ASSERT(refused(run("QuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0),
	                  "block_size must be positive"));
	blocked_q(&x, &y);
	y.q.axis = -1;
	CU_ASSERT(refused(run("QuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0),
	                  "blocked quantization needs an axis"));

	/* a plugin built before block_size (struct_size stops before it) reads it as 0: the
	 * same quant is then per axis with 6 scales for a dimension of 4, and refused */
	blocked_q(&x, &y);
	y.q.struct_size = (uint32_t)offsetof(qcf_quant, block_size);
	CU_ASSERT(refused(run("QuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0),
	                  "6 scales for dimension 1 of size 4"));

	/* the other families refuse blocked quantization */
	blocked_q(&x, &y);
	y.t.dtype = QCF_INT8;
	qt_in[0] = x.t;
	qt_out[0] = y.t;
	qt_last = (qcf_op_call){sizeof qt_last, "QUANTIZE", "litert", 1, qt_in, 1, qt_out, 0, NULL};
	memset(&g_d, 0, sizeof g_d);
	CU_ASSERT(refused(qref_execute(&qt_last, &g_d), "blocked quantization (block_size 2)"));
}

/* A short last block: 5 columns in blocks of 2 use blocks 0, 0, 1, 1, 2. */
static void test_blocked_dequantize(void)
{
	static const int64_t s[] = {2, 5};
	static const double xv[] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2};
	static const float sc[] = {1, 2, 4, 8, 16, 32};
	static const int32_t zp[] = {0, 0, 0, 0, 0, 1};
	qt x, y;
	ot_init(&x, "x", QCF_INT8, 2, s);
	qt_quant_blocked(&x, 1, 2, 6, sc, zp);
	qt_fill(&x, xv, 10);
	ot_init(&y, "y", QCF_FLOAT32, 2, s);
	CU_ASSERT_EQUAL(run("DequantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0), QCF_OK);
	static const double want[] = {1, 1, 2, 2, 4, 16, 16, 32, 32, 32};
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, want, 10));
}

/* block_size from a spec through the harness and a worker: the worker's reference sees the
 * blocked quantization (a dropped block_size makes it refuse the count: ERROR), `show` prints
 * it, and a count that does not match the blocked scale tensor is a spec error. */
static void test_blocked_end_to_end(void)
{
	const char *tmp = qct_tmpdir();
	char path[512];
	snprintf(path, sizeof path, "%s/blocked.yaml", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("qconform: 1\nop: DequantizeLinear\nsemantics: onnx\n"
	      "sweep: {dt: [int8, uint4]}\n"
	      "inputs:\n  x:\n    dtype: =dt\n    shape: [2, 5]\n"
	      "    quant: {axis: 1, block_size: 2, scales: [1, 2, 4, 8, 16, 32], zero_points: 1}\n"
	      "    data: {gen: uniform}\n"
	      "outputs:\n  y: {dtype: float32, shape: [2, 5]}\n"
	      "cases:\n  - name: golden\n"
	      "    inputs: {x: {dtype: int8, data: [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]}}\n"
	      "    golden: {y: [0, 0, 0, 0, 0, 8, 8, 16, 16, 32]}\n"
	      "    source: blocks 0, 0, 1, 1, 2 per row (onnx/reference/ops/op_quantize_linear.py "
	      "_reshape_input)\n",
	      f);
	fclose(f);
	int st = -1;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s", path);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_PTR_NOT_NULL(r);
	if (r) {
		qct_tally t = qct_tally_report(r);
		CU_ASSERT_EQUAL(t.cases, 3);
		CU_ASSERT_EQUAL(t.pass, 3);
		CU_ASSERT_EQUAL(t.golden, 1);
		json_decref(r);
	}
	qct_proc p;
	CU_ASSERT_EQUAL(qct_sh(&p, "%s show 'onnx/blocked/case/golden' %s 2>&1",
	                       qct_build_path("qconform"), path),
	                0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "axis 1 block_size 2 scales [1, 2, 4, 8, 16, 32]"));
	qct_proc_free(&p);

	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("qconform: 1\nop: DequantizeLinear\nsemantics: onnx\n"
	      "inputs:\n  x:\n    dtype: int8\n    shape: [2, 5]\n"
	      "    quant: {axis: 1, block_size: 2, scales: [1, 2, 4, 8], zero_points: [0, 0, 0, "
	      "0]}\n"
	      "    data: {gen: uniform}\n"
	      "outputs:\n  y: {dtype: float32, shape: [2, 5]}\n",
	      f);
	fclose(f);
	CU_ASSERT_EQUAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "blocked count 4 differs from the 6 entries"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

void qct_register_onnx(void)
{
	CU_pSuite s = qct_suite("onnx");
	CU_add_test(s, "QLinearMatMul backend 2D vector and real output",
	            test_qlinear_matmul_golden);
	CU_add_test(s, "QLinearMatMul zero point before rounding, ties to even",
	            test_qlinear_matmul_zero_point_before_rounding);
	CU_add_test(s, "QLinearMatMul per-row a, per-column b", test_qlinear_matmul_per_row);
	CU_add_test(s, "QLinearMatMul refusals", test_qlinear_matmul_refusals);
	CU_add_test(s, "MatMulInteger backend vector, optional zero points, refusals",
	            test_matmul_integer);
	CU_add_test(s, "QLinearConv backend vector", test_qlinear_conv_golden);
	CU_add_test(s, "QLinearConv groups, per channel, SAME_*, bias, refusals",
	            test_qlinear_conv_attrs);
	CU_add_test(s, "ConvInteger backend vector with padding, refusals", test_conv_integer);
	CU_add_test(s, "DynamicQuantizeLinear examples, all zero, zero-point tie",
	            test_dynamic_quantize_linear);
	CU_add_test(s, "QuantizeLinear blocked example and refusals", test_blocked_quantize);
	CU_add_test(s, "DequantizeLinear short last block", test_blocked_dequantize);
	CU_add_test(s, "block_size through the harness and a worker", test_blocked_end_to_end);
}
