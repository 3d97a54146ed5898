// ONNX Runtime's com.microsoft quantized pooling and concatenation: QLinearAveragePool,
// QLinearGlobalAveragePool, QLinearConcat and NhwcMaxPool, and com.microsoft QuantizeLinear, as
// golden specs in OUT/ort/imported/.
// Definitions: onnxruntime/core/graph/contrib_ops/quantization_defs.cc and contrib_defs.cc
// (schemas); the CPU kernels onnxruntime/contrib_ops/cpu/quantization/qlinear_pool.cc,
// qlinear_global_average_pool.cc, qlinear_concat.cc, nhwc_max_pool.cc; MLAS
// onnxruntime/core/mlas/lib/qlgavgpool.cpp and quantize.cpp. The arithmetic and what each case
// exercises: specs/ort/OPERATORS.md, reference/ort_qlinear_pool.c.
'use strict';

const DOMAIN = 'com.microsoft';
const RANGE = {uint8: [0, 255], int8: [-128, 127]};
const prod = a => a.reduce((p, v) => p * v, 1);

// PoolAttributes' output size (ORT 1.30: a ceil_mode window that would start at or past
// in + pad_head is dropped); auto_pad pads as ComputeSizePadDilations does.
function poolGeom(inSp, a) {
	const n = inSp.length, k = a.kernel_shape, s = a.strides || k.map(() => 1);
	const dil = a.dilations || k.map(() => 1), pads = a.pads || new Array(2 * n).fill(0);
	const out = [], head = [];
	for (let i = 0; i < n; i++) {
		let pb = pads[i], total = pads[i] + pads[i + n];
		if (a.auto_pad === 'VALID') pb = total = 0;
		else if (a.auto_pad === 'SAME_UPPER' || a.auto_pad === 'SAME_LOWER') {
			const target = Math.ceil(inSp[i] / s[i]);
			total = (target - 1) * s[i] + k[i] - inSp[i];
			pb = a.auto_pad === 'SAME_UPPER' ? Math.trunc(total / 2) : Math.trunc((total + 1) / 2);
		}
		const num = inSp[i] + total - dil[i] * (k[i] - 1) - 1;
		let o = (a.ceil_mode ? Math.ceil(num / s[i]) : Math.floor(num / s[i])) + 1;
		if (a.ceil_mode && (o - 1) * s[i] >= inSp[i] + pb) o--;
		out.push(o);
		head.push(pb);
	}
	return {out, head};
}

function scalar(name, dtype, v) { return {name, dtype, shape: [], values: [v]}; }

// data of a tensor: 'random' uniform over the type, 'edges' the ends first
function data(rng, dt, n, kind) {
	const [lo, hi] = RANGE[dt];
	if (kind === 'edges') return Array.from({length: n}, (_, i) => (i < 4 ? [lo, hi, lo + 1, hi - 1][i] : rng.int(lo, hi)));
	if (kind === 'high') return Array.from({length: n}, () => rng.int(hi - 20, hi));
	if (kind === 'low') return Array.from({length: n}, () => rng.int(lo, lo + 20));
	return Array.from({length: n}, () => rng.int(lo, hi));
}

// one spec per (op, dtype): cases with their own shapes, quant and attributes
function writeOp(L, dir, {file, op, dt, description, source, names, cases}) {
	const c0 = cases[0];
	const inputs = {}, outputs = {};
	for (const nm of names) inputs[nm] = {dtype: dt, shape: c0.inputs[nm].shape};
	for (const [nm, t] of Object.entries(c0.outputs)) outputs[nm] = {dtype: dt, shape: t.shape};
	L.writeSpec(dir, {file, op, semantics: 'ort', domain: DOMAIN, opset: 1, description, source,
		inputs, outputs, tolerance: 'exact', cases});
	return file;
}

// ---- QLinearAveragePool and QLinearGlobalAveragePool ---------------------------------------

function nhwc(shape) { return [shape[0], ...shape.slice(2), shape[1]]; }
// the values f(n, c, spatial index) of an NCHW-shaped tensor, laid out NCHW or channels last
function lay(shape, cl, f) {
	const N = shape[0], C = shape[1], S = prod(shape.slice(2)), out = [];
	for (let n = 0; n < N; n++)
		if (cl) { for (let s = 0; s < S; s++) for (let c = 0; c < C; c++) out.push(f(n, c, s)); } else {
			for (let c = 0; c < C; c++) for (let s = 0; s < S; s++) out.push(f(n, c, s));
		}
	return out;
}

async function avgCase(L, dt, c) {
	const attrs = {...c.attrs};
	const cl = !!attrs.channels_last;
	const nchw = c.shape;
	const {out} = poolGeom(nchw.slice(2), attrs);
	const yN = [nchw[0], nchw[1], ...out];
	const xs = cl ? nhwc(nchw) : nchw, ys = cl ? nhwc(yN) : yN;
	const [y] = await L.runNode({op: 'QLinearAveragePool', domain: DOMAIN, opset: 1,
		ins: [{name: 'x', dtype: dt, shape: xs, values: c.x}, scalar('x_scale', 'float32', c.qx.scale),
			scalar('x_zero_point', dt, c.qx.zero_point), scalar('y_scale', 'float32', c.qy.scale),
			scalar('y_zero_point', dt, c.qy.zero_point)],
		outs: [{name: 'y', dtype: dt, shape: ys}], attrs});
	if (y.length !== prod(ys)) throw new Error(`QLinearAveragePool ${c.name}: ${y.length} values, expected shape ${ys}`);
	return {name: c.name, inputs: {x: {shape: xs, quant: c.qx, data: c.x}}, outputs: {y: {shape: ys, quant: c.qy}},
		attrs, golden: {y}, source: `ONNX Runtime ${L.ortPkg.version} CPU, QLinearAveragePool ${dt} ${c.what}`};
}

async function gavgCase(L, dt, c) {
	const cl = !!c.channels_last;
	const yN = [c.shape[0], c.shape[1], ...c.shape.slice(2).map(() => 1)];
	const xs = cl ? nhwc(c.shape) : c.shape, ys = cl ? nhwc(yN) : yN;
	const attrs = cl ? {channels_last: 1} : {};
	const [y] = await L.runNode({op: 'QLinearGlobalAveragePool', domain: DOMAIN, opset: 1,
		ins: [{name: 'x', dtype: dt, shape: xs, values: c.x}, scalar('x_scale', 'float32', c.qx.scale),
			scalar('x_zero_point', dt, c.qx.zero_point), scalar('y_scale', 'float32', c.qy.scale),
			scalar('y_zero_point', dt, c.qy.zero_point)],
		outs: [{name: 'y', dtype: dt, shape: ys}], attrs});
	if (y.length !== prod(ys)) throw new Error(`QLinearGlobalAveragePool ${c.name}: ${y.length} values`);
	return {name: c.name, inputs: {x: {shape: xs, quant: c.qx, data: c.x}}, outputs: {y: {shape: ys, quant: c.qy}},
		attrs, golden: {y}, source: `ONNX Runtime ${L.ortPkg.version} CPU, QLinearGlobalAveragePool ${dt} ${c.what}`};
}

function q(f32, scale, zp) { return {scale: f32(scale), zero_point: zp}; }

async function avgPool(L, dir, rng) {
	const {f32} = L;
	const files = [];
	let total = 0;
	for (const dt of ['uint8', 'int8']) {
		const [lo, hi] = RANGE[dt];
		const mid = dt === 'uint8' ? 128 : 0;
		const rq = () => q(f32, rng.uniform(0.01, 0.1), rng.int(lo + 30, hi - 30));
		const specs = [];
		// 2-D: strides, pads, ceil_mode, count_include_pad, channels_last
		for (const cl of [0, 1])
			for (const [kern, str, pads] of [[[2, 2], [1, 1], [0, 0, 0, 0]], [[3, 3], [2, 2], [1, 1, 1, 1]], [[2, 3], [2, 1], [1, 0, 0, 2]]])
				for (const ceil of [0, 1])
					for (const cip of [0, 1]) {
						const shape = [2, 3, 5, 7];
						specs.push({name: `2d_k${kern.join('x')}_s${str.join('x')}_p${pads.join('')}_ceil${ceil}_cip${cip}${cl ? '_nhwc' : ''}`,
							shape, x: data(rng, dt, prod(shape)), qx: rq(), qy: rq(),
							attrs: {kernel_shape: kern, strides: str, pads, ceil_mode: ceil, count_include_pad: cip, ...(cl ? {channels_last: 1} : {})},
							what: `2-D kernel ${kern} strides ${str} pads ${pads} ceil_mode ${ceil} count_include_pad ${cip}${cl ? ' channels_last' : ''}, random data`});
					}
		// 1-D and 3-D
		for (const cl of [0, 1])
			for (const cip of [0, 1]) {
				specs.push({name: `1d_k3_s2_p12_ceil1_cip${cip}${cl ? '_nhwc' : ''}`, shape: [2, 3, 10], x: data(rng, dt, 60), qx: rq(), qy: rq(),
					attrs: {kernel_shape: [3], strides: [2], pads: [1, 2], ceil_mode: 1, count_include_pad: cip, ...(cl ? {channels_last: 1} : {})},
					what: `1-D kernel 3 stride 2 pads 1, 2 ceil_mode 1 count_include_pad ${cip}${cl ? ' channels_last' : ''}`});
				specs.push({name: `3d_k222_s212_p1_cip${cip}${cl ? '_nhwc' : ''}`, shape: [1, 2, 4, 3, 5], x: data(rng, dt, 120), qx: rq(), qy: rq(),
					attrs: {kernel_shape: [2, 2, 2], strides: [2, 1, 2], pads: [1, 0, 1, 0, 1, 1], count_include_pad: cip, ...(cl ? {channels_last: 1} : {})},
					what: `3-D kernel 2x2x2 strides 2, 1, 2 pads 1 0 1 0 1 1 count_include_pad ${cip}${cl ? ' channels_last' : ''}`});
			}
		// auto_pad
		for (const ap of ['VALID', 'SAME_UPPER', 'SAME_LOWER'])
			for (const ceil of [0, 1])
				specs.push({name: `auto_pad_${ap.toLowerCase()}_ceil${ceil}`, shape: [1, 2, 6, 5], x: data(rng, dt, 60), qx: rq(), qy: rq(),
					attrs: {auto_pad: ap, kernel_shape: [3, 2], strides: [2, 2], ceil_mode: ceil, count_include_pad: 1},
					what: `auto_pad ${ap} kernel 3x2 strides 2 ceil_mode ${ceil} count_include_pad 1`});
		// the global path: a kernel the size of the image and no pads (the zero point added after
		// rounding); ties with an odd output zero point tell the two paths apart
		for (const cl of [0, 1]) {
			specs.push({name: `global_path_random${cl ? '_nhwc' : ''}`, shape: [2, 3, 4, 5], x: data(rng, dt, 120), qx: rq(), qy: rq(),
				attrs: {kernel_shape: [4, 5], strides: [2, 2], ...(cl ? {channels_last: 1} : {})},
				what: `kernel 4x5 over a 4x5 image, no pads: MLAS's global average path${cl ? ', channels_last' : ''}`});
			specs.push({name: `global_path_ties${cl ? '_nhwc' : ''}`, shape: [2, 4, 2], x: lay([2, 4, 2], cl, (n, c, w) => mid + c + 4 * n - 4 + w), qx: q(f32, 1, mid), qy: q(f32, 1, mid + 1),
				attrs: {kernel_shape: [2], ...(cl ? {channels_last: 1} : {})},
				what: `kernel 2 over an image of 2, no pads (global path): averages x.5 with an odd output zero point, rounded before the zero point is added${cl ? ', channels_last' : ''}`});
			specs.push({name: `float_path_ties${cl ? '_nhwc' : ''}`, shape: [2, 4, 3], x: lay([2, 4, 3], cl, (n, c, w) => mid + ((c + 4 * n) % 7) - 3 + w),
				qx: q(f32, 1, mid), qy: q(f32, 1, mid + 1), attrs: {kernel_shape: [2], ...(cl ? {channels_last: 1} : {})},
				what: `kernel 2 stride 1 over an image of 3 (the float path): averages x.5 with an odd output zero point, the zero point added before rounding${cl ? ', channels_last' : ''}`});
		}
		// edges: zero points at the ends, saturation both ways, full range
		for (const [zx, zy] of [[lo, hi], [hi, lo], [lo, lo], [hi, hi]])
			specs.push({name: `zp_${zx}_${zy}`, shape: [1, 2, 4, 4], x: data(rng, dt, 32, 'edges'), qx: q(f32, 0.05, zx), qy: q(f32, 0.07, zy),
				attrs: {kernel_shape: [2, 2], strides: [1, 1], pads: [1, 1, 0, 0]},
				what: `zero points x ${zx}, y ${zy} (the ends of ${dt}), edge data: saturation`});
		specs.push({name: 'saturate_both', shape: [1, 2, 4, 4], x: data(rng, dt, 32, 'edges'), qx: q(f32, 0.5, mid), qy: q(f32, 0.01, mid),
			attrs: {kernel_shape: [2, 2], strides: [2, 2]}, what: 'y_scale 50 times smaller than x_scale: averages saturate at both ends'});
		specs.push({name: 'full_range', shape: [1, 4, 8, 8], x: Array.from({length: 256}, (_, i) => lo + i), qx: q(f32, 0.02, mid), qy: q(f32, 0.02, mid),
			attrs: {kernel_shape: [3, 3], strides: [1, 1], pads: [1, 1, 1, 1], count_include_pad: 0}, what: 'every value of the type once, kernel 3x3 pads 1'});
		const cases = [];
		for (const c of specs) cases.push(await avgCase(L, dt, c));
		files.push(writeOp(L, dir, {file: `qlinear_average_pool_${dt}.yaml`, op: 'QLinearAveragePool', dt, names: ['x'], cases,
			description: `ONNX Runtime QLinearAveragePool, ${dt}: x dequantized in float32, each window summed in float32 (row-major order of the window), divided by its count (the kernel's size with count_include_pad, else the taps inside x), y = nearbyintf(avg / y_scale + y_zero_point) saturated; a kernel the size of the image without pads takes MLAS's global average path (integer sum, one float32 scale, the zero point added after rounding). 1-D, 2-D and 3-D, channels_last, strides, pads, ceil_mode, auto_pad, ties, saturation and zero points at the ends.`,
			source: 'ONNX Runtime contrib op QLinearAveragePool (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/qlinear_pool.cc)'}));
		total += cases.length;
	}
	return {files, cases: total};
}

async function globalAvgPool(L, dir, rng) {
	const {f32} = L;
	const files = [];
	let total = 0;
	for (const dt of ['uint8', 'int8']) {
		const [lo, hi] = RANGE[dt];
		const mid = dt === 'uint8' ? 128 : 0;
		const rq = () => q(f32, rng.uniform(0.01, 0.1), rng.int(lo + 30, hi - 30));
		const specs = [];
		for (const cl of [0, 1])
			for (const shape of [[2, 3, 7], [1, 5, 4, 6], [2, 3, 2, 3, 4], [1, 17, 9, 9]])
				specs.push({name: `${shape.length - 2}d_${shape.join('x')}${cl ? '_nhwc' : ''}`, shape, channels_last: cl,
					x: data(rng, dt, prod(shape)), qx: rq(), qy: rq(), what: `${shape.join('x')} (NCHW order)${cl ? ' channels_last' : ''}, random data`});
		for (const cl of [0, 1]) {
			// sums of x.5 * n: ties, rounded half to even before y_zero_point
			specs.push({name: `ties${cl ? '_nhwc' : ''}`, shape: [1, 6, 2], channels_last: cl, x: lay([1, 6, 2], cl, (n, c, w) => mid - 3 + c + w),
				qx: q(f32, 1, mid), qy: q(f32, 1, mid + 1), what: `images of 2 consecutive values: averages x.5, an odd output zero point${cl ? ', channels_last' : ''}`});
			specs.push({name: `big_image${cl ? '_nhwc' : ''}`, shape: [1, 3, 40, 50], channels_last: cl, x: data(rng, dt, 6000),
				qx: rq(), qy: rq(), what: `3 images of 2000 values${cl ? ', channels_last' : ''}`});
		}
		for (const [zx, zy] of [[lo, hi], [hi, lo]])
			specs.push({name: `zp_${zx}_${zy}`, shape: [1, 4, 3, 3], x: data(rng, dt, 36, 'edges'), qx: q(f32, 0.05, zx), qy: q(f32, 0.05, zy),
				what: `zero points x ${zx}, y ${zy}: saturation`});
		specs.push({name: 'saturate_high', shape: [1, 2, 3, 3], x: data(rng, dt, 18, 'high'), qx: q(f32, 1, mid), qy: q(f32, 0.25, mid), what: 'large averages, y_scale 4 times smaller: saturate high'});
		specs.push({name: 'saturate_low', shape: [1, 2, 3, 3], x: data(rng, dt, 18, 'low'), qx: q(f32, 1, mid), qy: q(f32, 0.25, mid), what: 'small averages, y_scale 4 times smaller: saturate low'});
		const cases = [];
		for (const c of specs) cases.push(await gavgCase(L, dt, c));
		files.push(writeOp(L, dir, {file: `qlinear_global_average_pool_${dt}.yaml`, op: 'QLinearGlobalAveragePool', dt, names: ['x'], cases,
			description: `ONNX Runtime QLinearGlobalAveragePool, ${dt}: per image of n values MLAS sums x - x_zero_point exactly, multiplies by the float32 scale x_scale / (y_scale * n), clamps, rounds half to even and adds y_zero_point. NCHW and channels_last, 1-D to 3-D images, ties, saturation and zero points at the ends.`,
			source: 'ONNX Runtime contrib op QLinearGlobalAveragePool (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/qlinear_global_average_pool.cc, onnxruntime/core/mlas/lib/qlgavgpool.cpp)'}));
		total += cases.length;
	}
	return {files, cases: total};
}

// ---- QLinearConcat -------------------------------------------------------------------------

async function concat(L, dir, rng) {
	const {f32} = L;
	const files = [];
	let total = 0;
	for (const dt of ['uint8', 'int8'])
		for (const nin of [2, 3]) {
			const [lo, hi] = RANGE[dt];
			const mid = dt === 'uint8' ? 128 : 0;
			const names = ['a', 'b', 'c'].slice(0, nin);
			const rq = () => q(f32, rng.uniform(0.01, 0.1), rng.int(lo + 30, hi - 30));
			const specs = [];
			const shapesFor = (base, axis) => names.map((_, i) => base.map((d, j) => (j === (axis + base.length) % base.length ? d + i : d)));
			for (const [base, axis] of [[[2, 3], 0], [[2, 3], 1], [[2, 3], -1], [[2, 3, 4], 1], [[1, 2, 3, 2], -2], [[5], 0]]) {
				const shapes = shapesFor(base, axis);
				specs.push({name: `random_r${base.length}_axis${axis}`, shapes, axis, qs: names.map(rq), qy: rq(),
					what: `rank ${base.length}, axis ${axis}, every input with its own scale and zero point (tables)`});
			}
			const same = rq();
			specs.push({name: 'same_params_copy', shapes: shapesFor([2, 3], 1), axis: 1, qs: names.map(() => same), qy: same,
				what: 'every input quantized as Y: copied'});
			specs.push({name: 'mixed_copy_table', shapes: shapesFor([3, 2], 0), axis: 0, qs: names.map((_, i) => (i === 0 ? same : q(f32, same.scale, same.zero_point + 1))), qy: same,
				what: 'the first input quantized as Y (copied), the others with Y\'s scale and another zero point (tables)'});
			specs.push({name: 'same_scale_other_zp', shapes: shapesFor([4, 4], 1), axis: 1, qs: names.map(() => q(f32, 0.05, mid + 7)), qy: q(f32, 0.05, mid - 9),
				what: 'Y\'s scale, another zero point: a shift, saturating'});
			specs.push({name: 'ties_half', shapes: shapesFor([2, 8], 1), axis: 1, qs: names.map(() => q(f32, 0.5, mid)), qy: q(f32, 1, mid + 1),
				what: 'x_scale / y_scale = 1/2: every odd value a tie, rounded half to even before the odd zero point'});
			specs.push({name: 'ties_three_halves', shapes: shapesFor([2, 8], 0), axis: 0, qs: names.map(() => q(f32, 1.5, mid - 1)), qy: q(f32, 1, mid),
				what: 'x_scale / y_scale = 3/2: ties at every odd value'});
			specs.push({name: 'saturate', shapes: shapesFor([2, 8], 1), axis: 1, qs: names.map(() => q(f32, 0.5, mid)), qy: q(f32, 0.05, mid),
				what: 'y_scale 10 times smaller: saturation at both ends'});
			for (const [zx, zy] of [[lo, hi], [hi, lo]])
				specs.push({name: `zp_${zx}_${zy}`, shapes: shapesFor([2, 4], 1), axis: 1, qs: names.map(() => q(f32, 0.03, zx)), qy: q(f32, 0.04, zy),
					what: `zero points ${zx} (inputs) and ${zy} (Y), edge data`, edges: true});
			const cases = [];
			for (const c of specs) {
				const xs = c.shapes.map(s => data(rng, dt, prod(s), c.edges ? 'edges' : 'random'));
				const ax = (c.axis + c.shapes[0].length) % c.shapes[0].length;
				const yshape = c.shapes[0].map((d, j) => (j === ax ? c.shapes.reduce((s, sh) => s + sh[j], 0) : d));
				const ins = [scalar('Y_scale', 'float32', c.qy.scale), scalar('Y_zero_point', dt, c.qy.zero_point)];
				names.forEach((nm, i) => ins.push({name: nm, dtype: dt, shape: c.shapes[i], values: xs[i]},
					scalar(`${nm}_scale`, 'float32', c.qs[i].scale), scalar(`${nm}_zero_point`, dt, c.qs[i].zero_point)));
				const [y] = await L.runNode({op: 'QLinearConcat', domain: DOMAIN, opset: 1, ins,
					outs: [{name: 'Y', dtype: dt, shape: yshape}], attrs: {axis: c.axis}});
				if (y.length !== prod(yshape)) throw new Error(`QLinearConcat ${c.name}: ${y.length} values`);
				const inputs = {};
				names.forEach((nm, i) => { inputs[nm] = {shape: c.shapes[i], quant: c.qs[i], data: xs[i]}; });
				cases.push({name: c.name, inputs, outputs: {Y: {shape: yshape, quant: c.qy}}, attrs: {axis: c.axis}, golden: {Y: y},
					source: `ONNX Runtime ${L.ortPkg.version} CPU, QLinearConcat ${dt} ${nin} inputs, ${c.what}`});
			}
			files.push(writeOp(L, dir, {file: `qlinear_concat_${dt}_${nin}.yaml`, op: 'QLinearConcat', dt, names, cases,
				description: `ONNX Runtime QLinearConcat, ${dt}, ${nin} inputs (each with its scale and zero point) along axis: an input quantized as Y is copied, any other goes through a 256-entry table, MlasQuantizeLinear(x_scale * (i - x_zero_point), y_scale, y_zero_point) in float32, half to even. Ranks 1 to 4, negative axes, ties, saturation, zero points at the ends.`,
				source: 'ONNX Runtime contrib op QLinearConcat (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/qlinear_concat.cc, qlinear_lookup_table.cc)'}));
			total += cases.length;
		}
	return {files, cases: total};
}

// ---- NhwcMaxPool ---------------------------------------------------------------------------

async function nhwcMaxPool(L, dir, rng) {
	const files = [];
	let total = 0;
	for (const dt of ['uint8', 'int8']) {
		const specs = [];
		for (const [shape, attrs, what] of [
			[[2, 5, 7, 3], {kernel_shape: [2, 2]}, '2-D kernel 2x2'],
			[[2, 5, 7, 3], {kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1]}, '2-D kernel 3x3 strides 2 pads 1'],
			[[2, 5, 7, 3], {kernel_shape: [3, 2], strides: [2, 3], pads: [2, 0, 1, 1], ceil_mode: 1}, '2-D kernel 3x2 strides 2, 3 pads 2 0 1 1 ceil_mode'],
			[[1, 6, 6, 2], {kernel_shape: [2, 2], dilations: [2, 2], strides: [1, 2]}, '2-D kernel 2x2 dilations 2'],
			[[1, 7, 7, 2], {kernel_shape: [3, 3], dilations: [2, 1], pads: [2, 1, 2, 1], ceil_mode: 1, strides: [2, 2]}, '2-D dilations 2, 1 with pads and ceil_mode'],
			[[2, 9, 4], {kernel_shape: [3], strides: [2], pads: [1, 2], ceil_mode: 1}, '1-D kernel 3 stride 2 pads 1, 2 ceil_mode'],
			[[1, 4, 3, 5, 2], {kernel_shape: [2, 2, 3], strides: [2, 1, 2], pads: [1, 0, 1, 0, 1, 2]}, '3-D kernel 2x2x3'],
			[[1, 6, 5, 3], {auto_pad: 'SAME_UPPER', kernel_shape: [3, 2], strides: [2, 2]}, 'auto_pad SAME_UPPER'],
			[[1, 6, 5, 3], {auto_pad: 'SAME_LOWER', kernel_shape: [3, 2], strides: [2, 2]}, 'auto_pad SAME_LOWER'],
			[[1, 6, 5, 3], {auto_pad: 'VALID', kernel_shape: [3, 2], strides: [2, 2]}, 'auto_pad VALID'],
			[[1, 4, 4, 16], {kernel_shape: [2, 2], pads: [1, 1, 1, 1]}, '16 channels, pads 1: the padding never wins'],
		]) {
			for (const kind of ['random', 'low']) {
				const x = data(rng, dt, prod(shape), kind);
				const {out} = poolGeom(shape.slice(1, -1), attrs);
				const yshape = [shape[0], ...out, shape[shape.length - 1]];
				const [y] = await L.runNode({op: 'NhwcMaxPool', domain: DOMAIN, opset: 1, ins: [{name: 'x', dtype: dt, shape, values: x}],
					outs: [{name: 'y', dtype: dt, shape: yshape}], attrs});
				if (y.length !== prod(yshape)) throw new Error(`NhwcMaxPool ${what}: ${y.length} values`);
				specs.push({name: `${what.replace(/[^A-Za-z0-9]+/g, '_').replace(/_$/, '').toLowerCase()}_${kind}`, inputs: {x: {shape, data: x}},
					outputs: {y: {shape: yshape}}, attrs, golden: {y},
					source: `ONNX Runtime ${L.ortPkg.version} CPU, NhwcMaxPool ${dt} ${what}, ${kind === 'low' ? 'values near the lowest of the type' : 'random data'}`});
			}
		}
		files.push(writeOp(L, dir, {file: `nhwc_max_pool_${dt}.yaml`, op: 'NhwcMaxPool', dt, names: ['x'], cases: specs,
			description: `ONNX Runtime NhwcMaxPool, ${dt}, channels last: the maximum of each window (kernel_shape, strides, pads, dilations, ceil_mode, auto_pad); the padding never wins. 1-D to 3-D, values near the type's lowest.`,
			source: 'ONNX Runtime contrib op NhwcMaxPool (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/nhwc_max_pool.cc, onnxruntime/core/mlas/lib/pooling.cpp)'}));
		total += specs.length;
	}
	return {files, cases: total};
}

// ---- com.microsoft QuantizeLinear -----------------------------------------------------------

const QRANGE = {int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535], int4: [-8, 7], uint4: [0, 15]};

// y = saturate(nearbyintf(x / y_scale) + y_zero_point), x / y_scale in float32 (MlasQuantizeLinear)
async function quantizeLinear(L, dir, rng) {
	const {f32, f16} = L;
	const files = [];
	let total = 0;
	for (const [dt, xt] of [['int8', 'float32'], ['uint8', 'float32'], ['int16', 'float32'], ['uint16', 'float32'],
		['int4', 'float32'], ['uint4', 'float32'], ['int8', 'float16'], ['uint8', 'float16']]) {
		const [lo, hi] = QRANGE[dt];
		const cases = [];
		const shape = [3, 4, 5];
		const rnd = xt === 'float16' ? f16 : f32;
		for (const mode of ['tensor', 'axis0', 'axis1', 'axis_default', 'ties', 'saturate']) {
			const axis = mode === 'axis0' ? 0 : ['axis1', 'axis_default'].includes(mode) ? 1 : null;
			const cnt = axis === null ? 1 : shape[axis];
			const scales = Array.from({length: cnt}, () => rnd(mode === 'ties' ? 2 ** -rng.int(1, 4) : rng.uniform(0.01, 0.5) * (hi - lo > 300 ? 1 / 64 : 1)));
			const zps = Array.from({length: cnt}, (_, c) => (c === 0 && cnt > 1 ? lo : c === 1 ? hi : rng.int(lo, hi)));
			const inner = axis === null ? 1 : shape.slice(axis + 1).reduce((a, b) => a * b, 1);
			const x = Array.from({length: 60}, (_, i) => {
				const c = axis === null ? 0 : Math.floor(i / inner) % cnt, s = scales[c];
				if (mode === 'ties') return rnd((rng.int(lo, hi) - zps[c] + 0.5) * s); // exact: s a power of 2
				const span = (hi - lo) * s * (mode === 'saturate' ? 2 : 0.6);
				return rnd(rng.uniform(-span, span));
			});
			const attrs = mode === 'axis0' ? {axis: 0} : mode === 'axis1' ? {axis: 1} : {};
			const ins = [{name: 'x', dtype: xt, shape, values: x, feed: true},
				{name: 'y_scale', dtype: xt, shape: axis === null ? [] : [cnt], values: scales},
				{name: 'y_zero_point', dtype: dt, shape: axis === null ? [] : [cnt], values: zps}];
			const [y] = await L.runNode({op: 'QuantizeLinear', domain: DOMAIN, opset: 1, ins, outs: [{name: 'y', dtype: dt, shape}], attrs});
			x.forEach((v, i) => {
				const c = axis === null ? 0 : Math.floor(i / inner) % cnt;
				const qv = f32(f32(v) / f32(scales[c]));
				let r = Math.round(qv);
				if (r - qv === 0.5 && r % 2) r -= 1; // half to even
				const want = Math.min(hi, Math.max(lo, r + zps[c]));
				if (y[i] !== want) throw new Error(`contrib QuantizeLinear ${dt} ${mode}: ORT ${y[i]} != ${want} for ${v} / ${scales[c]}`);
			});
			const quant = axis === null ? {scale: scales[0], zero_point: zps[0]} : {axis, scales, zero_points: zps};
			cases.push({name: mode, inputs: {x: {shape, data: x}}, outputs: {y: {shape, quant}}, attrs, golden: {y},
				source: `ONNX Runtime ${L.ortPkg.version} CPU, com.microsoft QuantizeLinear ${xt} to ${dt} ${axis === null ? 'per tensor' : `per axis ${axis}${mode === 'axis_default' ? ' (the default axis, attribute absent)' : ''}`}${mode === 'ties' ? ', x at exact ties' : mode === 'saturate' ? ', x beyond both ends' : ''}`});
		}
		const file = `quantize_linear_${xt}_${dt}.yaml`;
		L.writeSpec(dir, {file, op: 'QuantizeLinear', semantics: 'ort', domain: DOMAIN, opset: 1,
			description: `ONNX Runtime com.microsoft QuantizeLinear, ${xt} x to ${dt}: y = saturate(nearbyintf(x / y_scale) + y_zero_point), the quotient in float32, per tensor or along axis (default 1); ties and saturation; the scale and zero point travel as the output's quant.`,
			source: 'ONNX Runtime contrib op QuantizeLinear (microsoft/onnxruntime ContribOperators.md in its docs folder, onnxruntime/contrib_ops/cpu/quantization/quantize_ops.cc, onnxruntime/core/providers/cpu/quantization/quantize_linear.cc, onnxruntime/core/mlas/lib/quantize.cpp)',
			inputs: {x: {dtype: xt, shape}}, outputs: {y: {dtype: dt, shape}}, tolerance: 'exact', cases});
		files.push(file);
		total += cases.length;
	}
	return {files, cases: total};
}

async function generate(L, dir) {
	const r1 = await avgPool(L, dir, new L.Rng(0x51415031));
	const r2 = await globalAvgPool(L, dir, new L.Rng(0x51475031));
	const r3 = await concat(L, dir, new L.Rng(0x51434331));
	const r4 = await nhwcMaxPool(L, dir, new L.Rng(0x4e4d5031));
	const r5 = await quantizeLinear(L, dir, new L.Rng(0x51554c31));
	return {ops: [{op: 'QLinearAveragePool', files: r1.files.length, cases: r1.cases},
		{op: 'QLinearGlobalAveragePool', files: r2.files.length, cases: r2.cases},
		{op: 'QLinearConcat', files: r3.files.length, cases: r3.cases},
		{op: 'NhwcMaxPool', files: r4.files.length, cases: r4.cases},
		{op: 'QuantizeLinear', files: r5.files.length, cases: r5.cases}]};
}

module.exports = {generate};
