#include "report_read.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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
