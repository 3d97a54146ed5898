/*
 * libFuzzer target of the waiver reader (`make fuzz`): the input is a waiver file, loaded as
 * `run --waivers` loads it (qc_waivers_load), then expired against a fixed day and matched
 * against a case name. Diagnostics go to /dev/null: a finding is a crash, a sanitizer report,
 * a leak, a timeout or an out-of-memory.
 */
#include <stdint.h>

#include "fuzz_files.h"
#include "judge/waivers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		devnull = stderr;
	char path[700];
	fuzz_write("fuzz.yaml", data, size, path, sizeof path);
	qc_diag diag = {0, 0, devnull};
	qc_waivers *ws = qc_waivers_load(path, &diag);
	if (!ws)
		return 0;
	(void)qc_waivers_expire(ws, (time_t)1767225600); /* 2026-01-01 */
	(void)qc_waivers_match(ws, "litert/add/case/x");
	(void)qc_waivers_find(ws, "onnx/QuantizeLinear/i=1");
	qc_waivers_free(ws);
	return 0;
}
