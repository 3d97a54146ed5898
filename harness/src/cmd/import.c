/* qconform import: an offline runner's records judged as a run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "cmd/help.h"
#include "offline/import.h"

int qc_cmd_import(int argc, char **argv, const char *self, const char *command)
{
	const char *dirs[QC_IMPORT_MAX_PARTS], *outputs[QC_IMPORT_MAX_PARTS];
	int n_dirs = 0;
	qc_run_opts o;
	memset(&o, 0, sizeof o);
	o.timeout_s = 30;
	o.jobs = 1;
	qc_opt_reader rd = {.cmd = "import", .argc = argc - 1, .argv = argv + 1};
	const char *a, *v;
	for (int k; (k = qc_opt_next(&rd, &a, &v)) != QC_OPT_END;) {
		if (k == QC_OPT_BAD)
			return 2;
		if (k == QC_OPT_WORD) {
			if (n_dirs == QC_IMPORT_MAX_PARTS) {
				fprintf(stderr, "qconform import: at most %d export directories\n",
				        QC_IMPORT_MAX_PARTS);
				return 2;
			}
			outputs[n_dirs] = NULL;
			dirs[n_dirs++] = v;
		} else if (!strcmp(a, "--outputs")) {
			if (!n_dirs || outputs[n_dirs - 1]) {
				fprintf(stderr,
				        "qconform import: --outputs names the records of the "
				        "export directory before it (one each)\n");
				return 2;
			}
			outputs[n_dirs - 1] = v;
		} else if (!strcmp(a, "--json"))
			o.json_path = v;
		else if (!strcmp(a, "--html"))
			o.html_path = v;
		else if (!strcmp(a, "--junit"))
			o.junit_path = v;
		else if (!strcmp(a, "--jobs")) {
			char *end;
			long j = strtol(v, &end, 10);
			if (*end || !*v || j < 1 || j > 64) {
				fprintf(stderr,
				        "qconform import: --jobs needs a number of threads in [1, "
				        "64], "
				        "got %s\n",
				        v);
				return 2;
			}
			o.jobs = (int)j;
		} else if (!strcmp(a, "--quiet"))
			o.quiet = 1;
		else
			return qc_opt_unread("import", a);
	}
	if (!n_dirs) {
		fprintf(stderr, "qconform import: needs the export directory (qconform export "
		                "--out DIR)\n");
		return 2;
	}
	char err[2048];
	qc_import *im = qc_import_open(dirs, outputs, n_dirs, err, sizeof err);
	if (!im) {
		fprintf(stderr, "qconform import: %s\n", err);
		return 2;
	}
	qc_import_run_opts(im, &o);
	o.self = self;
	o.command = command;
	o.argv = argv + 1;
	o.argc = argc - 1;
	int rc = qc_cmd_run(&o);
	qc_import_close(im);
	return rc;
}
