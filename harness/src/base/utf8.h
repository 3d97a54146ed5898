/*
 * utf8: strings that may hold any byte (a plugin's name, version and last_error(), a Lua
 * string in a case name, a file name) made fit for a report.
 *
 * A report (JSON, HTML, JUnit XML) must be well-formed UTF-8, and XML 1.0 allows neither most
 * C0 controls nor U+FFFE and U+FFFF. These functions never fail and never cut a character:
 *
 *   qc_utf8_valid     is s[0..n) well-formed UTF-8 (the Unicode standard's Table 3-7)?
 *   qc_utf8_next      one character, or one ill-formed subsequence, at a time
 *   qc_utf8_sanitize  any bytes -> a string every report format can hold
 *   qc_utf8_copy      a bounded copy (like snprintf "%s") that cuts on a character boundary
 *   qc_utf8_trim_tail drops a multi-byte character left incomplete by an earlier cut
 *
 * Ill-formed input is replaced the way the Unicode standard (section 3.9, "U+FFFD
 * Substitution of Maximal Subparts") and the WHATWG Encoding standard's UTF-8 decoder do: each
 * maximal subpart of an ill-formed subsequence becomes one U+FFFD. A maximal subpart is the
 * longest prefix of a well-formed sequence that the input holds, or else one byte: "\xe2\x82"
 * followed by "x" is one U+FFFD then "x"; a stray continuation byte, a byte C0, C1, F5..FF, an
 * overlong form ("\xe0\x80\x80": three U+FFFD, since no well-formed sequence starts E0 80), a
 * surrogate ("\xed\xa0\x80": three) and a code point above U+10FFFF ("\xf4\x90\x80\x80": four)
 * each give one U+FFFD per byte; a sequence cut by the end of the input ("\xf0\x9f\x98") gives
 * one.
 *
 * Safe to call from any thread; no allocation except qc_utf8_sanitize_dup. Callers: the
 * report writers (report.c, merge.c, certify.c, results.c), and the runner for the strings a
 * plugin hands over (name, version, last_error()).
 */
#ifndef QC_UTF8_H
#define QC_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define QC_UTF8_REPLACEMENT "\xef\xbf\xbd" /* U+FFFD, 3 bytes */

/* 1 if s[0..n) is well-formed UTF-8 (NUL bytes included, as U+0000), else 0. */
int qc_utf8_valid(const char *s, size_t n);

/*
 * Decodes the character at s[0..n), n >= 1. Returns the number of bytes it takes (1..4) and
 * its code point in *cp; for an ill-formed subsequence, *cp = -1 and the length of its
 * maximal subpart (1..3), the bytes one U+FFFD replaces.
 */
size_t qc_utf8_next(const char *s, size_t n, int32_t *cp);

/* 1 if code point cp may stand in a report as it is: not U+0000..U+001F other than tab,
 * newline and carriage return, not U+FFFE or U+FFFF (XML 1.0's Char), not -1. */
int qc_utf8_reportable(int32_t cp);

/*
 * Writes src[0..src_len) (any bytes, NUL included) to dst as a NUL-terminated string a JSON,
 * HTML or XML writer can hold after its own escaping: every ill-formed subsequence (maximal
 * subpart) and every character qc_utf8_reportable refuses, NUL included, becomes U+FFFD.
 * When the result does not fit in dst_size - 1 bytes it is cut after the last whole character
 * that fits. Returns the length of the whole result (as snprintf does: >= dst_size means it
 * was cut). dst_size 0 writes nothing.
 */
size_t qc_utf8_sanitize(char *dst, size_t dst_size, const char *src, size_t src_len);

/* The same into a malloc'd string (NULL only when out of memory). */
char *qc_utf8_sanitize_dup(const char *src, size_t src_len);

/*
 * Copies the NUL-terminated src into dst (dst_size > 0), as snprintf(dst, dst_size, "%s",
 * src) would, except that a cut never splits a well-formed multi-byte character: the copy
 * ends after the last whole character that fits. Bytes are copied as they are (sanitize
 * first if src may be ill-formed). Returns the number of bytes copied.
 */
size_t qc_utf8_copy(char *dst, size_t dst_size, const char *src);

/*
 * s[0..len) was cut by a byte count (snprintf into a fixed buffer, a fixed-size wire field):
 * if it ends in the first bytes of a multi-byte character that the cut left incomplete, they
 * are removed and s is NUL-terminated there. Returns the new length. Other ill-formed bytes
 * stay (qc_utf8_sanitize replaces them).
 */
size_t qc_utf8_trim_tail(char *s, size_t len);

#endif
