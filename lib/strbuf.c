#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "strbuf.h"
#include "xalloc.h"

char strbuf_empty_[1];

void
strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = 0;
	sb->len = 0;
	sb->buf = strbuf_empty_;
	if (hint)
		strbuf_grow(sb, hint);
}

void
strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *
strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	if (len)
		*len = sb->len;
	p = sb->alloc ? sb->buf : xstrdup("");
	strbuf_init(sb, 0);
	return p;
}

void
strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want;

	if (extra > (size_t)-1 - sb->len - 1)
		want = (size_t)-1; /* xreallocarray reports the failure */
	else
		want = sb->len + extra + 1;
	if (want <= sb->alloc)
		return;
	if (!sb->alloc)
		sb->buf = NULL;
	if (want < sb->alloc * 2)
		want = sb->alloc * 2;
	if (want < 64)
		want = 64;
	sb->buf = xreallocarray(sb->buf, want, 1);
	if (!sb->alloc)
		sb->buf[0] = '\0';
	sb->alloc = want;
}

void
strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc) {
		/* Only an empty buffer can be unallocated. */
		return;
	}
	if (len < sb->alloc) {
		sb->len = len;
		sb->buf[len] = '\0';
	}
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!len)
		return;
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void
strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	strbuf_grow(sb, 64);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
		if (n < 0)
			return;
	}
	sb->len += (size_t)n;
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void
strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

ssize_t
strbuf_read_fd(struct strbuf *sb, int fd)
{
	size_t start = sb->len, had = sb->alloc;
	ssize_t n;

	for (;;) {
		strbuf_grow(sb, 8192);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			int saved = errno;

			if (saved == EINTR)
				continue;
			/* A failed read leaves sb as it was: what it held,
			 * and no memory it did not own before. */
			if (!had) {
				strbuf_release(sb);
			} else {
				sb->len = start;
				sb->buf[start] = '\0';
			}
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
	}
	sb->buf[sb->len] = '\0';
	return (ssize_t)(sb->len - start);
}

ssize_t
strbuf_read_file(struct strbuf *sb, const char *path)
{
	int fd, saved;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	n = strbuf_read_fd(sb, fd);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}
