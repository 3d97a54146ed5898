// ONNX Runtime's com.microsoft quantized elementwise ops as golden specs in OUT/ort/imported/:
// QLinearAdd and QLinearMul (numpy broadcasting), QLinearLeakyRelu and QLinearSigmoid (a
// 256-entry lookup table), QLinearSoftmax (qlinear_softmax.cc: an exp table and a float32 sum)
// and QLinearWhere (qlinear_where.cc: each side requantized through a table or copied).
// Definitions: onnxruntime/core/graph/contrib_ops/quantization_defs.cc (schemas), the CPU
// kernels onnxruntime/contrib_ops/cpu/quantization/qlinear_binary_op.cc, qlinear_activations.cc,
// qlinear_lookup_table.cc and MLAS (onnxruntime/core/mlas/lib/qladd.cpp,
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

// ---- QLinearSoftmax -----------------------------------------------------------------------------

// [name, shape, x q, y q, attrs, data]: data 'all' (a row of every value), 'rand', or a list
async function softmax(L, dir, rng) {
	const {f32, runNode, writeSpec} = L;
	const op = 'QLinearSoftmax', files = [];
	let total = 0;
	for (const T of ['uint8', 'int8']) {
		const [lo, hi] = RANGE[T];
		const cases = [];
		const u = T === 'uint8';
		const variants = [
			['opset13_last_axis', [4, 16], 0.1, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13}, 'rand'],
			['opset13_axis_0', [5, 3, 4], 0.25, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13, axis: 0}, 'rand'],
			['opset13_axis_middle', [2, 7, 3], 0.05, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13, axis: -2}, 'rand'],
			['opset12_default_axis', [3, 2, 5], 0.2, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 12}, 'rand'],
			['opset12_axis_1_coerced', [3, 2, 5], 0.2, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 12, axis: 1}, 'rand'],
			['opset12_axis_0_one_row', [2, 3, 4], 0.3, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 12, axis: 0}, 'rand'],
			['every_value', [1, 256], 0.02, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13}, 'all'],
			['every_value_wide_scale', [2, 256], 0.5, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13}, 'all2'],
			['decimal_output_scale', [3, 20], 0.07, {scale: 0.003, zero_point: u ? 10 : -100}, {opset: 13}, 'rand'],
			['output_scale_1_over_255', [4, 9], 0.15, {scale: 1 / 255, zero_point: u ? 0 : -128}, {opset: 13}, 'rand'],
			['zero_point_saturates', [4, 8], 0.1, {scale: 1 / 256, zero_point: u ? 200 : 100}, {opset: 13}, 'rand'],
			['zero_point_low', [3, 8], 0.1, {scale: 1 / 128, zero_point: lo}, {opset: 13}, 'rand'],
			['uniform_rows', [3, 6], 0.1, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13}, 'const'],
			['long_rows', [2, 300], 0.03, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13}, 'rand'],
			['tiny_input_scale', [2, 10], 0.001, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13}, 'rand'],
			['large_input_scale', [2, 10], 2, {scale: 1 / 256, zero_point: u ? 0 : -128}, {opset: 13}, 'rand'],
			['output_scale_above_one', [2, 5], 0.1, {scale: 2, zero_point: u ? 7 : 7}, {opset: 13}, 'rand'],
		];
		for (const [name, shape, sx0, qy0, attrs, kind] of variants) {
			const qx = {scale: f32(sx0), zero_point: u ? 128 : 0};
			const qy = {scale: f32(qy0.scale), zero_point: qy0.zero_point};
			const n = numel(shape);
			let x;
			if (kind === 'all') x = Array.from({length: 256}, (_, i) => lo + ((i * 37) % 256));
			else if (kind === 'all2') x = Array.from({length: 512}, (_, i) => (i < 256 ? lo + i : hi - (i - 256)));
			else if (kind === 'const') x = Array.from({length: n}, (_, i) => lo + 40 * Math.floor(i / 6));
			else x = Array.from({length: n}, () => rng.int(lo, hi));
			const [y] = await runNode({op, domain: DOMAIN, opset: 1,
				ins: [...qins('x', T, shape, x, qx),
					{name: 'y_scale', dtype: 'float32', shape: [], values: [qy.scale]},
					{name: 'y_zero_point', dtype: T, shape: [], values: [qy.zero_point]}],
				outs: [{name: 'y', dtype: T, shape}], attrs});
			cases.push({name, inputs: {x: {shape, quant: qx, data: x}}, outputs: {y: {shape, quant: qy}}, attrs, golden: {y},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, ${op} ${T} ${JSON.stringify(shape)} ${JSON.stringify(attrs)}`});
		}
		const file = `qlinear_softmax_${T}.yaml`;
		writeSpec(dir, {
			file, op, semantics: 'ort', domain: DOMAIN, opset: 1,
			description: `ONNX Runtime ${op}, ${T} X and Y: a table of exp over x - max(row) built in double and stored as ` +
				'float32, the float32 sum of the row, y = nearbyintf(e * floor(1 / s_y) / sum) + zp_y, saturated; opset 12 ' +
				'(the input coerced to 2-D at axis, the schema\'s default axis -1) and 13 (one axis), every input value, ' +
				'input scales tiny to large, output scales 1/256, 1/255, decimal and above 1, zero points that saturate. ' +
				'Not part of any profile yet.',
			source: `ONNX Runtime contrib op ${op} (microsoft/onnxruntime onnxruntime/contrib_ops/cpu/quantization/qlinear_softmax.cc)`,
			inputs: {x: {dtype: T, shape: cases[0].inputs.x.shape}},
			outputs: {y: {dtype: T, shape: cases[0].outputs.y.shape}}, tolerance: 'exact', cases,
		});
		files.push(file);
		total += cases.length;
	}
	return {files, cases: total};
}

// ---- QLinearWhere -------------------------------------------------------------------------------

async function where(L, dir, rng) {
	const {f32, runNode, writeSpec} = L;
	const op = 'QLinearWhere', files = [];
	let total = 0;
	for (const T of ['uint8', 'int8']) {
		const [lo, hi] = RANGE[T];
		const mid = T === 'int8' ? 0 : 128;
		const cases = [];
		// [name, cond shape, x shape, y shape, x q, y q, z q]
		const variants = [
			['same_shapes', [2, 3, 7], [2, 3, 7], [2, 3, 7], {scale: 0.05, zero_point: mid + 3}, {scale: 0.031, zero_point: mid - 5}, {scale: 0.07, zero_point: mid + 1}],
			['copies_both', [40], [40], [40], {scale: 0.1, zero_point: mid}, {scale: 0.1, zero_point: mid}, {scale: 0.1, zero_point: mid}],
			['copy_x_table_y', [40], [40], [40], {scale: 0.1, zero_point: mid + 2}, {scale: 0.2, zero_point: mid}, {scale: 0.1, zero_point: mid + 2}],
			['same_scale_other_zero_point', [40], [40], [40], {scale: 0.1, zero_point: mid + 9}, {scale: 0.1, zero_point: mid - 9}, {scale: 0.1, zero_point: mid}],
			['bcast_condition_column', [3, 1], [3, 5], [3, 5], {scale: 0.02, zero_point: mid}, {scale: 0.03, zero_point: mid + 7}, {scale: 0.04, zero_point: mid - 2}],
			['bcast_scalar_y', [4, 6], [4, 6], [], {scale: 0.02, zero_point: mid - 1}, {scale: 0.09, zero_point: mid + 2}, {scale: 0.05, zero_point: mid + 3}],
			['bcast_scalar_condition', [], [9], [9], {scale: 0.015, zero_point: mid + 4}, {scale: 0.025, zero_point: mid}, {scale: 0.035, zero_point: mid - 6}],
			['bcast_all_three', [2, 1, 1], [1, 3, 1], [1, 1, 4], {scale: 0.03, zero_point: mid}, {scale: 0.05, zero_point: mid}, {scale: 0.04, zero_point: mid}],
			['saturate_both_ends', [96], [96], [96], {scale: 0.5, zero_point: mid}, {scale: 0.25, zero_point: mid}, {scale: 0.01, zero_point: mid}],
			['zero_points_extreme', [64], [64], [64], {scale: 0.02, zero_point: lo}, {scale: 0.02, zero_point: hi}, {scale: 0.03, zero_point: lo}],
			['ties_half', [256], [256], [256], {scale: 0.5, zero_point: mid}, {scale: 1.5, zero_point: mid + 1}, {scale: 1, zero_point: mid}],
			['every_value', [256], [256], [256], {scale: 0.0371, zero_point: mid - 3}, {scale: 0.013, zero_point: mid + 20}, {scale: 0.029, zero_point: mid + 5}],
		];
		for (const [name, sc, sx, sy, qx0, qy0, qz0] of variants) {
			const qx = {scale: f32(qx0.scale), zero_point: qx0.zero_point};
			const qy = {scale: f32(qy0.scale), zero_point: qy0.zero_point};
			const qz = {scale: f32(qz0.scale), zero_point: qz0.zero_point};
			const sz = bshape(bshape(sc, sx), sy);
			const c = Array.from({length: numel(sc)}, () => rng.int(0, 1));
			let x = Array.from({length: numel(sx)}, () => rng.int(lo, hi));
			let y = Array.from({length: numel(sy)}, () => rng.int(lo, hi));
			if (name === 'ties_half' || name === 'every_value') {
				x = Array.from({length: 256}, (_, i) => lo + i);
				y = Array.from({length: 256}, (_, i) => hi - i);
			}
			const [z] = await runNode({op, domain: DOMAIN, opset: 1,
				ins: [{name: 'condition', dtype: 'bool', shape: sc, values: c},
					...qins('x', T, sx, x, qx), ...qins('y', T, sy, y, qy),
					{name: 'z_scale', dtype: 'float32', shape: [], values: [qz.scale]},
					{name: 'z_zero_point', dtype: T, shape: [], values: [qz.zero_point]}],
				outs: [{name: 'z', dtype: T, shape: sz}]});
			cases.push({name, inputs: {condition: {shape: sc, data: c}, x: {shape: sx, quant: qx, data: x}, y: {shape: sy, quant: qy, data: y}},
				outputs: {z: {shape: sz, quant: qz}}, golden: {z},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, ${op} ${T} condition ${JSON.stringify(sc)} x ${JSON.stringify(sx)} y ${JSON.stringify(sy)}`});
		}
		const file = `qlinear_where_${T}.yaml`;
		const c0 = cases[0];
		writeSpec(dir, {
			file, op, semantics: 'ort', domain: DOMAIN, opset: 1,
			description: `ONNX Runtime ${op}, ${T} X, Y and Z, a bool condition: z = condition ? requant(x) : requant(y), each side ` +
				'through a 256-entry table (s (v - zp) in float32, MlasQuantizeLinear to Z: divide, half to even, saturate) or ' +
				'copied when its scale and zero point equal Z\'s; numpy broadcasting of the three, zero points at the ends, ' +
				'saturation, exact ties. Not part of any profile yet.',
			source: `ONNX Runtime contrib op ${op} (microsoft/onnxruntime onnxruntime/contrib_ops/cpu/quantization/qlinear_where.cc, qlinear_lookup_table.cc)`,
			inputs: {condition: {dtype: 'bool', shape: c0.inputs.condition.shape}, x: {dtype: T, shape: c0.inputs.x.shape}, y: {dtype: T, shape: c0.inputs.y.shape}},
			outputs: {z: {dtype: T, shape: c0.outputs.z.shape}}, tolerance: 'exact', cases,
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
	const sm = await softmax(L, dir, new L.Rng(0x51536d));
	ops.push({op: 'QLinearSoftmax', files: sm.files.length, cases: sm.cases});
	const wh = await where(L, dir, new L.Rng(0x515768));
	ops.push({op: 'QLinearWhere', files: wh.files.length, cases: wh.cases});
	return {ops};
}

module.exports = {generate};
