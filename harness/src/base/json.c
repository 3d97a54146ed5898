/* Values of JSON documents read from outside (reports, journals, certificates), read
 * defensively: a member of the wrong type reads as absent. */
#include "base/json.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

double qc_json_num(const json_t *v)
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

json_int_t qc_json_int(const json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v);
	double d = json_number_value(v); /* 0 when not a number */
	return isfinite(d) && fabs(d) < 9.2e18 ? (json_int_t)d : 0;
}

const char *qc_json_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

unsigned long long qc_json_count(const json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v) > 0 ? (unsigned long long)json_integer_value(v) : 0;
	double d = json_is_real(v) ? json_real_value(v) : 0;
	if (!(d > 0)) /* also NaN */
		return 0;
	return d < 0x1p64 ? (unsigned long long)d : ULLONG_MAX;
}

unsigned long long qc_json_key_count(const json_t *o, const char *key)
{
	return qc_json_count(json_object_get(o, key));
}

const char *qc_json_num_text(char *buf, size_t n, const json_t *v)
{
	double d = qc_json_num(v);
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

json_t *qc_json_new_string(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (qc_utf8_valid(s ? s : "", n))
		return json_stringn(s ? s : "", n);
	char *clean = qc_utf8_sanitize_dup(s, n);
	json_t *v = clean ? json_string(clean) : NULL;
	free(clean);
	return v ? v : json_string("");
}
