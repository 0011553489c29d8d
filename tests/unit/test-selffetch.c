/*
 * test-selffetch: unit tests, in TAP, of the lib modules behind releases
 * and the inner magus: BLAKE2b, minisign signatures and keys, the release
 * index, BUILD-INFO, innerbuild_verify/innerbuild_find, and dirutil.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "blake2b.h"
#include "digest.h"
#include "dirutil.h"
#include "innerbuild.h"
#include "minisign.h"
#include "platform.h"
#include "relindex.h"
#include "strbuf.h"
#include "strutil.h"
#include "tap.h"
#include "xalloc.h"

static char tmpdir[] = "/tmp/test-selffetch.XXXXXX";

static void
hex(const unsigned char *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static void
test_blake2b(void)
{
	unsigned char out[64], ref[64], msg[300];
	char h[129];
	unsigned int n;
	size_t len;
	bool all = true;

	blake2b(out, 64, "abc", 3);
	hex(out, 64, h);
	is_str(h, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbf"
	    "fa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd40"
	    "09923", "BLAKE2b-512(\"abc\") is RFC 7693's vector");
	blake2b(out, 32, "abc", 3);
	hex(out, 32, h);
	is_str(h, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d"
	    "52319", "BLAKE2b-256(\"abc\")");
	blake2b(out, 32, "", 0);
	hex(out, 32, h);
	is_str(h, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12"
	    "fe3a8", "BLAKE2b-256 of nothing");
	for (len = 0; len < sizeof(msg); len++)
		msg[len] = (unsigned char)(len * 7 + 3);
	for (len = 0; len <= sizeof(msg); len++) {
		blake2b(out, 64, msg, len);
		if (EVP_Digest(msg, len, ref, &n, EVP_blake2b512(), NULL) != 1 ||
		    memcmp(out, ref, 64))
			all = false;
	}
	ok(all, "BLAKE2b-512 equals libcrypto's for 0..300 bytes (every "
	    "block boundary)");
}

static void
test_minisign(void)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, sig = STRBUF_INIT;
	struct minisign_seckey sk, sk2, other;
	struct minisign_pubkey pk, pk2;
	struct minisign_sig s;
	const char msg[] = "the release index";
	char *p;

	ok(minisign_keygen(&sk, &err) == 0, "keygen");
	minisign_seckey_write(&sk, &text);
	ok(minisign_seckey_parse(text.buf, &sk2, &err) == 0 &&
	    !memcmp(&sk, &sk2, sizeof(sk)), "a secret key reads back");
	/* One bit of the seed flipped: the checksum catches it. */
	p = strchr(text.buf, '\n') + 1 + 100;
	*p = *p == 'A' ? 'B' : 'A';
	strbuf_reset(&err);
	ok(minisign_seckey_parse(text.buf, &sk2, &err) == MINISIGN_MALFORMED,
	    "a damaged secret key is refused: %s", err.buf);
	strbuf_reset(&text);

	minisign_seckey_pubkey(&sk, &pk);
	minisign_pubkey_write(&pk, &text);
	ok(minisign_pubkey_parse(text.buf, &pk2, &err) == 0 &&
	    !memcmp(&pk, &pk2, sizeof(pk)), "a minisign.pub file reads back");
	strbuf_reset(&text);
	minisign_pubkey_base64(&pk, &text);
	ok(text.len == 56 && minisign_pubkey_parse(text.buf, &pk2, &err) == 0 &&
	    !memcmp(&pk, &pk2, sizeof(pk)), "so does the bare base64 line");
	ok(minisign_pubkey_parse("RWQ", &pk2, &err) == MINISIGN_MALFORMED &&
	    minisign_pubkey_parse("", &pk2, &err) == MINISIGN_MALFORMED,
	    "a short or empty key is refused");

	ok(minisign_sign(&sk, msg, strlen(msg), "untrusted", "trusted words",
	    &sig, &err) == 0, "sign");
	ok(minisign_sig_parse(sig.buf, sig.len, &s, &err) == 0 &&
	    !strcmp(s.alg, "ED") && !strcmp(s.trusted_comment, "trusted words"),
	    "the signature is prehashed (ED) and carries its trusted comment");
	ok(minisign_verify(&pk, &s, msg, strlen(msg), &err) == MINISIGN_OK,
	    "it verifies");
	strbuf_reset(&err);
	ok(minisign_verify(&pk, &s, msg, strlen(msg) - 1, &err) ==
	    MINISIGN_BAD_SIGNATURE, "another message does not: %s", err.buf);
	free(s.trusted_comment);
	s.trusted_comment = xstrdup("trusted wordz");
	ok(minisign_verify(&pk, &s, msg, strlen(msg), &err) ==
	    MINISIGN_BAD_TRUSTED_COMMENT, "an edited trusted comment does not");
	minisign_sig_release(&s);

	minisign_keygen(&other, &err);
	minisign_seckey_pubkey(&other, &pk2);
	minisign_sig_parse(sig.buf, sig.len, &s, &err);
	strbuf_reset(&err);
	ok(minisign_verify(&pk2, &s, msg, strlen(msg), &err) ==
	    MINISIGN_OTHER_KEY && strstr(err.buf, "not by the trusted key"),
	    "another key's signature is named as such: %s", err.buf);
	/* Same key number, other key: the signature itself fails. */
	memcpy(pk2.keynum, pk.keynum, sizeof(pk.keynum));
	ok(minisign_verify(&pk2, &s, msg, strlen(msg), &err) ==
	    MINISIGN_BAD_SIGNATURE, "a forged key number does not help");
	minisign_sig_release(&s);

	ok(minisign_sig_parse(sig.buf, 20, &s, &err) == MINISIGN_MALFORMED,
	    "a cut signature file is malformed");
	strbuf_addstr(&sig, "more\n");
	ok(minisign_sig_parse(sig.buf, sig.len, &s, &err) == MINISIGN_MALFORMED,
	    "so is one with a fifth line");
	ok(minisign_sign(&sk, msg, 1, "a\nb", "t", &text, &err) < 0,
	    "a comment of two lines is refused");
	minisign_seckey_clear(&sk);
	minisign_seckey_clear(&sk2);
	minisign_seckey_clear(&other);
	strbuf_release(&text);
	strbuf_release(&err);
	strbuf_release(&sig);
}

static const char good_index[] =
    "{\"format\":1,\"versions\":{\"0.1.0\":{\"linux/arm64\":{\"sha256\":"
    "\"0000000000000000000000000000000000000000000000000000000000000001\","
    "\"size\":10,\"url\":\"b.tar.gz\"},\"linux/amd64\":{\"sha256\":"
    "\"0000000000000000000000000000000000000000000000000000000000000002\","
    "\"size\":20,\"url\":\"https://x.example/a.tar.gz\"}},\"0.0.9\":{"
    "\"linux/amd64\":{\"sha256\":"
    "\"0000000000000000000000000000000000000000000000000000000000000003\","
    "\"size\":30,\"url\":\"c\"}}}}\n";

static void
index_refused(const char *from, const char *to, const char *what)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct relindex ix;
	const char *at = strstr(good_index, from);

	if (!at) {
		ok(0, "test bug: '%s' not in the index", from);
		return;
	}
	strbuf_add(&text, good_index, (size_t)(at - good_index));
	strbuf_addstr(&text, to);
	strbuf_addstr(&text, at + strlen(from));
	ok(relindex_parse(&ix, text.buf, text.len, &err) < 0 && err.len,
	    "index refused: %s (%s)", what, err.buf);
	strbuf_release(&text);
	strbuf_release(&err);
}

static void
index_text_refused(const char *text, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	struct relindex ix;

	ok(relindex_parse(&ix, text, strlen(text), &err) < 0 && err.len,
	    "index refused: %s (%s)", what, err.buf);
	strbuf_release(&err);
}

static void
test_relindex(void)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, tc = STRBUF_INIT;
	struct relindex ix, ix2;
	const struct relindex_artifact *a;

	ok(relindex_parse(&ix, good_index, strlen(good_index), &err) == 0,
	    "a good index parses %s", err.buf);
	a = relindex_artifact(relindex_version(&ix, "0.1.0"), "linux/amd64");
	ok(a && a->size == 20 && !strcmp(a->url, "https://x.example/a.tar.gz"),
	    "an artifact is found by version and platform");
	ok(!relindex_version(&ix, "0.1") && !relindex_artifact(
	    relindex_version(&ix, "0.0.9"), "linux/arm64"),
	    "absent versions and platforms are absent");
	relindex_trusted_comment(&ix, &tc);
	is_str(tc.buf, "magus-release-index 0.0.9=linux/amd64 "
	    "0.1.0=linux/amd64,linux/arm64", "the trusted comment is sorted");
	relindex_write(&ix, &out);
	ok(relindex_parse(&ix2, out.buf, out.len, &err) == 0, "the written "
	    "index parses");
	strbuf_reset(&tc);
	relindex_write(&ix2, &tc);
	is_str(tc.buf, out.buf, "writing is stable");
	ok(relindex_set(&ix2, "0.2.0", "linux/amd64", "d.tar.gz", 5,
	    "00000000000000000000000000000000000000000000000000000000000000ff",
	    &err) == 0 && relindex_version(&ix2, "0.2.0"), "set adds a version");
	ok(relindex_set(&ix2, "0.2.0", "linux", "d", 5, a->sha256, &err) < 0 &&
	    relindex_set(&ix2, "0.2.0", "linux/amd64", "a b", 5, a->sha256,
	    &err) < 0 && relindex_set(&ix2, "../x", "linux/amd64", "d", 5,
	    a->sha256, &err) < 0, "set refuses what parse would refuse");
	relindex_release(&ix);
	relindex_release(&ix2);

	index_refused("\"format\":1", "\"format\":2", "another format");
	index_refused("\"format\":1,", "", "no format");
	index_refused("\"size\":10", "\"size\":\"10\"", "a size as a string");
	index_refused("\"size\":10", "\"size\":-10", "a negative size");
	index_refused("\"size\":10", "\"size\":1.5", "a fractional size");
	index_refused("\"size\":10", "\"size\":0", "a zero size");
	index_refused("\"size\":10", "\"size\":010", "a size with a leading 0");
	index_refused("\"size\":10", "\"size\":true", "a boolean size");
	index_refused("\"size\":10", "\"size\":99999999999999999", "a size "
	    "over 2^53");
	index_refused("\"sha256\":\"0000000000000000000000000000000000000000"
	    "000000000000000000000001\"", "\"sha256\":\"AB\"", "a short sha256");
	index_refused("00000000000000000000000000000000000000000000000000000000"
	    "00000001", "000000000000000000000000000000000000000000000000000000"
	    "00000000000A", "an upper-case sha256");
	index_refused("\"url\":\"b.tar.gz\"", "\"url\":\"b\\u0020c\"", "an "
	    "escape in a string");
	index_refused("\"url\":\"b.tar.gz\"", "\"url\":[\"b\"]", "a URL as a "
	    "list");
	index_refused("\"url\":\"b.tar.gz\"", "\"url\":\"b\",\"url\":\"c\"",
	    "a duplicate key");
	index_refused("\"url\":\"b.tar.gz\"", "\"url\":\"b\",\"extra\":1",
	    "an unknown key");
	index_refused(",\"url\":\"b.tar.gz\"", "", "a missing URL");
	index_refused("\"linux/arm64\"", "\"linux\"", "a bare OS");
	index_refused("\"linux/arm64\"", "\"Linux/arm64\"", "an OS in the "
	    "wrong case");
	index_refused("\"0.0.9\"", "\"../0.0.9\"", "a version with a slash");
	index_text_refused("{\"format\":1,\"versions\":[]}", "versions as a "
	    "list");
	index_refused("}}}}\n", "}}}}x", "text after the object");
	index_text_refused("[1]", "not an object");
	index_text_refused("{\"format\":1,\"versions\":{\"1\":{\"linux/amd64\":"
	    "\"x\"}}}", "an artifact as a string");
	index_text_refused("{\"format\":1,\"versions\":{},\"versions\":{}}",
	    "versions twice");
	index_text_refused("", "an empty document");
	index_refused("\"0.0.9\":{\"linux/amd64\":{\"sha256\":\"0000000000000"
	    "000000000000000000000000000000000000000000000000003\",\"size\":30,"
	    "\"url\":\"c\"}}", "\"0.0.9\":{}", "a version with no platform");
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&tc);
}

static void
test_layout(void)
{
	ok(innerbuild_layout_ok("bin/magus", false) &&
	    innerbuild_layout_ok("BUILD-INFO", false) &&
	    innerbuild_layout_ok("libexec/magus/magus-sandbox-exec", false) &&
	    innerbuild_layout_ok("bin", true) &&
	    innerbuild_layout_ok("libexec/magus", true),
	    "the layout's entries are allowed");
	ok(!innerbuild_layout_ok("/bin/magus", false) &&
	    !innerbuild_layout_ok("../bin/magus", false) &&
	    !innerbuild_layout_ok("bin/../bin/magus", false) &&
	    !innerbuild_layout_ok("./bin/magus", false) &&
	    !innerbuild_layout_ok("bin//magus", false) &&
	    !innerbuild_layout_ok("bin/magus", true) &&
	    !innerbuild_layout_ok("bin/sh", false) &&
	    !innerbuild_layout_ok("libexec/magus/magus-", false) &&
	    !innerbuild_layout_ok("libexec/magus/magus-a/b", false) &&
	    !innerbuild_layout_ok("libexec/magus/magus-UP", false) &&
	    !innerbuild_layout_ok("libexec/magus/magus-..", false) &&
	    !innerbuild_layout_ok("libexec/other", false) &&
	    !innerbuild_layout_ok("etc", true) &&
	    !innerbuild_layout_ok("FETCH-INFO", false),
	    "absolute paths, '..', other names and kinds are not");
}

/* Copy /proc/self/exe (an ELF for this host) to `path`, mode 0755. */
static void
copy_self(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int fd;

	strbuf_read_file(&sb, "/proc/self/exe");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, sb.buf, sb.len) != (ssize_t)sb.len)
		abort();
	close(fd);
	strbuf_release(&sb);
}

static void
write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
}

/* An inner build for the host in `dir`, BUILD-INFO and all. */
static void
make_inner(const char *dir, const char *version, const char *source,
    const char *platform)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct buildinfo bi;
	char *p;

	mkdir_p(dir, 0755, &err);
	p = xasprintf("%s/bin", dir);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/libexec/magus", dir);
	mkdir_p(p, 0755, &err);
	free(p);
	memset(&bi, 0, sizeof(bi));
	bi.version = xstrdup(version);
	bi.platform = xstrdup(platform);
	memcpy(bi.source, source, 65);
	bi.files = xcalloc(2, sizeof(*bi.files));
	bi.nfiles = 2;
	bi.files[0].path = xstrdup("libexec/magus/magus-sandbox-exec");
	bi.files[1].path = xstrdup("bin/magus");
	for (size_t i = 0; i < 2; i++) {
		p = path_join(dir, bi.files[i].path);
		copy_self(p);
		sha256_file_hex(p, bi.files[i].sha256, &bi.files[i].size, &err);
		free(p);
	}
	buildinfo_write(&bi, &sb);
	p = path_join(dir, INNER_BUILD_INFO);
	write_text(p, sb.buf);
	free(p);
	buildinfo_release(&bi);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static enum inner_state
verify(const char *dir, const char *plat, const char *version,
    const char *source, unsigned flags, struct strbuf *why)
{
	struct platform p;

	strbuf_reset(why);
	platform_parse(plat, &p, why);
	return innerbuild_verify(dir, &p, version, source, flags, why);
}

static void
test_buildinfo(void)
{
	struct strbuf why = STRBUF_INIT, sb = STRBUF_INIT;
	struct buildinfo bi;
	struct platform host;
	char src[65], *dir, *p, *other;
	char hostp[48];

	platform_host(&host);
	snprintf(hostp, sizeof(hostp), "%s", platform_str(&host));
	other = xstrdup(!strcmp(host.arch, "amd64") ? "linux/arm64" :
	    "linux/amd64");
	memset(src, 'a', 64);
	src[64] = '\0';
	dir = xasprintf("%s/inner", tmpdir);
	make_inner(dir, "1.2.3", src, hostp);

	ok(verify(dir, hostp, "1.2.3", src, INNER_VERIFY_HASHES, &why) ==
	    INNER_OK, "a complete inner build verifies %s", why.buf);
	ok(verify(dir, hostp, "1.2.4", src, 0, &why) == INNER_STALE &&
	    strstr(why.buf, "1.2.3") && strstr(why.buf, "1.2.4"),
	    "another version is stale, naming both: %s", why.buf);
	ok(verify(dir, hostp, "1.2.3", magus_source_hash, 0, &why) ==
	    INNER_STALE, "other sources are stale: %s", why.buf);
	ok(verify(dir, other, "1.2.3", src, 0, &why) == INNER_WRONG_PLATFORM,
	    "another platform is refused: %s", why.buf);
	ok(verify(dir, hostp, "1.2.3", NULL, INNER_VERIFY_FETCHED, &why) ==
	    INNER_DAMAGED, "a fetched entry needs FETCH-INFO: %s", why.buf);

	/* Same size, one byte changed: only hashing sees it. */
	p = path_join(dir, "bin/magus");
	{
		int fd = open(p, O_WRONLY | O_CLOEXEC);

		if (fd < 0 || pwrite(fd, "Z", 1, 4000) != 1)
			abort();
		close(fd);
	}
	ok(verify(dir, hostp, "1.2.3", src, 0, &why) == INNER_OK,
	    "without hashing, a same-size change passes the quick check");
	ok(verify(dir, hostp, "1.2.3", src, INNER_VERIFY_HASHES, &why) ==
	    INNER_DAMAGED, "with hashing it is caught: %s", why.buf);
	copy_self(p);
	free(p);

	p = path_join(dir, "libexec/magus/magus-extra");
	copy_self(p);
	ok(verify(dir, hostp, "1.2.3", src, 0, &why) == INNER_DAMAGED,
	    "a file BUILD-INFO does not list is refused: %s", why.buf);
	unlink(p);
	if (symlink("/bin/sh", p) < 0)
		abort();
	ok(verify(dir, hostp, "1.2.3", src, 0, &why) == INNER_DAMAGED,
	    "so is a symlink: %s", why.buf);
	unlink(p);
	free(p);
	p = path_join(dir, "libexec/magus/magus-sandbox-exec");
	unlink(p);
	ok(verify(dir, hostp, "1.2.3", src, 0, &why) == INNER_DAMAGED,
	    "a missing file is refused: %s", why.buf);
	free(p);
	rm_rf(dir, &why);

	/* BUILD-INFO says the other arch; the ELF headers say the host. */
	make_inner(dir, "1.2.3", src, other);
	ok(verify(dir, other, "1.2.3", src, 0, &why) == INNER_WRONG_PLATFORM &&
	    strstr(why.buf, "executable for"), "ELF headers are checked "
	    "against the platform, naming both: %s", why.buf);
	rm_rf(dir, &why);
	ok(verify(dir, hostp, "1.2.3", src, 0, &why) == INNER_MISSING,
	    "no directory is missing");

	ok(buildinfo_parse("magus-build-info 1\nversion 1\nplatform "
	    "linux/amd64\nsource x\n", 47, &bi, &why) < 0,
	    "a bad source hash is refused");
	strbuf_addf(&sb, "magus-build-info 1\nversion 1\nplatform linux/amd64\n"
	    "source %s\nfile %s 5 libexec/magus/magus-b\nfile %s 5 bin/magus\n",
	    src, src, src);
	ok(buildinfo_parse(sb.buf, sb.len, &bi, &why) < 0,
	    "unsorted files are refused");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "magus-build-info 1\nversion 1\nplatform linux/amd64\n"
	    "source %s\nfile %s 5 bin/../x\n", src, src);
	ok(buildinfo_parse(sb.buf, sb.len, &bi, &why) < 0,
	    "a path outside the layout is refused");
	free(dir);
	free(other);
	strbuf_release(&why);
	strbuf_release(&sb);
}

static void
test_find(void)
{
	struct strbuf why = STRBUF_INIT, fi = STRBUF_INIT;
	struct inner_lookup l;
	struct platform host;
	char *cache = xasprintf("%s/ws/.magus", tmpdir);
	char *xdg = xasprintf("%s/xdg", tmpdir);
	char *store, *entry, *p, hex[65];

	platform_host(&host);
	setenv("XDG_CACHE_HOME", xdg, 1);
	store = innerbuild_store_dir(cache, &host);
	entry = xasprintf("%s/magus/self/%s/%s", xdg, PACKAGE_VERSION,
	    platform_dirname(&host));

	ok(innerbuild_find(cache, &host, 0, &l) == INNER_MISSING &&
	    l.from == INNER_FROM_CACHE && strstr(l.fix.buf, "magus self fetch "),
	    "nothing anywhere: missing, fix '%s'", l.fix.buf);
	is_str(l.cache, entry, "the cache entry is $XDG_CACHE_HOME/magus/self/"
	    "VERSION/OS-ARCH");
	inner_lookup_release(&l);

	make_inner(entry, PACKAGE_VERSION, magus_source_hash,
	    platform_str(&host));
	ok(innerbuild_find(cache, &host, 0, &l) == INNER_DAMAGED,
	    "a cache entry without FETCH-INFO is not used: %s", l.why.buf);
	inner_lookup_release(&l);
	p = path_join(entry, INNER_BUILD_INFO);
	strbuf_read_file(&fi, p);
	sha256_hex(fi.buf, fi.len, hex);
	free(p);
	strbuf_reset(&fi);
	fetchinfo_write(&fi, PACKAGE_VERSION, platform_str(&host),
	    "https://x.example/a.tar.gz", 123,
	    "00000000000000000000000000000000000000000000000000000000000000aa",
	    hex);
	p = path_join(entry, INNER_FETCH_INFO);
	write_text(p, fi.buf);
	ok(innerbuild_find(cache, &host, INNER_VERIFY_HASHES, &l) == INNER_OK &&
	    l.from == INNER_FROM_CACHE && !strcmp(l.dir, entry),
	    "a fetched entry is found in the cache %s", l.why.buf);
	inner_lookup_release(&l);
	write_text(p, "magus-fetch-info 1\n");
	ok(innerbuild_find(cache, &host, 0, &l) == INNER_DAMAGED,
	    "a damaged FETCH-INFO is refused: %s", l.why.buf);
	inner_lookup_release(&l);
	free(p);

	make_inner(store, PACKAGE_VERSION, magus_source_hash,
	    platform_str(&host));
	ok(innerbuild_find(cache, &host, INNER_VERIFY_HASHES, &l) == INNER_OK &&
	    l.from == INNER_FROM_STORE && !strcmp(l.dir, store),
	    "a current build in the platform store comes first");
	inner_lookup_release(&l);
	rm_rf(store, &why);
	make_inner(store, PACKAGE_VERSION,
	    "1111111111111111111111111111111111111111111111111111111111111111",
	    platform_str(&host));
	ok(innerbuild_find(cache, &host, 0, &l) == INNER_STALE &&
	    l.from == INNER_FROM_STORE &&
	    !strcmp(l.fix.buf, "make platform-store"),
	    "a stale one is refused with its fix: %s", l.why.buf);
	inner_lookup_release(&l);

	unsetenv("XDG_CACHE_HOME");
	setenv("XDG_CACHE_HOME", "relative", 1);
	p = innerbuild_cache_root();
	ok(p && starts_with(p, getenv("HOME")), "a relative XDG_CACHE_HOME is "
	    "ignored: %s", p);
	free(p);
	unsetenv("XDG_CACHE_HOME");
	free(cache);
	free(xdg);
	free(store);
	free(entry);
	strbuf_release(&why);
	strbuf_release(&fi);
}

static void
test_dirutil(void)
{
	struct strbuf err = STRBUF_INIT;
	char *a = xasprintf("%s/d/a", tmpdir), *b = xasprintf("%s/d/b", tmpdir);
	char *keep = xasprintf("%s/keep", tmpdir), *p;
	struct stat st;

	mkdir_p(a, 0755, &err);
	mkdir_p(keep, 0755, &err);
	p = path_join(keep, "precious");
	write_text(p, "x");
	free(p);
	p = path_join(a, "link");
	if (symlink(keep, p) < 0)
		abort();
	free(p);
	p = path_join(a, "file");
	write_text(p, "a");
	free(p);
	ok(dir_replace(a, b, &err) == 0 && stat(a, &st) < 0 &&
	    stat(b, &st) == 0, "dir_replace renames into a new place");
	mkdir_p(a, 0755, &err);
	p = path_join(a, "new");
	write_text(p, "n");
	free(p);
	ok(dir_replace(a, b, &err) == 0, "and exchanges with an old tree");
	p = path_join(b, "new");
	ok(stat(p, &st) == 0 && stat(a, &st) < 0, "the new tree is in place "
	    "and the old one gone");
	free(p);
	p = path_join(keep, "precious");
	ok(stat(p, &st) == 0, "removing a tree does not follow its symlinks");
	free(p);
	ok(rm_rf(b, &err) == 0 && stat(b, &st) < 0, "rm_rf");
	ok(rm_rf(b, &err) == 0, "rm_rf of nothing is fine");
	free(a);
	free(b);
	free(keep);
	strbuf_release(&err);
}

int
main(void)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	if (!mkdtemp(tmpdir))
		return 99;
	test_blake2b();
	test_minisign();
	test_relindex();
	test_layout();
	test_buildinfo();
	test_find();
	test_dirutil();
	r = done_testing();
	rm_rf(tmpdir, &err);
	strbuf_release(&err);
	return r;
}
