#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
	qc_pool *pool;
	qc_runner *runner;
	pthread_t thread;
} job;

struct qc_pool {
	pthread_mutex_t mu;
	pthread_cond_t work; /* a batch was queued, or stop */
	pthread_cond_t done; /* a batch finished */
	qc_pool_batch *todo_head, *todo_tail;
	qc_pool_batch *finished; /* unordered; qc_pool_next picks by seq */
	unsigned long long next_submit, next_return;
	int stop;
	int n_jobs;    /* job threads */
	int n_runners; /* runners (one per job thread, or one run inline) */
	int inline_run;
	job *jobs;
	size_t capacity;
	atomic_int cancelled; /* qc_pool_cancel */
};

/* Copies the kernel's outputs out of the worker's arena. */
static void keep_outputs(qc_pool_batch *b, const qcf_op_call *const *staged)
{
	for (int i = 0; i < b->n; i++) {
		if (b->ex[i].outcome != QC_EXEC_OK || !staged[i])
			continue;
		for (int k = 0; k < staged[i]->n_outputs && k < QC_POOL_MAX_OUTPUTS; k++) {
			size_t n = staged[i]->outputs[k].nbytes;
			b->out[i][k] = malloc(n ? n : 1);
			if (!b->out[i][k]) {
				b->ex[i].outcome = QC_EXEC_ERROR;
				snprintf(b->ex[i].message, sizeof b->ex[i].message,
				         "harness out of memory keeping the outputs");
				break;
			}
			memcpy(b->out[i][k], staged[i]->outputs[k].data, n);
		}
	}
}

static void run_batch(qc_pool *p, qc_runner *r, qc_pool_batch *b)
{
	const qcf_op_call *staged[QC_POOL_BATCH];
	memset(staged, 0, sizeof staged);
	int rc = atomic_load(&p->cancelled) ? -2
	                                    : qc_runner_execute(r, b->calls, b->n, b->ex, staged,
	                                                        b->err, sizeof b->err);
	if (rc == -2 || atomic_load(&p->cancelled))
		b->cancelled = 1;
	else if (rc != 0)
		b->failed = 1;
	else
		keep_outputs(b, staged);
}

static void *job_main(void *arg)
{
	job *j = arg;
	qc_pool *p = j->pool;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!p->todo_head && !p->stop)
			pthread_cond_wait(&p->work, &p->mu);
		qc_pool_batch *b = p->todo_head;
		if (!b) {
			pthread_mutex_unlock(&p->mu);
			break;
		}
		p->todo_head = b->next;
		if (!p->todo_head)
			p->todo_tail = NULL;
		pthread_mutex_unlock(&p->mu);

		run_batch(p, j->runner, b);

		pthread_mutex_lock(&p->mu);
		b->next = p->finished;
		p->finished = b;
		pthread_cond_broadcast(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
	/* A worker this thread restarted dies with the thread (parent-death signal):
	 * close it here, while its destroy() can still run. */
	qc_runner_close(j->runner);
	j->runner = NULL;
	return NULL;
}

/* Stops and joins the first n_threads job threads, closes the first n_runners runners. */
static void pool_shutdown(qc_pool *p, int n_threads, int n_runners)
{
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < n_threads; i++)
		pthread_join(p->jobs[i].thread, NULL);
	for (int i = 0; i < n_runners; i++)
		if (p->jobs[i].runner) /* job threads close their own */
			qc_runner_close(p->jobs[i].runner);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p->jobs);
	free(p);
}

int qc_pool_open(const qc_runner_config *cfg, int jobs, qc_pool **out, qc_plugin_info *info,
                 char *err, size_t err_size)
{
	if (jobs < 1)
		jobs = 1;
	qc_pool *p = calloc(1, sizeof *p);
	if (!p || !(p->jobs = calloc((size_t)jobs, sizeof *p->jobs))) {
		free(p);
		snprintf(err, err_size, "out of memory");
		return -1;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	/* Every runner is opened before any job thread starts: the first load
	 * refusal stops the run with its reason. */
	for (int i = 0; i < jobs; i++) {
		p->jobs[i].pool = p;
		if (qc_runner_open(cfg, &p->jobs[i].runner, info, err, err_size) != 0) {
			pool_shutdown(p, 0, i);
			return -1;
		}
		size_t cap = qc_runner_capacity(p->jobs[i].runner);
		if (!p->capacity || cap < p->capacity)
			p->capacity = cap;
	}
	if (jobs == 1) {
		/* one worker: batches run in the caller's thread, no job thread needed (workers
		 * are spawned executables, safe to start from any thread either way) */
		p->inline_run = 1;
		p->n_jobs = 0;
		p->n_runners = 1;
		*out = p;
		return 0;
	}
	for (int i = 0; i < jobs; i++) {
		if (pthread_create(&p->jobs[i].thread, NULL, job_main, &p->jobs[i]) != 0) {
			snprintf(err, err_size, "cannot start a job thread");
			pool_shutdown(p, i, jobs);
			return -1;
		}
	}
	p->n_jobs = jobs;
	p->n_runners = jobs;
	*out = p;
	return 0;
}

void qc_pool_submit(qc_pool *p, qc_pool_batch *b)
{
	if (p->inline_run) {
		b->seq = p->next_submit++;
		b->failed = 0;
		b->cancelled = 0;
		b->err[0] = 0;
		run_batch(p, p->jobs[0].runner, b);
		b->next = p->finished;
		p->finished = b;
		return;
	}
	pthread_mutex_lock(&p->mu);
	b->seq = p->next_submit++;
	b->next = NULL;
	b->failed = 0;
	b->cancelled = 0;
	b->err[0] = 0;
	if (p->todo_tail)
		p->todo_tail->next = b;
	else
		p->todo_head = b;
	p->todo_tail = b;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

int qc_pool_in_flight(const qc_pool *p)
{
	return (int)(p->next_submit - p->next_return);
}

qc_pool_batch *qc_pool_next(qc_pool *p)
{
	if (p->next_return == p->next_submit)
		return NULL;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		for (qc_pool_batch **pp = &p->finished; *pp; pp = &(*pp)->next) {
			if ((*pp)->seq == p->next_return) {
				qc_pool_batch *b = *pp;
				*pp = b->next;
				p->next_return++;
				pthread_mutex_unlock(&p->mu);
				return b;
			}
		}
		pthread_cond_wait(&p->done, &p->mu);
	}
}

void qc_pool_batch_clear(qc_pool_batch *b)
{
	for (int i = 0; i < b->n; i++)
		for (int k = 0; k < QC_POOL_MAX_OUTPUTS; k++) {
			free(b->out[i][k]);
			b->out[i][k] = NULL;
		}
	b->n = 0;
}

size_t qc_pool_capacity(const qc_pool *p)
{
	return p->capacity;
}

void qc_pool_cancel(qc_pool *p)
{
	atomic_store(&p->cancelled, 1);
	for (int i = 0; i < p->n_runners; i++)
		if (p->jobs[i].runner)
			qc_runner_cancel(p->jobs[i].runner);
}

void qc_pool_close(qc_pool *p)
{
	if (p)
		pool_shutdown(p, p->n_jobs, p->n_runners);
}
