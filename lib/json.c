#include "compat.h"

#include <math.h>

#include "json.h"
#include "strbuf.h"

void
json_init(struct json *j, struct strbuf *sb)
{
	j->sb = sb;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
}

/* Emit the separator owed before a new value or key. */
static void
json_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		strbuf_addch(j->sb, ',');
	j->first[j->depth] = false;
}

static void
json_open(struct json *j, char c)
{
	json_sep(j);
	strbuf_addch(j->sb, c);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void
json_close(struct json *j, char c)
{
	if (j->depth)
		j->depth--;
	strbuf_addch(j->sb, c);
}

void
json_object_begin(struct json *j)
{
	json_open(j, '{');
}

void
json_object_end(struct json *j)
{
	json_close(j, '}');
}

void
json_array_begin(struct json *j)
{
	json_open(j, '[');
}

void
json_array_end(struct json *j)
{
	json_close(j, ']');
}

void
json_key(struct json *j, const char *key)
{
	json_sep(j);
	json_quote(j->sb, key, strlen(key));
	strbuf_addch(j->sb, ':');
	j->after_key = true;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void
json_quote(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	strbuf_addch(sb, '"');
	while (i < len) {
		unsigned char c = p[i];

		switch (c) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			break;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		case '\b':
			strbuf_addstr(sb, "\\b");
			break;
		case '\f':
			strbuf_addstr(sb, "\\f");
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				strbuf_addf(sb, "\\u%04x", c);
				break;
			}
			n = utf8_len(p + i, len - i);
			if (!n) {
				strbuf_addf(sb, "\\u%04x", c);
				break;
			}
			strbuf_add(sb, p + i, n);
			i += n;
			continue;
		}
		i++;
	}
	strbuf_addch(sb, '"');
}

void
json_strn(struct json *j, const char *s, size_t len)
{
	json_sep(j);
	json_quote(j->sb, s, len);
}

void
json_str(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_strn(j, s, strlen(s));
}

void
json_int(struct json *j, long long v)
{
	json_sep(j);
	strbuf_addf(j->sb, "%lld", v);
}

void
json_uint(struct json *j, unsigned long long v)
{
	json_sep(j);
	strbuf_addf(j->sb, "%llu", v);
}

void
json_double(struct json *j, double v)
{
	json_sep(j);
	if (!isfinite(v))
		strbuf_addstr(j->sb, "null");
	else
		strbuf_addf(j->sb, "%.17g", v);
}

void
json_bool(struct json *j, bool v)
{
	json_sep(j);
	strbuf_addstr(j->sb, v ? "true" : "false");
}

void
json_null(struct json *j)
{
	json_sep(j);
	strbuf_addstr(j->sb, "null");
}

void
json_raw(struct json *j, const char *text)
{
	json_sep(j);
	strbuf_addstr(j->sb, text);
}

void
json_kv_str(struct json *j, const char *key, const char *v)
{
	json_key(j, key);
	json_str(j, v);
}

void
json_kv_int(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	json_int(j, v);
}

void
json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}
