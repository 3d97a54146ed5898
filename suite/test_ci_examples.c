/*
 * The CI examples of docs/ci/ (docs/ci.md), run on this machine: the `run:` steps of
 * github-actions.yml and the `script:` lines of gitlab-ci.yml, read from the files with libyaml
 * and run by sh -e in job order, each job in a directory of its own, as a fresh CI machine.
 * What cannot run here has a stand-in:
 *  - apt-get lines are left out (this machine has the packages; the files' DEB_PKGS must hold the
 *    Makefile's DEB_PKGS_RUN);
 *  - a checkout copies a directory standing for your repository (the committed baseline, your
 *    plugin's source); a submodule checkout adds QCONFORM_SRC, a link to this checkout;
 *  - artifacts (actions/upload-artifact and download-artifact, GitLab's artifacts: and needs:)
 *    are copies through a directory; the JUnit report action checks that its file exists;
 *  - PREFIX is a temporary directory, the same for every job of a pipeline (as /opt/qconform is
 *    on every CI machine) and emptied before each job; make runs with this build's BUILD.
 * Any other `uses:`, `${{ }}` expression, job or step key fails the test rather than being
 * skipped. The GitHub workflow runs as written; the GitLab pipeline runs with a regressed copy of
 * the example plugin as PLUGIN_SRC and REQUIRE_CERTIFIED=yes, so both gate outcomes and both
 * certify outcomes are run; each file's merge job then runs again on the other outcome's inputs.
 */
#include <fnmatch.h>
#include <glob.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "base/digest.h"
#include "qct.h"

#define GH_FILE     "docs/ci/github-actions.yml"
#define GL_FILE     "docs/ci/gitlab-ci.yml"
#define CERT_SCHEMA "reports/schema/certificate.schema.json"
#define MAX_RUNS    16

/* ---- text --------------------------------------------------------------- */

typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		abort();
	if (b->n + (size_t)len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (b->n + (size_t)len + 1 > cap)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s)
			abort();
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)len;
}

static void sb_addn(sbuf *b, const char *s, size_t n)
{
	sb_add(b, "%.*s", (int)n, s);
}

static int count_of(const char *text, const char *what)
{
	int n = 0;
	for (const char *p = text ? strstr(text, what) : NULL; p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* Whether word is one of the whitespace-separated words of list. */
static int has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = list; *p;) {
		p += strspn(p, " \t\n");
		size_t l = strcspn(p, " \t\n");
		if (l == wl && !strncmp(p, word, l))
			return 1;
		p += l;
	}
	return 0;
}

/* ---- YAML, through libyaml's document API --------------------------------- */

typedef struct ydoc {
	yaml_document_t d;
	int loaded;
} ydoc;

static int yload(ydoc *y, const char *path)
{
	memset(y, 0, sizeof *y);
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	int ok = yaml_parser_load(&p, &y->d);
	if (!ok)
		fprintf(stderr, "\n  %s:%zu: %s", path, p.problem_mark.line + 1,
		        p.problem ? p.problem : "?");
	yaml_parser_delete(&p);
	fclose(f);
	if (!ok)
		return -1;
	y->loaded = 1;
	return yaml_document_get_root_node(&y->d) ? 0 : -1;
}

static yaml_node_t *yroot(ydoc *y)
{
	return yaml_document_get_root_node(&y->d);
}

static size_t ysize(yaml_node_t *n)
{
	if (n && n->type == YAML_MAPPING_NODE)
		return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (n && n->type == YAML_SEQUENCE_NODE)
		return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	return 0;
}

static const char *ystr(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static const char *ykey(ydoc *y, yaml_node_t *map, size_t i)
{
	return ystr(yaml_document_get_node(&y->d, map->data.mapping.pairs.start[i].key));
}

static yaml_node_t *yval(ydoc *y, yaml_node_t *map, size_t i)
{
	return yaml_document_get_node(&y->d, map->data.mapping.pairs.start[i].value);
}

static yaml_node_t *yitem(ydoc *y, yaml_node_t *seq, size_t i)
{
	return yaml_document_get_node(&y->d, seq->data.sequence.items.start[i]);
}

static yaml_node_t *yget(ydoc *y, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (size_t i = 0; i < ysize(map); i++) {
		const char *k = ykey(y, map, i);
		if (k && !strcmp(k, key))
			return yval(y, map, i);
	}
	return NULL;
}

static const char *ygets(ydoc *y, yaml_node_t *map, const char *key)
{
	return ystr(yget(y, map, key));
}

/* Every key of map is one of the NULL-terminated list; else a line naming it, and 0. */
static int keys_known(ydoc *y, yaml_node_t *map, const char *what, const char *const *known)
{
	int ok = 1;
	for (size_t i = 0; map && map->type == YAML_MAPPING_NODE && i < ysize(map); i++) {
		const char *k = ykey(y, map, i);
		int found = 0;
		for (size_t j = 0; k && known[j] && !found; j++)
			found = !strcmp(k, known[j]);
		if (!found) {
			fprintf(stderr, "\n  %s: key '%s' has no stand-in in this test", what,
			        k ? k : "?");
			ok = 0;
		}
	}
	return ok;
}

/* ---- the pipelines -------------------------------------------------------- */

typedef struct ci {
	const char *file;
	int gitlab;
	ydoc y;
	yaml_node_t *jobs; /* GitHub: jobs:; GitLab: the top level */
	yaml_node_t *vars; /* env: / variables: */
	char dir[512];     /* everything of this pipeline */
	char repo[600];    /* what a checkout gives: your repository, without the submodule */
	char arts[600];    /* artifacts: one directory per artifact (GitHub) or job (GitLab) */
	char top[512];     /* this checkout: the submodule */
	char build[512];   /* its build directory */
	const char *set_name[4], *set_value[4]; /* variables set over the file's */
	int nset;
	int runs;
} ci;

typedef struct job_run {
	char job[64];
	int index;         /* the matrix value's or CI_NODE_INDEX's position (1..), 0 alone */
	int status;        /* 0, or the exit status of the step that failed (-1: a stand-in) */
	char failed[200];  /* that step */
	int last_run_step; /* the failed step was the job's last shell step */
	int apt_left_out;  /* apt-get lines left out */
	char ws[700];      /* the workspace */
	char prefix[700];  /* its PREFIX (the next job empties it) */
	char junit[800];   /* the JUnit report it published, "" if none */
	sbuf log;          /* every step's output */
} job_run;

static const char *var(ci *c, const char *name)
{
	for (int i = 0; i < c->nset; i++)
		if (!strcmp(c->set_name[i], name))
			return c->set_value[i];
	return ygets(&c->y, c->vars, name);
}

static void set_var(ci *c, const char *name, const char *value)
{
	for (int i = 0; i < c->nset; i++)
		if (!strcmp(c->set_name[i], name)) {
			c->set_value[i] = value;
			return;
		}
	if (c->nset < 4) {
		c->set_name[c->nset] = name;
		c->set_value[c->nset++] = value;
	}
}

static int sh_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh_ok(const char *fmt, ...)
{
	char cmd[8000];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	qct_proc p;
	int ok = qct_sh(&p, "%s", cmd) == 0 && p.status == 0;
	if (!ok)
		fprintf(stderr, "\n  failed: %s\n%s%s", cmd, p.out ? p.out : "",
		        p.err ? p.err : "");
	qct_proc_free(&p);
	return ok;
}

static int gl_reserved(const char *key);

static int ci_open(ci *c, const char *file, int gitlab, const char *tmp)
{
	memset(c, 0, sizeof *c);
	c->file = file;
	c->gitlab = gitlab;
	if (yload(&c->y, file) != 0)
		return -1;
	yaml_node_t *root = yroot(&c->y);
	c->jobs = gitlab ? root : yget(&c->y, root, "jobs");
	c->vars = yget(&c->y, root, gitlab ? "variables" : "env");
	snprintf(c->dir, sizeof c->dir, "%s/%s", tmp, gitlab ? "gitlab" : "github");
	snprintf(c->repo, sizeof c->repo, "%s/repo", c->dir);
	snprintf(c->arts, sizeof c->arts, "%s/artifacts", c->dir);
	/* BUILD for make as the build named it: relative to the top directory, where make -C
	 * QCONFORM_SRC lands, so make sees the targets (and their .d files) it built */
	snprintf(c->build, sizeof c->build, "%s", qct_build_path(""));
	c->build[strlen(c->build) - 1] = 0; /* no trailing '/' */
	if (!getcwd(c->top, sizeof c->top) || strchr(c->build, '\''))
		return -1;
	if (!c->jobs || c->jobs->type != YAML_MAPPING_NODE || !c->vars ||
	    c->vars->type != YAML_MAPPING_NODE)
		return -1;
	/* the top-level keys this test knows what to do with; any other fails it */
	static const char *const gh_top[] = {"name",     "on",   "permissions", "env",
	                                     "defaults", "jobs", NULL};
	static const char *const gl_default[] = {"image", NULL};
	if (!gitlab)
		return keys_known(&c->y, root, file, gh_top) &&
		                       sh_ok("mkdir -p '%s' '%s'", c->repo, c->arts)
		               ? 0
		               : -1;
	for (size_t i = 0; i < ysize(root); i++) {
		const char *k = ykey(&c->y, root, i);
		if (k && gl_reserved(k) && strcmp(k, "default") && strcmp(k, "stages") &&
		    strcmp(k, "variables")) {
			fprintf(stderr, "\n  %s: no stand-in for %s:", file, k);
			return -1;
		}
	}
	if (!keys_known(&c->y, yget(&c->y, root, "default"), file, gl_default))
		return -1;
	return sh_ok("mkdir -p '%s' '%s'", c->repo, c->arts) ? 0 : -1;
}

static void ci_close(ci *c)
{
	if (c->y.loaded)
		yaml_document_delete(&c->y.d);
}

static int gl_reserved(const char *key)
{
	static const char *const r[] = {"default",       "stages",       "variables", "include",
	                                "workflow",      "services",     "cache",     "image",
	                                "before_script", "after_script", NULL};
	for (size_t i = 0; r[i]; i++)
		if (!strcmp(key, r[i]))
			return 1;
	return 0;
}

static yaml_node_t *job_node(ci *c, const char *job)
{
	return yget(&c->y, c->jobs, job);
}

/* Jobs in the order the CI runs them: GitHub by needs: (file order among the ready ones), GitLab
 * by stages: (file order within a stage). Returns the count, or -1 after a line saying why. */
static int job_order(ci *c, const char **names, int max)
{
	int n = 0;
	yaml_node_t *root = yroot(&c->y);
	if (c->gitlab) {
		yaml_node_t *stages = yget(&c->y, root, "stages");
		for (size_t s = 0; s < ysize(stages); s++) {
			const char *stage = ystr(yitem(&c->y, stages, s));
			for (size_t i = 0; stage && i < ysize(root); i++) {
				const char *k = ykey(&c->y, root, i);
				if (!k || gl_reserved(k) || k[0] == '.')
					continue;
				const char *js = ygets(&c->y, yval(&c->y, root, i), "stage");
				if (js && !strcmp(js, stage) && n < max)
					names[n++] = k;
			}
		}
		for (size_t i = 0; i < ysize(root); i++) {
			const char *k = ykey(&c->y, root, i);
			int placed = 0;
			for (int j = 0; k && j < n; j++)
				placed |= !strcmp(names[j], k);
			if (k && !gl_reserved(k) && k[0] != '.' && !placed) {
				fprintf(stderr, "\n  %s: job %s is in no stage of stages:", c->file,
				        k);
				return -1;
			}
		}
		return n;
	}
	size_t total = ysize(c->jobs);
	while ((size_t)n < total) {
		int progress = 0;
		for (size_t i = 0; i < total; i++) {
			const char *k = ykey(&c->y, c->jobs, i);
			int done = 0, ready = 1;
			for (int j = 0; j < n; j++)
				done |= !strcmp(names[j], k);
			if (done)
				continue;
			yaml_node_t *needs = yget(&c->y, yval(&c->y, c->jobs, i), "needs");
			size_t nn =
			        needs && needs->type == YAML_SEQUENCE_NODE ? ysize(needs) : !!needs;
			for (size_t m = 0; m < nn; m++) {
				const char *need = needs->type == YAML_SEQUENCE_NODE
				                           ? ystr(yitem(&c->y, needs, m))
				                           : ystr(needs);
				int met = 0;
				for (int j = 0; need && j < n; j++)
					met |= !strcmp(names[j], need);
				ready &= met;
			}
			if (ready && n < max) {
				names[n++] = k;
				progress = 1;
				break;
			}
		}
		if (!progress) {
			fprintf(stderr, "\n  %s: the jobs' needs: form no order", c->file);
			return -1;
		}
	}
	return n;
}

/* The values a job runs with: GitHub's matrix (its one key and values), GitLab's parallel: N. */
static int instances(ci *c, yaml_node_t *job, const char **key, yaml_node_t **values)
{
	*key = NULL;
	*values = NULL;
	if (c->gitlab) {
		yaml_node_t *par = yget(&c->y, job, "parallel");
		if (par && (!ystr(par) || atoi(ystr(par)) < 1)) {
			fprintf(stderr, "\n  %s: parallel: N is all this test runs", c->file);
			return -1;
		}
		return par ? atoi(ystr(par)) : 0;
	}
	yaml_node_t *matrix = yget(&c->y, yget(&c->y, job, "strategy"), "matrix");
	if (!matrix)
		return 0;
	if (ysize(matrix) != 1 || yval(&c->y, matrix, 0)->type != YAML_SEQUENCE_NODE) {
		fprintf(stderr,
		        "\n  %s: a matrix of one key and a list of values is all this test runs",
		        c->file);
		return -1;
	}
	*key = ykey(&c->y, matrix, 0);
	*values = yval(&c->y, matrix, 0);
	return (int)ysize(*values);
}

/* GitHub's text with ${{ matrix.KEY }} replaced by value; NULL for any other expression. */
static char *gh_subst(const char *text, const char *key, const char *value, sbuf *log)
{
	sbuf out = {0};
	const char *p = text;
	for (const char *e; (e = strstr(p, "${{")) != NULL;) {
		const char *end = strstr(e, "}}");
		if (!end)
			break;
		char expr[128];
		const char *a = e + 3, *b = end;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		snprintf(expr, sizeof expr, "%.*s", (int)(b - a), a);
		if (!key || strncmp(expr, "matrix.", 7) != 0 || strcmp(expr + 7, key) != 0) {
			sb_add(log, "no stand-in for the expression ${{ %s }}\n", expr);
			free(out.s);
			return NULL;
		}
		sb_addn(&out, p, (size_t)(e - p));
		sb_add(&out, "%s", value);
		p = end + 2;
	}
	sb_add(&out, "%s", p);
	return out.s;
}

/* The shell text with each apt-get line left out; -1 when one cannot be (a continued line or
 * apt-get within a line). Each apt-get install line must install $DEB_PKGS. */
static int leave_out_apt(const char *text, sbuf *out, int *left_out, sbuf *log)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		const char *s = p + strspn(p, " \t");
		int apt = !strncmp(s, "apt-get ", 8);
		if (apt) {
			if (len && p[len - 1] == '\\') {
				sb_add(log, "an apt-get line continued on the next: %.*s\n",
				       (int)len, p);
				return -1;
			}
			char line[1024];
			snprintf(line, sizeof line, "%.*s", (int)len, p);
			if (strstr(line, " install ") && !strstr(line, "$DEB_PKGS")) {
				sb_add(log, "an apt-get install without $DEB_PKGS: %s\n", line);
				return -1;
			}
			sb_add(out, ": apt-get left out\n");
			(*left_out)++;
		} else {
			char line[1024];
			snprintf(line, sizeof line, "%.*s", (int)len, p);
			if (strstr(line, "apt-get")) {
				sb_add(log,
				       "apt-get inside a line, which this test cannot leave out: "
				       "%s\n",
				       line);
				return -1;
			}
			sb_addn(out, p, len);
			sb_add(out, "\n");
		}
		p += len + (p[len] == '\n');
	}
	return 0;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* A value for sh between single quotes; 0 when it holds one, or a GitLab variable reference. */
static int quotable(ci *c, const char *v)
{
	return !strchr(v, '\'') && !strstr(v, "${{") && !(c->gitlab && strchr(v, '$'));
}

/* The environment file of a job: the file's variables (with the test's settings over them), the
 * job's, the CI's own, the test's PREFIX and this build for make. */
static int write_env(ci *c, job_run *r, yaml_node_t *jobvars, int index, int total,
                     const char *path)
{
	sbuf e = {0};
	int ok = 1;
	sb_add(&e, "unset MAKEFLAGS MFLAGS MAKELEVEL QCONFORM_WORKER\nexport CI=true BUILD='%s'\n",
	       c->build);
	yaml_node_t *maps[2] = {c->vars, jobvars};
	for (int m = 0; m < 2; m++)
		for (size_t i = 0; maps[m] && i < ysize(maps[m]); i++) {
			const char *k = ykey(&c->y, maps[m], i);
			const char *v = m == 0 ? var(c, k) : ystr(yval(&c->y, maps[m], i));
			if (!k || !v || !quotable(c, v)) {
				sb_add(&r->log, "variable %s: no stand-in for its value\n",
				       k ? k : "?");
				ok = 0;
				continue;
			}
			sb_add(&e, "export %s='%s'\n", k, v);
		}
	if (!var(c, "PREFIX")) {
		sb_add(&r->log, "the file sets no PREFIX\n");
		ok = 0;
	}
	sb_add(&e, "export PREFIX='%s'\n", r->prefix);
	if (c->gitlab) {
		sb_add(&e, "export CI_PROJECT_DIR='%s'\n", r->ws);
		if (total)
			sb_add(&e, "export CI_NODE_INDEX=%d CI_NODE_TOTAL=%d\n", index, total);
	} else {
		sb_add(&e, "export GITHUB_WORKSPACE='%s'\n", r->ws);
	}
	ok &= write_file(path, e.s) == 0;
	free(e.s);
	return ok;
}

/* Runs a shell text as the CI does (sh -e, in the workspace); returns its exit status. */
static int run_shell(ci *c, job_run *r, const char *text, const char *env, const char *name)
{
	sbuf script = {0};
	if (leave_out_apt(text, &script, &r->apt_left_out, &r->log) != 0) {
		free(script.s);
		return -1;
	}
	char path[900];
	snprintf(path, sizeof path, "%s/../step%d.sh", r->ws, c->runs++);
	int wrote = write_file(path, script.s);
	free(script.s);
	if (wrote != 0)
		return -1;
	qct_proc p;
	if (qct_sh(&p, "cd '%s' && . '%s' && exec sh -e '%s'", r->ws, env, path) != 0) {
		qct_proc_free(&p);
		return -1;
	}
	sb_add(&r->log, "--- %s (exit %d)\n%s%s", name, p.status, p.out, p.err);
	int st = p.status;
	qct_proc_free(&p);
	return st;
}

/* A checkout: your repository; with submodules, qconform at QCONFORM_SRC (this checkout). */
static int checkout(ci *c, job_run *r, int submodules)
{
	const char *sub = var(c, "QCONFORM_SRC");
	if (!sub || !*sub || sub[0] == '/' || strchr(sub, '\'')) {
		sb_add(&r->log, "QCONFORM_SRC is not a path in the repository\n");
		return -1;
	}
	if (!sh_ok("cp -RP '%s/.' '%s/' && mkdir -p \"$(dirname '%s/%s')\"", c->repo, r->ws, r->ws,
	           sub))
		return -1;
	if (submodules)
		return sh_ok("ln -s '%s' '%s/%s'", c->top, r->ws, sub) ? 0 : -1;
	return sh_ok("mkdir -p '%s/%s'", r->ws, sub) ? 0 : -1;
}

/* ---- GitHub's actions ----------------------------------------------------- */

static int path_ok(const char *p)
{
	return *p && p[0] != '/' && !strstr(p, "..") && !strpbrk(p, "'*?[!");
}

/* actions/upload-artifact: the paths below their common directory, as the action stores them. */
static int gh_upload(ci *c, job_run *r, const char *name, const char *paths)
{
	char root[512] = "", list[32][256];
	int n = 0;
	for (const char *p = paths; *p && n < 32;) {
		size_t len = strcspn(p, "\n");
		snprintf(list[n], sizeof list[n], "%.*s", (int)len, p);
		char *t = list[n];
		while (*t == ' ')
			memmove(t, t + 1, strlen(t));
		size_t tl = strlen(t);
		while (tl && (t[tl - 1] == ' ' || t[tl - 1] == '/'))
			t[--tl] = 0;
		p += len + (p[len] == '\n');
		if (!tl)
			continue;
		if (!path_ok(t)) {
			sb_add(&r->log, "upload-artifact: no stand-in for the path '%s'\n", t);
			return -1;
		}
		char full[1200], dir[256];
		snprintf(full, sizeof full, "%s/%s", r->ws, t);
		struct stat st;
		if (stat(full, &st) != 0) {
			sb_add(&r->log, "upload-artifact %s: no file %s\n", name, t);
			return -1;
		}
		snprintf(dir, sizeof dir, "%s", t);
		if (!S_ISDIR(st.st_mode)) {
			char *slash = strrchr(dir, '/');
			if (slash)
				*slash = 0;
			else
				snprintf(dir, sizeof dir, ".");
		}
		if (n == 0) {
			snprintf(root, sizeof root, "%s", dir);
		} else { /* the common leading directories */
			size_t i = 0, keep = 0;
			while (root[i] && root[i] == dir[i]) {
				if (root[i] == '/')
					keep = i;
				i++;
			}
			if (!root[i] && (dir[i] == '/' || !dir[i]))
				keep = i;
			root[keep] = 0;
			if (!keep)
				snprintf(root, sizeof root, ".");
		}
		n++;
	}
	if (!n || !path_ok(name)) {
		sb_add(&r->log, "upload-artifact: no path or an odd name '%s'\n", name);
		return -1;
	}
	if (!sh_ok("rm -rf '%s/%s' && mkdir -p '%s/%s'", c->arts, name, c->arts, name))
		return -1;
	for (int i = 0; i < n; i++) {
		const char *rel = strcmp(root, ".") ? list[i] + strlen(root) : list[i];
		rel += *rel == '/';
		if (!sh_ok("d='%s/%s/%s' && mkdir -p \"$(dirname \"$d\")\" && if [ -d '%s/%s' ]; "
		           "then "
		           "mkdir -p \"$d\" && cp -RP '%s/%s/.' \"$d/\"; else cp -P '%s/%s' "
		           "\"$d\"; fi",
		           c->arts, name, rel, r->ws, list[i], r->ws, list[i], r->ws, list[i]))
			return -1;
	}
	sb_add(&r->log, "--- upload-artifact %s\n", name);
	return 0;
}

/* actions/download-artifact: name: into path; pattern: each match into path/NAME, or all into
 * path with merge-multiple: true. */
static int gh_download(ci *c, job_run *r, const char *name, const char *pattern, const char *path,
                       int merge)
{
	if (!path)
		path = ".";
	if (!path_ok(path) && strcmp(path, ".")) {
		sb_add(&r->log, "download-artifact: no stand-in for the path '%s'\n", path);
		return -1;
	}
	if (name) {
		char d[1200];
		snprintf(d, sizeof d, "%s/%s", c->arts, name);
		if (!path_ok(name) || access(d, F_OK) != 0) {
			sb_add(&r->log, "download-artifact: no artifact %s\n", name);
			return -1;
		}
		sb_add(&r->log, "--- download-artifact %s\n", name);
		return sh_ok("mkdir -p '%s/%s' && cp -RP '%s/.' '%s/%s/'", r->ws, path, d, r->ws,
		             path)
		               ? 0
		               : -1;
	}
	char g[1200];
	snprintf(g, sizeof g, "%s/*", c->arts);
	glob_t gl = {0};
	int found = 0, ok = 1;
	if (glob(g, 0, NULL, &gl) == 0)
		for (size_t i = 0; ok && i < gl.gl_pathc; i++) {
			const char *an = strrchr(gl.gl_pathv[i], '/') + 1;
			if (pattern && fnmatch(pattern, an, 0) != 0)
				continue;
			found++;
			ok = sh_ok("mkdir -p '%s/%s/%s' && cp -RP '%s/.' '%s/%s/%s/'", r->ws, path,
			           merge ? "" : an, gl.gl_pathv[i], r->ws, path, merge ? "" : an);
		}
	globfree(&gl);
	sb_add(&r->log, "--- download-artifact %s: %d artifacts\n", pattern ? pattern : "*", found);
	return ok && found ? 0 : -1;
}

static int gh_uses(ci *c, job_run *r, yaml_node_t *step, const char *key, const char *value)
{
	ydoc *y = &c->y;
	const char *uses = ygets(y, step, "uses");
	yaml_node_t *with = yget(y, step, "with");
	char *name = NULL, *path = NULL;
	int st = -1;
	if (!strncmp(uses, "actions/checkout@", 17)) {
		static const char *const k[] = {"submodules", NULL};
		const char *sm = ygets(y, with, "submodules");
		if (keys_known(y, with, uses, k))
			st = checkout(c, r,
			              sm && (!strcmp(sm, "true") || !strcmp(sm, "recursive")));
		sb_add(&r->log, "--- checkout%s\n", sm ? ", with the submodule" : "");
	} else if (!strncmp(uses, "actions/upload-artifact@", 24)) {
		static const char *const k[] = {"name", "path", NULL};
		name = gh_subst(ygets(y, with, "name") ? ygets(y, with, "name") : "artifact", key,
		                value, &r->log);
		path = gh_subst(ygets(y, with, "path") ? ygets(y, with, "path") : "", key, value,
		                &r->log);
		if (keys_known(y, with, uses, k) && name && path)
			st = gh_upload(c, r, name, path);
	} else if (!strncmp(uses, "actions/download-artifact@", 26)) {
		static const char *const k[] = {"name", "pattern", "path", "merge-multiple", NULL};
		const char *mm = ygets(y, with, "merge-multiple");
		if (keys_known(y, with, uses, k))
			st = gh_download(c, r, ygets(y, with, "name"), ygets(y, with, "pattern"),
			                 ygets(y, with, "path"), mm && !strcmp(mm, "true"));
	} else if (!strncmp(uses, "mikepenz/action-junit-report@", 29)) {
		static const char *const k[] = {"report_paths", NULL};
		const char *rp = ygets(y, with, "report_paths");
		char full[1200];
		snprintf(full, sizeof full, "%s/%s", r->ws, rp ? rp : "");
		if (keys_known(y, with, uses, k) && rp && path_ok(rp) && access(full, R_OK) == 0) {
			snprintf(r->junit, sizeof r->junit, "%s", full);
			st = 0;
		}
		sb_add(&r->log, "--- JUnit report %s%s\n", rp ? rp : "(none)",
		       st ? ": missing" : "");
	} else {
		sb_add(&r->log, "no stand-in for uses: %s\n", uses);
	}
	free(name);
	free(path);
	return st;
}

static void gh_job(ci *c, job_run *r, yaml_node_t *job, int index, const char *key,
                   const char *value)
{
	ydoc *y = &c->y;
	static const char *const job_keys[] = {"runs-on",  "container", "needs",
	                                       "strategy", "steps",     NULL};
	static const char *const step_keys[] = {"name", "uses", "with", "run", "if", NULL};
	const char *shell = ygets(y, yget(y, yget(y, yroot(y), "defaults"), "run"), "shell");
	if (!keys_known(y, job, r->job, job_keys) || !shell || strcmp(shell, "sh")) {
		sb_add(&r->log, "a job key without stand-in, or defaults.run.shell is not sh\n");
		r->status = -1;
		return;
	}
	char env[900];
	snprintf(env, sizeof env, "%s/../env.sh", r->ws);
	if (!write_env(c, r, NULL, index, 0, env)) {
		r->status = -1;
		return;
	}
	yaml_node_t *steps = yget(y, job, "steps");
	int last_run = -1;
	for (size_t i = 0; i < ysize(steps); i++)
		if (yget(y, yitem(y, steps, i), "run"))
			last_run = (int)i;
	for (size_t i = 0; i < ysize(steps); i++) {
		yaml_node_t *step = yitem(y, steps, i);
		const char *cond = ygets(y, step, "if"), *run = ygets(y, step, "run");
		const char *uses = ygets(y, step, "uses"), *name = ygets(y, step, "name");
		char label[200];
		snprintf(label, sizeof label, "%s", name ? name : uses ? uses : run ? run : "?");
		int always = cond && !strcmp(cond, "always()");
		if (!keys_known(y, step, label, step_keys) || (cond && (!always || run)) ||
		    !!run == !!uses) {
			sb_add(&r->log, "step '%s': no stand-in for it\n", label);
			r->status = -1;
			snprintf(r->failed, sizeof r->failed, "%s", label);
			return;
		}
		if (r->status != 0 && !always)
			continue; /* a step after a failure: skipped, as the CI does */
		int st;
		if (run) {
			char *text = gh_subst(run, key, value, &r->log);
			st = text ? run_shell(c, r, text, env, label) : -1;
			free(text);
		} else {
			st = gh_uses(c, r, step, key, value);
		}
		if (st != 0 && r->status == 0) {
			r->status = st;
			r->last_run_step = (int)i == last_run;
			snprintf(r->failed, sizeof r->failed, "%s", label);
		}
	}
}

/* ---- GitLab's jobs -------------------------------------------------------- */

static int gl_artifacts_in(ci *c, job_run *r, yaml_node_t *job)
{
	ydoc *y = &c->y;
	yaml_node_t *needs = yget(y, job, "needs");
	if (!needs || needs->type != YAML_SEQUENCE_NODE) {
		sb_add(&r->log, "needs: as a list of job names is all this test runs\n");
		return -1;
	}
	for (size_t i = 0; i < ysize(needs); i++) {
		const char *need = ystr(yitem(y, needs, i));
		char g[1200];
		snprintf(g, sizeof g, "%s/%s.*", c->arts, need ? need : "?");
		glob_t gl = {0};
		int found = 0, ok = 1;
		if (need && glob(g, 0, NULL, &gl) == 0)
			for (size_t k = 0; ok && k < gl.gl_pathc; k++, found++)
				ok = sh_ok("cp -RP '%s/.' '%s/'", gl.gl_pathv[k], r->ws);
		globfree(&gl);
		sb_add(&r->log, "--- artifacts of %s: %d jobs\n", need ? need : "?", found);
		if (!ok || !found)
			return -1;
	}
	return 0;
}

static int gl_artifacts_out(ci *c, job_run *r, yaml_node_t *job, int passed)
{
	ydoc *y = &c->y;
	yaml_node_t *a = yget(y, job, "artifacts");
	static const char *const keys[] = {"paths", "when", "reports", NULL};
	if (!a)
		return 0;
	const char *when = ygets(y, a, "when");
	if (!keys_known(y, a, "artifacts", keys) ||
	    (when && strcmp(when, "always") && strcmp(when, "on_success")))
		return -1;
	if (!passed && !(when && !strcmp(when, "always")))
		return 0;
	char dst[800];
	snprintf(dst, sizeof dst, "%s/%s.%d", c->arts, r->job, r->index);
	if (!sh_ok("rm -rf '%s' && mkdir -p '%s'", dst, dst))
		return -1;
	yaml_node_t *paths = yget(y, a, "paths");
	for (size_t i = 0; i < ysize(paths); i++) {
		char p[256];
		snprintf(p, sizeof p, "%s",
		         ystr(yitem(y, paths, i)) ? ystr(yitem(y, paths, i)) : "");
		size_t l = strlen(p);
		while (l && p[l - 1] == '/')
			p[--l] = 0;
		if (!path_ok(p) ||
		    !sh_ok("cd '%s' && cp -RP --parents '%s' '%s/'", r->ws, p, dst)) {
			sb_add(&r->log, "artifacts: no %s\n", p);
			return -1;
		}
	}
	const char *junit = ygets(y, yget(y, a, "reports"), "junit");
	if (junit) {
		char full[1200];
		snprintf(full, sizeof full, "%s/%s", r->ws, junit);
		if (!path_ok(junit) || access(full, R_OK) != 0) {
			sb_add(&r->log, "artifacts:reports:junit: no %s\n", junit);
			return -1;
		}
		snprintf(r->junit, sizeof r->junit, "%s", full);
	}
	sb_add(&r->log, "--- artifacts kept\n");
	return 0;
}

static void gl_job(ci *c, job_run *r, yaml_node_t *job, int index, int total)
{
	ydoc *y = &c->y;
	static const char *const keys[] = {"stage",  "needs",     "parallel", "variables",
	                                   "script", "artifacts", NULL};
	if (!keys_known(y, job, r->job, keys)) {
		r->status = -1;
		return;
	}
	yaml_node_t *jv = yget(y, job, "variables");
	const char *git = ygets(y, jv, "GIT_STRATEGY") ? ygets(y, jv, "GIT_STRATEGY")
	                                               : var(c, "GIT_STRATEGY");
	const char *sub = ygets(y, jv, "GIT_SUBMODULE_STRATEGY")
	                          ? ygets(y, jv, "GIT_SUBMODULE_STRATEGY")
	                          : var(c, "GIT_SUBMODULE_STRATEGY");
	char env[900];
	snprintf(env, sizeof env, "%s/../env.sh", r->ws);
	if (!write_env(c, r, jv, index, total, env)) {
		r->status = -1;
		return;
	}
	if ((!git || strcmp(git, "none")) &&
	    checkout(c, r, sub && (!strcmp(sub, "normal") || !strcmp(sub, "recursive"))) != 0) {
		r->status = -1;
		return;
	}
	/* the artifacts of needs: (a job of a later stage without needs: would take those of every
	 * earlier stage, which this test does not do) */
	const char *first = ystr(yitem(y, yget(y, yroot(y), "stages"), 0));
	const char *stage = ygets(y, job, "stage");
	if (yget(y, job, "needs") ? gl_artifacts_in(c, r, job) != 0
	                          : !first || !stage || strcmp(first, stage) != 0) {
		sb_add(&r->log, "the artifacts this job needs: no stand-in\n");
		r->status = -1;
		return;
	}
	/* the script lines, one shell, as the runner runs them */
	yaml_node_t *script = yget(y, job, "script");
	sbuf text = {0};
	for (size_t i = 0; i < ysize(script); i++) {
		const char *line = ystr(yitem(y, script, i));
		if (!line) {
			r->status = -1;
			free(text.s);
			return;
		}
		sb_add(&text, "%s\n", line);
	}
	r->status = text.s ? run_shell(c, r, text.s, env, "script") : -1;
	free(text.s);
	if (r->status != 0) {
		snprintf(r->failed, sizeof r->failed, "script");
		r->last_run_step = 1;
	}
	if (gl_artifacts_out(c, r, job, r->status == 0) != 0 && r->status == 0) {
		r->status = -1;
		snprintf(r->failed, sizeof r->failed, "artifacts");
	}
}

/* Runs every instance of a job (one, or one per matrix value / parallel index) into runs[]. */
static int run_job(ci *c, const char *name, job_run *runs, int max)
{
	yaml_node_t *job = job_node(c, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(job);
	const char *key;
	yaml_node_t *values;
	int n = instances(c, job, &key, &values);
	CU_ASSERT_FATAL(n >= 0 && n <= max);
	for (int k = 0; k < (n ? n : 1); k++) {
		job_run *r = &runs[k];
		memset(r, 0, sizeof *r);
		snprintf(r->job, sizeof r->job, "%s", name);
		r->index = n ? k + 1 : 0;
		char dir[700];
		snprintf(dir, sizeof dir, "%s/%s.%d.%d", c->dir, name, r->index, c->runs++);
		snprintf(r->ws, sizeof r->ws, "%s/ws", dir);
		/* PREFIX is one path for every job, as /opt/qconform is on every CI machine (merge
		 * compares the shards' spec paths), and empty when a job starts, as on a fresh one
		 */
		snprintf(r->prefix, sizeof r->prefix, "%s/prefix", c->dir);
		CU_ASSERT_FATAL(sh_ok("mkdir -p '%s' && rm -rf '%s'", r->ws, r->prefix));
		if (c->gitlab) {
			gl_job(c, r, job, r->index, n);
		} else {
			const char *v = n ? ystr(yitem(&c->y, values, (size_t)k)) : NULL;
			gh_job(c, r, job, r->index, key, v ? v : "");
		}
	}
	return n ? n : 1;
}

static void show(job_run *r)
{
	const char *l = r->log.s ? r->log.s : "";
	size_t len = strlen(l);
	fprintf(stderr, "\n  %s job %s[%d]: exit %d at '%s'; its log (end):\n%s\n",
	        r->status ? "failed" : "passed", r->job, r->index, r->status, r->failed,
	        len > 6000 ? l + len - 6000 : l);
}

/* Each instance exits as expected (want 0; or want at the job's last shell step). */
static void expect(job_run *runs, int n, int want)
{
	for (int k = 0; k < n; k++) {
		int ok = runs[k].status == want && (want == 0 || runs[k].last_run_step);
		if (!ok)
			show(&runs[k]);
		CU_ASSERT_TRUE(ok);
	}
}

static void free_runs(job_run *runs, int n)
{
	for (int k = 0; k < n; k++) {
		free(runs[k].log.s);
		runs[k].log.s = NULL;
	}
}

/* ---- what the runs made --------------------------------------------------- */

static json_t *load(const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);
	if (!j)
		fprintf(stderr, "\n  %s: %s", path, e.text);
	return j;
}

static json_int_t summary_int(json_t *r, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(r, "summary"), key));
}

/* The merged report (out/report.json of the merge job) holds the unsharded run's cases, merged
 * from 4 shards; the JUnit file published has one testcase per case. */
static void check_merged(job_run *m, json_int_t cases, int conforms)
{
	char path[900];
	snprintf(path, sizeof path, "%s/out/report.json", m->ws);
	json_t *r = load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(summary_int(r, "cases"), cases);
	CU_ASSERT_EQUAL(
	        json_integer_value(json_object_get(json_object_get(r, "run"), "merged_shards")), 4);
	CU_ASSERT_EQUAL(json_is_true(json_object_get(json_object_get(r, "summary"), "conforms")),
	                conforms);
	json_decref(r);
	qct_validate_report_later(path, "the merge job's report");
	CU_ASSERT_STRING_NOT_EQUAL_FATAL(m->junit, "");
	char *x = qct_read_file(m->junit);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(count_of(x, "<testcase "), (int)cases);
	CU_ASSERT_EQUAL(count_of(x, "<failure ") > 0, !conforms);
	free(x);
}

/* The certificate the certify job kept: certified or not, a reason naming `reason`, the plugin
 * the build made and the report beside it, by sha256. */
static void check_certificate(const char *dir, const char *plugin, const char *reason)
{
	char path[900], rpath[900], sha[65] = "";
	snprintf(path, sizeof path, "%s/certificate.json", dir);
	snprintf(rpath, sizeof rpath, "%s/report.json", dir);
	json_t *c = load(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	qct_validate_json_later(CERT_SCHEMA, path, "the certify job's certificate");
	CU_ASSERT_FALSE(json_is_true(json_object_get(c, "certified")));
	size_t i, found = 0;
	json_t *s;
	json_array_foreach(json_object_get(c, "reasons"), i, s) found +=
	        strstr(json_string_value(s), reason) != NULL;
	CU_ASSERT_TRUE(found > 0);
	CU_ASSERT_EQUAL(qc_sha256_file(plugin, sha), 0);
	CU_ASSERT_STRING_EQUAL(qct_str(json_object_get(c, "plugin"), "sha256"), sha);
	CU_ASSERT_EQUAL(qc_sha256_file(rpath, sha), 0);
	CU_ASSERT_STRING_EQUAL(qct_str(json_object_get(c, "report"), "sha256"), sha);
	json_decref(c);
}

/* The Makefile's DEB_PKGS_RUN, each in the file's DEB_PKGS. */
static void check_packages(ci *c)
{
	char *mk = qct_read_file("Makefile");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mk);
	char *p = strstr(mk, "\nDEB_PKGS_RUN :=");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p += strlen("\nDEB_PKGS_RUN :=");
	const char *pkgs = var(c, "DEB_PKGS");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pkgs);
	int n = 0;
	for (;;) {
		p += strspn(p, " \t\\");
		if (*p == '\n') { /* the end of the list, unless the line was continued */
			char *q = p - 1;
			while (*q == ' ' || *q == '\t')
				q--;
			if (*q != '\\')
				break;
			p++;
			continue;
		}
		size_t l = strcspn(p, " \t\n\\");
		if (!l)
			break;
		char w[128];
		snprintf(w, sizeof w, "%.*s", (int)l, p);
		if (!has_word(pkgs, w))
			fprintf(stderr, "\n  %s: DEB_PKGS lacks %s (the Makefile's DEB_PKGS_RUN)",
			        c->file, w);
		CU_ASSERT_TRUE(has_word(pkgs, w));
		n++;
		p += l;
	}
	CU_ASSERT_TRUE(n >= 5);
	free(mk);
}

/* The regressed kernel: the example plugin with the first element of every output one step
 * off (round to nearest is kept elsewhere), as your repository's own source. */
static void write_regressed_plugin(ci *c, const char *rel)
{
	char *src = qct_read_file("plugins/example/example.c");
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	const char *line = "y[i] = (q - zp) * scale;";
	char *at = strstr(src, line);
	if (!at)
		fprintf(stderr, "\n  plugins/example/example.c no longer holds '%s'", line);
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	sbuf b = {0};
	sb_addn(&b, src, (size_t)(at - src));
	sb_add(&b, "y[i] = (q - zp) * scale + (i == 0 ? scale : 0.0f);");
	sb_add(&b, "%s", at + strlen(line));
	char path[900];
	snprintf(path, sizeof path, "%s/%s", c->repo, rel);
	CU_ASSERT_FATAL(sh_ok("mkdir -p \"$(dirname '%s')\"", path));
	CU_ASSERT_EQUAL_FATAL(write_file(path, b.s), 0);
	free(b.s);
	free(src);
}

/* The committed baseline: BASELINE in your repository. */
static void commit_baseline(ci *c, const char *report)
{
	const char *b = var(c, "BASELINE");
	CU_ASSERT_FATAL(b && path_ok(b));
	CU_ASSERT_FATAL(sh_ok("mkdir -p \"$(dirname '%s/%s')\" && cp '%s' '%s/%s'", c->repo, b,
	                      report, c->repo, b));
}

static int find_job(const char **order, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(order[i], name))
			return i;
	return -1;
}

static void test_ci_examples(void)
{
	if (qct_under_sanitizers()) {
		printf("\n  the plain pass runs the CI examples (builds and runs: not memory)\n");
		return;
	}
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	ci gh, gl;
	CU_ASSERT_EQUAL_FATAL(ci_open(&gh, GH_FILE, 0, tmp), 0);
	CU_ASSERT_EQUAL_FATAL(ci_open(&gl, GL_FILE, 1, tmp), 0);
	check_packages(&gh);
	check_packages(&gl);
	/* the same jobs in both, build first, merge after the shards */
	const char *gho[MAX_RUNS], *glo[MAX_RUNS];
	int ghn = job_order(&gh, gho, MAX_RUNS), gln = job_order(&gl, glo, MAX_RUNS);
	CU_ASSERT_EQUAL_FATAL(ghn, 4);
	CU_ASSERT_EQUAL_FATAL(gln, 4);
	CU_ASSERT_STRING_EQUAL_FATAL(gho[0], "build");
	CU_ASSERT_STRING_EQUAL_FATAL(glo[0], "build");
	CU_ASSERT_TRUE_FATAL(find_job(gho, 4, "merge") > find_job(gho, 4, "shard"));
	CU_ASSERT_TRUE_FATAL(find_job(glo, 4, "merge") > find_job(glo, 4, "shard"));
	CU_ASSERT_TRUE_FATAL(find_job(gho, 4, "certify") > 0 && find_job(glo, 4, "certify") > 0);
	const char *profile = var(&gh, "PROFILE");
	CU_ASSERT_PTR_NOT_NULL_FATAL(profile);
	CU_ASSERT_STRING_EQUAL_FATAL(var(&gl, "PROFILE"), profile);

	/* GitHub, as written: the example plugin conforms (it refuses what it does not do) and is
	 * not certified (it refuses required ops), which REQUIRE_CERTIFIED=no lets pass */
	job_run build[1], shards[4], merge[1], cert[1], gbuild[1];
	memset(build, 0, sizeof build);
	memset(shards, 0, sizeof shards);
	memset(merge, 0, sizeof merge);
	memset(cert, 0, sizeof cert);
	memset(gbuild, 0, sizeof gbuild);
	CU_ASSERT_EQUAL_FATAL(run_job(&gh, "build", build, 1), 1);
	expect(build, 1, 0);
	CU_ASSERT_FATAL(build[0].status == 0);
	CU_ASSERT_TRUE(build[0].apt_left_out >= 2);
	/* the baseline: an unsharded run of the build's plugin by the qconform it installed */
	char plugin[900], baseline[700];
	snprintf(plugin, sizeof plugin, "%s/libplugin.so", build[0].ws);
	snprintf(baseline, sizeof baseline, "%s/unsharded.json", tmp);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "env -u QCONFORM_WORKER '%s/bin/qconform' run --profile '%s' "
	                             "--plugin '%s' --quiet --json '%s'",
	                             build[0].prefix, profile, plugin, baseline),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	qct_proc_free(&p);
	json_t *u = load(baseline);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	json_int_t cases = summary_int(u, "cases");
	json_decref(u);
	CU_ASSERT_TRUE_FATAL(cases > 100);
	commit_baseline(&gh, baseline);
	for (int j = 1; j < ghn; j++) {
		if (!strcmp(gho[j], "shard")) {
			CU_ASSERT_EQUAL(run_job(&gh, "shard", shards, 4), 4);
			expect(shards, 4, 0);
		} else if (!strcmp(gho[j], "merge")) {
			run_job(&gh, "merge", merge, 1);
			expect(merge, 1, 0);
			check_merged(&merge[0], cases, 1);
			/* the gate saw the unsharded run's report in the merged one */
			CU_ASSERT_PTR_NOT_NULL(strstr(merge[0].log.s, "diff: 0 regressions"));
			CU_ASSERT_PTR_NOT_NULL(
			        strstr(merge[0].log.s, "0 improvements, 0 other changes"));
		} else {
			run_job(&gh, gho[j], cert, 1);
			expect(cert, 1, 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(cert[0].log.s, "NOT CERTIFIED"));
			char dir[900];
			snprintf(dir, sizeof dir, "%s/certificate", gh.arts);
			check_certificate(dir, plugin, "NOT_SUPPORTED");
		}
	}
	free_runs(shards, 4);
	free_runs(merge, 1);
	free_runs(cert, 1);

	/* GitLab, with your kernel regressed (PLUGIN_SRC, a copy of the example one step off) and a
	 * certificate required: the shards still pass their step (a failing case is the gate's to
	 * judge), the gate against the example's baseline fails, certify fails */
	write_regressed_plugin(&gl, "kernel/example.c");
	set_var(&gl, "PLUGIN_SRC", "kernel/example.c");
	set_var(&gl, "REQUIRE_CERTIFIED", "yes");
	commit_baseline(&gl, baseline);
	for (int j = 0; j < gln; j++) {
		if (!strcmp(glo[j], "build")) {
			run_job(&gl, "build", gbuild, 1);
			expect(gbuild, 1, 0);
			CU_ASSERT_FATAL(gbuild[0].status == 0);
			CU_ASSERT_TRUE(gbuild[0].apt_left_out >= 2);
		} else if (!strcmp(glo[j], "shard")) {
			CU_ASSERT_EQUAL(run_job(&gl, "shard", shards, 4), 4);
			expect(shards, 4, 0);
			for (int k = 0; k < 4; k++)
				CU_ASSERT_PTR_NOT_NULL(strstr(shards[k].log.s, "DOES NOT CONFORM"));
		} else if (!strcmp(glo[j], "merge")) {
			run_job(&gl, "merge", merge, 1);
			expect(merge, 1, 1);
			check_merged(&merge[0], cases, 0);
			CU_ASSERT_PTR_NOT_NULL(
			        strstr(merge[0].log.s, "regression  onnx/DequantizeLinear"));
		} else {
			run_job(&gl, glo[j], cert, 1);
			expect(cert, 1, 1);
			/* the certificate, kept although the job failed (when: always) */
			char dir[900], gplugin[900];
			snprintf(dir, sizeof dir, "%s/certify.0/certificate", gl.arts);
			snprintf(gplugin, sizeof gplugin, "%s/libplugin.so", gbuild[0].ws);
			check_certificate(dir, gplugin, "FAIL");
		}
	}
	free_runs(merge, 1);
	free_runs(cert, 1);
	/* a baseline that holds the same failures (this run's merged report): the gate passes */
	char merged[900];
	snprintf(merged, sizeof merged, "%s/merge.0/out/report.json", gl.arts);
	commit_baseline(&gl, merged);
	run_job(&gl, "merge", merge, 1);
	expect(merge, 1, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(merge[0].log.s, "diff: 0 regressions"));
	CU_ASSERT_PTR_NULL(strstr(merge[0].log.s, " 0 failing in both"));
	free_runs(merge, 1);

	/* GitHub's merge job on the regressed shards (as its artifacts shard-K): its gate fails */
	for (int k = 1; k <= 4; k++)
		CU_ASSERT(sh_ok("cp '%s/shard.%d/shards/shard-%d.json' '%s/shard-%d/shard-%d.json'",
		                gl.arts, k, k, gh.arts, k, k));
	run_job(&gh, "merge", merge, 1);
	expect(merge, 1, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(merge[0].failed, "baseline"));
	check_merged(&merge[0], cases, 0);
	free_runs(merge, 1);

	free_runs(shards, 4);
	free_runs(build, 1);
	free_runs(gbuild, 1);
	ci_close(&gh);
	ci_close(&gl);
	qct_rmdir(tmp);
}

void qct_register_ci_examples(void)
{
	CU_pSuite s = qct_suite("ci_examples");
	CU_add_test(s,
	            "docs/ci: the GitHub and GitLab pipelines' steps, run as written: build, 4 "
	            "shards, merge, JUnit, gate, certificate",
	            test_ci_examples);
}
