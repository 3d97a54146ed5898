/*
 * variants: a set of cases through one plugin of the catalogue of variants
 * (harness/src/judge/hypotheses.h), for the diagnosis: the outputs each variant computes.
 */
#ifndef QC_VARIANTS_H
#define QC_VARIANTS_H

#include <stddef.h>

#include "cases/cases.h"
#include "judge/diagnose.h"

/*
 * Runs cases[0..n) through the plugin at path in a worker of its own (no sandbox: the
 * variants are the reference's code), timeout_s per case. For each case i that ran
 * (ok[i] = 1) the outputs are copied into out[i * QC_MAX_TENSORS + k] (the caller's buffers,
 * of cases[i]->out[k].nbytes each); a case the variant refuses, crashes on or times out in has
 * ok[i] = 0. Returns 0, or -1 with a one-line reason in err when no worker could load it.
 */
int qc_variant_outputs(const char *path, double timeout_s, qc_case *const *cases, int n,
                       void *const *out, int *ok, char *err, size_t err_size);

/*
 * Computes every hypothesis of every op of D that has failing cases kept (every op with cases
 * kept, for the datasheet), on each of its cases (the reference's answer, the reference under
 * a named rounding, a variant's plugin in a worker), scores them (qc_diagnosis_score) and
 * ranks them (qc_diagnosis_finish). A variant whose plugin is not found counts as refusing
 * its cases; the op's err says how many.
 */
void qc_diagnosis_compute(qc_diagnosis *D, int datasheet);

#endif
