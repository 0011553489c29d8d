/*
 * test-engine: unit tests for the engine client's byte-level parts and
 * the JSON reader, in TAP.  Every stream parser is fed the same input
 * whole, split at every boundary, and one byte at a time, and must give
 * the same result each way.
 */
#include "compat.h"

#include <errno.h>
#include <limits.h>

#include "engine-proto.h"
#include "jsonread.h"
#include "strbuf.h"
#include "strvec.h"
#include "tap.h"
#include "xalloc.h"

/* ---- the JSON reader ---------------------------------------------------- */

static bool
parses(const char *s)
{
	struct jsonr j;
	int r = jsonr_parse(&j, s, strlen(s));

	jsonr_release(&j);
	return r == 0;
}

static void
test_jsonr_basic(void)
{
	static const char doc[] =
	    " {\"Id\":\"abc\",\"State\":{\"Status\":\"exited\",\"ExitCode\":3,"
	    "\"OOMKilled\":true,\"Error\":\"\",\"Pid\":0},"
	    "\"Config\":{\"Env\":[\"A=1\",\"B=two words\"],"
	    "\"Labels\":{\"magus.use\":\"relay\",\"x\":\"y\"},\"Tty\":false},"
	    "\"Nested\":[[1,2],{\"k\":[3]},\"s\"],\"Null\":null} \n";
	struct jsonr j;
	struct strvec sv = STRVEC_INIT;
	struct jsonr_iter it;
	long long v;
	bool b;
	int k, val, n, tok;
	size_t len;
	const char *raw;

	ok(jsonr_parse(&j, doc, strlen(doc)) == 0, "a document parses");
	ok(jsonr_type(&j, 0) == JSONR_OBJECT, "the root is an object");
	ok(jsonr_int(&j, jsonr_path(&j, 0, "State.ExitCode"), &v) == 0 &&
	    v == 3, "a path reaches a nested integer");
	ok(jsonr_bool(&j, jsonr_path(&j, 0, "State.OOMKilled"), &b) == 0 && b,
	    "a bool");
	ok(jsonr_bool(&j, jsonr_path(&j, 0, "Config.Tty"), &b) == 0 && !b,
	    "false");
	ok(jsonr_path(&j, 0, "State.Nope") == -1 &&
	    jsonr_path(&j, 0, "Nope.Status") == -1, "absent paths are -1");
	ok(jsonr_int(&j, -1, &v) < 0 && jsonr_type(&j, -1) == JSONR_ABSENT &&
	    jsonr_strdup(&j, -1) == NULL, "absent chains through accessors");
	ok(jsonr_type(&j, jsonr_get(&j, 0, "Null")) == JSONR_NULL, "null");
	ok(jsonr_int(&j, jsonr_path(&j, 0, "State.Status"), &v) < 0,
	    "a string is not an integer");
	ok(jsonr_strings(&j, jsonr_path(&j, 0, "Config.Env"), &sv) == 0 &&
	    sv.n == 2 && !strcmp(sv.v[1], "B=two words"), "a string array");
	strvec_clear(&sv);
	ok(jsonr_string_map(&j, jsonr_path(&j, 0, "Config.Labels"), &sv) ==
	    0 && sv.n == 2 && !strcmp(sv.v[0], "magus.use=relay"),
	    "a label map as key=value");
	strvec_clear(&sv);
	ok(jsonr_str_eq(&j, jsonr_get(&j, jsonr_path(&j, 0, "Config.Labels"),
	    "magus.use"), "relay"), "jsonr_get finds a key with a dot");
	ok(jsonr_strings(&j, jsonr_get(&j, 0, "Nested"), &sv) < 0,
	    "a mixed array is not a string array");
	strvec_clear(&sv);
	ok(jsonr_strings(&j, jsonr_get(&j, 0, "Null"), &sv) == 0 && sv.n == 0,
	    "null is an empty string array");

	/* Iteration skips whole subtrees. */
	tok = jsonr_get(&j, 0, "Nested");
	ok(jsonr_count(&j, tok) == 3, "count of an array");
	n = 0;
	jsonr_iter_init(&j, tok, &it);
	while (jsonr_iter_next(&j, &it, &k, &val))
		n++;
	ok(n == 3 && k == -1 && jsonr_str_eq(&j, val, "s"),
	    "iterating an array of arrays and objects lands on each element");
	n = 0;
	jsonr_iter_init(&j, 0, &it);
	while (jsonr_iter_next(&j, &it, &k, &val))
		n++;
	ok(n == 5 && jsonr_str_eq(&j, k, "Null"),
	    "iterating an object gives each key once");
	raw = jsonr_raw(&j, jsonr_path(&j, 0, "Config.Env"), &len);
	ok(raw && len == strlen("[\"A=1\",\"B=two words\"]") &&
	    !memcmp(raw, "[\"A=1\",\"B=two words\"]", len), "raw text");
	raw = jsonr_raw(&j, jsonr_get(&j, 0, "Id"), &len);
	ok(len == 5 && !memcmp(raw, "\"abc\"", 5), "raw text of a string");
	jsonr_release(&j);
}

static void
test_jsonr_strings(void)
{
	static const char doc[] =
	    "[\"a\\\"b\\\\c\\/d\\n\\t\", \"\\u00e9\\u20ac\", "
	    "\"\\ud83d\\ude00\", \"\\u0000\", \"\\ud83d\", \"\\udc00x\", "
	    "\"\\ud83dx\", \"caf\xc3\xa9\"]";
	struct jsonr j;
	struct strbuf sb = STRBUF_INIT;

	ok(jsonr_parse(&j, doc, strlen(doc)) == 0, "escapes parse");
	ok(jsonr_str(&j, 1, &sb) == 0 && !strcmp(sb.buf, "a\"b\\c/d\n\t"),
	    "simple escapes");
	strbuf_reset(&sb);
	ok(jsonr_str(&j, 2, &sb) == 0 &&
	    !strcmp(sb.buf, "\xc3\xa9\xe2\x82\xac"),
	    "\\u escapes become UTF-8");
	strbuf_reset(&sb);
	ok(jsonr_str(&j, 3, &sb) == 0 && !strcmp(sb.buf, "\xf0\x9f\x98\x80"),
	    "a surrogate pair becomes one 4-byte character");
	strbuf_reset(&sb);
	ok(jsonr_str(&j, 4, &sb) < 0 && sb.len == 0,
	    "\\u0000 is refused rather than truncating");
	ok(jsonr_str(&j, 5, &sb) < 0, "a lone high surrogate is refused");
	ok(jsonr_str(&j, 6, &sb) < 0, "a lone low surrogate is refused");
	ok(jsonr_strdup(&j, 7) == NULL,
	    "a high surrogate followed by a letter is refused");
	ok(jsonr_str(&j, 8, &sb) == 0 && !strcmp(sb.buf, "caf\xc3\xa9"),
	    "raw UTF-8 passes unchanged");
	ok(jsonr_str_eq(&j, 1, "a\"b\\c/d\n\t") && !jsonr_str_eq(&j, 1, "a"),
	    "str_eq compares the unescaped value");
	strbuf_release(&sb);
	jsonr_release(&j);
}

static void
test_jsonr_refusals(void)
{
	static const char *const bad[] = {
		"", " ", "{", "}", "{\"a\":}", "{\"a\" 1}", "{\"a\":1,}",
		"[1,]", "{a:1}", "tru", "{\"a\":tru}", "{\"a\":nul}",
		"{\"a\":1}x", "{} {}", "{\"a\":01}", "{\"a\":1.}",
		"{\"a\":-}", "{\"a\":1e}", "{\"a\":.5}", "{\"a\":+1}",
		"[\"unterminated]", "{\"a\":[1,2}", "{\"a\" : \"b\",\"c\"}",
		"[1 2]", "{\"k\":{\"k\"}}", "\"a\"\"b\"", "[\"\\q\"]",
		"{\"a\":1 \"b\":2}", "{\"a\",1}", "[,1]", "{,}",
	};
	static const char *const good[] = {
		"{}", "[]", "{\"a\":-0.5e+10}", "[true,false,null]",
		"{\"a\":{\"b\":[{}]}}", "  [ 1 , 2 ]  ", "\"s\"",
		"{\"a\":1E3}", "[0]",
	};
	struct jsonr j;
	char nul[] = "{\"a\":\"b\0\"}";
	struct strbuf deep = STRBUF_INIT;
	size_t i;
	int k;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ok(!parses(bad[i]), "refused: %s", bad[i]);
	for (i = 0; i < ARRAY_SIZE(good); i++)
		ok(parses(good[i]), "accepted: %s", good[i]);
	errno = 0;
	ok(jsonr_parse(&j, nul, sizeof(nul) - 1) < 0 && errno == EINVAL,
	    "a NUL byte in the text is refused");
	for (k = 0; k < 300; k++)
		strbuf_addch(&deep, '[');
	for (k = 0; k < 300; k++)
		strbuf_addch(&deep, ']');
	ok(jsonr_parse(&j, deep.buf, deep.len) < 0,
	    "nesting deeper than the limit is refused");
	strbuf_reset(&deep);
	for (k = 0; k < 200; k++)
		strbuf_addch(&deep, '[');
	for (k = 0; k < 200; k++)
		strbuf_addch(&deep, ']');
	ok(jsonr_parse(&j, deep.buf, deep.len) == 0, "nesting of 200 parses");
	jsonr_release(&j);
	strbuf_release(&deep);
}

static void
test_jsonr_numbers(void)
{
	static const char doc[] = "[9223372036854775807,-9223372036854775808,"
	    "9223372036854775808,-9223372036854775809,1.5,1e3,-0,42]";
	struct jsonr j;
	long long v;

	ok(jsonr_parse(&j, doc, strlen(doc)) == 0, "numbers parse");
	ok(jsonr_int(&j, 1, &v) == 0 && v == LLONG_MAX, "LLONG_MAX");
	ok(jsonr_int(&j, 2, &v) == 0 && v == LLONG_MIN, "LLONG_MIN");
	ok(jsonr_int(&j, 3, &v) < 0, "one past LLONG_MAX is refused");
	ok(jsonr_int(&j, 4, &v) < 0, "one past LLONG_MIN is refused");
	ok(jsonr_int(&j, 5, &v) < 0, "a fraction is not an integer");
	ok(jsonr_int(&j, 6, &v) < 0, "an exponent is not an integer");
	ok(jsonr_int(&j, 7, &v) == 0 && v == 0, "-0");
	ok(jsonr_int(&j, 8, &v) == 0 && v == 42, "42");
	jsonr_release(&j);
}

static void
test_jsonr_growth_and_prefixes(void)
{
	struct strbuf big = STRBUF_INIT;
	struct jsonr j;
	struct jsonr_iter it;
	long long v, sum = 0;
	int val, i, bad = 0;
	size_t n;
	static const char doc[] =
	    "{\"StatusCode\":137,\"Error\":{\"Message\":\"x\"},\"L\":[1,[2]]}";

	strbuf_addch(&big, '[');
	for (i = 0; i < 100000; i++)
		strbuf_addf(&big, "%s{\"n\":%d}", i ? "," : "", i);
	strbuf_addch(&big, ']');
	ok(jsonr_parse(&j, big.buf, big.len) == 0 && j.ntok == 1 + 3 * 100000,
	    "a document of 300001 tokens parses (the token array grows)");
	jsonr_iter_init(&j, 0, &it);
	while (jsonr_iter_next(&j, &it, NULL, &val))
		if (jsonr_int(&j, jsonr_get(&j, val, "n"), &v) == 0)
			sum += v;
	ok(sum == 99999LL * 100000 / 2, "every element of it is read");
	jsonr_release(&j);
	strbuf_release(&big);

	/* Every proper prefix of a document is refused, the whole accepted. */
	for (n = 0; n < strlen(doc); n++)
		if (jsonr_parse(&j, doc, n) == 0) {
			bad++;
			jsonr_release(&j);
		}
	ok(bad == 0, "no proper prefix of an object parses");
	ok(jsonr_parse(&j, doc, strlen(doc)) == 0 &&
	    jsonr_int(&j, jsonr_get(&j, 0, "StatusCode"), &v) == 0 &&
	    v == 137, "the whole one does");
	jsonr_release(&j);
}

/* ---- the frame demultiplexer ------------------------------------------- */

struct collect {
	struct strbuf out, err, sys;
	int calls;
	int stop_after;	/* return 7 on this call, when > 0 */
};

static void
collect_init(struct collect *c)
{
	strbuf_init(&c->out, 0);
	strbuf_init(&c->err, 0);
	strbuf_init(&c->sys, 0);
	c->calls = 0;
	c->stop_after = 0;
}

static void
collect_release(struct collect *c)
{
	strbuf_release(&c->out);
	strbuf_release(&c->err);
	strbuf_release(&c->sys);
}

static int
collect_sink(void *ctx, int stream, const char *buf, size_t len)
{
	struct collect *c = ctx;

	c->calls++;
	if (stream == ENGINE_STDERR)
		strbuf_add(&c->err, buf, len);
	else if (stream == ENGINE_SYSERR)
		strbuf_add(&c->sys, buf, len);
	else
		strbuf_add(&c->out, buf, len);
	return c->stop_after && c->calls == c->stop_after ? 7 : 0;
}

static void
add_frame(struct strbuf *sb, int stream, const char *data, size_t len)
{
	unsigned char h[8] = { (unsigned char)stream, 0, 0, 0,
		(unsigned char)(len >> 24), (unsigned char)(len >> 16),
		(unsigned char)(len >> 8), (unsigned char)len };

	strbuf_add(sb, h, 8);
	strbuf_add(sb, data, len);
}

/* Feed `s` split at the given cut points; true when all went well. */
static bool
demux_split(const struct strbuf *s, const size_t *cuts, int ncuts,
    struct collect *c)
{
	struct engine_demux d;
	size_t at = 0;
	int i;

	engine_demux_init(&d, false);
	for (i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : s->len;

		if (engine_demux_feed(&d, s->buf + at, to - at, collect_sink,
		    c))
			return false;
		at = to;
	}
	return engine_demux_at_boundary(&d);
}

static void
test_demux(void)
{
	struct strbuf s = STRBUF_INIT, big = STRBUF_INIT, want_out =
	    STRBUF_INIT, want_err = STRBUF_INIT;
	struct collect c;
	struct engine_demux d;
	size_t cuts[2], i, k, len, bad = 0, checked = 0;
	int n;

	for (n = 0; n < 300; n++)
		strbuf_addch(&big, 'a' + n % 26);
	add_frame(&s, 1, "out-line\n", 9);
	add_frame(&s, 2, "err-line\n", 9);
	add_frame(&s, 1, "", 0);
	add_frame(&s, 1, big.buf, big.len);
	add_frame(&s, 0, "in", 2);	/* stdin echoed: shown as stdout */
	add_frame(&s, 2, "x", 1);
	strbuf_addstr(&want_out, "out-line\n");
	strbuf_add(&want_out, big.buf, big.len);
	strbuf_addstr(&want_out, "in");
	strbuf_addstr(&want_err, "err-line\nx");
	len = s.len;

	collect_init(&c);
	ok(demux_split(&s, NULL, 0, &c) && !strcmp(c.out.buf, want_out.buf) &&
	    !strcmp(c.err.buf, want_err.buf), "frames fed whole");
	collect_release(&c);

	for (i = 0; i <= len; i++) {
		collect_init(&c);
		cuts[0] = i;
		if (!demux_split(&s, cuts, 1, &c) ||
		    strcmp(c.out.buf, want_out.buf) ||
		    strcmp(c.err.buf, want_err.buf))
			bad++;
		collect_release(&c);
	}
	ok(bad == 0, "split in two at each of %zu boundaries", len + 1);

	bad = 0;
	for (i = 0; i <= len; i++)
		for (k = i; k <= len; k++) {
			collect_init(&c);
			cuts[0] = i;
			cuts[1] = k;
			if (!demux_split(&s, cuts, 2, &c) ||
			    strcmp(c.out.buf, want_out.buf) ||
			    strcmp(c.err.buf, want_err.buf))
				bad++;
			checked++;
			collect_release(&c);
		}
	ok(bad == 0, "split in three at each of %zu pairs of boundaries",
	    checked);

	/* One byte at a time; the boundary flag is true exactly between
	 * frames. */
	collect_init(&c);
	engine_demux_init(&d, false);
	bad = 0;
	for (i = 0; i < len; i++) {
		bool between = i + 1 == 17 || i + 1 == 34 || i + 1 == 42 ||
		    i + 1 == 350 || i + 1 == 360 || i + 1 == 369;

		if (engine_demux_feed(&d, s.buf + i, 1, collect_sink, &c) ||
		    engine_demux_at_boundary(&d) != between)
			bad++;
	}
	ok(bad == 0 && !strcmp(c.out.buf, want_out.buf) &&
	    !strcmp(c.err.buf, want_err.buf) && d.frames == 6,
	    "one byte at a time, at a boundary only between frames");
	collect_release(&c);

	/* A cut inside a frame is not a boundary. */
	collect_init(&c);
	engine_demux_init(&d, false);
	engine_demux_feed(&d, s.buf, 20, collect_sink, &c);
	ok(!engine_demux_at_boundary(&d), "EOF inside a payload is a cut");
	engine_demux_init(&d, false);
	engine_demux_feed(&d, s.buf, 3, collect_sink, &c);
	ok(!engine_demux_at_boundary(&d), "EOF inside a header is a cut");
	collect_release(&c);

	/* Not a frame. */
	collect_init(&c);
	engine_demux_init(&d, false);
	errno = 0;
	ok(engine_demux_feed(&d, "\x04\0\0\0\0\0\0\1x", 9, collect_sink,
	    &c) == -1 && errno == EPROTO, "stream 4 is refused");
	engine_demux_init(&d, false);
	ok(engine_demux_feed(&d, "\x01\0\1\0\0\0\0\1x", 9, collect_sink,
	    &c) == -1, "non-zero padding is refused");
	engine_demux_init(&d, false);
	ok(engine_demux_feed(&d, "HTTP/1.1 500 Internal", 21, collect_sink,
	    &c) == -1 && c.out.len == 0,
	    "HTTP text after the hijack is refused, nothing passed on");
	engine_demux_init(&d, false);
	ok(engine_demux_feed(&d, "\x03\0\0\0\0\0\0\4oops", 12, collect_sink,
	    &c) == 0 && !strcmp(c.sys.buf, "oops"),
	    "stream 3 carries the engine's own error");
	collect_release(&c);

	/* A TTY stream is raw: header-like bytes are data. */
	collect_init(&c);
	engine_demux_init(&d, true);
	ok(engine_demux_feed(&d, s.buf, s.len, collect_sink, &c) == 0 &&
	    c.out.len == s.len && !memcmp(c.out.buf, s.buf, s.len) &&
	    c.err.len == 0 && engine_demux_at_boundary(&d),
	    "with a TTY every byte is stdout, unframed");
	collect_release(&c);

	/* The sink can stop the feed. */
	collect_init(&c);
	c.stop_after = 2;
	engine_demux_init(&d, false);
	ok(engine_demux_feed(&d, s.buf, s.len, collect_sink, &c) == 7 &&
	    c.calls == 2, "a sink's non-zero return stops the feed");
	collect_release(&c);

	/* A frame size with the top bit set is counted, not misread. */
	collect_init(&c);
	engine_demux_init(&d, false);
	ok(engine_demux_feed(&d, "\x01\0\0\0\x80\0\0\0abc", 11, collect_sink,
	    &c) == 0 && d.left == 0x80000000u - 3 && c.out.len == 3,
	    "a 2 GiB frame header is a size, not a sign");
	collect_release(&c);

	strbuf_release(&s);
	strbuf_release(&big);
	strbuf_release(&want_out);
	strbuf_release(&want_err);
}

/* ---- HTTP heads and chunked bodies -------------------------------------- */

static void
test_http_head(void)
{
	static const char head[] =
	    "HTTP/1.1 101 UPGRADED\r\n"
	    "Content-Type: application/vnd.docker.raw-stream\r\n"
	    "Connection: Upgrade\r\n"
	    "Upgrade: tcp\r\n"
	    "Api-Version:  1.41 \r\n"
	    "\r\n"
	    "\x01\0\0\0\0\0\0\x03hi\n";
	struct http_head h;
	size_t hl = strlen("HTTP/1.1 101 UPGRADED\r\n"
	    "Content-Type: application/vnd.docker.raw-stream\r\n"
	    "Connection: Upgrade\r\nUpgrade: tcp\r\n"
	    "Api-Version:  1.41 \r\n\r\n");
	static const char chunked_head[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"
	    "Connection: keep-alive, close\r\n\r\n";
	size_t n, bad = 0;
	ssize_t r;

	for (n = 0; n < hl; n++)
		if (http_head_parse(head, n, &h) != 0)
			bad++;
	ok(bad == 0, "each prefix of a head is 'not yet'");
	r = http_head_parse(head, hl + 11, &h);
	ok(r == (ssize_t)hl, "the head's length excludes the stream after it");
	ok(h.status == 101 && h.upgrade && !h.chunked &&
	    h.content_length == -1 && !strcmp(h.reason, "UPGRADED") &&
	    !strcmp(h.api_version, "1.41") &&
	    !strcmp(h.content_type, "application/vnd.docker.raw-stream"),
	    "status, reason and headers");

	ok(http_head_parse(chunked_head, strlen(chunked_head), &h) > 0 &&
	    h.chunked && h.content_length == -1 && h.close,
	    "chunked overrides a length; Connection tokens");
	ok(http_head_parse("HTTP/1.0 204\r\n\r\n", 16, &h) == 16 &&
	    h.status == 204 && !*h.reason, "a head without a reason phrase");
	ok(http_head_parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
	    "Content-Length: 6\r\n\r\n", 57, &h) == -1,
	    "two different lengths are refused");
	ok(http_head_parse("HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", 29,
	    &h) == -1,
	    "a folded header is refused");
	ok(http_head_parse("HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n", 40,
	    &h) == -1, "a bad length is refused");
	errno = 0;
	ok(http_head_parse("{\"message\":\"x\"}", 15, &h) == -1 &&
	    errno == EPROTO, "JSON where a head belongs is refused at once");
	ok(http_head_parse("HTT", 3, &h) == 0, "'HTT' may still become one");
	ok(http_head_parse("HTTP/2 200\r\n\r\n", 14, &h) == -1,
	    "HTTP/2 is refused");
}

static bool
chunked_split(const char *in, size_t len, size_t cut, struct strbuf *out,
    int *result, size_t *used_total)
{
	struct http_chunked c;
	size_t used, at = 0;
	int r = 0;

	http_chunked_init(&c);
	*used_total = 0;
	if (cut) {
		r = http_chunked_feed(&c, in, cut, out, &used);
		if (r < 0)
			return false;
		*used_total += used;
		at = cut;
	}
	if (r == 0) {
		r = http_chunked_feed(&c, in + at, len - at, out, &used);
		*used_total += used;
	}
	*result = r;
	return r >= 0;
}

static void
test_chunked(void)
{
	static const char body[] = "1e\r\n{\"StatusCode\":4,\"Error\":null}\n"
	    "\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\nHTTP/1.1";
	static const char want[] = "{\"StatusCode\":4,\"Error\":null}\nabc";
	size_t len = strlen(body), end = len - strlen("HTTP/1.1"), i, used,
	    bad = 0;
	struct strbuf out = STRBUF_INIT;
	struct http_chunked c;
	int r;

	for (i = 0; i <= len; i++) {
		strbuf_reset(&out);
		if (!chunked_split(body, len, i, &out, &r, &used) || r != 1 ||
		    strcmp(out.buf, want) || used != end)
			bad++;
	}
	ok(bad == 0, "a chunked body split at each of %zu boundaries", len + 1);

	strbuf_reset(&out);
	http_chunked_init(&c);
	bad = 0;
	for (i = 0; i < end; i++) {
		r = http_chunked_feed(&c, body + i, 1, &out, &used);
		if (used != 1 || r != (i + 1 == end))
			bad++;
	}
	ok(bad == 0 && !strcmp(out.buf, want),
	    "one byte at a time, complete only at the last");

	strbuf_reset(&out);
	http_chunked_init(&c);
	ok(http_chunked_feed(&c, "zz\r\n", 4, &out, &used) == -1,
	    "a size that is not hex is refused");
	http_chunked_init(&c);
	ok(http_chunked_feed(&c, "3\r\nabcX\r\n", 9, &out, &used) == -1,
	    "a chunk without its CRLF is refused");
	http_chunked_init(&c);
	ok(http_chunked_feed(&c, "1234567890abcdef0\r\n", 19, &out,
	    &used) == -1,
	    "an absurd size is refused");
	http_chunked_init(&c);
	ok(http_chunked_feed(&c, "a\r\n01234", 8, &out, &used) == 0,
	    "a body cut short is 'not yet'");
	strbuf_release(&out);
}

/* ---- a stream of JSON values -------------------------------------------- */

struct values {
	struct strvec v;
};

static int
take_value(void *ctx, const char *text, size_t len)
{
	struct values *vs = ctx;
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, text, len);
	strvec_push(&vs->v, sb.buf);
	strbuf_release(&sb);
	return 0;
}

static void
test_json_stream(void)
{
	static const char in[] =
	    "{\"status\":\"Pulling from x\",\"id\":\"1\"}\r\n"
	    "{\"status\":\"a } in a \\\"string\\\" {\",\"progressDetail\":"
	    "{\"current\":1}}\r\n"
	    "{\"error\":\"manifest unknown\",\"errorDetail\":{\"message\":"
	    "\"manifest unknown\"}}\r\n";
	size_t len = strlen(in), i, k, bad = 0;
	struct json_stream s;
	struct values vs;

	for (i = 0; i <= len; i++) {
		json_stream_init(&s);
		strvec_init(&vs.v);
		if (json_stream_feed(&s, in, i, take_value, &vs) ||
		    json_stream_feed(&s, in + i, len - i, take_value, &vs) ||
		    vs.v.n != 3 || !json_stream_idle(&s) ||
		    strcmp(vs.v.v[1], "{\"status\":\"a } in a \\\"string\\\" "
		    "{\",\"progressDetail\":{\"current\":1}}"))
			bad++;
		strvec_clear(&vs.v);
		json_stream_release(&s);
	}
	ok(bad == 0, "a progress stream split at each of %zu boundaries",
	    len + 1);

	json_stream_init(&s);
	strvec_init(&vs.v);
	bad = 0;
	for (k = 0; k < len; k++)
		if (json_stream_feed(&s, in + k, 1, take_value, &vs))
			bad++;
	ok(bad == 0 && vs.v.n == 3 && json_stream_idle(&s),
	    "one byte at a time");
	strvec_clear(&vs.v);
	json_stream_release(&s);

	json_stream_init(&s);
	strvec_init(&vs.v);
	ok(json_stream_feed(&s, "{\"a\":", 5, take_value, &vs) == 0 &&
	    !json_stream_idle(&s), "a value cut short is not idle");
	json_stream_release(&s);
	json_stream_init(&s);
	errno = 0;
	ok(json_stream_feed(&s, "OK", 2, take_value, &vs) == -1 &&
	    errno == EPROTO, "text that is not an object is refused");
	strvec_clear(&vs.v);
	json_stream_release(&s);
}

/* ---- URLs, versions, text ----------------------------------------------- */

static void
test_url(void)
{
	struct strbuf path = STRBUF_INIT, msg = STRBUF_INIT, url = STRBUF_INIT;
	size_t max = engine_sun_path_max();

	ok(max == 107, "sun_path holds 107 bytes and a NUL on Linux");
	ok(engine_url_socket("unix:///run/podman/podman.sock", &path, &msg) ==
	    0 && !strcmp(path.buf, "/run/podman/podman.sock"),
	    "unix:///abs gives the path");
	ok(engine_url_socket("tcp://127.0.0.1:2375", &path, &msg) == 3001 &&
	    strstr(msg.buf, "'tcp'"), "tcp:// is refused, naming the scheme");
	strbuf_reset(&msg);
	ok(engine_url_socket("ssh://me@host", &path, &msg) == 3001 &&
	    strstr(msg.buf, "'ssh'"), "ssh:// is refused");
	strbuf_reset(&msg);
	ok(engine_url_socket("http://user:s3cret@host/x", &path, &msg) ==
	    3001 && !strstr(msg.buf, "s3cret") && strstr(msg.buf, "***"),
	    "a password in a refused URL is never printed");
	strbuf_reset(&msg);
	ok(engine_url_socket("/run/x.sock", &path, &msg) == 3001 &&
	    strstr(msg.buf, "unix:///run/x.sock"),
	    "a bare path is refused with the spelling to use");
	strbuf_reset(&msg);
	ok(engine_url_socket("unix://run/x.sock", &path, &msg) == 3001,
	    "a relative unix path is refused");
	ok(engine_url_socket("", &path, &msg) == 3001, "an empty URL");
	ok(engine_url_socket("npipe:////./pipe/docker_engine", &path, &msg) ==
	    3001, "npipe:// is refused");

	strbuf_addstr(&url, "unix://");
	strbuf_addch(&url, '/');
	while (url.len < strlen("unix://") + max)
		strbuf_addch(&url, 'a');
	ok(engine_url_socket(url.buf, &path, &msg) == 0 && path.len == max,
	    "a path of exactly %zu bytes is accepted", max);
	strbuf_addch(&url, 'a');
	strbuf_reset(&msg);
	ok(engine_url_socket(url.buf, &path, &msg) == 3003 &&
	    strstr(msg.buf, "108 bytes") && strstr(msg.buf, "107"),
	    "one byte more is refused naming the length and the limit");
	strbuf_release(&path);
	strbuf_release(&msg);
	strbuf_release(&url);
}

static void
test_versions_and_text(void)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[16];

	ok(engine_api_parse("1.41") == 1041 && engine_api_parse("1.9") ==
	    1009 && engine_api_parse("1.40") < engine_api_parse("1.41") &&
	    engine_api_parse("1.100") > engine_api_parse("1.99"),
	    "API versions compare numerically");
	ok(engine_api_parse("1.41.0") == -1 && engine_api_parse("x") == -1 &&
	    engine_api_parse("1.") == -1 && engine_api_parse(".41") == -1 &&
	    engine_api_parse("") == -1 && engine_api_parse(NULL) == -1,
	    "malformed versions are refused");
	engine_api_format(1041, buf, sizeof(buf));
	is_str(buf, "1.41", "format");

	url_escape(&sb, "localhost/img@sha256:ab cd", true);
	is_str(sb.buf, "localhost/img@sha256:ab%20cd", "path escaping");
	strbuf_reset(&sb);
	url_escape(&sb, "{\"label\":[\"a=b\"]}", false);
	is_str(sb.buf, "%7B%22label%22%3A%5B%22a%3Db%22%5D%7D",
	    "query escaping");
	strbuf_reset(&sb);
	engine_clean_text(&sb, "line one\nline\ttwo\x1b[31m\x7f \n", 25, 100);
	is_str(sb.buf, "line one line two?[31m?", "control bytes are cleaned");
	strbuf_reset(&sb);
	engine_clean_text(&sb, "ab\xc3\xa9z", 5, 3);
	is_str(sb.buf, "ab...", "a cut backs off to a character boundary");
	strbuf_release(&sb);
}

static void
test_times(void)
{
	long long t = -1;

	ok(engine_time_parse("1970-01-01T00:00:00Z", &t) == 0 && t == 0,
	    "the epoch");
	ok(engine_time_parse("2026-11-29T21:32:19Z", &t) == 0 &&
	    t == 1795987939, "a volume's CreatedAt (podman)");
	ok(engine_time_parse("2016-06-07T20:31:11.853781916Z", &t) == 0 &&
	    t == 1465331471, "a fraction is dropped (Docker)");
	ok(engine_time_parse("2016-06-07T22:31:11+02:00", &t) == 0 &&
	    t == 1465331471, "an offset east of UTC");
	ok(engine_time_parse("2016-06-07T19:01:11.5-01:30", &t) == 0 &&
	    t == 1465331471, "an offset west of UTC, with a fraction");
	ok(engine_time_parse("2024-02-29T00:00:00Z", &t) == 0 &&
	    t == 1709164800, "a leap day");
	ok(engine_time_parse("2023-02-29T00:00:00Z", &t) < 0 &&
	    engine_time_parse("2026-13-01T00:00:00Z", &t) < 0 &&
	    engine_time_parse("2026-11-29 21:32:19Z", &t) < 0 &&
	    engine_time_parse("2026-11-29T21:32:19", &t) < 0 &&
	    engine_time_parse("2026-11-29T21:32:19.Z", &t) < 0 &&
	    engine_time_parse("2026-11-29T21:32:19Zx", &t) < 0 &&
	    engine_time_parse("2026-11-29T21:32", &t) < 0 &&
	    engine_time_parse("2026-11-", &t) < 0 &&
	    engine_time_parse("", &t) < 0 && engine_time_parse(NULL, &t) < 0,
	    "what is not an RFC 3339 time is refused");
}

int
main(void)
{
	test_jsonr_basic();
	test_jsonr_strings();
	test_jsonr_refusals();
	test_jsonr_numbers();
	test_jsonr_growth_and_prefixes();
	test_demux();
	test_http_head();
	test_chunked();
	test_json_stream();
	test_url();
	test_versions_and_text();
	test_times();
	return done_testing();
}
