#include "base/afile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int qc_afile_open(qc_afile *a, const char *path, char *err, size_t err_size)
{
	memset(a, 0, sizeof *a);
	if (strlen(path) >= sizeof a->path) {
		snprintf(err, err_size, "%s: path too long", path);
		return -1;
	}
	snprintf(a->path, sizeof a->path, "%s", path);
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		/* /dev/null, a FIFO, /dev/stdout: written in place (renaming a file over a
		 * device would replace the device) */
		a->direct = 1;
		if (!(a->f = fopen(path, "w"))) {
			snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	/* a symbolic link to a file: the file is replaced, not the link */
	char real[PATH_MAX];
	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && realpath(path, real) &&
	    strlen(real) < sizeof a->path)
		snprintf(a->path, sizeof a->path, "%s", real);
	snprintf(a->tmp, sizeof a->tmp, "%s.tmp", a->path);
	if (!(a->f = fopen(a->tmp, "w"))) {
		snprintf(err, err_size, "cannot write %s: %s", a->tmp, strerror(errno));
		return -1;
	}
	return 0;
}

int qc_afile_commit(qc_afile *a, char *err, size_t err_size)
{
	FILE *f = a->f;
	a->f = NULL;
	if (!f) {
		snprintf(err, err_size, "%s: not open", a->path);
		return -1;
	}
	int bad = fflush(f) != 0 || ferror(f);
	int e = errno;
	/* the data on the disk before the name: a power cut leaves the old file or this one */
	if (!bad && fdatasync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) {
		bad = 1;
		e = errno;
	}
	if (fclose(f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (a->direct) {
		if (bad)
			snprintf(err, err_size, "%s: write error: %s", a->path, strerror(e));
		return bad ? -1 : 0;
	}
	if (!bad && rename(a->tmp, a->path) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		snprintf(err, err_size, "%s: write error: %s", a->path, strerror(e));
		unlink(a->tmp);
		return -1;
	}
	return 0;
}

void qc_afile_abort(qc_afile *a)
{
	if (a->f)
		fclose(a->f);
	a->f = NULL;
	if (a->tmp[0] && !a->direct)
		unlink(a->tmp);
}
