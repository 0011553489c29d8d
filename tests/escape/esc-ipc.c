/*
 * esc-ipc: reaching processes outside the sandbox.
 *
 *	esc-ipc kill PID SIGNAL		kill(2) with a signal number
 *	esc-ipc ptrace PID		PTRACE_ATTACH, then detach
 *	esc-ipc unix-connect NAME	connect a stream socket to the abstract
 *					address NAME
 *	esc-ipc unix-send NAME		send one datagram to abstract NAME
 *	esc-ipc tiocsti FD TEXT		push TEXT into the input of the terminal
 *					open on FD, as if typed (TIOCSTI)
 *	esc-ipc ctty-tiocsti DEV VIA TEXT
 *		in a session of its own, open the terminal device DEV (which
 *		makes it the controlling terminal when no one controls it;
 *		DEV all digits: the terminal already open on that
 *		descriptor), claim it with TIOCSCTTY, then push TEXT through
 *		DEV, or through /dev/tty when VIA is "tty"
 *	esc-ipc pty-hold DIR	open a pseudo-terminal nobody controls, write
 *		its device's path to DIR/slave, then hold it (two minutes
 *		at most)
 *	esc-ipc unix-serve stream|dgram NAME READY LOG
 *		serve abstract NAME; create READY once bound; append a
 *		line to LOG for each connection or datagram; exits by
 *		itself after two minutes in case nobody stops it
 *
 * What the attacks print and how they exit: see escape.h.
 */
#include "compat.h"

#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"

static const char prog[] = "esc-ipc";

static socklen_t
abstract_addr(struct sockaddr_un *sun, const char *name)
{
	size_t len = strlen(name);

	if (len + 1 > sizeof(sun->sun_path)) {
		fprintf(stderr, "%s: name too long\n", prog);
		exit(2);
	}
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path + 1, name, len);	/* sun_path[0] stays 0 */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

static long
attach(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0)
		return -1;
	/* Attached: the attack worked; let the process go again. */
	waitpid(pid, &status, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return 0;
}

/* What a process that can type into its terminal makes the shell run
 * once it exits. */
static long
push_input(int fd, const char *text)
{
	const char *c;

	for (c = text; *c; c++)
		if (ioctl(fd, TIOCSTI, c) < 0)
			return -1;
	return 0;
}

static void log_line(const char *log, const char *line);

/* A terminal of its own: the way a command without one could come by
 * one, given a terminal device it can open. */
static long
claim_and_push(const char *dev, const char *via, const char *text)
{
	pid_t pid;
	int fd, status;

	if (setsid() < 0) {
		/* A process group leader cannot start a session: a child
		 * can. */
		pid = fork();
		if (pid < 0)
			esc_setup_error(prog, "fork");
		if (pid > 0) {
			if (waitpid(pid, &status, 0) != pid)
				esc_setup_error(prog, "waitpid");
			exit(WIFEXITED(status) ? WEXITSTATUS(status) : 2);
		}
		if (setsid() < 0)
			esc_setup_error(prog, "setsid");
	}
	if (dev[0] >= '0' && dev[0] <= '9')
		fd = (int)esc_number(prog, dev);
	else
		fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* The open made it ours where it could; TIOCSCTTY is the explicit
	 * way, and its refusal alone is not the end of the attack. */
	(void)ioctl(fd, TIOCSCTTY, 0);
	if (!strcmp(via, "tty")) {
		close(fd);
		fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	return push_input(fd, text);
}

NORETURN static void
pty_hold(const char *dir)
{
	char tmp[4096], path[4096];
	const char *slave;
	int m;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
	    !(slave = ptsname(m)))
		esc_setup_error(prog, "posix_openpt");
	/* Written whole, then renamed: a waiter never reads half a path. */
	snprintf(tmp, sizeof(tmp), "%s/slave.new", dir);
	snprintf(path, sizeof(path), "%s/slave", dir);
	log_line(tmp, slave);
	if (rename(tmp, path) < 0)
		esc_setup_error(prog, path);
	alarm(120);
	for (;;)
		pause();
}

static long
unix_client(const char *name, int type)
{
	static const char msg[] = "escaped";
	struct sockaddr_un sun;
	socklen_t len = abstract_addr(&sun, name);
	long rc;
	int fd, e;

	fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		esc_setup_error(prog, "socket");
	if (type == SOCK_STREAM)
		rc = connect(fd, (struct sockaddr *)&sun, len);
	else
		rc = sendto(fd, msg, sizeof(msg) - 1, 0,
		    (struct sockaddr *)&sun, len);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

static void
log_line(const char *log, const char *line)
{
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		esc_setup_error(prog, log);
	close(fd);
}

NORETURN static void
unix_serve(const char *kind, const char *name, const char *ready,
    const char *log)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_addr(&sun, name);
	int type = !strcmp(kind, "dgram") ? SOCK_DGRAM : SOCK_STREAM;
	char buf[64];
	int fd, c;

	fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len) < 0)
		esc_setup_error(prog, "bind");
	if (type == SOCK_STREAM && listen(fd, 8) < 0)
		esc_setup_error(prog, "listen");
	c = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (c < 0)
		esc_setup_error(prog, ready);
	close(c);
	alarm(120);
	for (;;) {
		if (type == SOCK_DGRAM) {
			if (recv(fd, buf, sizeof(buf), 0) >= 0)
				log_line(log, "datagram\n");
			continue;
		}
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0) {
			log_line(log, "connection\n");
			close(c);
		}
	}
}

int
main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	if (!strcmp(op, "kill") && argc == 4)
		return verdict(kill((pid_t)esc_number(prog, argv[2]),
		    (int)esc_number(prog, argv[3])));
	if (!strcmp(op, "ptrace") && argc == 3)
		return verdict(attach((pid_t)esc_number(prog, argv[2])));
	if (!strcmp(op, "tiocsti") && argc == 4)
		return verdict(push_input((int)esc_number(prog, argv[2]),
		    argv[3]));
	if (!strcmp(op, "ctty-tiocsti") && argc == 5)
		return verdict(claim_and_push(argv[2], argv[3], argv[4]));
	if (!strcmp(op, "pty-hold") && argc == 3)
		pty_hold(argv[2]);
	if (!strcmp(op, "unix-connect") && argc == 3)
		return verdict(unix_client(argv[2], SOCK_STREAM));
	if (!strcmp(op, "unix-send") && argc == 3)
		return verdict(unix_client(argv[2], SOCK_DGRAM));
	if (!strcmp(op, "unix-serve") && argc == 6)
		unix_serve(argv[2], argv[3], argv[4], argv[5]);
	esc_usage(prog, "kill PID SIG | ptrace PID | unix-connect NAME | "
	    "unix-send NAME | tiocsti FD TEXT | ctty-tiocsti DEV path|tty "
	    "TEXT | pty-hold DIR | "
	    "unix-serve stream|dgram NAME READY LOG");
	return 2;
}
