/*
 * run --dump DIR (harness/src/report/dump.c): the .npy header layout byte for byte, and end to end
 * through the qconform binary: failing stubs dumped, every .npy read back by NumPy (Debian's
 * python3-numpy) and checked against `qconform show` and the report's mismatches, and every
 * dumped case.yaml run again: the same verdict with the same stub, PASS with the reference.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qct.h"
#include "report/dump.h"

/* ---- the .npy header in C ---- */

static void test_npy_header_bytes(void)
{
	/* numpy/lib/format.py, version 1.0: magic, major 1, minor 0, uint16 LE header length,
	 * the dict, spaces, '\n'; the data starts at a multiple of 64 */
	static const char dict[] = "{'descr': '<i1', 'fortran_order': False, 'shape': (2, 3), }";
	char want[128];
	memcpy(want, "\x93NUMPY\x01\x00\x76\x00", 10);
	memcpy(want + 10, dict, sizeof dict - 1);
	memset(want + 10 + sizeof dict - 1, ' ', 128 - 10 - (sizeof dict - 1) - 1);
	want[127] = '\n';
	char got[256];
	int64_t shape[] = {2, 3};
	size_t n = qc_npy_header(got, sizeof got, "<i1", 2, shape);
	CU_ASSERT_EQUAL(n, 128);
	CU_ASSERT(n == 128 && memcmp(got, want, 128) == 0);

	/* rank 1 is a one-element tuple "(5,)", rank 0 the empty tuple "()" */
	int64_t five = 5;
	n = qc_npy_header(got, sizeof got, "<f4", 1, &five);
	CU_ASSERT(n == 128); /* 10 + 57 + '\n' rounded up to 64 */
	got[n < sizeof got ? n : 0] = 0;
	CU_ASSERT_PTR_NOT_NULL(strstr(got + 10, "'shape': (5,), }"));
	n = qc_npy_header(got, sizeof got, "<f8", 0, NULL);
	CU_ASSERT(n == 128);
	got[n < sizeof got ? n : 0] = 0;
	CU_ASSERT_PTR_NOT_NULL(strstr(got + 10, "'descr': '<f8', 'fortran_order': False, "
	                                        "'shape': (), }"));
	/* too small a buffer: 0, nothing half written counted as a header */
	CU_ASSERT_EQUAL(qc_npy_header(got, 100, "<i1", 2, shape), 0);
	/* an 8-D shape of large sizes still pads to 64 */
	int64_t big[8] = {1000000, 2000000, 3, 4, 5, 6, 7, 8};
	n = qc_npy_header(got, sizeof got, "<i8", 8, big);
	CU_ASSERT(n > 0 && n % 64 == 0 && got[n - 1] == '\n');
}

/* Bytes of a file after its 64-aligned header. */
static size_t npy_data(const char *path, unsigned char *buf, size_t size, char *head, size_t hsize)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	unsigned char pre[10];
	size_t n = 0;
	if (fread(pre, 1, 10, f) == 10) {
		size_t hlen = pre[8] | (size_t)pre[9] << 8;
		size_t k = hlen < hsize ? hlen : hsize - 1;
		if (fread(head, 1, k, f) == k) {
			head[k] = 0;
			fseek(f, (long)(10 + hlen), SEEK_SET);
			n = fread(buf, 1, size, f);
		}
	}
	fclose(f);
	return n;
}

static void test_npy_data(void)
{
	const char *tmp = qct_tmpdir();
	char path[600], head[256];
	unsigned char data[64];
	/* int4 [3], packed {0xF7, 0x08}: element 0 in the low nibble (7), 1 in the high (-1),
	 * 2 in the next low (-8); written one int8 each */
	int64_t s3 = 3;
	uint8_t packed[] = {0xF7, 0x08};
	qcf_tensor t = {sizeof t, "q", QCF_INT4, 1, &s3, packed, 2, NULL};
	snprintf(path, sizeof path, "%s/i4.npy", tmp);
	char err[256];
	CU_ASSERT_EQUAL(qc_npy_write(path, &t, err, sizeof err), 0);
	CU_ASSERT_EQUAL(npy_data(path, data, sizeof data, head, sizeof head), 3);
	CU_ASSERT(data[0] == 7 && data[1] == 0xFF && data[2] == 0xF8);
	CU_ASSERT_PTR_NOT_NULL(strstr(head, "'descr': '|i1'"));
	/* uint4: the same nibbles unsigned */
	t.dtype = QCF_UINT4;
	CU_ASSERT_EQUAL(qc_npy_write(path, &t, err, sizeof err), 0);
	CU_ASSERT_EQUAL(npy_data(path, data, sizeof data, head, sizeof head), 3);
	CU_ASSERT(data[0] == 7 && data[1] == 15 && data[2] == 8);
	CU_ASSERT_PTR_NOT_NULL(strstr(head, "'descr': '|u1'"));
	/* bfloat16 1.0 (0x3F80) and -2.0 (0xC000) as float32, little-endian */
	int64_t s2 = 2;
	uint16_t bf[] = {0x3F80, 0xC000};
	qcf_tensor b = {sizeof b, "b", QCF_BFLOAT16, 1, &s2, bf, 4, NULL};
	CU_ASSERT_EQUAL(qc_npy_write(path, &b, err, sizeof err), 0);
	CU_ASSERT_EQUAL(npy_data(path, data, sizeof data, head, sizeof head), 8);
	static const unsigned char f32[] = {0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0};
	CU_ASSERT(memcmp(data, f32, 8) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(head, "'descr': '<f4'"));
	/* int16 -2 little-endian */
	int16_t i16 = -2;
	qcf_tensor s = {sizeof s, "s", QCF_INT16, 0, NULL, &i16, 2, NULL};
	CU_ASSERT_EQUAL(qc_npy_write(path, &s, err, sizeof err), 0);
	CU_ASSERT_EQUAL(npy_data(path, data, sizeof data, head, sizeof head), 2);
	CU_ASSERT(data[0] == 0xFE && data[1] == 0xFF);
	CU_ASSERT_PTR_NOT_NULL(strstr(head, "'shape': ()"));
	qct_rmdir(tmp);
}

/* ---- end to end ---- */

/*
 * Reads back every dumped case of index.txt with NumPy: inputs and reference outputs against
 * `qconform show` (dtype, shape, values), and got_* against expected_*: they differ exactly at
 * as many predictable elements as the report's mismatches, among them each worst element
 * with the report's values. Prints "checked N" on success.
 */
static const char check_py[] =
        "import json, re, subprocess, sys, os\n"
        "import numpy as np\n"
        "dump, report, qc = sys.argv[1:4]\n"
        "cases = {c['name']: c for c in json.load(open(report))['cases']}\n"
        "NP = {'bool': 'bool', 'int4': 'int8', 'uint4': 'uint8', 'int8': 'int8',\n"
        "      'uint8': 'uint8', 'int16': 'int16', 'uint16': 'uint16', 'int32': 'int32',\n"
        "      'int64': 'int64', 'float16': 'float16', 'bfloat16': 'float32',\n"
        "      'float32': 'float32', 'float64': 'float64'}\n"
        "def fail(msg):\n"
        "    print(msg); sys.exit(1)\n"
        "def show(name, spec):\n"
        "    out = subprocess.run([qc, 'show', name, spec], capture_output=True, text=True,\n"
        "                         check=True).stdout\n"
        "    secs = {'inputs': {}, 'outputs': {}}; sec = None; cur = None\n"
        "    for line in out.splitlines():\n"
        "        if line == 'inputs': sec = 'inputs'; continue\n"
        "        if line.startswith('reference outputs'): sec = 'outputs'; continue\n"
        "        if not line.startswith(' '): sec = None; continue\n"
        "        if sec is None: continue\n"
        "        m = re.match(r'^  (\\S+): (\\w+)\\[([0-9,]*)\\]', line)\n"
        "        if m:\n"
        "            shape = tuple(int(d) for d in m.group(3).split(',') if d)\n"
        "            cur = secs[sec][m.group(1)] = (m.group(2), shape, [])\n"
        "            continue\n"
        "        for tok in re.findall(r'\\(any in \\[[^\\]]*\\]\\)|\\S+', line):\n"
        "            cur[2].append(None if tok.startswith('(') else float(tok))\n"
        "    return secs\n"
        "def load(path, dtype, shape):\n"
        "    a = np.load(path, allow_pickle=False)\n"
        "    if a.dtype != np.dtype(NP[dtype]): fail('%s: dtype %s, want %s' % (path, a.dtype, "
        "NP[dtype]))\n"
        "    if a.shape != shape: fail('%s: shape %s, want %s' % (path, a.shape, shape))\n"
        "    return a\n"
        "def same(a, vals, path):\n"
        "    flat = a.reshape(-1)\n"
        "    if flat.size != len(vals): fail('%s: %d values, show has %d' % (path, flat.size, "
        "len(vals)))\n"
        "    for i, v in enumerate(vals):\n"
        "        if v is None: continue\n"
        "        x = flat[i].item()\n"
        "        want = np.array(v).astype(a.dtype).item()\n"
        "        if not (x == want or (x != x and want != want)):\n"
        "            fail('%s[%d] = %r, show has %r' % (path, i, x, v))\n"
        "n = 0\n"
        "for line in open(os.path.join(dump, 'index.txt')):\n"
        "    name, d = line.rstrip('\\n').split(' -> ')\n"
        "    d = os.path.join(dump, d)\n"
        "    c = cases[name]\n"
        "    s = show(name, c['spec'])\n"
        "    for t, (dt, shape, vals) in s['inputs'].items():\n"
        "        p = os.path.join(d, 'input_%s.npy' % t)\n"
        "        same(load(p, dt, shape), vals, p)\n"
        "    for t, (dt, shape, vals) in s['outputs'].items():\n"
        "        pe = os.path.join(d, 'expected_%s.npy' % t)\n"
        "        same(load(pe, dt, shape), vals, pe)\n"
        "    for o in c.get('outputs', []) if c['verdict'] == 'FAIL' else []:\n"
        "        t = o['name']; dt, shape, vals = s['outputs'][t]\n"
        "        e = load(os.path.join(d, 'expected_%s.npy' % t), dt, shape)\n"
        "        pg = os.path.join(d, 'got_%s.npy' % t)\n"
        "        if not os.path.exists(pg): fail('%s missing (verdict %s)' % (pg, "
        "c['verdict']))\n"
        "        g = load(pg, dt, shape)\n"
        "        ef = e.reshape(-1).astype(np.float64); gf = g.reshape(-1).astype(np.float64)\n"
        "        pred = np.array([v is not None for v in vals], dtype=bool)\n"
        "        differ = ~((ef == gf) | (np.isnan(ef) & np.isnan(gf))) & pred\n"
        "        if int(differ.sum()) != o['mismatches']:\n"
        "            fail('%s: %d elements differ, the report has %d mismatches' % (d, "
        "differ.sum(), o['mismatches']))\n"
        "        for w in o.get('worst', []):\n"
        "            i = w['index']\n"
        "            if w['error'] != 0 and not differ[i]: fail('%s: worst %d equal' % (d, i))\n"
        "            if gf[i] != w['got'] or ef[i] != w['expected']:\n"
        "                fail('%s[%d]: got %r expected %r, report %r %r' % (d, i, gf[i], ef[i],\n"
        "                     w['got'], w['expected']))\n"
        "    if c['verdict'] in ('CRASH', 'TIMEOUT', 'ERROR') and "
        "any(f.startswith('got_') for f in os.listdir(d)):\n"
        "        fail('%s: got_* for a case without outputs' % d)\n"
        "    n += 1\n"
        "print('checked %d' % n)\n";

/* Debian's interpreter first: its python3-numpy is the one CI installs (as suite/util.c). */
static const char *python(void)
{
	return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

static int have_numpy(void)
{
	qct_proc p;
	if (qct_sh(&p, "%s -c 'import numpy'", python()) != 0)
		return 0;
	int ok = p.status == 0;
	qct_proc_free(&p);
	return ok;
}

static json_t *find_case(json_t *report, const char *name)
{
	json_t *cases = json_object_get(report, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		if (!strcmp(json_string_value(json_object_get(c, "name")), name))
			return c;
	}
	return NULL;
}

/*
 * Runs `qconform run SPEC --plugin PLUGIN ARGS --dump TMP/dump`, then checks the dump: the
 * console line, one index line and directory per failing case up to the cap, the .npy files
 * (NumPy), and each case.yaml run again with the plugin (same verdict and message) and with
 * the reference (PASS). Returns the number of cases dumped.
 */
static size_t dump_and_check(const char *tmp, const char *spec, const char *plugin,
                             const char *args, size_t max)
{
	char dump[600], cmd[2048];
	snprintf(dump, sizeof dump, "%s/dump", tmp);
	int st;
	snprintf(cmd, sizeof cmd, "%s --plugin %s --dump %s --dump-max %zu %s", spec, plugin, dump,
	         max, args);
	qct_proc p;
	CU_ASSERT_FATAL(qct_sh(&p, "%s run --quiet --json %s/orig.json %s",
	                       qct_build_path("qconform"), tmp, cmd) == 0);
	st = p.status;
	CU_ASSERT_EQUAL(st, 1);
	char orig_path[700];
	snprintf(orig_path, sizeof orig_path, "%s/orig.json", tmp);
	json_error_t je;
	json_t *orig = json_load_file(orig_path, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(orig);
	size_t failing = 0;
	json_t *cases = json_object_get(orig, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		const char *v = qct_verdict(json_array_get(cases, i));
		failing += strcmp(v, "PASS") && strcmp(v, "PASS_WITHIN_TOLERANCE") &&
		           strcmp(v, "NOT_SUPPORTED") && strcmp(v, "EXPECTED_ERROR");
	}
	size_t want = failing < max ? failing : max;
	CU_ASSERT(want > 0);
	char line[1200];
	snprintf(line, sizeof line, "dump: %zu failing case%s written to %s", want,
	         want == 1 ? "" : "s", dump);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, line));
	if (failing > max) {
		snprintf(line, sizeof line, "%zu more not written (--dump-max %zu)", failing - max,
		         max);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.out, line));
	}
	qct_proc_free(&p);

	/* the index, and each case.yaml judged again */
	snprintf(line, sizeof line, "%s/index.txt", dump);
	FILE *idx = fopen(line, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
	size_t n = 0;
	char entry[1200];
	while (fgets(entry, sizeof entry, idx)) {
		entry[strcspn(entry, "\n")] = 0;
		char *arrow = strstr(entry, " -> ");
		CU_ASSERT_PTR_NOT_NULL_FATAL(arrow);
		*arrow = 0;
		const char *dir = arrow + 4;
		CU_ASSERT(strlen(dir) <= 120 && !strchr(dir, '/'));
		json_t *c = find_case(orig, entry);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		n++;
		char yaml[1600];
		snprintf(yaml, sizeof yaml, "%s/%s/case.yaml", dump, dir);
		json_t *again = qct_run_report(tmp, &st, NULL, "%s --plugin %s", yaml, plugin);
		CU_ASSERT_PTR_NOT_NULL_FATAL(again);
		json_t *ac = json_array_get(json_object_get(again, "cases"), 0);
		CU_ASSERT_EQUAL(json_array_size(json_object_get(again, "cases")), 1);
		CU_ASSERT_STRING_EQUAL(qct_verdict(ac), qct_verdict(c));
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ac, "message")),
		                       json_string_value(json_object_get(c, "message")));
		CU_ASSERT_EQUAL(st, 1);
		json_decref(again);
		json_t *ref = qct_run_report(tmp, &st, NULL, "%s", yaml);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
		const char *rv = qct_verdict(json_array_get(json_object_get(ref, "cases"), 0));
		CU_ASSERT(!strcmp(rv, "PASS") || !strcmp(rv, "EXPECTED_ERROR"));
		CU_ASSERT_EQUAL(st, 0);
		json_decref(ref);
	}
	fclose(idx);
	CU_ASSERT_EQUAL(n, want);

	if (have_numpy()) {
		char py[700];
		snprintf(py, sizeof py, "%s/check.py", tmp);
		FILE *f = fopen(py, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs(check_py, f);
		fclose(f);
		CU_ASSERT_FATAL(qct_sh(&p, "%s %s %s %s %s", python(), py, dump, orig_path,
		                       qct_build_path("qconform")) == 0);
		snprintf(line, sizeof line, "checked %zu", want);
		if (p.status != 0 || !strstr(p.out, line))
			fprintf(stderr, "\n%s%s\n", p.out, p.err);
		CU_ASSERT_EQUAL(p.status, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.out, line));
		qct_proc_free(&p);
	} else {
		fprintf(stderr, "\n(numpy not installed: the .npy files were not read back by "
		                "NumPy; Debian: python3-numpy)\n");
	}
	json_decref(orig);
	return n;
}

/* torch fake quantization with ties rounded half up: FAIL in steps of the scale; the cap. */
static void test_dump_torch(void)
{
	const char *tmp = qct_tmpdir();
	dump_and_check(tmp, "specs/torch/fake_quantize_per_tensor_affine.yaml",
	               qct_stub("ties_half_up"), "", 6);
	qct_rmdir(tmp);
}

/* ONNX QuantizeLinear to int4 and uint4 (packed in the ABI, one int8/uint8 each in .npy). */
static void test_dump_int4(void)
{
	const char *tmp = qct_tmpdir();
	size_t n = dump_and_check(tmp, "specs/onnx/quantize_linear.yaml", qct_stub("ties_half_up"),
	                          "--filter 'onnx/quantize_linear/dtype=int4,zp=-3*' "
	                          "--filter 'onnx/quantize_linear/dtype=uint4,zp=8*'",
	                          100);
	CU_ASSERT(n >= 2);
	qct_rmdir(tmp);
}

/* Rank-0 tensors (shape ()), and a CRASH: no got_* file, the crash reproduced. */
static void test_dump_rank0_and_crash(void)
{
	const char *tmp = qct_tmpdir();
	char spec[600];
	snprintf(spec, sizeof spec, "%s/scalar.yaml", tmp);
	FILE *f = fopen(spec, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* 1.25 / 0.5 = 2.5: ONNX rounds the tie to even (2), the stub half up (3) */
	fputs("qconform: 1\nop: QuantizeLinear\nsemantics: onnx\n"
	      "inputs:\n  x: {dtype: float32, shape: [], data: [1.25]}\n"
	      "outputs:\n  y: {dtype: int8, shape: [], quant: {scale: 0.5, zero_point: 0}}\n",
	      f);
	fclose(f);
	CU_ASSERT_EQUAL(dump_and_check(tmp, spec, qct_stub("ties_half_up"), "", 10), 1);
	qct_rmdir(tmp);

	tmp = qct_tmpdir();
	CU_ASSERT_EQUAL(dump_and_check(tmp, "specs/litert/dequantize.yaml", qct_stub("crash"),
	                               "--filter 'litert/dequantize/*'", 2),
	                2);
	qct_rmdir(tmp);
}

void qct_register_dump(void)
{
	CU_pSuite s = qct_suite("dump");
	CU_add_test(s, ".npy header layout, byte for byte", test_npy_header_bytes);
	CU_add_test(s, ".npy data: int4/uint4 unpacked, bfloat16 as float32, rank 0",
	            test_npy_data);
	CU_add_test(s, "run --dump: torch ties half up, read back, rerun, cap", test_dump_torch);
	CU_add_test(s, "run --dump: int4 and uint4 outputs", test_dump_int4);
	CU_add_test(s, "run --dump: rank-0 tensors, a crash", test_dump_rank0_and_crash);
}
