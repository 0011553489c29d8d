/*
 * http.c: the request head and the request body framing, as strict as a
 * proxy in front of a sandbox should be.  What the parser cannot be sure
 * of (folded lines, a bare CR, two Host fields, Content-Length next to
 * Transfer-Encoding, a coding other than chunked) it refuses rather than
 * guesses, because a proxy and a server that frame one request
 * differently are how requests get smuggled past a proxy.
 */
#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <strings.h>

#include "egress.h"
#include "strbuf.h"

size_t
http_head_end(const char *buf, size_t len, size_t *scan)
{
	size_t i;

	for (i = *scan; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 >= len)
			break;
		if (buf[i + 1] == '\n')
			return i + 2;
		if (buf[i + 1] == '\r') {
			if (i + 2 >= len)
				break;
			if (buf[i + 2] == '\n')
				return i + 3;
		}
	}
	*scan = i;
	return 0;
}

const char *
http_reason(int status)
{
	switch (status) {
	case 200: return "Connection established";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "Error";
	}
}

/* RFC 9110's tchar. */
static bool
is_tchar(unsigned char c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool
is_token(const char *p, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!is_tchar((unsigned char)p[i]))
			return false;
	return true;
}

static bool
token_is(const char *p, size_t n, const char *word)
{
	return strlen(word) == n && !strncasecmp(p, word, n);
}

struct line {
	const char *p;
	size_t n;
};

/* The next line of the head, without its CRLF or LF; false at the end. */
static bool
next_line(const char **cur, const char *end, struct line *l, bool *bare_cr)
{
	const char *nl;

	if (*cur >= end)
		return false;
	nl = memchr(*cur, '\n', (size_t)(end - *cur));
	if (!nl)
		return false;
	l->p = *cur;
	l->n = (size_t)(nl - *cur);
	if (l->n && l->p[l->n - 1] == '\r')
		l->n--;
	if (memchr(l->p, '\r', l->n))
		*bare_cr = true;
	*cur = nl + 1;
	return true;
}

static void
trim_ows(const char **p, size_t *n)
{
	while (*n && (**p == ' ' || **p == '\t')) {
		(*p)++;
		(*n)--;
	}
	while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
		(*n)--;
}

static bool
parse_port_text(const char *p, size_t n, unsigned *port)
{
	unsigned v = 0;
	size_t i;

	if (!n || n > 5 || p[0] == '0')
		return false;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)p[i]))
			return false;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (v < 1 || v > 65535)
		return false;
	*port = v;
	return true;
}

/* host[:port] or [v6][:port]; defport 0 means the port is required. */
static bool
parse_authority(const char *s, size_t n, unsigned defport,
    struct http_req *r, const char **why)
{
	char tmp[EG_ADDRSTRLEN + 1];
	const char *host, *portp = NULL;
	size_t hn, pn = 0;

	if (!n) {
		*why = "the target names no host";
		return false;
	}
	if (memchr(s, '@', n)) {
		*why = "user information in the target is not accepted";
		return false;
	}
	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (!close) {
			*why = "no closing ']' in the target's host";
			return false;
		}
		host = s + 1;
		hn = (size_t)(close - host);
		if (close + 1 < s + n) {
			if (close[1] != ':') {
				*why = "expected ':PORT' after ']'";
				return false;
			}
			portp = close + 2;
			pn = (size_t)(s + n - portp);
		}
		if (!hn || hn >= sizeof(tmp) || memchr(host, '%', hn) ||
		    !memchr(host, ':', hn)) {
			*why = "not an IPv6 address between '[' and ']'";
			return false;
		}
		memcpy(tmp, host, hn);
		tmp[hn] = '\0';
		if (!addr_parse(tmp, &r->addr)) {
			*why = "not an IPv6 address between '[' and ']'";
			return false;
		}
		r->host_is_addr = true;
	} else {
		const char *colon = memrchr(s, ':', n);

		host = s;
		hn = colon ? (size_t)(colon - s) : n;
		if (colon) {
			portp = colon + 1;
			pn = (size_t)(s + n - portp);
		}
		if (memchr(host, ':', hn)) {
			*why = "an IPv6 address must be written in brackets";
			return false;
		}
		if (hn && hn < sizeof(tmp)) {
			memcpy(tmp, host, hn);
			tmp[hn] = '\0';
			r->host_is_addr = addr_parse(tmp, &r->addr);
		}
		if (!r->host_is_addr && !host_normalize(host, hn, r->host)) {
			*why = "the target's host is not a valid host name";
			return false;
		}
	}
	if (r->host_is_addr)
		addr_format(&r->addr, r->host, sizeof(r->host));
	if (portp) {
		if (!parse_port_text(portp, pn, &r->port)) {
			*why = "the target's port is not a number from 1 to 65535";
			return false;
		}
	} else if (!defport) {
		*why = "CONNECT needs HOST:PORT";
		return false;
	} else {
		r->port = defport;
	}
	return true;
}

/* Fields a proxy consumes or replaces rather than forwards. */
static const char *const hop_by_hop[] = {
	"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
	"proxy-authorization", "te", "upgrade", "host", NULL,
};

#define MAX_FIELDS 128
#define MAX_CONN_TOKENS 32

struct field {
	const char *name, *value;
	size_t nn, vn;
};

#define FAIL(status, text)                                                     \
	do {                                                                   \
		*why = (text);                                                 \
		return (status);                                               \
	} while (0)

int
http_parse_head(const char *buf, size_t len, struct http_req *r,
    struct strbuf *out, const char **why)
{
	struct field f[MAX_FIELDS];
	struct line conn_tok[MAX_CONN_TOKENS];
	const char *cur = buf, *end = buf + len, *sp1, *sp2, *target;
	const char *auth, *path;
	size_t nf = 0, ntok = 0, i, tn, an, pn, vn;
	unsigned hosts = 0, tes = 0;
	bool bare_cr = false, te_chunked = true, cl_set = false, v10;
	struct line l;

	memset(r, 0, sizeof(*r));
	do {
		if (!next_line(&cur, end, &l, &bare_cr))
			FAIL(400, "no request line");
	} while (!l.n && !bare_cr);
	if (bare_cr)
		FAIL(400, "a bare CR in the request line");

	/* method SP request-target SP HTTP-version */
	sp1 = memchr(l.p, ' ', l.n);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(l.p + l.n - sp1 - 1)) : NULL;
	if (!sp1 || !sp2)
		FAIL(400, "the request line is not METHOD TARGET VERSION");
	if (!is_token(l.p, (size_t)(sp1 - l.p)) ||
	    (size_t)(sp1 - l.p) >= sizeof(r->method))
		FAIL(400, "the method is not a token");
	memcpy(r->method, l.p, (size_t)(sp1 - l.p));
	target = sp1 + 1;
	tn = (size_t)(sp2 - target);
	if (!tn)
		FAIL(400, "the request target is empty");
	for (i = 0; i < tn; i++)
		if ((unsigned char)target[i] <= 0x20 ||
		    (unsigned char)target[i] >= 0x7f)
			FAIL(400, "the request target has a character "
			    "outside visible ASCII");
	vn = (size_t)(l.p + l.n - sp2 - 1);
	if (token_is(sp2 + 1, vn, "HTTP/1.1"))
		v10 = false;
	else if (token_is(sp2 + 1, vn, "HTTP/1.0"))
		v10 = true;
	else
		FAIL(400, "the protocol version is not HTTP/1.1 or HTTP/1.0");

	r->connect = !strcmp(r->method, "CONNECT");
	if (r->connect) {
		if (!parse_authority(target, tn, 0, r, why))
			return 400;
		auth = path = NULL;
		an = pn = 0;
	} else {
		if (tn >= 8 && !strncasecmp(target, "https://", 8))
			FAIL(400, "an https URL is reached with CONNECT, "
			    "not through the proxy in the clear");
		if (tn < 7 || strncasecmp(target, "http://", 7))
			FAIL(400, "the target is not an absolute http:// URL, "
			    "as a proxy request must be");
		if (memchr(target, '#', tn))
			FAIL(400, "the request target has a fragment");
		auth = target + 7;
		an = strcspn(auth, "/? ");
		if (an > (size_t)(sp2 - auth))
			an = (size_t)(sp2 - auth);
		if (!parse_authority(auth, an, 80, r, why))
			return 400;
		path = auth + an;
		pn = (size_t)(sp2 - path);
	}

	/* The fields. */
	while (next_line(&cur, end, &l, &bare_cr)) {
		const char *colon, *v;
		size_t nn, n;

		if (bare_cr)
			FAIL(400, "a bare CR in a header field");
		if (!l.n)
			break;
		if (l.p[0] == ' ' || l.p[0] == '\t')
			FAIL(400, "folded header lines are not accepted");
		colon = memchr(l.p, ':', l.n);
		if (!colon || !is_token(l.p, (size_t)(colon - l.p)))
			FAIL(400, "a header field name is not a token");
		nn = (size_t)(colon - l.p);
		v = colon + 1;
		n = (size_t)(l.p + l.n - v);
		trim_ows(&v, &n);
		for (i = 0; i < n; i++) {
			unsigned char c = (unsigned char)v[i];

			if ((c < 0x20 && c != '\t') || c == 0x7f)
				FAIL(400, "a control character in a header "
				    "field value");
		}
		if (nf == MAX_FIELDS)
			FAIL(431, "more than 128 header fields");
		f[nf].name = l.p;
		f[nf].nn = nn;
		f[nf].value = v;
		f[nf].vn = n;
		nf++;

		if (token_is(l.p, nn, "host")) {
			hosts++;
		} else if (token_is(l.p, nn, "content-length")) {
			uint64_t cl = 0;

			if (!n || n > 18 || strspn(v, "0123456789") < n)
				FAIL(400, "Content-Length is not a number");
			for (i = 0; i < n; i++)
				cl = cl * 10 + (uint64_t)(v[i] - '0');
			if (cl_set && cl != r->content_length)
				FAIL(400, "two different Content-Length values");
			cl_set = true;
			r->content_length = cl;
		} else if (token_is(l.p, nn, "transfer-encoding")) {
			tes++;
			if (!token_is(v, n, "chunked"))
				te_chunked = false;
		} else if (token_is(l.p, nn, "connection")) {
			const char *t = v, *e = v + n;

			while (t < e) {
				const char *comma = memchr(t, ',', (size_t)(e - t));
				const char *tp = t;
				size_t tl = (size_t)((comma ? comma : e) - t);

				trim_ows(&tp, &tl);
				if (tl && !is_token(tp, tl))
					FAIL(400, "the Connection field is "
					    "not a list of tokens");
				if (tl) {
					if (ntok == MAX_CONN_TOKENS)
						FAIL(400, "too many Connection "
						    "options");
					conn_tok[ntok].p = tp;
					conn_tok[ntok++].n = tl;
				}
				t = comma ? comma + 1 : e;
			}
		}
	}
	if (!l.n && cur != end)
		FAIL(400, "bytes after the head");
	if (hosts > 1)
		FAIL(400, "more than one Host field");
	if (r->connect) {
		r->body = BODY_NONE;
		return 0;
	}
	if (tes) {
		if (cl_set)
			FAIL(400, "both Content-Length and Transfer-Encoding");
		if (v10)
			FAIL(400, "Transfer-Encoding in an HTTP/1.0 request");
		if (tes > 1 || !te_chunked)
			FAIL(501, "a transfer coding other than chunked");
		r->body = BODY_CHUNKED;
	} else if (cl_set && r->content_length) {
		r->body = BODY_LENGTH;
	} else {
		r->body = BODY_NONE;
	}

	/* The head for the origin server, in RFC 9112's origin-form. */
	strbuf_addf(out, "%s %s%.*s HTTP/1.1\r\n", r->method,
	    (!pn || path[0] == '?') ? "/" : "", (int)pn, path);
	strbuf_addf(out, "Host: %.*s\r\n", (int)an, auth);
	for (i = 0; i < nf; i++) {
		const char *const *h;
		size_t k;
		bool skip = false;

		for (h = hop_by_hop; *h && !skip; h++)
			skip = token_is(f[i].name, f[i].nn, *h);
		for (k = 0; k < ntok && !skip; k++)
			skip = f[i].nn == conn_tok[k].n &&
			    !strncasecmp(f[i].name, conn_tok[k].p, f[i].nn);
		if (skip)
			continue;
		strbuf_add(out, f[i].name, f[i].nn);
		strbuf_addstr(out, ": ");
		strbuf_add(out, f[i].value, f[i].vn);
		strbuf_addstr(out, "\r\n");
	}
	strbuf_addstr(out, "Connection: close\r\n\r\n");
	return 0;
}

/* ---- request bodies ------------------------------------------------- */

enum {
	CK_SIZE,	/* the first hex digit of a chunk size */
	CK_SIZE_MORE,	/* more digits, an extension, or CR */
	CK_EXT,		/* a chunk extension, up to CR */
	CK_SIZE_LF,
	CK_DATA,
	CK_DATA_CR,
	CK_DATA_LF,
	CK_TRAILER,	/* the start of a trailer line, or the final CRLF */
	CK_TRAILER_LINE,
	CK_TRAILER_LF,
	CK_END_LF,
};

void
body_init(struct body *b, enum body_kind kind, uint64_t length)
{
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->remain = kind == BODY_LENGTH ? length : 0;
	b->state = CK_SIZE;
	b->done = kind == BODY_NONE || (kind == BODY_LENGTH && !length);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

ssize_t
body_feed(struct body *b, const char *p, size_t n)
{
	size_t i = 0;

	if (b->done)
		return 0;
	if (b->kind == BODY_LENGTH) {
		size_t take = n < b->remain ? n : (size_t)b->remain;

		b->remain -= take;
		b->done = !b->remain;
		return (ssize_t)take;
	}
	while (i < n && !b->done) {
		char c = p[i];
		int h;

		switch (b->state) {
		case CK_DATA: {
			size_t take = n - i < b->remain ? n - i :
			    (size_t)b->remain;

			b->remain -= take;
			i += take;
			if (!b->remain)
				b->state = CK_DATA_CR;
			continue;
		}
		case CK_SIZE:
		case CK_SIZE_MORE:
			h = hexval(c);
			if (h >= 0) {
				/* 15 hex digits: far beyond any real body. */
				if (++b->digits > 15)
					return -1;
				b->remain = b->remain * 16 + (uint64_t)h;
				b->state = CK_SIZE_MORE;
			} else if (b->state == CK_SIZE_MORE &&
			    (c == ';' || c == ' ' || c == '\t')) {
				b->state = CK_EXT;
			} else if (b->state == CK_SIZE_MORE && c == '\r') {
				b->state = CK_SIZE_LF;
			} else {
				return -1;
			}
			break;
		case CK_EXT:
			if (c == '\r')
				b->state = CK_SIZE_LF;
			else if (c == '\n' || (c < 0x20 && c != '\t') ||
			    c == 0x7f)
				return -1;
			break;
		case CK_SIZE_LF:
			if (c != '\n')
				return -1;
			b->digits = 0;
			b->state = b->remain ? CK_DATA : CK_TRAILER;
			break;
		case CK_DATA_CR:
			if (c != '\r')
				return -1;
			b->state = CK_DATA_LF;
			break;
		case CK_DATA_LF:
			if (c != '\n')
				return -1;
			b->state = CK_SIZE;
			break;
		case CK_TRAILER:
			b->state = c == '\r' ? CK_END_LF : CK_TRAILER_LINE;
			if (c == '\n')
				return -1;
			break;
		case CK_TRAILER_LINE:
			if (c == '\r')
				b->state = CK_TRAILER_LF;
			else if (c == '\n')
				return -1;
			break;
		case CK_TRAILER_LF:
			if (c != '\n')
				return -1;
			b->state = CK_TRAILER;
			break;
		case CK_END_LF:
			if (c != '\n')
				return -1;
			b->done = true;
			break;
		default:
			return -1;
		}
		i++;
	}
	return (ssize_t)i;
}
