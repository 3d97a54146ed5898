/*
 * hypotheses: the catalogue of rules the diagnosis tries (hypotheses.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "judge/hypotheses.h"
#include "reference/qref.h"

/* What each named rounding changes, for the diagnosis's words (qref.h lists where each
 * applies). */
static const char *const rounding_rule[QREF_ROUND_COUNT] = {
        [QREF_ROUND_DOUBLE] =
                "LiteRT's default requantization build: SaturatingRoundingDoublingHighMul, "
                "then RoundingDivideByPOT (two roundings)",
        [QREF_ROUND_SINGLE] =
                "LiteRT's TFLITE_SINGLE_ROUNDING build: one rounding of the 64-bit product "
                "(ties up)",
        [QREF_ROUND_HALF_EVEN] = "ties to even",
        [QREF_ROUND_HALF_AWAY] = "ties away from zero",
        [QREF_ROUND_HALF_UP] = "ties toward +infinity (floor(v + 0.5))",
        [QREF_ROUND_HALF_DOWN] = "ties toward -infinity (ceil(v - 0.5))",
};

/* Does d reach semantics/op, op being the first ol characters of op? */
static int applies_n(const qc_variant_def *d, const char *semantics, const char *op, size_t ol)
{
	size_t sl = strlen(semantics);
	for (const char *p = d->ops; *p;) {
		size_t len = strcspn(p, " ");
		if (len == sl + 1 + ol && !strncmp(p, semantics, sl) && p[sl] == '/' &&
		    !strncmp(p + sl + 1, op, ol))
			return 1;
		p += len;
		p += *p == ' ';
	}
	return 0;
}

/* A chain's op is its nodes' ops joined by '+' (CONV_2D+RELU6): a variant reaches it when it
 * reaches one of them (taken in the chain's semantics). */
int qc_variant_applies(const qc_variant_def *d, const char *semantics, const char *op)
{
	if (!strcmp(d->ops, "*"))
		return 1;
	for (const char *p = op;;) {
		size_t len = strcspn(p, "+");
		if (applies_n(d, semantics, p, len))
			return 1;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int count_ops(const char *ops)
{
	if (!strcmp(ops, "*"))
		return 0;
	int n = 0;
	for (const char *p = ops; *p; p++)
		n += (p == ops || p[-1] == ' ') && *p != ' ';
	return n;
}

int qc_hyps_for(const char *semantics, const char *op, qc_hyp *out, int max)
{
	int n = 0;
	if (n < max) {
		memset(&out[n], 0, sizeof out[n]);
		out[n].kind = QC_HYP_REFERENCE;
		snprintf(out[n].id, sizeof out[n].id, "reference");
		snprintf(out[n].rule, sizeof out[n].rule,
		         "the reference: %s/%s as its semantics compute it", semantics, op);
		n++;
	}
	for (int r = QREF_ROUND_DOUBLE; r < QREF_ROUND_COUNT && n < max; r++) {
		memset(&out[n], 0, sizeof out[n]);
		out[n].kind = QC_HYP_ROUNDING;
		out[n].rounding = r;
		snprintf(out[n].id, sizeof out[n].id, "rounding:%s",
		         qref_rounding_name((qref_rounding)r));
		snprintf(out[n].rule, sizeof out[n].rule, "the reference with rounding '%s': %s",
		         qref_rounding_name((qref_rounding)r), rounding_rule[r]);
		out[n].n_ops = 1;
		n++;
	}
	for (int v = 0; v < qc_variant_count && n < max; v++) {
		const qc_variant_def *d = &qc_variant_table[v];
		if (!qc_variant_applies(d, semantics, op))
			continue;
		memset(&out[n], 0, sizeof out[n]);
		out[n].kind = QC_HYP_VARIANT;
		out[n].def = d;
		snprintf(out[n].id, sizeof out[n].id, "%s", d->id);
		snprintf(out[n].rule, sizeof out[n].rule, "%s", d->description);
		out[n].n_ops = count_ops(d->ops);
		n++;
	}
	return n;
}

int qc_variant_path(const qc_variant_def *d, char *path, size_t size)
{
	const char *dir = getenv("QCONFORM_VARIANTS");
	if (dir && *dir) {
		snprintf(path, size, "%s/%s.so", dir, d->id);
		return access(path, R_OK) == 0 ? 0 : -1;
	}
	char name[160], installed[192];
	snprintf(name, sizeof name, "variants/%s.so", d->id);
	snprintf(installed, sizeof installed, "lib/qconform/variants/%s.so", d->id);
	return qc_installed_path(name, installed, path, size);
}
