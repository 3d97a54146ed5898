/* qconform list: the names of the cases a run would hold. */
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

int qc_cmd_list(const qc_run_opts *in)
{
	qc_diag diag = {0, 0, stderr};
	qc_plan ss = {0};
	/* list --profile P without --extension: every case of the profile, with its class */
	qc_run_opts all = *in;
	const qc_run_opts *o = in;
	if (in->profile && !in->n_extensions) {
		all.extensions[0] = "all";
		all.n_extensions = 1;
		o = &all;
	}
	/* the plan writes the lines to a file, printed once the whole selection checked out */
	if (!(ss.listing = tmpfile())) {
		fprintf(stderr, "qconform list: cannot make a temporary file: %s\n",
		        strerror(errno));
		return 2;
	}
	int rc = qc_plan_load(o, &ss, &diag, QC_PLAN_LIST) != 0 ? 2 : 0;
	/* as run: a selection with no case is a mistake (a shard without one is not) */
	if (!rc && !ss.unsharded) {
		fprintf(stderr, "qconform list: no case matches the filters/profile\n");
		rc = 2;
	}
	char buf[65536];
	size_t n;
	rewind(ss.listing);
	while (!rc && (n = fread(buf, 1, sizeof buf, ss.listing)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			rc = 2;
	fclose(ss.listing);
	qc_plan_free(&ss);
	return rc;
}
