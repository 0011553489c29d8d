#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirutil.h"
#include "strbuf.h"
#include "xalloc.h"

int
mkdir_p(const char *path, mode_t mode, struct strbuf *err)
{
	char *p = xstrdup(path);
	char *s = p;
	struct stat st;
	int r = 0;

	for (;;) {
		char c;

		s += strspn(s, "/");
		s += strcspn(s, "/");
		c = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			strbuf_addf(err, "cannot create '%s': %s", p,
			    strerror(errno));
			r = -1;
			break;
		}
		if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			strbuf_addf(err, "'%s' is not a directory", p);
			r = -1;
			break;
		}
		*s = c;
		if (!c || !s[strspn(s, "/")])
			break;
	}
	free(p);
	return r;
}

/* Empty the directory open at `dfd` (which is closed), depth first. */
static int
rm_rf_at(int dfd, const char *path, struct strbuf *err)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
		close(dfd);
		return -1;
	}
	while (r == 0 && (errno = 0, e = readdir(d)) != NULL) {
		int fd;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			strbuf_addf(err, "cannot remove '%s/%s': %s", path,
			    e->d_name, strerror(errno));
			r = -1;
			break;
		}
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			strbuf_addf(err, "cannot open '%s/%s': %s", path,
			    e->d_name, strerror(errno));
			r = -1;
			break;
		} else {
			char *sub = xasprintf("%s/%s", path, e->d_name);

			r = rm_rf_at(fd, sub, err);
			free(sub);
		}
		if (r == 0 && unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0) {
			strbuf_addf(err, "cannot remove '%s/%s': %s", path,
			    e->d_name, strerror(errno));
			r = -1;
		}
	}
	if (r == 0 && errno) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
		r = -1;
	}
	closedir(d);
	return r;
}

int
rm_rf(const char *path, struct strbuf *err)
{
	int fd;

	if (unlink(path) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM) {
		strbuf_addf(err, "cannot remove '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (rm_rf_at(fd, path, err) < 0)
		return -1;
	if (rmdir(path) < 0 && errno != ENOENT) {
		strbuf_addf(err, "cannot remove '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
dir_replace(const char *src, const char *dst, struct strbuf *err)
{
	if (rename(src, dst) == 0)
		return 0;
	if (errno != EEXIST && errno != ENOTEMPTY) {
		strbuf_addf(err, "cannot rename '%s' to '%s': %s", src, dst,
		    strerror(errno));
		return -1;
	}
	if (renameat2(AT_FDCWD, src, AT_FDCWD, dst, RENAME_EXCHANGE) < 0) {
		strbuf_addf(err, "cannot exchange '%s' and '%s': %s", src,
		    dst, strerror(errno));
		return -1;
	}
	return rm_rf(src, err);
}

int
fsync_path(const char *path, struct strbuf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0 || fsync(fd) < 0) {
		strbuf_addf(err, "cannot sync '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
