/*
 * test-sandbox: the lib units the sandbox is built on, in TAP: the
 * Landlock rights per ABI and their names, the ABI knob, and removing a
 * temp dir whatever was left in it.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock.h"
#include "strbuf.h"
#include "tap.h"
#include "tmpdir.h"
#include "xalloc.h"

static unsigned
popcount64(uint64_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static void
test_rights(void)
{
	struct strbuf sb = STRBUF_INIT;
	int abi;

	ok(landlock_fs_rights(0) == 0, "no ABI, no rights");
	ok(popcount64(landlock_fs_rights(1)) == 13, "ABI 1 handles 13 rights");
	ok(landlock_fs_rights(2) == (landlock_fs_rights(1) |
	    LANDLOCK_ACCESS_FS_REFER), "ABI 2 adds refer");
	ok(landlock_fs_rights(3) == (landlock_fs_rights(2) |
	    LANDLOCK_ACCESS_FS_TRUNCATE), "ABI 3 adds truncate");
	ok(landlock_fs_rights(4) == landlock_fs_rights(3) &&
	    landlock_net_rights(3) == 0 && landlock_net_rights(4) ==
	    (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP),
	    "ABI 4 adds tcp bind and connect, no file right");
	ok(landlock_fs_rights(5) == (landlock_fs_rights(4) |
	    LANDLOCK_ACCESS_FS_IOCTL_DEV), "ABI 5 adds ioctl_dev");
	ok(landlock_scopes(5) == 0 && landlock_scopes(6) ==
	    (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL),
	    "ABI 6 adds both scopes");
	ok(landlock_restrict_flags(6) == 0 && landlock_restrict_flags(7) ==
	    LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON,
	    "ABI 7: the command's denials are logged, nothing below");
	for (abi = 1; abi <= MAGUS_LANDLOCK_ABI_MAX; abi++)
		if ((LANDLOCK_RIGHTS_READ | LANDLOCK_RIGHTS_WRITE |
		    LANDLOCK_RIGHTS_EXEC) & ~landlock_fs_rights(7))
			break;
	ok(abi > MAGUS_LANDLOCK_ABI_MAX, "the rights groups are ABI 7 rights");
	ok(!(LANDLOCK_RIGHTS_FILE & (LANDLOCK_ACCESS_FS_READ_DIR |
	    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE |
	    LANDLOCK_ACCESS_FS_REFER)), "file rights hold no directory right");
	ok(!(LANDLOCK_RIGHTS_WRITE & (LANDLOCK_ACCESS_FS_MAKE_CHAR |
	    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_IOCTL_DEV)),
	    "write never grants device nodes or device ioctls");

	landlock_features_text(landlock_missing(4, LANDLOCK_FEAT_RIGHTS), &sb);
	is_str(sb.buf, "ioctl_dev, scopes (needs ABI 5, 6)",
	    "ABI 4 lacks ioctl_dev and scopes, named");
	strbuf_reset(&sb);
	landlock_features_text(landlock_missing(1, LANDLOCK_FEAT_RIGHTS &
	    ~LANDLOCK_FEAT_TCP), &sb);
	is_str(sb.buf, "refer, truncate, ioctl_dev, scopes (needs ABI 2, 3, "
	    "5, 6)", "ABI 1 without tcp wanted");
	strbuf_reset(&sb);
	landlock_features_text(landlock_missing(7, LANDLOCK_FEAT_RIGHTS), &sb);
	is_str(sb.buf, "nothing", "ABI 7 lacks nothing");
	ok(landlock_missing(6, LANDLOCK_FEAT_RIGHTS) == 0 &&
	    landlock_missing(6, LANDLOCK_FEAT_LOG) == LANDLOCK_FEAT_LOG,
	    "the log flags are not a right");

	strbuf_reset(&sb);
	landlock_rights_summary(landlock_fs_rights(3) & (LANDLOCK_RIGHTS_READ |
	    LANDLOCK_RIGHTS_WRITE | LANDLOCK_RIGHTS_EXEC), &sb);
	is_str(sb.buf, "read,write,exec,refer,truncate", "summary at ABI 3");
	strbuf_reset(&sb);
	landlock_rights_summary(0, &sb);
	is_str(sb.buf, "none", "summary of nothing");
	is_str(landlock_fs_right_name(LANDLOCK_ACCESS_FS_IOCTL_DEV),
	    "ioctl_dev", "rights by their kernel names");
	ok(landlock_fs_right_name(1ULL << 16) == NULL, "no name past ABI 7");
	strbuf_release(&sb);
}

static void
test_knob(void)
{
	struct landlock_abi a;
	int kernel = landlock_abi_used(landlock_probe_abi(NULL));

	ok(landlock_abi_used(8) == 7 && landlock_abi_used(42) == 7 &&
	    landlock_abi_used(3) == 3 && landlock_abi_used(-1) == 0,
	    "a kernel newer than magus knows is used at ABI 7");
	ok(landlock_abi_get(&a, NULL) == 0 && a.limit == -1 &&
	    a.used == kernel, "no knob: the kernel's ABI, capped at 7");
	ok(landlock_abi_get(&a, "3") == 0 && a.limit == 3 &&
	    a.used == (kernel < 3 ? kernel : 3), "the knob lowers");
	ok(landlock_abi_get(&a, "7") == 0 && a.used == kernel,
	    "the knob never raises past the kernel");
	ok(landlock_abi_get(&a, "0") == 0 && a.used == 0, "0: no Landlock");
	ok(landlock_abi_get(&a, "8") < 0 && landlock_abi_get(&a, "-1") < 0 &&
	    landlock_abi_get(&a, "2x") < 0 && landlock_abi_get(&a, " 3") < 0,
	    "anything but 0..7 is refused");
	ok(strstr(landlock_errno_hint(ENOSYS), "CONFIG_SECURITY_LANDLOCK") &&
	    strstr(landlock_errno_hint(EOPNOTSUPP), "lsm=landlock"),
	    "a hint per errno");
}

static void
test_remove_tree(void)
{
	char *dir = private_dir_make("magus-unit"), *outside, *p;
	struct stat st;
	int fd;

	ok(dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 07777) == 0700, "private_dir_make: a 0700 directory");
	if (!dir)
		return;
	outside = private_dir_make("magus-unit-outside");
	p = xasprintf("%s/keep", outside);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	close(fd);
	free(p);

	p = xasprintf("%s/a", dir);
	mkdir(p, 0700);
	free(p);
	p = xasprintf("%s/a/b", dir);
	mkdir(p, 0700);
	free(p);
	p = xasprintf("%s/a/b/f", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0);
	close(fd);
	free(p);
	p = xasprintf("%s/a/b", dir);
	chmod(p, 0); /* no read, no search, no write */
	free(p);
	p = xasprintf("%s/a", dir);
	chmod(p, 0500);
	free(p);
	p = xasprintf("%s/link", dir);
	ok(symlink(outside, p) == 0, "a symlink to outside planted");
	free(p);
	p = xasprintf("%s/fifo", dir);
	ok(mkfifo(p, 0600) == 0, "a fifo planted");
	free(p);

	ok(remove_tree(dir) == 0, "remove_tree: every entry removed");
	ok(stat(dir, &st) < 0 && errno == ENOENT, "the directory is gone");
	p = xasprintf("%s/keep", outside);
	ok(stat(p, &st) == 0, "the symlink's target is untouched");
	free(p);
	ok(remove_tree(outside) == 0 && remove_tree(outside) == 0,
	    "removing what is gone is not an error");
	free(outside);
	free(dir);
}

int
main(void)
{
	test_rights();
	test_knob();
	test_remove_tree();
	return done_testing();
}
