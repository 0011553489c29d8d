/*
 * test-smalloc: lib/smalloc.c, the allocator magus-sandbox-exec's musl
 * build uses as its malloc, in TAP.  Every block usable and apart from
 * every other, freed blocks reused, the arena outgrown into mappings,
 * large and aligned blocks, realloc and calloc's promises, and a double
 * or foreign free stopping the program.
 */
#include "compat.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "smalloc.h"
#include "tap.h"

#define NBLOCK 600

static int
aligned(const void *p, size_t a)
{
	return ((uintptr_t)p & (a - 1)) == 0;
}

/* Each block filled with its own byte, then all read back: no block
 * overlaps another or lies outside what ssize() says it holds. */
static void
test_blocks_apart(void)
{
	static unsigned char *b[NBLOCK];
	static size_t n[NBLOCK];
	size_t i, j, total = 0, small = 0;
	int good = 1, al = 1, fit = 1;
	unsigned seed = 7;

	for (i = 0; i < NBLOCK; i++) {
		seed = seed * 1103515245u + 12345u;
		/* Mostly small, some over SMALLOC_LARGE, some of size 0. */
		n[i] = i % 50 == 0 ? 0 : (seed >> 8) % (i % 7 ? 700 : 9000);
		b[i] = smalloc(n[i]);
		if (!b[i]) {
			good = 0;
			break;
		}
		al &= aligned(b[i], 16);
		fit &= ssize(b[i]) >= n[i];
		memset(b[i], (int)(i & 0xff), n[i]);
		total += n[i];
		if (n[i] <= SMALLOC_LARGE)
			small += n[i];
	}
	ok(good, "%d blocks, %zu bytes in all (more than the arena)",
	    NBLOCK, total);
	ok(small > (128u << 10), "the small ones alone outgrow the static "
	    "arena (%zu bytes)", small);
	ok(al, "every block 16-aligned");
	ok(fit, "every block holds at least what was asked");
	for (i = 0; good && i < NBLOCK; i++)
		for (j = 0; j < n[i]; j++)
			if (b[i][j] != (unsigned char)(i & 0xff))
				good = 0;
	ok(good, "no block was written through another");
	for (i = 0; i < NBLOCK; i++)
		sfree(b[i]);
}

static void
test_reuse(void)
{
	void *a = smalloc(100), *b;

	sfree(a);
	b = smalloc(120);
	ok(a == b, "a freed block is handed out again for its size class");
	sfree(b);
	b = smalloc(20);
	ok(a != b, "but not for another class");
	sfree(b);
	sfree(NULL);
	ok(1, "free(NULL) does nothing");
}

static void
test_realloc(void)
{
	char *p = srealloc(NULL, 10), *q;
	size_t i;
	int same = 1;

	ok(p != NULL, "realloc(NULL, n) allocates");
	memcpy(p, "abcdefghi", 10);
	q = srealloc(p, 8);
	ok(q == p, "shrinking keeps the block");
	p = srealloc(q, 10000);
	ok(p && !strcmp(p, "abcdefghi"), "growing into a large block keeps "
	    "the bytes");
	for (i = 10; i < 10000; i++)
		p[i] = (char)i;
	q = srealloc(p, 70000);
	for (i = 10; q && i < 10000; i++)
		same &= q[i] == (char)i;
	ok(q && same && !strcmp(q, "abcdefghi"), "large to larger keeps "
	    "them too");
	errno = 0;
	p = srealloc(q, SIZE_MAX - 8);
	ok(!p && errno == ENOMEM && !strcmp(q, "abcdefghi"), "a request "
	    "too big fails with ENOMEM and leaves the block as it was");
	sfree(q);
}

static void
test_calloc(void)
{
	unsigned char *p = smalloc(200), *q;
	size_t i;
	int zero = 1;

	memset(p, 0xff, 200);
	sfree(p);
	q = scalloc(25, 8);
	ok(q == p, "calloc reuses the dirty block");
	for (i = 0; i < 200; i++)
		zero &= q[i] == 0;
	ok(zero, "and clears it");
	sfree(q);
	errno = 0;
	ok(!scalloc(SIZE_MAX / 2, 3) && errno == ENOMEM,
	    "calloc's overflowing product is ENOMEM");
}

static void
test_aligned(void)
{
	static const size_t al[] = { 1, 16, 32, 64, 4096, 65536 };
	size_t i;
	void *p;

	for (i = 0; i < ARRAY_SIZE(al); i++) {
		p = saligned(al[i], 100);
		ok(p && aligned(p, al[i]) && ssize(p) >= 100,
		    "aligned to %zu", al[i]);
		if (p)
			memset(p, 1, 100);
		sfree(p);
	}
	errno = 0;
	ok(!saligned(48, 10) && errno == EINVAL, "48 is no alignment");
	errno = 0;
	ok(!saligned(0, 10) && errno == EINVAL, "nor is 0");
}

/* Run `what` in a child; true when it died of SIGABRT. */
static int
aborts(void (*what)(void))
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 0;
	if (pid == 0) {
		/* The message goes to stderr: keep the TAP stream clean. */
		what();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void
free_twice(void)
{
	void *p = smalloc(30);

	sfree(p);
	sfree(p);
}

static void
free_foreign(void)
{
	static _Alignas(16) unsigned char not_ours[64];

	sfree(not_ours + 32);
}

static void
use_rightly(void)
{
	void *p = smalloc(100000), *q = smalloc(30);

	sfree(p);
	sfree(q);
	sfree(smalloc(30));
}

static void
test_misuse(void)
{
	ok(aborts(free_twice), "a double free stops the program");
	ok(aborts(free_foreign), "a pointer malloc did not return stops it");
	ok(!aborts(use_rightly), "(the control: the same calls used rightly "
	    "do not)");
}

int
main(void)
{
	test_blocks_apart();
	test_reuse();
	test_realloc();
	test_calloc();
	test_aligned();
	test_misuse();
	return done_testing();
}
