/*
 * qcbin: the offline files' bytes (harness/runner/qconform_case.h defines the format): the
 * CRC-32, a growing little-endian writer, a bounds-checked reader, the header check, and a
 * case's qcf_op_call as a case file.
 */
#ifndef QC_QCBIN_H
#define QC_QCBIN_H

#include <stddef.h>
#include <stdint.h>

#include "cases/cases.h"
#include "harness/runner/qconform_case.h"

/* CRC-32 (zlib's): qc_crc32(0, p, n) is the CRC of p[0..n); pass a CRC to continue it. */
/* A little-endian u32 at p. */
uint32_t qc_le32(const unsigned char *p);
/* A base64 character's value (RFC 4648 alphabet), or -1. */
int qc_b64_value(int ch);

uint32_t qc_crc32(uint32_t crc, const void *p, size_t n);

typedef struct qc_wbuf {
	unsigned char *p;
	size_t n, cap;
} qc_wbuf;

void qc_wb_bytes(qc_wbuf *w, const void *p, size_t n);
void qc_wb_u16(qc_wbuf *w, uint16_t v);
void qc_wb_u32(qc_wbuf *w, uint32_t v);
void qc_wb_u64(qc_wbuf *w, uint64_t v);
void qc_wb_f32(qc_wbuf *w, float v);
void qc_wb_f64(qc_wbuf *w, double v);
void qc_wb_str(qc_wbuf *w, const char *s); /* NULL: "" */
/* Starts a file or record of kind magic (its 32-byte header, total_bytes set by finish). */
void qc_wb_header(qc_wbuf *w, const char *magic, uint32_t index);
/* The same for a file of format version `format` (import re-encodes an older export's cases). */
void qc_wb_header_v(qc_wbuf *w, const char *magic, uint32_t index, unsigned format);
/* Sets total_bytes and appends the CRC-32. */
void qc_wb_finish(qc_wbuf *w);
void qc_wb_free(qc_wbuf *w);

typedef struct qc_rbuf {
	const unsigned char *p;
	size_t n, at;
	int bad; /* a read went past the end */
} qc_rbuf;

uint8_t qc_rb_u8(qc_rbuf *r);
uint32_t qc_rb_u32(qc_rbuf *r);
uint64_t qc_rb_u64(qc_rbuf *r);
double qc_rb_f64(qc_rbuf *r);
/* The next str as a malloc'd NUL-terminated copy ("" after a bad read). */
char *qc_rb_str(qc_rbuf *r);
/* n bytes in place (NULL after a bad read). */
const unsigned char *qc_rb_bytes(qc_rbuf *r, size_t n);

/*
 * Checks bytes p[0..n) as a file or record of kind magic: the header, its size, the CRC, the
 * format version and, with same_qconform, the qconform version that wrote it. 0, with the
 * header's index, the qconform version (17 bytes) and r set on the body; or -1 and a reason
 * ("truncated: 100 of 120 bytes", "fails its CRC-32", "format version 2, this qconform
 * reads 1", "written by qconform 0.2.0, this is 0.1.0").
 */
int qc_bin_open(const unsigned char *p, size_t n, const char *magic, int same_qconform,
                uint32_t *index, char version[QCF_VERSION_BYTES + 1], qc_rbuf *r, char *err,
                size_t err_size);

/* A file's format version (0: too short to say). qc_bin_open takes QCF_FORMAT_VERSION_OLDEST
 * to QCF_FORMAT_VERSION: a reader that needs one version checks it. */
unsigned qc_bin_format(const unsigned char *p, size_t n);

/* The case's call (inputs and the outputs' initial bytes as they are now) as a case file of
 * format version `format`: from 4 with a chain's intermediates (their bytes as they are now)
 * and nodes; 3 writes a chain as its call alone, as an export of format 3 did. */
void qc_case_encode(const qc_case *c, uint32_t index, unsigned format, qc_wbuf *w);
/* Whether the case fits a case file (QCF_CASE_MAX_TENSORS, _ATTRS, _NODES): 0, or -1 and why. */
int qc_case_fits(const qc_case *c, char *why, size_t why_size);

/* A regular file whole, at most max_bytes (harness/src/base/rfile.h: qc_read_regular). NULL with
 * "path: reason" in err. */
unsigned char *qc_read_whole(const char *path, uint64_t max_bytes, const char *what, size_t *n,
                             char *err, size_t err_size);

#endif
