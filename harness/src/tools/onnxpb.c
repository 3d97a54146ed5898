/*
 * Protobuf wire format and the onnx.proto messages the importer needs; see
 * onnxpb.h. Wire format: protobuf's encoding documentation (varint, I64,
 * LEN, I32; packed repeated fields). Field numbers: onnx/onnx.proto.
 */
#include "onnxpb.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------- */

struct qc_arena {
	struct qc_arena *next;
	size_t used, cap;
	size_t total; /* bytes in the whole chain (kept in the head) */
	max_align_t data[];
};

/* Decoded objects never need more than a few times the input; this bounds a
 * hostile input's appetite all the same. */
#define ARENA_LIMIT ((size_t)1 << 30)

static qc_arena *arena_new(size_t cap)
{
	qc_arena *a = calloc(1, sizeof *a + cap);
	if (a)
		a->cap = cap;
	return a;
}

static void arena_free(qc_arena *a)
{
	while (a) {
		qc_arena *n = a->next;
		free(a);
		a = n;
	}
}

/* Zeroed memory for n objects of size sz, or NULL (overflow, limit, OOM). */
static void *arena_alloc(qc_arena *head, size_t n, size_t sz)
{
	if (sz && n > (ARENA_LIMIT / sz))
		return NULL;
	size_t bytes = n * sz;
	size_t al = sizeof(max_align_t);
	bytes = (bytes + al - 1) / al * al;
	if (!bytes)
		bytes = al;
	if (head->total + bytes > ARENA_LIMIT)
		return NULL;
	/* the head's chunk, then its successor, hold the current space */
	qc_arena *c = head->next ? head->next : head;
	if (c->cap - c->used < bytes) {
		size_t cap = bytes > 65536 ? bytes : 65536;
		qc_arena *nc = arena_new(cap);
		if (!nc)
			return NULL;
		nc->next = head->next;
		head->next = nc;
		c = nc;
	}
	void *p = (char *)c->data + c->used;
	c->used += bytes;
	head->total += bytes;
	return p;
}

/* ---- errors ------------------------------------------------------------ */

static int fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t n, const char *fmt, ...)
{
	if (err && n) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static size_t off(const qc_pb *r, const uint8_t *p)
{
	return (size_t)(p - r->base);
}

/* ---- wire format ------------------------------------------------------- */

void qc_pb_init(qc_pb *r, const void *data, size_t len)
{
	r->base = r->p = data;
	r->end = r->p + len;
}

qc_pb qc_pb_sub(const qc_pb *r, const qc_pb_field *f)
{
	qc_pb s = {r->base, f->data, f->data + f->len};
	return s;
}

int qc_pb_varint(qc_pb *r, uint64_t *v, char *err, size_t err_size)
{
	const uint8_t *start = r->p;
	uint64_t x = 0;
	for (int i = 0; i < 10; i++) {
		if (r->p == r->end)
			return fail(err, err_size, "truncated varint at byte %zu", off(r, start));
		uint8_t b = *r->p++;
		/* the 10th byte carries bit 63 only */
		if (i == 9 && b > 1)
			return fail(err, err_size,
			            b & 0x80 ? "varint longer than 10 bytes at byte %zu"
			                     : "varint overflows 64 bits at byte %zu",
			            off(r, start));
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return fail(err, err_size, "varint longer than 10 bytes at byte %zu", off(r, start));
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t x = 0;
	for (int i = n - 1; i >= 0; i--)
		x = x << 8 | p[i];
	return x;
}

int qc_pb_next(qc_pb *r, qc_pb_field *f, char *err, size_t err_size)
{
	if (r->p == r->end)
		return 0;
	memset(f, 0, sizeof *f);
	f->offset = off(r, r->p);
	uint64_t tag;
	if (qc_pb_varint(r, &tag, err, err_size))
		return -1;
	if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
		return fail(err, err_size, "field number %" PRIu64 " at byte %zu", tag >> 3,
		            f->offset);
	f->number = (uint32_t)(tag >> 3);
	f->wire = (int)(tag & 7);
	size_t left;
	switch (f->wire) {
	case QC_PB_VARINT: return qc_pb_varint(r, &f->u, err, err_size) ? -1 : 1;
	case QC_PB_I64:
	case QC_PB_I32: {
		int w = f->wire == QC_PB_I64 ? 8 : 4;
		if ((size_t)(r->end - r->p) < (size_t)w)
			return fail(err, err_size,
			            "truncated %d-byte value of field %u at byte %zu", w, f->number,
			            f->offset);
		f->u = le(r->p, w);
		r->p += w;
		return 1;
	}
	case QC_PB_LEN: {
		uint64_t len;
		if (qc_pb_varint(r, &len, err, err_size))
			return -1;
		left = (size_t)(r->end - r->p);
		if (len > left)
			return fail(err, err_size,
			            "length %" PRIu64 " of field %u at byte %zu runs past the end "
			            "(%zu bytes left)",
			            len, f->number, f->offset, left);
		f->data = r->p;
		f->len = (size_t)len;
		r->p += len;
		return 1;
	}
	case 3:
	case 4:
		return fail(err, err_size,
		            "group wire type %d of field %u at byte %zu is not supported", f->wire,
		            f->number, f->offset);
	default:
		return fail(err, err_size, "invalid wire type %d of field %u at byte %zu", f->wire,
		            f->number, f->offset);
	}
}

static const char *wire_name(int wire)
{
	switch (wire) {
	case QC_PB_VARINT: return "varint";
	case QC_PB_I64: return "64-bit";
	case QC_PB_LEN: return "length-delimited";
	case QC_PB_I32: return "32-bit";
	default: return "?";
	}
}

/* Values in a packed list of element wire type `wire`; -1 if malformed. */
static int packed_walk(const qc_pb *r, const qc_pb_field *f, int wire, uint64_t *out, size_t cap,
                       size_t *n, char *err, size_t err_size)
{
	qc_pb s = qc_pb_sub(r, f);
	if (wire == QC_PB_I64 || wire == QC_PB_I32) {
		size_t w = wire == QC_PB_I64 ? 8 : 4;
		if (f->len % w)
			return fail(
			        err, err_size,
			        "packed field %u at byte %zu: %zu bytes is not a multiple of %zu",
			        f->number, f->offset, f->len, w);
		size_t k = f->len / w;
		if (out) {
			if (k > cap - *n)
				return fail(err, err_size,
				            "packed field %u at byte %zu: too many values",
				            f->number, f->offset);
			for (size_t i = 0; i < k; i++)
				out[*n + i] = le(s.p + i * w, (int)w);
		}
		*n += k;
		return 0;
	}
	while (s.p < s.end) {
		uint64_t v;
		if (qc_pb_varint(&s, &v, err, err_size))
			return -1;
		if (out) {
			if (*n >= cap)
				return fail(err, err_size,
				            "packed field %u at byte %zu: too many values",
				            f->number, f->offset);
			out[*n] = v;
		}
		++*n;
	}
	return 0;
}

static int repeated(const qc_pb *r, const qc_pb_field *f, int wire, uint64_t *out, size_t cap,
                    size_t *n, char *err, size_t err_size)
{
	if (f->wire == QC_PB_LEN)
		return packed_walk(r, f, wire, out, cap, n, err, err_size);
	if (f->wire != wire)
		return fail(err, err_size, "field %u at byte %zu: wire type %s, expected %s",
		            f->number, f->offset, wire_name(f->wire), wire_name(wire));
	if (out) {
		if (*n >= cap)
			return fail(err, err_size, "field %u at byte %zu: too many values",
			            f->number, f->offset);
		out[*n] = f->u;
	}
	++*n;
	return 0;
}

int qc_pb_count(const qc_pb *r, const qc_pb_field *f, int wire, size_t *n, char *err,
                size_t err_size)
{
	return repeated(r, f, wire, NULL, 0, n, err, err_size);
}

int qc_pb_values(const qc_pb *r, const qc_pb_field *f, int wire, uint64_t *out, size_t cap,
                 size_t *n, char *err, size_t err_size)
{
	return repeated(r, f, wire, out, cap, n, err, err_size);
}

/* ---- message helpers --------------------------------------------------- */

typedef struct dec {
	qc_arena *a;
	const qc_pb *r; /* the reader of the current message */
	char *err;
	size_t err_size;
} dec;

#define OOM(d) fail((d)->err, (d)->err_size, "out of memory (or over the decoder's limit)")

static int want_wire(dec *d, const char *msg, const qc_pb_field *f, int wire)
{
	if (f->wire == wire)
		return 0;
	return fail(d->err, d->err_size, "%s field %u at byte %zu: wire type %s, expected %s", msg,
	            f->number, f->offset, wire_name(f->wire), wire_name(wire));
}

static int str_of(dec *d, const char *msg, const qc_pb_field *f, qc_onnx_str *s)
{
	if (want_wire(d, msg, f, QC_PB_LEN))
		return -1;
	char *c = arena_alloc(d->a, f->len + 1, 1);
	if (!c)
		return OOM(d);
	memcpy(c, f->data, f->len);
	c[f->len] = 0;
	s->s = c;
	s->len = f->len;
	return 0;
}

/* Counts (first pass) or reads (second pass) repeated scalar values into a
 * temporary uint64 list; `into` copies them to their final type. */
typedef struct rep {
	size_t n;      /* counted in pass 1 */
	size_t k;      /* filled in pass 2 */
	uint64_t *tmp; /* n values, pass 2 */
} rep;

static int rep_field(dec *d, rep *x, int pass, const qc_pb_field *f, int wire)
{
	if (pass == 1)
		return qc_pb_count(d->r, f, wire, &x->n, d->err, d->err_size);
	return qc_pb_values(d->r, f, wire, x->tmp, x->n, &x->k, d->err, d->err_size);
}

static int rep_alloc(dec *d, rep *x)
{
	x->tmp = arena_alloc(d->a, x->n, sizeof *x->tmp);
	return x->tmp ? 0 : OOM(d);
}

/* ---- TensorProto ------------------------------------------------------- */

static int tensor_msg(dec *d, const qc_pb *msg, qc_onnx_tensor *t)
{
	enum { DIMS, FLOATS, INT32S, INT64S, DOUBLES, UINT64S, NREP };
	static const int field_of[NREP] = {1, 4, 5, 7, 10, 11};
	static const int wire_of[NREP] = {QC_PB_VARINT, QC_PB_I32, QC_PB_VARINT,
	                                  QC_PB_VARINT, QC_PB_I64, QC_PB_VARINT};
	rep reps[NREP];
	memset(reps, 0, sizeof reps);
	memset(t, 0, sizeof *t);
	t->arena = d->a;
	const qc_pb *saved = d->r;
	d->r = msg;
	for (int pass = 1; pass <= 2; pass++) {
		qc_pb r = *msg;
		qc_pb_field f;
		int got;
		while ((got = qc_pb_next(&r, &f, d->err, d->err_size)) == 1) {
			int ri = -1;
			for (int i = 0; i < NREP; i++)
				if ((int)f.number == field_of[i])
					ri = i;
			if (ri >= 0) {
				if (rep_field(d, &reps[ri], pass, &f, wire_of[ri]))
					return -1;
				continue;
			}
			if (pass == 2)
				continue;
			switch (f.number) {
			case 2:
				if (want_wire(d, "TensorProto", &f, QC_PB_VARINT))
					return -1;
				t->data_type = (int32_t)(uint32_t)f.u;
				break;
			case 3:
				if (want_wire(d, "TensorProto", &f, QC_PB_LEN))
					return -1;
				t->segment = 1;
				break;
			case 6:
				if (want_wire(d, "TensorProto", &f, QC_PB_LEN))
					return -1;
				t->n_string++;
				break;
			case 8:
				if (str_of(d, "TensorProto", &f, &t->name))
					return -1;
				break;
			case 9:
				if (want_wire(d, "TensorProto", &f, QC_PB_LEN))
					return -1;
				t->raw = arena_alloc(d->a, f.len, 1);
				if (!t->raw)
					return OOM(d);
				memcpy(t->raw, f.data, f.len);
				t->raw_len = f.len;
				t->has_raw = 1;
				break;
			case 13:
				if (want_wire(d, "TensorProto", &f, QC_PB_LEN))
					return -1;
				t->external = 1;
				break;
			case 14:
				if (want_wire(d, "TensorProto", &f, QC_PB_VARINT))
					return -1;
				if (f.u == 1)
					t->external = 1;
				break;
			default: break; /* doc_string, metadata_props, unknown */
			}
		}
		if (got < 0)
			return -1;
		if (pass == 1)
			for (int i = 0; i < NREP; i++)
				if (rep_alloc(d, &reps[i]))
					return -1;
	}
	d->r = saved;
	t->n_dims = reps[DIMS].n;
	t->dims = arena_alloc(d->a, t->n_dims, sizeof *t->dims);
	t->n_float = reps[FLOATS].n;
	t->float_data = arena_alloc(d->a, t->n_float, sizeof *t->float_data);
	t->n_int32 = reps[INT32S].n;
	t->int32_data = arena_alloc(d->a, t->n_int32, sizeof *t->int32_data);
	t->n_int64 = reps[INT64S].n;
	t->int64_data = arena_alloc(d->a, t->n_int64, sizeof *t->int64_data);
	t->n_double = reps[DOUBLES].n;
	t->double_data = arena_alloc(d->a, t->n_double, sizeof *t->double_data);
	t->n_uint64 = reps[UINT64S].n;
	t->uint64_data = arena_alloc(d->a, t->n_uint64, sizeof *t->uint64_data);
	if (!t->dims || !t->float_data || !t->int32_data || !t->int64_data || !t->double_data ||
	    !t->uint64_data)
		return OOM(d);
	for (size_t i = 0; i < t->n_dims; i++)
		t->dims[i] = (int64_t)reps[DIMS].tmp[i];
	for (size_t i = 0; i < t->n_float; i++) {
		uint32_t b = (uint32_t)reps[FLOATS].tmp[i];
		memcpy(&t->float_data[i], &b, 4);
	}
	/* int32 on the wire: a varint whose low 32 bits are the value */
	for (size_t i = 0; i < t->n_int32; i++)
		t->int32_data[i] = (int32_t)(uint32_t)reps[INT32S].tmp[i];
	for (size_t i = 0; i < t->n_int64; i++)
		t->int64_data[i] = (int64_t)reps[INT64S].tmp[i];
	for (size_t i = 0; i < t->n_double; i++)
		memcpy(&t->double_data[i], &reps[DOUBLES].tmp[i], 8);
	memcpy(t->uint64_data, reps[UINT64S].tmp, t->n_uint64 * sizeof(uint64_t));
	return 0;
}

/* ---- AttributeProto ---------------------------------------------------- */

static int attr_msg(dec *d, const qc_pb *msg, qc_onnx_attr *at)
{
	rep fl = {0}, in = {0};
	memset(at, 0, sizeof *at);
	const qc_pb *saved = d->r;
	d->r = msg;
	for (int pass = 1; pass <= 2; pass++) {
		qc_pb r = *msg;
		qc_pb_field f;
		int got;
		while ((got = qc_pb_next(&r, &f, d->err, d->err_size)) == 1) {
			if (f.number == 7) {
				if (rep_field(d, &fl, pass, &f, QC_PB_I32))
					return -1;
				continue;
			}
			if (f.number == 8) {
				if (rep_field(d, &in, pass, &f, QC_PB_VARINT))
					return -1;
				continue;
			}
			if (pass == 2)
				continue;
			switch (f.number) {
			case 1:
				if (str_of(d, "AttributeProto", &f, &at->name))
					return -1;
				break;
			case 20:
				if (want_wire(d, "AttributeProto", &f, QC_PB_VARINT))
					return -1;
				at->type = (int32_t)(uint32_t)f.u;
				break;
			case 2:
				if (want_wire(d, "AttributeProto", &f, QC_PB_I32))
					return -1;
				{
					uint32_t b = (uint32_t)f.u;
					memcpy(&at->f, &b, 4);
				}
				at->has_f = 1;
				break;
			case 3:
				if (want_wire(d, "AttributeProto", &f, QC_PB_VARINT))
					return -1;
				at->i = (int64_t)f.u;
				at->has_i = 1;
				break;
			case 4:
				if (str_of(d, "AttributeProto", &f, &at->s))
					return -1;
				at->has_s = 1;
				break;
			case 5: {
				if (want_wire(d, "AttributeProto", &f, QC_PB_LEN))
					return -1;
				if (at->has_t)
					return fail(d->err, d->err_size,
					            "AttributeProto.t given twice (byte %zu)",
					            f.offset);
				at->t = arena_alloc(d->a, 1, sizeof *at->t);
				if (!at->t)
					return OOM(d);
				qc_pb sub = qc_pb_sub(msg, &f);
				if (tensor_msg(d, &sub, at->t))
					return -1;
				at->has_t = 1;
				break;
			}
			case 6:
			case 9:
			case 10:
			case 11:
			case 21:
			case 22:
			case 23: at->n_other++; break;
			default: break;
			}
		}
		if (got < 0)
			return -1;
		if (pass == 1 && (rep_alloc(d, &fl) || rep_alloc(d, &in)))
			return -1;
	}
	d->r = saved;
	at->n_floats = fl.n;
	at->n_ints = in.n;
	at->floats = arena_alloc(d->a, fl.n, sizeof *at->floats);
	at->ints = arena_alloc(d->a, in.n, sizeof *at->ints);
	if (!at->floats || !at->ints)
		return OOM(d);
	for (size_t i = 0; i < fl.n; i++) {
		uint32_t b = (uint32_t)fl.tmp[i];
		memcpy(&at->floats[i], &b, 4);
	}
	for (size_t i = 0; i < in.n; i++)
		at->ints[i] = (int64_t)in.tmp[i];
	return 0;
}

/* ---- NodeProto, ValueInfoProto, GraphProto, ModelProto ----------------- */

/* Repeated LEN fields: pass 1 counts them, pass 2 decodes into the array. */
static int node_msg(dec *d, const qc_pb *msg, qc_onnx_node *n)
{
	memset(n, 0, sizeof *n);
	size_t ni = 0, no = 0, na = 0;
	for (int pass = 1; pass <= 2; pass++) {
		qc_pb r = *msg;
		qc_pb_field f;
		int got;
		while ((got = qc_pb_next(&r, &f, d->err, d->err_size)) == 1) {
			switch (f.number) {
			case 1:
				if (pass == 1 ? want_wire(d, "NodeProto", &f, QC_PB_LEN)
				              : str_of(d, "NodeProto", &f, &n->inputs[ni]))
					return -1;
				ni++;
				break;
			case 2:
				if (pass == 1 ? want_wire(d, "NodeProto", &f, QC_PB_LEN)
				              : str_of(d, "NodeProto", &f, &n->outputs[no]))
					return -1;
				no++;
				break;
			case 5:
				if (want_wire(d, "NodeProto", &f, QC_PB_LEN))
					return -1;
				if (pass == 2) {
					qc_pb sub = qc_pb_sub(msg, &f);
					if (attr_msg(d, &sub, &n->attrs[na]))
						return -1;
				}
				na++;
				break;
			case 4:
				if (pass == 1 && str_of(d, "NodeProto", &f, &n->op_type))
					return -1;
				break;
			case 7:
				if (pass == 1 && str_of(d, "NodeProto", &f, &n->domain))
					return -1;
				break;
			default: break;
			}
		}
		if (got < 0)
			return -1;
		if (pass == 1) {
			n->n_inputs = ni, n->n_outputs = no, n->n_attrs = na;
			n->inputs = arena_alloc(d->a, ni, sizeof *n->inputs);
			n->outputs = arena_alloc(d->a, no, sizeof *n->outputs);
			n->attrs = arena_alloc(d->a, na, sizeof *n->attrs);
			if (!n->inputs || !n->outputs || !n->attrs)
				return OOM(d);
			ni = no = na = 0;
		}
	}
	if (!n->op_type.s)
		n->op_type = (qc_onnx_str){"", 0};
	if (!n->domain.s)
		n->domain = (qc_onnx_str){"", 0};
	return 0;
}

static int value_info_name(dec *d, const qc_pb *msg, qc_onnx_str *name)
{
	qc_pb r = *msg;
	qc_pb_field f;
	int got;
	*name = (qc_onnx_str){"", 0};
	while ((got = qc_pb_next(&r, &f, d->err, d->err_size)) == 1)
		if (f.number == 1 && str_of(d, "ValueInfoProto", &f, name))
			return -1;
	return got;
}

static int graph_msg(dec *d, const qc_pb *msg, qc_onnx_graph *g)
{
	memset(g, 0, sizeof *g);
	size_t nn = 0, ni = 0, nin = 0, nout = 0;
	for (int pass = 1; pass <= 2; pass++) {
		qc_pb r = *msg;
		qc_pb_field f;
		int got;
		while ((got = qc_pb_next(&r, &f, d->err, d->err_size)) == 1) {
			if (f.number != 1 && f.number != 5 && f.number != 11 && f.number != 12 &&
			    f.number != 15)
				continue;
			if (want_wire(d, "GraphProto", &f, QC_PB_LEN))
				return -1;
			qc_pb sub = qc_pb_sub(msg, &f);
			int rc = 0;
			switch (f.number) {
			case 1:
				if (pass == 2)
					rc = node_msg(d, &sub, &g->nodes[nn]);
				nn++;
				break;
			case 5:
				if (pass == 2)
					rc = tensor_msg(d, &sub, &g->initializers[ni]);
				ni++;
				break;
			case 11:
				if (pass == 2)
					rc = value_info_name(d, &sub, &g->inputs[nin]);
				nin++;
				break;
			case 12:
				if (pass == 2)
					rc = value_info_name(d, &sub, &g->outputs[nout]);
				nout++;
				break;
			case 15:
				if (pass == 1)
					g->n_sparse++;
				break;
			}
			if (rc < 0)
				return -1;
		}
		if (got < 0)
			return -1;
		if (pass == 1) {
			g->n_nodes = nn, g->n_initializers = ni, g->n_inputs = nin,
			g->n_outputs = nout;
			g->nodes = arena_alloc(d->a, nn, sizeof *g->nodes);
			g->initializers = arena_alloc(d->a, ni, sizeof *g->initializers);
			g->inputs = arena_alloc(d->a, nin, sizeof *g->inputs);
			g->outputs = arena_alloc(d->a, nout, sizeof *g->outputs);
			if (!g->nodes || !g->initializers || !g->inputs || !g->outputs)
				return OOM(d);
			nn = ni = nin = nout = 0;
		}
	}
	return 0;
}

static int opset_msg(dec *d, const qc_pb *msg, qc_onnx_opset *o)
{
	qc_pb r = *msg;
	qc_pb_field f;
	int got;
	o->domain = (qc_onnx_str){"", 0};
	while ((got = qc_pb_next(&r, &f, d->err, d->err_size)) == 1) {
		if (f.number == 1 && str_of(d, "OperatorSetIdProto", &f, &o->domain))
			return -1;
		if (f.number == 2) {
			if (want_wire(d, "OperatorSetIdProto", &f, QC_PB_VARINT))
				return -1;
			o->version = (int64_t)f.u;
		}
	}
	return got;
}

int qc_onnx_model_decode(qc_onnx_model *m, const void *data, size_t len, char *err, size_t err_size)
{
	memset(m, 0, sizeof *m);
	qc_arena *a = arena_new(65536);
	if (!a)
		return fail(err, err_size, "out of memory");
	qc_pb msg;
	qc_pb_init(&msg, data, len);
	dec d = {a, &msg, err, err_size};
	size_t no = 0;
	for (int pass = 1; pass <= 2; pass++) {
		qc_pb r = msg;
		qc_pb_field f;
		int got;
		while ((got = qc_pb_next(&r, &f, err, err_size)) == 1) {
			if (f.number == 1 && pass == 1) {
				if (want_wire(&d, "ModelProto", &f, QC_PB_VARINT))
					goto bad;
				m->ir_version = (int64_t)f.u;
			} else if (f.number == 7 && pass == 1) {
				if (want_wire(&d, "ModelProto", &f, QC_PB_LEN))
					goto bad;
				if (m->has_graph) {
					fail(err, err_size,
					     "ModelProto.graph given twice (byte %zu)", f.offset);
					goto bad;
				}
				qc_pb sub = qc_pb_sub(&msg, &f);
				if (graph_msg(&d, &sub, &m->graph))
					goto bad;
				m->has_graph = 1;
			} else if (f.number == 8) {
				if (want_wire(&d, "ModelProto", &f, QC_PB_LEN))
					goto bad;
				if (pass == 2) {
					qc_pb sub = qc_pb_sub(&msg, &f);
					if (opset_msg(&d, &sub, &m->opsets[no]))
						goto bad;
				}
				no++;
			}
		}
		if (got < 0)
			goto bad;
		if (pass == 1) {
			m->n_opsets = no;
			m->opsets = arena_alloc(a, no, sizeof *m->opsets);
			if (!m->opsets) {
				OOM(&d);
				goto bad;
			}
			no = 0;
		}
	}
	m->arena = a;
	return 0;
bad:
	arena_free(a);
	memset(m, 0, sizeof *m);
	return -1;
}

void qc_onnx_model_free(qc_onnx_model *m)
{
	if (m) {
		arena_free(m->arena);
		memset(m, 0, sizeof *m);
	}
}

int qc_onnx_tensor_read(qc_onnx_tensor **out, const void *data, size_t len, char *err,
                        size_t err_size)
{
	*out = NULL;
	qc_arena *a = arena_new(65536);
	if (!a)
		return fail(err, err_size, "out of memory");
	qc_pb msg;
	qc_pb_init(&msg, data, len);
	dec d = {a, &msg, err, err_size};
	qc_onnx_tensor *t = arena_alloc(a, 1, sizeof *t);
	if (!t) {
		arena_free(a);
		return fail(err, err_size, "out of memory");
	}
	if (tensor_msg(&d, &msg, t)) {
		arena_free(a);
		return -1;
	}
	*out = t;
	return 0;
}

void qc_onnx_tensor_free(qc_onnx_tensor *t)
{
	if (t)
		arena_free(t->arena);
}

/* ---- tensor elements --------------------------------------------------- */

const char *qc_onnx_dtype_name(int32_t dt)
{
	static const char *const names[] = {
	        "UNDEFINED",      "FLOAT",    "UINT8",        "INT8",           "UINT16",
	        "INT16",          "INT32",    "INT64",        "STRING",         "BOOL",
	        "FLOAT16",        "DOUBLE",   "UINT32",       "UINT64",         "COMPLEX64",
	        "COMPLEX128",     "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
	        "FLOAT8E5M2FNUZ", "UINT4",    "INT4",         "FLOAT4E2M1"};
	static char buf[32];
	if (dt >= 0 && (size_t)dt < sizeof names / sizeof names[0])
		return names[dt];
	snprintf(buf, sizeof buf, "type %" PRId32, dt);
	return buf;
}

/* Bits per element in raw_data; 0 for types without one number per element. */
static int elem_bits(int32_t dt)
{
	switch (dt) {
	case QC_ONNX_UINT4:
	case QC_ONNX_INT4: return 4;
	case QC_ONNX_UINT8:
	case QC_ONNX_INT8:
	case QC_ONNX_BOOL: return 8;
	case QC_ONNX_UINT16:
	case QC_ONNX_INT16:
	case QC_ONNX_FLOAT16:
	case QC_ONNX_BFLOAT16: return 16;
	case QC_ONNX_FLOAT:
	case QC_ONNX_INT32:
	case QC_ONNX_UINT32: return 32;
	case QC_ONNX_DOUBLE:
	case QC_ONNX_INT64:
	case QC_ONNX_UINT64: return 64;
	default: return 0;
	}
}

static int is_real(int32_t dt)
{
	return dt == QC_ONNX_FLOAT || dt == QC_ONNX_DOUBLE || dt == QC_ONNX_FLOAT16 ||
	       dt == QC_ONNX_BFLOAT16;
}

/* Range of the integer types (bool: 0..1). */
static void int_range(int32_t dt, int64_t *lo, int64_t *hi)
{
	switch (dt) {
	case QC_ONNX_UINT4: *lo = 0, *hi = 15; break;
	case QC_ONNX_INT4: *lo = -8, *hi = 7; break;
	case QC_ONNX_UINT8: *lo = 0, *hi = 255; break;
	case QC_ONNX_INT8: *lo = -128, *hi = 127; break;
	case QC_ONNX_BOOL: *lo = 0, *hi = 1; break;
	case QC_ONNX_UINT16:
	case QC_ONNX_FLOAT16:
	case QC_ONNX_BFLOAT16: *lo = 0, *hi = 65535; break;
	case QC_ONNX_INT16: *lo = -32768, *hi = 32767; break;
	case QC_ONNX_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
	case QC_ONNX_UINT32: *lo = 0, *hi = UINT32_MAX; break;
	default: *lo = INT64_MIN, *hi = INT64_MAX; break;
	}
}

/* IEEE binary16 bits -> value (exact in double). */
static double half_value(uint16_t h)
{
	int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
	double v;
	if (e == 31)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp((double)m, -24);
	else
		v = ldexp((double)(m | 1024), e - 25);
	return s ? -v : v;
}

/* bfloat16 bits -> value: the upper half of a binary32. */
static double bf16_value(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return (double)f;
}

static double real_of_bits(int32_t dt, uint64_t bits)
{
	switch (dt) {
	case QC_ONNX_FLOAT: {
		uint32_t u = (uint32_t)bits;
		float f;
		memcpy(&f, &u, 4);
		return (double)f;
	}
	case QC_ONNX_DOUBLE: {
		double v;
		memcpy(&v, &bits, 8);
		return v;
	}
	case QC_ONNX_FLOAT16: return half_value((uint16_t)bits);
	default: return bf16_value((uint16_t)bits);
	}
}

static int64_t sext(uint64_t v, int bits)
{
	if (bits == 64)
		return (int64_t)v;
	uint64_t m = (uint64_t)1 << (bits - 1);
	v &= ((uint64_t)1 << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

static int is_signed(int32_t dt)
{
	return dt == QC_ONNX_INT4 || dt == QC_ONNX_INT8 || dt == QC_ONNX_INT16 ||
	       dt == QC_ONNX_INT32 || dt == QC_ONNX_INT64;
}

int qc_onnx_tensor_decode(qc_onnx_tensor *t, char *err, size_t err_size)
{
	int32_t dt = t->data_type;
	const char *tn = qc_onnx_dtype_name(dt);
	int bits = elem_bits(dt);
	if (!bits)
		return fail(err, err_size, "tensor '%s': data type %s has no numeric elements here",
		            t->name.s ? t->name.s : "", tn);
	if (t->external)
		return fail(err, err_size, "tensor '%s': external data is not supported",
		            t->name.s ? t->name.s : "");
	if (t->segment)
		return fail(err, err_size, "tensor '%s': segmented tensors are not supported",
		            t->name.s ? t->name.s : "");
	size_t count = 1;
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0)
			return fail(err, err_size,
			            "tensor '%s': dimension %zu is negative (%" PRId64 ")",
			            t->name.s ? t->name.s : "", i, t->dims[i]);
		if (t->dims[i] && count > (SIZE_MAX / 16) / (uint64_t)t->dims[i])
			return fail(err, err_size, "tensor '%s': too many elements",
			            t->name.s ? t->name.s : "");
		count *= (size_t)t->dims[i];
	}
	const char *name = t->name.s ? t->name.s : "";
	int real = is_real(dt);
	/* the typed field this data type uses, and how many values it has */
	size_t typed = 0;
	const char *field = "";
	switch (dt) {
	case QC_ONNX_FLOAT: typed = t->n_float, field = "float_data"; break;
	case QC_ONNX_DOUBLE: typed = t->n_double, field = "double_data"; break;
	case QC_ONNX_INT64: typed = t->n_int64, field = "int64_data"; break;
	case QC_ONNX_UINT32:
	case QC_ONNX_UINT64: typed = t->n_uint64, field = "uint64_data"; break;
	default: typed = t->n_int32, field = "int32_data"; break;
	}
	size_t others = t->n_float + t->n_double + t->n_int64 + t->n_uint64 + t->n_int32 +
	                t->n_string - typed;
	if (others)
		return fail(err, err_size, "tensor '%s': %s data in a field other than %s", name,
		            tn, field);
	if (t->has_raw && typed)
		return fail(err, err_size, "tensor '%s': both raw_data and %s are given", name,
		            field);
	/* packed 4-bit types hold two elements per byte (and per int32_data entry) */
	size_t want = bits == 4 ? count / 2 + count % 2 : count;
	if (t->has_raw) {
		size_t bytes = bits == 4 ? want : count * (size_t)(bits / 8);
		if (t->raw_len != bytes)
			return fail(err, err_size,
			            "tensor '%s': raw_data has %zu bytes, %zu %s elements need %zu",
			            name, t->raw_len, count, tn, bytes);
	} else if (typed != want) {
		return fail(err, err_size,
		            "tensor '%s': %s has %zu values, %zu %s elements need %zu", name, field,
		            typed, count, tn, want);
	}
	t->count = count;
	t->is_real = real;
	if (real)
		t->reals = arena_alloc(t->arena, count, sizeof *t->reals);
	else
		t->ints = arena_alloc(t->arena, count, sizeof *t->ints);
	if (real ? !t->reals : !t->ints)
		return fail(err, err_size, "tensor '%s': out of memory", name);
	int64_t lo, hi;
	int_range(dt, &lo, &hi);
	for (size_t i = 0; i < count; i++) {
		uint64_t bitsv; /* the element's bits (zero-extended) */
		if (t->has_raw) {
			if (bits == 4)
				bitsv = (t->raw[i / 2] >> (4 * (i % 2))) & 15;
			else
				bitsv = le(t->raw + i * (size_t)(bits / 8), bits / 8);
		} else {
			switch (dt) {
			case QC_ONNX_FLOAT: {
				uint32_t u;
				memcpy(&u, &t->float_data[i], 4);
				bitsv = u;
				break;
			}
			case QC_ONNX_DOUBLE: memcpy(&bitsv, &t->double_data[i], 8); break;
			case QC_ONNX_INT64: bitsv = (uint64_t)t->int64_data[i]; break;
			case QC_ONNX_UINT32:
			case QC_ONNX_UINT64: bitsv = t->uint64_data[i]; break;
			default: {
				int64_t v;
				if (bits == 4) {
					int32_t byte = t->int32_data[i / 2];
					if (byte < 0 || byte > 255)
						return fail(
						        err, err_size,
						        "tensor '%s': int32_data[%zu] = %" PRId32
						        " is not a packed %s byte",
						        name, i / 2, byte, tn);
					v = (byte >> (4 * (i % 2))) & 15;
					bitsv = (uint64_t)v;
					break;
				}
				v = t->int32_data[i];
				if (v < lo || v > hi)
					return fail(err, err_size,
					            "tensor '%s': int32_data[%zu] = %" PRId64
					            " is out of range for %s",
					            name, i, v, tn);
				bitsv = (uint64_t)v &
				        (bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1));
				break;
			}
			}
		}
		if (real) {
			t->reals[i] = real_of_bits(dt, bitsv);
			continue;
		}
		if (dt == QC_ONNX_UINT64 && bitsv > INT64_MAX)
			return fail(err, err_size, "tensor '%s': UINT64 value beyond int64 at %zu",
			            name, i);
		if (dt == QC_ONNX_UINT32 && bitsv > UINT32_MAX)
			return fail(err, err_size, "tensor '%s': UINT32 value out of range at %zu",
			            name, i);
		int64_t v = is_signed(dt) ? sext(bitsv, bits) : (int64_t)bitsv;
		if (dt == QC_ONNX_BOOL && (v < 0 || v > 1))
			return fail(err, err_size, "tensor '%s': BOOL element %zu is %" PRId64,
			            name, i, v);
		t->ints[i] = v;
	}
	return 0;
}
