/*
 * The plan of a run (run/plan.c): every spec and profile loaded and checked before anything
 * runs, the selection (filters, exact names, --profile and its extensions, --shard) and the
 * units of cases the job threads take, in order. run, list, validate, show and export start
 * from it.
 */
#ifndef QC_PLAN_H
#define QC_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "cases/cases.h"
#include "pipeline/jobs.h"
#include "run/run.h"
#include "spec/profile.h"
#include "spec/spec.h"

/* What qc_plan_load makes of the cases */
enum {
	QC_PLAN_NAMES = 0,    /* show: the names, each case built when asked for */
	QC_PLAN_RUN = 1,      /* a run: names, units for the job threads */
	QC_PLAN_VALIDATE = 2, /* every case built, the reference's checks run on each */
	QC_PLAN_LIST = 3,     /* QC_PLAN_RUN's names, no units, each kept case listed */
};

/* A run's plan of one spec, made by the thread that loaded it (names only: no --profile, no
 * --case); the main thread only offsets its ordinals. */
typedef struct spec_plan {
	int done; /* 0: the main thread plans the spec itself */
	int dup;  /* two of its cases hash to one name: check_duplicates names them */
	uint64_t filtered, selected;
	qc_job_unit *units; /* ordinals from the spec's first case the run holds */
	size_t n_units;
	uint8_t *held; /* per case, QC_HELD_* (jobs.h): the job threads skip the others unnamed */
} spec_plan;

typedef struct qc_plan {
	qc_spec **specs;
	int n;
	uint64_t *selected; /* cases per spec after filters */
	uint64_t total;
	uint64_t unsharded; /* cases after filters, every shard */
	uint64_t *filtered; /* per spec: cases after filters, every shard */
	qc_profile **profiles;
	int n_profiles;
	qc_profile *profile;     /* --profile */
	qc_profile_tally *tally; /* its classes: covered, planned (with --profile) */
	uint64_t hits[QC_PROFILE_MAX_EXT][QC_PROFILE_MAX_RULES]; /* cases per match rule */
	qc_job_unit *units; /* run: what the job threads take, in order */
	size_t n_units, cap_units;
	FILE *listing; /* list: a line per case kept in the shard (its class with --profile) */
	struct spec_plan *plans; /* run: per spec, planned where it was loaded, or not */
} qc_plan;

/* Loads, then expands every case: without its data (0: list), with it (2: validate, which also
 * runs the reference's checks on every case, qc_cases_check_reference), or for a run
 * (QC_PLAN_RUN: the names only, under a --profile without data; the job threads build the cases
 * the run holds, units of a spec's cases holding UNIT_CASES of the run's in ss->units). Any
 * error -> -1. */
int qc_plan_load(const qc_run_opts *o, qc_plan *ss, qc_diag *diag, int with_data);

void qc_plan_free(qc_plan *ss);

/*
 * The class of a case under the --profile (0 the base, k + 1 extension k; c->extension set),
 * or -1 if it meets rules of two extensions (qc_plan_load reports it).
 */
int qc_plan_case_class(const qc_plan *ss, qc_case *c);

/* Does the run hold the cases of class k (the base, a declared extension, no profile)? */
int qc_plan_class_covered(const qc_plan *ss, int k);

int qc_plan_in_shard(const qc_run_opts *o, const char *name);

#endif
