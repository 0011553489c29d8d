/*
 * smalloc.h: a small allocator for a short-lived, single-threaded
 * program that starts often.
 *
 * magus-sandbox-exec runs before every sandboxed command, and under
 * musl most of what it allocated came from a fresh mapping: musl's
 * malloc maps and unmaps memory as its size classes first fill, and in a
 * guest where each page-table change traps to the hypervisor those calls
 * cost more than all of the rest of its start.  smalloc hands blocks out
 * of one static arena (part of the program's bss, which exec maps for
 * free), keeps freed blocks on one list per size class for reuse, and
 * falls back to mmap only once the arena is spent or for a block over
 * SMALLOC_LARGE bytes (each such block its own mapping, unmapped when
 * freed).
 *
 * No locking: it serves a program with one thread.  A pointer it did not
 * hand out, or one freed twice, aborts the program rather than corrupt
 * the lists.
 *
 * smalloc-libc.c makes these the program's malloc, free, calloc,
 * realloc, and the aligned forms; only magus-sandbox-exec's static musl
 * build links it.  tests/unit/test-smalloc.c tests this interface
 * directly.
 */
#ifndef MAGUS_SMALLOC_H
#define MAGUS_SMALLOC_H

#include <stddef.h>

/* Blocks up to this many bytes come from the arena's size classes. */
#define SMALLOC_LARGE 4096

void *smalloc(size_t n);
void sfree(void *p);
void *scalloc(size_t nmemb, size_t size);
void *srealloc(void *p, size_t n);
/* `align` a power of two; EINVAL (NULL) otherwise. */
void *saligned(size_t align, size_t n);
/* How many bytes the block at `p` can hold (at least what was asked). */
size_t ssize(const void *p);

#endif /* MAGUS_SMALLOC_H */
