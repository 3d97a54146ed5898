/*
 * qconform compare-conventions: the convention matrix (conventions.h).
 * Each column runs the reference kernel of its framework on the same
 * float32 inputs; the quantized value q of a fake-quantizing op is read
 * back from its output y = (q - zp) * scale.
 */
#include "tools/conventions.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cases/qparams.h"
#include "reference/dtype.h"
#include "reference/qref.h"

static const char *const names[QC_CONV_COUNT] = {"torch", "torch-fzp", "onnx", "litert", "tf"};

const char *qc_conv_name(qc_conv c)
{
	return c >= 0 && c < QC_CONV_COUNT ? names[c] : "?";
}

int qc_conv_bits(qcf_dtype t)
{
	switch (t) {
	case QCF_INT4:
	case QCF_UINT4: return 4;
	case QCF_INT8:
	case QCF_UINT8: return 8;
	case QCF_INT16:
	case QCF_UINT16: return 16;
	default: return 0;
	}
}

static qcf_attr attr_i(const char *name, int64_t v)
{
	qcf_attr a = {.name = name, .type = QCF_ATTR_INT, .count = 1};
	a.v.i = v;
	return a;
}

static qcf_attr attr_f(const char *name, double v)
{
	qcf_attr a = {.name = name, .type = QCF_ATTR_FLOAT, .count = 1};
	a.v.f = v;
	return a;
}

static qcf_tensor tensor(const char *name, qcf_dtype t, int32_t rank, const int64_t *shape,
                         void *data, size_t count, const qcf_quant *q)
{
	qcf_tensor x = {sizeof x, name, t, rank, shape, data, qcf_dtype_nbytes(t, count), q};
	return x;
}

static int run(const char *semantics, const char *op, const qcf_tensor *in, int32_t n_in,
               qcf_tensor *out, const qcf_attr *attrs, int32_t n_attrs, char *err, size_t err_size)
{
	qcf_op_call call = {sizeof call, op, semantics, n_in, in, 1, out, n_attrs, attrs, NULL};
	qref_detail d;
	memset(&d, 0, sizeof d);
	qcf_status st = qref_execute(&call, &d);
	if (st != QCF_OK)
		return qc_errf(err, err_size, "%s %s: %s", semantics, op,
		               d.message[0] ? d.message : "refused");
	return 0;
}

/* q of a fake-quantized y on the grid (scale, zp): zp + round(y / scale). */
static int64_t code_of(double y, double scale, double zp)
{
	return (int64_t)llround(zp + nearbyint(y / scale));
}

int qc_conventions_run(const qc_conv_params *p, const float *x, size_t n, qc_conv_row *rows,
                       float *tf_scale_out, double *tf_zp_out, char *err, size_t err_size)
{
	int64_t qmin, qmax, wmin, wmax;
	int bits = qc_conv_bits(p->dtype);
	if (!bits || !qc_dtype_qrange(p->dtype, p->narrow_range, &qmin, &qmax) ||
	    !qc_dtype_qrange(p->dtype, 0, &wmin, &wmax))
		return qc_errf(err, err_size,
		               "dtype %s: int8, uint8, int16, uint16, int4 or uint4 expected",
		               qref_dtype_name(p->dtype));
	if (!(p->scale > 0) || !isfinite(p->scale))
		return qc_errf(err, err_size, "scale %g: must be finite and > 0", (double)p->scale);
	if (p->zero_point < qmin || p->zero_point > qmax)
		return qc_errf(err, err_size, "zero point %d outside [%lld, %lld]", p->zero_point,
		               (long long)qmin, (long long)qmax);
	memset(rows, 0, n * sizeof *rows);
	for (size_t i = 0; i < n; i++)
		rows[i].x = x[i];
	/* TF works on [0 or 1, 2^bits - 1]: off shifts its codes into the dtype's */
	const int64_t off = wmin;
	const float s = p->scale;
	const int32_t zp = p->zero_point;
	const float tf_min = (float)(qmin - zp) * s, tf_max = (float)(qmax - zp) * s;
	qc_qparams tfq;
	if (qc_qparams_from_min_max(tf_min, tf_max, qmin - off, qmax - off, QC_NUDGE_TF, &tfq, err,
	                            err_size) != 0)
		return -1;
	if (tf_scale_out)
		*tf_scale_out = tfq.scale;
	if (tf_zp_out)
		*tf_zp_out = (double)tfq.zero_point + (double)off;
	if (n == 0)
		return 0;

	int64_t shape1[1] = {(int64_t)n}, shape2[2] = {1, (int64_t)n}, one[1] = {1};
	float *y = qc_xcalloc(n, sizeof *y);
	void *qbuf = qc_xcalloc(qcf_dtype_nbytes(p->dtype, n) + 1, 1);
	int rc = -1;

	/* torch, integer zero point */
	qcf_tensor in = tensor("x", QCF_FLOAT32, 1, shape1, (void *)x, n, NULL);
	qcf_tensor out = tensor("y", QCF_FLOAT32, 1, shape1, y, n, NULL);
	qcf_attr ta[] = {attr_f("scale", s), attr_i("zero_point", zp), attr_i("quant_min", qmin),
	                 attr_i("quant_max", qmax)};
	if (run("torch", "fake_quantize_per_tensor_affine", &in, 1, &out, ta, 4, err, err_size))
		goto done;
	for (size_t i = 0; i < n; i++) {
		rows[i].has[QC_CONV_TORCH] = 1;
		rows[i].q[QC_CONV_TORCH] = code_of(y[i], s, zp);
	}

	/* torch, float zero point (per-channel op, one channel) */
	float sc1 = s, zpf = (float)zp;
	qcf_tensor pin[3] = {tensor("x", QCF_FLOAT32, 2, shape2, (void *)x, n, NULL),
	                     tensor("scale", QCF_FLOAT32, 1, one, &sc1, 1, NULL),
	                     tensor("zero_point", QCF_FLOAT32, 1, one, &zpf, 1, NULL)};
	out = tensor("y", QCF_FLOAT32, 2, shape2, y, n, NULL);
	qcf_attr pa[] = {attr_i("axis", 0), attr_i("quant_min", qmin), attr_i("quant_max", qmax)};
	if (run("torch", "fake_quantize_per_channel_affine", pin, 3, &out, pa, 3, err, err_size))
		goto done;
	for (size_t i = 0; i < n; i++) {
		rows[i].has[QC_CONV_TORCH_FZP] = 1;
		rows[i].q[QC_CONV_TORCH_FZP] = code_of(y[i], s, zp);
	}

	/* ONNX QuantizeLinear and LiteRT QUANTIZE: the dtype's full range only */
	float qs = s;
	int32_t qz = zp;
	qcf_quant q = {
	        .struct_size = sizeof q, .axis = -1, .count = 1, .scales = &qs, .zero_points = &qz};
	if (!p->narrow_range) {
		const char *sem[2] = {"onnx", "litert"}, *op[2] = {"QuantizeLinear", "QUANTIZE"};
		const qc_conv col[2] = {QC_CONV_ONNX, QC_CONV_LITERT};
		for (int k = 0; k < 2; k++) {
			if (col[k] == QC_CONV_LITERT && p->dtype == QCF_UINT16)
				continue; /* LiteRT QUANTIZE has no uint16 output */
			in = tensor("x", QCF_FLOAT32, 1, shape1, (void *)x, n, NULL);
			qcf_tensor qo = tensor("y", p->dtype, 1, shape1, qbuf, n, &q);
			if (run(sem[k], op[k], &in, 1, &qo, NULL, 0, err, err_size))
				goto done;
			for (size_t i = 0; i < n; i++) {
				rows[i].has[col[k]] = 1;
				rows[i].q[col[k]] = (int64_t)qref_get(&qo, i);
			}
		}
	}

	/* TF fake_quant_with_min_max_args on the range the params describe */
	in = tensor("x", QCF_FLOAT32, 1, shape1, (void *)x, n, NULL);
	out = tensor("y", QCF_FLOAT32, 1, shape1, y, n, NULL);
	qcf_attr fa[] = {attr_f("min", tf_min), attr_f("max", tf_max), attr_i("num_bits", bits),
	                 attr_i("narrow_range", p->narrow_range)};
	if (run("tf", "fake_quant_with_min_max_args", &in, 1, &out, fa, 4, err, err_size))
		goto done;
	const double tf_zp = (double)tfq.zero_point + (double)off;
	const int nudged = tfq.scale != s || tf_zp != (double)zp;
	for (size_t i = 0; i < n; i++) {
		rows[i].has[QC_CONV_TF] = 1;
		rows[i].q[QC_CONV_TF] = code_of(y[i], tfq.scale, tf_zp);
	}

	/* why they disagree */
	const float inv = 1.0f / s;
	for (size_t i = 0; i < n; i++) {
		qc_conv_row *r = &rows[i];
		int agree = 1;
		for (int c = 1; c < QC_CONV_COUNT; c++)
			if (r->has[c] && r->q[c] != r->q[QC_CONV_TORCH])
				agree = 0;
		if (agree || !isfinite(r->x))
			continue;
		float m = r->x * inv, dv = r->x / s;
		if (m - floorf(m) == 0.5f)
			r->why |= QC_WHY_TIE_MUL;
		if (dv - floorf(dv) == 0.5f)
			r->why |= QC_WHY_TIE_DIV;
		if (nearbyintf(m) != nearbyintf(dv) || floorf(m + 0.5f) != floorf(dv + 0.5f))
			r->why |= QC_WHY_MUL_DIV;
		if (r->q[QC_CONV_TORCH_FZP] != r->q[QC_CONV_TORCH])
			r->why |= QC_WHY_ZP_FIRST;
		int64_t qt = r->q[QC_CONV_TF];
		/* a tie explains tf's difference (it rounds ties up), unless its range moved */
		int tie = (r->why & (QC_WHY_TIE_MUL | QC_WHY_TIE_DIV)) != 0;
		if (qt != r->q[QC_CONV_TORCH] &&
		    (!r->has[QC_CONV_ONNX] || qt != r->q[QC_CONV_ONNX]) &&
		    (!r->has[QC_CONV_LITERT] || qt != r->q[QC_CONV_LITERT]) && (nudged || !tie))
			r->why |= nudged ? QC_WHY_NUDGE : QC_WHY_TF_PATH;
	}
	rc = 0;
done:
	free(y);
	free(qbuf);
	return rc;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

long qc_conventions_probe(const qc_conv_params *p, float *out, size_t cap)
{
	int64_t qmin, qmax;
	if (!qc_dtype_qrange(p->dtype, p->narrow_range, &qmin, &qmax) || !(p->scale > 0))
		return -1;
	size_t n = 0;
#define PUT(v)                                                                                     \
	do {                                                                                       \
		if (n < cap)                                                                       \
			out[n++] = (v);                                                            \
	} while (0)
	const double s = p->scale;
	PUT(0.0f);
	PUT((float)((double)(qmin - p->zero_point) * s));
	PUT((float)((double)(qmax - p->zero_point) * s));
	PUT((float)((double)(qmin - p->zero_point - 1) * s));
	PUT((float)((double)(qmax - p->zero_point + 1) * s));
	int64_t span = qmax - qmin,
	        step = span > QC_CONV_PROBE_CODES ? span / QC_CONV_PROBE_CODES : 1;
	for (int64_t k = qmin; k < qmax; k += step) {
		double t = ((double)(k - p->zero_point) + 0.5) * s;
		float f = (float)t;
		PUT(f);
		PUT(nextafterf(f, -INFINITY));
		PUT(nextafterf(f, INFINITY));
		PUT((float)((double)(k - p->zero_point) + 0.5) * p->scale);
	}
#undef PUT
	qsort(out, n, sizeof *out, cmp_float);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || out[i] != out[u - 1])
			out[u++] = out[i];
	return (long)u;
}
