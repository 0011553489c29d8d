#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "innerbuild.h"
#include "platform.h"
#include "relindex.h"
#include "strbuf.h"
#include "strutil.h"
#include "xalloc.h"

#define BUILD_INFO_MAX (64 * 1024)

/* ---- BUILD-INFO ------------------------------------------------------ */

bool
innerbuild_layout_ok(const char *path, bool is_dir)
{
	const char *name;
	size_t n;

	if (is_dir)
		return !strcmp(path, "bin") || !strcmp(path, "libexec") ||
		    !strcmp(path, "libexec/magus");
	if (!strcmp(path, INNER_BUILD_INFO) || !strcmp(path, "bin/magus"))
		return true;
	if (!starts_with(path, "libexec/magus/magus-"))
		return false;
	name = path + strlen("libexec/magus/magus-");
	n = strlen(name);
	return n > 0 && n <= 64 && name[0] != '-' &&
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static int
cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct buildinfo_file *)a)->path,
	    ((const struct buildinfo_file *)b)->path);
}

/* "key value" at the start of `line`: the value, or NULL. */
static const char *
value_of(const char *line, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(line, key, n) && line[n] == ' ' ? line + n + 1 : NULL;
}

int
buildinfo_parse(const char *text, size_t len, struct buildinfo *bi,
    struct strbuf *err)
{
	char *copy, *line, *next;
	const char *v;
	int lineno = 0;
	size_t i;

	memset(bi, 0, sizeof(*bi));
	if (len > BUILD_INFO_MAX || memchr(text, '\0', len) ||
	    !len || text[len - 1] != '\n') {
		strbuf_addstr(err, "BUILD-INFO is not a text of lines");
		return -1;
	}
	copy = xstrndup(text, len);
	for (line = copy; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, "magus-build-info 1"))
				goto bad;
		} else if (lineno == 2 && (v = value_of(line, "version"))) {
			if (!relindex_version_valid(v))
				goto bad;
			bi->version = xstrdup(v);
		} else if (lineno == 3 && (v = value_of(line, "platform"))) {
			struct strbuf e = STRBUF_INIT;
			struct platform p;
			int r = platform_parse(v, &p, &e);

			strbuf_release(&e);
			if (r < 0 || strcmp(platform_str(&p), v))
				goto bad;
			bi->platform = xstrdup(v);
		} else if (lineno == 4 && (v = value_of(line, "source"))) {
			if (!sha256_hex_valid(v))
				goto bad;
			memcpy(bi->source, v, 65);
		} else if (lineno > 4 && (v = value_of(line, "file"))) {
			struct buildinfo_file *f;
			char hex[65], *end;
			unsigned long long size;

			if (strlen(v) < 66 || v[64] != ' ')
				goto bad;
			memcpy(hex, v, 64);
			hex[64] = '\0';
			if (!sha256_hex_valid(hex) || v[65] < '0' || v[65] > '9')
				goto bad;
			errno = 0;
			size = strtoull(v + 65, &end, 10);
			if (errno || *end != ' ' || size > INNER_FILE_MAX ||
			    !innerbuild_layout_ok(end + 1, false) ||
			    !strcmp(end + 1, INNER_BUILD_INFO))
				goto bad;
			ALLOC_GROW(bi->files, bi->nfiles + 1, bi->alloc);
			f = &bi->files[bi->nfiles++];
			f->path = xstrdup(end + 1);
			memcpy(f->sha256, hex, 65);
			f->size = size;
			if (bi->nfiles > 1 &&
			    strcmp(bi->files[bi->nfiles - 2].path, f->path) >= 0)
				goto bad; /* sorted, no duplicates */
		} else {
			goto bad;
		}
	}
	free(copy);
	if (lineno < 4) {
		strbuf_addstr(err, "BUILD-INFO ends before its source line");
		buildinfo_release(bi);
		return -1;
	}
	for (i = 0; i < bi->nfiles; i++)
		if (!strcmp(bi->files[i].path, "bin/magus"))
			return 0;
	strbuf_addstr(err, "BUILD-INFO lists no bin/magus");
	buildinfo_release(bi);
	return -1;
bad:
	strbuf_addf(err, "BUILD-INFO line %d is not what magus writes there",
	    lineno);
	free(copy);
	buildinfo_release(bi);
	return -1;
}

void
buildinfo_write(const struct buildinfo *bi, struct strbuf *out)
{
	struct buildinfo_file *f;
	size_t i;

	f = xcalloc(bi->nfiles + 1, sizeof(*f));
	memcpy(f, bi->files, bi->nfiles * sizeof(*f));
	qsort(f, bi->nfiles, sizeof(*f), cmp_file);
	strbuf_addf(out, "magus-build-info 1\nversion %s\nplatform %s\n"
	    "source %s\n", bi->version, bi->platform, bi->source);
	for (i = 0; i < bi->nfiles; i++)
		strbuf_addf(out, "file %s %llu %s\n", f[i].sha256, f[i].size,
		    f[i].path);
	free(f);
}

void
buildinfo_release(struct buildinfo *bi)
{
	size_t i;

	for (i = 0; i < bi->nfiles; i++)
		free(bi->files[i].path);
	free(bi->files);
	free(bi->version);
	free(bi->platform);
	memset(bi, 0, sizeof(*bi));
}

void
fetchinfo_write(struct strbuf *out, const char *version, const char *platform,
    const char *url, unsigned long long size, const char *sha256,
    const char *buildinfo_sha256)
{
	strbuf_addf(out, "magus-fetch-info 1\nversion %s\nplatform %s\n"
	    "url %s\nsize %llu\nsha256 %s\nbuild-info %s\n", version, platform,
	    url, size, sha256, buildinfo_sha256);
}

/* ---- verifying a directory ------------------------------------------ */

struct walk {
	const char *root;
	const struct buildinfo *bi;
	bool *seen;
	bool fetched;
	struct strbuf *why;
};

/* Is `rel` something the tree may hold beyond the listed files? */
static int
walk_dir(struct walk *W, int dfd, const char *rel)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		strbuf_addf(W->why, "cannot read '%s/%s': %s", W->root, rel,
		    strerror(errno));
		close(dfd);
		return -1;
	}
	while (r == 0 && (errno = 0, e = readdir(d)) != NULL) {
		struct stat st;
		char *path;
		size_t i;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		path = *rel ? xasprintf("%s/%s", rel, e->d_name) :
		    xstrdup(e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			strbuf_addf(W->why, "cannot stat '%s/%s': %s", W->root,
			    path, strerror(errno));
			r = -1;
		} else if (S_ISDIR(st.st_mode) &&
		    innerbuild_layout_ok(path, true)) {
			int fd = openat(dirfd(d), e->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (fd < 0) {
				strbuf_addf(W->why, "cannot open '%s/%s': %s",
				    W->root, path, strerror(errno));
				r = -1;
			} else {
				r = walk_dir(W, fd, path);
			}
		} else if (S_ISREG(st.st_mode) &&
		    (!strcmp(path, INNER_BUILD_INFO) ||
		    (W->fetched && !strcmp(path, INNER_FETCH_INFO)))) {
			/* checked by the caller */
		} else {
			for (i = 0; i < W->bi->nfiles; i++)
				if (!strcmp(W->bi->files[i].path, path))
					break;
			if (i == W->bi->nfiles || !S_ISREG(st.st_mode)) {
				strbuf_addf(W->why, "'%s/%s' is not part of "
				    "the build BUILD-INFO describes", W->root,
				    path);
				r = -1;
			} else {
				W->seen[i] = true;
			}
		}
		free(path);
	}
	if (r == 0 && errno) {
		strbuf_addf(W->why, "cannot read '%s/%s': %s", W->root, rel,
		    strerror(errno));
		r = -1;
	}
	closedir(d);
	return r;
}

static bool
platform_matches(const char *built, const struct platform *p)
{
	struct strbuf e = STRBUF_INIT;
	struct platform b;
	int r = platform_parse(built, &b, &e);

	strbuf_release(&e);
	if (r < 0)
		return false;
	/* Releases are per OS/ARCH; a variant, when the build names one,
	 * must be the one asked for. */
	return !strcmp(b.os, p->os) && !strcmp(b.arch, p->arch) &&
	    (!b.variant[0] || !strcmp(b.variant, p->variant));
}

static int
read_small(const char *path, struct strbuf *out, struct strbuf *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	struct stat st;
	ssize_t n;

	if (fd < 0) {
		strbuf_addf(why, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > BUILD_INFO_MAX) {
		strbuf_addf(why, "'%s' is not a small regular file", path);
		close(fd);
		return -1;
	}
	n = strbuf_read_fd(out, fd);
	close(fd);
	if (n < 0) {
		strbuf_addf(why, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * FETCH-INFO must be exactly what magus-self-fetch writes for the
 * BUILD-INFO beside it: its url, size and sha256 lines are taken from it,
 * everything else is rendered from BUILD-INFO, and the two texts are
 * compared.
 */
static enum inner_state
check_fetchinfo(const char *dir, const struct buildinfo *bi,
    const char *bi_text, size_t bi_len, struct strbuf *why)
{
	struct strbuf fi = STRBUF_INIT, want = STRBUF_INIT;
	char *path = path_join(dir, INNER_FETCH_INFO);
	const char *line[8] = { NULL };
	const char *url, *size, *sha;
	unsigned long long n;
	char hex[65], *p, *end;
	enum inner_state st = INNER_DAMAGED;
	int k = 0;

	if (read_small(path, &fi, why) < 0)
		goto out;
	for (p = fi.buf; *p && k < 8; k++) {
		line[k] = p;
		p = strchr(p, '\n');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (k != 7 || !(url = value_of(line[3], "url")) ||
	    !(size = value_of(line[4], "size")) ||
	    !(sha = value_of(line[5], "sha256")) ||
	    *size < '1' || *size > '9' || !sha256_hex_valid(sha))
		goto bad;
	errno = 0;
	n = strtoull(size, &end, 10);
	if (errno || *end)
		goto bad;
	sha256_hex(bi_text, bi_len, hex);
	fetchinfo_write(&want, bi->version, bi->platform, url, n, sha, hex);
	/* Put the lines back together to compare the whole text. */
	for (p = fi.buf; p < fi.buf + fi.len; p++)
		if (!*p)
			*p = '\n';
	if (strcmp(want.buf, fi.buf))
		goto bad;
	st = INNER_OK;
	goto out;
bad:
	strbuf_addf(why, "'%s' does not match the build beside it", path);
out:
	strbuf_release(&fi);
	strbuf_release(&want);
	free(path);
	return st;
}

enum inner_state
innerbuild_verify(const char *dir, const struct platform *p,
    const char *version, const char *source, unsigned flags,
    struct strbuf *why)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct buildinfo bi;
	struct walk W;
	enum inner_state st = INNER_DAMAGED;
	struct stat sb;
	char *path;
	size_t i;
	int fd;

	if (stat(dir, &sb) < 0 && errno == ENOENT) {
		strbuf_addf(why, "no inner build in '%s'", dir);
		return INNER_MISSING;
	}
	path = path_join(dir, INNER_BUILD_INFO);
	if (read_small(path, &text, why) < 0) {
		free(path);
		return INNER_DAMAGED;
	}
	free(path);
	if (buildinfo_parse(text.buf, text.len, &bi, &err) < 0) {
		strbuf_addf(why, "'%s': %s", dir, err.buf);
		strbuf_release(&err);
		strbuf_release(&text);
		return INNER_DAMAGED;
	}
	memset(&W, 0, sizeof(W));
	if (!platform_matches(bi.platform, p)) {
		strbuf_addf(why, "'%s' is built for %s, not for %s", dir,
		    bi.platform, platform_str(p));
		st = INNER_WRONG_PLATFORM;
		goto out;
	}
	if (strcmp(bi.version, version)) {
		strbuf_addf(why, "'%s' is magus %s, not %s (the running "
		    "magus)", dir, bi.version, version);
		st = INNER_STALE;
		goto out;
	}
	if (source && strcmp(bi.source, source)) {
		strbuf_addf(why, "'%s' was built from other sources than the "
		    "running magus (source %.12s, not %.12s)", dir, bi.source,
		    source);
		st = INNER_STALE;
		goto out;
	}
	if ((flags & INNER_VERIFY_FETCHED) &&
	    check_fetchinfo(dir, &bi, text.buf, text.len, why) != INNER_OK)
		goto out;

	W.root = dir;
	W.bi = &bi;
	W.seen = xcalloc(bi.nfiles + 1, sizeof(bool));
	W.fetched = flags & INNER_VERIFY_FETCHED;
	W.why = why;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(why, "cannot open '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (walk_dir(&W, fd, "") < 0)
		goto out;

	for (i = 0; i < bi.nfiles; i++) {
		const struct buildinfo_file *f = &bi.files[i];
		char arch[16], hex[65];
		unsigned long long size;
		struct stat fs;

		path = path_join(dir, f->path);
		if (!W.seen[i] || lstat(path, &fs) < 0) {
			strbuf_addf(why, "'%s' is missing", path);
			free(path);
			goto out;
		}
		if (!(fs.st_mode & S_IXUSR) ||
		    (unsigned long long)fs.st_size != f->size) {
			strbuf_addf(why, "'%s' is not the file BUILD-INFO "
			    "lists (%s)", path, !(fs.st_mode & S_IXUSR) ?
			    "not executable" : "another size");
			free(path);
			goto out;
		}
		if (flags & INNER_VERIFY_HASHES) {
			if (sha256_file_hex(path, hex, &size, why) < 0) {
				free(path);
				goto out;
			}
			if (strcmp(hex, f->sha256) || size != f->size) {
				strbuf_addf(why, "'%s' has changed since it "
				    "was built (SHA-256 %.12s, not %.12s)",
				    path, hex, f->sha256);
				free(path);
				goto out;
			}
		}
		if (elf_arch(path, arch, sizeof(arch), &err) < 0) {
			strbuf_addf(why, "%s", err.buf);
			free(path);
			goto out;
		}
		if (strcmp(arch, p->arch)) {
			strbuf_addf(why, "'%s' is an executable for %s, not "
			    "for %s", path, arch, platform_str(p));
			st = INNER_WRONG_PLATFORM;
			free(path);
			goto out;
		}
		free(path);
	}
	st = INNER_OK;
out:
	free(W.seen);
	buildinfo_release(&bi);
	strbuf_release(&text);
	strbuf_release(&err);
	return st;
}

/* ---- the two places ------------------------------------------------- */

char *
innerbuild_store_dir(const char *cache_dir, const struct platform *p)
{
	return xasprintf("%s/platform/%s/magus", cache_dir,
	    platform_dirname(p));
}

char *
innerbuild_cache_root(void)
{
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	/* The XDG spec: a relative XDG_CACHE_HOME is to be ignored. */
	if (x && x[0] == '/')
		return xasprintf("%s/magus/self", x);
	if (home && home[0] == '/')
		return xasprintf("%s/.cache/magus/self", home);
	return NULL;
}

char *
innerbuild_cache_dir(const char *root, const char *version,
    const struct platform *p)
{
	return xasprintf("%s/%s/%s", root, version, platform_dirname(p));
}

enum inner_state
innerbuild_find(const char *cache_dir, const struct platform *p,
    unsigned flags, struct inner_lookup *l)
{
	struct strbuf why = STRBUF_INIT;
	char *root;

	memset(l, 0, sizeof(*l));
	strbuf_init(&l->why, 0);
	strbuf_init(&l->fix, 0);
	l->store = innerbuild_store_dir(cache_dir, p);
	root = innerbuild_cache_root();
	l->cache = root ? innerbuild_cache_dir(root, PACKAGE_VERSION, p) :
	    NULL;
	free(root);

	l->state = innerbuild_verify(l->store, p, PACKAGE_VERSION,
	    magus_source_hash, flags & INNER_VERIFY_HASHES, &why);
	if (l->state != INNER_MISSING) {
		l->from = INNER_FROM_STORE;
		l->dir = xstrdup(l->store);
		if (l->state != INNER_OK) {
			strbuf_add(&l->why, why.buf, why.len);
			strbuf_addstr(&l->fix, "make platform-store");
		}
		strbuf_release(&why);
		return l->state;
	}
	strbuf_reset(&why);
	l->from = INNER_FROM_CACHE;
	if (!l->cache) {
		l->state = INNER_MISSING;
		strbuf_addstr(&l->why, "no inner build: neither HOME nor an "
		    "absolute XDG_CACHE_HOME names a cache");
	} else {
		l->dir = xstrdup(l->cache);
		l->state = innerbuild_verify(l->cache, p, PACKAGE_VERSION,
		    NULL, (flags & INNER_VERIFY_HASHES) | INNER_VERIFY_FETCHED,
		    &why);
		if (l->state != INNER_OK)
			strbuf_add(&l->why, why.buf, why.len);
	}
	if (l->state != INNER_OK)
		strbuf_addf(&l->fix, "magus self fetch %s", platform_str(p));
	strbuf_release(&why);
	return l->state;
}

void
inner_lookup_release(struct inner_lookup *l)
{
	free(l->dir);
	free(l->store);
	free(l->cache);
	strbuf_release(&l->why);
	strbuf_release(&l->fix);
	memset(l, 0, sizeof(*l));
}
