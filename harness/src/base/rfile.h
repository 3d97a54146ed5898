/*
 * Files read from outside (journals, reports, waivers, exports and records, ONNX files): only
 * a regular file is read, and never more than its kind's limit. A FIFO, a device or a
 * directory is refused at once (opened with O_NONBLOCK, so that a FIFO with no writer does not
 * block; fstat; S_ISREG; O_NONBLOCK then cleared).
 */
#ifndef QC_RFILE_H
#define QC_RFILE_H

#include <stddef.h>
#include <stdint.h>

/* The limits, per kind of file (README.md, "Limits of the files qconform reads"). */
#define QC_JOURNAL_MAX_BYTES  ((uint64_t)512 << 20) /* run --resume */
#define QC_REPORT_MAX_BYTES   ((uint64_t)2 << 30)   /* merge, diff, report, --baseline */
#define QC_MANIFEST_MAX_BYTES ((uint64_t)64 << 20)  /* import: manifest.qcm */
#define QC_RECORDS_MAX_BYTES  ((uint64_t)1 << 30)   /* import: a case file, a record, a stream */

/* "a FIFO", "a directory", ...: what a mode that is not a regular file is. */
const char *qc_file_kind(unsigned mode);

/*
 * Opens path for reading (O_CLOEXEC, blocking reads) if it is a regular file of at most
 * max_bytes (0: any size). The descriptor, or -1 with "path: reason" in err (what names the
 * kind of file in the reason, as "journal").
 */
int qc_open_regular(const char *path, uint64_t max_bytes, const char *what, char *err,
                    size_t err_size);

/*
 * Reads such a file whole: malloc'd, a NUL after its *len bytes. A file that grows past
 * max_bytes while it is read is refused too. NULL with "path: reason" in err.
 */
char *qc_read_regular(const char *path, uint64_t max_bytes, const char *what, size_t *len,
                      char *err, size_t err_size);

#endif
