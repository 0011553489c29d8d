#include "compat.h"

#include <stdarg.h>

#include "strvec.h"
#include "xalloc.h"

char *strvec_empty_[1];

void
strvec_init(struct strvec *sv)
{
	sv->v = strvec_empty_;
	sv->n = 0;
	sv->alloc = 0;
}

void
strvec_clear(struct strvec *sv)
{
	size_t i;

	if (sv->alloc) {
		for (i = 0; i < sv->n; i++)
			free(sv->v[i]);
		free(sv->v);
	}
	strvec_init(sv);
}

void
strvec_push_nodup(struct strvec *sv, char *s)
{
	if (!sv->alloc)
		sv->v = NULL;
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void
strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strvec_push_nodup(sv, xvasprintf(fmt, ap));
	va_end(ap);
}

void
strvec_pushv(struct strvec *sv, char *const *v)
{
	for (; v && *v; v++)
		strvec_push(sv, *v);
}

long
strvec_find(const struct strvec *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}

static long
env_index(char *const *env, const char *name)
{
	size_t len = strlen(name);
	long i;

	for (i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return i;
	return -1;
}

void
env_set(struct strvec *env, const char *name, const char *value)
{
	long i = env_index(env->v, name);
	char *entry = xasprintf("%s=%s", name, value);

	if (i < 0) {
		strvec_push_nodup(env, entry);
		return;
	}
	free(env->v[i]);
	env->v[i] = entry;
}

const char *
env_get(char *const *env, const char *name)
{
	long i = env_index(env, name);

	return i < 0 ? NULL : env[i] + strlen(name) + 1;
}
