/* The 16-bit float formats, below every other file of the reference (half.h). */
#include "half.h"

#include <math.h>
#include <string.h>

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
