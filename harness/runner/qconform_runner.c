/*
 * qconform's offline runner: the cases of `qconform export` through a kernel library on a
 * device with no OS and no network, the outputs written for `qconform import` to judge.
 *
 * One C99 file. It needs harness/include/qconform/plugin.h (the plugin ABI) and
 * harness/runner/qconform_case.h (the file formats), and links statically with the vendor's
 * kernel library, which exports the ABI's one symbol, qconform_plugin_negotiate (the plugin
 * `qconform run --plugin` loads). No libyaml, no Lua, no malloc: each case is decoded into a
 * static arena (QCONFORM_RUNNER_ARENA bytes) as a qcf_op_call whose pointers point into it.
 *
 * Per case, as `qconform run`'s worker does: the outputs start as the case file's poison,
 * then supports, prepare (if the plugin has it), execute, release; the status, the call that
 * returned it and last_error() are recorded with the outputs as execute left them. Inputs
 * are followed by 64 readable bytes, outputs are 64-byte aligned with 64 pattern bytes on
 * each side; a write past or before an output, or into an input, is recorded as the run's
 * worker reports it.
 *
 * Hosted (the default): a program.
 *   cc -std=c99 -O2 -Iharness/include -Iharness/runner harness/runner/qconform_runner.c \
 *      libvendor.a -lm -o qconform_runner
 *   qconform_runner EXPORT_DIR [--out DIR | --stream FILE] [--plugin-option KEY=VALUE ...]
 *                   [--first N] [--count N] [--quiet]
 * reads EXPORT_DIR/manifest.qcm and EXPORT_DIR/cases/NNNNNN.qcc and writes its records to
 * EXPORT_DIR/outputs/ (or --out DIR: runner.qco, NNNNNN.qco per case, end.qco), or the
 * stream of them to FILE. Exit 0 when every case ran, 2 on a usage, file or plugin error.
 *
 * Freestanding (-DQCONFORM_RUNNER_FREESTANDING): no main, no stdio, no file system. The cases
 * are the tables of `qconform export --c-arrays` (cases.c, compiled in), the records go out as
 * the text stream of qconform_case.h through one function the firmware defines:
 *   void qconform_runner_putc(int byte);            e.g. a UART's transmit register
 * and the firmware calls
 *   long qconform_runner_run(const qcf_option *options, int n_options,
 *                            unsigned long first, unsigned long count);
 * which runs cases [first, first + count) (count 0: to the last) and returns how many ran,
 * or -1 when the plugin could not be created (the stream says why). With
 * -DQCONFORM_RUNNER_CLOCK the firmware also defines
 *   unsigned long long qconform_runner_clock_ns(void);  a monotonic clock in nanoseconds
 * and the records carry each case's prepare + execute time (else 0).
 *
 * QCONFORM_RUNNER_ARENA sets the arena's size in bytes (default 64 MiB hosted, 256 KiB
 * freestanding): a case that does not fit is recorded as not run, with what it needs.
 * QCONFORM_RUNNER_MAX_TENSORS (default QCF_CASE_MAX_TENSORS, 24) the tensors a case may have
 * a side: a case with more is recorded as not run, the count said.
 *
 * A chain case (plugin.h version 3) goes to a plugin of version 3 as one fused call; to an
 * older one, or when it answers QCF_NOT_SUPPORTED, its nodes go in turn, each on the graph's
 * inputs and the kernel's own outputs of the nodes before it, as `qconform run` offers them.
 * The record says which, and op by op carries the kernel's intermediates.
 */
#include <stddef.h>
#include <stdint.h>

#include "qconform/plugin.h"
#include "qconform_case.h"

#if defined(QCONFORM_RUNNER_STREAMED) && !defined(QCONFORM_RUNNER_FREESTANDING)
#define QCONFORM_RUNNER_FREESTANDING /* streamed is a freestanding mode */
#endif

#ifndef QCONFORM_RUNNER_FREESTANDING
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#endif

/* The qconform version this runner belongs to (its records say so). */
#define QCONFORM_RUNNER_VERSION "0.1.0"

#ifndef QCONFORM_RUNNER_ARENA
#ifdef QCONFORM_RUNNER_FREESTANDING
#define QCONFORM_RUNNER_ARENA (256ul * 1024ul)
#else
#define QCONFORM_RUNNER_ARENA (64ul * 1024ul * 1024ul)
#endif
#endif

/* The tensors a case may have on each side (inputs, outputs, a chain's intermediates): a
 * firmware short of RAM may take fewer than the format's QCF_CASE_MAX_TENSORS; a case with more
 * is recorded as not run, the case and the count named. */
#ifndef QCONFORM_RUNNER_MAX_TENSORS
#define QCONFORM_RUNNER_MAX_TENSORS QCF_CASE_MAX_TENSORS
#endif
#if QCONFORM_RUNNER_MAX_TENSORS < 1 || QCONFORM_RUNNER_MAX_TENSORS > QCF_CASE_MAX_TENSORS
#error "QCONFORM_RUNNER_MAX_TENSORS: 1 to QCF_CASE_MAX_TENSORS"
#endif
#define QCR_T QCONFORM_RUNNER_MAX_TENSORS

#define QCR_ALIGN 64 /* outputs' alignment; guard bytes around outputs and after inputs */

/* ---- bytes (no string.h: a freestanding toolchain need not have one) ---- */

static void qcr_copy(void *dst, const void *src, unsigned long n)
{
	unsigned char *d = (unsigned char *)dst;
	const unsigned char *s = (const unsigned char *)src;
	while (n--)
		*d++ = *s++;
}

static int qcr_same(const void *a, const void *b, unsigned long n)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	for (; n; n--)
		if (*x++ != *y++)
			return 0;
	return 1;
}

static unsigned long qcr_strlen(const char *s)
{
	unsigned long n = 0;
	while (s && s[n])
		n++;
	return n;
}

static unsigned char qcr_pattern(unsigned long i)
{
	return (unsigned char)(0x5a + 97 * (i & 0xff));
}

static int qcr_pattern_intact(const unsigned char *p, unsigned long n)
{
	unsigned long i;
	for (i = 0; i < n; i++)
		if (p[i] != qcr_pattern(i))
			return 0;
	return 1;
}

static void qcr_pattern_fill(unsigned char *p, unsigned long n)
{
	unsigned long i;
	for (i = 0; i < n; i++)
		p[i] = qcr_pattern(i);
}

/* CRC-32 (zlib's), a nibble at a time: 64 bytes of table. */
static uint32_t qcr_crc(uint32_t crc, const unsigned char *p, unsigned long n)
{
	static const uint32_t t[16] = {0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu,
	                               0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
	                               0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
	                               0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ t[crc & 15];
		crc = (crc >> 4) ^ t[crc & 15];
	}
	return ~crc;
}

static uint32_t qcr_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- the arena ---- */

static union {
	unsigned char b[QCONFORM_RUNNER_ARENA];
	uint64_t align_u64;
	double align_double;
} qcr_arena;
static unsigned long qcr_used;   /* bytes of the arena taken by the case being decoded */
static unsigned long qcr_needed; /* what the case asked for in all, when it did not fit */

static void *qcr_alloc(unsigned long n, unsigned long align)
{
	uintptr_t base = (uintptr_t)qcr_arena.b;
	unsigned long at =
	        (unsigned long)(((base + qcr_used + align - 1) & ~(uintptr_t)(align - 1)) - base);
	if (at > QCONFORM_RUNNER_ARENA || n > QCONFORM_RUNNER_ARENA - at) {
		qcr_needed = at + n > qcr_needed ? at + n : qcr_needed;
		return 0;
	}
	qcr_used = at + n;
	return qcr_arena.b + at;
}

/* ---- decoding a case file into a qcf_op_call ---- */

typedef struct qcr_reader {
	const unsigned char *p;
	unsigned long n, at;
	int bad;    /* read past the end, or a value out of range */
	int noroom; /* the arena is full */
} qcr_reader;

static uint64_t qcr_get(qcr_reader *r, int bytes)
{
	uint64_t v = 0;
	int i;
	if (r->bad || r->n - r->at < (unsigned long)bytes) {
		r->bad = 1;
		return 0;
	}
	for (i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[r->at + (unsigned long)i] << (8 * i);
	r->at += (unsigned long)bytes;
	return v;
}

static uint32_t qcr_u32(qcr_reader *r)
{
	return (uint32_t)qcr_get(r, 4);
}

static uint64_t qcr_u64(qcr_reader *r)
{
	return qcr_get(r, 8);
}

static void *qcr_take(qcr_reader *r, unsigned long n, unsigned long align)
{
	void *p;
	if (r->bad || r->noroom)
		return 0;
	if (!(p = qcr_alloc(n ? n : 1, align)))
		r->noroom = 1;
	return p;
}

static const char *qcr_str(qcr_reader *r)
{
	uint32_t n = qcr_u32(r);
	char *s;
	if (r->bad || r->n - r->at < n) {
		r->bad = 1;
		return "";
	}
	s = (char *)qcr_take(r, (unsigned long)n + 1, 1);
	if (!s)
		return "";
	qcr_copy(s, r->p + r->at, n);
	s[n] = 0;
	r->at += n;
	return s;
}

/* Where a tensor's data came from in the case file, and its buffer's guards. */
typedef struct qcr_data {
	unsigned long file_at; /* the data's offset in the case file */
	unsigned long nbytes;
	unsigned char *buf; /* the data in the arena */
	int present;
} qcr_data;

/* A case: tensors[] are its inputs, its outputs, then a chain's intermediates (the order of
 * a case file's tensor indexes); a chain's node k is a call whose tensors are copies of them,
 * node_idx[k] saying which (its inputs, then its outputs). */
typedef struct qcr_case {
	qcf_op_call call;
	qcf_tensor tensors[QCR_T * 3];
	qcf_quant quants[QCR_T * 3];
	qcf_attr attrs[QCF_CASE_MAX_ATTRS];
	qcr_data data[QCR_T * 3];
	const char *name;
	int n_mid;
	qcf_chain chain;
	qcf_op_call nodes[QCF_CASE_MAX_NODES];
	const uint32_t *node_idx[QCF_CASE_MAX_NODES];
} qcr_case;

static qcr_case qcr_c;

static void qcr_tensor(qcr_reader *r, qcf_tensor *t, qcf_quant *q, qcr_data *d, int output)
{
	uint32_t rank, flags, i;
	int64_t *shape;
	t->struct_size = (uint32_t)sizeof *t;
	t->name = qcr_str(r);
	t->dtype = (qcf_dtype)qcr_u32(r);
	rank = qcr_u32(r);
	if (rank > QCF_MAX_RANK) {
		r->bad = 1;
		return;
	}
	t->rank = (int32_t)rank;
	shape = (int64_t *)qcr_take(r, 8ul * rank, 8);
	for (i = 0; shape && i < rank; i++)
		shape[i] = (int64_t)qcr_u64(r);
	t->shape = shape;
	d->nbytes = (unsigned long)qcr_u64(r);
	t->nbytes = d->nbytes;
	flags = qcr_u32(r);
	t->quant = 0;
	if (flags & QCF_CASE_T_QUANT) {
		int32_t count;
		q->struct_size = (uint32_t)sizeof *q;
		q->axis = (int32_t)qcr_u32(r);
		q->count = count = (int32_t)qcr_u32(r);
		q->block_size = (int32_t)qcr_u32(r);
		q->scale_dtype = QCF_DTYPE_INVALID;
		q->zero_point_dtype = QCF_DTYPE_INVALID;
		if (flags & QCF_CASE_T_TYPES) {
			q->scale_dtype = (qcf_dtype)qcr_u32(r);
			q->zero_point_dtype = (qcf_dtype)qcr_u32(r);
		}
		q->scales = 0;
		q->zero_points = 0;
		q->float_zero_points = 0;
		if (count < 0 || (unsigned long)count > r->n) {
			r->bad = 1;
			return;
		}
		if (flags & QCF_CASE_T_SCALES) {
			float *v = (float *)qcr_take(r, 4ul * (unsigned long)count, 8);
			for (i = 0; v && i < (uint32_t)count; i++) {
				uint32_t b = qcr_u32(r);
				qcr_copy(&v[i], &b, 4);
			}
			q->scales = v;
		}
		if (flags & QCF_CASE_T_ZERO_POINTS) {
			int32_t *v = (int32_t *)qcr_take(r, 4ul * (unsigned long)count, 8);
			for (i = 0; v && i < (uint32_t)count; i++)
				v[i] = (int32_t)qcr_u32(r);
			q->zero_points = v;
		}
		if (flags & QCF_CASE_T_FLOAT_ZERO_POINTS) {
			float *v = (float *)qcr_take(r, 4ul * (unsigned long)count, 8);
			for (i = 0; v && i < (uint32_t)count; i++) {
				uint32_t b = qcr_u32(r);
				qcr_copy(&v[i], &b, 4);
			}
			q->float_zero_points = v;
		}
		t->quant = q;
	}
	t->data = 0;
	d->present = (flags & QCF_CASE_T_DATA) != 0;
	if (!d->present)
		return;
	if (r->bad || r->n - r->at < d->nbytes) {
		r->bad = 1;
		return;
	}
	d->file_at = r->at;
	if (output) {
		/* 64 pattern bytes, the output (64-byte aligned), 64 pattern bytes and more up
		 * to the next 64 */
		unsigned long tail = QCR_ALIGN + (QCR_ALIGN - d->nbytes % QCR_ALIGN) % QCR_ALIGN;
		unsigned char *b =
		        (unsigned char *)qcr_take(r, QCR_ALIGN + d->nbytes + tail, QCR_ALIGN);
		if (b) {
			qcr_pattern_fill(b, QCR_ALIGN);
			d->buf = b + QCR_ALIGN;
			qcr_copy(d->buf, r->p + r->at, d->nbytes);
			qcr_pattern_fill(d->buf + d->nbytes, tail);
		}
	} else {
		/* the data, then 64 readable pattern bytes */
		unsigned char *b = (unsigned char *)qcr_take(r, d->nbytes + QCR_ALIGN, QCR_ALIGN);
		if (b) {
			d->buf = b;
			qcr_copy(b, r->p + r->at, d->nbytes);
			qcr_pattern_fill(b + d->nbytes, QCR_ALIGN);
		}
	}
	t->data = d->buf;
	r->at += d->nbytes;
}

/* n attributes into a[] (their arrays in the arena). */
static void qcr_attrs(qcr_reader *r, qcf_attr *attrs, uint32_t n)
{
	uint32_t i;
	for (i = 0; i < n && !r->bad; i++) {
		qcf_attr *a = &attrs[i];
		int32_t k, count;
		a->name = qcr_str(r);
		a->type = (qcf_attr_type)qcr_u32(r);
		a->count = count = (int32_t)qcr_u32(r);
		if ((a->type == QCF_ATTR_INTS || a->type == QCF_ATTR_FLOATS) &&
		    (count < 0 || (unsigned long)count > r->n / 8)) {
			r->bad = 1;
			break;
		}
		switch (a->type) {
		case QCF_ATTR_INT: a->v.i = (int64_t)qcr_u64(r); break;
		case QCF_ATTR_FLOAT: {
			uint64_t b = qcr_u64(r);
			qcr_copy(&a->v.f, &b, 8);
			break;
		}
		case QCF_ATTR_STRING: a->v.s = qcr_str(r); break;
		case QCF_ATTR_INTS: {
			int64_t *v = (int64_t *)qcr_take(r, 8ul * (unsigned long)count, 8);
			for (k = 0; v && k < count; k++)
				v[k] = (int64_t)qcr_u64(r);
			a->v.ints = v;
			break;
		}
		case QCF_ATTR_FLOATS: {
			double *v = (double *)qcr_take(r, 8ul * (unsigned long)count, 8);
			for (k = 0; v && k < count; k++) {
				uint64_t b = qcr_u64(r);
				qcr_copy(&v[k], &b, 8);
			}
			a->v.floats = v;
			break;
		}
		default: r->bad = 1;
		}
	}
}

/* "the case has N inputs, this runner takes M (QCONFORM_RUNNER_MAX_TENSORS)" */
static const char *qcr_too_many(const char *what, uint32_t n)
{
	static char why[160];
	const char *parts[3];
	unsigned long k = 0, i;
	char num[2][12];
	unsigned long v[2];
	int j;
	v[0] = n;
	v[1] = QCR_T;
	for (j = 0; j < 2; j++) {
		char d[12];
		int nd = 0, m = 0;
		do
			d[nd++] = (char)('0' + v[j] % 10);
		while ((v[j] /= 10) && nd < 11);
		while (nd)
			num[j][m++] = d[--nd];
		num[j][m] = 0;
	}
	parts[0] = "the case has ";
	parts[1] = num[0];
	parts[2] = what;
	for (j = 0; j < 3; j++)
		for (i = 0; parts[j][i] && k < sizeof why - 1; i++)
			why[k++] = parts[j][i];
	parts[0] = ", this runner takes ";
	parts[1] = num[1];
	parts[2] = " (built with QCONFORM_RUNNER_MAX_TENSORS)";
	for (j = 0; j < 3; j++)
		for (i = 0; parts[j][i] && k < sizeof why - 1; i++)
			why[k++] = parts[j][i];
	why[k] = 0;
	return why;
}

/* A chain's intermediates and nodes (format version 4), after the call's attributes. */
static void qcr_chain(qcr_reader *r, qcr_case *c, uint32_t n_nodes, const char **why)
{
	uint32_t i, k, n_mid, base = (uint32_t)(c->call.n_inputs + c->call.n_outputs), total;
	n_mid = qcr_u32(r);
	if (r->bad || n_mid > QCF_CASE_MAX_TENSORS || n_nodes > QCF_CASE_MAX_NODES) {
		r->bad = 1;
		return;
	}
	if (n_mid > QCR_T) {
		*why = qcr_too_many(" intermediates", n_mid);
		r->bad = 1;
		return;
	}
	c->n_mid = (int)n_mid;
	for (i = 0; i < n_mid && !r->bad; i++)
		qcr_tensor(r, &c->tensors[base + i], &c->quants[base + i], &c->data[base + i], 1);
	total = base + n_mid;
	for (k = 0; k < n_nodes && !r->bad; k++) {
		qcf_op_call *nd = &c->nodes[k];
		uint32_t ni, no, na;
		qcf_tensor *t;
		uint32_t *idx;
		qcf_attr *attrs;
		nd->struct_size = (uint32_t)sizeof *nd;
		nd->op = qcr_str(r);
		nd->semantics = qcr_str(r);
		ni = qcr_u32(r);
		no = qcr_u32(r);
		na = qcr_u32(r);
		if (r->bad || ni > total || no > total || na > QCF_CASE_MAX_ATTRS) {
			r->bad = 1;
			return;
		}
		t = (qcf_tensor *)qcr_take(r, (unsigned long)sizeof *t * (ni + no), 8);
		idx = (uint32_t *)qcr_take(r, 4ul * (ni + no), 8);
		attrs = (qcf_attr *)qcr_take(r, (unsigned long)sizeof *attrs * na, 8);
		for (i = 0; i < ni + no; i++) {
			uint32_t v = qcr_u32(r);
			if (v >= total || (i >= ni && v < (uint32_t)c->call.n_inputs))
				r->bad = 1; /* a tensor of none, or a node writing a graph input */
			if (idx && t && !r->bad) {
				idx[i] = v;
				t[i] = c->tensors[v];
			}
		}
		if (attrs)
			qcr_attrs(r, attrs, na);
		nd->n_inputs = (int32_t)ni;
		nd->n_outputs = (int32_t)no;
		nd->n_attrs = (int32_t)na;
		nd->inputs = t;
		nd->outputs = t ? t + ni : 0;
		nd->attrs = attrs;
		nd->chain = 0;
		c->node_idx[k] = idx;
	}
	c->chain.struct_size = (uint32_t)sizeof c->chain;
	c->chain.n_nodes = (int32_t)n_nodes;
	c->chain.nodes = c->nodes;
	c->chain.n_intermediates = (int32_t)n_mid;
	c->chain.intermediates = c->tensors + base;
	c->call.chain = &c->chain;
}

/* Decodes case file p[0..n) into qcr_c. 0; 1 the arena is too small; -1 a damaged file or a
 * case this runner cannot take (*why). */
static int qcr_decode(const unsigned char *p, unsigned long n, const char **why)
{
	qcr_reader r;
	uint32_t n_in, n_out, n_attrs, n_nodes, i;
	qcr_case *c = &qcr_c;
	*why = "";
	c->call.chain = 0;
	c->n_mid = 0;
	if (n < QCF_HEADER_BYTES + 4 || !qcr_same(p, QCF_MAGIC_CASE, 4)) {
		*why = "not a case file";
		return -1;
	}
	if ((p[4] | p[5] << 8) != QCF_FORMAT_VERSION) {
		*why = "the case file's format version is not this runner's";
		return -1;
	}
	if (qcr_le32(p + 8) != n) {
		*why = "the case file's size is not the one it states (truncated?)";
		return -1;
	}
	if (qcr_crc(0, p, n - 4) != qcr_le32(p + n - 4)) {
		*why = "the case file fails its CRC-32 (damaged)";
		return -1;
	}
	r.p = p;
	r.n = n - 4;
	r.at = QCF_HEADER_BYTES;
	r.bad = r.noroom = 0;
	qcr_u64(&r); /* the case's seed */
	c->name = qcr_str(&r);
	c->call.struct_size = (uint32_t)sizeof c->call;
	c->call.op = qcr_str(&r);
	c->call.semantics = qcr_str(&r);
	n_in = qcr_u32(&r);
	n_out = qcr_u32(&r);
	n_attrs = qcr_u32(&r);
	if (r.bad || n_in > QCF_CASE_MAX_TENSORS || n_out > QCF_CASE_MAX_TENSORS ||
	    n_attrs > QCF_CASE_MAX_ATTRS) {
		*why = "the case file is malformed";
		return -1;
	}
	if (n_in > QCR_T || n_out > QCR_T) {
		*why = qcr_too_many(n_in > QCR_T ? " inputs" : " outputs",
		                    n_in > QCR_T ? n_in : n_out);
		return -1;
	}
	c->call.n_inputs = (int32_t)n_in;
	c->call.n_outputs = (int32_t)n_out;
	c->call.n_attrs = (int32_t)n_attrs;
	c->call.inputs = c->tensors;
	c->call.outputs = c->tensors + n_in;
	c->call.attrs = c->attrs;
	for (i = 0; i < n_in + n_out; i++)
		qcr_tensor(&r, &c->tensors[i], &c->quants[i], &c->data[i], i >= n_in);
	qcr_attrs(&r, c->attrs, n_attrs);
	n_nodes = qcr_u32(&r);
	if (n_nodes && !r.bad)
		qcr_chain(&r, c, n_nodes, why);
	if (r.noroom)
		return 1;
	if (r.bad || r.at != r.n) {
		if (!(*why)[0])
			*why = "the case file is malformed";
		return -1;
	}
	return 0;
}

/* ---- output: records, to files or to the text stream ---- */

#ifdef QCONFORM_RUNNER_FREESTANDING
void qconform_runner_putc(int byte);
#define QCR_PUTC(b) qconform_runner_putc(b)
#else
static FILE *qcr_file;   /* the record file, or the stream file */
static int qcr_stream;   /* records as text lines (else raw, one file each) */
static int qcr_write_ok; /* no write failed */
#define QCR_PUTC(b) (fputc((b), qcr_file) == EOF ? (void)(qcr_write_ok = 0) : (void)0)
#endif

static uint32_t qcr_out_crc;
static unsigned char qcr_piece[QCF_STREAM_PIECE];
static unsigned qcr_piece_n;

static void qcr_line(void)
{
	static const char b64[] =
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *pre = QCF_STREAM_PREFIX;
	unsigned i;
	if (!qcr_piece_n)
		return;
	while (*pre)
		QCR_PUTC(*pre++);
	for (i = 0; i < qcr_piece_n; i += 3) {
		unsigned long v = (unsigned long)qcr_piece[i] << 16;
		unsigned left = qcr_piece_n - i;
		if (left > 1)
			v |= (unsigned long)qcr_piece[i + 1] << 8;
		if (left > 2)
			v |= qcr_piece[i + 2];
		QCR_PUTC(b64[(v >> 18) & 63]);
		QCR_PUTC(b64[(v >> 12) & 63]);
		QCR_PUTC(left > 1 ? b64[(v >> 6) & 63] : '=');
		QCR_PUTC(left > 2 ? b64[v & 63] : '=');
	}
	QCR_PUTC('\n');
	qcr_piece_n = 0;
}

static void qcr_raw(const unsigned char *p, unsigned long n)
{
#ifndef QCONFORM_RUNNER_FREESTANDING
	if (!qcr_stream) {
		if (n && fwrite(p, 1, n, qcr_file) != n)
			qcr_write_ok = 0;
		return;
	}
#endif
	while (n--) {
		qcr_piece[qcr_piece_n++] = *p++;
		if (qcr_piece_n == QCF_STREAM_PIECE)
			qcr_line();
	}
}

static void qcr_out(const void *p, unsigned long n)
{
	qcr_out_crc = qcr_crc(qcr_out_crc, (const unsigned char *)p, n);
	qcr_raw((const unsigned char *)p, n);
}

static void qcr_out_le(uint64_t v, int bytes)
{
	unsigned char b[8];
	int i;
	for (i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	qcr_out(b, (unsigned long)bytes);
}

static void qcr_out_str(const char *s)
{
	unsigned long n = qcr_strlen(s);
	qcr_out_le(n, 4);
	qcr_out(s, n);
}

static void qcr_begin(const char *magic, uint32_t index, unsigned long total)
{
	unsigned char version[QCF_VERSION_BYTES];
	const char *v = QCONFORM_RUNNER_VERSION;
	unsigned i;
	for (i = 0; i < QCF_VERSION_BYTES; i++)
		version[i] = (unsigned char)(*v ? *v++ : 0);
	qcr_out_crc = 0;
	qcr_out(magic, 4);
	qcr_out_le(QCF_FORMAT_VERSION, 2);
	qcr_out_le(QCF_HEADER_BYTES, 2);
	qcr_out_le(total, 4);
	qcr_out_le(index, 4);
	qcr_out(version, QCF_VERSION_BYTES);
}

static void qcr_end(void)
{
	unsigned char b[4];
	uint32_t crc = qcr_out_crc;
	int i;
	for (i = 0; i < 4; i++)
		b[i] = (unsigned char)(crc >> (8 * i));
	qcr_raw(b, 4);
	qcr_line();
}

/* ---- the plugin ---- */

static const qcf_plugin *qcr_plugin;
static qcf_instance *qcr_inst;
static uint32_t qcr_abi;
static char qcr_create_msg[256];

/* ---- watched regions: memory the firmware asks to be checked around every case ---- */

#define QCR_MAX_WATCHED 8
static const unsigned char *qcr_watched[QCR_MAX_WATCHED];
static unsigned long qcr_watched_n[QCR_MAX_WATCHED];
static uint32_t qcr_watched_crc[QCR_MAX_WATCHED];
static int qcr_n_watched;

int qconform_runner_watch(const void *start, unsigned long bytes)
{
	if (qcr_n_watched == QCR_MAX_WATCHED)
		return -1;
	qcr_watched[qcr_n_watched] = (const unsigned char *)start;
	qcr_watched_n[qcr_n_watched++] = bytes;
	return 0;
}

/* Negotiates and creates: QCF_OK, or the status and qcr_create_msg saying why. */
static int32_t qcr_open(const qcf_option *options, int n_options)
{
	qcf_negotiation n;
	qcf_status st;
	const char *why = 0;
	n.struct_size = (uint32_t)sizeof n;
	n.host_min_version = QCF_ABI_VERSION_MIN;
	n.host_max_version = QCF_ABI_VERSION;
	n.abi_version = 0;
	n.plugin = 0;
	qcr_create_msg[0] = 0;
	st = qconform_plugin_negotiate(&n);
	if (st != QCF_OK)
		why = "qconform_plugin_negotiate found no common ABI version";
	else if (!n.plugin || n.abi_version < QCF_ABI_VERSION_MIN ||
	         n.abi_version > QCF_ABI_VERSION)
		why = "qconform_plugin_negotiate answered without a descriptor in the host's range";
	else if (n.plugin->struct_size < offsetof(qcf_plugin, last_error) + sizeof(void (*)(void)))
		why = "the plugin's descriptor is too short";
	else if (!n.plugin->create || !n.plugin->destroy || !n.plugin->supports ||
	         !n.plugin->execute || !n.plugin->last_error)
		why = "the plugin's descriptor lacks a required function";
	if (why) {
		unsigned long k = qcr_strlen(why);
		qcr_copy(qcr_create_msg, why, k + 1);
		return st != QCF_OK ? (int32_t)st : (int32_t)QCF_ERROR;
	}
	qcr_plugin = n.plugin;
	qcr_abi = n.abi_version;
	st = qcr_plugin->create(options, (int32_t)n_options, &qcr_inst, qcr_create_msg,
	                        sizeof qcr_create_msg);
	qcr_create_msg[sizeof qcr_create_msg - 1] = 0;
	return (int32_t)st;
}

static void qcr_header(uint32_t manifest_crc, uint32_t n_cases, int32_t create,
                       const qcf_option *options, int n_options, const char *mode,
                       unsigned long first, unsigned long count)
{
	const char *name = qcr_plugin && qcr_plugin->name ? qcr_plugin->name : "";
	const char *version = qcr_plugin && qcr_plugin->version ? qcr_plugin->version : "";
	unsigned long total = QCF_HEADER_BYTES + 4 * 3 + 4 + qcr_strlen(name) + 4 +
	                      qcr_strlen(version) + 4 + qcr_strlen(qcr_create_msg) + 4 +
	                      qcr_strlen(mode) + 4 + 4 + 4 + 4 + 8 + 4;
	int i;
	for (i = 0; i < n_options; i++)
		total += 8 + qcr_strlen(options[i].key) + qcr_strlen(options[i].value);
	qcr_begin(QCF_MAGIC_RUNNER, n_cases, total);
	qcr_out_le(manifest_crc, 4);
	qcr_out_le(qcr_abi, 4);
	qcr_out_le((uint32_t)create, 4);
	qcr_out_str(name);
	qcr_out_str(version);
	qcr_out_str(qcr_create_msg);
	qcr_out_str(mode);
	qcr_out_le((uint32_t)n_options, 4);
	for (i = 0; i < n_options; i++) {
		qcr_out_str(options[i].key);
		qcr_out_str(options[i].value);
	}
	qcr_out_le(first, 4);
	qcr_out_le(count, 4);
	qcr_out_le(QCONFORM_RUNNER_ARENA, 8);
	qcr_out_le((uint32_t)qcr_n_watched, 4);
	qcr_end();
}

static void qcr_trailer(uint32_t manifest_crc, unsigned long ran)
{
	qcr_begin(QCF_MAGIC_END, (uint32_t)ran, QCF_HEADER_BYTES + 4 + 4);
	qcr_out_le(manifest_crc, 4);
	qcr_end();
}

#ifdef QCONFORM_RUNNER_CLOCK
unsigned long long qconform_runner_clock_ns(void);
#define QCR_NOW() qconform_runner_clock_ns()
#elif !defined(QCONFORM_RUNNER_FREESTANDING)
#define QCR_NOW() ((unsigned long long)clock() * (1000000000ull / CLOCKS_PER_SEC))
#else
#define QCR_NOW() 0ull
#endif

/* The outcome of one case, as its record carries it. */
typedef struct qcr_result {
	uint32_t stage, check, check_index;
	int32_t status;
	unsigned long long ns;
	char message[QCF_MESSAGE_BYTES + 1];
	uint32_t engine; /* what engine() said of an execute that returned QCF_OK (0: nothing) */
	char engine_name[QCF_ENGINE_NAME_BYTES + 1];
} qcr_result;

/* Appends text, or the number when text is NULL, to the record's message. */
static void qcr_say(qcr_result *res, const char *text, unsigned long number)
{
	char digits[24];
	int nd = 0;
	unsigned long k = qcr_strlen(res->message);
	if (!text) {
		do
			digits[nd++] = (char)('0' + number % 10);
		while ((number /= 10) && nd < 23);
		while (nd && k < QCF_MESSAGE_BYTES)
			res->message[k++] = digits[--nd];
	}
	while (text && *text && k < QCF_MESSAGE_BYTES)
		res->message[k++] = *text++;
	res->message[k] = 0;
}

/* The case in flight, for qconform_runner_abort (a fault or watchdog handler). */
static volatile int qcr_inflight;
static volatile uint32_t qcr_inflight_index, qcr_inflight_crc;
static volatile unsigned long long qcr_inflight_t0;

static void qcr_start(uint32_t index, uint32_t crc)
{
	qcr_begin(QCF_MAGIC_START, index, QCF_HEADER_BYTES + 4 + 4);
	qcr_out_le(crc, 4);
	qcr_end();
#ifndef QCONFORM_RUNNER_FREESTANDING
	fflush(qcr_file); /* on the disk before the kernel runs: a crash leaves it */
#endif
	qcr_inflight_index = index;
	qcr_inflight_crc = crc;
	qcr_inflight_t0 = QCR_NOW();
	qcr_inflight = 1;
}

static void qcr_abort_record(uint32_t index, uint32_t crc, unsigned kind, unsigned source,
                             unsigned long long ns, const char *message)
{
	unsigned long n = qcr_strlen(message);
	if (n > QCF_MESSAGE_BYTES)
		n = QCF_MESSAGE_BYTES;
	qcr_begin(QCF_MAGIC_ABORT, index, QCF_HEADER_BYTES + 4 * 3 + 8 + 4 + n + 4);
	qcr_out_le(crc, 4);
	qcr_out_le(kind, 4);
	qcr_out_le(source, 4);
	qcr_out_le(ns, 8);
	qcr_out_le(n, 4);
	qcr_out(message, n);
	qcr_end();
}

long qconform_runner_case(void)
{
	return qcr_inflight ? (long)qcr_inflight_index : -1;
}

int qconform_runner_abort(unsigned kind, const char *message)
{
	if (!qcr_inflight || (kind != QCF_ABORT_CRASH && kind != QCF_ABORT_TIMEOUT))
		return -1;
	qcr_inflight = 0;
	qcr_abort_record(qcr_inflight_index, qcr_inflight_crc, kind, 0, QCR_NOW() - qcr_inflight_t0,
	                 message ? message : "");
#ifndef QCONFORM_RUNNER_FREESTANDING
	fflush(qcr_file);
#endif
	return 0;
}

/* CRC-32 of p[0..n) but the data of the outputs and intermediates (the bytes the kernel may
 * write). */
static uint32_t qcr_crc_but_outputs(const unsigned char *p, unsigned long n)
{
	const qcr_case *c = &qcr_c;
	const unsigned char *at = p, *end = p + n;
	uint32_t crc = 0;
	int n_w = c->call.n_outputs + c->n_mid;
	for (;;) {
		/* the first writable buffer at or after `at` */
		const unsigned char *next = end, *next_end = end;
		int k;
		for (k = 0; k < n_w; k++) {
			const qcr_data *d = &c->data[c->call.n_inputs + k];
			if (d->present && d->buf && d->nbytes && d->buf >= at && d->buf < next) {
				next = d->buf;
				next_end = d->buf + d->nbytes;
			}
		}
		crc = qcr_crc(crc, at, (unsigned long)(next - at));
		if (next == end)
			return crc;
		at = next_end;
	}
}

#define QCR_FREE_WINDOW 4096ul /* free arena bytes after a case, checked */

/* One call through the plugin (the case's, or a chain's node op by op) with the memory rules
 * the worker checks. idx: the call's tensors as indexes of qcr_c.data (inputs, then outputs,
 * then with n_scratch the intermediates a fused call may write). The file's bytes p[0..n) are
 * outside the arena or before file_end. res gets the stage, status, check, message and engine;
 * res->ns grows by the call's time. */
static void qcr_call(const qcf_op_call *call, const uint32_t *idx, int n_scratch,
                     const unsigned char *p, unsigned long n, unsigned long file_end,
                     qcr_result *res)
{
	qcr_case *c = &qcr_c;
	qcf_prepared *prep = 0;
	int prepared = 0, k, n_w = call->n_outputs + n_scratch;
	unsigned long long t0;
	unsigned long window = QCONFORM_RUNNER_ARENA - qcr_used;
	uint32_t case_crc = qcr_le32(p + n - 4), in_crc[QCR_T * 3];
	/* what the kernel may not change: the call (qcr_c's structs and the arena bytes it
	 * points to), the free arena bytes after it, the case file, watched regions */
	uint32_t call_crc = qcr_crc(0, (const unsigned char *)c, sizeof *c);
	uint32_t arena_crc = qcr_crc_but_outputs(qcr_arena.b + file_end, qcr_used - file_end);
	/* a call of ABI 2 types (3: a chain) is not offered to an older plugin (plugin.h) */
	uint32_t needs = qcf_call_abi_version(call);
	int offered = needs <= qcr_abi;
	qcf_status st;
	res->stage = QCF_STAGE_SUPPORTS;
	res->check = QCF_CHECK_NONE;
	res->check_index = 0;
	res->message[0] = 0;
	res->engine = 0;
	res->engine_name[0] = 0;
	if (window > QCR_FREE_WINDOW)
		window = QCR_FREE_WINDOW;
	qcr_pattern_fill(qcr_arena.b + qcr_used, window);
	for (k = 0; k < qcr_n_watched; k++)
		qcr_watched_crc[k] = qcr_crc(0, qcr_watched[k], qcr_watched_n[k]);
	for (k = 0; k < call->n_inputs; k++) /* an input a node before wrote: as it is now */
		in_crc[k] = c->data[idx[k]].buf
		                    ? qcr_crc(0, c->data[idx[k]].buf, c->data[idx[k]].nbytes)
		                    : 0;
	st = offered ? qcr_plugin->supports(qcr_inst, call) : QCF_NOT_SUPPORTED;
	if (!offered) {
		qcr_say(res, "not offered: the case needs plugin ABI version ", 0);
		qcr_say(res, 0, needs);
		qcr_say(res, ", the plugin speaks ", 0);
		qcr_say(res, 0, qcr_abi);
	}
	if (st == QCF_OK) {
		t0 = QCR_NOW();
		if (qcr_plugin->prepare) {
			res->stage = QCF_STAGE_PREPARE;
			st = qcr_plugin->prepare(qcr_inst, call, &prep);
			prepared = st == QCF_OK;
		}
		if (st == QCF_OK) {
			res->stage = QCF_STAGE_EXECUTE;
			st = qcr_plugin->execute(qcr_inst, prep, call);
		}
		res->ns += QCR_NOW() - t0;
	}
	res->status = (int32_t)st;
	if (st != QCF_OK && offered) {
		const char *m = qcr_plugin->last_error(qcr_inst);
		unsigned long l = 0;
		while (m && m[l] && l < QCF_MESSAGE_BYTES) {
			res->message[l] = m[l];
			l++;
		}
		res->message[l] = 0;
	}
	if (st == QCF_OK &&
	    qcr_plugin->struct_size >= offsetof(qcf_plugin, engine) + sizeof(qcr_plugin->engine) &&
	    qcr_plugin->engine) {
		/* which engine ran it, before release (plugin.h) */
		qcf_engine e;
		unsigned char *z = (unsigned char *)&e;
		unsigned long l = 0;
		for (l = 0; l < sizeof e; l++) /* no libc here */
			z[l] = 0;
		l = 0;
		e.struct_size = sizeof e;
		if (qcr_plugin->engine(qcr_inst, prep, &e) == QCF_OK) {
			res->engine = (uint32_t)e.kind;
			while (l < QCF_ENGINE_NAME_BYTES && l < sizeof e.name && e.name[l]) {
				res->engine_name[l] = e.name[l];
				l++;
			}
			res->engine_name[l] = 0;
		}
	}
	if (prepared && qcr_plugin->release)
		qcr_plugin->release(qcr_inst, prep);
	/* the memory rules, in the worker's order: each output's (and a fused call's
	 * intermediates') guards, the inputs with the bytes after them, the call; then what a
	 * device without an MPU cannot refuse: the free arena, the case file, watched regions */
	for (k = 0; k < n_w && res->check == QCF_CHECK_NONE; k++) {
		const qcr_data *d = &c->data[idx[call->n_inputs + k]];
		unsigned long tail;
		if (!d->present || !d->buf)
			continue;
		tail = QCR_ALIGN + (QCR_ALIGN - d->nbytes % QCR_ALIGN) % QCR_ALIGN;
		if (!qcr_pattern_intact(d->buf + d->nbytes, tail))
			res->check = QCF_CHECK_OUTPUT_PAST;
		else if (!qcr_pattern_intact(d->buf - QCR_ALIGN, QCR_ALIGN))
			res->check = QCF_CHECK_OUTPUT_BEFORE;
		res->check_index = (uint32_t)k;
	}
	for (k = 0; k < call->n_inputs && res->check == QCF_CHECK_NONE; k++) {
		const qcr_data *d = &c->data[idx[k]];
		int graph_input = idx[k] < (uint32_t)c->call.n_inputs;
		if (!d->present || !d->buf)
			continue;
		if ((graph_input ? !qcr_same(d->buf, p + d->file_at, d->nbytes)
		                 : qcr_crc(0, d->buf, d->nbytes) != in_crc[k]) ||
		    (graph_input && !qcr_pattern_intact(d->buf + d->nbytes, QCR_ALIGN))) {
			res->check = QCF_CHECK_INPUT;
			res->check_index = (uint32_t)k;
		}
	}
	if (res->check == QCF_CHECK_NONE &&
	    (call_crc != qcr_crc(0, (const unsigned char *)c, sizeof *c) ||
	     arena_crc != qcr_crc_but_outputs(qcr_arena.b + file_end, qcr_used - file_end))) {
		res->check = QCF_CHECK_CALL;
		res->check_index = 0;
	}
	if (res->check == QCF_CHECK_NONE && !qcr_pattern_intact(qcr_arena.b + qcr_used, window))
		res->check = QCF_CHECK_OUTSIDE, res->check_index = 0;
	if (res->check == QCF_CHECK_NONE && qcr_crc(0, p, n - 4) != case_crc)
		res->check = QCF_CHECK_OUTSIDE, res->check_index = 1;
	for (k = 0; k < qcr_n_watched && res->check == QCF_CHECK_NONE; k++)
		if (qcr_crc(0, qcr_watched[k], qcr_watched_n[k]) != qcr_watched_crc[k])
			res->check = QCF_CHECK_OUTSIDE, res->check_index = 2u + (uint32_t)k;
}

/* Runs case file p[0..n) (index i of the export) and writes its start and its record. The
 * file's bytes are outside the arena, or at its start (qcr_used is then past them). A chain
 * goes to a plugin of ABI version 3 as one call; when it does not fuse it (QCF_NOT_SUPPORTED),
 * or speaks an older version, its nodes go in turn, each on the graph's inputs and the
 * kernel's own outputs of the nodes before it, as `qconform run` offers them. */
static void qcr_run_case(uint32_t index, const unsigned char *p, unsigned long n, qcr_result *res)
{
	const char *why;
	int rc, k;
	qcr_case *c = &qcr_c;
	unsigned long total, file_end = qcr_used;
	uint32_t case_crc = n >= 4 ? qcr_le32(p + n - 4) : 0;
	uint32_t chain_mode = QCF_CHAIN_NONE, chain_node = 0, nodes_ok = 0, i;
	unsigned char written[QCR_T]; /* op by op: the intermediates a node wrote */
	res->stage = QCF_STAGE_SUPPORTS;
	res->status = QCF_OK;
	res->check = QCF_CHECK_NONE;
	res->check_index = 0;
	res->ns = 0;
	res->message[0] = 0;
	res->engine = 0;
	res->engine_name[0] = 0;
	qcr_needed = 0;
	qcr_start(index, case_crc);
	rc = qcr_decode(p, n, &why);
	for (i = 0; i < QCR_T; i++)
		written[i] = 0;
	if (rc != 0) {
		res->status = QCF_ERROR;
		res->check = QCF_CHECK_NOT_RUN;
		if (rc > 0) {
			qcr_say(res, "the case needs at least ", 0);
			qcr_say(res, 0, qcr_needed);
			qcr_say(res, " bytes of arena, QCONFORM_RUNNER_ARENA is ", 0);
			qcr_say(res, 0, QCONFORM_RUNNER_ARENA);
		} else {
			qcr_say(res, why, 0);
		}
		c->call.n_outputs = 0;
		c->n_mid = 0;
		c->call.chain = 0;
	} else {
		uint32_t all[QCR_T * 3];
		int n_all = c->call.n_inputs + c->call.n_outputs + c->n_mid;
		for (k = 0; k < n_all; k++)
			all[k] = (uint32_t)k;
		if (c->call.chain)
			chain_mode = qcr_abi >= 3 ? QCF_CHAIN_FUSED : QCF_CHAIN_OPBYOP;
		if (chain_mode != QCF_CHAIN_OPBYOP)
			qcr_call(&c->call, all, c->n_mid, p, n, file_end, res);
		if (chain_mode == QCF_CHAIN_FUSED && res->status == QCF_NOT_SUPPORTED &&
		    res->check == QCF_CHECK_NONE) {
			/* the plugin does not fuse this chain: its nodes in turn, from the poison
			 */
			chain_mode = QCF_CHAIN_OPBYOP;
			for (k = c->call.n_inputs; k < n_all; k++)
				if (c->data[k].present && c->data[k].buf)
					qcr_copy(c->data[k].buf, p + c->data[k].file_at,
					         c->data[k].nbytes);
		}
		for (i = 0; chain_mode == QCF_CHAIN_OPBYOP && i < (uint32_t)c->chain.n_nodes; i++) {
			const qcf_op_call *nd = &c->nodes[i];
			qcr_call(nd, c->node_idx[i], 0, p, n, file_end, res);
			if (res->status != QCF_OK || res->check != QCF_CHECK_NONE) {
				chain_node = i + 1;
				break;
			}
			nodes_ok = i + 1;
			for (k = 0; k < nd->n_outputs; k++) {
				uint32_t t = c->node_idx[i][nd->n_inputs + k];
				uint32_t first_mid =
				        (uint32_t)(c->call.n_inputs + c->call.n_outputs);
				if (t >= first_mid)
					written[t - first_mid] = 1;
			}
		}
		if (qcf_call_abi_version(&c->call) > qcr_abi && chain_mode == QCF_CHAIN_NONE)
			c->call.n_outputs = 0;
	}
	/* the record: the outputs as execute left them, when it returned QCF_OK */
	total = QCF_HEADER_BYTES + 4 * 5 + 8 + 4 + qcr_strlen(res->message) + 4 + 4 + 4 + 4 +
	        qcr_strlen(res->engine_name) + 4 * 4;
	for (k = 0; k < c->call.n_outputs; k++)
		total += 8 + (res->status == QCF_OK ? c->data[c->call.n_inputs + k].nbytes : 0);
	for (k = 0; k < c->n_mid; k++)
		total += 8 + (written[k] ? c->data[c->call.n_inputs + c->call.n_outputs + k].nbytes
		                         : 0);
	qcr_inflight = 0;
	qcr_begin(QCF_MAGIC_RESULT, index, total);
	qcr_out_le(case_crc, 4);
	qcr_out_le(res->stage, 4);
	qcr_out_le((uint32_t)res->status, 4);
	qcr_out_le(res->check, 4);
	qcr_out_le(res->check_index, 4);
	qcr_out_le(res->ns, 8);
	qcr_out_str(res->message);
	qcr_out_le((uint32_t)c->call.n_outputs, 4);
	for (k = 0; k < c->call.n_outputs; k++) {
		const qcr_data *d = &c->data[c->call.n_inputs + k];
		unsigned long nb = res->status == QCF_OK && d->buf ? d->nbytes : 0;
		qcr_out_le(nb, 8);
		qcr_out(d->buf, nb);
	}
	qcr_out_le(res->engine, 4);
	qcr_out_str(res->engine_name);
	qcr_out_le(chain_mode, 4);
	qcr_out_le(chain_node, 4);
	qcr_out_le(nodes_ok, 4);
	qcr_out_le((uint32_t)c->n_mid, 4);
	for (k = 0; k < c->n_mid; k++) {
		const qcr_data *d = &c->data[c->call.n_inputs + c->call.n_outputs + k];
		unsigned long nb = written[k] && d->buf ? d->nbytes : 0;
		qcr_out_le(nb, 8);
		qcr_out(d->buf, nb);
	}
	qcr_end();
}

#ifdef QCONFORM_RUNNER_STREAMED
/* ---- streamed: the cases come over the line, one when asked for ---- */

int qconform_runner_getc(void);

static void qcr_request(uint32_t index)
{
	qcr_begin(QCF_MAGIC_REQUEST, index, QCF_HEADER_BYTES + 8 + 4);
	qcr_out_le(QCONFORM_RUNNER_ARENA, 8);
	qcr_end();
}

/* Receives one file of kind magic into the arena's start: its size; 0 when what came was
 * not such a file whole (damaged, or of another index; the bytes are skipped up to the next
 * magic), -1 when the line closed, -2 when the file does not fit half the arena. */
static long qcr_receive(const char *magic, uint32_t index)
{
	unsigned char *b = qcr_arena.b;
	unsigned long total, i;
	int got = 0, ch;
	/* the magic, wherever it starts */
	while (got < 4) {
		if ((ch = qconform_runner_getc()) < 0)
			return -1;
		b[got] = (unsigned char)ch;
		if (b[got] == (unsigned char)magic[got])
			got++;
		else
			got = b[got] == (unsigned char)magic[0];
		if (got == 1)
			b[0] = (unsigned char)magic[0];
	}
	for (i = 4; i < QCF_HEADER_BYTES; i++) {
		if ((ch = qconform_runner_getc()) < 0)
			return -1;
		b[i] = (unsigned char)ch;
	}
	total = qcr_le32(b + 8);
	if ((b[4] | b[5] << 8) != QCF_FORMAT_VERSION || (b[6] | b[7] << 8) != QCF_HEADER_BYTES ||
	    total < QCF_HEADER_BYTES + 4 || (index != QCF_REQ_SESSION && qcr_le32(b + 12) != index))
		return 0;
	if (total > QCONFORM_RUNNER_ARENA / 2) {
		for (i = QCF_HEADER_BYTES; i < total; i++) /* skipped: it stays in sync */
			if (qconform_runner_getc() < 0)
				return -1;
		return -2;
	}
	for (i = QCF_HEADER_BYTES; i < total; i++) {
		if ((ch = qconform_runner_getc()) < 0)
			return -1;
		b[i] = (unsigned char)ch;
	}
	return qcr_crc(0, b, total - 4) == qcr_le32(b + total - 4) ? (long)total : 0;
}

/* Asks for file `index` until it comes whole (3 tries): as qcr_receive. */
static long qcr_fetch(const char *magic, uint32_t index)
{
	long n = 0;
	int tries;
	for (tries = 0; tries < 3 && n == 0; tries++) {
		qcr_request(index);
		n = qcr_receive(magic, index);
	}
	return n;
}

/* A case record saying why the case did not run (it never reached the arena whole). */
static void qcr_not_received(uint32_t index, long why)
{
	qcr_result res;
	qcr_c.call.n_outputs = 0;
	res.message[0] = 0;
	qcr_say(&res,
	        why == -2 ? "the case file is larger than half of QCONFORM_RUNNER_ARENA ("
	                  : "the case file came damaged three times (arena ",
	        0);
	qcr_say(&res, 0, QCONFORM_RUNNER_ARENA);
	qcr_say(&res, " bytes)", 0);
	qcr_start(index, 0);
	qcr_inflight = 0;
	qcr_begin(QCF_MAGIC_RESULT, index,
	          QCF_HEADER_BYTES + 4 * 5 + 8 + 4 + qcr_strlen(res.message) + 4 + 4 + 4 + 4 +
	                  4 * 4);
	qcr_out_le(0, 4);
	qcr_out_le(QCF_STAGE_SUPPORTS, 4);
	qcr_out_le((uint32_t)QCF_ERROR, 4);
	qcr_out_le(QCF_CHECK_NOT_RUN, 4);
	qcr_out_le(0, 4);
	qcr_out_le(0, 8);
	qcr_out_str(res.message);
	qcr_out_le(0, 4);
	qcr_out_le(0, 4); /* no engine */
	qcr_out_str("");
	qcr_out_le(QCF_CHAIN_NONE, 4); /* not run: no node ran */
	qcr_out_le(0, 4);
	qcr_out_le(0, 4);
	qcr_out_le(0, 4);
	qcr_end();
}

long qconform_runner_serve(const qcf_option *options, int n_options)
{
	unsigned long first, count, n_cases, i, ran = 0;
	uint32_t crc;
	int32_t create;
	long n = qcr_fetch(QCF_MAGIC_SESSION, QCF_REQ_SESSION);
	qcr_result res;
	if (n <= 0)
		return -1;
	n_cases = qcr_le32(qcr_arena.b + 12);
	crc = qcr_le32(qcr_arena.b + QCF_HEADER_BYTES);
	first = qcr_le32(qcr_arena.b + QCF_HEADER_BYTES + 4);
	count = qcr_le32(qcr_arena.b + QCF_HEADER_BYTES + 8);
	if (first > n_cases)
		first = n_cases;
	if (count > n_cases - first)
		count = n_cases - first;
	create = qcr_open(options, n_options);
	qcr_header(crc, (uint32_t)n_cases, create, options, n_options, "streamed", first, count);
	if (create != QCF_OK)
		return -1;
	for (i = first; i < first + count; i++, ran++) {
		n = qcr_fetch(QCF_MAGIC_CASE, (uint32_t)i);
		if (n == -1)
			return -1; /* the line is gone: no end record, the host starts again */
		if (n <= 0) {
			qcr_not_received((uint32_t)i, n);
			continue;
		}
		qcr_used = (unsigned long)n;
		qcr_run_case((uint32_t)i, qcr_arena.b, (unsigned long)n, &res);
	}
	qcr_trailer(crc, ran);
	qcr_plugin->destroy(qcr_inst);
	return (long)ran;
}

#elif defined(QCONFORM_RUNNER_FREESTANDING)
/* ---- freestanding: the --c-arrays tables ---- */

extern const unsigned char *const qconform_manifest;
extern const unsigned long qconform_manifest_size;
extern const qcf_case_blob qconform_cases[];
extern const unsigned long qconform_n_cases;

long qconform_runner_run(const qcf_option *options, int n_options, unsigned long first,
                         unsigned long count)
{
	const unsigned char *m = qconform_manifest;
	unsigned long mn = qconform_manifest_size, i, ran = 0;
	uint32_t crc = mn >= 4 ? qcr_le32(m + mn - 4) : 0;
	int32_t create = qcr_open(options, n_options);
	qcr_result res;
	if (first > qconform_n_cases)
		first = qconform_n_cases;
	if (!count || count > qconform_n_cases - first)
		count = qconform_n_cases - first;
	qcr_header(crc, (uint32_t)qconform_n_cases, create, options, n_options, "freestanding",
	           first, count);
	if (create != QCF_OK)
		return -1;
	for (i = first; i < first + count; i++, ran++) {
		qcr_used = 0;
		qcr_run_case((uint32_t)i, qconform_cases[i].bytes, qconform_cases[i].size, &res);
	}
	qcr_trailer(crc, ran);
	qcr_plugin->destroy(qcr_inst);
	return (long)ran;
}

#else /* hosted */

/* A whole file into the arena (from its start): its size, or -1 (*why says why). */
static long qcr_load(const char *path, const char **why)
{
	FILE *f = fopen(path, "rb");
	long n;
	if (!f) {
		*why = "cannot open it";
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		*why = "cannot read it";
		return -1;
	}
	if ((unsigned long)n > QCONFORM_RUNNER_ARENA / 2) {
		fclose(f);
		*why = "larger than half the arena (build with a larger QCONFORM_RUNNER_ARENA)";
		return -1;
	}
	if (fread(qcr_arena.b, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		*why = "cannot read it";
		return -1;
	}
	fclose(f);
	return n;
}

static int qcr_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "qconform_runner: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
	return 2;
}

static char qcr_path[4096];

static int qcr_open_record(const char *dir, const char *name, const char *mode)
{
	if (qcr_stream)
		return 0;
	sprintf(qcr_path, "%.4000s/%s", dir, name);
	if (!(qcr_file = fopen(qcr_path, mode))) {
		fprintf(stderr, "qconform_runner: cannot write %s\n", qcr_path);
		return -1;
	}
	return 0;
}

static int qcr_close_record(void)
{
	if (qcr_stream)
		return fflush(qcr_file) == 0 && qcr_write_ok ? 0 : -1;
	if (fclose(qcr_file) != 0 || !qcr_write_ok) {
		fprintf(stderr, "qconform_runner: cannot write %s\n", qcr_path);
		return -1;
	}
	return 0;
}

/* --resume: the first case to run, after the records already in dir: the first case with no
 * record file. A case whose file holds only its start (the runner stopped in it: import judges
 * it CRASH) is passed over; a record cut short is cut back to its start. (unsigned long)-1 on
 * an error. */
static unsigned long qcr_resume_at(const char *dir, unsigned long n_cases, int quiet)
{
	unsigned long i;
	for (i = 0; i < n_cases; i++) {
		static unsigned char b[QCF_HEADER_BYTES + 8];
		const unsigned long start = QCF_HEADER_BYTES + 4 + 4;
		FILE *f;
		long size;
		sprintf(qcr_path, "%.4000s/%06lu.qco", dir, i);
		if (!(f = fopen(qcr_path, "rb")))
			break;
		if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET) != 0) {
			fclose(f);
			fprintf(stderr, "qconform_runner: %s: cannot read it\n", qcr_path);
			return (unsigned long)-1;
		}
		if ((unsigned long)size >= start + QCF_HEADER_BYTES &&
		    fseek(f, (long)start, SEEK_SET) == 0 && fread(b, 1, 12, f) == 12 &&
		    qcr_le32(b + 8) == (unsigned long)size - start) {
			fclose(f);
			continue; /* a start and a whole record */
		}
		if ((unsigned long)size < start || fseek(f, 0, SEEK_SET) != 0 ||
		    fread(b, 1, start, f) != start || !qcr_same(b, QCF_MAGIC_START, 4)) {
			fclose(f);
			break; /* not even a start: the case runs again */
		}
		fclose(f);
		if ((unsigned long)size != start) { /* the record cut short: the start only */
			if (!(f = fopen(qcr_path, "wb")) || fwrite(b, 1, start, f) != start ||
			    fclose(f) != 0) {
				fprintf(stderr, "qconform_runner: cannot write %s\n", qcr_path);
				return (unsigned long)-1;
			}
		}
		if (!quiet)
			printf("qconform_runner: case %lu started and did not finish (import "
			       "judges it CRASH)\n",
			       i);
	}
	if (!quiet)
		printf("qconform_runner: resuming at case %lu\n", i);
	return i;
}

static const char *qcr_status_name(int32_t s)
{
	switch (s) {
	case QCF_OK: return "QCF_OK";
	case QCF_NOT_SUPPORTED: return "QCF_NOT_SUPPORTED";
	case QCF_INVALID_PARAM: return "QCF_INVALID_PARAM";
	case QCF_ERROR: return "QCF_ERROR";
	default: return "an unknown status";
	}
}

int main(int argc, char **argv)
{
	const char *dir = 0, *out = 0, *stream = 0, *why;
	static qcf_option options[64];
	int n_options = 0, quiet = 0, resume = 0, i;
	unsigned long first = 0, count = 0, n_cases, ran = 0, counts[5] = {0, 0, 0, 0, 0};
	uint32_t manifest_crc;
	char outdir[4096], path[4200], name[32];
	long n;
	int32_t create;
	qcr_result res;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (!strcmp(a, "--out") && more)
			out = argv[++i];
		else if (!strcmp(a, "--stream") && more)
			stream = argv[++i];
		else if ((!strcmp(a, "--first") || !strcmp(a, "--count")) && more) {
			char *end;
			unsigned long v = strtoul(argv[i + 1], &end, 10);
			if (*end || !argv[i + 1][0])
				return qcr_usage("needs a number after", a);
			*(a[2] == 'f' ? &first : &count) = v;
			i++;
		} else if (!strcmp(a, "--plugin-option") && more) {
			char *kv = argv[++i], *eq = kv;
			while (*eq && *eq != '=')
				eq++;
			if (!*eq || eq == kv)
				return qcr_usage("--plugin-option needs KEY=VALUE, got", kv);
			if (n_options == 64)
				return qcr_usage("too many --plugin-option", 0);
			*eq = 0;
			options[n_options].key = kv;
			options[n_options++].value = eq + 1;
		} else if (!strcmp(a, "--quiet"))
			quiet = 1;
		else if (!strcmp(a, "--resume"))
			resume = 1;
		else if (a[0] == '-' || dir)
			return qcr_usage(
			        "usage: qconform_runner EXPORT_DIR [--out DIR | --stream FILE] "
			        "[--plugin-option KEY=VALUE ...] [--first N | --resume] [--count "
			        "N] "
			        "[--quiet]; "
			        "not understood:",
			        a);
		else
			dir = a;
	}
	if (!dir)
		return qcr_usage(
		        "usage: qconform_runner EXPORT_DIR [--out DIR | --stream FILE] "
		        "[--plugin-option KEY=VALUE ...] [--first N | --resume] [--count N] "
		        "[--quiet]",
		        0);
	if (out && stream)
		return qcr_usage("--out and --stream: one or the other", 0);
	if (resume && (stream || first))
		return qcr_usage(
		        "--resume finds where the records stop: not with --stream or --first", 0);
	sprintf(path, "%.4000s/manifest.qcm", dir);
	if ((n = qcr_load(path, &why)) < 0) {
		fprintf(stderr, "qconform_runner: %s: %s\n", path, why);
		return 2;
	}
	if (n < QCF_HEADER_BYTES + 4 || !qcr_same(qcr_arena.b, QCF_MAGIC_MANIFEST, 4) ||
	    qcr_le32(qcr_arena.b + 8) != (uint32_t)n ||
	    qcr_crc(0, qcr_arena.b, (unsigned long)n - 4) != qcr_le32(qcr_arena.b + n - 4)) {
		fprintf(stderr, "qconform_runner: %s: not a manifest, truncated or damaged\n",
		        path);
		return 2;
	}
	if ((qcr_arena.b[4] | qcr_arena.b[5] << 8) != QCF_FORMAT_VERSION) {
		fprintf(stderr,
		        "qconform_runner: %s: format version %d, this runner reads %d: build the "
		        "runner of the qconform that exported it\n",
		        path, qcr_arena.b[4] | qcr_arena.b[5] << 8, QCF_FORMAT_VERSION);
		return 2;
	}
	manifest_crc = qcr_le32(qcr_arena.b + n - 4);
	n_cases = qcr_le32(qcr_arena.b + 12);
	if (first > n_cases)
		first = n_cases;
	sprintf(outdir, "%.4000s%s", out ? out : dir, out ? "" : "/outputs");
	if (stream) {
		if (!(qcr_file = fopen(stream, "wb")))
			return qcr_usage("cannot write", stream);
		qcr_stream = 1;
	}
	qcr_write_ok = 1;
	create = qcr_open(options, n_options);
	if (resume && !stream &&
	    (first = qcr_resume_at(outdir, n_cases, quiet)) == (unsigned long)-1)
		return 2;
	if (!count || count > n_cases - first)
		count = n_cases - first;
	/* runner.qco holds every session's header: a new one when the run starts at case 0, which
	 * clears every record; a later session clears the records it will write and the end */
	if (!stream) {
		unsigned long k;
		for (k = first; k < (first ? first + count : n_cases); k++) {
			sprintf(qcr_path, "%.4000s/%06lu.qco", outdir, k);
			remove(qcr_path);
		}
		sprintf(qcr_path, "%.4000s/end.qco", outdir);
		remove(qcr_path);
	}
	if (qcr_open_record(outdir, "runner.qco", first ? "ab" : "wb") != 0)
		return 2;
	qcr_header(manifest_crc, (uint32_t)n_cases, create, options, n_options, "hosted", first,
	           count);
	if (qcr_close_record() != 0)
		return 2;
	if (create != QCF_OK) {
		fprintf(stderr, "qconform_runner: the plugin could not be created (%s)%s%s\n",
		        qcr_status_name(create), qcr_create_msg[0] ? ": " : "", qcr_create_msg);
		return 2;
	}
	if (!quiet)
		printf("qconform_runner %s: plugin %s %s (ABI %lu), cases %lu..%lu of %lu\n",
		       QCONFORM_RUNNER_VERSION, qcr_plugin->name ? qcr_plugin->name : "",
		       qcr_plugin->version ? qcr_plugin->version : "", (unsigned long)qcr_abi,
		       first, first + count, n_cases);
	for (; ran < count; ran++) {
		unsigned long idx = first + ran;
		sprintf(path, "%.4000s/cases/%06lu.qcc", dir, idx);
		qcr_used = 0;
		if ((n = qcr_load(path, &why)) < 0) {
			fprintf(stderr, "qconform_runner: %s: %s\n", path, why);
			return 2;
		}
		qcr_used = (unsigned long)n;
		sprintf(name, "%06lu.qco", idx);
		if (qcr_open_record(outdir, name, "wb") != 0)
			return 2;
		qcr_run_case((uint32_t)idx, qcr_arena.b, (unsigned long)n, &res);
		if (qcr_close_record() != 0)
			return 2;
		counts[res.check == QCF_CHECK_NOT_RUN       ? 4
		       : res.status >= 0 && res.status <= 3 ? res.status
		                                            : 3]++;
		if (!quiet)
			printf("case %lu %s: %s%s%s\n", idx, qcr_c.name,
			       res.check == QCF_CHECK_NOT_RUN ? "not run"
			                                      : qcr_status_name(res.status),
			       res.message[0] ? ": " : "", res.message);
	}
	if (qcr_open_record(outdir, "end.qco", "wb") != 0)
		return 2;
	qcr_trailer(manifest_crc, ran);
	if (qcr_close_record() != 0)
		return 2;
	qcr_plugin->destroy(qcr_inst);
	if (stream && fclose(qcr_file) != 0)
		return qcr_usage("cannot write", stream);
	printf("qconform_runner: %lu case%s run: %lu QCF_OK, %lu QCF_NOT_SUPPORTED, %lu "
	       "QCF_INVALID_PARAM, %lu QCF_ERROR, %lu not run; records in %s\n",
	       ran, ran == 1 ? "" : "s", counts[0], counts[1], counts[2], counts[3], counts[4],
	       stream ? stream : outdir);
	return 0;
}
#endif
