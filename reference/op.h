/*
 * One row per op: everything the reference knows of an op in one place, its schema (qref.h),
 * the layout of its output, its kernel and its hooks. Each family file (litert_conv.c,
 * onnx_linear.c, ggml_ops.c, ...) owns the rows of its ops, in a table that ends with a row whose
 * schema.op is NULL, and the attribute tables beside the kernels that read them;
 * reference/dispatch.c lists the tables and looks the rows up. Adding an op is its kernel and
 * its row in its family file (and its spec and docs); reference/variants/variant.c reads the
 * rows as written, {.schema = {.semantics = "...", .op = "..."...}, .kernel = fn, ...}.
 */
#ifndef QREF_OP_H
#define QREF_OP_H

#include <math.h>
#include <stddef.h>

#include "qref.h"

typedef struct qref_op qref_op;

/* The kernel: checks the call's rules, then writes call->outputs. row is the op's own row. */
typedef qcf_status (*qref_kernel_fn)(const qcf_op_call *call, const qref_op *row,
                                     qref_detail *detail);

/*
 * The real-valued output hook (qref_real_output): checks the call's inputs, then writes the
 * ideal real value of every element of output k (0 <= k < call->n_outputs, checked by the
 * caller) to values. Reasons go to detail->message (detail may be NULL).
 */
typedef qcf_status (*qref_real_fn)(const qcf_op_call *call, const qref_op *row, int k,
                                   double *values, qref_detail *detail);

/* The accumulator hook (qref_element_terms): the checks of the op's kernel, then terms[j] of
 * element idx[j] of output k for j < n. */
typedef qcf_status (*qref_terms_fn)(const qcf_op_call *call, const qref_op *row, int k,
                                    const size_t *idx, int n, qref_terms *terms,
                                    qref_detail *detail);

/* The axes of output 0 (qref_output_axes); any other output, or another rank, is plain. */
typedef enum qref_layout {
	QREF_LAYOUT_PLAIN = 0, /* d0, d1, ...; channels: the per-axis quantization's axis */
	QREF_LAYOUT_NHWC,      /* rank 4: n, h, w, c */
	QREF_LAYOUT_NCHW,      /* rank >= 3: n, c, then h, w (rank 4) or d2, d3, ... */
	QREF_LAYOUT_FC         /* rank >= 1: ..., out_channel (batch, out_channel at rank 2) */
} qref_layout;

struct qref_op {
	qref_op_schema schema; /* semantics, op, inputs, outputs, attributes */
	qref_layout layout;
	qref_kernel_fn kernel;
	qref_real_fn real;   /* NULL when no output is quantized */
	qref_terms_fn terms; /* NULL when no output is a requantized accumulator */
	int param;           /* for a kernel several rows share: which op this row is */
};

/* The families, in the order qref_op_schema_at lists their ops. */
extern const qref_op qref_ops_litert_quantize[];         /* litert_quantize.c */
extern const qref_op qref_ops_litert_conv[];             /* litert_conv.c */
extern const qref_op qref_ops_litert_elementwise[];      /* litert_elementwise.c */
extern const qref_op qref_ops_litert_activations[];      /* litert_activations.c */
extern const qref_op qref_ops_litert_layout[];           /* litert_layout.c */
extern const qref_op qref_ops_litert_index[];            /* litert_index.c */
extern const qref_op qref_ops_litert_recurrent[];        /* litert_recurrent.c */
extern const qref_op qref_ops_litert_piecewise[];        /* litert_piecewise.c */
extern const qref_op qref_ops_litert_matmul[];           /* litert_matmul.c */
extern const qref_op qref_ops_litert_arith[];            /* litert_arith.c */
extern const qref_op qref_ops_litert_lut[];              /* litert_lut.c */
extern const qref_op qref_ops_litert_reduce[];           /* litert_reduce.c */
extern const qref_op qref_ops_litert_movement[];         /* litert_movement.c */
extern const qref_op qref_ops_litert_lstm[];             /* litert_lstm.c */
extern const qref_op qref_ops_torch_fake_quant[];        /* torch_fake_quant.c */
extern const qref_op qref_ops_torch_fake_quant_grad[];   /* torch_fake_quant_grad.c */
extern const qref_op qref_ops_torch_quantize[];          /* torch_quantize.c */
extern const qref_op qref_ops_torch_linear[];            /* torch_linear.c */
extern const qref_op qref_ops_torch_pt2e[];              /* torch_pt2e.c */
extern const qref_op qref_ops_tf[];                      /* tf_fake_quant.c */
extern const qref_op qref_ops_onnx[];                    /* onnx_qdq.c */
extern const qref_op qref_ops_onnx_linear[];             /* onnx_linear.c */
extern const qref_op qref_ops_ort[];                     /* ort_contrib.c */
extern const qref_op qref_ops_ort_qlinear_elementwise[]; /* ort_qlinear_elementwise.c */
extern const qref_op qref_ops_ort_qlinear_pool[];        /* ort_qlinear_pool.c */
extern const qref_op qref_ops_onnx_float[];              /* onnx_float.c */
extern const qref_op qref_ops_ort_qmatmul[];             /* ort_qmatmul.c */
extern const qref_op qref_ops_ort_qattention[];          /* ort_qattention.c */
extern const qref_op qref_ops_ort_qembed[];              /* ort_qembed.c */
extern const qref_op qref_ops_ggml[];                    /* ggml_ops.c */
extern const qref_op qref_ops_mx[];                      /* mx.c */
extern const qref_op qref_ops_ort_qconv[];               /* ort_qconv.c */
extern const qref_op qref_ops_ort_matmul_fpq4[];         /* ort_matmul_fpq4.c */
extern const qref_op qref_ops_ort_qmoe[];                /* ort_qmoe.c */
extern const qref_op qref_ops_ort_qlstm[];               /* ort_qlstm.c */

/* The row of semantics / op, or NULL. */
const qref_op *qref_op_find(const char *semantics, const char *op);

/* The position of schema among every row (qref_op_schema_at(i) == schema), or -1. */
int qref_op_index(const qref_op_schema *schema);

/* ---- writing rows ---- */

/* The attribute list of an op without attributes (schema.c). */
extern const qref_attr_schema qref_no_attrs[];

#define INF       INFINITY
#define I32       2147483647.0
#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define END                                                                                        \
	{                                                                                          \
		NULL, 0, 0, 0, 0, 0, NULL, 0, NULL                                                 \
	}

/* attribute rows: name, type, required, min, max, min_open, names, by_index, default */
#define A_INT(n, lo, hi, def)                                                                      \
	{                                                                                          \
		n, QREF_ATTR_INT, 0, lo, hi, 0, NULL, 0, def                                       \
	}
#define A_INT_REQ(n, lo, hi)                                                                       \
	{                                                                                          \
		n, QREF_ATTR_INT, 1, lo, hi, 0, NULL, 0, NULL                                      \
	}
#define A_BOOL(n, def)                                                                             \
	{                                                                                          \
		n, QREF_ATTR_BOOL, 0, 0, 1, 0, NULL, 0, def                                        \
	}
#define A_NUM(n, def)                                                                              \
	{                                                                                          \
		n, QREF_ATTR_FLOAT, 0, -INF, INF, 0, NULL, 0, def                                  \
	}
#define A_NUM_REQ(n)                                                                               \
	{                                                                                          \
		n, QREF_ATTR_FLOAT, 1, -INF, INF, 0, NULL, 0, NULL                                 \
	}
#define A_ENUM(n, names, idx, def)                                                                 \
	{                                                                                          \
		n, QREF_ATTR_ENUM, 0, 0, 0, 0, names, idx, def                                     \
	}
#define A_INTS(n, lo, def)                                                                         \
	{                                                                                          \
		n, QREF_ATTR_INTS, 0, lo, INF, 0, NULL, 0, def                                     \
	}

/* The fused activations the LiteRT kernels but CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED
 * read by name. */
#define ACT4 LIST("NONE", "RELU", "RELU6", "RELU_N1_TO_1")

/* The inputs and outputs of a schema: IO(LIST("x", "y"), 1, 2, LIST("y"), 1) is inputs x and an
 * optional y, one output y; XY and AB_Y are the usual ones. */
#define IO(in, min_in, max_in, out, n_out)                                                         \
	.inputs = in, .min_inputs = min_in, .max_inputs = max_in, .outputs = out, .n_outputs = n_out
/* As IO, with min_out to max_out outputs (SPLIT's num_splits); out names max_out of them. */
#define IO_OUTS(in, min_in, max_in, out, min_out, max_out)                                         \
	IO(in, min_in, max_in, out, max_out), .min_outputs = min_out
#define XY   IO(LIST("x"), 1, 1, LIST("y"), 1)
#define AB_Y IO(LIST("a", "b"), 2, 2, LIST("y"), 1)

#endif
