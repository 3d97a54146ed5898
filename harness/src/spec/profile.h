/*
 * profile: certification profiles. A profile file (specs/profiles/NAME.yaml) names a base,
 * what every conforming kernel must do, and optional extensions a kernel may declare, each with
 * the ops a certification needs and the fewest cases it may have, so that a suite that
 * silently lost specs or sweep points cannot certify (specs/README.md, "Profiles"):
 *
 *   qconform_profile: 2
 *   name: litert-int8
 *   description: ...
 *   base:
 *     description: ...
 *     required_ops: [litert/QUANTIZE, litert/DEQUANTIZE]
 *     min_cases: 500
 *   extensions:
 *     int16x8:
 *       description: ...
 *       match:
 *         - tensor: {dtype: int16, quantized: true}
 *       min_cases: 100
 *
 * Every case of the profile's specs belongs to the base or to exactly one extension: the
 * extension one of whose match rules it meets (qc_profile_classify), else the base. Format 1
 * (required_ops and min_cases at the top, no extensions) still loads: its base is every case.
 */
#ifndef QC_PROFILE_H
#define QC_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "qconform/plugin.h"
#include "spec/spec.h"

#define QC_PROFILE_FORMAT      2
#define QC_PROFILE_MAX_OPS     128
#define QC_PROFILE_MAX_EXT     16
#define QC_PROFILE_MAX_RULES   16
#define QC_PROFILE_MAX_VALUES  16
#define QC_PROFILE_MAX_TENSORS 4

/* A condition on one tensor: every field given must hold (-1: not given). */
typedef struct qc_profile_tensor {
	qcf_dtype dtypes[QC_PROFILE_MAX_VALUES];
	int n_dtypes;
	char *names[QC_PROFILE_MAX_VALUES]; /* globs on the tensor's name */
	int n_names;
	int quantized, per_axis, blocked; /* 1, 0, or -1 */
} qc_profile_tensor;

/* One match rule: some tensor meets each of tensor[], none meets any of no_tensor[], the
 * case's "semantics/OP" matches one of op[] (if given) and none of no_op[], and each attr holds
 * one of its values. */
typedef struct qc_profile_rule {
	qc_profile_tensor tensor[QC_PROFILE_MAX_TENSORS];
	int n_tensor;
	qc_profile_tensor no_tensor[QC_PROFILE_MAX_TENSORS];
	int n_no_tensor;
	char *ops[QC_PROFILE_MAX_VALUES];
	int n_ops;
	char *no_ops[QC_PROFILE_MAX_VALUES];
	int n_no_ops;
	struct {
		char *name;
		char *values[QC_PROFILE_MAX_VALUES];
		int n_values;
	} attrs[QC_PROFILE_MAX_VALUES];
	int n_attrs;
	size_t line, column; /* where it is written (1-based) */
} qc_profile_rule;

typedef struct qc_profile_ext {
	char *name;
	char *description;
	char *ops[QC_PROFILE_MAX_OPS]; /* its required ops: given, or filled by the run */
	int n_ops;
	int ops_given;
	uint64_t min_cases;
	qc_profile_rule rules[QC_PROFILE_MAX_RULES];
	int n_rules;
	size_t line, column;
} qc_profile_ext;

typedef struct qc_profile {
	char *path;
	char *name;
	char *description;
	int format; /* 1 or 2 */
	/* the base */
	char *base_description;
	char *ops[QC_PROFILE_MAX_OPS]; /* "semantics/OP" */
	int n_ops;
	uint64_t min_cases;
	qc_profile_ext ext[QC_PROFILE_MAX_EXT];
	int n_ext;
	/* "reported" or "accelerator": every judged case must be reported by the plugin to have
	 * run on an engine it names (any), or on one that is not the CPU; NULL: no requirement */
	char *require_engine;
} qc_profile;

/* Is s a require_engine value ("reported", "accelerator")? */
int qc_require_engine_valid(const char *s);
/* The stricter of two requirements (accelerator, then reported, then NULL): an option never
 * loosens what a profile requires. */
const char *qc_require_engine_stricter(const char *a, const char *b);

/* Loads one profile file; NULL (errors in diag) on failure. */
qc_profile *qc_profile_load(const char *path, qc_diag *diag);
void qc_profile_free(qc_profile *p);

/* The profile named `name` among n, or NULL. */
const qc_profile *qc_profile_find(qc_profile *const *profiles, int n, const char *name);

/* The extension named `name` (its index), or -1. */
int qc_profile_ext_index(const qc_profile *p, const char *name);

/*
 * The class of a case (its call): 0 the base, k + 1 extension k. A case meeting rules of two
 * extensions gives -1, with the two (extension index, rule index) pairs in first[2] and second[2].
 * Rule hits are counted in hits (per extension, per rule; may be NULL).
 */
int qc_profile_classify(const qc_profile *p, const qcf_op_call *c, int first[2], int second[2],
                        uint64_t hits[][QC_PROFILE_MAX_RULES]);

/* "base", or the extension's name, of class k. */
const char *qc_profile_class_name(const qc_profile *p, int k);

/* libyaml helpers of the small YAML files (profiles, waivers: harness/src/judge/waivers.c). */
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
