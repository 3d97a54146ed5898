/* Small helpers shared by the harness modules. */
#ifndef QC_UTIL_H
#define QC_UTIL_H

#include <stddef.h>

/* Formats a one-line reason into err (when err is not NULL) and returns -1. */
int qc_errf(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* calloc that never returns NULL: out of memory ends the process with status 2. */
void *qc_xcalloc(size_t n, size_t size);

#endif
