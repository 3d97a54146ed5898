/*
 * What the fuzz targets of the readers of outside files share: the input written to a file of
 * a directory of the process's own (the readers take paths, and read them as they read any
 * file: qc_read_regular, harness/src/base/rfile.h).
 */
#ifndef QC_FUZZ_FILES_H
#define QC_FUZZ_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's directory (made once, under TMPDIR or /tmp). */
static const char *fuzz_dir(void)
{
	static char dir[512];
	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/qconform-fuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			abort();
		}
	}
	return dir;
}

/* Writes bytes to DIR/name (name may hold one '/': its directory is made); the path in out. */
static void fuzz_write(const char *name, const void *data, size_t size, char *out, size_t out_size)
{
	snprintf(out, out_size, "%s/%s", fuzz_dir(), name);
	const char *slash = strchr(name, '/');
	if (slash) {
		char sub[600];
		snprintf(sub, sizeof sub, "%s/%.*s", fuzz_dir(), (int)(slash - name), name);
		(void)mkdir(sub, 0700);
	}
	FILE *f = fopen(out, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror(out);
		abort();
	}
}

#endif
