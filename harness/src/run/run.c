#include "run.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cases.h"
#include "compare.h"
#include "console.h"
#include "diagnose.h"
#include "diff.h"
#include "digest.h"
#include "dtype.h"
#include "dump.h"
#include "expected.h"
#include "import.h"
#include "jobs.h"
#include "journal.h"
#include "poison.h"
#include "profile.h"
#include "qref.h"
#include "report.h"
#include "report_html.h"
#include "report_junit.h"
#include "report_read.h"
#include "results.h"
#include "rng.h"
#include "runner.h"
#include "slua.h"
#include "spec.h"
#include "utf8.h"
#include "util.h"
#include "variants.h"
#include "waivers.h"

#define RUN_PLAN             1
#define LIST_PLAN            3 /* list: RUN_PLAN's names, no units, each kept case listed */
#define UNIT_CASES           32
#define MAX_PRINTED_FAILURES 20

int qc_filter_match(const char *const *filters, int n, const char *name)
{
	int includes = 0, included = 0;
	for (int i = 0; i < n; i++) {
		const char *f = filters[i];
		if (f[0] == '-') {
			if (fnmatch(f + 1, name, 0) == 0)
				return 0;
		} else {
			includes++;
			included |= fnmatch(f, name, 0) == 0;
		}
	}
	return !includes || included;
}

int qc_case_selected(const qc_run_opts *o, const char *name)
{
	if (!qc_filter_match(o->filters, o->n_filters, name))
		return 0;
	if (!o->n_case_names)
		return 1;
	for (int i = 0; i < o->n_case_names; i++)
		if (!strcmp(o->case_names[i], name))
			return 1;
	return 0;
}

/*
 * --shard K/N keeps the cases whose name hashes to K. A hash of the name (not the position in
 * the expansion) keeps every case in its shard when other specs gain or lose cases, so a
 * shard's history (timings, a per-shard baseline, a flaky case) follows the case; with
 * thousands of cases the shards come out even to a few percent. The hash is FNV-1a mixed by
 * splitmix64 (harness/src/cases/rng.c qc_hash64) with a fixed seed: it does not depend on --seed,
 * the host or the plugin, so every machine of a CI matrix splits the same way.
 */
#define SHARD_HASH_SEED 0x5348415244ull /* "SHARD" */

int qc_shard_of(const char *case_name, int n)
{
	return n > 1 ? (int)(qc_hash64(case_name, SHARD_HASH_SEED) % (uint64_t)n) + 1 : 1;
}

int qc_shard_parse(const char *s, int *index, int *count)
{
	char *end;
	long k = strtol(s, &end, 10);
	if (end == s || *end != '/')
		return -1;
	const char *d = end + 1;
	long n = strtol(d, &end, 10);
	if (end == d || *end || n < 1 || n > 1000000 || k < 1 || k > n)
		return -1;
	*index = (int)k;
	*count = (int)n;
	return 0;
}

static int in_shard(const qc_run_opts *o, const char *name)
{
	return o->shard_count <= 1 || qc_shard_of(name, o->shard_count) == o->shard_index;
}

static int spec_in_profile(const qc_spec *s, const char *profile)
{
	if (!profile)
		return 1;
	for (int i = 0; i < s->n_profiles; i++)
		if (strcmp(s->profiles[i], profile) == 0)
			return 1;
	return 0;
}

/* ---- loading and validating every spec before anything runs ---- */

typedef struct specset {
	qc_spec **specs;
	int n;
	uint64_t *selected; /* cases per spec after filters */
	uint64_t total;
	uint64_t unsharded; /* cases after filters, every shard */
	uint64_t *filtered; /* per spec: cases after filters, every shard */
	qc_profile **profiles;
	int n_profiles;
	qc_profile *profile;     /* --profile */
	qc_profile_tally *tally; /* its classes: covered, planned (with --profile) */
	uint64_t hits[QC_PROFILE_MAX_EXT][QC_PROFILE_MAX_RULES]; /* cases per match rule */
	qc_job_unit *units; /* run: what the job threads take, in order */
	size_t n_units, cap_units;
	FILE *listing; /* list: a line per case kept in the shard (its class with --profile) */
	struct spec_plan *plans; /* run: per spec, planned where it was loaded, or not */
} specset;

/* A run's plan of one spec, made by the thread that loaded it (names only: no --profile, no
 * --case); the main thread only offsets its ordinals. */
typedef struct spec_plan {
	int done; /* 0: the main thread plans the spec itself */
	int dup;  /* two of its cases hash to one name: check_duplicates names them */
	uint64_t filtered, selected;
	qc_job_unit *units; /* ordinals from the spec's first case the run holds */
	size_t n_units;
	uint8_t *held; /* per case, QC_HELD_* (jobs.h): the job threads skip the others unnamed */
} spec_plan;

static void specset_free(specset *ss)
{
	for (int i = 0; i < ss->n; i++)
		qc_spec_free(ss->specs[i]);
	for (int i = 0; i < ss->n_profiles; i++)
		qc_profile_free(ss->profiles[i]);
	free(ss->specs);
	free(ss->selected);
	free(ss->filtered);
	free(ss->profiles);
	free(ss->tally);
	free(ss->units);
	for (int i = 0; ss->plans && i < ss->n; i++) {
		free(ss->plans[i].units);
		free(ss->plans[i].held);
	}
	free(ss->plans);
	memset(ss, 0, sizeof *ss);
}

static void load_profiles(specset *ss, char **files, int n, qc_diag *diag)
{
	ss->profiles = qc_xcalloc((size_t)n, sizeof *ss->profiles);
	for (int i = 0; i < n; i++) {
		qc_profile *p = qc_profile_load(files[i], diag);
		if (p && qc_profile_find(ss->profiles, ss->n_profiles, p->name)) {
			qc_diag_error(diag, files[i], NULL, "profile '%s' is defined twice",
			              p->name);
			qc_profile_free(p);
		} else if (p) {
			ss->profiles[ss->n_profiles++] = p;
		}
		free(files[i]);
	}
	free(files);
}

/* Every profile a spec names must exist (when profiles are known). */
static void check_profile_names(specset *ss, qc_diag *diag)
{
	if (!ss->n_profiles)
		return;
	for (int i = 0; i < ss->n; i++) {
		qc_spec *s = ss->specs[i];
		for (int k = 0; k < s->n_profiles; k++)
			if (!qc_profile_find(ss->profiles, ss->n_profiles, s->profiles[k]))
				qc_diag_error(diag, s->path, s->profile_nodes[k],
				              "unknown profile '%s' (no profiles/%s.yaml)",
				              s->profiles[k], s->profiles[k]);
	}
}

/* A node that only carries a position (0-based line and column), for messages. */
static yaml_node_t at_mark(size_t line, size_t column)
{
	yaml_node_t n;
	memset(&n, 0, sizeof n);
	n.start_mark.line = line;
	n.start_mark.column = column;
	return n;
}

/*
 * The class of a case under the --profile (0 the base, k + 1 extension k; c->extension set),
 * or -1 if it meets rules of two extensions (load_specs reports it).
 */
static int case_class(const specset *ss, qc_case *c)
{
	c->extension = NULL;
	if (!ss->profile)
		return 0;
	int a[2], b[2];
	int k = qc_profile_classify(ss->profile, c, a, b, NULL);
	if (k > 0)
		c->extension = ss->profile->ext[k - 1].name;
	return k;
}

/* Does the run hold the cases of class k (the base, a declared extension, no profile)? */
static int class_covered(const specset *ss, int k)
{
	return !ss->tally || (k >= 0 && ss->tally->covered[k]);
}

/*
 * --extension: the profile's extensions the run covers besides its base. An unknown name is a
 * usage error that lists the profile's extensions.
 */
static int resolve_extensions(const qc_run_opts *o, specset *ss)
{
	qc_profile *p = ss->profile;
	ss->tally = qc_xcalloc(1, sizeof *ss->tally);
	ss->tally->p = p;
	ss->tally->covered[0] = 1;
	for (int i = 0; i < o->n_extensions; i++) {
		const char *x = o->extensions[i];
		int k = qc_profile_ext_index(p, x);
		if (!strcmp(x, "all")) {
			for (int e = 0; e < p->n_ext; e++)
				ss->tally->covered[e + 1] = 1;
			continue;
		}
		if (k < 0) {
			fprintf(stderr,
			        "qconform: --extension %s: profile %s has no such extension (", x,
			        p->name);
			if (!p->n_ext)
				fprintf(stderr, "it has none: its base is all of it");
			for (int e = 0; e < p->n_ext; e++)
				fprintf(stderr, "%s%s",
				        e ? ", " : "its extensions: ", p->ext[e].name);
			fprintf(stderr, "%s)\n", p->n_ext ? "; or all" : "");
			return -1;
		}
		ss->tally->covered[k + 1] = 1;
	}
	return 0;
}

/*
 * A profile run must hold every required op and at least min_cases cases, in its base and in
 * each extension (declared or not: a suite that lost cases is refused either way), and every
 * extension's match rule must match a case. An extension without required_ops of its own gets
 * the base's required ops that have cases in it. base_ops[k][i]: cases of class k of the
 * base's required op i; ext_ops[e][i]: cases of extension e's required op i.
 */
static void check_profile_coverage(specset *ss, uint64_t (*base_ops)[QC_PROFILE_MAX_OPS],
                                   uint64_t (*ext_ops)[QC_PROFILE_MAX_OPS], qc_diag *diag)
{
	qc_profile *p = ss->profile;
	const uint64_t *planned = ss->tally->planned;
	for (int k = 0; k < p->n_ops; k++)
		if (!base_ops[0][k])
			qc_diag_error(diag, p->path, NULL,
			              "profile '%s' requires %s, but no spec of the profile has "
			              "cases for it%s",
			              p->name, p->ops[k], p->n_ext ? " in its base" : "");
	if (planned[0] < p->min_cases)
		qc_diag_error(diag, p->path, NULL,
		              "profile '%s'%s needs at least %llu cases, its specs give %llu",
		              p->name, p->n_ext ? ": the base" : "",
		              (unsigned long long)p->min_cases, (unsigned long long)planned[0]);
	for (int e = 0; e < p->n_ext; e++) {
		qc_profile_ext *x = &p->ext[e];
		yaml_node_t at = at_mark(x->line, x->column);
		if (!x->ops_given) {
			for (int k = 0; k < p->n_ops; k++)
				if (base_ops[e + 1][k])
					x->ops[x->n_ops++] = strdup(p->ops[k]);
		}
		for (int k = 0; x->ops_given && k < x->n_ops; k++)
			if (!ext_ops[e][k])
				qc_diag_error(diag, p->path, &at,
				              "extension '%s' requires %s, but no case of the "
				              "profile's specs in the extension has it",
				              x->name, x->ops[k]);
		if (planned[e + 1] < x->min_cases)
			qc_diag_error(diag, p->path, &at,
			              "extension '%s' needs at least %llu cases, the profile's "
			              "specs give %llu",
			              x->name, (unsigned long long)x->min_cases,
			              (unsigned long long)planned[e + 1]);
		for (int r = 0; r < x->n_rules; r++) {
			yaml_node_t rat = at_mark(x->rules[r].line, x->rules[r].column);
			if (!ss->hits[e][r])
				qc_diag_error(diag, p->path, &rat,
				              "extension '%s': this match rule matches no case of "
				              "the profile's specs",
				              x->name);
		}
	}
}

/*
 * Classifies case c of spec s under every profile s names: a case meeting the rules of two
 * extensions is an error at the second rule in the profile file (once per spec and profile).
 * Under the --profile, counts the case in its class and the class's required ops.
 */
static void classify_case(specset *ss, const qc_spec *s, qc_case *c, int *reported,
                          uint64_t (*base_ops)[QC_PROFILE_MAX_OPS],
                          uint64_t (*ext_ops)[QC_PROFILE_MAX_OPS], qc_diag *diag)
{
	for (int i = 0; i < s->n_profiles; i++) {
		qc_profile *p =
		        (qc_profile *)qc_profile_find(ss->profiles, ss->n_profiles, s->profiles[i]);
		if (!p || (ss->profile && p != ss->profile))
			continue;
		int a[2], b[2];
		int k = qc_profile_classify(p, c, a, b, p == ss->profile ? ss->hits : NULL);
		if (k < 0) {
			if (!reported[i]) {
				reported[i] = 1;
				yaml_node_t at = at_mark(p->ext[b[0]].rules[b[1]].line,
				                         p->ext[b[0]].rules[b[1]].column);
				qc_diag_error(
				        diag, p->path, &at,
				        "case %s (%s) meets this rule of extension '%s' and the "
				        "rule of extension '%s' at %zu:%zu: a case belongs to the "
				        "base or to exactly one extension",
				        c->name, s->path, p->ext[b[0]].name, p->ext[a[0]].name,
				        p->ext[a[0]].rules[a[1]].line + 1,
				        p->ext[a[0]].rules[a[1]].column + 1);
			}
			continue;
		}
		if (p != ss->profile)
			continue;
		ss->tally->planned[k]++;
		int bi = qc_profile_op_index(p->ops, p->n_ops, c);
		if (bi >= 0)
			base_ops[k][bi]++;
		if (k > 0) {
			int ei = qc_profile_op_index(p->ext[k - 1].ops, p->ext[k - 1].n_ops, c);
			if (ei >= 0)
				ext_ops[k - 1][ei]++;
		}
	}
}

/* What only the reference's answer can tell about a spec (qc_expected_spec_error), reported
 * once per node. */
static void check_case_answers(const qc_spec *s, const qc_case *c, qc_diag *diag,
                               const yaml_node_t **reported, int *n_reported)
{
	if (!c->tol.n_roundings && c->max_saturation < 0)
		return;
	char err[256] = "", msg[512] = "";
	qc_expected *e = qc_expected_new(c, err, sizeof err);
	const yaml_node_t *at = qc_expected_spec_error(c, e, msg, sizeof msg);
	qc_expected_free(e, c->call.n_outputs);
	if (!at)
		return;
	for (int i = 0; i < *n_reported; i++)
		if (reported[i] == at)
			return;
	if (*n_reported < 8)
		reported[(*n_reported)++] = at;
	qc_diag_error(diag, s->path, at, "%s", msg);
}

/*
 * Case names identify cases in reports, filters, baselines, merges and waivers: they must be
 * unique in the whole run. A name is "<semantics>/<file stem>/..." (the spec's id first), so
 * only the specs of one id can share names: each group of specs with the same id is checked
 * on its own, by its names alone (no Lua, no data), and memory grows with the largest group,
 * not with the run. The first definition (spec order, then case order) is the original; each
 * later one is reported, once per spec.
 */
typedef struct case_key {
	uint64_t hash;
	uint32_t spec;
	uint32_t idx;
} case_key;

static int cmp_key(const void *a, const void *b)
{
	const case_key *x = a, *y = b;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->spec != y->spec)
		return x->spec < y->spec ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void check_duplicates(const qc_run_opts *o, specset *ss, qc_diag *diag)
{
	unsigned char *done = qc_xcalloc((size_t)ss->n + 1, 1);
	unsigned char *dup_reported = qc_xcalloc((size_t)ss->n + 1, 1);
	qc_diag quiet = {0, 0, stderr};
	for (int g = 0; g < ss->n; g++) {
		if (done[g] || !spec_in_profile(ss->specs[g], o->profile))
			continue;
		uint64_t n = 0;
		int group = 0;
		for (int i = g; i < ss->n; i++)
			if (!strcmp(ss->specs[i]->id, ss->specs[g]->id) &&
			    spec_in_profile(ss->specs[i], o->profile)) {
				n += qc_cases_count(ss->specs[i]);
				group++;
			}
		if (group == 1 && ss->plans && ss->plans[g].done && !ss->plans[g].dup)
			continue; /* its loading thread found no two names alike */
		case_key *keys = qc_xcalloc((size_t)(n ? n : 1), sizeof *keys);
		uint64_t k = 0;
		for (int i = g; i < ss->n; i++) {
			if (strcmp(ss->specs[i]->id, ss->specs[g]->id) ||
			    !spec_in_profile(ss->specs[i], o->profile))
				continue;
			done[i] = 1;
			qc_cases *it = qc_cases_begin(ss->specs[i], o->seed, 0, &quiet);
			uint64_t count = qc_cases_count(ss->specs[i]);
			for (uint64_t idx = 0; idx < count && k < n; idx++)
				keys[k++] = (case_key){qc_hash64(qc_cases_name(it, idx, NULL), 0),
				                       (uint32_t)i, (uint32_t)idx};
			qc_cases_end(it);
		}
		qsort(keys, (size_t)k, sizeof *keys, cmp_key);
		for (uint64_t a = 0, end; a < k; a = end) {
			for (end = a + 1; end < k && keys[end].hash == keys[a].hash; end++)
				;
			const case_key *f = &keys[a]; /* sorted: the first definition */
			for (uint64_t j = a + 1; j < end; j++) {
				const case_key *d = &keys[j];
				if (dup_reported[d->spec])
					continue;
				dup_reported[d->spec] = 1;
				char name[512];
				const yaml_node_t *d_at, *f_at;
				qc_cases *it =
				        qc_cases_begin(ss->specs[f->spec], o->seed, 0, &quiet);
				qc_cases_name(it, f->idx, &f_at);
				qc_cases_end(it);
				it = qc_cases_begin(ss->specs[d->spec], o->seed, 0, &quiet);
				snprintf(name, sizeof name, "%s", qc_cases_name(it, d->idx, &d_at));
				qc_cases_end(it);
				if (d->spec == f->spec)
					qc_diag_error(
					        diag, ss->specs[d->spec]->path, d_at,
					        "two cases expand to the same name %s (also at "
					        "%zu:%zu); make sweep values distinct",
					        name, f_at->start_mark.line + 1,
					        f_at->start_mark.column + 1);
				else
					qc_diag_error(
					        diag, ss->specs[d->spec]->path, d_at,
					        "case name %s is also defined by %s (%zu:%zu)",
					        name, ss->specs[f->spec]->path,
					        f_at->start_mark.line + 1,
					        f_at->start_mark.column + 1);
			}
		}
		free(keys);
	}
	free(done);
	free(dup_reported);
}

/*
 * A custom check runs once on the reference's own outputs (errors 0), for the first case of
 * each check of the spec: one that fails, loops or is stopped on them is a spec error now, not
 * an ERROR verdict per case later. checked[] holds the checks tried (at most 8).
 */
static void try_check(qc_spec *s, const qc_case *c, qc_diag *diag, const yaml_node_t **checked,
                      int *n_checked)
{
	int tried = !c->tol.check || *n_checked == 8;
	for (int k = 0; k < *n_checked && !tried; k++)
		tried = checked[k] == c->tol.check_node;
	if (tried)
		return;
	checked[(*n_checked)++] = c->tol.check_node;
	char cerr[512] = "", why[256];
	qc_lua *L = qc_spec_lua(s, cerr, sizeof cerr);
	if (!L) {
		qc_diag_error(diag, s->path, c->tol.check_node, "cannot start Lua: %s", cerr);
		return;
	}
	qc_expected *e = qc_expected_new(c, cerr, sizeof cerr);
	for (int k = 0; e->status == QCF_OK && k < c->call.n_outputs; k++) {
		int ok;
		yaml_node_t at;
		if (qc_expected_check(L, c, e, k, &e->out[k], &ok, why, sizeof why, cerr,
		                      sizeof cerr, &at) != 0) {
			qc_diag_error(diag, s->path, &at, "Lua: %s", cerr);
			break;
		}
	}
	qc_expected_free(e, c->call.n_outputs);
}

/* Has the explicit case at node cn a custom check of its own? */
static int case_has_check(const qc_spec *s, const yaml_node_t *cn)
{
	yaml_node_t *t = qc_map_get(s, cn, "tolerance");
	return t && t->type == YAML_MAPPING_NODE && qc_map_get(s, t, "check");
}

/* A run tries each custom check of s before anything runs, on one case that has it (built with
 * its data): the spec's own check on its first case, a case's own check on that case. */
static void try_checks(const qc_run_opts *o, qc_spec *s, qc_diag *diag)
{
	uint64_t n = qc_cases_count(s),
	         n_explicit = s->cases ? (uint64_t)(s->cases->data.sequence.items.top -
	                                            s->cases->data.sequence.items.start)
	                               : 0;
	const yaml_node_t *checked[8];
	int n_checked = 0;
	qc_cases *it = NULL;
	for (uint64_t idx = 0; idx < n && n_checked < 8; idx++) {
		int want = idx == 0 && s->tolerance && qc_map_get(s, s->tolerance, "check");
		if (idx >= n - n_explicit)
			want |= case_has_check(s,
			                       qc_node(s, s->cases->data.sequence.items
			                                          .start[idx - (n - n_explicit)]));
		if (!want)
			continue;
		if (!it)
			it = qc_cases_begin(s, o->seed, 1, diag);
		qc_case *c;
		qc_cases_seek(it, idx);
		if (qc_cases_next(it, &c) > 0) {
			try_check(s, c, diag, checked, &n_checked);
			qc_case_free(c);
		}
	}
	qc_cases_end(it);
}

/* Appends u to the *n units of *v (room for *cap). */
static void push_unit(qc_job_unit **v, size_t *n, size_t *cap, qc_job_unit u)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = realloc(*v, *cap * sizeof **v);
		if (!*v) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
	}
	(*v)[(*n)++] = u;
}

/* The unit being cut from a spec's cases, in order: a unit ends with every UNIT_CASES cases
 * the run holds (a shard's units are as full as a whole run's: a command per unit), and with
 * the spec. */
typedef struct unit_cut {
	uint64_t first;   /* its first case */
	uint64_t ordinal; /* the ordinal of its first case the run holds */
	uint64_t held;    /* its cases the run holds */
} unit_cut;

/* Case idx of the spec's n is past (held: the run holds it; selected: the cases the filters
 * kept so far, the ordinal of a unit that starts after idx): 1 with *u (spec 0) when a unit
 * holding cases ends at idx. */
static int unit_cut_next(unit_cut *k, uint64_t idx, uint64_t n, int held, uint64_t selected,
                         qc_job_unit *u)
{
	k->held += held != 0;
	if (k->held < UNIT_CASES && idx + 1 < n)
		return 0;
	int any = k->held > 0;
	*u = (qc_job_unit){0, k->first, idx + 1, k->ordinal, NULL};
	*k = (unit_cut){idx + 1, selected, 0};
	return any;
}

/* ---- loading every spec, on up to --jobs threads ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The plan load_specs' loop makes of spec s for a run without --profile or --case: per case
 * its name, the filters and the shard; units ending with every UNIT_CASES cases the run holds
 * and with the spec; whether two names hash alike. Not done if naming a case says anything. */
static void plan_spec(const qc_run_opts *o, qc_spec *s, spec_plan *pl)
{
	memset(pl, 0, sizeof *pl);
	char *said = NULL;
	size_t said_len = 0;
	FILE *f = open_memstream(&said, &said_len);
	if (!f) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	qc_diag quiet = {0, 0, f};
	uint64_t n = qc_cases_count(s);
	uint64_t *hashes = qc_xcalloc((size_t)(n ? n : 1), sizeof *hashes);
	pl->held = qc_xcalloc((size_t)(n / 4 + 1), 1);
	size_t cap = 0;
	qc_cases *it = qc_cases_begin(s, o->seed, 0, &quiet);
	unit_cut cut = {0, 0, 0};
	for (uint64_t idx = 0; idx < n; idx++) {
		const char *name = qc_cases_name(it, idx, NULL);
		hashes[idx] = qc_hash64(name, 0);
		int here = 0;
		if (qc_case_selected(o, name)) {
			here = in_shard(o, name);
			pl->filtered++;
			pl->selected += here;
			pl->held[idx / 4] |=
			        (uint8_t)((QC_HELD_SELECTED | (here ? QC_HELD_IN_SHARD : 0))
			                  << (2 * (idx % 4)));
		}
		qc_job_unit u;
		if (unit_cut_next(&cut, idx, n, here, pl->filtered, &u))
			push_unit(&pl->units, &pl->n_units, &cap, u);
	}
	qc_cases_end(it);
	qsort(hashes, (size_t)n, sizeof *hashes, cmp_u64);
	for (uint64_t k = 1; k < n && !pl->dup; k++)
		pl->dup = hashes[k] == hashes[k - 1];
	free(hashes);
	fclose(f);
	pl->done = !quiet.errors && !quiet.warnings && !said_len;
	free(said);
	if (!pl->done) {
		free(pl->units);
		free(pl->held);
		memset(pl, 0, sizeof *pl);
	}
}

typedef struct loader {
	char **files;
	int n;
	atomic_int next;
	qc_spec **out;
	char **text; /* per file: what loading it reported */
	size_t *len;
	int *errors, *warnings;
	const qc_run_opts *plan; /* a run's plan_spec for each spec loaded, or NULL */
	spec_plan *plans;
} loader;

static void *load_main(void *arg)
{
	loader *l = arg;
	for (int i; (i = atomic_fetch_add(&l->next, 1)) < l->n;) {
		FILE *f = open_memstream(&l->text[i], &l->len[i]);
		if (!f) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
		qc_diag d = {0, 0, f};
		l->out[i] = qc_spec_load(l->files[i], &d);
		fclose(f);
		l->errors[i] = d.errors;
		l->warnings[i] = d.warnings;
		if (l->plan && l->out[i])
			plan_spec(l->plan, l->out[i], &l->plans[i]);
	}
	return NULL;
}

/* Loads files[0..n) into out[] (NULL where a file has an error), on up to `jobs` threads; what
 * each reports goes to diag in file order, as if they were loaded one after the other. With
 * plan, each spec loaded is planned there too, into plans[]. */
static void load_files(char **files, int n, int jobs, qc_spec **out, qc_diag *diag,
                       const qc_run_opts *plan, spec_plan *plans)
{
	loader l = {files,
	            n,
	            0,
	            out,
	            qc_xcalloc((size_t)n + 1, sizeof(char *)),
	            qc_xcalloc((size_t)n + 1, sizeof(size_t)),
	            qc_xcalloc((size_t)n + 1, sizeof(int)),
	            qc_xcalloc((size_t)n + 1, sizeof(int)),
	            plan,
	            plans};
	int threads = jobs < n ? jobs : n;
	pthread_t t[64];
	int started = 0;
	for (; started < threads - 1 && started < 64; started++)
		if (pthread_create(&t[started], NULL, load_main, &l) != 0)
			break;
	load_main(&l); /* this thread too */
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++) {
		if (l.len[i])
			fwrite(l.text[i], 1, l.len[i], diag->out);
		free(l.text[i]);
		diag->errors += l.errors[i];
		diag->warnings += l.warnings[i];
	}
	free(l.text);
	free(l.len);
	free(l.errors);
	free(l.warnings);
}

void qc_default_specs(char *buf, size_t size)
{
	if (qc_installed_path(NULL, "share/qconform/specs", buf, size) != 0)
		snprintf(buf, size, "specs");
}

/* Loads, then expands every case: without its data (0: list), with it (2: validate, which also
 * runs the reference's checks on every case, qc_cases_check_reference), or for a run
 * (RUN_PLAN: the names only, under a --profile without data; the job threads build the cases
 * the run holds, units of a spec's cases holding UNIT_CASES of the run's in ss->units). Any
 * error -> -1. */
static int load_specs(const qc_run_opts *o, specset *ss, qc_diag *diag, int with_data)
{
	char specs_dir[PATH_MAX], profiles_dir[PATH_MAX + 16];
	qc_default_specs(specs_dir, sizeof specs_dir);
	snprintf(profiles_dir, sizeof profiles_dir, "%s/profiles", specs_dir);
	char *def[] = {specs_dir}, *def_profiles[] = {profiles_dir};
	char **files = NULL, **pfiles = NULL;
	int n_pfiles = 0;
	int n = qc_spec_find(o->n_paths ? o->paths : def, o->n_paths ? o->n_paths : 1, &files,
	                     &pfiles, &n_pfiles, diag);
	if (!n_pfiles && access(def_profiles[0], F_OK) == 0) {
		/* specs given one by one or a subdirectory: profiles from the default place */
		char **none = NULL;
		free(pfiles);
		qc_spec_find(def_profiles, 1, &none, &pfiles, &n_pfiles, diag);
		free(none);
	}
	load_profiles(ss, pfiles, n_pfiles, diag);
	if (o->profile) {
		/* only the profile's specs are loaded (their sweeps evaluated, their cases
		 * planned); a file that cannot be read as YAML is loaded to say why */
		int kept = 0;
		for (int i = 0; i < n; i++) {
			if (qc_spec_declares_profile(files[i], o->profile) != 0)
				files[kept++] = files[i];
			else
				free(files[i]);
		}
		n = kept;
	}
	ss->specs = calloc((size_t)(n ? n : 1), sizeof *ss->specs);
	ss->selected = calloc((size_t)(n ? n : 1), sizeof *ss->selected);
	ss->filtered = qc_xcalloc((size_t)(n ? n : 1), sizeof *ss->filtered);
	qc_spec **loaded = qc_xcalloc((size_t)(n ? n : 1), sizeof *loaded);
	/* a run without --profile or --case plans each spec on the thread that loads it */
	int threads_plan = with_data == RUN_PLAN && !o->profile && !o->n_case_names;
	spec_plan *plans = threads_plan ? qc_xcalloc((size_t)(n ? n : 1), sizeof *plans) : NULL;
	load_files(files, n, o->jobs, loaded, diag, threads_plan ? o : NULL, plans);
	ss->plans = plans;
	for (int i = 0; i < n; i++) {
		if (loaded[i]) {
			if (plans)
				plans[ss->n] = plans[i];
			ss->specs[ss->n++] = loaded[i];
		}
		free(files[i]);
	}
	free(loaded);
	free(files);
	check_profile_names(ss, diag);
	if (o->profile && !(ss->profile = (qc_profile *)qc_profile_find(
	                            ss->profiles, ss->n_profiles, o->profile)))
		qc_diag_error(diag, o->profile, NULL, "unknown profile (no profiles/%s.yaml found)",
		              o->profile);
	if (diag->errors)
		return -1;
	if (ss->profile && resolve_extensions(o, ss) != 0) {
		diag->errors++;
		return -1;
	}
	if (n == 0) {
		fprintf(stderr, "qconform: no spec files found\n");
		return -1;
	}
	uint64_t run_cases = 0;
	for (int i = 0; i < ss->n; i++) {
		if (!spec_in_profile(ss->specs[i], o->profile))
			continue;
		run_cases += qc_cases_count(ss->specs[i]); /* each at most QC_SPEC_MAX_CASES */
		if (run_cases > QC_RUN_MAX_CASES) {
			qc_diag_error(
			        diag, ss->specs[i]->path, NULL,
			        "with this spec the run has %llu cases, more than the limit of "
			        "%llu",
			        (unsigned long long)run_cases,
			        (unsigned long long)QC_RUN_MAX_CASES);
			return -1;
		}
	}
	unsigned char *case_found = qc_xcalloc((size_t)o->n_case_names + 1, 1);
	/* per class, the cases of each of the base's required ops; per extension, of its own */
	uint64_t(*base_ops)[QC_PROFILE_MAX_OPS] =
	        qc_xcalloc(1 + QC_PROFILE_MAX_EXT, sizeof *base_ops);
	uint64_t(*ext_ops)[QC_PROFILE_MAX_OPS] = qc_xcalloc(QC_PROFILE_MAX_EXT, sizeof *ext_ops);
	for (int i = 0; i < ss->n; i++) {
		qc_spec *s = ss->specs[i];
		if (!spec_in_profile(s, o->profile))
			continue;
		int profile_reported[QC_MAX_PROFILES] = {0};
		if (with_data == RUN_PLAN)
			try_checks(o, s, diag);
		const spec_plan *pl = ss->plans ? &ss->plans[i] : NULL;
		if (pl && pl->done) {
			for (size_t k = 0; k < pl->n_units; k++) {
				qc_job_unit u = pl->units[k];
				u.spec = (uint32_t)i;
				u.ordinal += ss->unsharded;
				u.held = pl->held;
				push_unit(&ss->units, &ss->n_units, &ss->cap_units, u);
			}
			ss->unsharded += pl->filtered;
			ss->filtered[i] = pl->filtered;
			ss->selected[i] = pl->selected;
			ss->total += pl->selected;
			continue;
		}
		/* run and list: the names only (no Lua, no data), and under a --profile each case
		 * without its data for its class; the job threads build the cases the run holds */
		int plan = with_data == RUN_PLAN || with_data == LIST_PLAN;
		int names_only = plan && !ss->profile;
		qc_cases *it = qc_cases_begin(s, o->seed, plan ? 0 : with_data, diag);
		qc_case *c = NULL;
		const yaml_node_t *reported[8], *checked[8];
		int n_reported = 0, n_checked = 0;
		uint64_t n_spec = qc_cases_count(s);
		unit_cut cut = {0, ss->unsharded, 0};
		for (uint64_t idx = 0; idx < n_spec; idx++) {
			const char *name;
			c = NULL;
			if (names_only) {
				name = qc_cases_name(it, idx, NULL);
			} else {
				int rc = qc_cases_next(it, &c);
				if (rc == 0)
					break;
				if (rc < 0)
					continue;
				name = c->name;
			}
			if (c)
				classify_case(ss, s, c, profile_reported, base_ops, ext_ops, diag);
			if (with_data == 2) { /* validate: what the reference's answer tells too */
				check_case_answers(s, c, diag, reported, &n_reported);
				qc_cases_check_reference(it, c);
				try_check(s, c, diag, checked, &n_checked);
			}
			int here = 0;
			if (qc_case_selected(o, name) &&
			    (!c || class_covered(ss, case_class(ss, c)))) {
				for (int k = 0; k < o->n_case_names; k++)
					if (!strcmp(o->case_names[k], name))
						case_found[k] = 1;
				ss->unsharded++;
				ss->filtered[i]++;
				here = in_shard(o, name);
				ss->selected[i] += here;
				if (here && ss->listing && c)
					fprintf(ss->listing, "%s\t%s\n", name,
					        qc_profile_class_name(ss->profile,
					                              case_class(ss, c)));
				else if (here && ss->listing)
					fprintf(ss->listing, "%s\n", name);
			}
			qc_case_free(c);
			qc_job_unit u;
			if (with_data == RUN_PLAN &&
			    unit_cut_next(&cut, idx, n_spec, here, ss->unsharded, &u)) {
				u.spec = (uint32_t)i;
				push_unit(&ss->units, &ss->n_units, &ss->cap_units, u);
			}
		}
		qc_cases_end(it);
		ss->total += ss->selected[i];
	}
	check_duplicates(o, ss, diag);
	if (ss->profile && !diag->errors)
		check_profile_coverage(ss, base_ops, ext_ops, diag);
	free(base_ops);
	free(ext_ops);
	/* an exact name that selects nothing is a mistake (a reproduce command run elsewhere) */
	for (int k = 0; k < o->n_case_names && !diag->errors; k++)
		if (!case_found[k])
			qc_diag_error(diag, "--case", NULL,
			              "no case of the selected specs is named '%s'",
			              o->case_names[k]);
	free(case_found);
	return diag->errors ? -1 : 0;
}

/* ---- the reference's answer ---- */

/* ---- run ---- */

const char *qc_default_reference_plugin(char *buf, size_t size)
{
	qc_installed_path("libqconform_reference.so", "lib/qconform/libqconform_reference.so", buf,
	                  size);
	return buf;
}

/* ---- signals: SIGINT, SIGTERM and SIGHUP stop a run, they do not kill it ---- */

/*
 * The handler records the first signal and cancels the jobs (qc_jobs_cancel is
 * async-signal-safe: it kills the workers, and every unit not yet done comes back cancelled).
 * The run loop sees the signal, takes back what was judged and writes the reports of it. The
 * signals are blocked while the job threads start, so they inherit them blocked and only the
 * main thread runs the handler; they are blocked again around qc_jobs_close, so the handler
 * never sees the jobs being freed.
 */
static _Atomic(qc_jobs *) stop_jobs;
static volatile sig_atomic_t stop_signal;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGNALS ((int)(sizeof stop_signals / sizeof stop_signals[0]))

static void on_stop_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
	qc_jobs *J = atomic_load(&stop_jobs);
	if (J)
		qc_jobs_cancel(J);
}

typedef struct stop_state {
	struct sigaction old[N_STOP_SIGNALS];
	sigset_t set, old_mask;
} stop_state;

/* Installs the handler with the signals blocked in this thread (unblock with stop_unblock). */
static void stop_catch(stop_state *s)
{
	stop_signal = 0;
	sigemptyset(&s->set);
	for (int i = 0; i < N_STOP_SIGNALS; i++)
		sigaddset(&s->set, stop_signals[i]);
	pthread_sigmask(SIG_BLOCK, &s->set, &s->old_mask);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sa.sa_mask = s->set;
	sa.sa_flags = SA_RESTART;
	for (int i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &s->old[i]);
}

static void stop_block(stop_state *s)
{
	pthread_sigmask(SIG_BLOCK, &s->set, NULL);
}

static void stop_unblock(stop_state *s)
{
	pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
}

/* The dispositions before stop_catch (a signal still pending was delivered by stop_unblock). */
static void stop_restore(stop_state *s)
{
	atomic_store(&stop_jobs, NULL);
	stop_unblock(s);
	for (int i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &s->old[i], NULL);
}

static const char *signal_name(int sig)
{
	return sig == SIGINT    ? "SIGINT"
	       : sig == SIGTERM ? "SIGTERM"
	       : sig == SIGHUP  ? "SIGHUP"
	                        : "signal";
}

typedef struct run_state {
	const qc_run_opts *o;
	qc_json *json;
	qc_run_stats stats;
	uint64_t done, total;
	qc_progress progress; /* the line on a terminal */
	int colour;           /* verdicts coloured on stdout */
	int printed_failures;
	qc_waivers *waivers; /* --waivers, or NULL */
	uint64_t waived;
	qc_profile_tally *tally;   /* --profile: what its classes ran, or NULL */
	qc_dump *dump;             /* --dump, or NULL */
	qc_journal *journal;       /* one line per judged case, synced per batch (or NULL) */
	uint64_t replayed;         /* --resume: cases taken from the journal */
	qc_result replayed_result; /* the one being replayed (qc_journal_result) */
	double journal_sync_s;     /* time spent flushing and syncing it */
	uint64_t spec_errors;      /* cases that failed to expand while running */
	uint64_t diag_seen[256];   /* hashes of the expansion messages printed */
	int n_diag_seen;
	struct timespec journal_synced; /* the last fdatasync */
	unsigned long journal_syncs;
	uint64_t failing;        /* cases neither allowed nor waived (--max-failures counts them) */
	int stopped;             /* --max-failures was reached: the jobs were cancelled */
	qc_diagnosis *diagnosis; /* the failures' diagnosis (diagnose.h), or NULL */
	char **shrink;           /* --shrink N: the names of the first N FAIL cases */
	int n_shrink;
	qc_pool *pool; /* --remote: the boards (each counts the cases it judged), or NULL */
} run_state;

/* A failing case on the console (none with --quiet), its verdict coloured on a terminal, and
 * the progress line (console.h): every ERROR, CRASH and TIMEOUT (the kernel or the harness
 * broke: each is news), the first MAX_PRINTED_FAILURES FAIL (the diagnosis after the table
 * groups the others by op and rule). */
static void print_case(run_state *st, const qc_case *c, const qc_result *r, const char *waived)
{
	int broke = r->verdict == QC_ERROR || r->verdict == QC_CRASH || r->verdict == QC_TIMEOUT;
	if (!qc_verdict_conforms(r->verdict) && !st->o->quiet &&
	    (broke || st->printed_failures < MAX_PRINTED_FAILURES)) {
		qc_progress_clear(&st->progress);
		/* as the report shows them: no bytes a terminal would act on */
		char name[sizeof c->name * 3], msg[sizeof r->message * 3];
		qc_utf8_sanitize(name, sizeof name, c->name, strlen(c->name));
		qc_utf8_sanitize(msg, sizeof msg, r->message, strlen(r->message));
		fprintf(stdout, "%s%-8s%s %s: %s%s%s%s\n",
		        qc_console_verdict_on(st->colour, r->verdict), qc_verdict_name(r->verdict),
		        qc_console_off(st->colour), name, msg, waived ? " (waived: " : "",
		        waived ? waived : "", waived ? ")" : "");
		if (!broke && ++st->printed_failures == MAX_PRINTED_FAILURES)
			fprintf(stdout,
			        "(further FAIL lines only in the report; every ERROR, CRASH "
			        "and TIMEOUT is shown)\n");
	}
	char shown[sizeof c->name * 3];
	if (st->progress.enabled)
		qc_utf8_sanitize(shown, sizeof shown, c->name, strlen(c->name));
	qc_progress_case(&st->progress, r->verdict, st->progress.enabled ? shown : NULL);
}

/* A judged case in its profile class and, when one of the class's required ops, there. */
static void tally_case(qc_profile_tally *t, const qc_case *c, qc_verdict v)
{
	if (!t)
		return;
	int k = c->extension ? qc_profile_ext_index(t->p, c->extension) + 1 : 0;
	if (k < 0)
		return;
	t->cases[k]++;
	int i = k ? qc_profile_op_index(t->p->ext[k - 1].ops, t->p->ext[k - 1].n_ops, c)
	          : qc_profile_op_index(t->p->ops, t->p->n_ops, c);
	if (i >= 0) {
		t->op_cases[k][i]++;
		t->op_verdicts[k][i][v]++;
		t->op_neg_refused[k][i] += v == QC_NOT_SUPPORTED && c->expect_error;
	}
}

/* A failure a waiver accepts keeps its verdict and counts as allowed: the waiver's reason. */
static const char *apply_waiver(run_state *st, const qc_case *c, qc_verdict v)
{
	qc_waiver *w = qc_waivers_match(st->waivers, c->name);
	if (!w || qc_verdict_conforms(v))
		return NULL;
	w->applied++;
	st->waived++;
	return w->reason;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/*
 * After every batch the journal's lines go to the kernel (fflush: a SIGKILL loses none of
 * them) and, at most every JOURNAL_SYNC_S seconds, to the disk (fdatasync: a power cut loses
 * at most that much judged work). An fdatasync per batch of the reference's fast cases cost
 * about a sixth of the run's time; a batch of slower cases takes longer than the interval, so
 * every batch is synced. A journal that cannot be written is given up (said once): the run
 * goes on, only --resume is lost.
 */
#define JOURNAL_SYNC_S 0.25

static void sync_journal(run_state *st)
{
	if (!st->journal)
		return;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int due = !st->journal_synced.tv_sec ||
	          (double)(t0.tv_sec - st->journal_synced.tv_sec) +
	                          1e-9 * (double)(t0.tv_nsec - st->journal_synced.tv_nsec) >=
	                  JOURNAL_SYNC_S;
	if ((due ? qc_journal_sync(st->journal) : qc_journal_flush(st->journal)) != 0) {
		fprintf(stderr,
		        "qconform: cannot write the journal (%s): this run cannot be "
		        "resumed\n",
		        strerror(errno));
		qc_journal_close(st->journal);
		st->journal = NULL;
	}
	if (due) {
		clock_gettime(CLOCK_MONOTONIC, &st->journal_synced);
		st->journal_syncs++;
	}
	st->journal_sync_s += seconds_since(&t0);
}

/*
 * --resume: a case the journal holds, reported as it was judged: its case object as written,
 * its metrics into the roll-ups, its waiver counted. -1 if the journal's case at this
 * position has another name (not this run's journal).
 */
static int replay_case(run_state *st, const qc_case *c, const qc_journal_entry *e)
{
	char name[sizeof c->name * 3];
	qc_utf8_sanitize(name, sizeof name, c->name, strlen(c->name));
	if (strcmp(name, e->name) != 0) {
		fprintf(stderr,
		        "qconform: --resume %s: case %llu is %s in the journal but %s in this run: "
		        "not this run's journal\n",
		        st->o->resume, (unsigned long long)e->ordinal, e->name, name);
		return -1;
	}
	qc_result *r = &st->replayed_result;
	if (qc_journal_result(e, r) != 0) /* the loader read this line: it cannot fail now */
		return -1;
	qc_stats_add(&st->stats, c, r);
	tally_case(st->tally, c, r->verdict);
	const char *waived = apply_waiver(st, c, r->verdict);
	qc_json_case_raw(st->json, e->text, e->len);
	if (st->diagnosis) /* the journal keeps verdicts, not outputs */
		qc_diagnosis_count(st->diagnosis, c->call.semantics, c->call.op, r->verdict, 1);
	st->done++;
	st->replayed++;
	print_case(st, c, r, waived);
	return 0;
}

static void release_job_case(void *p)
{
	qc_job_case_clear(p);
	free(p);
}

/* The diagnosis keeps the data of some cases (then they are its own until it is freed) and
 * counts every other. */
static void offer_diagnosis(qc_diagnosis *D, qc_job_case *jc)
{
	if (!jc->full) {
		qc_diagnosis_count(D, jc->c->call.semantics, jc->c->call.op, jc->r.verdict, 0);
		return;
	}
	qc_job_case *own = qc_xcalloc(1, sizeof *own);
	*own = *jc;
	if (qc_diagnosis_offer(D, own->c, own->e, own->kout, own->r.verdict, own,
	                       release_job_case)) {
		/* what stays for the release: the verdict, text and a slim case are not needed */
		memset(jc, 0, sizeof *jc);
		return;
	}
	free(own);
}

/*
 * Reports one case the job threads judged, in the run's order: roll-ups, waiver, the report's
 * object, the journal, --dump, the console.
 */
static void take_case(run_state *st, qc_job_case *jc)
{
	qc_case *c = jc->c;
	qc_stats_add(&st->stats, c, &jc->r);
	tally_case(st->tally, c, jc->r.verdict);
	const char *waived = apply_waiver(st, c, jc->r.verdict);
	qc_json_case_raw(st->json, jc->text, jc->len);
	if (st->journal)
		qc_journal_case(st->journal, jc->stats, jc->stats_len, jc->text, jc->len);
	/* --dump: the data of a verdict that does not conform (waived or not) */
	if (st->dump && jc->full && !qc_verdict_conforms(jc->r.verdict)) {
		char derr[512];
		qcf_tensor kout[QC_MAX_TENSORS];
		for (int k = 0; k < c->call.n_outputs; k++) {
			kout[k] = c->out[k];
			kout[k].data = jc->kout[k];
		}
		if (qc_dump_case(st->dump, c, jc->e, jc->kout[0] ? kout : NULL, &jc->r, derr,
		                 sizeof derr) < 0)
			fprintf(stderr, "qconform: --dump: %s\n", derr);
	}
	st->spec_errors += jc->spec_error;
	if (st->pool && jc->board >= 0 && jc->board < st->pool->n_boards)
		st->pool->boards[jc->board].cases++;
	st->done++;
	st->failing += !qc_verdict_conforms(jc->r.verdict) && !waived;
	print_case(st, c, &jc->r, waived);
	if (jc->r.verdict == QC_FAIL && st->n_shrink < st->o->shrink) {
		if (!st->shrink)
			st->shrink = qc_xcalloc((size_t)st->o->shrink, sizeof *st->shrink);
		st->shrink[st->n_shrink++] = strdup(c->name);
	}
	if (st->diagnosis)
		offer_diagnosis(st->diagnosis, jc);
}

/* What expanding a unit reported, each line once per run (a unit reports once per node). */
static void print_diag(run_state *st, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) + 1 : strlen(text);
		uint64_t h = qc_hash64_bytes(text, n);
		int seen = 0;
		for (int i = 0; i < st->n_diag_seen && !seen; i++)
			seen = st->diag_seen[i] == h;
		if (!seen) {
			if (st->n_diag_seen < (int)(sizeof st->diag_seen / sizeof st->diag_seen[0]))
				st->diag_seen[st->n_diag_seen++] = h;
			qc_progress_clear(&st->progress);
			fflush(stdout);
			fwrite(text, 1, n, stderr);
		}
		text += n;
	}
}

/*
 * Takes the units back in order and reports their cases. 0; -1 if no worker could run a unit
 * or a journal does not fit the run. Stops at a unit a cancel cut short.
 */
static int take_units(run_state *st, qc_jobs *J)
{
	qc_job_case *cases;
	const char *diag, *err;
	int failed, cancelled, n, rc = 0;
	while (rc == 0 && (n = qc_jobs_next(J, &cases, &diag, &err, &failed, &cancelled)) >= 0) {
		print_diag(st, diag);
		for (int i = 0; i < n && rc == 0; i++) {
			/* --max-failures N: the run ends with its N-th failing case; the rest of
			 * the unit, judged already, is not reported */
			if (st->o->max_failures && st->failing >= (uint64_t)st->o->max_failures)
				break;
			if (cases[i].replay)
				rc = replay_case(st, cases[i].c, cases[i].replay);
			else
				take_case(st, &cases[i]);
		}
		if (st->o->max_failures && st->failing >= (uint64_t)st->o->max_failures &&
		    !st->stopped) {
			st->stopped = 1;
			qc_jobs_cancel(J);
		}
		if (failed) {
			fprintf(stderr, "qconform: %s\n", err);
			rc = -1;
		}
		qc_jobs_release(J);
		if (rc == 0)
			sync_journal(st);
		if (st->progress.enabled)
			fflush(stdout);
		if (cancelled || st->stopped)
			break;
	}
	return rc;
}

/* After the table: what the waivers did, the expired ones (they fail the run), the unused. */
static int report_waivers(const qc_waivers *ws, int status)
{
	for (int i = 0; i < ws->n; i++) {
		const qc_waiver *w = &ws->w[i];
		if (w->expired) {
			printf("waiver expired: %s:%d: '%s' (%s) held until %s: expired since %s, "
			       "%ld day%s ago; renew or remove it\n",
			       ws->path, w->line, w->glob, w->reason, w->expires, w->expired_since,
			       w->days_expired, w->days_expired == 1 ? "" : "s");
			if (status == 0)
				status = 1;
		} else if (!w->matched) {
			printf("waiver unused: %s:%d: '%s' matches no case of this run\n", ws->path,
			       w->line, w->glob);
		}
	}
	return status;
}

/*
 * The run's one verdict line, last: what the exit status says. It counts the cases the kernel
 * refused (NOT_SUPPORTED): a run that took none verified nothing and says so; a profile run
 * names the required ops refused whole (every one of them: it does not conform). With waivers it
 * counts the failures they accepted; with a baseline it is the gate's verdict ("no new failure,
 * nothing worse and no coverage lost"), and says what the run itself holds.
 */
static void print_verdict(const qc_run_stats *s, const qc_run_meta *meta, const qc_waivers *ws,
                          uint64_t waived, int expired, const char *baseline,
                          const qc_diff_counts *dc, int status, int colour)
{
	const char *on = qc_console_verdict_on(colour, status == 0 ? QC_PASS : QC_FAIL),
	           *off = qc_console_off(colour);
	uint64_t failing = qc_stats_failing(s), cases = s->cases,
	         refused = s->verdicts[QC_NOT_SUPPORTED];
	char own[512], extra[768] = "", ops[400];
	int o = snprintf(own, sizeof own, "%llu case%s, ", (unsigned long long)cases,
	                 cases == 1 ? "" : "s");
	if (!failing)
		o += snprintf(own + o, sizeof own - (size_t)o, "every verdict allowed");
	else
		o += snprintf(own + o, sizeof own - (size_t)o, "%llu failing",
		              (unsigned long long)failing);
	if (refused)
		snprintf(own + o, sizeof own - (size_t)o, ", %llu refused (NOT_SUPPORTED)",
		         (unsigned long long)refused);
	if (ws && waived)
		snprintf(extra, sizeof extra, ", %llu of them accepted by %s",
		         (unsigned long long)waived, ws->path);
	if (expired)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
		         "; %d waiver%s expired", expired, expired == 1 ? "" : "s");
	int n_req = 0, n_refused_ops = qc_run_refused_ops(meta, ops, sizeof ops, &n_req);
	if (n_refused_ops) /* named whatever the verdict: certify would refuse them */
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
		         "; profile %s: %d of %d required op%s refused whole: %s", meta->profile,
		         n_refused_ops, n_req, n_req == 1 ? "" : "s", ops);
	uint64_t breaches = qc_stats_engine_breaches(s, meta->require_engine);
	if (breaches)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
		         "; require_engine %s: %llu judged case%s the plugin reported %s",
		         meta->require_engine, (unsigned long long)breaches,
		         breaches == 1 ? "" : "s",
		         !strcmp(meta->require_engine, "accelerator")
		                 ? "on the CPU, or on no engine it names"
		                 : "on no engine it names");
	if (baseline && dc) {
		if (status == 0)
			printf("%sGATE PASSED%s against %s: no new failure, nothing worse and no "
			       "coverage lost%s (%s%s%s)\n",
			       on, off, baseline,
			       dc->coverage_accepted ? " but what --allow-coverage-loss accepts"
			                             : "",
			       own, extra,
			       failing > waived ? ", each failing in the baseline too" : "");
		else if (!dc->regressions && qc_run_verified_nothing(s, meta))
			printf("%sGATE FAILED%s against %s: NOTHING VERIFIED, the kernel refused "
			       "(NOT_SUPPORTED) every one of the %llu case%s%s\n",
			       on, off, baseline, (unsigned long long)cases, cases == 1 ? "" : "s",
			       extra);
		else if (dc->coverage_lost)
			printf("%sGATE FAILED%s against %s: %llu regression%s, %llu of them "
			       "coverage "
			       "lost: %s (%s%s)\n",
			       on, off, baseline, (unsigned long long)dc->regressions,
			       dc->regressions == 1 ? "" : "s",
			       (unsigned long long)dc->coverage_lost, dc->coverage_ops, own, extra);
		else
			printf("%sGATE FAILED%s against %s: %llu regression%s (%s%s)\n", on, off,
			       baseline, (unsigned long long)dc->regressions,
			       dc->regressions == 1 ? "" : "s", own, extra);
		return;
	}
	if (status == 0)
		printf("%sCONFORMS%s%s: %s%s\n", on, ws && waived ? " with waivers" : "", off, own,
		       extra);
	else if (qc_run_verified_nothing(s, meta))
		printf("%sNOTHING VERIFIED%s: the kernel refused (NOT_SUPPORTED) every one of the "
		       "%llu case%s%s\n",
		       on, off, (unsigned long long)cases, cases == 1 ? "" : "s", extra);
	else
		printf("%sDOES NOT CONFORM%s: %s%s%s\n", on, off, own, extra,
		       failing > waived ? ": see the failing cases in the report" : "");
}

static int render_reports(const qc_run_opts *o, const char *json_path);

/* A JSON string array of n strings. */
static json_t *jstrings(const char *const *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, qc_report_jstring(v[i]));
	return a;
}

/*
 * What makes two runs the same run, case for case: the journal's "identity". A resumed run
 * must have the same one (the spec files' and the plugin's sha256 included: a journal says
 * nothing about edited specs or a rebuilt plugin). Not in it: --jobs, the report paths,
 * --quiet, --trace, --dump, --baseline (none changes a case's result).
 */
static json_t *run_identity(const qc_run_opts *o, const specset *ss, const qc_plugin_info *info,
                            const char *waivers_sha)
{
	json_t *id = json_object();
	json_object_set_new(id, "qconform_version", json_string(QC_VERSION));
	json_t *specs = json_array();
	for (int i = 0; i < ss->n; i++) {
		json_t *sp = json_object();
		json_object_set_new(sp, "path", qc_report_jstring(ss->specs[i]->path));
		json_object_set_new(sp, "sha256", qc_report_jstring(ss->specs[i]->sha256));
		json_array_append_new(specs, sp);
	}
	json_object_set_new(id, "specs", specs);
	char seed[32];
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
	json_object_set_new(id, "seed", json_string(seed));
	json_t *plugin = json_object();
	json_object_set_new(plugin, "path", qc_report_jstring(info->path));
	json_object_set_new(plugin, "sha256", qc_report_jstring(info->sha256));
	json_t *opts = json_array();
	for (int i = 0; i < o->n_options; i++) {
		char *kv = NULL;
		if (asprintf(&kv, "%s=%s", o->options[i].key, o->options[i].value) < 0)
			kv = NULL;
		json_array_append_new(opts, qc_report_jstring(kv ? kv : ""));
		free(kv);
	}
	json_object_set_new(plugin, "options", opts);
	if (info->remote[0]) /* another machine: another run */
		json_object_set_new(plugin, "machine", qc_report_jstring(info->platform.machine));
	json_object_set_new(id, "plugin", plugin);
	json_object_set_new(id, "filters", jstrings(o->filters, o->n_filters));
	json_object_set_new(id, "case_names",
	                    jstrings((const char *const *)o->case_names, o->n_case_names));
	json_object_set_new(id, "profile",
	                    o->profile ? qc_report_jstring(o->profile) : json_null());
	/* the extensions of the profile the run covers besides its base (none without one) */
	json_t *cls = json_array();
	for (int k = 1; ss->tally && k <= ss->profile->n_ext; k++)
		if (ss->tally->covered[k])
			json_array_append_new(cls, qc_report_jstring(ss->profile->ext[k - 1].name));
	json_object_set_new(id, "extensions", cls);
	json_t *shard = json_null();
	if (o->shard_count) {
		shard = json_object();
		json_object_set_new(shard, "index", json_integer(o->shard_index));
		json_object_set_new(shard, "count", json_integer(o->shard_count));
	}
	json_object_set_new(id, "shard", shard);
	json_object_set_new(id, "timeout_seconds", json_real(o->timeout_s));
	json_object_set_new(id, "waivers_sha256",
	                    waivers_sha ? json_string(waivers_sha) : json_null());
	json_object_set_new(id, "cases", json_integer((json_int_t)ss->total));
	if (o->repeat > 1) /* NONDETERMINISTIC depends on it */
		json_object_set_new(id, "repeat", json_integer(o->repeat));
	if (o->n_remotes > 1) /* a case's "board" indexes this list */
		json_object_set_new(id, "remote_pool", jstrings(o->remotes, o->n_remotes));
	return id;
}

/* The first member of the identity that differs, in words. */
static const char *identity_difference(const json_t *a, const json_t *b)
{
	static const struct {
		const char *key, *what;
	} keys[] = {{"qconform_version", "another qconform version"},
	            {"specs", "other specs (paths or sha256: a spec file changed)"},
	            {"seed", "another --seed"},
	            {"plugin", "another plugin (path, sha256 or --plugin-option)"},
	            {"filters", "other --filter"},
	            {"case_names", "other --case"},
	            {"profile", "another --profile"},
	            {"extensions", "other --extension"},
	            {"shard", "another --shard"},
	            {"timeout_seconds", "another --timeout"},
	            {"waivers_sha256", "other --waivers"},
	            {"cases", "another number of cases"},
	            {"repeat", "another --repeat"},
	            {"remote_pool",
	             "another pool of --remote boards (a journaled case's board would name "
	             "another)"}};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		json_t *x = json_object_get(a, keys[i].key), *y = json_object_get(b, keys[i].key);
		if ((x || y) && !json_equal(x, y)) /* json_equal(NULL, NULL) is 0 */
			return keys[i].what;
	}
	return json_equal(a, b) ? NULL : "another identity";
}

/* The run's selection, for the job threads (read only). */
typedef struct plan_ctx {
	const qc_run_opts *o;
	const specset *ss;
} plan_ctx;

static int plan_selected(void *ctx, const char *name, qc_case *c)
{
	plan_ctx *p = ctx;
	return qc_case_selected(p->o, name) && (!c || class_covered(p->ss, case_class(p->ss, c)));
}

static int plan_in_shard(void *ctx, const char *name)
{
	return in_shard(((plan_ctx *)ctx)->o, name);
}

int qc_cmd_run(const qc_run_opts *o)
{
	/* a plugin that cannot be opened is refused before the specs are loaded and planned (a
	 * second for all of specs/); the runner opens it again, with its sha256 */
	if (o->plugin && !o->remote && access(o->plugin, R_OK) != 0) {
		fprintf(stderr, "qconform: %s: cannot open: %s\n", o->plugin, strerror(errno));
		return 2;
	}
	qc_diag diag = {0, 0, stderr};
	specset ss = {0};
	time_t started = time(NULL);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (load_specs(o, &ss, &diag, RUN_PLAN) != 0) {
		fprintf(stderr, "qconform: %d error%s in specs; nothing was run\n", diag.errors,
		        diag.errors == 1 ? "" : "s");
		specset_free(&ss);
		return 2;
	}
	if (ss.total == 0 && ss.unsharded == 0) {
		fprintf(stderr, "qconform: no case matches the filters/profile\n");
		specset_free(&ss);
		return 2;
	}
	char err[1200];
	/* import: the specs must be the export's, unchanged */
	if (o->import && qc_import_check_specs(o->import, ss.specs, ss.selected, ss.n, ss.total,
	                                       err, sizeof err) != 0) {
		fprintf(stderr, "qconform import: %s\n", err);
		specset_free(&ss);
		return 2;
	}
	/* waivers and the baseline are read before anything runs: their errors are usage errors */
	qc_waivers *waivers = NULL;
	int n_expired = 0; /* waivers past their expiry day: they fail the run */
	char waivers_sha[65] = "";
	if (o->waivers) {
		if (!(waivers = qc_waivers_load(o->waivers, &diag))) {
			fprintf(stderr, "qconform: %d error%s in %s; nothing was run\n",
			        diag.errors, diag.errors == 1 ? "" : "s", o->waivers);
			specset_free(&ss);
			return 2;
		}
		n_expired = qc_waivers_expire(waivers, started);
		if (qc_sha256_file(o->waivers, waivers_sha) != 0)
			waivers_sha[0] = 0;
	}
	json_t *baseline = NULL; /* checked now, its cases streamed at the end */
	if (o->baseline) {
		qc_report *b = qc_report_open(o->baseline, err, sizeof err);
		baseline = b ? json_incref(qc_report_doc(b)) : NULL;
		qc_report_close(b);
		if (!baseline) {
			fprintf(stderr, "qconform: --baseline %s\n", err);
			qc_waivers_free(waivers);
			specset_free(&ss);
			return 2;
		}
	}
	/* --resume: the journal is read before anything starts */
	qc_journal_data jd = {0};
	if (o->resume && qc_journal_load(o->resume, &jd, err, sizeof err) != 0) {
		fprintf(stderr, "qconform: --resume %s\n", err);
		json_decref(baseline);
		qc_waivers_free(waivers);
		specset_free(&ss);
		return 2;
	}
	qc_dump *dump = NULL;
	if (o->dump_dir) {
		char derr[512];
		dump = qc_dump_open(o->dump_dir,
		                    o->dump_max > 0 ? o->dump_max : QC_DUMP_MAX_DEFAULT, o->plugin,
		                    o->options, o->n_options, derr, sizeof derr);
		if (!dump) {
			fprintf(stderr, "qconform: --dump %s\n", derr);
			qc_journal_data_free(&jd);
			json_decref(baseline);
			qc_waivers_free(waivers);
			specset_free(&ss);
			return 2;
		}
	}
	char refbuf[PATH_MAX];
	qc_runner_config cfg = {0};
	/* --remote: --plugin is a path where the worker runs (none: the worker's own) */
	cfg.plugin_path = o->plugin   ? o->plugin
	                  : o->remote ? NULL
	                              : qc_default_reference_plugin(refbuf, sizeof refbuf);
	cfg.remote = o->remote;
	/* --remote: the pool of boards (one without a pool of commands), each with its count of
	 * links lost */
	qc_pool pool = {0};
	if (o->remote && !o->import) {
		const char *one[1] = {o->remote};
		if (qc_pool_make(&pool, o->n_remotes ? o->remotes : one,
		                 o->n_remotes ? o->n_remotes : 1, o->jobs, err, sizeof err) != 0) {
			fprintf(stderr, "qconform: %s\n", err);
			qc_dump_close(dump, NULL);
			qc_journal_data_free(&jd);
			qc_waivers_free(waivers);
			json_decref(baseline);
			specset_free(&ss);
			return 2;
		}
	}
	cfg.options = o->options;
	cfg.n_options = o->n_options;
	cfg.timeout_s = o->timeout_s;
	cfg.trace = o->trace;
	cfg.sandbox = !o->no_sandbox;
	cfg.sandbox_allow = o->sandbox_allow;
	cfg.n_sandbox_allow = o->n_sandbox_allow;
	/* the default is half the RAM of the machine the workers run on: a remote worker takes
	 * its device's (memory_share), a local one this machine's */
	if (o->worker_memory_set)
		cfg.worker_memory = o->worker_memory;
	else if (o->remote && !o->import)
		cfg.memory_share = o->jobs > 0 ? o->jobs : 1;
	else
		cfg.worker_memory = qc_worker_memory_default(o->jobs);
	/* --no-reports: only the reports named (--json, --html, --junit) are written; the JSON
	 * the run needs (the verdict, a baseline's diff) goes otherwise to a private directory,
	 * removed at the end, and no existing report is touched */
	char scratch[1024] = "";
	if (o->no_reports && !o->json_path) {
		const char *t = getenv("TMPDIR");
		snprintf(scratch, sizeof scratch, "%s/qconform.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(scratch)) {
			fprintf(stderr, "qconform: --no-reports: a temporary directory in %s: %s\n",
			        t && *t ? t : "/tmp", strerror(errno));
			qc_dump_close(dump, NULL);
			qc_journal_data_free(&jd);
			qc_waivers_free(waivers);
			json_decref(baseline);
			qc_pool_free(&pool);
			specset_free(&ss);
			return 2;
		}
	}
	qc_plugin_info info;
	run_state st = {0};
	st.o = o;
	st.waivers = waivers;
	st.tally = ss.tally;
	st.dump = dump;
	stop_state sigs;
	stop_catch(&sigs); /* blocked: the job threads start with the signals blocked */
	qc_jobs *jobs = NULL;
	if ((o->import ? qc_jobs_open_source(qc_import_source(o->import, &info), o->jobs, &jobs)
	               : qc_jobs_open(&cfg, pool.n_boards ? &pool : NULL, o->jobs, &jobs, &info,
	                              err, sizeof err)) != 0) {
		stop_restore(&sigs);
		fprintf(stderr, "qconform: %s\n", err);
		qc_dump_close(dump, NULL);
		qc_journal_data_free(&jd);
		qc_waivers_free(waivers);
		json_decref(baseline);
		qc_pool_free(&pool);
		specset_free(&ss);
		if (scratch[0])
			rmdir(scratch);
		return 2;
	}
	atomic_store(&stop_jobs, jobs);
	/* --remote: the report's pool (how each board fared is filled in at the end) */
	st.pool = pool.n_boards ? &pool : NULL;
	qc_remote_board *boards =
	        qc_xcalloc((size_t)(pool.n_boards ? pool.n_boards : 1), sizeof *boards);
	for (int b = 0; b < pool.n_boards; b++)
		boards[b] = (qc_remote_board){.command = pool.boards[b].command,
		                              .jobs = pool.boards[b].n_jobs};
	if (pool.n_boards) /* the command as given ({job} and all), the first of a pool */
		snprintf(info.remote, sizeof info.remote, "%s", o->remote);

	char json_path[1024], journal_path[1100];
	if (scratch[0]) {
		snprintf(json_path, sizeof json_path, "%s/report.json", scratch);
	} else if (o->json_path)
		snprintf(json_path, sizeof json_path, "%s", o->json_path);
	else {
		/* the plugin's name picks a directory: one safe path component, never "..". */
		char dir[64];
		qc_path_component(strstr(info.name, "reference") ? "reference" : info.name, dir,
		                  sizeof dir);
		snprintf(json_path, sizeof json_path, "reports/out/%s/report.json", dir);
	}
	if (o->json_written)
		snprintf(o->json_written, o->json_written_size, "%s", json_path);
	snprintf(journal_path, sizeof journal_path, "%s",
	         o->resume         ? o->resume
	         : o->journal_path ? o->journal_path
	                           : json_path);
	if (!o->resume && !o->journal_path)
		snprintf(journal_path, sizeof journal_path, "%s.journal", json_path);
	/* a report to /dev/null or a FIFO gets no journal beside it (unless one is named) */
	struct stat jsb;
	int journaled = !o->import && (!scratch[0] || o->journal_path) &&
	                (o->resume || o->journal_path || stat(json_path, &jsb) != 0 ||
	                 S_ISREG(jsb.st_mode));
	if (!journaled)
		journal_path[0] = '\0';
	json_t *identity = run_identity(o, &ss, &info, waivers_sha[0] ? waivers_sha : NULL);
	const char *refused = NULL;
	if (o->resume &&
	    (refused = identity_difference(json_object_get(jd.header, "identity"), identity))) {
		fprintf(stderr,
		        "qconform: --resume %s: the journal is of another run (%s): resume with "
		        "the "
		        "command that started it, or run without --resume to start again\n",
		        o->resume, refused);
	}
	qc_spec_meta *metas = qc_xcalloc((size_t)ss.n, sizeof *metas);
	for (int i = 0; i < ss.n; i++)
		metas[i] = (qc_spec_meta){ss.specs[i]->path, ss.specs[i]->sha256, ss.selected[i],
		                          ss.specs[i]->description};
	qc_run_meta meta = {
	        .seed = o->seed,
	        .plugin = &info,
	        .specs = metas,
	        .n_specs = ss.n,
	        .filters = o->filters,
	        .n_filters = o->n_filters,
	        .case_names = (const char *const *)o->case_names,
	        .n_case_names = o->n_case_names,
	        .self = o->self,
	        .profile = o->profile,
	        .profile_def = ss.profile,
	        .profile_tally = ss.tally,
	        .timeout_s = o->timeout_s,
	        .started = started,
	        .command = o->command,
	        .options = o->options,
	        .n_options = o->n_options,
	        .shard_index = o->shard_count ? o->shard_index : 0,
	        .shard_count = o->shard_count,
	        .waivers = waivers,
	        .import = o->import ? qc_import_report_meta(o->import) : NULL,
	        .boards = boards,
	        /* one board: the report of a run without a pool */
	        .n_boards = pool.n_boards > 1 ? pool.n_boards : 0,
	        .repeat = o->repeat > 1 ? o->repeat : 1,
	        .threads_option = info.threads_option[0] ? info.threads_option : NULL,
	        .require_engine = qc_require_engine_stricter(
	                o->require_engine, ss.profile ? ss.profile->require_engine : NULL)};
	if (o->resume) {
		/* the report of the run that was started: its command and start time */
		const char *cmd0 = json_string_value(json_object_get(jd.header, "command"));
		json_t *t = json_object_get(jd.header, "started");
		meta.command = cmd0 ? cmd0 : o->command;
		if (json_is_integer(t))
			meta.started = (time_t)json_integer_value(t);
		meta.resumed_from = o->resume;
		meta.resumed_cases = jd.n;
		meta.resume_command = o->command;
	}
	if (!refused && !(st.json = qc_json_open(json_path, &meta, err, sizeof err)))
		fprintf(stderr, "qconform: %s\n", err);
	if (st.json && o->resume) {
		if (jd.note[0])
			fprintf(stderr, "qconform: --resume %s\n", jd.note);
		if (!(st.journal = qc_journal_reopen(journal_path, &jd, err, sizeof err)))
			fprintf(stderr, "qconform: %s\n", err);
	} else if (st.json && journaled) {
		if (access(journal_path, F_OK) == 0)
			fprintf(stderr,
			        "qconform: note: %s is replaced (resume an unfinished run with "
			        "run --resume)\n",
			        journal_path);
		json_t *h = json_object();
		json_object_set_new(h, "format", json_string("qconform-journal"));
		json_object_set_new(h, "format_version", json_integer(QC_JOURNAL_FORMAT));
		json_object_set_new(h, "started", json_integer((json_int_t)started));
		json_object_set_new(h, "command", qc_report_jstring(o->command));
		json_object_set_new(h, "argv", jstrings((const char *const *)o->argv, o->argc));
		json_object_set_new(h, "identity", json_incref(identity));
		if (!(st.journal = qc_journal_create(journal_path, h, err, sizeof err)))
			fprintf(stderr, "qconform: %s\n", err);
		json_decref(h);
	}
	json_decref(identity);
	if (!st.json || (journaled && !st.journal)) {
		qc_json_abort(st.json);
		atomic_store(&stop_jobs, NULL);
		qc_jobs_close(jobs);
		stop_restore(&sigs);
		qc_dump_close(dump, NULL);
		free(metas);
		free(boards);
		qc_journal_data_free(&jd);
		qc_waivers_free(waivers);
		json_decref(baseline);
		qc_pool_free(&pool);
		specset_free(&ss);
		if (scratch[0])
			rmdir(scratch);
		return 2;
	}
	st.total = ss.total;
	qc_progress_init(&st.progress, stdout, ss.total, !o->quiet);
	st.colour = qc_console_colour(stdout);
	char shown_name[sizeof info.name * 3], shown_version[sizeof info.version * 3];
	qc_utf8_sanitize(shown_name, sizeof shown_name, info.name, strlen(info.name));
	qc_utf8_sanitize(shown_version, sizeof shown_version, info.version, strlen(info.version));
	printf("qconform %s: %llu case%s from %d spec%s, plugin %s %s (ABI %u)\n", QC_VERSION,
	       (unsigned long long)ss.total, ss.total == 1 ? "" : "s", ss.n, ss.n == 1 ? "" : "s",
	       shown_name, shown_version, info.abi_version);
	if (info.sandbox[0] && info.sandbox_reduced)
		printf("warning: a weaker sandbox, without namespaces: %s (README, Untrusted "
		       "kernels)\n",
		       info.sandbox);
	if (o->shard_count)
		printf("shard %d/%d: %llu of the run's %llu case%s\n", o->shard_index,
		       o->shard_count, (unsigned long long)ss.total,
		       (unsigned long long)ss.unsharded, ss.unsharded == 1 ? "" : "s");
	if (o->resume)
		printf("resuming %s: %zu case%s done before, %llu to run\n", o->resume, jd.n,
		       jd.n == 1 ? "" : "s",
		       (unsigned long long)(ss.total > jd.n ? ss.total - jd.n : 0));
	fflush(stdout);

	if (!o->no_diagnose)
		st.diagnosis = qc_diagnosis_new();
	/* The job threads expand, compute the reference's answers, run and judge; this thread
	 * reports the cases in order. A signal cancels the jobs: what was judged is reported. */
	qc_jobs_plan plan = {.specs = ss.specs,
	                     .n_specs = ss.n,
	                     .units = ss.units,
	                     .n_units = ss.n_units,
	                     .seed = o->seed,
	                     .selected = plan_selected,
	                     .in_shard = plan_in_shard,
	                     .need_case = ss.profile != NULL,
	                     .ctx = &(plan_ctx){o, &ss},
	                     .json = st.json,
	                     .resume = o->resume ? &jd : NULL,
	                     .waivers = waivers,
	                     .keep_failing = dump != NULL,
	                     .keep_judged = st.diagnosis != NULL,
	                     .journal = st.journal != NULL,
	                     .repeat = o->repeat};
	int rc = qc_jobs_start(jobs, &plan, err, sizeof err);
	stop_unblock(&sigs);
	if (rc != 0)
		fprintf(stderr, "qconform: %s\n", err);
	else
		rc = take_units(&st, jobs);
	/* no handler may touch the jobs while they are freed */
	stop_block(&sigs);
	atomic_store(&stop_jobs, NULL);
	qc_jobs_close(jobs);
	stop_unblock(&sigs);
	int sig = stop_signal;
	/* a signal after the last verdict stopped nothing: the run is complete */
	int interrupted = (sig || st.stopped) && st.done < st.total;
	int by_failures = interrupted && !sig; /* --max-failures: no journal, exit 1 */
	char stopped_by[64];
	snprintf(stopped_by, sizeof stopped_by, "--max-failures %ld", o->max_failures);
	meta.finished = time(NULL);
	meta.wall_s = seconds_since(&t0);
	for (int b = 0; b < pool.n_boards; b++) {
		const qc_board *x = &pool.boards[b];
		boards[b].dead = atomic_load(&x->dead);
		boards[b].why = x->why;
		boards[b].cases = x->cases;
		boards[b].reconnects = atomic_load(&x->reconnects);
		meta.remote_reconnects += boards[b].reconnects;
	}
	qc_progress_clear(&st.progress);
	meta.waived = st.waived;
	if (interrupted) {
		meta.interrupted = by_failures ? stopped_by : signal_name(sig);
		meta.max_failures = by_failures ? o->max_failures : 0;
		meta.cases_done = st.done;
		meta.cases_planned = st.total;
		meta.journal = journaled && !by_failures ? journal_path : NULL;
	}
	/* which rules explain the failures: after a signal, no more workers */
	if (st.diagnosis && !sig) {
		qc_diagnosis_compute(st.diagnosis, o->datasheet);
		meta.diagnosis = st.diagnosis;
	}
	if (qc_json_close(st.json, &st.stats, &meta) != 0) {
		fprintf(stderr, "qconform: writing %s failed\n", json_path);
		rc = -1;
	}
	int journal_ok = qc_journal_close(st.journal) == 0;
	if (getenv("QCONFORM_JOURNAL_TIMING"))
		fprintf(stderr, "qconform: journal: %.3f s flushing, %lu fdatasync\n",
		        st.journal_sync_s, st.journal_syncs);
	qc_console_table(stdout, &st.stats, &meta);
	if (meta.remote_reconnects)
		printf("remote: the link to the worker was lost %d time%s: the command started "
		       "again, the cases in flight ran again\n",
		       meta.remote_reconnects, meta.remote_reconnects == 1 ? "" : "s");
	int alive = 0;
	for (int b = 0; b < pool.n_boards; b++)
		alive += !boards[b].dead;
	for (int b = 0; pool.n_boards > 1 && b < pool.n_boards; b++)
		if (boards[b].dead)
			printf("remote: board %d `%s` is dead, out of the pool after %llu "
			       "case%s%s: "
			       "%s\n",
			       b, boards[b].command, (unsigned long long)boards[b].cases,
			       boards[b].cases == 1 ? "" : "s",
			       alive ? " (the other boards ran the rest)" : "", boards[b].why);
	if (meta.diagnosis)
		qc_console_diagnosis(stdout, meta.diagnosis, o->datasheet);
	if (ss.profile) {
		const qc_profile_tally *t = ss.tally;
		printf("profile %s: base: %d required ops, %llu cases run (it needs %llu)%s\n",
		       ss.profile->name, ss.profile->n_ops, (unsigned long long)t->cases[0],
		       (unsigned long long)ss.profile->min_cases,
		       o->n_filters || o->n_case_names ? "; filtered run: not a certification"
		                                       : "");
		for (int k = 1; k <= ss.profile->n_ext; k++) {
			const qc_profile_ext *x = &ss.profile->ext[k - 1];
			if (t->covered[k])
				printf("  extension %s: %d required ops, %llu cases run (it needs "
				       "%llu)\n",
				       x->name, x->n_ops, (unsigned long long)t->cases[k],
				       (unsigned long long)x->min_cases);
			else
				printf("  extension %s: not covered, its %llu cases not run "
				       "(--extension %s)\n",
				       x->name, (unsigned long long)t->planned[k], x->name);
		}
	}
	if (o->shard_count && !st.stats.cases)
		printf("shard %d/%d holds none of the run's cases: nothing failed (merge the "
		       "shards "
		       "for the run's verdict)\n",
		       o->shard_index, o->shard_count);
	int status = rc != 0 || st.spec_errors ? 2 : qc_run_conforms(&st.stats, &meta) ? 0 : 1;
	if (waivers)
		status = report_waivers(waivers, status);
	qc_diff_counts dc;
	int gated = 0;
	if (dump && qc_dump_close(dump, stdout) != 0)
		status = 2;
	if (scratch[0])
		printf("report: none written (--no-reports)\n");
	else
		printf("report: %s\n", json_path);
	if (rc == 0 && render_reports(o, json_path) != 0)
		status = 2;
	/* --shrink N: the first N FAIL cases cut down, beside the report */
	for (int i = 0; i < st.n_shrink && status != 2 && !sig; i++) {
		char dir[1100];
		if (scratch[0]) {
			snprintf(dir, sizeof dir, "reports/out/shrunk");
		} else {
			const char *slash = strrchr(json_path, '/');
			snprintf(dir, sizeof dir, "%.*sshrunk",
			         slash ? (int)(slash - json_path + 1) : 0, json_path);
		}
		qc_run_opts so = *o;
		so.shrink = 0;
		if (qc_cmd_shrink(&so, st.shrink[i], dir, 0) == 2)
			status = 2;
	}
	for (int i = 0; i < st.n_shrink; i++)
		free(st.shrink[i]);
	free(st.shrink);
	if (by_failures) {
		printf("STOPPED by %s: %llu failing case%s after %llu of %llu case%s; the reports "
		       "hold the cases judged\n",
		       meta.interrupted, (unsigned long long)st.failing, st.failing == 1 ? "" : "s",
		       (unsigned long long)st.done, (unsigned long long)st.total,
		       st.total == 1 ? "" : "s");
	} else if (interrupted) {
		printf("INTERRUPTED by %s after %llu of %llu case%s: the reports hold the cases "
		       "judged before it\n",
		       meta.interrupted, (unsigned long long)st.done, (unsigned long long)st.total,
		       st.total == 1 ? "" : "s");
		if (journaled && o->resume) /* the command that resumed it, again */
			printf("resume: %s\n", o->command);
		else if (journaled) /* the same command: the journal holds no arguments to take */
			printf("resume: %s --resume '%s'\n", o->command, journal_path);
	} else if (baseline && rc == 0) {
		/* the same comparison as qconform diff BASELINE REPORT */
		char derr[1024];
		qc_report *base = qc_report_open(o->baseline, derr, sizeof derr),
		          *cur = base ? qc_report_open(json_path, derr, sizeof derr) : NULL;
		printf("baseline %s:\n", o->baseline);
		qc_diff_opts dopts = {.allow_loss = o->allow_loss, .n_allow_loss = o->n_allow_loss};
		if (!cur ||
		    qc_diff_reports(base, cur, &dopts, stdout, &dc, derr, sizeof derr) != 0) {
			fprintf(stderr, "qconform: --baseline: %s\n", derr);
			status = 2;
		} else if (status != 2) {
			/* the gate: a failure the baseline holds too does not fail it by itself */
			status = dc.regressions || n_expired ||
			                         qc_run_verified_nothing(&st.stats, &meta) ||
			                         qc_stats_engine_breaches(&st.stats,
			                                                  meta.require_engine)
			                 ? 1
			                 : 0;
			gated = 1;
		}
		qc_report_close(base);
		qc_report_close(cur);
	}
	if (!interrupted && status != 2)
		print_verdict(&st.stats, &meta, waivers, st.waived, n_expired,
		              gated ? o->baseline : NULL, gated ? &dc : NULL, status, st.colour);
	if (sig && !interrupted)
		fprintf(stderr, "qconform: %s after the last case: the run is complete\n",
		        signal_name(sig));
	/* the journal has served once the complete report is written */
	if (!journaled)
		;
	else if ((!interrupted || by_failures) && rc == 0 && journal_ok && !o->keep_journal)
		unlink(journal_path);
	else if (!interrupted && o->keep_journal)
		printf("journal: %s\n", journal_path);
	if (scratch[0]) {
		unlink(json_path);
		rmdir(scratch);
	}
	stop_restore(&sigs);
	if (interrupted && !by_failures)
		status = 128 + sig;
	fflush(stdout);
	json_decref(baseline);
	qc_journal_data_free(&jd);
	qc_waivers_free(waivers);
	qc_stats_free(&st.stats);
	qc_diagnosis_free(st.diagnosis);
	free(metas);
	free(boards);
	qc_pool_free(&pool);
	specset_free(&ss);
	return status;
}

/*
 * The HTML and JUnit renderings of the run's JSON report: to --html / --junit, and beside the
 * JSON (report.html, report.junit.xml) when the JSON went to its default place. 0, or -1.
 */
static int render_reports(const qc_run_opts *o, const char *json_path)
{
	char html[1100], junit[1100];
	const char *h = o->html_path, *x = o->junit_path;
	if (!o->json_path && !o->no_reports) { /* beside the default report */
		size_t n = strlen(json_path) - strlen("report.json");
		if (!h) {
			snprintf(html, sizeof html, "%.*sreport.html", (int)n, json_path);
			h = html;
		}
		if (!x) {
			snprintf(junit, sizeof junit, "%.*sreport.junit.xml", (int)n, json_path);
			x = junit;
		}
	}
	if (!h && !x)
		return 0;
	char err[1024];
	qc_report *doc = qc_report_open(json_path, err, sizeof err);
	if (!doc) {
		fprintf(stderr, "qconform: %s\n", err);
		return -1;
	}
	int rc = qc_render_reports(doc, json_path, h, x, "qconform: ");
	qc_report_close(doc);
	return rc;
}

int qc_cmd_validate(const qc_run_opts *o)
{
	qc_diag diag = {0, 0, stderr};
	specset ss = {0};
	int rc = load_specs(o, &ss, &diag, 2);
	if (rc == 0)
		printf("%d spec%s valid, %llu case%s\n", ss.n, ss.n == 1 ? "" : "s",
		       (unsigned long long)ss.total, ss.total == 1 ? "" : "s");
	else
		fprintf(stderr, "%d error%s\n", diag.errors, diag.errors == 1 ? "" : "s");
	specset_free(&ss);
	return rc == 0 ? 0 : 2;
}

int qc_cmd_list(const qc_run_opts *in)
{
	qc_diag diag = {0, 0, stderr};
	specset ss = {0};
	/* list --profile P without --extension: every case of the profile, with its class */
	qc_run_opts all = *in;
	const qc_run_opts *o = in;
	if (in->profile && !in->n_extensions) {
		all.extensions[0] = "all";
		all.n_extensions = 1;
		o = &all;
	}
	/* the plan writes the lines to a file, printed once the whole selection checked out */
	if (!(ss.listing = tmpfile())) {
		fprintf(stderr, "qconform list: cannot make a temporary file: %s\n",
		        strerror(errno));
		return 2;
	}
	int rc = load_specs(o, &ss, &diag, LIST_PLAN) != 0 ? 2 : 0;
	/* as run: a selection with no case is a mistake (a shard without one is not) */
	if (!rc && !ss.unsharded) {
		fprintf(stderr, "qconform list: no case matches the filters/profile\n");
		rc = 2;
	}
	char buf[65536];
	size_t n;
	rewind(ss.listing);
	while (!rc && (n = fread(buf, 1, sizeof buf, ss.listing)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			rc = 2;
	fclose(ss.listing);
	specset_free(&ss);
	return rc;
}

static void print_tensor(const qcf_tensor *t, const qref_output_detail *d)
{
	size_t n = qref_numel(t->rank, t->shape);
	printf("  %s: %s[", t->name, qref_dtype_name(t->dtype));
	for (int i = 0; i < t->rank; i++)
		printf("%s%lld", i ? "," : "", (long long)t->shape[i]);
	printf("]");
	if (t->quant) {
		const qcf_quant *q = t->quant;
		if (q->axis < 0)
			printf(" scale %.9g (%a) zero_point %d", q->scales[0], q->scales[0],
			       q->zero_points[0]);
		else {
			printf(" axis %d", q->axis);
			if (q->block_size > 0)
				printf(" block_size %d", q->block_size);
			printf(" scales [");
			for (int i = 0; i < q->count; i++)
				printf("%s%.9g", i ? ", " : "", q->scales[i]);
			printf("] zero_points [");
			for (int i = 0; i < q->count; i++)
				printf("%s%d", i ? ", " : "", q->zero_points[i]);
			printf("]");
		}
	}
	/* one row per innermost line of the shape, labelled with its index when the rank is 2 or
	 * more (a row longer than 16 values goes on over more lines) */
	size_t row = t->rank > 0 && t->shape[t->rank - 1] > 0 ? (size_t)t->shape[t->rank - 1] : 1;
	int label = 0; /* the row label's width */
	for (size_t i = 0; i < n; i++) {
		if (i % row == 0) {
			printf("\n   ");
			if (t->rank >= 2) {
				size_t rest = i / row;
				int64_t idx[QCF_MAX_RANK];
				for (int k = t->rank - 2; k >= 0; k--) {
					idx[k] = t->shape[k] ? (int64_t)(rest % (size_t)t->shape[k])
					                     : 0;
					rest = t->shape[k] ? rest / (size_t)t->shape[k] : 0;
				}
				label = printf(" [");
				for (int k = 0; k + 1 < t->rank; k++)
					label += printf("%" PRId64 ",", idx[k]);
				label += printf(":]");
			}
		} else if (i % row % 16 == 0) {
			printf("\n   %*s", label, "");
		}
		double v = qref_get(t, i);
		if (d && d->any && d->any[i])
			printf(" (any in [%g, %g])", d->lo[i], d->hi[i]);
		else if (qref_dtype_is_float(t->dtype))
			printf(" %.9g", v);
		else
			printf(" %.0f", v);
	}
	printf("\n");
}

int qc_cmd_show(const qc_run_opts *o, const char *name)
{
	qc_diag diag = {0, 0, stderr};
	specset ss = {0};
	if (load_specs(o, &ss, &diag, 0) != 0) {
		specset_free(&ss);
		return 2;
	}
	int found = 0;
	for (int i = 0; i < ss.n && !found; i++) {
		size_t idl = strlen(ss.specs[i]->id);
		if (strncmp(name, ss.specs[i]->id, idl) != 0 || name[idl] != '/')
			continue;
		qc_cases *it = qc_cases_begin(ss.specs[i], o->seed, 1, &diag);
		qc_case *c;
		int got;
		while (!found && (got = qc_cases_next(it, &c)) != 0) {
			if (got < 0)
				continue;
			if (strcmp(c->name, name) == 0) {
				found = 1;
				printf("case %s\n  spec %s\n  op %s (%s)\n  params %s\n  seed "
				       "%016llx\n",
				       c->name, c->spec->path, c->call.op, c->call.semantics,
				       c->params, (unsigned long long)c->seed);
				for (int a = 0; a < c->call.n_attrs; a++) {
					const qcf_attr *at = &c->attrs[a];
					printf("  attr %s = ", at->name);
					if (at->type == QCF_ATTR_INT)
						printf("%lld\n", (long long)at->v.i);
					else if (at->type == QCF_ATTR_FLOAT)
						printf("%.17g\n", at->v.f);
					else if (at->type == QCF_ATTR_STRING)
						printf("%s\n", at->v.s);
					else
						printf("(list of %d)\n", at->count);
				}
				printf("inputs\n");
				for (int k = 0; k < c->call.n_inputs; k++)
					print_tensor(&c->in[k], NULL);
				char err[256];
				qc_expected *e = qc_expected_new(c, err, sizeof err);
				if (e->status == QCF_OK) {
					printf("reference outputs%s\n",
					       e->golden_mismatch ? " (GOLDEN MISMATCH)" : "");
					for (int k = 0; k < c->call.n_outputs; k++)
						print_tensor(&e->out[k], &e->detail.out[k]);
				} else {
					printf("reference refuses: %s\n", e->detail.message);
				}
				qc_expected_free(e, c->call.n_outputs);
			}
			qc_case_free(c);
		}
		qc_cases_end(it);
	}
	specset_free(&ss);
	if (!found) {
		fprintf(stderr, "qconform show: no case named %s\n", name);
		return 2;
	}
	return 0;
}

int qc_run_each_case(const qc_run_opts *o, const qc_run_visitor *v)
{
	qc_diag diag = {0, 0, stderr};
	specset ss = {0};
	if (load_specs(o, &ss, &diag, RUN_PLAN) != 0) {
		fprintf(stderr, "qconform: %d error%s in specs\n", diag.errors,
		        diag.errors == 1 ? "" : "s");
		specset_free(&ss);
		return 2;
	}
	if (ss.total == 0) {
		fprintf(stderr, "qconform: no case matches the filters/profile\n");
		specset_free(&ss);
		return 2;
	}
	int rc = v->specs ? v->specs(v->ctx, ss.specs, ss.selected, ss.n, ss.total) : 0;
	/* the job threads' walk over the units (jobs.c run_unit), on this thread */
	for (size_t u = 0; rc == 0 && u < ss.n_units; u++) {
		const qc_job_unit *un = &ss.units[u];
		qc_spec *s = ss.specs[un->spec];
		qc_cases *names = qc_cases_begin(s, o->seed, 0, &diag);
		qc_cases *it = qc_cases_begin(s, o->seed, 1, &diag);
		uint64_t ordinal = un->ordinal;
		for (uint64_t idx = un->first; rc == 0 && idx < un->end; idx++) {
			const char *name = qc_cases_name(names, idx, NULL);
			if (!qc_case_selected(o, name))
				continue;
			qc_case *c = NULL;
			int errors = diag.errors;
			qc_cases_seek(it, idx);
			if (qc_cases_next(it, &c) <= 0 || diag.errors > errors) {
				fprintf(stderr, "qconform: %s: case %s cannot be built\n", s->path,
				        name);
				qc_case_free(c);
				rc = 2;
				break;
			}
			if (ss.profile && !class_covered(&ss, case_class(&ss, c))) {
				qc_case_free(c);
				continue;
			}
			uint64_t ord = ordinal++;
			if (in_shard(o, name))
				rc = v->each(v->ctx, c, ord);
			qc_case_free(c);
		}
		qc_cases_end(it);
		qc_cases_end(names);
	}
	specset_free(&ss);
	return rc;
}
