/*
 * gen: input generators. Each fills a qcf_tensor of any dtype from a qc_rng;
 * the bytes depend only on (generator, grid, tensor dtype and shape, repeat,
 * rng state), never on the machine: no libm transcendental is used (normal
 * deviates come from rng.h's own log and cos), values are stored through
 * reference/dtype.h, and every list is built in a fixed order.
 *
 * Kinds:
 *  uniform   integer dtypes: uniform integers in [lo, hi] (default: the dtype
 *            range); float dtypes: lo + (hi - lo) * u, u in [0, 1), rounded to
 *            nearest in the tensor's type, so hi itself may come out (default
 *            [-1, 1]).
 *  normal    mean + std * N(0, 1); integer dtypes round half to even and clamp
 *            to [lo, hi] if has_range, else to the dtype range. Random floats
 *            beyond the type's range saturate at its largest finite value.
 *  Float values are rounded once, to nearest even, directly to the tensor's
 *  type (no double rounding through float32 for float16/bfloat16).
 *  choice    each element an independent uniform pick from values[].
 *  sequence  values[] in order, continued across repeats:
 *            element i of repeat r is values[(r * n + i + offset) % n_values],
 *            n the tensor's element count.
 *  edges     a deterministic list of values where kernels go wrong, walked
 *            like a sequence (see below).
 *
 * The edges list. For a float tensor, per channel (scale s, zero point z,
 * grid range [qmin, qmax]), for each quantized level j whose rounding tie
 * matters, j in [qmin - 1, qmax] (k = j - z in [qmin - z - 1, qmax - z]):
 *   - the tie t = (j + 0.5 - z) * s, computed in double and rounded to the
 *     tensor's type, then its two neighbours in that type (nextafter);
 *   - every value c within 4 ulps of the tie for which a kernel multiplying by
 *     the float32 reciprocal, inv = 1.0f / s, lands exactly on the tie:
 *     (float)(c * inv) == k + 0.5 (PyTorch style, zero point added after
 *     rounding), or with a float zero point (quant->float_zero_points),
 *     (float)(z + (float)(c * inv)) == j + 0.5. A float64 tensor uses
 *     inv = 1.0 / s in double instead.
 * All levels when the grid has at most 256 of them; otherwise a fixed subset
 * (the four levels at each end, k in [-4, 3] around the zero point, k = +-2^b
 * and +-2^b - 1) and then QC_GEN_EDGE_PICKS levels drawn from rng, each
 * giving exactly 4 entries (tie, its neighbours, first reciprocal tie or the
 * tie again). Then: both saturation ends (qmin - z) * s and (qmax - z) * s with
 * their neighbours either side, far beyond them ((qmin - z - 1e6) * s,
 * (qmax - z + 1e6) * s, (qmin - z - 2^32) * s, (qmax - z + 2^32) * s), the
 * largest finite value of either sign, 0.0, -0.0, the smallest subnormal of
 * either sign, and if grid->nonfinite NaN, +inf, -inf. Without nonfinite, a
 * value that rounds to infinity is replaced by the largest finite value.
 *
 * Small floats (ABI version 2). A float8/6/4 or e8m0 tensor's list is every value of its
 * type in code order (NaN and infinities only with nonfinite); it needs no grid. A wider float
 * tensor whose grid is a small float G (grid->dtype; scale s, zero point z, float_zero_points
 * when given) gets, per channel: (v - z) * s for every value v of G; for each pair of
 * neighbouring values the tie ((v + w) / 2 - z) * s and its two neighbours in the tensor's
 * type; the same for the tie past the largest and the smallest value (where saturation or
 * overflow starts); (2v - z) * s for both extreme values; the type's largest finite value of
 * either sign, 0.0, -0.0, the smallest subnormal of either sign; NaN, +inf, -inf with
 * nonfinite. Each x is rounded once, to nearest even, to the tensor's type.
 *
 * For an integer tensor: every value of the dtype if it has at most 256;
 * otherwise (sorted, without duplicates) the dtype's two ends and their
 * inner neighbours, qmin - 1 .. qmin + 1, qmax - 1 .. qmax + 1, z - 2 .. z + 2,
 * 0, +-1, +-2^b, 2^b - 1, -2^b - 1 (within the dtype), then QC_GEN_EDGE_PICKS
 * values drawn from rng in [qmin, qmax].
 *
 * The walk: an element at position p among the m elements of its channel
 * (m = n and p = i for a per-tensor grid) takes, in repeat r,
 *   edge[(r * m + p + offset) % len]
 * so repeats 0 .. qc_gen_edges_repeats() - 1 of one tensor visit every entry
 * of every channel's list. The list length does not depend on the rng, only
 * its drawn entries do; rng is read in a fixed order (channel 0 first).
 */
#ifndef QC_GEN_H
#define QC_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "qconform/plugin.h"

#define QC_GEN_EDGE_PICKS 16 /* rng-drawn levels (float) or values (integer) */

typedef enum qc_gen_kind {
	QC_GEN_UNIFORM = 0,
	QC_GEN_NORMAL = 1,
	QC_GEN_CHOICE = 2,
	QC_GEN_SEQUENCE = 3,
	QC_GEN_EDGES = 4
} qc_gen_kind;

typedef struct qc_gen {
	qc_gen_kind kind;
	int has_range;        /* uniform: lo/hi given; normal: clamp ints to [lo, hi] */
	double lo, hi;        /* integers for integer dtypes (within 2^53) */
	double mean, std;     /* normal; std >= 0 */
	const double *values; /* choice, sequence: n_values >= 1 */
	size_t n_values;
	uint64_t offset; /* sequence, edges: starts the walk further on */
} qc_gen;

/*
 * The quantization grid whose edges matter. quant: per-tensor (axis -1,
 * count 1) or per-axis, in which case axis names a dimension of the tensor
 * being filled, shape[axis] == count, and element i uses channel
 * qref_channel(t, quant, i). NULL quant: scale 1, zero point 0 (integer
 * tensors only; float edges need scales).
 */
typedef struct qc_grid {
	const qcf_quant *quant;
	int64_t qmin, qmax;
	int nonfinite;   /* NaN and +-inf may be generated */
	qcf_dtype dtype; /* a small float (float8/6/4): the grid is that type's values, scaled
	                  * (see "Small floats" above); else 0: an integer grid */
} qc_grid;

/* "uniform", "normal", "choice", "sequence", "edges" -> kind; -1 if unknown. */
int qc_gen_kind_parse(const char *name);
const char *qc_gen_kind_name(qc_gen_kind k);

/*
 * Fills every element of t (t->data holds at least qcf_dtype_nbytes(dtype, n)
 * bytes; packed int4/uint4 padding is zeroed). grid is used by edges and may
 * be NULL otherwise (and for integer edges: then the dtype range, zp 0).
 * Returns 0, or -1 with a one-line reason in err.
 */
int qc_gen_fill(const qc_gen *g, qc_rng *rng, uint64_t repeat, const qc_grid *grid, qcf_tensor *t,
                char *err, size_t err_size);

/* Length of the longest channel's edge list for t under grid; 0 if invalid. */
size_t qc_gen_edges_count(const qc_grid *grid, const qcf_tensor *t);

/* Repeats needed for the walk to visit every edge of every channel (0 if invalid,
 * 1 for an empty tensor). */
uint64_t qc_gen_edges_repeats(const qc_grid *grid, const qcf_tensor *t);

/*
 * Requantization edges: parameters that reach the places where integer
 * requantizers diverge. The multiplier of a triple (s_in, s_w, s_out), all
 * float32, is d = s_in * s_w / s_out in double (LiteRT's and TFLM's per-channel
 * CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED; s_w = 1 for a ratio s_in /
 * s_out such as MEAN / SUM), taken apart by reference/requant.c's
 * qref_quantize_multiplier; its float32 variant is (double)f32(s_in * s_w) /
 * s_out (QC_F32_PRODUCT) or f32(f32(s_in * s_w) / s_out) (QC_F32_ALL: MUL,
 * ONNX's op_qlinear_*.py, MEAN in float). Convention LITERT rescales an
 * integer accumulator with MultiplyByQuantizedMultiplier (both builds);
 * convention ONNX computes rint(acc * f32 multiplier) in double, as
 * op_qlinear_matmul.py / op_qlinear_conv.py do. Everything is exact double
 * arithmetic, frexp and round (no transcendental): the same on every machine.
 */
typedef enum qc_edge_kind {
	QC_EDGE_ROUND_UP = 0, /* scales: the mantissa of d rounds to 2^31 (the fix-up) */
	QC_EDGE_F32_PRODUCT,  /* scales: the double and float32 multipliers disagree */
	QC_EDGE_SHIFT,        /* scales: d has a given shift (e.g. -31, the smallest kept) */
	QC_EDGE_TIE,          /* accumulators: on an exact tie after the multiplier */
	QC_EDGE_F32,          /* accumulators: where the double and float32 multipliers differ */
	QC_EDGE_BOUNDARY      /* accumulators: either side of each rounding boundary */
} qc_edge_kind;

typedef enum qc_edge_conv { QC_EDGE_LITERT = 0, QC_EDGE_ONNX = 1 } qc_edge_conv;
typedef enum qc_edge_float { QC_F32_PRODUCT = 0, QC_F32_ALL = 1 } qc_edge_float;

typedef struct qc_scale3 {
	float s_in, s_w, s_out;
	int32_t multiplier; /* LITERT: QuantizeMultiplier(d), double build */
	int shift;
} qc_scale3;

typedef struct qc_edge_opts {
	qc_edge_conv conv;
	qc_edge_float fl;
	float s_in, s_w; /* scales: start of the search (s_w steps by float32 ulps) */
	double mult;     /* scales: about the multiplier d (a power of two for ROUND_UP) */
	int shift;       /* SHIFT: the shift of d (QuantizeMultiplier's, d = m * 2^(shift - 31)) */
	int64_t ymax;    /* accumulators: |output before the zero point| <= ymax */
	int64_t accmax;  /* accumulators: |acc| <= accmax */
	int min_acc;     /* F32_PRODUCT: at least this many QC_EDGE_F32 accumulators per build */
	int ref_f32;     /* the op's own multiplier is the float32 variant (LiteRT per-tensor
	                    FULLY_CONNECTED, ONNX; Lua: reference = "f32", the default for ONNX) */
	int half_away;   /* F32: round_half_away(acc * d in double) is an accepted output too
	                    (LiteRT's FULLY_CONNECTED_REF) */
} qc_edge_opts;

/* Defaults: LITERT, QC_F32_PRODUCT, s_in 0.02, s_w 0.005, mult 2^-10, shift -31, ymax 100,
 * accmax 2^31 - 1, min_acc 1, ref_f32 0, half_away 0. */
void qc_edge_opts_default(qc_edge_opts *o);

/* d in double and its float32 variant (opts->fl), as doubles. */
double qc_edge_mult(const qc_scale3 *t);
double qc_edge_mult_f32(const qc_scale3 *t, qc_edge_float fl);

/*
 * Up to max triples of kind ROUND_UP, F32_PRODUCT or SHIFT into out (s_in fixed at
 * opts->s_in, s_w stepping up from opts->s_w; s_out derived), in a fixed order.
 * *work counts the candidates tried (callers charge it). Returns the count, or -1
 * with a reason in err.
 *  ROUND_UP: s_out = f32(s_in * s_w) / mult (mult a power of two): d is just below
 *    a power of two and round(q * 2^31) == 2^31 (LITERT only: the ONNX multiplier
 *    is a float32).
 *  F32_PRODUCT: s_out = f32(opts->s_in * opts->s_w / mult) for all (with s_w = 1, a
 *    ratio s_in / s_out, s_in steps instead of s_w); kept when the
 *    two multipliers differ and at least min_acc F32 accumulators catch the other
 *    multiplier's kernel in each build (LITERT: double and single; ONNX: one).
 *  SHIFT: d = u * 2^shift with u spread over [0.5, 1), the first two entries at both
 *    ends (the smallest and the largest d of that shift), each checked with
 *    qref_quantize_multiplier.
 */
int qc_requant_scales(qc_edge_kind kind, const qc_edge_opts *o, qc_scale3 *out, int max,
                      uint64_t *work, char *err, size_t err_size);

/*
 * Up to max accumulators of kind TIE, F32 or BOUNDARY for triple t, ordered by |y|
 * (y = 0, then -1, 1, -2, ...). *work counts the candidates tried. Returns the count
 * (0 if none) or -1 with a reason in err.
 *  TIE, LITERT: SaturatingRoundingDoublingHighMul(acc, m) is an exact tie of the final
 *    RoundingDivideByPOT (needs shift < 0), on either side of the exact product;
 *    ONNX: acc * f32 multiplier is exactly k + 1/2 in double.
 *  F32: a kernel with the other multiplier (the float32 one when the op's own is the
 *    double one, and the reverse) gives, in some build, an output that no build of the
 *    op's multiplier gives (nor, with half_away, round_half_away(acc * d)).
 *  BOUNDARY: LITERT: acc - 2 .. acc + 1 where the double build's output (op's multiplier)
 *    steps from y to y + 1 between acc - 1 and acc; ONNX: the same for rint.
 */
int qc_requant_acc(const qc_scale3 *t, qc_edge_kind kind, const qc_edge_opts *o, int64_t *out,
                   int max, uint64_t *work, char *err, size_t err_size);

/* The output of acc under t: LITERT with the double (single = 0) or single build
 * (single = 1) of MultiplyByQuantizedMultiplier; f32 selects the float32 multiplier.
 * ONNX: rint(acc * m) in double. Sets *ok = 0 where the op is undefined (shift). */
int64_t qc_edge_output(const qc_scale3 *t, const qc_edge_opts *o, int f32, int single, int64_t acc,
                       int *ok);

/*
 * Elementwise requantization edges (LiteRT ADD, SUB, MUL): pairs of stored input values
 * (q1, q2) where integer kernels of these ops diverge, found by running every pair of the
 * searched ranges through the op's integer pipeline with reference/requant.c's functions, in
 * both MultiplyByQuantizedMultiplier builds (double and single rounding):
 *  ADD / SUB: ls = 20 (8-bit) or 15 (int16), tm = 2 max(s1, s2) in double,
 *    (m_i, e_i) = QuantizeMultiplier(s_i / tm), (m_o, e_o) = QuantizeMultiplier(tm / (2^ls s_out));
 *    v_i = MBQM_LT1((q_i - zp_i) 2^ls, m_i, e_i), raw = v1 + v2 (SUB: v1 - v2),
 *    y = MBQM_LT1(raw, m_o, e_o) (add.cc, sub.cc, integer_ops/add.h);
 *  MUL: (m, e) = QuantizeMultiplier(f32(f32(s1 s2) / s_out)), raw = (q1 - zp1)(q2 - zp2),
 *    y = MBQM(raw, m, e) (mul.cc).
 * An exact tie of a stage: double build, the product of SaturatingRoundingDoublingHighMul is
 * exactly k + 1/2 (it rounds toward +infinity), or its result is a tie of the final
 * RoundingDivideByPOT (away from zero); single build, x m 2^(e - 31) is exactly k + 1/2.
 * Kinds:
 *  QC_EW_TIE: the output stage (raw) is on an exact tie in some build.
 *  QC_EW_TIE_IN: ADD / SUB: an input rescale is on an exact tie in some build, and rounding
 *    that tie the other way changes that build's output (raw at a step of the output).
 *  QC_EW_F32: MUL: a kernel with another multiplier (s1 s2 / s_out in double,
 *    double(f32(s1 s2)) / s_out, f32(s1 s2 / s_out)) gives, in some build, an output that
 *    neither build of mul.cc's multiplier gives.
 * Every output considered, plus zp_out, is within the dtype and |y| <= ymax. The pairs of a
 * kind fall in classes (TIE: the tie's stage; TIE_IN: the input and the stage; F32: the other
 * multiplier); within a class they are ordered by y (0, -1, 1, -2, ...), at most one per y
 * and signs of q1 - zp1 and q2 - zp2 (the first in the order q1, then q2, ascending), and the
 * classes are taken in turn (the first pair of each, then the second, ...), without repeats.
 */
typedef enum qc_ew_op { QC_EW_ADD = 0, QC_EW_SUB = 1, QC_EW_MUL = 2 } qc_ew_op;
typedef enum qc_ew_kind { QC_EW_TIE = 0, QC_EW_TIE_IN = 1, QC_EW_F32 = 2 } qc_ew_kind;
/* Which ties TIE and TIE_IN take: any; those of the rounding toward +infinity (the double
 * build's high mul, the single build's one shift: where round(-x) != -round(x)); those of
 * the double build's final RoundingDivideByPOT (away from zero). */
typedef enum qc_ew_stage {
	QC_EW_STAGE_ANY = 0,
	QC_EW_STAGE_HIGH_MUL = 1,
	QC_EW_STAGE_SHIFT = 2
} qc_ew_stage;

#define QC_EW_YMAX 4096

typedef struct qc_ew_opts {
	qc_ew_op op;
	int int16;                  /* int16 inputs and output (ADD / SUB: left shift 15) */
	float s1, s2, s_out;        /* scales: where the search starts */
	int step_out;               /* scales: s_out steps by float32 ulps instead of s2 */
	double ratio;               /* scales, > 0: s_out follows s2, s_out = f32(s1 s2 / ratio)
	                               (MUL) or f32(max(s1, s2) / ratio) (ADD, SUB) */
	int32_t zp1, zp2, zp_out;   /* zero points */
	int64_t lo1, hi1, lo2, hi2; /* the stored values searched, within the dtype */
	int64_t ymax;               /* |y| <= ymax <= QC_EW_YMAX */
	int min_pairs;              /* scales: kept with at least this many pairs */
	qc_ew_stage stage;          /* TIE, TIE_IN: the ties taken */
	int exhaustive;             /* try every pair, not only those whose output is in range
	                               (the same pairs, slower: for tests) */
} qc_ew_opts;

/* Defaults: ADD, int8 (int16 if int16), s1 0.02, s2 0.01, s_out 0.02, s2 steps, zero points
 * 0, the whole dtype range for q1 and q2, ymax 100, min_pairs 4, every tie stage, no ratio. */
void qc_ew_opts_default(qc_ew_opts *o, int int16);

/*
 * Up to max pairs of kind for the scales s = {s1, s2, s_out} into q1[], q2[]. *work counts
 * the pairs tried. Returns the count (0 if none), or -1 with a reason in err (scales the op
 * refuses, a search range larger than 2^24 pairs, a kind the op does not have).
 */
int qc_ew_pairs(const float s[3], qc_ew_kind kind, const qc_ew_opts *o, int32_t *q1, int32_t *q2,
                int max, uint64_t *work, char *err, size_t err_size);

/*
 * Up to max scale triples {s1, s2, s_out} (s1 = o->s1; s2 or, with step_out, s_out stepping
 * up by float32 ulps from o->s2 / o->s_out; with ratio, s2 steps and s_out follows it, so that
 * the real multiplier stays within a float32 rounding of ratio while its float32 roundings
 * change; candidates the op refuses are skipped) with at
 * least o->min_pairs pairs of kind. Returns max, or -1 with a reason in err (not enough
 * found within 4096 candidates or 2^25 pairs).
 */
int qc_ew_scales(qc_ew_kind kind, const qc_ew_opts *o, float (*out)[3], int max, uint64_t *work,
                 char *err, size_t err_size);

#endif
