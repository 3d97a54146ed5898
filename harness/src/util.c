#include "util.h"

#include <stdarg.h>
#include <stdio.h>

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
