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
#include <stdio.h>

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

/* libyaml helpers of the small YAML files (profiles, waivers: harness/src/waivers.c). */
/* Reads path and loads its document within the limits of qc_limits.h (qc_yaml_load_file);
 * an error is reported to diag as "path:line:column: message" (counted) and gives 0. */
int qc_yaml_load(const char *path, const char *what, yaml_document_t *doc, qc_diag *diag);
/* The scalar under key in a mapping (NULL if absent or not a scalar); *node gets the value. */
const char *qc_yaml_scalar_at(yaml_document_t *doc, yaml_node_t *map, const char *key,
                              yaml_node_t **node);
/* Reports every key of map not in keys (NULL-terminated): "unknown key 'K' in WHAT (LIST)". */
void qc_yaml_check_keys(yaml_document_t *doc, yaml_node_t *map, const char *const *keys,
                        const char *what, const char *list, const char *path, qc_diag *diag);

#endif
