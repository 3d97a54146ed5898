/*
 * TensorFlow fake_quant_with_min_max_{args,vars,vars_per_channel} and their
 * gradients (reference/tf_fake_quant.c, specs/tf/OPERATORS.md): the reference
 * through qref_execute on TensorFlow's own test expectations
 * (tensorflow/core/kernels/fake_quant_ops_test.cc), the nudge, min == max == 0,
 * the float32 details of the gradients, the refusals, and end to end through
 * the binary over specs/tf.
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

/* float32 tensors: data in f32. */
static qt *ft_init(qt *x, int rank, const int64_t *shape)
{
	return qt_init(x, QCF_FLOAT32, rank, shape);
}

static qt *ft_vec(qt *x, int64_t n)
{
	return ft_init(x, 1, &n);
}

static qt *ft_fill(qt *x, const float *v)
{
	memcpy(x->f32, v, x->t.nbytes);
	return x;
}

static qt *ft_scalar(qt *x, float v)
{
	ft_init(x, 0, NULL);
	x->f32[0] = v;
	return x;
}

/* Runs a tf op; ins and outs are NULL-terminated. */
static qcf_status run(const char *op, qt **ins, qt **outs, const qcf_attr *attrs, int na,
                      qref_detail *d)
{
	int ni = 0, no = 0;
	while (ins[ni])
		ni++;
	while (outs[no])
		no++;
	return qt_run("tf", op, ins, ni, outs, no, attrs, na, qt_detail(d, QREF_ROUND_DEFAULT));
}

static qcf_status bits_run(const char *op, qt **ins, qt **outs, int bits, int narrow,
                           qref_detail *d)
{
	qcf_attr at[] = {qt_int("num_bits", bits), qt_int("narrow_range", narrow)};
	return run(op, ins, outs, at, 2, d);
}

static qcf_status args_run(const char *op, qt **ins, qt **outs, float min, float max, int bits,
                           int narrow, qref_detail *d)
{
	qcf_attr at[] = {qt_flt("min", min), qt_flt("max", max), qt_int("num_bits", bits),
	                 qt_int("narrow_range", narrow)};
	return run(op, ins, outs, at, 4, d);
}

#define ARGS    "fake_quant_with_min_max_args"
#define VARS    "fake_quant_with_min_max_vars"
#define CHANNEL "fake_quant_with_min_max_vars_per_channel"
#define ARGS_G  "fake_quant_with_min_max_args_gradient"
#define VARS_G  "fake_quant_with_min_max_vars_gradient"
#define CHAN_G  "fake_quant_with_min_max_vars_per_channel_gradient"

#define ASSERT_INVALID(st, d, rule)                                                                \
	do {                                                                                       \
		CU_ASSERT_EQUAL(st, QCF_INVALID_PARAM);                                            \
		if (!strstr((d)->message, rule))                                                   \
			fprintf(stderr, "\n  message '%s' lacks '%s'", (d)->message, rule);        \
		CU_ASSERT_PTR_NOT_NULL(strstr((d)->message, rule));                                \
	} while (0)

/* Bit-exact float32 comparison (distinguishes -0 from +0 and compares NaN as equal). */
static int same_bits(float a, float b)
{
	return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

static void assert_values(const qt *y, const float *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!same_bits(y->f32[i], want[i]))
			fprintf(stderr, "\n  element %zu: got %a, want %a", i, (double)y->f32[i],
			        (double)want[i]);
		CU_ASSERT(same_bits(y->f32[i], want[i]));
	}
}

/* ---- forward: fake_quant_ops_test.cc expectations ---------------------- */

static const int64_t s23[] = {2, 3};

/* One RunTestFakeQuantWithMinMaxArgs / ...Vars case of fake_quant_ops_test.cc. */
typedef struct {
	const char *name;
	int bits, narrow;
	float min, max;
	float x[6], want[6];
} tf_case;

static const tf_case forward_cases[] = {
        /* WithArgsNoNudging_RegularRange / WithVarsNoNudging_RegularRange: scale 1/4, zp 40 */
        {"NoNudging_RegularRange",
         8,
         0,
         -10.0f,
         53.75f,
         {-10.1f, -10.0f, -9.9f, -9.75f, 53.75f, 53.8f},
         {-10.0f, -10.0f, -10.0f, -9.75f, 53.75f, 53.75f}},
        /* WithVarsNudgedDown_RegularRange: zero point 0.4 nudged to 0, range [0, 63.75] */
        {"NudgedDown_RegularRange",
         8,
         0,
         -0.1f,
         63.65f,
         {-0.1f, 0.0f, 0.1f, 0.25f, 63.75f, 63.8f},
         {0.0f, 0.0f, 0.0f, 0.25f, 63.75f, 63.75f}},
        /* WithVarsNudgedUp_NarrowRange: zero point 1.5 nudged to 2, range [-0.25, 63.25] */
        {"NudgedUp_NarrowRange",
         8,
         1,
         -0.125f,
         63.375f,
         {-0.26f, -0.25f, -0.24f, 0.0f, 63.25f, 63.3f},
         {-0.25f, -0.25f, -0.25f, 0.0f, 63.25f, 63.25f}},
        /* WithVarsNudgedZeroIs255_RegularRange: zero point 254.6 nudged to 255, range
         * [-63.75, 0] */
        {"NudgedZeroIs255_RegularRange",
         8,
         0,
         -63.65f,
         0.1f,
         {-63.80f, -63.75f, -63.70f, -63.5f, 0.0f, 0.1f},
         {-63.75f, -63.75f, -63.75f, -63.5f, 0.0f, 0.0f}},
        /* WithVarsNudgedZero15_4Bits_RegularRange: scale 1/2, zero point 14.6 -> 15 */
        {"NudgedZero15_4Bits_RegularRange",
         4,
         0,
         -7.3f,
         0.2f,
         {-7.6f, -7.5f, -7.4f, -7.2f, 0.0f, 0.1f},
         {-7.5f, -7.5f, -7.5f, -7.0f, 0.0f, 0.0f}},
        /* WithArgsNudgedUp_2Bits_RegularRange: scale 1/2, zero point 0.8 -> 1, [-0.5, 1] */
        {"NudgedUp_2Bits_RegularRange",
         2,
         0,
         -0.4f,
         1.1f,
         {-0.6f, -0.5f, -0.24f, 0.0f, 1.0f, 1.1f},
         {-0.5f, -0.5f, 0.0f, 0.0f, 1.0f, 1.0f}},
        /* WithArgsNudgedUp_2Bits_NarrowRange: zero point 1.8 -> 2, [-0.5, 0.5] */
        {"NudgedUp_2Bits_NarrowRange",
         2,
         1,
         -0.4f,
         0.6f,
         {-0.6f, -0.5f, -0.24f, 0.0f, 0.5f, 0.6f},
         {-0.5f, -0.5f, 0.0f, 0.0f, 0.5f, 0.5f}},
};

/* TF's test compares with ExpectClose: -0.0f and 0.0f are equal there. Ours too. */
static void assert_close_values(const qt *y, const float *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (y->f32[i] != want[i])
			fprintf(stderr, "\n  element %zu: got %a, want %a", i, (double)y->f32[i],
			        (double)want[i]);
		CU_ASSERT_EQUAL(y->f32[i], want[i]);
	}
}

static void test_forward_tf_tests(void)
{
	qref_detail d;
	for (size_t k = 0; k < sizeof forward_cases / sizeof forward_cases[0]; k++) {
		const tf_case *c = &forward_cases[k];
		qt x, y, mn, mx, mnv, mxv, y2;
		ft_fill(ft_init(&x, 2, s23), c->x);
		ft_init(&y, 2, s23);
		qt *in1[] = {&x, NULL}, *out[] = {&y, NULL};
		CU_ASSERT_EQUAL(args_run(ARGS, in1, out, c->min, c->max, c->bits, c->narrow, &d),
		                QCF_OK);
		assert_close_values(&y, c->want, 6);
		qt *in3[] = {&x, ft_scalar(&mn, c->min), ft_scalar(&mx, c->max), NULL};
		CU_ASSERT_EQUAL(bits_run(VARS, in3, out, c->bits, c->narrow, &d), QCF_OK);
		assert_close_values(&y, c->want, 6);
		/* per channel, 3 channels of the same range over the last dimension */
		const float mins[] = {c->min, c->min, c->min}, maxs[] = {c->max, c->max, c->max};
		ft_fill(ft_vec(&mnv, 3), mins);
		ft_fill(ft_vec(&mxv, 3), maxs);
		qt *inc[] = {&x, &mnv, &mxv, NULL}, *outc[] = {ft_init(&y2, 2, s23), NULL};
		CU_ASSERT_EQUAL(bits_run(CHANNEL, inc, outc, c->bits, c->narrow, &d), QCF_OK);
		assert_close_values(&y2, c->want, 6);
	}
}

/* WithVarsPerChannelDim4NudgedUp_4Bits_NarrowRange: [1, 2, 3, 4], 4 bits, narrow, every
 * channel [-0.4, 6.6]: zero point 1.8 -> 2, range [-0.5, 6.5]. */
static void test_per_channel_rank4(void)
{
	static const int64_t shp[] = {1, 2, 3, 4};
	static const float xv[] = {-0.6f, -0.5f, -0.4f, 0.0f,  0.5f,   1.0f,  1.5f,   2.0f,
	                           2.5f,  3.0f,  3.5f,  4.0f,  5.5f,   6.0f,  6.4f,   6.5f,
	                           6.6f,  6.7f,  100.f, 100.f, 100.0f, 100.f, 100.0f, 1000.0f};
	static const float want[] = {-0.5f, -0.5f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f, 2.0f,
	                             2.5f,  3.0f,  3.5f,  4.0f, 5.5f, 6.0f, 6.5f, 6.5f,
	                             6.5f,  6.5f,  6.5f,  6.5f, 6.5f, 6.5f, 6.5f, 6.5f};
	static const float mins[] = {-0.4f, -0.4f, -0.4f, -0.4f}, maxs[] = {6.6f, 6.6f, 6.6f, 6.6f};
	qt x, y, mn, mx;
	ft_fill(ft_init(&x, 4, shp), xv);
	ft_init(&y, 4, shp);
	qt *in[] = {&x, ft_fill(ft_vec(&mn, 4), mins), ft_fill(ft_vec(&mx, 4), maxs), NULL};
	qt *out[] = {&y, NULL};
	qref_detail d;
	CU_ASSERT_EQUAL(bits_run(CHANNEL, in, out, 4, 1, &d), QCF_OK);
	assert_close_values(&y, want, 24);
}

/* docs/qparams.md: min -1, max 1, 8 bits: zero_point_from_min = 127.499992f, zero point
 * 127 (not 128): the nudged range is [-127 s, 128 s], s = 2/255. */
static void test_nudge_example(void)
{
	const float s = 2.0f / 255.0f;
	static const float xv[] = {-1.0f, 0.0f, 1.0f, 2.0f};
	qt x, y, mn, mx;
	ft_fill(ft_vec(&x, 4), xv);
	ft_vec(&y, 4);
	qt *in1[] = {&x, NULL}, *out[] = {&y, NULL};
	qref_detail d;
	CU_ASSERT_EQUAL(args_run(ARGS, in1, out, -1, 1, 8, 0, &d), QCF_OK);
	const float want[] = {-127.0f * s, 0.0f, 128.0f * s, 128.0f * s};
	assert_values(&y, want, 4);
	/* zero point 128 would give -128 s at -1 and 127 s at 1 */
	CU_ASSERT(y.f32[0] != -128.0f * s);
	qt *in3[] = {&x, ft_scalar(&mn, -1), ft_scalar(&mx, 1), NULL};
	CU_ASSERT_EQUAL(bits_run(VARS, in3, out, 8, 0, &d), QCF_OK);
	assert_values(&y, want, 4);
}

/* min == max == 0: zeros forward (vars, per channel), everything passes backward. */
static void test_zero_range(void)
{
	static const float xv[] = {-3.0f, 0.25f, 7.5f, -0.0f}, gv[] = {1.5f, -2.0f, 4.0f, 0.5f};
	static const float zeros[] = {0, 0, 0, 0};
	static const int64_t s22[] = {2, 2};
	qt x, y, g, mn, mx, bi, bmin, bmax;
	ft_fill(ft_init(&x, 2, s22), xv);
	ft_init(&y, 2, s22);
	qt *in3[] = {&x, ft_scalar(&mn, 0), ft_scalar(&mx, 0), NULL}, *out[] = {&y, NULL};
	qref_detail d;
	CU_ASSERT_EQUAL(bits_run(VARS, in3, out, 8, 0, &d), QCF_OK);
	assert_values(&y, zeros, 4);

	/* WithVarsGradient_ZeroMinAndMax: backprops = gradients, min/max gradients 0 */
	ft_fill(ft_init(&g, 2, s22), gv);
	ft_init(&bi, 2, s22);
	qt *ing[] = {&g, &x, &mn, &mx, NULL};
	qt *outg[] = {&bi, ft_scalar(&bmin, 9), ft_scalar(&bmax, 9), NULL};
	CU_ASSERT_EQUAL(bits_run(VARS_G, ing, outg, 8, 0, &d), QCF_OK);
	assert_values(&bi, gv, 4);
	CU_ASSERT(same_bits(bmin.f32[0], 0.0f));
	CU_ASSERT(same_bits(bmax.f32[0], 0.0f));

	/* per channel: channel 0 is [0, 0], channel 1 is [-10, 245] (scale 1, zero point 10) */
	static const float mins[] = {0, -10}, maxs[] = {0, 245};
	qt mnv, mxv, bminv, bmaxv;
	ft_fill(ft_vec(&mnv, 2), mins);
	ft_fill(ft_vec(&mxv, 2), maxs);
	qt *inc[] = {&x, &mnv, &mxv, NULL};
	CU_ASSERT_EQUAL(bits_run(CHANNEL, inc, out, 8, 0, &d), QCF_OK);
	/* channel 0: zeros; channel 1: 0.25 -> floor(0.25 + 10 - 10 + 0.5) = 0, -0 -> 0 */
	assert_values(&y, zeros, 4);
	qt *ingc[] = {&g, &x, &mnv, &mxv, NULL};
	qt *outgc[] = {&bi, ft_vec(&bminv, 2), ft_vec(&bmaxv, 2), NULL};
	CU_ASSERT_EQUAL(bits_run(CHAN_G, ingc, outgc, 8, 0, &d), QCF_OK);
	/* channel 0 passes everything; channel 1 holds 0.25 and -0 inside [-10, 245] */
	assert_values(&bi, gv, 4);
	CU_ASSERT(same_bits(bminv.f32[0], 0.0f) && same_bits(bminv.f32[1], 0.0f));
	CU_ASSERT(same_bits(bmaxv.f32[0], 0.0f) && same_bits(bmaxv.f32[1], 0.0f));
}

/* Ties go up, also for the widest grid (16 bits) and a range of positive values only. */
static void test_ties_and_ranges(void)
{
	/* [0, 65535], 16 bits: scale 1, zero point 0: x + 0.5 ties round up */
	static const float xv[] = {0.5f, 1.5f, 2.5f, 65534.5f, 70000.0f, -3.0f};
	static const float want[] = {1.0f, 2.0f, 3.0f, 65535.0f, 65535.0f, 0.0f};
	qt x, y, mn, mx;
	ft_fill(ft_vec(&x, 6), xv);
	ft_vec(&y, 6);
	qt *in1[] = {&x, NULL}, *out[] = {&y, NULL};
	qref_detail d;
	CU_ASSERT_EQUAL(args_run(ARGS, in1, out, 0, 65535, 16, 0, &d), QCF_OK);
	assert_values(&y, want, 6);
	/* min > 0: [2, 17], 4 bits: scale 1, zero_point_from_min -2 -> 0, range [0, 15] */
	static const float xp[] = {-1.0f, 0.5f, 2.5f, 14.5f, 15.0f, 30.0f};
	static const float wp[] = {0.0f, 1.0f, 3.0f, 15.0f, 15.0f, 15.0f};
	ft_fill(&x, xp);
	qt *in3[] = {&x, ft_scalar(&mn, 2), ft_scalar(&mx, 17), NULL};
	CU_ASSERT_EQUAL(bits_run(VARS, in3, out, 4, 0, &d), QCF_OK);
	assert_values(&y, wp, 6);
	/* max < 0: [-17, -2], 4 bits: zero point 17 -> 15, range [-15, 0] */
	static const float xn[] = {-20.0f, -14.5f, -0.5f, -1.5f, 1.0f, -15.0f};
	static const float wn[] = {-15.0f, -14.0f, 0.0f, -1.0f, 0.0f, -15.0f};
	ft_fill(&x, xn);
	ft_scalar(&mn, -17);
	ft_scalar(&mx, -2);
	CU_ASSERT_EQUAL(bits_run(VARS, in3, out, 4, 0, &d), QCF_OK);
	assert_values(&y, wn, 6);
}

/* ---- gradients --------------------------------------------------------- */

/* WithArgsGradient_RegularRange / WithVarsGradient_RegularRange (fake_quant_ops_test.cc):
 * [-0.125, 63.625], 8 bits: range nudged to [-0.25, 63.5]; expected backprops
 * {0, g1, g2, g3, g4, 0}, backprop_wrt_min g0, backprop_wrt_max g5. TF draws g at
 * random; fixed values here. */
static void test_gradient_tf_tests(void)
{
	static const float xv[] = {-0.26f, -0.25f, -0.24f, 0.0f, 63.5f, 63.6f};
	static const float gv[] = {0.75f, -1.25f, 2.0f, 3.5f, -4.0f, 5.25f};
	const float want[] = {0.0f, -1.25f, 2.0f, 3.5f, -4.0f, 0.0f};
	qt x, g, bi, mn, mx, bmin, bmax;
	ft_fill(ft_init(&x, 2, s23), xv);
	ft_fill(ft_init(&g, 2, s23), gv);
	ft_init(&bi, 2, s23);
	qt *in2[] = {&g, &x, NULL}, *out1[] = {&bi, NULL};
	qref_detail d;
	CU_ASSERT_EQUAL(args_run(ARGS_G, in2, out1, -0.125f, 63.625f, 8, 0, &d), QCF_OK);
	assert_values(&bi, want, 6);
	qt *in4[] = {&g, &x, ft_scalar(&mn, -0.125f), ft_scalar(&mx, 63.625f), NULL};
	qt *out3[] = {&bi, ft_scalar(&bmin, 0), ft_scalar(&bmax, 0), NULL};
	CU_ASSERT_EQUAL(bits_run(VARS_G, in4, out3, 8, 0, &d), QCF_OK);
	assert_values(&bi, want, 6);
	CU_ASSERT(same_bits(bmin.f32[0], 0.75f));
	CU_ASSERT(same_bits(bmax.f32[0], 5.25f));

	/* WithArgsGradient_4Bits_NarrowRange: [-0.4, 6.6], 4 bits narrow -> [-0.5, 6.5] */
	static const float x4[] = {-0.6f, -0.5f, -0.4f, 0.0f, 6.5f, 6.6f};
	ft_fill(&x, x4);
	CU_ASSERT_EQUAL(args_run(ARGS_G, in2, out1, -0.4f, 6.6f, 4, 1, &d), QCF_OK);
	assert_values(&bi, want, 6);

	/* per channel, [2, 3]: the two rows of channel c are summed per channel */
	static const float mins[] = {-0.125f, -0.125f, -0.125f},
	                   maxs[] = {63.625f, 63.625f, 63.625f};
	qt mnv, mxv, bminv, bmaxv;
	ft_fill(&x, xv);
	qt *inc[] = {&g, &x, ft_fill(ft_vec(&mnv, 3), mins), ft_fill(ft_vec(&mxv, 3), maxs), NULL};
	qt *outc[] = {&bi, ft_vec(&bminv, 3), ft_vec(&bmaxv, 3), NULL};
	CU_ASSERT_EQUAL(bits_run(CHAN_G, inc, outc, 8, 0, &d), QCF_OK);
	assert_values(&bi, want, 6);
	/* x[0] = -0.26 (channel 0) is below; x[5] = 63.6 (channel 2) is above */
	const float wmin[] = {0.75f, 0.0f, 0.0f}, wmax[] = {0.0f, 0.0f, 5.25f};
	assert_values(&bminv, wmin, 3);
	assert_values(&bmaxv, wmax, 3);
}

/* The float32 details: g * 0.0f keeps g's sign and turns inf into NaN, NaN x passes
 * nothing, and the sums run in index order from +0.0f in float32. */
static void test_gradient_float_details(void)
{
	const float inf = INFINITY;
	/* range [0, 255] (8 bits, scale 1); x: below, inside, above, NaN, below, inside */
	static const float xv[] = {-1.0f, 3.0f, 300.0f, NAN, -2.0f, 255.0f};
	const float gv[] = {-2.0f, 1.0f, -3.0f, 7.0f, -0.0f, inf};
	qt x, g, bi, mn, mx, bmin, bmax;
	ft_fill(ft_vec(&x, 6), xv);
	ft_fill(ft_vec(&g, 6), gv);
	ft_vec(&bi, 6);
	qt *in4[] = {&g, &x, ft_scalar(&mn, 0), ft_scalar(&mx, 255), NULL};
	qt *out3[] = {&bi, ft_scalar(&bmin, 1), ft_scalar(&bmax, 1), NULL};
	qref_detail d;
	CU_ASSERT_EQUAL(bits_run(VARS_G, in4, out3, 8, 0, &d), QCF_OK);
	const float want[] = {-0.0f, 1.0f, -0.0f, 0.0f, -0.0f, inf};
	assert_values(&bi, want, 6);
	/* min: -2 + -0 (+ the others' g * 0, one of them inf * 0 = NaN) */
	CU_ASSERT(isnan(bmin.f32[0]));
	CU_ASSERT(isnan(bmax.f32[0]));

	/* sums in index order: 1 + 2^24 and then + 1 round back to 2^24 (ties to even) before
	 * -2^24 cancels it: 0. The exact sum is 2; pairs (1 + 2^24) + (1 - 2^24) give 1, the
	 * reverse order 2. */
	static const float xs[] = {-1.0f, -1.0f, -1.0f, -1.0f, 1.0f};
	const float gs[] = {1.0f, 0x1p24f, 1.0f, -0x1p24f, 100.0f};
	ft_fill(ft_vec(&x, 5), xs);
	ft_fill(ft_vec(&g, 5), gs);
	ft_vec(&bi, 5);
	CU_ASSERT_EQUAL(bits_run(VARS_G, in4, out3, 8, 0, &d), QCF_OK);
	CU_ASSERT(same_bits(bmin.f32[0], 0.0f));
	CU_ASSERT(same_bits(bmax.f32[0], 0.0f));
	/* an all-inside tensor sums to +0, even from negative gradients */
	static const float xi[] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
	const float gi[] = {-1.0f, -2.0f, -3.0f, -4.0f, -5.0f};
	ft_fill(&x, xi);
	ft_fill(&g, gi);
	CU_ASSERT_EQUAL(bits_run(VARS_G, in4, out3, 8, 0, &d), QCF_OK);
	CU_ASSERT(same_bits(bmin.f32[0], 0.0f)); /* +0 + -0 = +0 */
	CU_ASSERT(same_bits(bmax.f32[0], 0.0f));

	/* gradients name no rounding: a named one is NOT_SUPPORTED */
	qcf_tensor in[4] = {g.t, x.t, mn.t, mx.t}, out[3] = {bi.t, bmin.t, bmax.t};
	qcf_attr at[] = {qt_int("num_bits", 8)};
	qcf_op_call c = {sizeof c, VARS_G, "tf", 4, in, 3, out, 1, at, NULL};
	memset(&d, 0, sizeof d);
	d.rounding = QREF_ROUND_HALF_EVEN;
	CU_ASSERT_EQUAL(qref_execute(&c, &d), QCF_NOT_SUPPORTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "does not apply"));
}

/* The detail the harness compares with: gradient outputs are exact and off any grid
 * (compared in ULP), forward outputs carry the grid's step. */
static void test_gradient_detail(void)
{
	static const float xv[] = {-1.0f, 3.0f}, gv[] = {2.0f, 3.0f};
	qt x, g, bi;
	ft_fill(ft_vec(&x, 2), xv);
	ft_fill(ft_vec(&g, 2), gv);
	ft_vec(&bi, 2);
	double step[2] = {-1, -1}, lo[2], hi[2];
	uint8_t any[2] = {1, 1};
	qcf_tensor in[2] = {g.t, x.t}, out[1] = {bi.t};
	qcf_attr at[] = {qt_flt("min", 0), qt_flt("max", 255)};
	qcf_op_call c = {sizeof c, ARGS_G, "tf", 2, in, 1, out, 2, at, NULL};
	qref_detail d;
	memset(&d, 0, sizeof d);
	d.out[0] = (qref_output_detail){any, lo, hi, step};
	CU_ASSERT_EQUAL(qref_execute(&c, &d), QCF_OK);
	CU_ASSERT(any[0] == 0 && any[1] == 0);
	CU_ASSERT(step[0] == 0.0 && step[1] == 0.0);
	CU_ASSERT(bi.f32[0] == 0.0f && bi.f32[1] == 3.0f);
}

/* ---- refusals (TF's messages) ------------------------------------------ */

static void test_refusals(void)
{
	qref_detail d;
	qt x, y, g, mn, mx, bi, bmin, bmax;
	ft_vec(&x, 3);
	ft_vec(&y, 3);
	ft_vec(&g, 3);
	ft_vec(&bi, 3);
	qt *in1[] = {&x, NULL}, *out1[] = {&y, NULL}, *in2[] = {&g, &x, NULL},
	   *outg1[] = {&bi, NULL};
	qt *in3[] = {&x, ft_scalar(&mn, -1), ft_scalar(&mx, 1), NULL};
	qt *in4[] = {&g, &x, &mn, &mx, NULL};
	qt *outg3[] = {&bi, ft_scalar(&bmin, 0), ft_scalar(&bmax, 0), NULL};
	const char *nb = "num_bits must be between 2 and 16, inclusive";

	/* num_bits outside [2, 16], all six ops; 2 and 16 are accepted */
	for (int b = 1; b <= 17; b += 16) {
		ASSERT_INVALID(args_run(ARGS, in1, out1, -1, 1, b, 0, &d), &d, nb);
		ASSERT_INVALID(args_run(ARGS_G, in2, outg1, -1, 1, b, 0, &d), &d, nb);
		ASSERT_INVALID(bits_run(VARS, in3, out1, b, 0, &d), &d, nb);
		ASSERT_INVALID(bits_run(VARS_G, in4, outg3, b, 0, &d), &d, nb);
	}
	CU_ASSERT_EQUAL(args_run(ARGS, in1, out1, -1, 1, 2, 0, &d), QCF_OK);
	CU_ASSERT_EQUAL(bits_run(VARS_G, in4, outg3, 16, 1, &d), QCF_OK);

	/* _args: min < max, as float attrs */
	ASSERT_INVALID(args_run(ARGS, in1, out1, 1, 1, 8, 0, &d), &d,
	               "min has to be smaller than max, was: 1 >= 1");
	ASSERT_INVALID(args_run(ARGS_G, in2, outg1, 2, -1, 8, 0, &d), &d,
	               "min has to be smaller than max, was: 2 >= -1");
	/* gradient and input shapes */
	qt g4;
	qt *in2b[] = {ft_vec(&g4, 4), &x, NULL};
	ASSERT_INVALID(args_run(ARGS_G, in2b, outg1, -1, 1, 8, 0, &d), &d,
	               "gradient and input must be the same size");
	qt *in4b[] = {&g4, &x, &mn, &mx, NULL};
	ASSERT_INVALID(bits_run(VARS_G, in4b, outg3, 8, 0, &d), &d,
	               "gradient and input must be the same size");

	/* _vars: min and max rank 0, a one-element vector is refused */
	qt mn1, mx1;
	const float m1[] = {-1.0f}, p1[] = {1.0f};
	qt *in3b[] = {&x, ft_fill(ft_vec(&mn1, 1), m1), &mx, NULL};
	ASSERT_INVALID(bits_run(VARS, in3b, out1, 8, 0, &d), &d,
	               "`min` must be rank 0 but is rank 1");
	qt *in3c[] = {&x, &mn, ft_fill(ft_vec(&mx1, 1), p1), NULL};
	ASSERT_INVALID(bits_run(VARS, in3c, out1, 8, 0, &d), &d,
	               "`max` must be rank 0 but is rank 1");
	qt *in4c[] = {&g, &x, &mn1, &mx, NULL};
	ASSERT_INVALID(bits_run(VARS_G, in4c, outg3, 8, 0, &d), &d, "`min` must be rank 0");

	/* per channel: min/max rank 1 of the last dimension's length */
	static const int64_t s23l[] = {2, 3};
	qt xc, yc, gc, bic, mnc, mxc, mn2, bminc, bmaxc;
	const float mins[] = {-1, -1, -1}, maxs[] = {1, 1, 1};
	ft_init(&xc, 2, s23l);
	ft_init(&yc, 2, s23l);
	ft_init(&gc, 2, s23l);
	ft_init(&bic, 2, s23l);
	ft_fill(ft_vec(&mnc, 3), mins);
	ft_fill(ft_vec(&mxc, 3), maxs);
	ft_fill(ft_vec(&mn2, 2), mins);
	qt *outc[] = {&yc, NULL};
	qt *inc_ok[] = {&xc, &mnc, &mxc, NULL};
	CU_ASSERT_EQUAL(bits_run(CHANNEL, inc_ok, outc, 8, 0, &d), QCF_OK);
	qt *inc1[] = {&xc, &mn2, &mxc, NULL};
	ASSERT_INVALID(bits_run(CHANNEL, inc1, outc, 8, 0, &d), &d,
	               "min has incorrect size, expected 3 was 2");
	qt *inc2[] = {&xc, &mnc, &mn2, NULL};
	ASSERT_INVALID(bits_run(CHANNEL, inc2, outc, 8, 0, &d), &d,
	               "max has incorrect size, expected 3 was 2");
	qt *inc3[] = {&xc, &mn, &mxc, NULL};
	ASSERT_INVALID(bits_run(CHANNEL, inc3, outc, 8, 0, &d), &d,
	               "`min` must be rank 1 but is rank 0");
	qt xs, ys;
	qt *inc4[] = {ft_scalar(&xs, 1), &mn1, &mx1, NULL}, *outs[] = {ft_scalar(&ys, 0), NULL};
	ASSERT_INVALID(bits_run(CHANNEL, inc4, outs, 8, 0, &d), &d, "at least rank 1");

	qt *ingc[] = {&gc, &xc, &mnc, &mxc, NULL};
	qt *outgc[] = {&bic, ft_vec(&bminc, 3), ft_vec(&bmaxc, 3), NULL};
	CU_ASSERT_EQUAL(bits_run(CHAN_G, ingc, outgc, 8, 0, &d), QCF_OK);
	qt *ingc1[] = {&gc, &xc, &mn2, &mxc, NULL};
	ASSERT_INVALID(bits_run(CHAN_G, ingc1, outgc, 8, 0, &d), &d,
	               "min has incorrect size, expected 3 was 2");
	qt *ingc2[] = {&g, &xc, &mnc, &mxc, NULL};
	ASSERT_INVALID(bits_run(CHAN_G, ingc2, outgc, 8, 0, &d), &d,
	               "gradient and input must be the same size");
	/* the gradient's registration: rank at most 4 */
	static const int64_t s5[] = {1, 1, 1, 2, 3};
	qt x5, g5, b5;
	qt *ing5[] = {ft_init(&g5, 5, s5), ft_init(&x5, 5, s5), &mnc, &mxc, NULL};
	qt *outg5[] = {ft_init(&b5, 5, s5), &bminc, &bmaxc, NULL};
	ASSERT_INVALID(bits_run(CHAN_G, ing5, outg5, 8, 0, &d), &d, "at most rank 4");
	/* ...while the forward op takes any rank from 1 */
	qt *in5[] = {&x5, &mnc, &mxc, NULL}, *out5[] = {&b5, NULL};
	CU_ASSERT_EQUAL(bits_run(CHANNEL, in5, out5, 8, 0, &d), QCF_OK);
}

/* ---- end to end -------------------------------------------------------- */

/* The reference against specs/tf through the binary: every case PASS or EXPECTED_ERROR,
 * goldens and negative cases for each of the six ops. */
static void test_specs(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/tf");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	CU_ASSERT_EQUAL(t.other, 0);
	static const char *ops[] = {ARGS, VARS, CHANNEL, ARGS_G, VARS_G, CHAN_G};
	json_t *cases = json_object_get(r, "cases");
	for (size_t k = 0; k < 6; k++) {
		size_t n = 0, neg = 0, gold = 0;
		for (size_t i = 0; i < json_array_size(cases); i++) {
			json_t *c = json_array_get(cases, i);
			if (strcmp(json_string_value(json_object_get(c, "op")), ops[k]) != 0)
				continue;
			n++;
			neg += strcmp(qct_verdict(c), "EXPECTED_ERROR") == 0;
			gold += json_object_get(c, "golden_source") != NULL;
		}
		if (!n || !neg || !gold)
			fprintf(stderr, "\n  %s: %zu cases, %zu negative, %zu golden", ops[k], n,
			        neg, gold);
		CU_ASSERT(n > 20 && neg > 0 && gold > 0);
	}
	printf("\n  tf: %zu cases, %zu expected errors, %zu golden\n", t.cases, t.expected_error,
	       t.golden);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_tf(void)
{
	CU_pSuite s = qct_suite("tf");
	CU_add_test(s, "forward: fake_quant_ops_test expectations", test_forward_tf_tests);
	CU_add_test(s, "per channel, rank 4, 4 bits narrow", test_per_channel_rank4);
	CU_add_test(s, "nudge example: min -1, max 1 -> zero point 127", test_nudge_example);
	CU_add_test(s, "min == max == 0", test_zero_range);
	CU_add_test(s, "ties half up, 16 bits, positive and negative ranges", test_ties_and_ranges);
	CU_add_test(s, "gradients: fake_quant_ops_test expectations", test_gradient_tf_tests);
	CU_add_test(s, "gradients: float32 products and index-order sums",
	            test_gradient_float_details);
	CU_add_test(s, "gradients: exact, off-grid detail", test_gradient_detail);
	CU_add_test(s, "refusals quote TF", test_refusals);
	CU_add_test(s, "reference passes specs/tf", test_specs);
}
