/*
 * libFuzzer target of the spec loader and the case expansion (`make fuzz`): the input is a
 * spec's text, loaded from memory (qc_spec_load_text: the YAML pre-scan, the structure
 * checks, sweep expressions), then at most MAX_CASES of its cases are built with their data
 * (expressions, generators, Lua generators) and everything is freed. Diagnostics go to
 * /dev/null: a finding is a crash, a sanitizer report, a leak, a timeout or an out-of-memory.
 */
#include <stdint.h>
#include <stdio.h>

#include "cases/cases.h"
#include "spec/spec.h"

#define MAX_CASES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		devnull = stderr;
	qc_diag diag = {0, 0, devnull};
	qc_spec *s = qc_spec_load_text("fuzz.yaml", (const char *)data, size, &diag);
	if (!s)
		return 0;
	(void)qc_cases_count(s);
	qc_cases *it = qc_cases_begin(s, 0, 1, &diag);
	qc_case *c;
	int rc;
	for (int n = 0; n < MAX_CASES && (rc = qc_cases_next(it, &c)) != 0; n++)
		if (rc > 0)
			qc_case_free(c);
	qc_cases_end(it);
	qc_spec_free(s);
	return 0;
}
