/*
 * report: writers of run results. The JSON report streams one case at a
 * time (memory does not grow with the run); the console prints a table per
 * operator at the end. Format of the JSON report: README.md, "Reports".
 */
#ifndef QC_REPORT_H
#define QC_REPORT_H

#include <stdio.h>
#include <time.h>

#include "judge/results.h"
#include "run/runner.h"
#include "spec/profile.h"

#define QC_VERSION       "0.1.0"
#define QC_REPORT_FORMAT 1

typedef struct qc_spec_meta {
	const char *path;
	const char *sha256;
	uint64_t cases;
	const char *description; /* the spec's own, or NULL */
} qc_spec_meta;

/* What the classes of the --profile ran: cmd/run.c counts, report.c writes the profile section.
 * Class 0 is the base, class k + 1 extension k; class k's required ops are the base's
 * (k = 0) or the extension's (qc_profile_ext.ops). */
typedef struct qc_profile_tally {
	const qc_profile *p;
	int covered[1 + QC_PROFILE_MAX_EXT];      /* the run holds class k's cases */
	uint64_t planned[1 + QC_PROFILE_MAX_EXT]; /* cases of class k in the profile's specs */
	uint64_t cases[1 + QC_PROFILE_MAX_EXT];   /* cases of class k judged */
	uint64_t op_cases[1 + QC_PROFILE_MAX_EXT][QC_PROFILE_MAX_OPS];
	uint64_t op_verdicts[1 + QC_PROFILE_MAX_EXT][QC_PROFILE_MAX_OPS][QC_N_VERDICTS];
	/* of op_cases, the negative cases (expect: error) the kernel refused (NOT_SUPPORTED):
	 * a refusal answers a negative case as an error does, so it does not refuse the op */
	uint64_t op_neg_refused[1 + QC_PROFILE_MAX_EXT][QC_PROFILE_MAX_OPS];
} qc_profile_tally;

/* The index of c's "semantics/OP" among ops, or -1. */
int qc_profile_op_index(char *const *ops, int n, const qc_case *c);

/* qconform import: where the kernel's outputs came from (the report's run.import). */
typedef struct qc_import_part_meta {
	const char *export_dir, *manifest_sha256, *outputs, *outputs_kind;
	const char *records_sha256; /* of the records read, in order */
	uint32_t shard_index, shard_count;
} qc_import_part_meta;

typedef struct qc_import_meta {
	const char *export_dir;           /* the (first) export directory */
	const char *manifest_sha256;      /* of its manifest.qcm */
	const char *outputs;              /* the runner's records: a directory or a stream file */
	const char *outputs_kind;         /* "directory" or "stream" */
	const char *runner_version;       /* the qconform version the runner was built from */
	const char *runner_mode;          /* "hosted", "freestanding" or "streamed" */
	const qc_import_part_meta *parts; /* every export directory (the shards) */
	int n_parts;
	int aborted; /* cases a fault or watchdog handler (or qconform feed) aborted */
	int judged;  /* cases started and never answered, judged CRASH */
} qc_import_meta;

/* --remote: one board of the pool (jobs.h), as the report tells it. */
typedef struct qc_remote_board {
	const char *command; /* its {job} replaced */
	int jobs;            /* workers it ran */
	int dead;            /* left the pool: its link lost beyond the reconnect bound (why) */
	const char *why;
	uint64_t cases; /* cases it judged */
	int reconnects;
} qc_remote_board;

typedef struct qc_run_meta {
	uint64_t seed;
	const qc_plugin_info *plugin;
	const qc_spec_meta *specs;
	int n_specs;
	const char *const *filters;
	int n_filters;
	const char *const *case_names; /* --case NAME */
	int n_case_names;
	const char *self; /* the qconform that ran (argv[0]): reproduce commands start with it */
	const char *profile;
	const qc_profile *profile_def;         /* the --profile's file, when given */
	const qc_profile_tally *profile_tally; /* what its classes ran (with profile_def) */
	double timeout_s;
	time_t started, finished;
	double wall_s;             /* monotonic seconds from start to finish */
	const char *command;       /* the command line that reproduces the run */
	const qcf_option *options; /* --plugin-option: run.plugin.options, reproduce */
	int n_options;
	int shard_index, shard_count;     /* --shard K/N (0, 0: not sharded) */
	const struct qc_waivers *waivers; /* --waivers, or NULL */
	uint64_t waived;                  /* failing cases a waiver turned allowed */
	/* A run stopped by SIGINT, SIGTERM or SIGHUP: the signal's name ("SIGINT"), else NULL;
	 * the cases judged before it and the cases the run had (the top-level "interrupted") */
	const char *interrupted;
	uint64_t cases_done, cases_planned;
	/* A run --max-failures N stopped (interrupted is then "--max-failures N"): N, else 0 */
	long max_failures;
	const char *journal; /* the run's journal, kept for --resume (or NULL) */
	/* run --resume: the journal, how many cases it held, the command (run.resumed) */
	const char *resumed_from;
	uint64_t resumed_cases;
	const char *resume_command;
	/* qconform import: the runner's records (run.import); a case's reproduce command is then
	 * the export of that case */
	const qc_import_meta *import;
	/* the diagnosis of the failures (an op's "diagnosis"), or NULL */
	struct qc_diagnosis *diagnosis;
	/* --remote: how many times the link to a remote worker was lost and the command started
	 * again (summary.remote_reconnects) */
	int remote_reconnects;
	/* --remote: the pool's boards (run.plugin.remote.pool: their commands; summary.remote_pool:
	 * how each fared, at close); a case's "board" indexes it */
	const qc_remote_board *boards;
	int n_boards;
	/* --require-engine, or the profile's require_engine: "reported" or "accelerator" (every
	 * judged case reported to have run on such an engine), or NULL */
	const char *require_engine;
	/* --repeat K: each case ran K times (1: once); threads_option, when the plugin declares
	 * one, is the create() option the repetitions varied (run.repeat) */
	int repeat;
	const char *threads_option;
} qc_run_meta;

typedef struct qc_json qc_json;

/* Opens path (creating its directory) and writes the run header. The report goes to
 * PATH.tmp and replaces PATH when qc_json_close succeeds (harness/src/base/afile.h). */
qc_json *qc_json_open(const char *path, const qc_run_meta *meta, char *err, size_t err_size);
void qc_json_case(qc_json *j, const qc_case *c, const qc_result *r);
/* The same, with the case's position in the unsharded run and the reason of the waiver that
 * accepted its failure (or NULL). qc_json_case numbers cases in the order written. */
void qc_json_case_ex(qc_json *j, const qc_case *c, const qc_result *r, uint64_t ordinal,
                     const char *waived);
/* The case object qc_json_case_ex writes, as malloc'd text (its length in *len), and that
 * text written as the report's next case: the journal keeps the same bytes
 * (harness/src/pipeline/journal.h). */
char *qc_json_case_text(qc_json *j, const qc_case *c, const qc_result *r, uint64_t ordinal,
                        const char *waived, size_t *len);
/* The same, for a case a board of the --remote pool ran (its index in meta->boards, or -1):
 * the case's "board", and its reproduce command names that board's command. */
char *qc_json_case_text_on(qc_json *j, const qc_case *c, const qc_result *r, uint64_t ordinal,
                           const char *waived, int board, size_t *len);
void qc_json_case_raw(qc_json *j, const char *text, size_t len);
/* Every verdict allowed or waived, no waiver expired, not interrupted, a case the kernel took
 * (not NOT_SUPPORTED; a shard may hold none) and, with --profile, a required op the kernel
 * took. The summary's "conforms" and run's exit status (certify judges each required op). */
int qc_run_conforms(const qc_run_stats *s, const qc_run_meta *meta);
/* The kernel refused (NOT_SUPPORTED) every case of a run that has some and is not one shard of
 * several: NOTHING VERIFIED, with or without a baseline. */
int qc_run_verified_nothing(const qc_run_stats *s, const qc_run_meta *meta);
/* With --profile: the required ops of the classes the run covers of which the kernel refused
 * (NOT_SUPPORTED) every valid case that ran, named with their counts in buf ("litert/ADD (195
 * cases), ..."), and how many there are; *n_run (may be NULL): the required ops with a valid
 * case in the run. */
int qc_run_refused_ops(const qc_run_meta *meta, char *buf, size_t size, int *n_run);
/* Writes roll-ups and the summary, closes, renames PATH.tmp to PATH. Returns 0, or -1 on a
 * write error (PATH is then as it was). */
int qc_json_close(qc_json *j, const qc_run_stats *s, const qc_run_meta *meta);
/* Drops the report being written (PATH is as it was). */
void qc_json_abort(qc_json *j);

/* JSON string escaping, shared by every writer. */
void qc_json_string(FILE *f, const char *s);

/* Console: the per-op table and the totals (meta may be NULL; an interrupted run's totals
 * say so). */
void qc_console_table(FILE *f, const qc_run_stats *s, const qc_run_meta *meta);
/* The diagnosis of every op that has one: a paragraph each (diagnose.h); with datasheet, the
 * datasheet of every op after them. */
void qc_console_diagnosis(FILE *f, struct qc_diagnosis *D, int datasheet);

#endif
