/*
 * journal: a run's progress on disk, so that a run killed by SIGKILL or a power cut (or
 * stopped by a signal) goes on with `qconform run --resume JOURNAL` instead of starting again.
 *
 * The file (default: beside the JSON report, REPORT.json.journal) is JSON Lines, UTF-8:
 *
 *   line 1, the run's identity:
 *     {"format": "qconform-journal", "format_version": 2, "started": EPOCH SECONDS,
 *      "command": "qconform run ...", "argv": [the arguments after "run"] (a record only:
 *      a resumed run takes its arguments from its own command line, never from here),
 *      "identity": {qconform version, specs (path, sha256), seed, plugin (path, sha256,
 *                   options), filters, profile, shard, timeout, waivers' sha256,
 *                   cases planned}}
 *   then one line per judged case, in the report's order:
 *     {"chain": "HEX", "stats": [per output: every qc_metrics counter and sum, doubles exact],
 *      "case": {the case object of the JSON report, byte for byte}}
 *   where chain is the SHA-256 of the previous line's chain (raw; the header line's SHA-256
 *   for the first case) and of the line's bytes after the chain member. A line that does not
 *   check (edited, or damaged) is run again, and so is every line after it; it is said on the
 *   console. The chain has no secret key: it finds edits and damage, it does not stop one who
 *   writes a whole new chain (a journal is as trusted as the directory it is kept in).
 *
 * A resumed run copies each journaled case object into its report as it is, and rebuilds the
 * per-op roll-ups and the summary from "stats" with qc_stats_add, as if the case had just run:
 * the report equals the uninterrupted run's case by case. Lines are flushed after every batch
 * and synced (fdatasync) after a batch at most every 0.25 s (harness/src/cmd/run.c); a last line
 * cut by the crash is ignored and cut off.
 */
#ifndef QC_JOURNAL_H
#define QC_JOURNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "judge/compare.h"

#define QC_JOURNAL_FORMAT 2 /* format_version */

typedef struct qc_journal qc_journal;

/* Creates (or empties) path and writes the header line, synced. NULL with a reason. */
qc_journal *qc_journal_create(const char *path, const json_t *header, char *err, size_t err_size);
typedef struct qc_journal_data qc_journal_data;
/* Opens an existing journal to append after what qc_journal_load kept of it (d->good_bytes,
 * the chain at its end); what follows is cut off. NULL with a reason. */
qc_journal *qc_journal_reopen(const char *path, const qc_journal_data *d, char *err,
                              size_t err_size);
/* What the roll-ups need of a judged case (r), as its line begins: {"stats": [...], "case":
 * (malloc'd, *len bytes). Made where the case is judged (a job thread), so that the thread
 * writing the journal only writes. */
char *qc_journal_stats_text(const qc_result *r, size_t *len);
/* Appends one case: its stats (qc_journal_stats_text) and the report's case object. */
void qc_journal_case(qc_journal *j, const char *stats, size_t stats_len, const char *text,
                     size_t len);
/* fflush: every line so far survives the process (SIGKILL). 0, or -1. */
int qc_journal_flush(qc_journal *j);
/* fflush + fdatasync: every line so far survives a power cut. 0, or -1. */
int qc_journal_sync(qc_journal *j);
/* Syncs and closes. 0, or -1 if any write failed. */
int qc_journal_close(qc_journal *j);

/* One journaled case. */
typedef struct qc_journal_entry {
	uint64_t ordinal;
	char *name;       /* as the report holds it */
	const char *line; /* the journal's line, into qc_journal_data.buf */
	size_t line_len;
	const char *text; /* the case object, into the line */
	size_t len;
} qc_journal_entry;

struct qc_journal_data {
	json_t *header;
	qc_journal_entry *e; /* sorted by ordinal */
	size_t n;
	long good_bytes;   /* the file up to the end of its last whole line */
	int dropped_tail;  /* a cut last line was ignored */
	char *buf;         /* the file (at most QC_JOURNAL_MAX_BYTES, a regular file) */
	uint8_t chain[32]; /* the checksum of the last line kept */
	char note[400];    /* "path:LINE: reason": the line from which cases are run again */
};

/* Reads a journal: its header and every whole case line whose checksum and content check; the
 * first that does not and every line after it are left out (d->note says which). -1 with
 * "path: reason" (not a regular file, too large, not a journal of this format, a case twice). */
int qc_journal_load(const char *path, qc_journal_data *d, char *err, size_t err_size);
/* A journaled case's verdict, seconds, message, n_outputs and m[] (no worst), read from its
 * line when it is replayed: memory holds the journal's text, not a result per case. 0, or -1. */
int qc_journal_result(const qc_journal_entry *e, qc_result *r);
/* The entry of a case's ordinal, or NULL. */
const qc_journal_entry *qc_journal_find(const qc_journal_data *d, uint64_t ordinal);
void qc_journal_data_free(qc_journal_data *d);

#endif
