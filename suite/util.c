/* Helpers shared by the tests: running commands, temporary directories. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/digest.h"
#include "qct.h"

static char *slurp(FILE *f)
{
	size_t cap = 4096, n = 0, r;
	char *buf = malloc(cap);
	rewind(f);
	while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (buf)
		buf[n] = 0;
	return buf;
}

char *qct_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *b = slurp(f);
	fclose(f);
	return b;
}

int qct_sh(qct_proc *p, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	memset(p, 0, sizeof *p);
	FILE *out = tmpfile(), *err = tmpfile();
	if (!out || !err)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		;
	/* QCT_TIMES=1: each command's wall time on stderr, to find what a suite spends */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("QCT_TIMES"))
		fprintf(stderr, "[%.2fs] %.300s\n",
		        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
		        cmd);
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	p->out = slurp(out);
	p->err = slurp(err);
	fclose(out);
	fclose(err);
	return p->out && p->err ? 0 : -1;
}

int qct_sh_ok(const char *what, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	qct_proc p;
	int ok = qct_sh(&p, "%s", cmd) == 0 && p.status <= 1;
	if (!ok)
		fprintf(stderr, "\n  %s: %s: exit %d: %.300s%.600s", what, cmd, p.status,
		        p.out ? p.out : "", p.err ? p.err : "");
	qct_proc_free(&p);
	return ok;
}

void qct_proc_free(qct_proc *p)
{
	free(p->out);
	free(p->err);
	memset(p, 0, sizeof *p);
}

double qct_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *qct_tmpdir(void)
{
	static char buf[4][512];
	static int next;
	char *d = buf[next++ % 4];
	const char *t = getenv("TMPDIR");
	snprintf(d, sizeof buf[0], "%s/qct.XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(d);
}

void qct_rmdir(const char *dir)
{
	if (!dir || strncmp(dir, "/", 1) != 0 || !strstr(dir, "/qct."))
		return;
	qct_proc p;
	if (qct_sh(&p, "rm -rf '%s'", dir) == 0)
		qct_proc_free(&p);
}

/*
 * Schema checks with an independent validator, Debian's python3-jsonschema (4.10 in Debian 12:
 * validator_for picks the schema's draft, 2020-12). One python3 process checks a whole list of
 * files (its start and the import of jsonschema cost more than most checks): the manifest has
 * one "SCHEMA<tab>FILE" line per file, the answer is one JSON line [index, status, message] per
 * file, status 0 valid, 1 invalid (up to three "path: message" lines in message).
 * A whole-suite report takes jsonschema 4 s; python3-fastjsonschema (draft 7, compiled to
 * Python) takes 0.5 s. It screens a file when the schema only uses keywords whose meaning is the
 * same in draft 7 and 2020-12 (`plain` below; no `$ref` with siblings, which draft 7 ignores):
 * a file it accepts is valid; one it rejects is judged, with messages, by jsonschema. A keyword
 * it does not know would pass unchecked, so any other schema goes to jsonschema alone.
 */
static const char validate_py[] =
        "import json, sys, itertools\n"
        "try:\n"
        "    import jsonschema\n"
        "except ImportError:\n"
        "    print(\"python3-jsonschema is missing: apt-get install python3-jsonschema (or make "
        "deps)\")\n"
        "    sys.exit(3)\n"
        "try:\n"
        "    import fastjsonschema\n"
        "except ImportError:\n"
        "    fastjsonschema = None\n"
        "SAME = {\"$schema\", \"$id\", \"$ref\", \"$defs\", \"$comment\", \"title\", "
        "\"description\", \"type\", \"enum\", \"const\", \"properties\", \"required\", "
        "\"additionalProperties\", \"items\", \"minItems\", \"maxItems\", \"uniqueItems\", "
        "\"minimum\", \"maximum\", \"exclusiveMinimum\", \"exclusiveMaximum\", "
        "\"multipleOf\", \"minLength\", \"maxLength\", \"pattern\", \"allOf\", "
        "\"anyOf\", \"oneOf\", \"not\", \"if\", \"then\", \"else\", \"propertyNames\", "
        "\"minProperties\", \"maxProperties\", \"format\", \"default\", \"examples\"}\n"
        "def plain(s):\n"
        "    if isinstance(s, bool):\n"
        "        return True\n"
        "    if not isinstance(s, dict) or set(s) - SAME:\n"
        "        return False\n"
        "    if \"$ref\" in s and set(s) - {\"$ref\", \"$comment\", \"title\", "
        "\"description\"}:\n"
        "        return False\n"
        "    subs = [s[k] for k in (\"not\", \"if\", \"then\", \"else\", \"items\", "
        "\"additionalProperties\", \"propertyNames\") if k in s]\n"
        "    for k in (\"properties\", \"$defs\"):\n"
        "        subs += list(s.get(k, {}).values())\n"
        "    for k in (\"allOf\", \"anyOf\", \"oneOf\"):\n"
        "        subs += s.get(k, [])\n"
        "    return all(plain(x) for x in subs)\n"
        "def bare(c):\n"
        "    raise ValueError(\"bare \" + c + \" is not JSON\")\n"
        "checkers = {}\n"
        "def checker(path):\n"
        "    if path not in checkers:\n"
        "        schema = json.load(open(path))\n"
        "        V = jsonschema.validators.validator_for(schema)\n"
        "        V.check_schema(schema)\n"
        "        fast = None\n"
        "        if fastjsonschema and plain(schema):\n"
        "            fast = fastjsonschema.compile(schema)\n"
        "        checkers[path] = (V(schema), fast)\n"
        "    return checkers[path]\n"
        "def screened(fast, doc):\n"
        "    try:\n"
        "        fast(doc)\n"
        "        return True\n"
        "    except fastjsonschema.JsonSchemaException:\n"
        "        return False\n"
        "for i, line in enumerate(open(sys.argv[1])):\n"
        "    schema, path = line.rstrip(\"\\n\").split(\"\\t\")\n"
        "    try:\n"
        "        v, fast = checker(schema)\n"
        "        doc = json.load(open(path), parse_constant=bare)\n"
        "        errs = []\n"
        "        if not fast or not screened(fast, doc):\n"
        "            errs = list(itertools.islice(v.iter_errors(doc), 50))\n"
        "    except Exception as e:\n"
        "        print(json.dumps([i, 1, type(e).__name__ + \": \" + str(e)[:300]]))\n"
        "        continue\n"
        "    errs.sort(key=lambda e: len(e.absolute_path), reverse=True)\n"
        "    msgs = []\n"
        "    for e in errs[:3]:\n"
        "        where = \"/\".join(str(p) for p in e.absolute_path) or \"(top)\"\n"
        "        m = e.message if len(e.message) < 300 else e.message[:300] + \"...\"\n"
        "        msgs.append(where + \": \" + m)\n"
        "    print(json.dumps([i, 1 if errs else 0, \"\\n\".join(msgs)]), flush=True)\n";

int qct_validate_many(qct_validation *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		v[i].status = -1;
		snprintf(v[i].msg, sizeof v[i].msg, "no answer from the validator");
	}
	if (n == 0)
		return 0;
	const char *dir = qct_tmpdir();
	char manifest[700];
	snprintf(manifest, sizeof manifest, "%s/manifest", dir ? dir : "");
	FILE *f = dir ? fopen(manifest, "w") : NULL;
	if (!f) {
		for (size_t i = 0; i < n; i++)
			snprintf(v[i].msg, sizeof v[i].msg,
			         "cannot write the validator's manifest");
		qct_rmdir(dir);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\t%s\n", v[i].schema, v[i].path);
	fclose(f);
	/* Debian's interpreter first: its python3-jsonschema is the one CI installs */
	const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	qct_proc p;
	/* the script has no single quote: one shell word */
	int rc = qct_sh(&p, "%s -c '%s' '%s'", py, validate_py, manifest);
	qct_rmdir(dir);
	if (rc != 0) {
		for (size_t i = 0; i < n; i++)
			snprintf(v[i].msg, sizeof v[i].msg, "cannot run %s", py);
		return -1;
	}
	for (const char *l = p.out; *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		json_t *a = json_loadb(l, len, 0, NULL);
		json_int_t i = json_integer_value(json_array_get(a, 0));
		const char *m = json_string_value(json_array_get(a, 2));
		if (json_is_array(a) && i >= 0 && (size_t)i < n && m) {
			v[i].status = json_integer_value(json_array_get(a, 1)) == 0 ? 0 : 1;
			snprintf(v[i].msg, sizeof v[i].msg, "%s", m);
		}
		json_decref(a);
		l = end ? end + 1 : l + len;
	}
	int invalid = 0, unchecked = 0;
	for (size_t i = 0; i < n; i++) {
		invalid += v[i].status == 1;
		unchecked += v[i].status < 0;
		if (v[i].status < 0 && p.status != 0) /* e.g. jsonschema missing (exit 3) */
			snprintf(v[i].msg, sizeof v[i].msg, "validator exit %d: %s%s", p.status,
			         p.out, p.err);
	}
	qct_proc_free(&p);
	return unchecked ? -1 : invalid;
}

int qct_validate_json(const char *schema_path, const char *json_path, char *msg, size_t msg_size)
{
	qct_validation v = {schema_path, json_path, 0, ""};
	qct_validate_many(&v, 1);
	snprintf(msg, msg_size, "%s", v.msg);
	size_t n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	return v.status;
}

int qct_validate_report(const char *json_path, char *msg, size_t msg_size)
{
	return qct_validate_json(QCT_REPORT_SCHEMA, json_path, msg, msg_size);
}

/* The files waiting for qct_validate_pending: copies in one directory, each with the test
 * that asked and what the file is. */
typedef struct pending_check {
	char *schema, *copy, *origin, *test, *what;
} pending_check;
static pending_check *pending;
static size_t n_pending, cap_pending;
static char pending_dir[600];
static unsigned pending_seq;

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb");
	if (!in)
		return -1;
	FILE *out = fopen(to, "wb");
	int ok = out != NULL;
	char buf[1 << 16];
	size_t r;
	while (ok && (r = fread(buf, 1, sizeof buf, in)) > 0)
		ok = fwrite(buf, 1, r, out) == r;
	ok = ok && !ferror(in);
	fclose(in);
	if (out && fclose(out) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

static char *dup_or_die(const char *s)
{
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

void qct_validate_json_later(const char *schema_path, const char *json_path, const char *what)
{
	/* The sanitizer pass looks for memory errors; the reports it writes are those of the plain
	 * pass, whose schema checks cover them (a whole-suite report takes python3-jsonschema
	 * some 20 s of CPU). */
	if (qct_under_sanitizers())
		return;
	if (!pending_dir[0]) {
		const char *d = qct_tmpdir();
		if (d)
			snprintf(pending_dir, sizeof pending_dir, "%s", d);
	}
	char copy[700];
	snprintf(copy, sizeof copy, "%s/%u.json", pending_dir, pending_seq++);
	if (!pending_dir[0] || copy_file(json_path, copy) != 0) {
		char m[1200];
		snprintf(m, sizeof m, "cannot keep %s for its schema check", json_path);
		CU_assertImplementation(CU_FALSE, __LINE__, m, __FILE__, "", CU_FALSE);
		return;
	}
	if (n_pending == cap_pending) {
		size_t cap = cap_pending ? 2 * cap_pending : 64;
		pending_check *np = realloc(pending, cap * sizeof *np);
		if (!np)
			abort();
		pending = np;
		cap_pending = cap;
	}
	CU_pTest t = CU_get_current_test();
	pending[n_pending++] = (pending_check){
	        dup_or_die(schema_path), dup_or_die(copy), dup_or_die(json_path),
	        dup_or_die(t && t->pName ? t->pName : "(none)"), dup_or_die(what ? what : "")};
}

void qct_validate_report_later(const char *json_path, const char *what)
{
	qct_validate_json_later(QCT_REPORT_SCHEMA, json_path, what);
}

int qct_validate_pending(FILE *log)
{
	if (n_pending == 0)
		return 0;
	qct_validation *v = calloc(n_pending, sizeof *v);
	if (!v)
		abort();
	for (size_t i = 0; i < n_pending; i++) {
		v[i].schema = pending[i].schema;
		v[i].path = pending[i].copy;
	}
	int rc = qct_validate_many(v, n_pending);
	int bad = 0;
	for (size_t i = 0; i < n_pending; i++) {
		if (v[i].status != 0) {
			bad++;
			fprintf(log,
			        "\n  %s %s: %s\n    (%s, written by test %s%s%s; copy kept: %s)\n",
			        v[i].status > 0 ? "does not match" : "could not be checked against",
			        pending[i].schema, v[i].msg, pending[i].origin, pending[i].test,
			        pending[i].what[0] ? ", " : "", pending[i].what, pending[i].copy);
		}
		free(pending[i].schema);
		free(pending[i].copy);
		free(pending[i].origin);
		free(pending[i].test);
		free(pending[i].what);
	}
	free(v);
	n_pending = 0;
	/* the copies of the files that failed stay for a look */
	if (!bad)
		qct_rmdir(pending_dir);
	pending_dir[0] = 0;
	return rc < 0 ? -1 : bad;
}

/* Runs `qconform run ARGS --json TMP/report.json`; returns the parsed report (or NULL). */
json_t *qct_run_report(const char *tmp, int *status, char **err_out, const char *fmt, ...)
{
	char args[4096], json[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(json, sizeof json, "%s/report.json", tmp);
	unlink(json);
	qct_proc p;
	if (qct_sh(&p, "%s run --quiet --json %s %s", qct_build_path("qconform"), json, args) != 0)
		return NULL;
	*status = p.status;
	if (err_out)
		*err_out = strdup(p.err);
	qct_proc_free(&p);
	json_error_t e;
	json_t *r = json_load_file(json, 0, &e);
	if (!r && *status != 2)
		fprintf(stderr, "\nreport %s: %s (line %d)\n", json, e.text, e.line);
	if (r) {
		/* every report the tests produce must match its published schema: checked with
		 * the others of the suite when it ends (qct_validate_pending) */
		char what[4200];
		snprintf(what, sizeof what, "qconform run %s", args);
		qct_validate_report_later(json, what);
	}
	return r;
}

const char *qct_stub(const char *name)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];
	char rel[128];
	snprintf(rel, sizeof rel, "stubs/libstub_%s.so", name);
	snprintf(b, sizeof buf[0], "%s", qct_build_path(rel));
	return b;
}

const char *qct_verdict(json_t *c)
{
	return json_string_value(json_object_get(c, "verdict"));
}

const char *qct_adapter(const char *name, const char *package)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];
	char rel[128];
	snprintf(rel, sizeof rel, "plugins/libqcf_%s.so", name);
	snprintf(b, sizeof buf[0], "%s", qct_build_path(rel));
	if (access(b, R_OK) == 0)
		return b;
	fprintf(stderr,
	        "\n  plugin/%s: %s not built (Debian package %s is not installed): skipped\n", name,
	        b, package);
	return NULL;
}

const char *qct_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

double qct_case_max_abs(json_t *c)
{
	double m = 0;
	size_t i;
	json_t *out;
	json_array_foreach(json_object_get(c, "outputs"), i, out)
	{
		double v = json_number_value(json_object_get(out, "max_abs"));
		m = v > m ? v : m;
	}
	return m;
}

qct_tally qct_tally_report(json_t *r)
{
	qct_tally t = {0};
	json_t *cases = json_object_get(r, "cases");
	t.cases = json_array_size(cases);
	for (size_t i = 0; i < t.cases; i++) {
		json_t *c = json_array_get(cases, i);
		const char *v = qct_verdict(c);
		if (!strcmp(v, "PASS")) {
			t.pass++;
		} else if (!strcmp(v, "EXPECTED_ERROR")) {
			t.expected_error++;
		} else if (t.other++ < 5) {
			fprintf(stderr, "\n  %s: %s %s",
			        json_string_value(json_object_get(c, "name")), v,
			        json_string_value(json_object_get(c, "message")));
		}
		t.golden += json_object_get(c, "golden_source") != NULL;
	}
	return t;
}

const char *qct_specs(void)
{
	const char *s = getenv("QCT_SPECS");
	return s && *s ? s : "specs";
}

int qct_under_sanitizers(void)
{
	const char *b = getenv("QCONFORM_BUILD"), *san = getenv("SAN");
	if (!b || !*b)
		b = "build";
	size_t n = strlen(b);
	if (san && *san && strcmp(san, "0") != 0)
		return 1;
	return n >= 3 && strcmp(b + n - 3, "san") == 0;
}

/* ---- runs several tests share ---- */

typedef struct shared_run {
	char *key;      /* the command or the run's arguments */
	json_t *report; /* a run's report, or NULL */
	char *json;     /* its path */
	qct_proc proc;  /* the command's status and output */
} shared_run;
static shared_run *shared;
static size_t n_shared;
static char *own_dir; /* the shared runs' directory without QCT_SHARED_DIR, removed at exit */

static void shared_free(void)
{
	for (size_t i = 0; i < n_shared; i++) {
		free(shared[i].key);
		json_decref(shared[i].report);
		free(shared[i].json);
		qct_proc_free(&shared[i].proc);
	}
	free(shared);
	shared = NULL;
	n_shared = 0;
	qct_rmdir(own_dir);
	free(own_dir);
	own_dir = NULL;
}

static shared_run *shared_find(const char *key)
{
	for (size_t i = 0; i < n_shared; i++)
		if (!strcmp(shared[i].key, key))
			return &shared[i];
	return NULL;
}

/* shared_free at exit, registered once */
static void shared_free_at_exit(void)
{
	static int registered;
	if (!registered++)
		atexit(shared_free);
}

static shared_run *shared_add(const char *key)
{
	shared_free_at_exit();
	shared_run *ns = realloc(shared, (n_shared + 1) * sizeof *ns);
	if (!ns)
		abort();
	shared = ns;
	shared_run *s = &shared[n_shared++];
	memset(s, 0, sizeof *s);
	s->key = dup_or_die(key);
	return s;
}

/*
 * A shared run is kept in a directory under the sha256 of its key: QCT_SHARED_DIR (set by make
 * test) is shared by the lanes of a pass, so the lane that asks first runs it and the others
 * read it; without it, a directory of this process's own. key.lock is held (flock) while the
 * first runs it; key.done says it is complete. -1 when there is no directory.
 */
static int shared_lock(const char *key, char base[700])
{
	const char *d = getenv("QCT_SHARED_DIR");
	if (!d || !*d) {
		if (!own_dir) {
			const char *t = qct_tmpdir();
			if (!t)
				return -1;
			own_dir = dup_or_die(t);
			shared_free_at_exit();
		}
		d = own_dir;
	}
	char hex[65];
	qc_sha256_hex(key, strlen(key), hex);
	mkdir(d, 0755);
	snprintf(base, 700, "%s/%.16s", d, hex);
	char lock[720];
	snprintf(lock, sizeof lock, "%s.lock", base);
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int shared_done(const char *base)
{
	char path[720];
	snprintf(path, sizeof path, "%s.done", base);
	return access(path, F_OK) == 0;
}

static void shared_put(const char *base, const char *ext, const char *text)
{
	char path[720];
	snprintf(path, sizeof path, "%s.%s", base, ext);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text ? text : "", f);
		fclose(f);
	}
}

static char *shared_get(const char *base, const char *ext)
{
	char path[720];
	snprintf(path, sizeof path, "%s.%s", base, ext);
	char *t = qct_read_file(path);
	return t ? t : dup_or_die("");
}

static void shared_put_status(const char *base, int status)
{
	char b[32];
	snprintf(b, sizeof b, "%d\n", status);
	shared_put(base, "status", b);
}

static int shared_get_status(const char *base)
{
	char *t = shared_get(base, "status");
	int st = atoi(t);
	free(t);
	return st;
}

static char *dup_or_null(const char *s)
{
	return s ? dup_or_die(s) : NULL;
}

json_t *qct_run_shared(int *status, char **err_out, const char **json_path, const char *fmt, ...)
{
	char args[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	shared_run *s = shared_find(args);
	char base[700];
	int fd = -1;
	if (!s && (fd = shared_lock(args, base)) < 0)
		return NULL;
	if (!s) {
		/* the run's directory is base itself, kept for the other lanes */
		s = shared_add(args);
		char json[720];
		snprintf(json, sizeof json, "%s/report.json", base);
		s->json = dup_or_die(json);
		if (shared_done(base)) {
			json_error_t e;
			s->report = json_load_file(json, 0, &e);
			s->proc.status = shared_get_status(base);
			s->proc.err = shared_get(base, "err");
		} else {
			mkdir(base, 0755);
			char *err = NULL;
			s->report = qct_run_report(base, &s->proc.status, &err, "%s", args);
			s->proc.err = err;
			shared_put(base, "err", err);
			shared_put_status(base, s->proc.status);
			shared_put(base, "done", "");
		}
		close(fd);
	}
	*status = s->proc.status;
	if (err_out)
		*err_out = dup_or_null(s->proc.err);
	if (json_path)
		*json_path = s->json;
	return json_incref(s->report);
}

int qct_sh_shared(qct_proc *p, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	shared_run *s = shared_find(cmd);
	char base[700];
	int fd = -1;
	if (!s && (fd = shared_lock(cmd, base)) < 0)
		return -1;
	if (!s) {
		qct_proc q;
		if (shared_done(base)) {
			q.status = shared_get_status(base);
			q.out = shared_get(base, "out");
			q.err = shared_get(base, "err");
		} else if (qct_sh(&q, "%s", cmd) == 0) {
			shared_put(base, "out", q.out);
			shared_put(base, "err", q.err);
			shared_put_status(base, q.status);
			shared_put(base, "done", "");
		} else {
			close(fd);
			return -1;
		}
		close(fd);
		s = shared_add(cmd);
		s->proc = q;
	}
	p->status = s->proc.status;
	p->out = dup_or_die(s->proc.out);
	p->err = dup_or_die(s->proc.err);
	return 0;
}

qct_tally qct_specs_conform(const char *label, const char *specs, size_t min_golden,
                            size_t min_negative)
{
	const char *tmp = qct_tmpdir();
	int st;
	qct_tally t = {0};
	json_t *r = qct_run_report(tmp, &st, NULL, "%s", specs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	t = qct_tally_report(r);
	printf("\n  %s: %zu cases, %zu PASS, %zu EXPECTED_ERROR, %zu golden", label, t.cases,
	       t.pass, t.expected_error, t.golden);
	CU_ASSERT(t.golden >= min_golden);
	CU_ASSERT(t.expected_error >= min_negative);
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	json_decref(r);
	qct_rmdir(tmp);
	return t;
}

void qct_count_verdicts(json_t *r, int (*fail)(const char *spec, const char *name), size_t *failed,
                        size_t *passed, size_t *bad)
{
	json_t *cases = json_object_get(r, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *spec = json_string_value(json_object_get(c, "spec"));
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *v = json_string_value(json_object_get(c, "verdict"));
		if (!spec || !name || !v) {
			(*bad)++;
			continue;
		}
		if (strcmp(v, "EXPECTED_ERROR") == 0)
			continue;
		int f = fail(spec, name);
		f ? (*failed)++ : (*passed)++;
		if (strcmp(v, f ? "FAIL" : "PASS") != 0) {
			(*bad)++;
			fprintf(stderr, "\n  %s %s: %s", spec, name, v);
		}
	}
}

size_t qct_stub_verdicts(const char *specs, const char *stub,
                         int (*may_fail)(const char *spec, const char *name),
                         const char *const *must_fail, size_t *passed)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s --plugin %s", specs, qct_stub(stub));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	size_t failed = 0, bad = 0, nmust = 0, seen[16] = {0};
	while (must_fail[nmust])
		nmust++;
	CU_ASSERT_FATAL(nmust <= sizeof seen / sizeof seen[0]);
	*passed = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *spec = json_string_value(json_object_get(c, "spec"));
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *v = json_string_value(json_object_get(c, "verdict"));
		if (!spec || !name || !v) {
			bad++;
			continue;
		}
		int must = 0;
		for (size_t k = 0; k < nmust; k++)
			if (strstr(name, must_fail[k])) {
				must = 1;
				seen[k] += strcmp(v, "FAIL") == 0;
			}
		if (strcmp(v, "FAIL") == 0) {
			failed++;
			if (!may_fail(spec, name)) {
				bad++;
				fprintf(stderr, "\n  unexpected FAIL: %s", name);
			}
		} else if (strcmp(v, "PASS") == 0) {
			(*passed)++;
			if (must) {
				bad++;
				fprintf(stderr, "\n  should FAIL: %s", name);
			}
		} else if (strcmp(v, "EXPECTED_ERROR") != 0) {
			bad++;
			fprintf(stderr, "\n  %s: %s", name, v);
		}
	}
	for (size_t k = 0; k < nmust; k++) {
		if (!seen[k])
			fprintf(stderr, "\n  no case named %s FAILs", must_fail[k]);
		CU_ASSERT(seen[k] > 0);
	}
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
	return failed;
}
