#include "dtype.h"

#include "ggml.h"

#include <math.h>
#include <string.h>

size_t qref_numel(int32_t rank, const int64_t *shape)
{
	size_t n = 1;
	for (int32_t i = 0; i < rank; i++)
		n *= (size_t)shape[i];
	return n;
}

/* the ABI header's names (qcf_dtype_name), under the reference's prefix */
const char *qref_dtype_name(qcf_dtype t)
{
	return qcf_dtype_name(t);
}

qcf_dtype qref_dtype_parse(const char *name)
{
	for (int t = QCF_BOOL; t < QCF_DTYPE_COUNT; t++)
		if (strcmp(qcf_dtype_name((qcf_dtype)t), name) == 0)
			return (qcf_dtype)t;
	for (int t = QCF_GGML_Q4_0; t <= QCF_GGML_Q8_K; t++) /* GGML's block types (ggml.c) */
		if (strcmp(qcf_dtype_name((qcf_dtype)t), name) == 0)
			return (qcf_dtype)t;
	return QCF_DTYPE_INVALID;
}

int qref_dtype_is_float(qcf_dtype t)
{
	return t == QCF_FLOAT16 || t == QCF_BFLOAT16 || t == QCF_FLOAT32 || t == QCF_FLOAT64 ||
	       qref_dtype_is_small_float(t) || t == QCF_FLOAT8E8M0;
}

int qref_dtype_is_int(qcf_dtype t)
{
	return (t >= QCF_BOOL && t <= QCF_INT64) || t == QCF_INT2 || t == QCF_UINT2;
}

int qref_dtype_range(qcf_dtype t, int64_t *min, int64_t *max)
{
	int64_t lo, hi;
	switch (t) {
	case QCF_BOOL: lo = 0, hi = 1; break;
	case QCF_INT2: lo = -2, hi = 1; break;
	case QCF_UINT2: lo = 0, hi = 3; break;
	case QCF_INT4: lo = -8, hi = 7; break;
	case QCF_UINT4: lo = 0, hi = 15; break;
	case QCF_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
	case QCF_UINT8: lo = 0, hi = UINT8_MAX; break;
	case QCF_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
	case QCF_UINT16: lo = 0, hi = UINT16_MAX; break;
	case QCF_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
	case QCF_INT64: lo = INT64_MIN, hi = INT64_MAX; break;
	default: return 0;
	}
	if (min)
		*min = lo;
	if (max)
		*max = hi;
	return 1;
}

/* ---- small floats ---- */

typedef enum { KIND_IEEE, KIND_FN, KIND_FNUZ, KIND_FINITE } small_kind;

typedef struct {
	int ebits, mbits, bias;
	small_kind kind;
} small_format;

static const small_format *small_fmt(qcf_dtype t)
{
	static const small_format e4m3fn = {4, 3, 7, KIND_FN}, e4m3fnuz = {4, 3, 8, KIND_FNUZ},
	                          e5m2 = {5, 2, 15, KIND_IEEE}, e5m2fnuz = {5, 2, 16, KIND_FNUZ},
	                          e2m1 = {2, 1, 1, KIND_FINITE}, e3m2 = {3, 2, 3, KIND_FINITE},
	                          e2m3 = {2, 3, 1, KIND_FINITE};
	switch (t) {
	case QCF_FLOAT8E4M3FN: return &e4m3fn;
	case QCF_FLOAT8E4M3FNUZ: return &e4m3fnuz;
	case QCF_FLOAT8E5M2: return &e5m2;
	case QCF_FLOAT8E5M2FNUZ: return &e5m2fnuz;
	case QCF_FLOAT4E2M1: return &e2m1;
	case QCF_FLOAT6E3M2: return &e3m2;
	case QCF_FLOAT6E2M3: return &e2m3;
	default: return NULL;
	}
}

int qref_dtype_is_small_float(qcf_dtype t)
{
	return small_fmt(t) != NULL;
}

/* the largest finite code's exponent field and mantissa */
static void small_max_fields(const small_format *f, unsigned *e, unsigned *m)
{
	unsigned etop = (1u << f->ebits) - 1, mtop = (1u << f->mbits) - 1;
	switch (f->kind) {
	case KIND_IEEE: *e = etop - 1, *m = mtop; break; /* the top exponent is inf/NaN */
	case KIND_FN: *e = etop, *m = mtop - 1; break;   /* S.1111.111 is NaN */
	default: *e = etop, *m = mtop; break;            /* fnuz (NaN is 0x80) and finite types */
	}
}

static double small_value(const small_format *f, unsigned e, unsigned m)
{
	if (e == 0)
		return ldexp((double)m, 1 - f->bias - f->mbits);
	return ldexp((double)((1u << f->mbits) + m), (int)e - f->bias - f->mbits);
}

double qref_small_max(qcf_dtype t)
{
	const small_format *f = small_fmt(t);
	unsigned e, m;
	if (!f)
		return 0;
	small_max_fields(f, &e, &m);
	return small_value(f, e, m);
}

float qref_small_to_f32(qcf_dtype t, uint8_t c)
{
	const small_format *f = small_fmt(t);
	if (!f)
		return NAN;
	unsigned width = 1u + (unsigned)f->ebits + (unsigned)f->mbits;
	c &= (uint8_t)((1u << width) - 1);
	unsigned sign = c >> (width - 1), e = (c >> f->mbits) & ((1u << f->ebits) - 1),
	         m = c & ((1u << f->mbits) - 1), etop = (1u << f->ebits) - 1;
	if (f->kind == KIND_FNUZ && c == 0x80)
		return NAN;
	if (f->kind == KIND_FN && e == etop && m == (1u << f->mbits) - 1)
		return NAN;
	if (f->kind == KIND_IEEE && e == etop)
		return m ? NAN : sign ? -INFINITY : INFINITY;
	double v = small_value(f, e, m);
	return (float)(sign ? -v : v);
}

uint8_t qref_small_from(qcf_dtype t, double x, int saturate)
{
	const small_format *f = small_fmt(t);
	if (!f)
		return 0;
	unsigned width = 1u + (unsigned)f->ebits + (unsigned)f->mbits, etop = (1u << f->ebits) - 1;
	uint8_t sign = signbit(x) ? (uint8_t)(1u << (width - 1)) : 0;
	unsigned emax, mmax;
	small_max_fields(f, &emax, &mmax);
	uint8_t maxcode = (uint8_t)(emax << f->mbits | mmax);
	uint8_t nan = f->kind == KIND_FNUZ     ? 0x80
	              : f->kind == KIND_FINITE ? maxcode /* +max, whatever the sign */
	                                       : (uint8_t)(sign | 0x7f);
	if (isnan(x))
		return nan;
	/* beyond the range: an infinity, or a value that rounds past the largest */
	uint8_t over = saturate || f->kind == KIND_FINITE ? (uint8_t)(sign | maxcode)
	               : f->kind == KIND_IEEE             ? (uint8_t)(sign | etop << f->mbits)
	                                                  : nan;
	if (isinf(x))
		return over;
	double a = fabs(x);
	/* the grid's step at a: 2^(exponent - mbits), never below the subnormals' */
	int k;
	frexp(a, &k);
	int ex = k - 1 < 1 - f->bias ? 1 - f->bias : k - 1;
	double n = nearbyint(ldexp(a, f->mbits - ex)); /* exact scaling; ties to even */
	double r = ldexp(n, ex - f->mbits);
	if (r > small_value(f, emax, mmax))
		return over;
	if (r == 0)
		return f->kind == KIND_FNUZ ? 0 : sign;
	unsigned e, m;
	if (r < ldexp(1, 1 - f->bias)) {
		e = 0, m = (unsigned)n;
	} else {
		frexp(r, &k);
		e = (unsigned)(k - 1 + f->bias);
		m = (unsigned)ldexp(r, f->mbits - (k - 1)) - (1u << f->mbits);
	}
	return (uint8_t)(sign | e << f->mbits | m);
}

float qref_e8m0_to_f32(uint8_t c)
{
	return c == 0xff ? NAN : ldexpf(1.0f, (int)c - 127);
}

uint8_t qref_e8m0_from(double x, int saturate, qref_e8m0_round mode)
{
	if (isnan(x))
		return 0xff;
	if (x <= 0 || isinf(x)) /* zero, negative, infinite: out of range */
		return !saturate ? 0xff : x > 0 ? 0xfe : 0x00;
	int tie_up = mode != QREF_E8M0_DOWN;
	if (x < 0x1p-126) /* a float32 subnormal: 2^-127 or 2^-126, or out of range */
		return !saturate ? 0xff : (tie_up ? x >= 0x1.8p-127 : x > 0x1.8p-127) ? 0x01 : 0x00;
	int k;
	double f = frexp(x, &k); /* x = f * 2^k, f in [0.5, 1): between 2^(k-1) and 2^k */
	int e = (k - 1) + (tie_up ? f >= 0.75 : f > 0.75) + 127;
	if (e > 254)
		return saturate ? 0xfe : 0xff;
	return (uint8_t)e;
}

int64_t qref_get_int(const qcf_tensor *t, size_t i)
{
	const void *d = t->data;
	switch (t->dtype) {
	case QCF_BOOL: return ((const uint8_t *)d)[i] != 0;
	case QCF_INT2:
	case QCF_UINT2: {
		int v = (((const uint8_t *)d)[i / 4] >> (2 * (i % 4))) & 3;
		return t->dtype == QCF_INT2 && v >= 2 ? v - 4 : v;
	}
	case QCF_INT4: {
		uint8_t b = ((const uint8_t *)d)[i / 2];
		int v = (i & 1) ? (b >> 4) : (b & 0xf);
		return v >= 8 ? v - 16 : v;
	}
	case QCF_UINT4: {
		uint8_t b = ((const uint8_t *)d)[i / 2];
		return (i & 1) ? (b >> 4) : (b & 0xf);
	}
	case QCF_INT8: return ((const int8_t *)d)[i];
	case QCF_UINT8: return ((const uint8_t *)d)[i];
	case QCF_INT16: return ((const int16_t *)d)[i];
	case QCF_UINT16: return ((const uint16_t *)d)[i];
	case QCF_INT32: return ((const int32_t *)d)[i];
	case QCF_INT64: return ((const int64_t *)d)[i];
	default: return 0;
	}
}

double qref_get(const qcf_tensor *t, size_t i)
{
	const void *d = t->data;
	switch (t->dtype) {
	case QCF_FLOAT16: return qref_f16_to_f32(((const uint16_t *)d)[i]);
	case QCF_BFLOAT16: return qref_bf16_to_f32(((const uint16_t *)d)[i]);
	case QCF_FLOAT32: return ((const float *)d)[i];
	case QCF_FLOAT64: return ((const double *)d)[i];
	case QCF_FLOAT4E2M1: {
		uint8_t b = ((const uint8_t *)d)[i / 2];
		return qref_small_to_f32(t->dtype,
		                         (i & 1) ? (uint8_t)(b >> 4) : (uint8_t)(b & 0xf));
	}
	case QCF_FLOAT8E8M0: return qref_e8m0_to_f32(((const uint8_t *)d)[i]);
	default:
		if (small_fmt(t->dtype))
			return qref_small_to_f32(t->dtype, ((const uint8_t *)d)[i]);
		if (qref_ggml_is_block(t->dtype)) /* the element's dequantized value */
			return qref_ggml_get(t, i);
		return (double)qref_get_int(t, i);
	}
}

/* Element i of a packed 4-bit tensor: 2i in the low nibble, 2i + 1 in the high one. */
static void set_nibble(void *d, size_t i, uint8_t nib)
{
	uint8_t *b = (uint8_t *)d + i / 2;
	*b = (i & 1) ? (uint8_t)((*b & 0x0f) | (nib << 4)) : (uint8_t)((*b & 0xf0) | nib);
}

void qref_set(qcf_tensor *t, size_t i, double v)
{
	void *d = t->data;
	switch (t->dtype) {
	case QCF_BOOL: ((uint8_t *)d)[i] = v != 0; break;
	case QCF_INT4:
	case QCF_UINT4: set_nibble(d, i, (uint8_t)((int64_t)v & 0xf)); break;
	case QCF_INT2:
	case QCF_UINT2: {
		uint8_t *b = (uint8_t *)d + i / 4;
		unsigned sh = 2 * (unsigned)(i % 4);
		*b = (uint8_t)((*b & ~(3u << sh)) | (((unsigned)(int64_t)v & 3u) << sh));
		break;
	}
	case QCF_FLOAT4E2M1: set_nibble(d, i, qref_small_from(t->dtype, v, 0)); break;
	case QCF_FLOAT8E4M3FN:
	case QCF_FLOAT8E4M3FNUZ:
	case QCF_FLOAT8E5M2:
	case QCF_FLOAT8E5M2FNUZ:
	case QCF_FLOAT6E3M2:
	case QCF_FLOAT6E2M3: ((uint8_t *)d)[i] = qref_small_from(t->dtype, v, 0); break;
	case QCF_FLOAT8E8M0: ((uint8_t *)d)[i] = qref_e8m0_from(v, 1, QREF_E8M0_UP); break;
	case QCF_INT8: ((int8_t *)d)[i] = (int8_t)v; break;
	case QCF_UINT8: ((uint8_t *)d)[i] = (uint8_t)v; break;
	case QCF_INT16: ((int16_t *)d)[i] = (int16_t)v; break;
	case QCF_UINT16: ((uint16_t *)d)[i] = (uint16_t)v; break;
	case QCF_INT32: ((int32_t *)d)[i] = (int32_t)v; break;
	case QCF_INT64: ((int64_t *)d)[i] = (int64_t)v; break;
	case QCF_FLOAT16: ((uint16_t *)d)[i] = qref_f32_to_f16((float)v); break;
	case QCF_BFLOAT16: ((uint16_t *)d)[i] = qref_f32_to_bf16((float)v); break;
	case QCF_FLOAT32: ((float *)d)[i] = (float)v; break;
	case QCF_FLOAT64: ((double *)d)[i] = v; break;
	default: break;
	}
}

int32_t qref_channel(const qcf_tensor *t, const qcf_quant *q, size_t i)
{
	if (!q || q->axis < 0 || q->axis >= t->rank)
		return 0;
	size_t inner = 1;
	for (int32_t k = q->axis + 1; k < t->rank; k++)
		inner *= (size_t)t->shape[k];
	return (int32_t)((i / inner) % (size_t)t->shape[q->axis]);
}
