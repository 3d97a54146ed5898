/*
 * merge: joins the reports of a sharded run (run --shard K/N) into the report
 * the unsharded run would have written: cases in unsharded order (by their
 * "ordinal"), per-op roll-ups recomputed from the cases, the summary, the
 * waivers with their counts summed.
 */
#ifndef QC_MERGE_H
#define QC_MERGE_H

#include <jansson.h>

/* Merges n shard reports (names for messages). NULL with a one-line reason in err when they
 * are not the shards of one run: other plugin (sha256), seed, spec set (paths and sha256),
 * filters, profile, waivers or shard count, a shard missing or given twice. */
json_t *qc_merge_reports(json_t *const *reports, const char *const *names, int n,
                         const char *command, char *err, size_t err_size);

/* Writes a report in the layout of `run`'s (one case a line). 0, or -1 with errno set. */
int qc_report_write(const char *path, const json_t *report);

/* qconform merge A.json B.json ... [--json OUT]: exit 0 the merged run conforms, 1 it does
 * not, 2 the reports cannot be merged (one line on stderr). */
int qc_cmd_merge(int argc, char **argv);

#endif
