/*
 * ONNX Runtime's quantized matrix products (reference/ort_qmatmul.c) with one typical mistake
 * per op; every other call goes to the reference unchanged.
 *
 *   QGemm with a quantized y: the requantization rounds ties half away from zero (roundf), where
 *   MLAS's MlasRequantizeOutput rounds them to even. The reference computes the call first (and
 *   checks it); the stub then recomputes every element and rewrites those whose float32 value
 *   acc * scale is an exact tie, the only places where the two roundings differ.
 */
#include <math.h>

#include "stub.h"

static int32_t q8(const qcf_tensor *t, size_t i)
{
	return t->dtype == QCF_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

static void qgemm_half_away(const qcf_op_call *call)
{
	const qcf_tensor *a = &call->inputs[0], *b = &call->inputs[1];
	const qcf_tensor *c = call->n_inputs > 2 ? &call->inputs[2] : NULL;
	qcf_tensor *y = &call->outputs[0];
	int64_t ta = 0, tb = 0;
	double alpha = 1.0;
	qref_attr_int(call, "transA", &ta);
	qref_attr_int(call, "transB", &tb);
	qref_attr_number(call, "alpha", &alpha);
	const qcf_quant *qa = a->quant, *qb = b->quant, *qy = y->quant;
	int64_t M = a->shape[ta ? 1 : 0], K = a->shape[ta ? 0 : 1], N = b->shape[tb ? 0 : 1];
	int64_t cm = c && c->rank == 2 ? c->shape[0] : 1;
	int64_t cn = c && c->rank >= 1 ? c->shape[c->rank - 1] : 1;
	double lo = y->dtype == QCF_INT8 ? -128 : 0, hi = y->dtype == QCF_INT8 ? 127 : 255;
	for (int64_t m = 0; m < M; m++)
		for (int64_t n = 0; n < N; n++) {
			int32_t zb = qb->zero_points[qb->count > 1 ? n : 0];
			int64_t acc = 0;
			for (int64_t k = 0; k < K; k++)
				acc += (int64_t)(q8(a, (size_t)(ta ? k * M + m : m * K + k)) -
				                 qa->zero_points[0]) *
				       (q8(b, (size_t)(tb ? n * K + k : k * N + n)) - zb);
			if (c)
				acc += (int32_t)qref_get(
				        c, (size_t)((cm > 1 ? m : 0) * cn + (cn > 1 ? n : 0)));
			float scale =
			        (float)alpha * qa->scales[0] * qb->scales[qb->count > 1 ? n : 0];
			scale = scale / qy->scales[0];
			float v = (float)(int32_t)acc * scale;
			if (v - floorf(v) != 0.5f)
				continue;
			double q = (double)roundf(v) + qy->zero_points[0]; /* the mistake */
			qref_set(y, (size_t)(m * N + n), q < lo ? lo : q > hi ? hi : q);
		}
}

static qcf_status mistakes_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	qcf_status st = stub_delegate(inst, call);
	if (st != QCF_OK)
		return st;
	if (stub_op_is(call, "QGemm") && call->outputs[0].dtype != QCF_FLOAT32)
		qgemm_half_away(call);
	return QCF_OK;
}

STUB_PLUGIN("ort_matmul_mistakes", mistakes_execute)
