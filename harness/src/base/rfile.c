#include "base/rfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *qc_file_kind(unsigned mode)
{
	return S_ISDIR(mode)    ? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
	                        : "not a file";
}

static void limit_text(uint64_t max, char *buf, size_t size)
{
	if (max >= (1u << 30) && max % (1u << 30) == 0)
		snprintf(buf, size, "%llu GiB", (unsigned long long)(max >> 30));
	else if (max >= (1u << 20))
		snprintf(buf, size, "%llu MiB", (unsigned long long)(max >> 20));
	else
		snprintf(buf, size, "%llu bytes", (unsigned long long)max);
}

int qc_open_regular(const char *path, uint64_t max_bytes, const char *what, char *err,
                    size_t err_size)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* opening a socket fails: say why */
		snprintf(err, err_size, "%s: not a regular file (%s)", path,
		         qc_file_kind(st.st_mode));
		return -1;
	}
	/* O_NONBLOCK: opening a FIFO (put there since the stat) must not wait for a writer */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, err_size, "%s: not a regular file (%s)", path,
		         qc_file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	if (max_bytes && (uint64_t)st.st_size > max_bytes) {
		char lim[32];
		limit_text(max_bytes, lim, sizeof lim);
		snprintf(err, err_size, "%s: larger than a %s may be (%lld bytes; the limit is %s)",
		         path, what, (long long)st.st_size, lim);
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

char *qc_read_regular(const char *path, uint64_t max_bytes, const char *what, size_t *len,
                      char *err, size_t err_size)
{
	int fd = qc_open_regular(path, max_bytes, what, err, err_size);
	if (fd < 0)
		return NULL;
	struct stat st;
	size_t cap = fstat(fd, &st) == 0 ? (size_t)st.st_size + 1 : 65536, n = 0;
	if (cap < 4096)
		cap = 4096;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (buf && n == cap) {
			if (max_bytes && n > max_bytes)
				break;
			size_t nc = cap * 2;
			if (max_bytes && nc > max_bytes + 1)
				nc = (size_t)max_bytes + 1;
			char *nb = realloc(buf, nc + 1);
			if (!nb)
				free(buf);
			buf = nb;
			cap = nc;
		}
		if (!buf) {
			snprintf(err, err_size, "%s: out of memory", path);
			close(fd);
			return NULL;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, err_size, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (max_bytes && n > max_bytes) {
		char lim[32];
		limit_text(max_bytes, lim, sizeof lim);
		snprintf(err, err_size,
		         "%s: larger than a %s may be (it grew while read; the limit "
		         "is %s)",
		         path, what, lim);
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}
