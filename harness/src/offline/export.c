#include "offline/export.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "cases/expected.h"
#include "offline/qcbin.h"
#include "report/report.h"
#include "run/poison.h"

typedef struct exp_case {
	uint32_t crc, size;
	uint64_t ordinal;
	char *name;
} exp_case;

typedef struct exporter {
	const qc_run_opts *o;
	const char *dir;
	int c_arrays;
	FILE *carr; /* cases.c, written as the cases come */
	qc_wbuf w;
	exp_case *cases;
	size_t n, cap;
	qc_wbuf specs; /* the manifest's spec list */
	char path[4200];
} exporter;

static int write_file(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int bad = fwrite(p, 1, n, f) != n;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

static void c_array(FILE *f, const char *name, const unsigned char *p, size_t n)
{
	fprintf(f, "static const unsigned char %s[%zu] = {", name, n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s0x%02x,", i % 16 ? " " : "\n\t", p[i]);
	fprintf(f, "\n};\n\n");
}

static int on_specs(void *ctx, qc_spec *const *specs, const uint64_t *selected, int n,
                    uint64_t total)
{
	exporter *x = ctx;
	(void)total;
	qc_wb_u32(&x->specs, (uint32_t)n);
	for (int i = 0; i < n; i++) {
		qc_wb_str(&x->specs, specs[i]->path);
		qc_wb_str(&x->specs, specs[i]->sha256);
		qc_wb_u64(&x->specs, selected[i]);
	}
	return 0;
}

static int on_case(void *ctx, qc_case *c, uint64_t ordinal)
{
	exporter *x = ctx;
	char err[512], msg[512];
	/* the outputs start as the run's poison: the reference's answer with its top bit flipped */
	qc_expected *e = qc_expected_new(c, err, sizeof err);
	if (qc_expected_spec_error(c, e, msg, sizeof msg)) {
		fprintf(stderr, "qconform export: %s: case %s: %s\n", c->spec->path, c->name, msg);
		qc_expected_free(e, c->call.n_outputs);
		return 2;
	}
	for (int k = 0; k < c->call.n_outputs; k++)
		qc_poison_fill(&c->out[k], e->status == QCF_OK ? &e->out[k] : NULL);
	for (int k = 0; k < c->n_mid; k++) {
		/* a chain's intermediates start poisoned too, as the run's worker gets them */
		qcf_tensor ref = c->mid[k];
		ref.data = e->status == QCF_OK ? e->mid[k] : NULL;
		qc_poison_fill(&c->mid[k], ref.data ? &ref : NULL);
	}
	qc_expected_free(e, c->call.n_outputs);
	if (qc_case_fits(c, msg, sizeof msg) != 0) {
		fprintf(stderr, "qconform export: %s: case %s has %s: it cannot be exported\n",
		        c->spec->path, c->name, msg);
		return 2;
	}
	uint32_t index = (uint32_t)x->n;
	qc_case_encode(c, index, QCF_FORMAT_VERSION, &x->w);
	snprintf(x->path, sizeof x->path, "%s/cases/%06u.qcc", x->dir, index);
	if (write_file(x->path, x->w.p, x->w.n) != 0) {
		fprintf(stderr, "qconform export: cannot write %s: %s\n", x->path, strerror(errno));
		return 2;
	}
	if (x->carr) {
		char name[32];
		snprintf(name, sizeof name, "case_%06u", index);
		c_array(x->carr, name, x->w.p, x->w.n);
	}
	QC_GROW(x->cases, x->n, x->cap, 256);
	exp_case *ec = &x->cases[x->n++];
	ec->size = (uint32_t)x->w.n;
	ec->crc = qc_crc32(0, x->w.p, x->w.n - 4);
	ec->ordinal = ordinal;
	ec->name = strdup(c->name);
	return 0;
}

static void strs(qc_wbuf *w, const char *const *v, int n)
{
	qc_wb_u32(w, (uint32_t)n);
	for (int i = 0; i < n; i++)
		qc_wb_str(w, v[i]);
}

/* A directory for the export: a new or empty one, or an earlier export (its files go). */
static int prepare_dir(const char *dir)
{
	char p[4200];
	if (qc_mkdirs(dir) != 0) {
		fprintf(stderr, "qconform export: cannot create %s: %s\n", dir, strerror(errno));
		return 2;
	}
	snprintf(p, sizeof p, "%s/manifest.qcm", dir);
	int earlier = access(p, F_OK) == 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	int other = 0;
	while (d && (de = readdir(d)))
		other |= strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	if (other && !earlier) {
		fprintf(stderr,
		        "qconform export: %s is neither empty nor an export: give a new or empty "
		        "directory\n",
		        dir);
		return 2;
	}
	/* an earlier export: its case files, records and C arrays go */
	static const char *const sub[] = {"cases", "outputs"};
	for (int i = 0; earlier && i < 2; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
		if (!(d = opendir(p)))
			continue;
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);
			if (l > 4 && (!strcmp(de->d_name + l - 4, ".qcc") ||
			              !strcmp(de->d_name + l - 4, ".qco"))) {
				char f[4500];
				snprintf(f, sizeof f, "%s/%s", p, de->d_name);
				unlink(f);
			}
		}
		closedir(d);
	}
	static const char *const files[] = {"manifest.qcm", "cases.c", "cases.h"};
	for (int i = 0; earlier && i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		unlink(p);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
		if (qc_mkdirs(p) != 0) {
			fprintf(stderr, "qconform export: cannot create %s: %s\n", p,
			        strerror(errno));
			return 2;
		}
	}
	return 0;
}

int qc_export(const qc_run_opts *o, const char *out_dir, int c_arrays, size_t *n_cases)
{
	if (!out_dir) {
		fprintf(stderr, "qconform export: needs --out DIR (where the case files go)\n");
		return 2;
	}
	if (prepare_dir(out_dir) != 0)
		return 2;
	exporter x = {.o = o, .dir = out_dir, .c_arrays = c_arrays};
	char cpath[4200];
	if (c_arrays) {
		snprintf(cpath, sizeof cpath, "%s/cases.c", out_dir);
		if (!(x.carr = fopen(cpath, "w"))) {
			fprintf(stderr, "qconform export: cannot write %s: %s\n", cpath,
			        strerror(errno));
			return 2;
		}
		fprintf(x.carr,
		        "/* The cases of a qconform export as C arrays (qconform %s, case format "
		        "%d): see\n * qconform_case.h. Written by qconform export: do not edit. "
		        "*/\n#include \"cases.h\"\n\n",
		        QC_VERSION, QCF_FORMAT_VERSION);
	}
	qc_run_visitor v = {on_specs, on_case, &x};
	int rc = qc_run_each_case(o, &v);
	if (rc == 0) {
		qc_wbuf m = {0};
		qc_wb_header(&m, QCF_MAGIC_MANIFEST, (uint32_t)x.n);
		qc_wb_u64(&m, o->seed);
		qc_wb_str(&m, o->profile);
		strs(&m, (const char *const *)o->paths, o->n_paths);
		strs(&m, o->filters, o->n_filters);
		strs(&m, (const char *const *)o->case_names, o->n_case_names);
		strs(&m, o->extensions, o->n_extensions);
		qc_wb_u32(&m, (uint32_t)o->shard_index);
		qc_wb_u32(&m, (uint32_t)o->shard_count);
		qc_wb_bytes(&m, x.specs.p, x.specs.n);
		for (size_t i = 0; i < x.n; i++) {
			qc_wb_u32(&m, x.cases[i].crc);
			qc_wb_u32(&m, x.cases[i].size);
			qc_wb_u64(&m, x.cases[i].ordinal);
			qc_wb_str(&m, x.cases[i].name);
		}
		qc_wb_finish(&m);
		snprintf(x.path, sizeof x.path, "%s/manifest.qcm", out_dir);
		if (write_file(x.path, m.p, m.n) != 0) {
			fprintf(stderr, "qconform export: cannot write %s: %s\n", x.path,
			        strerror(errno));
			rc = 2;
		}
		if (rc == 0 && x.carr) {
			c_array(x.carr, "manifest_bytes", m.p, m.n);
			fprintf(x.carr, "const unsigned char *const qconform_manifest = "
			                "manifest_bytes;\n");
			fprintf(x.carr, "const unsigned long qconform_manifest_size = %zu;\n\n",
			        m.n);
			fprintf(x.carr, "const qcf_case_blob qconform_cases[%zu] = {\n", x.n);
			for (size_t i = 0; i < x.n; i++)
				fprintf(x.carr, "\t{case_%06zu, %lu},\n", i,
				        (unsigned long)x.cases[i].size);
			fprintf(x.carr, "};\nconst unsigned long qconform_n_cases = %zu;\n", x.n);
		}
		qc_wb_free(&m);
	}
	if (x.carr && fclose(x.carr) != 0 && rc == 0) {
		fprintf(stderr, "qconform export: cannot write %s\n", cpath);
		rc = 2;
	}
	if (rc == 0 && c_arrays) {
		snprintf(cpath, sizeof cpath, "%s/cases.h", out_dir);
		FILE *h = fopen(cpath, "w");
		if (h) {
			fprintf(h, "/* The cases of a qconform export as C arrays (cases.c). */\n"
			           "#ifndef QCONFORM_CASES_H\n#define QCONFORM_CASES_H\n\n"
			           "#include \"qconform_case.h\"\n\n"
			           "extern const unsigned char *const qconform_manifest;\n"
			           "extern const unsigned long qconform_manifest_size;\n"
			           "extern const qcf_case_blob qconform_cases[];\n"
			           "extern const unsigned long qconform_n_cases;\n\n#endif\n");
		}
		if (!h || fclose(h) != 0) {
			fprintf(stderr, "qconform export: cannot write %s\n", cpath);
			rc = 2;
		}
	}
	if (n_cases)
		*n_cases = x.n;
	for (size_t i = 0; i < x.n; i++)
		free(x.cases[i].name);
	free(x.cases);
	qc_wb_free(&x.w);
	qc_wb_free(&x.specs);
	return rc;
}
