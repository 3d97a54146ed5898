#include "judge/waivers.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "spec/profile.h" /* qc_yaml_load, qc_yaml_scalar_at, qc_yaml_check_keys */

/* Days since 1970-01-01 of a proleptic Gregorian date (no time zone involved). */
static long days_from_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* YYYY-MM-DD, a real calendar day: its day number, or -1. */
static long parse_date(const char *s)
{
	int y, m, d, used = 0;
	if (strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &used) != 3 || used != 10 ||
	    s[4] != '-' || s[7] != '-' || m < 1 || m > 12 || d < 1)
		return -1;
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (d > mdays[m - 1] + (m == 2 && leap))
		return -1;
	return days_from_civil(y, m, d);
}

static uint64_t glob_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

qc_waivers *qc_waivers_load(const char *path, qc_diag *diag)
{
	yaml_document_t doc;
	if (!qc_yaml_load(path, "waiver", &doc, diag))
		return NULL;

	int before = diag ? diag->errors : 0;
	int *slot = NULL; /* the hash set of globs: indices into ws->w, -1 empty */
	qc_waivers *ws = qc_xcalloc(1, sizeof *ws);
	ws->path = strdup(path);
	yaml_node_t *root = yaml_document_get_root_node(&doc), *n, *list;
	if (!root || root->type != YAML_MAPPING_NODE) {
		qc_diag_error(
		        diag, path, root,
		        "a waiver file must be a mapping (qconform_waivers: 1, waivers: [...])");
		goto done;
	}
	static const char *const top_keys[] = {"qconform_waivers", "waivers", NULL};
	qc_yaml_check_keys(&doc, root, top_keys, "a waiver file", "qconform_waivers, waivers", path,
	                   diag);
	const char *v = qc_yaml_scalar_at(&doc, root, "qconform_waivers", &n);
	int64_t fmt;
	if (!v || !qc_parse_int(v, &fmt) || fmt != QC_WAIVERS_FORMAT)
		qc_diag_error(diag, path, n ? n : root,
		              "missing or unsupported 'qconform_waivers: %d'", QC_WAIVERS_FORMAT);
	qc_yaml_scalar_at(&doc, root, "waivers", &list);
	if (!list || list->type != YAML_SEQUENCE_NODE) {
		qc_diag_error(diag, path, list ? list : root,
		              "'waivers' must be a list of {case, reason, expires}");
		goto done;
	}
	size_t cap = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	ws->w = qc_xcalloc(cap ? cap : 1, sizeof *ws->w);
	size_t slots = 16;
	while (slots < 2 * cap)
		slots *= 2;
	slot = qc_xcalloc(slots, sizeof *slot);
	for (size_t k = 0; k < slots; k++)
		slot[k] = -1;
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(&doc, *it);
		if (e->type != YAML_MAPPING_NODE) {
			qc_diag_error(diag, path, e,
			              "a waiver is a mapping {case, reason, expires}");
			continue;
		}
		static const char *const keys[] = {"case", "reason", "expires", NULL};
		qc_yaml_check_keys(&doc, e, keys, "a waiver", "case, reason, expires", path, diag);
		qc_waiver w = {0};
		w.line = (int)e->start_mark.line + 1;
		const char *glob = qc_yaml_scalar_at(&doc, e, "case", &n);
		if (!glob || !*glob) {
			qc_diag_error(diag, path, n ? n : e,
			              "a waiver needs 'case': a glob over case names");
			continue;
		}
		/* a glob waived before: a hash set of the waivers kept (linear in their number) */
		size_t h = glob_hash(glob) & (slots - 1);
		for (; slot[h] >= 0; h = (h + 1) & (slots - 1))
			if (!strcmp(ws->w[slot[h]].glob, glob))
				break;
		if (slot[h] >= 0) {
			qc_diag_error(diag, path, n, "case '%s' is waived twice (line %d)", glob,
			              ws->w[slot[h]].line);
			continue;
		}
		const char *reason = qc_yaml_scalar_at(&doc, e, "reason", &n);
		if (!reason || !*reason) {
			qc_diag_error(diag, path, n ? n : e,
			              "a waiver needs a 'reason' (why the failure is accepted)");
			continue;
		}
		const char *exp = qc_yaml_scalar_at(&doc, e, "expires", &n);
		if (n && (!exp || parse_date(exp) < 0)) {
			qc_diag_error(diag, path, n,
			              "'expires' must be a date YYYY-MM-DD, got '%s'",
			              exp ? exp : "(not a scalar)");
			continue;
		}
		if (exp)
			snprintf(w.expires, sizeof w.expires, "%s", exp);
		w.glob = strdup(glob);
		w.reason = strdup(reason);
		if (!w.glob || !w.reason) {
			fprintf(stderr, "qconform: out of memory\n");
			exit(2);
		}
		slot[h] = ws->n;
		ws->w[ws->n++] = w;
	}
done:
	free(slot);
	qc_yaml_free(&doc);
	if (diag && diag->errors > before) {
		qc_waivers_free(ws);
		return NULL;
	}
	return ws;
}

void qc_waivers_free(qc_waivers *ws)
{
	if (!ws)
		return;
	for (int i = 0; i < ws->n; i++) {
		free(ws->w[i].glob);
		free(ws->w[i].reason);
	}
	free(ws->w);
	free(ws->path);
	free(ws);
}

int qc_waivers_expire(qc_waivers *ws, time_t now)
{
	struct tm tm;
	gmtime_r(&now, &tm);
	long today = days_from_civil(tm.tm_year + 1900L, tm.tm_mon + 1L, tm.tm_mday);
	int n = 0;
	for (int i = 0; i < ws->n; i++) {
		qc_waiver *w = &ws->w[i];
		/* the expiry day is the last day the waiver holds */
		long last = w->expires[0] ? parse_date(w->expires) : -1;
		w->expired = w->expires[0] && today > last;
		w->days_expired = w->expired ? today - last : 0;
		if (w->expired) {
			/* the first day without it */
			struct tm d = {0};
			sscanf(w->expires, "%4d-%2d-%2d", &d.tm_year, &d.tm_mon, &d.tm_mday);
			d.tm_year -= 1900;
			d.tm_mon -= 1;
			d.tm_mday += 1;
			time_t t = timegm(&d);
			gmtime_r(&t, &d);
			strftime(w->expired_since, sizeof w->expired_since, "%Y-%m-%d", &d);
		}
		n += w->expired;
	}
	return n;
}

const qc_waiver *qc_waivers_find(const qc_waivers *ws, const char *case_name)
{
	for (int i = 0; ws && i < ws->n; i++)
		if (!ws->w[i].expired && fnmatch(ws->w[i].glob, case_name, 0) == 0)
			return &ws->w[i];
	return NULL;
}

qc_waiver *qc_waivers_match(qc_waivers *ws, const char *case_name)
{
	qc_waiver *first = NULL;
	for (int i = 0; ws && i < ws->n; i++) {
		qc_waiver *w = &ws->w[i];
		if (fnmatch(w->glob, case_name, 0) != 0)
			continue;
		w->matched++;
		if (!first && !w->expired)
			first = w;
	}
	return first;
}
