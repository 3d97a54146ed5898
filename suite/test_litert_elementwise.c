/*
 * Tests of the LiteRT elementwise kernels (reference/litert_elementwise.c):
 * ADD, SUB, MUL, MAXIMUM, MINIMUM and the comparisons. Golden values are
 * from TFLM's kernel tests (tensorflow/lite/micro/kernels/add_test.cc) or
 * hand-computed from specs/litert/OPERATORS.md (each test says which section);
 * then every refusal, the rounding builds at ties, broadcasting, and an
 * end-to-end run of the family's specs.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qct.h"
#include "reference/dtype.h"
#include "reference/kernel.h"
#include "reference/qref.h"
#include "tensor.h"

static void ewt_fill(qt *x, const int *v)
{
	size_t n = qref_numel(x->t.rank, x->shape);
	for (size_t i = 0; i < n; i++)
		qref_set(&x->t, i, v[i]);
}

/* A binary op call on a, b -> y with up to two attributes. */
typedef struct {
	qcf_op_call call;
	qcf_tensor in[2];
	qcf_attr attrs[2];
} ewcall;

static void ewcall_init(ewcall *c, const char *op, qt *a, qt *b, qt *y, const char *act, int pot)
{
	memset(c, 0, sizeof *c);
	c->call.struct_size = sizeof c->call;
	c->call.op = op;
	c->call.semantics = "litert";
	c->in[0] = a->t;
	c->in[1] = b->t;
	c->call.n_inputs = 2;
	c->call.inputs = c->in;
	c->call.n_outputs = 1;
	c->call.outputs = &y->t;
	int n = 0;
	if (act)
		c->attrs[n++] = qt_str("fused_activation_function", act);
	if (pot)
		c->attrs[n++] = qt_int("pot_scale_int16", pot);
	c->call.n_attrs = n;
	c->call.attrs = c->attrs;
}

static qcf_status run(ewcall *c, qref_rounding r, char *msg)
{
	qref_detail d;
	memset(&d, 0, sizeof d);
	d.rounding = r;
	qcf_status s = qref_execute(&c->call, &d);
	if (msg)
		snprintf(msg, 256, "%s", d.message);
	return s;
}

static int out_equals(qt *y, const int *want, size_t n)
{
	int ok = 1;
	for (size_t i = 0; i < n; i++)
		if (qref_get(&y->t, i) != want[i]) {
			fprintf(stderr, "\n  element %zu: got %g, want %d", i, qref_get(&y->t, i),
			        want[i]);
			ok = 0;
		}
	return ok;
}

static const int64_t S4[] = {4};

/* One 1-D case of 4 elements: op(a, b) under rounding r equals want. */
/*
 * One case of a binary op on four elements, built by designated initialisers with derived
 * defaults: int8, scales 1, zero points 0, no activation, the op's own rounding. Only what a
 * case is about is written: check4((ew4){.op = "ADD", .s1 = 0.25f, .a = a, .b = b, .want = w}).
 */
typedef struct ew4 {
	const char *op;
	qcf_dtype dtype;  /* 0: int8 */
	float s1, s2, so; /* 0: 1 */
	int z1, z2, zo;
	const int *a, *b; /* the inputs' quantized values */
	const char *act;  /* fused_activation_function, or NULL */
	int pot;          /* pot_scale_int16 */
	qref_rounding rounding;
	const int *want;
} ew4;

static void check4(ew4 t)
{
	qcf_dtype dt = t.dtype ? t.dtype : QCF_INT8;
	qt ta, tb, ty;
	qt_make(&ta, dt, 1, S4, t.s1 ? t.s1 : 1.0f, t.z1);
	qt_make(&tb, dt, 1, S4, t.s2 ? t.s2 : 1.0f, t.z2);
	qt_make(&ty, dt, 1, S4, t.so ? t.so : 1.0f, t.zo);
	ewt_fill(&ta, t.a);
	ewt_fill(&tb, t.b);
	ewcall c;
	ewcall_init(&c, t.op, &ta, &tb, &ty, t.act, t.pot);
	char msg[256];
	qcf_status s = run(&c, t.rounding, msg);
	if (s != QCF_OK)
		fprintf(stderr, "\n  %s: %s", t.op, msg);
	CU_ASSERT_EQUAL_FATAL(s, QCF_OK);
	CU_ASSERT(out_equals(&ty, t.want, 4));
}

/* tflite-micro add_test.cc QuantizedAddNoActivationInt8 / Relu1Int8 /
 * NoActivationInt16: golden floats quantized with the tests' parameters. */
static void test_add_tflm_goldens(void)
{
	const int a[] = {-18, -14, -10, -6}, b[] = {6, 8, 10, 12};
	const int want[] = {12, 14, 16, 18}, relu1[] = {12, 14, 14, 14};
	ew4 t = {
	        .op = "ADD", .s1 = 0.25f, .z1 = -10, .a = a, .s2 = 0.5f, .z2 = 4, .b = b, .zo = 13};
	t.want = want;
	check4(t);
	t.act = "RELU_N1_TO_1", t.want = relu1;
	check4(t);
	const int a16[] = {-8, -4, 0, 4}, b16[] = {2, 4, 6, 8}, w16[] = {-1, 1, 3, 5};
	check4((ew4){.op = "ADD",
	             .dtype = QCF_INT16,
	             .s1 = 0.25f,
	             .a = a16,
	             .s2 = 0.5f,
	             .b = b16,
	             .want = w16});
}

/* Ties: s1 = s2 = 0.5, s_out = 1: y = (q1 +- q2) / 2 exactly. The default
 * build rounds the last step with RDBPOT (ties away from zero), the
 * single-rounding build toward +infinity (specs/litert/OPERATORS.md, "Integer requantization"). */
static void test_addsub_ties(void)
{
	const int a[] = {3, -3, 1, -1}, b[] = {0, 0, 2, -2};
	const int dbl[] = {2, -2, -1, 1}, sgl[] = {2, -1, 0, 1};
	/* one case, then the same case with another rounding or input */
	ew4 t = {.op = "SUB", .s1 = 0.5f, .a = a, .s2 = 0.5f, .b = b, .want = dbl};
	check4(t);
	t.rounding = QREF_ROUND_DOUBLE;
	check4(t);
	t.rounding = QREF_ROUND_SINGLE, t.want = sgl;
	check4(t);
	const int nb[] = {0, 0, -2, 2}; /* ADD of the negated b: same sums */
	t = (ew4){.op = "ADD", .s1 = 0.5f, .a = a, .s2 = 0.5f, .b = nb, .want = dbl};
	check4(t);
	t.rounding = QREF_ROUND_SINGLE, t.want = sgl;
	check4(t);
	/* zero points at the ends shift the same ties */
	const int a2[] = {-125, -128, -127, -128}, b2[] = {127, 127, 127, 126};
	const int w2[] = {2, 0, 1, -1}; /* (3+0)/2, 0, (1+0)/2 = 0.5 -> 1, (0-1)/2 -> -1 */
	check4((ew4){.op = "ADD",
	             .s1 = 0.5f,
	             .z1 = -128,
	             .a = a2,
	             .s2 = 0.5f,
	             .z2 = 127,
	             .b = b2,
	             .want = w2});
}

/* MUL: multiplier 0.5 = (2^30, 0): SRDHM rounds ties toward +infinity in
 * both builds (specs/litert/OPERATORS.md, "Integer requantization"); multiplier 8 with saturation.
 */
static void test_mul(void)
{
	const int a[] = {3, -3, 1, -1}, one[] = {1, 1, 1, 1}, w[] = {2, -1, 1, 0};
	ew4 t = {.op = "MUL", .s1 = 0.5f, .a = a, .s2 = 0.5f, .b = one, .so = 0.5f, .want = w};
	check4(t);
	t.rounding = QREF_ROUND_SINGLE;
	check4(t);
	const int a2[] = {3, -3, 10, -11}, b2[] = {5, 2, 2, 2}, w2[] = {120, -48, 127, -128};
	check4((ew4){.op = "MUL", .a = a2, .b = b2, .so = 0.125f, .want = w2});
	/* zero points: (q1 - 5)(q2 + 3) * 0.1 * 0.2 / 0.04 = d / 2, + zp_out -7, RELU at q(0) = -7
	 */
	const int a3[] = {7, 3, 5, 9}, b3[] = {0, 0, 100, -4}, w3[] = {-4, -7, -7, -7};
	check4((ew4){.op = "MUL",
	             .s1 = 0.1f,
	             .z1 = 5,
	             .a = a3,
	             .s2 = 0.2f,
	             .z2 = -3,
	             .b = b3,
	             .so = 0.04f,
	             .zo = -7,
	             .act = "RELU",
	             .want = w3});
}

/* Elements whose int32 pre-shift overflows in LiteRT are marked 'any'. */
static void test_mul_any(void)
{
	qt ta, tb, ty;
	qt_make(&ta, QCF_INT8, 1, S4, 1.0f, 0);
	qt_make(&tb, QCF_INT8, 1, S4, 1.0f, 0);
	qt_make(&ty, QCF_INT8, 1, S4, 0x1p-20f, 0);
	const int a[] = {1, 0, 127, -1}, b[] = {1, 5, 127, 1};
	ewt_fill(&ta, a);
	ewt_fill(&tb, b);
	ewcall c;
	ewcall_init(&c, "MUL", &ta, &tb, &ty, NULL, 0);
	uint8_t any[4] = {9, 9, 9, 9};
	double lo[4], hi[4];
	qref_detail d;
	memset(&d, 0, sizeof d);
	d.out[0].any = any;
	d.out[0].lo = lo;
	d.out[0].hi = hi;
	CU_ASSERT_EQUAL_FATAL(qref_execute(&c.call, &d), QCF_OK);
	CU_ASSERT_EQUAL(any[0], 0); /* 1 * 2^20 fits: 127 after the clamp */
	CU_ASSERT_EQUAL(qref_get(&ty.t, 0), 127);
	CU_ASSERT_EQUAL(any[1], 0);
	CU_ASSERT_EQUAL(qref_get(&ty.t, 1), 0);
	CU_ASSERT_EQUAL(any[2], 1); /* 16129 * 2^20 overflows int32 */
	CU_ASSERT_EQUAL(any[3], 0);
	CU_ASSERT_EQUAL(qref_get(&ty.t, 3), -128);
}

/* ADD int16 power-of-two path (pot_scale_int16, reference/add.h): the
 * finer input is divided by 2^2 (RDBPOT) and added with int16 saturation;
 * SUB's POT path subtracts without saturation but clamps to int16. */
static void test_int16_pot(void)
{
	const int a[] = {32767, -32768, 100, -3}, b[] = {2, -2, 6, -6};
	const int w[] = {32767, -32768, 102, -5};
	ew4 t = {.op = "ADD", .dtype = QCF_INT16, .s1 = 0x1p-10f, .a = a, .s2 = 0x1p-12f, .b = b};
	t.so = 0x1p-10f, t.pot = 1, t.want = w;
	check4(t);
	const int ws[] = {32766, -32767, 98, -1};
	t.op = "SUB", t.want = ws;
	check4(t);
	/* without the attribute the general path runs: int16 saturation not reached here,
	 * -3 + 6/4 = -1.5 -> -2 (away from zero at the last step) */
	const int wg[] = {32767, -32768, 102, -5};
	t.op = "ADD", t.pot = 0, t.want = wg;
	check4(t);
}

/* Broadcasting: [2,1] against [1,3], scalar against [4], [3,1,2] against [2]. */
static void test_broadcast(void)
{
	const int64_t s21[] = {2, 1}, s13[] = {1, 3}, s23[] = {2, 3};
	qt ta, tb, ty;
	qt_make(&ta, QCF_INT8, 2, s21, 0.1f, 0);
	qt_make(&tb, QCF_INT8, 2, s13, 0.1f, 0);
	qt_make(&ty, QCF_INT8, 2, s23, 0.1f, 0);
	const int a[] = {1, 5}, b[] = {2, 0, 7};
	ewt_fill(&ta, a);
	ewt_fill(&tb, b);
	ewcall c;
	ewcall_init(&c, "MAXIMUM", &ta, &tb, &ty, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(run(&c, QREF_ROUND_DEFAULT, NULL), QCF_OK);
	const int wmax[] = {2, 1, 7, 5, 5, 7};
	CU_ASSERT(out_equals(&ty, wmax, 6));
	ewcall_init(&c, "MINIMUM", &ta, &tb, &ty, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(run(&c, QREF_ROUND_DEFAULT, NULL), QCF_OK);
	const int wmin[] = {1, 0, 1, 2, 0, 5};
	CU_ASSERT(out_equals(&ty, wmin, 6));
	/* ADD scalar + [4]: s 0.5 each, out 1: (q + 6) / 2 */
	qt_make(&ta, QCF_INT8, 0, NULL, 0.5f, 0);
	qt_make(&tb, QCF_INT8, 1, S4, 0.5f, 0);
	qt_make(&ty, QCF_INT8, 1, S4, 1.0f, 0);
	const int sa[] = {6}, sb[] = {0, 1, -7, -8};
	ewt_fill(&ta, sa);
	ewt_fill(&tb, sb);
	ewcall_init(&c, "ADD", &ta, &tb, &ty, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(run(&c, QREF_ROUND_DEFAULT, NULL), QCF_OK);
	const int wadd[] = {3, 4, -1, -1}; /* 3.5 -> 4, -0.5 -> -1 */
	CU_ASSERT(out_equals(&ty, wadd, 4));
	/* [3,1,2] - [2]: element (i, 0, j) = a[i][j] - b[j] */
	const int64_t s312[] = {3, 1, 2}, s2[] = {2};
	qt_make(&ta, QCF_INT8, 3, s312, 1.0f, 0);
	qt_make(&tb, QCF_INT8, 1, s2, 1.0f, 0);
	qt_make(&ty, QCF_INT8, 3, s312, 1.0f, 0);
	const int ma[] = {10, 20, 30, 40, 50, 60}, mb[] = {1, 2};
	ewt_fill(&ta, ma);
	ewt_fill(&tb, mb);
	ewcall_init(&c, "SUB", &ta, &tb, &ty, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(run(&c, QREF_ROUND_DEFAULT, NULL), QCF_OK);
	const int wsub[] = {9, 18, 29, 38, 49, 58};
	CU_ASSERT(out_equals(&ty, wsub, 6));
}

static int cmp1(const char *op, float s1, int z1, int q1, float s2, int z2, int q2, qref_rounding r)
{
	const int64_t s1d[] = {1};
	qt ta, tb, ty;
	qt_make(&ta, QCF_INT8, 1, s1d, s1, z1);
	qt_make(&tb, QCF_INT8, 1, s1d, s2, z2);
	qt_make(&ty, QCF_BOOL, 1, s1d, 0, 0);
	ewt_fill(&ta, &q1);
	ewt_fill(&tb, &q2);
	ewcall c;
	ewcall_init(&c, op, &ta, &tb, &ty, NULL, 0);
	char msg[256];
	qcf_status s = run(&c, r, msg);
	if (s != QCF_OK) {
		fprintf(stderr, "\n  %s: %s", op, msg);
		return -1;
	}
	return (int)qref_get(&ty.t, 0);
}

/* Comparisons (specs/litert/OPERATORS.md, "LiteRT elementwise operators"): v = MBQM_LT1((q - zp) *
 * 2^8, QM(scale)). */
static void test_comparisons(void)
{
	const qref_rounding D = QREF_ROUND_DEFAULT;
	/* equal reals with different parameters: 5 * 0.1 against (6 - 1) * 0.1 */
	CU_ASSERT_EQUAL(cmp1("EQUAL", 0.1f, 0, 5, 0.1f, 1, 6, D), 1);
	CU_ASSERT_EQUAL(cmp1("NOT_EQUAL", 0.1f, 0, 5, 0.1f, 1, 6, D), 0);
	/* 100 * 0.01 = 1 and 100 * 0.0100001 = 1.00001 differ in real terms, but
	 * both are 256 at the comparison's resolution of 1/256: EQUAL, not LESS */
	CU_ASSERT_EQUAL(cmp1("EQUAL", 0.01f, 0, 100, 0.0100001f, 0, 100, D), 1);
	CU_ASSERT_EQUAL(cmp1("LESS", 0.01f, 0, 100, 0.0100001f, 0, 100, D), 0);
	CU_ASSERT_EQUAL(cmp1("LESS_EQUAL", 0.01f, 0, 100, 0.0100001f, 0, 100, D), 1);
	CU_ASSERT_EQUAL(cmp1("GREATER_EQUAL", 0.01f, 0, 100, 0.0100001f, 0, 100, D), 1);
	/* a clear difference: 0.5 against 0.6 */
	CU_ASSERT_EQUAL(cmp1("LESS", 0.1f, 0, 5, 0.2f, 0, 3, D), 1);
	CU_ASSERT_EQUAL(cmp1("GREATER", 0.1f, 0, 5, 0.2f, 0, 3, D), 0);
	CU_ASSERT_EQUAL(cmp1("GREATER", 0.2f, 0, 3, 0.1f, 0, 5, D), 1);
	/* a tie: scale 2^-9, q - zp = -1: v = -0.5 -> -1 (double: away from
	 * zero), 0 (single: toward +inf); against q = zp (v = 0) */
	CU_ASSERT_EQUAL(cmp1("EQUAL", 0x1p-9f, 0, -1, 0x1p-9f, 0, 0, QREF_ROUND_DOUBLE), 0);
	CU_ASSERT_EQUAL(cmp1("EQUAL", 0x1p-9f, 0, -1, 0x1p-9f, 0, 0, QREF_ROUND_SINGLE), 1);
	CU_ASSERT_EQUAL(cmp1("LESS", 0x1p-9f, 0, -1, 0x1p-9f, 0, 0, QREF_ROUND_DOUBLE), 1);
	CU_ASSERT_EQUAL(cmp1("LESS", 0x1p-9f, 0, -1, 0x1p-9f, 0, 0, QREF_ROUND_SINGLE), 0);
	/* +0.5 rounds to 1 in both builds */
	CU_ASSERT_EQUAL(cmp1("GREATER", 0x1p-9f, 0, 1, 0x1p-9f, 0, 0, QREF_ROUND_SINGLE), 1);
	/* zero points at the ends */
	CU_ASSERT_EQUAL(cmp1("EQUAL", 0.5f, -128, -128, 0.25f, 127, 127, D), 1);
	CU_ASSERT_EQUAL(cmp1("LESS", 0.5f, 127, -128, 0.25f, -128, 127, D), 1);
}

/*
 * The refusal rules as data, after TOSA's ERROR_IF lists: each row is a call that is valid but
 * for the one thing its rule names, and what the reference answers (a status and a word of its
 * message). Rows marked accept are the rule's neighbours, which must not be refused: the
 * same violation on an op the rule does not cover.
 */

/* One operand: zeros are the defaults (int8, shape {4}, per-tensor scale 0.1, zero point 0). */
typedef enum { EWQ_TENSOR, EWQ_NONE, EWQ_CHANNEL } ewq;
typedef struct ewop {
	qcf_dtype dt;
	int rank;
	const int64_t *shape;
	float scale; /* 0: 0.1 */
	int zp;
	ewq quant;
} ewop;

typedef struct ewrule {
	const char *rule; /* what the call breaks (or, for QCF_OK, the neighbour it is) */
	const char *op;
	ewop a, b, y;
	const char *act;
	int pot;
	qref_rounding rounding;
	int accept;         /* 1: a neighbour, which the reference runs */
	qcf_status want;    /* the refusal's status; 0: QCF_INVALID_PARAM */
	const char *needle; /* a word of the refusal's message */
} ewrule;

#define SHAPE(a) .rank = (int)(sizeof a / sizeof a[0]), .shape = a

static const int64_t S3[] = {3}, S1[] = {1}, S23[] = {2, 3}, S32[] = {3, 2};
static const int64_t R5A[] = {2, 1, 3, 1, 2}, R5B[] = {1, 2, 1, 3, 1}, R5O[] = {2, 2, 3, 3, 2};
static const int64_t R6A[] = {1, 2, 1, 2, 1, 2}, R6B[] = {2, 1, 2, 1, 2, 1},
                     R6O[] = {2, 2, 2, 2, 2, 2};
static const int64_t R7A[] = {1, 2, 1, 1, 1, 1, 2}, R7B[] = {2, 1, 1, 1, 1, 1, 1},
                     R7O[] = {2, 2, 1, 1, 1, 1, 2};

#define BOOL_OUT                                                                                   \
	{                                                                                          \
		.dt = QCF_BOOL, .quant = EWQ_NONE                                                  \
	}
#define I16(s, z)                                                                                  \
	{                                                                                          \
		.dt = QCF_INT16, .scale = (s), .zp = (z)                                           \
	}

static const ewrule ew_rules[] = {
        /* shapes */
        {"inputs that do not broadcast", "ADD", .a = {SHAPE(S3)}, .needle = "do not broadcast"},
        {"output not the broadcast shape", "MAXIMUM", .a = {SHAPE(S23)}, .b = {SHAPE(S3)},
         .y = {SHAPE(S32)}, .needle = "not the broadcast shape"},
        /* broadcast rank limits: comparisons 4, MAXIMUM/MINIMUM 5, SUB 6, ADD more */
        {"comparison broadcast over rank 4", "LESS", .a = {SHAPE(R5A)}, .b = {SHAPE(R5B)},
         .y = {.dt = QCF_BOOL, .quant = EWQ_NONE, SHAPE(R5O)}, .needle = "rank <= 4"},
        {"MINIMUM broadcasts at rank 5", "MINIMUM", .a = {SHAPE(R5A)}, .b = {SHAPE(R5B)},
         .y = {SHAPE(R5O)}, .accept = 1},
        {"MINIMUM broadcast over rank 5", "MINIMUM", .a = {SHAPE(R6A)}, .b = {SHAPE(R6B)},
         .y = {SHAPE(R6O)}, .needle = "rank <= 5"},
        {"SUB broadcasts at rank 6", "SUB", .a = {SHAPE(R6A)}, .b = {SHAPE(R6B)}, .y = {SHAPE(R6O)},
         .accept = 1},
        {"SUB broadcast over rank 6", "SUB", .a = {SHAPE(R7A)}, .b = {SHAPE(R7B)},
         .y = {SHAPE(R7O)}, .needle = "rank <= 6"},
        {"ADD broadcasts at rank 7", "ADD", .a = {SHAPE(R7A)}, .b = {SHAPE(R7B)}, .y = {SHAPE(R7O)},
         .accept = 1},
        /* dtypes */
        {"inputs of two dtypes", "MUL", .b = {.dt = QCF_UINT8, .zp = 128}, .needle = "same dtype"},
        {"int32 operands", "ADD", .a = {.dt = QCF_INT32}, .b = {.dt = QCF_INT32},
         .y = {.dt = QCF_INT32}, .needle = "int8, uint8 or int16"},
        {"comparison to a non-bool output", "EQUAL", .needle = "must be bool"},
        /* quantization */
        {"unquantized input", "ADD", .a = {.quant = EWQ_NONE}, .needle = "needs quantization"},
        {"negative scale", "SUB", .a = {.scale = -0.1f}, .needle = "positive finite scale"},
        {"per-channel input", "MUL", .a = {.quant = EWQ_CHANNEL}, .needle = "per tensor"},
        /* activation */
        {"an activation LiteRT does not fuse", "ADD", .act = "TANH",
         .needle = "fused_activation_function"},
        {"activation bounds that overflow int32", "MUL", .a = {.scale = 1e-31f},
         .b = {.scale = 1e-31f}, .y = {.scale = 1e-30f}, .act = "RELU6",
         .needle = "overflow int32"},
        /* zero points */
        {"SUB input zero point outside the output type", "SUB", .a = {.zp = 128},
         .needle = "outside the output type"},
        {"ADD does not check its zero points' range", "ADD", .a = {.zp = 128}, .accept = 1},
        /* output multipliers >= 1 */
        {"ADD output multiplier >= 1", "ADD", .a = {.scale = 1}, .b = {.scale = 1},
         .y = {.scale = 0x1p-19f}, .needle = "must be < 1"},
        {"SUB output multiplier >= 1", "SUB", .a = {.scale = 1}, .b = {.scale = 1},
         .y = {.scale = 0x1p-19f}, .needle = "positive shift"},
        {"ADD output multiplier just under 1", "ADD", .a = {.scale = 1}, .b = {.scale = 1},
         .y = {.scale = 0x1.000002p-19f}, .accept = 1},
        /* int16 zero points */
        {"ADD int16 zero point", "ADD", .a = I16(0.001f, 1), .b = I16(0.001f, 0),
         .y = I16(0.001f, 0), .needle = "zero point must be 0"},
        {"MUL int16 zero point", "MUL", .a = I16(0.001f, 1), .b = I16(0.001f, 0),
         .y = I16(0.001f, 0), .needle = "zero point must be 0"},
        {"general int16 SUB takes a zero point", "SUB", .a = I16(0.001f, 1), .b = I16(0.001f, 0),
         .y = I16(0.001f, 0), .accept = 1},
        /* the int16 power-of-two path */
        {"int16 power-of-two SUB with a zero point", "SUB", .a = I16(0x1p-10f, 1),
         .b = I16(0x1p-10f, 0), .y = I16(0x1p-10f, 0), .pot = 1, .needle = "power-of-two path"},
        {"int16 power-of-two ADD, no input scale equal to the output's", "ADD",
         .a = I16(0x1p-12f, 0), .b = I16(0x1p-12f, 0), .y = I16(0x1p-10f, 0), .pot = 1,
         .needle = "one input scale must equal"},
        {"int16 power-of-two ADD, the other scale larger", "ADD", .a = I16(0x1p-10f, 0),
         .b = I16(0x1p-8f, 0), .y = I16(0x1p-10f, 0), .pot = 1,
         .needle = "one input scale must equal"},
        {"int16 power-of-two ADD, scales 2^20 apart", "ADD", .a = I16(0x1p-10f, 0),
         .b = I16(0x1p-30f, 0), .y = I16(0x1p-10f, 0), .pot = 1, .needle = "more than 15"},
        {"int16 power-of-two ADD with broadcasting", "ADD", .a = I16(0x1p-10f, 0),
         .b = {.dt = QCF_INT16, .scale = 0x1p-12f, SHAPE(S1)}, .y = I16(0x1p-10f, 0), .pot = 1,
         .needle = "does not broadcast"},
        {"int16 power-of-two SUB broadcasts", "SUB", .a = I16(0x1p-10f, 0),
         .b = {.dt = QCF_INT16, .scale = 0x1p-12f, SHAPE(S1)}, .y = I16(0x1p-10f, 0), .pot = 1,
         .accept = 1},
        /* comparisons */
        {"comparison input scale >= 1", "GREATER_EQUAL", .a = {.scale = 2}, .b = {.scale = 0.5f},
         .y = BOOL_OUT, .needle = "must be < 1"},
        {"comparison input scale exactly 1", "LESS", .a = {.scale = 1}, .b = {.scale = 0.5f},
         .y = BOOL_OUT, .needle = "must be < 1"},
        {"int16 ordering compares raw values", "LESS", .a = {.dt = QCF_INT16, .quant = EWQ_NONE},
         .b = {.dt = QCF_INT16, .quant = EWQ_NONE}, .y = BOOL_OUT, .accept = 1},
        {"int16 EQUAL unquantized", "EQUAL", .a = {.dt = QCF_INT16, .quant = EWQ_NONE},
         .b = {.dt = QCF_INT16, .quant = EWQ_NONE}, .y = BOOL_OUT, .needle = "needs quantization"},
        /* paths the reference lacks, roundings that do not apply */
        {"MUL int16 x int16 -> int8 (a LiteRT path the reference lacks)", "MUL",
         .a = I16(0.001f, 0), .b = I16(0.001f, 0), .y = {.scale = 0.01f}, .want = QCF_NOT_SUPPORTED,
         .needle = "not implemented"},
        {"ADD under half-even rounding", "ADD", .rounding = QREF_ROUND_HALF_EVEN,
         .want = QCF_NOT_SUPPORTED, .needle = "does not apply"},
        {"MAXIMUM under double rounding", "MAXIMUM", .rounding = QREF_ROUND_DOUBLE,
         .want = QCF_NOT_SUPPORTED, .needle = "does not apply"},
};

/* The operand o describes, in x. */
static void ewop_make(qt *x, const ewop *o)
{
	static const float sc[4] = {0.1f, 0.1f, 0.1f, 0.1f};
	qt_init(x, o->dt ? o->dt : QCF_INT8, o->shape ? o->rank : 1, o->shape ? o->shape : S4);
	if (o->quant == EWQ_TENSOR)
		qt_quant1(x, o->scale != 0 ? o->scale : 0.1f, o->zp);
	else if (o->quant == EWQ_CHANNEL)
		qt_quant(x, 0, 4, sc, NULL);
}

static void test_refusals(void)
{
	for (size_t i = 0; i < sizeof ew_rules / sizeof ew_rules[0]; i++) {
		const ewrule *r = &ew_rules[i];
		qt a, b, y;
		ewop_make(&a, &r->a);
		ewop_make(&b, &r->b);
		ewop_make(&y, &r->y);
		ewcall c;
		ewcall_init(&c, r->op, &a, &b, &y, r->act, r->pot);
		char msg[256];
		qcf_status want = r->accept ? QCF_OK : r->want ? r->want : QCF_INVALID_PARAM;
		qcf_status s = run(&c, r->rounding, msg);
		int ok = s == want && (want == QCF_OK || strstr(msg, r->needle));
		if (!ok)
			fprintf(stderr, "\n  %s (%s): status %d, message '%s'; want %d, '%s'",
			        r->rule, r->op, (int)s, msg, (int)want, r->needle ? r->needle : "");
		CU_ASSERT(ok);
	}
}

/* Real-valued hook: the op in double on the dequantized inputs, with the
 * activation applied. */
static void test_real(void)
{
	qt a, b, y;
	qt_make(&a, QCF_INT8, 1, S4, 0.5f, 2);
	qt_make(&b, QCF_INT8, 1, S4, 0.25f, -4);
	qt_make(&y, QCF_INT8, 1, S4, 0.1f, 0);
	const int qa[] = {2, 0, 20, -10}, qb[] = {-4, 0, 4, 0};
	ewt_fill(&a, qa);
	ewt_fill(&b, qb);
	ewcall c;
	double v[4];
	ewcall_init(&c, "ADD", &a, &b, &y, "RELU6", 0);
	CU_ASSERT_EQUAL_FATAL(qref_real_output(&c.call, 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[0], 0.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(v[1], 0.0, 1e-12); /* -1 + 1 */
	CU_ASSERT_DOUBLE_EQUAL(v[2], 6.0, 1e-12); /* 9 + 2 clamped */
	CU_ASSERT_DOUBLE_EQUAL(v[3], 0.0, 1e-12); /* -6 + 1 */
	ewcall_init(&c, "SUB", &a, &b, &y, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(qref_real_output(&c.call, 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[2], 7.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(v[3], -7.0, 1e-12);
	ewcall_init(&c, "MUL", &a, &b, &y, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(qref_real_output(&c.call, 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[2], 18.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(v[3], -6.0, 1e-12);
	ewcall_init(&c, "MINIMUM", &a, &b, &y, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(qref_real_output(&c.call, 0, v), QCF_OK);
	CU_ASSERT_DOUBLE_EQUAL(v[1], -1.0, 1e-12);
	qt_make(&y, QCF_BOOL, 1, S4, 0, 0);
	ewcall_init(&c, "LESS", &a, &b, &y, NULL, 0);
	CU_ASSERT_EQUAL(qref_real_output(&c.call, 0, v), QCF_NOT_SUPPORTED);
}

/* The family's specs against the reference: every case PASS or
 * EXPECTED_ERROR, with golden and negative cases present. */
static void test_specs_e2e(void)
{
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r = qct_run_report(
	        tmp, &st, NULL,
	        "specs/litert/add.yaml specs/litert/add_int16.yaml specs/litert/add_fixed.yaml "
	        "specs/litert/sub.yaml specs/litert/sub_int16.yaml specs/litert/sub_fixed.yaml "
	        "specs/litert/mul.yaml specs/litert/mul_int16.yaml specs/litert/mul_fixed.yaml "
	        "specs/litert/maximum.yaml specs/litert/minimum.yaml specs/litert/equal.yaml "
	        "specs/litert/not_equal.yaml specs/litert/less.yaml specs/litert/less_equal.yaml "
	        "specs/litert/greater.yaml specs/litert/greater_equal.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	size_t n = t.cases, bad = t.other, experr = t.expected_error, golden = t.golden;
	printf("\n  elementwise: %zu cases, %zu expected errors, %zu golden\n", n, experr, golden);
	CU_ASSERT(n >= 5000);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(experr >= 60);
	CU_ASSERT(golden >= 10);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_litert_elementwise(void)
{
	CU_pSuite s = qct_suite("litert_elementwise");
	CU_add_test(s, "ADD golden values (TFLM add_test.cc)", test_add_tflm_goldens);
	CU_add_test(s, "ADD/SUB ties in both builds", test_addsub_ties);
	CU_add_test(s, "MUL ties, saturation, zero points, RELU", test_mul);
	CU_add_test(s, "MUL pre-shift overflow marked any", test_mul_any);
	CU_add_test(s, "ADD/SUB int16 power-of-two path", test_int16_pot);
	CU_add_test(s, "numpy broadcasting", test_broadcast);
	CU_add_test(s, "comparisons with different parameters and ties", test_comparisons);
	CU_add_test(s, "refusals", test_refusals);
	CU_add_test(s, "real-valued hooks", test_real);
	CU_add_test(s, "specs end to end", test_specs_e2e);
}
