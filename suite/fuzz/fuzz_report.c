/*
 * libFuzzer target of the report reader (`make fuzz`): the input is a JSON report, read as
 * merge, diff, report and --baseline read it (qc_report_open: the scan of the whole file; then
 * every case through qc_report_next, checked; the first again through qc_report_at), then
 * whole (qc_report_read). A finding is a crash, a sanitizer report, a leak, a timeout or an
 * out-of-memory.
 */
#include <stdint.h>

#include "fuzz_files.h"
#include "report/report_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[700], err[1024];
	fuzz_write("fuzz.json", data, size, path, sizeof path);
	qc_report *r = qc_report_open(path, err, sizeof err);
	if (!r)
		return 0;
	json_t *c;
	long long first = -1;
	while (qc_report_next(r, &c, err, sizeof err) > 0) {
		if (first < 0)
			first = qc_report_pos_of_last(r);
		(void)qc_json_num(json_object_get(c, "seconds"));
		json_decref(c);
	}
	if (first >= 0 && qc_report_at(r, first, &c, err, sizeof err) == 0)
		json_decref(c);
	qc_report_rewind(r);
	if (qc_report_next(r, &c, err, sizeof err) > 0)
		json_decref(c);
	qc_report_close(r);
	json_decref(qc_report_read(path, err, sizeof err));
	return 0;
}
