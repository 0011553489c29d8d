#include "compat.h"

#include <errno.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "engine-proto.h"
#include "strbuf.h"
#include "strutil.h"

/* ---- the socket URL ------------------------------------------------- */

size_t
engine_sun_path_max(void)
{
	struct sockaddr_un sa;

	return sizeof(sa.sun_path) - 1;
}

/*
 * A URL as it may be printed: user information ("user:password@") is
 * masked, since a mistyped http:// URL may carry a password.
 */
static void
url_for_message(struct strbuf *out, const char *url)
{
	const char *sep = strstr(url, "://"), *host, *at, *slash;

	if (!sep) {
		strbuf_addstr(out, url);
		return;
	}
	host = sep + 3;
	slash = strchr(host, '/');
	at = strchr(host, '@');
	if (at && (!slash || at < slash)) {
		strbuf_add(out, url, (size_t)(host - url));
		strbuf_addstr(out, "***");
		strbuf_addstr(out, at);
		return;
	}
	strbuf_addstr(out, url);
}

int
engine_url_socket(const char *url, struct strbuf *path, struct strbuf *msg)
{
	struct strbuf shown = STRBUF_INIT;
	const char *p, *sep;
	size_t n, max = engine_sun_path_max();
	int code = 0;

	if (!url || !*url) {
		strbuf_addstr(msg, "the container API URL is empty");
		return 3001;
	}
	url_for_message(&shown, url);
	if (!starts_with(url, "unix://")) {
		sep = strstr(url, "://");
		if (sep)
			strbuf_addf(msg, "container API '%s' refused: the "
			    "'%.*s' scheme is not spoken, only unix:// "
			    "sockets are", shown.buf,
			    (int)(sep - url), url);
		else if (url[0] == '/')
			strbuf_addf(msg, "container API '%s' refused: write "
			    "a socket path as unix://%s", shown.buf,
			    shown.buf);
		else
			strbuf_addf(msg, "container API '%s' refused: not "
			    "a unix:// URL", shown.buf);
		code = 3001;
		goto out;
	}
	p = url + strlen("unix://");
	if (p[0] != '/') {
		strbuf_addf(msg, "container API '%s' refused: the socket "
		    "path must be absolute, as in unix:///run/podman/"
		    "podman.sock", shown.buf);
		code = 3001;
		goto out;
	}
	n = strlen(p);
	if (n > max) {
		strbuf_addf(msg, "socket path '%s' is %zu bytes, longer than "
		    "the %zu a unix socket address holds on this system",
		    p, n, max);
		code = 3003;
		goto out;
	}
	strbuf_reset(path);
	strbuf_add(path, p, n);
out:
	strbuf_release(&shown);
	return code;
}

/* ---- API versions --------------------------------------------------- */

int
engine_api_parse(const char *s)
{
	long major = 0, minor = 0;
	int digits;

	if (!s)
		return -1;
	for (digits = 0; *s >= '0' && *s <= '9'; s++, digits++)
		if ((major = major * 10 + (*s - '0')) > 999)
			return -1;
	if (!digits || *s++ != '.')
		return -1;
	for (digits = 0; *s >= '0' && *s <= '9'; s++, digits++)
		if ((minor = minor * 10 + (*s - '0')) > 999)
			return -1;
	if (!digits || *s)
		return -1;
	return (int)(major * 1000 + minor);
}

void
engine_api_format(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d", v / 1000, v % 1000);
}

/* ---- timestamps ------------------------------------------------------ */

/* `n` decimal digits at *s, advancing it; -1 when they are not there. */
static int
digits(const char **s, int n)
{
	int v = 0;

	for (; n > 0; n--, (*s)++) {
		if (**s < '0' || **s > '9')
			return -1;
		v = v * 10 + (**s - '0');
	}
	return v;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static long long
days_from_civil(long long y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int
engine_time_parse(const char *s, long long *out)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
		30, 31 };
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0, leap;

	if (!s)
		return -1;
	if ((y = digits(&s, 4)) < 0 || *s++ != '-' ||
	    (mo = digits(&s, 2)) < 1 || mo > 12 || *s++ != '-' ||
	    (d = digits(&s, 2)) < 1)
		return -1;
	leap = mo == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
	if (d > mdays[mo - 1] + leap || (*s != 'T' && *s != 't'))
		return -1;
	s++;
	if ((h = digits(&s, 2)) < 0 || h > 23 || *s++ != ':' ||
	    (mi = digits(&s, 2)) < 0 || mi > 59 || *s++ != ':' ||
	    (sec = digits(&s, 2)) < 0 || sec > 60)
		return -1;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s++ == '-' ? -1 : 1;
		if ((oh = digits(&s, 2)) < 0 || oh > 23 || *s++ != ':' ||
		    (om = digits(&s, 2)) < 0 || om > 59)
			return -1;
	} else {
		return -1;
	}
	if (*s)
		return -1;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
	    sign * (oh * 3600 + om * 60);
	return 0;
}

/* ---- the attach stream's 8-byte frames ------------------------------ */

void
engine_demux_init(struct engine_demux *d, bool tty)
{
	memset(d, 0, sizeof(*d));
	d->tty = tty;
}

bool
engine_demux_at_boundary(const struct engine_demux *d)
{
	return d->tty || (d->hdr_len == 0 && d->left == 0);
}

int
engine_demux_feed(struct engine_demux *d, const void *buf, size_t len,
    engine_sink_fn sink, void *ctx)
{
	const unsigned char *p = buf;
	size_t take;
	int r;

	if (d->tty)
		return len ? sink(ctx, ENGINE_STDOUT, buf, len) : 0;
	while (len) {
		if (d->left == 0) {
			take = sizeof(d->hdr) - d->hdr_len;
			if (take > len)
				take = len;
			memcpy(d->hdr + d->hdr_len, p, take);
			d->hdr_len += (unsigned)take;
			p += take;
			len -= take;
			if (d->hdr_len < sizeof(d->hdr))
				break;
			if (d->hdr[0] > ENGINE_SYSERR || d->hdr[1] ||
			    d->hdr[2] || d->hdr[3]) {
				errno = EPROTO;
				return -1;
			}
			d->stream = d->hdr[0];
			d->left = (uint32_t)d->hdr[4] << 24 |
			    (uint32_t)d->hdr[5] << 16 |
			    (uint32_t)d->hdr[6] << 8 | (uint32_t)d->hdr[7];
			d->hdr_len = 0;
			d->frames++;
			continue;
		}
		take = d->left < len ? d->left : len;
		d->left -= (uint32_t)take;
		r = sink(ctx, d->stream, (const char *)p, take);
		if (r)
			return r;
		p += take;
		len -= take;
	}
	return 0;
}

/* ---- an HTTP/1.1 response head -------------------------------------- */

/* Does the comma-separated header value hold `token`? */
static bool
has_token(const char *v, size_t n, const char *token)
{
	size_t tl = strlen(token), i = 0, s, e;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == tl && !strncasecmp(v + s, token, tl))
			return true;
	}
	return false;
}

static bool
name_is(const char *name, size_t n, const char *want)
{
	return strlen(want) == n && !strncasecmp(name, want, n);
}

ssize_t
http_head_parse(const char *buf, size_t len, struct http_head *h)
{
	const char *end = NULL, *line, *eol, *colon, *v;
	size_t i, scan = len < HTTP_HEAD_MAX ? len : HTTP_HEAD_MAX, vn;
	long long cl;

	for (i = 3; i < scan; i++)
		if (buf[i] == '\n' && buf[i - 1] == '\r' &&
		    buf[i - 2] == '\n' && buf[i - 3] == '\r') {
			end = buf + i + 1;
			break;
		}
	if (!end) {
		/* Too large, or already not an HTTP response. */
		if (len >= HTTP_HEAD_MAX ||
		    (len >= 5 && memcmp(buf, "HTTP/", 5)) ||
		    (len < 5 && memcmp(buf, "HTTP/", len))) {
			errno = EPROTO;
			return -1;
		}
		return 0;
	}
	memset(h, 0, sizeof(*h));
	h->content_length = -1;

	/* "HTTP/1.1 200 OK" */
	eol = memchr(buf, '\r', (size_t)(end - buf));
	if (!eol || eol - buf < 12 || memcmp(buf, "HTTP/1.", 7) ||
	    (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ')
		goto bad;
	for (i = 9; i < 12; i++)
		if (buf[i] < '0' || buf[i] > '9')
			goto bad;
	h->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 +
	    (buf[11] - '0');
	if (eol - buf > 12) {
		if (buf[12] != ' ')
			goto bad;
		copy_truncated(h->reason, sizeof(h->reason), buf + 13,
		    (size_t)(eol - buf - 13));
	}

	for (line = eol + 2; line < end - 2; line = eol + 2) {
		eol = memchr(line, '\r', (size_t)(end - line));
		if (!eol || eol[1] != '\n')
			goto bad;
		colon = memchr(line, ':', (size_t)(eol - line));
		if (!colon || colon == line || line[0] == ' ' ||
		    line[0] == '\t')
			goto bad;	/* no name, or an obsolete fold */
		v = colon + 1;
		while (v < eol && (*v == ' ' || *v == '\t'))
			v++;
		vn = (size_t)(eol - v);
		while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
			vn--;
		if (name_is(line, (size_t)(colon - line), "content-length")) {
			cl = 0;
			if (!vn)
				goto bad;
			for (i = 0; i < vn; i++) {
				if (v[i] < '0' || v[i] > '9' ||
				    cl > (1LL << 50))
					goto bad;
				cl = cl * 10 + (v[i] - '0');
			}
			if (h->content_length >= 0 && h->content_length != cl)
				goto bad;
			h->content_length = cl;
		} else if (name_is(line, (size_t)(colon - line),
		    "transfer-encoding")) {
			if (has_token(v, vn, "chunked"))
				h->chunked = true;
		} else if (name_is(line, (size_t)(colon - line),
		    "connection")) {
			if (has_token(v, vn, "close"))
				h->close = true;
			if (has_token(v, vn, "upgrade"))
				h->upgrade = true;
		} else if (name_is(line, (size_t)(colon - line),
		    "content-type")) {
			copy_truncated(h->content_type, sizeof(h->content_type),
			    v, vn);
		} else if (name_is(line, (size_t)(colon - line),
		    "api-version")) {
			copy_truncated(h->api_version, sizeof(h->api_version),
			    v, vn);
		}
	}
	/* A chunked body's length comes from the chunks (RFC 9112 6.3). */
	if (h->chunked)
		h->content_length = -1;
	return end - buf;
bad:
	errno = EPROTO;
	return -1;
}

/* ---- chunked transfer coding ----------------------------------------- */

enum {
	CH_SIZE,	/* hex digits of a chunk size */
	CH_EXT,		/* a chunk extension, skipped to the line's end */
	CH_SIZE_LF,	/* the '\n' after the size line's '\r' */
	CH_DATA,
	CH_DATA_CR,	/* the CRLF after a chunk's data */
	CH_DATA_LF,
	CH_TRAILER,	/* trailer lines after the last chunk */
	CH_DONE,
};

void
http_chunked_init(struct http_chunked *c)
{
	memset(c, 0, sizeof(*c));
	c->state = CH_SIZE;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The size line has ended: data follows, or the trailer. */
static void
chunk_size_done(struct http_chunked *c)
{
	c->digits = 0;
	c->line = 0;
	c->state = c->left ? CH_DATA : CH_TRAILER;
}

int
http_chunked_feed(struct http_chunked *c, const char *in, size_t len,
    struct strbuf *out, size_t *used)
{
	size_t i = 0, take;
	int h;

	while (i < len && c->state != CH_DONE) {
		char ch = in[i];

		switch (c->state) {
		case CH_SIZE:
			h = hexval(ch);
			if (h >= 0) {
				/* 15 hex digits are a petabyte: enough. */
				if (++c->digits > 15)
					goto bad;
				c->left = c->left * 16 + (uint64_t)h;
			} else if (c->digits &&
			    (ch == ';' || ch == ' ' || ch == '\t')) {
				c->state = CH_EXT;
			} else if (c->digits && ch == '\r') {
				c->state = CH_SIZE_LF;
			} else {
				goto bad;
			}
			i++;
			break;
		case CH_EXT:
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if (ch == '\n')
				goto bad;
			i++;
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				goto bad;
			chunk_size_done(c);
			i++;
			break;
		case CH_DATA:
			take = len - i;
			if (take > c->left)
				take = (size_t)c->left;
			strbuf_add(out, in + i, take);
			c->left -= take;
			i += take;
			if (!c->left)
				c->state = CH_DATA_CR;
			break;
		case CH_DATA_CR:
			if (ch != '\r')
				goto bad;
			c->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				goto bad;
			c->state = CH_SIZE;
			i++;
			break;
		case CH_TRAILER:
			if (ch == '\n') {
				if (c->line == 0)
					c->state = CH_DONE;
				c->line = 0;
			} else if (ch != '\r') {
				if (++c->line > HTTP_HEAD_MAX)
					goto bad;
			}
			i++;
			break;
		default:
			goto bad;
		}
	}
	*used = i;
	return c->state == CH_DONE;
bad:
	*used = i;
	errno = EPROTO;
	return -1;
}

/* ---- a stream of JSON values ----------------------------------------- */

void
json_stream_init(struct json_stream *s)
{
	memset(s, 0, sizeof(*s));
	strbuf_init(&s->buf, 0);
}

void
json_stream_release(struct json_stream *s)
{
	strbuf_release(&s->buf);
	memset(s, 0, sizeof(*s));
}

bool
json_stream_idle(const struct json_stream *s)
{
	return s->depth == 0 && s->buf.len == 0;
}

int
json_stream_feed(struct json_stream *s, const char *in, size_t len,
    json_value_fn fn, void *ctx)
{
	size_t i, start = 0;
	int r;

	for (i = 0; i < len; i++) {
		char c = in[i];

		if (s->depth == 0) {
			if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
				continue;
			if (c != '{' && c != '[') {
				errno = EPROTO;
				return -1;
			}
			start = i;
			s->depth = 1;
			continue;
		}
		if (s->in_string) {
			if (s->escaped)
				s->escaped = false;
			else if (c == '\\')
				s->escaped = true;
			else if (c == '"')
				s->in_string = false;
			continue;
		}
		if (c == '"') {
			s->in_string = true;
		} else if (c == '{' || c == '[') {
			s->depth++;
		} else if (c == '}' || c == ']') {
			if (--s->depth == 0) {
				strbuf_add(&s->buf, in + start, i + 1 - start);
				r = fn(ctx, s->buf.buf, s->buf.len);
				strbuf_reset(&s->buf);
				if (r)
					return r;
			}
		}
	}
	if (s->depth) {
		strbuf_add(&s->buf, in + start, len - start);
		if (s->buf.len > JSON_STREAM_MAX) {
			errno = EPROTO;
			return -1;
		}
	}
	return 0;
}

/* ---- URL pieces ----------------------------------------------------- */

void
url_escape(struct strbuf *out, const char *s, bool keep_path)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~' ||
		    (keep_path && (c == '/' || c == ':' || c == '@'))) {
			strbuf_addch(out, c);
		} else {
			strbuf_addch(out, '%');
			strbuf_addch(out, hex[c >> 4]);
			strbuf_addch(out, hex[c & 15]);
		}
	}
}

void
engine_clean_text(struct strbuf *out, const char *s, size_t len, size_t max)
{
	size_t i, keep = out->len;
	bool cut = false;

	if (len > max) {
		len = max;
		/* Back off to a UTF-8 character boundary. */
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
		cut = true;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n' || c == '\r' || c == '\t')
			strbuf_addch(out, ' ');
		else if (c < 0x20 || c == 0x7f)
			strbuf_addch(out, '?');
		else
			strbuf_addch(out, c);
	}
	while (out->len > keep && out->buf[out->len - 1] == ' ')
		strbuf_setlen(out, out->len - 1);
	if (cut)
		strbuf_addstr(out, "...");
}
