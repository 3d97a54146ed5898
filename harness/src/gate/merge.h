/*
 * merge: joins the reports of a sharded run (run --shard K/N) into the report
 * the unsharded run would have written: cases in unsharded order (by their
 * "ordinal"), per-op roll-ups recomputed from the cases, the summary, the
 * waivers with their counts summed.
 */
#ifndef QC_MERGE_H
#define QC_MERGE_H

#include <jansson.h>

#include "report/report_read.h"

/* One case of the merged report: its ordinal, and where it is (shard, qc_report_at). */
typedef struct qc_merge_case {
	json_int_t ordinal;
	long long pos;
	int shard;
} qc_merge_case;

/* The merged report's cases in order: 24 bytes a case, the cases stay in the shard files. */
typedef struct qc_merge_order {
	qc_merge_case *c;
	size_t n;
} qc_merge_order;

void qc_merge_order_free(qc_merge_order *order);

/* Merges n open shard reports (names for messages): the merged document, whose "cases" is
 * empty, and the order of its cases in *order (two passes over the shards' cases, one at a
 * time). NULL with a one-line reason in err when they are not the shards of one run: other
 * plugin (sha256), seed, spec set (paths and sha256), filters, profile, waivers or shard
 * count, a shard missing or given twice. */
json_t *qc_merge_reports(qc_report *const *reports, const char *const *names, int n,
                         const char *command, qc_merge_order *order, char *err, size_t err_size);

/* Writes a report in the layout of `run`'s (one case a line); with order, its cases are
 * those of order, read from the reports one at a time. 0, or -1 with errno set. */
int qc_report_write(const char *path, const json_t *report, qc_report *const *reports,
                    const qc_merge_order *order);

#endif
