/* runner_stage: a case staged in the arena: its slot laid out (wire.h has the picture) and
 * written, the call copied in, the pattern bytes around its inputs and outputs. */
#include "run/runner_internal.h"

#include <stdlib.h>
#include <string.h>

#include "run/wire.h"

/* ---------------------------------------------------------------- staging */

static void *put(bump *b, const void *src, size_t n, size_t align)
{
	b->off = QC_ROUND_UP(b->off, align);
	void *p = b->base ? b->base + b->off : NULL;
	b->off += n;
	if (p && n) {
		if (src)
			memcpy(p, src, n);
		else
			memset(p, 0, n);
	}
	return p;
}

static const char *put_str(bump *b, const char *s)
{
	return s ? put(b, s, strlen(s) + 1, 1) : NULL;
}

/* Fills n bytes with qc_guard_pattern, repeated (a block at a time: heads are up to a page). */
void qc_runner_fill_pattern(unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + QC_GUARD_BYTES <= n; i += QC_GUARD_BYTES)
		memcpy(p + i, qc_guard_pattern, QC_GUARD_BYTES);
	memcpy(p + i, qc_guard_pattern, n - i);
}

int qc_runner_pattern_intact(const unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + QC_GUARD_BYTES <= n; i += QC_GUARD_BYTES)
		if (memcmp(p + i, qc_guard_pattern, QC_GUARD_BYTES) != 0)
			return 0;
	return memcmp(p + i, qc_guard_pattern, n - i) == 0;
}

/* The same for bytes that sit `phase` bytes into a qc_runner_fill_pattern. */
int qc_runner_pattern_intact_from(const unsigned char *p, size_t n, size_t phase)
{
	phase %= QC_GUARD_BYTES;
	size_t first = QC_GUARD_BYTES - phase < n ? QC_GUARD_BYTES - phase : n;
	return memcmp(p, qc_guard_pattern + phase, first) == 0 &&
	       qc_runner_pattern_intact(p + first, n - first);
}

/* The bytes an output starts with when the caller gives none: never a plausible answer of
 * every element at once (harness/src/run/poison.c fills the caller's buffers better). */
void qc_runner_default_poison(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(0xa5u ^ (i * 0x3bu));
}

/* kind: 0 an input (its data copied, or by reference), 1 an output (a writable region), 2 a
 * chain node's tensor (its description only: its data is bound by name afterwards). */
static void stage_tensor(stager *s, qcf_tensor *dst, const qcf_tensor *src, int output)
{
	qcf_tensor t;
	memset(&t, 0, sizeof t);
	t.struct_size = sizeof t;
	t.name = put_str(&s->meta, src->name);
	t.dtype = src->dtype;
	t.rank = src->rank;
	t.shape = src->shape ? put(&s->meta, src->shape, (size_t)src->rank * sizeof(int64_t),
	                           sizeof(int64_t))
	                     : NULL;
	t.nbytes = src->nbytes;
	if (src->quant) {
		const qcf_quant *sq = src->quant;
		size_t count = sq->count > 0 ? (size_t)sq->count : 0;
		qcf_quant q;
		memset(&q, 0, sizeof q);
		q.struct_size = sizeof q;
		q.axis = sq->axis;
		q.count = sq->count;
		q.block_size = sq->block_size;
		q.scale_dtype = sq->scale_dtype;
		q.zero_point_dtype = sq->zero_point_dtype;
		if (sq->scales)
			q.scales = put(&s->meta, sq->scales, count * sizeof(float), sizeof(float));
		if (sq->zero_points)
			q.zero_points = put(&s->meta, sq->zero_points, count * sizeof(int32_t),
			                    sizeof(int32_t));
		if (sq->float_zero_points)
			q.float_zero_points = put(&s->meta, sq->float_zero_points,
			                          count * sizeof(float), sizeof(float));
		t.quant = put(&s->meta, &q, sizeof q, QC_META_ALIGN);
	}
	if (output == 2) {
		t.data = NULL;
	} else if (output) {
		unsigned char *at = s->out_at ? s->out_at[s->n_out] : NULL;
		s->n_out++;
		if (at && src->nbytes) {
			if (src->data)
				memcpy(at, src->data, src->nbytes);
			else
				qc_runner_default_poison(at, src->nbytes);
		}
		t.data = at;
	} else if (s->inputs_by_ref) {
		t.data = src->data;
	} else if (src->data || src->nbytes) {
		t.data = put(&s->in, src->data, src->nbytes, QC_DATA_ALIGN);
		unsigned char *g = put(&s->in, NULL, QC_GUARD_BYTES, 1);
		if (g)
			qc_runner_fill_pattern(g, QC_GUARD_BYTES);
	}
	if (dst)
		*dst = t;
}

static const qcf_attr *stage_attrs(stager *s, const qcf_attr *src, int32_t n)
{
	if (!src)
		return NULL;
	qcf_attr *a = put(&s->meta, NULL, (size_t)n * sizeof *a, QC_META_ALIGN);
	for (int32_t k = 0; k < n; k++) {
		qcf_attr x = src[k];
		size_t count = x.count > 0 ? (size_t)x.count : 0;
		x.name = put_str(&s->meta, x.name);
		if (x.type == QCF_ATTR_STRING)
			x.v.s = put_str(&s->meta, x.v.s);
		else if (x.type == QCF_ATTR_INTS && x.v.ints)
			x.v.ints = put(&s->meta, x.v.ints, count * sizeof(int64_t), 8);
		else if (x.type == QCF_ATTR_FLOATS && x.v.floats)
			x.v.floats = put(&s->meta, x.v.floats, count * sizeof(double), 8);
		if (a)
			a[k] = x;
	}
	return a;
}

/* The staged buffer of the call's tensor called name (an input, an output or an
 * intermediate of the staged call c), or NULL. */
static void *bound_data(const qcf_op_call *c, const qcf_tensor *mid, int32_t n_mid,
                        const char *name)
{
	for (int32_t k = 0; name && k < c->n_inputs; k++)
		if (c->inputs[k].name && !strcmp(c->inputs[k].name, name))
			return c->inputs[k].data;
	for (int32_t k = 0; name && k < c->n_outputs; k++)
		if (c->outputs[k].name && !strcmp(c->outputs[k].name, name))
			return c->outputs[k].data;
	for (int32_t k = 0; name && mid && k < n_mid; k++)
		if (mid[k].name && !strcmp(mid[k].name, name))
			return mid[k].data;
	return NULL;
}

/* A chain (plugin.h version 3): its intermediates staged as writable regions after the
 * call's outputs, its nodes as descriptions whose tensors point at the staged buffers their
 * names bind to. c is the staged call so far (its inputs and outputs placed). */
static const qcf_chain *stage_chain(stager *s, const qcf_chain *ch, const qcf_op_call *c)
{
	qcf_chain cc;
	memset(&cc, 0, sizeof cc);
	cc.struct_size = sizeof cc;
	cc.n_nodes = ch->n_nodes;
	cc.n_intermediates = ch->n_intermediates;
	qcf_tensor *mid =
	        put(&s->meta, NULL, (size_t)ch->n_intermediates * sizeof *mid, QC_META_ALIGN);
	for (int32_t k = 0; k < ch->n_intermediates; k++)
		stage_tensor(s, mid ? &mid[k] : NULL, &ch->intermediates[k], 1);
	cc.intermediates = mid;
	qcf_op_call *nodes =
	        put(&s->meta, NULL, (size_t)ch->n_nodes * sizeof *nodes, QC_META_ALIGN);
	for (int32_t n = 0; n < ch->n_nodes; n++) {
		const qcf_op_call *src = &ch->nodes[n];
		qcf_op_call nc;
		memset(&nc, 0, sizeof nc);
		nc.struct_size = sizeof nc;
		nc.op = put_str(&s->meta, src->op);
		nc.semantics = put_str(&s->meta, src->semantics);
		nc.n_inputs = src->n_inputs;
		nc.n_outputs = src->n_outputs;
		nc.n_attrs = src->n_attrs;
		for (int side = 0; side < 2; side++) {
			int32_t m = side ? src->n_outputs : src->n_inputs;
			const qcf_tensor *from = side ? src->outputs : src->inputs;
			qcf_tensor *t = put(&s->meta, NULL, (size_t)m * sizeof *t, QC_META_ALIGN);
			for (int32_t k = 0; from && k < m; k++) {
				stage_tensor(s, t ? &t[k] : NULL, &from[k], 2);
				if (t)
					t[k].data =
					        bound_data(c, mid, ch->n_intermediates, t[k].name);
			}
			if (side)
				nc.outputs = t;
			else
				nc.inputs = t;
		}
		nc.attrs = stage_attrs(s, src->attrs, src->n_attrs);
		if (nodes)
			nodes[n] = nc;
	}
	cc.nodes = nodes;
	return put(&s->meta, &cc, sizeof cc, QC_META_ALIGN);
}

const qcf_tensor *qc_runner_out_tensor(const qcf_op_call *c, uint32_t k)
{
	const qcf_chain *ch = qcf_call_chain(c);
	if (k < (uint32_t)c->n_outputs)
		return &c->outputs[k];
	return ch ? &ch->intermediates[k - (uint32_t)c->n_outputs] : NULL;
}

uint32_t qc_runner_n_writable(const qcf_op_call *c)
{
	const qcf_chain *ch = qcf_call_chain(c);
	return (uint32_t)c->n_outputs + (ch ? (uint32_t)ch->n_intermediates : 0);
}

/* Deep-copies call into s (or measures it); returns the copy. */
qcf_op_call *qc_runner_stage_call(stager *s, const qcf_op_call *src)
{
	qcf_op_call c;
	memset(&c, 0, sizeof c);
	qcf_op_call *dc = put(&s->meta, NULL, sizeof c, QC_META_ALIGN);
	c.struct_size = sizeof c;
	c.op = put_str(&s->meta, src->op);
	c.semantics = put_str(&s->meta, src->semantics);
	c.n_inputs = src->n_inputs;
	c.n_outputs = src->n_outputs;
	c.n_attrs = src->n_attrs;
	if (src->inputs) {
		qcf_tensor *t =
		        put(&s->meta, NULL, (size_t)src->n_inputs * sizeof *t, QC_META_ALIGN);
		for (int32_t k = 0; k < src->n_inputs; k++)
			stage_tensor(s, t ? &t[k] : NULL, &src->inputs[k], 0);
		c.inputs = t;
	}
	if (src->outputs) {
		qcf_tensor *t =
		        put(&s->meta, NULL, (size_t)src->n_outputs * sizeof *t, QC_META_ALIGN);
		for (int32_t k = 0; k < src->n_outputs; k++)
			stage_tensor(s, t ? &t[k] : NULL, &src->outputs[k], 1);
		c.outputs = t;
	}
	c.attrs = stage_attrs(s, src->attrs, src->n_attrs);
	const qcf_chain *ch = qcf_call_chain(src);
	if (ch)
		c.chain = stage_chain(s, ch, &c);
	if (dc)
		*dc = c;
	return dc;
}

void qc_runner_layout_call(const qcf_op_call *c, size_t page, slot_layout *L)
{
	stager s = {{NULL, 0}, {NULL, 0}, 0, NULL, 0};
	qc_runner_stage_call(&s, c);
	memset(L, 0, sizeof *L);
	L->meta = QC_ROUND_UP(s.meta.off, QC_DATA_ALIGN);
	L->in_bytes = s.in.off;
	qc_case_desc *d = &L->d;
	d->ro_off = 0;
	d->ro_len = QC_ROUND_UP(L->meta + L->in_bytes, page);
	size_t off = d->ro_len; /* output 0 follows the inputs, a closed page after each output */
	d->n_outputs = qc_runner_n_writable(c);
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		size_t n = qc_runner_out_tensor(c, k)->nbytes, r64 = QC_ROUND_UP(n, QC_DATA_ALIGN);
		size_t pages = r64 ? QC_ROUND_UP(r64, page) : page;
		d->rw_off[k] = off;
		d->rw_len[k] = pages;
		d->out_off[k] = off + pages - r64;
		d->out_len[k] = n;
		off += pages + page;
	}
	d->slot_len = off;
}

static const char *check_tensor(const qcf_tensor *t)
{
	if (t->rank < 0 || t->rank > QCF_MAX_RANK)
		return "rank out of range";
	if (t->rank > 0 && !t->shape)
		return "shape missing";
	if (t->nbytes > 0 && !t->data)
		return "data missing";
	if (t->nbytes > ((size_t)1 << 48))
		return "nbytes out of range";
	if (t->quant && (t->quant->count < 0 || (t->quant->count > 0 && !t->quant->scales)))
		return "bad quantization";
	return NULL;
}

/* Why the harness's call cannot be staged, or NULL. */
const char *qc_runner_check_call(const qcf_op_call *c)
{
	if (!c)
		return "no call";
	if (c->n_inputs < 0 || c->n_outputs < 0 || c->n_attrs < 0)
		return "negative count";
	if (qc_runner_n_writable(c) > QC_WIRE_MAX_OUTPUTS)
		return "more outputs (and a chain's intermediates) than the runner takes";
	const qcf_chain *ch = qcf_call_chain(c);
	if (ch && (ch->n_nodes < 1 || !ch->nodes || ch->n_intermediates < 0 ||
	           (ch->n_intermediates && !ch->intermediates)))
		return "bad chain";
	for (int32_t k = 0; ch && k < ch->n_intermediates; k++)
		if (check_tensor(&ch->intermediates[k]))
			return check_tensor(&ch->intermediates[k]);
	if ((c->n_inputs && !c->inputs) || (c->n_outputs && !c->outputs) ||
	    (c->n_attrs && !c->attrs))
		return "array missing";
	for (int32_t k = 0; k < c->n_inputs; k++)
		if (check_tensor(&c->inputs[k]))
			return check_tensor(&c->inputs[k]);
	for (int32_t k = 0; k < c->n_outputs; k++)
		if (check_tensor(&c->outputs[k]))
			return check_tensor(&c->outputs[k]);
	for (int32_t k = 0; k < c->n_attrs; k++) {
		const qcf_attr *a = &c->attrs[k];
		if ((a->type == QCF_ATTR_INTS || a->type == QCF_ATTR_FLOATS) &&
		    (a->count < 0 || (a->count > 0 && !a->v.ints)))
			return "bad attribute array";
	}
	return NULL;
}

/* Makes room for need elements; returns the array (p itself if it was big enough), or NULL. */
void *qc_runner_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(p, n * elem);
	if (q)
		*cap = n;
	return q;
}

/* Writes a case's slot (at sc->d's absolute offsets) from the caller's call. */
void qc_runner_stage_slot(qc_runner *r, const staged_case *sc, const qcf_op_call *orig)
{
	const qc_case_desc *d = &sc->d;
	unsigned char *out_at[QC_WIRE_MAX_OUTPUTS];
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		unsigned char *reg = r->arena + d->rw_off[k];
		size_t head = d->out_off[k] - d->rw_off[k];
		size_t tail = d->rw_len[k] - head - d->out_len[k];
		qc_runner_fill_pattern(reg, head);
		out_at[k] = reg + head;
		qc_runner_fill_pattern(out_at[k] + d->out_len[k], tail);
	}
	unsigned char *ro = r->arena + d->ro_off;
	/* every byte after the call description that is not an input holds the pattern (checked
	 * after the case: output 0 follows, so a write before it lands here) */
	qc_runner_fill_pattern(ro + sc->meta_len, d->ro_len - sc->meta_len);
	stager s = {{ro, 0}, {ro + sc->meta_len, 0}, 0, out_at, 0};
	qc_runner_stage_call(&s, orig);
}
