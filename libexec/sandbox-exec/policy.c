/*
 * policy.c: which paths the command may read, write and execute.
 *
 * Each path is resolved exactly once, by opening it O_PATH: that
 * descriptor is what the Landlock rule is given, and the real path the
 * rule (and --print-policy) names is read back from it, so the name
 * printed and the object granted cannot drift apart.  A normal absolute
 * path the kernel opened without following a symbolic link is its own
 * real path, and is not read back.  A path that
 * does not exist on this host (/lib32, /dev/tty in some containers) is
 * simply not granted; an --allow entry that does not exist is refused.
 */
#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "diag.h"
#include "sandbox.h"
#include "strbuf.h"
#include "strutil.h"
#include "xalloc.h"

#define RIGHTS_RO LANDLOCK_RIGHTS_READ
#define RIGHTS_RW (LANDLOCK_RIGHTS_READ | LANDLOCK_RIGHTS_WRITE)
#define RIGHTS_RX (LANDLOCK_RIGHTS_READ | LANDLOCK_RIGHTS_EXEC)
#define RIGHTS_RWX (RIGHTS_RW | LANDLOCK_RIGHTS_EXEC)
#define TERMINAL                                                               \
	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |        \
	    LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* The device nodes a tool needs, and nothing more: ioctls only on the
 * terminal.  Of /dev/pts only the caller's own terminal is granted (see
 * grant_terminal): another one of the same user is another window, whose
 * input could be read or written. */
static const struct {
	const char *path;
	uint64_t access;
} devices[] = {
	{ "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE |
	    LANDLOCK_ACCESS_FS_WRITE_FILE },
	{ "/dev/zero", LANDLOCK_ACCESS_FS_READ_FILE },
	{ "/dev/random", LANDLOCK_ACCESS_FS_READ_FILE },
	{ "/dev/urandom", LANDLOCK_ACCESS_FS_READ_FILE },
	{ "/dev/tty", TERMINAL },
};

/* Variables that name a socket: never passed, never granted. */
static const struct {
	const char *name;
	const char *scheme; /* the prefix before the path, or "" */
} socket_vars[] = {
	{ "SSH_AUTH_SOCK", "" },
	{ "DOCKER_HOST", "unix://" },
	{ "MAGUS_CONTAINER_API", "unix://" },
};

static void
grant_push(struct grant **v, size_t *n, size_t *alloc, char *real, int fd,
    uint64_t access, const char *what, bool file)
{
	struct grant *g;

	ALLOC_GROW(*v, *n + 1, *alloc);
	g = &(*v)[(*n)++];
	memset(g, 0, sizeof(*g));
	g->path = real;
	g->fd = fd;
	g->access = access;
	g->what = what;
	g->file = file;
}

/* Absolute, with no empty, "." or ".." component and no trailing slash:
 * the text a real path has. */
static bool
path_is_normal(const char *path)
{
	const char *c = path;

	if (path[0] != '/')
		return false;
	if (!path[1])
		return true;
	while (*c) {
		const char *s = c + 1, *e = strchrnul(s, '/');
		size_t n = (size_t)(e - s);

		if (!n || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		c = e;
	}
	return true;
}

/* open(2) with O_CLOEXEC as one system call: musl's open() follows it
 * with an fcntl(FD_CLOEXEC) for kernels older than 2.6.23. */
static int
open_cloexec(const char *path, int flags)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC);
}

/* openat2 of a normal path refusing every symbolic link on the way. */
static int
open_no_symlinks(const char *path, int flags)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(O_PATH | O_CLOEXEC | flags);
	how.resolve = RESOLVE_NO_SYMLINKS;
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/*
 * The first symbolic link on the normal path `path`, its text in
 * `target`: the path itself, or else the shortest prefix that is one
 * (/bin/true: /bin).  Its length in *len.  -1 with errno when there is
 * none, or it cannot be read.
 */
static ssize_t
first_link(const char *path, char *target, size_t size, size_t *len)
{
	const char *slash;
	ssize_t n = readlink(path, target, size);

	*len = strlen(path);
	if (n >= 0 || errno != EINVAL)
		return n;
	/* The last component is no link: one further up is. */
	for (slash = strchr(path + 1, '/'); slash;
	    slash = strchr(slash + 1, '/')) {
		char *prefix = xstrndup(path, (size_t)(slash - path));

		n = readlink(prefix, target, size);
		free(prefix);
		if (n >= 0) {
			*len = (size_t)(slash - path);
			return n;
		}
		if (errno != EINVAL)
			return -1;
	}
	return -1;
}

/*
 * The short way to a real path, for a normal one: open it refusing every
 * symbolic link, and it is its own real path.  When a component is a
 * link (/bin -> usr/bin), follow the first by its text, as long as the
 * text keeps the path normal, and try again.  -1 when that does not
 * work ("..", a loop, a kernel before 5.6), and the caller resolves the
 * path the long way, reading the name back through /proc.  Failing here
 * only costs that.
 */
static int
open_real(const char *path, int flags, char **real)
{
	char *cur = xstrdup(path), target[PATH_MAX];
	int fd = -1, hops;

	for (hops = 0; hops < 8 && path_is_normal(cur); hops++) {
		const char *slash;
		size_t len;
		ssize_t n;
		char *next;

		fd = open_no_symlinks(cur, flags);
		if (fd >= 0) {
			*real = cur;
			return fd;
		}
		if (errno != ELOOP)
			break;
		n = first_link(cur, target, sizeof(target), &len);
		if (n <= 0 || (size_t)n >= sizeof(target))
			break;
		target[n] = '\0';
		/* The link's directory: up to the last slash before it. */
		slash = cur + len;
		while (slash > cur && *--slash != '/')
			;
		if (target[0] == '/')
			next = xasprintf("%s%s", target, cur + len);
		else
			next = xasprintf("%.*s/%s%s", (int)(slash - cur), cur,
			    target, cur + len);
		free(cur);
		cur = next;
	}
	free(cur);
	return -1;
}

int
policy_resolve(const char *path, int flags, char **real, struct stat *st)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;
	int fd, e;

	fd = open_real(path, flags, real);
	if (fd >= 0) {
		if (!st || fstat(fd, st) == 0)
			return fd;
		goto fail;
	}
	*real = NULL;
	fd = open_cloexec(path, O_PATH | flags);
	if (fd < 0)
		return -1;
	if (st && fstat(fd, st) < 0)
		goto fail;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf));
	if (n > 0 && (size_t)n < sizeof(buf) && buf[0] == '/') {
		*real = xstrndup(buf, (size_t)n);
		return fd;
	}
	*real = realpath(path, NULL);
	if (*real)
		return fd;
fail:
	e = errno;
	close(fd);
	free(*real);
	*real = NULL;
	errno = e;
	return -1;
}

/*
 * Grant `path` when it exists on this host.  A path expected to be a
 * directory is opened O_DIRECTORY (and not granted when it is not one),
 * which spares an fstat per rule at every start.
 */
static void
grant_if_present(struct policy *p, const char *path, uint64_t access,
    const char *what, bool dir)
{
	struct stat st;
	char *real;
	int fd = policy_resolve(path, dir ? O_DIRECTORY : 0, &real,
	    dir ? NULL : &st);

	if (fd < 0)
		return;
	grant_push(&p->grants, &p->ngrants, &p->grants_alloc, real, fd,
	    access, what, !dir && !S_ISDIR(st.st_mode));
	p->grants[p->ngrants - 1].asked = path;
}

/* $HOME's real path, or NULL when it is unset, relative or missing. */
static const char *
real_home(struct policy *p)
{
	const char *home = getenv("HOME");

	if (!p->home && home && home[0] == '/')
		p->home = realpath(home, NULL);
	return p->home;
}

/*
 * Why a directory must not be granted whole, or NULL: it is the root,
 * holds the home directory, or holds the shared /tmp.
 */
static const char *
too_broad(const char *real, const char *home)
{
	if (!strcmp(real, "/"))
		return "it is the whole file system";
	if (home && path_is_under(home, real))
		return "it holds the home directory";
	if (path_is_under("/tmp", real))
		return "it holds the shared /tmp";
	return NULL;
}

static void
check_root(struct policy *p, const char *home)
{
	const char *why;

	p->root_fd = policy_resolve(p->root_arg, O_DIRECTORY, &p->root, NULL);
	if (p->root_fd < 0) {
		diag(1012, NULL, "--root '%s' is not a directory: %s",
		    p->root_arg, strerror(errno));
		exit(2);
	}
	why = too_broad(p->root, home);
	if (why)
		die_mgs(2014, "name the project's own directory with --root",
		    "--root '%s' cannot be the workspace: %s", p->root, why);
}

/* --tmp: the caller's private directory, 0700 and ours. */
static void
check_tmp(struct policy *p, const char *home)
{
	struct stat st;
	const char *why = NULL;

	p->tmp_fd = policy_resolve(p->tmp_arg, 0, &p->tmp, &st);
	if (p->tmp_fd < 0)
		die_mgs(2004, NULL, "--tmp '%s' cannot be used: %s",
		    p->tmp_arg, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		why = "it is not a directory";
	else if (st.st_uid != geteuid())
		why = "it is not owned by this user";
	else if (st.st_mode & 077)
		why = "others have access (it must be mode 0700)";
	else
		why = too_broad(p->tmp, home);
	if (why)
		die_mgs(2004, NULL, "--tmp '%s' is not a private temp dir: %s",
		    p->tmp_arg, why);
}

/* --allow [MODE:]PATH, MODE ro (default), rw, rx or rwx. */
static void
check_allow(struct policy *p, const char *arg)
{
	const char *colon = strchr(arg, ':'), *path = arg;
	char *mode = xstrdup("ro"), *expanded, *real;
	uint64_t access;
	struct stat st;
	int fd;

	/* A colon before any slash ends the mode ("rw:/x", "bad:~/y"). */
	if (colon && colon != arg && !memchr(arg, '/', (size_t)(colon - arg))) {
		free(mode);
		mode = xstrndup(arg, (size_t)(colon - arg));
		path = colon + 1;
	}
	if (!allow_mode_valid(mode))
		die_mgs(2004, NULL, "--allow '%s': unknown mode '%s' (ro, rw, "
		    "rx or rwx)", arg, mode);
	if (path[0] == '~' && (path[1] == '/' || !path[1])) {
		const char *home = getenv("HOME");

		if (!home || home[0] != '/')
			die_mgs(2004, NULL, "--allow '%s': '~' needs HOME set "
			    "to an absolute path", arg);
	} else if (path[0] != '/') {
		die_mgs(2004, "write an absolute path or ~/...", "--allow "
		    "'%s': the path '%s' is relative", arg, path);
	}
	expanded = expand_home(path);
	fd = policy_resolve(expanded, 0, &real, &st);
	if (fd < 0)
		die_mgs(2004, NULL, "--allow '%s': cannot use '%s': %s", arg,
		    expanded, strerror(errno));
	if (!strcmp(mode, "rw"))
		access = RIGHTS_RW;
	else if (!strcmp(mode, "rx"))
		access = RIGHTS_RX;
	else if (!strcmp(mode, "rwx"))
		access = RIGHTS_RWX;
	else
		access = RIGHTS_RO;
	grant_push(&p->allowed, &p->nallowed, &p->allowed_alloc, real, fd,
	    access, "allow", !S_ISDIR(st.st_mode));
	p->allowed[p->nallowed - 1].given = arg;
	free(expanded);
	free(mode);
}

/* A socket named in the environment must not lie beneath a grant. */
static void
check_sockets(const struct policy *p)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(socket_vars); i++) {
		const char *v = getenv(socket_vars[i].name);
		char *real;

		if (!v || !starts_with(v, socket_vars[i].scheme))
			continue;
		v += strlen(socket_vars[i].scheme);
		if (v[0] != '/')
			continue;
		real = realpath(v, NULL);
		if (!real)
			real = xstrdup(v);
		if (path_is_under(real, p->root))
			die_mgs(2004, "a socket is never granted: unset the "
			    "variable or move the socket", "--root '%s' holds "
			    "the socket '%s' named by %s", p->root, real,
			    socket_vars[i].name);
		for (j = 0; j < p->nallowed; j++)
			if (path_is_under(real, p->allowed[j].path))
				die_mgs(2004, "a socket is never granted: "
				    "grant a narrower directory", "--allow "
				    "'%s' would grant the socket '%s' named "
				    "by %s", p->allowed[j].given, real,
				    socket_vars[i].name);
		free(real);
	}
}

static bool terminal_reachable(void);

void
policy_check_input(struct policy *p)
{
	const char *home;
	size_t i;

	/* First, while every descriptor is one the caller handed on. */
	if (p->mode != SANDBOX_OFF)
		p->terminal = terminal_reachable();
	home = real_home(p);

	check_root(p, home);
	if (p->tmp_arg)
		check_tmp(p, home);
	for (i = 0; i < p->allow.n; i++)
		check_allow(p, p->allow.v[i]);
	for (i = 0; i < p->passthrough.n; i++) {
		const char *why = passthrough_pattern_error(
		    p->passthrough.v[i]);

		if (why)
			die_mgs(2004, "an exact name, or a prefix such as "
			    "MISE_*", "--passthrough '%s' refused: %s",
			    p->passthrough.v[i], why);
	}
	check_sockets(p);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Call `each` with the name of every entry of the directory `path`
 * except "." and "..", until it returns true.  getdents64 into a buffer
 * on the stack: opendir's own buffer would be one more allocation and a
 * page touched for the first time.  -1 with errno when the directory
 * cannot be read, else 0.
 */
static int
each_name(const char *path, bool (*each)(const char *name, void *arg),
    void *arg)
{
	struct dirent64_ {
		uint64_t ino;
		int64_t off;
		unsigned short reclen;
		unsigned char type;
		char name[];
	};
	_Alignas(8) char buf[2048];
	int fd = open_cloexec(path, O_RDONLY | O_DIRECTORY), e;
	bool done = false;
	long n, off;

	if (fd < 0)
		return -1;
	while (!done && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (off = 0; !done && off < n;) {
			const struct dirent64_ *d = (const void *)(buf + off);

			off += d->reclen;
			if (strcmp(d->name, ".") && strcmp(d->name, ".."))
				done = each(d->name, arg);
		}
	e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 0;
}

static bool
add_lib(const char *name, void *arg)
{
	if (starts_with(name, "lib"))
		strvec_pushf(arg, "/%s", name);
	return false;
}

/* /lib, /lib32, /lib64, /libx32: whichever this host has, in order. */
static void
grant_libs(struct policy *p)
{
	struct strvec names = STRVEC_INIT;
	size_t i;

	if (each_name("/", add_lib, &names) < 0) {
		strvec_clear(&names);
		return;
	}
	qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (i = 0; i < names.n; i++) {
		size_t n = p->ngrants;

		grant_if_present(p, names.v[i], RIGHTS_RX, "system", true);
		if (p->ngrants > n)
			p->grants[n].asked = NULL; /* freed below */
	}
	strvec_clear(&names);
}

/*
 * /etc/resolv.conf often links into /run (systemd-resolved): grant the
 * one file it points at, or name resolution breaks in the sandbox.
 */
static void
grant_resolv_conf(struct policy *p)
{
	struct stat st;
	char *real;
	int fd = policy_resolve("/etc/resolv.conf", 0, &real, &st);

	if (fd < 0)
		return;
	if (S_ISREG(st.st_mode) && !path_is_under(real, "/etc") &&
	    !path_is_under(real, "/usr")) {
		grant_push(&p->grants, &p->ngrants, &p->grants_alloc, real, fd,
		    LANDLOCK_ACCESS_FS_READ_FILE, "system", true);
		return;
	}
	close(fd);
	free(real);
}

/* each_name's callback: is the descriptor named `name`, above 2, a
 * terminal?  *(bool *)arg says, and ends the listing. */
static bool
is_inherited_tty(const char *name, void *arg)
{
	char *end;
	long n = strtol(name, &end, 10);

	/* The listing's own descriptor is no terminal: isatty says so. */
	if (!*end && n > 2 && n <= INT_MAX && isatty((int)n))
		*(bool *)arg = true;
	return *(bool *)arg;
}

/*
 * Whether this process has a terminal to hand on: a controlling one, or
 * one on any descriptor it holds.  When it cannot tell (no /dev/tty node,
 * no /proc), it says yes.
 */
static bool
terminal_reachable(void)
{
	bool found = false;
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (isatty(fd))
			return true;
	fd = open_cloexec("/dev/tty", O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (errno != ENXIO) /* ENXIO: no controlling terminal */
		return true;
	if (each_name("/proc/self/fd", is_inherited_tty, &found) < 0)
		return true;
	return found;
}

/* The terminal on stdin, stdout or stderr, when there is one. */
static void
grant_terminal(struct policy *p)
{
	char name[256];
	int fd;

	if (!p->terminal)
		return; /* none of 0, 1 and 2 is one */
	for (fd = 0; fd <= 2; fd++) {
		size_t n = p->ngrants;

		if (isatty(fd) && ttyname_r(fd, name, sizeof(name)) == 0)
			grant_if_present(p, name, TERMINAL, "terminal", false);
		if (p->ngrants > n)
			p->grants[n].asked = NULL; /* `name` is ours */
	}
}

/*
 * True when `path`, as written, names a directory a rule already grants
 * `access` to: it is that rule's real path, or the very string that rule
 * was resolved from (PATH=/usr/bin:/bin after /bin gave /usr/bin).  It
 * need not be opened again.
 */
static bool
already_granted(const struct policy *p, const char *path, uint64_t access)
{
	size_t i;

	for (i = 0; i < p->ngrants; i++) {
		const struct grant *g = &p->grants[i];

		if (!g->file && (g->access & access) == access &&
		    (!strcmp(path, g->path) || (g->asked &&
		    !strcmp(path, g->asked))))
			return true;
	}
	return false;
}

/* Each directory on the child's PATH, read and exec, unless it would
 * grant the root, the home directory or the shared /tmp. */
static void
grant_path_dirs(struct policy *p, const char *home)
{
	const char *path = env_get(p->env.v, "PATH");
	char *copy, *s, *dir;

	if (!path)
		return;
	copy = xstrdup(path);
	for (s = copy; (dir = strsep(&s, ":"));) {
		const char *why;
		char *real;
		int fd;

		if (dir[0] != '/') {
			strvec_pushf(&p->skipped, "PATH entry '%s': it is "
			    "relative", dir);
			continue;
		}
		if (already_granted(p, dir, RIGHTS_RX))
			continue;
		fd = policy_resolve(dir, O_DIRECTORY, &real, NULL);
		if (fd < 0)
			continue;
		why = too_broad(real, home);
		if (why) {
			strvec_pushf(&p->skipped, "PATH entry '%s': %s", dir,
			    why);
			close(fd);
			free(real);
			continue;
		}
		grant_push(&p->grants, &p->ngrants, &p->grants_alloc, real, fd,
		    RIGHTS_RX, "PATH", false);
	}
	free(copy);
}

void
policy_resolve_grants(struct policy *p)
{
	const char *home = real_home(p);
	size_t i;

	grant_push(&p->grants, &p->ngrants, &p->grants_alloc,
	    xstrdup(p->root), p->root_fd, RIGHTS_RWX, "workspace", false);
	p->root_fd = -1; /* the grant holds it now */
	grant_if_present(p, "/usr", RIGHTS_RX, "system", true);
	grant_if_present(p, "/bin", RIGHTS_RX, "system", true);
	grant_if_present(p, "/sbin", RIGHTS_RX, "system", true);
	grant_libs(p);
	grant_if_present(p, "/etc", RIGHTS_RX, "system", true);
	grant_resolv_conf(p);
	grant_if_present(p, "/proc", RIGHTS_RO, "system", true);
	grant_if_present(p, "/sys", RIGHTS_RO, "system", true);
	/* Without a terminal (policy_check_input looked), /dev/tty has
	 * nothing behind it, and is granted no ioctls: whatever it might
	 * come to name later (a terminal device the command opens in a new
	 * session of its own) the command cannot type into.
	 * confine_terminal_filter() counts on it. */
	for (i = 0; i < ARRAY_SIZE(devices); i++)
		grant_if_present(p, devices[i].path, p->terminal ?
		    devices[i].access : devices[i].access &
		    ~(uint64_t)LANDLOCK_ACCESS_FS_IOCTL_DEV, "device", false);
	grant_terminal(p);
	grant_path_dirs(p, home);
	for (i = 0; i < p->nallowed; i++) {
		struct grant *a = &p->allowed[i];

		grant_push(&p->grants, &p->ngrants, &p->grants_alloc,
		    xstrdup(a->path), a->fd, a->access, a->what, a->file);
		p->grants[p->ngrants - 1].given = a->given;
		a->fd = -1;
	}
}

void
policy_add_tmp(struct policy *p)
{
	grant_push(&p->grants, &p->ngrants, &p->grants_alloc, xstrdup(p->tmp),
	    p->tmp_fd, RIGHTS_RWX, "private temp", false);
	p->tmp_fd = -1;
}

/* The rights a rule asks for, as a file rule may hold them. */
static uint64_t
wanted(const struct grant *g)
{
	return g->file ? g->access & LANDLOCK_RIGHTS_FILE : g->access;
}

static void
drop(struct grant *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	free(g->path);
	g->path = NULL;
}

void
policy_simplify(struct policy *p)
{
	size_t i, j, n = 0;

	/* Equal paths: one rule with both rights. */
	for (i = 0; i < p->ngrants; i++) {
		for (j = 0; j < i; j++)
			if (p->grants[j].path && !strcmp(p->grants[j].path,
			    p->grants[i].path))
				break;
		if (j < i) {
			p->grants[j].access |= p->grants[i].access;
			drop(&p->grants[i]);
		}
	}
	/* A rule an ancestor's rule already covers adds nothing. */
	for (i = 0; i < p->ngrants; i++) {
		if (!p->grants[i].path)
			continue;
		for (j = 0; j < p->ngrants; j++) {
			if (j == i || !p->grants[j].path ||
			    p->grants[j].file ||
			    !strcmp(p->grants[i].path, p->grants[j].path) ||
			    !path_is_under(p->grants[i].path,
			    p->grants[j].path))
				continue;
			if (!(wanted(&p->grants[i]) & ~wanted(&p->grants[j])))
				break;
		}
		if (j < p->ngrants)
			drop(&p->grants[i]);
	}
	for (i = 0; i < p->ngrants; i++)
		if (p->grants[i].path)
			p->grants[n++] = p->grants[i];
	p->ngrants = n;
}

uint64_t
policy_applied(const struct policy *p, const struct grant *g)
{
	return wanted(g) & p->handled_fs;
}

char *
policy_find_command(const struct policy *p, const char *name)
{
	return path_find_program(env_get(p->env.v, "PATH"), name);
}

bool
policy_may_exec(const struct policy *p, const char *exe)
{
	size_t i;

	for (i = 0; i < p->ngrants; i++)
		if ((wanted(&p->grants[i]) & LANDLOCK_ACCESS_FS_EXECUTE) &&
		    path_is_under(exe, p->grants[i].path))
			return true;
	return false;
}

const struct grant *
policy_readable(const struct policy *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->ngrants; i++)
		if ((wanted(&p->grants[i]) & LANDLOCK_ACCESS_FS_READ_DIR) &&
		    path_is_under(path, p->grants[i].path))
			return &p->grants[i];
	return NULL;
}

void
policy_release(struct policy *p)
{
	size_t i;

	for (i = 0; i < p->ngrants; i++)
		drop(&p->grants[i]);
	free(p->grants);
	for (i = 0; i < p->nallowed; i++)
		drop(&p->allowed[i]);
	free(p->allowed);
	if (p->root_fd >= 0)
		close(p->root_fd);
	if (p->tmp_fd >= 0)
		close(p->tmp_fd);
	free(p->home);
	free(p->root);
	free(p->tmp);
	free(p->exe);
	free(p->exe_real);
	strvec_clear(&p->allow);
	strvec_clear(&p->passthrough);
	strvec_clear(&p->skipped);
	strvec_clear(&p->env);
	strvec_clear(&p->passed);
	strvec_clear(&p->stripped);
	strvec_clear(&p->withheld);
	strvec_clear(&p->egress);
}
