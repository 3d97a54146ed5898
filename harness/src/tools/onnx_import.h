/*
 * `qconform import-onnx`: ONNX's own backend node tests (a directory of
 * <test>/model.onnx + test_data_set_N/{input,output}_K.pb, as Debian's
 * libonnx-testdata ships them) turned into qconform specs, one per test,
 * with one explicit golden case per data set and the sha256 of every file
 * used. Tests of QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * QLinearMatMul, QLinearConv, MatMulInteger and ConvInteger whose model is a
 * single node are imported; the others of those ops (expanded function
 * bodies, types or attributes the plugin ABI cannot carry) are listed with
 * the reason in OUTDIR/README.md.
 */
#ifndef QC_ONNX_IMPORT_H
#define QC_ONNX_IMPORT_H

#include <stddef.h>

typedef struct qc_onnx_import_stats {
	int imported, skipped, cases;
} qc_onnx_import_stats;

/* Imports every test under dir into outdir (created if missing). The
 * provenance text names where dir came from (package and version). Returns
 * 0, or 2 with "path: reason" in err and nothing written. */
int qc_onnx_import(const char *dir, const char *outdir, const char *provenance,
                   qc_onnx_import_stats *stats, char *err, size_t err_size);

#endif
