/*
 * netproxy.c: --network proxy, the command in a network namespace whose
 * only way out is magus-egress.
 *
 * The process tree, while the command runs:
 *
 *	magus-sandbox-exec	waits, forwards signals, tears down; no
 *	 |			capabilities, outside Landlock
 *	 +- the command		its own network namespace (loopback only),
 *	 |			Landlock, no capabilities; dies with its
 *	 |			parent (PR_SET_PDEATHSIG, SIGKILL)
 *	 +- the forwarder	its own session, the caller's namespace, no
 *	     |			capabilities, outside the command's Landlock
 *	     |			domain; dies with its parent (SIGTERM)
 *	     +- magus-egress	the proxy, on a unix socket in a private
 *				directory; --die-with-parent
 *
 * The command's process makes the namespace itself, before it confines
 * itself: unshare(CLONE_NEWNET) where it may (root), else a user
 * namespace mapping only its own ids with the network namespace.  In
 * the new namespace it brings loopback up and makes the listening
 * socket, 127.0.0.1 and a port the kernel picks, then hands that socket
 * to magus-sandbox-exec (SCM_RIGHTS) and waits for a go.  A socket
 * belongs to the namespace it was made in, whoever holds it: the
 * forwarder accepts the command's connections on it without ever
 * entering the namespace, and carries each one to magus-egress's unix
 * socket, which crosses namespaces as a path.  Nothing that serves the
 * command shares its Landlock domain or its namespace.
 *
 * The go comes once the proxy is ready; a failure anywhere before it
 * kills the command's process before its exec: nothing runs.  After the
 * command, magus-sandbox-exec stops the forwarder, which stops the proxy
 * (its socket goes with it) and removes the private directory.  The
 * namespace goes when its last process does and the listening socket,
 * the forwarder's, is closed.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "egress.h"
#include "execpath.h"
#include "proc.h"
#include "sandbox.h"
#include "strbuf.h"
#include "tmpdir.h"
#include "xalloc.h"

extern char **environ;

/* The variables pointing the command at the forwarder. */
const char *const netproxy_vars[] = {
	"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy",
};
const size_t netproxy_nvars = ARRAY_SIZE(netproxy_vars);
/* Set to "" so that no destination bypasses the proxy. */
const char *const netproxy_empty_vars[] = { "NO_PROXY", "no_proxy" };
const size_t netproxy_nempty = ARRAY_SIZE(netproxy_empty_vars);
/* The value set before the port is known; the command's process writes
 * the port over its last digits (it may not allocate then). */
const char netproxy_url_placeholder[] = "http://127.0.0.1:65535";

/* The forwarder: connections at once, and the buffer of each direction.
 * Above magus-egress's default bound (256) and the 16 it accepts beyond
 * it only to answer 503, so that the command sees the proxy's 503 rather
 * than a connection that hangs in the forwarder's backlog. */
#define FWD_MAX_CONNS 512
#define FWD_BUF (64 * 1024)
/* How long the proxy has to say it is ready, and to stop. */
#define READY_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 3000

enum ns_kind { NS_NONE, NS_DIRECT, NS_USER };

/* What the command's process tells magus-sandbox-exec, with the socket. */
struct ns_report {
	int kind;	 /* enum ns_kind */
	int err_net;	 /* unshare(CLONE_NEWNET)'s errno, when it failed */
	int err_user;	 /* with CLONE_NEWUSER, when that failed too */
	unsigned port;
};

/* What the forwarder tells magus-sandbox-exec once the proxy is up. */
struct fwd_report {
	int ok;
	pid_t egress;
	int status; /* the proxy's exit status when it failed */
};

struct netproxy {
	struct policy *p;
	int ruleset;
	pid_t self;	   /* magus-sandbox-exec, the children's parent */
	uid_t uid;
	gid_t gid;
	int sock[2];	   /* [0] here, [1] the command's process */
	char *dir;	   /* the proxy's private directory */
	char *sockpath;	   /* its socket */
	struct strvec egress_argv;
	pid_t fwd;
	struct ns_report ns;
	struct fwd_report fr;
	/* Why the parent's hook stopped the command (0: it did not). */
	int fail_code;
	struct strbuf fail;
	const char *fail_hint;
};

void
netproxy_check_input(struct policy *p)
{
	struct allowlist al = ALLOWLIST_INIT;
	const char *why;
	size_t i;

	for (i = 0; i < p->egress.n; i++) {
		why = allow_add(&al, p->egress.v[i]);
		if (why) {
			allowlist_clear(&al);
			die_mgs(2004, "write HOST:PORT, *.DOMAIN:PORT or an "
			    "address (range) with a port",
			    "--egress-allow '%s' refused: %s", p->egress.v[i],
			    why);
		}
	}
	allowlist_clear(&al);
}

/* ---- the command's process, between fork and exec ------------------- */

/* Unsigned decimal into buf (at least 11 bytes); no allocation. */
static size_t
fmt_uint(char *buf, unsigned long v)
{
	char tmp[24];
	size_t n = 0, i;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof(tmp));
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

static int
write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	if (n != (ssize_t)len) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* "ID ID 1\n": map our own id, and nothing else, into the namespace. */
static int
map_one(const char *path, unsigned long id)
{
	char line[64];
	size_t n = fmt_uint(line, id);

	line[n++] = ' ';
	n += fmt_uint(line + n, id);
	memcpy(line + n, " 1\n", 4);
	return write_file(path, line);
}

/* Bring loopback up in the new namespace (it starts down). */
static int
loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = -1;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	if (r < 0) {
		int e = errno;

		close(s);
		errno = e;
		return -1;
	}
	return close(s);
}

/*
 * A network namespace for this process: directly where it may (root, or
 * CAP_SYS_ADMIN), else inside a user namespace of its own with only its
 * own uid and gid mapped, so it stays who it was.  Fills r->kind and the
 * errnos; returns -1 only when a namespace was made but could not be
 * finished (the process must not go on).
 */
static int
make_namespace(const struct netproxy *np, struct ns_report *r,
    struct strbuf *why)
{
	r->kind = NS_NONE;
	if (unshare(CLONE_NEWNET) == 0) {
		r->kind = NS_DIRECT;
	} else {
		r->err_net = errno;
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
			r->err_user = errno;
			return 0;
		}
		r->kind = NS_USER;
		if (write_file("/proc/self/setgroups", "deny\n") < 0 ||
		    map_one("/proc/self/uid_map", np->uid) < 0 ||
		    map_one("/proc/self/gid_map", np->gid) < 0) {
			strbuf_addf(why, "cannot map the user namespace's "
			    "ids: %s", strerror(errno));
			return -1;
		}
	}
	if (loopback_up() < 0) {
		strbuf_addf(why, "cannot bring loopback up in the network "
		    "namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The forwarder's listening socket, 127.0.0.1 and a port the kernel
 * picks, in this process's (new) namespace. */
static int
listen_loopback(unsigned *port, struct strbuf *why)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		strbuf_addf(why, "cannot make the forwarder's socket: %s",
		    strerror(errno));
		return -1;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(fd, SOMAXCONN) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) < 0) {
		strbuf_addf(why, "cannot listen on 127.0.0.1 for the "
		    "forwarder: %s", strerror(errno));
		close(fd);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

/* Write the port over the placeholder's in each proxy variable. */
static void
fill_env(char **env, unsigned port)
{
	size_t i, j, n;

	for (i = 0; env[i]; i++)
		for (j = 0; j < netproxy_nvars; j++) {
			n = strlen(netproxy_vars[j]);
			if (!strncmp(env[i], netproxy_vars[j], n) &&
			    env[i][n] == '=') {
				char *colon = strrchr(env[i], ':');

				if (colon)
					fmt_uint(colon + 1, port);
			}
		}
}

static int
send_report(int sock, struct ns_report *r, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr msg;
	struct cmsghdr *cm;

	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return RETRY_EINTR(sendmsg(sock, &msg, MSG_NOSIGNAL)) ==
	    (ssize_t)sizeof(*r) ? 0 : -1;
}

static NORETURN void
child_fail(const char *what)
{
	diag(2015, NULL, "%s; nothing ran", what);
	_exit(71);
}

/* run_child's hook in the command's process.  Its parent is
 * single-threaded, so the allocation strbuf makes is safe here. */
static int
proxy_child(void *arg)
{
	struct netproxy *np = arg;
	struct strbuf why = STRBUF_INIT;
	struct ns_report r;
	struct landlock_net_port_attr rule;
	char go = 0;
	int lfd;

	close(np->sock[0]);
	/* Gone with magus-sandbox-exec, even when it is killed. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_fail("cannot ask to die with magus-sandbox-exec");
	if (getppid() != np->self)
		_exit(71);
	memset(&r, 0, sizeof(r));
	if (make_namespace(np, &r, &why) < 0)
		child_fail(why.buf);
	lfd = listen_loopback(&r.port, &why);
	if (lfd < 0)
		child_fail(why.buf);
	fill_env(np->p->env.v, r.port);
	/* Landlock's port rule: connect to the forwarder, nothing else;
	 * bind is handled and never allowed. */
	if (np->ruleset >= 0 && (np->p->handled_net &
	    LANDLOCK_ACCESS_NET_CONNECT_TCP)) {
		memset(&rule, 0, sizeof(rule));
		rule.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP;
		rule.port = r.port;
		if (landlock_add_rule(np->ruleset, LANDLOCK_RULE_NET_PORT,
		    &rule, 0) < 0) {
			strbuf_addf(&why, "cannot add the Landlock rule for "
			    "tcp port %u: %s", r.port, strerror(errno));
			child_fail(why.buf);
		}
	}
	if (send_report(np->sock[1], &r, lfd) < 0)
		_exit(71);
	close(lfd);
	/* Anything but the go (the parent refused, or died): stop here. */
	if (RETRY_EINTR(read(np->sock[1], &go, 1)) != 1 || go != 'g')
		_exit(71);
	close(np->sock[1]);
	if (confine_self(np->p, np->ruleset, &why) < 0)
		child_fail(why.buf);
	strbuf_release(&why);
	return 0;
}

/* ---- the forwarder -------------------------------------------------- */

struct fdir {
	char *buf;
	size_t len, off;
	bool eof;
};

/* A pair: fd[0] the command's TCP connection, fd[1] the proxy's unix
 * socket.  d[0] carries fd[0] to fd[1], d[1] the other way. */
struct fconn {
	int fd[2];
	struct fdir d[2];
	uint32_t want[2];
	bool used;
};

struct fwd {
	int epfd, lfd, sigfd;
	const char *sockpath;
	pid_t egress;
	int egress_status;
	bool egress_gone;
	bool accepting;
	unsigned nconns;
	struct fconn conns[FWD_MAX_CONNS];
};

#define TOK_LISTEN UINT64_MAX
#define TOK_SIGNAL (UINT64_MAX - 1)

static void
fwd_close(struct fwd *f, struct fconn *c)
{
	int s;

	for (s = 0; s < 2; s++) {
		if (c->want[s])
			epoll_ctl(f->epfd, EPOLL_CTL_DEL, c->fd[s], NULL);
		close(c->fd[s]);
		free(c->d[s].buf);
	}
	memset(c, 0, sizeof(*c));
	f->nconns--;
}

/*
 * Watch each side for what it can do next: reading when its direction's
 * buffer is empty and it has not ended, writing when the other
 * direction has bytes for it.  A side with nothing to do is not watched
 * at all, so that a hung-up socket cannot wake the loop for nothing.
 */
static int
fwd_watch(struct fwd *f, struct fconn *c)
{
	struct epoll_event ev;
	uint32_t want;
	int s, op;

	for (s = 0; s < 2; s++) {
		want = 0;
		if (!c->d[s].len && !c->d[s].eof)
			want |= EPOLLIN;
		if (c->d[1 - s].len)
			want |= EPOLLOUT;
		if (want == c->want[s])
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.events = want;
		ev.data.u64 = (uint64_t)(c - f->conns) << 1 | (uint64_t)s;
		op = !c->want[s] ? EPOLL_CTL_ADD : want ? EPOLL_CTL_MOD :
		    EPOLL_CTL_DEL;
		if (epoll_ctl(f->epfd, op, c->fd[s], &ev) < 0)
			return -1;
		c->want[s] = want;
	}
	return 0;
}

/* Move what direction `s` holds to its writer; -1 when the pair ends. */
static int
fwd_flush(struct fconn *c, int s)
{
	struct fdir *d = &c->d[s];
	ssize_t n;

	while (d->len) {
		n = send(c->fd[1 - s], d->buf + d->off, d->len, MSG_NOSIGNAL);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		d->off += (size_t)n;
		d->len -= (size_t)n;
	}
	d->off = 0;
	if (d->eof && shutdown(c->fd[1 - s], SHUT_WR) < 0 && errno !=
	    ENOTCONN)
		return -1;
	return 0;
}

static int
fwd_read(struct fconn *c, int s)
{
	struct fdir *d = &c->d[s];
	ssize_t n;

	if (d->len || d->eof)
		return 0;
	n = read(c->fd[s], d->buf, FWD_BUF);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		d->eof = true;
	d->len = (size_t)n;
	return fwd_flush(c, s);
}

static void
fwd_event(struct fwd *f, uint64_t tok, uint32_t events)
{
	struct fconn *c = &f->conns[tok >> 1];
	int s = (int)(tok & 1);

	if (!c->used)
		return;
	if (events & EPOLLERR)
		goto end;
	if ((events & EPOLLOUT) && fwd_flush(c, 1 - s) < 0)
		goto end;
	if ((events & (EPOLLIN | EPOLLHUP)) && fwd_read(c, s) < 0)
		goto end;
	if (c->d[0].eof && !c->d[0].len && c->d[1].eof && !c->d[1].len)
		goto end;
	if (fwd_watch(f, c) == 0)
		return;
end:
	fwd_close(f, c);
}

static void
fwd_listen(struct fwd *f, bool on)
{
	struct epoll_event ev;

	if (f->accepting == on)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = TOK_LISTEN;
	if (epoll_ctl(f->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, f->lfd,
	    &ev) == 0)
		f->accepting = on;
}

/* A new connection from the command: its pair to the proxy's socket. */
static void
fwd_accept(struct fwd *f)
{
	struct sockaddr_un sun;
	struct fconn *c = NULL;
	unsigned i;
	int cfd, ufd;

	while (f->nconns < FWD_MAX_CONNS) {
		cfd = accept4(f->lfd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC);
		if (cfd < 0) {
			/* Out of descriptors: wait for a pair to close. */
			if (errno == EMFILE || errno == ENFILE)
				fwd_listen(f, false);
			return;
		}
		ufd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		memcpy(sun.sun_path, f->sockpath, strlen(f->sockpath) + 1);
		/* A unix connect completes at once or not at all; refused,
		 * the command sees its connection closed. */
		if (ufd < 0 || connect(ufd, (struct sockaddr *)&sun,
		    sizeof(sun)) < 0) {
			if (ufd >= 0)
				close(ufd);
			close(cfd);
			continue;
		}
		for (i = 0; i < FWD_MAX_CONNS; i++)
			if (!f->conns[i].used) {
				c = &f->conns[i];
				break;
			}
		c->used = true;
		c->fd[0] = cfd;
		c->fd[1] = ufd;
		c->d[0].buf = xmalloc(FWD_BUF);
		c->d[1].buf = xmalloc(FWD_BUF);
		f->nconns++;
		if (fwd_watch(f, c) < 0)
			fwd_close(f, c);
	}
	fwd_listen(f, false);
}

/* Wait up to `ms` for the proxy to exit; true when it did. */
static bool
fwd_reap(struct fwd *f, int ms)
{
	struct signalfd_siginfo si;
	struct pollfd pfd = { f->sigfd, POLLIN, 0 };
	int status;

	for (;;) {
		pid_t w = waitpid(f->egress, &status, WNOHANG);

		if (w == f->egress) {
			f->egress_status = exit_status_of(status);
			f->egress_gone = true;
			return true;
		}
		if (w < 0 && errno == ECHILD)
			return true;
		if (ms <= 0)
			return false;
		/* SIGCHLD, or another signal, or time up: look again. */
		if (poll(&pfd, 1, 100) > 0)
			(void)!read(f->sigfd, &si, sizeof(si));
		ms -= 100;
	}
}

/* Stop: the connections, then the proxy, then its directory. */
static NORETURN void
fwd_stop(struct fwd *f, const char *dir, int status)
{
	unsigned i;

	close(f->lfd);
	for (i = 0; i < FWD_MAX_CONNS; i++)
		if (f->conns[i].used)
			fwd_close(f, &f->conns[i]);
	if (!f->egress_gone) {
		kill(f->egress, SIGTERM);
		if (!fwd_reap(f, STOP_TIMEOUT_MS)) {
			kill(f->egress, SIGKILL);
			fwd_reap(f, STOP_TIMEOUT_MS);
		}
	}
	/* The proxy removes its socket; one it left (killed) goes too. */
	if (unlink(f->sockpath) < 0 && errno != ENOENT)
		status = 71;
	if (rmdir(dir) < 0 && errno != ENOENT)
		status = 71;
	_exit(status);
}

static int
close_from_to(unsigned lo, unsigned hi)
{
	/* Before Linux 5.9 there is no close_range: every descriptor this
	 * program opens is close-on-exec, so the proxy inherits none of
	 * them anyway. */
	if (syscall(SYS_close_range, lo, hi, 0) < 0 && errno != ENOSYS)
		return -1;
	return 0;
}

/* Close every descriptor but those in keep[] (sorted, above 2). */
static int
close_others(const int *keep, size_t n)
{
	unsigned lo = 3;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo &&
		    close_from_to(lo, (unsigned)keep[i] - 1) < 0)
			return -1;
		lo = (unsigned)keep[i] + 1;
	}
	return close_from_to(lo, ~0U);
}

/* Start magus-egress; its pid, or -1.  Its ready line arrives on the
 * pipe *rfd. */
static pid_t
start_egress(struct netproxy *np, int *rfd)
{
	int rp[2];
	pid_t pid;
	sigset_t none;

	if (pipe2(rp, O_CLOEXEC) < 0)
		return -1;
	strvec_pushf(&np->egress_argv, "--ready-fd=%d", rp[1]);
	strvec_push(&np->egress_argv, "--die-with-parent");
	pid = fork();
	if (pid < 0) {
		close(rp[0]);
		close(rp[1]);
		return -1;
	}
	if (pid == 0) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (fcntl(rp[1], F_SETFD, 0) == 0)
			execve(np->egress_argv.v[0], np->egress_argv.v,
			    environ);
		diag(2020, NULL, "cannot execute the egress proxy '%s': %s",
		    np->egress_argv.v[0], strerror(errno));
		_exit(127);
	}
	close(rp[1]);
	*rfd = rp[0];
	return pid;
}

/* The proxy's ready line, within READY_TIMEOUT_MS: true when it came. */
static bool
egress_ready(int rfd)
{
	char line[PATH_MAX + 16];
	size_t len = 0;
	ssize_t n;
	struct pollfd pfd = { rfd, POLLIN, 0 };

	while (len < sizeof(line) - 1) {
		if (RETRY_EINTR(poll(&pfd, 1, READY_TIMEOUT_MS)) <= 0)
			return false;
		n = RETRY_EINTR(read(rfd, line + len, sizeof(line) - 1 - len));
		if (n <= 0)
			return false;
		len += (size_t)n;
		if (memchr(line, '\n', len))
			return !strncmp(line, "unix:", 5);
	}
	return false;
}

static void
fwd_report(int wfd, const struct fwd_report *r)
{
	(void)!RETRY_EINTR(write(wfd, r, sizeof(*r)));
	close(wfd);
}

/*
 * The forwarder's process: start the proxy, report, then carry every
 * connection accepted on lfd to the proxy's socket until SIGTERM (from
 * magus-sandbox-exec, or its death) or the proxy's end.
 */
static NORETURN void
forwarder(struct netproxy *np, int lfd, int wfd)
{
	static struct fwd f;
	struct fwd_report r = { 0, -1, 0 };
	struct epoll_event evs[64];
	struct signalfd_siginfo si;
	struct rlimit rl;
	sigset_t sigs;
	int keep[2], rfd = -1, n, i, null;

	keep[0] = lfd < wfd ? lfd : wfd;
	keep[1] = lfd < wfd ? wfd : lfd;
	/* Out of the terminal's reach (^C is the command's, not ours), and
	 * gone with magus-sandbox-exec. */
	if (close_others(keep, 2) < 0 || setsid() < 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != np->self)
		_exit(71);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		_exit(71);
	close(null);
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		_exit(71);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) < 0)
		_exit(71);
	f.sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	f.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (f.sigfd < 0 || f.epfd < 0)
		_exit(71);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	f.lfd = lfd;
	f.sockpath = np->sockpath;
	f.egress = start_egress(np, &rfd);
	if (f.egress < 0) {
		diag(2020, NULL, "cannot start the egress proxy: %s",
		    strerror(errno));
		fwd_report(wfd, &r);
		f.egress_gone = true;
		fwd_stop(&f, np->dir, 71);
	}
	r.egress = f.egress;
	if (!egress_ready(rfd)) {
		/* It said why on stderr; a proxy that hangs is stopped. */
		if (!fwd_reap(&f, STOP_TIMEOUT_MS)) {
			kill(f.egress, SIGKILL);
			fwd_reap(&f, STOP_TIMEOUT_MS);
		}
		f.egress_gone = true;
		r.status = f.egress_status;
		fwd_report(wfd, &r);
		fwd_stop(&f, np->dir, 71);
	}
	close(rfd);
	memset(evs, 0, sizeof(evs));
	evs[0].events = EPOLLIN;
	evs[0].data.u64 = TOK_SIGNAL;
	if (fcntl(lfd, F_SETFL, O_NONBLOCK) == 0 &&
	    epoll_ctl(f.epfd, EPOLL_CTL_ADD, f.sigfd, &evs[0]) == 0)
		fwd_listen(&f, true);
	if (!f.accepting) {
		/* Not ready after all: the proxy goes, the command never
		 * starts. */
		diag(2020, NULL, "the forwarder cannot wait for connections: "
		    "%s", strerror(errno));
		fwd_report(wfd, &r);
		fwd_stop(&f, np->dir, 71);
	}
	r.ok = 1;
	fwd_report(wfd, &r);

	for (;;) {
		n = epoll_wait(f.epfd, evs, (int)ARRAY_SIZE(evs), -1);
		if (n < 0 && errno != EINTR)
			fwd_stop(&f, np->dir, 71);
		for (i = 0; i < n; i++) {
			if (evs[i].data.u64 == TOK_LISTEN) {
				fwd_accept(&f);
				continue;
			}
			if (evs[i].data.u64 != TOK_SIGNAL) {
				fwd_event(&f, evs[i].data.u64, evs[i].events);
				continue;
			}
			while (read(f.sigfd, &si, sizeof(si)) ==
			    (ssize_t)sizeof(si)) {
				if (si.ssi_signo != SIGCHLD)
					fwd_stop(&f, np->dir, 0);
				if (fwd_reap(&f, 0)) {
					diag(2020, NULL, "the egress proxy "
					    "exited (status %d): the command's "
					    "connections fail from now on",
					    f.egress_status);
					fwd_stop(&f, np->dir, 71);
				}
			}
		}
		if (!f.accepting && f.nconns < FWD_MAX_CONNS)
			fwd_listen(&f, true);
	}
}

/* ---- magus-sandbox-exec ---------------------------------------------- */

static int
recv_report(int sock, struct ns_report *r, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr msg;
	struct cmsghdr *cm;
	ssize_t n;

	*fd = -1;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	n = RETRY_EINTR(recvmsg(sock, &msg, MSG_CMSG_CLOEXEC));
	if (n < 0)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type ==
	    SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(cm), sizeof(int));
	if (n != (ssize_t)sizeof(*r) || *fd < 0 || (msg.msg_flags &
	    (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static const char *
ns_text(const struct ns_report *r)
{
	return r->kind == NS_DIRECT ? "a new network namespace" :
	    "a new network namespace inside a user namespace";
}

/* The errnos of both attempts, for MGS2018 and MGS2019. */
static void
ns_failure(const struct ns_report *r, struct strbuf *sb)
{
	strbuf_addf(sb, "no network namespace can be made (unshare: %s; "
	    "through a user namespace: %s)", strerror(r->err_net),
	    strerror(r->err_user));
}

/* Best-effort without a namespace: say exactly what is left open. */
static void
warn_no_namespace(const struct netproxy *np)
{
	struct strbuf sb = STRBUF_INIT;

	ns_failure(&np->ns, &sb);
	if (np->p->handled_net & LANDLOCK_ACCESS_NET_CONNECT_TCP)
		strbuf_addf(&sb, ": the proxy variables point at the "
		    "forwarder on 127.0.0.1:%u and Landlock allows tcp "
		    "connect only to port %u, bind denied; not enforced: "
		    "tcp to port %u of any other address, udp (dns "
		    "included) and icmp to any address", np->ns.port,
		    np->ns.port, np->ns.port);
	else
		strbuf_addf(&sb, ": only the proxy variables point at the "
		    "forwarder on 127.0.0.1:%u; not enforced: direct tcp "
		    "(Landlock's tcp rule needs ABI 4), udp (dns included) "
		    "and icmp to any address", np->ns.port);
	diag(2018, "run where network namespaces can be made (as root, "
	    "or with unprivileged user namespaces enabled)", "%s", sb.buf);
	strbuf_release(&sb);
}

static int
hook_fail(struct netproxy *np, int code, const char *hint)
{
	np->fail_code = code;
	np->fail_hint = hint;
	errno = ECANCELED;
	return -1;
}

/* run_child's hook in magus-sandbox-exec, right after the fork. */
static int
proxy_parent(pid_t pid UNUSED, void *arg)
{
	struct netproxy *np = arg;
	struct strbuf why = STRBUF_INIT;
	int lfd, rp[2];
	ssize_t n;

	close(np->sock[1]);
	np->sock[1] = -1;
	/* The command's process said why it stopped, if it did. */
	if (recv_report(np->sock[0], &np->ns, &lfd) < 0)
		return hook_fail(np, -1, NULL);
	if (np->ns.kind == NS_NONE) {
		if (np->p->mode == SANDBOX_REQUIRED) {
			close(lfd);
			ns_failure(&np->ns, &np->fail);
			return hook_fail(np, 2019, "run as root or where "
			    "unprivileged user namespaces are enabled, or "
			    "use best-effort to accept the fallback");
		}
		warn_no_namespace(np);
	}
	/* Nothing started from here on holds a capability. */
	if (confine_privileges(&why) < 0) {
		close(lfd);
		strbuf_addf(&np->fail, "%s", why.buf);
		strbuf_release(&why);
		return hook_fail(np, 2015, NULL);
	}
	if (pipe2(rp, O_CLOEXEC) < 0) {
		close(lfd);
		strbuf_addf(&np->fail, "cannot make a pipe: %s",
		    strerror(errno));
		return hook_fail(np, 2015, NULL);
	}
	np->fwd = fork();
	if (np->fwd < 0) {
		close(lfd);
		close(rp[0]);
		close(rp[1]);
		strbuf_addf(&np->fail, "cannot start the forwarder: %s",
		    strerror(errno));
		return hook_fail(np, 2020, NULL);
	}
	if (np->fwd == 0) {
		close(rp[0]);
		forwarder(np, lfd, rp[1]);
	}
	close(rp[1]);
	close(lfd);
	n = RETRY_EINTR(read(rp[0], &np->fr, sizeof(np->fr)));
	close(rp[0]);
	if (n != (ssize_t)sizeof(np->fr) || !np->fr.ok) {
		if (n == (ssize_t)sizeof(np->fr) && np->fr.status)
			strbuf_addf(&np->fail, "the egress proxy '%s' exited "
			    "with status %d before it was ready",
			    np->egress_argv.v[0], np->fr.status);
		else
			strbuf_addf(&np->fail, "the forwarder and the egress "
			    "proxy '%s' did not become ready",
			    np->egress_argv.v[0]);
		return hook_fail(np, 2020, NULL);
	}
	verbose_msg("network proxy: %s with loopback only; forwarder pid "
	    "%d on 127.0.0.1:%u; egress proxy pid %d on '%s'",
	    np->ns.kind == NS_NONE ? "no network namespace" :
	    ns_text(&np->ns), (int)np->fwd, np->ns.port, (int)np->fr.egress,
	    np->sockpath);
	if (RETRY_EINTR(write(np->sock[0], "g", 1)) != 1) {
		strbuf_addf(&np->fail, "cannot start the command: %s",
		    strerror(errno));
		return hook_fail(np, 2015, NULL);
	}
	return 0;
}

/* Wait for the forwarder (which stops the proxy), killing it when it
 * takes too long. */
static void
stop_forwarder(struct netproxy *np)
{
	int pidfd, status;
	struct pollfd pfd;

	if (np->fwd <= 0)
		return;
	kill(np->fwd, SIGTERM);
	pidfd = (int)syscall(SYS_pidfd_open, np->fwd, 0);
	if (pidfd >= 0) {
		pfd.fd = pidfd;
		pfd.events = POLLIN;
		if (RETRY_EINTR(poll(&pfd, 1, 2 * STOP_TIMEOUT_MS + 1000)) <=
		    0)
			kill(np->fwd, SIGKILL);
		close(pidfd);
	}
	while (waitpid(np->fwd, &status, 0) < 0 && errno == EINTR)
		;
	np->fwd = -1;
}

static void
netproxy_release(struct netproxy *np)
{
	if (np->sock[0] >= 0)
		close(np->sock[0]);
	if (np->sock[1] >= 0)
		close(np->sock[1]);
	if (np->dir) {
		if (np->sockpath)
			(void)unlink(np->sockpath);
		if (rmdir(np->dir) < 0 && errno != ENOENT)
			warn_msg("cannot remove the egress proxy's directory "
			    "'%s': %s", np->dir, strerror(errno));
	}
	free(np->dir);
	free(np->sockpath);
	strvec_clear(&np->egress_argv);
	strbuf_release(&np->fail);
}

/* The proxy's command line, before the ready fd is known. */
static void
egress_command(struct netproxy *np, char *helper)
{
	struct policy *p = np->p;
	size_t i;

	strvec_push_nodup(&np->egress_argv, helper);
	strvec_pushf(&np->egress_argv, "--listen=unix:%s", np->sockpath);
	for (i = 0; i < p->egress.n; i++)
		strvec_pushf(&np->egress_argv, "--allow=%s", p->egress.v[i]);
	if (p->egress_log)
		strvec_pushf(&np->egress_argv, "--log=%s", p->egress_log);
}

int
netproxy_run(struct policy *p, int ruleset)
{
	struct netproxy np;
	struct run_opts opts = { proxy_child, &np, NULL, NULL, proxy_parent };
	struct sockaddr_un sun;
	char *helper = helper_path("egress");
	int status, err = 0, code;

	memset(&np, 0, sizeof(np));
	np.p = p;
	np.ruleset = ruleset;
	np.self = getpid();
	np.uid = geteuid();
	np.gid = getegid();
	np.sock[0] = np.sock[1] = -1;
	np.fwd = -1;
	strvec_init(&np.egress_argv);
	strbuf_init(&np.fail, 0);

	if (access(helper, X_OK) < 0) {
		diag(2020, "set MAGUS_EXEC_PATH to the directory of the magus "
		    "helpers", "cannot run the egress proxy '%s': %s; nothing "
		    "ran", helper, strerror(errno));
		free(helper);
		status = 71;
		goto out;
	}
	np.dir = private_dir_make("magus-egress");
	if (!np.dir) {
		diag(2015, NULL, "cannot make the egress proxy's directory: "
		    "%s; nothing ran", strerror(errno));
		free(helper);
		status = 71;
		goto out;
	}
	np.sockpath = xasprintf("%s/egress.sock", np.dir);
	if (strlen(np.sockpath) >= sizeof(sun.sun_path)) {
		diag(2015, "set TMPDIR to a shorter directory", "the egress "
		    "proxy's socket path '%s' is too long for a unix socket; "
		    "nothing ran", np.sockpath);
		free(helper);
		status = 71;
		goto out;
	}
	egress_command(&np, helper);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    np.sock) < 0) {
		diag(2015, NULL, "cannot make a socket pair: %s; nothing ran",
		    strerror(errno));
		status = 71;
		goto out;
	}

	opts.exec_errno = &err;
	status = run_child(p->exe, p->command, p->env.v, &opts);
	if (status < 0 && np.fail_code > 0) {
		code = np.fail_code;
		if (code == 2019)
			diag(2019, np.fail_hint, "network proxy is required "
			    "for '%s' and %s; nothing ran", p->root,
			    np.fail.buf);
		else
			diag(code, np.fail_hint, "%s; nothing ran",
			    np.fail.buf);
		status = mgs_lookup(code)->status;
	} else if (status < 0 && np.fail_code < 0) {
		/* The command's process said why (or died saying it). */
		status = 71;
	} else if (status < 0) {
		diag(2015, NULL, "cannot start '%s': %s", p->command[0],
		    strerror(errno));
		status = 71;
	} else if (err) {
		status = exec_failed(p, p->command[0], err);
	}
	if (ruleset >= 0)
		close(ruleset);
	stop_forwarder(&np);
out:
	netproxy_release(&np);
	return status;
}
