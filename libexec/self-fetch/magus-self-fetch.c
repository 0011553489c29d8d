/*
 * magus-self-fetch: put the running version's static build for a
 * platform into the user cache, from a signed release index
 * (magus-self-fetch(1), spec/self-fetch.md).
 *
 * The steps, each of which fails closed with nothing written:
 *   1. a verified copy already in the cache answers at once, offline;
 *   2. the index and its minisign signature are fetched; the signature,
 *      by the configured key, and its trusted comment are checked, then
 *      the index itself;
 *   3. the artifact for this exact version and platform is fetched into
 *      memory and its size and SHA-256 compared with the signed index;
 *   4. only then is it unpacked, into a temporary directory beside its
 *      final place, every binary's ELF header and BUILD-INFO checked;
 *   5. under a lock on the version's directory, the temporary directory
 *      is renamed into place in one step.
 */
#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "digest.h"
#include "dirutil.h"
#include "http.h"
#include "innerbuild.h"
#include "json.h"
#include "minisign.h"
#include "platform.h"
#include "proc.h"
#include "relindex.h"
#include "strbuf.h"
#include "strutil.h"
#include "unpack.h"
#include "xalloc.h"

#define INDEX_MAX (1 << 20)
#define SIG_MAX (8 << 10)

static const char usage_text[] =
    "usage: magus-self-fetch [--index URL] [--pubkey KEY] [--cache DIR] "
    "OS/ARCH[/VARIANT]\n"
    "       magus-self-fetch --help\n";

struct fetch {
	struct platform p;
	const char *index_url, *index_from;
	char *index_final; /* the index's URL after redirects */
	const char *pubkey, *pubkey_from;
	char *root;	 /* the cache root: <root>/<version>/<os>-<arch> */
	char *verdir;	 /* <root>/<version> */
	char *final;	 /* <verdir>/<os>-<arch> */
	char *tmp;	 /* the temporary directory beside final, or NULL */
	char *made[8];	 /* directories this run created, deepest first */
	bool progress;
	struct minisign_pubkey key;
};

static struct fetch F;

/* ---- the end, good or bad -------------------------------------------- */

/* Leave the cache as it was found: the temporary directory and any
 * directory this run created are removed. */
static void
cleanup(void)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	if (F.tmp && rm_rf(F.tmp, &err) < 0)
		warn_msg("%s", err.buf);
	free(F.tmp);
	F.tmp = NULL;
	/* Twice, deepest first: rmdir only removes what is empty. */
	for (i = 0; i < 2 * ARRAY_SIZE(F.made); i++)
		if (F.made[i % ARRAY_SIZE(F.made)])
			rmdir(F.made[i % ARRAY_SIZE(F.made)]);
	for (i = 0; i < ARRAY_SIZE(F.made); i++) {
		free(F.made[i]);
		F.made[i] = NULL;
	}
	strbuf_release(&err);
}

static void NORETURN
fail(int code, const char *hint, const char *fmt, ...) PRINTF_LIKE(3, 4);

static void NORETURN
fail(int code, const char *hint, const char *fmt, ...)
{
	const struct mgs_entry *e = mgs_lookup(code);
	va_list ap;

	va_start(ap, fmt);
	vdiag(code, hint, fmt, ap);
	va_end(ap);
	cleanup();
	http_cleanup();
	exit(e && e->status ? e->status : 1);
}

/* The path on stdout (or a JSON object under -o json) and, in text
 * mode, one line on stderr saying what happened. */
static void
report(bool fetched, const char *detail)
{
	struct strbuf out = STRBUF_INIT;

	if (diag_json()) {
		struct json j;

		json_init(&j, &out);
		json_object_begin(&j);
		json_kv_str(&j, "path", F.final);
		json_kv_str(&j, "version", PACKAGE_VERSION);
		json_kv_str(&j, "platform", platform_str(&F.p));
		json_kv_bool(&j, "fetched", fetched);
		json_object_end(&j);
		puts(out.buf);
	} else {
		if (fetched)
			fprintf(stderr, "%s: fetched magus %s for %s into "
			    "'%s' %s\n", diag_progname(), PACKAGE_VERSION,
			    platform_str(&F.p), F.final, detail);
		else
			fprintf(stderr, "%s: magus %s for %s is in '%s' "
			    "(verified%s)\n", diag_progname(), PACKAGE_VERSION,
			    platform_str(&F.p), F.final, detail);
		puts(F.final);
	}
	strbuf_release(&out);
}

/* ---- inputs --------------------------------------------------------- */

static void
load_pubkey(void)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;

	if (!F.pubkey || !*F.pubkey)
		fail(4003, "set self.pubkey in the user configuration, or "
		    "configure magus with --with-release-pubkey=KEY",
		    "no release public key: this magus has none compiled in "
		    "and none is configured");
	if (minisign_pubkey_parse(F.pubkey, &F.key, &err) == 0)
		goto out;
	/* Not the key itself: a minisign.pub file. */
	strbuf_reset(&err);
	if (strbuf_read_file(&text, F.pubkey) < 0)
		fail(4003, NULL, "release public key (%s): '%s' is neither a "
		    "minisign public key nor a readable file: %s",
		    F.pubkey_from, F.pubkey,
		    strerror(errno));
	if (minisign_pubkey_parse(text.buf, &F.key, &err) < 0)
		fail(4003, NULL, "release public key (%s): '%s': %s",
		    F.pubkey_from, F.pubkey, err.buf);
out:
	strbuf_release(&err);
	strbuf_release(&text);
}

/* ---- the cache ------------------------------------------------------ */

static bool
cache_hit(void)
{
	struct strbuf why = STRBUF_INIT;
	enum inner_state st = innerbuild_verify(F.final, &F.p,
	    PACKAGE_VERSION, NULL, INNER_VERIFY_HASHES | INNER_VERIFY_FETCHED,
	    &why);

	if (st != INNER_OK && st != INNER_MISSING)
		verbose_msg("not using the cached copy: %s", why.buf);
	strbuf_release(&why);
	return st == INNER_OK;
}

/* Create <root>/<version>, remembering which directories are new, so a
 * failure can remove them again. */
static void
make_verdir(void)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = xstrdup(F.verdir);
	struct stat st;
	size_t k;

	while (stat(dir, &st) < 0 && errno == ENOENT) {
		char *slash = strrchr(dir, '/');

		for (k = 0; k < ARRAY_SIZE(F.made) && F.made[k]; k++)
			if (!strcmp(F.made[k], dir))
				break;
		if (k < ARRAY_SIZE(F.made) && !F.made[k])
			F.made[k] = xstrdup(dir);
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	if (mkdir_p(F.verdir, 0755, &err) < 0)
		fail(4014, NULL, "%s", err.buf);
	strbuf_release(&err);
}

/* Remove temporary directories left by fetches that died: under the
 * lock nobody else is unpacking. */
static void
remove_stale(void)
{
	struct strbuf err = STRBUF_INIT;
	char *prefix = xasprintf(".tmp-%s.", platform_dirname(&F.p));
	struct dirent **names = NULL;
	int n, i;

	n = scandir(F.verdir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (starts_with(names[i]->d_name, prefix)) {
			char *path = path_join(F.verdir, names[i]->d_name);

			if (rm_rf(path, &err) < 0)
				warn_msg("%s", err.buf);
			strbuf_reset(&err);
			free(path);
		}
		free(names[i]);
	}
	free(names);
	free(prefix);
	strbuf_release(&err);
}

/* A lock on the version's directory; retried when a failing fetch
 * removed the (empty) directory between our mkdir and our lock. */
static int
lock_verdir(void)
{
	struct stat st;
	int tries, fd = -1;

	for (tries = 0; tries < 10; tries++) {
		make_verdir();
		fd = open(F.verdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			fail(4014, NULL, "cannot open '%s': %s", F.verdir,
			    strerror(errno));
		}
		if (RETRY_EINTR(flock(fd, LOCK_EX)) < 0)
			fail(4014, NULL, "cannot lock '%s': %s", F.verdir,
			    strerror(errno));
		if (fstat(fd, &st) == 0 && st.st_nlink > 0)
			return fd;
		close(fd);
	}
	fail(4014, NULL, "cannot hold '%s': it keeps disappearing", F.verdir);
}

/* ---- downloads ------------------------------------------------------ */

static int
buf_write(void *arg, const void *data, size_t len)
{
	strbuf_add(arg, data, len);
	return 0;
}

static void
buf_reset(void *arg)
{
	strbuf_reset((struct strbuf *)arg);
}

/* The artifact goes into anonymous memory of the size the signed index
 * gives (the transfer is bounded by it), hashed as it arrives. */
struct artifact_sink {
	unsigned char *buf;
	size_t len, size;
	struct sha256_ctx sha;
	bool started;
};

static int
art_write(void *arg, const void *data, size_t len)
{
	struct artifact_sink *a = arg;

	if (len > a->size - a->len) {
		errno = EFBIG;
		return -1;
	}
	memcpy(a->buf + a->len, data, len);
	a->len += len;
	sha256_update(&a->sha, data, len);
	return 0;
}

static void
art_reset(void *arg)
{
	struct artifact_sink *a = arg;

	if (a->started)
		sha256_abandon(&a->sha);
	sha256_init(&a->sha);
	a->started = true;
	a->len = 0;
}

/* Map an HTTP failure to its diagnostic; `what` names the document. */
static void NORETURN
fail_http(enum http_result r, const char *what, struct strbuf *err)
{
	switch (r) {
	case HTTP_URL_REFUSED:
		fail(4002, NULL, "%s: %s", what, err->buf);
	case HTTP_REDIRECT_REFUSED:
		fail(4006, NULL, "%s: %s", what, err->buf);
	case HTTP_TLS_UNTRUSTED:
		fail(4005, "behind a TLS-inspecting proxy, point "
		    "MAGUS_CA_BUNDLE at its CA certificate",
		    "%s: %s", what, err->buf);
	default:
		fail(4004, NULL, "%s: %s", what, err->buf);
	}
}

/* The signature sits beside the index: <index URL>.minisig, the suffix
 * on the path when the URL has a query (a fragment is never sent). */
static char *
signature_url(const char *index_url)
{
	size_t n = strcspn(index_url, "?#");
	const char *rest = index_url[n] == '?' ? index_url + n : "";
	size_t r = strcspn(rest, "#");

	return xasprintf("%.*s.minisig%.*s", (int)n, index_url, (int)r, rest);
}

/* Steps 2 and 3's first half: the verified index's entry for us. */
static void
fetch_index(struct relindex *ix, const struct relindex_artifact **out)
{
	struct strbuf body = STRBUF_INIT, sigtext = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT, tc = STRBUF_INIT;
	struct http_request req;
	struct http_sink sink;
	const struct relindex_version *v;
	const struct relindex_artifact *a;
	struct minisign_sig sig;
	enum http_result r;
	char *sigurl;
	size_t i;
	int mr;

	memset(&req, 0, sizeof(req));
	req.url = F.index_url;
	req.max = INDEX_MAX;
	sink.write = buf_write;
	sink.reset = buf_reset;
	sink.arg = &body;
	r = http_get(&req, &sink, &err);
	/* The signature, and relative artifact URLs, are found beside where
	 * the index turned out to be. */
	F.index_final = req.final_url;
	sigurl = signature_url(F.index_final);
	if (r == HTTP_TOO_LARGE)
		fail(4008, NULL, "the release index '%s' is larger than %d "
		    "bytes", F.index_url, INDEX_MAX);
	if (r != HTTP_OK)
		fail_http(r, "the release index", &err);

	memset(&req, 0, sizeof(req));
	req.url = sigurl;
	req.max = SIG_MAX;
	sink.arg = &sigtext;
	r = http_get(&req, &sink, &err);
	free(req.final_url);
	if (r == HTTP_STATUS && req.status == 404)
		fail(4007, NULL, "the release index has no signature: '%s' "
		    "answered HTTP 404", sigurl);
	if (r == HTTP_TOO_LARGE)
		fail(4007, NULL, "'%s' is not a signature (larger than %d "
		    "bytes)", sigurl, SIG_MAX);
	if (r != HTTP_OK)
		fail_http(r, "the release index's signature", &err);

	if (minisign_sig_parse(sigtext.buf, sigtext.len, &sig, &err) < 0)
		fail(4007, NULL, "'%s': %s", sigurl, err.buf);
	mr = minisign_verify(&F.key, &sig, body.buf, body.len, &err);
	if (mr != MINISIGN_OK)
		fail(4007, mr == MINISIGN_OTHER_KEY ? "the index was signed "
		    "by another key than the one configured (self.pubkey)" :
		    NULL, "release index '%s': %s", F.index_url, err.buf);
	verbose_msg("signature of '%s' verified", F.index_url);

	if (relindex_parse(ix, body.buf, body.len, &err) < 0)
		fail(4008, NULL, "release index '%s': %s", F.index_url,
		    err.buf);
	relindex_trusted_comment(ix, &tc);
	if (strcmp(tc.buf, sig.trusted_comment))
		fail(4007, NULL, "release index '%s': the signed trusted "
		    "comment '%s' does not name what the index lists ('%s')",
		    F.index_url, sig.trusted_comment, tc.buf);

	v = relindex_version(ix, PACKAGE_VERSION);
	if (!v) {
		strbuf_reset(&err);
		for (i = 0; i < ix->n; i++)
			strbuf_addf(&err, "%s%s", i ? ", " : "",
			    ix->versions[i].version);
		fail(4009, "the index lists releases; a build from source "
		    "can use 'make platform-store' instead",
		    "release index '%s' has no magus %s (the running "
		    "version); it lists: %s", F.index_url, PACKAGE_VERSION,
		    err.len ? err.buf : "nothing");
	}
	a = relindex_artifact(v, platform_str(&F.p));
	if (!a && F.p.variant[0]) {
		struct platform base = F.p;

		base.variant[0] = '\0';
		a = relindex_artifact(v, platform_str(&base));
	}
	if (!a) {
		strbuf_reset(&err);
		for (i = 0; i < v->n; i++)
			strbuf_addf(&err, "%s%s", i ? ", " : "",
			    v->arts[i].platform);
		fail(4010, NULL, "release index '%s' has no %s build of magus "
		    "%s; it has: %s", F.index_url, platform_str(&F.p),
		    PACKAGE_VERSION, err.buf);
	}
	*out = a;
	minisign_sig_release(&sig);
	free(sigurl);
	strbuf_release(&body);
	strbuf_release(&sigtext);
	strbuf_release(&err);
	strbuf_release(&tc);
}

/* Step 3: the artifact, in memory, checked against the signed index. */
static unsigned char *
fetch_artifact(const struct relindex_artifact *a, const char *url)
{
	struct strbuf err = STRBUF_INIT, label = STRBUF_INIT;
	struct artifact_sink art;
	struct http_request req;
	struct http_sink sink;
	enum http_result r;
	char hex[65];

	memset(&art, 0, sizeof(art));
	art.size = (size_t)a->size;
	art.buf = mmap(NULL, art.size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (art.buf == MAP_FAILED)
		fail(4014, NULL, "cannot hold %llu bytes for the download: %s",
		    a->size, strerror(errno));
	/* Huge pages where the kernel has them: a fault per 4 KiB page was a
	 * third of the time of a large fetch on a virtual machine.  A kernel
	 * without transparent huge pages says EINVAL, and 4 KiB pages do. */
	if (madvise(art.buf, art.size, MADV_HUGEPAGE) < 0 && errno != EINVAL)
		fail(4014, NULL, "cannot advise the kernel on the download's "
		    "memory: %s", strerror(errno));
	memset(&req, 0, sizeof(req));
	req.url = url;
	req.max = a->size;
	if (F.progress) {
		strbuf_addf(&label, "magus %s %s", PACKAGE_VERSION,
		    platform_str(&F.p));
		req.label = label.buf;
	}
	sink.write = art_write;
	sink.reset = art_reset;
	sink.arg = &art;
	r = http_get(&req, &sink, &err);
	free(req.final_url);
	if (r == HTTP_TOO_LARGE)
		fail(4011, NULL, "'%s' is larger than the %llu bytes the "
		    "signed index gives", url, a->size);
	if (r == HTTP_TRUNCATED)
		fail(4011, NULL, "'%s' arrived truncated: %s", url, err.buf);
	if (r != HTTP_OK)
		fail_http(r, "the release artifact", &err);
	sha256_final_hex(&art.sha, hex);
	if (art.len != art.size)
		fail(4011, NULL, "'%s' is %zu bytes, not the %llu the signed "
		    "index gives", url, art.len, a->size);
	if (strcmp(hex, a->sha256))
		fail(4011, NULL, "'%s' has SHA-256 %s, not the %s the signed "
		    "index gives", url, hex, a->sha256);
	/* From here on it is verified: nothing may change it. */
	if (mprotect(art.buf, art.size, PROT_READ) < 0)
		fail(4014, NULL, "cannot protect the download: %s",
		    strerror(errno));
	strbuf_release(&err);
	strbuf_release(&label);
	return art.buf;
}

/* Steps 4 and 5. */
static void
install(const unsigned char *gz, const struct relindex_artifact *a,
    const char *url)
{
	struct strbuf err = STRBUF_INIT, fi = STRBUF_INIT;
	enum unpack_result ur;
	char bi_hex[65], *tmpl, *path;
	int lock, out;

	lock = lock_verdir();
	if (cache_hit()) {
		/* Another fetch finished first; its copy is as good. */
		close(lock);
		report(false, ", fetched by another run");
		return;
	}
	remove_stale();
	tmpl = xasprintf("%s/.tmp-%s.XXXXXX", F.verdir,
	    platform_dirname(&F.p));
	if (!mkdtemp(tmpl))
		fail(4014, NULL, "cannot create a directory in '%s': %s",
		    F.verdir, strerror(errno));
	F.tmp = tmpl;
	if (chmod(F.tmp, 0755) < 0)
		fail(4014, NULL, "cannot chmod '%s': %s", F.tmp,
		    strerror(errno));

	ur = unpack_release(gz, (size_t)a->size, F.tmp, &F.p, PACKAGE_VERSION,
	    bi_hex, &err);
	switch (ur) {
	case UNPACK_OK:
		break;
	case UNPACK_WRONG_ARCH:
		fail(4013, NULL, "'%s': %s", url, err.buf);
	case UNPACK_IO:
		fail(4014, NULL, "%s", err.buf);
	default:
		fail(4012, NULL, "'%s': %s", url, err.buf);
	}

	fetchinfo_write(&fi, PACKAGE_VERSION, platform_str(&F.p), url, a->size,
	    a->sha256, bi_hex);
	path = path_join(F.tmp, INNER_FETCH_INFO);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	if (out < 0 || write(out, fi.buf, fi.len) != (ssize_t)fi.len ||
	    close(out) < 0)
		fail(4014, NULL, "cannot write '%s': %s", path,
		    strerror(errno));
	free(path);

	/* What is renamed into place must verify like a cache hit; the
	 * files' hashes were compared with BUILD-INFO while unpacking. */
	strbuf_reset(&err);
	if (innerbuild_verify(F.tmp, &F.p, PACKAGE_VERSION, NULL,
	    INNER_VERIFY_FETCHED, &err) != INNER_OK)
		fail(4012, NULL, "the unpacked build does not verify: %s",
		    err.buf);
	/* No fsync: every use of the entry hashes its files again, so what a
	 * crash could leave half-written is refused and fetched anew, and a
	 * gigabyte need not wait for the disk. */
	if (dir_replace(F.tmp, F.final, &err) < 0)
		fail(4014, NULL, "%s", err.buf);
	free(F.tmp);
	F.tmp = NULL;
	close(lock);
	strbuf_reset(&err);
	strbuf_addf(&err, "(%llu bytes, SHA-256 %.12s)", a->size, a->sha256);
	report(true, err.buf);
	strbuf_release(&err);
	strbuf_release(&fi);
}

/* ---- main ----------------------------------------------------------- */

static void NORETURN
usage_error(const char *msg, const char *arg)
{
	diag(1002, "usage: magus-self-fetch [--index URL] [--pubkey KEY] "
	    "[--cache DIR] OS/ARCH[/VARIANT]", "%s%s%s%s", msg,
	    arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "index", required_argument, NULL, 'i' },
		{ "pubkey", required_argument, NULL, 'k' },
		{ "cache", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf err = STRBUF_INIT;
	const struct relindex_artifact *a;
	struct relindex ix;
	const char *cache = NULL, *v;
	unsigned char *gz;
	char *url;
	int c;

	sane_start();
	diag_init(argv[0]);
	if ((v = getenv("MAGUS_VERBOSE")) && *v)
		diag_set_verbose(atoi(v));
	memset(&F, 0, sizeof(F));

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			F.index_url = optarg;
			F.index_from = "--index, self.index";
			break;
		case 'k':
			F.pubkey = optarg;
			F.pubkey_from = "--pubkey, self.pubkey";
			break;
		case 'c':
			cache = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			usage_error("unknown option or missing value:",
			    argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		usage_error(optind >= argc ? "name one platform, OS/ARCH" :
		    "takes one platform, OS/ARCH", NULL);
	if (platform_parse(argv[optind], &F.p, &err) < 0)
		fail(4001, NULL, "%s", err.buf);

	if (!F.index_url && (v = getenv("MAGUS_RELEASE_INDEX")) && *v) {
		F.index_url = v;
		F.index_from = "MAGUS_RELEASE_INDEX";
	}
	if (!F.index_url) {
		F.index_url = MAGUS_RELEASE_INDEX_DEFAULT;
		F.index_from = "compiled in";
	}
	if (!F.pubkey && (v = getenv("MAGUS_RELEASE_PUBKEY")) && *v) {
		F.pubkey = v;
		F.pubkey_from = "MAGUS_RELEASE_PUBKEY";
	}
	if (!F.pubkey) {
		F.pubkey = MAGUS_RELEASE_PUBKEY_DEFAULT;
		F.pubkey_from = "compiled in";
	}
	if (cache && *cache) {
		F.root = path_absolute(cache);
	} else if (!(F.root = innerbuild_cache_root())) {
		fail(4014, "set HOME or XDG_CACHE_HOME, or name one with "
		    "--cache DIR", "no cache directory: neither HOME nor an "
		    "absolute XDG_CACHE_HOME is set");
	}
	F.verdir = path_join(F.root, PACKAGE_VERSION);
	F.final = innerbuild_cache_dir(F.root, PACKAGE_VERSION, &F.p);
	F.progress = isatty(2) && !diag_json();

	/* Step 1: offline when the cache already holds a good copy. */
	if (cache_hit()) {
		report(false, "");
		return 0;
	}

	if (http_init(&err) < 0)
		fail(4005, NULL, "%s", err.buf);
	if (http_url_allowed(F.index_url, false, &err) < 0)
		fail(4002, "set self.index (user configuration) or "
		    "MAGUS_RELEASE_INDEX to an https:// URL",
		    "release index (%s): %s", F.index_from, err.buf);
	load_pubkey();

	fetch_index(&ix, &a);
	url = http_url_resolve(F.index_final, a->url, &err);
	if (!url || http_url_allowed(url, false, &err) < 0)
		fail(4002, NULL, "the release index's URL for %s: %s",
		    platform_str(&F.p), err.buf);
	gz = fetch_artifact(a, url);
	install(gz, a, url);

	munmap(gz, (size_t)a->size);
	free(url);
	relindex_release(&ix);
	http_cleanup();
	cleanup();
	free(F.root);
	free(F.verdir);
	free(F.final);
	free(F.index_final);
	strbuf_release(&err);
	return 0;
}
