/*
 * bench_kernels: the reference's speed on the shapes that dominate a run, and,
 * built with QCB_HAVE_XNNPACK (`make bench-kernels` does when libxnnpack-dev
 * and libpthreadpool-dev are installed), XNNPACK's on the same shapes, single
 * threaded (no thread pool), with the ratio of their times.
 *
 * Shapes: LiteRT FULLY_CONNECTED 64x1024x1024 (batch 64, 1024 inputs, 1024
 * outputs) and 1x4096x4096, CONV_2D 1x56x56x64 -> 64 3x3 SAME stride 1; int8
 * activations, int8 weights with per-channel scales, int32 bias. GOPS is
 * 2 * MACs / seconds of the best of a few repetitions; the reference's time
 * is one qref_execute (checks, accumulation, requantization, the element
 * details the harness asks for), XNNPACK's one xnn_run_operator after setup
 * (its weight packing is not timed).
 *
 * Usage: bench_kernels [repetitions]   (default 5 for the reference, 4x that for XNNPACK)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference/qref.h"

#ifdef QCB_HAVE_XNNPACK
#include <xnnpack.h>
#endif

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* xorshift64: the same data on every run */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 32);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "bench_kernels: out of memory\n");
		exit(2);
	}
	return p;
}

static int8_t *rand_i8(size_t n)
{
	int8_t *p = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (int8_t)(rnd() >> 24);
	return p;
}

/* One benchmark shape: the tensors of a LiteRT call and what XNNPACK needs. */
typedef struct shape {
	const char *label;
	int conv;                       /* 0: FULLY_CONNECTED, 1: CONV_2D 3x3 SAME stride 1 */
	int64_t n, h, w, cin, cout, kh; /* FC: n rows of cin, h = w = kh = 1 */
	double macs;
} shape;

typedef struct data {
	int8_t *x, *wt, *y;
	int32_t *bias;
	float *w_scales;
	int32_t *w_zps;
	size_t nx, nw, ny;
	float x_scale, y_scale;
	int32_t x_zp, y_zp;
} data;

static void data_make(const shape *s, data *d)
{
	d->nx = (size_t)(s->n * s->h * s->w * s->cin);
	d->nw = (size_t)(s->cout * s->kh * s->kh * s->cin);
	d->ny = (size_t)(s->n * s->h * s->w * s->cout);
	d->x = rand_i8(d->nx);
	d->wt = rand_i8(d->nw);
	d->y = xmalloc(d->ny);
	d->bias = xmalloc((size_t)s->cout * sizeof *d->bias);
	d->w_scales = xmalloc((size_t)s->cout * sizeof *d->w_scales);
	d->w_zps = xmalloc((size_t)s->cout * sizeof *d->w_zps);
	for (int64_t c = 0; c < s->cout; c++) {
		d->bias[c] = (int32_t)(rnd() % 20001) - 10000;
		d->w_scales[c] = 0.002f + 0.001f * (float)(rnd() % 16);
		d->w_zps[c] = 0;
	}
	d->x_scale = 0.05f;
	d->x_zp = 3;
	d->y_scale = 0.5f * (float)s->cin * (float)(s->kh * s->kh) / 64.0f;
	d->y_zp = -2;
}

static void data_free(data *d)
{
	free(d->x);
	free(d->wt);
	free(d->y);
	free(d->bias);
	free(d->w_scales);
	free(d->w_zps);
}

/* The reference's best time for one call, or a negative time when it refuses. */
static double time_reference(const shape *s, data *d, int reps)
{
	int64_t xs[4], ws[4], bs[1] = {s->cout}, ys[4];
	int rank = s->conv ? 4 : 2;
	if (s->conv) {
		int64_t x4[] = {s->n, s->h, s->w, s->cin}, w4[] = {s->cout, s->kh, s->kh, s->cin},
		        y4[] = {s->n, s->h, s->w, s->cout};
		memcpy(xs, x4, sizeof x4);
		memcpy(ws, w4, sizeof w4);
		memcpy(ys, y4, sizeof y4);
	} else {
		xs[0] = ys[0] = s->n;
		xs[1] = ws[1] = s->cin;
		ws[0] = ys[1] = s->cout;
	}
	qcf_quant qx = {sizeof qx,        -1, 1, &d->x_scale, &d->x_zp, NULL, 0, QCF_DTYPE_INVALID,
	                QCF_DTYPE_INVALID};
	qcf_quant qw = {sizeof qw, 0, (int32_t)s->cout,  d->w_scales,      d->w_zps,
	                NULL,      0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	qcf_quant qy = {sizeof qy,        -1, 1, &d->y_scale, &d->y_zp, NULL, 0, QCF_DTYPE_INVALID,
	                QCF_DTYPE_INVALID};
	qcf_tensor in[3] = {
	        {sizeof(qcf_tensor), "input", QCF_INT8, rank, xs, d->x, d->nx, &qx},
	        {sizeof(qcf_tensor), "filter", QCF_INT8, rank, ws, d->wt, d->nw, &qw},
	        {sizeof(qcf_tensor), "bias", QCF_INT32, 1, bs, d->bias,
	         (size_t)s->cout * sizeof(int32_t), NULL},
	};
	qcf_tensor out = {sizeof(qcf_tensor), "output", QCF_INT8, rank, ys, d->y, d->ny, &qy};
	qcf_attr attrs[] = {{"padding", QCF_ATTR_STRING, 1, {.s = "SAME"}}};
	qcf_op_call call = {sizeof call, s->conv ? "CONV_2D" : "FULLY_CONNECTED",
	                    "litert",    3,
	                    in,          1,
	                    &out,        s->conv ? 1 : 0,
	                    attrs,       NULL};
	/* the element details qconform's harness asks for */
	qref_detail det;
	memset(&det, 0, sizeof det);
	det.out[0].any = xmalloc(d->ny);
	det.out[0].lo = xmalloc(d->ny * sizeof(double));
	det.out[0].hi = xmalloc(d->ny * sizeof(double));
	det.out[0].step = xmalloc(d->ny * sizeof(double));
	double best = -1;
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		qcf_status st = qref_execute(&call, &det);
		double t = now() - t0;
		if (st != QCF_OK) {
			fprintf(stderr, "bench_kernels: %s: reference refused: %s\n", s->label,
			        det.message);
			best = -1;
			break;
		}
		if (best < 0 || t < best)
			best = t;
	}
	free(det.out[0].any);
	free(det.out[0].lo);
	free(det.out[0].hi);
	free(det.out[0].step);
	return best;
}

#ifdef QCB_HAVE_XNNPACK
/* XNNPACK's best time for one run of its qc8 (per-channel) convolution: FULLY_CONNECTED is a
 * 1x1 convolution over n one-pixel images, as plugins/xnnpack runs per-channel weights. */
static double time_xnnpack(const shape *s, data *d, int reps)
{
	xnn_operator_t op = NULL;
	uint32_t pad = s->conv ? (uint32_t)(s->kh / 2) : 0;
	enum xnn_status st = xnn_create_convolution2d_nhwc_qc8(
	        pad, pad, pad, pad, (uint32_t)s->kh, (uint32_t)s->kh, 1, 1, 1, 1, 1, (size_t)s->cin,
	        (size_t)s->cout, (size_t)s->cin, (size_t)s->cout, (int8_t)d->x_zp, d->x_scale,
	        d->w_scales, d->wt, d->bias, (int8_t)d->y_zp, d->y_scale, -128, 127, 0, &op);
	if (st == xnn_status_success)
		st = xnn_setup_convolution2d_nhwc_qc8(op, (size_t)s->n, (size_t)s->h, (size_t)s->w,
		                                      d->x, d->y, NULL);
	double best = -1;
	for (int r = 0; r < reps && st == xnn_status_success; r++) {
		double t0 = now();
		st = xnn_run_operator(op, NULL);
		double t = now() - t0;
		if (best < 0 || t < best)
			best = t;
	}
	if (st != xnn_status_success) {
		fprintf(stderr, "bench_kernels: %s: XNNPACK returned status %d\n", s->label,
		        (int)st);
		best = -1;
	}
	if (op)
		xnn_delete_operator(op);
	return best;
}
#endif

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	if (reps < 1)
		reps = 1;
	const shape shapes[] = {
	        {"FULLY_CONNECTED 64x1024x1024 int8 per-channel", 0, 64, 1, 1, 1024, 1024, 1, 0},
	        {"FULLY_CONNECTED 1x4096x4096 int8 per-channel", 0, 1, 1, 1, 4096, 4096, 1, 0},
	        {"CONV_2D 1x56x56x64 -> 64 3x3 SAME stride 1 int8 per-channel", 1, 1, 56, 56, 64,
	         64, 3, 0},
	};
	int have_xnn = 0;
#ifdef QCB_HAVE_XNNPACK
	enum xnn_status init = xnn_initialize(NULL);
	have_xnn = init == xnn_status_success;
	if (!have_xnn)
		printf("bench-kernels: no ratio to XNNPACK: xnn_initialize returned status %d\n",
		       (int)init);
#else
	printf("bench-kernels: no ratio to XNNPACK: built without it (libxnnpack-dev and "
	       "libpthreadpool-dev are not installed)\n");
#endif
	int failed = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		const shape *s = &shapes[i];
		double macs = (double)s->n * (double)s->h * (double)s->w * (double)s->cout *
		              (double)s->cin * (double)(s->kh * s->kh);
		data d;
		data_make(s, &d);
		double tr = time_reference(s, &d, reps);
		if (tr <= 0) {
			failed = 1;
			data_free(&d);
			continue;
		}
		printf("bench-kernels: %-62s reference %7.2f GOPS (%.1f ms)", s->label,
		       2 * macs / tr * 1e-9, tr * 1e3);
		if (have_xnn) {
#ifdef QCB_HAVE_XNNPACK
			double tx = time_xnnpack(s, &d, 4 * reps);
			if (tx > 0)
				printf(", XNNPACK %7.2f GOPS (%.2f ms), reference/XNNPACK time "
				       "%.1fx",
				       2 * macs / tx * 1e-9, tx * 1e3, tr / tx);
			else
				failed = 1;
#endif
		}
		printf("\n");
		fflush(stdout);
		data_free(&d);
	}
	return failed;
}
