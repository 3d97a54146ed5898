/*
 * jobs: the run's job threads, one per worker.
 *
 * Enters: the run's plan, a list of units (a range of one spec's cases, with the ordinal of
 * its first selected case). Leaves: per unit, in order, one record per case of the unit that
 * the run holds: its verdict and metrics, its report text, what --dump needs.
 *
 * A job thread takes the next unit, expands its cases through its own copy of the spec (its
 * own Lua state and Lua-made nodes), computes the reference's answer, runs the kernel in its
 * own worker (runner.h), judges, and writes each case's report object. The main thread takes
 * the units back in order (qc_jobs_next) and only counts, orders and writes: reports are the
 * same whatever the number of jobs. At most a window of units is taken and not yet handed
 * back, so memory does not grow with the number of cases.
 */
#ifndef QC_JOBS_H
#define QC_JOBS_H

#include <stdatomic.h>
#include <stdint.h>

#include "cases/cases.h"
#include "judge/compare.h"
#include "judge/waivers.h"
#include "pipeline/journal.h"
#include "report/report.h"
#include "run/run.h"
#include "run/runner.h"

/* A range [first, end) of the cases of spec `spec`; `ordinal` is the ordinal (position in the
 * unsharded run) of its first case that the run holds. `held`, when the plan knows it without
 * the cases: 2 bits per case of the spec, case idx at bits 2 (idx % 4) of held[idx / 4], bit 0
 * set when the filters select it, bit 1 when the shard holds it too (cases neither selected
 * nor held are skipped unnamed). */
typedef struct qc_job_unit {
	uint32_t spec;
	uint64_t first, end;
	uint64_t ordinal;
	const uint8_t *held;
} qc_job_unit;

#define QC_HELD_SELECTED 1
#define QC_HELD_IN_SHARD 2
/* The held code of case idx: QC_HELD_* bits. */
#define QC_HELD_CODE(held, idx) ((held)[(idx) / 4] >> (2 * ((idx) % 4)) & 3)

/* One case of a unit, as the main thread needs it. */
typedef struct qc_job_case {
	qc_case *c;     /* the case without its data: name, spec (the run's), op, outputs' names,
	                   extension; the whole case (its copy's) when `full` */
	int full;       /* --dump, the diagnosis: c, e and kout are the case's own */
	qc_expected *e; /* with full */
	void *kout[QC_MAX_TENSORS];     /* with full: the kernel's outputs, or NULL */
	qc_result r;                    /* judged */
	const qc_journal_entry *replay; /* --resume: judged before (r, text unused) */
	char *text;                     /* the report's case object */
	size_t len;
	char *stats; /* with the plan's journal: its line's start (qc_journal_stats_text) */
	size_t stats_len;
	int spec_error; /* a value error found while expanding */
	uint64_t ordinal;
	struct qc_spec_ref *ref; /* with full: keeps the spec copy */
	int board;               /* the pool's board that ran it (qc_pool), or -1 */
} qc_job_case;

typedef struct qc_jobs_plan {
	qc_spec **specs; /* the run's specs: read only while the jobs run */
	int n_specs;
	const qc_job_unit *units;
	size_t n_units;
	uint64_t seed;
	/* Does the run hold the case named `name`? With need_case, the built case c is given too
	 * (its --profile class); without, c is NULL and a case that fails is never built. */
	int (*selected)(void *ctx, const char *name, qc_case *c);
	/* Is the case, which the run holds, in this shard? */
	int (*in_shard)(void *ctx, const char *name);
	int need_case;
	void *ctx;
	qc_json *json;                 /* writes the case objects (read only: the run's meta) */
	const qc_journal_data *resume; /* --resume: the journal read, or NULL */
	const qc_waivers *waivers;     /* --waivers, or NULL */
	int keep_failing;              /* --dump: keep the data of cases that do not conform */
	int keep_judged; /* the diagnosis: keep the data of every case with outputs (FAIL, PASS) */
	int journal;     /* the run keeps a journal: each case's stats text too */
	/* --repeat K (> 1): every case whose execute returned QCF_OK runs K times, the later runs
	 * with other thread counts when the plugin declares a threads option (qc_repeat_threads,
	 * run/run.h); a difference in the outputs' bits, or in the outcome, is NONDETERMINISTIC */
	int repeat;
} qc_jobs_plan;

typedef struct qc_jobs qc_jobs;

/* --remote: one board of the pool, a command and the jobs whose workers it starts. */
typedef struct qc_board {
	char *command;         /* as given, its {job} replaced by the first such job's number */
	int n_jobs;            /* jobs whose workers it starts */
	atomic_int reconnects; /* its links lost and its command started again */
	/* Its link lost beyond the reconnect bound (qc_runner_link_gone): out of the pool, its
	 * jobs stopped, their cases gone to the other boards; why says what was lost. */
	atomic_int dead;
	char why[512];
	uint64_t cases; /* the caller's count of the cases it judged (qc_job_case.board) */
} qc_board;

/* The boards of a run and which board each job uses. */
typedef struct qc_pool {
	qc_board *boards;
	int n_boards;
	int *job_board; /* per job */
	int n_jobs;
} qc_pool;

/* The pool of commands[0..n) for `jobs` jobs: job j (0-based) starts its workers with command
 * j % n, "{job}" in it replaced by j; jobs whose commands are then the same share a board.
 * 0, or -1 and err when jobs < n (a board would get no worker). */
int qc_pool_make(qc_pool *p, const char *const *commands, int n, int jobs, char *err,
                 size_t err_size);
void qc_pool_free(qc_pool *p);

/*
 * Where the kernel's outputs come from instead of workers (qconform import): execute() answers
 * as qc_runner_execute does for the cases (their calls built, outputs poisoned), into the job
 * thread's own *state (NULL at first; free_state frees it when the job ends): 0, or -1 and
 * err (the run stops, exit 2). Called from every job thread at once.
 */
/* What a source's record says of chain case i of its last execute (QC_CHAIN_* mode 0: nothing;
 * op by op: the nodes that returned QCF_OK and the kernel's intermediates, NULL where none). */
typedef struct qc_source_chain {
	int mode, nodes_ok;
	const void *mid[QC_MAX_TENSORS];
} qc_source_chain;

typedef struct qc_jobs_source {
	int (*execute)(void *ctx, void **state, qc_case *const *cases, int n,
	               qc_exec_result *results, const qcf_op_call **staged, char *err,
	               size_t err_size);
	void (*free_state)(void *ctx, void *state);
	void *ctx;
	/* optional: a chain case's record, valid until the next execute */
	void (*chain)(void *ctx, void *state, int i, qc_source_chain *out);
} qc_jobs_source;

/* Opens `jobs` (>= 1) workers; no thread runs yet. On a plugin load refusal: -1 and a one-line
 * reason. With a pool (--remote, pool->n_jobs == jobs; it must outlive the jobs), each job's
 * worker is started by its board's command, and a board whose link is lost beyond the
 * reconnect bound leaves the pool: the units its jobs held go on in the other boards' jobs
 * from their first case not judged (no case is judged twice); when no board is left, those
 * units fail as a broken stream does. The boards must describe the same device (plugin,
 * machine), else -1. */
int qc_jobs_open(const qc_runner_config *cfg, qc_pool *pool, int jobs, qc_jobs **out,
                 qc_plugin_info *info, char *err, size_t err_size);
/* The same with `jobs` job threads whose outputs come from src (which must outlive the jobs). */
int qc_jobs_open_source(const qc_jobs_source *src, int jobs, qc_jobs **out);
/* Starts the job threads on the plan (which must outlive qc_jobs_close). -1 and err if a thread
 * cannot start. Call with the stop signals blocked: the threads inherit the mask. */
int qc_jobs_start(qc_jobs *J, const qc_jobs_plan *plan, char *err, size_t err_size);

/* The next unit's cases, in order (blocks until it is done). Returns the number of cases
 * (*cases valid until qc_jobs_release), or -1 when every unit was handed back. *diag: what
 * expanding the unit reported (file:line:col lines, or ""); *failed: the run cannot go on,
 * *err says why (no worker could run the unit, the spec's Lua budget ran out); *cancelled: a
 * cancel stopped it. Either way the cases given were judged before. */
int qc_jobs_next(qc_jobs *J, qc_job_case **cases, const char **diag, const char **err, int *failed,
                 int *cancelled);
/* Frees what qc_jobs_next gave (a full case's data included) and lets the threads go on. */
void qc_jobs_release(qc_jobs *J);

/* Async-signal-safe: kills every worker; the units not yet done come back cancelled. */
void qc_jobs_cancel(qc_jobs *J);
/* Stops and joins the threads, closes the workers. */
void qc_jobs_close(qc_jobs *J);

/* Frees what a job case holds (its case, full data, text). */
void qc_job_case_clear(qc_job_case *jc);

#endif
