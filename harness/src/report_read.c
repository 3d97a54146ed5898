#include "report_read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static int is_report(json_t *r, const char **why)
{
	static const struct {
		const char *key;
		json_type type;
	} members[] = {{"run", JSON_OBJECT},
	               {"cases", JSON_ARRAY},
	               {"ops", JSON_ARRAY},
	               {"summary", JSON_OBJECT}};
	if (!json_is_object(r)) {
		*why = "not a qconform report (not a JSON object)";
		return 0;
	}
	const char *fmt = json_string_value(json_object_get(r, "format"));
	if (!fmt || strcmp(fmt, "qconform-report") != 0) {
		*why = "not a qconform report (no \"format\": \"qconform-report\")";
		return 0;
	}
	json_t *v = json_object_get(r, "format_version");
	if (!json_is_integer(v) && !json_is_real(v)) {
		*why = "not a qconform report (no format_version)";
		return 0;
	}
	if (json_number_value(v) != 1) {
		*why = "report format_version is not 1 (this qconform reads version 1)";
		return 0;
	}
	for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
		json_t *m = json_object_get(r, members[i].key);
		if (!m || json_typeof(m) != members[i].type) {
			static char buf[96];
			snprintf(buf, sizeof buf,
			         "not a qconform report (\"%s\" missing or not %s)", members[i].key,
			         members[i].type == JSON_ARRAY ? "a list" : "an object");
			*why = buf;
			return 0;
		}
	}
	return 1;
}

json_t *qc_report_read(const char *json_path, char *err, size_t errsz)
{
	FILE *f = fopen(json_path, "rb");
	if (!f) {
		snprintf(err, errsz, "%s: %s", json_path, strerror(errno));
		return NULL;
	}
	json_error_t e;
	json_t *r = json_loadf(f, 0, &e);
	if (!r && strstr(e.text, "too big integer")) {
		/* a --seed above 2^63: read every integer as a double instead */
		rewind(f);
		r = json_loadf(f, JSON_DECODE_INT_AS_REAL, &e);
	}
	fclose(f);
	if (!r) {
		snprintf(err, errsz, "%s: invalid JSON at line %d, column %d: %s", json_path,
		         e.line, e.column, e.text);
		return NULL;
	}
	const char *why;
	if (!is_report(r, &why)) {
		snprintf(err, errsz, "%s: %s", json_path, why);
		json_decref(r);
		return NULL;
	}
	return r;
}

double qc_report_num(const json_t *v)
{
	if (json_is_number(v))
		return json_number_value(v);
	const char *s = json_string_value(v);
	if (s && !strcmp(s, "inf"))
		return INFINITY;
	if (s && !strcmp(s, "-inf"))
		return -INFINITY;
	return NAN;
}

json_int_t qc_report_int(const json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v);
	double d = json_number_value(v); /* 0 when not a number */
	return isfinite(d) && fabs(d) < 9.2e18 ? (json_int_t)d : 0;
}

const char *qc_report_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

unsigned long long qc_report_count(const json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v) > 0 ? (unsigned long long)json_integer_value(v) : 0;
	double d = json_is_real(v) ? json_real_value(v) : 0;
	if (!(d > 0)) /* also NaN */
		return 0;
	return d < 0x1p64 ? (unsigned long long)d : ULLONG_MAX;
}

unsigned long long qc_report_key_count(const json_t *o, const char *key)
{
	return qc_report_count(json_object_get(o, key));
}

const char *qc_report_num_text(char *buf, size_t n, const json_t *v)
{
	double d = qc_report_num(v);
	if (isnan(d))
		snprintf(buf, n, "nan");
	else if (isinf(d))
		snprintf(buf, n, d > 0 ? "inf" : "-inf");
	else if (d == floor(d) && fabs(d) < 1e15)
		snprintf(buf, n, "%.0f", d);
	else
		snprintf(buf, n, "%.6g", d);
	return buf;
}

json_t *qc_report_jstring(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (qc_utf8_valid(s ? s : "", n))
		return json_stringn(s ? s : "", n);
	char *clean = qc_utf8_sanitize_dup(s, n);
	json_t *v = clean ? json_string(clean) : NULL;
	free(clean);
	return v ? v : json_string("");
}
