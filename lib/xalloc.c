#include "compat.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <unistd.h>

#include "xalloc.h"

static void NORETURN
out_of_memory(size_t n)
{
	char msg[96];
	int len;

	/* No allocation here: we are out of memory. */
	len = snprintf(msg, sizeof(msg),
	    "magus: out of memory allocating %zu bytes\n", n);
	if (len > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)len);
	_exit(71);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory(n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *
xreallocarray(void *p, size_t nmemb, size_t size)
{
	void *q;

	if (size && nmemb > SIZE_MAX / size)
		out_of_memory(SIZE_MAX);
	q = realloc(p, (nmemb && size) ? nmemb * size : 1);
	if (!q)
		out_of_memory(nmemb * size);
	return q;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		out_of_memory(strlen(s) + 1);
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		out_of_memory(n + 1);
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *p;

	if (vasprintf(&p, fmt, ap) < 0)
		out_of_memory(strlen(fmt));
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
