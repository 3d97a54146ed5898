#include "pipeline/plan.h"

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

#include "base/util.h"
#include "cases/expected.h"
#include "spec/slua.h"

#define UNIT_CASES 32

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
 * splitmix64 (harness/src/base/rng.c qc_hash64) with a fixed seed: it does not depend on --seed,
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

int qc_plan_in_shard(const qc_run_opts *o, const char *name)
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

void qc_plan_free(qc_plan *ss)
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

static void load_profiles(qc_plan *ss, char **files, int n, qc_diag *diag)
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
static void check_profile_names(qc_plan *ss, qc_diag *diag)
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

int qc_plan_case_class(const qc_plan *ss, qc_case *c)
{
	c->extension = NULL;
	if (!ss->profile)
		return 0;
	int a[2], b[2];
	int k = qc_profile_classify(ss->profile, &c->call, a, b, NULL);
	if (k > 0)
		c->extension = ss->profile->ext[k - 1].name;
	return k;
}

int qc_plan_class_covered(const qc_plan *ss, int k)
{
	return !ss->tally || (k >= 0 && ss->tally->covered[k]);
}

/*
 * --extension: the profile's extensions the run covers besides its base. An unknown name is a
 * usage error that lists the profile's extensions.
 */
static int resolve_extensions(const qc_run_opts *o, qc_plan *ss)
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
static void check_profile_coverage(qc_plan *ss, uint64_t (*base_ops)[QC_PROFILE_MAX_OPS],
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
static void classify_case(qc_plan *ss, const qc_spec *s, qc_case *c, int *reported,
                          uint64_t (*base_ops)[QC_PROFILE_MAX_OPS],
                          uint64_t (*ext_ops)[QC_PROFILE_MAX_OPS], qc_diag *diag)
{
	for (int i = 0; i < s->n_profiles; i++) {
		qc_profile *p =
		        (qc_profile *)qc_profile_find(ss->profiles, ss->n_profiles, s->profiles[i]);
		if (!p || (ss->profile && p != ss->profile))
			continue;
		int a[2], b[2];
		int k = qc_profile_classify(p, &c->call, a, b, p == ss->profile ? ss->hits : NULL);
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

static void check_duplicates(const qc_run_opts *o, qc_plan *ss, qc_diag *diag)
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
	QC_GROW(*v, *n, *cap, 64);
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

/* The plan qc_plan_load' loop makes of spec s for a run without --profile or --case: per case
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
			here = qc_plan_in_shard(o, name);
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

int qc_plan_load(const qc_run_opts *o, qc_plan *ss, qc_diag *diag, int with_data)
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
	int threads_plan = with_data == QC_PLAN_RUN && !o->profile && !o->n_case_names;
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
		if (with_data == QC_PLAN_RUN)
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
		int plan = with_data == QC_PLAN_RUN || with_data == QC_PLAN_LIST;
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
			if (with_data == QC_PLAN_VALIDATE) { /* validate: what the reference's
				                                answer tells too */
				check_case_answers(s, c, diag, reported, &n_reported);
				qc_cases_check_reference(it, c);
				try_check(s, c, diag, checked, &n_checked);
			}
			int here = 0;
			if (qc_case_selected(o, name) &&
			    (!c || qc_plan_class_covered(ss, qc_plan_case_class(ss, c)))) {
				for (int k = 0; k < o->n_case_names; k++)
					if (!strcmp(o->case_names[k], name))
						case_found[k] = 1;
				ss->unsharded++;
				ss->filtered[i]++;
				here = qc_plan_in_shard(o, name);
				ss->selected[i] += here;
				if (here && ss->listing && c)
					fprintf(ss->listing, "%s\t%s\n", name,
					        qc_profile_class_name(ss->profile,
					                              qc_plan_case_class(ss, c)));
				else if (here && ss->listing)
					fprintf(ss->listing, "%s\n", name);
			}
			qc_case_free(c);
			qc_job_unit u;
			if (with_data == QC_PLAN_RUN &&
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

/* ---- run ---- */

const char *qc_default_reference_plugin(char *buf, size_t size)
{
	qc_installed_path("libqconform_reference.so", "lib/qconform/libqconform_reference.so", buf,
	                  size);
	return buf;
}

int qc_run_each_case(const qc_run_opts *o, const qc_run_visitor *v)
{
	qc_diag diag = {0, 0, stderr};
	qc_plan ss = {0};
	if (qc_plan_load(o, &ss, &diag, QC_PLAN_RUN) != 0) {
		fprintf(stderr, "qconform: %d error%s in specs\n", diag.errors,
		        diag.errors == 1 ? "" : "s");
		qc_plan_free(&ss);
		return 2;
	}
	if (ss.total == 0) {
		fprintf(stderr, "qconform: no case matches the filters/profile\n");
		qc_plan_free(&ss);
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
			if (ss.profile && !qc_plan_class_covered(&ss, qc_plan_case_class(&ss, c))) {
				qc_case_free(c);
				continue;
			}
			uint64_t ord = ordinal++;
			if (qc_plan_in_shard(o, name))
				rc = v->each(v->ctx, c, ord);
			qc_case_free(c);
		}
		qc_cases_end(it);
		qc_cases_end(names);
	}
	qc_plan_free(&ss);
	return rc;
}
