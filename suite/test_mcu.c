/*
 * A bare-metal Cortex-M certified offline: the streamed runner (harness/runner, with the mps2
 * board of harness/runner/boards/mps2: 1 MiB of flash, 256 KiB of RAM) under qemu-system-arm,
 * fed by `qconform feed`, judged by `qconform import` and `qconform certify --import`.
 *   - a profile cut into two shards, each fed in a device session of its own, certifies, and
 *     its report is a direct run's case by case (timings aside); the Cortex-M7 build answers
 *     a sample the same way;
 *   - a kernel with four faults (suite/mcu/faults.c): a HardFault is CRASH, a hang is the
 *     board watchdog's TIMEOUT, a write through NULL into the watched vector table and a
 *     write far past an output are ERROR; every other case as the direct run has it, after
 *     the device restarted twice;
 *   - chains (fused: the reference speaks ABI 3) and LiteRT's LSTM answer as a direct run.
 * Skipped, with a line on stderr, where qemu-system-arm or the firmware (`make mcu`, which
 * needs gcc-arm-none-eabi) is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <jansson.h>

#include "qct.h"

#define QEMU_M3 "qemu-system-arm -M mps2-an385 -display none -monitor none -serial stdio -kernel "
#define QEMU_M7 "qemu-system-arm -M mps2-an500 -display none -monitor none -serial stdio -kernel "

static int available(void)
{
	static int known = -1;
	if (known < 0) {
		qct_proc p;
		char fw[1200];
		snprintf(fw, sizeof fw, "%s", qct_build_path("mcu/fw-m3-faults.elf"));
		known = qct_sh(&p, "command -v qemu-system-arm && test -f %s", fw) == 0 &&
		        p.status == 0;
		qct_proc_free(&p);
		if (!known)
			fprintf(stderr, "\n  mcu: qemu-system-arm or the firmware (make mcu: "
			                "gcc-arm-none-eabi, libnewlib-arm-none-eabi) is missing: "
			                "skipped\n");
	}
	return known;
}

/* Cases of a and b that differ but for their timings and reproduce commands (the first three
 * named unless quiet); *a_out: a, loaded. */
static size_t differing(const char *a_path, const char *b_path, json_t **a_out, int quiet)
{
	json_error_t e;
	json_t *a = json_load_file(a_path, 0, &e), *b = json_load_file(b_path, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	json_t *ca = json_object_get(a, "cases"), *cb = json_object_get(b, "cases");
	size_t n = json_array_size(ca) == json_array_size(cb) ? 0 : 1000000;
	for (size_t i = 0; i < json_array_size(ca) && i < json_array_size(cb); i++) {
		json_t *x = json_deep_copy(json_array_get(ca, i)),
		       *y = json_deep_copy(json_array_get(cb, i));
		const char *drop[] = {"seconds", "reproduce"};
		for (int k = 0; k < 2; k++) {
			json_object_del(x, drop[k]);
			json_object_del(y, drop[k]);
		}
		if (!json_equal(x, y) && n++ < 3 && !quiet)
			fprintf(stderr, "\n    differs: %s (%s, the direct run %s)",
			        qct_str(x, "name"), qct_verdict(x), qct_verdict(y));
		json_decref(x);
		json_decref(y);
	}
	json_decref(b);
	if (a_out)
		*a_out = a;
	else
		json_decref(a);
	return n;
}

/* torch-pt2e's base in two shards, one device session each, certified from the captures. */
static void test_certify_shards(void)
{
	if (!available())
		return;
	const char *tmp = qct_tmpdir();
	char q[600], fw[1200], cmd[8192];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	snprintf(fw, sizeof fw, "%s", qct_build_path("mcu/fw-m3.elf"));
	for (int k = 1; k <= 2; k++) {
		snprintf(cmd, sizeof cmd,
		         "%s export --profile torch-pt2e --shard %d/2 --out %s/s%d && "
		         "%s feed %s/s%d --device '" QEMU_M3 "%s' --timeout 60 --quiet",
		         q, k, tmp, k, q, tmp, k, fw);
		CU_ASSERT_TRUE_FATAL(qct_sh_ok("export and feed", "%s", cmd));
	}
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s certify --profile torch-pt2e --import %s/s1 --outputs "
	                             "%s/s1/outputs.log --import %s/s2 --outputs %s/s2/outputs.log "
	                             "--out %s/cert",
	                             q, tmp, tmp, tmp, tmp, tmp),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "\n  certify --import: exit %d: %.800s%.800s", p.status, p.out,
		        p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "certificate: CERTIFIED"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "REPORTED BY THE DEVICE: what its streamed runner"));
	qct_proc_free(&p);
	snprintf(cmd, sizeof cmd, "%s run --profile torch-pt2e --json %s/direct.json --quiet", q,
	         tmp);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("direct run", "%s", cmd));
	char a[1200], b[1200];
	snprintf(a, sizeof a, "%s/cert/report.json", tmp);
	snprintf(b, sizeof b, "%s/direct.json", tmp);
	json_t *rep = NULL;
	CU_ASSERT_EQUAL(differing(a, b, &rep, 0), 0);
	json_t *imp = json_object_get(json_object_get(rep, "run"), "import");
	CU_ASSERT_STRING_EQUAL(qct_str(imp, "runner_mode"), "streamed");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(imp, "parts")), 2);
	json_decref(rep);
	qct_validate_report_later(a, "certify --import");

	/* the Cortex-M7 (hard float) build on a sample: the same answers */
	snprintf(fw, sizeof fw, "%s", qct_build_path("mcu/fw-m7.elf"));
	snprintf(cmd, sizeof cmd,
	         "%s export specs/litert/fully_connected.yaml --filter '*/0' --out %s/m7 && "
	         "%s feed %s/m7 --device '" QEMU_M7 "%s' --timeout 60 --quiet && "
	         "%s import %s/m7 --outputs %s/m7/outputs.log --json %s/m7.json --quiet; "
	         "%s run specs/litert/fully_connected.yaml --filter '*/0' --json %s/m7d.json "
	         "--quiet",
	         q, tmp, q, tmp, fw, q, tmp, tmp, tmp, q, tmp);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("cortex-m7", "%s", cmd));
	snprintf(a, sizeof a, "%s/m7.json", tmp);
	snprintf(b, sizeof b, "%s/m7d.json", tmp);
	CU_ASSERT_EQUAL(differing(a, b, NULL, 0), 0);
	qct_rmdir(tmp);
}

/* The four faults of suite/mcu/faults.c on cases 5, 7, 9 and 11 of LiteRT ADD. */
static void test_faults(void)
{
	if (!available())
		return;
	const char *tmp = qct_tmpdir();
	char q[600], fw[1200], cmd[8192];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	snprintf(fw, sizeof fw, "%s", qct_build_path("mcu/fw-m3-faults.elf"));
	/* the feed's own timeout far above the board's 1 s watchdog: the watchdog says TIMEOUT */
	snprintf(cmd, sizeof cmd,
	         "%s export specs/litert/add.yaml --filter '*/0' --out %s/x && "
	         "%s feed %s/x --device '" QEMU_M3 "%s' --timeout 120 --quiet && "
	         "%s run specs/litert/add.yaml --filter '*/0' --json %s/d.json --quiet",
	         q, tmp, q, tmp, fw, q, tmp);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("export and feed", "%s", cmd));
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s import %s/x --outputs %s/x/outputs.log --json %s/i.json",
	                             q, tmp, tmp, tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	qct_proc_free(&p);
	char a[1200], b[1200];
	snprintf(a, sizeof a, "%s/i.json", tmp);
	snprintf(b, sizeof b, "%s/d.json", tmp);
	json_t *rep = NULL;
	CU_ASSERT_EQUAL(differing(a, b, &rep, 1), 4); /* the four faults, checked below */
	json_t *cases = json_object_get(rep, "cases");
	static const struct {
		size_t index;
		const char *verdict, *says;
	} want[] = {{5, "CRASH", "HardFault on the device"},
	            {7, "TIMEOUT", "the board's watchdog"},
	            {9, "ERROR", "the firmware's watched region 0"},
	            {11, "ERROR", "wrote "}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		json_t *c = json_array_get(cases, want[i].index);
		if (strcmp(qct_verdict(c), want[i].verdict) ||
		    !strstr(qct_str(c, "message"), want[i].says))
			fprintf(stderr, "\n  case %zu: %s: %s", want[i].index, qct_verdict(c),
			        qct_str(c, "message"));
		CU_ASSERT_STRING_EQUAL(qct_verdict(c), want[i].verdict);
		CU_ASSERT_PTR_NOT_NULL(strstr(qct_str(c, "message"), want[i].says));
	}
	json_t *imp = json_object_get(json_object_get(rep, "run"), "import");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(imp, "aborted")), 2);
	json_decref(rep);
	qct_rmdir(tmp);
}

/*
 * Chains and an LSTM on the Cortex-M3: the reference there speaks ABI 3 and gets each chain as
 * one fused call (its nodes and intermediates in the case file), LiteRT's LSTM has 15 inputs
 * (more than the 8 the runner took before format 4); the import is the direct run's report.
 */
static void test_chains_lstm(void)
{
	if (!available())
		return;
	const char *tmp = qct_tmpdir();
	char q[600], fw[1200], cmd[8192];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	snprintf(fw, sizeof fw, "%s", qct_build_path("mcu/fw-m3.elf"));
	const char *sel = "specs/chains specs/litert/lstm.yaml --filter '*/0' --filter '*/golden*'";
	snprintf(cmd, sizeof cmd,
	         "%s export %s --out %s/c && "
	         "%s feed %s/c --device '" QEMU_M3 "%s' --timeout 60 --quiet && "
	         "%s import %s/c --outputs %s/c/outputs.log --json %s/i.json --quiet; "
	         "%s run %s --json %s/d.json --quiet",
	         q, sel, tmp, q, tmp, fw, q, tmp, tmp, tmp, q, sel, tmp);
	CU_ASSERT_TRUE_FATAL(qct_sh_ok("chains on the Cortex-M3", "%s", cmd));
	char a[1200], b[1200];
	snprintf(a, sizeof a, "%s/i.json", tmp);
	snprintf(b, sizeof b, "%s/d.json", tmp);
	json_t *rep = NULL;
	CU_ASSERT_EQUAL(differing(a, b, &rep, 0), 0);
	size_t k, fused = 0, lstm = 0;
	json_t *c;
	json_array_foreach(json_object_get(rep, "cases"), k, c)
	{
		fused += !strcmp(qct_str(json_object_get(c, "chain"), "mode"), "fused");
		lstm += !strcmp(qct_str(c, "op"), "LSTM") && !strcmp(qct_verdict(c), "PASS");
	}
	CU_ASSERT(fused >= 14 && lstm > 0);
	json_decref(rep);
	qct_rmdir(tmp);
}

void qct_register_mcu(void)
{
	CU_pSuite s = qct_suite("mcu");
	CU_add_test(s, "a Cortex-M certified from two shards' captures", test_certify_shards);
	CU_add_test(s, "faults on the device: CRASH, TIMEOUT, ERROR", test_faults);
	CU_add_test(s, "chains (fused) and an LSTM on the device", test_chains_lstm);
}
