/*
 * jsonread.h: typed access to a parsed JSON document, over jsmn.
 *
 * The text is tokenized once; values are then addressed by token index,
 * the root being token 0.  Every accessor takes an index that may be -1
 * ("absent") and answers "absent" in turn, so lookups chain without a
 * check at each step:
 *
 *	struct jsonr j;
 *	long long code;
 *
 *	if (jsonr_parse(&j, body, len) < 0)
 *		return error;		// not one well-formed JSON value
 *	if (jsonr_int(&j, jsonr_path(&j, 0, "State.ExitCode"), &code) < 0)
 *		return error;		// absent, or not an integer
 *	jsonr_release(&j);
 *
 * Paths separate object keys with '.'; a key that itself contains a dot
 * (a label such as "magus.workspace") is looked up with jsonr_get.
 * Strings come back unescaped (\uXXXX, surrogate pairs included, as
 * UTF-8); a string holding "\u0000" is refused rather than truncated.
 * The text must outlive the jsonr: tokens point into it.
 */
#ifndef MAGUS_JSONREAD_H
#define MAGUS_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;
struct strvec;

enum jsonr_type {
	JSONR_ABSENT = 0,
	JSONR_OBJECT,
	JSONR_ARRAY,
	JSONR_STRING,
	JSONR_NUMBER,
	JSONR_BOOL,
	JSONR_NULL,
};

struct jsonr {
	const char *text;
	size_t len;
	void *tok;	/* jsmntok_t[]: opaque, so users need not see jsmn */
	int ntok;
};

/* The most tokens one document may hold; a larger one is refused. */
#define JSONR_MAX_TOKENS (1 << 22)

/*
 * Tokenize `len` bytes of `text` as exactly one JSON value (surrounding
 * whitespace allowed).  Returns 0, or -1 with errno EINVAL (malformed,
 * truncated, trailing garbage, a NUL byte) or E2BIG (more than
 * JSONR_MAX_TOKENS).  On failure j holds nothing to release, though
 * jsonr_release is harmless.
 */
int jsonr_parse(struct jsonr *j, const char *text, size_t len);
void jsonr_release(struct jsonr *j);

enum jsonr_type jsonr_type(const struct jsonr *j, int tok);
/* The member `key` of object `tok`, or -1. */
int jsonr_get(const struct jsonr *j, int tok, const char *key);
/* Follow a '.'-separated path of object keys from `tok`, or -1. */
int jsonr_path(const struct jsonr *j, int tok, const char *path);
/* The element count of an array, the member count of an object, else 0. */
int jsonr_count(const struct jsonr *j, int tok);
/* The token just after the whole value at `tok` (its next sibling). */
int jsonr_skip(const struct jsonr *j, int tok);

/*
 * Iterate over an array's elements or an object's members:
 *
 *	struct jsonr_iter it;
 *	int key, val;
 *
 *	jsonr_iter_init(&j, obj, &it);
 *	while (jsonr_iter_next(&j, &it, &key, &val))
 *		...	// key is -1 for an array element
 */
struct jsonr_iter {
	int next;	/* token of the next key or element */
	int left;	/* how many remain */
	bool object;
};
void jsonr_iter_init(const struct jsonr *j, int tok, struct jsonr_iter *it);
bool jsonr_iter_next(const struct jsonr *j, struct jsonr_iter *it, int *key,
    int *val);

/*
 * Append the unescaped string at `tok` to `out`.  Returns 0, or -1 when
 * tok is absent or not a string, or holds a bad escape or \u0000.
 */
int jsonr_str(const struct jsonr *j, int tok, struct strbuf *out);
/* The unescaped string at `tok`, allocated; NULL when jsonr_str fails. */
char *jsonr_strdup(const struct jsonr *j, int tok);
/* True when the string at `tok` unescapes to exactly `s`. */
bool jsonr_str_eq(const struct jsonr *j, int tok, const char *s);
/* An integral number (no fraction, no exponent) that fits a long long. */
int jsonr_int(const struct jsonr *j, int tok, long long *out);
int jsonr_bool(const struct jsonr *j, int tok, bool *out);
/*
 * Push every element of the array at `tok` onto `sv`; every element must
 * be a string.  An absent or null value pushes nothing and succeeds.
 */
int jsonr_strings(const struct jsonr *j, int tok, struct strvec *sv);
/*
 * Push "key=value" for every member of the object at `tok` whose values
 * are all strings (labels); absent or null pushes nothing and succeeds.
 */
int jsonr_string_map(const struct jsonr *j, int tok, struct strvec *sv);
/* The raw text of the value at `tok` (quotes included for a string). */
const char *jsonr_raw(const struct jsonr *j, int tok, size_t *len);

#endif /* MAGUS_JSONREAD_H */
