// qconform adapter for Arm NN (Debian's libarmnn-dev 20.08): each LiteRT call is a network of
// one operator, built with Arm NN's INetwork API the way its TfLite parser builds the same
// operator, optimized for one backend (option backend=, default CpuRef) and loaded into an
// IRuntime. See plugins/armnn/README.md for the mapping.
//
//   create   IRuntime::Create; the backend must be one the runtime offers (Debian ships CpuRef
//            as a dynamic backend, Arm_CpuRef_backend.so, found on libarmnn's built-in path)
//   supports the adapter's mapping (types, ranks, layouts, attributes Arm NN can express)
//   prepare  INetwork: input layers, the operator's layer(s), output layer; Optimize for the
//            backend (a layer the backend does not support: QCF_NOT_SUPPORTED with Arm NN's
//            reason); LoadNetwork
//   execute  EnqueueWorkload on the host's buffers
//   release  UnloadNetwork
//
// Arm NN's exceptions never escape: InvalidArgumentException and LayerValidationException
// (thrown while adding or validating a layer) are QCF_INVALID_PARAM, an unsupported layer or
// data type QCF_NOT_SUPPORTED, anything else QCF_ERROR, each with Arm NN's message. Like the
// XNNPACK adapter, this one does not run LiteRT's Prepare checks on Arm NN's behalf: a negative
// case Arm NN accepts is computed, and the harness judges it.
#include <armnn/ArmNN.hpp>
#include <armnn/BackendRegistry.hpp>
#include <armnn/Exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "qconform/plugin.h"
#include "qconform/plugin_util.h"

#ifndef QCF_ARMNN_VERSION
#define QCF_ARMNN_VERSION "unknown"
#endif

struct qcf_instance {
	armnn::IRuntimePtr rt{nullptr, &armnn::IRuntime::Destroy};
	armnn::BackendId backend{"CpuRef"};
	char err[512] = "";
};

struct qcf_prepared {
	armnn::NetworkId id = 0;
	bool loaded = false;
	std::vector<int> inputs; // the call's input index bound to network input i
	std::vector<armnn::TensorInfo> in_info;
	std::vector<armnn::TensorInfo> out_info; // network output k is the call's output k
};

namespace
{

qcf_status fail(qcf_instance *inst, qcf_status st, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

qcf_status fail(qcf_instance *inst, qcf_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(inst->err, sizeof inst->err, fmt, ap);
	va_end(ap);
	return st;
}

bool op_is(const qcf_op_call *call, const char *op)
{
	return call->op && std::strcmp(call->op, op) == 0;
}

// An int32 or int64 index tensor's values.
bool read_ints(const qcf_tensor *t, std::vector<int64_t> *v)
{
	const int64_t n = qcf_numel(t);
	if (n < 0 || (t->dtype != QCF_INT32 && t->dtype != QCF_INT64) ||
	    t->nbytes < qcf_dtype_nbytes(t->dtype, (size_t)n))
		return false;
	v->resize((size_t)n);
	for (int64_t i = 0; i < n; i++)
		(*v)[(size_t)i] = t->dtype == QCF_INT32
		                          ? (int64_t) static_cast<const int32_t *>(t->data)[i]
		                          : static_cast<const int64_t *>(t->data)[i];
	return true;
}

// Everything prepare() builds for a call, and the constant data its layers copy.
struct Net {
	armnn::INetworkPtr net{nullptr, &armnn::INetwork::Destroy};
	std::vector<int> inputs;
	std::vector<armnn::TensorInfo> in_info;
	std::vector<armnn::TensorInfo> out_info;
	std::vector<std::vector<uint8_t>> consts; // weights and biases (copied by Arm NN)
};

// The shape as Arm NN takes it: rank 0 as [1]; Arm NN has at most 5 dimensions.
qcf_status arm_shape(qcf_instance *inst, const qcf_tensor *t, const char *role,
                     armnn::TensorShape *out)
{
	if (t->rank > (int32_t)armnn::MaxNumOfTensorDimensions)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s has rank %d: Arm NN tensors have at most %u dimensions", role,
		            (int)t->rank, armnn::MaxNumOfTensorDimensions);
	unsigned int dims[armnn::MaxNumOfTensorDimensions] = {1};
	for (int32_t k = 0; k < t->rank; k++) {
		if (t->shape[k] > INT32_MAX)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s has a dimension beyond Arm NN's unsigned int extents",
			            role);
		dims[k] = (unsigned int)t->shape[k];
	}
	*out = armnn::TensorShape(t->rank ? (unsigned int)t->rank : 1u, dims);
	return QCF_OK;
}

// The tensor as an Arm NN TensorInfo, typed as Arm NN 20.08's TfLite parser types a model's
// tensors: int8 per tensor is QAsymmS8 (weights too, zero point 0 or not), int8 weights per axis
// QSymmS8 with one scale per slice of quantization dimension `axis`; other per-axis tensors
// have no Arm NN type.
qcf_status arm_info(qcf_instance *inst, const qcf_tensor *t, const char *role, bool weights,
                    armnn::TensorInfo *out)
{
	armnn::TensorShape shape;
	qcf_status st = arm_shape(inst, t, role, &shape);
	if (st != QCF_OK)
		return st;
	const qcf_quant *q = t->quant;
	if (q && (q->count < 1 || q->block_size != 0 || !q->scales || !q->zero_points))
		return fail(inst, QCF_NOT_SUPPORTED, "%s: blocked quantization has no Arm NN type",
		            role);
	// armnn::Quantize divides by the scale and asserts the quotient is not NaN (Debian builds
	// Arm NN with its assertions on): a scale that is not positive and finite aborts the worker
	for (int32_t c = 0; q && c < q->count; c++)
		if (!(q->scales[c] > 0.0f) || !std::isfinite(q->scales[c]))
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: scale %g: Arm NN asserts on the NaN a scale that is not "
			            "positive and finite gives (armnn::Quantize)",
			            role, (double)q->scales[c]);
	const bool per_axis = q && (q->count > 1 || q->axis >= 0);
	if (per_axis) {
		if (!weights || t->dtype != QCF_INT8)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: per-axis quantization of %s: Arm NN 20.08 has it for int8 "
			            "weights only (QSymmS8 with one scale per slice)",
			            role, qcf_dtype_name(t->dtype));
		for (int32_t c = 0; c < q->count; c++)
			if (q->zero_points[c] != 0)
				return fail(inst, QCF_NOT_SUPPORTED,
				            "%s: per-axis zero point %d: Arm NN's QSymmS8 per-axis "
				            "weights have no zero points",
				            role, (int)q->zero_points[c]);
		if (q->axis < 0 || q->axis >= (t->rank ? t->rank : 1))
			return fail(inst, QCF_NOT_SUPPORTED, "%s: per-axis quantization axis %d",
			            role, (int)q->axis);
		std::vector<float> scales(q->scales, q->scales + q->count);
		*out = armnn::TensorInfo(shape, armnn::DataType::QSymmS8, scales,
		                         (unsigned int)q->axis);
		return QCF_OK;
	}
	const float scale = q ? q->scales[0] : 0.0f;
	const int32_t zp = q ? q->zero_points[0] : 0;
	armnn::DataType dt;
	switch (t->dtype) {
	case QCF_INT8:
		if (!q)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: int8 without quantization has no Arm NN type", role);
		dt = armnn::DataType::QAsymmS8;
		break;
	case QCF_UINT8:
		if (!q)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: uint8 without quantization has no Arm NN type", role);
		dt = armnn::DataType::QAsymmU8;
		break;
	case QCF_INT16:
		if (!q)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: int16 without quantization has no Arm NN type", role);
		dt = armnn::DataType::QSymmS16;
		break;
	case QCF_INT32: dt = armnn::DataType::Signed32; break;
	case QCF_BOOL: dt = armnn::DataType::Boolean; break;
	case QCF_FLOAT32: dt = armnn::DataType::Float32; break;
	default:
		return fail(inst, QCF_NOT_SUPPORTED, "%s: %s has no Arm NN 20.08 type", role,
		            qcf_dtype_name(t->dtype));
	}
	*out = armnn::TensorInfo(shape, dt, scale, zp);
	return QCF_OK;
}

// A network input bound to the call's input i.
armnn::IOutputSlot &add_input(Net *n, int i, const armnn::TensorInfo &info)
{
	armnn::LayerBindingId id = (armnn::LayerBindingId)n->inputs.size();
	armnn::IConnectableLayer *l = n->net->AddInputLayer(id);
	l->GetOutputSlot(0).SetTensorInfo(info);
	n->inputs.push_back(i);
	n->in_info.push_back(info);
	return l->GetOutputSlot(0);
}

// The fused activation as a layer after the op, as Arm NN's TfLite parser adds it
// (AddFusedActivationLayer); conv: LiteRT's convolutions take TANH and SIGN_BIT and clamp to
// the type only, which the output's encoding does.
qcf_status fused_activation(qcf_instance *inst, const qcf_op_call *call, bool conv, bool *present,
                            armnn::ActivationDescriptor *d)
{
	*present = false;
	const qcf_attr *a = qcf_attr_find(call, "fused_activation_function");
	if (!a)
		return QCF_OK;
	if (a->type != QCF_ATTR_STRING || !a->v.s)
		return fail(inst, QCF_NOT_SUPPORTED, "fused_activation_function is not a string");
	const char *s = a->v.s;
	if (std::strcmp(s, "NONE") == 0)
		return QCF_OK;
	if (conv && (std::strcmp(s, "TANH") == 0 || std::strcmp(s, "SIGN_BIT") == 0))
		return QCF_OK;
	*present = true;
	if (std::strcmp(s, "RELU") == 0) {
		d->m_Function = armnn::ActivationFunction::ReLu;
	} else if (std::strcmp(s, "RELU6") == 0) {
		d->m_Function = armnn::ActivationFunction::BoundedReLu;
		d->m_A = 6.0f;
		d->m_B = 0.0f;
	} else if (std::strcmp(s, "RELU_N1_TO_1") == 0) {
		d->m_Function = armnn::ActivationFunction::BoundedReLu;
		d->m_A = 1.0f;
		d->m_B = -1.0f;
	} else {
		return fail(inst, QCF_NOT_SUPPORTED,
		            "fused activation %s: the adapter maps NONE, RELU, RELU6 and "
		            "RELU_N1_TO_1 to Arm NN activation layers",
		            s);
	}
	return QCF_OK;
}

// Connects layer -> [activation] -> output; the output's TensorInfo on both.
qcf_status finish(qcf_instance *inst, const qcf_op_call *call, Net *n,
                  armnn::IConnectableLayer *layer, bool conv)
{
	qcf_tensor *y = &call->outputs[0];
	armnn::TensorInfo info;
	qcf_status st = arm_info(inst, y, "output", false, &info);
	if (st != QCF_OK)
		return st;
	bool act = false;
	armnn::ActivationDescriptor ad;
	if ((st = fused_activation(inst, call, conv, &act, &ad)) != QCF_OK)
		return st;
	layer->GetOutputSlot(0).SetTensorInfo(info);
	armnn::IConnectableLayer *last = layer;
	if (act) {
		armnn::IConnectableLayer *a = n->net->AddActivationLayer(ad, "fused_activation");
		layer->GetOutputSlot(0).Connect(a->GetInputSlot(0));
		a->GetOutputSlot(0).SetTensorInfo(info);
		last = a;
	}
	armnn::IConnectableLayer *out = n->net->AddOutputLayer(0);
	last->GetOutputSlot(0).Connect(out->GetInputSlot(0));
	n->out_info.assign(1, info);
	return QCF_OK;
}

qcf_status need_io(qcf_instance *inst, const qcf_op_call *call, int lo, int hi)
{
	if (call->n_inputs < lo || call->n_inputs > hi || call->n_outputs != 1)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: expects %d..%d inputs and one output",
		            call->op, lo, hi);
	return QCF_OK;
}

// A non-negative integer attribute that fits uint32 (def when absent).
qcf_status u32_attr(qcf_instance *inst, const qcf_op_call *call, const char *name, uint32_t def,
                    uint32_t *out)
{
	int64_t v = def;
	int k = qcf_attr_int(call, name, &v);
	if (k < 0 || v < 0 || v > UINT32_MAX)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s: Arm NN's descriptors take an unsigned 32-bit value", name);
	*out = (uint32_t)v;
	return QCF_OK;
}

// LiteRT's padding (padding.h): SAME total max(0, (out - 1) * s + eff - in), the smaller half
// first; VALID none. Arm NN takes the result as explicit pads.
qcf_status padding(qcf_instance *inst, const qcf_op_call *call, bool *same)
{
	*same = true;
	const qcf_attr *a = qcf_attr_find(call, "padding");
	if (!a)
		return QCF_OK;
	if (a->type == QCF_ATTR_STRING && a->v.s && std::strcmp(a->v.s, "SAME") == 0)
		return QCF_OK;
	if (a->type == QCF_ATTR_STRING && a->v.s && std::strcmp(a->v.s, "VALID") == 0) {
		*same = false;
		return QCF_OK;
	}
	return fail(inst, QCF_NOT_SUPPORTED, "padding: the adapter maps SAME and VALID");
}

void same_pads(uint32_t in, uint32_t k, uint32_t dil, uint32_t s, uint32_t *before, uint32_t *after)
{
	const int64_t out = ((int64_t)in + s - 1) / s, eff = ((int64_t)k - 1) * dil + 1;
	int64_t total = (out - 1) * s + eff - in;
	if (total < 0)
		total = 0;
	*before = (uint32_t)(total / 2);
	*after = (uint32_t)(total - total / 2);
}

// A constant tensor (weights, bias) whose data the network copies; the bytes are kept in n.
armnn::ConstTensor const_tensor(Net *n, const armnn::TensorInfo &info, const void *data,
                                size_t bytes)
{
	n->consts.emplace_back(static_cast<const uint8_t *>(data),
	                       static_cast<const uint8_t *>(data) + bytes);
	return armnn::ConstTensor(info, n->consts.back().data());
}

// The bias: int32, its own quantization when given (as the parser reads it from the model),
// else LiteRT's implied s_in * s_w (per axis: one scale per output channel).
qcf_status bias_info(qcf_instance *inst, const qcf_tensor *b, const armnn::TensorInfo &in,
                     const armnn::TensorInfo &w, armnn::TensorInfo *out)
{
	if (b->dtype != QCF_INT32)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "bias of %s: Arm NN's quantized convolutions take an int32 bias",
		            qcf_dtype_name(b->dtype));
	armnn::TensorShape shape;
	qcf_status st = arm_shape(inst, b, "bias", &shape);
	if (st != QCF_OK)
		return st;
	const qcf_quant *q = b->quant;
	if (q && q->count == 1 && q->axis < 0) {
		*out = armnn::TensorInfo(shape, armnn::DataType::Signed32, q->scales[0],
		                         q->zero_points[0]);
		return QCF_OK;
	}
	bool equal = q && q->count > 1;
	for (int32_t c = 1; equal && c < q->count; c++)
		equal = q->scales[c] == q->scales[0];
	if (q && q->count > 1 && equal && !w.HasPerAxisQuantization()) {
		// one scale written per channel for per-tensor weights: the per-tensor bias
		*out = armnn::TensorInfo(shape, armnn::DataType::Signed32, q->scales[0], 0);
		return QCF_OK;
	}
	if (q && q->count > 1) {
		std::vector<float> sc(q->scales, q->scales + q->count);
		*out = armnn::TensorInfo(shape, armnn::DataType::Signed32, sc, 0);
		return QCF_OK;
	}
	if (w.HasPerAxisQuantization()) {
		std::vector<float> sc = w.GetQuantizationScales();
		for (float &s : sc)
			s *= in.GetQuantizationScale();
		*out = armnn::TensorInfo(shape, armnn::DataType::Signed32, sc, 0);
		return QCF_OK;
	}
	*out = armnn::TensorInfo(shape, armnn::DataType::Signed32,
	                         in.GetQuantizationScale() * w.GetQuantizationScale(), 0);
	return QCF_OK;
}

qcf_status no_int4(qcf_instance *inst, const qcf_tensor *w)
{
	if (w->dtype == QCF_INT4 || w->dtype == QCF_UINT4)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s weights: Arm NN 20.08 has no 4-bit data type",
		            qcf_dtype_name(w->dtype));
	return QCF_OK;
}

// ---------------------------------------------------------------- the operators

qcf_status build_conv(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 3);
	if (st != QCF_OK)
		return st;
	const bool dw = op_is(call, "DEPTHWISE_CONV_2D");
	const qcf_tensor *x = &call->inputs[0], *f = &call->inputs[1];
	if ((st = no_int4(inst, f)) != QCF_OK)
		return st;
	if (x->rank != 4 || f->rank != 4)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: input and filter must be 4-D (NHWC)",
		            call->op);
	armnn::TensorInfo xi, fi;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK)
		return st;
	uint32_t sh = 1, sw = 1, dh = 1, dwf = 1;
	if ((st = u32_attr(inst, call, "stride_h", 1, &sh)) != QCF_OK ||
	    (st = u32_attr(inst, call, "stride_w", 1, &sw)) != QCF_OK ||
	    (st = u32_attr(inst, call, "dilation_h_factor", 1, &dh)) != QCF_OK ||
	    (st = u32_attr(inst, call, "dilation_w_factor", 1, &dwf)) != QCF_OK)
		return st;
	bool same;
	if ((st = padding(inst, call, &same)) != QCF_OK)
		return st;
	const uint32_t h = (uint32_t)x->shape[1], w = (uint32_t)x->shape[2],
	               c = (uint32_t)x->shape[3];
	const uint32_t kh = (uint32_t)f->shape[1], kw = (uint32_t)f->shape[2];
	uint32_t pt = 0, pb = 0, pl = 0, pr = 0;
	if (same && sh && sw) {
		same_pads(h, kh, dh, sh, &pt, &pb);
		same_pads(w, kw, dwf, sw, &pl, &pr);
	}
	const size_t fbytes = qcf_dtype_nbytes(f->dtype, (size_t)qcf_numel(f));
	if (f->nbytes < fbytes)
		return fail(inst, QCF_NOT_SUPPORTED, "filter data shorter than its shape");
	armnn::IConnectableLayer *layer;
	armnn::TensorInfo bi;
	std::vector<uint8_t> wdata(static_cast<const uint8_t *>(f->data),
	                           static_cast<const uint8_t *>(f->data) + fbytes);
	if (!dw) {
		// LiteRT's OHWI filter is Arm NN's NHWC weight layout [O, H, W, I]; Arm NN 20.08
		// has no grouped convolution
		if ((uint32_t)f->shape[3] != c)
			return fail(
			        inst, QCF_NOT_SUPPORTED,
			        "CONV_2D with filter depth %lld and %u input channels: a grouped "
			        "convolution, which Arm NN 20.08 has no layer for",
			        (long long)f->shape[3], c);
		if ((st = arm_info(inst, f, "filter", true, &fi)) != QCF_OK)
			return st;
	} else {
		// LiteRT's [1, kh, kw, C * M] filter (output channel c * M + m) becomes Arm
		// NN 20.08's depthwise layout [M, C, kh, kw] (INetwork.hpp: "[channelMultiplier,
		// inputChannels, height, width]", for every data layout). Per-channel scales: the
		// workload accepts quantization dimension 0 only, and the reference kernel applies
		// scale k to output channel k, so LiteRT's C * M scales go on dimension 0 in
		// LiteRT's order (measured: multipliers 1, 2 and 3 within 1 LSB).
		const uint32_t co = (uint32_t)f->shape[3];
		if (f->shape[0] != 1 || c == 0 || co % c != 0)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "DEPTHWISE_CONV_2D filter must be [1, kh, kw, C * multiplier]");
		const uint32_t m = co / c;
		int64_t dm = 0;
		if (qcf_attr_int(call, "depth_multiplier", &dm) == 1 && dm != (int64_t)m)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "depth_multiplier %lld disagrees with the filter's %u; Arm NN "
			            "takes "
			            "the multiplier from the weights' shape",
			            (long long)dm, m);
		if (f->dtype != QCF_INT8 && f->dtype != QCF_UINT8)
			return fail(inst, QCF_NOT_SUPPORTED, "DEPTHWISE_CONV_2D filter of %s",
			            qcf_dtype_name(f->dtype));
		for (uint32_t y = 0; y < kh; y++)
			for (uint32_t xk = 0; xk < kw; xk++)
				for (uint32_t ci = 0; ci < c; ci++)
					for (uint32_t mi = 0; mi < m; mi++) {
						size_t src =
						        ((size_t)(y * kw + xk) * co + ci * m + mi);
						size_t dst =
						        (((size_t)mi * c + ci) * kh + y) * kw + xk;
						wdata[dst] =
						        static_cast<const uint8_t *>(f->data)[src];
					}
		qcf_tensor ft = *f;
		int64_t shp[4] = {m, c, kh, kw};
		ft.shape = shp;
		qcf_quant fq;
		if (f->quant && (f->quant->count > 1 || f->quant->axis >= 0)) {
			if (f->quant->axis != 3)
				return fail(inst, QCF_NOT_SUPPORTED,
				            "DEPTHWISE_CONV_2D per-channel weights on dimension %d "
				            "(the "
				            "adapter maps dimension 3)",
				            (int)f->quant->axis);
			fq = *f->quant;
			fq.axis = 0;
			ft.quant = &fq;
		}
		if ((st = arm_info(inst, &ft, "filter", true, &fi)) != QCF_OK)
			return st;
	}
	armnn::ConstTensor wt = const_tensor(n, fi, wdata.data(), wdata.size());
	armnn::Optional<armnn::ConstTensor> bias;
	if (call->n_inputs == 3) {
		const qcf_tensor *b = &call->inputs[2];
		if ((st = bias_info(inst, b, xi, fi, &bi)) != QCF_OK)
			return st;
		const size_t bb = qcf_dtype_nbytes(b->dtype, (size_t)qcf_numel(b));
		if (b->nbytes < bb)
			return fail(inst, QCF_NOT_SUPPORTED, "bias data shorter than its shape");
		bias = const_tensor(n, bi, b->data, bb);
	}
	if (!dw) {
		armnn::Convolution2dDescriptor d;
		d.m_PadLeft = pl;
		d.m_PadRight = pr;
		d.m_PadTop = pt;
		d.m_PadBottom = pb;
		d.m_StrideX = sw;
		d.m_StrideY = sh;
		d.m_DilationX = dwf;
		d.m_DilationY = dh;
		d.m_BiasEnabled = call->n_inputs == 3;
		d.m_DataLayout = armnn::DataLayout::NHWC;
		layer = n->net->AddConvolution2dLayer(d, wt, bias, "conv_2d");
	} else {
		armnn::DepthwiseConvolution2dDescriptor d;
		d.m_PadLeft = pl;
		d.m_PadRight = pr;
		d.m_PadTop = pt;
		d.m_PadBottom = pb;
		d.m_StrideX = sw;
		d.m_StrideY = sh;
		d.m_DilationX = dwf;
		d.m_DilationY = dh;
		d.m_BiasEnabled = call->n_inputs == 3;
		d.m_DataLayout = armnn::DataLayout::NHWC;
		layer = n->net->AddDepthwiseConvolution2dLayer(d, wt, bias, "depthwise_conv_2d");
	}
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, true);
}

qcf_status build_fc(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 3);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *f = &call->inputs[1];
	if ((st = no_int4(inst, f)) != QCF_OK)
		return st;
	if (f->rank != 2 || f->shape[1] <= 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "FULLY_CONNECTED: filter must be [units, depth]");
	const int64_t depth = f->shape[1], elems = qcf_numel(x);
	if (elems % depth != 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "FULLY_CONNECTED: %lld input elements are not rows of depth %lld",
		            (long long)elems, (long long)depth);
	// Arm NN's fully connected takes [batches, depth] (the parser reshapes the input so)
	qcf_tensor xt = *x;
	int64_t xs[2] = {elems / depth, depth};
	xt.rank = 2;
	xt.shape = xs;
	armnn::TensorInfo xi, fi, bi;
	if ((st = arm_info(inst, &xt, "input", false, &xi)) != QCF_OK ||
	    (st = arm_info(inst, f, "filter", true, &fi)) != QCF_OK)
		return st;
	const size_t fbytes = qcf_dtype_nbytes(f->dtype, (size_t)qcf_numel(f));
	if (f->nbytes < fbytes)
		return fail(inst, QCF_NOT_SUPPORTED, "filter data shorter than its shape");
	armnn::ConstTensor wt = const_tensor(n, fi, f->data, fbytes);
	armnn::Optional<armnn::ConstTensor> bias;
	if (call->n_inputs == 3) {
		const qcf_tensor *b = &call->inputs[2];
		if ((st = bias_info(inst, b, xi, fi, &bi)) != QCF_OK)
			return st;
		const size_t bb = qcf_dtype_nbytes(b->dtype, (size_t)qcf_numel(b));
		if (b->nbytes < bb)
			return fail(inst, QCF_NOT_SUPPORTED, "bias data shorter than its shape");
		bias = const_tensor(n, bi, b->data, bb);
	}
	qcf_tensor *y = &call->outputs[0];
	const int64_t ye = qcf_numel(y), units = f->shape[0], batches = elems / depth;
	if (units <= 0 || ye != batches * units)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "FULLY_CONNECTED: the output does not hold batches x units elements");
	qcf_tensor yt = *y;
	int64_t ys[4] = {batches, units};
	yt.rank = 2;
	yt.shape = ys;
	armnn::IConnectableLayer *layer;
	if (!fi.HasPerAxisQuantization()) {
		armnn::FullyConnectedDescriptor d;
		d.m_BiasEnabled = call->n_inputs == 3;
		d.m_TransposeWeightMatrix = true; // [units, depth]
		layer = n->net->AddFullyConnectedLayer(d, wt, bias, "fc");
		add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	} else {
		// Arm NN 20.08's reference fully connected refuses per-axis weights ("weights type
		// not supported"): the same product as a 1x1 NHWC convolution over [batches, 1, 1,
		// depth], weights [units, 1, 1, depth] (the same bytes), output [batches, 1, 1,
		// units]
		armnn::TensorInfo xc = xi, wc = fi;
		xc.SetShape(armnn::TensorShape({(unsigned)batches, 1u, 1u, (unsigned)depth}));
		wc.SetShape(armnn::TensorShape({(unsigned)units, 1u, 1u, (unsigned)depth}));
		armnn::ConstTensor wct(wc, wt.GetMemoryArea());
		armnn::Convolution2dDescriptor d;
		d.m_StrideX = d.m_StrideY = 1;
		d.m_BiasEnabled = call->n_inputs == 3;
		d.m_DataLayout = armnn::DataLayout::NHWC;
		layer = n->net->AddConvolution2dLayer(d, wct, bias, "fc_as_conv_1x1");
		add_input(n, 0, xc).Connect(layer->GetInputSlot(0));
		yt.rank = 4;
		ys[0] = batches;
		ys[1] = ys[2] = 1;
		ys[3] = units;
	}
	qcf_op_call c2 = *call;
	c2.outputs = &yt;
	return finish(inst, &c2, n, layer, false);
}

// Rank of a broadcast operand raised to the output's by leading 1s (Arm NN broadcasts equal
// ranks only; the parser inserts a reshape, the same data).
qcf_status binary_input(qcf_instance *inst, const qcf_tensor *t, int32_t rank, const char *role,
                        armnn::TensorInfo *out)
{
	qcf_tensor tt = *t;
	int64_t s[QCF_MAX_RANK];
	if (t->rank < rank) {
		const int32_t lead = rank - t->rank;
		for (int32_t k = 0; k < rank; k++)
			s[k] = k < lead ? 1 : t->shape[k - lead];
		tt.rank = rank;
		tt.shape = s;
	}
	return arm_info(inst, &tt, role, false, out);
}

qcf_status build_binary(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 2);
	if (st != QCF_OK)
		return st;
	int32_t rank = std::max(call->inputs[0].rank, call->inputs[1].rank);
	armnn::TensorInfo ai, bi;
	if ((st = binary_input(inst, &call->inputs[0], rank, "input1", &ai)) != QCF_OK ||
	    (st = binary_input(inst, &call->inputs[1], rank, "input2", &bi)) != QCF_OK)
		return st;
	if (call->inputs[0].dtype != call->inputs[1].dtype)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: inputs of different types", call->op);
	armnn::IConnectableLayer *layer;
	if (op_is(call, "ADD"))
		layer = n->net->AddAdditionLayer("add");
	else if (op_is(call, "SUB"))
		layer = n->net->AddSubtractionLayer("sub");
	else if (op_is(call, "MUL"))
		layer = n->net->AddMultiplicationLayer("mul");
	else if (op_is(call, "MAXIMUM"))
		layer = n->net->AddMaximumLayer("maximum");
	else if (op_is(call, "MINIMUM"))
		layer = n->net->AddMinimumLayer("minimum");
	else {
		static const struct {
			const char *op;
			armnn::ComparisonOperation cmp;
		} cmps[] = {{"EQUAL", armnn::ComparisonOperation::Equal},
		            {"NOT_EQUAL", armnn::ComparisonOperation::NotEqual},
		            {"LESS", armnn::ComparisonOperation::Less},
		            {"LESS_EQUAL", armnn::ComparisonOperation::LessOrEqual},
		            {"GREATER", armnn::ComparisonOperation::Greater},
		            {"GREATER_EQUAL", armnn::ComparisonOperation::GreaterOrEqual}};
		armnn::ComparisonDescriptor d;
		for (const auto &c : cmps)
			if (op_is(call, c.op))
				d.m_Operation = c.cmp;
		layer = n->net->AddComparisonLayer(d, call->op);
	}
	add_input(n, 0, ai).Connect(layer->GetInputSlot(0));
	add_input(n, 1, bi).Connect(layer->GetInputSlot(1));
	return finish(inst, call, n, layer, false);
}

qcf_status build_pool(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 1, 1);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	if (x->rank != 4)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: the input must be 4-D (NHWC)", call->op);
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK)
		return st;
	armnn::Pooling2dDescriptor d;
	if ((st = u32_attr(inst, call, "stride_h", 1, &d.m_StrideY)) != QCF_OK ||
	    (st = u32_attr(inst, call, "stride_w", 1, &d.m_StrideX)) != QCF_OK ||
	    (st = u32_attr(inst, call, "filter_height", 1, &d.m_PoolHeight)) != QCF_OK ||
	    (st = u32_attr(inst, call, "filter_width", 1, &d.m_PoolWidth)) != QCF_OK)
		return st;
	bool same;
	if ((st = padding(inst, call, &same)) != QCF_OK)
		return st;
	if (same && d.m_StrideX && d.m_StrideY) {
		same_pads((uint32_t)x->shape[1], d.m_PoolHeight, 1, d.m_StrideY, &d.m_PadTop,
		          &d.m_PadBottom);
		same_pads((uint32_t)x->shape[2], d.m_PoolWidth, 1, d.m_StrideX, &d.m_PadLeft,
		          &d.m_PadRight);
	}
	d.m_PoolType = op_is(call, "MAX_POOL_2D") ? armnn::PoolingAlgorithm::Max
	                                          : armnn::PoolingAlgorithm::Average;
	// LiteRT averages the in-image taps only
	d.m_PaddingMethod = armnn::PaddingMethod::Exclude;
	d.m_OutputShapeRounding = armnn::OutputShapeRounding::Floor;
	d.m_DataLayout = armnn::DataLayout::NHWC;
	armnn::IConnectableLayer *layer = n->net->AddPooling2dLayer(d, "pool");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

qcf_status build_unary(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 1, 1);
	if (st != QCF_OK)
		return st;
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, &call->inputs[0], "input", false, &xi)) != QCF_OK)
		return st;
	armnn::IConnectableLayer *layer;
	if (op_is(call, "QUANTIZE")) {
		layer = n->net->AddQuantizeLayer("quantize");
	} else if (op_is(call, "DEQUANTIZE")) {
		layer = n->net->AddDequantizeLayer("dequantize");
	} else if (op_is(call, "LOG_SOFTMAX")) {
		armnn::LogSoftmaxDescriptor d;
		d.m_Beta = 1.0f;
		d.m_Axis = -1;
		layer = n->net->AddLogSoftmaxLayer(d, "log_softmax");
	} else if (op_is(call, "L2_NORMALIZATION")) {
		// x / sqrt(max(sum x^2, eps)) along the channels (the last dimension in NHWC); the
		// descriptor's default eps (1e-12), as the parser leaves it
		armnn::L2NormalizationDescriptor d;
		d.m_DataLayout = armnn::DataLayout::NHWC;
		bool act = false;
		armnn::ActivationDescriptor ad;
		qcf_status s2 = fused_activation(inst, call, false, &act, &ad);
		if (s2 != QCF_OK)
			return s2;
		if (act)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "L2_NORMALIZATION with a fused activation (LiteRT takes NONE)");
		layer = n->net->AddL2NormalizationLayer(d, "l2_normalization");
	} else if (op_is(call, "SOFTMAX")) {
		armnn::SoftmaxDescriptor d;
		const qcf_attr *a = qcf_attr_find(call, "beta");
		if (a && a->type == QCF_ATTR_FLOAT && a->count == 1)
			d.m_Beta = (float)a->v.f;
		else if (a && a->type == QCF_ATTR_INT && a->count == 1)
			d.m_Beta = (float)a->v.i;
		else if (a)
			return fail(inst, QCF_NOT_SUPPORTED, "SOFTMAX: beta is not a number");
		d.m_Axis = -1;
		layer = n->net->AddSoftmaxLayer(d, "softmax");
	} else {
		armnn::ActivationDescriptor d;
		if (op_is(call, "LOGISTIC")) {
			d.m_Function = armnn::ActivationFunction::Sigmoid;
		} else { // TANH: a * tanh(b * x)
			d.m_Function = armnn::ActivationFunction::TanH;
			d.m_A = 1.0f;
			d.m_B = 1.0f;
		}
		layer = n->net->AddActivationLayer(d, call->op);
	}
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

// RESHAPE (and SQUEEZE): the output's shape as the target; the data is unchanged. RESHAPE's
// shape tensor, when its element count is resolvable, must give the output's shape (the check
// Arm NN's parser makes before it adds the layer).
qcf_status build_reshape(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 1, 2);
	if (st != QCF_OK)
		return st;
	armnn::TensorInfo xi, yi;
	if ((st = arm_info(inst, &call->inputs[0], "input", false, &xi)) != QCF_OK ||
	    (st = arm_info(inst, &call->outputs[0], "output", false, &yi)) != QCF_OK)
		return st;
	if (op_is(call, "RESHAPE") && call->n_inputs == 2) {
		std::vector<int64_t> s;
		if (!read_ints(&call->inputs[1], &s))
			return fail(inst, QCF_NOT_SUPPORTED, "RESHAPE: shape is not int32/int64");
		const qcf_tensor *y = &call->outputs[0];
		int64_t known = 1, stretch = -1;
		bool ok = (int32_t)s.size() == y->rank;
		for (size_t k = 0; ok && k < s.size(); k++) {
			if (s[k] == -1 && stretch < 0)
				stretch = (int64_t)k;
			else if (s[k] < 0)
				ok = false;
			else
				known *= s[k];
		}
		if (ok && stretch >= 0)
			s[(size_t)stretch] = known ? qcf_numel(&call->inputs[0]) / known : -1;
		for (size_t k = 0; ok && k < s.size(); k++)
			ok = s[k] == y->shape[k];
		if (!ok)
			return fail(inst, QCF_INVALID_PARAM,
			            "RESHAPE: the shape tensor does not give the output's shape "
			            "(Arm NN's TfLite parser, ParseReshape, refuses the mismatch)");
	}
	armnn::ReshapeDescriptor d(yi.GetShape());
	armnn::IConnectableLayer *layer = n->net->AddReshapeLayer(d, "reshape");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

qcf_status build_transpose(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 2);
	if (st != QCF_OK)
		return st;
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, &call->inputs[0], "input", false, &xi)) != QCF_OK)
		return st;
	std::vector<int64_t> p;
	const int32_t r = call->inputs[0].rank;
	if (!read_ints(&call->inputs[1], &p) || (int32_t)p.size() != r || r < 1)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "TRANSPOSE: perm must hold one int32/int64 entry per dimension");
	unsigned int m[armnn::MaxNumOfTensorDimensions];
	for (int32_t k = 0; k < r; k++) {
		int64_t v = p[(size_t)k] < 0 ? p[(size_t)k] + r : p[(size_t)k];
		if (v < 0 || v >= r)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "TRANSPOSE: perm entry %lld out of range",
			            (long long)p[(size_t)k]);
		m[k] = (unsigned int)v;
	}
	// Arm NN's TransposeDescriptor takes TensorFlow's perm: output dimension k is input
	// dimension perm[k]
	armnn::TransposeDescriptor d(armnn::PermutationVector(m, (unsigned int)r));
	armnn::IConnectableLayer *layer = n->net->AddTransposeLayer(d, "transpose");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

qcf_status build_concat(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	if (call->n_inputs < 1 || call->n_outputs != 1)
		return fail(inst, QCF_NOT_SUPPORTED, "CONCATENATION: inputs and one output");
	const int32_t r = call->inputs[0].rank;
	int64_t axis = 0;
	if (qcf_attr_int(call, "axis", &axis) < 0)
		return fail(inst, QCF_NOT_SUPPORTED, "CONCATENATION: axis is not an integer");
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis >= r)
		return fail(inst, QCF_NOT_SUPPORTED, "CONCATENATION: axis out of range");
	std::vector<armnn::TensorShape> shapes;
	std::vector<armnn::TensorInfo> infos;
	for (int32_t i = 0; i < call->n_inputs; i++) {
		armnn::TensorInfo ti;
		qcf_status st = arm_info(inst, &call->inputs[i], "input", false, &ti);
		if (st != QCF_OK)
			return st;
		if (call->inputs[i].rank != r)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "CONCATENATION: inputs of unequal rank");
		infos.push_back(ti);
		shapes.push_back(ti.GetShape());
	}
	if (call->n_inputs == 1) {
		// Arm NN needs two inputs to concatenate; one input is a copy (a reshape to itself)
		armnn::IConnectableLayer *layer =
		        n->net->AddReshapeLayer(armnn::ReshapeDescriptor(shapes[0]), "concat1");
		add_input(n, 0, infos[0]).Connect(layer->GetInputSlot(0));
		return finish(inst, call, n, layer, false);
	}
	armnn::OriginsDescriptor d = armnn::CreateDescriptorForConcatenation(
	        shapes.begin(), shapes.end(), (unsigned int)axis);
	armnn::IConnectableLayer *layer = n->net->AddConcatLayer(d, "concatenation");
	for (int32_t i = 0; i < call->n_inputs; i++)
		add_input(n, i, infos[(size_t)i]).Connect(layer->GetInputSlot((unsigned int)i));
	return finish(inst, call, n, layer, false);
}

qcf_status build_pad(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	const bool v2 = op_is(call, "PADV2");
	qcf_status st = need_io(inst, call, 2, v2 ? 3 : 2);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK)
		return st;
	std::vector<int64_t> p;
	if (!read_ints(&call->inputs[1], &p) || (int32_t)p.size() != 2 * x->rank)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: paddings must be [rank, 2] int32/int64",
		            call->op);
	std::vector<std::pair<unsigned int, unsigned int>> pads;
	for (int32_t k = 0; k < x->rank; k++) {
		const int64_t a = p[(size_t)(2 * k)], b = p[(size_t)(2 * k + 1)];
		if (a < 0 || b < 0 || a > INT32_MAX || b > INT32_MAX)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: negative paddings: Arm NN's PadDescriptor takes unsigned "
			            "values",
			            call->op);
		pads.emplace_back((unsigned int)a, (unsigned int)b);
	}
	// PAD pads with the output's zero point (real 0), PADV2 with the constant. Arm NN's
	// reference Pad writes m_PadValue into a quantized output as the stored value, not as a
	// real one (Pad.cpp: "For Quantized types Pad Value should not be quantized"), so the
	// adapter passes the stored value.
	const qcf_tensor *y = &call->outputs[0];
	float value = y->quant && y->quant->count == 1 ? (float)y->quant->zero_points[0] : 0.0f;
	if (v2 && call->n_inputs == 3) {
		const qcf_tensor *cv = &call->inputs[2];
		if (qcf_numel(cv) != 1 || cv->dtype != x->dtype)
			return fail(
			        inst, QCF_NOT_SUPPORTED,
			        "PADV2: constant_values must be one element of the input's type");
		switch (cv->dtype) {
		case QCF_INT8: value = static_cast<const int8_t *>(cv->data)[0]; break;
		case QCF_UINT8: value = static_cast<const uint8_t *>(cv->data)[0]; break;
		case QCF_INT16: value = static_cast<const int16_t *>(cv->data)[0]; break;
		case QCF_INT32: value = (float)static_cast<const int32_t *>(cv->data)[0]; break;
		case QCF_FLOAT32: value = static_cast<const float *>(cv->data)[0]; break;
		default:
			return fail(inst, QCF_NOT_SUPPORTED, "PADV2: constant of %s",
			            qcf_dtype_name(cv->dtype));
		}
	}
	if (x->rank > 4)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s of rank %d: Arm NN's reference Pad copies inputs of rank 1 to 4 "
		            "only (Pad.cpp: any other rank leaves the output all padding)",
		            call->op, (int)x->rank);
	armnn::PadDescriptor d(pads, value);
	armnn::IConnectableLayer *layer = n->net->AddPadLayer(d, call->op);
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

qcf_status build_mean(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 2);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK)
		return st;
	if (x->rank > 4)
		return fail(
		        inst, QCF_NOT_SUPPORTED,
		        "MEAN of rank %d: Arm NN's MeanLayer takes up to 4 dimensions (it asserts "
		        "\"Mean supports up to 4D input\")",
		        (int)x->rank);
	std::vector<int64_t> ax;
	if (!read_ints(&call->inputs[1], &ax))
		return fail(inst, QCF_NOT_SUPPORTED, "MEAN: axis is not int32/int64");
	std::vector<unsigned int> axes;
	for (int64_t a : ax) {
		int64_t v = a < 0 ? a + x->rank : a;
		if (v < 0 || v >= (x->rank ? x->rank : 1))
			return fail(inst, QCF_NOT_SUPPORTED, "MEAN: axis %lld out of range",
			            (long long)a);
		if (std::find(axes.begin(), axes.end(), (unsigned int)v) == axes.end())
			axes.push_back((unsigned int)v);
	}
	std::sort(axes.begin(), axes.end());
	int64_t keep = 0;
	if (qcf_attr_int(call, "keep_dims", &keep) < 0)
		return fail(inst, QCF_NOT_SUPPORTED, "MEAN: keep_dims is not an integer");
	if (axes.empty())
		return fail(inst, QCF_NOT_SUPPORTED,
		            "MEAN over no axis: Arm NN's empty axis list means every axis");
	// the output as Arm NN shapes it (a reduction to a scalar is [1])
	armnn::MeanDescriptor d(axes, keep != 0);
	armnn::IConnectableLayer *layer = n->net->AddMeanLayer(d, "mean");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	const qcf_tensor *y = &call->outputs[0];
	qcf_tensor yt = *y;
	std::vector<int64_t> ys;
	for (int32_t k = 0; k < x->rank; k++) {
		bool red = std::find(axes.begin(), axes.end(), (unsigned int)k) != axes.end();
		if (!red)
			ys.push_back(x->shape[k]);
		else if (keep)
			ys.push_back(1);
	}
	if (ys.empty())
		ys.push_back(1);
	int64_t want = 1;
	for (int64_t v : ys)
		want *= v;
	if (want != qcf_numel(y))
		return fail(inst, QCF_NOT_SUPPORTED,
		            "MEAN: the output does not hold the reduced shape's elements");
	yt.rank = (int32_t)ys.size();
	yt.shape = ys.data();
	qcf_op_call c2 = *call;
	c2.outputs = &yt;
	return finish(inst, &c2, n, layer, false);
}

qcf_status build_arg_max(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 2);
	if (st != QCF_OK)
		return st;
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, &call->inputs[0], "input", false, &xi)) != QCF_OK)
		return st;
	std::vector<int64_t> ax;
	if (!read_ints(&call->inputs[1], &ax) || ax.size() != 1)
		return fail(inst, QCF_NOT_SUPPORTED, "ARG_MAX: axis must be one int32/int64 value");
	armnn::ArgMinMaxDescriptor d;
	d.m_Function = armnn::ArgMinMaxFunction::Max;
	d.m_Axis = (int)ax[0];
	armnn::IConnectableLayer *layer = n->net->AddArgMinMaxLayer(d, "arg_max");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

qcf_status build_slice(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 3, 3);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK)
		return st;
	std::vector<int64_t> b, z;
	if (!read_ints(&call->inputs[1], &b) || !read_ints(&call->inputs[2], &z) ||
	    (int32_t)b.size() != x->rank || (int32_t)z.size() != x->rank)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "SLICE: begin and size must hold one int32/int64 value per dimension");
	if (x->rank > 4)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "SLICE of rank %d: Arm NN 20.08's SliceQueueDescriptor refuses \"Input "
		            "tensors with rank greater than 4\"",
		            (int)x->rank);
	armnn::SliceDescriptor d;
	for (int32_t k = 0; k < x->rank; k++) {
		// size -1: to the end of the dimension (the parser resolves it so)
		int64_t sz = z[(size_t)k] == -1 ? x->shape[k] - b[(size_t)k] : z[(size_t)k];
		if (b[(size_t)k] < 0 || sz < 0 || b[(size_t)k] > UINT32_MAX || sz > UINT32_MAX)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "SLICE: begin %lld, size %lld: Arm NN's SliceDescriptor takes "
			            "unsigned values",
			            (long long)b[(size_t)k], (long long)z[(size_t)k]);
		d.m_Begin.push_back((unsigned int)b[(size_t)k]);
		d.m_Size.push_back((unsigned int)sz);
	}
	armnn::IConnectableLayer *layer = n->net->AddSliceLayer(d, "slice");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

qcf_status build_space_to_depth(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 1, 1);
	if (st != QCF_OK)
		return st;
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, &call->inputs[0], "input", false, &xi)) != QCF_OK)
		return st;
	armnn::SpaceToDepthDescriptor d;
	if ((st = u32_attr(inst, call, "block_size", 1, &d.m_BlockSize)) != QCF_OK)
		return st;
	d.m_DataLayout = armnn::DataLayout::NHWC;
	armnn::IConnectableLayer *layer = n->net->AddSpaceToDepthLayer(d, "space_to_depth");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

// BATCH_TO_SPACE_ND (crops) and SPACE_TO_BATCH_ND (paddings) on NHWC. LiteRT's rank-3 input
// [N, H, C] is [N, H, 1, C] with block 1 and no crops along W (LiteRT's own reading of it), the
// same bytes.
qcf_status build_batch_space(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 3, 3);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	const bool r3 = x->rank == 3;
	if (x->rank != 4 && !r3)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s of rank %d: the adapter maps inputs of rank 3 and 4", call->op,
		            (int)x->rank);
	const size_t nb = r3 ? 1 : 2;
	std::vector<int64_t> bs, cr;
	if (!read_ints(&call->inputs[1], &bs) || !read_ints(&call->inputs[2], &cr) ||
	    bs.size() != nb || cr.size() != 2 * nb)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s: block_shape [%zu] and crops/paddings [%zu, 2] int32 expected",
		            call->op, nb, nb);
	if (r3) {
		bs.push_back(1);
		cr.push_back(0);
		cr.push_back(0);
	}
	std::vector<unsigned int> block;
	std::vector<std::pair<unsigned int, unsigned int>> pairs;
	for (size_t k = 0; k < 2; k++) {
		if (bs[k] < 1 || bs[k] > UINT32_MAX || cr[2 * k] < 0 || cr[2 * k + 1] < 0 ||
		    cr[2 * k] > UINT32_MAX || cr[2 * k + 1] > UINT32_MAX)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: block sizes below 1 or negative crops/paddings: Arm NN's "
			            "descriptor takes unsigned values",
			            call->op);
		block.push_back((unsigned int)bs[k]);
		pairs.emplace_back((unsigned int)cr[2 * k], (unsigned int)cr[2 * k + 1]);
	}
	qcf_tensor xt = *x, yt = call->outputs[0];
	int64_t xs[4], ys[4];
	if (r3) {
		if (yt.rank != 3)
			return fail(inst, QCF_NOT_SUPPORTED, "%s: rank-3 input, output of rank %d",
			            call->op, (int)yt.rank);
		for (int k = 0, d = 0; k < 4; k++) {
			xs[k] = k == 2 ? 1 : x->shape[d];
			ys[k] = k == 2 ? 1 : yt.shape[d];
			d += k != 2;
		}
		xt.rank = yt.rank = 4;
		xt.shape = xs;
		yt.shape = ys;
	}
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, &xt, "input", false, &xi)) != QCF_OK)
		return st;
	armnn::IConnectableLayer *layer;
	if (op_is(call, "BATCH_TO_SPACE_ND")) {
		armnn::BatchToSpaceNdDescriptor d(block, pairs);
		d.m_DataLayout = armnn::DataLayout::NHWC;
		layer = n->net->AddBatchToSpaceNdLayer(d, "batch_to_space_nd");
	} else {
		armnn::SpaceToBatchNdDescriptor d(block, pairs);
		d.m_DataLayout = armnn::DataLayout::NHWC;
		layer = n->net->AddSpaceToBatchNdLayer(d, "space_to_batch_nd");
	}
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	qcf_op_call c2 = *call;
	c2.outputs = &yt;
	return finish(inst, &c2, n, layer, false);
}

// A float attribute (def when absent).
qcf_status float_attr(qcf_instance *inst, const qcf_op_call *call, const char *name, float def,
                      float *out)
{
	const qcf_attr *a = qcf_attr_find(call, name);
	*out = def;
	if (!a)
		return QCF_OK;
	if (a->type == QCF_ATTR_FLOAT && a->count == 1)
		*out = (float)a->v.f;
	else if (a->type == QCF_ATTR_INT && a->count == 1)
		*out = (float)a->v.i;
	else
		return fail(inst, QCF_NOT_SUPPORTED, "%s: %s is not a number", call->op, name);
	return QCF_OK;
}

// The standalone activations as Arm NN's Activation layer (the parser's ParseActivation):
// RELU ReLu, RELU6 BoundedReLu(6, 0), RELU_N1_TO_1 BoundedReLu(1, -1), LEAKY_RELU LeakyReLu
// with a = alpha, ELU Elu with a = 1, HARD_SWISH HardSwish. CpuRef decodes to float, applies
// the function and encodes with the output's parameters.
qcf_status build_activation(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 1, 1);
	if (st != QCF_OK)
		return st;
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, &call->inputs[0], "input", false, &xi)) != QCF_OK)
		return st;
	armnn::ActivationDescriptor d;
	if (op_is(call, "RELU")) {
		d.m_Function = armnn::ActivationFunction::ReLu;
	} else if (op_is(call, "RELU6")) {
		d.m_Function = armnn::ActivationFunction::BoundedReLu;
		d.m_A = 6.0f;
		d.m_B = 0.0f;
	} else if (op_is(call, "RELU_N1_TO_1")) {
		d.m_Function = armnn::ActivationFunction::BoundedReLu;
		d.m_A = 1.0f;
		d.m_B = -1.0f;
	} else if (op_is(call, "LEAKY_RELU")) {
		d.m_Function = armnn::ActivationFunction::LeakyReLu;
		if ((st = float_attr(inst, call, "alpha", 0.0f, &d.m_A)) != QCF_OK)
			return st;
	} else if (op_is(call, "ELU")) {
		d.m_Function = armnn::ActivationFunction::Elu;
		d.m_A = 1.0f;
	} else {
		d.m_Function = armnn::ActivationFunction::HardSwish;
	}
	armnn::IConnectableLayer *layer = n->net->AddActivationLayer(d, call->op);
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

// ABS, NEG, EXP, SQRT, RSQRT: Arm NN's ElementwiseUnary (decode, std:: function, encode).
qcf_status build_elementwise_unary(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 1, 1);
	if (st != QCF_OK)
		return st;
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, &call->inputs[0], "input", false, &xi)) != QCF_OK)
		return st;
	armnn::ElementwiseUnaryDescriptor d;
	if (op_is(call, "ABS"))
		d.m_Operation = armnn::UnaryOperation::Abs;
	else if (op_is(call, "NEG"))
		d.m_Operation = armnn::UnaryOperation::Neg;
	else if (op_is(call, "EXP"))
		d.m_Operation = armnn::UnaryOperation::Exp;
	else if (op_is(call, "SQRT"))
		d.m_Operation = armnn::UnaryOperation::Sqrt;
	else
		d.m_Operation = armnn::UnaryOperation::Rsqrt;
	armnn::IConnectableLayer *layer = n->net->AddElementwiseUnaryLayer(d, call->op);
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

// DIV (Division) and PRELU (Prelu: input, alpha), broadcasting as the binary ops do.
qcf_status build_div_prelu(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 2);
	if (st != QCF_OK)
		return st;
	int32_t rank = std::max(call->inputs[0].rank, call->inputs[1].rank);
	armnn::TensorInfo ai, bi;
	if ((st = binary_input(inst, &call->inputs[0], rank, "input1", &ai)) != QCF_OK ||
	    (st = binary_input(inst, &call->inputs[1], rank, "input2", &bi)) != QCF_OK)
		return st;
	if (call->inputs[0].dtype != call->inputs[1].dtype)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: inputs of different types", call->op);
	if (qcf_numel(&call->inputs[0]) == 0 || qcf_numel(&call->inputs[1]) == 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s of an empty tensor: Arm NN's broadcast takes a 0 against a 1 as 1",
		            call->op);
	for (unsigned int k = 0; k < ai.GetNumDimensions(); k++)
		if (ai.GetShape()[k] != bi.GetShape()[k] && ai.GetShape()[k] != 1 &&
		    bi.GetShape()[k] != 1)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: shapes that do not broadcast (Arm NN's shape inference "
			            "asserts on them)",
			            call->op);
	armnn::IConnectableLayer *layer = op_is(call, "DIV") ? n->net->AddDivisionLayer("div")
	                                                     : n->net->AddPreluLayer("prelu");
	add_input(n, 0, ai).Connect(layer->GetInputSlot(0));
	add_input(n, 1, bi).Connect(layer->GetInputSlot(1));
	return finish(inst, call, n, layer, false);
}

qcf_status build_depth_to_space(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 1, 1);
	if (st != QCF_OK)
		return st;
	if (call->inputs[0].rank != 4)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "DEPTH_TO_SPACE: the input must be 4-D (NHWC)");
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, &call->inputs[0], "input", false, &xi)) != QCF_OK)
		return st;
	armnn::DepthToSpaceDescriptor d;
	if ((st = u32_attr(inst, call, "block_size", 0, &d.m_BlockSize)) != QCF_OK)
		return st;
	if (d.m_BlockSize < 1)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "DEPTH_TO_SPACE block_size 0: Arm NN's shape inference divides by it "
		            "(SIGFPE)");
	d.m_DataLayout = armnn::DataLayout::NHWC;
	armnn::IConnectableLayer *layer = n->net->AddDepthToSpaceLayer(d, "depth_to_space");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR: Resize, NHWC, the size tensor's values as the
// target, align_corners and half_pixel_centers as LiteRT's options (the parser's ParseResize).
qcf_status build_resize(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 2);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	if (x->rank != 4)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: the input must be 4-D (NHWC)", call->op);
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK)
		return st;
	std::vector<int64_t> sz;
	if (!read_ints(&call->inputs[1], &sz) || sz.size() != 2 || sz[0] < 1 || sz[1] < 1 ||
	    sz[0] > INT32_MAX || sz[1] > INT32_MAX)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: size must be two positive int32 values",
		            call->op);
	int64_t ac = 0, hp = 0;
	if (qcf_attr_int(call, "align_corners", &ac) < 0 ||
	    qcf_attr_int(call, "half_pixel_centers", &hp) < 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s: align_corners / half_pixel_centers are not integers", call->op);
	if (ac && hp && op_is(call, "RESIZE_NEAREST_NEIGHBOR"))
		return fail(
		        inst, QCF_NOT_SUPPORTED,
		        "RESIZE_NEAREST_NEIGHBOR with align_corners and half_pixel_centers: "
		        "Arm NN's ResizeLayer refuses the pair (\"AlignCorners cannot be true "
		        "when HalfPixelCenters is true\"), LiteRT's nearest neighbour takes it");
	armnn::ResizeDescriptor d;
	d.m_Method = op_is(call, "RESIZE_BILINEAR") ? armnn::ResizeMethod::Bilinear
	                                            : armnn::ResizeMethod::NearestNeighbor;
	d.m_TargetHeight = (uint32_t)sz[0];
	d.m_TargetWidth = (uint32_t)sz[1];
	d.m_AlignCorners = ac != 0;
	d.m_HalfPixelCenters = hp != 0;
	d.m_DataLayout = armnn::DataLayout::NHWC;
	armnn::IConnectableLayer *layer = n->net->AddResizeLayer(d, call->op);
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, false);
}

// TRANSPOSE_CONV (output_shape, weights [O, kh, kw, I], input, [bias]): TransposeConvolution2d,
// NHWC (Arm NN's NHWC weight layout is LiteRT's OHWI). LiteRT crops the total padding
// (H - 1) s + kh - OH as padding.h does, the smaller half before: explicit pads. An output
// larger than the full deconvolution (a negative total) has no Arm NN pads.
qcf_status build_transpose_conv(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 3, 4);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *f = &call->inputs[1], *x = &call->inputs[2], *y = &call->outputs[0];
	if ((st = no_int4(inst, f)) != QCF_OK)
		return st;
	if (x->rank != 4 || f->rank != 4 || y->rank != 4)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "TRANSPOSE_CONV: input, weights and output must be 4-D (NHWC)");
	if (f->shape[3] != x->shape[3] || f->shape[0] != y->shape[3])
		return fail(inst, QCF_NOT_SUPPORTED,
		            "TRANSPOSE_CONV: weights [O, kh, kw, I] do not match the input's and "
		            "the output's channels");
	if (x->shape[0] != 1)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "TRANSPOSE_CONV with a batch of %lld: Arm NN 20.08's shape inference "
		            "gives such a transposed convolution one output channel (measured: "
		            "[2, 4, 6, 1] for [2, 4, 6, 2]); the adapter maps batch 1",
		            (long long)x->shape[0]);
	std::vector<int64_t> os;
	if (!read_ints(&call->inputs[0], &os) || os.size() != 4)
		return fail(inst, QCF_NOT_SUPPORTED, "TRANSPOSE_CONV: output_shape must be 4 ints");
	for (int k = 0; k < 4; k++)
		if (os[(size_t)k] != y->shape[k])
			return fail(inst, QCF_NOT_SUPPORTED,
			            "TRANSPOSE_CONV: output_shape is not the output's shape");
	armnn::TensorInfo xi, fi, bi;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK ||
	    (st = arm_info(inst, f, "weights", true, &fi)) != QCF_OK)
		return st;
	if (fi.HasPerAxisQuantization() && fi.GetQuantizationDim().value() != 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "TRANSPOSE_CONV: per-channel weights on dimension %u (Arm NN takes 0)",
		            fi.GetQuantizationDim().value());
	armnn::TransposeConvolution2dDescriptor d;
	if ((st = u32_attr(inst, call, "stride_h", 1, &d.m_StrideY)) != QCF_OK ||
	    (st = u32_attr(inst, call, "stride_w", 1, &d.m_StrideX)) != QCF_OK)
		return st;
	if (d.m_StrideX < 1 || d.m_StrideY < 1)
		return fail(inst, QCF_NOT_SUPPORTED, "TRANSPOSE_CONV: strides below 1");
	bool same;
	if ((st = padding(inst, call, &same)) != QCF_OK)
		return st;
	const int64_t th = (x->shape[1] - 1) * d.m_StrideY + f->shape[1] - y->shape[1],
	              tw = (x->shape[2] - 1) * d.m_StrideX + f->shape[2] - y->shape[2];
	if (th < 0 || tw < 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "TRANSPOSE_CONV: an output larger than the full transposed convolution "
		            "(Arm NN's pads crop, they cannot extend)");
	d.m_PadTop = (uint32_t)(th / 2);
	d.m_PadBottom = (uint32_t)(th - th / 2);
	d.m_PadLeft = (uint32_t)(tw / 2);
	d.m_PadRight = (uint32_t)(tw - tw / 2);
	d.m_BiasEnabled = call->n_inputs == 4;
	d.m_DataLayout = armnn::DataLayout::NHWC;
	const size_t fbytes = qcf_dtype_nbytes(f->dtype, (size_t)qcf_numel(f));
	if (f->nbytes < fbytes)
		return fail(inst, QCF_NOT_SUPPORTED, "weights data shorter than their shape");
	armnn::ConstTensor wt = const_tensor(n, fi, f->data, fbytes);
	armnn::Optional<armnn::ConstTensor> bias;
	if (call->n_inputs == 4) {
		const qcf_tensor *b = &call->inputs[3];
		if ((st = bias_info(inst, b, xi, fi, &bi)) != QCF_OK)
			return st;
		const size_t bb = qcf_dtype_nbytes(b->dtype, (size_t)qcf_numel(b));
		if (b->nbytes < bb)
			return fail(inst, QCF_NOT_SUPPORTED, "bias data shorter than its shape");
		bias = const_tensor(n, bi, b->data, bb);
	}
	armnn::IConnectableLayer *layer =
	        n->net->AddTransposeConvolution2dLayer(d, wt, bias, "transpose_conv");
	add_input(n, 2, xi).Connect(layer->GetInputSlot(0));
	return finish(inst, call, n, layer, true);
}

// STRIDED_SLICE: Arm NN's descriptor takes begin, end, strides and the begin, end and shrink
// masks as LiteRT's options; the adapter leaves out the ellipsis and new-axis masks and
// offset (20.08's reference StridedSlice does not implement them) and ranks above 4.
qcf_status build_strided_slice(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 4, 4);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0];
	if (x->rank < 1 || x->rank > 4)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "STRIDED_SLICE of rank %d: Arm NN 20.08's reference StridedSlice "
		            "takes ranks 1 to 4",
		            (int)x->rank);
	armnn::TensorInfo xi;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK)
		return st;
	std::vector<int64_t> b, e, s;
	if (!read_ints(&call->inputs[1], &b) || !read_ints(&call->inputs[2], &e) ||
	    !read_ints(&call->inputs[3], &s) || (int32_t)b.size() != x->rank ||
	    e.size() != b.size() || s.size() != b.size())
		return fail(inst, QCF_NOT_SUPPORTED,
		            "STRIDED_SLICE: begin, end and strides with one value per input "
		            "dimension");
	armnn::StridedSliceDescriptor d;
	for (size_t k = 0; k < b.size(); k++) {
		if (s[k] == 0 || b[k] < INT32_MIN || b[k] > INT32_MAX || e[k] < INT32_MIN ||
		    e[k] > INT32_MAX || s[k] < -INT32_MAX || s[k] > INT32_MAX)
			return fail(inst, QCF_NOT_SUPPORTED, "STRIDED_SLICE: a zero stride");
		d.m_Begin.push_back((int)b[k]);
		d.m_End.push_back((int)e[k]);
		d.m_Stride.push_back((int)s[k]);
	}
	int64_t bm = 0, em = 0, sm = 0, elm = 0, nam = 0, off = 0;
	if (qcf_attr_int(call, "begin_mask", &bm) < 0 || qcf_attr_int(call, "end_mask", &em) < 0 ||
	    qcf_attr_int(call, "shrink_axis_mask", &sm) < 0 ||
	    qcf_attr_int(call, "ellipsis_mask", &elm) < 0 ||
	    qcf_attr_int(call, "new_axis_mask", &nam) < 0 || qcf_attr_int(call, "offset", &off) < 0)
		return fail(inst, QCF_NOT_SUPPORTED, "STRIDED_SLICE: masks are not integers");
	if (elm || nam || off)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "STRIDED_SLICE with ellipsis_mask, new_axis_mask or offset: Arm NN "
		            "20.08's reference StridedSlice does not implement them");
	const int64_t all = (1LL << x->rank) - 1;
	d.m_BeginMask = (int32_t)(bm & all);
	d.m_EndMask = (int32_t)(em & all);
	d.m_ShrinkAxisMask = (int32_t)(sm & all);
	d.m_DataLayout = armnn::DataLayout::NHWC;
	armnn::IConnectableLayer *layer = n->net->AddStridedSliceLayer(d, "strided_slice");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	if (qcf_numel(&call->outputs[0]) == 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "STRIDED_SLICE to an empty output: Arm NN's shape inference gives "
		            "every axis at least 1");
	// Arm NN shapes a fully shrunk output [1]
	qcf_tensor yt = call->outputs[0];
	int64_t one = 1;
	if (yt.rank == 0) {
		yt.rank = 1;
		yt.shape = &one;
	}
	qcf_op_call c2 = *call;
	c2.outputs = &yt;
	return finish(inst, &c2, n, layer, false);
}

// GATHER: Gather with the axis, int32 positions (Arm NN's Signed32); batch_dims 0 only.
qcf_status build_gather(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	qcf_status st = need_io(inst, call, 2, 2);
	if (st != QCF_OK)
		return st;
	const qcf_tensor *x = &call->inputs[0], *ix = &call->inputs[1];
	if (ix->dtype != QCF_INT32)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "GATHER positions of %s: Arm NN 20.08 takes Signed32 indices",
		            qcf_dtype_name(ix->dtype));
	int64_t axis = 0, bd = 0;
	if (qcf_attr_int(call, "axis", &axis) < 0 || qcf_attr_int(call, "batch_dims", &bd) < 0)
		return fail(inst, QCF_NOT_SUPPORTED, "GATHER: axis / batch_dims not integers");
	if (bd != 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "GATHER with batch_dims %lld: Arm NN 20.08's Gather has no batch "
		            "dimensions",
		            (long long)bd);
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis >= x->rank)
		return fail(inst, QCF_NOT_SUPPORTED, "GATHER: axis out of range");
	if (ix->rank == 0 || qcf_numel(x) == 0 || qcf_numel(ix) == 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "GATHER of a scalar position or an empty tensor: Arm NN's Gather "
		            "shapes them otherwise");
	if (x->rank + ix->rank - 1 > 4)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "GATHER: an output of rank %d (Arm NN's Gather asserts 4 at most)",
		            (int)(x->rank + ix->rank - 1));
	// a position outside [0, axis size): LiteRT's Eval refuses it, Arm NN's reference Gather
	// throws; refused here before the workload runs
	std::vector<int64_t> pos;
	if (!read_ints(ix, &pos))
		return fail(inst, QCF_NOT_SUPPORTED, "GATHER: positions unreadable");
	for (int64_t p : pos)
		if (p < 0 || p >= x->shape[axis])
			return fail(inst, QCF_INVALID_PARAM,
			            "GATHER: position %lld outside [0, %lld)", (long long)p,
			            (long long)x->shape[axis]);
	armnn::TensorInfo xi, ii;
	if ((st = arm_info(inst, x, "input", false, &xi)) != QCF_OK ||
	    (st = arm_info(inst, ix, "positions", false, &ii)) != QCF_OK)
		return st;
	armnn::GatherDescriptor d;
	d.m_Axis = (int32_t)axis;
	armnn::IConnectableLayer *layer = n->net->AddGatherLayer(d, "gather");
	add_input(n, 0, xi).Connect(layer->GetInputSlot(0));
	add_input(n, 1, ii).Connect(layer->GetInputSlot(1));
	return finish(inst, call, n, layer, false);
}

// PACK: Stack along the axis (inputs of one shape).
qcf_status build_pack(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	if (call->n_inputs < 1 || call->n_outputs != 1)
		return fail(inst, QCF_NOT_SUPPORTED, "PACK: inputs and one output");
	const qcf_tensor *x = &call->inputs[0];
	int64_t axis = 0;
	if (qcf_attr_int(call, "axis", &axis) < 0)
		return fail(inst, QCF_NOT_SUPPORTED, "PACK: axis is not an integer");
	if (axis < 0)
		axis += x->rank + 1;
	if (axis < 0 || axis > x->rank || x->rank + 1 > (int32_t)armnn::MaxNumOfTensorDimensions)
		return fail(inst, QCF_NOT_SUPPORTED, "PACK: axis out of range or output rank > 5");
	if (x->rank == 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "PACK of scalars: Arm NN has no rank-0 tensor (a scalar is [1])");
	if (axis == 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "PACK along axis 0: Arm NN 20.08's reference Stack writes outside its "
		            "output there (measured: the heap is corrupted, the worker aborts when "
		            "the network is unloaded; int16 values come out wrong)");
	std::vector<armnn::TensorInfo> infos;
	for (int32_t i = 0; i < call->n_inputs; i++) {
		armnn::TensorInfo ti;
		qcf_status st = arm_info(inst, &call->inputs[i], "input", false, &ti);
		if (st != QCF_OK)
			return st;
		if (call->inputs[i].rank != x->rank || call->inputs[i].dtype != x->dtype)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "PACK: inputs of unequal rank or type");
		for (int32_t k = 0; k < x->rank; k++)
			if (call->inputs[i].shape[k] != x->shape[k])
				return fail(inst, QCF_NOT_SUPPORTED,
				            "PACK: inputs of unequal shape");
		infos.push_back(ti);
	}
	armnn::StackDescriptor d((uint32_t)axis, (uint32_t)call->n_inputs, infos[0].GetShape());
	armnn::IConnectableLayer *layer = n->net->AddStackLayer(d, "pack");
	for (int32_t i = 0; i < call->n_inputs; i++)
		add_input(n, i, infos[(size_t)i]).Connect(layer->GetInputSlot((unsigned int)i));
	return finish(inst, call, n, layer, false);
}

// SPLIT, SPLIT_V, UNPACK: a Splitter whose views are consecutive blocks along the axis (the
// parser's ParseSplit / ParseSplitV / ParseUnpack); UNPACK reshapes each view to drop the axis.
qcf_status build_split(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	const bool unpack = op_is(call, "UNPACK"), sv = op_is(call, "SPLIT_V");
	const int xin = op_is(call, "SPLIT") ? 1 : 0;
	const int want_in = unpack ? 1 : sv ? 3 : 2;
	if (call->n_inputs != want_in || call->n_outputs < 1)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: %d inputs and outputs expected", call->op,
		            want_in);
	const qcf_tensor *x = &call->inputs[xin];
	if (x->rank < 1)
		return fail(inst, QCF_NOT_SUPPORTED, "%s of a scalar", call->op);
	int64_t axis = 0;
	if (unpack) {
		if (qcf_attr_int(call, "axis", &axis) < 0)
			return fail(inst, QCF_NOT_SUPPORTED, "UNPACK: axis is not an integer");
	} else {
		std::vector<int64_t> a;
		if (!read_ints(&call->inputs[sv ? 2 : 0], &a) || a.size() != 1)
			return fail(inst, QCF_NOT_SUPPORTED, "%s: axis must be one int32 value",
			            call->op);
		axis = a[0];
	}
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis >= x->rank)
		return fail(inst, QCF_NOT_SUPPORTED, "%s: axis out of range", call->op);
	const int32_t no = call->n_outputs;
	std::vector<int64_t> sizes;
	if (unpack) {
		if (x->shape[axis] != no)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "UNPACK: %d outputs for a dimension of %lld", (int)no,
			            (long long)x->shape[axis]);
		sizes.assign((size_t)no, 1);
	} else if (!sv) {
		if (x->shape[axis] % no != 0)
			return fail(inst, QCF_NOT_SUPPORTED, "SPLIT: an uneven split");
		sizes.assign((size_t)no, x->shape[axis] / no);
	} else {
		if (!read_ints(&call->inputs[1], &sizes) || (int32_t)sizes.size() != no)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "SPLIT_V: size_splits must hold one value per output");
		int64_t sum = 0, inferred = -1;
		for (size_t k = 0; k < sizes.size(); k++) {
			if (sizes[k] == -1 && inferred < 0)
				inferred = (int64_t)k;
			else if (sizes[k] < 0)
				return fail(inst, QCF_NOT_SUPPORTED, "SPLIT_V: negative sizes");
			else
				sum += sizes[k];
		}
		if (inferred >= 0)
			sizes[(size_t)inferred] = x->shape[axis] - sum;
		if (sum > x->shape[axis] || (inferred < 0 && sum != x->shape[axis]))
			return fail(inst, QCF_NOT_SUPPORTED,
			            "SPLIT_V: size_splits do not cover the axis");
	}
	for (int64_t v : sizes)
		if (v < 1)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "%s: an empty output (Arm NN's Splitter views are not empty)",
			            call->op);
	armnn::TensorInfo xi;
	qcf_status st = arm_info(inst, x, "input", false, &xi);
	if (st != QCF_OK)
		return st;
	armnn::ViewsDescriptor d((uint32_t)no, (uint32_t)xi.GetNumDimensions());
	int64_t origin = 0;
	for (int32_t k = 0; k < no; k++) {
		for (unsigned int dd = 0; dd < xi.GetNumDimensions(); dd++) {
			const bool ax = (int64_t)dd == axis;
			d.SetViewOriginCoord((uint32_t)k, dd, ax ? (uint32_t)origin : 0u);
			d.SetViewSize((uint32_t)k, dd,
			              ax ? (uint32_t)sizes[(size_t)k] : xi.GetShape()[dd]);
		}
		origin += sizes[(size_t)k];
	}
	armnn::IConnectableLayer *layer = n->net->AddSplitterLayer(d, call->op);
	add_input(n, xin, xi).Connect(layer->GetInputSlot(0));
	n->out_info.clear();
	for (int32_t k = 0; k < no; k++) {
		armnn::TensorInfo yi, vi;
		if ((st = arm_info(inst, &call->outputs[k], "output", false, &yi)) != QCF_OK)
			return st;
		if (yi.GetNumElements() !=
		    (unsigned int)(qcf_numel(x) / x->shape[axis] * sizes[(size_t)k]))
			return fail(inst, QCF_NOT_SUPPORTED, "%s: output %d of another size",
			            call->op, (int)k);
		// the view keeps the input's quantization, as Arm NN's Splitter copies bytes
		vi = xi;
		armnn::TensorShape vs = xi.GetShape();
		vs[(unsigned int)axis] = (unsigned int)sizes[(size_t)k];
		vi.SetShape(vs);
		armnn::IOutputSlot *slot = &layer->GetOutputSlot((unsigned int)k);
		if (unpack) {
			slot->SetTensorInfo(vi);
			armnn::IConnectableLayer *r = n->net->AddReshapeLayer(
			        armnn::ReshapeDescriptor(yi.GetShape()), "unpack_reshape");
			slot->Connect(r->GetInputSlot(0));
			slot = &r->GetOutputSlot(0);
			slot->SetTensorInfo(yi);
		} else {
			slot->SetTensorInfo(yi);
		}
		armnn::IConnectableLayer *out = n->net->AddOutputLayer((armnn::LayerBindingId)k);
		slot->Connect(out->GetInputSlot(0));
		n->out_info.push_back(yi);
	}
	return QCF_OK;
}

typedef qcf_status (*builder)(qcf_instance *, const qcf_op_call *, Net *);

const struct {
	const char *op;
	builder build;
} kOps[] = {
        {"CONV_2D", build_conv},
        {"DEPTHWISE_CONV_2D", build_conv},
        {"FULLY_CONNECTED", build_fc},
        {"ADD", build_binary},
        {"SUB", build_binary},
        {"MUL", build_binary},
        {"MAXIMUM", build_binary},
        {"MINIMUM", build_binary},
        {"AVERAGE_POOL_2D", build_pool},
        {"MAX_POOL_2D", build_pool},
        {"QUANTIZE", build_unary},
        {"DEQUANTIZE", build_unary},
        {"SOFTMAX", build_unary},
        {"LOGISTIC", build_unary},
        {"TANH", build_unary},
        {"RESHAPE", build_reshape},
        {"SQUEEZE", build_reshape},
        {"TRANSPOSE", build_transpose},
        {"CONCATENATION", build_concat},
        {"PAD", build_pad},
        {"PADV2", build_pad},
        {"MEAN", build_mean},
        {"EQUAL", build_binary},
        {"NOT_EQUAL", build_binary},
        {"LESS", build_binary},
        {"LESS_EQUAL", build_binary},
        {"GREATER", build_binary},
        {"GREATER_EQUAL", build_binary},
        {"ARG_MAX", build_arg_max},
        {"LOG_SOFTMAX", build_unary},
        {"L2_NORMALIZATION", build_unary},
        {"SLICE", build_slice},
        {"SPACE_TO_DEPTH", build_space_to_depth},
        {"BATCH_TO_SPACE_ND", build_batch_space},
        {"SPACE_TO_BATCH_ND", build_batch_space},
        {"RELU", build_activation},
        {"RELU6", build_activation},
        {"RELU_N1_TO_1", build_activation},
        {"LEAKY_RELU", build_activation},
        {"ELU", build_activation},
        {"HARD_SWISH", build_activation},
        {"ABS", build_elementwise_unary},
        {"NEG", build_elementwise_unary},
        {"EXP", build_elementwise_unary},
        {"SQRT", build_elementwise_unary},
        {"RSQRT", build_elementwise_unary},
        {"DIV", build_div_prelu},
        {"PRELU", build_div_prelu},
        {"DEPTH_TO_SPACE", build_depth_to_space},
        {"RESIZE_BILINEAR", build_resize},
        {"RESIZE_NEAREST_NEIGHBOR", build_resize},
        {"TRANSPOSE_CONV", build_transpose_conv},
        {"STRIDED_SLICE", build_strided_slice},
        {"GATHER", build_gather},
        {"EXPAND_DIMS", build_reshape},
        {"PACK", build_pack},
        {"SPLIT", build_split},
        {"SPLIT_V", build_split},
        {"UNPACK", build_split},
};

builder find_builder(const qcf_op_call *call)
{
	if (!call->semantics || std::strcmp(call->semantics, "litert") != 0 || !call->op)
		return nullptr;
	for (const auto &e : kOps)
		if (std::strcmp(call->op, e.op) == 0)
			return e.build;
	return nullptr;
}

// Builds the call's network; Arm NN's exceptions as answers.
qcf_status build(qcf_instance *inst, const qcf_op_call *call, Net *n)
{
	builder b = find_builder(call);
	if (!b)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s/%s: the adapter maps no Arm NN layer for it (see "
		            "plugins/armnn/README.md)",
		            call->semantics ? call->semantics : "?", call->op ? call->op : "?");
	for (int32_t i = 0; i < call->n_outputs; i++)
		if (call->outputs[i].rank < 0)
			return fail(inst, QCF_NOT_SUPPORTED, "output of negative rank");
	n->net = armnn::INetwork::Create();
	return b(inst, call, n);
}

qcf_status from_exception(qcf_instance *inst, const char *stage, const std::exception &e)
{
	if (dynamic_cast<const armnn::InvalidArgumentException *>(&e) ||
	    dynamic_cast<const armnn::LayerValidationException *>(&e))
		return fail(inst, QCF_INVALID_PARAM, "Arm NN %s: %s", stage, e.what());
	if (dynamic_cast<const armnn::UnimplementedException *>(&e))
		return fail(inst, QCF_NOT_SUPPORTED, "Arm NN %s: %s", stage, e.what());
	if (dynamic_cast<const std::bad_alloc *>(&e))
		return fail(inst, QCF_ERROR, "out of memory");
	return fail(inst, QCF_ERROR, "Arm NN %s: %s", stage, e.what());
}

// Element i of a per-tensor quantized int8/uint8/int16 tensor relative to its zero point (its
// real value's sign); false when the tensor is not such a tensor.
bool stored_minus_zp(const qcf_tensor *t, int64_t i, int32_t *v)
{
	if (!t->quant || t->quant->count != 1)
		return false;
	switch (t->dtype) {
	case QCF_INT8: *v = static_cast<const int8_t *>(t->data)[i]; break;
	case QCF_UINT8: *v = static_cast<const uint8_t *>(t->data)[i]; break;
	case QCF_INT16: *v = static_cast<const int16_t *>(t->data)[i]; break;
	default: return false;
	}
	*v -= t->quant->zero_points[0];
	return true;
}

// A real 0 divided by a real 0 somewhere in the broadcast (numpy rules, from the last axis).
bool div_zero_by_zero(const qcf_tensor *a, const qcf_tensor *b)
{
	const int32_t r = std::max(a->rank, b->rank);
	std::vector<int64_t> sa((size_t)r, 1), sb((size_t)r, 1), so((size_t)r, 1);
	for (int32_t k = 0; k < a->rank; k++)
		sa[(size_t)(r - a->rank + k)] = a->shape[k];
	for (int32_t k = 0; k < b->rank; k++)
		sb[(size_t)(r - b->rank + k)] = b->shape[k];
	int64_t total = 1;
	for (int32_t k = 0; k < r; k++) {
		so[(size_t)k] = std::max(sa[(size_t)k], sb[(size_t)k]);
		if (sa[(size_t)k] == 0 || sb[(size_t)k] == 0)
			return false;
		total *= so[(size_t)k];
	}
	for (int64_t o = 0; o < total; o++) {
		int64_t rem = o, ia = 0, ib = 0, ma = 1, mb = 1;
		for (int32_t k = r - 1; k >= 0; k--) {
			const int64_t c = rem % so[(size_t)k];
			rem /= so[(size_t)k];
			ia += (sa[(size_t)k] == 1 ? 0 : c) * ma;
			ib += (sb[(size_t)k] == 1 ? 0 : c) * mb;
			ma *= sa[(size_t)k];
			mb *= sb[(size_t)k];
		}
		int32_t va, vb;
		if (stored_minus_zp(a, ia, &va) && stored_minus_zp(b, ib, &vb) && va == 0 &&
		    vb == 0)
			return true;
	}
	return false;
}

// Data Arm NN's reference workloads decode to float and turn into NaN, which armnn::Quantize
// asserts on (Debian builds Arm NN with its assertions on): SQRT and RSQRT of a negative real,
// DIV of 0 by 0. The call is declined before it runs. (An infinity, x / 0 for x != 0, is
// clamped to the type's range by armnn::Quantize: computed.)
qcf_status data_guard(qcf_instance *inst, const qcf_op_call *call)
{
	if ((op_is(call, "SQRT") || op_is(call, "RSQRT")) && call->n_inputs == 1) {
		const qcf_tensor *x = &call->inputs[0];
		const int64_t n = qcf_numel(x);
		int32_t v;
		for (int64_t i = 0; i < n; i++)
			if (stored_minus_zp(x, i, &v) && v < 0)
				return fail(inst, QCF_NOT_SUPPORTED,
				            "%s of a negative value: Arm NN's reference kernel "
				            "computes NaN and asserts in armnn::Quantize",
				            call->op);
	}
	if (op_is(call, "DIV") && call->n_inputs == 2 &&
	    div_zero_by_zero(&call->inputs[0], &call->inputs[1]))
		return fail(inst, QCF_NOT_SUPPORTED,
		            "DIV of 0 by 0 (both stored values at their zero points): Arm NN's "
		            "reference division gives NaN, which armnn::Quantize asserts on");
	return QCF_OK;
}

// ---------------------------------------------------------------- the ABI

const char *kBackends = "CpuRef, CpuAcc, GpuAcc";

qcf_status a_create(const qcf_option *options, int32_t n_options, qcf_instance **out, char *msg,
                    size_t msg_size)
{
	std::string backend = "CpuRef";
	for (int32_t i = 0; i < n_options; i++) {
		const char *k = options[i].key ? options[i].key : "";
		const char *v = options[i].value ? options[i].value : "";
		if (std::strcmp(k, "backend") != 0 || !*v) {
			std::snprintf(
			        msg, msg_size,
			        "unknown option %s=%s (Arm NN takes backend=NAME: %s; default "
			        "CpuRef)",
			        k, v, kBackends);
			return QCF_INVALID_PARAM;
		}
		backend = v;
	}
	try {
		std::unique_ptr<qcf_instance> inst(new qcf_instance);
		armnn::IRuntime::CreationOptions o;
		inst->rt = armnn::IRuntime::Create(o);
		std::string offered;
		bool found = false;
		for (const armnn::BackendId &b : inst->rt->GetDeviceSpec().GetSupportedBackends()) {
			offered += (offered.empty() ? "" : ", ") + b.Get();
			found |= b.Get() == backend;
		}
		if (!found) {
			std::snprintf(msg, msg_size,
			              "backend=%s: this Arm NN runtime offers %s (CpuAcc needs "
			              "libarmnn-cpuacc-backend22, built for arm64 only)",
			              backend.c_str(),
			              offered.empty() ? "no backend" : offered.c_str());
			return QCF_INVALID_PARAM;
		}
		inst->backend = armnn::BackendId(backend);
		*out = inst.release();
		return QCF_OK;
	} catch (const std::exception &e) {
		std::snprintf(msg, msg_size, "IRuntime::Create: %s", e.what());
		return QCF_ERROR;
	}
}

void a_destroy(qcf_instance *inst)
{
	delete inst;
}

qcf_status a_supports(qcf_instance *inst, const qcf_op_call *call)
{
	inst->err[0] = 0;
	try {
		Net n;
		return build(inst, call, &n);
	} catch (const std::exception &e) {
		return from_exception(inst, "INetwork", e);
	}
}

qcf_status a_prepare(qcf_instance *inst, const qcf_op_call *call, qcf_prepared **out)
{
	inst->err[0] = 0;
	*out = nullptr;
	try {
		Net n;
		qcf_status st = build(inst, call, &n);
		if (st != QCF_OK)
			return st;
		std::vector<std::string> msgs;
		// a layer no backend of the list supports: Optimize returns no network and says why
		// in the messages; its exceptions (a layer's shape inference) are answered below
		armnn::IOptimizedNetworkPtr opt =
		        armnn::Optimize(*n.net, {inst->backend}, inst->rt->GetDeviceSpec(),
		                        armnn::OptimizerOptions(),
		                        armnn::Optional<std::vector<std::string> &>(msgs));
		if (!opt) {
			std::string all;
			for (const std::string &m : msgs)
				all += (all.empty() ? "" : "; ") + m;
			return fail(inst, QCF_NOT_SUPPORTED, "Arm NN Optimize for %s: %s",
			            inst->backend.Get().c_str(),
			            all.empty() ? "no optimized network" : all.c_str());
		}
		std::unique_ptr<qcf_prepared> p(new qcf_prepared);
		std::string err;
		if (inst->rt->LoadNetwork(p->id, std::move(opt), err) != armnn::Status::Success)
			// a workload's Validate() refused the parameters (QueueDescriptor ...)
			return fail(inst, QCF_INVALID_PARAM, "Arm NN LoadNetwork: %s", err.c_str());
		p->loaded = true;
		p->inputs = n.inputs;
		p->in_info = n.in_info;
		p->out_info = n.out_info;
		*out = p.release();
		return QCF_OK;
	} catch (const std::exception &e) {
		return from_exception(inst, "prepare", e);
	}
}

qcf_status a_execute(qcf_instance *inst, qcf_prepared *p, const qcf_op_call *call)
{
	if (!p)
		return fail(inst, QCF_ERROR, "execute without prepare");
	qcf_status g = data_guard(inst, call);
	if (g != QCF_OK)
		return g;
	try {
		armnn::InputTensors in;
		for (size_t i = 0; i < p->inputs.size(); i++) {
			const qcf_tensor *t = &call->inputs[p->inputs[i]];
			if (t->nbytes < p->in_info[i].GetNumBytes())
				return fail(inst, QCF_ERROR, "input %d is shorter than prepared",
				            p->inputs[i]);
			in.emplace_back((armnn::LayerBindingId)i,
			                armnn::ConstTensor(p->in_info[i], t->data));
		}
		armnn::OutputTensors out;
		for (size_t k = 0; k < p->out_info.size(); k++) {
			qcf_tensor *y = &call->outputs[k];
			if (y->nbytes < p->out_info[k].GetNumBytes())
				return fail(inst, QCF_ERROR, "output %zu is shorter than prepared",
				            k);
			out.emplace_back((armnn::LayerBindingId)k,
			                 armnn::Tensor(p->out_info[k], y->data));
		}
		if (inst->rt->EnqueueWorkload(p->id, in, out) != armnn::Status::Success)
			return fail(inst, QCF_ERROR, "Arm NN EnqueueWorkload failed");
		return QCF_OK;
	} catch (const std::exception &e) {
		return from_exception(inst, "EnqueueWorkload", e);
	}
}

void a_release(qcf_instance *inst, qcf_prepared *p)
{
	if (!p)
		return;
	try {
		if (p->loaded)
			inst->rt->UnloadNetwork(p->id);
	} catch (const std::exception &) {
	}
	delete p;
}

const char *a_last_error(qcf_instance *inst)
{
	return inst->err;
}

const qcf_plugin kPlugin = {
        sizeof(qcf_plugin),
        1,
        "armnn",
        QCF_ARMNN_VERSION,
        a_create,
        a_destroy,
        a_supports,
        a_prepare,
        a_execute,
        a_release,
        a_last_error,
        nullptr, // engine: not reported (the CPU, by construction)
        nullptr, // threads_option: none
};

} // namespace

extern "C" QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return qcf_negotiate_answer(n, 1, &kPlugin);
}
