/*
 * export / import: a run without a worker, for a device with no OS and no network
 * (harness/runner/qconform_case.h defines the files). `qconform export` writes the cases a run
 * would hold as binary case files and a manifest; the runner (harness/runner/qconform_runner.c)
 * runs them through the kernel on the device and writes its records; `qconform import` judges
 * those records with the run's own pipeline (qc_cmd_run with the outputs taken from them).
 */
#ifndef QC_EXPORT_H
#define QC_EXPORT_H

#include "run/run.h"

/* The cases the options select, written to out_dir for an offline runner: case files, the
 * manifest (and with c_arrays, cases.c and cases.h); the count in *n_cases. Says what went wrong
 * on stderr; returns 0 or 2. */
int qc_export(const qc_run_opts *o, const char *out_dir, int c_arrays, size_t *n_cases);

/* qconform feed DIR --device CMD (offline/feed.c): the host's side of a streamed runner. */
typedef struct qc_feed_opts {
	const char *dir;     /* the export */
	const char *device;  /* the shell command whose stdin and stdout are the device's line */
	const char *capture; /* NULL: DIR/outputs.log */
	double timeout_s;    /* a case with no answer in this long is aborted (TIMEOUT) */
	int restarts_max;    /* restarts in a row with no case answered before the feed stops */
	int quiet;
} qc_feed_opts;

/* Serves the export to the device until every case is answered; 0, or 2 (said why). */
int qc_feed(const qc_feed_opts *o);

#endif
