/*
 * store.h: the platform stores under a workspace's cache dir, found and
 * removed without ever leaving that cache dir.
 *
 * A store is <cache.dir>/platform/<os>-<arch>[-<variant>]: what a relayed
 * run wrote into .magus on that platform.  Everything here works on
 * descriptors opened with O_NOFOLLOW, component by component, so a
 * symbolic link planted anywhere is met as a link and never followed:
 *
 * - the cache dir is reached through its real path, each component opened
 *   without following a link (a link swapped in meanwhile fails the open);
 *   a cache dir configured inside the workspace whose real path leaves
 *   the workspace is refused;
 * - "platform" and each store must be real directories on the cache dir's
 *   own filesystem: a symbolic link or a mount point there is refused;
 * - inside a store, a symbolic link is removed as a link (its target is
 *   untouched), a directory on another mount (a bind mount, say) is not
 *   entered, and a directory whose mode keeps its owner out (a Go module
 *   cache's 0555) is opened up first when we own it.
 *
 *	struct store_root sr;
 *	struct strbuf msg = STRBUF_INIT;
 *	int code;
 *
 *	if ((code = store_open(&sr, root, cache_dir, &msg)))
 *		die_mgs(code, NULL, "%s", msg.buf);	// nothing was touched
 *	if ((code = store_list(&sr, "linux-arm64", &names, &msg))) ...
 *	for (...)
 *		if (store_remove(&sr, names.v[i], &res) < 0) ...
 *	store_close(&sr);
 */
#ifndef MAGUS_CLEAN_STORE_H
#define MAGUS_CLEAN_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "strbuf.h"

struct strvec;

/* The deepest directory nesting a store is walked to. */
#define STORE_MAX_DEPTH 256

struct store_root {
	char *real;		/* the cache dir's real path, or NULL */
	char *platform;		/* real + "/platform" */
	int cache_fd;		/* -1 when the cache dir does not exist */
	int platform_fd;	/* -1 when there is no platform directory */
	dev_t dev;		/* the cache dir's filesystem */
	uint64_t mnt_id;	/* and mount, when the kernel says (else 0) */
};

/*
 * Open the cache dir `cache_dir` (absolute) of the workspace whose real
 * root is `root`, and its platform directory.  A missing cache dir or
 * platform directory is not an error: there is nothing to remove.
 * Returns 0, or the MGS code of the refusal with the message in `msg`
 * (6002: the cache dir cannot be used; 6003: "platform" is a link, not
 * a directory, or another mount).
 */
int store_open(struct store_root *sr, const char *root, const char *cache_dir,
    struct strbuf *msg);
void store_close(struct store_root *sr);

/*
 * The stores to remove: `only` ("linux-arm64") when it exists, else every
 * entry of the platform directory.  Each must be a directory of the cache
 * dir's mount: a symbolic link, another file type (only when named by
 * `only`) or a mount point is refused (6003, naming the path).  Entries
 * that are not directories are left alone under --all.
 */
int store_list(struct store_root *sr, const char *only, struct strvec *names,
    struct strbuf *msg);

struct store_result {
	unsigned long removed;	/* files, links and directories unlinked */
	struct strbuf error;	/* the first failure, naming its path */
};

/*
 * Remove the store `name` and everything in it.  Keeps going past a
 * failure, so as much as can go goes.  Returns 0 when the store is gone,
 * or -1 with the first failure in res->error (the caller releases it).
 */
int store_remove(struct store_root *sr, const char *name,
    struct store_result *res);

#endif /* MAGUS_CLEAN_STORE_H */
