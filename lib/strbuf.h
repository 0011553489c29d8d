/*
 * strbuf.h: a growable, always NUL-terminated byte buffer.
 *
 *	struct strbuf sb = STRBUF_INIT;
 *	strbuf_addf(&sb, "%s=%d", name, n);
 *	puts(sb.buf);
 *	strbuf_release(&sb);
 *
 * `buf` is never NULL: an empty strbuf points at a shared "" until the first
 * addition.  `len` counts the bytes before the terminating NUL, which may
 * itself contain NULs when binary data was added.  Growth goes through
 * xalloc, so additions never fail.
 */
#ifndef MAGUS_STRBUF_H
#define MAGUS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_empty_[];
#define STRBUF_INIT { 0, 0, strbuf_empty_ }

void strbuf_init(struct strbuf *sb, size_t hint);
/* Free the memory and reset sb to empty; sb may be reused afterwards. */
void strbuf_release(struct strbuf *sb);
/* Hand the buffer to the caller (who frees it) and reset sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
/* Make room for at least `extra` more bytes. */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Remove trailing whitespace. */
void strbuf_rtrim(struct strbuf *sb);

/*
 * Append the whole content of fd (until EOF) to sb.  Returns the number of
 * bytes read, or -1 with errno set; on error sb is left as it was (and an
 * empty sb owns no memory).
 */
ssize_t strbuf_read_fd(struct strbuf *sb, int fd);
/* Read a whole file; -1 with errno set on failure.  Opened O_CLOEXEC. */
ssize_t strbuf_read_file(struct strbuf *sb, const char *path);

#endif /* MAGUS_STRBUF_H */
