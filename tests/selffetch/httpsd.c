/*
 * httpsd: a small HTTPS (or HTTP) file server over OpenSSL for the
 * self-fetch tests.  It serves the files below --root, one connection at
 * a time, and answers particular paths as the tests ask:
 *
 *   httpsd --root DIR --port-file FILE [--cert PEM --key PEM] [--log FILE]
 *          [--rule PATH=ACTION]...
 *
 * ACTION is status:CODE (answer CODE with an empty body),
 * redirect:URL (302 to URL), truncate:N (announce the whole file, send N
 * bytes, close), close (close without answering), flaky:N (answer 503
 * the first N times, then serve the file).  Without --cert it speaks
 * plain HTTP.  With --proxy it is instead an HTTP CONNECT proxy that
 * tunnels to 127.0.0.1 only, logging "CONNECT HOST:PORT" (the test of
 * https_proxy).  It listens on 127.0.0.1 on a free port, written to
 * --port-file once it accepts connections; each request is logged as
 * "METHOD PATH STATUS" to --log.  SIGTERM stops it.
 */
#include "compat.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define MAX_RULES 32

struct rule {
	char path[512];
	char action[16];
	char arg[1024];
	long count;
};

static struct rule rules[MAX_RULES];
static int nrules;
static SSL_CTX *ctx;
static FILE *logfp;
static const char *root;

struct conn {
	int fd;
	SSL *ssl;
};

static void
die(const char *what)
{
	fprintf(stderr, "httpsd: %s: %s\n", what, strerror(errno));
	ERR_print_errors_fp(stderr);
	exit(1);
}

static int
conn_read(struct conn *c, char *buf, int n)
{
	return c->ssl ? SSL_read(c->ssl, buf, n) : (int)read(c->fd, buf,
	    (size_t)n);
}

static int
conn_write(struct conn *c, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		int w = c->ssl ? SSL_write(c->ssl, p, (int)(n > 65536 ? 65536 :
		    n)) : (int)write(c->fd, p, n > 65536 ? 65536 : n);

		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
respond(struct conn *c, int status, const char *reason, const char *extra,
    unsigned long long length)
{
	char head[2048];
	int n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\n"
	    "Content-Length: %llu\r\nConnection: close\r\n%s\r\n", status,
	    reason, length, extra ? extra : "");

	conn_write(c, head, (size_t)n);
}

static void
serve_file(struct conn *c, const char *path, long limit, int *status)
{
	char full[4096], buf[65536];
	unsigned long long sent = 0;
	struct stat st;
	ssize_t n;
	int fd;

	if (strstr(path, "..") || snprintf(full, sizeof(full), "%s%s", root,
	    path) >= (int)sizeof(full) ||
	    (fd = open(full, O_RDONLY | O_CLOEXEC)) < 0) {
		*status = 404;
		respond(c, 404, "Not Found", NULL, 0);
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*status = 404;
		respond(c, 404, "Not Found", NULL, 0);
		return;
	}
	*status = 200;
	respond(c, 200, "OK", "Content-Type: application/octet-stream\r\n",
	    (unsigned long long)st.st_size);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		size_t k = (size_t)n;

		if (limit >= 0 && sent + k > (unsigned long long)limit)
			k = (size_t)((unsigned long long)limit - sent);
		if (k && conn_write(c, buf, k) < 0)
			break;
		sent += k;
		if (limit >= 0 && sent >= (unsigned long long)limit) {
			*status = -200; /* cut short on purpose */
			break;
		}
	}
	close(fd);
}

static void
handle(int fd)
{
	struct conn c = { fd, NULL };
	char req[8192], method[16], path[2048], *q;
	int len = 0, n, status = 0, i;
	bool cut = false;

	if (ctx) {
		c.ssl = SSL_new(ctx);
		if (!c.ssl || SSL_set_fd(c.ssl, fd) != 1 ||
		    SSL_accept(c.ssl) != 1) {
			if (logfp)
				fprintf(logfp, "TLS handshake failed\n");
			goto out;
		}
	}
	while (len < (int)sizeof(req) - 1) {
		n = conn_read(&c, req + len, (int)sizeof(req) - 1 - len);
		if (n <= 0)
			goto out;
		len += n;
		req[len] = '\0';
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	if (sscanf(req, "%15s %2047s", method, path) != 2)
		goto out;
	if ((q = strpbrk(path, "?#")))
		*q = '\0';
	for (i = 0; i < nrules; i++) {
		struct rule *r = &rules[i];

		if (strcmp(r->path, path))
			continue;
		r->count++;
		if (!strcmp(r->action, "status")) {
			status = atoi(r->arg);
			respond(&c, status, "Refused", NULL, 0);
		} else if (!strcmp(r->action, "redirect")) {
			char loc[1100];

			snprintf(loc, sizeof(loc), "Location: %s\r\n", r->arg);
			status = 302;
			respond(&c, 302, "Found", loc, 0);
		} else if (!strcmp(r->action, "truncate")) {
			serve_file(&c, path, atol(r->arg), &status);
			cut = status == -200;
		} else if (!strcmp(r->action, "close")) {
			status = -1;
			cut = true;
		} else if (!strcmp(r->action, "flaky")) {
			if (r->count <= atol(r->arg)) {
				status = 503;
				respond(&c, 503, "Unavailable", NULL, 0);
			} else {
				serve_file(&c, path, -1, &status);
			}
		}
		goto logged;
	}
	serve_file(&c, path, -1, &status);
logged:
	if (logfp)
		fprintf(logfp, "%s %s %d\n", method, path, status);
out:
	if (c.ssl) {
		if (!cut)
			SSL_shutdown(c.ssl);
		SSL_free(c.ssl);
	}
	close(fd);
}

/* Copy both ways between a and b until either side closes. */
static void
splice_both(int a, int b)
{
	struct pollfd p[2] = { { a, POLLIN, 0 }, { b, POLLIN, 0 } };
	char buf[65536];

	for (;;) {
		int i;

		if (poll(p, 2, 10000) <= 0)
			return;
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0 || write(p[1 - i].fd, buf, (size_t)n) != n)
				return;
		}
	}
}

static void
proxy(int fd)
{
	char req[4096], host[256];
	struct sockaddr_in a;
	int len = 0, n, port, up;

	while (len < (int)sizeof(req) - 1) {
		n = (int)read(fd, req + len, sizeof(req) - 1 - (size_t)len);
		if (n <= 0)
			return;
		len += n;
		req[len] = '\0';
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	if (sscanf(req, "CONNECT %255[^:]:%d ", host, &port) != 2)
		return;
	if (logfp)
		fprintf(logfp, "CONNECT %s:%d\n", host, port);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	up = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (up < 0 || strcmp(host, "127.0.0.1") ||
	    connect(up, (struct sockaddr *)&a, sizeof(a)) < 0) {
		const char no[] = "HTTP/1.1 502 Bad Gateway\r\n\r\n";

		if (write(fd, no, sizeof(no) - 1) < 0)
			return;
	} else {
		const char yes[] = "HTTP/1.1 200 Connection established\r\n\r\n";

		if (write(fd, yes, sizeof(yes) - 1) == sizeof(yes) - 1)
			splice_both(fd, up);
	}
	if (up >= 0)
		close(up);
}

int
main(int argc, char **argv)
{
	const char *cert = NULL, *key = NULL, *portfile = NULL, *logpath = NULL;
	bool is_proxy = false;
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	char tmp[4096];
	FILE *pf;
	int s, i, one = 1;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_IGN); /* tunnels are reaped by the kernel */
	for (i = 1; i < argc && !strcmp(argv[i], "--proxy"); i++)
		is_proxy = true;
	for (; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--cert"))
			cert = argv[i + 1];
		else if (!strcmp(argv[i], "--key"))
			key = argv[i + 1];
		else if (!strcmp(argv[i], "--root"))
			root = argv[i + 1];
		else if (!strcmp(argv[i], "--port-file"))
			portfile = argv[i + 1];
		else if (!strcmp(argv[i], "--log"))
			logpath = argv[i + 1];
		else if (!strcmp(argv[i], "--rule") && nrules < MAX_RULES) {
			struct rule *r = &rules[nrules++];
			const char *eq = strchr(argv[i + 1], '=');
			const char *colon = eq ? strchr(eq, ':') : NULL;

			if (!eq || eq - argv[i + 1] >= (long)sizeof(r->path))
				break;
			snprintf(r->path, sizeof(r->path), "%.*s",
			    (int)(eq - argv[i + 1]), argv[i + 1]);
			snprintf(r->action, sizeof(r->action), "%.*s",
			    colon ? (int)(colon - eq - 1) : (int)strlen(eq + 1),
			    eq + 1);
			snprintf(r->arg, sizeof(r->arg), "%s",
			    colon ? colon + 1 : "");
		} else
			break;
	}
	if (i != argc || (!root && !is_proxy) || !portfile ||
	    (!cert) != (!key)) {
		fprintf(stderr, "usage: httpsd --root DIR --port-file FILE "
		    "[--cert PEM --key PEM] [--log FILE] [--rule PATH=ACTION]...\n"
		    "       httpsd --proxy --port-file FILE [--log FILE]\n");
		return 2;
	}
	if (cert) {
		ctx = SSL_CTX_new(TLS_server_method());
		if (!ctx || SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
		    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1)
			die("cannot load the certificate");
	}
	if (logpath && !(logfp = fopen(logpath, "ae")))
		die(logpath);
	if (logfp)
		setvbuf(logfp, NULL, _IOLBF, 0);

	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die("socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 64) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) < 0)
		die("listen");
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	if (!(pf = fopen(tmp, "we")) || fprintf(pf, "%d\n",
	    ntohs(a.sin_port)) < 0 || fclose(pf) != 0 || rename(tmp, portfile))
		die(portfile);

	for (;;) {
		struct timeval tv = { 10, 0 };
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (!is_proxy) {
			handle(c);
			continue;
		}
		/* A tunnel lasts as long as its client: one process each. */
		if (fork() == 0) {
			close(s);
			proxy(c);
			_exit(0);
		}
		close(c);
	}
}
