/*
 * smalloc-libc.c: smalloc as the program's malloc and its kin.  Linked
 * only into magus-sandbox-exec's static musl build, where the C library's
 * own calls come here too; smalloc.h says why.
 */
#include "compat.h"

#include <errno.h>
#include <malloc.h>

#include "smalloc.h"

void *
malloc(size_t n)
{
	return smalloc(n);
}

void
free(void *p)
{
	sfree(p);
}

void *
calloc(size_t nmemb, size_t size)
{
	return scalloc(nmemb, size);
}

void *
realloc(void *p, size_t n)
{
	return srealloc(p, n);
}

void *
aligned_alloc(size_t align, size_t n)
{
	return saligned(align, n);
}

void *
memalign(size_t align, size_t n)
{
	return saligned(align, n);
}

int
posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = saligned(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

size_t
malloc_usable_size(void *p)
{
	return p ? ssize(p) : 0;
}
