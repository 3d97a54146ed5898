#include "pipeline/jobs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cases/expected.h"
#include "judge/locate.h"
#include "run/poison.h"
#include "spec/slua.h"

#define BATCH_CASES 64
#define BATCH_BYTES ((size_t)64 << 20)

/* A thread's copy of a spec; a case kept for --dump holds it too. */
typedef struct qc_spec_ref {
	qc_spec *s;
	atomic_int refs;
} qc_spec_ref;

static void ref_release(qc_spec_ref *r)
{
	if (r && atomic_fetch_sub(&r->refs, 1) == 1) {
		qc_spec_free(r->s);
		free(r);
	}
}

typedef struct unit_out {
	qc_job_case *cases;
	int n, cap;
	char *diag; /* what expanding the unit reported */
	size_t diag_len;
	int failed, cancelled, done;
	char err[512];
	/* Its job's board left the pool (lost): the cases from the keep-th on were dropped, and it
	 * goes on in another job (resumed) from case resume_idx, whose ordinal is resume_ord. */
	int lost, resumed, keep;
	uint64_t resume_idx, resume_ord;
	size_t bytes; /* what its cases hold, once done (unit_bytes) */
} unit_out;

/* Units taken and not yet handed back, at most: enough that a slow unit (an edge spec's,
 * 0.15 s where most take a few ms) does not leave the other jobs waiting on it (each unit
 * holds the report text of at most 32 cases). */
#define WINDOW_UNITS(jobs) (64 * (size_t)(jobs) + 64)

/* What the units done and not yet handed back may hold, at most, before the jobs stop taking
 * units ahead: the window is counted in units, and a main thread that lags (a report's reader
 * that does not read, a loaded machine) let them fill all of it, 57 MB over a 4800-case run's
 * own for cases of 1000 elements, and without bound in bytes for units of large cases kept
 * whole (--dump, the diagnosis). The first `jobs` units past the last handed back are taken
 * whatever it is. 8 MB: at 2 MB the jobs waited often enough on a main thread writing the
 * report to cost 10 % of cases/s at --jobs 2 (make bench-baseline); at 8 MB and more, noise. */
#define HELD_BYTES ((size_t)8 << 20)

typedef struct job {
	qc_jobs *J;
	qc_runner *runner;
	pthread_t thread;
	uint32_t spec; /* the spec of `copy` */
	qc_spec_ref *copy;
	void *src_state; /* with a source: the job's own state */
	int board;       /* its board in the pool, or -1 */
	/* --repeat with the plugin's threads option: a worker per thread count, opened when first
	 * needed (rep_failed: it could not be, why in rep_err) */
	qc_runner *rep[QC_REPEAT_VARIANTS];
	int rep_failed[QC_REPEAT_VARIANTS];
	char rep_err[256];
} job;

struct qc_jobs {
	pthread_mutex_t mu;
	pthread_cond_t taken; /* the main thread handed a unit back, or stop */
	pthread_cond_t done;  /* a unit is done */
	const qc_jobs_plan *plan;
	qc_lua_share *shares; /* per spec: the budgets its copies share */
	job *jobs;
	int n_jobs, n_threads;
	unsigned
	        abi; /* the plugin's negotiated ABI version: 3 and later are offered chains fused */
	size_t capacity;
	size_t window;   /* units taken and not yet handed back, at most */
	unit_out *outs;  /* ring of `window` slots: unit u in outs[u % window] */
	size_t next;     /* the next unit a thread takes */
	size_t returned; /* units handed back (released) */
	size_t held;     /* bytes the units done and not handed back hold (HELD_BYTES) */
	int holding;     /* qc_jobs_next gave a unit not yet released */
	int stop;
	atomic_int cancelled;
	const qc_jobs_source *source; /* import: outputs from here, no workers */
	qc_pool *pool;                /* --remote: the boards, or NULL */
	size_t *orphans;              /* units whose board left the pool, to go on elsewhere */
	size_t n_orphans, cap_orphans;
	int running; /* units a thread is running (or is to start first): one may yet be lost */
	int n_first; /* jobs [0, n_first) start with unit number their own */
	qc_runner_config cfg;    /* what opened the workers: --repeat opens more like them */
	char threads_option[32]; /* the plugin's, or "" */
};

int qc_pool_make(qc_pool *p, const char *const *commands, int n, int jobs, char *err,
                 size_t err_size)
{
	memset(p, 0, sizeof *p);
	if (jobs < n) {
		snprintf(err, err_size,
		         "--jobs %d: %d --remote commands need at least as many jobs (each board a "
		         "worker of its own)",
		         jobs, n);
		return -1;
	}
	p->boards = qc_xcalloc((size_t)jobs, sizeof *p->boards);
	p->job_board = qc_xcalloc((size_t)jobs, sizeof *p->job_board);
	p->n_jobs = jobs;
	for (int j = 0; j < jobs; j++) {
		/* {job}: the job's number, 0-based */
		const char *c = commands[j % n];
		char num[16];
		snprintf(num, sizeof num, "%d", j);
		size_t len = 0;
		for (const char *q = c; *q;)
			if (!strncmp(q, "{job}", 5)) {
				len += strlen(num);
				q += 5;
			} else {
				len++;
				q++;
			}
		char *cmd = qc_xcalloc(len + 1, 1), *w = cmd;
		for (const char *q = c; *q;)
			if (!strncmp(q, "{job}", 5)) {
				w += sprintf(w, "%s", num);
				q += 5;
			} else {
				*w++ = *q++;
			}
		int b = 0;
		while (b < p->n_boards && strcmp(p->boards[b].command, cmd) != 0)
			b++;
		if (b == p->n_boards) {
			p->boards[b].command = cmd;
			p->n_boards++;
		} else {
			free(cmd);
		}
		p->boards[b].n_jobs++;
		p->job_board[j] = b;
	}
	return 0;
}

void qc_pool_free(qc_pool *p)
{
	for (int b = 0; b < p->n_boards; b++)
		free(p->boards[b].command);
	free(p->boards);
	free(p->job_board);
	memset(p, 0, sizeof *p);
}

/* Boards that report different devices (plugin, machine) in one pool, the jobs that loaded
 * compared with job `first`: "" when they agree. */
static void pool_differs(const qc_pool *pool, const qc_plugin_info *infos, int jobs, int first,
                         char *err, size_t err_size)
{
	err[0] = '\0';
	for (int k = first + 1; pool && k < jobs; k++) {
		if (atomic_load(&pool->boards[pool->job_board[k]].dead))
			continue; /* never loaded */
		const qc_plugin_info *a = &infos[first], *b = &infos[k];
		const char *what = strcmp(a->sha256, b->sha256)     ? "plugin sha256"
		                   : strcmp(a->name, b->name)       ? "plugin name"
		                   : strcmp(a->version, b->version) ? "plugin version"
		                   : strcmp(a->platform.machine, b->platform.machine) ? "machine"
		                                                                      : NULL;
		if (what) {
			snprintf(err, err_size,
			         "the --remote pool mixes devices: `%.150s` and `%.150s` report "
			         "another %s: a pool is of boards of one kind",
			         pool->boards[pool->job_board[first]].command,
			         pool->boards[pool->job_board[k]].command, what);
			return;
		}
	}
}

int qc_jobs_open(const qc_runner_config *cfg, qc_pool *pool, int jobs, qc_jobs **out,
                 qc_plugin_info *info, char *err, size_t err_size)
{
	if (jobs < 1)
		jobs = 1;
	if (pool && pool->n_jobs != jobs) {
		snprintf(err, err_size, "a pool of %d jobs for %d jobs", pool->n_jobs, jobs);
		return -1;
	}
	qc_jobs *J = qc_xcalloc(1, sizeof *J);
	J->jobs = qc_xcalloc((size_t)jobs, sizeof *J->jobs);
	J->pool = pool;
	qc_plugin_info *infos = qc_xcalloc((size_t)jobs, sizeof *infos);
	/* every worker is started before anything runs, all loading at once: the first load
	 * refusal stops the run */
	int started = 0, ready = 0, failed = 0;
	for (; started < jobs; started++) {
		J->jobs[started].J = J;
		J->jobs[started].board = -1;
		qc_runner_config c = *cfg;
		if (pool) {
			qc_board *b = &pool->boards[pool->job_board[started]];
			J->jobs[started].board = pool->job_board[started];
			c.remote = b->command;
			c.reconnects = &b->reconnects;
			if (c.memory_share) /* the board's RAM over the workers it runs */
				c.memory_share = b->n_jobs > 0 ? b->n_jobs : 1;
		}
		if (qc_runner_open_start(&c, &J->jobs[started].runner, err, err_size) != 0) {
			failed = 1;
			break;
		}
	}
	int alive = -1; /* the first job that loaded, or -1 */
	for (; !failed && ready < started; ready++) {
		int rc = qc_runner_open_finish(J->jobs[ready].runner, &infos[ready], err, err_size);
		if (rc == -3 && pool && pool->n_boards > 1) {
			/* a board of a pool out of reach from the start: dead, its units go to
			 * the others as they would later */
			qc_board *b = &pool->boards[pool->job_board[ready]];
			J->jobs[ready].runner = NULL; /* freed */
			if (!atomic_load(&b->dead)) {
				snprintf(b->why, sizeof b->why, "%s", err);
				atomic_store(&b->dead, 1);
			}
			continue;
		}
		if (rc != 0) {
			J->jobs[ready].runner = NULL; /* freed */
			failed = 1;
			break;
		}
		if (alive < 0)
			alive = ready;
		size_t cap = qc_runner_capacity(J->jobs[ready].runner);
		if (!J->capacity || cap < J->capacity)
			J->capacity = cap;
	}
	if (!failed && alive < 0) {
		/* no board answered: err is the last one's */
		failed = 1;
	} else if (!failed) {
		pool_differs(pool, infos, jobs, alive, err, err_size);
		failed = err[0] != '\0';
	}
	if (failed) {
		for (int k = 0; k < started; k++) {
			if (!J->jobs[k].runner)
				continue;
			if (k >= ready)
				qc_runner_cancel(J->jobs[k].runner); /* still loading: killed */
			qc_runner_close(J->jobs[k].runner);
		}
		free(infos);
		free(J->jobs);
		free(J);
		return -1;
	}
	*info = infos[alive];
	free(infos);
	J->abi = info->abi_version;
	J->cfg = *cfg;
	snprintf(J->threads_option, sizeof J->threads_option, "%s", info->threads_option);
	J->n_jobs = jobs;
	J->window = WINDOW_UNITS(jobs);
	J->outs = qc_xcalloc(J->window, sizeof *J->outs);
	pthread_mutex_init(&J->mu, NULL);
	pthread_cond_init(&J->taken, NULL);
	pthread_cond_init(&J->done, NULL);
	*out = J;
	return 0;
}

int qc_jobs_open_source(const qc_jobs_source *src, int jobs, qc_jobs **out)
{
	if (jobs < 1)
		jobs = 1;
	qc_jobs *J = qc_xcalloc(1, sizeof *J);
	J->jobs = qc_xcalloc((size_t)jobs, sizeof *J->jobs);
	for (int i = 0; i < jobs; i++)
		J->jobs[i].J = J;
	J->source = src;
	J->capacity = SIZE_MAX;
	J->n_jobs = jobs;
	J->window = WINDOW_UNITS(jobs);
	J->outs = qc_xcalloc(J->window, sizeof *J->outs);
	pthread_mutex_init(&J->mu, NULL);
	pthread_cond_init(&J->taken, NULL);
	pthread_cond_init(&J->done, NULL);
	*out = J;
	return 0;
}

/* ---- one case ---- */

static qc_job_case *new_case(unit_out *u)
{
	QC_GROW(u->cases, u->n, u->cap, 16);
	qc_job_case *jc = &u->cases[u->n++];
	memset(jc, 0, sizeof *jc);
	jc->board = -1;
	return jc;
}

/* What the main thread needs of a case, pointing into the run's own spec (which outlives the
 * thread's copy): name, params, op, tensors' names, extension. Without c (a case that cannot
 * be built), what the spec alone says. */
static qc_case *slim_case(const qc_spec *run_spec, const qc_case *c, const char *name)
{
	qc_case *s = qc_xcalloc(1, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", c ? c->name : name);
	if (c)
		memcpy(s->params, c->params, sizeof s->params);
	s->spec = run_spec;
	s->seed = c ? c->seed : 0;
	s->expect_error = c && c->expect_error;
	s->extension = c ? c->extension : NULL;
	s->call.struct_size = sizeof s->call;
	s->call.op = run_spec->op;
	s->call.semantics = run_spec->semantics;
	s->call.n_inputs = c ? c->call.n_inputs : run_spec->n_inputs;
	s->call.n_outputs = c ? c->call.n_outputs : run_spec->n_outputs;
	s->call.inputs = s->in;
	s->call.outputs = s->out;
	for (int k = 0; k < s->call.n_outputs && k < run_spec->n_outputs; k++) {
		s->out[k].name = run_spec->outputs[k].name;
		s->out[k].dtype = c ? c->out[k].dtype : QCF_INT8;
	}
	for (int k = 0; k < s->call.n_inputs && k < run_spec->n_inputs; k++) {
		s->in[k].name = run_spec->inputs[k].name;
		s->in[k].dtype = c ? c->in[k].dtype : QCF_INT8;
	}
	return s;
}

/* tolerance: {check: {lua: ...}}: the spec's own function over each output's errors, in the
 * thread's copy of the spec (its own Lua state). */
static void custom_check(const qc_case *c, const qc_expected *e, const qcf_tensor *kout,
                         qc_result *r)
{
	qc_spec *s = (qc_spec *)c->spec;
	char err[512] = "", why[256] = "";
	qc_lua *L = qc_spec_lua(s, err, sizeof err);
	if (!L) {
		r->verdict = QC_ERROR;
		snprintf(r->message, sizeof r->message, "custom check: cannot start Lua: %s", err);
		return;
	}
	for (int k = 0; k < c->call.n_outputs; k++) {
		int ok;
		yaml_node_t at;
		if (qc_expected_check(L, c, e, k, &kout[k], &ok, why, sizeof why, err, sizeof err,
		                      &at) != 0) {
			r->verdict = QC_ERROR;
			snprintf(r->message, sizeof r->message, "custom check: %s:%zu: Lua: %s",
			         s->path, at.start_mark.line + 1, err);
			return;
		}
		if (!ok) {
			r->verdict = QC_FAIL;
			snprintf(r->message, sizeof r->message, "output '%s': custom check: %s",
			         c->out[k].name, why);
			return;
		}
	}
}

/* The report's case object of jc (judged): the waiver that accepts it goes into the text. */
static void case_text(const qc_jobs_plan *p, qc_job_case *jc, const qc_case *c)
{
	const qc_waiver *w =
	        qc_verdict_conforms(jc->r.verdict) ? NULL : qc_waivers_find(p->waivers, c->name);
	jc->text = qc_json_case_text_on(p->json, c, &jc->r, jc->ordinal, w ? w->reason : NULL,
	                                jc->board, &jc->len);
	if (p->journal)
		jc->stats = qc_journal_stats_text(&jc->r, &jc->stats_len);
}

/* ---- a batch of cases through the worker ---- */

typedef struct batch {
	int n;
	size_t bytes;
	qc_case *cases[BATCH_CASES];
	qc_expected *expected[BATCH_CASES];
	int slot[BATCH_CASES];     /* the case's record: an index, the records move as they grow */
	uint64_t idx[BATCH_CASES]; /* the case's index in its spec */
} batch;

static size_t case_bytes(const qc_case *c)
{
	size_t n = 0;
	for (int i = 0; i < c->call.n_inputs; i++)
		n += c->in[i].nbytes;
	for (int i = 0; i < c->call.n_outputs; i++)
		n += c->out[i].nbytes;
	return n;
}

static void batch_drop(batch *b)
{
	for (int i = 0; i < b->n; i++) {
		qc_expected_free(b->expected[i], b->cases[i]->call.n_outputs);
		qc_case_free(b->cases[i]);
	}
	b->n = 0;
	b->bytes = 0;
}

/* The job's board left the pool (its own link or another job's on it). */
static int board_dead(const job *j)
{
	return j->J->pool && atomic_load(&j->J->pool->boards[j->board].dead);
}

/* ---- --repeat ---- */

/* What the later runs of a batch's case found: run 0 when they all agreed with the first. */
typedef struct rep_finding {
	int run;            /* the run (2..K) that differed */
	qc_verdict verdict; /* NONDETERMINISTIC, or that run's CRASH, TIMEOUT or ERROR */
	char message[320];
} rep_finding;

/* The worker of variant v (a thread count) of job j: opened on first use, with the run's
 * options and the plugin's threads option set to the count. NULL when it cannot be. */
static qc_runner *rep_runner(job *j, int v)
{
	qc_jobs *J = j->J;
	if (j->rep[v] || j->rep_failed[v])
		return j->rep[v];
	qc_runner_config c = J->cfg;
	qcf_option *opts = qc_xcalloc((size_t)c.n_options + 1, sizeof *opts);
	int n = 0;
	for (int i = 0; i < c.n_options; i++)
		if (strcmp(c.options[i].key, J->threads_option) != 0)
			opts[n++] = c.options[i];
	char count[16];
	snprintf(count, sizeof count, "%d", qc_repeat_threads(v + 2));
	opts[n++] = (qcf_option){J->threads_option, count};
	c.options = opts;
	c.n_options = n;
	if (J->pool) {
		qc_board *b = &J->pool->boards[j->board];
		c.remote = b->command;
		c.reconnects = &b->reconnects;
	}
	qc_plugin_info info;
	if (qc_runner_open(&c, &j->rep[v], &info, j->rep_err, sizeof j->rep_err) != 0) {
		j->rep[v] = NULL;
		j->rep_failed[v] = 1;
	}
	free(opts); /* create() has had them */
	return j->rep[v];
}

/* ---- a chain, op by op ---- */

/*
 * A plugin offered a chain's nodes one at a time (one that does not speak chains): node k
 * runs through the plugin's ordinary call in the job's worker, on the graph's inputs and the
 * kernel's own outputs of the nodes before it (never the reference's), each output poisoned
 * as a single call's is; the graph's outputs are judged. The kernel's values of every tensor
 * the nodes write are kept here, in the job's memory (a staged call's is the runner's only
 * until its next batch).
 */
typedef struct chain_run {
	qcf_op_call staged; /* what the judging reads: the graph's outputs, the kernel's values */
	qcf_tensor out[QC_MAX_TENSORS];
	unsigned char *mid[QC_MAX_TENSORS], *gout[QC_MAX_TENSORS];
	int nodes_ok; /* nodes that returned QCF_OK */
} chain_run;

/* The buffer of the case's tensor called name (an input, an intermediate or an output), and
 * the reference's answer for it (NULL for an input). */
static void *chain_buffer(const qc_case *c, const qc_expected *e, chain_run *cr, const char *name,
                          qcf_tensor *ref)
{
	for (int i = 0; i < c->call.n_inputs; i++)
		if (!strcmp(c->in[i].name, name))
			return c->in[i].data;
	for (int i = 0; i < c->n_mid; i++)
		if (!strcmp(c->mid[i].name, name)) {
			*ref = c->mid[i];
			ref->data = e->status == QCF_OK ? e->mid[i] : NULL;
			return cr->mid[i];
		}
	for (int i = 0; i < c->call.n_outputs; i++)
		if (!strcmp(c->out[i].name, name)) {
			*ref = e->out[i];
			if (e->status != QCF_OK)
				ref->data = NULL;
			return cr->gout[i];
		}
	return NULL;
}

static void chain_run_free(chain_run *cr)
{
	for (int i = 0; i < QC_MAX_TENSORS; i++) {
		free(cr->mid[i]);
		free(cr->gout[i]);
	}
	memset(cr, 0, sizeof *cr);
}

/* Runs case c's nodes in turn in R's worker: *ex is the first node's outcome that is not QCF_OK
 * (its message names the node), else the last node's, with the seconds of all. 0, or the runner's
 * code (-1, -2) when it cannot go on. */
static int chain_opbyop(qc_runner *R, const qc_case *c, const qc_expected *e, chain_run *cr,
                        qc_exec_result *ex, char *err, size_t err_size)
{
	memset(cr, 0, sizeof *cr);
	for (int i = 0; i < c->n_mid; i++)
		cr->mid[i] = qc_xcalloc(c->mid[i].nbytes ? c->mid[i].nbytes : 1, 1);
	for (int i = 0; i < c->call.n_outputs; i++) {
		cr->gout[i] = qc_xcalloc(c->out[i].nbytes ? c->out[i].nbytes : 1, 1);
		memcpy(cr->gout[i], c->out[i].data, c->out[i].nbytes); /* the poison */
	}
	double seconds = 0;
	memset(ex, 0, sizeof *ex);
	for (int k = 0; k < c->n_nodes; k++) {
		const qcf_op_call *nd = &c->nodes[k];
		qcf_tensor in[QC_MAX_TENSORS], out[QC_MAX_TENSORS], ref;
		qcf_op_call call = *nd;
		for (int i = 0; i < nd->n_inputs; i++) {
			in[i] = nd->inputs[i];
			in[i].data = chain_buffer(c, e, cr, in[i].name, &ref);
		}
		for (int i = 0; i < nd->n_outputs; i++) {
			out[i] = nd->outputs[i];
			memset(&ref, 0, sizeof ref);
			out[i].data = chain_buffer(c, e, cr, out[i].name, &ref);
			qc_poison_fill(&out[i], ref.data ? &ref : NULL);
		}
		call.inputs = in;
		call.outputs = out;
		call.chain = NULL;
		const qcf_op_call *calls[1] = {&call}, *staged[1] = {NULL};
		qc_exec_result ek;
		int rc = qc_runner_execute(R, calls, 1, &ek, staged, err, err_size);
		if (rc != 0)
			return rc;
		seconds += ek.seconds;
		char msg[sizeof ek.message];
		snprintf(msg, sizeof msg, "%s", ek.message);
		*ex = ek;
		if (ek.outcome != QC_EXEC_OK || !staged[0]) {
			snprintf(ex->message, sizeof ex->message, "op by op, node %d (%s): %s",
			         k + 1, nd->op, msg);
			break;
		}
		for (int i = 0; i < nd->n_outputs; i++)
			memcpy(out[i].data, staged[0]->outputs[i].data, out[i].nbytes);
		if (ek.late_write)
			snprintf(ex->message, sizeof ex->message, "node %d (%s): %s", k + 1, nd->op,
			         msg);
		cr->nodes_ok = k + 1;
	}
	ex->seconds = seconds;
	cr->staged = c->call;
	cr->staged.chain = NULL;
	cr->staged.outputs = cr->out;
	for (int i = 0; i < c->call.n_outputs; i++) {
		cr->out[i] = c->out[i];
		cr->out[i].data = cr->gout[i];
	}
	return 0;
}

/* An import's op by op record as a run of chain_opbyop: the kernel's intermediates and graph
 * outputs (staged: NULL when the last node did not return QCF_OK), the nodes that did. */
static void chain_from_source(const qc_case *c, const qc_source_chain *sc,
                              const qcf_op_call *staged, chain_run *cr)
{
	memset(cr, 0, sizeof *cr);
	for (int i = 0; i < c->n_mid; i++)
		if (sc->mid[i]) {
			cr->mid[i] = qc_xcalloc(c->mid[i].nbytes ? c->mid[i].nbytes : 1, 1);
			memcpy(cr->mid[i], sc->mid[i], c->mid[i].nbytes);
		}
	for (int i = 0; staged && i < c->call.n_outputs; i++) {
		cr->gout[i] = qc_xcalloc(c->out[i].nbytes ? c->out[i].nbytes : 1, 1);
		memcpy(cr->gout[i], staged->outputs[i].data, c->out[i].nbytes);
	}
	cr->nodes_ok = sc->nodes_ok;
}

/* Op by op, the first node (from 1) whose outputs differ, bit for bit, from the reference's
 * intermediates (the graph's outputs for the last): where the kernel went wrong. 0: none. */
static int chain_first_differing(const qc_case *c, const qc_expected *e, chain_run *cr)
{
	if (e->status != QCF_OK)
		return 0;
	for (int k = 0; k < cr->nodes_ok; k++)
		for (int i = 0; i < c->nodes[k].n_outputs; i++) {
			qcf_tensor ref;
			memset(&ref, 0, sizeof ref);
			const void *got = chain_buffer(c, e, cr, c->nodes[k].outputs[i].name, &ref);
			if (got && ref.data && memcmp(got, ref.data, ref.nbytes) != 0)
				return k + 1;
		}
	return 0;
}

/* The element a byte of a tensor of type t belongs to (a GGML block's first). */
static uint64_t element_at(qcf_dtype t, size_t byte)
{
	size_t block = qcf_ggml_block_elements(t);
	if (block)
		return (uint64_t)(byte / qcf_ggml_block_bytes(t) * block);
	size_t eight = qcf_dtype_nbytes(t, 8);
	return eight ? (uint64_t)byte * 8 / eight : (uint64_t)byte;
}

/* The verdict a later run's outcome gives a case whose first run returned QCF_OK. */
static qc_verdict later_outcome(qc_outcome o)
{
	switch (o) {
	case QC_EXEC_CRASH: return QC_CRASH;
	case QC_EXEC_TIMEOUT: return QC_TIMEOUT;
	case QC_EXEC_ERROR: return QC_ERROR;
	default: return QC_NONDETERMINISTIC; /* it refused what it computed before */
	}
}

/* Run r ended in `what` (a crash, say) in a worker that had run other cases, and returned
 * QCF_OK alone in a fresh one: the kernel carries state from call to call. */
static void history_finding(rep_finding *x, int r, int K, const char *how, const char *what)
{
	x->run = r;
	x->verdict = QC_NONDETERMINISTIC;
	snprintf(x->message, sizeof x->message,
	         "run %d of %d%s: %s in a worker that had run other cases; alone in a fresh "
	         "worker it returned QCF_OK",
	         r, K, how, what);
}

/* Run r's outputs (again) against the first run's (first, first_n): the first differing
 * byte into x. */
static void compare_run(rep_finding *x, int r, int K, const char *how, const qcf_op_call *call,
                        unsigned char *const *first, const size_t *first_n,
                        const qcf_op_call *again)
{
	for (int k = 0; k < call->n_outputs; k++) {
		const unsigned char *a = first[k], *c = again->outputs[k].data;
		size_t n = first_n[k], at = 0;
		const qcf_tensor *o = &call->outputs[k];
		if (again->outputs[k].nbytes == n) {
			while (at < n && a[at] == c[at])
				at++;
			if (at == n)
				continue;
		}
		x->run = r;
		x->verdict = QC_NONDETERMINISTIC;
		if (again->outputs[k].nbytes != n)
			snprintf(
			        x->message, sizeof x->message,
			        "runs 1 and %d of %d%s differ: output '%s' has %zu bytes, then %zu",
			        r, K, how, o->name ? o->name : "?", n,
			        (size_t)again->outputs[k].nbytes);
		else
			snprintf(x->message, sizeof x->message,
			         "runs 1 and %d of %d%s differ: output '%s' byte %zu (element "
			         "%llu): "
			         "0x%02x then 0x%02x",
			         r, K, how, o->name ? o->name : "?", at,
			         (unsigned long long)element_at(o->dtype, at), a[at], c[at]);
		return;
	}
}

/* The copies of a batch's first run. */
static void free_first(unsigned char *first[][QC_MAX_TENSORS], int n)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < QC_MAX_TENSORS; k++)
			free(first[i][k]);
}

/*
 * Runs the batch's cases whose first run returned QCF_OK K - 1 more times, the later runs in
 * the job's worker, or (with the plugin's threads option) in a worker per thread count, and
 * compares each run's outputs with the first's, bit for bit. first[i][k] gets a copy of the
 * first run's outputs (the judge's), f[i] what differed. 0, or -1 when cancelled.
 */
static int repeat_batch(job *j, const batch *b, const qcf_op_call *const *calls,
                        const qc_exec_result *ex, const qcf_op_call **staged, int opbyop,
                        unsigned char *first[][QC_MAX_TENSORS], size_t first_n[][QC_MAX_TENSORS],
                        rep_finding *f)
{
	qc_jobs *J = j->J;
	int K = J->plan->repeat;
	for (int i = 0; i < b->n; i++) {
		memset(&f[i], 0, sizeof f[i]);
		for (int k = 0; ex[i].outcome == QC_EXEC_OK && staged[i] && k < calls[i]->n_outputs;
		     k++) {
			size_t n = staged[i]->outputs[k].nbytes;
			first[i][k] = qc_xcalloc(n ? n : 1, 1);
			memcpy(first[i][k], staged[i]->outputs[k].data, n);
			first_n[i][k] = n;
		}
	}
	/* staged[] is the job's worker's memory: the later runs may reuse it */
	int ok[BATCH_CASES];
	for (int i = 0; i < b->n; i++) {
		ok[i] = ex[i].outcome == QC_EXEC_OK && staged[i];
		if (ok[i] && ex[i].history[0])
			history_finding(&f[i], 1, K, "", ex[i].history);
	}
	for (int r = 2; r <= K; r++) {
		if (atomic_load(&J->cancelled))
			return -1;
		qc_runner *R = j->runner;
		char how[48] = "";
		if (J->threads_option[0]) {
			int v = (r - 2) % QC_REPEAT_VARIANTS;
			snprintf(how, sizeof how, ", %s=%d", J->threads_option,
			         qc_repeat_threads(r));
			R = rep_runner(j, v);
		}
		const qcf_op_call *sub[BATCH_CASES], *st2[BATCH_CASES];
		int idx[BATCH_CASES], m = 0;
		for (int i = 0; i < b->n; i++)
			if (ok[i] && !f[i].run) {
				sub[m] = calls[i];
				idx[m++] = i;
			}
		if (!m)
			break;
		qc_exec_result ex2[BATCH_CASES];
		char err[512] = "";
		memset(st2, 0, sizeof st2);
		/* a chain offered op by op the first time runs op by op again (alone in its batch)
		 */
		chain_run cr2;
		int rc = !R       ? -1
		         : opbyop ? chain_opbyop(R, b->cases[0], b->expected[0], &cr2, &ex2[0], err,
		                                 sizeof err)
		                  : qc_runner_execute(R, sub, m, ex2, st2, err, sizeof err);
		if (opbyop && R && rc == 0)
			st2[0] = &cr2.staged;
		if (rc == -2 || atomic_load(&J->cancelled)) {
			if (opbyop && R)
				chain_run_free(&cr2);
			return -1;
		}
		for (int t = 0; t < m; t++) {
			int i = idx[t];
			rep_finding *x = &f[i];
			if (rc != 0) {
				/* no worker for the run (the plugin refused the thread count, say)
				 */
				x->run = r;
				x->verdict = QC_ERROR;
				snprintf(x->message, sizeof x->message,
				         "run %d of %d%s: no worker: %s", r, K, how,
				         R ? err : j->rep_err);
				continue;
			}
			if (ex2[t].outcome == QC_EXEC_OK && ex2[t].history[0]) {
				history_finding(x, r, K, how, ex2[t].history);
				continue;
			}
			if (ex2[t].outcome != QC_EXEC_OK || ex2[t].late_write || !st2[t]) {
				x->run = r;
				x->verdict = ex2[t].late_write ? QC_ERROR
				                               : later_outcome(ex2[t].outcome);
				snprintf(x->message, sizeof x->message,
				         "run %d of %d%s: %s where run 1 returned QCF_OK%s%s", r, K,
				         how, qc_verdict_name(later_outcome(ex2[t].outcome)),
				         ex2[t].message[0] ? ": " : "", ex2[t].message);
				continue;
			}
			compare_run(x, r, K, how, calls[i], first[i], first_n[i], st2[t]);
		}
		if (opbyop && R)
			chain_run_free(&cr2);
	}
	return 0;
}

/* Runs the batch in the job's worker and judges it. -1 when the unit cannot go on (no worker,
 * cancelled, or its board left the pool: u says which). */
static int batch_run(job *j, const qc_spec *run_spec, unit_out *u, batch *b)
{
	qc_jobs *J = j->J;
	const qc_jobs_plan *p = J->plan;
	if (!b->n)
		return 0;
	const qcf_op_call *calls[BATCH_CASES], *staged[BATCH_CASES];
	qc_exec_result ex[BATCH_CASES];
	for (int i = 0; i < b->n; i++)
		calls[i] = &b->cases[i]->call;
	memset(staged, 0, sizeof staged);
	/* a chain case runs alone (run_unit batches it so), op by op unless the source answers
	 * for it whole */
	chain_run cr;
	int chain = b->cases[0]->n_nodes && !J->source;
	int fused = chain && J->abi >= 3, opbyop = chain && !fused;
	if (fused || (b->cases[0]->n_nodes && J->source)) {
		/* the intermediates' buffers hold the reference's: the kernel sees a poison */
		qc_case *c0 = b->cases[0];
		for (int i = 0; i < c0->n_mid; i++) {
			qcf_tensor ref = c0->mid[i];
			ref.data = b->expected[0]->status == QCF_OK ? b->expected[0]->mid[i] : NULL;
			qc_poison_fill(&c0->mid[i], ref.data ? &ref : NULL);
		}
	}
	int rc = atomic_load(&J->cancelled) ? -2
	         : board_dead(j)            ? -3
	         : opbyop    ? chain_opbyop(j->runner, b->cases[0], b->expected[0], &cr, ex, u->err,
	                                    sizeof u->err)
	         : J->source ? J->source->execute(J->source->ctx, &j->src_state, b->cases, b->n, ex,
	                                          staged, u->err, sizeof u->err)
	                     : qc_runner_execute(j->runner, calls, b->n, ex, staged, u->err,
	                                         sizeof u->err);
	if (fused && rc == 0 && ex[0].outcome == QC_EXEC_NOT_SUPPORTED) {
		/* the plugin does not fuse this chain: it is offered its nodes in turn */
		fused = 0;
		opbyop = 1;
		staged[0] = NULL;
		rc = chain_opbyop(j->runner, b->cases[0], b->expected[0], &cr, ex, u->err,
		                  sizeof u->err);
	}
	if (opbyop && rc == 0)
		staged[0] = &cr.staged;
	else if (opbyop)
		chain_run_free(&cr);
	if (rc == 0 && b->cases[0]->n_nodes && J->source && J->source->chain) {
		/* the device's runner said how it ran the chain (and op by op, its intermediates)
		 */
		qc_source_chain sc;
		J->source->chain(J->source->ctx, j->src_state, 0, &sc);
		fused = sc.mode == QC_CHAIN_FUSED;
		opbyop = sc.mode == QC_CHAIN_OPBYOP;
		if (opbyop)
			chain_from_source(b->cases[0], &sc,
			                  ex[0].outcome == QC_EXEC_OK ? staged[0] : NULL, &cr);
	}
	if (rc == -2 || atomic_load(&J->cancelled)) {
		u->cancelled = 1;
		batch_drop(b);
		return -1;
	}
	if (J->pool && (rc == -3 || (rc == -1 && qc_runner_link_gone(j->runner)))) {
		/* the board is out of reach: nothing of the batch was judged, it goes on
		 * elsewhere from its first case */
		if (rc == -3)
			snprintf(u->err, sizeof u->err, "%s", J->pool->boards[j->board].why);
		u->lost = 1;
		u->keep = b->slot[0];
		u->resume_idx = b->idx[0];
		u->resume_ord = u->cases[b->slot[0]].ordinal;
		batch_drop(b);
		return -1;
	}
	if (rc != 0) {
		u->failed = 1;
		batch_drop(b);
		return -1;
	}
	/* --repeat: the first run's outputs copied (the later runs may reuse its memory) */
	unsigned char *first[BATCH_CASES][QC_MAX_TENSORS];
	size_t first_n[BATCH_CASES][QC_MAX_TENSORS];
	rep_finding found[BATCH_CASES];
	int repeat = p->repeat > 1 && !J->source;
	if (repeat) {
		memset(first, 0, sizeof first);
		if (repeat_batch(j, b, calls, ex, staged, opbyop, first, first_n, found) != 0) {
			free_first(first, b->n);
			u->cancelled = 1;
			batch_drop(b);
			return -1;
		}
	}
	for (int i = 0; i < b->n; i++) {
		qc_case *c = b->cases[i];
		qc_expected *e = b->expected[i];
		qc_job_case *jc = &u->cases[b->slot[i]];
		jc->board = J->pool ? j->board : -1;
		qcf_tensor kout[QC_MAX_TENSORS];
		int got = ex[i].outcome == QC_EXEC_OK && staged[i];
		for (int k = 0; k < c->call.n_outputs; k++) {
			kout[k] = c->out[k];
			kout[k].data = !got     ? NULL
			               : repeat ? first[i][k]
			                        : staged[i]->outputs[k].data;
		}
		qc_judge(c, e, &ex[i], kout, &jc->r);
		if (fused)
			jc->r.chain_mode = QC_CHAIN_FUSED;
		if (opbyop) {
			jc->r.chain_mode = QC_CHAIN_OPBYOP;
			if (!qc_verdict_conforms(jc->r.verdict))
				jc->r.chain_node = chain_first_differing(c, e, &cr);
			if (jc->r.chain_node && jc->r.verdict == QC_FAIL) {
				char note[sizeof jc->r.message];
				snprintf(note, sizeof note, "%s", jc->r.message);
				snprintf(jc->r.message, sizeof jc->r.message,
				         "op by op: node %d (%s) is the first whose output differs "
				         "from "
				         "the reference's; %s",
				         jc->r.chain_node, c->nodes[jc->r.chain_node - 1].op, note);
			}
		}
		for (int k = 0; k < jc->r.n_outputs; k++)
			jc->r.saturated[k] = qc_expected_saturation(c, e, k);
		if (c->tol.check && jc->r.verdict == QC_PASS_WITHIN_TOLERANCE) {
			custom_check(c, e, kout, &jc->r);
			if (jc->r.verdict == QC_FAIL)
				qc_locate_worst(c, e, &jc->r);
		}
		if (repeat && found[i].run) {
			/* a later run differed: the finding, and what the first run was judged */
			char was[64];
			snprintf(was, sizeof was, " (run 1: %s)", qc_verdict_name(jc->r.verdict));
			jc->r.verdict = found[i].verdict;
			snprintf(jc->r.message, sizeof jc->r.message, "%s%s", found[i].message,
			         was);
		}
		case_text(p, jc, c);
		qc_verdict v = jc->r.verdict;
		if ((p->keep_failing && !qc_verdict_conforms(v)) ||
		    (p->keep_judged && got &&
		     (v == QC_FAIL || v == QC_PASS || v == QC_PASS_WITHIN_TOLERANCE))) {
			/* --dump, the diagnosis: the case as it is, with the kernel's outputs
			 * copied out of the worker's arena */
			jc->full = 1;
			jc->c = c;
			jc->e = e;
			for (int k = 0; got && k < c->call.n_outputs; k++) {
				size_t n = repeat ? first_n[i][k] : staged[i]->outputs[k].nbytes;
				jc->kout[k] = qc_xcalloc(n ? n : 1, 1);
				memcpy(jc->kout[k], kout[k].data, n);
			}
			jc->ref = j->copy;
			atomic_fetch_add(&j->copy->refs, 1);
		} else {
			jc->c = slim_case(run_spec, c, NULL);
			qc_expected_free(e, c->call.n_outputs);
			qc_case_free(c);
		}
	}
	if (repeat)
		free_first(first, b->n);
	if (opbyop)
		chain_run_free(&cr);
	b->n = 0;
	b->bytes = 0;
	return 0;
}

/* ---- a unit ---- */

/* A case that fails to expand while the run runs: an ERROR that names the spec error. */
static void spec_error_case(const qc_jobs_plan *p, const qc_spec *run_spec, unit_out *u,
                            const char *name, uint64_t ordinal, FILE *diag)
{
	/* the error is the last line expanding the unit reported (each node reports once) */
	char why[384] = "";
	fflush(diag);
	if (u->diag && u->diag_len) {
		size_t end = u->diag_len;
		while (end && u->diag[end - 1] == '\n')
			end--;
		size_t start = end;
		while (start && u->diag[start - 1] != '\n')
			start--;
		snprintf(why, sizeof why, "%.*s", (int)(end - start), u->diag + start);
	}
	qc_job_case *jc = new_case(u);
	qc_case *c = slim_case(run_spec, NULL, name);
	c->call.n_outputs = 0; /* nothing was compared */
	jc->c = c;
	jc->ordinal = ordinal;
	jc->spec_error = 1;
	jc->r.verdict = QC_ERROR;
	snprintf(jc->r.message, sizeof jc->r.message, "spec error: %s",
	         why[0] ? why : "the case cannot be built (qconform validate says why)");
	case_text(p, jc, c);
}

static void run_unit(job *j, size_t ui, unit_out *u)
{
	qc_jobs *J = j->J;
	const qc_jobs_plan *p = J->plan;
	const qc_job_unit *un = &p->units[ui];
	const qc_spec *run_spec = p->specs[un->spec];
	/* resumed: what expanding it reported before goes first */
	char *before = u->resumed ? u->diag : NULL;
	size_t before_len = u->resumed ? u->diag_len : 0;
	u->diag = NULL;
	u->diag_len = 0;
	FILE *diag_f = open_memstream(&u->diag, &u->diag_len);
	if (!diag_f) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	if (before_len)
		fwrite(before, 1, before_len, diag_f);
	free(before);
	qc_diag diag = {0, 0, diag_f};
	if (!j->copy || j->spec != un->spec) {
		ref_release(j->copy);
		j->copy = NULL;
		qc_spec *s = qc_spec_copy(run_spec, &diag);
		if (!s) {
			u->failed = 1;
			snprintf(u->err, sizeof u->err, "%s: cannot load the spec again",
			         run_spec->path);
			fclose(diag_f);
			return;
		}
		s->lua_share = &J->shares[un->spec];
		j->copy = qc_xcalloc(1, sizeof *j->copy);
		j->copy->s = s;
		atomic_init(&j->copy->refs, 1);
		j->spec = un->spec;
	}
	qc_spec *s = j->copy->s;
	qc_cases *it = qc_cases_begin(s, p->seed, 1, &diag);
	qc_cases *names = qc_cases_begin(s, p->seed, 0, &diag);
	batch *b = qc_xcalloc(1, sizeof *b);
	uint64_t ordinal = u->resumed ? u->resume_ord : un->ordinal;
	char err[512];
	for (uint64_t idx = u->resumed ? u->resume_idx : un->first; idx < un->end; idx++) {
		if (atomic_load(&J->cancelled)) {
			u->cancelled = 1;
			break;
		}
		int code = un->held ? QC_HELD_CODE(un->held, idx) : -1;
		if (code == 0)
			continue; /* not selected: not named */
		if (code == QC_HELD_SELECTED) {
			ordinal++; /* selected, in another shard */
			continue;
		}
		const char *name = qc_cases_name(names, idx, NULL);
		qc_case *c = NULL;
		int errors = diag.errors;
		if (code < 0 && !p->selected(p->ctx, name, NULL))
			continue;
		if (p->need_case) {
			qc_cases_seek(it, idx);
			int rc = qc_cases_next(it, &c);
			if (rc <= 0 || diag.errors > errors) {
				/* the plan expanded it already: only a budget can make it fail */
				qc_case_free(c);
				c = NULL;
			} else if (!p->selected(p->ctx, name, c)) {
				qc_case_free(c);
				continue;
			}
		}
		uint64_t ord = ordinal++;
		if (code < 0 && !p->in_shard(p->ctx, name)) {
			qc_case_free(c);
			continue;
		}
		const qc_journal_entry *je = p->resume ? qc_journal_find(p->resume, ord) : NULL;
		if (je) {
			/* judged before: its record comes from the journal */
			qc_job_case *jc = new_case(u);
			jc->ordinal = ord;
			jc->replay = je;
			if (!c) {
				qc_cases_seek(it, idx);
				if (qc_cases_next(it, &c) <= 0)
					c = NULL;
			}
			jc->c = slim_case(run_spec, c, name);
			qc_case_free(c);
			continue;
		}
		if (!c && !p->need_case) {
			qc_cases_seek(it, idx);
			int rc = qc_cases_next(it, &c);
			if (rc <= 0 || diag.errors > errors) {
				qc_case_free(c);
				c = NULL;
			}
		}
		if (!c && s->lua && qc_lua_exhausted(s->lua)) {
			/* the spec's budget ran out: every later case would fail the same way */
			u->failed = 1;
			snprintf(u->err, sizeof u->err,
			         "%s: the spec's Lua budget ran out while its cases were built: "
			         "the run "
			         "stops",
			         run_spec->path);
			break;
		}
		if (!c) {
			spec_error_case(p, run_spec, u, name, ord, diag_f);
			continue;
		}
		qc_expected *e = qc_expected_new(c, err, sizeof err);
		char msg[512];
		const yaml_node_t *bad = qc_expected_spec_error(c, e, msg, sizeof msg);
		if (bad) {
			qc_diag_error(&diag, s->path, bad, "%s", msg);
			qc_expected_free(e, c->call.n_outputs);
			qc_case_free(c);
			spec_error_case(p, run_spec, u, name, ord, diag_f);
			continue;
		}
		/* the kernel's outputs start as values the answer cannot be (poison.h) */
		for (int k = 0; k < c->call.n_outputs; k++)
			qc_poison_fill(&c->out[k], e->status == QCF_OK ? &e->out[k] : NULL);
		size_t bytes = case_bytes(c);
		int alone = c->n_nodes || (b->n && b->cases[0]->n_nodes); /* chains run alone */
		if (b->n && (alone || b->n == BATCH_CASES || b->bytes + bytes > BATCH_BYTES ||
		             b->bytes + bytes > J->capacity / 2)) {
			if (batch_run(j, run_spec, u, b) != 0) {
				qc_expected_free(e, c->call.n_outputs);
				qc_case_free(c);
				break;
			}
		}
		qc_job_case *jc = new_case(u);
		jc->ordinal = ord;
		b->slot[b->n] = u->n - 1;
		b->idx[b->n] = idx;
		b->cases[b->n] = c;
		b->expected[b->n] = e;
		b->n++;
		b->bytes += bytes;
	}
	if (!u->failed && !u->cancelled && !u->lost)
		batch_run(j, run_spec, u, b);
	else
		batch_drop(b);
	if (u->lost) {
		/* the cases from the batch the board did not answer on go on elsewhere */
		for (int i = u->keep; i < u->n; i++)
			qc_job_case_clear(&u->cases[i]);
		u->n = u->keep;
	} else if (u->failed || u->cancelled) {
		/* only the cases judged before count: the rest of the unit is dropped */
		int keep = 0;
		while (keep < u->n && (u->cases[keep].text || u->cases[keep].replay))
			keep++;
		for (int i = keep; i < u->n; i++)
			qc_job_case_clear(&u->cases[i]);
		u->n = keep;
	}
	free(b);
	qc_cases_end(names);
	qc_cases_end(it);
	fclose(diag_f);
}

/* Under J->mu: unit ui (u) of job j came back lost. Its board leaves the pool; the unit goes
 * on in another board's job, or, with no board left, fails as a broken stream does, and so
 * does every unit waiting for a board. */
static void unit_lost(job *j, size_t ui, unit_out *u)
{
	qc_jobs *J = j->J;
	qc_board *b = &J->pool->boards[j->board];
	if (!atomic_load(&b->dead)) {
		snprintf(b->why, sizeof b->why, "%s", u->err);
		atomic_store(&b->dead, 1);
	}
	int alive = 0;
	for (int k = 0; k < J->pool->n_boards; k++)
		alive += !atomic_load(&J->pool->boards[k].dead);
	u->lost = 0;
	if (alive) {
		u->resumed = 1;
		u->err[0] = '\0';
		if (J->n_orphans == J->cap_orphans) {
			J->cap_orphans = J->cap_orphans ? 2 * J->cap_orphans : 8;
			J->orphans = realloc(J->orphans, J->cap_orphans * sizeof *J->orphans);
			if (!J->orphans) {
				fprintf(stderr, "qconform: out of memory\n");
				exit(2);
			}
		}
		J->orphans[J->n_orphans++] = ui;
		return;
	}
	u->failed = 1;
	u->done = 1;
	for (size_t k = 0; k < J->n_orphans; k++) {
		unit_out *o = &J->outs[J->orphans[k] % J->window];
		snprintf(o->err, sizeof o->err, "%s", u->err);
		o->failed = 1;
		o->done = 1;
	}
	J->n_orphans = 0;
}

/* What a unit's cases hold until the main thread hands it back: the records, the cases (the
 * whole case and the kernel's outputs with `full`), the report text. */
static size_t unit_bytes(const unit_out *u)
{
	size_t n = (size_t)u->cap * sizeof *u->cases + u->diag_len;
	for (int i = 0; i < u->n; i++) {
		const qc_job_case *jc = &u->cases[i];
		n += jc->len + jc->stats_len;
		if (!jc->c)
			continue;
		n += sizeof *jc->c;
		for (int k = 0; jc->full && k < jc->c->call.n_inputs; k++)
			n += jc->c->call.inputs[k].nbytes;
		for (int k = 0; jc->full && k < jc->c->call.n_outputs; k++)
			n += 2 *
			     jc->c->call.outputs[k].nbytes; /* the reference's and the kernel's */
	}
	return n;
}

/* Under J->mu: the orphan of lowest unit (the main thread waits for that one first). */
static size_t take_orphan(qc_jobs *J)
{
	size_t best = 0;
	for (size_t k = 1; k < J->n_orphans; k++)
		if (J->orphans[k] < J->orphans[best])
			best = k;
	size_t ui = J->orphans[best];
	J->orphans[best] = J->orphans[--J->n_orphans];
	return ui;
}

static void *job_main(void *arg)
{
	job *j = arg;
	qc_jobs *J = j->J;
	const qc_jobs_plan *p = J->plan;
	size_t own = (size_t)(j - J->jobs);
	int first = own < (size_t)J->n_first; /* its first unit: unit `own`, taken for it */
	pthread_mutex_lock(&J->mu);
	for (;;) {
		/* its own first unit (a dead board loses it as it starts), then a unit a lost
		 * board left, else the next; none left: done once no unit running can come
		 * back lost */
		size_t ui;
		if (J->stop)
			break;
		if (first) {
			ui = own;
			first = 0;
			J->running--; /* counted from the start */
		} else if (board_dead(j)) {
			break;
		} else if (J->n_orphans) {
			ui = take_orphan(J);
		} else if (J->next < p->n_units && J->next < J->returned + J->window &&
		           (J->held < HELD_BYTES || J->next < J->returned + (size_t)J->n_jobs)) {
			ui = J->next++;
			memset(&J->outs[ui % J->window], 0, sizeof *J->outs);
		} else if (J->next >= p->n_units && !J->running) {
			break;
		} else {
			pthread_cond_wait(&J->taken, &J->mu);
			continue;
		}
		unit_out *u = &J->outs[ui % J->window];
		J->running++;
		pthread_mutex_unlock(&J->mu);

		run_unit(j, ui, u);

		size_t bytes = unit_bytes(u);
		pthread_mutex_lock(&J->mu);
		J->running--;
		if (u->lost) {
			unit_lost(j, ui, u);
		} else {
			u->done = 1;
			u->bytes = bytes;
			J->held += bytes;
		}
		pthread_cond_broadcast(&J->done);
		pthread_cond_broadcast(&J->taken);
	}
	pthread_mutex_unlock(&J->mu);
	ref_release(j->copy);
	j->copy = NULL;
	/* a worker this thread restarted dies with the thread (parent-death signal): close it
	 * here, while its destroy() can still run */
	qc_runner_close(j->runner);
	j->runner = NULL;
	for (int v = 0; v < QC_REPEAT_VARIANTS; v++) {
		qc_runner_close(j->rep[v]);
		j->rep[v] = NULL;
	}
	if (J->source && J->source->free_state)
		J->source->free_state(J->source->ctx, j->src_state);
	j->src_state = NULL;
	return NULL;
}

int qc_jobs_start(qc_jobs *J, const qc_jobs_plan *plan, char *err, size_t err_size)
{
	J->plan = plan;
	J->shares = qc_xcalloc((size_t)(plan->n_specs > 0 ? plan->n_specs : 1), sizeof *J->shares);
	/* each job's first unit is its own: every board of a pool gets work at once, however the
	 * threads are scheduled */
	J->n_first = plan->n_units < (size_t)J->n_jobs ? (int)plan->n_units : J->n_jobs;
	J->next = (size_t)J->n_first;
	J->running = J->n_first;
	for (int i = 0; i < J->n_jobs; i++) {
		if (pthread_create(&J->jobs[i].thread, NULL, job_main, &J->jobs[i]) != 0) {
			snprintf(err, err_size, "cannot start a job thread");
			return -1;
		}
		J->n_threads++;
	}
	return 0;
}

int qc_jobs_next(qc_jobs *J, qc_job_case **cases, const char **diag, const char **err, int *failed,
                 int *cancelled)
{
	if (!J->plan || !J->n_threads || J->returned >= J->plan->n_units)
		return -1;
	pthread_mutex_lock(&J->mu);
	unit_out *u = &J->outs[J->returned % J->window];
	while (!(J->returned < J->next && u->done))
		pthread_cond_wait(&J->done, &J->mu);
	pthread_mutex_unlock(&J->mu);
	J->holding = 1;
	*cases = u->cases;
	*diag = u->diag ? u->diag : "";
	*failed = u->failed;
	*cancelled = u->cancelled;
	if (u->failed && !u->err[0])
		snprintf(u->err, sizeof u->err, "no worker could run the cases");
	*err = u->err;
	return u->n;
}

void qc_job_case_clear(qc_job_case *jc)
{
	if (jc->full) {
		qc_expected_free(jc->e, jc->c->call.n_outputs);
		for (int k = 0; k < QC_MAX_TENSORS; k++)
			free(jc->kout[k]);
	}
	qc_case_free(jc->c);
	free(jc->text);
	free(jc->stats);
	ref_release(jc->ref);
	memset(jc, 0, sizeof *jc);
}

void qc_jobs_release(qc_jobs *J)
{
	if (!J->holding)
		return;
	unit_out *u = &J->outs[J->returned % J->window];
	for (int i = 0; i < u->n; i++)
		qc_job_case_clear(&u->cases[i]);
	free(u->cases);
	free(u->diag);
	pthread_mutex_lock(&J->mu);
	J->held -= u->bytes;
	memset(u, 0, sizeof *u);
	J->returned++;
	J->holding = 0;
	pthread_cond_broadcast(&J->taken);
	pthread_mutex_unlock(&J->mu);
}

void qc_jobs_cancel(qc_jobs *J)
{
	atomic_store(&J->cancelled, 1);
	for (int i = 0; i < J->n_jobs; i++) {
		if (J->jobs[i].runner)
			qc_runner_cancel(J->jobs[i].runner);
		for (int v = 0; v < QC_REPEAT_VARIANTS; v++)
			if (J->jobs[i].rep[v])
				qc_runner_cancel(J->jobs[i].rep[v]);
	}
}

void qc_jobs_close(qc_jobs *J)
{
	if (!J)
		return;
	pthread_mutex_lock(&J->mu);
	J->stop = 1;
	pthread_cond_broadcast(&J->taken);
	pthread_mutex_unlock(&J->mu);
	for (int i = 0; i < J->n_threads; i++)
		pthread_join(J->jobs[i].thread, NULL);
	/* units done and never handed back */
	for (size_t u = J->returned; u < J->next; u++) {
		unit_out *o = &J->outs[u % J->window];
		for (int i = 0; i < o->n; i++)
			qc_job_case_clear(&o->cases[i]);
		free(o->cases);
		free(o->diag);
	}
	for (int i = J->n_threads; i < J->n_jobs; i++)
		if (J->jobs[i].runner) /* never started: the threads close their own */
			qc_runner_close(J->jobs[i].runner);
	pthread_cond_destroy(&J->taken);
	pthread_cond_destroy(&J->done);
	pthread_mutex_destroy(&J->mu);
	free(J->outs);
	free(J->orphans);
	free(J->jobs);
	free(J->shares);
	free(J);
}
