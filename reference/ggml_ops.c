/*
 * The ops of semantics "ggml" (specs/ggml/OPERATORS.md): quantize_row, dequantize_row,
 * get_rows and mul_mat, on the block formats of ggml.c (their arithmetic and its sources are
 * described there).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "ggml.h"
#include "kernel.h"
#include "op.h"

/* ---- the ops ---- */

/* The last dimension of t: rank >= 1, a multiple of the block of GGML dtype g. */
static qcf_status check_rows(const qcf_op_call *call, const qcf_tensor *t, qcf_dtype g,
                             qref_detail *d)
{
	const size_t qk = qcf_ggml_block_elements(g);
	if (t->rank < 1)
		return qref_fail_tensor(d, t, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: %s needs rank >= 1 (rows of %s blocks)", call->op,
		                        t->name ? t->name : "a tensor", qref_dtype_name(g));
	if (t->shape[t->rank - 1] % (int64_t)qk)
		return qref_fail_tensor(d, t, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: the last dimension (%lld) must be a multiple of %s's "
		                        "block of %zu",
		                        call->op, (long long)t->shape[t->rank - 1],
		                        qref_dtype_name(g), qk);
	return QCF_OK;
}

/* quantize_row: x float32 -> y of a GGML dtype, each row as quantize_row_<t>_ref. */
static qcf_status ggml_quantize_row(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	if (x->dtype != QCF_FLOAT32)
		return qref_fail_tensor(d, x, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: x must be float32, got %s", call->op,
		                        qref_dtype_name(x->dtype));
	if (!qref_ggml_is_block(y->dtype))
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: y must be a GGML block type (ggml_q4_0 .. ggml_q8_k), "
		                        "got %s",
		                        call->op, qref_dtype_name(y->dtype));
	if (!qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y's shape must equal x's", call->op);
	if ((s = check_rows(call, y, y->dtype, d)) != QCF_OK ||
	    (s = qref_no_rounding(
	             call, d, "x with the format's own quantizer, not a named rounding")) != QCF_OK)
		return s;
	const size_t n = qref_tensor_numel(x), qk = qcf_ggml_block_elements(y->dtype),
	             bytes = qcf_ggml_block_bytes(y->dtype);
	qref_ggml_quantize_row(y->dtype, (const float *)x->data, y->data, n);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *blk = (const uint8_t *)y->data + i / qk * bytes;
		qref_mark_exact(d, 0, i);
		qref_set_step(d, 0, i, qref_ggml_block_step(y->dtype, blk, (int)(i % qk)));
	}
	return QCF_OK;
}

/* dequantize_row: x of a GGML dtype -> y float32 (GET_ROWS' and the to_float path). */
static qcf_status ggml_dequantize_row(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 1, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *x = &call->inputs[0];
	qcf_tensor *y = &call->outputs[0];
	if (!qref_ggml_is_block(x->dtype))
		return qref_fail_tensor(d, x, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: x must be a GGML block type, got %s", call->op,
		                        qref_dtype_name(x->dtype));
	if (x->dtype == QCF_GGML_Q8_1)
		return qref_fail_tensor(d, x, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: ggml has no dequantize_row_q8_1 (Q8_1 is only an "
		                        "activation type: type_traits has no to_float for it)",
		                        call->op);
	if (y->dtype != QCF_FLOAT32)
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: y must be float32, got %s", call->op,
		                        qref_dtype_name(y->dtype));
	if (!qref_same_shape(x, y))
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y's shape must equal x's", call->op);
	if ((s = check_rows(call, x, x->dtype, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;
	size_t n = qref_tensor_numel(x);
	qref_ggml_dequantize_row(x->dtype, x->data, (float *)y->data, n);
	for (size_t i = 0; i < n; i++)
		qref_mark_exact(d, 0, i);
	return QCF_OK;
}

/*
 * get_rows: a [n_rows, k] of a GGML type with a to_float, idx int32 [m] -> y float32 [m, k]:
 * row i of y is dequantize_row of a's row idx[i] (ggml_compute_forward_get_rows_q: a row index
 * outside [0, n_rows) is a GGML_ASSERT there, refused here).
 */
static qcf_status ggml_get_rows(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *idx = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	if (!qref_ggml_is_block(a->dtype) || a->dtype == QCF_GGML_Q8_1)
		return qref_fail_tensor(d, a, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: a must be a GGML block type with a to_float (not "
		                        "ggml_q8_1), got %s",
		                        call->op, qref_dtype_name(a->dtype));
	if (idx->dtype != QCF_INT32)
		return qref_fail_tensor(d, idx, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: idx must be int32, got %s", call->op,
		                        qref_dtype_name(idx->dtype));
	if (y->dtype != QCF_FLOAT32)
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: y must be float32, got %s", call->op,
		                        qref_dtype_name(y->dtype));
	if (a->rank != 2 || idx->rank != 1 || y->rank != 2)
		return qref_fail(d, QCF_INVALID_PARAM, "%s: a and y must have rank 2, idx rank 1",
		                 call->op);
	const int64_t rows = a->shape[0], k = a->shape[1], m = idx->shape[0];
	if (y->shape[0] != m || y->shape[1] != k)
		return qref_fail_output(
		        d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		        "%s: y must be [%lld, %lld] (idx's length, a's rows' length)", call->op,
		        (long long)m, (long long)k);
	if ((s = check_rows(call, a, a->dtype, d)) != QCF_OK ||
	    (s = qref_no_rounding(call, d, "nothing to an integer")) != QCF_OK)
		return s;
	const int32_t *ix = idx->data;
	for (int64_t i = 0; i < m; i++)
		if (ix[i] < 0 || ix[i] >= rows)
			return qref_fail_tensor(d, idx, QREF_PART_DATA, QCF_INVALID_PARAM,
			                        "%s: idx[%lld] = %d is not a row of a (0 .. %lld)",
			                        call->op, (long long)i, (int)ix[i],
			                        (long long)rows - 1);
	const size_t arow = qcf_dtype_nbytes(a->dtype, (size_t)k);
	for (int64_t i = 0; i < m; i++)
		qref_ggml_dequantize_row(a->dtype, (const uint8_t *)a->data + (size_t)ix[i] * arow,
		                         (float *)y->data + i * k, (size_t)k);
	for (size_t i = 0; i < (size_t)(m * k); i++)
		qref_mark_exact(d, 0, i);
	return QCF_OK;
}

/*
 * mul_mat: a [n_rows, k] weights of a GGML type with a vec_dot, b [m, k] float32 (quantized
 * here row by row to the weights' vec_dot type with its reference quantizer, as
 * ggml_compute_forward_mul_mat does with from_float) or already of that type; y [m, n_rows]
 * float32, y[i][r] = vec_dot(a row r, b row i). Each element's step is the bound of its
 * summation-order dependence (qref_ggml_vec_dot). Batched: a [ba, n_rows, k], b [bb, m, k]
 * (a 2-D tensor is one batch), y [bb, m, n_rows] (2-D with b) with bb a multiple of ba; batch
 * j of b meets batch j / (bb / ba) of a (ggml_compute_forward_mul_mat's broadcast, i02 = i12 /
 * r2; ggml_can_mul_mat asks ne12 % ne02 == 0).
 */
static qcf_status ggml_mul_mat(const qcf_op_call *call, const qref_op *row, qref_detail *d)
{
	(void)row;
	qcf_status s = qref_check_call(call, 2, 1, d);
	if (s != QCF_OK)
		return s;
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	qcf_tensor *y = &call->outputs[0];
	const qcf_dtype vt = qref_ggml_vec_dot_type(a->dtype);
	if (vt == QCF_DTYPE_INVALID)
		return qref_fail_tensor(
		        d, a, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		        "%s: a must be a GGML weight type with a vec_dot (q4_0, q4_1, "
		        "q5_0, q5_1, q8_0, q2_k .. q6_k), got %s",
		        call->op, qref_dtype_name(a->dtype));
	if (b->dtype != QCF_FLOAT32 && b->dtype != vt)
		return qref_fail_tensor(
		        d, b, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		        "%s: b must be float32 or %s (the vec_dot type of %s), got %s", call->op,
		        qref_dtype_name(vt), qref_dtype_name(a->dtype), qref_dtype_name(b->dtype));
	if (y->dtype != QCF_FLOAT32)
		return qref_fail_output(d, 0, QREF_PART_DTYPE, QCF_INVALID_PARAM,
		                        "%s: y must be float32, got %s", call->op,
		                        qref_dtype_name(y->dtype));
	if (a->rank < 2 || a->rank > 3 || b->rank < 2 || b->rank > 3 || y->rank != b->rank)
		return qref_fail(d, QCF_INVALID_PARAM,
		                 "%s: a and b must have rank 2 or 3 (a leading batch dimension), y "
		                 "b's rank",
		                 call->op);
	const int ab = a->rank - 2, bb = b->rank - 2; /* the batch dimension's count */
	const int64_t na = ab ? a->shape[0] : 1, nb = bb ? b->shape[0] : 1;
	const int64_t rows = a->shape[ab], k = a->shape[ab + 1], m = b->shape[bb];
	if (b->shape[bb + 1] != k)
		return qref_fail_tensor(d, b, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: b's rows (%lld) must have a's length (%lld)", call->op,
		                        (long long)b->shape[bb + 1], (long long)k);
	if (na < 1 || nb % na)
		return qref_fail_tensor(d, b, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: b's batches (%lld) must be a multiple of a's (%lld)",
		                        call->op, (long long)nb, (long long)na);
	if ((bb && y->shape[0] != nb) || y->shape[bb] != m || y->shape[bb + 1] != rows)
		return qref_fail_output(d, 0, QREF_PART_SHAPE, QCF_INVALID_PARAM,
		                        "%s: y must be %s%lld, %lld] (b's rows, a's rows)",
		                        call->op, bb ? "[b's batches, " : "[", (long long)m,
		                        (long long)rows);
	if ((s = check_rows(call, a, a->dtype, d)) != QCF_OK ||
	    (s = check_rows(call, b, vt, d)) != QCF_OK ||
	    (s = qref_no_rounding(
	             call, d, "b with its vec_dot type's own quantizer, not a named rounding")) !=
	            QCF_OK)
		return s;
	const size_t arow = qcf_dtype_nbytes(a->dtype, (size_t)k),
	             brow = qcf_dtype_nbytes(vt, (size_t)k);
	const int64_t mb = nb * m; /* b's rows over every batch */
	const uint8_t *bq = b->data;
	uint8_t *buf = NULL;
	if (b->dtype == QCF_FLOAT32 && mb > 0 && k > 0) {
		buf = malloc((size_t)mb * brow);
		if (!buf)
			return qref_fail(d, QCF_ERROR, "%s: out of memory", call->op);
		for (int64_t i = 0; i < mb; i++)
			qref_ggml_quantize_row(vt, (const float *)b->data + i * k, buf + i * brow,
			                       (size_t)k);
		bq = buf;
	}
	float *out = y->data;
	for (int64_t j = 0; j < nb; j++) {
		const uint8_t *aj =
		        (const uint8_t *)a->data + (size_t)(j / (nb / na) * rows) * arow;
		for (int64_t i = 0; i < m; i++)
			for (int64_t r = 0; r < rows; r++) {
				double bound;
				const size_t o = (size_t)((j * m + i) * rows + r);
				out[o] = qref_ggml_vec_dot(a->dtype, (size_t)k, aj + r * arow,
				                           bq + (size_t)(j * m + i) * brow, &bound);
				qref_mark_exact(d, 0, o);
				qref_set_step(d, 0, o, bound);
			}
	}
	free(buf);
	return QCF_OK;
}

const qref_op qref_ops_ggml[] = {
        {.schema = {.semantics = "ggml", .op = "quantize_row", XY, .attrs = qref_no_attrs},
         .kernel = ggml_quantize_row},
        {.schema = {.semantics = "ggml", .op = "dequantize_row", XY, .attrs = qref_no_attrs},
         .kernel = ggml_dequantize_row},
        {.schema = {.semantics = "ggml", .op = "mul_mat", AB_Y, .attrs = qref_no_attrs},
         .kernel = ggml_mul_mat},
        {.schema = {.semantics = "ggml",
                    .op = "get_rows",
                    IO(LIST("a", "idx"), 2, 2, LIST("y"), 1),
                    .attrs = qref_no_attrs},
         .kernel = ggml_get_rows},
        {.schema = {.op = NULL}},
};
