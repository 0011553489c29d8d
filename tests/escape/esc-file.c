/*
 * esc-file: file system attacks, one system call each.
 *
 *	esc-file read PATH		open(O_RDONLY) and read it all
 *	esc-file list DIR		open(O_DIRECTORY) and read its entries
 *	esc-file write PATH		open(O_WRONLY|O_APPEND) and write
 *	esc-file create PATH		open(O_CREAT|O_EXCL|O_WRONLY) and write
 *	esc-file mkdir PATH
 *	esc-file unlink PATH
 *	esc-file symlink TARGET LINK
 *	esc-file link OLD NEW		link(2)
 *	esc-file rename OLD NEW		rename(2)
 *	esc-file exchange A B		renameat2(RENAME_EXCHANGE)
 *	esc-file truncate PATH		truncate(2) to zero
 *	esc-file otrunc-ro PATH		open(O_RDONLY|O_TRUNC)
 *	esc-file otrunc-wo PATH		open(O_WRONLY|O_TRUNC)
 *	esc-file creat PATH		creat(2)
 *	esc-file reopen-fd N MODE	open /proc/self/fd/N with MODE r, w or rw,
 *					after checking fd N was inherited
 *	esc-file exec PATH [ARG...]	execv(2); prints nothing when it works
 *
 * What it prints and how it exits: see escape.h.
 */
#include "compat.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "escape.h"

static const char prog[] = "esc-file";
static const char marker[] = "escaped\n";

static long
write_marker(int fd)
{
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, marker, sizeof(marker) - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static long
read_all(int fd)
{
	char buf[4096];
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static long
list_dir(const char *path)
{
	char buf[4096];
	long n;
	int fd;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static long
reopen_fd(const char *num, const char *mode)
{
	char path[64];
	struct stat st;
	int fd = (int)esc_number(prog, num), flags;

	if (!strcmp(mode, "r"))
		flags = O_RDONLY;
	else if (!strcmp(mode, "w"))
		flags = O_WRONLY;
	else if (!strcmp(mode, "rw"))
		flags = O_RDWR;
	else
		esc_usage(prog, "reopen-fd N r|w|rw");
	/* Without the inherited fd there is no attack to make. */
	if (fstat(fd, &st) < 0)
		esc_setup_error(prog, "the inherited fd");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -1;
	return flags == O_RDONLY ? read_all(fd) : write_marker(fd);
}

int
main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : NULL;
	const char *b = argc > 3 ? argv[3] : NULL;
	long rc;

	if (!a)
		esc_usage(prog, "OP PATH [PATH]");
	if (!strcmp(op, "exec")) {
		execv(a, argv + 2);
		return verdict(-1);
	}
	if (!strcmp(op, "read"))
		rc = read_all(open(a, O_RDONLY | O_CLOEXEC));
	else if (!strcmp(op, "list"))
		rc = list_dir(a);
	else if (!strcmp(op, "write"))
		rc = write_marker(open(a, O_WRONLY | O_APPEND | O_CLOEXEC));
	else if (!strcmp(op, "create"))
		rc = write_marker(open(a,
		    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
	else if (!strcmp(op, "mkdir"))
		rc = mkdir(a, 0755);
	else if (!strcmp(op, "unlink"))
		rc = unlink(a);
	else if (!strcmp(op, "truncate"))
		rc = truncate(a, 0);
	else if (!strcmp(op, "otrunc-ro"))
		rc = read_all(open(a, O_RDONLY | O_TRUNC | O_CLOEXEC));
	else if (!strcmp(op, "otrunc-wo"))
		rc = write_marker(open(a, O_WRONLY | O_TRUNC | O_CLOEXEC));
	else if (!strcmp(op, "creat"))
		rc = write_marker(creat(a, 0644));
	else if (!b)
		esc_usage(prog, "OP PATH PATH");
	else if (!strcmp(op, "symlink"))
		rc = symlink(a, b);
	else if (!strcmp(op, "link"))
		rc = link(a, b);
	else if (!strcmp(op, "rename"))
		rc = rename(a, b);
	else if (!strcmp(op, "exchange"))
		rc = renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	else if (!strcmp(op, "reopen-fd"))
		rc = reopen_fd(a, b);
	else
		esc_usage(prog, "read|list|write|create|mkdir|unlink|symlink|"
		    "link|rename|exchange|truncate|otrunc-ro|otrunc-wo|creat|"
		    "reopen-fd|exec ...");
	return verdict(rc);
}
