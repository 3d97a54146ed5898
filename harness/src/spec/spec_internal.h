/*
 * spec_internal: what the files of spec/ share among themselves and no other folder uses
 * (spec.h is the folder's interface).
 */
#ifndef QC_SPEC_INTERNAL_H
#define QC_SPEC_INTERNAL_H

#include "spec/spec.h"

/* A spec being checked (spec_check.c), as loading it makes one (spec.c). */
typedef struct checker {
	qc_spec *s;
	qc_diag *d;
	const qc_spec *src; /* qc_spec_copy: the spec the text was loaded as, or NULL */
} checker;

/* Checks the structure of c->s's YAML document, filling c->s's fields from it; errors and
 * warnings go to c->d. */
void qc_spec_check(checker *c);

#endif
