#include "offline/import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/digest.h"
#include "base/rfile.h"
#include "base/rng.h"
#include "base/util.h"
#include "offline/qcbin.h"
#include "run/wire.h"

#define MAX_STRS 100000 /* strings in one list of a manifest, at most */

/* What the records say of a case. */
enum { REC_NONE, REC_STARTED, REC_RESULT, REC_ABORT };

typedef struct im_case {
	uint32_t crc, size;
	uint64_t ordinal;
	char *name;
	uint64_t hash;
	int have;                 /* REC_* */
	const unsigned char *rec; /* stream: its record or abort in the decoded stream */
	size_t rec_len;
	size_t started_at; /* stream: where its start is (for messages) */
	int judged;        /* a start without an answer, and the records go on after it */
} im_case;

/* One export directory and its runner's records. */
typedef struct im_part {
	char dir[2048], outputs[2100];
	int stream;
	uint32_t manifest_crc, n_cases;
	unsigned format; /* the export's format version: its case files' and records' too */
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
	unsigned char *stream_bytes;
	size_t stream_n;
	uint32_t last_case; /* the last case record read (stream order), for messages */
	int any_case;
	char records_sha[65];
	qc_sha256 sha;
} im_part;

/* A case of any part, by name. */
typedef struct im_ref {
	uint64_t hash;
	uint32_t part, index;
} im_ref;

struct qc_import {
	im_part *parts[QC_IMPORT_MAX_PARTS];
	int n_parts;
	uint32_t n_cases; /* over the parts */
	im_ref *by_hash;  /* every case, sorted by name hash */
	char records_sha[65];
	qc_import_part_meta part_meta[QC_IMPORT_MAX_PARTS];
	/* the runner's header (every session of every part says the same) */
	int have_header;
	char *plugin_name, *plugin_version, *mode;
	uint32_t abi;
	char runner_version[QCF_VERSION_BYTES + 1];
	qcf_option options[QC_MAX_OPTIONS];
	int n_options;
	int device_aborts, feeder_aborts, judged; /* cases judged from aborts and lone starts */
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

static void part_free(im_part *p)
{
	if (!p)
		return;
	free(p->profile);
	free_strs(p->paths, p->n_paths);
	free_strs(p->filters, p->n_filters);
	free_strs(p->case_names, p->n_case_names);
	free_strs(p->extensions, p->n_extensions);
	free_strs(p->spec_path, p->n_specs);
	free_strs(p->spec_sha, p->n_specs);
	free(p->spec_cases);
	for (uint32_t i = 0; p->cases && i < p->n_cases; i++)
		free(p->cases[i].name);
	free(p->cases);
	free(p->stream_bytes);
	free(p);
}

static void import_free(qc_import *im)
{
	if (!im)
		return;
	for (int i = 0; i < im->n_parts; i++)
		part_free(im->parts[i]);
	free(im->by_hash);
	free(im->plugin_name);
	free(im->plugin_version);
	free(im->mode);
	for (int i = 0; i < im->n_options; i++) {
		free((char *)im->options[i].key);
		free((char *)im->options[i].value);
	}
	free(im);
}

static int cmp_ref(const void *a, const void *b)
{
	uint64_t x = ((const im_ref *)a)->hash, y = ((const im_ref *)b)->hash;
	return x < y ? -1 : x > y;
}

/* The manifest and every case file of part P: 0, or -1 and err. */
static int load_export(im_part *P, char *err, size_t err_size)
{
	char path[2200];
	snprintf(path, sizeof path, "%s/manifest.qcm", P->dir);
	size_t n;
	char rwhy[1200];
	unsigned char *m =
	        qc_read_whole(path, QC_MANIFEST_MAX_BYTES, "manifest", &n, rwhy, sizeof rwhy);
	if (!m)
		return qc_errf(err, err_size, "%s (not an export directory?)", rwhy);
	qc_sha256_hex(m, n, P->manifest_sha);
	qc_rbuf r;
	char version[QCF_VERSION_BYTES + 1], why[256];
	if (qc_bin_open(m, n, QCF_MAGIC_MANIFEST, 1, &P->n_cases, version, &r, why, sizeof why) !=
	    0) {
		free(m);
		return qc_errf(err, err_size, "%s: %s", path, why);
	}
	if (r.n + 4 != n) {
		free(m);
		return qc_errf(err, err_size, "%s: bytes after the manifest's end", path);
	}
	P->manifest_crc = qc_crc32(0, m, r.n);
	P->format = qc_bin_format(m, n);
	P->seed = qc_rb_u64(&r);
	P->profile = qc_rb_str(&r);
	P->paths = read_strs(&r, &P->n_paths, MAX_STRS);
	P->filters = read_strs(&r, &P->n_filters, QC_MAX_FILTERS);
	P->case_names = read_strs(&r, &P->n_case_names, MAX_STRS);
	P->extensions = read_strs(&r, &P->n_extensions, QC_MAX_EXTENSIONS);
	P->shard_index = qc_rb_u32(&r);
	P->shard_count = qc_rb_u32(&r);
	P->n_specs = qc_rb_u32(&r);
	if (r.bad || P->n_specs > MAX_STRS || P->n_cases > 10000000u) {
		free(m);
		return qc_errf(err, err_size, "%s: malformed (its lists are cut short)", path);
	}
	P->spec_path = qc_xcalloc(P->n_specs + 1, sizeof *P->spec_path);
	P->spec_sha = qc_xcalloc(P->n_specs + 1, sizeof *P->spec_sha);
	P->spec_cases = qc_xcalloc(P->n_specs + 1, sizeof *P->spec_cases);
	for (uint32_t i = 0; i < P->n_specs; i++) {
		P->spec_path[i] = qc_rb_str(&r);
		P->spec_sha[i] = qc_rb_str(&r);
		P->spec_cases[i] = qc_rb_u64(&r);
	}
	P->cases = qc_xcalloc((size_t)P->n_cases + 1, sizeof *P->cases);
	for (uint32_t i = 0; i < P->n_cases && !r.bad; i++) {
		im_case *c = &P->cases[i];
		c->crc = qc_rb_u32(&r);
		c->size = qc_rb_u32(&r);
		c->ordinal = qc_rb_u64(&r);
		c->name = qc_rb_str(&r);
		c->hash = qc_hash64(c->name, 0);
	}
	int bad = r.bad || r.at != r.n;
	free(m);
	if (bad)
		return qc_errf(err, err_size, "%s: malformed (its lists do not fill it exactly)",
		               path);
	/* each case file, whole and the one the manifest lists */
	for (uint32_t i = 0; i < P->n_cases; i++) {
		snprintf(path, sizeof path, "%s/cases/%06u.qcc", P->dir, i);
		unsigned char *p = qc_read_whole(path, QC_RECORDS_MAX_BYTES, "case file", &n, rwhy,
		                                 sizeof rwhy);
		if (!p)
			return qc_errf(err, err_size, "%s (case %u, %s)", rwhy, i,
			               P->cases[i].name);
		uint32_t index;
		int rc = qc_bin_open(p, n, QCF_MAGIC_CASE, 1, &index, version, &r, why, sizeof why);
		if (rc == 0 && qc_bin_format(p, n) != P->format) {
			snprintf(why, sizeof why, "format version %u, the manifest's is %u",
			         qc_bin_format(p, n), P->format);
			rc = -1;
		}
		if (rc == 0 && (index != i || n != P->cases[i].size ||
		                qc_crc32(0, p, n - 4) != P->cases[i].crc)) {
			snprintf(why, sizeof why,
			         "is not the case file the manifest lists (case %u, %s): the "
			         "directory mixes two exports",
			         i, P->cases[i].name);
			rc = -1;
		}
		free(p);
		if (rc != 0)
			return qc_errf(err, err_size, "%s: %s", path, why);
	}
	/* the specs: present and unchanged (the run checks the set it loads again) */
	for (uint32_t i = 0; i < P->n_specs; i++) {
		char hex[65];
		if (qc_sha256_file(P->spec_path[i], hex) != 0)
			return qc_errf(err, err_size,
			               "spec %s of the export cannot be read: %s (import from the "
			               "directory the export ran in)",
			               P->spec_path[i], strerror(errno));
		if (strcmp(hex, P->spec_sha[i]) != 0)
			return qc_errf(err, err_size,
			               "spec %s changed since the export (sha256 %.12s..., the "
			               "export's %.12s...): export again and rerun the runner",
			               P->spec_path[i], hex, P->spec_sha[i]);
	}
	return 0;
}

static int same_strs(char **a, uint32_t na, char **b, uint32_t nb)
{
	if (na != nb)
		return 0;
	for (uint32_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return 0;
	return 1;
}

/* Part P (not the first) is another shard of the first's selection: 0, or -1 and err. */
static int same_selection(const im_part *A, const im_part *P, char *err, size_t err_size)
{
	const char *what = NULL;
	if (A->seed != P->seed)
		what = "another seed";
	else if (strcmp(A->profile, P->profile))
		what = "another profile";
	else if (!same_strs(A->paths, A->n_paths, P->paths, P->n_paths))
		what = "other spec paths";
	else if (!same_strs(A->filters, A->n_filters, P->filters, P->n_filters))
		what = "other filters";
	else if (!same_strs(A->case_names, A->n_case_names, P->case_names, P->n_case_names))
		what = "other --case names";
	else if (!same_strs(A->extensions, A->n_extensions, P->extensions, P->n_extensions))
		what = "other extensions";
	else if (!same_strs(A->spec_path, A->n_specs, P->spec_path, P->n_specs) ||
	         !same_strs(A->spec_sha, A->n_specs, P->spec_sha, P->n_specs))
		what = "another spec set (paths or sha256)";
	else if (!A->shard_count || P->shard_count != A->shard_count)
		what = "another --shard count (several exports must be the shards K/N of one "
		       "selection)";
	if (what)
		return qc_errf(err, err_size, "%s has %s than %s: not shards of one export", P->dir,
		               what, A->dir);
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
	int abort;         /* an abort: kind in status (QCF_ABORT_*), source in stage */
	uint32_t engine;   /* a case record's: what engine() said (the device's word) */
	char *engine_name; /* malloc'd */
	/* a chain case's (format version 4): how it ran, the node the outcome is of, the nodes
	 * that returned QCF_OK, and op by op the kernel's intermediates */
	uint32_t chain_mode, chain_node, nodes_ok, n_mid;
	uint64_t mid_nbytes[QC_MAX_TENSORS];
	const unsigned char *mid[QC_MAX_TENSORS];
} rec;

static void rec_free(rec *o)
{
	free(o->message);
	free(o->engine_name);
	o->message = o->engine_name = NULL;
}

/* A case record or a case abort of format version `format` (the export's), whole and exactly
 * n bytes (message malloc'd). 0, or -1 and why. */
static int parse_case_record(const unsigned char *p, size_t n, unsigned format, rec *o, char *why,
                             size_t why_size)
{
	qc_rbuf r;
	char version[QCF_VERSION_BYTES + 1];
	memset(o, 0, sizeof *o);
	o->abort = n >= 4 && !memcmp(p, QCF_MAGIC_ABORT, 4);
	if (qc_bin_open(p, n, o->abort ? QCF_MAGIC_ABORT : QCF_MAGIC_RESULT, 0, &o->index, version,
	                &r, why, why_size) != 0)
		return -1;
	if (qc_bin_format(p, n) != format) {
		snprintf(why, why_size, "format version %u, the export's is %u",
		         qc_bin_format(p, n), format);
		return -1;
	}
	o->case_crc = qc_rb_u32(&r);
	if (o->abort) {
		o->status = (int32_t)qc_rb_u32(&r);
		o->stage = qc_rb_u32(&r);
		o->ns = qc_rb_u64(&r);
		o->message = qc_rb_str(&r);
		if (r.bad || r.at != r.n || r.n + 4 != n ||
		    (o->status != QCF_ABORT_CRASH && o->status != QCF_ABORT_TIMEOUT) ||
		    o->stage > 1 || strlen(o->message) > QCF_MESSAGE_BYTES) {
			rec_free(o);
			snprintf(why, why_size, "malformed case abort");
			return -1;
		}
		return 0;
	}
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
	o->engine = qc_rb_u32(&r);
	o->engine_name = qc_rb_str(&r);
	if (format >= 4) {
		o->chain_mode = qc_rb_u32(&r);
		o->chain_node = qc_rb_u32(&r);
		o->nodes_ok = qc_rb_u32(&r);
		o->n_mid = qc_rb_u32(&r);
		if (o->n_mid > QC_MAX_TENSORS || o->chain_mode > QCF_CHAIN_FUSED ||
		    o->chain_node > QCF_CASE_MAX_NODES || o->nodes_ok > QCF_CASE_MAX_NODES)
			r.bad = 1;
		for (uint32_t k = 0; k < o->n_mid && !r.bad; k++) {
			o->mid_nbytes[k] = qc_rb_u64(&r);
			o->mid[k] = o->mid_nbytes[k] > r.n
			                    ? NULL
			                    : qc_rb_bytes(&r, (size_t)o->mid_nbytes[k]);
			if (!o->mid[k])
				r.bad = 1;
		}
	}
	if (r.bad || r.at != r.n || r.n + 4 != n || o->stage > QCF_STAGE_EXECUTE ||
	    o->check > QCF_CHECK_OUTSIDE || strlen(o->engine_name) > QCF_ENGINE_NAME_BYTES) {
		rec_free(o);
		snprintf(why, why_size, "malformed case record");
		return -1;
	}
	return 0;
}

/* A runner header (exactly n bytes): it must name this export and agree with every header
 * read before (of any session, of any part). */
static int take_header(qc_import *im, im_part *P, const unsigned char *p, size_t n,
                       const char *where, char *err, size_t err_size)
{
	qc_rbuf r;
	char version[QCF_VERSION_BYTES + 1], why[256];
	uint32_t count;
	if (qc_bin_open(p, n, QCF_MAGIC_RUNNER, 0, &count, version, &r, why, sizeof why) != 0)
		return qc_errf(err, err_size, "%s: %s", where, why);
	if (qc_bin_format(p, n) != P->format)
		return qc_errf(err, err_size,
		               "%s: a runner of format version %u, the export's is %u: run the "
		               "runner of the qconform that exported it",
		               where, qc_bin_format(p, n), P->format);
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
	qc_rb_u32(&r); /* first, count: which cases this session covered */
	qc_rb_u32(&r);
	qc_rb_u64(&r); /* the arena's bytes, the watched regions */
	qc_rb_u32(&r);
	if (rc == 0 && (r.bad || r.at != r.n || r.n + 4 != n))
		rc = qc_errf(err, err_size, "%s: malformed runner header", where);
	else if (rc == 0 && strcmp(mode, "hosted") && strcmp(mode, "freestanding") &&
	         strcmp(mode, "streamed"))
		rc = qc_errf(err, err_size, "%s: a runner of an unknown mode", where);
	else if (rc == 0 && (crc != P->manifest_crc || count != P->n_cases))
		rc = qc_errf(err, err_size,
		             "%s: the runner ran another export (manifest CRC-32 %08lx, %lu cases; "
		             "%s has %08lx, %lu cases)",
		             where, (unsigned long)crc, (unsigned long)count, P->dir,
		             (unsigned long)P->manifest_crc, (unsigned long)P->n_cases);
	else if (rc == 0 && create != QCF_OK)
		rc = qc_errf(err, err_size,
		             "%s: the runner could not create the plugin (create returned %d%s%s): "
		             "no case ran",
		             where, (int)create, cmsg[0] ? ": " : "", cmsg);
	else if (rc == 0 && im->have_header &&
	         (strcmp(name, im->plugin_name) || strcmp(ver, im->plugin_version) ||
	          abi != im->abi || strcmp(version, im->runner_version) || strcmp(mode, im->mode) ||
	          (int)n_opt != im->n_options))
		rc = qc_errf(err, err_size,
		             "%s: two runs of the runner disagree (plugin %s %s, ABI %u, %s runner "
		             "of %s; and %s %s, ABI %u, %s runner of %s)",
		             where, im->plugin_name, im->plugin_version, im->abi, im->mode,
		             im->runner_version, name, ver, abi, mode, version);
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
		qc_sha256_update(&P->sha, p, n);
	return rc ? -1 : 0;
}

/* A case start (exactly n bytes): its index, or -1 and err. */
static long take_start(im_part *P, const unsigned char *p, size_t n, const char *where, char *err,
                       size_t err_size)
{
	qc_rbuf r;
	char version[QCF_VERSION_BYTES + 1], why[256];
	uint32_t index;
	if (qc_bin_open(p, n, QCF_MAGIC_START, 0, &index, version, &r, why, sizeof why) != 0)
		return qc_errf(err, err_size, "%s: %s", where, why);
	uint32_t crc = qc_rb_u32(&r);
	if (r.bad || r.at != r.n || r.n + 4 != n)
		return qc_errf(err, err_size, "%s: malformed case start", where);
	if (index >= P->n_cases)
		return qc_errf(err, err_size, "%s: the start of case %u, the export has %u", where,
		               index, P->n_cases);
	/* crc 0: the streamed runner never had the case whole (its record says why) */
	if (crc != P->cases[index].crc && crc != 0)
		return qc_errf(err, err_size,
		               "%s: the start of case %u (%s) is of another case file: rerun the "
		               "runner on this export",
		               where, index, P->cases[index].name);
	qc_sha256_update(&P->sha, p, n);
	return (long)index;
}

/* A case record or abort (exactly n bytes), bound to its case. stream: it stays in place. */
static int take_case(im_part *P, const unsigned char *p, size_t n, const char *where, int stream,
                     char *err, size_t err_size)
{
	rec o;
	char why[256];
	if (parse_case_record(p, n, P->format, &o, why, sizeof why) != 0)
		return qc_errf(err, err_size, "%s: %s", where, why);
	rec_free(&o);
	if (o.index >= P->n_cases)
		return qc_errf(err, err_size, "%s: a record of case %u, the export has %u", where,
		               o.index, P->n_cases);
	im_case *c = &P->cases[o.index];
	if (o.case_crc != c->crc && !(o.case_crc == 0 && o.check == QCF_CHECK_NOT_RUN))
		return qc_errf(err, err_size,
		               "%s: the record of case %u (%s) is of another case file (CRC-32 "
		               "%08lx, the export's %08lx): rerun the runner on this export",
		               where, o.index, c->name, (unsigned long)o.case_crc,
		               (unsigned long)c->crc);
	if (stream && c->have >= REC_RESULT) {
		if (c->rec_len != n || memcmp(c->rec, p, n) != 0)
			return qc_errf(err, err_size, "%s: two different records of case %u (%s)",
			               where, o.index, c->name);
		return 0;
	}
	c->have = o.abort ? REC_ABORT : REC_RESULT;
	c->judged = 0;
	c->rec = stream ? p : NULL;
	c->rec_len = n;
	P->last_case = o.index;
	P->any_case = 1;
	qc_sha256_update(&P->sha, p, n);
	return 0;
}

/* The stream's "QC1 " lines, decoded and joined into P->stream_bytes. */
static int decode_stream(im_part *P, const unsigned char *t, size_t n, char *err, size_t err_size)
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
				               P->outputs, line, end - s);
			}
			for (size_t k = s; k < end; k += 4) {
				int v[4], pad = 0;
				for (int j = 0; j < 4; j++) {
					v[j] = t[k + (size_t)j] == '=' && k + 4 == end && j >= 2
					               ? (pad++, 0)
					               : qc_b64_value(t[k + (size_t)j]);
					if (v[j] < 0 || (pad && t[k + (size_t)j] != '=')) {
						free(out);
						return qc_errf(err, err_size,
						               "%s:%zu: not base64 (byte '%c')",
						               P->outputs, line, t[k + (size_t)j]);
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
	P->stream_bytes = out;
	P->stream_n = o;
	return 0;
}

/* The records of one session end: a case started and not answered is judged (the runner went
 * on after it, so it stopped in it). */
static void close_session(im_part *P, long *inflight)
{
	if (*inflight >= 0 && P->cases[*inflight].have == REC_STARTED)
		P->cases[*inflight].judged = 1;
	*inflight = -1;
}

static int load_stream(qc_import *im, im_part *P, char *err, size_t err_size)
{
	size_t n;
	unsigned char *t =
	        qc_read_whole(P->outputs, QC_RECORDS_MAX_BYTES, "record stream", &n, err, err_size);
	if (!t)
		return -1;
	int rc = decode_stream(P, t, n, err, err_size);
	free(t);
	if (rc)
		return -1;
	const unsigned char *p = P->stream_bytes;
	size_t len = P->stream_n, at = 0;
	int records = 0, last_end = 0, in_session = 0;
	long inflight = -1; /* the case started and not answered yet */
	uint32_t session_cases = 0;
	char where[2300];
	while (at < len) {
		snprintf(where, sizeof where, "%s: record %d (byte %zu of the decoded stream)",
		         P->outputs, records + 1, at);
		if (len - at < QCF_HEADER_BYTES + 4)
			return qc_errf(
			        err, err_size,
			        "%s: truncated: %zu bytes, shorter than a header (bytes after "
			        "the last record?)",
			        where, len - at);
		const unsigned char *r = p + at;
		size_t total = qc_le32(r + 8);
		if (total < QCF_HEADER_BYTES + 4 || total > len - at)
			return qc_errf(
			        err, err_size,
			        "%s: truncated or damaged: it states %zu bytes, %zu are left",
			        where, total, len - at);
		last_end = 0;
		if (!memcmp(r, QCF_MAGIC_REQUEST, 4)) {
			/* the streamed runner asking the host: nothing of the verdicts */
			char version[QCF_VERSION_BYTES + 1], why[256];
			uint32_t idx;
			qc_rbuf rb;
			if (qc_bin_open(r, total, QCF_MAGIC_REQUEST, 0, &idx, version, &rb, why,
			                sizeof why) != 0)
				return qc_errf(err, err_size, "%s: %s", where, why);
		} else if (!memcmp(r, QCF_MAGIC_RUNNER, 4)) {
			close_session(P, &inflight);
			rc = take_header(im, P, r, total, where, err, err_size);
			in_session = 1;
			session_cases = 0;
		} else if (!in_session)
			rc = qc_errf(err, err_size,
			             "%s: records before a runner header (a session's start lost?)",
			             where);
		else if (!memcmp(r, QCF_MAGIC_START, 4)) {
			long idx = take_start(P, r, total, where, err, err_size);
			if (idx < 0)
				return -1;
			close_session(P, &inflight); /* the one before it never answered */
			if (P->cases[idx].have < REC_RESULT) {
				P->cases[idx].have = REC_STARTED;
				P->cases[idx].started_at = at;
			}
			inflight = idx;
			session_cases++;
		} else if (!memcmp(r, QCF_MAGIC_RESULT, 4) || !memcmp(r, QCF_MAGIC_ABORT, 4)) {
			uint32_t idx = qc_le32(r + 12);
			if (inflight < 0 || (uint32_t)inflight != idx)
				return qc_errf(err, err_size,
				               "%s: the record of case %lu without its start",
				               where, (unsigned long)idx);
			rc = take_case(P, r, total, where, 1, err, err_size);
			inflight = -1;
		} else if (!memcmp(r, QCF_MAGIC_END, 4)) {
			char version[QCF_VERSION_BYTES + 1], why[256];
			uint32_t ran;
			qc_rbuf rb;
			rc = qc_bin_open(r, total, QCF_MAGIC_END, 0, &ran, version, &rb, why,
			                 sizeof why);
			if (rc)
				qc_errf(err, err_size, "%s: %s", where, why);
			else if (qc_rb_u32(&rb) != P->manifest_crc || rb.bad || rb.at != rb.n)
				rc = qc_errf(err, err_size, "%s: the end of another export's run",
				             where);
			else if (ran != session_cases)
				rc = qc_errf(err, err_size,
				             "%s: the runner's end counts %lu cases, its session "
				             "started %lu",
				             where, (unsigned long)ran,
				             (unsigned long)session_cases);
			else {
				close_session(P, &inflight);
				qc_sha256_update(&P->sha, r, total);
				last_end = 1;
				in_session = 0;
			}
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
		               P->outputs, QCF_STREAM_PREFIX);
	if (!last_end) {
		if (inflight >= 0)
			return qc_errf(
			        err, err_size,
			        "%s: the records end during case %ld (%s): the device stopped "
			        "in it (a crash, a hang, a reset); resume after it (qconform "
			        "feed does; the runner's --first %ld) and import every capture "
			        "joined",
			        P->outputs, inflight, P->cases[inflight].name, inflight + 1);
		return qc_errf(err, err_size,
		               "%s: no runner end after the last record: the capture is cut short "
		               "(or the device stopped)",
		               P->outputs);
	}
	return 0;
}

/* A record file whole: its records one after another, exactly. */
static int load_directory(qc_import *im, im_part *P, char *err, size_t err_size)
{
	char path[2400];
	snprintf(path, sizeof path, "%s/runner.qco", P->outputs);
	size_t n;
	char rwhy[2600];
	unsigned char *p =
	        qc_read_whole(path, QC_RECORDS_MAX_BYTES, "record", &n, rwhy, sizeof rwhy);
	if (!p)
		return qc_errf(err, err_size, "%s (has the runner run?)", rwhy);
	int rc = 0;
	for (size_t at = 0; rc == 0 && at < n;) {
		size_t total = n - at >= 12 ? qc_le32(p + at + 8) : 0;
		if (total < QCF_HEADER_BYTES + 4 || total > n - at)
			rc = qc_errf(err, err_size, "%s: bytes after its last whole header", path);
		else
			rc = take_header(im, P, p + at, total, path, err, err_size);
		at += total;
	}
	free(p);
	/* end.qco: the runner reached the end of a session */
	snprintf(path, sizeof path, "%s/end.qco", P->outputs);
	int have_end = 0;
	if (rc == 0 &&
	    (p = qc_read_whole(path, QC_RECORDS_MAX_BYTES, "record", &n, rwhy, sizeof rwhy))) {
		char version[QCF_VERSION_BYTES + 1], why[256];
		uint32_t ran;
		qc_rbuf rb;
		if (qc_bin_open(p, n, QCF_MAGIC_END, 0, &ran, version, &rb, why, sizeof why) != 0)
			rc = qc_errf(err, err_size, "%s: %s", path, why);
		else if (qc_rb_u32(&rb) != P->manifest_crc || rb.bad || rb.at != rb.n ||
		         rb.n + 4 != n)
			rc = qc_errf(err, err_size,
			             "%s: not the end of this export's run (or bytes after it)",
			             path);
		else
			have_end = 1;
		free(p);
	}
	long last_answered = -1;
	for (uint32_t i = 0; rc == 0 && i < P->n_cases; i++) {
		snprintf(path, sizeof path, "%s/%06u.qco", P->outputs, i);
		if (!(p = qc_read_whole(path, QC_RECORDS_MAX_BYTES, "record", &n, rwhy,
		                        sizeof rwhy)))
			continue; /* said below, when nothing judges it */
		size_t first = n >= 12 ? qc_le32(p + 8) : 0;
		if (first < QCF_HEADER_BYTES + 4 || first > n)
			rc = qc_errf(err, err_size, "%s: truncated or damaged", path);
		else if (take_start(P, p, first, path, err, err_size) != (long)i)
			rc = rc ? rc
			        : qc_errf(err, err_size, "%s: the start of another case", path);
		else if (first == n)
			P->cases[i].have = REC_STARTED;
		else {
			size_t total = n - first >= 12 ? qc_le32(p + first + 8) : 0;
			if (total != n - first || qc_le32(p + first + 12) != i)
				rc = qc_errf(
				        err, err_size,
				        "%s: its record is truncated, of another case, or followed "
				        "by other bytes",
				        path);
			else
				rc = take_case(P, p + first, total, path, 0, err, err_size);
			last_answered = i;
		}
		free(p);
	}
	qc_sha256_update(&P->sha, "end", have_end);
	/* a case started and not answered is judged when the records go on after it */
	for (uint32_t i = 0; rc == 0 && i < P->n_cases; i++)
		if (P->cases[i].have == REC_STARTED) {
			if ((long)i < last_answered || have_end)
				P->cases[i].judged = 1;
			else
				return qc_errf(
				        err, err_size,
				        "%s: the records end during case %u (%s): the runner "
				        "stopped in it (a crash, a hang, a reset); run the rest "
				        "with the runner's --resume and import again",
				        P->outputs, i, P->cases[i].name);
		}
	if (rc == 0 && !have_end)
		return qc_errf(err, err_size,
		               "%s/end.qco: missing (the runner did not finish: run the rest with "
		               "its --resume)",
		               P->outputs);
	return rc;
}

/* ---- the run's hooks ---- */

int qc_import_check_specs(const qc_import *im, qc_spec *const *specs, const uint64_t *selected,
                          int n, uint64_t total, char *err, size_t err_size)
{
	const im_part *A = im->parts[0];
	for (int i = 0; i < n || (uint32_t)i < A->n_specs; i++) {
		if (i >= n || (uint32_t)i >= A->n_specs || strcmp(specs[i]->path, A->spec_path[i]))
			return qc_errf(err, err_size,
			               "the specs are not the export's: %s %s, %s %s (a spec file "
			               "added, removed or renamed since the export)",
			               (uint32_t)i < A->n_specs ? "the export has"
			                                        : "the export has no more,",
			               (uint32_t)i < A->n_specs ? A->spec_path[i] : "",
			               i < n ? "this run loads" : "this run loads no more",
			               i < n ? specs[i]->path : "");
		if (strcmp(specs[i]->sha256, A->spec_sha[i]) != 0)
			return qc_errf(err, err_size, "spec %s changed since the export",
			               specs[i]->path);
		uint64_t held = 0;
		for (int k = 0; k < im->n_parts; k++)
			held += im->parts[k]->spec_cases[i];
		if (selected[i] != held)
			return qc_errf(err, err_size,
			               "spec %s gives %llu cases, the export holds %llu of it",
			               specs[i]->path, (unsigned long long)selected[i],
			               (unsigned long long)held);
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
	qcf_tensor *outs;        /* cap * QC_MAX_TENSORS */
	void **bufs;             /* per case: the outputs' copies, then the intermediates' */
	qc_source_chain *chains; /* cap: what each record says of its chain */
} src_state;

#define SRC_BUFS (2 * QC_MAX_TENSORS) /* bufs per case */

static void free_bufs(src_state *s)
{
	for (int i = 0; s->bufs && i < s->cap * SRC_BUFS; i++) {
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
	free(s->chains);
	free(s);
}

static const im_case *find_case(const qc_import *im, const char *name, const im_part **part,
                                uint32_t *index)
{
	uint64_t h = qc_hash64(name, 0);
	size_t lo = 0, hi = im->n_cases;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (im->by_hash[mid].hash < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < im->n_cases && im->by_hash[lo].hash == h; lo++) {
		const im_part *P = im->parts[im->by_hash[lo].part];
		if (!strcmp(P->cases[im->by_hash[lo].index].name, name)) {
			*part = P;
			*index = im->by_hash[lo].index;
			return &P->cases[*index];
		}
	}
	return NULL;
}

/* A record as the runner's answer: what run's worker and runner would have made of it. */
static void answer(const rec *o, qc_exec_result *res)
{
	static const char *const stages[] = {"supports", "prepare", "execute"};
	memset(res, 0, sizeof *res);
	res->seconds = (double)o->ns * 1e-9;
	if (o->abort) {
		res->outcome = o->status == QCF_ABORT_TIMEOUT ? QC_EXEC_TIMEOUT : QC_EXEC_CRASH;
		snprintf(res->message, sizeof res->message, "%s (%s)",
		         o->message[0]                    ? o->message
		         : o->status == QCF_ABORT_TIMEOUT ? "the watchdog stopped the case"
		                                          : "the device faulted",
		         o->stage == 1 ? "qconform feed on the host saw no answer"
		                       : "reported by the device");
		return;
	}
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
	if (res->outcome == QC_EXEC_OK) { /* the engine the device's runner recorded */
		res->engine = o->engine > INT32_MAX ? INT32_MAX : (int)o->engine;
		qc_wire_copy_printable(res->engine_name, sizeof res->engine_name, o->engine_name);
	}
	/* the memory rules the runner checked, in the words of run's runner */
	if (o->check == QCF_CHECK_NONE)
		return;
	res->outcome = QC_EXEC_ERROR;
	if (o->check == QCF_CHECK_OUTPUT_PAST || o->check == QCF_CHECK_OUTPUT_BEFORE)
		snprintf(res->message, sizeof res->message, "wrote %s output %u",
		         o->check == QCF_CHECK_OUTPUT_PAST ? "past the end of"
		                                           : "before the start of",
		         o->check_index);
	else if (o->check == QCF_CHECK_INPUT)
		snprintf(res->message, sizeof res->message, "modified input %u", o->check_index);
	else if (o->check == QCF_CHECK_CALL)
		snprintf(res->message, sizeof res->message,
		         "modified the call's description (tensors, shapes, quantization or "
		         "attributes)");
	else if (o->check_index == 0)
		snprintf(res->message, sizeof res->message,
		         "wrote outside its buffers (the runner's free arena after the case)");
	else if (o->check_index == 1)
		snprintf(res->message, sizeof res->message,
		         "wrote outside its buffers (the case file's bytes)");
	else
		snprintf(res->message, sizeof res->message,
		         "wrote outside its buffers (the firmware's watched region %u)",
		         o->check_index - 2);
}

/*
 * A chain case's record: how it ran (the runner's word) and, op by op, the kernel's
 * intermediates copied into mid[] for the judge to find the first node that differs; a node's
 * outcome named as the worker names it ("op by op, node 2 (RELU6): ..."). 0, or 2 when the
 * record does not fit the case.
 */
static int chain_answer(const qc_case *c, const rec *o, qc_exec_result *res, qc_source_chain *ch,
                        void **mid)
{
	if (o->abort)
		return 0;
	if (!c->n_nodes)
		return o->chain_mode || o->n_mid ? 2 : 0;
	if (!o->chain_mode) /* an export of format 3: the chain ran as one call, unknown how */
		return 0;
	if (o->n_mid != (uint32_t)c->n_mid || o->nodes_ok > (uint32_t)c->n_nodes ||
	    o->chain_node > (uint32_t)c->n_nodes ||
	    (o->chain_mode == QCF_CHAIN_FUSED && (o->chain_node || o->nodes_ok)))
		return 2;
	ch->mode = o->chain_mode == QCF_CHAIN_FUSED ? QC_CHAIN_FUSED : QC_CHAIN_OPBYOP;
	ch->nodes_ok = (int)o->nodes_ok;
	for (int k = 0; k < c->n_mid; k++) {
		if (!o->mid_nbytes[k])
			continue;
		if (o->mid_nbytes[k] != c->mid[k].nbytes)
			return 2;
		mid[k] = qc_xcalloc((size_t)o->mid_nbytes[k], 1);
		memcpy(mid[k], o->mid[k], (size_t)o->mid_nbytes[k]);
		ch->mid[k] = mid[k];
	}
	if (o->chain_node && o->check != QCF_CHECK_NOT_RUN) {
		char msg[sizeof res->message];
		snprintf(msg, sizeof msg, "%s", res->message);
		snprintf(res->message, sizeof res->message, "op by op, node %u (%s): %s",
		         o->chain_node, c->nodes[o->chain_node - 1].op, msg);
	}
	return 0;
}

static void src_chain(void *ctx, void *state, int i, qc_source_chain *out)
{
	(void)ctx;
	src_state *s = state;
	memset(out, 0, sizeof *out);
	if (s && i >= 0 && i < s->cap)
		*out = s->chains[i];
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
		free(s->chains);
		s->cap = n;
		s->calls = qc_xcalloc((size_t)n, sizeof *s->calls);
		s->outs = qc_xcalloc((size_t)n * QC_MAX_TENSORS, sizeof *s->outs);
		s->bufs = qc_xcalloc((size_t)n * SRC_BUFS, sizeof *s->bufs);
		s->chains = qc_xcalloc((size_t)n, sizeof *s->chains);
	}
	memset(s->chains, 0, (size_t)s->cap * sizeof *s->chains);
	for (int i = 0; i < n; i++) {
		const qc_case *c = cases[i];
		uint32_t index;
		const im_part *P;
		const im_case *ic = find_case(im, c->name, &P, &index);
		if (!ic)
			return qc_errf(err, err_size, "case %s is not in the export", c->name);
		/* the case as this run built it must be the case the runner ran */
		qc_case_encode(c, index, P->format, &s->enc);
		if (s->enc.n != ic->size || qc_crc32(0, s->enc.p, s->enc.n - 4) != ic->crc)
			return qc_errf(
			        err, err_size,
			        "case %s as the specs build it now differs from its exported "
			        "case file: export again",
			        c->name);
		qcf_op_call *call = &s->calls[i];
		*call = c->call;
		call->outputs = &s->outs[(size_t)i * QC_MAX_TENSORS];
		staged[i] = call;
		if (ic->have == REC_STARTED) {
			/* started, never answered, and the runner went on after it */
			memset(&results[i], 0, sizeof results[i]);
			results[i].outcome = QC_EXEC_CRASH;
			snprintf(results[i].message, sizeof results[i].message,
			         "the runner stopped during the case: its start has no record and "
			         "a later run went on after it (a crash, a hang or a reset of the "
			         "device)");
			continue;
		}
		unsigned char *file = NULL;
		const unsigned char *p = ic->rec;
		size_t len = ic->rec_len;
		char path[2400];
		if (!p) {
			snprintf(path, sizeof path, "%s/%06u.qco", P->outputs, index);
			if (!(file = qc_read_whole(path, QC_RECORDS_MAX_BYTES, "record", &len, err,
			                           err_size)))
				return -1;
			size_t start = len >= 12 ? qc_le32(file + 8) : len;
			p = file + (start <= len ? start : len);
			len -= start <= len ? start : len;
		}
		rec o;
		char why[256] = "not the record read before";
		if (parse_case_record(p, len, P->format, &o, why, sizeof why) != 0 ||
		    o.index != index || (o.case_crc != ic->crc && o.case_crc != 0)) {
			free(file);
			rec_free(&o);
			return qc_errf(err, err_size, "the record of case %s: %s", c->name, why);
		}
		answer(&o, &results[i]);
		int fault = chain_answer(c, &o, &results[i], &s->chains[i],
		                         &s->bufs[(size_t)i * SRC_BUFS + QC_MAX_TENSORS]);
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
				s->bufs[(size_t)i * SRC_BUFS + (size_t)k] = b;
				call->outputs[k].data = b;
			}
		}
		rec_free(&o);
		free(file);
		if (fault)
			return qc_errf(err, err_size,
			               "the record of case %s holds other %s than the case has "
			               "(their count or sizes)",
			               c->name,
			               fault > 1 ? "chain nodes or intermediates" : "outputs");
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
	snprintf(info->path, sizeof info->path, "%s", im->parts[0]->outputs);
	im->src.execute = src_execute;
	im->src.chain = src_chain;
	im->src.free_state = src_free;
	im->src.ctx = im;
	return &im->src;
}

const qc_import_meta *qc_import_report_meta(const qc_import *im)
{
	return &im->meta;
}

/* ---- qconform import ---- */

/* Opens part k: its export and its records. */
static int part_open(qc_import *im, const char *dir, const char *outputs, char *err,
                     size_t err_size)
{
	if (im->n_parts == QC_IMPORT_MAX_PARTS)
		return qc_errf(err, err_size, "more than %d export directories",
		               QC_IMPORT_MAX_PARTS);
	im_part *P = qc_xcalloc(1, sizeof *P);
	im->parts[im->n_parts++] = P;
	snprintf(P->dir, sizeof P->dir, "%s", dir);
	if (load_export(P, err, err_size) != 0)
		return -1;
	if (im->n_parts > 1 && same_selection(im->parts[0], P, err, err_size) != 0)
		return -1;
	if (outputs)
		snprintf(P->outputs, sizeof P->outputs, "%s", outputs);
	else
		snprintf(P->outputs, sizeof P->outputs, "%s/outputs", dir);
	struct stat sb;
	if (stat(P->outputs, &sb) != 0)
		return qc_errf(err, err_size, "%s: %s (the runner's records)", P->outputs,
		               strerror(errno));
	P->stream = !S_ISDIR(sb.st_mode);
	qc_sha256_init(&P->sha);
	if ((P->stream ? load_stream(im, P, err, err_size)
	               : load_directory(im, P, err, err_size)) != 0)
		return -1;
	for (uint32_t i = 0; i < P->n_cases; i++) {
		if (P->cases[i].have == REC_STARTED && P->cases[i].judged)
			im->judged++;
		else if (P->cases[i].have == REC_ABORT)
			im->device_aborts++;
		if (P->cases[i].have != REC_NONE)
			continue;
		if (!P->stream)
			return qc_errf(
			        err, err_size,
			        "%s/%06u.qco: missing (no record of case %u, %s: run the rest "
			        "with the runner's --resume)",
			        P->outputs, i, i, P->cases[i].name);
		char after[64] = "holds no case";
		if (P->any_case)
			snprintf(after, sizeof after, "ends after case %u", P->last_case);
		return qc_errf(err, err_size,
		               "%s: no record of case %u (%s): the runner's record %s (did "
		               "the device stop? run the rest with the runner's --first %u "
		               "and import every stream joined)",
		               P->outputs, i, P->cases[i].name, after, i);
	}
	uint8_t d[32];
	qc_sha256_final(&P->sha, d);
	for (int i = 0; i < 32; i++)
		snprintf(P->records_sha + 2 * i, 3, "%02x", d[i]);
	im->n_cases += P->n_cases;
	return 0;
}

static int import_open(qc_import *im, const char *const *dirs, const char *const *outputs,
                       int n_dirs, char *err, size_t err_size)
{
	for (int i = 0; i < n_dirs; i++)
		if (part_open(im, dirs[i], outputs[i], err, err_size) != 0)
			return -1;
	if (im->n_parts > 1) {
		/* shards K/N of one export: each once, none missing */
		uint32_t count = im->parts[0]->shard_count;
		if (im->n_parts != (int)count)
			return qc_errf(err, err_size,
			               "%d export directories of %u shards: import every shard of "
			               "the export, each once",
			               im->n_parts, count);
		for (int i = 0; i < im->n_parts; i++)
			for (int k = 0; k < i; k++)
				if (im->parts[i]->shard_index == im->parts[k]->shard_index)
					return qc_errf(err, err_size,
					               "shard %u/%u given twice (%s, %s)",
					               im->parts[i]->shard_index, count,
					               im->parts[k]->dir, im->parts[i]->dir);
	}
	/* every case by name, over the parts */
	im->by_hash = qc_xcalloc((size_t)im->n_cases + 1, sizeof *im->by_hash);
	size_t k = 0;
	for (int i = 0; i < im->n_parts; i++)
		for (uint32_t c = 0; c < im->parts[i]->n_cases; c++)
			im->by_hash[k++] = (im_ref){im->parts[i]->cases[c].hash, (uint32_t)i, c};
	qsort(im->by_hash, k, sizeof *im->by_hash, cmp_ref);
	/* the records' identity: one part's sha256, or that of the parts' in order */
	if (im->n_parts == 1)
		snprintf(im->records_sha, sizeof im->records_sha, "%s", im->parts[0]->records_sha);
	else {
		qc_sha256 sha;
		uint8_t d[32];
		qc_sha256_init(&sha);
		for (int i = 0; i < im->n_parts; i++)
			qc_sha256_update(&sha, im->parts[i]->records_sha, 64);
		qc_sha256_final(&sha, d);
		for (int i = 0; i < 32; i++)
			snprintf(im->records_sha + 2 * i, 3, "%02x", d[i]);
	}
	for (int i = 0; i < im->n_parts; i++) {
		const im_part *P = im->parts[i];
		im->part_meta[i] =
		        (qc_import_part_meta){P->dir,         P->manifest_sha,
		                              P->outputs,     P->stream ? "stream" : "directory",
		                              P->records_sha, P->shard_index,
		                              P->shard_count};
	}
	const im_part *A = im->parts[0];
	im->meta = (qc_import_meta){A->dir,
	                            A->manifest_sha,
	                            A->outputs,
	                            A->stream ? "stream" : "directory",
	                            im->runner_version,
	                            im->mode,
	                            im->part_meta,
	                            im->n_parts,
	                            im->device_aborts,
	                            im->judged};
	return 0;
}

void qc_import_run_opts(qc_import *im, qc_run_opts *o)
{
	/* the export's selection, the runner's plugin options: the run of the export */
	const im_part *A = im->parts[0];
	o->paths = A->paths;
	o->n_paths = (int)A->n_paths;
	for (uint32_t i = 0; i < A->n_filters; i++)
		o->filters[o->n_filters++] = A->filters[i];
	o->case_names = (const char **)A->case_names;
	o->n_case_names = (int)A->n_case_names;
	o->profile = A->profile[0] ? A->profile : NULL;
	for (uint32_t i = 0; i < A->n_extensions; i++)
		o->extensions[o->n_extensions++] = A->extensions[i];
	o->seed = A->seed;
	/* one shard alone is that shard; every shard together is the whole selection */
	o->shard_index = im->n_parts == 1 ? (int)A->shard_index : 0;
	o->shard_count = im->n_parts == 1 ? (int)A->shard_count : 0;
	for (int i = 0; i < im->n_options; i++)
		o->options[o->n_options++] = im->options[i];
	o->import = im;
	printf("import: %s%s, the runner's records %s (%s, %s runner of qconform %s)%s\n", A->dir,
	       im->n_parts > 1 ? " and the other shards" : "", A->outputs,
	       A->stream ? "stream" : "directory", im->mode, im->runner_version,
	       im->judged ? "; cases started and never answered are CRASH" : "");
}

const char *qc_import_profile(const qc_import *im)
{
	return im->parts[0]->profile;
}

void qc_import_extensions(const qc_import *im, const char *const **ext, int *n, int *filtered)
{
	const im_part *A = im->parts[0];
	*ext = (const char *const *)A->extensions;
	*n = (int)A->n_extensions;
	*filtered = A->n_filters || A->n_case_names || (im->n_parts == 1 && A->shard_count);
}

qc_import *qc_import_open(const char *const *dirs, const char *const *outputs, int n_dirs,
                          char *err, size_t err_size)
{
	qc_import *im = qc_xcalloc(1, sizeof *im);
	if (import_open(im, dirs, outputs, n_dirs, err, err_size) != 0) {
		import_free(im);
		return NULL;
	}
	return im;
}

void qc_import_close(qc_import *im)
{
	import_free(im);
}
