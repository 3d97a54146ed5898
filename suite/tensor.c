/* Tensors and op calls shared by the tests of the reference kernels (suite/tensor.h). */
#include <stdio.h>
#include <string.h>

#include "reference/dtype.h"
#include "tensor.h"

qcf_op_call qt_last;
qcf_tensor qt_in[QT_MAXIO], qt_out[QT_MAXIO];

qt *qt_init(qt *x, qcf_dtype dt, int rank, const int64_t *shape)
{
	memset(x, 0, sizeof *x);
	x->t.struct_size = sizeof x->t;
	x->t.dtype = dt;
	x->t.rank = rank;
	if (rank > 0)
		memcpy(x->shape, shape, sizeof(int64_t) * (size_t)rank);
	x->t.shape = x->shape;
	x->t.data = x->buf;
	x->t.nbytes = qcf_dtype_nbytes(dt, qref_numel(rank, x->shape));
	return x;
}

void qt_quant_blocked(qt *x, int axis, int block, int count, const float *s, const int32_t *z)
{
	x->q.struct_size = sizeof x->q;
	x->q.axis = axis;
	x->q.count = count;
	x->q.block_size = block;
	memcpy(x->scales, s, sizeof(float) * (size_t)count);
	if (z)
		memcpy(x->zps, z, sizeof(int32_t) * (size_t)count);
	x->q.scales = x->scales;
	x->q.zero_points = x->zps;
	x->t.quant = &x->q;
}

void qt_quant(qt *x, int axis, int count, const float *s, const int32_t *z)
{
	qt_quant_blocked(x, axis, 0, count, s, z);
}

void qt_quant1(qt *x, float s, int32_t z)
{
	qt_quant(x, -1, 1, &s, &z);
}

qt *qt_make(qt *x, qcf_dtype dt, int rank, const int64_t *shape, float s, int32_t z)
{
	qt_init(x, dt, rank, shape);
	if (s > 0)
		qt_quant1(x, s, z);
	return x;
}

void qt_fill(qt *x, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		qref_set(&x->t, i, v[i]);
}

double qt_get(const qt *x, size_t i)
{
	return qref_get(&x->t, i);
}

int qt_equals(const qt *x, const double *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (qt_get(x, i) != want[i]) {
			fprintf(stderr, "\n  element %zu: got %.9g, want %.9g\n", i, qt_get(x, i),
			        want[i]);
			return 0;
		}
	return 1;
}

qcf_attr qt_int(const char *name, int64_t v)
{
	qcf_attr a = {.name = name, .type = QCF_ATTR_INT, .count = 1};
	a.v.i = v;
	return a;
}

qcf_attr qt_flt(const char *name, double v)
{
	qcf_attr a = {.name = name, .type = QCF_ATTR_FLOAT, .count = 1};
	a.v.f = v;
	return a;
}

qcf_attr qt_str(const char *name, const char *v)
{
	qcf_attr a = {.name = name, .type = QCF_ATTR_STRING, .count = 1};
	a.v.s = v;
	return a;
}

qcf_attr qt_ints(const char *name, const int64_t *v, int n)
{
	qcf_attr a = {.name = name, .type = QCF_ATTR_INTS, .count = n};
	a.v.ints = v;
	return a;
}

qref_detail *qt_detail(qref_detail *d, qref_rounding r)
{
	memset(d, 0, sizeof *d);
	d->rounding = r;
	return d;
}

qref_detail *qt_det_init(qt_det *x, qref_rounding r)
{
	memset(x, 0, sizeof *x);
	x->d.rounding = r;
	for (int k = 0; k < 3; k++) {
		x->d.out[k].any = x->any[k];
		x->d.out[k].lo = x->lo[k];
		x->d.out[k].hi = x->hi[k];
		x->d.out[k].step = x->step[k];
	}
	return &x->d;
}

qcf_op_call *qt_call(const char *sem, const char *op, qt **ins, int nin, qt **outs, int nout,
                     const qcf_attr *attrs, int na)
{
	memset(&qt_last, 0, sizeof qt_last);
	for (int i = 0; i < nin; i++)
		qt_in[i] = ins[i]->t;
	for (int i = 0; i < nout; i++)
		qt_out[i] = outs[i]->t;
	qt_last.struct_size = sizeof qt_last;
	qt_last.semantics = sem;
	qt_last.op = op;
	qt_last.n_inputs = nin;
	qt_last.inputs = qt_in;
	qt_last.n_outputs = nout;
	qt_last.outputs = qt_out;
	qt_last.n_attrs = na;
	qt_last.attrs = attrs;
	return &qt_last;
}

qcf_status qt_run(const char *sem, const char *op, qt **ins, int nin, qt **outs, int nout,
                  const qcf_attr *attrs, int na, qref_detail *d)
{
	return qref_execute(qt_call(sem, op, ins, nin, outs, nout, attrs, na), d);
}
