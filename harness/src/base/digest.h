/*
 * SHA-256 through nettle (Debian's nettle-dev): the digests that identify the plugin under
 * test, profiles, specs, waivers, reports and the ONNX importer's source files.
 */
#ifndef QC_DIGEST_H
#define QC_DIGEST_H

#include <nettle/sha2.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx qc_sha256;

void qc_sha256_init(qc_sha256 *s);
void qc_sha256_update(qc_sha256 *s, const void *data, size_t len);
void qc_sha256_final(qc_sha256 *s, uint8_t digest[32]);

/* Digest of a buffer as 64 lowercase hex digits plus NUL. */
void qc_sha256_hex(const void *data, size_t len, char hex[65]);

/* Digest of a file's contents; returns 0, or -1 with errno set. */
int qc_sha256_file(const char *path, char hex[65]);
/* Digest of what is left to read of fd, which stays open; 0, or -1 with errno set. */
int qc_sha256_fd(int fd, char hex[65]);

#endif
