/* qconform certify: a profile judged on a live or an offline run, and its certificate. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/digest.h"
#include "cmd/commands.h"
#include "offline/import.h"
#include "report/report_html.h"

/* The profile file the run used, found where the run finds it (run/plan.c qc_plan_load:
 * profiles/ directories under the spec paths, else specs/profiles). NULL if not found. */
static qc_profile *find_profile(const qc_run_opts *o)
{
	char *def[] = {"specs"}, *def_profiles[] = {"specs/profiles"};
	char **files = NULL, **pfiles = NULL;
	int n_pfiles = 0;
	FILE *devnull = fopen("/dev/null", "w");
	qc_diag diag = {0, 0, devnull ? devnull : stderr};
	int n = qc_spec_find(o->n_paths ? o->paths : def, o->n_paths ? o->n_paths : 1, &files,
	                     &pfiles, &n_pfiles, &diag);
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(files);
	if (!n_pfiles && access(def_profiles[0], F_OK) == 0) {
		char **none = NULL;
		free(pfiles);
		qc_spec_find(def_profiles, 1, &none, &pfiles, &n_pfiles, &diag);
		free(none);
	}
	qc_profile *found = NULL;
	for (int i = 0; i < n_pfiles; i++) {
		qc_profile *p = found ? NULL : qc_profile_load(pfiles[i], &diag);
		if (p && !strcmp(p->name, o->profile))
			found = p;
		else
			qc_profile_free(p);
		free(pfiles[i]);
	}
	free(pfiles);
	if (devnull)
		fclose(devnull);
	return found;
}

static int write_json(json_t *doc, const char *path)
{
	qc_afile af;
	char err[1200];
	if (qc_afile_open(&af, path, err, sizeof err) != 0) {
		fprintf(stderr, "qconform certify: %s\n", err);
		return -1;
	}
	if (json_dumpf(doc, af.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
		fprintf(stderr, "qconform certify: %s: cannot write: %s\n", path, strerror(errno));
		qc_afile_abort(&af);
		return -1;
	}
	fputc('\n', af.f); /* a final newline, as the other files */
	if (qc_afile_commit(&af, err, sizeof err) != 0) {
		fprintf(stderr, "qconform certify: %s\n", err);
		return -1;
	}
	return 0;
}

/* The export must be the profile with the declared extensions, whole: 0, or 2 (said why). */
static int import_is_profile(const qc_import *im, const qc_run_opts *in)
{
	const char *const *ext;
	int n_ext, filtered;
	qc_import_extensions(im, &ext, &n_ext, &filtered);
	const char *prof = qc_import_profile(im);
	if (strcmp(prof, in->profile))
		return fprintf(stderr,
		               "qconform certify: the export is %s%s%s, not profile %s: export "
		               "with --profile %s\n",
		               prof[0] ? "of profile " : "not of a profile", prof,
		               prof[0] ? "" : " (no --profile)", in->profile, in->profile),
		       2;
	int same = n_ext == in->n_extensions;
	for (int i = 0; same && i < n_ext; i++)
		same = !strcmp(ext[i], in->extensions[i]);
	if (!same)
		return fprintf(stderr,
		               "qconform certify: the export's --extension list is not this "
		               "certificate's (export with the same --extension options, in the "
		               "same order)\n"),
		       2;
	if (filtered)
		return fprintf(stderr,
		               "qconform certify: the export selects part of the profile "
		               "(--filter, "
		               "--case, or one shard without the others): a certificate judges all "
		               "of it (import every shard: --import DIR1 --import DIR2 ...)\n"),
		       2;
	return 0;
}

/* The run (or the import im) and its certificate. */
static int certify(const qc_run_opts *in, const char *out_dir, qc_import *im)
{
	qc_run_opts o = *in;
	char json_path[1100], html_path[1100], junit_path[1100], written[1100] = "";
	if (out_dir) {
		int n = (int)strlen(out_dir);
		while (n > 1 && out_dir[n - 1] == '/')
			n--;
		snprintf(json_path, sizeof json_path, "%.*s/report.json", n, out_dir);
		snprintf(html_path, sizeof html_path, "%.*s/report.html", n, out_dir);
		snprintf(junit_path, sizeof junit_path, "%.*s/report.junit.xml", n, out_dir);
		o.json_path = json_path;
		o.html_path = html_path;
		o.junit_path = junit_path;
	}
	o.json_written = written;
	o.json_written_size = sizeof written;
	if (im) { /* the export's selection and the runner's options */
		o.n_filters = o.n_extensions = o.n_options = 0;
		qc_import_run_opts(im, &o);
	}
	int run_rc = qc_cmd_run(&o);
	if (run_rc >= 128 && written[0]) {
		/* a signal stopped the run: the certificate says why it refuses, then the exit
		 * status is the run's (130, 143, 129) */
		printf("the run was interrupted: the certificate refuses it\n");
	} else if (run_rc == 2 || !written[0]) {
		fprintf(stderr, "qconform certify: the run stopped (exit 2); no certificate\n");
		return 2;
	}
	char err[1200], sha[65];
	qc_report *report = qc_report_open(written, err, sizeof err);
	if (!report) {
		fprintf(stderr, "qconform certify: %s\n", err);
		return 2;
	}
	if (qc_sha256_file(written, sha) != 0) {
		fprintf(stderr, "qconform certify: %s: %s\n", written, strerror(errno));
		qc_report_close(report);
		return 2;
	}
	qc_profile *prof = find_profile(&o);
	char prof_sha[65] = "";
	if (prof && qc_sha256_file(prof->path, prof_sha) != 0)
		prof_sha[0] = 0;
	if (prof && prof->description) {
		/* a folded YAML scalar ends in a newline */
		size_t n = strlen(prof->description);
		while (n && (prof->description[n - 1] == '\n' || prof->description[n - 1] == ' '))
			prof->description[--n] = 0;
	}
	qc_certify_profile_file pf = {prof ? prof->path : NULL, prof_sha[0] ? prof_sha : NULL,
	                              prof ? prof->description : NULL};
	json_t *cert = qc_certificate_build(report, written, sha, &pf, err, sizeof err);
	qc_profile_free(prof);
	if (!cert) {
		fprintf(stderr, "qconform certify: %s\n", err);
		qc_report_close(report);
		return 2;
	}

	/* beside the report: DIR/ or reports/out/<plugin>/ */
	size_t dl = strrchr(written, '/') ? (size_t)(strrchr(written, '/') - written) + 1 : 0;
	char cjson[1200], chtml[1200];
	snprintf(cjson, sizeof cjson, "%.*scertificate.json", (int)dl, written);
	snprintf(chtml, sizeof chtml, "%.*scertificate.html", (int)dl, written);
	int rc = write_json(cert, cjson) == 0 ? 0 : 2;
	if (rc == 0 && qc_html_write_cert(report, cert, written, chtml, err, sizeof err) != 0) {
		fprintf(stderr, "qconform certify: %s\n", err);
		rc = 2;
	}
	int certified = json_is_true(json_object_get(cert, "certified"));
	json_t *reasons = json_object_get(cert, "reasons");
	size_t i;
	json_t *x;
	printf("certificate: %s\n", certified ? "CERTIFIED" : "NOT CERTIFIED");
	json_t *cov = json_object_get(json_object_get(cert, "profile"), "covers");
	printf("  profile %s: ", o.profile);
	json_array_foreach(cov, i, x) printf("%s%s", i ? ", " : "", json_string_value(x));
	json_t *plug = json_object_get(cert, "plugin"), *plat = json_object_get(plug, "platform");
	int dev = !strcmp(qc_json_str(plug, "sha256_source"), "device");
	json_t *off = json_object_get(cert, "offline");
	if (off)
		printf("\n  plugin %s %s, ABI %lld (REPORTED BY THE DEVICE: what its %s runner of "
		       "qconform %s recorded)\n  offline: the outputs are the runner's records "
		       "(sha256 %s, computed by the harness), %lld case(s) aborted by the device "
		       "or the feed, %lld started and never answered\n",
		       qc_json_str(plug, "name"), qc_json_str(plug, "version"),
		       (long long)json_integer_value(json_object_get(plug, "abi_version")),
		       qc_json_str(off, "runner_mode"), qc_json_str(off, "runner_version"),
		       qc_json_str(plug, "sha256"),
		       (long long)json_integer_value(json_object_get(off, "aborted")),
		       (long long)json_integer_value(json_object_get(off, "judged_unanswered")));
	else
		printf("\n  plugin %s %s (sha256 %s%s)\n", qc_json_str(plug, "name"),
		       qc_json_str(plug, "version"), qc_json_str(plug, "sha256"),
		       dev ? ", REPORTED BY THE DEVICE: not verified by the harness" : "");
	if (plat && off)
		printf("  ran on: not recorded (the offline runner records no platform)\n");
	else if (plat)
		printf("  ran on %s, %s%s%s (%s)\n",
		       *qc_json_str(plat, "machine") ? qc_json_str(plat, "machine") : "?",
		       *qc_json_str(plat, "system") ? qc_json_str(plat, "system") : "?",
		       *qc_json_str(plat, "cpu") ? ", " : "", qc_json_str(plat, "cpu"),
		       !strcmp(qc_json_str(plat, "source"), "device")
		               ? "REPORTED BY THE DEVICE"
		               : "seen by the harness's own worker");
	if (plat && *qc_json_str(plat, "emulation"))
		printf("  %s\n", qc_json_str(plat, "emulation"));
	json_t *engines = json_object_get(cert, "engines");
	if (json_is_object(engines)) {
		/* the plugin's word (engine()), never checked by the harness */
		printf("  engines, REPORTED BY THE PLUGIN (judged cases):");
		const char *kind;
		json_t *n;
		int k = 0;
		json_object_foreach(engines, kind, n) printf("%s %s %lld", k++ ? "," : "", kind,
		                                             (long long)json_integer_value(n));
		const char *req = qc_json_str(cert, "require_engine");
		printf("%s%s\n", *req ? "; required: " : "", req);
	}
	json_array_foreach(reasons, i, x) printf("  not certified: %s\n", json_string_value(x));
	if (json_array_size(json_object_get(cert, "waived")))
		printf("  %zu failing case%s accepted by waivers (listed on the certificate)\n",
		       json_array_size(json_object_get(cert, "waived")),
		       json_array_size(json_object_get(cert, "waived")) == 1 ? "" : "s");
	if (rc == 0)
		printf("certificate: %s\ncertificate html: %s\n", cjson, chtml);
	json_decref(cert);
	qc_report_close(report);
	if (run_rc >= 128)
		return run_rc;
	return rc ? rc : certified ? 0 : 1;
}

int qc_cmd_certify(const qc_run_opts *in, const char *out_dir, const qc_certify_imports *imports)
{
	if (!in->profile)
		return fprintf(stderr, "qconform certify: needs --profile NAME\n"), 2;
	if (imports && imports->n && (in->plugin || in->remote || in->n_options))
		return fprintf(stderr, "qconform certify: --import judges the runner's records of "
		                       "an offline run: no --plugin, --remote or --plugin-option "
		                       "(the runner recorded its plugin and options)\n"),
		       2;
	if (imports && imports->n && in->repeat > 1)
		return fprintf(stderr, "qconform certify: --import judges the one run the records "
		                       "hold: no --repeat\n"),
		       2;
	if (!in->plugin && !(imports && imports->n))
		return fprintf(stderr, "qconform certify: needs --plugin PATH (the kernel to "
		                       "certify), or --import DIR (an offline run's export and "
		                       "records)\n"),
		       2;
	if (in->n_filters || in->n_case_names || in->shard_count)
		return fprintf(stderr,
		               "qconform certify: %s selects part of the profile; a "
		               "certificate runs all of it (use run for a partial run)\n",
		               in->n_filters      ? "--filter"
		               : in->n_case_names ? "--case"
		                                  : "--shard"),
		       2;
	if (in->json_path || in->html_path || in->junit_path)
		return fprintf(stderr, "qconform certify: the report goes to --out DIR "
		                       "(report.json, report.html, certificate.json, "
		                       "certificate.html); no --json, --html or --junit\n"),
		       2;
	if (in->baseline)
		return fprintf(stderr, "qconform certify: --baseline gates CI runs; a certificate "
		                       "judges one run on its own (use run --baseline)\n"),
		       2;
	qc_import *im = NULL;
	if (imports && imports->n) {
		char ierr[2048];
		if (!(im = qc_import_open(imports->dirs, imports->outputs, imports->n, ierr,
		                          sizeof ierr)))
			return fprintf(stderr, "qconform certify: %s\n", ierr), 2;
		int prc = import_is_profile(im, in);
		if (prc) {
			qc_import_close(im);
			return prc;
		}
	}
	int rc = certify(in, out_dir, im);
	qc_import_close(im);
	return rc;
}
