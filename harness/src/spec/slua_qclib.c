/*
 * The qc library of the spec's Lua (slua.c): qc.sizes, qc.range and the other helpers, the
 * requantization and elementwise edges of gen.h as qc.requant_* and qc.elementwise_*, and the
 * rng object handed to generators.
 */
#include "spec/slua_internal.h"

#include "spec/gen.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#define MEMO_N 64

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

/* ---- the rng object ------------------------------------------------------ */

static qc_rng *check_rng(lua_State *L)
{
	luaL_checkudata(L, 1, QC_LUA_RNG_TNAME);
	qc_rng *r = qc_lua_getq(L)->rng;
	if (!r)
		luaL_error(L, "the rng can only be used while its generator runs");
	return r;
}

/* rng:uniform([lo, hi]): lo + (hi - lo) * u, u uniform in [0, 1); default [0, 1). */
int qc_lua_rng_uniform(lua_State *L)
{
	qc_rng *r = check_rng(L);
	lua_Number lo = luaL_optnumber(L, 2, 0), hi = luaL_optnumber(L, 3, 1);
	lua_pushnumber(L, lo + (hi - lo) * qc_rng_uniform01(r));
	return 1;
}

/* rng:int(lo, hi): a uniform integer in [lo, hi], both ends included. */
int qc_lua_rng_int(lua_State *L)
{
	qc_rng *r = check_rng(L);
	lua_Integer lo = luaL_checkinteger(L, 2), hi = luaL_checkinteger(L, 3);
	lua_pushinteger(L, qc_rng_uniform_int(r, lo, hi));
	return 1;
}

/* rng:normal([mean, std]): a normal deviate (default mean 0, std 1). */
int qc_lua_rng_normal(lua_State *L)
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
int qc_lua_sizes(lua_State *L)
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
int qc_lua_primes(lua_State *L)
{
	lua_Integer lo = luaL_checkinteger(L, 1), hi = luaL_checkinteger(L, 2);
	if (hi > INT32_MAX)
		return luaL_error(L, "qc.primes: hi must be below 2^31");
	if (lo < 2)
		lo = 2;
	lua_newtable(L);
	if (lo > hi)
		return 1;
	if (hi - lo >= QC_LUA_MAX_ITEMS)
		return luaL_error(L, "qc.primes: more than %I candidates", QC_LUA_MAX_ITEMS);
	qc_lua_charge(L, qc_lua_getq(L), (uint64_t)(hi - lo) + 1, 1);
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
int qc_lua_range(lua_State *L)
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
		if (span / mag >= (lua_Unsigned)QC_LUA_MAX_ITEMS)
			return luaL_error(L, "qc.range: more than %I items", QC_LUA_MAX_ITEMS);
		lua_Unsigned count = span / mag + 1;
		qc_lua_charge(L, qc_lua_getq(L), (uint64_t)count, 1);
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
	if ((b - a) / step > (lua_Number)QC_LUA_MAX_ITEMS)
		return luaL_error(L, "qc.range: more than %I items", QC_LUA_MAX_ITEMS);
	if ((b - a) / step > 0)
		qc_lua_charge(L, qc_lua_getq(L), (uint64_t)((b - a) / step) + 1, 1);
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
		if (k >= QC_LUA_MAX_ITEMS) /* a step below the spacing of the floats near a */
			return luaL_error(L, "qc.range: more than %I items", QC_LUA_MAX_ITEMS);
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
int qc_lua_f32(lua_State *L)
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
int qc_lua_next32(lua_State *L)
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
int qc_lua_multipliers(lua_State *L)
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
int qc_lua_requant_scales_l(lua_State *L)
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
	qc_lua_charge(L, qc_lua_getq(L), work * 4, 1);
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
int qc_lua_requant_acc_l(lua_State *L)
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
	qc_lua_charge(L, qc_lua_getq(L), work * 4, 1);
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
int qc_lua_spread(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer count = luaL_checkinteger(L, 2), lo = luaL_checkinteger(L, 3),
	            hi = luaL_checkinteger(L, 4);
	lua_Integer nt = (lua_Integer)lua_rawlen(L, 1);
	if (count < 1 || lo > hi)
		return luaL_error(L, "qc.spread: count must be >= 1 and lo <= hi");
	if (nt > 0 && count > QC_LUA_MAX_ITEMS / nt)
		return luaL_error(L, "qc.spread: more than %I items", QC_LUA_MAX_ITEMS);
	qc_lua_charge(L, qc_lua_getq(L), (uint64_t)(nt * count), 1);
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
int qc_lua_ew_scales_l(lua_State *L)
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
	qc_lua *q = qc_lua_getq(L);
	int got;
	if (!memo_get(&key, sizeof key, s, (size_t)n * sizeof *s, &got, &work)) {
		got = qc_ew_scales((qc_ew_kind)k, &o, s, n, &work, e, sizeof e);
		if (got >= 0)
			memo_put(&key, sizeof key, s, (size_t)got * sizeof *s, got, work);
	}
	qc_lua_charge(L, q, work, 1);
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
int qc_lua_ew_pairs_l(lua_State *L)
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
	qc_lua *ql = qc_lua_getq(L);
	int got;
	if (!memo_get(&key, sizeof key, q, (size_t)n * 2 * sizeof *q, &got, &work)) {
		got = qc_ew_pairs(s, (qc_ew_kind)k, &o, q, q + n, n, &work, e, sizeof e);
		if (got >= 0)
			memo_put(&key, sizeof key, q, (size_t)n * 2 * sizeof *q, got, work);
	}
	qc_lua_charge(L, ql, work, 1);
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
int qc_lua_qrange(lua_State *L)
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
