/*
 * The reports a customer and a CI read: the JSON report against its schema
 * (reports/schema/report.schema.json, checked by Debian's python3-jsonschema), the HTML
 * report as headless Chromium renders it, the JUnit XML as xmllint parses it, and
 * `qconform report` on bad input. The hostile spec fixtures (suite/specs/hostile) carry
 * markup in their case names.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "qct.h"
#include "report/report_html.h"

/* suite/util.c: 0 valid, 1 invalid (messages in msg), -1 validator missing */

#define HOSTILE "suite/specs/hostile"
#define SCRIPT  "<script>alert(1)</script>"

static long long count_of(json_t *verdicts, const char *v)
{
	return json_integer_value(json_object_get(verdicts, v));
}

static json_t *summary_verdicts(json_t *r)
{
	return json_object_get(json_object_get(r, "summary"), "verdicts");
}

static size_t occurrences(const char *s, const char *what)
{
	size_t n = 0, len = strlen(what);
	for (const char *p = s; (p = strstr(p, what)); p += len)
		n++;
	return n;
}

/* Runs `qconform report JSON ARGS`; returns the exit status, stderr in err (if not NULL). */
static int report_cmd(const char *json, const char *args, char **err)
{
	qct_proc p;
	if (qct_sh(&p, "%s report '%s' %s", qct_build_path("qconform"), json, args) != 0)
		return -1;
	int st = p.status;
	if (st != 0 && !err)
		fprintf(stderr, "\nqconform report %s %s: %s", json, args, p.err);
	if (err)
		*err = strdup(p.err);
	qct_proc_free(&p);
	return st;
}

/* ---- schema ---- */

/* The mutated reports of test_schema_rejects_broken_reports, checked in one validator process:
 * file name, and the words the validator must say (NULL: the file is valid). */
typedef struct schema_probe {
	const char *name, *mention;
} schema_probe;

static void dump_probe(json_t *r, const char *dir, const char *name)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s.json", dir, name);
	CU_ASSERT_EQUAL_FATAL(json_dump_file(r, path, 0), 0);
}

/* The schema accepts what qconform writes (qct_run_report checks every report of the suite)
 * and rejects a report with a wrong verdict string, a missing field, an unknown field, or a
 * NaN written in a way other than "nan". */
static void test_schema_rejects_broken_reports(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r =
	        qct_run_report(tmp, &st, NULL, HOSTILE " --plugin %s", qct_stub("ties_half_up"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	static const schema_probe probes[] = {{"report", NULL},
	                                      {"verdict", "'FAILED' is not one of"},
	                                      {"missing", "'conforms' is a required property"},
	                                      {"nan", "max_abs"},
	                                      {"ulp", "max_ulp"},
	                                      {"extra", "bogus"},
	                                      {"restored", NULL}};

	json_t *c0 = json_array_get(json_object_get(r, "cases"), 1);
	json_t *saved = json_incref(json_object_get(c0, "verdict"));
	json_object_set_new(c0, "verdict", json_string("FAILED"));
	dump_probe(r, tmp, "verdict");
	json_object_set_new(c0, "verdict", saved);

	json_t *summary = json_object_get(r, "summary");
	json_t *conforms = json_incref(json_object_get(summary, "conforms"));
	json_object_del(summary, "conforms");
	dump_probe(r, tmp, "missing");
	json_object_set_new(summary, "conforms", conforms);

	json_t *out0 = json_array_get(json_object_get(c0, "outputs"), 0);
	json_object_set_new(out0, "max_abs", json_string("NaN"));
	dump_probe(r, tmp, "nan");
	json_object_set_new(out0, "max_abs", json_string("nan"));
	json_object_set_new(out0, "max_ulp", json_integer(0)); /* lsb outputs have no ulp */
	dump_probe(r, tmp, "ulp");
	json_object_del(out0, "max_ulp");
	json_object_set_new(out0, "bogus", json_true());
	dump_probe(r, tmp, "extra");
	json_object_del(out0, "bogus");

	/* and back to valid: the mutations above were each the only fault */
	dump_probe(r, tmp, "restored");
	json_decref(r);

	/* one validator process for all of them, as for a suite's reports */
	enum { N = sizeof probes / sizeof probes[0] };
	qct_validation v[N];
	char paths[N][600];
	for (size_t i = 0; i < N; i++) {
		snprintf(paths[i], sizeof paths[i], "%s/%s.json", tmp, probes[i].name);
		v[i] = (qct_validation){QCT_REPORT_SCHEMA, paths[i], 0, ""};
	}
	CU_ASSERT_EQUAL(qct_validate_many(v, N), 5);
	for (size_t i = 0; i < N; i++) {
		int want = probes[i].mention ? 1 : 0;
		if (v[i].status != want || (want && !strstr(v[i].msg, probes[i].mention)))
			fprintf(stderr, "\n  %s: validator said (%d) %s", probes[i].name,
			        v[i].status, v[i].msg);
		CU_ASSERT_EQUAL(v[i].status, want);
		if (want)
			CU_ASSERT_PTR_NOT_NULL(strstr(v[i].msg, probes[i].mention));
	}
	qct_rmdir(tmp);
}

static int synthetic_report(const char *path, long n);

/* A report checked later (qct_validate_report_later, as every report of a run is) that does not
 * match the schema fails its suite: qct_validate_pending, which the suite's cleanup runs, counts
 * it and names the file, the test that wrote it and what it is; a valid one beside it is not
 * named. The test's own directory may be gone by then: the check reads a copy. */
static void test_schema_check_later(void)
{
	if (qct_under_sanitizers()) {
		printf("\n  the sanitizer pass checks no schemas (the plain pass does)\n");
		return;
	}
	/* the reports of the tests before this one, checked now so they keep their own output */
	CU_ASSERT_EQUAL(qct_validate_pending(stderr), 0);
	const char *tmp = qct_tmpdir();
	char good[600], bad[600];
	snprintf(good, sizeof good, "%s/good.json", tmp);
	snprintf(bad, sizeof bad, "%s/bad.json", tmp);
	CU_ASSERT_EQUAL_FATAL(synthetic_report(good, 3), 0);
	json_error_t e;
	json_t *r = json_load_file(good, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_object_set_new(json_object_get(r, "summary"), "conforms", json_string("yes"));
	CU_ASSERT_EQUAL_FATAL(json_dump_file(r, bad, 0), 0);
	json_decref(r);
	qct_validate_report_later(good, "a valid report");
	qct_validate_report_later(bad, "a report whose conforms is a string");
	qct_rmdir(tmp);
	FILE *log = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	CU_ASSERT_EQUAL(qct_validate_pending(log), 1);
	CU_ASSERT_EQUAL(qct_validate_pending(log), 0); /* nothing is checked twice */
	fflush(log);
	rewind(log);
	char text[8192];
	size_t n = fread(text, 1, sizeof text - 1, log);
	text[n] = 0;
	fclose(log);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "does not match " QCT_REPORT_SCHEMA));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "summary/conforms: 'yes' is not of type 'boolean'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, bad));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "written by test schema checked later"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "a report whose conforms is a string"));
	CU_ASSERT_PTR_NULL(strstr(text, good));
	/* the copy of the invalid file is kept for a look: here it is removed */
	const char *kept = strstr(text, "copy kept: ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
	char dir[600];
	snprintf(dir, sizeof dir, "%s", kept + strlen("copy kept: "));
	char *slash = strrchr(dir, '/');
	CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
	*slash = 0;
	qct_rmdir(dir);
	if (n == 0 || !strstr(text, bad))
		fprintf(stderr, "\n  qct_validate_pending said: %s", text);
}

/* ---- qconform report ---- */

/* A missing file, broken JSON, a JSON that is not a report: one line "path: reason", exit 2. */
static void test_report_command_bad_input(void)
{
	const char *tmp = qct_tmpdir();
	char path[600], *err = NULL;
	static const struct {
		const char *name, *content, *reason;
	} bad[] = {{"missing.json", NULL, "No such file"},
	           {"broken.json", "{\"format\": \"qconform-report\",", "invalid JSON at line"},
	           {"other.json", "{\"format\": \"something-else\"}", "not a qconform report"},
	           {"empty.json", "", "invalid JSON"},
	           {"noops.json",
	            "{\"format\": \"qconform-report\", \"format_version\": 1, \"run\": {}, "
	            "\"cases\": [], \"summary\": {}}",
	            "\"ops\" missing"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", tmp, bad[i].name);
		if (bad[i].content) {
			FILE *f = fopen(path, "w");
			CU_ASSERT_PTR_NOT_NULL_FATAL(f);
			fputs(bad[i].content, f);
			fclose(f);
		}
		char out[700];
		snprintf(out, sizeof out, "--html '%s/x.html' --junit '%s/x.xml'", tmp, tmp);
		CU_ASSERT_EQUAL(report_cmd(path, out, &err), 2);
		char prefix[700];
		snprintf(prefix, sizeof prefix, "%s: ", path);
		CU_ASSERT_EQUAL(strncmp(err, prefix, strlen(prefix)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i].reason));
		CU_ASSERT_EQUAL(occurrences(err, "\n"), 1);
		if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, bad[i].reason))
			fprintf(stderr, "\n  %s: %s", bad[i].name, err);
		free(err);
		snprintf(path, sizeof path, "%s/x.html", tmp);
		CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0); /* nothing written */
	}
	qct_rmdir(tmp);
}

/* ---- JUnit ---- */

/* xmllint's XPath count of expr in file, or -1. */
static long xpath_count(const char *file, const char *expr)
{
	qct_proc p;
	if (qct_sh(&p, "xmllint --xpath '%s' '%s'", expr, file) != 0)
		return -1;
	long n = p.status == 0 ? strtol(p.out, NULL, 10) : -1;
	if (p.status)
		fprintf(stderr, "\n  xmllint --xpath %s: %s", expr, p.err);
	qct_proc_free(&p);
	return n;
}

static char *xpath_string(const char *file, const char *expr)
{
	qct_proc p;
	if (qct_sh(&p, "xmllint --xpath '%s' '%s'", expr, file) != 0)
		return NULL;
	char *s = p.status == 0 ? strdup(p.out) : NULL;
	qct_proc_free(&p);
	size_t n = s ? strlen(s) : 0;
	if (n && s[n - 1] == '\n') /* xmllint ends a string result with a newline */
		s[n - 1] = 0;
	return s;
}

static int xml_well_formed(const char *file)
{
	qct_proc p;
	if (qct_sh(&p, "xmllint --noout '%s'", file) != 0)
		return 0;
	if (p.status)
		fprintf(stderr, "\n  xmllint %s: %s", file, p.err);
	int ok = p.status == 0;
	qct_proc_free(&p);
	return ok;
}

/* The JUnit XML of r (written at json) is well-formed and counts what the report counts. */
static void check_junit(json_t *r, const char *json, const char *xml)
{
	char args[700];
	snprintf(args, sizeof args, "--junit '%s'", xml);
	CU_ASSERT_EQUAL_FATAL(report_cmd(json, args, NULL), 0);
	CU_ASSERT_FATAL(xml_well_formed(xml));
	json_t *v = summary_verdicts(r);
	long cases = (long)json_array_size(json_object_get(r, "cases"));
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testsuite)"),
	                (long)json_array_size(json_object_get(r, "ops")));
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase)"), cases);
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase/failure[@type=\"FAIL\"])"),
	                count_of(v, "FAIL"));
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase/error)"),
	                count_of(v, "ERROR") + count_of(v, "CRASH") + count_of(v, "TIMEOUT"));
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase/error[@type=\"CRASH\"])"),
	                count_of(v, "CRASH"));
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase/error[@type=\"TIMEOUT\"])"),
	                count_of(v, "TIMEOUT"));
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase/skipped)"),
	                count_of(v, "NOT_SUPPORTED"));
	/* the totals a CI reads off the root, and per suite */
	CU_ASSERT_EQUAL(xpath_count(xml, "number(/testsuites/@tests)"), cases);
	CU_ASSERT_EQUAL(xpath_count(xml, "number(/testsuites/@failures)"), count_of(v, "FAIL"));
	CU_ASSERT_EQUAL(xpath_count(xml, "number(/testsuites/@skipped)"),
	                count_of(v, "NOT_SUPPORTED"));
	CU_ASSERT_EQUAL(xpath_count(xml, "sum(//testsuite/@tests)"), cases);
	CU_ASSERT_EQUAL(xpath_count(xml, "sum(//testsuite/@failures)"), count_of(v, "FAIL"));
	CU_ASSERT_EQUAL(xpath_count(xml, "sum(//testsuite/@errors)"),
	                count_of(v, "ERROR") + count_of(v, "CRASH") + count_of(v, "TIMEOUT"));
}

/* Every stub verdict in JUnit; hostile names come back as the same strings; characters XML
 * 1.0 forbids (controls, U+FFFF) in a plugin's message still give a well-formed file. */
static void test_junit(void)
{
	const char *tmp = qct_tmpdir();
	char json[600], xml[600];
	snprintf(json, sizeof json, "%s/report.json", tmp);
	snprintf(xml, sizeof xml, "%s/junit.xml", tmp);
	static const char *const stubs[] = {"ties_half_up", "crash", "supports_nothing"};
	for (size_t s = 0; s < sizeof stubs / sizeof stubs[0]; s++) {
		int st;
		json_t *r = qct_run_report(tmp, &st, NULL,
		                           HOSTILE " specs/onnx/quantize_linear.yaml --plugin %s",
		                           qct_stub(stubs[s]));
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		check_junit(r, json, xml);
		json_decref(r);
	}
	/* the hostile case name round-trips through the XML parser */
	char *name = xpath_string(xml, "string(//testcase[contains(@name, \"crash\")]/@name)");
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	CU_ASSERT_STRING_EQUAL(name, "litert/dequantize/case/" SCRIPT " & \"quoted\" 'crash'");
	free(name);
	/* classname semantics.op, suite name semantics/op */
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testsuite[@name=\"onnx/QuantizeLinear\"]/"
	                                 "testcase[@classname=\"onnx.QuantizeLinear\"])"),
	                xpath_count(xml, "count(//testcase[@classname=\"onnx.QuantizeLinear\"])"));

	/* a FAIL's text carries its metrics; forbidden characters are replaced */
	int st;
	json_t *r =
	        qct_run_report(tmp, &st, NULL, HOSTILE " --plugin %s", qct_stub("ties_half_up"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *c = json_array_get(json_object_get(r, "cases"), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "verdict")), "FAIL");
	json_object_set_new(c, "message",
	                    json_string("bell \x07 escape \x1b[31m nul-free \xef\xbf\xbf end"));
	CU_ASSERT_EQUAL_FATAL(json_dump_file(r, json, 0), 0);
	check_junit(r, json, xml);
	char *text = xpath_string(xml, "string(//testcase/failure)");
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "3 of 8 elements differ, max |e| 1, bias 0.375"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "histogram (e: elements): 0: 5 1: 3"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "failing elements along d0: 0: 1 2: 1 6: 1\n"));
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(text, "worst: index 0 at [0], x = 0.5, expected 0, got 1, error 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "qconform run"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "bell \xef\xbf\xbd escape \xef\xbf\xbd[31m"));
	free(text);
	/* one element that differs is counted in the singular */
	json_t *o = json_array_get(json_object_get(c, "outputs"), 0);
	json_object_set_new(o, "mismatches", json_integer(1));
	CU_ASSERT_EQUAL_FATAL(json_dump_file(r, json, 0), 0);
	check_junit(r, json, xml);
	text = xpath_string(xml, "string(//testcase/failure)");
	CU_ASSERT_PTR_NOT_NULL(text ? strstr(text, "1 of 8 elements differs, max |e| 1") : NULL);
	free(text);
	/* a test case's time is the case's seconds in the report, which each suite's properties
	 * say are the kernel's; the run's wall time beside them */
	json_t *c0 = NULL, *cx; /* a case whose name needs no quoting in the XPath */
	size_t i;
	json_array_foreach(json_object_get(r, "cases"), i,
	                   cx) if (!c0 && !strpbrk(qct_str(cx, "name"), "'\"")) c0 = cx;
	CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
	char expr[1200], want[64];
	snprintf(expr, sizeof expr, "string(//testcase[@name=\"%s\"]/@time)", qct_str(c0, "name"));
	snprintf(want, sizeof want, "%.6f", json_number_value(json_object_get(c0, "seconds")));
	text = xpath_string(xml, expr);
	CU_ASSERT_PTR_NOT_NULL(text);
	CU_ASSERT_STRING_EQUAL(text ? text : "", want);
	free(text);
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testsuite/properties/property[@name="
	                                 "\"qconform.time\"])"),
	                xpath_count(xml, "count(//testsuite)"));
	text = xpath_string(xml, "string(//property[@name=\"qconform.time\"]/@value)");
	CU_ASSERT_PTR_NOT_NULL(text ? strstr(text,
	                                     "testcase time: the kernel's prepare and execute "
	                                     "seconds (the report's case seconds)")
	                            : NULL);
	free(text);
	snprintf(want, sizeof want, "%.3f",
	         json_number_value(json_object_get(json_object_get(r, "summary"), "wall_seconds")));
	text = xpath_string(xml, "string(//property[@name=\"qconform.wall_seconds\"]/@value)");
	CU_ASSERT_STRING_EQUAL(text ? text : "", want);
	free(text);
	json_decref(r);
	qct_rmdir(tmp);
}

/* ---- HTML in a browser ---- */

/* Chromium's command, installing Debian's chromium when it is missing and we are root. */
static const char *chromium(void)
{
	static int state; /* 0 unknown, 1 present, -1 missing */
	if (state == 0) {
		qct_proc p;
		int ok = qct_sh(&p, "command -v chromium") == 0 && p.status == 0;
		qct_proc_free(&p);
		if (!ok && geteuid() == 0) {
			fprintf(stderr, "\n  installing chromium (apt-get install chromium) ...");
			if (qct_sh(&p, "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
			               "--no-install-recommends chromium || (apt-get update -qq && "
			               "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
			               "--no-install-recommends chromium)") == 0)
				qct_proc_free(&p);
			ok = qct_sh(&p, "command -v chromium") == 0 && p.status == 0;
			qct_proc_free(&p);
		}
		state = ok ? 1 : -1;
	}
	if (state < 0) {
		CU_FAIL("chromium is not installed and this is not root: install it with "
		        "'sudo apt-get install chromium' (Debian's chromium package)");
		return NULL;
	}
	return "chromium --headless --disable-gpu --no-sandbox --no-first-run "
	       "--disable-dev-shm-usage";
}

/* The DOM Chromium builds from the HTML file (malloc'd), or NULL. */
static char *rendered_dom(const char *html, const char *profile_dir)
{
	const char *chrome = chromium();
	if (!chrome)
		return NULL;
	char abs[1024];
	if (!realpath(html, abs))
		return NULL;
	qct_proc p;
	if (qct_sh(&p, "timeout 120 %s --user-data-dir='%s' --dump-dom 'file://%s'", chrome,
	           profile_dir, abs) != 0)
		return NULL;
	char *dom = p.status == 0 && *p.out ? strdup(p.out) : NULL;
	if (!dom)
		fprintf(stderr, "\n  chromium --dump-dom %s: status %d: %.2000s", abs, p.status,
		        p.err);
	qct_proc_free(&p);
	return dom;
}

/* The text after `id="ID">` up to the next '<'. */
static long long id_number(const char *dom, const char *id)
{
	char key[128];
	snprintf(key, sizeof key, "id=\"%s\">", id);
	const char *p = strstr(dom, key);
	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* The run's spec at path has a description. */
static int spec_described(json_t *r, const char *path)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(json_object_get(r, "run"), "specs"), i, s)
	{
		if (!strcmp(qct_str(s, "path"), path))
			return json_is_string(json_object_get(s, "description"));
	}
	return 0;
}

/* What Chromium rendered from one run's report: the banner's verdict and counts, one table
 * row per operator, each listed failing case with one SVG bar per non-empty histogram bin,
 * and every hostile string as text. */
static void check_rendered(json_t *r, const char *dom)
{
	json_t *v = summary_verdicts(r);
	int conforms = json_is_true(json_object_get(json_object_get(r, "summary"), "conforms"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dom, conforms ? "id=\"verdict\">CONFORMS<"
	                                            : "id=\"verdict\">DOES NOT CONFORM<"));
	CU_ASSERT_EQUAL(id_number(dom, "total-cases"),
	                (long long)json_array_size(json_object_get(r, "cases")));
	const char *key;
	json_t *n;
	json_object_foreach(v, key, n)
	{
		char id[64];
		snprintf(id, sizeof id, "count-%s", key);
		CU_ASSERT_EQUAL(id_number(dom, id), json_integer_value(n));
	}
	json_t *ops = json_object_get(r, "ops");
	CU_ASSERT_EQUAL(occurrences(dom, "<tr id=\"op-"), json_array_size(ops));
	for (size_t i = 0; i < json_array_size(ops); i++) {
		char id[32];
		snprintf(id, sizeof id, "id=\"op-%zu\"", i);
		CU_ASSERT_PTR_NOT_NULL(strstr(dom, id));
	}
	/* the drill-down: every failing case, its histogram bars */
	json_t *cases = json_object_get(r, "cases"), *c;
	json_t *groups = json_object(); /* the sections that state a spec's description */
	size_t i, listed = 0;
	json_array_foreach(cases, i, c)
	{
		const char *verdict = json_string_value(json_object_get(c, "verdict"));
		if (!strcmp(verdict, "PASS") || !strcmp(verdict, "NOT_SUPPORTED") ||
		    !strcmp(verdict, "EXPECTED_ERROR"))
			continue;
		char id[64];
		snprintf(id, sizeof id, "<article class=\"case v-%s\" id=\"case-%zu\">", verdict,
		         i);
		const char *a = strstr(dom, id);
		CU_ASSERT_PTR_NOT_NULL(a);
		if (!a)
			continue;
		listed++;
		const char *spec = json_string_value(json_object_get(c, "spec"));
		if (spec_described(r, spec)) {
			int within = !strcmp(verdict, "PASS_WITHIN_TOLERANCE");
			char g[1200];
			snprintf(g, sizeof g, "%s\n%s\n%s", within ? "within" : "failing",
			         within ? "" : qct_str(c, "op"), spec);
			json_object_set_new(groups, g, json_true());
		}
		const char *end = strstr(a, "</article>");
		CU_ASSERT_PTR_NOT_NULL_FATAL(end);
		char *art = strndup(a, (size_t)(end - a));
		size_t bins = 0, k;
		json_t *o;
		json_array_foreach(json_object_get(c, "outputs"), k, o)
		{
			bins += json_object_size(json_object_get(o, "histogram"));
		}
		CU_ASSERT_EQUAL(occurrences(art, "<rect class=\"bar "), bins);
		CU_ASSERT_EQUAL(occurrences(art, "<svg class=\"hist\""),
		                json_array_size(json_object_get(c, "outputs")));
		if (bins)
			CU_ASSERT_PTR_NOT_NULL(strstr(art, ">-64..-17</text>"));
		/* the command names the qconform that ran, as it was invoked */
		char repro[200];
		snprintf(repro, sizeof repro, "<pre class=\"repro\">%s run ",
		         qct_build_path("qconform"));
		CU_ASSERT_PTR_NOT_NULL(strstr(art, repro));
		CU_ASSERT_PTR_NOT_NULL(strstr(art, " --case "));
		/* the spec's description is not repeated in the case */
		CU_ASSERT_PTR_NULL(strstr(art, "spec-what"));
		/* the case comes after its spec's heading, which says what the spec is for */
		char head[700];
		snprintf(head, sizeof head, "<h4>spec <code>%s</code></h4>",
		         json_string_value(json_object_get(c, "spec")));
		const char *h = strstr(dom, head);
		CU_ASSERT(h && h < a);
		static const char hostile_why[] = "<p class=\"spec-what\">&lt;script&gt;alert(";
		if (h && strstr(head, "hostile"))
			CU_ASSERT_EQUAL(strncmp(h + strlen(head), hostile_why, strlen(hostile_why)),
			                0);
		free(art);
	}
	CU_ASSERT_EQUAL(occurrences(dom, "<article "), listed);
	/* each spec's description once: per failing op and spec among the failing cases, per
	 * spec among the cases within tolerance */
	CU_ASSERT_EQUAL(occurrences(dom, "<p class=\"spec-what\">"), json_object_size(groups));
	json_decref(groups);
	/* hostile strings are text: no element came out of them */
	CU_ASSERT_PTR_NULL(strstr(dom, "<script"));
	CU_ASSERT_PTR_NULL(strstr(dom, "<b>also</b>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; "));
	CU_ASSERT_EQUAL(occurrences(dom, "<svg"), occurrences(dom, "</svg>"));
}

/* Headless Chromium renders the HTML report of a run with each stub that gives a verdict
 * other than PASS (FAIL, CRASH, TIMEOUT, NOT_SUPPORTED) on the hostile specs. */
static void test_html_in_chromium(void)
{
	const char *tmp = qct_tmpdir();
	char json[600], html[600], profile[600];
	snprintf(json, sizeof json, "%s/report.json", tmp);
	snprintf(html, sizeof html, "%s/report.html", tmp);
	snprintf(profile, sizeof profile, "%s/chromium", tmp);
	static const struct {
		const char *stub, *args, *verdict;
	} runs[] = {{"ties_half_up", HOSTILE " specs/onnx/quantize_linear.yaml", "FAIL"},
	            {"crash", HOSTILE, "CRASH"},
	            {"hang", HOSTILE " --timeout 0.5", "TIMEOUT"},
	            {"supports_nothing", HOSTILE, "NOT_SUPPORTED"}};
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		int st;
		json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", runs[k].args,
		                           qct_stub(runs[k].stub));
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT(count_of(summary_verdicts(r), runs[k].verdict) > 0);
		char args[700];
		snprintf(args, sizeof args, "--html '%s'", html);
		CU_ASSERT_EQUAL_FATAL(report_cmd(json, args, NULL), 0);
		/* the sanitizer pass writes the pages; Chromium (not built with the sanitizers)
		 * reads them in the plain pass */
		if (qct_under_sanitizers()) {
			json_decref(r);
			continue;
		}
		char *dom = rendered_dom(html, profile);
		CU_ASSERT_PTR_NOT_NULL(dom);
		if (dom) {
			check_rendered(r, dom);
			if (!strcmp(runs[k].verdict, "NOT_SUPPORTED"))
				CU_ASSERT_PTR_NOT_NULL(strstr(dom, "<h2 id=\"not-supported\">Not "
				                                   "supported (3)</h2>"));
		}
		free(dom);
		json_decref(r);
		if (!dom)
			break;
	}
	qct_rmdir(tmp);
}

/* With --profile the page carries the profile's own verdict: the reference meets onnx-qdq,
 * a kernel that rounds ties half up fails it on QuantizeLinear and nowhere else. */
static void test_html_profile(void)
{
	const char *tmp = qct_tmpdir();
	char json[600], html[600], args[700];
	snprintf(json, sizeof json, "%s/report.json", tmp);
	snprintf(html, sizeof html, "%s/report.html", tmp);
	snprintf(args, sizeof args, "--html '%s'", html);
	static const struct {
		const char *stub, *verdict;
		size_t bad_rows;
	} runs[] = {{NULL, "CONFORMS", 0}, {"ties_half_up", "DOES NOT CONFORM", 1}};
	for (size_t k = 0; k < 2; k++) {
		int st;
		const char *report = json;
		/* the reference's run is the one the run suite's profile test reads too */
		json_t *r = runs[k].stub ? qct_run_report(tmp, &st, NULL,
		                                          "specs --profile onnx-qdq --plugin %s",
		                                          qct_stub(runs[k].stub))
		                         : qct_run_shared(&st, NULL, &report,
		                                          "specs --profile onnx-qdq");
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL_FATAL(report_cmd(report, args, NULL), 0);
		char *page = qct_read_file(html);
		CU_ASSERT_PTR_NOT_NULL_FATAL(page);
		char want[128];
		snprintf(want, sizeof want, "id=\"profile-verdict\">%s<", runs[k].verdict);
		CU_ASSERT_PTR_NOT_NULL(strstr(page, want));
		/* the profile section comes right after the banner, before the run's metadata */
		const char *prof = strstr(page, "id=\"profile\""),
		           *run = strstr(page, "id=\"run\"");
		CU_ASSERT(prof && run && prof < run);
		json_t *ops = json_object_get(json_object_get(r, "profile"), "required_ops");
		CU_ASSERT(json_array_size(ops) >= 5);
		size_t rows = 0, bad = 0;
		for (const char *p = prof; p && p < run; p++) {
			if (!strncmp(p, "<tr><td>onnx/", 13))
				rows++;
			if (!strncmp(p, "<tr class=\"bad\"><td>onnx/", 25)) {
				rows++;
				bad++;
				CU_ASSERT_EQUAL(strncmp(p + 20, "onnx/QuantizeLinear<", 20), 0);
			}
		}
		CU_ASSERT_EQUAL(rows, json_array_size(ops));
		CU_ASSERT_EQUAL(bad, runs[k].bad_rows);
		free(page);
		json_decref(r);
	}
	qct_rmdir(tmp);
}

/* ---- a large run ---- */

/* A report of n cases over 40 operators: 2% FAIL, 0.2% CRASH, 1% NOT_SUPPORTED, 3% within
 * tolerance, the rest PASS; consistent roll-ups and summary. Returns 0 on success. */
static int synthetic_report(const char *path, long n)
{
	static const char *const verdicts[] = {"PASS",           "PASS_WITHIN_TOLERANCE",
	                                       "FAIL",           "NOT_SUPPORTED",
	                                       "EXPECTED_ERROR", "ERROR",
	                                       "CRASH",          "TIMEOUT"};
	enum { N_OPS = 40, NV = 8 };
	long long per_op[N_OPS][NV] = {{0}}, total[NV] = {0}, op_cases[N_OPS] = {0};
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	char zeros[65];
	memset(zeros, '0', 64);
	zeros[64] = 0;
	fprintf(f,
	        "{\"format\": \"qconform-report\", \"format_version\": 1,\n\"run\": "
	        "{\"qconform_version\": \"0.1.0\", \"seed\": 7, \"started\": "
	        "\"2026-01-01T00:00:00Z\", \"host\": \"bench\", \"command\": \"qconform run "
	        "synthetic\", \"timeout_seconds\": 30, \"profile\": null, \"filters\": [], "
	        "\"shard\": null, "
	        "\"plugin\": {\"name\": \"synthetic\", \"version\": \"1\", \"abi_version\": 1, "
	        "\"path\": \"libsynthetic.so\", \"sha256\": \"%s\", \"sha256_source\": "
	        "\"harness\", \"platform\": {\"source\": \"harness\", \"machine\": \"x86_64\", "
	        "\"system\": \"Linux 6.1\", \"cpu\": \"\", \"emulation\": \"\"}, \"options\": []}, "
	        "\"specs\": "
	        "[{\"path\": "
	        "\"synthetic.yaml\", \"sha256\": \"%s\", \"cases\": %ld, \"description\": "
	        "null}]},\n\"cases\": [",
	        zeros, zeros, n);
	for (long i = 0; i < n; i++) {
		int op = (int)(i % N_OPS), v;
		long m = i % 1000;
		v = m < 20 ? 2 : m < 22 ? 6 : m < 32 ? 3 : m < 62 ? 1 : 0;
		per_op[op][v]++;
		total[v]++;
		op_cases[op]++;
		fprintf(f,
		        "%s\n{\"name\": \"syn/op%d/case/%ld\", \"ordinal\": %ld, \"spec\": "
		        "\"synthetic.yaml\", "
		        "\"semantics\": \"onnx\", \"op\": \"Op%d\", \"params\": \"i=%ld\", "
		        "\"seed\": "
		        "\"%016lx\", \"expect\": \"ok\", \"verdict\": \"%s\", \"seconds\": 1e-05, "
		        "\"message\": \"%s\"",
		        i ? "," : "", op, i, i, op, i, (unsigned long)i, verdicts[v],
		        v == 2 ? "output 'y': 3 of 256 elements differ" : "");
		if (v != 0 && v != 3)
			fprintf(f,
			        ", \"reproduce\": \"qconform run synthetic.yaml --filter "
			        "'syn/op%d/case/%ld'\"",
			        op, i);
		if (v == 3 || v == 6) {
			fputs(", \"outputs\": []}", f);
			continue;
		}
		int bad = v == 2 || v == 1;
		fprintf(f,
		        ", \"outputs\": [{\"name\": \"y\", \"dtype\": \"int8\", \"saturated\": "
		        "0.01, "
		        "\"unit\": \"lsb\", \"elements\": 256, \"mismatches\": %d, "
		        "\"unpredictable\": 0, \"out_of_range\": 0, \"within_rounding\": 0, "
		        "\"max_abs\": %d, \"bias\": %s, \"mse\": %s, \"histogram\": {",
		        bad ? 3 : 0, bad ? 1 : 0, bad ? "0.0078125" : "0",
		        bad ? "0.01171875" : "0");
		fprintf(f, bad ? "\"-1\": 1, \"0\": 253, \"1\": 2}" : "\"0\": 256}");
		fputs(", \"worst\": [", f);
		if (bad)
			fputs("{\"index\": 3, \"expected\": 5, \"got\": 6, \"error\": 1, "
			      "\"inputs\": "
			      "{\"x\": 0.5}}, {\"index\": 9, \"expected\": -2, \"got\": -1, "
			      "\"error\": "
			      "1, \"inputs\": {\"x\": -0.5}}, {\"index\": 11, \"expected\": 0, "
			      "\"got\": "
			      "-1, \"error\": -1, \"inputs\": {\"x\": \"nan\"}}",
			      f);
		fputs("]}]}", f);
	}
	fputs("\n],\n\"ops\": [", f);
	for (int op = 0; op < N_OPS; op++) {
		fprintf(f,
		        "%s\n{\"semantics\": \"onnx\", \"op\": \"Op%d\", \"cases\": %lld, "
		        "\"verdicts\": {",
		        op ? "," : "", op, op_cases[op]);
		for (int v = 0; v < NV; v++)
			fprintf(f, "%s\"%s\": %lld", v ? ", " : "", verdicts[v], per_op[op][v]);
		fputs("}, \"seconds\": 0.025, \"outputs\": [{\"name\": \"y\", \"unit\": \"lsb\", "
		      "\"elements\": 600000, \"mismatches\": 300, \"unpredictable\": 0, "
		      "\"out_of_range\": 0, \"within_rounding\": 0, \"max_abs\": 1, \"bias\": "
		      "0.0001, "
		      "\"mse\": 0.0005, \"histogram\": {\"-1\": 100, \"0\": 599700, \"1\": 200}}]}",
		      f);
	}
	fprintf(f, "\n],\n\"summary\": {\"cases\": %ld, \"verdicts\": {", n);
	for (int v = 0; v < NV; v++)
		fprintf(f, "%s\"%s\": %lld", v ? ", " : "", verdicts[v], total[v]);
	fputs("}, \"waived\": 0, \"conforms\": false, \"finished\": \"2026-01-01T00:01:00Z\", "
	      "\"wall_seconds\": "
	      "60}\n}\n",
	      f);
	return fclose(f) == 0 ? 0 : -1;
}

/* 100,000 cases (25,000 in the sanitizer pass, where each is slower, not different; still 550
 * failing, more than the page lists): the HTML
 * stays small (passing cases counted, 500 failing cases listed and the rest counted), renders
 * in seconds, and JUnit still has every case. */
static void test_large_run(void)
{
	const char *tmp = qct_tmpdir();
	char json[600], html[600], xml[600], args[1400];
	snprintf(json, sizeof json, "%s/large.json", tmp);
	snprintf(html, sizeof html, "%s/large.html", tmp);
	snprintf(xml, sizeof xml, "%s/large.xml", tmp);
	const long n = qct_under_sanitizers() ? 25000 : 100000;
	CU_ASSERT_EQUAL_FATAL(synthetic_report(json, n), 0);
	qct_validate_report_later(json, "synthetic report of 100,000 cases");
	snprintf(args, sizeof args, "--html '%s'", html);
	double t0 = qct_now_s();
	CU_ASSERT_EQUAL_FATAL(report_cmd(json, args, NULL), 0);
	double t_html = qct_now_s() - t0;
	snprintf(args, sizeof args, "--junit '%s'", xml);
	t0 = qct_now_s();
	CU_ASSERT_EQUAL_FATAL(report_cmd(json, args, NULL), 0);
	double t_junit = qct_now_s() - t0;
	struct stat sj, sh, sx;
	CU_ASSERT_FATAL(stat(json, &sj) == 0 && stat(html, &sh) == 0 && stat(xml, &sx) == 0);
	printf("\n  %ld cases: JSON %.1f MB; HTML %.2f MB in %.2f s; JUnit %.1f MB in %.2f s\n", n,
	       (double)sj.st_size / 1e6, (double)sh.st_size / 1e6, t_html, (double)sx.st_size / 1e6,
	       t_junit);
	CU_ASSERT(sh.st_size < 4000000);
	FILE *f = fopen(html, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char *page = malloc((size_t)sh.st_size + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(page);
	page[fread(page, 1, (size_t)sh.st_size, f)] = 0;
	fclose(f);
	/* 2.2% failing (2% FAIL + 0.2% CRASH): 500 listed, the rest counted */
	char want[200];
	long failing = n / 1000 * 22, within = n / 1000 * 30, pass = n / 1000 * 938;
	CU_ASSERT_EQUAL(occurrences(page, "<article "), QC_HTML_MAX_LISTED);
	snprintf(want, sizeof want, "<h2 id=\"failing\">Failing cases (%ld)</h2>", failing);
	CU_ASSERT_PTR_NOT_NULL(strstr(page, want));
	snprintf(want, sizeof want, "%ld more failing cases are in the JSON report",
	         failing - QC_HTML_MAX_LISTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(page, want));
	snprintf(want, sizeof want, "<h2 id=\"within\">Passed within tolerance (%ld)", within);
	CU_ASSERT_PTR_NOT_NULL(strstr(page, want));
	snprintf(want, sizeof want, "id=\"count-PASS\">%ld<", pass);
	CU_ASSERT_PTR_NOT_NULL(strstr(page, want));
	CU_ASSERT_PTR_NULL(strstr(page, "syn/op20/case/100<")); /* a PASS case is not listed */
	free(page);
	CU_ASSERT(xml_well_formed(xml));
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase)"), n);
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase/skipped)"), n / 100);
	qct_rmdir(tmp);
}

/* run --html / --junit render the run's own report: the page says what the JSON says, the
 * JUnit XML has one testcase per case. */
static void test_run_renders(void)
{
	const char *tmp = qct_tmpdir();
	char html[600], xml[600];
	snprintf(html, sizeof html, "%s/run.html", tmp);
	snprintf(xml, sizeof xml, "%s/run.junit.xml", tmp);
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/torch/fake_quantize_per_tensor_affine.yaml --plugin %s "
	                           "--html '%s' --junit '%s'",
	                           qct_stub("ties_half_up"), html, xml);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	CU_ASSERT(xml_well_formed(xml));
	CU_ASSERT_EQUAL(xpath_count(xml, "count(//testcase)"),
	                (long)json_array_size(json_object_get(r, "cases")));
	CU_ASSERT(xpath_count(xml, "count(//failure)") > 0);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "grep -c 'DOES NOT CONFORM' '%s'", html), 0);
	CU_ASSERT(p.status == 0 && strtol(p.out, NULL, 10) >= 1);
	qct_proc_free(&p);
	json_decref(r);
	qct_rmdir(tmp);
}

/* A report path that is not a regular file is written in place, never replaced by a file
 * renamed over it (as root that would replace /dev/null itself), and gets no journal beside
 * it; a symbolic link keeps pointing at the report it names. */
static void test_report_to_special_files(void)
{
	const char *tmp = qct_tmpdir();
	char fifo[600], link[600], real[600], dir[600];
	snprintf(fifo, sizeof fifo, "%s/fifo.json", tmp);
	snprintf(link, sizeof link, "%s/link.json", tmp);
	snprintf(real, sizeof real, "%s/real.json", tmp);
	snprintf(dir, sizeof dir, "%s", tmp);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	qct_proc p;
	/* the reader takes the report out of the FIFO while the run writes it */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "cat '%s' > '%s/read.json' & %s run "
	                             "specs/litert/dequantize.yaml --quiet --json '%s'; wait",
	                             fifo, tmp, qct_build_path("qconform"), fifo),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	struct stat sb;
	CU_ASSERT(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode));
	char path[700];
	snprintf(path, sizeof path, "%s.journal", fifo);
	CU_ASSERT(access(path, F_OK) != 0);
	snprintf(path, sizeof path, "%s/read.json", tmp);
	json_error_t e;
	json_t *r = json_load_file(path, 0, &e);
	CU_ASSERT_PTR_NOT_NULL(r);
	json_decref(r);
	FILE *f = fopen(real, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(symlink(real, link), 0);
	int st;
	r = qct_run_report(dir, &st, NULL, "specs/litert/dequantize.yaml --json %s", link);
	json_decref(r);
	CU_ASSERT(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode));
	CU_ASSERT(stat(real, &sb) == 0 && sb.st_size > 0);
	CU_ASSERT(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode));
	qct_rmdir(tmp);
}

/* ---- reports read as a stream (harness/src/report/report_read.c) ---- */

/* s with every "from" replaced by "to" (a new string). */
static char *replaced(const char *s, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	for (const char *p = s; (p = strstr(p, from)); p += fl)
		n++;
	char *out = malloc(strlen(s) + n * tl + 1), *o = out;
	for (const char *p = s, *q; (q = strstr(p, from)) || *p; p = q + fl) {
		if (!q) {
			strcpy(o, p);
			return out;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, tl);
		o += tl;
	}
	*o = 0;
	return out;
}

/* The output file of `qconform ARGS` in dir DIR (lines or indented), with DIR named "lines". */
static char *output_of(const char *tmp, const char *dir, const char *file)
{
	char path[700], from[700], to[700];
	snprintf(path, sizeof path, "%s/%s/%s", tmp, dir, file);
	char *text = qct_read_file(path);
	if (!text)
		return NULL;
	snprintf(from, sizeof from, "%s/%s/", tmp, dir);
	snprintf(to, sizeof to, "%s/lines/", tmp);
	char *r = replaced(text, from, to);
	free(text);
	return r;
}

/* A report laid out another way (re-indented, one member a line, not one case a line) renders,
 * diffs and merges exactly as the writer's layout. */
static void test_any_layout(void)
{
	const char *tmp = qct_tmpdir();
	qct_proc p;
	const char *stub = qct_stub("worse_add");
	char qc[4096]; /* absolute: the renderings run in the report's directory */
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(qct_build_path("qconform"), qc));
	static const char *const names[] = {"report.json", "s1.json", "s2.json"};
	for (int k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p,
		               "mkdir -p '%s/lines' '%s/indented' && %s run "
		               "specs/litert/add.yaml specs/litert/mul.yaml --plugin %s "
		               "--quiet --shard %d/2 --json '%s/lines/s%d.json'",
		               tmp, tmp, qct_build_path("qconform"), stub, k + 1, tmp, k + 1),
		        0);
		CU_ASSERT_EQUAL(p.status, 1);
		qct_proc_free(&p);
	}
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/litert/add.yaml specs/litert/mul.yaml --plugin %s", stub);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_decref(r);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char from[700], lines[700], ind[700];
		snprintf(from, sizeof from, "%s/%s", tmp, names[i]);
		snprintf(lines, sizeof lines, "%s/lines/%s", tmp, names[i]);
		snprintf(ind, sizeof ind, "%s/indented/%s", tmp, names[i]);
		if (i == 0)
			CU_ASSERT_EQUAL(rename(from, lines), 0);
		json_error_t e;
		json_t *doc = json_load_file(lines, 0, &e);
		CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
		CU_ASSERT_EQUAL(json_dump_file(doc, ind, JSON_INDENT(3)), 0);
		json_decref(doc);
	}
	static const char *const dirs[] = {"lines", "indented"};
	for (int d = 0; d < 2; d++) {
		const char *dir = dirs[d];
		CU_ASSERT_EQUAL(qct_sh(&p,
		                       "cd '%s/%s' && %s report report.json --html '%s/%s/r.html' "
		                       "--junit '%s/%s/r.xml' && { %s diff report.json s1.json > "
		                       "diff.txt; test $? -le 1; } && { %s merge s1.json s2.json "
		                       "--json '%s/%s/merged.json'; test $? -le 1; }",
		                       tmp, dir, qc, tmp, dir, tmp, dir, qc, qc, tmp, dir),
		                0);
		if (p.status)
			fprintf(stderr, "\n  %s: %s", dir, p.err);
		CU_ASSERT_EQUAL(p.status, 0);
		qct_proc_free(&p);
	}
	static const char *const outputs[] = {"r.html", "r.xml", "diff.txt", "merged.json"};
	for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
		char *a = output_of(tmp, "lines", outputs[i]),
		     *b = output_of(tmp, "indented", outputs[i]);
		CU_ASSERT_PTR_NOT_NULL(a);
		CU_ASSERT_PTR_NOT_NULL(b);
		if (a && b && strcmp(a, b) != 0) {
			CU_FAIL("another layout renders otherwise");
			fprintf(stderr, "\n  %s differs", outputs[i]);
		}
		free(a);
		free(b);
	}
	/* and the failing cases are there: the comparison compared something */
	char *html = output_of(tmp, "lines", "r.html");
	CU_ASSERT(html && strstr(html, "<article"));
	free(html);
	qct_rmdir(tmp);
}

/* A report cut anywhere (a run killed while writing it): every reader says so in one line
 * "path: invalid JSON at line L, column C: ...", exit 2. */
static void test_truncated_report(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/litert/add.yaml --plugin %s",
	                           qct_stub("worse_add"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_decref(r);
	char whole[600], cut[600];
	snprintf(whole, sizeof whole, "%s/report.json", tmp);
	snprintf(cut, sizeof cut, "%s/cut.json", tmp);
	char *text = qct_read_file(whole);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	size_t n = strlen(text);
	/* in the middle of the cases, and just before the last brace */
	size_t at[] = {n / 2, n - 3};
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
		FILE *f = fopen(cut, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fwrite(text, 1, at[i], f);
		fclose(f);
		static const char *const cmds[] = {"report '%s' --html /dev/null", "diff '%s' '%s'",
		                                   "merge '%s' --json /dev/null"};
		for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
			char args[1400];
			snprintf(args, sizeof args, cmds[k], cut, whole);
			qct_proc p;
			CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s %s", qct_build_path("qconform"), args),
			                      0);
			char want[700];
			snprintf(want, sizeof want, "%s: invalid JSON at line ", cut);
			CU_ASSERT_EQUAL(p.status, 2);
			CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
			CU_ASSERT_EQUAL(occurrences(p.err, "\n"), 1);
			if (p.status != 2 || !strstr(p.err, want))
				fprintf(stderr, "\n  qconform %s: %s", args, p.err);
			qct_proc_free(&p);
		}
	}
	free(text);
	qct_rmdir(tmp);
}

/*
 * Files read from outside: a FIFO (no writer) is refused at once by every reader, one line, exit
 * 2, where opening it used to wait forever; a report whose cases are not a report's (a case
 * without a name, a verdict qconform does not have, two cases of one name) is refused by
 * report, diff and merge with one line "path: case N: reason", exit 2.
 */
static void test_untrusted_files(void)
{
	const char *tmp = qct_tmpdir();
	char q[600];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "mkfifo '%s/f' && mkdir '%s/ex' && mkfifo '%s/ex/manifest.qcm'", tmp,
	               tmp, tmp),
	        0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	static const char *const fifo_cmds[] = {
	        "report '%1$s/f'",
	        "diff '%1$s/f' '%1$s/f'",
	        "merge '%1$s/f' '%1$s/f' --json '%1$s/m.json'",
	        "run specs/litert/dequantize.yaml --baseline '%1$s/f' --json '%1$s/b.json'",
	        "run specs/litert/dequantize.yaml --waivers '%1$s/f' --json '%1$s/b.json'",
	        "import '%1$s/ex' --json '%1$s/i.json'",
	};
	for (size_t i = 0; i < sizeof fifo_cmds / sizeof fifo_cmds[0]; i++) {
		char args[1400];
		snprintf(args, sizeof args, fifo_cmds[i], tmp);
		CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "timeout 60 %s %s", q, args), 0);
		if (p.status != 2 || !strstr(p.err, "not a regular file (a FIFO)"))
			fprintf(stderr, "\n  %s: status %d, stderr %s", args, p.status, p.err);
		CU_ASSERT_EQUAL(p.status, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "not a regular file (a FIFO)"));
		qct_proc_free(&p);
	}
	/* a real report, then its second case broken */
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s run specs/litert/dequantize.yaml --quiet --json '%s/good.json'", q,
	               tmp),
	        0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	char good[700];
	snprintf(good, sizeof good, "%s/good.json", tmp);
	static const struct {
		const char *name, *key, *value; /* the member set (NULL value: case 1's name) */
		const char *says;
	} broken[] = {
	        {"unnamed", "name", "", "a case has no name"},
	        {"maybe", "verdict", "MAYBE", "verdict MAYBE is not one of qconform's"},
	        {"twice", "name", NULL, "is another case's too"},
	};
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		char path[700];
		snprintf(path, sizeof path, "%s/%s.json", tmp, broken[i].name);
		json_t *doc = json_load_file(good, 0, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
		json_t *cases = json_object_get(doc, "cases");
		CU_ASSERT_FATAL(json_array_size(cases) >= 2);
		json_t *c1 = json_array_get(cases, 0), *c2 = json_array_get(cases, 1);
		const char *v = broken[i].value ? broken[i].value
		                                : json_string_value(json_object_get(c1, "name"));
		json_object_set_new(c2, broken[i].key, json_string(v));
		CU_ASSERT_EQUAL_FATAL(json_dump_file(doc, path, JSON_INDENT(1)), 0);
		json_decref(doc);
		static const char *const cmds[] = {"report '%1$s' --html '%2$s/x.html'",
		                                   "diff '%3$s' '%1$s'",
		                                   "merge '%1$s' --json '%2$s/m.json'"};
		for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
			char args[2400], want[900];
			snprintf(args, sizeof args, cmds[k], path, tmp, good);
			snprintf(want, sizeof want, "%s: case 2: ", path);
			CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "timeout 60 %s %s", q, args), 0);
			int one_line = strchr(p.err, '\n') && !strchr(p.err, '\n')[1];
			if (p.status != 2 || !strstr(p.err, want) || !one_line)
				fprintf(stderr, "\n  %s: status %d, stderr %s", args, p.status,
				        p.err);
			CU_ASSERT_EQUAL(p.status, 2);
			CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
			CU_ASSERT(one_line);
			qct_proc_free(&p);
		}
	}
	qct_rmdir(tmp);
}

/* The lists of a verdict line (lost coverage per op, required ops refused): whole items, and
 * "..." where the next one does not fit, never a cut item. */
static void test_list_cut(void)
{
	char buf[24];
	size_t used = 0;
	buf[0] = 0;
	qc_list_add(buf, sizeof buf, &used, "%s %d", "litert/ADD", 195);
	CU_ASSERT_STRING_EQUAL(buf, "litert/ADD 195");
	qc_list_add(buf, sizeof buf, &used, "%s %d", "litert/SUB", 3); /* 28 bytes: no room */
	CU_ASSERT_STRING_EQUAL(buf, "litert/ADD 195, ...");
	qc_list_add(buf, sizeof buf, &used, "%s", "x"); /* after the cut: dropped */
	CU_ASSERT_STRING_EQUAL(buf, "litert/ADD 195, ...");
	char one[8];
	used = 0;
	one[0] = 0;
	qc_list_add(one, sizeof one, &used, "%s", "litert/ADD 195");
	CU_ASSERT_STRING_EQUAL(one, "...");
}

void qct_register_reports(void)
{
	CU_add_test(qct_suite("reports/lists"), "verdict-line lists cut at whole items",
	            test_list_cut);
	CU_pSuite s = qct_suite("reports");
	CU_add_test(s, "schema rejects broken reports", test_schema_rejects_broken_reports);
	CU_add_test(s, "schema checked later", test_schema_check_later);
	CU_add_test(s, "report command: bad input", test_report_command_bad_input);
	CU_add_test(s, "junit", test_junit);
	CU_add_test(s, "html in chromium", test_html_in_chromium);
	CU_add_test(s, "html profile verdict", test_html_profile);
	CU_add_test(s, "large run", test_large_run);
	CU_add_test(s, "run --html --junit", test_run_renders);
	CU_add_test(s, "reports to a FIFO and through a symlink", test_report_to_special_files);
	CU_add_test(s, "any layout reads alike", test_any_layout);
	CU_add_test(s, "a cut report: one line", test_truncated_report);
	CU_add_test(s, "FIFOs and broken reports: one line, exit 2", test_untrusted_files);
}
