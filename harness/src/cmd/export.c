/* qconform export: the selection as case files for an offline runner. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "offline/export.h"

int qc_cmd_export(const qc_run_opts *o, const char *out_dir, int c_arrays)
{
	size_t n = 0;
	int rc = qc_export(o, out_dir, c_arrays, &n);
	if (rc == 0)
		printf("export: %zu case%s to %s (manifest.qcm, cases/%s); run them with the "
		       "runner, then qconform import %s\n",
		       n, n == 1 ? "" : "s", out_dir, c_arrays ? ", cases.c, cases.h" : "",
		       out_dir);
	return rc;
}
