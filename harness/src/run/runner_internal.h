/*
 * runner_internal: what the files of the runner share (runner.c, runner_worker.c,
 * runner_stage.c, runner_result.c, runner_run.c): its state, the record of a staged case,
 * its limits, and the steps of a run. Not for use outside run/.
 */
#ifndef QC_RUNNER_INTERNAL_H
#define QC_RUNNER_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "run/runner.h"
#include "run/wire.h"

#define DEFAULT_ARENA ((size_t)256 << 20)
#define LOAD_WAIT_S   30.0 /* at least this long for dlopen + create when a timeout is set */
#define CLOSE_WAIT_S  5.0  /* at least this long for destroy() at close */
#define EXIT_WAIT_S   2.0  /* for a worker whose channel closed to finish dying */
#define START_TRIES   3    /* workers to try when the arena's address is taken in one */
/* --remote: the link lost this many times in a row, no case answered between, stops the run */
#define MAX_RECONNECTS 3
/* --remote: beyond a case's timeout (which the device's keeper keeps), how long the harness
 * waits for a word before it calls the link lost: this, the timeout again, and a second per
 * MiB the command carries */
#define LINK_WAIT_S      5.0
#define LINK_BYTES_PER_S ((double)(1 << 20))
#define RING_WINDOW      ((size_t)4 << 20) /* arena bytes the slots go round in, */
#define RING_BASE                                                                                  \
	((size_t)2 << 20) /* from here: a stray write far before its slot                          \
	                       still lands in the arena */
#define WORKER_NAME "qconform-worker"

/* The harness's record of one staged case. */
typedef struct staged_case {
	int index;           /* into calls[] */
	qc_case_desc d;      /* where it is in the arena (absolute offsets), as sent */
	size_t meta_len;     /* bytes of call description at d.ro_off */
	size_t shadow_off;   /* copy of the call description in r->shadow */
	qcf_op_call *result; /* handed to the caller: outputs copied out of the arena */
	uint64_t result_hash;
	int answered;       /* the worker answered it */
	int done;           /* its result is final */
	int reruns;         /* runs again after another case's fault */
	int life;           /* the worker life (r->lives) it last ran in */
	int probed;         /* it last ran alone in a command (probation) */
	int left_open;      /* its slot stayed open after its return (QC_ANS_LEFT_OPEN) */
	uint64_t open_hash; /* the worker's hash of its outputs at return */
	/* Suspect, not convicted: it runs again in a command of its own, its slot staged again
	 * first (alone), and, for what the worker process says (a death, a message out of
	 * order), as the first command of a fresh worker (fresh). What that run finds is its
	 * own; isolated says its last run was so. */
	int alone, fresh, isolated, isolated_fresh;
	int suspected; /* times it was made a suspect (bounded: MAX_RERUNS) */
	/* what a run of it in a worker that had run other cases ended in (a death, a garbled
	 * answer) before its run alone in a fresh worker, which decides (qc_exec_result) */
	char history[200];
} staged_case;

struct qc_runner {
	char *shown;            /* the plugin path as the caller gave it, for messages */
	char *path;             /* its realpath, which the worker loads */
	char *worker;           /* the worker executable (realpath) */
	char *remote;           /* --remote: the command that starts a remote worker, or NULL */
	char broken[600];       /* the relay's stream to the remote worker broke: why */
	int link_down;          /* the last start's stream ended before its worker answered */
	int link_row;           /* links lost since the last answer */
	int link_gone;          /* lost beyond MAX_RECONNECTS: broken says why */
	atomic_int *reconnects; /* qc_runner_config's, or NULL */
	qcf_option *options;
	int n_options;
	double timeout_s;
	int trace;
	int sandbox;
	char **allow; /* --sandbox-allow */
	int n_allow;
	size_t memory;         /* worker address space beyond the arena; 0: none */
	unsigned memory_share; /* --remote: the device's default over this many workers */
	qc_plugin_info info;

	unsigned char *arena;
	size_t arena_bytes;
	size_t page;
	size_t ring;          /* where the next batch's slots start (minus a page) */
	int arena_fd;         /* passed to every worker, or -1 */
	pid_t pid;            /* worker, or -1 */
	int pidfd;            /* readable once it exited, or -1 */
	int fd;               /* harness end of the channel, or -1 */
	atomic_int live_pid;  /* pid for qc_runner_cancel (a signal handler): 0 when none */
	atomic_int cancelled; /* qc_runner_cancel was called */
	double load_s;        /* how long the first load took */
	double spawned_at;    /* when the worker being started was spawned */
	int gave_up;          /* a restarted worker could not load the plugin */
	int probation;        /* the plugin wrote after execute returned: one case a command */
	int strict;           /* a command that left slots open went wrong: none is left open */
	int lives;            /* workers started */
	int cmds;             /* commands sent to the current worker */
	char gave_up_why[300];

	unsigned char *shadow;
	size_t shadow_cap;
	staged_case *cases;
	size_t cases_cap;
	void **keep; /* the calls handed back (one block each) */
	size_t n_keep, keep_cap;
};

/* A bump allocator; with base NULL it only measures. */
typedef struct bump {
	unsigned char *base;
	size_t off;
} bump;

/*
 * Copies a call: meta (the call, arrays, strings, shapes, quantization, attributes) into
 * s->meta; inputs into s->in (each followed by QC_GUARD_BYTES of pattern) or, with
 * inputs_by_ref, left pointing at the source's bytes; output k's data at out_at[k] (copied
 * from the source's buffer, or a fixed pattern when it has none). Measures only when the
 * bases are NULL.
 */
typedef struct stager {
	bump meta, in;
	int inputs_by_ref;
	unsigned char *const *out_at; /* NULL: measure */
	int n_out;
} stager;

/* Where a call goes in a slot starting at offset 0 (wire.h's picture). */
typedef struct slot_layout {
	size_t meta;     /* bytes of the call description, rounded to QC_DATA_ALIGN */
	size_t in_bytes; /* inputs and their pattern bytes */
	qc_case_desc d;  /* offsets relative to the slot */
} slot_layout;

/* runner_worker.c: the worker process */
void qc_runner_trace(const qc_runner *r, const char *fmt, ...);
const char *qc_runner_signal_name(int sig);
void qc_runner_describe_exit(int status, int *sig, char *buf, size_t size);
int qc_runner_load_wait(qc_runner *r, double timeout_s);
int qc_runner_try_spawn(qc_runner *r, char *err, size_t err_size);
int qc_runner_start_worker_from(qc_runner *r, int spawned, char *err, size_t err_size);
int qc_runner_start_worker(qc_runner *r, char *err, size_t err_size);
int qc_runner_end_worker(qc_runner *r, int kill_it);

/* runner_stage.c: a case's slot */
void qc_runner_fill_pattern(unsigned char *p, size_t n);
int qc_runner_pattern_intact(const unsigned char *p, size_t n);
int qc_runner_pattern_intact_from(const unsigned char *p, size_t n, size_t phase);
void qc_runner_default_poison(unsigned char *p, size_t n);
qcf_op_call *qc_runner_stage_call(stager *s, const qcf_op_call *src);
void qc_runner_layout_call(const qcf_op_call *c, size_t page, slot_layout *L);
const char *qc_runner_check_call(const qcf_op_call *c);
void *qc_runner_grow(void *p, size_t *cap, size_t need, size_t elem);
void qc_runner_stage_slot(qc_runner *r, const staged_case *sc, const qcf_op_call *orig);
/* The call's writable tensor k of its slot: output k, then (a chain, plugin.h version 3) its
 * intermediates, which are staged as outputs the judge never reads. */
const qcf_tensor *qc_runner_out_tensor(const qcf_op_call *c, uint32_t k);
uint32_t qc_runner_n_writable(const qcf_op_call *c);

/* runner_result.c: what a case's run comes to */
uint64_t qc_runner_hash_outputs(const qc_runner *r, const staged_case *sc);
int qc_runner_keep_result(qc_runner *r, staged_case *sc, const qcf_op_call *orig);
void qc_runner_set_result(qc_exec_result *res, qc_outcome o, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void qc_runner_mark_late(qc_exec_result *res, const char *what);
long qc_runner_apply_fault(qc_runner *r, size_t running, size_t m, const qc_fault *f,
                           const qcf_op_call *const *calls, qc_exec_result *results, int *is_late,
                           long awaited, long own, long *suspect);
int qc_runner_take_answer(qc_runner *r, staged_case *sc, const qc_answer *a,
                          const qcf_op_call *orig, qc_exec_result *res);
int qc_runner_open_cases_intact(const qc_runner *r, const size_t *list, size_t n,
                                const qcf_op_call *const *calls);

/* runner_run.c: running */
int qc_runner_worker_alive(qc_runner *r);
void qc_runner_free_kept(qc_runner *r);

#endif
