/*
 * engine-stream.c: the two exchanges whose head matters before their
 * body, on connections managed here rather than by libcurl.
 *
 * - The wait: registered (head received) before start, its body read
 *   after the container exits.
 * - The attach: "Connection: Upgrade", then a raw byte stream in both
 *   directions, half-closed when the host's input ends.
 *
 * Each runs on its own non-blocking, close-on-exec unix socket; every
 * read and write is bounded by poll().
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "engine-internal.h"
#include "engine-proto.h"
#include "engine.h"
#include "jsonread.h"
#include "strbuf.h"
#include "xalloc.h"

#define READ_CHUNK 65536
/* An error answer on these connections is short; cap what is kept. */
#define ERROR_BODY_MAX 65536

/* ---- a connection of our own ------------------------------------------ */

static int
poll_one(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left;
	int r;

	for (;;) {
		left = deadline < 0 ? -1 : deadline - eng_now_ms();
		if (deadline >= 0 && left < 0)
			left = 0;
		r = poll(&p, 1, left > 2147483647 ? 2147483647 : (int)left);
		if (r >= 0 || errno != EINTR)
			return r;
	}
}

/* Connect within the engine's connect timeout. */
static int
raw_connect(struct engine *e, int *fdp)
{
	struct sockaddr_un sa;
	int64_t deadline = eng_now_ms() + e->connect_ms;
	socklen_t sl = sizeof(int);
	int fd, err = 0;

	*fdp = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (e->sock.len >= sizeof(sa.sun_path))
		return eng_fail_connect(e, ENAMETOOLONG);
	memcpy(sa.sun_path, e->sock.buf, e->sock.len);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return eng_fail(e, ENGINE_E_HOST, 0, 0, "cannot make a socket: "
		    "%s", strerror(errno));
	for (;;) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		if (errno == EAGAIN) {
			/* The listener's backlog is full: try again. */
			if (eng_now_ms() >= deadline) {
				err = ETIMEDOUT;
				goto fail;
			}
			poll(NULL, 0, 10);
			continue;
		}
		if (errno == EINPROGRESS || errno == EINTR) {
			if (poll_one(fd, POLLOUT, deadline) <= 0) {
				err = ETIMEDOUT;
				goto fail;
			}
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
				err = errno;
			if (err)
				goto fail;
			break;
		}
		err = errno;
		goto fail;
	}
	*fdp = fd;
	return 0;
fail:
	close(fd);
	return eng_fail_connect(e, err);
}

static int
send_all(struct engine *e, int fd, const char *buf, size_t len,
    int64_t deadline, const char *what)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (poll_one(fd, POLLOUT, deadline) <= 0)
				return eng_fail(e, ENGINE_E_PROTO, 3032, 0,
				    "engine at '%s' did not take the request "
				    "to %s in time", e->sock.buf, what);
			continue;
		}
		return eng_fail(e, ENGINE_E_PROTO, 3032, 0, "cannot send the "
		    "request to %s to '%s': %s", what, e->sock.buf,
		    strerror(errno));
	}
	return 0;
}

/*
 * Read into `in` until a whole response head is there; parse it into
 * `h` and leave only the bytes after it in `in`.
 */
static int
read_head(struct engine *e, int fd, struct strbuf *in, struct http_head *h,
    int64_t deadline, const char *what)
{
	ssize_t hl, n;

	for (;;) {
		hl = http_head_parse(in->buf, in->len, h);
		if (hl < 0)
			return eng_fail(e, ENGINE_E_PROTO, 3032, 0, "engine at "
			    "'%s' answered the request to %s with something "
			    "that is not an HTTP response", e->sock.buf, what);
		if (hl > 0)
			break;
		if (poll_one(fd, POLLIN, deadline) <= 0)
			return eng_fail(e, ENGINE_E_PROTO, 3032, 0, "engine at "
			    "'%s' did not answer the request to %s in time",
			    e->sock.buf, what);
		strbuf_grow(in, READ_CHUNK);
		n = read(fd, in->buf + in->len, READ_CHUNK);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return eng_fail(e, ENGINE_E_PROTO, 3032, 0, "cannot "
			    "read the answer to %s from '%s': %s", what,
			    e->sock.buf, strerror(errno));
		if (n == 0)
			return eng_fail(e, ENGINE_E_PROTO, 3032, 0, "engine at "
			    "'%s' closed the connection before answering "
			    "the request to %s", e->sock.buf, what);
		strbuf_setlen(in, in->len + (size_t)n);
	}
	memmove(in->buf, in->buf + hl, in->len - (size_t)hl);
	strbuf_setlen(in, in->len - (size_t)hl);
	return 0;
}

/*
 * The body of an error answer, however it is delimited, within the
 * deadline; whatever arrived is kept when it ends early.
 */
static void
read_error_body(int fd, struct strbuf *in, const struct http_head *h,
    struct strbuf *body, int64_t deadline)
{
	struct http_chunked ch;
	size_t used;
	ssize_t n;
	bool done = false;

	http_chunked_init(&ch);
	for (;;) {
		if (h->chunked) {
			if (http_chunked_feed(&ch, in->buf, in->len, body,
			    &used) != 0)
				done = true;
			strbuf_reset(in);
		} else {
			strbuf_add(body, in->buf, in->len);
			strbuf_reset(in);
			if (h->content_length >= 0 &&
			    body->len >= (size_t)h->content_length)
				done = true;
		}
		if (h->status == 204 || h->status == 304 ||
		    h->content_length == 0)
			done = true;
		if (done || body->len > ERROR_BODY_MAX ||
		    poll_one(fd, POLLIN, deadline) <= 0)
			return;
		strbuf_grow(in, READ_CHUNK);
		n = read(fd, in->buf, READ_CHUNK);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return;
		strbuf_setlen(in, (size_t)n);
	}
}

/*
 * Connect, send a bodiless POST to `path` (after the version prefix)
 * with `extra` headers, and read the head.  On success *fdp is the
 * connection and `in` holds what came after the head; a status other
 * than `ok1`/`ok2` is the classified error for `what`.
 */
static int
raw_post(struct engine *e, const char *path, const char *extra, int ok1,
    int ok2, const char *what, int *fdp, struct strbuf *in,
    struct http_head *h)
{
	struct strbuf req = STRBUF_INIT, body = STRBUF_INIT;
	int64_t deadline;
	int fd;

	*fdp = -1;
	if (!e->connected)
		return eng_fail(e, ENGINE_E_USAGE, 0, 0, "internal error: %s "
		    "before engine_connect", what);
	if (raw_connect(e, &fd) < 0)
		return -1;
	deadline = eng_now_ms() + e->request_ms;
	/* No body: on an attach, body bytes would become stdin. */
	strbuf_addf(&req, "POST %s%s HTTP/1.1\r\n"
	    "Host: localhost\r\n"
	    "User-Agent: magus/" PACKAGE_VERSION "\r\n"
	    "Content-Type: application/json\r\n"
	    "Content-Length: 0\r\n"
	    "%s\r\n", e->prefix, path, extra);
	if (send_all(e, fd, req.buf, req.len, deadline, what) < 0 ||
	    read_head(e, fd, in, h, deadline, what) < 0)
		goto fail;
	if (h->status != ok1 && h->status != ok2) {
		read_error_body(fd, in, h, &body, deadline);
		eng_answer_error(e, h->status, body.buf, body.len, what);
		goto fail;
	}
	strbuf_release(&req);
	*fdp = fd;
	return 0;
fail:
	strbuf_release(&req);
	strbuf_release(&body);
	close(fd);
	return -1;
}

/* ---- the wait ------------------------------------------------------------ */

struct engine_wait {
	struct engine *e;
	int fd;
	char sid[16];
	struct http_head head;
	struct http_chunked ch;
	struct strbuf in;	/* read, not yet decoded */
	struct strbuf body;	/* decoded body so far */
	bool eof;
};

int
engine_wait_begin(struct engine *e, const char *id, const char *condition,
    struct engine_wait **wp)
{
	struct engine_wait *w = xcalloc(1, sizeof(*w));
	struct strbuf path = STRBUF_INIT, what = STRBUF_INIT;
	char sid[16];

	*wp = NULL;
	w->e = e;
	strbuf_init(&w->in, 0);
	strbuf_init(&w->body, 0);
	snprintf(w->sid, sizeof(w->sid), "%s", eng_short_id(id, sid));
	strbuf_addstr(&path, "/containers/");
	url_escape(&path, id, false);
	strbuf_addstr(&path, "/wait?condition=");
	url_escape(&path, condition ? condition : "next-exit", false);
	strbuf_addf(&what, "wait for container '%s'", w->sid);
	if (raw_post(e, path.buf, "", 200, 200, what.buf, &w->fd, &w->in,
	    &w->head) < 0) {
		strbuf_release(&path);
		strbuf_release(&what);
		w->fd = -1;
		engine_wait_free(w);
		return -1;
	}
	http_chunked_init(&w->ch);
	strbuf_release(&path);
	strbuf_release(&what);
	*wp = w;
	return 0;
}

int
engine_wait_fd(const struct engine_wait *w)
{
	return w->fd;
}

void
engine_wait_free(struct engine_wait *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	strbuf_release(&w->in);
	strbuf_release(&w->body);
	free(w);
}

/*
 * Decode what has been read.  1: the body is a whole JSON value (the
 * result; podman and Docker send it whole, then end the chunking), 0:
 * not yet, -1: malformed.
 */
static int
wait_decode(struct engine_wait *w)
{
	struct jsonr j;
	size_t used, need;
	int r;

	if (w->head.chunked) {
		r = http_chunked_feed(&w->ch, w->in.buf, w->in.len, &w->body,
		    &used);
		strbuf_reset(&w->in);
		if (r < 0)
			return -1;
	} else if (w->head.content_length >= 0) {
		need = (size_t)w->head.content_length - w->body.len;
		strbuf_add(&w->body, w->in.buf,
		    w->in.len < need ? w->in.len : need);
		strbuf_reset(&w->in);
	} else {
		strbuf_add(&w->body, w->in.buf, w->in.len);
		strbuf_reset(&w->in);
	}
	/* A whole object cannot be the prefix of a longer one. */
	if (w->body.len && jsonr_parse(&j, w->body.buf, w->body.len) == 0) {
		jsonr_release(&j);
		return 1;
	}
	return 0;
}

static int
wait_result(struct engine_wait *w, struct engine_exit *ex)
{
	struct engine *e = w->e;
	struct jsonr j;
	struct strbuf m = STRBUF_INIT;
	long long code;
	int err;

	if (jsonr_parse(&j, w->body.buf, w->body.len) < 0 ||
	    jsonr_int(&j, jsonr_get(&j, 0, "StatusCode"), &code) < 0 ||
	    code < -2147483647 || code > 2147483647) {
		jsonr_release(&j);
		return eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at '%s' "
		    "answered the wait for container '%s' without a "
		    "StatusCode", e->sock.buf, w->sid);
	}
	ex->status = (int)code;
	ex->polled = false;
	strbuf_init(&ex->error, 0);
	/* Docker: absent or {"Message":...}; podman: null. */
	err = jsonr_get(&j, 0, "Error");
	if (jsonr_str(&j, jsonr_get(&j, err, "Message"), &m) == 0 ||
	    jsonr_str(&j, err, &m) == 0)
		engine_clean_text(&ex->error, m.buf, m.len, 400);
	strbuf_release(&m);
	jsonr_release(&j);
	return 1;
}

int
engine_wait_end(struct engine_wait *w, int timeout_ms, struct engine_exit *ex)
{
	struct engine *e = w->e;
	int64_t deadline = timeout_ms < 0 ? -1 : eng_now_ms() + timeout_ms;
	ssize_t n;
	int r;

	for (;;) {
		r = wait_decode(w);
		if (r < 0)
			return eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine "
			    "at '%s' sent a malformed body for the wait for "
			    "container '%s'", e->sock.buf, w->sid);
		if (r > 0)
			return wait_result(w, ex);
		if (w->eof)
			return eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine "
			    "at '%s' closed the wait for container '%s' "
			    "before its result", e->sock.buf, w->sid);
		r = poll_one(w->fd, POLLIN, deadline);
		if (r < 0)
			return eng_fail(e, ENGINE_E_HOST, 0, 0, "poll: %s",
			    strerror(errno));
		if (r == 0)
			return 0;
		strbuf_grow(&w->in, READ_CHUNK);
		n = read(w->fd, w->in.buf + w->in.len, READ_CHUNK);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return eng_fail(e, ENGINE_E_PROTO, 3032, 200, "cannot "
			    "read the wait for container '%s' from '%s': %s",
			    w->sid, e->sock.buf, strerror(errno));
		if (n == 0)
			w->eof = true;
		else
			strbuf_setlen(&w->in, w->in.len + (size_t)n);
	}
}

static bool
has_exited(const struct engine_container *c)
{
	/* podman may say "stopped" between the exit and its cleanup. */
	return !c->running && (!strcmp(c->status, "exited") ||
	    !strcmp(c->status, "dead") || !strcmp(c->status, "stopped"));
}

int
engine_wait_poll(struct engine *e, struct engine_wait *w, const char *id,
    int poll_ms, struct engine_exit *ex)
{
	struct engine_container c;
	int r;

	if (poll_ms <= 0)
		poll_ms = 1000;
	for (;;) {
		if (w && w->fd >= 0) {
			r = engine_wait_end(w, poll_ms, ex);
			if (r > 0)
				return 0;
			if (r < 0) {
				/* The connection failed; the exit status
				 * is still one inspect away. */
				engine_clear_error(e);
				close(w->fd);
				w->fd = -1;
			}
		} else {
			poll(NULL, 0, poll_ms);
		}
		if (engine_container_inspect(e, id, &c) < 0)
			return -1;
		if (has_exited(&c)) {
			ex->status = c.exit_code;
			ex->polled = true;
			strbuf_init(&ex->error, 0);
			engine_clean_text(&ex->error, c.error,
			    strlen(c.error), 400);
			engine_container_release(&c);
			return 0;
		}
		engine_container_release(&c);
	}
}

/* ---- the attach ------------------------------------------------------- */

struct engine_attach {
	struct engine *e;
	int fd;
	char sid[16];
	bool with_stdin;
	struct engine_demux dm;
	struct strbuf pending;	/* stream bytes that came with the head */
	struct strbuf input;	/* host input not yet sent */
	bool in_eof;		/* the host's input has ended */
	bool wr_closed;		/* and the half-close is done */
	bool eof;		/* the engine closed the stream */
	struct strbuf syserr;	/* stream-3 text: the engine's own error */
	const struct engine_pump *pump;
};

int
engine_attach(struct engine *e, const char *id, bool with_stdin, bool tty,
    struct engine_attach **ap)
{
	struct engine_attach *a = xcalloc(1, sizeof(*a));
	struct strbuf path = STRBUF_INIT, what = STRBUF_INIT;
	struct http_head h;
	char sid[16];

	*ap = NULL;
	a->e = e;
	a->with_stdin = with_stdin;
	strbuf_init(&a->pending, 0);
	strbuf_init(&a->input, 0);
	strbuf_init(&a->syserr, 0);
	engine_demux_init(&a->dm, tty);
	snprintf(a->sid, sizeof(a->sid), "%s", eng_short_id(id, sid));
	strbuf_addstr(&path, "/containers/");
	url_escape(&path, id, false);
	strbuf_addf(&path, "/attach?stream=1&stdin=%d&stdout=1&stderr=1"
	    "&detachKeys=", with_stdin);
	strbuf_addf(&what, "attach to container '%s'", a->sid);
	if (raw_post(e, path.buf, "Connection: Upgrade\r\nUpgrade: tcp\r\n",
	    101, 200, what.buf, &a->fd, &a->pending, &h) < 0) {
		a->fd = -1;
		engine_attach_free(a);
		a = NULL;
	}
	strbuf_release(&path);
	strbuf_release(&what);
	*ap = a;
	return a ? 0 : -1;
}

int
engine_attach_fd(const struct engine_attach *a)
{
	return a->fd;
}

void
engine_attach_free(struct engine_attach *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	strbuf_release(&a->pending);
	strbuf_release(&a->input);
	strbuf_release(&a->syserr);
	free(a);
}

int
engine_attach_close_stdin(struct engine_attach *a)
{
	a->in_eof = true;
	strbuf_reset(&a->input);
	if (a->wr_closed || a->fd < 0)
		return 0;
	a->wr_closed = true;
	if (shutdown(a->fd, SHUT_WR) < 0 && errno != ENOTCONN)
		return eng_fail(a->e, ENGINE_E_PROTO, 3032, 0, "cannot "
		    "half-close the attach to container '%s': %s", a->sid,
		    strerror(errno));
	return 0;
}

/* Write all of buf to a host descriptor, which may be non-blocking. */
static int
host_write(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			if (poll_one(fd, POLLOUT, -1) < 0)
				return -1;
		} else {
			if (n == 0)
				errno = EIO;
			return -1;
		}
	}
	return 0;
}

static int
pump_sink(void *ctx, int stream, const char *buf, size_t len)
{
	struct engine_attach *a = ctx;
	int fd;

	switch (stream) {
	case ENGINE_SYSERR:
		if (a->syserr.len < ERROR_BODY_MAX)
			strbuf_add(&a->syserr, buf, len);
		return 0;
	case ENGINE_STDERR:
		fd = a->pump->err_fd;
		break;
	default:	/* stdout, and stdin echoed back as docker does */
		fd = a->pump->out_fd;
		break;
	}
	if (fd < 0)
		return 0;
	if (host_write(fd, buf, len) < 0)
		return eng_fail(a->e, ENGINE_E_HOST, 0, 0, "cannot write the "
		    "%s of container '%s': %s", stream == ENGINE_STDERR ?
		    "stderr" : "stdout", a->sid, strerror(errno));
	return 0;
}

static int
pump_feed(struct engine_attach *a, const char *buf, size_t len)
{
	int r = engine_demux_feed(&a->dm, buf, len, pump_sink, a);

	if (r < 0)
		return eng_fail(a->e, ENGINE_E_PROTO, 3032, 0, "engine at "
		    "'%s' sent something that is not a stream frame on the "
		    "attach to container '%s' (after %llu frames)",
		    a->e->sock.buf, a->sid,
		    (unsigned long long)a->dm.frames);
	return r ? -1 : 0;
}

/* The stream has ended: cleanly, or not. */
static int
pump_eof(struct engine_attach *a)
{
	struct strbuf m = STRBUF_INIT;

	a->eof = true;
	if (!engine_demux_at_boundary(&a->dm))
		return eng_fail(a->e, ENGINE_E_PROTO, 3032, 0, "engine at "
		    "'%s' cut the attach to container '%s' inside a frame",
		    a->e->sock.buf, a->sid);
	if (a->syserr.len) {
		engine_clean_text(&m, a->syserr.buf, a->syserr.len, 400);
		eng_fail(a->e, ENGINE_E_ENGINE, 3006, 0, "engine at '%s' "
		    "reported an error on the attach to container '%s': %s",
		    a->e->sock.buf, a->sid, m.buf);
		strbuf_release(&m);
		return -1;
	}
	return ENGINE_PUMP_EOF;
}

int
engine_attach_pump(struct engine_attach *a, const struct engine_pump *p)
{
	struct pollfd pf[3];
	char buf[READ_CHUNK];
	ssize_t n;
	int np, in_i, wake_i;

	a->pump = p;
	if (a->eof)
		return ENGINE_PUMP_EOF;
	if (a->pending.len) {
		struct strbuf tmp = a->pending;

		strbuf_init(&a->pending, 0);
		n = pump_feed(a, tmp.buf, tmp.len);
		strbuf_release(&tmp);
		if (n < 0)
			return -1;
	}
	if (p->in_fd < 0 || !a->with_stdin)
		a->in_eof = true;
	for (;;) {
		if (a->with_stdin && a->in_eof && !a->input.len &&
		    !a->wr_closed && engine_attach_close_stdin(a) < 0)
			return -1;
		np = 0;
		pf[np].fd = a->fd;
		pf[np].events = POLLIN | (a->input.len ? POLLOUT : 0);
		np++;
		in_i = wake_i = -1;
		if (!a->in_eof && !a->input.len) {
			in_i = np;
			pf[np].fd = p->in_fd;
			pf[np++].events = POLLIN;
		}
		if (p->wake_fd >= 0) {
			wake_i = np;
			pf[np].fd = p->wake_fd;
			pf[np++].events = POLLIN;
		}
		if (poll(pf, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			return eng_fail(a->e, ENGINE_E_HOST, 0, 0, "poll: %s",
			    strerror(errno));
		}
		if (wake_i >= 0 && pf[wake_i].revents)
			return ENGINE_PUMP_WAKE;
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(a->fd, buf, sizeof(buf));
			if (n > 0) {
				if (pump_feed(a, buf, (size_t)n) < 0)
					return -1;
			} else if (n == 0) {
				return pump_eof(a);
			} else if (errno != EINTR && errno != EAGAIN) {
				return eng_fail(a->e, ENGINE_E_PROTO, 3032, 0,
				    "cannot read the attach to container "
				    "'%s' from '%s': %s", a->sid,
				    a->e->sock.buf, strerror(errno));
			}
		}
		if (a->input.len && (pf[0].revents & POLLOUT)) {
			n = send(a->fd, a->input.buf, a->input.len,
			    MSG_NOSIGNAL);
			if (n > 0) {
				memmove(a->input.buf, a->input.buf + n,
				    a->input.len - (size_t)n);
				strbuf_setlen(&a->input,
				    a->input.len - (size_t)n);
			} else if (n < 0 && errno != EINTR && errno != EAGAIN) {
				/* The container no longer reads its stdin;
				 * its output may still be coming. */
				a->in_eof = a->wr_closed = true;
				strbuf_reset(&a->input);
			}
		}
		if (in_i >= 0 && pf[in_i].revents) {
			n = read(p->in_fd, buf, sizeof(buf));
			if (n > 0)
				strbuf_add(&a->input, buf, (size_t)n);
			else if (n == 0)
				a->in_eof = true;
			else if (errno != EINTR && errno != EAGAIN)
				return eng_fail(a->e, ENGINE_E_HOST, 0, 0,
				    "cannot read the input for container "
				    "'%s': %s", a->sid, strerror(errno));
		}
	}
}
