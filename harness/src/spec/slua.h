/*
 * slua: the sandboxed Lua 5.4 of the spec language.
 *
 * One state per spec. The sandbox has the base functions that cannot reach
 * outside (no load, loadfile, dofile, require, collectgarbage, print), and
 * the string (without string.dump), table, math (without math.random and
 * math.randomseed: randomness comes from the case's rng) and utf8 libraries,
 * plus the `qc` helper library. There is no io, os, package, debug or
 * coroutine. Every evaluation runs under an instruction budget (count hook),
 * the evaluations of a spec under a shared budget of instructions and time,
 * and the whole state under a memory limit (allocator): a runaway script
 * ends as an error, never as a hang or a crash.
 *
 * Values cross the boundary as qc_lval trees, allocated with the caller's
 * allocator (so their lifetime is the caller's: a case, or the spec).
 * Errors come back as a message plus the line inside the chunk (1-based,
 * 0 if unknown); the caller maps it to file:line:col of the spec.
 */
#ifndef QC_SLUA_H
#define QC_SLUA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"

#include "spec/qc_limits.h" /* QC_LUA_MEM_LIMIT, QC_LUA_INSTRUCTION_LIMIT, QC_LUA_SPEC_* */

typedef enum qc_lv_kind {
	QC_LV_NIL = 0,
	QC_LV_BOOL,
	QC_LV_INT, /* Lua integer */
	QC_LV_NUM, /* Lua float */
	QC_LV_STR,
	QC_LV_LIST, /* a table with keys 1..n, nothing else */
	QC_LV_MAP   /* a table with string keys */
} qc_lv_kind;

typedef struct qc_lval {
	qc_lv_kind kind;
	int b;
	int64_t i;
	double num;
	const char *str;
	size_t n;                    /* LIST, MAP: number of items */
	const struct qc_lval *items; /* LIST, MAP: values */
	const char *const *keys;     /* MAP: keys, sorted (byte order) */
} qc_lval;

/* Allocator for results: returns zeroed memory that lives as long as the caller needs. */
typedef void *(*qc_lalloc)(void *ctx, size_t n);

/*
 * A name bound in an evaluation's environment. An evaluation converts a binding to a Lua value
 * on its first use (a fresh value for each evaluation: changes a script makes stay in it), so
 * the bindings and their values must stay valid until the call returns; the result is as if
 * every binding had been converted at the start, whose cost every evaluation is charged.
 */
typedef struct qc_lbind {
	const char *name;
	const qc_lval *val;
} qc_lbind;

typedef struct qc_lua qc_lua;

/* A new sandboxed state; NULL with a reason in err on failure. */
qc_lua *qc_lua_new(char *err, size_t err_size);
void qc_lua_free(qc_lua *L);

/*
 * Spec-wide budgets: besides the limit of each evaluation, all the expressions and
 * generators of one expansion of the spec share QC_LUA_SPEC_INSTRUCTION_LIMIT instructions
 * and QC_LUA_SPEC_SECONDS of wall-clock time, and all its checks another such budget. Once
 * one runs out, every later evaluation of its kind fails at once with the same message.
 * qc_lua_budget_reset starts a new expansion; qc_lua_set_budget changes both budgets (tests);
 * qc_lua_exhausted tells whether the expansion's budget has run out.
 */
void qc_lua_budget_reset(qc_lua *L);
/* A spec's budgets shared by several states, one per thread that expands a part of the spec
 * in one run (zero-initialised; it outlives them): each draws on it, and once one exhausts
 * it every evaluation of that kind fails at once, in every state, with the same message. */
typedef struct qc_lua_share {
	_Atomic unsigned long long steps[2], nanos[2];
	_Atomic int state[2]; /* 0, 1 being exhausted, 2 exhausted (msg written) */
	char msg[2][192];
} qc_lua_share;
void qc_lua_share_budget(qc_lua *L, qc_lua_share *share);
void qc_lua_set_budget(qc_lua *L, uint64_t instructions, double seconds);
int qc_lua_exhausted(const qc_lua *L);

/*
 * Evaluates the expression `expr` (the text after '='; it is compiled as
 * `return <expr>`) with the bindings as globals. Returns 0 and the value in
 * *out, or -1 with the message in err and the chunk line in *line.
 */
int qc_lua_eval(qc_lua *L, const char *expr, const qc_lbind *binds, int n_binds, qc_lalloc alloc,
                void *alloc_ctx, qc_lval *out, char *err, size_t err_size, int *line);

/*
 * A generator: `chunk` (a Lua block) must return a function(i, shape, rng);
 * it is called for i = 0 .. count-1 (the flat, row-major element index) with
 * shape a list of the tensor's sizes and rng an object with methods
 * rng:uniform(lo, hi) (float in [lo, hi)), rng:int(lo, hi) (inclusive),
 * rng:normal(mean, std), all drawn from `rng` (the case's portable PRNG).
 * Each call must return a number, stored in values[i].
 */
int qc_lua_generate(qc_lua *L, const char *chunk, const qc_lbind *binds, int n_binds,
                    const int64_t *shape, int rank, qc_rng *rng, double *values, size_t count,
                    char *err, size_t err_size, int *line);

/*
 * A custom check: `chunk` must return a function(e, expected, got) called
 * once with three lists (1-based, n elements each): the errors in the
 * output's unit, the expected and the kernel's values. It returns true, or
 * false and a message. *ok receives the verdict, why the message.
 */
int qc_lua_check(qc_lua *L, const char *chunk, const double *e, const double *expected,
                 const double *got, size_t n, int *ok, char *why, size_t why_size, char *err,
                 size_t err_size, int *line);

#endif
