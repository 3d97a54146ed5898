/* poison: see poison.h. */
#include "run/poison.h"

#include <math.h>
#include <string.h>

#include "reference/dtype.h"

/* Bits per element: 2 (int2, uint2), 4 (int4, uint4, float4e2m1), 8, 16, 32 or 64; 0 for
 * a GGML block type (its bytes are poisoned as a whole). */
static unsigned elem_bits(qcf_dtype t)
{
	if (t == QCF_INT2 || t == QCF_UINT2)
		return 2;
	if (qcf_ggml_block_elements(t))
		return 0;
	return (unsigned)qcf_dtype_nbytes(t, 2) * 4; /* two elements' bytes */
}

/* Element i's bits (sign-extension does not matter here: bits are compared, not values). */
static uint64_t get_bits(const qcf_tensor *t, size_t i)
{
	const unsigned char *p = t->data;
	switch (elem_bits(t->dtype)) {
	case 2: return (p[i / 4] >> (2 * (i % 4))) & 0x3;
	case 4: return (p[i / 2] >> (4 * (i % 2))) & 0xf;
	case 8: return p[i];
	case 16: {
		uint16_t v;
		memcpy(&v, p + 2 * i, 2);
		return v;
	}
	case 32: {
		uint32_t v;
		memcpy(&v, p + 4 * i, 4);
		return v;
	}
	case 64: {
		uint64_t v;
		memcpy(&v, p + 8 * i, 8);
		return v;
	}
	default: return 0;
	}
}

static void set_bits(const qcf_tensor *t, size_t i, uint64_t v)
{
	unsigned char *p = t->data;
	switch (elem_bits(t->dtype)) {
	case 2: {
		int sh = 2 * (int)(i % 4);
		p[i / 4] = (unsigned char)((p[i / 4] & ~(0x3 << sh)) | ((v & 0x3) << sh));
		break;
	}
	case 4: {
		int sh = 4 * (int)(i % 2);
		p[i / 2] = (unsigned char)((p[i / 2] & ~(0xf << sh)) | ((v & 0xf) << sh));
		break;
	}
	case 8: p[i] = (unsigned char)v; break;
	case 16: {
		uint16_t w = (uint16_t)v;
		memcpy(p + 2 * i, &w, 2);
		break;
	}
	case 32: {
		uint32_t w = (uint32_t)v;
		memcpy(p + 4 * i, &w, 4);
		break;
	}
	case 64: memcpy(p + 8 * i, &v, 8); break;
	default: break;
	}
}

static int is_nan_bits(qcf_dtype t, uint64_t b)
{
	switch (t) {
	case QCF_FLOAT16: return (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
	case QCF_BFLOAT16: return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
	case QCF_FLOAT32: return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu);
	case QCF_FLOAT64:
		return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
		       (b & 0xfffffffffffffull);
	case QCF_FLOAT8E4M3FN:
	case QCF_FLOAT8E4M3FNUZ:
	case QCF_FLOAT8E5M2:
	case QCF_FLOAT8E5M2FNUZ: return isnan(qref_small_to_f32(t, (uint8_t)b));
	case QCF_FLOAT8E8M0: return b == 0xff;
	default: return 0;
	}
}

/* The poison of element i whose answer has bits e (have_e: an answer is known). */
static uint64_t poison_of(qcf_dtype t, size_t i, int have_e, uint64_t e)
{
	uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	switch (t) {
	case QCF_BOOL: return 0xa5; /* not a bool at all (the ABI's are 0 and 1) */
	case QCF_INT2:
	case QCF_UINT2: return have_e ? e ^ 0x2 : (h >> 7) & 0x3;
	case QCF_INT4:
	case QCF_UINT4: return have_e ? e ^ 0x8 : (h >> 7) & 0xf;
	/* float8: NaN, or where the answer is NaN, the largest finite value; float4/6 have no NaN:
	 * the answer with its top exponent bit flipped (another value) */
	case QCF_FLOAT8E4M3FN: return have_e && is_nan_bits(t, e) ? 0x7e : 0x7f;
	case QCF_FLOAT8E4M3FNUZ:
	case QCF_FLOAT8E5M2FNUZ: return have_e && is_nan_bits(t, e) ? 0x7f : 0x80;
	case QCF_FLOAT8E5M2: return have_e && is_nan_bits(t, e) ? 0x7b : 0x7e;
	case QCF_FLOAT8E8M0: return have_e && is_nan_bits(t, e) ? 0xfe : 0xff;
	case QCF_FLOAT4E2M1: return have_e ? e ^ 0x4 : (h >> 7) & 0xf;
	case QCF_FLOAT6E3M2: return have_e ? e ^ 0x10 : (h >> 7) & 0x3f;
	case QCF_FLOAT6E2M3: return have_e ? e ^ 0x10 : (h >> 7) & 0x3f;
	case QCF_INT8:
	case QCF_UINT8: return have_e ? e ^ 0x80 : (h >> 11) & 0xff;
	case QCF_INT16:
	case QCF_UINT16: return have_e ? e ^ 0x8000 : (h >> 13) & 0xffff;
	case QCF_INT32: return have_e ? e ^ 0x40000000u : (h >> 17) & 0xffffffffu;
	case QCF_INT64: return have_e ? e ^ 0x4000000000000000ull : h;
	/* quiet NaNs whose payload counts the element; where the answer is NaN, the largest
	 * finite value */
	case QCF_FLOAT16: return have_e && is_nan_bits(t, e) ? 0x7bff : 0x7e00 | (i & 0x1ff);
	case QCF_BFLOAT16: return have_e && is_nan_bits(t, e) ? 0x7f7f : 0x7fc0 | (i & 0x3f);
	case QCF_FLOAT32:
		return have_e && is_nan_bits(t, e) ? 0x7f7fffffu : 0x7fc00000u | (i & 0x3fffff);
	case QCF_FLOAT64:
		return have_e && is_nan_bits(t, e) ? 0x7fefffffffffffffull
		                                   : 0x7ff8000000000000ull | (i & 0xffffffffffull);
	default: return 0;
	}
}

static size_t numel(const qcf_tensor *t)
{
	size_t n = qref_numel(t->rank, t->shape);
	size_t cap = qcf_dtype_nbytes(t->dtype, n) <= t->nbytes ? n : 0;
	return t->data ? cap : 0;
}

void qc_poison_fill(const qcf_tensor *out, const qcf_tensor *expected)
{
	size_t n = numel(out);
	int have =
	        expected && expected->data && expected->dtype == out->dtype && numel(expected) == n;
	if (out->data && out->nbytes)
		memset(out->data, 0xa5, out->nbytes); /* the padding nibble of an odd int4 count */
	for (size_t i = 0; i < n; i++)
		set_bits(out, i, poison_of(out->dtype, i, have, have ? get_bits(expected, i) : 0));
}

size_t qc_poison_left(const qcf_tensor *poison, const qcf_tensor *got, const qcf_tensor *expected,
                      const uint8_t *any, size_t *first)
{
	size_t n = numel(poison), left = 0;
	if (!got || !got->data || numel(got) != n || got->dtype != poison->dtype)
		return 0;
	int have = expected && expected->data && expected->dtype == poison->dtype &&
	           numel(expected) == n;
	for (size_t i = 0; i < n; i++) {
		uint64_t p = get_bits(poison, i);
		if (get_bits(got, i) != p || (have && get_bits(expected, i) == p) ||
		    (any && any[i]))
			continue;
		if (!left++)
			*first = i;
	}
	return left;
}
