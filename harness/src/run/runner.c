/*
 * runner: one worker process per runner holds the plugin. See runner.h for
 * the contract, wire.h for the protocol, worker.c for the worker's side.
 *
 * Workers. A worker is a fresh process of its own executable
 * (qconform-worker), started with posix_spawn: never a bare fork of the
 * harness, which is multi-threaded (jobs.c runs one thread per job, and
 * a job thread restarts its worker while other threads allocate), and a
 * forked child that goes on to dlopen or malloc can inherit a lock another
 * thread held at fork time and hang. The executable is cfg->worker_path,
 * else $QCONFORM_WORKER, else "qconform-worker" next to the running
 * executable.
 *
 * Memory. The arena is a memfd (or an unlinked POSIX shared memory object)
 * mapped MAP_SHARED in the harness; every worker maps the same fd at the
 * same address, so pointers written by one side are valid on the other. A
 * batch is staged into the arena as a row of slots (wire.h has the picture):
 * a read-only part (the call description and inputs) and one region per
 * output, with closed pages between. The worker opens only the running
 * case's slot; everything else is inaccessible to the kernel, so a stray
 * write faults, and the fault handler says where it was. Slots follow on
 * from the previous batch's (a ring), so a late write of a finished batch
 * also meets closed pages. Closing is the costly step (a TLB flush): a
 * plugin with no thread or child of its own may have its slots left open
 * from each case's return to the command's end (QC_CMD_DEFER_CLOSE, wire.h).
 * Each such case is compared again at the command's end (outputs against the
 * worker's hash at return, inputs, call, pattern bytes); when anything
 * changed, or any case of the command failed a check, the command runs again
 * with every slot closed at its return, and so does every command after it
 * (r->strict): the verdicts are the ones closed slots give.
 *
 * The harness trusts nothing the worker could have written: it judges from
 * its own records (offsets, sizes, a copy of each call description) and
 * copies each case's outputs out as soon as its answer arrives; a hash of the
 * outputs taken in the worker when execute returned, and again when the
 * batch ends, tells whether they changed after.
 *
 * Channel. One AF_UNIX SOCK_SEQPACKET pair: the harness sends commands (up
 * to QC_WIRE_CHUNK case descriptions), the worker answers each case with a
 * qc_answer, or sends a qc_fault and dies. The worker's death is seen on its
 * pidfd (a child it forked may keep the channel open). After a crash, a
 * timeout or a fault, a fresh worker continues with the cases left.
 *
 * Trust. The plugin runs in the worker process: what that process says may be
 * forged, and the arena's closed pages may have been opened again. What the
 * worker says convicts only the case awaited (or the one case of a command);
 * the awaited case of a worker that died or spoke out of order is convicted
 * only as the first case of a fresh worker, else it runs again so; a case
 * another case's fault names, or whose memory the harness finds changed, runs
 * again alone with its memory staged again, and that run is its verdict
 * (staged_case: alone, fresh, isolated).
 */
#include "run/runner.h"
#include "run/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
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

#include "base/digest.h"
#include "base/util.h"
#include "run/wire.h"

extern char **environ;

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
 * Collects a worker: lets it finish dying within grace_s, else kills it. Its process group
 * (any child the plugin forked) is killed before the worker is collected, while its pid
 * cannot yet be reused. Returns the wait status, or -1.
 */
static int reap(pid_t pid, int pfd, double grace_s)
{
	double end = qc_now_s() + grace_s;
	long nap_ns = 20000;
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		int w = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || si.si_pid == pid)
			break;
		double left = end - qc_now_s();
		if (left <= 0) {
			kill(pid, SIGKILL); /* the group follows below */
			break;
		}
		if (pfd >= 0) {
			struct pollfd p = {.fd = pfd, .events = POLLIN};
			poll(&p, 1, (int)(left * 1000.0) + 1);
		} else {
			struct timespec ts = {0, nap_ns};
			nanosleep(&ts, NULL);
			nap_ns = nap_ns < 1000000 ? nap_ns * 2 : nap_ns;
		}
	}
	kill(-pid, SIGKILL);
	int st;
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
	if (r->pidfd >= 0)
		close(r->pidfd);
	r->fd = r->pidfd = -1;
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
	        .sandbox = r->sandbox,
	        .n_allow = r->n_allow,
	        .allow = (const char *const *)r->allow,
	        .memory = r->memory,
	        .memory_share = r->remote ? r->memory_share : 0,
	        .remote = r->remote,
	        .timeout_ms = r->timeout_s > 0 && r->timeout_s < 4e6
	                              ? (unsigned)(r->timeout_s * 1000)
	                              : 0,
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

typedef union worker_load_msg {
	qc_load_report rep;
	unsigned char bytes[sizeof(qc_load_report) + 64];
} worker_load_msg;

/* Waits for the load report: 1 readable (or the worker gone), 0 timed out, -1 error. */
static int load_wait(qc_runner *r, double timeout_s)
{
	if (timeout_s <= 0)
		return 0;
	double deadline = qc_now_s() + timeout_s;
	for (;;) {
		if (atomic_load(&r->cancelled))
			return -1;
		double left = deadline - qc_now_s();
		if (left <= 0)
			return 0;
		int ms = left * 1000.0 >= INT_MAX - 1 ? INT_MAX : (int)(left * 1000.0) + 1;
		if (r->pidfd < 0 && ms > 200)
			ms = 200;
		struct pollfd p[2] = {{.fd = r->fd, .events = POLLIN},
		                      {.fd = r->pidfd, .events = POLLIN}};
		int rc = poll(p, r->pidfd >= 0 ? 2 : 1, ms);
		if (rc < 0 && errno != EINTR)
			return -1;
		if (rc > 0 && p[0].revents)
			return 1;
		if (rc > 0 && p[1].revents) {
			/* gone: a last packet may still be there */
			return 1;
		}
		if (rc == 0 && r->pidfd < 0) {
			siginfo_t si;
			memset(&si, 0, sizeof si);
			if (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == r->pid)
				return 1;
		}
	}
}

/* Spawns a worker on a new channel; it loads the plugin and says how it went (try_wait). */
static int try_spawn(qc_runner *r, char *err, size_t err_size)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, err_size, "%s: socketpair: %s", r->shown, strerror(errno));
		return -1;
	}
	trace(r, "starting a worker (%s) for %s", r->worker, r->path);
	r->link_down = 0;
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
	r->pidfd = pid_fd(pid);
	if (r->pidfd >= 0)
		fcntl(r->pidfd, F_SETFD, FD_CLOEXEC);
	atomic_store(&r->live_pid, (int)pid);
	if (atomic_load(&r->cancelled))
		kill(-pid, SIGKILL); /* cancelled while it was being started */
	r->spawned_at = qc_now_s();
	return 0;
}

/* Waits for the load report of the worker try_spawn started: 0 when it is ready; -1 with the
 * reason, and *taken when the arena's address was in use in it (another worker may do). */
static int try_wait(qc_runner *r, int *taken, char *err, size_t err_size)
{
	*taken = 0;
	pid_t pid = r->pid;
	/* The first load may take what loading takes (up to LOAD_WAIT_S, or the case timeout if
	 * longer); a restart no longer than the timeout, or a few times the first load. */
	qc_load_report rep;
	double wait = r->timeout_s > LOAD_WAIT_S ? r->timeout_s : LOAD_WAIT_S;
	if (r->load_s > 0)
		wait = r->timeout_s > 0 && r->timeout_s > 4 * r->load_s + 1 ? r->timeout_s
		                                                            : 4 * r->load_s + 1;
	double t0 = r->spawned_at;
	ssize_t got = -1;
	int ready = 0;
	qc_answer link; /* a relay's QC_MSG_LINK: no word from the remote side */
	link.magic = 0;
	for (;;) {
		worker_load_msg lm;
		ready = load_wait(r, wait - (qc_now_s() - t0));
		if (ready <= 0)
			break;
		got = recv(r->fd, &lm, sizeof lm, MSG_DONTWAIT);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got == (ssize_t)sizeof rep)
			memcpy(&rep, &lm, sizeof rep);
		if (got == (ssize_t)sizeof link && r->remote)
			memcpy(&link, &lm, sizeof link);
		break;
	}
	if (got == (ssize_t)sizeof rep && rep.ok && r->remote) {
		/* the device's report of the plugin's sha256: at least well formed, or the run
		 * stops here (a report must not carry what its own schema refuses) */
		char *h = rep.remote.sha256;
		h[sizeof rep.remote.sha256 - 1] = '\0';
		if (!qc_is_sha256_hex(h)) {
			rep.ok = 0;
			rep.arena_taken = 0;
			snprintf(rep.error, sizeof rep.error,
			         "the remote worker reported a plugin sha256 that is not 64 "
			         "lowercase "
			         "hex digits: refused");
		}
	}
	if (got == (ssize_t)sizeof rep && rep.ok && r->load_s <= 0)
		r->load_s = qc_now_s() - t0;
	if (got == (ssize_t)sizeof rep && rep.ok) {
		rep.name[sizeof rep.name - 1] = rep.version[sizeof rep.version - 1] = '\0';
		snprintf(r->info.name, sizeof r->info.name, "%s", rep.name);
		snprintf(r->info.version, sizeof r->info.version, "%s", rep.version);
		rep.threads_option[sizeof rep.threads_option - 1] = '\0';
		snprintf(r->info.threads_option, sizeof r->info.threads_option, "%s",
		         rep.threads_option);
		rep.sandbox[sizeof rep.sandbox - 1] = '\0';
		snprintf(r->info.sandbox, sizeof r->info.sandbox, "%s", rep.sandbox);
		r->info.sandbox_reduced = rep.sandbox_level == QC_SANDBOX_REDUCED;
		r->info.worker_memory = (size_t)rep.memory;
		r->info.abi_version = rep.abi;
		qc_remote_info *ri = &rep.remote;
		qc_platform *pf = &ri->platform;
		pf->machine[sizeof pf->machine - 1] = pf->system[sizeof pf->system - 1] = '\0';
		pf->cpu[sizeof pf->cpu - 1] = pf->emulation[sizeof pf->emulation - 1] = '\0';
		r->info.platform = *pf;
		if (r->remote) {
			/* the plugin as the remote worker found it (its sha256 checked above) */
			ri->plugin[sizeof ri->plugin - 1] = '\0';
			snprintf(r->info.sha256, sizeof r->info.sha256, "%s", ri->sha256);
			snprintf(r->info.path, sizeof r->info.path, "%s", ri->plugin);
		}
		trace(r, "worker %ld ready: %s %s, ABI %u", (long)pid, rep.name, rep.version,
		      rep.abi);
		return 0;
	}
	char why[300];
	if (got == (ssize_t)sizeof rep) {
		rep.error[sizeof rep.error - 1] = '\0';
		snprintf(why, sizeof why, "%s", rep.error);
		*taken = rep.arena_taken != 0;
		reap(pid, r->pidfd, EXIT_WAIT_S);
	} else if (link.magic == QC_MSG_LINK) {
		/* the first load stops on it; a later one is a lost link (run_piece) */
		link.message[sizeof link.message - 1] = '\0';
		snprintf(why, sizeof why, "%s", link.message);
		r->link_down = 1;
		reap(pid, r->pidfd, EXIT_WAIT_S);
	} else if (ready == 0) {
		reap(pid, r->pidfd, 0);
		snprintf(why, sizeof why,
		         "loading timed out after %g s (create() or the library's "
		         "constructors did not return)",
		         wait);
	} else {
		int sig;
		char how[128];
		describe_exit(reap(pid, r->pidfd, EXIT_WAIT_S), &sig, how, sizeof how);
		snprintf(why, sizeof why, "worker died while loading the plugin: %s", how);
	}
	stop_worker(r);
	snprintf(err, err_size, "%s: %s", r->shown, why);
	trace(r, "load failed: %s", why);
	return -1;
}

static int end_worker(qc_runner *r, int kill_it);

/* Starts a worker and waits until it is ready; `spawned`: try_spawn did the first start. */
static int start_worker_from(qc_runner *r, int spawned, char *err, size_t err_size)
{
	for (int i = 1;; i++) {
		if (atomic_load(&r->cancelled)) {
			if (spawned)
				end_worker(r, 1);
			snprintf(err, err_size, "%s: cancelled", r->shown);
			return -1;
		}
		int taken = 0;
		if ((spawned || try_spawn(r, err, err_size) == 0) &&
		    try_wait(r, &taken, err, err_size) == 0)
			return 0;
		spawned = 0;
		if (!taken || i >= START_TRIES)
			return -1;
		trace(r, "the arena's address is taken in that worker: starting another");
	}
}

static int start_worker(qc_runner *r, char *err, size_t err_size)
{
	return start_worker_from(r, 0, err, err_size);
}

/* Kills the worker (timeout) or collects it (crash); returns its wait status. */
static int end_worker(qc_runner *r, int kill_it)
{
	if (kill_it) {
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
	}
	int st = reap(r->pid, r->pidfd, EXIT_WAIT_S);
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

/* Fills n bytes with qc_guard_pattern, repeated (a block at a time: heads are up to a page). */
static void fill_pattern(unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + QC_GUARD_BYTES <= n; i += QC_GUARD_BYTES)
		memcpy(p + i, qc_guard_pattern, QC_GUARD_BYTES);
	memcpy(p + i, qc_guard_pattern, n - i);
}

static int pattern_intact(const unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + QC_GUARD_BYTES <= n; i += QC_GUARD_BYTES)
		if (memcmp(p + i, qc_guard_pattern, QC_GUARD_BYTES) != 0)
			return 0;
	return memcmp(p + i, qc_guard_pattern, n - i) == 0;
}

/* The same for bytes that sit `phase` bytes into a fill_pattern. */
static int pattern_intact_from(const unsigned char *p, size_t n, size_t phase)
{
	phase %= QC_GUARD_BYTES;
	size_t first = QC_GUARD_BYTES - phase < n ? QC_GUARD_BYTES - phase : n;
	return memcmp(p, qc_guard_pattern + phase, first) == 0 &&
	       pattern_intact(p + first, n - first);
}

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

/* The bytes an output starts with when the caller gives none: never a plausible answer of
 * every element at once (harness/src/run/poison.c fills the caller's buffers better). */
static void default_poison(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(0xa5u ^ (i * 0x3bu));
}

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
		q.scale_dtype = sq->scale_dtype;
		q.zero_point_dtype = sq->zero_point_dtype;
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
		unsigned char *at = s->out_at ? s->out_at[s->n_out] : NULL;
		s->n_out++;
		if (at && src->nbytes) {
			if (src->data)
				memcpy(at, src->data, src->nbytes);
			else
				default_poison(at, src->nbytes);
		}
		t.data = at;
	} else if (s->inputs_by_ref) {
		t.data = src->data;
	} else if (src->data || src->nbytes) {
		t.data = put(&s->in, src->data, src->nbytes, QC_DATA_ALIGN);
		unsigned char *g = put(&s->in, NULL, QC_GUARD_BYTES, 1);
		if (g)
			fill_pattern(g, QC_GUARD_BYTES);
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

/* Where a call goes in a slot starting at offset 0 (wire.h's picture). */
typedef struct slot_layout {
	size_t meta;     /* bytes of the call description, rounded to QC_DATA_ALIGN */
	size_t in_bytes; /* inputs and their pattern bytes */
	qc_case_desc d;  /* offsets relative to the slot */
} slot_layout;

static void layout_call(const qcf_op_call *c, size_t page, slot_layout *L)
{
	stager s = {{NULL, 0}, {NULL, 0}, 0, NULL, 0};
	stage_call(&s, c);
	memset(L, 0, sizeof *L);
	L->meta = QC_ROUND_UP(s.meta.off, QC_DATA_ALIGN);
	L->in_bytes = s.in.off;
	qc_case_desc *d = &L->d;
	d->ro_off = 0;
	d->ro_len = QC_ROUND_UP(L->meta + L->in_bytes, page);
	size_t off = d->ro_len; /* output 0 follows the inputs, a closed page after each output */
	d->n_outputs = (uint32_t)c->n_outputs;
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		size_t n = c->outputs[k].nbytes, r64 = QC_ROUND_UP(n, QC_DATA_ALIGN);
		size_t pages = r64 ? QC_ROUND_UP(r64, page) : page;
		d->rw_off[k] = off;
		d->rw_len[k] = pages;
		d->out_off[k] = off + pages - r64;
		d->out_len[k] = n;
		off += pages + page;
	}
	d->slot_len = off;
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
	if (c->n_outputs > QC_WIRE_MAX_OUTPUTS)
		return "more outputs than the runner takes";
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

/* Writes a case's slot (at sc->d's absolute offsets) from the caller's call. */
static void stage_slot(qc_runner *r, const staged_case *sc, const qcf_op_call *orig)
{
	const qc_case_desc *d = &sc->d;
	unsigned char *out_at[QC_WIRE_MAX_OUTPUTS];
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		unsigned char *reg = r->arena + d->rw_off[k];
		size_t head = d->out_off[k] - d->rw_off[k];
		size_t tail = d->rw_len[k] - head - d->out_len[k];
		fill_pattern(reg, head);
		out_at[k] = reg + head;
		fill_pattern(out_at[k] + d->out_len[k], tail);
	}
	unsigned char *ro = r->arena + d->ro_off;
	/* every byte after the call description that is not an input holds the pattern (checked
	 * after the case: output 0 follows, so a write before it lands here) */
	fill_pattern(ro + sc->meta_len, d->ro_len - sc->meta_len);
	stager s = {{ro, 0}, {ro + sc->meta_len, 0}, 0, out_at, 0};
	stage_call(&s, orig);
}

/* ---------------------------------------------------------------- running */

/* Is the worker still there? Collects it if it died while idle. */
static int worker_alive(qc_runner *r)
{
	if (r->pid <= 0)
		return 0;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0)
		return 1;
	trace(r, "worker %ld died while idle", (long)r->pid);
	end_worker(r, 1);
	return 0;
}

/* What came from the worker. */
enum {
	MSG_TIMEOUT = 0,
	MSG_ANSWER,
	MSG_FAULT,
	MSG_GONE,
	MSG_GARBLED,
	MSG_BROKEN,
	MSG_LINK,          /* the relay's stream ended without the remote side's word */
	MSG_DEVICE_TIMEOUT /* the device's keeper killed the worker at the timeout */
};

typedef union worker_msg {
	uint32_t magic;
	qc_answer ans;
	qc_fault fault;
	unsigned char
	        bytes[sizeof(qc_answer) > sizeof(qc_fault) ? sizeof(qc_answer) : sizeof(qc_fault)];
} worker_msg;

/* remote: the worker is a relay, whose channel carries no plugin's bytes (a local worker's
 * QC_MSG_BROKEN is the plugin's forgery: garbled) */
static int classify(const worker_msg *m, ssize_t n, int remote)
{
	if (n == (ssize_t)sizeof m->ans && (m->magic == QC_MSG_ANSWER || m->magic == QC_MSG_DONE))
		return MSG_ANSWER;
	if (n == (ssize_t)sizeof m->fault && m->magic == QC_MSG_FAULT)
		return MSG_FAULT;
	if (n == (ssize_t)sizeof m->ans && m->magic == QC_MSG_BROKEN && remote)
		return MSG_BROKEN;
	if (n == (ssize_t)sizeof m->ans && m->magic == QC_MSG_LINK && remote)
		return MSG_LINK;
	if (n == (ssize_t)sizeof m->ans && m->magic == QC_MSG_TIMEOUT && remote)
		return MSG_DEVICE_TIMEOUT;
	return n == 0 ? MSG_GONE : MSG_GARBLED;
}

/*
 * The next message of the worker within timeout_s (<= 0: no limit). The worker's death is
 * seen from the process itself (its pidfd), not only from the channel: a child the plugin
 * forked may hold the channel open. Messages sent before it died are read first.
 */
static int next_msg(qc_runner *r, double timeout_s, worker_msg *m)
{
	/* a packet that is there already needs no poll (answers come in runs) */
	ssize_t n0;
	do
		n0 = recv(r->fd, m, sizeof *m, MSG_DONTWAIT);
	while (n0 < 0 && errno == EINTR);
	if (n0 > 0)
		return classify(m, n0, r->remote != NULL);
	double deadline = timeout_s > 0 ? qc_now_s() + timeout_s : 0;
	for (;;) {
		if (atomic_load(&r->cancelled))
			return MSG_GONE;
		int ms = r->pidfd >= 0 ? -1 : 200; /* without a pidfd: look at the process */
		if (timeout_s > 0) {
			double left = deadline - qc_now_s();
			if (left <= 0)
				return MSG_TIMEOUT;
			int lms = left * 1000.0 >= INT_MAX - 1 ? INT_MAX : (int)(left * 1000.0) + 1;
			ms = ms < 0 || lms < ms ? lms : ms;
		}
		struct pollfd p[2] = {{.fd = r->fd, .events = POLLIN},
		                      {.fd = r->pidfd, .events = POLLIN}};
		int rc = poll(p, r->pidfd >= 0 ? 2 : 1, ms);
		if (rc < 0 && errno != EINTR)
			return MSG_GONE;
		int dead = 0;
		if (rc > 0 && (p[1].revents & POLLIN))
			dead = 1;
		else if (rc == 0 && r->pidfd < 0) {
			siginfo_t si;
			memset(&si, 0, sizeof si);
			dead = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
			       si.si_pid != 0;
		}
		if ((rc > 0 && p[0].revents) || dead) {
			ssize_t n;
			do
				n = recv(r->fd, m, sizeof *m, MSG_DONTWAIT);
			while (n < 0 && errno == EINTR);
			if (n > 0 || (n == 0 && !dead))
				return classify(m, n, r->remote != NULL);
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				return MSG_GONE;
			if (dead)
				return MSG_GONE;
		}
	}
}

/* The bytes of output k of a staged case, in the harness's mapping. */
static const unsigned char *out_bytes(const qc_runner *r, const staged_case *sc, uint32_t k)
{
	return r->arena + sc->d.out_off[k];
}

static uint64_t hash_outputs(const qc_runner *r, const staged_case *sc)
{
	return qc_wire_hash_outputs(r->arena, &sc->d);
}

/* The call handed back to the caller: the caller's call, with its inputs (by reference) and
 * the kernel's outputs as they were when the case finished (copied out of the arena). */
static int keep_result(qc_runner *r, staged_case *sc, const qcf_op_call *orig)
{
	stager s = {{NULL, 0}, {NULL, 0}, 1, NULL, 0};
	stage_call(&s, orig);
	size_t meta = QC_ROUND_UP(s.meta.off, QC_DATA_ALIGN), total = meta;
	size_t at[QC_WIRE_MAX_OUTPUTS];
	for (uint32_t k = 0; k < sc->d.n_outputs; k++) {
		at[k] = total;
		total += QC_ROUND_UP(sc->d.out_len[k], QC_DATA_ALIGN);
	}
	unsigned char *buf = aligned_alloc(QC_DATA_ALIGN, QC_ROUND_UP(total ? total : 1, 64));
	void **keep = grow(r->keep, &r->keep_cap, r->n_keep + 1, sizeof *keep);
	if (!buf || !keep) {
		free(buf);
		return -1;
	}
	r->keep = keep;
	r->keep[r->n_keep++] = buf;
	unsigned char *out_at[QC_WIRE_MAX_OUTPUTS];
	uint64_t h = 0; /* of the copies, as qc_wire_hash_outputs hashes the arena */
	for (uint32_t k = 0; k < sc->d.n_outputs; k++) {
		out_at[k] = buf + at[k];
		memcpy(out_at[k], out_bytes(r, sc, k), sc->d.out_len[k]);
		h = qc_wire_hash_more(h, out_at[k], sc->d.out_len[k]);
	}
	stager w = {{buf, 0}, {NULL, 0}, 1, NULL, 0};
	qcf_op_call *c = stage_call(&w, orig);
	for (uint32_t k = 0; k < sc->d.n_outputs; k++)
		c->outputs[k].data = out_at[k];
	sc->result = c;
	sc->result_hash = h;
	return 0;
}

static void set_result(qc_exec_result *res, qc_outcome o, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void set_result(qc_exec_result *res, qc_outcome o, const char *fmt, ...)
{
	res->outcome = o;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->message, sizeof res->message, fmt, ap);
	va_end(ap);
}

/* The harness's own checks of a case the worker answered: the pattern bytes around its
 * outputs, its inputs and its call description, all at offsets the harness computed. 0, or
 * -1 with the verdict in res. */
static int check_case(const qc_runner *r, const staged_case *sc, const qcf_op_call *orig,
                      qc_exec_result *res)
{
	const qc_case_desc *d = &sc->d;
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		const unsigned char *reg = r->arena + d->rw_off[k];
		size_t head = d->out_off[k] - d->rw_off[k];
		size_t tail = d->rw_len[k] - head - d->out_len[k];
		if (!pattern_intact(reg + head + d->out_len[k], tail)) {
			set_result(res, QC_EXEC_ERROR, "wrote past the end of output %u", k);
			return -1;
		}
		if (!pattern_intact(reg, head)) {
			set_result(res, QC_EXEC_ERROR, "wrote before the start of output %u", k);
			return -1;
		}
	}
	const unsigned char *in = r->arena + d->ro_off + sc->meta_len;
	size_t off = 0, room = d->ro_len - sc->meta_len;
	for (int32_t k = 0; k < orig->n_inputs; k++) {
		const qcf_tensor *t = &orig->inputs[k];
		if (!t->data && !t->nbytes)
			continue;
		size_t at = QC_ROUND_UP(off, QC_DATA_ALIGN);
		if (!pattern_intact_from(in + off, at - off, off) ||
		    memcmp(in + at, t->data, t->nbytes) != 0 ||
		    !pattern_intact(in + at + t->nbytes, QC_GUARD_BYTES)) {
			set_result(res, QC_EXEC_ERROR, "modified input %d", (int)k);
			return -1;
		}
		off = at + t->nbytes + QC_GUARD_BYTES;
	}
	/* the rest of the inputs' pages: right before output 0 */
	if (!pattern_intact_from(in + off, room - off, off)) {
		set_result(res, QC_EXEC_ERROR,
		           d->n_outputs ? "wrote before the start of output 0"
		                        : "wrote past its inputs");
		return -1;
	}
	if (memcmp(r->arena + d->ro_off, r->shadow + sc->shadow_off, sc->meta_len) != 0) {
		set_result(res, QC_EXEC_ERROR,
		           "modified the call's description (tensors, shapes, quantization or "
		           "attributes)");
		return -1;
	}
	return 0;
}

/* Which part of a staged case an arena offset is in. */
typedef enum { IN_NONE, IN_META, IN_INPUT, IN_OUTPUT, IN_BEFORE, IN_AFTER, IN_SLOT } place;

static place locate(const staged_case *sc, const qcf_op_call *orig, uint64_t off, size_t page,
                    int *which)
{
	const qc_case_desc *d = &sc->d;
	*which = 0;
	if (off < d->slot_off || off - d->slot_off >= d->slot_len)
		return IN_NONE;
	if (off >= d->ro_off && off < d->ro_off + d->ro_len) {
		if (off < d->ro_off + sc->meta_len)
			return IN_META;
		uint64_t at = d->ro_off + sc->meta_len, o = 0;
		for (int32_t k = 0; k < orig->n_inputs; k++) {
			const qcf_tensor *t = &orig->inputs[k];
			if (!t->data && !t->nbytes)
				continue;
			o = QC_ROUND_UP(o, QC_DATA_ALIGN);
			if (off >= at + o && off < at + o + t->nbytes + QC_GUARD_BYTES) {
				*which = (int)k;
				return IN_INPUT;
			}
			o += t->nbytes + QC_GUARD_BYTES;
		}
		return IN_SLOT;
	}
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		*which = (int)k;
		if (off >= d->out_off[k] && off < d->out_off[k] + d->out_len[k])
			return IN_OUTPUT;
		/* the output's region and the gap page after it: past its end */
		if (off >= d->out_off[k] + d->out_len[k] &&
		    off < d->rw_off[k] + d->rw_len[k] + page)
			return IN_AFTER;
		if (off >= d->rw_off[k] && off < d->out_off[k])
			return IN_BEFORE;
	}
	return IN_SLOT;
}

/* "output 0 +1048576 bytes": where an offset is relative to the case's nearest output. */
static void relative(const staged_case *sc, uint64_t off, char *buf, size_t size)
{
	const qc_case_desc *d = &sc->d;
	if (!d->n_outputs) {
		snprintf(buf, size, "input region %+lld bytes",
		         (long long)off - (long long)d->ro_off);
		return;
	}
	uint32_t best = 0;
	long long bd = 0;
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		long long delta = (long long)off - (long long)d->out_off[k];
		if (k == 0 || llabs(delta) < llabs(bd)) {
			best = k;
			bd = delta;
		}
	}
	snprintf(buf, size, "output %u %+lld bytes", best, bd);
}

/* A case whose outputs changed after execute returned: the judge decides what that makes
 * it (runner.h, late_write). */
static void mark_late(qc_exec_result *res, const char *what)
{
	if (res->outcome == QC_EXEC_OK) {
		res->late_write = 1;
		snprintf(res->message, sizeof res->message, "%s", what);
	} else {
		set_result(res, QC_EXEC_ERROR, "%s", what);
	}
}

/* Was the worker's thread after execute's return when it faulted (closing, last_error,
 * release)? */
static int after_return(const qc_fault *f)
{
	return f->state == QC_FAULT_RETURNED || f->state == QC_FAULT_AFTER;
}

/*
 * Whose fault a fault is: the running case's, unless the address is in a case that had
 * answered and the access came from another thread (or between cases, or after execute
 * returned): then it is that case's late access. The verdict goes into results; returns the
 * culprit's position in r->cases, or -1 (no case of this batch: a late access of an earlier
 * batch, or between cases where no case of the batch owns the address).
 *
 * The fault is the worker process's word, which the plugin can forge: it convicts only the
 * case the harness waits for (awaited) or the one case of the command (own), else -1. A late
 * access it says of another case makes that case a suspect (*suspect, see staged_case).
 */
static long apply_fault(qc_runner *r, size_t running, size_t m, const qc_fault *f,
                        const qcf_op_call *const *calls, qc_exec_result *results, int *is_late,
                        long awaited, long own, long *suspect)
{
	*is_late = 0;
	*suspect = -1;
	long owner = -1;
	for (size_t i = 0; i < m; i++) {
		const qc_case_desc *d = &r->cases[i].d;
		if (f->offset >= d->slot_off && f->offset - d->slot_off < d->slot_len) {
			owner = (long)i;
			break;
		}
	}
	const char *verb = f->write == 0 ? "read" : "wrote";
	/* late: the owner's execute had returned (answered, or the fault came between its return
	 * and its answer) */
	int late = owner >= 0 &&
	           ((r->cases[owner].answered && (f->state != QC_FAULT_RUNNING || !f->main_thread ||
	                                          (size_t)owner == running)) ||
	            (after_return(f) && (size_t)owner == running));
	if (late && owner != awaited && owner != own) {
		*suspect = owner;
		return -1;
	}
	if (late) {
		staged_case *sc = &r->cases[owner];
		int which;
		place pl = locate(sc, calls[sc->index], f->offset, r->page, &which);
		char what[200];
		if (pl == IN_OUTPUT && f->write != 0)
			snprintf(what, sizeof what,
			         "output changed after execute returned (output %d "
			         "written later)",
			         which);
		else
			snprintf(what, sizeof what, "%s %s %d after execute returned", verb,
			         pl == IN_OUTPUT  ? "output"
			         : pl == IN_INPUT ? "input"
			                          : "its call's memory, part",
			         which);
		mark_late(&results[sc->index], what);
		trace(r, "case %d: %s", sc->index, what);
		*is_late = 1;
		return owner;
	}
	if (f->state != QC_FAULT_RUNNING || running >= m || (long)running != awaited)
		return -1;
	/* the running case touched what is not its own to touch; reads count as much as
	 * writes (either breaks the memory rules, and on x86 a read-modify-write faults on
	 * its read) */
	staged_case *sc = &r->cases[running];
	qc_exec_result *out = &results[sc->index];
	int which;
	place pl = locate(sc, calls[sc->index], f->offset, r->page, &which);
	char rel[96];
	relative(sc, f->offset, rel, sizeof rel);
	switch (pl) {
	case IN_META:
		set_result(out, QC_EXEC_ERROR, "%s the call's description",
		           f->write == 0 ? "read" : "modified");
		break;
	case IN_INPUT: set_result(out, QC_EXEC_ERROR, "modified input %d", which); break;
	case IN_AFTER:
		set_result(out, QC_EXEC_ERROR, "%s past the end of output %d", verb, which);
		break;
	case IN_BEFORE:
		set_result(out, QC_EXEC_ERROR, "%s before the start of output %d", verb, which);
		break;
	default:
		set_result(out, QC_EXEC_ERROR, "%s outside its buffers (%s%s)", verb, rel,
		           owner >= 0 && (size_t)owner != running ? ", in another case's memory"
		                                                  : "");
		break;
	}
	out->signal = f->signal;
	trace(r, "case %d: %s", sc->index, out->message);
	return (long)running;
}

/* Puts a case's outputs and their pattern bytes back as staged (before running it again). */
static void reset_outputs(qc_runner *r, const staged_case *sc, const qcf_op_call *orig)
{
	const qc_case_desc *d = &sc->d;
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		unsigned char *reg = r->arena + d->rw_off[k];
		size_t head = d->out_off[k] - d->rw_off[k];
		fill_pattern(reg, d->rw_len[k]);
		if (orig->outputs[k].data)
			memcpy(reg + head, orig->outputs[k].data, d->out_len[k]);
		else
			default_poison(reg + head, d->out_len[k]);
		fill_pattern(reg + head + d->out_len[k], d->rw_len[k] - head - d->out_len[k]);
	}
}

/* Sends the cases list[0..n) as one command. */
static int send_cases(qc_runner *r, const size_t *list, size_t n)
{
	struct {
		qc_command c;
		qc_case_desc d[QC_WIRE_CHUNK];
	} cmd;
	memset(&cmd.c, 0, sizeof cmd.c);
	cmd.c.count = (uint32_t)n;
	cmd.c.settle_ms = r->probation ? QC_PROBATION_SETTLE_MS : QC_SETTLE_MS;
	cmd.c.flags = r->probation || r->strict ? 0 : QC_CMD_DEFER_CLOSE;
	for (size_t i = 0; i < n; i++)
		cmd.d[i] = r->cases[list[i]].d;
	return qc_send_full(r->fd, &cmd, sizeof cmd.c + n * sizeof cmd.d[0]);
}

/* The worker cannot be (re)started: every case not done gets the reason. */
static void no_worker(qc_runner *r, size_t m, qc_exec_result *results, const char *why)
{
	for (size_t k = 0; k < m; k++)
		if (!r->cases[k].done) {
			set_result(&results[r->cases[k].index], QC_EXEC_ERROR, "no worker: %s",
			           why);
			r->cases[k].done = 1;
		}
}

#define MAX_RERUNS 2 /* an innocent case run again after another case's fault */

/* The engine the plugin reported in a: its kind as it came (an unknown value stays unknown),
 * its name cut to printable ASCII. */
static void engine_of(const qc_answer *a, qc_exec_result *res)
{
	char name[sizeof a->engine_name + 1];
	memcpy(name, a->engine_name, sizeof a->engine_name);
	name[sizeof a->engine_name] = '\0';
	res->engine = a->engine;
	qc_wire_copy_printable(res->engine_name, sizeof res->engine_name, name);
}

/* The answer for case sc: its outcome, the outputs copied out, the harness's checks. 0, or -1
 * when the case's memory is not as the harness left it or as the worker saw it at return. */
static int take_answer(qc_runner *r, staged_case *sc, const qc_answer *a, const qcf_op_call *orig,
                       qc_exec_result *res)
{
	memset(res, 0, sizeof *res);
	if (a->outcome < QC_EXEC_OK || a->outcome > QC_EXEC_ERROR) {
		set_result(res, QC_EXEC_ERROR, "garbled answer from the worker");
	} else {
		res->outcome = (qc_outcome)a->outcome;
		res->seconds = a->seconds;
		memcpy(res->message, a->message, sizeof res->message);
		res->message[sizeof res->message - 1] = '\0';
		if (res->outcome == QC_EXEC_OK)
			engine_of(a, res);
	}
	sc->answered = sc->done = 1;
	memcpy(res->history, sc->history, sizeof res->history);
	if ((a->flags & QC_ANS_CHANGED_AT_CLOSE) && res->outcome == QC_EXEC_OK) {
		res->late_write = 1;
		snprintf(res->message, sizeof res->message,
		         "output changed after execute returned (while its memory was closed)");
	}
	sc->left_open = (a->flags & QC_ANS_LEFT_OPEN) != 0;
	sc->open_hash = a->out_hash;
	if (keep_result(r, sc, orig) < 0) {
		set_result(res, QC_EXEC_ERROR, "harness out of memory keeping the outputs");
		return 0;
	}
	if (check_case(r, sc, orig, res) < 0)
		return -1;
	if (sc->left_open)
		return sc->result_hash != sc->open_hash ? -1 : 0;
	/* the worker runs the next case while the harness copies this one's outputs: when they
	 * differ from the worker's at return, the change is its own only when it ran alone */
	if (res->outcome == QC_EXEC_OK && !res->late_write && sc->result_hash != a->out_hash) {
		if (!sc->isolated)
			return -1;
		mark_late(res, "output changed after execute returned");
	}
	return 0;
}

/* Is every case of the command list[0..n) that was left open still as it was at its return
 * (outputs as the worker hashed them, pattern bytes, inputs, call)? */
static int open_cases_intact(const qc_runner *r, const size_t *list, size_t n,
                             const qcf_op_call *const *calls)
{
	for (size_t q = 0; q < n; q++) {
		const staged_case *sc = &r->cases[list[q]];
		qc_exec_result scratch;
		if (sc->done && sc->left_open &&
		    (hash_outputs(r, sc) != sc->open_hash ||
		     check_case(r, sc, calls[sc->index], &scratch) < 0))
			return 0;
	}
	return 1;
}

/* A command that left slots open went wrong (something changed in an open slot, a check
 * failed, the worker died): its verdicts may hold another case's doing. Every case of it runs
 * again from its staged state, and from now on no slot is left open. */
static void run_again_closed(qc_runner *r, const size_t *list, size_t n,
                             const qcf_op_call *const *calls, qc_exec_result *results)
{
	if (!r->strict)
		trace(r, "a command that left slots open went wrong: it runs again, and every slot "
		         "closes at its case's return from now on");
	r->strict = 1;
	for (size_t q = 0; q < n; q++) {
		staged_case *sc = &r->cases[list[q]];
		sc->done = sc->answered = sc->left_open = 0;
		memset(&results[sc->index], 0, sizeof results[sc->index]);
		stage_slot(r, sc, calls[sc->index]);
	}
}

/*
 * The plugin writes after execute returns. A worker dies of the first such write, and the
 * other cases' late writes die with it, so which case is caught would depend on timing: from
 * now on this runner sends one case per command (the worker then waits QC_PROBATION_SETTLE_MS
 * after each), and the cases of the piece that passed in the same worker's life run again that
 * way (their own late writes may have died with the worker).
 */
static void enter_probation(qc_runner *r, size_t m, long culprit, const qc_exec_result *results,
                            const qcf_op_call *const *calls)
{
	if (!r->probation)
		trace(r,
		      "the plugin writes after execute returns: one case per command from now on");
	r->probation = 1;
	for (size_t i = 0; i < m; i++) {
		staged_case *sc = &r->cases[i];
		const qc_exec_result *res = &results[sc->index];
		if ((long)i == culprit || !sc->done || sc->life != r->lives ||
		    res->outcome != QC_EXEC_OK || res->late_write || sc->reruns >= MAX_RERUNS)
			continue;
		sc->reruns++;
		sc->done = sc->answered = 0;
		reset_outputs(r, sc, calls[sc->index]);
	}
}

/* Makes sc a suspect (staged_case): it runs again alone, in a fresh worker when fresh, and
 * that run's findings are its verdict. 0, or -1 when it was made one too often (MAX_RERUNS:
 * what it has stands). */
static int suspect(qc_runner *r, staged_case *sc, int fresh, const qcf_op_call *const *calls,
                   qc_exec_result *results)
{
	if (sc->suspected >= MAX_RERUNS)
		return -1;
	sc->suspected++;
	trace(r, "case %d runs again alone%s: what was seen may not be its own", sc->index,
	      fresh ? " in a fresh worker" : "");
	sc->alone = 1;
	sc->fresh |= fresh;
	sc->done = sc->answered = sc->left_open = 0;
	sc->result = NULL;
	memset(&results[sc->index], 0, sizeof results[sc->index]);
	reset_outputs(r, sc, calls[sc->index]);
	return 0;
}

/* The case the harness waits for, after the worker died, said something out of order, or
 * blamed another case: its own verdict when nothing of the plugin's but create() ran before
 * it in its worker (isolated_fresh: the first case of the worker, staged again); else it runs
 * again so. 1 when convicted. */
static int convict_awaited(qc_runner *r, staged_case *sc, const qcf_op_call *const *calls,
                           const char *seen)
{
	if (sc->isolated_fresh)
		return 1;
	snprintf(sc->history, sizeof sc->history, "%s", seen);
	trace(r, "case %d runs again alone in a fresh worker: the worker's end may not be its own",
	      sc->index);
	sc->alone = sc->fresh = 1;
	sc->done = sc->answered = 0;
	reset_outputs(r, sc, calls[sc->index]);
	return 0;
}

/* The case in flight when the link was lost: no verdict, it runs again as it was to run. */
static void requeue(qc_runner *r, staged_case *sc, const qcf_op_call *const *calls)
{
	sc->done = sc->answered = 0;
	if (sc->isolated) {
		sc->alone = 1;
		sc->fresh = sc->isolated_fresh;
	}
	reset_outputs(r, sc, calls[sc->index]);
}

/* --remote: the link was lost (why): 0 to start the command again, or -1 (r->broken) when it
 * was lost MAX_RECONNECTS + 1 times in a row with no case answered between. */
static int link_lost(qc_runner *r, const char *why)
{
	trace(r, "the link to the remote worker was lost: %s", why);
	if (r->link_row >= MAX_RECONNECTS) {
		snprintf(r->broken, sizeof r->broken,
		         "the link to the remote worker was lost %d times in a row, no case "
		         "answered between: %.480s",
		         r->link_row + 1, why);
		r->link_gone = 1;
		return -1;
	}
	r->link_row++;
	if (r->reconnects)
		atomic_fetch_add(r->reconnects, 1);
	trace(r, "reconnecting (%d of %d in a row)", r->link_row, MAX_RECONNECTS);
	return 0;
}

/* Runs the staged cases r->cases[0..m): 0, -1 when the stream broke (r->broken), or -2 when
 * cancelled. */
static int run_piece(qc_runner *r, size_t m, const qcf_op_call *const *calls,
                     qc_exec_result *results)
{
	int failed_sends = 0;
	size_t list[QC_WIRE_CHUNK];
again:
	for (;;) {
		if (atomic_load(&r->cancelled))
			return -2;
		/* the next command: the first cases not done; a suspect is a command of its own */
		size_t n = 0, cap = r->probation ? 1 : QC_WIRE_CHUNK;
		for (size_t i = 0; i < m && n < cap; i++) {
			if (r->cases[i].done)
				continue;
			if (r->cases[i].alone && n > 0)
				break;
			list[n++] = i;
			if (r->cases[i].alone)
				break;
		}
		if (n == 0)
			break;
		if (r->gave_up) {
			no_worker(r, m, results, r->gave_up_why);
			break;
		}
		staged_case *first = &r->cases[list[0]];
		int isolate = first->alone;
		if (isolate && first->fresh && r->pid > 0 && r->cmds > 0)
			end_worker(r, 1); /* a fresh worker for it */
		if (!worker_alive(r)) {
			char why[512];
			if (start_worker(r, why, sizeof why) < 0) {
				if (atomic_load(&r->cancelled))
					return -2;
				if (r->link_down && r->load_s > 0) {
					/* the command started again, and no word came */
					size_t sl = strlen(r->shown);
					if (link_lost(r, strncmp(why, r->shown, sl) == 0 &&
					                                 why[sl] == ':'
					                         ? why + sl + 2
					                         : why) < 0)
						return -1;
					continue;
				}
				/* the plugin loaded once: a restart that fails ends this run for
				 * the plugin (every case left is ERROR), not the harness */
				r->gave_up = 1;
				size_t sl = strlen(r->shown);
				const char *w = strncmp(why, r->shown, sl) == 0 && why[sl] == ':'
				                        ? why + sl + 2
				                        : why;
				snprintf(r->gave_up_why, sizeof r->gave_up_why, "%s", w);
				trace(r, "giving up on the plugin: %s", r->gave_up_why);
				continue;
			}
			r->lives++;
			r->cmds = 0;
		}
		int fresh_life = r->cmds == 0;
		if (isolate || fresh_life) {
			/* as staged, whatever the plugin did to its slot before */
			stage_slot(r, first, calls[first->index]);
			memcpy(r->arena + first->d.ro_off, r->shadow + first->shadow_off,
			       first->meta_len);
		}
		if (send_cases(r, list, n) < 0) {
			/* The worker died before reading: no case was running. */
			end_worker(r, 1);
			if (++failed_sends >= 3) {
				no_worker(r, m, results, "cannot send work to the worker");
				break;
			}
			continue;
		}
		r->cmds++;
		for (size_t q = 0; q < n; q++) {
			staged_case *sc = &r->cases[list[q]];
			sc->life = r->lives;
			sc->probed = r->probation;
			sc->left_open = 0;
			sc->isolated = sc->isolated_fresh = 0;
		}
		first->isolated_fresh = fresh_life;
		if (isolate) {
			first->isolated = 1;
			first->alone = first->fresh = 0;
		}
		long own = n == 1 ? (long)list[0] : -1; /* the one case of the command */
		int left_open = 0, amiss = 0; /* a slot was left open; something went wrong */
		size_t seq = 0;               /* answers so far */
		qc_fault fault;
		memset(&fault, 0, sizeof fault);
		int have_fault = 0;
		/* --remote: the device keeps the timeout; the harness waits longer for the link */
		double wait_s = r->timeout_s;
		if (r->remote && wait_s > 0) {
			double bytes = 0;
			for (size_t q = 0; q < n; q++)
				bytes += (double)r->cases[list[q]].d.slot_len;
			wait_s += LINK_WAIT_S + r->timeout_s + bytes / LINK_BYTES_PER_S;
		}
		double t0 = qc_now_s();
		for (;;) {
			int waiting = seq < n; /* for an answer, else for the command's end */
			staged_case *sc = waiting ? &r->cases[list[seq]] : NULL;
			qc_exec_result *res = sc ? &results[sc->index] : NULL;
			worker_msg msg;
			/* a worker whose fault handler spoke dies at once: after its command's end,
			 * one that lives on sent a forged fault */
			int dying = have_fault && !waiting;
			int got = next_msg(r, dying ? EXIT_WAIT_S : wait_s, &msg);
			if (atomic_load(&r->cancelled)) {
				end_worker(r, 1);
				return -2;
			}
			if (got == MSG_ANSWER && waiting && msg.magic == QC_MSG_ANSWER &&
			    msg.ans.seq == seq) {
				int bad = take_answer(r, sc, &msg.ans, calls[sc->index], res) < 0;
				amiss |= bad;
				left_open |= sc->left_open;
				/* its memory is not as it should be: its own doing only when it ran
				 * alone, staged again (another case's code may have opened it) */
				if (bad && !sc->left_open && !sc->isolated)
					suspect(r, sc, 0, calls, results);
				if (res->late_write)
					enter_probation(r, m, (long)list[seq], results, calls);
				r->link_row = 0;
				seq++;
				t0 = qc_now_s();
				continue;
			}
			if (got == MSG_ANSWER && !waiting && msg.magic == QC_MSG_DONE &&
			    msg.ans.seq == n) {
				if (have_fault)
					continue; /* sent while the faulting thread died: it is
					             dying */
				break;            /* the command is done */
			}
			if (got == MSG_FAULT) {
				fault = msg.fault;
				have_fault = 1;
				trace(r,
				      "fault reported: %s at arena offset %llu, case %u of the "
				      "command %s%s",
				      signal_name(fault.signal), (unsigned long long)fault.offset,
				      fault.seq,
				      fault.state == QC_FAULT_RUNNING    ? "running"
				      : fault.state == QC_FAULT_RETURNED ? "returned"
				      : fault.state == QC_FAULT_AFTER    ? "after its return"
				                                         : "done",
				      fault.main_thread ? "" : " (another thread)");
				continue; /* the worker dies of it next */
			}
			if (got == MSG_BROKEN) {
				/* not the kernel's doing: the run stops here (--remote) */
				msg.ans.message[sizeof msg.ans.message - 1] = '\0';
				snprintf(r->broken, sizeof r->broken, "%s", msg.ans.message);
				trace(r, "relay: %s", r->broken);
				end_worker(r, 1);
				return -1;
			}
			if (got == MSG_ANSWER || got == MSG_GARBLED) {
				/* out of order or not from the worker: any answer of the command
				 * may have been forged by the plugin, which runs in the worker */
				trace(r, "garbled message from worker %ld", (long)r->pid);
				end_worker(r, 1);
				for (size_t q = 0; q < seq; q++)
					suspect(r, &r->cases[list[q]], 0, calls, results);
				if (res && convict_awaited(r, sc, calls,
				                           "garbled answer from the worker")) {
					set_result(res, QC_EXEC_ERROR,
					           "garbled answer from the worker");
					res->seconds = qc_now_s() - t0;
					sc->done = 1;
				}
				break;
			}
			if (got == MSG_TIMEOUT && dying) {
				trace(r,
				      "worker %ld lives on after its fault message: a forgery, "
				      "dismissed",
				      (long)r->pid);
				end_worker(r, 1);
				break;
			}
			if (got == MSG_LINK || (got == MSG_TIMEOUT && r->remote)) {
				/* not the kernel's doing: the command again, the case in flight in
				 * it */
				char why[300];
				msg.ans.message[sizeof msg.ans.message - 1] = '\0';
				if (got == MSG_LINK)
					snprintf(why, sizeof why, "%s", msg.ans.message);
				else
					snprintf(why, sizeof why,
					         "no word from the remote worker in %.3g s (its "
					         "timeout of %g s and %.3g s for the link)",
					         wait_s, r->timeout_s, wait_s - r->timeout_s);
				end_worker(r, 1);
				if (res)
					requeue(r, sc, calls);
				if (link_lost(r, why) < 0)
					return -1;
				break;
			}
			if (got == MSG_TIMEOUT || got == MSG_DEVICE_TIMEOUT) {
				trace(r, "%s timed out, killing worker %ld",
				      res ? "a case" : "the command's end", (long)r->pid);
				end_worker(r, 1);
				if (res) {
					set_result(res, QC_EXEC_TIMEOUT,
					           "timed out after %g s (worker killed)",
					           r->timeout_s);
					res->seconds = qc_now_s() - t0;
					sc->done = 1;
				}
				break;
			}
			/* the worker is gone: whose fault was it? */
			int st = end_worker(r, 0);
			if (have_fault && fault.garbled) {
				/* its stream carried what the worker never sends (--remote): as a
				 * garbled packet on a local channel */
				for (size_t q = 0; q < seq; q++)
					suspect(r, &r->cases[list[q]], 0, calls, results);
				if (res && convict_awaited(r, sc, calls,
				                           "garbled answer from the worker")) {
					set_result(res, QC_EXEC_ERROR,
					           "garbled answer from the worker (bytes on its "
					           "stream that are not the protocol)");
					res->seconds = qc_now_s() - t0;
					sc->done = 1;
				}
				break;
			}
			long culprit = -2; /* no fault reported of another case */
			long awaited = res ? (long)list[seq] : -1, accused = -1;
			int late = 0;
			if (have_fault && fault.oom && res) {
				describe_exit(st, &res->signal, res->message, sizeof res->message);
				char how[sizeof res->message];
				snprintf(how, sizeof how, "%s", res->message);
				set_result(res, QC_EXEC_CRASH,
				           "out of memory (the worker's limit of %zu MiB was "
				           "reached): %s",
				           r->memory >> 20, how);
				trace(r, "case %d: %s", sc->index, res->message);
				culprit = (long)list[seq];
			} else if (have_fault && fault.in_arena && fault.seq <= n) {
				size_t running = fault.seq < n ? list[fault.seq] : m;
				culprit = apply_fault(r, running, m, &fault, calls, results, &late,
				                      awaited, own, &accused);
				if (accused >= 0)
					suspect(r, &r->cases[accused], 0, calls, results);
				if (late || culprit == -1)
					enter_probation(r, m, culprit, results, calls);
			}
			if (!res)
				break; /* between the last answer and the command's end */
			if (culprit == -2) {
				res->outcome = QC_EXEC_CRASH;
				describe_exit(st, &res->signal, res->message, sizeof res->message);
				static const char *const calls_named[] = {
				        "",          "supports()",   "prepare()",
				        "execute()", "last_error()", "release()",
				        "engine()"};
				if (have_fault && fault.seq == seq && fault.main_thread &&
				    fault.phase > QC_PHASE_NONE && fault.phase <= QC_PHASE_ENGINE) {
					size_t l = strlen(res->message);
					snprintf(res->message + l, sizeof res->message - l,
					         " in %s", calls_named[fault.phase]);
				}
				trace(r, "case %d: worker %s", sc->index, res->message);
			}
			if (culprit == (long)list[seq] ||
			    (culprit == -2 && convict_awaited(r, sc, calls, res->message))) {
				res->seconds = qc_now_s() - t0;
				sc->done = 1;
			} else if (culprit != -2 &&
			           convict_awaited(r, sc, calls, "the worker died")) {
				res->outcome = QC_EXEC_CRASH;
				describe_exit(st, &res->signal, res->message, sizeof res->message);
				sc->done = 1;
			}
			break;
		}
		/* slots left open: the command's verdicts stand only if nothing touched them */
		if (left_open && (amiss || !open_cases_intact(r, list, n, calls)))
			run_again_closed(r, list, n, calls, results);
		/* the one case of a command, its outputs changed by the command's end: late */
		if (own >= 0) {
			staged_case *sc = &r->cases[own];
			qc_exec_result *res = &results[sc->index];
			if (sc->done && sc->result && res->outcome == QC_EXEC_OK &&
			    !res->late_write && hash_outputs(r, sc) != sc->result_hash)
				mark_late(res, "output changed after execute returned");
		}
	}
	/* Outputs changed after their case's command (the kernel reopened closed pages): by
	 * whose code, the harness cannot tell. Each such case runs again alone. */
	int rerun = 0;
	for (size_t i = 0; i < m; i++) {
		staged_case *sc = &r->cases[i];
		qc_exec_result *res = &results[sc->index];
		if (sc->result && res->outcome == QC_EXEC_OK && !res->late_write &&
		    hash_outputs(r, sc) != sc->result_hash)
			rerun |= suspect(r, sc, 0, calls, results) == 0;
	}
	if (rerun)
		goto again;
	return 0;
}

static void free_kept(qc_runner *r)
{
	for (size_t i = 0; i < r->n_keep; i++)
		free(r->keep[i]);
	r->n_keep = 0;
}

/* Where the next slots go: after the last batch's (late writes of a finished batch then
 * land in closed pages), from the start again when the ring's window is used up. */
static size_t ring_start(qc_runner *r, size_t need)
{
	size_t base = r->arena_bytes >= 4 * (RING_BASE + RING_WINDOW) ? RING_BASE : 0;
	size_t window = r->arena_bytes < RING_WINDOW ? r->arena_bytes : RING_WINDOW;
	if (base + need > window + base || base + window > r->arena_bytes) {
		base = 0;
		window = r->arena_bytes;
	}
	if (r->ring < base || r->ring + r->page + need > base + window)
		r->ring = base;
	return r->ring + r->page; /* a closed page before the first slot */
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
		/* one piece: as many cases as the arena takes */
		size_t m = 0, need = 0, shadow = 0;
		int j = i;
		for (; j < n; j++) {
			if (check_call(calls[j]))
				continue;
			slot_layout L;
			layout_call(calls[j], r->page, &L);
			if (L.d.slot_len > cap)
				continue;
			if (need + L.d.slot_len > cap)
				break;
			need += L.d.slot_len;
		}
		size_t off = ring_start(r, need), piece_start = off;
		for (; i < j; i++) {
			qc_exec_result *res = &results[i];
			const char *bad = check_call(calls[i]);
			if (bad) {
				set_result(res, QC_EXEC_ERROR, "malformed call: %s", bad);
				continue;
			}
			slot_layout L;
			layout_call(calls[i], r->page, &L);
			if (L.d.slot_len > cap) {
				set_result(
				        res, QC_EXEC_ERROR,
				        "case too large for the shared arena (%zu bytes, capacity "
				        "%zu)",
				        (size_t)L.d.slot_len, cap);
				continue;
			}
			unsigned char *sh = grow(r->shadow, &r->shadow_cap, shadow + L.meta, 1);
			if (!sh) {
				snprintf(err, err_size, "out of memory");
				return -1;
			}
			r->shadow = sh;
			staged_case *sc = &r->cases[m++];
			memset(sc, 0, sizeof *sc);
			sc->index = i;
			sc->d = L.d;
			sc->d.slot_off = off;
			sc->d.ro_off += off;
			sc->d.call_off = off;
			for (uint32_t k = 0; k < sc->d.n_outputs; k++) {
				sc->d.rw_off[k] += off;
				sc->d.out_off[k] += off;
			}
			sc->meta_len = L.meta;
			sc->shadow_off = shadow;
			stage_slot(r, sc, calls[i]);
			memcpy(r->shadow + shadow, r->arena + sc->d.ro_off, L.meta);
			off += L.d.slot_len;
			shadow += L.meta;
		}
		r->ring = off - r->page;
		if (m == 0)
			continue;
		if (i < n)
			trace(r, "batch does not fit the arena: running %zu case(s) in one piece",
			      m);
		int rc = run_piece(r, m, calls, results);
		if (rc == -1)
			snprintf(err, err_size, "%s: %s", r->shown, r->broken);
		if (rc < 0)
			return rc;
		for (size_t q = 0; q < m; q++) {
			staged_case *sc = &r->cases[q];
			if (!sc->result && keep_result(r, sc, calls[sc->index]) < 0) {
				snprintf(err, err_size, "out of memory");
				return -1;
			}
			if (staged)
				staged[sc->index] = sc->result;
		}
		/* Everything was copied out. A piece that went past the ring's window gives its
		 * pages back (they stay closed in the worker, so a late write still faults): memory
		 * stays about the window whatever the number of cases. */
		size_t len = QC_ROUND_UP(off - piece_start, r->page);
		if (off > RING_BASE + RING_WINDOW + r->page &&
		    fallocate(r->arena_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		              (off_t)piece_start, (off_t)len) != 0)
			madvise(r->arena + piece_start, len, MADV_REMOVE);
	}
	return 0;
}

/* ------------------------------------------------------------ open/close */

int qc_runner_link_gone(const qc_runner *r)
{
	return r && r->link_gone;
}

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
	for (int i = 0; i < r->n_allow; i++)
		free(r->allow[i]);
	free(r->allow);
	free(r->path);
	free(r->shown);
	free(r->worker);
	free(r->remote);
	free(r->shadow);
	free(r->cases);
	free(r);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* The worker executable: cfg's, $QCONFORM_WORKER, or the one installed with the running
 * executable (qc_installed_path: libexec/qconform/, or beside it in a build tree). */
static char *worker_path(const qc_runner_config *cfg)
{
	const char *w = cfg->worker_path;
	if (!w || !*w)
		w = getenv("QCONFORM_WORKER");
	if (w && *w)
		return strdup(w);
	char path[PATH_MAX];
	qc_installed_path(WORKER_NAME, "libexec/qconform/" WORKER_NAME, path, sizeof path);
	return strdup(path);
}

int qc_runner_open_start(const qc_runner_config *cfg, qc_runner **out, char *err, size_t err_size)
{
	*out = NULL;
	int remote = cfg && cfg->remote && *cfg->remote;
	if (!cfg || (!remote && (!cfg->plugin_path || !*cfg->plugin_path))) {
		snprintf(err, err_size, "no plugin path");
		return -1;
	}
	/* remote: the plugin is a path where the worker runs (or the worker's own) */
	const char *p = cfg->plugin_path && *cfg->plugin_path ? cfg->plugin_path : "";
	qc_runner *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, err_size, "%s: out of memory", p);
		return -1;
	}
	r->pid = -1;
	r->fd = -1;
	r->pidfd = -1;
	r->arena_fd = -1;
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	const char *env = getenv("QCONFORM_TRACE");
	r->trace = cfg->trace || (env && *env && strcmp(env, "0") != 0);
	r->timeout_s = cfg->timeout_s;
	r->sandbox = cfg->sandbox;
	r->memory = cfg->worker_memory;
	r->memory_share = cfg->memory_share > 0 ? (unsigned)cfg->memory_share : 0;
	if (cfg->n_sandbox_allow > 0) {
		r->allow = calloc((size_t)cfg->n_sandbox_allow, sizeof *r->allow);
		for (int i = 0; r->allow && i < cfg->n_sandbox_allow; i++)
			if ((r->allow[r->n_allow] = strdup(cfg->sandbox_allow[i])))
				r->n_allow++;
	}
	r->shown = strdup(*p ? p : "the remote worker's plugin");
	r->reconnects = cfg->reconnects;
	if (remote && (r->remote = strdup(cfg->remote)) == NULL) {
		free(r->shown);
		r->shown = NULL;
	}
	if (!r->shown) {
		snprintf(err, err_size, "%s: out of memory", p);
		free_runner(r);
		return -1;
	}

	trace(r, "plugin %s", r->shown);
	if (strlen(p) >= sizeof r->info.path ||
	    strlen(cfg->remote ? cfg->remote : "") >= sizeof r->info.remote) {
		snprintf(err, err_size, "%s: path or remote command too long", r->shown);
		free_runner(r);
		return -1;
	}
	if (remote) {
		/* nothing of the plugin is here: its sha256 comes from the worker */
		snprintf(r->info.remote, sizeof r->info.remote, "%s", cfg->remote);
		snprintf(r->info.path, sizeof r->info.path, "%s", p);
		r->path = strdup(p);
	} else {
		r->path = realpath(p, NULL);
	}
	if (!r->path) {
		snprintf(err, err_size, "%s: cannot open: %s", p, strerror(errno));
		free_runner(r);
		return -1;
	}
	/* reports name the plugin as the user gave it (the sha256 says which file it was) */
	snprintf(r->info.path, sizeof r->info.path, "%s", p);
	if (!remote && qc_sha256_file(r->path, r->info.sha256) < 0) {
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

	r->arena_bytes = QC_ROUND_UP(cfg->arena_bytes ? cfg->arena_bytes : DEFAULT_ARENA, r->page);
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

	if (try_spawn(r, err, err_size) < 0) {
		free_runner(r);
		return -1;
	}
	*out = r;
	return 0;
}

int qc_runner_open_finish(qc_runner *r, qc_plugin_info *info, char *err, size_t err_size)
{
	if (start_worker_from(r, 1, err, err_size) < 0) {
		int link = r->remote && r->link_down;
		free_runner(r);
		return link ? -3 : -1;
	}
	if (info)
		*info = r->info;
	return 0;
}

int qc_runner_open(const qc_runner_config *cfg, qc_runner **out, qc_plugin_info *info, char *err,
                   size_t err_size)
{
	if (qc_runner_open_start(cfg, out, err, err_size) < 0)
		return -1;
	int rc = qc_runner_open_finish(*out, info, err, err_size);
	if (rc < 0)
		*out = NULL;
	return rc < 0 ? -1 : rc;
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
			char b[sizeof(qc_answer)];
			while (!gone && load_wait(r, wait) > 0)
				gone = recv(r->fd, b, sizeof b, MSG_DONTWAIT) <= 0;
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
	return r->arena_bytes - r->page;
}
