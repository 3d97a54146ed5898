/*
 * profile: certification profiles. A profile file (specs/profiles/NAME.yaml)
 * names the ops a certification needs and the fewest cases it may have, so
 * that a suite that silently lost specs or sweep points cannot certify:
 *
 *   qconform_profile: 1
 *   name: litert-int8
 *   description: ...
 *   required_ops: [litert/QUANTIZE, litert/DEQUANTIZE]
 *   min_cases: 500
 */
#ifndef QC_PROFILE_H
#define QC_PROFILE_H

#include <stdint.h>

#include "spec.h"

#define QC_PROFILE_FORMAT  1
#define QC_PROFILE_MAX_OPS 128

typedef struct qc_profile {
	char *path;
	char *name;
	char *description;
	char *ops[QC_PROFILE_MAX_OPS]; /* "semantics/OP" */
	int n_ops;
	uint64_t min_cases;
} qc_profile;

/* Loads one profile file; NULL (errors in diag) on failure. */
qc_profile *qc_profile_load(const char *path, qc_diag *diag);
void qc_profile_free(qc_profile *p);

/* The profile named `name` among n, or NULL. */
const qc_profile *qc_profile_find(qc_profile *const *profiles, int n, const char *name);

#endif
