/*
 * gemmlowp fixed-point functions and LiteRT lookup tables, restated from
 * gemmlowp's and LiteRT's sources named in fixedpoint.h. Portable C: no
 * signed overflow, no implementation-defined shifts of negative values.
 */
#include "fixedpoint.h"

#include <math.h>

#include "requant.h"

int32_t qfp_add(int32_t a, int32_t b)
{
	uint32_t u = (uint32_t)a + (uint32_t)b;
	return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

int32_t qfp_sub(int32_t a, int32_t b)
{
	uint32_t u = (uint32_t)a - (uint32_t)b;
	return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

int qfp_clz32(int32_t x)
{
	uint32_t u = (uint32_t)x;
	int n = 0;
	if (u == 0)
		return 32;
	while (!(u & 0x80000000u)) {
		u <<= 1;
		n++;
	}
	return n;
}

int32_t qfp_satshl(int32_t x, int e)
{
	if (e <= 0)
		return x;
	int64_t thr = (INT64_C(1) << (31 - e)) - 1;
	if (x > thr)
		return INT32_MAX;
	if (x < -thr)
		return INT32_MIN;
	return (int32_t)((int64_t)x * (INT64_C(1) << e));
}

int32_t qfp_rhs(int32_t a, int32_t b)
{
	int64_t s = (int64_t)a + (int64_t)b;
	return (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
}

/* Q0.31 constants */
#define C_EXP_M1_8  1895147668 /* exp(-1/8) */
#define C_ONE_THIRD 715827883

int32_t qfp_expq(int32_t a)
{
	int32_t x = qfp_add(a, 1 << 28);
	int32_t x2 = qref_srdhm(x, x);
	int32_t x3 = qref_srdhm(x2, x);
	int32_t x4 = qref_srdhm(x2, x2);
	int32_t t = qref_rdbpot(
	        qfp_add(qref_srdhm(qfp_add(qref_rdbpot(x4, 2), x3), C_ONE_THIRD), x2), 1);
	return qfp_add(C_EXP_M1_8, qref_srdhm(C_EXP_M1_8, qfp_add(x, t)));
}

/* exp(-2^k) in Q0.31, k = -2..4 */
static const int32_t exp_barrel[7] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535,   720401,     242};

int32_t qfp_expneg(int32_t a, int i)
{
	int f = 31 - i;
	int32_t qt = (int32_t)(INT64_C(1) << (f - 2));
	int32_t am = qfp_sub((int32_t)((uint32_t)a & (uint32_t)(qt - 1)), qt);
	int32_t r = qfp_expq(qfp_satshl(am, i));
	uint32_t rem = (uint32_t)qfp_sub(am, a);
	for (int k = -2; k <= 4; k++)
		if (i > k && f + k <= 31 && ((rem >> (f + k)) & 1u))
			r = qref_srdhm(r, exp_barrel[k + 2]);
	if (i > 5 && (int64_t)a < -(INT64_C(1) << (36 - i)))
		r = 0;
	if (a == 0)
		r = INT32_MAX;
	return r;
}

int32_t qfp_nr(int32_t a)
{
	int32_t h = qfp_rhs(a, INT32_MAX);
	int32_t x = qfp_add(1515870810, qref_srdhm(h, -1010580540));
	for (int k = 0; k < 3; k++)
		x = qfp_add(x, qfp_satshl(qref_srdhm(x, qfp_sub(1 << 29, qref_srdhm(h, x))), 2));
	return x;
}

int32_t qfp_recip1p(int32_t a)
{
	return qfp_satshl(qfp_nr(a), 1);
}

int32_t qfp_omxopx(int32_t a)
{
	return qfp_satshl(qfp_sub(qfp_nr(a), 1 << 29), 2);
}

static int32_t neg_abs(int32_t a)
{
	return a > 0 ? -a : (a == INT32_MIN ? INT32_MIN + 1 : a);
}

int32_t qfp_logistic(int32_t a, int i)
{
	if (a == 0)
		return 1 << 30;
	int32_t p = qfp_recip1p(qfp_expneg(neg_abs(a), i));
	return a > 0 ? p : qfp_sub(INT32_MAX, p);
}

int32_t qfp_tanh(int32_t a, int i)
{
	if (a == 0)
		return 0;
	int32_t t = qfp_omxopx(qfp_expneg(neg_abs(a), i + 1));
	return a > 0 ? t : qfp_sub(0, t);
}

static int32_t sat64(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

int32_t qfp_logq(int32_t z)
{
	const int32_t L2 = 1488522236, S4 = 1805811301, S2 = 1518500250;
	const int32_t An = 117049297, Ad = 127690142, Ai = 1057819769, Af = 638450708;
	const int32_t sq = 1 << 23;
	int ha = qfp_clz32(z);
	int32_t ra = qfp_satshl(qref_srdhm(qfp_satshl(z, ha - 1), S2), 1);
	int32_t pa = sat64((int64_t)qfp_satshl(12 - ha, 25) + sq);
	int32_t zb = qref_srdhm(z, S2);
	int hb = qfp_clz32(zb) - 1;
	int32_t rb = qfp_satshl(z, hb);
	int32_t pb = sat64((int64_t)qfp_satshl(12 - hb, 25) - sq);
	int32_t r = ra < rb ? ra : rb;
	int32_t pw = pa > pb ? pa : pb;
	int32_t p = qfp_rhs(r, S4);
	int32_t q = qfp_add(qfp_sub(r, S4), qfp_sub(r, S4));
	int32_t c = qref_srdhm(q, q);
	int32_t num = qfp_add(qref_srdhm(q, r), qref_srdhm(qref_srdhm(q, c), An));
	int32_t den = qfp_add(qref_srdhm(p, qfp_add(qfp_add(Ai, q), qref_srdhm(Ad, c))),
	                      qref_srdhm(Af, q));
	int32_t rd = qfp_recip1p(den);
	return qfp_satshl(qfp_add(qref_srdhm(pw, L2), qref_srdhm(qref_rdbpot(num, 6), rd)), 1);
}

int qfp_checked_log2(float x, int *log2)
{
	float inv = 1.0f / logf(2.0f);
	float l = logf(x) * inv;
	float k = roundf(l);
	*log2 = (int)k;
	return fabsf(l - k) < 1e-3f;
}

int qfp_lut8(qfp_fn_f f, float s_in, int32_t zp_in, float s_out, int32_t zp_out, int8_t table[256],
             uint8_t undefined[256])
{
	float inv = 1.0f / s_out;
	int n_undefined = 0;
	for (int v = -128; v <= 127; v++) {
		float y = f(s_in * (float)(v - zp_in));
		float q = roundf(y * inv) + (float)zp_out;
		/* LiteRT converts q to int32 before clamping: undefined outside int32 (or NaN) */
		int bad = !(q >= -2147483648.0f && q < 2147483648.0f);
		n_undefined += bad;
		if (undefined)
			undefined[v + 128] = (uint8_t)bad;
		table[v + 128] = (int8_t)(q < -128.0f ? -128 : q > 127.0f ? 127 : bad ? 0 : (int)q);
	}
	return n_undefined;
}

static int16_t clamp16d(double v)
{
	return (int16_t)(v < -32768.0 ? -32768.0 : v > 32767.0 ? 32767.0 : v);
}

void qfp_lut16(qfp_fn_d f, double s_in, int32_t zp_in, double s_out, int32_t zp_out,
               int16_t lut[513])
{
	double lo = s_in * (double)(-32768 - zp_in), hi = s_in * (double)(32767 - zp_in);
	double olo = s_out * (double)(-32768 - zp_out), ohi = s_out * (double)(32767 - zp_out);
	double step = (hi - lo) / 512, half = step / 2;
	double inv = 65536.0 / (ohi - olo);
	for (int i = 0; i < 512; i++) {
		double v = f(lo + i * step), vm = f(lo + i * step + half),
		       vn = f(lo + (i + 1) * step);
		double sample = round(v * inv);
		double interp = round((vn * inv + round(v * inv)) / 2);
		double mid = round(vm * inv);
		double bias = round((interp - mid) / 2);
		lut[i] = clamp16d(sample - bias);
	}
	lut[512] = clamp16d(round(f(hi) * inv));
}

int16_t qfp_lookup16(int16_t v, const int16_t lut[513])
{
	int i = 256 + (int)qref_asr64(v, 7);
	int o = v & 127;
	int32_t b = lut[i];
	/* the slope is an int16 in LiteRT: a step beyond int16 wraps */
	int32_t slope = (int16_t)(uint16_t)(lut[i + 1] - b);
	int64_t r = b + qref_asr64((int64_t)slope * o + 64, 7);
	return (int16_t)r;
}

const uint16_t qfp_sigmoid_table[256] = {
        32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
        41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
        48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
        54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
        58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
        61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
        63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
        64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
        64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
        65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
        65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
        65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
        65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
        65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
        65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
        65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
        65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
        65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
        65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
        65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
};

int16_t qfp_logistic16(int32_t v)
{
	int64_t a = v < 0 ? -(int64_t)v : v;
	int64_t u = a >> 9;
	int64_t r;
	if (u >= 255)
		r = (int64_t)32767 << 10;
	else
		r = (int64_t)qfp_sigmoid_table[u] * 512 +
		    (a & 511) * (qfp_sigmoid_table[u + 1] - qfp_sigmoid_table[u]);
	r = v >= 0 ? r + 512 : (INT64_C(1) << 25) - r + 512 - 1;
	return (int16_t)(r >> 10);
}

int16_t qfp_tanh16(int32_t v)
{
	int64_t a = v < 0 ? -(int64_t)v : v;
	int64_t u = a >> 8;
	int64_t r;
	if (u >= 255)
		r = (int64_t)65535 << 8;
	else
		r = (int64_t)qfp_sigmoid_table[u] * 256 +
		    (a & 255) * (qfp_sigmoid_table[u + 1] - qfp_sigmoid_table[u]);
	r = v >= 0 ? r - (1 << 23) + 128 : (1 << 23) + 128 - 1 - r;
	return (int16_t)qref_asr64(r, 8);
}

void qfp_inv_sqrt(int32_t A, int32_t *m, int *shift)
{
	if (A <= 1) {
		*m = INT32_MAX;
		*shift = 0;
		return;
	}
	int e = 11;
	while (A >= (1 << 29)) {
		A /= 4;
		e++;
	}
	int p = (qfp_clz32(A) - 1) / 2 - 1;
	e -= p;
	A = (int32_t)((uint32_t)A << (2 * p));
	int32_t hf = qref_rdbpot(A >> 1, 1);
	int32_t x = 1 << 28;
	for (int k = 0; k < 5; k++) {
		int32_t x3 = qfp_satshl(qref_srdhm(qref_srdhm(x, x), x), 6);
		x = qfp_satshl(qfp_sub(qref_srdhm(402653184, x), qref_srdhm(hf, x3)), 3);
	}
	x = qref_srdhm(x, 1518500250);
	if (e < 0) {
		x = (int32_t)((uint32_t)x << -e);
		e = 0;
	}
	*m = x;
	*shift = -e;
}
