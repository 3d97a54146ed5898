/* qconform merge: the shards of one run as one report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "cmd/commands.h"
#include "cmd/help.h"
#include "gate/merge.h"

int qc_cmd_merge(int argc, char **argv)
{
	const char *out_path = NULL;
	const char **files = qc_xcalloc((size_t)argc, sizeof *files);
	int nf = 0;
	char command[4096];
	size_t used = (size_t)snprintf(command, sizeof command, "qconform merge");
	for (int i = 1; i < argc; i++)
		if (used < sizeof command)
			used += (size_t)snprintf(command + used, sizeof command - used, " %s",
			                         argv[i]);
	qc_opt_reader rd = {.cmd = "merge", .argc = argc - 1, .argv = argv + 1};
	const char *a, *v;
	for (int k; (k = qc_opt_next(&rd, &a, &v)) != QC_OPT_END;) {
		if (k == QC_OPT_WORD) {
			files[nf++] = v;
			continue;
		}
		if (k == QC_OPT_FLAG && !strcmp(a, "--json")) {
			out_path = v;
			continue;
		}
		if (k == QC_OPT_FLAG)
			qc_opt_unread("merge", a);
		free(files);
		return 2;
	}
	if (!nf) {
		fprintf(stderr, "qconform merge: needs the shard reports: A.json B.json ... "
		                "[--json OUT]\n");
		free(files);
		return 2;
	}
	qc_report **reports = qc_xcalloc((size_t)nf, sizeof *reports);
	char err[1024];
	int rc = 0;
	for (int i = 0; i < nf && !rc; i++)
		if (!(reports[i] = qc_report_open(files[i], err, sizeof err)))
			rc = 2;
	json_t *merged = NULL;
	qc_merge_order order = {0};
	if (!rc &&
	    !(merged = qc_merge_reports(reports, files, nf, command, &order, err, sizeof err)))
		rc = 2;
	char path[1024];
	if (!rc) {
		if (out_path)
			snprintf(path, sizeof path, "%s", out_path);
		else {
			const char *name = qc_json_str(
			        json_object_get(json_object_get(merged, "run"), "plugin"), "name");
			snprintf(path, sizeof path, "reports/out/%s/report.json",
			         strstr(name, "reference") ? "reference" : name);
		}
		if (qc_mkdirs_for(path) != 0 ||
		    qc_report_write(path, merged, reports, &order) != 0) {
			snprintf(err, sizeof err, "cannot write %s: %s", path, strerror(errno));
			rc = 2;
		}
	}
	if (rc) {
		fprintf(stderr, "qconform merge: %s\n", err);
	} else {
		const json_t *s = json_object_get(merged, "summary");
		int ok = json_is_true(json_object_get(s, "conforms"));
		long long cases = (long long)qc_json_int(json_object_get(s, "cases"));
		printf("merged %d shard report%s: %lld case%s, %s\nreport: %s\n", nf,
		       nf == 1 ? "" : "s", cases, cases == 1 ? "" : "s",
		       ok ? "CONFORMS" : "DOES NOT CONFORM", path);
		rc = ok ? 0 : 1;
	}
	json_decref(merged);
	qc_merge_order_free(&order);
	for (int i = 0; i < nf; i++)
		qc_report_close(reports[i]);
	free(reports);
	free(files);
	return rc;
}
