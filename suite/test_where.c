/*
 * judge/where.h: where an op's failures cluster. A breakdown over case records as a report
 * holds them, and its findings: an axis whose failing elements all lie at one index (a
 * channel), a value of a sweep variable that every failing case has and not every case.
 */
#include <jansson.h>
#include <string.h>

#include "judge/where.h"
#include "qct.h"

/* A case record: its params, and for a failing case its output y's failing elements along
 * the channel axis (3 of n, h, w, c) at the given index. */
static json_t *record(const char *params, int failing, const char *channel, int elements)
{
	json_t *c = json_pack("{s:s}", "params", params);
	if (failing)
		json_object_set_new(c, "outputs",
		                    json_pack("[{s:s,s:[ssss],s:i,s:{s:i,s:{s:i},s:i}}]", "name",
		                              "y", "axes", "n", "h", "w", "c", "channel_axis", 3,
		                              "failing_along", "axis", 3, "counts", channel,
		                              elements, "other", 0));
	return c;
}

static void add(json_t *w, const char *params, int failing, const char *channel, int elements)
{
	json_t *c = record(params, failing, channel, elements);
	qc_where_add(w, c, failing);
	json_decref(c);
}

static void test_channel_and_value(void)
{
	json_t *w = qc_where_new();
	/* every failure at channel 3, in cases with rounding=single; the variable shape takes
	 * both values in failing cases; zp=0 is in every case (it says nothing) */
	add(w, "shape=[1;2],rounding=single,zp=0", 1, "3", 5);
	add(w, "shape=[2;2],rounding=single,zp=0", 1, "3", 2);
	add(w, "shape=[1;2],rounding=double,zp=0", 0, NULL, 0);
	add(w, "shape=[2;2],rounding=double,zp=0", 0, NULL, 0);
	qc_where_finding F[QC_WHERE_MAX_FINDINGS];
	int n = qc_where_findings(w, F, QC_WHERE_MAX_FINDINGS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(F[0].kind, QC_WHERE_INDEX);
	CU_ASSERT_STRING_EQUAL(F[0].output, "y");
	CU_ASSERT_STRING_EQUAL(F[0].axis, "c");
	CU_ASSERT_STRING_EQUAL(F[0].index, "3");
	CU_ASSERT(F[0].channel);
	CU_ASSERT_EQUAL(F[0].elements, 7);
	CU_ASSERT_EQUAL(F[1].kind, QC_WHERE_VALUE);
	CU_ASSERT_STRING_EQUAL(F[1].var, "rounding");
	CU_ASSERT_STRING_EQUAL(F[1].value, "single");
	CU_ASSERT(F[1].have == 2 && F[1].cases == 4 && F[1].failing == 2);
	/* max bounds what is written */
	CU_ASSERT_EQUAL(qc_where_findings(w, F, 1), 1);
	json_decref(w);
}

static void test_no_cluster(void)
{
	json_t *w = qc_where_new();
	/* failures at two channels, and at both values of every variable: nothing to say */
	add(w, "a=1,m={k:1;j:2}", 1, "0", 1);
	add(w, "a=2,m={k:2;j:2}", 1, "1", 1);
	add(w, "a=3,m={k:3;j:2}", 0, NULL, 0);
	qc_where_finding F[QC_WHERE_MAX_FINDINGS];
	CU_ASSERT_EQUAL(qc_where_findings(w, F, QC_WHERE_MAX_FINDINGS), 0);
	/* a map value's keys are variables of their own: m.k varies, m.j is in every case */
	json_t *vars = json_object_get(w, "vars");
	CU_ASSERT_PTR_NOT_NULL(json_object_get(vars, "m.k"));
	CU_ASSERT_PTR_NOT_NULL(json_object_get(vars, "m.j"));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(w, "cases")), 3);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(w, "failing")), 2);
	json_decref(w);
}

void qct_register_where(void)
{
	CU_pSuite s = qct_suite("judge/where");
	CU_add_test(s, "one channel and one shared value are found", test_channel_and_value);
	CU_add_test(s, "failures spread over channels and values: no finding", test_no_cluster);
}
