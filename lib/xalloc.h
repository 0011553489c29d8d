/*
 * xalloc.h: allocation that cannot fail.
 *
 * Each function either returns usable memory or prints a diagnostic and
 * exits with status 71 (EX_OSERR).  Use them for small bookkeeping
 * allocations; code that can recover from running out of memory should
 * call malloc itself.
 */
#ifndef MAGUS_XALLOC_H
#define MAGUS_XALLOC_H

#include <stddef.h>
#include <stdarg.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
/* Resize p to nmemb * size bytes, checking the product for overflow. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A newly allocated, formatted string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Grow an array: ensure (p) has room for (n) elements, tracking (alloc). */
#define ALLOC_GROW(p, n, alloc)                                                \
	do {                                                                   \
		if ((n) > (alloc)) {                                           \
			size_t na_ = (alloc) ? (alloc) * 2 : 8;                \
			if (na_ < (n))                                         \
				na_ = (n);                                     \
			(p) = xreallocarray((p), na_, sizeof(*(p)));           \
			(alloc) = na_;                                         \
		}                                                              \
	} while (0)

#endif /* MAGUS_XALLOC_H */
