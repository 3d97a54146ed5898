/* SHA-256: nettle's sha256_* under the project's names, hex digests, files. */
#include "base/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

void qc_sha256_init(qc_sha256 *s)
{
	sha256_init(s);
}

void qc_sha256_update(qc_sha256 *s, const void *data, size_t len)
{
	sha256_update(s, len, data);
}

void qc_sha256_final(qc_sha256 *s, uint8_t digest[32])
{
	sha256_digest(s, SHA256_DIGEST_SIZE, digest);
}

static void to_hex(const uint8_t digest[32], char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[64] = '\0';
}

void qc_sha256_hex(const void *data, size_t len, char hex[65])
{
	qc_sha256 s;
	uint8_t d[32];
	qc_sha256_init(&s);
	qc_sha256_update(&s, data, len);
	qc_sha256_final(&s, d);
	to_hex(d, hex);
}

int qc_sha256_file(const char *path, char hex[65])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = qc_sha256_fd(fd, hex), e = errno;
	close(fd);
	errno = e;
	return rc;
}

int qc_sha256_fd(int fd, char hex[65])
{
	qc_sha256 s;
	uint8_t buf[65536], d[32];
	qc_sha256_init(&s);
	for (;;) {
		ssize_t got = read(fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		qc_sha256_update(&s, buf, (size_t)got);
	}
	qc_sha256_final(&s, d);
	to_hex(d, hex);
	return 0;
}
