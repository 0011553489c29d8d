#include "compat.h"

#include <errno.h>
#include <limits.h>

#define JSMN_STATIC
#define JSMN_STRICT
#include <jsmn.h>

#include "jsonread.h"
#include "strbuf.h"
#include "strvec.h"
#include "xalloc.h"

/* Deeper nesting than any engine answer has is refused, not recursed. */
#define JSONR_MAX_DEPTH 256

#define TOK(j, i) (((const jsmntok_t *)(j)->tok)[i])

static bool
is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* RFC 8259's number grammar, over exactly [s, s + n). */
static bool
valid_number(const char *s, size_t n)
{
	size_t i = 0;

	if (i < n && s[i] == '-')
		i++;
	if (i >= n)
		return false;
	if (s[i] == '0')
		i++;
	else if (is_digit(s[i]))
		while (i < n && is_digit(s[i]))
			i++;
	else
		return false;
	if (i < n && s[i] == '.') {
		if (++i >= n || !is_digit(s[i]))
			return false;
		while (i < n && is_digit(s[i]))
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n || !is_digit(s[i]))
			return false;
		while (i < n && is_digit(s[i]))
			i++;
	}
	return i == n;
}

static bool
valid_primitive(const char *s, size_t n)
{
	if ((n == 4 && !memcmp(s, "true", 4)) ||
	    (n == 5 && !memcmp(s, "false", 5)) ||
	    (n == 4 && !memcmp(s, "null", 4)))
		return true;
	return valid_number(s, n);
}

/* Where the value at token t begins and ends in the text (quotes
 * included for a string). */
static size_t
value_begin(const struct jsonr *j, int t)
{
	return (size_t)TOK(j, t).start - (TOK(j, t).type == JSMN_STRING);
}

static size_t
value_end(const struct jsonr *j, int t)
{
	return (size_t)TOK(j, t).end + (TOK(j, t).type == JSMN_STRING);
}

/* Skip whitespace from pos; true when the next byte is c. */
static bool
next_is(const struct jsonr *j, size_t *pos, char c)
{
	while (*pos < j->len && is_ws(j->text[*pos]))
		(*pos)++;
	return *pos < j->len && j->text[*pos] == c;
}

/* Skip whitespace from pos; true when token t begins there. */
static bool
next_begins(const struct jsonr *j, size_t *pos, int t)
{
	while (*pos < j->len && is_ws(j->text[*pos]))
		(*pos)++;
	return *pos == value_begin(j, t);
}

/*
 * jsmn checks little of the grammar, even in strict mode: it accepts
 * "[1 2]", trailing commas, keys without values.  Walk the token tree
 * once, checking the bytes between tokens too, and return the index
 * after the value at `i`, or -1 when the text is not JSON.
 */
static int
validate(const struct jsonr *j, int i, int depth)
{
	const jsmntok_t *t;
	int n, k, v;
	size_t pos;
	bool object;

	if (i < 0 || i >= j->ntok || depth > JSONR_MAX_DEPTH)
		return -1;
	t = &TOK(j, i);
	switch (t->type) {
	case JSMN_OBJECT:
	case JSMN_ARRAY:
		object = t->type == JSMN_OBJECT;
		n = t->size;
		pos = (size_t)t->start + 1;
		v = i + 1;
		for (k = 0; k < n; k++) {
			if (k && !next_is(j, &pos, ','))
				return -1;
			if (k)
				pos++;
			if (v >= j->ntok || !next_begins(j, &pos, v))
				return -1;
			if (object) {
				if (TOK(j, v).type != JSMN_STRING ||
				    TOK(j, v).size != 1)
					return -1;
				pos = value_end(j, v);
				if (!next_is(j, &pos, ':'))
					return -1;
				pos++;
				v++;
				if (v >= j->ntok || !next_begins(j, &pos, v))
					return -1;
			}
			pos = value_end(j, v);
			v = validate(j, v, depth + 1);
			if (v < 0)
				return -1;
		}
		if (!next_is(j, &pos, object ? '}' : ']') ||
		    pos + 1 != (size_t)t->end)
			return -1;
		return v;
	case JSMN_STRING:
		return t->size == 0 ? i + 1 : -1;
	case JSMN_PRIMITIVE:
		if (t->size != 0 || !valid_primitive(j->text + t->start,
		    (size_t)(t->end - t->start)))
			return -1;
		return i + 1;
	default:
		return -1;
	}
}

int
jsonr_parse(struct jsonr *j, const char *text, size_t len)
{
	jsmn_parser p;
	jsmntok_t *tok = NULL;
	unsigned cap = 64;
	size_t end;
	int r;

	memset(j, 0, sizeof(*j));
	if (len > INT_MAX || memchr(text, '\0', len)) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		tok = xreallocarray(tok, cap, sizeof(*tok));
		jsmn_init(&p);
		r = jsmn_parse(&p, text, len, tok, cap);
		if (r != JSMN_ERROR_NOMEM)
			break;
		if (cap >= JSONR_MAX_TOKENS) {
			free(tok);
			errno = E2BIG;
			return -1;
		}
		cap *= 2;
	}
	if (r <= 0) {
		free(tok);
		errno = EINVAL;
		return -1;
	}
	j->text = text;
	j->len = len;
	j->tok = tok;
	j->ntok = r;
	/* Exactly one value, and nothing after it but whitespace. */
	if (validate(j, 0, 0) != r)
		goto bad;
	end = (size_t)tok[0].end + (tok[0].type == JSMN_STRING);
	while (end < len && is_ws(text[end]))
		end++;
	if (end != len)
		goto bad;
	return 0;
bad:
	jsonr_release(j);
	errno = EINVAL;
	return -1;
}

void
jsonr_release(struct jsonr *j)
{
	free(j->tok);
	memset(j, 0, sizeof(*j));
}

static bool
valid_tok(const struct jsonr *j, int tok)
{
	return j->tok && tok >= 0 && tok < j->ntok;
}

enum jsonr_type
jsonr_type(const struct jsonr *j, int tok)
{
	const jsmntok_t *t;

	if (!valid_tok(j, tok))
		return JSONR_ABSENT;
	t = &TOK(j, tok);
	switch (t->type) {
	case JSMN_OBJECT:
		return JSONR_OBJECT;
	case JSMN_ARRAY:
		return JSONR_ARRAY;
	case JSMN_STRING:
		return JSONR_STRING;
	case JSMN_PRIMITIVE:
		switch (j->text[t->start]) {
		case 't':
		case 'f':
			return JSONR_BOOL;
		case 'n':
			return JSONR_NULL;
		default:
			return JSONR_NUMBER;
		}
	default:
		return JSONR_ABSENT;
	}
}

int
jsonr_skip(const struct jsonr *j, int tok)
{
	int end, i;

	if (!valid_tok(j, tok))
		return -1;
	/* Tokens are in document order: the subtree ends where a token
	 * starts at or after this one's end. */
	end = TOK(j, tok).end;
	for (i = tok + 1; i < j->ntok; i++)
		if (TOK(j, i).start >= end)
			break;
	return i;
}

int
jsonr_count(const struct jsonr *j, int tok)
{
	enum jsonr_type t = jsonr_type(j, tok);

	return t == JSONR_OBJECT || t == JSONR_ARRAY ? TOK(j, tok).size : 0;
}

void
jsonr_iter_init(const struct jsonr *j, int tok, struct jsonr_iter *it)
{
	enum jsonr_type t = jsonr_type(j, tok);

	it->object = t == JSONR_OBJECT;
	if (t == JSONR_OBJECT || t == JSONR_ARRAY) {
		it->next = tok + 1;
		it->left = TOK(j, tok).size;
	} else {
		it->next = -1;
		it->left = 0;
	}
}

bool
jsonr_iter_next(const struct jsonr *j, struct jsonr_iter *it, int *key,
    int *val)
{
	int k = -1, v;

	if (it->left <= 0 || !valid_tok(j, it->next))
		return false;
	if (it->object) {
		k = it->next;
		v = k + 1;
	} else {
		v = it->next;
	}
	if (!valid_tok(j, v))
		return false;
	it->next = jsonr_skip(j, v);
	it->left--;
	if (key)
		*key = k;
	if (val)
		*val = v;
	return true;
}

int
jsonr_get(const struct jsonr *j, int tok, const char *key)
{
	struct jsonr_iter it;
	int k, v;

	if (jsonr_type(j, tok) != JSONR_OBJECT)
		return -1;
	jsonr_iter_init(j, tok, &it);
	while (jsonr_iter_next(j, &it, &k, &v))
		if (jsonr_str_eq(j, k, key))
			return v;
	return -1;
}

int
jsonr_path(const struct jsonr *j, int tok, const char *path)
{
	char *copy = xstrdup(path), *p = copy, *dot;

	while (tok >= 0 && p) {
		dot = strchr(p, '.');
		if (dot)
			*dot = '\0';
		tok = jsonr_get(j, tok, p);
		p = dot ? dot + 1 : NULL;
	}
	free(copy);
	return tok;
}

static int
hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static void
add_utf8(struct strbuf *out, unsigned cp)
{
	if (cp < 0x80) {
		strbuf_addch(out, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(out, (int)(0xc0 | (cp >> 6)));
		strbuf_addch(out, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(out, (int)(0xe0 | (cp >> 12)));
		strbuf_addch(out, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(out, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(out, (int)(0xf0 | (cp >> 18)));
		strbuf_addch(out, (int)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(out, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(out, (int)(0x80 | (cp & 0x3f)));
	}
}

int
jsonr_str(const struct jsonr *j, int tok, struct strbuf *out)
{
	const char *s, *e;
	size_t keep = out->len;
	unsigned cp, lo;

	if (jsonr_type(j, tok) != JSONR_STRING)
		return -1;
	s = j->text + TOK(j, tok).start;
	e = j->text + TOK(j, tok).end;
	while (s < e) {
		if ((unsigned char)*s < 0x20)
			goto bad;
		if (*s != '\\') {
			strbuf_addch(out, *s++);
			continue;
		}
		if (++s >= e)
			goto bad;
		switch (*s++) {
		case '"':
			strbuf_addch(out, '"');
			break;
		case '\\':
			strbuf_addch(out, '\\');
			break;
		case '/':
			strbuf_addch(out, '/');
			break;
		case 'b':
			strbuf_addch(out, '\b');
			break;
		case 'f':
			strbuf_addch(out, '\f');
			break;
		case 'n':
			strbuf_addch(out, '\n');
			break;
		case 'r':
			strbuf_addch(out, '\r');
			break;
		case 't':
			strbuf_addch(out, '\t');
			break;
		case 'u':
			if (e - s < 4 || hex4(s, &cp) < 0)
				goto bad;
			s += 4;
			if (cp == 0)
				goto bad;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (e - s < 6 || s[0] != '\\' || s[1] != 'u' ||
				    hex4(s + 2, &lo) < 0 || lo < 0xdc00 ||
				    lo > 0xdfff)
					goto bad;
				s += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				goto bad;
			}
			add_utf8(out, cp);
			break;
		default:
			goto bad;
		}
	}
	return 0;
bad:
	strbuf_setlen(out, keep);
	return -1;
}

char *
jsonr_strdup(const struct jsonr *j, int tok)
{
	struct strbuf sb = STRBUF_INIT;

	if (jsonr_str(j, tok, &sb) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

bool
jsonr_str_eq(const struct jsonr *j, int tok, const char *s)
{
	const jsmntok_t *t;
	struct strbuf sb = STRBUF_INIT;
	size_t n;
	bool eq;

	if (jsonr_type(j, tok) != JSONR_STRING)
		return false;
	t = &TOK(j, tok);
	n = (size_t)(t->end - t->start);
	/* The common case, a key without escapes, needs no copy. */
	if (!memchr(j->text + t->start, '\\', n))
		return strlen(s) == n && !memcmp(j->text + t->start, s, n);
	eq = jsonr_str(j, tok, &sb) == 0 && sb.len == strlen(s) &&
	    !memcmp(sb.buf, s, sb.len);
	strbuf_release(&sb);
	return eq;
}

int
jsonr_int(const struct jsonr *j, int tok, long long *out)
{
	const jsmntok_t *t;
	const char *s;
	size_t n, i = 0;
	unsigned long long v = 0, lim;
	bool neg = false;

	if (jsonr_type(j, tok) != JSONR_NUMBER)
		return -1;
	t = &TOK(j, tok);
	s = j->text + t->start;
	n = (size_t)(t->end - t->start);
	if (s[0] == '-') {
		neg = true;
		i++;
	}
	lim = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
	if (i >= n)
		return -1;
	for (; i < n; i++) {
		if (!is_digit(s[i]))
			return -1;	/* a fraction or an exponent */
		if (v > (lim - (unsigned)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (neg)
		*out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN :
		    -(long long)v;
	else
		*out = (long long)v;
	return 0;
}

int
jsonr_bool(const struct jsonr *j, int tok, bool *out)
{
	if (jsonr_type(j, tok) != JSONR_BOOL)
		return -1;
	*out = j->text[TOK(j, tok).start] == 't';
	return 0;
}

int
jsonr_strings(const struct jsonr *j, int tok, struct strvec *sv)
{
	struct jsonr_iter it;
	struct strbuf sb = STRBUF_INIT;
	int v;
	enum jsonr_type t = jsonr_type(j, tok);

	if (t == JSONR_ABSENT || t == JSONR_NULL)
		return 0;
	if (t != JSONR_ARRAY)
		return -1;
	jsonr_iter_init(j, tok, &it);
	while (jsonr_iter_next(j, &it, NULL, &v)) {
		strbuf_reset(&sb);
		if (jsonr_str(j, v, &sb) < 0) {
			strbuf_release(&sb);
			return -1;
		}
		strvec_push(sv, sb.buf);
	}
	strbuf_release(&sb);
	return 0;
}

int
jsonr_string_map(const struct jsonr *j, int tok, struct strvec *sv)
{
	struct jsonr_iter it;
	struct strbuf sb = STRBUF_INIT;
	int k, v;
	enum jsonr_type t = jsonr_type(j, tok);

	if (t == JSONR_ABSENT || t == JSONR_NULL)
		return 0;
	if (t != JSONR_OBJECT)
		return -1;
	jsonr_iter_init(j, tok, &it);
	while (jsonr_iter_next(j, &it, &k, &v)) {
		strbuf_reset(&sb);
		if (jsonr_str(j, k, &sb) < 0)
			goto bad;
		strbuf_addch(&sb, '=');
		if (jsonr_str(j, v, &sb) < 0)
			goto bad;
		strvec_push(sv, sb.buf);
	}
	strbuf_release(&sb);
	return 0;
bad:
	strbuf_release(&sb);
	return -1;
}

const char *
jsonr_raw(const struct jsonr *j, int tok, size_t *len)
{
	const jsmntok_t *t;
	int q;

	if (!valid_tok(j, tok)) {
		*len = 0;
		return NULL;
	}
	t = &TOK(j, tok);
	q = t->type == JSMN_STRING;
	*len = (size_t)(t->end - t->start) + 2 * (size_t)q;
	return j->text + t->start - q;
}
