#include "compat.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "smalloc.h"

/*
 * Every block starts with this header, 16 bytes, so the payload after it
 * keeps malloc's 16-byte alignment.  A block of a size class holds
 * 16 << cls bytes; a free one keeps the next free block of its class in
 * its first bytes.  A large block is a mapping of `len` bytes whose
 * header lies `pad` bytes into it (more than 0 only when aligned).
 */
struct hdr {
	uint32_t magic;
	uint32_t cls; /* the size class, or a large block's pad */
	size_t len;   /* a large block's mapping length */
};

#define HDR sizeof(struct hdr)
#define MAGIC_USED 0x5a11c0deu
#define MAGIC_FREE 0xf4eeb10cu
#define MAGIC_LARGE 0x1a46eb10u
#define NCLASS 9 /* 16 << 8 == SMALLOC_LARGE */
#define ARENA (128u << 10)
#define CHUNK (256u << 10)
#define MAX_ALIGN ((size_t)1 << 30)

_Static_assert(HDR == 16, "the header keeps the payload 16-aligned");
_Static_assert((16u << (NCLASS - 1)) == SMALLOC_LARGE, "the top class");

static _Alignas(16) unsigned char arena[ARENA];
static unsigned char *next = arena, *end = arena + ARENA;
static struct hdr *free_list[NCLASS];

/* A pointer that is not a live block of ours: stop before any list is
 * corrupted.  Nothing here may allocate. */
static void NORETURN
bad_pointer(const char *what)
{
	static const char pre[] = "smalloc: ";

	(void)!write(2, pre, sizeof(pre) - 1);
	(void)!write(2, what, strlen(what));
	(void)!write(2, "\n", 1);
	abort();
}

static struct hdr *
header(const void *p)
{
	return (struct hdr *)(void *)((unsigned char *)(uintptr_t)p - HDR);
}

static size_t
page_size(void)
{
	static size_t page;

	if (!page) {
		long n = sysconf(_SC_PAGESIZE);

		page = n > 0 ? (size_t)n : 4096;
	}
	return page;
}

/* `n` bytes of fresh memory, 16-aligned, from the arena or a new chunk. */
static void *
carve(size_t n)
{
	void *p;

	if ((size_t)(end - next) < n) {
		size_t len = n > CHUNK ? n : CHUNK;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return NULL;
		/* What is left of the old chunk is given up: a few
		 * kilobytes at most, in a program that lives for moments. */
		next = m;
		end = next + len;
	}
	p = next;
	next += n;
	return p;
}

/* A block in its own mapping, its payload aligned to `align`. */
static void *
large(size_t align, size_t n)
{
	size_t page = page_size(), len, extra = align > HDR ? align : 0;
	unsigned char *base, *payload;
	struct hdr *h;

	if (n > SIZE_MAX - HDR - extra - page) {
		errno = ENOMEM;
		return NULL;
	}
	len = (HDR + extra + n + page - 1) & ~(page - 1);
	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	payload = (unsigned char *)(((uintptr_t)base + HDR + align - 1) &
	    ~(uintptr_t)(align - 1));
	h = header(payload);
	h->magic = MAGIC_LARGE;
	h->cls = (uint32_t)((unsigned char *)h - base);
	h->len = len;
	return payload;
}

void *
smalloc(size_t n)
{
	struct hdr *h;
	unsigned cls = 0;

	if (n > SMALLOC_LARGE)
		return large(HDR, n);
	while ((16u << cls) < n)
		cls++;
	h = free_list[cls];
	if (h) {
		if (h->magic != MAGIC_FREE)
			bad_pointer("a free list is corrupt");
		memcpy(&free_list[cls], h + 1, sizeof(h));
	} else {
		h = carve(HDR + (16u << cls));
		if (!h)
			return NULL;
	}
	h->magic = MAGIC_USED;
	h->cls = cls;
	h->len = 0;
	return h + 1;
}

void
sfree(void *p)
{
	struct hdr *h;

	if (!p)
		return;
	h = header(p);
	switch (h->magic) {
	case MAGIC_USED:
		if (h->cls >= NCLASS)
			bad_pointer("free() of a corrupt block");
		h->magic = MAGIC_FREE;
		memcpy(h + 1, &free_list[h->cls], sizeof(h));
		free_list[h->cls] = h;
		return;
	case MAGIC_LARGE:
		if (munmap((unsigned char *)h - h->cls, h->len) < 0)
			bad_pointer("free() of a corrupt large block");
		return;
	case MAGIC_FREE:
		bad_pointer("free() of a block already freed");
	default:
		bad_pointer("free() of a pointer malloc() did not return");
	}
}

size_t
ssize(const void *p)
{
	const struct hdr *h = header(p);

	switch (h->magic) {
	case MAGIC_USED:
		return (size_t)16 << h->cls;
	case MAGIC_LARGE:
		return h->len - h->cls - HDR;
	default:
		bad_pointer("the size of a pointer malloc() did not return");
	}
}

void *
scalloc(size_t nmemb, size_t size)
{
	size_t n;
	void *p;

	if (__builtin_mul_overflow(nmemb, size, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	p = smalloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

void *
srealloc(void *p, size_t n)
{
	size_t have;
	void *q;

	if (!p)
		return smalloc(n);
	have = ssize(p);
	if (n <= have)
		return p;
	q = smalloc(n);
	if (!q)
		return NULL; /* p stays valid, as realloc promises */
	memcpy(q, p, have);
	sfree(p);
	return q;
}

void *
saligned(size_t align, size_t n)
{
	if (!align || (align & (align - 1)) || align > MAX_ALIGN) {
		errno = EINVAL;
		return NULL;
	}
	if (align <= HDR)
		return smalloc(n);
	return large(align, n);
}
