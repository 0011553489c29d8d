/*
 * test-egress: magus-egress's decisions without sockets: the allowlist
 * grammar and matching, the classes of addresses, the request head and
 * the body framing.
 */
#include "compat.h"

#include "egress.h"
#include "strbuf.h"
#include "strutil.h"
#include "tap.h"

static struct allowlist al = ALLOWLIST_INIT;

static void
entry_ok(const char *text)
{
	const char *why = allow_add(&al, text);

	ok(!why, "entry '%s' accepted%s%s", text, why ? ": " : "",
	    why ? why : "");
}

static void
entry_bad(const char *text)
{
	struct allowlist scratch = ALLOWLIST_INIT;
	const char *why = allow_add(&scratch, text);

	ok(why != NULL, "entry '%s' refused (%s)", text, why ? why : "-");
	ok(scratch.nr == 0, "a refused entry adds nothing");
	allowlist_clear(&scratch);
}

static enum allow_verdict
name(const char *host, unsigned port)
{
	const struct allow_entry *e;
	char norm[EG_HOST_MAX + 1];

	if (!host_normalize(host, strlen(host), norm))
		return (enum allow_verdict)-1;
	return allow_name(&al, norm, port, &e);
}

static enum allow_verdict
addr(const char *text, unsigned port)
{
	const struct allow_entry *e;
	struct eg_addr a;

	if (!addr_parse(text, &a))
		return (enum allow_verdict)-1;
	return allow_addr(&al, &a, port, &e);
}

static const char *
cls(const char *text)
{
	struct eg_addr a;

	if (!addr_parse(text, &a))
		return "unparsable";
	return addr_class(&a);
}

static void
test_allowlist(void)
{
	entry_ok("example.com:443");
	entry_ok("*.example.org:443");
	entry_ok("Mixed.Case.NET.:80");
	entry_ok("127.0.0.1:8080");
	entry_ok("10.0.0.0/8:443");
	entry_ok("[::1]:8080");
	entry_ok("[fd00::/8]:443");
	entry_ok("[::ffff:192.168.1.7]:22");

	entry_bad("example.com");
	entry_bad("example.com:");
	entry_bad("example.com:*");
	entry_bad("example.com:0");
	entry_bad("example.com:65536");
	entry_bad("example.com:08");
	entry_bad("example.com:+8");
	entry_bad("*:443");
	entry_bad("*.:443");
	entry_bad("a.*.example.com:443");
	entry_bad("*example.com:443");
	entry_bad("ex ample.com:443");
	entry_bad("-bad.example.com:443");
	entry_bad("127.1:80");
	entry_bad("1.2.3:80");
	entry_bad("::1:80");
	entry_bad("[::1]");
	entry_bad("[::1]80");
	entry_bad("[1.2.3.4]:80");
	entry_bad("[::1:80");
	entry_bad("10.0.0.1/8:443");
	entry_bad("10.0.0.0/33:443");
	entry_bad("10.0.0.0/:443");
	entry_bad("[fe80::1%eth0]:80");
	entry_bad("[fd00::/129]:443");
	entry_bad(":443");

	ok(name("example.com", 443) == ALLOW_OK, "a listed name");
	ok(name("EXAMPLE.com.", 443) == ALLOW_OK,
	    "case and a trailing dot do not matter");
	ok(name("example.com", 80) == ALLOW_NO_PORT,
	    "a listed name on another port");
	ok(name("www.example.com", 443) == ALLOW_NO_HOST,
	    "a plain name does not cover its subdomains");
	ok(name("a.example.org", 443) == ALLOW_OK, "*. covers a subdomain");
	ok(name("a.b.c.example.org", 443) == ALLOW_OK,
	    "*. covers deeper subdomains");
	ok(name("example.org", 443) == ALLOW_NO_HOST,
	    "*.example.org does not cover example.org itself");
	ok(name("badexample.org", 443) == ALLOW_NO_HOST,
	    "*. matches whole labels only");
	ok(name("mixed.case.net", 80) == ALLOW_OK,
	    "an entry is matched lowercase without its trailing dot");
	ok(name("evil.com", 443) == ALLOW_NO_HOST, "an unlisted name");

	ok(addr("127.0.0.1", 8080) == ALLOW_OK, "a listed IPv4 address");
	ok(addr("127.0.0.2", 8080) == ALLOW_NO_HOST, "a neighbour is not");
	ok(addr("127.0.0.1", 80) == ALLOW_NO_PORT, "another port is not");
	ok(addr("::ffff:127.0.0.1", 8080) == ALLOW_OK,
	    "the IPv4-mapped spelling of a listed address");
	ok(addr("10.200.3.4", 443) == ALLOW_OK, "inside a listed range");
	ok(addr("11.0.0.1", 443) == ALLOW_NO_HOST, "outside it");
	ok(addr("::1", 8080) == ALLOW_OK, "a listed IPv6 address");
	ok(addr("fdab::1", 443) == ALLOW_OK, "inside a listed IPv6 range");
	ok(addr("192.168.1.7", 22) == ALLOW_OK,
	    "[::ffff:a.b.c.d] lists the IPv4 address");
	ok(addr("93.184.216.34", 443) == ALLOW_NO_HOST,
	    "a public address that is not listed");
	allowlist_clear(&al);
}

static void
test_classes(void)
{
	is_str(cls("127.0.0.1"), "loopback", "127.0.0.1");
	is_str(cls("127.255.0.9"), "loopback", "all of 127/8");
	is_str(cls("::1"), "loopback", "::1");
	is_str(cls("::ffff:127.0.0.1"), "loopback", "IPv4-mapped loopback");
	is_str(cls("10.1.2.3"), "private", "10/8");
	is_str(cls("172.16.0.1"), "private", "172.16/12");
	is_str(cls("172.31.255.255"), "private", "the end of 172.16/12");
	ok(cls("172.32.0.1") == NULL, "172.32/16 is public");
	is_str(cls("192.168.0.1"), "private", "192.168/16");
	is_str(cls("::ffff:192.168.0.1"), "private", "IPv4-mapped private");
	is_str(cls("169.254.169.254"), "link-local",
	    "the cloud metadata address");
	is_str(cls("100.64.0.1"), "shared (carrier-grade NAT)", "100.64/10");
	ok(cls("100.128.0.1") == NULL, "100.128/16 is public");
	is_str(cls("0.0.0.0"), "this-network", "0.0.0.0");
	is_str(cls("0.1.2.3"), "this-network", "0/8");
	is_str(cls("fd12::1"), "unique-local (private)", "fc00::/7");
	is_str(cls("fc00::1"), "unique-local (private)", "fc00::");
	is_str(cls("fe80::1"), "link-local", "fe80::/10");
	is_str(cls("::"), "unspecified", "::");
	is_str(cls("224.0.0.1"), "multicast", "224/4");
	is_str(cls("255.255.255.255"), "reserved", "broadcast");
	is_str(cls("64:ff9b::a00:1"), "private", "NAT64 of 10.0.0.1");
	is_str(cls("2002:7f00:1::"), "loopback", "6to4 of 127.0.0.1");
	ok(cls("93.184.216.34") == NULL, "a public IPv4 address");
	ok(cls("2606:2800:220:1::1") == NULL, "a public IPv6 address");
	ok(cls("64:ff9b::5db8:d822") == NULL, "NAT64 of a public address");
}

static void
test_names(void)
{
	char out[EG_HOST_MAX + 1];
	char longlabel[80];

	ok(host_normalize("WWW.Example.COM.", 16, out) &&
	    !strcmp(out, "www.example.com"), "lowercase, no trailing dot");
	ok(!host_normalize("a..b", 4, out), "an empty label");
	ok(!host_normalize(".", 1, out), "just a dot");
	ok(!host_normalize("a-.b", 4, out), "a label ending in '-'");
	ok(!host_normalize("2130706433", 10, out), "an all-digit name");
	ok(!host_normalize("a.b.9", 5, out), "an all-digit last label");
	ok(host_normalize("9.b.c", 5, out), "digits in other labels");
	ok(host_normalize("_srv.example.com", 16, out), "an underscore");
	ok(!host_normalize("a%2eb", 5, out), "percent-encoding");
	memset(longlabel, 'a', 64);
	memcpy(longlabel + 64, ".com", 5);
	ok(!host_normalize(longlabel, strlen(longlabel), out),
	    "a label of 64 bytes");
}

/* Parse a head; returns the status (0 when accepted). */
static int
head(const char *text, struct http_req *r, struct strbuf *out)
{
	const char *why = NULL;
	size_t scan = 0, end = http_head_end(text, strlen(text), &scan);

	strbuf_reset(out);
	if (!end)
		return -1;
	return http_parse_head(text, end, r, out, &why);
}

static void
test_head(void)
{
	struct strbuf out = STRBUF_INIT;
	struct http_req r;
	size_t scan = 0;

	ok(http_head_end("GET / HTTP/1.1\r\nHost: x\r\n", 25, &scan) == 0,
	    "an incomplete head");
	ok(http_head_end("GET / HTTP/1.1\r\nHost: x\r\n\r\nbody", 31, &scan) ==
	    27, "the end is found where the search left off");

	ok(head("CONNECT Example.COM:443 HTTP/1.1\r\nHost: x\r\n\r\n", &r,
	    &out) == 0 && r.connect && !strcmp(r.host, "example.com") &&
	    r.port == 443 && !r.host_is_addr, "CONNECT host:port");
	ok(head("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", &r, &out) == 0 &&
	    r.host_is_addr && !strcmp(r.host, "::1") && r.port == 8443,
	    "CONNECT to an IPv6 literal");
	ok(head("CONNECT [::ffff:10.0.0.1]:443 HTTP/1.1\r\n\r\n", &r,
	    &out) == 0 && !strcmp(r.host, "10.0.0.1"),
	    "an IPv4-mapped literal is taken as IPv4");
	ok(head("CONNECT example.com HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "CONNECT without a port");
	ok(head("CONNECT ::1:443 HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "an IPv6 literal without brackets");
	ok(head("CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n", &r,
	    &out) == 400, "a zone in the literal");

	ok(head("GET http://Example.com:8080/a/b?c=d HTTP/1.1\r\n"
	    "Host: other\r\nAccept: */*\r\nConnection: keep-alive, X-Drop\r\n"
	    "X-Drop: 1\r\nProxy-Authorization: Basic Zm9v\r\n"
	    "Keep-Alive: 5\r\nTE: trailers\r\nUpgrade: h2c\r\n"
	    "X-Keep: yes\r\n\r\n", &r, &out) == 0, "a forward request");
	is_str(out.buf, "GET /a/b?c=d HTTP/1.1\r\nHost: Example.com:8080\r\n"
	    "Accept: */*\r\nX-Keep: yes\r\nConnection: close\r\n\r\n",
	    "origin-form, Host rewritten, hop-by-hop fields dropped");
	ok(!strcmp(r.host, "example.com") && r.port == 8080 &&
	    r.body == BODY_NONE, "its host, port and body");
	ok(head("GET http://example.com HTTP/1.0\r\n\r\n", &r, &out) == 0 &&
	    starts_with(out.buf, "GET / HTTP/1.1\r\nHost: example.com\r\n") &&
	    r.port == 80, "an empty path becomes /, port 80");
	ok(head("GET http://example.com?q=1 HTTP/1.1\r\n\r\n", &r, &out) ==
	    0 && starts_with(out.buf, "GET /?q=1 HTTP/1.1\r\n"),
	    "a query without a path");
	ok(head("GET http://[::1]:81/ HTTP/1.1\r\n\r\n", &r, &out) == 0 &&
	    r.host_is_addr && r.port == 81 &&
	    strstr(out.buf, "Host: [::1]:81\r\n"), "an IPv6 literal URL");
	ok(head("\r\nGET http://a.test/ HTTP/1.1\r\n\r\n", &r, &out) == 0,
	    "an empty line before the request line is skipped");
	ok(head("GET http://a.test/ HTTP/1.1\nHost: a.test\n\n", &r, &out) ==
	    0, "bare LF line ends");

	ok(head("POST http://a.test/ HTTP/1.1\r\nContent-Length: 12\r\n\r\n",
	    &r, &out) == 0 && r.body == BODY_LENGTH &&
	    r.content_length == 12, "Content-Length");
	ok(head("POST http://a.test/ HTTP/1.1\r\nContent-Length: 12\r\n"
	    "Content-Length: 12\r\n\r\n", &r, &out) == 0,
	    "a repeated equal Content-Length");
	ok(head("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: Chunked"
	    "\r\n\r\n", &r, &out) == 0 && r.body == BODY_CHUNKED &&
	    strstr(out.buf, "Transfer-Encoding: Chunked\r\n"),
	    "chunked, passed on");

	ok(head("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", &r, &out) == 400,
	    "origin-form is not a proxy request");
	ok(head("GET https://a.test/ HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "https:// in the clear");
	ok(head("GET ftp://a.test/ HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "another scheme");
	ok(head("GET http://user@a.test/ HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "user information");
	ok(head("GET http://a.test/#x HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "a fragment");
	ok(head("GET http://a.test/ HTTP/2.0\r\n\r\n", &r, &out) == 400,
	    "HTTP/2.0");
	ok(head("GET  http://a.test/ HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "two spaces");
	ok(head("G(T http://a.test/ HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "a method that is not a token");
	ok(head("GET http://a.test/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", &r,
	    &out) == 400, "a folded line");
	ok(head("GET http://a.test/ HTTP/1.1\r\nX : a\r\n\r\n", &r, &out) ==
	    400, "space before the colon");
	ok(head("GET http://a.test/ HTTP/1.1\r\nX: a\rb\r\n\r\n", &r, &out) ==
	    400, "a bare CR");
	ok(head("GET http://a.test/ HTTP/1.1\r\nX: a\001\r\n\r\n", &r,
	    &out) == 400, "a control character");
	ok(head("GET http://a.test/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
	    &r, &out) == 400, "two Host fields");
	ok(head("POST http://a.test/ HTTP/1.1\r\nContent-Length: 1\r\n"
	    "Content-Length: 2\r\n\r\n", &r, &out) == 400,
	    "two different Content-Length values");
	ok(head("POST http://a.test/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
	    &r, &out) == 400, "a negative Content-Length");
	ok(head("POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", &r, &out) == 400,
	    "Content-Length and Transfer-Encoding");
	ok(head("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: gzip\r\n"
	    "\r\n", &r, &out) == 501, "a coding other than chunked");
	ok(head("POST http://a.test/ HTTP/1.0\r\nTransfer-Encoding: chunked"
	    "\r\n\r\n", &r, &out) == 400, "chunked in HTTP/1.0");
	ok(head("GET http://a..test/ HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "an invalid host name");
	ok(head("GET http://a.test:0/ HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "port 0");
	ok(head("GET http://a.test:99999/ HTTP/1.1\r\n\r\n", &r, &out) == 400,
	    "a port too large");
	ok(head("\r\n\r\n", &r, &out) == 400, "no request line");
	strbuf_release(&out);
}

/* Feed text in pieces of step bytes; the body's length, -1 if malformed. */
static long
feed(enum body_kind kind, uint64_t len, const char *text, size_t step,
    bool *done)
{
	struct body b;
	size_t n = strlen(text), i;
	long total = 0;

	body_init(&b, kind, len);
	for (i = 0; i < n && !b.done; i += step) {
		size_t k = n - i < step ? n - i : step;
		ssize_t m = body_feed(&b, text + i, k);

		if (m < 0)
			return -1;
		total += m;
	}
	*done = b.done;
	return total;
}

static void
test_body(void)
{
	const char *chunked = "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n"
	    "X-Trailer: 1\r\n\r\nNEXT REQUEST";
	size_t body_len = strlen(chunked) - strlen("NEXT REQUEST");
	bool done;
	size_t step;

	ok(feed(BODY_LENGTH, 5, "helloworld", 3, &done) == 5 && done,
	    "Content-Length stops at its end");
	ok(feed(BODY_LENGTH, 20, "hello", 5, &done) == 5 && !done,
	    "and waits for more");
	ok(feed(BODY_NONE, 0, "x", 1, &done) == 0 && done, "no body");
	for (step = 1; step <= 7; step += 3)
		ok(feed(BODY_CHUNKED, 0, chunked, step, &done) ==
		    (long)body_len && done,
		    "chunked body with trailers, fed %zu at a time", step);
	ok(feed(BODY_CHUNKED, 0, "0\r\n\r\n", 100, &done) == 5 && done,
	    "an empty chunked body");
	ok(feed(BODY_CHUNKED, 0, "5\r\nhelloX\r\n", 100, &done) == -1,
	    "chunk data longer than its size");
	ok(feed(BODY_CHUNKED, 0, "g\r\n", 100, &done) == -1,
	    "a size that is not hex");
	ok(feed(BODY_CHUNKED, 0, "5\nhello\r\n", 100, &done) == -1,
	    "a bare LF after the size");
	ok(feed(BODY_CHUNKED, 0, "1000000000000000\r\n", 100, &done) == -1,
	    "a size of 16 hex digits");
}

int
main(void)
{
	test_allowlist();
	test_classes();
	test_names();
	test_head();
	test_body();
	return done_testing();
}
