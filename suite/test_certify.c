/*
 * qconform certify (harness/src/gate/certify.c): the reference certifies the profiles; a plugin
 * that declines a required op, one that fails cases, a suite below the profile's min_cases
 * and a filtered run are refused with the reason; the certificate matches its schema
 * (reports/schema/certificate.schema.json) and names the report it was made from by sha256.
 */
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "gate/certify.h"
#include "qct.h"
#include "report/report_read.h"
#include "spec/profile.h"

#define CERT_SCHEMA "reports/schema/certificate.schema.json"

static const char *certify_path(const char *dir, const char *sub, const char *file)
{
	static char buf[4][1024];
	static int next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s/%s", dir, sub, file);
	return b;
}

/*
 * Runs `qconform certify --quiet --out TMP/SUB ARGS`; returns the certificate (NULL when none
 * was written) after checking what every certificate must hold: it matches its schema, its
 * report is TMP/SUB/report.json with that file's sha256, and certified is false exactly when
 * there are reasons. p gets the process (free it).
 */
static json_t *certify(const char *tmp, const char *sub, qct_proc *p, const char *args)
{
	const char *out = certify_path(tmp, sub, "");
	CU_ASSERT_FATAL(qct_sh(p, "%s certify --quiet --out %s %s", qct_build_path("qconform"), out,
	                       args) == 0);
	const char *cpath = certify_path(tmp, sub, "certificate.json");
	if (access(cpath, F_OK) != 0)
		return NULL;
	json_error_t e;
	json_t *c = json_load_file(cpath, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	qct_validate_json_later(CERT_SCHEMA, cpath, args);
	/* the evidence: the report file, by path and sha256 */
	const char *rpath = certify_path(tmp, sub, "report.json");
	json_t *ev = json_object_get(c, "report");
	char sha[65] = "";
	CU_ASSERT_EQUAL(qc_sha256_file(rpath, sha), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ev, "sha256")), sha);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ev, "path")), rpath);
	int certified = json_is_true(json_object_get(c, "certified"));
	CU_ASSERT_EQUAL(certified, json_array_size(json_object_get(c, "reasons")) == 0);
	CU_ASSERT_EQUAL(p->status, certified ? 0 : 1);
	return c;
}

/* Does the certificate give this reason (exactly)? */
static int has_reason(json_t *c, const char *want)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(c, "reasons"), i, r)
	{
		if (!strcmp(json_string_value(r), want))
			return 1;
	}
	fprintf(stderr, "\nreason not given: %s\n", want);
	return 0;
}

/* Does the certificate give a reason that starts with prefix and ends with suffix? */
static int has_reason_prefix(json_t *c, const char *prefix, const char *suffix)
{
	size_t i, pl = strlen(prefix), sl = strlen(suffix);
	json_t *r;
	json_array_foreach(json_object_get(c, "reasons"), i, r)
	{
		const char *s = json_string_value(r);
		size_t n = strlen(s);
		if (n >= pl + sl && !strncmp(s, prefix, pl) && !strcmp(s + n - sl, suffix))
			return 1;
	}
	fprintf(stderr, "\nno reason %s...%s\n", prefix, suffix);
	return 0;
}

/* The reference certifies every profile of specs/profiles/ with all its extensions (a profile
 * added there is certified here without a line to add); the certificate carries the identity a
 * reviewer checks: the plugin's sha256, the profile file's, each spec's. */
static void test_reference_certifies(void)
{
	glob_t g;
	CU_ASSERT_EQUAL_FATAL(glob("specs/profiles/*.yaml", 0, NULL, &g), 0);
	CU_ASSERT(g.gl_pathc >= 13);
	char names[64][64];
	const char *profiles[64];
	size_t n_profiles = 0;
	for (size_t i = 0; i < g.gl_pathc && n_profiles < 64; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		snprintf(names[n_profiles], sizeof names[n_profiles], "%.*s",
		         (int)(strlen(base) - strlen(".yaml")), base);
		profiles[n_profiles] = names[n_profiles];
		n_profiles++;
	}
	globfree(&g);
	const char *tmp = qct_tmpdir();
	/* a copy: qct_build_path's buffers are reused by every later call (certify's too) */
	char ref[1024];
	snprintf(ref, sizeof ref, "%s", qct_build_path("libqconform_reference.so"));
	char ref_sha[65];
	CU_ASSERT_FATAL(qc_sha256_file(ref, ref_sha) == 0);
	for (size_t i = 0; i < n_profiles; i++) {
		char args[1200];
		/* the sanitizer pass runs the reference over every spec already (the run suite) and
		 * certifies one profile here: the certificate's code is the same for all */
		if (qct_under_sanitizers() && strcmp(profiles[i], "torch-fakequant") != 0) {
			printf("\n  sanitizer pass: %s is certified by the plain pass\n",
			       profiles[i]);
			continue;
		}
		/* every extension too: the reference does all of each profile */
		snprintf(args, sizeof args, "--profile %s --extension all --plugin %s --jobs 2",
		         profiles[i], ref);
		qct_proc p;
		json_t *c = certify(tmp, profiles[i], &p, args);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		if (p.status != 0)
			fprintf(stderr, "\n%s: %s%s", profiles[i], p.out, p.err);
		CU_ASSERT_EQUAL(p.status, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "certificate: CERTIFIED"));
		CU_ASSERT_TRUE(json_is_true(json_object_get(c, "certified")));
		json_t *prof = json_object_get(c, "profile");
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(prof, "name")),
		                       profiles[i]);
		/* it covers the base and every extension of the profile file, none left out */
		qc_diag pd = {0, 0, stderr};
		char ppath[600];
		snprintf(ppath, sizeof ppath, "specs/profiles/%s.yaml", profiles[i]);
		qc_profile *pf = qc_profile_load(ppath, &pd);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
		json_t *covers = json_object_get(prof, "covers");
		CU_ASSERT_EQUAL(json_array_size(covers), (size_t)pf->n_ext + 1);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(covers, 0)), "base");
		for (int e = 0; e < pf->n_ext; e++)
			CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(covers, e + 1)),
			                       pf->ext[e].name);
		CU_ASSERT_EQUAL(json_array_size(json_object_get(prof, "not_covered")), 0);
		json_t *exts = json_object_get(prof, "extensions");
		CU_ASSERT_EQUAL(json_array_size(exts), (size_t)pf->n_ext);
		size_t e;
		json_t *x;
		json_array_foreach(exts, e, x)
		{
			CU_ASSERT_TRUE(json_integer_value(json_object_get(x, "cases")) >=
			               json_integer_value(json_object_get(x, "min_cases")));
			CU_ASSERT_TRUE(json_array_size(json_object_get(x, "required_ops")) > 0);
		}
		if (!strcmp(profiles[i], "litert-int8"))
			CU_ASSERT_TRUE(pf->n_ext >= 3);
		/* the chains a kernel that fuses declares: the reference certifies them too */
		int chains = 0;
		for (int k = 0; k < pf->n_ext; k++)
			chains += !strcmp(pf->ext[k].name, "chains");
		if (!strcmp(profiles[i], "litert-quantizable") ||
		    !strcmp(profiles[i], "onnx-qdq") || !strcmp(profiles[i], "ort-qlinear"))
			CU_ASSERT_EQUAL(chains, 1);
		qc_profile_free(pf);
		CU_ASSERT_TRUE(json_integer_value(json_object_get(c, "cases")) >=
		               json_integer_value(json_object_get(prof, "min_cases")));
		size_t k;
		json_t *o;
		json_array_foreach(json_object_get(prof, "required_ops"), k, o)
		{
			CU_ASSERT_TRUE(json_integer_value(json_object_get(o, "cases")) > 0);
		}
		char path[600], psha[65];
		snprintf(path, sizeof path, "specs/profiles/%s.yaml", profiles[i]);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(prof, "path")), path);
		CU_ASSERT_EQUAL(qc_sha256_file(path, psha), 0);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(prof, "sha256")), psha);
		CU_ASSERT_STRING_EQUAL(
		        json_string_value(json_object_get(json_object_get(c, "plugin"), "sha256")),
		        ref_sha);
		CU_ASSERT_TRUE(json_array_size(json_object_get(c, "specs")) > 0);
		char *html = qct_read_file(certify_path(tmp, profiles[i], "certificate.html"));
		CU_ASSERT_PTR_NOT_NULL_FATAL(html);
		/* the certificate section comes first, then the run's own report */
		char *verdict = strstr(html, "id=\"certificate-verdict\">CERTIFIED<");
		char *run_banner = strstr(html, "id=\"verdict\">CONFORMS<");
		CU_ASSERT_PTR_NOT_NULL(verdict);
		CU_ASSERT_TRUE(verdict && run_banner && verdict < run_banner);
		CU_ASSERT_PTR_NOT_NULL(strstr(html, ref_sha));
		CU_ASSERT_PTR_NULL(strstr(html, "id=\"certificate-reasons\""));
		free(html);
		json_decref(c);
		qct_proc_free(&p);
	}
	qct_rmdir(tmp);
}

/* A plugin that declines every op is refused, naming each required op and its count. */
static void test_not_supported_refused(void)
{
	const char *tmp = qct_tmpdir();
	char args[1200];
	snprintf(args, sizeof args, "--profile tf-fakequant --plugin %s",
	         qct_stub("supports_nothing"));
	qct_proc p;
	json_t *c = certify(tmp, "ns", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "certificate: NOT CERTIFIED"));
	json_t *ops = json_object_get(json_object_get(c, "profile"), "required_ops");
	CU_ASSERT_EQUAL(json_array_size(ops), 6);
	size_t k;
	json_t *o;
	json_array_foreach(ops, k, o)
	{
		char want[512];
		const char *op = json_string_value(json_object_get(o, "op"));
		long long n = json_integer_value(json_object_get(o, "cases"));
		/* the count of valid cases refused (the negative ones a refusal answers apart),
		 * then the first refused case with the plugin's message */
		snprintf(want, sizeof want, "required op %s: ", op);
		CU_ASSERT_TRUE(n > 0);
		CU_ASSERT_TRUE(has_reason_prefix(c, want, ": this stub supports nothing"));
		CU_ASSERT_PTR_NOT_NULL(strstr(p.out, want));
		const char *r = NULL;
		size_t ri;
		json_t *rj;
		json_array_foreach(json_object_get(c, "reasons"), ri,
		                   rj) if (!strncmp(json_string_value(rj), want, strlen(want))) r =
		        json_string_value(rj);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		long long ns = -1, total = -1, neg = 0;
		CU_ASSERT_EQUAL(
		        sscanf(r + strlen(want), "%lld of %lld cases NOT_SUPPORTED", &ns, &total),
		        2);
		const char *a = strstr(r, "NOT_SUPPORTED (and ");
		if (a)
			CU_ASSERT_EQUAL(sscanf(a, "NOT_SUPPORTED (and %lld negative", &neg), 1);
		CU_ASSERT_EQUAL(total, n);
		CU_ASSERT_TRUE(ns > 0);
		CU_ASSERT_EQUAL(ns + neg, n); /* it refused every case */
		snprintf(want, sizeof want, "; the first, %s/", op);
		CU_ASSERT_PTR_NOT_NULL(strstr(r, want));
	}
	/* NOT_SUPPORTED is an allowed verdict of a run: only the certificate refuses it */
	CU_ASSERT_EQUAL(json_array_size(json_object_get(c, "reasons")), 6);
	char *html = qct_read_file(certify_path(tmp, "ns", "certificate.html"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"certificate-verdict\">NOT CERTIFIED<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<li>required op tf/fake_quant_with_min_max_args: "));
	free(html);
	json_decref(c);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* A plugin that rounds ties half up fails ONNX QuantizeLinear (ties to even): refused, naming
 * the op and the count of its failing cases; with a waiver the failures are allowed and
 * listed (its hostile reason escaped in the HTML); an expired waiver refuses again. */
static void test_failing_refused_and_waived(void)
{
	const char *tmp = qct_tmpdir();
	char args[1400];
	const char *stub = qct_stub("ties_half_up");
	snprintf(args, sizeof args, "--profile onnx-qdq --plugin %s", stub);
	qct_proc p;
	json_t *c = certify(tmp, "fail", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(p.status, 1);
	long long fails =
	        json_integer_value(json_object_get(json_object_get(c, "verdicts"), "FAIL"));
	CU_ASSERT_TRUE(fails > 0);
	char want[256];
	snprintf(want, sizeof want, "%lld cases FAIL: onnx/QuantizeLinear %lld", fails, fails);
	CU_ASSERT_TRUE(has_reason(c, want));
	/* what is wrong first, then why: the diagnosis names the tie rule */
	json_t *reasons = json_object_get(c, "reasons");
	CU_ASSERT_EQUAL(json_array_size(reasons), 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(reasons, 0)), want);
	const char *why = json_string_value(json_array_get(reasons, 1));
	CU_ASSERT(why && !strncmp(why, "onnx/QuantizeLinear: ", 21) &&
	          strstr(why, "[rounding:half_up]"));
	json_decref(c);
	qct_proc_free(&p);

	char wpath[600];
	snprintf(wpath, sizeof wpath, "%s/waivers.yaml", tmp);
	FILE *f = fopen(wpath, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("qconform_waivers: 1\nwaivers:\n  - case: 'onnx/*'\n    reason: \"<b>ties</b> & "
	      "'half up' until 2.0\"\n    expires: 2099-12-31\n",
	      f);
	fclose(f);
	snprintf(args, sizeof args, "--profile onnx-qdq --plugin %s --waivers %s", stub, wpath);
	c = certify(tmp, "waived", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_TRUE(json_is_true(json_object_get(c, "certified")));
	json_t *waived = json_object_get(c, "waived");
	CU_ASSERT_EQUAL((long long)json_array_size(waived), fails);
	json_t *w0 = json_array_get(waived, 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(w0, "verdict")), "FAIL");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(w0, "reason")),
	                       "<b>ties</b> & 'half up' until 2.0");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(w0, "expires")), "2099-12-31");
	char *html = qct_read_file(certify_path(tmp, "waived", "certificate.html"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"certificate-verdict\">CERTIFIED<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "&lt;b&gt;ties&lt;/b&gt; &amp; &#39;half up&#39;"));
	CU_ASSERT_PTR_NULL(strstr(html, "<b>ties</b>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"certificate-waived\""));
	free(html);
	json_decref(c);
	qct_proc_free(&p);

	f = fopen(wpath, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("qconform_waivers: 1\nwaivers:\n  - case: 'onnx/*'\n    reason: old\n    expires: "
	      "2020-01-31\n",
	      f);
	fclose(f);
	c = certify(tmp, "expired", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_TRUE(has_reason(c, "waiver expired: 'onnx/*' (old) held until 2020-01-31"));
	CU_ASSERT_TRUE(has_reason(c, want));
	CU_ASSERT_EQUAL(json_array_size(json_object_get(c, "waived")), 0);
	json_decref(c);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* A profile that asks for more cases than its specs give: the run refuses it before anything
 * runs (exit 2, no certificate); the decision on a report with too few cases names both
 * counts; the other criteria of the decision, each alone. */
static void test_min_cases_refused(void)
{
	const char *tmp = qct_tmpdir();
	qct_proc p;
	CU_ASSERT_FATAL(
	        qct_sh(&p,
	               "mkdir -p %s/profiles && sed 's/^  min_cases: .*/  min_cases: 1000000/' "
	               "specs/profiles/tf-fakequant.yaml > %s/profiles/tf-fakequant.yaml",
	               tmp, tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	char args[1400];
	snprintf(args, sizeof args, "--profile tf-fakequant --plugin %s specs/tf %s/profiles",
	         qct_build_path("libqconform_reference.so"), tmp);
	json_t *c = certify(tmp, "big", &p, args);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "needs at least 1000000 cases"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "no certificate"));
	json_decref(c);
	qct_proc_free(&p);

	/* the decision itself, on the reference's report */
	int status;
	json_t *r = qct_run_report(tmp, &status, NULL, "--profile tf-fakequant --plugin %s",
	                           qct_build_path("libqconform_reference.so"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(status, 0);
	json_t *reasons = qc_certify_reasons(r);
	CU_ASSERT_EQUAL(json_array_size(reasons), 0);
	json_decref(reasons);
	json_t *prof = json_object_get(r, "profile");
	json_int_t n = json_integer_value(json_object_get(prof, "cases"));
	json_object_set_new(prof, "min_cases", json_integer(n + 1));
	reasons = qc_certify_reasons(r);
	char want[128];
	snprintf(want, sizeof want, "%lld cases, the profile needs %lld", (long long)n,
	         (long long)n + 1);
	CU_ASSERT_EQUAL(json_array_size(reasons), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(reasons, 0)), want);
	json_decref(reasons);
	json_object_set_new(prof, "min_cases", json_integer(n));
	/* a required op with no case (a suite that lost a spec) */
	json_t *op0 = json_array_get(json_object_get(prof, "required_ops"), 0);
	json_object_set_new(op0, "cases", json_integer(0));
	reasons = qc_certify_reasons(r);
	CU_ASSERT_EQUAL(json_array_size(reasons), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(reasons, 0)),
	                       "required op tf/fake_quant_with_min_max_args: no case ran");
	json_decref(reasons);
	/* a report of a filtered run, and one of no profile */
	json_object_set_new(op0, "cases", json_integer(1));
	json_array_append_new(json_object_get(json_object_get(r, "run"), "filters"),
	                      json_string("tf/*"));
	reasons = qc_certify_reasons(r);
	CU_ASSERT_EQUAL(json_array_size(reasons), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_array_get(reasons, 0)), "filtered"));
	json_decref(reasons);
	json_object_del(r, "profile");
	reasons = qc_certify_reasons(r);
	CU_ASSERT_EQUAL(json_array_size(reasons), 1);
	json_decref(reasons);
	json_decref(r);
	qct_rmdir(tmp);
}

/* A selection of the profile is not certified: --filter and --shard are usage errors (one
 * line, exit 2, nothing run, nothing written); so are a missing --plugin or --profile. */
static void test_partial_refused(void)
{
	const char *tmp = qct_tmpdir();
	const char *ref = qct_build_path("libqconform_reference.so");
	static const char *const bad[] = {
	        "--profile onnx-qdq --plugin %s --filter 'onnx/*'",
	        "--profile onnx-qdq --plugin %s --shard 1/2",
	        "--profile onnx-qdq --plugin %s --json x.json",
	        "--profile onnx-qdq",
	        "--plugin %s",
	        "--profile onnx-qdq --plugin %s.missing",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char args[1200], sub[16];
		snprintf(args, sizeof args, bad[i], ref);
		snprintf(sub, sizeof sub, "b%zu", i);
		qct_proc p;
		json_t *c = certify(tmp, sub, &p, args);
		CU_ASSERT_PTR_NULL(c);
		CU_ASSERT_EQUAL(p.status, 2);
		CU_ASSERT_PTR_NULL(strstr(p.out, "certificate: "));
		if (i < 3) {
			/* one line, naming the option */
			const char *nl = strchr(p.err, '\n');
			CU_ASSERT_TRUE(nl && nl[1] == 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(p.err, i == 0   ? "--filter"
			                                     : i == 1 ? "--shard"
			                                              : "--json"));
			/* nothing ran */
			CU_ASSERT_NOT_EQUAL(access(certify_path(tmp, sub, "report.json"), F_OK), 0);
		}
		json_decref(c);
		qct_proc_free(&p);
	}
	/* a plugin that cannot be opened is refused before any spec is read: one line about the
	 * plugin, nothing about the broken spec beside it */
	qct_proc p;
	char broken[700], want[1300];
	snprintf(broken, sizeof broken, "%s/broken.yaml", tmp);
	FILE *f = fopen(broken, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("qconform: 1\nop: [\n", f);
	fclose(f);
	CU_ASSERT_FATAL(qct_sh(&p, "%s run %s --plugin %s.missing --quiet --json %s/r.json",
	                       qct_build_path("qconform"), broken, ref, tmp) == 0);
	snprintf(want, sizeof want,
	         "qconform: %s.missing: cannot open: No such file or directory\n", ref);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_STRING_EQUAL(p.err, want);
	qct_proc_free(&p);
	/* --out belongs to certify only (main returns at once on a usage error: no leak check) */
	CU_ASSERT_FATAL(qct_sh(&p, "ASAN_OPTIONS=detect_leaks=0 %s run --out %s specs/tf",
	                       qct_build_path("qconform"), tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/*
 * A kernel of exactly the LiteRT int8 spec (suite/stubs/int8_only.c) certifies litert-int8's
 * base and nothing more: the certificate covers the base alone and lists the extensions it
 * does not; declaring int16x8 refuses it, naming the extension, the op, the count and the
 * first refused case with the kernel's message.
 */
static void test_int8_only_base(void)
{
	/* two runs of nearly all of specs/litert through a stub: the certificate's logic is the
	 * plain pass's to check; the sanitizer pass has the cheaper certifications above */
	if (qct_under_sanitizers()) {
		printf("\n  sanitizer pass: the int8-only certifications run in the plain pass\n");
		return;
	}
	const char *tmp = qct_tmpdir();
	const char *stub = qct_stub("int8_only");
	char args[1200];
	snprintf(args, sizeof args, "--profile litert-int8 --plugin %s --jobs 2", stub);
	qct_proc p;
	json_t *c = certify(tmp, "base", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "certificate: CERTIFIED"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "profile litert-int8: base\n"));
	/* it declines the negative cases with a tensor it does not take (a uint16 ADD, an int16
	 * ARG_MAX output) before checking them: a refusal answers them */
	CU_ASSERT_TRUE(json_integer_value(json_object_get(c, "negative_refused")) > 0);
	json_t *prof = json_object_get(c, "profile");
	json_t *covers = json_object_get(prof, "covers");
	CU_ASSERT_EQUAL(json_array_size(covers), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(covers, 0)), "base");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(prof, "extensions")), 0);
	/* the others are named, with the cases not run */
	json_t *nc = json_object_get(prof, "not_covered");
	int int16x8 = 0;
	size_t i;
	json_t *x;
	json_array_foreach(nc, i, x)
	{
		CU_ASSERT_TRUE(json_integer_value(json_object_get(x, "cases")) > 0);
		int16x8 |= !strcmp(json_string_value(json_object_get(x, "name")), "int16x8");
	}
	CU_ASSERT_TRUE(int16x8);
	/* the run held only base cases: none of them carries an extension */
	char rerr[1200];
	json_t *r = qc_report_read(certify_path(tmp, "base", "report.json"), rerr, sizeof rerr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *cs = json_object_get(r, "cases");
	CU_ASSERT_EQUAL((long long)json_array_size(cs),
	                json_integer_value(json_object_get(prof, "cases")));
	size_t with_ext = 0;
	json_array_foreach(cs, i, x) with_ext += json_object_get(x, "extension") != NULL;
	CU_ASSERT_EQUAL(with_ext, 0);
	json_decref(r);
	json_decref(c);
	qct_proc_free(&p);

	snprintf(args, sizeof args,
	         "--profile litert-int8 --extension int16x8 --plugin %s --jobs 2", stub);
	c = certify(tmp, "int16x8", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "certificate: NOT CERTIFIED"));
	covers = json_object_get(json_object_get(c, "profile"), "covers");
	CU_ASSERT_EQUAL(json_array_size(covers), 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(covers, 1)), "int16x8");
	/* every reason is the extension's: the base still passes */
	json_t *reasons = json_object_get(c, "reasons");
	CU_ASSERT_TRUE(json_array_size(reasons) > 0);
	json_array_foreach(reasons, i, x)
	        CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(x), "extension int16x8: "));
	CU_ASSERT_TRUE(has_reason_prefix(c, "extension int16x8: required op litert/CONV_2D: ",
	                                 ": quantized tensors are int8 (and an int32 bias)"));
	json_decref(c);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* Writes TMP/profiles/NAME.yaml. */
static void write_profile(const char *tmp, const char *name, const char *text)
{
	char path[700];
	snprintf(path, sizeof path, "%s/profiles", tmp);
	if (mkdir(path, 0755) == 0) {
		/* the other profiles specs/onnx names stay as they are; this one is rewritten */
		qct_proc p;
		CU_ASSERT(qct_sh(&p, "cp specs/profiles/*.yaml '%s'", path) == 0 && p.status == 0);
		qct_proc_free(&p);
	}
	snprintf(path, sizeof path, "%s/profiles/%s.yaml", tmp, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

#define ONNX_BASE                                                                                  \
	"qconform_profile: 2\nname: onnx-qdq\nbase:\n  required_ops: [onnx/QuantizeLinear]\n"      \
	"  min_cases: 1\n"

/*
 * list --profile gives each case's class in a second column (plain list stays one name a
 * line); --extension restricts it to the base and that extension; an unknown extension is a
 * usage error naming the profile's extensions; a format-1 profile is all base; a case that
 * meets the rules of two extensions, a rule that matches nothing and an extension below its
 * min_cases are errors at file:line:col of the profile.
 */
/* Under --profile only the specs that declare it are loaded: a spec outside the profile with
 * an error in it (read as YAML, never checked) costs nothing and stops nothing; one that is not
 * YAML at all is loaded to say so. */
static void test_profile_loads_its_specs(void)
{
	const char *tmp = qct_tmpdir();
	const char *q = qct_build_path("qconform");
	char other[600];
	snprintf(other, sizeof other, "%s/other.yaml", tmp);
	FILE *f = fopen(other, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("qconform: 1\nop: NoSuchOp\nsemantics: onnx\nprofile: [torch-fakequant]\n", f);
	fclose(f);
	qct_proc p;
	CU_ASSERT_FATAL(
	        qct_sh(&p, "%s list --profile onnx-qdq specs/onnx specs/chains %s", q, other) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_STRING_EQUAL(p.err, "");
	size_t lines = 0, ours = 0;
	for (const char *s = p.out; *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s)) {
		lines++;
		ours += !strncmp(s, "onnx/", 5);
	}
	CU_ASSERT(lines > 100 && ours == lines);
	qct_proc_free(&p);
	/* the same spec under its own profile is loaded, and refused */
	CU_ASSERT_FATAL(qct_sh(&p, "%s list --profile torch-fakequant %s", q, other) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, other));
	qct_proc_free(&p);
	/* not YAML: loaded, and refused whatever the profile */
	f = fopen(other, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("qconform: 1\nop: [\n", f);
	fclose(f);
	CU_ASSERT_FATAL(
	        qct_sh(&p, "%s list --profile onnx-qdq specs/onnx specs/chains %s", q, other) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, other));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

static void test_list_classes(void)
{
	const char *tmp = qct_tmpdir();
	const char *q = qct_build_path("qconform");
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "%s list --profile onnx-qdq specs/onnx specs/chains", q) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	/* a blocked case, a 4-bit one and an 8-bit one of QuantizeLinear's specs */
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\tblocked\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\tint4\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\tbase\n"));
	size_t lines = 0, tabs = 0;
	for (const char *s = p.out; *s; s++) {
		lines += *s == '\n';
		tabs += *s == '\t';
	}
	CU_ASSERT_EQUAL(lines, tabs);
	char *all = strdup(p.out);
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p, "%s list specs/onnx", q) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NULL(strchr(p.out, '\t'));
	qct_proc_free(&p);
	CU_ASSERT_FATAL(
	        qct_sh(&p, "%s list --profile onnx-qdq --extension int4 specs/onnx specs/chains",
	               q) == 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\tint4\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\tbase\n"));
	CU_ASSERT_PTR_NULL(strstr(p.out, "\tblocked\n"));
	CU_ASSERT_TRUE(strlen(p.out) < strlen(all));
	free(all);
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p, "%s run --profile onnx-qdq --extension int5 specs/onnx", q) ==
	                0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "profile onnx-qdq has no such extension (its "
	                                     "extensions: int16, int4, int2, int32, blocked, "
	                                     "precision, inputs, chains; or all)"));
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p, "%s run --extension int4 specs/onnx", q) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "needs --profile"));
	qct_proc_free(&p);

	/* format 1 still loads: its base is every case */
	write_profile(tmp, "onnx-qdq",
	              "qconform_profile: 1\nname: onnx-qdq\nrequired_ops: [onnx/QuantizeLinear]\n"
	              "min_cases: 1\n");
	CU_ASSERT_FATAL(qct_sh(&p, "%s list --profile onnx-qdq specs/onnx %s/profiles", q, tmp) ==
	                0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\tbase\n"));
	CU_ASSERT_PTR_NULL(strstr(p.out, "\tblocked\n"));
	qct_proc_free(&p);

	/* line 9: a rule on every int8 tensor; line 13: one on every quantized tensor (both hold
	 * for a QuantizeLinear to int8) */
	write_profile(tmp, "onnx-qdq",
	              ONNX_BASE "extensions:\n"
	                        "  eight:\n    match:\n      - tensor: {dtype: int8}\n"
	                        "    min_cases: 1\n"
	                        "  quantized:\n    match:\n      - tensor: {quantized: true}\n"
	                        "    min_cases: 1\n"
	                        "  f64:\n    match:\n      - tensor: {dtype: float64}\n"
	                        "    min_cases: 1\n");
	CU_ASSERT_FATAL(qct_sh(&p, "%s list --profile onnx-qdq specs/onnx %s/profiles", q, tmp) ==
	                0);
	CU_ASSERT_EQUAL(p.status, 2);
	char want[900];
	snprintf(want, sizeof want, "%s/profiles/onnx-qdq.yaml:13:9: case onnx/", tmp);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "meets this rule of extension 'quantized' and the "
	                                     "rule of extension 'eight' at 9:9: a case belongs "
	                                     "to the base or to exactly one extension"));
	qct_proc_free(&p);
	write_profile(tmp, "onnx-qdq",
	              ONNX_BASE "extensions:\n"
	                        "  bools:\n    match:\n      - tensor: {dtype: bool}\n"
	                        "    min_cases: 1\n"
	                        "  four:\n    match:\n      - tensor: {dtype: [int4, uint4]}\n"
	                        "    min_cases: 100000\n");
	CU_ASSERT_FATAL(qct_sh(&p, "%s list --profile onnx-qdq specs/onnx %s/profiles", q, tmp) ==
	                0);
	CU_ASSERT_EQUAL(p.status, 2);
	snprintf(want, sizeof want,
	         "%s/profiles/onnx-qdq.yaml:9:9: extension 'bools': this match rule matches no "
	         "case of the profile's specs",
	         tmp);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	snprintf(want, sizeof want,
	         "%s/profiles/onnx-qdq.yaml:11:3: extension 'four' needs at least 100000 cases",
	         tmp);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	qct_proc_free(&p);
	/* bad rules: an unknown key, an unknown dtype, a reserved name */
	write_profile(tmp, "onnx-qdq",
	              ONNX_BASE "extensions:\n"
	                        "  all:\n    match:\n      - tensor: {dtype: int8}\n"
	                        "    min_cases: 1\n"
	                        "  x:\n    match:\n      - tensor: {dtype: int7, size: 3}\n"
	                        "    min_cases: 1\n");
	CU_ASSERT_FATAL(qct_sh(&p, "%s list --profile onnx-qdq specs/onnx %s/profiles", q, tmp) ==
	                0);
	CU_ASSERT_EQUAL(p.status, 2);
	snprintf(want, sizeof want, "%s/profiles/onnx-qdq.yaml:7:3: an extension's name", tmp);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	snprintf(want, sizeof want, "%s/profiles/onnx-qdq.yaml:13:31: unknown key 'size'", tmp);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	snprintf(want, sizeof want, "%s/profiles/onnx-qdq.yaml:13:25: unknown dtype 'int7'", tmp);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	qct_proc_free(&p);
	/* no_op: a rule's int8 tensors, but not DequantizeLinear's cases (its specs'; they stay in
	 * the base: 71 of them would be in the extension without it) */
	write_profile(tmp, "onnx-qdq",
	              ONNX_BASE "extensions:\n"
	                        "  eight:\n    match:\n      - tensor: {dtype: int8}\n"
	                        "        no_op: [onnx/DequantizeLinear]\n"
	                        "    min_cases: 1\n");
	CU_ASSERT_FATAL(qct_sh(&p, "%s list --profile onnx-qdq specs/onnx %s/profiles", q, tmp) ==
	                0);
	CU_ASSERT_EQUAL(p.status, 0);
	size_t deq = 0, deq_eight = 0, q_eight = 0;
	for (const char *l = p.out; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		int eight = len > 6 && !strncmp(l + len - 6, "\teight", 6);
		if (!strncmp(l, "onnx/dequantize_linear", 22)) {
			deq++;
			deq_eight += eight;
		}
		q_eight += eight && !strncmp(l, "onnx/quantize_linear", 20);
		l += len + (e != NULL);
	}
	CU_ASSERT(deq > 0 && deq_eight == 0 && q_eight > 0);
	qct_proc_free(&p);
	write_profile(tmp, "onnx-qdq",
	              ONNX_BASE "extensions:\n"
	                        "  eight:\n    match:\n      - no_op: [DequantizeLinear]\n"
	                        "    min_cases: 1\n");
	CU_ASSERT_FATAL(qct_sh(&p, "%s list --profile onnx-qdq specs/onnx %s/profiles", q, tmp) ==
	                0);
	CU_ASSERT_EQUAL(p.status, 2);
	snprintf(want, sizeof want,
	         "%s/profiles/onnx-qdq.yaml:9:17: an op is written semantics/OP (a glob)", tmp);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	if (!strstr(p.err, want))
		fprintf(stderr, "\n%s", p.err);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* s with ' as the HTML report writes it (&#39;), in a static buffer. */
static const char *html_quote(const char *s)
{
	static char buf[2][1024];
	static int k;
	char *b = buf[k++ % 2];
	size_t n = 0;
	for (; *s && n + 6 < sizeof buf[0]; s++) {
		if (*s == '\'') {
			memcpy(b + n, "&#39;", 5);
			n += 5;
		} else {
			b[n++] = *s;
		}
	}
	b[n] = 0;
	return b;
}

/* The HTML report lists every distinct NOT_SUPPORTED message of an op with its count: the
 * int8-only kernel declines QUANTIZE to uint8 and to int16 with two messages. */
static void test_html_not_supported_reasons(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/litert/quantize.yaml --plugin %s --html %s/r.html",
	                           qct_stub("int8_only"), tmp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	long long u8 = 0, i16 = 0;
	size_t i;
	json_t *c;
	const char *m8 = NULL, *m16 = NULL;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		if (strcmp(json_string_value(json_object_get(c, "verdict")), "NOT_SUPPORTED") != 0)
			continue;
		const char *m = json_string_value(json_object_get(c, "message"));
		if (strstr(m, "quantized uint8")) {
			u8++;
			CU_ASSERT_TRUE(!m8 || !strcmp(m8, m));
			m8 = m;
		} else if (strstr(m, "quantized int16")) {
			i16++;
		}
		if (strstr(m, "output 'y' is quantized int16"))
			m16 = m;
	}
	CU_ASSERT_TRUE(u8 > 0 && i16 > 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m16);
	char path[700];
	snprintf(path, sizeof path, "%s/r.html", tmp);
	char *html = qct_read_file(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	char *sec = strstr(html, "id=\"not-supported-reasons\"");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
	char want[1200];
	snprintf(want, sizeof want,
	         "<tr><td>litert/QUANTIZE</td><td class=\"n\">%lld</td><td>%s</td>", u8,
	         html_quote(m8));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, want));
	/* the int16 outputs: one message (the output y); the inputs of int16: another */
	long long out16 = 0;
	json_array_foreach(json_object_get(r, "cases"), i, c) out16 +=
	        !strcmp(json_string_value(json_object_get(c, "message")), m16);
	snprintf(want, sizeof want,
	         "<tr><td>litert/QUANTIZE</td><td class=\"n\">%lld</td><td>%s</td>", out16,
	         html_quote(m16));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, want));
	free(html);
	json_decref(r);
	qct_rmdir(tmp);
}

/* The judged cases of a report by the engine its cases name (unreported: none). */
static json_int_t engine_count(json_t *doc, const char *kind)
{
	json_t *e = json_object_get(json_object_get(doc, "summary"), "engines");
	if (!e)
		e = json_object_get(doc, "engines"); /* a certificate's */
	return json_integer_value(json_object_get(e, kind));
}

/*
 * Proof of where it ran: a plugin's engine() says which engine ran each case (an NPU, or a
 * fallback to the CPU), and the report, console and certificate say so as the plugin's word.
 * --require-engine accelerator (or a profile's require_engine) refuses a run or a certificate
 * in which a judged case fell back or was not said, naming the ops; a gate against a baseline
 * run on the NPU fails when cases fall back. A garbled answer stays the plugin's word,
 * bounded and printable, and a crash in engine() is that case's CRASH.
 */
static void test_engines(void)
{
	const char *tmp = qct_tmpdir();
	char stub[700];
	snprintf(stub, sizeof stub, "%s", qct_build_path("stubs/libstub_npu.so"));
	int st;
	char *err = NULL;
	/* int16 cases fall back to the CPU, SOFTMAX's are not said */
	json_t *r = qct_run_report(tmp, &st, &err,
	                           "specs/litert/add.yaml specs/litert/quantize.yaml "
	                           "specs/litert/softmax.yaml --plugin %s",
	                           stub);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0); /* nothing required: it conforms */
	json_int_t n_npu = engine_count(r, "npu"), n_cpu = engine_count(r, "cpu"),
	           n_un = engine_count(r, "unreported");
	if (!(n_npu > 0 && n_cpu > 0 && n_un > 0))
		printf("\n    engines: npu %lld cpu %lld unreported %lld", (long long)n_npu,
		       (long long)n_cpu, (long long)n_un);
	CU_ASSERT(n_npu > 0 && n_cpu > 0 && n_un > 0);
	size_t i, judged = 0, said = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *v = qct_str(c, "verdict");
		json_t *e = json_object_get(c, "engine");
		judged += !strcmp(v, "PASS") || !strcmp(v, "PASS_WITHIN_TOLERANCE") ||
		          !strcmp(v, "FAIL");
		said += e != NULL;
		if (!strcmp(qct_str(c, "op"), "SOFTMAX"))
			CU_ASSERT_PTR_NULL(e);
		if (e && !strcmp(qct_str(e, "kind"), "npu"))
			CU_ASSERT_STRING_EQUAL(qct_str(e, "name"), "qconform test NPU v1");
	}
	CU_ASSERT_EQUAL((json_int_t)judged, n_npu + n_cpu + n_un);
	CU_ASSERT_EQUAL((json_int_t)said, n_npu + n_cpu);
	json_decref(r);
	free(err);

	/* required: the run does not conform, and says why on its verdict line */
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s run specs/litert/quantize.yaml --quiet --no-reports --plugin %s "
	                       "--require-engine accelerator",
	                       qct_build_path("qconform"), stub) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "engines (as the plugin reports them)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "DOES NOT CONFORM"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "require_engine accelerator:"));
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p, "%s run specs/litert/add.yaml --quiet --require-engine gpu",
	                       qct_build_path("qconform")) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "--require-engine needs 'accelerator' or 'reported'"));
	qct_proc_free(&p);

	/* certify: every tf case on the NPU certifies; on the CPU it does not, per op */
	char args[1600];
	snprintf(args, sizeof args,
	         "--profile tf-fakequant --plugin %s --require-engine accelerator", stub);
	json_t *cert = certify(tmp, "npu", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cert);
	CU_ASSERT(json_is_true(json_object_get(cert, "certified")));
	CU_ASSERT(engine_count(cert, "npu") > 0);
	CU_ASSERT_STRING_EQUAL(qct_str(cert, "require_engine"), "accelerator");
	json_t *by_plugin =
	        json_object_get(json_object_get(cert, "provenance"), "reported_by_plugin");
	int listed = 0;
	json_array_foreach(by_plugin, i, c) listed |= !strcmp(json_string_value(c), "engines");
	CU_ASSERT(listed);
	json_decref(cert);
	qct_proc_free(&p);
	snprintf(args, sizeof args,
	         "--profile tf-fakequant --plugin %s --plugin-option mode=cpu "
	         "--require-engine accelerator",
	         stub);
	cert = certify(tmp, "cpu", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cert);
	CU_ASSERT(!json_is_true(json_object_get(cert, "certified")));
	char want[200];
	snprintf(want, sizeof want,
	         "%lld cases judged that the plugin reported on the CPU or on no engine it names "
	         "(require_engine accelerator): tf/",
	         (long long)engine_count(cert, "cpu"));
	CU_ASSERT(has_reason_prefix(cert, want, ""));
	json_decref(cert);
	qct_proc_free(&p);
	/* 'reported': the CPU, named, is enough */
	snprintf(args, sizeof args,
	         "--profile tf-fakequant --plugin %s --plugin-option mode=cpu "
	         "--require-engine reported",
	         stub);
	cert = certify(tmp, "reported", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cert);
	CU_ASSERT(json_is_true(json_object_get(cert, "certified")));
	json_decref(cert);
	qct_proc_free(&p);

	/* the profile's own requirement, and a wrong one at file:line:col */
	CU_ASSERT_FATAL(
	        qct_sh(&p,
	               "mkdir -p %s/profiles && sed 's/^name: tf-fakequant$/&\\nrequire_engine: "
	               "accelerator/' specs/profiles/tf-fakequant.yaml > "
	               "%s/profiles/tf-fakequant.yaml",
	               tmp, tmp) == 0);
	qct_proc_free(&p);
	snprintf(args, sizeof args,
	         "--profile tf-fakequant --plugin %s --plugin-option mode=cpu specs/tf %s/profiles",
	         stub, tmp);
	cert = certify(tmp, "profile", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cert);
	CU_ASSERT(!json_is_true(json_object_get(cert, "certified")));
	CU_ASSERT_STRING_EQUAL(qct_str(cert, "require_engine"), "accelerator");
	json_decref(cert);
	qct_proc_free(&p);
	/* an option does not loosen the profile's requirement */
	snprintf(args, sizeof args,
	         "--profile tf-fakequant --plugin %s --plugin-option mode=cpu specs/tf %s/profiles "
	         "--require-engine reported",
	         stub, tmp);
	cert = certify(tmp, "loosened", &p, args);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cert);
	CU_ASSERT(!json_is_true(json_object_get(cert, "certified")));
	CU_ASSERT_STRING_EQUAL(qct_str(cert, "require_engine"), "accelerator");
	json_decref(cert);
	qct_proc_free(&p);
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "sed -i 's/^require_engine: accelerator/require_engine: npu/' "
	                       "%s/profiles/tf-fakequant.yaml && %s list --profile tf-fakequant "
	                       "specs/tf %s/profiles",
	                       tmp, qct_build_path("qconform"), tmp) == 0);
	CU_ASSERT_EQUAL(p.status, 2);
	snprintf(want, sizeof want, "%s/profiles/tf-fakequant.yaml:", tmp);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "require_engine must be 'reported' or 'accelerator'"));
	qct_proc_free(&p);

	/* the gate: the baseline ran on the NPU, the new run falls back */
	char base[700], cur[700];
	snprintf(base, sizeof base, "%s/base.json", tmp);
	snprintf(cur, sizeof cur, "%s/cur.json", tmp);
	CU_ASSERT_FATAL(qct_sh(&p,
	                       "%s run specs/litert/add.yaml --quiet --json %s --plugin %s && "
	                       "%s run specs/litert/add.yaml --quiet --json %s --plugin %s "
	                       "--plugin-option mode=cpu --baseline %s",
	                       qct_build_path("qconform"), base, stub, qct_build_path("qconform"),
	                       cur, stub, base) == 0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "engine npu -> cpu (as the plugin reports)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "GATE FAILED"));
	qct_proc_free(&p);

	/* hostile answers: an unknown kind and an unterminated name of control bytes */
	r = qct_run_report(tmp, &st, &err,
	                   "specs/litert/add.yaml --plugin %s --plugin-option mode=garble", stub);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT(engine_count(r, "invalid") > 0);
	json_t *e = json_object_get(json_array_get(json_object_get(r, "cases"), 0), "engine");
	CU_ASSERT_STRING_EQUAL(qct_str(e, "kind"), "invalid");
	const char *name = qct_str(e, "name");
	CU_ASSERT_EQUAL(strlen(name), 63);
	for (const char *q = name; *q; q++)
		CU_ASSERT(*q >= 0x20 && *q < 0x7f);
	json_decref(r);
	free(err);
	/* a crash in engine(): that case's CRASH, said where; the other ops' cases unharmed */
	r = qct_run_report(tmp, &st, &err,
	                   "specs/litert/add.yaml specs/litert/quantize.yaml --plugin %s "
	                   "--plugin-option mode=crash",
	                   stub);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	size_t crashed = 0, quantize = 0, add_pass = 0, adds = 0;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		const char *v = qct_str(c, "verdict");
		if (!strcmp(qct_str(c, "op"), "QUANTIZE")) {
			quantize += strcmp(v, "NOT_SUPPORTED") && strcmp(v, "EXPECTED_ERROR");
			crashed +=
			        !strcmp(v, "CRASH") && strstr(qct_str(c, "message"), "in engine()");
		} else {
			adds++;
			add_pass += !strcmp(v, "PASS") || !strcmp(v, "EXPECTED_ERROR");
		}
	}
	CU_ASSERT(quantize > 0);
	CU_ASSERT_EQUAL(crashed, quantize);
	CU_ASSERT_EQUAL(add_pass, adds);
	json_decref(r);
	free(err);
	qct_rmdir(tmp);
}

void qct_register_certify(void)
{
	CU_pSuite s = qct_suite("certify");
	CU_add_test(s,
	            "the reference certifies torch, onnx, tf, litert-int8, litert-quantizable, "
	            "ort-qlinear",
	            test_reference_certifies);
	CU_add_test(s, "NOT_SUPPORTED required ops are refused, each named",
	            test_not_supported_refused);
	CU_add_test(s, "failing cases refused; waived ones listed; an expired waiver refuses",
	            test_failing_refused_and_waived);
	CU_add_test(s, "min_cases above the suite, lost op, filtered report: refused",
	            test_min_cases_refused);
	CU_add_test(s, "--filter, --shard, --json, no plugin/profile: usage errors",
	            test_partial_refused);
	CU_add_test(s, "an int8-only kernel certifies litert-int8's base, not int16x8",
	            test_int8_only_base);
	CU_add_test(s, "--profile loads the specs that declare it, and no other",
	            test_profile_loads_its_specs);
	CU_add_test(s, "list --profile shows classes; rule errors at file:line:col",
	            test_list_classes);
	CU_add_test(s, "HTML: every distinct NOT_SUPPORTED message of an op, counted",
	            test_html_not_supported_reasons);
	CU_add_test(s, "engines: the plugin's word, required, certified, gated, hostile",
	            test_engines);
}
