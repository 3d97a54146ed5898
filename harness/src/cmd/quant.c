/* qconform quant: a quantization's parameters from each convention's inputs, side by side. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/qparams.h"
#include "cmd/commands.h"
#include "cmd/help.h"
#include "reference/dtype.h"

/* Shortest decimal that reads back as the same double; -0 prints as 0. */
static const char *fd(double v)
{
	static char pool[16][40];
	static unsigned next;
	char *b = pool[next++ % 16];
	v += 0.0;
	for (int p = 1; p <= 17; p++) {
		snprintf(b, sizeof pool[0], "%.*g", p, v);
		if (strtod(b, NULL) == v)
			break;
	}
	return b;
}

/* A float32 value: %.9g (enough to be exact) and its hex. */
static const char *ff(float f)
{
	static char pool[16][64];
	static unsigned next;
	char *b = pool[next++ % 16];
	double v = (double)f + 0.0;
	snprintf(b, sizeof pool[0], "%.9g (%a)", v, v);
	return b;
}

static const char *const nudge_desc[] = {
        [QC_NUDGE_TF] = "TensorFlow FakeQuant Nudge: float32 throughout, zero point rounded "
                        "half away from zero, clamped to [qmin, qmax]",
        [QC_NUDGE_ONNX] = "ONNX DynamicQuantizeLinear: float32, range widened to hold 0, zero "
                          "point clipped then rounded half to even",
        [QC_NUDGE_SYMMETRIC] = "LiteRT symmetric weights: float32, scale = max(|min|,|max|) / "
                               "qmax, zero point 0",
};

static const char *const CONV = "[converter reading: real = (q - mean) / std_dev]";

/* The three forms of one exact (un-nudged) parameter set, in double. */
static void print_exact(FILE *o, double scale, double zp, double mean, double std, double min,
                        double max)
{
	fprintf(o, "  (scale, zero_point)  scale %s  zero_point %s%s\n", fd(scale), fd(zp),
	        zp == floor(zp) ? "" : "  (not an integer: each convention below rounds it)");
	fprintf(o, "  (mean, std_dev)      mean %s  std_dev %s  %s\n", fd(mean), fd(std), CONV);
	fprintf(o, "  (min, max)           min %s  max %s\n", fd(min), fd(max));
}

static void print_nudged(FILE *o, qc_nudge n, int selected, double min, double max, int64_t qmin,
                         int64_t qmax)
{
	qc_qparams p;
	char err[256];
	fprintf(o, "\n%s%s: %s\n", qc_nudge_name(n), selected ? " (selected)" : "", nudge_desc[n]);
	if (qc_qparams_from_min_max(min, max, qmin, qmax, n, &p, err, sizeof err)) {
		fprintf(o, "  not applicable: %s\n", err);
		return;
	}
	fprintf(o, "  (scale, zero_point)  scale %s = %s as double  zero_point %" PRId32 "\n",
	        ff(p.scale), fd(p.scale), p.zero_point);
	if (n == QC_NUDGE_SYMMETRIC)
		fprintf(o, "                       zero point fixed at 0\n");
	else
		fprintf(o, "                       zero point before rounding %s\n",
		        ff((float)p.zero_point_exact));
	fprintf(o, "  (mean, std_dev)      mean %" PRId32 "  std_dev %s  %s\n", p.zero_point,
	        fd(1.0 / p.scale), CONV);
	if (n == QC_NUDGE_TF)
		fprintf(o,
		        "  (min, max)           min %s  max %s  (float32, as Nudge computes "
		        "them)\n",
		        ff((float)p.nudged_min), ff((float)p.nudged_max));
	else
		fprintf(o,
		        "  (min, max)           min %s  max %s  (exact: (qmin - zp) * scale, "
		        "(qmax - zp) * scale)\n",
		        fd(p.nudged_min), fd(p.nudged_max));
	if (n == QC_NUDGE_SYMMETRIC && qmin != -qmax)
		fprintf(o,
		        "                       LiteRT weights use the narrow range [%" PRId64
		        ", %" PRId64 "]: add --narrow-range\n",
		        -qmax, qmax);
	if (n == QC_NUDGE_TF && qmin < 0)
		fprintf(o,
		        "                       TensorFlow itself quantizes to [0, 2^bits - 1] "
		        "(qmin 1 if narrow); the same float32 steps run here on [%" PRId64
		        ", %" PRId64 "]\n",
		        qmin, qmax);
	if (n == QC_NUDGE_TF && p.zero_point > 255)
		fprintf(o,
		        "                       TensorFlow's Nudge keeps the zero point in a "
		        "uint8, "
		        "which cannot hold %" PRId32 " (num_bits > 8)\n",
		        p.zero_point);
	if (n == QC_NUDGE_ONNX && (qmin != 0 || qmax != 255))
		fprintf(o,
		        "                       ONNX defines DynamicQuantizeLinear for uint8 only; "
		        "the same steps run here on [%" PRId64 ", %" PRId64 "]\n",
		        qmin, qmax);
}

static void print_summary(FILE *o, double scale, double zp, double min, double max, qc_nudge sel,
                          int64_t qmin, int64_t qmax)
{
	fprintf(o, "\nside by side        %-24s %-20s %-24s %s\n", "scale", "zero_point", "min",
	        "max");
	fprintf(o, "  %-17s %-24s %-20s %-24s %s\n", "exact", fd(scale), fd(zp), fd(min), fd(max));
	for (int n = QC_NUDGE_TF; n <= QC_NUDGE_SYMMETRIC; n++) {
		qc_qparams p;
		char err[256], name[32], zps[24];
		snprintf(name, sizeof name, "%s%s", qc_nudge_name((qc_nudge)n),
		         n == (int)sel ? " *" : "");
		if (qc_qparams_from_min_max(min, max, qmin, qmax, (qc_nudge)n, &p, err,
		                            sizeof err)) {
			fprintf(o, "  %-17s not applicable\n", name);
			continue;
		}
		snprintf(zps, sizeof zps, "%" PRId32, p.zero_point);
		fprintf(o, "  %-17s %-24s %-20s %-24s %s\n", name, fd(p.scale), zps,
		        fd(p.nudged_min), fd(p.nudged_max));
	}
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("qconform quant: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int parse_double(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && errno == 0 && isfinite(*v);
}

enum { O_DTYPE, O_SCALE, O_ZP, O_MEAN, O_STD, O_MIN, O_MAX, O_NUDGE, O_NARROW, O_COUNT };
static const char *const opt_names[O_COUNT] = {"--dtype", "--scale",   "--zero-point",
                                               "--mean",  "--std-dev", "--min",
                                               "--max",   "--nudge",   "--narrow-range"};

int qc_cmd_quant(int argc, char **argv)
{
	const char *val[O_COUNT] = {0};
	qc_opt_reader rd = {.cmd = "quant", .argc = argc - 1, .argv = argv + 1};
	const char *a, *w;
	for (int k; (k = qc_opt_next(&rd, &a, &w)) != QC_OPT_END;) {
		if (k == QC_OPT_BAD)
			return 2;
		if (k == QC_OPT_WORD)
			return usage_error("unexpected argument '%s' (see --help)", w);
		int o = 0;
		while (o < O_COUNT && strcmp(opt_names[o], a) != 0)
			o++;
		if (o == O_COUNT)
			return qc_opt_unread("quant", a);
		if (val[o])
			return usage_error("%s given twice", a);
		val[o] = w ? w : "1";
	}

	if (!val[O_DTYPE])
		return usage_error("--dtype is required");
	qcf_dtype dt = qref_dtype_parse(val[O_DTYPE]);
	if (dt == QCF_DTYPE_INVALID)
		return usage_error("unknown dtype '%s'", val[O_DTYPE]);
	int narrow = val[O_NARROW] != NULL;
	int64_t qmin, qmax;
	if (!qc_dtype_qrange(dt, narrow, &qmin, &qmax))
		return usage_error("dtype %s is not a quantized integer type (int4, uint4, int8, "
		                   "uint8, int16, uint16, int32)",
		                   val[O_DTYPE]);
	qc_nudge sel = QC_NUDGE_TF;
	if (val[O_NUDGE]) {
		int n = qc_nudge_parse(val[O_NUDGE]);
		if (n < 0)
			return usage_error("unknown --nudge '%s' (tf, onnx, symmetric)",
			                   val[O_NUDGE]);
		sel = (qc_nudge)n;
	}
	int has_sz = val[O_SCALE] || val[O_ZP], has_ms = val[O_MEAN] || val[O_STD];
	int has_mm = val[O_MIN] || val[O_MAX];
	if (has_sz + has_ms + has_mm != 1)
		return usage_error("give exactly one of --scale/--zero-point, --mean/--std-dev, "
		                   "--min/--max");
	int pair[3][2] = {{O_SCALE, O_ZP}, {O_MEAN, O_STD}, {O_MIN, O_MAX}};
	double v[2] = {0, 0};
	for (int f = 0; f < 3; f++) {
		if (!val[pair[f][0]] && !val[pair[f][1]])
			continue;
		/* a zero point left out is 0, as in the specs */
		if (f == 0 && !val[O_ZP])
			val[O_ZP] = "0";
		for (int k = 0; k < 2; k++) {
			const char *s = val[pair[f][k]];
			if (!s)
				return usage_error("%s needs %s", opt_names[pair[f][1 - k]],
				                   opt_names[pair[f][k]]);
			if (!parse_double(s, &v[k]))
				return usage_error("%s: '%s' is not a finite number",
				                   opt_names[pair[f][k]], s);
		}
	}

	char err[256];
	qc_qparams p;
	double min, max, scale_exact, zp_exact;
	FILE *o = stdout;
	const double steps = (double)(qmax - qmin);
	const char *dname = qref_dtype_name(dt);
	if (has_sz) {
		if (v[1] != floor(v[1]))
			return usage_error(
			        "zero point must be an integer, got %s (a fractional zero "
			        "point is a --mean)",
			        val[O_ZP]);
		if (qc_qparams_from_scale_zp(v[0], (int64_t)v[1], qmin, qmax, &p, err, sizeof err))
			return usage_error("%s", err);
	} else if (has_ms) {
		if (qc_qparams_from_mean_std(v[0], v[1], qmin, qmax, &p, err, sizeof err))
			return usage_error("%s", err);
	} else {
		if (!(v[0] < v[1]))
			return usage_error("min %s must be less than max %s", val[O_MIN],
			                   val[O_MAX]);
		if (!isfinite((v[1] - v[0]) / steps) || (v[1] - v[0]) / steps == 0)
			return usage_error("range [%s, %s] is too wide or too narrow", val[O_MIN],
			                   val[O_MAX]);
	}

	fprintf(o, "dtype %s%s: q in [%" PRId64 ", %" PRId64 "], %" PRId64 " levels\n", dname,
	        narrow ? " (narrow range)" : "", qmin, qmax, qmax - qmin + 1);
	fprintf(o, "affine map: real = (q - zero_point) * scale\n");

	if (has_sz) {
		double s = p.scale;
		fprintf(o, "given (scale, zero_point) = (%s, %s)\n", val[O_SCALE], val[O_ZP]);
		if (s != v[0])
			fprintf(o, "note: scale %s is not a float32; kernels see %s\n",
			        val[O_SCALE], ff(p.scale));
		fprintf(o, "note: get_input_details()['quantization'] is (scale, zero_point); the "
		           "converter takes (mean, std_dev): other form, other order\n");
		min = p.nudged_min;
		max = p.nudged_max;
		scale_exact = s;
		zp_exact = p.zero_point;
		fprintf(o, "\nexact (scale in float32 %s)\n", ff(p.scale));
		print_exact(o, s, p.zero_point, p.zero_point, 1.0 / s, min, max);
		fprintf(o, "                       in float32 arithmetic: min %s  max %s\n",
		        ff((float)(qmin - p.zero_point) * p.scale),
		        ff((float)(qmax - p.zero_point) * p.scale));
	} else if (has_ms) {
		double mean = v[0], std = v[1];
		min = ((double)qmin - mean) / std;
		max = ((double)qmax - mean) / std;
		scale_exact = 1.0 / std;
		zp_exact = mean;
		fprintf(o, "given (mean, std_dev) = (%s, %s)  %s\n", val[O_MEAN], val[O_STD], CONV);
		fprintf(o, "\nexact %s\n", CONV);
		print_exact(o, 1.0 / std, mean, mean, std, min, max);
		fprintf(o,
		        "  derivation: scale = 1/std_dev, zero_point = mean, min = (qmin - mean) "
		        "/ std_dev, max = (qmax - mean) / std_dev\n");
		fprintf(o,
		        "  stored from (mean, std_dev) itself: scale %s  zero_point %" PRId32
		        "%s\n",
		        ff(p.scale), p.zero_point,
		        mean == floor(mean) ? "" : " (the mean rounded half away from zero)");
		fprintf(o, "\nnote: some texts write the way back as min = -mean*std_dev, max = "
		           "(255 - mean)*std_dev.\n"
		           "  That contradicts the forward formula std_dev = 255/(max - min): "
		           "range (-1, 1) gives\n"
		           "  mean 127.5, std_dev 127.5, and -127.5*127.5 is not -1. It holds only "
		           "where std_dev means\n"
		           "  the scale, as those texts also write it (q = f/std_dev + "
		           "mean, "
		           "f = (q - mean)*std_dev).\n"
		           "  The consistent way back is min = -mean/std_dev (uint8); in general "
		           "min = (qmin - mean)/std_dev.\n");
		fprintf(o, "\n[the other reading: std_dev is the scale]\n");
		fprintf(o, "  (scale, zero_point)  scale %s  zero_point %s  [the other reading]\n",
		        fd(std), fd(mean));
		fprintf(o,
		        "  (min, max)           min %s  max %s  [the other reading: (qmin - "
		        "mean)*std_dev, (qmax - mean)*std_dev]\n",
		        fd(((double)qmin - mean) * std), fd(((double)qmax - mean) * std));
		fprintf(o, "  (mean, std_dev)      mean %s  std_dev %s  %s\n", fd(mean),
		        fd(1.0 / std), CONV);
	} else {
		min = v[0];
		max = v[1];
		double std = steps / (max - min);
		double mean = ((double)qmin * max - (double)qmax * min) / (max - min);
		scale_exact = (max - min) / steps;
		zp_exact = mean;
		fprintf(o, "given (min, max) = (%s, %s): a float range\n", val[O_MIN], val[O_MAX]);
		fprintf(o, "\nexact (q = qmin at min, q = qmax at max)\n");
		print_exact(o, scale_exact, mean, mean, std, min, max);
		fprintf(o, "  derivation: std_dev = (qmax - qmin)/(max - min), mean = qmin - "
		           "min*std_dev = (qmin*max - qmax*min)/(max - min)\n");
	}

	fprintf(o, "\nnudged: (min, max) = (%s, %s) mapped by each convention\n", fd(min), fd(max));
	for (int n = QC_NUDGE_TF; n <= QC_NUDGE_SYMMETRIC; n++)
		print_nudged(o, (qc_nudge)n, n == (int)sel, min, max, qmin, qmax);
	print_summary(o, scale_exact, zp_exact, min, max, sel, qmin, qmax);
	if (has_ms) {
		/* two zero points on one screen: say which is which */
		qc_qparams n;
		char nerr[256];
		if (qc_qparams_from_min_max(min, max, qmin, qmax, sel, &n, nerr, sizeof nerr) ==
		            0 &&
		    n.zero_point != p.zero_point)
			fprintf(o,
			        "\nzero point %" PRId32 " or %" PRId32 "? %" PRId32
			        " is the mean rounded, what a model stores when given (mean, "
			        "std_dev);\n  %" PRId32 " is what %s derives from the range (min, "
			        "max) the mean and std_dev "
			        "describe\n  (its float32 arithmetic puts the real zero just below "
			        "%s). The same kernel gives different\n  outputs for the two: "
			        "quantize "
			        "with the one the model holds.\n",
			        p.zero_point, n.zero_point, p.zero_point, n.zero_point,
			        qc_nudge_name(sel), fd(zp_exact));
	}
	fflush(o);
	return 0;
}
