/*
 * The sandbox of the spec's Lua (slua.c): the allocator and the instruction hook that bound a
 * state, read-only library views, the deterministic key order, the guarded base and library
 * functions, and the globals of a new state built from them.
 */
#include "spec/slua_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#define CLOCK_EVERY 16 /* hook charges between two reads of the clock */

/* ---- allocator and instruction hook -------------------------------------- */

void *qc_lua_sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
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

double qc_lua_now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
		lua_sethook(L, qc_lua_sb_hook, LUA_MASKCOUNT, 1);
	}
	lua_pushstring(L, q->stop_msg);
	lua_error(L);
	abort(); /* lua_error does not return */
}

/* Counts n instructions (or units of work done in C) against the evaluation's and the spec's
 * budgets, and checks the spec's clock; raises the stop error when one runs out. */
void qc_lua_charge(lua_State *L, qc_lua *q, uint64_t n, int level)
{
	if (q->stopped)
		stop(L, q, level, "");
	struct qc_lua_budget *b = &q->b[q->budget];
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
		         q->budget == QC_LUA_B_CHECK ? "checks" : "cases");
		b->exhausted = 1;
		stop(L, q, level, b->msg);
	}
	/* the clock: from the first charge of an evaluation on (one shorter than a hook step
	 * costs no clock read), then every CLOCK_EVERY charges */
	if (!q->t0)
		q->t0 = qc_lua_now_seconds();
	else if (++q->clock_skip < CLOCK_EVERY && n <= QC_LUA_HOOK_STEP)
		return;
	q->clock_skip = 0;
	double t = qc_lua_now_seconds() - q->t0;
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
		         b->max_seconds, q->budget == QC_LUA_B_CHECK ? "checks" : "cases");
		b->exhausted = 1;
		stop(L, q, level, b->msg);
	}
}

void qc_lua_sb_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	/* level 0 in a hook: the function that is running */
	qc_lua_charge(L, qc_lua_getq(L), QC_LUA_HOOK_STEP, 0);
}

int qc_lua_sb_panic(lua_State *L)
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
	qc_lua_env_settle(L, t);
	lua_Integer n = 0;
	lua_newtable(L); /* the keys, in traversal order */
	int keys = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, t)) {
		lua_pop(L, 1);
		lua_pushvalue(L, -1);
		lua_rawseti(L, keys, ++n);
	}
	/* the traversal and the sort: n log n */
	qc_lua_charge(L, qc_lua_getq(L), (uint64_t)n * 24, 1);
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
	qc_lua_env_settle(L, 1);
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
	/* O(n) per call: a loop over next is O(n^2) in C */
	qc_lua_charge(L, qc_lua_getq(L), 8 * seen, 1);
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
int qc_lua_has_position(const char *m)
{
	for (int k = 0; k < QC_LUA_K_KINDS; k++) {
		size_t n = strlen(qc_lua_chunk_tag[k]);
		if (strncmp(m, qc_lua_chunk_tag[k], n) == 0 && m[n] == ':' && m[n + 1] >= '0' &&
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
	if (lua_type(L, -1) == LUA_TSTRING && !qc_lua_has_position(lua_tostring(L, -1))) {
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
		qc_lua_getq(L)->oom = 1;
		return luaL_error(L, "not enough memory");
	}
	qc_lua_charge(L, qc_lua_getq(L), (un * l + (un - 1) * ls) / 2, 1);
	return forward(L, 1);
}

/* table.move: at most QC_LUA_MAX_ITEMS elements (the library loop cannot be interrupted). */
static int sb_move(lua_State *L)
{
	lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
	if (e >= f && (lua_Unsigned)e - (lua_Unsigned)f >= (lua_Unsigned)QC_LUA_MAX_ITEMS)
		return luaL_error(L, "table.move: more than %I elements", QC_LUA_MAX_ITEMS);
	if (e >= f)
		qc_lua_charge(L, qc_lua_getq(L), 8 * ((uint64_t)(e - f) + 1), 1);
	return forward(L, 1);
}

/* table.insert and table.remove shift up to #t elements in a C loop, and #t can be any
 * number a __len metamethod gives: the shift is charged, and refused past QC_LUA_MAX_ITEMS. */
static int sb_shift(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer n = luaL_len(L, 1);
	int insert = *lua_tostring(L, lua_upvalueindex(2)) == 'i';
	lua_Integer pos = insert ? (lua_gettop(L) >= 3 ? luaL_checkinteger(L, 2) : n + 1)
	                         : luaL_optinteger(L, 2, n);
	lua_Unsigned span = pos <= n ? (lua_Unsigned)n - (lua_Unsigned)pos + 1 : 0;
	if (n > QC_LUA_MAX_ITEMS || span > (lua_Unsigned)QC_LUA_MAX_ITEMS)
		return luaL_error(L, "table.%s: more than %I elements",
		                  insert ? "insert" : "remove", QC_LUA_MAX_ITEMS);
	qc_lua_charge(L, qc_lua_getq(L), 8 * ((uint64_t)span + 1), 1);
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
	if (n > QC_LUA_MAX_ITEMS)
		return luaL_error(L, "table.sort: more than %I elements", QC_LUA_MAX_ITEMS);
	if (n < 2)
		return 0;
	uint64_t passes = 1;
	for (lua_Integer w = 1; w < n; w *= 2)
		passes++;
	qc_lua_charge(L, qc_lua_getq(L), (uint64_t)n * passes, 1);
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
	qc_lua_env_settle(L, 1);
	lua_rawset(L, 1);
	return 1;
}

/* rawget(t, k), seeing an environment's bindings as if stored from the start. */
static int sb_rawget(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checkany(L, 2);
	lua_settop(L, 2);
	qc_lua_env_settle(L, 1);
	lua_rawget(L, 1);
	return 1;
}

/* After a failed protected call: re-raise what the script must not catch. */
static void reraise_fatal(lua_State *L, int status)
{
	qc_lua *q = qc_lua_getq(L);
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
	qc_lua *q = qc_lua_getq(L);
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

/* ---- building the sandbox ------------------------------------------------ */

/* Replaces field name of the table at t by a C closure over its old value and its name. */
static void wrap_field(lua_State *L, int t, const char *name, lua_CFunction f)
{
	lua_getfield(L, t, name);
	lua_pushstring(L, name);
	lua_pushcclosure(L, f, 2);
	lua_setfield(L, t, name);
}

int qc_lua_p_open(lua_State *L)
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

	static const luaL_Reg qclib[] = {{"sizes", qc_lua_sizes},
	                                 {"primes", qc_lua_primes},
	                                 {"range", qc_lua_range},
	                                 {"f32", qc_lua_f32},
	                                 {"next32", qc_lua_next32},
	                                 {"multipliers", qc_lua_multipliers},
	                                 {"qrange", qc_lua_qrange},
	                                 {"requant_scales", qc_lua_requant_scales_l},
	                                 {"requant_acc", qc_lua_requant_acc_l},
	                                 {"spread", qc_lua_spread},
	                                 {"elementwise_scales", qc_lua_ew_scales_l},
	                                 {"elementwise_pairs", qc_lua_ew_pairs_l},
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
	lua_pushcfunction(L, qc_lua_env_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	q->ref_envmt = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pushboolean(L, 0);
	q->ref_env = luaL_ref(L, LUA_REGISTRYINDEX);
	/* G itself is out of the scripts' reach; its misses look at the bindings */
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, qc_lua_env_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, G);

	lua_newuserdatauv(L, 1, 0);
	luaL_newmetatable(L, QC_LUA_RNG_TNAME);
	static const luaL_Reg rngm[] = {{"uniform", qc_lua_rng_uniform},
	                                {"int", qc_lua_rng_int},
	                                {"normal", qc_lua_rng_normal},
	                                {NULL, NULL}};
	luaL_newlib(L, rngm);
	lua_setfield(L, -2, "__index");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
	q->ref_rng = luaL_ref(L, LUA_REGISTRYINDEX);

	for (int k = 0; k < QC_LUA_K_KINDS; k++) {
		lua_newtable(L);
		q->ref_cache[k] = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	return 0;
}
