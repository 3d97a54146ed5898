/*
 * onnx.proto through protobuf-c, bounded; TensorProto elements. See onnx_proto.h.
 */
#include "tools/onnx_proto.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- unpacking ---------------------------------------------------------- */

/* What an unpack may allocate in all: 64 bytes per byte read and 1 MiB (among the 4277
 * model.onnx and .pb files of libonnx-testdata 1.12, no file larger than 64 bytes takes more
 * than 15 per byte), and never more than MEM_LIMIT. The stack it may use below its caller:
 * protobuf-c's recursion takes about a kilobyte per nested message, and real models nest a
 * few dozen levels. */
#define MEM_PER_BYTE 64
#define MEM_BASE     ((size_t)1 << 20)
#define MEM_LIMIT    ((size_t)1 << 30)
#define STACK_LIMIT  ((size_t)512 << 10)

/*
 * The allocator of one unpack. protobuf-c allocates each message before it reads the
 * message's fields, so a nested message always passes here first: refusing the allocation
 * there, when the stack has grown past STACK_LIMIT, ends the unpack (NULL) before the
 * recursion can exhaust the stack. Frees are free(): the unpacked message is freed with the
 * default allocator.
 */
typedef struct budget {
	ProtobufCAllocator a;
	size_t left;     /* bytes it may still allocate */
	uintptr_t stack; /* the frame the unpack was called from */
	int deep, big;   /* why it refused */
} budget;

static void *budget_alloc(void *data, size_t size)
{
	budget *b = data;
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	if ((here < b->stack ? b->stack - here : here - b->stack) > STACK_LIMIT) {
		b->deep = 1;
		return NULL;
	}
	if (size > b->left) {
		b->big = 1;
		return NULL;
	}
	b->left -= size;
	return malloc(size ? size : 1);
}

static void budget_free(void *data, void *p)
{
	(void)data;
	free(p);
}

/* Unpacks a message of type desc under a budget; NULL and the reason in err if it fails. */
static void *unpack(const ProtobufCMessageDescriptor *desc, const void *data, size_t len, char *err,
                    size_t n)
{
	if (len > QC_ONNX_MAX_BYTES) {
		fail(err, n, "larger than %zu MiB", QC_ONNX_MAX_BYTES >> 20);
		return NULL;
	}
	size_t mem = len < (MEM_LIMIT - MEM_BASE) / MEM_PER_BYTE ? MEM_BASE + len * MEM_PER_BYTE
	                                                         : MEM_LIMIT;
	budget b = {{budget_alloc, budget_free, NULL},
	            mem,
	            (uintptr_t)__builtin_frame_address(0),
	            0,
	            0};
	b.a.allocator_data = &b;
	ProtobufCMessage *m = protobuf_c_message_unpack(desc, &b.a, len, data);
	if (m)
		return m;
	if (b.deep)
		fail(err, n, "as a %s, its messages nest deeper than the decoder allows",
		     desc->short_name);
	else if (b.big)
		fail(err, n, "as a %s, its %zu bytes would take more than %zu bytes to decode",
		     desc->short_name, len, mem);
	else
		fail(err, n,
		     "protobuf-c cannot unpack its %zu bytes as a %s (truncated, a length past the "
		     "end, a wire type that does not fit its field, or not protobuf)",
		     len, desc->short_name);
	return NULL;
}

Onnx__ModelProto *qc_onnx_model_unpack(const void *data, size_t len, char *err, size_t err_size)
{
	return unpack(&onnx__model_proto__descriptor, data, len, err, err_size);
}

qc_onnx_tensor *qc_onnx_tensor_of(const Onnx__TensorProto *pb)
{
	qc_onnx_tensor *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->pb = pb;
	t->name = pb->name ? pb->name : "";
	t->data_type = pb->data_type;
	t->n_dims = pb->n_dims;
	t->dims = pb->dims;
	return t;
}

int qc_onnx_tensor_read(qc_onnx_tensor **out, const void *data, size_t len, char *err,
                        size_t err_size)
{
	*out = NULL;
	Onnx__TensorProto *pb = unpack(&onnx__tensor_proto__descriptor, data, len, err, err_size);
	if (!pb)
		return -1;
	qc_onnx_tensor *t = qc_onnx_tensor_of(pb);
	if (!t) {
		onnx__tensor_proto__free_unpacked(pb, NULL);
		return fail(err, err_size, "out of memory");
	}
	t->owned = pb;
	*out = t;
	return 0;
}

void qc_onnx_tensor_free(qc_onnx_tensor *t)
{
	if (!t)
		return;
	if (t->owned)
		onnx__tensor_proto__free_unpacked(t->owned, NULL);
	free(t->ints);
	free(t->reals);
	free(t);
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

/* n little-endian bytes */
static uint64_t le(const uint8_t *p, int n)
{
	uint64_t x = 0;
	for (int i = n - 1; i >= 0; i--)
		x = x << 8 | p[i];
	return x;
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
	const Onnx__TensorProto *pb = t->pb;
	int32_t dt = t->data_type;
	const char *tn = qc_onnx_dtype_name(dt), *name = t->name;
	free(t->ints);
	free(t->reals);
	t->ints = NULL, t->reals = NULL, t->count = 0;
	int bits = elem_bits(dt);
	if (!bits)
		return fail(err, err_size, "tensor '%s': data type %s has no numeric elements here",
		            name, tn);
	if (pb->n_external_data ||
	    (pb->has_data_location &&
	     pb->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL))
		return fail(err, err_size, "tensor '%s': external data is not supported", name);
	if (pb->segment)
		return fail(err, err_size, "tensor '%s': segmented tensors are not supported",
		            name);
	size_t count = 1;
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0)
			return fail(err, err_size,
			            "tensor '%s': dimension %zu is negative (%" PRId64 ")", name, i,
			            t->dims[i]);
		if (t->dims[i] && count > (SIZE_MAX / 16) / (uint64_t)t->dims[i])
			return fail(err, err_size, "tensor '%s': too many elements", name);
		count *= (size_t)t->dims[i];
	}
	int real = is_real(dt);
	/* the typed field this data type uses, and how many values it has */
	size_t typed = 0;
	const char *field = "";
	switch (dt) {
	case QC_ONNX_FLOAT: typed = pb->n_float_data, field = "float_data"; break;
	case QC_ONNX_DOUBLE: typed = pb->n_double_data, field = "double_data"; break;
	case QC_ONNX_INT64: typed = pb->n_int64_data, field = "int64_data"; break;
	case QC_ONNX_UINT32:
	case QC_ONNX_UINT64: typed = pb->n_uint64_data, field = "uint64_data"; break;
	default: typed = pb->n_int32_data, field = "int32_data"; break;
	}
	size_t others = pb->n_float_data + pb->n_double_data + pb->n_int64_data +
	                pb->n_uint64_data + pb->n_int32_data + pb->n_string_data - typed;
	if (others)
		return fail(err, err_size, "tensor '%s': %s data in a field other than %s", name,
		            tn, field);
	const uint8_t *raw = pb->raw_data.data;
	size_t raw_len = pb->raw_data.len;
	if (pb->has_raw_data && typed)
		return fail(err, err_size, "tensor '%s': both raw_data and %s are given", name,
		            field);
	/* packed 4-bit types hold two elements per byte (and per int32_data entry) */
	size_t want = bits == 4 ? count / 2 + count % 2 : count;
	if (pb->has_raw_data) {
		size_t bytes = bits == 4 ? want : count * (size_t)(bits / 8);
		if (raw_len != bytes)
			return fail(err, err_size,
			            "tensor '%s': raw_data has %zu bytes, %zu %s elements need %zu",
			            name, raw_len, count, tn, bytes);
	} else if (typed != want) {
		return fail(err, err_size,
		            "tensor '%s': %s has %zu values, %zu %s elements need %zu", name, field,
		            typed, count, tn, want);
	}
	/* the elements are at most 16 bytes per byte of data read: bounded by the unpack */
	if (real)
		t->reals = malloc((count ? count : 1) * sizeof *t->reals);
	else
		t->ints = malloc((count ? count : 1) * sizeof *t->ints);
	if (real ? !t->reals : !t->ints)
		return fail(err, err_size, "tensor '%s': out of memory", name);
	t->count = count;
	t->is_real = real;
	int64_t lo, hi;
	int_range(dt, &lo, &hi);
	for (size_t i = 0; i < count; i++) {
		uint64_t bitsv; /* the element's bits (zero-extended) */
		if (pb->has_raw_data) {
			if (bits == 4)
				bitsv = (raw[i / 2] >> (4 * (i % 2))) & 15;
			else
				bitsv = le(raw + i * (size_t)(bits / 8), bits / 8);
		} else {
			switch (dt) {
			case QC_ONNX_FLOAT: {
				uint32_t u;
				memcpy(&u, &pb->float_data[i], 4);
				bitsv = u;
				break;
			}
			case QC_ONNX_DOUBLE: memcpy(&bitsv, &pb->double_data[i], 8); break;
			case QC_ONNX_INT64: bitsv = (uint64_t)pb->int64_data[i]; break;
			case QC_ONNX_UINT32:
			case QC_ONNX_UINT64: bitsv = pb->uint64_data[i]; break;
			default: {
				int64_t v;
				if (bits == 4) {
					int32_t byte = pb->int32_data[i / 2];
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
				v = pb->int32_data[i];
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
