/*
 * Tensors and op calls for the tests that call the reference kernels directly
 * (suite/test_reference.c, test_torch.c, test_tf.c, test_onnx.c and the
 * test_litert_*.c files): a qcf_tensor with room for its shape, quantization
 * and data in one struct, attribute builders, and one way to build and run a
 * call through qref_execute.
 */
#ifndef QCT_TENSOR_H
#define QCT_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "reference/kernel.h"
#include "reference/qref.h"

#define QT_MAXQ  64   /* scales and zero points of one tensor; detail elements */
#define QT_BYTES 2048 /* data: 1024 int16, 512 float32, 256 int64 elements */
#define QT_MAXIO 4    /* inputs, outputs of one call */

/* A tensor that owns its storage: t points into the struct, so do not copy a
 * qt after qt_init (copy its t instead). */
typedef struct qt {
	qcf_tensor t;
	int64_t shape[QCF_MAX_RANK];
	qcf_quant q;
	float scales[QT_MAXQ];
	int32_t zps[QT_MAXQ];
	union {
		unsigned char buf[QT_BYTES];
		float f32[QT_BYTES / sizeof(float)];
		int64_t i64[QT_BYTES / sizeof(int64_t)];
	};
} qt;

/* A tensor of dtype dt and the given shape (rank 0: a scalar, shape may be
 * NULL), data zeroed, not quantized. Returns x. */
qt *qt_init(qt *x, qcf_dtype dt, int rank, const int64_t *shape);
/* Quantization along axis (-1: per tensor) with count scales and zero points
 * (z NULL: zero points 0); qt_quant_blocked also sets block_size. */
void qt_quant(qt *x, int axis, int count, const float *s, const int32_t *z);
void qt_quant_blocked(qt *x, int axis, int block, int count, const float *s, const int32_t *z);
/* Per-tensor quantization with one scale and zero point. */
void qt_quant1(qt *x, float s, int32_t z);
/* qt_init, then qt_quant1(s, z) when s > 0. */
qt *qt_make(qt *x, qcf_dtype dt, int rank, const int64_t *shape, float s, int32_t z);
/* Element i (row-major) as a double, through qref_set / qref_get. */
void qt_fill(qt *x, const double *v, size_t n);
double qt_get(const qt *x, size_t i);
/* 1 if the first n elements are want, else 0 with the first difference on stderr. */
int qt_equals(const qt *x, const double *want, size_t n);

/* One attribute. */
qcf_attr qt_int(const char *name, int64_t v);
qcf_attr qt_flt(const char *name, double v);
qcf_attr qt_str(const char *name, const char *v);
qcf_attr qt_ints(const char *name, const int64_t *v, int n);

/* A detail with per-element buffers for up to three outputs. */
typedef struct qt_det {
	qref_detail d;
	uint8_t any[3][QT_MAXQ];
	double lo[3][QT_MAXQ], hi[3][QT_MAXQ], step[3][QT_MAXQ];
} qt_det;
/* Zeroes x, sets the rounding and the element buffers; returns &x->d. */
qref_detail *qt_det_init(qt_det *x, qref_rounding r);
/* Zeroes d and sets the rounding; returns d. */
qref_detail *qt_detail(qref_detail *d, qref_rounding r);

/* The call qt_call built last, and the copies of its tensors (an output's
 * data is the caller's buffer; its shape and quantization are the caller's). */
extern qcf_op_call qt_last;
extern qcf_tensor qt_in[QT_MAXIO], qt_out[QT_MAXIO];

/* Builds the call sem/op on the tensors (copied into qt_in / qt_out) and the
 * attributes (not copied); returns &qt_last. */
qcf_op_call *qt_call(const char *sem, const char *op, qt **ins, int nin, qt **outs, int nout,
                     const qcf_attr *attrs, int na);
/* qref_execute(qt_call(...), d); d is used as the caller prepared it. */
qcf_status qt_run(const char *sem, const char *op, qt **ins, int nin, qt **outs, int nout,
                  const qcf_attr *attrs, int na, qref_detail *d);

#endif
