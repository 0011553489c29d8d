/*
 * compat.h: the first include of every magus source file.  It pulls in the
 * configure results, a few attribute macros, and banned.h last so that no
 * system header can undo it.
 */
#ifndef MAGUS_COMPAT_H
#define MAGUS_COMPAT_H

#include "autoconf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NORETURN __attribute__((noreturn))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define UNUSED __attribute__((unused))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Retry a system call interrupted by a signal. */
#define RETRY_EINTR(expr)                                                      \
	({                                                                     \
		__typeof__(expr) r_;                                           \
		do                                                             \
			r_ = (expr);                                           \
		while (r_ == -1 && errno == EINTR);                            \
		r_;                                                            \
	})

#include "banned.h"

#endif /* MAGUS_COMPAT_H */
