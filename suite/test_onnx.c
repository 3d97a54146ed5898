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

#include "qct.h"
#include "reference/dtype.h"
#include "reference/qref.h"
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
	/* specs/onnx/OPERATORS.md (DynamicQuantizeLinear): min -253, max 257 -> scale 2, zero point
	 * 126.5 -> 126 (to even); y = rint(-126.5) + 126 = 0 and rint(128.5) + 126 = 254 */
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
	qt_last = (qcf_op_call){sizeof qt_last, "QUANTIZE", "litert", 1,   qt_in, 1,
	                        qt_out,         0,          NULL,     NULL};
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

/* ---- the typed kernels against a scalar model ------------------------------------------- */

static uint64_t lin_state = 0x9e3779b97f4a7c15u;

/* uniform in [lo, hi] */
static int64_t lin_rand(int64_t lo, int64_t hi)
{
	lin_state ^= lin_state << 13;
	lin_state ^= lin_state >> 7;
	lin_state ^= lin_state << 17;
	return lo + (int64_t)(lin_state % (uint64_t)(hi - lo + 1));
}

static qcf_dtype lin_q8(void)
{
	return lin_rand(0, 1) ? QCF_INT8 : QCF_UINT8;
}

/* A uniform value of an 8-bit type. */
static int32_t lin_val(qcf_dtype t)
{
	return (int32_t)(t == QCF_INT8 ? lin_rand(-128, 127) : lin_rand(0, 255));
}

static void lin_fill(qt *x)
{
	for (size_t i = 0; i < qref_tensor_numel(&x->t); i++)
		qref_set(&x->t, i, lin_val(x->t.dtype));
}

/* The reference's requantization (op_qlinear_*.py), one element: float32 scale, float64
 * product plus the zero point, rint, clip. */
static double lin_requant(double acc, float sa, float sb, float sy, int32_t zy, qcf_dtype yt)
{
	float ms = (sa * sb) / sy;
	double v = nearbyint(acc * (double)ms + (double)zy);
	double lo = yt == QCF_INT8 ? -128 : 0, hi = yt == QCF_INT8 ? 127 : 255;
	return v < lo ? lo : v > hi ? hi : v;
}

/* Its value wrapped to int32 (numpy's int32 matmul). */
static double lin_wrap32(int64_t v)
{
	return (double)(int32_t)(uint32_t)(uint64_t)v;
}

/* MatMulInteger and QLinearMatMul on random shapes (batches, per-row and per-column zero points
 * and scales, both 8-bit types) against the sums written out element by element. */
static int lin_matmul_trial(int qlinear)
{
	int64_t bt = lin_rand(1, 3), m = lin_rand(1, 6), k = lin_rand(1, 40), n = lin_rand(1, 6);
	int ra = lin_rand(0, 1) ? 3 : 2, rb = ra == 3 && lin_rand(0, 1) ? 3 : 2;
	int64_t as[3] = {bt, m, k}, bs[3] = {bt, k, n}, ys[3] = {bt, m, n};
	if (ra == 2)
		as[0] = m, as[1] = k, ys[0] = m, ys[1] = n;
	if (rb == 2)
		bs[0] = k, bs[1] = n;
	int64_t nbt = ra == 3 ? bt : 1;
	qt a, b, za, zb, y;
	ot_init(&a, "a", lin_q8(), ra, as);
	ot_init(&b, "b", lin_q8(), rb, bs);
	lin_fill(&a);
	lin_fill(&b);
	int32_t zav[8], zbv[8];
	float sav[8], sbv[8];
	int pr = lin_rand(0, 1), pc = lin_rand(0, 1);
	for (int i = 0; i < 8; i++) {
		zav[i] = lin_val(a.t.dtype);
		zbv[i] = lin_val(b.t.dtype);
		sav[i] = 0.01f * (float)lin_rand(1, 50);
		sbv[i] = 0.01f * (float)lin_rand(1, 50);
	}
	int32_t zy = 0;
	float sy = 0.01f * (float)lin_rand(1, 400);
	qcf_status st;
	if (qlinear) {
		qt_quant(&a, pr ? ra - 2 : -1, pr ? (int)m : 1, sav, zav);
		qt_quant(&b, pc ? rb - 1 : -1, pc ? (int)n : 1, sbv, zbv);
		ot_init(&y, "y", lin_q8(), ra, ys);
		zy = lin_val(y.t.dtype);
		qt_quant1(&y, sy, zy);
		st = run("QLinearMatMul", (qt *[]){&a, &b}, 2, (qt *[]){&y}, 1, NULL, 0);
	} else {
		int64_t zas[1] = {pr ? m : 1}, zbs[1] = {pc ? n : 1};
		ot_init(&za, "a_zero_point", a.t.dtype, 1, zas);
		ot_init(&zb, "b_zero_point", b.t.dtype, 1, zbs);
		for (int64_t i = 0; i < zas[0]; i++)
			qref_set(&za.t, (size_t)i, zav[i]);
		for (int64_t j = 0; j < zbs[0]; j++)
			qref_set(&zb.t, (size_t)j, zbv[j]);
		ot_init(&y, "y", QCF_INT32, ra, ys);
		st = run("MatMulInteger", (qt *[]){&a, &b, &za, &zb}, 4, (qt *[]){&y}, 1, NULL, 0);
	}
	CU_ASSERT_EQUAL(st, QCF_OK);
	if (st != QCF_OK) {
		fprintf(stderr, "\n  %s: %s\n", qlinear ? "QLinearMatMul" : "MatMulInteger",
		        g_d.message);
		return 1;
	}
	int bad = 0;
	for (int64_t q = 0; q < nbt; q++)
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++) {
				int64_t acc = 0, zi = zav[pr ? i : 0], zj = zbv[pc ? j : 0];
				int64_t qb = rb == 3 ? q : 0;
				for (int64_t t = 0; t < k; t++)
					acc += ((int64_t)qt_get(&a, (size_t)((q * m + i) * k + t)) -
					        zi) *
					       ((int64_t)qt_get(&b,
					                        (size_t)((qb * k + t) * n + j)) -
					        zj);
				double want =
				        qlinear ? lin_requant(lin_wrap32(acc), sav[pr ? i : 0],
				                              sbv[pc ? j : 0], sy, zy, y.t.dtype)
				                : lin_wrap32(acc);
				bad += qt_get(&y, (size_t)((q * m + i) * n + j)) != want;
			}
	return bad;
}

/* ConvInteger and QLinearConv on random 2-D shapes (groups, strides, dilations, pads, per-channel
 * weights, bias, both 8-bit types) against the sums written out element by element. */
static int lin_conv_trial(int qlinear)
{
	int64_t grp = lin_rand(1, 2), cg = lin_rand(1, 3), mg = lin_rand(1, 3);
	int64_t h = lin_rand(1, 6), w_ = lin_rand(1, 6), kh = lin_rand(1, 3), kw = lin_rand(1, 3);
	int64_t st[2] = {lin_rand(1, 2), lin_rand(1, 2)}, dl[2] = {lin_rand(1, 2), lin_rand(1, 2)};
	int64_t pads[4] = {lin_rand(0, 1), lin_rand(0, 1), lin_rand(0, 1), lin_rand(0, 1)};
	int64_t c = grp * cg, mo = grp * mg;
	int64_t spanh = h + pads[0] + pads[2] - ((kh - 1) * dl[0] + 1);
	int64_t spanw = w_ + pads[1] + pads[3] - ((kw - 1) * dl[1] + 1);
	if (spanh < 0 || spanw < 0)
		return -1;
	int64_t oh = spanh / st[0] + 1, ow = spanw / st[1] + 1;
	int64_t xs[4] = {1, c, h, w_}, ws[4] = {mo, cg, kh, kw}, ys[4] = {1, mo, oh, ow};
	int64_t bsh[1] = {mo}, one[1] = {1};
	qt x, w, b, zx, zw, y;
	ot_init(&x, "x", lin_q8(), 4, xs);
	ot_init(&w, "w", lin_q8(), 4, ws);
	lin_fill(&x);
	lin_fill(&w);
	int32_t zxv = lin_val(x.t.dtype), zwv[8], bias[8] = {0};
	float swv[8], sx = 0.01f * (float)lin_rand(1, 50), sy = 0.01f * (float)lin_rand(1, 400);
	int pcw = lin_rand(0, 1), has_b = qlinear && lin_rand(0, 1);
	for (int i = 0; i < 8; i++) {
		zwv[i] = qlinear ? 0 : lin_val(w.t.dtype);
		swv[i] = 0.01f * (float)lin_rand(1, 50);
		bias[i] = has_b ? (int32_t)lin_rand(-3000, 3000) : 0;
	}
	if (qlinear && lin_rand(0, 1)) /* w zero points other than 0, per tensor */
		zwv[0] = lin_val(w.t.dtype), pcw = 0;
	qcf_attr at[4] = {qt_ints("strides", st, 2), qt_ints("dilations", dl, 2),
	                  qt_ints("pads", pads, 4), qt_int("group", grp)};
	int32_t zy = 0;
	qcf_status s;
	if (qlinear) {
		qt_quant1(&x, sx, zxv);
		qt_quant(&w, pcw ? 0 : -1, pcw ? (int)mo : 1, swv, zwv);
		ot_init(&b, "B", QCF_INT32, 1, bsh);
		for (int64_t m = 0; m < mo; m++)
			qref_set(&b.t, (size_t)m, bias[m]);
		ot_init(&y, "y", lin_q8(), 4, ys);
		zy = lin_val(y.t.dtype);
		qt_quant1(&y, sy, zy);
		s = run("QLinearConv", (qt *[]){&x, &w, &b}, has_b ? 3 : 2, (qt *[]){&y}, 1, at, 4);
	} else {
		ot_init(&zx, "x_zero_point", x.t.dtype, 1, one);
		qref_set(&zx.t, 0, zxv);
		ot_init(&zw, "w_zero_point", w.t.dtype, 1, pcw ? bsh : one);
		for (int64_t m = 0; m < (pcw ? mo : 1); m++)
			qref_set(&zw.t, (size_t)m, zwv[m]);
		ot_init(&y, "y", QCF_INT32, 4, ys);
		s = run("ConvInteger", (qt *[]){&x, &w, &zx, &zw}, 4, (qt *[]){&y}, 1, at, 4);
	}
	CU_ASSERT_EQUAL(s, QCF_OK);
	if (s != QCF_OK) {
		fprintf(stderr, "\n  %s: %s\n", qlinear ? "QLinearConv" : "ConvInteger",
		        g_d.message);
		return 1;
	}
	int bad = 0;
	for (int64_t m = 0; m < mo; m++)
		for (int64_t oy = 0; oy < oh; oy++)
			for (int64_t ox = 0; ox < ow; ox++) {
				int64_t g = m / mg, acc = bias[m], zwm = zwv[pcw ? m : 0];
				for (int64_t ci = 0; ci < cg; ci++)
					for (int64_t ky = 0; ky < kh; ky++)
						for (int64_t kx = 0; kx < kw; kx++) {
							int64_t iy =
							        oy * st[0] - pads[0] + ky * dl[0];
							int64_t ix =
							        ox * st[1] - pads[1] + kx * dl[1];
							if (iy < 0 || iy >= h || ix < 0 || ix >= w_)
								continue;
							size_t xi = (size_t)(((g * cg + ci) * h +
							                      iy) * w_ +
							                     ix);
							size_t wi = (size_t)(((m * cg + ci) * kh +
							                      ky) * kw +
							                     kx);
							acc += ((int64_t)qt_get(&x, xi) - zxv) *
							       ((int64_t)qt_get(&w, wi) - zwm);
						}
				double want =
				        qlinear ? lin_requant((double)acc, sx, swv[pcw ? m : 0], sy,
				                              zy, y.t.dtype)
				                : (double)acc;
				bad += qt_get(&y, (size_t)((m * oh + oy) * ow + ox)) != want;
			}
	return bad;
}

static void test_linear_vs_scalar(void)
{
	int done[4] = {0}, bad = 0;
	for (int trial = 0; trial < 400; trial++) {
		int op = trial % 4;
		int r = op < 2 ? lin_matmul_trial(op) : lin_conv_trial(op - 2);
		if (r < 0)
			continue; /* a kernel larger than the padded input */
		if (r)
			fprintf(stderr, "\n  trial %d (op %d): %d elements differ\n", trial, op, r);
		bad += r;
		done[op]++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	for (int op = 0; op < 4; op++)
		CU_ASSERT(done[op] >= 60);
}

/* Sums past an int32 chunk of products (ConvInteger over 40000 input channels, every product
 * -255 * 255): exact, in range (20000 non-zero products) and beyond (40000: undefined). */
static void test_linear_long_sum(void)
{
	enum { C = 40000 };
	static int8_t xd[C], wd[C];
	int64_t xs[3] = {1, C, 1}, ws[3] = {1, C, 1}, ys[3] = {1, 1, 1}, one[1] = {1};
	for (int nz = 20000; nz <= C; nz += 20000) {
		for (int i = 0; i < C; i++) {
			xd[i] = (int8_t)(i < nz ? -128 : 127); /* x - 127: -255 or 0 */
			wd[i] = 127;                           /* w + 128: 255 */
		}
		qt x, w, zx, zw, y;
		ot_init(&x, "x", QCF_INT8, 3, xs);
		ot_init(&w, "w", QCF_INT8, 3, ws);
		x.t.data = xd;
		x.t.nbytes = C;
		w.t.data = wd;
		w.t.nbytes = C;
		ot_init(&zx, "x_zero_point", QCF_INT8, 1, one);
		ot_init(&zw, "w_zero_point", QCF_INT8, 1, one);
		qref_set(&zx.t, 0, 127);
		qref_set(&zw.t, 0, -128);
		ot_init(&y, "y", QCF_INT32, 3, ys);
		qt_det det;
		CU_ASSERT_EQUAL(qt_run("onnx", "ConvInteger", (qt *[]){&x, &w, &zx, &zw}, 4,
		                       (qt *[]){&y}, 1, NULL, 0,
		                       qt_det_init(&det, QREF_ROUND_DEFAULT)),
		                QCF_OK);
		CU_ASSERT_EQUAL(det.any[0][0], nz == C);
		if (nz < C)
			CU_ASSERT_EQUAL(qt_get(&y, 0), -255.0 * 255.0 * nz);
	}
}

/* ---- float8 zero points and -0 ------------------------------------------- */

/* x of dtype dt and n elements, per tensor with scale s and the float zero point *z (a value
 * of dt, as cases_tensor.c gives a float8 tensor's zero point). */
static void f8_tensor(qt *x, const char *name, qcf_dtype dt, int64_t n, float s, const float *z)
{
	ot_init(x, name, dt, 1, &n);
	qt_quant1(x, s, 0);
	x->q.zero_point_dtype = dt;
	x->q.float_zero_points = z;
}

/* QuantizeLinear to a float8 type casts x / y_scale alone (op_quantize_linear.py; ONNX
 * Runtime's QuantizeLinear does not read the zero point): -0 stays -0, a non-zero zero point
 * changes nothing; float4e2m1 adds its zero point. DequantizeLinear refuses a float8 zero
 * point other than +0 (op_dequantize_linear.py, ONNX Runtime's DequantizeLinear). */
static void test_float8_zero_point(void)
{
	static const float zero = 0.0f, two = 2.0f, minus_zero = -0.0f, minus_one = -1.0f;
	static const double xv[] = {-0.0, 1, 2.5, 48};
	static const double want[] = {-0.0, 2, 5, 96};
	qt x, y;
	const float *zps[] = {&zero, &two};
	for (int k = 0; k < 2; k++) {
		ot_init(&x, "x", QCF_FLOAT32, 1, (int64_t[]){4});
		qt_fill(&x, xv, 4);
		f8_tensor(&y, "y", QCF_FLOAT8E4M3FN, 4, 0.5f, zps[k]);
		CU_ASSERT_EQUAL(run("QuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0),
		                QCF_OK);
		y.t = qt_out[0];
		CU_ASSERT(qt_equals(&y, want, 4));
		CU_ASSERT(signbit(qt_get(&y, 0)));
		f8_tensor(&y, "y", QCF_FLOAT8E5M2, 4, 0.5f, zps[k]);
		CU_ASSERT_EQUAL(run("QuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0),
		                QCF_OK);
		y.t = qt_out[0];
		CU_ASSERT(signbit(qt_get(&y, 0)) && qt_get(&y, 0) == 0);
	}
	/* float4e2m1: 2.5 / 0.5 + (-1) = 4 */
	ot_init(&x, "x", QCF_FLOAT32, 1, (int64_t[]){4});
	qt_fill(&x, xv, 4);
	f8_tensor(&y, "y", QCF_FLOAT4E2M1, 4, 0.5f, &minus_one);
	CU_ASSERT_EQUAL(run("QuantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0), QCF_OK);
	y.t = qt_out[0];
	CU_ASSERT_EQUAL(qt_get(&y, 2), 4);

	/* DequantizeLinear: zero point +0 accepted (-0 stays -0), 2 and -0 refused */
	static const double codes[] = {-0.0, 1, 448};
	f8_tensor(&x, "x", QCF_FLOAT8E4M3FN, 3, 2.0f, &zero);
	qt_fill(&x, codes, 3);
	ot_init(&y, "y", QCF_FLOAT32, 1, (int64_t[]){3});
	CU_ASSERT_EQUAL(run("DequantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0), QCF_OK);
	y.t = qt_out[0];
	CU_ASSERT(qt_equals(&y, (const double[]){-0.0, 2, 896}, 3));
	CU_ASSERT(signbit(qt_get(&y, 0)));
	const float *bad[] = {&two, &minus_zero};
	for (int k = 0; k < 2; k++) {
		f8_tensor(&x, "x", QCF_FLOAT8E4M3FN, 3, 2.0f, bad[k]);
		qt_fill(&x, codes, 3);
		ot_init(&y, "y", QCF_FLOAT32, 1, (int64_t[]){3});
		CU_ASSERT(
		        refused(run("DequantizeLinear", (qt *[]){&x}, 1, (qt *[]){&y}, 1, NULL, 0),
		                "zero point must be 0"));
	}
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
	CU_add_test(s,
	            "QLinearMatMul, MatMulInteger, QLinearConv, ConvInteger equal a scalar model",
	            test_linear_vs_scalar);
	CU_add_test(s, "ConvInteger sums past an int32 chunk", test_linear_long_sum);
	CU_add_test(s,
	            "float8 QuantizeLinear keeps -0, adds no zero point; DequantizeLinear "
	            "refuses one",
	            test_float8_zero_point);
}
