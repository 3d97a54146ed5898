/*
 * wire: the protocol between the harness (runner.c) and the worker
 * executable (worker.c, built as qconform-worker). One definition for both
 * sides: the worker's command line, the layout of the shared arena's slots,
 * the messages on the channel, and the small I/O helpers both use.
 *
 * The harness starts a worker with posix_spawn (a fresh single-threaded
 * process, never a fork of the multi-threaded harness) and these fds:
 *   0  /dev/null (the worker opens it)    1, 2  the harness's stderr
 *   3  the worker's end of the channel    4  the arena (a memfd)
 * and nothing else. The worker maps the arena at exactly the harness's
 * address (the staged calls hold absolute pointers), sends a load_report,
 * then serves commands until told to quit or the channel closes.
 */
#ifndef QC_WIRE_H
#define QC_WIRE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "qconform/plugin.h"

/* Bumped whenever anything in this file changes meaning; checked by the worker. */
#define QC_WIRE_PROTOCOL 1

#define QC_GUARD_BYTES 64
#define QC_DATA_ALIGN  64
#define QC_META_ALIGN  16

#define QC_ROUND_UP(x, a) (((x) + (a)-1) & ~((size_t)(a)-1))

/* The fds the worker finds its channel and arena at (passed in argv too). */
#define QC_WORKER_CHANNEL_FD 3
#define QC_WORKER_ARENA_FD   4

/* The worker's answer for one case, at the start of its slot. */
typedef struct qc_slot_header {
	int32_t outcome; /* qc_outcome */
	int32_t pad;
	double seconds;
	char message[256];
} qc_slot_header;

#define QC_SLOT_HDR QC_ROUND_UP(sizeof(qc_slot_header), QC_DATA_ALIGN)

/* Command: a header, then count uint64 arena offsets of slots. */
typedef struct qc_command {
	uint32_t count;
	uint32_t quit; /* destroy() and exit */
} qc_command;

/* Sent once by the worker after loading (or failing to). */
typedef struct qc_load_report {
	int32_t ok;
	uint32_t abi;
	int32_t arena_taken; /* !ok because the arena's address was in use: a new worker may do */
	int32_t pad;
	char name[128];
	char version[64];
	char error[256];
} qc_load_report;

/* The byte the worker writes per finished case. */
#define QC_CASE_DONE  '.'
#define QC_CASE_GUARD '!' /* a guard was broken: the worker stopped the batch */

extern const unsigned char qc_guard_pattern[QC_GUARD_BYTES];

/* What the worker is told on its command line. */
typedef struct qc_worker_args {
	pid_t parent; /* the harness: the worker exits if it is not its parent */
	int channel_fd;
	int arena_fd;
	uintptr_t arena_addr;
	size_t arena_bytes;
	const char *plugin; /* the path to dlopen */
	int trace;
	int n_options;
	const qcf_option *options; /* for qc_wire_argv */
} qc_worker_args;

/*
 * The worker's command line: argv[0] is path, then flags each followed by
 * its value in its own entry; each option is "--option" KEY VALUE (keys and
 * values are any bytes but NUL; no shell ever sees them). Returns a NULL-
 * terminated malloc'd array whose strings live in the same block (one
 * free()), or NULL when out of memory.
 */
char **qc_wire_argv(const char *path, const qc_worker_args *a);

/* Parses what qc_wire_argv built; options go to a malloc'd array (pointing
 * into argv). 0, or -1 with the reason in why. */
int qc_wire_parse(int argc, char **argv, qc_worker_args *a, char *why, size_t why_size);

double qc_now_s(void);
/* Reads exactly n bytes unless EOF or an error comes first; returns the bytes read or -1. */
ssize_t qc_read_full(int fd, void *buf, size_t n);
/* Writes all of buf without raising SIGPIPE; 0 or -1. */
int qc_send_full(int fd, const void *buf, size_t n);
/* One "qconform: trace [pid]: ..." line on stderr, in one write. */
void qc_trace_line(const char *fmt, va_list ap);

/* The worker executable's main (harness/worker/main.c calls it). */
int qc_worker_main(int argc, char **argv);

#endif
