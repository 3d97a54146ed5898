/* qconform feed: the host's side of a streamed runner on a device. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/help.h"
#include "offline/export.h"

static int usage(const char *msg)
{
	fprintf(stderr, "qconform feed: %s\n", msg);
	return 2;
}

int qc_cmd_feed(int argc, char **argv)
{
	qc_feed_opts F = {.timeout_s = 30, .restarts_max = 3};
	qc_opt_reader rd = {.cmd = "feed", .argc = argc - 1, .argv = argv + 1};
	const char *a, *v;
	for (int k; (k = qc_opt_next(&rd, &a, &v)) != QC_OPT_END;) {
		if (k == QC_OPT_BAD)
			return 2;
		if (k == QC_OPT_WORD) {
			if (F.dir)
				return usage("one export directory");
			F.dir = v;
		} else if (!strcmp(a, "--device"))
			F.device = v;
		else if (!strcmp(a, "--out"))
			F.capture = v;
		else if (!strcmp(a, "--timeout") || !strcmp(a, "--restarts")) {
			char *end;
			double d = strtod(v, &end);
			if (*end || !*v || d <= 0 || d > 1e6) {
				fprintf(stderr,
				        "qconform feed: %s needs a positive number, got %s\n", a,
				        v);
				return 2;
			}
			if (a[2] == 't')
				F.timeout_s = d;
			else
				F.restarts_max = (int)d;
		} else if (!strcmp(a, "--quiet"))
			F.quiet = 1;
		else
			return qc_opt_unread("feed", a);
	}
	if (!F.dir || !F.device)
		return usage("needs the export directory and --device COMMAND (the device's line "
		             "on its stdin and stdout)");
	return qc_feed(&F);
}
