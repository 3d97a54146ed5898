// ONNX Runtime's com.microsoft DynamicQuantizeLSTM as golden specs in OUT/ort/imported/ (import.js
// loads every qlinear_*.js of this folder). Schema: onnxruntime/core/graph/contrib_ops/
// quantization_defs.cc; kernel: onnxruntime/contrib_ops/cpu/quantization/dynamic_quantize_lstm.cc
// on onnxruntime/core/providers/cpu/rnn/ (lstm_base.cc, uni_directional_lstm.cc, rnn_helpers.cc).
// The arithmetic and the band: specs/ort/OPERATORS.md (DynamicQuantizeLSTM) and
// reference/ort_qlstm.c, whose band must hold every value written here (no golden tolerance).
'use strict';

const DOMAIN = 'com.microsoft';
const SRC = 'ONNX Runtime contrib op DynamicQuantizeLSTM (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/dynamic_quantize_lstm.cc, onnxruntime/core/providers/cpu/rnn/uni_directional_lstm.cc)';
const ORDER = ['X', 'W', 'R', 'B', 'sequence_lens', 'initial_h', 'initial_c', 'P', 'W_scale', 'W_zero_point', 'R_scale', 'R_zero_point'];

// The plans of a group: shapes, direction, per-column scales, attributes
function plans(grp) {
	const P = [];
	const dirs = ['forward', 'reverse', 'bidirectional'];
	if (grp === 'basic') {
		dirs.forEach((dir, i) => {
			P.push({S: 3, B: 2, I: 4, H: 2, dir, perCol: false});
			P.push({S: 2, B: 3, I: 5, H: 3, dir, perCol: true});
			if (i === 0) P.push({S: 1, B: 1, I: 3, H: 1, dir, perCol: false, kind: 'one_step'});
		});
		P.push({S: 4, B: 2, I: 3, H: 2, dir: 'forward', perCol: true, attrs: {input_forget: 1}, kind: 'input_forget'});
		P.push({S: 3, B: 2, I: 4, H: 2, dir: 'bidirectional', perCol: false, attrs: {clip: 0.75}, kind: 'clip'});
		P.push({S: 3, B: 1, I: 4, H: 2, dir: 'forward', perCol: false, kind: 'no_direction_attr', noDir: true});
	} else if (grp === 'full') {
		dirs.forEach(dir => {
			P.push({S: 4, B: 3, I: 3, H: 2, dir, perCol: false, sl: 'mixed'});
			P.push({S: 3, B: 2, I: 4, H: 3, dir, perCol: true, sl: 'full'});
		});
		P.push({S: 4, B: 3, I: 3, H: 2, dir: 'forward', perCol: true, sl: 'zero', kind: 'zero_length'});
		P.push({S: 3, B: 2, I: 4, H: 2, dir: 'bidirectional', perCol: true, sl: 'mixed', attrs: {input_forget: 1, clip: 1.5}, kind: 'input_forget_clip'});
	} else {
		// no Y: the finished rows keep their last H in the next steps' quantization
		dirs.forEach(dir => P.push({S: 4, B: 3, I: 3, H: 2, dir, perCol: false, sl: 'mixed'}));
		P.push({S: 3, B: 2, I: 4, H: 3, dir: 'bidirectional', perCol: true, sl: 'full'});
		P.push({S: 1, B: 2, I: 3, H: 2, dir: 'forward', perCol: true, sl: 'zero1', kind: 'zero_length'});
	}
	return P;
}

async function group(L, dir, rng, wt, grp) {
	const {f32, runNode, writeSpec} = L;
	// int8 weights stay in [-64, 63]: MLAS's AVX2 U8S8 kernel without VNNI sums pairs of products
	// in int16 with saturation (vpmaddubsw); below it every ISA gives the exact sum
	const [wlo, whi] = wt === 'uint8' ? [0, 255] : [-64, 63];
	const U = (lo, hi) => f32(rng.uniform(lo, hi));
	const cases = [];
	for (const p of plans(grp)) {
		const {S, B, I, H} = p, D = p.dir === 'bidirectional' ? 2 : 1, G = 4 * H;
		const X = Array.from({length: S * B * I}, () => U(-2, 2));
		const Wq = Array.from({length: D * I * G}, () => rng.int(wlo, whi));
		const Rq = Array.from({length: D * H * G}, () => rng.int(wlo, whi));
		const qshape = p.perCol ? [D, G] : [D];
		const nq = p.perCol ? D * G : D;
		// a per-column zero point: all 0 (int8) or one value (uint8) (ZeroPointCheck)
		const zp = () => {
			if (wt === 'int8') return p.perCol ? Array(nq).fill(0) : Array.from({length: nq}, () => rng.int(-3, 3));
			const z = rng.int(100, 156);
			return p.perCol ? Array(nq).fill(z) : Array.from({length: nq}, () => rng.int(100, 156));
		};
		const wz = zp(), rz = zp();
		// scales: gates of order 1
		const wsc = Array.from({length: nq}, () => f32(rng.uniform(0.5, 1.5) * 0.03 / Math.sqrt(I)));
		const rsc = Array.from({length: nq}, () => f32(rng.uniform(0.5, 1.5) * 0.03 / Math.sqrt(H)));
		const Bv = Array.from({length: D * 8 * H}, () => U(-1, 1));
		let sl = null;
		// mixed: the longest row and one a step shorter, at least (the suite's stub that ignores
		// sequence_lens must FAIL every such case)
		if (p.sl === 'mixed') sl = Array.from({length: B}, (_, b) => (b === 0 ? S : b === 1 ? S - 1 : rng.int(1, S)));
		if (p.sl === 'full') sl = Array(B).fill(S);
		if (p.sl === 'zero') sl = Array.from({length: B}, (_, b) => (b === 1 ? 0 : b === 0 ? S : rng.int(1, S)));
		if (p.sl === 'zero1') sl = Array.from({length: B}, (_, b) => (b === 1 ? 0 : 1));
		const full = grp !== 'basic';
		const t = {
			X: {dtype: 'float32', shape: [S, B, I], values: X},
			W: {dtype: wt, shape: [D, I, G], values: Wq},
			R: {dtype: wt, shape: [D, H, G], values: Rq},
			W_scale: {dtype: 'float32', shape: qshape, values: wsc},
			W_zero_point: {dtype: wt, shape: qshape, values: wz},
			R_scale: {dtype: 'float32', shape: qshape, values: rsc},
			R_zero_point: {dtype: wt, shape: qshape, values: rz},
			B: {dtype: 'float32', shape: [D, 8 * H], values: Bv},
		};
		if (full) {
			t.sequence_lens = {dtype: 'int32', shape: [B], values: sl};
			t.initial_h = {dtype: 'float32', shape: [D, B, H], values: Array.from({length: D * B * H}, () => U(-1, 1))};
			t.initial_c = {dtype: 'float32', shape: [D, B, H], values: Array.from({length: D * B * H}, () => U(-2, 2))};
		}
		if (grp === 'full') t.P = {dtype: 'float32', shape: [D, 3 * H], values: Array.from({length: D * 3 * H}, () => U(-1, 1))};
		const ins = ORDER.map(n => (t[n] ? {name: n, ...t[n]} : null));
		const outSpec = {Y: [S, D, B, H], Y_h: [D, B, H], Y_c: [D, B, H]};
		const outNames = grp === 'states' ? ['Y_h', 'Y_c'] : ['Y', 'Y_h', 'Y_c'];
		const attrs = {...(p.noDir ? {} : {direction: p.dir}), hidden_size: H, ...(p.attrs || {})};
		const ortAttrs = {...attrs, ...(attrs.clip !== undefined ? {clip: {float: attrs.clip}} : {})};
		// ORT's outputs are positional: an absent Y is the empty name
		const outs = outNames.map(n => ({name: n, dtype: 'float32', shape: outSpec[n]}));
		const r = await runNode({op: 'DynamicQuantizeLSTM', domain: DOMAIN, opset: 1, ins, outs, attrs: ortAttrs,
			emptyOutputs: grp === 'states' ? 1 : 0});
		// the import's own check: finite, |H| <= 1 + 2^-22 (the reference's band judges the rest)
		r.forEach((vals, k) => vals.forEach((v, i) => {
			if (!Number.isFinite(v) || (outNames[k] !== 'Y_c' && Math.abs(v) > 1 + 2 ** -22))
				throw new Error(`DynamicQuantizeLSTM ${wt} ${grp}: ${outNames[k]}[${i}] = ${v}`);
		}));
		const inputs = {};
		for (const n of ORDER) if (t[n]) inputs[n] = {shape: t[n].shape, data: t[n].values};
		const outputs = {}, golden = {};
		outNames.forEach((n, k) => { outputs[n] = {shape: outSpec[n]}; golden[n] = r[k]; });
		const an = Object.entries(p.attrs || {}).map(([k, v]) => `${k}=${v}`).join(' ');
		cases.push({name: `${p.kind ? `${p.kind}_` : ''}${p.dir}_s${S}b${B}i${I}h${H}_${p.perCol ? 'percol' : 'perdir'}${p.sl ? `_sl_${p.sl}` : ''}`,
			inputs, outputs, attrs, golden,
			source: `ONNX Runtime ${L.ortPkg.version} CPU, DynamicQuantizeLSTM ${wt}, ${p.noDir ? 'direction absent (forward)' : p.dir}, scales ${p.perCol ? 'per column' : 'per direction'}${sl ? `, sequence_lens [${sl.join(', ')}]` : ''}${an ? `, ${an}` : ''}`});
	}
	const file = `dynamic_quantize_lstm_${wt === 'uint8' ? 'u8' : 's8'}_${grp}.yaml`;
	const c0 = cases[0];
	const inputs = {};
	for (const n of ORDER) if (c0.inputs[n]) inputs[n] = {dtype: n === 'sequence_lens' ? 'int32' : /^[WR](_zero_point)?$/.test(n) ? wt : 'float32', shape: c0.inputs[n].shape};
	const outputs = {};
	for (const n of Object.keys(c0.outputs)) outputs[n] = {dtype: 'float32', shape: c0.outputs[n].shape};
	writeSpec(dir, {
		file, op: 'DynamicQuantizeLSTM', semantics: 'ort', domain: DOMAIN, opset: 1,
		description: `ONNX Runtime DynamicQuantizeLSTM, ${wt} W and R${grp === 'full' ? ', with sequence_lens, initial_h, initial_c and the peepholes P' : grp === 'states' ? ', outputs Y_h and Y_c only (no Y: a finished row keeps its last H in the quantization of the next steps), with sequence_lens and initial states' : ', with B'}: X and each step's H quantized to uint8 over the whole matrix, the integer products exact, the float32 gates and MLAS's sigmoid and tanh judged by the reference's band (specs/ort/OPERATORS.md, DynamicQuantizeLSTM). Random data; forward, reverse and bidirectional; scales per direction and per column; input_forget and clip.`,
		source: SRC, inputs, outputs, tolerance: 'exact', cases,
	});
	return {file, cases: cases.length};
}

async function generate(L, dir) {
	const rng = new L.Rng(0x4c53);
	const files = [];
	let total = 0;
	for (const wt of ['uint8', 'int8'])
		for (const grp of ['basic', 'full', 'states']) {
			const r = await group(L, dir, rng, wt, grp);
			files.push(r.file);
			total += r.cases;
		}
	return {ops: [{op: 'DynamicQuantizeLSTM', files: files.length, cases: total}]};
}

module.exports = {generate};
