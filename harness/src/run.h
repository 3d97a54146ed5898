/*
 * run: the commands that walk specs -> cases -> outputs -> comparison ->
 * results -> reports: run, list, validate, show.
 */
#ifndef QC_RUN_H
#define QC_RUN_H

#include <stdint.h>

#include "qconform/plugin.h"

#define QC_MAX_FILTERS 32
#define QC_MAX_OPTIONS 32

typedef struct qc_run_opts {
	char **paths; /* spec files or directories (default: specs) */
	int n_paths;
	const char *plugin;                 /* NULL: the built reference plugin */
	qcf_option options[QC_MAX_OPTIONS]; /* --plugin-option KEY=VALUE */
	int n_options;
	const char *filters[QC_MAX_FILTERS]; /* --filter GLOB; leading '-' excludes */
	int n_filters;
	const char *profile;
	uint64_t seed;
	double timeout_s;
	int jobs;               /* parallel workers, >= 1 */
	const char *json_path;  /* default reports/out/<plugin>/report.json */
	const char *html_path;  /* --html; default beside the default JSON report, else none */
	const char *junit_path; /* --junit; the same */
	int quiet;
	int trace;
	const char *command; /* the command line, for the report */
	int shard_index;     /* --shard K/N: 1 <= K <= N; 0 when not sharded */
	int shard_count;
	const char *baseline; /* --baseline FILE: a report to diff the run against */
	const char *waivers;  /* --waivers FILE */
	const char *dump_dir; /* --dump DIR: failing cases' data as .npy + case.yaml (dump.h) */
	long dump_max;        /* --dump-max N: at most N cases dumped (0: QC_DUMP_MAX_DEFAULT) */
	int no_sandbox;       /* --no-sandbox */
	const char *sandbox_allow[QC_MAX_OPTIONS]; /* --sandbox-allow PATH */
	int n_sandbox_allow;
	size_t worker_memory;  /* --worker-memory (bytes; 0: no limit) */
	int worker_memory_set; /* else: half the RAM over the jobs */
	char *json_written;    /* if not NULL: receives the path of the JSON report (certify) */
	size_t json_written_size;
} qc_run_opts;

int qc_cmd_run(const qc_run_opts *o);
int qc_cmd_list(const qc_run_opts *o);
int qc_cmd_validate(const qc_run_opts *o);
int qc_cmd_show(const qc_run_opts *o, const char *case_name);

/* Keep a case name under the filters? (exported for tests) */
int qc_filter_match(const char *const *filters, int n, const char *name);

/* The shard (1..n) a case belongs to under --shard K/n; parses "K/N" for main (0, or -1). */
int qc_shard_of(const char *case_name, int n);
int qc_shard_parse(const char *s, int *index, int *count);

#endif
