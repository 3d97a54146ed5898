/*
 * waivers: known failures a CI owner accepts for a while. A waiver file
 * (run --waivers FILE) lists case-name globs with a reason and an optional
 * expiry date:
 *
 *   qconform_waivers: 1
 *   waivers:
 *     - case: 'litert/add/sh=*'
 *       reason: vendor bug 1234, fixed in 2.1
 *       expires: 2027-01-31      # optional; the last day the waiver holds
 *
 * A failing case that a waiver matches keeps its verdict but counts as
 * allowed; an expired waiver waives nothing and fails the run. Errors are
 * file:line:col: message, as in specs.
 */
#ifndef QC_WAIVERS_H
#define QC_WAIVERS_H

#include <stdint.h>
#include <time.h>

#include "spec/spec.h"

#define QC_WAIVERS_FORMAT 1

typedef struct qc_waiver {
	char *glob;             /* fnmatch pattern over case names, as --filter */
	char *reason;           /* why the failure is accepted (never empty) */
	char expires[11];       /* YYYY-MM-DD, or "" when the waiver does not expire */
	int line;               /* in the file, from 1 */
	int expired;            /* the run started after the expiry day */
	char expired_since[11]; /* the day after expires, when expired */
	long days_expired;
	uint64_t matched; /* cases of the run the glob matched (0: unused) */
	uint64_t applied; /* failing cases it turned allowed */
} qc_waiver;

typedef struct qc_waivers {
	char *path;
	qc_waiver *w;
	int n;
} qc_waivers;

/* Loads a waiver file; NULL (errors in diag) on failure. */
qc_waivers *qc_waivers_load(const char *path, qc_diag *diag);
void qc_waivers_free(qc_waivers *ws);

/* Marks the waivers whose expiry day (UTC) lies before the day of `now`; returns how many. */
int qc_waivers_expire(qc_waivers *ws, time_t now);

/* Counts a case of the run against every waiver whose glob matches its name; returns the
 * first of them that has not expired (it waives the case if the case fails), or NULL. */
qc_waiver *qc_waivers_match(qc_waivers *ws, const char *case_name);
/* The waiver qc_waivers_match would return, without counting (safe from any thread). */
const qc_waiver *qc_waivers_find(const qc_waivers *ws, const char *case_name);

#endif
