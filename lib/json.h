/*
 * json.h: a small, deterministic JSON writer into a strbuf.
 *
 *	struct json j;
 *	json_init(&j, &sb);
 *	json_object_begin(&j);
 *	json_kv_str(&j, "code", "MGS2012");
 *	json_kv_int(&j, "status", 78);
 *	json_object_end(&j);
 *
 * Commas are placed by the writer.  Output has no whitespace, and the same
 * calls always give the same bytes, so a request printed with
 * --print-request is byte-equal to the one sent.  Strings are escaped per
 * RFC 8259; bytes that are not valid UTF-8 are written as \u00XX escapes of
 * the byte so the output is always valid JSON.
 */
#ifndef MAGUS_JSON_H
#define MAGUS_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

#define JSON_MAX_DEPTH 32

struct json {
	struct strbuf *sb;
	unsigned depth;
	bool first[JSON_MAX_DEPTH];
	bool after_key;
};

void json_init(struct json *j, struct strbuf *sb);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_strn(struct json *j, const char *s, size_t len);
void json_int(struct json *j, long long v);
void json_uint(struct json *j, unsigned long long v);
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Insert already-serialized JSON as one value. */
void json_raw(struct json *j, const char *text);

void json_kv_str(struct json *j, const char *key, const char *v);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_bool(struct json *j, const char *key, bool v);

/* Append s, quoted and escaped, to sb. */
void json_quote(struct strbuf *sb, const char *s, size_t len);

#endif /* MAGUS_JSON_H */
