/*
 * LiteRT data movement beyond the layout family: STRIDED_SLICE, SPLIT, SPLIT_V, PACK, UNPACK,
 * TILE, BROADCAST_TO, MIRROR_PAD, DEPTH_TO_SPACE, EXPAND_DIMS.
 *
 * Sources (google-ai-edge/LiteRT): tflite/kernels/{strided_slice,split,split_v,pack,unpack,
 * tile,broadcast_to,mirror_pad,depth_to_space,expand_dims}.cc and
 * tflite/kernels/internal/reference/{strided_slice.h,reference_ops.h}. The ABI, the index
 * arithmetic and the refusals: specs/litert/OPERATORS.md ("LiteRT movement family").
 *
 * As in litert_layout.c every op is an index mapping written once over a mover: the kernel
 * copies raw stored elements, the real-valued hook the dequantized values of input element
 * to output element, so both follow the same rules and checks. Unlike the layout movers these
 * have several outputs (SPLIT, SPLIT_V, UNPACK) or several data inputs (PACK).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "dtype.h"
#include "kernel.h"
#include "litert_layout.h"
#include "op.h"

#define MAXR   QCF_MAX_RANK
#define MAXIN  16               /* PACK's values */
#define MAXOUT QREF_MAX_OUTPUTS /* SPLIT's, SPLIT_V's and UNPACK's outputs */
#define MAXIDX 31               /* STRIDED_SLICE: begin, end and strides entries */
#define MAXEFF (MAXR + MAXIDX)  /* STRIDED_SLICE: the input's axes and the new ones */

/* ---- common helpers ----------------------------------------------------- */

static const char *dt(qcf_dtype t)
{
	return qref_dtype_name(t);
}

static size_t numel(int r, const int64_t *shape)
{
	size_t n = 1;
	for (int k = 0; k < r; k++)
		n *= (size_t)shape[k];
	return n;
}

/* Output k's shape must be shape (LiteRT's Prepare resizes it so). */
static qcf_status want_shape(const qcf_op_call *call, int k, int rank, const int64_t *shape,
                             qref_detail *d)
{
	if (qref_litert_shape_is(&call->outputs[k], rank, shape))
		return QCF_OK;
	char buf[160];
	qref_litert_shape_text(buf, sizeof buf, rank, shape);
	return qref_fail_output(d, k, QREF_PART_SHAPE, QCF_INVALID_PARAM,
	                        "%s output %d shape must be [%s]", call->op, k, buf);
}

/* Integer attribute with a default; QCF_INVALID_PARAM when not an integer. */
static qcf_status attr_i(const qcf_op_call *call, const char *name, int64_t def, int64_t *out,
                         qref_detail *d)
{
	int r = qref_attr_int(call, name, out);
	if (r == 0)
		*out = def;
	if (r < 0)
		return qref_fail_attr(d, name, QCF_INVALID_PARAM,
		                      "%s: attribute %s must be an integer", call->op, name);
	return QCF_OK;
}

/* The ranks read_index accepts. */
enum { IDX_1D = 1, IDX_SCALAR = 2, IDX_ANY = 4 };

/*
 * The values of index input k: an int32 tensor (int64 too where allow64) of rank 1 (rank 0
 * too with IDX_SCALAR, any rank with IDX_ANY) with at most max values.
 */
static qcf_status read_index(const qcf_op_call *call, int k, const char *what, int allow64,
                             int ranks, int64_t *v, size_t max, size_t *n, qref_detail *d)
{
	const qcf_tensor *t = &call->inputs[k];
	size_t c = qref_tensor_numel(t);
	int rank_ok = (ranks & IDX_ANY) || t->rank == 1 || ((ranks & IDX_SCALAR) && t->rank == 0);
	if ((t->dtype != QCF_INT32 && !(allow64 && t->dtype == QCF_INT64)) || !rank_ok || c > max)
		return qref_fail_tensor(d, t, QREF_PART_TENSOR, QCF_INVALID_PARAM,
		                        "%s: %s must be %s%s tensor of at most %zu values, got "
		                        "%s of rank %" PRId32 " with %zu",
		                        call->op, what,
		                        ranks & IDX_ANY      ? "an "
		                        : ranks & IDX_SCALAR ? "a 1-D or scalar "
		                                             : "a 1-D ",
		                        allow64 ? "int32 or int64" : "int32", max, dt(t->dtype),
		                        t->rank, c);
	for (size_t i = 0; i < c; i++)
		v[i] = qref_get_int(t, i);
	*n = c;
	return QCF_OK;
}

/* An axis in [-r, r) made non-negative; QCF_INVALID_PARAM outside. */
static qcf_status get_axis(const qcf_op_call *call, int64_t axis, int r, int64_t *out,
                           qref_detail *d)
{
	if (axis < -r || axis >= r)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: axis %lld out of [%d, %d)", call->op,
		                 (long long)axis, -r, r);
	*out = axis < 0 ? axis + r : axis;
	return QCF_OK;
}

/* A count attribute (num_splits, values_count, num): when given it must equal the count of
 * tensors it describes (Prepare's TF_LITE_ENSURE_EQ on NumOutputs / NumInputs). */
static qcf_status count_attr(const qcf_op_call *call, const char *name, int have, const char *what,
                             qref_detail *d)
{
	int64_t v;
	qcf_status s = attr_i(call, name, have, &v, d);
	if (s != QCF_OK)
		return s;
	if (v != have)
		return qref_fail_attr(d, name, QCF_INVALID_PARAM,
		                      "%s: %s = %lld must equal the number of %s, %d", call->op,
		                      name, (long long)v, what, have);
	return QCF_OK;
}

/*
 * Exact equality (float32 scale, zero point) of data input k's quantization and output o's,
 * where LiteRT's Prepare asks for it (PACK, UNPACK, MIRROR_PAD, EXPAND_DIMS); zp0: int16 zero
 * points must be 0 too (MIRROR_PAD).
 */
static qcf_status same_q(const qcf_op_call *call, int k, int o, int zp0, qref_detail *d)
{
	qcf_dtype t = call->outputs[o].dtype;
	if (!qref_litert_is_q(t))
		return QCF_OK;
	qcf_quant qi, qo;
	qcf_status s = qref_litert_get_q(call, &call->inputs[k], "input", &qi, d);
	if (s == QCF_OK)
		s = qref_litert_get_q(call, &call->outputs[o], "output", &qo, d);
	if (s != QCF_OK)
		return s;
	if (qi.scales[0] != qo.scales[0] || qi.zero_points[0] != qo.zero_points[0])
		return qref_fail_tensor(d, &call->outputs[o], QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s: input %d scale %.9g zp %" PRId32
		                        " must equal output %d's scale %.9g zp %" PRId32
		                        " (LiteRT's Prepare compares them exactly)",
		                        call->op, k, (double)qi.scales[0], qi.zero_points[0], o,
		                        (double)qo.scales[0], qo.zero_points[0]);
	if (zp0 && t == QCF_INT16 && qi.zero_points[0] != 0)
		return qref_fail_tensor(d, &call->inputs[k], QREF_PART_QUANT, QCF_INVALID_PARAM,
		                        "%s int16 needs zero points 0, got %" PRId32, call->op,
		                        qi.zero_points[0]);
	return QCF_OK;
}

/* ---- the mover: raw bytes (kernel) or dequantized values (real hook) ---- */

typedef struct mover {
	const qcf_op_call *call;
	int real_k;   /* the real hook: the output it fills; -1 in the kernel */
	double *real; /* the real hook: output real_k's values */
	size_t es;
	double scale[MAXIN], zp[MAXIN];
} mover;

/* Output o's element oi is data input k's element ii. */
static void mv(mover *m, int o, size_t oi, int k, size_t ii)
{
	const qcf_tensor *in = &m->call->inputs[k];
	if (m->real) {
		if (o == m->real_k)
			m->real[oi] = (qref_get(in, ii) - m->zp[k]) * m->scale[k];
	} else {
		memcpy((unsigned char *)m->call->outputs[o].data + oi * m->es,
		       (const unsigned char *)in->data + ii * m->es, m->es);
	}
}

typedef qcf_status (*move_fn)(const qcf_op_call *call, qref_detail *d, mover *m);

/* The ops: which data inputs they have (first, count: -1 every input). */
enum {
	MV_SSLICE,
	MV_SPLIT,
	MV_SPLITV,
	MV_PACK,
	MV_UNPACK,
	MV_TILE,
	MV_BCAST,
	MV_MPAD,
	MV_D2S,
	MV_EXPAND
};

/*
 * The checks shared by every op: the counts of inputs and outputs the schema allows, the
 * buffers, data inputs [d0, d0 + nd) and every output of one dtype that a raw copy handles
 * (LiteRT's Prepare: TF_LITE_ENSURE_TYPES_EQ, or the output type set to the input's). real_k
 * >= 0: the real hook for output real_k (no output buffers; data inputs need per-tensor
 * quantization).
 */
static qcf_status move_setup(const qcf_op_call *call, const qref_op *row, int d0, int nd,
                             int real_k, qref_detail *d, mover *m)
{
	const qref_op_schema *sc = &row->schema;
	int min_out = sc->min_outputs ? sc->min_outputs : sc->n_outputs;
	if (call->n_inputs < sc->min_inputs || call->n_inputs > sc->max_inputs ||
	    call->n_outputs < min_out || call->n_outputs > sc->n_outputs)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s takes %d to %d inputs and %d to %d outputs, got %" PRId32
		                 " and %" PRId32,
		                 call->op, sc->min_inputs, sc->max_inputs, min_out, sc->n_outputs,
		                 call->n_inputs, call->n_outputs);
	qcf_status s = real_k >= 0
	                       ? qref_check_call_shapes(call, call->n_inputs, call->n_outputs, d)
	                       : qref_check_call(call, call->n_inputs, call->n_outputs, d);
	if (s != QCF_OK)
		return s;
	if (nd < 0)
		nd = call->n_inputs - d0;
	qcf_dtype t = call->inputs[d0].dtype;
	for (int k = d0; k < d0 + nd; k++)
		if (call->inputs[k].dtype != t)
			return qref_fail_tensor(d, &call->inputs[k], QREF_PART_DTYPE,
			                        QCF_INVALID_PARAM,
			                        "%s: input %d type %s differs from input %d's %s",
			                        call->op, k, dt(call->inputs[k].dtype), d0, dt(t));
	for (int o = 0; o < call->n_outputs; o++)
		if (call->outputs[o].dtype != t)
			return qref_fail_output(
			        d, o, QREF_PART_DTYPE, QCF_INVALID_PARAM,
			        "%s: output %d type %s differs from the input type %s", call->op, o,
			        dt(call->outputs[o].dtype), dt(t));
	if (!qref_litert_elem_size(t))
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "%s: the reference moves int8, uint8, int16, int32, int64 and "
		                 "float32 data, not %s",
		                 call->op, dt(t));
	memset(m, 0, sizeof *m);
	m->call = call;
	m->es = qref_litert_elem_size(t);
	m->real_k = -1;
	if (real_k < 0) {
		if ((s = qref_no_rounding(call, d, "nothing: raw values are copied")) != QCF_OK)
			return s;
		return QCF_OK;
	}
	if (!qref_litert_is_q(t))
		return qref_fail(d, QCF_NOT_SUPPORTED, "%s: output of type %s is not quantized",
		                 call->op, dt(t));
	m->real_k = real_k;
	for (int k = d0; k < d0 + nd; k++) {
		qcf_quant q;
		if ((s = qref_litert_get_q(call, &call->inputs[k], "input", &q, d)) != QCF_OK)
			return s;
		m->scale[k] = q.scales[0];
		m->zp[k] = q.zero_points[0];
	}
	return QCF_OK;
}

/* ---- STRIDED_SLICE (strided_slice.cc; reference/strided_slice.h) --------- */

/*
 * BuildStridedSliceParams: the masks folded into per-axis begin/end/stride over the
 * "effective" input, the input with the new axes (new_axis_mask) inserted and the ellipsis
 * expanded; then StartForAxis / EndForAxis and the loop of reference_ops::StridedSlice.
 */
typedef struct sslice {
	int ne;                               /* effective rank */
	int64_t shape[MAXEFF];                /* effective input shape */
	int64_t start[MAXEFF], count[MAXEFF]; /* first index, elements written */
	int64_t stride[MAXEFF];               /* per effective axis */
	int shrink[MAXEFF];                   /* axis dropped from the output */
	int64_t prep[MAXEFF];                 /* Prepare's output size (offset: end) */
	int prep_idx_ok;                      /* offset: end[idx] within end's length */
} sslice;

static int bit(int64_t mask, int i)
{
	return i >= 0 && i < 63 && ((uint64_t)mask >> i) & 1;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

static qcf_status sslice_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0];
	int64_t bm, em, elm, nam, sam, off;
	qcf_status s;
	if ((s = attr_i(call, "begin_mask", 0, &bm, d)) != QCF_OK ||
	    (s = attr_i(call, "end_mask", 0, &em, d)) != QCF_OK ||
	    (s = attr_i(call, "ellipsis_mask", 0, &elm, d)) != QCF_OK ||
	    (s = attr_i(call, "new_axis_mask", 0, &nam, d)) != QCF_OK ||
	    (s = attr_i(call, "shrink_axis_mask", 0, &sam, d)) != QCF_OK ||
	    (s = attr_i(call, "offset", 0, &off, d)) != QCF_OK)
		return s;
	int64_t bv[MAXIDX + 1], ev[MAXIDX + 1], sv[MAXIDX + 1];
	size_t nb, ne, ns;
	if ((s = read_index(call, 1, "begin", 0, IDX_1D, bv, MAXIDX, &nb, d)) != QCF_OK ||
	    (s = read_index(call, 2, "end", 0, IDX_1D, ev, MAXIDX, &ne, d)) != QCF_OK ||
	    (s = read_index(call, 3, "strides", 0, IDX_1D, sv, MAXIDX, &ns, d)) != QCF_OK)
		return s;
	/* Prepare: NumElements(begin) == NumElements(end); strides is read at every index
	 * begin has (a shorter one is read past its end) */
	if (ne != nb || ns < nb)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "STRIDED_SLICE: end needs as many values as begin (%zu) and "
		                 "strides at least as many, got %zu and %zu",
		                 nb, ne, ns);
	int bc = (int)nb, ir = in->rank;
	int nadd = 0;
	for (int i = 0; i < bc; i++)
		if (!bit(elm, i) && bit(nam, i))
			nadd++;
	sslice z;
	memset(&z, 0, sizeof z);
	z.ne = ir + nadd;
	/* the ellipsis expanded: it covers the axes begin does not name */
	uint64_t eff_ell = 0, eff_new = 0;
	int ell_start = z.ne, expanded = 0;
	for (int i = 0; i < z.ne;) {
		if (bit(elm, i)) {
			ell_start = i;
			int end = i + 1 + nadd + ir - bc;
			end = end < z.ne ? end : z.ne;
			end = end > i + 1 ? end : i + 1;
			expanded = end - ell_start - 1;
			for (; i < end; i++)
				eff_ell |= (uint64_t)1 << i;
			continue;
		}
		if (bit(nam, i - expanded))
			eff_new |= (uint64_t)1 << i;
		i++;
	}
	int64_t sidx[MAXEFF], eidx[MAXEFF];
	int bmask[MAXEFF], emask[MAXEFF];
	int added_ell = 0, added_axes = 0, nnew = 0;
	for (int i = 0; i < z.ne; i++)
		nnew += (int)((eff_new >> i) & 1);
	if (z.ne - nnew != ir)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "STRIDED_SLICE: the masks give %d new axes where %d were counted: "
		                 "LiteRT would read dimensions the input does not have",
		                 nnew, nadd);
	for (int i = 0; i < z.ne; i++) {
		sidx[i] = eidx[i] = 0;
		z.stride[i] = 1;
		bmask[i] = emask[i] = z.shrink[i] = 0;
		if ((eff_ell >> i) & 1) {
			added_ell = i - ell_start > 0 ? i - ell_start : 0;
			bmask[i] = emask[i] = 1;
			z.shape[i] = in->shape[i - added_axes];
		} else if ((eff_new >> i) & 1) {
			eidx[i] = 1;
			z.shape[i] = 1;
			added_axes++;
		} else if (i >= bc + expanded) {
			bmask[i] = emask[i] = 1;
			z.shape[i] = in->shape[i - added_axes];
		} else {
			int o = i - added_ell;
			sidx[i] = bv[o];
			eidx[i] = ev[o];
			z.stride[i] = sv[o];
			bmask[i] = bit(bm, o);
			emask[i] = bit(em, o);
			z.shrink[i] = bit(sam, o);
			z.shape[i] = in->shape[i - added_axes];
		}
	}
	if (z.ne > MAXR)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "STRIDED_SLICE: %d axes with the new ones, the reference has %d",
		                 z.ne, MAXR);
	int64_t oshape[MAXR];
	int orank = 0;
	for (int i = 0; i < z.ne; i++) {
		int64_t st = z.stride[i], n = z.shape[i];
		if (st == 0 || st == INT32_MIN)
			return qref_fail(
			        d, QCF_INVALID_PARAM,
			        "STRIDED_SLICE: stride %lld of axis %d must be non-zero and "
			        "not INT32_MIN",
			        (long long)st, i);
		/* StartForAxis: negative from the end, clamped, then begin_mask */
		int64_t a = sidx[i] < 0 ? sidx[i] + n : sidx[i];
		a = st > 0 ? clamp64(a, 0, n) : clamp64(a, -1, n - 1);
		if (bmask[i])
			a = st > 0 ? 0 : n - 1;
		/* EndForAxis: shrink gives one element (none when the start is past the end);
		 * offset: end counts from the start */
		int64_t e;
		if (z.shrink[i]) {
			e = a >= n ? a : a + 1;
		} else {
			e = eidx[i] + (off ? a : 0);
			if (e < 0)
				e += n;
			e = st > 0 ? clamp64(e, 0, n) : clamp64(e, -1, n - 1);
			if (emask[i])
				e = st > 0 ? n : -1;
		}
		/* the loop: index < stop (stride > 0), index > stop (stride < 0) */
		int64_t c = st > 0 ? (e - a + st - 1) / st : (a - e + (-st) - 1) / (-st);
		z.start[i] = a;
		z.count[i] = c > 0 ? c : 0;
		if (z.shrink[i]) {
			if (z.count[i] != 1)
				return qref_fail(
				        d, QCF_INVALID_PARAM,
				        "STRIDED_SLICE: shrink_axis on axis %d needs a stride > "
				        "0 and a begin inside the axis (begin %lld, stride "
				        "%lld, size %lld): LiteRT's loop writes no element",
				        i, (long long)sidx[i], (long long)st, (long long)n);
			continue;
		}
		/* ResizeOutputTensor's size: end - begin, or with offset end[idx] as given,
		 * divided by the stride rounding away from zero */
		int64_t dim;
		if (off) {
			if (i >= bc)
				return qref_fail(
				        d, QCF_INVALID_PARAM,
				        "STRIDED_SLICE: with offset, LiteRT's Prepare sizes "
				        "axis %d by end[%d] (end has %d values) and writes %lld "
				        "elements",
				        i, i, bc, (long long)z.count[i]);
			dim = ev[i];
		} else {
			dim = e - a;
		}
		if ((dim < 0) != (st < 0))
			dim = 0;
		else if (st < 0)
			dim = (dim + 1) / st + 1;
		else
			dim = dim == 0 ? 0 : (dim - 1) / st + 1;
		if (dim != z.count[i])
			return qref_fail(d, QCF_INVALID_PARAM,
			                 "STRIDED_SLICE: with offset, LiteRT's Prepare sizes "
			                 "axis %d by end[%d] (end has %d values) and writes %lld "
			                 "elements",
			                 i, i, bc, (long long)z.count[i]);
		oshape[orank++] = z.count[i];
	}
	if ((s = want_shape(call, 0, orank, oshape, d)) != QCF_OK)
		return s;
	int64_t ist[MAXEFF], co[MAXEFF];
	qref_litert_strides_of(z.ne, z.shape, ist);
	size_t no = numel(z.ne, z.count);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, z.ne, z.count, co);
		int64_t ii = 0;
		for (int k = 0; k < z.ne; k++)
			ii += (z.start[k] + co[k] * z.stride[k]) * ist[k];
		mv(m, 0, i, 0, (size_t)ii);
	}
	return QCF_OK;
}

/* ---- SPLIT, SPLIT_V (split.cc, split_v.cc; reference_ops Split) --------- */

/* The outputs along axis, of sizes sz[0 .. n_outputs) from offsets off[]: each a block of the
 * input. */
static qcf_status split_common(const qcf_op_call *call, int xk, int64_t axis, const int64_t *sz,
                               const int64_t *off, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[xk];
	int r = in->rank;
	int64_t want[MAXR] = {0};
	qcf_status s;
	for (int o = 0; o < call->n_outputs; o++) {
		memcpy(want, in->shape, sizeof(int64_t) * (size_t)r);
		want[axis] = sz[o];
		if ((s = want_shape(call, o, r, want, d)) != QCF_OK)
			return s;
	}
	size_t outer = 1, inner = 1, len = (size_t)in->shape[axis];
	for (int k = 0; k < axis; k++)
		outer *= (size_t)in->shape[k];
	for (int k = (int)axis + 1; k < r; k++)
		inner *= (size_t)in->shape[k];
	for (int o = 0; o < call->n_outputs; o++) {
		size_t n = (size_t)sz[o], first = (size_t)off[o];
		for (size_t a = 0; a < outer; a++)
			for (size_t j = 0; j < n * inner; j++)
				mv(m, o, a * n * inner + j, xk, (a * len + first) * inner + j);
	}
	return QCF_OK;
}

/* The axis input: int32 (both kernels read GetTensorData<int>), one value. */
static qcf_status split_axis(const qcf_op_call *call, int k, int r, int64_t *axis, qref_detail *d)
{
	int64_t v[2];
	size_t n;
	qcf_status s = read_index(call, k, "axis", 0, IDX_1D | IDX_SCALAR, v, 2, &n, d);
	if (s != QCF_OK)
		return s;
	if (n != 1)
		return qref_fail_tensor(d, &call->inputs[k], QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: axis must hold one value, got %zu", call->op, n);
	return get_axis(call, v[0], r, axis, d);
}

static qcf_status split_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[1];
	int no = call->n_outputs;
	int64_t axis = 0, sz[MAXOUT];
	qcf_status s = count_attr(call, "num_splits", no, "outputs", d);
	if (s == QCF_OK)
		s = split_axis(call, 0, in->rank, &axis, d);
	if (s != QCF_OK)
		return s;
	if (in->shape[axis] % no)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "SPLIT: axis %lld of size %lld is not an even split into %d",
		                 (long long)axis, (long long)in->shape[axis], no);
	int64_t off[MAXOUT];
	for (int o = 0; o < no; o++) {
		sz[o] = in->shape[axis] / no;
		off[o] = o * sz[o];
	}
	return split_common(call, 1, axis, sz, off, d, m);
}

static qcf_status splitv_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0];
	int no = call->n_outputs;
	int64_t axis = 0, sz[MAXOUT + 1] = {0};
	size_t n;
	qcf_status s = count_attr(call, "num_splits", no, "outputs", d);
	if (s == QCF_OK)
		s = read_index(call, 1, "size_splits", 1, IDX_1D, sz, MAXOUT + 1, &n, d);
	if (s != QCF_OK)
		return s;
	if ((int)n != no)
		return qref_fail_tensor(d, &call->inputs[1], QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "SPLIT_V: size_splits has %zu values for %d outputs", n,
		                        no);
	/* at most one -1, the rest summed; LiteRT takes other negative sizes as given (a
	 * negative output dimension): refused */
	int minus = -1;
	int64_t sum = 0;
	for (int o = 0; o < no; o++) {
		if (sz[o] == -1 && minus < 0)
			minus = o;
		else if (sz[o] < 0)
			return qref_fail_tensor(d, &call->inputs[1], QREF_PART_DATA,
			                        QCF_INVALID_PARAM,
			                        "SPLIT_V: size_splits[%d] = %lld: sizes are >= 0 "
			                        "but for one -1",
			                        o, (long long)sz[o]);
		else
			sum += sz[o];
	}
	if ((s = split_axis(call, 2, in->rank, &axis, d)) != QCF_OK)
		return s;
	int64_t size = in->shape[axis];
	if (minus >= 0 ? sum > size : sum != size)
		return qref_fail_tensor(d, &call->inputs[1], QREF_PART_DATA, QCF_INVALID_PARAM,
		                        "SPLIT_V: size_splits sum to %lld, %s the axis size %lld",
		                        (long long)sum, minus >= 0 ? "more than" : "not",
		                        (long long)size);
	if (minus >= 0)
		sz[minus] = size - sum;
	/* each output starts where the previous ones, resolved, end */
	int64_t off[MAXOUT], acc = 0;
	for (int o = 0; o < no; o++) {
		off[o] = acc;
		acc += sz[o];
	}
	return split_common(call, 0, axis, sz, off, d, m);
}

/* ---- PACK, UNPACK (pack.cc, unpack.cc; reference_ops Pack, Unpack) ------- */

static qcf_status pack_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0];
	int ni = call->n_inputs, r = in->rank;
	int64_t axis = 0;
	qcf_status s = count_attr(call, "values_count", ni, "inputs", d);
	if (s == QCF_OK)
		s = attr_i(call, "axis", 0, &axis, d);
	if (s == QCF_OK)
		s = get_axis(call, axis, r + 1, &axis, d);
	if (s != QCF_OK)
		return s;
	for (int k = 1; k < ni; k++)
		if (!qref_same_shape(&call->inputs[k], in))
			return qref_fail_tensor(d, &call->inputs[k], QREF_PART_SHAPE,
			                        QCF_INVALID_PARAM,
			                        "PACK: input %d's shape differs from input 0's", k);
	for (int k = 0; k < ni; k++)
		if ((s = same_q(call, k, 0, 0, d)) != QCF_OK)
			return s;
	int64_t want[MAXR + 1] = {0};
	for (int k = 0, j = 0; k <= r; k++)
		want[k] = k == axis ? ni : in->shape[j++];
	if ((s = want_shape(call, 0, r + 1, want, d)) != QCF_OK)
		return s;
	size_t outer = 1, inner = 1;
	for (int k = 0; k < axis; k++)
		outer *= (size_t)in->shape[k];
	for (int k = (int)axis; k < r; k++)
		inner *= (size_t)in->shape[k];
	for (size_t a = 0; a < outer; a++)
		for (int k = 0; k < ni; k++)
			for (size_t j = 0; j < inner; j++)
				mv(m, 0, (a * (size_t)ni + (size_t)k) * inner + j, k,
				   a * inner + j);
	return QCF_OK;
}

static qcf_status unpack_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0];
	int no = call->n_outputs, r = in->rank;
	int64_t axis = 0;
	qcf_status s = count_attr(call, "num", no, "outputs", d);
	if (s == QCF_OK && qref_tensor_numel(in) == 0)
		return qref_fail_tensor(d, in, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "UNPACK: the input must not be empty (Prepare)");
	if (s == QCF_OK)
		s = attr_i(call, "axis", 0, &axis, d);
	if (s == QCF_OK)
		s = get_axis(call, axis, r, &axis, d);
	if (s != QCF_OK)
		return s;
	if (in->shape[axis] != no)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "UNPACK: axis %lld has size %lld, not the %d outputs",
		                 (long long)axis, (long long)in->shape[axis], no);
	int64_t want[MAXR] = {0};
	for (int k = 0, j = 0; k < r; k++)
		if (k != axis)
			want[j++] = in->shape[k];
	for (int o = 0; o < no; o++)
		if ((s = same_q(call, 0, o, 0, d)) != QCF_OK ||
		    (s = want_shape(call, o, r - 1, want, d)) != QCF_OK)
			return s;
	size_t outer = 1, inner = 1;
	for (int k = 0; k < axis; k++)
		outer *= (size_t)in->shape[k];
	for (int k = (int)axis + 1; k < r; k++)
		inner *= (size_t)in->shape[k];
	for (int o = 0; o < no; o++)
		for (size_t a = 0; a < outer; a++)
			for (size_t j = 0; j < inner; j++)
				mv(m, o, a * inner + j, 0,
				   (a * (size_t)no + (size_t)o) * inner + j);
	return QCF_OK;
}

/* ---- TILE (tile.cc), BROADCAST_TO (broadcast_to.cc) ---------------------- */

static qcf_status tile_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0];
	int r = in->rank;
	int64_t mul[MAXR + 1], want[MAXR];
	size_t n;
	qcf_status s = read_index(call, 1, "multiples", 1, IDX_1D, mul, MAXR + 1, &n, d);
	if (s != QCF_OK)
		return s;
	if ((int)n != r)
		return qref_fail_tensor(d, &call->inputs[1], QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "TILE: multiples has %zu values for an input of rank %d", n,
		                        r);
	for (int k = 0; k < r; k++) {
		if (mul[k] < 0)
			return qref_fail_tensor(d, &call->inputs[1], QREF_PART_DATA,
			                        QCF_INVALID_PARAM,
			                        "TILE: multiples[%d] = %lld must be >= 0 (the "
			                        "output dimension would be negative)",
			                        k, (long long)mul[k]);
		want[k] = in->shape[k] * mul[k];
	}
	if ((s = want_shape(call, 0, r, want, d)) != QCF_OK)
		return s;
	int64_t ist[MAXR], co[MAXR];
	qref_litert_strides(in, ist);
	size_t no = numel(r, want);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, r, want, co);
		int64_t ii = 0;
		for (int k = 0; k < r; k++)
			ii += (co[k] % in->shape[k]) * ist[k];
		mv(m, 0, i, 0, (size_t)ii);
	}
	return QCF_OK;
}

static qcf_status bcast_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0];
	int r = in->rank;
	int64_t want[MAXR + 1] = {0};
	size_t n;
	qcf_status s = read_index(call, 1, "shape", 1, IDX_1D, want, MAXR + 1, &n, d);
	if (s != QCF_OK)
		return s;
	int orank = (int)n, ext = orank - r;
	if (orank > MAXR)
		return qref_fail(d, QCF_NOT_SUPPORTED,
		                 "BROADCAST_TO: output rank %d, the reference has %d", orank, MAXR);
	int ok = ext >= 0;
	for (int k = 0; ok && k < r; k++)
		ok = in->shape[k] == 1 || in->shape[k] == want[ext + k];
	for (int k = 0; ok && k < orank; k++)
		ok = want[k] >= 0 && want[k] <= INT32_MAX;
	if (!ok)
		return qref_fail_tensor(d, &call->inputs[1], QREF_PART_DATA, QCF_INVALID_PARAM,
		                        "BROADCAST_TO: shape (%d values) is not broadcastable from "
		                        "the input of rank %d (each input dimension 1 or equal to "
		                        "the trailing shape value, every value in [0, 2^31))",
		                        orank, r);
	if ((s = want_shape(call, 0, orank, want, d)) != QCF_OK)
		return s;
	int64_t ist[MAXR], co[MAXR];
	qref_litert_strides(in, ist);
	size_t no = numel(orank, want);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, orank, want, co);
		int64_t ii = 0;
		for (int k = 0; k < r; k++)
			ii += (in->shape[k] == 1 ? 0 : co[ext + k]) * ist[k];
		mv(m, 0, i, 0, (size_t)ii);
	}
	return QCF_OK;
}

/* ---- MIRROR_PAD (mirror_pad.cc) ----------------------------------------- */

/*
 * GetInputDimension with offset 1 (REFLECT: the edge is not repeated) or 0 (SYMMETRIC: it
 * is): p in [0, left) reads left - 1 + offset - p, p in [left + size, ...) reads
 * size - 1 - offset - (p - left - size).
 */
static int64_t mirror_index(int64_t p, int64_t left, int64_t size, int64_t offset)
{
	if (p < left)
		return left - 1 + offset - p;
	p -= left;
	if (p >= size)
		return size - 1 - offset - (p - size);
	return p;
}

static qcf_status mpad_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0], *pt = &call->inputs[1];
	int r = in->rank;
	const qcf_attr *a = qref_attr_find(call, "mode");
	int64_t mode = 0;
	if (a && a->type == QCF_ATTR_STRING)
		mode = !strcmp(a->v.s, "REFLECT") ? 0 : (!strcmp(a->v.s, "SYMMETRIC") ? 1 : -1);
	else if (a && qref_attr_int(call, "mode", &mode) != 1)
		mode = -1;
	if (mode != 0 && mode != 1)
		return qref_fail_attr(d, "mode", QCF_INVALID_PARAM,
		                      "MIRROR_PAD: mode must be REFLECT or SYMMETRIC");
	int64_t offset = mode == 0 ? 1 : 0;
	int64_t pv[2 * MAXR] = {0};
	size_t n;
	if (!(pt->rank == 2 && pt->shape[0] == r && pt->shape[1] == 2))
		return qref_fail_tensor(d, pt, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "MIRROR_PAD: paddings must have shape [%d, 2]", r);
	qcf_status s = read_index(call, 1, "paddings", 1, IDX_ANY, pv, 2 * MAXR, &n, d);
	if (s != QCF_OK)
		return s;
	/* LiteRT checks none of the pads: beyond these bounds GetInputDimension reads
	 * outside the input */
	for (int k = 0; k < r; k++)
		for (int j = 0; j < 2; j++)
			if (pv[2 * k + j] < 0 || pv[2 * k + j] > in->shape[k] - offset)
				return qref_fail_tensor(
				        d, pt, QREF_PART_DATA, QCF_INVALID_PARAM,
				        "MIRROR_PAD: padding %lld of axis %d outside [0, %lld] (%s "
				        "mode, axis size %lld)",
				        (long long)pv[2 * k + j], k,
				        (long long)(in->shape[k] - offset),
				        offset ? "REFLECT" : "SYMMETRIC", (long long)in->shape[k]);
	if ((s = same_q(call, 0, 0, 1, d)) != QCF_OK)
		return s;
	int64_t want[MAXR] = {0};
	for (int k = 0; k < r; k++)
		want[k] = in->shape[k] + pv[2 * k] + pv[2 * k + 1];
	if ((s = want_shape(call, 0, r, want, d)) != QCF_OK)
		return s;
	int64_t ist[MAXR], co[MAXR];
	qref_litert_strides(in, ist);
	size_t no = numel(r, want);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, r, want, co);
		int64_t ii = 0;
		for (int k = 0; k < r; k++)
			ii += mirror_index(co[k], pv[2 * k], in->shape[k], offset) * ist[k];
		mv(m, 0, i, 0, (size_t)ii);
	}
	return QCF_OK;
}

/* ---- DEPTH_TO_SPACE (depth_to_space.cc), EXPAND_DIMS (expand_dims.cc) ---- */

static qcf_status d2s_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0];
	if (in->rank != 4)
		return qref_fail_tensor(
		        d, in, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "DEPTH_TO_SPACE input must have rank 4 (NHWC), got %" PRId32, in->rank);
	if (in->dtype == QCF_INT16)
		return qref_fail_tensor(d, in, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "DEPTH_TO_SPACE: LiteRT's Prepare takes float32, uint8, "
		                        "int8, int32, int64 and uint16, not int16");
	int64_t bs;
	qcf_status s = attr_i(call, "block_size", 0, &bs, d);
	if (s != QCF_OK)
		return s;
	if (bs <= 0)
		return qref_fail_attr(d, "block_size", QCF_INVALID_PARAM,
		                      "DEPTH_TO_SPACE: block_size must be > 0, got %lld",
		                      (long long)bs);
	int64_t N = in->shape[0], H = in->shape[1], W = in->shape[2], C = in->shape[3];
	if (C % (bs * bs))
		return qref_fail_tensor(d, in, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "DEPTH_TO_SPACE: channels %lld must be a multiple of "
		                        "block_size^2 = %lld",
		                        (long long)C, (long long)(bs * bs));
	int64_t oc = C / (bs * bs), want[4] = {N, H * bs, W * bs, oc};
	if ((s = want_shape(call, 0, 4, want, d)) != QCF_OK)
		return s;
	/* DCR: output (b, y, x, c) is input (b, y / bs, x / bs, ((y % bs) * bs + x % bs) * oc + c)
	 */
	int64_t co[4];
	size_t no = numel(4, want);
	for (size_t i = 0; i < no; i++) {
		qref_litert_unravel(i, 4, want, co);
		int64_t ic = ((co[1] % bs) * bs + co[2] % bs) * oc + co[3];
		mv(m, 0, i, 0, (size_t)(((co[0] * H + co[1] / bs) * W + co[2] / bs) * C + ic));
	}
	return QCF_OK;
}

static qcf_status expand_move(const qcf_op_call *call, qref_detail *d, mover *m)
{
	const qcf_tensor *in = &call->inputs[0];
	int r = in->rank;
	int64_t v[2] = {0}, axis = 0;
	size_t n;
	qcf_status s = read_index(call, 1, "axis", 1, IDX_1D | IDX_SCALAR, v, 2, &n, d);
	if (s != QCF_OK)
		return s;
	if (n != 1)
		return qref_fail_tensor(d, &call->inputs[1], QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "EXPAND_DIMS: axis must hold one value, got %zu", n);
	if ((s = get_axis(call, v[0], r + 1, &axis, d)) != QCF_OK ||
	    (s = same_q(call, 0, 0, 0, d)) != QCF_OK)
		return s;
	if (r + 1 > MAXR)
		return qref_fail(d, QCF_NOT_SUPPORTED, "EXPAND_DIMS: output rank above %d", MAXR);
	int64_t want[MAXR] = {0};
	for (int k = 0, j = 0; k <= r; k++)
		want[k] = k == axis ? 1 : in->shape[j++];
	if ((s = want_shape(call, 0, r + 1, want, d)) != QCF_OK)
		return s;
	size_t no = qref_tensor_numel(in);
	for (size_t i = 0; i < no; i++)
		mv(m, 0, i, 0, i);
	return QCF_OK;
}

/* ---- the kernel and the real hook ---------------------------------------- */

static const struct {
	move_fn fn;
	int d0, nd; /* the data inputs: first, count (-1: the rest) */
} moves[] = {
        [MV_SSLICE] = {sslice_move, 0, 1}, [MV_SPLIT] = {split_move, 1, 1},
        [MV_SPLITV] = {splitv_move, 0, 1}, [MV_PACK] = {pack_move, 0, -1},
        [MV_UNPACK] = {unpack_move, 0, 1}, [MV_TILE] = {tile_move, 0, 1},
        [MV_BCAST] = {bcast_move, 0, 1},   [MV_MPAD] = {mpad_move, 0, 1},
        [MV_D2S] = {d2s_move, 0, 1},       [MV_EXPAND] = {expand_move, 0, 1},
};

static qcf_status move_kernel(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	mover m;
	qcf_status s = move_setup(call, row, moves[row->param].d0, moves[row->param].nd, -1, d, &m);
	return s != QCF_OK ? s : moves[row->param].fn(call, d, &m);
}

static qcf_status move_real(const qcf_op_call *call, const qref_op *row, int k, double *values,
                            qref_detail *d)
{
	mover m;
	qcf_status s = move_setup(call, row, moves[row->param].d0, moves[row->param].nd, k, d, &m);
	if (s != QCF_OK)
		return s;
	m.real = values;
	return moves[row->param].fn(call, d, &m);
}

/* ---- rows ---------------------------------------------------------------- */

static const qref_attr_schema sslice_attrs[] = {
        A_INT("begin_mask", 0, I32, "0"),
        A_INT("end_mask", 0, I32, "0"),
        A_INT("ellipsis_mask", 0, I32, "0"),
        A_INT("new_axis_mask", 0, I32, "0"),
        A_INT("shrink_axis_mask", 0, I32, "0"),
        A_BOOL("offset", "0"),
        END,
};

static const qref_attr_schema split_attrs[] = {
        A_INT("num_splits", 1, INF, "the number of outputs"),
        END,
};

static const qref_attr_schema pack_attrs[] = {
        A_INT("values_count", 1, INF, "the number of inputs"),
        A_INT("axis", -INF, INF, "0"),
        END,
};

static const qref_attr_schema unpack_attrs[] = {
        A_INT("num", 1, INF, "the number of outputs"),
        A_INT("axis", -INF, INF, "0"),
        END,
};

static const qref_attr_schema mpad_attrs[] = {
        A_ENUM("mode", LIST("REFLECT", "SYMMETRIC"), 1, "REFLECT"),
        END,
};

static const qref_attr_schema d2s_attrs[] = {
        A_INT_REQ("block_size", 1, INF),
        END,
};

#define YS LIST("y0", "y1", "y2", "y3")

const qref_op qref_ops_litert_movement[] = {
        {.schema = {.semantics = "litert",
                    .op = "STRIDED_SLICE",
                    IO(LIST("x", "begin", "end", "strides"), 4, 4, LIST("y"), 1),
                    .attrs = sslice_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_SSLICE},
        {.schema = {.semantics = "litert",
                    .op = "SPLIT",
                    IO_OUTS(LIST("axis", "x"), 2, 2, YS, 1, MAXOUT),
                    .attrs = split_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_SPLIT},
        {.schema = {.semantics = "litert",
                    .op = "SPLIT_V",
                    IO_OUTS(LIST("x", "size_splits", "axis"), 3, 3, YS, 1, MAXOUT),
                    .attrs = split_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_SPLITV},
        {.schema = {.semantics = "litert",
                    .op = "PACK",
                    IO(LIST("values"), 1, MAXIN, LIST("y"), 1),
                    .attrs = pack_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_PACK},
        {.schema = {.semantics = "litert",
                    .op = "UNPACK",
                    IO_OUTS(LIST("x"), 1, 1, YS, 1, MAXOUT),
                    .attrs = unpack_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_UNPACK},
        {.schema = {.semantics = "litert",
                    .op = "TILE",
                    IO(LIST("x", "multiples"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_TILE},
        {.schema = {.semantics = "litert",
                    .op = "BROADCAST_TO",
                    IO(LIST("x", "shape"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_BCAST},
        {.schema = {.semantics = "litert",
                    .op = "MIRROR_PAD",
                    IO(LIST("x", "paddings"), 2, 2, LIST("y"), 1),
                    .attrs = mpad_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_MPAD},
        {.schema = {.semantics = "litert", .op = "DEPTH_TO_SPACE", XY, .attrs = d2s_attrs},
         .layout = QREF_LAYOUT_NHWC,
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_D2S},
        {.schema = {.semantics = "litert",
                    .op = "EXPAND_DIMS",
                    IO(LIST("x", "axis"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = move_kernel,
         .real = move_real,
         .param = MV_EXPAND},
        {.schema = {.op = NULL}},
};
