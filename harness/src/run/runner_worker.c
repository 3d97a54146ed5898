/* runner_worker: the worker process of a runner (runner.c says why one): spawned, waited for
 * while it loads the plugin, started again, collected. */
#include "run/runner_internal.h"

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
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/sandbox.h"
#include "run/wire.h"

extern char **environ;

/* ---------------------------------------------------------------- helpers */

void qc_runner_trace(const qc_runner *r, const char *fmt, ...)
{
	if (!r->trace)
		return;
	va_list ap;
	va_start(ap, fmt);
	qc_trace_line(fmt, ap);
	va_end(ap);
}

const char *qc_runner_signal_name(int sig)
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
void qc_runner_describe_exit(int status, int *sig, char *buf, size_t size)
{
	if (status == -1) {
		*sig = 0;
		snprintf(buf, size, "worker vanished (could not collect its exit status)");
	} else if (WIFSIGNALED(status)) {
		*sig = WTERMSIG(status);
		snprintf(buf, size, "killed by signal %d (%s)", *sig, qc_runner_signal_name(*sig));
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
int qc_runner_load_wait(qc_runner *r, double timeout_s)
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
int qc_runner_try_spawn(qc_runner *r, char *err, size_t err_size)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, err_size, "%s: socketpair: %s", r->shown, strerror(errno));
		return -1;
	}
	qc_runner_trace(r, "starting a worker (%s) for %s", r->worker, r->path);
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

/* Waits for the load report of the worker qc_runner_try_spawn started: 0 when it is ready; -1 with
 * the reason, and *taken when the arena's address was in use in it (another worker may do). */
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
		ready = qc_runner_load_wait(r, wait - (qc_now_s() - t0));
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
		qc_runner_trace(r, "worker %ld ready: %s %s, ABI %u", (long)pid, rep.name,
		                rep.version, rep.abi);
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
		qc_runner_describe_exit(reap(pid, r->pidfd, EXIT_WAIT_S), &sig, how, sizeof how);
		snprintf(why, sizeof why, "worker died while loading the plugin: %s", how);
	}
	stop_worker(r);
	snprintf(err, err_size, "%s: %s", r->shown, why);
	qc_runner_trace(r, "load failed: %s", why);
	return -1;
}

/* Starts a worker and waits until it is ready; `spawned`: qc_runner_try_spawn did the first
 * start. */
int qc_runner_start_worker_from(qc_runner *r, int spawned, char *err, size_t err_size)
{
	for (int i = 1;; i++) {
		if (atomic_load(&r->cancelled)) {
			if (spawned)
				qc_runner_end_worker(r, 1);
			snprintf(err, err_size, "%s: cancelled", r->shown);
			return -1;
		}
		int taken = 0;
		if ((spawned || qc_runner_try_spawn(r, err, err_size) == 0) &&
		    try_wait(r, &taken, err, err_size) == 0)
			return 0;
		spawned = 0;
		if (!taken || i >= START_TRIES)
			return -1;
		qc_runner_trace(r, "the arena's address is taken in that worker: starting another");
	}
}

int qc_runner_start_worker(qc_runner *r, char *err, size_t err_size)
{
	return qc_runner_start_worker_from(r, 0, err, err_size);
}

/* Kills the worker (timeout) or collects it (crash); returns its wait status. */
int qc_runner_end_worker(qc_runner *r, int kill_it)
{
	if (kill_it) {
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
	}
	int st = reap(r->pid, r->pidfd, EXIT_WAIT_S);
	stop_worker(r);
	return st;
}
