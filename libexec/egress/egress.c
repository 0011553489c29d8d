/*
 * magus-egress: the allowlist proxy behind the sandbox's --network proxy.
 *
 * One process, one thread for the sockets, epoll, every socket
 * non-blocking.  Each client connection is a small state machine:
 *
 *	HEAD     read the request head (bounded, with a deadline)
 *	RESOLVE  an allowed name is being resolved by the resolver pool
 *	CONNECT  a non-blocking connect to the address the proxy chose
 *	RELAY    bytes flow both ways: a CONNECT tunnel, or one plain-HTTP
 *	         request forwarded and its response relayed
 *	RESPOND  the proxy's own answer (403, 400, ...) is being written
 *	LINGER   our side is shut; the client's leftovers are read and
 *	         dropped until it closes, so closing never resets the
 *	         connection under an answer the client has not read yet
 *
 * Every connection ends in exactly one JSON log line.  Each direction of
 * a relay has one buffer and reads its source only when the buffer has
 * been written out: a slow reader slows its writer, never the proxy's
 * memory.  The buffer starts at 128 KiB and grows to 1 MiB once a read
 * fills it: on loopback (bench/egress.sh, Linux 6.18, 2 CPUs) a GiB
 * then takes about 1,100 reads and as many writes instead of 8,200, and
 * the proxy's CPU time for it falls by about a third.  A grown buffer
 * is given back when its connection ends.
 *
 * Why recv/send through a buffer and not splice(2): measured the same
 * way, a relay spliced through a pipe (64 KiB to 1 MiB) took less than
 * half the proxy's CPU time, but the downloading client took 1.7 times
 * its own to read the page fragments splice passed on (likely colder in
 * the cache than the pages the copy has just written), and downloads
 * were slower than through the copy.  Nor a BPF sockmap, which relays
 * inside the kernel and copies nothing: it needs CAP_NET_ADMIN, and a
 * prototype of it was slower than the copy on loopback while costing
 * the machine about as much CPU (bench/README.md).
 */
#include "compat.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "egress.h"
#include "json.h"
#include "proc.h"
#include "resolver.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "xalloc.h"

#define MGS_USAGE 7001
#define MGS_ALLOW_ENTRY 7002
#define MGS_ALLOW_FILE 7003
#define MGS_LOG_FILE 7004
#define MGS_LISTEN 7005
#define MGS_RUNTIME 7006

#define DEFAULT_MAX_CONNS 256
#define DEFAULT_HEADER_TIMEOUT 5	/* seconds */
#define CONNECT_TIMEOUT_MS 10000	/* resolution and connect together */
#define LINGER_MS 2000
/* Over the limit, a few more connections are taken just to answer 503. */
#define SPARE_CONNS 16
#define RESOLVER_THREADS 4
#define MAX_ADDRS 8
#define RELAY_BUF (128 * 1024)
#define RELAY_BUF_BULK (1024 * 1024)
/* How much of a response is kept to find its status for the log: enough
 * for a few interim (1xx) heads before the final one. */
#define RESP_PEEK 512
/* Rounds of one direction per wake-up, so one fast stream cannot starve
 * the others; the level-triggered poll brings it back at once. */
#define MAX_ROUNDS 16
#define FDS_PER_CONN 2		/* client, upstream */

static void
usage(FILE *out)
{
	fputs("usage: magus-egress --listen unix:PATH|127.0.0.1:PORT "
	    "[--allow HOST:PORT]...\n"
	    "                    [--allow-file FILE] [--log FILE|-] "
	    "[--max-conns N]\n"
	    "                    [--header-timeout SECONDS] "
	    "[--ready-fd FD]\n"
	    "                    [--die-with-parent]\n"
	    "       magus-egress --help\n", out);
}

/* ---- time ----------------------------------------------------------- */

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- connections ---------------------------------------------------- */

enum cstate { C_FREE, C_HEAD, C_RESOLVE, C_CONNECT, C_RELAY, C_RESPOND,
	C_LINGER };

enum wait { W_NONE, W_SRC, W_DST };

/* One direction of a relay: src -> buffer -> dst. */
struct dir {
	const char *pre;	/* written before anything else */
	size_t prelen, preoff;
	char *buf;		/* cap bytes, kept with the slot */
	size_t cap;
	size_t off, len;	/* buf[off..len) is still to be written */
	bool full;		/* the last read filled buf: bulk */
	struct body *framing;	/* when set, stop at the body's end */
	bool eof;		/* nothing more will come from src */
	bool done;		/* and everything was written */
	bool half_close;	/* pass the end on with shutdown(dst) */
	enum wait wait;
	uint64_t bytes;		/* written to dst, pre included */
	char first[RESP_PEEK];	/* the first bytes read from src */
	size_t firstlen;
};

/* A timer queue: every member waits the same time, so appending keeps
 * deadlines in order and the head is always the next to expire. */
struct tq {
	struct conn *head, *tail;
	unsigned ms;
};

struct conn {
	enum cstate state;
	unsigned slot, gen;
	bool spare;		/* taken over the limit, only to answer 503 */
	int cfd, ufd;
	uint32_t cmask, umask;	/* what epoll watches; 0: not registered */
	bool creg, ureg;

	struct tq *tq;
	struct conn *tq_prev, *tq_next;
	uint64_t deadline;

	uint64_t start_us;
	struct timespec start_wall;
	char client[80];

	char *head;		/* HTTP_HEAD_MAX bytes, kept with the slot */
	size_t headlen, scan, head_end;
	bool have_req;
	struct http_req req;
	struct strbuf out;	/* the forwarded head, or our answer */
	size_t outoff;		/* how much of our answer is written */
	struct body body;

	struct eg_addr addrs[MAX_ADDRS];
	unsigned naddr, iaddr;
	int connect_errno;
	bool have_addr;
	struct eg_addr addr;	/* the one connected to */

	struct dir up, down;	/* client -> upstream, upstream -> client */
	bool tunnel;

	const char *verdict;
	int status;		/* what the proxy answered; 0: relayed */
	char reason[320];
	char error[160];	/* how a relay ended, when not cleanly */
};

struct proxy {
	struct allowlist allow;
	unsigned max_conns, header_timeout_ms;
	int epfd, lfd, sigfd, logfd, reservefd;
	bool lreg, stopping;
	char *unix_path;
	dev_t unix_dev;
	ino_t unix_ino;
	struct resolver *res;

	struct conn *conns;
	unsigned nslots, nreal, nspare;
	unsigned *freelist, nfree;
	struct conn **later;	/* freed during this batch */
	unsigned nlater;

	struct tq q_head, q_connect, q_linger;
	struct strbuf line;
	bool log_failed;
};

static struct proxy P;

/* epoll tokens: slot << 2 | side, and a few fixed ones. */
#define TOK_CLIENT 0
#define TOK_UPSTREAM 1
#define TOK_OTHER 2
#define TOK_LISTEN ((uint64_t)0 << 2 | TOK_OTHER)
#define TOK_SIGNAL ((uint64_t)1 << 2 | TOK_OTHER)
#define TOK_RESOLVER ((uint64_t)2 << 2 | TOK_OTHER)

static void
tq_del(struct conn *c)
{
	struct tq *q = c->tq;

	if (!q)
		return;
	if (c->tq_prev)
		c->tq_prev->tq_next = c->tq_next;
	else
		q->head = c->tq_next;
	if (c->tq_next)
		c->tq_next->tq_prev = c->tq_prev;
	else
		q->tail = c->tq_prev;
	c->tq = NULL;
	c->tq_prev = c->tq_next = NULL;
}

static void
tq_add(struct tq *q, struct conn *c)
{
	tq_del(c);
	c->deadline = now_ms() + q->ms;
	c->tq = q;
	c->tq_prev = q->tail;
	c->tq_next = NULL;
	if (q->tail)
		q->tail->tq_next = c;
	else
		q->head = c;
	q->tail = c;
}

/* Watch fd for mask; 0 removes it, so a hung-up socket we are not
 * waiting on cannot wake the loop over and over. */
static void
watch(struct conn *c, int side, uint32_t mask)
{
	int fd = side == TOK_CLIENT ? c->cfd : c->ufd;
	uint32_t *cur = side == TOK_CLIENT ? &c->cmask : &c->umask;
	bool *reg = side == TOK_CLIENT ? &c->creg : &c->ureg;
	struct epoll_event ev;
	int op;

	if (fd < 0 || (*reg && *cur == mask) || (!*reg && !mask))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = mask;
	ev.data.u64 = (uint64_t)c->slot << 2 | (uint64_t)side;
	op = !mask ? EPOLL_CTL_DEL : *reg ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (epoll_ctl(P.epfd, op, fd, &ev) < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot watch a socket: %s",
		    strerror(errno));
	*reg = mask != 0;
	*cur = mask;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0) {
		/* Nothing useful can follow a failed close of a socket. */
		(void)close(*fd);
		*fd = -1;
	}
}

/* Clear a direction for the next connection; its buffer stays. */
static void
dir_reset(struct dir *d)
{
	char *buf = d->buf;
	size_t cap = d->cap;

	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->cap = cap;
}

/* A buffer grown for bulk goes back when its connection ends, so idle
 * slots hold no more than RELAY_BUF each. */
static void
dir_shrink(struct dir *d)
{
	if (d->cap > RELAY_BUF) {
		free(d->buf);
		d->buf = NULL;
		d->cap = 0;
	}
}

/* Swap an empty buffer that a read filled for a larger one; without
 * the memory, the small one carries on. */
static void
dir_grow(struct dir *d)
{
	char *b;

	d->full = false;
	if (d->cap >= RELAY_BUF_BULK)
		return;
	b = malloc(RELAY_BUF_BULK);
	if (!b)
		return;
	free(d->buf);
	d->buf = b;
	d->cap = RELAY_BUF_BULK;
}

static void
set_reason(struct conn *c, const char *verdict, int status, const char *fmt,
    ...) PRINTF_LIKE(4, 5);

static void
set_reason(struct conn *c, const char *verdict, int status, const char *fmt,
    ...)
{
	va_list ap;

	c->verdict = verdict;
	c->status = status;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

/* ---- the log -------------------------------------------------------- */

/*
 * The status of the final response among the first bytes an origin sent,
 * skipping interim 1xx heads; 0 when those bytes do not show it.
 */
static int
response_status(const char *b, size_t n)
{
	for (;;) {
		const char *end;
		int st;

		if (n < 12 || memcmp(b, "HTTP/1.", 7) || b[8] != ' ' ||
		    !isdigit((unsigned char)b[9]) ||
		    !isdigit((unsigned char)b[10]) ||
		    !isdigit((unsigned char)b[11]))
			return 0;
		st = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
		if (st < 100 || st >= 200 || st == 101)
			return st;
		end = memmem(b, n, "\r\n\r\n", 4);
		if (!end)
			return st;
		n -= (size_t)(end + 4 - b);
		b = end + 4;
	}
}

static void
log_conn(struct conn *c)
{
	struct strbuf *sb = &P.line;
	struct json j;
	struct tm tm;
	char when[64], addr[EG_ADDRSTRLEN];
	const char *p;
	size_t left;

	strbuf_reset(sb);
	json_init(&j, sb);
	json_object_begin(&j);
	gmtime_r(&c->start_wall.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ldZ",
	    c->start_wall.tv_nsec / 1000000);
	json_kv_str(&j, "time", when);
	json_kv_str(&j, "client", c->client);
	json_key(&j, "method");
	if (c->have_req)
		json_str(&j, c->req.method);
	else
		json_null(&j);
	json_key(&j, "host");
	if (c->have_req)
		json_str(&j, c->req.host);
	else
		json_null(&j);
	json_key(&j, "port");
	if (c->have_req)
		json_uint(&j, c->req.port);
	else
		json_null(&j);
	json_kv_str(&j, "verdict", c->verdict);
	json_key(&j, "status");
	if (!c->status && !c->tunnel)
		c->status = response_status(c->down.first, c->down.firstlen);
	if (c->status)
		json_int(&j, c->status);
	else
		json_null(&j);
	json_kv_str(&j, "reason", c->reason);
	json_key(&j, "address");
	if (c->have_addr) {
		addr_format(&c->addr, addr, sizeof(addr));
		json_str(&j, addr);
	} else {
		json_null(&j);
	}
	json_key(&j, "bytes_up");
	json_uint(&j, c->up.bytes);
	json_key(&j, "bytes_down");
	json_uint(&j, c->down.bytes);
	json_key(&j, "duration_ms");
	{
		char d[32];

		snprintf(d, sizeof(d), "%.3f",
		    (double)(now_us() - c->start_us) / 1000.0);
		json_raw(&j, d);
	}
	if (c->error[0])
		json_kv_str(&j, "error", c->error);
	json_object_end(&j);
	strbuf_addch(sb, '\n');

	/* One write per line, so lines from one proxy never interleave. */
	for (p = sb->buf, left = sb->len; left;) {
		ssize_t n = write(P.logfd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!P.log_failed)
				warn_msg("cannot write the log: %s",
				    n < 0 ? strerror(errno) : "short write");
			P.log_failed = true;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
}

/* ---- slots ---------------------------------------------------------- */

static struct conn *
slot_take(bool spare)
{
	struct conn *c;

	if (!P.nfree)
		return NULL;
	c = &P.conns[P.freelist[--P.nfree]];
	c->gen++;
	c->spare = spare;
	if (spare)
		P.nspare++;
	else
		P.nreal++;
	return c;
}

static void update_listener(void);

static void
conn_close(struct conn *c)
{
	if (c->state == C_FREE)
		return;
	if (!c->verdict)
		set_reason(c, "closed", 0, "the client closed the connection "
		    "before a complete request");
	/* A client that connected and sent nothing asked nothing. */
	if (c->have_req || c->headlen || c->spare ||
	    strcmp(c->verdict, "closed"))
		log_conn(c);
	tq_del(c);
	close_fd(&c->cfd);
	close_fd(&c->ufd);
	c->creg = c->ureg = false;
	c->cmask = c->umask = 0;
	dir_reset(&c->up);
	dir_reset(&c->down);
	dir_shrink(&c->up);
	dir_shrink(&c->down);
	c->state = C_FREE;
	if (c->spare)
		P.nspare--;
	else
		P.nreal--;
	/* The slot is reused only after this batch of events, so an event
	 * already fetched for the old connection finds it FREE. */
	P.later[P.nlater++] = c;
}

static void
release_later(void)
{
	unsigned i;

	for (i = 0; i < P.nlater; i++) {
		P.freelist[P.nfree++] = P.later[i]->slot;
	}
	P.nlater = 0;
	update_listener();
}

/* ---- answering ------------------------------------------------------ */

static void respond_step(struct conn *c);

/* Answer with status and a one-line reason, then close. */
static void
respond(struct conn *c, const char *verdict, int status, const char *fmt,
    ...) PRINTF_LIKE(4, 5);

static void
respond(struct conn *c, const char *verdict, int status, const char *fmt, ...)
{
	va_list ap;

	c->verdict = verdict;
	c->status = status;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);

	close_fd(&c->ufd);
	c->ureg = false;
	c->umask = 0;
	strbuf_reset(&c->out);
	strbuf_addf(&c->out, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: %zu\r\n"
	    "Connection: close\r\n\r\n"
	    "magus-egress: %s\n",
	    status, http_reason(status), strlen("magus-egress: \n") +
	    strlen(c->reason), c->reason);
	c->state = C_RESPOND;
	c->outoff = 0;
	tq_add(&P.q_linger, c);
	respond_step(c);
}

static char scratch[16384];

/* Drop what the client still sends until it closes or lingering ends. */
static void
linger_step(struct conn *c)
{
	for (;;) {
		ssize_t n = recv(c->cfd, scratch, sizeof(scratch), 0);

		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			watch(c, TOK_CLIENT, EPOLLIN);
			return;
		}
		conn_close(c);
		return;
	}
}

static void
start_linger(struct conn *c)
{
	close_fd(&c->ufd);
	c->ureg = false;
	c->umask = 0;
	if (shutdown(c->cfd, SHUT_WR) < 0 && errno != ENOTCONN) {
		conn_close(c);
		return;
	}
	c->state = C_LINGER;
	if (c->tq != &P.q_linger)
		tq_add(&P.q_linger, c);
	linger_step(c);
}

static void
respond_step(struct conn *c)
{
	while (c->outoff < c->out.len) {
		ssize_t n = send(c->cfd, c->out.buf + c->outoff,
		    c->out.len - c->outoff, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			watch(c, TOK_CLIENT, EPOLLOUT);
			return;
		}
		if (n <= 0) {
			conn_close(c);
			return;
		}
		c->outoff += (size_t)n;
	}
	start_linger(c);
}

/* ---- the relay ------------------------------------------------------ */

enum pump { PUMP_OK, PUMP_SRC_ERR, PUMP_DST_ERR, PUMP_FRAMING };

static bool
again(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK;
}

/* One send of buf[*off..len) to dst: true when some of it went; false
 * when dst would block or failed, and then *pump says which. */
static bool
dir_send(struct dir *d, int dst, const char *buf, size_t len, size_t *off,
    enum pump *pump)
{
	ssize_t n;

	do
		n = send(dst, buf + *off, len - *off, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		d->wait = W_DST;
		*pump = again() ? PUMP_OK : PUMP_DST_ERR;
		return false;
	}
	*off += (size_t)n;
	d->bytes += (uint64_t)n;
	return true;
}

static enum pump
dir_pump(struct dir *d, int src, int dst)
{
	unsigned rounds = 0;
	enum pump stop;
	ssize_t n;

	for (;;) {
		if (d->preoff < d->prelen) {
			if (!dir_send(d, dst, d->pre, d->prelen, &d->preoff,
			    &stop))
				return stop;
			continue;
		}
		if (d->off < d->len) {
			if (!dir_send(d, dst, d->buf, d->len, &d->off, &stop))
				return stop;
			if (d->off == d->len)
				d->off = d->len = 0;
			continue;
		}
		/* Everything read so far is written. */
		if (d->eof) {
			if (!d->done && d->half_close &&
			    shutdown(dst, SHUT_WR) < 0 && errno != ENOTCONN) {
				d->wait = W_NONE;
				return PUMP_DST_ERR;
			}
			d->done = true;
			d->wait = W_NONE;
			return PUMP_OK;
		}
		if (++rounds > MAX_ROUNDS) {
			d->wait = W_SRC;
			return PUMP_OK;
		}
		if (d->full)
			dir_grow(d);
		n = recv(src, d->buf, d->cap, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			d->wait = W_SRC;
			return again() ? PUMP_OK : PUMP_SRC_ERR;
		}
		if (!n) {
			d->eof = true;
			continue;
		}
		d->len = (size_t)n;
		d->full = d->len == d->cap;
		if (d->firstlen < sizeof(d->first)) {
			size_t k = sizeof(d->first) - d->firstlen;

			if (k > d->len)
				k = d->len;
			memcpy(d->first + d->firstlen, d->buf, k);
			d->firstlen += k;
		}
		if (d->framing) {
			ssize_t m = body_feed(d->framing, d->buf, d->len);

			if (m < 0)
				return PUMP_FRAMING;
			d->len = (size_t)m;
			if (d->framing->done)
				d->eof = true;
		}
	}
}

static void
relay_fail(struct conn *c, const char *side, int err)
{
	snprintf(c->error, sizeof(c->error), "%s: %s", side,
	    err ? strerror(err) : "connection closed");
	conn_close(c);
}

/*
 * Move what can be moved.  A tunnel ends when both directions have
 * ended; a forwarded request ends when the response has (the request
 * side may still be sending a body the server no longer wants).
 */
static void
relay_step(struct conn *c, uint32_t cev, uint32_t uev)
{
	const uint32_t rd = EPOLLIN | EPOLLERR | EPOLLHUP;
	const uint32_t wr = EPOLLOUT | EPOLLERR | EPOLLHUP;
	enum pump r;
	uint32_t cm, um;

	if (!c->up.done && ((c->up.wait == W_SRC && (cev & rd)) ||
	    (c->up.wait == W_DST && (uev & wr)) || c->up.wait == W_NONE)) {
		r = dir_pump(&c->up, c->cfd, c->ufd);
		if (r == PUMP_SRC_ERR) {
			relay_fail(c, "client", errno);
			return;
		}
		if (r == PUMP_FRAMING) {
			snprintf(c->error, sizeof(c->error),
			    "client: malformed chunked request body");
			conn_close(c);
			return;
		}
		if (r == PUMP_DST_ERR) {
			if (c->tunnel) {
				relay_fail(c, "upstream", errno);
				return;
			}
			/* The server stopped reading; its answer may follow. */
			c->up.done = true;
			c->up.wait = W_NONE;
		}
	}
	if (!c->down.done && ((c->down.wait == W_SRC && (uev & rd)) ||
	    (c->down.wait == W_DST && (cev & wr)) || c->down.wait == W_NONE)) {
		r = dir_pump(&c->down, c->ufd, c->cfd);
		if (r != PUMP_OK) {
			relay_fail(c, r == PUMP_SRC_ERR ? "upstream" : "client",
			    errno);
			return;
		}
	}
	if (c->down.done && (c->up.done || !c->tunnel)) {
		if (c->tunnel)
			conn_close(c);
		else
			start_linger(c);
		return;
	}
	cm = um = 0;
	if (!c->up.done) {
		if (c->up.wait == W_SRC)
			cm |= EPOLLIN;
		if (c->up.wait == W_DST)
			um |= EPOLLOUT;
	}
	if (!c->down.done) {
		if (c->down.wait == W_SRC)
			um |= EPOLLIN;
		if (c->down.wait == W_DST)
			cm |= EPOLLOUT;
	}
	watch(c, TOK_CLIENT, cm);
	watch(c, TOK_UPSTREAM, um);
}

static void
set_nodelay(int fd)
{
	int one = 1;

	/* Fails on a unix socket, where there is no Nagle to turn off. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static const char connect_ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

static void
start_relay(struct conn *c)
{
	const char *left = c->head + c->head_end;
	size_t nleft = c->headlen - c->head_end;

	tq_del(c);
	set_nodelay(c->ufd);
	dir_reset(&c->up);
	dir_reset(&c->down);
	if (!c->up.buf) {
		c->up.buf = xmalloc(RELAY_BUF);
		c->up.cap = RELAY_BUF;
	}
	if (!c->down.buf) {
		c->down.buf = xmalloc(RELAY_BUF);
		c->down.cap = RELAY_BUF;
	}
	if (c->tunnel) {
		c->status = 200;
		c->down.pre = connect_ok;
		c->down.prelen = strlen(connect_ok);
		/* A client may send its first bytes before our 200. */
		c->up.pre = left;
		c->up.prelen = nleft;
		c->up.half_close = c->down.half_close = true;
	} else {
		c->status = 0;
		c->up.pre = c->out.buf;
		c->up.prelen = c->out.len;
		body_init(&c->body, c->req.body, c->req.content_length);
		c->up.framing = &c->body;
		if (nleft) {
			ssize_t m = body_feed(&c->body, left, nleft);

			if (m < 0) {
				respond(c, "malformed", 400, "malformed "
				    "chunked request body");
				return;
			}
			memcpy(c->up.buf, left, (size_t)m);
			c->up.len = (size_t)m;
		}
		c->up.eof = c->body.done;
		/* The response's end is the connection's end. */
		c->down.half_close = true;
	}
	c->state = C_RELAY;
	relay_step(c, 0, 0);
}

/* ---- connecting ----------------------------------------------------- */

static void
try_connect(struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char a[EG_ADDRSTRLEN];

	while (c->iaddr < c->naddr) {
		const struct eg_addr *addr = &c->addrs[c->iaddr];

		sl = addr_to_sockaddr(addr, c->req.port, &ss);
		c->addr = *addr;
		c->have_addr = true;
		c->ufd = socket(ss.ss_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c->ufd < 0 && (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM)) {
			respond(c, "failed", 503, "the proxy is out of "
			    "resources: %s", strerror(errno));
			return;
		}
		/* Without IPv6 (say), the next address may still do. */
		if (c->ufd >= 0 &&
		    (connect(c->ufd, (struct sockaddr *)&ss, sl) == 0 ||
		    errno == EINPROGRESS)) {
			c->state = C_CONNECT;
			watch(c, TOK_UPSTREAM, EPOLLOUT);
			return;
		}
		c->connect_errno = errno;
		close_fd(&c->ufd);
		c->iaddr++;
	}
	addr_format(&c->addr, a, sizeof(a));
	respond(c, "failed", 502, "cannot connect to '%s' port %u (%s): %s",
	    c->req.host, c->req.port, a, strerror(c->connect_errno));
}

static void
connect_done(struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (!err) {
		start_relay(c);
		return;
	}
	c->connect_errno = err;
	watch(c, TOK_UPSTREAM, 0);
	close_fd(&c->ufd);
	c->iaddr++;
	try_connect(c);
}

/* The resolver's answer: keep the addresses a name may lead to. */
static void
resolved(struct conn *c, struct rjob *j)
{
	const struct allow_entry *e;
	const struct addrinfo *ai;
	struct eg_addr a, refused;
	const char *refused_class = NULL;
	char text[EG_ADDRSTRLEN];
	unsigned i;

	if (j->status) {
		respond(c, "failed", 502, "cannot resolve '%s': %s",
		    c->req.host, j->status == EAI_SYSTEM ? strerror(errno) :
		    gai_strerror(j->status));
		return;
	}
	c->naddr = 0;
	for (ai = j->res; ai && c->naddr < MAX_ADDRS; ai = ai->ai_next) {
		const char *cls;

		if (!ai->ai_addr || !addr_from_sockaddr(ai->ai_addr, &a))
			continue;
		for (i = 0; i < c->naddr; i++)
			if (!memcmp(&c->addrs[i], &a, sizeof(a)))
				break;
		if (i < c->naddr)
			continue;
		/* No DNS rebinding into the host: a name may lead to a
		 * non-public address only where the list names it. */
		cls = addr_class(&a);
		if (cls && allow_addr(&P.allow, &a, c->req.port, &e) !=
		    ALLOW_OK) {
			if (!refused_class) {
				refused_class = cls;
				refused = a;
			}
			continue;
		}
		c->addrs[c->naddr++] = a;
	}
	if (!c->naddr) {
		if (!refused_class) {
			respond(c, "failed", 502, "'%s' has no IPv4 or IPv6 "
			    "address", c->req.host);
			return;
		}
		addr_format(&refused, text, sizeof(text));
		c->addr = refused;
		c->have_addr = true;
		respond(c, "refused", 403, "'%s' resolves to %s, a %s "
		    "address the allowlist does not name", c->req.host, text,
		    refused_class);
		return;
	}
	c->iaddr = 0;
	try_connect(c);
}

/* ---- the request ---------------------------------------------------- */

static void
decide(struct conn *c)
{
	const struct allow_entry *e = NULL;
	enum allow_verdict v;
	const char *why = NULL;
	int status;

	strbuf_reset(&c->out);
	status = http_parse_head(c->head, c->head_end, &c->req, &c->out, &why);
	if (status) {
		/* What did parse (a method, a host) is not trustworthy. */
		respond(c, "malformed", status, "%s", why);
		return;
	}
	c->have_req = true;
	c->tunnel = c->req.connect;
	if (c->req.host_is_addr)
		v = allow_addr(&P.allow, &c->req.addr, c->req.port, &e);
	else
		v = allow_name(&P.allow, c->req.host, c->req.port, &e);
	if (v == ALLOW_NO_PORT) {
		respond(c, "refused", 403, "port %u is not allowed for '%s'",
		    c->req.port, c->req.host);
		return;
	}
	if (v != ALLOW_OK) {
		respond(c, "refused", 403, "'%s' is not in the allowlist%s",
		    c->req.host, c->req.host_is_addr ? " (an address is "
		    "allowed only when listed as one)" : "");
		return;
	}
	set_reason(c, "allowed", 0, "allowed by '%s'", e->text);
	tq_add(&P.q_connect, c);
	if (c->req.host_is_addr) {
		c->addrs[0] = c->req.addr;
		c->naddr = 1;
		c->iaddr = 0;
		try_connect(c);
		return;
	}
	{
		struct rjob *j = xcalloc(1, sizeof(*j));

		j->slot = c->slot;
		j->gen = c->gen;
		memcpy(j->host, c->req.host, sizeof(j->host));
		j->port = c->req.port;
		c->state = C_RESOLVE;
		watch(c, TOK_CLIENT, 0);
		resolver_submit(P.res, j);
	}
}

static void
head_step(struct conn *c)
{
	for (;;) {
		ssize_t n;

		if (c->headlen == HTTP_HEAD_MAX) {
			respond(c, "malformed", 431, "the request head is "
			    "longer than %d bytes", HTTP_HEAD_MAX);
			return;
		}
		n = recv(c->cfd, c->head + c->headlen,
		    HTTP_HEAD_MAX - c->headlen, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && again()) {
			watch(c, TOK_CLIENT, EPOLLIN);
			return;
		}
		if (n <= 0) {
			if (n < 0)
				snprintf(c->error, sizeof(c->error),
				    "client: %s", strerror(errno));
			conn_close(c);
			return;
		}
		c->headlen += (size_t)n;
		c->head_end = http_head_end(c->head, c->headlen, &c->scan);
		if (c->head_end) {
			decide(c);
			return;
		}
	}
}

/* ---- accepting ------------------------------------------------------ */

static void
describe_client(struct conn *c, const struct sockaddr_storage *ss)
{
	struct eg_addr a;
	char text[EG_ADDRSTRLEN];

	if (ss->ss_family == AF_UNIX) {
		struct ucred cred;
		socklen_t len = sizeof(cred);

		if (getsockopt(c->cfd, SOL_SOCKET, SO_PEERCRED, &cred,
		    &len) == 0)
			snprintf(c->client, sizeof(c->client),
			    "unix:pid=%ld,uid=%ld", (long)cred.pid,
			    (long)cred.uid);
		else
			snprintf(c->client, sizeof(c->client), "unix");
		return;
	}
	if (!addr_from_sockaddr((const struct sockaddr *)ss, &a)) {
		snprintf(c->client, sizeof(c->client), "unknown");
		return;
	}
	addr_format(&a, text, sizeof(text));
	snprintf(c->client, sizeof(c->client),
	    addr_is_v4(&a) ? "%s:%u" : "[%s]:%u", text,
	    ntohs(((const struct sockaddr_in *)ss)->sin_port));
}

static void
conn_start(struct conn *c, int fd, const struct sockaddr_storage *ss)
{
	c->cfd = fd;
	c->ufd = -1;
	c->creg = c->ureg = false;
	c->cmask = c->umask = 0;
	c->start_us = now_us();
	clock_gettime(CLOCK_REALTIME, &c->start_wall);
	c->headlen = c->scan = c->head_end = 0;
	c->have_req = c->have_addr = false;
	memset(&c->req, 0, sizeof(c->req));
	c->naddr = c->iaddr = 0;
	c->connect_errno = 0;
	c->verdict = NULL;
	c->status = 0;
	c->reason[0] = c->error[0] = '\0';
	c->tunnel = false;
	dir_reset(&c->up);
	dir_reset(&c->down);
	if (!c->head)
		c->head = xmalloc(HTTP_HEAD_MAX);
	describe_client(c, ss);
	if (ss->ss_family != AF_UNIX)
		set_nodelay(fd);
	if (c->spare) {
		respond(c, "overloaded", 503, "too many connections "
		    "(the limit is %u)", P.max_conns);
		return;
	}
	c->state = C_HEAD;
	tq_add(&P.q_head, c);
	head_step(c);
}

static void
update_listener(void)
{
	bool room = !P.stopping &&
	    (P.nreal < P.max_conns || P.nspare < SPARE_CONNS);
	struct epoll_event ev;

	if (room == P.lreg)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = TOK_LISTEN;
	/* With no slot left, new clients wait in the kernel's backlog. */
	if (epoll_ctl(P.epfd, room ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, P.lfd,
	    &ev) < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot watch the listening "
		    "socket: %s", strerror(errno));
	P.lreg = room;
}

static void
accept_some(void)
{
	unsigned i;

	for (i = 0; i < 64; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		struct conn *c;
		bool spare = P.nreal >= P.max_conns;
		int fd;

		/* Slots closed in this batch come back after it. */
		if (!P.nfree || (spare && P.nspare >= SPARE_CONNS))
			break;
		fd = accept4(P.lfd, (struct sockaddr *)&ss, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if ((errno == EMFILE || errno == ENFILE) &&
			    P.reservefd >= 0) {
				/* Out of descriptors despite the limit we
				 * set: free the reserve to take the client
				 * off the backlog and close it. */
				close_fd(&P.reservefd);
				fd = accept4(P.lfd, NULL, NULL, SOCK_CLOEXEC);
				if (fd >= 0)
					close_fd(&fd);
				P.reservefd = open("/dev/null",
				    O_RDONLY | O_CLOEXEC);
			}
			break;
		}
		c = slot_take(spare);
		if (!c) {
			close_fd(&fd);
			break;
		}
		conn_start(c, fd, &ss);
	}
	update_listener();
}

/* ---- timers --------------------------------------------------------- */

static int
next_timeout(void)
{
	struct tq *qs[] = { &P.q_head, &P.q_connect, &P.q_linger };
	uint64_t now = now_ms(), soonest = UINT64_MAX;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(qs); i++)
		if (qs[i]->head && qs[i]->head->deadline < soonest)
			soonest = qs[i]->head->deadline;
	if (soonest == UINT64_MAX)
		return -1;
	if (soonest <= now)
		return 0;
	return soonest - now > INT_MAX ? INT_MAX : (int)(soonest - now);
}

static void
expire(void)
{
	uint64_t now = now_ms();
	struct conn *c;

	while ((c = P.q_head.head) && c->deadline <= now) {
		tq_del(c);
		respond(c, "timeout", 408, "the request head was not complete "
		    "within %u s", P.header_timeout_ms / 1000);
	}
	while ((c = P.q_connect.head) && c->deadline <= now) {
		tq_del(c);
		respond(c, "failed", 504, "no connection to '%s' port %u "
		    "within %d s", c->req.host, c->req.port,
		    CONNECT_TIMEOUT_MS / 1000);
	}
	while ((c = P.q_linger.head) && c->deadline <= now) {
		if (c->state == C_RESPOND)
			snprintf(c->error, sizeof(c->error),
			    "client: did not read the answer");
		conn_close(c);
	}
}

/* ---- events --------------------------------------------------------- */

static void
conn_event(struct conn *c, int side, uint32_t ev)
{
	switch (c->state) {
	case C_HEAD:
		if (side == TOK_CLIENT)
			head_step(c);
		break;
	case C_CONNECT:
		if (side == TOK_UPSTREAM)
			connect_done(c);
		break;
	case C_RELAY:
		relay_step(c, side == TOK_CLIENT ? ev : 0,
		    side == TOK_UPSTREAM ? ev : 0);
		break;
	case C_RESPOND:
		respond_step(c);
		break;
	case C_LINGER:
		linger_step(c);
		break;
	case C_RESOLVE:
	case C_FREE:
		break;
	}
}

static void
answers(void)
{
	struct rjob *j, *next;

	for (j = resolver_done(P.res); j; j = next) {
		struct conn *c = &P.conns[j->slot];

		next = j->next;
		/* The client may have gone, and the slot moved on. */
		if (c->gen == j->gen && c->state == C_RESOLVE)
			resolved(c, j);
		rjob_free(j);
	}
}

static void
stop_all(const char *why)
{
	unsigned i;

	P.stopping = true;
	for (i = 0; i < P.nslots; i++) {
		struct conn *c = &P.conns[i];

		if (c->state == C_FREE)
			continue;
		if (!c->verdict)
			set_reason(c, "closed", 0, "the proxy stopped");
		if (!c->error[0])
			snprintf(c->error, sizeof(c->error), "%s", why);
		conn_close(c);
	}
	release_later();
}

static void
run(void)
{
	struct epoll_event evs[64];

	while (!P.stopping) {
		int n, i;

		n = epoll_wait(P.epfd, evs, (int)ARRAY_SIZE(evs),
		    next_timeout());
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die_mgs(MGS_RUNTIME, NULL, "cannot wait for events: %s",
			    strerror(errno));
		}
		for (i = 0; i < n && !P.stopping; i++) {
			uint64_t tok = evs[i].data.u64;

			if (tok == TOK_LISTEN) {
				accept_some();
			} else if (tok == TOK_RESOLVER) {
				answers();
			} else if (tok == TOK_SIGNAL) {
				struct signalfd_siginfo si;

				if (read(P.sigfd, &si, sizeof(si)) ==
				    (ssize_t)sizeof(si)) {
					char why[64];

					snprintf(why, sizeof(why), "proxy "
					    "stopped by %s",
					    sigabbrev_np((int)si.ssi_signo));
					stop_all(why);
				}
			} else {
				conn_event(&P.conns[tok >> 2], (int)(tok & 3),
				    evs[i].events);
			}
		}
		if (!P.stopping)
			expire();
		release_later();
	}
}

/* ---- start-up ------------------------------------------------------- */

static void
load_allow_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *next;
	unsigned lineno = 0;

	if (strbuf_read_file(&sb, path) < 0)
		die_mgs(MGS_ALLOW_FILE, NULL, "cannot read the allow file "
		    "'%s': %s", path, strerror(errno));
	for (line = sb.buf; line && *line; line = next) {
		const char *why;
		char *p, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		end = p + strlen(p);
		while (end > p && strchr(" \t\r", end[-1]))
			*--end = '\0';
		if (!*p)
			continue;
		if ((why = allow_add(&P.allow, p)) != NULL)
			die_mgs(MGS_ALLOW_ENTRY, NULL, "%s:%u: allow entry "
			    "'%s' refused: %s", path, lineno, p, why);
	}
	strbuf_release(&sb);
}

static int
open_log(const char *spec)
{
	int fd;

	if (!spec)
		return STDERR_FILENO;
	if (!strcmp(spec, "-"))
		return STDOUT_FILENO;
	fd = open(spec, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
	    0600);
	if (fd < 0)
		die_mgs(MGS_LOG_FILE, NULL, "cannot open the log file '%s': %s",
		    spec, strerror(errno));
	return fd;
}

/* A stale socket (nobody accepting) may be replaced; anything else not. */
static void
clear_unix_path(const char *path)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return;
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': %s", path,
		    strerror(errno));
	}
	if (!S_ISSOCK(st.st_mode))
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': it exists "
		    "and is not a socket", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': %s", path,
		    strerror(errno));
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': another "
		    "process accepts connections there", path);
	if (errno != ECONNREFUSED)
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': %s", path,
		    strerror(errno));
	close_fd(&fd);
	if (unlink(path) < 0 && errno != ENOENT)
		die_mgs(MGS_LISTEN, NULL, "cannot remove the stale socket "
		    "'%s': %s", path, strerror(errno));
}

/*
 * Listen on a unix socket.  The socket is bound under a temporary name
 * and renamed into place once it listens, so a caller that waits for PATH
 * to appear never finds it refusing connections.  Mode 0600: only our
 * user (the sandbox's forwarder) connects.
 */
static int
listen_unix(const char *path, struct strbuf *where)
{
	struct sockaddr_un sun;
	struct strbuf tmp = STRBUF_INIT;
	struct stat st;
	mode_t old;
	const char *slash = strrchr(path, '/');
	int fd;

	if (!*path)
		die_mgs(MGS_USAGE, NULL, "--listen unix: needs a path");
	strbuf_add(&tmp, path, slash ? (size_t)(slash - path + 1) : 0);
	strbuf_addf(&tmp, ".magus-egress.%ld", (long)getpid());
	if (strlen(path) >= sizeof(sun.sun_path) ||
	    tmp.len >= sizeof(sun.sun_path))
		die_mgs(MGS_LISTEN, "a unix socket's path is limited to about "
		    "100 bytes; choose a shorter one", "cannot listen on '%s': "
		    "the path is too long", path);
	clear_unix_path(path);
	(void)unlink(tmp.buf);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': %s", path,
		    strerror(errno));
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, tmp.buf, tmp.len + 1);
	old = umask(077);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		umask(old);
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': %s", path,
		    strerror(errno));
	}
	umask(old);
	if (listen(fd, SOMAXCONN) < 0 || rename(tmp.buf, path) < 0 ||
	    stat(path, &st) < 0) {
		int err = errno;

		(void)unlink(tmp.buf);
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': %s", path,
		    strerror(err));
	}
	P.unix_path = xstrdup(path);
	P.unix_dev = st.st_dev;
	P.unix_ino = st.st_ino;
	strbuf_addf(where, "unix:%s", path);
	strbuf_release(&tmp);
	return fd;
}

/* 127.0.0.1:PORT, any 127/8 address, or [::1]:PORT; PORT 0 picks one. */
static int
listen_tcp(const char *arg, struct strbuf *where)
{
	const char *spec = arg;
	struct sockaddr_storage ss;
	struct eg_addr a;
	char host[EG_ADDRSTRLEN + 1], text[EG_ADDRSTRLEN];
	const char *colon;
	socklen_t sl;
	long port;
	int fd, one = 1;
	size_t hn;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		colon = close && close[1] == ':' ? close + 1 : NULL;
		hn = close ? (size_t)(close - spec - 1) : 0;
		spec++;
	} else {
		colon = strrchr(spec, ':');
		hn = colon ? (size_t)(colon - spec) : 0;
	}
	if (!colon || !hn || hn >= sizeof(host) ||
	    !parse_long(colon + 1, 0, 65535, &port))
		die_mgs(MGS_USAGE, "write --listen unix:PATH or --listen "
		    "127.0.0.1:PORT", "--listen '%s' is not unix:PATH or "
		    "ADDRESS:PORT", arg);
	memcpy(host, spec, hn);
	host[hn] = '\0';
	if (!addr_parse(host, &a))
		die_mgs(MGS_USAGE, NULL, "--listen: '%s' is not an IP address",
		    host);
	if (!addr_class(&a) || strcmp(addr_class(&a), "loopback"))
		die_mgs(MGS_USAGE, "an allowlist proxy reachable from other "
		    "machines would be anyone's way out", "--listen: '%s' is "
		    "not a loopback address", host);
	sl = addr_to_sockaddr(&a, (unsigned)port, &ss);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, sl) < 0 ||
	    listen(fd, SOMAXCONN) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		die_mgs(MGS_LISTEN, NULL, "cannot listen on '%s': %s", arg,
		    strerror(errno));
	addr_format(&a, text, sizeof(text));
	strbuf_addf(where, addr_is_v4(&a) ? "%s:%u" : "[%s]:%u", text,
	    ntohs(((struct sockaddr_in *)&ss)->sin_port));
	return fd;
}

/* Room for every connection's descriptors, or a refusal now. */
static void
fd_budget(unsigned slots)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)slots * FDS_PER_CONN + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot read the descriptor limit: "
		    "%s", strerror(errno));
	if (rl.rlim_cur >= need)
		return;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		die_mgs(MGS_USAGE, "lower --max-conns or raise the hard limit "
		    "(ulimit -Hn)", "--max-conns %u needs %lu file descriptors "
		    "and the limit is %lu", P.max_conns, (unsigned long)need,
		    (unsigned long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot raise the descriptor limit: "
		    "%s", strerror(errno));
}

enum {
	OPT_LISTEN = 256, OPT_ALLOW, OPT_ALLOW_FILE, OPT_LOG, OPT_MAX_CONNS,
	OPT_HEADER_TIMEOUT, OPT_READY_FD, OPT_DIE_WITH_PARENT, OPT_HELP,
};

static const struct option options[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "allow", required_argument, NULL, OPT_ALLOW },
	{ "allow-file", required_argument, NULL, OPT_ALLOW_FILE },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "max-conns", required_argument, NULL, OPT_MAX_CONNS },
	{ "header-timeout", required_argument, NULL, OPT_HEADER_TIMEOUT },
	{ "ready-fd", required_argument, NULL, OPT_READY_FD },
	{ "die-with-parent", no_argument, NULL, OPT_DIE_WITH_PARENT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static NORETURN PRINTF_LIKE(1, 2) void
bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(MGS_USAGE, "run 'magus-egress --help' for the usage", fmt, ap);
	va_end(ap);
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *listen_spec = NULL, *log_spec = NULL;
	struct strvec files = STRVEC_INIT;
	struct strbuf where = STRBUF_INIT;
	struct epoll_event ev;
	sigset_t sigs;
	long v, ready_fd = -1;
	bool die_with_parent = false;
	pid_t parent = getppid();
	unsigned i;
	int opt;

	sane_start();
	diag_init(argv[0]);
	P.max_conns = DEFAULT_MAX_CONNS;
	P.header_timeout_ms = DEFAULT_HEADER_TIMEOUT * 1000;
	P.reservefd = -1;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		const char *why;

		switch (opt) {
		case OPT_LISTEN:
			listen_spec = optarg;
			break;
		case OPT_ALLOW:
			if ((why = allow_add(&P.allow, optarg)) != NULL)
				die_mgs(MGS_ALLOW_ENTRY, NULL, "allow entry "
				    "'%s' refused: %s", optarg, why);
			break;
		case OPT_ALLOW_FILE:
			strvec_push(&files, optarg);
			break;
		case OPT_LOG:
			log_spec = optarg;
			break;
		case OPT_MAX_CONNS:
			if (!parse_long(optarg, 1, 65536, &v))
				bad_usage("--max-conns '%s' is not a number "
				    "from 1 to 65536", optarg);
			P.max_conns = (unsigned)v;
			break;
		case OPT_HEADER_TIMEOUT:
			if (!parse_long(optarg, 1, 3600, &v))
				bad_usage("--header-timeout '%s' is not a "
				    "number of seconds from 1 to 3600", optarg);
			P.header_timeout_ms = (unsigned)v * 1000;
			break;
		case OPT_READY_FD:
			if (!parse_long(optarg, 0, INT_MAX, &ready_fd) ||
			    fcntl((int)ready_fd, F_SETFD, FD_CLOEXEC) < 0)
				bad_usage("--ready-fd '%s' is not an open file "
				    "descriptor", optarg);
			break;
		case OPT_DIE_WITH_PARENT:
			die_with_parent = true;
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		case ':':
			bad_usage("option '%s' needs an argument",
			    argv[optind - 1]);
		default:
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (!listen_spec)
		bad_usage("%s", "--listen is required");
	for (i = 0; i < files.n; i++)
		load_allow_file(files.v[i]);
	strvec_clear(&files);
	P.logfd = open_log(log_spec);

	/* Signals arrive through a descriptor the loop polls. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die_mgs(MGS_RUNTIME, NULL, "cannot ignore SIGPIPE: %s",
		    strerror(errno));
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) < 0 ||
	    (P.sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot set up signals: %s",
		    strerror(errno));
	if (die_with_parent) {
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
			die_mgs(MGS_RUNTIME, NULL, "cannot ask to die with "
			    "the parent: %s", strerror(errno));
		/* The parent may have gone before we asked. */
		if (getppid() != parent)
			return 0;
	}

	P.nslots = P.max_conns + SPARE_CONNS;
	fd_budget(P.nslots);
	P.reservefd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (P.reservefd < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot open '/dev/null': %s",
		    strerror(errno));
	if (starts_with(listen_spec, "unix:"))
		P.lfd = listen_unix(listen_spec + 5, &where);
	else
		P.lfd = listen_tcp(listen_spec, &where);

	P.conns = xcalloc(P.nslots, sizeof(*P.conns));
	P.freelist = xcalloc(P.nslots, sizeof(*P.freelist));
	P.later = xcalloc(P.nslots, sizeof(struct conn *));
	for (i = 0; i < P.nslots; i++) {
		struct conn *c = &P.conns[P.nslots - 1 - i];

		c->slot = P.nslots - 1 - i;
		c->cfd = c->ufd = -1;
		strbuf_init(&c->out, 0);
		P.freelist[P.nfree++] = c->slot;
	}
	P.q_head.ms = P.header_timeout_ms;
	P.q_connect.ms = CONNECT_TIMEOUT_MS;
	P.q_linger.ms = LINGER_MS;

	P.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (P.epfd < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot create an epoll instance: "
		    "%s", strerror(errno));
	P.res = resolver_start(RESOLVER_THREADS);
	if (!P.res)
		die_mgs(MGS_RUNTIME, NULL, "cannot start the resolver "
		    "threads: %s", strerror(errno));
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = TOK_SIGNAL;
	if (epoll_ctl(P.epfd, EPOLL_CTL_ADD, P.sigfd, &ev) < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot watch signals: %s",
		    strerror(errno));
	ev.data.u64 = TOK_RESOLVER;
	if (epoll_ctl(P.epfd, EPOLL_CTL_ADD, resolver_fd(P.res), &ev) < 0)
		die_mgs(MGS_RUNTIME, NULL, "cannot watch the resolver: %s",
		    strerror(errno));
	update_listener();

	/* Ready: say where, once, and let the caller see the end of it. */
	if (ready_fd >= 0) {
		int rfd = (int)ready_fd;

		strbuf_addch(&where, '\n');
		if (write(rfd, where.buf, where.len) != (ssize_t)where.len)
			die_mgs(MGS_RUNTIME, NULL, "cannot write to --ready-fd "
			    "%d: %s", rfd, strerror(errno));
		close_fd(&rfd);
	}
	strbuf_release(&where);

	run();

	/* Remove our socket, unless someone replaced it meanwhile. */
	if (P.unix_path) {
		struct stat st;

		if (lstat(P.unix_path, &st) == 0 && st.st_dev == P.unix_dev &&
		    st.st_ino == P.unix_ino)
			(void)unlink(P.unix_path);
		free(P.unix_path);
	}
	resolver_stop(P.res);
	close_fd(&P.lfd);
	close_fd(&P.epfd);
	close_fd(&P.sigfd);
	close_fd(&P.reservefd);
	for (i = 0; i < P.nslots; i++) {
		free(P.conns[i].head);
		free(P.conns[i].up.buf);
		free(P.conns[i].down.buf);
		strbuf_release(&P.conns[i].out);
	}
	free(P.conns);
	free(P.freelist);
	free(P.later);
	allowlist_clear(&P.allow);
	strbuf_release(&P.line);
	if (P.logfd > STDERR_FILENO)
		close_fd(&P.logfd);
	return 0;
}
