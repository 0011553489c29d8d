/*
 * store.c: find and remove platform stores without leaving the cache dir
 * (see store.h).  Every path is met one component at a time through a
 * descriptor opened with O_NOFOLLOW, and every removal is an unlinkat
 * relative to the directory that holds the entry.
 */
#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"
#include "strutil.h"
#include "strvec.h"
#include "xalloc.h"

/* Every open below adds O_CLOEXEC itself (so the lint can see it). */
#ifdef O_PATH
#define O_WALK (O_PATH | O_DIRECTORY | O_NOFOLLOW)
#else
#define O_WALK (O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
#endif
#define O_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW)

/* The filesystem and, where the kernel says, the mount `fd` lies on. */
static int
fd_place(int fd, dev_t *dev, uint64_t *mnt)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	*dev = st.st_dev;
	*mnt = 0;
#ifdef STATX_MNT_ID
	{
		struct statx sx;

		/* A bind mount keeps st_dev; only the mount id tells. */
		if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) == 0 &&
		    (sx.stx_mask & STATX_MNT_ID))
			*mnt = sx.stx_mnt_id;
	}
#endif
	return 0;
}

static bool
same_place(const struct store_root *sr, int fd)
{
	dev_t dev;
	uint64_t mnt;

	if (fd_place(fd, &dev, &mnt) < 0)
		return false;
	return dev == sr->dev && (!mnt || !sr->mnt_id || mnt == sr->mnt_id);
}

/*
 * Open the directory at `real`, a path realpath(3) returned, one
 * component at a time without following a link: a link swapped in after
 * realpath fails here rather than leading somewhere else.
 */
static int
open_real_dir(const char *real)
{
	struct strbuf comp = STRBUF_INIT;
	const char *p = real;
	int fd, nfd, err, flags = O_WALK;
	size_t n;

	fd = open("/", O_WALK | O_CLOEXEC);
	while (fd >= 0) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		strbuf_setlen(&comp, 0);
		strbuf_add(&comp, p, n);
		p += n;
		while (*p == '/')
			p++;
		flags = *p ? O_WALK : O_DIR;
		nfd = openat(fd, comp.buf, flags | O_CLOEXEC);
		err = errno;
		close(fd);
		errno = err;
		fd = nfd;
	}
	if (fd >= 0 && flags != O_DIR) {
		/* "/" itself: reopen it for reading. */
		nfd = openat(fd, ".", O_DIR | O_CLOEXEC);
		err = errno;
		close(fd);
		errno = err;
		fd = nfd;
	}
	strbuf_release(&comp);
	return fd;
}

int
store_open(struct store_root *sr, const char *root, const char *cache_dir,
    struct strbuf *msg)
{
	char real[PATH_MAX], *lexical;
	struct stat st;
	int err;
	bool escapes;

	memset(sr, 0, sizeof(*sr));
	sr->cache_fd = sr->platform_fd = -1;
	if (cache_dir[0] != '/') {
		strbuf_addf(msg, "cache dir '%s' is not an absolute path",
		    cache_dir);
		return 6002;
	}
	if (!realpath(cache_dir, real)) {
		if (errno == ENOENT)
			return 0;
		strbuf_addf(msg, "cannot resolve the cache dir '%s': %s",
		    cache_dir, strerror(errno));
		return 6002;
	}
	/* A cache dir configured inside the workspace stays inside it: a
	 * link (.magus -> /elsewhere) does not take clean along.  One
	 * configured outside (cache.dir: ../cache, or absolute) was named
	 * as such and is taken as named. */
	lexical = path_absolute(cache_dir);
	escapes = path_is_under(lexical, root) && !path_is_under(real, root);
	free(lexical);
	if (escapes) {
		strbuf_addf(msg, "cache dir '%s' resolves to '%s', outside the "
		    "workspace '%s'", cache_dir, real, root);
		return 6002;
	}
	sr->cache_fd = open_real_dir(real);
	if (sr->cache_fd < 0 || fd_place(sr->cache_fd, &sr->dev,
	    &sr->mnt_id) < 0) {
		err = errno;
		strbuf_addf(msg, "cannot open the cache dir '%s': %s", real,
		    strerror(err));
		store_close(sr);
		return 6002;
	}
	sr->real = xstrdup(real);
	sr->platform = path_join(real, "platform");
	if (fstatat(sr->cache_fd, "platform", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		strbuf_addf(msg, "cannot read '%s': %s", sr->platform,
		    strerror(errno));
		store_close(sr);
		return 6002;
	}
	if (S_ISLNK(st.st_mode)) {
		strbuf_addf(msg, "'%s' is a symbolic link: the stores must lie "
		    "in the cache dir itself", sr->platform);
		store_close(sr);
		return 6003;
	}
	if (!S_ISDIR(st.st_mode)) {
		strbuf_addf(msg, "'%s' is not a directory", sr->platform);
		store_close(sr);
		return 6003;
	}
	sr->platform_fd = openat(sr->cache_fd, "platform", O_DIR | O_CLOEXEC);
	if (sr->platform_fd < 0) {
		strbuf_addf(msg, "cannot open '%s': %s", sr->platform,
		    strerror(errno));
		store_close(sr);
		return errno == ELOOP || errno == ENOTDIR ? 6003 : 6002;
	}
	if (!same_place(sr, sr->platform_fd)) {
		strbuf_addf(msg, "'%s' is a mount point: the stores must lie "
		    "on the cache dir's own filesystem", sr->platform);
		store_close(sr);
		return 6003;
	}
	return 0;
}

void
store_close(struct store_root *sr)
{
	if (sr->platform_fd >= 0)
		close(sr->platform_fd);
	if (sr->cache_fd >= 0)
		close(sr->cache_fd);
	free(sr->real);
	free(sr->platform);
	memset(sr, 0, sizeof(*sr));
	sr->cache_fd = sr->platform_fd = -1;
}

/* Check one entry of the platform directory.  1: a store; 0: absent, or
 * (under --all) not a directory; or the code of a refusal. */
static int
check_store(struct store_root *sr, const char *name, bool named,
    struct strbuf *msg)
{
	struct stat st;
	int fd;
	bool same;

	if (fstatat(sr->platform_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		strbuf_addf(msg, "cannot read '%s/%s': %s", sr->platform,
		    name, strerror(errno));
		return 6002;
	}
	if (S_ISLNK(st.st_mode)) {
		strbuf_addf(msg, "store '%s/%s' is a symbolic link: a store "
		    "must be a directory in the cache dir", sr->platform, name);
		return 6003;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (!named)
			return 0;
		strbuf_addf(msg, "store '%s/%s' is not a directory",
		    sr->platform, name);
		return 6003;
	}
	fd = openat(sr->platform_fd, name, O_WALK | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(msg, "cannot open store '%s/%s': %s", sr->platform,
		    name, strerror(errno));
		return errno == ELOOP || errno == ENOTDIR ? 6003 : 6002;
	}
	same = same_place(sr, fd);
	close(fd);
	if (!same) {
		strbuf_addf(msg, "store '%s/%s' is a mount point: only what "
		    "lies on the cache dir's filesystem is removed",
		    sr->platform, name);
		return 6003;
	}
	return 1;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every name in the directory `fd` but "." and "..", sorted.  Takes a
 * descriptor of its own, so `fd` stays open. */
static int
read_names(int fd, struct strvec *names)
{
	struct dirent *de;
	DIR *d;
	int dfd = openat(fd, ".", O_DIR | O_CLOEXEC);

	if (dfd < 0)
		return -1;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		strvec_push(names, de->d_name);
		errno = 0;
	}
	if (errno) {
		int err = errno;

		closedir(d);
		errno = err;
		return -1;
	}
	closedir(d);
	if (names->n > 1)
		qsort(names->v, names->n, sizeof(*names->v), cmp_str);
	return 0;
}

int
store_list(struct store_root *sr, const char *only, struct strvec *names,
    struct strbuf *msg)
{
	struct strvec all = STRVEC_INIT;
	size_t i;
	int r, code = 0;

	if (sr->platform_fd < 0)
		return 0;
	if (only) {
		r = check_store(sr, only, true, msg);
		if (r == 1)
			strvec_push(names, only);
		return r > 1 ? r : 0;
	}
	if (read_names(sr->platform_fd, &all) < 0) {
		strbuf_addf(msg, "cannot list '%s': %s", sr->platform,
		    strerror(errno));
		return 6002;
	}
	for (i = 0; i < all.n && !code; i++) {
		r = check_store(sr, all.v[i], false, msg);
		if (r == 1)
			strvec_push(names, all.v[i]);
		else if (r > 1)
			code = r;
	}
	strvec_clear(&all);
	return code;
}

/* ---- the removal -------------------------------------------------------- */

struct walk {
	struct store_root *sr;
	struct store_result *res;
	struct strbuf path;	/* of the directory being walked */
	unsigned depth;
	bool failed;
};

static void PRINTF_LIKE(3, 4)
walk_fail(struct walk *w, const char *name, const char *fmt, ...)
{
	va_list ap;

	w->failed = true;
	if (w->res->error.len)
		return;
	strbuf_addf(&w->res->error, "'%s/%s': ", w->path.buf, name);
	va_start(ap, fmt);
	strbuf_vaddf(&w->res->error, fmt, ap);
	va_end(ap);
}

/*
 * Give the directory `fd` back to its owner (us) when its mode keeps us
 * out, as a Go module cache's read-only directories do.  Only ever
 * through a descriptor, so the mode change lands on the directory that
 * was opened and on nothing a link points to.
 */
static bool
open_up(int fd, const char *proc_path)
{
	struct stat st;
	mode_t want;

	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    !S_ISDIR(st.st_mode))
		return false;
	want = (st.st_mode & 07777) | S_IRWXU;
	if (want == (st.st_mode & 07777))
		return false;
	/* An O_PATH descriptor cannot be fchmod'ed; its /proc link leads to
	 * exactly the inode it holds. */
	if (proc_path)
		return chmod(proc_path, want) == 0;
	return fchmod(fd, want) == 0;
}

static void remove_dir(struct walk *w, int parent, const char *name);

/* Unlink `name` in `dfd`, opening `dfd` up once when it refuses. */
static void
remove_entry(struct walk *w, int dfd, const char *name, int flags)
{
	int r = unlinkat(dfd, name, flags);

	if (r < 0 && (errno == EACCES || errno == EPERM) &&
	    open_up(dfd, NULL))
		r = unlinkat(dfd, name, flags);
	if (r == 0) {
		w->res->removed++;
		return;
	}
	if (errno == ENOENT)
		return;
	if (errno == EISDIR && !flags) {
		/* It became a directory since we looked. */
		remove_dir(w, dfd, name);
		return;
	}
	if (errno == EBUSY)
		walk_fail(w, name, "a mount point: not crossed");
	else
		walk_fail(w, name, "%s", strerror(errno));
}

/* Open the directory `name` in `parent` for reading, without following a
 * link; a directory that keeps its owner out is opened up first. */
static int
open_subdir(int parent, const char *name)
{
	int fd = openat(parent, name, O_DIR | O_CLOEXEC), pfd, err;
	char proc[64];

	if (fd >= 0 || errno != EACCES)
		return fd;
#ifdef O_PATH
	pfd = openat(parent, name, O_WALK | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	if (open_up(pfd, proc))
		fd = openat(parent, name, O_DIR | O_CLOEXEC);
	err = fd < 0 ? EACCES : 0;
	close(pfd);
	errno = err;
#else
	(void)pfd;
	(void)err;
	(void)proc;
	errno = EACCES;
#endif
	return fd;
}

static void
remove_dir(struct walk *w, int parent, const char *name)
{
	struct strvec names = STRVEC_INIT;
	struct stat st;
	size_t i, plen;
	int fd;

	fd = open_subdir(parent, name);
	if (fd < 0) {
		if (errno == ENOENT)
			return;
		if (errno == ELOOP || errno == ENOTDIR) {
			/* A link or a file now: unlinked, never followed. */
			remove_entry(w, parent, name, 0);
			return;
		}
		walk_fail(w, name, "%s", strerror(errno));
		return;
	}
	if (!same_place(w->sr, fd)) {
		walk_fail(w, name, "a mount point: not crossed");
		close(fd);
		return;
	}
	if (w->depth >= STORE_MAX_DEPTH) {
		walk_fail(w, name, "nested deeper than %d directories",
		    STORE_MAX_DEPTH);
		close(fd);
		return;
	}
	if (read_names(fd, &names) < 0) {
		walk_fail(w, name, "cannot list: %s", strerror(errno));
		close(fd);
		return;
	}
	plen = w->path.len;
	strbuf_addf(&w->path, "/%s", name);
	w->depth++;
	for (i = 0; i < names.n; i++) {
		if (fstatat(fd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				walk_fail(w, names.v[i], "%s", strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode))
			remove_dir(w, fd, names.v[i]);
		else
			remove_entry(w, fd, names.v[i], 0);
	}
	w->depth--;
	strbuf_setlen(&w->path, plen);
	strvec_clear(&names);
	close(fd);
	remove_entry(w, parent, name, AT_REMOVEDIR);
}

int
store_remove(struct store_root *sr, const char *name,
    struct store_result *res)
{
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.sr = sr;
	w.res = res;
	res->removed = 0;
	strbuf_init(&res->error, 0);
	strbuf_init(&w.path, 0);
	strbuf_addstr(&w.path, sr->platform);
	remove_dir(&w, sr->platform_fd, name);
	strbuf_release(&w.path);
	return w.failed ? -1 : 0;
}
