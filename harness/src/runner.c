/*
 * runner: one worker process per runner holds the plugin. See runner.h for
 * the contract, wire.h for the protocol, worker.c for the worker's side.
 *
 * Workers. A worker is a fresh process of its own executable
 * (qconform-worker), started with posix_spawn: never a bare fork of the
 * harness, which may be multi-threaded (pool.c runs one thread per job, and
 * a job thread restarts its worker while other threads allocate), and a
 * forked child that goes on to dlopen or malloc can inherit a lock another
 * thread held at fork time and hang. The executable is cfg->worker_path,
 * else $QCONFORM_WORKER, else "qconform-worker" next to the running
 * executable.
 *
 * Memory. The arena is a memfd (or an unlinked POSIX shared memory object)
 * mapped MAP_SHARED in the harness; every worker maps the same fd at the
 * same address, so pointers written by one side are valid on the other. A
 * batch is staged into the arena as a row of slots:
 *
 *   slot:  [slot header: the worker's answer] [meta] [data]
 *   meta:  qcf_op_call, tensor arrays, strings, shapes, quant arrays, attrs
 *   data:  input bytes; output bytes (zeroed), each followed by
 *          QC_GUARD_BYTES of a fixed pattern
 *
 * The harness keeps a private copy of every slot's meta ("shadow"): after a
 * case it puts back whatever the kernel changed there, so the staged call it
 * hands to its caller is always well formed.
 *
 * Channel. One AF_UNIX stream socketpair (a two-way pipe whose writes can use
 * MSG_NOSIGNAL): the harness sends commands (a list of slot offsets); the
 * worker answers with one byte per finished case, after writing the outcome
 * into the slot header. QC_CASE_DONE means go on, QC_CASE_GUARD means the
 * worker saw a guard broken and stopped the batch: the harness restages the
 * rest of the batch (a kernel writing past its buffers may have hit the next
 * slots) and resends it. The same happens after a crash or a timeout, with a
 * fresh worker.
 */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sha256.h"
#include "wire.h"

extern char **environ;

#define DEFAULT_ARENA ((size_t)256 << 20)
#define LOAD_WAIT_S   30.0 /* at least this long for dlopen + create when a timeout is set */
#define CLOSE_WAIT_S  5.0  /* at least this long for destroy() at close */
#define EXIT_WAIT_S   2.0  /* for a worker whose channel closed to finish dying */
#define START_TRIES   3    /* workers to try when the arena's address is taken in one */
#define WORKER_NAME   "qconform-worker"

/* The harness's record of one staged case. */
typedef struct staged_case {
	int index;         /* into calls[] */
	size_t slot_off;   /* arena offset of the slot */
	size_t meta_len;   /* bytes of meta after the slot header */
	size_t shadow_off; /* copy of the meta in r->shadow */
} staged_case;

struct qc_runner {
	char *shown;  /* the plugin path as the caller gave it, for messages */
	char *path;   /* its realpath, which the worker loads */
	char *worker; /* the worker executable (realpath) */
	qcf_option *options;
	int n_options;
	double timeout_s;
	int trace;
	qc_plugin_info info;

	unsigned char *arena;
	size_t arena_bytes;
	int arena_fd;         /* passed to every worker, or -1 */
	pid_t pid;            /* worker, or -1 */
	int fd;               /* harness end of the channel, or -1 */
	atomic_int live_pid;  /* pid for qc_runner_cancel (a signal handler): 0 when none */
	atomic_int cancelled; /* qc_runner_cancel was called */

	unsigned char *shadow;
	size_t shadow_cap;
	staged_case *cases;
	size_t cases_cap;
	uint64_t *offsets;
	size_t offsets_cap;
	void **keep; /* heap copies of staged calls (batches run in pieces) */
	size_t n_keep, keep_cap;
};

/* ---------------------------------------------------------------- helpers */

static void trace(const qc_runner *r, const char *fmt, ...)
{
	if (!r->trace)
		return;
	va_list ap;
	va_start(ap, fmt);
	qc_trace_line(fmt, ap);
	va_end(ap);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGABRT: return "SIGABRT";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGTRAP: return "SIGTRAP";
	case SIGSYS: return "SIGSYS";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	case SIGPIPE: return "SIGPIPE";
	case SIGALRM: return "SIGALRM";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	case SIGXCPU: return "SIGXCPU";
	case SIGXFSZ: return "SIGXFSZ";
	default: return "?";
	}
}

/* Describes a wait status; *sig is the signal, or 0 for a normal exit. */
static void describe_exit(int status, int *sig, char *buf, size_t size)
{
	if (status == -1) {
		*sig = 0;
		snprintf(buf, size, "worker vanished (could not collect its exit status)");
	} else if (WIFSIGNALED(status)) {
		*sig = WTERMSIG(status);
		snprintf(buf, size, "killed by signal %d (%s)", *sig, signal_name(*sig));
	} else {
		*sig = 0;
		snprintf(buf, size, "worker exited with status %d",
		         WIFEXITED(status) ? WEXITSTATUS(status) : status);
	}
}

/* Waits for fd to be readable (or hung up): 1; timeout: 0; error: -1. */
static int wait_readable(int fd, double timeout_s)
{
	double deadline = timeout_s > 0 ? qc_now_s() + timeout_s : 0;
	for (;;) {
		int ms = -1;
		if (timeout_s > 0) {
			double left = deadline - qc_now_s();
			if (left <= 0)
				return 0;
			ms = left * 1000.0 >= INT_MAX - 1 ? INT_MAX : (int)(left * 1000.0) + 1;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int rc = poll(&p, 1, ms);
		if (rc > 0)
			return 1;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

/* An fd that polls readable once pid has exited (Linux >= 5.3), or -1. */
static int pid_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/*
 * Collects a worker whose channel closed: lets it finish dying, else kills
 * it. A worker that just crashed closes its channel a moment before it can
 * be collected; waiting on a pidfd costs no more than that moment.
 */
static int reap(pid_t pid, double grace_s)
{
	int st;
	double end = qc_now_s() + grace_s;
	int pfd = -1;
	long nap_ns = 20000;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR)) {
			if (pfd >= 0)
				close(pfd);
			return w == pid ? st : -1;
		}
		double left = end - qc_now_s();
		if (left <= 0)
			break;
		if (pfd < 0)
			pfd = pid_fd(pid);
		if (pfd >= 0) {
			struct pollfd p = {.fd = pfd, .events = POLLIN};
			poll(&p, 1, (int)(left * 1000.0) + 1);
		} else {
			struct timespec ts = {0, nap_ns};
			nanosleep(&ts, NULL);
			nap_ns = nap_ns < 1000000 ? nap_ns * 2 : nap_ns;
		}
	}
	if (pfd >= 0)
		close(pfd);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* -------------------------------------------------------------- the arena */

/* A memfd of `bytes` (sparse), close-on-exec; -1 with errno. */
static int arena_create(size_t bytes)
{
	int fd = memfd_create("qconform-arena", MFD_CLOEXEC);
	if (fd < 0) {
		/* No memfd (Linux < 3.17, or a seccomp filter): a POSIX shared
		 * memory object, unlinked as soon as it is open. */
		static atomic_uint seq;
		for (int tries = 0; fd < 0 && tries < 16; tries++) {
			char name[96];
			snprintf(name, sizeof name, "/qconform-arena-%ld-%u-%lx", (long)getpid(),
			         atomic_fetch_add(&seq, 1), (unsigned long)(qc_now_s() * 1e9));
			fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (fd >= 0)
				shm_unlink(name);
			else if (errno != EEXIST)
				break;
		}
		if (fd < 0)
			return -1;
	}
	if (ftruncate(fd, (off_t)bytes) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * Maps the arena in the harness. Every worker must map it at the same
 * address, in a process whose libraries, heap and stack sit elsewhere
 * (address space layout randomization). So the harness asks first for an
 * address in the wide hole that a fresh 64-bit process leaves between its
 * heap (after the executable) and its mmap area (below the stack), above
 * where the AddressSanitizer shadow ends and below its allocator: nothing of
 * a new worker lives there. If the kernel will not give one (another
 * runner's arena, a smaller address space), anywhere will do: a worker that
 * finds the address taken says so, and another worker, with another layout,
 * is tried.
 */
static void *arena_map(int fd, size_t bytes)
{
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_NORESERVE;
#if UINTPTR_MAX > 0xffffffffu && (defined(__x86_64__) || defined(__aarch64__))
	static atomic_uint seq;
	const uintptr_t lo = (uintptr_t)0x200000000000u, hi = (uintptr_t)0x500000000000u;
	const uintptr_t gap = (uintptr_t)1 << 30;
	uintptr_t stride = QC_ROUND_UP((uintptr_t)bytes, gap) + gap;
	uintptr_t slots = stride < hi - lo ? (hi - lo) / stride : 0;
	for (int tries = 0; slots && tries < 8; tries++) {
		uintptr_t at = lo + (atomic_fetch_add(&seq, 1) % slots) * stride;
		void *p = mmap((void *)at, bytes, prot, flags, fd, 0);
		if (p == (void *)at)
			return p;
		if (p != MAP_FAILED)
			munmap(p, bytes);
	}
#endif
	return mmap(NULL, bytes, prot, flags, fd, 0);
}

/* ------------------------------------------------------ worker lifecycle */

static void stop_worker(qc_runner *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->pid = -1;
	atomic_store(&r->live_pid, 0);
}

/*
 * Spawns the worker executable with the channel at fd 3 and the arena at
 * fd 4 (via two fds above every one involved, so no dup2 overwrites a
 * source still to be moved; this happens in the child only). Every other
 * fd of the harness is close-on-exec or closed by the worker. Returns
 * posix_spawn's error number.
 */
static int spawn_worker(qc_runner *r, int chan, pid_t *pid)
{
	qc_worker_args a = {
	        .parent = getpid(),
	        .channel_fd = QC_WORKER_CHANNEL_FD,
	        .arena_fd = QC_WORKER_ARENA_FD,
	        .arena_addr = (uintptr_t)r->arena,
	        .arena_bytes = r->arena_bytes,
	        .plugin = r->path,
	        .trace = r->trace,
	        .n_options = r->n_options,
	        .options = r->options,
	};
	char **argv = qc_wire_argv(r->worker, &a);
	if (!argv)
		return ENOMEM;
	int hi = chan > r->arena_fd ? chan : r->arena_fd;
	if (hi < QC_WORKER_ARENA_FD)
		hi = QC_WORKER_ARENA_FD;
	hi++;
	/* channel -> hi -> 3, arena -> hi + 1 -> 4 */
	const int moves[4][2] = {{chan, hi},
	                         {r->arena_fd, hi + 1},
	                         {hi, QC_WORKER_CHANNEL_FD},
	                         {hi + 1, QC_WORKER_ARENA_FD}};
	sigset_t none;
	sigemptyset(&none);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int rc = posix_spawn_file_actions_init(&fa);
	if (rc == 0) {
		rc = posix_spawnattr_init(&at);
		if (rc == 0) {
			for (int i = 0; rc == 0 && i < 4; i++)
				rc = posix_spawn_file_actions_adddup2(&fa, moves[i][0],
				                                      moves[i][1]);
			if (rc == 0)
				rc = posix_spawn_file_actions_addclose(&fa, hi);
			if (rc == 0)
				rc = posix_spawn_file_actions_addclose(&fa, hi + 1);
			/* The spawning thread's signal mask must not pass to the worker. */
			if (rc == 0)
				rc = posix_spawnattr_setsigmask(&at, &none);
			/* Its own process group: a terminal's Ctrl-C is for the harness, and the
			 * harness can kill the worker together with any child it forked. */
			if (rc == 0)
				rc = posix_spawnattr_setpgroup(&at, 0);
			if (rc == 0)
				rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
				                                           POSIX_SPAWN_SETPGROUP);
			if (rc == 0)
				rc = posix_spawn(pid, r->worker, &fa, &at, argv, environ);
			posix_spawnattr_destroy(&at);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	free(argv);
	return rc;
}

/*
 * Starts a worker and waits for its load report; 0, or -1 with the reason.
 * *taken: the worker could not map the arena at its address.
 */
static int try_start(qc_runner *r, int *taken, char *err, size_t err_size)
{
	*taken = 0;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, err_size, "%s: socketpair: %s", r->shown, strerror(errno));
		return -1;
	}
	trace(r, "starting a worker (%s) for %s", r->worker, r->path);
	pid_t pid = -1;
	int rc = spawn_worker(r, sv[1], &pid);
	close(sv[1]);
	if (rc) {
		snprintf(err, err_size, "%s: cannot start the worker %s: %s", r->shown, r->worker,
		         strerror(rc));
		close(sv[0]);
		return -1;
	}
	r->pid = pid;
	r->fd = sv[0];
	atomic_store(&r->live_pid, (int)pid);
	if (atomic_load(&r->cancelled))
		kill(-pid, SIGKILL); /* cancelled while it was being started */

	qc_load_report rep;
	double wait =
	        r->timeout_s > 0 ? (r->timeout_s > LOAD_WAIT_S ? r->timeout_s : LOAD_WAIT_S) : 0;
	int ready = wait_readable(r->fd, wait);
	ssize_t got = ready > 0 ? qc_read_full(r->fd, &rep, sizeof rep) : -1;
	if (got == (ssize_t)sizeof rep && rep.ok) {
		rep.name[sizeof rep.name - 1] = rep.version[sizeof rep.version - 1] = '\0';
		snprintf(r->info.name, sizeof r->info.name, "%s", rep.name);
		snprintf(r->info.version, sizeof r->info.version, "%s", rep.version);
		r->info.abi_version = rep.abi;
		trace(r, "worker %ld ready: %s %s, ABI %u", (long)pid, rep.name, rep.version,
		      rep.abi);
		return 0;
	}
	char why[300];
	if (got == (ssize_t)sizeof rep) {
		rep.error[sizeof rep.error - 1] = '\0';
		snprintf(why, sizeof why, "%s", rep.error);
		*taken = rep.arena_taken != 0;
		reap(pid, EXIT_WAIT_S);
	} else if (ready == 0) {
		kill(pid, SIGKILL);
		reap(pid, EXIT_WAIT_S);
		snprintf(why, sizeof why, "loading timed out after %g s", wait);
	} else {
		int sig;
		char how[128];
		describe_exit(reap(pid, EXIT_WAIT_S), &sig, how, sizeof how);
		snprintf(why, sizeof why, "worker died while loading the plugin: %s", how);
	}
	stop_worker(r);
	snprintf(err, err_size, "%s: %s", r->shown, why);
	trace(r, "load failed: %s", why);
	return -1;
}

static int start_worker(qc_runner *r, char *err, size_t err_size)
{
	for (int i = 1;; i++) {
		if (atomic_load(&r->cancelled)) {
			snprintf(err, err_size, "%s: cancelled", r->shown);
			return -1;
		}
		int taken;
		if (try_start(r, &taken, err, err_size) == 0)
			return 0;
		if (!taken || i >= START_TRIES)
			return -1;
		trace(r, "the arena's address is taken in that worker: starting another");
	}
}

/* Kills the worker (timeout) or collects it (crash); returns its wait status. */
static int end_worker(qc_runner *r, int kill_it)
{
	if (kill_it)
		kill(-r->pid, SIGKILL);
	int st = reap(r->pid, EXIT_WAIT_S);
	stop_worker(r);
	return st;
}

/* ---------------------------------------------------------------- staging */

/* A bump allocator; with base NULL it only measures. */
typedef struct bump {
	unsigned char *base;
	size_t off;
} bump;

static void *put(bump *b, const void *src, size_t n, size_t align)
{
	b->off = QC_ROUND_UP(b->off, align);
	void *p = b->base ? b->base + b->off : NULL;
	b->off += n;
	if (p && n) {
		if (src)
			memcpy(p, src, n);
		else
			memset(p, 0, n);
	}
	return p;
}

static const char *put_str(bump *b, const char *s)
{
	return s ? put(b, s, strlen(s) + 1, 1) : NULL;
}

typedef struct stager {
	bump meta, data;
	int keep_outputs; /* copy output bytes (and guards) instead of zeroing them */
} stager;

static void stage_tensor(stager *s, qcf_tensor *dst, const qcf_tensor *src, int output)
{
	qcf_tensor t;
	memset(&t, 0, sizeof t);
	t.struct_size = sizeof t;
	t.name = put_str(&s->meta, src->name);
	t.dtype = src->dtype;
	t.rank = src->rank;
	t.shape = src->shape ? put(&s->meta, src->shape, (size_t)src->rank * sizeof(int64_t),
	                           sizeof(int64_t))
	                     : NULL;
	t.nbytes = src->nbytes;
	if (src->quant) {
		const qcf_quant *sq = src->quant;
		size_t count = sq->count > 0 ? (size_t)sq->count : 0;
		qcf_quant q;
		memset(&q, 0, sizeof q);
		q.struct_size = sizeof q;
		q.axis = sq->axis;
		q.count = sq->count;
		q.block_size = sq->block_size;
		if (sq->scales)
			q.scales = put(&s->meta, sq->scales, count * sizeof(float), sizeof(float));
		if (sq->zero_points)
			q.zero_points = put(&s->meta, sq->zero_points, count * sizeof(int32_t),
			                    sizeof(int32_t));
		if (sq->float_zero_points)
			q.float_zero_points = put(&s->meta, sq->float_zero_points,
			                          count * sizeof(float), sizeof(float));
		t.quant = put(&s->meta, &q, sizeof q, QC_META_ALIGN);
	}
	if (output) {
		t.data = put(&s->data, s->keep_outputs ? src->data : NULL, src->nbytes,
		             QC_DATA_ALIGN);
		put(&s->data, qc_guard_pattern, QC_GUARD_BYTES, 1);
	} else if (src->data || src->nbytes) {
		t.data = put(&s->data, src->data, src->nbytes, QC_DATA_ALIGN);
	}
	if (dst)
		*dst = t;
}

/* Deep-copies call into s (or measures it); returns the copy. */
static qcf_op_call *stage_call(stager *s, const qcf_op_call *src)
{
	qcf_op_call c;
	memset(&c, 0, sizeof c);
	qcf_op_call *dc = put(&s->meta, NULL, sizeof c, QC_META_ALIGN);
	c.struct_size = sizeof c;
	c.op = put_str(&s->meta, src->op);
	c.semantics = put_str(&s->meta, src->semantics);
	c.n_inputs = src->n_inputs;
	c.n_outputs = src->n_outputs;
	c.n_attrs = src->n_attrs;
	if (src->inputs) {
		qcf_tensor *t =
		        put(&s->meta, NULL, (size_t)src->n_inputs * sizeof *t, QC_META_ALIGN);
		for (int32_t k = 0; k < src->n_inputs; k++)
			stage_tensor(s, t ? &t[k] : NULL, &src->inputs[k], 0);
		c.inputs = t;
	}
	if (src->outputs) {
		qcf_tensor *t =
		        put(&s->meta, NULL, (size_t)src->n_outputs * sizeof *t, QC_META_ALIGN);
		for (int32_t k = 0; k < src->n_outputs; k++)
			stage_tensor(s, t ? &t[k] : NULL, &src->outputs[k], 1);
		c.outputs = t;
	}
	if (src->attrs) {
		qcf_attr *a = put(&s->meta, NULL, (size_t)src->n_attrs * sizeof *a, QC_META_ALIGN);
		for (int32_t k = 0; k < src->n_attrs; k++) {
			qcf_attr x = src->attrs[k];
			size_t count = x.count > 0 ? (size_t)x.count : 0;
			x.name = put_str(&s->meta, x.name);
			if (x.type == QCF_ATTR_STRING)
				x.v.s = put_str(&s->meta, x.v.s);
			else if (x.type == QCF_ATTR_INTS && x.v.ints)
				x.v.ints = put(&s->meta, x.v.ints, count * sizeof(int64_t), 8);
			else if (x.type == QCF_ATTR_FLOATS && x.v.floats)
				x.v.floats = put(&s->meta, x.v.floats, count * sizeof(double), 8);
			if (a)
				a[k] = x;
		}
		c.attrs = a;
	}
	if (dc)
		*dc = c;
	return dc;
}

/* Meta and data bytes of a staged call; data starts at QC_ROUND_UP(meta, QC_DATA_ALIGN). */
static void measure_call(const qcf_op_call *c, size_t *meta, size_t *data)
{
	stager s = {{NULL, 0}, {NULL, 0}, 0};
	stage_call(&s, c);
	*meta = QC_ROUND_UP(s.meta.off, QC_DATA_ALIGN);
	*data = QC_ROUND_UP(s.data.off, QC_DATA_ALIGN);
}

static qcf_op_call *stage_at(unsigned char *at, size_t meta, const qcf_op_call *c, int keep_outputs)
{
	stager s = {{at, 0}, {at + meta, 0}, keep_outputs};
	return stage_call(&s, c);
}

static const char *check_tensor(const qcf_tensor *t)
{
	if (t->rank < 0 || t->rank > QCF_MAX_RANK)
		return "rank out of range";
	if (t->rank > 0 && !t->shape)
		return "shape missing";
	if (t->nbytes > 0 && !t->data)
		return "data missing";
	if (t->nbytes > ((size_t)1 << 48))
		return "nbytes out of range";
	if (t->quant && (t->quant->count < 0 || (t->quant->count > 0 && !t->quant->scales)))
		return "bad quantization";
	return NULL;
}

/* Why the harness's call cannot be staged, or NULL. */
static const char *check_call(const qcf_op_call *c)
{
	if (!c)
		return "no call";
	if (c->n_inputs < 0 || c->n_outputs < 0 || c->n_attrs < 0)
		return "negative count";
	if ((c->n_inputs && !c->inputs) || (c->n_outputs && !c->outputs) ||
	    (c->n_attrs && !c->attrs))
		return "array missing";
	for (int32_t k = 0; k < c->n_inputs; k++)
		if (check_tensor(&c->inputs[k]))
			return check_tensor(&c->inputs[k]);
	for (int32_t k = 0; k < c->n_outputs; k++)
		if (check_tensor(&c->outputs[k]))
			return check_tensor(&c->outputs[k]);
	for (int32_t k = 0; k < c->n_attrs; k++) {
		const qcf_attr *a = &c->attrs[k];
		if ((a->type == QCF_ATTR_INTS || a->type == QCF_ATTR_FLOATS) &&
		    (a->count < 0 || (a->count > 0 && !a->v.ints)))
			return "bad attribute array";
	}
	return NULL;
}

/* ---------------------------------------------------------------- running */

/* Makes room for need elements; returns the array (p itself if it was big enough), or NULL. */
static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(p, n * elem);
	if (q)
		*cap = n;
	return q;
}

static qcf_op_call *slot_call(const qc_runner *r, const staged_case *sc)
{
	return (qcf_op_call *)(r->arena + sc->slot_off + QC_SLOT_HDR);
}

/* Puts a case's slot back as it was staged (after a crash or a stray write). */
static void restage(qc_runner *r, const staged_case *sc, const qcf_op_call *orig)
{
	memcpy(r->arena + sc->slot_off + QC_SLOT_HDR, r->shadow + sc->shadow_off, sc->meta_len);
	const qcf_op_call *c = slot_call(r, sc);
	for (int32_t k = 0; k < c->n_inputs; k++)
		if (c->inputs[k].nbytes)
			memcpy(c->inputs[k].data, orig->inputs[k].data, c->inputs[k].nbytes);
	for (int32_t k = 0; k < c->n_outputs; k++) {
		unsigned char *out = c->outputs[k].data;
		memset(out, 0, c->outputs[k].nbytes);
		memcpy(out + c->outputs[k].nbytes, qc_guard_pattern, QC_GUARD_BYTES);
	}
}

/* The harness's checks after a case, with the worker's (or runner's) outcome in res. */
static void finish_case(qc_runner *r, const staged_case *sc, const qcf_op_call *orig,
                        qc_exec_result *res)
{
	unsigned char *meta = r->arena + sc->slot_off + QC_SLOT_HDR;
	int meta_changed = memcmp(meta, r->shadow + sc->shadow_off, sc->meta_len) != 0;
	if (meta_changed)
		memcpy(meta, r->shadow + sc->shadow_off, sc->meta_len);
	if (res->outcome == QC_EXEC_CRASH || res->outcome == QC_EXEC_TIMEOUT)
		return;
	const qcf_op_call *c = slot_call(r, sc);
	char why[128] = "";
	for (int32_t k = 0; k < c->n_outputs && !why[0]; k++) {
		const unsigned char *g =
		        (const unsigned char *)c->outputs[k].data + c->outputs[k].nbytes;
		if (memcmp(g, qc_guard_pattern, QC_GUARD_BYTES) != 0)
			snprintf(why, sizeof why, "wrote past the end of output %d", (int)k);
	}
	for (int32_t k = 0; k < c->n_inputs && !why[0]; k++)
		if (c->inputs[k].nbytes &&
		    memcmp(c->inputs[k].data, orig->inputs[k].data, c->inputs[k].nbytes) != 0)
			snprintf(why, sizeof why, "modified input %d", (int)k);
	if (!why[0] && meta_changed)
		snprintf(why, sizeof why,
		         "modified the call's description (tensors, shapes, "
		         "quantization or attributes)");
	if (why[0]) {
		res->outcome = QC_EXEC_ERROR;
		snprintf(res->message, sizeof res->message, "%s", why);
	}
}

static void worker_result(const qc_runner *r, const staged_case *sc, qc_exec_result *res)
{
	const qc_slot_header *h = (const qc_slot_header *)(r->arena + sc->slot_off);
	if (h->outcome < QC_EXEC_OK || h->outcome > QC_EXEC_ERROR) {
		res->outcome = QC_EXEC_ERROR;
		snprintf(res->message, sizeof res->message, "garbled answer from the worker");
		return;
	}
	res->outcome = (qc_outcome)h->outcome;
	res->seconds = h->seconds;
	memcpy(res->message, h->message, sizeof res->message);
	res->message[sizeof res->message - 1] = '\0';
}

/* Sends cases [k, m) to the worker. */
static int send_cases(qc_runner *r, size_t k, size_t m)
{
	uint64_t *offs = grow(r->offsets, &r->offsets_cap, m - k, sizeof *offs);
	if (!offs)
		return -1;
	r->offsets = offs;
	for (size_t i = k; i < m; i++)
		r->offsets[i - k] = r->cases[i].slot_off;
	qc_command c = {.count = (uint32_t)(m - k), .quit = 0};
	if (qc_send_full(r->fd, &c, sizeof c) < 0)
		return -1;
	return qc_send_full(r->fd, r->offsets, (m - k) * sizeof *r->offsets);
}

/* Is the worker still there? Collects it if it died while idle. */
static int worker_alive(qc_runner *r)
{
	if (r->pid <= 0)
		return 0;
	int st;
	if (waitpid(r->pid, &st, WNOHANG) == 0)
		return 1;
	trace(r, "worker %ld died while idle", (long)r->pid);
	stop_worker(r);
	return 0;
}

/* Runs the staged cases r->cases[0..m). */
static int run_piece(qc_runner *r, size_t m, const qcf_op_call *const *calls,
                     qc_exec_result *results, char *err, size_t err_size)
{
	size_t k = 0;
	int failed_sends = 0;
	char buf[4096];
	while (k < m) {
		if (atomic_load(&r->cancelled))
			return -2;
		if (!worker_alive(r) && start_worker(r, err, err_size) < 0) {
			if (atomic_load(&r->cancelled))
				return -2;
			for (; k < m; k++) {
				qc_exec_result *res = &results[r->cases[k].index];
				res->outcome = QC_EXEC_ERROR;
				snprintf(res->message, sizeof res->message, "no worker: %s", err);
			}
			return -1;
		}
		if (send_cases(r, k, m) < 0) {
			/* The worker died before reading: no case was running. */
			end_worker(r, 1);
			if (++failed_sends >= 3) {
				snprintf(err, err_size, "%s: cannot send work to the worker",
				         r->shown);
				for (; k < m; k++) {
					qc_exec_result *res = &results[r->cases[k].index];
					res->outcome = QC_EXEC_ERROR;
					snprintf(res->message, sizeof res->message, "%s", err);
				}
				return -1;
			}
			continue;
		}
		int restart = 0;
		while (k < m && !restart) {
			const staged_case *sc = &r->cases[k];
			qc_exec_result *res = &results[sc->index];
			double t0 = qc_now_s();
			int ready = wait_readable(r->fd, r->timeout_s);
			ssize_t got = 0;
			if (ready > 0) {
				size_t want = m - k < sizeof buf ? m - k : sizeof buf;
				do
					got = read(r->fd, buf, want);
				while (got < 0 && errno == EINTR);
			}
			if (atomic_load(&r->cancelled)) {
				end_worker(r, 1);
				return -2;
			}
			if (ready == 0) {
				trace(r, "case %d timed out, killing worker %ld", sc->index,
				      (long)r->pid);
				end_worker(r, 1);
				res->outcome = QC_EXEC_TIMEOUT;
				res->seconds = qc_now_s() - t0;
				snprintf(res->message, sizeof res->message,
				         "timed out after %g s (worker killed)", r->timeout_s);
				restart = 1;
			} else if (got <= 0) {
				int st = end_worker(r, 0);
				res->outcome = QC_EXEC_CRASH;
				res->seconds = qc_now_s() - t0;
				describe_exit(st, &res->signal, res->message, sizeof res->message);
				trace(r, "case %d: worker %s", sc->index, res->message);
				restart = 1;
			}
			if (restart) {
				finish_case(r, sc, calls[sc->index], res);
				k++;
				break;
			}
			for (ssize_t i = 0; i < got; i++, k++) {
				sc = &r->cases[k];
				res = &results[sc->index];
				worker_result(r, sc, res);
				finish_case(r, sc, calls[sc->index], res);
				if (buf[i] == QC_CASE_GUARD) {
					restart = 1; /* the worker stopped; it waits for a new
					                command */
					k++;
					break;
				}
			}
		}
		/* Whatever happened to the slots still to run, start them afresh. */
		if (restart)
			for (size_t i = k; i < m; i++)
				restage(r, &r->cases[i], calls[r->cases[i].index]);
	}
	return 0;
}

static void free_kept(qc_runner *r)
{
	for (size_t i = 0; i < r->n_keep; i++)
		free(r->keep[i]);
	r->n_keep = 0;
}

/* Moves the staged calls of a finished piece out of the arena (the next piece reuses it). */
static int keep_piece(qc_runner *r, size_t m, const qcf_op_call **staged)
{
	if (!staged)
		return 0;
	void **keep = grow(r->keep, &r->keep_cap, r->n_keep + m, sizeof *keep);
	if (!keep)
		return -1;
	r->keep = keep;
	for (size_t i = 0; i < m; i++) {
		const qcf_op_call *c = slot_call(r, &r->cases[i]);
		size_t meta, data;
		measure_call(c, &meta, &data);
		void *buf = aligned_alloc(QC_DATA_ALIGN, meta + data + QC_DATA_ALIGN);
		if (!buf)
			return -1;
		r->keep[r->n_keep++] = buf;
		staged[r->cases[i].index] = stage_at(buf, meta, c, 1);
	}
	return 0;
}

int qc_runner_execute(qc_runner *r, const qcf_op_call *const *calls, int n, qc_exec_result *results,
                      const qcf_op_call **staged, char *err, size_t err_size)
{
	free_kept(r);
	if (atomic_load(&r->cancelled))
		return -2;
	if (n <= 0)
		return 0;
	memset(results, 0, (size_t)n * sizeof *results);
	if (staged)
		memset(staged, 0, (size_t)n * sizeof *staged);
	staged_case *cases = grow(r->cases, &r->cases_cap, (size_t)n, sizeof *cases);
	if (!cases) {
		snprintf(err, err_size, "out of memory");
		return -1;
	}
	r->cases = cases;
	size_t cap = qc_runner_capacity(r);
	int i = 0;
	while (i < n) {
		size_t m = 0, off = 0, shadow = 0;
		for (; i < n; i++) {
			qc_exec_result *res = &results[i];
			const char *bad = check_call(calls[i]);
			if (bad) {
				res->outcome = QC_EXEC_ERROR;
				snprintf(res->message, sizeof res->message, "malformed call: %s",
				         bad);
				continue;
			}
			size_t meta, data;
			measure_call(calls[i], &meta, &data);
			if (meta + data > cap) {
				res->outcome = QC_EXEC_ERROR;
				snprintf(res->message, sizeof res->message,
				         "case too large for the shared arena (%zu bytes, capacity "
				         "%zu)",
				         meta + data, cap);
				continue;
			}
			if (off + QC_SLOT_HDR + meta + data > r->arena_bytes)
				break;
			unsigned char *sh = grow(r->shadow, &r->shadow_cap, shadow + meta, 1);
			if (!sh) {
				snprintf(err, err_size, "out of memory");
				return -1;
			}
			r->shadow = sh;
			staged_case *sc = &r->cases[m++];
			sc->index = i;
			sc->slot_off = off;
			sc->meta_len = meta;
			sc->shadow_off = shadow;
			memset(r->arena + off, 0, QC_SLOT_HDR);
			qcf_op_call *c = stage_at(r->arena + off + QC_SLOT_HDR, meta, calls[i], 0);
			memcpy(r->shadow + shadow, c, meta);
			if (staged)
				staged[i] = c;
			off += QC_SLOT_HDR + meta + data;
			shadow += meta;
		}
		if (m == 0)
			continue;
		if (i < n)
			trace(r, "batch does not fit the arena: running %zu case(s) in one piece",
			      m);
		int rc = run_piece(r, m, calls, results, err, err_size);
		if (rc < 0)
			return rc;
		if (i < n && keep_piece(r, m, staged) < 0) {
			snprintf(err, err_size, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ open/close */

static void free_runner(qc_runner *r)
{
	if (!r)
		return;
	free_kept(r);
	free(r->keep);
	if (r->arena)
		munmap(r->arena, r->arena_bytes);
	if (r->arena_fd >= 0)
		close(r->arena_fd);
	for (int i = 0; i < r->n_options; i++) {
		free((char *)r->options[i].key);
		free((char *)r->options[i].value);
	}
	free(r->options);
	free(r->path);
	free(r->shown);
	free(r->worker);
	free(r->shadow);
	free(r->cases);
	free(r->offsets);
	free(r);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* The worker executable: cfg's, $QCONFORM_WORKER, or next to the running executable. */
static char *worker_path(const qc_runner_config *cfg)
{
	const char *w = cfg->worker_path;
	if (!w || !*w)
		w = getenv("QCONFORM_WORKER");
	if (w && *w)
		return strdup(w);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return strdup(WORKER_NAME);
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		slash[1] = '\0';
	else
		exe[0] = '\0';
	size_t len = strlen(exe) + sizeof WORKER_NAME;
	char *path = malloc(len);
	if (path)
		snprintf(path, len, "%s%s", exe, WORKER_NAME);
	return path;
}

int qc_runner_open(const qc_runner_config *cfg, qc_runner **out, qc_plugin_info *info, char *err,
                   size_t err_size)
{
	*out = NULL;
	if (!cfg || !cfg->plugin_path || !*cfg->plugin_path) {
		snprintf(err, err_size, "no plugin path");
		return -1;
	}
	const char *p = cfg->plugin_path;
	qc_runner *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, err_size, "%s: out of memory", p);
		return -1;
	}
	r->pid = -1;
	r->fd = -1;
	r->arena_fd = -1;
	const char *env = getenv("QCONFORM_TRACE");
	r->trace = cfg->trace || (env && *env && strcmp(env, "0") != 0);
	r->timeout_s = cfg->timeout_s;
	r->shown = strdup(p);
	if (!r->shown) {
		snprintf(err, err_size, "%s: out of memory", p);
		free_runner(r);
		return -1;
	}

	trace(r, "plugin %s", p);
	r->path = realpath(p, NULL);
	if (!r->path) {
		snprintf(err, err_size, "%s: cannot open: %s", p, strerror(errno));
		free_runner(r);
		return -1;
	}
	if (strlen(p) >= sizeof r->info.path) {
		snprintf(err, err_size, "%s: path too long", p);
		free_runner(r);
		return -1;
	}
	/* reports name the plugin as the user gave it (the sha256 says which file it was) */
	snprintf(r->info.path, sizeof r->info.path, "%s", p);
	if (qc_sha256_file(r->path, r->info.sha256) < 0) {
		snprintf(err, err_size, "%s: cannot open: %s", p, strerror(errno));
		free_runner(r);
		return -1;
	}
	trace(r, "resolved to %s, sha256 %s", r->path, r->info.sha256);

	if (cfg->n_options > 0) {
		r->options = calloc((size_t)cfg->n_options, sizeof *r->options);
		if (!r->options) {
			snprintf(err, err_size, "%s: out of memory", p);
			free_runner(r);
			return -1;
		}
		for (; r->n_options < cfg->n_options; r->n_options++) {
			qcf_option *o = &r->options[r->n_options];
			o->key = dup_or_empty(cfg->options[r->n_options].key);
			o->value = dup_or_empty(cfg->options[r->n_options].value);
			if (!o->key || !o->value) {
				r->n_options++;
				snprintf(err, err_size, "%s: out of memory", p);
				free_runner(r);
				return -1;
			}
		}
	}

	char *w = worker_path(cfg);
	if (!w) {
		snprintf(err, err_size, "%s: out of memory", p);
		free_runner(r);
		return -1;
	}
	r->worker = realpath(w, NULL);
	if (!r->worker || access(r->worker, X_OK) != 0) {
		snprintf(err, err_size, "%s: cannot run the worker %s: %s", p, w, strerror(errno));
		free(w);
		free_runner(r);
		return -1;
	}
	free(w);
	trace(r, "worker executable %s", r->worker);

	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	r->arena_bytes = QC_ROUND_UP(cfg->arena_bytes ? cfg->arena_bytes : DEFAULT_ARENA, page);
	r->arena_fd = arena_create(r->arena_bytes);
	void *a = r->arena_fd < 0 ? MAP_FAILED : arena_map(r->arena_fd, r->arena_bytes);
	if (a == MAP_FAILED) {
		snprintf(err, err_size, "%s: cannot map a %zu-byte arena: %s", p, r->arena_bytes,
		         strerror(errno));
		free_runner(r);
		return -1;
	}
	r->arena = a;
	trace(r, "arena: %zu bytes at %p", r->arena_bytes, a);

	if (start_worker(r, err, err_size) < 0) {
		free_runner(r);
		return -1;
	}
	if (info)
		*info = r->info;
	*out = r;
	return 0;
}

void qc_runner_close(qc_runner *r)
{
	if (!r)
		return;
	if (worker_alive(r)) {
		/* quit: the worker calls destroy() and exits; its channel then reads EOF. */
		qc_command c = {.count = 0, .quit = 1};
		double wait = r->timeout_s > CLOSE_WAIT_S ? r->timeout_s : CLOSE_WAIT_S;
		int gone = 0;
		if (qc_send_full(r->fd, &c, sizeof c) == 0) {
			char b;
			while (!gone && wait_readable(r->fd, wait) > 0)
				gone = read(r->fd, &b, 1) <= 0;
		}
		trace(r, "closing worker %ld%s", (long)r->pid, gone ? "" : " (killed)");
		end_worker(r, !gone);
	}
	free_runner(r);
}

void qc_runner_cancel(qc_runner *r)
{
	atomic_store(&r->cancelled, 1);
	pid_t pid = (pid_t)atomic_load(&r->live_pid);
	if (pid > 0)
		kill(-pid, SIGKILL);
}

size_t qc_runner_capacity(const qc_runner *r)
{
	return r->arena_bytes - QC_SLOT_HDR;
}
