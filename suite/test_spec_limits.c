/*
 * Hostile specs (harness/src/spec/qc_limits.h): each row of the table is an input that once hung,
 * crashed, blew memory or silently doubled the suite. `qconform validate` and `qconform run`
 * must both end it with exit 2 and the message at its place ("file:line:col: message", or
 * "file: message" for a file as a whole), within a generous time bound that only detects a
 * hang. Big inputs are generated here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cases/cases.h"
#include "qct.h"
#include "spec/qc_limits.h"
#include "spec/slua.h"
#include "spec/spec.h"

/* a hang detector, not a performance bound (a loaded machine takes 20 s) */
#define HANG_SECONDS 60.0

/* Eight lines: whatever a row appends starts on line 9. */
static const char BASE[] = "qconform: 1\n"
                           "op: QuantizeLinear\n"
                           "semantics: onnx\n"
                           "inputs:\n"
                           "  x: {dtype: float32, shape: [2], data: [0.5, 1.5]}\n"
                           "outputs:\n"
                           "  y: {dtype: uint8, shape: [2], quant: {scale: 1.0, zero_point: 0}}\n"
                           "tolerance: exact\n";

/* ---- a growable string ---- */

typedef struct buf {
	char *s;
	size_t n, cap;
} buf;

static void bprintf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(buf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = b->cap - b->n;
		int w = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
		va_end(ap);
		if (w >= 0 && (size_t)w < room) {
			b->n += (size_t)w;
			return;
		}
		b->cap = b->cap * 2 + (size_t)w + 64;
		b->s = realloc(b->s, b->cap);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b->s);
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void write_spec(const char *path, const char *tail)
{
	buf b = {0};
	bprintf(&b, "%s%s", BASE, tail);
	write_file(path, b.s);
	free(b.s);
}

/* ---- generated texts (BASE plus what they return) ---- */

/* Ten anchors, each a list of ten aliases of the one before: 10^9 nodes expanded. The limit is
 * crossed at the 8th alias of a5 (line 15, column 47): 123,440 nodes before it, 111,111 each. */
static char *gen_alias_bomb(void)
{
	buf b = {0};
	bprintf(&b, "notes:\n  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n");
	for (int i = 1; i < 10; i++) {
		bprintf(&b, "  a%d: &a%d [", i, i);
		for (int k = 0; k < 10; k++)
			bprintf(&b, "%s*a%d", k ? ", " : "", i - 1);
		bprintf(&b, "]\n");
	}
	bprintf(&b, "sweep: {v: [*a9]}\nexpect: \"=#v\"\n");
	return b.s;
}

static char *gen_deep_flow(void)
{
	buf b = {0};
	bprintf(&b, "notes: ");
	for (int i = 0; i < 100000; i++)
		bprintf(&b, "[");
	for (int i = 0; i < 100000; i++)
		bprintf(&b, "]");
	bprintf(&b, "\n");
	return b.s;
}

static char *gen_deep_block(void)
{
	buf b = {0};
	bprintf(&b, "notes:\n  ");
	for (int i = 0; i < 100000; i++)
		bprintf(&b, "- ");
	bprintf(&b, "x\n");
	return b.s;
}

/* 100,000 explicit cases, the last named as the first: found by sorting, not in O(n^2). */
static char *gen_many_cases_dup(void)
{
	buf b = {0};
	bprintf(&b, "cases:\n");
	for (int i = 0; i < 100000; i++)
		bprintf(&b, "  - name: c%d\n", i);
	bprintf(&b, "  - name: c0\n");
	return b.s;
}

/* 100,000 cases named alike: each later one names the first, in O(n log n). */
static char *gen_same_name(void)
{
	buf b = {0};
	bprintf(&b, "cases:\n");
	for (int i = 0; i < 100000; i++)
		bprintf(&b, "  - name: c\n");
	return b.s;
}

static char *gen_many_keys(void)
{
	buf b = {0};
	for (int i = 0; i < 100000; i++)
		bprintf(&b, "k%d: 0\n", i);
	return b.s;
}

/* Four sweep variables of 1,000 values: 10^12 cases. */
static char *gen_sweep_1e12(void)
{
	buf b = {0};
	bprintf(&b, "sweep:\n");
	for (int v = 0; v < 4; v++) {
		bprintf(&b, "  v%d: [", v);
		for (int i = 0; i < 1000; i++)
			bprintf(&b, "%s%d", i ? ", " : "", i);
		bprintf(&b, "]\n");
	}
	return b.s;
}

/* One list of QC_YAML_MAX_NODES values: with the document's own nodes, one too many. */
/* head, then a flow list of QC_YAML_MAX_NODES ones, then tail */
static char *list_of_limit(const char *head, const char *tail)
{
	buf b = {0};
	bprintf(&b, "%s[", head);
	for (int i = 0; i < QC_YAML_MAX_NODES; i++)
		bprintf(&b, "%s1", i ? "," : "");
	bprintf(&b, "]%s\n", tail);
	return b.s;
}

static char *gen_too_many_nodes(void)
{
	return list_of_limit("notes: ", "");
}

/* The same in a case's golden values, where the reader keeps a list of numbers as text. */
static char *gen_too_many_packed(void)
{
	return list_of_limit("cases:\n  - name: c\n    golden: {y: ", "}");
}

/* ---- inputs that are files, directories, links ---- */

/* Each make() builds its input below dir and says what the command is given (arg) and which
 * path the message names (at); 0 on success. */

static int make_fifo(const char *dir, char *arg, char *at)
{
	sprintf(arg, "%s", dir);
	sprintf(at, "%s/x.yaml", dir);
	return mkfifo(at, 0600);
}

static int make_dev_zero(const char *dir, char *arg, char *at)
{
	sprintf(arg, "%s/x.yaml", dir);
	sprintf(at, "%s", arg);
	return symlink("/dev/zero", arg);
}

/* A directory named d.yaml holding a socket named s.yaml. */
static int make_socket(const char *dir, char *arg, char *at)
{
	sprintf(arg, "%s", dir);
	char d[600];
	sprintf(d, "%s/d.yaml", dir);
	sprintf(at, "%s/s.yaml", d);
	if (mkdir(d, 0700) != 0)
		return -1;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(at) >= sizeof sa.sun_path)
		return -1;
	strcpy(sa.sun_path, at);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof sa);
	if (fd >= 0)
		close(fd);
	return r;
}

/* Sparse, one byte over the limit. */
static int make_huge(const char *dir, char *arg, char *at)
{
	sprintf(arg, "%s/x.yaml", dir);
	sprintf(at, "%s", arg);
	int fd = open(arg, O_CREAT | O_WRONLY, 0600);
	int r = fd < 0 ? -1 : ftruncate(fd, (off_t)QC_SPEC_MAX_BYTES + 1);
	if (fd >= 0)
		close(fd);
	return r;
}

/* specs/a/loop -> .. : every file would be found again and again below it. */
static int make_symlink_loop(const char *dir, char *arg, char *at)
{
	char p[700];
	sprintf(arg, "%s/specs", dir);
	sprintf(p, "%s/a", arg);
	if (mkdir(arg, 0700) != 0 || mkdir(p, 0700) != 0)
		return -1;
	sprintf(p, "%s/a/q.yaml", arg);
	write_spec(p, "");
	sprintf(at, "%s/a/loop", arg);
	return symlink("..", at);
}

/* Two files a/q.yaml and b/q.yaml with the same semantics and stem: the same case names. */
static int make_dup_files(const char *dir, char *arg, char *at)
{
	char p[700];
	sprintf(arg, "%s", dir);
	for (int i = 0; i < 2; i++) {
		sprintf(p, "%s/%c", dir, 'a' + i);
		if (mkdir(p, 0700) != 0)
			return -1;
		sprintf(p, "%s/%c/q.yaml", dir, 'a' + i);
		write_spec(p, "");
	}
	sprintf(at, "%s/b/q.yaml", dir);
	return 0;
}

/* One more directory level than QC_SPEC_MAX_DIR_DEPTH. */
static int make_deep_dirs(const char *dir, char *arg, char *at)
{
	sprintf(arg, "%s", dir);
	char p[1024];
	snprintf(p, sizeof p, "%s", dir);
	for (int i = 0; i < QC_SPEC_MAX_DIR_DEPTH + 2; i++) {
		strcat(p, "/d");
		if (mkdir(p, 0700) != 0)
			return -1;
		if (i == QC_SPEC_MAX_DIR_DEPTH - 1)
			sprintf(at, "%s", p);
	}
	return 0;
}

/* A FIFO among the profiles of a spec directory. */
static int make_profile_fifo(const char *dir, char *arg, char *at)
{
	char p[700];
	sprintf(arg, "%s/specs", dir);
	sprintf(p, "%s/profiles", arg);
	if (mkdir(arg, 0700) != 0 || mkdir(p, 0700) != 0)
		return -1;
	sprintf(p, "%s/q.yaml", arg);
	write_spec(p, "");
	sprintf(at, "%s/profiles/p.yaml", arg);
	return mkfifo(at, 0600);
}

/* Eleven specs of 10^6 cases each: more than QC_RUN_MAX_CASES, refused before expanding. */
static int make_run_limit(const char *dir, char *arg, char *at)
{
	buf b = {0};
	bprintf(&b, "sweep:\n");
	for (int v = 0; v < 2; v++) {
		bprintf(&b, "  v%d: [", v);
		for (int i = 0; i < 1000; i++)
			bprintf(&b, "%s%d", i ? ", " : "", i);
		bprintf(&b, "]\n");
	}
	char p[700];
	for (int i = 0; i < 11; i++) {
		sprintf(p, "%s/s%02d.yaml", dir, i);
		write_spec(p, b.s);
	}
	free(b.s);
	sprintf(arg, "%s", dir);
	sprintf(at, "%s/s10.yaml", dir);
	return 0;
}

/* ---- the table ---- */

typedef struct row {
	const char *what;
	const char *tail;                                  /* appended to BASE in DIR/x.yaml, or */
	char *(*gen)(void);                                /* a generated tail, or */
	int (*make)(const char *dir, char *arg, char *at); /* any input */
	const char *where; /* "line:col", or NULL for "path: message" */
	const char *want;  /* in the message; "%s" stands for the test's directory */
} row;

#define XPCALL_LOOP "xpcall(error, function() while true do end end)"
#define LIMIT_MSG   "Lua: instruction limit exceeded (50000000 instructions)"
#define BUDGET_MSG                                                                                 \
	"Lua: instruction budget of the spec exceeded (500000000 instructions over all its cases)"

/*
 * An endless evaluation meets two limits, its instructions and its wall clock (5 s), and the
 * spec's two budgets likewise: which one stops it first depends on the machine's speed and
 * load, not on the harness. A row that wants one of them accepts the other of its pair: what
 * the user relies on is that the loop is stopped, at its line, within HANG_SECONDS.
 */
static const char *const race[][2] = {
        {LIMIT_MSG, "Lua: time limit exceeded (5 s in one evaluation)"},
        {BUDGET_MSG, "Lua: time limit of the spec exceeded ("},
};

static const char *race_partner(const char *want)
{
	for (size_t i = 0; i < sizeof race / sizeof race[0]; i++)
		if (!strcmp(want, race[i][0]))
			return race[i][1];
	return NULL;
}

static const row rows[] = {
        /* Lua: the instruction limit must escape no message handler, metamethod, C loop */
        {"xpcall handler loops", "expect: \"=" XPCALL_LOOP "\"\n", NULL, NULL, "9:9", LIMIT_MSG},
        {"xpcall handler raises, then loops",
         "expect: \"=xpcall(error, function(m) pcall(error, m) while true do end end)\"\n", NULL,
         NULL, "9:9", LIMIT_MSG},
        {"both loop",
         "expect: \"=xpcall(function() while true do end end, function() while true do end "
         "end)\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"nested handlers",
         "expect: \"=xpcall(function() return " XPCALL_LOOP
         " end, function() while true do end end)\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"handler nests xpcall",
         "expect: \"=xpcall(error, function() " XPCALL_LOOP " while true do end end)\"\n", NULL,
         NULL, "9:9", LIMIT_MSG},
        {"handler replaces the message",
         "expect: \"=xpcall(function() while true do end end, function() return 'caught' "
         "end)\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"__close loops while the error unwinds",
         "expect: \"=(function() local x <close> = setmetatable({}, {__close = function() "
         "while true do end end}) error('x') end)()\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"__index loops",
         "expect: \"=setmetatable({}, {__index = function() while true do end end}).x\"\n", NULL,
         NULL, "9:9", LIMIT_MSG},
        {"__tostring loops",
         "expect: \"=tostring(setmetatable({}, {__tostring = function() while true do end "
         "end}))\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"__gc is refused",
         "expect: \"=setmetatable({}, {__gc = function() while true do end end})\"\n", NULL, NULL,
         "9:9", "Lua: setmetatable: __gc is not allowed in the sandbox"},
        {"no coroutines", "expect: \"=coroutine.wrap(function() while true do end end)()\"\n", NULL,
         NULL, "9:9", "Lua: attempt to index a nil value (global 'coroutine')"},
        {"no gsub callbacks",
         "expect: \"=string.gsub('aa', 'a', function() while true do end end)\"\n", NULL, NULL,
         "9:9", "Lua: attempt to call a nil value (field 'gsub')"},
        {"next over a big table is O(n) per call in C",
         "expect: \"=(function() local t = {} for i = 1, 1e5 do t[i] = i end for k in next, "
         "t do end end)()\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"table.move loops in C",
         "expect: \"=(function() for i = 1, 1e9 do table.move({}, 1, 1e7, 1, {}) end "
         "end)()\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"pairs sorts the keys in C at every call",
         "expect: \"=(function() local t = {} for i = 1, 1e5 do t[i] = i end for i = 1, 1e9 "
         "do for k in pairs(t) do break end end end)()\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"string.rep fills memory in C",
         "expect: \"=(function() for i = 1, 1e9 do local s = string.rep('x', 1e7) end "
         "end)()\"\n",
         NULL, NULL, "9:9", LIMIT_MSG},
        {"table.insert with a huge __len",
         "expect: \"=table.insert(setmetatable({}, {__len = function() return 2^53 end}), 1, "
         "0)\"\n",
         NULL, NULL, "9:9", "Lua: table.insert: more than 16777216 elements"},
        {"table.remove with a huge __len",
         "expect: \"=table.remove(setmetatable({}, {__len = function() return 2^53 end}), "
         "1)\"\n",
         NULL, NULL, "9:9", "Lua: table.remove: more than 16777216 elements"},
        {"a C call per instruction: the wall clock of one evaluation",
         "expect: \"=(function() local t = {} for i = 1, 1e5 do t[i] = i end for i = 1, 1e9 "
         "do local a = table.unpack(t) end end)()\"\n",
         NULL, NULL, "9:9", "Lua: time limit exceeded (5 s in one evaluation)"},
        {"a generator whose handler loops",
         "cases:\n  - name: g\n    inputs: {x: {data: {lua: \"return function(i) "
         "return " XPCALL_LOOP " and i or i end\"}}}\n",
         NULL, NULL, "11:30", LIMIT_MSG},
        {"a custom check whose handler loops (run once on the reference's outputs)",
         "cases:\n  - name: c\n    tolerance: {check: {lua: \"return function(e) "
         "return " XPCALL_LOOP " end\"}, reason: r}\n",
         NULL, NULL, "11:30", LIMIT_MSG},
        {"10^6 cases of 90% of the limit each: the spec's budget",
         "sweep: {i: \"=qc.range(1, 1000000)\"}\n"
         "expect: \"=(function() local s = 0 for k = 1, 11000000 do s = s + i end return s "
         "end)() and 'ok'\"\n",
         NULL, NULL, "10:9", BUDGET_MSG},
        /* YAML */
        {"alias bomb", NULL, gen_alias_bomb, NULL, "15:47",
         "alias expansion exceeds 1000000 nodes (alias bomb?)"},
        {"alias cycle", "sweep: {v: [&r [1, *r]]}\n", NULL, NULL, "9:20",
         "alias *r refers to a node that contains it (a cycle)"},
        {"an anchor defined twice", "sweep: {a: &x [1], b: &x [2]}\n", NULL, NULL, "9:23",
         "YAML error: anchor &x is defined twice (first at line 9, column 12)"},
        {"an alias of no anchor", "sweep: {v: [1, *nope]}\n", NULL, NULL, "9:16",
         "YAML error: found undefined alias *nope"},
        {"100,000 levels of [", NULL, gen_deep_flow, NULL, "9:263",
         "nesting deeper than 256 levels"},
        {"100,000 levels of - ", NULL, gen_deep_block, NULL, "10:513",
         "nesting deeper than 256 levels"},
        {"more YAML nodes than the limit", NULL, gen_too_many_nodes, NULL, "9:3999931",
         "more than 2000000 YAML nodes in one file"},
        {"more YAML nodes than the limit, in a list kept as text", NULL, gen_too_many_packed, NULL,
         "11:3999926", "more than 2000000 YAML nodes in one file"},
        {"a second document after a list kept as text",
         "cases:\n  - name: c\n    inputs: {x: [1, 2, 3, 4, 5, 6, 7, 8]}\n---\na: 1\n", NULL, NULL,
         "13:1", "a spec file holds one YAML document"},
        {"100,000 unknown keys (duplicates were looked for in O(n^2))", NULL, gen_many_keys, NULL,
         "9:1", "unknown key 'k0' in the spec"},
        {"100,000 cases of one name", NULL, gen_same_name, NULL, "11:11",
         "duplicate case name 'c' (also case 1)"},
        {"100,000 cases, the last a duplicate", NULL, gen_many_cases_dup, NULL, "100010:11",
         "duplicate case name 'c0' (also case 1)"},
        /* case counts */
        {"10^12-case sweep", NULL, gen_sweep_1e12, NULL, "10:3",
         "sweep expands to 1000000000000 cases, more than the limit of 1000000"},
        {"sweep count past 64 bits",
         "sweep:\n  a: \"=qc.range(1, 100000)\"\n  b: \"=qc.range(1, 100000)\"\n  c: "
         "\"=qc.range(1, 100000)\"\n  d: \"=qc.range(1, 100000)\"\n",
         NULL, NULL, "10:3", "sweep expands to 1.000e+20 cases, more than the limit of 1000000"},
        {"repeat times the points", "sweep: {a: \"=qc.range(1, 1000)\"}\nrepeat: 1000000\n", NULL,
         NULL, "10:9",
         "sweep expands to 1000000000 cases (1000 points, repeat 1000000), more than the limit "
         "of 1000000"},
        {"a tensor of 2^64 elements",
         "cases:\n  - name: big\n    inputs: {x: {shape: [65536, 65536, 65536, 65536]}}\n", NULL,
         NULL, "11:25", "tensor of more than 16777216 elements is too large"},
        {"two sweep points with one name", "sweep: {a: [1, \"1\"]}\n", NULL, NULL, "9:8",
         "two cases expand to the same name onnx/x/a=1 (also at 9:8)"},
        /* files and directories */
        {"a FIFO named x.yaml", NULL, NULL, make_fifo, NULL, "not a regular file (a FIFO)"},
        {"a symlink to /dev/zero", NULL, NULL, make_dev_zero, NULL,
         "not a regular file (a character device)"},
        {"a socket in a directory named d.yaml", NULL, NULL, make_socket, NULL,
         "not a regular file (a socket)"},
        {"a file over 64 MiB", NULL, NULL, make_huge, NULL,
         "larger than a spec file may be (67108865 bytes; the limit is 64 MiB)"},
        {"a directory symlink loop", NULL, NULL, make_symlink_loop, NULL,
         "symlink loop: the same directory as %s/specs"},
        {"two files define the same case name", NULL, NULL, make_dup_files, "1:1",
         "case name onnx/q/default is also defined by %s/a/q.yaml (1:1)"},
        {"directories nested too deep", NULL, NULL, make_deep_dirs, NULL,
         "directories nested deeper than 64 levels"},
        {"a FIFO among the profiles", NULL, NULL, make_profile_fifo, NULL,
         "not a regular file (a FIFO)"},
        {"more cases than a run may have", NULL, NULL, make_run_limit, NULL,
         "with this spec the run has 11000000 cases, more than the limit of 10000000"},
};

/* Runs cmd; checks exit 2, the first line of stderr ("<at>:<where>: " or "<at>: ", then want)
 * and the time. */
static void expect_refused(const row *r, const char *cmd, const char *at, const char *want)
{
	char prefix[1200];
	if (r->where)
		snprintf(prefix, sizeof prefix, "%s:%s: ", at, r->where);
	else
		snprintf(prefix, sizeof prefix, "%s: ", at);
	qct_proc p;
	double t0 = qct_now_s();
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s", cmd), 0);
	double t = qct_now_s() - t0;
	size_t first = strcspn(p.err, "\n");
	const char *got = strstr(p.err, want), *alt = race_partner(want);
	if ((!got || (size_t)(got - p.err) >= first) && alt)
		got = strstr(p.err, alt);
	int ok = p.status == 2 && strncmp(p.err, prefix, strlen(prefix)) == 0 &&
	         first >= strlen(prefix) && got && (size_t)(got - p.err) < first &&
	         t < HANG_SECONDS;
	if (!ok)
		fprintf(stderr,
		        "\n  %s: %s\n    want exit 2, \"%s...%s\" within %.0f s\n    got exit %d "
		        "in %.1f s: %.*s\n",
		        r->what, cmd, prefix, want, HANG_SECONDS, p.status, t,
		        (int)(first < 400 ? first : 400), p.err);
	CU_ASSERT(ok);
	if (getenv("QCT_TIMES"))
		fprintf(stderr, "\n  %.2f s  %s", t, r->what);
	qct_proc_free(&p);
}

static void test_table(void)
{
	struct rusage ru;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const row *r = &rows[i];
		const char *dir = qct_tmpdir();
		CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
		char arg[1024], at[1024], want[1024];
		if (r->make) {
			CU_ASSERT_EQUAL_FATAL(r->make(dir, arg, at), 0);
		} else {
			snprintf(arg, sizeof arg, "%s/x.yaml", dir);
			snprintf(at, sizeof at, "%s", arg);
			char *tail = r->gen ? r->gen() : NULL;
			write_spec(arg, tail ? tail : r->tail);
			free(tail);
		}
		snprintf(want, sizeof want, r->want, dir);
		char cmd[2400];
		snprintf(cmd, sizeof cmd, "%s validate %s", qct_build_path("qconform"), arg);
		expect_refused(r, cmd, at, want);
#if !defined(__SANITIZE_ADDRESS__)
		/* run loads specs as validate does; under the sanitizers once is enough */
		snprintf(cmd, sizeof cmd, "%s run %s --quiet --json %s/r.json",
		         qct_build_path("qconform"), arg, dir);
		expect_refused(r, cmd, at, want);
#endif
		qct_rmdir(dir);
	}
	/* memory: every run above stayed well under 1 GiB */
	CU_ASSERT_EQUAL(getrusage(RUSAGE_CHILDREN, &ru), 0);
	if (ru.ru_maxrss >= 1024 * 1024)
		fprintf(stderr, "\n  peak RSS of a child: %ld KiB\n", ru.ru_maxrss);
	CU_ASSERT(ru.ru_maxrss < 1024 * 1024);
}

/* 100,000 explicit cases validate in seconds (the duplicate-name check was O(n^2)). */
static void test_many_cases(void)
{
	const char *dir = qct_tmpdir();
	char path[600];
	snprintf(path, sizeof path, "%s/x.yaml", dir);
	buf b = {0};
	bprintf(&b, "cases:\n");
	for (int i = 0; i < 100000; i++)
		bprintf(&b, "  - name: c%d\n", i);
	write_spec(path, b.s);
	free(b.s);
	qct_proc p;
	double t0 = qct_now_s();
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
	CU_ASSERT(qct_now_s() - t0 < HANG_SECONDS);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "1 spec valid, 100000 cases"));
	qct_proc_free(&p);
	qct_rmdir(dir);
}

/* A file reached twice (a directory and a file in it, or a symlink) is loaded once. */
static void test_file_once(void)
{
	const char *dir = qct_tmpdir();
	char path[600], link[600];
	snprintf(path, sizeof path, "%s/x.yaml", dir);
	snprintf(link, sizeof link, "%s/y.yaml", dir);
	write_spec(path, "");
	CU_ASSERT_EQUAL(symlink("x.yaml", link), 0);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s validate %s %s %s", qct_build_path("qconform"), dir, path, link), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "1 spec valid, 1 case\n"));
	qct_proc_free(&p);
	qct_rmdir(dir);
}

/* Result memory of the evaluations below (they give scalars: nothing is allocated). */
typedef struct pool {
	max_align_t mem[64];
	size_t used;
} pool;

static void *pool_alloc(void *ctx, size_t n)
{
	pool *p = ctx;
	size_t k = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t);
	if (p->used + k > sizeof p->mem / sizeof p->mem[0])
		return NULL;
	p->used += k;
	return memset(&p->mem[p->used - k], 0, k * sizeof(max_align_t));
}

/* A waiver file that is a FIFO: `run --waivers` refuses it at once. */
static void test_waivers_fifo(void)
{
	const char *dir = qct_tmpdir();
	char spec[600], fifo[600];
	snprintf(spec, sizeof spec, "%s/x.yaml", dir);
	snprintf(fifo, sizeof fifo, "%s/waivers.yaml", dir);
	write_spec(spec, "");
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	qct_proc p;
	double t0 = qct_now_s();
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s run %s --waivers %s --quiet --json %s/r.json",
	                             qct_build_path("qconform"), spec, fifo, dir),
	                      0);
	CU_ASSERT(qct_now_s() - t0 < HANG_SECONDS);
	CU_ASSERT_EQUAL(p.status, 2);
	char want[700];
	snprintf(want, sizeof want, "%s: not a regular file (a FIFO)", fifo);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, want));
	qct_proc_free(&p);
	qct_rmdir(dir);
}

/* The spec-wide Lua budgets, through the API: instructions, then the wall clock. */
static void test_lua_budgets(void)
{
	char err[512];
	int line;
	qc_lval v;
	qc_lua *L = qc_lua_new(err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(L);
	static pool pl;
	pl.used = 0;
	qc_lua_set_budget(L, 100000000, 1e9);
	const char *expr =
	        "(function() local s = 0 for k = 1, 10000000 do s = s + 1 end return s end)()";
	/* ~20M instructions each: 100M run out within a few evaluations, not at the first */
	int k = 0;
	while (k < 10 &&
	       qc_lua_eval(L, expr, NULL, 0, pool_alloc, &pl, &v, err, sizeof err, &line) == 0)
		k++;
	CU_ASSERT(k >= 1 && k < 10);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "instruction budget of the spec exceeded"));
	CU_ASSERT(qc_lua_exhausted(L));
	/* once exhausted, even a cheap evaluation fails at once */
	CU_ASSERT_NOT_EQUAL(
	        qc_lua_eval(L, "1", NULL, 0, pool_alloc, &pl, &v, err, sizeof err, &line), 0);
	qc_lua_budget_reset(L);
	CU_ASSERT(!qc_lua_exhausted(L));
	CU_ASSERT_EQUAL(qc_lua_eval(L, "1", NULL, 0, pool_alloc, &pl, &v, err, sizeof err, &line),
	                0);
	/* the wall clock: table.move's C loop, charged but within a huge instruction budget */
	qc_lua_set_budget(L, UINT64_MAX, 0.5);
	qc_lua_budget_reset(L);
	const char *slow =
	        "(function() for i = 1, 5 do table.move({}, 1, 1e6, 1, {}) end return 1 end)()";
	int r = 0;
	double t0 = qct_now_s();
	for (int k = 0; k < 1000 && r == 0; k++)
		r = qc_lua_eval(L, slow, NULL, 0, pool_alloc, &pl, &v, err, sizeof err, &line);
	CU_ASSERT_NOT_EQUAL(r, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "time limit of the spec exceeded (0.5 s of Lua"));
	CU_ASSERT(qct_now_s() - t0 < HANG_SECONDS);
	qc_lua_free(L);
}

/* The fuzz target's entry point: a spec from memory, the same checks as from a file. */
static void test_load_text(void)
{
	qc_diag diag = {0, 0, stderr};
	buf b = {0};
	bprintf(&b, "%s", BASE);
	qc_spec *s = qc_spec_load_text("mem/x.yaml", b.s, b.n, &diag);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(s->id, "onnx/x");
	CU_ASSERT_EQUAL(qc_cases_count(s), 1);
	qc_spec_free(s);
	free(b.s);
	FILE *devnull = fopen("/dev/null", "w");
	qc_diag quiet = {0, 0, devnull};
	char *bomb = gen_alias_bomb();
	buf t = {0};
	bprintf(&t, "%s%s", BASE, bomb);
	CU_ASSERT_PTR_NULL(qc_spec_load_text("mem/x.yaml", t.s, t.n, &quiet));
	CU_ASSERT_EQUAL(quiet.errors, 1);
	fclose(devnull);
	free(bomb);
	free(t.s);
}

/* A directory of specs holding an empty directory: the empty one adds nothing (and is walked
 * with no list to sort: qsort(NULL, 0) is undefined, which the sanitizer pass reports). */
static void test_empty_directory(void)
{
	const char *tmp = qct_tmpdir();
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "mkdir -p '%s/specs/empty' && cp specs/litert/dequantize.yaml "
	                             "'%s/specs/' && %s validate '%s/specs'",
	                             tmp, tmp, qct_build_path("qconform"), tmp),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "\n  validate: status %d, stderr %s", p.status, p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

void qct_register_spec_limits(void)
{
	CU_pSuite s = qct_suite("spec_limits");
	CU_add_test(s, "hostile specs: exit 2, file:line:col, in bounded time", test_table);
	CU_add_test(s, "100,000 explicit cases validate in seconds", test_many_cases);
	CU_add_test(s, "an empty directory among the specs", test_empty_directory);
	CU_add_test(s, "a file reached twice is loaded once", test_file_once);
	CU_add_test(s, "a waiver file that is a FIFO", test_waivers_fifo);
	CU_add_test(s, "spec-wide Lua budgets: instructions, wall clock", test_lua_budgets);
	CU_add_test(s, "a spec from memory", test_load_text);
}
