#include "gate/certify.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/utf8.h"
#include "judge/results.h"

/* ---- reading the report ---- */

static unsigned long long jcount(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		return json_integer_value(v) > 0 ? (unsigned long long)json_integer_value(v) : 0;
	double d = json_is_real(v) ? json_real_value(v) : 0;
	return d > 0 ? (unsigned long long)d : 0;
}

static void reason(json_t *reasons, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(json_t *reasons, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* a long reason is cut by bytes: not in the middle of a character */
	if (n >= (int)sizeof buf)
		qc_utf8_trim_tail(buf, sizeof buf - 1);
	json_array_append_new(reasons, qc_json_new_string(buf));
}

/*
 * What the decision needs of the cases, gathered in one pass over them (the cases stream:
 * harness/src/report/report_read.h): per (class, semantics/op) the first NOT_SUPPORTED case, per
 * disallowed verdict the unwaived cases counted per op, and the waived cases. Bounded by the
 * number of ops, plus the waived cases the certificate lists.
 */
typedef struct cert_cases {
	json_t *refused;               /* "class\nsemantics/op" -> first refused case */
	json_t *neg_refused;           /* "class\nsemantics/op" -> negative cases refused */
	uint64_t n_neg_refused;        /* negative cases refused, in every class */
	json_t *per_op[QC_N_VERDICTS]; /* "semantics/op" -> count, in the order first failed */
	json_t *waived;                /* [case] every waived case, in report order */
	const char *require_engine;    /* the run's, or NULL */
	json_t *engine_breach;         /* "semantics/op" -> judged cases breaking it */
} cert_cases;

static void cert_cases_free(cert_cases *cc)
{
	json_decref(cc->refused);
	json_decref(cc->neg_refused);
	json_decref(cc->waived);
	json_decref(cc->engine_breach);
	for (int v = 0; v < QC_N_VERDICTS; v++)
		json_decref(cc->per_op[v]);
}

/* The key of class ext (NULL: the base) and semantics/op in cert_cases.refused. */
static void refused_key(char *key, size_t n, const char *ext, const char *sem_op)
{
	snprintf(key, n, "%s%s\n%s", ext ? "x" : "-", ext ? ext : "", sem_op);
}

static void cert_case(cert_cases *cc, json_t *c)
{
	char op[512];
	if (snprintf(op, sizeof op, "%s/%s", qc_json_str(c, "semantics"), qc_json_str(c, "op")) >=
	    (int)sizeof op)
		qc_utf8_trim_tail(op, sizeof op - 1); /* a key must be UTF-8 */
	const char *verdict = qc_json_str(c, "verdict");
	if (!strcmp(verdict, "NOT_SUPPORTED")) {
		char key[1024];
		refused_key(key, sizeof key, json_string_value(json_object_get(c, "extension")),
		            op);
		if (!strcmp(qc_json_str(c, "expect"), "error")) {
			/* a negative case: the kernel computed nothing on parameters the semantics
			 * forbid, as an error would have; it does not refuse the op (README
			 * "Verdicts") */
			json_t *n = json_object_get(cc->neg_refused, key);
			json_object_set_new(cc->neg_refused, key,
			                    json_integer(n ? json_integer_value(n) + 1 : 1));
			cc->n_neg_refused++;
		} else if (!json_object_get(cc->refused, key))
			json_object_set(cc->refused, key, c);
	}
	int v = qc_verdict_of_name(verdict);
	if (v >= 0 && !qc_verdict_conforms((qc_verdict)v) && !json_object_get(c, "waived")) {
		json_t *n = json_object_get(cc->per_op[v], op);
		json_object_set_new(cc->per_op[v], op,
		                    json_integer(n ? json_integer_value(n) + 1 : 1));
	}
	if (json_object_get(c, "waived"))
		json_array_append(cc->waived, c);
	if (cc->require_engine && v >= 0 && qc_verdict_judged((qc_verdict)v) &&
	    !qc_engine_meets(qc_engine_of_kind(qc_json_str(json_object_get(c, "engine"), "kind")),
	                     cc->require_engine)) {
		json_t *n = json_object_get(cc->engine_breach, op);
		json_object_set_new(cc->engine_breach, op,
		                    json_integer(n ? json_integer_value(n) + 1 : 1));
	}
}

/* Reads every case of rep into cc. 0, or -1 with the reason in err. */
static int cert_cases_read(cert_cases *cc, qc_report *rep, char *err, size_t errsz)
{
	cc->refused = json_object();
	cc->neg_refused = json_object();
	cc->waived = json_array();
	cc->engine_breach = json_object();
	cc->require_engine = json_string_value(
	        json_object_get(json_object_get(qc_report_doc(rep), "run"), "require_engine"));
	for (int v = 0; v < QC_N_VERDICTS; v++)
		cc->per_op[v] = json_object(); /* insertion order is kept (jansson >= 2.8) */
	json_t *c;
	int rc;
	qc_report_rewind(rep);
	while ((rc = qc_report_next(rep, &c, err, errsz)) > 0) {
		cert_case(cc, c);
		json_decref(c);
	}
	return rc;
}

/* Per disallowed verdict, the failing cases no waiver accepted, counted per semantics/op in
 * the order the ops first fail: "12 cases FAIL: litert/ADD 12". */
/* "N cases WHAT: op n, op n, ..." from per_op ("semantics/op" -> count), when N > 0. */
static void per_op_reason(json_t *reasons, json_t *per_op, const char *what)
{
	unsigned long long total = 0;
	const char *op;
	json_t *n;
	json_object_foreach(per_op, op, n) total += (unsigned long long)json_integer_value(n);
	if (!total)
		return;
	char buf[1536];
	size_t used = (size_t)snprintf(buf, sizeof buf, "%llu case%s %s:", total,
	                               total == 1 ? "" : "s", what);
	int k = 0;
	json_object_foreach(per_op, op, n)
	{
		if (used >= sizeof buf - 64) {
			/* an op name may have filled the buffer: cut before it */
			if (used >= sizeof buf)
				used = qc_utf8_trim_tail(buf, sizeof buf - 64);
			snprintf(buf + used, sizeof buf - used, ", ...");
			break;
		}
		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s %s %lld",
		                         k++ ? "," : "", op, (long long)json_integer_value(n));
	}
	if (used >= sizeof buf)
		qc_utf8_trim_tail(buf, sizeof buf - 1);
	reason(reasons, "%s", buf);
}

static void failing_reasons(const cert_cases *cc, json_t *reasons)
{
	for (int v = 0; v < QC_N_VERDICTS; v++)
		if (!qc_verdict_conforms((qc_verdict)v))
			per_op_reason(reasons, cc->per_op[v], qc_verdict_name((qc_verdict)v));
	if (cc->require_engine) {
		char what[160];
		snprintf(what, sizeof what,
		         "judged that the plugin reported on %s (require_engine %s)",
		         !strcmp(cc->require_engine, "accelerator")
		                 ? "the CPU or on no engine it names"
		                 : "no engine it names",
		         cc->require_engine);
		per_op_reason(reasons, cc->engine_breach, what);
	}
}

/* Why each op with failing cases (not waived) fails, as its diagnosis says it (README,
 * Diagnosis): the rule that explains its failures, the two rules it mixes, or none. */
static void diagnosis_reasons(json_t *report, const cert_cases *cc, json_t *reasons)
{
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(report, "ops"), i, o)
	{
		json_t *d = json_object_get(o, "diagnosis");
		const char *status = qc_json_str(d, "status");
		if (!d || !strcmp(status, "none"))
			continue;
		json_t *best = json_array_get(json_object_get(d, "best"), 0);
		const char *as = qc_json_str(best, "as");
		char sem_op[256];
		snprintf(sem_op, sizeof sem_op, "%s/%s", qc_json_str(o, "semantics"),
		         qc_json_str(o, "op"));
		if (!json_object_get(cc->per_op[QC_FAIL], sem_op))
			continue;
		if (!strcmp(status, "explained") || !strcmp(status, "partly"))
			reason(reasons,
			       "%s: %s by \"%s\" [%s]%s%s%s (%llu of %llu elements outside "
			       "the legal band, %llu failing cases diagnosed of %llu)",
			       sem_op,
			       !strcmp(status, "explained") ? "every failure explained"
			                                    : "failures partly explained",
			       qc_json_str(best, "rule"), qc_json_str(best, "id"),
			       as[0] ? " (as " : "", as, as[0] ? ")" : "",
			       jcount(best, "elements_outside_band_explained"),
			       jcount(d, "elements_outside_band"),
			       jcount(d, "failing_cases_diagnosed"), jcount(d, "failing_cases"));
		else if (!strcmp(status, "mixed"))
			reason(reasons, "%s: two rules mixed, \"%s\" [%s] and \"%s\" [%s]%s",
			       sem_op, qc_json_str(best, "rule"), qc_json_str(best, "id"),
			       qc_json_str(json_object_get(d, "mixed_with"), "rule"),
			       qc_json_str(json_object_get(d, "mixed_with"), "id"),
			       json_is_integer(json_object_get(d, "tail_width"))
			               ? " (a vector body and its scalar tail)"
			               : "");
		else if (!strcmp(status, "unexplained"))
			reason(reasons,
			       "%s: no rule of the catalogue explains the failures (%llu "
			       "elements outside the legal band)",
			       sem_op, jcount(d, "elements_outside_band"));
	}
}

/* The first case of class ext (NULL: the base) and semantics/op with a NOT_SUPPORTED verdict. */
static json_t *first_refused(const cert_cases *cc, const char *ext, const char *sem_op)
{
	char key[1024];
	refused_key(key, sizeof key, ext, sem_op);
	return json_object_get(cc->refused, key);
}

/* One class of the profile: every required op ran, none NOT_SUPPORTED (the first refused case
 * and the kernel's message named), and at least min_cases cases. */
static void class_reasons(const cert_cases *cc, json_t *cls, const char *ext, json_t *reasons)
{
	char pre[160] = "";
	if (ext)
		snprintf(pre, sizeof pre, "extension %s: ", ext);
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(cls, "required_ops"), i, o)
	{
		unsigned long long n = jcount(o, "cases");
		unsigned long long ns = jcount(json_object_get(o, "verdicts"), "NOT_SUPPORTED");
		char key[1024];
		refused_key(key, sizeof key, ext, qc_json_str(o, "op"));
		unsigned long long neg = (unsigned long long)json_integer_value(
		        json_object_get(cc->neg_refused, key));
		ns = ns >= neg ? ns - neg : 0;
		if (!n) {
			reason(reasons, "%srequired op %s: no case ran", pre, qc_json_str(o, "op"));
		} else if (ns) {
			json_t *c = first_refused(cc, ext, qc_json_str(o, "op"));
			char negs[96] = "";
			if (neg)
				snprintf(negs, sizeof negs,
				         " (and %llu negative case%s, which a refusal answers)",
				         neg, neg == 1 ? "" : "s");
			reason(reasons,
			       "%srequired op %s: %llu of %llu case%s NOT_SUPPORTED%s%s%s%s%s", pre,
			       qc_json_str(o, "op"), ns, n, n == 1 ? "" : "s", negs,
			       c ? "; the first, " : "", c ? qc_json_str(c, "name") : "",
			       c ? ": " : "", c ? qc_json_str(c, "message") : "");
		}
	}
	unsigned long long cases = jcount(cls, "cases"), min = jcount(cls, "min_cases");
	if (cases < min)
		reason(reasons, "%s%llu case%s, the %s needs %llu", pre, cases,
		       cases == 1 ? "" : "s", ext ? "extension" : "profile", min);
}

static json_t *reasons_of(json_t *report, const cert_cases *cc)
{
	json_t *reasons = json_array();
	json_t *run = json_object_get(report, "run");
	json_t *profile = json_object_get(report, "profile");
	/* what is wrong first: the failures and why, then what the run did not cover */
	failing_reasons(cc, reasons);
	diagnosis_reasons(report, cc, reasons);
	/* a run stopped by a signal judged only part of the profile */
	json_t *intr = json_object_get(report, "interrupted");
	char by[64] = "?";
	if (json_is_object(intr))
		qc_report_stopped_by(intr, by, sizeof by);
	if (intr)
		reason(reasons,
		       "interrupted run (%s after %llu of %llu cases): a certificate needs "
		       "every case of the profile",
		       by, jcount(intr, "cases_done"), jcount(intr, "cases_planned"));
	if (!json_is_object(profile)) {
		reason(reasons, "the report has no profile (a run without --profile certifies "
		                "nothing)");
		return reasons;
	}
	/* a certificate covers the whole profile: a selection of it proves nothing */
	json_t *filters = json_object_get(run, "filters");
	if (json_array_size(filters))
		reason(reasons,
		       "filtered run (%zu --filter): a certificate needs every case of "
		       "the profile",
		       json_array_size(filters));
	if (json_array_size(json_object_get(run, "case_names")))
		reason(reasons,
		       "run of %zu --case name%s: a certificate needs every case of the "
		       "profile",
		       json_array_size(json_object_get(run, "case_names")),
		       json_array_size(json_object_get(run, "case_names")) == 1 ? "" : "s");
	json_t *shard = json_object_get(run, "shard");
	if (json_is_object(shard))
		reason(reasons, "shard %llu of %llu: a certificate needs every case of the profile",
		       jcount(shard, "index"), jcount(shard, "count"));
	size_t i;
	json_t *o;
	/* the base (the profile's top level), then each extension the run covers */
	class_reasons(cc, profile, NULL, reasons);
	json_array_foreach(json_object_get(profile, "extensions"), i, o)
	        class_reasons(cc, o, qc_json_str(o, "name"), reasons);
	json_array_foreach(json_object_get(report, "waivers"), i, o)
	{
		if (json_is_true(json_object_get(o, "expired")))
			reason(reasons, "waiver expired: '%s' (%s) held until %s",
			       qc_json_str(o, "case"), qc_json_str(o, "reason"),
			       qc_json_str(o, "expires"));
	}
	if (!json_array_size(reasons) &&
	    !json_is_true(json_object_get(json_object_get(report, "summary"), "conforms")))
		reason(reasons, "the run does not conform");
	return reasons;
}

json_t *qc_certify_reasons(json_t *report)
{
	qc_report *rep = qc_report_of(report);
	cert_cases cc = {0};
	char err[256];
	json_t *reasons = NULL;
	if (rep && cert_cases_read(&cc, rep, err, sizeof err) == 0)
		reasons = reasons_of(report, &cc);
	cert_cases_free(&cc);
	qc_report_close(rep);
	return reasons;
}

/* ---- the certificate ---- */

static json_t *copy(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return v ? json_deep_copy(v) : json_null();
}

/* The waiver that accepted a case: the first unexpired one in file order whose glob matches
 * (harness/src/judge/waivers.c qc_waivers_match); NULL if the report lists none. */
static json_t *waiver_of(json_t *report, const char *name)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(report, "waivers"), i, w)
	{
		if (!json_is_true(json_object_get(w, "expired")) &&
		    fnmatch(qc_json_str(w, "case"), name, 0) == 0)
			return w;
	}
	return NULL;
}

/* Who stands behind each fact of the certificate: what this harness computed, what the device
 * reported through --remote (which the harness cannot check), what the plugin said of itself. */
static json_t *provenance(json_t *plugin, json_t *engines)
{
	int dev_sha = !strcmp(qc_json_str(plugin, "sha256_source"), "device");
	int offline = !strcmp(qc_json_str(plugin, "sha256_source"), "records");
	int dev_pf = !strcmp(qc_json_str(json_object_get(plugin, "platform"), "source"), "device");
	json_t *h = json_array(), *d = json_array(), *p = json_array();
	const char *harness[] = {"verdicts", "cases", "specs", "profile", "report.sha256"};
	for (size_t i = 0; i < sizeof harness / sizeof harness[0]; i++)
		json_array_append_new(h, json_string(harness[i]));
	json_array_append_new(dev_sha ? d : h, json_string("plugin.sha256"));
	json_array_append_new(dev_sha ? d : h, json_string("plugin.path"));
	json_array_append_new(dev_pf ? d : h, json_string("plugin.platform"));
	/* offline: the records are the device's word for what its runner linked and ran, how
	 * long each case took, and which cases a fault or watchdog handler stopped */
	const char *own[] = {"plugin.name", "plugin.version", "plugin.abi_version"};
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		json_array_append_new(offline ? d : p, json_string(own[i]));
	if (engines) /* engine(): which engine ran each case, as the plugin (offline: as the
	              * device's records) say */
		json_array_append_new(offline ? d : p, json_string("engines"));
	if (offline) {
		/* a chain's mode is the runner's word; its first_differing_node the harness's
		 * comparison of intermediates the runner sent, which it cannot check were the
		 * ones it fed forward */
		const char *rec[] = {"plugin.options",      "offline.runner_version",
		                     "offline.runner_mode", "cases.seconds",
		                     "offline.aborted",     "cases.chain"};
		for (size_t i = 0; i < sizeof rec / sizeof rec[0]; i++)
			json_array_append_new(d, json_string(rec[i]));
	}
	json_t *pv = json_object();
	json_object_set_new(pv, "computed_by_harness", h);
	json_object_set_new(pv, "reported_by_device", d);
	json_object_set_new(pv, "reported_by_plugin", p);
	return pv;
}

json_t *qc_certificate_build(qc_report *rep, const char *report_path, const char *report_sha256,
                             const qc_certify_profile_file *pf, char *err, size_t errsz)
{
	cert_cases cc = {0};
	if (cert_cases_read(&cc, rep, err, errsz) != 0) {
		cert_cases_free(&cc);
		return NULL;
	}
	json_t *report = qc_report_doc(rep);
	json_t *run = json_object_get(report, "run"), *summary = json_object_get(report, "summary");
	json_t *profile = json_object_get(report, "profile");
	json_t *reasons = reasons_of(report, &cc);
	json_t *cert = json_object();
	json_object_set_new(cert, "format", json_string("qconform-certificate"));
	json_object_set_new(cert, "format_version", json_integer(QC_CERTIFICATE_FORMAT));
	json_object_set_new(cert, "certified", json_boolean(json_array_size(reasons) == 0));
	json_object_set_new(cert, "reasons", reasons);

	json_t *p = json_object();
	json_object_set_new(p, "name",
	                    json_is_object(profile) ? copy(profile, "name") : copy(run, "profile"));
	json_object_set_new(p, "description",
	                    pf && pf->description ? qc_json_new_string(pf->description)
	                                          : json_null());
	json_object_set_new(p, "path", pf && pf->path ? qc_json_new_string(pf->path) : json_null());
	json_object_set_new(p, "sha256", pf && pf->sha256 ? json_string(pf->sha256) : json_null());
	json_object_set_new(p, "min_cases", json_integer((json_int_t)jcount(profile, "min_cases")));
	json_object_set_new(p, "cases", json_integer((json_int_t)jcount(profile, "cases")));
	json_t *ops = json_object_get(profile, "required_ops");
	json_object_set_new(p, "required_ops", ops ? json_deep_copy(ops) : json_array());
	/* what the certificate covers: the base and the extensions the run declared */
	json_t *covers = json_array(), *exts = json_object_get(profile, "extensions"), *x;
	json_array_append_new(covers, json_string("base"));
	size_t k;
	json_array_foreach(exts, k, x) json_array_append_new(covers, copy(x, "name"));
	json_object_set_new(p, "covers", covers);
	json_object_set_new(p, "extensions", exts ? json_deep_copy(exts) : json_array());
	json_t *nc = json_object_get(profile, "not_covered");
	json_object_set_new(p, "not_covered", nc ? json_deep_copy(nc) : json_array());
	json_object_set_new(cert, "profile", p);

	json_object_set_new(cert, "cases", json_integer((json_int_t)jcount(summary, "cases")));
	json_object_set_new(cert, "verdicts", copy(summary, "verdicts"));
	json_object_set_new(cert, "negative_refused", json_integer((json_int_t)cc.n_neg_refused));
	json_t *waived = json_array();
	size_t i;
	json_t *c;
	json_array_foreach(cc.waived, i, c)
	{
		json_t *why = json_object_get(c, "waived");
		json_t *w = waiver_of(report, qc_json_str(c, "name")),
		       *e = json_object_get(w, "expires");
		json_t *x = json_object();
		json_object_set_new(x, "case", copy(c, "name"));
		json_object_set_new(x, "verdict", copy(c, "verdict"));
		json_object_set_new(x, "reason", json_deep_copy(why));
		json_object_set_new(x, "expires",
		                    json_is_string(e) ? json_deep_copy(e) : json_null());
		json_array_append_new(waived, x);
	}
	json_object_set_new(cert, "waived", waived);
	json_object_set_new(cert, "plugin", copy(run, "plugin"));
	/* what the plugin said of the engines that ran the judged cases, and the requirement */
	json_object_set_new(cert, "require_engine", copy(run, "require_engine"));
	json_object_set_new(cert, "engines", copy(summary, "engines"));
	/* --repeat: each judged case ran that many times, bit-identical (or NONDETERMINISTIC) */
	json_object_set_new(cert, "repeat", copy(run, "repeat"));
	json_object_set_new(
	        cert, "provenance",
	        provenance(json_object_get(run, "plugin"), json_object_get(summary, "engines")));
	json_t *imp = json_object_get(run, "import");
	if (imp) /* the outputs came from an offline runner's records */
		json_object_set_new(cert, "offline", json_deep_copy(imp));
	json_object_set_new(cert, "qconform_version", copy(run, "qconform_version"));
	json_object_set_new(cert, "specs", copy(run, "specs"));
	json_object_set_new(cert, "host", copy(run, "host"));
	json_object_set_new(cert, "seed", copy(run, "seed"));
	json_object_set_new(cert, "command", copy(run, "command"));
	json_object_set_new(cert, "started", copy(run, "started"));
	json_object_set_new(cert, "finished", copy(summary, "finished"));
	json_t *ev = json_object();
	json_object_set_new(ev, "path", qc_json_new_string(report_path));
	json_object_set_new(ev, "sha256", json_string(report_sha256));
	json_object_set_new(cert, "report", ev);
	cert_cases_free(&cc);
	return cert;
}
