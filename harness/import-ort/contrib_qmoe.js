// ONNX Runtime's com.microsoft QMoE (import.js loads every contrib_*.js of this folder), as
// golden specs in OUT/ort/imported/. Definitions: onnxruntime ContribOperators.md (docs
// folder), onnxruntime/contrib_ops/cpu/moe/moe_quantization_cpu.cc, moe_base_cpu.h.
//
// Row-wise 4- and 8-bit experts without zero points (the default 2^(bits - 1)), float32; every
// activation the CPU kernel takes; k 1 and 2. The model below (double) is only the import's
// sanity check: the reference's bands judge the goldens (reference/ort_qmoe.c).
'use strict';

const DOMAIN = 'com.microsoft';

// q[r][c] as ORT's [rows, cols * bits / 8], low bits first
function pack(q, bits) {
	const per = 8 / bits, out = [];
	for (const row of q)
		for (let c = 0; c < row.length; c += per) {
			let b = 0;
			for (let i = 0; i < per; i++) b |= row[c + i] << (i * bits);
			out.push(b);
		}
	return out;
}

const sig = v => 1 / (1 + Math.exp(-v));
function act(c, a, i) {
	const v = c.act === 'swiglu' ? a[2 * i] : a[i];
	switch (c.act) {
	case 'relu': return Math.max(0, v);
	case 'identity': return v;
	case 'silu': return v * sig(v);
	case 'gelu': return 0.5 * v * (1 + Math.tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
	default: {
		const lim = c.attrs.swiglu_limit === undefined ? Infinity : c.attrs.swiglu_limit;
		const al = c.attrs.activation_alpha === undefined ? 1 : c.attrs.activation_alpha;
		const be = c.attrs.activation_beta === undefined ? 0 : c.attrs.activation_beta;
		const g = Math.min(v, lim), l = Math.max(-lim, Math.min(a[2 * i + 1], lim));
		return g * sig(al * g) * (l + be);
	}
	}
}

// y in double: softmax, the top k (ties to the higher index) renormalized, the experts
function model(L, c) {
	const {T, H, I, E, k, bits} = c, z = 1 << (bits - 1), f1 = c.act === 'swiglu' ? 2 * I : I;
	const W = (l, e, r, col) => L.f32((c.q[l][e][r][col] - z) * c.s[l][e][r]);
	const y = [];
	for (let t = 0; t < T; t++) {
		const lg = c.logits.slice(t * E, (t + 1) * E), mx = Math.max(...lg);
		const ex = lg.map(v => Math.exp(v - mx)), sum = ex.reduce((a, b) => a + b, 0), p = ex.map(v => v / sum);
		const order = [...Array(E).keys()].sort((a, b) => p[b] - p[a] || b - a).slice(0, k);
		const ks = order.reduce((a, e) => a + p[e], 0);
		const out = new Array(H).fill(0);
		for (const e of order) {
			const a = [];
			for (let r = 0; r < f1; r++) {
				let s = c.bias ? c.b[0][e][r] : 0;
				for (let h = 0; h < H; h++) s += c.x[t * H + h] * W(0, e, r, h);
				a.push(s);
			}
			const hv = [...Array(I).keys()].map(i => act(c, a, i));
			for (let o = 0; o < H; o++) {
				let s = c.bias ? c.b[1][e][o] : 0;
				for (let i = 0; i < I; i++) s += hv[i] * W(1, e, o, i);
				out[o] += (p[e] / ks) * s;
			}
		}
		y.push(...out);
	}
	return y;
}

async function generate(L, dir) {
	const {f32, runNode, writeSpec} = L;
	const rng = new L.Rng(0x514d);
	const T = 3, H = 16, I = 16, E = 4;
	const plans = [];
	for (const bias of [false, true]) {
		for (const bits of [4, 8])
			for (const a of ['relu', 'identity'])
				plans.push({bias, bits, act: a, k: 1, kind: 'exact', attrs: {}});
		for (const bits of [4, 8])
			for (const a of ['relu', 'identity', 'silu', 'gelu', 'swiglu'])
				plans.push({bias, bits, act: a, k: bits === 4 ? 2 : 1, kind: 'random', attrs: {}});
		plans.push({bias, bits: 4, act: 'swiglu', k: 2, kind: 'random', attrs: {activation_alpha: f32(1.702), activation_beta: 1, swiglu_limit: 7}});
		plans.push({bias, bits: 4, act: 'relu', k: 1, kind: 'tie', attrs: {}});
	}
	const files = {false: [], true: []};
	for (const pl of plans) {
		const exact = pl.kind !== 'random', bits = pl.bits, f1 = pl.act === 'swiglu' ? 2 * I : I;
		const qmax = (1 << bits) - 1, z = 1 << (bits - 1), span = exact ? 3 : z;
		const qs = (rows, cols) => Array.from({length: rows}, () => Array.from({length: cols}, () => rng.int(z - span, Math.min(qmax, z + span))));
		const c = {T, H, I, E, k: pl.k, bits, act: pl.act, attrs: pl.attrs, bias: pl.bias,
			q: [Array.from({length: E}, () => qs(f1, H)), Array.from({length: E}, () => qs(H, I))],
			s: [f1, H].map(rows => Array.from({length: E}, () => Array.from({length: rows}, () => (exact ? rng.int(1, 4) / 8 : f32(rng.uniform(0.01, 0.1)))))),
			b: [f1, H].map(rows => Array.from({length: E}, () => Array.from({length: rows}, () => (exact ? rng.int(-8, 8) / 16 : f32(rng.uniform(-0.5, 0.5)))))),
			x: Array.from({length: T * H}, () => (exact ? rng.int(-8, 8) / 16 : f32(rng.uniform(-1, 1)))),
			logits: Array.from({length: T * E}, () => f32(rng.uniform(-2, 2)))};
		if (pl.kind === 'tie') c.logits = [0.5, 0.5, 0.5, 0.5, 1, 0.25, 1, 0.25, -1, 0, 0, -1]; // ties: the higher index
		const attrs = {activation_type: pl.act, k: pl.k, expert_weight_bits: bits, ...pl.attrs};
		if (pl.act === 'swiglu') attrs.swiglu_fusion = 1;
		const w = l => c.q[l].flatMap(m => pack(m, bits));
		const ins = [{name: 'input', dtype: 'float32', shape: [T, H], values: c.x, feed: true},
			{name: 'router_probs', dtype: 'float32', shape: [T, E], values: c.logits, feed: true},
			{name: 'fc1_experts_weights', dtype: 'uint8', shape: [E, f1, H * bits / 8], values: w(0)},
			{name: 'fc1_scales', dtype: 'float32', shape: [E, f1], values: c.s[0].flat()},
			pl.bias ? {name: 'fc1_experts_bias', dtype: 'float32', shape: [E, f1], values: c.b[0].flat()} : null,
			{name: 'fc2_experts_weights', dtype: 'uint8', shape: [E, H, I * bits / 8], values: w(1)},
			{name: 'fc2_scales', dtype: 'float32', shape: [E, H], values: c.s[1].flat()}];
		if (pl.bias) ins.push({name: 'fc2_experts_bias', dtype: 'float32', shape: [E, H], values: c.b[1].flat()});
		const ortAttrs = {...attrs}; // float attributes stay FLOAT when integral
		for (const key of ['activation_alpha', 'activation_beta', 'swiglu_limit']) if (key in ortAttrs) ortAttrs[key] = {float: ortAttrs[key]};
		const [y] = await runNode({op: 'QMoE', domain: DOMAIN, opset: 1, attrs: ortAttrs, ins,
			outs: [{name: 'output', dtype: 'float32', shape: [T, H]}]});
		const want = model(L, c);
		const big = Math.max(1, ...want.map(Math.abs)), tolAbs = 2 ** -12 * big;
		y.forEach((v, i) => {
			if (exact && v !== f32(want[i])) throw new Error(`QMoE ${pl.kind} ${pl.act}: ORT ${v} != ${f32(want[i])} at ${i}`);
			if (Math.abs(v - want[i]) > tolAbs) throw new Error(`QMoE ${pl.act} bits ${bits}: ORT ${v} far from ${want[i]} at ${i}`);
		});
		const inputs = {};
		for (const t of ins) if (t) inputs[t.name] = {shape: t.shape, data: t.values};
		const extra = Object.keys(pl.attrs).length ? '_limited' : '';
		files[pl.bias].push({name: `${pl.act}${extra}_bits${bits}_k${pl.k}_${pl.kind}`, attrs, inputs,
			outputs: {output: {shape: [T, H]}}, golden: {output: y},
			goldenTolerance: pl.kind === 'random' ? {bound: L.fmt(f32(tolAbs)), reason: 'ORT sums in float32 in orders of its own kernels and evaluates softmax, sigmoid and tanh by MLAS approximations: the golden may differ by CPU; the reference\'s band judges a kernel'} : null,
			source: `ONNX Runtime ${L.ortPkg.version} CPU, QMoE ${pl.act} ${bits}-bit k=${pl.k}${pl.bias ? ' with biases' : ''}, ${pl.kind} data`});
	}
	const out = [];
	for (const bias of [false, true]) {
		const cases = files[bias], c0 = cases[0], file = bias ? 'qmoe_bias.yaml' : 'qmoe.yaml';
		const inputs = {};
		for (const [k, t] of Object.entries(c0.inputs)) inputs[k] = {dtype: k.endsWith('weights') ? 'uint8' : 'float32', shape: t.shape};
		writeSpec(dir, {
			file, op: 'QMoE', semantics: 'ort', domain: DOMAIN, opset: 1, profile: ['ort-contrib-llm'],
			description: `ONNX Runtime QMoE${bias ? ' with fc1 and fc2 biases' : ''}: 3 tokens, 4 experts, hidden and inner size 16, row-wise scales, 4- and 8-bit expert weights with the default zero point 2^(bits - 1). Routing: softmax over router_probs, the top k (ties to the higher expert index), renormalized; each expert act(x W1^T + b1) W2^T + b2. Every activation the CPU kernel takes (relu, identity, silu, gelu in its tanh form, swiglu interleaved, also with alpha 1.702, beta 1 and limit 7). 'exact' cases (k 1, relu or identity, short binary fractions) are bit-exact; 'tie' cases have tied logits; 'random' cases are judged by the reference's band.`,
			source: 'ONNX Runtime contrib op QMoE (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/moe/moe_quantization_cpu.cc)',
			inputs, outputs: {output: {dtype: 'float32', shape: [T, H]}}, tolerance: 'exact', cases,
		});
		out.push(cases.length);
	}
	return {ops: [{op: 'QMoE', files: 2, cases: out[0] + out[1]}]};
}

module.exports = {generate};
