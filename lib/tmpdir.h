/*
 * tmpdir.h: private scratch directories, and removing them again.
 *
 *	char *dir = private_dir_make("magus-run");
 *	... run something with TMPDIR=dir ...
 *	remove_tree(dir);
 *	free(dir);
 *
 * The removal never follows a symbolic link: whatever a confined command
 * left behind (a link to ~/.ssh, a directory with mode 0) is removed
 * without touching anything outside the tree.
 */
#ifndef MAGUS_TMPDIR_H
#define MAGUS_TMPDIR_H

/*
 * Make a new directory PREFIX.XXXXXX, mode 0700, under $TMPDIR when that
 * is an absolute path to a directory, else under /tmp.  Returns its real
 * path (symlinks resolved, newly allocated), or NULL with errno set.
 */
char *private_dir_make(const char *prefix);

/*
 * Remove `path` and everything beneath it.  A symbolic link is removed,
 * never followed; a directory its owner cannot read, search or write is
 * given mode 0700 first.  Returns 0, or -1 with errno set from the first
 * failure (everything else that could be removed is removed).
 */
int remove_tree(const char *path);

#endif /* MAGUS_TMPDIR_H */
