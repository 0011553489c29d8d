/*
 * dirutil.h: directory trees made, replaced in one step and removed,
 * without following symbolic links anywhere below the named path.
 */
#ifndef MAGUS_DIRUTIL_H
#define MAGUS_DIRUTIL_H

#include <sys/types.h>

struct strbuf;

/* mkdir -p with `mode` for the directories it creates.  0 or -1 + err. */
int mkdir_p(const char *path, mode_t mode, struct strbuf *err);

/*
 * Remove `path` and everything below it; symbolic links are removed, not
 * followed.  A missing path is success.  Returns 0, or -1 with the first
 * failure in `err`.
 */
int rm_rf(const char *path, struct strbuf *err);

/*
 * Put the directory `src` at `dst` in one step: rename(2) when `dst` does
 * not exist, else renameat2(RENAME_EXCHANGE), after which the old tree
 * (now at `src`) is removed.  A reader of `dst` sees the old tree or the
 * new one, never neither and never a mix.  Returns 0, or -1 with err.
 */
int dir_replace(const char *src, const char *dst, struct strbuf *err);

/* fsync(2) a file or directory by path.  Returns 0, or -1 with err. */
int fsync_path(const char *path, struct strbuf *err);

#endif /* MAGUS_DIRUTIL_H */
