/*
 * runner: one worker process per runner holds the plugin. See runner.h for
 * the contract, wire.h for the protocol, worker.c for the worker's side.
 * This file opens and closes a runner and maps its arena; runner_worker.c
 * starts and collects the worker, runner_stage.c stages a case in the
 * arena, runner_run.c runs a batch, runner_result.c takes what each case
 * comes to (runner_internal.h: what they share).
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
#include "run/runner_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/util.h"
#include "run/wire.h"

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

/* ------------------------------------------------------------ open/close */

int qc_runner_link_gone(const qc_runner *r)
{
	return r && r->link_gone;
}

static void free_runner(qc_runner *r)
{
	if (!r)
		return;
	qc_runner_free_kept(r);
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

	qc_runner_trace(r, "plugin %s", r->shown);
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
	qc_runner_trace(r, "resolved to %s, sha256 %s", r->path, r->info.sha256);

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
	qc_runner_trace(r, "worker executable %s", r->worker);

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
	qc_runner_trace(r, "arena: %zu bytes at %p", r->arena_bytes, a);

	if (qc_runner_try_spawn(r, err, err_size) < 0) {
		free_runner(r);
		return -1;
	}
	*out = r;
	return 0;
}

int qc_runner_open_finish(qc_runner *r, qc_plugin_info *info, char *err, size_t err_size)
{
	if (qc_runner_start_worker_from(r, 1, err, err_size) < 0) {
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
	if (qc_runner_worker_alive(r)) {
		/* quit: the worker calls destroy() and exits; its channel then reads EOF. */
		qc_command c = {.count = 0, .quit = 1};
		double wait = r->timeout_s > CLOSE_WAIT_S ? r->timeout_s : CLOSE_WAIT_S;
		int gone = 0;
		if (qc_send_full(r->fd, &c, sizeof c) == 0) {
			char b[sizeof(qc_answer)];
			while (!gone && qc_runner_load_wait(r, wait) > 0)
				gone = recv(r->fd, b, sizeof b, MSG_DONTWAIT) <= 0;
		}
		qc_runner_trace(r, "closing worker %ld%s", (long)r->pid, gone ? "" : " (killed)");
		qc_runner_end_worker(r, !gone);
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
