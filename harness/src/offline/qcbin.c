#include "offline/qcbin.h"

#include "base/rfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/report.h"

uint32_t qc_crc32(uint32_t crc, const void *p, size_t n)
{
	static uint32_t table[256];
	static int ready;
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) { /* threads racing here write the same */
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	const unsigned char *b = p;
	crc = ~crc;
	for (size_t i = 0; i < n; i++)
		crc = table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

void qc_wb_bytes(qc_wbuf *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->n + n)
			cap *= 2;
		unsigned char *q = realloc(w->p, cap);
		if (!q) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
		w->p = q;
		w->cap = cap;
	}
	if (n)
		memcpy(w->p + w->n, p, n);
	w->n += n;
}

static void put_le(qc_wbuf *w, uint64_t v, int bytes)
{
	unsigned char b[8];
	for (int i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	qc_wb_bytes(w, b, (size_t)bytes);
}

void qc_wb_u16(qc_wbuf *w, uint16_t v)
{
	put_le(w, v, 2);
}

void qc_wb_u32(qc_wbuf *w, uint32_t v)
{
	put_le(w, v, 4);
}

void qc_wb_u64(qc_wbuf *w, uint64_t v)
{
	put_le(w, v, 8);
}

void qc_wb_f32(qc_wbuf *w, float v)
{
	uint32_t b;
	memcpy(&b, &v, 4);
	put_le(w, b, 4);
}

void qc_wb_f64(qc_wbuf *w, double v)
{
	uint64_t b;
	memcpy(&b, &v, 8);
	put_le(w, b, 8);
}

void qc_wb_str(qc_wbuf *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	qc_wb_u32(w, (uint32_t)n);
	qc_wb_bytes(w, s, n);
}

void qc_wb_header(qc_wbuf *w, const char *magic, uint32_t index)
{
	qc_wb_header_v(w, magic, index, QCF_FORMAT_VERSION);
}

void qc_wb_header_v(qc_wbuf *w, const char *magic, uint32_t index, unsigned format)
{
	char version[QCF_VERSION_BYTES] = {0};
	memcpy(version, QC_VERSION,
	       strlen(QC_VERSION) < sizeof version ? strlen(QC_VERSION) : sizeof version);
	qc_wb_bytes(w, magic, 4);
	qc_wb_u16(w, (uint16_t)format);
	qc_wb_u16(w, QCF_HEADER_BYTES);
	qc_wb_u32(w, 0); /* total_bytes: qc_wb_finish */
	qc_wb_u32(w, index);
	qc_wb_bytes(w, version, sizeof version);
}

void qc_wb_finish(qc_wbuf *w)
{
	uint32_t total = (uint32_t)(w->n + 4);
	for (int i = 0; i < 4; i++)
		w->p[8 + i] = (unsigned char)(total >> (8 * i));
	qc_wb_u32(w, qc_crc32(0, w->p, w->n));
}

void qc_wb_free(qc_wbuf *w)
{
	free(w->p);
	memset(w, 0, sizeof *w);
}

static uint64_t get_le(qc_rbuf *r, int bytes)
{
	if (r->bad || r->n - r->at < (size_t)bytes) {
		r->bad = 1;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[r->at + (size_t)i] << (8 * i);
	r->at += (size_t)bytes;
	return v;
}

uint8_t qc_rb_u8(qc_rbuf *r)
{
	return (uint8_t)get_le(r, 1);
}

uint32_t qc_rb_u32(qc_rbuf *r)
{
	return (uint32_t)get_le(r, 4);
}

uint64_t qc_rb_u64(qc_rbuf *r)
{
	return get_le(r, 8);
}

double qc_rb_f64(qc_rbuf *r)
{
	uint64_t b = get_le(r, 8);
	double d;
	memcpy(&d, &b, 8);
	return d;
}

const unsigned char *qc_rb_bytes(qc_rbuf *r, size_t n)
{
	if (r->bad || r->n - r->at < n) {
		r->bad = 1;
		return NULL;
	}
	const unsigned char *p = r->p + r->at;
	r->at += n;
	return p;
}

char *qc_rb_str(qc_rbuf *r)
{
	uint32_t n = qc_rb_u32(r);
	const unsigned char *p = qc_rb_bytes(r, n);
	char *s = qc_xcalloc((size_t)(p ? n : 0) + 1, 1);
	if (p)
		memcpy(s, p, n);
	return s;
}

uint32_t qc_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int qc_bin_open(const unsigned char *p, size_t n, const char *magic, int same_qconform,
                uint32_t *index, char version[QCF_VERSION_BYTES + 1], qc_rbuf *r, char *err,
                size_t err_size)
{
	if (n < 4 || memcmp(p, magic, 4) != 0) {
		snprintf(err, err_size, "not a %s file or record (it does not start with \"%s\")",
		         magic, magic);
		return -1;
	}
	if (n < QCF_HEADER_BYTES + 4) {
		snprintf(err, err_size, "truncated: %zu bytes, shorter than a header", n);
		return -1;
	}
	unsigned fv = (unsigned)p[4] | (unsigned)p[5] << 8,
	         hb = (unsigned)p[6] | (unsigned)p[7] << 8;
	uint32_t total = qc_le32(p + 8);
	if (fv < QCF_FORMAT_VERSION_OLDEST || fv > QCF_FORMAT_VERSION) {
		snprintf(err, err_size, "format version %u, this qconform reads %d to %d", fv,
		         QCF_FORMAT_VERSION_OLDEST, QCF_FORMAT_VERSION);
		return -1;
	}
	if (hb != QCF_HEADER_BYTES || total < QCF_HEADER_BYTES + 4) {
		snprintf(err, err_size, "a damaged header (header_bytes %u, total_bytes %lu)", hb,
		         (unsigned long)total);
		return -1;
	}
	if (total > n) {
		snprintf(err, err_size, "truncated: %zu of its %lu bytes", n, (unsigned long)total);
		return -1;
	}
	if (qc_crc32(0, p, total - 4) != qc_le32(p + total - 4)) {
		snprintf(err, err_size, "fails its CRC-32 (damaged)");
		return -1;
	}
	memcpy(version, p + 16, QCF_VERSION_BYTES);
	version[QCF_VERSION_BYTES] = 0;
	if (same_qconform && strcmp(version, QC_VERSION) != 0) {
		snprintf(err, err_size, "written by qconform %s, this is qconform %s: export again",
		         version, QC_VERSION);
		return -1;
	}
	*index = qc_le32(p + 12);
	r->p = p;
	r->n = total - 4;
	r->at = QCF_HEADER_BYTES;
	r->bad = 0;
	return 0;
}

static void encode_tensor(qc_wbuf *w, const qcf_tensor *t)
{
	qc_wb_str(w, t->name);
	qc_wb_u32(w, (uint32_t)t->dtype);
	qc_wb_u32(w, (uint32_t)t->rank);
	for (int d = 0; d < t->rank; d++)
		qc_wb_u64(w, (uint64_t)t->shape[d]);
	qc_wb_u64(w, (uint64_t)t->nbytes);
	const qcf_quant *q = t->quant;
	uint32_t flags = (q ? QCF_CASE_T_QUANT : 0) | (t->data ? QCF_CASE_T_DATA : 0);
	if (q)
		flags |= (q->scales ? QCF_CASE_T_SCALES : 0) |
		         (q->zero_points ? QCF_CASE_T_ZERO_POINTS : 0) |
		         (q->float_zero_points ? QCF_CASE_T_FLOAT_ZERO_POINTS : 0) |
		         (q->scale_dtype || q->zero_point_dtype ? QCF_CASE_T_TYPES : 0);
	qc_wb_u32(w, flags);
	if (q) {
		qc_wb_u32(w, (uint32_t)q->axis);
		qc_wb_u32(w, (uint32_t)q->count);
		qc_wb_u32(w, (uint32_t)q->block_size);
		if (flags & QCF_CASE_T_TYPES) {
			qc_wb_u32(w, (uint32_t)q->scale_dtype);
			qc_wb_u32(w, (uint32_t)q->zero_point_dtype);
		}
		int n = q->count > 0 ? q->count : 0;
		for (int i = 0; q->scales && i < n; i++)
			qc_wb_f32(w, q->scales[i]);
		for (int i = 0; q->zero_points && i < n; i++)
			qc_wb_u32(w, (uint32_t)q->zero_points[i]);
		for (int i = 0; q->float_zero_points && i < n; i++)
			qc_wb_f32(w, q->float_zero_points[i]);
	}
	if (t->data)
		qc_wb_bytes(w, t->data, t->nbytes);
}

unsigned qc_bin_format(const unsigned char *p, size_t n)
{
	return n >= 6 ? (unsigned)p[4] | (unsigned)p[5] << 8 : 0;
}

static void encode_attrs(qc_wbuf *w, const qcf_attr *attrs, int n_attrs)
{
	for (int i = 0; i < n_attrs; i++) {
		const qcf_attr *a = &attrs[i];
		qc_wb_str(w, a->name);
		qc_wb_u32(w, (uint32_t)a->type);
		qc_wb_u32(w, (uint32_t)a->count);
		switch (a->type) {
		case QCF_ATTR_INT: qc_wb_u64(w, (uint64_t)a->v.i); break;
		case QCF_ATTR_FLOAT: qc_wb_f64(w, a->v.f); break;
		case QCF_ATTR_STRING: qc_wb_str(w, a->v.s); break;
		case QCF_ATTR_INTS:
			for (int k = 0; k < a->count; k++)
				qc_wb_u64(w, (uint64_t)a->v.ints[k]);
			break;
		case QCF_ATTR_FLOATS:
			for (int k = 0; k < a->count; k++)
				qc_wb_f64(w, a->v.floats[k]);
			break;
		}
	}
}

/* Tensor name's index among the call's inputs, outputs, then the chain's intermediates. */
static uint32_t tensor_index(const qc_case *c, const char *name)
{
	uint32_t k = 0;
	for (int i = 0; i < c->call.n_inputs; i++, k++)
		if (!strcmp(c->call.inputs[i].name, name))
			return k;
	for (int i = 0; i < c->call.n_outputs; i++, k++)
		if (!strcmp(c->call.outputs[i].name, name))
			return k;
	for (int i = 0; i < c->n_mid; i++, k++)
		if (!strcmp(c->mid[i].name, name))
			return k;
	return UINT32_MAX; /* (cases.c binds every node's tensor by its name) */
}

int qc_case_fits(const qc_case *c, char *why, size_t why_size)
{
	const qcf_op_call *call = &c->call;
	int attrs = call->n_attrs;
	for (int k = 0; k < c->n_nodes; k++)
		attrs = c->nodes[k].n_attrs > attrs ? c->nodes[k].n_attrs : attrs;
	const struct {
		int n, max;
		const char *what;
	} lim[] = {{call->n_inputs, QCF_CASE_MAX_TENSORS, "inputs"},
	           {call->n_outputs, QCF_CASE_MAX_TENSORS, "outputs"},
	           {c->n_mid, QCF_CASE_MAX_TENSORS, "intermediates"},
	           {attrs, QCF_CASE_MAX_ATTRS, "attributes"},
	           {c->n_nodes, QCF_CASE_MAX_NODES, "nodes"}};
	for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
		if (lim[i].n > lim[i].max) {
			snprintf(why, why_size, "%d %s, a case file holds at most %d", lim[i].n,
			         lim[i].what, lim[i].max);
			return -1;
		}
	return 0;
}

void qc_case_encode(const qc_case *c, uint32_t index, unsigned format, qc_wbuf *w)
{
	const qcf_op_call *call = &c->call;
	w->n = 0;
	qc_wb_header_v(w, QCF_MAGIC_CASE, index, format);
	qc_wb_u64(w, c->seed);
	qc_wb_str(w, c->name);
	qc_wb_str(w, call->op);
	qc_wb_str(w, call->semantics);
	qc_wb_u32(w, (uint32_t)call->n_inputs);
	qc_wb_u32(w, (uint32_t)call->n_outputs);
	qc_wb_u32(w, (uint32_t)call->n_attrs);
	for (int i = 0; i < call->n_inputs; i++)
		encode_tensor(w, &call->inputs[i]);
	for (int i = 0; i < call->n_outputs; i++)
		encode_tensor(w, &call->outputs[i]);
	encode_attrs(w, call->attrs, call->n_attrs);
	if (format >= 4) {
		/* the chain: its intermediates (data: their poison), then its nodes */
		qc_wb_u32(w, (uint32_t)c->n_nodes);
		if (c->n_nodes) {
			qc_wb_u32(w, (uint32_t)c->n_mid);
			for (int i = 0; i < c->n_mid; i++)
				encode_tensor(w, &c->mid[i]);
		}
		for (int k = 0; k < c->n_nodes; k++) {
			const qcf_op_call *nd = &c->nodes[k];
			qc_wb_str(w, nd->op);
			qc_wb_str(w, nd->semantics);
			qc_wb_u32(w, (uint32_t)nd->n_inputs);
			qc_wb_u32(w, (uint32_t)nd->n_outputs);
			qc_wb_u32(w, (uint32_t)nd->n_attrs);
			for (int i = 0; i < nd->n_inputs; i++)
				qc_wb_u32(w, tensor_index(c, nd->inputs[i].name));
			for (int i = 0; i < nd->n_outputs; i++)
				qc_wb_u32(w, tensor_index(c, nd->outputs[i].name));
			encode_attrs(w, nd->attrs, nd->n_attrs);
		}
	}
	qc_wb_finish(w);
}

unsigned char *qc_read_whole(const char *path, uint64_t max_bytes, const char *what, size_t *n,
                             char *err, size_t err_size)
{
	return (unsigned char *)qc_read_regular(path, max_bytes, what, n, err, err_size);
}

int qc_b64_value(int ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}
