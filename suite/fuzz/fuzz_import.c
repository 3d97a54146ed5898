/*
 * libFuzzer target of import (`make fuzz`): the input is an export and a runner's records in
 * one file, its parts split at the line "==qcfuzz==": the manifest (manifest.qcm), case file
 * 0 (cases/000000.qcc), the runner's header record (outputs/runner.qco), case 0's start and
 * its record (both in outputs/000000.qco, one after the other), the end record
 * (outputs/end.qco), and, when a seventh part is there and not empty, a record stream given
 * as --outputs. Each binary part's trailing CRC-32 is made right first, so that the mutations
 * reach what the CRC guards. The directory is then read as `import` reads it
 * (qc_import_open). A finding is a crash, a sanitizer report, a leak, a timeout or an
 * out-of-memory.
 */
#include <stdint.h>

#include "fuzz_files.h"
#include "offline/import.h"
#include "offline/qcbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEP "\n==qcfuzz==\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"manifest.qcm",       "cases/000000.qcc",
	                                    "outputs/runner.qco", "outputs/000000.qco",
	                                    "outputs/000000.qco", "outputs/end.qco",
	                                    "stream.log"};
	const size_t n_names = sizeof names / sizeof names[0];
	unsigned char *rec = NULL; /* outputs/000000.qco: the start, then the record */
	size_t rec_n = 0;
	char path[700], stream[700] = "", err[4096];
	const uint8_t *p = data, *end = data + size;
	for (size_t k = 0; k < n_names; k++) {
		const uint8_t *sep =
		        p <= end ? memmem(p, (size_t)(end - p), SEP, sizeof SEP - 1) : NULL;
		const uint8_t *stop = sep ? sep : end;
		size_t n = p <= end ? (size_t)(stop - p) : 0;
		unsigned char *part = malloc(n + 1);
		if (!part)
			return 0;
		if (n)
			memcpy(part, p, n);
		if (k + 1 < n_names && n >= QCF_HEADER_BYTES + 4) {
			uint32_t crc = qc_crc32(0, part, n - 4);
			for (int i = 0; i < 4; i++)
				part[n - 4 + (size_t)i] = (unsigned char)(crc >> (8 * i));
		}
		if (k == 3 || k == 4) {
			unsigned char *r = realloc(rec, rec_n + n + 1);
			if (r) {
				rec = r;
				if (n)
					memcpy(rec + rec_n, part, n);
				rec_n += n;
			}
			if (k == 4)
				fuzz_write(names[k], rec ? rec : part, rec ? rec_n : 0, path,
				           sizeof path);
		} else
			fuzz_write(names[k], part, n, path, sizeof path);
		if (k + 1 == n_names && n)
			snprintf(stream, sizeof stream, "%s", path);
		free(part);
		p = sep ? sep + sizeof SEP - 1 : end + 1;
	}
	free(rec);
	const char *dirs[] = {fuzz_dir()}, *outputs[] = {stream[0] ? stream : NULL};
	qc_import_close(qc_import_open(dirs, outputs, 1, err, sizeof err));
	return 0;
}
