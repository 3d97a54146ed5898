/*
 * The project's own tests (CUnit). Each suite/test_*.c defines one
 * registration function, declared here and called by suite/main.c.
 * Tests that need built artefacts (plugins, specs) find the build
 * directory in $QCONFORM_BUILD (default "build") and run from the
 * repository's top directory.
 */
#ifndef QCT_H
#define QCT_H

#include <CUnit/CUnit.h>
#include <stdio.h>

/* Path of a built file: qct_build_path("stubs/libstub_ok.so"). Static buffer. */
const char *qct_build_path(const char *rel);

/* Output of a command run through /bin/sh, stdout and stderr kept apart. */
typedef struct qct_proc {
	int status; /* exit status, or 128 + signal */
	char *out;  /* malloc'd, NUL-terminated */
	char *err;
} qct_proc;

/* Runs cmd (printf-style) with sh -c; returns 0 if it could be run. */
int qct_sh(qct_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs the command (printf-style) as qct_sh does: 1 when it ran and exited 0 or 1, else 0
 * with what, the command, its status and output on stderr. */
int qct_sh_ok(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void qct_proc_free(qct_proc *p);
/* A whole file, NUL-terminated (malloc'd), or NULL. */
char *qct_read_file(const char *path);

/* A fresh directory under $TMPDIR for one test; removed by qct_rmdir. */
/* Seconds on the monotonic clock. */
double qct_now_s(void);
const char *qct_tmpdir(void);
void qct_rmdir(const char *dir);

/* Runs `qconform run ARGS --json TMP/report.json` (ARGS printf-style); returns the parsed
 * report or NULL; *status gets the exit status, *err_out (if not NULL) a malloc'd stderr. */
typedef struct json_t json_t;
json_t *qct_run_report(const char *tmp, int *status, char **err_out, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Schema checks, by an independent validator (Debian's python3-jsonschema, suite/util.c).
 * qct_validate_json: 0 valid, 1 not (up to three "path: message" lines in msg), -1 the
 * validator could not run (the reason in msg); qct_validate_report: against the report schema.
 * qct_validate_many: one validator process for n files, each entry's status and msg set as
 * above; returns the number of invalid files, or -1 if any could not be checked. */
#define QCT_REPORT_SCHEMA "reports/schema/report.schema.json"
int qct_validate_json(const char *schema_path, const char *json_path, char *msg, size_t msg_size);
int qct_validate_report(const char *json_path, char *msg, size_t msg_size);
typedef struct qct_validation {
	const char *schema, *path;
	int status;
	char msg[2048];
} qct_validation;
int qct_validate_many(qct_validation *v, size_t n);
/* Checks the file later, with every other file of the suite in one validator process, when the
 * suite ends (qct_validate_pending, run by the suite's cleanup): a copy is kept, so the test
 * may overwrite or delete the file. what says what the file is (e.g. the run's arguments).
 * Not in the sanitizer pass (qct_under_sanitizers): the plain pass checks the same reports. */
void qct_validate_json_later(const char *schema_path, const char *json_path, const char *what);
void qct_validate_report_later(const char *json_path, const char *what);
/* Checks every file waiting; prints each one that is invalid (or could not be checked) to log
 * with its original path, the test that produced it and what it is, and keeps its copy.
 * Returns the number of such files, -1 if the validator could not run. A suite with one fails
 * (its cleanup fails: CUnit counts the suite as failed and the run exits 1). */
int qct_validate_pending(FILE *log);

/* For runs that several tests make with identical arguments (within one process, and across
 * the processes that share QCT_SHARED_DIR: the lanes of make test): the first call runs
 * `qconform run ARGS` as qct_run_report does, in a directory of its own, and later calls give
 * the same result without running it again. Returns a reference to the parsed report
 * (json_decref it; do not modify it: the other tests read it too), the exit status, a malloc'd
 * stderr in *err_out and the report's path in *json_path (each if not NULL); the file stays
 * until the process exits (in QCT_SHARED_DIR, until make test empties it). NULL when there is
 * no directory to run it in. */
json_t *qct_run_shared(int *status, char **err_out, const char **json_path, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* qct_sh for a command whose output depends only on the committed files (e.g. `qconform
 * validate specs`): run once (per process, or per QCT_SHARED_DIR), the same status and output
 * (fresh copies) after. */
int qct_sh_shared(qct_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Path of a built stub plugin: qct_stub("crash") -> build/stubs/libstub_crash.so. */
const char *qct_stub(const char *name);
/* Runs SPECS (a run's arguments) against stub STUB, whose mistake reaches only some cases:
 * asserts that every FAIL is a case may_fail(spec, name) accepts, that each name of must_fail
 * (NULL-terminated substrings of case names) is in a case that FAILs and in none that PASSes,
 * and that every other case PASSes or is EXPECTED_ERROR. Returns the FAIL count; *passed the
 * PASS count. */
/* Every case of report r but the EXPECTED_ERROR ones, counted: FAIL where fail(spec, name)
 * says, PASS elsewhere; a case with another verdict, or without spec, name or verdict, counts in
 * *bad (printed). The counts are added to. */
void qct_count_verdicts(json_t *r, int (*fail)(const char *spec, const char *name), size_t *failed,
                        size_t *passed, size_t *bad);
size_t qct_stub_verdicts(const char *specs, const char *stub,
                         int (*may_fail)(const char *spec, const char *name),
                         const char *const *must_fail, size_t *passed);
/* The verdict string of a case object of a report. */
const char *qct_verdict(json_t *c);
/* Path of a built adapter (build/plugins/libqcf_NAME.so), or NULL after a line on stderr
 * saying it was not built because Debian's PACKAGE is missing (the test then passes). */
const char *qct_adapter(const char *name, const char *package);
/* A string member of a report object, "" when absent. */
const char *qct_str(json_t *o, const char *key);
/* The largest max_abs over a case's outputs. */
double qct_case_max_abs(json_t *c);

/* Verdict counts of a report; prints up to five cases that are neither PASS nor
 * EXPECTED_ERROR (counted in `other`). */
typedef struct qct_tally {
	size_t cases, pass, expected_error, other, golden;
} qct_tally;
qct_tally qct_tally_report(json_t *r);
/* Runs SPECS (a run's arguments) against the reference: every case PASSes or is a negative case
 * it refuses, with at least min_golden goldens and min_negative refusals. Prints "LABEL: N
 * cases, ..." and returns the tally. */
qct_tally qct_specs_conform(const char *label, const char *specs, size_t min_golden,
                            size_t min_negative);

/* This test run's build has the sanitizers ($SAN set, or $QCONFORM_BUILD ending in "san"):
 * the tests that take minutes or name build/ binaries run in the unsanitized pass only. */
int qct_under_sanitizers(void);
/* The specs a run "over every spec" with a stub plugin takes: "specs", or $QCT_SPECS when set
 * (the sanitizer pass of `make test` sets a smaller set that still has every semantics, every
 * op family's harness path and the negative cases: see SAN_SPECS in the Makefile). */
const char *qct_specs(void);

/* Adds a suite with its tests; returns the suite (never NULL, aborts on failure). */
CU_pSuite qct_suite(const char *name);

void qct_register_reference(void);
void qct_register_diagnose(void);
void qct_register_qparams(void);
void qct_register_gen(void);
void qct_register_runner(void);
void qct_register_hostile(void);
void qct_register_spec(void);
void qct_register_spec_limits(void);
void qct_register_compare(void);
void qct_register_run(void);
void qct_register_litert_conv(void);
void qct_register_litert_elementwise(void);
void qct_register_litert_activations(void);
void qct_register_litert_layout(void);
void qct_register_lua(void);
void qct_register_onnx(void);
void qct_register_onnx_import(void);
void qct_register_ort_import(void);
void qct_register_ort_elementwise(void);
void qct_register_ort_pool(void);
void qct_register_ort_matmul(void);
void qct_register_ort_conv(void);
void qct_register_ort_attention(void);
void qct_register_ort_embed(void);
void qct_register_ort_moe(void);
void qct_register_ort_lstm(void);
void qct_register_torch(void);
void qct_register_tf(void);
void qct_register_conventions(void);
void qct_register_reports(void);
void qct_register_gating(void);
void qct_register_examples(void);
void qct_register_certify(void);
void qct_register_dump(void);
void qct_register_plugin_xnnpack(void);
void qct_register_plugin_onednn(void);
void qct_register_plugin_gemmlowp(void);
void qct_register_plugin_libtorch(void);
void qct_register_plugin_armnn(void);
void qct_register_mutation(void);
void qct_register_utf8(void);
void qct_register_interrupt(void);
void qct_register_refusals(void);
void qct_register_pipeline(void);
void qct_register_cli(void);
void qct_register_docs(void);
void qct_register_layers(void);
void qct_register_plugin_util(void);
void qct_register_base(void);
void qct_register_where(void);
void qct_register_lowbit(void);
void qct_register_ci_examples(void);
void qct_register_remote(void);
void qct_register_export(void);
void qct_register_cross(void);
void qct_register_mcu(void);
void qct_register_ggml(void);
void qct_register_chains(void);
void qct_register_mx(void);

#endif
