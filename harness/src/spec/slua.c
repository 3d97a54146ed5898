/*
 * slua: the sandboxed Lua 5.4 of the spec language (see slua.h). This file holds the state, its
 * protected runs, the compiled chunks and environments, the lazy bindings, the conversions and
 * the three entry points; slua_sandbox.c builds the sandbox and bounds it, slua_qclib.c holds
 * the qc library and the rng object (slua_internal.h: what they share).
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

#include "spec/slua_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#define MAX_DEPTH 32   /* table nesting, both directions */
#define CACHE_MAX 4096 /* compiled chunks per kind before the cache restarts */

static const char *const chunk_name[QC_LUA_K_KINDS] = {"=expr", "=generator", "=check"};
const char *const qc_lua_chunk_tag[QC_LUA_K_KINDS] = {"expr", "generator", "check"};

/* Raises a formatted error without position (lua_pushfstring formats: %s %d %I %f %c %%). */
static int fail(lua_State *L, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	return lua_error(L);
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
	const char *tag = qc_lua_chunk_tag[kind];
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
	if (lua_type(L, 1) != LUA_TSTRING || qc_lua_has_position(lua_tostring(L, 1)))
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
	q->budget = kind == QC_LUA_K_CHECK ? QC_LUA_B_CHECK : QC_LUA_B_EXPAND;
	struct qc_lua_budget *b = &q->b[q->budget];
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
	/* also restarts the count */
	lua_sethook(L, qc_lua_sb_hook, LUA_MASKCOUNT, QC_LUA_HOOK_STEP);
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
	double spent = q->t0 ? qc_lua_now_seconds() - q->t0 : 0;
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
	q->L = lua_newstate(qc_lua_sb_alloc, q);
	if (!q->L) {
		free(q);
		snprintf(err, err_size, "cannot create a Lua state");
		return NULL;
	}
	lua_atpanic(q->L, qc_lua_sb_panic);
	qc_lua_set_budget(q, QC_LUA_SPEC_INSTRUCTION_LIMIT, QC_LUA_SPEC_SECONDS);
	int line;
	if (run_protected(q, QC_LUA_K_EXPR, qc_lua_p_open, q, err, err_size, &line) != 0) {
		lua_close(q->L);
		free(q);
		return NULL;
	}
	return q;
}

void qc_lua_budget_reset(qc_lua *q)
{
	for (int k = 0; k < QC_LUA_B_KINDS; k++) {
		q->b[k].steps = 0;
		q->b[k].seconds = 0;
		q->b[k].exhausted = 0;
	}
}

void qc_lua_set_budget(qc_lua *q, uint64_t instructions, double seconds)
{
	for (int k = 0; k < QC_LUA_B_KINDS; k++) {
		q->b[k].max_steps = instructions;
		q->b[k].max_seconds = seconds;
	}
}

int qc_lua_exhausted(const qc_lua *q)
{
	return q->b[QC_LUA_B_EXPAND].exhausted ||
	       (q->share && atomic_load(&q->share->state[QC_LUA_B_EXPAND]) == 2);
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
	if (kind == QC_LUA_K_EXPR)
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
		qc_lua_charge(L, q, v->n, 1);
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
int qc_lua_env_index(lua_State *L)
{
	qc_lua *q = qc_lua_getq(L);
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
int qc_lua_env_newindex(lua_State *L)
{
	qc_lua *q = qc_lua_getq(L);
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
			qc_lua_getq(L)->oom = 1;
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
void qc_lua_env_settle(lua_State *L, int idx)
{
	qc_lua *q = qc_lua_getq(L);
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
 * use (qc_lua_env_index). Every binding's conversion is charged now, as if all were stored.
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
 * nesting deeper than MAX_DEPTH (a cycle) or more than QC_LUA_MAX_ITEMS values. */
static void count_items(lua_State *L, int idx, int depth, lua_Integer *items)
{
	if (lua_type(L, idx) != LUA_TTABLE)
		return;
	if (depth >= MAX_DEPTH)
		fail(L, "tables nested deeper than %d levels (a table containing itself?)",
		     MAX_DEPTH);
	luaL_checkstack(L, 4, NULL);
	qc_lua_env_settle(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		if (++*items > QC_LUA_MAX_ITEMS)
			fail(L, "a value with more than %I items", QC_LUA_MAX_ITEMS);
		if (!(*items & 1023))
			qc_lua_charge(L, qc_lua_getq(L), 1024, 1);
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
	qc_lua_env_settle(L, t);
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
		if (cv->items + total > QC_LUA_MAX_ITEMS)
			fail(L, "a value with more than %I items", QC_LUA_MAX_ITEMS);
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
	prepare(L, c->q, QC_LUA_K_EXPR, c->src, c->binds, c->n_binds);
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
	int r = run_protected(L, QC_LUA_K_EXPR, p_eval, &c, err, err_size, line);
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
	return fail(L, "%s:%d: %s", qc_lua_chunk_tag[kind], ar.linedefined > 0 ? ar.linedefined : 1,
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
	prepare(L, c->q, QC_LUA_K_GEN, c->src, c->binds, c->n_binds); /* 2 */
	call_chunk_for_function(L, "generator chunk");                /* 3 */
	lua_createtable(L, c->rank > 0 ? c->rank : 0, 0);             /* 4 */
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
			fail_at_function(L, QC_LUA_K_GEN, 3);
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
	return run_protected(L, QC_LUA_K_GEN, p_generate, &c, err, err_size, line);
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
	if (c->n > (size_t)QC_LUA_MAX_ITEMS)
		fail(L, "a check over more than %I elements", QC_LUA_MAX_ITEMS);
	prepare(L, c->q, QC_LUA_K_CHECK, c->src, NULL, 0); /* 2 */
	call_chunk_for_function(L, "check chunk");         /* 3 */
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
		fail_at_function(L, QC_LUA_K_CHECK, 3);
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
	int r = run_protected(L, QC_LUA_K_CHECK, p_check, &c, err, err_size, line);
	if (r != 0)
		*ok = 0;
	return r;
}
