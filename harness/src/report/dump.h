/*
 * dump: a failing case's data on disk (run --dump DIR), for a vendor to
 * reproduce outside qconform.
 *
 * Per case, DIR/<case-dir>/ holds input_<name>.npy, expected_<name>.npy (the
 * reference's outputs, or the published golden values), got_<name>.npy (the
 * kernel's outputs, when it produced any) and case.yaml, a standalone spec
 * with the data written out that `qconform run case.yaml` judges the same
 * way. DIR/index.txt lists "case name -> directory"; DIR/README.txt says how
 * the dtypes map to NumPy. Only counters are kept between cases.
 */
#ifndef QC_DUMP_H
#define QC_DUMP_H

#include <stdio.h>

#include "judge/compare.h"
#include "qconform/plugin.h"

#define QC_DUMP_MAX_DEFAULT 100

typedef struct qc_dump qc_dump;

/*
 * Creates DIR (and its parents) and its index. plugin: the --plugin path as
 * given (NULL: the built reference), with its options, for the reproduce
 * command. NULL and a one-line reason in err on failure.
 */
qc_dump *qc_dump_open(const char *dir, long max_cases, const char *plugin,
                      const qcf_option *options, int n_options, char *err, size_t err_size);

/*
 * Writes one failing case: e is the reference's answer, kernel_out the
 * kernel's outputs (NULL when it produced none). 1 written, 0 over the cap,
 * -1 on a write error (reason in err).
 */
int qc_dump_case(qc_dump *d, const qc_case *c, const qc_expected *e, const qcf_tensor *kernel_out,
                 const qc_result *r, char *err, size_t err_size);

/* The command that writes the cases (a static string), for their case.yaml's description
 * (default "qconform run --dump"). */
void qc_dump_by(qc_dump *d, const char *by);

/* Prints what was written and where; closes the index. 0, or -1 if any write failed. */
int qc_dump_close(qc_dump *d, FILE *console);

/*
 * The .npy (format 1.0) header of an array of NumPy type descr ("<f4") and
 * this shape: magic, version, header length, the dict padded with spaces and
 * a newline to a multiple of 64 bytes. Returns its length (at most size), or
 * 0 if it does not fit.
 */
size_t qc_npy_header(char *buf, size_t size, const char *descr, int rank, const int64_t *shape);

/*
 * Writes tensor t as a .npy file: int4/uint4 unpacked to int8/uint8, bfloat16
 * widened to float32 (NumPy has no bfloat16). 0, or -1 (reason in err).
 */
int qc_npy_write(const char *path, const qcf_tensor *t, char *err, size_t err_size);

/* The NumPy descr a dtype is written as ("|i1", "<f4", ...). */
const char *qc_npy_descr(qcf_dtype t);

#endif
