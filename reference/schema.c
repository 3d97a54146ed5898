/*
 * The operators' schemas (qref.h): inputs, outputs and attributes of every op
 * the kernels implement, with the types, ranges and defaults the kernels read
 * them with. The documentation of each op is in specs/<semantics>/OPERATORS.md
 * (specs/README.md, "Operators"); attribute names are the frameworks' own
 * (TFLite's option names, ONNX's attributes, torch's and TensorFlow's
 * arguments).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qref.h"

#define INF       INFINITY
#define I32       2147483647.0
#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define END                                                                                        \
	{                                                                                          \
		NULL, 0, 0, 0, 0, 0, NULL, 0, NULL                                                 \
	}

/* attribute rows: name, type, required, min, max, min_open, names, by_index, default */
#define A_INT(n, lo, hi, def)                                                                      \
	{                                                                                          \
		n, QREF_ATTR_INT, 0, lo, hi, 0, NULL, 0, def                                       \
	}
#define A_INT_REQ(n, lo, hi)                                                                       \
	{                                                                                          \
		n, QREF_ATTR_INT, 1, lo, hi, 0, NULL, 0, NULL                                      \
	}
#define A_BOOL(n, def)                                                                             \
	{                                                                                          \
		n, QREF_ATTR_BOOL, 0, 0, 1, 0, NULL, 0, def                                        \
	}
#define A_NUM(n, def)                                                                              \
	{                                                                                          \
		n, QREF_ATTR_FLOAT, 0, -INF, INF, 0, NULL, 0, def                                  \
	}
#define A_NUM_REQ(n)                                                                               \
	{                                                                                          \
		n, QREF_ATTR_FLOAT, 1, -INF, INF, 0, NULL, 0, NULL                                 \
	}
#define A_ENUM(n, names, idx, def)                                                                 \
	{                                                                                          \
		n, QREF_ATTR_ENUM, 0, 0, 0, 0, names, idx, def                                     \
	}
#define A_INTS(n, lo, def)                                                                         \
	{                                                                                          \
		n, QREF_ATTR_INTS, 0, lo, INF, 0, NULL, 0, def                                     \
	}

/* TFLite's ActivationFunctionType, in the schema's order (CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED take the name or its index) */
#define TFLITE_ACT LIST("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT")
/* the fused activations the other LiteRT kernels read by name */
#define ACT4 LIST("NONE", "RELU", "RELU6", "RELU_N1_TO_1")

static const qref_attr_schema no_attrs[] = {END};

static const qref_attr_schema conv_attrs[] = {
        A_ENUM("padding", LIST("SAME", "VALID"), 1, "SAME"),
        A_INT("stride_h", 1, I32, "1"),
        A_INT("stride_w", 1, I32, "1"),
        A_INT("dilation_h_factor", 1, I32, "1"),
        A_INT("dilation_w_factor", 1, I32, "1"),
        A_ENUM("fused_activation_function", TFLITE_ACT, 1, "NONE"),
        A_ENUM("quantized_bias_type", LIST("int32", "int64"), 0, "the bias's type"),
        END,
};

static const qref_attr_schema dw_attrs[] = {
        A_ENUM("padding", LIST("SAME", "VALID"), 1, "SAME"),
        A_INT("stride_h", 1, I32, "1"),
        A_INT("stride_w", 1, I32, "1"),
        A_INT("dilation_h_factor", 1, I32, "1"),
        A_INT("dilation_w_factor", 1, I32, "1"),
        A_INT("depth_multiplier", 1, I32, "C_out / C_in"),
        A_ENUM("fused_activation_function", TFLITE_ACT, 1, "NONE"),
        END,
};

static const qref_attr_schema fc_attrs[] = {
        A_BOOL("keep_num_dims", "0"),
        A_ENUM("fused_activation_function", TFLITE_ACT, 1, "NONE"),
        A_ENUM("quantized_bias_type", LIST("int32", "int64"), 0, "the bias's type"),
        END,
};

static const qref_attr_schema addsub_attrs[] = {
        A_ENUM("fused_activation_function", ACT4, 0, "NONE"),
        A_BOOL("pot_scale_int16", "0"),
        END,
};

static const qref_attr_schema mul_attrs[] = {
        A_ENUM("fused_activation_function", ACT4, 0, "NONE"),
        END,
};

static const qref_attr_schema softmax_attrs[] = {
        {"beta", QREF_ATTR_FLOAT, 0, 0, INF, 1, NULL, 0, "1"},
        END,
};

static const qref_attr_schema act_none_attrs[] = {
        A_ENUM("fused_activation_function", LIST("NONE"), 0, "NONE"),
        END,
};

static const qref_attr_schema pool_attrs[] = {
        A_ENUM("padding", LIST("SAME", "VALID"), 0, "VALID"),
        A_INT("stride_h", 1, INF, "1"),
        A_INT("stride_w", 1, INF, "1"),
        A_INT("filter_height", 1, INF, "1"),
        A_INT("filter_width", 1, INF, "1"),
        A_ENUM("fused_activation_function", ACT4, 0, "NONE"),
        END,
};

static const qref_attr_schema reduce_attrs[] = {
        A_BOOL("keep_dims", "0"),
        END,
};

static const qref_attr_schema concat_attrs[] = {
        A_INT("axis", -INF, INF, "0"),
        A_ENUM("fused_activation_function", LIST("NONE"), 0, "NONE"),
        END,
};

static const qref_attr_schema gather_attrs[] = {
        A_INT("axis", -INF, INF, "0"),
        A_INT("batch_dims", -INF, INF, "0"),
        END,
};

static const qref_attr_schema squeeze_attrs[] = {
        A_INTS("squeeze_dims", -INF, "every dimension of size 1"),
        END,
};

static const qref_attr_schema resize_attrs[] = {
        A_BOOL("align_corners", "0"),
        A_BOOL("half_pixel_centers", "0"),
        END,
};

static const qref_attr_schema s2d_attrs[] = {
        A_INT_REQ("block_size", 1, INF),
        END,
};

/* QuantizeLinear: saturate (opset 19) applies to float8 outputs; output_dtype (opset 21) is a
 * TensorProto.DataType code, 0 for the zero point's type; precision (opset 23) the type of the
 * division, 0 when absent (1 float, 10 float16, 16 bfloat16) */
static const qref_attr_schema onnx_quantize_attrs[] = {
        A_BOOL("saturate", "1"),
        A_INT("output_dtype", 0, 26, "0"),
        A_INT("precision", 0, 16, "0"),
        END,
};

/* DequantizeLinear: output_dtype (opset 25) names y's type, 0 for the scale's */
static const qref_attr_schema onnx_dequantize_attrs[] = {
        A_INT("output_dtype", 0, 16, "0"),
        END,
};

static const qref_attr_schema ort_matmul_nbits_attrs[] = {
        A_INT_REQ("K", 1, I32),
        A_INT_REQ("N", 1, I32),
        A_INT("bits", 2, 8, "4"),
        A_INT_REQ("block_size", 16, I32),
        A_INT("accuracy_level", 0, 4, "0"),
        END,
};

static const qref_attr_schema ort_gather_bq_attrs[] = {
        A_INT("gather_axis", -QCF_MAX_RANK, QCF_MAX_RANK - 1, "0"),
        A_INT("quantize_axis", -QCF_MAX_RANK, QCF_MAX_RANK - 1, "1"),
        A_INT("block_size", 16, I32, "128"),
        A_INT("bits", 2, 8, "4"),
        END,
};

static const qref_attr_schema ort_dq_attrs[] = {
        A_INT("axis", -QCF_MAX_RANK, QCF_MAX_RANK - 1, "1"),
        END,
};

static const qref_attr_schema onnx_conv_attrs[] = {
        A_ENUM("auto_pad", LIST("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"), 0, "NOTSET"),
        A_INTS("dilations", 1, "1 per spatial axis"),
        A_INT("group", 1, INF, "1"),
        A_INTS("kernel_shape", 0, "w's kernel dimensions"),
        A_INTS("pads", 0, "0 (begin and end of every spatial axis)"),
        A_INTS("strides", 1, "1 per spatial axis"),
        END,
};

static const qref_attr_schema tf_args_attrs[] = {
        A_NUM("min", "-6"),
        A_NUM("max", "6"),
        A_INT("num_bits", 2, 16, "8"),
        A_BOOL("narrow_range", "0"),
        END,
};

static const qref_attr_schema tf_vars_attrs[] = {
        A_INT("num_bits", 2, 16, "8"),
        A_BOOL("narrow_range", "0"),
        END,
};

static const qref_attr_schema torch_pt_attrs[] = {
        A_NUM_REQ("scale"),
        A_INT_REQ("zero_point", -INF, INF),
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        END,
};

static const qref_attr_schema torch_pc_attrs[] = {
        A_INT_REQ("axis", -INF, INF),
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        END,
};

static const qref_attr_schema torch_learn_pt_attrs[] = {
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        A_NUM("grad_factor", "1"),
        END,
};

/* PyTorch 2 export (torch_pt2e.c): torch's ScalarType arguments by name */
#define TORCH_QDTYPES                                                                              \
	LIST("int8", "uint8", "int16", "uint16", "int32", "int64", "float8_e5m2", "float8_e4m3fn", \
	     "float32")
#define A_DTYPE                                                                                    \
	{                                                                                          \
		"dtype", QREF_ATTR_ENUM, 1, 0, 0, 0, TORCH_QDTYPES, 0, NULL                        \
	}

static const qref_attr_schema torch_qrange_attrs[] = {
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        END,
};

static const qref_attr_schema torch_group_attrs[] = {
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        A_INT("group_size", -INF, INF, "128"),
        END,
};

static const qref_attr_schema torch_dtype_attrs[] = {
        A_DTYPE,
        END,
};

static const qref_attr_schema torch_choose_attrs[] = {
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        A_NUM_REQ("eps"),
        A_DTYPE,
        END,
};

static const qref_attr_schema torch_learn_pc_attrs[] = {
        A_INT_REQ("axis", -INF, INF),
        A_INT_REQ("quant_min", -INF, INF),
        A_INT_REQ("quant_max", -INF, INF),
        A_NUM("grad_factor", "1"),
        END,
};

/* op rows: semantics, op, inputs, min and max inputs, outputs, outputs, attributes */
#define XY   LIST("x"), 1, 1, LIST("y"), 1
#define AB_Y LIST("a", "b"), 2, 2, LIST("y"), 1

static const qref_op_schema schemas[] = {
        /* LiteRT (specs/README.md, specs/litert/OPERATORS.md) */
        {"litert", "QUANTIZE", XY, no_attrs},
        {"litert", "DEQUANTIZE", XY, no_attrs},
        {"litert", "CONV_2D", LIST("input", "filter", "bias"), 2, 3, LIST("output"), 1, conv_attrs},
        {"litert", "DEPTHWISE_CONV_2D", LIST("input", "filter", "bias"), 2, 3, LIST("output"), 1,
         dw_attrs},
        {"litert", "FULLY_CONNECTED", LIST("input", "filter", "bias"), 2, 3, LIST("output"), 1,
         fc_attrs},
        {"litert", "ADD", AB_Y, addsub_attrs},
        {"litert", "SUB", AB_Y, addsub_attrs},
        {"litert", "MUL", AB_Y, mul_attrs},
        {"litert", "MAXIMUM", AB_Y, no_attrs},
        {"litert", "MINIMUM", AB_Y, no_attrs},
        {"litert", "EQUAL", AB_Y, no_attrs},
        {"litert", "NOT_EQUAL", AB_Y, no_attrs},
        {"litert", "LESS", AB_Y, no_attrs},
        {"litert", "LESS_EQUAL", AB_Y, no_attrs},
        {"litert", "GREATER", AB_Y, no_attrs},
        {"litert", "GREATER_EQUAL", AB_Y, no_attrs},
        {"litert", "SOFTMAX", XY, softmax_attrs},
        {"litert", "LOGISTIC", XY, no_attrs},
        {"litert", "TANH", XY, no_attrs},
        {"litert", "L2_NORMALIZATION", XY, act_none_attrs},
        {"litert", "LOG_SOFTMAX", XY, no_attrs},
        {"litert", "AVERAGE_POOL_2D", XY, pool_attrs},
        {"litert", "MAX_POOL_2D", XY, pool_attrs},
        {"litert", "MEAN", LIST("x", "axis"), 2, 2, LIST("y"), 1, reduce_attrs},
        {"litert", "SUM", LIST("x", "axis"), 2, 2, LIST("y"), 1, reduce_attrs},
        {"litert", "CONCATENATION", LIST("values"), 1, 16, LIST("y"), 1, concat_attrs},
        {"litert", "RESHAPE", LIST("x", "shape"), 2, 2, LIST("y"), 1, no_attrs},
        {"litert", "TRANSPOSE", LIST("x", "perm"), 2, 2, LIST("y"), 1, no_attrs},
        {"litert", "PAD", LIST("x", "paddings"), 2, 2, LIST("y"), 1, no_attrs},
        {"litert", "PADV2", LIST("x", "paddings", "constant_values"), 3, 3, LIST("y"), 1, no_attrs},
        {"litert", "SLICE", LIST("x", "begin", "size"), 3, 3, LIST("y"), 1, no_attrs},
        {"litert", "GATHER", LIST("x", "positions"), 2, 2, LIST("y"), 1, gather_attrs},
        {"litert", "SQUEEZE", XY, squeeze_attrs},
        {"litert", "RESIZE_BILINEAR", LIST("x", "size"), 2, 2, LIST("y"), 1, resize_attrs},
        {"litert", "SPACE_TO_DEPTH", XY, s2d_attrs},
        {"litert", "BATCH_TO_SPACE_ND", LIST("x", "block_shape", "crops"), 3, 3, LIST("y"), 1,
         no_attrs},
        {"litert", "SPACE_TO_BATCH_ND", LIST("x", "block_shape", "paddings"), 3, 3, LIST("y"), 1,
         no_attrs},
        {"litert", "ARG_MAX", LIST("x", "axis"), 2, 2, LIST("y"), 1, no_attrs},
        {"litert", "SHAPE", XY, no_attrs},
        /* torch (specs/torch/OPERATORS.md) */
        {"torch", "fake_quantize_per_tensor_affine", XY, torch_pt_attrs},
        {"torch", "fake_quantize_per_tensor_affine_cachemask", LIST("x"), 1, 1, LIST("y", "mask"),
         2, torch_pt_attrs},
        {"torch", "fake_quantize_per_channel_affine", LIST("x", "scale", "zero_point"), 3, 3,
         LIST("y"), 1, torch_pc_attrs},
        {"torch", "fake_quantize_per_channel_affine_cachemask", LIST("x", "scale", "zero_point"), 3,
         3, LIST("y", "mask"), 2, torch_pc_attrs},
        {"torch", "fake_quantize_per_tensor_affine_backward", LIST("dY", "X"), 2, 2, LIST("dX"), 1,
         torch_pt_attrs},
        {"torch", "fake_quantize_per_channel_affine_backward",
         LIST("dY", "X", "scale", "zero_point"), 4, 4, LIST("dX"), 1, torch_pc_attrs},
        {"torch", "fake_quantize_per_tensor_affine_cachemask_backward", LIST("dY", "mask"), 2, 2,
         LIST("dX"), 1, no_attrs},
        {"torch", "fake_quantize_per_channel_affine_cachemask_backward", LIST("dY", "mask"), 2, 2,
         LIST("dX"), 1, no_attrs},
        {"torch", "_fake_quantize_learnable_per_tensor_affine", LIST("x", "scale", "zero_point"), 3,
         3, LIST("y"), 1, torch_learn_pt_attrs},
        {"torch", "_fake_quantize_learnable_per_tensor_affine_backward",
         LIST("dY", "X", "scale", "zero_point"), 4, 4, LIST("dX", "dScale", "dZeroPoint"), 3,
         torch_learn_pt_attrs},
        {"torch", "_fake_quantize_learnable_per_channel_affine", LIST("x", "scale", "zero_point"),
         3, 3, LIST("y"), 1, torch_learn_pc_attrs},
        {"torch", "_fake_quantize_learnable_per_channel_affine_backward",
         LIST("dY", "X", "scale", "zero_point"), 4, 4, LIST("dX", "dScale", "dZeroPoint"), 3,
         torch_learn_pc_attrs},
        {"torch", "quantize_per_tensor", XY, no_attrs},
        {"torch", "quantize_per_channel", XY, no_attrs},
        {"torch", "dequantize", XY, no_attrs},
        {"torch", "quantized_linear", LIST("x", "weight", "bias"), 2, 3, LIST("y"), 1, no_attrs},
        /* torch.ops.quantized_decomposed (PyTorch 2 export, torch_pt2e.c) */
        {"torch", "quantize_per_token", LIST("input", "scales", "zero_points"), 3, 3,
         LIST("output"), 1, torch_qrange_attrs},
        {"torch", "dequantize_per_token", LIST("input", "scales", "zero_points"), 3, 3,
         LIST("output"), 1, torch_qrange_attrs},
        {"torch", "choose_qparams_per_token", LIST("input"), 1, 1, LIST("scales", "zero_points"), 2,
         torch_dtype_attrs},
        {"torch", "choose_qparams_per_token_asymmetric", LIST("input"), 1, 1,
         LIST("scales", "zero_points"), 2, torch_dtype_attrs},
        {"torch", "quantize_per_channel_group", LIST("input", "scales", "zero_points"), 3, 3,
         LIST("output"), 1, torch_group_attrs},
        {"torch", "dequantize_per_channel_group", LIST("input", "scales", "zero_points"), 2, 3,
         LIST("output"), 1, torch_group_attrs},
        {"torch", "choose_qparams.tensor", LIST("input"), 1, 1, LIST("scale", "zero_point"), 2,
         torch_choose_attrs},
        {"torch", "choose_qparams_symmetric.tensor", LIST("input"), 1, 1,
         LIST("scale", "zero_point"), 2, torch_choose_attrs},
        /* TensorFlow (specs/tf/OPERATORS.md) */
        {"tf", "fake_quant_with_min_max_args", LIST("inputs"), 1, 1, LIST("outputs"), 1,
         tf_args_attrs},
        {"tf", "fake_quant_with_min_max_vars", LIST("inputs", "min", "max"), 3, 3, LIST("outputs"),
         1, tf_vars_attrs},
        {"tf", "fake_quant_with_min_max_vars_per_channel", LIST("inputs", "min", "max"), 3, 3,
         LIST("outputs"), 1, tf_vars_attrs},
        {"tf", "fake_quant_with_min_max_args_gradient", LIST("gradients", "inputs"), 2, 2,
         LIST("backprops"), 1, tf_args_attrs},
        {"tf", "fake_quant_with_min_max_vars_gradient", LIST("gradients", "inputs", "min", "max"),
         4, 4, LIST("backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"), 3,
         tf_vars_attrs},
        {"tf", "fake_quant_with_min_max_vars_per_channel_gradient",
         LIST("gradients", "inputs", "min", "max"), 4, 4,
         LIST("backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"), 3, tf_vars_attrs},
        /* ONNX (specs/onnx/OPERATORS.md) */
        {"onnx", "QuantizeLinear", XY, onnx_quantize_attrs},
        {"onnx", "DequantizeLinear", XY, onnx_dequantize_attrs},
        {"onnx", "QLinearMatMul", AB_Y, no_attrs},
        {"onnx", "MatMulInteger", LIST("a", "b", "a_zero_point", "b_zero_point"), 2, 4, LIST("y"),
         1, no_attrs},
        {"onnx", "QLinearConv", LIST("x", "w", "B"), 2, 3, LIST("y"), 1, onnx_conv_attrs},
        {"onnx", "ConvInteger", LIST("x", "w", "x_zero_point", "w_zero_point"), 2, 4, LIST("y"), 1,
         onnx_conv_attrs},
        {"onnx", "DynamicQuantizeLinear", LIST("x"), 1, 1, LIST("y", "y_scale", "y_zero_point"), 3,
         no_attrs},
        /* ONNX Runtime's com.microsoft ops (specs/ort/OPERATORS.md); the optional inputs are
         * told apart by name */
        {"ort", "MatMulNBits", LIST("a", "b", "scales", "zero_points", "bias"), 3, 5, LIST("y"), 1,
         ort_matmul_nbits_attrs},
        {"ort", "GatherBlockQuantized", LIST("data", "indices", "scales", "zero_points"), 3, 4,
         LIST("y"), 1, ort_gather_bq_attrs},
        {"ort", "DequantizeLinear", XY, ort_dq_attrs},
        /* GGML (specs/ggml/OPERATORS.md) */
        {"ggml", "quantize_row", XY, no_attrs},
        {"ggml", "dequantize_row", XY, no_attrs},
        {"ggml", "mul_mat", AB_Y, no_attrs},
        {"ggml", "get_rows", LIST("a", "idx"), 2, 2, LIST("y"), 1, no_attrs},
        /* OCP MX v1.0 and NVFP4 (specs/mx/OPERATORS.md) */
        {"mx", "quantize_mx", LIST("x"), 1, 1, LIST("y", "scale"), 2, no_attrs},
        {"mx", "dequantize_mx", LIST("x", "scale"), 2, 2, LIST("y"), 1, no_attrs},
        {"mx", "dot_mx", LIST("a", "a_scale", "b", "b_scale"), 4, 4, LIST("y"), 1, no_attrs},
        {"mx", "quantize_nvfp4", LIST("x", "global_scale"), 2, 2, LIST("y", "scale"), 2, no_attrs},
        {"mx", "dequantize_nvfp4", LIST("x", "scale", "global_scale"), 3, 3, LIST("y"), 1,
         no_attrs},
};

#define N_SCHEMAS ((int)(sizeof schemas / sizeof schemas[0]))

const qref_op_schema *qref_op_schema_at(int i)
{
	return i >= 0 && i < N_SCHEMAS ? &schemas[i] : NULL;
}

const qref_op_schema *qref_op_schema_find(const char *semantics, const char *op)
{
	if (!semantics || !op)
		return NULL;
	for (int i = 0; i < N_SCHEMAS; i++)
		if (strcmp(schemas[i].op, op) == 0 && strcmp(schemas[i].semantics, semantics) == 0)
			return &schemas[i];
	return NULL;
}

const qref_attr_schema *qref_attr_schema_find(const qref_op_schema *op, const char *name)
{
	if (!op || !name)
		return NULL;
	for (const qref_attr_schema *a = op->attrs; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

const char *qref_schema_tensor_name(const qref_op_schema *op, int is_output, int k, char *buf,
                                    size_t size)
{
	const char *const *names = op ? (is_output ? op->outputs : op->inputs) : NULL;
	int n = 0;
	while (names && names[n])
		n++;
	if (k >= 0 && k < n)
		return names[k];
	if (k >= 0 && n && !is_output && op->max_inputs > n)
		return names[n - 1]; /* CONCATENATION's values */
	snprintf(buf, size, "%s %d", is_output ? "output" : "input", k);
	return buf;
}

/* "an integer", "an integer >= 1", "an integer in [2, 16]", "a number > 0" */
static void describe(const qref_attr_schema *s, const char *what, char *buf, size_t size)
{
	int lo = s->min > -INF, hi = s->max < INF;
	if (lo && hi)
		snprintf(buf, size, "%s in [%.17g, %.17g]", what, s->min, s->max);
	else if (lo)
		snprintf(buf, size, "%s %s %.17g", what, s->min_open ? ">" : ">=", s->min);
	else if (hi)
		snprintf(buf, size, "%s <= %.17g", what, s->max);
	else
		snprintf(buf, size, "%s", what);
}

static int in_range(const qref_attr_schema *s, double v)
{
	return (s->min_open ? v > s->min : v >= s->min) && v <= s->max;
}

/* The value as written, for messages. */
static void shown(const qcf_attr *a, char *buf, size_t size)
{
	switch (a->type) {
	case QCF_ATTR_INT: snprintf(buf, size, "%lld", (long long)a->v.i); break;
	case QCF_ATTR_FLOAT: snprintf(buf, size, "%.17g", a->v.f); break;
	case QCF_ATTR_STRING: snprintf(buf, size, "'%s'", a->v.s ? a->v.s : ""); break;
	default: snprintf(buf, size, "a list of %d", (int)a->count); break;
	}
}

/* One number of a (a scalar, or a one-element list); 0 when a is not one. */
static int scalar(const qcf_attr *a, double *v, int *integral)
{
	switch (a->type) {
	case QCF_ATTR_INT:
		*v = (double)a->v.i;
		*integral = 1;
		return 1;
	case QCF_ATTR_FLOAT:
		*v = a->v.f;
		*integral = 0;
		return 1;
	case QCF_ATTR_INTS:
		if (a->count != 1 || !a->v.ints)
			return 0;
		*v = (double)a->v.ints[0];
		*integral = 1;
		return 1;
	case QCF_ATTR_FLOATS:
		if (a->count != 1 || !a->v.floats)
			return 0;
		*v = a->v.floats[0];
		*integral = 0;
		return 1;
	default: return 0;
	}
}

static int is_int(double v, int integral)
{
	return integral || (v >= -0x1p63 && v < 0x1p63 && v == trunc(v));
}

int qref_attr_check(const qref_attr_schema *s, const qcf_attr *a, char *message, size_t size)
{
	char want[160], got[64];
	if (message && size)
		message[0] = '\0';
	if (!s || !a)
		return 0;
	shown(a, got, sizeof got);
	double v;
	int integral;
	switch (s->type) {
	case QREF_ATTR_INT:
	case QREF_ATTR_BOOL:
		if (s->type == QREF_ATTR_BOOL)
			snprintf(want, sizeof want, "0 or 1 (false or true)");
		else
			describe(s, "an integer", want, sizeof want);
		if (scalar(a, &v, &integral) && is_int(v, integral) && in_range(s, v))
			return 0;
		break;
	case QREF_ATTR_FLOAT:
		describe(s, "a number", want, sizeof want);
		if (scalar(a, &v, &integral) && !isnan(v) && in_range(s, v))
			return 0;
		break;
	case QREF_ATTR_ENUM: {
		size_t o = (size_t)snprintf(want, sizeof want, "one of ");
		for (int k = 0; s->names[k] && o < sizeof want; k++)
			o += (size_t)snprintf(want + o, sizeof want - o, "%s%s", k ? ", " : "",
			                      s->names[k]);
		if (s->by_index && o < sizeof want)
			snprintf(want + o, sizeof want - o, " (or its index)");
		if (a->type == QCF_ATTR_STRING && a->v.s)
			for (int k = 0; s->names[k]; k++)
				if (strcmp(a->v.s, s->names[k]) == 0)
					return 0;
		int n = 0;
		while (s->names[n])
			n++;
		if (s->by_index && a->type != QCF_ATTR_STRING && scalar(a, &v, &integral) &&
		    is_int(v, integral) && v >= 0 && v < n)
			return 0;
		break;
	}
	case QREF_ATTR_INTS: {
		if (s->min > -INF)
			snprintf(want, sizeof want, "a list of integers, each >= %.17g", s->min);
		else
			snprintf(want, sizeof want, "a list of integers");
		if (a->type == QCF_ATTR_INT || a->type == QCF_ATTR_FLOAT) {
			if (scalar(a, &v, &integral) && is_int(v, integral) && in_range(s, v))
				return 0;
			break;
		}
		if (a->type != QCF_ATTR_INTS && a->type != QCF_ATTR_FLOATS)
			break;
		int ok = a->count >= 0;
		for (int32_t k = 0; ok && k < a->count; k++) {
			double e = a->type == QCF_ATTR_INTS ? (double)a->v.ints[k] : a->v.floats[k];
			ok = is_int(e, a->type == QCF_ATTR_INTS) && in_range(s, e);
			if (!ok)
				snprintf(got, sizeof got, "%.17g at index %d", e, (int)k);
		}
		if (ok)
			return 0;
		break;
	}
	}
	if (message && size)
		snprintf(message, size, "must be %s, got %s", want, got);
	return -1;
}
