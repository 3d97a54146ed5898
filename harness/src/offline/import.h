/*
 * import: a runner's records as the kernel's outputs of a run (export.h says the whole flow).
 * qc_cmd_import opens the export and the records, checks every file before anything runs (one
 * line and exit 2 at the first fault), and hands the run to qc_cmd_run, which calls the hooks
 * below: the same plan, reference, judge and reports as a run with a worker.
 */
#ifndef QC_IMPORT_H
#define QC_IMPORT_H

#define QC_IMPORT_MAX_PARTS 256 /* export directories (shards) in one import */

#include <stdint.h>

#include "pipeline/jobs.h"
#include "report/report.h"
#include "run/run.h"
#include "spec/spec.h"

typedef struct qc_import qc_import;

/* Export directories and their runners' records (outputs[i]: a directory or a stream; NULL:
 * DIR/outputs) read and checked, as `import` reads them before it judges. Several directories
 * must be the shards K/N of one export, each once. The import, or NULL with the reason in
 * err. */
qc_import *qc_import_open(const char *const *dirs, const char *const *outputs, int n_dirs,
                          char *err, size_t err_size);
void qc_import_close(qc_import *im);
/* The run of the import: the export's selection (the whole of it for every shard) and the
 * runner's plugin options set in o, o->import set. Prints what is imported. */
void qc_import_run_opts(qc_import *im, qc_run_opts *o);
/* The export's --profile ("" without one), its --extension list, and whether it selects part
 * of the profile (--filter, --case, or one shard alone). */
const char *qc_import_profile(const qc_import *im);
void qc_import_extensions(const qc_import *im, const char *const **ext, int *n, int *filtered);

/* The run loaded these specs: are they the export's (paths, sha256, cases)? 0, or -1 and err. */
int qc_import_check_specs(const qc_import *im, qc_spec *const *specs, const uint64_t *selected,
                          int n, uint64_t total, char *err, size_t err_size);
/* The job threads' source of outputs; *info gets what the runner recorded of the plugin. */
const qc_jobs_source *qc_import_source(qc_import *im, qc_plugin_info *info);
/* The report's run.import. */
const qc_import_meta *qc_import_report_meta(const qc_import *im);

#endif
