/*
 * run: the options of a run (qc_run_opts), which every stage after the runner reads:
 * the pipeline (plan, jobs), offline export and import, the gate and cmd/run.c.
 */
#ifndef QC_RUN_H
#define QC_RUN_H

#include <stdint.h>

#include "qconform/plugin.h"

#define QC_MAX_FILTERS    32
#define QC_MAX_OPTIONS    32
#define QC_MAX_REMOTES    64 /* --remote commands: at most --jobs's bound */
#define QC_MAX_EXTENSIONS 16

/* The thread counts the later runs of --repeat cycle through: run r (2..K) gives the plugin's
 * threads option qc_repeat_threads(r). */
#define QC_REPEAT_VARIANTS 4
static inline int qc_repeat_threads(int r)
{
	static const int counts[QC_REPEAT_VARIANTS] = {1, 2, 4, 8};
	return counts[(r - 2) % QC_REPEAT_VARIANTS];
}

typedef struct qc_run_opts {
	char **paths; /* spec files or directories (default: specs) */
	int n_paths;
	const char *plugin;                 /* NULL: the built reference plugin */
	qcf_option options[QC_MAX_OPTIONS]; /* --plugin-option KEY=VALUE */
	int n_options;
	const char *filters[QC_MAX_FILTERS]; /* --filter GLOB; leading '-' excludes */
	int n_filters;
	const char **case_names; /* --case NAME: exact case names to keep (repeatable) */
	int n_case_names;
	const char *self; /* the qconform that runs, as invoked: reproduce commands name it */
	const char *profile;
	/* --extension NAME: the extensions of the profile the run covers besides its base ("all":
	 * every one); cases of the others are not run */
	const char *extensions[QC_MAX_EXTENSIONS];
	int n_extensions;
	uint64_t seed;
	double timeout_s;
	int jobs;               /* parallel workers, >= 1 */
	const char *json_path;  /* default reports/out/<plugin>/report.json */
	const char *html_path;  /* --html; default beside the default JSON report, else none */
	const char *junit_path; /* --junit; the same */
	int quiet;
	int trace;
	const char *command; /* the command line, for the report */
	char **argv;         /* the arguments after the command (the journal keeps them) */
	int argc;
	int shard_index; /* --shard K/N: 1 <= K <= N; 0 when not sharded */
	int shard_count;
	const char *baseline; /* --baseline FILE: a report to diff the run against */
	const char *waivers;  /* --waivers FILE */
	const char *allow_loss[QC_MAX_FILTERS]; /* --allow-coverage-loss GLOB (with --baseline) */
	int n_allow_loss;
	int no_reports;       /* --no-reports: the console only (a reproduce command's runs) */
	const char *dump_dir; /* --dump DIR: failing cases' data as .npy + case.yaml (dump.h) */
	long dump_max;        /* --dump-max N: at most N cases dumped (0: QC_DUMP_MAX_DEFAULT) */
	int no_sandbox;       /* --no-sandbox */
	const char *sandbox_allow[QC_MAX_OPTIONS]; /* --sandbox-allow PATH */
	int n_sandbox_allow;
	size_t worker_memory;       /* --worker-memory (bytes; 0: no limit) */
	int worker_memory_set;      /* else: half the RAM over the jobs */
	const char *require_engine; /* --require-engine, or NULL: the profile's, if any */
	int repeat;                 /* --repeat K: each case K times (0, 1: once) */
	const char *journal_path; /* --journal FILE (default: the JSON report's path + .journal) */
	const char *resume;       /* --resume JOURNAL: run only the cases the journal lacks */
	int keep_journal;         /* --keep-journal: keep it after a complete report */
	long max_failures;        /* --max-failures N: stop after N failing cases (0: never) */
	int no_diagnose;          /* --no-diagnose: no diagnosis of the failures (diagnose.h) */
	int datasheet;            /* diagnose --datasheet: the rules followed, passing ops too */
	int shrink;               /* --shrink N: the first N FAIL cases shrunk after the run */
	const char *remote;       /* --remote CMD: workers started by CMD (stream.h): the first */
	/* --remote given n_remotes times: the pool of boards, one command each (jobs.h) */
	const char *remotes[QC_MAX_REMOTES];
	int n_remotes;
	int jobs_set;       /* --jobs was given (else, with a pool, one job per command) */
	char *json_written; /* if not NULL: receives the path of the JSON report (certify) */
	size_t json_written_size;
	/* qconform import: the kernel's outputs are a runner's records, not a worker's
	 * (harness/src/offline/import.h); no journal */
	struct qc_import *import;
} qc_run_opts;

/*
 * qconform export: the cases a run with these options holds, built with their data, in the
 * run's order. specs() first gets the spec files loaded (with the cases selected of each and
 * the total), then each() every case and its ordinal (its position in the unsharded run).
 * Returns 0; 2 after a spec error (printed) or no case; else what a callback returned.
 */
struct qc_spec;
struct qc_case;
typedef struct qc_run_visitor {
	int (*specs)(void *ctx, struct qc_spec *const *specs, const uint64_t *selected, int n,
	             uint64_t total);
	int (*each)(void *ctx, struct qc_case *c, uint64_t ordinal);
	void *ctx;
} qc_run_visitor;
int qc_run_each_case(const qc_run_opts *o, const qc_run_visitor *v);

/* Keep a case name under the filters? (exported for tests) */
int qc_filter_match(const char *const *filters, int n, const char *name);

/* Keep a case name under the filters and the exact names (--case) of o? */
int qc_case_selected(const qc_run_opts *o, const char *name);

/* The shard (1..n) a case belongs to under --shard K/n; parses "K/N" for main (0, or -1). */
int qc_shard_of(const char *case_name, int n);
int qc_shard_parse(const char *s, int *index, int *count);

/* The reference plugin installed with qconform (lib/qconform/), or beside it in a build tree:
 * the plugin of a command given none. Returns buf. */
const char *qc_default_reference_plugin(char *buf, size_t size);

/* The specs a command takes when given none: those installed with the running qconform
 * (share/qconform/specs), else ./specs. */
void qc_default_specs(char *buf, size_t size);

#endif
