/*
 * expected: the reference's answer for a case: its outputs (or the rule it
 * refuses), what it knows of each element (unpredictable, grid step), the
 * band of legal roundings when the tolerance names them, and the check
 * against published golden values.
 */
#ifndef QC_EXPECTED_H
#define QC_EXPECTED_H

#include "cases/cases.h"
#include "reference/qref.h"

/* The reference's answer for a case. */
typedef struct qc_expected {
	qcf_status status;              /* QCF_OK or QCF_INVALID_PARAM (or an internal failure) */
	qcf_tensor out[QC_MAX_TENSORS]; /* the reference's outputs (goldens are checked against
	                                   them) */
	qref_detail detail;
	double *band_lo[QC_MAX_TENSORS]; /* rounding tolerance: per element, the lowest and */
	double *band_hi[QC_MAX_TENSORS]; /* highest output of the legal roundings (or NULL) */
	double *errors[QC_MAX_TENSORS];  /* custom check: scratch for e per element (or NULL) */
	/* a chain: the reference's intermediates (decomposed, default rounding) and, for the
	 * round_once contract, the fused form's outputs (NULL otherwise) */
	int n_mid;
	void *mid[QC_MAX_TENSORS];
	void *fused[QC_MAX_TENSORS];
	int golden_mismatch; /* a published golden value lies outside what the reference accepts */
	char golden_note[256];
} qc_expected;

/*
 * Runs the reference on c. Never NULL: a refusal is in ->status and
 * ->detail.message. A rounding the op does not have (a spec error, also
 * caught by validation) makes ->status QCF_NOT_SUPPORTED with the reason.
 */
qc_expected *qc_expected_new(const qc_case *c, char *err, size_t err_size);
void qc_expected_free(qc_expected *e, int n_outputs);

/*
 * The reference's outputs for c under named rounding `rounding` (a qref_rounding), into
 * out[k] (buffers of c->out[k].nbytes): QCF_OK, or the reference's status when the op has no
 * such rounding or refuses the case (its message in msg).
 */
qcf_status qc_expected_rounding(const qc_case *c, int rounding, void *const *out, char *msg,
                                size_t msg_size);

/* Share of quantized output k at either end of its dtype's range (0 for float outputs). */
double qc_expected_saturation(const qc_case *c, const qc_expected *e, int k);

/* What only the reference's answer tells about a spec: a rounding the op does not have, a case
 * whose outputs saturate more than the spec allows. The node to report at, with the message in
 * msg; NULL when the case is sound. */
const yaml_node_t *qc_expected_spec_error(const qc_case *c, const qc_expected *e, char *msg,
                                          size_t size);

/*
 * The spec's custom check of case c (tolerance: {check: {lua: ...}}) over output k: the
 * reference's answer in e against got (the kernel's output k, or the reference's own for a
 * trial), in the Lua state L. 0 with *ok (and the check's reason in why), or -1 with the Lua
 * error in err and in *at the node of the chunk's failing line.
 */
int qc_expected_check(struct qc_lua *L, const qc_case *c, const qc_expected *e, int k,
                      const qcf_tensor *got, int *ok, char *why, size_t why_size, char *err,
                      size_t err_size, yaml_node_t *at);

#endif
