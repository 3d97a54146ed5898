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
	for (int t = QCF_BOOL; t <= QCF_FLOAT64; t++)
		if (strcmp(qcf_dtype_name((qcf_dtype)t), name) == 0)
			return (qcf_dtype)t;
	for (int t = QCF_GGML_Q4_0; t <= QCF_GGML_Q8_K; t++) /* GGML's block types (ggml.c) */
		if (strcmp(qcf_dtype_name((qcf_dtype)t), name) == 0)
			return (qcf_dtype)t;
	return QCF_DTYPE_INVALID;
}

int qref_dtype_is_float(qcf_dtype t)
{
	return t == QCF_FLOAT16 || t == QCF_BFLOAT16 || t == QCF_FLOAT32 || t == QCF_FLOAT64;
}

int qref_dtype_is_int(qcf_dtype t)
{
	return t >= QCF_BOOL && t <= QCF_INT64;
}

int qref_dtype_range(qcf_dtype t, int64_t *min, int64_t *max)
{
	int64_t lo, hi;
	switch (t) {
	case QCF_BOOL: lo = 0, hi = 1; break;
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

float qref_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	uint32_t bits;
	if (exp == 0x1f) {
		bits = sign | 0x7f800000u | (man << 13);
	} else if (exp != 0) {
		bits = sign | ((exp + 112) << 23) | (man << 13);
	} else {
		/* zero or subnormal: man * 2^-24, exact in float */
		float f = (float)man * 0x1p-24f;
		memcpy(&bits, &f, 4);
		bits |= sign;
	}
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

uint16_t qref_f32_to_f16(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, 4);
	uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
	float a = fabsf(f);
	if (isnan(f))
		return (uint16_t)(sign | 0x7e00);
	if (a >= 65520.0f) /* rounds to infinity */
		return (uint16_t)(sign | 0x7c00);
	if (a < 0x1p-14f) {
		/* subnormal: multiple of 2^-24, nearbyint rounds ties to even */
		return (uint16_t)(sign | (uint16_t)nearbyintf(a * 0x1p24f));
	}
	uint32_t abits = bits & 0x7fffffffu;
	/* round the 13 dropped bits to nearest even */
	uint32_t lsb = (abits >> 13) & 1u;
	abits += 0xfffu + lsb;
	uint32_t exp = (abits >> 23) - 112, man = (abits >> 13) & 0x3ff;
	return (uint16_t)(sign | (exp << 10) | man);
}

float qref_bf16_to_f32(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

uint16_t qref_f32_to_bf16(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, 4);
	if (isnan(f))
		return (uint16_t)((bits >> 16) | 0x40);
	uint32_t lsb = (bits >> 16) & 1u;
	bits += 0x7fffu + lsb;
	return (uint16_t)(bits >> 16);
}

static int64_t get_int(const qcf_tensor *t, size_t i)
{
	const void *d = t->data;
	switch (t->dtype) {
	case QCF_BOOL: return ((const uint8_t *)d)[i] != 0;
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
	default:
		if (qref_ggml_is_block(t->dtype)) /* the element's dequantized value */
			return qref_ggml_get(t, i);
		return (double)get_int(t, i);
	}
}

void qref_set(qcf_tensor *t, size_t i, double v)
{
	void *d = t->data;
	switch (t->dtype) {
	case QCF_BOOL: ((uint8_t *)d)[i] = v != 0; break;
	case QCF_INT4:
	case QCF_UINT4: {
		uint8_t *b = (uint8_t *)d + i / 2;
		uint8_t nib = (uint8_t)((int64_t)v & 0xf);
		*b = (i & 1) ? (uint8_t)((*b & 0x0f) | (nib << 4)) : (uint8_t)((*b & 0xf0) | nib);
		break;
	}
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
