/*
 * egress-client: a minimal HTTP client for magus-egress's tests and its
 * benchmark, where curl's own start-up would hide what is measured.
 *
 *	egress-client [-n COUNT] SERVER MODE TARGET PATH
 *
 * SERVER is ADDRESS:PORT ([v6]:PORT) or unix:PATH, the socket connected
 * to.  MODE says what is sent there:
 *
 *	direct	 GET PATH, SERVER being the origin itself
 *	connect	 CONNECT TARGET, then GET PATH through the tunnel
 *	forward	 GET http://TARGET/PATH
 *
 * With one round (the default) the response, head and body, goes to
 * stdout; the exit status is 0 when the origin's answer was 2xx.  With
 * -n COUNT it makes COUNT connections one after another and prints the
 * median and the 10th and 90th percentiles of the time each took, from
 * connect() to the end of the response, in microseconds.
 */
#include "compat.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "strbuf.h"

static struct sockaddr_storage server;
static socklen_t server_len;

static int
parse_server(const char *s)
{
	memset(&server, 0, sizeof(server));
	if (!strncmp(s, "unix:", 5)) {
		struct sockaddr_un *sun = (void *)&server;

		if (strlen(s + 5) >= sizeof(sun->sun_path))
			return -1;
		sun->sun_family = AF_UNIX;
		memcpy(sun->sun_path, s + 5, strlen(s + 5) + 1);
		server_len = sizeof(*sun);
		return 0;
	}
	{
		char host[64];
		const char *colon = strrchr(s, ':');
		size_t hn = colon ? (size_t)(colon - s) : 0;
		unsigned port;

		if (!colon || hn >= sizeof(host))
			return -1;
		memcpy(host, s, hn);
		host[hn] = '\0';
		port = (unsigned)atoi(colon + 1);
		if (host[0] == '[') {
			struct sockaddr_in6 *s6 = (void *)&server;

			host[hn - 1] = '\0';
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((uint16_t)port);
			server_len = sizeof(*s6);
			return inet_pton(AF_INET6, host + 1, &s6->sin6_addr) == 1 ?
			    0 : -1;
		} else {
			struct sockaddr_in *s4 = (void *)&server;

			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t)port);
			server_len = sizeof(*s4);
			return inet_pton(AF_INET, host, &s4->sin_addr) == 1 ?
			    0 : -1;
		}
	}
}

static int
send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read the CONNECT answer's head, byte by byte so nothing after it is
 * taken from the tunnel; 0 when it is a 200. */
static int
read_connect_answer(int fd, struct strbuf *out)
{
	char c;

	while (!strstr(out->buf, "\r\n\r\n")) {
		ssize_t n = recv(fd, &c, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		strbuf_addch(out, c);
	}
	return strncmp(out->buf + 8, " 200", 4) ? -1 : 0;
}

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* One round; the whole response in out.  0 on a 2xx answer. */
static int
round_trip(const char *mode, const char *target, const char *path,
    struct strbuf *out)
{
	struct strbuf req = STRBUF_INIT;
	char buf[65536];
	int fd, one = 1, rc = -1;

	fd = socket(server.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&server, server_len) < 0) {
		perror("egress-client: connect");
		goto out;
	}
	if (server.ss_family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!strcmp(mode, "connect")) {
		strbuf_addf(&req, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
		    target, target);
		if (send_all(fd, req.buf, req.len) < 0 ||
		    read_connect_answer(fd, out) < 0)
			goto out;
		strbuf_reset(&req);
	}
	if (!strcmp(mode, "forward"))
		strbuf_addf(&req, "GET http://%s%s HTTP/1.1\r\n", target, path);
	else
		strbuf_addf(&req, "GET %s HTTP/1.1\r\n", path);
	strbuf_addf(&req, "Host: %s\r\nConnection: close\r\n\r\n", target);
	if (send_all(fd, req.buf, req.len) < 0)
		goto out;
	strbuf_reset(out);
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (!n)
			break;
		strbuf_add(out, buf, (size_t)n);
	}
	rc = out->len > 12 && !strncmp(out->buf, "HTTP/1.", 7) &&
	    out->buf[9] == '2' ? 0 : -1;
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&req);
	return rc;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT;
	long count = 1, i;
	uint64_t *t;
	int rc;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		count = atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 5 || count < 1 || parse_server(argv[1]) < 0 ||
	    (strcmp(argv[2], "direct") && strcmp(argv[2], "connect") &&
	    strcmp(argv[2], "forward"))) {
		fputs("usage: egress-client [-n COUNT] SERVER "
		    "direct|connect|forward TARGET PATH\n", stderr);
		return 2;
	}
	if (count == 1) {
		rc = round_trip(argv[2], argv[3], argv[4], &out);
		fwrite(out.buf, 1, out.len, stdout);
		strbuf_release(&out);
		return rc ? 1 : 0;
	}
	t = calloc((size_t)count, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < count; i++) {
		uint64_t start = now_us();

		if (round_trip(argv[2], argv[3], argv[4], &out)) {
			fprintf(stderr, "egress-client: round %ld failed\n", i);
			return 1;
		}
		t[i] = now_us() - start;
	}
	qsort(t, (size_t)count, sizeof(*t), cmp_u64);
	printf("median_us=%llu p10_us=%llu p90_us=%llu\n",
	    (unsigned long long)t[count / 2],
	    (unsigned long long)t[count / 10],
	    (unsigned long long)t[count * 9 / 10]);
	free(t);
	strbuf_release(&out);
	return 0;
}
