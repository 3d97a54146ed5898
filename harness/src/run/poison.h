/*
 * poison: what a case's output buffers hold before the kernel runs (cases -> outputs).
 *
 * A kernel that returns QCF_OK and leaves an output unwritten must fail, and be named for
 * what it did. So every element of an output starts as a value the answer cannot be: the
 * expected element with its top bit flipped (integers: 128 LSB away for int8, 2^15 for int16,
 * 2^30 for int32; int4 nibbles 8 away), a NaN for floats (a large finite value where the
 * answer is NaN), for bool the byte 0xa5 (the ABI's bools are 0 and 1). Without an expected answer,
 * a fixed pattern that varies by element.
 */
#ifndef QC_POISON_H
#define QC_POISON_H

#include <stddef.h>
#include <stdint.h>

#include "qconform/plugin.h"

/* Fills out->data (out->nbytes) with the poison for the answer `expected` (NULL: none). */
void qc_poison_fill(const qcf_tensor *out, const qcf_tensor *expected);

/*
 * Elements of got that still hold the poison (bit for bit) where the answer differs:
 * returns how many, and the first in *first. poison is the buffer qc_poison_fill filled.
 * Elements whose answer is any value (any[i] set; any may be NULL) are not counted: the
 * poison is a legal answer there, and a kernel may well compute it (a clamp to the type's
 * end, for one).
 */
size_t qc_poison_left(const qcf_tensor *poison, const qcf_tensor *got, const qcf_tensor *expected,
                      const uint8_t *any, size_t *first);

#endif
