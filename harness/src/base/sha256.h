/*
 * SHA-256 (FIPS 180-4), used to fingerprint the plugin under test in the
 * reports.
 */
#ifndef QC_SHA256_H
#define QC_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct qc_sha256 {
	uint32_t h[8];
	uint64_t total; /* bytes hashed so far */
	uint8_t block[64];
	size_t used; /* bytes waiting in block */
} qc_sha256;

void qc_sha256_init(qc_sha256 *s);
void qc_sha256_update(qc_sha256 *s, const void *data, size_t len);
void qc_sha256_final(qc_sha256 *s, uint8_t digest[32]);

/* Digest of a buffer as 64 lowercase hex digits plus NUL. */
void qc_sha256_hex(const void *data, size_t len, char hex[65]);

/* Digest of a file's contents; returns 0, or -1 with errno set. */
int qc_sha256_file(const char *path, char hex[65]);

#endif
