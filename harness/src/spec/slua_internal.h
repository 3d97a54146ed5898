/*
 * slua_internal: what the files of the spec's Lua share, and nothing outside them includes:
 * slua.c (the state, running protected, chunks and environments, lazy bindings, conversions, the
 * three entry points), slua_sandbox.c (the limits, the guarded functions, the sandbox built from
 * them) and slua_qclib.c (the qc library and the rng object). The rest of the harness has slua.h.
 */
#ifndef QC_SLUA_INTERNAL_H
#define QC_SLUA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "spec/slua.h"

#define QC_LUA_HOOK_STEP 1000 /* instructions between two count hooks */
/* Work done in C is charged as instructions: an element moved or a key compared costs ~8 VM
 * instructions' time, a byte of a new string 1/2 (allocation, page faults, copies). */
#define QC_LUA_MAX_ITEMS ((lua_Integer)1 << 24) /* values in one converted result, list lengths */
#define QC_LUA_RNG_TNAME "qc.rng"

enum { QC_LUA_K_EXPR, QC_LUA_K_GEN, QC_LUA_K_CHECK, QC_LUA_K_KINDS };
/* "expr", "generator", "check": the chunk names that start an error's position */
extern const char *const qc_lua_chunk_tag[QC_LUA_K_KINDS];

/* Spec-wide budgets: one for the expansion (expressions, generators), one for the checks, so
 * that checks run by `run` cannot change which cases the expansion gives. */
enum { QC_LUA_B_EXPAND, QC_LUA_B_CHECK, QC_LUA_B_KINDS };

struct qc_lua {
	lua_State *L;
	size_t used;        /* bytes the state holds */
	uint64_t steps;     /* instructions the current evaluation ran (per QC_LUA_HOOK_STEP) */
	int stopped;        /* a budget ran out: nothing may catch that, every hook raises again */
	int oom;            /* a memory error happened in this evaluation */
	char stop_msg[256]; /* the error of the stop, with the chunk position */
	int budget;         /* QC_LUA_B_*: the budget the current evaluation draws on */
	double t0;          /* the current evaluation's first charge (monotonic seconds), or 0 */
	int clock_skip;     /* charges since the clock was last read */
	struct qc_lua_budget {
		uint64_t steps, max_steps; /* instructions since qc_lua_budget_reset */
		double seconds, max_seconds;
		int exhausted; /* ran out: every evaluation fails at once until the reset */
		char msg[192]; /* why, without a position */
	} b[QC_LUA_B_KINDS];
	qc_rng *rng;   /* the generator's rng while qc_lua_generate runs, else NULL */
	int ref_envmt; /* registry: metatable of the per-evaluation environments */
	int ref_env;   /* registry: the running evaluation's environment, or nil */
	/* the running evaluation's bindings, resolved on first use (qc_lua_env_index) */
	const qc_lbind *binds;
	int n_binds;
	int pending;            /* some binding is neither resolved nor overridden yet */
	unsigned char *touched; /* per binding: resolved, overridden or stored at the start */
	int touched_cap;
	int ref_rng; /* registry: the rng object handed to generators */
	int ref_cache[QC_LUA_K_KINDS];
	int cache_n[QC_LUA_K_KINDS];
	qc_lua_share *share;  /* the spec's budgets shared with other states, or NULL */
	uint64_t share_steps; /* the shared count when the evaluation began */
};

static inline qc_lua *qc_lua_getq(lua_State *L)
{
	void *ud;
	lua_getallocf(L, &ud);
	return ud;
}

/* slua_sandbox.c: the allocator and the count hook of a state, its panic function */
void *qc_lua_sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
void qc_lua_sb_hook(lua_State *L, lua_Debug *ar);
int qc_lua_sb_panic(lua_State *L);
/* monotonic seconds */
double qc_lua_now_seconds(void);
/* Counts n instructions (or units of work done in C) against the evaluation's and the spec's
 * budgets, and checks the spec's clock; raises the stop error when one runs out. */
void qc_lua_charge(lua_State *L, qc_lua *q, uint64_t n, int level);
/* Does the message start with "<chunk tag>:<digit>", a position in a chunk? */
int qc_lua_has_position(const char *m);
/* Builds the sandbox of the state q (the light userdata argument), run protected. */
int qc_lua_p_open(lua_State *L);

/* slua_qclib.c: the methods of the rng object (QC_LUA_RNG_TNAME) */
int qc_lua_rng_uniform(lua_State *L);
int qc_lua_rng_int(lua_State *L);
int qc_lua_rng_normal(lua_State *L);
/* slua_qclib.c: the functions of the qc library (qc.sizes is qc_lua_sizes, ...) */
int qc_lua_sizes(lua_State *L);
int qc_lua_primes(lua_State *L);
int qc_lua_range(lua_State *L);
int qc_lua_f32(lua_State *L);
int qc_lua_next32(lua_State *L);
int qc_lua_multipliers(lua_State *L);
int qc_lua_qrange(lua_State *L);
int qc_lua_requant_scales_l(lua_State *L);
int qc_lua_requant_acc_l(lua_State *L);
int qc_lua_spread(lua_State *L);
int qc_lua_ew_scales_l(lua_State *L);
int qc_lua_ew_pairs_l(lua_State *L);

/* slua.c: the lazy bindings. __index of G and __newindex of the environments; qc_lua_env_settle
 * stores the bindings still pending before the table at idx is read raw. */
int qc_lua_env_index(lua_State *L);
int qc_lua_env_newindex(lua_State *L);
void qc_lua_env_settle(lua_State *L, int idx);

#endif
