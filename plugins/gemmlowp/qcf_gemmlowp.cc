// qconform adapter for gemmlowp (Debian's libgemmlowp-dev, header-only): LiteRT
// FULLY_CONNECTED as one gemmlowp::GemmWithOutputPipeline call.
//
//   lhs    = the filter [units, depth], uint8, row-major; lhs_offset = -zp_w
//   rhs    = the input read as [depth, batches], uint8, column-major; rhs_offset = -zp_in
//   result = [units, batches] column-major, i.e. the output [batches, units] row-major
//   pipeline: OutputStageBiasAddition (int32 bias per unit, zeros without a bias)
//             -> OutputStageScaleInt32ByFixedPointAndExponent (per tensor) or its PC variant
//                (per unit): SaturatingRoundingDoublingHighMul by the Q31 multiplier after a
//                saturating left shift by max(exponent, 0), then RoundingDivideByPOT by
//                max(-exponent, 0), plus the output zero point
//             -> OutputStageClamp (the fused activation's range)
//             -> OutputStageSaturatingCastToUint8 / ToInt8
//
// The multiplier and exponent come from the tensors' scales as LiteRT's Prepare computes them
// (GetQuantizedConvolutionMultipler, QuantizeMultiplier), here in the adapter itself.
//
// Mapping of the 8-bit types onto gemmlowp's uint8 operands:
//   uint8 input and weights (LiteRT's legacy uint8 kernel): as they are, per-tensor weights
//   with any zero point.
//   int8 input: x + 128 with zero point zp_in + 128, exactly x - zp_in after the offset; int8
//   weights likewise (per tensor: zp_w + 128, the zero point LiteRT applies; per channel:
//   128, LiteRT ignores their zero points); int4 weights are unpacked (sign-extended) first.
//   The output is int8 through OutputStageSaturatingCastToInt8.
// int16 activations (16x8) are not supported: gemmlowp multiplies 8-bit operands only.
#include <gemmlowp/public/gemmlowp.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <tuple>
#include <vector>

#include "qconform/plugin.h"
#include "qconform/plugin_util.h"

struct qcf_instance {
	gemmlowp::GemmContext ctx;
	char err[512];
};

namespace
{

enum Act { ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6, ACT_TANH, ACT_SIGN_BIT };
const char *const kActNames[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};

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

bool scale_ok(float s)
{
	return s > 0.0f && std::isfinite(s);
}

bool per_tensor(const qcf_quant *q)
{
	return q && q->count == 1 && q->block_size == 0;
}

// LiteRT's QuantizeMultiplier: d = q * 2^shift with q in [0.5, 1), q as a Q31 integer rounded
// half away from zero; q = 1 carries into the exponent; below 2^-31 the multiplier is 0.
void quantize_multiplier(double d, int32_t *mult, int *shift)
{
	if (d == 0.0) {
		*mult = 0;
		*shift = 0;
		return;
	}
	int e = 0;
	const double q = std::frexp(d, &e);
	int64_t qf = (int64_t)std::round(q * 2147483648.0);
	if (qf == (int64_t)1 << 31) {
		qf /= 2;
		e++;
	}
	if (e < -31) {
		e = 0;
		qf = 0;
	}
	*mult = (int32_t)qf;
	*shift = e;
}

// Everything Prepare establishes about a call.
struct Plan {
	const qcf_tensor *in = nullptr, *w = nullptr, *bias = nullptr, *out = nullptr;
	bool u8 = false;          // uint8 activations and weights; else int8
	bool per_channel = false; // int8 weights quantized per unit
	int64_t units = 0, depth = 0, batches = 0;
	int32_t zp_in = 0, zp_w = 0, zp_out = 0; // in the uint8 domain for in and w
	int32_t act_min = 0, act_max = 0;
	std::vector<int32_t> mult, expo; // per unit (one entry per tensor)
};

// zp + (int)roundf(f / s), CalculateActivationRangeQuantized's Quantize; false out of int32.
bool act_quantize(float s, int32_t zp, float f, int64_t *q)
{
	const float t = std::round(f / s);
	if (!(t >= -0x1p31f && t < 0x1p31f))
		return false;
	*q = (int64_t)zp + (int64_t)t;
	return true;
}

qcf_status plan_fc(qcf_instance *inst, const qcf_op_call *call, Plan *p)
{
	const char *op = "FULLY_CONNECTED";
	if (call->n_inputs != 2 && call->n_inputs != 3)
		return fail(inst, QCF_INVALID_PARAM, "%s takes 2 or 3 inputs, got %d", op,
		            call->n_inputs);
	if (call->n_outputs != 1)
		return fail(inst, QCF_INVALID_PARAM, "%s has 1 output, got %d", op,
		            call->n_outputs);
	p->in = &call->inputs[0];
	p->w = &call->inputs[1];
	p->bias = call->n_inputs == 3 ? &call->inputs[2] : nullptr;
	p->out = &call->outputs[0];
	const qcf_dtype it = p->in->dtype, wt = p->w->dtype, ot = p->out->dtype;

	// types (CheckTypes, and what gemmlowp can multiply)
	if (it == QCF_INT16 || it == QCF_FLOAT32)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s: %s activations are not supported (gemmlowp multiplies 8-bit "
		            "operands)",
		            op, qcf_dtype_name(it));
	if (it != QCF_UINT8 && it != QCF_INT8)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s: input must be int8, uint8 or int16, got %s", op,
		            qcf_dtype_name(it));
	p->u8 = it == QCF_UINT8;
	if (p->u8 && ot == QCF_INT16)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s: uint8 input with int16 output is not supported", op);
	if (ot != it)
		return fail(inst, QCF_INVALID_PARAM, "%s: output type %s must equal input type %s",
		            op, qcf_dtype_name(ot), qcf_dtype_name(it));
	if (p->u8 && wt != QCF_UINT8)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s: uint8 input with %s weights is not supported (uint8 weights are)",
		            op, qcf_dtype_name(wt));
	if (!p->u8 && (wt == QCF_UINT8 || wt == QCF_INT16))
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s: int8 input with %s weights is not supported (int8 and int4 are)",
		            op, qcf_dtype_name(wt));
	if (!p->u8 && wt != QCF_INT8 && wt != QCF_INT4)
		return fail(inst, QCF_INVALID_PARAM, "%s: weights must be int8 or int4, got %s", op,
		            qcf_dtype_name(wt));
	if (p->bias && p->bias->dtype != QCF_INT32)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s: 8-bit activations need an int32 bias, got %s", op,
		            qcf_dtype_name(p->bias->dtype));

	// shapes (PrepareImpl, UpdateOutputSize)
	if (p->w->rank != 2)
		return fail(inst, QCF_INVALID_PARAM, "%s: the weights must have rank 2", op);
	if (p->in->rank < 1)
		return fail(inst, QCF_INVALID_PARAM, "%s: the input must have rank >= 1", op);
	p->units = p->w->shape[0];
	p->depth = p->w->shape[1];
	int64_t keep = 0;
	if (qcf_attr_int(call, "keep_num_dims", &keep) < 0)
		return fail(inst, QCF_INVALID_PARAM, "%s: keep_num_dims must be an integer", op);
	if (p->depth == 0)
		return fail(inst, QCF_NOT_SUPPORTED,
		            "%s: weights of depth 0 are not supported (LiteRT's Prepare sets no "
		            "requantization for them)",
		            op);
	p->batches = qcf_numel(p->in) / p->depth;
	int64_t want[QCF_MAX_RANK];
	int32_t want_rank;
	if (keep) {
		if (p->in->shape[p->in->rank - 1] != p->depth)
			return fail(
			        inst, QCF_INVALID_PARAM,
			        "%s: keep_num_dims needs the input's last dimension equal to the "
			        "weights' depth",
			        op);
		want_rank = p->in->rank;
		for (int32_t k = 0; k < want_rank; k++)
			want[k] = p->in->shape[k];
		want[want_rank - 1] = p->units;
	} else {
		want_rank = 2;
		want[0] = p->batches;
		want[1] = p->units;
	}
	bool same = p->out->rank == want_rank;
	for (int32_t k = 0; same && k < want_rank; k++)
		same = p->out->shape[k] == want[k];
	if (!same)
		return fail(inst, QCF_INVALID_PARAM, "%s: the output shape is not the computed one",
		            op);
	if (p->bias && qcf_numel(p->bias) != p->units)
		return fail(inst, QCF_INVALID_PARAM, "%s: the bias needs one element per unit", op);

	// quantization
	const qcf_quant *qi = p->in->quant, *qw = p->w->quant, *qo = p->out->quant;
	if (!per_tensor(qi) || !per_tensor(qo))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s: input and output must be quantized per tensor", op);
	if (!scale_ok(qi->scales[0]) || !scale_ok(qo->scales[0]))
		return fail(inst, QCF_INVALID_PARAM,
		            "%s: input and output scales must be positive and finite", op);
	if (!qw || qw->count < 1 || qw->block_size != 0)
		return fail(inst, QCF_INVALID_PARAM, "%s: the weights must be quantized", op);
	p->per_channel = qw->count > 1;
	if (p->per_channel) {
		if (p->u8)
			return fail(inst, QCF_INVALID_PARAM,
			            "%s: per-channel weights need int8 or int16 input", op);
		if (qw->axis != 0 || qw->count != p->units)
			return fail(inst, QCF_INVALID_PARAM,
			            "%s: per-channel weights are quantized along dimension 0, one "
			            "scale per unit",
			            op);
	}
	for (int32_t c = 0; c < qw->count; c++)
		if (!scale_ok(qw->scales[c]))
			return fail(inst, QCF_INVALID_PARAM,
			            "%s: weight scales must be positive and finite", op);
	if (wt == QCF_INT4)
		for (int32_t c = 0; c < qw->count; c++)
			if (qw->zero_points[c] != 0)
				return fail(inst, QCF_INVALID_PARAM,
				            "%s: int4 weights need zero point 0", op);
	const float s_in = qi->scales[0], s_out = qo->scales[0];
	const qcf_quant *qb = p->bias ? p->bias->quant : nullptr;
	if (qb) {
		for (int32_t c = 0; c < qb->count; c++)
			if (qb->zero_points[c] != 0)
				return fail(inst, QCF_INVALID_PARAM,
				            "%s: bias zero points must be 0", op);
		if (!p->per_channel) {
			// GetQuantizedConvolutionMultipler: the bias scale is s_in * s_w within
			// 0.02 output scales
			const double prod = (double)s_in * (double)qw->scales[0];
			if (!(std::fabs(prod - (double)qb->scales[0]) / (double)s_out <= 0.02))
				return fail(inst, QCF_INVALID_PARAM,
				            "%s: the bias scale is not input scale * weight scale",
				            op);
		}
	}
	const int32_t off = p->u8 ? 0 : 128;
	p->zp_in = qi->zero_points[0] + off;
	p->zp_w = p->per_channel ? off : qw->zero_points[0] + off;
	if (wt == QCF_INT4)
		p->zp_w = off;
	p->zp_out = qo->zero_points[0];

	// the activation (Prepare: clipping activations only)
	int act = ACT_NONE;
	if (const qcf_attr *a = qcf_attr_find(call, "fused_activation_function")) {
		act = -1;
		if (a->type == QCF_ATTR_STRING && a->v.s) {
			for (int k = 0; k < 6; k++)
				if (std::strcmp(a->v.s, kActNames[k]) == 0)
					act = k;
		} else {
			int64_t v;
			if (qcf_attr_int(call, "fused_activation_function", &v) == 1 && v >= 0 &&
			    v < 6)
				act = (int)v;
		}
		if (act < 0)
			return fail(inst, QCF_INVALID_PARAM,
			            "%s: unknown fused_activation_function", op);
	}
	if (act == ACT_TANH || act == ACT_SIGN_BIT)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s: fused activation %s is not allowed (NONE, RELU, RELU_N1_TO_1, "
		            "RELU6)",
		            op, kActNames[act]);
	const int64_t lo = p->u8 ? 0 : -128, hi = p->u8 ? 255 : 127;
	int64_t mn = lo, mx = hi, q = 0;
	bool ok = true;
	if (act == ACT_RELU || act == ACT_RELU6) {
		ok = act_quantize(s_out, p->zp_out, 0.0f, &q);
		mn = q > lo ? q : lo;
	}
	if (ok && act == ACT_RELU6) {
		ok = act_quantize(s_out, p->zp_out, 6.0f, &q);
		mx = q < hi ? q : hi;
	}
	if (act == ACT_RELU_N1_TO_1) {
		ok = act_quantize(s_out, p->zp_out, -1.0f, &q);
		mn = q > lo ? q : lo;
		ok = ok && act_quantize(s_out, p->zp_out, 1.0f, &q);
		mx = q < hi ? q : hi;
	}
	if (!ok)
		return fail(inst, QCF_INVALID_PARAM,
		            "%s: a bound of the fused activation does not fit int32", op);
	p->act_min = (int32_t)mn;
	p->act_max = (int32_t)mx;

	// requantization multipliers
	const int64_t n_mult = p->per_channel ? p->units : 1;
	p->mult.resize((size_t)n_mult);
	p->expo.resize((size_t)n_mult);
	for (int64_t c = 0; c < n_mult; c++) {
		double e;
		if (p->per_channel)
			e = (double)s_in * (double)qw->scales[c] / (double)s_out;
		else // GetQuantizedConvolutionMultipler: the product in float
			e = (double)(s_in * qw->scales[0]) / (double)s_out;
		int sh = 0;
		quantize_multiplier(e, &p->mult[(size_t)c], &sh);
		p->expo[(size_t)c] = sh;
	}
	return QCF_OK;
}

// The 8-bit operand as gemmlowp's uint8 (int8 + 128, int4 unpacked and sign-extended + 128).
void to_u8(const qcf_tensor *t, int64_t n, std::vector<uint8_t> *dst)
{
	dst->resize((size_t)(n > 0 ? n : 1));
	const uint8_t *b = static_cast<const uint8_t *>(t->data);
	for (int64_t i = 0; i < n; i++) {
		int v;
		if (t->dtype == QCF_UINT8) {
			(*dst)[(size_t)i] = b[i];
			continue;
		}
		if (t->dtype == QCF_INT4) {
			int nib = (b[i / 2] >> ((i % 2) * 4)) & 0xF;
			v = nib >= 8 ? nib - 16 : nib;
		} else {
			v = static_cast<const int8_t *>(t->data)[i];
		}
		(*dst)[(size_t)i] = (uint8_t)(v + 128);
	}
}

// One GEMM: rows lhs rows (units, or 1 for one unit of a per-channel call) of the result,
// written with stride ld (the output's units) from y.
template <typename OutScalar, typename CastStage, typename ScaleStage>
void run_gemm(gemmlowp::GemmContext *ctx, const Plan &p, const uint8_t *w, const uint8_t *x,
              const int32_t *bias, OutScalar *y, int rows, int ld, const ScaleStage &scale)
{
	const int depth = (int)p.depth, batches = (int)p.batches;
	gemmlowp::MatrixMap<const uint8_t, gemmlowp::MapOrder::RowMajor> lhs(w, rows, depth);
	gemmlowp::MatrixMap<const uint8_t, gemmlowp::MapOrder::ColMajor> rhs(x, depth, batches);
	gemmlowp::MatrixMap<OutScalar, gemmlowp::MapOrder::ColMajor> res(y, rows, batches, ld);
	typedef gemmlowp::VectorMap<const int32_t, gemmlowp::VectorShape::Col> ColVector;
	gemmlowp::OutputStageBiasAddition<ColVector> bias_stage;
	bias_stage.bias_vector = ColVector(bias, rows);
	gemmlowp::OutputStageClamp clamp;
	clamp.min = p.act_min;
	clamp.max = p.act_max;
	const auto pipeline = std::make_tuple(bias_stage, scale, clamp, CastStage());
	gemmlowp::GemmWithOutputPipeline<uint8_t, OutScalar, gemmlowp::DefaultL8R8BitDepthParams>(
	        ctx, lhs, rhs, &res, -p.zp_w, -p.zp_in, pipeline);
}

// gemmlowp has a per-channel exponent stage (OutputStageScaleInt32ByFixedPointAndExponentPC)
// and an int8 cast (OutputStageSaturatingCastToInt8), but in this version only its scalar
// output path implements them: with the SSE4.1 or AVX2 register blocks, BroadcastShiftLeft,
// BroadcastRoundingDivideByPOT (simd_wrappers.h) and the int8 cast (output.h, no SSE variant)
// hit the "This path is only for scalar values" static assertion. With SIMD, per-channel
// weights run as one per-tensor GEMM per output unit (a [1, depth] lhs, the result row with
// the output's stride), each with that unit's multiplier and exponent, and int8 outputs are
// computed as uint8 with the zero point and the clamp bounds raised by 128, then lowered by
// 128 (exact: the pipeline adds the zero point after the shift, then clamps and casts).
#if defined(GEMMLOWP_SSE4) || defined(GEMMLOWP_AVX2) || defined(GEMMLOWP_NEON) ||                  \
        defined(GEMMLOWP_MSA)
#define QCF_GEMMLOWP_SCALAR_STAGES 0
#else
#define QCF_GEMMLOWP_SCALAR_STAGES 1
#endif

template <typename OutScalar, typename CastStage>
void run_fc(gemmlowp::GemmContext *ctx, const Plan &p, const uint8_t *w, const uint8_t *x,
            const int32_t *bias, OutScalar *y)
{
	const int units = (int)p.units;
	if (!p.per_channel) {
		gemmlowp::OutputStageScaleInt32ByFixedPointAndExponent s;
		s.result_fixedpoint_multiplier = p.mult[0];
		s.result_exponent = p.expo[0];
		s.result_offset_after_shift = p.zp_out;
		run_gemm<OutScalar, CastStage>(ctx, p, w, x, bias, y, units, units, s);
		return;
	}
#if QCF_GEMMLOWP_SCALAR_STAGES
	typedef gemmlowp::VectorMap<const int32_t, gemmlowp::VectorShape::Col> ColVector;
	gemmlowp::OutputStageScaleInt32ByFixedPointAndExponentPC<gemmlowp::VectorShape::Col> s;
	s.result_fixedpoint_multiplier = ColVector(p.mult.data(), units);
	s.result_exponent = ColVector(p.expo.data(), units);
	s.result_offset_after_shift = p.zp_out;
	run_gemm<OutScalar, CastStage>(ctx, p, w, x, bias, y, units, units, s);
#else
	for (int u = 0; u < units; u++) {
		gemmlowp::OutputStageScaleInt32ByFixedPointAndExponent s;
		s.result_fixedpoint_multiplier = p.mult[(size_t)u];
		s.result_exponent = p.expo[(size_t)u];
		s.result_offset_after_shift = p.zp_out;
		run_gemm<OutScalar, CastStage>(ctx, p, w + (size_t)u * (size_t)p.depth, x, bias + u,
		                               y + u, 1, units, s);
	}
#endif
}

void run_int8(gemmlowp::GemmContext *ctx, Plan *p, const uint8_t *w, const uint8_t *x,
              const int32_t *bias, void *out)
{
#if QCF_GEMMLOWP_SCALAR_STAGES
	run_fc<int8_t, gemmlowp::OutputStageSaturatingCastToInt8>(ctx, *p, w, x, bias,
	                                                          static_cast<int8_t *>(out));
#else
	p->zp_out += 128;
	p->act_min += 128;
	p->act_max += 128;
	uint8_t *y = static_cast<uint8_t *>(out);
	run_fc<uint8_t, gemmlowp::OutputStageSaturatingCastToUint8>(ctx, *p, w, x, bias, y);
	const size_t n = (size_t)(p->batches * p->units);
	for (size_t i = 0; i < n; i++)
		y[i] ^= 0x80; // v - 128 as int8
#endif
}

qcf_status g_create(const qcf_option *options, int32_t n_options, qcf_instance **out, char *msg,
                    size_t msg_size)
{
	int threads = 1;
	for (int32_t i = 0; i < n_options; i++) {
		const char *k = options[i].key, *v = options[i].value ? options[i].value : "";
		char *end = nullptr;
		long t = std::strtol(v, &end, 10);
		if (k && std::strcmp(k, "threads") == 0 && end != v && *end == 0 && t >= 1 &&
		    t <= 256) {
			threads = (int)t;
			continue;
		}
		std::snprintf(msg, msg_size,
		              "unknown option %s=%s (gemmlowp takes threads=N, 1..256; default 1)",
		              k ? k : "?", v);
		return QCF_INVALID_PARAM;
	}
	qcf_instance *inst = new (std::nothrow) qcf_instance;
	if (!inst) {
		std::snprintf(msg, msg_size, "out of memory");
		return QCF_ERROR;
	}
	inst->err[0] = 0;
	inst->ctx.set_max_num_threads(threads);
	*out = inst;
	return QCF_OK;
}

void g_destroy(qcf_instance *inst)
{
	delete inst;
}

bool is_fc(const qcf_op_call *call)
{
	return call->semantics && call->op && std::strcmp(call->semantics, "litert") == 0 &&
	       std::strcmp(call->op, "FULLY_CONNECTED") == 0;
}

qcf_status g_supports(qcf_instance *inst, const qcf_op_call *call)
{
	if (!is_fc(call))
		return fail(
		        inst, QCF_NOT_SUPPORTED,
		        "gemmlowp is a GEMM library: the adapter runs litert/FULLY_CONNECTED only");
	Plan p;
	return plan_fc(inst, call, &p);
}

qcf_status g_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	(void)prep;
	if (!is_fc(call))
		return fail(
		        inst, QCF_NOT_SUPPORTED,
		        "gemmlowp is a GEMM library: the adapter runs litert/FULLY_CONNECTED only");
	try {
		Plan p;
		qcf_status st = plan_fc(inst, call, &p);
		if (st != QCF_OK)
			return st;
		if (p.units == 0 || p.batches == 0)
			return QCF_OK;
		if (p.units > INT32_MAX || p.depth > INT32_MAX || p.batches > INT32_MAX)
			return fail(inst, QCF_NOT_SUPPORTED,
			            "FULLY_CONNECTED: dimensions beyond int32 are not supported");
		std::vector<uint8_t> w, x;
		to_u8(p.w, p.units * p.depth, &w);
		to_u8(p.in, p.batches * p.depth, &x);
		std::vector<int32_t> bias((size_t)p.units, 0);
		if (p.bias)
			std::memcpy(bias.data(), p.bias->data, bias.size() * sizeof(int32_t));
		if (p.u8)
			run_fc<uint8_t, gemmlowp::OutputStageSaturatingCastToUint8>(
			        &inst->ctx, p, w.data(), x.data(), bias.data(),
			        static_cast<uint8_t *>(p.out->data));
		else
			run_int8(&inst->ctx, &p, w.data(), x.data(), bias.data(), p.out->data);
		return QCF_OK;
	} catch (const std::bad_alloc &) {
		return fail(inst, QCF_ERROR, "out of memory");
	}
}

const char *g_last_error(qcf_instance *inst)
{
	return inst->err;
}

#ifndef QCF_GEMMLOWP_VERSION
#define QCF_GEMMLOWP_VERSION "unknown"
#endif

const qcf_plugin kPlugin = {
        sizeof(qcf_plugin),
        1,
        "gemmlowp",
        QCF_GEMMLOWP_VERSION,
        g_create,
        g_destroy,
        g_supports,
        nullptr,
        g_execute,
        nullptr,
        g_last_error,
        nullptr,   // engine: not reported
        "threads", // threads_option: GemmContext::set_max_num_threads
};

} // namespace

extern "C" QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	return qcf_negotiate_answer(n, 1, &kPlugin);
}
