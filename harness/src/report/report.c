#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/utf8.h"
#include "base/util.h"
#include "judge/diagnose.h"
#include "judge/locate.h"
#include "judge/waivers.h"
#include "reference/dtype.h"
#include "run/run.h"

struct qc_json {
	FILE *f;
	qc_afile af; /* written to PATH.tmp, renamed over PATH when closed */
	int n_cases;
	char path[1024];
	const qc_run_meta *meta;
};

/*
 * Writes s as one shell word: single quotes (' written as '\''); a word with bytes that are not
 * well-formed UTF-8 or with control characters is written $'...' with those bytes as \xNN
 * (bash, zsh, ksh, dash >= 0.5.12), so the reproduce command still names the case byte for
 * byte once the report has replaced them by U+FFFD.
 */
static void shell_quote(FILE *m, const char *s)
{
	size_t n = strlen(s);
	int plain = qc_utf8_valid(s, n);
	for (size_t i = 0; plain && i < n; i++)
		plain = (unsigned char)s[i] >= 0x20 && s[i] != 0x7f;
	if (plain) {
		fputc('\'', m);
		for (; *s; s++)
			if (*s == '\'')
				fputs("'\\''", m);
			else
				fputc(*s, m);
		fputc('\'', m);
		return;
	}
	fputs("$'", m);
	for (size_t i = 0; i < n;) {
		int32_t cp;
		size_t k = qc_utf8_next(s + i, n - i, &cp);
		if (cp == '\'' || cp == '\\')
			fprintf(m, "\\%c", (char)cp);
		else if (cp >= 0x20 && cp != 0x7f)
			fwrite(s + i, 1, k, m);
		else
			for (size_t b = 0; b < k; b++)
				fprintf(m, "\\x%02x", (unsigned char)s[i + b]);
		i += k;
	}
	fputc('\'', m);
}

/* " " and s as one shell word (shell_quote). */
static void shell_word(FILE *m, const char *s)
{
	fputc(' ', m);
	shell_quote(m, s);
}

/* The command's first word, the qconform that ran: as is when the shell takes it so
 * (build/qconform), else quoted. */
static void shell_command(FILE *m, const char *s)
{
	int safe = *s != 0 && *s != '-';
	for (const char *p = s; *p && safe; p++)
		safe = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		       (*p >= '0' && *p <= '9') || strchr("/._+-", *p);
	if (safe)
		fputs(s, m);
	else
		shell_quote(m, s);
}

/* The characters of s[0..n) inside a JSON string: escaped, and every ill-formed UTF-8
 * subsequence replaced by U+FFFD (harness/src/base/utf8.h), so one bad byte from a plugin or a Lua
 * string cannot make the report invalid JSON. */
static void json_chars(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t run = i; /* printable ASCII needs nothing: written in one piece */
		while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f &&
		       s[run] != '"' && s[run] != '\\')
			run++;
		if (run > i) {
			fwrite(s + i, 1, run - i, f);
			i = run;
			continue;
		}
		int32_t cp;
		size_t k = qc_utf8_next(s + i, n - i, &cp);
		switch (cp) {
		case -1: fputs(QC_UTF8_REPLACEMENT, f); break;
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (cp < 0x20 || cp == 0x7f)
				fprintf(f, "\\u%04x", (unsigned)cp);
			else
				fwrite(s + i, 1, k, f);
		}
		i += k;
	}
}

void qc_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	if (s)
		json_chars(f, s, strlen(s));
	fputc('"', f);
}

/* "key=value" as one JSON string (a --plugin-option), however long. */
static void json_option(FILE *f, const qcf_option *o)
{
	fputc('"', f);
	if (o->key)
		json_chars(f, o->key, strlen(o->key));
	fputc('=', f);
	if (o->value)
		json_chars(f, o->value, strlen(o->value));
	fputc('"', f);
}

/* ", \"key\": {bin: count, ...}", the non-empty bins. */
static void hist_json(FILE *f, const char *key, const uint64_t *h)
{
	fprintf(f, ", \"%s\": {", key);
	int first = 1;
	for (int b = 0; b < QC_HIST_BINS; b++) {
		if (!h[b])
			continue;
		fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", qc_hist_labels[b],
		        (unsigned long long)h[b]);
		first = 0;
	}
	fputs("}", f);
}

/* Numbers: JSON has no NaN or infinity; they are written as strings. */
static void num(FILE *f, double v)
{
	if (isnan(v))
		fputs("\"nan\"", f);
	else if (isinf(v))
		fputs(v > 0 ? "\"inf\"" : "\"-inf\"", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.17g", v);
}

static void iso_time(char *buf, size_t n, time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* head, then an object of n string members k[i]: v[i]. */
/* head, then an object of n string members, left open for more members. */
static void string_members_open(FILE *f, const char *head, const char *const *k,
                                const char *const *v, int n)
{
	fputs(head, f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "{", k[i]);
		qc_json_string(f, v[i]);
	}
}

static void string_members(FILE *f, const char *head, const char *const *k, const char *const *v,
                           int n)
{
	string_members_open(f, head, k, v, n);
	fputc('}', f);
}

qc_json *qc_json_open(const char *path, const qc_run_meta *meta, char *err, size_t err_size)
{
	if (qc_mkdirs_for(path) != 0) {
		snprintf(err, err_size, "cannot create the directory of %s: %s", path,
		         strerror(errno));
		return NULL;
	}
	qc_json *j = calloc(1, sizeof *j);
	if (!j) {
		snprintf(err, err_size, "out of memory");
		return NULL;
	}
	if (qc_afile_open(&j->af, path, err, err_size) != 0) {
		free(j);
		return NULL;
	}
	j->f = j->af.f;
	snprintf(j->path, sizeof j->path, "%s", path);
	j->meta = meta;
	FILE *f = j->f;
	char host[256] = "unknown", when[32];
	gethostname(host, sizeof host - 1);
	iso_time(when, sizeof when, meta->started);
	fprintf(f, "{\n\"format\": \"qconform-report\",\n\"format_version\": %d,\n",
	        QC_REPORT_FORMAT);
	fprintf(f, "\"run\": {\"qconform_version\": \"%s\", \"seed\": %llu, \"started\": \"%s\", ",
	        QC_VERSION, (unsigned long long)meta->seed, when);
	fputs("\"host\": ", f);
	qc_json_string(f, host);
	fputs(", \"command\": ", f);
	qc_json_string(f, meta->command);
	fprintf(f, ", \"timeout_seconds\": ");
	num(f, meta->timeout_s);
	fputs(", \"profile\": ", f);
	if (meta->profile)
		qc_json_string(f, meta->profile);
	else
		fputs("null", f);
	if (meta->repeat > 1) {
		/* --repeat: the runs of each case, and the thread counts of the later ones */
		fprintf(f, ", \"repeat\": {\"runs\": %d, \"threads_option\": ", meta->repeat);
		if (meta->threads_option) {
			qc_json_string(f, meta->threads_option);
			fputs(", \"threads\": [", f);
			for (int r = 2; r <= meta->repeat && r < 2 + QC_REPEAT_VARIANTS; r++)
				fprintf(f, "%s%d", r > 2 ? ", " : "", qc_repeat_threads(r));
			fputs("]}", f);
		} else {
			fputs("null, \"threads\": []}", f);
		}
	}
	if (meta->require_engine) {
		/* --require-engine or the profile's: every judged case on such an engine */
		fputs(", \"require_engine\": ", f);
		qc_json_string(f, meta->require_engine);
	}
	fputs(", \"filters\": [", f);
	for (int i = 0; i < meta->n_filters; i++) {
		if (i)
			fputs(", ", f);
		qc_json_string(f, meta->filters[i]);
	}
	fputs("]", f);
	if (meta->n_case_names) {
		fputs(", \"case_names\": [", f);
		for (int i = 0; i < meta->n_case_names; i++) {
			if (i)
				fputs(", ", f);
			qc_json_string(f, meta->case_names[i]);
		}
		fputs("]", f);
	}
	if (meta->shard_count > 0)
		fprintf(f, ", \"shard\": {\"index\": %d, \"count\": %d}", meta->shard_index,
		        meta->shard_count);
	else
		fputs(", \"shard\": null", f);
	if (meta->resumed_from) {
		fputs(", \"resumed\": {\"journal\": ", f);
		qc_json_string(f, meta->resumed_from);
		fprintf(f, ", \"cases\": %llu, \"command\": ",
		        (unsigned long long)meta->resumed_cases);
		qc_json_string(f, meta->resume_command);
		fputs("}", f);
	}
	if (meta->import) {
		const qc_import_meta *im = meta->import;
		const char *k[] = {"export",       "manifest_sha256", "outputs",
		                   "outputs_kind", "runner_version",  "runner_mode"};
		const char *v[] = {im->export_dir,   im->manifest_sha256, im->outputs,
		                   im->outputs_kind, im->runner_version,  im->runner_mode};
		string_members_open(f, ", \"import\": ", k, v, 6);
		fprintf(f, ", \"aborted\": %d, \"judged_unanswered\": %d, \"parts\": [",
		        im->aborted, im->judged);
		for (int i = 0; i < im->n_parts; i++) {
			const qc_import_part_meta *pm = &im->parts[i];
			const char *pk[] = {"export", "manifest_sha256", "outputs", "outputs_kind",
			                    "records_sha256"};
			const char *pv[] = {pm->export_dir, pm->manifest_sha256, pm->outputs,
			                    pm->outputs_kind, pm->records_sha256};
			string_members_open(f, i ? ", " : "", pk, pv, 5);
			if (pm->shard_count)
				fprintf(f, ", \"shard\": {\"index\": %u, \"count\": %u}",
				        pm->shard_index, pm->shard_count);
			fputs("}", f);
		}
		fputs("]}", f);
	}
	fputs(",\n  \"plugin\": {\"name\": ", f);
	qc_json_string(f, meta->plugin->name);
	fputs(", \"version\": ", f);
	qc_json_string(f, meta->plugin->version);
	fprintf(f, ", \"abi_version\": %u, \"path\": ", meta->plugin->abi_version);
	qc_json_string(f, meta->plugin->path);
	fputs(", \"sha256\": ", f);
	qc_json_string(f, meta->plugin->sha256);
	/* who computed what: the harness, or the device through --remote (not checked) */
	const char *src = meta->plugin->remote[0] ? "device" : "harness";
	fprintf(f, ", \"sha256_source\": \"%s\"", meta->import ? "records" : src);
	const qc_platform *pf = &meta->plugin->platform; /* import: nothing of the device's */
	const char *pk[] = {"source", "machine", "system", "cpu", "emulation"};
	const char *pv[] = {meta->import ? "device" : src, pf->machine, pf->system, pf->cpu,
	                    pf->emulation};
	string_members(f, ", \"platform\": ", pk, pv, 5);
	fputs(", \"sandbox\": ", f);
	if (meta->plugin->sandbox[0])
		qc_json_string(f, meta->plugin->sandbox);
	else
		fputs("null", f);
	if (meta->plugin->sandbox[0])
		fprintf(f, ", \"sandbox_isolation\": \"%s\"",
		        meta->plugin->sandbox_reduced ? "reduced" : "namespaces");
	fprintf(f, ", \"worker_memory\": %zu", meta->plugin->worker_memory);
	if (meta->plugin->remote[0]) {
		/* --remote: the command that started each worker; with a pool, each board's */
		fputs(", \"remote\": {\"command\": ", f);
		qc_json_string(f, meta->plugin->remote);
		if (meta->n_boards) {
			fputs(", \"pool\": [", f);
			for (int b = 0; b < meta->n_boards; b++) {
				fputs(b ? ", " : "", f);
				qc_json_string(f, meta->boards[b].command);
			}
			fputs("]", f);
		}
		fputs("}", f);
	}
	fputs(", \"options\": [", f);
	for (int i = 0; i < meta->n_options; i++) {
		if (i)
			fputs(", ", f);
		json_option(f, &meta->options[i]);
	}
	fputs("]},\n  \"specs\": [", f);
	for (int i = 0; i < meta->n_specs; i++) {
		fputs(i ? ",\n    {\"path\": " : "\n    {\"path\": ", f);
		qc_json_string(f, meta->specs[i].path);
		fputs(", \"sha256\": ", f);
		qc_json_string(f, meta->specs[i].sha256);
		fprintf(f, ", \"cases\": %llu, \"description\": ",
		        (unsigned long long)meta->specs[i].cases);
		if (meta->specs[i].description)
			qc_json_string(f, meta->specs[i].description);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs("]},\n\"cases\": [", f);
	return j;
}

static void metrics_json(FILE *f, const qc_metrics *m)
{
	fprintf(f, "\"unit\": \"%s\", \"elements\": %llu, \"mismatches\": %llu, ",
	        qc_unit_name(m->unit), (unsigned long long)m->n, (unsigned long long)m->mismatches);
	fprintf(f, "\"unpredictable\": %llu, \"out_of_range\": %llu, \"within_rounding\": %llu, ",
	        (unsigned long long)m->unpredictable, (unsigned long long)m->out_of_range,
	        (unsigned long long)(m->in_band - m->in_fused));
	if (m->in_fused) /* a chain's round_once contract: the fused form was needed */
		fprintf(f, "\"within_fusion\": %llu, ", (unsigned long long)m->in_fused);
	fputs("\"max_abs\": ", f);
	num(f, m->max_abs);
	fputs(", \"bias\": ", f);
	num(f, qc_metrics_bias(m));
	fputs(", \"mse\": ", f);
	num(f, qc_metrics_mse(m));
	if (m->unit != QC_UNIT_LSB) {
		fputs(", \"max_ulp\": ", f);
		num(f, m->max_ulp);
		fputs(", \"max_abs_error\": ", f);
		num(f, m->max_abs_err);
		fputs(", \"max_rel_error\": ", f);
		num(f, m->max_rel_err);
	}
	hist_json(f, "histogram", m->hist);
	/* where legal roundings other than the answer occurred: which of the elements are
	 * outside every legal one */
	if (m->in_band)
		hist_json(f, "histogram_outside_band", m->hist_out);
}

static int same_shape(const qcf_tensor *a, const qcf_tensor *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int32_t d = 0; d < a->rank; d++)
		if (a->shape[d] != b->shape[d])
			return 0;
	return 1;
}

/* The inputs of an element-wise output's element i: each input of the output's shape. */
static void worst_inputs(FILE *f, const qc_case *c, const qcf_tensor *out, uint64_t i)
{
	int n = 0;
	for (int j = 0; j < c->call.n_inputs; j++) {
		const qcf_tensor *in = &c->in[j];
		if (!in->data || !same_shape(in, out))
			continue;
		fputs(n++ ? ", " : ", \"inputs\": {", f);
		qc_json_string(f, in->name);
		fputs(": ", f);
		num(f, qref_get(in, (size_t)i));
	}
	if (n)
		fputs("}", f);
}

/* Where output k's failing elements are: the op's names of its axes, its channel axis, the
 * failing elements per index along m->along's axis (locate.h). */
static void where_json(FILE *f, const qc_case *c, int k, const qc_metrics *m)
{
	char names[QCF_MAX_RANK][QREF_AXIS_NAME];
	int named, ch = -1, rank = qc_axis_names(c, k, names, &named);
	qref_output_axes(&c->call, k, NULL, &ch);
	fputs(", \"axes\": [", f);
	for (int d = 0; d < rank; d++) {
		fputs(d ? ", " : "", f);
		qc_json_string(f, names[d]);
	}
	fputs("]", f);
	if (ch >= 0)
		fprintf(f, ", \"channel_axis\": %d", ch);
	const qc_along *a = &m->along;
	if (a->axis < 0)
		return;
	fprintf(f, ", \"failing_along\": {\"axis\": %d, \"counts\": {", a->axis);
	for (int i = 0; i < a->n; i++)
		fprintf(f, "%s\"%lld\": %llu", i ? ", " : "", (long long)a->index[i],
		        (unsigned long long)a->count[i]);
	fprintf(f, "}, \"other\": %llu}", (unsigned long long)a->other);
}

/* The worst element's coordinates, and the reference's accumulator and real value when known. */
static void worst_where(FILE *f, const qc_case *c, int k, const qc_worst *w)
{
	int64_t at[QCF_MAX_RANK];
	int32_t rank = c->out[k].rank < 0              ? 0
	               : c->out[k].rank > QCF_MAX_RANK ? QCF_MAX_RANK
	                                               : c->out[k].rank;
	qc_coords(rank, c->out[k].shape, w->index, at);
	fputs(", \"coords\": [", f);
	for (int32_t d = 0; d < rank; d++)
		fprintf(f, "%s%lld", d ? ", " : "", (long long)at[d]);
	fputs("]", f);
	/* the legal outputs, and how far beyond them got is (0: a legal rounding) */
	fputs(", \"legal\": [", f);
	num(f, w->lo);
	fputs(", ", f);
	num(f, w->hi);
	fputs("], \"beyond\": ", f);
	num(f, w->beyond);
	if (w->has_terms)
		fprintf(f, ", \"acc\": %lld", (long long)w->acc);
	if (w->has_real) {
		fputs(", \"real\": ", f);
		num(f, w->real);
	}
}

void qc_json_case(qc_json *j, const qc_case *c, const qc_result *r)
{
	qc_json_case_ex(j, c, r, (uint64_t)j->n_cases, NULL);
}

/* One case object, {"name": ...} */
static void case_json(FILE *f, const qc_json *j, const qc_case *c, const qc_result *r,
                      uint64_t ordinal, const char *waived, int board)
{
	fputs("{\"name\": ", f);
	qc_json_string(f, c->name);
	fprintf(f, ", \"ordinal\": %llu", (unsigned long long)ordinal);
	fputs(", \"spec\": ", f);
	qc_json_string(f, c->spec->path);
	fputs(", \"semantics\": ", f);
	qc_json_string(f, c->call.semantics);
	fputs(", \"op\": ", f);
	qc_json_string(f, c->call.op);
	fputs(", \"params\": ", f);
	qc_json_string(f, c->params);
	fprintf(f,
	        ", \"seed\": \"%016llx\", \"expect\": \"%s\", \"verdict\": \"%s\", \"seconds\": ",
	        (unsigned long long)c->seed, c->expect_error ? "error" : "ok",
	        qc_verdict_name(r->verdict));
	num(f, r->seconds);
	fputs(", \"message\": ", f);
	qc_json_string(f, r->message);
	if (waived) {
		fputs(", \"waived\": ", f);
		qc_json_string(f, waived);
	}
	if (c->extension) {
		/* the --profile extension the case belongs to (absent: the base) */
		fputs(", \"extension\": ", f);
		qc_json_string(f, c->extension);
	}
	if (r->engine > 0) {
		/* the engine the plugin said ran it (its word, not a fact checked here) */
		fprintf(f,
		        ", \"engine\": {\"kind\": \"%s\", \"name\": ", qcf_engine_name(r->engine));
		qc_json_string(f, r->engine_name);
		fputs("}", f);
	}
	if (r->chain_mode) {
		/* a chain: how the kernel was offered it, and op by op the first node whose
		 * output differs from the reference's intermediate (0: none) */
		fprintf(f, ", \"chain\": {\"mode\": \"%s\", \"first_differing_node\": %d}",
		        qc_chain_mode_name(r->chain_mode), r->chain_node);
	}
	if (board >= 0 && board < j->meta->n_boards)
		fprintf(f, ", \"board\": %d", board); /* --remote: the pool's board that ran it */
	else
		board = -1;
	if (!qc_verdict_conforms(r->verdict) || r->verdict == QC_PASS_WITHIN_TOLERANCE) {
		/* everything needed to run this one case again */
		char *cmd = NULL;
		size_t cmd_len = 0;
		FILE *m = open_memstream(&cmd, &cmd_len);
		if (m) {
			shell_command(m, j->meta->self ? j->meta->self : "qconform");
			fputs(j->meta->import ? " export" : " run", m);
			shell_word(m, c->spec->path);
			fprintf(m, " --seed %llu", (unsigned long long)j->meta->seed);
			if (j->meta->import)
				fputs(" --out qconform-case", m); /* then the runner, and import */
			else {
				fputs(" --plugin", m);
				shell_word(m, j->meta->plugin->path);
				if (j->meta->plugin->remote[0]) {
					/* the plugin runs where the case ran */
					fputs(" --remote", m);
					shell_word(m, board >= 0 ? j->meta->boards[board].command
					                         : j->meta->plugin->remote);
				}
			}
			for (int i = 0; !j->meta->import && i < j->meta->n_options; i++) {
				const qcf_option *o = &j->meta->options[i];
				size_t kl = strlen(o->key), vl = strlen(o->value);
				char *kv = malloc(kl + vl + 2);
				if (!kv)
					continue;
				memcpy(kv, o->key, kl);
				kv[kl] = '=';
				memcpy(kv + kl + 1, o->value, vl + 1);
				fputs(" --plugin-option", m);
				shell_word(m, kv);
				free(kv);
			}
			if (j->meta->repeat > 1 &&
			    !j->meta->import) /* a NONDETERMINISTIC needs it */
				fprintf(m, " --repeat %d", j->meta->repeat);
			if (j->meta->timeout_s != 30 &&
			    !j->meta->import) /* a TIMEOUT depends on it */
				fprintf(m, " --timeout %.17g", j->meta->timeout_s);
			fputs(" --case", m);
			shell_word(m, c->name);
			/* the console only: never the report this command came from */
			if (!j->meta->import)
				fputs(" --no-reports", m);
			fclose(m);
		}
		fputs(", \"reproduce\": ", f);
		qc_json_string(f, cmd ? cmd : "qconform run");
		free(cmd);
	}
	int autos = 0;
	for (int k = 0; k < c->call.n_outputs; k++) {
		if (!c->auto_quant[k] || !c->out[k].quant)
			continue;
		/* the parameters quant: {auto: range} chose for this case */
		fputs(autos++ ? ", " : ", \"auto_quant\": {", f);
		qc_json_string(f, c->out[k].name);
		fprintf(f, ": {\"scale\": %.9g, \"zero_point\": %d}", c->out[k].quant->scales[0],
		        c->out[k].quant->zero_points[0]);
	}
	if (autos)
		fputs("}", f);
	if (c->golden_source) {
		fputs(", \"golden_source\": ", f);
		qc_json_string(f, c->golden_source);
	}
	fputs(", \"outputs\": [", f);
	for (int k = 0; k < r->n_outputs; k++) {
		const qc_metrics *m = &r->m[k];
		fputs(k ? ", {\"name\": " : "{\"name\": ", f);
		qc_json_string(f, c->out[k].name);
		fprintf(f,
		        ", \"dtype\": \"%s\", \"saturated\": ", qref_dtype_name(c->out[k].dtype));
		num(f, r->saturated[k]);
		fputs(", ", f);
		metrics_json(f, m);
		if (m->n_worst)
			where_json(f, c, k, m);
		fputs(", \"worst\": [", f);
		for (int w = 0; w < m->n_worst; w++) {
			fprintf(f, "%s{\"index\": %llu, \"expected\": ", w ? ", " : "",
			        (unsigned long long)m->worst[w].index);
			num(f, m->worst[w].expected);
			fputs(", \"got\": ", f);
			num(f, m->worst[w].got);
			fputs(", \"error\": ", f);
			num(f, m->worst[w].error);
			worst_where(f, c, k, &m->worst[w]);
			worst_inputs(f, c, &c->out[k], m->worst[w].index);
			fputs("}", f);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

char *qc_json_case_text(qc_json *j, const qc_case *c, const qc_result *r, uint64_t ordinal,
                        const char *waived, size_t *len)
{
	return qc_json_case_text_on(j, c, r, ordinal, waived, -1, len);
}

char *qc_json_case_text_on(qc_json *j, const qc_case *c, const qc_result *r, uint64_t ordinal,
                           const char *waived, int board, size_t *len)
{
	char *text = NULL;
	*len = 0;
	FILE *m = open_memstream(&text, len);
	if (!m) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	case_json(m, j, c, r, ordinal, waived, board);
	if (fclose(m) != 0 || !text) {
		fprintf(stderr, "qconform: out of memory\n");
		exit(2);
	}
	return text;
}

void qc_json_case_raw(qc_json *j, const char *text, size_t len)
{
	fputs(j->n_cases++ ? ",\n " : "\n ", j->f);
	fwrite(text, 1, len, j->f);
}

void qc_json_case_ex(qc_json *j, const qc_case *c, const qc_result *r, uint64_t ordinal,
                     const char *waived)
{
	fputs(j->n_cases++ ? ",\n " : "\n ", j->f);
	case_json(j->f, j, c, r, ordinal, waived, -1);
}

static void verdicts_json(FILE *f, const uint64_t *v)
{
	fputs("{", f);
	for (int i = 0; i < QC_N_VERDICTS; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", qc_verdict_name((qc_verdict)i),
		        (unsigned long long)v[i]);
	fputs("}", f);
}

int qc_profile_op_index(char *const *ops, int n, const qc_case *c)
{
	size_t sl = strlen(c->call.semantics);
	for (int k = 0; k < n; k++)
		if (!strncmp(ops[k], c->call.semantics, sl) && ops[k][sl] == '/' &&
		    !strcmp(ops[k] + sl + 1, c->call.op))
			return k;
	return -1;
}

/* min_cases, cases and required_ops of class k of the profile (0: the base) */
static void profile_class_json(FILE *f, const qc_profile *p, const qc_profile_tally *t, int k)
{
	char *const *ops = k ? p->ext[k - 1].ops : p->ops;
	int n_ops = k ? p->ext[k - 1].n_ops : p->n_ops;
	fprintf(f, "\"min_cases\": %llu, \"cases\": %llu, \"required_ops\": [",
	        (unsigned long long)(k ? p->ext[k - 1].min_cases : p->min_cases),
	        (unsigned long long)t->cases[k]);
	for (int i = 0; i < n_ops; i++) {
		fputs(i ? ", {\"op\": " : "{\"op\": ", f);
		qc_json_string(f, ops[i]);
		fprintf(f,
		        ", \"cases\": %llu, \"verdicts\": ", (unsigned long long)t->op_cases[k][i]);
		verdicts_json(f, t->op_verdicts[k][i]);
		fputs("}", f);
	}
	fputs("]", f);
}

/* One hypothesis and what it explains (the op's "diagnosis": "best", "mixed_with"). */
static void hyp_json(FILE *f, const qc_op_diagnosis *o, int h)
{
	const qc_hyp *y = &o->hyps[h];
	const qc_hyp_score *s = &o->score[h];
	fputs("{\"id\": ", f);
	qc_json_string(f, y->id);
	fputs(", \"rule\": ", f);
	qc_json_string(f, y->rule);
	fputs(", \"as\": ", f);
	if (y->def && y->def->as)
		qc_json_string(f, y->def->as);
	else
		fputs("null", f);
	fprintf(f,
	        ", \"failing_cases\": %d, \"failing_cases_exact\": %d, \"passing_cases\": %d, "
	        "\"passing_cases_exact\": %d, \"refused\": %d, \"elements_outside_band\": %llu, "
	        "\"elements_outside_band_explained\": %llu, \"elements_differing\": %llu, "
	        "\"elements_differing_explained\": %llu, \"elements_disagreeing\": %llu, "
	        "\"judged\": %d, \"allowed\": %d, \"not_allowed\": ",
	        s->fail_cases, s->fail_exact, s->pass_cases, s->pass_exact, s->refused,
	        (unsigned long long)s->illegal, (unsigned long long)s->illegal_explained,
	        (unsigned long long)s->wrong, (unsigned long long)s->wrong_explained,
	        (unsigned long long)(s->disagree_fail + s->disagree_pass), s->judged,
	        s->legal_cases);
	if (s->not_legal[0]) {
		fputs("{\"message\": ", f);
		qc_json_string(f, s->not_legal);
		fputs(", \"case\": ", f);
		qc_json_string(f, s->not_legal_case);
		fputs("}", f);
	} else {
		fputs("null", f);
	}
	fputs("}", f);
}

/* The op's "diagnosis" (diagnose.h), when it has one. */
static void diagnosis_json(FILE *f, struct qc_diagnosis *D, const char *semantics, const char *op)
{
	for (int i = 0; D && i < qc_diagnosis_n_ops(D); i++) {
		const qc_op_diagnosis *o = qc_diagnosis_op(D, i);
		if (strcmp(o->semantics, semantics) || strcmp(o->op, op) ||
		    (o->status == QC_DIAG_NONE && !o->datasheet))
			continue;
		fputs(", \"diagnosis\": {\"status\": ", f);
		qc_json_string(f, qc_diag_status_name(o->status));
		fprintf(f,
		        ", \"failing_cases\": %llu, \"failing_cases_diagnosed\": %d, "
		        "\"passing_cases_sampled\": %d, \"hypotheses\": %d, "
		        "\"elements_outside_band\": %llu, \"elements_differing\": %llu, \"best\": "
		        "[",
		        (unsigned long long)o->failing_total, o->n_fail, o->n_pass, o->n_hyps,
		        (unsigned long long)o->illegal, (unsigned long long)o->wrong);
		/* the best, those equal to it, and the next one */
		int n = o->n_rank < o->n_equal + 2 ? o->n_rank : o->n_equal + 2;
		for (int r = 0; r < n; r++) {
			fputs(r ? ", " : "", f);
			hyp_json(f, o, o->rank[r]);
		}
		fprintf(f, "], \"equal\": %d, \"mixed_with\": ", o->n_equal);
		if (o->status == QC_DIAG_MIXED) {
			hyp_json(f, o, o->mix_other);
			fprintf(f, ", \"mixed_elements\": [%llu, %llu], \"tail_width\": ",
			        (unsigned long long)o->mix_first,
			        (unsigned long long)o->mix_second);
			if (o->tail_width)
				fprintf(f, "%d", o->tail_width);
			else
				fputs("null", f);
		} else {
			fputs("null", f);
		}
		char text[4096];
		qc_diagnosis_text(o, text, sizeof text);
		fputs(", \"text\": ", f);
		qc_json_string(f, text);
		fputs(", \"note\": ", f);
		if (o->err[0] && o->status != QC_DIAG_NOT_RUN)
			qc_json_string(f, o->err);
		else
			fputs("null", f);
		fputs(", \"datasheet\": ", f);
		qc_diagnosis_datasheet(o, text, sizeof text);
		if (o->datasheet && text[0])
			qc_json_string(f, text);
		else
			fputs("null", f);
		fputs("}", f);
		return;
	}
}

void qc_console_diagnosis(FILE *f, struct qc_diagnosis *D, int datasheet)
{
	char text[4096], shown[3 * sizeof text];
	for (int pass = 0, n = 0; pass < 1 + !!datasheet; pass++, n = 0)
		for (int i = 0; i < qc_diagnosis_n_ops(D); i++) {
			const qc_op_diagnosis *o = qc_diagnosis_op(D, i);
			if (pass ? !o->datasheet : o->status == QC_DIAG_NONE)
				continue;
			if (pass)
				qc_diagnosis_datasheet(o, text, sizeof text);
			else
				qc_diagnosis_text(o, text, sizeof text);
			if (!text[0])
				continue;
			qc_utf8_sanitize(shown, sizeof shown, text, strlen(text));
			fprintf(f, "%s%s",
			        n++    ? ""
			        : pass ? "datasheet (which rule the kernel follows where the rules "
			                 "differ):\n"
			               : "diagnosis (which rule explains the failures):\n",
			        shown);
		}
}

int qc_json_close(qc_json *j, const qc_run_stats *s, const qc_run_meta *meta)
{
	FILE *f = j->f;
	fputs("\n],\n\"ops\": [", f);
	for (int i = 0; i < s->n_ops; i++) {
		const qc_op_stats *o = &s->ops[i];
		fputs(i ? ",\n {\"semantics\": " : "\n {\"semantics\": ", f);
		qc_json_string(f, o->semantics);
		fputs(", \"op\": ", f);
		qc_json_string(f, o->op);
		fprintf(f, ", \"cases\": %llu, \"verdicts\": ", (unsigned long long)o->cases);
		verdicts_json(f, o->verdicts);
		fputs(", \"seconds\": ", f);
		num(f, o->seconds);
		fputs(", \"outputs\": [", f);
		for (int k = 0; k < o->n_outputs; k++) {
			fputs(k ? ", {\"name\": " : "{\"name\": ", f);
			qc_json_string(f, o->out_names[k]);
			fputs(", ", f);
			metrics_json(f, &o->m[k]);
			fputs("}", f);
		}
		fputs("]", f);
		diagnosis_json(f, meta->diagnosis, o->semantics, o->op);
		fputs("}", f);
	}
	if (meta->waivers) {
		/* every waiver of the file, used or not */
		const qc_waivers *ws = meta->waivers;
		fputs("\n],\n\"waivers\": [", f);
		for (int i = 0; i < ws->n; i++) {
			const qc_waiver *w = &ws->w[i];
			fputs(i ? ",\n {\"case\": " : "\n {\"case\": ", f);
			qc_json_string(f, w->glob);
			fputs(", \"reason\": ", f);
			qc_json_string(f, w->reason);
			fputs(", \"expires\": ", f);
			if (w->expires[0])
				qc_json_string(f, w->expires);
			else
				fputs("null", f);
			fprintf(f, ", \"matched\": %llu, \"applied\": %llu, \"expired\": %s}",
			        (unsigned long long)w->matched, (unsigned long long)w->applied,
			        w->expired ? "true" : "false");
		}
	}
	if (meta->profile_def && meta->profile_tally) {
		/* what the profile requires against what ran: the base at the top, then the
		 * extensions the run covers, then those it does not */
		const qc_profile *p = meta->profile_def;
		const qc_profile_tally *t = meta->profile_tally;
		fputs("\n],\n\"profile\": {\"name\": ", f);
		qc_json_string(f, p->name);
		fprintf(f, ", \"format_version\": %d, ", p->format);
		profile_class_json(f, p, t, 0);
		fputs(", \"extensions\": [", f);
		int n = 0;
		for (int k = 1; k <= p->n_ext; k++) {
			if (!t->covered[k])
				continue;
			fputs(n++ ? ", {\"name\": " : "{\"name\": ", f);
			qc_json_string(f, p->ext[k - 1].name);
			fputs(", ", f);
			profile_class_json(f, p, t, k);
			fputs("}", f);
		}
		fputs("], \"not_covered\": [", f);
		n = 0;
		for (int k = 1; k <= p->n_ext; k++) {
			if (t->covered[k])
				continue;
			fputs(n++ ? ", {\"name\": " : "{\"name\": ", f);
			qc_json_string(f, p->ext[k - 1].name);
			fprintf(f, ", \"cases\": %llu}", (unsigned long long)t->planned[k]);
		}
		fputs("]}", f);
	} else {
		fputs("\n]", f);
	}
	if (meta->interrupted) {
		/* what finished before the signal: a partial run, never conforming */
		fputs(",\n\"interrupted\": {\"signal\": ", f);
		if (meta->max_failures)
			fprintf(f, "null, \"max_failures\": %ld", meta->max_failures);
		else
			qc_json_string(f, meta->interrupted);
		fprintf(f, ", \"cases_done\": %llu, \"cases_planned\": %llu, \"journal\": ",
		        (unsigned long long)meta->cases_done,
		        (unsigned long long)meta->cases_planned);
		if (meta->journal)
			qc_json_string(f, meta->journal);
		else
			fputs("null", f);
		fputs("}", f);
	}
	fputs(",\n\"summary\": {", f);
	char when[32];
	iso_time(when, sizeof when, meta->finished);
	fprintf(f, "\"cases\": %llu, \"verdicts\": ", (unsigned long long)s->cases);
	verdicts_json(f, s->verdicts);
	if (qc_stats_engines_reported(s) || meta->require_engine) {
		/* the judged cases by the engine the plugin reported */
		fputs(", \"engines\": {", f);
		int n = 0;
		for (int e = 0; e <= QCF_ENGINE_COUNT; e++)
			if (s->engines[e])
				fprintf(f, "%s\"%s\": %llu", n++ ? ", " : "", qcf_engine_name(e),
				        (unsigned long long)s->engines[e]);
		fputs("}", f);
		if (meta->require_engine)
			fprintf(f, ", \"engine_breaches\": %llu",
			        (unsigned long long)qc_stats_engine_breaches(s,
			                                                     meta->require_engine));
	}
	if (meta->plugin->remote[0])
		fprintf(f, ", \"remote_reconnects\": %d", meta->remote_reconnects);
	if (meta->plugin->remote[0] && meta->n_boards) {
		/* how each board of the pool fared, in run.plugin.remote.pool's order */
		fputs(", \"remote_pool\": [", f);
		for (int b = 0; b < meta->n_boards; b++) {
			const qc_remote_board *x = &meta->boards[b];
			fputs(b ? ", {\"command\": " : "{\"command\": ", f);
			qc_json_string(f, x->command);
			fprintf(f,
			        ", \"state\": \"%s\", \"jobs\": %d, \"cases\": %llu, "
			        "\"reconnects\": %d",
			        x->dead ? "dead" : "alive", x->jobs, (unsigned long long)x->cases,
			        x->reconnects);
			if (x->dead) {
				fputs(", \"why\": ", f);
				qc_json_string(f, x->why ? x->why : "");
			}
			fputs("}", f);
		}
		fputs("]", f);
	}
	fprintf(f,
	        ", \"waived\": %llu, \"conforms\": %s, \"finished\": \"%s\", \"wall_seconds\": "
	        "%.3f}\n}\n",
	        (unsigned long long)meta->waived, qc_run_conforms(s, meta) ? "true" : "false", when,
	        meta->wall_s);
	char err[1200];
	int rc = qc_afile_commit(&j->af, err, sizeof err);
	free(j);
	return rc;
}

void qc_json_abort(qc_json *j)
{
	if (!j)
		return;
	qc_afile_abort(&j->af);
	free(j);
}

int qc_run_refused_ops(const qc_run_meta *meta, char *buf, size_t size, int *n_run)
{
	const qc_profile *p = meta->profile_def;
	const qc_profile_tally *t = meta->profile_tally;
	int n = 0, ran = 0;
	size_t used = 0;
	if (size)
		buf[0] = 0;
	for (int k = 0; p && t && k <= p->n_ext; k++) {
		if (!t->covered[k])
			continue;
		char *const *ops = k ? p->ext[k - 1].ops : p->ops;
		int n_ops = k ? p->ext[k - 1].n_ops : p->n_ops;
		for (int i = 0; i < n_ops; i++) {
			/* the op's cases but the negative ones it refused (a refusal answers
			 * those), and how many of them the kernel refused */
			uint64_t neg = t->op_neg_refused[k][i], c = t->op_cases[k][i] - neg,
			         ns = t->op_verdicts[k][i][QC_NOT_SUPPORTED] - neg;
			ran += c > 0;
			if (!c || ns != c)
				continue;
			n++;
			qc_list_add(buf, size, &used, "%s (%llu case%s)", ops[i],
			            (unsigned long long)c, c == 1 ? "" : "s");
		}
	}
	if (n_run)
		*n_run = ran;
	return n;
}

/* With --profile, the kernel refused every required op that ran. */
static int all_required_refused(const qc_run_meta *meta)
{
	int ran = 0, refused = qc_run_refused_ops(meta, NULL, 0, &ran);
	return ran > 0 && refused == ran;
}

int qc_run_verified_nothing(const qc_run_stats *s, const qc_run_meta *meta)
{
	return s->cases > 0 && s->verdicts[QC_NOT_SUPPORTED] == s->cases && meta->shard_count <= 1;
}

int qc_run_conforms(const qc_run_stats *s, const qc_run_meta *meta)
{
	uint64_t disallowed = qc_stats_failing(s);
	int expired = 0;
	for (int i = 0; meta->waivers && i < meta->waivers->n; i++)
		expired |= meta->waivers->w[i].expired;
	/* a run with no case, or in which the kernel took none, verified nothing (a shard may
	 * hold none: the merged run decides), nor one that refused every required op */
	return (s->cases > 0 || meta->shard_count > 1) && !qc_run_verified_nothing(s, meta) &&
	       disallowed == meta->waived && !expired && !meta->interrupted &&
	       !all_required_refused(meta) && !qc_stats_engine_breaches(s, meta->require_engine);
}

/* Cases of op o that did not conform by the verdicts alone (waivers are the verdict line's). */
static unsigned long long op_failing(const qc_op_stats *o)
{
	return (unsigned long long)(o->verdicts[QC_FAIL] + o->verdicts[QC_ERROR] +
	                            o->verdicts[QC_CRASH] + o->verdicts[QC_TIMEOUT] +
	                            o->verdicts[QC_NONDETERMINISTIC]);
}

/* One row: the counts, then the name (last: a long one does not push the columns). */
static void console_row(FILE *f, const uint64_t *v, uint64_t cases, const char *maxe,
                        const char *name, int nondet)
{
	fprintf(f, "%7llu %6llu %6llu %6llu %6llu %6llu", (unsigned long long)cases,
	        (unsigned long long)v[QC_FAIL], (unsigned long long)v[QC_ERROR],
	        (unsigned long long)v[QC_CRASH], (unsigned long long)v[QC_TIMEOUT],
	        (unsigned long long)v[QC_NOT_SUPPORTED]);
	if (nondet) /* --repeat */
		fprintf(f, " %6llu", (unsigned long long)v[QC_NONDETERMINISTIC]);
	fprintf(f, " %8s  %s\n", maxe, name);
}

void qc_console_table(FILE *f, const qc_run_stats *s, const qc_run_meta *meta)
{
	/* the ops with failures, one row each; the others counted on one line */
	int n_failing = 0, n_passed = 0, n_refused = 0;
	int nondet = meta && meta->repeat > 1;
	unsigned long long passed_cases = 0, within = 0;
	char refused[512];
	size_t used = 0;
	refused[0] = 0;
	for (int i = 0; i < s->n_ops; i++) {
		const qc_op_stats *o = &s->ops[i];
		if (op_failing(o)) {
			if (!n_failing++) {
				fprintf(f, "%7s %6s %6s %6s %6s %6s", "cases", "fail", "error",
				        "crash", "tmout", "n/s");
				if (nondet)
					fprintf(f, " %6s", "nondet");
				fprintf(f, " %8s  %s\n", "max|e|", "op (the ops with failures)");
			}
			char name[160], maxe[32];
			snprintf(name, sizeof name, "%s/%s", o->semantics, o->op);
			if (o->n_outputs)
				snprintf(maxe, sizeof maxe, "%.3g %s", o->m[0].max_abs,
				         qc_unit_name(o->m[0].unit));
			else
				snprintf(maxe, sizeof maxe, "-");
			console_row(f, o->verdicts, o->cases, maxe, name, nondet);
		} else if (o->verdicts[QC_NOT_SUPPORTED] &&
		           o->verdicts[QC_NOT_SUPPORTED] + o->verdicts[QC_EXPECTED_ERROR] ==
		                   o->cases) {
			n_refused++;
			qc_list_add(refused, sizeof refused, &used, "%s/%s", o->semantics, o->op);
		} else {
			n_passed++;
			passed_cases += o->cases;
			within += o->verdicts[QC_PASS_WITHIN_TOLERANCE];
		}
	}
	if (n_failing)
		console_row(f, s->verdicts, s->cases, "", "total", nondet);
	if (n_passed)
		fprintf(f, "passed: %d op%s, %llu case%s (%llu within tolerance)\n", n_passed,
		        n_passed == 1 ? "" : "s", passed_cases, passed_cases == 1 ? "" : "s",
		        within);
	if (n_refused)
		fprintf(f, "refused whole (NOT_SUPPORTED): %d op%s: %s\n", n_refused,
		        n_refused == 1 ? "" : "s", refused);
	if (!n_failing)
		fprintf(f, "total: %llu case%s, none failing\n", (unsigned long long)s->cases,
		        s->cases == 1 ? "" : "s");
	else
		fputs("(fail: outside the tolerance; error: the kernel broke a rule of the call;\n"
		      " crash, tmout: the worker died, or ran past --timeout; n/s: NOT_SUPPORTED;\n"
		      " max|e|: the largest error, in the output's unit)\n",
		      f);
	if (n_failing && nondet)
		fputs("(nondet: NONDETERMINISTIC, two of the --repeat runs differ)\n", f);
	if (qc_stats_engines_reported(s) || (meta && meta->require_engine)) {
		/* the plugin's word, not a fact the harness checked */
		fputs("engines (as the plugin reports them), judged cases:", f);
		for (int e = 1; e <= QCF_ENGINE_COUNT; e++)
			if (s->engines[e])
				fprintf(f, " %s %llu,", qcf_engine_name(e),
				        (unsigned long long)s->engines[e]);
		fprintf(f, " unreported %llu\n", (unsigned long long)s->engines[0]);
	}
	if (meta && meta->interrupted)
		fprintf(f, "INTERRUPTED: %llu of %llu case%s (%s), a partial run\n",
		        (unsigned long long)s->cases, (unsigned long long)meta->cases_planned,
		        meta->cases_planned == 1 ? "" : "s",
		        qc_stats_conforms(s) ? "every verdict so far allowed"
		                             : "see the failing cases in the report");
}
