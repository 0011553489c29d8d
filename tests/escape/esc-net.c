/*
 * esc-net: TCP from inside the sandbox.
 *
 *	esc-net tcp-connect ADDR PORT	connect(2) to ADDR:PORT
 *	esc-net tcp-bind ADDR PORT	bind(2) to ADDR:PORT
 *	esc-net tcp-serve ADDR PORTFILE LOG
 *		listen on ADDR, a port of the kernel's choosing; write the
 *		port to PORTFILE once listening; append a line to LOG for
 *		each connection; exits by itself after two minutes
 *
 * ADDR is numeric, IPv4 or IPv6.  What the attacks print and how they
 * exit: see escape.h.
 */
#include "compat.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "escape.h"

static const char prog[] = "esc-net";

static socklen_t
parse_addr(struct sockaddr_storage *ss, const char *addr, long port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (port < 0 || port > 65535) {
		fprintf(stderr, "%s: bad port\n", prog);
		exit(2);
	}
	if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		return sizeof(*in);
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		return sizeof(*in6);
	}
	fprintf(stderr, "%s: not a numeric address: '%s'\n", prog, addr);
	exit(2);
}

static long
tcp(const char *op, const char *addr, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(&ss, addr, esc_number(prog, port));
	long rc;
	int fd, e;

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		esc_setup_error(prog, "socket");
	if (!strcmp(op, "tcp-connect"))
		rc = connect(fd, (struct sockaddr *)&ss, len);
	else
		rc = bind(fd, (struct sockaddr *)&ss, len);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

NORETURN static void
serve(const char *addr, const char *portfile, const char *log)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(&ss, addr, 0);
	char tmp[4096], line[16];
	int fd, c, port;
	FILE *f;

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(fd, 8) < 0 || getsockname(fd, (struct sockaddr *)&ss,
	    &len) < 0)
		esc_setup_error(prog, "listen");
	port = ntohs(ss.ss_family == AF_INET ?
	    ((struct sockaddr_in *)&ss)->sin_port :
	    ((struct sockaddr_in6 *)&ss)->sin6_port);
	/* Written whole, then renamed: a reader never sees half a port. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	f = fopen(tmp, "we");
	if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 ||
	    rename(tmp, portfile) < 0)
		esc_setup_error(prog, portfile);
	alarm(120);
	for (;;) {
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		close(c);
		c = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		snprintf(line, sizeof(line), "connection\n");
		if (c < 0 || write(c, line, strlen(line)) < 0)
			esc_setup_error(prog, log);
		close(c);
	}
}

int
main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	if ((!strcmp(op, "tcp-connect") || !strcmp(op, "tcp-bind")) &&
	    argc == 4)
		return verdict(tcp(op, argv[2], argv[3]));
	if (!strcmp(op, "tcp-serve") && argc == 5)
		serve(argv[2], argv[3], argv[4]);
	esc_usage(prog, "tcp-connect ADDR PORT | tcp-bind ADDR PORT | "
	    "tcp-serve ADDR PORTFILE LOG");
	return 2;
}
