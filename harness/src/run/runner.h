/*
 * runner: executes op calls through a plugin in a worker process.
 *
 * The plugin is loaded, negotiated and created in a worker process, a fresh
 * process of the worker executable (qconform-worker) that the runner spawns;
 * the worker takes batches of calls and stays alive across batches. Runners
 * may be used from several threads at once (one runner per thread). A segfault or abort in the
 * worker is the verdict CRASH for the case it was running, a case running past the timeout is
 * TIMEOUT (the worker and its process group are killed); either way a fresh worker continues
 * with the rest of the batch. Through --remote, a stream that ends without the device's word
 * on the worker's end is the link's, not a verdict: the command starts again and the case in
 * flight runs again (3 times in a row at most without an answer, then the run stops). Calls
 * are copied into memory shared with the worker, so the harness's own buffers are out of the
 * kernel's reach. While a case runs, only its own call is accessible to the kernel (inputs and
 * description read-only, outputs writable, closed pages between): a write anywhere else is an ERROR
 * of the case that made it, found from the fault's address, including a write after execute
 * returned ("output changed after execute returned"). Each output starts as the caller's output
 * buffer holds it (a poison the caller chose), or a fixed pattern when the caller gives none.
 */
#ifndef QC_RUNNER_H
#define QC_RUNNER_H

#include <stdatomic.h>

#include "base/platform.h"
#include "qconform/plugin.h"

typedef struct qc_runner qc_runner;

typedef struct qc_runner_config {
	const char *plugin_path;
	const qcf_option *options; /* passed to the plugin's create() */
	int n_options;
	double timeout_s;   /* per case; <= 0: none */
	size_t arena_bytes; /* shared memory per batch; 0: default (256 MiB) */
	int trace;          /* print load steps to stderr (also QCONFORM_TRACE=1) */
	/* The worker executable. NULL: $QCONFORM_WORKER if set, else "qconform-worker"
	 * in the directory of the running executable. */
	const char *worker_path;
	int sandbox; /* the worker enters the sandbox (harness/src/run/sandbox.h) */
	const char *const *sandbox_allow; /* paths that stay writable in it */
	int n_sandbox_allow;
	size_t worker_memory; /* address space a worker may take beyond the arena; 0: no limit */
	/* --remote, worker_memory 0: the remote worker takes half its device's RAM over this many
	 * workers (the default computed where it runs); 0: no limit */
	int memory_share;
	/* --remote: each worker is `qconform-worker --stdio` started by this shell command,
	 * reached through a relay (harness/src/run/stream.h); plugin_path is then the plugin's
	 * path where that worker runs, or NULL for the one on its command line. */
	const char *remote;
	/* --remote: one added at each reconnect after the link was lost (several runners may
	 * share it); NULL: not counted */
	atomic_int *reconnects;
} qc_runner_config;

typedef struct qc_plugin_info {
	char name[128];
	char version[64];
	char threads_option[32]; /* the plugin's threads_option (ABI), or "" */
	unsigned abi_version;
	char sha256[65]; /* of the plugin file, lowercase hex */
	char path[512];
	char sandbox[160];    /* what of the sandbox is in force ("" without --sandbox) */
	int sandbox_reduced;  /* no namespace could be had: a weaker sandbox (sandbox.h) */
	size_t worker_memory; /* the worker memory limit in force, 0: none */
	/* --remote: the command ("" for a local worker); sha256 and path above are then the
	 * plugin file's where it runs, as the device reported them: nothing the harness checked */
	char remote[2048];
	/* where the worker runs, as it saw it before loading the plugin: the harness's own
	 * machine for a local worker, the device's report through --remote */
	qc_platform platform;
} qc_plugin_info;

typedef enum qc_outcome {
	QC_EXEC_OK = 0,
	QC_EXEC_NOT_SUPPORTED,
	QC_EXEC_INVALID_PARAM, /* prepare or execute returned QCF_INVALID_PARAM */
	QC_EXEC_ERROR,         /* QCF_ERROR, an unknown status, or a memory rule broken */
	QC_EXEC_CRASH,
	QC_EXEC_TIMEOUT
} qc_outcome;

typedef struct qc_exec_result {
	qc_outcome outcome;
	int signal;        /* QC_EXEC_CRASH: the signal, or 0 if the worker exited */
	char message[256]; /* plugin's last_error(), or what the runner saw */
	/* QC_EXEC_OK, but an output changed after execute returned (message says how). The
	 * outputs handed back are those execute left; the judge decides: a wrong answer stays
	 * FAIL, a right one is ERROR, since what a caller would read was not yet final. */
	int late_write;
	double seconds; /* prepare + execute wall time */
	/* QC_EXEC_OK: the engine the plugin said ran it (qcf_engine_kind, 0: not reported; an
	 * unknown value as it came) and its name, printable ASCII: the plugin's word */
	int engine;
	char engine_name[64];
	/* What a run of it in a worker that had run other cases ended in (a crash, a garbled
	 * answer), which its run alone in a fresh worker, whose outcome this is, did not: the
	 * kernel carried state between calls ("" when nothing of the kind) */
	char history[200];
} qc_exec_result;

/*
 * Starts a worker, loads the plugin in it and creates an instance. On a
 * load refusal (missing file, missing entry symbol, no common ABI version,
 * short descriptor, NULL required function, create() failing, no worker
 * executable) returns -1 with a one-line reason in err, the plugin path
 * first.
 */
int qc_runner_open(const qc_runner_config *cfg, qc_runner **out, qc_plugin_info *info, char *err,
                   size_t err_size);
/* qc_runner_open in two halves, so that several workers load their plugin at once: _start
 * returns as soon as the worker is spawned (the same refusals, but the load's own); _finish
 * waits for its load report, from the same thread (a worker dies with the thread that started
 * it), and on a refusal frees the runner: -1, or -3 when --remote's stream ended before the
 * worker answered (the link or the device, not the plugin). */
int qc_runner_open_start(const qc_runner_config *cfg, qc_runner **out, char *err, size_t err_size);
int qc_runner_open_finish(qc_runner *r, qc_plugin_info *info, char *err, size_t err_size);

/*
 * Runs calls[0..n). On return, staged[i] (if not NULL) points at a copy of
 * calls[i] whose inputs are the caller's and whose outputs[k].data hold the
 * kernel's results as they were when the case finished (or the poison, if
 * it never ran); NULL for a call the runner refused. Valid until the next
 * qc_runner_execute. Returns 0, -1 if no worker can be started at all
 * (err says why), or -2 once qc_runner_cancel was called.
 */
int qc_runner_execute(qc_runner *r, const qcf_op_call *const *calls, int n, qc_exec_result *results,
                      const qcf_op_call **staged, char *err, size_t err_size);

/* --remote: did the last qc_runner_execute return -1 because the link was lost MAX_RECONNECTS + 1
 * times in a row (its device unreachable, not its stream garbled)? The runner is then of no
 * more use; another command may still reach another device. */
int qc_runner_link_gone(const qc_runner *r);

/*
 * Stops the runner for good, from any thread or a signal handler (async-signal-safe): kills
 * the worker's process group; the qc_runner_execute running now, and every later one,
 * returns -2 without judging the cases that had not finished.
 */
void qc_runner_cancel(qc_runner *r);

void qc_runner_close(qc_runner *r);

/* Largest total bytes of one call (tensors, strings, guards) a batch can take. */
size_t qc_runner_capacity(const qc_runner *r);

#endif
