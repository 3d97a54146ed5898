#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "digest.h"
#include "export.h"
#include "help.h"
#include "qcbin.h"
#include "rfile.h"
#include "rng.h"
#include "run.h"
#include "util.h"
#include "wire.h"

#define MAX_STRS 100000 /* strings in one list of a manifest, at most */

typedef struct im_case {
	uint32_t crc, size;
	uint64_t ordinal;
	char *name;
	uint64_t hash;
	const unsigned char *rec; /* stream: its record in the decoded stream */
	size_t rec_len;
	int have;
} im_case;

struct qc_import {
	char dir[2048], outputs[2100];
	int stream;
	uint32_t manifest_crc, n_cases;
	char manifest_sha[65];
	uint64_t seed;
	char *profile;
	char **paths, **filters, **case_names, **extensions;
	uint32_t n_paths, n_filters, n_case_names, n_extensions;
	uint32_t shard_index, shard_count;
	uint32_t n_specs;
	char **spec_path, **spec_sha;
	uint64_t *spec_cases;
	im_case *cases;
	uint32_t *by_hash; /* case indices sorted by name hash */
	unsigned char *stream_bytes;
	size_t stream_n;
	/* the runner's header */
	int have_header;
	char *plugin_name, *plugin_version, *mode;
	uint32_t abi;
	char runner_version[QCF_VERSION_BYTES + 1];
	qcf_option options[QC_MAX_OPTIONS];
	int n_options;
	uint32_t last_case; /* the last case record read (stream order), for messages */
	int any_case;
	char records_sha[65];
	qc_sha256 sha;
	qc_jobs_source src;
	qc_import_meta meta;
};

static char **read_strs(qc_rbuf *r, uint32_t *n, uint32_t max)
{
	*n = qc_rb_u32(r);
	if (r->bad || *n > max) {
		r->bad = 1;
		*n = 0;
		return NULL;
	}
	char **v = qc_xcalloc((size_t)*n + 1, sizeof *v);
	for (uint32_t i = 0; i < *n; i++)
		v[i] = qc_rb_str(r);
	return v;
}

static void free_strs(char **v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void import_free(qc_import *im)
{
	if (!im)
		return;
	free(im->profile);
	free_strs(im->paths, im->n_paths);
	free_strs(im->filters, im->n_filters);
	free_strs(im->case_names, im->n_case_names);
	free_strs(im->extensions, im->n_extensions);
	free_strs(im->spec_path, im->n_specs);
	free_strs(im->spec_sha, im->n_specs);
	free(im->spec_cases);
	for (uint32_t i = 0; im->cases && i < im->n_cases; i++)
		free(im->cases[i].name);
	free(im->cases);
	free(im->by_hash);
	free(im->stream_bytes);
	free(im->plugin_name);
	free(im->plugin_version);
	free(im->mode);
	for (int i = 0; i < im->n_options; i++) {
		free((char *)im->options[i].key);
		free((char *)im->options[i].value);
	}
	free(im);
}

static const qc_import *sort_im;
static int cmp_hash(const void *a, const void *b)
{
	uint64_t x = sort_im->cases[*(const uint32_t *)a].hash,
	         y = sort_im->cases[*(const uint32_t *)b].hash;
	return x < y ? -1 : x > y;
}

/* The manifest and every case file: 0, or -1 and err. */
static int load_export(qc_import *im, char *err, size_t err_size)
{
	char path[2200];
	snprintf(path, sizeof path, "%s/manifest.qcm", im->dir);
	size_t n;
	char rwhy[1200];
	unsigned char *m =
	        qc_read_whole(path, QC_MANIFEST_MAX_BYTES, "manifest", &n, rwhy, sizeof rwhy);
	if (!m)
		return qc_errf(err, err_size, "%s (not an export directory?)", rwhy);
	qc_sha256_hex(m, n, im->manifest_sha);
	qc_rbuf r;
	char version[QCF_VERSION_BYTES + 1], why[256];
	if (qc_bin_open(m, n, QCF_MAGIC_MANIFEST, 1, &im->n_cases, version, &r, why, sizeof why) !=
	    0) {
		free(m);
		return qc_errf(err, err_size, "%s: %s", path, why);
	}
	im->manifest_crc = qc_crc32(0, m, r.n);
	im->seed = qc_rb_u64(&r);
	im->profile = qc_rb_str(&r);
	im->paths = read_strs(&r, &im->n_paths, MAX_STRS);
	im->filters = read_strs(&r, &im->n_filters, QC_MAX_FILTERS);
	im->case_names = read_strs(&r, &im->n_case_names, MAX_STRS);
	im->extensions = read_strs(&r, &im->n_extensions, QC_MAX_EXTENSIONS);
	im->shard_index = qc_rb_u32(&r);
	im->shard_count = qc_rb_u32(&r);
	im->n_specs = qc_rb_u32(&r);
	if (r.bad || im->n_specs > MAX_STRS || im->n_cases > 10000000u) {
		free(m);
		return qc_errf(err, err_size, "%s: malformed (its lists are cut short)", path);
	}
	im->spec_path = qc_xcalloc(im->n_specs + 1, sizeof *im->spec_path);
	im->spec_sha = qc_xcalloc(im->n_specs + 1, sizeof *im->spec_sha);
	im->spec_cases = qc_xcalloc(im->n_specs + 1, sizeof *im->spec_cases);
	for (uint32_t i = 0; i < im->n_specs; i++) {
		im->spec_path[i] = qc_rb_str(&r);
		im->spec_sha[i] = qc_rb_str(&r);
		im->spec_cases[i] = qc_rb_u64(&r);
	}
	im->cases = qc_xcalloc((size_t)im->n_cases + 1, sizeof *im->cases);
	im->by_hash = qc_xcalloc((size_t)im->n_cases + 1, sizeof *im->by_hash);
	for (uint32_t i = 0; i < im->n_cases && !r.bad; i++) {
		im_case *c = &im->cases[i];
		c->crc = qc_rb_u32(&r);
		c->size = qc_rb_u32(&r);
		c->ordinal = qc_rb_u64(&r);
		c->name = qc_rb_str(&r);
		c->hash = qc_hash64(c->name, 0);
		im->by_hash[i] = i;
	}
	int bad = r.bad || r.at != r.n;
	free(m);
	if (bad)
		return qc_errf(err, err_size, "%s: malformed (its lists do not fill it exactly)",
		               path);
	sort_im = im;
	qsort(im->by_hash, im->n_cases, sizeof *im->by_hash, cmp_hash);
	/* each case file, whole and the one the manifest lists */
	for (uint32_t i = 0; i < im->n_cases; i++) {
		snprintf(path, sizeof path, "%s/cases/%06u.qcc", im->dir, i);
		unsigned char *p = qc_read_whole(path, QC_RECORDS_MAX_BYTES, "case file", &n, rwhy,
		                                 sizeof rwhy);
		if (!p)
			return qc_errf(err, err_size, "%s (case %u, %s)", rwhy, i,
			               im->cases[i].name);
		uint32_t index;
		int rc = qc_bin_open(p, n, QCF_MAGIC_CASE, 1, &index, version, &r, why, sizeof why);
		if (rc == 0 && (index != i || n != im->cases[i].size ||
		                qc_crc32(0, p, n - 4) != im->cases[i].crc)) {
			snprintf(why, sizeof why,
			         "is not the case file the manifest lists (case %u, %s): the "
			         "directory mixes two exports",
			         i, im->cases[i].name);
			rc = -1;
		}
		free(p);
		if (rc != 0)
			return qc_errf(err, err_size, "%s: %s", path, why);
	}
	/* the specs: present and unchanged (the run checks the set it loads again) */
	for (uint32_t i = 0; i < im->n_specs; i++) {
		char hex[65];
		if (qc_sha256_file(im->spec_path[i], hex) != 0)
			return qc_errf(err, err_size,
			               "spec %s of the export cannot be read: %s (import from the "
			               "directory the export ran in)",
			               im->spec_path[i], strerror(errno));
		if (strcmp(hex, im->spec_sha[i]) != 0)
			return qc_errf(err, err_size,
			               "spec %s changed since the export (sha256 %.12s..., the "
			               "export's %.12s...): export again and rerun the runner",
			               im->spec_path[i], hex, im->spec_sha[i]);
	}
	return 0;
}

/* ---- the runner's records ---- */

typedef struct rec {
	uint32_t index, case_crc, stage, check, check_index, n_out;
	int32_t status;
	uint64_t ns;
	char *message;
	uint64_t nbytes[QC_MAX_TENSORS];
	const unsigned char *data[QC_MAX_TENSORS];
} rec;

/* A case record's fields (message malloc'd). 0, or -1 and why. */
static int parse_case_record(const unsigned char *p, size_t n, rec *o, char *why, size_t why_size)
{
	qc_rbuf r;
	char version[QCF_VERSION_BYTES + 1];
	memset(o, 0, sizeof *o);
	if (qc_bin_open(p, n, QCF_MAGIC_RESULT, 0, &o->index, version, &r, why, why_size) != 0)
		return -1;
	o->case_crc = qc_rb_u32(&r);
	o->stage = qc_rb_u32(&r);
	o->status = (int32_t)qc_rb_u32(&r);
	o->check = qc_rb_u32(&r);
	o->check_index = qc_rb_u32(&r);
	o->ns = qc_rb_u64(&r);
	o->message = qc_rb_str(&r);
	o->n_out = qc_rb_u32(&r);
	if (o->n_out > QC_MAX_TENSORS)
		r.bad = 1;
	for (uint32_t k = 0; k < o->n_out && !r.bad; k++) {
		o->nbytes[k] = qc_rb_u64(&r);
		o->data[k] = o->nbytes[k] > r.n ? NULL : qc_rb_bytes(&r, (size_t)o->nbytes[k]);
		if (!o->data[k])
			r.bad = 1;
	}
	if (r.bad || r.at != r.n || o->stage > QCF_STAGE_EXECUTE || o->check > QCF_CHECK_NOT_RUN) {
		free(o->message);
		o->message = NULL;
		snprintf(why, why_size, "malformed case record");
		return -1;
	}
	return 0;
}

static int take_header(qc_import *im, const unsigned char *p, size_t n, const char *where,
                       char *err, size_t err_size)
{
	qc_rbuf r;
	char version[QCF_VERSION_BYTES + 1], why[256];
	uint32_t count;
	if (qc_bin_open(p, n, QCF_MAGIC_RUNNER, 0, &count, version, &r, why, sizeof why) != 0)
		return qc_errf(err, err_size, "%s: %s", where, why);
	uint32_t crc = qc_rb_u32(&r), abi = qc_rb_u32(&r);
	int32_t create = (int32_t)qc_rb_u32(&r);
	char *name = qc_rb_str(&r), *ver = qc_rb_str(&r), *cmsg = qc_rb_str(&r),
	     *mode = qc_rb_str(&r);
	uint32_t n_opt = qc_rb_u32(&r);
	int rc = 0;
	if (r.bad || n_opt > QC_MAX_OPTIONS)
		rc = qc_errf(err, err_size, "%s: malformed runner header", where);
	qcf_option opts[QC_MAX_OPTIONS];
	uint32_t filled = 0; /* the options read (none when the count is refused) */
	for (; rc == 0 && filled < n_opt; filled++) {
		opts[filled].key = qc_rb_str(&r);
		opts[filled].value = qc_rb_str(&r);
	}
	qc_rb_u32(&r); /* first, count: which cases this run covered */
	qc_rb_u32(&r);
	if (rc == 0 && (r.bad || r.at != r.n))
		rc = qc_errf(err, err_size, "%s: malformed runner header", where);
	else if (rc == 0 && (crc != im->manifest_crc || count != im->n_cases))
		rc = qc_errf(err, err_size,
		             "%s: the runner ran another export (manifest CRC-32 %08lx, %lu cases; "
		             "%s has %08lx, %lu cases)",
		             where, (unsigned long)crc, (unsigned long)count, im->dir,
		             (unsigned long)im->manifest_crc, (unsigned long)im->n_cases);
	else if (rc == 0 && create != QCF_OK)
		rc = qc_errf(err, err_size,
		             "%s: the runner could not create the plugin (create returned %d%s%s): "
		             "no case ran",
		             where, (int)create, cmsg[0] ? ": " : "", cmsg);
	else if (rc == 0 && im->have_header &&
	         (strcmp(name, im->plugin_name) || strcmp(ver, im->plugin_version) ||
	          abi != im->abi || strcmp(version, im->runner_version) ||
	          (int)n_opt != im->n_options))
		rc = qc_errf(
		        err, err_size,
		        "%s: two runs of the runner disagree (plugin %s %s, ABI %u; and %s %s, "
		        "ABI %u)",
		        where, im->plugin_name, im->plugin_version, im->abi, name, ver, abi);
	for (uint32_t i = 0; rc == 0 && im->have_header && i < n_opt; i++)
		if (strcmp(opts[i].key, im->options[i].key) ||
		    strcmp(opts[i].value, im->options[i].value))
			rc = qc_errf(err, err_size,
			             "%s: two runs of the runner gave the plugin other options",
			             where);
	if (rc == 0 && !im->have_header) {
		im->have_header = 1;
		im->plugin_name = name;
		im->plugin_version = ver;
		im->mode = mode;
		im->abi = abi;
		snprintf(im->runner_version, sizeof im->runner_version, "%s", version);
		for (uint32_t i = 0; i < n_opt; i++)
			im->options[i] = opts[i];
		im->n_options = (int)n_opt;
		name = ver = mode = NULL;
		filled = 0;
	}
	for (uint32_t i = 0; i < filled; i++) {
		free((char *)opts[i].key);
		free((char *)opts[i].value);
	}
	free(name);
	free(ver);
	free(cmsg);
	free(mode);
	if (rc == 0)
		qc_sha256_update(&im->sha, p, n);
	return rc ? -1 : 0;
}

/* A case record: checked and bound to its case. rec_at: where it stays (stream), or NULL. */
static int take_case(qc_import *im, const unsigned char *p, size_t n, const char *where, int stream,
                     char *err, size_t err_size)
{
	rec o;
	char why[256];
	if (parse_case_record(p, n, &o, why, sizeof why) != 0)
		return qc_errf(err, err_size, "%s: %s", where, why);
	free(o.message);
	if (o.index >= im->n_cases)
		return qc_errf(err, err_size, "%s: a record of case %u, the export has %u", where,
		               o.index, im->n_cases);
	im_case *c = &im->cases[o.index];
	if (o.case_crc != c->crc)
		return qc_errf(err, err_size,
		               "%s: the record of case %u (%s) is of another case file (CRC-32 "
		               "%08lx, the export's %08lx): rerun the runner on this export",
		               where, o.index, c->name, (unsigned long)o.case_crc,
		               (unsigned long)c->crc);
	if (stream && c->have) {
		if (c->rec_len != n || memcmp(c->rec, p, n) != 0)
			return qc_errf(err, err_size, "%s: two different records of case %u (%s)",
			               where, o.index, c->name);
		return 0;
	}
	c->have = 1;
	c->rec = stream ? p : NULL;
	c->rec_len = n;
	im->last_case = o.index;
	im->any_case = 1;
	qc_sha256_update(&im->sha, p, n);
	return 0;
}

static int b64(int ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* The stream's "QC1 " lines, decoded and joined into im->stream_bytes. */
static int decode_stream(qc_import *im, const unsigned char *t, size_t n, char *err,
                         size_t err_size)
{
	unsigned char *out = qc_xcalloc(n / 4 * 3 + 4, 1);
	size_t o = 0, line = 0;
	const size_t pl = strlen(QCF_STREAM_PREFIX);
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && t[e] != '\n')
			e++;
		line++;
		size_t s = i;
		while (s < e && t[s] == '\r')
			s++;
		size_t end = e;
		while (end > s && (t[end - 1] == '\r' || t[end - 1] == ' '))
			end--;
		if (end - s >= pl && !memcmp(t + s, QCF_STREAM_PREFIX, pl)) {
			s += pl;
			if ((end - s) % 4) {
				free(out);
				return qc_errf(err, err_size,
				               "%s:%zu: a cut stream line (%zu base64 characters, "
				               "not a multiple of 4)",
				               im->outputs, line, end - s);
			}
			for (size_t k = s; k < end; k += 4) {
				int v[4], pad = 0;
				for (int j = 0; j < 4; j++) {
					v[j] = t[k + (size_t)j] == '=' && k + 4 == end && j >= 2
					               ? (pad++, 0)
					               : b64(t[k + (size_t)j]);
					if (v[j] < 0 || (pad && t[k + (size_t)j] != '=')) {
						free(out);
						return qc_errf(err, err_size,
						               "%s:%zu: not base64 (byte '%c')",
						               im->outputs, line, t[k + (size_t)j]);
					}
				}
				uint32_t x = (uint32_t)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
				out[o++] = (unsigned char)(x >> 16);
				if (pad < 2)
					out[o++] = (unsigned char)(x >> 8);
				if (pad < 1)
					out[o++] = (unsigned char)x;
			}
		}
		i = e + (e < n);
	}
	im->stream_bytes = out;
	im->stream_n = o;
	return 0;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int load_stream(qc_import *im, char *err, size_t err_size)
{
	size_t n;
	unsigned char *t = qc_read_whole(im->outputs, QC_RECORDS_MAX_BYTES, "record stream", &n,
	                                 err, err_size);
	if (!t)
		return -1;
	int rc = decode_stream(im, t, n, err, err_size);
	free(t);
	if (rc)
		return -1;
	const unsigned char *p = im->stream_bytes;
	size_t len = im->stream_n, at = 0;
	int records = 0;
	char where[2300];
	while (at < len) {
		snprintf(where, sizeof where, "%s: record %d (byte %zu of the decoded stream)",
		         im->outputs, records + 1, at);
		if (len - at < QCF_HEADER_BYTES + 4) {
			return qc_errf(err, err_size,
			               "%s: truncated: %zu bytes, shorter than a header", where,
			               len - at);
		}
		const unsigned char *r = p + at;
		size_t total = le32(r + 8);
		if (!memcmp(r, QCF_MAGIC_RUNNER, 4))
			rc = take_header(im, r, len - at, where, err, err_size);
		else if (!im->have_header)
			rc = qc_errf(err, err_size, "%s: records before the runner's header",
			             where);
		else if (!memcmp(r, QCF_MAGIC_RESULT, 4))
			rc = take_case(im, r, len - at, where, 1, err, err_size);
		else if (!memcmp(r, QCF_MAGIC_END, 4)) {
			char version[QCF_VERSION_BYTES + 1], why[256];
			uint32_t ran;
			qc_rbuf rb;
			rc = qc_bin_open(r, len - at, QCF_MAGIC_END, 0, &ran, version, &rb, why,
			                 sizeof why);
			if (rc)
				qc_errf(err, err_size, "%s: %s", where, why);
		} else
			rc = qc_errf(err, err_size,
			             "%s: not the start of a record (a line of the capture lost?)",
			             where);
		if (rc)
			return -1;
		at += total;
		records++;
	}
	if (!im->have_header)
		return qc_errf(err, err_size, "%s: no runner records in it (lines starting \"%s\")",
		               im->outputs, QCF_STREAM_PREFIX);
	return 0;
}

static int load_directory(qc_import *im, char *err, size_t err_size)
{
	char path[2400];
	snprintf(path, sizeof path, "%s/runner.qco", im->outputs);
	size_t n;
	char rwhy[2600];
	unsigned char *p =
	        qc_read_whole(path, QC_RECORDS_MAX_BYTES, "record", &n, rwhy, sizeof rwhy);
	if (!p)
		return qc_errf(err, err_size, "%s (has the runner run?)", rwhy);
	int rc = take_header(im, p, n, path, err, err_size);
	free(p);
	for (uint32_t i = 0; rc == 0 && i < im->n_cases; i++) {
		snprintf(path, sizeof path, "%s/%06u.qco", im->outputs, i);
		if (!(p = qc_read_whole(path, QC_RECORDS_MAX_BYTES, "record", &n, rwhy,
		                        sizeof rwhy)))
			return qc_errf(
			        err, err_size,
			        "%s (no output of case %u, %s: the runner did not finish it)", rwhy,
			        i, im->cases[i].name);
		rc = take_case(im, p, n, path, 0, err, err_size);
		free(p);
	}
	return rc;
}

/* ---- the run's hooks ---- */

int qc_import_check_specs(const qc_import *im, qc_spec *const *specs, const uint64_t *selected,
                          int n, uint64_t total, char *err, size_t err_size)
{
	for (int i = 0; i < n || (uint32_t)i < im->n_specs; i++) {
		if (i >= n || (uint32_t)i >= im->n_specs ||
		    strcmp(specs[i]->path, im->spec_path[i]))
			return qc_errf(err, err_size,
			               "the specs are not the export's: %s %s, %s %s (a spec file "
			               "added, removed or renamed since the export)",
			               (uint32_t)i < im->n_specs ? "the export has"
			                                         : "the export has no more,",
			               (uint32_t)i < im->n_specs ? im->spec_path[i] : "",
			               i < n ? "this run loads" : "this run loads no more",
			               i < n ? specs[i]->path : "");
		if (strcmp(specs[i]->sha256, im->spec_sha[i]) != 0)
			return qc_errf(err, err_size, "spec %s changed since the export",
			               specs[i]->path);
		if (selected[i] != im->spec_cases[i])
			return qc_errf(err, err_size,
			               "spec %s gives %llu cases, the export holds %llu of it",
			               specs[i]->path, (unsigned long long)selected[i],
			               (unsigned long long)im->spec_cases[i]);
	}
	if (total != im->n_cases)
		return qc_errf(err, err_size, "the run holds %llu cases, the export %u",
		               (unsigned long long)total, im->n_cases);
	return 0;
}

typedef struct src_state {
	qc_wbuf enc;
	int cap;
	qcf_op_call *calls;
	qcf_tensor *outs; /* cap * QC_MAX_TENSORS */
	void **bufs;      /* the outputs' copies, cap * QC_MAX_TENSORS */
} src_state;

static void free_bufs(src_state *s)
{
	for (int i = 0; s->bufs && i < s->cap * QC_MAX_TENSORS; i++) {
		free(s->bufs[i]);
		s->bufs[i] = NULL;
	}
}

static void src_free(void *ctx, void *state)
{
	(void)ctx;
	src_state *s = state;
	if (!s)
		return;
	free_bufs(s);
	qc_wb_free(&s->enc);
	free(s->calls);
	free(s->outs);
	free(s->bufs);
	free(s);
}

static const im_case *find_case(const qc_import *im, const char *name, uint32_t *index)
{
	uint64_t h = qc_hash64(name, 0);
	size_t lo = 0, hi = im->n_cases;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (im->cases[im->by_hash[mid]].hash < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < im->n_cases && im->cases[im->by_hash[lo]].hash == h; lo++)
		if (!strcmp(im->cases[im->by_hash[lo]].name, name)) {
			*index = im->by_hash[lo];
			return &im->cases[*index];
		}
	return NULL;
}

/* A record as the runner's answer: what run's worker and runner would have made of it. */
static void answer(const rec *o, qc_exec_result *res)
{
	static const char *const stages[] = {"supports", "prepare", "execute"};
	memset(res, 0, sizeof *res);
	res->seconds = (double)o->ns * 1e-9;
	if (o->check == QCF_CHECK_NOT_RUN) {
		res->outcome = QC_EXEC_ERROR;
		snprintf(res->message, sizeof res->message, "the runner could not run it: %s",
		         o->message);
		return;
	}
	if (o->status != QCF_OK) {
		qc_wire_copy_bounded(res->message, sizeof res->message, o->message);
		if (!res->message[0] || (o->status != QCF_NOT_SUPPORTED &&
		                         o->status != QCF_INVALID_PARAM && o->status != QCF_ERROR))
			snprintf(res->message, sizeof res->message, "%s returned %s (%d)",
			         stages[o->stage], qc_wire_status_name(o->status), (int)o->status);
	}
	res->outcome = o->status == QCF_OK              ? QC_EXEC_OK
	               : o->status == QCF_NOT_SUPPORTED ? QC_EXEC_NOT_SUPPORTED
	               : o->status == QCF_INVALID_PARAM ? QC_EXEC_INVALID_PARAM
	                                                : QC_EXEC_ERROR;
	/* the memory rules the runner checked, in the words of run's runner */
	if (o->check == QCF_CHECK_OUTPUT_PAST || o->check == QCF_CHECK_OUTPUT_BEFORE) {
		res->outcome = QC_EXEC_ERROR;
		snprintf(res->message, sizeof res->message, "wrote %s output %u",
		         o->check == QCF_CHECK_OUTPUT_PAST ? "past the end of"
		                                           : "before the start of",
		         o->check_index);
	} else if (o->check == QCF_CHECK_INPUT) {
		res->outcome = QC_EXEC_ERROR;
		snprintf(res->message, sizeof res->message, "modified input %u", o->check_index);
	}
}

static int src_execute(void *ctx, void **state, qc_case *const *cases, int n,
                       qc_exec_result *results, const qcf_op_call **staged, char *err,
                       size_t err_size)
{
	qc_import *im = ctx;
	src_state *s = *state;
	if (!s)
		*state = s = qc_xcalloc(1, sizeof *s);
	free_bufs(s);
	if (n > s->cap) {
		free(s->calls);
		free(s->outs);
		free(s->bufs);
		s->cap = n;
		s->calls = qc_xcalloc((size_t)n, sizeof *s->calls);
		s->outs = qc_xcalloc((size_t)n * QC_MAX_TENSORS, sizeof *s->outs);
		s->bufs = qc_xcalloc((size_t)n * QC_MAX_TENSORS, sizeof *s->bufs);
	}
	for (int i = 0; i < n; i++) {
		const qc_case *c = cases[i];
		uint32_t index;
		const im_case *ic = find_case(im, c->name, &index);
		if (!ic)
			return qc_errf(err, err_size, "case %s is not in the export %s", c->name,
			               im->dir);
		/* the case as this run built it must be the case the runner ran */
		qc_case_encode(c, index, &s->enc);
		if (s->enc.n != ic->size || qc_crc32(0, s->enc.p, s->enc.n - 4) != ic->crc)
			return qc_errf(
			        err, err_size,
			        "case %s as the specs build it now differs from its exported "
			        "case file: export again",
			        c->name);
		unsigned char *file = NULL;
		const unsigned char *p = ic->rec;
		size_t len = ic->rec_len;
		char path[2400];
		if (!p) {
			snprintf(path, sizeof path, "%s/%06u.qco", im->outputs, index);
			if (!(file = qc_read_whole(path, QC_RECORDS_MAX_BYTES, "record", &len, err,
			                           err_size)))
				return -1;
			p = file;
		}
		rec o;
		char why[256];
		if (parse_case_record(p, len, &o, why, sizeof why) != 0 || o.index != index ||
		    o.case_crc != ic->crc) {
			free(file);
			return qc_errf(err, err_size, "the record of case %s: %s", c->name, why);
		}
		answer(&o, &results[i]);
		qcf_op_call *call = &s->calls[i];
		*call = c->call;
		call->outputs = &s->outs[(size_t)i * QC_MAX_TENSORS];
		int fault = 0;
		if (results[i].outcome == QC_EXEC_OK) {
			if (o.n_out != (uint32_t)c->call.n_outputs)
				fault = 1;
			for (int k = 0; !fault && k < c->call.n_outputs; k++) {
				call->outputs[k] = c->call.outputs[k];
				if (o.nbytes[k] != c->call.outputs[k].nbytes) {
					fault = 1;
					break;
				}
				void *b = qc_xcalloc(o.nbytes[k] ? (size_t)o.nbytes[k] : 1, 1);
				memcpy(b, o.data[k], (size_t)o.nbytes[k]);
				s->bufs[(size_t)i * QC_MAX_TENSORS + (size_t)k] = b;
				call->outputs[k].data = b;
			}
		}
		free(o.message);
		free(file);
		if (fault)
			return qc_errf(
			        err, err_size,
			        "the record of case %s holds other outputs than the case has "
			        "(their count or sizes)",
			        c->name);
		staged[i] = call;
	}
	return 0;
}

const qc_jobs_source *qc_import_source(qc_import *im, qc_plugin_info *info)
{
	memset(info, 0, sizeof *info);
	snprintf(info->name, sizeof info->name, "%s", im->plugin_name);
	snprintf(info->version, sizeof info->version, "%s", im->plugin_version);
	info->abi_version = im->abi;
	snprintf(info->sha256, sizeof info->sha256, "%s", im->records_sha);
	snprintf(info->path, sizeof info->path, "%s", im->outputs);
	im->src.execute = src_execute;
	im->src.free_state = src_free;
	im->src.ctx = im;
	return &im->src;
}

const qc_import_meta *qc_import_report_meta(const qc_import *im)
{
	return &im->meta;
}

/* ---- qconform import ---- */

static int import_open(qc_import *im, const char *dir, const char *outputs, char *err,
                       size_t err_size)
{
	snprintf(im->dir, sizeof im->dir, "%s", dir);
	if (load_export(im, err, err_size) != 0)
		return -1;
	if (outputs)
		snprintf(im->outputs, sizeof im->outputs, "%s", outputs);
	else
		snprintf(im->outputs, sizeof im->outputs, "%s/outputs", dir);
	struct stat sb;
	if (stat(im->outputs, &sb) != 0)
		return qc_errf(err, err_size, "%s: %s (the runner's records)", im->outputs,
		               strerror(errno));
	im->stream = !S_ISDIR(sb.st_mode);
	qc_sha256_init(&im->sha);
	if ((im->stream ? load_stream(im, err, err_size) : load_directory(im, err, err_size)) != 0)
		return -1;
	for (uint32_t i = 0; i < im->n_cases; i++)
		if (!im->cases[i].have) {
			char after[64] = "holds no case";
			if (im->any_case)
				snprintf(after, sizeof after, "ends after case %u", im->last_case);
			return qc_errf(err, err_size,
			               "%s: no record of case %u (%s): the runner's record %s (did "
			               "the device stop? run the rest with the runner's --first %u "
			               "and import every stream joined)",
			               im->outputs, i, im->cases[i].name, after, i);
		}
	uint8_t d[32];
	qc_sha256_final(&im->sha, d);
	for (int i = 0; i < 32; i++)
		snprintf(im->records_sha + 2 * i, 3, "%02x", d[i]);
	im->meta = (qc_import_meta){im->dir,
	                            im->manifest_sha,
	                            im->outputs,
	                            im->stream ? "stream" : "directory",
	                            im->runner_version,
	                            !strcmp(im->mode, "freestanding") ? "freestanding" : "hosted"};
	return 0;
}

qc_import *qc_import_open(const char *dir, const char *outputs, char *err, size_t err_size)
{
	qc_import *im = qc_xcalloc(1, sizeof *im);
	if (import_open(im, dir, outputs, err, err_size) != 0) {
		import_free(im);
		return NULL;
	}
	return im;
}

void qc_import_close(qc_import *im)
{
	if (im)
		import_free(im);
}

int qc_cmd_import(int argc, char **argv, const char *self, const char *command)
{
	const char *dir = NULL, *outputs = NULL;
	qc_run_opts o;
	memset(&o, 0, sizeof o);
	o.timeout_s = 30;
	o.jobs = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = !strcmp(a, "--outputs") || !strcmp(a, "--json") ||
		            !strcmp(a, "--html") || !strcmp(a, "--junit") || !strcmp(a, "--jobs");
		if (takes && !v) {
			fprintf(stderr, "qconform import: missing value after %s\n", a);
			return 2;
		}
		if (!strcmp(a, "--outputs"))
			outputs = v;
		else if (!strcmp(a, "--json"))
			o.json_path = v;
		else if (!strcmp(a, "--html"))
			o.html_path = v;
		else if (!strcmp(a, "--junit"))
			o.junit_path = v;
		else if (!strcmp(a, "--jobs")) {
			char *end;
			long j = strtol(v, &end, 10);
			if (*end || !*v || j < 1 || j > 64) {
				fprintf(stderr,
				        "qconform import: --jobs needs a number of threads in [1, "
				        "64], "
				        "got %s\n",
				        v);
				return 2;
			}
			o.jobs = (int)j;
		} else if (!strcmp(a, "--quiet"))
			o.quiet = 1;
		else if (a[0] == '-' && a[1])
			return qc_help_unknown_option("import", a);
		else if (!dir)
			dir = a;
		else {
			fprintf(stderr, "qconform import: one export directory, not also %s\n", a);
			return 2;
		}
		i += takes;
	}
	if (!dir) {
		fprintf(stderr, "qconform import: needs the export directory (qconform export "
		                "--out DIR)\n");
		return 2;
	}
	qc_import *im = qc_xcalloc(1, sizeof *im);
	char err[2048];
	if (import_open(im, dir, outputs, err, sizeof err) != 0) {
		fprintf(stderr, "qconform import: %s\n", err);
		import_free(im);
		return 2;
	}
	/* the export's selection, the runner's plugin options: the run of the export */
	o.paths = im->paths;
	o.n_paths = (int)im->n_paths;
	for (uint32_t i = 0; i < im->n_filters; i++)
		o.filters[o.n_filters++] = im->filters[i];
	o.case_names = (const char **)im->case_names;
	o.n_case_names = (int)im->n_case_names;
	o.profile = im->profile[0] ? im->profile : NULL;
	for (uint32_t i = 0; i < im->n_extensions; i++)
		o.extensions[o.n_extensions++] = im->extensions[i];
	o.seed = im->seed;
	o.shard_index = (int)im->shard_index;
	o.shard_count = (int)im->shard_count;
	for (int i = 0; i < im->n_options; i++)
		o.options[o.n_options++] = im->options[i];
	o.self = self;
	o.command = command;
	o.argv = argv + 1;
	o.argc = argc - 1;
	o.import = im;
	printf("import: %s, the runner's records %s (%s, runner of qconform %s, %s)\n", im->dir,
	       im->outputs, im->meta.outputs_kind, im->runner_version, im->meta.runner_mode);
	int rc = qc_cmd_run(&o);
	import_free(im);
	return rc;
}
