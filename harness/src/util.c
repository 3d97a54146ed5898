#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int qc_errf(char *err, size_t err_size, const char *fmt, ...)
{
	if (err && err_size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void *qc_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	return p;
}
