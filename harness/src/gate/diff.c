#include "gate/diff.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/util.h"
#include "judge/results.h"
#include "run/run.h"

/*
 * Noise. max |e| and mismatches are a maximum and a count over the same inputs (the seed
 * fixes them): they carry no arithmetic noise, so any increase is a change of the kernel.
 * bias and MSE are sums of errors divided by the element count, computed in double; the same
 * errors summed in another order (a merged sharded run, an op roll-up) differ by at most
 * n * 2^-53 relative, below 1.2e-7 for n < 1e9 elements. So |bias| and MSE count as up only
 * beyond DIFF_REL relative plus DIFF_ABS absolute (in the output's unit: LSB, steps or ULP;
 * the absolute term absorbs cancellation around 0). A real change of one element's error in
 * a case of up to 1e8 elements moves MSE by more than 1e-8, and it moves mismatches or max
 * |e| anyway.
 */
#define DIFF_REL 1e-6
#define DIFF_ABS 1e-9

int qc_report_case_allowed(const json_t *c)
{
	static const char *const ok[] = {"PASS", "PASS_WITHIN_TOLERANCE", "NOT_SUPPORTED",
	                                 "EXPECTED_ERROR"};
	const char *v = qc_json_str(c, "verdict");
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (!strcmp(v, ok[i]))
			return 1;
	return json_string_value(json_object_get(c, "waived")) != NULL;
}

/* ---- one output's metrics, old against new ---- */

/* Up beyond noise (a NaN is worse than any number). */
static int up_noisy(double old, double cur)
{
	if (isnan(cur) || isnan(old))
		return isnan(cur) && !isnan(old);
	return cur > old + DIFF_ABS + DIFF_REL * fabs(old);
}

/* Up at all: maxima and counts. */
static int up_exact(double old, double cur)
{
	if (isnan(cur) || isnan(old))
		return isnan(cur) && !isnan(old);
	return cur > old;
}

typedef struct line {
	char buf[2048];
	size_t used;
	int worse, better;
} line;

static void add(line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(line *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (l->used < sizeof l->buf)
		l->used += (size_t)vsnprintf(l->buf + l->used, sizeof l->buf - l->used, fmt, ap);
	va_end(ap);
	if (l->used >= sizeof l->buf) /* cut by bytes: not in the middle of a character */
		qc_utf8_trim_tail(l->buf, strlen(l->buf));
}

static const json_t *output_named(const json_t *outputs, const char *name)
{
	for (size_t i = 0; i < json_array_size(outputs); i++)
		if (!strcmp(qc_json_str(json_array_get(outputs, i), "name"), name))
			return json_array_get(outputs, i);
	return NULL;
}

/* A verdict whose outputs were compared (the others carry no meaningful metrics). */
static int compared(const char *verdict)
{
	return !strcmp(verdict, "PASS") || !strcmp(verdict, "PASS_WITHIN_TOLERANCE") ||
	       !strcmp(verdict, "FAIL");
}

/* Compares the outputs of two cases (or two op roll-ups): what got worse goes to w, what got
 * better to b. */
static void compare_outputs(const json_t *bo, const json_t *no, line *w, line *b)
{
	size_t i;
	const json_t *o;
	json_array_foreach(bo, i, o)
	{
		const char *name = qc_json_str(o, "name");
		const json_t *p = output_named(no, name);
		if (!p)
			continue;
		static const struct {
			const char *key, *label;
			int noisy, absolute;
		} m[] = {{"max_abs", "max|e|", 0, 0},
		         {"mismatches", "mismatches", 0, 0},
		         {"bias", "|bias|", 1, 1},
		         {"mse", "mse", 1, 0}};
		int wn = 0, bn = 0;
		for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
			double x = qc_json_num(json_object_get(o, m[k].key)),
			       y = qc_json_num(json_object_get(p, m[k].key));
			if (m[k].absolute) {
				x = fabs(x);
				y = fabs(y);
			}
			int worse = m[k].noisy ? up_noisy(x, y) : up_exact(x, y);
			int better = m[k].noisy ? up_noisy(y, x) : up_exact(y, x);
			line *l = worse ? w : better ? b : NULL;
			if (!l)
				continue;
			int *cnt = worse ? &wn : &bn;
			if (*cnt)
				add(l, ", ");
			else
				add(l, "%soutput %s: ", l->used ? "; " : "", name);
			add(l, k == 1 ? "%s %.0f -> %.0f" : "%s %.6g -> %.6g", m[k].label, x, y);
			(*cnt)++;
			l->worse |= worse;
			l->better |= better;
		}
	}
}

/* ---- the two reports ---- */

/*
 * Cases are matched by name through an index per report: the 64-bit hash of each case's name
 * and where the case is in the file (16 bytes a case), sorted by hash. A hit is read again
 * from the file (qc_report_at) and its name compared, so a collision of hashes costs a read,
 * never a wrong match. Any order of the cases works; in the usual one (both reports in the
 * run's order) the reads go forward through the file.
 */
typedef struct hpos {
	uint64_t h;
	long long pos;
} hpos;

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

static int cmp_hpos(const void *a, const void *b)
{
	const hpos *x = a, *y = b;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void hpos_add(hpos **v, size_t *n, size_t *cap, uint64_t h, long long pos)
{
	QC_GROW(*v, *n, *cap, 1024);
	(*v)[(*n)++] = (hpos){h, pos};
}

/* The name index of r (sorted by hash, *n entries); with fail, also the position of every
 * case that is not allowed (qc_report_case_allowed) in *fail. NULL with err on a read
 * error. */
static hpos *name_index(qc_report *r, size_t *n, hpos **fail, size_t *nfail, char *err,
                        size_t errsz)
{
	size_t cap = qc_report_ncases(r) + 1, fcap = 0;
	hpos *idx = qc_xcalloc(cap, sizeof *idx);
	*n = 0;
	json_t *c;
	int rc;
	qc_report_rewind(r);
	while ((rc = qc_report_next(r, &c, err, errsz)) > 0) {
		uint64_t h = name_hash(qc_json_str(c, "name"));
		hpos_add(&idx, n, &cap, h, qc_report_pos_of_last(r));
		if (fail && !qc_report_case_allowed(c))
			hpos_add(fail, nfail, &fcap, h, qc_report_pos_of_last(r));
		json_decref(c);
	}
	if (rc < 0) {
		free(idx);
		return NULL;
	}
	if (*n) /* no cases: idx may be NULL, which qsort may not be given */
		qsort(idx, *n, sizeof *idx, cmp_hpos);
	return idx;
}

/* The first case of r named name (by its index idx): 1 with a new reference in *c, 0 when
 * there is none, -1 on a read error. */
static int find_case(qc_report *r, const hpos *idx, size_t n, const char *name, json_t **c,
                     char *err, size_t errsz)
{
	uint64_t h = name_hash(name);
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx[mid].h < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	*c = NULL;
	for (; lo < n && idx[lo].h == h; lo++) {
		if (qc_report_at(r, idx[lo].pos, c, err, errsz) != 0)
			return -1;
		if (!strcmp(qc_json_str(*c, "name"), name))
			return 1;
		json_decref(*c);
		*c = NULL;
	}
	return 0;
}

/* A new failing case: its name and the line to print. */
typedef struct newcase {
	char *name, *text;
} newcase;

static int cmp_newcase(const void *a, const void *b)
{
	return strcmp(((const newcase *)a)->name, ((const newcase *)b)->name);
}

typedef struct opkey {
	char key[160];
	const json_t *base_op, *cur_op;
	uint64_t base_cases, cur_cases, common;
} opkey;

static void op_key(const json_t *o, char *buf, size_t n)
{
	if (snprintf(buf, n, "%s/%s", qc_json_str(o, "semantics"), qc_json_str(o, "op")) >= (int)n)
		qc_utf8_trim_tail(buf, n - 1);
}

static opkey *find_op(opkey *ops, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(ops[i].key, key))
			return &ops[i];
	return NULL;
}

/* Does NEW's shard hold this case name (1 when NEW is not a shard)? */
static int shard_holds(const json_t *run, const char *name)
{
	const json_t *shard = json_object_get(run, "shard");
	if (json_is_object(shard)) {
		int k = (int)qc_json_int(json_object_get(shard, "index")),
		    cnt = (int)qc_json_int(json_object_get(shard, "count"));
		if (cnt > 1 && qc_shard_of(name, cnt) != k)
			return 0;
	}
	return 1;
}

/* Would NEW's --filter and --case have selected this case name? */
static int filters_select(const json_t *run, const char *name)
{
	const json_t *filters = json_object_get(run, "filters");
	const char *f[QC_MAX_FILTERS];
	int nf = 0;
	for (size_t i = 0; i < json_array_size(filters) && nf < QC_MAX_FILTERS; i++)
		if (json_is_string(json_array_get(filters, i)))
			f[nf++] = json_string_value(json_array_get(filters, i));
	if (!qc_filter_match(f, nf, name))
		return 0;
	const json_t *names = json_object_get(run, "case_names");
	if (json_array_size(names)) {
		int listed = 0;
		for (size_t i = 0; i < json_array_size(names) && !listed; i++)
			listed = !strcmp(json_string_value(json_array_get(names, i)) ?: "", name);
		if (!listed)
			return 0;
	}
	return 1;
}

/* Does the kernel cover this case: it took it (any verdict but NOT_SUPPORTED), or the case is
 * negative, which a refusal answers as an error does (README "Verdicts")? */
static int covered(const json_t *c)
{
	return strcmp(qc_json_str(c, "verdict"), "NOT_SUPPORTED") != 0 ||
	       !strcmp(qc_json_str(c, "expect"), "error");
}

/* A judged case the plugin reported on an accelerator in BASE and not in NEW (the CPU, or no
 * word) fell back: worse; the other way, better. Both are the plugin's word. */
static void engine_change(json_t *bc, json_t *nc, line *w, line *b)
{
	int eb = qc_engine_of_kind(qc_json_str(json_object_get(bc, "engine"), "kind")),
	    en = qc_engine_of_kind(qc_json_str(json_object_get(nc, "engine"), "kind"));
	int ab = qc_engine_meets(eb, "accelerator"), an = qc_engine_meets(en, "accelerator");
	if (ab == an)
		return;
	line *l = ab ? w : b;
	add(l, "engine %s -> %s (as the plugin reports)", qcf_engine_name(eb), qcf_engine_name(en));
	if (ab)
		w->worse = 1;
	else
		b->better = 1;
}

/* The --allow-coverage-loss glob that accepts losing this case, or NULL. */
static const char *loss_allowed(const qc_diff_opts *opts, const char *name)
{
	for (int i = 0; opts && i < opts->n_allow_loss; i++)
		if (fnmatch(opts->allow_loss[i], name, 0) == 0)
			return opts->allow_loss[i];
	return NULL;
}

/* Lost coverage per op, in the order first lost. */
typedef struct lossop {
	char key[160];
	uint64_t lost, accepted;
} lossop;

/* Case name of op lost its coverage (how: "case gone (was PASS)", "verdict FAIL ->
 * NOT_SUPPORTED"): a regression line to out, or, when a --allow-coverage-loss glob accepts it,
 * an "accepted" line to later; counted per op in *v and in n. */
static void coverage_lost(lossop **v, size_t *nv, const qc_diff_opts *opts, FILE *out, FILE *later,
                          qc_diff_counts *n, const char *op, const char *name, const char *how)
{
	const char *glob = loss_allowed(opts, name);
	size_t i = 0;
	while (i < *nv && strcmp((*v)[i].key, op))
		i++;
	if (i == *nv) {
		*v = qc_xrealloc(*v, *nv + 1, sizeof **v);
		(*v)[i] = (lossop){0};
		snprintf((*v)[i].key, sizeof(*v)[i].key, "%s", op);
		(*nv)++;
	}
	if (glob) {
		(*v)[i].accepted++;
		n->coverage_accepted++;
		fprintf(later,
		        "accepted    %s  %s: coverage lost, %s (--allow-coverage-loss '%s')\n", op,
		        name, how, glob);
	} else {
		(*v)[i].lost++;
		n->coverage_lost++;
		n->case_regressions++;
		fprintf(out, "regression  %s  %s: coverage lost, %s\n", op, name, how);
	}
}

/* "litert/ADD 195, litert/SUB 3" of the unaccepted losses, cut at whole entries. */
static void loss_text(const lossop *v, size_t n, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].lost)
			qc_list_add(buf, size, &used, "%s %llu", v[i].key,
			            (unsigned long long)v[i].lost);
}

enum { PASS_REGRESSIONS, PASS_IMPROVEMENTS };

int qc_diff_reports(qc_report *base_r, qc_report *cur_r, const qc_diff_opts *opts, FILE *out,
                    qc_diff_counts *n, char *err, size_t err_size)
{
	memset(n, 0, sizeof *n);
	json_t *base = qc_report_doc(base_r), *cur = qc_report_doc(cur_r);
	const json_t *brun = json_object_get(base, "run"), *nrun = json_object_get(cur, "run");
	const json_t *bseed = json_object_get(brun, "seed"), *nseed = json_object_get(nrun, "seed");
	if (!json_equal((json_t *)bseed, (json_t *)nseed))
		return qc_errf(err, err_size,
		               "the reports ran with different seeds (%lld, %lld): their inputs "
		               "differ; compare runs of the same --seed",
		               (long long)qc_json_int(bseed), (long long)qc_json_int(nseed));
	size_t nn, nb, nfail = 0;
	hpos *fail = NULL, *bidx = NULL,
	     *idx = name_index(cur_r, &nn, &fail, &nfail, err, err_size);
	if (!idx || !(bidx = name_index(base_r, &nb, NULL, NULL, err, err_size))) {
		free(idx);
		free(fail);
		return -1;
	}
	int rc = 0;
	json_t *bc = NULL, *nc = NULL;
	lossop *loss = NULL;
	size_t n_loss = 0;

	/* ops of the base, and how many of their cases both reports hold */
	const json_t *bops = json_object_get(base, "ops"), *nops = json_object_get(cur, "ops");
	int n_ops = (int)json_array_size(bops);
	opkey *ops = qc_xcalloc((size_t)(n_ops ? n_ops : 1), sizeof *ops);
	for (int i = 0; i < n_ops; i++) {
		ops[i].base_op = json_array_get(bops, (size_t)i);
		op_key(ops[i].base_op, ops[i].key, sizeof ops[i].key);
		ops[i].base_cases = (uint64_t)qc_json_int(json_object_get(ops[i].base_op, "cases"));
	}
	for (size_t i = 0; i < json_array_size(nops); i++) {
		char k[160];
		const json_t *o = json_array_get(nops, i);
		op_key(o, k, sizeof k);
		opkey *ok = find_op(ops, n_ops, k);
		if (ok) {
			ok->cur_op = o;
			ok->cur_cases = (uint64_t)qc_json_int(json_object_get(o, "cases"));
		}
	}

	/* one pass over BASE: the regressions are printed as found, the improvements and other
	 * changes (printed after every regression) wait in a temporary file */
	FILE *later = tmpfile();
	if (!later) {
		free(idx);
		free(fail);
		free(bidx);
		free(ops);
		free(loss);
		return qc_errf(err, err_size, "a temporary file: %s", strerror(errno));
	}
	for (int pass = PASS_REGRESSIONS; pass <= PASS_IMPROVEMENTS; pass++) {
		qc_report_rewind(base_r);
		if (pass == PASS_IMPROVEMENTS) {
			char buf[8192];
			size_t k;
			rewind(later);
			while ((k = fread(buf, 1, sizeof buf, later)) > 0)
				fwrite(buf, 1, k, out);
		}
		for (; pass == PASS_REGRESSIONS;) {
			json_decref(bc);
			json_decref(nc);
			bc = nc = NULL;
			int got = qc_report_next(base_r, &bc, err, err_size);
			if (got <= 0) {
				rc = got;
				break;
			}
			const char *name = qc_json_str(bc, "name");
			int hit = find_case(cur_r, idx, nn, name, &nc, err, err_size);
			if (hit < 0) {
				rc = -1;
				break;
			}
			char opname[160];
			op_key(bc, opname, sizeof opname);
			if (!hit) {
				/* lost: NEW lacks it or leaves it out (another shard's is not) */
				if (pass == PASS_REGRESSIONS && shard_holds(nrun, name)) {
					const char *why =
					        filters_select(nrun, name)
					                ? "case gone"
					                : "left out by NEW's --filter or --case";
					char how[200];
					snprintf(how, sizeof how, "%s (was %s)", why,
					         qc_json_str(bc, "verdict"));
					coverage_lost(&loss, &n_loss, opts, out, later, n, opname,
					              name, how);
					n->gone++;
				}
				continue;
			}
			if (pass == PASS_REGRESSIONS) {
				n->compared++;
				opkey *ok = find_op(ops, n_ops, opname);
				if (ok &&
				    !strcmp(qc_json_str(nc, "semantics"),
				            qc_json_str(bc, "semantics")) &&
				    !strcmp(qc_json_str(nc, "op"), qc_json_str(bc, "op")))
					ok->common++;
			}
			line w = {0}, b = {0};
			int was = qc_report_case_allowed(bc), is = qc_report_case_allowed(nc);
			const char *vb = qc_json_str(bc, "verdict"),
			           *vn = qc_json_str(nc, "verdict");
			if (pass == PASS_REGRESSIONS && !was && !is)
				n->still_failing++;
			if (covered(bc) && !covered(nc)) {
				/* the kernel stopped taking the case: whatever it answered before
				 * (a FAIL included), what it answers now is not checked */
				char how[200];
				snprintf(how, sizeof how, "verdict %s -> %s", vb, vn);
				coverage_lost(&loss, &n_loss, opts, out, later, n, opname, name,
				              how);
				continue;
			}
			if (was && !is) {
				add(&w, "verdict %s -> %s", vb, vn);
				w.worse = 1;
			} else if (!was && is) {
				add(&b, "verdict %s -> %s%s", vb, vn,
				    json_object_get(nc, "waived") ? " (waived)" : "");
				b.better = 1;
			} else if (!covered(bc) && covered(nc)) {
				add(&b, "coverage gained, verdict %s -> %s", vb, vn);
				b.better = 1;
			}
			if (compared(vb) && compared(vn)) {
				compare_outputs(json_object_get(bc, "outputs"),
				                json_object_get(nc, "outputs"), &w, &b);
				engine_change(bc, nc, &w, &b);
			}
			if (pass == PASS_REGRESSIONS && w.worse) {
				fprintf(out, "regression  %s  %s: %s\n", opname, name, w.buf);
				n->case_regressions++;
			} else if (!w.worse && b.better) {
				fprintf(later, "improvement %s  %s: %s\n", opname, name, b.buf);
				n->improvements++;
			} else if (!w.worse && !b.better && strcmp(vb, vn)) {
				/* between allowed verdicts (EXPECTED_ERROR -> NOT_SUPPORTED of a
				 * negative case): worth a look */
				fprintf(later, "changed     %s  %s: verdict %s -> %s\n", opname,
				        name, vb, vn);
				n->changes++;
			}
		}
		json_decref(bc);
		json_decref(nc);
		bc = nc = NULL;
		if (rc < 0)
			break;
		/* a case the base does not hold that fails is a new failure, in the order of
		 * the names */
		newcase *nw = NULL;
		size_t nnew = 0, capnew = 0;
		for (size_t i = 0; pass == PASS_REGRESSIONS && i < nfail && !rc; i++) {
			json_t *c, *in_base = NULL;
			if (qc_report_at(cur_r, fail[i].pos, &c, err, err_size) != 0) {
				rc = -1;
				break;
			}
			const char *name = qc_json_str(c, "name");
			int hit = find_case(base_r, bidx, nb, name, &in_base, err, err_size);
			json_decref(in_base);
			if (hit < 0)
				rc = -1;
			if (!hit) {
				char opname[160], *text;
				op_key(c, opname, sizeof opname);
				char *copy = strdup(name);
				if (asprintf(&text, "regression  %s  %s: new case, %s\n", opname,
				             name, qc_json_str(c, "verdict")) < 0 ||
				    !copy) {
					fprintf(stderr, "qconform: out of memory\n");
					exit(2);
				}
				QC_GROW(nw, nnew, capnew, 64);
				nw[nnew++] = (newcase){copy, text};
			}
			json_decref(c);
		}
		if (nnew)
			qsort(nw, nnew, sizeof *nw, cmp_newcase);
		for (size_t i = 0; i < nnew; i++) {
			if (!rc) {
				fputs(nw[i].text, out);
				n->new_failing++;
				n->case_regressions++;
			}
			free(nw[i].name);
			free(nw[i].text);
		}
		free(nw);
		if (rc < 0)
			break;
		/* op roll-ups, where both reports hold exactly the same cases of the op */
		for (int i = 0; i < n_ops; i++) {
			opkey *o = &ops[i];
			if (!o->cur_op || o->common != o->base_cases || o->common != o->cur_cases)
				continue;
			line w = {0}, b = {0};
			compare_outputs(json_object_get(o->base_op, "outputs"),
			                json_object_get(o->cur_op, "outputs"), &w, &b);
			if (pass == PASS_REGRESSIONS && w.worse) {
				fprintf(out, "regression  %s  (op, %llu case%s): %s\n", o->key,
				        (unsigned long long)o->common, o->common == 1 ? "" : "s",
				        w.buf);
				n->op_regressions++;
			} else if (pass == PASS_IMPROVEMENTS && !w.worse && b.better) {
				fprintf(out, "improvement %s  (op, %llu case%s): %s\n", o->key,
				        (unsigned long long)o->common, o->common == 1 ? "" : "s",
				        b.buf);
				n->improvements++;
			}
		}
	}
	free(fail);
	free(idx);
	free(bidx);
	if (ferror(later) && !rc)
		rc = qc_errf(err, err_size, "a temporary file: %s", strerror(errno));
	fclose(later);
	if (rc < 0) {
		free(ops);
		free(loss);
		return -1;
	}
	n->added = nn > n->compared ? nn - n->compared : 0;
	n->regressions = n->case_regressions + n->op_regressions;
	loss_text(loss, n_loss, n->coverage_ops, sizeof n->coverage_ops);
	fprintf(out,
	        "diff: %llu regression%s (%llu case%s, %llu op%s), %llu improvement%s, %llu other "
	        "change%s; %llu case%s compared, %llu new, %llu gone, %llu failing in both\n",
	        (unsigned long long)n->regressions, n->regressions == 1 ? "" : "s",
	        (unsigned long long)n->case_regressions, n->case_regressions == 1 ? "" : "s",
	        (unsigned long long)n->op_regressions, n->op_regressions == 1 ? "" : "s",
	        (unsigned long long)n->improvements, n->improvements == 1 ? "" : "s",
	        (unsigned long long)n->changes, n->changes == 1 ? "" : "s",
	        (unsigned long long)n->compared, n->compared == 1 ? "" : "s",
	        (unsigned long long)n->added, (unsigned long long)n->gone,
	        (unsigned long long)n->still_failing);
	/* lost coverage on a line of its own: a count a CI log is searched for */
	fprintf(out, "coverage lost: %llu case%s%s%s%s", (unsigned long long)n->coverage_lost,
	        n->coverage_lost == 1 ? "" : "s", n->coverage_ops[0] ? " (" : "", n->coverage_ops,
	        n->coverage_ops[0] ? ")" : "");
	if (n->coverage_accepted)
		fprintf(out, "; %llu more accepted by --allow-coverage-loss",
		        (unsigned long long)n->coverage_accepted);
	fputc('\n', out);
	free(ops);
	free(loss);
	return 0;
}
