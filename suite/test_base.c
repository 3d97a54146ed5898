/*
 * harness/src/base/: the helpers every stage uses. QC_GROW, the one growth rule of the arrays
 * that are appended to: it keeps what was appended, grows only when full, and takes int and
 * size_t counts alike.
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/util.h"
#include "qct.h"

static void test_grown_cap(void)
{
	CU_ASSERT_EQUAL(qc_grown_cap(0, 0, 16), 16);
	CU_ASSERT_EQUAL(qc_grown_cap(0, 0, 0), 1); /* no first: one */
	CU_ASSERT_EQUAL(qc_grown_cap(16, 16, 16), 32);
	CU_ASSERT_EQUAL(qc_grown_cap(16, 100, 16), 128); /* doubled until element n fits */
	CU_ASSERT_EQUAL(qc_grown_cap(3, 3, 64), 6);      /* first only when there is none */
}

static void test_grow_appends(void)
{
	int *v = NULL, n = 0, cap = 0, grew = 0;
	for (int i = 0; i < 1000; i++) {
		int before = cap;
		QC_GROW(v, n, cap, 4);
		grew += cap != before;
		CU_ASSERT_FATAL(n < cap);
		v[n++] = i * 7;
	}
	CU_ASSERT_EQUAL(cap, 1024);
	CU_ASSERT_EQUAL(grew, 9); /* 4, 8, ..., 1024: doubling, not one realloc per append */
	int same = 1;
	for (int i = 0; i < n; i++)
		same &= v[i] == i * 7;
	CU_ASSERT(same);
	free(v);

	double *d = NULL;
	size_t dn = 0, dcap = 0;
	for (size_t i = 0; i < 100; i++) {
		QC_GROW(d, dn, dcap, 256);
		d[dn++] = (double)i;
	}
	CU_ASSERT_EQUAL(dcap, 256);
	CU_ASSERT_EQUAL(d[99], 99.0);
	free(d);
}

void qct_register_base(void)
{
	CU_pSuite s = qct_suite("base");
	CU_add_test(s, "qc_grown_cap doubles from first until the element fits", test_grown_cap);
	CU_add_test(s, "QC_GROW keeps what was appended and grows by doubling", test_grow_appends);
}
