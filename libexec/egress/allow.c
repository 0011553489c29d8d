/*
 * allow.c: magus-egress's allowlist and the classes of addresses that a
 * name may not resolve to unless the list names them.
 */
#include "compat.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>

#include "egress.h"
#include "strutil.h"
#include "xalloc.h"

/* ---- addresses ------------------------------------------------------ */

static const uint8_t v4_mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

bool
addr_is_v4(const struct eg_addr *a)
{
	return !memcmp(a->b, v4_mapped_prefix, sizeof(v4_mapped_prefix));
}

static void
addr_set_v4(struct eg_addr *a, const void *in4)
{
	memcpy(a->b, v4_mapped_prefix, sizeof(v4_mapped_prefix));
	memcpy(a->b + 12, in4, 4);
}

bool
addr_parse(const char *s, struct eg_addr *a)
{
	struct in_addr in4;
	struct in6_addr in6;

	/* inet_pton, unlike inet_aton, takes only the dotted quad. */
	if (inet_pton(AF_INET, s, &in4) == 1) {
		addr_set_v4(a, &in4);
		return true;
	}
	if (inet_pton(AF_INET6, s, &in6) == 1) {
		memcpy(a->b, &in6, 16);
		return true;
	}
	return false;
}

bool
addr_from_sockaddr(const struct sockaddr *sa, struct eg_addr *a)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)sa;

		addr_set_v4(a, &sin->sin_addr);
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		memcpy(a->b, &sin6->sin6_addr, 16);
		return true;
	}
	return false;
}

socklen_t
addr_to_sockaddr(const struct eg_addr *a, unsigned port,
    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (addr_is_v4(a)) {
		struct sockaddr_in *sin = (void *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		memcpy(&sin->sin_addr, a->b + 12, 4);
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (void *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		memcpy(&sin6->sin6_addr, a->b, 16);
		return sizeof(*sin6);
	}
}

void
addr_format(const struct eg_addr *a, char *buf, size_t size)
{
	const char *r;

	if (addr_is_v4(a))
		r = inet_ntop(AF_INET, a->b + 12, buf, (socklen_t)size);
	else
		r = inet_ntop(AF_INET6, a->b, buf, (socklen_t)size);
	if (!r && size)
		buf[0] = '\0';
}

bool
addr_in(const struct eg_addr *a, const struct eg_addr *net, unsigned prefix)
{
	unsigned whole = prefix / 8, rest = prefix % 8;
	uint8_t mask;

	if (prefix > 128)
		return false;
	if (memcmp(a->b, net->b, whole))
		return false;
	if (!rest)
		return true;
	mask = (uint8_t)(0xff << (8 - rest));
	return (a->b[whole] & mask) == (net->b[whole] & mask);
}

/*
 * Addresses that lead into the host, its local networks or nowhere
 * public.  IPv4 ranges are written in their mapped form, so the prefix
 * is 96 + the IPv4 length; that also covers IPv4-mapped IPv6 answers.
 * The first match names the class, so narrower ranges come first.
 */
static const struct {
	const char *net;
	unsigned prefix;
	const char *what;
} special[] = {
	{ "::", 128, "unspecified" },
	{ "::1", 128, "loopback" },
	{ "0.0.0.0", 96 + 8, "this-network" },
	{ "10.0.0.0", 96 + 8, "private" },
	{ "100.64.0.0", 96 + 10, "shared (carrier-grade NAT)" },
	{ "127.0.0.0", 96 + 8, "loopback" },
	{ "169.254.0.0", 96 + 16, "link-local" },
	{ "172.16.0.0", 96 + 12, "private" },
	{ "192.0.0.0", 96 + 24, "protocol-assignment" },
	{ "192.168.0.0", 96 + 16, "private" },
	{ "198.18.0.0", 96 + 15, "benchmarking" },
	{ "224.0.0.0", 96 + 4, "multicast" },
	{ "240.0.0.0", 96 + 4, "reserved" },
	{ "::", 96, "IPv4-compatible" },
	{ "100::", 64, "discard-only" },
	{ "fc00::", 7, "unique-local (private)" },
	{ "fe80::", 10, "link-local" },
	{ "fec0::", 10, "site-local" },
	{ "ff00::", 8, "multicast" },
};

/* IPv6 ranges that carry an IPv4 address inside: judge that address. */
static const struct {
	const char *net;
	unsigned prefix;
	unsigned offset;	/* byte where the IPv4 address starts */
} embedding[] = {
	{ "64:ff9b::", 96, 12 },	/* NAT64 */
	{ "64:ff9b:1::", 48, 12 },	/* local-use NAT64 */
	{ "2002::", 16, 2 },		/* 6to4 */
};

const char *
addr_class(const struct eg_addr *a)
{
	struct eg_addr net, inner;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(embedding); i++) {
		if (!addr_parse(embedding[i].net, &net))
			abort();
		if (addr_in(a, &net, embedding[i].prefix)) {
			addr_set_v4(&inner, a->b + embedding[i].offset);
			return addr_class(&inner);
		}
	}
	for (i = 0; i < ARRAY_SIZE(special); i++) {
		if (!addr_parse(special[i].net, &net))
			abort();
		if (addr_in(a, &net, special[i].prefix))
			return special[i].what;
	}
	return NULL;
}

/* ---- host names ----------------------------------------------------- */

bool
host_normalize(const char *s, size_t len, char *out)
{
	size_t i, label = 0;
	bool digits_only = true;

	if (len && s[len - 1] == '.')
		len--;
	if (!len || len > EG_HOST_MAX)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '.') {
			if (!label || s[i - 1] == '-')
				return false;
			label = 0;
			digits_only = true;
			out[i] = '.';
			continue;
		}
		if (!isalnum(ch) && ch != '-' && ch != '_')
			return false;
		if (ch == '-' && !label)
			return false;
		if (++label > 63)
			return false;
		if (!isdigit(ch))
			digits_only = false;
		out[i] = (char)tolower(ch);
	}
	if (s[len - 1] == '-' || digits_only)
		return false;
	out[len] = '\0';
	return true;
}

/* ---- the allowlist -------------------------------------------------- */

static bool
parse_port(const char *s, unsigned *port)
{
	long v;

	if (!*s || *s == '0' || strspn(s, "0123456789") != strlen(s))
		return false;
	if (!parse_long(s, 1, 65535, &v))
		return false;
	*port = (unsigned)v;
	return true;
}

/* "ADDR" or "ADDR/LEN" into e; bracketed tells an IPv6 entry's text. */
static const char *
parse_addr_entry(char *text, bool bracketed, struct allow_entry *e)
{
	char *slash = strchr(text, '/');
	long len, max = bracketed ? 128 : 32;
	struct eg_addr masked;
	unsigned i;

	len = max;
	if (slash) {
		*slash++ = '\0';
		if (!*slash || strspn(slash, "0123456789") != strlen(slash) ||
		    (slash[0] == '0' && slash[1]) ||
		    !parse_long(slash, 0, max, &len))
			return "the prefix length is not a number in range";
	}
	if (strchr(text, '%'))
		return "an address with a zone cannot be listed";
	if (bracketed && !strchr(text, ':'))
		return "an IPv4 address is written without brackets";
	if (!addr_parse(text, &e->addr))
		return bracketed ? "not an IPv6 address" :
		    "not a host name or an IPv4 address";
	e->prefix = (unsigned)(bracketed ? len : 96 + len);
	/* Bits past the prefix are almost always a typo of the range. */
	masked = e->addr;
	for (i = e->prefix; i < 128; i++)
		masked.b[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
	if (memcmp(masked.b, e->addr.b, 16))
		return "the address has bits set beyond the prefix length";
	e->kind = ALLOW_ADDR;
	return NULL;
}

const char *
allow_add(struct allowlist *al, const char *text)
{
	struct allow_entry e;
	char *copy, *host, *colon;
	const char *why = NULL;

	memset(&e, 0, sizeof(e));
	copy = xstrdup(text);
	if (copy[0] == '[') {
		char *close = strchr(copy, ']');

		if (!close)
			goto fail_bracket;
		*close = '\0';
		host = copy + 1;
		if (close[1] != ':') {
			why = close[1] ? "expected ':PORT' after ']'" :
			    "no port: write [ADDRESS]:PORT";
			goto out;
		}
		colon = close + 1;
	} else {
		host = copy;
		colon = strrchr(copy, ':');
		if (!colon) {
			why = "no port: write HOST:PORT";
			goto out;
		}
		*colon = '\0';
		if (strchr(host, ':')) {
			why = "an IPv6 address must be in brackets: [ADDRESS]:PORT";
			goto out;
		}
	}
	if (!strcmp(colon + 1, "*")) {
		why = "a port cannot be a wildcard; list each port";
		goto out;
	}
	if (!parse_port(colon + 1, &e.port)) {
		why = "the port is not a number from 1 to 65535";
		goto out;
	}
	if (copy[0] == '[') {
		why = parse_addr_entry(host, true, &e);
	} else if (starts_with(host, "*.")) {
		e.kind = ALLOW_WILD;
		if (!host_normalize(host + 2, strlen(host + 2), e.name))
			why = "not a host name after '*.'";
	} else if (strchr(host, '*')) {
		why = "a wildcard is only allowed as a leading '*.'";
	} else if (strchr(host, '/') || addr_parse(host, &e.addr)) {
		why = parse_addr_entry(host, false, &e);
	} else {
		e.kind = ALLOW_NAME;
		if (!host_normalize(host, strlen(host), e.name))
			why = "not a host name or an IPv4 address";
	}
	if (why)
		goto out;
	e.text = xstrdup(text);
	ALLOC_GROW(al->v, al->nr + 1, al->alloc);
	al->v[al->nr++] = e;
	goto out;
fail_bracket:
	why = "no closing ']'";
out:
	free(copy);
	return why;
}

void
allowlist_clear(struct allowlist *al)
{
	size_t i;

	for (i = 0; i < al->nr; i++)
		free(al->v[i].text);
	free(al->v);
	al->v = NULL;
	al->nr = al->alloc = 0;
}

static bool
name_matches(const struct allow_entry *e, const char *host)
{
	size_t hl, nl;

	if (e->kind == ALLOW_NAME)
		return !strcmp(host, e->name);
	if (e->kind != ALLOW_WILD)
		return false;
	hl = strlen(host);
	nl = strlen(e->name);
	return hl > nl + 1 && host[hl - nl - 1] == '.' &&
	    !strcmp(host + hl - nl, e->name);
}

enum allow_verdict
allow_name(const struct allowlist *al, const char *host, unsigned port,
    const struct allow_entry **match)
{
	enum allow_verdict v = ALLOW_NO_HOST;
	size_t i;

	for (i = 0; i < al->nr; i++) {
		if (!name_matches(&al->v[i], host))
			continue;
		if (al->v[i].port == port) {
			*match = &al->v[i];
			return ALLOW_OK;
		}
		v = ALLOW_NO_PORT;
	}
	return v;
}

enum allow_verdict
allow_addr(const struct allowlist *al, const struct eg_addr *a, unsigned port,
    const struct allow_entry **match)
{
	enum allow_verdict v = ALLOW_NO_HOST;
	size_t i;

	for (i = 0; i < al->nr; i++) {
		const struct allow_entry *e = &al->v[i];

		if (e->kind != ALLOW_ADDR || !addr_in(a, &e->addr, e->prefix))
			continue;
		if (e->port == port) {
			*match = e;
			return ALLOW_OK;
		}
		v = ALLOW_NO_PORT;
	}
	return v;
}
