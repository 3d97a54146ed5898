/*
 * slua: the sandboxed Lua 5.4 of the spec language (see slua.h).
 *
 * Layout of one state:
 *  - the sandbox globals G (the global table): the safe base functions, some
 *    of them replaced by deterministic or guarded versions (below), and
 *    read-only views of string, table, math, utf8 and qc;
 *  - per evaluation a fresh environment table whose metatable (protected)
 *    has __index = G, holding _G = itself, so a script's global writes land
 *    in its own environment and vanish with it;
 *  - the bindings are lazy: G's own (hidden) metatable has an __index that
 *    converts a binding of the running evaluation on its first use and stores
 *    it in the environment, so an evaluation pays only for the names it reads.
 *    It behaves as if every binding had been stored in the environment at the
 *    start: a binding whose name G holds (or _G) is stored at once; a name the
 *    script assigns first is no longer resolved; before anything reads the
 *    environment raw (next, pairs, rawget, rawset, converting a result) the
 *    bindings still pending are stored; and the conversion of every binding is
 *    charged at the start, as before;
 *  - compiled chunks cached by source text in three registry tables (one per
 *    kind: expression, generator, check); a chunk's only upvalue is _ENV and
 *    it is pointed at the fresh environment before each call.
 *
 * Every touch of the Lua stack runs inside lua_pcall (run_protected), so a Lua
 * error never unwinds through this file's callers; the state is reused after
 * any error, including a memory error.
 *
 * Determinism. Lua 5.4 seeds its string hash from the time and addresses, so
 * the order of next/pairs changes from run to run, table.sort picks random
 * pivots on large arrays, and tostring / string.format("%p") show addresses.
 * The sandbox replaces next and pairs (keys in a fixed order: numbers
 * ascending, then strings in byte order, then false, true), table.sort (a
 * stable merge sort), tostring and string.format (a table, function,
 * userdata or thread without __tostring prints as its type name; "%p" is
 * refused). setmetatable refuses __gc and __mode (finalizers and weak tables
 * would make results depend on when the collector runs).
 *
 * Runaway scripts. The count hook stops an evaluation after
 * QC_LUA_INSTRUCTION_LIMIT VM instructions or QC_LUA_EVAL_SECONDS, and the
 * evaluations of one expansion of a spec after QC_LUA_SPEC_INSTRUCTION_LIMIT
 * instructions or QC_LUA_SPEC_SECONDS in all; the allocator refuses growth
 * past QC_LUA_MEM_LIMIT. Nothing catches a stop: pcall and xpcall re-raise
 * it, xpcall's message handler is skipped once stopped (Lua runs it inside the
 * hook, where no hook fires), and after a stop the hook fires at every
 * instruction, so a __close metamethod that loops is stopped at once. C loops
 * the hook cannot see are charged as instructions (next, pairs, table.move,
 * insert, remove, sort, string.rep, qc.range, qc.primes, converting values)
 * or bounded: string.rep of an empty string returns at once (and a result
 * larger than the memory limit is a memory error without trying), table.move,
 * insert and remove refuse more than 2^24 elements. The pattern functions
 * (string.find, match, gmatch, gsub) are left out: their backtracking runs in
 * C where no count can stop it.
 *
 * Errors carry the chunk line: "expr:3: msg" from Lua itself, and a message
 * handler gives errors raised inside C functions the line of the innermost
 * running Lua function; run_protected moves that line into *line.
 */
#include "spec/slua.h"

#include "spec/gen.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#define HOOK_STEP   1000 /* instructions between two count hooks */
#define CLOCK_EVERY 16   /* hook charges between two reads of the clock */
/* Work done in C is charged as instructions: an element moved or a key compared costs ~8 VM
 * instructions' time, a byte of a new string 1/2 (allocation, page faults, copies). */
#define MAX_DEPTH 32                     /* table nesting, both directions */
#define MAX_ITEMS ((lua_Integer)1 << 24) /* values in one converted result, list lengths */
#define CACHE_MAX 4096                   /* compiled chunks per kind before the cache restarts */
#define RNG_TNAME "qc.rng"

enum { K_EXPR, K_GEN, K_CHECK, K_KINDS };
#define MEMO_N 64
static const char *const chunk_name[K_KINDS] = {"=expr", "=generator", "=check"};
static const char *const chunk_tag[K_KINDS] = {"expr", "generator", "check"};

/* Spec-wide budgets: one for the expansion (expressions, generators), one for the checks, so
 * that checks run by `run` cannot change which cases the expansion gives. */
enum { B_EXPAND, B_CHECK, B_KINDS };

struct qc_lua {
	lua_State *L;
	size_t used;        /* bytes the state holds */
	uint64_t steps;     /* instructions run by the current evaluation (counted per HOOK_STEP) */
	int stopped;        /* a budget ran out: nothing may catch that, every hook raises again */
	int oom;            /* a memory error happened in this evaluation */
	char stop_msg[256]; /* the error of the stop, with the chunk position */
	int budget;         /* B_EXPAND or B_CHECK: the budget the current evaluation draws on */
	double t0;          /* the current evaluation's first charge (monotonic seconds), or 0 */
	int clock_skip;     /* charges since the clock was last read */
	struct budget {
		uint64_t steps, max_steps; /* instructions since qc_lua_budget_reset */
		double seconds, max_seconds;
		int exhausted; /* ran out: every evaluation fails at once until the reset */
		char msg[192]; /* why, without a position */
	} b[B_KINDS];
	qc_rng *rng;   /* the generator's rng while qc_lua_generate runs, else NULL */
	int ref_envmt; /* registry: metatable of the per-evaluation environments */
	int ref_env;   /* registry: the running evaluation's environment, or nil */
	/* the running evaluation's bindings, resolved on first use (env_index) */
	const qc_lbind *binds;
	int n_binds;
	int pending;            /* some binding is neither resolved nor overridden yet */
	unsigned char *touched; /* per binding: resolved, overridden or stored at the start */
	int touched_cap;
	int ref_rng; /* registry: the rng object handed to generators */
	int ref_cache[K_KINDS];
	int cache_n[K_KINDS];
	qc_lua_share *share;  /* the spec's budgets shared with other states, or NULL */
	uint64_t share_steps; /* the shared count when the evaluation began */
};

/*
 * The searches of qc.elementwise_*: pure functions of their arguments, which every case of a
 * sweep point, and every copy of a spec (one per job thread), calls again with the same ones.
 * One cache for the process, shared by every state; a hit charges the work of the search as if
 * it ran, so budgets do not depend on what the cache holds.
 */
static struct memo {
	uint64_t hash;
	unsigned char *key, *val;
	size_t klen, vlen;
	int got;
	uint64_t work;
} memo[MEMO_N];
static unsigned memo_next;
static pthread_mutex_t memo_mu = PTHREAD_MUTEX_INITIALIZER;

/* The cached result of the search keyed by key[0..klen) into val (vlen bytes at most): 1, or 0
 * when it is not cached. */
static int memo_get(const void *key, size_t klen, void *val, size_t vlen, int *got, uint64_t *work)
{
	uint64_t h = qc_hash64_bytes(key, klen);
	int hit = 0;
	pthread_mutex_lock(&memo_mu);
	for (int i = 0; i < MEMO_N && !hit; i++)
		if (memo[i].key && memo[i].hash == h && memo[i].klen == klen &&
		    memo[i].vlen <= vlen && !memcmp(memo[i].key, key, klen)) {
			memcpy(val, memo[i].val, memo[i].vlen);
			*got = memo[i].got;
			*work = memo[i].work;
			hit = 1;
		}
	pthread_mutex_unlock(&memo_mu);
	return hit;
}

static void memo_put(const void *key, size_t klen, const void *val, size_t vlen, int got,
                     uint64_t work)
{
	unsigned char *k = malloc(klen), *v = malloc(vlen ? vlen : 1);
	if (!k || !v) {
		free(k);
		free(v);
		return;
	}
	memcpy(k, key, klen);
	memcpy(v, val, vlen);
	pthread_mutex_lock(&memo_mu);
	struct memo *m = &memo[memo_next++ % MEMO_N];
	free(m->key);
	free(m->val);
	*m = (struct memo){qc_hash64_bytes(key, klen), k, v, klen, vlen, got, work};
	pthread_mutex_unlock(&memo_mu);
}

static qc_lua *getq(lua_State *L)
{
	void *ud;
	lua_getallocf(L, &ud);
	return ud;
}

static void env_settle(lua_State *L, int idx);
static int env_index(lua_State *L);
static int env_newindex(lua_State *L);

/* Raises a formatted error without position (lua_pushfstring formats: %s %d %I %f %c %%). */
static int fail(lua_State *L, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	return lua_error(L);
}

/* ---- allocator and instruction hook -------------------------------------- */

static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	qc_lua *q = ud;
	size_t old = ptr ? osize : 0; /* for a new block osize is the object's type */
	if (nsize == 0) {
		free(ptr);
		q->used -= old;
		return NULL;
	}
	if (nsize > old && nsize - old > QC_LUA_MEM_LIMIT - q->used)
		return NULL; /* Lua collects and retries, then raises LUA_ERRMEM */
	void *p = realloc(ptr, nsize);
	if (!p) {
		if (nsize <= old) { /* a shrink must not fail: keep the larger block */
			q->used = q->used - old + nsize;
			return ptr;
		}
		return NULL;
	}
	q->used = q->used - old + nsize;
	return p;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sb_hook(lua_State *L, lua_Debug *ar);

/* Raises the stop error. The first stop records it and makes the count hook fire at every
 * instruction, so that whatever still runs (a message handler, a __close metamethod) is
 * stopped again at once; level is the stack level whose position the message carries. */
__attribute__((noreturn)) static void stop(lua_State *L, qc_lua *q, int level, const char *why)
{
	if (!q->stopped) {
		q->stopped = 1;
		luaL_where(L, level);
		snprintf(q->stop_msg, sizeof q->stop_msg, "%s%s", lua_tostring(L, -1), why);
		lua_pop(L, 1);
		lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
	}
	lua_pushstring(L, q->stop_msg);
	lua_error(L);
	abort(); /* lua_error does not return */
}

/* Counts n instructions (or units of work done in C) against the evaluation's and the spec's
 * budgets, and checks the spec's clock; raises the stop error when one runs out. */
static void charge(lua_State *L, qc_lua *q, uint64_t n, int level)
{
	if (q->stopped)
		stop(L, q, level, "");
	struct budget *b = &q->b[q->budget];
	q->steps += n;
	b->steps += n;
	char why[192];
	if (q->steps >= QC_LUA_INSTRUCTION_LIMIT) {
		snprintf(why, sizeof why,
		         "instruction limit exceeded (%llu instructions): endless loop?",
		         (unsigned long long)QC_LUA_INSTRUCTION_LIMIT);
		stop(L, q, level, why);
	}
	if (b->steps >= b->max_steps) {
		snprintf(b->msg, sizeof b->msg,
		         "instruction budget of the spec exceeded (%llu instructions over all its "
		         "%s)",
		         (unsigned long long)b->max_steps,
		         q->budget == B_CHECK ? "checks" : "cases");
		b->exhausted = 1;
		stop(L, q, level, b->msg);
	}
	/* the clock: from the first charge of an evaluation on (one shorter than a hook step
	 * costs no clock read), then every CLOCK_EVERY charges */
	if (!q->t0)
		q->t0 = now_seconds();
	else if (++q->clock_skip < CLOCK_EVERY && n <= HOOK_STEP)
		return;
	q->clock_skip = 0;
	double t = now_seconds() - q->t0;
	if (t > QC_LUA_EVAL_SECONDS) {
		snprintf(why, sizeof why,
		         "time limit exceeded (%g s in one evaluation): endless loop in a library "
		         "function?",
		         QC_LUA_EVAL_SECONDS);
		stop(L, q, level, why);
	}
	if (b->seconds + t > b->max_seconds) {
		snprintf(b->msg, sizeof b->msg,
		         "time limit of the spec exceeded (%g s of Lua over all its %s)",
		         b->max_seconds, q->budget == B_CHECK ? "checks" : "cases");
		b->exhausted = 1;
		stop(L, q, level, b->msg);
	}
}

static void sb_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	charge(L, getq(L), HOOK_STEP, 0); /* level 0 in a hook: the function that is running */
}

static int sb_panic(lua_State *L)
{
	const char *m = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
	fprintf(stderr, "qconform: unprotected Lua error: %s\n", m);
	abort();
}

/* ---- read-only library views --------------------------------------------- */

static int ro_newindex(lua_State *L)
{
	return luaL_error(L, "attempt to modify a read-only sandbox library table (key '%s')",
	                  lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?");
}

static int det_pairs_raw(lua_State *L, int t);

static int ro_pairs(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	return det_pairs_raw(L, lua_gettop(L));
}

/* Pushes an empty table that reads through to the table at idx and refuses writes. */
static void push_readonly(lua_State *L, int idx)
{
	idx = lua_absindex(L, idx);
	lua_createtable(L, 0, 0);
	lua_createtable(L, 0, 4);
	lua_pushvalue(L, idx);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, ro_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushvalue(L, idx);
	lua_pushcclosure(L, ro_pairs, 1);
	lua_setfield(L, -2, "__pairs");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
}

static int is_readonly(lua_State *L, int idx)
{
	if (luaL_getmetafield(L, idx, "__newindex") == LUA_TNIL)
		return 0;
	int r = lua_tocfunction(L, -1) == ro_newindex;
	lua_pop(L, 1);
	return r;
}

/* ---- deterministic key order (next, pairs) ------------------------------- */

typedef struct keyd {
	int cls; /* 0 number, 1 string, 2 boolean */
	int isint;
	lua_Integer i;
	lua_Number n;
	const char *s;
	size_t len;
	lua_Integer slot; /* position in the key list while sorting */
} keyd;

static void key_describe(lua_State *L, int idx, keyd *k, const char *fname)
{
	memset(k, 0, sizeof *k);
	switch (lua_type(L, idx)) {
	case LUA_TNUMBER:
		k->cls = 0;
		k->isint = lua_isinteger(L, idx);
		if (k->isint)
			k->i = lua_tointeger(L, idx);
		else
			k->n = lua_tonumber(L, idx);
		break;
	case LUA_TSTRING:
		k->cls = 1;
		k->s = lua_tolstring(L, idx, &k->len);
		break;
	case LUA_TBOOLEAN:
		k->cls = 2;
		k->i = lua_toboolean(L, idx);
		break;
	default:
		luaL_error(L, "%s: a table with %s keys has no deterministic order in the sandbox",
		           fname, luaL_typename(L, idx));
	}
}

/* Sign of i - f, exactly (f is not NaN: NaN cannot be a key). */
static int cmp_int_float(lua_Integer i, lua_Number f)
{
	if (f >= 0x1p63)
		return -1;
	if (f < -0x1p63)
		return 1;
	lua_Number fl = floor(f);
	lua_Integer fi = (lua_Integer)fl;
	if (i != fi)
		return i < fi ? -1 : 1;
	return fl < f ? -1 : 0;
}

static int key_cmp(const keyd *a, const keyd *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	switch (a->cls) {
	case 0:
		if (a->isint && b->isint)
			return (a->i > b->i) - (a->i < b->i);
		if (!a->isint && !b->isint)
			return (a->n > b->n) - (a->n < b->n);
		return a->isint ? cmp_int_float(a->i, b->n) : -cmp_int_float(b->i, a->n);
	case 1: {
		int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
		if (c)
			return c < 0 ? -1 : 1;
		return (a->len > b->len) - (a->len < b->len);
	}
	default: return (int)(a->i - b->i);
	}
}

static int key_qsort_cmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

static int det_pairs_iter(lua_State *L)
{
	/* upvalues: 1 the sorted keys, 2 the position, 3 the table; the arguments are ignored */
	lua_settop(L, 0);
	lua_pushvalue(L, lua_upvalueindex(3));
	lua_Integer pos = lua_tointeger(L, lua_upvalueindex(2));
	for (;;) {
		pos++;
		if (lua_rawgeti(L, lua_upvalueindex(1), pos) == LUA_TNIL) {
			lua_pushinteger(L, pos - 1);
			lua_replace(L, lua_upvalueindex(2));
			return 1;
		}
		lua_pushvalue(L, -1);
		if (lua_rawget(L, 1) != LUA_TNIL) /* skip keys removed during the loop */
			break;
		lua_pop(L, 2);
	}
	lua_pushinteger(L, pos);
	lua_replace(L, lua_upvalueindex(2));
	return 2;
}

/* pairs over the raw contents of the table at t: returns iterator, t, nil. */
static int det_pairs_raw(lua_State *L, int t)
{
	t = lua_absindex(L, t);
	env_settle(L, t);
	lua_Integer n = 0;
	lua_newtable(L); /* the keys, in traversal order */
	int keys = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, t)) {
		lua_pop(L, 1);
		lua_pushvalue(L, -1);
		lua_rawseti(L, keys, ++n);
	}
	charge(L, getq(L), (uint64_t)n * 24, 1); /* the traversal and the sort: n log n */
	keyd *kd = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof(keyd), 0);
	for (lua_Integer j = 1; j <= n; j++) {
		lua_rawgeti(L, keys, j);
		key_describe(L, -1, &kd[j - 1], "pairs");
		kd[j - 1].slot = j;
		lua_pop(L, 1); /* the string stays alive in keys */
	}
	qsort(kd, (size_t)n, sizeof(keyd), key_qsort_cmp);
	lua_createtable(L, (int)n, 0);
	for (lua_Integer j = 1; j <= n; j++) {
		lua_rawgeti(L, keys, kd[j - 1].slot);
		lua_rawseti(L, -2, j);
	}
	lua_pushinteger(L, 0);
	lua_pushvalue(L, t);
	lua_pushcclosure(L, det_pairs_iter, 3);
	lua_pushvalue(L, t);
	lua_pushnil(L);
	return 3;
}

/* pairs(t): __pairs if t has one, else its keys in the fixed order. */
static int sb_pairs(lua_State *L)
{
	luaL_checkany(L, 1);
	if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
		lua_pushvalue(L, 1);
		lua_call(L, 1, 3);
		return 3;
	}
	luaL_checktype(L, 1, LUA_TTABLE);
	return det_pairs_raw(L, 1);
}

/* next(t [, k]): the key after k in the fixed order (O(n) per call). */
static int sb_next(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 2);
	env_settle(L, 1);
	keyd after, best, cur;
	int have_after = !lua_isnil(L, 2), have_best = 0;
	if (have_after)
		key_describe(L, 2, &after, "next");
	lua_pushnil(L); /* 3: best key so far */
	lua_pushnil(L);
	uint64_t seen = 0;
	while (lua_next(L, 1)) {
		lua_pop(L, 1);
		seen++;
		key_describe(L, -1, &cur, "next");
		if ((!have_after || key_cmp(&cur, &after) > 0) &&
		    (!have_best || key_cmp(&cur, &best) < 0)) {
			lua_pushvalue(L, -1);
			lua_replace(L, 3);
			key_describe(L, 3, &best, "next"); /* points into the anchored copy */
			have_best = 1;
		}
	}
	charge(L, getq(L), 8 * seen, 1); /* O(n) per call: a loop over next is O(n^2) in C */
	if (!have_best) {
		lua_pushnil(L);
		return 1;
	}
	lua_pushvalue(L, 3);
	lua_pushvalue(L, 3);
	lua_rawget(L, 1);
	return 2;
}

/* ---- guarded base and library functions ---------------------------------- */

/* Does the message start with "<chunk tag>:<digit>", a position in a chunk? */
static int has_position(const char *m)
{
	for (int k = 0; k < K_KINDS; k++) {
		size_t n = strlen(chunk_tag[k]);
		if (strncmp(m, chunk_tag[k], n) == 0 && m[n] == ':' && m[n + 1] >= '0' &&
		    m[n + 1] <= '9')
			return 1;
	}
	return 0;
}

static void reraise_fatal(lua_State *L, int status);

/* Calls the wrapped library function (upvalue 1) with this call's arguments.
 * Its own errors get the position of our caller, as if it had been called
 * directly (luaL_error there would name this wrapper, which has no line). */
static int forward(lua_State *L, int nresults)
{
	int top = lua_gettop(L);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	int status = lua_pcall(L, top, nresults, 0);
	if (status == LUA_OK)
		return lua_gettop(L);
	reraise_fatal(L, status);
	if (lua_type(L, -1) == LUA_TSTRING && !has_position(lua_tostring(L, -1))) {
		/* "bad argument #2 to '?'": the library function is only our upvalue */
		const char *to =
		        lua_pushfstring(L, "to '%s'", lua_tostring(L, lua_upvalueindex(2)));
		luaL_gsub(L, lua_tostring(L, -2), "to '?'", to);
		luaL_where(L, 1);
		lua_insert(L, -2);
		lua_concat(L, 2);
	}
	return lua_error(L);
}

static int is_reftype(int t)
{
	return t == LUA_TTABLE || t == LUA_TFUNCTION || t == LUA_TUSERDATA ||
	       t == LUA_TLIGHTUSERDATA || t == LUA_TTHREAD;
}

/* Replaces the value at idx by its type name if printing it would show an address. */
static void hide_address(lua_State *L, int idx)
{
	int t = lua_type(L, idx);
	if (!is_reftype(t))
		return;
	if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	lua_pushstring(L, lua_typename(L, t));
	lua_replace(L, idx);
}

static int sb_tostring(lua_State *L)
{
	luaL_checkany(L, 1);
	lua_settop(L, 1);
	hide_address(L, 1);
	luaL_tolstring(L, 1, NULL);
	return 1;
}

static int sb_format(lua_State *L)
{
	size_t len;
	const char *f = luaL_checklstring(L, 1, &len);
	for (size_t i = 0; i < len; i++) {
		if (f[i] != '%')
			continue;
		if (++i < len && f[i] == '%')
			continue;
		while (i < len && f[i] && strchr("-+ #0123456789.", f[i]))
			i++;
		if (i < len && f[i] == 'p')
			return luaL_error(L, "string.format: %%p (an address) is not available in "
			                     "the sandbox");
	}
	int n = lua_gettop(L);
	for (int i = 2; i <= n; i++)
		hide_address(L, i);
	return forward(L, 1);
}

/* string.rep: "" at once when the result is empty (the library would loop n
 * times), and a result larger than the memory limit is a memory error. */
static int sb_rep(lua_State *L)
{
	size_t l, ls = 0;
	luaL_checklstring(L, 1, &l);
	lua_Integer n = luaL_checkinteger(L, 2);
	luaL_optlstring(L, 3, "", &ls);
	if (n <= 0 || l + ls == 0) {
		lua_pushliteral(L, "");
		return 1;
	}
	/* n * l + (n - 1) * ls, against the limit without overflow */
	lua_Unsigned un = (lua_Unsigned)n, lim = QC_LUA_MEM_LIMIT;
	if (l > lim || ls > lim || un > lim || (l && un > lim / l) || (ls && un - 1 > lim / ls) ||
	    un * l + (un - 1) * ls > lim) {
		getq(L)->oom = 1;
		return luaL_error(L, "not enough memory");
	}
	charge(L, getq(L), (un * l + (un - 1) * ls) / 2, 1);
	return forward(L, 1);
}

/* table.move: at most MAX_ITEMS elements (the library loop cannot be interrupted). */
static int sb_move(lua_State *L)
{
	lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
	if (e >= f && (lua_Unsigned)e - (lua_Unsigned)f >= (lua_Unsigned)MAX_ITEMS)
		return luaL_error(L, "table.move: more than %I elements", MAX_ITEMS);
	if (e >= f)
		charge(L, getq(L), 8 * ((uint64_t)(e - f) + 1), 1);
	return forward(L, 1);
}

/* table.insert and table.remove shift up to #t elements in a C loop, and #t can be any
 * number a __len metamethod gives: the shift is charged, and refused past MAX_ITEMS. */
static int sb_shift(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer n = luaL_len(L, 1);
	int insert = *lua_tostring(L, lua_upvalueindex(2)) == 'i';
	lua_Integer pos = insert ? (lua_gettop(L) >= 3 ? luaL_checkinteger(L, 2) : n + 1)
	                         : luaL_optinteger(L, 2, n);
	lua_Unsigned span = pos <= n ? (lua_Unsigned)n - (lua_Unsigned)pos + 1 : 0;
	if (n > MAX_ITEMS || span > (lua_Unsigned)MAX_ITEMS)
		return luaL_error(L, "table.%s: more than %I elements",
		                  insert ? "insert" : "remove", MAX_ITEMS);
	charge(L, getq(L), 8 * ((uint64_t)span + 1), 1);
	return forward(L, LUA_MULTRET);
}

static int sort_less(lua_State *L, int has_comp)
{
	/* compares the two values on top (a, b) and pops them */
	int r;
	if (has_comp) {
		lua_pushvalue(L, 2);
		lua_insert(L, -3);
		lua_call(L, 2, 1);
		r = lua_toboolean(L, -1);
		lua_pop(L, 1);
	} else {
		r = lua_compare(L, -2, -1, LUA_OPLT);
		lua_pop(L, 2);
	}
	return r;
}

/* table.sort(t [, comp]): a stable bottom-up merge sort (no random pivots). */
static int sb_sort(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer n = luaL_len(L, 1);
	int has_comp = !lua_isnoneornil(L, 2);
	if (has_comp)
		luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_settop(L, 2);
	if (n > MAX_ITEMS)
		return luaL_error(L, "table.sort: more than %I elements", MAX_ITEMS);
	if (n < 2)
		return 0;
	uint64_t passes = 1;
	for (lua_Integer w = 1; w < n; w *= 2)
		passes++;
	charge(L, getq(L), (uint64_t)n * passes, 1);
	lua_createtable(L, (int)n, 0); /* 3: a */
	lua_createtable(L, (int)n, 0); /* 4: b */
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, 1, i);
		lua_rawseti(L, 3, i);
	}
	int src = 3, dst = 4;
	for (lua_Integer w = 1; w < n; w *= 2) {
		for (lua_Integer lo = 1; lo <= n; lo += 2 * w) {
			lua_Integer mid = lo + w - 1 < n ? lo + w - 1 : n;
			lua_Integer hi = lo + 2 * w - 1 < n ? lo + 2 * w - 1 : n;
			lua_Integer i = lo, j = mid + 1, k = lo;
			while (i <= mid && j <= hi) {
				lua_rawgeti(L, src, j);
				lua_rawgeti(L, src, i);
				/* take from the right only if right < left: stable */
				if (sort_less(L, has_comp)) {
					lua_rawgeti(L, src, j++);
				} else {
					lua_rawgeti(L, src, i++);
				}
				lua_rawseti(L, dst, k++);
			}
			while (i <= mid) {
				lua_rawgeti(L, src, i++);
				lua_rawseti(L, dst, k++);
			}
			while (j <= hi) {
				lua_rawgeti(L, src, j++);
				lua_rawseti(L, dst, k++);
			}
		}
		int t = src;
		src = dst;
		dst = t;
	}
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, src, i);
		lua_seti(L, 1, i);
	}
	return 0;
}

/* setmetatable(t, mt), refusing __gc and __mode. */
static int sb_setmetatable(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	int t = lua_type(L, 2);
	luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
	if (t == LUA_TTABLE) {
		static const char *const banned[] = {"__gc", "__mode"};
		for (int i = 0; i < 2; i++) {
			lua_pushstring(L, banned[i]);
			int set = lua_rawget(L, 2) != LUA_TNIL;
			lua_pop(L, 1);
			if (set)
				return luaL_error(L,
				                  "setmetatable: %s is not allowed in the sandbox "
				                  "(results would depend on the garbage collector)",
				                  banned[i]);
		}
	}
	if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
		return luaL_error(L, "cannot change a protected metatable");
	lua_settop(L, 2);
	lua_setmetatable(L, 1);
	return 1;
}

/* rawset(t, k, v), except into the read-only library views. */
static int sb_rawset(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checkany(L, 2);
	luaL_checkany(L, 3);
	if (is_readonly(L, 1))
		return luaL_error(L, "rawset: sandbox library tables are read-only");
	lua_settop(L, 3);
	env_settle(L, 1);
	lua_rawset(L, 1);
	return 1;
}

/* rawget(t, k), seeing an environment's bindings as if stored from the start. */
static int sb_rawget(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checkany(L, 2);
	lua_settop(L, 2);
	env_settle(L, 1);
	lua_rawget(L, 1);
	return 1;
}

/* After a failed protected call: re-raise what the script must not catch. */
static void reraise_fatal(lua_State *L, int status)
{
	qc_lua *q = getq(L);
	if (status == LUA_ERRMEM)
		q->oom = 1;
	if (q->stopped || q->oom)
		lua_error(L);
}

static int sb_pcall(lua_State *L)
{
	luaL_checkany(L, 1);
	lua_pushboolean(L, 1);
	lua_insert(L, 1);
	int status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);
	if (status != LUA_OK) {
		reraise_fatal(L, status);
		lua_pushboolean(L, 0);
		lua_pushvalue(L, -2);
		return 2;
	}
	return lua_gettop(L);
}

/* xpcall's message handler runs before the error unwinds; for the stop error that is inside
 * the count hook, where Lua runs no hooks, so a handler that loops would never be stopped.
 * Once an evaluation is stopped (or out of memory) the script's handler is not called. */
static int sb_msgh(lua_State *L)
{
	qc_lua *q = getq(L);
	if (q->stopped || q->oom)
		return 1; /* the error as it is */
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

static int sb_xpcall(lua_State *L)
{
	int n = lua_gettop(L);
	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_pushvalue(L, 2);
	lua_pushcclosure(L, sb_msgh, 1);
	lua_replace(L, 2);
	lua_pushboolean(L, 1);
	lua_pushvalue(L, 1);
	lua_rotate(L, 3, 2); /* f, msgh, true, f, args... */
	int status = lua_pcall(L, n - 2, LUA_MULTRET, 2);
	if (status != LUA_OK) {
		reraise_fatal(L, status);
		lua_pushboolean(L, 0);
		lua_pushvalue(L, -2);
		return 2;
	}
	return lua_gettop(L) - 2;
}

/* ---- the rng object ------------------------------------------------------ */

static qc_rng *check_rng(lua_State *L)
{
	luaL_checkudata(L, 1, RNG_TNAME);
	qc_rng *r = getq(L)->rng;
	if (!r)
		luaL_error(L, "the rng can only be used while its generator runs");
	return r;
}

/* rng:uniform([lo, hi]): lo + (hi - lo) * u, u uniform in [0, 1); default [0, 1). */
static int rng_uniform(lua_State *L)
{
	qc_rng *r = check_rng(L);
	lua_Number lo = luaL_optnumber(L, 2, 0), hi = luaL_optnumber(L, 3, 1);
	lua_pushnumber(L, lo + (hi - lo) * qc_rng_uniform01(r));
	return 1;
}

/* rng:int(lo, hi): a uniform integer in [lo, hi], both ends included. */
static int rng_int(lua_State *L)
{
	qc_rng *r = check_rng(L);
	lua_Integer lo = luaL_checkinteger(L, 2), hi = luaL_checkinteger(L, 3);
	lua_pushinteger(L, qc_rng_uniform_int(r, lo, hi));
	return 1;
}

/* rng:normal([mean, std]): a normal deviate (default mean 0, std 1). */
static int rng_normal(lua_State *L)
{
	qc_rng *r = check_rng(L);
	lua_Number m = luaL_optnumber(L, 2, 0), s = luaL_optnumber(L, 3, 1);
	lua_pushnumber(L, qc_rng_normal(r, m, s));
	return 1;
}

/* ---- the qc helper library ----------------------------------------------- */

static void push_int_list(lua_State *L, const int *v, int n, int zero_first)
{
	lua_createtable(L, n + zero_first, 0);
	int k = 0;
	if (zero_first) {
		lua_pushinteger(L, 0);
		lua_rawseti(L, -2, ++k);
	}
	for (int i = 0; i < n; i++) {
		lua_pushinteger(L, v[i]);
		lua_rawseti(L, -2, ++k);
	}
}

/*
 * qc.sizes(kind [, opts]): tensor sizes that exercise a kernel's vector
 * loops and tails. "vector": 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33,
 * 63, 64, 65, 127, 128, 129; "small": 1 .. 8. opts.empty = true puts 0 first.
 */
static int qc_sizes(lua_State *L)
{
	static const int vec[] = {1,  2,  3,  5,  7,  8,  9,   15,  16, 17,
	                          31, 32, 33, 63, 64, 65, 127, 128, 129};
	static const int small[] = {1, 2, 3, 4, 5, 6, 7, 8};
	const char *kind = luaL_checkstring(L, 1);
	int empty = 0;
	if (!lua_isnoneornil(L, 2)) {
		luaL_checktype(L, 2, LUA_TTABLE);
		lua_getfield(L, 2, "empty");
		empty = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	if (strcmp(kind, "vector") == 0)
		push_int_list(L, vec, (int)(sizeof vec / sizeof vec[0]), empty);
	else if (strcmp(kind, "small") == 0)
		push_int_list(L, small, (int)(sizeof small / sizeof small[0]), empty);
	else
		return luaL_error(L, "qc.sizes: unknown kind '%s' (vector, small)", kind);
	return 1;
}

/* qc.primes(lo, hi): the primes p with lo <= p <= hi (hi < 2^31, at most 2^24 candidates). */
static int qc_primes(lua_State *L)
{
	lua_Integer lo = luaL_checkinteger(L, 1), hi = luaL_checkinteger(L, 2);
	if (hi > INT32_MAX)
		return luaL_error(L, "qc.primes: hi must be below 2^31");
	if (lo < 2)
		lo = 2;
	lua_newtable(L);
	if (lo > hi)
		return 1;
	if (hi - lo >= MAX_ITEMS)
		return luaL_error(L, "qc.primes: more than %I candidates", MAX_ITEMS);
	charge(L, getq(L), (uint64_t)(hi - lo) + 1, 1);
	lua_Integer root = 1;
	while ((root + 1) * (root + 1) <= hi)
		root++;
	unsigned char *small = lua_newuserdatauv(L, (size_t)root + 1, 0);
	unsigned char *seg = lua_newuserdatauv(L, (size_t)(hi - lo + 1), 0);
	memset(small, 0, (size_t)root + 1);
	memset(seg, 0, (size_t)(hi - lo + 1));
	for (lua_Integer p = 2; p <= root; p++) {
		if (small[p])
			continue;
		for (lua_Integer m = p * p; m <= root; m += p)
			small[m] = 1;
		lua_Integer start = (lo + p - 1) / p * p;
		if (start < p * p)
			start = p * p;
		for (lua_Integer m = start; m <= hi; m += p)
			seg[m - lo] = 1;
	}
	lua_pop(L, 2);
	lua_Integer k = 0;
	for (lua_Integer v = lo; v <= hi; v++) {
		if (!seg[v - lo]) {
			lua_pushinteger(L, v);
			lua_rawseti(L, -2, ++k);
		}
	}
	return 1;
}

/*
 * qc.range(a, b [, step]): a, a + step, a + 2 step, ... up to b included
 * (down to b for a negative step). All integers give integers; otherwise
 * item k is the float a + k * step (no accumulated error). Step 0 and more
 * than 2^24 items are errors.
 */
static int qc_range(lua_State *L)
{
	luaL_checknumber(L, 1);
	luaL_checknumber(L, 2);
	int ints = lua_isinteger(L, 1) && lua_isinteger(L, 2) &&
	           (lua_isnoneornil(L, 3) || lua_isinteger(L, 3));
	if (ints) {
		lua_Integer a = lua_tointeger(L, 1), b = lua_tointeger(L, 2);
		lua_Integer step = luaL_optinteger(L, 3, 1);
		if (step == 0)
			return luaL_error(L, "qc.range: step is 0");
		lua_newtable(L);
		if (step > 0 ? a > b : a < b)
			return 1;
		lua_Unsigned span = step > 0 ? (lua_Unsigned)b - (lua_Unsigned)a
		                             : (lua_Unsigned)a - (lua_Unsigned)b;
		lua_Unsigned mag = step > 0 ? (lua_Unsigned)step : 0 - (lua_Unsigned)step;
		if (span / mag >= (lua_Unsigned)MAX_ITEMS)
			return luaL_error(L, "qc.range: more than %I items", MAX_ITEMS);
		lua_Unsigned count = span / mag + 1;
		charge(L, getq(L), (uint64_t)count, 1);
		lua_Unsigned v = (lua_Unsigned)a;
		for (lua_Unsigned k = 1; k <= count; k++, v += (lua_Unsigned)step) {
			lua_pushinteger(L, (lua_Integer)v);
			lua_rawseti(L, -2, (lua_Integer)k);
		}
		return 1;
	}
	lua_Number a = lua_tonumber(L, 1), b = lua_tonumber(L, 2), step = luaL_optnumber(L, 3, 1);
	if (step == 0 || isnan(step))
		return luaL_error(L, "qc.range: step is 0");
	if (!isfinite(a) || !isfinite(b) || !isfinite(step))
		return luaL_error(L, "qc.range: bounds and step must be finite");
	lua_newtable(L);
	if ((b - a) / step > (lua_Number)MAX_ITEMS)
		return luaL_error(L, "qc.range: more than %I items", MAX_ITEMS);
	if ((b - a) / step > 0)
		charge(L, getq(L), (uint64_t)((b - a) / step) + 1, 1);
	lua_Number prev = 0;
	for (lua_Integer k = 0;; k++) {
		lua_Number v = a + (lua_Number)k * step;
		if (step > 0 ? v > b : v < b)
			break;
		if (k > 0 && v == prev)
			return luaL_error(L,
			                  "qc.range: step %f is below the spacing of the floats "
			                  "near %f",
			                  step, v);
		prev = v;
		if (k >= MAX_ITEMS) /* a step below the spacing of the floats near a */
			return luaL_error(L, "qc.range: more than %I items", MAX_ITEMS);
		lua_pushnumber(L, v);
		lua_rawseti(L, -2, k + 1);
	}
	return 1;
}

/* x rounded to the nearest float32 (ties to even), overflow to +-inf, as a double. */
static double f32_round(double x)
{
	/* FLT_MAX plus half its ulp: from there on, nearest rounding gives inf */
	if (fabs(x) >= 0x1.ffffffp127)
		return x > 0 ? INFINITY : -INFINITY;
	if (fabs(x) > FLT_MAX)
		return x > 0 ? FLT_MAX : -FLT_MAX;
	return (double)(float)x;
}

/* qc.f32(x): x rounded to the nearest float32, as a Lua float (integers round once). */
static int qc_f32(lua_State *L)
{
	luaL_checknumber(L, 1);
	if (lua_isinteger(L, 1))
		lua_pushnumber(L, (double)(float)lua_tointeger(L, 1));
	else
		lua_pushnumber(L, f32_round(lua_tonumber(L, 1)));
	return 1;
}

/* The float32 next to x (a double) in the direction of toward; f32(x) if toward == x. */
static double next32(double x, double toward)
{
	if (isnan(x) || isnan(toward))
		return NAN;
	double f = f32_round(x);
	if (toward > x)
		return f > x ? f : (double)nextafterf((float)f, INFINITY);
	if (toward < x)
		return f < x ? f : (double)nextafterf((float)f, -INFINITY);
	return f;
}

/* qc.next32(x, toward): the next float32 after x toward `toward`. */
static int qc_next32(lua_State *L)
{
	lua_pushnumber(L, next32(luaL_checknumber(L, 1), luaL_checknumber(L, 2)));
	return 1;
}

/*
 * qc.multipliers(kind): real requantization multipliers (float32 values).
 * "extreme": 2^-31, 1.5 * 2^-32, 2^-32 (the smallest QuantizeMultiplier
 * keeps), 0.99 * 2^-32 (flushed to zero), 1e-6, 2^-24, then the
 * "near_one" list, then 1000, 65535, 2^20.
 * "near_one": 0.49999997, 0.5, 0.50000006, 0.99999994, 1, 1.0000001,
 * 1.9999999, 2, 2.0000002 (each power of two and its float32 neighbours).
 */
static int qc_multipliers(lua_State *L)
{
	static const double tiny[] = {0x1p-31,        1.5 * 0x1p-32, 0x1p-32,
	                              0.99 * 0x1p-32, 1e-6,          0x1p-24};
	static const double large[] = {1000, 65535, 0x1p20};
	const char *kind = luaL_checkstring(L, 1);
	int extreme = strcmp(kind, "extreme") == 0;
	if (!extreme && strcmp(kind, "near_one") != 0)
		return luaL_error(L, "qc.multipliers: unknown kind '%s' (extreme, near_one)", kind);
	double v[32];
	int n = 0;
	if (extreme)
		for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++)
			v[n++] = f32_round(tiny[i]);
	for (int e = -1; e <= 1; e++) {
		float p = ldexpf(1.0f, e);
		v[n++] = nextafterf(p, 0.0f);
		v[n++] = p;
		v[n++] = nextafterf(p, INFINITY);
	}
	if (extreme)
		for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
			v[n++] = f32_round(large[i]);
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_pushnumber(L, v[i]);
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

/* ---- requantization edges (gen.h) ----------------------------------------- */

/* opts[key] as a number, or def when absent; a float32 scale is rounded to float32. */
static double opt_num(lua_State *L, int t, const char *fn, const char *key, double def)
{
	if (lua_isnoneornil(L, t))
		return def;
	lua_getfield(L, t, key);
	double v = def;
	if (!lua_isnil(L, -1)) {
		if (!lua_isnumber(L, -1))
			luaL_error(L, "%s: %s must be a number", fn, key);
		v = lua_tonumber(L, -1);
	}
	lua_pop(L, 1);
	return v;
}

static lua_Integer opt_int(lua_State *L, int t, const char *fn, const char *key, lua_Integer def,
                           lua_Integer lo, lua_Integer hi)
{
	double v = opt_num(L, t, fn, key, (double)def);
	if (!(v >= (double)lo && v <= (double)hi) || v != floor(v))
		luaL_error(L, "%s: %s must be an integer in [%I, %I]", fn, key, lo, hi);
	return (lua_Integer)v;
}

static int opt_choice(lua_State *L, int t, const char *fn, const char *key,
                      const char *const *names, int def)
{
	if (lua_isnoneornil(L, t))
		return def;
	lua_getfield(L, t, key);
	int r = def;
	if (!lua_isnil(L, -1)) {
		const char *v = lua_tostring(L, -1);
		r = -1;
		for (int i = 0; v && names[i]; i++)
			if (strcmp(v, names[i]) == 0)
				r = i;
		if (r < 0) { /* "'a' or 'b'", "'a', 'b' or 'c'" */
			luaL_Buffer b;
			luaL_buffinit(L, &b);
			for (int i = 0; names[i]; i++) {
				luaL_addstring(&b, i == 0 ? "'" : names[i + 1] ? ", '" : " or '");
				luaL_addstring(&b, names[i]);
				luaL_addchar(&b, '\'');
			}
			luaL_pushresult(&b);
			luaL_error(L, "%s: %s must be %s", fn, key, lua_tostring(L, -1));
		}
	}
	lua_pop(L, 1);
	return r;
}

static float opt_scale(lua_State *L, int t, const char *fn, const char *key, float def)
{
	double v = opt_num(L, t, fn, key, (double)def);
	float f = (float)f32_round(v);
	if (!(f > 0) || !isfinite(f))
		luaL_error(L, "%s: %s must be a finite float32 > 0", fn, key);
	return f;
}

static void edge_opts(lua_State *L, int t, const char *fn, qc_edge_opts *o)
{
	static const char *const convs[] = {"litert", "onnx", NULL};
	static const char *const fls[] = {"product", "all", NULL};
	qc_edge_opts_default(o);
	if (!lua_isnoneornil(L, t))
		luaL_checktype(L, t, LUA_TTABLE);
	o->conv = (qc_edge_conv)opt_choice(L, t, fn, "convention", convs, 0);
	o->fl = (qc_edge_float)opt_choice(L, t, fn, "float", fls, 0);
	o->s_in = opt_scale(L, t, fn, "s_in", o->s_in);
	o->s_w = opt_scale(L, t, fn, "s_w", o->s_w);
	o->mult = opt_num(L, t, fn, "mult", o->mult);
	o->shift = (int)opt_int(L, t, fn, "shift", o->shift, -31, 30);
	o->ymax = opt_int(L, t, fn, "ymax", o->ymax, 0, 1 << 20);
	o->accmax = opt_int(L, t, fn, "accmax", o->accmax, 1, INT32_MAX);
	o->min_acc = (int)opt_int(L, t, fn, "min_acc", o->min_acc, 1, 64);
	static const char *const refs[] = {"double", "f32", NULL};
	o->ref_f32 = opt_choice(L, t, fn, "reference", refs, o->conv == QC_EDGE_ONNX);
	if (!lua_isnoneornil(L, t)) {
		lua_getfield(L, t, "half_away");
		o->half_away = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
}

/*
 * qc.requant_scales(kind [, opts]): a list of opts.n (default 4) triples {s_in, s_w, s_out,
 * multiplier, shift} (float32 scales; QuantizeMultiplier of s_in * s_w / s_out in double).
 * kind "round_up" (the mantissa rounds to 2^31), "f32_product" (the float32 product gives
 * another multiplier, and accumulators exist where the outputs differ), "shift" (the given
 * shift, both ends first). See gen.h.
 */
static int qc_requant_scales_l(lua_State *L)
{
	static const char *const kinds[] = {"round_up", "f32_product", "shift"};
	const char *kind = luaL_checkstring(L, 1);
	int k = -1;
	for (int i = 0; i < 3; i++)
		if (strcmp(kind, kinds[i]) == 0)
			k = i;
	if (k < 0)
		return luaL_error(L,
		                  "qc.requant_scales: unknown kind '%s' (round_up, f32_product, "
		                  "shift)",
		                  kind);
	qc_edge_opts o;
	edge_opts(L, 2, "qc.requant_scales", &o);
	int n = (int)opt_int(L, 2, "qc.requant_scales", "n", 4, 1, 256);
	qc_scale3 *t = lua_newuserdatauv(L, (size_t)n * sizeof *t, 0);
	uint64_t work = 0;
	char e[256];
	int got = qc_requant_scales((qc_edge_kind)k, &o, t, n, &work, e, sizeof e);
	charge(L, getq(L), work * 4, 1);
	if (got < 0)
		return luaL_error(L, "qc.requant_scales: %s", e);
	lua_createtable(L, got, 0);
	for (int i = 0; i < got; i++) {
		lua_createtable(L, 0, 5);
		lua_pushnumber(L, (double)t[i].s_in);
		lua_setfield(L, -2, "s_in");
		lua_pushnumber(L, (double)t[i].s_w);
		lua_setfield(L, -2, "s_w");
		lua_pushnumber(L, (double)t[i].s_out);
		lua_setfield(L, -2, "s_out");
		lua_pushinteger(L, t[i].multiplier);
		lua_setfield(L, -2, "multiplier");
		lua_pushinteger(L, t[i].shift);
		lua_setfield(L, -2, "shift");
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

/*
 * qc.requant_acc(t, kind [, opts]): exactly opts.n (default 16) accumulators for the triple
 * t = {s_in, s_w (default 1), s_out}: kind "tie", "f32" or "boundary" (gen.h), the ones
 * found repeated in order when fewer; an error when there are none.
 */
static int qc_requant_acc_l(lua_State *L)
{
	static const char *const kinds[] = {"tie", "f32", "boundary"};
	luaL_checktype(L, 1, LUA_TTABLE);
	const char *kind = luaL_checkstring(L, 2);
	int k = -1;
	for (int i = 0; i < 3; i++)
		if (strcmp(kind, kinds[i]) == 0)
			k = i;
	if (k < 0)
		return luaL_error(L, "qc.requant_acc: unknown kind '%s' (tie, f32, boundary)",
		                  kind);
	qc_edge_opts o;
	edge_opts(L, 3, "qc.requant_acc", &o);
	int n = (int)opt_int(L, 3, "qc.requant_acc", "n", 16, 1, 4096);
	qc_scale3 t = {opt_scale(L, 1, "qc.requant_acc", "s_in", 1.0f),
	               opt_scale(L, 1, "qc.requant_acc", "s_w", 1.0f),
	               opt_scale(L, 1, "qc.requant_acc", "s_out", 1.0f), 0, 0};
	int64_t *a = lua_newuserdatauv(L, (size_t)n * sizeof *a, 0);
	uint64_t work = 0;
	char e[256];
	int got = qc_requant_acc(&t, (qc_edge_kind)(QC_EDGE_TIE + k), &o, a, n, &work, e, sizeof e);
	charge(L, getq(L), work * 4, 1);
	if (got < 0)
		return luaL_error(L, "qc.requant_acc: %s", e);
	if (got == 0) {
		snprintf(e, sizeof e,
		         "qc.requant_acc: no '%s' accumulator with |y| <= %lld and |acc| <= %lld "
		         "for "
		         "s_in %.9g, s_w %.9g, s_out %.9g",
		         kind, (long long)o.ymax, (long long)o.accmax, (double)t.s_in,
		         (double)t.s_w, (double)t.s_out);
		return luaL_error(L, "%s", e);
	}
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_pushinteger(L, a[i % got]);
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

/*
 * qc.spread(totals, count, lo, hi): for each total, count integers in [lo, hi] as equal as
 * possible (the first total % count one higher) summing to it, concatenated: the data of a
 * reduction or a matmul row whose accumulator must be exactly the total.
 */
static int qc_spread(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer count = luaL_checkinteger(L, 2), lo = luaL_checkinteger(L, 3),
	            hi = luaL_checkinteger(L, 4);
	lua_Integer nt = (lua_Integer)lua_rawlen(L, 1);
	if (count < 1 || lo > hi)
		return luaL_error(L, "qc.spread: count must be >= 1 and lo <= hi");
	if (nt > 0 && count > MAX_ITEMS / nt)
		return luaL_error(L, "qc.spread: more than %I items", MAX_ITEMS);
	charge(L, getq(L), (uint64_t)(nt * count), 1);
	lua_createtable(L, (int)(nt * count), 0);
	lua_Integer k = 0;
	for (lua_Integer i = 1; i <= nt; i++) {
		lua_rawgeti(L, 1, i);
		int isint;
		lua_Integer tot = lua_tointegerx(L, -1, &isint);
		lua_pop(L, 1);
		if (!isint || tot > INT64_C(1) << 50 || tot < -(INT64_C(1) << 50))
			return luaL_error(L, "qc.spread: total %I is not an integer below 2^50", i);
		lua_Integer base = tot >= 0 ? tot / count : -((-tot + count - 1) / count);
		lua_Integer rem = tot - base * count; /* in [0, count) */
		if (base < lo || base + (rem > 0) > hi)
			return luaL_error(
			        L,
			        "qc.spread: total %I does not split into %I values in [%I, "
			        "%I]",
			        tot, count, lo, hi);
		for (lua_Integer j = 0; j < count; j++) {
			lua_pushinteger(L, base + (j < rem));
			lua_rawseti(L, -2, ++k);
		}
	}
	return 1;
}

/* The options of qc.elementwise_scales / qc.elementwise_pairs (gen.h, qc_ew_opts). */
static void ew_opts(lua_State *L, int t, const char *fn, qc_ew_opts *o)
{
	static const char *const dts[] = {"int8", "int16", NULL};
	static const char *const steps[] = {"s2", "s_out", NULL};
	static const char *const ops[] = {"add", "sub", "mul", NULL};
	static const char *const stages[] = {"any", "high_mul", "shift", NULL};
	if (!lua_isnoneornil(L, t))
		luaL_checktype(L, t, LUA_TTABLE);
	int int16 = opt_choice(L, t, fn, "dtype", dts, 0);
	qc_ew_opts_default(o, int16);
	o->op = (qc_ew_op)opt_choice(L, t, fn, "op", ops, (int)o->op);
	o->s1 = opt_scale(L, t, fn, "s1", o->s1);
	o->s2 = opt_scale(L, t, fn, "s2", o->s2);
	o->s_out = opt_scale(L, t, fn, "s_out", o->s_out);
	o->step_out = opt_choice(L, t, fn, "step", steps, 0);
	o->ratio = opt_num(L, t, fn, "ratio", 0.0);
	if (!(o->ratio >= 0) || !isfinite(o->ratio))
		luaL_error(L, "%s: ratio must be a finite number > 0", fn);
	lua_Integer qmin = int16 ? -32768 : -128, qmax = int16 ? 32767 : 127;
	o->zp1 = (int32_t)opt_int(L, t, fn, "zp1", 0, qmin, qmax);
	o->zp2 = (int32_t)opt_int(L, t, fn, "zp2", 0, qmin, qmax);
	o->zp_out = (int32_t)opt_int(L, t, fn, "zp_out", 0, qmin, qmax);
	o->lo1 = opt_int(L, t, fn, "lo1", qmin, qmin, qmax);
	o->hi1 = opt_int(L, t, fn, "hi1", qmax, qmin, qmax);
	o->lo2 = opt_int(L, t, fn, "lo2", qmin, qmin, qmax);
	o->hi2 = opt_int(L, t, fn, "hi2", qmax, qmin, qmax);
	o->ymax = opt_int(L, t, fn, "ymax", o->ymax, 0, QC_EW_YMAX);
	o->min_pairs = (int)opt_int(L, t, fn, "min_pairs", o->min_pairs, 1, 256);
	o->stage = (qc_ew_stage)opt_choice(L, t, fn, "stage", stages, (int)o->stage);
}

static int ew_kind(lua_State *L, int i, const char *fn)
{
	static const char *const kinds[] = {"tie", "tie_in", "f32"};
	const char *kind = luaL_checkstring(L, i);
	for (int k = 0; k < 3; k++)
		if (strcmp(kind, kinds[k]) == 0)
			return k;
	return luaL_error(L, "%s: unknown kind '%s' (tie, tie_in, f32)", fn, kind);
}

/*
 * qc.elementwise_scales(kind [, opts]): opts.n (default 4) scale triples {s1, s2, s_out}
 * (float32) of LiteRT ADD, SUB or MUL (opts.op) with at least opts.min_pairs input pairs of
 * kind (qc.elementwise_pairs); s2 (or, with step = 's_out', s_out) steps up by float32 ulps
 * from opts.s2 (opts.s_out). See gen.h.
 */
static int qc_ew_scales_l(lua_State *L)
{
	const char *fn = "qc.elementwise_scales";
	int k = ew_kind(L, 1, fn);
	qc_ew_opts o;
	ew_opts(L, 2, fn, &o);
	int n = (int)opt_int(L, 2, fn, "n", 4, 1, 64);
	float(*s)[3] = lua_newuserdatauv(L, (size_t)n * sizeof *s, 0);
	uint64_t work = 0;
	char e[256];
	struct {
		int fn, k, n;
		qc_ew_opts o;
	} key;
	memset(&key, 0, sizeof key);
	key.fn = 1;
	key.k = k;
	key.n = n;
	memcpy(&key.o, &o, sizeof o); /* with its padding, zeroed by qc_ew_opts_default */
	qc_lua *q = getq(L);
	int got;
	if (!memo_get(&key, sizeof key, s, (size_t)n * sizeof *s, &got, &work)) {
		got = qc_ew_scales((qc_ew_kind)k, &o, s, n, &work, e, sizeof e);
		if (got >= 0)
			memo_put(&key, sizeof key, s, (size_t)got * sizeof *s, got, work);
	}
	charge(L, q, work, 1);
	if (got < 0)
		return luaL_error(L, "%s: %s", fn, e);
	lua_createtable(L, got, 0);
	for (int i = 0; i < got; i++) {
		lua_createtable(L, 0, 3);
		lua_pushnumber(L, (double)s[i][0]);
		lua_setfield(L, -2, "s1");
		lua_pushnumber(L, (double)s[i][1]);
		lua_setfield(L, -2, "s2");
		lua_pushnumber(L, (double)s[i][2]);
		lua_setfield(L, -2, "s_out");
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

/*
 * qc.elementwise_pairs(t, kind [, opts]): {a = {...}, b = {...}}, exactly opts.n (default 16)
 * pairs of stored input values of kind for the scales t = {s1, s2, s_out} (the ones found
 * repeated in order when fewer; an error when there are none). See gen.h.
 */
static int qc_ew_pairs_l(lua_State *L)
{
	const char *fn = "qc.elementwise_pairs";
	luaL_checktype(L, 1, LUA_TTABLE);
	int k = ew_kind(L, 2, fn);
	qc_ew_opts o;
	ew_opts(L, 3, fn, &o);
	int n = (int)opt_int(L, 3, fn, "n", 16, 1, 4096);
	float s[3] = {opt_scale(L, 1, fn, "s1", 1.0f), opt_scale(L, 1, fn, "s2", 1.0f),
	              opt_scale(L, 1, fn, "s_out", 1.0f)};
	int32_t *q = lua_newuserdatauv(L, (size_t)n * 2 * sizeof *q, 0);
	uint64_t work = 0;
	char e[256];
	struct {
		int fn, k, n;
		float s[3];
		qc_ew_opts o;
	} key;
	memset(&key, 0, sizeof key);
	key.fn = 2;
	key.k = k;
	key.n = n;
	memcpy(key.s, s, sizeof key.s);
	memcpy(&key.o, &o, sizeof o);
	qc_lua *ql = getq(L);
	int got;
	if (!memo_get(&key, sizeof key, q, (size_t)n * 2 * sizeof *q, &got, &work)) {
		got = qc_ew_pairs(s, (qc_ew_kind)k, &o, q, q + n, n, &work, e, sizeof e);
		if (got >= 0)
			memo_put(&key, sizeof key, q, (size_t)n * 2 * sizeof *q, got, work);
	}
	charge(L, ql, work, 1);
	if (got < 0)
		return luaL_error(L, "%s: %s", fn, e);
	if (got == 0)
		return luaL_error(L, "%s: no '%s' pair with |y| <= %I for s1 %f, s2 %f, s_out %f",
		                  fn, lua_tostring(L, 2), (lua_Integer)o.ymax, (double)s[0],
		                  (double)s[1], (double)s[2]);
	lua_createtable(L, 0, 2);
	for (int j = 0; j < 2; j++) {
		lua_createtable(L, n, 0);
		for (int i = 0; i < n; i++) {
			lua_pushinteger(L, q[j * n + i % got]);
			lua_rawseti(L, -2, i + 1);
		}
		lua_setfield(L, -2, j ? "b" : "a");
	}
	return 1;
}

/* qc.qrange(dtype): qmin, qmax of an integer dtype (int4 .. int32). */
static int qc_qrange(lua_State *L)
{
	static const struct {
		const char *name;
		lua_Integer lo, hi;
	} r[] = {{"int4", -8, 7},
	         {"uint4", 0, 15},
	         {"int8", -128, 127},
	         {"uint8", 0, 255},
	         {"int16", -32768, 32767},
	         {"uint16", 0, 65535},
	         {"int32", INT32_MIN, INT32_MAX}};
	const char *d = luaL_checkstring(L, 1);
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
		if (strcmp(d, r[i].name) == 0) {
			lua_pushinteger(L, r[i].lo);
			lua_pushinteger(L, r[i].hi);
			return 2;
		}
	}
	return luaL_error(L,
	                  "qc.qrange: unknown dtype '%s' (int4, uint4, int8, uint8, int16, "
	                  "uint16, int32)",
	                  d);
}

/* ---- building the sandbox ------------------------------------------------ */

/* Replaces field name of the table at t by a C closure over its old value and its name. */
static void wrap_field(lua_State *L, int t, const char *name, lua_CFunction f)
{
	lua_getfield(L, t, name);
	lua_pushstring(L, name);
	lua_pushcclosure(L, f, 2);
	lua_setfield(L, t, name);
}

static int p_open(lua_State *L)
{
	qc_lua *q = lua_touserdata(L, 1);
	static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},
	                                {LUA_STRLIBNAME, luaopen_string},
	                                {LUA_TABLIBNAME, luaopen_table},
	                                {LUA_MATHLIBNAME, luaopen_math},
	                                {LUA_UTF8LIBNAME, luaopen_utf8}};
	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		luaL_requiref(L, libs[i].name, libs[i].func, 1);
		lua_pop(L, 1);
	}
	lua_pushglobaltable(L);
	int G = lua_gettop(L);
	static const char *const gone[] = {"load",  "loadfile",       "dofile", "require",
	                                   "print", "collectgarbage", LUA_GNAME};
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
		lua_pushnil(L);
		lua_setfield(L, G, gone[i]);
	}
	lua_pushcfunction(L, sb_pairs);
	lua_setfield(L, G, "pairs");
	lua_pushcfunction(L, sb_next);
	lua_setfield(L, G, "next");
	lua_pushcfunction(L, sb_tostring);
	lua_setfield(L, G, "tostring");
	lua_pushcfunction(L, sb_pcall);
	lua_setfield(L, G, "pcall");
	lua_pushcfunction(L, sb_xpcall);
	lua_setfield(L, G, "xpcall");
	lua_pushcfunction(L, sb_setmetatable);
	lua_setfield(L, G, "setmetatable");
	lua_pushcfunction(L, sb_rawset);
	lua_setfield(L, G, "rawset");
	lua_pushcfunction(L, sb_rawget);
	lua_setfield(L, G, "rawget");

	lua_getfield(L, G, LUA_STRLIBNAME);
	int str = lua_gettop(L);
	lua_pushnil(L);
	lua_setfield(L, str, "dump");
	/* pattern matching backtracks in C where the instruction count cannot see it: a
	 * pattern like ("a*"):rep(20) .. "b" never ends; specs have no use for patterns */
	static const char *const patterns[] = {"find", "match", "gmatch", "gsub"};
	for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
		lua_pushnil(L);
		lua_setfield(L, str, patterns[i]);
	}
	wrap_field(L, str, "rep", sb_rep);
	wrap_field(L, str, "format", sb_format);
	lua_getfield(L, G, LUA_MATHLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "random");
	lua_pushnil(L);
	lua_setfield(L, -2, "randomseed");
	lua_pop(L, 1);
	lua_getfield(L, G, LUA_TABLIBNAME);
	lua_pushcfunction(L, sb_sort);
	lua_setfield(L, -2, "sort");
	wrap_field(L, lua_gettop(L), "move", sb_move);
	wrap_field(L, lua_gettop(L), "insert", sb_shift);
	wrap_field(L, lua_gettop(L), "remove", sb_shift);
	lua_pop(L, 1);

	static const luaL_Reg qclib[] = {{"sizes", qc_sizes},
	                                 {"primes", qc_primes},
	                                 {"range", qc_range},
	                                 {"f32", qc_f32},
	                                 {"next32", qc_next32},
	                                 {"multipliers", qc_multipliers},
	                                 {"qrange", qc_qrange},
	                                 {"requant_scales", qc_requant_scales_l},
	                                 {"requant_acc", qc_requant_acc_l},
	                                 {"spread", qc_spread},
	                                 {"elementwise_scales", qc_ew_scales_l},
	                                 {"elementwise_pairs", qc_ew_pairs_l},
	                                 {NULL, NULL}};
	luaL_newlib(L, qclib);
	lua_setfield(L, G, "qc");

	/* the libraries become read-only views */
	static const char *const frozen[] = {LUA_STRLIBNAME, LUA_TABLIBNAME, LUA_MATHLIBNAME,
	                                     LUA_UTF8LIBNAME, "qc"};
	for (size_t i = 0; i < sizeof frozen / sizeof frozen[0]; i++) {
		lua_getfield(L, G, frozen[i]);
		push_readonly(L, -1);
		lua_setfield(L, G, frozen[i]);
		lua_pop(L, 1);
	}
	/* strings keep the real library as __index (fast methods); getmetatable("")
	 * shows a read-only {__index = <read-only string library>} */
	lua_pushliteral(L, "");
	lua_getmetatable(L, -1);
	lua_createtable(L, 0, 1);
	lua_getfield(L, G, LUA_STRLIBNAME);
	lua_setfield(L, -2, "__index");
	push_readonly(L, -1);
	lua_setfield(L, -3, "__metatable");
	lua_pop(L, 3);
	lua_pop(L, 1); /* the real string table */

	lua_createtable(L, 0, 3);
	lua_pushvalue(L, G);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, env_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	q->ref_envmt = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pushboolean(L, 0);
	q->ref_env = luaL_ref(L, LUA_REGISTRYINDEX);
	/* G itself is out of the scripts' reach; its misses look at the bindings */
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, env_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, G);

	lua_newuserdatauv(L, 1, 0);
	luaL_newmetatable(L, RNG_TNAME);
	static const luaL_Reg rngm[] = {
	        {"uniform", rng_uniform}, {"int", rng_int}, {"normal", rng_normal}, {NULL, NULL}};
	luaL_newlib(L, rngm);
	lua_setfield(L, -2, "__index");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
	q->ref_rng = luaL_ref(L, LUA_REGISTRYINDEX);

	for (int k = 0; k < K_KINDS; k++) {
		lua_newtable(L);
		q->ref_cache[k] = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	return 0;
}

/* ---- running protected --------------------------------------------------- */

static void set_line(int *line, int v)
{
	if (line)
		*line = v;
}

/* Copies the error message, moving a leading "<tag>:<line>: " into *line. */
static void take_error(lua_State *L, int kind, char *err, size_t err_size, int *line)
{
	char tmp[64];
	const char *m;
	switch (lua_type(L, -1)) {
	case LUA_TSTRING: m = lua_tostring(L, -1); break;
	case LUA_TNIL: m = "error (nil error object)"; break;
	case LUA_TNUMBER:
		snprintf(tmp, sizeof tmp, "error %.17g", (double)lua_tonumberx(L, -1, NULL));
		m = tmp;
		break;
	default:
		snprintf(tmp, sizeof tmp, "error (the error object is a %s)",
		         lua_typename(L, lua_type(L, -1)));
		m = tmp;
	}
	set_line(line, 0);
	const char *tag = chunk_tag[kind];
	size_t tl = strlen(tag);
	if (strncmp(m, tag, tl) == 0 && m[tl] == ':' && m[tl + 1] >= '0' && m[tl + 1] <= '9') {
		const char *p = m + tl + 1;
		long v = 0;
		while (*p >= '0' && *p <= '9' && v < 100000000)
			v = v * 10 + (*p++ - '0');
		if (*p == ':') {
			p++;
			if (*p == ' ')
				p++;
			m = p;
			set_line(line, (int)v);
		}
	}
	if (err && err_size)
		snprintf(err, err_size, "%s", m);
}

static int p_collect(lua_State *L)
{
	lua_gc(L, LUA_GCCOLLECT);
	return 0;
}

/* Message handler: an error raised inside a C function (a library function,
 * a C stack overflow) carries no position; give it the line of the innermost
 * running Lua function, which is the chunk's. */
static int p_msgh(lua_State *L)
{
	if (lua_type(L, 1) != LUA_TSTRING || has_position(lua_tostring(L, 1)))
		return 1;
	lua_Debug ar;
	for (int level = 1; lua_getstack(L, level, &ar); level++) {
		if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
			lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline,
			                lua_tostring(L, 1));
			break;
		}
	}
	return 1;
}

/* Calls f(ctx) under lua_pcall with a fresh instruction budget, drawing on the spec's
 * budget of its kind; once that is exhausted, fails at once. */
static int run_protected(qc_lua *q, int kind, lua_CFunction f, void *ctx, char *err,
                         size_t err_size, int *line)
{
	lua_State *L = q->L;
	q->budget = kind == K_CHECK ? B_CHECK : B_EXPAND;
	struct budget *b = &q->b[q->budget];
	if (q->share) {
		/* the evaluation starts from what every state sharing the budget has used */
		qc_lua_share *sh = q->share;
		if (atomic_load(&sh->state[q->budget]) == 2 && !b->exhausted) {
			b->exhausted = 1;
			snprintf(b->msg, sizeof b->msg, "%s", sh->msg[q->budget]);
		}
		b->steps = q->share_steps = atomic_load(&sh->steps[q->budget]);
		b->seconds = 1e-9 * (double)atomic_load(&sh->nanos[q->budget]);
	}
	if (b->exhausted) {
		if (err && err_size)
			snprintf(err, err_size, "%s", b->msg);
		set_line(line, 0);
		return -1;
	}
	q->steps = 0;
	q->stopped = 0;
	q->oom = 0;
	q->t0 = 0; /* the first charge starts the clock */
	q->clock_skip = 0;
	lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_STEP); /* also restarts the count */
	lua_settop(L, 0);
	lua_pushcfunction(L, p_msgh);
	lua_pushcfunction(L, f);
	lua_pushlightuserdata(L, ctx);
	int status = lua_pcall(L, 1, 0, 1);
	q->rng = NULL;
	/* the bindings were the caller's for this call only */
	q->binds = NULL;
	q->n_binds = 0;
	q->pending = 0;
	if (q->ref_env > 0) { /* the slot exists and is not nil: this cannot allocate */
		lua_pushboolean(L, 0);
		lua_rawseti(L, LUA_REGISTRYINDEX, q->ref_env);
	}
	double spent = q->t0 ? now_seconds() - q->t0 : 0;
	b->seconds += spent;
	if (q->share) {
		qc_lua_share *sh = q->share;
		int k = q->budget;
		atomic_fetch_add(&sh->steps[k], (unsigned long long)(b->steps - q->share_steps));
		atomic_fetch_add(&sh->nanos[k], (unsigned long long)(spent * 1e9));
		int none = 0;
		if (b->exhausted && atomic_compare_exchange_strong(&sh->state[k], &none, 1)) {
			snprintf(sh->msg[k], sizeof sh->msg[k], "%s", b->msg);
			atomic_store(&sh->state[k], 2);
		}
	}
	if (q->stopped) {
		/* whatever the script made of the error object on its way out, a stop is a stop */
		lua_settop(L, 0);
		lua_pushstring(L, q->stop_msg);
		take_error(L, kind, err, err_size, line);
		lua_settop(L, 0);
		return -1;
	}
	if (status == LUA_OK) {
		lua_settop(L, 0);
		set_line(line, 0);
		return 0;
	}
	if (status == LUA_ERRMEM || q->oom) {
		lua_settop(L, 0);
		if (err && err_size)
			snprintf(err, err_size, "Lua memory limit of %zu MiB exceeded",
			         QC_LUA_MEM_LIMIT >> 20);
		set_line(line, 0);
		/* give the memory back now, so the next evaluation starts clean */
		lua_pushcfunction(L, p_collect);
		lua_pcall(L, 0, 0, 0);
		lua_settop(L, 0);
		return -1;
	}
	take_error(L, kind, err, err_size, line);
	lua_settop(L, 0);
	return -1;
}

qc_lua *qc_lua_new(char *err, size_t err_size)
{
	qc_lua *q = calloc(1, sizeof *q);
	if (!q) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	q->L = lua_newstate(sb_alloc, q);
	if (!q->L) {
		free(q);
		snprintf(err, err_size, "cannot create a Lua state");
		return NULL;
	}
	lua_atpanic(q->L, sb_panic);
	qc_lua_set_budget(q, QC_LUA_SPEC_INSTRUCTION_LIMIT, QC_LUA_SPEC_SECONDS);
	int line;
	if (run_protected(q, K_EXPR, p_open, q, err, err_size, &line) != 0) {
		lua_close(q->L);
		free(q);
		return NULL;
	}
	return q;
}

void qc_lua_budget_reset(qc_lua *q)
{
	for (int k = 0; k < B_KINDS; k++) {
		q->b[k].steps = 0;
		q->b[k].seconds = 0;
		q->b[k].exhausted = 0;
	}
}

void qc_lua_set_budget(qc_lua *q, uint64_t instructions, double seconds)
{
	for (int k = 0; k < B_KINDS; k++) {
		q->b[k].max_steps = instructions;
		q->b[k].max_seconds = seconds;
	}
}

int qc_lua_exhausted(const qc_lua *q)
{
	return q->b[B_EXPAND].exhausted ||
	       (q->share && atomic_load(&q->share->state[B_EXPAND]) == 2);
}

void qc_lua_share_budget(qc_lua *q, qc_lua_share *share)
{
	q->share = share;
}

void qc_lua_free(qc_lua *q)
{
	if (!q)
		return;
	lua_close(q->L);
	free(q->touched);
	free(q);
}

/* ---- compiling, environments --------------------------------------------- */

/* Pushes the compiled chunk for src (cached by text). */
static void push_chunk(lua_State *L, qc_lua *q, int kind, const char *src)
{
	luaL_checkstack(L, 6, NULL);
	lua_rawgeti(L, LUA_REGISTRYINDEX, q->ref_cache[kind]);
	int cache = lua_gettop(L);
	lua_pushstring(L, src);
	lua_pushvalue(L, -1);
	if (lua_rawget(L, cache) == LUA_TFUNCTION) {
		lua_replace(L, cache);
		lua_settop(L, cache);
		return;
	}
	lua_pop(L, 1);
	size_t len;
	const char *text;
	if (kind == K_EXPR)
		text = lua_pushfstring(L, "return %s", src);
	else
		lua_pushvalue(L, -1), text = lua_tostring(L, -1);
	len = lua_rawlen(L, -1);
	int status = luaL_loadbufferx(L, text, len, chunk_name[kind], "t");
	if (status != LUA_OK) {
		if (status == LUA_ERRMEM)
			q->oom = 1;
		lua_error(L);
	}
	if (++q->cache_n[kind] > CACHE_MAX) { /* start over rather than grow without end */
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_rawseti(L, LUA_REGISTRYINDEX, q->ref_cache[kind]);
		lua_replace(L, cache);
		q->cache_n[kind] = 1;
	}
	lua_pushvalue(L, cache + 1);
	lua_pushvalue(L, -2);
	lua_rawset(L, cache);
	lua_replace(L, cache);
	lua_settop(L, cache);
}

/* Charges converting v (its lists' and maps' items) and fails where push_lval would: push_env
 * charges every binding at the start, read or not, so budgets do not depend on what a script
 * reads. */
static void charge_lval(lua_State *L, qc_lua *q, const qc_lval *v, int depth)
{
	if (!v)
		return;
	if (depth > MAX_DEPTH)
		fail(L, "a binding is nested deeper than %d levels", MAX_DEPTH);
	switch (v->kind) {
	case QC_LV_NIL:
	case QC_LV_BOOL:
	case QC_LV_INT:
	case QC_LV_NUM:
	case QC_LV_STR: break;
	case QC_LV_LIST:
	case QC_LV_MAP:
		charge(L, q, v->n, 1);
		for (size_t i = 0; i < v->n; i++)
			if (v->kind == QC_LV_LIST || v->keys[i])
				charge_lval(L, q, &v->items[i], depth + 1);
		break;
	default: fail(L, "a binding has an unknown value kind %d", (int)v->kind);
	}
}

/* Pushes v as a fresh Lua value (charge_lval has charged it). */
static void push_lval(lua_State *L, const qc_lval *v, int depth)
{
	if (!v) {
		lua_pushnil(L);
		return;
	}
	if (depth > MAX_DEPTH)
		fail(L, "a binding is nested deeper than %d levels", MAX_DEPTH);
	luaL_checkstack(L, 4, NULL);
	switch (v->kind) {
	case QC_LV_NIL: lua_pushnil(L); break;
	case QC_LV_BOOL: lua_pushboolean(L, v->b); break;
	case QC_LV_INT: lua_pushinteger(L, v->i); break;
	case QC_LV_NUM: lua_pushnumber(L, v->num); break;
	case QC_LV_STR: lua_pushstring(L, v->str ? v->str : ""); break;
	case QC_LV_LIST:
		lua_createtable(L, v->n < INT32_MAX ? (int)v->n : 0, 0);
		for (size_t i = 0; i < v->n; i++) {
			push_lval(L, &v->items[i], depth + 1);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		break;
	case QC_LV_MAP:
		lua_createtable(L, 0, v->n < INT32_MAX ? (int)v->n : 0);
		for (size_t i = 0; i < v->n; i++) {
			if (!v->keys[i])
				continue;
			lua_pushstring(L, v->keys[i]);
			push_lval(L, &v->items[i], depth + 1);
			lua_rawset(L, -3);
		}
		break;
	default: fail(L, "a binding has an unknown value kind %d", (int)v->kind);
	}
}

/* ---- lazy bindings ------------------------------------------------------- */

/* The binding that the name name[0..len) reads (the last one of that name), or -1. */
static int binding_of(const qc_lua *q, const char *name, size_t len)
{
	for (int i = q->n_binds - 1; i >= 0; i--) {
		const char *b = q->binds[i].name;
		if (b && strlen(b) == len && !memcmp(b, name, len))
			return i;
	}
	return -1;
}

/* Stores binding i in the environment at env (nil stores nothing) and pushes its value. */
static void env_store(lua_State *L, qc_lua *q, int i, int env)
{
	q->touched[i] = 1;
	push_lval(L, q->binds[i].val, 0);
	lua_pushstring(L, q->binds[i].name);
	lua_pushvalue(L, -2);
	lua_rawset(L, env);
}

/* __index of G, reached when neither the environment nor G holds the name: a pending
 * binding of the running evaluation, converted now and kept in its environment. */
static int env_index(lua_State *L)
{
	qc_lua *q = getq(L);
	if (!q->pending || lua_type(L, 2) != LUA_TSTRING)
		return 0;
	size_t len;
	const char *k = lua_tolstring(L, 2, &len);
	int i = binding_of(q, k, len);
	if (i < 0 || q->touched[i])
		return 0;
	lua_rawgeti(L, LUA_REGISTRYINDEX, q->ref_env);
	env_store(L, q, i, lua_gettop(L));
	return 1;
}

static int raw_set(lua_State *L)
{
	lua_rawset(L, 1);
	return 0;
}

/* __newindex of the environments (a name they do not hold): a binding assigned before it is
 * read is no longer resolved; the assignment itself is raw, as without the metamethod. */
static int env_newindex(lua_State *L)
{
	qc_lua *q = getq(L);
	int t = lua_type(L, 2);
	if (q->pending && t == LUA_TSTRING) {
		size_t len;
		const char *k = lua_tolstring(L, 2, &len);
		int i = binding_of(q, k, len);
		if (i >= 0)
			q->touched[i] = 1;
	}
	if (t == LUA_TNIL ||
	    (t == LUA_TNUMBER && !lua_isinteger(L, 2) && isnan(lua_tonumber(L, 2)))) {
		/* the error the assignment gives without the metamethod ("table index is nil"),
		 * at the position Lua gives it: the assigning line */
		lua_settop(L, 3);
		lua_pushcfunction(L, raw_set);
		lua_rotate(L, 1, 1);
		int status = lua_pcall(L, 3, 0, 0);
		if (status == LUA_ERRMEM)
			getq(L)->oom = 1;
		else if (status != LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
			luaL_where(L, 1);
			lua_insert(L, -2);
			lua_concat(L, 2);
		}
		return status == LUA_OK ? 0 : lua_error(L);
	}
	lua_settop(L, 3);
	lua_rawset(L, 1);
	return 0;
}

/* Before the table at idx is read raw: if it is the running evaluation's environment, stores
 * the bindings still pending, so that it holds what it would have held from the start. */
static void env_settle(lua_State *L, int idx)
{
	qc_lua *q = getq(L);
	if (!q->pending || lua_type(L, idx) != LUA_TTABLE)
		return;
	idx = lua_absindex(L, idx);
	luaL_checkstack(L, 6, NULL);
	lua_rawgeti(L, LUA_REGISTRYINDEX, q->ref_env);
	int same = lua_rawequal(L, -1, idx);
	lua_pop(L, 1);
	if (!same)
		return;
	for (int i = 0; i < q->n_binds; i++) {
		const char *nm = q->binds[i].name;
		if (q->touched[i] || !nm)
			continue;
		if (binding_of(q, nm, strlen(nm)) != i) {
			q->touched[i] = 1; /* a later binding of the name wins */
			continue;
		}
		env_store(L, q, i, idx);
		lua_pop(L, 1);
	}
	q->pending = 0;
}

/* Room for n bindings' flags (outside Lua: the caller's memory, not the state's). */
static int bind_room(qc_lua *q, int n)
{
	if (n <= q->touched_cap)
		return 0;
	unsigned char *t = realloc(q->touched, (size_t)n);
	if (!t)
		return -1;
	q->touched = t;
	q->touched_cap = n;
	return 0;
}

/*
 * Pushes a fresh environment for the bindings b[0..n): _G is the environment itself; a
 * binding named like a global of G (or _G) is stored at once, the others wait for their first
 * use (env_index). Every binding's conversion is charged now, as if all were stored.
 */
static void push_env(lua_State *L, qc_lua *q, const qc_lbind *b, int n)
{
	luaL_checkstack(L, 6, NULL);
	lua_createtable(L, 0, 4);
	int env = lua_gettop(L);
	lua_pushvalue(L, env);
	lua_setfield(L, env, LUA_GNAME); /* before the metatable: a raw store */
	lua_rawgeti(L, LUA_REGISTRYINDEX, q->ref_envmt);
	lua_setmetatable(L, env);
	lua_pushvalue(L, env);
	lua_rawseti(L, LUA_REGISTRYINDEX, q->ref_env);
	lua_pushglobaltable(L);
	int G = lua_gettop(L);
	q->binds = b;
	q->n_binds = n;
	q->pending = 0;
	for (int i = 0; i < n; i++) {
		q->touched[i] = 1;
		if (!b[i].name)
			continue;
		charge_lval(L, q, b[i].val, 0);
		lua_pushstring(L, b[i].name);
		int shadows = !strcmp(b[i].name, LUA_GNAME) || lua_rawget(L, G) != LUA_TNIL;
		lua_pop(L, 1);
		if (shadows) {
			env_store(L, q, i, env);
			lua_pop(L, 1);
		} else {
			q->touched[i] = 0;
			q->pending = 1;
		}
	}
	lua_settop(L, env);
}

/* Pushes the chunk with a fresh environment as its _ENV. */
static void prepare(lua_State *L, qc_lua *q, int kind, const char *src, const qc_lbind *b, int n)
{
	push_chunk(L, q, kind, src);
	push_env(L, q, b, n);
	lua_setupvalue(L, -2, 1);
}

/* ---- Lua -> qc_lval -------------------------------------------------------- */

typedef struct conv {
	qc_lalloc alloc;
	void *ctx;
	lua_Integer items;
} conv;

static void *conv_alloc(lua_State *L, conv *cv, size_t n)
{
	void *p = cv->alloc(cv->ctx, n ? n : 1);
	if (!p)
		fail(L, "out of memory converting a Lua value");
	return p;
}

static const char *conv_str(lua_State *L, conv *cv, int idx)
{
	size_t len;
	const char *s = lua_tolstring(L, idx, &len);
	if (memchr(s, 0, len))
		fail(L, "a string with a NUL byte cannot be a spec value");
	char *c = conv_alloc(L, cv, len + 1);
	memcpy(c, s, len);
	c[len] = 0;
	return c;
}

static int str_qsort_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b); /* unsigned bytes */
}

static void to_lval(lua_State *L, int idx, conv *cv, int depth, qc_lval *out);

/* Counts the values in the tree at idx before anything is allocated: fails on
 * nesting deeper than MAX_DEPTH (a cycle) or more than MAX_ITEMS values. */
static void count_items(lua_State *L, int idx, int depth, lua_Integer *items)
{
	if (lua_type(L, idx) != LUA_TTABLE)
		return;
	if (depth >= MAX_DEPTH)
		fail(L, "tables nested deeper than %d levels (a table containing itself?)",
		     MAX_DEPTH);
	luaL_checkstack(L, 4, NULL);
	env_settle(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		if (++*items > MAX_ITEMS)
			fail(L, "a value with more than %I items", MAX_ITEMS);
		if (!(*items & 1023))
			charge(L, getq(L), 1024, 1);
		count_items(L, lua_gettop(L), depth + 1, items);
		lua_pop(L, 1);
	}
}

static void table_to_lval(lua_State *L, int t, conv *cv, int depth, qc_lval *out)
{
	if (depth >= MAX_DEPTH)
		fail(L, "tables nested deeper than %d levels (a table containing itself?)",
		     MAX_DEPTH);
	luaL_checkstack(L, 6, NULL);
	env_settle(L, t);
	lua_Integer total = 0, maxk = 0;
	int list = 1, strs = 1;
	lua_pushnil(L);
	while (lua_next(L, t)) {
		lua_pop(L, 1);
		total++;
		if (lua_type(L, -1) == LUA_TSTRING) {
			list = 0;
		} else {
			strs = 0;
			if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1) {
				if (lua_tointeger(L, -1) > maxk)
					maxk = lua_tointeger(L, -1);
			} else {
				list = 0;
			}
		}
		if (cv->items + total > MAX_ITEMS)
			fail(L, "a value with more than %I items", MAX_ITEMS);
	}
	cv->items += total;
	if (list && maxk != total)
		list = 0;
	if (!list && !strs)
		fail(L, "a table must be a list or have string keys");
	size_t n = (size_t)total;
	qc_lval *items = n ? conv_alloc(L, cv, n * sizeof(qc_lval)) : NULL;
	out->n = n;
	out->items = items;
	if (list) {
		out->kind = QC_LV_LIST;
		for (size_t i = 0; i < n; i++) {
			lua_rawgeti(L, t, (lua_Integer)i + 1);
			to_lval(L, lua_gettop(L), cv, depth + 1, &items[i]);
			lua_pop(L, 1);
		}
		return;
	}
	out->kind = QC_LV_MAP;
	const char **keys = conv_alloc(L, cv, n * sizeof(char *));
	size_t k = 0;
	lua_pushnil(L);
	while (lua_next(L, t)) {
		lua_pop(L, 1);
		keys[k++] = conv_str(L, cv, -1);
	}
	qsort(keys, n, sizeof(char *), str_qsort_cmp);
	for (size_t i = 0; i < n; i++) {
		lua_pushstring(L, keys[i]);
		lua_rawget(L, t);
		to_lval(L, lua_gettop(L), cv, depth + 1, &items[i]);
		lua_pop(L, 1);
	}
	out->keys = keys;
}

static void to_lval(lua_State *L, int idx, conv *cv, int depth, qc_lval *out)
{
	memset(out, 0, sizeof *out);
	switch (lua_type(L, idx)) {
	case LUA_TNIL: out->kind = QC_LV_NIL; break;
	case LUA_TBOOLEAN:
		out->kind = QC_LV_BOOL;
		out->b = lua_toboolean(L, idx);
		break;
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			out->kind = QC_LV_INT;
			out->i = lua_tointeger(L, idx);
			out->num = (double)out->i;
		} else {
			out->kind = QC_LV_NUM;
			out->num = lua_tonumber(L, idx);
		}
		break;
	case LUA_TSTRING:
		out->kind = QC_LV_STR;
		out->str = conv_str(L, cv, idx);
		break;
	case LUA_TTABLE: table_to_lval(L, idx, cv, depth, out); break;
	default: fail(L, "cannot use a %s as a spec value", luaL_typename(L, idx));
	}
}

/* ---- the three entry points ---------------------------------------------- */

typedef struct eval_ctx {
	qc_lua *q;
	const char *src;
	const qc_lbind *binds;
	int n_binds;
	conv cv;
	qc_lval *out;
} eval_ctx;

static int p_eval(lua_State *L)
{
	eval_ctx *c = lua_touserdata(L, 1);
	prepare(L, c->q, K_EXPR, c->src, c->binds, c->n_binds);
	lua_pushvalue(L, -1);
	lua_call(L, 0, 1);
	lua_pushnil(L); /* drop the environment: the chunk holds nothing between calls */
	lua_setupvalue(L, -3, 1);
	lua_Integer items = 0;
	count_items(L, lua_gettop(L), 0, &items);
	to_lval(L, lua_gettop(L), &c->cv, 0, c->out);
	return 0;
}

int qc_lua_eval(qc_lua *L, const char *expr, const qc_lbind *binds, int n_binds, qc_lalloc alloc,
                void *alloc_ctx, qc_lval *out, char *err, size_t err_size, int *line)
{
	memset(out, 0, sizeof *out);
	if (bind_room(L, n_binds) != 0) {
		if (err && err_size)
			snprintf(err, err_size, "out of memory");
		set_line(line, 0);
		return -1;
	}
	eval_ctx c = {L, expr, binds, n_binds, {alloc, alloc_ctx, 0}, out};
	int r = run_protected(L, K_EXPR, p_eval, &c, err, err_size, line);
	if (r != 0)
		memset(out, 0, sizeof *out);
	return r;
}

/* Fails with "<tag>:<line>: <message on top>", the line where the function at idx starts. */
static int fail_at_function(lua_State *L, int kind, int idx)
{
	lua_Debug ar;
	lua_pushvalue(L, idx);
	lua_getinfo(L, ">S", &ar);
	return fail(L, "%s:%d: %s", chunk_tag[kind], ar.linedefined > 0 ? ar.linedefined : 1,
	            lua_tostring(L, -1));
}

typedef struct gen_ctx {
	qc_lua *q;
	const char *src;
	const qc_lbind *binds;
	int n_binds;
	const int64_t *shape;
	int rank;
	qc_rng *rng;
	double *values;
	size_t count;
} gen_ctx;

/* Calls the prepared chunk on top and keeps its first result, which must be a function. */
static void call_chunk_for_function(lua_State *L, const char *what)
{
	lua_pushvalue(L, -1);
	lua_call(L, 0, 1);
	if (lua_type(L, -1) != LUA_TFUNCTION)
		fail(L, "the %s must return a function (it returned a %s)", what,
		     luaL_typename(L, -1));
}

static int p_generate(lua_State *L)
{
	gen_ctx *c = lua_touserdata(L, 1);
	prepare(L, c->q, K_GEN, c->src, c->binds, c->n_binds); /* 2 */
	call_chunk_for_function(L, "generator chunk");         /* 3 */
	lua_createtable(L, c->rank > 0 ? c->rank : 0, 0);      /* 4 */
	for (int d = 0; d < c->rank; d++) {
		lua_pushinteger(L, c->shape[d]);
		lua_rawseti(L, 4, d + 1);
	}
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->q->ref_rng); /* 5 */
	c->q->rng = c->rng;
	for (size_t i = 0; i < c->count; i++) {
		lua_pushvalue(L, 3);
		lua_pushinteger(L, (lua_Integer)i);
		lua_pushvalue(L, 4);
		lua_pushvalue(L, 5);
		lua_call(L, 3, 1);
		if (lua_type(L, -1) != LUA_TNUMBER) {
			lua_pushfstring(L, "generator returned a %s for element %I",
			                luaL_typename(L, -1), (lua_Integer)i);
			fail_at_function(L, K_GEN, 3);
		}
		c->values[i] = lua_tonumber(L, -1);
		lua_pop(L, 1);
	}
	c->q->rng = NULL;
	lua_pushnil(L);
	lua_setupvalue(L, 2, 1);
	return 0;
}

int qc_lua_generate(qc_lua *L, const char *chunk, const qc_lbind *binds, int n_binds,
                    const int64_t *shape, int rank, qc_rng *rng, double *values, size_t count,
                    char *err, size_t err_size, int *line)
{
	if (bind_room(L, n_binds) != 0) {
		if (err && err_size)
			snprintf(err, err_size, "out of memory");
		set_line(line, 0);
		return -1;
	}
	gen_ctx c = {L, chunk, binds, n_binds, shape, rank, rng, values, count};
	return run_protected(L, K_GEN, p_generate, &c, err, err_size, line);
}

typedef struct check_ctx {
	qc_lua *q;
	const char *src;
	const double *e, *expected, *got;
	size_t n;
	int *ok;
	char *why;
	size_t why_size;
} check_ctx;

static int p_check(lua_State *L)
{
	check_ctx *c = lua_touserdata(L, 1);
	if (c->n > (size_t)MAX_ITEMS)
		fail(L, "a check over more than %I elements", MAX_ITEMS);
	prepare(L, c->q, K_CHECK, c->src, NULL, 0); /* 2 */
	call_chunk_for_function(L, "check chunk");  /* 3 */
	lua_pushvalue(L, 3);
	const double *arr[3] = {c->e, c->expected, c->got};
	for (int a = 0; a < 3; a++) {
		lua_createtable(L, (int)c->n, 0);
		for (size_t i = 0; i < c->n; i++) {
			lua_pushnumber(L, arr[a][i]);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
	}
	lua_call(L, 3, 2);
	int r = lua_type(L, -2);
	if (r == LUA_TBOOLEAN && lua_toboolean(L, -2)) {
		*c->ok = 1;
	} else if (r == LUA_TNIL || r == LUA_TBOOLEAN) {
		*c->ok = 0;
		int t = lua_type(L, -1);
		if (t == LUA_TSTRING || t == LUA_TNUMBER)
			snprintf(c->why, c->why_size, "%s", lua_tostring(L, -1));
		else if (t == LUA_TNIL)
			snprintf(c->why, c->why_size, "custom check failed");
		else
			snprintf(c->why, c->why_size, "custom check failed (its message is a %s)",
			         lua_typename(L, t));
	} else {
		lua_pushfstring(L, "the check returned a %s, not true, false or nil",
		                lua_typename(L, r));
		fail_at_function(L, K_CHECK, 3);
	}
	lua_pushnil(L);
	lua_setupvalue(L, 2, 1);
	return 0;
}

int qc_lua_check(qc_lua *L, const char *chunk, const double *e, const double *expected,
                 const double *got, size_t n, int *ok, char *why, size_t why_size, char *err,
                 size_t err_size, int *line)
{
	char dummy[1];
	*ok = 0;
	if (!why || !why_size) {
		why = dummy;
		why_size = sizeof dummy;
	}
	why[0] = 0;
	check_ctx c = {L, chunk, e, expected, got, n, ok, why, why_size};
	int r = run_protected(L, K_CHECK, p_check, &c, err, err_size, line);
	if (r != 0)
		*ok = 0;
	return r;
}
