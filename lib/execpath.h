/*
 * execpath.h: where the front finds its helpers.
 *
 * The order is git's: the --exec-path=DIR option, then $MAGUS_EXEC_PATH,
 * then the directory compiled in ($(pkglibexecdir)).  The front exports
 * what it resolved as MAGUS_EXEC_PATH, so every child agrees.  Helpers call
 * siblings through helper_path(), never by searching PATH.
 */
#ifndef MAGUS_EXECPATH_H
#define MAGUS_EXECPATH_H

/* Set the value given with --exec-path=DIR (before the first lookup). */
void exec_path_set(const char *dir);
/* The resolved exec path directory. */
const char *exec_path(void);
/* A newly allocated "<exec path>/magus-<name>". */
char *helper_path(const char *name);

#endif /* MAGUS_EXECPATH_H */
