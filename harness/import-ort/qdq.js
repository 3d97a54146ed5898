// ONNX QuantizeLinear / DequantizeLinear as ONNX Runtime's CPU kernels compute them
// (onnxruntime/core/providers/cpu/quantization/quantize_linear.cc), opsets 19, 21, 23, 24, 25:
// float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz) with saturate 0 and 1, float4e2m1, int4/uint4
// blocked, float16 inputs and scales, output_dtype and precision. Specs with semantics onnx in
// OUT/onnx/ort/: NAME.yaml where the harness runs them (the float8 types with float32 scales),
// else NAME.yaml.pending (float16 inputs and outputs, the output_dtype / precision attributes,
// axis and block_size written as attributes) that the harness does not load yet (README.md
// there); a spec marked ready is written as NAME.yaml.
'use strict';

const fs = require('fs');
const path = require('path');

const EXT = '.yaml.pending';

// float32 inputs that hit every rounding edge of format f on the grid of scale s: each value,
// each midpoint (the tie) and its float32 neighbours, the largest value and beyond it, the
// smallest subnormal and half of it, zeros, infinities and NaN; both signs. stride > 1 keeps
// every stride-th grid point (the extremes always).
function edges(L, f, s, stride) {
	const {f32, next32} = L;
	const vals = L.miniValues(f);
	const out = [];
	const push = v => out.push(f32(v));
	for (let i = 0; i < vals.length; i++) {
		if (stride > 1 && i % stride && i < vals.length - 2 && i > 2) continue;
		push(vals[i] * s);
		if (i + 1 < vals.length) {
			const mid = f32(((vals[i] + vals[i + 1]) / 2) * s);
			push(mid);
			push(next32(mid, -1));
			push(next32(mid, 1));
		}
	}
	const max = f.max, top = vals[vals.length - 1] - vals[vals.length - 2];
	for (const v of [max + top / 2, max + top, max * 2, 1e30]) {
		push(v * s);
		push(next32(f32(v * s), -1));
	}
	const sub = vals[1];
	push((sub / 2) * s);
	push(next32(f32((sub / 2) * s), 1));
	push((sub * 3) / 4 * s);
	const pos = out.slice();
	const all = [];
	for (const v of pos) all.push(v, -v);
	all.push(0, -0, Infinity, -Infinity, NaN, 3.4028234663852886e38);
	// unique, in a fixed order (first occurrence)
	const seen = new Set(), res = [];
	for (const v of all) {
		const k = Object.is(v, -0) ? '-0' : String(v);
		if (!seen.has(k)) { seen.add(k); res.push(v); }
	}
	return res;
}

// the values of every code of f (NaN once per NaN code; both zeros where the format has them)
function allCodes(L, f) {
	const out = [];
	for (let c = 0; c < 1 << f.bits; c++) out.push(L.miniDecode(f, c));
	return out;
}

// Where ORT's float8 cast with saturate 0 departs from ONNX's (the Cast table of onnx/onnx
// Operators.md; onnx/reference/ops/op_quantize_linear.py casts with ml_dtypes: round to nearest
// even, then NaN (e4m3fn) or inf (e5m2) past the largest finite value). Float8E4M3FN(v, false)
// truncates the mantissa first and turns the NaN pattern 0x7f into 448 (0x7e) before it rounds,
// so |v| in [480, 496) gives +-448; Float8E5M2(v, false) ORs the infinity's bits into 57344's
// (0x7b | 0x7c = 0x7f) when |v| in [61440, 65536) rounds up, giving NaN. Only elements where
// ORT's answer is not ONNX's are moved (an ORT that agrees keeps them in the ready spec).
const DEPART = {
	float8e4m3fn: {lo: 480, hi: 496, onnx: NaN,
		what: '|x / y_scale| in [480, 496), which ONNX rounds to 480, past 448: NaN; ORT gives +-448.',
		needs: 'ONNX Runtime gives +-448 for |x / y_scale| in [480, 496) with saturate 0 (ONNX: NaN; float8.h clears the NaN pattern 0x7f to 0x7e before rounding)'},
	float8e5m2: {lo: 61440, hi: 65536, onnx: Infinity,
		what: '|x / y_scale| in [61440, 65536), which ONNX rounds to 65536, past 57344: +-inf; ORT gives NaN.',
		needs: 'ONNX Runtime gives NaN for |x / y_scale| in [61440, 65536) with saturate 0 (ONNX: +-inf; float8.h ORs 0x7c into 57344\'s code 0x7b)'},
};
function ortDeparts(dt, sat, v, got) {
	const d = DEPART[dt];
	if (sat !== 0 || !d || !(Math.abs(v) >= d.lo && Math.abs(v) < d.hi)) return false;
	const want = Math.sign(v) * d.onnx;
	return !(Number.isNaN(want) ? Number.isNaN(got) : got === want);
}

async function tryRun(L, job, refused) {
	try {
		return await L.runNode(job);
	} catch (e) {
		refused.push(`${job.op} opset ${job.opset} ${job.what}: ${String(e.message || e).split('\n')[0].slice(0, 160)}`);
		return null;
	}
}

async function generate(L, dir) {
	const {f32, f16, writeSpec} = L;
	fs.rmSync(dir, {recursive: true, force: true});
	fs.mkdirSync(dir, {recursive: true});
	const refused = [];
	const index = [];
	let total = 0;
	const write = spec => {
		if (!spec.cases.length) return;
		const file = spec.file;
		spec.file = file + (spec.ready ? '.yaml' : EXT);
		if (spec.ready && !spec.profile) spec.profile = ['onnx-float8'];
		writeSpec(dir, spec);
		index.push({file: spec.file, op: spec.op, opset: spec.opset, cases: spec.cases.length, needs: spec.needs});
		total += spec.cases.length;
	};
	const src = 'ONNX QuantizeLinear / DequantizeLinear (onnx/onnx onnx/defs/quantization/defs.cc, ' +
		'onnx/reference/ops/op_quantize_linear.py), as ONNX Runtime runs them ' +
		'(microsoft/onnxruntime onnxruntime/core/providers/cpu/quantization/quantize_linear.cc)';
	const opsets = [19, 21, 23, 24, 25];

	// QuantizeLinear float32 -> float8, saturate 1 and 0, scales 1, 2^-3 and f32(0.3)
	for (const dt of ['float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz'])
		for (const opset of opsets) {
			const f = L.FMT[dt];
			const cases = [];
			const scales = opset <= 21 ? [1, 0.125, f32(0.3)] : [1];
			const departs = [];
			for (const s of scales)
				for (const sat of [1, 0]) {
					const x = edges(L, f, s, s === 1 ? 1 : 4);
					const n = x.length;
					const attrs = {saturate: sat};
					const r = await tryRun(L, {op: 'QuantizeLinear', domain: 'ai.onnx', opset, what: `${dt} saturate ${sat}`,
						ins: [{name: 'x', dtype: 'float32', shape: [n], values: x, feed: true},
							{name: 'y_scale', dtype: 'float32', shape: [], values: [s]},
							{name: 'y_zero_point', dtype: dt, shape: [], values: [0]}],
						outs: [{name: 'y', dtype: dt, shape: [n]}], attrs}, refused);
					if (!r) continue;
					// the elements where ORT's cast departs from ONNX's go to a pending spec of their own
					const name = `scale_${L.fmt(s).replace(/[.-]/g, 'p')}_saturate${sat}`;
					const source = `ONNX Runtime ${L.ortPkg.version} CPU, QuantizeLinear opset ${opset} to ${dt}, scale ${L.fmt(s)}, saturate ${sat}`;
					const keep = [], off = [];
					x.forEach((v, i) => (ortDeparts(dt, sat, f32(v / s), r[0][i]) ? off : keep).push(i));
					cases.push({name, inputs: {x: {shape: [keep.length], data: keep.map(i => x[i])}},
						outputs: {y: {shape: [keep.length], quant: {scale: s, zero_point: 0}}}, attrs, golden: {y: keep.map(i => r[0][i])}, source});
					if (off.length) departs.push({name, inputs: {x: {shape: [off.length], data: off.map(i => x[i])}},
						outputs: {y: {shape: [off.length], quant: {scale: s, zero_point: 0}}}, attrs, golden: {y: off.map(i => r[0][i])}, source});
				}
			if (departs.length)
				write({file: `quantize_linear_${dt}_saturate0_overflow_opset${opset}`, op: 'QuantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
					description: `QuantizeLinear (opset ${opset}) float32 -> ${dt}, saturate 0: the inputs whose quotient ORT's float8 cast (include/onnxruntime/core/common/float8.h) takes past the largest finite value differently from ONNX's cast: ${DEPART[dt].what}`,
					source: src, inputs: {x: {dtype: 'float32', shape: [departs[0].inputs.x.shape[0]]}},
					outputs: {y: {dtype: dt, shape: [departs[0].inputs.x.shape[0]]}}, tolerance: 'exact', cases: departs,
					needs: DEPART[dt].needs});
			write({file: `quantize_linear_${dt}_opset${opset}`, op: 'QuantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
				description: `QuantizeLinear (opset ${opset}) float32 -> ${dt}: y = saturate(float8(x / y_scale)) with round to nearest even; saturate 1 clamps to +-${f.max}, saturate 0 gives ${f.kind === 'ieee' ? 'inf' : 'NaN'} beyond. Inputs: every value of the grid, every tie and its neighbours, the largest value and beyond, subnormals, zeros, infinities, NaN.`,
				source: src, inputs: {x: {dtype: 'float32', shape: [cases[0] ? cases[0].inputs.x.shape[0] : 0]}},
				outputs: {y: {dtype: dt, shape: [cases[0] ? cases[0].inputs.x.shape[0] : 0]}}, tolerance: 'exact', cases,
				needs: '', ready: true});
		}

	// DequantizeLinear float8 -> float32 (every code) with float32 scales, -> float16 with float16 scales
	for (const dt of ['float8e4m3fn', 'float8e4m3fnuz', 'float8e5m2', 'float8e5m2fnuz'])
		for (const opset of opsets) {
			const f = L.FMT[dt];
			const x = allCodes(L, f);
			const n = x.length;
			for (const T of ['float32', 'float16']) {
				const cases = [];
				for (const s of T === 'float32' ? [1, f32(0.3)] : [f16(0.3)]) {
					const r = await tryRun(L, {op: 'DequantizeLinear', domain: 'ai.onnx', opset, what: `${dt} scale ${T}`,
						ins: [{name: 'x', dtype: dt, shape: [n], values: x},
							{name: 'x_scale', dtype: T, shape: [], values: [s]},
							{name: 'x_zero_point', dtype: dt, shape: [], values: [0]}],
						outs: [{name: 'y', dtype: T, shape: [n]}]}, refused);
					if (!r) continue;
					const quant = {scale: s, zero_point: 0};
					if (T === 'float16') quant.scale_dtype = 'float16';
					cases.push({name: `scale_${L.fmt(s).replace(/[.-]/g, 'p')}`, inputs: {x: {shape: [n], quant, data: x}},
						outputs: {y: {shape: [n]}}, golden: {y: r[0]},
						source: `ONNX Runtime ${L.ortPkg.version} CPU, DequantizeLinear opset ${opset} of every ${dt} code, ${T} scale ${L.fmt(s)}`});
				}
				write({file: `dequantize_linear_${dt}_${T}_opset${opset}`, op: 'DequantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
					description: `DequantizeLinear (opset ${opset}) ${dt} -> ${T}: y = x * x_scale (the scale's type, ${T}), every code of ${dt} (NaN codes, both zeros).`,
					source: src, inputs: {x: {dtype: dt, shape: [n]}}, outputs: {y: {dtype: T, shape: [n]}}, tolerance: 'exact', cases,
					needs: '', ready: true});
			}
		}

	// float4e2m1 (opset 23+): QuantizeLinear edges, DequantizeLinear every code
	for (const opset of [23, 24, 25]) {
		const f = L.FMT.float4e2m1;
		const qc = [], dc = [];
		for (const s of [1, f32(0.3)]) {
			const x = edges(L, f, s, 1).filter(v => !Number.isNaN(v) || s === 1);
			const n = x.length;
			const r = await tryRun(L, {op: 'QuantizeLinear', domain: 'ai.onnx', opset, what: 'float4e2m1',
				ins: [{name: 'x', dtype: 'float32', shape: [n], values: x, feed: true},
					{name: 'y_scale', dtype: 'float32', shape: [], values: [s]},
					{name: 'y_zero_point', dtype: 'float4e2m1', shape: [], values: [0]}],
				outs: [{name: 'y', dtype: 'float4e2m1', shape: [n]}]}, refused);
			if (r) qc.push({name: `scale_${L.fmt(s).replace(/[.-]/g, 'p')}`, inputs: {x: {shape: [n], data: x}},
				outputs: {y: {shape: [n], quant: {scale: s, zero_point: 0}}}, golden: {y: r[0]},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, QuantizeLinear opset ${opset} to float4e2m1, scale ${L.fmt(s)}`});
			const codes = allCodes(L, f);
			const r2 = await tryRun(L, {op: 'DequantizeLinear', domain: 'ai.onnx', opset, what: 'float4e2m1',
				ins: [{name: 'x', dtype: 'float4e2m1', shape: [16], values: codes},
					{name: 'x_scale', dtype: 'float32', shape: [], values: [s]},
					{name: 'x_zero_point', dtype: 'float4e2m1', shape: [], values: [0]}],
				outs: [{name: 'y', dtype: 'float32', shape: [16]}]}, refused);
			if (r2) dc.push({name: `scale_${L.fmt(s).replace(/[.-]/g, 'p')}`, inputs: {x: {shape: [16], quant: {scale: s, zero_point: 0}, data: codes}},
				outputs: {y: {shape: [16]}}, golden: {y: r2[0]},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, DequantizeLinear opset ${opset} of every float4e2m1 code, scale ${L.fmt(s)}`});
		}
		const n0 = qc[0] ? qc[0].inputs.x.shape[0] : 0;
		write({file: `quantize_linear_float4e2m1_opset${opset}`, op: 'QuantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
			description: `QuantizeLinear (opset ${opset}) float32 -> float4e2m1 (max 6, no NaN or inf: saturates), round to nearest even.`,
			source: src, inputs: {x: {dtype: 'float32', shape: [n0]}}, outputs: {y: {dtype: 'float4e2m1', shape: [n0]}}, tolerance: 'exact', cases: qc,
			needs: 'dtype float4e2m1'});
		write({file: `dequantize_linear_float4e2m1_opset${opset}`, op: 'DequantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
			description: `DequantizeLinear (opset ${opset}) float4e2m1 -> float32, every code.`,
			source: src, inputs: {x: {dtype: 'float4e2m1', shape: [16]}}, outputs: {y: {dtype: 'float32', shape: [16]}}, tolerance: 'exact', cases: dc,
			needs: 'dtype float4e2m1'});
	}

	// int4 / uint4 blocked (opset 21+): x [4, 8], block_size 2 and 4 along axis 0 and 1
	const rng = new L.Rng(0x5144);
	for (const dt of ['int4', 'uint4'])
		for (const opset of [21, 23, 25]) {
			const qcases = [], dcases = [];
			const [lo, hi] = dt === 'int4' ? [-8, 7] : [0, 15];
			for (const axis of [0, 1])
				for (const bs of [2, 4]) {
					const shape = [4, 8];
					const sshape = shape.slice();
					sshape[axis] = Math.ceil(shape[axis] / bs);
					const ns = sshape[0] * sshape[1];
					const scales = Array.from({length: ns}, () => f32(rng.uniform(0.05, 0.5)));
					const zps = Array.from({length: ns}, () => rng.int(lo, hi));
					const sidx = i => {
						const r = Math.floor(i / 8), c = i % 8;
						return axis === 0 ? Math.floor(r / bs) * sshape[1] + c : r * sshape[1] + Math.floor(c / bs);
					};
					// x on ties of its block's grid, their neighbours and beyond the range
					const x = Array.from({length: 32}, (_, i) => {
						const s = scales[sidx(i)], k = rng.int(lo - zps[sidx(i)] - 2, hi - zps[sidx(i)] + 2);
						const t = f32((k + 0.5) * s);
						return [t, L.next32(t, 1), L.next32(t, -1), f32(k * s)][i % 4];
					});
					const quant = {axis, block_size: bs, scales, zero_points: zps};
					const attrs = {axis, block_size: bs};
					const r = await tryRun(L, {op: 'QuantizeLinear', domain: 'ai.onnx', opset, what: `${dt} blocked`,
						ins: [{name: 'x', dtype: 'float32', shape, values: x, feed: true},
							{name: 'y_scale', dtype: 'float32', shape: sshape, values: scales},
							{name: 'y_zero_point', dtype: dt, shape: sshape, values: zps}],
						outs: [{name: 'y', dtype: dt, shape}], attrs}, refused);
					// axis and block_size travel in the quantization (qcf_quant), not as attributes
					if (r) qcases.push({name: `axis${axis}_block${bs}`, inputs: {x: {shape, data: x}}, outputs: {y: {shape, quant}},
						golden: {y: r[0]}, source: `ONNX Runtime ${L.ortPkg.version} CPU, QuantizeLinear opset ${opset} to ${dt}, axis ${axis}, block_size ${bs}`});
					const q = Array.from({length: 32}, (_, i) => (i < 2 ? [lo, hi][i] : rng.int(lo, hi)));
					const r2 = await tryRun(L, {op: 'DequantizeLinear', domain: 'ai.onnx', opset, what: `${dt} blocked`,
						ins: [{name: 'x', dtype: dt, shape, values: q},
							{name: 'x_scale', dtype: 'float32', shape: sshape, values: scales},
							{name: 'x_zero_point', dtype: dt, shape: sshape, values: zps}],
						outs: [{name: 'y', dtype: 'float32', shape}], attrs}, refused);
					if (r2) dcases.push({name: `axis${axis}_block${bs}`, inputs: {x: {shape, quant, data: q}}, outputs: {y: {shape}},
						golden: {y: r2[0]}, source: `ONNX Runtime ${L.ortPkg.version} CPU, DequantizeLinear opset ${opset} of ${dt}, axis ${axis}, block_size ${bs}`});
				}
			write({file: `quantize_linear_${dt}_blocked_opset${opset}`, op: 'QuantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
				description: `QuantizeLinear (opset ${opset}) float32 -> ${dt}, blocked (block_size along axis): y = saturate(rint(x / scale) + zp), ties, their neighbours and values beyond the range.`,
				source: src, inputs: {x: {dtype: 'float32', shape: [4, 8]}}, outputs: {y: {dtype: dt, shape: [4, 8]}}, tolerance: 'exact', cases: qcases,
				needs: '', ready: true, profile: ['onnx-int4-blocked']});
			write({file: `dequantize_linear_${dt}_blocked_opset${opset}`, op: 'DequantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
				description: `DequantizeLinear (opset ${opset}) ${dt} -> float32, blocked: y = (x - zp) * scale.`,
				source: src, inputs: {x: {dtype: dt, shape: [4, 8]}}, outputs: {y: {dtype: 'float32', shape: [4, 8]}}, tolerance: 'exact', cases: dcases,
				needs: '', ready: true, profile: ['onnx-int4-blocked']});
		}

	// float16 x and scale: -> int8, uint8, float8e4m3fn; opset 23+ also precision = float (1), in
	// a file of its own: without precision ONNX's text divides in the scale's type (float16), ORT
	// in float32, so the precision-absent cases of opset 23+ record ORT's reading only
	const INF_MIN = 'ONNX Runtime gives the type\'s minimum for +inf (ONNX saturates to the maximum, as ORT\'s float32 path does)';
	for (const opset of [19, 21, 23, 25])
		for (const dt of ['int8', 'uint8', 'float8e4m3fn']) {
			const f8 = L.FMT[dt];
			const s = f16(0.3);
			let x;
			if (f8) x = edges(L, f8, s, 4).map(f16);
			else {
				const [lo, hi] = dt === 'int8' ? [-128, 127] : [0, 255];
				x = [];
				for (let k = lo - 2; k <= hi + 2; k += 3) {
					const t = f16((k + 0.5) * s);
					x.push(t, f16(k * s));
				}
				x.push(Infinity, -Infinity, 0, -0, 65504, -65504);
			}
			const uniq = [], seen = new Set();
			for (const v of x) { const k = Object.is(v, -0) ? '-0' : String(v); if (!seen.has(k)) { seen.add(k); uniq.push(v); } }
			x = uniq.filter(v => !Number.isNaN(v));
			const n = x.length;
			for (const prec of opset >= 23 ? [null, 1] : [null]) {
				const attrs = prec ? {precision: prec} : {};
				const r = await tryRun(L, {op: 'QuantizeLinear', domain: 'ai.onnx', opset, what: `float16 -> ${dt}${prec ? ' precision float' : ''}`,
					ins: [{name: 'x', dtype: 'float16', shape: [n], values: x, feed: true},
						{name: 'y_scale', dtype: 'float16', shape: [], values: [s]},
						{name: 'y_zero_point', dtype: dt, shape: [], values: [0]}],
					outs: [{name: 'y', dtype: dt, shape: [n]}], attrs}, refused);
				if (!r) continue;
				const cases = [{name: prec ? 'precision_float32' : 'default_precision', inputs: {x: {shape: [n], data: x}},
					outputs: {y: {shape: [n], quant: {scale: s, zero_point: 0, scale_dtype: 'float16'}}}, attrs, golden: {y: r[0]},
					source: `ONNX Runtime ${L.ortPkg.version} CPU, QuantizeLinear opset ${opset} float16 -> ${dt}, float16 scale ${L.fmt(s)}${prec ? ', precision 1 (float)' : ''}`}];
				const ownDefault = opset >= 23 && !prec;
				write({file: `quantize_linear_float16_to_${dt}${ownDefault ? '_no_precision' : ''}_opset${opset}`, op: 'QuantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
					description: `QuantizeLinear (opset ${opset}) with float16 x and float16 y_scale -> ${dt}${prec ? ', precision 1 (float32 division)' : opset >= 23 ? ', precision absent' : ''}.`,
					source: src, inputs: {x: {dtype: 'float16', shape: [n]}}, outputs: {y: {dtype: dt, shape: [n]}}, tolerance: 'exact', cases,
					needs: ownDefault ? 'ONNX Runtime divides in float32; ONNX\'s text, without precision, in the scale\'s type (float16)' : dt === 'float8e4m3fn' ? '' : INF_MIN,
					ready: !ownDefault && dt === 'float8e4m3fn'});
			}
		}

	// output_dtype (opset 21+): no zero point input, the output type from the attribute
	const DTN = {int8: 3, uint8: 2, int4: 22, uint4: 21, float8e4m3fn: 17, float8e5m2: 19};
	for (const opset of [21, 23, 25]) {
		const cases = [];
		for (const dt of Object.keys(DTN)) {
			const s = f32(0.3);
			const f8 = L.FMT[dt];
			const x = f8 ? edges(L, f8, s, 8) : Array.from({length: 40}, (_, i) => f32((i - 20 + 0.5 * (i % 2)) * s * (dt.endsWith('4') ? 0.5 : 7)));
			const n = x.length;
			const attrs = {output_dtype: DTN[dt]};
			const r = await tryRun(L, {op: 'QuantizeLinear', domain: 'ai.onnx', opset, what: `output_dtype ${dt}`,
				ins: [{name: 'x', dtype: 'float32', shape: [n], values: x, feed: true},
					{name: 'y_scale', dtype: 'float32', shape: [], values: [s]}],
				outs: [{name: 'y', dtype: dt, shape: [n]}], attrs}, refused);
			if (!r) continue;
			// one spec per output type (a case cannot change a dtype)
			write({file: `quantize_linear_output_dtype_${dt}_opset${opset}`, op: 'QuantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
				description: `QuantizeLinear (opset ${opset}) without y_zero_point, the output type ${dt} given by the attribute output_dtype (${DTN[dt]}); zero point 0.`,
				source: src, inputs: {x: {dtype: 'float32', shape: [n]}}, outputs: {y: {dtype: dt, shape: [n]}}, tolerance: 'exact',
				cases: [{name: 'output_dtype', inputs: {x: {shape: [n], data: x}}, outputs: {y: {shape: [n], quant: {scale: s, zero_point: 0}}},
					attrs, golden: {y: r[0]}, source: `ONNX Runtime ${L.ortPkg.version} CPU, QuantizeLinear opset ${opset} output_dtype ${DTN[dt]} (${dt}), scale ${L.fmt(s)}, no zero point input`}],
				needs: '', ready: true, profile: [f8 ? 'onnx-float8' : 'onnx-qdq']});
			void cases;
		}
	}

	// bfloat16: ORT 1.30's CPU provider has no bfloat16 QuantizeLinear; DequantizeLinear to bfloat16
	for (const opset of [21, 23]) {
		const codes = allCodes(L, L.FMT.float8e4m3fn);
		const s = L.bf16(0.3);
		const r = await tryRun(L, {op: 'DequantizeLinear', domain: 'ai.onnx', opset, what: 'float8e4m3fn -> bfloat16',
			ins: [{name: 'x', dtype: 'float8e4m3fn', shape: [256], values: codes},
				{name: 'x_scale', dtype: 'bfloat16', shape: [], values: [s]}],
			outs: [{name: 'y', dtype: 'bfloat16', shape: [256]}]}, refused);
		if (r) write({file: `dequantize_linear_float8e4m3fn_bfloat16_opset${opset}`, op: 'DequantizeLinear', semantics: 'onnx', domain: 'ai.onnx', opset,
			description: `DequantizeLinear (opset ${opset}) float8e4m3fn -> bfloat16 with a bfloat16 scale, every code.`,
			source: src, inputs: {x: {dtype: 'float8e4m3fn', shape: [256]}}, outputs: {y: {dtype: 'bfloat16', shape: [256]}}, tolerance: 'exact',
			cases: [{name: 'scale_bf16', inputs: {x: {shape: [256], quant: {scale: s, zero_point: 0, scale_dtype: 'bfloat16'}, data: codes}},
				outputs: {y: {shape: [256]}}, golden: {y: r[0]}, source: `ONNX Runtime ${L.ortPkg.version} CPU, DequantizeLinear opset ${opset}, bfloat16 scale`}],
			needs: '', ready: true});
		const xs = [0.5, 1.5, 2.5, -2.5, 100, -300, 1e10].map(L.bf16);
		await tryRun(L, {op: 'QuantizeLinear', domain: 'ai.onnx', opset, what: 'bfloat16 -> int8',
			ins: [{name: 'x', dtype: 'bfloat16', shape: [xs.length], values: xs},
				{name: 'y_scale', dtype: 'bfloat16', shape: [], values: [L.bf16(1)]},
				{name: 'y_zero_point', dtype: 'int8', shape: [], values: [0]}],
			outs: [{name: 'y', dtype: 'int8', shape: [xs.length]}]}, refused);
	}

	// README: what is here, what each file needs from the harness, what ORT refused
	const R = [];
	R.push('# ONNX QuantizeLinear / DequantizeLinear goldens from ONNX Runtime');
	R.push('');
	R.push('Generated by `make import-ort` (harness/import-ort/import.js, qdq.js): do not edit by hand.');
	R.push('');
	R.push('Each file is one QuantizeLinear or DequantizeLinear node at one ONNX opset, run by ONNX');
	R.push('Runtime\'s CPU execution provider, as a qconform spec (semantics onnx) whose explicit cases');
	R.push('carry ORT\'s outputs as `golden:`. Provenance in every file: the npm package and version, the');
	R.push(`sha256 of the libonnxruntime it ran, the opset and domain. Source: ${L.ortPkg.name} ${L.ortPkg.version}.`);
	R.push('');
	R.push('The files whose `needs` column is empty are `*.yaml` and run with the rest of specs/. The');
	R.push('others are `*.yaml.pending`: each records where ONNX Runtime departs from ONNX (the `needs`');
	R.push('column says how), or needs something the harness does not load yet.');
	R.push('`qconform run specs` skips them; a spec marked ready in qdq.js is written');
	R.push('as `.yaml` and joins the run. Float8 and float4');
	R.push('values are written as their numbers (448, -0.0, .nan); a NaN input code is written .nan.');
	R.push('');
	R.push(`## ${index.length} files, ${total} cases`);
	R.push('');
	R.push('| file | op | opset | cases | needs |');
	R.push('|---|---|---|---|---|');
	for (const e of index) R.push(`| ${e.file} | ${e.op} | ${e.opset} | ${e.cases} | ${e.needs} |`);
	R.push('');
	R.push('## Where ONNX Runtime departs from ONNX');
	R.push('');
	R.push('The reference computes ONNX (specs/onnx/OPERATORS.md); a golden value is checked exactly, a NaN');
	R.push('only against a NaN and an infinity only against the same infinity. Every difference the');
	R.push('goldens show is listed here, and its cases are in a `.yaml.pending` file, out of the run:');
	R.push('');
	R.push('- **float8e4m3fn, saturate 0, |x / y_scale| in [480, 496)**: ONNX Runtime gives +-448, ONNX');
	R.push('  NaN. ONNX rounds to nearest even first: these round to 480, past the largest value 448, so');
	R.push('  NaN (the Cast table of onnx/onnx Operators.md; op_quantize_linear.py casts with ml_dtypes).');
	R.push('  `Float8E4M3FN(v, false)` (include/onnxruntime/core/common/float8.h, microsoft/onnxruntime)');
	R.push('  truncates the mantissa, turns the NaN pattern 0x7f into 0x7e (448), and rounds up (to NaN)');
	R.push('  only when the bits below are at least half a step: [480, 496) stays 448.');
	R.push('  `quantize_linear_float8e4m3fn_saturate0_overflow_opset*.yaml.pending`.');
	R.push('- **float8e5m2, saturate 0, |x / y_scale| in [61440, 65536)**: ONNX Runtime gives NaN, ONNX');
	R.push('  +-inf (the tie 61440 goes to the even 65536, past 57344). `Float8E5M2(v, false)` writes');
	R.push('  `val |= 0x7C` into the code of 57344 (0x7b) when it rounds up: 0x7f, a NaN. At 65536 and');
	R.push('  beyond it gives the infinity. `quantize_linear_float8e5m2_saturate0_overflow_opset*.yaml.pending`.');
	R.push('- The fnuz types, saturate 1, and every other input of the float8 specs agree bit for bit,');
	R.push('  -0 included (e4m3fn and e5m2 keep -0: neither ONNX nor ONNX Runtime adds the zero point).');
	R.push('- float16 x and scale: the `needs` column above (ONNX Runtime gives the type\'s minimum for');
	R.push('  +inf to int8 and uint8; ONNX Runtime divides in float32 where ONNX\'s text, without');
	R.push('  `precision`, divides in float16).');
	R.push('');
	R.push('Float8 zero points are not in the goldens (every model here has zero point 0). ONNX Runtime\'s');
	R.push('QuantizeLinear does not read a float8 zero point, and its DequantizeLinear refuses one that is');
	R.push('not 0 (onnxruntime/core/providers/cpu/quantization/quantize_linear.cc); ONNX\'s reference does');
	R.push('the same (op_quantize_linear.py, op_dequantize_linear.py), and so does qconform\'s reference');
	R.push('(specs/onnx/OPERATORS.md, "Float8 and float4").');
	R.push('');
	R.push('## Refused by ONNX Runtime');
	R.push('');
	R.push('Models the generator built that ORT\'s CPU provider would not run (no golden exists):');
	R.push('');
	for (const r of refused) R.push(`- ${r}`);
	if (!refused.length) R.push('- none');
	R.push('');
	fs.writeFileSync(path.join(dir, 'README.md'), R.join('\n'));
	return {files: index.length, cases: total};
}

module.exports = {generate};
