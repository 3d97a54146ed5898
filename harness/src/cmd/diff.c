/* qconform diff: two reports compared; the gate's exit status. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/help.h"
#include "gate/diff.h"
#include "run/run.h"

int qc_cmd_diff(int argc, char **argv)
{
	const char *files[2];
	const char *allow[QC_MAX_FILTERS];
	qc_diff_opts opts = {.allow_loss = allow};
	int nf = 0;
	qc_opt_reader rd = {.cmd = "diff", .argc = argc - 1, .argv = argv + 1};
	const char *a, *v;
	for (int k; (k = qc_opt_next(&rd, &a, &v)) != QC_OPT_END;) {
		if (k == QC_OPT_BAD)
			return 2;
		if (k == QC_OPT_FLAG && !strcmp(a, "--allow-coverage-loss")) {
			if (opts.n_allow_loss == QC_MAX_FILTERS) {
				fprintf(stderr,
				        "qconform diff: more than %d --allow-coverage-loss globs\n",
				        QC_MAX_FILTERS);
				return 2;
			}
			allow[opts.n_allow_loss++] = v;
		} else if (k == QC_OPT_FLAG) {
			return qc_opt_unread("diff", a);
		} else if (nf == 2) {
			fprintf(stderr,
			        "qconform diff: needs exactly two reports, BASE.json NEW.json\n");
			return 2;
		} else {
			files[nf++] = v;
		}
	}
	if (nf != 2) {
		fprintf(stderr, "qconform diff: needs exactly two reports, BASE.json NEW.json\n");
		return 2;
	}
	char err[1024];
	qc_report *base = qc_report_open(files[0], err, sizeof err), *cur = NULL;
	if (base)
		cur = qc_report_open(files[1], err, sizeof err);
	if (!cur) {
		fprintf(stderr, "qconform diff: %s\n", err);
		qc_report_close(base);
		return 2;
	}
	qc_diff_counts n;
	int rc = qc_diff_reports(base, cur, &opts, stdout, &n, err, sizeof err);
	if (rc != 0)
		fprintf(stderr, "qconform diff: %s\n", err);
	qc_report_close(base);
	qc_report_close(cur);
	return rc != 0 ? 2 : n.regressions ? 1 : 0;
}
