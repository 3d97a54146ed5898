// ONNX Runtime's com.microsoft quantization ops used by LLM exports: MatMulNBits,
// GatherBlockQuantized and DequantizeLinear, as golden specs in OUT/ort/imported/.
// Definitions: onnxruntime ContribOperators.md (docs folder) and
// onnxruntime/core/graph/contrib_ops/contrib_defs.cc (schemas), the CPU kernels in
// onnxruntime/contrib_ops/cpu/quantization/ (matmul_nbits.cc, gather_block_quantized.cc,
// quantize_ops.cc) and MLAS (onnxruntime/core/mlas/lib/qnbitgemm*.cpp, sqnbitgemm_kernel_*.cpp).
'use strict';

const DOMAIN = 'com.microsoft';

// ---- MatMulNBits -----------------------------------------------------------------------------

// Packs q[n][k] (K columns) as ORT's B: [N, k_blocks, blob_size], element k of a block at bit
// (k * bits) % 8 of byte k * bits / 8 (low bits first); the pad of the last block is 0.
function packB(q, N, K, bits, bs) {
	const kb = Math.ceil(K / bs), blob = (bs * bits) / 8;
	const out = new Array(N * kb * blob).fill(0);
	for (let n = 0; n < N; n++)
		for (let k = 0; k < K; k++) {
			const blk = Math.floor(k / bs), i = k % bs;
			const byte = n * kb * blob + blk * blob + Math.floor((i * bits) / 8);
			out[byte] |= q[n][k] << ((i * bits) % 8);
		}
	return out;
}
// zero points [N, ceil(k_blocks * bits / 8)]: block j of row n at bit (j * bits) % 8 of byte j * bits / 8
function packZp(zp, N, kb, bits) {
	const per = Math.ceil((kb * bits) / 8);
	const out = new Array(N * per).fill(0);
	for (let n = 0; n < N; n++)
		for (let j = 0; j < kb; j++) out[n * per + Math.floor((j * bits) / 8)] |= zp[n][j] << ((j * bits) % 8);
	return out;
}

// MLAS's blockwise quantization of A for CompInt8 (QuantizeARow_CompInt8_*: scale = amax / 127,
// q = round-half-even(a * (127 / amax)), float32 throughout), modelled to compare with ORT.
function quantA(L, a, bs) {
	const {f32} = L;
	const out = [];
	for (let k0 = 0; k0 < a.length; k0 += bs) {
		const blk = a.slice(k0, k0 + bs);
		const amax = blk.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
		const scale = f32(amax / 127), inv = amax ? f32(127 / amax) : 0;
		const q = blk.map(v => {
			const x = f32(v * inv), r = Math.round(x);
			return r - x === 0.5 && r % 2 ? r - 1 : r; // half to even
		});
		out.push({scale, q});
	}
	return out;
}

// y[m][n] as two models, in double: 'fp32' (A times the dequantized B, (q - zp) * scale a
// float32 product) and 'int8' (A quantized blockwise as MLAS does, the exact integer dot per
// block, times scale_a * scale_b). Also sum|terms| of each, for the bound of a float32 sum.
function models(L, A, M, K, q, zp, scales, N, bs, bias) {
	const {f32} = L;
	const kb = Math.ceil(K / bs);
	const res = {fp32: [], int8: [], abs32: [], abs8: []};
	for (let m = 0; m < M; m++) {
		const a = A.slice(m * K, (m + 1) * K);
		const qa = quantA(L, a, bs);
		for (let n = 0; n < N; n++) {
			let s32 = 0, a32 = 0, s8 = 0, a8 = 0;
			for (let k = 0; k < K; k++) {
				const b = f32((q[n][k] - zp[n][Math.floor(k / bs)]) * scales[n * kb + Math.floor(k / bs)]);
				s32 += a[k] * b;
				a32 += Math.abs(a[k] * b);
			}
			for (let j = 0; j < kb; j++) {
				let dot = 0, dabs = 0;
				for (let i = 0; i < qa[j].q.length; i++) {
					const k = j * bs + i;
					dot += qa[j].q[i] * (q[n][k] - zp[n][j]);
					dabs += Math.abs(qa[j].q[i]) * (q[n][k] + zp[n][j]);
				}
				const s = qa[j].scale * scales[n * kb + j];
				s8 += s * dot;
				a8 += s * dabs;
			}
			const bb = bias ? bias[n] : 0;
			res.fp32.push(s32 + bb);
			res.int8.push(s8 + bb);
			res.abs32.push(a32 + Math.abs(bb));
			res.abs8.push(a8 + Math.abs(bb));
		}
	}
	return res;
}

// Data of one MatMulNBits case. kind 'exact': every value a short binary fraction, so that
// every product and every partial sum, in any order, is exact in float32 (checked below): ORT's
// result is then the exact one whatever MLAS kernel (ISA, summation order) ran, and the case is
// bit-exact. For accuracy_level 4 each block of A also holds +-127 * 2^-7, so that MLAS's int8
// quantization of A is lossless. kind 'random': uniform floats, bounded by a tolerance.
function nbitsData(rng, {M, K, N, bits, bs, zp, kind, bias}) {
	const kb = Math.ceil(K / bs), qmax = (1 << bits) - 1;
	const q = [], z = [];
	for (let n = 0; n < N; n++) {
		q.push(Array.from({length: K}, () => rng.int(0, qmax)));
		z.push(Array.from({length: kb}, () => (zp ? rng.int(0, qmax) : 1 << (bits - 1))));
	}
	let A, scales, b = null;
	if (kind === 'exact') {
		A = [];
		for (let m = 0; m < M; m++) {
			const row = Array.from({length: K}, () => rng.int(-7, 7));
			for (let j = 0; j < kb; j++) row[j * bs + rng.int(0, Math.min(bs, K - j * bs) - 1)] = rng.int(0, 1) ? 127 : -127;
			A.push(...row.map(v => v / 128));
		}
		const e = bits === 4 ? 6 : 10;
		scales = Array.from({length: N * kb}, () => rng.int(1, 7) * 2 ** -e);
		if (bias) b = Array.from({length: N}, () => rng.int(-64, 64) / 16);
	} else {
		A = Array.from({length: M * K}, () => rng.uniform(-1, 1));
		scales = Array.from({length: N * kb}, () => rng.uniform(0.002, 0.05) * (bits === 4 ? 1 : 1 / 16));
		if (bias) b = Array.from({length: N}, () => rng.uniform(-1, 1));
	}
	return {A, scales, q, z, bias: b};
}

async function matmulNBits(L, dir, rng) {
	const {f32, f16, runNode, writeSpec} = L;
	const files = [];
	const variants = [];
	for (const bits of [4, 8])
		for (const zp of [true, false]) variants.push({bits, zp, fp16: false, bias: false});
	variants.push({bits: 4, zp: false, fp16: true, bias: false});
	variants.push({bits: 4, zp: true, fp16: false, bias: true});
	variants.push({bits: 4, zp: false, fp16: false, bias: true});
	let total = 0;
	for (const v of variants) {
		const T = v.fp16 ? 'float16' : 'float32';
		const cases = [];
		const bsList = v.fp16 || v.bias ? [32, 128] : [16, 32, 64, 128, 256];
		for (const bs of bsList)
			for (const acc of [0, 4])
				for (const ragged of [false, true])
					for (const kind of ['exact', 'random']) {
						const M = kind === 'exact' ? 1 : 3, N = 3;
						const K = ragged ? 2 * bs + (bs >> 1) + 3 : 2 * bs;
						const d = nbitsData(rng, {M, K, N, bits: v.bits, bs, zp: v.zp, kind, bias: v.bias});
						let A = d.A, scales = d.scales, bias = d.bias;
						if (v.fp16) { A = A.map(f16); scales = scales.map(f16); bias = bias && bias.map(f16); } else {
							A = A.map(f32); scales = scales.map(f32); bias = bias && bias.map(f32);
						}
						const kb = Math.ceil(K / bs);
						const Bp = packB(d.q, N, K, v.bits, bs);
						const Zp = v.zp ? packZp(d.z, N, kb, v.bits) : null;
						const ins = [
							{name: 'a', dtype: T, shape: [M, K], values: A, feed: true},
							{name: 'b', dtype: 'uint8', shape: [N, kb, (bs * v.bits) / 8], values: Bp},
							{name: 'scales', dtype: T, shape: [N * kb], values: scales},
							Zp ? {name: 'zero_points', dtype: 'uint8', shape: [Zp.length], values: Zp} : null,
						];
						if (v.bias) ins.push(null, {name: 'bias', dtype: T, shape: [N], values: bias});
						const attrs = {K, N, bits: v.bits, block_size: bs, accuracy_level: acc};
						const [y] = await runNode({op: 'MatMulNBits', domain: DOMAIN, opset: 1, ins,
							outs: [{name: 'y', dtype: T, shape: [M, N]}], attrs});
						const mdl = models(L, A, M, K, d.q, d.z, scales, N, bs, bias);
						const path8 = acc === 4 ? 'int8' : 'fp32';
						const ref = mdl[path8], absum = path8 === 'int8' ? mdl.abs8 : mdl.abs32;
						let tol = null;
						if (kind === 'exact') {
							// every term a multiple of 2^-g, sum|terms| below 2^(24 - g): exact in any order
							const g = 7 + (v.bits === 4 ? 6 : 10);
							const worst = Math.max(...mdl.abs8, ...mdl.abs32);
							if (worst * 2 ** g >= 2 ** 24) throw new Error(`MatMulNBits exact case not exact: ${worst}`);
							for (let i = 0; i < y.length; i++) {
								const want = v.fp16 ? f16(ref[i]) : f32(ref[i]);
								if (y[i] !== want) throw new Error(`MatMulNBits exact case: ORT ${y[i]} != ${want} (bits ${v.bits} bs ${bs} acc ${acc})`);
							}
						} else {
							// a float32 sum of the terms in any order: |error| <= (terms + 2) u sum|terms|
							// (u = 2^-24), plus the output's own rounding (float16: 2^-11 |y|)
							const terms = path8 === 'int8' ? 2 * kb + 2 : K + 2;
							let bound = 0, worstErr = 0;
							for (let i = 0; i < y.length; i++) {
								let b = terms * 2 ** -24 * absum[i];
								if (v.fp16) b += 2 ** -11 * Math.abs(ref[i]);
								bound = Math.max(bound, b);
								worstErr = Math.max(worstErr, Math.abs(y[i] - ref[i]));
							}
							if (worstErr > bound) throw new Error(`MatMulNBits random case outside its bound: ${worstErr} > ${bound} (bits ${v.bits} bs ${bs} acc ${acc})`);
							L.stats.push({op: 'MatMulNBits', bits: v.bits, bs, acc, fp16: v.fp16, K, err: worstErr, bound, e32: Math.max(...y.map((t, i) => Math.abs(t - mdl.fp32[i]))), e8: Math.max(...y.map((t, i) => Math.abs(t - mdl.int8[i])))});
							tol = {bound: L.fmt(f32(bound * 1.0000001)), reason: `MLAS sums ${path8 === 'int8' ? 'the per-block products scale_a * scale_b * dot' : 'the products of A and the dequantized B'} in float32 in an order that depends on the kernel (ISA, block loop): the bound is (${path8 === 'int8' ? '2 k_blocks' : 'K'} + 2) * 2^-24 * sum|terms|${v.fp16 ? ' plus the float16 rounding of Y' : ''}, of this case's data`};
						}
						const name = `bs${bs}_acc${acc}_K${K}_${kind}`;
						const inputs = {
							a: {shape: [M, K], data: A},
							b: {shape: [N, kb, (bs * v.bits) / 8], data: Bp},
							scales: {shape: [N * kb], data: scales},
						};
						if (Zp) inputs.zero_points = {shape: [Zp.length], data: Zp};
						if (v.bias) inputs.bias = {shape: [N], data: bias};
						cases.push({name, inputs, outputs: {y: {shape: [M, N]}}, attrs, golden: {y}, tolerance: tol,
							source: `ONNX Runtime ${L.ortPkg.version} CPU, MatMulNBits K=${K} N=${N} bits=${v.bits} block_size=${bs} accuracy_level=${acc}, ${kind} data`});
					}
		const file = `matmul_nbits_${v.bits}bit${v.zp ? '_zp' : ''}${v.bias ? '_bias' : ''}${v.fp16 ? '_fp16' : ''}.yaml`;
		const c0 = cases[0];
		const inputs = {a: {dtype: T, shape: c0.inputs.a.shape}, b: {dtype: 'uint8', shape: c0.inputs.b.shape},
			scales: {dtype: T, shape: c0.inputs.scales.shape}};
		if (v.zp) inputs.zero_points = {dtype: 'uint8', shape: c0.inputs.zero_points.shape};
		if (v.bias) inputs.bias = {dtype: T, shape: c0.inputs.bias.shape};
		writeSpec(dir, {
			file, op: 'MatMulNBits', semantics: 'ort', domain: DOMAIN, opset: 1, profile: ['ort-contrib-llm'],
			description: `ONNX Runtime MatMulNBits, ${v.bits}-bit B ${v.zp ? 'with zero points' : `without zero points (the default ${1 << (v.bits - 1)}`})${v.bias ? ', with bias' : ''}, ${T} A: Y = A B^T${v.bias ? ' + bias' : ''}, B[n][k] = (q[n][k] - zp[n][k / block_size]) * scales[n][k / block_size]; block sizes ${bsList.join(', ')}, K a multiple of the block and not, accuracy_level 0 (float32 compute) and 4 (A quantized to int8 blockwise). 'exact' cases use short binary fractions whose every partial sum is exact (bit-exact whatever the summation order); 'random' cases are bounded by a tolerance.`,
			source: 'ONNX Runtime contrib op MatMulNBits (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/matmul_nbits.cc)',
			inputs, outputs: {y: {dtype: T, shape: c0.outputs.y.shape}}, tolerance: 'exact', cases,
		});
		files.push(file);
		total += cases.length;
	}
	return {files, cases: total};
}

// ---- GatherBlockQuantized -------------------------------------------------------------------

async function gatherBlockQuantized(L, dir, rng) {
	const {f32, f16, runNode, writeSpec} = L;
	const files = [];
	let total = 0;
	// data types: uint8 holding packed 4-bit (bits 4) or 8-bit values (default zero point
	// 2^(bits - 1)); int4 and uint4 (default zero point 0)
	const variants = [
		{dt: 'uint8', bits: 4, zp: false}, {dt: 'uint8', bits: 4, zp: true},
		{dt: 'uint8', bits: 8, zp: false}, {dt: 'uint8', bits: 8, zp: true},
		{dt: 'int4', bits: 4, zp: false}, {dt: 'int4', bits: 4, zp: true},
		{dt: 'uint4', bits: 4, zp: false}, {dt: 'uint4', bits: 4, zp: true},
	];
	for (const v of variants) {
		const cases = [];
		for (const T of ['float32', 'float16'])
			for (const bs of [16, 32, 64])
				for (const idxT of ['int32', 'int64']) {
					if (idxT === 'int64' && bs !== 32) continue;
					const rows = 5, cols = 2 * bs + (v.dt === 'uint8' ? 0 : bs / 2); // logical columns
					const comps = v.dt === 'uint8' ? 8 / v.bits : 1;
					const kb = Math.ceil(cols / bs);
					const lo = v.dt === 'int4' ? -8 : 0, hi = v.dt === 'int4' ? 7 : (1 << v.bits) - 1;
					const q = Array.from({length: rows * cols}, () => rng.int(lo, hi));
					const zps = Array.from({length: rows * kb}, () => rng.int(lo, hi));
					let scales = Array.from({length: rows * kb}, () => rng.uniform(0.01, 0.2));
					scales = T === 'float16' ? scales.map(f16) : scales.map(f32);
					const indices = [3, 0, -1, 3, 1];
					let dataVals, dataShape, zpVals = null, zpShape = null;
					if (v.dt === 'uint8') {
						dataShape = [rows, cols / comps];
						dataVals = new Array(rows * cols / comps).fill(0);
						q.forEach((x, i) => { dataVals[Math.floor(i / comps)] |= x << (v.bits * (i % comps)); });
						if (v.zp) {
							const per = Math.ceil(kb / comps);
							zpShape = [rows, per];
							zpVals = new Array(rows * per).fill(0);
							for (let r = 0; r < rows; r++)
								for (let j = 0; j < kb; j++) zpVals[r * per + Math.floor(j / comps)] |= zps[r * kb + j] << (v.bits * (j % comps));
						}
					} else {
						dataShape = [rows, cols];
						dataVals = q;
						if (v.zp) { zpShape = [rows, kb]; zpVals = zps; }
					}
					const ins = [
						{name: 'data', dtype: v.dt, shape: dataShape, values: dataVals},
						{name: 'indices', dtype: idxT, shape: [indices.length], values: indices},
						{name: 'scales', dtype: T, shape: [rows, kb], values: scales},
					];
					if (v.zp) ins.push({name: 'zero_points', dtype: v.dt, shape: zpShape, values: zpVals});
					const attrs = {gather_axis: 0, quantize_axis: 1, block_size: bs};
					if (v.dt === 'uint8') attrs.bits = v.bits;
					const outShape = [indices.length, cols];
					const [y] = await runNode({op: 'GatherBlockQuantized', domain: DOMAIN, opset: 1, ins,
						outs: [{name: 'y', dtype: T, shape: outShape}], attrs});
					// check against the definition: (q - zp) * scale in float32, then T
					const dz = v.dt === 'uint8' ? 1 << (v.bits - 1) : 0;
					indices.forEach((ix, o) => {
						const r = ix < 0 ? ix + rows : ix;
						for (let c = 0; c < cols; c++) {
							const j = Math.floor(c / bs);
							const z = v.zp ? zps[r * kb + j] : dz;
							let want = f32((q[r * cols + c] - z) * scales[r * kb + j]);
							if (T === 'float16') want = f16(want);
							if (y[o * cols + c] !== want && !(want === 0 && y[o * cols + c] === 0))
								throw new Error(`GatherBlockQuantized: ORT ${y[o * cols + c]} != ${want}`);
						}
					});
					const inputs = {data: {shape: dataShape, data: dataVals}, indices: {shape: [indices.length], data: indices},
						scales: {shape: [rows, kb], data: scales}};
					if (v.zp) inputs.zero_points = {shape: zpShape, data: zpVals};
					cases.push({name: `${T}_bs${bs}_${idxT}`, inputs, outputs: {y: {shape: outShape}}, attrs, golden: {y},
						source: `ONNX Runtime ${L.ortPkg.version} CPU, GatherBlockQuantized ${v.dt}${v.dt === 'uint8' ? ` bits=${v.bits}` : ''} block_size=${bs} scales ${T} indices ${idxT}`});
				}
		// the spec's tensors take the first case's dtypes; the float16 and int64 cases are in
		// their own files, as a case cannot change a dtype
		const groups = {};
		for (const c of cases) {
			const key = `${c.name.split('_')[0]}_${c.name.split('_')[2]}`;
			(groups[key] = groups[key] || []).push(c);
		}
		for (const [key, cs] of Object.entries(groups)) {
			const [T, idxT] = key.split('_');
			const file = `gather_block_quantized_${v.dt}${v.dt === 'uint8' ? `_${v.bits}bit` : ''}${v.zp ? '_zp' : ''}_${T}_${idxT}.yaml`;
			const c0 = cs[0];
			const inputs = {data: {dtype: v.dt, shape: c0.inputs.data.shape}, indices: {dtype: idxT, shape: c0.inputs.indices.shape},
				scales: {dtype: T, shape: c0.inputs.scales.shape}};
			if (v.zp) inputs.zero_points = {dtype: v.dt, shape: c0.inputs.zero_points.shape};
			writeSpec(dir, {
				file, op: 'GatherBlockQuantized', semantics: 'ort', domain: DOMAIN, opset: 1, profile: ['ort-contrib-llm'],
				description: `ONNX Runtime GatherBlockQuantized, ${v.dt} data${v.dt === 'uint8' ? ` packing ${v.bits}-bit values` : ''}, ${v.zp ? 'with zero points' : `without zero points (default ${v.dt === 'uint8' ? 1 << (v.bits - 1) : 0})`}, ${T} scales, ${idxT} indices (one negative): Y = Gather(data, indices, gather_axis) dequantized as T((q - zp) * scale), the product in float32, block_size along quantize_axis.`,
				source: 'ONNX Runtime contrib op GatherBlockQuantized (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/gather_block_quantized.cc)',
				inputs, outputs: {y: {dtype: T, shape: c0.outputs.y.shape}}, tolerance: 'exact', cases: cs,
			});
			files.push(file);
			total += cs.length;
		}
	}
	return {files, cases: total};
}

// ---- com.microsoft DequantizeLinear ----------------------------------------------------------

async function dequantizeLinear(L, dir, rng) {
	const {f32, runNode, writeSpec} = L;
	const files = [];
	let total = 0;
	for (const dt of ['int8', 'uint8', 'int16', 'uint16']) {
		const [lo, hi] = {int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535]}[dt];
		const cases = [];
		for (const mode of ['tensor', 'axis0', 'axis1', 'axis_default']) {
			const shape = [3, 4, 5];
			const n = 60;
			const x = Array.from({length: n}, (_, i) => (i < 2 ? [lo, hi][i] : rng.int(lo, hi)));
			const axis = mode === 'axis0' ? 0 : mode === 'tensor' ? null : 1;
			const cnt = axis === null ? 1 : shape[axis];
			const scales = Array.from({length: cnt}, () => f32(rng.uniform(0.001, 0.5)));
			const zps = Array.from({length: cnt}, () => rng.int(lo, hi));
			const attrs = mode === 'axis0' ? {axis: 0} : mode === 'axis1' ? {axis: 1} : {};
			const ins = [
				{name: 'x', dtype: dt, shape, values: x},
				{name: 'x_scale', dtype: 'float32', shape: axis === null ? [] : [cnt], values: scales},
				{name: 'x_zero_point', dtype: dt, shape: axis === null ? [] : [cnt], values: zps},
			];
			const [y] = await runNode({op: 'DequantizeLinear', domain: DOMAIN, opset: 1, ins,
				outs: [{name: 'y', dtype: 'float32', shape}], attrs});
			const inner = axis === null ? 1 : shape.slice(axis + 1).reduce((a, b) => a * b, 1);
			x.forEach((xv, i) => {
				const c = axis === null ? 0 : Math.floor(i / inner) % cnt;
				const want = f32(f32(xv - zps[c]) * scales[c]);
				if (y[i] !== want) throw new Error(`contrib DequantizeLinear: ORT ${y[i]} != ${want}`);
			});
			const quant = axis === null ? {scale: scales[0], zero_point: zps[0]} : {axis, scales, zero_points: zps};
			cases.push({name: mode, inputs: {x: {shape, quant, data: x}}, outputs: {y: {shape}},
				attrs: mode === 'axis_default' ? {} : attrs, golden: {y},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, com.microsoft DequantizeLinear ${dt} ${mode === 'tensor' ? 'per tensor' : `per axis ${axis}${mode === 'axis_default' ? ' (the default axis, attribute absent)' : ''}`}`});
		}
		const file = `dequantize_linear_${dt}.yaml`;
		writeSpec(dir, {
			file, op: 'DequantizeLinear', semantics: 'ort', domain: DOMAIN, opset: 1, profile: ['ort-contrib-llm'],
			description: `ONNX Runtime com.microsoft DequantizeLinear, ${dt} input: y = (x - x_zero_point) * x_scale in float32, per tensor or along axis (default 1); the scale and zero point travel as the input's quant.`,
			source: 'ONNX Runtime contrib op DequantizeLinear (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/quantize_ops.cc, onnxruntime/core/providers/cpu/quantization/quantize_linear.cc)',
			inputs: {x: {dtype: dt, shape: [3, 4, 5]}}, outputs: {y: {dtype: 'float32', shape: [3, 4, 5]}},
			tolerance: 'exact', cases,
		});
		files.push(file);
		total += cases.length;
	}
	return {files, cases: total};
}

// Writes the specs of the three ops into dir (import.js empties it first and writes its
// README from what every module returns).
async function generate(L, dir) {
	L.stats = [];
	const r1 = await matmulNBits(L, dir, new L.Rng(0x4e42));
	const r2 = await gatherBlockQuantized(L, dir, new L.Rng(0x4742));
	const r3 = await dequantizeLinear(L, dir, new L.Rng(0x4451));
	L.contribSummary = {MatMulNBits: r1, GatherBlockQuantized: r2, DequantizeLinear: r3};
	if (process.env.QC_IMPORT_ORT_STATS)
		for (const s of L.stats) process.stderr.write(`${JSON.stringify(s)}\n`);
	return {ops: [{op: 'MatMulNBits', files: r1.files.length, cases: r1.cases},
		{op: 'GatherBlockQuantized', files: r2.files.length, cases: r2.cases},
		{op: 'DequantizeLinear', files: r3.files.length, cases: r3.cases}]};
}

module.exports = {generate};
