#include "compat.h"

#include <ctype.h>
#include <sys/types.h>

#define JSMN_STATIC
#define JSMN_STRICT
#include <jsmn.h>

#include "digest.h"
#include "json.h"
#include "platform.h"
#include "relindex.h"
#include "strbuf.h"
#include "xalloc.h"

/* An index is small; anything larger is not one. */
#define INDEX_MAX_TOKENS 65536

struct parser {
	const char *js;
	jsmntok_t *t;
	int n;
	struct strbuf *err;
};

/* The index of the token after the value at `i` and all it contains. */
static int
skip(const struct parser *P, int i)
{
	int end = P->t[i].end;

	i++;
	while (i < P->n && P->t[i].start < end)
		i++;
	return i;
}

static size_t
tlen(const struct parser *P, int i)
{
	return (size_t)(P->t[i].end - P->t[i].start);
}

static const char *
tstr(const struct parser *P, int i)
{
	return P->js + P->t[i].start;
}

static bool
teq(const struct parser *P, int i, const char *s)
{
	return tlen(P, i) == strlen(s) && !memcmp(tstr(P, i), s, strlen(s));
}

/* A string token without escapes or control characters, copied. */
static char *
plain_string(const struct parser *P, int i)
{
	const char *s = tstr(P, i);
	size_t k, n = tlen(P, i);

	if (P->t[i].type != JSMN_STRING)
		return NULL;
	for (k = 0; k < n; k++)
		if (s[k] == '\\' || (unsigned char)s[k] < 0x20)
			return NULL;
	return xstrndup(s, n);
}

static const char *
type_name(jsmntype_t t)
{
	switch (t) {
	case JSMN_OBJECT:
		return "an object";
	case JSMN_ARRAY:
		return "an array";
	case JSMN_STRING:
		return "a string";
	case JSMN_PRIMITIVE:
		return "a number, boolean or null";
	default:
		return "nothing";
	}
}

static int
want_type(const struct parser *P, int i, jsmntype_t t, const char *path,
    const char *what)
{
	if (P->t[i].type == t)
		return 0;
	strbuf_addf(P->err, "%s: %s, not %s", path, what,
	    type_name(P->t[i].type));
	return -1;
}

/* A key of an object must be a plain string; duplicates are refused. */
static char *
object_key(const struct parser *P, int obj, int key, const char *path)
{
	char *k = plain_string(P, key);
	int j;

	if (!k) {
		strbuf_addf(P->err, "%s: a key is not a plain string", path);
		return NULL;
	}
	for (j = obj + 1; j < key; j = skip(P, j + 1))
		if (tlen(P, j) == tlen(P, key) &&
		    !memcmp(tstr(P, j), tstr(P, key), tlen(P, key))) {
			strbuf_addf(P->err, "%s: key \"%s\" appears twice",
			    path, k);
			free(k);
			return NULL;
		}
	return k;
}

static bool
parse_size(const char *s, size_t n, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t k;

	if (n == 0 || n > 16 || (s[0] == '0'))
		return false;
	for (k = 0; k < n; k++) {
		if (s[k] < '0' || s[k] > '9')
			return false;
		v = v * 10 + (unsigned long long)(s[k] - '0');
	}
	if (v > RELINDEX_SIZE_MAX)
		return false;
	*out = v;
	return true;
}

static bool
url_valid(const char *u)
{
	const unsigned char *p;

	if (!*u || strlen(u) > 4096)
		return false;
	for (p = (const unsigned char *)u; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			return false;
	return true;
}

static bool
platform_canonical(const char *s)
{
	struct strbuf err = STRBUF_INIT;
	struct platform p;
	bool ok = platform_parse(s, &p, &err) == 0 &&
	    !strcmp(platform_str(&p), s);

	strbuf_release(&err);
	return ok;
}

bool
relindex_version_valid(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n > 64 || !isalnum((unsigned char)v[0]))
		return false;
	return strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ.+~-") == n;
}

static int
parse_artifact(const struct parser *P, int i, const char *path,
    struct relindex_artifact *a)
{
	bool have_url = false, have_size = false, have_sha = false;
	int k, end = skip(P, i);
	char *key;

	if (want_type(P, i, JSMN_OBJECT, path, "an artifact must be an "
	    "object") < 0)
		return -1;
	for (k = i + 1; k < end; k = skip(P, k + 1)) {
		struct strbuf field = STRBUF_INIT;
		int v = k + 1;

		if (!(key = object_key(P, i, k, path)))
			return -1;
		strbuf_addf(&field, "%s.%s", path, key);
		if (!strcmp(key, "url")) {
			free(a->url);
			a->url = plain_string(P, v);
			if (!a->url || !url_valid(a->url)) {
				strbuf_addf(P->err, "%s: not a URL string "
				    "(no spaces, quotes or escapes)",
				    field.buf);
				goto bad;
			}
			have_url = true;
		} else if (!strcmp(key, "size")) {
			if (P->t[v].type != JSMN_PRIMITIVE ||
			    !parse_size(tstr(P, v), tlen(P, v), &a->size)) {
				strbuf_addf(P->err, "%s: not a positive whole "
				    "number of bytes", field.buf);
				goto bad;
			}
			have_size = true;
		} else if (!strcmp(key, "sha256")) {
			char *s = plain_string(P, v);

			if (!s || !sha256_hex_valid(s)) {
				strbuf_addf(P->err, "%s: not 64 lowercase hex "
				    "digits", field.buf);
				free(s);
				goto bad;
			}
			memcpy(a->sha256, s, 65);
			free(s);
			have_sha = true;
		} else {
			strbuf_addf(P->err, "%s: unknown key (url, size, "
			    "sha256)", field.buf);
			goto bad;
		}
		free(key);
		strbuf_release(&field);
		continue;
bad:
		free(key);
		strbuf_release(&field);
		return -1;
	}
	if (!have_url || !have_size || !have_sha) {
		strbuf_addf(P->err, "%s: missing \"%s\"", path,
		    !have_url ? "url" : !have_size ? "size" : "sha256");
		return -1;
	}
	return 0;
}

static int
parse_version(const struct parser *P, int i, const char *path,
    struct relindex_version *ver)
{
	int k, end = skip(P, i);

	if (want_type(P, i, JSMN_OBJECT, path, "a version must be an object "
	    "of platforms") < 0)
		return -1;
	if (P->t[i].size == 0) {
		strbuf_addf(P->err, "%s: lists no platform", path);
		return -1;
	}
	for (k = i + 1; k < end; k = skip(P, k + 1)) {
		struct relindex_artifact *a;
		struct strbuf field = STRBUF_INIT;
		char *key = object_key(P, i, k, path);
		int r;

		if (!key)
			return -1;
		strbuf_addf(&field, "%s.\"%s\"", path, key);
		if (!platform_canonical(key)) {
			strbuf_addf(P->err, "%s: not a platform in the "
			    "OS/ARCH[/VARIANT] spelling", field.buf);
			strbuf_release(&field);
			free(key);
			return -1;
		}
		ALLOC_GROW(ver->arts, ver->n + 1, ver->alloc);
		a = &ver->arts[ver->n++];
		memset(a, 0, sizeof(*a));
		a->platform = key;
		r = parse_artifact(P, k + 1, field.buf, a);
		strbuf_release(&field);
		if (r < 0)
			return -1;
	}
	return 0;
}

int
relindex_parse(struct relindex *ix, const char *json, size_t len,
    struct strbuf *err)
{
	struct parser P = { json, NULL, 0, err };
	bool have_format = false, have_versions = false;
	jsmn_parser jp;
	int k, end, n;

	memset(ix, 0, sizeof(*ix));
	if (memchr(json, '\0', len)) {
		strbuf_addstr(err, "the index holds a NUL byte");
		return -1;
	}
	jsmn_init(&jp);
	n = jsmn_parse(&jp, json, len, NULL, 0);
	if (n <= 0 || n > INDEX_MAX_TOKENS) {
		strbuf_addstr(err, n == 0 ? "the index is empty" :
		    n > 0 ? "the index is too large" :
		    "the index is not valid JSON");
		return -1;
	}
	P.t = xcalloc((size_t)n, sizeof(*P.t));
	jsmn_init(&jp);
	P.n = jsmn_parse(&jp, json, len, P.t, (unsigned)n);
	if (P.n != n || want_type(&P, 0, JSMN_OBJECT, "index",
	    "the index must be a JSON object") < 0)
		goto bad;
	if (skip(&P, 0) != P.n) {
		strbuf_addstr(err, "index: text follows the JSON object");
		goto bad;
	}
	end = P.n;
	for (k = 1; k < end; k = skip(&P, k + 1)) {
		char *key = object_key(&P, 0, k, "index");
		int v = k + 1;

		if (!key)
			goto bad;
		if (!strcmp(key, "format")) {
			free(key);
			if (!teq(&P, v, "1") || P.t[v].type != JSMN_PRIMITIVE) {
				strbuf_addf(err, "index.format: not %d, the "
				    "format this magus reads", RELINDEX_FORMAT);
				goto bad;
			}
			have_format = true;
		} else if (!strcmp(key, "versions")) {
			int j, vend = skip(&P, v);

			free(key);
			if (want_type(&P, v, JSMN_OBJECT, "index.versions",
			    "must be an object of versions") < 0)
				goto bad;
			for (j = v + 1; j < vend; j = skip(&P, j + 1)) {
				struct relindex_version *ver;
				struct strbuf path = STRBUF_INIT;
				char *vk = object_key(&P, v, j,
				    "index.versions");
				int r;

				if (!vk)
					goto bad;
				strbuf_addf(&path, "index.versions.\"%s\"", vk);
				if (!relindex_version_valid(vk)) {
					strbuf_addf(err, "%s: not a version "
					    "string", path.buf);
					strbuf_release(&path);
					free(vk);
					goto bad;
				}
				ALLOC_GROW(ix->versions, ix->n + 1, ix->alloc);
				ver = &ix->versions[ix->n++];
				memset(ver, 0, sizeof(*ver));
				ver->version = vk;
				r = parse_version(&P, j + 1, path.buf, ver);
				strbuf_release(&path);
				if (r < 0)
					goto bad;
			}
			have_versions = true;
		} else {
			strbuf_addf(err, "index.%s: unknown key (format, "
			    "versions)", key);
			free(key);
			goto bad;
		}
	}
	if (!have_format || !have_versions) {
		strbuf_addf(err, "index: missing \"%s\"",
		    !have_format ? "format" : "versions");
		goto bad;
	}
	free(P.t);
	return 0;
bad:
	if (!err->len)
		strbuf_addstr(err, "the index is not valid JSON");
	free(P.t);
	relindex_release(ix);
	return -1;
}

void
relindex_release(struct relindex *ix)
{
	size_t i, j;

	for (i = 0; i < ix->n; i++) {
		for (j = 0; j < ix->versions[i].n; j++) {
			free(ix->versions[i].arts[j].platform);
			free(ix->versions[i].arts[j].url);
		}
		free(ix->versions[i].arts);
		free(ix->versions[i].version);
	}
	free(ix->versions);
	memset(ix, 0, sizeof(*ix));
}

static ssize_t
find_version(const struct relindex *ix, const char *version)
{
	size_t i;

	for (i = 0; i < ix->n; i++)
		if (!strcmp(ix->versions[i].version, version))
			return (ssize_t)i;
	return -1;
}

static ssize_t
find_artifact(const struct relindex_version *v, const char *platform)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->arts[i].platform, platform))
			return (ssize_t)i;
	return -1;
}

const struct relindex_version *
relindex_version(const struct relindex *ix, const char *version)
{
	ssize_t i = find_version(ix, version);

	return i < 0 ? NULL : &ix->versions[i];
}

const struct relindex_artifact *
relindex_artifact(const struct relindex_version *v, const char *platform)
{
	ssize_t i = v ? find_artifact(v, platform) : -1;

	return i < 0 ? NULL : &v->arts[i];
}

int
relindex_set(struct relindex *ix, const char *version, const char *platform,
    const char *url, unsigned long long size, const char *sha256,
    struct strbuf *err)
{
	struct relindex_version *v;
	struct relindex_artifact *a;
	ssize_t i;

	if (!relindex_version_valid(version)) {
		strbuf_addf(err, "'%s' is not a version string", version);
		return -1;
	}
	if (!platform_canonical(platform)) {
		strbuf_addf(err, "'%s' is not a platform in the "
		    "OS/ARCH[/VARIANT] spelling", platform);
		return -1;
	}
	if (!url_valid(url)) {
		strbuf_addf(err, "'%s' is not a URL (no spaces, quotes or "
		    "backslashes)", url);
		return -1;
	}
	if (size == 0 || size > RELINDEX_SIZE_MAX || !sha256_hex_valid(sha256)) {
		strbuf_addstr(err, "an artifact needs a positive size and a "
		    "SHA-256 in 64 lowercase hex digits");
		return -1;
	}
	i = find_version(ix, version);
	if (i >= 0) {
		v = &ix->versions[i];
	} else {
		ALLOC_GROW(ix->versions, ix->n + 1, ix->alloc);
		v = &ix->versions[ix->n++];
		memset(v, 0, sizeof(*v));
		v->version = xstrdup(version);
	}
	i = find_artifact(v, platform);
	if (i >= 0) {
		a = &v->arts[i];
	} else {
		ALLOC_GROW(v->arts, v->n + 1, v->alloc);
		a = &v->arts[v->n++];
		memset(a, 0, sizeof(*a));
		a->platform = xstrdup(platform);
	}
	free(a->url);
	a->url = xstrdup(url);
	a->size = size;
	memcpy(a->sha256, sha256, 65);
	return 0;
}

static int
cmp_version(const void *a, const void *b)
{
	const struct relindex_version *const *x = a, *const *y = b;

	return strcmp((*x)->version, (*y)->version);
}

static int
cmp_artifact(const void *a, const void *b)
{
	const struct relindex_artifact *const *x = a, *const *y = b;

	return strcmp((*x)->platform, (*y)->platform);
}

/* Sorted views, so writing never reorders the caller's index. */
static const struct relindex_version **
sorted_versions(const struct relindex *ix)
{
	const struct relindex_version **v = xcalloc(ix->n + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < ix->n; i++)
		v[i] = &ix->versions[i];
	qsort(v, ix->n, sizeof(*v), cmp_version);
	return v;
}

static const struct relindex_artifact **
sorted_artifacts(const struct relindex_version *ver)
{
	const struct relindex_artifact **a = xcalloc(ver->n + 1, sizeof(*a));
	size_t i;

	for (i = 0; i < ver->n; i++)
		a[i] = &ver->arts[i];
	qsort(a, ver->n, sizeof(*a), cmp_artifact);
	return a;
}

void
relindex_write(const struct relindex *ix, struct strbuf *out)
{
	const struct relindex_version **v = sorted_versions(ix);
	struct json j;
	size_t i, k;

	json_init(&j, out);
	json_object_begin(&j);
	json_kv_int(&j, "format", RELINDEX_FORMAT);
	json_key(&j, "versions");
	json_object_begin(&j);
	for (i = 0; i < ix->n; i++) {
		const struct relindex_artifact **a = sorted_artifacts(v[i]);

		json_key(&j, v[i]->version);
		json_object_begin(&j);
		for (k = 0; k < v[i]->n; k++) {
			json_key(&j, a[k]->platform);
			json_object_begin(&j);
			json_kv_str(&j, "sha256", a[k]->sha256);
			json_key(&j, "size");
			json_uint(&j, a[k]->size);
			json_kv_str(&j, "url", a[k]->url);
			json_object_end(&j);
		}
		json_object_end(&j);
		free(a);
	}
	json_object_end(&j);
	json_object_end(&j);
	strbuf_addch(out, '\n');
	free(v);
}

void
relindex_trusted_comment(const struct relindex *ix, struct strbuf *out)
{
	const struct relindex_version **v = sorted_versions(ix);
	size_t i, k;

	strbuf_addstr(out, "magus-release-index");
	for (i = 0; i < ix->n; i++) {
		const struct relindex_artifact **a = sorted_artifacts(v[i]);

		strbuf_addf(out, " %s=", v[i]->version);
		for (k = 0; k < v[i]->n; k++)
			strbuf_addf(out, "%s%s", k ? "," : "",
			    a[k]->platform);
		free(a);
	}
	free(v);
}
