/*
 * libFuzzer target of the ONNX importer's decoding (`make fuzz`): the input is unpacked both as
 * a model.onnx (a ModelProto) and as the .pb file of a data set (a TensorProto), through the
 * importer's entry points (harness/src/tools/onnx_proto.h) and so under its memory and
 * nesting bounds; then the elements of every tensor are decoded: the model's initializers
 * (as the importer reads them), its nodes' tensor attributes, and the TensorProto. A finding
 * is a crash, a sanitizer report, a leak, a timeout or an out-of-memory.
 */
#include <stdint.h>

#include "tools/onnx_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode(const Onnx__TensorProto *pb)
{
	char err[512];
	qc_onnx_tensor *t = qc_onnx_tensor_of(pb);
	if (t)
		(void)qc_onnx_tensor_decode(t, err, sizeof err);
	qc_onnx_tensor_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	Onnx__ModelProto *m = qc_onnx_model_unpack(data, size, err, sizeof err);
	if (m && m->graph) {
		const Onnx__GraphProto *g = m->graph;
		for (size_t i = 0; i < g->n_initializer; i++)
			decode(g->initializer[i]);
		for (size_t i = 0; i < g->n_node; i++)
			for (size_t j = 0; j < g->node[i]->n_attribute; j++)
				if (g->node[i]->attribute[j]->t)
					decode(g->node[i]->attribute[j]->t);
	}
	if (m)
		onnx__model_proto__free_unpacked(m, NULL);
	qc_onnx_tensor *t;
	if (qc_onnx_tensor_read(&t, data, size, err, sizeof err) == 0) {
		(void)qc_onnx_tensor_decode(t, err, sizeof err);
		qc_onnx_tensor_free(t);
	}
	return 0;
}
