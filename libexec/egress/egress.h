/*
 * egress.h: the parts of magus-egress that make decisions without doing
 * any input or output, so the unit tests can drive them directly.
 *
 * The allowlist (allow.c):
 *
 *	struct allowlist al = ALLOWLIST_INIT;
 *	if ((why = allow_add(&al, "*.example.com:443")) != NULL)
 *		die...;
 *	allow_name(&al, "www.example.com", 443, &entry);	-> ALLOW_OK
 *
 * Entries are HOST:PORT, *.DOMAIN:PORT, an IPv4 address or range
 * (A.B.C.D:PORT, A.B.C.D/LEN:PORT) or an IPv6 address or range in
 * brackets ([::1]:PORT, [fd00::/8]:PORT).  A port is always named.  Names
 * are kept lowercase without a trailing dot.  "*.example.com" matches
 * every name below example.com at any depth, and not example.com itself.
 *
 * Addresses are compared in one 16-byte form: IPv6 as is, IPv4 as its
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d), so an entry, a request and a
 * DNS answer agree however each spelled the address.
 *
 * The request head (http.c): http_head_end() finds where a head ends,
 * http_parse_head() checks it and, for a plain-HTTP request, writes the
 * head that goes to the origin server; body_feed() follows the framing of
 * a request body (Content-Length or chunked) as its bytes pass through.
 */
#ifndef MAGUS_EGRESS_H
#define MAGUS_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct strbuf;

/* ---- addresses ------------------------------------------------------ */

struct eg_addr {
	uint8_t b[16];
};

/* Longest text addr_format() writes, NUL included. */
#define EG_ADDRSTRLEN 46

/* Parse a dotted-quad IPv4 or an IPv6 address (no brackets, no zone). */
bool addr_parse(const char *s, struct eg_addr *a);
/* The address of an AF_INET or AF_INET6 sockaddr; false for others. */
bool addr_from_sockaddr(const struct sockaddr *sa, struct eg_addr *a);
/* Fill a sockaddr for connecting to a:port; returns its length. */
socklen_t addr_to_sockaddr(const struct eg_addr *a, unsigned port,
    struct sockaddr_storage *ss);
/* Dotted quad for an IPv4(-mapped) address, RFC 5952 text otherwise. */
void addr_format(const struct eg_addr *a, char *buf, size_t size);
bool addr_is_v4(const struct eg_addr *a);
/* True when a lies in net/prefix (prefix in bits of the 128-bit form). */
bool addr_in(const struct eg_addr *a, const struct eg_addr *net,
    unsigned prefix);
/*
 * NULL for an address on the public internet, else what it is:
 * "loopback", "private", "link-local", ...  Such an address is reached
 * through a name only when an allowlist entry names it.
 */
const char *addr_class(const struct eg_addr *a);

/* ---- host names ----------------------------------------------------- */

#define EG_HOST_MAX 253

/*
 * Check a DNS name and write it lowercase, without a trailing dot, to out
 * (EG_HOST_MAX + 1 bytes).  Labels are 1..63 of [A-Za-z0-9_-] and the
 * last label is not all digits (so "127.1" is never taken for a name).
 */
bool host_normalize(const char *s, size_t len, char *out);

/* ---- the allowlist -------------------------------------------------- */

enum allow_kind { ALLOW_NAME, ALLOW_WILD, ALLOW_ADDR };

struct allow_entry {
	enum allow_kind kind;
	char *text;		/* the entry as written, for messages */
	char name[EG_HOST_MAX + 1];	/* NAME, WILD (the part after "*.") */
	struct eg_addr addr;	/* ADDR */
	unsigned prefix;	/* ADDR: bits of the 128-bit form */
	unsigned port;
};

struct allowlist {
	struct allow_entry *v;
	size_t nr, alloc;
};
#define ALLOWLIST_INIT { NULL, 0, 0 }

/* Add one entry; NULL on success, else why it is refused (static text). */
const char *allow_add(struct allowlist *al, const char *text);
void allowlist_clear(struct allowlist *al);

enum allow_verdict {
	ALLOW_OK,		/* *match names the entry */
	ALLOW_NO_HOST,		/* no entry names the host */
	ALLOW_NO_PORT,		/* entries name the host, none this port */
};

/* Is the name host (normalized) allowed on port? */
enum allow_verdict allow_name(const struct allowlist *al, const char *host,
    unsigned port, const struct allow_entry **match);
/* Is the address allowed on port (an address or range entry)? */
enum allow_verdict allow_addr(const struct allowlist *al,
    const struct eg_addr *a, unsigned port, const struct allow_entry **match);

/* ---- the request head ----------------------------------------------- */

/* The longest request head accepted, the request line included. */
#define HTTP_HEAD_MAX 16384

/*
 * Where the head in buf[0..len) ends: the offset just past its empty
 * line, or 0 while it is not complete.  *scan remembers how far earlier
 * calls looked (start it at 0).
 */
size_t http_head_end(const char *buf, size_t len, size_t *scan);

enum body_kind { BODY_NONE, BODY_LENGTH, BODY_CHUNKED };

struct http_req {
	char method[32];
	bool connect;
	char host[EG_HOST_MAX + 1];	/* a name, or an address's text */
	bool host_is_addr;
	struct eg_addr addr;	/* when host_is_addr */
	unsigned port;
	enum body_kind body;
	uint64_t content_length;
};

/*
 * Parse the complete head buf[0..len).  Returns 0 and fills req; for a
 * request that is not CONNECT, the head to send to the origin server
 * (origin-form target, Host rewritten, hop-by-hop fields removed,
 * "Connection: close") is appended to out.  On a malformed request
 * returns the status to answer (400, 501) and sets *why.
 */
int http_parse_head(const char *buf, size_t len, struct http_req *req,
    struct strbuf *out, const char **why);

/* The status line's reason phrase for the statuses the proxy sends. */
const char *http_reason(int status);

/* ---- request bodies ------------------------------------------------- */

struct body {
	enum body_kind kind;
	uint64_t remain;	/* LENGTH: bytes left; CHUNKED: of this chunk */
	int state;		/* CHUNKED: where in the framing we are */
	unsigned digits;
	bool done;
};

void body_init(struct body *b, enum body_kind kind, uint64_t length);
/*
 * Follow n more bytes of body.  Returns how many of them belong to the
 * body (all, or fewer when the body ends inside p; b->done is then set),
 * or -1 when the chunked framing is malformed.
 */
ssize_t body_feed(struct body *b, const char *p, size_t n);

#endif /* MAGUS_EGRESS_H */
