/*
 * Refusal coverage of the specs (suite/refusals/refusals.mk): the tool finds
 * the refusal sites of a source the way the reference writes them (a
 * qref_fail with QCF_INVALID_PARAM over several lines or a qref_fail_* variant, a bare return of
 * its own, not the propagation of a helper's refusal), refuses a use it does not understand, reads
 * gcov's text and reports a site no case reached, a listed site that is reached and a stale entry;
 * and `make refusals` finds every refusal of the reference exercised by a spec or listed.
 *
 * `make refusals` runs the specs with negative cases against a coverage build of
 * the reference (about 4 s): it is skipped under the sanitizers (QCONFORM_BUILD ending in
 * "san", or SAN set), where `make test` has already run it once unsanitized.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qct.h"

/* The tool's absolute path (the tests run it from their own directory). */
static const char *tool(void)
{
	static char path[1024];
	const char *rel = qct_build_path("refusals/refusals");
	char cwd[512];
	if (rel[0] == '/' || !getcwd(cwd, sizeof cwd))
		snprintf(path, sizeof path, "%s", rel);
	else
		snprintf(path, sizeof path, "%s/%s", cwd, rel);
	return path;
}

static const char *write_file(const char *dir, const char *name, const char *text)
{
	static char path[4][600];
	static int next;
	char *p = path[next++ % 4];
	snprintf(p, sizeof path[0], "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* Lines 1..: the fixture's line numbers matter to the expected output below. Line 20's
 * PRId32 reads as "d" in the site's message. */
static const char fixture[] =
        "#include \"kernel.h\"\n"                                                        /* 1 */
        "/* QCF_INVALID_PARAM in a comment is no site */\n"                              /* 2 */
        "static int helper(const qcf_op_call *call, qref_detail *d)\n"                   /* 3 */
        "{\n"                                                                            /* 4 */
        "\treturn qref_fail(d, QCF_INVALID_PARAM, \"%s: helper \"\n"                     /* 5 */
        "\t                 \"rule\", call->op) ? -1 : 0;\n"                             /* 6 */
        "}\n"                                                                            /* 7 */
        "static const char *names[] = {\"a\", \"b\"};\n"                                 /* 8 */
        "qcf_status kern(const qcf_op_call *call, qref_detail *det)\n"                   /* 9 */
        "{\n"                                                                            /* 10 */
        "\tif (helper(call, det) < 0)\n"                                                 /* 11 */
        "\t\treturn QCF_INVALID_PARAM;\n"                                                /* 12 */
        "\tif (call->n_inputs > 3)\n"                                                    /* 13 */
        "\t\treturn QCF_INVALID_PARAM;\n"                                                /* 14 */
        "\tif (call->n_inputs == 2)\n"                                                   /* 15 */
        "\t\treturn qref_fail(det, QCF_NOT_SUPPORTED, \"not a refusal\");\n"             /* 16 */
        "\tif (call->n_inputs == 1)\n"                                                   /* 17 */
        "\t\treturn qref_fail(\n"                                                        /* 18 */
        "\t\t        det, QCF_INVALID_PARAM,\n"                                          /* 19 */
        "\t\t        \"kern: \\\"quoted\\\" %\" PRId32, 1);\n"                           /* 20 */
        "\treturn QCF_OK;\n"                                                             /* 21 */
        "}\n"                                                                            /* 22 */
        "#define M(n) static int n##_f(void) { return 0; }\n"                            /* 23 */
        "M(x)\n"                                                                         /* 24 */
        "static int after_macro(qref_detail *d)\n"                                       /* 25 */
        "{\n"                                                                            /* 26 */
        "\treturn qref_fail(d, QCF_INVALID_PARAM, \"after\");\n"                         /* 27 */
        "}\n"                                                                            /* 28 */
        "static int attr_rule(qref_detail *d)\n"                                         /* 29 */
        "{\n"                                                                            /* 30 */
        "\treturn qref_fail_attr(d, \"axis\", QCF_INVALID_PARAM, \"%s: bad\", \"x\");\n" /* 31 */
        "}\n"                                                                            /* 32 */
        "static int wrapped(qref_detail *d, int x)\n"                                    /* 33 */
        "{\n"                                                                            /* 34 */
        "\tif (x)\n"                                                                     /* 35 */
        "\t\treturn at(d, 1,\n"                                                          /* 36 */
        "\t\t          qref_fail(d, QCF_INVALID_PARAM, \"wrapped\"));\n"                 /* 37 */
        "\tif (x > 1) return at(d,\n"                                                    /* 38 */
        "\t\t\tqref_fail(d, QCF_INVALID_PARAM, \"cond\"));\n"                            /* 39 */
        "\treturn 0;\n"                                                                  /* 40 */
        "}\n";                                                                           /* 41 */

static void test_sites(void)
{
	const char *dir = qct_tmpdir();
	const char *src = write_file(dir, "fixture.c", fixture);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "cd '%s' && '%s' sites fixture.c", dir, tool()), 0);
	(void)src;
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_STRING_EQUAL(p.out, "fixture.c:5: helper: \"%s: helper rule\"\n"
	                              "fixture.c:14: kern: \"\"\n"
	                              "fixture.c:18: kern: \"kern: \\\"quoted\\\" %d\"\n"
	                              "fixture.c:27: after_macro: \"after\"\n"
	                              "fixture.c:31: attr_rule: \"%s: bad\"\n"
	                              /* gcc counts a wrapped call on its return's line; a
	                               * condition on that line would count it as reached */
	                              "fixture.c:36: wrapped: \"wrapped\"\n"
	                              "fixture.c:39: wrapped: \"cond\"\n"
	                              "refusals: 7 sites, 1 propagations of a helper's refusal\n");
	if (p.status != 0)
		fprintf(stderr, "\n%s", p.err);
	qct_proc_free(&p);
	qct_rmdir(dir);
}

/* A use of QCF_INVALID_PARAM the tool does not classify is an error, never a site it skips. */
static void test_unclassified(void)
{
	static const char *const bad[] = {
	        "int f(qref_detail *d)\n{\n\tqcf_status s = QCF_INVALID_PARAM;\n\treturn s;\n}\n",
	        "#define REFUSE return QCF_INVALID_PARAM\n",
	        "int f(qref_detail *d)\n{\n\treturn qref_fail(d, x ? QCF_INVALID_PARAM : "
	        "QCF_ERROR, \"m\");\n}\n",
	        "int f(qref_detail *d)\n{\n\treturn qref_fail(d, QCF_INVALID_PARAM, fmt);\n}\n",
	};
	static const char *const what[] = {"f: QCF_INVALID_PARAM in a form",
	                                   "QCF_INVALID_PARAM in a preprocessor line",
	                                   "with a status expression", "without a string literal"};
	const char *dir = qct_tmpdir();
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *src = write_file(dir, "bad.c", bad[i]);
		qct_proc p;
		CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "'%s' sites '%s'", tool(), src), 0);
		CU_ASSERT_EQUAL(p.status, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.err, what[i]));
		CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "bad.c:"));
		qct_proc_free(&p);
	}
	qct_rmdir(dir);
}

/* gcov -t text for the fixture: line 18's call reached twice, lines 31 and 36 once, the others
 * never (line 38's condition ran, its refusal on line 39 did not);
 * line 5 is shared by two functions (as a macro's lines are) and given per function after the sum.
 */
static const char gcov_text[] = "        -:    0:Source:fixture.c\n"
                                "        -:    0:Graph:fixture.gcno\n"
                                "        3:    5:\treturn qref_fail(...\n"
                                "------------------\n"
                                "helper_a:\n"
                                "        0:    5:\treturn qref_fail(...\n"
                                "------------------\n"
                                "helper_b:\n"
                                "        3:    5:\treturn qref_fail(...\n"
                                "------------------\n"
                                "        -:    6:\n"
                                "    #####:   14:\t\treturn QCF_INVALID_PARAM;\n"
                                "        -:   18:\t\treturn qref_fail(\n"
                                "       2*:   19:\t\t        det, ...\n"
                                "    #####:   27:\treturn qref_fail(d, ...\n"
                                "        1:   31:\treturn qref_fail_attr(d, ...\n"
                                "        4:   35:\tif (x)\n"
                                "        1:   36:\t\treturn at(d, 1,\n"
                                "        -:   37:\t\t          qref_fail(...\n"
                                "        4:   38:\tif (x > 1) return at(d,\n"
                                "    #####:   39:\t\t\tqref_fail(...\n";

static void test_check(void)
{
	const char *dir = qct_tmpdir();
	write_file(dir, "fixture.c", fixture);
	write_file(dir, "gcov.txt", gcov_text);
	/* the bare return allowlisted, "after" pending, helper's site allowlisted though reached,
	 * and one entry that names nothing */
	write_file(dir, "allow",
	           "# comment\n"
	           "kern: \"\": a bare refusal the harness cannot reach\n"
	           "helper: \"%s: helper rule\": wrongly listed: a case reaches it\n"
	           "gone: \"no such rule\": a site that was removed from the source\n");
	write_file(dir, "pending", "after_macro: \"after\": no negative case yet\n");
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "cd '%s' && '%s' check --allow allow --pending pending "
	                             "--gcov gcov.txt fixture.c",
	                             dir, tool()),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_STRING_EQUAL(
	        p.out,
	        "fixture.c:5: helper: 3 (allowlisted): \"%s: helper rule\"\n"
	        "fixture.c:14: kern: 0 (allowlisted): \"\"\n"
	        "fixture.c:18: kern: 2: \"kern: \\\"quoted\\\" %d\"\n"
	        "fixture.c:27: after_macro: 0 (pending: no negative case yet): \"after\"\n"
	        "fixture.c:31: attr_rule: 1: \"%s: bad\"\n"
	        /* counted on its return's line; not on a line a condition shares */
	        "fixture.c:36: wrapped: 1: \"wrapped\"\n"
	        "fixture.c:39: wrapped: 0: \"cond\"\n"
	        "refusals: 7 sites: 3 exercised, 2 allowlisted, 1 pending, 1 never exercised\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "fixture.c:5: helper: listed refusal is exercised "
	                                     "(3 times): drop it from allow"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "allow:4: gone: \"no such rule\" names no refusal "
	                                     "site"));
	qct_proc_free(&p);

	/* nothing listed: the two unreached sites are reported as such, in this form */
	write_file(dir, "allow", "\n");
	write_file(dir, "pending", "helper: \"%s: helper rule\"\n");
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "cd '%s' && '%s' check --allow allow --pending pending "
	                             "--gcov gcov.txt fixture.c",
	                             dir, tool()),
	                      0);
	CU_ASSERT_EQUAL(p.status, 2); /* an entry without its reason */
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "pending:1: expected the message"));
	qct_proc_free(&p);
	write_file(dir, "pending", "\n");
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "cd '%s' && '%s' check --allow allow --pending pending "
	                             "--gcov gcov.txt fixture.c",
	                             dir, tool()),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_STRING_EQUAL(p.err, "fixture.c:14: kern: refusal never exercised: \"\"\n"
	                              "fixture.c:27: after_macro: refusal never exercised: "
	                              "\"after\"\n"
	                              "fixture.c:39: wrapped: refusal never exercised: "
	                              "\"cond\"\n");
	qct_proc_free(&p);
	qct_rmdir(dir);
}

static void test_make_refusals(void)
{
	if (qct_under_sanitizers()) {
		fprintf(stderr,
		        "\n  refusals: `make refusals` is not run under sanitizers (the negative "
		        "cases against a coverage build); `make test` runs it in the unsanitized "
		        "pass\n");
		return;
	}
	const char *b = getenv("QCONFORM_BUILD");
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
	                             "--no-print-directory -j2 BUILD='%s' refusals",
	                             b && *b ? b : "build"),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	/* the reference has hundreds of refusals and most are reached: a tool that finds none, or
	 * counts that were never written, cannot pass */
	const char *sum = strstr(p.out, "refusals: ");
	unsigned sites = 0, exercised = 0, allowed = 0, pending = 0, never = 1;
	CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
	CU_ASSERT_EQUAL(sscanf(sum,
	                       "refusals: %u sites: %u exercised, %u allowlisted, %u pending, "
	                       "%u never exercised",
	                       &sites, &exercised, &allowed, &pending, &never),
	                5);
	CU_ASSERT(sites >= 300);
	CU_ASSERT(exercised >= sites / 2);
	CU_ASSERT(allowed <= 46);    /* the allowlist stays short: growing it is a decision */
	CU_ASSERT_EQUAL(pending, 0); /* no rule waits for its negative case */
	CU_ASSERT_EQUAL(never, 0);
	qct_proc_free(&p);
}

void qct_register_refusals(void)
{
	CU_pSuite s = qct_suite("refusals");
	CU_add_test(s, "refusal sites: multi-line calls, own and propagated bare returns",
	            test_sites);
	CU_add_test(s, "an unclassified use of QCF_INVALID_PARAM is an error", test_unclassified);
	CU_add_test(s, "check: counts, unreached, listed but reached, stale entries", test_check);
	CU_add_test(s, "make refusals: every refusal exercised or listed", test_make_refusals);
}
