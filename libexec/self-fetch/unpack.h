/*
 * unpack.h: the release tarball (gzip over ustar, as contrib/release/
 * pack.sh writes it) unpacked into a directory, refusing everything the
 * inner build's layout does not name (innerbuild_layout_ok): absolute
 * paths, "..", links of any kind, devices, pax or GNU extension headers,
 * duplicates, a second gzip member, anything after the end of the archive.
 *
 * Each binary's ELF header is checked against the platform as soon as it
 * is written, and BUILD-INFO against what was unpacked: its version, its
 * platform, and every file's size and SHA-256.
 */
#ifndef MAGUS_SELF_FETCH_UNPACK_H
#define MAGUS_SELF_FETCH_UNPACK_H

#include <stddef.h>

struct platform;
struct strbuf;

enum unpack_result {
	UNPACK_OK = 0,
	UNPACK_REFUSED,	    /* the contents are not an inner build */
	UNPACK_WRONG_ARCH,  /* an ELF header names another architecture */
	UNPACK_VERSION,	    /* BUILD-INFO names another version */
	UNPACK_IO,	    /* writing the directory failed */
};

/*
 * Unpack `len` bytes at `gz` into the existing, empty directory `dir`, for
 * platform `p` and magus `version`.  BUILD-INFO's SHA-256 goes into
 * `buildinfo_sha256`.  The reason for a failure goes to `err`; the
 * caller removes `dir` then.
 */
enum unpack_result unpack_release(const unsigned char *gz, size_t len,
    const char *dir, const struct platform *p, const char *version,
    char buildinfo_sha256[65], struct strbuf *err);

#endif /* MAGUS_SELF_FETCH_UNPACK_H */
