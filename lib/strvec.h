/*
 * strvec.h: a NULL-terminated, growable vector of owned strings, shaped to
 * be handed to execve() as argv or envp.
 *
 *	struct strvec av = STRVEC_INIT;
 *	strvec_push(&av, "magus-sandbox-exec");
 *	strvec_pushf(&av, "--root=%s", root);
 *	execv(path, av.v);
 *
 * `v` is never NULL (an empty vector points at a shared { NULL }).
 */
#ifndef MAGUS_STRVEC_H
#define MAGUS_STRVEC_H

#include <stddef.h>

struct strvec {
	char **v;
	size_t n;
	size_t alloc;
};

extern char *strvec_empty_[];
#define STRVEC_INIT { strvec_empty_, 0, 0 }

void strvec_init(struct strvec *sv);
void strvec_clear(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Take ownership of an allocated string. */
void strvec_push_nodup(struct strvec *sv, char *s);
void strvec_pushv(struct strvec *sv, char *const *v);
/* Index of s in sv, or -1. */
long strvec_find(const struct strvec *sv, const char *s);

/*
 * Environment helpers: entries are "NAME=VALUE".  env_set replaces an
 * existing NAME; env_get returns the value or NULL.
 */
void env_set(struct strvec *env, const char *name, const char *value);
const char *env_get(char *const *env, const char *name);

#endif /* MAGUS_STRVEC_H */
