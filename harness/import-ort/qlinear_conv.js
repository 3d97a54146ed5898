// ONNX Runtime's com.microsoft QLinearConv as golden specs in OUT/ort/imported/ (import.js loads
// every qlinear_*.js of this folder). Kernel: onnxruntime/core/providers/cpu/quantization/
// qlinearconv.cc (the com.microsoft registration with channels_last), its geometry
// onnxruntime/core/providers/cpu/nn/conv_attributes.h, MLAS (onnxruntime/core/mlas/lib/qgemm.cpp,
// qdwconv.cpp, convsym.cpp, quantize.cpp MlasRequantizeOutput). The arithmetic:
// specs/ort/OPERATORS.md and reference/ort_qconv.c.
'use strict';

const DOMAIN = 'com.microsoft';
const SRC = 'ONNX Runtime contrib op QLinearConv (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/core/providers/cpu/quantization/qlinearconv.cc)';

const RANGE = {uint8: [0, 255], int8: [-128, 127]};
const short = t => ({uint8: 'u8', int8: 's8'}[t]);
const rne = v => { const r = Math.round(v); return r - v === 0.5 && r % 2 ? r - 1 : r; };
const prod = a => a.reduce((x, y) => x * y, 1);

// The geometry of x [N, C, sp...] and w [M, C / group, k...] with the attributes (ONNX's
// convPoolShapeInference; ORT's ComputePadAndOutputShape gives the same for what it accepts).
function geom(xs, ws, a) {
	const nsp = xs.length - 2, st = a.strides || Array(nsp).fill(1), dil = a.dilations || Array(nsp).fill(1);
	let pads = a.pads || Array(2 * nsp).fill(0);
	const out = [], head = [];
	for (let i = 0; i < nsp; i++) {
		const keff = (ws[2 + i] - 1) * dil[i] + 1, inn = xs[2 + i];
		let pb = pads[i], pe = pads[i + nsp];
		if (a.auto_pad === 'SAME_UPPER' || a.auto_pad === 'SAME_LOWER') {
			const res = inn % st[i];
			const total = Math.max(0, res === 0 ? keff - st[i] : keff - res);
			const small = total >> 1, big = total - small;
			pb = a.auto_pad === 'SAME_UPPER' ? small : big;
			pe = total - pb;
		} else if (a.auto_pad === 'VALID') pb = pe = 0;
		out.push(Math.floor((inn + pb + pe - keff) / st[i]) + 1);
		head.push(pb);
	}
	return {nsp, st, dil, head, out, group: a.group || 1};
}

// The exact model (reference/ort_qconv.c): acc = sum (x - zx)(w - zw[m]) + B[m], wrapped to
// int32; scale[m] = f32(f32(sx * sw[m]) / sy); y = sat(rne(clamp(f32(f32(acc) * scale))) + zy).
// Returns y in NCHW order (and the accumulators).
function model(L, c) {
	const {f32} = L;
	const g = geom(c.xs, c.ws, c.attrs);
	const [N, C] = c.xs, M = c.ws[0], cg = c.ws[1], mg = M / g.group;
	const insp = c.xs.slice(2), ksp = c.ws.slice(2), nin = prod(insp), nk = prod(ksp), nout = prod(g.out);
	const y = [], accs = [];
	const [lo, hi] = RANGE[c.xt];
	for (let n = 0; n < N; n++)
		for (let m = 0; m < M; m++)
			for (let o = 0; o < nout; o++) {
				const op = [];
				let r = o;
				for (let i = g.nsp - 1; i >= 0; i--) { op[i] = r % g.out[i]; r = Math.floor(r / g.out[i]); }
				let acc = c.B ? c.B[m] : 0;
				const grp = Math.floor(m / mg), zw = c.zw[c.zw.length > 1 ? m : 0];
				for (let kk = 0; kk < nk; kk++) {
					const kp = [];
					let q = kk;
					for (let i = g.nsp - 1; i >= 0; i--) { kp[i] = q % ksp[i]; q = Math.floor(q / ksp[i]); }
					let off = 0, inside = true;
					for (let i = 0; i < g.nsp; i++) {
						const p = op[i] * g.st[i] - g.head[i] + kp[i] * g.dil[i];
						if (p < 0 || p >= insp[i]) { inside = false; break; }
						off = off * insp[i] + p;
					}
					if (!inside) continue;
					for (let ci = 0; ci < cg; ci++) {
						const xv = c.X[(n * C + grp * cg + ci) * nin + off];
						const wv = c.W[(m * cg + ci) * nk + kk];
						acc += (xv - c.zx) * (wv - zw);
					}
				}
				acc |= 0; // int32, wrapping
				accs.push(acc);
				const s = f32(f32(c.sx * c.sw[c.sw.length > 1 ? m : 0]) / c.sy);
				const v = Math.min(hi - c.zy, Math.max(lo - c.zy, f32(f32(acc) * s)));
				y.push(rne(v) + c.zy);
			}
	return {y, accs, out: g.out};
}

// NCHW <-> NHWC of a tensor's values with NCHW shape s.
function toLast(v, s) {
	const [N, C] = s, sp = prod(s.slice(2)), r = [];
	for (let n = 0; n < N; n++) for (let p = 0; p < sp; p++) for (let ch = 0; ch < C; ch++) r.push(v[(n * C + ch) * sp + p]);
	return r;
}
const lastShape = s => [s[0], ...s.slice(2), s[1]];

function ints(rng, n, lo, hi) { return Array.from({length: n}, () => rng.int(lo, hi)); }

// The plans of one (x, w) type pair: shapes, attributes, data kinds.
function plans(xt, wt) {
	const P = [];
	P.push({kind: 'random', xs: [1, 3, 5, 5], ws: [4, 3, 3, 3], attrs: {pads: [1, 1, 1, 1]}});
	P.push({kind: 'random', xs: [2, 4, 6, 5], ws: [6, 2, 2, 3], attrs: {group: 2, strides: [2, 1], pads: [0, 1, 1, 0]}, perCh: true});
	P.push({kind: 'random', xs: [1, 2, 7, 7], ws: [3, 2, 3, 2], attrs: {dilations: [2, 3], strides: [1, 2], pads: [2, 0, 1, 3]}, perCh: true});
	P.push({kind: 'random', xs: [1, 5, 4, 4], ws: [5, 1, 3, 3], attrs: {group: 5, pads: [1, 1, 1, 1]}, perCh: true}); // depthwise
	P.push({kind: 'random', xs: [1, 3, 9], ws: [4, 3, 3], attrs: {strides: [2], pads: [1, 2]}}); // 1-D
	P.push({kind: 'random', xs: [1, 2, 3, 4, 3], ws: [3, 2, 2, 2, 2], attrs: {pads: [1, 0, 1, 0, 1, 0]}, perCh: true}); // 3-D
	P.push({kind: 'random', xs: [1, 3, 6, 5], ws: [4, 3, 3, 2], attrs: {auto_pad: 'SAME_UPPER', strides: [2, 2]}});
	P.push({kind: 'random', xs: [1, 3, 6, 5], ws: [4, 3, 3, 2], attrs: {auto_pad: 'SAME_LOWER', strides: [2, 2]}});
	P.push({kind: 'random', xs: [1, 3, 7], ws: [2, 3, 1], attrs: {auto_pad: 'SAME_UPPER', strides: [4]}}); // a negative total pad
	P.push({kind: 'random', xs: [1, 3, 5, 6], ws: [4, 3, 3, 3], attrs: {auto_pad: 'VALID'}});
	P.push({kind: 'random', xs: [1, 4, 3, 3], ws: [4, 4, 1, 1], attrs: {}, perCh: true}); // pointwise
	P.push({kind: 'random', xs: [2, 3, 4, 5], ws: [4, 3, 3, 3], attrs: {pads: [1, 1, 1, 1], channels_last: 1}, perCh: true});
	P.push({kind: 'random', xs: [1, 4, 8], ws: [6, 2, 3], attrs: {group: 2, strides: [2], pads: [1, 1], channels_last: 1}});
	P.push({kind: 'random', xs: [1, 16, 4, 4], ws: [16, 1, 3, 3], attrs: {group: 16, pads: [1, 1, 1, 1], channels_last: 1}, perCh: true});
	if (wt === 'int8') {
		// w zero points 0: ORT's symmetric paths (MlasConvSym: C a multiple of 4, M of 16;
		// MlasConvSymDepthwise: group a multiple of 16)
		P.push({kind: 'symmetric', xs: [1, 8, 5, 5], ws: [16, 8, 3, 3], attrs: {pads: [1, 1, 1, 1]}, perCh: true});
		P.push({kind: 'symmetric', xs: [1, 16, 5, 5], ws: [16, 1, 3, 3], attrs: {group: 16, pads: [1, 1, 1, 1]}, perCh: true});
		P.push({kind: 'symmetric', xs: [1, 8, 5, 5], ws: [32, 8, 3, 3], attrs: {strides: [2, 2], channels_last: 1}});
	}
	P.push({kind: 'zp_differ', xs: [1, 3, 4, 4], ws: [4, 3, 2, 2], attrs: {}, perCh: true});
	P.push({kind: 'zp_extremes', xs: [1, 2, 4, 4], ws: [3, 2, 2, 2], attrs: {pads: [1, 1, 0, 0]}, perCh: true});
	P.push({kind: 'ties', xs: [1, 2, 4, 4], ws: [4, 2, 1, 1], attrs: {}, perCh: true});
	P.push({kind: 'ties_odd_zp', xs: [1, 1, 4, 4], ws: [2, 1, 1, 1], attrs: {}});
	P.push({kind: 'product_tie', xs: [1, 1, 1, 1], ws: [8, 1, 1, 1], attrs: {}, perCh: true});
	P.push({kind: 'saturate', xs: [1, 3, 4, 4], ws: [4, 3, 3, 3], attrs: {pads: [1, 1, 1, 1]}, perCh: true});
	P.push({kind: 'wrap', xs: [1, 1, 2, 2], ws: [2, 1, 1, 1], attrs: {}});
	return P;
}

// Per channel m a w_scale s (x_scale = y_scale = 1) and an accumulator k (the bias, x at its
// zero point) for which the float32 product f32(k * s) is an exact tie t = j + 1/2 that MLAS
// rounds to even, while the exact k * s lies on the other side of it (a float64 product, ONNX's
// numpy reference, rounds the other way).
function productTies(L, targets) {
	const {f32, next32} = L;
	return targets.map(t => {
		for (let k = 17; k < 5000; k++) {
			const acc = t < 0 ? -k : k;
			for (const s0 of [f32(t / acc)]) for (const s of [s0, next32(s0, 1), next32(s0, -1)]) {
				const v = f32(acc * s), e = acc * s;
				if (v === t && e !== t && rne(e) !== rne(t)) return {acc, s};
			}
		}
		throw new Error(`QLinearConv product_tie: nothing for ${t}`);
	});
}

async function qlinearConv(L, dir, rng) {
	const {f32, runNode, writeSpec} = L;
	const files = [];
	let total = 0;
	const variants = [{xt: 'uint8', wt: 'uint8', b: true}, {xt: 'uint8', wt: 'int8', b: true}, {xt: 'int8', wt: 'int8', b: true},
		{xt: 'uint8', wt: 'int8', b: false}, {xt: 'int8', wt: 'int8', b: false}];
	for (const v of variants) {
		// uint8 x times int8 w keeps w in [-64, 63]: MLAS's AVX2 u8 x s8 kernels without VNNI sum
		// pairs of products in int16 with saturation (vpmaddubsw)
		const narrow = v.xt === 'uint8' && v.wt === 'int8';
		const [xlo, xhi] = RANGE[v.xt], [wlo, whi] = narrow ? [-64, 63] : RANGE[v.wt];
		const P = plans(v.xt, v.wt).filter(p => v.b || ['random', 'symmetric', 'zp_differ', 'saturate'].includes(p.kind));
		const cases = [];
		for (const [pi, p] of P.entries()) {
			const {xs, ws, attrs} = p;
			const M = ws[0];
			const X = ints(rng, prod(xs), xlo, xhi), W = ints(rng, prod(ws), wlo, whi);
			let zx = rng.int(xlo, xhi), zy = rng.int(...RANGE[v.xt]);
			let zw = p.perCh && p.kind === 'zp_differ' ? ints(rng, M, wlo, whi) : [rng.int(wlo, whi)];
			if (p.perCh && zw.length === 1) zw = Array(M).fill(zw[0]);
			let sx = f32(rng.uniform(0.005, 0.05)), sw = (p.perCh ? ints(rng, M, 0, 0) : [0]).map(() => f32(rng.uniform(0.002, 0.05)));
			let sy = 1;
			let B = v.b ? ints(rng, M, -5000, 5000) : null;
			if (p.kind === 'symmetric') zw = zw.map(() => 0);
			if (p.kind === 'zp_extremes') {
				zx = pi % 2 ? xlo : xhi;
				zw = zw.map((_, i) => (i % 2 ? wlo : whi));
				zy = RANGE[v.xt][pi % 2];
			} else if (p.kind === 'ties' || p.kind === 'ties_odd_zp') {
				// sx * sw / sy = 1/2 or 1/4 exactly: odd (or 2 mod 4) accumulators are ties
				sx = 0.5; sw = sw.map((_, i) => (i % 2 ? 0.25 : 0.5)); sy = 0.5;
				zy = p.kind === 'ties_odd_zp' ? (v.xt === 'uint8' ? 127 : -3) : (v.xt === 'uint8' ? 128 : 0);
				X.forEach((_, i) => { X[i] = Math.min(xhi, Math.max(xlo, zx + rng.int(-3, 3))); });
				W.forEach((_, i) => { const z = zw[zw.length > 1 ? Math.floor(i / (prod(ws) / M)) : 0]; W[i] = Math.min(whi, Math.max(wlo, z + rng.int(-2, 2))); });
				if (B) B = ints(rng, M, -3, 3);
			} else if (p.kind === 'product_tie') {
				// x at its zero point: the accumulator is the bias, one that float32 rounds onto a tie
				X.fill(zx);
				const pt = productTies(L, [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5]);
				sx = 1; sy = 1; sw = pt.map(e => e.s); B = pt.map(e => e.acc);
			} else if (p.kind === 'wrap') {
				// the bias plus the products pass 2^31: int32 wraps
				X.fill(xhi); zx = xlo; W.fill(whi); zw = [wlo];
				B = [2147483000, -2147483000];
				sx = 1; sw = [1]; sy = 1e6;
			}
			const c = {xt: v.xt, xs, ws, X, W, zx, zw, sx, sw, B, zy, sy, attrs};
			if (!['ties', 'ties_odd_zp', 'product_tie', 'wrap'].includes(p.kind)) {
				// y_scale from the data: outputs spread over the range (saturate: 4 times past it)
				const r = model(L, {...c, sy: 1, zy: 0, xt: 'int8'});
				const real = r.accs.map((a, i) => a * f32(sx * sw[sw.length > 1 ? Math.floor(i / prod(r.out)) % M : 0]));
				const amax = Math.max(...real.map(Math.abs));
				c.sy = f32(amax / (p.kind === 'saturate' ? 400 : 110) || 1);
			}
			cases.push({p, c});
		}
		for (const {p, c} of cases) {
			const cl = !!c.attrs.channels_last;
			const want = model(L, c);
			const ysNCHW = [c.xs[0], c.ws[0], ...want.out];
			const ys = cl ? lastShape(ysNCHW) : ysNCHW, xs = cl ? lastShape(c.xs) : c.xs;
			const Xin = cl ? toLast(c.X, c.xs) : c.X, wantY = cl ? toLast(want.y, ysNCHW) : want.y;
			const perCh = c.sw.length > 1 || c.zw.length > 1;
			const sw = perCh && c.sw.length === 1 ? Array(c.ws[0]).fill(c.sw[0]) : c.sw;
			const zw = perCh && c.zw.length === 1 ? Array(c.ws[0]).fill(c.zw[0]) : c.zw;
			const ins = [
				{name: 'x', dtype: v.xt, shape: xs, values: Xin},
				{name: 'x_scale', dtype: 'float32', shape: [], values: [c.sx]},
				{name: 'x_zero_point', dtype: v.xt, shape: [], values: [c.zx]},
				{name: 'w', dtype: v.wt, shape: c.ws, values: c.W},
				{name: 'w_scale', dtype: 'float32', shape: perCh ? [c.ws[0]] : [], values: sw},
				{name: 'w_zero_point', dtype: v.wt, shape: perCh ? [c.ws[0]] : [], values: zw},
				{name: 'y_scale', dtype: 'float32', shape: [], values: [c.sy]},
				{name: 'y_zero_point', dtype: v.xt, shape: [], values: [c.zy]},
			];
			if (c.B) ins.push({name: 'B', dtype: 'int32', shape: [c.ws[0]], values: c.B});
			const [y] = await runNode({op: 'QLinearConv', domain: DOMAIN, opset: 1, ins,
				outs: [{name: 'y', dtype: v.xt, shape: ys}], attrs: c.attrs});
			y.forEach((val, i) => {
				if (val !== wantY[i]) throw new Error(`QLinearConv ${v.xt}/${v.wt} ${p.kind}: ORT ${val} != model ${wantY[i]} at ${i}`);
			});
			const q = perCh ? {axis: 0, scales: sw, zero_points: zw} : {scale: c.sw[0], zero_point: c.zw[0]};
			const inputs = {
				x: {shape: xs, quant: {scale: c.sx, zero_point: c.zx}, data: Xin},
				w: {shape: c.ws, quant: q, data: c.W},
			};
			if (c.B) inputs.B = {shape: [c.ws[0]], data: c.B};
			const a = c.attrs;
			const tag = [p.kind, `${c.xs.length - 2}d`, a.group > 1 ? `g${a.group}` : '', a.auto_pad ? a.auto_pad.toLowerCase() : '',
				a.strides && a.strides.some(s => s > 1) ? 's' + a.strides.join('') : '', a.dilations ? 'd' + a.dilations.join('') : '',
				cl ? 'nhwc' : '', perCh ? 'perch' : ''].filter(Boolean).join('_');
			cases.spec = cases.spec || [];
			cases.spec.push({name: `${tag}_${c.xs.join('x')}_m${c.ws[0]}`, inputs,
				outputs: {y: {shape: ys, quant: {scale: c.sy, zero_point: c.zy}}}, attrs: a, golden: {y},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, QLinearConv x ${v.xt} w ${v.wt}, ${p.kind} data, w ${perCh ? 'per channel' : 'per tensor'}${c.B ? ', int32 B' : ''}${cl ? ', channels_last' : ''}`});
		}
		const file = `qlinear_conv_${short(v.xt)}${short(v.wt)}${v.b ? '_b' : ''}.yaml`;
		const first = cases.spec[0];
		const inputs = {x: {dtype: v.xt, shape: first.inputs.x.shape}, w: {dtype: v.wt, shape: first.inputs.w.shape}};
		if (v.b) inputs.B = {dtype: 'int32', shape: first.inputs.B.shape};
		writeSpec(dir, {
			file, op: 'QLinearConv', semantics: 'ort', domain: DOMAIN, opset: 1,
			description: `ONNX Runtime com.microsoft QLinearConv, x ${v.xt}, w ${v.wt}${v.b ? ', int32 B' : ''}: acc = sum (x - x_zp)(w - w_zp[m])${v.b ? ' + B[m]' : ''} in int32, scale[m] = x_scale * w_scale[m] / y_scale in float32, y = saturate(round half to even(float32(acc) * scale[m] in float32) + y_zp) (MlasRequantizeOutput). 1-D, 2-D and 3-D, groups, depthwise, strides, dilations, pads, auto_pad, channels_last, w per tensor and per channel (zero points differing per channel too)${v.b ? ', zero points at the extremes, exact ties (y_zp odd: rounded before it is added), float32 products rounded onto a tie, int32 wrapping and saturation' : ''}.${narrow ? ' w stays in [-64, 63] (MLAS AVX2 u8 x s8 without VNNI saturates pairs of products).' : ''}`,
			source: SRC, inputs, outputs: {y: {dtype: v.xt, shape: first.outputs.y.shape}}, tolerance: 'exact',
			cases: cases.spec,
		});
		files.push(file);
		total += cases.spec.length;
	}
	return {files, cases: total};
}

async function generate(L, dir) {
	const r = await qlinearConv(L, dir, new L.Rng(0x514c43));
	return {ops: [{op: 'QLinearConv', files: r.files.length, cases: r.cases}]};
}

module.exports = {generate};
