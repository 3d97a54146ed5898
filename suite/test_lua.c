/* Tests for harness/src/spec/slua.c, slua_sandbox.c and slua_qclib.c: the sandbox, its limits,
 * values, generators, checks, qc. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "qct.h"
#include "spec/slua.h"

/* ---- helpers --------------------------------------------------------------- */

/* Result memory: every block is remembered and freed at the end of a test. */
typedef struct arena {
	void **blocks;
	size_t n, cap;
} arena;

static void *arena_alloc(void *ctx, size_t n)
{
	arena *a = ctx;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		void **b = realloc(a->blocks, cap * sizeof *b);
		if (!b)
			return NULL;
		a->blocks = b;
		a->cap = cap;
	}
	void *p = calloc(1, n);
	if (p)
		a->blocks[a->n++] = p;
	return p;
}

static void arena_free(arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->blocks[i]);
	free(a->blocks);
	memset(a, 0, sizeof *a);
}

static arena A;
static char err[512];
static int line;

static qc_lua *new_state(void)
{
	char e[256] = "";
	qc_lua *L = qc_lua_new(e, sizeof e);
	if (!L)
		fprintf(stderr, "qc_lua_new: %s\n", e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(L);
	return L;
}

static int eval_b(qc_lua *L, const char *expr, const qc_lbind *b, int nb, qc_lval *out)
{
	err[0] = 0;
	line = -1;
	return qc_lua_eval(L, expr, b, nb, arena_alloc, &A, out, err, sizeof err, &line);
}

static int eval(qc_lua *L, const char *expr, qc_lval *out)
{
	return eval_b(L, expr, NULL, 0, out);
}

/* expr must evaluate to true */
#define EXPECT_TRUE(L, expr)                                                                       \
	do {                                                                                       \
		qc_lval v_;                                                                        \
		int r_ = eval(L, expr, &v_);                                                       \
		if (r_ != 0)                                                                       \
			fprintf(stderr, "\n%s: %s\n", expr, err);                                  \
		CU_ASSERT_EQUAL(r_, 0);                                                            \
		CU_ASSERT(v_.kind == QC_LV_BOOL && v_.b == 1);                                     \
	} while (0)

/* expr must fail with a message containing want, at chunk line want_line */
#define EXPECT_ERROR(L, expr, want, want_line)                                                     \
	do {                                                                                       \
		qc_lval v_;                                                                        \
		int r_ = eval(L, expr, &v_);                                                       \
		CU_ASSERT_EQUAL(r_, -1);                                                           \
		if (!strstr(err, want))                                                            \
			fprintf(stderr, "\n%s: got '%s', want '%s'\n", expr, err, want);           \
		CU_ASSERT_PTR_NOT_NULL(strstr(err, want));                                         \
		if (line != want_line)                                                             \
			fprintf(stderr, "\n%s: line %d, want %d (%s)\n", expr, line, want_line,    \
			        err);                                                              \
		CU_ASSERT_EQUAL(line, want_line);                                                  \
	} while (0)

static int gen(qc_lua *L, const char *chunk, const qc_lbind *b, int nb, const int64_t *shape,
               int rank, qc_rng *rng, double *v, size_t n)
{
	err[0] = 0;
	line = -1;
	return qc_lua_generate(L, chunk, b, nb, shape, rank, rng, v, n, err, sizeof err, &line);
}

static void expect_ok_int(qc_lua *L, const char *expr, int64_t want)
{
	qc_lval v;
	int r = eval(L, expr, &v);
	if (r)
		fprintf(stderr, "\n%s: %s\n", expr, err);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(v.kind, QC_LV_INT);
	CU_ASSERT_EQUAL(v.i, want);
}

static void expect_ok_str(qc_lua *L, const char *expr, const char *want)
{
	qc_lval v;
	int r = eval(L, expr, &v);
	if (r)
		fprintf(stderr, "\n%s: %s\n", expr, err);
	CU_ASSERT_EQUAL_FATAL(r, 0);
	CU_ASSERT_EQUAL_FATAL(v.kind, QC_LV_STR);
	if (strcmp(v.str, want) != 0)
		fprintf(stderr, "\n%s: got '%s', want '%s'\n", expr, v.str, want);
	CU_ASSERT_STRING_EQUAL(v.str, want);
}

static void expect_list_nums(const qc_lval *v, const double *want, size_t n)
{
	CU_ASSERT_EQUAL_FATAL(v->kind, QC_LV_LIST);
	CU_ASSERT_EQUAL_FATAL(v->n, n);
	for (size_t i = 0; i < n; i++) {
		double got =
		        v->items[i].kind == QC_LV_INT ? (double)v->items[i].i : v->items[i].num;
		CU_ASSERT(v->items[i].kind == QC_LV_INT || v->items[i].kind == QC_LV_NUM);
		CU_ASSERT_EQUAL(got, want[i]);
	}
}

static int list_has(const qc_lval *v, double x)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->items[i].kind == QC_LV_NUM && v->items[i].num == x)
			return 1;
	return 0;
}

/* ---- the sandbox ----------------------------------------------------------- */

static void test_escapes(void)
{
	qc_lua *L = new_state();
	static const struct {
		const char *expr, *want;
	} esc[] = {
	        {"os.execute('true')", "global 'os'"},
	        {"io.open('/etc/passwd')", "global 'io'"},
	        {"require('os')", "global 'require'"},
	        {"string.dump(print)", "field 'dump'"},
	        {"string.dump(function() end)", "field 'dump'"},
	        {"(''):dump()", "method 'dump'"},
	        {"('').dump(function() end)", "field 'dump'"},
	        {"getmetatable('').__index.dump(function() end)", "field 'dump'"},
	        {"load('return 1')", "global 'load'"},
	        {"loadfile('/etc/passwd')", "global 'loadfile'"},
	        {"dofile('/etc/passwd')", "global 'dofile'"},
	        {"debug.getinfo(1)", "global 'debug'"},
	        {"package.loaded", "global 'package'"},
	        {"collectgarbage('count')", "global 'collectgarbage'"},
	        {"print('x')", "global 'print'"},
	        {"coroutine.create(function() end)", "global 'coroutine'"},
	        {"math.random(1, 6)", "field 'random'"},
	        {"math.randomseed(1)", "field 'randomseed'"},
	        {"_G.os.execute('true')", "field 'os'"},
	        {"_ENV.io.open('/etc/passwd')", "'io'"},
	};
	for (size_t i = 0; i < sizeof esc / sizeof esc[0]; i++)
		EXPECT_ERROR(L, esc[i].expr, esc[i].want, 1);
	/* nil everywhere, also behind the string metatable */
	EXPECT_TRUE(L, "os == nil and io == nil and package == nil and debug == nil and "
	               "coroutine == nil and require == nil and load == nil and loadfile == nil "
	               "and dofile == nil and collectgarbage == nil and print == nil");
	EXPECT_TRUE(L, "string.dump == nil and ('').dump == nil and math.random == nil and "
	               "math.randomseed == nil");
	/* no pattern matching: its backtracking runs in C, out of the instruction count's reach */
	EXPECT_TRUE(L, "string.find == nil and string.match == nil and string.gmatch == nil and "
	               "string.gsub == nil and ('').find == nil");
	EXPECT_TRUE(L, "getmetatable('').__index.dump == nil and "
	               "getmetatable('').__index.rep == string.rep");
	EXPECT_TRUE(L, "(function() for k in pairs(_G) do if k ~= '_G' then return false end end "
	               "return true end)()");
	/* the line of a multi-line chunk */
	double v[1];
	CU_ASSERT_EQUAL(gen(L, "local x = 1\nlocal y = 2\nreturn os.execute('true')", NULL, 0, NULL,
	                    0, NULL, v, 1),
	                -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "global 'os'"));
	CU_ASSERT_EQUAL(line, 3);
	qc_lua_free(L);
	arena_free(&A);
}

static void test_isolation(void)
{
	qc_lua *L = new_state();
	qc_lval v;
	/* a script's globals live in its own environment */
	expect_ok_int(L, "(function() x = 5 return x end)()", 5);
	CU_ASSERT_EQUAL(eval(L, "x", &v), 0);
	CU_ASSERT_EQUAL(v.kind, QC_LV_NIL);
	expect_ok_int(L, "(function() _G.y = 7 return y end)()", 7);
	CU_ASSERT_EQUAL(eval(L, "y", &v), 0);
	CU_ASSERT_EQUAL(v.kind, QC_LV_NIL);
	/* the libraries are read-only views */
	EXPECT_ERROR(L, "(function() string.rep = nil end)()", "read-only", 1);
	EXPECT_ERROR(L, "(function() math.pi = 3 end)()", "read-only", 1);
	EXPECT_ERROR(L, "(function() qc.f32 = nil end)()", "read-only", 1);
	EXPECT_ERROR(L, "rawset(math, 'pi', 3)", "read-only", 1);
	EXPECT_ERROR(L, "rawset(getmetatable(''), '__index', {})", "read-only", 1);
	EXPECT_ERROR(L, "(function() getmetatable('').__index = nil end)()", "read-only", 1);
	EXPECT_ERROR(L, "setmetatable(string, {})", "protected metatable", 1);
	EXPECT_ERROR(L, "setmetatable(_ENV, {})", "protected metatable", 1);
	EXPECT_TRUE(L, "getmetatable(_ENV) == false and getmetatable(math) == false");
	EXPECT_TRUE(L, "math.pi > 3.14 and math.pi < 3.15 and ('ab'):rep(2) == 'abab'");
	EXPECT_TRUE(L, "(function() local n = 0 for k, f in pairs(math) do n = n + 1 end "
	               "return n > 20 end)()");
	/* no finalizers, no weak tables */
	EXPECT_ERROR(L, "setmetatable({}, {__gc = function() end})", "__gc is not allowed", 1);
	EXPECT_ERROR(L, "setmetatable({}, {__mode = 'k'})", "__mode is not allowed", 1);
	EXPECT_TRUE(L, "getmetatable(setmetatable({}, {__index = {a = 1}})).__index.a == 1");
	qc_lua_free(L);
	arena_free(&A);
}

static void test_determinism(void)
{
	qc_lua *L = new_state();
	/* pairs and next: numbers, then strings in byte order, then booleans */
	expect_ok_str(L,
	              "(function() local t = {} for _, k in ipairs{'d', 'b', 'h', 'a', 'c', 'g', "
	              "'e', 'f', 'B'} do t[k] = true end t[3] = 1 t[1.5] = 2 t[-7] = 3 t[true] = 4 "
	              "local s = {} for k in pairs(t) do s[#s + 1] = tostring(k) end "
	              "return table.concat(s, ',') end)()",
	              "-7,1.5,3,B,a,b,c,d,e,f,g,h,true");
	expect_ok_str(L,
	              "(function() local t = {zz = 1, ab = 2, b = 3, a = 4} local s, k = {}, nil "
	              "repeat k = next(t, k) s[#s + 1] = k until k == nil "
	              "return table.concat(s, ',') end)()",
	              "a,ab,b,zz");
	EXPECT_TRUE(L, "next({}) == nil and select(2, next({x = 5})) == 5");
	EXPECT_TRUE(L, "(function() local f = pairs({a = 1, b = 2}) return f(5) == 'a' and "
	               "f(nil, 'zz') == 'b' and f() == nil end)()");
	EXPECT_ERROR(L, "(function() for k in pairs({[{}] = 1}) do end end)()",
	             "no deterministic order", 1);
	/* no addresses */
	EXPECT_TRUE(L, "tostring({}) == 'table' and tostring(print == nil) == 'true' and "
	               "tostring(tostring) == 'function' and tostring(1.5) == '1.5'");
	EXPECT_TRUE(L, "string.format('%s|%5.2f|%d', {}, 1.5, 3) == 'table| 1.50|3'");
	EXPECT_TRUE(L, "tostring(setmetatable({}, {__tostring = function() return 'me' end})) "
	               "== 'me'");
	EXPECT_ERROR(L, "string.format('%p', {})", "%p", 1);
	EXPECT_ERROR(L, "('%-5p'):format('x')", "%p", 1);
	/* table.sort is stable */
	expect_ok_str(L,
	              "(function() local t = {} for i = 1, 300 do t[i] = {k = i % 3, v = i} end "
	              "table.sort(t, function(a, b) return a.k < b.k end) "
	              "for i = 2, 300 do local a, b = t[i - 1], t[i] "
	              "if a.k > b.k or (a.k == b.k and a.v > b.v) then return 'unstable' end end "
	              "return 'stable' end)()",
	              "stable");
	expect_ok_str(L,
	              "(function() local t = {5, 3, 9, 1, 7, 2, 8} table.sort(t) "
	              "return table.concat(t, ' ') end)()",
	              "1 2 3 5 7 8 9");
	expect_ok_str(L,
	              "(function() local t = {'b', 'c', 'a'} table.sort(t, function(x, y) "
	              "return x > y end) return table.concat(t) end)()",
	              "cba");
	/* C loops the hook cannot interrupt are bounded */
	EXPECT_TRUE(L, "string.rep('', 2^60) == '' and ('x'):rep(3, '') == 'xxx' and "
	               "string.rep('', 5, '') == ''");
	EXPECT_ERROR(L, "table.move({}, 1, 2^40, 2)", "more than", 1);
	EXPECT_TRUE(L, "table.move({1, 2, 3}, 1, 3, 2)[4] == 3");
	qc_lua_free(L);
	arena_free(&A);
}

static void test_instruction_limit(void)
{
	qc_lua *L = new_state();
	double v[1];
	CU_ASSERT_EQUAL(
	        gen(L, "local n = 0\nwhile true do n = n + 1 end", NULL, 0, NULL, 0, NULL, v, 1),
	        -1);
	CU_ASSERT_STRING_EQUAL(err, "instruction limit exceeded (50000000 instructions): "
	                            "endless loop?");
	CU_ASSERT_EQUAL(line, 2);
	/* pcall cannot catch it */
	EXPECT_ERROR(L,
	             "(function() while true do pcall(function() while true do end end) end end)()",
	             "instruction limit exceeded", 1);
	EXPECT_ERROR(L,
	             "select(2, xpcall(function() while true do end end, function(m) "
	             "return m end))",
	             "instruction limit exceeded", 1);
	/* the budget is per evaluation: 30M instructions twice is fine */
	for (int k = 0; k < 2; k++)
		expect_ok_int(L,
		              "(function() local s = 0 for i = 1, 15000000 do s = s + 1 end "
		              "return s end)()",
		              15000000);
	/* and per whole tensor for a generator: 200k calls of ~400 instructions */
	static double big[200000];
	CU_ASSERT_EQUAL(gen(L,
	                    "return function(i)\n local s = 0\n for k = 1, 200 do s = s + k end\n "
	                    "return s\nend",
	                    NULL, 0, NULL, 0, NULL, big, 200000),
	                -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "instruction limit exceeded"));
	CU_ASSERT(line >= 3 && line <= 4);
	expect_ok_int(L, "1 + 1", 2);
	qc_lua_free(L);
	arena_free(&A);
}

static void test_memory_limit(void)
{
	qc_lua *L = new_state();
	const char *mem = "Lua memory limit of 64 MiB exceeded";
	qc_lval v;
	static const char *const hogs[] = {
	        "string.rep('x', 10 * 2^30)",
	        "('x'):rep(10 * 2^30)",
	        "(function() local t, i = {}, 0 while true do i = i + 1 t[i] = i end end)()",
	        "(function() local s = 'x' while true do s = s .. s end end)()",
	        "(function() local t = {} for i = 1, 1e9 do t[#t + 1] = {i} end end)()",
	        "pcall(string.rep, 'x', 2^40)",
	        "string.rep('x', 2^30)",
	        "table.concat({string.rep('x', 2^25), string.rep('x', 2^25)})",
	        "(function() local t = {} for i = 1, 30 do t[i] = string.rep(i, 2^21) end "
	        "return #table.concat(t) end)()",
	        "select(2, pcall(function() local s = 'x' while true do s = s .. s end end))",
	};
	for (size_t i = 0; i < sizeof hogs / sizeof hogs[0]; i++) {
		int r = eval(L, hogs[i], &v);
		CU_ASSERT_EQUAL(r, -1);
		if (strcmp(err, mem) != 0)
			fprintf(stderr, "\n%s: %s\n", hogs[i], err);
		CU_ASSERT_STRING_EQUAL(err, mem);
		/* still usable, with its memory back */
		expect_ok_int(L, "#string.rep('x', 2^24) + 1", (1 << 24) + 1);
	}
	double g[4];
	CU_ASSERT_EQUAL(gen(L, "local t = {}\nlocal i = 0\nwhile true do i = i + 1; t[i] = i end",
	                    NULL, 0, NULL, 0, NULL, g, 4),
	                -1);
	CU_ASSERT_STRING_EQUAL(err, mem);
	expect_ok_int(L, "6 * 7", 42);
	qc_lua_free(L);
	arena_free(&A);
}

static void test_recursion(void)
{
	qc_lua *L = new_state();
	EXPECT_ERROR(L,
	             "(function() local function f(n) return f(n + 1) + 1 end return f(1) end)()",
	             "stack overflow", 1);
	expect_ok_int(L, "2 + 2", 4);
	EXPECT_ERROR(L,
	             "(function() local t = setmetatable({}, {__index = function(t, k) "
	             "return t[k] end}) return t.x end)()",
	             "stack overflow", 1);
	EXPECT_ERROR(L,
	             "(function() local function f() table.sort({2, 1}, function() return f() end) "
	             "end return f() end)()",
	             "stack overflow", 1);
	expect_ok_int(L, "3 + 2", 5);
	qc_lua_free(L);
	arena_free(&A);
}

static void test_error_lines(void)
{
	qc_lua *L = new_state();
	double v[4];
	/* an error in the chunk's 3rd line */
	CU_ASSERT_EQUAL(gen(L, "local a = 1\nlocal b = 2\nlocal c = nil + a\nreturn function() end",
	                    NULL, 0, NULL, 0, NULL, v, 4),
	                -1);
	CU_ASSERT_EQUAL(line, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "arithmetic on a nil value"));
	CU_ASSERT_PTR_NULL(strstr(err, "generator:"));
	/* in the generator function's 3rd line, on its first element */
	CU_ASSERT_EQUAL(
	        gen(L,
	            "return function(i, shape, rng)\n  local x = i + 10\n  error('boom at ' "
	            ".. x)\nend",
	            NULL, 0, NULL, 0, NULL, v, 4),
	        -1);
	CU_ASSERT_EQUAL(line, 3);
	CU_ASSERT_STRING_EQUAL(err, "boom at 10");
	/* a syntax error */
	CU_ASSERT_EQUAL(gen(L, "local x = 1\n\nlocal = 2\n", NULL, 0, NULL, 0, NULL, v, 4), -1);
	CU_ASSERT_EQUAL(line, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "near '='"));
	/* error without a position: the line of the innermost Lua function */
	CU_ASSERT_EQUAL(gen(L, "\nerror('plain', 0)", NULL, 0, NULL, 0, NULL, v, 4), -1);
	CU_ASSERT_EQUAL(line, 2);
	CU_ASSERT_STRING_EQUAL(err, "plain");
	/* raised inside a library function */
	CU_ASSERT_EQUAL(
	        gen(L, "local t = {3, 1, {}}\n\ntable.sort(t)", NULL, 0, NULL, 0, NULL, v, 4), -1);
	CU_ASSERT_EQUAL(line, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "attempt to compare"));
	CU_ASSERT_EQUAL(
	        gen(L, "local x\nx = string.format('%d', 'a')", NULL, 0, NULL, 0, NULL, v, 4), -1);
	CU_ASSERT_EQUAL(line, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad argument #2 to 'format'"));
	/* not a string: no line */
	CU_ASSERT_EQUAL(gen(L, "error({})", NULL, 0, NULL, 0, NULL, v, 4), -1);
	CU_ASSERT_STRING_EQUAL(err, "error (the error object is a table)");
	CU_ASSERT_EQUAL(line, 0);
	EXPECT_ERROR(L, "1 +", "unexpected symbol near <eof>", 1);
	EXPECT_ERROR(L, "qc.sizes('huge')", "qc.sizes: unknown kind 'huge'", 1);
	EXPECT_ERROR(L, "x.y", "attempt to index a nil value (global 'x')", 1);
	/* a multi-line expression */
	EXPECT_ERROR(L, "1 +\n2 +\nnil", "arithmetic on a nil value", 2);
	qc_lua_free(L);
	arena_free(&A);
}

/* ---- values ---------------------------------------------------------------- */

static void test_values_in(void)
{
	qc_lua *L = new_state();
	qc_lval inner[1] = {{.kind = QC_LV_STR, .str = "a"}};
	qc_lval xs[3] = {{.kind = QC_LV_INT, .i = 1},
	                 {.kind = QC_LV_NUM, .num = 2.5},
	                 {.kind = QC_LV_LIST, .n = 1, .items = inner}};
	qc_lval x = {.kind = QC_LV_LIST, .n = 3, .items = xs};
	const char *mk[2] = {"a", "b"};
	qc_lval mv[2] = {{.kind = QC_LV_INT, .i = 1}, {.kind = QC_LV_STR, .str = "s"}};
	qc_lval m = {.kind = QC_LV_MAP, .n = 2, .items = mv, .keys = mk};
	qc_lval i = {.kind = QC_LV_INT, .i = 7}, f = {.kind = QC_LV_NUM, .num = 7.0};
	qc_lval s = {.kind = QC_LV_STR, .str = "hi"}, t = {.kind = QC_LV_BOOL, .b = 1};
	qc_lval n = {.kind = QC_LV_NIL};
	qc_lbind b[] = {{"x", &x}, {"m", &m}, {"i", &i}, {"f", &f},
	                {"s", &s}, {"t", &t}, {"n", &n}};
	static const char *const truths[] = {
	        "math.type(i) == 'integer' and math.type(f) == 'float' and i == f",
	        "#x == 3 and x[1] == 1 and math.type(x[1]) == 'integer' and x[2] == 2.5",
	        "x[3][1] == 'a' and #x[3] == 1",
	        "m.a == 1 and m.b == 's' and m.c == nil",
	        "s .. '!' == 'hi!' and t == true and n == nil",
	};
	qc_lval v;
	for (size_t k = 0; k < sizeof truths / sizeof truths[0]; k++) {
		CU_ASSERT_EQUAL(eval_b(L, truths[k], b, 7, &v), 0);
		CU_ASSERT(v.kind == QC_LV_BOOL && v.b == 1);
	}
	/* a binding comes back unchanged */
	CU_ASSERT_EQUAL_FATAL(eval_b(L, "m", b, 7, &v), 0);
	CU_ASSERT_EQUAL_FATAL(v.kind, QC_LV_MAP);
	CU_ASSERT_EQUAL_FATAL(v.n, 2);
	CU_ASSERT_STRING_EQUAL(v.keys[0], "a");
	CU_ASSERT_STRING_EQUAL(v.keys[1], "b");
	CU_ASSERT_STRING_EQUAL(v.items[1].str, "s");
	CU_ASSERT(v.items[1].str != mv[1].str); /* copied into the caller's memory */
	/* the same expression with other bindings: the cache does not keep values */
	qc_lval s1 = {.kind = QC_LV_INT, .i = 1}, s3 = {.kind = QC_LV_NUM, .num = 1.25};
	qc_lbind b1[] = {{"scale", &s1}}, b3[] = {{"scale", &s3}};
	CU_ASSERT_EQUAL(eval_b(L, "scale * 2", b1, 1, &v), 0);
	CU_ASSERT(v.kind == QC_LV_INT && v.i == 2);
	CU_ASSERT_EQUAL(eval_b(L, "scale * 2", b3, 1, &v), 0);
	CU_ASSERT(v.kind == QC_LV_NUM && v.num == 2.5);
	CU_ASSERT_EQUAL(eval(L, "scale", &v), 0);
	CU_ASSERT_EQUAL(v.kind, QC_LV_NIL);
	qc_lua_free(L);
	arena_free(&A);
}

static void test_values_out(void)
{
	qc_lua *L = new_state();
	qc_lval v;
	CU_ASSERT_EQUAL_FATAL(eval(L,
	                           "{b = 1, a = {1, 2.5, 'x', true}, B = 'z', ab = {}, "
	                           "['a b'] = {k = {}}}",
	                           &v),
	                      0);
	CU_ASSERT_EQUAL_FATAL(v.kind, QC_LV_MAP);
	CU_ASSERT_EQUAL_FATAL(v.n, 5);
	static const char *const keys[] = {"B", "a", "a b", "ab", "b"};
	for (int i = 0; i < 5; i++)
		CU_ASSERT_STRING_EQUAL(v.keys[i], keys[i]);
	CU_ASSERT(v.items[0].kind == QC_LV_STR && strcmp(v.items[0].str, "z") == 0);
	const qc_lval *a = &v.items[1];
	CU_ASSERT_EQUAL_FATAL(a->kind, QC_LV_LIST);
	CU_ASSERT_EQUAL_FATAL(a->n, 4);
	CU_ASSERT(a->items[0].kind == QC_LV_INT && a->items[0].i == 1);
	CU_ASSERT(a->items[1].kind == QC_LV_NUM && a->items[1].num == 2.5);
	CU_ASSERT(a->items[2].kind == QC_LV_STR && strcmp(a->items[2].str, "x") == 0);
	CU_ASSERT(a->items[3].kind == QC_LV_BOOL && a->items[3].b == 1);
	CU_ASSERT(v.items[2].kind == QC_LV_MAP && v.items[2].n == 1);
	CU_ASSERT(v.items[2].items[0].kind == QC_LV_LIST && v.items[2].items[0].n == 0);
	CU_ASSERT(v.items[3].kind == QC_LV_LIST && v.items[3].n == 0); /* {} is an empty list */
	CU_ASSERT(v.items[4].kind == QC_LV_INT && v.items[4].i == 1);
	/* integers stay integers, floats stay floats */
	static const struct {
		const char *e;
		qc_lv_kind k;
		double x;
	} sc[] = {{"3", QC_LV_INT, 3},
	          {"3.0", QC_LV_NUM, 3},
	          {"2^2", QC_LV_NUM, 4},
	          {"7 // 2", QC_LV_INT, 3},
	          {"7 / 2", QC_LV_NUM, 3.5},
	          {"-0x10", QC_LV_INT, -16},
	          {"1e300 * 1e10", QC_LV_NUM, INFINITY}};
	for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
		CU_ASSERT_EQUAL(eval(L, sc[i].e, &v), 0);
		CU_ASSERT_EQUAL(v.kind, sc[i].k);
		CU_ASSERT_EQUAL(v.kind == QC_LV_INT ? (double)v.i : v.num, sc[i].x);
	}
	CU_ASSERT_EQUAL(eval(L, "math.maxinteger", &v), 0);
	CU_ASSERT(v.kind == QC_LV_INT && v.i == INT64_MAX);
	CU_ASSERT_EQUAL(eval(L, "nil", &v), 0);
	CU_ASSERT_EQUAL(v.kind, QC_LV_NIL);
	CU_ASSERT_EQUAL(eval(L, "false", &v), 0);
	CU_ASSERT(v.kind == QC_LV_BOOL && v.b == 0);
	CU_ASSERT_EQUAL(eval(L, "'caf\\u{E9}'", &v), 0);
	CU_ASSERT(v.kind == QC_LV_STR && strcmp(v.str, "caf\xc3\xa9") == 0);
	CU_ASSERT_EQUAL(eval(L, "0/0", &v), 0);
	CU_ASSERT(v.kind == QC_LV_NUM && isnan(v.num));
	/* rejected */
	EXPECT_ERROR(L, "function() end", "cannot use a function as a spec value", 0);
	EXPECT_ERROR(L, "{1, math.floor}", "cannot use a function as a spec value", 0);
	EXPECT_ERROR(L, "{1, 2, x = 3}", "a table must be a list or have string keys", 0);
	EXPECT_ERROR(L, "{[1] = 1, [3] = 3}", "a table must be a list or have string keys", 0);
	EXPECT_ERROR(L, "{[0] = 1}", "a table must be a list or have string keys", 0);
	EXPECT_ERROR(L, "{[1.5] = 1}", "a table must be a list or have string keys", 0);
	EXPECT_ERROR(L, "{[true] = 1}", "a table must be a list or have string keys", 0);
	EXPECT_ERROR(L, "(function() local t = {} t[1] = t return t end)()",
	             "nested deeper than 32", 0);
	EXPECT_ERROR(L, "'a\\0b'", "NUL byte", 0);
	EXPECT_ERROR(L,
	             "(function() local t = {} for i = 1, 5000 do t[i] = i end local u = {} "
	             "for i = 1, 5000 do u[i] = t end return u end)()",
	             "more than 16777216 items", 0);
	qc_lua_free(L);
	arena_free(&A);
}

/* ---- generators and checks ------------------------------------------------- */

static const char *mixed_gen = "-- one draw of each kind\n"
                               "return function(i, shape, rng)\n"
                               "  if i % 3 == 0 then return rng:uniform(-1, 1)\n"
                               "  elseif i % 3 == 1 then return rng:int(-5, 5)\n"
                               "  else return rng:normal(0, 2) end\n"
                               "end\n";

static void test_generate(void)
{
	qc_lua *L = new_state();
	enum { N = 300 };
	static double v1[N], v2[N];
	qc_rng r1, r2, r3;
	qc_rng_seed(&r1, 42);
	qc_rng_seed(&r2, 42);
	qc_rng_seed(&r3, 42);
	int64_t shape[2] = {3, 100};
	CU_ASSERT_EQUAL_FATAL(gen(L, mixed_gen, NULL, 0, shape, 2, &r1, v1, N), 0);
	CU_ASSERT_EQUAL_FATAL(gen(L, mixed_gen, NULL, 0, shape, 2, &r2, v2, N), 0);
	CU_ASSERT_EQUAL(memcmp(v1, v2, sizeof v1), 0);
	/* exactly the rng's draws, in order, and nothing else */
	int same = 1;
	for (int i = 0; i < N; i++) {
		double want = i % 3 == 0   ? -1 + 2 * qc_rng_uniform01(&r3)
		              : i % 3 == 1 ? (double)qc_rng_uniform_int(&r3, -5, 5)
		                           : qc_rng_normal(&r3, 0, 2);
		same &= v1[i] == want;
	}
	CU_ASSERT(same);
	CU_ASSERT_EQUAL(memcmp(&r1, &r3, sizeof r1), 0);
	/* another seed, other values */
	qc_rng_seed(&r2, 43);
	CU_ASSERT_EQUAL(gen(L, mixed_gen, NULL, 0, shape, 2, &r2, v2, N), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(v1, v2, sizeof v1), 0);
	/* shape, index and bindings; no draw when the rng is not used */
	qc_lval b = {.kind = QC_LV_INT, .i = 1000};
	qc_lbind bs[] = {{"base", &b}};
	qc_rng_seed(&r1, 7);
	r2 = r1;
	CU_ASSERT_EQUAL_FATAL(gen(L,
	                          "local k = 2\nreturn function(i, shape)\n  return base + i * k + "
	                          "#shape * 0.5 + shape[2] / 1000\nend",
	                          bs, 1, shape, 2, &r1, v1, 5),
	                      0);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(v1[i], 1000 + i * 2 + 1.0 + 0.1);
	CU_ASSERT_EQUAL(memcmp(&r1, &r2, sizeof r1), 0);
	/* errors */
	CU_ASSERT_EQUAL(gen(L, "return function(i)\n  if i < 5 then return i end\nend", NULL, 0,
	                    shape, 2, &r1, v1, 10),
	                -1);
	CU_ASSERT_STRING_EQUAL(err, "generator returned a nil for element 5");
	CU_ASSERT_EQUAL(line, 1);
	CU_ASSERT_EQUAL(gen(L, "local x = 1\nreturn function(i) return tostring(i) end", NULL, 0,
	                    shape, 2, &r1, v1, 10),
	                -1);
	CU_ASSERT_STRING_EQUAL(err, "generator returned a string for element 0");
	CU_ASSERT_EQUAL(line, 2);
	CU_ASSERT_EQUAL(gen(L, "return 5", NULL, 0, shape, 2, &r1, v1, 10), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "must return a function (it returned a number)"));
	CU_ASSERT_EQUAL(gen(L, "return function(i, s, rng) return rng.uniform(1, 2) end", NULL, 0,
	                    shape, 2, &r1, v1, 10),
	                -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad argument #1 to 'uniform'"));
	CU_ASSERT_EQUAL(gen(L,
	                    "return function(i, s, rng) return getmetatable(rng) == false and "
	                    "tostring(rng) == 'userdata' and 1 or 0 end",
	                    NULL, 0, shape, 2, &r1, v1, 1),
	                0);
	CU_ASSERT_EQUAL(v1[0], 1);
	qc_lua_free(L);
	arena_free(&A);
}

static int check(qc_lua *L, const char *chunk, const double *e, const double *x, const double *g,
                 size_t n, int *ok, char *why, size_t why_size)
{
	err[0] = 0;
	line = -1;
	return qc_lua_check(L, chunk, e, x, g, n, ok, why, why_size, err, sizeof err, &line);
}

static void test_check(void)
{
	qc_lua *L = new_state();
	const char *c = "return function(e, expected, got)\n"
	                "  for i = 1, #e do\n"
	                "    if math.abs(e[i]) > 1 then\n"
	                "      return false, string.format('element %d off by %g', i, e[i])\n"
	                "    end\n"
	                "  end\n"
	                "  return true\n"
	                "end\n";
	double e1[3] = {0, 1, -1}, e2[3] = {0, 3, 0}, x[3] = {10, 20, 30}, g[3] = {10, 23, 31};
	int ok = -1;
	char why[128];
	CU_ASSERT_EQUAL(check(L, c, e1, x, g, 3, &ok, why, sizeof why), 0);
	CU_ASSERT_EQUAL(ok, 1);
	CU_ASSERT_EQUAL(check(L, c, e2, x, g, 3, &ok, why, sizeof why), 0);
	CU_ASSERT_EQUAL(ok, 0);
	CU_ASSERT_STRING_EQUAL(why, "element 2 off by 3");
	CU_ASSERT_EQUAL(check(L,
	                      "return function(e, x, g) return #x == 3 and x[2] == 20 and g[3] == "
	                      "31 and #e == 3 end",
	                      e1, x, g, 3, &ok, why, sizeof why),
	                0);
	CU_ASSERT_EQUAL(ok, 1);
	CU_ASSERT_EQUAL(
	        check(L, "return function() return false end", e1, x, g, 3, &ok, why, sizeof why),
	        0);
	CU_ASSERT_EQUAL(ok, 0);
	CU_ASSERT_STRING_EQUAL(why, "custom check failed");
	CU_ASSERT_EQUAL(
	        check(L, "return function() return nil, 42 end", e1, x, g, 3, &ok, why, sizeof why),
	        0);
	CU_ASSERT_EQUAL(ok, 0);
	CU_ASSERT_STRING_EQUAL(why, "42");
	CU_ASSERT_EQUAL(
	        check(L, "\nreturn function() return 1 end", e1, x, g, 3, &ok, why, sizeof why),
	        -1);
	CU_ASSERT_STRING_EQUAL(err, "the check returned a number, not true, false or nil");
	CU_ASSERT_EQUAL(line, 2);
	CU_ASSERT_EQUAL(check(L, "return function(e)\n  return e[1].x\nend", e1, x, g, 3, &ok, why,
	                      sizeof why),
	                -1);
	CU_ASSERT_EQUAL(line, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "attempt to index a number value"));
	CU_ASSERT_EQUAL(ok, 0);
	CU_ASSERT_EQUAL(check(L, "return function() while true do end end", e1, x, g, 3, &ok, why,
	                      sizeof why),
	                -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "instruction limit exceeded"));
	qc_lua_free(L);
	arena_free(&A);
}

/* ---- the qc library -------------------------------------------------------- */

static void test_qc(void)
{
	qc_lua *L = new_state();
	qc_lval v;
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.sizes('vector', {empty = true})", &v), 0);
	static const double vec0[] = {0,  1,  2,  3,  5,  7,  8,  9,   15,  16,
	                              17, 31, 32, 33, 63, 64, 65, 127, 128, 129};
	expect_list_nums(&v, vec0, 20);
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.sizes('vector')", &v), 0);
	expect_list_nums(&v, vec0 + 1, 19);
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.sizes('small')", &v), 0);
	static const double small[] = {1, 2, 3, 4, 5, 6, 7, 8};
	expect_list_nums(&v, small, 8);
	EXPECT_ERROR(L, "qc.sizes('nope')", "unknown kind 'nope'", 1);

	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.primes(1, 20)", &v), 0);
	static const double p20[] = {2, 3, 5, 7, 11, 13, 17, 19};
	expect_list_nums(&v, p20, 8);
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.primes(90, 100)", &v), 0);
	static const double p97[] = {97};
	expect_list_nums(&v, p97, 1);
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.primes(2^31 - 20, 2^31 - 1)", &v), 0);
	CU_ASSERT_EQUAL_FATAL(v.kind, QC_LV_LIST);
	CU_ASSERT(v.n >= 1 && v.items[v.n - 1].i == 2147483647);
	EXPECT_TRUE(L, "#qc.primes(1, 100000) == 9592 and #qc.primes(20, 10) == 0");

	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.range(1, 10, 3)", &v), 0);
	static const double r1[] = {1, 4, 7, 10};
	expect_list_nums(&v, r1, 4);
	CU_ASSERT_EQUAL(v.items[0].kind, QC_LV_INT);
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.range(5, 1, -2)", &v), 0);
	static const double r2[] = {5, 3, 1};
	expect_list_nums(&v, r2, 3);
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.range(0, 1, 0.25)", &v), 0);
	static const double r3[] = {0, 0.25, 0.5, 0.75, 1};
	expect_list_nums(&v, r3, 5);
	CU_ASSERT_EQUAL(v.items[0].kind, QC_LV_NUM);
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.range(3, 5)", &v), 0);
	static const double r4[] = {3, 4, 5};
	expect_list_nums(&v, r4, 3);
	EXPECT_ERROR(L, "qc.range(1, 2, 0)", "step is 0", 1);
	EXPECT_ERROR(L, "qc.range(1, 2^40)", "more than", 1);
	EXPECT_ERROR(L, "qc.range(math.mininteger, math.maxinteger)", "more than", 1);
	EXPECT_ERROR(L, "qc.range(1e300, 1e300, 1)", "below the spacing", 1);

	CU_ASSERT_EQUAL(eval(L, "qc.f32(0.1)", &v), 0);
	CU_ASSERT(v.kind == QC_LV_NUM && v.num == 0x1.99999ap-4 && v.num == (double)0.1f);
	CU_ASSERT_DOUBLE_EQUAL(v.num, 0.100000001490116, 1e-15);
	EXPECT_TRUE(L, "qc.f32(1) == 1.0 and math.type(qc.f32(1)) == 'float' and "
	               "qc.f32(2^24 + 1) == 2^24 and qc.f32(1e39) == math.huge and "
	               "qc.f32(-1e39) == -math.huge and qc.f32(3.4028235e38) < math.huge");
	EXPECT_TRUE(
	        L, "qc.next32(1, 2) == 1 + 2^-23 and qc.next32(1, 0) == 1 - 2^-24 and "
	           "qc.next32(0.1, 1) == qc.f32(0.1) and qc.next32(0.1, 0) < 0.1 and "
	           "qc.next32(0, 1) == 2^-149 and qc.next32(math.huge, 0) == qc.f32(3.4028235e38)");

	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.multipliers('extreme')", &v), 0);
	CU_ASSERT_EQUAL_FATAL(v.kind, QC_LV_LIST);
	CU_ASSERT_EQUAL(v.n, 18);
	CU_ASSERT(list_has(&v, 0x1p-32));
	CU_ASSERT(list_has(&v, 0x1p-31));
	CU_ASSERT(list_has(&v, (double)(float)(0.99 * 0x1p-32)));
	CU_ASSERT(list_has(&v, 0.99999994039535522)); /* the float32 below 1 */
	CU_ASSERT(list_has(&v, 1.0000001192092896));
	CU_ASSERT(list_has(&v, 0x1p20));
	CU_ASSERT(list_has(&v, (double)1e-6f));
	for (size_t i = 0; i < v.n; i++)
		CU_ASSERT_EQUAL(v.items[i].num, (double)(float)v.items[i].num);
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.multipliers('near_one')", &v), 0);
	static const double near[] = {0x1.fffffep-2, 0.5, 0x1.000002p-1, 0x1.fffffep-1, 1,
	                              0x1.000002p0,  2,   0x1.fffffep0,  0x1.000002p1};
	CU_ASSERT_EQUAL_FATAL(v.n, 9);
	for (int i = 0; i < 9; i++)
		CU_ASSERT(list_has(&v, near[i]));
	EXPECT_ERROR(L, "qc.multipliers('big')", "unknown kind", 1);

	static const struct {
		const char *d;
		int64_t lo, hi;
	} qr[] = {{"int4", -8, 7},
	          {"uint4", 0, 15},
	          {"int8", -128, 127},
	          {"uint8", 0, 255},
	          {"int16", -32768, 32767},
	          {"uint16", 0, 65535},
	          {"int32", -2147483648LL, 2147483647}};
	for (size_t i = 0; i < sizeof qr / sizeof qr[0]; i++) {
		char e[64];
		snprintf(e, sizeof e, "{qc.qrange('%s')}", qr[i].d);
		CU_ASSERT_EQUAL_FATAL(eval(L, e, &v), 0);
		CU_ASSERT_EQUAL_FATAL(v.n, 2);
		CU_ASSERT(v.items[0].kind == QC_LV_INT && v.items[0].i == qr[i].lo);
		CU_ASSERT(v.items[1].kind == QC_LV_INT && v.items[1].i == qr[i].hi);
	}
	EXPECT_ERROR(L, "qc.qrange('int64')", "unknown dtype 'int64'", 1);
	qc_lua_free(L);
	arena_free(&A);
}

/* qc.requant_scales, qc.requant_acc, qc.spread: the Lua side of gen.h's requantization edges
 * (the numeric properties are tested in test_gen.c). */
static void test_qc_requant(void)
{
	qc_lua *L = new_state();
	qc_lval v;
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.requant_scales('round_up', {n = 2, mult = 2^-10})", &v),
	                      0);
	CU_ASSERT_EQUAL_FATAL(v.kind, QC_LV_LIST);
	CU_ASSERT_EQUAL_FATAL(v.n, 2);
	for (size_t i = 0; i < v.n; i++) {
		const qc_lval *t = &v.items[i];
		CU_ASSERT_EQUAL_FATAL(t->kind, QC_LV_MAP);
		CU_ASSERT_EQUAL_FATAL(t->n, 5); /* multiplier, s_in, s_out, s_w, shift */
		CU_ASSERT_STRING_EQUAL(t->keys[0], "multiplier");
		CU_ASSERT(t->items[0].kind == QC_LV_INT && t->items[0].i == (INT64_C(1) << 30));
		CU_ASSERT(t->items[1].num == (double)0.02f);
		for (int k = 1; k <= 3; k++)
			CU_ASSERT_EQUAL(t->items[k].num, (double)(float)t->items[k].num);
		CU_ASSERT(t->items[4].kind == QC_LV_INT && t->items[4].i == -9);
	}
	EXPECT_TRUE(L, "#qc.requant_scales('shift', {shift = -31}) == 4 and "
	               "qc.requant_scales('shift', {shift = 4, n = 1})[1].shift == 4");
	/* exactly n accumulators, the found ones repeated in order */
	EXPECT_TRUE(L, "(function() local t = qc.requant_scales('shift', {shift = -31, n = 3})[3] "
	               "local a = qc.requant_acc(t, 'boundary', {n = 20}) "
	               "return #a == 20 and a[9] == a[1] and a[20] == a[4] and "
	               "math.type(a[1]) == 'integer' end)()");
	EXPECT_TRUE(L, "(function() local a = qc.requant_acc({s_in = 0.5, s_w = 0.25, s_out = 1}, "
	               "'tie', {convention = 'onnx', n = 4}) "
	               "return a[1] == 4 and a[2] == -4 and a[3] == 12 and a[4] == -12 end)()");
	EXPECT_TRUE(L,
	            "#qc.requant_acc(qc.requant_scales('f32_product', {n = 1, mult = 3.1e-6})[1], "
	            "'f32', {n = 5}) == 5");
	/* spread: rows summing to each total, values as equal as possible */
	CU_ASSERT_EQUAL_FATAL(eval(L, "qc.spread({7, -7, 0}, 3, -3, 3)", &v), 0);
	static const double sp[] = {3, 2, 2, -2, -2, -3, 0, 0, 0};
	expect_list_nums(&v, sp, 9);
	EXPECT_ERROR(L, "qc.spread({10}, 3, -3, 3)", "does not split into 3 values", 1);
	EXPECT_ERROR(L, "qc.spread({1.5}, 3, -3, 3)", "not an integer", 1);
	EXPECT_ERROR(L, "qc.requant_scales('big')", "unknown kind 'big'", 1);
	EXPECT_ERROR(L, "qc.requant_scales('round_up', {mult = 0.001})", "power of two", 1);
	EXPECT_ERROR(L, "qc.requant_scales('round_up', {convention = 'onnx'})", "LiteRT", 1);
	EXPECT_ERROR(L, "qc.requant_scales('shift', {shift = 31})", "shift must be an integer", 1);
	EXPECT_ERROR(L, "qc.requant_scales('shift', {convention = 'tf'})", "'litert' or 'onnx'", 1);
	EXPECT_ERROR(L, "qc.requant_scales('shift', {s_in = -1})", "finite float32 > 0", 1);
	EXPECT_ERROR(L, "qc.requant_acc({s_in = 1, s_out = 1}, 'tie')", "no final", 1);
	EXPECT_ERROR(L, "qc.requant_acc({s_in = 1, s_out = 1}, 'nope')", "unknown kind 'nope'", 1);
	/* a search that cannot succeed stops (C work cannot be interrupted by the hook) */
	EXPECT_ERROR(L, "qc.requant_scales('f32_product', {mult = 2^-12, ymax = 2^20})",
	             "more than 8388608 candidates", 1);
	EXPECT_ERROR(L, "qc.requant_acc({s_in = 1, s_out = 2^40}, 'boundary', {ymax = 1})",
	             "flushed to 0", 1);
	EXPECT_ERROR(L,
	             "qc.requant_acc({s_in = 1, s_out = 10}, 'boundary', {ymax = 100, accmax = 1})",
	             "no 'boundary' accumulator", 1);
	qc_lua_free(L);
	arena_free(&A);
}

/* qc.elementwise_scales, qc.elementwise_pairs: the Lua side of gen.h's elementwise edges (the
 * numeric properties are tested in test_gen.c). */
static void test_qc_elementwise(void)
{
	qc_lua *L = new_state();
	qc_lval v;
	CU_ASSERT_EQUAL_FATAL(
	        eval(L, "qc.elementwise_scales('tie', {n = 2, s1 = 2^-7, s2 = 2^-8, s_out = 2^-7})",
	             &v),
	        0);
	CU_ASSERT_EQUAL_FATAL(v.kind, QC_LV_LIST);
	CU_ASSERT_EQUAL_FATAL(v.n, 2);
	for (size_t i = 0; i < v.n; i++) {
		const qc_lval *t = &v.items[i];
		CU_ASSERT_EQUAL_FATAL(t->kind, QC_LV_MAP);
		CU_ASSERT_EQUAL_FATAL(t->n, 3); /* s1, s2, s_out */
		CU_ASSERT_STRING_EQUAL(t->keys[0], "s1");
		CU_ASSERT(t->items[0].num == 0x1p-7);
		CU_ASSERT(t->items[2].num == 0x1p-7);
	}
	CU_ASSERT(v.items[0].items[1].num == 0x1p-8); /* s2 steps up from opts.s2 */
	CU_ASSERT(v.items[1].items[1].num == (double)nextafterf(0x1p-8f, 1.0f));
	/* exactly n pairs, integers in the dtype, the found ones repeated in order */
	EXPECT_TRUE(L, "(function() local p = qc.elementwise_pairs({s1 = 2^-7, s2 = 2^-34, "
	               "s_out = 2^-6}, 'tie_in', {n = 200, zp2 = -1}) "
	               "local seen, g = {}, 0 "
	               "for i = 1, 200 do local k = p.a[i] * 1000 + p.b[i] "
	               "if not seen[k] then seen[k] = true g = g + 1 end end "
	               "for i = 1, 200 do if p.a[i] ~= p.a[(i - 1) % g + 1] or "
	               "p.b[i] ~= p.b[(i - 1) % g + 1] then return false end end "
	               "return #p.a == 200 and #p.b == 200 and g > 1 and g < 200 and "
	               "math.type(p.a[1]) == 'integer' and p.b[1] == 127 end)()");
	EXPECT_TRUE(L, "#qc.elementwise_scales('f32', {op = 'mul', n = 1, s1 = 0.1, s2 = 0.1, "
	               "ratio = 0.5}) == 1");
	EXPECT_TRUE(L, "qc.elementwise_scales('f32', {op = 'mul', n = 1, s1 = 0.1, s2 = 0.1, "
	               "ratio = 0.5})[1].s_out == qc.f32(qc.f32(0.1) * qc.f32(0.1) / 0.5)");
	EXPECT_ERROR(L, "qc.elementwise_pairs({s1 = 1, s2 = 1, s_out = 1}, 'nope')",
	             "unknown kind 'nope'", 1);
	EXPECT_ERROR(L, "qc.elementwise_pairs({s1 = 1, s2 = 1, s_out = 1}, 'tie', {op = 'div'})",
	             "op must be 'add', 'sub' or 'mul'", 1);
	EXPECT_ERROR(L, "qc.elementwise_pairs({s1 = 1, s2 = 1, s_out = 1}, 'tie', {stage = 'x'})",
	             "stage must be", 1);
	EXPECT_ERROR(L, "qc.elementwise_pairs({s1 = 1, s2 = 1, s_out = 1}, 'tie', {zp1 = 128})",
	             "zp1 must be an integer in [-128, 127]", 1);
	EXPECT_ERROR(L, "qc.elementwise_pairs({s1 = 1, s2 = 1, s_out = 1}, 'f32')", "MUL only", 1);
	EXPECT_ERROR(L, "qc.elementwise_pairs({s1 = 1, s2 = 1, s_out = 1}, 'tie', {op = 'mul'})",
	             "no 'tie' pair", 1);
	EXPECT_ERROR(L,
	             "qc.elementwise_pairs({s1 = 1, s2 = 1, s_out = 1}, 'tie', "
	             "{dtype = 'int16'})",
	             "more than 2^24 pairs", 1);
	EXPECT_ERROR(L, "qc.elementwise_scales('tie', {ratio = -1})", "ratio must be", 1);
	EXPECT_ERROR(L,
	             "qc.elementwise_scales('tie', {s1 = 2^-7, s2 = 2^-8, "
	             "s_out = qc.f32(2^-26 * (1 + 2^-23)), n = 1})",
	             "only 0 of 1 triples", 1);
	qc_lua_free(L);
	arena_free(&A);
}

/* Bindings are converted on first use (slua.c): nothing of that may show. */
static void test_lazy_bindings(void)
{
	qc_lua *L = new_state();
	qc_lval v;
	int64_t shape[2] = {3, 4};
	qc_lval dims[2] = {{.kind = QC_LV_INT, .i = 3}, {.kind = QC_LV_INT, .i = 4}};
	const char *tk[3] = {"name", "rank", "shape"};
	qc_lval tv[3] = {{.kind = QC_LV_STR, .str = "x"},
	                 {.kind = QC_LV_INT, .i = 2},
	                 {.kind = QC_LV_LIST, .n = 2, .items = dims}};
	qc_lval t = {.kind = QC_LV_MAP, .n = 3, .items = tv, .keys = tk};
	qc_lval k = {.kind = QC_LV_INT, .i = 1}, nil = {.kind = QC_LV_NIL};
	qc_lbind b[] = {{"x", &t}, {"k", &k}, {"n", &nil}};

	/* an undefined name gives the error it always gave, bindings or not */
	const char *undef[][2] = {{"undefined_name + 1",
	                           "attempt to perform arithmetic on a nil value (global "
	                           "'undefined_name')"},
	                          {"nope.shape", "attempt to index a nil value (global 'nope')"},
	                          {"nope(1)", "attempt to call a nil value (global 'nope')"},
	                          {"(function() local t = {}\n return t.a.b end)()",
	                           "attempt to index a nil value (field 'a')"}};
	for (size_t i = 0; i < sizeof undef / sizeof undef[0]; i++) {
		char e0[512];
		int l0;
		CU_ASSERT_EQUAL(eval_b(L, undef[i][0], NULL, 0, &v), -1);
		snprintf(e0, sizeof e0, "%s", err);
		l0 = line;
		CU_ASSERT_EQUAL(eval_b(L, undef[i][0], b, 3, &v), -1);
		if (!strstr(err, undef[i][1]) || strcmp(err, e0))
			fprintf(stderr, "\n%s: got '%s' and '%s', want '%s'\n", undef[i][0], e0,
			        err, undef[i][1]);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, undef[i][1]));
		CU_ASSERT_STRING_EQUAL(err, e0);
		CU_ASSERT_EQUAL(line, l0);
	}
	CU_ASSERT_EQUAL(eval_b(L, "k + n", b, 3, &v), -1); /* a nil binding is undefined */
	CU_ASSERT_STRING_EQUAL(err, "attempt to perform arithmetic on a nil value (global 'n')");
	CU_ASSERT_EQUAL(line, 1);
	CU_ASSERT_EQUAL(eval_b(L, "(function() _G[nil] = k end)()", b, 3, &v), -1);
	CU_ASSERT_STRING_EQUAL(err, "table index is nil");
	CU_ASSERT_EQUAL(line, 1);
	CU_ASSERT_EQUAL(eval_b(L, "select(2, pcall(function() _G[0/0] = k end))", b, 3, &v), 0);
	CU_ASSERT(v.kind == QC_LV_STR && !strcmp(v.str, "expr:1: table index is NaN"));
	CU_ASSERT_EQUAL(eval_b(L, "undefined_name", b, 3, &v), 0);
	CU_ASSERT_EQUAL(v.kind, QC_LV_NIL);

	/* a binding changed between evaluations (the next case, the same array) is seen fresh */
	CU_ASSERT_EQUAL(eval_b(L, "x.shape[1] * 10 + k", b, 3, &v), 0);
	CU_ASSERT(v.kind == QC_LV_INT && v.i == 31);
	dims[0].i = 5;
	k.i = 2;
	CU_ASSERT_EQUAL(eval_b(L, "x.shape[1] * 10 + k", b, 3, &v), 0);
	CU_ASSERT(v.kind == QC_LV_INT && v.i == 52);
	qc_lval k9 = {.kind = QC_LV_INT, .i = 9};
	qc_lbind other[] = {{"k", &k9}};
	CU_ASSERT_EQUAL(eval_b(L, "k", other, 1, &v), 0);
	CU_ASSERT(v.kind == QC_LV_INT && v.i == 9);
	CU_ASSERT_EQUAL(eval_b(L, "x", other, 1, &v), 0); /* no value of another call */
	CU_ASSERT_EQUAL(v.kind, QC_LV_NIL);
	/* a generator reads them as well, from every call of its function */
	double gv[3];
	qc_rng rng;
	qc_rng_seed(&rng, 1);
	CU_ASSERT_EQUAL(gen(L, "return function(i) return x.shape[2] + k * i end", b, 3, shape, 2,
	                    &rng, gv, 3),
	                0);
	CU_ASSERT(gv[0] == 4 && gv[1] == 6 && gv[2] == 8);

	/* a tensor's table: one table per evaluation, changes stay in that evaluation */
	EXPECT_TRUE(L, "true");
	CU_ASSERT_EQUAL(eval_b(L,
	                       "(function() local s = x.shape s[1] = 99 x.extra = 1 "
	                       "return rawequal(x.shape, s) and x.shape[1] == 99 end)()",
	                       b, 3, &v),
	                0);
	CU_ASSERT(v.kind == QC_LV_BOOL && v.b == 1);
	CU_ASSERT_EQUAL(eval_b(L, "x.shape[1] == 5 and x.extra == nil and #x.shape == 2", b, 3, &v),
	                0);
	CU_ASSERT(v.kind == QC_LV_BOOL && v.b == 1);
	CU_ASSERT_EQUAL(eval_b(L, "(function() x = nil return x end)()", b, 3, &v), 0);
	CU_ASSERT_EQUAL(v.kind, QC_LV_NIL);
	CU_ASSERT_EQUAL(eval_b(L, "x.name", b, 3, &v), 0);
	CU_ASSERT(v.kind == QC_LV_STR && !strcmp(v.str, "x"));
	CU_ASSERT(dims[0].i == 5 && tv[0].str[0] == 'x'); /* the caller's value is untouched */

	/* as if every binding were in the environment from the start */
	const char *same[] = {
	        /* assigned before read: not resolved again */
	        "(function() x = 1 x = nil return x == nil end)()",
	        "(function() rawset(_G, 'k', 7) k = nil return k == nil end)()",
	        "(function() _G.k = nil return k == nil end)()",
	        /* raw views hold them */
	        "rawget(_G, 'k') == k and rawget(_G, 'x') == x",
	        "(function() local ks = {} for key in pairs(_G) do ks[#ks + 1] = key end "
	        "return table.concat(ks, ',') == '_G,k,x' end)()",
	        "next(_G) == '_G' and next(_G, '_G') == 'k' and next(_G, 'k') == 'x'",
	        "(function() local t = x return pairs(_G) ~= nil and rawequal(t, x) end)()",
	        "n == nil and rawget(_G, 'n') == nil",
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		int r = eval_b(L, same[i], b, 3, &v);
		if (r || v.kind != QC_LV_BOOL || !v.b)
			fprintf(stderr, "\n%s: %s\n", same[i], r ? err : "false");
		CU_ASSERT(r == 0 && v.kind == QC_LV_BOOL && v.b == 1);
	}
	/* a result holding the environment converts what it held from the start */
	CU_ASSERT_EQUAL(
	        eval_b(L, "(function() local e = _G e._G = nil x = nil return e end)()", b, 3, &v),
	        0);
	CU_ASSERT(v.kind == QC_LV_MAP && v.n == 1 && !strcmp(v.keys[0], "k"));
	/* names of globals and _G are bindings too; the last binding of a name wins */
	qc_lval s1 = {.kind = QC_LV_STR, .str = "one"}, s2 = {.kind = QC_LV_STR, .str = "two"};
	qc_lbind shadow[] = {{"type", &s1}, {"k", &s1}, {"k", &s2}, {"_G", &k}};
	CU_ASSERT_EQUAL(eval_b(L, "type .. k .. _G", shadow, 4, &v), 0);
	CU_ASSERT(v.kind == QC_LV_STR && !strcmp(v.str, "onetwo2"));

	/* converting a binding is charged whether the script reads it or not */
	qc_lval *many = calloc(100000, sizeof *many);
	CU_ASSERT_PTR_NOT_NULL_FATAL(many);
	qc_lval big = {.kind = QC_LV_LIST, .n = 100000, .items = many};
	qc_lbind bb[] = {{"big", &big}, {"k", &k}};
	qc_lua_set_budget(L, 150000, 60);
	qc_lua_budget_reset(L);
	CU_ASSERT_EQUAL(eval_b(L, "k", bb, 2, &v), 0);
	CU_ASSERT_EQUAL(eval_b(L, "k", bb, 2, &v), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "instruction budget of the spec exceeded"));
	free(many);
	qc_lua_free(L);
	arena_free(&A);
}

void qct_register_lua(void)
{
	CU_pSuite s = qct_suite("lua");
	CU_add_test(s, "sandbox escapes end as errors", test_escapes);
	CU_add_test(s, "globals per evaluation, read-only libraries", test_isolation);
	CU_add_test(s, "deterministic pairs, next, tostring, sort", test_determinism);
	CU_add_test(s, "instruction limit", test_instruction_limit);
	CU_add_test(s, "memory limit, state usable after", test_memory_limit);
	CU_add_test(s, "deep recursion", test_recursion);
	CU_add_test(s, "error lines", test_error_lines);
	CU_add_test(s, "values into Lua", test_values_in);
	CU_add_test(s, "values out of Lua", test_values_out);
	CU_add_test(s, "lazy bindings", test_lazy_bindings);
	CU_add_test(s, "generators", test_generate);
	CU_add_test(s, "custom checks", test_check);
	CU_add_test(s, "qc helpers", test_qc);
	CU_add_test(s, "qc requantization edges", test_qc_requant);
	CU_add_test(s, "qc elementwise edges", test_qc_elementwise);
}
