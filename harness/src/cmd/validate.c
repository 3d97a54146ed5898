/* qconform validate: every spec loaded and checked, nothing run. */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "pipeline/plan.h"

int qc_cmd_validate(const qc_run_opts *o)
{
	qc_diag diag = {0, 0, stderr};
	qc_plan ss = {0};
	int rc = qc_plan_load(o, &ss, &diag, QC_PLAN_VALIDATE);
	if (rc == 0)
		printf("%d spec%s valid, %llu case%s\n", ss.n, ss.n == 1 ? "" : "s",
		       (unsigned long long)ss.total, ss.total == 1 ? "" : "s");
	else
		fprintf(stderr, "%d error%s\n", diag.errors, diag.errors == 1 ? "" : "s");
	qc_plan_free(&ss);
	return rc == 0 ? 0 : 2;
}
