/*
 * The reference, plus one fault on one op, chosen by create() options:
 *   fault=NAME   what goes wrong (below)       op=OP   the op it happens on (DEQUANTIZE)
 *   arg=N        a number the fault uses       state=PATH   a file counting create() calls
 *   pick=odd     only the op's calls whose input 0 bytes add up to an odd number (the others,
 *                innocent, run as the reference does)
 * Faults (suite/test_hostile.c is the catalogue that runs them):
 *   stray       after computing, writes one byte arg bytes past the end of output 0 (arg >= 0:
 *               0 is the first byte after it), or -arg bytes before its start (arg < 0)
 *   thread-stray  the same byte, written by a thread of the kernel during execute
 *   stale       after computing, changes the first byte of the previous call's output 0 (a
 *               pointer kept from the last call: another case's memory by now)
 *   input       writes input 0                 meta    changes its call's output nbytes
 *   unwritten   returns QCF_OK, writes nothing
 *   late        returns at once; a thread writes the answer arg microseconds later, once the
 *               case's memory is closed
 *   late-garble writes the answer, returns; a thread overwrites it arg microseconds later,
 *               once the case's memory is closed
 *   late-now    returns at once; a thread that spins until execute returns writes the answer
 *               arg microseconds after that (busy waiting), closed memory or not
 *   late-unmap  writes the answer, returns; a thread unmaps output 0's pages once the case's
 *               memory is closed and writes there; release() waits for it: the fault comes
 *               before the worker answers, and whatever reads the output then faults too
 *   fork-crash  forks a child that sleeps 30 s holding every fd, then segfaults
 *   fork-linger forks a child that sleeps 30 s, answers correctly
 *   no-restart  segfaults; create() segfaults from its arg-th call on (state counts them)
 *   hang-restart  segfaults; create() hangs from its arg-th call on
 *   exit        exits the worker with status arg
 *   alloc       allocates and touches arg MiB (16 MiB at a time, never checked), then answers
 *   kill-parent kill(getppid(), SIGKILL), then answers
 *   shell       system("touch " + state), then answers
 * Faults after the answer is computed, and on the worker's own ground:
 *   release-crash   answers; release() of the case's prepared state segfaults
 *   last-error-bad  returns QCF_ERROR; last_error() returns a pointer to no memory
 *   reopen      answers, after making every page of the shared arena within 2 MiB of its
 *               call accessible (mprotect) and changing a byte in every 256 outside its own
 *               call (arg 0), or zeroing them (arg 1: madvise MADV_REMOVE)
 *   forge-answer  answers, after sending the worker's channel an answer for every position
 *               of a command (outcome OK), as if the worker had sent them
 *   forge-fault   sends the worker's channel a fault (a late write by another thread into
 *               output 0 of the last call of another op), then segfaults
 *   forge-late  sends the worker's channel the fault forge-fault sends, then answers
 *   forge-broken  sends the worker's channel the relay's "stream broke" message, then answers
 *   stray-fd    writes a line to every file descriptor from 0 to 255, then answers
 * Escapes: each tries to get out of the sandbox; ERROR "escaped: HOW" when it got out, else
 * the right answer (arg: what the attempt takes, below)
 *   setown      makes the worker's parent an fd's owner, its signal SIGKILL (F_SETOWN,
 *               F_SETSIG): a read on the fd would kill it
 *   proc-mem    opens /proc/<the worker's parent>/mem for writing
 *   io-uring    sets up an io_uring
 *   proc-sys    opens /proc/sys/kernel/core_pattern for writing
 *   unix-socket makes an AF_UNIX socket that can reach a path (socket, a datagram pair)
 *   write-tmp   creates a file in /tmp or /dev/shm (writable by everyone, never allowed)
 *   memfd       fills a memfd with arg MiB
 *   fork-bomb   forks arg children that wait (the first case of each worker)
 *   setsid      forks a child into a session of its own that sleeps 30 s
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/wire.h"
#include "stub.h"

static char fault[32] = "none";
static char fault_op[64] = "DEQUANTIZE";
static long long arg;
static char state[512];
static int pick_odd;

/* Is the fault for this call? */
static int picked(const qcf_op_call *call)
{
	if (!stub_op_is(call, fault_op) || call->n_outputs < 1)
		return 0;
	if (!pick_odd)
		return 1;
	unsigned sum = 0;
	if (call->n_inputs > 0 && call->inputs[0].data)
		for (size_t i = 0; i < call->inputs[0].nbytes; i++)
			sum += ((const unsigned char *)call->inputs[0].data)[i];
	return sum & 1;
}

__attribute__((no_sanitize("undefined"))) static void segfault(void)
{
	volatile int *volatile p = NULL;
	*p = 1;
}

static void sleep_us(long long us)
{
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Counts create() calls in the state file; returns this call's number (1, 2, ...). */
static long count_creates(void)
{
	if (!state[0])
		return 1;
	int fd = open(state, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return 1;
	char buf[32] = "";
	ssize_t n = read(fd, buf, sizeof buf - 1);
	long c = (n > 0 ? strtol(buf, NULL, 10) : 0) + 1;
	int len = snprintf(buf, sizeof buf, "%ld\n", c);
	if (pwrite(fd, buf, (size_t)len, 0) != len)
		c = 1;
	close(fd);
	return c;
}

static qcf_status hostile_create(const qcf_option *options, int32_t n_options, qcf_instance **out,
                                 char *msg, size_t msg_size)
{
	for (int32_t i = 0; i < n_options; i++) {
		if (strcmp(options[i].key, "fault") == 0)
			snprintf(fault, sizeof fault, "%s", options[i].value);
		else if (strcmp(options[i].key, "op") == 0)
			snprintf(fault_op, sizeof fault_op, "%s", options[i].value);
		else if (strcmp(options[i].key, "arg") == 0)
			arg = strtoll(options[i].value, NULL, 10);
		else if (strcmp(options[i].key, "state") == 0)
			snprintf(state, sizeof state, "%s", options[i].value);
		else if (strcmp(options[i].key, "pick") == 0)
			pick_odd = strcmp(options[i].value, "odd") == 0;
	}
	int restart = !strcmp(fault, "no-restart") || !strcmp(fault, "hang-restart");
	if (restart && count_creates() >= (arg > 0 ? arg : 2)) {
		if (!strcmp(fault, "no-restart"))
			segfault();
		for (;;)
			pause();
	}
	return stub_create(options, n_options, out, msg, msg_size);
}

typedef struct late_job {
	unsigned char *dst;
	unsigned char *src; /* NULL: garbage */
	size_t n;
	long long delay_us;
} late_job;

/* Can the byte at p be written? Asked without a fault and without changing it: the kernel
 * copies the byte out into a pipe and back in, and says EFAULT when the page is closed. */
static int writable(unsigned char *p, const int fd[2])
{
	return write(fd[1], p, 1) == 1 && read(fd[0], p, 1) == 1;
}

static void *late_main(void *p)
{
	late_job *j = p;
	sleep_us(j->delay_us);
	/* late for sure: once the worker has closed the case's memory (a preempted worker closes
	 * it later than any fixed delay), for at most 2 s */
	int fd[2];
	if (j->n && pipe(fd) == 0) {
		for (int k = 0; k < 40000 && writable(j->dst, fd); k++)
			sleep_us(50);
		close(fd[0]);
		close(fd[1]);
	}
	for (size_t i = 0; i < j->n; i++)
		((volatile unsigned char *)j->dst)[i] =
		        j->src ? j->src[i] : (unsigned char)(i * 7 + 1);
	free(j->src);
	free(j);
	return NULL;
}

/* Writes output 0 (its answer, or garbage) from a thread of its own, delay_us from now. */
static void write_later(const qcf_tensor *out, const void *answer, long long delay_us)
{
	late_job *j = calloc(1, sizeof *j);
	if (!j)
		return;
	j->dst = out->data;
	j->n = out->nbytes;
	j->delay_us = delay_us;
	if (answer) {
		j->src = malloc(j->n ? j->n : 1);
		if (j->src)
			memcpy(j->src, answer, j->n);
	}
	pthread_t t;
	if (pthread_create(&t, NULL, late_main, j) == 0)
		pthread_detach(t);
}

/* late-unmap: 1 a thread was started, 2 it is about to write (release() waits for it) */
static atomic_int unmapping;

static void *unmap_main(void *p)
{
	unsigned char *o = p, byte;
	int fd[2];
	if (pipe(fd) == 0) {
		/* until closed, not only read-only (the worker hashes the outputs then) */
		for (int k = 0; k < 40000 && write(fd[1], o, 1) == 1; k++) {
			if (read(fd[0], &byte, 1) != 1)
				break;
			sleep_us(50);
		}
		close(fd[0]);
		close(fd[1]);
	}
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), at = (uintptr_t)o & ~(page - 1);
	munmap((void *)at, page);
	atomic_store(&unmapping, 2);
	*(volatile unsigned char *)o = 0xa5; /* a write (^= would fault on its read) */
	return NULL;
}

typedef struct now_job {
	unsigned char *dst, *src;
	size_t n;
	long long delay_us;
	atomic_int returned;
} now_job;

static void *now_main(void *p)
{
	now_job *j = p;
	while (!atomic_load(&j->returned))
		;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000LL + (t.tv_nsec - t0.tv_nsec) / 1000 < j->delay_us);
	memcpy(j->dst, j->src, j->n);
	free(j->src);
	free(j);
	return NULL;
}

typedef struct stray_job {
	volatile unsigned char *at;
} stray_job;

static void *stray_main(void *p)
{
	*((stray_job *)p)->at ^= 0xa5;
	return NULL;
}

/* The shared arena's mappings here: calls fn(start, end, arena offset of start) for each
 * line of /proc/self/maps naming it. */
static void each_arena_map(void (*fn)(uintptr_t, uintptr_t, uint64_t, void *), void *ctx)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		uintptr_t lo, hi;
		unsigned long long off;
		if (strstr(line, "qconform-arena") &&
		    sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %llx", &lo, &hi, &off) == 3)
			fn(lo, hi, (uint64_t)off, ctx);
	}
	fclose(f);
}

typedef struct reopen_job {
	uintptr_t lo, hi;     /* its own call's memory: left alone */
	uintptr_t near, span; /* what is touched: [near - span, near + span) */
	int zero;
} reopen_job;

static void reopen_map(uintptr_t lo, uintptr_t hi, uint64_t off, void *p)
{
	(void)off;
	reopen_job *j = p;
	uintptr_t a = lo > j->near - j->span ? lo : j->near - j->span;
	uintptr_t b = hi < j->near + j->span ? hi : j->near + j->span;
	for (uintptr_t x = a; x < b; x += 4096) {
		if (x + 4096 > j->lo && x < j->hi)
			continue;
		if (mprotect((void *)x, 4096, PROT_READ | PROT_WRITE) != 0)
			continue;
		if (j->zero)
			madvise((void *)x, 4096, MADV_REMOVE);
		else
			for (size_t i = 0; i < 4096; i += 256)
				((volatile unsigned char *)x)[i] ^= 0x5a;
	}
}

/* Opens and spoils the arena around the call, all but the call's own memory. */
static void reopen(const qcf_op_call *call, int zero)
{
	const qcf_tensor *out = &call->outputs[0];
	uintptr_t lo = (uintptr_t)call, hi = (uintptr_t)call;
	for (int32_t k = 0; k < call->n_inputs; k++) {
		uintptr_t p = (uintptr_t)call->inputs[k].data;
		lo = p && p < lo ? p : lo;
		hi = p && p + call->inputs[k].nbytes > hi ? p + call->inputs[k].nbytes : hi;
	}
	for (int32_t k = 0; k < call->n_outputs; k++) {
		uintptr_t p = (uintptr_t)call->outputs[k].data;
		lo = p && p < lo ? p : lo;
		hi = p && p + call->outputs[k].nbytes > hi ? p + call->outputs[k].nbytes : hi;
	}
	reopen_job j = {(lo & ~(uintptr_t)4095) - 4096, ((hi + 4095) & ~(uintptr_t)4095) + 8192,
	                (uintptr_t)out->data, (uintptr_t)2 << 20, zero};
	each_arena_map(reopen_map, &j);
}

typedef struct find_off {
	uintptr_t p;
	uint64_t off;
	int found;
} find_off;

static void find_map(uintptr_t lo, uintptr_t hi, uint64_t off, void *ctx)
{
	find_off *f = ctx;
	if (f->p >= lo && f->p < hi) {
		f->off = off + (f->p - lo);
		f->found = 1;
	}
}

/* Sends a packet to every socket among the first 256 file descriptors. */
static void send_all(const void *p, size_t n)
{
	for (int fd = 0; fd < 256; fd++) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			if (send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				continue;
	}
}

/* The escape named by fault: its description when it worked, NULL when it was refused. */
static const char *escape(void)
{
	static char how[160];
	if (!strcmp(fault, "setown")) {
		int p[2];
		if (pipe(p) != 0)
			return NULL;
		int own = fcntl(p[0], F_SETOWN, getppid()), sig = fcntl(p[0], F_SETSIG, SIGKILL);
		close(p[0]);
		close(p[1]);
		if (own == 0 || sig == 0)
			return own == 0 ? "F_SETOWN to the parent" : "F_SETSIG SIGKILL";
		return NULL;
	}
	if (!strcmp(fault, "proc-mem")) {
		snprintf(how, sizeof how, "/proc/%ld/mem", (long)getppid());
		int fd = open(how, O_RDWR);
		if (fd < 0)
			return NULL;
		close(fd);
		snprintf(how + strlen(how), sizeof how - strlen(how), " opened for writing");
		return how;
	}
	if (!strcmp(fault, "io-uring")) {
		unsigned char params[120] = {0}; /* struct io_uring_params */
		long fd = syscall(SYS_io_uring_setup, 4, params);
		if (fd < 0)
			return NULL;
		close((int)fd);
		return "io_uring_setup";
	}
	if (!strcmp(fault, "proc-sys")) {
		int fd = open("/proc/sys/kernel/core_pattern", O_WRONLY);
		if (fd < 0)
			return NULL;
		close(fd);
		return "core_pattern opened for writing";
	}
	if (!strcmp(fault, "unix-socket")) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0), sv[2];
		if (s >= 0) {
			close(s);
			return "socket(AF_UNIX)";
		}
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0) {
			close(sv[0]);
			close(sv[1]);
			return "socketpair(AF_UNIX, SOCK_DGRAM)";
		}
		return NULL;
	}
	if (!strcmp(fault, "write-tmp")) {
		const char *dirs[] = {"/tmp", "/dev/shm"};
		for (int i = 0; i < 2; i++) {
			snprintf(how, sizeof how, "%s/qconform-escape-%ld", dirs[i],
			         (long)getpid());
			int fd = open(how, O_WRONLY | O_CREAT | O_EXCL, 0600);
			if (fd >= 0) {
				close(fd);
				unlink(how);
				snprintf(how + strlen(how), sizeof how - strlen(how), " created");
				return how;
			}
		}
		return NULL;
	}
	if (!strcmp(fault, "memfd")) {
		int fd = (int)syscall(SYS_memfd_create, "escape", 0);
		if (fd < 0)
			return NULL;
		int ok = fallocate(fd, 0, 0, (off_t)arg << 20) == 0;
		close(fd);
		snprintf(how, sizeof how, "a memfd of %lld MiB", arg);
		return ok ? how : NULL;
	}
	if (!strcmp(fault, "fork-bomb")) {
		/* the children wait for the pipe to close, then the worker reaps them; once per
		 * worker (each case of a worker would only repeat it, at a second a time) */
		static int bombed;
		if (bombed++)
			return NULL;
		int p[2];
		if (pipe(p) != 0)
			return NULL;
		long n = 0;
		for (; n < arg; n++) {
			pid_t kid = fork();
			if (kid == 0) {
				char c;
				close(p[1]);
				while (read(p[0], &c, 1) < 0 && errno == EINTR)
					;
				_exit(0);
			}
			if (kid < 0)
				break;
		}
		close(p[0]);
		close(p[1]);
		for (long k = 0; k < n; k++)
			wait(NULL);
		if (n < arg)
			return NULL;
		snprintf(how, sizeof how, "%ld processes", n);
		return how;
	}
	if (!strcmp(fault, "setsid")) {
		pid_t kid = fork();
		if (kid == 0) {
			setsid();
			sleep_us(30000000);
			_exit(0);
		}
		return NULL; /* whether it outlives the run is for the run to show */
	}
	return NULL;
}

static qcf_status hostile_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	static volatile unsigned char *last; /* output 0 of the previous call (stale) */
	volatile unsigned char *prev = last;
	static volatile unsigned char *other; /* output 0 of the last call of another op */
	last = call->n_outputs > 0 && call->outputs[0].nbytes ? call->outputs[0].data : NULL;
	if (!picked(call)) {
		other = last;
		return stub_delegate(inst, call);
	}
	const qcf_tensor *out = &call->outputs[0];
	unsigned char *o = out->data;
	unsigned char *stray = arg >= 0 ? o + out->nbytes + arg : o + arg;
	if (!strcmp(fault, "unwritten"))
		return QCF_OK;
	if (!strcmp(fault, "input") && call->n_inputs > 0 && call->inputs[0].nbytes) {
		((volatile unsigned char *)call->inputs[0].data)[0] ^= 1;
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "meta")) {
		((volatile qcf_tensor *)out)->nbytes = 1u << 30;
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "late")) {
		/* compute into a copy, hand the copy to a thread, return before it lands */
		qcf_op_call c = *call;
		qcf_tensor t[QCF_MAX_RANK];
		int n = call->n_outputs < QCF_MAX_RANK ? call->n_outputs : QCF_MAX_RANK;
		memcpy(t, call->outputs, (size_t)n * sizeof *t);
		unsigned char *buf = malloc(out->nbytes ? out->nbytes : 1);
		if (!buf)
			return stub_fail(inst, QCF_ERROR, "out of memory");
		memcpy(buf, o, out->nbytes);
		t[0].data = buf;
		c.outputs = t;
		qcf_status st = stub_delegate(inst, &c);
		if (st == QCF_OK)
			write_later(out, buf, arg);
		free(buf);
		return st;
	}
	if (!strcmp(fault, "late-now")) {
		now_job *j = calloc(1, sizeof *j);
		unsigned char *buf = malloc(out->nbytes ? out->nbytes : 1);
		if (!j || !buf) {
			free(j);
			free(buf);
			return stub_fail(inst, QCF_ERROR, "out of memory");
		}
		qcf_op_call c = *call;
		qcf_tensor t[QCF_MAX_RANK];
		int n = call->n_outputs < QCF_MAX_RANK ? call->n_outputs : QCF_MAX_RANK;
		memcpy(t, call->outputs, (size_t)n * sizeof *t);
		memcpy(buf, o, out->nbytes);
		t[0].data = buf;
		c.outputs = t;
		qcf_status st = stub_delegate(inst, &c);
		j->dst = o;
		j->src = buf;
		j->n = out->nbytes;
		j->delay_us = arg;
		pthread_t th;
		if (st != QCF_OK || pthread_create(&th, NULL, now_main, j) != 0) {
			free(buf);
			free(j);
			return st;
		}
		pthread_detach(th);
		atomic_store(&j->returned, 1);
		return st;
	}
	if (!strcmp(fault, "thread-stray")) {
		stray_job j = {stray};
		pthread_t t;
		if (pthread_create(&t, NULL, stray_main, &j) == 0)
			pthread_join(t, NULL);
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "fork-crash") || !strcmp(fault, "fork-linger")) {
		pid_t kid = fork();
		if (kid == 0) {
			sleep_us(30000000);
			_exit(0);
		}
		if (!strcmp(fault, "fork-crash"))
			segfault();
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "no-restart") || !strcmp(fault, "hang-restart"))
		segfault();
	const char *how = escape();
	if (how) {
		char msg[200];
		snprintf(msg, sizeof msg, "escaped: %s", how);
		return stub_fail(inst, QCF_ERROR, msg);
	}
	if (!strcmp(fault, "exit"))
		_exit((int)arg);
	if (!strcmp(fault, "alloc")) {
		/* a careless kernel: 16 MiB at a time, kept, touched, never checked */
		for (long long mib = 0; mib < arg; mib += 16) {
			volatile unsigned char *p = malloc((size_t)16 << 20);
			for (size_t i = 0; i < ((size_t)16 << 20); i += 4096)
				p[i] = 1;
		}
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "kill-parent")) {
		kill(getppid(), SIGKILL);
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "last-error-bad")) {
		inst->err[0] = 1; /* hostile_last_error: a bad pointer */
		return QCF_ERROR;
	}
	if (!strcmp(fault, "forge-fault") || !strcmp(fault, "forge-late")) {
		find_off f = {(uintptr_t)other, 0, 0};
		if (other)
			each_arena_map(find_map, &f);
		if (f.found) {
			qc_fault m;
			memset(&m, 0, sizeof m);
			m.magic = QC_MSG_FAULT;
			m.state = QC_FAULT_RUNNING;
			m.signal = SIGSEGV;
			m.write = 1;
			m.in_arena = 1;
			m.offset = f.off;
			send_all(&m, sizeof m);
		}
		if (!strcmp(fault, "forge-late"))
			return stub_delegate(inst, call);
		segfault();
	}
	if (!strcmp(fault, "forge-answer")) {
		qc_answer a;
		memset(&a, 0, sizeof a);
		a.magic = QC_MSG_ANSWER;
		a.outcome = 0;
		for (uint32_t i = 0; i < QC_WIRE_CHUNK; i++) {
			a.seq = i;
			send_all(&a, sizeof a);
		}
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "forge-broken")) {
		qc_answer a;
		memset(&a, 0, sizeof a);
		a.magic = QC_MSG_BROKEN;
		snprintf(a.message, sizeof a.message, "forged: the stream broke");
		send_all(&a, sizeof a);
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "stray-fd")) {
		static const char line[] = "hello from the kernel\n";
		for (int fd = 0; fd < 256; fd++)
			if (write(fd, line, sizeof line - 1) < 0)
				continue;
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "reopen")) {
		reopen(call, arg == 1);
		return stub_delegate(inst, call);
	}
	if (!strcmp(fault, "shell")) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "touch '%s'", state);
		if (system(cmd) != 0)
			return stub_fail(inst, QCF_ERROR, "system() failed");
		return stub_delegate(inst, call);
	}
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK)
		return st;
	if (!strcmp(fault, "stray"))
		*(volatile unsigned char *)stray ^= 0xa5; /* the byte changes, whatever it held */
	else if (!strcmp(fault, "stale") && prev)
		*prev ^= 0xa5;
	else if (!strcmp(fault, "late-garble"))
		write_later(out, NULL, arg);
	else if (!strcmp(fault, "late-unmap") && out->nbytes) {
		pthread_t t;
		atomic_store(&unmapping, 1);
		if (pthread_create(&t, NULL, unmap_main, o) == 0)
			pthread_detach(t);
		else
			atomic_store(&unmapping, 0);
	}
	return st;
}

/* A prepared state for every call: release() gets the op's (release-crash). */
static int prepared_fault, prepared_other;

static qcf_status hostile_prepare(qcf_instance *inst, const qcf_op_call *call, qcf_prepared **out)
{
	(void)inst;
	*out = (qcf_prepared *)(picked(call) ? &prepared_fault : &prepared_other);
	return QCF_OK;
}

static void hostile_release(qcf_instance *inst, qcf_prepared *prep)
{
	(void)inst;
	if (!strcmp(fault, "release-crash") && prep == (qcf_prepared *)&prepared_fault)
		segfault();
	if (!strcmp(fault, "late-unmap") && atomic_load(&unmapping)) {
		/* the thread's fault first, whenever it runs (the worker dies of it) */
		for (int k = 0; k < 2000 && atomic_load(&unmapping) != 2; k++)
			sleep_us(1000);
		sleep_us(100000);
		atomic_store(&unmapping, 0);
	}
}

static const char *hostile_last_error(qcf_instance *inst)
{
	if (inst->err[0] == 1) {
		inst->err[0] = 0;
		return (const char *)(uintptr_t)16; /* no memory there */
	}
	return inst->err;
}

static const qcf_plugin descriptor = {.struct_size = sizeof(qcf_plugin),
                                      .abi_version = 1,
                                      .name = "stub_hostile",
                                      .version = "1.0",
                                      .create = hostile_create,
                                      .destroy = stub_destroy,
                                      .supports = stub_supports,
                                      .prepare = hostile_prepare,
                                      .execute = hostile_execute,
                                      .release = hostile_release,
                                      .last_error = hostile_last_error};

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return stub_negotiate(n, &descriptor);
}
