/*
 * worker: the plugin's side of the runner, run as its own executable
 * (qconform-worker, harness/worker/main.c) that the harness starts with
 * posix_spawn. Being a fresh process it is single-threaded whatever the
 * harness is doing, so dlopen, malloc and the plugin's constructors never
 * meet a lock another harness thread held at fork time.
 *
 * Start: argv (wire.h) -> parent-death signal and parent check -> fds (the
 * channel and the arena kept, stdin /dev/null, stdout to stderr, the rest
 * closed) -> default signal dispositions, no core dumps -> the arena mapped
 * at the harness's address, inaccessible -> the fault handler -> dlopen,
 * negotiate, create -> load report. Then commands: per case the slot is
 * opened (wire.h), supports, prepare, execute, the slot closed (or, with
 * QC_CMD_DEFER_CLOSE and no thread or child process of the plugin's, left
 * open to the command's end), last_error, release, the answer sent: no call
 * of the plugin's for a case comes after its answer. A fault is reported
 * (qc_fault: the arena offset, the case, the call) before the worker dies of
 * it, so the harness can tell whose it was.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/digest.h"
#include "run/runner.h"
#include "run/sandbox.h"
#include "run/stream.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux >= 4.17; older kernels take it as a hint */
#endif

/* Size of a version 1 descriptor: everything up to last_error. */
#define PLUGIN_V1_SIZE (offsetof(qcf_plugin, last_error) + sizeof(void (*)(void)))

static int tracing;

static void trace(const char *fmt, ...)
{
	if (!tracing)
		return;
	va_list ap;
	va_start(ap, fmt);
	qc_trace_line(fmt, ap);
	va_end(ap);
}

static void reset_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	/* Deadly signals must kill the worker so the harness sees them (a
	 * sanitizer runtime installs handlers before main). */
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

/* Closes fds [lo, hi]. */
static void close_fds(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return;
	if (close_range(lo, hi, 0) == 0)
		return;
	/* No close_range (Linux < 5.9): one at a time, up to the fd limit. */
	struct rlimit rl;
	unsigned top = 65536;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < top)
		top = (unsigned)rl.rlim_cur;
	for (unsigned fd = lo; fd <= hi && fd < top; fd++)
		close((int)fd);
}

/*
 * The worker keeps its channel and the arena fd and nothing else of the
 * harness's files: stdin reads /dev/null and stdout goes to stderr, so
 * whatever a plugin prints cannot mix with the harness's own output.
 */
static void setup_fds(int a, int b)
{
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	close_fds(3, (unsigned)a - 1);
	close_fds((unsigned)a + 1, (unsigned)b - 1);
	close_fds((unsigned)b + 1, ~0U);
	int nul = open("/dev/null", O_RDONLY);
	if (nul > 0) {
		dup2(nul, 0);
		close(nul);
	}
	dup2(2, 1);
}

/* --stdio: frames on this fd (stream.h) instead of packets on the channel; -1 otherwise. */
static int stream_fd = -1;

/* One frame at a time on the stream: a kernel's thread may fault (and its handler write a
 * FAULT) while this thread writes an ANSWER. The handler waits for the frame in progress (at
 * most about a second); this thread never holds the lock while plugin code runs. */
static atomic_flag stream_busy = ATOMIC_FLAG_INIT;
/* This thread holds stream_busy (a fault in its own write must not wait for itself). */
static _Thread_local int stream_holding;

static int stream_send(uint32_t type, const void *a, size_t na, const void *b, size_t nb)
{
	int mine = !stream_holding;
	for (long spins = 0; mine && atomic_flag_test_and_set(&stream_busy); spins++)
		if (spins > 1000000)
			break; /* the holder is gone (killed in a handler): write anyway */
		else if (spins > 1000)
			sched_yield();
	stream_holding = 1;
	int rc = qc_frame_write(stream_fd, type, a, na, b, nb);
	if (mine) {
		stream_holding = 0;
		atomic_flag_clear(&stream_busy);
	}
	return rc;
}

/* The load report: a packet on the channel, or a LOADED frame on the stream. */
static int send_report(int fd, const qc_load_report *rep)
{
	if (stream_fd < 0)
		return qc_send_full(fd, rep, sizeof *rep);
	qc_loaded l;
	memset(&l, 0, sizeof l);
	l.protocol = QC_STREAM_PROTOCOL;
	l.layout = qc_stream_layout();
	l.rep = *rep;
	return stream_send(QC_FRAME_LOADED, &l, sizeof l, NULL, 0);
}

static _Noreturn void fail(int fd, qc_load_report *rep, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep->error, sizeof rep->error, fmt, ap);
	va_end(ap);
	trace("worker: refused: %s", rep->error);
	rep->ok = 0;
	send_report(fd, rep);
	_exit(1);
}

/* Maps the arena at exactly addr (the staged calls point into it). */
static unsigned char *map_arena(int fd, const qc_worker_args *a, qc_load_report *rep)
{
	void *want = (void *)a->arena_addr;
	void *p = mmap(want, a->arena_bytes, PROT_NONE,
	               MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, a->arena_fd, 0);
	if (p == want) {
		close(a->arena_fd);
		trace("worker: arena mapped at %p (%zu bytes)", p, a->arena_bytes);
		return p;
	}
	const char *why = "the address is in use";
	rep->arena_taken = p != MAP_FAILED || errno == EEXIST;
	if (p == MAP_FAILED)
		why = strerror(errno);
	else
		munmap(p, a->arena_bytes); /* a kernel without MAP_FIXED_NOREPLACE: a hint */
	fail(fd, rep, "cannot map the shared arena at 0x%" PRIxPTR ": %s", a->arena_addr, why);
}

/* Loads, negotiates and creates; reports to the harness; fills the descriptor. */
/* The ABI version the plugin negotiated (load); calls that need a newer one are not offered. */
static unsigned negotiated_abi = QCF_ABI_VERSION_MIN;

static void load(int fd, const qc_worker_args *a, qcf_plugin *d, qcf_instance **inst,
                 qc_load_report *report)
{
	qc_load_report rep = *report;

#ifdef QC_WORKER_LINKED_PLUGIN
	/* the static worker: the plugin is linked in (make static-worker) */
	(void)a;
	qcf_negotiate_fn negotiate = qconform_plugin_negotiate;
	trace("worker: the plugin is linked in");
#else
	trace("worker: dlopen(\"%s\", RTLD_NOW | RTLD_LOCAL)", a->plugin);
	void *h = dlopen(a->plugin, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		fail(fd, &rep, "dlopen failed: %s", e ? e : "unknown error");
	}
	dlerror();
	void *sym = dlsym(h, QCF_ENTRY_SYMBOL);
	if (!sym)
		fail(fd, &rep, "no entry symbol %s", QCF_ENTRY_SYMBOL);
	trace("worker: found %s at %p", QCF_ENTRY_SYMBOL, sym);
	qcf_negotiate_fn negotiate;
	memcpy(&negotiate, &sym, sizeof negotiate); /* object pointer -> function pointer */
#endif

	qcf_negotiation n;
	memset(&n, 0, sizeof n);
	n.struct_size = sizeof n;
	n.host_min_version = QCF_ABI_VERSION_MIN;
	n.host_max_version = QCF_ABI_VERSION;
	trace("worker: negotiate: host speaks %u..%u", n.host_min_version, n.host_max_version);
	qcf_status st = negotiate(&n);
	if (st != QCF_OK) {
		char offer[16] = "none";
		if (n.abi_version)
			snprintf(offer, sizeof offer, "%u", n.abi_version);
		fail(fd, &rep,
		     "no common ABI version: host speaks %u..%u, plugin offers %s "
		     "(negotiate returned %s)",
		     n.host_min_version, n.host_max_version, offer, qc_wire_status_name(st));
	}
	if (n.abi_version < QCF_ABI_VERSION_MIN || n.abi_version > QCF_ABI_VERSION)
		fail(fd, &rep, "no common ABI version: host speaks %u..%u, plugin offers %u",
		     n.host_min_version, n.host_max_version, n.abi_version);
	trace("worker: negotiated ABI version %u", n.abi_version);
	if (!n.plugin)
		fail(fd, &rep, "negotiate returned no descriptor");

	/* The struct_size rule: read what both sides know, the rest is zero. */
	uint32_t size = n.plugin->struct_size;
	trace("worker: descriptor at %p, struct_size %u (host knows %zu)", (const void *)n.plugin,
	      size, sizeof *d);
	if (size < PLUGIN_V1_SIZE)
		fail(fd, &rep, "short descriptor: struct_size %u < %zu", size,
		     (size_t)PLUGIN_V1_SIZE);
	memset(d, 0, sizeof *d);
	memcpy(d, n.plugin, size < sizeof *d ? size : sizeof *d);
	if (d->abi_version != n.abi_version)
		fail(fd, &rep, "descriptor says ABI version %u, negotiation said %u",
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
			fail(fd, &rep, "required function NULL: %s", required[i].name);
	}
	qc_wire_copy_bounded(rep.name, sizeof rep.name, d->name);
	qc_wire_copy_bounded(rep.version, sizeof rep.version, d->version);
	qc_wire_copy_bounded(rep.threads_option, sizeof rep.threads_option, d->threads_option);
	trace("worker: plugin \"%s\" version \"%s\"; prepare %s, release %s", rep.name, rep.version,
	      d->prepare ? "present" : "absent", d->release ? "present" : "absent");

	char msg[256] = "";
	*inst = NULL;
	trace("worker: create() with %d option(s)", a->n_options);
	st = d->create(a->options, a->n_options, inst, msg, sizeof msg);
	msg[sizeof msg - 1] = '\0';
	if (st != QCF_OK) {
		char m[200];
		qc_wire_copy_bounded(m, sizeof m, msg);
		fail(fd, &rep, "create failed (%s)%s%s", qc_wire_status_name(st), *m ? ": " : "",
		     m);
	}
	trace("worker: create() ok, ready");
	rep.ok = 1;
	rep.abi = n.abi_version;
	negotiated_abi = n.abi_version;
	if (send_report(fd, &rep) < 0)
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

/* ------------------------------------------------------------ memory */

/*
 * --memory: the worker's address space may grow by that much beyond the arena (RLIMIT_AS), so
 * a kernel that allocates without end fails its allocation instead of making the machine
 * swap. Not under AddressSanitizer, whose shadow memory takes terabytes of address space.
 */
static size_t memory_limit; /* RLIMIT_AS in force, 0: none */
static size_t page_bytes;   /* for the fault handler, which may not call sysconf */

static void limit_memory(const qc_worker_args *a, qc_load_report *rep)
{
#if defined(__SANITIZE_ADDRESS__)
	(void)a;
	(void)rep;
#else
	if (!a->memory)
		return;
	size_t lim = a->memory + a->arena_bytes;
	struct rlimit rl = {lim, lim};
	if (setrlimit(RLIMIT_AS, &rl) == 0) {
		memory_limit = lim;
		page_bytes = (size_t)sysconf(_SC_PAGESIZE);
		rep->memory = a->memory;
	}
#endif
}

/* /proc/self/NAME into buf, NUL-terminated: the bytes read, or -1. Async-signal-safe. */
static ssize_t read_proc_self(const char *name, char *buf, size_t size)
{
	char path[64] = "/proc/self/";
	size_t l = strlen(path);
	for (size_t i = 0; name[i] && l + 1 < sizeof path; i++)
		path[l++] = name[i];
	path[l] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Is the address space within 1/16 (and 64 MiB) of the limit? Async-signal-safe. */
static int near_memory_limit(void)
{
	if (!memory_limit)
		return 0;
	char buf[64];
	ssize_t n = read_proc_self("statm", buf, sizeof buf);
	if (n <= 0)
		return 0;
	size_t pages = 0;
	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		pages = pages * 10 + (size_t)(buf[i] - '0');
	size_t used = pages * page_bytes, slack = memory_limit / 16;
	if (slack < ((size_t)64 << 20))
		slack = (size_t)64 << 20;
	return used + slack >= memory_limit;
}

/* ------------------------------------------------------------ faults */

/* What the fault handler needs; written by the main thread between cases. */
static struct {
	unsigned char *arena;
	size_t bytes;
	int fd;
	pid_t main_tid;
	volatile sig_atomic_t seq;    /* case of the current command */
	volatile sig_atomic_t state;  /* QC_FAULT_* */
	volatile sig_atomic_t phase;  /* QC_PHASE_*: the plugin call this thread is in */
	volatile sig_atomic_t closed; /* the running case's slot is closed (or left open) */
} fault_ctx;

/* 1 a write, 0 a read, -1 unknown: the page-fault error code says it on x86-64. */
static int fault_was_write(void *uctx)
{
#if defined(__x86_64__) && defined(REG_ERR)
	const ucontext_t *uc = uctx;
	return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
	(void)uctx;
	return -1;
#endif
}

static void stdio_answer_in_fault(int main_thread);

/* The fault this thread reports: a second one while it does (its answer read memory the
 * plugin closed or unmapped meanwhile) sends the first again and waits for nobody. */
static _Thread_local int reporting;
static _Thread_local qc_fault reported;

static void send_fault(const qc_fault *f)
{
	if (stream_fd >= 0) {
		stream_send(QC_FRAME_FAULT, f, sizeof *f, NULL, 0);
	} else {
		ssize_t w = send(fault_ctx.fd, f, sizeof *f, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)w;
	}
}

static _Noreturn void die_of(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* SIGSEGV/SIGBUS/SIGABRT: reported (where, when, in which call), then the signal kills the
 * worker as it would have (default action, raised again at once: the main thread must not go
 * on and answer). */
static void on_fault(int sig, siginfo_t *si, void *uctx)
{
	if (reporting) {
		send_fault(&reported);
		die_of(sig);
	}
	reporting = 1;
	uintptr_t a = (uintptr_t)si->si_addr, lo = (uintptr_t)fault_ctx.arena;
	int in_arena = sig != SIGABRT && fault_ctx.arena && a >= lo && a - lo < fault_ctx.bytes;
	int oom = near_memory_limit();
	/* every death is reported: a remote worker's relay cannot see the signal otherwise (an
	 * ssh session ends with a status, not with the signal), and the phase names the call */
	{
		qc_fault f;
		memset(&f, 0, sizeof f);
		f.magic = QC_MSG_FAULT;
		f.seq = (uint32_t)fault_ctx.seq;
		f.state = fault_ctx.state;
		f.signal = sig;
		f.write = in_arena ? fault_was_write(uctx) : -1;
		f.main_thread = (pid_t)syscall(SYS_gettid) == fault_ctx.main_tid;
		f.in_arena = in_arena;
		f.oom = oom;
		f.offset = in_arena ? a - lo : 0;
		f.phase = f.main_thread ? fault_ctx.phase : QC_PHASE_NONE;
		reported = f;
		if (stream_fd >= 0)
			stdio_answer_in_fault(f.main_thread);
		send_fault(&f);
	}
	die_of(sig);
}

static void install_fault_handler(unsigned char *arena, size_t bytes, int fd)
{
	/* SIGABRT too: a failed allocation often ends in abort() (C++ std::bad_alloc) */
	fault_ctx.arena = arena;
	fault_ctx.bytes = bytes;
	fault_ctx.fd = fd;
	fault_ctx.main_tid = (pid_t)syscall(SYS_gettid);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	if (stream_fd >= 0) {
		/* every other deadly signal too, and SIGALRM (a plugin's own alarm) */
		static const int more[] = {SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGALRM};
		for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
			sigaction(more[i], &sa, NULL);
	}
}

/* ------------------------------------------------------------ cases */

static int protect(unsigned char *arena, uint64_t off, uint64_t len, int prot)
{
	return len ? mprotect(arena + off, len, prot) : 0;
}

/*
 * Opens the slot of a case for its run: 0, or -1 when the kernel refuses. The call, its
 * inputs and output 0 are one range (the harness compares the call and the inputs with its
 * own copies afterwards); each further output opens by itself, so the closed page between two
 * outputs stays closed. Two system calls a case in all (this and closing), whatever it is.
 */
static int open_slot(unsigned char *arena, const qc_case_desc *c)
{
	uint64_t end = c->n_outputs ? c->rw_off[0] + c->rw_len[0] : c->ro_off + c->ro_len;
	if (protect(arena, c->ro_off, end - c->ro_off, PROT_READ | PROT_WRITE) < 0)
		return -1;
	for (uint32_t k = 1; k < c->n_outputs; k++)
		if (protect(arena, c->rw_off[k], c->rw_len[k], PROT_READ | PROT_WRITE) < 0)
			return -1;
	return 0;
}

/* /proc/self/task, opened on first use (after the sandbox), and what it was: a plugin may close
 * the fd or put another file in its place. */
static int task_fd = -2;
static dev_t task_dev;
static ino_t task_ino;

/* Threads of the process besides this one (a plugin's pool, or a thread it left running). The
 * kernel counts them in the link count of /proc/self/task (2 + threads): one fstat a case,
 * where reading /proc/self/status made the kernel format a page of text. */
static int other_threads(void)
{
	struct stat st;
	if (task_fd == -2) {
		task_fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (task_fd >= 0 && fstat(task_fd, &st) == 0 && st.st_nlink >= 3) {
			task_dev = st.st_dev;
			task_ino = st.st_ino;
		} else if (task_fd >= 0) {
			close(task_fd);
			task_fd = -1;
		}
	}
	if (task_fd >= 0 && fstat(task_fd, &st) == 0 && st.st_dev == task_dev &&
	    st.st_ino == task_ino && st.st_nlink >= 3)
		return st.st_nlink > 3;
	char buf[4096];
	if (read_proc_self("status", buf, sizeof buf) <= 0)
		return 1;
	const char *t = strstr(buf, "\nThreads:");
	return t ? atoi(t + 10) > 1 : 1;
}

/* Is this the process's only thread, with no child process (which may share the open
 * slots)? 0 when it cannot tell. */
static int alone(void)
{
	siginfo_t si;
	return !other_threads() && waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 &&
	       errno == ECHILD;
}

/* The slots of a command left open (QC_CMD_DEFER_CLOSE): arena offsets [lo, hi), none when
 * lo >= hi; on is 0 once the command stopped leaving slots open. readable: when a case with
 * threads stops it, the open slots become read-only, not closed (a remote worker compares them
 * once more, then closes them). */
typedef struct open_span {
	int on;
	uint64_t lo, hi;
	int readable;
} open_span;

static void close_span(unsigned char *arena, open_span *sp)
{
	if (sp->lo < sp->hi)
		protect(arena, sp->lo, sp->hi - sp->lo, PROT_NONE);
	sp->lo = UINT64_MAX;
	sp->hi = 0;
}

/* Runs case seq of a command up to its answer (release and closing come after it is sent).
 * opened: the slot is open already (a remote worker's, just installed). sp: the command's open
 * slots, or NULL when every slot closes at its return. */
static void run_case(const qcf_plugin *d, qcf_instance *inst, unsigned char *arena,
                     const qc_case_desc *c, int opened, uint32_t seq, qc_answer *ans,
                     qcf_prepared **prep_out, open_span *sp)
{
	*prep_out = NULL;
	memset(ans, 0, sizeof *ans);
	ans->magic = QC_MSG_ANSWER;
	ans->seq = seq;
	fault_ctx.seq = (sig_atomic_t)seq;
	if (!opened && open_slot(arena, c) < 0) {
		ans->outcome = QC_EXEC_ERROR;
		snprintf(ans->message, sizeof ans->message,
		         "the worker could not open the case's memory: %s", strerror(errno));
		protect(arena, c->slot_off, c->slot_len, PROT_NONE);
		return;
	}
	const qcf_op_call *call = (const qcf_op_call *)(arena + c->call_off);
	const char *stage = "supports";
	double seconds = 0;
	uint32_t needs = qcf_call_abi_version(call);
	if (needs > negotiated_abi) {
		/* not offered: the plugin's ABI has no word for the case's types */
		protect(arena, c->slot_off, c->slot_len, PROT_NONE);
		ans->outcome = QC_EXEC_NOT_SUPPORTED;
		snprintf(ans->message, sizeof ans->message,
		         "not offered: the case needs plugin ABI version %u, the plugin speaks %u",
		         (unsigned)needs, negotiated_abi);
		return;
	}
	fault_ctx.closed = 0;
	fault_ctx.state = QC_FAULT_RUNNING;
	fault_ctx.phase = QC_PHASE_SUPPORTS;
	qcf_status st = d->supports(inst, call);
	qcf_prepared *prep = NULL;
	int prepared = 0;
	if (st == QCF_OK) {
		double t0 = qc_now_s();
		if (d->prepare) {
			stage = "prepare";
			fault_ctx.phase = QC_PHASE_PREPARE;
			st = d->prepare(inst, call, &prep);
			prepared = st == QCF_OK;
		}
		if (st == QCF_OK) {
			stage = "execute";
			fault_ctx.phase = QC_PHASE_EXECUTE;
			st = d->execute(inst, prep, call);
		}
		seconds = qc_now_s() - t0;
	}
	/* Closed the moment execute returned: a late write (or read) of the kernel faults and is
	 * blamed on this case; the harness copies the outputs as execute left them. The state says
	 * so first: a thread of the kernel may fault the instant the slot closes. */
	ans->outcome = outcome_of(st); /* what a remote worker's fault handler may send */
	ans->seconds = seconds;
	fault_ctx.phase = QC_PHASE_NONE;
	fault_ctx.state = QC_FAULT_RETURNED;
	if (sp && sp->on && alone()) {
		/* nothing else runs to write late: open until the command's end, its outputs as
		 * they are now */
		ans->out_hash = qc_wire_hash_outputs(arena, c);
		ans->flags |= QC_ANS_LEFT_OPEN;
		if (c->slot_off < sp->lo)
			sp->lo = c->slot_off;
		if (c->slot_off + c->slot_len > sp->hi)
			sp->hi = c->slot_off + c->slot_len;
	} else {
		/* a thread of the plugin's may be writing this instant: the outputs' hash now, and
		 * again once the slot takes no more writes; a change between is a late write the
		 * closing raced (what lands before this first hash counts as the answer) */
		uint64_t at_return = qc_wire_hash_outputs(arena, c);
		ans->out_hash = at_return;
		int threads = other_threads();
		protect(arena, c->slot_off, c->slot_len, threads ? PROT_READ : PROT_NONE);
		if (threads) {
			if (qc_wire_hash_outputs(arena, c) != at_return)
				ans->flags |= QC_ANS_CHANGED_AT_CLOSE;
			protect(arena, c->slot_off, c->slot_len, PROT_NONE);
		}
		if (sp && sp->on) {
			/* a thread or child of the plugin's may write anywhere open: nothing stays
			 * open */
			if (sp->readable && sp->lo < sp->hi)
				protect(arena, sp->lo, sp->hi - sp->lo, PROT_READ);
			else
				close_span(arena, sp);
			sp->on = 0;
		}
	}
	fault_ctx.closed = 1;
	if (st != QCF_OK) {
		fault_ctx.phase = QC_PHASE_LAST_ERROR;
		fault_ctx.state = QC_FAULT_AFTER;
		const char *e = d->last_error(inst);
		/* the string is read here, still in the call's phase: a bad pointer is its fault */
		qc_wire_copy_bounded(ans->message, sizeof ans->message, e);
		fault_ctx.phase = QC_PHASE_NONE;
		if (!ans->message[0] ||
		    (st != QCF_NOT_SUPPORTED && st != QCF_INVALID_PARAM && st != QCF_ERROR))
			snprintf(ans->message, sizeof ans->message, "%s returned %s (%d)", stage,
			         qc_wire_status_name(st), (int)st);
	} else if (d->engine) {
		/* which engine ran it, in the call's phase: a fault in engine() is the case's */
		fault_ctx.phase = QC_PHASE_ENGINE;
		fault_ctx.state = QC_FAULT_AFTER;
		qcf_engine e;
		memset(&e, 0, sizeof e);
		e.struct_size = sizeof e;
		if (d->engine(inst, prep, &e) == QCF_OK) {
			ans->engine = (int32_t)e.kind;
			e.name[sizeof e.name - 1] = '\0';
			qc_wire_copy_bounded(ans->engine_name, sizeof ans->engine_name, e.name);
		}
		fault_ctx.phase = QC_PHASE_NONE;
	}
	*prep_out = prepared ? prep : NULL;
}

/* Before the answer is sent: release (the slot is closed already, or left open). */
static void release_case(const qcf_plugin *d, qcf_instance *inst, qcf_prepared *prep)
{
	if (prep && d->release) {
		fault_ctx.state = QC_FAULT_AFTER;
		fault_ctx.phase = QC_PHASE_RELEASE;
		d->release(inst, prep);
		fault_ctx.phase = QC_PHASE_NONE;
	}
}

/* Is another thread of this process ready to run and waiting for a CPU (state R in its
 * /proc/self/task/TID/stat)? */
static int others_runnable(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	long self = (long)syscall(SYS_gettid);
	int found = 0;
	for (struct dirent *e; !found && (e = readdir(d));) {
		if (e->d_name[0] == '.' || atol(e->d_name) == self)
			continue;
		char name[64], buf[512];
		snprintf(name, sizeof name, "task/%.32s/stat", e->d_name);
		if (read_proc_self(name, buf, sizeof buf) <= 0)
			continue;
		const char *p = strrchr(buf, ')'); /* after the name, which may hold anything */
		found = p && p[1] == ' ' && p[2] == 'R';
	}
	closedir(d);
	return found;
}

static void sleep_ms(uint32_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The command's end. A kernel with threads of its own gets a moment in which a late write
 * still meets a closed slot of this command (and is blamed); a plugin on probation (a longer
 * settle_ms: it was caught writing late) gets more while one of its threads waits for a CPU. */
static void settle(uint32_t settle_ms)
{
	if (!settle_ms || !other_threads())
		return;
	uint32_t ms = settle_ms < 1000 ? settle_ms : 1000;
	sleep_ms(ms);
	if (settle_ms < QC_PROBATION_SETTLE_MS)
		return;
	for (uint32_t waited = ms; waited < QC_PROBATION_SETTLE_MAX_MS && others_runnable();
	     waited++)
		sleep_ms(1);
}

static int stdio_main(int argc, char **argv);

int qc_worker_main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--stdio"))
		return stdio_main(argc, argv);
	qc_worker_args a;
	char why[256];
	if (qc_wire_parse(argc, argv, &a, why, sizeof why) < 0) {
		fprintf(stderr, "%s: %s\n", argc > 0 ? argv[0] : "qconform-worker", why);
		return 2;
	}
	/* No orphan spinning in a hung kernel: die with the harness. It may be
	 * gone already (before the prctl), hence the check. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != a.parent)
		_exit(0);
	prctl(PR_SET_NAME, "qconform-worker");
	tracing = a.trace;
	int fd = a.channel_fd;
	setup_fds(fd, a.arena_fd);
	reset_signals();
	struct rlimit nocore = {0, 0};
	setrlimit(RLIMIT_CORE, &nocore); /* a crashing kernel is a verdict, not a core file */
	if (a.remote)
		return qc_relay_main(&a);

	qc_load_report rep;
	memset(&rep, 0, sizeof rep);
	qc_platform_probe(&rep.remote.platform); /* before the sandbox and the plugin */
	limit_memory(&a, &rep);
	if (a.sandbox) {
		const int keep[] = {fd, a.arena_fd};
		rep.sandbox_level = qc_sandbox_enter(keep, 2, a.allow, a.n_allow, rep.sandbox,
		                                     sizeof rep.sandbox);
		trace("worker: sandbox: %s", rep.sandbox);
	}
	unsigned char *arena = map_arena(fd, &a, &rep);
	install_fault_handler(arena, a.arena_bytes, fd);

	qcf_plugin d;
	qcf_instance *inst;
	load(fd, &a, &d, &inst, &rep);

	struct {
		qc_command c;
		qc_case_desc d[QC_WIRE_CHUNK];
	} cmd;
	for (;;) {
		ssize_t got;
		do
			got = recv(fd, &cmd, sizeof cmd, 0);
		while (got < 0 && errno == EINTR);
		if (got < (ssize_t)sizeof cmd.c)
			_exit(0); /* the harness went away */
		if (cmd.c.quit) {
			d.destroy(inst);
			_exit(0);
		}
		if (cmd.c.count > QC_WIRE_CHUNK ||
		    (size_t)got != sizeof cmd.c + cmd.c.count * sizeof cmd.d[0])
			_exit(4); /* not from this harness */
		open_span sp = {(cmd.c.flags & QC_CMD_DEFER_CLOSE) != 0, UINT64_MAX, 0, 0};
		for (uint32_t i = 0; i < cmd.c.count; i++) {
			const qc_case_desc *c = &cmd.d[i];
			if (c->slot_off > a.arena_bytes ||
			    c->slot_len > a.arena_bytes - c->slot_off ||
			    c->n_outputs > QC_WIRE_MAX_OUTPUTS)
				_exit(4);
			qc_answer ans;
			qcf_prepared *prep;
			run_case(&d, inst, arena, c, 0, i, &ans, &prep, &sp);
			release_case(&d, inst, prep);
			if (qc_send_full(fd, &ans, sizeof ans) < 0)
				_exit(0);
			fault_ctx.state = QC_FAULT_IDLE;
		}
		close_span(arena, &sp);
		settle(cmd.c.settle_ms);
		qc_answer done;
		memset(&done, 0, sizeof done);
		done.magic = QC_MSG_DONE;
		done.seq = cmd.c.count;
		if (qc_send_full(fd, &done, sizeof done) < 0)
			_exit(0);
	}
}

/* ------------------------------------------------------------ --stdio */

/*
 * A remote worker (stream.h): `qconform-worker --stdio [--plugin PATH] [--trace]`, started by
 * the command given to `qconform run --remote`. Frames come on stdin and go to stdout (the
 * plugin's own prints go to stderr); everything else, the plugin path included when the
 * command line has none, comes in the relay's HELLO.
 */

typedef struct stdio_state {
	int in;
	unsigned char *arena;
	size_t bytes;
	uint64_t base; /* the harness's address of the arena */
	unsigned timeout_ms;
	unsigned char *snap; /* the command's cases' regions as installed (then as answered) */
	size_t snap_cap;
	size_t snap_at[QC_WIRE_CHUNK]; /* where case seq's regions start in snap */
	size_t snap_end;
	unsigned char *out; /* an ANSWER frame's payload */
	size_t out_cap, out_len;
	unsigned char *tail; /* the command's DONE: span count, pad, spans changed after answers */
	size_t tail_cap, tail_len;
	uint32_t n_tail;
	uint64_t res_lo, res_hi; /* the arena's pages used since they last went back */
} stdio_state;

/* The harness stages small cases in a ring of a few MiB (runner_run.c), whose pages the next cases
 * use again: they stay. Once the cases used more of the arena than this, the pages go back to
 * the system at a command's end (every slot closed then: an access still faults). */
#define STDIO_RESIDENT ((uint64_t)16 << 20)

static void *grow_buf(unsigned char **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return *p;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	unsigned char *n = realloc(*p, c);
	if (!n) {
		fprintf(stderr, "qconform-worker: out of memory (%zu bytes)\n", need);
		_exit(3);
	}
	*p = n;
	*cap = c;
	return n;
}

/* Strings of a HELLO: a uint32 length and the bytes; a NUL-terminated copy in the frame's own
 * buffer is not possible, so each goes to a malloc'd string (freed never: the worker's life). */
static const char *take_string(const unsigned char **p, const unsigned char *end)
{
	uint32_t n;
	if (end - *p < 4)
		return NULL;
	memcpy(&n, *p, 4);
	*p += 4;
	if ((size_t)(end - *p) < n)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	memcpy(s, *p, n);
	s[n] = '\0';
	*p += n;
	return s;
}

static int in_slot(const qc_case_desc *d, uint64_t off, uint64_t len)
{
	return off >= d->slot_off && len <= d->slot_len && off - d->slot_off <= d->slot_len - len;
}

/* Checks a case's description against the arena: 0, or -1. */
static int desc_ok(const qc_case_desc *d, size_t bytes)
{
	if (d->slot_off > bytes || d->slot_len > bytes - d->slot_off ||
	    d->n_outputs > QC_WIRE_MAX_OUTPUTS || !in_slot(d, d->ro_off, d->ro_len) ||
	    !in_slot(d, d->call_off, sizeof(qcf_op_call)))
		return -1;
	for (uint32_t k = 0; k < d->n_outputs; k++)
		if (!in_slot(d, d->rw_off[k], d->rw_len[k]) || d->out_off[k] < d->rw_off[k] ||
		    d->out_len[k] > d->rw_len[k] ||
		    d->out_off[k] - d->rw_off[k] > d->rw_len[k] - d->out_len[k])
			return -1;
	return 0;
}

/* The regions a case's bytes travel in: ro, then each output region. */
static size_t regions(const qc_case_desc *d, uint64_t off[], uint64_t len[])
{
	size_t n = 0;
	off[n] = d->ro_off;
	len[n++] = d->ro_len;
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		off[n] = d->rw_off[k];
		len[n++] = d->rw_len[k];
	}
	return n;
}

/*
 * Installs case seq of a CASES frame: its regions are built in the command's snapshot (snap at
 * snap_at[seq]: the guard pattern, the frame's bytes over it) with the pointers moved from the
 * harness's address to this arena's, then copied into the slot, which stays open for the case's
 * run (as open_slot opens it: the closed page between two outputs stays closed). What a thread
 * of the plugin's writes meanwhile changes the slot, not the snapshot: an ANSWER carries it.
 * Returns the bytes of the frame it used, or 0 when they do not describe a case of this arena.
 */
static size_t install_case(stdio_state *s, const unsigned char *p, size_t left, uint32_t seq,
                           qc_case_desc *d)
{
	const unsigned char *start = p, *end = p + left;
	uint32_t n_reloc, n_lit;
	if (left < sizeof *d + 8)
		return 0;
	memcpy(d, p, sizeof *d);
	memcpy(&n_reloc, p + sizeof *d, 4);
	memcpy(&n_lit, p + sizeof *d + 4, 4);
	p += sizeof *d + 8;
	if (desc_ok(d, s->bytes) < 0 || n_reloc > d->ro_len / 8 ||
	    (size_t)(end - p) < (size_t)n_reloc * 8)
		return 0;
	const unsigned char *relocs = p;
	p += (size_t)n_reloc * 8;
	uint64_t off[1 + QC_WIRE_MAX_OUTPUTS], len[1 + QC_WIRE_MAX_OUTPUTS];
	size_t nr = regions(d, off, len), total = 0, start_of[1 + QC_WIRE_MAX_OUTPUTS];
	for (size_t i = 0; i < nr; i++) {
		start_of[i] = total;
		total += len[i];
	}
	size_t at0 = seq ? s->snap_end : 0;
	grow_buf(&s->snap, &s->snap_cap, at0 + total + 1);
	s->snap_at[seq] = at0;
	s->snap_end = at0 + total;
	unsigned char *snap = s->snap + at0;
	for (size_t i = 0; i < nr; i++)
		for (size_t k = 0; k < len[i]; k += QC_GUARD_BYTES)
			memcpy(snap + start_of[i] + k, qc_guard_pattern,
			       len[i] - k < QC_GUARD_BYTES ? len[i] - k : QC_GUARD_BYTES);
	for (uint32_t l = 0; l < n_lit; l++) {
		qc_span sp;
		if ((size_t)(end - p) < sizeof sp)
			return 0;
		memcpy(&sp, p, sizeof sp);
		p += sizeof sp;
		size_t padded = QC_ROUND_UP((size_t)sp.len, 8), r = 0;
		while (r < nr && (sp.off < off[r] || sp.off - off[r] >= len[r]))
			r++;
		if (r == nr || (size_t)(end - p) < padded || sp.len > len[r] - (sp.off - off[r]))
			return 0;
		memcpy(snap + start_of[r] + (sp.off - off[r]), p, sp.len);
		p += padded;
	}
	for (uint32_t i = 0; i < n_reloc; i++) {
		uint64_t at, v;
		memcpy(&at, relocs + 8 * (size_t)i, 8);
		if (at < d->ro_off || at - d->ro_off > d->ro_len - 8)
			return 0;
		memcpy(&v, snap + (at - d->ro_off), 8);
		if (!v)
			continue;
		if (v < s->base + d->slot_off || v - s->base - d->slot_off > d->slot_len)
			return 0;
		v = v - s->base + (uint64_t)(uintptr_t)s->arena;
		memcpy(snap + (at - d->ro_off), &v, 8);
	}
	/* room for any ANSWER of this case (a fault handler may write it: no allocation then):
	 * runs of changed bytes are 17 bytes apart at least, each a qc_span and 7 bytes of pad */
	grow_buf(&s->out, &s->out_cap,
	         sizeof(qc_answer) + 8 + total + (total / 17 + nr + 1) * (sizeof(qc_span) + 8));
	if (open_slot(s->arena, d) < 0)
		return 0;
	for (size_t i = 0, at = 0; i < nr; i++) {
		memcpy(s->arena + off[i], snap + at, len[i]);
		at += len[i];
	}
	return (size_t)(p - start);
}

/* Appends to *buf every run of bytes of case d's regions that differs from was (its
 * snapshot; runs closer than 16 bytes joined) as a qc_span naming case seq and the bytes, and
 * updates was. Returns the number of spans. Allocates nothing when *cap has room for the
 * worst case (install_case sizes out so). */
static uint32_t put_changes(unsigned char **buf, size_t *cap, size_t *len,
                            const unsigned char *arena, const qc_case_desc *d, unsigned char *was,
                            uint32_t seq)
{
	static const unsigned char zero[8];
	uint64_t off[1 + QC_WIRE_MAX_OUTPUTS], rlen[1 + QC_WIRE_MAX_OUTPUTS];
	size_t nr = regions(d, off, rlen);
	uint32_t n_spans = 0;
	for (size_t r = 0; r < nr; r++) {
		const unsigned char *now = arena + off[r];
		size_t i = 0, n = rlen[r];
		while (i < n) {
			if (i + 8 <= n && memcmp(now + i, was + i, 8) == 0) {
				i += 8; /* equal words, the common case */
				continue;
			}
			if (now[i] == was[i]) {
				i++;
				continue;
			}
			size_t j = i + 1, same = 0;
			for (; j < n && same < 16; j++)
				same = now[j] == was[j] ? same + 1 : 0;
			size_t e = j - same;
			qc_span sp = {off[r] + i, (uint32_t)(e - i), seq};
			size_t pad = QC_ROUND_UP(e - i, 8) - (e - i);
			grow_buf(buf, cap, *len + sizeof sp + (e - i) + pad);
			memcpy(*buf + *len, &sp, sizeof sp);
			memcpy(*buf + *len + sizeof sp, now + i, e - i);
			memcpy(*buf + *len + sizeof sp + (e - i), zero, pad);
			*len += sizeof sp + (e - i) + pad;
			memcpy(was + i, now + i, e - i);
			n_spans++;
			i = j;
		}
		was += n;
	}
	return n_spans;
}

/* The ANSWER of a case: the answer, then every run of changed bytes of its regions. A closed
 * slot is readable only while they are compared; a slot left open (QC_ANS_LEFT_OPEN) stays so,
 * compared again at the command's end. */
static void answer_case(stdio_state *s, const qc_case_desc *d, const qc_answer *ans)
{
	uint32_t pad = 0;
	int open = (ans->flags & QC_ANS_LEFT_OPEN) != 0;
	grow_buf(&s->out, &s->out_cap, sizeof *ans + 8); /* sized already (install_case) */
	memcpy(s->out, ans, sizeof *ans);
	memcpy(s->out + sizeof *ans + 4, &pad, 4);
	s->out_len = sizeof *ans + 8;
	if (!open)
		protect(s->arena, d->slot_off, d->slot_len, PROT_READ);
	uint32_t n_spans = put_changes(&s->out, &s->out_cap, &s->out_len, s->arena, d,
	                               s->snap + s->snap_at[ans->seq], 0);
	if (!open)
		protect(s->arena, d->slot_off, d->slot_len, PROT_NONE);
	memcpy(s->out + sizeof *ans, &n_spans, 4);
}

/* The cases of the command left open before seq (QC_ANS_LEFT_OPEN, kept[]): what changed in
 * them since their answers (a later case of the command wrote there) goes into the DONE, and
 * the harness compares them again, as it compares a local worker's open slots. Readable here:
 * open, or read-only since a case with threads returned. */
static void recheck_open(stdio_state *s, const qc_case_desc *cds, unsigned char *kept, uint32_t seq)
{
	for (uint32_t i = 0; i < seq; i++)
		if (kept[i]) {
			s->n_tail += put_changes(&s->tail, &s->tail_cap, &s->tail_len, s->arena,
			                         &cds[i], s->snap + s->snap_at[i], i);
			kept[i] = 0;
		}
}

/*
 * The case whose execute returned has one ANSWER, sent by whoever comes first: the main thread,
 * or the fault handler of a kernel thread that wrote late (the slot is closed: the outputs are
 * as execute left them), which must send it before its FAULT, or the outputs would never travel
 * back. out has room for any answer of the case (install_case), so nothing allocates here.
 *
 * turn names the case (a number of its own, shifted left by 2) and where its answer is
 * (TURN_*): a handler answers only the case whose turn it saw open, and waits only for that
 * case's answer, never for a later case's (a handler the scheduler held back while the worker
 * went on to the next case would otherwise answer a case still running, or wait for an answer
 * that comes only with the next command).
 */
enum { TURN_OPEN = 1, TURN_TAKEN = 2, TURN_SENT = 3 };
static _Thread_local int answering; /* this thread answers the case (it waits for nobody) */
static struct {
	stdio_state *s;
	const qc_case_desc *d;
	const qc_answer *ans;
	atomic_uint turn;
} stdio_now = {NULL, NULL, NULL, 0};

/* Answers the case of turn t (open): 1 sent, -1 the stream failed, 0 somebody else answers. */
static int stdio_answer_once(unsigned t)
{
	unsigned open = t;
	if (!atomic_compare_exchange_strong(&stdio_now.turn, &open, (t & ~3u) | TURN_TAKEN))
		return 0;
	answering = 1;
	answer_case(stdio_now.s, stdio_now.d, stdio_now.ans);
	int rc = stream_send(QC_FRAME_ANSWER, stdio_now.s->out, stdio_now.s->out_len, NULL, 0);
	answering = 0;
	atomic_store(&stdio_now.turn, (t & ~3u) | TURN_SENT);
	return rc < 0 ? -1 : 1;
}

/* Yields until the worker's thread is past closing the case's slot (until) or turn is no longer
 * t, for about two seconds at most: the worker's thread never waits for a handler. */
static void stdio_wait_turn(unsigned t, int until_closed)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; atomic_load(&stdio_now.turn) == t && !(until_closed && fault_ctx.closed);
	     i++) {
		sched_yield();
		if (i % 64 == 0 && clock_gettime(CLOCK_MONOTONIC, &now) == 0 &&
		    now.tv_sec - t0.tv_sec > 2)
			return;
	}
}

static void stdio_answer_in_fault(int main_thread)
{
	if (answering)
		return; /* its own answer faulted (the plugin unmapped the outputs): it is lost */
	unsigned t = atomic_load(&stdio_now.turn);
	int state = fault_ctx.state; /* of turn t's case, or later */
	if ((t & 3u) == TURN_OPEN) {
		/* the worker's own thread dying in last_error or release: no answer, the case
		 * crashed */
		if (state == QC_FAULT_IDLE || state == QC_FAULT_RUNNING ||
		    (state == QC_FAULT_AFTER && main_thread))
			return;
		/* the worker's thread may be closing the slot (execute returned): its last
		 * mprotect must not come while this answer reads it */
		stdio_wait_turn(t, 1);
		if (stdio_answer_once(t) != 0)
			return;
		t = atomic_load(&stdio_now.turn);
	}
	/* another thread answers the case: its ANSWER goes before this FAULT */
	if ((t & 3u) == TURN_TAKEN)
		stdio_wait_turn(t, 0);
}

static _Noreturn void stdio_refuse(qc_load_report *rep, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep->error, sizeof rep->error, fmt, ap);
	va_end(ap);
	rep->ok = 0;
	send_report(-1, rep);
	_exit(2);
}

/*
 * The keeper: the stream stays in a process of its own that runs no plugin code. The worker
 * proper (the child) gets a pipe each way; the keeper passes the harness's bytes down as they
 * come and the child's frames up one by one, each checked (a frame, of a type the worker
 * sends, LOADED only first). Whatever the plugin writes on the child's pipe (stray bytes, a
 * frame of its own making that is not one) ends the child, not the stream: the keeper kills it,
 * sends a FAULT saying so (garbled) and ends, and the relay reports the running case.
 *
 * The keeper also owns the worker's ends, so that the relay can tell them from the link's:
 *   - the timeout, on the device's clock: from a command's arrival (or the last answer) to the
 *     next answer, at most the HELLO's timeout_ms, or the keeper kills the worker and says
 *     TIMEOUT (the plugin cannot stop this clock: it runs in another process);
 *   - the worker's death: an EXIT frame with its wait status, after whatever it said;
 *   - its stdin's end without a quit (the link or the relay gone): the worker is killed at
 *     once, nobody is left to answer.
 * It leads a process group of its own (unless stdin is a terminal, whose foreground group it
 * must stay in) that the worker and its children inherit; every end of the keeper's kills that
 * group, so nothing the kernel forked outlives it.
 */
static struct {
	pthread_mutex_t mu;   /* out, and the clock */
	pthread_cond_t clock; /* the deadline changed */
	int out;
	pid_t child;
	int own_group;       /* the keeper leads its process group */
	unsigned timeout_ms; /* from HELLO; 0: none */
	int armed;           /* 1: a case runs, 2: the worker quits */
	struct timespec deadline;
	struct timespec wakes; /* when the clock wakes next, unless asleep */
	int asleep;            /* the clock waits without a deadline */
	uint32_t seq;          /* answers of the running command */
	int quit;              /* a quit command went down */
} kp = {PTHREAD_MUTEX_INITIALIZER,
        PTHREAD_COND_INITIALIZER,
        -1,
        -1,
        0,
        0,
        0,
        {0, 0},
        {0, 0},
        0,
        0,
        0};

/* How long a quitting worker may take to destroy its instance, beyond the timeout. */
#define KEEPER_QUIT_GRACE_MS 5000u

/* Kills the worker and whatever it forked (the keeper's group, the keeper with it). */
static _Noreturn void keeper_end(int status)
{
	kill(kp.child, SIGKILL);
	if (kp.own_group)
		kill(0, SIGKILL);
	_exit(status);
}

static int before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* kp.mu held: the deadline ms from now, or none. The clock is woken only when it would
 * otherwise sleep past the new deadline: a deadline moved later, or none, is found when it
 * wakes (every answer re-arms: no wake-up of the clock a case). */
static void keeper_arm(int what, unsigned ms)
{
	kp.armed = ms ? what : 0;
	if (!ms)
		return;
	clock_gettime(CLOCK_MONOTONIC, &kp.deadline);
	kp.deadline.tv_sec += (time_t)(ms / 1000);
	kp.deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (kp.deadline.tv_nsec >= 1000000000L) {
		kp.deadline.tv_sec++;
		kp.deadline.tv_nsec -= 1000000000L;
	}
	if (kp.asleep || before(&kp.deadline, &kp.wakes))
		pthread_cond_signal(&kp.clock);
}

/* The clock: a case past its timeout is killed and said TIMEOUT; a quit past its grace is
 * killed. Ends the keeper. */
static void *keeper_clock(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&kp.mu);
	for (;;) {
		if (!kp.armed) {
			kp.asleep = 1;
			pthread_cond_wait(&kp.clock, &kp.mu);
			kp.asleep = 0;
			continue;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!before(&now, &kp.deadline))
			break;
		kp.wakes = kp.deadline;
		pthread_cond_timedwait(&kp.clock, &kp.mu, &kp.deadline);
	}
	/* the lock stays held: nothing else goes up */
	kill(kp.child, SIGKILL);
	if (kp.armed == 1) {
		qc_keeper_note k = {kp.seq, 0};
		qc_frame_write(kp.out, QC_FRAME_TIMEOUT, &k, sizeof k, NULL, 0);
	}
	keeper_end(0);
}

typedef struct keeper_down {
	int from, to;
} keeper_down;

/* What went down: HELLO's timeout, a command's start (its first case's clock), a quit. */
static void keeper_saw(uint32_t type, const unsigned char *head, size_t n)
{
	pthread_mutex_lock(&kp.mu);
	if (type == QC_FRAME_HELLO && n >= sizeof(qc_hello)) {
		qc_hello h;
		memcpy(&h, head, sizeof h);
		kp.timeout_ms = h.timeout_ms;
	} else if (type == QC_FRAME_CASES && n >= sizeof(qc_command)) {
		qc_command c;
		memcpy(&c, head, sizeof c);
		kp.seq = 0;
		kp.quit = c.quit != 0;
		keeper_arm(c.quit ? 2 : 1,
		           c.quit ? kp.timeout_ms + KEEPER_QUIT_GRACE_MS : kp.timeout_ms);
	}
	pthread_mutex_unlock(&kp.mu);
}

static int pass(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The harness's bytes down, frame by frame (the worker checks them; a stream that is no
 * frames passes on as it is). At stdin's end without a quit, the worker is killed. */
static void *keeper_pass_down(void *p)
{
	keeper_down *k = p;
	unsigned char buf[65536];
	int framed = 1;
	for (;;) {
		qc_frame_header h;
		size_t want = framed ? sizeof h : sizeof buf;
		ssize_t n = framed ? qc_read_full(k->from, &h, sizeof h) : read(k->from, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || pass(k->to, framed ? (unsigned char *)&h : buf, (size_t)n) < 0 ||
		    (framed && n < (ssize_t)sizeof h))
			break;
		if (!framed)
			continue;
		if (h.magic != QC_STREAM_MAGIC) {
			framed = 0;
			continue;
		}
		unsigned char head[sizeof(qc_hello) > sizeof(qc_command) ? sizeof(qc_hello)
		                                                         : sizeof(qc_command)];
		size_t got = 0;
		if (!h.length)
			keeper_saw(h.type, head, 0);
		for (uint32_t left = h.length; left;) {
			ssize_t r = read(k->from, buf, left < sizeof buf ? left : sizeof buf);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				goto end;
			if (got < sizeof head) {
				size_t c = (size_t)r < sizeof head - got ? (size_t)r
				                                         : sizeof head - got;
				memcpy(head + got, buf, c);
				got += c;
			}
			/* the clock starts before the worker can have the whole frame: none of
			 * its answers can come before it */
			if ((uint32_t)r == left)
				keeper_saw(h.type, head, got);
			if (pass(k->to, buf, (size_t)r) < 0)
				goto end;
			left -= (uint32_t)r;
		}
	}
end:
	pthread_mutex_lock(&kp.mu);
	int quit = kp.quit;
	pthread_mutex_unlock(&kp.mu);
	if (!quit)
		keeper_end(0); /* nobody is left to answer */
	close(k->to);          /* the quitting child reads the stream's end */
	return NULL;
}

/* Waits until the child's pipe has bytes (1) or the child ended with none left (0): a process
 * the plugin forked may hold the pipe open after the worker died. */
static int keeper_wait_up(int up, int child_fd)
{
	for (;;) {
		struct pollfd p[2] = {{.fd = up, .events = POLLIN},
		                      {.fd = child_fd, .events = POLLIN}};
		int n = poll(p, child_fd >= 0 ? 2 : 1, child_fd >= 0 ? -1 : 200);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[0].revents)
			return 1;
		if (child_fd >= 0 && !p[1].revents)
			continue;
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)kp.child, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    si.si_pid != 0) {
			struct pollfd q = {.fd = up, .events = POLLIN};
			return poll(&q, 1, 0) > 0 && (q.revents & POLLIN);
		}
	}
}

/* The worker ended: EXIT says how, then the keeper ends with everything it forked. */
static _Noreturn void keeper_child_ended(void)
{
	int st = 0;
	while (waitpid(kp.child, &st, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&kp.mu);
	qc_keeper_note k = {kp.seq, st};
	qc_frame_write(kp.out, QC_FRAME_EXIT, &k, sizeof k, NULL, 0);
	keeper_end(0);
}

static _Noreturn void keeper(int in, int out, int down, int up, pid_t child)
{
	kp.out = out;
	kp.child = child;
	signal(SIGPIPE, SIG_IGN); /* a write to a relay gone fails instead */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&kp.clock, &ca);
	keeper_down k = {in, down};
	pthread_t t, c;
	if (pthread_create(&t, NULL, keeper_pass_down, &k) != 0 ||
	    pthread_create(&c, NULL, keeper_clock, NULL) != 0)
		keeper_end(3);
	int child_fd = -1;
#ifdef SYS_pidfd_open
	child_fd = (int)syscall(SYS_pidfd_open, child, 0);
#endif
	unsigned char *buf = NULL;
	size_t cap = 0, len;
	uint32_t type;
	char why[256];
	for (int frames = 0;; frames++) {
		if (!keeper_wait_up(up, child_fd))
			keeper_child_ended();
		int got = qc_frame_read(up, &type, &buf, &cap, &len, UINT32_MAX, why, sizeof why);
		if (got == 0)
			keeper_child_ended();
		int ok = got > 0 &&
		         (frames == 0 ? type == QC_FRAME_LOADED || type == QC_FRAME_FAULT
		                      : type == QC_FRAME_ANSWER || type == QC_FRAME_FAULT);
		if (ok && type == QC_FRAME_FAULT && len != sizeof(qc_fault))
			ok = 0;
		if (ok && type == QC_FRAME_ANSWER && len < sizeof(qc_answer))
			ok = 0;
		if (!ok) {
			kill(child, SIGKILL);
			if (got > 0)
				snprintf(why, sizeof why,
				         "a frame of type %u where the worker sends none", type);
			fprintf(stderr,
			        "qconform-worker: the plugin wrote on the worker's stream (%s): "
			        "worker killed\n",
			        why);
			qc_fault f;
			qc_fault_garbled(&f);
			pthread_mutex_lock(&kp.mu);
			qc_frame_write(out, QC_FRAME_FAULT, &f, sizeof f, NULL, 0);
			keeper_end(5);
		}
		pthread_mutex_lock(&kp.mu);
		if (type == QC_FRAME_ANSWER) {
			/* the next case's clock starts, or the command's end's; DONE stops it */
			uint32_t magic;
			memcpy(&magic, buf, 4);
			if (magic == QC_MSG_DONE)
				keeper_arm(0, 0);
			else if (kp.armed == 1) {
				kp.seq++;
				keeper_arm(1, kp.timeout_ms);
			}
		} else if (type == QC_FRAME_FAULT && kp.armed == 1) {
			keeper_arm(0, 0); /* the worker dies of it: EXIT follows */
		}
		int w = qc_frame_write(out, type, buf, len, NULL, 0);
		pthread_mutex_unlock(&kp.mu);
		if (w < 0)
			keeper_end(0); /* the relay went away */
	}
}

/* Forks the keeper: returns in the child, with *in and *out its pipes. */
static int start_keeper(int *in, int *out)
{
	int down[2], up[2];
	if (pipe2(down, O_CLOEXEC) < 0 || pipe2(up, O_CLOEXEC) < 0)
		return -1;
	/* a group of its own for the keeper, the worker and its children (a terminal's
	 * foreground group is left alone: a background group reading it would be stopped) */
	if (!isatty(*in))
		setpgid(0, 0);
	kp.own_group = getpgrp() == getpid();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(down[0]);
		close(up[1]);
		prctl(PR_SET_NAME, "qconform-keep");
		keeper(*in, *out, down[1], up[0], pid);
	}
	/* the child: the stream is the keeper's */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close(down[1]);
	close(up[0]);
	close(*in);
	close(*out);
	*in = down[0];
	*out = up[1];
	return 0;
}

static int stdio_main(int argc, char **argv)
{
	const char *plugin = NULL;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--trace"))
			tracing = 1;
		else if (!strcmp(argv[i], "--plugin") && i + 1 < argc)
			plugin = argv[++i];
		else {
			fprintf(stderr,
			        "qconform-worker: --stdio takes --plugin PATH and --trace, not "
			        "%s\n",
			        argv[i]);
			return 2;
		}
	}
	prctl(PR_SET_NAME, "qconform-worker");
	/* the frames keep the stream; the plugin's prints go to stderr */
	int in = fcntl(0, F_DUPFD_CLOEXEC, 10), out = fcntl(1, F_DUPFD_CLOEXEC, 10);
	if (in < 0 || out < 0) {
		fprintf(stderr, "qconform-worker: --stdio needs its stdin and stdout\n");
		return 2;
	}
	if (start_keeper(&in, &out) < 0) {
		fprintf(stderr, "qconform-worker: cannot start: %s\n", strerror(errno));
		return 2;
	}
	setup_fds(in, out);
	stream_fd = out;
	reset_signals();
	struct rlimit nocore = {0, 0};
	setrlimit(RLIMIT_CORE, &nocore);

	qc_load_report rep;
	memset(&rep, 0, sizeof rep);
	qc_platform_probe(&rep.remote.platform);
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0;
	uint32_t type;
	char why[256];
	int got = qc_frame_read(in, &type, &buf, &cap, &len, (size_t)1 << 20, why, sizeof why);
	if (got <= 0 || type != QC_FRAME_HELLO || len < 4)
		stdio_refuse(&rep, "no HELLO from the harness: %s",
		             got < 0 ? why : "the stream ended or began with another frame");
	qc_hello h;
	uint32_t protocol;
	memcpy(&protocol, buf, 4);
	if (protocol != QC_STREAM_PROTOCOL)
		stdio_refuse(&rep, "this worker speaks stream protocol %d, the harness %u",
		             QC_STREAM_PROTOCOL, protocol);
	if (len < sizeof h)
		stdio_refuse(&rep, "short HELLO (%zu bytes)", len);
	memcpy(&h, buf, sizeof h);
	if (h.layout != qc_stream_layout())
		stdio_refuse(&rep,
		             "the plugin ABI's layout differs here (%s, %zu-bit pointers): run "
		             "exported cases on this device (qconform export)",
		             rep.remote.platform.machine, sizeof(void *) * 8);
	qc_worker_args a;
	memset(&a, 0, sizeof a);
	a.arena_bytes = (size_t)h.arena_bytes;
	a.memory = (size_t)h.memory;
	if (!a.memory && h.memory_share) /* the harness's default, from this device's RAM */
		a.memory = qc_worker_memory_default((int)h.memory_share);
	a.sandbox = (int)h.sandbox;
	tracing |= (int)h.trace;
	const unsigned char *p = buf + sizeof h, *end = buf + len;
	qcf_option *opts = calloc(h.n_options + 1, sizeof *opts);
	const char **allow = calloc(h.n_allow + 1, sizeof *allow);
	if (!opts || !allow || h.n_options > 4096 || h.n_allow > 4096)
		stdio_refuse(&rep, "bad HELLO: %u options, %u paths", h.n_options, h.n_allow);
	for (uint32_t i = 0; i < h.n_options; i++) {
		opts[i].key = take_string(&p, end);
		opts[i].value = take_string(&p, end);
		if (!opts[i].key || !opts[i].value)
			stdio_refuse(&rep, "bad HELLO: option %u", i);
	}
	for (uint32_t i = 0; i < h.n_allow; i++)
		if (!(allow[i] = take_string(&p, end)))
			stdio_refuse(&rep, "bad HELLO: sandbox path %u", i);
	const char *hello_plugin = take_string(&p, end);
	if (!hello_plugin)
		stdio_refuse(&rep, "bad HELLO: no plugin field");
	a.options = opts;
	a.n_options = (int)h.n_options;
	a.allow = allow;
	a.n_allow = (int)h.n_allow;
	a.plugin = plugin ? plugin : hello_plugin;
#ifdef QC_WORKER_LINKED_PLUGIN
	/* what runs is this executable: its sha256 is the plugin's */
	a.plugin = "/proc/self/exe";
#endif
	if (!*a.plugin)
		stdio_refuse(&rep, "no plugin: give --plugin to qconform-worker --stdio or to "
		                   "qconform run");
	snprintf(rep.remote.plugin, sizeof rep.remote.plugin, "%s", a.plugin);
#ifdef QC_WORKER_LINKED_PLUGIN
	{
		char self[sizeof rep.remote.plugin - 40];
		ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
		if (k > 0) {
			self[k] = 0;
			snprintf(rep.remote.plugin, sizeof rep.remote.plugin,
			         "%s (the plugin linked in)", self);
		}
	}
#endif
	if (qc_sha256_file(a.plugin, rep.remote.sha256) < 0)
		stdio_refuse(&rep, "%s: cannot open: %s", a.plugin, strerror(errno));
	trace("worker: --stdio on %s (%s), plugin %s", rep.remote.platform.machine,
	      rep.remote.platform.system, a.plugin);

	limit_memory(&a, &rep);
	if (a.sandbox) {
		const int keep[] = {in, out};
		rep.sandbox_level = qc_sandbox_enter(keep, 2, a.allow, a.n_allow, rep.sandbox,
		                                     sizeof rep.sandbox);
	}
	static stdio_state s; /* zero; large (the command's offsets) */
	s.in = in;
	s.bytes = a.arena_bytes;
	s.base = h.harness_base;
	s.timeout_ms = h.timeout_ms;
	s.res_lo = UINT64_MAX;
	void *m =
	        mmap(NULL, s.bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		stdio_refuse(&rep, "cannot reserve a %zu-byte arena: %s", s.bytes, strerror(errno));
	s.arena = m;
	install_fault_handler(s.arena, s.bytes, out);

	qcf_plugin d;
	qcf_instance *inst;
	load(out, &a, &d, &inst, &rep);

	unsigned turns = 0; /* cases run: each answer's turn (stdio_now) */
	for (;;) {
		got = qc_frame_read(in, &type, &buf, &cap, &len, s.bytes + ((size_t)1 << 24), why,
		                    sizeof why);
		if (got == 0)
			_exit(0); /* the relay went away */
		if (got < 0 || type != QC_FRAME_CASES || len < sizeof(qc_command)) {
			fprintf(stderr, "qconform-worker: %s\n",
			        got < 0 ? why : "unexpected frame from the harness");
			_exit(4);
		}
		qc_command c;
		memcpy(&c, buf, sizeof c);
		if (c.quit) {
			d.destroy(inst);
			_exit(0);
		}
		if (c.count > QC_WIRE_CHUNK)
			_exit(4);
		/* QC_CMD_DEFER_CLOSE as a local worker takes it: a slot left open to the command's
		 * end; what a later case writes there travels in the DONE (recheck_open) */
		open_span sp = {(c.flags & QC_CMD_DEFER_CLOSE) != 0, UINT64_MAX, 0, 1};
		qc_case_desc cds[QC_WIRE_CHUNK];
		unsigned char kept[QC_WIRE_CHUNK];
		uint64_t lo = UINT64_MAX, hi = 0; /* the slots left open */
		uint64_t used_lo = UINT64_MAX, used_hi = 0;
		grow_buf(&s.tail, &s.tail_cap, 8);
		s.tail_len = 8; /* the span count and pad first */
		s.n_tail = 0;
		size_t at = sizeof c;
		for (uint32_t i = 0; i < c.count; i++) {
			qc_case_desc *cd = &cds[i];
			size_t used = install_case(&s, buf + at, len - at, i, cd);
			if (!used) {
				fprintf(stderr,
				        "qconform-worker: case %u of a command does not fit the "
				        "arena (not from this harness?)\n",
				        i);
				_exit(4);
			}
			at += used;
			used_lo = cd->slot_off < used_lo ? cd->slot_off : used_lo;
			used_hi = cd->slot_off + cd->slot_len > used_hi
			                  ? cd->slot_off + cd->slot_len
			                  : used_hi;
			qc_answer ans;
			qcf_prepared *prep;
			memset(&ans, 0, sizeof ans);
			stdio_now.s = &s;
			stdio_now.d = cd;
			stdio_now.ans = &ans;
			unsigned turn = (++turns << 2) | TURN_OPEN;
			atomic_store(&stdio_now.turn, turn);
			run_case(&d, inst, s.arena, cd, 1, i, &ans, &prep, &sp);
			kept[i] = (ans.flags & QC_ANS_LEFT_OPEN) != 0;
			if (kept[i]) {
				lo = cd->slot_off < lo ? cd->slot_off : lo;
				hi = cd->slot_off + cd->slot_len > hi ? cd->slot_off + cd->slot_len
				                                      : hi;
			}
			release_case(&d, inst, prep);
			if (!sp.on && sp.lo < sp.hi) {
				/* a case with threads made the open slots read-only: compared once
				 * more, then closed */
				recheck_open(&s, cds, kept, i);
				close_span(s.arena, &sp);
			}
			int answered = stdio_answer_once(turn);
			if (answered < 0)
				_exit(0);
			if (answered ==
			    0) /* a late write's handler answered; it dies of its fault */
				for (;;)
					pause();
			stdio_now.d = NULL;
			fault_ctx.state = QC_FAULT_IDLE;
		}
		recheck_open(&s, cds, kept, c.count);
		close_span(s.arena, &sp);
		s.res_lo = used_lo < s.res_lo ? used_lo : s.res_lo;
		s.res_hi = used_hi > s.res_hi ? used_hi : s.res_hi;
		if (s.res_lo < s.res_hi && s.res_hi - s.res_lo > STDIO_RESIDENT) {
			madvise(s.arena + s.res_lo, s.res_hi - s.res_lo, MADV_DONTNEED);
			s.res_lo = UINT64_MAX;
			s.res_hi = 0;
		}
		settle(c.settle_ms);
		qc_answer done;
		memset(&done, 0, sizeof done);
		done.magic = QC_MSG_DONE;
		done.seq = c.count;
		uint32_t head[2] = {s.n_tail, 0};
		memcpy(s.tail, head, 8);
		if (stream_send(QC_FRAME_ANSWER, &done, sizeof done, s.tail, s.tail_len) < 0)
			_exit(0);
	}
}
