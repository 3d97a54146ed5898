/*
 * The limits that keep loading and expanding specs bounded in time and memory,
 * whatever a spec file holds. Each one past which a spec is refused gives an
 * error at the spec's location ("file:line:col: message", or "file: message"
 * for the file as a whole). README.md ("Limits") lists them.
 */
#ifndef QC_LIMITS_H
#define QC_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of one spec, profile or waiver file (the largest committed spec has 14 KB). */
#define QC_SPEC_MAX_BYTES ((size_t)64 << 20)
/* Nesting of YAML collections: libyaml's scanner is quadratic in the flow depth. */
#define QC_YAML_MAX_DEPTH 256
/* YAML nodes written in one file (~150 bytes each once loaded: 300 MB at most). */
#define QC_YAML_MAX_NODES 2000000
/* Nodes that aliases stand for, summed over every alias of a file ("billion laughs"). */
#define QC_YAML_MAX_ALIAS_NODES 1000000
/* Directory levels searched below a path given on the command line. */
#define QC_SPEC_MAX_DIR_DEPTH 64

/* Elements of one tensor (float64: 2 GiB at 2^28; 128 MiB at this limit). */
#define QC_TENSOR_MAX_ELEMENTS ((uint64_t)1 << 24)

/* Cases one spec expands to (sweep points * repeat + explicit cases). */
#define QC_SPEC_MAX_CASES ((uint64_t)1000000)
/* Cases of all the specs of one run (the duplicate-name check keeps 24 bytes per case). */
#define QC_RUN_MAX_CASES ((uint64_t)10000000)

/* Lua: bytes one spec's state may hold. */
#define QC_LUA_MEM_LIMIT ((size_t)64 << 20)
/* Lua: VM instructions of one evaluation (an expression, a generator over a tensor, a check). */
#define QC_LUA_INSTRUCTION_LIMIT ((uint64_t)50000000)
/* Lua: wall-clock seconds of one evaluation (50M instructions take ~0.25 s). */
#define QC_LUA_EVAL_SECONDS 5.0
/* Lua: VM instructions of one expansion of a spec, over all its evaluations (~5 s; the committed
 * specs use at most 3.4M). */
#define QC_LUA_SPEC_INSTRUCTION_LIMIT ((uint64_t)500000000)
/* Lua: wall-clock seconds of one expansion of a spec, over all its evaluations: the backstop
 * for work inside C library functions that the instruction count cannot see. */
#define QC_LUA_SPEC_SECONDS 30.0

#endif
