/* qconform compare-conventions: one value through every framework's quantization, side by side. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cases/qparams.h"
#include "cmd/commands.h"
#include "cmd/help.h"
#include "reference/dtype.h"
#include "tools/conventions.h"

/* ---- the command ---- */

static int parse_num(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && errno == 0;
}

static void print_why(unsigned why, int nudged)
{
	const char *sep = "";
	if (why & QC_WHY_TIE_MUL) {
		printf("%stie in x*(1/s)", sep);
		sep = ", ";
	}
	if (why & QC_WHY_TIE_DIV) {
		printf("%stie in x/s", sep);
		sep = ", ";
	}
	if (why & QC_WHY_MUL_DIV) {
		printf("%sx*(1/s) vs x/s", sep);
		sep = ", ";
	}
	if (why & QC_WHY_ZP_FIRST) {
		printf("%szp before rounding", sep);
		sep = ", ";
	}
	if (why & (QC_WHY_NUDGE | QC_WHY_TF_PATH))
		printf("%s%s", sep, nudged ? "tf nudged range" : "tf (x - min)*(1/s) path");
}

int qc_cmd_compare_conventions(int argc, char **argv)
{
	qc_conv_params p = {QCF_DTYPE_INVALID, 0, 0.0f, 0};
	int have_scale = 0, have_zp = 0, all = 0;
	size_t nv = 0;
	float *values = qc_xcalloc((size_t)argc + 1, sizeof *values);
	int status = 2;
	qc_opt_reader rd = {.cmd = "compare-conventions", .argc = argc - 1, .argv = argv + 1};
	const char *a, *w;
	for (int k; (k = qc_opt_next(&rd, &a, &w)) != QC_OPT_END;) {
		double v;
		if (k == QC_OPT_BAD) {
			goto out;
		} else if (k == QC_OPT_WORD) {
			if (!parse_num(w, &v)) {
				fprintf(stderr,
				        "qconform compare-conventions: '%s' is not a number "
				        "(qconform compare-conventions --help)\n",
				        w);
				goto out;
			}
			values[nv++] = (float)v;
		} else if (!strcmp(a, "--dtype")) {
			p.dtype = qref_dtype_parse(w);
		} else if (!strcmp(a, "--scale")) {
			if (!parse_num(w, &v)) {
				fprintf(stderr,
				        "qconform compare-conventions: --scale: '%s' is not a "
				        "number\n",
				        w);
				goto out;
			}
			p.scale = (float)v;
			have_scale = 1;
		} else if (!strcmp(a, "--zero-point")) {
			if (!parse_num(w, &v) || v != floor(v) || fabs(v) > 65535) {
				fprintf(stderr,
				        "qconform compare-conventions: --zero-point: '%s' is "
				        "not an integer in [-65535, 65535]\n",
				        w);
				goto out;
			}
			p.zero_point = (int32_t)v;
			have_zp = 1;
		} else if (!strcmp(a, "--narrow-range")) {
			p.narrow_range = 1;
		} else if (!strcmp(a, "--all")) {
			all = 1;
		} else {
			qc_opt_unread("compare-conventions", a);
			goto out;
		}
	}
	if (!qc_conv_bits(p.dtype) || !have_scale || !have_zp) {
		fprintf(stderr, "qconform compare-conventions: --dtype (int8 uint8 int16 uint16 "
		                "int4 uint4), --scale and --zero-point are required\n");
		goto out;
	}
	int probed = nv == 0;
	if (probed) {
		free(values);
		size_t cap = 5 + 4 * (QC_CONV_PROBE_CODES + 2);
		values = qc_xcalloc(cap, sizeof *values);
		nv = (size_t)qc_conventions_probe(&p, values, cap);
	}
	qc_conv_row *rows = qc_xcalloc(nv + 1, sizeof *rows);
	char err[256];
	float tf_scale;
	double tf_zp;
	if (qc_conventions_run(&p, values, nv, rows, &tf_scale, &tf_zp, err, sizeof err) != 0) {
		fprintf(stderr, "qconform compare-conventions: %s\n", err);
		free(rows);
		goto out;
	}
	int64_t qmin, qmax;
	qc_dtype_qrange(p.dtype, p.narrow_range, &qmin, &qmax);
	int nudged = tf_scale != p.scale || tf_zp != (double)p.zero_point;
	printf("params: %s [%lld, %lld], scale %.9g (%a), zero point %d\n",
	       qref_dtype_name(p.dtype), (long long)qmin, (long long)qmax, (double)p.scale,
	       (double)p.scale, p.zero_point);
	printf("columns (each is the reference kernel of that framework):\n"
	       "  torch      zp + nearbyint(x * (1.0f/scale)): reciprocal, ties to even, zp after\n"
	       "             rounding (fake_quantize_per_tensor_affine, CPU; LiteRT's optimized\n"
	       "             QUANTIZE kernels compute the same)\n"
	       "  torch-fzp  lrintf(zp + x * (1.0f/scale)): zp before rounding (float zero point,\n"
	       "             fake_quantize_per_channel_affine; torch's CUDA kernels)\n"
	       "  onnx       rint(x / scale) + zp: float32 division, ties to even "
	       "(QuantizeLinear)\n"
	       "  litert     round_half_away(x / scale) + zp (QUANTIZE, reference kernel)\n"
	       "  tf         fake_quant_with_min_max_args on [(qmin-zp)*scale, (qmax-zp)*scale],\n"
	       "             nudged in float32: scale %.9g, zero point %.9g%s; then\n"
	       "             floor((clamp(x) - nudged_min) * (1/scale) + 0.5): ties half up\n",
	       (double)tf_scale, tf_zp, nudged ? " (NUDGED: not the given params)" : "");
	if (p.narrow_range)
		printf("  (onnx and litert have no narrow range: their columns are empty)\n");
	printf("%-16s %-16s %-16s", "x", "x*(1/s)", "x/s");
	for (int c = 0; c < QC_CONV_COUNT; c++)
		printf(" %9s", qc_conv_name((qc_conv)c));
	printf("  why\n");
	size_t differ = 0, counts[6] = {0};
	const float inv = 1.0f / p.scale;
	for (size_t i = 0; i < nv; i++) {
		const qc_conv_row *r = &rows[i];
		differ += r->why != 0;
		for (int b = 0; b < 6; b++)
			counts[b] += (r->why >> b) & 1;
		if (!all && !r->why)
			continue;
		printf("%-16.9g %-16.9g %-16.9g", (double)r->x, (double)(r->x * inv),
		       (double)(r->x / p.scale));
		for (int c = 0; c < QC_CONV_COUNT; c++) {
			if (r->has[c])
				printf(" %9lld", (long long)r->q[c]);
			else
				printf(" %9s", "-");
		}
		printf("  ");
		print_why(r->why, nudged);
		printf("\n");
	}
	printf("why: a tie sits exactly between two codes, so the tie rule decides (torch, onnx: "
	       "to "
	       "even; litert: away from zero; tf: up); x*(1/s) vs x/s: the reciprocal product and "
	       "the quotient round to different codes; zp before rounding: zp + x*(1/s) rounded "
	       "as one float (torch-fzp) moves a tie or loses bits; tf: its own (x - nudged_min) "
	       "arithmetic or nudged range\n");
	printf("%zu %s values: %zu where the conventions disagree (tie in x*(1/s) %zu, tie in x/s "
	       "%zu, x*(1/s) vs x/s %zu, zp before rounding %zu, tf %zu)\n",
	       nv, probed ? "probe" : "given", differ, counts[0], counts[1], counts[2], counts[3],
	       counts[4] + counts[5]);
	free(rows);
	status = 0;
out:
	free(values);
	return status;
}
