// ONNX Runtime's com.microsoft quantized elementwise ops as golden specs in OUT/ort/imported/:
// QLinearAdd and QLinearMul (numpy broadcasting), QLinearLeakyRelu and QLinearSigmoid (a
// 256-entry lookup table). Definitions: onnxruntime/core/graph/contrib_ops/quantization_defs.cc
// (schemas), the CPU kernels onnxruntime/contrib_ops/cpu/quantization/qlinear_binary_op.cc,
// qlinear_activations.cc, qlinear_lookup_table.cc and MLAS (onnxruntime/core/mlas/lib/qladd.cpp,
// qlmul.cpp, logistic.cpp, quantize.cpp). Every scale and zero point is a constant scalar, as in
// the quantized models these ops come from; the specs carry them as the tensors' quant.
'use strict';

const DOMAIN = 'com.microsoft';
const RANGE = {uint8: [0, 255], int8: [-128, 127]};

function numel(shape) { return shape.reduce((a, b) => a * b, 1); }

// numpy broadcasting of two shapes
function bshape(a, b) {
	const r = Math.max(a.length, b.length), out = [];
	for (let k = 0; k < r; k++) {
		const da = a[k - (r - a.length)] ?? 1, db = b[k - (r - b.length)] ?? 1;
		if (da !== db && da !== 1 && db !== 1) throw new Error(`shapes ${a} and ${b} do not broadcast`);
		out.push(da === 1 ? db : da);
	}
	return out;
}

// the inputs of a QLinear node: X, X_scale, X_zero_point for each quantized tensor named
function qins(name, dtype, shape, values, q) {
	return [
		{name, dtype, shape, values},
		{name: `${name}_scale`, dtype: 'float32', shape: [], values: [q.scale]},
		{name: `${name}_zero_point`, dtype, shape: [], values: [q.zero_point]},
	];
}

// ---- QLinearAdd and QLinearMul -------------------------------------------------------------

async function binary(L, dir, rng, op) {
	const {f32, runNode, writeSpec} = L;
	const files = [];
	let total = 0;
	const dtypes = ['uint8', 'int8'];
	for (const T of dtypes) {
		const [lo, hi] = RANGE[T];
		const mid = T === 'int8' ? 0 : 128;
		const cases = [];
		const rnd = n => Array.from({length: n}, () => rng.int(lo, hi));
		// [name, a shape, b shape, a q, b q, c q, data kind]
		const variants = [
			['random', [2, 3, 7], [2, 3, 7], {scale: 0.05, zero_point: mid + 3}, {scale: 0.031, zero_point: mid - 5}, {scale: 0.07, zero_point: mid + 1}],
			['random_long', [77], [77], {scale: 0.0123, zero_point: lo + 17}, {scale: 0.0456, zero_point: hi - 9}, {scale: 0.05, zero_point: mid}],
			['bcast_inner', [2, 3, 5], [5], {scale: 0.02, zero_point: mid}, {scale: 0.03, zero_point: mid + 7}, {scale: 0.04, zero_point: mid - 2}],
			['bcast_scalar_b', [3, 11], [], {scale: 0.02, zero_point: mid - 1}, {scale: 0.09, zero_point: mid + 2}, {scale: 0.05, zero_point: mid + 3}],
			['bcast_scalar_a', [1], [4, 9], {scale: 0.015, zero_point: mid + 4}, {scale: 0.025, zero_point: mid}, {scale: 0.035, zero_point: mid - 6}],
			['bcast_column_a', [3, 1], [3, 13], {scale: 0.11, zero_point: mid}, {scale: 0.021, zero_point: mid - 3}, {scale: 0.1, zero_point: mid + 5}],
			['bcast_column_b', [2, 2, 17], [2, 2, 1], {scale: 0.021, zero_point: mid + 9}, {scale: 0.13, zero_point: mid}, {scale: 0.1, zero_point: mid - 1}],
			['bcast_both', [4, 1, 6], [1, 5, 6], {scale: 0.03, zero_point: mid}, {scale: 0.03, zero_point: mid}, {scale: 0.06, zero_point: mid}],
			['zero_points_extreme', [64], [64], {scale: 0.02, zero_point: lo}, {scale: 0.02, zero_point: hi}, {scale: 0.03, zero_point: lo}],
			['zero_points_extreme_c_high', [64], [64], {scale: 0.02, zero_point: hi}, {scale: 0.02, zero_point: lo}, {scale: 0.03, zero_point: hi}],
			['saturate_both_ends', [96], [96], {scale: 0.5, zero_point: mid}, {scale: 0.25, zero_point: mid}, {scale: 0.01, zero_point: mid}],
		];
		// exact ties: Add with r_a = r_b = 1/2 (half-integers), Mul with r = 1/2 and 1/4;
		// zero points odd and even, so that the tie is decided after adding zp_c
		if (op === 'QLinearAdd') {
			variants.push(['ties_half', [128], [128], {scale: 0.5, zero_point: mid}, {scale: 0.5, zero_point: mid + 1}, {scale: 1, zero_point: mid}]);
			variants.push(['ties_half_zp_odd', [128], [128], {scale: 0.5, zero_point: mid + 3}, {scale: 0.5, zero_point: mid}, {scale: 1, zero_point: mid + 1}]);
			variants.push(['ties_quarter_scalar', [128], [], {scale: 0.25, zero_point: mid}, {scale: 0.5, zero_point: mid + 1}, {scale: 1, zero_point: mid - 1}]);
			variants.push(['ties_decimal', [128], [128], {scale: 0.1, zero_point: mid}, {scale: 0.3, zero_point: mid}, {scale: 0.2, zero_point: mid + 1}]);
		} else {
			variants.push(['ties_half', [128], [128], {scale: 1, zero_point: mid}, {scale: 0.03125, zero_point: mid + 1}, {scale: 2, zero_point: mid}]);
			variants.push(['ties_quarter_zp_odd', [128], [128], {scale: 0.25, zero_point: mid + 3}, {scale: 0.0625, zero_point: mid}, {scale: 0.0625, zero_point: mid + 1}]);
			variants.push(['ties_decimal', [128], [128], {scale: 0.1, zero_point: mid}, {scale: 0.3, zero_point: mid}, {scale: 0.6, zero_point: mid + 1}]);
		}
		for (const [name, sa, sb, qa0, qb0, qc0] of variants) {
			const qa = {scale: f32(qa0.scale), zero_point: qa0.zero_point};
			const qb = {scale: f32(qb0.scale), zero_point: qb0.zero_point};
			const qc = {scale: f32(qc0.scale), zero_point: qc0.zero_point};
			const sy = bshape(sa, sb);
			let a = rnd(numel(sa)), b = rnd(numel(sb));
			if (name.startsWith('ties')) {
				// every a, paired with b near the zero point: the ties of every residue
				a = Array.from({length: numel(sa)}, (_, i) => lo + ((i * 2) % (hi - lo + 1)));
				b = Array.from({length: numel(sb)}, (_, i) => Math.min(hi, Math.max(lo, qb.zero_point + (i % 9) - 4)));
			}
			const [y] = await runNode({op, domain: DOMAIN, opset: 1,
				ins: [...qins('a', T, sa, a, qa), ...qins('b', T, sb, b, qb),
					{name: 'y_scale', dtype: 'float32', shape: [], values: [qc.scale]},
					{name: 'y_zero_point', dtype: T, shape: [], values: [qc.zero_point]}],
				outs: [{name: 'y', dtype: T, shape: sy}]});
			cases.push({name, inputs: {a: {shape: sa, quant: qa, data: a}, b: {shape: sb, quant: qb, data: b}},
				outputs: {y: {shape: sy, quant: qc}}, golden: {y},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, ${op} ${T} a ${JSON.stringify(sa)} b ${JSON.stringify(sb)}`});
		}
		const file = `qlinear_${op === 'QLinearAdd' ? 'add' : 'mul'}_${T}.yaml`;
		const c0 = cases[0];
		writeSpec(dir, {
			file, op, semantics: 'ort', domain: DOMAIN, opset: 1,
			description: `ONNX Runtime ${op}, ${T} A, B and C (per-tensor scales and zero points as the tensors' quant): ` +
				(op === 'QLinearAdd' ? 'C = round((s_a (a - zp_a) + s_b (b - zp_b)) / s_c) + zp_c' : 'C = round(s_a (a - zp_a) s_b (b - zp_b) / s_c) + zp_c') +
				', in float32 as MLAS computes it, rounded half to even and saturated; random data, numpy broadcasting (a scalar input, ' +
				'an inner, a column, both ways), zero points at the ends of the type, saturation at both ends, and exact ties of the ' +
				'rounding. Elements where MLAS\'s ISA kernels differ accept each (specs/ort/OPERATORS.md). Not part of any profile yet.',
			source: `ONNX Runtime contrib op ${op} (microsoft/onnxruntime onnxruntime/contrib_ops/cpu/quantization/qlinear_binary_op.cc, onnxruntime/core/mlas/lib/${op === 'QLinearAdd' ? 'qladd.cpp' : 'qlmul.cpp'})`,
			inputs: {a: {dtype: T, shape: c0.inputs.a.shape}, b: {dtype: T, shape: c0.inputs.b.shape}},
			outputs: {y: {dtype: T, shape: c0.outputs.y.shape}}, tolerance: 'exact', cases,
		});
		files.push(file);
		total += cases.length;
	}
	return {files, cases: total};
}

// ---- QLinearLeakyRelu and QLinearSigmoid -----------------------------------------------------

async function lookup(L, dir, rng, op) {
	const {f32, runNode, writeSpec} = L;
	const files = [];
	let total = 0;
	for (const T of ['uint8', 'int8']) {
		const [lo, hi] = RANGE[T];
		const mid = T === 'int8' ? 0 : 128;
		const cases = [];
		const all = Array.from({length: 256}, (_, i) => lo + i);
		// [name, shape, x q, y q, alpha]
		const variants = op === 'QLinearLeakyRelu' ? [
			['default_alpha', [256], {scale: 0.05, zero_point: mid}, {scale: 0.04, zero_point: mid - 10}, undefined],
			['alpha_0_1', [4, 64], {scale: 0.1, zero_point: mid + 20}, {scale: 0.1, zero_point: mid}, 0.1],
			['alpha_half_ties', [256], {scale: 1, zero_point: mid}, {scale: 1, zero_point: mid + 1}, 0.5],
			['alpha_half_ties_even', [256], {scale: 1, zero_point: mid + 1}, {scale: 1, zero_point: mid}, 0.5],
			['alpha_negative', [256], {scale: 0.02, zero_point: mid}, {scale: 0.02, zero_point: mid}, -0.25],
			['alpha_above_one', [256], {scale: 0.03, zero_point: hi}, {scale: 0.05, zero_point: lo + 30}, 1.5],
			['zero_points_extreme', [256], {scale: 0.02, zero_point: lo}, {scale: 0.01, zero_point: hi}, 0.2],
			['saturate', [256], {scale: 0.5, zero_point: mid}, {scale: 0.05, zero_point: mid}, 0.3],
			['random_shape', [3, 5, 7], {scale: 0.037, zero_point: mid - 7}, {scale: 0.029, zero_point: mid + 3}, 0.01],
		] : [
			['unit_output', [256], {scale: 0.05, zero_point: mid}, {scale: 1 / 256, zero_point: lo}, undefined],
			['wide_input', [4, 64], {scale: 0.2, zero_point: mid}, {scale: 1 / 256, zero_point: lo}, undefined],
			['narrow_input', [256], {scale: 0.01, zero_point: mid + 5}, {scale: 1 / 512, zero_point: lo + 3}, undefined],
			['beyond_clamp', [256], {scale: 0.5, zero_point: mid}, {scale: 1 / 200, zero_point: mid}, undefined],
			['zero_points_extreme', [256], {scale: 0.04, zero_point: hi}, {scale: 0.004, zero_point: lo}, undefined],
			['output_zp_high', [256], {scale: 0.04, zero_point: lo}, {scale: 0.003, zero_point: hi}, undefined],
			['decimal_scales', [256], {scale: 0.0371, zero_point: mid - 3}, {scale: 0.0029, zero_point: mid - 100}, undefined],
			['random_shape', [3, 5, 7], {scale: 0.09, zero_point: mid + 11}, {scale: 0.005, zero_point: lo + 1}, undefined],
		];
		for (const [name, shape, qx0, qy0, alpha] of variants) {
			const qx = {scale: f32(qx0.scale), zero_point: qx0.zero_point};
			const qy = {scale: f32(qy0.scale), zero_point: qy0.zero_point};
			const n = numel(shape);
			const x = n === 256 ? all.slice() : Array.from({length: n}, () => rng.int(lo, hi));
			const attrs = alpha === undefined ? {} : {alpha: f32(alpha)};
			const [y] = await runNode({op, domain: DOMAIN, opset: 1,
				ins: [...qins('x', T, shape, x, qx),
					{name: 'y_scale', dtype: 'float32', shape: [], values: [qy.scale]},
					{name: 'y_zero_point', dtype: T, shape: [], values: [qy.zero_point]}],
				outs: [{name: 'y', dtype: T, shape}], attrs});
			cases.push({name, inputs: {x: {shape, quant: qx, data: x}}, outputs: {y: {shape, quant: qy}}, attrs, golden: {y},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, ${op} ${T}${alpha === undefined ? '' : ` alpha ${f32(alpha)}`}`});
		}
		const file = `qlinear_${op === 'QLinearLeakyRelu' ? 'leaky_relu' : 'sigmoid'}_${T}.yaml`;
		writeSpec(dir, {
			file, op, semantics: 'ort', domain: DOMAIN, opset: 1,
			description: `ONNX Runtime ${op}, ${T} X and Y: a 256-entry table, entry i = quantize(f(s_x (i - zp_x))) with ` +
				(op === 'QLinearLeakyRelu' ? 'f(v) = v >= 0 ? v : alpha v (alpha default 0.01)' : 'f = MlasComputeLogistic (a rational polynomial)') +
				', quantize dividing by s_y in float32, rounding half to even, saturating; every input value, zero points at the ends ' +
				`of the type, saturation${op === 'QLinearLeakyRelu' ? ', exact ties (alpha 1/2 on unit scales), negative alpha and above 1' : ''}. ` +
				'Elements where MLAS\'s ISA kernels differ accept each (specs/ort/OPERATORS.md). Not part of any profile yet.',
			source: `ONNX Runtime contrib op ${op} (microsoft/onnxruntime onnxruntime/contrib_ops/cpu/quantization/qlinear_activations.cc, qlinear_lookup_table.cc${op === 'QLinearSigmoid' ? ', onnxruntime/core/mlas/lib/logistic.cpp' : ''})`,
			inputs: {x: {dtype: T, shape: cases[0].inputs.x.shape}},
			outputs: {y: {dtype: T, shape: cases[0].outputs.y.shape}}, tolerance: 'exact', cases,
		});
		files.push(file);
		total += cases.length;
	}
	return {files, cases: total};
}

async function generate(L, dir) {
	const ops = [];
	const seeds = {QLinearAdd: 0x514164, QLinearMul: 0x514d75, QLinearLeakyRelu: 0x514c52, QLinearSigmoid: 0x515367};
	for (const op of ['QLinearAdd', 'QLinearMul']) {
		const r = await binary(L, dir, new L.Rng(seeds[op]), op);
		ops.push({op, files: r.files.length, cases: r.cases});
	}
	for (const op of ['QLinearLeakyRelu', 'QLinearSigmoid']) {
		const r = await lookup(L, dir, new L.Rng(seeds[op]), op);
		ops.push({op, files: r.files.length, cases: r.cases});
	}
	return {ops};
}

module.exports = {generate};
