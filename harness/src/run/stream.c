/* stream: see stream.h. Used by the relay (relay.c) and the worker's --stdio mode (worker.c). */
#include "run/stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>

uint32_t qc_stream_layout(void)
{
	const uint32_t one = 1;
	unsigned char little;
	memcpy(&little, &one, 1);
	const size_t v[] = {
	        sizeof(void *),
	        little,
	        sizeof(qcf_op_call),
	        offsetof(qcf_op_call, op),
	        offsetof(qcf_op_call, inputs),
	        offsetof(qcf_op_call, outputs),
	        offsetof(qcf_op_call, attrs),
	        sizeof(qcf_tensor),
	        offsetof(qcf_tensor, name),
	        offsetof(qcf_tensor, shape),
	        offsetof(qcf_tensor, data),
	        offsetof(qcf_tensor, nbytes),
	        offsetof(qcf_tensor, quant),
	        sizeof(qcf_quant),
	        offsetof(qcf_quant, scales),
	        offsetof(qcf_quant, zero_points),
	        offsetof(qcf_quant, float_zero_points),
	        offsetof(qcf_quant, block_size),
	        offsetof(qcf_quant, scale_dtype),
	        offsetof(qcf_quant, zero_point_dtype),
	        sizeof(qcf_attr),
	        offsetof(qcf_attr, v),
	        sizeof(qc_case_desc),
	        sizeof(qc_command),
	        sizeof(qc_answer),
	        sizeof(qc_fault),
	        sizeof(qc_load_report),
	        sizeof(qc_hello),
	        sizeof(qc_loaded),
	        sizeof(qc_span),
	        sizeof(qc_keeper_note),
	};
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		h = (h ^ (uint32_t)v[i]) * 16777619u;
	return h;
}

static uint32_t frame_crc(const qc_frame_header *h, const void *a, size_t na, const void *b,
                          size_t nb)
{
	uLong c = crc32(0L, Z_NULL, 0);
	c = crc32(c, (const Bytef *)h, 12);
	if (na)
		c = crc32(c, (const Bytef *)a, (uInt)na);
	if (nb)
		c = crc32(c, (const Bytef *)b, (uInt)nb);
	return (uint32_t)c;
}

/* Writes the n iovecs whole: one system call, unless the pipe takes less. */
static int write_all(int fd, struct iovec *v, int n)
{
	while (n) {
		ssize_t k = writev(fd, v, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		size_t done = (size_t)k;
		while (n && done >= v->iov_len) {
			done -= v->iov_len;
			v++;
			n--;
		}
		if (n) {
			v->iov_base = (char *)v->iov_base + done;
			v->iov_len -= done;
		}
	}
	return 0;
}

int qc_frame_write(int fd, uint32_t type, const void *a, size_t na, const void *b, size_t nb)
{
	if (na + nb > UINT32_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	qc_frame_header h = {QC_STREAM_MAGIC, type, (uint32_t)(na + nb), 0};
	h.crc = frame_crc(&h, a, na, b, nb);
	/* one write a frame: its reader wakes once, not once a part */
	struct iovec v[3] = {{&h, sizeof h}};
	int n = 1;
	if (na)
		v[n++] = (struct iovec){(void *)a, na};
	if (nb)
		v[n++] = (struct iovec){(void *)b, nb};
	return write_all(fd, v, n);
}

/*
 * Signs of a terminal between the ends, in what a failed read got (the header, then the
 * payload read): a control byte echoed as ^X (a terminal's echo of the relay's own frames),
 * or every LF after a CR (LF turned into CR LF). Binary data has some LFs, seldom all after a
 * CR; carets are looked for in the header only.
 */
static int tty_signs(const unsigned char *h, size_t nh, const unsigned char *p, size_t np)
{
	size_t carets = 0, lf = 0, crlf = 0;
	for (size_t i = 0; i + 1 < nh; i++)
		carets += h[i] == '^' && h[i + 1] >= '@' && h[i + 1] <= '_';
	for (size_t i = 0; i < nh + np; i++) {
		unsigned char c = i < nh ? h[i] : p[i - nh];
		unsigned char prev = i == 0 ? 0 : i - 1 < nh ? h[i - 1] : p[i - 1 - nh];
		if (c == '\n') {
			lf++;
			crlf += prev == '\r';
		}
	}
	return carets >= 2 || (lf > 0 && crlf == lf);
}

static int tty_why(const void *h, size_t nh, const unsigned char *p, size_t np, char *why,
                   size_t why_size)
{
	if (!tty_signs(h, nh, p, np))
		return 0;
	snprintf(why, why_size, "%s", QC_STREAM_TTY);
	return 1;
}

int qc_frame_read(int fd, uint32_t *type, unsigned char **buf, size_t *cap, size_t *len, size_t max,
                  char *why, size_t why_size)
{
	qc_frame_header h;
	ssize_t k = qc_read_full(fd, &h, sizeof h);
	if (k == 0)
		return 0;
	if (k < 0) {
		snprintf(why, why_size, "reading the stream: %s", strerror(errno));
		return -1;
	}
	if ((k < (ssize_t)sizeof h || h.magic != QC_STREAM_MAGIC || h.length > max) &&
	    tty_why(&h, (size_t)k, NULL, 0, why, why_size))
		return -1;
	if (k >= 4 && h.magic != QC_STREAM_MAGIC) {
		snprintf(why, why_size,
		         "not a qconform frame (magic 0x%08x): the remote command wrote something "
		         "else on its stdout",
		         h.magic);
		return -1;
	}
	if (k < (ssize_t)sizeof h) {
		snprintf(why, why_size,
		         "truncated frame: the stream ended %zd byte(s) into a header", k);
		return -2;
	}
	if (h.length > max) {
		snprintf(why, why_size, "frame of %u bytes, more than the %zu allowed", h.length,
		         max);
		return -1;
	}
	if (*cap < (size_t)h.length + 1) {
		unsigned char *nb = realloc(*buf, (size_t)h.length + 1);
		if (!nb) {
			snprintf(why, why_size, "out of memory for a frame of %u bytes", h.length);
			return -1;
		}
		*buf = nb;
		*cap = (size_t)h.length + 1;
	}
	k = qc_read_full(fd, *buf, h.length);
	if (k < 0) {
		snprintf(why, why_size, "reading the stream: %s", strerror(errno));
		return -1;
	}
	if (k < (ssize_t)h.length) {
		if (tty_why(&h, sizeof h, *buf, (size_t)k, why, why_size))
			return -1;
		snprintf(why, why_size, "truncated frame: %zd of its %u bytes came", k, h.length);
		return -2;
	}
	if (frame_crc(&h, *buf, h.length, NULL, 0) != h.crc) {
		if (tty_why(&h, sizeof h, *buf, h.length, why, why_size))
			return -1;
		snprintf(why, why_size, "corrupted frame: CRC-32 mismatch (type %u, %u bytes)",
		         h.type, h.length);
		return -1;
	}
	*type = h.type;
	*len = h.length;
	return 1;
}

/* ------------------------------------------------------------ relocations */

typedef struct walk {
	const unsigned char *arena;
	uintptr_t base;
	const qc_case_desc *d;
	uint64_t *out;
	size_t cap, n;
	int bad;
} walk;

/* The arena offset a pointer stored at arena offset field_off points to, checked to be in
 * the slot; records the field. Returns the offset, or 0 for NULL (or a bad pointer). */
static uint64_t ptr_at(walk *w, uint64_t field_off, size_t want)
{
	const qc_case_desc *d = w->d;
	if (field_off < d->slot_off || field_off + 8 > d->slot_off + d->slot_len) {
		w->bad = 1;
		return 0;
	}
	uintptr_t p;
	memcpy(&p, w->arena + field_off, sizeof p);
	if (!p)
		return 0;
	uintptr_t base = w->base;
	if (p < base + d->slot_off || p - base + want > d->slot_off + d->slot_len) {
		w->bad = 1;
		return 0;
	}
	if (w->n < w->cap)
		w->out[w->n] = field_off;
	w->n++;
	return (uint64_t)(p - base);
}

static void walk_tensors(walk *w, uint64_t at, int32_t n)
{
	for (int32_t i = 0; i < n && !w->bad; i++) {
		uint64_t t = at + (uint64_t)i * sizeof(qcf_tensor);
		qcf_tensor tv;
		if (t + sizeof tv > w->d->slot_off + w->d->slot_len) {
			w->bad = 1;
			return;
		}
		memcpy(&tv, w->arena + t, sizeof tv);
		ptr_at(w, t + offsetof(qcf_tensor, name), 1);
		ptr_at(w, t + offsetof(qcf_tensor, shape), 0);
		ptr_at(w, t + offsetof(qcf_tensor, data), 0);
		uint64_t q = ptr_at(w, t + offsetof(qcf_tensor, quant), sizeof(qcf_quant));
		if (q) {
			ptr_at(w, q + offsetof(qcf_quant, scales), 0);
			ptr_at(w, q + offsetof(qcf_quant, zero_points), 0);
			ptr_at(w, q + offsetof(qcf_quant, float_zero_points), 0);
		}
	}
}

static void walk_call(walk *w, uint64_t call_off, int depth);

long qc_stream_relocs(const unsigned char *arena, uintptr_t base, const qc_case_desc *d,
                      uint64_t *out, size_t cap)
{
	walk w = {arena, base, d, out, cap, 0, 0};
	if (d->call_off < d->slot_off ||
	    d->call_off + sizeof(qcf_op_call) > d->slot_off + d->slot_len)
		return -1;
	walk_call(&w, d->call_off, 0);
	if (w.bad || w.n > cap)
		return -1;
	return (long)w.n;
}

/* The pointers of the call at call_off, and of its chain's (plugin.h version 3) nodes and
 * intermediates. */
static void walk_call(walk *w, uint64_t call_off, int depth)
{
	const unsigned char *arena = w->arena;
	const qc_case_desc *d = w->d;
	qcf_op_call c;
	if (call_off + sizeof c > d->slot_off + d->slot_len) {
		w->bad = 1;
		return;
	}
	memcpy(&c, arena + call_off, sizeof c);
	ptr_at(w, call_off + offsetof(qcf_op_call, op), 1);
	ptr_at(w, call_off + offsetof(qcf_op_call, semantics), 1);
	uint64_t in = ptr_at(w, call_off + offsetof(qcf_op_call, inputs), 0);
	uint64_t outs = ptr_at(w, call_off + offsetof(qcf_op_call, outputs), 0);
	uint64_t attrs = ptr_at(w, call_off + offsetof(qcf_op_call, attrs), 0);
	if (in)
		walk_tensors(w, in, c.n_inputs);
	if (outs)
		walk_tensors(w, outs, c.n_outputs);
	for (int32_t i = 0; attrs && i < c.n_attrs && !w->bad; i++) {
		uint64_t a = attrs + (uint64_t)i * sizeof(qcf_attr);
		qcf_attr av;
		if (a + sizeof av > d->slot_off + d->slot_len) {
			w->bad = 1;
			return;
		}
		memcpy(&av, arena + a, sizeof av);
		ptr_at(w, a + offsetof(qcf_attr, name), 1);
		if (av.type == QCF_ATTR_STRING || av.type == QCF_ATTR_INTS ||
		    av.type == QCF_ATTR_FLOATS)
			ptr_at(w, a + offsetof(qcf_attr, v), 0);
	}
	uint64_t ch =
	        depth ? 0 : ptr_at(w, call_off + offsetof(qcf_op_call, chain), sizeof(qcf_chain));
	if (ch) {
		qcf_chain cv;
		if (ch + sizeof cv > d->slot_off + d->slot_len) {
			w->bad = 1;
			return;
		}
		memcpy(&cv, arena + ch, sizeof cv);
		uint64_t nodes = ptr_at(w, ch + offsetof(qcf_chain, nodes), 0);
		uint64_t mid = ptr_at(w, ch + offsetof(qcf_chain, intermediates), 0);
		if (mid)
			walk_tensors(w, mid, cv.n_intermediates);
		for (int32_t i = 0; nodes && i < cv.n_nodes && !w->bad; i++)
			walk_call(w, nodes + (uint64_t)i * sizeof(qcf_op_call), 1);
	}
}
