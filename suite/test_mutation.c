/*
 * The mutation score of the specs (suite/mutants/README.md): every mutant
 * definition applies to the reference as it is now, a definition whose
 * snippet is missing or ambiguous is an error and never a silent mutant, and
 * `make mutation` kills at least the committed floor of the mutants while the
 * control mutant (the same behaviour written differently) survives: the
 * mechanism neither kills everything nor nothing.
 *
 * The score runs every mutant's specs (minutes): it is skipped under the
 * sanitizers (QCONFORM_BUILD ending in "san", or SAN set), where `make test`
 * has already run it once unsanitized.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qct.h"

static const char *build_dir(void)
{
	const char *b = getenv("QCONFORM_BUILD");
	return b && *b ? b : "build";
}

/* The variant tool's absolute path (the broken-definition test runs it from elsewhere). */
static const char *tool_path(void)
{
	static char path[1024];
	const char *rel = qct_build_path("variants/variant");
	char cwd[512];
	if (rel[0] == '/' || !getcwd(cwd, sizeof cwd))
		snprintf(path, sizeof path, "%s", rel);
	else
		snprintf(path, sizeof path, "%s/%s", cwd, rel);
	return path;
}

/* Writes text to dir/name; returns the path (static buffer). */
static const char *write_file(const char *dir, const char *name, const char *text)
{
	static char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_definitions_apply(void)
{
	qct_proc p;
	/* at least 30 scored definitions, each naming its bug */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "ls reference/variants/*.var | wc -l"), 0);
	int n = atoi(p.out);
	CU_ASSERT(n >= 30);
	qct_proc_free(&p);
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "grep -L '^description: ..........' reference/variants/*.var"), 0);
	CU_ASSERT_STRING_EQUAL(p.out, "");
	qct_proc_free(&p);

	/* every definition (and the control) applies: its snippet occurs exactly once */
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "%s --check reference/variants/*.var suite/mutants/control/*.var",
	               qct_build_path("variants/variant")),
	        0);
	if (p.status != 0)
		fprintf(stderr, "\n%s", p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	qct_proc_free(&p);

	/* the specs a mutant runs without a specs: line of its own: those of the ops that can
	 * reach the mutated file */
	static const struct {
		const char *file, *has, *lacks;
	} scope[] = {
	        /* its own ops only */
	        {"reference/tf_fake_quant.c", " specs/tf/fake_quant_with_min_max_args.yaml ",
	         "specs/litert/"},
	        {"reference/litert_conv.c", " specs/litert/depthwise_conv_2d.yaml ",
	         " specs/litert/add.yaml "},
	        /* fixedpoint.c is reached through litert_activations.c and litert_arith.c only */
	        {"reference/fixedpoint.c", " specs/litert/softmax.yaml ",
	         " specs/litert/add.yaml "},
	        /* torch_linear.c calls torch_quantize.c */
	        {"reference/torch_quantize.c", " specs/torch/quantized_linear.yaml ",
	         " specs/torch/fake_quantize_per_tensor_affine.yaml "},
	        /* every kernel reads tensors through dtype.c */
	        {"reference/dtype.c", " specs ", "specs/"},
	};
	for (size_t k = 0; k < sizeof scope / sizeof scope[0]; k++) {
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p,
		               "m=$(grep -L '^specs:' $(grep -l '^file: %s$' "
		               "reference/variants/*.var suite/mutants/control/*.var) | "
		               "head -n 1) && "
		               "echo \" $(%s --field specs $m) \"",
		               scope[k].file, qct_build_path("variants/variant")),
		        0);
		int ok = p.status == 0 && strstr(p.out, scope[k].has) &&
		         !strstr(p.out, scope[k].lacks);
		if (!ok)
			fprintf(stderr, "\n%s: specs '%s'", scope[k].file, p.out);
		CU_ASSERT(ok);
		qct_proc_free(&p);
	}
}

static void test_broken_definitions_refused(void)
{
	/* a reference of its own in a scratch directory: the tool reads file: from the cwd */
	const char *tmp = qct_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	char ref[600];
	snprintf(ref, sizeof ref, "%s/reference", tmp);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "mkdir '%s'", ref), 0);
	qct_proc_free(&p);
	write_file(ref, "toy.c",
	           "int f(int x)\n{\n\treturn x + 1;\n}\n\nint g(int x)\n{\n\treturn x + 1;\n}\n");
	static const char *const bad[][2] = {
	        /* the snippet is not in the file (a refactor moved it) */
	        {"description: gone\nfile: reference/toy.c\n@@@ original\n\treturn x - 1;\n"
	         "@@@ variant\n\treturn x;\n@@@ end\n",
	         "occurs 0 times"},
	        /* a snippet that occurs twice would mutate an unknown one of them */
	        {"description: twice\nfile: reference/toy.c\n@@@ original\n\treturn x + 1;\n"
	         "@@@ variant\n\treturn x;\n@@@ end\n",
	         "occurs 2 times"},
	        /* a mutant that is the original */
	        {"description: same\nfile: reference/toy.c\n@@@ original\nint f(int x)\n"
	         "@@@ variant\nint f(int x)\n@@@ end\n",
	         "the variant is the original"},
	        /* the plugin's own source is not a mutable reference object */
	        {"description: plugin\nfile: reference/plugin.c\n@@@ original\nx\n@@@ variant\ny\n"
	         "@@@ end\n",
	         "not plugin.c"},
	        {"file: reference/toy.c\n@@@ original\nint f(int x)\n@@@ variant\nint f(long x)\n"
	         "@@@ end\n",
	         "no 'description:' line"},
	        {"description: unfinished\nfile: reference/toy.c\n@@@ original\nint f(int x)\n",
	         "in that order"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		write_file(tmp, "bad.var", bad[k][0]);
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p, "cd '%s' && '%s' --check bad.var", tmp, tool_path()), 0);
		CU_ASSERT_EQUAL(p.status, 2);
		if (!strstr(p.err, bad[k][1]))
			fprintf(stderr, "\ncase %zu: expected '%s' in: %s", k, bad[k][1], p.err);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.err, bad[k][1]));
		qct_proc_free(&p);
	}
	/* and a good one applies: f mutated, g untouched */
	write_file(tmp, "good.var",
	           "description: f off by one\nfile: reference/toy.c\n@@@ original\nint f(int x)\n"
	           "{\n\treturn x + 1;\n@@@ variant\nint f(int x)\n{\n\treturn x + 2;\n@@@ end\n");
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p, "cd '%s' && '%s' good.var out.c && cat out.c", tmp, tool_path()), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_STRING_EQUAL(
	        p.out,
	        "int f(int x)\n{\n\treturn x + 2;\n}\n\nint g(int x)\n{\n\treturn x + 1;\n}\n");
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* The last line of out that starts with prefix, or NULL (static buffer). */
static const char *line_starting(const char *out, const char *prefix)
{
	static char line[512];
	const char *found = NULL;
	for (const char *s = out; s && *s;) {
		if (strncmp(s, prefix, strlen(prefix)) == 0)
			found = s;
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	if (!found)
		return NULL;
	size_t n = strcspn(found, "\n");
	snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), found);
	return line;
}

static void test_score(void)
{
	if (qct_under_sanitizers()) {
		fprintf(stderr,
		        "\n  mutation: the score is not run under sanitizers (every mutant's "
		        "specs, minutes); `make test` runs it in the unsanitized pass\n");
		return;
	}
	qct_proc p;
	/* a make of its own: the mutants are built on demand, two at a time */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
	                             "--no-print-directory -j2 BUILD='%s' mutation",
	                             build_dir()),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	/* the control changes nothing: it must survive, or the mechanism kills anything */
	const char *control = line_starting(p.out, "control/noop ");
	CU_ASSERT_PTR_NOT_NULL(control);
	if (control)
		CU_ASSERT_PTR_NOT_NULL(strstr(control, " survived "));
	/* the score line, at or above the committed floor */
	const char *score = line_starting(p.out, "mutation score: ");
	CU_ASSERT_PTR_NOT_NULL(score);
	if (score) {
		int killed = 0, total = 0;
		double floor_pct = 0;
		CU_ASSERT_EQUAL(sscanf(score, "mutation score: %d/%d", &killed, &total), 2);
		FILE *f = fopen("suite/mutants/floor", "r");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_EQUAL(fscanf(f, "%lf", &floor_pct), 1);
		fclose(f);
		CU_ASSERT(total >= 30);
		CU_ASSERT(total > 0 && 100.0 * killed / total >= floor_pct);
		fprintf(stderr, "\n  %s\n", score);
	}
	/* the diagnosis of each killed mutant names it first (or a rule equal to it on the
	 * cases run); one it cannot diagnose (no FAIL with outputs) is never named wrongly */
	const char *diag = line_starting(p.out, "diagnosis: ");
	CU_ASSERT_PTR_NOT_NULL(diag);
	if (diag) {
		int named = 0, killed = 0, equal = 0;
		CU_ASSERT_EQUAL(sscanf(diag,
		                       "diagnosis: %d of %d killed mutants named first, %d more",
		                       &named, &killed, &equal),
		                3);
		CU_ASSERT(killed > 0 && 10 * (named + equal) >= 9 * killed);
		fprintf(stderr, "  %s\n", diag);
	}
	const char *others = line_starting(p.out, "not named first:");
	for (const char *o = others ? strchr(others, ':') + 1 : NULL; o && *o;) {
		size_t n = strcspn(o + 1, " ");
		int undiagnosed = n >= 3 && !strncmp(o + 1 + n - 3, "(-)", 3);
		if (!undiagnosed)
			fprintf(stderr, "  a mutant named wrongly: %.*s\n", (int)n, o + 1);
		CU_ASSERT(undiagnosed);
		o += 1 + n;
	}
	qct_proc_free(&p);
}

void qct_register_mutation(void)
{
	CU_pSuite s = qct_suite("mutation");
	CU_add_test(s, "every mutant definition applies to the reference", test_definitions_apply);
	CU_add_test(s, "a missing, ambiguous or empty mutation is an error",
	            test_broken_definitions_refused);
	CU_add_test(s, "make mutation: score >= floor, the control survives", test_score);
}
