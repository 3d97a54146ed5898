/*
 * pool: runs batches of op calls on `jobs` workers at once, and hands them
 * back in submission order.
 *
 * Each job is a thread that owns one runner (one worker process). The
 * caller prepares a batch (cases and their expected outputs) while the
 * workers execute earlier ones; kernel outputs are copied out of the shared
 * arena into the batch, so a batch stays valid after its worker moves on.
 */
#ifndef QC_POOL_H
#define QC_POOL_H

#include "runner.h"

#define QC_POOL_BATCH       64
#define QC_POOL_MAX_OUTPUTS 8

typedef struct qc_pool qc_pool;

typedef struct qc_pool_batch {
	int n;
	const qcf_op_call *calls[QC_POOL_BATCH]; /* owned by the caller until the batch returns */
	qc_exec_result ex[QC_POOL_BATCH];
	void *out[QC_POOL_BATCH]
	         [QC_POOL_MAX_OUTPUTS]; /* kernel output data (malloc'd), when ex is OK */
	int failed;                     /* no worker could run the batch */
	int cancelled;                  /* qc_pool_cancel came first: ignore the batch's results */
	char err[512];
	/* private to the pool */
	unsigned long long seq;
	struct qc_pool_batch *next;
} qc_pool_batch;

/* Starts `jobs` (>= 1) workers. On a plugin load refusal: -1 and a one-line reason. */
int qc_pool_open(const qc_runner_config *cfg, int jobs, qc_pool **out, qc_plugin_info *info,
                 char *err, size_t err_size);
/* Queues a batch; never blocks. */
void qc_pool_submit(qc_pool *p, qc_pool_batch *b);
/* Batches submitted and not yet returned by qc_pool_next. */
int qc_pool_in_flight(const qc_pool *p);
/* The oldest submitted batch, once done (blocks); NULL when none is in flight. */
qc_pool_batch *qc_pool_next(qc_pool *p);
/* Frees the kernel outputs of a returned batch. */
void qc_pool_batch_clear(qc_pool_batch *b);
/* Largest call (bytes) a worker's arena takes. */
size_t qc_pool_capacity(const qc_pool *p);
/*
 * Async-signal-safe: kills every worker and makes every batch not yet returned come back
 * with cancelled set (its results are not to be judged). Later submissions come back
 * cancelled too. qc_pool_next and qc_pool_close still work (and no longer wait for cases).
 */
void qc_pool_cancel(qc_pool *p);
/* Stops the workers (waits for queued batches to finish first). Not to be called while a
 * signal handler may call qc_pool_cancel. */
void qc_pool_close(qc_pool *p);

#endif
