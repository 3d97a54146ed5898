// ONNX Runtime's com.microsoft QAttention as golden specs in OUT/ort/imported/ (import.js loads
// every qlinear_*.js of this folder). Schema: onnxruntime/core/graph/contrib_ops/
// quantization_defs.cc; kernel: onnxruntime/contrib_ops/cpu/quantization/attention_quant.cc on
// onnxruntime/contrib_ops/cpu/bert/attention_cpu_base.h and attention_helper.h, MLAS's integer
// GEMM, SGEMM and softmax. The arithmetic and the band: specs/ort/OPERATORS.md (QAttention) and
// reference/ort_qattention.c.
'use strict';

const DOMAIN = 'com.microsoft';
const SRC = 'ONNX Runtime contrib op QAttention (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/attention_quant.cc, onnxruntime/contrib_ops/cpu/bert/attention_helper.h)';
const MASKED = -10000; // PrepareMask's value (mask_filter_value, not an attribute of ORT 1.30's QAttention)

// The model: Q, K, V exact in float32 (float(acc) * f32(w_scale * x_scale), then + bias), the
// attention in double. Returns {qkv, out, mag}: mag[i] = sum_t p_t |v_t| of output element i.
function model(L, g) {
	const {f32} = L;
	const {B, S, D, N, H, P} = g, NH = N * H, T = P + S;
	const q = [[], [], []]; // [which][b][n][s][h]
	const at = (which, b, n, s, h) => (((b * N + n) * S + s) * H + h);
	for (let b = 0; b < B; b++)
		for (let s = 0; s < S; s++)
			for (let j = 0; j < 3 * NH; j++) {
				const zw = g.wzp[g.wzp.length > 1 ? j : 0];
				let acc = 0;
				for (let k = 0; k < D; k++) acc += (g.X[(b * S + s) * D + k] - g.xzp) * (g.W[k * 3 * NH + j] - zw);
				let v = f32(acc * f32(g.ws[g.ws.length > 1 ? j : 0] * g.xs));
				v = f32(v + g.bias[j]);
				const which = Math.floor(j / NH), n = Math.floor((j % NH) / H), h = j % H;
				q[which][at(which, b, n, s, h)] = v;
			}
	// K, V over the total sequence: past, then this step's
	const kv = [[], []];
	for (let w = 0; w < 2; w++)
		for (let bn = 0; bn < B * N; bn++)
			for (let t = 0; t < T; t++)
				for (let h = 0; h < H; h++)
					kv[w].push(t < P ? g.past[w * B * N * P * H + (bn * P + t) * H + h] : q[w + 1][(bn * S + t - P) * H + h]);
	const alpha = g.scale ? f32(g.scale) : f32(1 / f32(Math.sqrt(H)));
	const causal = g.uni === 1 && S > 1;
	const maskAt = (b, s, t) => {
		let v = 0;
		const m = g.mask;
		if (m) {
			if (m.shape.length === 3) v = m.values[(b * S + s) * T + t] > 0 ? 0 : MASKED;
			else if (m.shape.length === 2 && m.shape[1] === T) v = m.values[b * T + t] > 0 ? 0 : MASKED;
			else if (m.shape.length === 1) {
				if (t >= m.values[b]) v = MASKED;
				if (m.shape[0] === 2 * B && t < m.values[b + B]) v = MASKED;
			}
		}
		if (causal && s < S - 1 && t >= P + s + 1) v = -Infinity; // causal keys take no weight (measured)
		return v;
	};
	const out = new Array(B * S * NH).fill(0), mag = new Array(B * S * NH).fill(0);
	for (let b = 0; b < B; b++)
		for (let n = 0; n < N; n++)
			for (let s = 0; s < S; s++) {
				const sc = [];
				for (let t = 0; t < T; t++) {
					let d = 0;
					for (let h = 0; h < H; h++) d += q[0][at(0, b, n, s, h)] * kv[0][((b * N + n) * T + t) * H + h];
					sc.push(alpha * d + maskAt(b, s, t));
				}
				const mx = Math.max(...sc);
				const e = sc.map(v => Math.exp(v - mx)), sum = e.reduce((x, y) => x + y, 0);
				for (let h = 0; h < H; h++) {
					let o = 0, m = 0;
					for (let t = 0; t < T; t++) {
						const v = kv[1][((b * N + n) * T + t) * H + h];
						o += e[t] / sum * v;
						m += e[t] / sum * Math.abs(v);
					}
					out[(b * S + s) * NH + n * H + h] = o;
					mag[(b * S + s) * NH + n * H + h] = m;
				}
			}
	return {present: [...kv[0], ...kv[1]], out, mag};
}

// The plans: shapes, quantization and attributes; kinds add masks, past, large scores
function plans(group) {
	const P = [];
	const base = [
		{B: 1, S: 3, D: 8, N: 2, H: 4},
		{B: 2, S: 4, D: 16, N: 2, H: 8},
		{B: 2, S: 5, D: 12, N: 3, H: 4},
		{B: 1, S: 1, D: 8, N: 1, H: 8},
		{B: 1, S: 9, D: 32, N: 4, H: 8},
	];
	if (group === 'plain') {
		base.forEach((s, i) => P.push({...s, kind: 'random', perCol: i % 2 === 1}));
		P.push({...base[1], kind: 'random', perCol: true, zp: 'absent'});
		P.push({...base[2], kind: 'random', perCol: false, zp: 'extreme'});
		P.push({...base[0], kind: 'scale', perCol: false, attrs: {scale: 0.3125}});
		P.push({...base[1], kind: 'unidirectional', perCol: true, attrs: {unidirectional: 1}});
		P.push({...base[4], kind: 'unidirectional', perCol: false, attrs: {unidirectional: 1}});
		P.push({...base[0], kind: 'rotary', perCol: false, attrs: {do_rotary: 1}});
		P.push({...base[2], kind: 'large_scores', perCol: true, attrs: {scale: 4}});
		P.push({...base[1], kind: 'large_scores', perCol: false, attrs: {scale: 8, unidirectional: 1}});
	} else if (group === 'mask') {
		P.push({...base[1], kind: 'mask_end', perCol: false, mask: 'end'});
		P.push({...base[2], kind: 'mask_end', perCol: true, mask: 'end', attrs: {unidirectional: 1}});
		P.push({...base[1], kind: 'mask_end_zero', perCol: false, mask: 'end0'});
		P.push({...base[2], kind: 'mask_end_start', perCol: false, mask: 'endstart'});
		P.push({...base[1], kind: 'mask_end_start', perCol: true, mask: 'endstart', attrs: {unidirectional: 1}});
		P.push({...base[2], kind: 'mask_3b2', perCol: false, mask: '3b2'});
		P.push({...base[1], kind: 'mask_2d', perCol: true, mask: '2d'});
		P.push({...base[4], kind: 'mask_2d', perCol: false, mask: '2d', attrs: {unidirectional: 1}});
		P.push({...base[2], kind: 'mask_3d', perCol: false, mask: '3d'});
		P.push({...base[1], kind: 'mask_3d', perCol: true, mask: '3d', attrs: {unidirectional: 1}});
		P.push({...base[0], kind: 'mask_dummy', perCol: false, mask: 'dummy'});
		P.push({...base[2], kind: 'mask_large_scores', perCol: false, mask: 'end', attrs: {scale: 6}});
	} else {
		P.push({...base[0], kind: 'past', perCol: false, P: 3});
		P.push({...base[1], kind: 'past', perCol: true, P: 2, attrs: {unidirectional: 1}});
		P.push({...base[3], kind: 'past_decode', perCol: false, P: 6, attrs: {unidirectional: 1}});
		P.push({...base[2], kind: 'past', perCol: true, P: 4});
		P.push({...base[0], kind: 'present_only', perCol: true, P: 0});
		P.push({...base[4], kind: 'past', perCol: false, P: 5, attrs: {unidirectional: 1}});
	}
	return P;
}

// every mask but the dummy masks some key of batch 0 (the suite's stub, which ignores the mask,
// must FAIL each such case)
function maskFor(rng, kind, B, S, T) {
	const m = maskDraw(rng, kind, B, S, T);
	if (kind === 'end' || kind === '3b2') m.values[0] = Math.min(m.values[0], T - 1);
	if (kind === '2d' || kind === '3d') m.values[T - 1] = 0;
	return m;
}
function maskDraw(rng, kind, B, S, T) {
	switch (kind) {
	case 'end': return {shape: [B], values: Array.from({length: B}, () => rng.int(1, T))};
	case 'end0': return {shape: [B], values: Array.from({length: B}, (_, b) => (b ? T - 1 : 0))};
	case 'endstart': return {shape: [2 * B], values: [...Array.from({length: B}, () => rng.int(T - 1, T)),
		...Array.from({length: B}, () => rng.int(1, 2))]};
	case '3b2': return {shape: [3 * B + 2], values: [...Array.from({length: B}, () => rng.int(1, T)),
		...Array.from({length: 2 * B + 2}, () => rng.int(0, T))]};
	case '2d': return {shape: [B, T], values: Array.from({length: B * T}, (_, i) => (i % T === 0 ? 1 : rng.int(0, 3) ? 1 : 0))};
	case '3d': return {shape: [B, S, T], values: Array.from({length: B * S * T}, (_, i) => (i % T === 0 ? 1 : rng.int(0, 2) ? 1 : 0))};
	case 'dummy': return {shape: [B, 1], values: Array.from({length: B}, () => 0)};
	default: throw new Error(kind);
	}
}

async function group(L, dir, rng, wt, grp) {
	const {f32, runNode, writeSpec} = L;
	// int8 weights stay in [-64, 63]: MLAS's AVX2 U8S8 kernel without VNNI sums pairs of products
	// in int16 with saturation (vpmaddubsw), so a pair above 32767 would make ORT's Q, K, V
	// depend on the CPU; below it every ISA gives the exact sum
	const [wlo, whi] = wt === 'uint8' ? [0, 255] : [-64, 63];
	const cases = [];
	for (const p of plans(grp)) {
		const {B, S, D, N, H} = p, NH = N * H, Pl = p.P || 0, T = Pl + S;
		const X = Array.from({length: B * S * D}, () => rng.int(0, 255));
		const W = Array.from({length: D * 3 * NH}, () => rng.int(wlo, whi));
		const bias = Array.from({length: 3 * NH}, () => f32(rng.uniform(-1, 1)));
		let xzp = rng.int(100, 156), wzp = Array.from({length: p.perCol ? 3 * NH : 1}, () => (wt === 'uint8' ? rng.int(100, 156) : rng.int(-20, 20)));
		if (p.zp === 'absent') { xzp = 0; wzp = wzp.map(() => 0); }
		if (p.zp === 'extreme') { xzp = 255; wzp = wzp.map((_, i) => (i % 2 ? wlo : whi)); }
		// scales: Q, K, V of order 1 (scores of order alpha H), unless large_scores
		const xs = f32(rng.uniform(0.01, 0.03));
		const ws = wzp.map(() => f32(rng.uniform(0.5, 1.5) / (64 * Math.sqrt(D))));
		const mask = p.mask ? maskFor(rng, p.mask, B, S, T) : null;
		const past = Pl || grp === 'past' ? {shape: [2, B, N, Pl, H], values: Array.from({length: 2 * B * N * Pl * H}, () => f32(rng.uniform(-1.5, 1.5)))} : null;
		const attrs = {num_heads: N, ...(p.attrs || {})};
		const ins = [
			{name: 'input', dtype: 'uint8', shape: [B, S, D], values: X},
			{name: 'weight', dtype: wt, shape: [D, 3 * NH], values: W},
			{name: 'bias', dtype: 'float32', shape: [3 * NH], values: bias},
			{name: 'input_scale', dtype: 'float32', shape: [], values: [xs]},
			{name: 'weight_scale', dtype: 'float32', shape: p.perCol ? [3 * NH] : [], values: ws},
			mask ? {name: 'mask_index', dtype: 'int32', shape: mask.shape, values: mask.values} : null,
			p.zp === 'absent' ? null : {name: 'input_zero_point', dtype: 'uint8', shape: [], values: [xzp]},
			p.zp === 'absent' ? null : {name: 'weight_zero_point', dtype: wt, shape: p.perCol ? [3 * NH] : [], values: wzp},
			past && Pl ? {name: 'past', dtype: 'float32', shape: past.shape, values: past.values} : null,
		];
		while (ins.length && ins[ins.length - 1] === null) ins.pop();
		const outs = [{name: 'output', dtype: 'float32', shape: [B, S, NH]}];
		if (grp === 'past') outs.push({name: 'present', dtype: 'float32', shape: [2, B, N, T, H]});
		const rOut = await runNode({op: 'QAttention', domain: DOMAIN, opset: 1, ins, outs,
			attrs: {...attrs, ...(attrs.scale !== undefined ? {scale: {float: attrs.scale}} : {})}});
		const m = model(L, {B, S, D, N, H, P: Pl, X, W, bias, xs, xzp, ws, wzp, mask, past: past ? past.values : [],
			scale: attrs.scale, uni: attrs.unidirectional});
		// the import's own check: ORT within 2^-10 of sum p |v| of the double model (the reference's
		// band, tighter, judges the golden); present exactly
		let bound = 0;
		rOut[0].forEach((v, i) => {
			const b = 2 ** -10 * m.mag[i] + 2 ** -30;
			if (!(Math.abs(v - m.out[i]) <= b)) throw new Error(`QAttention ${wt} ${p.kind}: ORT ${v} != model ${m.out[i]} at ${i}`);
			bound = Math.max(bound, b);
		});
		if (rOut[1]) rOut[1].forEach((v, i) => {
			if (v !== m.present[i]) throw new Error(`QAttention ${wt} ${p.kind}: present ${v} != ${m.present[i]} at ${i}`);
		});
		const inputs = {
			input: {shape: [B, S, D], quant: {scale: xs, zero_point: xzp}, data: X},
			weight: {shape: [D, 3 * NH], quant: p.perCol ? {axis: 1, scales: ws, zero_points: wzp} : {scale: ws[0], zero_point: wzp[0]}, data: W},
			bias: {shape: [3 * NH], data: bias},
		};
		if (grp === 'mask') inputs.mask_index = {shape: mask.shape, data: mask.values};
		if (grp === 'past') inputs.past = {shape: past.shape, data: past.values};
		const outputs = {output: {shape: [B, S, NH]}};
		const golden = {output: rOut[0]};
		if (grp === 'past') { outputs.present = {shape: [2, B, N, T, H]}; golden.present = rOut[1]; }
		const an = Object.entries(p.attrs || {}).map(([k, v]) => `${k}=${v}`).join(' ');
		cases.push({name: `${p.kind}_b${B}s${S}d${D}n${N}h${H}${Pl ? `p${Pl}` : ''}_${p.perCol ? 'percol' : 'pertensor'}${p.zp ? `_zp_${p.zp}` : ''}`,
			inputs, outputs, attrs, golden,
			goldenTolerance: {bound: L.fmt(f32(bound * 1.0000001)), reason: 'the import checks ORT within 2^-10 sum_t p_t |v_t| of its double model; the SGEMMs and MLAS softmax depend on the ISA, so another CPU may give other floats (the band of reference/ort_qattention.c judges)'},
			source: `ONNX Runtime ${L.ortPkg.version} CPU, QAttention weight ${wt}, ${p.kind}, weight ${p.perCol ? 'per column' : 'per tensor'}${mask ? `, mask_index [${mask.shape.join(', ')}]` : ''}${Pl ? `, past length ${Pl}` : ''}${an ? `, ${an}` : ''}`});
	}
	const file = `qattention_${wt === 'uint8' ? 'u8' : 's8'}_${grp}.yaml`;
	const c0 = cases[0];
	const inputs = {input: {dtype: 'uint8', shape: c0.inputs.input.shape}, weight: {dtype: wt, shape: c0.inputs.weight.shape}, bias: {dtype: 'float32', shape: c0.inputs.bias.shape}};
	if (grp === 'mask') inputs.mask_index = {dtype: 'int32', shape: c0.inputs.mask_index.shape};
	if (grp === 'past') inputs.past = {dtype: 'float32', shape: c0.inputs.past.shape};
	const outputs = {output: {dtype: 'float32', shape: c0.outputs.output.shape}};
	if (grp === 'past') outputs.present = {dtype: 'float32', shape: c0.outputs.present.shape};
	writeSpec(dir, {
		file, op: 'QAttention', semantics: 'ort', domain: DOMAIN, opset: 1,
		description: `ONNX Runtime QAttention, uint8 input, ${wt} weight${grp === 'mask' ? ', with mask_index in every form the CPU kernel takes (end positions, end and start, 3 * batch + 2, raw 2-D and 3-D, the dummy)' : grp === 'past' ? ', with past and the present output' : ''}: Q, K, V = float32(float(acc) * w_scale x_scale) + bias exactly, then softmax(alpha Q K^T + mask) V by MLAS's SGEMMs and softmax, judged by the reference's band (specs/ort/OPERATORS.md, QAttention). Random data, weight per tensor and per column, zero points random, absent and at the extremes, unidirectional, a custom scale, do_rotary (no effect), scores past exp's range.`,
		source: SRC, inputs, outputs, tolerance: 'exact', cases,
	});
	return {file, cases: cases.length};
}

async function generate(L, dir) {
	const rng = new L.Rng(0x5141);
	const files = [];
	let total = 0;
	for (const wt of ['uint8', 'int8'])
		for (const grp of ['plain', 'mask', 'past']) {
			const r = await group(L, dir, rng, wt, grp);
			files.push(r.file);
			total += r.cases;
		}
	return {ops: [{op: 'QAttention', files: files.length, cases: total}]};
}

module.exports = {generate};
