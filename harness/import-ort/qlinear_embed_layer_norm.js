// ONNX Runtime's com.microsoft QEmbedLayerNormalization as golden specs in OUT/ort/imported/
// (import.js loads every qlinear_*.js of this folder). Schema: onnxruntime/core/graph/
// contrib_ops/quantization_defs.cc; kernel: onnxruntime/contrib_ops/cpu/quantization/
// qembed_layer_norm.cc on onnxruntime/contrib_ops/cpu/bert/embed_layer_norm_helper.cc. The
// arithmetic and the band: specs/ort/OPERATORS.md (QEmbedLayerNormalization) and
// reference/ort_qembed.c.
'use strict';

const DOMAIN = 'com.microsoft';
const SRC = 'ONNX Runtime contrib op QEmbedLayerNormalization (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/qembed_layer_norm.cc, onnxruntime/contrib_ops/cpu/bert/embed_layer_norm_helper.cc)';
const EPS_DEFAULT = 1e-12; // kDefaultEmbedLayerNormEpsilon

// The model: ComputeInternal's float32 evaluation in its order (each dequantized value
// float(q - zp) * scale, the sums in index order, no fused multiply-adds); mask_index_out counts
// the mask values equal to 1.
function model(L, g) {
	const {f32} = L;
	const {B, S, n} = g;
	const dq = (t, i) => f32((t.q[i] - t.zp) * t.scale);
	const out = [];
	for (let k = 0; k < B * S; k++) {
		const id = g.ids[k], s = k % S, sid = g.seg ? g.sids[k] : 0;
		const row = [];
		let sum = 0;
		for (let i = 0; i < n; i++) {
			let v = f32(dq(g.word, id * n + i) + dq(g.pos, s * n + i));
			if (g.seg) v = f32(v + dq(g.seg, sid * n + i));
			row.push(v);
			sum = f32(sum + v);
		}
		const mean = f32(sum / n);
		sum = 0;
		for (let i = 0; i < n; i++) {
			row[i] = f32(row[i] - mean);
			sum = f32(sum + f32(row[i] * row[i]));
		}
		const e = f32(Math.sqrt(f32(f32(sum / n) + g.eps)));
		for (let i = 0; i < n; i++) out.push(f32(f32(f32(row[i] / e) * dq(g.gamma, i)) + dq(g.beta, i)));
	}
	const mi = [];
	for (let b = 0; b < B; b++) {
		let c = 0;
		for (let s = 0; s < S; s++) if (g.mask && g.mask[b * S + s] === 1) c++;
		mi.push(c);
	}
	return {out, mi};
}

// The plans of a group: shapes (rows of each table), epsilon, kinds of data
function plans(grp) {
	const base = [
		{B: 1, S: 3, n: 8, W: 10, P: 4, G: 2},
		{B: 2, S: 4, n: 16, W: 30, P: 8, G: 2},
		{B: 2, S: 5, n: 32, W: 50, P: 5, G: 3},
		{B: 1, S: 1, n: 4, W: 3, P: 1, G: 1},
		{B: 3, S: 7, n: 64, W: 100, P: 16, G: 2},
	];
	const P = base.map(s => ({...s, kind: 'random'}));
	P.push({...base[1], kind: 'extreme_ids'});
	P.push({...base[2], kind: 'zp_ends'});
	P.push({...base[0], kind: 'zp0'});
	if (grp === 'plain') {
		P.push({...base[1], kind: 'eps_default', eps: null});
		P.push({...base[0], kind: 'eps_0', eps: 0});
		P.push({...base[2], kind: 'eps_1', eps: 1});
		P.push({...base[1], kind: 'eps_100', eps: 100});
		P.push({...base[4], kind: 'data_ends'});
	}
	if (grp === 'mask' || grp === 'segment_mask') {
		P.push({...base[1], kind: 'mask_other_values'});
		P.push({...base[2], kind: 'mask_zeros'});
	}
	return P;
}

async function group(L, dir, rng, dt, grp) {
	const {f32, runNode, writeSpec} = L;
	const [lo, hi] = dt === 'uint8' ? [0, 255] : [-128, 127];
	const seg = grp === 'segment' || grp === 'segment_mask', withMask = grp === 'mask' || grp === 'segment_mask';
	const cases = [];
	for (const p of plans(grp)) {
		const {B, S, n, W, P: PR, G} = p;
		const qt = (rows, zpRange, scale) => {
			const ends = p.kind === 'data_ends';
			const q = Array.from({length: rows * n}, (_, i) => (ends ? (i % 3 === 0 ? lo : i % 3 === 1 ? hi : rng.int(lo, hi)) : rng.int(lo, hi)));
			let zp = rng.int(zpRange[0], zpRange[1]);
			if (p.kind === 'zp_ends') zp = rng.int(0, 1) ? lo : hi;
			if (p.kind === 'zp0') zp = 0;
			return {q, zp, scale: f32(scale)};
		};
		const mid = dt === 'uint8' ? [100, 156] : [-28, 28];
		const word = qt(W, mid, rng.uniform(0.01, 0.05));
		const pos = qt(PR, mid, rng.uniform(0.005, 0.02));
		const sg = seg ? qt(G, mid, rng.uniform(0.005, 0.02)) : null;
		// gamma near 1 and beta near 0 as trained models have them: (q - zp) * scale with the
		// zero point away from q, unless the kind puts it elsewhere; gamma's zero point is never 0
		// but in the zp0 kind, which the suite's stub (gamma's and beta's zero points read as 0)
		// must PASS alone
		const gamma = qt(1, dt === 'uint8' ? [1, 40] : [-128, -90], 1 / rng.int(100, 200));
		if (p.kind === 'zp_ends') gamma.zp = hi;
		const beta = qt(1, mid, rng.uniform(0.001, 0.004));
		const ids = Array.from({length: B * S}, () => rng.int(0, W - 1));
		if (p.kind === 'extreme_ids') ids.forEach((_, i) => { ids[i] = i % 2 ? W - 1 : 0; });
		const sids = seg ? Array.from({length: B * S}, (_, i) => (p.kind === 'extreme_ids' ? (i % 2 ? G - 1 : 0) : rng.int(0, G - 1))) : null;
		let mask = null;
		if (withMask) {
			mask = Array.from({length: B * S}, (_, i) => (i % S === 0 ? 1 : rng.int(0, 3) ? 1 : 0));
			if (p.kind === 'mask_other_values') mask.forEach((_, i) => { if (i % S === 1) mask[i] = i % 2 ? 2 : -1; });
			if (p.kind === 'mask_zeros') mask.fill(0);
		}
		const eps = p.eps === undefined ? f32(1e-5) : p.eps === null ? f32(EPS_DEFAULT) : f32(p.eps);
		const scalar = (name, dtype, v) => ({name, dtype, shape: [], values: [v]});
		const ins = [
			{name: 'input_ids', dtype: 'int32', shape: [B, S], values: ids},
			seg ? {name: 'segment_ids', dtype: 'int32', shape: [B, S], values: sids} : null,
			{name: 'word_embedding', dtype: dt, shape: [W, n], values: word.q},
			{name: 'position_embedding', dtype: dt, shape: [PR, n], values: pos.q},
			seg ? {name: 'segment_embedding', dtype: dt, shape: [G, n], values: sg.q} : null,
			{name: 'gamma', dtype: dt, shape: [n], values: gamma.q},
			{name: 'beta', dtype: dt, shape: [n], values: beta.q},
			withMask ? {name: 'mask', dtype: 'int32', shape: [B, S], values: mask} : null,
			scalar('word_embedding_scale', 'float32', word.scale),
			scalar('position_embedding_scale', 'float32', pos.scale),
			seg ? scalar('segment_embedding_scale', 'float32', sg.scale) : null,
			scalar('gamma_scale', 'float32', gamma.scale),
			scalar('beta_scale', 'float32', beta.scale),
			scalar('word_embedding_zero_point', dt, word.zp),
			scalar('position_embedding_zero_point', dt, pos.zp),
			seg ? scalar('segment_embedding_zero_point', dt, sg.zp) : null,
			scalar('gamma_zero_point', dt, gamma.zp),
			scalar('beta_zero_point', dt, beta.zp),
		];
		const outs = [{name: 'layernorm_out', dtype: 'float32', shape: [B, S, n]}, {name: 'mask_index_out', dtype: 'int32', shape: [B]}];
		const attrs = p.eps === null ? {} : {epsilon: Number.isInteger(p.eps) ? {float: p.eps} : eps};
		const r = await runNode({op: 'QEmbedLayerNormalization', domain: DOMAIN, opset: 1, ins, outs, attrs});
		const m = model(L, {B, S, n, ids, sids, word, pos, seg: sg, gamma, beta, mask, eps});
		// the import's own check: ORT's x86-64 build is the model bit for bit (no fused
		// multiply-adds, the sums in index order); another CPU's build may fuse (the reference's
		// band judges); mask_index_out exactly
		r[0].forEach((v, i) => {
			if (process.arch === 'x64' ? v !== m.out[i] : !(Math.abs(v - m.out[i]) <= 2 ** -12 * (1 + Math.abs(m.out[i]))))
				throw new Error(`QEmbedLayerNormalization ${dt} ${grp} ${p.kind}: ORT ${v} != model ${m.out[i]} at ${i}`);
		});
		r[1].forEach((v, i) => {
			if (v !== m.mi[i]) throw new Error(`QEmbedLayerNormalization ${dt} ${grp} ${p.kind}: mask_index ${v} != ${m.mi[i]} at ${i}`);
		});
		const q = t => ({scale: t.scale, zero_point: t.zp});
		const inputs = {
			input_ids: {shape: [B, S], data: ids},
			word_embedding: {shape: [W, n], quant: q(word), data: word.q},
			position_embedding: {shape: [PR, n], quant: q(pos), data: pos.q},
			gamma: {shape: [n], quant: q(gamma), data: gamma.q},
			beta: {shape: [n], quant: q(beta), data: beta.q},
		};
		if (seg) {
			inputs.segment_ids = {shape: [B, S], data: sids};
			inputs.segment_embedding = {shape: [G, n], quant: q(sg), data: sg.q};
		}
		if (withMask) inputs.mask = {shape: [B, S], data: mask};
		const cattrs = p.eps === null ? {} : {epsilon: eps};
		cases.push({name: `${p.kind}_b${B}s${S}n${n}w${W}p${PR}${seg ? `g${G}` : ''}`, inputs,
			outputs: {layernorm_out: {shape: [B, S, n]}, mask_index_out: {shape: [B]}}, attrs: cattrs,
			golden: {layernorm_out: r[0], mask_index_out: r[1]},
			source: `ONNX Runtime ${L.ortPkg.version} CPU, QEmbedLayerNormalization ${dt}, ${p.kind}${seg ? ', segment' : ''}${withMask ? ', mask' : ''}, epsilon ${p.eps === null ? 'absent (1e-12)' : L.fmt(eps)}`});
	}
	const file = `qembed_layer_norm_${dt === 'uint8' ? 'u8' : 's8'}_${grp}.yaml`;
	const c0 = cases[0];
	const inputs = {input_ids: {dtype: 'int32', shape: c0.inputs.input_ids.shape}};
	for (const k of ['word_embedding', 'position_embedding', 'gamma', 'beta']) inputs[k] = {dtype: dt, shape: c0.inputs[k].shape};
	if (seg) {
		inputs.segment_ids = {dtype: 'int32', shape: c0.inputs.segment_ids.shape};
		inputs.segment_embedding = {dtype: dt, shape: c0.inputs.segment_embedding.shape};
	}
	if (withMask) inputs.mask = {dtype: 'int32', shape: c0.inputs.mask.shape};
	writeSpec(dir, {
		file, op: 'QEmbedLayerNormalization', semantics: 'ort', domain: DOMAIN, opset: 1,
		description: `ONNX Runtime QEmbedLayerNormalization, ${dt} embeddings, gamma and beta${seg ? ', with segment_ids and segment_embedding' : ''}${withMask ? ', with a mask (mask_index_out counts its values equal to 1)' : ' (no mask: mask_index_out is 0)'}: the dequantized embeddings summed and layer-normalized in float32, judged by the reference's band (specs/ort/OPERATORS.md, QEmbedLayerNormalization). Random data, ids at both ends, zero points random, 0 and at the ends of the type${grp === 'plain' ? ', epsilon absent, 0, 1e-5, 1 and 100, data at the ends of the type' : ''}${withMask ? ', mask values other than 0 and 1, an all-zero mask' : ''}.`,
		source: SRC, inputs, outputs: {layernorm_out: {dtype: 'float32', shape: c0.outputs.layernorm_out.shape}, mask_index_out: {dtype: 'int32', shape: c0.outputs.mask_index_out.shape}},
		tolerance: 'exact', cases,
	});
	return {file, cases: cases.length};
}

async function generate(L, dir) {
	const rng = new L.Rng(0x454c4e);
	const files = [];
	let total = 0;
	for (const dt of ['uint8', 'int8'])
		for (const grp of ['plain', 'segment', 'mask', 'segment_mask']) {
			const r = await group(L, dir, rng, dt, grp);
			files.push(r.file);
			total += r.cases;
		}
	return {ops: [{op: 'QEmbedLayerNormalization', files: files.length, cases: total}]};
}

module.exports = {generate};
