/*
 * export / import: a run without a worker, for a device with no OS and no network
 * (harness/runner/qconform_case.h defines the files). `qconform export` writes the cases a run
 * would hold as binary case files and a manifest; the runner (harness/runner/qconform_runner.c)
 * runs them through the kernel on the device and writes its records; `qconform import` judges
 * those records with the run's own pipeline (qc_cmd_run with the outputs taken from them).
 */
#ifndef QC_EXPORT_H
#define QC_EXPORT_H

#include "run.h"

/* qconform export: the cases o selects into out_dir; with c_arrays also cases.c and cases.h.
 * 0, or 2 (said why on one line). */
int qc_cmd_export(const qc_run_opts *o, const char *out_dir, int c_arrays);

/* qconform import DIR ...: argv[0] is "import"; self is the qconform that runs, command the
 * command line. The run's exit status, or 2 (said why on one line). */
int qc_cmd_import(int argc, char **argv, const char *self, const char *command);

/* qconform feed DIR --device CMD ...: argv[0] is "feed" (feed.c). The exit status: 0 when every
 * case was answered or judged, 2 (said why on one line). */
int qc_cmd_feed(int argc, char **argv);

/* mkdir -p; 0 or -1 (errno). */
int qc_mkdirs(const char *path);

#endif
