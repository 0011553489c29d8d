/*
 * innerbuild.h: the inner magus, the static build of `magus` and the
 * helpers that run inside a container, and where the relay finds it.
 *
 * An inner build is a directory laid out as
 *
 *	BUILD-INFO
 *	bin/magus
 *	libexec/magus/magus-<helper>	(those named by INNER_HELPERS)
 *
 * which the relay mounts read-only at /usr/local/lib/magus.  BUILD-INFO
 * describes it, one "key value" per line, in this order:
 *
 *	magus-build-info 1
 *	version 0.1.0
 *	platform linux/amd64
 *	source <SHA-256 of the source files it was built from>
 *	file <SHA-256> <size> bin/magus
 *	file <SHA-256> <size> libexec/magus/magus-sandbox-exec
 *
 * ("file" lines sorted by path, one per file, nothing else in the tree).
 *
 * Two places hold inner builds:
 *
 *  - the platform store of a workspace, written by `make platform-store`
 *    from a magus source tree (a development build):
 *	<cache.dir>/platform/<os>-<arch>/magus/
 *    It counts only when its version and its source hash equal the
 *    running magus's (PACKAGE_VERSION and magus_source_hash), that is
 *    when it is at least as new as the sources the running magus was
 *    built from.
 *
 *  - the self-fetch cache, written by `magus self fetch OS/ARCH` from a
 *    signed release (magus-self-fetch(1)):
 *	$XDG_CACHE_HOME/magus/self/<version>/<os>-<arch>/
 *    (XDG_CACHE_HOME defaulting to ~/.cache).  Such an entry also holds
 *    FETCH-INFO, written at fetch time:
 *
 *	magus-fetch-info 1
 *	version 0.1.0
 *	platform linux/amd64
 *	url <the artifact's URL>
 *	size <the artifact's size>
 *	sha256 <the artifact's SHA-256, as the signed index gave it>
 *	build-info <SHA-256 of BUILD-INFO>
 *
 * <os>-<arch> is platform_dirname() of the platform asked for.
 *
 * For the relay (spec/relay.md, "The inner magus"): call innerbuild_find()
 * with the workspace's absolute cache.dir, the --platform asked for and
 * INNER_VERIFY_HASHES (a few milliseconds for a few MB; the cache is
 * written without fsync and relies on this check after a crash), before
 * anything is created on the engine.  When it answers INNER_OK, mount
 * lookup.dir read-only at /usr/local/lib/magus.  Otherwise refuse
 * (exit 2) printing lookup.why and lookup.fix, the command that puts a
 * good build there ("magus self fetch linux/arm64", or "make
 * platform-store" when a stale development build is in the store).  The
 * relay never fetches.
 *
 * A program using this module links $(CRYPTO_LIBS) (digest.h).
 */
#ifndef MAGUS_INNERBUILD_H
#define MAGUS_INNERBUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

struct platform;

/* The SHA-256 of the sources this program was built from, as
 * contrib/release/source-hash.sh computes it (generated at build time). */
extern const char magus_source_hash[];

#define INNER_BUILD_INFO "BUILD-INFO"
#define INNER_FETCH_INFO "FETCH-INFO"
#define INNER_FILE_MAX (1ULL << 30) /* no inner program is 1 GiB */

struct buildinfo_file {
	char *path;
	char sha256[65];
	unsigned long long size;
};

struct buildinfo {
	char *version;
	char *platform;
	char source[65];
	struct buildinfo_file *files;
	size_t nfiles, alloc;
};

/* Parse BUILD-INFO's text.  Returns 0, or -1 with a reason in `err`. */
int buildinfo_parse(const char *text, size_t len, struct buildinfo *bi,
    struct strbuf *err);
/* Render BUILD-INFO (files sorted by path). */
void buildinfo_write(const struct buildinfo *bi, struct strbuf *out);
void buildinfo_release(struct buildinfo *bi);

/*
 * Is `path` (relative, no trailing slash) a place the layout allows?
 * A directory: "bin", "libexec", "libexec/magus".  A file: "BUILD-INFO",
 * "bin/magus", "libexec/magus/magus-NAME" with NAME of [a-z0-9-].
 * Absolute paths, "..", "." and empty components are never allowed.
 */
bool innerbuild_layout_ok(const char *path, bool is_dir);

enum inner_state {
	INNER_OK = 0,
	INNER_MISSING,	      /* no inner build at the place looked */
	INNER_STALE,	      /* another version, or other sources */
	INNER_WRONG_PLATFORM, /* BUILD-INFO or an ELF header says another */
	INNER_DAMAGED,	      /* incomplete, changed, unreadable */
};

/* Hash every file and compare with BUILD-INFO (else sizes are compared). */
#define INNER_VERIFY_HASHES 0x1
/* A self-fetch cache entry: FETCH-INFO must be present and agree. */
#define INNER_VERIFY_FETCHED 0x2

/*
 * Judge the inner build in `dir` for platform `p`: BUILD-INFO parsed, its
 * platform and `version` compared, its source hash compared with
 * `source` (when not NULL), every file present, regular, executable and
 * of the recorded size (and hash), nothing else in the tree, and each
 * binary's ELF header naming p's architecture (elf_arch()).  Returns the
 * state; anything but INNER_OK comes with one line in `why` naming the
 * path and both values that differ.
 */
enum inner_state innerbuild_verify(const char *dir, const struct platform *p,
    const char *version, const char *source, unsigned flags,
    struct strbuf *why);

/* "<cache_dir>/platform/<os>-<arch>/magus", allocated. */
char *innerbuild_store_dir(const char *cache_dir, const struct platform *p);
/* "$XDG_CACHE_HOME/magus/self" (or ~/.cache/...), allocated; NULL when
 * neither an absolute XDG_CACHE_HOME nor HOME is set. */
char *innerbuild_cache_root(void);
/* "<root>/<version>/<os>-<arch>", allocated. */
char *innerbuild_cache_dir(const char *root, const char *version,
    const struct platform *p);

enum inner_from {
	INNER_FROM_STORE,
	INNER_FROM_CACHE,
};

struct inner_lookup {
	enum inner_state state;
	enum inner_from from; /* the place the answer is about */
	char *dir;	      /* that place's directory */
	char *store;	      /* the platform store's inner build directory */
	char *cache;	      /* the cache entry's directory, NULL without HOME */
	struct strbuf why;    /* state != INNER_OK: what is wrong */
	struct strbuf fix;    /* state != INNER_OK: the command to run */
};

/*
 * Find the inner build for `p` for the running magus (PACKAGE_VERSION,
 * magus_source_hash).  `cache_dir` is the workspace's absolute cache.dir.
 *
 * A build in the platform store decides alone: it is used when it
 * verifies, and refused (fix: make platform-store) when it is stale or
 * damaged, so a developer never runs an old build by accident.  Without
 * one, the self-fetch cache entry for this exact version is used when it
 * verifies (with INNER_VERIFY_FETCHED), else refused (fix: magus self
 * fetch OS/ARCH).  `flags` may add INNER_VERIFY_HASHES.
 *
 * Returns lookup->state; release the lookup with inner_lookup_release().
 * It reads files only; nothing is created or fetched.
 */
enum inner_state innerbuild_find(const char *cache_dir,
    const struct platform *p, unsigned flags, struct inner_lookup *lookup);
void inner_lookup_release(struct inner_lookup *lookup);

/* FETCH-INFO's text, for magus-self-fetch. */
void fetchinfo_write(struct strbuf *out, const char *version,
    const char *platform, const char *url, unsigned long long size,
    const char *sha256, const char *buildinfo_sha256);

#endif /* MAGUS_INNERBUILD_H */
