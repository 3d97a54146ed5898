/*
 * dump: failing cases as .npy files plus a standalone spec (see dump.h).
 *
 * The .npy layout is NumPy's format version 1.0 (numpy/lib/format.py, "A Simple File Format
 * for NumPy Arrays", NEP 1): the magic "\x93NUMPY", major 1, minor 0, the header length as a
 * little-endian uint16, then an ASCII Python dict literal with 'descr', 'fortran_order' and
 * 'shape', padded with spaces and ended by '\n' so that the data starts at a multiple of 64
 * bytes; the data follows in C (row-major) order.
 */
#include "report/dump.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/rng.h"
#include "base/util.h"
#include "reference/dtype.h"

#define NPY_ALIGN    64
#define DIR_NAME_MAX 96

struct qc_dump {
	char *dir;
	long max_cases;
	char *plugin; /* NULL: the built reference */
	char options[1024];
	FILE *index;
	long written, skipped;
	int failed;
	const char *by; /* the command that writes, for each case.yaml's description */
};

const char *qc_npy_descr(qcf_dtype t)
{
	switch (t) {
	case QCF_BOOL: return "|b1";
	case QCF_INT4:
	case QCF_INT8: return "|i1";
	case QCF_UINT4:
	case QCF_UINT8: return "|u1";
	case QCF_INT16: return "<i2";
	case QCF_UINT16: return "<u2";
	case QCF_INT32: return "<i4";
	case QCF_INT64: return "<i8";
	case QCF_FLOAT16: return "<f2";
	case QCF_BFLOAT16: /* no NumPy dtype: widened to float32 */
	case QCF_FLOAT32: return "<f4";
	case QCF_FLOAT64: return "<f8";
	default: return NULL;
	}
}

size_t qc_npy_header(char *buf, size_t size, const char *descr, int rank, const int64_t *shape)
{
	char dict[512];
	int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
	                 descr);
	for (int i = 0; i < rank && n > 0 && (size_t)n < sizeof dict; i++)
		n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%" PRId64, i ? ", " : "",
		              shape[i]);
	if (n > 0 && (size_t)n < sizeof dict)
		n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", rank == 1 ? "," : "");
	if (n <= 0 || (size_t)n >= sizeof dict)
		return 0;
	/* 10 bytes of preamble, the dict, at least one space... then '\n' */
	size_t total = 10 + (size_t)n + 1;
	total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
	if (total > size || total - 10 > 0xffff)
		return 0;
	size_t hlen = total - 10;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (char)(hlen & 0xff);
	buf[9] = (char)(hlen >> 8);
	memcpy(buf + 10, dict, (size_t)n);
	memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
	buf[total - 1] = '\n';
	return total;
}

/* Little-endian bytes of the element data (int4/uint4 unpacked, bfloat16 as float32). */
static int write_data(FILE *f, const qcf_tensor *t)
{
	size_t n = qref_numel(t->rank, t->shape);
	if (!t->data || n == 0)
		return 0;
	if (t->dtype == QCF_INT4 || t->dtype == QCF_UINT4) {
		/* plugin.h: element 2i in the low nibble, 2i+1 in the high one; int4 sign-extends
		 */
		const uint8_t *p = t->data;
		for (size_t i = 0; i < n; i++) {
			unsigned nib = (p[i / 2] >> (4 * (i % 2))) & 0xfu;
			int v = t->dtype == QCF_INT4 && nib >= 8 ? (int)nib - 16 : (int)nib;
			if (fputc((unsigned char)(signed char)v, f) == EOF)
				return -1;
		}
		return 0;
	}
	if (t->dtype == QCF_BFLOAT16) {
		/* bfloat16 is the upper half of a binary32: the widening is exact */
		const uint16_t *p = t->data;
		for (size_t i = 0; i < n; i++) {
			uint32_t w = (uint32_t)p[i] << 16;
			unsigned char b[4] = {(unsigned char)w, (unsigned char)(w >> 8),
			                      (unsigned char)(w >> 16), (unsigned char)(w >> 24)};
			if (fwrite(b, 1, 4, f) != 4)
				return -1;
		}
		return 0;
	}
	size_t bytes = qcf_dtype_nbytes(t->dtype, n);
	size_t width = bytes / n;
	const unsigned char *p = t->data;
	const uint16_t probe = 1;
	if (width == 1 || *(const unsigned char *)&probe == 1)
		return fwrite(p, 1, bytes, f) == bytes ? 0 : -1;
	for (size_t i = 0; i < n; i++) /* a big-endian host: swap each element */
		for (size_t k = width; k-- > 0;)
			if (fputc(p[i * width + k], f) == EOF)
				return -1;
	return 0;
}

int qc_npy_write(const char *path, const qcf_tensor *t, char *err, size_t err_size)
{
	const char *descr = qc_npy_descr(t->dtype);
	char head[1024];
	size_t hn = descr ? qc_npy_header(head, sizeof head, descr, t->rank, t->shape) : 0;
	if (!hn)
		return qc_errf(err, err_size, "%s: cannot write dtype %d as .npy", path,
		               (int)t->dtype);
	FILE *f = fopen(path, "wb");
	if (!f)
		return qc_errf(err, err_size, "%s: %s", path, strerror(errno));
	int bad = fwrite(head, 1, hn, f) != hn || write_data(f, t) != 0;
	if (fclose(f) != 0 || bad)
		return qc_errf(err, err_size, "%s: write failed", path);
	return 0;
}

/* mkdir -p, the error in err */
static int make_dirs(const char *path, char *err, size_t err_size)
{
	if (qc_mkdirs(path) != 0)
		return qc_errf(err, err_size, "%s: %s", path, strerror(errno));
	return 0;
}

/* A name safe in a file name: [A-Za-z0-9._=,+-] kept, anything else '_', no leading '.'. */
static void safe_name(char *out, size_t size, const char *in, size_t max)
{
	size_t n = 0;
	for (const char *p = in; *p && n + 1 < size && n < max; p++) {
		unsigned char ch = (unsigned char)*p;
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		         (ch >= '0' && ch <= '9') || strchr("._=,+-", ch);
		out[n] = ok && !(n == 0 && ch == '.') ? (char)ch : '_';
		n++;
	}
	out[n] = 0;
}

static const char readme[] =
        "Failing cases written by qconform (run --dump, shrink), one directory each (index.txt: "
        "case\n"
        "name -> directory). In a case directory:\n"
        "  input_<name>.npy     the case's inputs\n"
        "  expected_<name>.npy  the reference's outputs (checked against the published golden\n"
        "                       values when the case has them); absent when the reference\n"
        "                       refuses the case\n"
        "  got_<name>.npy       the kernel's outputs, when it produced any\n"
        "  case.yaml            the case as a standalone qconform spec with its data written\n"
        "                       out: qconform run case.yaml --plugin PLUGIN judges it again\n"
        "Read them with numpy.load(path). dtypes: bool |b1, int8 |i1, uint8 |u1, int16 <i2,\n"
        "uint16 <u2, int32 <i4, int64 <i8, float16 <f2, float32 <f4, float64 <f8.\n"
        "int4 and uint4 (packed two per byte in the plugin ABI) are unpacked to one int8 / uint8\n"
        "per element. bfloat16 has no NumPy dtype: it is written as float32 values (exact: a\n"
        "bfloat16 is the upper half of a float32); case.yaml says which tensors are bfloat16.\n"
        "Quantization parameters, attributes and the tolerance are in case.yaml.\n";

qc_dump *qc_dump_open(const char *dir, long max_cases, const char *plugin,
                      const qcf_option *options, int n_options, char *err, size_t err_size)
{
	if (make_dirs(dir, err, err_size) != 0)
		return NULL;
	qc_dump *d = qc_xcalloc(1, sizeof *d);
	d->dir = strdup(dir);
	d->plugin = plugin ? strdup(plugin) : NULL;
	d->max_cases = max_cases;
	size_t used = 0;
	for (int i = 0; i < n_options && used < sizeof d->options; i++)
		used += (size_t)snprintf(d->options + used, sizeof d->options - used,
		                         " --plugin-option '%s=%s'", options[i].key,
		                         options[i].value);
	char path[4200];
	snprintf(path, sizeof path, "%s/README.txt", dir);
	FILE *f = fopen(path, "w");
	int bad = !f || fputs(readme, f) == EOF;
	if (f && fclose(f) != 0)
		bad = 1;
	snprintf(path, sizeof path, "%s/index.txt", dir);
	if (bad || !(d->index = fopen(path, "w"))) {
		qc_errf(err, err_size, "%s: %s", path, strerror(errno));
		free(d->dir);
		free(d->plugin);
		free(d);
		return NULL;
	}
	return d;
}

/* ---- case.yaml ---- */

/*
 * A float value as YAML that reads back (qc_parse_float: strtod, then the dtype's nearest value)
 * to the same bits: the shortest %.Ng that round-trips in the dtype, always with a '.' or an
 * exponent so that it is never typed as an integer (which would lose -0.0 and turn a float
 * attribute into an int one). NaN is written .nan: its sign and payload are not kept.
 */
static void fmt_float(char *buf, size_t size, double v, qcf_dtype t)
{
	if (isnan(v)) {
		snprintf(buf, size, ".nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, "%s.inf", v < 0 ? "-" : "");
		return;
	}
	int single = t != QCF_FLOAT64; /* float16/bfloat16 values are exact float32 values */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		double back = strtod(buf, NULL);
		if (single ? (float)back == (float)v && signbit(back) == signbit(v)
		           : back == v && signbit(back) == signbit(v))
			break;
	}
	if (!strpbrk(buf, ".e"))
		strncat(buf, ".0", size - strlen(buf) - 1);
}

/* A YAML double-quoted string. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* A comment line: no line breaks inside. */
static void put_comment(FILE *f, const char *label, const char *s)
{
	fprintf(f, "# %s", label);
	for (const char *p = s ? s : ""; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
	fputc('\n', f);
}

/* Element i, exactly: integers from their bytes (int64 beyond 2^53 too), floats as double. */
static void put_element(FILE *f, const qcf_tensor *t, size_t i)
{
	char buf[64];
	if (t->dtype == QCF_INT64) {
		fprintf(f, "%" PRId64, ((const int64_t *)t->data)[i]);
	} else if (qref_dtype_is_int(t->dtype)) {
		fprintf(f, "%.0f", qref_get(t, i));
	} else {
		fmt_float(buf, sizeof buf, qref_get(t, i), t->dtype);
		fputs(buf, f);
	}
}

static void put_doubles(FILE *f, const double *v, size_t n, qcf_dtype as, int indent)
{
	char buf[64];
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i && i % 16 == 0)
			fprintf(f, ",\n%*s", indent, "");
		else if (i)
			fputs(", ", f);
		fmt_float(buf, sizeof buf, v[i], as);
		fputs(buf, f);
	}
	fputc(']', f);
}

static void put_shape(FILE *f, const qcf_tensor *t)
{
	fputc('[', f);
	for (int i = 0; i < t->rank; i++)
		fprintf(f, "%s%" PRId64, i ? ", " : "", t->shape[i]);
	fputc(']', f);
}

static void put_quant(FILE *f, const qcf_quant *q)
{
	char buf[64];
	if (q->axis < 0 && q->block_size == 0) {
		fmt_float(buf, sizeof buf, q->scales[0], QCF_FLOAT32);
		fprintf(f, "{scale: %s, zero_point: %" PRId32 "}", buf, q->zero_points[0]);
		return;
	}
	fprintf(f, "{axis: %" PRId32 ", ", q->axis);
	if (q->block_size != 0) /* a negative case may carry a forbidden one */
		fprintf(f, "block_size: %" PRId32 ", ", q->block_size);
	fputs("scales: [", f);
	for (int32_t i = 0; i < q->count; i++) {
		fmt_float(buf, sizeof buf, q->scales[i], QCF_FLOAT32);
		fprintf(f, "%s%s", i ? ", " : "", buf);
	}
	fputs("], zero_points: [", f);
	for (int32_t i = 0; i < q->count; i++)
		fprintf(f, "%s%" PRId32, i ? ", " : "", q->zero_points[i]);
	fputs("]}", f);
}

static void put_tensor(FILE *f, const qcf_tensor *t, int with_data)
{
	fputs("  ", f);
	put_quoted(f, t->name);
	fprintf(f, ":\n    dtype: %s\n    shape: ", qref_dtype_name(t->dtype));
	put_shape(f, t);
	fputc('\n', f);
	if (t->quant) {
		fputs("    quant: ", f);
		put_quant(f, t->quant);
		fputc('\n', f);
	}
	if (!with_data)
		return;
	size_t n = qref_numel(t->rank, t->shape);
	fputs("    data: [", f);
	for (size_t i = 0; i < n; i++) {
		if (i && i % 16 == 0)
			fputs(",\n      ", f);
		else if (i)
			fputs(", ", f);
		put_element(f, t, i);
	}
	fputs("]\n", f);
}

static void put_attr(FILE *f, const qcf_attr *a)
{
	char buf[64];
	fputs("  ", f);
	put_quoted(f, a->name);
	fputs(": ", f);
	switch (a->type) {
	case QCF_ATTR_INT: fprintf(f, "%" PRId64, a->v.i); break;
	case QCF_ATTR_FLOAT:
		fmt_float(buf, sizeof buf, a->v.f, QCF_FLOAT64);
		fputs(buf, f);
		break;
	case QCF_ATTR_STRING: put_quoted(f, a->v.s); break;
	case QCF_ATTR_INTS:
		fputc('[', f);
		for (int32_t i = 0; i < a->count; i++)
			fprintf(f, "%s%" PRId64, i ? ", " : "", a->v.ints[i]);
		fputc(']', f);
		break;
	case QCF_ATTR_FLOATS: put_doubles(f, a->v.floats, (size_t)a->count, QCF_FLOAT64, 4); break;
	}
	fputc('\n', f);
}

static void put_tolerance(FILE *f, const qc_tolerance *t)
{
	struct {
		const char *key;
		double v;
	} b[] = {{"max_abs", t->max_abs}, {"bias", t->bias},
	         {"mse", t->mse},         {"mismatch_rate", t->mismatch_rate},
	         {"ulp", t->ulp},         {"abs", t->abs},
	         {"rel", t->rel},         {"steps", t->steps}};
	int any = t->n_roundings || t->check || t->reason;
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		any |= b[i].v >= 0;
	if (t->exact && !any) {
		fputs("tolerance: exact\n", f);
		return;
	}
	fputs("tolerance:\n", f);
	if (t->exact)
		fputs("  exact: true\n", f);
	char buf[64];
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		if (b[i].v >= 0) {
			fmt_float(buf, sizeof buf, b[i].v, QCF_FLOAT64);
			fprintf(f, "  %s: %s\n", b[i].key, buf);
		}
	if (t->n_roundings) {
		fputs("  rounding: [", f);
		for (int i = 0; i < t->n_roundings; i++)
			fprintf(f, "%s%s", i ? ", " : "", t->roundings[i]);
		fputs("]\n", f);
	}
	if (t->check) {
		fputs("  check: {lua: ", f);
		put_quoted(f, t->check);
		fputs("}\n", f);
	}
	if (t->reason) {
		fputs("  reason: ", f);
		put_quoted(f, t->reason);
		fputc('\n', f);
	}
}

static int write_case_yaml(const qc_dump *d, const char *path, const char *dirname,
                           const qc_case *c, const qc_result *r)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	put_comment(f, "case: ", c->name);
	put_comment(f, "spec: ", c->spec->path);
	char label[64];
	snprintf(label, sizeof label, "verdict: %s: ", qc_verdict_name(r->verdict));
	put_comment(f, label, r->message);
	fprintf(f, "# reproduce: qconform run '%s/%s/case.yaml' --no-reports%s%s%s%s\n", d->dir,
	        dirname, d->plugin ? " --plugin '" : "", d->plugin ? d->plugin : "",
	        d->plugin ? "'" : "", d->options);
	for (int i = 0; i < c->call.n_inputs; i++)
		if (c->in[i].dtype == QCF_BFLOAT16)
			fprintf(f, "# input %s is bfloat16: input_%s.npy holds it as float32\n",
			        c->in[i].name, c->in[i].name);
	for (int i = 0; i < c->call.n_outputs; i++)
		if (c->out[i].dtype == QCF_BFLOAT16)
			fprintf(f, "# output %s is bfloat16: its .npy files hold it as float32\n",
			        c->out[i].name);
	fputs("qconform: 1\nop: ", f);
	put_quoted(f, c->spec->op);
	fputs("\nsemantics: ", f);
	put_quoted(f, c->spec->semantics);
	fputs("\ndescription: ", f);
	char desc[700];
	snprintf(desc, sizeof desc, "failing case %s, written by %s", c->name,
	         d->by ? d->by : "qconform run --dump");
	put_quoted(f, desc);
	fputs("\ninputs:\n", f);
	for (int i = 0; i < c->call.n_inputs; i++)
		put_tensor(f, &c->in[i], 1);
	fputs("outputs:\n", f);
	for (int i = 0; i < c->call.n_outputs; i++)
		put_tensor(f, &c->out[i], 0);
	if (c->call.n_attrs) {
		fputs("attrs:\n", f);
		for (int i = 0; i < c->call.n_attrs; i++)
			put_attr(f, &c->call.attrs[i]);
	}
	put_tolerance(f, &c->tol);
	fputs("cases:\n  - name: dumped\n", f);
	if (c->expect_error)
		fputs("    expect: error\n", f);
	int golden = 0;
	for (int k = 0; k < c->call.n_outputs; k++)
		golden |= c->golden[k] != NULL;
	if (golden) {
		fputs("    golden:\n", f);
		for (int k = 0; k < c->call.n_outputs; k++)
			if (c->golden[k]) {
				fputs("      ", f);
				put_quoted(f, c->out[k].name);
				fputs(": ", f);
				put_doubles(f, c->golden[k],
				            qref_numel(c->out[k].rank, c->out[k].shape),
				            QCF_FLOAT64, 8);
				fputc('\n', f);
			}
		fputs("    source: ", f);
		put_quoted(f, c->golden_source ? c->golden_source : "the original spec");
		fputc('\n', f);
		if (c->golden_max_abs > 0) {
			fprintf(f, "    golden_tolerance: {max_abs: %.17g, reason: ",
			        c->golden_max_abs);
			put_quoted(f, c->golden_tolerance_reason ? c->golden_tolerance_reason
			                                         : "the original spec");
			fputs("}\n", f);
		}
	}
	int bad = ferror(f);
	return fclose(f) != 0 || bad ? -1 : 0;
}

int qc_dump_case(qc_dump *d, const qc_case *c, const qc_expected *e, const qcf_tensor *kernel_out,
                 const qc_result *r, char *err, size_t err_size)
{
	if (d->written >= d->max_cases) {
		d->skipped++;
		return 0;
	}
	/* the case name, made safe and bounded, and a hash of the whole name: two names that
	 * differ only past the bound or in replaced characters get different directories */
	char dirname[DIR_NAME_MAX + 32], path[4400], tname[128];
	safe_name(dirname, sizeof dirname, c->name, DIR_NAME_MAX);
	snprintf(dirname + strlen(dirname), sizeof dirname - strlen(dirname), "-%08llx",
	         (unsigned long long)(qc_hash64(c->name, 0) & 0xffffffffull));
	snprintf(path, sizeof path, "%s/%s", d->dir, dirname);
	if (make_dirs(path, err, err_size) != 0)
		goto fail;
	for (int i = 0; i < c->call.n_inputs; i++) {
		safe_name(tname, sizeof tname, c->in[i].name, 64);
		snprintf(path, sizeof path, "%s/%s/input_%s.npy", d->dir, dirname, tname);
		if (qc_npy_write(path, &c->in[i], err, err_size) != 0)
			goto fail;
	}
	for (int k = 0; k < c->call.n_outputs; k++) {
		safe_name(tname, sizeof tname, c->out[k].name, 64);
		if (e && e->status == QCF_OK && e->out[k].data) {
			snprintf(path, sizeof path, "%s/%s/expected_%s.npy", d->dir, dirname,
			         tname);
			if (qc_npy_write(path, &e->out[k], err, err_size) != 0)
				goto fail;
		}
		if (kernel_out && kernel_out[k].data) {
			snprintf(path, sizeof path, "%s/%s/got_%s.npy", d->dir, dirname, tname);
			if (qc_npy_write(path, &kernel_out[k], err, err_size) != 0)
				goto fail;
		}
	}
	snprintf(path, sizeof path, "%s/%s/case.yaml", d->dir, dirname);
	if (write_case_yaml(d, path, dirname, c, r) != 0) {
		qc_errf(err, err_size, "%s: write failed", path);
		goto fail;
	}
	fprintf(d->index, "%s -> %s\n", c->name, dirname);
	fflush(d->index);
	d->written++;
	return 1;
fail:
	d->failed = 1;
	return -1;
}

void qc_dump_by(qc_dump *d, const char *by)
{
	d->by = by;
}

int qc_dump_close(qc_dump *d, FILE *console)
{
	if (!d)
		return 0;
	int bad = fclose(d->index) != 0 || d->failed;
	if (console) {
		fprintf(console, "dump: %ld failing case%s written to %s (index: %s/index.txt)",
		        d->written, d->written == 1 ? "" : "s", d->dir, d->dir);
		if (d->skipped)
			fprintf(console, "; %ld more not written (--dump-max %ld)", d->skipped,
			        d->max_cases);
		fputc('\n', console);
	}
	free(d->dir);
	free(d->plugin);
	free(d);
	return bad ? -1 : 0;
}
