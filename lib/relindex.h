/*
 * relindex.h: the release index, one JSON document listing per version,
 * per platform, where the artifact is, its size and its SHA-256:
 *
 *	{"format":1,"versions":{"0.1.0":{"linux/amd64":{
 *	    "sha256":"<64 hex>","size":2210816,
 *	    "url":"magus-0.1.0-linux-amd64.tar.gz"}}}}
 *
 * A URL may be relative; it is then resolved against the index's own URL.
 * The index is signed (minisign.h), and the signature's trusted comment
 * is relindex_trusted_comment() of the index, for example
 *
 *	magus-release-index 0.1.0=linux/amd64,linux/arm64 0.2.0=linux/amd64
 *
 * (versions and platforms sorted bytewise).  A reader compares the
 * trusted comment with the one it renders from the index it parsed, as
 * exact strings, so the signed comment names exactly what the index
 * offers.
 *
 * Parsing checks every field's type and value; an unknown key, a
 * duplicate, a string with an escape sequence, a size that is not a
 * positive whole number, a malformed SHA-256, a platform not in the
 * canonical OS/ARCH[/VARIANT] spelling are each refused with the path of
 * the field in the message.
 */
#ifndef MAGUS_RELINDEX_H
#define MAGUS_RELINDEX_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

#define RELINDEX_FORMAT 1
/* The largest artifact size an index may name (JSON's exact integers). */
#define RELINDEX_SIZE_MAX 9007199254740991ULL

struct relindex_artifact {
	char *platform; /* "linux/amd64" */
	char *url;
	unsigned long long size;
	char sha256[65];
};

struct relindex_version {
	char *version;
	struct relindex_artifact *arts;
	size_t n, alloc;
};

struct relindex {
	struct relindex_version *versions;
	size_t n, alloc;
};

#define RELINDEX_INIT { NULL, 0, 0 }

/* Parse `len` bytes of JSON.  Returns 0, or -1 with the reason in `err`. */
int relindex_parse(struct relindex *ix, const char *json, size_t len,
    struct strbuf *err);
void relindex_release(struct relindex *ix);

const struct relindex_version *relindex_version(const struct relindex *ix,
    const char *version);
const struct relindex_artifact *relindex_artifact(
    const struct relindex_version *v, const char *platform);

/*
 * Add or replace one artifact.  Returns 0, or -1 with the reason when a
 * value would not survive relindex_parse (a bad version or platform
 * spelling, a URL with quotes, spaces or control characters, ...).
 */
int relindex_set(struct relindex *ix, const char *version,
    const char *platform, const char *url, unsigned long long size,
    const char *sha256, struct strbuf *err);

/* The index as JSON, sorted, followed by a newline. */
void relindex_write(const struct relindex *ix, struct strbuf *out);
/* The trusted comment that signs for `ix` (see above). */
void relindex_trusted_comment(const struct relindex *ix, struct strbuf *out);

/* A version string an index may carry: [0-9A-Za-z.+~-], 1..64 bytes,
 * starting with an alphanumeric. */
bool relindex_version_valid(const char *v);

#endif /* MAGUS_RELINDEX_H */
