/*
 * runner: one worker process per runner, forked from the harness, holds the
 * plugin. See runner.h for the contract.
 *
 * Memory. The arena is one MAP_SHARED anonymous mapping made before the
 * first fork, so the harness and every worker see it at the same address and
 * pointers written by one are valid in the other. A batch is staged into
 * the arena as a row of slots:
 *
 *   slot:  [slot header: the worker's answer] [meta] [data]
 *   meta:  qcf_op_call, tensor arrays, strings, shapes, quant arrays, attrs
 *   data:  input bytes; output bytes (zeroed), each followed by GUARD_BYTES
 *          of a fixed pattern
 *
 * The harness keeps a private copy of every slot's meta ("shadow"): after a
 * case it puts back whatever the kernel changed there, so the staged call it
 * hands to its caller is always well formed.
 *
 * Channel. One AF_UNIX stream socketpair (a two-way pipe whose writes can use
 * MSG_NOSIGNAL): the harness sends commands (a list of slot offsets); the
 * worker answers with one byte per finished case, after writing the outcome
 * into the slot header. '.' means go on, '!' means the worker saw a guard
 * broken and stopped the batch: the harness restages the rest of the batch
 * (a kernel writing past its buffers may have hit the next slots) and
 * resends it. The same happens after a crash or a timeout, with a fresh
 * worker.
 */
#include "runner.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sha256.h"

#define DEFAULT_ARENA ((size_t)256 << 20)
#define GUARD_BYTES   64
#define DATA_ALIGN    64
#define META_ALIGN    16
#define LOAD_WAIT_S   30.0 /* at least this long for dlopen + create when a timeout is set */
#define CLOSE_WAIT_S  5.0  /* at least this long for destroy() at close */
#define EXIT_WAIT_S   2.0  /* for a worker whose channel closed to finish dying */

/* Size of a version 1 descriptor: everything up to last_error. */
#define PLUGIN_V1_SIZE (offsetof(qcf_plugin, last_error) + sizeof(void (*)(void)))

#define ROUND_UP(x, a) (((x) + (a)-1) & ~((size_t)(a)-1))

/* The worker's answer for one case, at the start of its slot. */
typedef struct slot_header {
	int32_t outcome; /* qc_outcome */
	int32_t pad;
	double seconds;
	char message[256];
} slot_header;

#define SLOT_HDR ROUND_UP(sizeof(slot_header), DATA_ALIGN)

/* Command: a header, then count uint64 slot offsets. */
typedef struct command {
	uint32_t count;
	uint32_t quit;
} command;

/* Sent once by the worker after loading. */
typedef struct load_report {
	int32_t ok;
	uint32_t abi;
	char name[128];
	char version[64];
	char error[256];
} load_report;

/* The harness's record of one staged case. */
typedef struct staged_case {
	int index;         /* into calls[] */
	size_t slot_off;   /* arena offset of the slot */
	size_t meta_len;   /* bytes of meta after the slot header */
	size_t shadow_off; /* copy of the meta in r->shadow */
} staged_case;

struct qc_runner {
	char *shown; /* the plugin path as the caller gave it, for messages */
	char *path;  /* its realpath, which the worker loads */
	qcf_option *options;
	int n_options;
	double timeout_s;
	int trace;
	qc_plugin_info info;

	unsigned char *arena;
	size_t arena_bytes;
	pid_t pid; /* worker, or -1 */
	int fd;    /* harness end of the channel, or -1 */

	unsigned char *shadow;
	size_t shadow_cap;
	staged_case *cases;
	size_t cases_cap;
	uint64_t *offsets;
	size_t offsets_cap;
	void **keep; /* heap copies of staged calls (batches run in pieces) */
	size_t n_keep, keep_cap;
};

static const unsigned char guard_pattern[GUARD_BYTES] = {
        0xde, 0xad, 0xbe, 0xef, 0x5a, 0xa5, 0x0f, 0xf0, 0x13, 0x57, 0x9b, 0xdf, 0x24,
        0x68, 0xac, 0xe0, 0xde, 0xad, 0xbe, 0xef, 0x5a, 0xa5, 0x0f, 0xf0, 0x13, 0x57,
        0x9b, 0xdf, 0x24, 0x68, 0xac, 0xe0, 0xde, 0xad, 0xbe, 0xef, 0x5a, 0xa5, 0x0f,
        0xf0, 0x13, 0x57, 0x9b, 0xdf, 0x24, 0x68, 0xac, 0xe0, 0xde, 0xad, 0xbe, 0xef,
        0x5a, 0xa5, 0x0f, 0xf0, 0x13, 0x57, 0x9b, 0xdf, 0x24, 0x68, 0xac, 0xe0,
};

/* ---------------------------------------------------------------- helpers */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void trace(const qc_runner *r, const char *fmt, ...)
{
	if (!r->trace)
		return;
	char line[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* One write per line, so harness and worker lines do not interleave. */
	char out[800];
	int n = snprintf(out, sizeof out, "qconform: trace [%ld]: %s\n", (long)getpid(), line);
	if (n > 0) {
		ssize_t w = write(2, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
		(void)w;
	}
}

/* Copies a string the plugin owns: bounded, never reads past its NUL. */
static void copy_bounded(char *dst, size_t size, const char *src)
{
	size_t i = 0;
	if (src)
		for (; i + 1 < size && src[i]; i++)
			dst[i] = src[i] == '\n' || src[i] == '\r' ? ' ' : src[i];
	dst[i] = '\0';
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

static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, (char *)buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* Writes all of buf; the harness side never raises SIGPIPE. */
static int send_full(int fd, const void *buf, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = send(fd, (const char *)buf + done, n - done, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

/* Waits for fd to be readable (or hung up): 1; timeout: 0; error: -1. */
static int wait_readable(int fd, double timeout_s)
{
	double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
	for (;;) {
		int ms = -1;
		if (timeout_s > 0) {
			double left = deadline - now_s();
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

/* Collects a worker whose channel closed: lets it finish dying, else kills it. */
static int reap(pid_t pid, double grace_s)
{
	int st;
	double end = now_s() + grace_s;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return st;
		if (w < 0 && errno != EINTR)
			return -1;
		if (now_s() >= end)
			break;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* ------------------------------------------------------------- the worker */

static void worker_reset_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	/* Deadly signals must kill the worker so the harness sees them (a
	 * sanitizer runtime or the harness may have installed handlers). */
	static const int dfl[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE,  SIGILL,  SIGTRAP, SIGSYS,
	                          SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGCHLD};
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof dfl / sizeof dfl[0]; i++)
		sigaction(dfl[i], &sa, NULL);
	/* Ctrl-C is for the harness, which decides; the worker follows via
	 * its channel or PDEATHSIG. A broken channel is an error return. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * The worker keeps the channel and nothing else of the harness's files:
 * stdin reads /dev/null and stdout goes to stderr, so whatever a plugin
 * prints cannot mix with the harness's own output. Returns the channel.
 */
static int worker_fds(int fd)
{
	if (fd < 3) {
		int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (moved < 0)
			_exit(1);
		close(fd);
		fd = moved;
	}
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0U, 0);
	int nul = open("/dev/null", O_RDONLY);
	if (nul > 0) {
		dup2(nul, 0);
		close(nul);
	}
	dup2(2, 1);
	return fd;
}

static void worker_fail(const qc_runner *r, int fd, load_report *rep, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep->error, sizeof rep->error, fmt, ap);
	va_end(ap);
	trace(r, "worker: refused: %s", rep->error);
	rep->ok = 0;
	send_full(fd, rep, sizeof *rep);
	_exit(1);
}

static const char *status_name(qcf_status s)
{
	switch (s) {
	case QCF_OK: return "QCF_OK";
	case QCF_NOT_SUPPORTED: return "QCF_NOT_SUPPORTED";
	case QCF_INVALID_PARAM: return "QCF_INVALID_PARAM";
	case QCF_ERROR: return "QCF_ERROR";
	default: return "an unknown status";
	}
}

/* Loads, negotiates and creates; reports to the harness; returns the descriptor. */
static void worker_load(const qc_runner *r, int fd, qcf_plugin *d, qcf_instance **inst)
{
	load_report rep;
	memset(&rep, 0, sizeof rep);

	trace(r, "worker: dlopen(\"%s\", RTLD_NOW | RTLD_LOCAL)", r->path);
	void *h = dlopen(r->path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		worker_fail(r, fd, &rep, "dlopen failed: %s", e ? e : "unknown error");
	}
	dlerror();
	void *sym = dlsym(h, QCF_ENTRY_SYMBOL);
	if (!sym)
		worker_fail(r, fd, &rep, "no entry symbol %s", QCF_ENTRY_SYMBOL);
	trace(r, "worker: found %s at %p", QCF_ENTRY_SYMBOL, sym);
	qcf_negotiate_fn negotiate;
	memcpy(&negotiate, &sym, sizeof negotiate); /* object pointer -> function pointer */

	qcf_negotiation n;
	memset(&n, 0, sizeof n);
	n.struct_size = sizeof n;
	n.host_min_version = QCF_ABI_VERSION_MIN;
	n.host_max_version = QCF_ABI_VERSION;
	trace(r, "worker: negotiate: host speaks %u..%u", n.host_min_version, n.host_max_version);
	qcf_status st = negotiate(&n);
	if (st != QCF_OK) {
		char offer[16] = "none";
		if (n.abi_version)
			snprintf(offer, sizeof offer, "%u", n.abi_version);
		worker_fail(r, fd, &rep,
		            "no common ABI version: host speaks %u..%u, plugin offers %s "
		            "(negotiate returned %s)",
		            n.host_min_version, n.host_max_version, offer, status_name(st));
	}
	if (n.abi_version < QCF_ABI_VERSION_MIN || n.abi_version > QCF_ABI_VERSION)
		worker_fail(r, fd, &rep,
		            "no common ABI version: host speaks %u..%u, plugin offers %u",
		            n.host_min_version, n.host_max_version, n.abi_version);
	trace(r, "worker: negotiated ABI version %u", n.abi_version);
	if (!n.plugin)
		worker_fail(r, fd, &rep, "negotiate returned no descriptor");

	/* The struct_size rule: read what both sides know, the rest is zero. */
	uint32_t size = n.plugin->struct_size;
	trace(r, "worker: descriptor at %p, struct_size %u (host knows %zu)",
	      (const void *)n.plugin, size, sizeof *d);
	if (size < PLUGIN_V1_SIZE)
		worker_fail(r, fd, &rep, "short descriptor: struct_size %u < %zu", size,
		            (size_t)PLUGIN_V1_SIZE);
	memset(d, 0, sizeof *d);
	memcpy(d, n.plugin, size < sizeof *d ? size : sizeof *d);
	if (d->abi_version != n.abi_version)
		worker_fail(r, fd, &rep, "descriptor says ABI version %u, negotiation said %u",
		            d->abi_version, n.abi_version);
	static const struct {
		const char *name;
		size_t off;
	} required[] = {
	        {"create", offsetof(qcf_plugin, create)},
	        {"destroy", offsetof(qcf_plugin, destroy)},
	        {"supports", offsetof(qcf_plugin, supports)},
	        {"execute", offsetof(qcf_plugin, execute)},
	        {"last_error", offsetof(qcf_plugin, last_error)},
	};
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
		void (*fn)(void);
		memcpy(&fn, (const char *)d + required[i].off, sizeof fn);
		if (!fn)
			worker_fail(r, fd, &rep, "required function NULL: %s", required[i].name);
	}
	copy_bounded(rep.name, sizeof rep.name, d->name);
	copy_bounded(rep.version, sizeof rep.version, d->version);
	trace(r, "worker: plugin \"%s\" version \"%s\"; prepare %s, release %s", rep.name,
	      rep.version, d->prepare ? "present" : "absent", d->release ? "present" : "absent");

	char msg[256] = "";
	*inst = NULL;
	trace(r, "worker: create() with %d option(s)", r->n_options);
	st = d->create(r->options, r->n_options, inst, msg, sizeof msg);
	msg[sizeof msg - 1] = '\0';
	if (st != QCF_OK) {
		char m[200];
		copy_bounded(m, sizeof m, msg);
		worker_fail(r, fd, &rep, "create failed (%s)%s%s", status_name(st), *m ? ": " : "",
		            m);
	}
	trace(r, "worker: create() ok, ready");
	rep.ok = 1;
	rep.abi = n.abi_version;
	if (send_full(fd, &rep, sizeof rep) < 0)
		_exit(1);
}

static qc_outcome outcome_of(qcf_status st)
{
	switch (st) {
	case QCF_OK: return QC_EXEC_OK;
	case QCF_NOT_SUPPORTED: return QC_EXEC_NOT_SUPPORTED;
	case QCF_INVALID_PARAM: return QC_EXEC_INVALID_PARAM;
	default: return QC_EXEC_ERROR;
	}
}

/* Runs one staged case; returns 1 if it broke a guard (the batch stops). */
static int worker_case(const qcf_plugin *d, qcf_instance *inst, unsigned char *slot,
                       const unsigned char **guards, size_t guards_cap)
{
	slot_header *h = (slot_header *)slot;
	const qcf_op_call *call = (const qcf_op_call *)(slot + SLOT_HDR);
	/* Guard positions, taken before any plugin code runs. */
	size_t ng = call->n_outputs > 0 ? (size_t)call->n_outputs : 0;
	if (ng > guards_cap)
		ng = guards_cap;
	for (size_t k = 0; k < ng; k++)
		guards[k] = (const unsigned char *)call->outputs[k].data + call->outputs[k].nbytes;

	const char *stage = "supports";
	double seconds = 0;
	qcf_status st = d->supports(inst, call);
	if (st == QCF_OK) {
		qcf_prepared *prep = NULL;
		int prepared = 0;
		double t0 = now_s();
		if (d->prepare) {
			stage = "prepare";
			st = d->prepare(inst, call, &prep);
			prepared = st == QCF_OK;
		}
		if (st == QCF_OK) {
			stage = "execute";
			st = d->execute(inst, prep, call);
		}
		seconds = now_s() - t0;
		if (prepared && d->release)
			d->release(inst, prep);
	}
	h->outcome = outcome_of(st);
	h->seconds = seconds;
	h->message[0] = '\0';
	if (st != QCF_OK) {
		copy_bounded(h->message, sizeof h->message, d->last_error(inst));
		if (!h->message[0] ||
		    (st != QCF_NOT_SUPPORTED && st != QCF_INVALID_PARAM && st != QCF_ERROR))
			snprintf(h->message, sizeof h->message, "%s returned %s (%d)", stage,
			         status_name(st), (int)st);
	}
	for (size_t k = 0; k < ng; k++)
		if (memcmp(guards[k], guard_pattern, GUARD_BYTES) != 0)
			return 1;
	return 0;
}

static _Noreturn void worker_main(qc_runner *r, int fd, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* no orphan spinning in a hung kernel */
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, "qconform-worker");
	fd = worker_fds(fd);
	worker_reset_signals();
	struct rlimit nocore = {0, 0};
	setrlimit(RLIMIT_CORE, &nocore); /* a crashing kernel is a verdict, not a core file */

	qcf_plugin d;
	qcf_instance *inst;
	worker_load(r, fd, &d, &inst);

	uint64_t *offs = NULL;
	size_t cap = 0;
	const unsigned char *guards[256];
	for (;;) {
		command c;
		if (read_full(fd, &c, sizeof c) != (ssize_t)sizeof c)
			_exit(0); /* the harness went away */
		if (c.quit) {
			d.destroy(inst);
			_exit(0);
		}
		if (c.count > cap) {
			free(offs);
			cap = c.count;
			offs = malloc(cap * sizeof *offs);
			if (!offs)
				_exit(3);
		}
		if (read_full(fd, offs, c.count * sizeof *offs) !=
		    (ssize_t)(c.count * sizeof *offs))
			_exit(0);
		for (uint32_t i = 0; i < c.count; i++) {
			int stop = worker_case(&d, inst, r->arena + offs[i], guards,
			                       sizeof guards / sizeof guards[0]);
			char b = stop ? '!' : '.';
			if (write(fd, &b, 1) != 1)
				_exit(0);
			if (stop)
				break;
		}
	}
}

/* ------------------------------------------------------ worker lifecycle */

static void stop_worker(qc_runner *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->pid = -1;
}

/* Starts a worker and waits for its load report; 0, or -1 with the reason. */
static int start_worker(qc_runner *r, char *err, size_t err_size)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, err_size, "%s: socketpair: %s", r->shown, strerror(errno));
		return -1;
	}
	trace(r, "starting a worker for %s", r->path);
	fflush(NULL); /* the child must not write the harness's buffered output again */
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, err_size, "%s: fork: %s", r->shown, strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		worker_main(r, sv[1], parent);
	}
	close(sv[1]);
	r->pid = pid;
	r->fd = sv[0];

	load_report rep;
	double wait =
	        r->timeout_s > 0 ? (r->timeout_s > LOAD_WAIT_S ? r->timeout_s : LOAD_WAIT_S) : 0;
	int ready = wait_readable(r->fd, wait);
	ssize_t got = ready > 0 ? read_full(r->fd, &rep, sizeof rep) : -1;
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

/* Kills the worker (timeout) or collects it (crash); returns its wait status. */
static int end_worker(qc_runner *r, int kill_it)
{
	if (kill_it)
		kill(r->pid, SIGKILL);
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
	b->off = ROUND_UP(b->off, align);
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
		if (sq->scales)
			q.scales = put(&s->meta, sq->scales, count * sizeof(float), sizeof(float));
		if (sq->zero_points)
			q.zero_points = put(&s->meta, sq->zero_points, count * sizeof(int32_t),
			                    sizeof(int32_t));
		if (sq->float_zero_points)
			q.float_zero_points = put(&s->meta, sq->float_zero_points,
			                          count * sizeof(float), sizeof(float));
		t.quant = put(&s->meta, &q, sizeof q, META_ALIGN);
	}
	if (output) {
		t.data = put(&s->data, s->keep_outputs ? src->data : NULL, src->nbytes, DATA_ALIGN);
		put(&s->data, guard_pattern, GUARD_BYTES, 1);
	} else if (src->data || src->nbytes) {
		t.data = put(&s->data, src->data, src->nbytes, DATA_ALIGN);
	}
	if (dst)
		*dst = t;
}

/* Deep-copies call into s (or measures it); returns the copy. */
static qcf_op_call *stage_call(stager *s, const qcf_op_call *src)
{
	qcf_op_call c;
	memset(&c, 0, sizeof c);
	qcf_op_call *dc = put(&s->meta, NULL, sizeof c, META_ALIGN);
	c.struct_size = sizeof c;
	c.op = put_str(&s->meta, src->op);
	c.semantics = put_str(&s->meta, src->semantics);
	c.n_inputs = src->n_inputs;
	c.n_outputs = src->n_outputs;
	c.n_attrs = src->n_attrs;
	if (src->inputs) {
		qcf_tensor *t = put(&s->meta, NULL, (size_t)src->n_inputs * sizeof *t, META_ALIGN);
		for (int32_t k = 0; k < src->n_inputs; k++)
			stage_tensor(s, t ? &t[k] : NULL, &src->inputs[k], 0);
		c.inputs = t;
	}
	if (src->outputs) {
		qcf_tensor *t = put(&s->meta, NULL, (size_t)src->n_outputs * sizeof *t, META_ALIGN);
		for (int32_t k = 0; k < src->n_outputs; k++)
			stage_tensor(s, t ? &t[k] : NULL, &src->outputs[k], 1);
		c.outputs = t;
	}
	if (src->attrs) {
		qcf_attr *a = put(&s->meta, NULL, (size_t)src->n_attrs * sizeof *a, META_ALIGN);
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

/* Meta and data bytes of a staged call; data starts at ROUND_UP(meta, DATA_ALIGN). */
static void measure_call(const qcf_op_call *c, size_t *meta, size_t *data)
{
	stager s = {{NULL, 0}, {NULL, 0}, 0};
	stage_call(&s, c);
	*meta = ROUND_UP(s.meta.off, DATA_ALIGN);
	*data = ROUND_UP(s.data.off, DATA_ALIGN);
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
	return (qcf_op_call *)(r->arena + sc->slot_off + SLOT_HDR);
}

/* Puts a case's slot back as it was staged (after a crash or a stray write). */
static void restage(qc_runner *r, const staged_case *sc, const qcf_op_call *orig)
{
	memcpy(r->arena + sc->slot_off + SLOT_HDR, r->shadow + sc->shadow_off, sc->meta_len);
	const qcf_op_call *c = slot_call(r, sc);
	for (int32_t k = 0; k < c->n_inputs; k++)
		if (c->inputs[k].nbytes)
			memcpy(c->inputs[k].data, orig->inputs[k].data, c->inputs[k].nbytes);
	for (int32_t k = 0; k < c->n_outputs; k++) {
		unsigned char *out = c->outputs[k].data;
		memset(out, 0, c->outputs[k].nbytes);
		memcpy(out + c->outputs[k].nbytes, guard_pattern, GUARD_BYTES);
	}
}

/* The harness's checks after a case, with the worker's (or runner's) outcome in res. */
static void finish_case(qc_runner *r, const staged_case *sc, const qcf_op_call *orig,
                        qc_exec_result *res)
{
	unsigned char *meta = r->arena + sc->slot_off + SLOT_HDR;
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
		if (memcmp(g, guard_pattern, GUARD_BYTES) != 0)
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
	const slot_header *h = (const slot_header *)(r->arena + sc->slot_off);
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
	command c = {.count = (uint32_t)(m - k), .quit = 0};
	if (send_full(r->fd, &c, sizeof c) < 0)
		return -1;
	return send_full(r->fd, r->offsets, (m - k) * sizeof *r->offsets);
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
		if (!worker_alive(r) && start_worker(r, err, err_size) < 0) {
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
			double t0 = now_s();
			int ready = wait_readable(r->fd, r->timeout_s);
			ssize_t got = 0;
			if (ready > 0) {
				size_t want = m - k < sizeof buf ? m - k : sizeof buf;
				do
					got = read(r->fd, buf, want);
				while (got < 0 && errno == EINTR);
			}
			if (ready == 0) {
				trace(r, "case %d timed out, killing worker %ld", sc->index,
				      (long)r->pid);
				end_worker(r, 1);
				res->outcome = QC_EXEC_TIMEOUT;
				res->seconds = now_s() - t0;
				snprintf(res->message, sizeof res->message,
				         "timed out after %g s (worker killed)", r->timeout_s);
				restart = 1;
			} else if (got <= 0) {
				int st = end_worker(r, 0);
				res->outcome = QC_EXEC_CRASH;
				res->seconds = now_s() - t0;
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
				if (buf[i] == '!') {
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
		void *buf = aligned_alloc(DATA_ALIGN, meta + data + DATA_ALIGN);
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
			if (off + SLOT_HDR + meta + data > r->arena_bytes)
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
			memset(r->arena + off, 0, SLOT_HDR);
			qcf_op_call *c = stage_at(r->arena + off + SLOT_HDR, meta, calls[i], 0);
			memcpy(r->shadow + shadow, c, meta);
			if (staged)
				staged[i] = c;
			off += SLOT_HDR + meta + data;
			shadow += meta;
		}
		if (m == 0)
			continue;
		if (i < n)
			trace(r, "batch does not fit the arena: running %zu case(s) in one piece",
			      m);
		if (run_piece(r, m, calls, results, err, err_size) < 0)
			return -1;
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
	for (int i = 0; i < r->n_options; i++) {
		free((char *)r->options[i].key);
		free((char *)r->options[i].value);
	}
	free(r->options);
	free(r->path);
	free(r->shown);
	free(r->shadow);
	free(r->cases);
	free(r->offsets);
	free(r);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
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
	if (strlen(r->path) >= sizeof r->info.path) {
		snprintf(err, err_size, "%s: path too long", p);
		free_runner(r);
		return -1;
	}
	snprintf(r->info.path, sizeof r->info.path, "%s", r->path);
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

	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	r->arena_bytes = ROUND_UP(cfg->arena_bytes ? cfg->arena_bytes : DEFAULT_ARENA, page);
	void *a = mmap(NULL, r->arena_bytes, PROT_READ | PROT_WRITE,
	               MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a == MAP_FAILED) {
		snprintf(err, err_size, "%s: cannot map a %zu-byte arena: %s", p, r->arena_bytes,
		         strerror(errno));
		r->arena = NULL;
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
		command c = {.count = 0, .quit = 1};
		double wait = r->timeout_s > CLOSE_WAIT_S ? r->timeout_s : CLOSE_WAIT_S;
		int gone = 0;
		if (send_full(r->fd, &c, sizeof c) == 0) {
			char b;
			while (!gone && wait_readable(r->fd, wait) > 0)
				gone = read(r->fd, &b, 1) <= 0;
		}
		trace(r, "closing worker %ld%s", (long)r->pid, gone ? "" : " (killed)");
		end_worker(r, !gone);
	}
	free_runner(r);
}

size_t qc_runner_capacity(const qc_runner *r)
{
	return r->arena_bytes - SLOT_HDR;
}
