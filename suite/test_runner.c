/*
 * The runner against the stub plugins (suite/stubs): loader refusals, crash,
 * abort, hang, memory rules, batching, the arena's piecewise path, the
 * SHA-256 that fingerprints the plugin, and the worker process itself (a
 * spawned executable: its fds, its arena, its command line, its parent, and
 * restarts from many threads at once).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/digest.h"
#include "pipeline/jobs.h"
#include "qct.h"
#include "reference/dtype.h"
#include "reference/qref.h"
#include "run/runner.h"
#include "run/wire.h"

extern char **environ;

#define MAXN 64 /* elements per hand-built tensor */

/* One hand-built op call, with room for everything it points to. */
typedef struct tcall {
	qcf_op_call call;
	qcf_tensor in[1], out[1];
	qcf_quant quant;
	float scale[4];
	int32_t zp[4];
	int64_t shape[2];
	qcf_attr attrs[4];
	union {
		int8_t i8[MAXN];
		float f32[MAXN];
	} x;
	unsigned char y[MAXN * 8];
} tcall;

static void tensor(qcf_tensor *t, const char *name, qcf_dtype dt, int64_t *shape, int n, void *data)
{
	memset(t, 0, sizeof *t);
	t->struct_size = sizeof *t;
	t->name = name;
	t->dtype = dt;
	t->rank = 1;
	shape[0] = n;
	t->shape = shape;
	t->data = data;
	t->nbytes = qcf_dtype_nbytes(dt, (size_t)n);
}

static void per_tensor(tcall *t, float scale, int32_t zp)
{
	t->scale[0] = scale;
	t->zp[0] = zp;
	t->quant =
	        (qcf_quant){sizeof(qcf_quant), -1, 1, t->scale, t->zp, NULL, 0, QCF_DTYPE_INVALID,
	                    QCF_DTYPE_INVALID};
}

static void call_init(tcall *t, const char *semantics, const char *op)
{
	memset(t, 0, sizeof *t);
	t->call.struct_size = sizeof t->call;
	t->call.semantics = semantics;
	t->call.op = op;
	t->call.n_inputs = 1;
	t->call.inputs = t->in;
	t->call.n_outputs = 1;
	t->call.outputs = t->out;
	t->call.attrs = t->attrs;
	memset(t->y, 0x77, sizeof t->y); /* the runner must never write the caller's buffers */
}

/* litert DEQUANTIZE: int8 per-tensor -> float32. */
static void dequantize(tcall *t, const int8_t *q, int n, float scale, int32_t zp)
{
	call_init(t, "litert", "DEQUANTIZE");
	memcpy(t->x.i8, q, (size_t)n);
	per_tensor(t, scale, zp);
	tensor(&t->in[0], "input", QCF_INT8, &t->shape[0], n, t->x.i8);
	t->in[0].quant = &t->quant;
	tensor(&t->out[0], "output", QCF_FLOAT32, &t->shape[0], n, t->y);
}

/* litert DEQUANTIZE: int8 [rows, cols] quantized along axis 0 -> float32. */
static void dequantize_axis0(tcall *t, const int8_t *q, int rows, int cols, const float *scales,
                             const int32_t *zps)
{
	dequantize(t, q, rows * cols, scales[0], zps[0]);
	memcpy(t->scale, scales, (size_t)rows * sizeof *scales);
	memcpy(t->zp, zps, (size_t)rows * sizeof *zps);
	t->quant.axis = 0;
	t->quant.count = rows;
	t->in[0].rank = t->out[0].rank = 2;
	t->shape[0] = rows;
	t->shape[1] = cols;
}

/* tf fake_quant_with_min_max_args: float32 -> float32. */
static void fake_quant(tcall *t, const float *x, int n, double min, double max)
{
	call_init(t, "tf", "fake_quant_with_min_max_args");
	memcpy(t->x.f32, x, (size_t)n * sizeof(float));
	tensor(&t->in[0], "inputs", QCF_FLOAT32, &t->shape[0], n, t->x.f32);
	tensor(&t->out[0], "outputs", QCF_FLOAT32, &t->shape[0], n, t->y);
	t->attrs[0] = (qcf_attr){.name = "min", .type = QCF_ATTR_FLOAT, .count = 1, .v.f = min};
	t->attrs[1] = (qcf_attr){.name = "max", .type = QCF_ATTR_FLOAT, .count = 1, .v.f = max};
	t->attrs[2] = (qcf_attr){.name = "num_bits", .type = QCF_ATTR_INT, .count = 1, .v.i = 8};
	t->attrs[3] =
	        (qcf_attr){.name = "narrow_range", .type = QCF_ATTR_INT, .count = 1, .v.i = 0};
	t->call.n_attrs = 4;
}

/* onnx QuantizeLinear: float32 -> uint8 per-tensor. */
static void quantize_linear(tcall *t, const float *x, int n, float scale, int32_t zp)
{
	call_init(t, "onnx", "QuantizeLinear");
	memcpy(t->x.f32, x, (size_t)n * sizeof(float));
	per_tensor(t, scale, zp);
	tensor(&t->in[0], "x", QCF_FLOAT32, &t->shape[0], n, t->x.f32);
	tensor(&t->out[0], "y", QCF_UINT8, &t->shape[0], n, t->y);
	t->out[0].quant = &t->quant;
}

/* The pid stub's own ops. */
static void getpid_call(tcall *t)
{
	call_init(t, "test", "qconform_getpid");
	t->call.n_inputs = 0;
	tensor(&t->out[0], "pid", QCF_INT64, &t->shape[0], 1, t->y);
}

static void exit_call(tcall *t, int status)
{
	call_init(t, "test", "qconform_exit");
	t->call.n_inputs = 0;
	t->call.n_outputs = 0;
	t->attrs[0] = (qcf_attr){.name = "status", .type = QCF_ATTR_INT, .count = 1, .v.i = status};
	t->call.n_attrs = 1;
}

static const int8_t DQ_IN[8] = {-128, -3, 0, 1, 5, 64, 126, 127};
static const float FQ_IN[8] = {-1.5f, -1.0f, -0.3f, 0.0f, 0.25f, 0.5f, 0.9999f, 2.0f};
static const float QL_IN[6] = {0.0f, 2.0f, 3.0f, 1000.0f, -254.0f, -1000.0f};

/* Does out equal what the reference computes for t? */
static int matches_reference(const tcall *t, const qcf_tensor *out)
{
	unsigned char want[sizeof t->y];
	qcf_tensor o = t->out[0];
	o.data = want;
	qcf_op_call c = t->call;
	c.outputs = &o;
	if (qref_execute(&c, NULL) != QCF_OK) {
		fprintf(stderr, "\n  the reference refused %s\n", t->call.op);
		return 0;
	}
	return out->nbytes == o.nbytes && memcmp(out->data, want, o.nbytes) == 0;
}

/* DEQUANTIZE's result, by hand: (q - zp) * scale, exact for these values. */
static int dequantized_right(const tcall *t, const qcf_tensor *out)
{
	size_t n = qref_numel(t->in[0].rank, t->in[0].shape);
	for (size_t i = 0; i < n; i++) {
		int32_t c = qref_channel(&t->in[0], &t->quant, i);
		float want = (float)((double)t->scale[c] * (t->x.i8[i] - t->zp[c]));
		if (((const float *)out->data)[i] != want)
			return 0;
	}
	return 1;
}

static int no_children(void)
{
	int st;
	return waitpid(-1, &st, WNOHANG) == -1 && errno == ECHILD;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static qc_runner *open_stub(const char *stub, double timeout_s, size_t arena_bytes)
{
	char so[128], err[512] = "";
	snprintf(so, sizeof so, "stubs/libstub_%s.so", stub);
	qc_runner_config cfg = {.plugin_path = qct_build_path(so),
	                        .timeout_s = timeout_s,
	                        .arena_bytes = arena_bytes};
	qc_runner *r = NULL;
	if (qc_runner_open(&cfg, &r, NULL, err, sizeof err) != 0)
		fprintf(stderr, "\n  open %s: %s\n", stub, err);
	return r;
}

static int run(qc_runner *r, tcall **t, int n, qc_exec_result *res, const qcf_op_call **staged)
{
	const qcf_op_call *calls[64];
	char err[256] = "";
	for (int i = 0; i < n; i++)
		calls[i] = &t[i]->call;
	int rc = qc_runner_execute(r, calls, n, res, staged, err, sizeof err);
	if (rc != 0)
		fprintf(stderr, "\n  execute: %s\n", err);
	return rc;
}

static void show(const qc_exec_result *res)
{
	static const char *names[] = {"OK",    "NOT_SUPPORTED", "INVALID_PARAM",
	                              "ERROR", "CRASH",         "TIMEOUT"};
	fprintf(stderr, "\n  outcome %s, signal %d, message \"%s\"\n", names[res->outcome],
	        res->signal, res->message);
}

#define EXPECT_OUTCOME(res, want)                                                                  \
	do {                                                                                       \
		CU_ASSERT_EQUAL((res).outcome, (want));                                            \
		if ((res).outcome != (want))                                                       \
			show(&(res));                                                              \
	} while (0)

/* ------------------------------------------------------------------ sha256 */

static void test_sha256_vectors(void)
{
	char hex[65];
	qc_sha256_hex("abc", 3, hex);
	CU_ASSERT_STRING_EQUAL(hex,
	                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	qc_sha256_hex("", 0, hex);
	CU_ASSERT_STRING_EQUAL(hex,
	                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* 448 bits: the padding needs a second block. */
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	qc_sha256_hex(two, strlen(two), hex);
	CU_ASSERT_STRING_EQUAL(hex,
	                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* A million 'a', fed in uneven pieces. */
	static char a[1000000];
	memset(a, 'a', sizeof a);
	qc_sha256 s;
	uint8_t d[32];
	qc_sha256_init(&s);
	for (size_t off = 0, step = 1; off < sizeof a; off += step, step = step * 3 % 1021 + 1)
		qc_sha256_update(&s, a + off, off + step <= sizeof a ? step : sizeof a - off);
	qc_sha256_final(&s, d);
	static const uint8_t million[32] = {0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92,
	                                    0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
	                                    0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e,
	                                    0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0};
	CU_ASSERT_EQUAL(memcmp(d, million, 32), 0);
}

static void test_sha256_file(void)
{
	char path[] = "/tmp/qct_sha256_XXXXXX", hex[65], want[65];
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	static unsigned char buf[200000];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 7 + (i >> 9));
	CU_ASSERT_EQUAL(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
	close(fd);
	CU_ASSERT_EQUAL(qc_sha256_file(path, hex), 0);
	qc_sha256_hex(buf, sizeof buf, want);
	CU_ASSERT_STRING_EQUAL(hex, want);
	unlink(path);
	CU_ASSERT_EQUAL(qc_sha256_file(path, hex), -1);
}

/* ---------------------------------------------------------- loader refusals */

static void expect_refusal(const char *path, const qcf_option *opts, int n_opts, const char *needle)
{
	int fds = count_fds();
	char err[512] = "";
	qc_runner_config cfg = {.plugin_path = path, .options = opts, .n_options = n_opts};
	qc_runner *r = (qc_runner *)&cfg; /* must come back NULL */
	CU_ASSERT_EQUAL(qc_runner_open(&cfg, &r, NULL, err, sizeof err), -1);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
	CU_ASSERT_EQUAL(strncmp(err, path, strlen(path)), 0);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	CU_ASSERT(no_children());
	CU_ASSERT_EQUAL(count_fds(), fds);
	if (!strstr(err, needle))
		fprintf(stderr, "\n  wanted \"%s\" in: %s\n", needle, err);
}

static void refuse_stub(const char *stub, const char *needle)
{
	char so[128];
	snprintf(so, sizeof so, "stubs/libstub_%s.so", stub);
	expect_refusal(qct_build_path(so), NULL, 0, needle);
}

static void test_refuse_missing_file(void)
{
	expect_refusal(qct_build_path("stubs/libstub_does_not_exist.so"), NULL, 0, "No such file");
}

static void test_refuse_not_a_library(void)
{
	char path[] = "/tmp/qct_notlib_XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "not an ELF file\n", 16), 16);
	close(fd);
	expect_refusal(path, NULL, 0, "dlopen failed");
	unlink(path);
}

static void test_refuse_no_entry(void)
{
	refuse_stub("no_entry", "no entry symbol qconform_plugin_negotiate");
}

static void test_refuse_old_abi(void)
{
	refuse_stub("old_abi", "no common ABI version: host speaks 1..3, plugin offers");
}

static void test_refuse_future_abi(void)
{
	refuse_stub("future_abi", "no common ABI version: host speaks 1..3, plugin offers 4");
}

static void test_refuse_null_descriptor(void)
{
	refuse_stub("null_descriptor", "no descriptor");
}

static void test_refuse_short_struct(void)
{
	char want[64];
	snprintf(want, sizeof want, "short descriptor: struct_size 16 < %zu",
	         offsetof(qcf_plugin, last_error) + sizeof(void (*)(void))); /* version 1 */
	refuse_stub("short_struct", want);
}

static void test_refuse_null_execute(void)
{
	refuse_stub("null_execute", "required function NULL: execute");
}

static void test_refuse_create_failing(void)
{
	qcf_option wrong = {"token", "guess"};
	expect_refusal(qct_build_path("stubs/libstub_needs_option.so"), &wrong, 1,
	               "create failed (QCF_INVALID_PARAM): option token=secret missing");
}

static void test_options_reach_create(void)
{
	qcf_option opts[] = {{"other", "x"}, {"token", "secret"}};
	qc_runner_config cfg = {.plugin_path = qct_build_path("stubs/libstub_needs_option.so"),
	                        .options = opts,
	                        .n_options = 2};
	qc_runner *r = NULL;
	char err[512] = "";
	CU_ASSERT_EQUAL(qc_runner_open(&cfg, &r, NULL, err, sizeof err), 0);
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

/* ------------------------------------------------------------- open, info */

/* The header's negotiation answer: too short a struct, a host range without the version,
 * and the answer itself. */
static void test_negotiate_answer(void)
{
	static const qcf_plugin desc = {.struct_size = sizeof(qcf_plugin), .abi_version = 2};
	qcf_negotiation n = {sizeof n, 1, 3, 0, NULL};
	CU_ASSERT_EQUAL(qcf_negotiate_answer(NULL, 2, &desc), QCF_ERROR);
	n.struct_size = (uint32_t)offsetof(qcf_negotiation, plugin);
	CU_ASSERT_EQUAL(qcf_negotiate_answer(&n, 2, &desc), QCF_ERROR);
	CU_ASSERT_PTR_NULL(n.plugin);
	n.struct_size = sizeof n;
	CU_ASSERT_EQUAL(qcf_negotiate_answer(&n, 4, &desc), QCF_NOT_SUPPORTED);
	n.host_min_version = 3;
	CU_ASSERT_EQUAL(qcf_negotiate_answer(&n, 2, &desc), QCF_NOT_SUPPORTED);
	CU_ASSERT_PTR_NULL(n.plugin);
	n.host_min_version = 2;
	CU_ASSERT_EQUAL(qcf_negotiate_answer(&n, 2, &desc), QCF_OK);
	CU_ASSERT_EQUAL(n.abi_version, 2);
	CU_ASSERT_PTR_EQUAL(n.plugin, &desc);
}

static void test_open_info(void)
{
	const char *path = qct_build_path("stubs/libstub_ok.so");
	qc_runner_config cfg = {.plugin_path = path};
	qc_plugin_info info;
	qc_runner *r = NULL;
	char err[512] = "", want[65], *real = realpath(path, NULL);
	int fds = count_fds();
	CU_ASSERT_EQUAL_FATAL(qc_runner_open(&cfg, &r, &info, err, sizeof err), 0);
	CU_ASSERT_STRING_EQUAL(info.name, "stub_ok");
	CU_ASSERT_STRING_EQUAL(info.version, "1.0");
	CU_ASSERT_EQUAL(info.abi_version, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(real);
	/* the path as given: reports made in a checkout name no machine's directories */
	CU_ASSERT_STRING_EQUAL(info.path, path);
	CU_ASSERT_EQUAL(qc_sha256_file(path, want), 0);
	CU_ASSERT_STRING_EQUAL(info.sha256, want);
	CU_ASSERT_FALSE(no_children()); /* the worker */
	qc_runner_close(r);
	CU_ASSERT(no_children());
	CU_ASSERT_EQUAL(count_fds(), fds);
	free(real);
}

/* Trace lines go to stderr, switched on by the config or QCONFORM_TRACE=1. */
static void test_trace(void)
{
	for (int how = 0; how < 2; how++) {
		char path[] = "/tmp/qct_trace_XXXXXX";
		int fd = mkstemp(path);
		CU_ASSERT_FATAL(fd >= 0);
		fflush(stderr);
		int saved = dup(2);
		dup2(fd, 2);
		if (how)
			setenv("QCONFORM_TRACE", "1", 1);
		qc_runner_config cfg = {.plugin_path = qct_build_path("stubs/libstub_ok.so"),
		                        .trace = !how};
		qc_runner *r = NULL;
		char err[512];
		int rc = qc_runner_open(&cfg, &r, NULL, err, sizeof err);
		qc_runner_close(r);
		unsetenv("QCONFORM_TRACE");
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		CU_ASSERT_EQUAL(rc, 0);
		char text[16384] = "";
		ssize_t got = pread(fd, text, sizeof text - 1, 0);
		text[got > 0 ? got : 0] = '\0';
		close(fd);
		unlink(path);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "dlopen"));
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "negotiated ABI version 1"));
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "create() ok"));
	}
	/* And silence without either. */
	char path[] = "/tmp/qct_trace_XXXXXX";
	int fd = mkstemp(path);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	qc_runner *r = open_stub("ok", 0, 0);
	qc_runner_close(r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CU_ASSERT_EQUAL(lseek(fd, 0, SEEK_END), 0);
	close(fd);
	unlink(path);
}

/* ------------------------------------------------------------- execution */

static void test_ok_matches_reference(void)
{
	qc_runner *r = open_stub("ok", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a, b, c;
	dequantize(&a, DQ_IN, 8, 0.25f, -3);
	fake_quant(&b, FQ_IN, 8, -1.0, 1.0);
	quantize_linear(&c, QL_IN, 6, 2.0f, 128);
	tcall *t[] = {&a, &b, &c};
	qc_exec_result res[3];
	const qcf_op_call *staged[3];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 3, res, staged), 0);
	for (int i = 0; i < 3; i++) {
		EXPECT_OUTCOME(res[i], QC_EXEC_OK);
		CU_ASSERT_PTR_NOT_NULL_FATAL(staged[i]);
		CU_ASSERT(staged[i] != &t[i]->call);
		CU_ASSERT(staged[i]->outputs[0].data != t[i]->y);
		CU_ASSERT(matches_reference(t[i], &staged[i]->outputs[0]));
		CU_ASSERT(res[i].seconds >= 0 && res[i].seconds < 10);
		/* The call handed back names the caller's inputs and holds copies of the
		 * kernel's outputs; the caller's outputs stay untouched. */
		CU_ASSERT(staged[i]->inputs[0].data == t[i]->in[0].data);
		CU_ASSERT_STRING_EQUAL(staged[i]->op, t[i]->call.op);
		CU_ASSERT_EQUAL(t[i]->y[0], 0x77);
	}
	CU_ASSERT(dequantized_right(&a, &staged[0]->outputs[0]));
	/* ONNX's own test vector. */
	static const uint8_t ql_want[6] = {128, 129, 130, 255, 1, 0};
	CU_ASSERT_EQUAL(memcmp(staged[2]->outputs[0].data, ql_want, 6), 0);
	CU_ASSERT_EQUAL(staged[0]->inputs[0].quant->zero_points[0], -3);
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

static void test_crash_then_next_ok(void)
{
	qc_runner *r = open_stub("crash", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a, b, c;
	dequantize(&a, DQ_IN, 8, 0.5f, 1);
	fake_quant(&b, FQ_IN, 8, -1.0, 1.0);
	dequantize(&c, DQ_IN, 4, 0.5f, 1);
	tcall *t[] = {&a, &b, &c, &b};
	qc_exec_result res[4];
	const qcf_op_call *staged[4];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 4, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_CRASH);
	CU_ASSERT_EQUAL(res[0].signal, SIGSEGV);
	CU_ASSERT_STRING_EQUAL(res[0].message, "killed by signal 11 (SIGSEGV) in execute()");
	EXPECT_OUTCOME(res[1], QC_EXEC_OK);
	CU_ASSERT(matches_reference(&b, &staged[1]->outputs[0]));
	EXPECT_OUTCOME(res[2], QC_EXEC_CRASH);
	EXPECT_OUTCOME(res[3], QC_EXEC_OK);
	CU_ASSERT(matches_reference(&b, &staged[3]->outputs[0]));
	/* The runner goes on with the next batch. */
	CU_ASSERT_EQUAL(run(r, t + 1, 1, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_OK);
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

static void test_abort(void)
{
	qc_runner *r = open_stub("abort", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a, b;
	fake_quant(&a, FQ_IN, 8, -2.0, 2.0);
	dequantize(&b, DQ_IN, 8, 0.5f, 1);
	tcall *t[] = {&a, &b};
	qc_exec_result res[2];
	const qcf_op_call *staged[2];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 2, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_CRASH);
	CU_ASSERT_EQUAL(res[0].signal, SIGABRT);
	CU_ASSERT_PTR_NOT_NULL(strstr(res[0].message, "SIGABRT"));
	EXPECT_OUTCOME(res[1], QC_EXEC_OK);
	CU_ASSERT(dequantized_right(&b, &staged[1]->outputs[0]));
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

static void test_hang_timeout(void)
{
	qc_runner *r = open_stub("hang", 0.5, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a, b;
	quantize_linear(&a, QL_IN, 6, 2.0f, 128);
	dequantize(&b, DQ_IN, 8, 0.5f, 1);
	tcall *t[] = {&a, &b};
	qc_exec_result res[2];
	const qcf_op_call *staged[2];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_EQUAL_FATAL(run(r, t, 2, res, staged), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	EXPECT_OUTCOME(res[0], QC_EXEC_TIMEOUT);
	CU_ASSERT(res[0].seconds >= 0.5);
	CU_ASSERT(took >= 0.5 && took < 5.0);
	EXPECT_OUTCOME(res[1], QC_EXEC_OK);
	CU_ASSERT(dequantized_right(&b, &staged[1]->outputs[0]));
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

static void test_scribble(void)
{
	qc_runner *r = open_stub("scribble", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a, b, c;
	dequantize(&a, DQ_IN, 8, 0.5f, 1);
	fake_quant(&b, FQ_IN, 8, -1.0, 1.0);
	dequantize(&c, DQ_IN, 3, 0.125f, 0);
	tcall *t[] = {&a, &b, &c, &b};
	qc_exec_result res[4];
	const qcf_op_call *staged[4];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 4, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_ERROR);
	CU_ASSERT_STRING_EQUAL(res[0].message, "wrote past the end of output 0");
	EXPECT_OUTCOME(res[1], QC_EXEC_OK);
	CU_ASSERT(matches_reference(&b, &staged[1]->outputs[0]));
	EXPECT_OUTCOME(res[2], QC_EXEC_ERROR);
	EXPECT_OUTCOME(res[3], QC_EXEC_OK);
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

/* An overrun far into the next cases' slots still costs only its own case. */
static void test_scribble_far(void)
{
	qcf_option far = {"bytes", "4096"};
	qc_runner_config cfg = {.plugin_path = qct_build_path("stubs/libstub_scribble.so"),
	                        .options = &far,
	                        .n_options = 1};
	qc_runner *r = NULL;
	char err[512];
	CU_ASSERT_EQUAL_FATAL(qc_runner_open(&cfg, &r, NULL, err, sizeof err), 0);
	tcall a, b, c;
	dequantize(&a, DQ_IN, 8, 0.5f, 1);
	fake_quant(&b, FQ_IN, 8, -1.0, 1.0);
	dequantize(&c, DQ_IN, 8, 0.25f, 0);
	tcall *t[] = {&a, &b, &b, &b, &c, &b};
	qc_exec_result res[6];
	const qcf_op_call *staged[6];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 6, res, staged), 0);
	for (int i = 0; i < 6; i++) {
		if (t[i] == &b) {
			EXPECT_OUTCOME(res[i], QC_EXEC_OK);
			CU_ASSERT(matches_reference(&b, &staged[i]->outputs[0]));
			CU_ASSERT_EQUAL(memcmp(staged[i]->inputs[0].data, FQ_IN, sizeof FQ_IN), 0);
		} else {
			EXPECT_OUTCOME(res[i], QC_EXEC_ERROR);
			CU_ASSERT_STRING_EQUAL(res[i].message, "wrote past the end of output 0");
		}
	}
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

static void test_modify_input(void)
{
	qc_runner *r = open_stub("modify_input", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a, b;
	dequantize(&a, DQ_IN, 8, 0.5f, 1);
	fake_quant(&b, FQ_IN, 8, -1.0, 1.0);
	tcall *t[] = {&a, &b};
	qc_exec_result res[2];
	const qcf_op_call *staged[2];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 2, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_ERROR);
	CU_ASSERT_STRING_EQUAL(res[0].message, "modified input 0");
	CU_ASSERT_EQUAL(memcmp(a.x.i8, DQ_IN, 8), 0); /* the caller's copy is safe */
	EXPECT_OUTCOME(res[1], QC_EXEC_OK);
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

static void test_modify_call(void)
{
	qc_runner *r = open_stub("modify_call", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a;
	dequantize(&a, DQ_IN, 8, 0.5f, 1);
	tcall *t[] = {&a};
	qc_exec_result res[1];
	const qcf_op_call *staged[1];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 1, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(res[0].message, "modified the call"));
	/* The staged call handed back is the one that was staged. */
	CU_ASSERT_EQUAL(staged[0]->outputs[0].nbytes, a.out[0].nbytes);
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

static void test_supports_nothing(void)
{
	qc_runner *r = open_stub("supports_nothing", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a;
	dequantize(&a, DQ_IN, 8, 0.5f, 1);
	tcall *t[] = {&a};
	qc_exec_result res[1];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 1, res, NULL), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_NOT_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(res[0].message, "this stub supports nothing");
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

/* The mutants: each must differ from the reference exactly where its bug is. */
static void test_ties_half_up(void)
{
	qc_runner *ok = open_stub("ok", 0, 0), *bad = open_stub("ties_half_up", 0, 0);
	CU_ASSERT_FATAL(ok && bad);
	static const float x[6] = {1.0f, 3.0f, 5.0f, -1.0f, -3.0f, 2.2f}; /* x / 2: ties but one */
	tcall a;
	quantize_linear(&a, x, 6, 2.0f, 128);
	tcall *t[] = {&a};
	qc_exec_result res[2];
	const qcf_op_call *staged[2];
	static const uint8_t even[6] = {128, 130, 130, 128, 126, 129};
	static const uint8_t up[6] = {129, 130, 131, 128, 127, 129};
	CU_ASSERT_EQUAL_FATAL(run(ok, t, 1, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_OK);
	CU_ASSERT_EQUAL(memcmp(staged[0]->outputs[0].data, even, 6), 0);
	CU_ASSERT_EQUAL_FATAL(run(bad, t, 1, res + 1, staged + 1), 0);
	EXPECT_OUTCOME(res[1], QC_EXEC_OK);
	CU_ASSERT_EQUAL(memcmp(staged[1]->outputs[0].data, up, 6), 0);
	qc_runner_close(ok);
	qc_runner_close(bad);
}

static void test_ignore_axis(void)
{
	qc_runner *r = open_stub("ignore_axis", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	static const int8_t q[6] = {1, 2, 3, 4, -5, 6};
	static const float scales[2] = {1.0f, 2.0f};
	static const int32_t zps[2] = {0, 1};
	tcall a, b;
	dequantize_axis0(&a, q, 2, 3, scales, zps);
	dequantize(&b, q, 6, 0.5f, 2); /* per tensor: no bug to show */
	tcall *t[] = {&a, &b};
	qc_exec_result res[2];
	const qcf_op_call *staged[2];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 2, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_OK);
	static const float channel0[6] = {1, 2, 3, 4, -5, 6};
	CU_ASSERT_EQUAL(memcmp(staged[0]->outputs[0].data, channel0, sizeof channel0), 0);
	CU_ASSERT_FALSE(dequantized_right(&a, &staged[0]->outputs[0]));
	EXPECT_OUTCOME(res[1], QC_EXEC_OK);
	CU_ASSERT(dequantized_right(&b, &staged[1]->outputs[0]));
	/* The reference itself gets the per-axis case right. */
	qc_runner_close(r);
	r = open_stub("ok", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(run(r, t, 1, res, staged), 0);
	CU_ASSERT(dequantized_right(&a, &staged[0]->outputs[0]));
	qc_runner_close(r);
}

/* 1000 cases, one worker: every getpid case answers the same pid. */
static void test_one_worker_per_batch(void)
{
	enum { N = 1000 };
	qc_runner *r = open_stub("pid", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall *t = calloc(N, sizeof *t);
	const qcf_op_call **calls = calloc(N, sizeof *calls), **staged = calloc(N, sizeof *staged);
	qc_exec_result *res = calloc(N, sizeof *res);
	CU_ASSERT_FATAL(t && calls && staged && res);
	for (int i = 0; i < N; i++) {
		if (i % 100 == 0 || i == N - 1) {
			getpid_call(&t[i]);
		} else {
			int8_t q[8];
			for (int k = 0; k < 8; k++)
				q[k] = (int8_t)(i * 31 + k * 17);
			dequantize(&t[i], q, 1 + i % 8, 1.0f / (float)(1 + i % 5), i % 7 - 3);
		}
		calls[i] = &t[i].call;
	}
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(qc_runner_execute(r, calls, N, res, staged, err, sizeof err), 0);
	int64_t pid = -1;
	int ok = 0, same_pid = 1, right = 1;
	for (int i = 0; i < N; i++) {
		ok += res[i].outcome == QC_EXEC_OK;
		if (t[i].call.n_inputs == 0) {
			int64_t p = *(const int64_t *)staged[i]->outputs[0].data;
			if (pid < 0)
				pid = p;
			same_pid &= p == pid;
		} else {
			right &= dequantized_right(&t[i], &staged[i]->outputs[0]);
		}
	}
	CU_ASSERT_EQUAL(ok, N);
	CU_ASSERT(same_pid);
	CU_ASSERT(right);
	CU_ASSERT(pid > 0 && pid != getpid());
	qc_runner_close(r);
	CU_ASSERT(no_children());
	free(t);
	free(calls);
	free(staged);
	free(res);
}

/* A worker that exits is a CRASH with signal 0; the next case gets a new worker. */
static void test_worker_exit(void)
{
	qc_runner *r = open_stub("pid", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall p1, ex, p2;
	getpid_call(&p1);
	exit_call(&ex, 7);
	getpid_call(&p2);
	tcall *t[] = {&p1, &ex, &p2};
	qc_exec_result res[3];
	const qcf_op_call *staged[3];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 3, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_OK);
	EXPECT_OUTCOME(res[1], QC_EXEC_CRASH);
	CU_ASSERT_EQUAL(res[1].signal, 0);
	CU_ASSERT_STRING_EQUAL(res[1].message, "worker exited with status 7");
	EXPECT_OUTCOME(res[2], QC_EXEC_OK);
	int64_t a = *(const int64_t *)staged[0]->outputs[0].data;
	int64_t b = *(const int64_t *)staged[2]->outputs[0].data;
	CU_ASSERT(a > 0 && b > 0 && a != b);
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

/* An arena of a few slots: the batch runs in pieces; every staged result stays readable. */
static void test_arena_pieces(void)
{
	enum { N = 40 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	qc_runner *r = open_stub("ok", 0, 12 * page);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	size_t cap = qc_runner_capacity(r);
	CU_ASSERT(cap == 11 * page);
	tcall *t = calloc(N + 1, sizeof *t);
	CU_ASSERT_FATAL(t != NULL);
	const qcf_op_call *calls[N + 1], *staged[N + 1];
	qc_exec_result res[N + 1];
	for (int i = 0; i < N; i++) {
		int8_t q[16];
		for (int k = 0; k < 16; k++)
			q[k] = (int8_t)(i * 13 - k * 5);
		dequantize(&t[i], q, 8 + i % 9, 0.5f + (float)i, i % 11 - 5);
		calls[i] = &t[i].call;
	}
	/* One case bigger than the whole arena, in the middle. */
	static int8_t big[65536];
	static float big_out[65536];
	tcall *b = &t[N];
	dequantize(b, DQ_IN, 8, 0.5f, 0);
	b->shape[0] = 65536;
	b->in[0].data = big;
	b->in[0].nbytes = sizeof big;
	b->out[0].data = big_out;
	b->out[0].nbytes = sizeof big_out;
	calls[N] = calls[N / 2];
	calls[N / 2] = &b->call;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(qc_runner_execute(r, calls, N + 1, res, staged, err, sizeof err), 0);
	int ok = 0, right = 1;
	for (int i = 0; i <= N; i++) {
		if (i == N / 2)
			continue;
		ok += res[i].outcome == QC_EXEC_OK;
		const tcall *ti = (const tcall *)calls[i];
		right &= staged[i] && dequantized_right(ti, &staged[i]->outputs[0]);
	}
	CU_ASSERT_EQUAL(ok, N);
	CU_ASSERT(right);
	EXPECT_OUTCOME(res[N / 2], QC_EXEC_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(res[N / 2].message, "case too large for the shared arena"));
	CU_ASSERT_PTR_NULL(staged[N / 2]);
	qc_runner_close(r);
	CU_ASSERT(no_children());
	free(t);
}

/* A call the runner cannot stage is an ERROR for that case only. */
static void test_malformed_call(void)
{
	qc_runner *r = open_stub("ok", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall a, b;
	dequantize(&a, DQ_IN, 8, 0.5f, 1);
	dequantize(&b, DQ_IN, 8, 0.5f, 1);
	a.in[0].data = NULL;
	tcall *t[] = {&a, &b};
	qc_exec_result res[2];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 2, res, NULL), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(res[0].message, "malformed call"));
	EXPECT_OUTCOME(res[1], QC_EXEC_OK);
	qc_runner_close(r);
	CU_ASSERT(no_children());
}

/* ------------------------------------------------------- the worker process */

/* The worker executable of the build under test. */
static const char *worker_exe(void)
{
	return qct_build_path("qconform-worker");
}

/* A missing (or not executable) worker is a one-line load error naming it. */
static void test_missing_worker(void)
{
	const char *plugin = qct_build_path("stubs/libstub_ok.so");
	char dir[] = "/tmp/qct_worker_XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char missing[600], plain[600];
	snprintf(missing, sizeof missing, "%s/no-such-worker", dir);
	snprintf(plain, sizeof plain, "%s/not-executable", dir);
	int pf = open(plain, O_WRONLY | O_CREAT | O_EXCL, 0644);
	CU_ASSERT_FATAL(pf >= 0);
	close(pf);
	const char *paths[] = {missing, plain};
	const char *why[] = {"No such file or directory", "Permission denied"};
	for (int i = 0; i < 2; i++) {
		int fds = count_fds();
		char err[512] = "";
		qc_runner_config cfg = {.plugin_path = plugin, .worker_path = paths[i]};
		qc_runner *r = (qc_runner *)&cfg;
		CU_ASSERT_EQUAL(qc_runner_open(&cfg, &r, NULL, err, sizeof err), -1);
		CU_ASSERT_PTR_NULL(r);
		CU_ASSERT_EQUAL(strncmp(err, plugin, strlen(plugin)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, paths[i]));
		CU_ASSERT_PTR_NOT_NULL(strstr(err, why[i]));
		CU_ASSERT_PTR_NULL(strchr(err, '\n'));
		CU_ASSERT(no_children());
		CU_ASSERT_EQUAL(count_fds(), fds);
		if (!strstr(err, why[i]))
			fprintf(stderr, "\n  %s\n", err);
	}
	unlink(plain);
	rmdir(dir);
}

/* $QCONFORM_WORKER names the worker when the config does not; the config wins. */
static void test_worker_from_env(void)
{
	const char *plugin = qct_build_path("stubs/libstub_ok.so");
	const char *bogus = "/nonexistent/qconform-worker";
	setenv("QCONFORM_WORKER", bogus, 1);
	char err[512] = "";
	qc_runner *r = NULL;
	qc_runner_config cfg = {.plugin_path = plugin};
	CU_ASSERT_EQUAL(qc_runner_open(&cfg, &r, NULL, err, sizeof err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, bogus));
	cfg.worker_path = worker_exe();
	CU_ASSERT_EQUAL(qc_runner_open(&cfg, &r, NULL, err, sizeof err), 0);
	qc_runner_close(r);
	setenv("QCONFORM_WORKER", worker_exe(), 1);
	cfg.worker_path = NULL;
	CU_ASSERT_EQUAL(qc_runner_open(&cfg, &r, NULL, err, sizeof err), 0);
	qc_runner_close(r);
	unsetenv("QCONFORM_WORKER");
	CU_ASSERT(no_children());
}

static int readlink_fd(pid_t pid, const char *fd, char *out, size_t size)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%ld/%s", (long)pid, fd);
	ssize_t n = readlink(p, out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	return n > 0 ? 0 : -1;
}

/*
 * The worker is a fresh single-threaded process of the worker executable: it
 * has fds 0 (/dev/null), 1 and 2 (the harness's stderr) and its channel 3,
 * nothing else of the harness's (not even fds without close-on-exec), and it
 * maps the arena at the harness's address.
 */
/* The first mapping of process pid (0: this one) whose line in /proc/PID/maps holds needle:
 * 1 with its range, else 0. */
static int find_mapping(pid_t pid, const char *needle, uintptr_t *lo, uintptr_t *hi)
{
	char path[64], line[512];
	if (pid)
		snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	else
		snprintf(path, sizeof path, "/proc/self/maps");
	FILE *f = fopen(path, "r");
	int found = 0;
	while (f && !found && fgets(line, sizeof line, f))
		found = strstr(line, needle) && sscanf(line, "%" SCNxPTR "-%" SCNxPTR, lo, hi) == 2;
	if (f)
		fclose(f);
	return found;
}

/* Where this process maps a runner's arena, or 0. */
static uintptr_t arena_address(void)
{
	uintptr_t lo, hi;
	return find_mapping(0, "qconform-arena", &lo, &hi) ? lo : 0;
}

static void test_worker_process(void)
{
	int leak = dup(2); /* no close-on-exec */
	int leak_cloexec = fcntl(2, F_DUPFD_CLOEXEC, 0);
	CU_ASSERT_FATAL(leak >= 0 && leak_cloexec >= 0);
	qc_runner *r = open_stub("pid", 0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tcall p;
	getpid_call(&p);
	tcall *t[] = {&p};
	qc_exec_result res[1];
	const qcf_op_call *staged[1];
	CU_ASSERT_EQUAL_FATAL(run(r, t, 1, res, staged), 0);
	EXPECT_OUTCOME(res[0], QC_EXEC_OK);
	pid_t w = (pid_t) * (const int64_t *)staged[0]->outputs[0].data;
	CU_ASSERT_FATAL(w > 0 && w != getpid());

	char exe[PATH_MAX], want[PATH_MAX], link[PATH_MAX], ours[PATH_MAX];
	CU_ASSERT_EQUAL(readlink_fd(w, "exe", exe, sizeof exe), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(worker_exe(), want));
	CU_ASSERT_STRING_EQUAL(exe, want);

	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%ld/fd", (long)w);
	DIR *d = opendir(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	int seen = 0, others = 0;
	char task[64];
	snprintf(task, sizeof task, "/proc/%ld/task", (long)w);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		int fd = atoi(e->d_name);
		char name[32];
		snprintf(name, sizeof name, "fd/%d", fd);
		if (fd >= 0 && fd <= 3)
			seen |= 1 << fd;
		else if (readlink_fd(w, name, link, sizeof link) != 0 || strcmp(link, task) != 0)
			others++; /* the worker's own: its thread count (worker.c, other_threads) */
	}
	closedir(d);
	CU_ASSERT_EQUAL(seen, 0xf);
	CU_ASSERT_EQUAL(others, 0);
	CU_ASSERT_EQUAL(readlink_fd(w, "fd/0", link, sizeof link), 0);
	CU_ASSERT_STRING_EQUAL(link, "/dev/null");
	CU_ASSERT_EQUAL(readlink_fd(getpid(), "fd/2", ours, sizeof ours), 0);
	CU_ASSERT_EQUAL(readlink_fd(w, "fd/1", link, sizeof link), 0);
	CU_ASSERT_STRING_EQUAL(link, ours);
	CU_ASSERT_EQUAL(readlink_fd(w, "fd/2", link, sizeof link), 0);
	CU_ASSERT_STRING_EQUAL(link, ours);
	CU_ASSERT_EQUAL(readlink_fd(w, "fd/3", link, sizeof link), 0);
	CU_ASSERT_EQUAL(strncmp(link, "socket:", 7), 0);

	/* One thread; the arena mapped at the harness's address, closed between cases. */
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%ld/status", (long)w);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	int threads = 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "Threads:", 8) == 0)
			threads = atoi(line + 8);
	fclose(f);
	CU_ASSERT_EQUAL(threads, 1);
	snprintf(path, sizeof path, "/proc/%ld/maps", (long)w);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uintptr_t at = arena_address();
	CU_ASSERT_FATAL(at != 0);
	int mapped = 0, open_pages = 0;
	while (fgets(line, sizeof line, f)) {
		uintptr_t lo, hi;
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) != 2 ||
		    !strstr(line, "qconform-arena"))
			continue;
		mapped |= lo == at;
		open_pages += strstr(line, " ---s ") == NULL;
	}
	fclose(f);
	CU_ASSERT(mapped);
	CU_ASSERT_EQUAL(open_pages, 0);
	qc_runner_close(r);
	close(leak);
	close(leak_cloexec);
	CU_ASSERT(no_children());
}

/* Options are argv entries of their own: any bytes but NUL reach create() unchanged. */
static void test_option_bytes(void)
{
	qcf_option opts[] = {
	        {"token", "secret"},      {"", ""},          {"a b", "c'd\"e$(x)`y`;|"},
	        {"--option", "k=v=w"},    {"nl", "1\n2\t3"}, {"--trace", "--plugin"},
	        {"\xc3\xa9", "\xff\x01"},
	};
	char err[512] = "";
	qc_runner_config cfg = {.plugin_path = qct_build_path("stubs/libstub_echo_options.so"),
	                        .options = opts,
	                        .n_options = 7};
	qc_runner *r = NULL;
	CU_ASSERT_EQUAL(qc_runner_open(&cfg, &r, NULL, err, sizeof err), -1);
	const char *want = "create failed (QCF_INVALID_PARAM): n=7 [token]=[secret] []=[] "
	                   "[a b]=[c'd\"e$(x)`y`;|] [--option]=[k=v=w] [nl]=[1\\x0a2\\x093] "
	                   "[--trace]=[--plugin] [\\xc3\\xa9]=[\\xff\\x01]";
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	if (!strstr(err, want))
		fprintf(stderr, "\n  got: %s\n", err);
	CU_ASSERT(no_children());
}

/*
 * Starts the worker executable by hand with argv, the channel at fd 3 and the
 * arena at fd 4 (chan, arena > 4, or -1 for none); norandom: without address
 * space layout randomization. Returns its pid, or -1.
 */
static pid_t spawn_by_hand(char **argv, int chan, int arena, int norandom)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	/* Only async-signal-safe calls until exec. */
	if (norandom && personality(ADDR_NO_RANDOMIZE) == -1)
		_exit(99);
	if ((chan >= 0 && dup2(chan, QC_WORKER_CHANNEL_FD) < 0) ||
	    (arena >= 0 && dup2(arena, QC_WORKER_ARENA_FD) < 0))
		_exit(98);
	execve(worker_exe(), argv, environ);
	_exit(127);
}

/* Runs the worker by hand up to its load report; the worker's pid, or -1. */
static pid_t worker_report(uintptr_t addr, size_t bytes, int norandom, qc_load_report *rep,
                           int *chan)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	int lo = fcntl(sv[1], F_DUPFD_CLOEXEC, 10); /* clear of fds 3 and 4 */
	close(sv[1]);
	int arena = memfd_create("qct-arena", MFD_CLOEXEC);
	int hi = arena >= 0 ? fcntl(arena, F_DUPFD_CLOEXEC, 10) : -1;
	if (arena >= 0)
		close(arena);
	pid_t pid = -1;
	if (lo >= 0 && hi >= 0 && ftruncate(hi, (off_t)bytes) == 0) {
		qc_worker_args a = {.parent = getpid(),
		                    .channel_fd = QC_WORKER_CHANNEL_FD,
		                    .arena_fd = QC_WORKER_ARENA_FD,
		                    .arena_addr = addr,
		                    .arena_bytes = bytes,
		                    .plugin = qct_build_path("stubs/libstub_ok.so")};
		char **argv = qc_wire_argv(worker_exe(), &a);
		if (argv)
			pid = spawn_by_hand(argv, lo, hi, norandom);
		free(argv);
	}
	if (lo >= 0)
		close(lo);
	if (hi >= 0)
		close(hi);
	memset(rep, 0, sizeof *rep);
	if (pid > 0 && qc_read_full(sv[0], rep, sizeof *rep) != (ssize_t)sizeof *rep)
		rep->ok = -1; /* no report */
	rep->error[sizeof rep->error - 1] = '\0';
	*chan = sv[0];
	return pid;
}

/*
 * The worker by hand: without its arguments it says so and exits 2. When it
 * cannot map the arena at the harness's address it sends a one-line load
 * error "cannot map the shared arena at 0x...: ...", which says whether the
 * address was taken (the runner then tries another worker).
 */
static void test_worker_by_hand(void)
{
	char *bare[] = {"qconform-worker", NULL};
	fflush(stderr);
	int saved = dup(2), nul = open("/dev/null", O_WRONLY);
	dup2(nul, 2); /* its complaint is not for the test log */
	pid_t pid = spawn_by_hand(bare, -1, -1, 0);
	dup2(saved, 2);
	close(saved);
	close(nul);
	CU_ASSERT_FATAL(pid > 0);
	int st, chan;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);

	/* An address no mmap takes. */
	qc_load_report rep;
	pid = worker_report(0x200000000123u, 65536, 0, &rep, &chan);
	CU_ASSERT_FATAL(pid > 0);
	close(chan);
	CU_ASSERT_EQUAL(rep.ok, 0);
	CU_ASSERT_EQUAL(rep.arena_taken, 0);
	CU_ASSERT_STRING_EQUAL(rep.error,
	                       "cannot map the shared arena at 0x200000000123: Invalid argument");
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);

	/* An address the worker itself uses: without randomization its stack is
	 * where it was in the probe. */
	pid = worker_report(0x200000000000u, 65536, 1, &rep, &chan);
	CU_ASSERT_FATAL(pid > 0);
	uintptr_t stack_end = 0, stack_lo;
	if (rep.ok == 1 && !find_mapping(pid, "[stack]", &stack_lo, &stack_end))
		stack_end = 0;
	close(chan); /* the worker sees its channel close and exits */
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	if (rep.ok != 1 || !stack_end) {
		fprintf(stderr,
		        "\n  no ADDR_NO_RANDOMIZE here: the taken-address case is skipped\n");
		return;
	}
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	pid = worker_report(stack_end - 65536, 65536, 1, &rep, &chan);
	CU_ASSERT_FATAL(pid > 0);
	close(chan);
	char want[128];
	snprintf(want, sizeof want, "cannot map the shared arena at 0x%" PRIxPTR ": File exists",
	         stack_end - 65536);
	CU_ASSERT_EQUAL(rep.ok, 0);
	CU_ASSERT_EQUAL(rep.arena_taken, 1);
	CU_ASSERT_STRING_EQUAL(rep.error, want);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
}

/* A process's state letter and CPU ticks (user + system), from /proc; 0 if it is gone. */
static char proc_state(pid_t pid, long *ticks)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	char state = 0;
	long utime = 0, stime = 0;
	/* after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime */
	if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &state,
	                 &utime, &stime) != 3)
		return 0;
	if (ticks)
		*ticks = utime + stime;
	return state;
}

/* Is pid gone (or a zombie nobody has collected yet)? */
static int process_gone(pid_t pid)
{
	char st = proc_state(pid, NULL);
	return st == 0 || st == 'Z' || st == 'X';
}

/* A worker stuck in a kernel dies with its harness (the parent-death signal). */
static void test_worker_dies_with_harness(void)
{
	int pfd[2];
	CU_ASSERT_FATAL(pipe(pfd) == 0);
	fflush(NULL);
	pid_t kid = fork();
	CU_ASSERT_FATAL(kid >= 0);
	if (kid == 0) {
		close(pfd[0]);
		qc_runner *r = open_stub("hang", 0, 1 << 20);
		char path[64], buf[64] = "";
		snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
		FILE *f = fopen(path, "r");
		if (!r || !f || !fgets(buf, sizeof buf, f))
			_exit(1);
		fclose(f);
		pid_t w = (pid_t)atol(buf);
		if (write(pfd[1], &w, sizeof w) != (ssize_t)sizeof w)
			_exit(1);
		tcall a;
		quantize_linear(&a, QL_IN, 6, 2.0f, 128);
		tcall *t[] = {&a};
		qc_exec_result res[1];
		run(r, t, 1, res, NULL); /* never returns: no timeout */
		_exit(1);
	}
	close(pfd[1]);
	pid_t w = 0;
	CU_ASSERT_EQUAL(read(pfd[0], &w, sizeof w), (ssize_t)sizeof w);
	close(pfd[0]);
	CU_ASSERT_FATAL(w > 0);
	/* Wait until the worker spins in the kernel: 0.2 s of CPU, far more than its start. */
	struct timespec nap = {0, 10 * 1000000};
	long ticks = 0, enough = sysconf(_SC_CLK_TCK) / 5;
	for (int i = 0; i < 1000 && proc_state(w, &ticks) && ticks < enough; i++)
		nanosleep(&nap, NULL);
	CU_ASSERT(ticks >= enough);
	CU_ASSERT_FALSE(process_gone(w));
	kill(kid, SIGKILL);
	int st;
	CU_ASSERT_EQUAL(waitpid(kid, &st, 0), kid);
	int gone = 0;
	for (int i = 0; i < 500 && !gone; i++) {
		gone = process_gone(w);
		nanosleep(&nap, NULL);
	}
	CU_ASSERT(gone);
	if (!gone)
		kill(w, SIGKILL);
}

/*
 * The conditions that once hung the runner: several threads, each with its
 * own runner, restart workers all the time (every other case crashes) while
 * the main thread allocates and frees. A worker made by a bare fork of this
 * multi-threaded process could inherit an allocator lock another thread held
 * and hang in dlopen ("loading timed out"); a spawned worker cannot.
 */
enum { STRESS_THREADS = 4, STRESS_ROUNDS = 40, STRESS_BATCH = 8 };

typedef struct stress_job {
	const char *stub;
	char path[512]; /* the stub's; qct_build_path is not for threads */
	int crash_signal;
	int ok, crashed, wrong, restarts, failed;
	char why[512];
} stress_job;

static atomic_int stress_running;

static void *stress_thread(void *arg)
{
	stress_job *j = arg;
	tcall *bad = calloc(1, sizeof *bad), *good = calloc(1, sizeof *good);
	qc_runner *r = NULL;
	char err[512] = "";
	/* A load that hangs fails after 30 s instead of hanging the test. */
	qc_runner_config cfg = {.plugin_path = j->path, .timeout_s = 30, .arena_bytes = 1 << 20};
	if (!bad || !good || qc_runner_open(&cfg, &r, NULL, err, sizeof err) != 0) {
		j->failed = 1;
		snprintf(j->why, sizeof j->why, "open: %s", err);
		goto out;
	}
	/* crash: DEQUANTIZE segfaults; abort: fake_quant aborts. */
	int crash = strcmp(j->stub, "crash") == 0;
	if (crash) {
		dequantize(bad, DQ_IN, 8, 0.5f, 1);
		fake_quant(good, FQ_IN, 8, -1.0, 1.0);
	} else {
		fake_quant(bad, FQ_IN, 8, -1.0, 1.0);
		dequantize(good, DQ_IN, 8, 0.5f, 1);
	}
	const qcf_op_call *calls[STRESS_BATCH], *staged[STRESS_BATCH];
	qc_exec_result res[STRESS_BATCH];
	for (int i = 0; i < STRESS_BATCH; i++)
		calls[i] = i % 2 ? &good->call : &bad->call;
	for (int round = 0; round < STRESS_ROUNDS && !j->failed; round++) {
		if (qc_runner_execute(r, calls, STRESS_BATCH, res, staged, err, sizeof err) != 0) {
			j->failed = 1;
			snprintf(j->why, sizeof j->why, "execute: %s", err);
			break;
		}
		for (int i = 0; i < STRESS_BATCH; i++) {
			if (i % 2 == 0 && res[i].outcome == QC_EXEC_CRASH &&
			    res[i].signal == j->crash_signal) {
				j->crashed++;
				j->restarts++;
			} else if (i % 2 == 1 && res[i].outcome == QC_EXEC_OK &&
			           (crash ? matches_reference(good, &staged[i]->outputs[0])
			                  : dequantized_right(good, &staged[i]->outputs[0]))) {
				j->ok++;
			} else {
				if (j->wrong++ == 0) {
					/* the whole batch: outcome/signal per case */
					int at = snprintf(j->why, sizeof j->why,
					                  "round %d case %d: \"%s\"; batch:", round,
					                  i, res[i].message);
					for (int q = 0; q < STRESS_BATCH && at > 0 &&
					                (size_t)at < sizeof j->why;
					     q++)
						at += snprintf(j->why + at,
						               sizeof j->why - (size_t)at, " %d/%d",
						               (int)res[q].outcome, res[q].signal);
				}
			}
		}
	}
out:
	qc_runner_close(r);
	free(bad);
	free(good);
	atomic_fetch_sub(&stress_running, 1);
	return NULL;
}

/* Allocations from ever new call stacks, as a sanitizer records each one. */
__attribute__((noinline)) static void *churn_a(unsigned *seed, int depth);
__attribute__((noinline)) static void *churn_b(unsigned *seed, int depth)
{
	void *p = depth ? churn_a(seed, depth - 1) : malloc(16 + (size_t)(rand_r(seed) % 2048));
	__asm__ volatile("" ::: "memory");
	return p;
}
__attribute__((noinline)) static void *churn_a(unsigned *seed, int depth)
{
	void *p = depth ? (rand_r(seed) & 1 ? churn_a(seed, depth - 1) : churn_b(seed, depth - 1))
	                : malloc(16 + (size_t)(rand_r(seed) % 4096));
	__asm__ volatile("" ::: "memory");
	return p;
}

static void test_restarts_from_threads(void)
{
	stress_job jobs[STRESS_THREADS];
	pthread_t th[STRESS_THREADS];
	memset(jobs, 0, sizeof jobs);
	int fds = count_fds();
	atomic_store(&stress_running, STRESS_THREADS);
	int started = 0;
	for (int i = 0; i < STRESS_THREADS; i++) {
		jobs[i].stub = i % 2 ? "abort" : "crash";
		jobs[i].crash_signal = i % 2 ? SIGABRT : SIGSEGV;
		snprintf(jobs[i].path, sizeof jobs[i].path, "%s",
		         qct_build_path(i % 2 ? "stubs/libstub_abort.so"
		                              : "stubs/libstub_crash.so"));
		if (pthread_create(&th[i], NULL, stress_thread, &jobs[i]) != 0) {
			atomic_fetch_sub(&stress_running, 1);
			jobs[i].failed = 1;
			snprintf(jobs[i].why, sizeof jobs[i].why, "pthread_create");
			continue;
		}
		started |= 1 << i;
	}
	/* Meanwhile, this thread allocates: small and large blocks, many call stacks. */
	unsigned seed = 12345;
	long rounds = 0;
	while (atomic_load(&stress_running) > 0) {
		void *p[256];
		for (int i = 0; i < 256; i++) {
			size_t n = 16 + (size_t)rand_r(&seed) % (i % 64 == 0 ? 300000 : 4096);
			p[i] = i % 4 ? malloc(n) : churn_a(&seed, rand_r(&seed) % 40);
			if (p[i])
				memset(p[i], i, 16);
		}
		for (int i = 0; i < 256; i++)
			free(p[i]);
		rounds++;
	}
	int restarts = 0;
	for (int i = 0; i < STRESS_THREADS; i++) {
		if (started & (1 << i))
			pthread_join(th[i], NULL);
		stress_job *j = &jobs[i];
		restarts += j->restarts;
		CU_ASSERT_FALSE(j->failed);
		CU_ASSERT_EQUAL(j->wrong, 0);
		CU_ASSERT_EQUAL(j->crashed, STRESS_ROUNDS * STRESS_BATCH / 2);
		CU_ASSERT_EQUAL(j->ok, STRESS_ROUNDS * STRESS_BATCH / 2);
		if (j->failed || j->wrong)
			fprintf(stderr, "\n  thread %d (%s): %d wrong; %s\n", i, j->stub, j->wrong,
			        j->why);
	}
	CU_ASSERT_EQUAL(restarts, STRESS_THREADS * STRESS_ROUNDS * STRESS_BATCH / 2);
	CU_ASSERT(rounds > 0);
	CU_ASSERT(no_children());
	CU_ASSERT_EQUAL(count_fds(), fds);
}

/* Child processes of this process now, over all its threads. */
static int children(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[64], buf[4096];
		snprintf(path, sizeof path, "/proc/self/task/%.20s/children", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t got = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[got] = 0;
		for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n"))
			n++;
	}
	closedir(d);
	return n;
}

/* qc_jobs_open starts every worker before waiting for any: 4 workers of a plugin that loads
 * are all ready; a plugin that every worker refuses stops the open with its reason, and no
 * worker is left, whether refused, loaded or still loading. */
static void test_jobs_open_at_once(void)
{
	int before = children();
	CU_ASSERT_FATAL(before >= 0);
	char err[512] = "";
	qc_plugin_info info;
	qc_jobs *J = NULL;
	qc_runner_config ok = {.plugin_path = qct_stub("ok")};
	CU_ASSERT_EQUAL_FATAL(qc_jobs_open(&ok, NULL, 4, &J, &info, err, sizeof err), 0);
	CU_ASSERT_EQUAL(children(), before + 4);
	CU_ASSERT_STRING_NOT_EQUAL(info.name, "");
	qc_jobs_close(J);
	CU_ASSERT_EQUAL(children(), before);
	qc_runner_config refused = {.plugin_path = qct_stub("needs_option")};
	J = NULL;
	CU_ASSERT_EQUAL(qc_jobs_open(&refused, NULL, 4, &J, &info, err, sizeof err), -1);
	CU_ASSERT_PTR_NULL(J);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "create failed"));
	CU_ASSERT_EQUAL(children(), before);
}

void qct_register_runner(void)
{
	CU_pSuite s = qct_suite("runner");
	CU_add_test(s, "sha256 FIPS 180-4 vectors", test_sha256_vectors);
	CU_add_test(s, "sha256 of a file", test_sha256_file);
	CU_add_test(s, "refuses a missing file", test_refuse_missing_file);
	CU_add_test(s, "refuses a file dlopen rejects", test_refuse_not_a_library);
	CU_add_test(s, "refuses a plugin without the entry symbol", test_refuse_no_entry);
	CU_add_test(s, "refuses ABI version 0", test_refuse_old_abi);
	CU_add_test(s, "refuses an answer outside the host range", test_refuse_future_abi);
	CU_add_test(s, "refuses a NULL descriptor", test_refuse_null_descriptor);
	CU_add_test(s, "refuses a short descriptor", test_refuse_short_struct);
	CU_add_test(s, "refuses a NULL execute", test_refuse_null_execute);
	CU_add_test(s, "refuses when create fails", test_refuse_create_failing);
	CU_add_test(s, "passes options to create", test_options_reach_create);
	CU_add_test(s, "plugin info", test_open_info);
	CU_add_test(s, "qcf_negotiate_answer", test_negotiate_answer);
	CU_add_test(s, "trace switch", test_trace);
	CU_add_test(s, "ok stub equals the reference", test_ok_matches_reference);
	CU_add_test(s, "segfault is CRASH, next case runs", test_crash_then_next_ok);
	CU_add_test(s, "abort is CRASH SIGABRT", test_abort);
	CU_add_test(s, "hang is TIMEOUT, next case runs", test_hang_timeout);
	CU_add_test(s, "writing past an output is ERROR", test_scribble);
	CU_add_test(s, "a far overrun costs one case", test_scribble_far);
	CU_add_test(s, "writing an input is ERROR", test_modify_input);
	CU_add_test(s, "changing the call is ERROR", test_modify_call);
	CU_add_test(s, "NOT_SUPPORTED", test_supports_nothing);
	CU_add_test(s, "ties_half_up stub rounds ties up", test_ties_half_up);
	CU_add_test(s, "ignore_axis stub uses channel 0", test_ignore_axis);
	CU_add_test(s, "1000 cases in one worker", test_one_worker_per_batch);
	CU_add_test(s, "worker exit is CRASH signal 0", test_worker_exit);
	CU_add_test(s, "small arena runs the batch in pieces", test_arena_pieces);
	CU_add_test(s, "malformed call is ERROR", test_malformed_call);
	CU_add_test(s, "a missing worker executable is a load error", test_missing_worker);
	CU_add_test(s, "QCONFORM_WORKER names the worker", test_worker_from_env);
	CU_add_test(s, "the worker: exec'd, its fds, its arena", test_worker_process);
	CU_add_test(s, "options reach create() byte for byte", test_option_bytes);
	CU_add_test(s, "the worker by hand: usage, arena map error", test_worker_by_hand);
	CU_add_test(s, "a hung worker dies with its harness", test_worker_dies_with_harness);
	CU_add_test(s, "restarts from 4 threads while allocating", test_restarts_from_threads);
	CU_add_test(s, "jobs' workers load at once; a refusal leaves none behind",
	            test_jobs_open_at_once);
}
