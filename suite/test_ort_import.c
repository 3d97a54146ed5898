/*
 * ONNX Runtime's goldens (harness/import-ort/, `make import-ort`): the import run again gives
 * exactly the committed specs/ort/imported and specs/onnx/ort (skipped, with one line, where
 * node or the npm packages are not installed), except the specs whose goldens carry a
 * golden_tolerance: MatMulNBits on random data, summed in the order of the MLAS kernel the CPU
 * selects, which may differ on another CPU; those, as this machine's ORT writes them, must
 * still be within their tolerance of the reference; every case of specs/ort PASSes against the
 * reference, or is a negative case it refuses (EXPECTED_ERROR); specs/onnx/ort PASSes, and the
 * goldens where ONNX Runtime departs from ONNX are kept apart and disagree; a stub that reads
 * MatMulNBits's absent zero points as 0 (suite/stubs/nbits_zero_default.c) FAILs exactly the cases
 * without zero points; and the import on other data (--reseed) conforms as well.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qct.h"

/* Where `make ort-npm` installs the packages (one place for every build directory). */
#define ORT_MODULES "build/import-ort/node_modules"

/* The npm packages the import needs (QCONFORM_ORT_MODULES, or ORT_MODULES), or NULL with the
 * line that says why the test is skipped: no node, or no onnxruntime-node. */
static const char *ort_modules(void)
{
	const char *mods = getenv("QCONFORM_ORT_MODULES");
	if (!mods || !*mods)
		mods = ORT_MODULES;
	char pkg[1024];
	snprintf(pkg, sizeof pkg, "%s/onnxruntime-node/package.json", mods);
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "command -v node"), 0);
	int have_node = p.status == 0;
	qct_proc_free(&p);
	if (!have_node || access(pkg, R_OK) != 0) {
		printf("\n  skipped: %s (`make ort-npm` after apt-get install nodejs npm)",
		       have_node ? "no onnxruntime-node in " ORT_MODULES : "no node");
		return NULL;
	}
	return mods;
}

/* The import on other data (import.js --reseed, `make ort-fresh`): ONNX Runtime's outputs on
 * cases the reference was never checked against conform too. Reseed 99991 holds the QLinearAdd
 * whose broadcast scalar sits at 60.5 exactly, where ORT's fused fold gives 61 and the
 * reference gave 60 (qlinear_add.yaml, golden_int8_scalar_fold_fused). */
static void test_fresh_data_conforms(void)
{
	const char *mods = ort_modules();
	if (!mods)
		return;
	qct_proc p;
	static const char *const seeds[] = {"1", "99991"};
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
		const char *tmp = qct_tmpdir();
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p,
		               "node harness/import-ort/import.js --modules %s --out %s "
		               "--reseed %s >/dev/null && grep -q 'reseeded with %s' "
		               "%s/ort/imported/qlinear_add_int8.yaml",
		               mods, tmp, seeds[i], seeds[i], tmp),
		        0);
		CU_ASSERT_EQUAL(p.status, 0);
		qct_proc_free(&p);
		int st;
		char dirs[1200];
		snprintf(dirs, sizeof dirs, "%s/ort/imported %s/onnx/ort", tmp, tmp);
		json_t *r = qct_run_report(tmp, &st, NULL, "%s", dirs);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL(st, 0);
		qct_tally t = qct_tally_report(r);
		printf("\n  reseed %s: %zu cases, %zu PASS, %zu other", seeds[i], t.cases, t.pass,
		       t.other);
		CU_ASSERT(t.cases > 1000);
		CU_ASSERT_EQUAL(t.other, 0);
		json_decref(r);
		qct_rmdir(tmp);
	}
}

static void test_import_matches_committed(void)
{
	const char *mods = ort_modules();
	if (!mods)
		return;
	qct_proc p;
	const char *tmp = qct_tmpdir();
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p,
	               "node harness/import-ort/import.js --modules %s --out %s && "
	               "summed=$(grep -l '^ *golden_tolerance:' specs/ort/imported/*.yaml) && "
	               "diff -r $(for f in $summed; do printf ' -x %%s' \"${f##*/}\"; done) "
	               "%s/ort/imported specs/ort/imported && "
	               "diff -r %s/onnx/ort specs/onnx/ort && mkdir %s/summed && "
	               "for f in $summed; do cp \"%s/ort/imported/${f##*/}\" %s/summed/; done && "
	               "%s run %s/summed --quiet --json %s/summed.json",
	               mods, tmp, tmp, tmp, tmp, tmp, tmp, qct_build_path("qconform"), tmp, tmp),
	        0);
	CU_ASSERT_EQUAL(p.status, 0);
	if (p.status)
		fprintf(stderr,
		        "\n  specs/ort/imported or specs/onnx/ort differ from the import, or its "
		        "summed MatMulNBits goldens are outside their tolerance (`make "
		        "import-ort`):\n%.2000s%.2000s",
		        p.out, p.err);
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

static void test_ort_specs_pass(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/ort");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	printf("\n  ort: %zu cases, %zu PASS, %zu EXPECTED_ERROR, %zu golden", t.cases, t.pass,
	       t.expected_error, t.golden);
	CU_ASSERT(t.golden >= 288); /* the import's contrib cases */
	/* every refusal of reference/ort_contrib.c that a spec can reach has its negative case */
	CU_ASSERT(t.expected_error >= 37);
	CU_ASSERT_EQUAL(t.pass + t.expected_error, t.cases);
	json_decref(r);
	qct_rmdir(tmp);
}

/* specs/onnx/ort PASSes against the reference, every golden checked (a NaN only against a NaN);
 * the goldens where ONNX Runtime departs from ONNX are kept apart in *.yaml.pending files that
 * README.md names, and each of their cases, run, is REFERENCE DISAGREES WITH GOLDEN: a known
 * difference, not a silent PASS. */
static void test_onnx_ort_departures(void)
{
	const char *tmp = qct_tmpdir();
	int st = -1;
	json_t *r = qct_run_report(tmp, &st, NULL, "specs/onnx/ort");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 0);
	qct_tally t = qct_tally_report(r);
	CU_ASSERT(t.golden >= 190);
	CU_ASSERT_EQUAL(t.pass, t.cases);
	json_decref(r);

	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "mkdir %s/dep && n=0 && for f in "
	                             "specs/onnx/ort/*_overflow_*.yaml.pending; do "
	                             "b=${f##*/}; grep -q \"^| $b |.*ONNX Runtime gives\" "
	                             "specs/onnx/ort/README.md "
	                             "|| { echo \"$b: not in README.md\"; exit 1; }; cp \"$f\" "
	                             "%s/dep/${b%%.pending}; "
	                             "n=$((n+1)); done; echo $n",
	                             tmp, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT(atoi(p.out) >= 10);
	if (p.status)
		fprintf(stderr, "\n  %s", p.out);
	qct_proc_free(&p);
	r = qct_run_report(tmp, &st, NULL, "%s/dep", tmp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	size_t n = json_array_size(cases), disagree = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array_get(cases, i);
		const char *msg = qct_str(c, "message");
		if (!strcmp(qct_str(c, "verdict"), "FAIL") &&
		    strstr(msg, "REFERENCE DISAGREES WITH GOLDEN"))
			disagree++;
		else
			fprintf(stderr, "\n  %s: %s %s", qct_str(c, "name"), qct_str(c, "verdict"),
			        msg);
	}
	printf("\n  ORT departures: %zu cases, %zu disagree with the reference", n, disagree);
	CU_ASSERT(n >= 16);
	CU_ASSERT_EQUAL(disagree, n);
	json_decref(r);
	qct_rmdir(tmp);
}

/*
 * MatMulNBits at accuracy_level 4 on a block whose terms cancel: A = [30000, -0.383, 0, ...],
 * 4-bit q = 4 everywhere, zero point 4, scale 0.045. The exact answer and the reference's
 * int8 model are 0. MLAS's CompInt8 path (QuantizeARow_CompInt8: scale_a = amax / 127, q_a =
 * round(a * 127 / amax), so q_a = [127, 0, ...]) adds the zero-point correction as a term of
 * its own: scale_a scale_b sum q_a q + (scale_a sum q_a) (-zp scale_b), each rounded in
 * float32; emulated here, that gives 2^-11, as ONNX Runtime 1.30 does. The reference's band
 * (reference/ort_contrib.c, gamma(n + c) sum |parts|) must hold it, and not a result off by
 * clearly more (0.05, about 13 times the band's half width, 3.9e-3).
 */
static void test_nbits_cancelling_block(void)
{
	volatile float amax = 30000.0f, a1 = -0.383f, sb = 0.045f;
	float sa = amax / 127.0f, inv = 127.0f / amax;
	float q0 = nearbyintf(amax * inv), q1 = nearbyintf(a1 * inv);
	CU_ASSERT(q0 == 127 && q1 == 0);
	int dq = (int)q0 * 4 + (int)q1 * 4, sq = (int)q0 + (int)q1;
	volatile float ss = sa * sb, t1 = ss * (float)dq, ablk = sa * (float)sq, zc = -4.0f * sb,
	               t2 = ablk * zc;
	float ort = t1 + t2;
	printf("\n  cancelling block: ORT-like %g (2^%g)", ort, ort ? log2(fabs(ort)) : 0);
	CU_ASSERT(ort != 0);
	CU_ASSERT(fabs(ort) >= 0x1p-12);

	const char *tmp = qct_tmpdir();
	char path[512];
	snprintf(path, sizeof path, "%s/nbits_cancel.yaml", tmp);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f,
	        "qconform: 1\nop: MatMulNBits\nsemantics: ort\n"
	        "inputs:\n"
	        "  a: {dtype: float32, shape: [1, 32], data: [30000, -0.383, 0, 0, 0, 0, 0, 0, 0, "
	        "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}\n"
	        "  b: {dtype: uint8, shape: [1, 1, 16], data: [68, 68, 68, 68, 68, 68, 68, 68, 68, "
	        "68, 68, 68, 68, 68, 68, 68]}\n"
	        "  scales: {dtype: float32, shape: [1], data: [0.045]}\n"
	        "  zero_points: {dtype: uint8, shape: [1], data: [4]}\n"
	        "outputs:\n  y: {dtype: float32, shape: [1, 1]}\n"
	        "attrs: {K: 32, N: 1, bits: 4, block_size: 32, accuracy_level: 4}\n"
	        "tolerance: exact\ncases:\n"
	        "  - {name: ort_like, golden: {y: [%.9g]}, source: emulated}\n"
	        "  - {name: ort_like_negated, golden: {y: [%.9g]}, source: emulated}\n"
	        "  - {name: off, golden: {y: [0.05]}, source: t}\n"
	        "  - {name: off_negative, golden: {y: [-0.05]}, source: t}\n",
	        ort, -ort);
	fclose(f);
	int st = -1;
	json_t *r = qct_run_report(tmp, &st, NULL, "%s", path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	int pass = 0, fail = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *name = qct_str(c, "name"), *v = qct_str(c, "verdict");
		int want_pass = strstr(name, "ort_like") != NULL;
		if (want_pass ? !strcmp(v, "PASS") : !strcmp(v, "FAIL"))
			want_pass ? pass++ : fail++;
		else
			fprintf(stderr, "\n  %s: %s %s", name, v, qct_str(c, "message"));
	}
	CU_ASSERT_EQUAL(pass, 2);
	CU_ASSERT_EQUAL(fail, 2);
	json_decref(r);
	qct_rmdir(tmp);
}

/* The stub FAILs exactly the MatMulNBits goldens without zero points and PASSes the rest. */
static void test_stub_default_zero_point(void)
{
	const char *tmp = qct_tmpdir();
	int st;
	json_t *r = qct_run_report(tmp, &st, NULL,
	                           "specs/ort/imported --filter 'ort/matmul_nbits*' --plugin %s",
	                           qct_stub("nbits_zero_default"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(st, 1);
	json_t *cases = json_object_get(r, "cases");
	size_t with = 0, without = 0, bad = 0;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		const char *spec = json_string_value(json_object_get(c, "spec"));
		const char *v = json_string_value(json_object_get(c, "verdict"));
		if (!spec || !v) {
			bad++;
			continue;
		}
		int has_zp = strstr(spec, "_zp") != NULL;
		has_zp ? with++ : without++;
		if (strcmp(v, has_zp ? "PASS" : "FAIL") != 0) {
			bad++;
			fprintf(stderr, "\n  %s: %s", json_string_value(json_object_get(c, "name")),
			        v);
		}
	}
	printf("\n  nbits_zero_default: %zu cases without zero points FAIL, %zu with PASS", without,
	       with);
	CU_ASSERT(with >= 40 && without >= 40);
	CU_ASSERT_EQUAL(bad, 0);
	json_decref(r);
	qct_rmdir(tmp);
}

void qct_register_ort_import(void)
{
	CU_pSuite s = qct_suite("ort/import");
	CU_add_test(s, "make import-ort gives exactly specs/ort/imported and specs/onnx/ort",
	            test_import_matches_committed);
	CU_add_test(s, "ORT on reseeded data (make ort-fresh): every case conforms",
	            test_fresh_data_conforms);
	CU_add_test(s, "specs/ort: every case PASS or EXPECTED_ERROR against the reference",
	            test_ort_specs_pass);
	CU_add_test(s, "specs/onnx/ort PASSes; ORT's departures from ONNX are kept apart and FAIL",
	            test_onnx_ort_departures);
	CU_add_test(s, "MatMulNBits level 4: an ORT-like cancelling block passes, 0.05 off fails",
	            test_nbits_cancelling_block);
	CU_add_test(s, "a stub with MatMulNBits's default zero point 0 FAILs exactly those cases",
	            test_stub_default_zero_point);
}
