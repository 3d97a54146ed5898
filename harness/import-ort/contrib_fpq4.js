// ONNX Runtime's com.microsoft MatMulFpQ4 (import.js loads every contrib_*.js of this folder),
// as a golden spec in OUT/ort/imported/. Definitions: onnxruntime ContribOperators.md (docs
// folder), onnxruntime/contrib_ops/cpu/matmul_fpq4.cc and MLAS (onnxruntime/core/mlas/lib/
// q4common.h, q4_dq.cpp, q4gemm_avx512.cpp).
//
// The kernel runs on AVX-512 only (MlasQ4GemmPackBSize is 0 elsewhere and the op refuses with
// "Operator MatMulFpQ4 not yet supported on this hardware platform."). On such a CPU this module
// writes the committed spec again instead of failing the whole import, and says so.
'use strict';

const fs = require('fs');
const path = require('path');

const DOMAIN = 'com.microsoft';
const FILE = 'matmul_fpq4.yaml';
const BLK = 32; // MLAS_QUANT4_BLK_UNIT

// The blob of MlasQ4GemmPackB: column n, block j at (n * kb + j) * size: float32 scale, the
// zero point byte (BlkQ4Zp8), 16 bytes; value i of a block in the low nibble of byte i (i < 16)
// or the high nibble of byte i - 16.
function pack(q, scale, zp, K, N, zp8) {
	const kb = Math.ceil(K / BLK), size = 4 + (zp8 ? 1 : 0) + BLK / 2;
	const out = Buffer.alloc(N * kb * size);
	for (let n = 0; n < N; n++)
		for (let j = 0; j < kb; j++) {
			const o = (n * kb + j) * size;
			out.writeFloatLE(scale[n * kb + j], o);
			if (zp8) out[o + 4] = zp[n * kb + j];
			const d = o + 4 + (zp8 ? 1 : 0);
			for (let i = 0; i < BLK && j * BLK + i < K; i++)
				out[d + (i % 16)] |= q[(j * BLK + i) * N + n] << (i < 16 ? 0 : 4);
		}
	return Array.from(out);
}

// B[k][n] = float32((q - zp) * scale), the difference in int8 (the kernel's _mm256_sub_epi8)
function dequant(L, q, scale, zp, K, N, zp8) {
	const kb = Math.ceil(K / BLK), B = new Array(K * N);
	for (let k = 0; k < K; k++)
		for (let n = 0; n < N; n++) {
			const j = n * kb + Math.floor(k / BLK), z = zp8 ? zp[j] : 8;
			B[k * N + n] = L.f32(((((q[k * N + n] - z) & 0xff) ^ 0x80) - 0x80) * scale[j]);
		}
	return B;
}

async function generate(L, dir) {
	const {f32, runNode, writeSpec} = L;
	const rng = new L.Rng(0x4651);
	// a: A's shape (K last); exact: short binary fractions whose every partial sum is exact
	const plans = [
		{a: [2, 32], N: 4}, {a: [3, 45], N: 5}, {a: [2, 2, 96], N: 3}, {a: [17], N: 2}, {a: [1, 70], N: 6},
	];
	const cases = [];
	for (const zp8 of [0, 1])
		for (const p of plans)
			for (const kind of ['exact', 'random']) {
				const K = p.a[p.a.length - 1], N = p.N, kb = Math.ceil(K / BLK);
				const rows = p.a.reduce((x, y) => x * y, 1) / K;
				const exact = kind === 'exact';
				const q = Array.from({length: K * N}, () => rng.int(0, 15));
				const scale = Array.from({length: N * kb}, () => (exact ? rng.int(-7, 7) / 8 : f32(rng.uniform(-0.5, 0.5))));
				const zp = Array.from({length: N * kb}, () => rng.int(0, 15));
				const A = Array.from({length: rows * K}, () => (exact ? rng.int(-7, 7) / 128 : f32(rng.uniform(-1, 1))));
				cases.push({zp8, K, N, a: p.a, q, scale, zp, A, kind});
			}
	// a zero point above 15 (MLAS's packer never writes one): q - zp wraps in int8
	{
		const K = 32, N = 2, q = Array.from({length: K * N}, (_, i) => i % 16);
		cases.push({zp8: 1, K, N, a: [1, K], q, scale: [0.25, -0.5], zp: [200, 16], A: Array.from({length: K}, (_, i) => (i % 5 - 2) / 16), kind: 'zp_wraps'});
	}
	const out = [];
	for (const c of cases) {
		const {K, N, zp8} = c, kb = Math.ceil(K / BLK), blob = pack(c.q, c.scale, c.zp, K, N, zp8);
		const yshape = [...c.a.slice(0, -1), N];
		const attrs = {blk_quant_type: zp8};
		let y;
		try {
			[y] = await runNode({op: 'MatMulFpQ4', domain: DOMAIN, opset: 1, attrs,
				ins: [{name: 'A', dtype: 'float32', shape: c.a, values: c.A, feed: true},
					{name: 'B', dtype: 'uint8', shape: [blob.length], values: blob},
					{name: 'B_shape', dtype: 'int64', shape: [2], values: [K, N]}],
				outs: [{name: 'Y', dtype: 'float32', shape: yshape}]});
		} catch (e) {
			if (!/not yet supported on this hardware platform/.test(String(e && e.message))) throw e;
			const kept = path.join(__dirname, '..', '..', 'specs', 'ort', 'imported', FILE);
			process.stderr.write(`import-ort: MatMulFpQ4 needs AVX-512 (${e.message.split('\n')[0]}); ${FILE} kept as committed\n`);
			fs.mkdirSync(dir, {recursive: true});
			fs.copyFileSync(kept, path.join(dir, FILE));
			const n = (fs.readFileSync(kept, 'utf8').match(/^ {2}- name: /gm) || []).length;
			return {ops: [{op: 'MatMulFpQ4', files: 1, cases: n}]};
		}
		const B = dequant(L, c.q, c.scale, c.zp, K, N, zp8);
		let bound = 0, worst = 0;
		for (let m = 0; m < c.A.length / K; m++)
			for (let n = 0; n < N; n++) {
				let sum = 0, mag = 0;
				for (let k = 0; k < K; k++) { const t = c.A[m * K + k] * B[k * N + n]; sum += t; mag += Math.abs(t); }
				const i = m * N + n;
				if (c.kind !== 'random') {
					if (y[i] !== f32(sum)) throw new Error(`MatMulFpQ4 ${c.kind} case: ORT ${y[i]} != ${f32(sum)} (K ${K} N ${N})`);
				} else {
					bound = Math.max(bound, (K + 1) * 2 ** -24 * mag);
					worst = Math.max(worst, Math.abs(y[i] - sum));
				}
			}
		let tol = null;
		if (c.kind === 'random') {
			if (worst > bound) throw new Error(`MatMulFpQ4 random case outside its bound: ${worst} > ${bound}`);
			tol = {bound: L.fmt(f32(bound * 1.0000001)), reason: 'MLAS\'s AVX-512 kernel sums the products of A and the dequantized B in float32 with fused multiply-adds, 16 lanes then a fold: the bound is (K + 1) * 2^-24 * sum|a b| of this case\'s data'};
		}
		out.push({name: `${zp8 ? 'zp8' : 'sym'}_a${c.a.join('x')}_N${N}_${c.kind}`, attrs,
			inputs: {a: {shape: c.a, data: c.A}, b: {shape: [blob.length], data: blob}, b_shape: {shape: [2], data: [K, N]}},
			outputs: {y: {shape: yshape}}, golden: {y}, tolerance: tol,
			source: `ONNX Runtime ${L.ortPkg.version} CPU (AVX-512), MatMulFpQ4 ${zp8 ? 'BlkQ4Zp8' : 'BlkQ4Sym'} K=${K} N=${N} k_blocks=${kb}, ${c.kind} data`});
	}
	const c0 = out[0];
	writeSpec(dir, {
		file: FILE, op: 'MatMulFpQ4', semantics: 'ort', domain: DOMAIN, opset: 1, profile: ['ort-contrib-llm'],
		description: 'ONNX Runtime MatMulFpQ4: Y = A B, A float32 [..., M, K], B [K, N] (B_shape) packed by MlasQ4GemmPackB: column n, block j of 32 values along K at (n * ceil(K / 32) + j) * blob_size: a float32 scale, for BlkQ4Zp8 (blk_quant_type 1) a zero point byte, then 16 bytes holding value i in the low nibble of byte i and value i + 16 in the high nibble; B[k][n] = float32((q - zp) * scale), zp 8 for BlkQ4Sym (blk_quant_type 0). K ragged (a last block shorter than 32), batch dimensions of A, a 1-D A. \'exact\' cases use short binary fractions, whose every partial sum is exact (bit-exact whatever the summation order); \'random\' cases are bounded by a tolerance; \'zp_wraps\': zero points 200 and 16, above 15, where the kernel\'s int8 difference q - zp wraps. Run on AVX-512, the only CPU MatMulFpQ4 runs on.',
		source: 'ONNX Runtime contrib op MatMulFpQ4 (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/matmul_fpq4.cc, onnxruntime/core/mlas/lib/q4_dq.cpp, q4gemm_avx512.cpp)',
		inputs: {a: {dtype: 'float32', shape: c0.inputs.a.shape}, b: {dtype: 'uint8', shape: c0.inputs.b.shape}, b_shape: {dtype: 'int64', shape: [2]}},
		outputs: {y: {dtype: 'float32', shape: c0.outputs.y.shape}}, tolerance: 'exact', cases: out,
	});
	return {ops: [{op: 'MatMulFpQ4', files: 1, cases: out.length}]};
}

module.exports = {generate};
