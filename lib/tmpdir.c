#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"
#include "tmpdir.h"
#include "xalloc.h"

char *
private_dir_make(const char *prefix)
{
	const char *base = getenv("TMPDIR");
	char real[PATH_MAX], *tmpl;
	struct stat st;

	if (!base || base[0] != '/' || stat(base, &st) < 0 ||
	    !S_ISDIR(st.st_mode))
		base = "/tmp";
	/* The directory's real path is what a sandbox rule will name. */
	if (!realpath(base, real))
		return NULL;
	tmpl = xasprintf("%s/%s.XXXXXX", strcmp(real, "/") ? real : "",
	    prefix);
	if (!mkdtemp(tmpl)) {
		int e = errno;

		free(tmpl);
		errno = e;
		return NULL;
	}
	return tmpl;
}

/*
 * Open the directory `name` beneath `dirfd` for reading its entries and
 * removing them, never through a symlink.  A directory with too few
 * permissions for its owner is made 0700: chmod works on an O_PATH
 * descriptor only through its /proc/self/fd name.
 */
static int
open_for_removal(int dirfd, const char *name)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	char proc[64];
	int fd, p;

	fd = openat(dirfd, name, flags);
	if (fd < 0 && errno == EACCES) {
		p = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (p < 0)
			return -1;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p);
		if (chmod(proc, 0700) < 0) {
			int e = errno;

			close(p);
			errno = e;
			return -1;
		}
		close(p);
		fd = openat(dirfd, name, flags);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || ((st.st_mode & 0700) != 0700 &&
	    fchmod(fd, st.st_mode | 0700) < 0)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int clear_dir(int fd);

/* Remove the entry `name` of directory `dirfd`, whatever it is. */
static int
remove_entry(int dirfd, const char *name)
{
	int fd, r;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	fd = open_for_removal(dirfd, name);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	r = clear_dir(fd); /* closes fd */
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -1;
	return r;
}

/* Remove everything in the directory open on `fd`, and close it. */
static int
clear_dir(int fd)
{
	struct dirent *e;
	DIR *d;
	int err = 0, removed;

	d = fdopendir(fd);
	if (!d) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	/* Rescan until a pass removes nothing: removing entries while
	 * reading a directory may hide others from the same pass. */
	do {
		removed = 0;
		rewinddir(d);
		while ((errno = 0, e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (remove_entry(dirfd(d), e->d_name) == 0)
				removed++;
			else if (!err)
				err = errno;
		}
	} while (removed && !err);
	closedir(d);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int
remove_tree(const char *path)
{
	int fd, r;

	fd = open_for_removal(AT_FDCWD, path);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ENOTDIR || errno == ELOOP)
			return unlink(path);
		return -1;
	}
	r = clear_dir(fd);
	if (r < 0) {
		int e = errno;

		(void)rmdir(path);
		errno = e;
		return -1;
	}
	return rmdir(path);
}
