#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>

/*
 * Well-formed UTF-8 byte sequences (The Unicode Standard, Table 3-7): per lead byte, the
 * number of bytes and the range of the second byte; bytes three and four are 80..BF.
 */
static int lead_info(unsigned char b, size_t *len, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (b < 0x80)
		*len = 1;
	else if (b >= 0xc2 && b <= 0xdf)
		*len = 2;
	else if (b == 0xe0) {
		*len = 3;
		*lo = 0xa0; /* below: overlong */
	} else if (b == 0xed) {
		*len = 3;
		*hi = 0x9f; /* above: surrogates D800..DFFF */
	} else if (b >= 0xe1 && b <= 0xef)
		*len = 3;
	else if (b == 0xf0) {
		*len = 4;
		*lo = 0x90; /* below: overlong */
	} else if (b >= 0xf1 && b <= 0xf3)
		*len = 4;
	else if (b == 0xf4) {
		*len = 4;
		*hi = 0x8f; /* above: beyond U+10FFFF */
	} else
		return 0; /* 80..C1 (continuation, overlong 2-byte leads), F5..FF */
	return 1;
}

size_t qc_utf8_next(const char *s, size_t n, int32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;
	unsigned char lo, hi;
	*cp = -1;
	if (n == 0)
		return 0;
	if (!lead_info(p[0], &len, &lo, &hi))
		return 1;
	if (len == 1) {
		*cp = p[0];
		return 1;
	}
	uint32_t v = p[0] & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
	for (size_t i = 1; i < len; i++) {
		if (i >= n || p[i] < lo || p[i] > hi)
			return i; /* the maximal subpart: the valid prefix so far */
		v = (v << 6) | (p[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = (int32_t)v;
	return len;
}

int qc_utf8_valid(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		int32_t cp;
		i += qc_utf8_next(s + i, n - i, &cp);
		if (cp < 0)
			return 0;
	}
	return 1;
}

int qc_utf8_reportable(int32_t cp)
{
	if (cp < 0)
		return 0;
	if (cp < 0x20)
		return cp == '\t' || cp == '\n' || cp == '\r';
	return cp != 0xfffe && cp != 0xffff;
}

size_t qc_utf8_sanitize(char *dst, size_t dst_size, const char *src, size_t src_len)
{
	size_t total = 0, out = 0;
	int cut = dst_size == 0;
	if (!src)
		src_len = 0;
	for (size_t i = 0; i < src_len;) {
		int32_t cp;
		size_t k = qc_utf8_next(src + i, src_len - i, &cp);
		const char *piece = src + i;
		size_t plen = k;
		if (!qc_utf8_reportable(cp)) {
			piece = QC_UTF8_REPLACEMENT;
			plen = 3;
		}
		if (!cut && out + plen < dst_size) {
			memcpy(dst + out, piece, plen);
			out += plen;
		} else {
			cut = 1; /* nothing after a character that did not fit */
		}
		total += plen;
		i += k;
	}
	if (dst_size)
		dst[out] = '\0';
	return total;
}

char *qc_utf8_sanitize_dup(const char *src, size_t src_len)
{
	size_t n = qc_utf8_sanitize(NULL, 0, src, src_len);
	char *d = malloc(n + 1);
	if (d)
		qc_utf8_sanitize(d, n + 1, src, src_len);
	return d;
}

size_t qc_utf8_copy(char *dst, size_t dst_size, const char *src)
{
	if (!dst_size)
		return 0;
	size_t n = src ? strlen(src) : 0, out = 0;
	while (out < n) {
		int32_t cp;
		size_t k = qc_utf8_next(src + out, n - out, &cp);
		if (out + k >= dst_size)
			break;
		out += k;
	}
	if (out)
		memcpy(dst, src, out);
	dst[out] = '\0';
	return out;
}

size_t qc_utf8_trim_tail(char *s, size_t len)
{
	/* the last lead byte among the last three bytes */
	size_t p = len;
	for (size_t back = 0; back < 3 && p > 0; back++) {
		unsigned char b = (unsigned char)s[p - 1];
		p--;
		if ((b & 0xc0) != 0x80)
			break;
		if (back == 2)
			return len; /* three continuation bytes: no incomplete 4-byte prefix here */
	}
	if (p == len)
		return len;
	size_t need;
	unsigned char lo, hi;
	if (!lead_info((unsigned char)s[p], &need, &lo, &hi) || need == 1)
		return len;
	int32_t cp;
	size_t k = qc_utf8_next(s + p, len - p, &cp);
	if (cp < 0 && k == len - p && len - p < need) {
		s[p] = '\0';
		return p;
	}
	return len;
}
