/*
 * Strings that are not UTF-8 (harness/src/base/utf8.c): the sanitizer on a table of ill-formed
 * inputs (each maximal subpart one U+FFFD, as the Unicode standard's section 3.9 and WHATWG
 * decode), against Python's own UTF-8 decoder on random bytes, the bounded copy at every cut,
 * the JSON writer read back by jansson; then end to end, a plugin and a spec whose strings are
 * not UTF-8 still give a valid JSON report, an HTML page and a well-formed JUnit file.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/utf8.h"
#include "qct.h"
#include "report/report.h"

#define R "\xef\xbf\xbd" /* U+FFFD */

typedef struct sample {
	const char *what;
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *out;
} sample;

static const sample samples[] = {
        {"empty", "", 0, ""},
        {"ascii", "abc", 0, "abc"},
        {"2, 3 and 4 bytes", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 0,
         "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},
        {"first and last of each length",
         "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbd\xf0\x90\x80\x80", 0,
         "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbd\xf0\x90\x80\x80"},
        {"U+10FFFF", "\xf4\x8f\xbf\xbf", 0, "\xf4\x8f\xbf\xbf"},
        {"U+D7FF and U+E000 around the surrogates", "\xed\x9f\xbf\xee\x80\x80", 0,
         "\xed\x9f\xbf\xee\x80\x80"},
        {"U+FDD0 (a noncharacter XML allows)", "\xef\xb7\x90", 0, "\xef\xb7\x90"},
        {"stray continuation bytes",
         "a\x80\xbf"
         "b",
         0, "a" R R "b"},
        {"lone 0xff and 0xfe", "\xff\xfe", 0, R R},
        {"leads C0 and C1 (always overlong)", "\xc0\xaf\xc1\xbf", 0, R R R R},
        {"leads F5..F7 (above U+10FFFF)", "\xf5\x80\x80\x80\xf7\xbf", 0, R R R R R R},
        {"overlong 3 bytes", "\xe0\x80\xaf\xe0\x9f\xbf", 0, R R R R R R},
        {"overlong 4 bytes", "\xf0\x80\x80\xaf\xf0\x8f\xbf\xbf", 0, R R R R R R R R},
        {"surrogates U+D800 and U+DFFF", "\xed\xa0\x80\xed\xbf\xbf", 0, R R R R R R},
        {"surrogate pair as CESU-8", "\xed\xa0\xbd\xed\xb8\x80", 0, R R R R R R},
        {"U+110000", "\xf4\x90\x80\x80", 0, R R R R},
        {"2-byte cut by the end", "ab\xc3", 0, "ab" R},
        {"3-byte cut by the end", "ab\xe2\x82", 0, "ab" R},
        {"4-byte cut by the end, 1..3 bytes", "\xf0|\xf0\x9f|\xf0\x9f\x98", 0, R "|" R "|" R},
        {"cut by the next character", "\xe2\x82x\xf0\x9f\x98\x41\xc3\xc3\xa9", 0,
         R "x" R "A" R "\xc3\xa9"},
        {"Unicode Table 3-8", "\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64", 0,
         "a" R R R "b" R "c" R R "d"},
        {"NUL inside", "a\0b", 3, "a" R "b"},
        {"C0 controls but tab, newline, return", "\x01\x1b[m\x1f\t\n\r\x7f", 0,
         R R "[m" R "\t\n\r\x7f"},
        {"U+FFFE and U+FFFF (not XML characters)", "\xef\xbf\xbe\xef\xbf\xbf", 0, R R},
        {"a valid character right after a bad byte", "\xff\xf0\x9f\x98\x80", 0,
         R "\xf0\x9f\x98\x80"},
};

static size_t len_of(const sample *s)
{
	return s->len ? s->len : strlen(s->in);
}

static void test_table(void)
{
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		const sample *s = &samples[i];
		char out[256];
		size_t n = qc_utf8_sanitize(out, sizeof out, s->in, len_of(s));
		if (strcmp(out, s->out) != 0)
			fprintf(stderr, "\n  %s: got the wrong result", s->what);
		CU_ASSERT_STRING_EQUAL(out, s->out);
		CU_ASSERT_EQUAL(n, strlen(s->out));
		CU_ASSERT(qc_utf8_valid(out, strlen(out)));
		/* well-formed input (NUL-free, reportable) comes back unchanged, and only then */
		int same = len_of(s) == strlen(s->out) && !memcmp(s->in, s->out, len_of(s));
		int valid = qc_utf8_valid(s->in, len_of(s));
		CU_ASSERT(!same || valid);
		char *dup = qc_utf8_sanitize_dup(s->in, len_of(s));
		CU_ASSERT_PTR_NOT_NULL_FATAL(dup);
		CU_ASSERT_STRING_EQUAL(dup, s->out);
		free(dup);
	}
	/* valid or not, class by class */
	CU_ASSERT(qc_utf8_valid("\xf4\x8f\xbf\xbf", 4));
	CU_ASSERT(qc_utf8_valid("a\0b", 3)); /* NUL is a character; sanitize still replaces it */
	CU_ASSERT(!qc_utf8_valid("\xed\xa0\x80", 3));
	CU_ASSERT(!qc_utf8_valid("\xc0\x80", 2));
	CU_ASSERT(!qc_utf8_valid("\xe0\x80\x80", 3));
	CU_ASSERT(!qc_utf8_valid("\xf4\x90\x80\x80", 4));
	CU_ASSERT(!qc_utf8_valid("\xf0\x9f\x98", 3));
	CU_ASSERT(!qc_utf8_valid("\x80", 1));
}

static void test_next(void)
{
	static const struct {
		const char *in;
		size_t len;
		int32_t cp;
	} t[] = {
	        {"A", 1, 'A'},
	        {"\xc3\xa9", 2, 0xe9},
	        {"\xe2\x82\xac", 3, 0x20ac},
	        {"\xf0\x9f\x98\x80", 4, 0x1f600},
	        {"\xf4\x8f\xbf\xbf", 4, 0x10ffff},
	        {"\xf0\x9f\x98", 3, -1}, /* maximal subpart: all three */
	        {"\xf0\x9f\x41", 2, -1},
	        {"\xe0\x80", 1, -1}, /* E0 80 starts no well-formed sequence */
	        {"\xed\xa0", 1, -1},
	        {"\xf4\x90", 1, -1},
	        {"\xc1", 1, -1},
	        {"\xbf", 1, -1},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int32_t cp = 0;
		size_t n = qc_utf8_next(t[i].in, strlen(t[i].in), &cp);
		CU_ASSERT_EQUAL(n, t[i].len);
		CU_ASSERT_EQUAL(cp, t[i].cp);
	}
}

/* A result that does not fit is cut after a whole character, never inside one; the return
 * value is the whole length, as snprintf's. */
static void test_cuts(void)
{
	const char *s = "ab\xf0\x9f\x98\x80"
	                "c"; /* 7 bytes */
	static const char *const want[] = {"",
	                                   "",
	                                   "a",
	                                   "ab",
	                                   "ab",
	                                   "ab",
	                                   "ab",
	                                   "ab\xf0\x9f\x98\x80",
	                                   "ab\xf0\x9f\x98\x80"
	                                   "c"};
	for (size_t size = 1; size <= 8; size++) {
		char out[16];
		memset(out, 'x', sizeof out);
		size_t n = qc_utf8_sanitize(out, size, s, strlen(s));
		CU_ASSERT_EQUAL(n, 7);
		CU_ASSERT_STRING_EQUAL(out, want[size]);
		memset(out, 'x', sizeof out);
		size_t k = qc_utf8_copy(out, size, s);
		CU_ASSERT_STRING_EQUAL(out, want[size]);
		CU_ASSERT_EQUAL(k, strlen(want[size]));
	}
	/* a replacement needs three bytes; nothing after a character that did not fit */
	char out[8];
	CU_ASSERT_EQUAL(qc_utf8_sanitize(out, 4, "a\xff", 2), 4);
	CU_ASSERT_STRING_EQUAL(out, "a");
	CU_ASSERT_EQUAL(qc_utf8_sanitize(out, 5, "a\xff", 2), 4);
	CU_ASSERT_STRING_EQUAL(out, "a" R);
	qc_utf8_sanitize(out, 4,
	                 "\xf0\x9f\x98\x80"
	                 "a",
	                 5);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_EQUAL(qc_utf8_sanitize(NULL, 0, "\xff\xff", 2), 6);
	/* 2-byte characters at the cut; ill-formed bytes are copied as they are */
	qc_utf8_copy(out, 4, "\xc3\xa9\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(out, "\xc3\xa9");
	qc_utf8_copy(out, 2, "\xff\xff");
	CU_ASSERT_STRING_EQUAL(out, "\xff");

	/* trim_tail: only an incomplete, so far well-formed, multi-byte character goes */
	static const struct {
		const char *in, *out;
	} tails[] = {
	        {"ab\xf0\x9f\x98", "ab"},
	        {"ab\xf0\x9f", "ab"},
	        {"ab\xf0", "ab"},
	        {"ab\xc3", "ab"},
	        {"ab\xe2\x82", "ab"},
	        {"\xf4\x8f\xbf", ""},
	        {"ab\xf0\x9f\x98\x80", "ab\xf0\x9f\x98\x80"},
	        {"ab\xff", "ab\xff"},
	        {"ab\x80\x80\x80", "ab\x80\x80\x80"},
	        {"ab\xe0\x80", "ab\xe0\x80"},
	        {"ab\xed\xa0", "ab\xed\xa0"},
	        {"", ""},
	};
	for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		char buf[16];
		snprintf(buf, sizeof buf, "%s", tails[i].in);
		size_t n = qc_utf8_trim_tail(buf, strlen(buf));
		CU_ASSERT_STRING_EQUAL(buf, tails[i].out);
		CU_ASSERT_EQUAL(n, strlen(tails[i].out));
	}
}

/* Deterministic random bytes, biased towards the bytes where UTF-8 goes wrong. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rng_state >> 33) % n);
}

static void random_bytes(unsigned char *b, size_t n)
{
	static const unsigned char pick[] = {0x00, 0x01, 0x09, 0x0a, 0x1b, 0x22, 0x41, 0x5c,
	                                     0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0,
	                                     0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef,
	                                     0xf0, 0xf1, 0xf4, 0xf5, 0xfe, 0xff, 0xbe, 0xbd};
	for (size_t i = 0; i < n; i++)
		b[i] = rnd(3) ? pick[rnd(sizeof pick)] : (unsigned char)rnd(256);
}

/* Python's decoder (errors="replace") also substitutes maximal subparts: an independent
 * implementation of the same rule, on 3000 random byte strings. */
static void test_against_python(void)
{
	const char *tmp = qct_tmpdir();
	char in_path[600], script[600];
	snprintf(in_path, sizeof in_path, "%s/in.hex", tmp);
	snprintf(script, sizeof script, "%s/ref.py", tmp);
	FILE *f = fopen(in_path, "w"), *py = fopen(script, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(py);
	fputs("import sys\n"
	      "def ok(c):\n"
	      "    o = ord(c)\n"
	      "    return (o >= 0x20 or c in '\\t\\n\\r') and o not in (0xfffe, 0xffff)\n"
	      "for line in open(sys.argv[1]):\n"
	      "    s = bytes.fromhex(line.strip()).decode('utf-8', 'replace')\n"
	      "    s = ''.join(c if ok(c) else '\\ufffd' for c in s)\n"
	      "    print(s.encode('utf-8').hex())\n",
	      py);
	fclose(py);
	enum { N = 3000 };
	char **ours = calloc(N, sizeof *ours);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ours);
	for (int i = 0; i < N; i++) {
		unsigned char b[24];
		size_t n = rnd(sizeof b + 1);
		random_bytes(b, n);
		for (size_t k = 0; k < n; k++)
			fprintf(f, "%02x", b[k]);
		fputc('\n', f);
		ours[i] = qc_utf8_sanitize_dup((const char *)b, n);
	}
	fclose(f);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "python3 '%s' '%s'", script, in_path), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	char *line = p.out;
	int differ = 0;
	for (int i = 0; i < N && line; i++) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		char hex[256] = "";
		for (size_t k = 0; ours[i][k] && 2 * k + 3 < sizeof hex; k++)
			snprintf(hex + 2 * k, 3, "%02x", (unsigned char)ours[i][k]);
		if (strcmp(hex, line) != 0 && differ++ < 3)
			fprintf(stderr, "\n  string %d: ours %s, python %s", i, hex, line);
		line = nl ? nl + 1 : NULL;
		CU_ASSERT(qc_utf8_valid(ours[i], strlen(ours[i])));
	}
	CU_ASSERT_EQUAL(differ, 0);
	for (int i = 0; i < N; i++)
		free(ours[i]);
	free(ours);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* The JSON writer's string, read back by jansson: always valid, and the sanitized text. */
static void test_json_writer(void)
{
	for (int i = 0; i < 2000; i++) {
		unsigned char b[32];
		size_t n = rnd(sizeof b);
		random_bytes(b, n);
		for (size_t k = 0; k < n; k++)
			if (!b[k])
				b[k] = 0xff; /* a C string: no NUL */
		b[n] = 0;
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		qc_json_string(m, (const char *)b);
		fclose(m);
		json_error_t e;
		json_t *v = json_loadb(text, len, JSON_DECODE_ANY, &e);
		if (!v)
			fprintf(stderr, "\n  jansson refused %s: %s", text, e.text);
		CU_ASSERT_PTR_NOT_NULL(v);
		if (v) {
			/* the same characters as the sanitizer's, controls kept (escaped) */
			const char *got = json_string_value(v);
			size_t gi = 0, bi = 0;
			int same = 1;
			while (bi < n && same) {
				int32_t cp;
				size_t k = qc_utf8_next((const char *)b + bi, n - bi, &cp);
				if (cp < 0)
					same = !strncmp(got + gi, R, 3), gi += 3;
				else
					same = !memcmp(got + gi, b + bi, k), gi += k;
				bi += k;
			}
			CU_ASSERT(same && got[gi] == 0);
			json_decref(v);
		}
		free(text);
	}
}

/* ---- end to end ---- */

static int is_valid_utf8_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	static char buf[1 << 22];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	return n > 0 && qc_utf8_valid(buf, n) && !memchr(buf, 0, n);
}

static int xmllint_ok(const char *path)
{
	qct_proc p;
	if (qct_sh(&p, "xmllint --noout '%s'", path) != 0)
		return 0;
	int ok = p.status == 0;
	if (!ok)
		fprintf(stderr, "\n  xmllint %s: %s", path, p.err);
	qct_proc_free(&p);
	return ok;
}

static json_t *case_named(json_t *r, const char *name)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		if (!strcmp(qct_str(c, "name"), name))
			return c;
	}
	return NULL;
}

/* The bad_utf8 stub (name, version, last_error not UTF-8, cut mid-character by the host) on
 * specs whose case names and a custom check's message are Lua strings with byte 0xff. */
static void test_run_with_bad_strings(void)
{
	const char *tmp = qct_tmpdir();
	char json[600], html[600], xml[600];
	snprintf(json, sizeof json, "%s/report.json", tmp);
	snprintf(html, sizeof html, "%s/report.html", tmp);
	snprintf(xml, sizeof xml, "%s/report.junit.xml", tmp);
	int st;
	json_t *r =
	        qct_run_report(tmp, &st, NULL, "suite/specs/utf8 --plugin %s --html %s --junit %s",
	                       qct_stub("bad_utf8"), html, xml);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r); /* jansson read it; qct_run_report checked the schema */
	CU_ASSERT_EQUAL(st, 1);          /* 4 FAIL, 1 ERROR: the verdicts, not exit 2 */
	json_t *v = json_object_get(json_object_get(r, "summary"), "verdicts");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "FAIL")), 4);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "ERROR")), 1);

	json_t *plugin = json_object_get(json_object_get(r, "run"), "plugin");
	const char *name = qct_str(plugin, "name"), *version = qct_str(plugin, "version");
	/* stray 0xff, overlong C0 AF, then 28 whole emoji and the 29th cut after 2 bytes */
	CU_ASSERT_EQUAL(strncmp(name, "stub_" R R R "utf8 \xf0\x9f\x98\x80", 23), 0);
	CU_ASSERT(strlen(name) > 3 && !strcmp(name + strlen(name) - 3, R));
	CU_ASSERT_EQUAL(strncmp(version, "1.0-" R R "\xc3\xa9", 12), 0);
	CU_ASSERT(strlen(version) > 3 && !strcmp(version + strlen(version) - 3, R));

	json_t *err = case_named(r, "litert/dequantize/case/plugin error");
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	CU_ASSERT_STRING_EQUAL(qct_verdict(err), "ERROR");
	const char *msg = qct_str(err, "message");
	CU_ASSERT_PTR_NOT_NULL(strstr(msg,
	                              "bad " R " " R " " R R " " R R R " \x1b[31m \x01\x7f end "
	                              "\xf0\x9f\x98\x80"));
	CU_ASSERT(strlen(msg) > 3 && !strcmp(msg + strlen(msg) - 3, R)); /* the 255-byte cut */

	/* Lua-computed case names, each byte that is not UTF-8 one U+FFFD */
	json_t *ff = case_named(r, "onnx/quantize_linear/tag=ff" R);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ff);
	CU_ASSERT_PTR_NOT_NULL(case_named(r, "onnx/quantize_linear/tag=cut" R));
	CU_ASSERT_PTR_NOT_NULL(case_named(r, "onnx/quantize_linear/tag=esc\x1b"));
	CU_ASSERT_STRING_EQUAL(qct_str(ff, "params"), "tag=ff" R);
	CU_ASSERT_STRING_EQUAL(qct_verdict(ff), "FAIL");
	CU_ASSERT_STRING_EQUAL(qct_str(ff, "message"),
	                       "output 'y': custom check: check says " R " no: 4");
	/* the reproduce command still names the case byte for byte */
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(qct_str(ff, "reproduce"), "--case $'onnx/quantize_linear/tag=ff\\xff'"));

	CU_ASSERT(is_valid_utf8_file(html));
	CU_ASSERT(is_valid_utf8_file(xml));
	CU_ASSERT(xmllint_ok(xml));
	json_decref(r);

	/* readers of the report: report, merge, diff */
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s report %s --junit %s/again.xml --html %s/again.html",
	                             qct_build_path("qconform"), json, tmp, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	char again[700];
	snprintf(again, sizeof again, "%s/again.xml", tmp);
	CU_ASSERT(xmllint_ok(again));
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s merge %s --json %s/merged.json",
	                             qct_build_path("qconform"), json, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	qct_proc_free(&p);
	char merged[700];
	snprintf(merged, sizeof merged, "%s/merged.json", tmp);
	qct_validate_report_later(merged, "merge of the UTF-8 run");
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s diff %s %s", qct_build_path("qconform"), json, merged),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT(qc_utf8_valid(p.out, strlen(p.out)));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

void qct_register_utf8(void)
{
	CU_pSuite s = qct_suite("utf8");
	CU_add_test(s, "sanitize: a table of ill-formed input", test_table);
	CU_add_test(s, "next: lengths of maximal subparts", test_next);
	CU_add_test(s, "cuts on character boundaries", test_cuts);
	CU_add_test(s, "sanitize agrees with Python's decoder", test_against_python);
	CU_add_test(s, "JSON writer: jansson reads every string back", test_json_writer);
	CU_add_test(s, "a plugin and specs with bad strings: valid reports",
	            test_run_with_bad_strings);
}
