/* qconform run: the selection run through the plugin, judged, reported; the exit status a CI gate
 * reads. */
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

#include "base/digest.h"
#include "base/utf8.h"
#include "base/util.h"
#include "cmd/commands.h"
#include "gate/diff.h"
#include "judge/variants.h"
#include "offline/import.h"
#include "pipeline/plan.h"
#include "report/console.h"
#include "report/dump.h"
#include "report/report_html.h"
#include "spec/slua.h"

#define MAX_PRINTED_FAILURES 20

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
		json_array_append_new(a, qc_json_new_string(v[i]));
	return a;
}

/*
 * What makes two runs the same run, case for case: the journal's "identity". A resumed run
 * must have the same one (the spec files' and the plugin's sha256 included: a journal says
 * nothing about edited specs or a rebuilt plugin). Not in it: --jobs, the report paths,
 * --quiet, --trace, --dump, --baseline (none changes a case's result).
 */
static json_t *run_identity(const qc_run_opts *o, const qc_plan *ss, const qc_plugin_info *info,
                            const char *waivers_sha)
{
	json_t *id = json_object();
	json_object_set_new(id, "qconform_version", json_string(QC_VERSION));
	json_t *specs = json_array();
	for (int i = 0; i < ss->n; i++) {
		json_t *sp = json_object();
		json_object_set_new(sp, "path", qc_json_new_string(ss->specs[i]->path));
		json_object_set_new(sp, "sha256", qc_json_new_string(ss->specs[i]->sha256));
		json_array_append_new(specs, sp);
	}
	json_object_set_new(id, "specs", specs);
	char seed[32];
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
	json_object_set_new(id, "seed", json_string(seed));
	json_t *plugin = json_object();
	json_object_set_new(plugin, "path", qc_json_new_string(info->path));
	json_object_set_new(plugin, "sha256", qc_json_new_string(info->sha256));
	json_t *opts = json_array();
	for (int i = 0; i < o->n_options; i++) {
		char *kv = NULL;
		if (asprintf(&kv, "%s=%s", o->options[i].key, o->options[i].value) < 0)
			kv = NULL;
		json_array_append_new(opts, qc_json_new_string(kv ? kv : ""));
		free(kv);
	}
	json_object_set_new(plugin, "options", opts);
	if (info->remote[0]) /* another machine: another run */
		json_object_set_new(plugin, "machine", qc_json_new_string(info->platform.machine));
	json_object_set_new(id, "plugin", plugin);
	json_object_set_new(id, "filters", jstrings(o->filters, o->n_filters));
	json_object_set_new(id, "case_names",
	                    jstrings((const char *const *)o->case_names, o->n_case_names));
	json_object_set_new(id, "profile",
	                    o->profile ? qc_json_new_string(o->profile) : json_null());
	/* the extensions of the profile the run covers besides its base (none without one) */
	json_t *cls = json_array();
	for (int k = 1; ss->tally && k <= ss->profile->n_ext; k++)
		if (ss->tally->covered[k])
			json_array_append_new(cls,
			                      qc_json_new_string(ss->profile->ext[k - 1].name));
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
	const qc_plan *ss;
} plan_ctx;

static int plan_selected(void *ctx, const char *name, qc_case *c)
{
	plan_ctx *p = ctx;
	return qc_case_selected(p->o, name) &&
	       (!c || qc_plan_class_covered(p->ss, qc_plan_case_class(p->ss, c)));
}

static int plan_in_shard(void *ctx, const char *name)
{
	return qc_plan_in_shard(((plan_ctx *)ctx)->o, name);
}

/*
 * qc_cmd_run in phases over one run_ctx: run_prepare reads what may refuse the run (the plan,
 * waivers, baseline, journal, dump, the pool), run_open starts the workers and the report,
 * run_cases runs them, run_finish writes and judges; run_free frees what any phase took, so an
 * early exit is one return.
 */
typedef struct run_ctx {
	const qc_run_opts *o;
	qc_diag diag;
	qc_plan ss;
	time_t started;
	struct timespec t0;
	qc_waivers *waivers;
	int n_expired; /* waivers past their expiry day: they fail the run */
	char waivers_sha[65];
	json_t *baseline; /* checked now, its cases streamed at the end */
	qc_journal_data jd;
	qc_dump *dump;
	char refbuf[PATH_MAX];
	qc_runner_config cfg;
	qc_pool pool;
	char scratch[1024]; /* --no-reports: the private directory of the JSON, or "" */
	qc_plugin_info info;
	run_state st;
	stop_state sigs;
	int sigs_caught;
	qc_jobs *jobs;
	qc_remote_board *boards;
	qc_spec_meta *metas;
	qc_run_meta meta;
	char json_path[1024], journal_path[1100];
	int journaled;
	char err[1200];
} run_ctx;

/* Frees what the phases took; the JSON report is abandoned if it was not closed. */
static void run_free(run_ctx *R)
{
	qc_json_abort(R->st.json);
	if (R->jobs) {
		atomic_store(&stop_jobs, NULL);
		qc_jobs_close(R->jobs);
	}
	if (R->sigs_caught)
		stop_restore(&R->sigs);
	qc_dump_close(R->dump, NULL);
	free(R->metas);
	free(R->boards);
	qc_journal_data_free(&R->jd);
	qc_waivers_free(R->waivers);
	json_decref(R->baseline);
	qc_pool_free(&R->pool);
	qc_plan_free(&R->ss);
	qc_stats_free(&R->st.stats);
	qc_diagnosis_free(R->st.diagnosis);
	if (R->scratch[0]) {
		unlink(R->json_path);
		rmdir(R->scratch);
	}
}

/* How the workers are started: the plugin, its options, time and memory, the sandbox. */
static void run_config(run_ctx *R)
{
	const qc_run_opts *o = R->o;
	qc_runner_config *cfg = &R->cfg;
	/* --remote: --plugin is a path where the worker runs (none: the worker's own) */
	cfg->plugin_path = o->plugin   ? o->plugin
	                   : o->remote ? NULL
	                               : qc_default_reference_plugin(R->refbuf, sizeof R->refbuf);
	cfg->remote = o->remote;
	cfg->options = o->options;
	cfg->n_options = o->n_options;
	cfg->timeout_s = o->timeout_s;
	cfg->trace = o->trace;
	cfg->sandbox = !o->no_sandbox;
	cfg->sandbox_allow = o->sandbox_allow;
	cfg->n_sandbox_allow = o->n_sandbox_allow;
	/* the default is half the RAM of the machine the workers run on: a remote worker takes
	 * its device's (memory_share), a local one this machine's */
	if (o->worker_memory_set)
		cfg->worker_memory = o->worker_memory;
	else if (o->remote && !o->import)
		cfg->memory_share = o->jobs > 0 ? o->jobs : 1;
	else
		cfg->worker_memory = qc_worker_memory_default(o->jobs);
}

/* What may refuse the run before anything starts. 0, or 2 (said why). */
static int run_prepare(run_ctx *R)
{
	const qc_run_opts *o = R->o;
	/* a plugin that cannot be opened is refused before the specs are loaded and planned (a
	 * second for all of specs/); the runner opens it again, with its sha256 */
	if (o->plugin && !o->remote && access(o->plugin, R_OK) != 0) {
		fprintf(stderr, "qconform: %s: cannot open: %s\n", o->plugin, strerror(errno));
		return 2;
	}
	R->diag = (qc_diag){0, 0, stderr};
	R->started = time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &R->t0);
	if (qc_plan_load(o, &R->ss, &R->diag, QC_PLAN_RUN) != 0) {
		fprintf(stderr, "qconform: %d error%s in specs; nothing was run\n", R->diag.errors,
		        R->diag.errors == 1 ? "" : "s");
		return 2;
	}
	if (R->ss.total == 0 && R->ss.unsharded == 0) {
		fprintf(stderr, "qconform: no case matches the filters/profile\n");
		return 2;
	}
	/* import: the specs must be the export's, unchanged */
	if (o->import && qc_import_check_specs(o->import, R->ss.specs, R->ss.selected, R->ss.n,
	                                       R->ss.total, R->err, sizeof R->err) != 0) {
		fprintf(stderr, "qconform import: %s\n", R->err);
		return 2;
	}
	/* waivers and the baseline are read before anything runs: their errors are usage errors */
	if (o->waivers) {
		if (!(R->waivers = qc_waivers_load(o->waivers, &R->diag))) {
			fprintf(stderr, "qconform: %d error%s in %s; nothing was run\n",
			        R->diag.errors, R->diag.errors == 1 ? "" : "s", o->waivers);
			return 2;
		}
		R->n_expired = qc_waivers_expire(R->waivers, R->started);
		if (qc_sha256_file(o->waivers, R->waivers_sha) != 0)
			R->waivers_sha[0] = 0;
	}
	if (o->baseline) {
		qc_report *b = qc_report_open(o->baseline, R->err, sizeof R->err);
		R->baseline = b ? json_incref(qc_report_doc(b)) : NULL;
		qc_report_close(b);
		if (!R->baseline) {
			fprintf(stderr, "qconform: --baseline %s\n", R->err);
			return 2;
		}
	}
	/* --resume: the journal is read before anything starts */
	if (o->resume && qc_journal_load(o->resume, &R->jd, R->err, sizeof R->err) != 0) {
		fprintf(stderr, "qconform: --resume %s\n", R->err);
		return 2;
	}
	if (o->dump_dir) {
		char derr[512];
		R->dump = qc_dump_open(o->dump_dir,
		                       o->dump_max > 0 ? o->dump_max : QC_DUMP_MAX_DEFAULT,
		                       o->plugin, o->options, o->n_options, derr, sizeof derr);
		if (!R->dump) {
			fprintf(stderr, "qconform: --dump %s\n", derr);
			return 2;
		}
	}
	/* --remote: the pool of boards (one without a pool of commands), each with its count of
	 * links lost */
	if (o->remote && !o->import) {
		const char *one[1] = {o->remote};
		if (qc_pool_make(&R->pool, o->n_remotes ? o->remotes : one,
		                 o->n_remotes ? o->n_remotes : 1, o->jobs, R->err,
		                 sizeof R->err) != 0) {
			fprintf(stderr, "qconform: %s\n", R->err);
			return 2;
		}
	}
	run_config(R);
	/* --no-reports: only the reports named (--json, --html, --junit) are written; the JSON
	 * the run needs (the verdict, a baseline's diff) goes otherwise to a private directory,
	 * removed at the end, and no existing report is touched */
	if (o->no_reports && !o->json_path) {
		const char *t = getenv("TMPDIR");
		snprintf(R->scratch, sizeof R->scratch, "%s/qconform.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(R->scratch)) {
			fprintf(stderr, "qconform: --no-reports: a temporary directory in %s: %s\n",
			        t && *t ? t : "/tmp", strerror(errno));
			R->scratch[0] = '\0';
			return 2;
		}
	}
	return 0;
}

/* Where the JSON report and the journal go; whether there is a journal. */
static void run_paths(run_ctx *R)
{
	const qc_run_opts *o = R->o;
	if (R->scratch[0]) {
		snprintf(R->json_path, sizeof R->json_path, "%s/report.json", R->scratch);
	} else if (o->json_path)
		snprintf(R->json_path, sizeof R->json_path, "%s", o->json_path);
	else {
		/* the plugin's name picks a directory: one safe path component, never "..". */
		char dir[64];
		qc_path_component(strstr(R->info.name, "reference") ? "reference" : R->info.name,
		                  dir, sizeof dir);
		snprintf(R->json_path, sizeof R->json_path, "reports/out/%s/report.json", dir);
	}
	if (o->json_written)
		snprintf(o->json_written, o->json_written_size, "%s", R->json_path);
	snprintf(R->journal_path, sizeof R->journal_path, "%s",
	         o->resume         ? o->resume
	         : o->journal_path ? o->journal_path
	                           : R->json_path);
	if (!o->resume && !o->journal_path)
		snprintf(R->journal_path, sizeof R->journal_path, "%s.journal", R->json_path);
	/* a report to /dev/null or a FIFO gets no journal beside it (unless one is named) */
	struct stat jsb;
	R->journaled = !o->import && (!R->scratch[0] || o->journal_path) &&
	               (o->resume || o->journal_path || stat(R->json_path, &jsb) != 0 ||
	                S_ISREG(jsb.st_mode));
	if (!R->journaled)
		R->journal_path[0] = '\0';
}

/* The report's description of the run, before its cases. */
static void run_meta(run_ctx *R)
{
	const qc_run_opts *o = R->o;
	const qc_plan *ss = &R->ss;
	R->metas = qc_xcalloc((size_t)ss->n, sizeof *R->metas);
	for (int i = 0; i < ss->n; i++)
		R->metas[i] = (qc_spec_meta){ss->specs[i]->path, ss->specs[i]->sha256,
		                             ss->selected[i], ss->specs[i]->description};
	R->meta = (qc_run_meta){
	        .seed = o->seed,
	        .plugin = &R->info,
	        .specs = R->metas,
	        .n_specs = ss->n,
	        .filters = o->filters,
	        .n_filters = o->n_filters,
	        .case_names = (const char *const *)o->case_names,
	        .n_case_names = o->n_case_names,
	        .self = o->self,
	        .profile = o->profile,
	        .profile_def = ss->profile,
	        .profile_tally = ss->tally,
	        .timeout_s = o->timeout_s,
	        .started = R->started,
	        .command = o->command,
	        .options = o->options,
	        .n_options = o->n_options,
	        .shard_index = o->shard_count ? o->shard_index : 0,
	        .shard_count = o->shard_count,
	        .waivers = R->waivers,
	        .import = o->import ? qc_import_report_meta(o->import) : NULL,
	        .boards = R->boards,
	        /* one board: the report of a run without a pool */
	        .n_boards = R->pool.n_boards > 1 ? R->pool.n_boards : 0,
	        .repeat = o->repeat > 1 ? o->repeat : 1,
	        .threads_option = R->info.threads_option[0] ? R->info.threads_option : NULL,
	        .require_engine = qc_require_engine_stricter(
	                o->require_engine, ss->profile ? ss->profile->require_engine : NULL)};
	if (o->resume) {
		/* the report of the run that was started: its command and start time */
		const char *cmd0 = json_string_value(json_object_get(R->jd.header, "command"));
		json_t *t = json_object_get(R->jd.header, "started");
		R->meta.command = cmd0 ? cmd0 : o->command;
		if (json_is_integer(t))
			R->meta.started = (time_t)json_integer_value(t);
		R->meta.resumed_from = o->resume;
		R->meta.resumed_cases = R->jd.n;
		R->meta.resume_command = o->command;
	}
}

/* The report and the journal opened (a resumed run's journal checked to be of this run). */
static int run_open_report(run_ctx *R)
{
	const qc_run_opts *o = R->o;
	run_state *st = &R->st;
	json_t *identity =
	        run_identity(o, &R->ss, &R->info, R->waivers_sha[0] ? R->waivers_sha : NULL);
	const char *refused = NULL;
	if (o->resume &&
	    (refused = identity_difference(json_object_get(R->jd.header, "identity"), identity))) {
		fprintf(stderr,
		        "qconform: --resume %s: the journal is of another run (%s): resume with "
		        "the "
		        "command that started it, or run without --resume to start again\n",
		        o->resume, refused);
	}
	run_meta(R);
	if (!refused && !(st->json = qc_json_open(R->json_path, &R->meta, R->err, sizeof R->err)))
		fprintf(stderr, "qconform: %s\n", R->err);
	if (st->json && o->resume) {
		if (R->jd.note[0])
			fprintf(stderr, "qconform: --resume %s\n", R->jd.note);
		if (!(st->journal =
		              qc_journal_reopen(R->journal_path, &R->jd, R->err, sizeof R->err)))
			fprintf(stderr, "qconform: %s\n", R->err);
	} else if (st->json && R->journaled) {
		if (access(R->journal_path, F_OK) == 0)
			fprintf(stderr,
			        "qconform: note: %s is replaced (resume an unfinished run with "
			        "run --resume)\n",
			        R->journal_path);
		json_t *h = json_object();
		json_object_set_new(h, "format", json_string("qconform-journal"));
		json_object_set_new(h, "format_version", json_integer(QC_JOURNAL_FORMAT));
		json_object_set_new(h, "started", json_integer((json_int_t)R->started));
		json_object_set_new(h, "command", qc_json_new_string(o->command));
		json_object_set_new(h, "argv", jstrings((const char *const *)o->argv, o->argc));
		json_object_set_new(h, "identity", json_incref(identity));
		if (!(st->journal = qc_journal_create(R->journal_path, h, R->err, sizeof R->err)))
			fprintf(stderr, "qconform: %s\n", R->err);
		json_decref(h);
	}
	json_decref(identity);
	return !st->json || (R->journaled && !st->journal) ? 2 : 0;
}

/* The workers started (or the import's records opened) and the report opened. 0, or 2. */
static int run_open(run_ctx *R)
{
	const qc_run_opts *o = R->o;
	run_state *st = &R->st;
	st->o = o;
	st->waivers = R->waivers;
	st->tally = R->ss.tally;
	st->dump = R->dump;
	stop_catch(&R->sigs); /* blocked: the job threads start with the signals blocked */
	R->sigs_caught = 1;
	qc_pool *pool = &R->pool;
	if ((o->import
	             ? qc_jobs_open_source(qc_import_source(o->import, &R->info), o->jobs, &R->jobs)
	             : qc_jobs_open(&R->cfg, pool->n_boards ? pool : NULL, o->jobs, &R->jobs,
	                            &R->info, R->err, sizeof R->err)) != 0) {
		R->jobs = NULL;
		fprintf(stderr, "qconform: %s\n", R->err);
		return 2;
	}
	atomic_store(&stop_jobs, R->jobs);
	/* --remote: the report's pool (how each board fared is filled in at the end) */
	st->pool = pool->n_boards ? pool : NULL;
	R->boards = qc_xcalloc((size_t)(pool->n_boards ? pool->n_boards : 1), sizeof *R->boards);
	for (int b = 0; b < pool->n_boards; b++)
		R->boards[b] = (qc_remote_board){.command = pool->boards[b].command,
		                                 .jobs = pool->boards[b].n_jobs};
	if (pool->n_boards) /* the command as given ({job} and all), the first of a pool */
		snprintf(R->info.remote, sizeof R->info.remote, "%s", o->remote);
	run_paths(R);
	return run_open_report(R);
}

/* The lines before the cases: what runs, on what, and how much of it. */
static void run_banner(const run_ctx *R)
{
	const qc_run_opts *o = R->o;
	const qc_plan *ss = &R->ss;
	const qc_plugin_info *info = &R->info;
	char shown_name[sizeof info->name * 3], shown_version[sizeof info->version * 3];
	qc_utf8_sanitize(shown_name, sizeof shown_name, info->name, strlen(info->name));
	qc_utf8_sanitize(shown_version, sizeof shown_version, info->version, strlen(info->version));
	printf("qconform %s: %llu case%s from %d spec%s, plugin %s %s (ABI %u)\n", QC_VERSION,
	       (unsigned long long)ss->total, ss->total == 1 ? "" : "s", ss->n,
	       ss->n == 1 ? "" : "s", shown_name, shown_version, info->abi_version);
	if (info->sandbox[0] && info->sandbox_reduced)
		printf("warning: a weaker sandbox, without namespaces: %s (README, Untrusted "
		       "kernels)\n",
		       info->sandbox);
	if (o->shard_count)
		printf("shard %d/%d: %llu of the run's %llu case%s\n", o->shard_index,
		       o->shard_count, (unsigned long long)ss->total,
		       (unsigned long long)ss->unsharded, ss->unsharded == 1 ? "" : "s");
	if (o->resume)
		printf("resuming %s: %zu case%s done before, %llu to run\n", o->resume, R->jd.n,
		       R->jd.n == 1 ? "" : "s",
		       (unsigned long long)(ss->total > R->jd.n ? ss->total - R->jd.n : 0));
	fflush(stdout);
}

/* The job threads expand, compute the reference's answers, run and judge; this thread
 * reports the cases in order. A signal cancels the jobs: what was judged is reported. The
 * jobs are closed at the end. 0, or -1 (said why). */
static int run_cases(run_ctx *R)
{
	const qc_run_opts *o = R->o;
	run_state *st = &R->st;
	st->total = R->ss.total;
	qc_progress_init(&st->progress, stdout, R->ss.total, !o->quiet);
	st->colour = qc_console_colour(stdout);
	if (!o->no_diagnose)
		st->diagnosis = qc_diagnosis_new();
	plan_ctx pctx = {o, &R->ss};
	qc_jobs_plan plan = {.specs = R->ss.specs,
	                     .n_specs = R->ss.n,
	                     .units = R->ss.units,
	                     .n_units = R->ss.n_units,
	                     .seed = o->seed,
	                     .selected = plan_selected,
	                     .in_shard = plan_in_shard,
	                     .need_case = R->ss.profile != NULL,
	                     .ctx = &pctx,
	                     .json = st->json,
	                     .resume = o->resume ? &R->jd : NULL,
	                     .waivers = R->waivers,
	                     .keep_failing = R->dump != NULL,
	                     .keep_judged = st->diagnosis != NULL,
	                     .journal = st->journal != NULL,
	                     .repeat = o->repeat};
	int rc = qc_jobs_start(R->jobs, &plan, R->err, sizeof R->err);
	stop_unblock(&R->sigs);
	if (rc != 0)
		fprintf(stderr, "qconform: %s\n", R->err);
	else
		rc = take_units(st, R->jobs);
	/* no handler may touch the jobs while they are freed */
	stop_block(&R->sigs);
	atomic_store(&stop_jobs, NULL);
	qc_jobs_close(R->jobs);
	R->jobs = NULL;
	stop_unblock(&R->sigs);
	return rc;
}

/* The run as it ended: interrupted (by a signal, or --max-failures), each board's fate. */
typedef struct run_end {
	int sig;         /* the signal that stopped the run, or 0 */
	int interrupted; /* cases were left: a signal, or --max-failures */
	int by_failures; /* --max-failures: no journal, exit 1 */
	char stopped_by[64];
	int journal_ok;
} run_end;

/* The report completed and closed, the journal closed. rc: the run's, -1 when the report
 * could not be written. */
static int run_close(run_ctx *R, run_end *E, int rc)
{
	const qc_run_opts *o = R->o;
	run_state *st = &R->st;
	qc_run_meta *meta = &R->meta;
	E->sig = stop_signal;
	/* a signal after the last verdict stopped nothing: the run is complete */
	E->interrupted = (E->sig || st->stopped) && st->done < st->total;
	E->by_failures = E->interrupted && !E->sig;
	snprintf(E->stopped_by, sizeof E->stopped_by, "--max-failures %ld", o->max_failures);
	meta->finished = time(NULL);
	meta->wall_s = seconds_since(&R->t0);
	for (int b = 0; b < R->pool.n_boards; b++) {
		const qc_board *x = &R->pool.boards[b];
		R->boards[b].dead = atomic_load(&x->dead);
		R->boards[b].why = x->why;
		R->boards[b].cases = x->cases;
		R->boards[b].reconnects = atomic_load(&x->reconnects);
		meta->remote_reconnects += R->boards[b].reconnects;
	}
	qc_progress_clear(&st->progress);
	meta->waived = st->waived;
	if (E->interrupted) {
		meta->interrupted = E->by_failures ? E->stopped_by : signal_name(E->sig);
		meta->max_failures = E->by_failures ? o->max_failures : 0;
		meta->cases_done = st->done;
		meta->cases_planned = st->total;
		meta->journal = R->journaled && !E->by_failures ? R->journal_path : NULL;
	}
	/* which rules explain the failures: after a signal, no more workers */
	if (st->diagnosis && !E->sig) {
		qc_diagnosis_compute(st->diagnosis, o->datasheet);
		meta->diagnosis = st->diagnosis;
	}
	int closed = qc_json_close(st->json, &st->stats, meta);
	st->json = NULL;
	if (closed != 0) {
		fprintf(stderr, "qconform: writing %s failed\n", R->json_path);
		rc = -1;
	}
	E->journal_ok = qc_journal_close(st->journal) == 0;
	st->journal = NULL;
	if (getenv("QCONFORM_JOURNAL_TIMING"))
		fprintf(stderr, "qconform: journal: %.3f s flushing, %lu fdatasync\n",
		        st->journal_sync_s, st->journal_syncs);
	return rc;
}

/* The console after the cases: the table, the boards, the diagnosis, the profile's
 * coverage, an empty shard. */
static void run_summary(const run_ctx *R)
{
	const qc_run_opts *o = R->o;
	const qc_plan *ss = &R->ss;
	const qc_run_meta *meta = &R->meta;
	const qc_remote_board *boards = R->boards;
	int n_boards = R->pool.n_boards;
	qc_console_table(stdout, &R->st.stats, meta);
	if (meta->remote_reconnects)
		printf("remote: the link to the worker was lost %d time%s: the command started "
		       "again, the cases in flight ran again\n",
		       meta->remote_reconnects, meta->remote_reconnects == 1 ? "" : "s");
	int alive = 0;
	for (int b = 0; b < n_boards; b++)
		alive += !boards[b].dead;
	for (int b = 0; n_boards > 1 && b < n_boards; b++)
		if (boards[b].dead)
			printf("remote: board %d `%s` is dead, out of the pool after %llu "
			       "case%s%s: "
			       "%s\n",
			       b, boards[b].command, (unsigned long long)boards[b].cases,
			       boards[b].cases == 1 ? "" : "s",
			       alive ? " (the other boards ran the rest)" : "", boards[b].why);
	if (meta->diagnosis)
		qc_console_diagnosis(stdout, meta->diagnosis, o->datasheet);
	if (ss->profile) {
		const qc_profile_tally *t = ss->tally;
		printf("profile %s: base: %d required ops, %llu cases run (it needs %llu)%s\n",
		       ss->profile->name, ss->profile->n_ops, (unsigned long long)t->cases[0],
		       (unsigned long long)ss->profile->min_cases,
		       o->n_filters || o->n_case_names ? "; filtered run: not a certification"
		                                       : "");
		for (int k = 1; k <= ss->profile->n_ext; k++) {
			const qc_profile_ext *x = &ss->profile->ext[k - 1];
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
	if (o->shard_count && !R->st.stats.cases)
		printf("shard %d/%d holds none of the run's cases: nothing failed (merge the "
		       "shards "
		       "for the run's verdict)\n",
		       o->shard_index, o->shard_count);
}

/* --shrink N: the first N FAIL cases cut down, beside the report. The status, or 2. */
static int run_shrink(run_ctx *R, int status, int sig)
{
	run_state *st = &R->st;
	for (int i = 0; i < st->n_shrink && status != 2 && !sig; i++) {
		char dir[1100];
		if (R->scratch[0]) {
			snprintf(dir, sizeof dir, "reports/out/shrunk");
		} else {
			const char *slash = strrchr(R->json_path, '/');
			snprintf(dir, sizeof dir, "%.*sshrunk",
			         slash ? (int)(slash - R->json_path + 1) : 0, R->json_path);
		}
		qc_run_opts so = *R->o;
		so.shrink = 0;
		if (qc_cmd_shrink(&so, st->shrink[i], dir, 0) == 2)
			status = 2;
	}
	for (int i = 0; i < st->n_shrink; i++)
		free(st->shrink[i]);
	free(st->shrink);
	st->shrink = NULL;
	st->n_shrink = 0;
	return status;
}

/* --baseline: the same comparison as qconform diff BASELINE REPORT, and the gate: a failure
 * the baseline holds too does not fail the run by itself. The status; *gated when the gate
 * decided it. */
static int run_gate(run_ctx *R, int status, qc_diff_counts *dc, int *gated)
{
	const qc_run_opts *o = R->o;
	char derr[1024];
	qc_report *base = qc_report_open(o->baseline, derr, sizeof derr),
	          *cur = base ? qc_report_open(R->json_path, derr, sizeof derr) : NULL;
	printf("baseline %s:\n", o->baseline);
	qc_diff_opts dopts = {.allow_loss = o->allow_loss, .n_allow_loss = o->n_allow_loss};
	if (!cur || qc_diff_reports(base, cur, &dopts, stdout, dc, derr, sizeof derr) != 0) {
		fprintf(stderr, "qconform: --baseline: %s\n", derr);
		status = 2;
	} else if (status != 2) {
		status = dc->regressions || R->n_expired ||
		                         qc_run_verified_nothing(&R->st.stats, &R->meta) ||
		                         qc_stats_engine_breaches(&R->st.stats,
		                                                  R->meta.require_engine)
		                 ? 1
		                 : 0;
		*gated = 1;
	}
	qc_report_close(base);
	qc_report_close(cur);
	return status;
}

int qc_cmd_run(const qc_run_opts *o)
{
	run_ctx *R = qc_xcalloc(1, sizeof *R);
	R->o = o;
	if (run_prepare(R) != 0 || run_open(R) != 0) {
		run_free(R);
		free(R);
		return 2;
	}
	run_banner(R);
	run_end E = {0};
	int rc = run_close(R, &E, run_cases(R));
	run_state *st = &R->st;
	run_summary(R);
	int status = rc != 0 || st->spec_errors ? 2 : qc_run_conforms(&st->stats, &R->meta) ? 0 : 1;
	if (R->waivers)
		status = report_waivers(R->waivers, status);
	qc_diff_counts dc;
	int gated = 0;
	if (R->dump && qc_dump_close(R->dump, stdout) != 0)
		status = 2;
	R->dump = NULL;
	if (R->scratch[0])
		printf("report: none written (--no-reports)\n");
	else
		printf("report: %s\n", R->json_path);
	if (rc == 0 && render_reports(o, R->json_path) != 0)
		status = 2;
	status = run_shrink(R, status, E.sig);
	if (E.by_failures) {
		printf("STOPPED by %s: %llu failing case%s after %llu of %llu case%s; the reports "
		       "hold the cases judged\n",
		       R->meta.interrupted, (unsigned long long)st->failing,
		       st->failing == 1 ? "" : "s", (unsigned long long)st->done,
		       (unsigned long long)st->total, st->total == 1 ? "" : "s");
	} else if (E.interrupted) {
		printf("INTERRUPTED by %s after %llu of %llu case%s: the reports hold the cases "
		       "judged before it\n",
		       R->meta.interrupted, (unsigned long long)st->done,
		       (unsigned long long)st->total, st->total == 1 ? "" : "s");
		if (R->journaled && o->resume) /* the command that resumed it, again */
			printf("resume: %s\n", o->command);
		else if (R->journaled) /* the same command: the journal holds no arguments */
			printf("resume: %s --resume '%s'\n", o->command, R->journal_path);
	} else if (R->baseline && rc == 0) {
		status = run_gate(R, status, &dc, &gated);
	}
	if (!E.interrupted && status != 2)
		print_verdict(&st->stats, &R->meta, R->waivers, st->waived, R->n_expired,
		              gated ? o->baseline : NULL, gated ? &dc : NULL, status, st->colour);
	if (E.sig && !E.interrupted)
		fprintf(stderr, "qconform: %s after the last case: the run is complete\n",
		        signal_name(E.sig));
	/* the journal has served once the complete report is written */
	if (!R->journaled)
		;
	else if ((!E.interrupted || E.by_failures) && rc == 0 && E.journal_ok && !o->keep_journal)
		unlink(R->journal_path);
	else if (!E.interrupted && o->keep_journal)
		printf("journal: %s\n", R->journal_path);
	if (E.interrupted && !E.by_failures)
		status = 128 + E.sig;
	fflush(stdout);
	run_free(R);
	free(R);
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
