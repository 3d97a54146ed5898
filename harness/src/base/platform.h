/*
 * What a process can see of the machine it runs on: uname, the CPU features it may use, and
 * whether it runs under a user-mode emulator. The worker probes it where the kernel runs (on a
 * device through --remote, where it is the device's report, not a fact the harness checked).
 */
#ifndef QC_PLATFORM_H
#define QC_PLATFORM_H

#include <stddef.h>

typedef struct qc_platform {
	char machine[32];    /* uname -m */
	char system[96];     /* uname -s -r */
	char cpu[256];       /* the CPU's name and the features this process may use */
	char emulation[160]; /* why it looks emulated, or "" (nothing seen: not a proof of a board)
	                      */
} qc_platform;

/* Fills p; every field ends in NUL, "" where nothing could be read. */
void qc_platform_probe(qc_platform *p);

/* The default address space limit of a worker (--worker-memory), from the RAM of the machine
 * this runs on: half of it over `share` workers, at least 1 GiB (or the whole RAM, when
 * smaller). */
size_t qc_worker_memory_default(int share);

/* s is 64 lowercase hex digits (a sha256 as qc_sha256_hex writes it). */
int qc_is_sha256_hex(const char *s);

#endif
