/*
 * libFuzzer target of the journal reader (`make fuzz`): the input is a journal file, read as
 * `run --resume` reads it (qc_journal_load: the header, each line's checksum and case), then
 * every case kept is replayed (qc_journal_result) and found by its ordinal. A finding is a
 * crash, a sanitizer report, a leak, a timeout or an out-of-memory.
 */
#include <stdint.h>

#include "fuzz_files.h"
#include "pipeline/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[700], err[1024];
	fuzz_write("fuzz.journal", data, size, path, sizeof path);
	qc_journal_data d;
	if (qc_journal_load(path, &d, err, sizeof err) != 0)
		return 0;
	for (size_t i = 0; i < d.n; i++) {
		qc_result r;
		(void)qc_journal_result(&d.e[i], &r);
		(void)qc_journal_find(&d, d.e[i].ordinal);
	}
	qc_journal_data_free(&d);
	return 0;
}
