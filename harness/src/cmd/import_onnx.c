/* qconform import-onnx: ONNX's node tests as specs. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "cmd/help.h"
#include "tools/onnx_import.h"

/* ---- the command ------------------------------------------------------- */

int qc_cmd_import_onnx(int argc, char **argv)
{
	const char *dir = NULL, *out = "specs/onnx/imported",
	           *prov = "ONNX backend test data (provenance not given)";
	qc_opt_reader rd = {.cmd = "import-onnx", .argc = argc - 1, .argv = argv + 1};
	const char *a, *v;
	for (int k; (k = qc_opt_next(&rd, &a, &v)) != QC_OPT_END;) {
		if (k == QC_OPT_BAD)
			return 2;
		if (k == QC_OPT_FLAG && !strcmp(a, "--out")) {
			out = v;
		} else if (k == QC_OPT_FLAG && !strcmp(a, "--provenance")) {
			prov = v;
		} else if (k == QC_OPT_FLAG) {
			return qc_opt_unread("import-onnx", a);
		} else if (dir) {
			fprintf(stderr, "qconform import-onnx: one DIR only, got %s too\n", v);
			return 2;
		} else {
			dir = v;
		}
	}
	if (!dir) {
		fprintf(stderr, "qconform import-onnx: needs DIR (a directory of ONNX backend "
		                "node tests)\n");
		return 2;
	}
	for (const char *p = prov; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == '|') {
			fprintf(stderr, "qconform import-onnx: --provenance must be one line of "
			                "text without '|'\n");
			return 2;
		}
	char err[1024];
	qc_onnx_import_stats st;
	if (qc_onnx_import(dir, out, prov, &st, err, sizeof err)) {
		/* one line, whatever the file names or a model's strings hold */
		for (char *p = err; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = '?';
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	printf("imported %d tests (%d cases) into %s; %d not imported (reasons in %s/README.md)\n",
	       st.imported, st.cases, out, st.skipped, out);
	return 0;
}
