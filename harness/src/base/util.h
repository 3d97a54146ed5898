/* Small helpers shared by the harness modules. */
#ifndef QC_UTIL_H
#define QC_UTIL_H

#include <stddef.h>

/* Formats a one-line reason into err (when err is not NULL) and returns -1. */
int qc_errf(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Appends one item (printf) to a ", "-separated list in buf (size bytes; *used its length,
 * 0 to start with an empty buf): whole items only, while ", ..." still fits after them; the
 * first item that does not fit ends the list with "..." and every later one is dropped.
 */
void qc_list_add(char *buf, size_t size, size_t *used, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* calloc that never returns NULL: out of memory ends the process with status 2. */
void *qc_xcalloc(size_t n, size_t size);
/* realloc of n elements of size bytes, likewise (the product checked for overflow). */
void *qc_xrealloc(void *p, size_t n, size_t size);

/*
 * Room for element n of the array p of cap elements (cap an int or size_t lvalue): when n has
 * reached cap, cap doubles (first when 0) and p is reallocated, as qc_xrealloc does. The one
 * growth rule of every array that is appended to.
 */
#define QC_GROW(p, n, cap, first)                                                                  \
	do {                                                                                       \
		if ((size_t)(n) >= (size_t)(cap)) {                                                \
			size_t qc_cap_ = qc_grown_cap((size_t)(cap), (size_t)(n), (first));        \
			(p) = qc_xrealloc((p), qc_cap_, sizeof *(p));                              \
			(cap) = qc_cap_;                                                           \
		}                                                                                  \
	} while (0)
/* The capacity QC_GROW takes: cap doubled (first when 0) until it exceeds n. */
size_t qc_grown_cap(size_t cap, size_t n, size_t first);

/* "4G", "512M", "64K", "1000" (bytes), "0": a size in bytes; 0, or -1 if malformed. */
int qc_parse_size(const char *s, size_t *out);

/*
 * A name made safe as one path component (a report directory named after a plugin): bytes
 * other than [A-Za-z0-9._+-] become '_', a leading '.' too, at most out_size - 1 bytes, never
 * empty ("plugin"). Returns out.
 */
char *qc_path_component(const char *name, char *out, size_t out_size);

/*
 * A file that comes with qconform, found from the running executable's directory DIR:
 * DIR/../INSTALLED when it exists (make install: bin/qconform beside lib/qconform/ and
 * share/qconform/), else DIR/NAME (a build tree: qconform, its worker and the reference plugin
 * side by side). Either may be NULL. The path in buf; 0, or -1 (none exists; buf holds the
 * last one tried).
 */
int qc_installed_path(const char *name, const char *installed, char *buf, size_t size);

/* mkdir -p path: 0, or -1 with errno (ENOTDIR when path is a file). */
int qc_mkdirs(const char *path);

/* The directories leading to file (mkdir -p of its folder): 0, or -1 with errno. */
int qc_mkdirs_for(const char *file);

#endif
