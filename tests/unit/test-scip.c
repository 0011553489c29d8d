/*
 * test-scip: lib/scip byte by byte: the SCIP index check against
 * hand-encoded protobuf (good indexes, and every way one can be cut,
 * oversized or misplaced), the project names, the built-in commands and
 * status.json's round trip.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scip.h"
#include "strbuf.h"
#include "tap.h"
#include "xalloc.h"

/* ---- a small protobuf encoder for the test inputs ------------------------ */

static void
put_varint(struct strbuf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		strbuf_addch(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void
put_tag(struct strbuf *b, unsigned num, unsigned wt)
{
	put_varint(b, (uint64_t)num << 3 | wt);
}

static void
put_bytes(struct strbuf *b, unsigned num, const void *p, size_t n)
{
	put_tag(b, num, 2);
	put_varint(b, n);
	strbuf_add(b, p, n);
}

static void
put_str(struct strbuf *b, unsigned num, const char *s)
{
	put_bytes(b, num, s, strlen(s));
}

static void
put_msg(struct strbuf *b, unsigned num, const struct strbuf *m)
{
	put_bytes(b, num, m->buf, m->len);
}

/* Metadata { version 0, tool_info { "fake", "1.0", ["-x"] },
 * project_root, text_document_encoding UTF8 } */
static void
metadata(struct strbuf *out)
{
	struct strbuf m = STRBUF_INIT, t = STRBUF_INIT;

	put_str(&t, 1, "fake");
	put_str(&t, 2, "1.0");
	put_str(&t, 3, "-x");
	put_tag(&m, 1, 0);
	put_varint(&m, 0);
	put_msg(&m, 2, &t);
	put_str(&m, 3, "file:///ws/p");
	put_tag(&m, 4, 0);
	put_varint(&m, 1);
	put_msg(out, 1, &m);
	strbuf_release(&m);
	strbuf_release(&t);
}

/* Document { relative_path, language, an occurrence, a symbol } */
static void
document(struct strbuf *out, const char *path)
{
	struct strbuf d = STRBUF_INIT, occ = STRBUF_INIT, sym = STRBUF_INIT;

	if (path)
		put_str(&d, 1, path);
	put_str(&d, 4, "go");
	put_tag(&occ, 1, 2);	/* range: packed int32 */
	put_varint(&occ, 3);
	strbuf_add(&occ, "\x01\x02\x05", 3);
	put_str(&occ, 2, "local 0");
	put_msg(&d, 2, &occ);
	put_str(&sym, 1, "scip-go gomod x v1 `x`/F().");
	put_msg(&d, 3, &sym);
	put_msg(out, 2, &d);
	strbuf_release(&d);
	strbuf_release(&occ);
	strbuf_release(&sym);
}

static void
external(struct strbuf *out)
{
	struct strbuf s = STRBUF_INIT;

	put_str(&s, 1, "scip-go gomod fmt v1 `fmt`/Println().");
	put_str(&s, 3, "Println formats");
	put_msg(out, 3, &s);
	strbuf_release(&s);
}

static int
check(const struct strbuf *b, struct scip_facts *f, struct strbuf *why)
{
	strbuf_reset(why);
	return scip_check((const uint8_t *)b->buf, b->len, f, why);
}

static void
refused(const struct strbuf *b, const char *want, const char *what)
{
	struct strbuf why = STRBUF_INIT;
	int r = check(b, NULL, &why);

	ok(r < 0 && strstr(why.buf, want), "%s is refused (%s)", what,
	    why.buf);
	strbuf_release(&why);
}

static void
raw(struct strbuf *b, const char *bytes, size_t n)
{
	strbuf_reset(b);
	strbuf_add(b, bytes, n);
}

/* ---- the check ------------------------------------------------------- */

static void
test_good(void)
{
	struct strbuf b = STRBUF_INIT, why = STRBUF_INIT;
	struct scip_facts f;

	metadata(&b);
	ok(check(&b, &f, &why) == 0 && f.documents == 0,
	    "metadata alone is an index (%s)", why.buf);
	is_str(f.tool, "fake", "the tool's name is read");
	is_str(f.tool_version, "1.0", "and its version");

	document(&b, "src/main.go");
	document(&b, "a.b/..c/d");
	external(&b);
	/* An unknown Index field is skipped, as protobuf readers do. */
	put_tag(&b, 9, 0);
	put_varint(&b, 300);
	put_tag(&b, 10, 5);
	strbuf_add(&b, "abcd", 4);
	put_tag(&b, 11, 1);
	strbuf_add(&b, "abcdefgh", 8);
	ok(check(&b, &f, &why) == 0, "documents, symbols, unknown fields "
	    "(%s)", why.buf);
	ok(f.documents == 2 && f.external_symbols == 1,
	    "two documents and one external symbol counted");

	/* The streamed form (one Index message per field, concatenated)
	 * is the same bytes: what scip-go and scip-python write. */
	strbuf_reset(&b);
	metadata(&b);
	external(&b);
	document(&b, "x.py");
	ok(check(&b, &f, &why) == 0 && f.documents == 1,
	    "documents may follow external symbols");
	strbuf_release(&b);
	strbuf_release(&why);
}

static void
test_framing(void)
{
	struct strbuf b = STRBUF_INIT, m = STRBUF_INIT;

	raw(&b, "", 0);
	refused(&b, "empty", "an empty file");
	raw(&b, "hello world\n", 12);
	refused(&b, "does not start with its metadata", "text");
	raw(&b, "\x0a", 1);
	refused(&b, "at byte 1: a varint is cut off", "a tag without its "
	    "length");
	raw(&b, "\x0a\x80", 2);
	refused(&b, "at byte 1: a varint is cut off", "a truncated varint");
	raw(&b, "\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12);
	refused(&b, "overflows 64 bits", "an 11-byte varint");
	raw(&b, "\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11);
	refused(&b, "overflows 64 bits", "a varint past 64 bits");
	raw(&b, "\x0a\x05\x08\x00", 4);
	refused(&b, "claims 5 bytes, 2 remain", "a length past the end");
	raw(&b, "\x0a\xff\xff\xff\xff\x0f", 6);
	refused(&b, "claims 4294967295 bytes", "a 4 GiB length");
	raw(&b, "\x02\x00", 2);
	refused(&b, "field number 0", "field number 0");
	raw(&b, "\x0a\x00\x1b", 3);
	refused(&b, "wire type 3", "a group start (wire type 3)");
	raw(&b, "\x0a\x00\x1c", 3);
	refused(&b, "wire type 4", "a group end (wire type 4)");
	raw(&b, "\x0a\x00\x1e", 3);
	refused(&b, "wire type 6", "wire type 6");
	raw(&b, "\x0a\x00\x1f", 3);
	refused(&b, "wire type 7", "wire type 7");
	raw(&b, "\x0a\x00\x4d\x01\x02", 5);
	refused(&b, "field 9 is cut off", "a fixed32 cut off");
	raw(&b, "\x0a\x00\x49\x01\x02\x03\x04\x05\x06\x07", 10);
	refused(&b, "field 9 is cut off", "a fixed64 cut off");

	/* A length inside a message that runs past the message. */
	strbuf_reset(&b);
	metadata(&b);
	strbuf_reset(&m);
	put_tag(&m, 1, 2);
	put_varint(&m, 40);
	strbuf_add(&m, "short", 5);
	put_msg(&b, 2, &m);
	refused(&b, "claims 40 bytes, 5 remain", "a document's path past "
	    "the document's end");

	/* A bad frame deep in a document's occurrences. */
	strbuf_reset(&b);
	metadata(&b);
	strbuf_reset(&m);
	put_str(&m, 1, "a.go");
	put_bytes(&m, 2, "\x0a\x09zz", 4);
	put_msg(&b, 2, &m);
	refused(&b, "claims 9 bytes", "an occurrence's inner length");

	/* The whole index cut at every byte: never accepted as it was. */
	strbuf_reset(&b);
	metadata(&b);
	document(&b, "src/main.go");
	{
		struct strbuf why = STRBUF_INIT;
		struct scip_facts f;
		size_t cut, bad = 0;

		for (cut = 0; cut < b.len; cut++) {
			strbuf_reset(&why);
			if (scip_check((const uint8_t *)b.buf, cut, &f,
			    &why) == 0 && f.documents == 1)
				bad++;
		}
		ok(bad == 0, "no truncation of a one-document index passes "
		    "as that index (%zu did)", bad);
		strbuf_release(&why);
	}
	strbuf_release(&b);
	strbuf_release(&m);
}

static void
test_order(void)
{
	struct strbuf b = STRBUF_INIT;

	document(&b, "a.go");
	metadata(&b);
	refused(&b, "at byte 0: the index does not start with its metadata "
	    "(field 1) but with field 2", "a document before the metadata");
	strbuf_reset(&b);
	external(&b);
	refused(&b, "but with field 3", "symbols without metadata");
	strbuf_reset(&b);
	metadata(&b);
	document(&b, "a.go");
	metadata(&b);
	refused(&b, "a second time", "metadata twice");
	strbuf_reset(&b);
	put_tag(&b, 1, 0);
	put_varint(&b, 1);
	refused(&b, "metadata (field 1) has wire type 0", "metadata as a "
	    "number");
	strbuf_release(&b);
}

static void
test_paths(void)
{
	static const char *const bad[][2] = {
		{ "/etc/passwd", "is absolute" },
		{ "/", "is absolute" },
		{ "a/../../etc", "'..' component" },
		{ "..", "'..' component" },
		{ "../x.go", "'..' component" },
		{ "./x.go", "'.' component" },
		{ "a//b", "empty component" },
		{ "a/", "empty component" },
		{ "", "is empty" },
	};
	struct strbuf b = STRBUF_INIT, w = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		strbuf_reset(&b);
		metadata(&b);
		document(&b, bad[i][0]);
		strbuf_reset(&w);
		strbuf_addf(&w, "relative_path '%s'", bad[i][0]);
		refused(&b, bad[i][1], w.buf);
	}
	strbuf_reset(&b);
	metadata(&b);
	document(&b, NULL);
	refused(&b, "has no relative_path", "a document without a path");
	strbuf_reset(&b);
	metadata(&b);
	{
		struct strbuf d = STRBUF_INIT;

		put_bytes(&d, 1, "a\xff.go", 5);
		put_msg(&b, 2, &d);
		refused(&b, "not UTF-8", "a path that is not UTF-8");
		strbuf_reset(&b);
		strbuf_reset(&d);
		metadata(&b);
		put_bytes(&d, 1, "a\0b", 3);
		put_msg(&b, 2, &d);
		refused(&b, "NUL", "a path holding a NUL");
		strbuf_reset(&b);
		strbuf_reset(&d);
		metadata(&b);
		put_str(&d, 1, "ok.go");
		put_str(&d, 1, "/late/absolute.go");
		put_msg(&b, 2, &d);
		refused(&b, "is absolute", "a second, absolute path in one "
		    "document");
		strbuf_release(&d);
	}
	strbuf_reset(&b);
	metadata(&b);
	document(&b, "dir/caf\xc3\xa9.py");
	strbuf_reset(&w);
	ok(check(&b, NULL, &w) == 0, "a UTF-8 path is fine (%s)", w.buf);
	strbuf_release(&b);
	strbuf_release(&w);
}

static void
test_fd(void)
{
	char dir[] = "/tmp/test-scip.XXXXXX";
	struct strbuf b = STRBUF_INIT, why = STRBUF_INIT;
	struct scip_facts f;
	char *path;
	int fd;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	path = xasprintf("%s/index.scip", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok(fd >= 0, "a file to check");
	ok(scip_check_fd(fd, &f, &why) < 0 && strstr(why.buf, "empty"),
	    "an empty file is refused (%s)", why.buf);
	metadata(&b);
	document(&b, "m.go");
	ok(write(fd, b.buf, b.len) == (ssize_t)b.len, "written");
	strbuf_reset(&why);
	ok(scip_check_fd(fd, &f, &why) == 0 && f.documents == 1,
	    "the file holding an index passes (%s)", why.buf);
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	strbuf_reset(&why);
	ok(scip_check_fd(fd, &f, &why) < 0 && strstr(why.buf,
	    "not a regular file"), "a directory is refused (%s)", why.buf);
	close(fd);
	unlink(path);
	rmdir(dir);
	free(path);
	strbuf_release(&b);
	strbuf_release(&why);
}

/* ---- projects, tools, status ------------------------------------------- */

static void
test_projects(void)
{
	static const char *const good[] = {
		".", "a", "services/api", "a.b/c-d", ".mag", "x.magus",
		"my.magus-thing/y",
	};
	static const char *const bad[] = {
		"", "/abs", "a/", "a//b", "./a", "a/.", "a/../b", "..",
		"a::b", "index.scip", "a/status.json", ".magus",
		"a/.magus-work", ".magusx/y",
	};
	char *d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		ok(!scip_project_error(good[i]), "project '%s' is accepted",
		    good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ok(scip_project_error(bad[i]) != NULL, "project '%s' is "
		    "refused (%s)", bad[i], scip_project_error(bad[i]));
	is_str(scip_image_digest("r/x@sha256:0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef"), "sha256:0123456789abcdef"
	    "0123456789abcdef0123456789abcdef0123456789abcdef",
	    "a pinned reference's digest");
	ok(!scip_image_digest("r/x:1") && !scip_image_digest("@sha256:00") &&
	    !scip_image_digest("r/x@sha256:0123456789ABCDEF0123456789abcdef"
	    "0123456789abcdef0123456789abcdef") &&
	    !scip_image_digest("r/x@sha256:0123"), "a tag, no name, "
	    "uppercase hex, a short digest: not pinned");
	d = scip_index_dir("/ws/.magus", "svc/api");
	is_str(d, "/ws/.magus/index/svc/api", "a project's index directory");
	free(d);
	d = scip_index_dir("/ws/.magus", ".");
	is_str(d, "/ws/.magus/index", "the whole workspace's");
	free(d);
}

static bool
has_arg(const char *const *argv, const char *want)
{
	for (; argv && *argv; argv++)
		if (!strcmp(*argv, want))
			return true;
	return false;
}

static void
test_tools(void)
{
	const char *const *go = scip_tool_command("scip-go");
	const char *const *ts = scip_tool_command("scip-typescript");
	const char *const *py = scip_tool_command("scip-python");

	ok(go && !strcmp(go[0], "scip-go") && has_arg(go,
	    "--output={output}") && has_arg(go, "--module-version=local"),
	    "scip-go writes to {output} and names its version");
	ok(ts && has_arg(ts, "index") && has_arg(ts, "{output}") &&
	    !has_arg(ts, "--infer-tsconfig"), "scip-typescript never infers "
	    "(and writes) a tsconfig");
	ok(py && has_arg(py, "--project-version") && has_arg(py,
	    "--environment") && has_arg(py, "{work}/empty-environment.json"),
	    "scip-python is told its version and environment: no git, no "
	    "pip");
	ok(!scip_tool_command("scip-java"), "no built-in scip-java");
}

static void
test_status(void)
{
	char dir[] = "/tmp/test-scip.XXXXXX";
	struct scip_status s, r;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *p;
	int fd;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	ok(scip_status_read(dir, &r, &err) == 0, "no status.json: never run");
	scip_status_init(&s);
	s.state = SCIP_STATE_OOM;
	s.project = xstrdup("svc/api");
	s.reason = xstrdup("the indexer went over \"memory_mb\": 64");
	s.fix = xstrdup("raise memory_mb");
	s.code = xstrdup("MGS5003");
	s.time = xstrdup("2026-11-29T21:33:35Z");
	s.image = xstrdup("x@sha256:ab");
	s.image_digest = xstrdup("sha256:ab");
	s.memory_mb = 64;
	s.cpus = 0.5;
	s.pids = 128;
	s.exit_status = 137;
	s.peak_memory_bytes = 67108864;
	s.cpu_usec = 1234;
	s.oom_kills = 1;
	ok(scip_status_write(dir, &s) == 0, "written");
	ok(scip_status_read(dir, &r, &err) == 1, "read back (%s)", err.buf);
	ok(r.state == SCIP_STATE_OOM && r.memory_mb == 64 && r.cpus == 0.5 &&
	    r.pids == 128 && r.exit_status == 137 && r.oom_kills == 1 &&
	    r.peak_memory_bytes == 67108864 && r.cpu_usec == 1234 &&
	    r.index_bytes == -1, "every number survives");
	is_str(r.reason, s.reason, "the reason survives its quotes");
	is_str(r.code, "MGS5003", "the code");
	is_str(r.image_digest, "sha256:ab", "the digest");
	scip_status_release(&r);
	p = xasprintf("%s/status.json", dir);
	ok(strbuf_read_file(&text, p) > 0 && text.buf[text.len - 1] == '\n' &&
	    !strstr(text.buf, "\"index\":"), "one line, no index object for a "
	    "failed run");
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ok(fd >= 0 && write(fd, "{\"state\":\"odd\"}", 15) == 15,
	    "overwritten with an unknown state");
	close(fd);
	strbuf_reset(&err);
	ok(scip_status_read(dir, &r, &err) < 0 && strstr(err.buf,
	    "no known state"), "an unknown state is an error (%s)", err.buf);
	scip_status_release(&r);
	unlink(p);
	free(p);
	rmdir(dir);
	ok(scip_state_parse("unavailable") == SCIP_STATE_UNAVAILABLE &&
	    scip_state_parse("none") == SCIP_STATE_NONE,
	    "state names parse");
	scip_status_release(&s);
	strbuf_release(&err);
	strbuf_release(&text);
}

int
main(void)
{
	test_good();
	test_framing();
	test_order();
	test_paths();
	test_fd();
	test_projects();
	test_tools();
	test_status();
	return done_testing();
}
