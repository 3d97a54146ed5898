/*
 * relay: the harness's worker process for `qconform run --remote CMD` (stream.h). It maps the
 * shared arena like a local worker, starts CMD with `/bin/sh -c` in its own process group (the
 * harness kills the group on a timeout: the shell, ssh, adb or qemu go with it), speaks frames
 * to CMD's stdin and stdout, and packets to the harness:
 *
 *   HELLO -> LOADED            the load report, with what the remote worker is
 *   command -> CASES           each case's bytes and the offsets of its pointers
 *   ANSWER -> changed bytes into the arena, then the answer packet
 *   FAULT  -> forwarded as a local worker's fault would be; the signal remembered
 *   TIMEOUT -> QC_MSG_TIMEOUT: the device's keeper killed the worker at the case's timeout
 *   EXIT   -> the relay dies as the worker process did
 *
 * The keeper announces every end of the worker (FAULT, TIMEOUT, EXIT): the relay then dies as
 * the remote worker did, of the signal its FAULT named (an ssh session ends with a status, not
 * with the signal), else of the signal or with the status EXIT says. A stream that ends
 * without such a word (within a frame or between frames) is the link's end or the transport's
 * (ssh, adb, qemu), not the kernel's: the relay says so in a QC_MSG_LINK packet, and the
 * harness starts CMD again for the cases in flight. A stream that breaks (a corrupted frame,
 * bytes that are no frame) is not a verdict either: a QC_MSG_BROKEN packet, and the run stops
 * with it. A whole frame that says what the worker never says (a frame of another type, an
 * answer out of its command or its case) is the worker process's doing, which holds the
 * plugin: the running case's failure (a FAULT marked garbled), the remote worker killed, never
 * the run's end.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/stream.h"

extern char **environ;

typedef struct relay {
	const qc_worker_args *a;
	int chan;           /* to the harness */
	int to, from;       /* CMD's stdin and stdout */
	pid_t child;        /* CMD (or the shell running it) */
	int child_fd;       /* its pidfd: readable once it exited, or -1 */
	unsigned char *map; /* the arena, mapped here */
	int fault_signal;   /* the last FAULT's signal */
	int exit_status;    /* EXIT's wait status */
	int exited;         /* EXIT came */
	unsigned char *buf; /* frames in */
	size_t cap;
	unsigned char *frame; /* frames out */
	size_t frame_cap, frame_len;
} relay;

static void out_put(relay *r, const void *p, size_t n)
{
	if (r->frame_len + n > r->frame_cap) {
		size_t c = r->frame_cap ? r->frame_cap : 65536;
		while (c < r->frame_len + n)
			c *= 2;
		unsigned char *b = realloc(r->frame, c);
		if (!b) {
			fprintf(stderr, "qconform-worker: relay: out of memory\n");
			_exit(3);
		}
		r->frame = b;
		r->frame_cap = c;
	}
	memcpy(r->frame + r->frame_len, p, n);
	r->frame_len += n;
}

static void out_string(relay *r, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : 0;
	out_put(r, &n, 4);
	if (n)
		out_put(r, s, n);
}

/* Waits for the shell running CMD (at most a few seconds after its stream ended). */
static int reap_child(relay *r)
{
	int st = 0;
	for (int i = 0; i < 200; i++) {
		pid_t w = waitpid(r->child, &st, WNOHANG);
		if (w == r->child)
			return st;
		if (w < 0)
			return 0;
		struct timespec ts = {0, 20000000L};
		nanosleep(&ts, NULL);
	}
	if (r->child > 0) {
		kill(r->child, SIGKILL);
		waitpid(r->child, &st, 0);
	}
	return st;
}

static void describe(int st, char *buf, size_t size)
{
	if (WIFSIGNALED(st))
		snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(st),
		         strsignal(WTERMSIG(st)));
	else
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(st));
}

/* Loading failed before the remote worker could say why: the harness's one line. */
static _Noreturn void refuse(relay *r, const char *fmt, ...)
{
	qc_load_report rep;
	memset(&rep, 0, sizeof rep);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep.error, sizeof rep.error, fmt, ap);
	va_end(ap);
	qc_send_full(r->chan, &rep, sizeof rep);
	if (r->child > 0)
		kill(r->child, SIGKILL);
	_exit(1);
}

/* Tells the harness why the relay ends (a packet of kind magic with the message), kills CMD,
 * and exits with status. */
static _Noreturn void stop_with(relay *r, uint32_t magic, int status, const char *fmt, va_list ap)
{
	qc_answer m;
	memset(&m, 0, sizeof m);
	m.magic = magic;
	vsnprintf(m.message, sizeof m.message, fmt, ap);
	qc_send_full(r->chan, &m, sizeof m);
	if (r->child > 0)
		kill(r->child, SIGKILL);
	_exit(status);
}

/* The stream broke while cases ran: the harness stops the run with this line. */
static _Noreturn void broken(relay *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stop_with(r, QC_MSG_BROKEN, 3, fmt, ap);
}

/* The stream ended without the keeper's word on the worker's end: the link's end, said to the
 * harness (QC_MSG_LINK), which starts CMD again. */
static _Noreturn void link_down(relay *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stop_with(r, QC_MSG_LINK, 6, fmt, ap);
}

/* The stream ended within a command without the keeper's word: what CMD did says why. */
static _Noreturn void link_lost(relay *r, const char *why)
{
	close(r->to);
	char how[96];
	describe(reap_child(r), how, sizeof how);
	/* the reason first: the command may be long, and a message is cut at its end */
	link_down(r, "the remote worker's stream ended without its last word (%s): `%s` %s", why,
	          r->a->remote, how);
}

/* A well-formed frame the worker never sends: the plugin's doing, the case's failure. */
static _Noreturn void garbled(relay *r, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	fprintf(stderr, "qconform-worker: relay: %s: the remote worker is killed\n", why);
	qc_fault f;
	qc_fault_garbled(&f);
	qc_send_full(r->chan, &f, sizeof f);
	if (r->child > 0)
		kill(r->child, SIGKILL);
	reap_child(r);
	raise(SIGKILL);
	_exit(5);
}

/* The keeper said how the worker ended (FAULT, EXIT): die as the remote worker did. */
static _Noreturn void follow_death(relay *r)
{
	close(r->to);
	reap_child(r);
	int st = r->exit_status, sig = r->fault_signal;
	if (!sig && r->exited && WIFSIGNALED(st))
		sig = WTERMSIG(st);
	if (sig && sig != SIGKILL && sig != SIGSTOP) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
	}
	if (sig == SIGKILL)
		raise(SIGKILL);
	_exit(r->exited && WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

/* An EXIT frame: how the worker process ended, then the relay so. */
static _Noreturn void take_exit(relay *r, size_t len)
{
	qc_keeper_note k;
	if (len != sizeof k)
		garbled(r, "an EXIT frame of %zu bytes", len);
	memcpy(&k, r->buf, sizeof k);
	r->exit_status = k.status;
	r->exited = 1;
	follow_death(r);
}

/* A command with no shell syntax in it runs without a shell, split at blanks: its death by a
 * signal is then its own, not a shell's report of it. argv: at most 63 words. */
static char **plain_words(const char *cmd, char *copy, char **argv, size_t max)
{
	if (strpbrk(cmd, ";&|<>()$`\\\"'*?[]#~=%{}\n"))
		return NULL;
	strcpy(copy, cmd);
	size_t n = 0;
	for (char *t = strtok(copy, " \t"); t; t = strtok(NULL, " \t")) {
		if (n + 1 >= max)
			return NULL;
		argv[n++] = t;
	}
	argv[n] = NULL;
	return n ? argv : NULL;
}

static int start_child(relay *r)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		return errno;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	char *sh[] = {"sh", "-c", (char *)r->a->remote, NULL}, *words[64];
	char *copy = malloc(strlen(r->a->remote) + 1);
	char **argv = copy ? plain_words(r->a->remote, copy, words, 64) : NULL;
	int rc = argv ? posix_spawnp(&r->child, argv[0], &fa, NULL, argv, environ)
	              : posix_spawn(&r->child, "/bin/sh", &fa, NULL, sh, environ);
	free(copy);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	r->to = in[1];
	r->from = out[0];
	r->child_fd = rc ? -1 : (int)syscall(SYS_pidfd_open, r->child, 0);
	return rc;
}

static void send_hello(relay *r)
{
	const qc_worker_args *a = r->a;
	qc_hello h;
	memset(&h, 0, sizeof h);
	h.protocol = QC_STREAM_PROTOCOL;
	h.layout = qc_stream_layout();
	h.arena_bytes = a->arena_bytes;
	h.harness_base = a->arena_addr;
	h.memory = a->memory;
	h.memory_share = a->memory_share;
	h.timeout_ms = a->timeout_ms;
	h.trace = (uint32_t)a->trace;
	h.sandbox = (uint32_t)a->sandbox;
	h.n_options = (uint32_t)a->n_options;
	h.n_allow = (uint32_t)a->n_allow;
	r->frame_len = 0;
	out_put(r, &h, sizeof h);
	for (int i = 0; i < a->n_options; i++) {
		out_string(r, a->options[i].key);
		out_string(r, a->options[i].value);
	}
	for (int i = 0; i < a->n_allow; i++)
		out_string(r, a->allow[i]);
	out_string(r, a->plugin);
	if (qc_frame_write(r->to, QC_FRAME_HELLO, r->frame, r->frame_len, NULL, 0) < 0) {
		/* it ended (or closed its stdin) before reading a frame; what it wrote first
		 * (`echo hello`) says more than its exit does: wait_loaded reads it */
		struct pollfd q = {.fd = r->from, .events = POLLIN};
		if (poll(&q, 1, 0) > 0 && (q.revents & POLLIN))
			return;
		char how[96];
		describe(reap_child(r), how, sizeof how);
		link_down(r, "no answer from the remote worker: the remote command `%s` %s",
		          a->remote, how);
	}
}

static void wait_loaded(relay *r)
{
	uint32_t type;
	size_t len;
	char why[256];
	int got = qc_frame_read(r->from, &type, &r->buf, &r->cap, &len, (size_t)1 << 20, why,
	                        sizeof why);
	if (got == 0 || got == -2) {
		/* no word at all, or a frame cut short: the first load says so and stops, a
		 * later one is a lost link (the harness knows which) */
		char how[96];
		describe(reap_child(r), how, sizeof how);
		if (got == 0)
			link_down(r, "no answer from the remote worker: the remote command `%s` %s",
			          r->a->remote, how);
		link_down(r, "%s: the remote command `%s`", why, r->a->remote);
	}
	if (got < 0)
		refuse(r, "%s: the remote command `%s`", why, r->a->remote);
	if (type == QC_FRAME_HELLO) /* its own HELLO back: a terminal's echo */
		refuse(r, "%s: the remote command `%s`", QC_STREAM_TTY, r->a->remote);
	if (type == QC_FRAME_FAULT && len == sizeof(qc_fault)) {
		/* it died loading the plugin (dlopen, a constructor, create()): so does the relay
		 */
		qc_fault f;
		memcpy(&f, r->buf, sizeof f);
		r->fault_signal = f.signal;
		follow_death(r);
	}
	if (type == QC_FRAME_EXIT)
		take_exit(r, len);
	uint32_t protocol = 0;
	if (len >= 4)
		memcpy(&protocol, r->buf, 4);
	if (type != QC_FRAME_LOADED || protocol != QC_STREAM_PROTOCOL)
		refuse(r,
		       "the remote worker speaks stream protocol %u, this qconform %d: run the "
		       "same qconform version on both sides",
		       protocol, QC_STREAM_PROTOCOL);
	qc_loaded l;
	if (len != sizeof l)
		refuse(r, "the remote worker's load report has %zu bytes, not %zu", len, sizeof l);
	memcpy(&l, r->buf, sizeof l);
	if (l.layout != qc_stream_layout() && l.rep.ok)
		refuse(r, "the remote worker's plugin ABI layout differs from this qconform's");
	l.rep.error[sizeof l.rep.error - 1] = '\0';
	if (!l.rep.ok) {
		char msg[sizeof l.rep.error];
		snprintf(msg, sizeof msg, "%s", l.rep.error);
		snprintf(l.rep.error, sizeof l.rep.error, "remote worker: %s", msg);
	}
	if (qc_send_full(r->chan, &l.rep, sizeof l.rep) < 0 || !l.rep.ok)
		_exit(1);
}

/* Waits until CMD's stream has a frame or CMD exited (a process the kernel forked may hold the
 * stream open after it): with nothing more to read, the link is lost. */
static void wait_frame(relay *r)
{
	for (;;) {
		struct pollfd p[2] = {{.fd = r->from, .events = POLLIN},
		                      {.fd = r->child_fd, .events = POLLIN}};
		int n = poll(p, r->child_fd >= 0 ? 2 : 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[0].revents)
			return;
		if (p[1].revents) {
			/* exited: what it wrote before is still readable */
			struct pollfd q = {.fd = r->from, .events = POLLIN};
			if (poll(&q, 1, 0) > 0 && (q.revents & POLLIN))
				return;
			link_lost(r, "the remote command ended");
		}
	}
}

/* The spans of an ANSWER for case seq (done: 0), or of a DONE (done: 1; each span names a
 * case whose slot was left open, kept[]), written into the arena: each within its case's
 * slot, or the frame is garbled. */
static void apply_spans(relay *r, const qc_command *c, const qc_case_desc *d,
                        const unsigned char *kept, uint32_t seq, int done, size_t len)
{
	uint32_t n_spans;
	memcpy(&n_spans, r->buf + sizeof(qc_answer), 4);
	size_t at = sizeof(qc_answer) + 8;
	for (uint32_t s = 0; s < n_spans; s++) {
		qc_span sp;
		if (len - at < sizeof sp)
			garbled(r, "answer %u: span %u cut short", seq, s);
		memcpy(&sp, r->buf + at, sizeof sp);
		at += sizeof sp;
		if (done && (sp.seq >= c->count || !kept[sp.seq]))
			garbled(r, "the command's end: span %u names case %u, not left open", s,
			        sp.seq);
		const qc_case_desc *cd = &d[done ? sp.seq : seq];
		size_t padded = QC_ROUND_UP((size_t)sp.len, 8);
		if (len - at < padded || sp.off < cd->slot_off || sp.len > cd->slot_len ||
		    sp.off - cd->slot_off > cd->slot_len - sp.len)
			garbled(r, "answer %u: span %u is outside its case", done ? sp.seq : seq,
			        s);
		memcpy(r->map + sp.off, r->buf + at, sp.len);
		at += padded;
	}
}

/* The bytes of a region (at arena offset off) that are not the pattern the harness fills a
 * slot with (qc_guard_pattern from the region's start): the runs that differ (closer than 16
 * bytes joined), each a qc_span and its bytes padded to 8. The remote worker writes the pattern
 * itself, so a case travels as its call, its inputs and its outputs' poison, not as pages. */
static uint32_t put_literals(relay *r, uint64_t off, uint64_t len)
{
	static const unsigned char zero[8];
	const unsigned char *p = r->map + off;
	uint32_t n = 0;
	size_t i = 0;
	while (i < len) {
		if (i % QC_GUARD_BYTES == 0 && len - i >= QC_GUARD_BYTES &&
		    memcmp(p + i, qc_guard_pattern, QC_GUARD_BYTES) == 0) {
			i += QC_GUARD_BYTES; /* a whole block of pattern, the common case */
			continue;
		}
		if (p[i] == qc_guard_pattern[i % QC_GUARD_BYTES]) {
			i++;
			continue;
		}
		size_t j = i + 1, same = 0;
		for (; j < len && same < 16; j++)
			same = p[j] == qc_guard_pattern[j % QC_GUARD_BYTES] ? same + 1 : 0;
		size_t e = j - same;
		qc_span sp = {off + i, (uint32_t)(e - i), 0};
		out_put(r, &sp, sizeof sp);
		out_put(r, p + i, e - i);
		out_put(r, zero, QC_ROUND_UP(e - i, 8) - (e - i));
		n++;
		i = j;
	}
	return n;
}

/* One command: its CASES frame out, then answers in until DONE. */
static void serve(relay *r, const qc_command *c, const qc_case_desc *d)
{
	unsigned char kept[QC_WIRE_CHUNK]; /* the case's slot was left open (QC_ANS_LEFT_OPEN) */
	memset(kept, 0, sizeof kept);
	r->frame_len = 0;
	out_put(r, c, sizeof *c);
	for (uint32_t i = 0; i < c->count; i++) {
		uint64_t rel[4096];
		long n = qc_stream_relocs(r->map, r->a->arena_addr, &d[i], rel,
		                          sizeof rel / sizeof rel[0]);
		if (n < 0)
			broken(r, "case %u of a command holds a pointer outside its slot", i);
		uint32_t nr[2] = {(uint32_t)n, 0};
		out_put(r, &d[i], sizeof d[i]);
		size_t count_at = r->frame_len + 4;
		out_put(r, nr, sizeof nr);
		out_put(r, rel, (size_t)n * 8);
		nr[1] = put_literals(r, d[i].ro_off, d[i].ro_len);
		for (uint32_t k = 0; k < d[i].n_outputs; k++)
			nr[1] += put_literals(r, d[i].rw_off[k], d[i].rw_len[k]);
		memcpy(r->frame + count_at, &nr[1], 4);
	}
	if (qc_frame_write(r->to, QC_FRAME_CASES, r->frame, r->frame_len, NULL, 0) < 0) {
		/* it closed its stdin before reading: its last word may still be there */
		struct pollfd q = {.fd = r->from, .events = POLLIN};
		if (poll(&q, 1, 0) <= 0 || !(q.revents & POLLIN))
			link_lost(r, "it took no command");
	}
	for (;;) {
		uint32_t type;
		size_t len;
		char why[256];
		wait_frame(r);
		int got = qc_frame_read(r->from, &type, &r->buf, &r->cap, &len,
		                        r->a->arena_bytes + ((size_t)1 << 20), why, sizeof why);
		if (got == 0)
			link_lost(r, "between frames");
		if (got == -2)
			link_lost(r, why);
		if (got < 0)
			broken(r, "the remote worker's stream broke: %s: `%s`", why, r->a->remote);
		if (type == QC_FRAME_EXIT)
			take_exit(r, len);
		if (type == QC_FRAME_TIMEOUT) {
			/* the device's clock: the keeper killed the worker at the timeout */
			qc_keeper_note k;
			if (len != sizeof k)
				garbled(r, "a TIMEOUT frame of %zu bytes", len);
			memcpy(&k, r->buf, sizeof k);
			qc_answer m;
			memset(&m, 0, sizeof m);
			m.magic = QC_MSG_TIMEOUT;
			m.seq = k.seq;
			qc_send_full(r->chan, &m, sizeof m);
			close(r->to);
			reap_child(r);
			_exit(0);
		}
		if (type == QC_FRAME_FAULT && len == sizeof(qc_fault)) {
			qc_fault f;
			memcpy(&f, r->buf, sizeof f);
			r->fault_signal = f.signal;
			qc_send_full(r->chan, &f, sizeof f); /* where, when, in which call */
			follow_death(r); /* a FAULT is the worker's last frame */
		}
		if (type != QC_FRAME_ANSWER || len < sizeof(qc_answer) + 8)
			garbled(r, "unexpected frame (type %u, %zu bytes) from the remote worker",
			        type, len);
		qc_answer a;
		memcpy(&a, r->buf, sizeof a);
		if (a.magic == QC_MSG_ANSWER && a.seq < c->count) {
			/* the changed bytes, each within the case's slot */
			apply_spans(r, c, d, kept, a.seq, 0, len);
			kept[a.seq] = (a.flags & QC_ANS_LEFT_OPEN) != 0;
		} else if (a.magic == QC_MSG_DONE) {
			/* what changed in the slots left open since their answers: before the
			 * harness compares them again */
			apply_spans(r, c, d, kept, a.seq, 1, len);
		} else {
			garbled(r, "answer with magic 0x%08x from the remote worker", a.magic);
		}
		if (qc_send_full(r->chan, &a, sizeof a) < 0)
			_exit(0);
		if (a.magic == QC_MSG_DONE)
			return;
	}
}

int qc_relay_main(const qc_worker_args *a)
{
	relay r;
	memset(&r, 0, sizeof r);
	r.a = a;
	r.chan = a->channel_fd;
	r.child = -1;
	r.child_fd = -1;
	void *m = mmap(NULL, a->arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, a->arena_fd, 0);
	if (m == MAP_FAILED)
		refuse(&r, "relay: cannot map the arena: %s", strerror(errno));
	close(a->arena_fd);
	r.map = m;
	int rc = start_child(&r);
	if (rc)
		refuse(&r, "cannot start the remote command `%s`: %s", a->remote, strerror(rc));
	send_hello(&r);
	wait_loaded(&r);

	struct {
		qc_command c;
		qc_case_desc d[QC_WIRE_CHUNK];
	} cmd;
	for (;;) {
		ssize_t got;
		do
			got = recv(r.chan, &cmd, sizeof cmd, 0);
		while (got < 0 && errno == EINTR);
		if (got < (ssize_t)sizeof cmd.c || cmd.c.quit) {
			/* the harness is done (or gone): the remote worker destroys its instance */
			qc_command q;
			memset(&q, 0, sizeof q);
			q.quit = 1;
			qc_frame_write(r.to, QC_FRAME_CASES, &q, sizeof q, NULL, 0);
			close(r.to);
			reap_child(&r);
			_exit(0);
		}
		if (cmd.c.count > QC_WIRE_CHUNK ||
		    (size_t)got != sizeof cmd.c + cmd.c.count * sizeof cmd.d[0])
			_exit(4);
		for (uint32_t i = 0; i < cmd.c.count; i++)
			if (cmd.d[i].slot_off > a->arena_bytes ||
			    cmd.d[i].slot_len > a->arena_bytes - cmd.d[i].slot_off ||
			    cmd.d[i].n_outputs > QC_WIRE_MAX_OUTPUTS)
				_exit(4);
		serve(&r, &cmd.c, cmd.d);
	}
}
