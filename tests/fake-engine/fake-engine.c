/*
 * fake-engine: a scriptable Docker Engine API server on a unix socket,
 * for the tests of lib/engine.  It produces on demand what a real engine
 * cannot be made to: attach frames split at every byte, an error after
 * the hijack, a 409 on kill, a connection dropped mid-stream, a pull
 * that fails inside its 200 stream, an old API version, a wait that
 * never answers; and it records every request byte for byte.
 *
 *	fake-engine --socket PATH --dir DIR [--scenario FILE]
 *	    [--api VERSION] [--min-api VERSION]
 *
 * DIR receives, per request N (0001, 0002, ...): req/N.head (request
 * line and headers as received), req/N.body (the body), req/N.stdin
 * (what an "echo" attach read), and a line "N METHOD TARGET" appended to
 * requests.log.  DIR/ready appears once the socket listens.
 *
 * The scenario is one rule per line ('#' starts a comment):
 *
 *	METHOD PATH-GLOB STATUS [OPTION]... [body=TEXT]
 *
 * The first rule whose method and glob (fnmatch, '*' crosses '/') match
 * the request path (without the query) answers it.  After the rules come
 * built-in answers for GET /_ping and GET /version (from --api and
 * --min-api), then a 404 naming the unmatched request.  Options:
 *
 *	body=TEXT	the rest of the line; \n \r \t \\ \0 \xHH escapes
 *			(a JSON escape is written \\n, \\")
 *	file=PATH	the body from a file
 *	query=GLOB	also match the query string
 *	type=TYPE	Content-Type (default application/json)
 *	header=N:V	an extra header (repeatable)
 *	chunked		Transfer-Encoding: chunked, a chunk per piece
 *	chunk=N		write the body N bytes at a time ...
 *	gap=MS		... pausing MS between pieces
 *	split		write the head and the body separately (by default
 *			one write carries both, as engines often do)
 *	delay=MS	pause between the head and the body
 *	mark=NAME	record that this rule was served (DIR/mark/NAME)
 *	await=NAME	send the body only once NAME has been marked
 *	hijack		answer "101 UPGRADED", stream the body raw, then
 *			close (an attach with Upgrade: tcp)
 *	raw		answer 200 with no length and stream the body raw,
 *			then close (an attach without Upgrade)
 *	echo		after the body, send back each piece the client
 *			writes as a stdout frame until it half-closes
 *	hang		after the head (and any body), send nothing more,
 *			and keep the connection until the client closes it
 *	drop=N		close the connection after N body bytes
 *	close		close the connection after the answer
 *	noapi		leave out the Api-Version header
 *	bare		send the body alone, no status line, no headers
 *	times=N		serve N requests, then let later rules match
 *
 * Each connection is served by a child process; SIGTERM stops the
 * server and its children and removes the socket.  A frame for a body
 * file is made with "fake-engine frame STREAM < payload".
 */
#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "proc.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "xalloc.h"

struct rule {
	char method[16];
	char *path;
	char *query;
	int status;
	const char *type;
	struct strbuf body;
	struct strvec headers;
	bool chunked, hijack, raw, echo, hang, split, close, noapi, bare;
	long chunk, gap, delay, drop, times;
	char *mark, *await;
	int index;
};

static struct rule *rules;
static size_t nrules, rules_alloc;
static const char *dir;
static const char *api = "1.41";
static const char *min_api = "1.24";

static void NORETURN
usage(int status)
{
	fputs("usage: fake-engine --socket PATH --dir DIR [--scenario FILE] "
	    "[--api VERSION] [--min-api VERSION]\n"
	    "       fake-engine frame STREAM < PAYLOAD > FRAME\n",
	    status ? stderr : stdout);
	exit(status);
}

/* ---- the scenario ------------------------------------------------------ */

static void
unescape(struct strbuf *out, const char *s)
{
	unsigned v;

	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			strbuf_addch(out, *s);
			continue;
		}
		switch (*++s) {
		case 'n':
			strbuf_addch(out, '\n');
			break;
		case 'r':
			strbuf_addch(out, '\r');
			break;
		case 't':
			strbuf_addch(out, '\t');
			break;
		case '0':
			strbuf_addch(out, '\0');
			break;
		case 'x':
			if (sscanf(s + 1, "%2x", &v) == 1 &&
			    isxdigit((unsigned char)s[1]) &&
			    isxdigit((unsigned char)s[2])) {
				strbuf_addch(out, (int)v);
				s += 2;
			} else {
				strbuf_addstr(out, "\\x");
			}
			break;
		default:
			strbuf_addch(out, *s);
			break;
		}
	}
}

static long
num_opt(const char *v, const char *line)
{
	long n;

	if (!parse_long(v, 0, 100000000, &n))
		die_status(2, "bad number '%s' in rule: %s", v, line);
	return n;
}

static void
add_rule(char *line, int lineno)
{
	struct rule *r;
	char *save = NULL, *tok, *body;
	long status;

	body = strstr(line, " body=");
	if (body)
		*body = '\0';
	ALLOC_GROW(rules, nrules + 1, rules_alloc);
	r = &rules[nrules];
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->body, 0);
	strvec_init(&r->headers);
	r->drop = -1;
	r->index = (int)nrules;
	if (body)
		unescape(&r->body, body + strlen(" body="));

	tok = strtok_r(line, " \t", &save);
	if (!tok || strlen(tok) >= sizeof(r->method))
		die_status(2, "line %d: no method", lineno);
	snprintf(r->method, sizeof(r->method), "%s", tok);
	tok = strtok_r(NULL, " \t", &save);
	if (!tok)
		die_status(2, "line %d: no path", lineno);
	r->path = xstrdup(tok);
	tok = strtok_r(NULL, " \t", &save);
	if (!tok || !parse_long(tok, 100, 599, &status))
		die_status(2, "line %d: no status", lineno);
	r->status = (int)status;
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '='), *v = eq ? eq + 1 : NULL;

		if (eq)
			*eq = '\0';
		if (!strcmp(tok, "query") && v)
			r->query = xstrdup(v);
		else if (!strcmp(tok, "type") && v)
			r->type = xstrdup(v);
		else if (!strcmp(tok, "header") && v)
			strvec_push(&r->headers, v);
		else if (!strcmp(tok, "file") && v) {
			if (strbuf_read_file(&r->body, v) < 0)
				die_status(2, "cannot read '%s': %s", v,
				    strerror(errno));
		} else if (!strcmp(tok, "chunked"))
			r->chunked = true;
		else if (!strcmp(tok, "hijack"))
			r->hijack = true;
		else if (!strcmp(tok, "raw"))
			r->raw = true;
		else if (!strcmp(tok, "echo"))
			r->echo = true;
		else if (!strcmp(tok, "hang"))
			r->hang = true;
		else if (!strcmp(tok, "split"))
			r->split = true;
		else if (!strcmp(tok, "close"))
			r->close = true;
		else if (!strcmp(tok, "noapi"))
			r->noapi = true;
		else if (!strcmp(tok, "bare"))
			r->bare = true;
		else if (!strcmp(tok, "chunk") && v)
			r->chunk = num_opt(v, tok);
		else if (!strcmp(tok, "gap") && v)
			r->gap = num_opt(v, tok);
		else if (!strcmp(tok, "delay") && v)
			r->delay = num_opt(v, tok);
		else if (!strcmp(tok, "drop") && v)
			r->drop = num_opt(v, tok);
		else if (!strcmp(tok, "times") && v)
			r->times = num_opt(v, tok);
		else if (!strcmp(tok, "mark") && v)
			r->mark = xstrdup(v);
		else if (!strcmp(tok, "await") && v)
			r->await = xstrdup(v);
		else
			die_status(2, "line %d: unknown option '%s'", lineno,
			    tok);
	}
	if (!r->type)
		r->type = xstrdup(r->hijack || r->raw ?
		    "application/vnd.docker.raw-stream" : "application/json");
	nrules++;
}

static void
load_scenario(const char *file)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *next;
	int lineno = 0;

	if (strbuf_read_file(&sb, file) < 0)
		die_status(2, "cannot read '%s': %s", file, strerror(errno));
	for (line = sb.buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		add_rule(line, lineno);
	}
	strbuf_release(&sb);
}

static void
add_builtin_rules(void)
{
	char line[256];

	snprintf(line, sizeof(line), "GET /_ping 200 type=text/plain body=OK");
	add_rule(line, 0);
	snprintf(line, sizeof(line), "GET /version 200 body={\"Platform\":"
	    "{\"Name\":\"fake-engine\"},\"Version\":\"0.0-fake\","
	    "\"ApiVersion\":\"%s\",\"MinAPIVersion\":\"%s\",\"Os\":\"linux\","
	    "\"Arch\":\"amd64\",\"KernelVersion\":\"fake\"}", api, min_api);
	add_rule(line, 0);
}

/* ---- files in DIR ------------------------------------------------------ */

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Create DIR/sub/name exclusively; false when it exists. */
static bool
create_excl(const char *sub, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void
write_file(const char *name, const char *data, size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/req/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		die_status(1, "cannot write '%s': %s", path, strerror(errno));
	close(fd);
}

static void
append_log(const char *line)
{
	char path[4096];
	int fd;
	size_t n = strlen(line);

	snprintf(path, sizeof(path), "%s/requests.log", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, n) != (ssize_t)n)
		die_status(1, "cannot write '%s': %s", path, strerror(errno));
	close(fd);
}

/* The next request number, unique across the children. */
static int
next_seq(void)
{
	char name[32];
	int n;

	for (n = 1; n < 100000; n++) {
		snprintf(name, sizeof(name), "%04d.head", n);
		if (create_excl("req", name))
			return n;
	}
	die_status(1, "too many requests");
}

static bool
rule_available(const struct rule *r)
{
	char name[32];
	long k;

	if (!r->times)
		return true;
	for (k = 1; k <= r->times; k++) {
		snprintf(name, sizeof(name), "%d.%ld", r->index, k);
		if (create_excl("count", name))
			return true;
	}
	return false;
}

static bool
marked(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/mark/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* ---- one connection ---------------------------------------------------- */

static void
send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);	/* the client went away */
		buf += n;
		len -= (size_t)n;
	}
}

/* Wait until the client closes (or half-closes) the connection. */
static void
wait_client_eof(int fd)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void
add_frame(struct strbuf *sb, int stream, const char *data, size_t len)
{
	unsigned char h[8] = { (unsigned char)stream, 0, 0, 0,
		(unsigned char)(len >> 24), (unsigned char)(len >> 16),
		(unsigned char)(len >> 8), (unsigned char)len };

	strbuf_add(sb, h, 8);
	strbuf_add(sb, data, len);
}

static void
serve(int fd, const struct rule *r, int seq)
{
	struct strbuf out = STRBUF_INIT, piece = STRBUF_INIT,
	    in = STRBUF_INIT;
	const char *reason;
	size_t at = 0, n, limit = r->body.len, i;
	char name[32], buf[65536];
	ssize_t got;
	bool streaming = r->hijack || r->raw;

	if (r->mark)
		create_excl("mark", r->mark);
	if (r->drop >= 0 && (size_t)r->drop < limit)
		limit = (size_t)r->drop;

	reason = r->hijack ? "UPGRADED" : r->status < 300 ? "OK" :
	    r->status == 404 ? "Not Found" : r->status == 409 ? "Conflict" :
	    "Error";
	strbuf_addf(&out, "HTTP/1.1 %d %s\r\n", r->hijack ? 101 : r->status,
	    reason);
	if (!r->noapi)
		strbuf_addf(&out, "Api-Version: %s\r\n", api);
	strbuf_addstr(&out, "Server: fake-engine\r\n");
	if (r->status != 204 && r->status != 304)
		strbuf_addf(&out, "Content-Type: %s\r\n", r->type);
	if (r->hijack)
		strbuf_addstr(&out, "Connection: Upgrade\r\nUpgrade: tcp\r\n");
	else if (r->chunked)
		strbuf_addstr(&out, "Transfer-Encoding: chunked\r\n");
	else if (!streaming && r->status != 204 && r->status != 304)
		strbuf_addf(&out, "Content-Length: %zu\r\n", r->body.len);
	for (i = 0; i < r->headers.n; i++) {
		char *c = strchr(r->headers.v[i], ':');

		if (c)
			strbuf_addf(&out, "%.*s: %s\r\n",
			    (int)(c - r->headers.v[i]), r->headers.v[i],
			    c + 1);
	}
	strbuf_addstr(&out, "\r\n");
	if (r->bare)
		strbuf_reset(&out);

	if (r->split || r->delay || r->await || r->chunk) {
		send_all(fd, out.buf, out.len);
		strbuf_reset(&out);
	}
	if (r->delay)
		sleep_ms(r->delay);
	while (r->await && !marked(r->await))
		sleep_ms(5);

	while (at < limit) {
		n = r->chunk ? (size_t)r->chunk : limit - at;
		if (n > limit - at)
			n = limit - at;
		strbuf_reset(&piece);
		if (r->chunked)
			strbuf_addf(&piece, "%zx\r\n", n);
		strbuf_add(&piece, r->body.buf + at, n);
		if (r->chunked)
			strbuf_addstr(&piece, "\r\n");
		strbuf_add(&out, piece.buf, piece.len);
		send_all(fd, out.buf, out.len);
		strbuf_reset(&out);
		at += n;
		if (r->gap && at < limit)
			sleep_ms(r->gap);
	}
	if (r->drop >= 0 && (size_t)r->drop < r->body.len) {
		send_all(fd, out.buf, out.len);
		_exit(0);	/* the cut: close in the middle */
	}
	if (r->chunked && !r->hang)
		strbuf_addstr(&out, "0\r\n\r\n");
	send_all(fd, out.buf, out.len);

	if (r->echo) {
		while ((got = read(fd, buf, sizeof(buf))) > 0) {
			strbuf_add(&in, buf, (size_t)got);
			strbuf_reset(&out);
			add_frame(&out, 1, buf, (size_t)got);
			send_all(fd, out.buf, out.len);
		}
		snprintf(name, sizeof(name), "%04d.stdin", seq);
		write_file(name, in.buf, in.len);
	}
	if (r->hang)
		wait_client_eof(fd);
	strbuf_release(&out);
	strbuf_release(&piece);
	strbuf_release(&in);
	if (streaming || r->hang || r->echo || r->close || r->bare)
		_exit(0);
}

static const struct rule *
match(const char *method, const char *path, const char *query)
{
	size_t i;

	for (i = 0; i < nrules; i++) {
		const struct rule *r = &rules[i];

		if (strcmp(r->method, method) || fnmatch(r->path, path, 0))
			continue;
		if (r->query && fnmatch(r->query, query, 0))
			continue;
		if (!rule_available(r))
			continue;
		return r;
	}
	return NULL;
}

/* Read one request; false at a clean end of the connection. */
static bool
read_request(int fd, struct strbuf *in, struct strbuf *head,
    struct strbuf *body)
{
	char buf[65536], *end, *cl;
	ssize_t n;
	size_t hl, want = 0;

	strbuf_reset(head);
	strbuf_reset(body);
	while (!(end = memmem(in->buf, in->len, "\r\n\r\n", 4))) {
		if (in->len > 65536)
			_exit(1);
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		strbuf_add(in, buf, (size_t)n);
	}
	hl = (size_t)(end - in->buf) + 4;
	strbuf_add(head, in->buf, hl);
	cl = strcasestr(head->buf, "\r\ncontent-length:");
	if (cl)
		want = strtoul(cl + strlen("\r\ncontent-length:"), NULL, 10);
	while (in->len < hl + want) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		strbuf_add(in, buf, (size_t)n);
	}
	strbuf_add(body, in->buf + hl, want);
	memmove(in->buf, in->buf + hl + want, in->len - hl - want);
	strbuf_setlen(in, in->len - hl - want);
	return true;
}

static void NORETURN
connection(int fd)
{
	struct strbuf in = STRBUF_INIT, head = STRBUF_INIT,
	    body = STRBUF_INIT, line = STRBUF_INIT, miss = STRBUF_INIT;
	char method[16], target[4096], name[32], *q, *path;
	const struct rule *r;
	struct rule notfound;
	int seq;

	while (read_request(fd, &in, &head, &body)) {
		if (sscanf(head.buf, "%15s %4095s", method, target) != 2)
			_exit(1);
		seq = next_seq();
		snprintf(name, sizeof(name), "%04d.head", seq);
		write_file(name, head.buf, head.len);
		snprintf(name, sizeof(name), "%04d.body", seq);
		write_file(name, body.buf, body.len);
		strbuf_reset(&line);
		strbuf_addf(&line, "%04d %s %s\n", seq, method, target);
		append_log(line.buf);

		q = strchr(target, '?');
		if (q)
			*q++ = '\0';
		path = target;
		r = match(method, path, q ? q : "");
		if (!r) {
			memset(&notfound, 0, sizeof(notfound));
			strbuf_init(&notfound.body, 0);
			strvec_init(&notfound.headers);
			notfound.status = 404;
			notfound.drop = -1;
			notfound.type = "application/json";
			strbuf_reset(&miss);
			strbuf_addf(&miss, "fake-engine: no rule for %s %s",
			    method, path);
			strbuf_addf(&notfound.body, "{\"message\":\"%s\"}\n",
			    miss.buf);
			serve(fd, &notfound, seq);
			strbuf_release(&notfound.body);
			continue;
		}
		serve(fd, r, seq);
	}
	_exit(0);
}

/* ---- the server ---------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void
on_chld(int sig)
{
	(void)sig;
}

static int
frame_main(int argc, char **argv)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	long stream;

	if (argc != 3 || !parse_long(argv[2], 0, 255, &stream))
		usage(2);
	if (strbuf_read_fd(&in, STDIN_FILENO) < 0)
		die_status(1, "cannot read stdin: %s", strerror(errno));
	add_frame(&out, (int)stream, in.buf, in.len);
	if (write(STDOUT_FILENO, out.buf, out.len) != (ssize_t)out.len)
		die_status(1, "cannot write stdout: %s", strerror(errno));
	strbuf_release(&in);
	strbuf_release(&out);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ "scenario", required_argument, NULL, 'f' },
		{ "api", required_argument, NULL, 'a' },
		{ "min-api", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *scenario = NULL;
	struct sockaddr_un sa;
	struct sigaction act;
	sigset_t block, empty;
	struct pollfd pfd;
	struct strvec sub = STRVEC_INIT;
	pid_t *kids = NULL, pid;
	size_t nkids = 0, kids_alloc = 0, i;
	int c, lfd, fd;

	sane_start();
	diag_init(argv[0]);
	if (argc > 1 && !strcmp(argv[1], "frame"))
		return frame_main(argc, argv);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'f':
			scenario = optarg;
			break;
		case 'a':
			api = optarg;
			break;
		case 'm':
			min_api = optarg;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (!sock || !dir || optind != argc)
		usage(2);
	if (scenario)
		load_scenario(scenario);
	add_builtin_rules();
	strvec_pushf(&sub, "%s/req", dir);
	strvec_pushf(&sub, "%s/mark", dir);
	strvec_pushf(&sub, "%s/count", dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die_status(1, "cannot make '%s': %s", dir, strerror(errno));
	for (i = 0; i < sub.n; i++)
		if (mkdir(sub.v[i], 0755) < 0 && errno != EEXIST)
			die_status(1, "cannot make '%s': %s", sub.v[i],
			    strerror(errno));
	strvec_clear(&sub);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(sock) >= sizeof(sa.sun_path))
		die_status(2, "socket path '%s' is too long", sock);
	memcpy(sa.sun_path, sock, strlen(sock));
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || (unlink(sock) < 0 && errno != ENOENT) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 64) < 0)
		die_status(1, "cannot listen on '%s': %s", sock,
		    strerror(errno));

	/* SIGTERM and SIGCHLD are only taken inside ppoll: no race. */
	memset(&act, 0, sizeof(act));
	sigemptyset(&act.sa_mask);
	act.sa_handler = on_term;
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	act.sa_handler = on_chld;
	sigaction(SIGCHLD, &act, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigemptyset(&empty);
	if (!create_excl(".", "ready"))
		die_status(1, "'%s/ready' exists: a server already uses it",
		    dir);

	while (!stop) {
		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			for (i = 0; i < nkids; i++)
				if (kids[i] == pid)
					kids[i] = kids[--nkids];
		pfd.fd = lfd;
		pfd.events = POLLIN;
		if (ppoll(&pfd, 1, NULL, &empty) < 0) {
			if (errno == EINTR)
				continue;
			die_status(1, "poll: %s", strerror(errno));
		}
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		pid = fork();
		if (pid == 0) {
			sigprocmask(SIG_UNBLOCK, &block, NULL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			close(lfd);
			connection(fd);
		}
		if (pid > 0) {
			ALLOC_GROW(kids, nkids + 1, kids_alloc);
			kids[nkids++] = pid;
		}
		close(fd);
	}
	for (i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	unlink(sock);
	free(kids);
	return 0;
}
