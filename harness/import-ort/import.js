#!/usr/bin/env node
// qconform import-ort: golden vectors from ONNX Runtime's CPU execution provider.
//
// Build-time only (`make import-ort`, Makefile). Builds single-node ONNX models with onnx-proto
// (protobufjs: no hand-written protobuf), runs them with onnxruntime-node's CPU provider and writes
// qconform specs whose explicit cases carry ORT's outputs as `golden:`:
//   OUT/ort/imported/   com.microsoft contrib ops (MatMulNBits, GatherBlockQuantized,
//                       DequantizeLinear), semantics ort
//   OUT/onnx/ort/       ONNX QuantizeLinear / DequantizeLinear (opsets 19..25) with float8,
//                       float4, int4/uint4 blocked, float16 and bfloat16, semantics onnx
// Everything is deterministic: inputs come from a seeded generator of this file, numbers are
// printed as the shortest decimal that reads back to the same value, and the same package on the
// same machine gives byte-identical files (suite/test_ort_import.c checks it).
// --reseed N: every generator's seed XOR N (0, the default: the committed goldens): the same
// specs on other data, for checking the reference against ORT on cases it was never fitted to
// (`make ort-fresh`); their provenance says so.
//
// usage: node import.js --modules DIR/node_modules --out DIR [--reseed N]
'use strict';

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const {createRequire} = require('module');

function usage(msg) {
	process.stderr.write(`import-ort: ${msg}\nusage: node import.js --modules NODE_MODULES --out DIR [--reseed N]\n`);
	process.exit(2);
}

const argv = process.argv.slice(2);
let modules = null, outRoot = null, reseed = 0;
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === '--modules' && i + 1 < argv.length) modules = argv[++i];
	else if (argv[i] === '--out' && i + 1 < argv.length) outRoot = argv[++i];
	else if (argv[i] === '--reseed' && i + 1 < argv.length) {
		const v = argv[++i];
		if (!/^[0-9]{1,10}$/.test(v) || Number(v) > 0xffffffff) usage(`--reseed ${v}: an integer from 0 to 4294967295`);
		reseed = Number(v) >>> 0;
	} else usage(`unknown argument ${argv[i]}`);
}
if (!modules || !outRoot) usage('needs --modules and --out');
const req = createRequire(path.resolve(modules, 'index.js'));
const ort = req('onnxruntime-node');
const {onnx} = req('onnx-proto');
const ortPkg = JSON.parse(fs.readFileSync(path.join(path.dirname(req.resolve('onnxruntime-node/package.json')), 'package.json')));
const protoPkg = JSON.parse(fs.readFileSync(path.join(path.dirname(req.resolve('onnx-proto/package.json')), 'package.json')));
const ARCH = {x64: 'x64', arm64: 'arm64'}[process.arch];
if (process.platform !== 'linux' || !ARCH) usage(`no libonnxruntime for ${process.platform}/${process.arch}`);
const LIB_REL = `bin/napi-v6/linux/${ARCH}/libonnxruntime.so.1`;
const libPath = path.join(path.dirname(req.resolve('onnxruntime-node/package.json')), LIB_REL);
const LIB_SHA = crypto.createHash('sha256').update(fs.readFileSync(libPath)).digest('hex');

// ---- numbers -------------------------------------------------------------------------------

const f32 = Math.fround;
const f32buf = new Float32Array(1), u32buf = new Uint32Array(f32buf.buffer);
function f32bits(x) { f32buf[0] = x; return u32buf[0]; }
function bitsf32(b) { u32buf[0] = b >>> 0; return f32buf[0]; }
// the float32 next to x toward +inf (dir 1) or -inf (dir -1); x finite
function next32(x, dir) {
	x = f32(x);
	if (x === 0) return dir > 0 ? bitsf32(1) : -bitsf32(1);
	const b = f32bits(x);
	return bitsf32((x > 0) === (dir > 0) ? b + 1 : b - 1);
}
function isNegZero(x) { return x === 0 && 1 / x < 0; }

// The shortest decimal that the spec parser (strtod, then the nearest float32:
// harness/src/spec/spec.c) reads back to v, v a float32 value (float16, bfloat16 and the float8
// and float4 values are float32 values too); .nan, .inf, -.inf; -0 as -0.0. As
// harness/src/tools/onnx_import.c fmt_f32 writes them: no exponent from 1 up to 1e16.
function fmt(v) {
	if (Number.isNaN(v)) return '.nan';
	if (v === Infinity) return '.inf';
	if (v === -Infinity) return '-.inf';
	if (v === 0) return isNegZero(v) ? '-0.0' : '0';
	const big = Math.abs(v) >= 1 && Math.abs(v) < 1e16;
	for (let p = 1; p <= 17; p++) {
		let s = v.toPrecision(p);
		if (s.includes('e')) {
			if (big) continue;
			const [m, e] = s.split('e');
			s = `${m}e${e[0] === '-' ? '-' : '+'}${e.replace(/^[-+]/, '').padStart(2, '0')}`;
		} else if (s.includes('.')) {
			s = s.replace(/0+$/, '').replace(/\.$/, '');
		}
		if (f32(Number(s)) === v) return s;
	}
	throw new Error(`no decimal for ${v}`);
}
function fmtInt(v) { return String(v); }

// float16 and bfloat16, round to nearest even
function f16FromBits(h) {
	const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e === 0x1f) return m ? NaN : s * Infinity;
	if (e === 0) return s * m * 2 ** -24;
	return s * (1 + m / 1024) * 2 ** (e - 15);
}
function f16Bits(x) {
	// exhaustive nearest-even through the ordered positive codes
	if (Number.isNaN(x)) return 0x7e00;
	const sign = x < 0 || isNegZero(x) ? 0x8000 : 0;
	const a = Math.abs(x);
	if (a >= 65520) return sign | 0x7c00;
	let lo = 0, hi = 0x7bff;
	while (lo < hi) { // largest code with value <= a
		const mid = (lo + hi + 1) >> 1;
		if (f16FromBits(mid) <= a) lo = mid; else hi = mid - 1;
	}
	const v0 = f16FromBits(lo), v1 = f16FromBits(lo + 1);
	let c = lo;
	if (a - v0 > v1 - a || (a - v0 === v1 - a && (lo & 1))) c = lo + 1;
	return sign | c;
}
const f16 = x => f16FromBits(f16Bits(x));
function bf16FromBits(h) { return bitsf32(h << 16); }
function bf16Bits(x) {
	if (Number.isNaN(x)) return 0x7fc0;
	const b = f32bits(f32(x));
	const lsb = (b >>> 16) & 1;
	return ((b + 0x7fff + lsb) >>> 16) & 0xffff;
}
const bf16 = x => bf16FromBits(bf16Bits(x));

// Small float formats (ONNX's float8 and float4 types), decoded from their codes.
const FMT = {
	float8e4m3fn: {e: 4, m: 3, bias: 7, kind: 'fn', bits: 8, onnx: 17, max: 448},
	float8e4m3fnuz: {e: 4, m: 3, bias: 8, kind: 'fnuz', bits: 8, onnx: 18, max: 240},
	float8e5m2: {e: 5, m: 2, bias: 15, kind: 'ieee', bits: 8, onnx: 19, max: 57344},
	float8e5m2fnuz: {e: 5, m: 2, bias: 16, kind: 'fnuz', bits: 8, onnx: 20, max: 57344},
	float4e2m1: {e: 2, m: 1, bias: 1, kind: 'nonan', bits: 4, onnx: 23, max: 6},
};
function miniDecode(f, code) {
	const n = f.bits, sbit = 1 << (n - 1);
	const neg = (code & sbit) !== 0, mag = code & (sbit - 1);
	const e = mag >> f.m, m = mag & ((1 << f.m) - 1), emax = (1 << f.e) - 1;
	if (f.kind === 'fnuz' && code === sbit) return NaN;
	if (f.kind === 'fn' && mag === (1 << (n - 1)) - 1) return NaN;
	if (f.kind === 'ieee' && e === emax) return m ? NaN : (neg ? -Infinity : Infinity);
	const v = e === 0 ? m * 2 ** (1 - f.bias - f.m) : (1 + m / (1 << f.m)) * 2 ** (e - f.bias);
	return neg ? -v : v;
}
// the finite non-negative values of a format, ascending
function miniValues(f) {
	const out = [];
	for (let c = 0; c < 1 << (f.bits - 1); c++) {
		const v = miniDecode(f, c);
		if (Number.isFinite(v)) out.push(v);
	}
	return out.sort((a, b) => a - b);
}

// ---- a seeded generator (splitmix32 then xorshift128+ style; ours, not a library's) ----------

class Rng {
	constructor(seed) {
		let s = (seed ^ reseed) >>> 0;
		const sm = () => {
			s = (s + 0x9e3779b9) >>> 0;
			let z = s;
			z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
			z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
			return (z ^ (z >>> 16)) >>> 0;
		};
		this.s = [sm(), sm(), sm(), sm()];
	}
	u32() { // xoshiro128**
		const s = this.s;
		const r = Math.imul(((Math.imul(s[1], 5) << 7) | (Math.imul(s[1], 5) >>> 25)), 9) >>> 0;
		const t = s[1] << 9;
		s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
		s[3] = (s[3] << 11) | (s[3] >>> 21);
		return r;
	}
	int(lo, hi) { return lo + (this.u32() % (hi - lo + 1)); }
	uniform(lo, hi) { return lo + (hi - lo) * (this.u32() / 4294967296); }
}

// ---- models ------------------------------------------------------------------------------

const DT = {float32: 1, uint8: 2, int8: 3, bool: 9, uint16: 4, int16: 5, int32: 6, int64: 7, float16: 10,
	bfloat16: 16, float8e4m3fn: 17, float8e4m3fnuz: 18, float8e5m2: 19, float8e5m2fnuz: 20,
	uint4: 21, int4: 22, float4e2m1: 23};

// raw little-endian bytes of values in dtype (float8 and float4 values must be representable)
function encode(dtype, values) {
	const n = values.length;
	switch (dtype) {
	case 'float32': return Buffer.from(new Float32Array(values).buffer);
	case 'float16': return Buffer.from(new Uint16Array(values.map(f16Bits)).buffer);
	case 'bfloat16': return Buffer.from(new Uint16Array(values.map(bf16Bits)).buffer);
	case 'int8': return Buffer.from(new Int8Array(values).buffer);
	case 'uint8': return Buffer.from(new Uint8Array(values).buffer);
	case 'bool': return Buffer.from(new Uint8Array(values.map(v => (v ? 1 : 0))).buffer);
	case 'int16': return Buffer.from(new Int16Array(values).buffer);
	case 'uint16': return Buffer.from(new Uint16Array(values).buffer);
	case 'int32': return Buffer.from(new Int32Array(values).buffer);
	case 'int64': return Buffer.from(new BigInt64Array(values.map(BigInt)).buffer);
	case 'int4': case 'uint4': {
		const b = Buffer.alloc((n + 1) >> 1);
		values.forEach((v, i) => { b[i >> 1] |= (v & 0xf) << (4 * (i & 1)); });
		return b;
	}
	default: {
		const f = FMT[dtype];
		if (!f) throw new Error(`encode ${dtype}`);
		const codes = values.map(v => miniCode(f, v));
		if (f.bits === 8) return Buffer.from(codes);
		const b = Buffer.alloc((n + 1) >> 1);
		codes.forEach((c, i) => { b[i >> 1] |= c << (4 * (i & 1)); });
		return b;
	}
	}
}
function miniCode(f, v) {
	for (let c = 0; c < 1 << f.bits; c++) {
		const d = miniDecode(f, c);
		if (Number.isNaN(v) ? Number.isNaN(d) : d === v && isNegZero(d) === isNegZero(v)) return c;
	}
	throw new Error(`${v} is not a value of the format`);
}

function attr(name, v) {
	if (v && typeof v === 'object' && typeof v.float === 'number') return {name, type: 1, f: v.float}; // an integral float
	if (typeof v === 'string') return {name, type: 3, s: Buffer.from(v)};
	if (Array.isArray(v)) return {name, type: 7, ints: v}; // INTS (kernel_shape, pads, ...)
	if (Number.isInteger(v)) return {name, type: 2, i: v};
	return {name, type: 1, f: v};
}
function vinfo(name, dtype, shape) {
	return onnx.ValueInfoProto.create({name, type: {tensorType: {elemType: DT[dtype],
		shape: {dim: shape.map(d => ({dimValue: d}))}}}});
}

// Runs one node. ins: [{name, dtype, shape, values}] (null for an absent optional input); every
// input is an initializer (constant, as weights are in the models these ops come from, so ORT
// pre-packs them where it does), except those marked feed: true, which the JS API can carry
// (float32, float16). outs: [{name, dtype, shape}]: an output the JS API cannot read (float8,
// float4, bfloat16, int4) goes through a Cast to float32 (exact for every one of these types)
// or int32; emptyOutputs leading outputs of the node are left out (named ''). Returns the output
// values as numbers.
async function runNode({op, domain, opset, ins, outs, attrs, emptyOutputs = 0}) {
	const inits = [], inputs = [], feeds = {}, names = [];
	for (const t of ins) {
		if (!t) { names.push(''); continue; }
		names.push(t.name);
		if (t.feed) {
			inputs.push(vinfo(t.name, t.dtype, t.shape));
			const data = t.dtype === 'float16' ? new Uint16Array(t.values.map(f16Bits)) : new Float32Array(t.values);
			feeds[t.name] = new ort.Tensor(t.dtype, data, t.shape);
		} else {
			inits.push(onnx.TensorProto.create({name: t.name, dataType: DT[t.dtype], dims: t.shape,
				rawData: encode(t.dtype, t.values)}));
		}
	}
	const nodes = [onnx.NodeProto.create({opType: op, domain: domain === 'ai.onnx' ? '' : domain,
		input: names, output: [...Array(emptyOutputs).fill(''), ...outs.map(o => o.name + (readable(o.dtype) ? '' : '_raw'))],
		attribute: Object.entries(attrs || {}).map(([k, v]) => attr(k, v))})];
	const gouts = [];
	for (const o of outs) {
		if (readable(o.dtype)) { gouts.push(vinfo(o.name, o.dtype, o.shape)); continue; }
		const to = /int/.test(o.dtype) ? 'int32' : 'float32';
		nodes.push(onnx.NodeProto.create({opType: 'Cast', input: [o.name + '_raw'], output: [o.name],
			attribute: [attr('to', DT[to])]}));
		gouts.push(vinfo(o.name, to, o.shape));
	}
	const opsets = [{domain: '', version: domain === 'ai.onnx' ? opset : 21}];
	if (domain !== 'ai.onnx') opsets.push({domain, version: opset});
	const model = onnx.ModelProto.create({irVersion: 10, producerName: 'qconform import-ort',
		opsetImport: opsets, graph: onnx.GraphProto.create({name: op, node: nodes,
			initializer: inits, input: inputs, output: gouts})});
	const bytes = onnx.ModelProto.encode(model).finish();
	const sess = await ort.InferenceSession.create(bytes, {executionProviders: ['cpu'],
		graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1});
	const r = await sess.run(feeds);
	await sess.release();
	return outs.map(o => {
		const t = r[o.name];
		if (t.type === 'float16') return Array.from(t.data, f16FromBits);
		if (t.type === 'int64') return Array.from(t.data, Number);
		return Array.from(t.data);
	});
}
function readable(dtype) { return ['float32', 'float16', 'uint8', 'int8', 'int32', 'int64', 'uint16', 'int16'].includes(dtype); }

// ---- YAML ---------------------------------------------------------------------------------

function flow(list, indent) { // a flow list wrapped at 100 columns
	const lines = [];
	let cur = '[';
	list.forEach((s, i) => {
		const piece = s + (i + 1 < list.length ? ',' : ']');
		if (cur.length + piece.length + 1 > 100 - indent && cur !== '[') {
			lines.push(cur);
			cur = '';
		}
		cur += (cur && cur !== '[' ? ' ' : '') + piece;
	});
	if (!list.length) cur = '[]';
	lines.push(cur);
	return lines.map((l, i) => (i ? ' '.repeat(indent + 2) : '') + l).join('\n');
}
function fmtVals(dtype, vals) {
	return vals.map(v => (/^u?int/.test(dtype) ? fmtInt(v) : fmt(v)));
}
function yamlScalar(v) {
	if (typeof v === 'number') return Number.isInteger(v) ? String(v) : fmt(v);
	if (Array.isArray(v)) return `[${v.map(yamlScalar).join(', ')}]`;
	return /^[A-Za-z_][A-Za-z0-9_]*$/.test(v) ? v : JSON.stringify(v);
}
function quantYaml(q) {
	const parts = [];
	for (const k of ['axis', 'block_size', 'scale_dtype']) if (q[k] !== undefined) parts.push(`${k}: ${yamlScalar(q[k])}`);
	if (q.scales) {
		parts.push(`scales: [${q.scales.map(fmt).join(', ')}]`);
		parts.push(`zero_points: [${q.zero_points.map(fmt).join(', ')}]`);
	} else {
		parts.push(`scale: ${fmt(q.scale)}`);
		parts.push(`zero_point: ${fmt(q.zero_point)}`);
	}
	return `{${parts.join(', ')}}`;
}

const PROV = `${ortPkg.name} ${ortPkg.version} (npm), linux/${ARCH} ${LIB_REL} sha256 ${LIB_SHA}; ` +
	`models built with ${protoPkg.name} ${protoPkg.version}` +
	(reseed ? `; inputs reseeded with ${reseed} (not the committed goldens)` : '');

// spec: {file, op, semantics, domain, opset, profile, description, source, inputs: {name: {dtype}},
// outputs: {...}, tolerance, cases: [{name, inputs: {name: {shape, data, quant}}, outputs: {name:
// {shape, quant}}, attrs, golden: {name: values}, tolerance, source}]}
function writeSpec(dir, spec) {
	const L = [];
	L.push('# Generated by `make import-ort` (harness/import-ort/import.js) from ONNX Runtime: do not edit.');
	L.push('# Regenerate with `make import-ort` (README.md in this directory).');
	L.push('qconform: 1');
	L.push(`op: ${spec.op}`);
	L.push(`semantics: ${spec.semantics}`);
	if (spec.profile) L.push(`profile: [${spec.profile.join(', ')}]`);
	L.push('description: >-');
	for (const l of wrap(spec.description, 96)) L.push(`  ${l}`);
	L.push('source: |-');
	L.push(`  ${spec.source}`);
	L.push(`  ONNX domain ${spec.domain}, opset ${spec.opset}; one ${spec.op} node, run by ONNX Runtime's CPU execution provider`);
	L.push(`  (graph optimizations off, one thread) from ${PROV}`);
	L.push('inputs:');
	for (const [k, t] of Object.entries(spec.inputs)) L.push(`  ${k}: {dtype: ${t.dtype}, shape: ${yamlScalar(t.shape)}}`);
	L.push('outputs:');
	for (const [k, t] of Object.entries(spec.outputs)) L.push(`  ${k}: {dtype: ${t.dtype}, shape: ${yamlScalar(t.shape)}}`);
	if (spec.tolerance) L.push(`tolerance: ${spec.tolerance}`);
	L.push('cases:');
	for (const c of spec.cases) {
		L.push(`  - name: ${c.name}`);
		L.push('    inputs:');
		for (const [k, t] of Object.entries(c.inputs)) {
			L.push(`      ${k}:`);
			L.push(`        shape: ${yamlScalar(t.shape)}`);
			if (t.quant) L.push(`        quant: ${quantYaml(t.quant)}`);
			L.push(`        data: ${flow(fmtVals(spec.inputs[k].dtype, t.data), 14)}`);
		}
		L.push('    outputs:');
		for (const [k, t] of Object.entries(c.outputs)) {
			L.push(`      ${k}:`);
			L.push(`        shape: ${yamlScalar(t.shape)}`);
			if (t.quant) L.push(`        quant: ${quantYaml(t.quant)}`);
		}
		if (c.attrs && Object.keys(c.attrs).length)
			L.push(`    attrs: {${Object.entries(c.attrs).map(([k, v]) => `${k}: ${yamlScalar(v)}`).join(', ')}}`);
		L.push('    golden:');
		for (const [k, v] of Object.entries(c.golden))
			L.push(`      ${k}: ${flow(fmtVals(spec.outputs[k].dtype, v), 8)}`);
		if (c.tolerance) {
			// the kernel and the golden are held to the same bound (specs/README.md, golden_tolerance)
			L.push(`    tolerance: {abs: ${c.tolerance.bound}, reason: ${JSON.stringify(c.tolerance.reason)}}`);
			L.push(`    golden_tolerance: {max_abs: ${c.tolerance.bound}, reason: ${JSON.stringify(c.tolerance.reason)}}`);
		} else if (c.goldenTolerance) {
			// the kernel is judged by the reference's bands alone; the golden may differ by CPU
			L.push(`    golden_tolerance: {max_abs: ${c.goldenTolerance.bound}, reason: ${JSON.stringify(c.goldenTolerance.reason)}}`);
		}
		L.push(`    source: ${JSON.stringify(c.source)}`);
	}
	fs.mkdirSync(dir, {recursive: true});
	fs.writeFileSync(path.join(dir, spec.file), L.join('\n') + '\n');
}
function wrap(text, width) {
	const out = [];
	let cur = '';
	for (const w of text.split(/\s+/)) {
		if (cur && cur.length + 1 + w.length > width) { out.push(cur); cur = w; } else cur = cur ? `${cur} ${w}` : w;
	}
	if (cur) out.push(cur);
	return out;
}

module.exports = {f32, next32, fmt, f16, f16Bits, f16FromBits, bf16, bf16Bits, FMT, miniDecode, miniValues,
	Rng, runNode, writeSpec, PROV, ortPkg, LIB_SHA, outRoot};

// The com.microsoft modules: contrib.js (the LLM ops), then every contrib_*.js (more LLM ops)
// and qlinear_*.js of this folder in name order; each exports generate(L, dir) -> {ops: [{op,
// files, cases}]} and writes its specs into dir (OUT/ort/imported), which this empties first
// and whose README it writes.
function contribModules() {
	const extra = fs.readdirSync(__dirname).filter(f => /^(contrib|qlinear)_[a-z0-9_]+\.js$/.test(f)).sort();
	return ['contrib.js', ...extra];
}

function contribReadme(dir, ops) {
	const UP = '..'; // the specs/ort folder, from its imported/
	const names = ops.map(o => o.op);
	const list = names.length > 1 ? `${names.slice(0, -1).join(', ')}, ${names[names.length - 1]}` : names[0];
	const files = ops.reduce((n, o) => n + o.files, 0), cases = ops.reduce((n, o) => n + o.cases, 0);
	const R = ['# ONNX Runtime contrib ops: goldens', '',
		`Generated by \`make import-ort\` (harness/import-ort/import.js, ${contribModules().join(', ')}): do not edit by hand.`, '',
		...wrap(`Each spec runs one com.microsoft node (${list}) on ONNX Runtime's CPU execution provider; its explicit ` +
			'cases carry ORT\'s outputs as `golden:`, and its `source:` names the npm package, its version and the ' +
			`sha256 of the libonnxruntime that ran (${ortPkg.name} ${ortPkg.version}, sha256 ${LIB_SHA}).`, 96),
		`The ops, their packing and the arithmetic: [OPERATORS.md](${UP}/OPERATORS.md).`, '',
		`## ${files} specs, ${cases} cases`, '',
		'| op | specs | cases |', '|---|---|---|',
		...ops.map(o => `| ${o.op} | ${o.files} | ${o.cases} |`), ''];
	fs.writeFileSync(path.join(dir, 'README.md'), R.join('\n'));
	return {files, cases};
}

if (require.main === module) {
	const qdq = require('./qdq.js');
	(async () => {
		const qdqIndex = await qdq.generate(module.exports, path.join(outRoot, 'onnx', 'ort'));
		const dir = path.join(outRoot, 'ort', 'imported');
		fs.rmSync(dir, {recursive: true, force: true});
		fs.mkdirSync(dir, {recursive: true});
		const ops = [];
		for (const m of contribModules()) {
			// the QLinear* family's specs belong to the ort-qlinear profile
			const L = m.startsWith('qlinear_') ?
				{...module.exports, writeSpec: (d, spec) => writeSpec(d, {profile: ['ort-qlinear'], ...spec})} :
				module.exports;
			ops.push(...(await require(`./${m}`).generate(L, dir)).ops);
		}
		const contribIndex = contribReadme(dir, ops);
		process.stdout.write(`import-ort: ${qdqIndex.cases} Q/DQ cases in ${qdqIndex.files} files, ` +
			`${contribIndex.cases} contrib cases in ${contribIndex.files} files (${ortPkg.name} ${ortPkg.version})\n`);
	})().catch(e => {
		process.stderr.write(`import-ort: ${e && e.stack ? e.stack : e}\n`);
		process.exit(2);
	});
}
