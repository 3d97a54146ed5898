/*
 * qconform/plugin_util.h, the helpers a plugin may include beside plugin.h: each reader tells
 * read (1) from absent (0) from present but unusable (-1), so a plugin can tell "use the
 * default" from "refuse the call"; the C++ adapters include it too (checked here when a C++
 * compiler is installed).
 */
#include <stdio.h>
#include <stdlib.h>

#include "qconform/plugin_util.h"
#include "qct.h"

static const int64_t ints3[] = {1, 2, 3};
static const double floats_whole[] = {4.0, -5.0};
static const double floats_frac[] = {4.0, 0.5};

static const qcf_attr attrs[] = {
        {.name = "i", .type = QCF_ATTR_INT, .count = 1, .v.i = -7},
        {.name = "f_whole", .type = QCF_ATTR_FLOAT, .count = 1, .v.f = 3.0},
        {.name = "f_frac", .type = QCF_ATTR_FLOAT, .count = 1, .v.f = 2.5},
        {.name = "f_huge", .type = QCF_ATTR_FLOAT, .count = 1, .v.f = 1e300},
        {.name = "s", .type = QCF_ATTR_STRING, .count = 1, .v.s = "SAME"},
        {.name = "s_null", .type = QCF_ATTR_STRING, .count = 1, .v.s = NULL},
        {.name = "ints", .type = QCF_ATTR_INTS, .count = 3, .v.ints = ints3},
        {.name = "floats_whole", .type = QCF_ATTR_FLOATS, .count = 2, .v.floats = floats_whole},
        {.name = "floats_frac", .type = QCF_ATTR_FLOATS, .count = 2, .v.floats = floats_frac},
        {.name = NULL, .type = QCF_ATTR_INT, .count = 1, .v.i = 1},
};

static const qcf_op_call call = {
        .struct_size = sizeof(qcf_op_call),
        .op = "OP",
        .semantics = "litert",
        .n_attrs = (int32_t)(sizeof attrs / sizeof attrs[0]),
        .attrs = attrs,
};

static void test_find_and_numbers(void)
{
	CU_ASSERT_PTR_EQUAL(qcf_attr_find(&call, "s"), &attrs[4]);
	CU_ASSERT_PTR_NULL(qcf_attr_find(&call, "absent"));
	CU_ASSERT_PTR_NULL(qcf_attr_find(NULL, "s"));
	CU_ASSERT_PTR_NULL(qcf_attr_find(&call, NULL));

	int64_t v = 99;
	CU_ASSERT_EQUAL(qcf_attr_int(&call, "i", &v), 1);
	CU_ASSERT_EQUAL(v, -7);
	CU_ASSERT_EQUAL(qcf_attr_int(&call, "f_whole", &v), 1); /* a spec writes 3 or 3.0 */
	CU_ASSERT_EQUAL(v, 3);
	v = 99;
	CU_ASSERT_EQUAL(qcf_attr_int(&call, "f_frac", &v), -1);
	CU_ASSERT_EQUAL(qcf_attr_int(&call, "f_huge", &v), -1); /* no int64_t holds it */
	CU_ASSERT_EQUAL(qcf_attr_int(&call, "s", &v), -1);
	CU_ASSERT_EQUAL(qcf_attr_int(&call, "ints", &v), -1);
	CU_ASSERT_EQUAL(qcf_attr_int(&call, "absent", &v), 0);
	CU_ASSERT_EQUAL(v, 99); /* untouched unless read */

	double d = 0;
	CU_ASSERT_EQUAL(qcf_attr_float(&call, "f_frac", &d), 1);
	CU_ASSERT_EQUAL(d, 2.5);
	CU_ASSERT_EQUAL(qcf_attr_float(&call, "i", &d), 1);
	CU_ASSERT_EQUAL(d, -7.0);
	CU_ASSERT_EQUAL(qcf_attr_float(&call, "s", &d), -1);
	CU_ASSERT_EQUAL(qcf_attr_float(&call, "absent", &d), 0);
}

static void test_strings_and_lists(void)
{
	const char *s = "default";
	CU_ASSERT_EQUAL(qcf_attr_str(&call, "absent", &s), 0);
	CU_ASSERT_STRING_EQUAL(s, "default");
	CU_ASSERT_EQUAL(qcf_attr_str(&call, "i", &s), -1);
	CU_ASSERT_EQUAL(qcf_attr_str(&call, "s_null", &s), -1);
	CU_ASSERT_STRING_EQUAL(s, "default");
	CU_ASSERT_EQUAL(qcf_attr_str(&call, "s", &s), 1);
	CU_ASSERT_STRING_EQUAL(s, "SAME");

	int64_t v[4] = {0};
	int32_t n = -1;
	CU_ASSERT_EQUAL(qcf_attr_ints(&call, "ints", v, 4, &n), 1);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT(v[0] == 1 && v[1] == 2 && v[2] == 3);
	CU_ASSERT_EQUAL(qcf_attr_ints(&call, "ints", v, 2, &n), -1); /* longer than the room */
	CU_ASSERT_EQUAL(qcf_attr_ints(&call, "floats_whole", v, 4, &n), 1);
	CU_ASSERT(n == 2 && v[0] == 4 && v[1] == -5);
	CU_ASSERT_EQUAL(qcf_attr_ints(&call, "floats_frac", v, 4, &n), -1);
	CU_ASSERT_EQUAL(qcf_attr_ints(&call, "f_whole", v, 4, &n),
	                1); /* one scalar: a list of one */
	CU_ASSERT(n == 1 && v[0] == 3);
	CU_ASSERT_EQUAL(qcf_attr_ints(&call, "s", v, 4, &n), -1);
	n = 7;
	CU_ASSERT_EQUAL(qcf_attr_ints(&call, "absent", v, 4, &n), 0);
	CU_ASSERT_EQUAL(n, 7);

	int64_t shape[3] = {2, 3, 4};
	qcf_tensor t = {.rank = 3, .shape = shape};
	CU_ASSERT_EQUAL(qcf_numel(&t), 24);
	t.rank = 0;
	CU_ASSERT_EQUAL(qcf_numel(&t), 1);
}

/* The C++ adapters include the header: it compiles as C++ without a warning. */
static void test_compiles_as_cplusplus(void)
{
	if (system("command -v c++ >/dev/null 2>&1") != 0) {
		fprintf(stderr, "  plugin_util: no c++: the header's C++ check is left to the "
		                "adapters' builds\n");
		return;
	}
	const char *dir = qct_tmpdir();
	char src[1024];
	snprintf(src, sizeof src, "%s/use.cc", dir);
	FILE *f = fopen(src, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("#include \"qconform/plugin_util.h\"\n"
	      "int64_t f(const qcf_op_call *c) { int64_t v = 0; const char *s; int32_t n;\n"
	      "  double d; qcf_attr_str(c, \"s\", &s); qcf_attr_float(c, \"d\", &d);\n"
	      "  qcf_attr_ints(c, \"l\", &v, 1, &n);\n"
	      "  return qcf_attr_int(c, \"a\", &v) == 1 ? v : qcf_numel(c->inputs); }\n",
	      f);
	fclose(f);
	qct_proc p = {0};
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "c++ -std=c++17 -Wall -Wextra -Werror -pedantic -fsyntax-only "
	                             "-Iharness/include %s",
	                             src),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "  plugin_util: c++ refused the header:\n%s\n", p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	qct_rmdir(dir);
}

void qct_register_plugin_util(void)
{
	CU_pSuite s = qct_suite("plugin_util");
	CU_add_test(s, "attributes read as integers and numbers, absent told from unusable",
	            test_find_and_numbers);
	CU_add_test(s, "strings, integer lists and element counts", test_strings_and_lists);
	CU_add_test(s, "the header compiles as C++ too", test_compiles_as_cplusplus);
}
