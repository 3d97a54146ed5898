/*
 * stream: the worker protocol over a byte stream, for a worker on another machine, another
 * architecture or under an emulator (`qconform run --remote CMD`). The shared-memory channel
 * of wire.h stays the local default; this is what travels when no memory can be shared.
 *
 *   harness --(wire.h packets, shared arena)--> relay --(frames, stdin/stdout of CMD)-->
 *   qconform-worker --stdio (on the device) --> the plugin
 *
 * The relay (relay.c) is the harness's worker process, started as usual with --remote CMD; it
 * runs CMD with `/bin/sh -c` and turns each command into one frame: for every case its slot's
 * bytes (call description, inputs, output regions with their poison and guard bytes; the guard
 * pattern left out, which the remote worker writes itself) and the arena offsets of the
 * pointers the call description holds. The remote worker copies them to
 * the same offsets of an arena of its own, moves the pointers to its own address, runs the
 * case exactly as a local worker does (the slot opened for the case only, closed the moment
 * execute returns, or with QC_CMD_DEFER_CLOSE left open to the command's end) and answers with
 * the bytes that changed: the relay writes those into the shared arena, so the harness checks
 * the outputs, the guards and the inputs as it always does. What changed in a slot left open
 * after its answer comes with the command's DONE, before the harness compares those slots
 * again. A fault frame says what killed the remote worker; the relay then dies of the same
 * signal, so crashes, timeouts and restarts are the local ones. The plugin never holds the
 * stream: the remote worker keeps it in a keeper process that passes only whole frames of the
 * worker's types (worker.c); what else the plugin writes kills the worker, not the stream.
 *
 * A frame: magic "QCS1", type, payload length and the CRC-32 (zlib's) of the first three
 * fields and the payload, all uint32 in the machine's order; both ends must agree on it and on
 * the ABI's struct layout (qc_stream_layout: 64-bit little-endian devices; a 32-bit one runs
 * exported cases instead). A reader refuses a bad magic, a CRC mismatch, a payload longer
 * than it allows and a stream that ends inside a frame.
 */
#ifndef QC_STREAM_H
#define QC_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "run/wire.h"

/* Bumped whenever a frame changes meaning; the first field of HELLO and LOADED. */
#define QC_STREAM_PROTOCOL 7
#define QC_STREAM_MAGIC    0x31534351u /* "QCS1" */

enum {
	QC_FRAME_HELLO = 1,  /* relay -> worker: qc_hello, then its strings */
	QC_FRAME_LOADED = 2, /* worker -> relay: qc_loaded */
	QC_FRAME_CASES = 3,  /* relay -> worker: a qc_command, then per case (below) */
	QC_FRAME_ANSWER = 4, /* worker -> relay: qc_answer, uint32 spans, pad, the spans (a DONE
	                        too) */
	QC_FRAME_FAULT = 5,  /* worker -> relay: qc_fault (any fatal signal, in the arena or not) */
	/* the keeper's own word (worker.c), never passed up from the worker: */
	QC_FRAME_TIMEOUT =
	        6,        /* keeper -> relay: qc_keeper_note, the case it killed at the timeout */
	QC_FRAME_EXIT = 7 /* keeper -> relay: qc_keeper_note, how the worker process ended */
};

typedef struct qc_frame_header {
	uint32_t magic, type, length, crc;
} qc_frame_header;

/* HELLO's fixed part; then n_options pairs and n_allow paths, then the plugin path, each a
 * uint32 length and its bytes (no NUL). plugin "" : the worker's own --plugin. */
typedef struct qc_hello {
	uint32_t protocol; /* QC_STREAM_PROTOCOL */
	uint32_t layout;   /* qc_stream_layout() */
	uint64_t arena_bytes;
	uint64_t harness_base; /* the address the staged pointers are relative to */
	uint64_t memory;       /* --worker-memory, 0: none */
	uint32_t timeout_ms;   /* per case, on the device's clock: the keeper's (0: none) */
	uint32_t trace;
	uint32_t sandbox;
	uint32_t n_options;
	uint32_t n_allow;
	/* memory 0 and this not: the worker's limit is half its own machine's RAM over this many
	 * workers (qc_worker_memory_default), the harness's default taken where the worker runs */
	uint32_t memory_share;
} qc_hello;

/* The worker's load report (rep.remote says what the worker is). */
typedef struct qc_loaded {
	uint32_t protocol; /* the worker's QC_STREAM_PROTOCOL: compared before anything else */
	uint32_t layout;
	qc_load_report rep;
} qc_loaded;

/* TIMEOUT: case seq of the running command (its count: the command's end) ran past the
 * timeout, and the keeper killed the worker. EXIT: the worker process ended with wait status
 * `status` (after its FAULT, if it sent one). A stream that ends without either is the link's
 * end, not the worker's. */
typedef struct qc_keeper_note {
	uint32_t seq;
	int32_t status;
} qc_keeper_note;

/* Per case in a CASES frame: the qc_case_desc (arena offsets, as the harness staged it),
 * uint32 n_reloc, uint32 n_lit, n_reloc uint64 arena offsets of pointer fields, then n_lit
 * qc_spans, each with its bytes (padded to 8): the bytes of the case's regions (ro, then each
 * output region) that are not the pattern a slot is filled with. Every other byte of the
 * regions is qc_guard_pattern, repeated from the region's start. */

/* A changed range in an ANSWER: arena offset, length; then its bytes (padded to 8). A DONE
 * (an ANSWER frame of QC_MSG_DONE) carries the same, for the cases of its command whose slots
 * were left open (QC_ANS_LEFT_OPEN): the bytes a later case changed there, each span naming
 * its case (seq; 0 in an ANSWER). */
typedef struct qc_span {
	uint64_t off;
	uint32_t len;
	uint32_t seq;
} qc_span;

/* Why a stream that passed through a terminal broke. */
#define QC_STREAM_TTY                                                                              \
	"the stream passed through a terminal, which turns LF into CR LF and echoes what it "      \
	"is sent: start the worker without one (`adb exec-out`, not `adb shell`; `ssh -T`)"

/* The ABI's layout here (pointer size, byte order, the offsets of the structs a staged call
 * holds), as one number both ends compare. */
uint32_t qc_stream_layout(void);

/* Writes one frame of two parts (b may be NULL) in one writev; 0, or -1 (errno).
 * Async-signal-safe (writev is a bare system call on Linux). */
int qc_frame_write(int fd, uint32_t type, const void *a, size_t na, const void *b, size_t nb);

/* Reads one frame into *buf (grown with realloc up to max bytes). 1 with *type and *len; 0
 * at a clean end of the stream (before a frame); -2 when it ended inside a frame; -1 with
 * the reason in why for anything else. A stream mangled by a terminal (a pty turns LF into
 * CR LF and echoes what it is sent) is -1, and why says so. */
int qc_frame_read(int fd, uint32_t *type, unsigned char **buf, size_t *cap, size_t *len, size_t max,
                  char *why, size_t why_size);

/* The arena offsets of every non-NULL pointer field of the call staged at arena + d->call_off
 * (the relay's own, trusted staging; its pointers are relative to base, the harness's address
 * of the arena), into out (at most cap). The count, or -1 when a pointer leaves the slot
 * (never for the harness's staging). */
long qc_stream_relocs(const unsigned char *arena, uintptr_t base, const qc_case_desc *d,
                      uint64_t *out, size_t cap);

#endif
