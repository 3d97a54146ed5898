/*
 * qconform plugin over libtorch (ATen's C++ API): the torch operators of
 * specs/torch (specs/torch/OPERATORS.md) computed by the installed libtorch.
 *
 * Every tensor of a call becomes an at::Tensor over the call's buffer
 * (at::from_blob, the ABI dtype mapped to torch's), the ATen op runs, and
 * its result is copied into the call's outputs. Quantized tensors (quint8 =
 * uint8, qint8 = int8, qint32 = int32, quint4x2 = uint4) are built with
 * at::_empty_affine_quantized / at::_empty_per_channel_affine_quantized and
 * their bytes copied in and out as they are stored: quint4x2 packs element
 * 2i in the low nibble and 2i + 1 in the high one, over the flat element
 * index, which is the ABI's packing.
 *
 * The (dY, X) backward ops have no aten op: they run the forward on X with
 * autograd and back-propagate dY, so the gradient is what torch's autograd
 * computes. quantized_linear runs quantized::linear_prepack and
 * quantized::linear through the dispatcher, on the quantized engine chosen
 * by the `engine` option.
 *
 * Any exception torch throws (its TORCH_CHECKs: c10::Error) becomes
 * QCF_INVALID_PARAM with the first line of its message; nothing escapes
 * into the host. Where the call asks for something no torch call can
 * produce (an output dtype or shape other than the op's result, a per-axis
 * quantization for quantize_per_tensor), the adapter answers
 * QCF_INVALID_PARAM itself, its message starting with "adapter:".
 *
 * Options: engine=qnnpack|onednn|default (the quantized engine of
 * quantized_linear; default qnnpack), threads=N (intra-op threads, default 1).
 */
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "qconform/plugin.h"
#include "qconform/plugin_util.h"

#ifndef LIBTORCH_VERSION
#define LIBTORCH_VERSION "unknown"
#endif

namespace
{

/* A refusal of the adapter itself: the call has no torch equivalent. */
struct adapter_error {
	qcf_status status;
	std::string message;
};

[[noreturn]] void refuse(qcf_status st, const std::string &msg)
{
	throw adapter_error{st, "adapter: " + msg};
}

std::string first_line(const char *s)
{
	std::string m = s ? s : "";
	size_t nl = m.find('\n');
	if (nl != std::string::npos)
		m.resize(nl);
	return m;
}

/*
 * torch's errors that say a configuration is not implemented (bfloat16, which
 * later torch dispatches, or a case an engine lacks) rather than that a
 * parameter breaks a rule: the ABI's QCF_NOT_SUPPORTED. A dispatch error for
 * any other dtype (an integer input, quint4x2 per channel) is a refusal.
 */
bool unimplemented(const std::string &msg)
{
	static const char *const marks[] = {
	        "\" not implemented for 'BFloat16'",    /* torch 1.13's fake quantization */
	        "Unsupported config for dtype",         /* qnnpack engine, XNNPACK qint8 path */
	        "expects kernel zero point to be zero", /* XNNPACK qint8: symmetric weight */
	        "ONEDNN only supports symmetric quantization", /* onednn engine */
	        "(ONEDNN): data type of input should be QUint8",
	};
	for (const char *m : marks)
		if (msg.find(m) != std::string::npos)
			return true;
	return false;
}

/* torch's dense dtype for an ABI dtype; false when torch has none (sub-byte, uint16). */
bool plain_type(qcf_dtype t, at::ScalarType *st)
{
	switch (t) {
	case QCF_BOOL: *st = at::kBool; return true;
	case QCF_INT8: *st = at::kChar; return true;
	case QCF_UINT8: *st = at::kByte; return true;
	case QCF_INT16: *st = at::kShort; return true;
	case QCF_INT32: *st = at::kInt; return true;
	case QCF_INT64: *st = at::kLong; return true;
	case QCF_FLOAT16: *st = at::kHalf; return true;
	case QCF_BFLOAT16: *st = at::kBFloat16; return true;
	case QCF_FLOAT32: *st = at::kFloat; return true;
	case QCF_FLOAT64: *st = at::kDouble; return true;
	default: return false;
	}
}

/* torch's quantized dtype for an ABI integer dtype; other dtypes map to their dense type,
 * which torch's own checks then refuse as a quantized type. */
at::ScalarType quant_type(qcf_dtype t)
{
	switch (t) {
	case QCF_UINT8: return at::kQUInt8;
	case QCF_INT8: return at::kQInt8;
	case QCF_INT32: return at::kQInt32;
	case QCF_UINT4: return at::kQUInt4x2;
	default: break;
	}
	at::ScalarType st;
	if (!plain_type(t, &st))
		refuse(QCF_NOT_SUPPORTED,
		       std::string("torch has no tensor type for ") + qcf_dtype_name(t));
	return st;
}

std::vector<int64_t> sizes(const qcf_tensor &t)
{
	if (t.rank < 0 || t.rank > QCF_MAX_RANK || (t.rank > 0 && !t.shape))
		refuse(QCF_ERROR, "tensor with an invalid rank");
	return std::vector<int64_t>(t.shape, t.shape + t.rank);
}

void check_buffer(const qcf_tensor &t)
{
	size_t need = qcf_dtype_nbytes(t.dtype, (size_t)qcf_numel(&t));
	if (t.nbytes < need || (need > 0 && !t.data))
		refuse(QCF_ERROR, std::string("tensor '") + (t.name ? t.name : "?") +
		                          "': buffer smaller than its elements");
}

/* A dense tensor over an input's buffer (not copied: torch only reads it). */
at::Tensor dense(const qcf_tensor &t)
{
	at::ScalarType st;
	if (!plain_type(t.dtype, &st))
		refuse(QCF_NOT_SUPPORTED, std::string("torch has no dense tensor of ") +
		                                  qcf_dtype_name(t.dtype) + " (tensor '" +
		                                  (t.name ? t.name : "?") + "')");
	check_buffer(t);
	static char empty;
	void *p = t.data ? t.data : &empty;
	return at::from_blob(p, sizes(t), at::TensorOptions().dtype(st));
}

const qcf_quant &quant_of(const qcf_tensor &t)
{
	if (!t.quant || !t.quant->scales || !t.quant->zero_points || t.quant->count < 1)
		refuse(QCF_INVALID_PARAM, std::string("tensor '") + (t.name ? t.name : "?") +
		                                  "' needs quantization parameters");
	return *t.quant;
}

bool per_axis(const qcf_quant &q)
{
	return q.axis >= 0;
}

/* A quantized tensor holding a copy of the input's bytes, with its scale(s) and zero point(s). */
at::Tensor quantized(const qcf_tensor &t)
{
	const qcf_quant &q = quant_of(t);
	at::ScalarType qt = quant_type(t.dtype);
	check_buffer(t);
	at::Tensor r;
	auto opt = at::TensorOptions().dtype(qt);
	if (per_axis(q)) {
		std::vector<double> sc(q.scales, q.scales + q.count);
		std::vector<int64_t> zp(q.zero_points, q.zero_points + q.count);
		at::Tensor s = at::tensor(sc, at::kDouble), z = at::tensor(zp, at::kLong);
		r = at::_empty_per_channel_affine_quantized(sizes(t), s, z, q.axis, opt);
	} else {
		if (q.count != 1)
			refuse(QCF_INVALID_PARAM,
			       "per-tensor quantization with more than one scale");
		r = at::_empty_affine_quantized(sizes(t), opt, (double)q.scales[0],
		                                q.zero_points[0]);
	}
	size_t nb = qcf_dtype_nbytes(t.dtype, (size_t)qcf_numel(&t));
	if (r.storage().nbytes() < nb)
		refuse(QCF_ERROR, "quantized storage smaller than the tensor's bytes");
	if (nb)
		std::memcpy(r.data_ptr(), t.data, nb);
	return r;
}

/* Copies torch's result into output k: same dtype and shape, or the adapter refuses. */
void put(const qcf_op_call *call, int k, const at::Tensor &res)
{
	if (k >= call->n_outputs)
		refuse(QCF_INVALID_PARAM, "the op has more outputs than the call");
	qcf_tensor &o = call->outputs[k];
	at::ScalarType want;
	if (res.is_quantized())
		want = quant_type(o.dtype);
	else if (!plain_type(o.dtype, &want))
		refuse(QCF_INVALID_PARAM, std::string("output '") + (o.name ? o.name : "?") +
		                                  "' is " + qcf_dtype_name(o.dtype) +
		                                  ", torch returns " +
		                                  c10::toString(res.scalar_type()));
	if (res.scalar_type() != want)
		refuse(QCF_INVALID_PARAM, std::string("output '") + (o.name ? o.name : "?") +
		                                  "' is " + qcf_dtype_name(o.dtype) +
		                                  ", torch returns " +
		                                  c10::toString(res.scalar_type()));
	if (res.sizes() != at::IntArrayRef(sizes(o)))
		refuse(QCF_INVALID_PARAM, std::string("output '") + (o.name ? o.name : "?") +
		                                  "' has another shape than torch's result");
	check_buffer(o);
	size_t nb = qcf_dtype_nbytes(o.dtype, (size_t)qcf_numel(&o));
	if (!nb)
		return;
	at::Tensor c = res.contiguous();
	if (c.storage().nbytes() < nb + c.storage_offset() * c.itemsize())
		refuse(QCF_ERROR, "torch's result holds fewer bytes than the output");
	std::memcpy(o.data, c.data_ptr(), nb);
}

/* ---- attributes ---------------------------------------------------------- */

bool attr_number(const qcf_op_call *call, const char *name, double *v)
{
	int k = qcf_attr_float(call, name, v);
	if (k < 0)
		refuse(QCF_INVALID_PARAM, std::string("attribute '") + name + "' is not a number");
	return k == 1;
}

double float_attr(const qcf_op_call *call, const char *name)
{
	double v;
	if (!attr_number(call, name, &v))
		refuse(QCF_INVALID_PARAM, std::string("attribute '") + name + "' missing");
	return v;
}

double float_attr(const qcf_op_call *call, const char *name, double dflt)
{
	double v;
	return attr_number(call, name, &v) ? v : dflt;
}

/* An int64_t argument of the aten op: an INT attribute, or a FLOAT one holding an integer. */
int64_t int_attr(const qcf_op_call *call, const char *name)
{
	int64_t v = 0;
	int k = qcf_attr_int(call, name, &v);
	if (k == 0)
		refuse(QCF_INVALID_PARAM, std::string("attribute '") + name + "' missing");
	if (k < 0)
		refuse(QCF_INVALID_PARAM,
		       std::string("attribute '") + name + "' is not an integer");
	return v;
}

void need(const qcf_op_call *call, int n_in, int n_out)
{
	if (call->n_inputs != n_in || call->n_outputs != n_out || (n_in && !call->inputs) ||
	    (n_out && !call->outputs))
		refuse(QCF_INVALID_PARAM, std::string(call->op) + " takes " + std::to_string(n_in) +
		                                  " inputs and " + std::to_string(n_out) +
		                                  " outputs");
}

/* ---- the ops ------------------------------------------------------------- */

at::Tensor in(const qcf_op_call *call, int k)
{
	return dense(call->inputs[k]);
}

void fq_per_tensor(const qcf_op_call *call, bool cachemask)
{
	need(call, 1, cachemask ? 2 : 1);
	at::Tensor x = in(call, 0);
	double s = float_attr(call, "scale");
	int64_t zp = int_attr(call, "zero_point"), lo = int_attr(call, "quant_min"),
	        hi = int_attr(call, "quant_max");
	if (cachemask) {
		auto r = at::fake_quantize_per_tensor_affine_cachemask(x, s, zp, lo, hi);
		put(call, 0, std::get<0>(r));
		put(call, 1, std::get<1>(r));
	} else {
		put(call, 0, at::fake_quantize_per_tensor_affine(x, s, zp, lo, hi));
	}
}

void fq_per_channel(const qcf_op_call *call, bool cachemask)
{
	need(call, 3, cachemask ? 2 : 1);
	at::Tensor x = in(call, 0), s = in(call, 1), z = in(call, 2);
	int64_t axis = int_attr(call, "axis"), lo = int_attr(call, "quant_min"),
	        hi = int_attr(call, "quant_max");
	if (cachemask) {
		auto r = at::fake_quantize_per_channel_affine_cachemask(x, s, z, axis, lo, hi);
		put(call, 0, std::get<0>(r));
		put(call, 1, std::get<1>(r));
	} else {
		put(call, 0, at::fake_quantize_per_channel_affine(x, s, z, axis, lo, hi));
	}
}

/* dX of the forward on X for the incoming gradient dY, by torch's autograd. */
at::Tensor autograd_dx(const at::Tensor &dy, const at::Tensor &x0,
                       at::Tensor (*fwd)(const at::Tensor &, const qcf_op_call *),
                       const qcf_op_call *call)
{
	at::AutoGradMode grad(true);
	at::Tensor x = x0.clone().requires_grad_(true);
	at::Tensor y = fwd(x, call);
	y.backward(dy);
	at::Tensor g = x.grad();
	if (!g.defined())
		refuse(QCF_ERROR, "autograd gave no gradient");
	return g;
}

at::Tensor fwd_per_tensor(const at::Tensor &x, const qcf_op_call *call)
{
	return at::fake_quantize_per_tensor_affine(
	        x, float_attr(call, "scale"), int_attr(call, "zero_point"),
	        int_attr(call, "quant_min"), int_attr(call, "quant_max"));
}

at::Tensor fwd_per_channel(const at::Tensor &x, const qcf_op_call *call)
{
	return at::fake_quantize_per_channel_affine(
	        x, in(call, 2), in(call, 3), int_attr(call, "axis"), int_attr(call, "quant_min"),
	        int_attr(call, "quant_max"));
}

void fq_backward(const qcf_op_call *call, bool per_channel)
{
	need(call, per_channel ? 4 : 2, 1);
	put(call, 0,
	    autograd_dx(in(call, 0), in(call, 1), per_channel ? fwd_per_channel : fwd_per_tensor,
	                call));
}

void fq_cachemask_backward(const qcf_op_call *call, bool per_channel)
{
	need(call, 2, 1);
	at::Tensor dy = in(call, 0), mask = in(call, 1);
	put(call, 0,
	    per_channel ? at::fake_quantize_per_channel_affine_cachemask_backward(dy, mask)
	                : at::fake_quantize_per_tensor_affine_cachemask_backward(dy, mask));
}

void learnable(const qcf_op_call *call, bool per_channel)
{
	need(call, 3, 1);
	at::Tensor x = in(call, 0), s = in(call, 1), z = in(call, 2);
	int64_t lo = int_attr(call, "quant_min"), hi = int_attr(call, "quant_max");
	double gf = float_attr(call, "grad_factor", 1.0);
	if (per_channel)
		put(call, 0,
		    at::_fake_quantize_learnable_per_channel_affine(x, s, z, int_attr(call, "axis"),
		                                                    lo, hi, gf));
	else
		put(call, 0, at::_fake_quantize_learnable_per_tensor_affine(x, s, z, lo, hi, gf));
}

void learnable_backward(const qcf_op_call *call, bool per_channel)
{
	need(call, 4, 3);
	at::Tensor dy = in(call, 0), x = in(call, 1), s = in(call, 2), z = in(call, 3);
	int64_t lo = int_attr(call, "quant_min"), hi = int_attr(call, "quant_max");
	double gf = float_attr(call, "grad_factor", 1.0);
	auto r = per_channel ? at::_fake_quantize_learnable_per_channel_affine_backward(
	                               dy, x, s, z, int_attr(call, "axis"), lo, hi, gf)
	                     : at::_fake_quantize_learnable_per_tensor_affine_backward(dy, x, s, z,
	                                                                               lo, hi, gf);
	put(call, 0, std::get<0>(r));
	put(call, 1, std::get<1>(r));
	put(call, 2, std::get<2>(r));
}

void quantize(const qcf_op_call *call, bool per_channel)
{
	need(call, 1, 1);
	at::Tensor x = in(call, 0);
	const qcf_tensor &o = call->outputs[0];
	const qcf_quant &q = quant_of(o);
	at::ScalarType qt = quant_type(o.dtype);
	if (per_channel) {
		if (!per_axis(q))
			refuse(QCF_INVALID_PARAM,
			       "quantize_per_channel needs a per-axis output quantization");
		std::vector<double> sc(q.scales, q.scales + q.count);
		std::vector<int64_t> zp(q.zero_points, q.zero_points + q.count);
		put(call, 0,
		    at::quantize_per_channel(x, at::tensor(sc, at::kDouble),
		                             at::tensor(zp, at::kLong), q.axis, qt));
	} else {
		if (per_axis(q) || q.count != 1)
			refuse(QCF_INVALID_PARAM,
			       "quantize_per_tensor needs a per-tensor output quantization");
		put(call, 0, at::quantize_per_tensor(x, (double)q.scales[0], q.zero_points[0], qt));
	}
}

void dequantize(const qcf_op_call *call)
{
	need(call, 1, 1);
	put(call, 0, at::dequantize(quantized(call->inputs[0])));
}

c10::IValue call_op(const char *name, std::vector<c10::IValue> stack)
{
	auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
	op.callBoxed(&stack);
	if (stack.size() != 1)
		refuse(QCF_ERROR,
		       std::string(name) + " returned " + std::to_string(stack.size()) + " values");
	return stack[0];
}

/* quantized::linear_prepack(W, bias) then quantized::linear(X, packed, y_scale, y_zp). */
void linear(const qcf_op_call *call)
{
	if (call->n_inputs != 2 && call->n_inputs != 3)
		refuse(QCF_INVALID_PARAM, "quantized_linear takes x, weight and an optional bias");
	need(call, call->n_inputs, 1);
	at::Tensor x = quantized(call->inputs[0]);
	at::Tensor w = quantized(call->inputs[1]);
	c10::optional<at::Tensor> bias;
	if (call->n_inputs == 3)
		bias = in(call, 2);
	const qcf_quant &yq = quant_of(call->outputs[0]);
	if (per_axis(yq) || yq.count != 1)
		refuse(QCF_INVALID_PARAM, "quantized_linear's output is quantized per tensor");
	c10::IValue packed = call_op("quantized::linear_prepack", {w, bias});
	c10::IValue y = call_op("quantized::linear",
	                        {x, packed, (double)yq.scales[0], (int64_t)yq.zero_points[0]});
	put(call, 0, y.toTensor());
}

struct op_row {
	const char *name;
	void (*fn)(const qcf_op_call *);
};

const op_row ops[] = {
        {"fake_quantize_per_tensor_affine", [](const qcf_op_call *c) { fq_per_tensor(c, false); }},
        {"fake_quantize_per_tensor_affine_cachemask",
         [](const qcf_op_call *c) { fq_per_tensor(c, true); }},
        {"fake_quantize_per_channel_affine",
         [](const qcf_op_call *c) { fq_per_channel(c, false); }},
        {"fake_quantize_per_channel_affine_cachemask",
         [](const qcf_op_call *c) { fq_per_channel(c, true); }},
        {"fake_quantize_per_tensor_affine_backward",
         [](const qcf_op_call *c) { fq_backward(c, false); }},
        {"fake_quantize_per_channel_affine_backward",
         [](const qcf_op_call *c) { fq_backward(c, true); }},
        {"fake_quantize_per_tensor_affine_cachemask_backward",
         [](const qcf_op_call *c) { fq_cachemask_backward(c, false); }},
        {"fake_quantize_per_channel_affine_cachemask_backward",
         [](const qcf_op_call *c) { fq_cachemask_backward(c, true); }},
        {"_fake_quantize_learnable_per_tensor_affine",
         [](const qcf_op_call *c) { learnable(c, false); }},
        {"_fake_quantize_learnable_per_tensor_affine_backward",
         [](const qcf_op_call *c) { learnable_backward(c, false); }},
        {"_fake_quantize_learnable_per_channel_affine",
         [](const qcf_op_call *c) { learnable(c, true); }},
        {"_fake_quantize_learnable_per_channel_affine_backward",
         [](const qcf_op_call *c) { learnable_backward(c, true); }},
        {"quantize_per_tensor", [](const qcf_op_call *c) { quantize(c, false); }},
        {"quantize_per_channel", [](const qcf_op_call *c) { quantize(c, true); }},
        {"dequantize", dequantize},
        {"quantized_linear", linear},
};

const op_row *lookup(const qcf_op_call *call)
{
	if (!call || !call->op || !call->semantics || std::strcmp(call->semantics, "torch") != 0)
		return nullptr;
	for (const op_row &r : ops)
		if (std::strcmp(r.name, call->op) == 0)
			return &r;
	return nullptr;
}

/*
 * A configuration this libtorch does not implement though the torch specs (current torch)
 * compute it: the reason, or nullptr. torch 1.13's
 * _fake_quantize_learnable_per_channel_affine_backward takes float32 tensors only
 * (TORCH_CHECK(dY.scalar_type() == ScalarType::Float), then X, scale, zero_point); later
 * torch converts dY, X, scale and zero_point of a bfloat16 X to float first. A limit of the
 * version, not a failure: NOT_SUPPORTED, for a bfloat16 X only (other dtypes are refused by
 * every version).
 */
const char *version_limit(const qcf_op_call *call)
{
#if TORCH_VERSION_MAJOR == 1 && TORCH_VERSION_MINOR <= 13
	if (std::strcmp(call->op, "_fake_quantize_learnable_per_channel_affine_backward") == 0 &&
	    call->n_inputs > 1 && call->inputs && call->inputs[1].dtype == QCF_BFLOAT16)
		return "_fake_quantize_learnable_per_channel_affine_backward: torch <= 1.13"
		       " takes float32 tensors only (Expected dY.scalar_type() == "
		       "ScalarType::Float); a bfloat16 X is converted to float by later torch";
#else
	(void)call;
#endif
	return nullptr;
}

} // namespace

struct qcf_instance {
	std::string error;
	at::QEngine engine;
};

namespace
{

void set_msg(char *msg, size_t size, const std::string &s)
{
	if (msg && size)
		std::snprintf(msg, size, "%s", s.c_str());
}

qcf_status lt_create(const qcf_option *options, int32_t n_options, qcf_instance **out, char *msg,
                     size_t msg_size)
{
	if (!out)
		return QCF_ERROR;
	*out = nullptr;
	try {
		std::string engine = "qnnpack";
		int threads = 1;
		for (int32_t i = 0; i < n_options; i++) {
			std::string k = options[i].key ? options[i].key : "";
			std::string v = options[i].value ? options[i].value : "";
			if (k == "engine" && (v == "qnnpack" || v == "onednn" || v == "default")) {
				engine = v;
			} else if (k == "threads") {
				char *end = nullptr;
				long t = std::strtol(v.c_str(), &end, 10);
				if (v.empty() || *end || t < 1 || t > 256) {
					set_msg(msg, msg_size,
					        "threads=" + v + ": expected 1..256");
					return QCF_INVALID_PARAM;
				}
				threads = (int)t;
			} else {
				set_msg(msg, msg_size,
				        k == "engine"
				                ? "engine=" + v +
				                          ": expected qnnpack, onednn or default"
				                : "unknown option '" + k +
				                          "' (known: engine, threads)");
				return QCF_INVALID_PARAM;
			}
		}
		at::set_num_threads(threads);
		auto &ctx = at::globalContext();
		at::QEngine e = ctx.qEngine();
		if (engine != "default") {
			e = engine == "qnnpack" ? at::QEngine::QNNPACK : at::QEngine::ONEDNN;
			bool have = false;
			for (at::QEngine s : ctx.supportedQEngines())
				have = have || s == e;
			if (!have) {
				set_msg(msg, msg_size,
				        "engine=" + engine + ": this libtorch does not have it");
				return QCF_INVALID_PARAM;
			}
			ctx.setQEngine(e);
		}
		qcf_instance *inst = new qcf_instance;
		inst->engine = e;
		*out = inst;
		return QCF_OK;
	} catch (const std::exception &ex) {
		set_msg(msg, msg_size, first_line(ex.what()));
	} catch (...) {
		set_msg(msg, msg_size, "unknown exception");
	}
	return QCF_ERROR;
}

void lt_destroy(qcf_instance *inst)
{
	delete inst;
}

qcf_status lt_supports(qcf_instance *inst, const qcf_op_call *call)
{
	if (lookup(call)) {
		const char *why = version_limit(call);
		if (!why)
			return QCF_OK;
		if (inst) {
			try {
				inst->error = why;
			} catch (...) {
			}
		}
		return QCF_NOT_SUPPORTED;
	}
	if (inst) {
		try {
			inst->error = std::string("libtorch adapter has no ") +
			              (call && call->semantics ? call->semantics : "?") + " op '" +
			              (call && call->op ? call->op : "?") + "'";
		} catch (...) {
		}
	}
	return QCF_NOT_SUPPORTED;
}

qcf_status lt_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (!inst)
		return QCF_ERROR;
	qcf_status st = QCF_ERROR;
	try {
		inst->error.clear();
		const op_row *r = lookup(call);
		if (!r || version_limit(call))
			return lt_supports(inst, call);
		/* the engine is global in torch: set it again in case anything changed it */
		if (at::globalContext().qEngine() != inst->engine)
			at::globalContext().setQEngine(inst->engine);
		r->fn(call);
		return QCF_OK;
	} catch (const adapter_error &e) {
		st = e.status;
		inst->error = e.message;
	} catch (const c10::Error &e) {
		inst->error = first_line(e.what_without_backtrace());
		st = unimplemented(inst->error) ? QCF_NOT_SUPPORTED : QCF_INVALID_PARAM;
	} catch (const std::bad_alloc &) {
		st = QCF_ERROR;
		inst->error = "out of memory";
	} catch (const std::exception &e) {
		st = QCF_ERROR;
		inst->error = std::string("exception: ") + first_line(e.what());
	} catch (...) {
		st = QCF_ERROR;
		inst->error = "unknown exception";
	}
	return st;
}

const char *lt_last_error(qcf_instance *inst)
{
	return inst ? inst->error.c_str() : "no instance";
}

const qcf_plugin descriptor = {
        sizeof(qcf_plugin),
        1,
        "libtorch",
        LIBTORCH_VERSION,
        lt_create,
        lt_destroy,
        lt_supports,
        nullptr,
        lt_execute,
        nullptr,
        lt_last_error,
        nullptr,   // engine: not reported
        "threads", // threads_option: at::set_num_threads
};

} // namespace

extern "C" QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return qcf_negotiate_answer(n, 1, &descriptor);
}
