/*
 * afile: a report file written whole or not at all. The writer writes to PATH.tmp; commit
 * flushes it to the disk (fdatasync) and renames it over PATH, so a reader, a second signal,
 * a SIGKILL or a power cut sees either the old file or the complete new one, never a cut one.
 * A PATH that exists and is not a regular file (/dev/null, a FIFO) is written in place; a
 * symbolic link's target is replaced, not the link.
 */
#ifndef QC_AFILE_H
#define QC_AFILE_H

#include <stdio.h>

typedef struct qc_afile {
	FILE *f;
	int direct; /* PATH itself is written (not a regular file) */
	char path[1100];
	char tmp[1110];
} qc_afile;

/* Opens PATH.tmp for writing. 0, or -1 with "PATH: reason" in err. */
int qc_afile_open(qc_afile *a, const char *path, char *err, size_t err_size);
/* Flushes, syncs and closes the temporary file, then renames it to PATH. 0, or -1 with the
 * reason in err (the temporary file is removed; PATH is as it was). */
int qc_afile_commit(qc_afile *a, char *err, size_t err_size);
/* Closes and removes the temporary file; PATH is as it was. */
void qc_afile_abort(qc_afile *a);

#endif
