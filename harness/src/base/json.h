/*
 * Values of JSON documents read from outside (reports, journals, certificates) through
 * jansson, read defensively: a member absent or of the wrong type reads as "", 0 or NAN, never
 * as a crash; and strings made for them from any bytes.
 */
#ifndef QC_JSON_H
#define QC_JSON_H

#include <jansson.h>
#include <stddef.h>

/* A number: an integer, a real, or "nan", "inf", "-inf"; NAN when absent. */
double qc_json_num(const json_t *v);
/* An integer (also when read as a double); 0 when absent. */
json_int_t qc_json_int(const json_t *v);
/* The string member key of o, or "" when absent or not a string. */
const char *qc_json_str(const json_t *o, const char *key);
/* A count: a positive integer or finite real (truncated), else 0. qc_json_key_count reads
 * member key of o. */
unsigned long long qc_json_count(const json_t *v);
unsigned long long qc_json_key_count(const json_t *o, const char *key);
/* A number as text: integers exactly, others with 6 significant digits; "nan", "inf",
 * "-inf". Returns buf. */
const char *qc_json_num_text(char *buf, size_t n, const json_t *v);
/* json_string of any bytes: s made reportable first (qc_utf8_sanitize, base/utf8.h), so never
 * NULL for a string jansson would refuse; NULL s gives "". */
json_t *qc_json_new_string(const char *s);

#endif
