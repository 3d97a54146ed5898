/*
 * qconform validate checks everything but the kernel: the op and its attributes against the
 * reference's schemas (the ops' rows, reference/op.h), and every expanded case against the
 * reference's own parameter checks, reported at the node that causes a refusal. Each broken spec
 * here is one that validate used to pass and run then failed on every case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "qct.h"
#include "reference/attrs.h"
#include "reference/kernel.h"
#include "reference/op.h"
#include "reference/qref.h"
#include "spec/spec.h"

/* Writes text to DIR/name, runs validate on it; checks exit 2 and that the first line of
 * stderr is exactly "DIR/name:" + want (want: "line:col: message"; a trailing '*' matches
 * any rest of the line). */
static void expect_error(const char *dir, const char *name, const char *text, const char *want)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
	char full[1200];
	snprintf(full, sizeof full, "%s:%s", path, want);
	size_t first = strcspn(p.err, "\n"), wl = strlen(full);
	int prefix = wl && full[wl - 1] == '*';
	if (prefix)
		wl--;
	int ok = p.status == 2 && (prefix ? first >= wl : first == wl) &&
	         strncmp(p.err, full, wl) == 0;
	if (!ok)
		fprintf(stderr, "\n  %s: want exit 2 and\n    %s\n  got exit %d and\n    %.*s\n",
		        name, full, p.status, (int)first, p.err);
	CU_ASSERT(ok);
	qct_proc_free(&p);
}

static void expect_valid(const char *dir, const char *name, const char *text)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s validate %s", qct_build_path("qconform"), path), 0);
	if (p.status != 0)
		fprintf(stderr, "\n  %s: want exit 0, got %d: %s\n", name, p.status, p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);
}

#define QUANTIZE_HEAD                                                                              \
	"semantics: litert\n"                                                                      \
	"inputs:\n"                                                                                \
	"  x: {dtype: float32, shape: [4], data: [0, 1, 2, 3]}\n"                                  \
	"outputs:\n"

static void test_unknown_op(void)
{
	const char *dir = qct_tmpdir();
	expect_error(dir, "foo.yaml",
	             "qconform: 1\nop: FOO\n" QUANTIZE_HEAD
	             "  y: {dtype: int8, shape: [4], quant: {scale: 0.1}}\n",
	             "2:5: unknown op 'FOO' of litert; the nearest of its *");
	expect_error(dir, "empty.yaml",
	             "qconform: 1\nop: ''\n" QUANTIZE_HEAD
	             "  y: {dtype: int8, shape: [4], quant: {scale: 0.1}}\n",
	             "2:5: unknown op '' of litert; the nearest of its *");
	expect_error(dir, "near.yaml",
	             "qconform: 1\nop: QUANTIZ\n" QUANTIZE_HEAD
	             "  y: {dtype: int8, shape: [4], quant: {scale: 0.1}}\n",
	             "2:5: unknown op 'QUANTIZ' of litert; did you mean 'QUANTIZE'?");
	/* the names are those of the spec's semantics: CONV_2D is litert's, not onnx's */
	expect_error(dir, "other.yaml",
	             "qconform: 1\nop: CONV_2D\nsemantics: onnx\ninputs:\n"
	             "  x: {dtype: float32, shape: [4], data: [0, 1, 2, 3]}\noutputs:\n"
	             "  y: {dtype: float32, shape: [4]}\n",
	             "2:5: unknown op 'CONV_2D' of onnx; the nearest of its *");
	qct_rmdir(dir);
}

#define CONV_HEAD                                                                                  \
	"qconform: 1\n"                                                                            \
	"op: CONV_2D\n"                                                                            \
	"semantics: litert\n"                                                                      \
	"inputs:\n"                                                                                \
	"  input: {dtype: int8, shape: [1, 3, 3, 1], quant: {scale: 0.5}, data: {gen: uniform}}\n" \
	"  filter: {dtype: int8, shape: [1, 2, 2, 1], quant: {scale: 0.5}, data: {gen: "           \
	"uniform}}\n"

static void test_attributes(void)
{
	const char *dir = qct_tmpdir();
	const char *out =
	        "outputs:\n  output: {dtype: int8, shape: [1, 2, 2, 1], quant: {scale: 1}}\n";
	char text[2048];
	/* a misspelt name is an error with the nearest name, not a silent default */
	snprintf(text, sizeof text,
	         CONV_HEAD "%sattrs: {padding: VALID, fused_activaton_function: RELU}\n", out);
	expect_error(dir, "misspelt.yaml", text,
	             "9:25: unknown attribute 'fused_activaton_function' of litert/CONV_2D; did "
	             "you mean 'fused_activation_function'?");
	/* in an explicit case too */
	snprintf(text, sizeof text,
	         CONV_HEAD
	         "%sattrs: {padding: VALID}\ncases:\n  - name: c\n    attrs: {strides: 2}\n",
	         out);
	expect_error(dir, "case_attr.yaml", text,
	             "12:13: unknown attribute 'strides' of litert/CONV_2D; did you mean "
	             "'stride_h'?");
	/* an op without attributes */
	expect_error(dir, "none.yaml",
	             "qconform: 1\nop: QUANTIZE\n" QUANTIZE_HEAD
	             "  y: {dtype: int8, shape: [4], quant: {scale: 0.1}}\nattrs: {axis: 0}\n",
	             "8:9: unknown attribute 'axis' of litert/QUANTIZE, which takes no "
	             "attributes");
	/* out of the schema's range, at the value (a swept one at the expression) */
	snprintf(text, sizeof text, CONV_HEAD "%sattrs: {padding: VALID, stride_h: 0}\n", out);
	expect_error(dir, "range.yaml", text,
	             "9:35: attribute 'stride_h' of litert/CONV_2D must be an integer in [1, "
	             "2147483647], got 0");
	snprintf(text, sizeof text,
	         "sweep: {p: [VALID, FULL]}\n" CONV_HEAD "%sattrs: {padding: =p}\n", out);
	expect_error(dir, "enum.yaml", text,
	             "10:18: attribute 'padding' of litert/CONV_2D must be one of SAME, VALID (or "
	             "its index), got 'FULL'");
	/* a required attribute missing */
	expect_error(dir, "required.yaml",
	             "qconform: 1\nop: fake_quantize_per_tensor_affine\nsemantics: torch\ninputs:\n"
	             "  x: {dtype: float32, shape: [2], data: [0, 1]}\noutputs:\n"
	             "  y: {dtype: float32, shape: [2]}\n"
	             "attrs: {scale: 0.1, zero_point: 0, quant_min: 0}\n",
	             "8:8: torch/fake_quantize_per_tensor_affine needs attribute 'quant_max' (it "
	             "has no default)");
	/* a negative case may break the schema on purpose: the reference refuses it */
	snprintf(text, sizeof text,
	         CONV_HEAD "%sattrs: {padding: VALID}\ncases:\n  - name: zero_stride\n"
	                   "    expect: error\n    attrs: {stride_h: 0}\n",
	         out);
	expect_valid(dir, "negative.yaml", text);
	qct_rmdir(dir);
}

#define FQ_HEAD                                                                                    \
	"qconform: 1\n"                                                                            \
	"op: fake_quantize_per_tensor_affine\n"                                                    \
	"semantics: torch\n"                                                                       \
	"inputs:\n"                                                                                \
	"  x: {dtype: float32, shape: [4], data: [0, 1, 2, 3]}\n"                                  \
	"outputs:\n"                                                                               \
	"  y: {dtype: float32, shape: [4]}\n"                                                      \
	"attrs: {scale: 0.1, zero_point: 0, quant_min: 0, quant_max: 255}\n"

/* The reference's own checks on every case, at the node that causes the refusal. */
static void test_reference_checks(void)
{
	const char *dir = qct_tmpdir();
	/* quant_min > quant_max in a case declared valid: at the case's quant_min */
	expect_error(dir, "qrange.yaml",
	             FQ_HEAD "cases:\n  - name: inverted\n"
	                     "    attrs: {quant_min: 10, quant_max: 5, zero_point: 7}\n",
	             "11:24: the reference refuses case torch/qrange/case/inverted, which the spec "
	             "calls valid: fake_quantize_per_tensor_affine: `quant_min` should be less "
	             "than or equal to `quant_max` (10 > 5)");
	/* the same case declared negative is a valid spec */
	expect_valid(dir, "qrange_negative.yaml",
	             FQ_HEAD "cases:\n  - name: inverted\n    expect: error\n"
	                     "    attrs: {quant_min: 10, quant_max: 5, zero_point: 7}\n");
	/* expect: error that the reference accepts: at the expect */
	expect_error(dir, "accepted.yaml",
	             FQ_HEAD "cases:\n  - name: fine\n    expect: error\n"
	                     "    attrs: {quant_min: 0, quant_max: 5}\n",
	             "11:13: case torch/accepted/case/fine expects an error, but the reference "
	             "accepts it (run would judge it ERROR: the spec and the reference disagree)");
	/* an expression's expect: at the expression, once for the whole sweep */
	expect_error(dir, "accepted_sweep.yaml",
	             "sweep: {q: [5, 6, 7]}\nexpect: \"=q > 0 and 'error' or 'ok'\"\n" FQ_HEAD,
	             "2:9: case torch/accepted_sweep/q=5 expects an error, but the reference "
	             "accepts it (run would judge it ERROR: the spec and the reference disagree)");
	/* an output shape the op cannot produce: at the output's shape */
	expect_error(dir, "shape.yaml",
	             "qconform: 1\nop: QUANTIZE\n" QUANTIZE_HEAD
	             "  y: {dtype: int8, shape: [5], quant: {scale: 0.1}}\n",
	             "7:27: the reference refuses case litert/shape/default, which the spec calls "
	             "valid: QUANTIZE output shape must equal input shape");
	expect_error(dir, "conv_shape.yaml",
	             CONV_HEAD "outputs:\n  output: {dtype: int8, shape: [1, 3, 3, 1], quant: "
	                       "{scale: 1}}\nattrs: {padding: VALID}\n",
	             "8:32: the reference refuses case litert/conv_shape/default, which the spec "
	             "calls valid: CONV_2D: output shape must be [1, 2, 2, 1]");
	/* a tensor's quantization: at its quant */
	expect_error(
	        dir, "quant.yaml",
	        "qconform: 1\nop: CONV_2D\nsemantics: litert\ninputs:\n"
	        "  input: {dtype: int8, shape: [1, 3, 3, 1], quant: {scale: 0.5}, data: {gen: "
	        "uniform}}\n"
	        "  filter: {dtype: int8, shape: [1, 2, 2, 1], quant: {scale: 0.5}, data: {gen: "
	        "uniform}}\n"
	        "outputs:\n  output: {dtype: int8, shape: [1, 2, 2, 1], quant: {axis: 3, "
	        "scales: [1]}}\nattrs: {padding: VALID}\n",
	        "8:53: the reference refuses case litert/quant/default, which the spec calls "
	        "valid: output must be quantized per tensor, not per axis");
	/* the number of inputs: at inputs */
	expect_error(dir, "count.yaml",
	             "qconform: 1\nop: QUANTIZE\nsemantics: litert\ninputs:\n"
	             "  x: {dtype: float32, shape: [4], data: [0, 1, 2, 3]}\n"
	             "  z: {dtype: float32, shape: [4], data: [0, 1, 2, 3]}\noutputs:\n"
	             "  y: {dtype: int8, shape: [4], quant: {scale: 0.1}}\n",
	             "5:3: litert/QUANTIZE takes 1 input (x), the spec gives 2");
	qct_rmdir(dir);
}

/* Every committed spec validates: its ops and attributes are in the schemas and the reference
 * accepts every case it calls valid and refuses every negative one. */
static void test_committed_specs_validate(void)
{
	qct_proc p;
	/* qct_specs(): the sanitizer pass expands all of specs/ in the run suite's reference run */
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh_shared(&p, "%s validate %s", qct_build_path("qconform"), qct_specs()), 0);
	if (p.status != 0)
		fprintf(stderr, "\n%s", p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NULL(strstr(p.err, "error"));
	qct_proc_free(&p);
}

/* The schemas and the kernels agree: every op has one row, its kernel and its schema, found by
 * name and by position alike; running every case of the committed specs through the
 * reference, no kernel reads an attribute its op's schema does not list. */
static void test_schema_matches_kernels(void)
{
	int n_schemas = 0;
	for (const qref_op_schema *o; (o = qref_op_schema_at(n_schemas)); n_schemas++) {
		const qref_op *r = qref_op_find(o->semantics, o->op);
		if (!r || &r->schema != o)
			fprintf(stderr, "\n  %s/%s: another row has its name", o->semantics, o->op);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_PTR_EQUAL(&r->schema, o);
		CU_ASSERT_PTR_EQUAL(qref_op_schema_find(o->semantics, o->op), o);
		CU_ASSERT_EQUAL(qref_op_index(o), n_schemas);
		CU_ASSERT_PTR_NOT_NULL(r->kernel);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o->attrs);
		qcf_op_call call = {
		        .struct_size = sizeof call, .op = o->op, .semantics = o->semantics};
		CU_ASSERT_EQUAL(qref_supports(&call), QCF_OK);
		int n_in = 0, n_out = 0;
		while (o->inputs[n_in])
			n_in++;
		while (o->outputs[n_out])
			n_out++;
		CU_ASSERT(o->min_inputs >= 1 && o->min_inputs <= o->max_inputs &&
		          o->max_inputs <= QREF_MAX_SCHEMA_TENSORS && n_in <= o->max_inputs);
		CU_ASSERT(n_out == o->n_outputs && n_out <= QREF_MAX_OUTPUTS);
		CU_ASSERT(n_schemas < QREF_ATTR_TRACKED_OPS); /* else its reads go untracked */
		for (const qref_attr_schema *a = o->attrs; a->name; a++) {
			CU_ASSERT(a - o->attrs < QREF_ATTR_TRACKED_ATTRS);
			CU_ASSERT(a->required == !a->def);
			CU_ASSERT(a->type != QREF_ATTR_ENUM || (a->names && a->names[0]));
		}
	}
	CU_ASSERT(n_schemas > 80);
	if (qct_under_sanitizers()) {
		printf("\n  sanitizer pass: every case through the reference is the run suite's "
		       "reference run\n");
		return;
	}

	/* every case of every committed spec, through the reference */
	char **files = NULL, **profiles = NULL;
	int n_profiles = 0;
	char *dirs[] = {"specs"};
	qc_diag diag = {0, 0, stderr};
	int n = qc_spec_find(dirs, 1, &files, &profiles, &n_profiles, &diag);
	CU_ASSERT(n > 100);
	unsigned long before = qref_attr_unlisted_reads(NULL, 0), cases = 0;
	for (int i = 0; i < n; i++) {
		qc_spec *s = qc_spec_load(files[i], &diag);
		CU_ASSERT_PTR_NOT_NULL(s);
		if (s) {
			qc_cases *it = qc_cases_begin(s, 0, 1, &diag);
			qc_case *c;
			int rc;
			while ((rc = qc_cases_next(it, &c)) != 0) {
				if (rc < 0)
					continue;
				qref_detail d;
				memset(&d, 0, sizeof d);
				qref_execute(&c->call, &d);
				cases++;
				qc_case_free(c);
			}
			qc_cases_end(it);
			qc_spec_free(s);
		}
		free(files[i]);
	}
	for (int i = 0; i < n_profiles; i++)
		free(profiles[i]);
	free(files);
	free(profiles);
	CU_ASSERT_EQUAL(diag.errors, 0);
	char first[200];
	unsigned long unlisted = qref_attr_unlisted_reads(first, sizeof first) - before;
	if (unlisted)
		fprintf(stderr, "\n  %lu reads of attributes no schema lists, first: %s\n",
		        unlisted, first);
	CU_ASSERT_EQUAL(unlisted, 0);
	CU_ASSERT(cases > 20000);
	/* and every attribute a schema lists is one its kernel reads */
	for (int i = 0; qref_op_schema_at(i); i++) {
		const qref_op_schema *o = qref_op_schema_at(i);
		for (const qref_attr_schema *a = o->attrs; a->name; a++) {
			if (!qref_attr_was_read(o, a))
				fprintf(stderr, "\n  %s/%s: no case read '%s'", o->semantics, o->op,
				        a->name);
			CU_ASSERT(qref_attr_was_read(o, a));
		}
	}
}

/* The count itself: a read of a name the schema lacks is seen (the test above cannot pass by
 * counting nothing). */
static void test_unlisted_read_counted(void)
{
	qcf_op_call call = {.struct_size = sizeof call, .op = "ADD", .semantics = "litert"};
	unsigned long before = qref_attr_unlisted_reads(NULL, 0);
	CU_ASSERT_PTR_NULL(qref_attr_find(&call, "fused_activation_function"));
	CU_ASSERT_EQUAL(qref_attr_unlisted_reads(NULL, 0), before);
	CU_ASSERT_PTR_NULL(qref_attr_find(&call, "no_such_attribute"));
	CU_ASSERT_EQUAL(qref_attr_unlisted_reads(NULL, 0), before + 1);
}

static void test_attr_check(void)
{
	const qref_op_schema *conv = qref_op_schema_find("litert", "CONV_2D");
	CU_ASSERT_PTR_NOT_NULL_FATAL(conv);
	const qref_attr_schema *pad = qref_attr_schema_find(conv, "padding");
	const qref_attr_schema *act = qref_attr_schema_find(conv, "fused_activation_function");
	const qref_attr_schema *sh = qref_attr_schema_find(conv, "stride_h");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pad);
	CU_ASSERT_PTR_NOT_NULL_FATAL(act);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sh);
	CU_ASSERT_PTR_NULL(qref_attr_schema_find(conv, "strides"));
	char msg[256];
	qcf_attr a = {.name = "padding", .type = QCF_ATTR_STRING, .count = 1, .v.s = "SAME"};
	CU_ASSERT_EQUAL(qref_attr_check(pad, &a, msg, sizeof msg), 0);
	a.v.s = "same";
	CU_ASSERT_EQUAL(qref_attr_check(pad, &a, msg, sizeof msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "must be one of SAME, VALID (or its index), got 'same'");
	a = (qcf_attr){.name = "padding", .type = QCF_ATTR_INT, .count = 1, .v.i = 1};
	CU_ASSERT_EQUAL(qref_attr_check(pad, &a, msg, sizeof msg), 0); /* TFLite's enum index */
	a.v.i = 2;
	CU_ASSERT_EQUAL(qref_attr_check(pad, &a, msg, sizeof msg), -1);
	a = (qcf_attr){.name = "stride_h", .type = QCF_ATTR_FLOAT, .count = 1, .v.f = 2.0};
	CU_ASSERT_EQUAL(qref_attr_check(sh, &a, msg, sizeof msg), 0); /* an integral float */
	a.v.f = 1.5;
	CU_ASSERT_EQUAL(qref_attr_check(sh, &a, msg, sizeof msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "must be an integer in [1, 2147483647], got 1.5");
	const qref_op_schema *sm = qref_op_schema_find("litert", "SOFTMAX");
	const qref_attr_schema *beta = qref_attr_schema_find(sm, "beta");
	CU_ASSERT_PTR_NOT_NULL_FATAL(beta);
	a = (qcf_attr){.name = "beta", .type = QCF_ATTR_FLOAT, .count = 1, .v.f = 0};
	CU_ASSERT_EQUAL(qref_attr_check(beta, &a, msg, sizeof msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "must be a number > 0, got 0");
	const qref_op_schema *qc = qref_op_schema_find("onnx", "QLinearConv");
	const qref_attr_schema *strides = qref_attr_schema_find(qc, "strides");
	CU_ASSERT_PTR_NOT_NULL_FATAL(strides);
	int64_t ok[] = {1, 2}, bad[] = {1, 0};
	a = (qcf_attr){.name = "strides", .type = QCF_ATTR_INTS, .count = 2, .v.ints = ok};
	CU_ASSERT_EQUAL(qref_attr_check(strides, &a, msg, sizeof msg), 0);
	a.v.ints = bad;
	CU_ASSERT_EQUAL(qref_attr_check(strides, &a, msg, sizeof msg), -1);
	CU_ASSERT_STRING_EQUAL(msg, "must be a list of integers, each >= 1, got 0 at index 1");
}

/* A refusal says what caused it: the common checks name the tensor and its part, the
 * attribute sites the attribute; the rest are about the op. */
static void test_refusal_causes(void)
{
	float xs[4] = {0, 1, 2, 3}, ys[4];
	int64_t shape4[1] = {4}, shape5[1] = {5};
	qcf_tensor in = {.struct_size = sizeof in,
	                 .name = "x",
	                 .dtype = QCF_FLOAT32,
	                 .rank = 1,
	                 .shape = shape4,
	                 .data = xs,
	                 .nbytes = sizeof xs};
	qcf_tensor out = {.struct_size = sizeof out,
	                  .name = "y",
	                  .dtype = QCF_FLOAT32,
	                  .rank = 1,
	                  .shape = shape4,
	                  .data = ys,
	                  .nbytes = sizeof ys};
	qcf_attr attrs[4] = {
	        {.name = "scale", .type = QCF_ATTR_FLOAT, .count = 1, .v.f = 0.1},
	        {.name = "zero_point", .type = QCF_ATTR_INT, .count = 1, .v.i = 0},
	        {.name = "quant_min", .type = QCF_ATTR_INT, .count = 1, .v.i = 10},
	        {.name = "quant_max", .type = QCF_ATTR_INT, .count = 1, .v.i = 5},
	};
	qcf_op_call call = {.struct_size = sizeof call,
	                    .op = "fake_quantize_per_tensor_affine",
	                    .semantics = "torch",
	                    .n_inputs = 1,
	                    .inputs = &in,
	                    .n_outputs = 1,
	                    .outputs = &out,
	                    .n_attrs = 4,
	                    .attrs = attrs};
	qref_detail d;
	memset(&d, 0, sizeof d);
	CU_ASSERT_EQUAL(qref_execute(&call, &d), QCF_INVALID_PARAM);
	CU_ASSERT_EQUAL(d.cause.kind, QREF_CAUSE_ATTR);
	CU_ASSERT_STRING_EQUAL(d.cause.attr, "quant_min");
	/* an attribute helper's refusal names the attribute: tf's num_bits */
	qcf_attr bits = {.name = "num_bits", .type = QCF_ATTR_INT, .count = 1, .v.i = 1};
	qcf_op_call tf = {.struct_size = sizeof tf,
	                  .op = "fake_quant_with_min_max_args",
	                  .semantics = "tf",
	                  .n_inputs = 1,
	                  .inputs = &in,
	                  .n_outputs = 1,
	                  .outputs = &out,
	                  .n_attrs = 1,
	                  .attrs = &bits};
	CU_ASSERT_EQUAL(qref_execute(&tf, &d), QCF_INVALID_PARAM);
	CU_ASSERT_EQUAL(d.cause.kind, QREF_CAUSE_ATTR);
	CU_ASSERT_STRING_EQUAL(d.cause.attr, "num_bits");
	/* the count of inputs */
	call.n_inputs = 0;
	CU_ASSERT_EQUAL(qref_execute(&call, &d), QCF_INVALID_PARAM);
	CU_ASSERT_EQUAL(d.cause.kind, QREF_CAUSE_INPUTS);
	/* a tensor's quantization: QUANTIZE's output without any */
	int8_t q[5];
	qcf_tensor qout = {.struct_size = sizeof qout,
	                   .name = "y",
	                   .dtype = QCF_INT8,
	                   .rank = 1,
	                   .shape = shape4,
	                   .data = q,
	                   .nbytes = 4};
	qcf_op_call qz = {.struct_size = sizeof qz,
	                  .op = "QUANTIZE",
	                  .semantics = "litert",
	                  .n_inputs = 1,
	                  .inputs = &in,
	                  .n_outputs = 1,
	                  .outputs = &qout};
	CU_ASSERT_EQUAL(qref_execute(&qz, &d), QCF_INVALID_PARAM);
	CU_ASSERT_EQUAL(d.cause.kind, QREF_CAUSE_OUTPUT);
	CU_ASSERT_EQUAL(d.cause.index, 0);
	CU_ASSERT_EQUAL(d.cause.part, QREF_PART_QUANT);
	/* its shape */
	float one = 0.1f;
	int32_t zp = 0;
	qcf_quant qp = {.struct_size = sizeof qp,
	                .axis = -1,
	                .count = 1,
	                .scales = &one,
	                .zero_points = &zp};
	qout.quant = &qp;
	qout.shape = shape5;
	qout.nbytes = 5;
	CU_ASSERT_EQUAL(qref_execute(&qz, &d), QCF_INVALID_PARAM);
	CU_ASSERT_EQUAL(d.cause.kind, QREF_CAUSE_OUTPUT);
	CU_ASSERT_EQUAL(d.cause.part, QREF_PART_SHAPE);
	/* accepted: the cause is cleared with the message */
	qout.shape = shape4;
	qout.nbytes = 4;
	CU_ASSERT_EQUAL(qref_execute(&qz, &d), QCF_OK);
	CU_ASSERT_EQUAL(d.cause.kind, QREF_CAUSE_OP);
	CU_ASSERT_STRING_EQUAL(d.message, "");
}

void qct_register_validate(void)
{
	CU_pSuite s = qct_suite("validate");
	CU_add_test(s, "unknown op: nearest names of its semantics", test_unknown_op);
	CU_add_test(s, "attributes: names, types, ranges, required", test_attributes);
	CU_add_test(s, "the reference's checks on every case, at their node",
	            test_reference_checks);
	CU_add_test(s, "every committed spec validates", test_committed_specs_validate);
	CU_add_test(s, "schemas and kernels agree", test_schema_matches_kernels);
	CU_add_test(s, "an unlisted read is counted", test_unlisted_read_counted);
	CU_add_test(s, "attribute values against the schema", test_attr_check);
	CU_add_test(s, "refusals name their cause", test_refusal_causes);
}
