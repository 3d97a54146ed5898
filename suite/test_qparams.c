/* Tests for harness/src/cases/qparams.c (the three forms of the parameters) and `qconform quant`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/qparams.h"
#include "cmd/commands.h"
#include "qct.h"
#include "reference/dtype.h"

/* ---- running qc_cmd_quant with stdout and stderr captured ---------------- */

static char out_buf[32768], err_buf[4096];

static void slurp(FILE *f, char *buf, size_t size)
{
	rewind(f);
	size_t n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
}

static int run_quant(const char *const *args)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = (char *)"quant";
	for (; *args && argc < 31; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	FILE *fo = tmpfile(), *fe = tmpfile();
	CU_ASSERT_FATAL(fo != NULL && fe != NULL);
	int so = dup(1), se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	int rc = qc_cmd_quant(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(fo, out_buf, sizeof out_buf);
	slurp(fe, err_buf, sizeof err_buf);
	return rc;
}

#define HAS(s) CU_ASSERT_PTR_NOT_NULL(strstr(out_buf, (s)))

/* exit 2, nothing on stdout, one line "qconform quant: ..." containing want */
static void expect_usage_error(const char *const *args, const char *want)
{
	CU_ASSERT_EQUAL(run_quant(args), 2);
	CU_ASSERT_STRING_EQUAL(out_buf, "");
	CU_ASSERT_EQUAL(strncmp(err_buf, "qconform quant: ", 16), 0);
	size_t n = strlen(err_buf);
	CU_ASSERT(n > 0 && err_buf[n - 1] == '\n' && strchr(err_buf, '\n') == err_buf + n - 1);
	if (!strstr(err_buf, want)) {
		fprintf(stderr, "\nexpected '%s' in: %s", want, err_buf);
		CU_FAIL("error message");
	}
}

/* ---- library functions --------------------------------------------------- */

static void test_qrange(void)
{
	int64_t lo, hi;
	CU_ASSERT(qc_dtype_qrange(QCF_UINT8, 0, &lo, &hi) && lo == 0 && hi == 255);
	CU_ASSERT(qc_dtype_qrange(QCF_UINT8, 1, &lo, &hi) && lo == 1 && hi == 255);
	CU_ASSERT(qc_dtype_qrange(QCF_INT8, 0, &lo, &hi) && lo == -128 && hi == 127);
	CU_ASSERT(qc_dtype_qrange(QCF_INT8, 1, &lo, &hi) && lo == -127 && hi == 127);
	CU_ASSERT(qc_dtype_qrange(QCF_INT16, 0, &lo, &hi) && lo == -32768 && hi == 32767);
	CU_ASSERT(qc_dtype_qrange(QCF_INT4, 0, &lo, &hi) && lo == -8 && hi == 7);
	CU_ASSERT(qc_dtype_qrange(QCF_INT32, 0, &lo, &hi) && lo == INT32_MIN && hi == INT32_MAX);
	CU_ASSERT_FALSE(qc_dtype_qrange(QCF_FLOAT32, 0, &lo, &hi));
	CU_ASSERT_FALSE(qc_dtype_qrange(QCF_BOOL, 0, &lo, &hi));
	CU_ASSERT_FALSE(qc_dtype_qrange(QCF_INT64, 0, &lo, &hi));
	CU_ASSERT_EQUAL(qc_nudge_parse("tf"), QC_NUDGE_TF);
	CU_ASSERT_EQUAL(qc_nudge_parse("onnx"), QC_NUDGE_ONNX);
	CU_ASSERT_EQUAL(qc_nudge_parse("symmetric"), QC_NUDGE_SYMMETRIC);
	CU_ASSERT_EQUAL(qc_nudge_parse("TF"), -1);
	CU_ASSERT_STRING_EQUAL(qc_nudge_name(QC_NUDGE_ONNX), "onnx");
}

static void test_scale_zp(void)
{
	qc_qparams p;
	char err[256];
	/* (scale 0.003921568859368563, zp 0) -> (0, 1) */
	CU_ASSERT_EQUAL(
	        qc_qparams_from_scale_zp(0.003921568859368563, 0, 0, 255, &p, err, sizeof err), 0);
	CU_ASSERT_EQUAL((double)p.scale, 0.003921568859368563);
	CU_ASSERT_EQUAL(p.scale, 1.0f / 255.0f);
	CU_ASSERT_EQUAL(p.nudged_min, 0.0);
	CU_ASSERT_EQUAL((float)p.nudged_max, 1.0f);
	CU_ASSERT_EQUAL(255.0f * p.scale, 1.0f); /* exactly 1 in float32 arithmetic */
	/* (scale 0.7843137383460999, zp 128) -> exactly -128 s and 127 s */
	CU_ASSERT_EQUAL(
	        qc_qparams_from_scale_zp(0.7843137383460999, 128, 0, 255, &p, err, sizeof err), 0);
	CU_ASSERT_EQUAL(p.zero_point, 128);
	CU_ASSERT_EQUAL(p.nudged_min, -128.0 * 0.7843137383460999);
	CU_ASSERT_EQUAL(p.nudged_max, 127.0 * 0.7843137383460999);
	CU_ASSERT(fabs(p.nudged_min + 100.39) < 0.005 && fabs(p.nudged_max - 99.61) < 0.005);
}

static void test_mean_std(void)
{
	qc_qparams p;
	char err[256];
	/* converter: zero_point = mean, scale = 1 / std_dev */
	CU_ASSERT_EQUAL(qc_qparams_from_mean_std(0, 255, 0, 255, &p, err, sizeof err), 0);
	CU_ASSERT_EQUAL(p.zero_point, 0);
	CU_ASSERT_EQUAL((double)p.scale, 0.003921568859368563);
	CU_ASSERT_EQUAL((float)p.nudged_max, 1.0f);
	CU_ASSERT_EQUAL(qc_qparams_from_mean_std(0, 1, 0, 255, &p, err, sizeof err), 0);
	CU_ASSERT_EQUAL(p.scale, 1.0f);
	CU_ASSERT_EQUAL(p.nudged_max, 255.0);
	/* a non-integer mean keeps its exact value and rounds half away from zero */
	CU_ASSERT_EQUAL(qc_qparams_from_mean_std(127.5, 127.5, 0, 255, &p, err, sizeof err), 0);
	CU_ASSERT_EQUAL(p.zero_point_exact, 127.5);
	CU_ASSERT_EQUAL(p.zero_point, 128);
	CU_ASSERT_EQUAL(p.scale, (float)(1 / 127.5));
}

static void test_min_max(void)
{
	qc_qparams p;
	char err[256];
	/* range (0, 255): scale 1, zp 0 under every asymmetric convention */
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(0, 255, 0, 255, QC_NUDGE_TF, &p, err, sizeof err),
	                0);
	CU_ASSERT(p.scale == 1.0f && p.zero_point == 0);
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(0, 1, 0, 255, QC_NUDGE_TF, &p, err, sizeof err), 0);
	CU_ASSERT(p.scale == 1.0f / 255.0f && p.zero_point == 0);
	/* min -1, max 1, uint8, tf: float32 zp_from_min 127.499992 -> 127, not 128 */
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(-1, 1, 0, 255, QC_NUDGE_TF, &p, err, sizeof err),
	                0);
	CU_ASSERT_EQUAL(p.zero_point, 127);
	CU_ASSERT_EQUAL(p.zero_point_exact, (double)0x1.fdfffep+6f);
	CU_ASSERT_EQUAL((float)p.zero_point_exact, 127.499992f);
	CU_ASSERT_EQUAL(p.scale, 2.0f / 255.0f);
	CU_ASSERT_EQUAL(p.nudged_min, (double)(-127.0f * (2.0f / 255.0f)));
	CU_ASSERT_EQUAL(p.nudged_max, (double)(128.0f * (2.0f / 255.0f)));
	/* onnx -253..257: scale 2, zp_from_min 126.5: half to even 126; tf half away 127 */
	CU_ASSERT_EQUAL(
	        qc_qparams_from_min_max(-253, 257, 0, 255, QC_NUDGE_ONNX, &p, err, sizeof err), 0);
	CU_ASSERT(p.scale == 2.0f && p.zero_point == 126 && p.zero_point_exact == 126.5);
	CU_ASSERT_EQUAL(p.nudged_min, -252.0);
	CU_ASSERT_EQUAL(
	        qc_qparams_from_min_max(-253, 257, 0, 255, QC_NUDGE_TF, &p, err, sizeof err), 0);
	CU_ASSERT(p.scale == 2.0f && p.zero_point == 127);
	CU_ASSERT(p.nudged_min == -254.0 && p.nudged_max == 256.0);
	/* onnx widens the range to hold 0; an all-zero range has scale 1 */
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(2, 4, 0, 255, QC_NUDGE_ONNX, &p, err, sizeof err),
	                0);
	CU_ASSERT(p.scale == 4.0f / 255.0f && p.zero_point == 0);
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(0, 0, 0, 255, QC_NUDGE_ONNX, &p, err, sizeof err),
	                0);
	CU_ASSERT(p.scale == 1.0f && p.zero_point == 0);
	/* tf clamps zp_from_min into [qmin, qmax] */
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(1, 3, 0, 255, QC_NUDGE_TF, &p, err, sizeof err), 0);
	CU_ASSERT_EQUAL(p.zero_point, 0);
	/* tf on int8 and with narrow range (qmin 1) */
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(-1, 1, -128, 127, QC_NUDGE_TF, &p, err, sizeof err),
	                0);
	CU_ASSERT_EQUAL(p.zero_point, -1);
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(-1, 1, 1, 255, QC_NUDGE_TF, &p, err, sizeof err),
	                0);
	CU_ASSERT(p.scale == 2.0f / 254.0f && p.zero_point == 128);
	/* symmetric: scale = max(|min|, |max|) / qmax, zp 0 */
	CU_ASSERT_EQUAL(
	        qc_qparams_from_min_max(-1, 2, -127, 127, QC_NUDGE_SYMMETRIC, &p, err, sizeof err),
	        0);
	CU_ASSERT(p.scale == 2.0f / 127.0f && p.zero_point == 0);
	CU_ASSERT_EQUAL(p.nudged_min, -127.0 * (double)(2.0f / 127.0f));
	CU_ASSERT_EQUAL(
	        qc_qparams_from_min_max(0, 0, -127, 127, QC_NUDGE_SYMMETRIC, &p, err, sizeof err),
	        0);
	CU_ASSERT_EQUAL(p.scale, 1.0f);
	CU_ASSERT_EQUAL(qc_qparams_from_min_max(-3, 1, -32768, 32767, QC_NUDGE_SYMMETRIC, &p, err,
	                                        sizeof err),
	                0);
	CU_ASSERT_EQUAL(p.scale, 3.0f / 32767.0f);
}

#define ERR_HAS(call, want)                                                                        \
	do {                                                                                       \
		err[0] = 0;                                                                        \
		CU_ASSERT_EQUAL((call), -1);                                                       \
		CU_ASSERT_PTR_NOT_NULL(strstr(err, (want)));                                       \
		CU_ASSERT_PTR_NULL(strchr(err, '\n'));                                             \
	} while (0)

static void test_errors(void)
{
	qc_qparams p;
	char err[256];
	ERR_HAS(qc_qparams_from_scale_zp(0, 0, 0, 255, &p, err, sizeof err),
	        "scale must be positive and finite");
	ERR_HAS(qc_qparams_from_scale_zp(-0.5, 0, 0, 255, &p, err, sizeof err),
	        "scale must be positive and finite");
	ERR_HAS(qc_qparams_from_scale_zp(NAN, 0, 0, 255, &p, err, sizeof err),
	        "scale must be positive and finite");
	ERR_HAS(qc_qparams_from_scale_zp(INFINITY, 0, 0, 255, &p, err, sizeof err),
	        "scale must be positive and finite");
	ERR_HAS(qc_qparams_from_scale_zp(1e-50, 0, 0, 255, &p, err, sizeof err),
	        "underflows to 0 in float32");
	ERR_HAS(qc_qparams_from_scale_zp(1e39, 0, 0, 255, &p, err, sizeof err),
	        "overflows float32");
	ERR_HAS(qc_qparams_from_scale_zp(0.1, 256, 0, 255, &p, err, sizeof err),
	        "zero point 256 outside [0, 255]");
	ERR_HAS(qc_qparams_from_scale_zp(0.1, -129, -128, 127, &p, err, sizeof err),
	        "zero point -129 outside [-128, 127]");
	ERR_HAS(qc_qparams_from_scale_zp(0.1, 0, 5, 5, &p, err, sizeof err), "empty range [5, 5]");
	ERR_HAS(qc_qparams_from_mean_std(0, 0, 0, 255, &p, err, sizeof err),
	        "std_dev must be positive and finite");
	ERR_HAS(qc_qparams_from_mean_std(NAN, 1, 0, 255, &p, err, sizeof err),
	        "mean must be finite");
	ERR_HAS(qc_qparams_from_mean_std(300, 1, 0, 255, &p, err, sizeof err),
	        "mean 300 (the zero point) outside [0, 255]");
	ERR_HAS(qc_qparams_from_min_max(1, -1, 0, 255, QC_NUDGE_TF, &p, err, sizeof err),
	        "min 1 is greater than max -1");
	ERR_HAS(qc_qparams_from_min_max(NAN, 1, 0, 255, QC_NUDGE_ONNX, &p, err, sizeof err),
	        "must be finite");
	ERR_HAS(qc_qparams_from_min_max(0.5, 0.5, 0, 255, QC_NUDGE_TF, &p, err, sizeof err),
	        "tf: min must be less than max");
	ERR_HAS(qc_qparams_from_min_max(-1, 1, 0, 255, QC_NUDGE_SYMMETRIC, &p, err, sizeof err),
	        "symmetric: needs a signed range");
	ERR_HAS(qc_qparams_from_min_max(-1e39, 1, 0, 255, QC_NUDGE_TF, &p, err, sizeof err),
	        "overflow float32");
	ERR_HAS(qc_qparams_from_min_max(-1, 1, 0, 255, (qc_nudge)7, &p, err, sizeof err),
	        "unknown nudging convention");
}

/* ---- qconform quant ---------------------------------------------------- */

static void test_cmd_ranges(void)
{
	/* range (0, 255): mean 0, std_dev 1 */
	CU_ASSERT_EQUAL(
	        run_quant((const char *[]){"--dtype", "uint8", "--min", "0", "--max", "255", NULL}),
	        0);
	HAS("(mean, std_dev)      mean 0  std_dev 1  [converter reading");
	/* range (0, 1): mean 0, std_dev 255 */
	CU_ASSERT_EQUAL(
	        run_quant((const char *[]){"--dtype", "uint8", "--min", "0", "--max", "1", NULL}),
	        0);
	HAS("(mean, std_dev)      mean 0  std_dev 255  [converter reading");
	HAS("scale 0.00392156886 (0x1.010102p-8) = 0.003921568859368563 as double");
	/* range (-1, 1): mean 127.5, std_dev 127.5, exact and nudged zero points */
	CU_ASSERT_EQUAL(
	        run_quant((const char *[]){"--dtype", "uint8", "--min", "-1", "--max", "1", NULL}),
	        0);
	HAS("(mean, std_dev)      mean 127.5  std_dev 127.5  [converter reading");
	HAS("zero_point 127.5  (not an integer");
	HAS("tf (selected)");
	HAS("zero point before rounding 127.499992 (0x1.fdfffep+6)");
	HAS("zero_point 127\n");
	HAS("min -0.996078491 (-0x1.fdfep-1)  max 1.00392163 (0x1.010102p+0)  (float32");
	HAS("  exact             0.00784313725490196      127.5");
	HAS("  tf *              0.007843137718737125     127 ");
	HAS("  symmetric         not applicable");
	HAS("not applicable: symmetric: needs a signed range, got [0, 255]");
	/* onnx -253..257: zp 126 vs tf 127 */
	CU_ASSERT_EQUAL(run_quant((const char *[]){"--dtype", "uint8", "--min", "-253", "--max",
	                                           "257", "--nudge", "onnx", NULL}),
	                0);
	HAS("onnx (selected)");
	HAS("  tf                2                        127                  -254 ");
	HAS("  onnx *            2                        126                  -252 ");
	HAS("zero point before rounding 126.5 (0x1.fap+6)");
}

static void test_cmd_scale_zp(void)
{
	CU_ASSERT_EQUAL(
	        run_quant((const char *[]){"--dtype", "uint8", "--scale", "0.003921568859368563",
	                                   "--zero-point", "0", NULL}),
	        0);
	HAS("(min, max)           min 0  max 1.0000000591389835\n");
	HAS("in float32 arithmetic: min 0 (0x0p+0)  max 1 (0x1p+0)");
	HAS("get_input_details()['quantization'] is (scale, zero_point)");
	HAS("mean 0  std_dev 254.9999849195601  [converter reading");
	CU_ASSERT_PTR_NULL(strstr(out_buf, "is not a float32"));
	/* exactly -128 s and 127 s */
	CU_ASSERT_EQUAL(
	        run_quant((const char *[]){"--dtype", "uint8", "--scale", "0.7843137383460999",
	                                   "--zero-point", "128", NULL}),
	        0);
	/* the printed numbers read back as exactly -128 s and 127 s */
	const char *line = strstr(out_buf, "(min, max)           min ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	char *end;
	double mn = strtod(line + 25, &end);
	CU_ASSERT_EQUAL(mn, -128.0 * 0.7843137383460999);
	CU_ASSERT_EQUAL(strncmp(end, "  max ", 6), 0);
	CU_ASSERT_EQUAL(strtod(end + 6, NULL), 127.0 * 0.7843137383460999);
	HAS("min -100.39215850830078  max 99.60784476995468");
	HAS("mean 128  std_dev");
	/* a scale that is not a float32 is named */
	CU_ASSERT_EQUAL(run_quant((const char *[]){"--dtype", "int8", "--scale=0.1",
	                                           "--zero_point=-3", NULL}),
	                0);
	HAS("dtype int8: q in [-128, 127], 256 levels");
	HAS("note: scale 0.1 is not a float32; kernels see 0.100000001 (0x1.99999ap-4)");
}

static void test_cmd_mean_std(void)
{
	CU_ASSERT_EQUAL(run_quant((const char *[]){"--dtype", "uint8", "--mean", "127.5",
	                                           "--std-dev", "127.5", NULL}),
	                0);
	/* converter reading */
	HAS("given (mean, std_dev) = (127.5, 127.5)  [converter reading: real = (q - mean) / "
	    "std_dev]");
	HAS("(min, max)           min -1  max 1\n");
	HAS("stored from (mean, std_dev) itself: scale 0.00784313772 (0x1.010102p-7)  zero_point "
	    "128 (the mean rounded half away from zero)");
	/* the contradiction of the other texts' way back, and their reading, labelled */
	HAS("note: some texts write the way back as min = -mean*std_dev");
	HAS("contradicts the forward formula");
	HAS("The consistent way back is min = -mean/std_dev");
	HAS("[the other reading: std_dev is the scale]");
	HAS("scale 127.5  zero_point 127.5  [the other reading]");
	HAS("min -16256.25  max 16256.25  [the other reading");
	/* nudged from the converter's range (-1, 1) */
	HAS("zero point before rounding 127.499992");
	/* (0, 255) std 255 -> range (0, 1) */
	CU_ASSERT_EQUAL(run_quant((const char *[]){"--dtype", "uint8", "--mean", "0", "--std-dev",
	                                           "255", NULL}),
	                0);
	HAS("(min, max)           min 0  max 1\n");
	HAS("min 0  max 65025  [the other reading");
	CU_ASSERT_EQUAL(run_quant((const char *[]){"--dtype", "uint8", "--mean", "0", "--std-dev",
	                                           "1", NULL}),
	                0);
	HAS("(min, max)           min 0  max 255\n");
}

static void test_cmd_other_dtypes(void)
{
	CU_ASSERT_EQUAL(run_quant((const char *[]){"--dtype", "int16", "--min", "-3", "--max", "1",
	                                           "--nudge", "symmetric", NULL}),
	                0);
	HAS("dtype int16: q in [-32768, 32767], 65536 levels");
	HAS("symmetric (selected)");
	HAS("LiteRT weights use the narrow range [-32767, 32767]: add --narrow-range");
	CU_ASSERT_EQUAL(
	        run_quant((const char *[]){"--dtype", "int8", "--narrow-range", "--min", "-1",
	                                   "--max", "2", "--nudge", "symmetric", NULL}),
	        0);
	HAS("dtype int8 (narrow range): q in [-127, 127], 255 levels");
	HAS("  symmetric *       0.015748031437397003     0 ");
	CU_ASSERT_PTR_NULL(strstr(out_buf, "add --narrow-range"));
	CU_ASSERT_EQUAL(
	        run_quant((const char *[]){"--dtype", "uint4", "--min", "0", "--max", "1.5", NULL}),
	        0);
	HAS("q in [0, 15], 16 levels");
	HAS("scale 0.1 ");
	/* the zero point defaults to 0, as in the specs */
	CU_ASSERT_EQUAL(run_quant((const char *[]){"--dtype", "int8", "--scale", "0.5", NULL}), 0);
	HAS("given (scale, zero_point) = (0.5, 0)");
	/* (mean, std_dev) 127.5: which zero point is which */
	CU_ASSERT_EQUAL(run_quant((const char *[]){"--dtype", "uint8", "--mean", "127.5",
	                                           "--std-dev", "127.5", NULL}),
	                0);
	HAS("zero point 128 or 127? 128 is the mean rounded");
}

static void test_cmd_errors(void)
{
	expect_usage_error((const char *[]){NULL}, "--dtype is required");
	expect_usage_error((const char *[]){"--dtype", "float32", "--min", "0", "--max", "1", NULL},
	                   "dtype float32 is not a quantized integer type");
	expect_usage_error((const char *[]){"--dtype", "uint9", "--min", "0", "--max", "1", NULL},
	                   "unknown dtype 'uint9'");
	expect_usage_error((const char *[]){"--dtype", "uint8", NULL}, "give exactly one of");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--scale", "1", "--zero-point", "0",
	                                    "--min", "0", "--max", "1", NULL},
	                   "give exactly one of");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--zero-point", "1", NULL},
	                   "--zero-point needs --scale");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--std-dev", "1", NULL},
	                   "--std-dev needs --mean");
	expect_usage_error(
	        (const char *[]){"--dtype", "uint8", "--scale", "abc", "--zero-point", "0", NULL},
	        "--scale: 'abc' is not a finite number");
	expect_usage_error(
	        (const char *[]){"--dtype", "uint8", "--scale", "inf", "--zero-point", "0", NULL},
	        "is not a finite number");
	expect_usage_error(
	        (const char *[]){"--dtype", "uint8", "--scale", "0.5", "--zero-point", "1.5", NULL},
	        "zero point must be an integer, got 1.5");
	expect_usage_error(
	        (const char *[]){"--dtype", "uint8", "--scale", "0", "--zero-point", "0", NULL},
	        "scale must be positive and finite");
	expect_usage_error(
	        (const char *[]){"--dtype", "uint8", "--scale", "0.5", "--zero-point", "256", NULL},
	        "zero point 256 outside [0, 255]");
	expect_usage_error(
	        (const char *[]){"--dtype", "uint8", "--mean", "-1", "--std-dev", "1", NULL},
	        "outside [0, 255]");
	expect_usage_error(
	        (const char *[]){"--dtype", "uint8", "--mean", "1", "--std-dev", "-1", NULL},
	        "std_dev must be positive");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--min", "1", "--max", "-1", NULL},
	                   "min 1 must be less than max -1");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--min", "1", "--max", "1", NULL},
	                   "must be less than max");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--min", "0", "--max", "1",
	                                    "--nudge", "tflite", NULL},
	                   "unknown --nudge 'tflite'");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--bogus", NULL},
	                   "unknown option --bogus");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--min", NULL},
	                   "missing value after --min");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--dtype", "int8", NULL},
	                   "--dtype given twice");
	expect_usage_error((const char *[]){"--dtype", "uint8", "stray", NULL},
	                   "unexpected argument 'stray'");
	expect_usage_error((const char *[]){"--dtype", "uint8", "--narrow-range=1", NULL},
	                   "--narrow-range takes no value");
}

void qct_register_qparams(void)
{
	CU_pSuite s = qct_suite("qparams");
	CU_add_test(s, "dtype ranges and convention names", test_qrange);
	CU_add_test(s, "from (scale, zero_point): worked values", test_scale_zp);
	CU_add_test(s, "from (mean, std_dev)", test_mean_std);
	CU_add_test(s, "from (min, max): tf, onnx, symmetric", test_min_max);
	CU_add_test(s, "error messages", test_errors);
	CU_add_test(s, "quant: ranges (0,255) (0,1) (-1,1) -253..257", test_cmd_ranges);
	CU_add_test(s, "quant: (scale, zero_point) forms", test_cmd_scale_zp);
	CU_add_test(s, "quant: (mean, std_dev) and the other reading", test_cmd_mean_std);
	CU_add_test(s, "quant: int16, narrow int8, uint4, help", test_cmd_other_dtypes);
	CU_add_test(s, "quant: usage errors", test_cmd_errors);
}
