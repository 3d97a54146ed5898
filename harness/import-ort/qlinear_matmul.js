// ONNX Runtime's com.microsoft quantized matrix products as golden specs in OUT/ort/imported/:
// QGemm, MatMulIntegerToFloat, DynamicQuantizeMatMul, MatMulBnb4 and MatMulInteger16 (import.js loads every
// qlinear_*.js of this folder). Schemas: onnxruntime/core/graph/contrib_ops/quantization_defs.cc;
// kernels: onnxruntime/contrib_ops/cpu/quantization/quant_gemm.cc, dynamic_quantize_matmul.cc,
// matmul_bnb4.cc, onnxruntime/contrib_ops/cpu/matmul_integer16.cc, and MLAS (onnxruntime/core/mlas/lib/qgemm.cpp, qpostprocessor.cpp,
// quantize.cpp). The arithmetic: specs/ort/OPERATORS.md and reference/ort_qmatmul.c.
'use strict';

const DOMAIN = 'com.microsoft';
const SRC = 'ONNX Runtime contrib op %s (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/%s)';

const RANGE = {uint8: [0, 255], int8: [-128, 127]};
const short = t => ({uint8: 'u8', int8: 's8', float32: 'f32'}[t]);

// Random integers of a type; uint8 A times int8 B keeps B in [-64, 63]: MLAS's AVX2 U8S8 kernel
// without VNNI sums pairs of products in int16 with saturation (vpmaddubsw), so a pair above
// 32767 would make ORT's answer depend on the CPU; below it every ISA gives the exact sum.
function ints(rng, n, t, narrow) {
	const [lo, hi] = narrow ? [-64, 63] : RANGE[t];
	return Array.from({length: n}, () => rng.int(lo, hi));
}

// A quant record of a tensor: per tensor, or per column along axis (one per output column).
function quant(scales, zps, axis) {
	return axis === null ? {scale: scales[0], zero_point: zps[0]} : {axis, scales, zero_points: zps};
}

// ---- QGemm -------------------------------------------------------------------------------------

// The exact model (reference/ort_qmatmul.c): acc = sum (a - za)(b - zb[n]) + C, scale[n] =
// f32(f32(alpha * sa) * sb[n]) (/ sy), y = f32(acc * scale) or saturate(rne(f32(acc * scale)) + zy).
function qgemmModel(L, g) {
	const {f32} = L;
	const out = [];
	for (let m = 0; m < g.M; m++)
		for (let n = 0; n < g.N; n++) {
			let acc = 0;
			for (let k = 0; k < g.K; k++) {
				const a = g.A[g.transA ? k * g.M + m : m * g.K + k];
				const b = g.B[g.transB ? n * g.K + k : k * g.N + n];
				acc += (a - g.za) * (b - g.zb[g.zb.length > 1 ? n : 0]);
			}
			if (g.C) acc += g.C[(g.cm > 1 ? m : 0) * g.cn + (g.cn > 1 ? n : 0)];
			let s = f32(f32(f32(g.alpha) * g.sa) * g.sb[g.sb.length > 1 ? n : 0]);
			if (g.yq) {
				s = f32(s / g.sy);
				const v = f32(acc * s);
				let r = Math.round(v);
				if (r - v === 0.5 && r % 2) r -= 1; // half to even
				const [lo, hi] = RANGE[g.yt];
				out.push(Math.min(hi, Math.max(lo, r + g.zy)));
			} else out.push(f32(acc * s));
		}
	return out;
}

async function qgemm(L, dir, rng) {
	const {f32, runNode, writeSpec} = L;
	const files = [];
	let total = 0;
	const variants = [];
	for (const [at, bt] of [['uint8', 'uint8'], ['uint8', 'int8'], ['int8', 'int8']])
		for (const yq of [false, true]) variants.push({at, bt, yq, c: true});
	variants.push({at: 'uint8', bt: 'int8', yq: true, c: false});
	variants.push({at: 'int8', bt: 'int8', yq: false, c: false});
	for (const v of variants) {
		const yt = v.yq ? v.at : 'float32';
		const narrow = v.at === 'uint8' && v.bt === 'int8';
		const cases = [];
		const plans = [];
		for (const transA of [0, 1])
			for (const transB of [0, 1])
				for (const perCol of [false, true]) plans.push({kind: 'random', transA, transB, perCol, alpha: 1});
		plans.push({kind: 'random', transA: 0, transB: 1, perCol: true, alpha: 0.75, M: 5, K: 33, N: 17});
		plans.push({kind: 'random', transA: 1, transB: 0, perCol: false, alpha: -1.5});
		plans.push({kind: 'zp_extremes', transA: 0, transB: 0, perCol: true, alpha: 1});
		if (v.yq) {
			plans.push({kind: 'ties', transA: 0, transB: 0, perCol: false, alpha: 1});
			plans.push({kind: 'ties', transA: 0, transB: 1, perCol: true, alpha: 2});
			plans.push({kind: 'saturate', transA: 0, transB: 0, perCol: false, alpha: 1});
		} else {
			plans.push({kind: 'exact_scale', transA: 0, transB: 0, perCol: true, alpha: 0.5});
		}
		const cShapes = v.c ? [[3], [2, 3], [2, 1], [1, 3], [1], []] : [null];
		plans.forEach((p, pi) => {
			const M = p.M || 2 + (pi % 3), K = p.K !== undefined ? p.K : 5 + pi, N = p.N || 3 + (pi % 4);
			let cShape = cShapes[pi % cShapes.length];
			if (cShape) cShape = cShape.map((d, i) => (d === 1 ? 1 : cShape.length === 2 ? [M, N][i] : N));
			const A = ints(rng, M * K, v.at, false), B = ints(rng, K * N, v.bt, narrow);
			const [alo, ahi] = RANGE[v.at], [blo, bhi] = narrow ? [-64, 63] : RANGE[v.bt];
			let za = rng.int(alo, ahi), zb = Array.from({length: p.perCol ? N : 1}, () => rng.int(blo, bhi));
			let sa = f32(rng.uniform(0.002, 0.05)), sb = zb.map(() => f32(rng.uniform(0.002, 0.05)));
			let sy = f32(rng.uniform(0.05, 0.5)), zy = rng.int(...RANGE[yt === 'float32' ? 'uint8' : yt]);
			if (p.kind === 'zp_extremes') {
				za = pi % 2 ? alo : ahi;
				zb = zb.map((_, i) => (i % 2 ? blo : bhi));
				zy = RANGE[yt === 'float32' ? 'uint8' : yt][pi % 2];
			} else if (p.kind === 'ties') {
				// alpha * sa * sb / sy = 1/2 or 1/4 exactly: every odd (or 2 mod 4) acc is a tie
				sa = 0.5; sb = sb.map((_, i) => (i % 2 || p.alpha === 2 ? 0.25 : 0.5)); sy = 0.5;
				zy = v.at === 'uint8' ? 128 : 0;
				// operands within 3 of their zero points: small accumulators, many of them ties
				A.forEach((_, i) => { A[i] = Math.min(ahi, Math.max(alo, za + rng.int(-3, 3))); });
				B.forEach((_, i) => { const z = zb[zb.length > 1 ? (p.transB ? Math.floor(i / K) : i % N) : 0]; B[i] = Math.min(bhi, Math.max(blo, z + rng.int(-3, 3))); });
			} else if (p.kind === 'saturate') {
				zy = v.at === 'uint8' ? 100 : -20;
			} else if (p.kind === 'exact_scale') {
				sa = 0.125; sb = sb.map((_, i) => 2 ** -(i % 5));
			}
			const C0 = cShape ? Array.from({length: cShape.reduce((x, y) => x * y, 1)}, () => (p.kind === 'ties' ? rng.int(-3, 3) : rng.int(-4000, 4000))) : null;
			const C = C0;
			if (v.yq && p.kind !== 'ties') {
				// y_scale from the data: outputs spread over the range (saturate: 4 times past it)
				const real = qgemmModel(L, {M, K, N, A, B, C, cm: cShape && cShape.length === 2 ? cShape[0] : 1,
					cn: cShape && cShape.length ? cShape[cShape.length - 1] : 1, transA: p.transA, transB: p.transB,
					za, zb, sa, sb, alpha: p.alpha, yq: false});
				const amax = Math.max(...real.map(Math.abs));
				sy = f32(amax / (p.kind === 'saturate' ? 400 : 110) || 1);
			}
			const aShape = p.transA ? [K, M] : [M, K], bShape = p.transB ? [N, K] : [K, N];
			const ins = [
				{name: 'A', dtype: v.at, shape: aShape, values: A},
				{name: 'a_scale', dtype: 'float32', shape: [], values: [sa]},
				{name: 'a_zero_point', dtype: v.at, shape: [], values: [za]},
				{name: 'B', dtype: v.bt, shape: bShape, values: B},
				{name: 'b_scale', dtype: 'float32', shape: p.perCol ? [N] : [], values: sb},
				{name: 'b_zero_point', dtype: v.bt, shape: p.perCol ? [N] : [], values: zb},
				C ? {name: 'C', dtype: 'int32', shape: cShape, values: C} : null,
			];
			if (v.yq) ins.push({name: 'y_scale', dtype: 'float32', shape: [], values: [sy]},
				{name: 'y_zero_point', dtype: yt, shape: [], values: [zy]});
			const attrs = {transA: p.transA, transB: p.transB, alpha: p.alpha};
			cases.push({p, M, K, N, A, B, C, cShape, za, zb, sa, sb, sy, zy, ins, attrs, aShape, bShape});
		});
		for (const cs of cases) {
			const {p, M, K, N} = cs;
			const [y] = await runNode({op: 'QGemm', domain: DOMAIN, opset: 1, ins: cs.ins,
				outs: [{name: 'Y', dtype: yt, shape: [M, N]}], attrs: {...cs.attrs, alpha: {float: p.alpha}}});
			const want = qgemmModel(L, {M, K, N, A: cs.A, B: cs.B, C: cs.C, cm: cs.cShape && cs.cShape.length === 2 ? cs.cShape[0] : 1,
				cn: cs.cShape && cs.cShape.length ? cs.cShape[cs.cShape.length - 1] : 1, transA: p.transA, transB: p.transB,
				za: cs.za, zb: cs.zb, sa: cs.sa, sb: cs.sb, sy: cs.sy, zy: cs.zy, alpha: p.alpha, yq: v.yq, yt});
			y.forEach((val, i) => {
				if (val !== want[i]) throw new Error(`QGemm ${v.at}/${v.bt} ${p.kind}: ORT ${val} != model ${want[i]} at ${i}`);
			});
			const bAxis = p.transB ? 0 : 1;
			const inputs = {
				a: {shape: cs.aShape, quant: quant([cs.sa], [cs.za], null), data: cs.A},
				b: {shape: cs.bShape, quant: quant(cs.sb, cs.zb, p.perCol ? bAxis : null), data: cs.B},
			};
			if (cs.C) inputs.c = {shape: cs.cShape, data: cs.C};
			const outputs = {y: v.yq ? {shape: [M, N], quant: quant([cs.sy], [cs.zy], null)} : {shape: [M, N]}};
			cs.spec = {name: `${p.kind}_t${p.transA}${p.transB}_${p.perCol ? 'percol' : 'pertensor'}${cs.C ? `_c${cs.cShape.join('x') || 'scalar'}` : ''}${p.alpha !== 1 ? `_alpha${String(p.alpha).replace('.', 'p').replace('-', 'm')}` : ''}_${M}x${K}x${N}`,
				inputs, outputs, attrs: cs.attrs, golden: {y},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, QGemm A ${v.at} B ${v.bt} Y ${yt}, ${p.kind} data, transA=${p.transA} transB=${p.transB} alpha=${p.alpha}, b ${p.perCol ? 'per column' : 'per tensor'}${cs.C ? `, C [${cs.cShape.join(', ')}]` : ''}`};
		}
		const file = `qgemm_${short(v.at)}${short(v.bt)}_${v.yq ? 'quant' : 'float'}${v.c ? '_c' : ''}.yaml`;
		const inputs = {a: {dtype: v.at, shape: cases[0].aShape}, b: {dtype: v.bt, shape: cases[0].bShape}};
		if (v.c) inputs.c = {dtype: 'int32', shape: cases[0].cShape};
		writeSpec(dir, {
			file, op: 'QGemm', semantics: 'ort', domain: DOMAIN, opset: 1,
			description: `ONNX Runtime QGemm, A ${v.at}, B ${v.bt}${v.c ? ', int32 C (broadcast)' : ''}, ${v.yq ? `Y ${yt} (y_scale, y_zero_point)` : 'Y float32'}: acc = sum_k (a - a_zp)(b - b_zp[n])${v.c ? ' + C' : ''} in int32, scale[n] = alpha * a_scale * b_scale[n]${v.yq ? ' / y_scale' : ''} in float32, ${v.yq ? 'y = saturate(round half to even(float32(acc * scale)) + y_zp) (MlasRequantizeOutput)' : 'y = float32(acc * scale)'}. transA / transB, alpha, b per tensor and per column, zero points at the extremes${v.yq ? ', exact ties and saturation at both ends' : ''}.${narrow ? ' B stays in [-64, 63] (MLAS AVX2 U8S8 without VNNI saturates pairs of products).' : ''} Not part of any profile yet.`,
			source: SRC.replace('%s', 'QGemm').replace('%s', 'quant_gemm.cc'),
			inputs, outputs: {y: {dtype: yt, shape: [cases[0].M, cases[0].N]}}, tolerance: 'exact',
			cases: cases.map(c => c.spec),
		});
		files.push(file);
		total += cases.length;
	}
	return {files, cases: total};
}

// ---- MatMulIntegerToFloat, DynamicQuantizeMatMul -----------------------------------------------

const rne = v => { const r = Math.round(v); return r - v === 0.5 && r % 2 ? r - 1 : r; };

// DynamicQuantizeLinear / ORT's GetQuantizationParameter + MlasQuantizeLinear, float32 throughout
function dynQuant(L, x) {
	const {f32} = L;
	let mx = 0, mn = 0;
	for (const v of x) { mx = Math.max(mx, v); mn = Math.min(mn, v); }
	const scale = mx === mn ? 1 : f32(f32(mx - mn) / 255);
	const zp = rne(Math.min(255, Math.max(0, f32(0 - f32(mn / scale)))));
	return {scale, zp, q: x.map(v => Math.min(255, Math.max(0, rne(f32(v / scale)) + zp)))};
}

// y = f32(f32(float(acc) * f32(sa * sb[n])) + bias[n])
function i2fModel(L, {rows, K, N, qa, za, sa, B, zb, sb, bias}) {
	const {f32} = L;
	const out = [];
	for (let m = 0; m < rows; m++)
		for (let n = 0; n < N; n++) {
			let acc = 0;
			for (let k = 0; k < K; k++) acc += (qa[m * K + k] - za) * (B[k * N + n] - zb[zb.length > 1 ? n : 0]);
			let v = f32(f32(acc) * f32(sa * sb[sb.length > 1 ? n : 0]));
			if (bias) v = f32(v + bias[n]);
			out.push(v);
		}
	return out;
}

async function i2f(L, dir, rng, dynamic) {
	const {f32, runNode, writeSpec} = L;
	const op = dynamic ? 'DynamicQuantizeMatMul' : 'MatMulIntegerToFloat';
	const files = [];
	let total = 0;
	for (const bt of ['uint8', 'int8'])
		for (const hasBias of [false, true]) {
			const narrow = bt === 'int8';
			const plans = [];
			for (const aShape of [[3, 17], [2, 3, 9], [40], [1, 200]])
				for (const perCol of [false, true]) plans.push({kind: 'random', aShape, perCol, zp: 'random'});
			plans.push({kind: 'random', aShape: [4, 33], perCol: true, zp: 'absent'});
			plans.push({kind: 'random', aShape: [4, 33], perCol: true, zp: 'extreme'});
			if (dynamic) {
				plans.push({kind: 'positive', aShape: [3, 8], perCol: false, zp: 'random'});
				plans.push({kind: 'negative', aShape: [3, 8], perCol: false, zp: 'random'});
				plans.push({kind: 'zeros', aShape: [2, 5], perCol: false, zp: 'random'});
				plans.push({kind: 'ties', aShape: [4, 16], perCol: true, zp: 'random'});
			}
			const cases = [];
			for (const p of plans) {
				const K = p.aShape[p.aShape.length - 1], N = 1 + rng.int(1, 6), rows = p.aShape.slice(0, -1).reduce((x, y) => x * y, 1);
				const [blo, bhi] = narrow ? [-64, 63] : RANGE[bt];
				const B = ints(rng, K * N, bt, narrow);
				let zb = Array.from({length: p.perCol ? N : 1}, () => rng.int(blo, bhi));
				if (p.zp === 'absent') zb = zb.map(() => 0);
				if (p.zp === 'extreme') zb = zb.map((_, i) => (i % 2 ? RANGE[bt][0] : RANGE[bt][1]));
				const sb = zb.map(() => f32(rng.uniform(0.001, 0.03)));
				const bias = hasBias ? Array.from({length: N}, () => f32(rng.uniform(-2, 2))) : null;
				const n = rows * K;
				let A, qa, za, sa;
				if (dynamic) {
					if (p.kind === 'positive') A = Array.from({length: n}, () => f32(rng.uniform(0, 3)));
					else if (p.kind === 'negative') A = Array.from({length: n}, () => f32(rng.uniform(-3, 0)));
					else if (p.kind === 'zeros') A = new Array(n).fill(0);
					else if (p.kind === 'ties') {
						// min -128/256, max 127/256: scale 1/256 and zero point 128 exactly, and
						// every (j + 0.5) / 256 is a tie of x / scale
						A = Array.from({length: n}, (_, i) => (i === 0 ? -128 : i === 1 ? 127 : rng.int(-128, 126) + 0.5) / 256);
					} else A = Array.from({length: n}, () => f32(rng.uniform(-2, 1.5)));
					const dq = dynQuant(L, A);
					qa = dq.q; za = dq.zp; sa = dq.scale;
				} else {
					A = ints(rng, n, 'uint8', false);
					qa = A;
					za = p.zp === 'absent' ? 0 : p.zp === 'extreme' ? 255 : rng.int(0, 255);
					sa = f32(rng.uniform(0.005, 0.05));
				}
				const ins = dynamic ? [
					{name: 'A', dtype: 'float32', shape: p.aShape, values: A, feed: true},
					{name: 'B', dtype: bt, shape: [K, N], values: B},
					{name: 'b_scale', dtype: 'float32', shape: p.perCol ? [N] : [], values: sb},
					p.zp === 'absent' ? null : {name: 'b_zero_point', dtype: bt, shape: p.perCol ? [N] : [], values: zb},
				] : [
					{name: 'A', dtype: 'uint8', shape: p.aShape, values: A},
					{name: 'B', dtype: bt, shape: [K, N], values: B},
					{name: 'a_scale', dtype: 'float32', shape: [], values: [sa]},
					{name: 'b_scale', dtype: 'float32', shape: p.perCol ? [N] : [], values: sb},
					p.zp === 'absent' ? null : {name: 'a_zero_point', dtype: 'uint8', shape: [], values: [za]},
					p.zp === 'absent' ? null : {name: 'b_zero_point', dtype: bt, shape: p.perCol ? [N] : [], values: zb},
				];
				if (bias) ins.push({name: 'bias', dtype: 'float32', shape: [N], values: bias});
				while (ins.length && ins[ins.length - 1] === null) ins.pop();
				const yShape = [...p.aShape.slice(0, -1), N];
				const [y] = await runNode({op, domain: DOMAIN, opset: 1, ins, outs: [{name: 'Y', dtype: 'float32', shape: yShape}], attrs: {}});
				const want = i2fModel(L, {rows, K, N, qa, za, sa, B, zb, sb, bias});
				y.forEach((val, i) => {
					if (val !== want[i]) throw new Error(`${op} ${bt} ${p.kind}: ORT ${val} != model ${want[i]} at ${i}`);
				});
				const inputs = {a: dynamic ? {shape: p.aShape, data: A} : {shape: p.aShape, quant: quant([sa], [za], null), data: A},
					b: {shape: [K, N], quant: quant(sb, zb, p.perCol ? 1 : null), data: B}};
				if (bias) inputs.bias = {shape: [N], data: bias};
				cases.push({name: `${p.kind}_a${p.aShape.join('x')}_n${N}_${p.perCol ? 'percol' : 'pertensor'}_zp_${p.zp}`,
					inputs, outputs: {y: {shape: yShape}}, golden: {y},
					source: `ONNX Runtime ${L.ortPkg.version} CPU, ${op} B ${bt}${bias ? ' with bias' : ''}, ${p.kind} data, b ${p.perCol ? 'per column' : 'per tensor'}, zero points ${p.zp === 'absent' ? 'absent (0)' : p.zp}`});
			}
			const file = `${dynamic ? 'dynamic_quantize_matmul' : 'matmul_integer_to_float'}_${short(bt)}${hasBias ? '_bias' : ''}.yaml`;
			const c0 = cases[0];
			const inputs = {a: {dtype: dynamic ? 'float32' : 'uint8', shape: c0.inputs.a.shape}, b: {dtype: bt, shape: c0.inputs.b.shape}};
			if (hasBias) inputs.bias = {dtype: 'float32', shape: c0.inputs.bias.shape};
			writeSpec(dir, {
				file, op, semantics: 'ort', domain: DOMAIN, opset: 1,
				description: `ONNX Runtime ${op}, ${dynamic ? 'float32 A quantized to uint8 as DynamicQuantizeLinear does (scale and zero point from the whole tensor), ' : 'uint8 A, '}B ${bt}${hasBias ? ', float32 bias' : ''}: acc = sum_k (a - a_zp)(b - b_zp[n]) in int32, y = float32(float(acc) * float32(a_scale * b_scale[n]))${hasBias ? ' + bias[n] (a float32 sum: no fused multiply-add)' : ''}. a of rank 1 to 3, b per tensor and per column, zero points absent (0), random and at the extremes${dynamic ? '; A all positive, all negative, all zero (scale 1) and on exact ties of x / scale' : ''}.${narrow ? ' B stays in [-64, 63] (MLAS AVX2 U8S8 without VNNI saturates pairs of products).' : ''} Exact on every ISA. Not part of any profile yet.`,
				source: SRC.replace('%s', op).replace('%s', 'dynamic_quantize_matmul.cc'),
				inputs, outputs: {y: {dtype: 'float32', shape: c0.outputs.y.shape}}, tolerance: 'exact', cases,
			});
			files.push(file);
			total += cases.length;
		}
	return {files, cases: total};
}

// ---- MatMulBnb4 -------------------------------------------------------------------------------

// the float32 tables of onnxruntime/contrib_ops/cpu/quantization/blockwise_quant_block_bnb4.h
const FP4 = [0, 5.208333333e-03, 0.66666667, 1, 0.33333333, 0.5, 0.16666667, 0.25,
	-0, -5.208333333e-03, -0.66666667, -1, -0.33333333, -0.5, -0.16666667, -0.25];
const NF4 = [-1, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
	-0.18477343022823334, -0.09105003625154495, 0, 0.07958029955625534, 0.16093020141124725,
	0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
	0.7229568362236023, 1];
// the codes whose value is a short binary fraction (0, +-1/4, +-1/2, +-1): exact data
const DYADIC = {0: [0, 3, 5, 7, 8, 11, 13, 15], 1: [0, 7, 15]};

async function matmulBnb4(L, dir, rng) {
	const {f32, runNode, writeSpec} = L;
	const files = [];
	let total = 0;
	for (const qt of [0, 1]) {
		const map = (qt ? NF4 : FP4).map(f32);
		const cases = [];
		for (const bs of [16, 32, 64, 128, 256])
			for (const ragged of [false, true])
				for (const kind of ['exact', 'random']) {
					const M = kind === 'exact' ? 2 : 3, N = ragged ? 3 : 4;
					const K = ragged ? bs + (bs >> 1) + 1 : 2 * bs; // ragged: N * K odd, blocks across rows
					const numel = N * K, nb = Math.ceil(numel / bs);
					const codes = Array.from({length: numel}, () => (kind === 'exact' ? DYADIC[qt][rng.int(0, DYADIC[qt].length - 1)] : rng.int(0, 15)));
					const absmax = Array.from({length: nb}, () => (kind === 'exact' ? rng.int(1, 7) / 8 : f32(rng.uniform(0.05, 2))));
					const A = Array.from({length: M * K}, () => (kind === 'exact' ? rng.int(-7, 7) / 128 : f32(rng.uniform(-1, 1))));
					const Bq = new Array((numel + 1) >> 1).fill(0);
					codes.forEach((c, e) => { Bq[e >> 1] |= e % 2 ? c : c << 4; }); // even element in the high nibble
					const W = codes.map((c, e) => f32(map[c] * absmax[Math.floor(e / bs)]));
					const attrs = {K, N, block_size: bs, quant_type: qt};
					const [y] = await runNode({op: 'MatMulBnb4', domain: DOMAIN, opset: 1, attrs,
						ins: [{name: 'A', dtype: 'float32', shape: [M, K], values: A, feed: true},
							{name: 'B', dtype: 'uint8', shape: [Bq.length], values: Bq},
							{name: 'absmax', dtype: 'float32', shape: [nb], values: absmax}],
						outs: [{name: 'Y', dtype: 'float32', shape: [M, N]}]});
					let tol = null, bound = 0, worst = 0;
					for (let m = 0; m < M; m++)
						for (let n = 0; n < N; n++) {
							let sum = 0, mag = 0;
							for (let k = 0; k < K; k++) { const p = A[m * K + k] * W[n * K + k]; sum += p; mag += Math.abs(p); }
							const i = m * N + n;
							if (kind === 'exact') {
								if (y[i] !== f32(sum)) throw new Error(`MatMulBnb4 exact case: ORT ${y[i]} != ${f32(sum)} (qt ${qt} bs ${bs})`);
							} else {
								bound = Math.max(bound, (K + 2) * 2 ** -24 * mag);
								worst = Math.max(worst, Math.abs(y[i] - sum));
							}
						}
					if (kind === 'random') {
						if (worst > bound) throw new Error(`MatMulBnb4 random case outside its bound: ${worst} > ${bound}`);
						tol = {bound: L.fmt(f32(bound * 1.0000001)), reason: `MLAS's SGEMM sums the products of A and the dequantized B in float32 in an order (and with fused multiply-adds) that depends on the ISA's kernel: the bound is (K + 2) * 2^-24 * sum|a b| of this case's data`};
					}
					cases.push({name: `bs${bs}_K${K}_N${N}_${kind}`, attrs,
						inputs: {a: {shape: [M, K], data: A}, b: {shape: [Bq.length], data: Bq}, absmax: {shape: [nb], data: absmax}},
						outputs: {y: {shape: [M, N]}}, golden: {y}, tolerance: tol,
						source: `ONNX Runtime ${L.ortPkg.version} CPU, MatMulBnb4 ${qt ? 'NF4' : 'FP4'} K=${K} N=${N} block_size=${bs}, ${kind} data`});
				}
		const file = `matmul_bnb4_${qt ? 'nf4' : 'fp4'}.yaml`;
		const c0 = cases[0];
		writeSpec(dir, {
			file, op: 'MatMulBnb4', semantics: 'ort', domain: DOMAIN, opset: 1,
			description: `ONNX Runtime MatMulBnb4, ${qt ? 'NF4' : 'FP4'} (quant_type ${qt}): Y = A B^T, B[n][k] = map[q] * absmax[(n * K + k) / block_size] in float32, q the nibble of byte (n * K + k) / 2, the high one for an even element; blocks over the flat N * K elements (the ragged cases have blocks across rows and an odd N * K). Block sizes 16 to 256. 'exact' cases use codes of short binary values (0, +-1/4, +-1/2, +-1) and short fractions, whose every partial sum is exact (bit-exact whatever the summation order); 'random' cases are bounded by a tolerance. Not part of any profile yet.`,
			source: SRC.replace('%s', 'MatMulBnb4').replace('%s', 'matmul_bnb4.cc, blockwise_quant_block_bnb4.h'),
			inputs: {a: {dtype: 'float32', shape: c0.inputs.a.shape}, b: {dtype: 'uint8', shape: c0.inputs.b.shape}, absmax: {dtype: 'float32', shape: c0.inputs.absmax.shape}},
			outputs: {y: {dtype: 'float32', shape: c0.outputs.y.shape}}, tolerance: 'exact', cases,
		});
		files.push(file);
		total += cases.length;
	}
	return {files, cases: total};
}

// ---- MatMulInteger16 ----------------------------------------------------------------------------

// contrib_ops/cpu/matmul_integer16.cc: int16 x int16 -> int32 with numpy.matmul's broadcasting;
// the model: the exact sum wrapped to int32 (Eigen's int32 GEMM wraps).
function mmi16Model(as, bs, A, B) {
	const ra = as.length, rb = bs.length;
	const M = ra >= 2 ? as[ra - 2] : 1, K = as[ra - 1], N = rb >= 2 ? bs[rb - 1] : 1;
	const ba = as.slice(0, Math.max(0, ra - 2)), bb = bs.slice(0, Math.max(0, rb - 2));
	const nb = Math.max(ba.length, bb.length);
	const pa = Array(nb - ba.length).fill(1).concat(ba), pb = Array(nb - bb.length).fill(1).concat(bb);
	const bd = pa.map((d, i) => Math.max(d, pb[i]));
	const nbatch = bd.reduce((x, y) => x * y, 1), out = [];
	for (let bi = 0; bi < nbatch; bi++) {
		let r = bi, ao = 0, bo = 0, sa = 1, sb = 1;
		for (let j = nb - 1; j >= 0; j--) {
			const c = r % bd[j]; r = Math.floor(r / bd[j]);
			ao += (pa[j] === 1 ? 0 : c) * sa; bo += (pb[j] === 1 ? 0 : c) * sb;
			sa *= pa[j]; sb *= pb[j];
		}
		for (let i = 0; i < M; i++)
			for (let j = 0; j < N; j++) {
				let acc = 0n;
				for (let t = 0; t < K; t++) acc += BigInt(A[ao * M * K + i * K + t]) * BigInt(B[bo * K * N + t * N + j]);
				out.push(Number(BigInt.asIntN(32, acc)));
			}
	}
	return {y: out, shape: [...bd, ...(ra >= 2 ? [M] : []), ...(rb >= 2 ? [N] : [])]};
}

async function matmulInteger16(L, dir, rng) {
	const plans = [
		{kind: 'random', as: [3, 5], bs: [5, 4]},
		{kind: 'random', as: [2, 3, 7], bs: [7, 2]},
		{kind: 'random', as: [2, 1, 2, 3], bs: [3, 3, 4]},
		{kind: 'random', as: [6], bs: [6, 3]},
		{kind: 'random', as: [2, 4, 6], bs: [6]},
		{kind: 'random', as: [5], bs: [5]},
		{kind: 'random', as: [1, 2, 33], bs: [4, 33, 3]},
		{kind: 'extremes', as: [2, 4], bs: [4, 2]},
		{kind: 'wrap', as: [1, 3], bs: [3, 2]},
		{kind: 'k0', as: [2, 0], bs: [0, 3]},
	];
	const cases = [];
	for (const p of plans) {
		const na = p.as.reduce((x, y) => x * y, 1), nb = p.bs.reduce((x, y) => x * y, 1);
		let A = Array.from({length: na}, () => rng.int(-32768, 32767)), B = Array.from({length: nb}, () => rng.int(-32768, 32767));
		if (p.kind === 'extremes') { A = A.map((_, i) => [-32768, 32767][i % 2]); B = B.map((_, i) => [-32768, 32767, -32768][i % 3]); }
		if (p.kind === 'wrap') { A = A.map(() => -32768); B = [-32768, 32767, -32768, 32767, -32768, 32767]; }
		const want = mmi16Model(p.as, p.bs, A, B);
		const [y] = await L.runNode({op: 'MatMulInteger16', domain: DOMAIN, opset: 1,
			ins: [{name: 'A', dtype: 'int16', shape: p.as, values: A}, {name: 'B', dtype: 'int16', shape: p.bs, values: B}],
			outs: [{name: 'Y', dtype: 'int32', shape: want.shape}]});
		y.forEach((val, i) => {
			if (val !== want.y[i]) throw new Error(`MatMulInteger16 ${p.kind}: ORT ${val} != model ${want.y[i]} at ${i}`);
		});
		cases.push({name: `${p.kind}_${p.as.join('x')}_${p.bs.join('x')}`,
			inputs: {a: {shape: p.as, data: A}, b: {shape: p.bs, data: B}}, outputs: {y: {shape: want.shape}}, golden: {y},
			source: `ONNX Runtime ${L.ortPkg.version} CPU, MatMulInteger16, ${p.kind} data, a [${p.as.join(', ')}] b [${p.bs.join(', ')}]`});
	}
	const file = 'matmul_integer16.yaml';
	L.writeSpec(dir, {
		file, op: 'MatMulInteger16', semantics: 'ort', domain: DOMAIN, opset: 1,
		description: 'ONNX Runtime MatMulInteger16: y = a @ b, int16 x int16 -> int32 with numpy.matmul broadcasting (1-D operands, batch dimensions of 1 broadcast), the exact sum wrapped to int32. Random data, the extremes -32768 and 32767, sums past 2^31 (wrapping) and K = 0.',
		source: SRC.replace('%s', 'MatMulInteger16').replace('quantization/%s', 'matmul_integer16.cc'),
		inputs: {a: {dtype: 'int16', shape: plans[0].as}, b: {dtype: 'int16', shape: plans[0].bs}},
		outputs: {y: {dtype: 'int32', shape: [plans[0].as[0], plans[0].bs[1]]}}, tolerance: 'exact', cases,
	});
	return {files: [file], cases: cases.length};
}

async function generate(L, dir) {
	const r1 = await qgemm(L, dir, new L.Rng(0x5147));
	const r2 = await i2f(L, dir, new L.Rng(0x4932), false);
	const r3 = await i2f(L, dir, new L.Rng(0x4451), true);
	const r4 = await matmulBnb4(L, dir, new L.Rng(0x4234));
	const r5 = await matmulInteger16(L, dir, new L.Rng(0x4931));
	return {ops: [{op: 'QGemm', files: r1.files.length, cases: r1.cases},
		{op: 'MatMulIntegerToFloat', files: r2.files.length, cases: r2.cases},
		{op: 'DynamicQuantizeMatMul', files: r3.files.length, cases: r3.cases},
		{op: 'MatMulBnb4', files: r4.files.length, cases: r4.cases},
		{op: 'MatMulInteger16', files: r5.files.length, cases: r5.cases}]};
}

module.exports = {generate};
