/*
 * Interruptions lose nothing: `qconform run` stopped by SIGINT, SIGTERM or SIGHUP writes valid
 * reports of what finished, marked "interrupted", and exits 128 + the signal; after SIGKILL,
 * `run --resume JOURNAL` runs only the missing cases and writes the report an uninterrupted
 * run writes; a journal of another run is refused; a closed stdout (| head -1) does not kill a
 * run. The runs use the slow stub (suite/stubs/slow.c, QCT_SLOW_MS per case) on
 * suite/specs/interrupt (192 cases).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/digest.h"
#include "gate/certify.h"
#include "qct.h"

#define SPECS "suite/specs/interrupt"
#define CASES 192

typedef struct paths {
	char json[600], html[600], junit[600], journal[620], out[600], err[600];
} paths;

static void paths_in(paths *p, const char *dir)
{
	snprintf(p->json, sizeof p->json, "%s/report.json", dir);
	snprintf(p->html, sizeof p->html, "%s/report.html", dir);
	snprintf(p->junit, sizeof p->junit, "%s/report.junit.xml", dir);
	snprintf(p->journal, sizeof p->journal, "%s/report.json.journal", dir);
	snprintf(p->out, sizeof p->out, "%s/stdout", dir);
	snprintf(p->err, sizeof p->err, "%s/stderr", dir);
}

/* Starts `qconform run ARGS` (with QCT_SLOW_MS=slow_ms) in the background: its pid. */
static pid_t start_run(const paths *p, int slow_ms, const char *args)
{
	char cmd[4096], ms[16];
	snprintf(cmd, sizeof cmd, "exec %s run %s --quiet --json '%s' --html '%s' --junit '%s'",
	         qct_build_path("qconform"), args, p->json, p->html, p->junit);
	snprintf(ms, sizeof ms, "%d", slow_ms);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("QCT_SLOW_MS", ms, 1);
		int o = open(p->out, O_WRONLY | O_CREAT | O_TRUNC, 0644),
		    e = open(p->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(o, 1);
		dup2(e, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int wait_status(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* Lines of a file (0 if it does not exist). */
static int line_count(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int n = 0, c;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Waits (up to 30 s) until the journal holds at least one case line after its header. */
static int wait_for_cases(const char *journal)
{
	for (int i = 0; i < 3000; i++) {
		if (line_count(journal) >= 2)
			return 1;
		struct timespec t = {0, 10 * 1000000L};
		nanosleep(&t, NULL);
	}
	return 0;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int xmllint_ok(const char *path)
{
	qct_proc p;
	if (qct_sh(&p, "xmllint --noout '%s'", path) != 0)
		return 0;
	int ok = p.status == 0;
	qct_proc_free(&p);
	return ok;
}

/* The JSON report read back, after the schema check. */
static json_t *valid_report(const char *json)
{
	qct_validate_report_later(json, "report of an interrupted or resumed run");
	json_error_t e;
	json_t *r = json_load_file(json, 0, &e);
	if (!r)
		fprintf(stderr, "\n  %s: %s", json, e.text);
	return r;
}

/* Runs `qconform ARGS` to completion (QCT_SLOW_MS=0): its exit status; stderr in err. */
static int run_now(const char *args, char **err)
{
	qct_proc p;
	if (qct_sh(&p, "QCT_SLOW_MS=0 %s %s", qct_build_path("qconform"), args) != 0)
		return -1;
	int st = p.status;
	if (err)
		*err = strdup(p.err);
	qct_proc_free(&p);
	return st;
}

static json_t *without(json_t *o, const char *const *keys, int n)
{
	json_t *c = json_deep_copy(o);
	for (int i = 0; i < n; i++)
		json_object_del(c, keys[i]);
	return c;
}

/* Two reports hold the same cases (in order), roll-ups and summary, timings aside (and an op's
 * diagnosis: a resumed run's is of the cases run after the resume, README "Diagnosis"). */
static void assert_same_run(json_t *a, json_t *b)
{
	static const char *const timing[] = {"seconds", "diagnosis"};
	static const char *const summary_timing[] = {"finished", "wall_seconds"};
	static const char *const lists[] = {"cases", "ops"};
	for (int l = 0; l < 2; l++) {
		json_t *x = json_object_get(a, lists[l]), *y = json_object_get(b, lists[l]);
		CU_ASSERT_EQUAL_FATAL(json_array_size(x), json_array_size(y));
		size_t differ = 0;
		for (size_t i = 0; i < json_array_size(x); i++) {
			json_t *cx = without(json_array_get(x, i), timing, 2),
			       *cy = without(json_array_get(y, i), timing, 2);
			if (!json_equal(cx, cy) && differ++ < 3) {
				char *dx = json_dumps(cx, JSON_COMPACT),
				     *dy = json_dumps(cy, JSON_COMPACT);
				fprintf(stderr, "\n  %s[%zu] differs:\n  %.400s\n  %.400s",
				        lists[l], i, dx, dy);
				free(dx);
				free(dy);
			}
			json_decref(cx);
			json_decref(cy);
		}
		CU_ASSERT_EQUAL(differ, 0);
	}
	json_t *sx = without(json_object_get(a, "summary"), summary_timing, 2),
	       *sy = without(json_object_get(b, "summary"), summary_timing, 2);
	CU_ASSERT(json_equal(sx, sy));
	json_decref(sx);
	json_decref(sy);
}

/* ---- a signal in the middle of a run ---- */

typedef struct signal_row {
	const char *name;
	int sig, status;
	int jobs;
	int second; /* another signal right after the first (0: none) */
} signal_row;

static const signal_row signal_rows[] = {
        {"SIGINT", SIGINT, 130, 1, 0},
        {"SIGTERM", SIGTERM, 143, 2, 0},
        {"SIGHUP", SIGHUP, 129, 1, SIGINT},
};

static void one_signal(const signal_row *row)
{
	const char *tmp = qct_tmpdir();
	paths p;
	paths_in(&p, tmp);
	char args[1024];
	snprintf(args, sizeof args, SPECS " --plugin %s --jobs %d", qct_stub("slow"), row->jobs);
	pid_t pid = start_run(&p, 10, args);
	CU_ASSERT_FATAL(pid > 0);
	int started = wait_for_cases(p.journal);
	CU_ASSERT(started);
	kill(pid, row->sig);
	if (row->second)
		kill(pid, row->second);
	int st = wait_status(pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != row->status) {
		char *e = qct_read_file(p.err);
		fprintf(stderr, "\n  %s: wait status %#x, stderr: %s", row->name, st, e ? e : "");
		free(e);
	}
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), row->status);

	/* valid reports of what finished, marked interrupted */
	json_t *r = valid_report(p.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *in = json_object_get(r, "interrupted");
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	CU_ASSERT_STRING_EQUAL(qct_str(in, "signal"), row->name);
	json_int_t done = json_integer_value(json_object_get(in, "cases_done"));
	CU_ASSERT(done > 0 && done < CASES);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(in, "cases_planned")), CASES);
	CU_ASSERT_EQUAL((json_int_t)json_array_size(json_object_get(r, "cases")), done);
	CU_ASSERT_STRING_EQUAL(qct_str(in, "journal"), p.journal);
	json_t *summary = json_object_get(r, "summary");
	CU_ASSERT(json_is_false(json_object_get(summary, "conforms")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(summary, "cases")), done);
	/* the journal holds exactly the reported cases, in order */
	CU_ASSERT_EQUAL(line_count(p.journal), 1 + done);
	char *html = qct_read_file(p.html), *out = qct_read_file(p.out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, ">INTERRUPTED</div>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"interrupted\""));
	CU_ASSERT(xmllint_ok(p.junit));
	char *xml = qct_read_file(p.junit);
	CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
	CU_ASSERT_PTR_NOT_NULL(strstr(xml, "name=\"run interrupted\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "INTERRUPTED by "));
	/* the command to resume is the one that ran, with --resume */
	CU_ASSERT(strstr(out, "resume: ") && strstr(out, " run " SPECS) &&
	          strstr(out, "--resume '"));
	char tmpfile_path[700];
	snprintf(tmpfile_path, sizeof tmpfile_path, "%s.tmp", p.json);
	CU_ASSERT(!exists(tmpfile_path)); /* renamed into place */
	free(html);
	free(xml);
	free(out);

	/* merge refuses a partial run; a certificate refuses it */
	char cmd[2048], *err = NULL;
	snprintf(cmd, sizeof cmd, "merge '%s' --json '%s/m.json'", p.json, tmp);
	CU_ASSERT_EQUAL(run_now(cmd, &err), 2);
	CU_ASSERT(err && strstr(err, "interrupted run"));
	free(err);
	json_object_set_new(r, "profile",
	                    json_pack("{s:s, s:i, s:i, s:[]}", "name", "p", "min_cases", 0, "cases",
	                              (int)done, "required_ops"));
	json_t *reasons = qc_certify_reasons(r);
	int refused = 0;
	for (size_t i = 0; i < json_array_size(reasons); i++)
		refused |= strstr(json_string_value(json_array_get(reasons, i)),
		                  "interrupted run") != NULL;
	CU_ASSERT(refused);
	json_decref(reasons);
	json_decref(r);

	/* and a way on: --resume completes the run, then the journal goes */
	snprintf(cmd, sizeof cmd,
	         "run %s --quiet --json '%s' --html '%s' --junit '%s' --resume '%s'", args, p.json,
	         p.html, p.junit, p.journal);
	CU_ASSERT_EQUAL(run_now(cmd, NULL), 1); /* the slow stub's FAIL cases */
	r = valid_report(p.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NULL(json_object_get(r, "interrupted"));
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "cases")), CASES);
	json_t *resumed = json_object_get(json_object_get(r, "run"), "resumed");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(resumed, "cases")), done);
	CU_ASSERT(!exists(p.journal));
	CU_ASSERT(xmllint_ok(p.junit));
	json_decref(r);
	qct_rmdir(tmp);
}

static void test_signals(void)
{
	for (size_t i = 0; i < sizeof signal_rows / sizeof signal_rows[0]; i++)
		one_signal(&signal_rows[i]);
}

/* ---- SIGKILL, then --resume ---- */

static void test_kill_then_resume(void)
{
	const char *tmp = qct_tmpdir();
	char full_dir[700], cmd[2048];
	paths p, f;
	paths_in(&p, tmp);
	snprintf(full_dir, sizeof full_dir, "%s/full", tmp);
	mkdir(full_dir, 0755);
	paths_in(&f, full_dir);
	char args[1024];
	snprintf(args, sizeof args, SPECS " --plugin %s", qct_stub("slow"));

	/* the uninterrupted run */
	snprintf(cmd, sizeof cmd, "run %s --quiet --json '%s'", args, f.json);
	CU_ASSERT_EQUAL(run_now(cmd, NULL), 1);
	CU_ASSERT(!exists(f.journal)); /* removed after a complete report */
	json_t *full = valid_report(f.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(full);

	/* killed: no report, a journal */
	pid_t pid = start_run(&p, 10, args);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT(wait_for_cases(p.journal));
	kill(pid, SIGKILL);
	int st = wait_status(pid);
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CU_ASSERT(!exists(p.json));
	int lines = line_count(p.journal);
	CU_ASSERT(lines >= 2 && lines < 1 + CASES);
	/* the crash also cut the line being written: half of the last one, no newline */
	char *journal = qct_read_file(p.journal);
	CU_ASSERT_PTR_NOT_NULL_FATAL(journal);
	size_t jl = strlen(journal);
	char *last = journal + jl - 1;
	while (last > journal && last[-1] != '\n')
		last--;
	FILE *j = fopen(p.journal, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	fwrite(last, 1, (size_t)(journal + jl - last) / 2, j);
	fclose(j);

	snprintf(cmd, sizeof cmd,
	         "run %s --quiet --json '%s' --html '%s' --junit '%s' --resume '%s'", args, p.json,
	         p.html, p.junit, p.journal);
	char *err = NULL;
	CU_ASSERT_EQUAL(run_now(cmd, &err), 1);
	if (err && *err)
		fprintf(stderr, "\n  resume: %s", err);
	free(err);
	json_t *r = valid_report(p.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	assert_same_run(full, r);
	/* the journaled cases were copied (their timings too), not run again */
	json_t *resumed = json_object_get(json_object_get(r, "run"), "resumed");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(resumed, "cases")), lines - 1);
	char *line = strchr(journal, '\n') + 1;
	for (int i = 0; i < lines - 1; i++) {
		char *nl = strchr(line, '\n');
		*nl = 0;
		json_t *entry = json_loads(line, 0, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(entry);
		CU_ASSERT(json_equal(json_object_get(entry, "case"),
		                     json_array_get(json_object_get(r, "cases"), (size_t)i)));
		json_decref(entry);
		line = nl + 1;
	}
	/* the run is the one that was started: its command; the resuming command beside it */
	const char *command = qct_str(json_object_get(r, "run"), "command");
	CU_ASSERT(strstr(command, p.html) && !strstr(command, "--resume"));
	CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(resumed, "command"), "--resume"));
	CU_ASSERT(!exists(p.journal));
	free(journal);
	json_decref(r);
	json_decref(full);
	qct_rmdir(tmp);
}

/* ---- a closed stdout ---- */

/* qconform run ... | head -1: the run goes on after its stdout closed, writes every report
 * and exits with its verdicts' status (not SIGPIPE's 141). */
static void test_closed_stdout(void)
{
	const char *tmp = qct_tmpdir();
	paths p;
	paths_in(&p, tmp);
	int fd[2];
	CU_ASSERT_EQUAL_FATAL(pipe(fd), 0);
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
	         "exec %s run " SPECS " --plugin %s --json '%s' --html '%s' "
	         "--junit '%s'",
	         qct_build_path("qconform"), qct_stub("slow"), p.json, p.html, p.junit);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("QCT_SLOW_MS", "2", 1);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	char c;
	int got = 0;
	while (read(fd[0], &c, 1) == 1 && c != '\n')
		got++;
	close(fd[0]); /* head -1 exits */
	CU_ASSERT(got > 0);
	int st = wait_status(pid);
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 1); /* as the verdicts say */
	json_t *r = valid_report(p.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "cases")), CASES);
	CU_ASSERT(exists(p.html));
	CU_ASSERT(xmllint_ok(p.junit));
	json_decref(r);
	qct_rmdir(tmp);
}

/* ---- journals of other runs ---- */

typedef struct mismatch_row {
	const char *what;
	const char *extra; /* arguments given with --resume besides the run's own, or NULL */
	int change;        /* 1: edit the spec copy, 2: replace the plugin copy */
	const char *says;
} mismatch_row;

static const mismatch_row mismatch_rows[] = {
        {"another seed", "--seed 7", 0, "another --seed"},
        {"other plugin options", "--plugin-option x=1", 0, "another plugin"},
        {"another filter", "--filter '*i=1*'", 0, "other --filter"},
        {"another --repeat", "--repeat 2", 0, "another --repeat"},
        {"an edited spec", NULL, 1, "other specs"},
        {"a rebuilt plugin", NULL, 2, "another plugin"},
};

static void test_mismatched_journal(void)
{
	const char *tmp = qct_tmpdir();
	paths p;
	paths_in(&p, tmp);
	char cmd[4096], *err = NULL;
	/* a complete run of copies of a spec and a plugin, its journal kept */
	snprintf(cmd, sizeof cmd,
	         "cp " SPECS "/b_dequantize.yaml '%s/spec.yaml' && cp '%s' '%s/plugin.so'", tmp,
	         qct_stub("ok"), tmp);
	qct_proc cp;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&cp, "%s", cmd), 0);
	CU_ASSERT_EQUAL(cp.status, 0);
	qct_proc_free(&cp);
	char base[2048];
	snprintf(base, sizeof base, "'%s/spec.yaml' --plugin '%s/plugin.so' --quiet --json '%s'",
	         tmp, tmp, p.json);
	snprintf(cmd, sizeof cmd, "run %s --keep-journal", base);
	CU_ASSERT_EQUAL_FATAL(run_now(cmd, NULL), 0);
	CU_ASSERT_FATAL(exists(p.journal));
	char *before = qct_read_file(p.journal);
	CU_ASSERT_PTR_NOT_NULL_FATAL(before);
	/* the same run resumes (every case from the journal) */
	snprintf(cmd, sizeof cmd, "run %s --resume '%s' --keep-journal", base, p.journal);
	CU_ASSERT_EQUAL(run_now(cmd, NULL), 0);

	for (size_t i = 0; i < sizeof mismatch_rows / sizeof mismatch_rows[0]; i++) {
		const mismatch_row *m = &mismatch_rows[i];
		qct_proc ch;
		int changed = 0;
		if (m->change == 1) /* the edited spec goes back afterwards: one difference a row */
			changed = qct_sh(&ch, "echo '# edited' >> '%s/spec.yaml'", tmp) == 0;
		else if (m->change == 2)
			changed = qct_sh(&ch, "cp '%s' '%s/plugin.so'", qct_stub("slow"), tmp) == 0;
		if (m->change) {
			CU_ASSERT(changed && ch.status == 0);
			qct_proc_free(&ch);
		}
		snprintf(cmd, sizeof cmd, "run --resume '%s' %s %s", p.journal, base,
		         m->extra ? m->extra : "");
		CU_ASSERT_EQUAL(run_now(cmd, &err), 2);
		/* one line, naming what differs; the journal untouched */
		int one_line = err && strchr(err, '\n') && !strchr(err, '\n')[1];
		if (!err || !strstr(err, m->says) || !one_line)
			fprintf(stderr, "\n  %s: stderr %s", m->what, err ? err : "(none)");
		CU_ASSERT(err && strstr(err, m->says));
		CU_ASSERT(one_line);
		free(err);
		err = NULL;
		char *after = qct_read_file(p.journal);
		CU_ASSERT(after && !strcmp(after, before));
		free(after);
		if (m->change == 1) {
			CU_ASSERT_EQUAL(
			        qct_sh(&ch, "cp " SPECS "/b_dequantize.yaml '%s/spec.yaml'", tmp),
			        0);
			qct_proc_free(&ch);
		}
	}
	/* not a journal; a damaged line before the last */
	snprintf(cmd, sizeof cmd, "run --resume '%s'", p.json);
	CU_ASSERT_EQUAL(run_now(cmd, &err), 2);
	CU_ASSERT(err && strstr(err, "not a qconform journal"));
	free(err);
	/* a damaged line before the last: it and the lines after it are run again, said once */
	qct_proc cp2;
	CU_ASSERT_EQUAL(qct_sh(&cp2, "cp '%s' '%s/plugin.so'", qct_stub("ok"), tmp), 0);
	qct_proc_free(&cp2);
	char damaged[700];
	snprintf(damaged, sizeof damaged, "%s/damaged.journal", tmp);
	FILE *d = fopen(damaged, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	char *second = strchr(before, '\n') + 1;
	fwrite(before, 1, (size_t)(second - before), d);
	fputs("{\"stats\":[],\"case\":{\"name\"\n", d);
	fputs(second, d);
	fclose(d);
	snprintf(cmd, sizeof cmd, "run %s --resume '%s'", base, damaged);
	CU_ASSERT_EQUAL(run_now(cmd, &err), 0);
	if (!err || !strstr(err, "damaged.journal:2: ") || !strstr(err, "run again"))
		fprintf(stderr, "\n  damaged: stderr %s", err ? err : "(none)");
	CU_ASSERT(err && strstr(err, "damaged.journal:2: ") && strstr(err, "run again"));
	free(err);
	free(before);
	qct_rmdir(tmp);
}

/* ---- a journal is untrusted ---- */

/* The journal's lines (malloc'd copies) and their count. */
static char **journal_lines(const char *text, int *n)
{
	char **l = calloc(4096, sizeof *l);
	*n = 0;
	for (const char *p = text; *p && *n < 4096;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		l[(*n)++] = strndup(p, len);
		p += len + (nl != NULL);
	}
	return l;
}

/* Writes lines to path, each line's checksum made again as qconform makes it (when the
 * journal has them), as one who edits a journal with care would. */
static void write_journal(const char *path, char **l, int n, int rechain)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t chain[32];
	qc_sha256 s;
	qc_sha256_init(&s);
	qc_sha256_update(&s, l[0], strlen(l[0]));
	qc_sha256_final(&s, chain);
	fprintf(f, "%s\n", l[0]);
	for (int i = 1; i < n; i++) {
		static const char pre[] = "{\"chain\":\"";
		size_t body = sizeof pre - 1 + 64 + 2;
		if (rechain && !strncmp(l[i], pre, sizeof pre - 1) && strlen(l[i]) > body) {
			qc_sha256_init(&s);
			qc_sha256_update(&s, chain, 32);
			qc_sha256_update(&s, l[i] + body, strlen(l[i] + body));
			qc_sha256_final(&s, chain);
			for (int k = 0; k < 32; k++)
				snprintf(l[i] + sizeof pre - 1 + 2 * k, 3, "%02x", chain[k]);
			l[i][sizeof pre - 1 + 64] = '"';
		}
		fprintf(f, "%s\n", l[i]);
	}
	fclose(f);
}

static void free_lines(char **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/*
 * A journal may only resume the command typed: the arguments it records are never run (a
 * journal naming --remote 'touch FILE' creates nothing); a line edited by hand (a verdict) is
 * run again, and so are those after it, said with the line's number; a line made to check
 * again whose case is not a report's case is run again too: the report is the
 * uninterrupted run's, valid.
 */
static void test_untrusted_journal(void)
{
	const char *tmp = qct_tmpdir();
	paths p, f;
	paths_in(&p, tmp);
	char full_dir[700], cmd[4096], args[1024], *err = NULL;
	snprintf(full_dir, sizeof full_dir, "%s/full", tmp);
	mkdir(full_dir, 0755);
	paths_in(&f, full_dir);
	snprintf(args, sizeof args, SPECS " --plugin %s --quiet --json '%s'", qct_stub("slow"),
	         p.json);
	snprintf(cmd, sizeof cmd, "run " SPECS " --plugin %s --quiet --json '%s'", qct_stub("slow"),
	         f.json);
	CU_ASSERT_EQUAL(run_now(cmd, NULL), 1);
	json_t *full = valid_report(f.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	snprintf(cmd, sizeof cmd, "run %s --keep-journal", args);
	CU_ASSERT_EQUAL(run_now(cmd, NULL), 1);
	char *text = qct_read_file(p.journal);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	int n;
	char **l = journal_lines(text, &n);
	CU_ASSERT_FATAL(n == 1 + CASES);

	/* 1. the journal's arguments are not run */
	char pwned[700], evil[700];
	snprintf(pwned, sizeof pwned, "%s/PWNED", tmp);
	snprintf(evil, sizeof evil, "%s/evil.journal", tmp);
	json_t *h = json_loads(l[0], 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	char remote[800];
	snprintf(remote, sizeof remote, "touch '%s'", pwned);
	json_object_set_new(h, "argv",
	                    json_pack("[s,s,s,s,s]", SPECS, "--remote", remote, "--json", p.json));
	char *hl = json_dumps(h, JSON_COMPACT);
	json_decref(h);
	char *l0 = l[0];
	l[0] = hl;
	write_journal(evil, l, n, 1);
	l[0] = l0;
	snprintf(cmd, sizeof cmd, "run --resume '%s' --json '%s/x.json'", evil, tmp);
	CU_ASSERT_EQUAL(run_now(cmd, &err), 2);
	CU_ASSERT(!exists(pwned));
	CU_ASSERT(err && strstr(err, "the journal is of another run"));
	free(err);
	free(hl);

	/* 2. an edited verdict: that line and the ones after it are run again */
	free_lines(l, n);
	l = journal_lines(text, &n);
	int edited = 0;
	for (int i = 1; i < n && !edited; i++) {
		char *v = strstr(l[i], "\"verdict\": \"FAIL\"");
		if (v && i > 2) {
			memcpy(v, "\"verdict\": \"PASS\"", 17);
			edited = i + 1; /* its line number */
		}
	}
	CU_ASSERT_FATAL(edited > 0);
	write_journal(p.journal, l, n, 0);
	snprintf(cmd, sizeof cmd, "run %s --resume '%s'", args, p.journal);
	CU_ASSERT_EQUAL(run_now(cmd, &err), 1);
	char where[64];
	snprintf(where, sizeof where, "report.json.journal:%d: ", edited);
	if (!err || !strstr(err, where) || !strstr(err, "run again"))
		fprintf(stderr, "\n  edited verdict: stderr %s", err ? err : "(none)");
	CU_ASSERT(err && strstr(err, where) && strstr(err, "run again"));
	free(err);
	json_t *r = valid_report(p.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	assert_same_run(full, r);
	json_t *resumed = json_object_get(json_object_get(r, "run"), "resumed");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(resumed, "cases")), edited - 2);
	json_decref(r);

	/* 3. a line made to check whose case is not a report's (no "seed") */
	free_lines(l, n);
	l = journal_lines(text, &n);
	char *seed = strstr(l[3], "\"seed\": ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(seed);
	memcpy(seed, "\"sEed\"", 6);
	write_journal(p.journal, l, n, 1);
	CU_ASSERT_EQUAL(run_now(cmd, &err), 1);
	CU_ASSERT(err && strstr(err, "report.json.journal:4: ") && strstr(err, "\"seed\"") &&
	          strstr(err, "run again"));
	free(err);
	r = valid_report(p.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	assert_same_run(full, r);
	json_decref(r);

	/* 4. a journal of its header alone (killed before a case was judged): every case runs */
	FILE *hf = fopen(p.journal, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(hf);
	fprintf(hf, "%s\n", l[0]);
	fclose(hf);
	CU_ASSERT_EQUAL(run_now(cmd, NULL), 1);
	r = valid_report(p.json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	assert_same_run(full, r);
	resumed = json_object_get(json_object_get(r, "run"), "resumed");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(resumed, "cases")), 0);
	json_decref(r);

	/* 5. a FIFO is refused at once (no writer: opening it would wait forever) */
	char fifo[700];
	snprintf(fifo, sizeof fifo, "%s/fifo.journal", tmp);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	snprintf(cmd, sizeof cmd, "run %s --resume '%s'", args, fifo);
	qct_proc pr;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&pr, "timeout 60 %s %s", qct_build_path("qconform"), cmd), 0);
	CU_ASSERT_EQUAL(pr.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(pr.err, "not a regular file (a FIFO)"));
	qct_proc_free(&pr);
	/* and one past the limit of a journal (a sparse file) is refused before it is read */
	char big[700];
	snprintf(big, sizeof big, "%s/big.journal", tmp);
	CU_ASSERT_EQUAL(truncate(big, 0) == 0 || errno == ENOENT, 1);
	int fd = open(big, O_WRONLY | O_CREAT, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(ftruncate(fd, (off_t)600 << 20), 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "run %s --resume '%s'", args, big);
	CU_ASSERT_EQUAL(run_now(cmd, &err), 2);
	CU_ASSERT(err && strstr(err, "larger than a journal may be"));
	free(err);
	free_lines(l, n);
	free(text);
	json_decref(full);
	qct_rmdir(tmp);
}

/*
 * --max-failures N: the run stops at its Nth failing case, exits 1, and its reports are valid,
 * hold exactly the cases up to it (a prefix of the whole run), say what stopped them,
 * and keep no journal; merge and certify refuse them as partial. Bad N: one line, exit 2.
 */
static void test_max_failures(void)
{
	const char *tmp = qct_tmpdir();
	const char *specs = "specs/litert/quantize_per_axis.yaml specs/litert/quantize.yaml "
	                    "specs/litert/dequantize.yaml";
	int st;
	json_t *full =
	        qct_run_report(tmp, &st, NULL, "%s --plugin %s", specs, qct_stub("ignore_axis"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_EQUAL(st, 1);
	size_t n_full = json_array_size(json_object_get(full, "cases"));
	paths p;
	paths_in(&p, tmp);
	qct_proc pr;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&pr,
	                             "%s run %s --plugin %s --max-failures 1 --json '%s' --html "
	                             "'%s' --junit '%s'",
	                             qct_build_path("qconform"), specs, qct_stub("ignore_axis"),
	                             p.json, p.html, p.junit),
	                      0);
	CU_ASSERT_EQUAL(pr.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(pr.out, "STOPPED by --max-failures 1"));
	qct_proc_free(&pr);
	qct_validate_report_later(p.json, "report of a run --max-failures stopped");
	json_t *r = json_load_file(p.json, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *intr = json_object_get(r, "interrupted"), *cases = json_object_get(r, "cases");
	CU_ASSERT(json_is_null(json_object_get(intr, "signal")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(intr, "max_failures")), 1);
	CU_ASSERT(json_is_null(json_object_get(intr, "journal")));
	size_t n = json_array_size(cases);
	CU_ASSERT_EQUAL((size_t)json_integer_value(json_object_get(intr, "cases_done")), n);
	CU_ASSERT_EQUAL((size_t)json_integer_value(json_object_get(intr, "cases_planned")), n_full);
	CU_ASSERT(n > 0 && n < n_full);
	CU_ASSERT(json_is_false(json_object_get(json_object_get(r, "summary"), "conforms")));
	size_t failing = 0, same = 0;
	for (size_t i = 0; i < n && i < n_full; i++) {
		json_t *c = json_array_get(cases, i),
		       *f = json_array_get(json_object_get(full, "cases"), i);
		failing += !strcmp(qct_verdict(c), "FAIL");
		same += !strcmp(json_string_value(json_object_get(c, "name")),
		                json_string_value(json_object_get(f, "name"))) &&
		        !strcmp(qct_verdict(c), qct_verdict(f));
	}
	/* exactly N failing cases: the run ends with its N-th */
	CU_ASSERT_EQUAL(failing, 1);
	CU_ASSERT_STRING_EQUAL(qct_verdict(json_array_get(cases, n - 1)), "FAIL");
	CU_ASSERT_EQUAL(same, n);
	CU_ASSERT(access(p.journal, F_OK) != 0);
	char *html = qct_read_file(p.html), *junit = qct_read_file(p.junit);
	CU_ASSERT(html && strstr(html, "stopped by --max-failures 1 after"));
	CU_ASSERT(junit && strstr(junit, "stopped by --max-failures 1 after"));
	free(html);
	free(junit);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&pr, "%s merge '%s' '%s' --json '%s/m.json'",
	                             qct_build_path("qconform"), p.json, p.json, tmp),
	                      0);
	CU_ASSERT_EQUAL(pr.status, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(pr.err, "(--max-failures 1 after"));
	qct_proc_free(&pr);
	json_decref(r);
	/* and N = 3: three, not the rest of the unit of the third */
	r = qct_run_report(tmp, &st, NULL, "%s --plugin %s --max-failures 3", specs,
	                   qct_stub("ignore_axis"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	failing = 0;
	cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++)
		failing += !strcmp(qct_verdict(json_array_get(cases, i)), "FAIL");
	CU_ASSERT_EQUAL(failing, 3);
	json_decref(r);
	json_decref(full);
	const char *bad[] = {"0", "-1", "x", "2x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CU_ASSERT_EQUAL_FATAL(qct_sh(&pr, "%s run %s --max-failures %s",
		                             qct_build_path("qconform"), specs, bad[i]),
		                      0);
		CU_ASSERT_EQUAL(pr.status, 2);
		CU_ASSERT_PTR_NOT_NULL(
		        strstr(pr.err, "--max-failures needs a number of cases >= 1"));
		qct_proc_free(&pr);
	}
	qct_rmdir(tmp);
}

void qct_register_interrupt(void)
{
	CU_pSuite s = qct_suite("interrupt");
	CU_add_test(s, "SIGINT, SIGTERM, SIGHUP: partial reports, 130/143/129, resumable",
	            test_signals);
	CU_add_test(s, "SIGKILL then --resume: the uninterrupted run's report",
	            test_kill_then_resume);
	CU_add_test(s, "| head -1: the run goes on and writes its reports", test_closed_stdout);
	CU_add_test(s, "a journal of another run is refused", test_mismatched_journal);
	CU_add_test(s, "a journal's arguments are not run, its edited lines are run again",
	            test_untrusted_journal);
	CU_add_test(s, "--max-failures: stops, exit 1, partial reports, no journal",
	            test_max_failures);
}
