/* wire: see wire.h. Used by both the harness and the worker executable. */
#include "run/wire.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const unsigned char qc_guard_pattern[QC_GUARD_BYTES] = {
        0xde, 0xad, 0xbe, 0xef, 0x5a, 0xa5, 0x0f, 0xf0, 0x13, 0x57, 0x9b, 0xdf, 0x24,
        0x68, 0xac, 0xe0, 0xde, 0xad, 0xbe, 0xef, 0x5a, 0xa5, 0x0f, 0xf0, 0x13, 0x57,
        0x9b, 0xdf, 0x24, 0x68, 0xac, 0xe0, 0xde, 0xad, 0xbe, 0xef, 0x5a, 0xa5, 0x0f,
        0xf0, 0x13, 0x57, 0x9b, 0xdf, 0x24, 0x68, 0xac, 0xe0, 0xde, 0xad, 0xbe, 0xef,
        0x5a, 0xa5, 0x0f, 0xf0, 0x13, 0x57, 0x9b, 0xdf, 0x24, 0x68, 0xac, 0xe0,
};

double qc_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

ssize_t qc_read_full(int fd, void *buf, size_t n)
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

int qc_send_full(int fd, const void *buf, size_t n)
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

void qc_fault_garbled(qc_fault *f)
{
	memset(f, 0, sizeof *f);
	f->magic = QC_MSG_FAULT;
	f->signal = SIGKILL;
	f->write = -1;
	f->garbled = 1;
}

void qc_wire_copy_bounded(char *dst, size_t size, const char *src)
{
	size_t i = 0;
	if (src)
		for (; i + 1 < size && src[i]; i++)
			dst[i] = src[i] == '\n' || src[i] == '\r' ? ' ' : src[i];
	dst[i] = '\0';
}

void qc_wire_copy_printable(char *dst, size_t size, const char *src)
{
	size_t i = 0;
	for (; src && i + 1 < size && src[i]; i++) {
		unsigned char ch = (unsigned char)src[i];
		dst[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	dst[i] = '\0';
}

const char *qc_wire_status_name(int32_t s)
{
	switch (s) {
	case QCF_OK: return "QCF_OK";
	case QCF_NOT_SUPPORTED: return "QCF_NOT_SUPPORTED";
	case QCF_INVALID_PARAM: return "QCF_INVALID_PARAM";
	case QCF_ERROR: return "QCF_ERROR";
	default: return "an unknown status";
	}
}

uint64_t qc_wire_hash(const void *p, size_t n)
{
	/* 8 bytes a step, each mixed in by a multiply and a rotation (an FNV-like walk) */
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	uint64_t w = 0;
	memcpy(&w, b + i, n - i);
	h = (h ^ w) * 0x100000001b3ull;
	h ^= h >> 32;
	return h * 0xbf58476d1ce4e5b9ull;
}

uint64_t qc_wire_hash_more(uint64_t h, const void *p, size_t n)
{
	return h * 31 + qc_wire_hash(p, n);
}

uint64_t qc_wire_hash_outputs(const unsigned char *base, const qc_case_desc *d)
{
	uint64_t h = 0;
	for (uint32_t k = 0; k < d->n_outputs && k < QC_WIRE_MAX_OUTPUTS; k++)
		h = qc_wire_hash_more(h, base + d->out_off[k], d->out_len[k]);
	return h;
}

void qc_trace_line(const char *fmt, va_list ap)
{
	char line[768];
	vsnprintf(line, sizeof line, fmt, ap);
	/* One write per line, so harness and worker lines do not interleave. */
	char out[800];
	int n = snprintf(out, sizeof out, "qconform: trace [%ld]: %s\n", (long)getpid(), line);
	if (n > 0) {
		ssize_t w = write(2, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
		(void)w;
	}
}

/* ------------------------------------------------------------ command line */

typedef struct argv_builder {
	char **argv; /* NULL: only count */
	char *strings;
	size_t n, bytes;
} argv_builder;

static void add(argv_builder *b, const char *s)
{
	size_t len = strlen(s) + 1;
	if (b->argv) {
		b->argv[b->n] = memcpy(b->strings + b->bytes, s, len);
	}
	b->n++;
	b->bytes += len;
}

static void build(argv_builder *b, const char *path, const qc_worker_args *a)
{
	char num[64];
	add(b, path);
	snprintf(num, sizeof num, "%d", QC_WIRE_PROTOCOL);
	add(b, "--protocol");
	add(b, num);
	snprintf(num, sizeof num, "%ld", (long)a->parent);
	add(b, "--parent");
	add(b, num);
	snprintf(num, sizeof num, "%d", a->channel_fd);
	add(b, "--channel-fd");
	add(b, num);
	snprintf(num, sizeof num, "%d", a->arena_fd);
	add(b, "--arena-fd");
	add(b, num);
	snprintf(num, sizeof num, "0x%" PRIxPTR, a->arena_addr);
	add(b, "--arena");
	add(b, num);
	snprintf(num, sizeof num, "%zu", a->arena_bytes);
	add(b, "--arena-bytes");
	add(b, num);
	add(b, "--plugin");
	add(b, a->plugin);
	if (a->trace)
		add(b, "--trace");
	if (a->sandbox)
		add(b, "--sandbox");
	for (int i = 0; i < a->n_allow; i++) {
		add(b, "--sandbox-allow");
		add(b, a->allow[i]);
	}
	if (a->memory) {
		snprintf(num, sizeof num, "%zu", a->memory);
		add(b, "--memory");
		add(b, num);
	}
	if (a->memory_share) {
		snprintf(num, sizeof num, "%u", a->memory_share);
		add(b, "--memory-share");
		add(b, num);
	}
	if (a->remote) {
		add(b, "--remote");
		add(b, a->remote);
		snprintf(num, sizeof num, "%u", a->timeout_ms);
		add(b, "--timeout-ms");
		add(b, num);
	}
	for (int i = 0; i < a->n_options; i++) {
		add(b, "--option");
		add(b, a->options[i].key ? a->options[i].key : "");
		add(b, a->options[i].value ? a->options[i].value : "");
	}
}

char **qc_wire_argv(const char *path, const qc_worker_args *a)
{
	argv_builder count = {NULL, NULL, 0, 0};
	build(&count, path, a);
	size_t table = (count.n + 1) * sizeof(char *);
	char **argv = malloc(table + count.bytes);
	if (!argv)
		return NULL;
	argv_builder b = {argv, (char *)argv + table, 0, 0};
	build(&b, path, a);
	argv[b.n] = NULL;
	return argv;
}

static int parse_ull(const char *s, unsigned long long max, unsigned long long *out)
{
	if (!s || !*s || *s == '-')
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The numeric flags of the command line, in qc_wire_parse's order. */
enum {
	F_PROTOCOL,
	F_PARENT,
	F_CHANNEL,
	F_ARENA_FD,
	F_ARENA,
	F_BYTES,
	N_REQUIRED,
	F_MEMORY = N_REQUIRED,
	F_TIMEOUT_MS,
	F_MEMORY_SHARE,
	N_NUMERIC
};
static const struct {
	const char *flag;
	unsigned long long max;
} numeric[N_NUMERIC] = {
        {"--protocol", 1000000},   {"--parent", INT32_MAX},      {"--channel-fd", INT32_MAX},
        {"--arena-fd", INT32_MAX}, {"--arena", UINTPTR_MAX},     {"--arena-bytes", SIZE_MAX},
        {"--memory", SIZE_MAX},    {"--timeout-ms", UINT32_MAX}, {"--memory-share", 4096},
};

int qc_wire_parse(int argc, char **argv, qc_worker_args *a, char *why, size_t why_size)
{
	memset(a, 0, sizeof *a);
	a->channel_fd = a->arena_fd = -1;
	int n_options = 0, n_allow = 0;
	for (int i = 1; i < argc; i++) {
		n_options += strcmp(argv[i], "--option") == 0;
		n_allow += strcmp(argv[i], "--sandbox-allow") == 0;
	}
	qcf_option *opts = n_options ? calloc((size_t)n_options, sizeof *opts) : NULL;
	const char **allow = n_allow ? calloc((size_t)n_allow, sizeof *allow) : NULL;
	if ((n_options && !opts) || (n_allow && !allow)) {
		free(opts);
		free(allow);
		snprintf(why, why_size, "out of memory");
		return -1;
	}
	unsigned long long v[N_NUMERIC];
	int seen[N_NUMERIC] = {0};
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i];
		int left = argc - i - 1;
		if (strcmp(f, "--trace") == 0) {
			a->trace = 1;
			continue;
		}
		if (strcmp(f, "--sandbox") == 0) {
			a->sandbox = 1;
			continue;
		}
		if (strcmp(f, "--sandbox-allow") == 0) {
			if (left < 1) {
				snprintf(why, why_size, "--sandbox-allow needs a path");
				goto fail;
			}
			allow[a->n_allow++] = argv[++i];
			continue;
		}
		if (strcmp(f, "--remote") == 0) {
			if (left < 1) {
				snprintf(why, why_size, "--remote needs a command");
				goto fail;
			}
			a->remote = argv[++i];
			continue;
		}
		if (strcmp(f, "--option") == 0) {
			if (left < 2) {
				snprintf(why, why_size, "--option needs a key and a value");
				goto fail;
			}
			opts[a->n_options].key = argv[i + 1];
			opts[a->n_options].value = argv[i + 2];
			a->n_options++;
			i += 2;
			continue;
		}
		int k = 0;
		while (k < N_NUMERIC && strcmp(f, numeric[k].flag) != 0)
			k++;
		if (k == N_NUMERIC && strcmp(f, "--plugin") != 0) {
			snprintf(why, why_size, "unknown argument %s", f);
			goto fail;
		}
		if (left < 1) {
			snprintf(why, why_size, "%s needs a value", f);
			goto fail;
		}
		const char *val = argv[++i];
		if (k == N_NUMERIC) {
			a->plugin = val;
		} else if (parse_ull(val, numeric[k].max, &v[k]) == 0) {
			seen[k] = 1;
		} else {
			snprintf(why, why_size, "bad value for %s: %s", f, val);
			goto fail;
		}
	}
	for (int k = 0; k < N_REQUIRED; k++)
		if (!seen[k] || !a->plugin) {
			snprintf(why, why_size,
			         "needs --protocol, --parent, --channel-fd, --arena-fd, --arena, "
			         "--arena-bytes and --plugin (it is started by qconform, not by "
			         "hand)");
			goto fail;
		}
	if (v[F_PROTOCOL] != QC_WIRE_PROTOCOL) {
		snprintf(why, why_size, "the harness speaks protocol %llu, this worker %d",
		         v[F_PROTOCOL], QC_WIRE_PROTOCOL);
		goto fail;
	}
	if (v[F_CHANNEL] < 3 || v[F_ARENA_FD] < 3 || v[F_CHANNEL] == v[F_ARENA_FD] || !v[F_ARENA] ||
	    !v[F_BYTES]) {
		snprintf(why, why_size, "bad channel, arena fd or arena");
		goto fail;
	}
	a->parent = (pid_t)v[F_PARENT];
	a->channel_fd = (int)v[F_CHANNEL];
	a->arena_fd = (int)v[F_ARENA_FD];
	a->arena_addr = (uintptr_t)v[F_ARENA];
	a->arena_bytes = (size_t)v[F_BYTES];
	a->memory = seen[F_MEMORY] ? (size_t)v[F_MEMORY] : 0;
	a->timeout_ms = seen[F_TIMEOUT_MS] ? (unsigned)v[F_TIMEOUT_MS] : 0;
	a->memory_share = seen[F_MEMORY_SHARE] ? (unsigned)v[F_MEMORY_SHARE] : 0;
	a->options = opts;
	a->allow = allow;
	return 0;
fail:
	free(opts);
	free(allow);
	a->n_options = a->n_allow = 0;
	return -1;
}
