/*
 * certify: `qconform certify --profile NAME [--extension X ...] --plugin PATH [--out DIR]` runs
 * a certification profile exactly as `qconform run --profile NAME --extension X` does
 * (qc_cmd_run: the base and the declared extensions; the cases of the others are not run),
 * reads the run's JSON report back and decides: CERTIFIED only if, in the base and in each
 * declared extension, every required op ran with at least one case and none NOT_SUPPORTED (a
 * reason names the op, the count and the first refused case with the plugin's message) and the
 * class has at least its min_cases; every verdict is allowed (failures a waiver accepts count as
 * allowed and are listed) and no waiver expired. Writes DIR/certificate.json (format
 * "qconform-certificate", version 2: profile.covers names the base and the extensions it covers;
 * schema in reports/schema/certificate.schema.json) and DIR/certificate.html (the run's HTML
 * report with the certificate section on top). Exit 0 certified, 1 not certified, 2 usage,
 * spec or plugin error (no certificate).
 */
#ifndef QC_CERTIFY_H
#define QC_CERTIFY_H

#include <jansson.h>

#include "report/report_read.h"
#include "run/run.h"

#define QC_CERTIFICATE_FORMAT 3

/*
 * The decision on a report read back (qc_report_read): a new array of reasons, one string
 * each; empty when the report certifies its profile. A report without a profile section, or of
 * a filtered or sharded run, does not certify.
 */
json_t *qc_certify_reasons(json_t *report);

/* Where a profile file came from, for the certificate (all may be NULL). */
typedef struct qc_certify_profile_file {
	const char *path;
	const char *sha256;
	const char *description;
} qc_certify_profile_file;

/*
 * The certificate of a report (README.md, "Certificates"): the decision with its reasons,
 * the profile, verdict counts, waived cases, plugin identity, suite version, spec hashes,
 * host, seed, times, and the path and sha256 of the report (the evidence), from one pass
 * over the report's cases. A new object, or NULL with the reason in err when a case cannot
 * be read.
 */
json_t *qc_certificate_build(qc_report *report, const char *report_path, const char *report_sha256,
                             const qc_certify_profile_file *pf, char *err, size_t errsz);

/* certify --import DIR [--outputs PATH] ...: an offline run's export directories (the shards
 * of one export, or one) and their runner's records (NULL: DIR/outputs). */
#define QC_MAX_IMPORTS 256
typedef struct qc_certify_imports {
	const char *dirs[QC_MAX_IMPORTS], *outputs[QC_MAX_IMPORTS];
	int n;
} qc_certify_imports;

#endif
