/*
 * egress-origin: a small HTTP/1.1 origin server for magus-egress's tests
 * and benchmark.  Real sockets, real parsing, one request per connection.
 *
 *	egress-origin ADDRESS:PORT [WORKERS]
 *	egress-origin udp:ADDRESS:PORT
 *
 * The second form binds a UDP socket and never reads it: a name server
 * that does not answer.
 *
 * Listens (PORT 0 picks one), prints the port on stdout, then serves with
 * WORKERS (default 4) processes accepting on the one socket.  The
 * workers die with the first process (PR_SET_PDEATHSIG), so a test stops
 * the server by the pid it started.
 *
 *	GET /hello	"hello\n"
 *	ANY /echo	the request head as received, a line "--", the body
 *			(chunked bodies decoded)
 *	GET /zero/N	N zero bytes
 *	GET /silent	reads the request, answers nothing, waits for EOF
 *	GET /cut/N	promises 2N bytes, sends N, and closes
 *	ANY /early	answers "early\n" without reading the request body
 */
#include "compat.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strbuf.h"

static char zeros[256 * 1024];

static int
write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read until the head is complete; the head's end offset, 0 on EOF. */
static size_t
read_head(int fd, struct strbuf *in)
{
	char buf[4096];
	char *end;

	for (;;) {
		ssize_t n;

		if ((end = strstr(in->buf, "\r\n\r\n")) != NULL)
			return (size_t)(end - in->buf) + 4;
		if (in->len > 65536)
			return 0;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		strbuf_add(in, buf, (size_t)n);
	}
}

/* Make sure in holds at least want bytes past pos. */
static int
need(int fd, struct strbuf *in, size_t pos, size_t want)
{
	char buf[65536];

	while (in->len < pos + want) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		strbuf_add(in, buf, (size_t)n);
	}
	return 0;
}

static const char *
header(const char *head, const char *name)
{
	const char *p = head;
	size_t nl = strlen(name);

	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (!strncasecmp(p, name, nl) && p[nl] == ':') {
			p += nl + 1;
			while (*p == ' ')
				p++;
			return p;
		}
	}
	return NULL;
}

/* The body after the head into body; -1 when it cannot be read. */
static int
read_body(int fd, struct strbuf *in, size_t pos, struct strbuf *body)
{
	const char *te = header(in->buf, "Transfer-Encoding");
	const char *cl = header(in->buf, "Content-Length");

	if (te && !strncasecmp(te, "chunked", 7)) {
		for (;;) {
			char *eol;
			unsigned long size;

			while (!(eol = strstr(in->buf + pos, "\r\n")))
				if (need(fd, in, pos, in->len - pos + 1) < 0)
					return -1;
			size = strtoul(in->buf + pos, NULL, 16);
			pos = (size_t)(eol - in->buf) + 2;
			if (!size)
				return 0;	/* trailers are not read */
			if (need(fd, in, pos, size + 2) < 0)
				return -1;
			strbuf_add(body, in->buf + pos, size);
			pos += size + 2;
		}
	}
	if (cl) {
		size_t n = strtoul(cl, NULL, 10);

		if (need(fd, in, pos, n) < 0)
			return -1;
		strbuf_add(body, in->buf + pos, n);
	}
	return 0;
}

static void
answer(int fd, int status, const char *type, const void *body, size_t n)
{
	char head[256];

	snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n", status,
	    status == 200 ? "OK" : "Not Found", type, n);
	if (write_all(fd, head, strlen(head)) == 0)
		(void)write_all(fd, body, n);
}

static void
serve(int fd)
{
	struct strbuf in = STRBUF_INIT, body = STRBUF_INIT;
	char method[16], path[256];
	size_t end = read_head(fd, &in);
	const char *expect;

	if (!end || sscanf(in.buf, "%15s %255s", method, path) != 2)
		goto out;
	path[strcspn(path, "?")] = '\0';
	expect = header(in.buf, "Expect");
	if (expect && !strncasecmp(expect, "100-continue", 12) &&
	    write_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0)
		goto out;
	if (!strcmp(path, "/early")) {
		answer(fd, 200, "text/plain", "early\n", 6);
		goto out;
	}
	if (read_body(fd, &in, end, &body) < 0)
		goto out;
	if (!strcmp(path, "/hello")) {
		answer(fd, 200, "text/plain", "hello\n", 6);
	} else if (!strcmp(path, "/echo")) {
		struct strbuf out = STRBUF_INIT;

		strbuf_add(&out, in.buf, end);
		strbuf_addstr(&out, "--\n");
		strbuf_add(&out, body.buf, body.len);
		answer(fd, 200, "text/plain", out.buf, out.len);
		strbuf_release(&out);
	} else if (!strncmp(path, "/zero/", 6) || !strncmp(path, "/cut/", 5)) {
		bool cut = path[1] == 'c';
		unsigned long long n = strtoull(path + (cut ? 5 : 6), NULL, 10);
		char head[160];

		snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\n"
		    "Content-Type: application/octet-stream\r\n"
		    "Content-Length: %llu\r\nConnection: close\r\n\r\n",
		    cut ? 2 * n : n);
		if (write_all(fd, head, strlen(head)) < 0)
			goto out;
		while (n) {
			size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

			if (write_all(fd, zeros, k) < 0)
				goto out;
			n -= k;
		}
	} else if (!strcmp(path, "/silent")) {
		char b[256];

		while (recv(fd, b, sizeof(b), 0) > 0)
			;
	} else {
		answer(fd, 404, "text/plain", "not found\n", 10);
	}
out:
	/* Half-close and drain, so the client reads all before EOF. */
	shutdown(fd, SHUT_WR);
	{
		char b[256];
		struct timeval tv = { 2, 0 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while (recv(fd, b, sizeof(b), 0) > 0)
			;
	}
	close(fd);
	strbuf_release(&in);
	strbuf_release(&body);
}

int
main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char host[64];
	const char *colon;
	int lfd, one = 1, workers = 4, i;
	bool udp = false;
	pid_t parent = getpid();
	unsigned port;

	if (argc < 2 || argc > 3) {
		fputs("usage: egress-origin ADDRESS:PORT [WORKERS]\n", stderr);
		return 2;
	}
	if (argc == 3)
		workers = atoi(argv[2]);
	if (!strncmp(argv[1], "udp:", 4)) {
		udp = true;
		argv[1] += 4;
	}
	colon = strrchr(argv[1], ':');
	if (!colon || (size_t)(colon - argv[1]) >= sizeof(host))
		return 2;
	memcpy(host, argv[1], (size_t)(colon - argv[1]));
	host[colon - argv[1]] = '\0';
	port = (unsigned)atoi(colon + 1);
	memset(&ss, 0, sizeof(ss));
	if (host[0] == '[') {
		struct sockaddr_in6 *s6 = (void *)&ss;

		host[strlen(host) - 1] = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1)
			return 2;
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return 2;
		sl = sizeof(*s4);
	}
	lfd = socket(ss.ss_family, (udp ? SOCK_DGRAM : SOCK_STREAM) |
	    SOCK_CLOEXEC, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&ss, sl) < 0 ||
	    (!udp && listen(lfd, 512) < 0) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &sl) < 0) {
		perror("egress-origin");
		return 1;
	}
	printf("%u\n", ntohs(((struct sockaddr_in *)&ss)->sin_port));
	fflush(stdout);
	if (udp)
		for (;;)
			pause();
	for (i = 0; i < workers; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("egress-origin: fork");
			return 1;
		}
		if (pid)
			continue;
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
		    getppid() != parent)
			_exit(0);
		for (;;) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd < 0)
				continue;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
			    sizeof(one));
			serve(fd);
		}
	}
	for (;;)
		pause();
}
