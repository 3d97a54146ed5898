#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

void qc_list_add(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
	if (!size || *used >= size) /* cut already */
		return;
	char item[512];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(item, sizeof item, fmt, ap);
	va_end(ap);
	const char *sep = *used ? ", " : "";
	if (k >= 0 && (size_t)k < sizeof item &&
	    *used + strlen(sep) + (size_t)k + sizeof ", ..." <= size) {
		*used += (size_t)snprintf(buf + *used, size - *used, "%s%s", sep, item);
		return;
	}
	snprintf(buf + *used, size - *used, "%s...", sep);
	*used = size;
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

void *qc_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	size_t bytes = n * size;
	void *q = realloc(p, bytes ? bytes : 1);
	if (!q) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	return q;
}

size_t qc_grown_cap(size_t cap, size_t n, size_t first)
{
	size_t c = cap ? cap : (first ? first : 1);
	while (c <= n) {
		if (c > SIZE_MAX / 2) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
		c *= 2;
	}
	return c;
}

int qc_parse_size(const char *s, size_t *out)
{
	if (!s || !*s || *s == '-')
		return -1;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return -1;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	else if (*end == 'T' || *end == 't')
		shift = 40;
	if (shift)
		end++;
	if (*end == 'i' && shift)
		end++;
	if (*end == 'B')
		end++;
	if (*end || (shift && v > (~0ull >> shift)))
		return -1;
	*out = (size_t)(v << shift);
	return 0;
}

char *qc_path_component(const char *name, char *out, size_t out_size)
{
	size_t n = 0;
	for (const char *p = name ? name : ""; *p && n + 1 < out_size; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		         (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+' ||
		         (c == '.' && n > 0);
		out[n++] = ok ? c : '_';
	}
	if (!n && out_size > 6)
		n = (size_t)snprintf(out, out_size, "plugin");
	out[n] = '\0';
	return out;
}

int qc_installed_path(const char *name, const char *installed, char *buf, size_t size)
{
	char dir[4096];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	dir[n > 0 ? n : 0] = 0;
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof dir, ".");
	if (installed) {
		snprintf(buf, size, "%s/../%s", dir, installed);
		if (access(buf, F_OK) == 0)
			return 0;
	}
	if (name) {
		snprintf(buf, size, "%s/%s", dir, name);
		return access(buf, F_OK) == 0 ? 0 : -1;
	}
	return -1;
}

int qc_mkdirs(const char *path)
{
	char buf[4096];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char was = *p;
		*p = 0;
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return -1;
		if (!was)
			break;
		*p = '/';
	}
	struct stat sb;
	if (stat(buf, &sb) != 0)
		return -1;
	if (!S_ISDIR(sb.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

int qc_mkdirs_for(const char *file)
{
	char buf[4096];
	if (snprintf(buf, sizeof buf, "%s", file) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	char *slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return 0;
	*slash = 0;
	return qc_mkdirs(buf);
}
