/*
 * wire: the protocol between the harness (runner.c) and the worker
 * executable (worker.c, built as qconform-worker). One definition for both
 * sides: the worker's command line, the layout of the shared arena's slots,
 * the messages on the channel, and the small I/O helpers both use.
 *
 * The harness starts a worker with posix_spawn (a fresh single-threaded
 * process, never a fork of the multi-threaded harness, in a process group of
 * its own) and these fds:
 *   0  /dev/null (the worker opens it)    1, 2  the harness's stderr
 *   3  the worker's end of the channel    4  the arena (a memfd)
 * and nothing else. The channel is an AF_UNIX SOCK_SEQPACKET pair: every
 * message below is one packet. The worker maps the arena at exactly the
 * harness's address (the staged calls hold absolute pointers), sends a
 * qc_load_report, then serves commands until told to quit or the channel
 * closes: per case one qc_answer, or a qc_fault before it dies, and one
 * QC_MSG_DONE per command.
 *
 * The harness reads nothing of the arena that the worker could have written
 * other than output bytes and pattern bytes at offsets it computed itself.
 */
#ifndef QC_WIRE_H
#define QC_WIRE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/platform.h"
#include "qconform/plugin.h"

/* Bumped whenever anything in this file changes meaning; checked by the worker. */
#define QC_WIRE_PROTOCOL 5

#define QC_GUARD_BYTES 64 /* pattern bytes after each input (readable slack) */
#define QC_DATA_ALIGN  64
#define QC_META_ALIGN  16

#define QC_ROUND_UP(x, a) (((x) + (a)-1) & ~((size_t)(a)-1))

/* The fds the worker finds its channel and arena at (passed in argv too). */
#define QC_WORKER_CHANNEL_FD 3
#define QC_WORKER_ARENA_FD   4

#define QC_WIRE_MAX_OUTPUTS 8  /* outputs of one call */
#define QC_WIRE_CHUNK       64 /* cases per command */

/*
 * The arena, as the worker sees it. The worker maps it PROT_NONE and opens
 * one case at a time: while a case runs, its call description, inputs and
 * output regions are accessible and every other byte of the arena is not;
 * the moment execute returns, the slot is closed again. A slot, every
 * boundary a page boundary:
 *
 *   [qcf_op_call, arrays, strings | input 0, 64 pattern bytes | ...]
 *   [output 0 region] [closed page] [output 1 region] [closed page] ...
 *
 * An output region is whole pages; the output's data ends within 63 bytes of
 * the region's end (64-byte aligned start), and the bytes around it (head
 * and tail) hold qc_guard_pattern. So a stray write lands in a page the case
 * cannot touch (a fault the worker reports: qc_fault), or in pattern bytes,
 * the call or an input, which the harness compares with its own copies.
 * Closed pages are never opened. With QC_CMD_DEFER_CLOSE (below) the slots of
 * the command's earlier cases may still be open while a case runs.
 */
typedef struct qc_case_desc {
	uint64_t slot_off, slot_len; /* the whole slot: closed after the case */
	uint64_t ro_off, ro_len;     /* call description and inputs */
	uint64_t call_off;           /* the qcf_op_call */
	uint32_t n_outputs;
	uint32_t pad;
	uint64_t rw_off[QC_WIRE_MAX_OUTPUTS], rw_len[QC_WIRE_MAX_OUTPUTS];   /* output regions */
	uint64_t out_off[QC_WIRE_MAX_OUTPUTS], out_len[QC_WIRE_MAX_OUTPUTS]; /* output data */
} qc_case_desc;

/* Command (one packet): the header, then count descriptions. */
typedef struct qc_command {
	uint32_t count;     /* <= QC_WIRE_CHUNK */
	uint32_t quit;      /* destroy() and exit */
	uint32_t settle_ms; /* at the command's end, if the plugin has threads (QC_SETTLE_MS) */
	uint32_t flags;     /* QC_CMD_* */
} qc_command;

/*
 * QC_CMD_DEFER_CLOSE: a case's slot may stay open from its return to the command's end, when
 * the plugin has no thread and no child process at that return; the command's end closes the
 * slots with one call. The answer says so (QC_ANS_LEFT_OPEN) and carries the hash of the
 * outputs at the return. Closing memory flushes the TLB, the costliest step of a small case;
 * what the open slots let through (a write into an earlier case of the command) the harness
 * finds by comparing each such case at the command's end, and then runs the command again
 * with every slot closed at its return (runner_run.c). A remote worker (stream.h) takes it too:
 * what changed in its open slots after their answers comes back with the DONE.
 */
#define QC_CMD_DEFER_CLOSE 1u
#define QC_ANS_LEFT_OPEN   1u /* the case's slot was left open at its return */
/* The outputs changed between execute's return and the slot's closing (a thread of the
 * plugin's wrote late, racing the worker): the answer is late. */
#define QC_ANS_CHANGED_AT_CLOSE 2u

/* What the worker says of where it runs, probed before the plugin is loaded; sha256 and
 * plugin are a remote worker's (stream.h) only, "" for a local one. */
typedef struct qc_remote_info {
	qc_platform platform; /* uname, CPU features, emulation (platform.h) */
	char sha256[72];      /* of the plugin file, computed where it runs (64 hex digits) */
	char plugin[256];     /* the path it loaded */
} qc_remote_info;

/* Sent once by the worker after loading (or failing to). */
typedef struct qc_load_report {
	int32_t ok;
	uint32_t abi;
	int32_t arena_taken;   /* !ok because the arena's address was in use: a new worker may do */
	int32_t sandbox_level; /* QC_SANDBOX_* (sandbox.h) */
	char name[128];
	char version[64];
	char threads_option[32]; /* the descriptor's threads_option, or "" */
	char error[256];
	char sandbox[160]; /* what of the sandbox is in force, or "" when not asked for */
	uint64_t memory;   /* the address space limit in force (bytes), 0: none */
	qc_remote_info remote;
} qc_load_report;

#define QC_MSG_ANSWER 0x51414e53u /* "QANS" */
#define QC_MSG_DONE   0x51444f4eu /* "QDON": a qc_answer that ends a command */
#define QC_MSG_FAULT  0x51464c54u /* "QFLT" */
/* A qc_answer from a relay (stream.h) whose stream to the remote worker broke (a corrupted or
 * truncated frame): message says how. Not a verdict: the run stops with it. */
#define QC_MSG_BROKEN 0x5142524bu /* "QBRK" */
/* From a relay: the stream ended without the remote side's word on the worker's end (the link
 * or the transport died, not the kernel): message says how; the harness starts the command
 * again and runs the cases in flight again. */
#define QC_MSG_LINK 0x514c4e4bu /* "QLNK" */
/* From a relay: the device's keeper killed the worker at the timeout of case seq of the
 * command (seq = its count: at the command's end). */
#define QC_MSG_TIMEOUT 0x51544d4fu /* "QTMO" */

/* How long a worker whose plugin has threads waits at the end of a command before saying so;
 * once the plugin was caught writing late, each case is its own command, with the longer wait,
 * which goes on (up to QC_PROBATION_SETTLE_MAX_MS) while a thread of the plugin is ready to run
 * and waiting for a CPU: on a loaded machine the late writer may not have had one yet. */
#define QC_SETTLE_MS               10
#define QC_PROBATION_SETTLE_MS     20
#define QC_PROBATION_SETTLE_MAX_MS 250

/* The worker's answer for case `seq` of its command (one packet). Sent after execute
 * returned, the slot was closed (or left open: QC_ANS_LEFT_OPEN), last_error() and release()
 * ran: every call of the plugin's for the case comes before its answer, so a fault in any of
 * them is the case's own (a crash in release() is its CRASH, never the next case's). */
typedef struct qc_answer {
	uint32_t magic; /* QC_MSG_ANSWER */
	uint32_t seq;
	int32_t outcome; /* qc_outcome */
	uint32_t flags;  /* QC_ANS_* */
	double seconds;
	uint64_t out_hash; /* the outputs' qc_wire_hash_outputs at return */
	char message[256];
	int32_t engine;       /* qcf_engine_kind the plugin reported for an execute that returned
	                         QCF_OK (its engine()), else 0; an unknown value as it came */
	char engine_name[64]; /* its name, printable ASCII (qc_wire_copy_bounded) */
} qc_answer;

/* Case states in a qc_fault: no case; seq in supports, prepare or execute; execute returned
 * (the worker closes the slot); the worker's thread in a call of the plugin's after execute
 * returned (last_error, release), which phase names. */
enum { QC_FAULT_IDLE = 0, QC_FAULT_RUNNING = 1, QC_FAULT_RETURNED = 2, QC_FAULT_AFTER = 3 };

/* The plugin call the worker's thread was in (qc_fault.phase). */
enum {
	QC_PHASE_NONE = 0,
	QC_PHASE_SUPPORTS,
	QC_PHASE_PREPARE,
	QC_PHASE_EXECUTE,
	QC_PHASE_LAST_ERROR,
	QC_PHASE_RELEASE,
	QC_PHASE_ENGINE
};

/*
 * Sent by the worker's fault handler before it dies of the signal (SIGSEGV, SIGBUS,
 * SIGABRT): what was touched and when, for an arena address; the memory limit, when near it;
 * the plugin call it was in. Everything in it is the worker process's word, which the plugin
 * can forge: the harness believes it only of the case it waits for (runner_result.c).
 */
typedef struct qc_fault {
	uint32_t magic; /* QC_MSG_FAULT */
	uint32_t seq;   /* the case running or last run in the current command */
	int32_t state;  /* QC_FAULT_*: seq was running, had returned from execute, or none */
	int32_t signal;
	int32_t write;       /* 1 a write, 0 a read, -1 unknown (the CPU does not say) */
	int32_t main_thread; /* the worker's own thread (the one calling the plugin) */
	int32_t in_arena;    /* offset is an arena offset */
	int32_t oom;         /* the address space was (nearly) at the worker's memory limit */
	uint64_t offset;     /* arena offset of the address */
	int32_t phase;       /* QC_PHASE_*: the worker's thread's call of the plugin */
	int32_t garbled;     /* not a signal: the worker's process wrote what is not the protocol
	                        on its stream (a remote worker's keeper or the relay saw it) */
} qc_fault;

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
	int sandbox;               /* enter the sandbox (sandbox.h) before loading */
	int n_allow;
	const char *const *allow; /* paths that stay writable in the sandbox */
	size_t memory;            /* address space limit beyond the arena (bytes); 0: none */
	/* --remote, memory 0: the remote worker's limit is half its device's RAM over this many
	 * workers (qc_worker_memory_default); 0: none */
	unsigned memory_share;
	const char *remote;  /* --remote CMD: relay to a worker CMD starts (stream.h) */
	unsigned timeout_ms; /* the case timeout, for a remote worker's keeper */
} qc_worker_args;

/*
 * The worker's command line: argv[0] is path, then flags each followed by
 * its value in its own entry; each option is "--option" KEY VALUE (keys and
 * values are any bytes but NUL; no shell ever sees them). Returns a NULL-
 * terminated malloc'd array whose strings live in the same block (one
 * free()), or NULL when out of memory.
 */
char **qc_wire_argv(const char *path, const qc_worker_args *a);

/* Parses what qc_wire_argv built; options and allowed paths go to malloc'd
 * arrays (pointing into argv). 0, or -1 with the reason in why. */
int qc_wire_parse(int argc, char **argv, qc_worker_args *a, char *why, size_t why_size);

double qc_now_s(void);
/* Reads exactly n bytes unless EOF or an error comes first; returns the bytes read or -1. */
ssize_t qc_read_full(int fd, void *buf, size_t n);
/* Writes all of buf without raising SIGPIPE; 0 or -1. */
int qc_send_full(int fd, const void *buf, size_t n);
/* The fault message that says the worker's process wrote what is not the protocol (killed). */
void qc_fault_garbled(qc_fault *f);
/* Copies a string a plugin owns into dst: bounded, never past its NUL, line breaks as spaces. */
void qc_wire_copy_bounded(char *dst, size_t size, const char *src);
/* The same, every byte outside printable ASCII as '?' (an engine's name). */
void qc_wire_copy_printable(char *dst, size_t size, const char *src);
/* "QCF_OK", ..., or "an unknown status". */
const char *qc_wire_status_name(int32_t status);
/* A 64-bit hash of n bytes (not cryptographic: it tells whether bytes changed). */
uint64_t qc_wire_hash(const void *p, size_t n);

/* h with the next n bytes' qc_wire_hash combined in (the outputs' hash, output by output). */
uint64_t qc_wire_hash_more(uint64_t h, const void *p, size_t n);
/* The hash of a case's outputs (from 0, qc_wire_hash_more of each in order), read at
 * base + d->out_off[k]: the worker's at return; the harness hashes its copies the same way. */
uint64_t qc_wire_hash_outputs(const unsigned char *base, const qc_case_desc *d);
/* One "qconform: trace [pid]: ..." line on stderr, in one write. */
void qc_trace_line(const char *fmt, va_list ap);

/* The worker executable's main (harness/worker/main.c calls it): a local worker, a relay
 * (--remote, relay.c) or a remote worker (--stdio, stream.h). */
int qc_worker_main(int argc, char **argv);
/* The relay's main, once the arguments are parsed (relay.c). */
int qc_relay_main(const qc_worker_args *a);

#endif
