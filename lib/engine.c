/*
 * engine.c: the Engine API client's ordinary requests, over libcurl.
 * The attach and the wait live in engine-stream.c.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "diag.h"
#include "engine-internal.h"
#include "engine-proto.h"
#include "engine.h"
#include "json.h"
#include "jsonread.h"
#include "strbuf.h"
#include "strvec.h"
#include "xalloc.h"

/* An ordinary answer larger than this is refused rather than buffered. */
#define ENGINE_BODY_MAX (64u << 20)
/* How much of an engine's message a diagnostic quotes. */
#define ENGINE_MSG_MAX 400

/* ---- errors -------------------------------------------------------- */

int
eng_fail(struct engine *e, enum engine_errkind kind, int mgs, int http,
    const char *fmt, ...)
{
	va_list ap;

	e->err.kind = kind;
	e->err.mgs = mgs;
	e->err.http = http;
	strbuf_reset(&e->err.msg);
	strbuf_reset(&e->err.hint);
	va_start(ap, fmt);
	strbuf_vaddf(&e->err.msg, fmt, ap);
	va_end(ap);
	return -1;
}

void
eng_hint(struct engine *e, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(&e->err.hint);
	va_start(ap, fmt);
	strbuf_vaddf(&e->err.hint, fmt, ap);
	va_end(ap);
}

int
eng_fail_connect(struct engine *e, int errnum)
{
	eng_fail(e, ENGINE_E_CONNECT, 3002, 0, "cannot connect to '%s': %s",
	    e->sock.buf, strerror(errnum));
	eng_hint(e, "start the container runtime that serves '%s' (podman "
	    "system service, Docker, Colima, ...), then run this again",
	    e->sock.buf);
	return -1;
}

const char *
eng_short_id(const char *id, char buf[16])
{
	size_t n = strlen(id), i;

	if (n != 64)
		return id;
	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", id[i]))
			return id;
	memcpy(buf, id, 12);
	buf[12] = '\0';
	return buf;
}

int64_t
eng_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The engine's message: {"message":...} when JSON, else the text. */
static void
answer_message(struct strbuf *out, const char *body, size_t len)
{
	struct jsonr j;
	struct strbuf m = STRBUF_INIT;

	if (len && jsonr_parse(&j, body, len) == 0) {
		if (jsonr_str(&j, jsonr_get(&j, 0, "message"), &m) < 0)
			jsonr_str(&j, jsonr_get(&j, 0, "cause"), &m);
		jsonr_release(&j);
	}
	if (!m.len)
		strbuf_add(&m, body, len);
	engine_clean_text(out, m.buf, m.len, ENGINE_MSG_MAX);
	strbuf_release(&m);
}

static bool
contains(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

/*
 * The path an engine's mount complaint names, when it is one:
 *   Docker:  bind source path does not exist: /x
 *   Docker Desktop:  The path /x is not shared from the host ...
 *   podman at start:  error mounting "/x" to rootfs at "/y": stat /x: ...
 */
static bool
mount_complaint(const char *m, struct strbuf *path)
{
	const char *p, *q;

	if ((p = strstr(m, "bind source path does not exist: "))) {
		p += strlen("bind source path does not exist: ");
		q = p + strcspn(p, " \"");
	} else if ((p = strstr(m, "The path ")) &&
	    (q = strstr(p, " is not shared from"))) {
		p += strlen("The path ");
	} else if (contains(m, "no such file or directory") &&
	    (p = strstr(m, "error mounting \""))) {
		p += strlen("error mounting \"");
		q = strchr(p, '"');
		if (!q)
			return false;
	} else if (contains(m, "mounts denied") ||
	    contains(m, "Mounts denied")) {
		strbuf_addstr(path, "?");
		return true;
	} else {
		return false;
	}
	strbuf_add(path, p, (size_t)(q - p));
	return true;
}

int
eng_answer_error(struct engine *e, int http, const char *body, size_t len,
    const char *what)
{
	struct strbuf m = STRBUF_INIT, path = STRBUF_INIT;
	enum engine_errkind kind = ENGINE_E_ENGINE;

	answer_message(&m, body, len);
	if (!m.len)
		strbuf_addstr(&m, "(no message)");
	if (http == 404)
		kind = ENGINE_E_NOTFOUND;
	else if (http == 409 ||
	    (http == 500 && (contains(m.buf, "container state improper") ||
	    contains(m.buf, "is being used") ||
	    contains(m.buf, "is already in use") ||
	    contains(m.buf, "as it is running"))))
		kind = ENGINE_E_CONFLICT;
	if (kind == ENGINE_E_ENGINE && mount_complaint(m.buf, &path)) {
		eng_fail(e, ENGINE_E_MOUNT, 3007, http, "engine at '%s' "
		    "cannot %s: bind mount source '%s' is missing or not "
		    "shared with the engine: %s", e->sock.buf, what,
		    path.buf, m.buf);
		eng_hint(e, "make '%s' exist and, for an engine in a VM, add "
		    "it to the runtime's file sharing", path.buf);
	} else {
		eng_fail(e, kind, 3006, http, "engine at '%s' refused to %s "
		    "(HTTP %d): %s", e->sock.buf, what, http, m.buf);
	}
	strbuf_release(&m);
	strbuf_release(&path);
	return -1;
}

/* ---- the client -------------------------------------------------------- */

static int curl_users;

int
engine_open(struct engine **ep, const char *url)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	int code;

	strbuf_init(&e->sock, 0);
	strbuf_init(&e->err.msg, 0);
	strbuf_init(&e->err.hint, 0);
	e->connect_ms = ENGINE_CONNECT_TIMEOUT_MS;
	e->request_ms = ENGINE_REQUEST_TIMEOUT_MS;
	*ep = e;
	code = engine_url_socket(url, &e->sock, &e->err.msg);
	if (code) {
		e->err.kind = ENGINE_E_URL;
		e->err.mgs = code;
		if (code == 3001)
			strbuf_addstr(&e->err.hint, "name the engine's unix "
			    "socket, as in unix:///run/user/1000/podman/"
			    "podman.sock");
		else
			strbuf_addstr(&e->err.hint, "serve the engine on a "
			    "shorter path, or link a shorter path to the "
			    "socket's directory");
		return -1;
	}
	return 0;
}

void
engine_free(struct engine *e)
{
	if (!e)
		return;
	if (e->curl) {
		curl_easy_cleanup(e->curl);
		curl_slist_free_all(e->headers_post);
		curl_slist_free_all(e->headers_get);
		if (--curl_users == 0)
			curl_global_cleanup();
	}
	strbuf_release(&e->sock);
	strbuf_release(&e->err.msg);
	strbuf_release(&e->err.hint);
	free(e);
}

const char *
engine_socket(const struct engine *e)
{
	return e->sock.buf;
}

void
engine_set_timeouts(struct engine *e, int connect_ms, int request_ms)
{
	if (connect_ms > 0)
		e->connect_ms = connect_ms;
	if (request_ms > 0)
		e->request_ms = request_ms;
}

const struct engine_error *
engine_error(const struct engine *e)
{
	return &e->err;
}

void
engine_clear_error(struct engine *e)
{
	e->err.kind = ENGINE_E_NONE;
	e->err.mgs = 0;
	e->err.http = 0;
	strbuf_reset(&e->err.msg);
	strbuf_reset(&e->err.hint);
}

void
engine_diag(const struct engine *e)
{
	const char *hint = e->err.hint.len ? e->err.hint.buf : NULL;
	const char *msg = e->err.msg.len ? e->err.msg.buf :
	    "container engine error";

	if (e->err.mgs)
		diag(e->err.mgs, hint, "%s", msg);
	else
		diag(0, hint, "%s", msg);
}

void
engine_die(const struct engine *e)
{
	const struct mgs_entry *m = e->err.mgs ? mgs_lookup(e->err.mgs) : NULL;

	engine_diag(e);
	exit(m && m->status ? m->status : 71);
}

const struct engine_version *
engine_version(const struct engine *e)
{
	return e->connected ? &e->ver : NULL;
}

/* ---- one request over libcurl ---------------------------------------- */

struct response {
	long status;
	struct strbuf body;
	bool too_large;
	char api_version[16];
	/* A streamed 200 body goes here instead of into `body`. */
	int (*stream)(void *ctx, const char *buf, size_t len);
	void *ctx;
	CURL *curl;
	int stream_err;
};

static size_t
on_body(char *data, size_t size, size_t n, void *arg)
{
	struct response *r = arg;
	size_t len = size * n;
	long status = 0;

	if (r->stream) {
		curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
		if (status == 200) {
			r->stream_err = r->stream(r->ctx, data, len);
			return r->stream_err ? 0 : len;
		}
	}
	if (r->body.len + len > ENGINE_BODY_MAX) {
		r->too_large = true;
		return 0;
	}
	strbuf_add(&r->body, data, len);
	return len;
}

static size_t
on_header(char *data, size_t size, size_t n, void *arg)
{
	struct response *r = arg;
	size_t len = size * n, k = strlen("api-version:");

	if (len > k && !strncasecmp(data, "api-version:", k)) {
		struct strbuf v = STRBUF_INIT;

		strbuf_add(&v, data + k, len - k);
		strbuf_rtrim(&v);
		snprintf(r->api_version, sizeof(r->api_version), "%s",
		    v.buf + strspn(v.buf, " \t"));
		strbuf_release(&v);
	}
	return len;
}

/* Every socket curl opens is close-on-exec. */
static curl_socket_t
open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	(void)arg;
	(void)purpose;
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

/*
 * libcurl 7.88's easy interface makes a socketpair (to wake its internal
 * multi handle) without close-on-exec, and offers no way to ask for it.
 * New descriptors are always the lowest free ones: note which of the
 * next few are open before a transfer and mark the ones that appear
 * during it.  Nothing forks while libcurl runs, so none can leak.
 */
#define FD_WINDOW 64

struct fd_window {
	int base;
	bool open[FD_WINDOW];
};

static void
fd_window_note(struct fd_window *w)
{
	int probe = fcntl(0, F_DUPFD_CLOEXEC, 0), i;

	w->base = probe >= 0 ? probe : 0;
	if (probe >= 0)
		close(probe);
	for (i = 0; i < FD_WINDOW; i++)
		w->open[i] = fcntl(w->base + i, F_GETFD) >= 0;
}

static void
fd_window_cloexec(const struct fd_window *w)
{
	int i, flags;

	for (i = 0; i < FD_WINDOW; i++) {
		if (w->open[i])
			continue;
		flags = fcntl(w->base + i, F_GETFD);
		if (flags >= 0 && !(flags & FD_CLOEXEC))
			fcntl(w->base + i, F_SETFD, flags | FD_CLOEXEC);
	}
}

static int
curl_ready(struct engine *e)
{
	struct curl_slist *h;

	if (e->curl)
		return 0;
	if (curl_users == 0 && curl_global_init(CURL_GLOBAL_NOTHING))
		return eng_fail(e, ENGINE_E_HOST, 0, 0,
		    "cannot initialize libcurl");
	curl_users++;
	e->curl = curl_easy_init();
	if (!e->curl) {
		if (--curl_users == 0)
			curl_global_cleanup();
		return eng_fail(e, ENGINE_E_HOST, 0, 0,
		    "cannot initialize libcurl");
	}
	/* "Expect:" stops curl waiting for a 100 Continue on large bodies. */
	h = curl_slist_append(NULL, "Content-Type: application/json");
	h = h ? curl_slist_append(h, "Expect:") : NULL;
	e->headers_post = h;
	e->headers_get = curl_slist_append(NULL, "Expect:");
	if (!e->headers_post || !e->headers_get)
		return eng_fail(e, ENGINE_E_HOST, 0, 0, "out of memory");
	return 0;
}

/*
 * Send one request and collect the answer, whatever its status.
 * Returns 0 when an answer came, -1 when none did (3002 when the socket
 * could not be reached, 3032 for anything after that).  `path` starts
 * with '/' and is put after the version prefix when `versioned`.
 */
static int
request(struct engine *e, const char *method, const char *path,
    bool versioned, const char *body, size_t len, struct response *r,
    long timeout_ms)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct strbuf url = STRBUF_INIT;
	struct fd_window fds;
	CURL *c;
	CURLcode rc;
	int bad = CURLE_OK;
	long os_errno = 0;
	bool post = !strcmp(method, "POST");

	if (curl_ready(e) < 0)
		return -1;
	c = e->curl;
	curl_easy_reset(c);
	strbuf_addf(&url, "http://localhost%s%s", versioned ? e->prefix : "",
	    path);
	r->curl = c;
	/* Every option matters (without the socket path libcurl would
	 * use TCP): one refused is a failure, not a degraded request. */
	bad |= curl_easy_setopt(c, CURLOPT_URL, url.buf);
	bad |= curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, e->sock.buf);
	/* Told, never found: no proxy from the environment, no netrc. */
	bad |= curl_easy_setopt(c, CURLOPT_PROXY, "");
	bad |= curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	bad |= curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	bad |= curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	bad |= curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
#else
	bad |= curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
	bad |= curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	bad |= curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_socket);
	bad |= curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
	    (long)e->connect_ms);
	bad |= curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	bad |= curl_easy_setopt(c, CURLOPT_USERAGENT, "magus/" PACKAGE_VERSION);
	bad |= curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	bad |= curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	bad |= curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	bad |= curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	bad |= curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	if (post) {
		/* The body goes as given, byte for byte, even when empty. */
		bad |= curl_easy_setopt(c, CURLOPT_POST, 1L);
		bad |= curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)len);
		bad |= curl_easy_setopt(c, CURLOPT_POSTFIELDS, len ? body : "");
		bad |= curl_easy_setopt(c, CURLOPT_HTTPHEADER, e->headers_post);
	} else {
		bad |= curl_easy_setopt(c, CURLOPT_HTTPHEADER, e->headers_get);
		if (strcmp(method, "GET"))
			bad |= curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST,
			    method);
	}
	if (bad != CURLE_OK) {
		strbuf_release(&url);
		return eng_fail(e, ENGINE_E_HOST, 0, 0, "this libcurl lacks "
		    "an option the engine client needs (unix sockets?)");
	}
	fd_window_note(&fds);
	rc = curl_easy_perform(c);
	fd_window_cloexec(&fds);
	if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status) !=
	    CURLE_OK)
		r->status = 0;
	if (curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno) != CURLE_OK)
		os_errno = 0;
	strbuf_release(&url);
	if (rc == CURLE_OK)
		return 0;
	if (rc == CURLE_COULDNT_CONNECT)
		return eng_fail_connect(e, os_errno ? (int)os_errno :
		    ECONNREFUSED);
	if (rc == CURLE_WRITE_ERROR && r->too_large)
		return eng_fail(e, ENGINE_E_PROTO, 3032, (int)r->status,
		    "engine at '%s' sent more than %u MiB for %s %s",
		    e->sock.buf, ENGINE_BODY_MAX >> 20, method, path);
	if (rc == CURLE_WRITE_ERROR && r->stream_err)
		return -1;	/* the stream callback recorded it */
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return eng_fail(e, ENGINE_E_PROTO, 3032, 0, "engine at '%s' "
		    "did not answer %s %s within %ld ms", e->sock.buf,
		    method, path, timeout_ms);
	return eng_fail(e, ENGINE_E_PROTO, 3032, 0, "engine at '%s' failed "
	    "%s %s: %s", e->sock.buf, method, path,
	    *errbuf ? errbuf : curl_easy_strerror(rc));
}

static void
response_init(struct response *r)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->body, 0);
}

/*
 * A request whose success is one of `ok1`/`ok2` (0: unused); anything
 * else becomes the classified error for `what`.
 */
static int
call(struct engine *e, const char *method, const char *path, const char *body,
    size_t len, struct response *r, int ok1, int ok2, const char *what)
{
	if (!e->connected)
		return eng_fail(e, ENGINE_E_USAGE, 0, 0, "internal error: %s "
		    "before engine_connect", what);
	if (request(e, method, path, true, body, len, r, e->request_ms) < 0)
		return -1;
	if (r->status == ok1 || (ok2 && r->status == ok2))
		return 0;
	return eng_answer_error(e, (int)r->status, r->body.buf, r->body.len,
	    what);
}

/* Parse an answer that must be JSON; 3032 when it is not. */
static int
parse_answer(struct engine *e, struct jsonr *j, const struct response *r,
    const char *what)
{
	if (jsonr_parse(j, r->body.buf, r->body.len) == 0)
		return 0;
	return eng_fail(e, ENGINE_E_PROTO, 3032, (int)r->status, "engine at "
	    "'%s' answered %s with something that is not JSON",
	    e->sock.buf, what);
}

/* ---- version negotiation ------------------------------------------------ */

static void
copy_str(char *dst, size_t size, const struct jsonr *j, int tok)
{
	struct strbuf raw = STRBUF_INIT, sb = STRBUF_INIT;

	if (jsonr_str(j, tok, &raw) == 0)
		engine_clean_text(&sb, raw.buf, raw.len, size - 1);
	snprintf(dst, size, "%s", sb.buf);
	strbuf_release(&raw);
	strbuf_release(&sb);
}

/* GET /version (unversioned) into e->ver; the API fields too. */
static int
get_version(struct engine *e)
{
	struct response r;
	struct jsonr j;
	int comps, ret = -1;

	response_init(&r);
	if (request(e, "GET", "/version", false, NULL, 0, &r,
	    e->request_ms) < 0)
		goto out;
	if (r.status != 200) {
		eng_answer_error(e, (int)r.status, r.body.buf, r.body.len,
		    "answer /version");
		goto out;
	}
	if (parse_answer(e, &j, &r, "/version") < 0)
		goto out;
	copy_str(e->ver.api, sizeof(e->ver.api), &j,
	    jsonr_get(&j, 0, "ApiVersion"));
	copy_str(e->ver.min_api, sizeof(e->ver.min_api), &j,
	    jsonr_get(&j, 0, "MinAPIVersion"));
	copy_str(e->ver.server, sizeof(e->ver.server), &j,
	    jsonr_get(&j, 0, "Version"));
	copy_str(e->ver.os, sizeof(e->ver.os), &j, jsonr_get(&j, 0, "Os"));
	copy_str(e->ver.arch, sizeof(e->ver.arch), &j,
	    jsonr_get(&j, 0, "Arch"));
	copy_str(e->ver.kernel, sizeof(e->ver.kernel), &j,
	    jsonr_get(&j, 0, "KernelVersion"));
	/* Docker: Platform.Name "Docker Engine - Community"; podman puts
	 * its platform there and its name in Components. */
	comps = jsonr_get(&j, 0, "Components");
	if (jsonr_type(&j, comps) == JSONR_ARRAY && jsonr_count(&j, comps))
		copy_str(e->ver.name, sizeof(e->ver.name), &j,
		    jsonr_get(&j, comps + 1, "Name"));
	if (!*e->ver.name)
		copy_str(e->ver.name, sizeof(e->ver.name), &j,
		    jsonr_path(&j, 0, "Platform.Name"));
	jsonr_release(&j);
	ret = 0;
out:
	strbuf_release(&r.body);
	return ret;
}

int
engine_connect(struct engine *e)
{
	struct response r;
	int api, want = engine_api_parse(ENGINE_API_MIN);
	int max = engine_api_parse(ENGINE_API_MAX);

	if (e->err.kind == ENGINE_E_URL)
		return -1;
	e->connected = false;
	memset(&e->ver, 0, sizeof(e->ver));

	/* The ping's Api-Version header is the engine's newest version
	 * (the Docker CLI negotiates from it too); /version only when an
	 * engine leaves the header out, because podman answers /version
	 * slowly (it asks the package manager about its runtime). */
	response_init(&r);
	if (request(e, "GET", "/_ping", false, NULL, 0, &r, e->request_ms) < 0)
		goto fail;
	if (r.status != 200) {
		eng_answer_error(e, (int)r.status, r.body.buf, r.body.len,
		    "answer /_ping");
		goto fail;
	}
	snprintf(e->ver.api, sizeof(e->ver.api), "%s", r.api_version);
	if (engine_api_parse(e->ver.api) < 0 && get_version(e) < 0)
		goto fail;

	api = engine_api_parse(e->ver.api);
	if (api < 0) {
		eng_fail(e, ENGINE_E_PROTO, 3032, 0, "engine at '%s' does not "
		    "say which Engine API version it speaks", e->sock.buf);
		goto fail;
	}
	if (api < want) {
		eng_fail(e, ENGINE_E_VERSION, 3004, 0, "engine at '%s' speaks "
		    "Engine API %s; magus needs %s or newer", e->sock.buf,
		    e->ver.api, ENGINE_API_MIN);
		eng_hint(e, "upgrade the container runtime that serves '%s'",
		    e->sock.buf);
		goto fail;
	}
	/* The newest version both sides speak. */
	engine_api_format(api < max ? api : max, e->ver.used,
	    sizeof(e->ver.used));
	snprintf(e->prefix, sizeof(e->prefix), "/v%s", e->ver.used);
	e->connected = true;
	strbuf_release(&r.body);
	return 0;
fail:
	strbuf_release(&r.body);
	return -1;
}

int
engine_fetch_version(struct engine *e)
{
	char api[16], used[16];

	if (!e->connected)
		return eng_fail(e, ENGINE_E_USAGE, 0, 0, "internal error: "
		    "engine_fetch_version before engine_connect");
	/* Keep what was negotiated; /version adds the rest. */
	memcpy(api, e->ver.api, sizeof(api));
	memcpy(used, e->ver.used, sizeof(used));
	if (get_version(e) < 0)
		return -1;
	if (!*e->ver.api)
		memcpy(e->ver.api, api, sizeof(api));
	memcpy(e->ver.used, used, sizeof(used));
	return 0;
}

/* ---- /info --------------------------------------------------------------- */

int
engine_info(struct engine *e, struct engine_info *out)
{
	struct response r;
	struct jsonr j;
	int so;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->security_options);
	response_init(&r);
	if (call(e, "GET", "/info", NULL, 0, &r, 200, 0, "answer /info") < 0 ||
	    parse_answer(e, &j, &r, "/info") < 0) {
		strbuf_release(&r.body);
		return -1;
	}
	out->os_type = jsonr_strdup(&j, jsonr_get(&j, 0, "OSType"));
	out->arch = jsonr_strdup(&j, jsonr_get(&j, 0, "Architecture"));
	out->kernel = jsonr_strdup(&j, jsonr_get(&j, 0, "KernelVersion"));
	out->operating_system = jsonr_strdup(&j,
	    jsonr_get(&j, 0, "OperatingSystem"));
	out->server_version = jsonr_strdup(&j,
	    jsonr_get(&j, 0, "ServerVersion"));
	out->name = jsonr_strdup(&j, jsonr_get(&j, 0, "Name"));
	out->cgroup_driver = jsonr_strdup(&j,
	    jsonr_get(&j, 0, "CgroupDriver"));
	out->cgroup_version = jsonr_strdup(&j,
	    jsonr_get(&j, 0, "CgroupVersion"));
	so = jsonr_get(&j, 0, "SecurityOptions");
	out->security_options_array = jsonr_type(&j, so) == JSONR_ARRAY;
	if (out->security_options_array &&
	    jsonr_strings(&j, so, &out->security_options) < 0)
		out->security_options_array = false;
	jsonr_release(&j);
	strbuf_release(&r.body);
	return 0;
}

void
engine_info_release(struct engine_info *i)
{
	free(i->os_type);
	free(i->arch);
	free(i->kernel);
	free(i->operating_system);
	free(i->server_version);
	free(i->name);
	free(i->cgroup_driver);
	free(i->cgroup_version);
	strvec_clear(&i->security_options);
	memset(i, 0, sizeof(*i));
}

bool
engine_info_rootless(const struct engine_info *i)
{
	size_t k;

	if (!i->security_options_array)
		return false;
	for (k = 0; k < i->security_options.n; k++)
		if (!strcmp(i->security_options.v[k], "name=rootless"))
			return true;
	return false;
}

int
engine_require_rootless(struct engine *e)
{
	struct engine_info info;
	struct strbuf said = STRBUF_INIT;
	struct json jw;
	size_t k;
	int ret = 0;

	if (engine_info(e, &info) < 0)
		return -1;
	if (!engine_info_rootless(&info)) {
		json_init(&jw, &said);
		if (info.security_options_array) {
			json_array_begin(&jw);
			for (k = 0; k < info.security_options.n; k++)
				json_str(&jw, info.security_options.v[k]);
			json_array_end(&jw);
		} else {
			strbuf_addstr(&said, "no SecurityOptions array");
		}
		ret = eng_fail(e, ENGINE_E_ROOTLESS, 3034, 0, "engine at '%s' "
		    "is not rootless: its /info SecurityOptions is %s",
		    e->sock.buf, said.buf);
		eng_hint(e, "name a rootless engine's socket in container.api, "
		    "or drop 'container.rootless: required'");
	}
	strbuf_release(&said);
	engine_info_release(&info);
	return ret;
}

/* ---- images ------------------------------------------------------------ */

int
engine_image_inspect(struct engine *e, const char *ref,
    struct engine_image *out)
{
	struct response r;
	struct strbuf path = STRBUF_INIT, what = STRBUF_INIT;
	struct jsonr j;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->repo_tags);
	strvec_init(&out->repo_digests);
	strvec_init(&out->env);
	strvec_init(&out->cmd);
	strbuf_addstr(&path, "/images/");
	url_escape(&path, ref, true);
	strbuf_addstr(&path, "/json");
	strbuf_addf(&what, "inspect image '%s'", ref);
	response_init(&r);
	if (call(e, "GET", path.buf, NULL, 0, &r, 200, 0, what.buf) < 0) {
		if (e->err.kind == ENGINE_E_NOTFOUND) {
			eng_fail(e, ENGINE_E_NOTFOUND, 3005, 404, "image '%s' "
			    "is not on the engine at '%s'", ref, e->sock.buf);
		}
		goto out;
	}
	if (parse_answer(e, &j, &r, what.buf) < 0)
		goto out;
	out->id = jsonr_strdup(&j, jsonr_get(&j, 0, "Id"));
	out->os = jsonr_strdup(&j, jsonr_get(&j, 0, "Os"));
	out->arch = jsonr_strdup(&j, jsonr_get(&j, 0, "Architecture"));
	out->variant = jsonr_strdup(&j, jsonr_get(&j, 0, "Variant"));
	if (!out->variant)
		out->variant = xstrdup("");
	if (!out->id || !out->os || !out->arch ||
	    jsonr_strings(&j, jsonr_get(&j, 0, "RepoTags"),
	    &out->repo_tags) < 0 ||
	    jsonr_strings(&j, jsonr_get(&j, 0, "RepoDigests"),
	    &out->repo_digests) < 0 ||
	    jsonr_strings(&j, jsonr_path(&j, 0, "Config.Env"),
	    &out->env) < 0 ||
	    jsonr_strings(&j, jsonr_path(&j, 0, "Config.Cmd"),
	    &out->cmd) < 0) {
		eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at '%s' "
		    "answered %s without Id, Os, Architecture, or with "
		    "fields of the wrong type", e->sock.buf, what.buf);
		jsonr_release(&j);
		goto out;
	}
	jsonr_release(&j);
	ret = 0;
out:
	if (ret < 0)
		engine_image_release(out);
	strbuf_release(&r.body);
	strbuf_release(&path);
	strbuf_release(&what);
	return ret;
}

void
engine_image_release(struct engine_image *i)
{
	free(i->id);
	free(i->os);
	free(i->arch);
	free(i->variant);
	strvec_clear(&i->repo_tags);
	strvec_clear(&i->repo_digests);
	strvec_clear(&i->env);
	strvec_clear(&i->cmd);
	memset(i, 0, sizeof(*i));
	strvec_init(&i->repo_tags);
	strvec_init(&i->repo_digests);
	strvec_init(&i->env);
	strvec_init(&i->cmd);
}

struct pull {
	struct engine *e;
	struct json_stream js;
	engine_progress_fn fn;
	void *ctx;
	struct strbuf error;	/* the first error object's message */
	bool bad;		/* something that is not a progress message */
};

static int
pull_value(void *arg, const char *text, size_t len)
{
	struct pull *p = arg;
	struct jsonr j;
	struct strbuf m = STRBUF_INIT;
	char *id, *status, *progress;

	if (jsonr_parse(&j, text, len) < 0 ||
	    jsonr_type(&j, 0) != JSONR_OBJECT) {
		p->bad = true;
		return 1;
	}
	if (jsonr_str(&j, jsonr_path(&j, 0, "errorDetail.message"), &m) == 0 ||
	    jsonr_str(&j, jsonr_get(&j, 0, "error"), &m) == 0) {
		if (!p->error.len) {
			engine_clean_text(&p->error, m.buf, m.len,
			    ENGINE_MSG_MAX);
			if (!p->error.len)
				strbuf_addstr(&p->error, "(no message)");
		}
	} else if (p->fn) {
		id = jsonr_strdup(&j, jsonr_get(&j, 0, "id"));
		status = jsonr_strdup(&j, jsonr_get(&j, 0, "status"));
		progress = jsonr_strdup(&j, jsonr_get(&j, 0, "progress"));
		p->fn(p->ctx, id ? id : "", status ? status : "",
		    progress ? progress : "");
		free(id);
		free(status);
		free(progress);
	}
	strbuf_release(&m);
	jsonr_release(&j);
	return 0;
}

static int
pull_stream(void *arg, const char *buf, size_t len)
{
	struct pull *p = arg;

	return json_stream_feed(&p->js, buf, len, pull_value, p) ? 1 : 0;
}

/* "name:tag", "name@sha256:..." or "name" -> fromImage and tag. */
static void
split_ref(const char *ref, struct strbuf *name, struct strbuf *tag)
{
	const char *at = strchr(ref, '@');
	const char *slash = strrchr(ref, '/');
	const char *colon = strrchr(ref, ':');

	if (at) {
		strbuf_add(name, ref, (size_t)(at - ref));
		strbuf_addstr(tag, at + 1);
	} else if (colon && (!slash || colon > slash)) {
		strbuf_add(name, ref, (size_t)(colon - ref));
		strbuf_addstr(tag, colon + 1);
	} else {
		/* Without a tag the engine would pull every tag. */
		strbuf_addstr(name, ref);
		strbuf_addstr(tag, "latest");
	}
}

int
engine_image_pull(struct engine *e, const char *ref, const char *platform,
    engine_progress_fn fn, void *ctx)
{
	struct response r;
	struct strbuf path = STRBUF_INIT, name = STRBUF_INIT,
	    tag = STRBUF_INIT, what = STRBUF_INIT;
	struct pull p = { .e = e, .fn = fn, .ctx = ctx };
	int ret = -1;

	if (!e->connected)
		return eng_fail(e, ENGINE_E_USAGE, 0, 0, "internal error: "
		    "pull before engine_connect");
	json_stream_init(&p.js);
	strbuf_init(&p.error, 0);
	split_ref(ref, &name, &tag);
	strbuf_addstr(&path, "/images/create?fromImage=");
	url_escape(&path, name.buf, false);
	strbuf_addstr(&path, "&tag=");
	url_escape(&path, tag.buf, false);
	if (platform && *platform) {
		strbuf_addstr(&path, "&platform=");
		url_escape(&path, platform, false);
	}
	strbuf_addf(&what, "pull image '%s'", ref);
	response_init(&r);
	r.stream = pull_stream;
	r.ctx = &p;
	/* A pull takes as long as it takes: no timeout but connecting. */
	if (request(e, "POST", path.buf, true, NULL, 0, &r, 0) < 0) {
		if (r.stream_err && p.bad)
			eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at "
			    "'%s' sent something that is not a progress "
			    "message while asked to %s", e->sock.buf,
			    what.buf);
		else if (r.stream_err)
			eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at "
			    "'%s' sent an unreadable progress stream while "
			    "asked to %s", e->sock.buf, what.buf);
		goto out;
	}
	if (r.status != 200) {
		eng_answer_error(e, (int)r.status, r.body.buf, r.body.len,
		    what.buf);
		e->err.kind = ENGINE_E_PULL;
		e->err.mgs = 3033;
		goto out;
	}
	if (p.error.len) {
		eng_fail(e, ENGINE_E_PULL, 3033, 200, "engine at '%s' could "
		    "not %s: %s", e->sock.buf, what.buf, p.error.buf);
		goto out;
	}
	if (!json_stream_idle(&p.js)) {
		eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at '%s' cut "
		    "the progress stream short while asked to %s",
		    e->sock.buf, what.buf);
		goto out;
	}
	ret = 0;
out:
	json_stream_release(&p.js);
	strbuf_release(&p.error);
	strbuf_release(&r.body);
	strbuf_release(&path);
	strbuf_release(&name);
	strbuf_release(&tag);
	strbuf_release(&what);
	return ret;
}

/* ---- containers ------------------------------------------------------ */

/*
 * What podman does with a missing bind source (creates it, as root) and
 * what Docker does with Binds (the same) are both worse than refusing:
 * check the sources here, before the engine sees the request.
 */
static int
check_create_body(struct engine *e, const char *body, size_t len)
{
	struct jsonr j;
	struct jsonr_iter it;
	struct stat st;
	int hc, m;
	char *type, *src;
	int ret = 0;

	if (jsonr_parse(&j, body, len) < 0 || jsonr_type(&j, 0) !=
	    JSONR_OBJECT)
		return eng_fail(e, ENGINE_E_USAGE, 0, 0, "internal error: "
		    "the container create request is not a JSON object");
	hc = jsonr_get(&j, 0, "HostConfig");
	if (jsonr_count(&j, jsonr_get(&j, hc, "Binds")) > 0) {
		jsonr_release(&j);
		return eng_fail(e, ENGINE_E_USAGE, 0, 0, "internal error: "
		    "the container create request uses HostConfig.Binds, "
		    "which creates a missing source; use Mounts");
	}
	jsonr_iter_init(&j, jsonr_get(&j, hc, "Mounts"), &it);
	while (ret == 0 && jsonr_iter_next(&j, &it, NULL, &m)) {
		type = jsonr_strdup(&j, jsonr_get(&j, m, "Type"));
		src = jsonr_strdup(&j, jsonr_get(&j, m, "Source"));
		if (type && !strcmp(type, "bind")) {
			if (!src || !*src) {
				ret = eng_fail(e, ENGINE_E_USAGE, 0, 0,
				    "internal error: a bind mount in the "
				    "create request has no Source");
			} else if (stat(src, &st) < 0) {
				ret = eng_fail(e, ENGINE_E_MOUNT, 3007, 0,
				    "bind mount source '%s' cannot be used: "
				    "%s", src, strerror(errno));
				eng_hint(e, "the engine would create a missing "
				    "source as an empty directory; make '%s' "
				    "exist first", src);
			}
		}
		free(type);
		free(src);
	}
	jsonr_release(&j);
	return ret;
}

int
engine_container_create(struct engine *e, const char *name,
    const char *platform, const char *body, size_t len, char **id,
    struct strvec *warnings)
{
	struct response r;
	struct strbuf path = STRBUF_INIT;
	struct jsonr j;
	char sep = '?';
	int ret = -1;

	*id = NULL;
	if (check_create_body(e, body, len) < 0)
		return -1;
	strbuf_addstr(&path, "/containers/create");
	if (name) {
		strbuf_addstr(&path, "?name=");
		url_escape(&path, name, false);
		sep = '&';
	}
	if (platform && *platform) {
		strbuf_addch(&path, sep);
		strbuf_addstr(&path, "platform=");
		url_escape(&path, platform, false);
	}
	response_init(&r);
	if (call(e, "POST", path.buf, body, len, &r, 201, 0,
	    "create a container") < 0) {
		/* A missing image is a fact about the image, not a failure
		 * of the engine. */
		if (e->err.kind == ENGINE_E_NOTFOUND &&
		    strstr(e->err.msg.buf, "image"))
			e->err.mgs = 3005;
		goto out;
	}
	if (parse_answer(e, &j, &r, "create a container") < 0)
		goto out;
	*id = jsonr_strdup(&j, jsonr_get(&j, 0, "Id"));
	if (warnings)
		jsonr_strings(&j, jsonr_get(&j, 0, "Warnings"), warnings);
	jsonr_release(&j);
	if (!*id || !**id) {
		free(*id);
		*id = NULL;
		eng_fail(e, ENGINE_E_PROTO, 3032, 201, "engine at '%s' created "
		    "a container without saying its Id", e->sock.buf);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&r.body);
	strbuf_release(&path);
	return ret;
}

/* A POST or DELETE on /containers/{id}/... with no answer body. */
static int
container_op(struct engine *e, const char *method, const char *id,
    const char *suffix, const char *query, int ok1, int ok2, const char *verb)
{
	struct response r;
	struct strbuf path = STRBUF_INIT, what = STRBUF_INIT;
	char sid[16];
	int ret;

	strbuf_addstr(&path, "/containers/");
	url_escape(&path, id, false);
	strbuf_addstr(&path, suffix);
	if (query)
		strbuf_addstr(&path, query);
	strbuf_addf(&what, "%s container '%s'", verb, eng_short_id(id, sid));
	response_init(&r);
	ret = call(e, method, path.buf, NULL, 0, &r, ok1, ok2, what.buf);
	strbuf_release(&r.body);
	strbuf_release(&path);
	strbuf_release(&what);
	return ret;
}

int
engine_container_start(struct engine *e, const char *id)
{
	return container_op(e, "POST", id, "/start", NULL, 204, 304, "start");
}

int
engine_container_kill(struct engine *e, const char *id, const char *signal)
{
	struct strbuf q = STRBUF_INIT;
	int ret;

	strbuf_addstr(&q, "?signal=");
	url_escape(&q, signal, false);
	ret = container_op(e, "POST", id, "/kill", q.buf, 204, 0, "kill");
	strbuf_release(&q);
	return ret;
}

int
engine_container_resize(struct engine *e, const char *id, unsigned rows,
    unsigned cols)
{
	char q[64];

	snprintf(q, sizeof(q), "?h=%u&w=%u", rows, cols);
	return container_op(e, "POST", id, "/resize", q, 200, 204, "resize");
}

int
engine_container_delete(struct engine *e, const char *id, bool force,
    bool volumes)
{
	char q[32];

	snprintf(q, sizeof(q), "?force=%d&v=%d", force, volumes);
	return container_op(e, "DELETE", id, "", q, 204, 200, "delete");
}

int
engine_container_inspect(struct engine *e, const char *id,
    struct engine_container *out)
{
	struct response r;
	struct strbuf path = STRBUF_INIT, what = STRBUF_INIT;
	struct jsonr j;
	int st;
	long long v;
	char sid[16];
	int ret = -1;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->env);
	strvec_init(&out->labels);
	strbuf_addstr(&path, "/containers/");
	url_escape(&path, id, false);
	strbuf_addstr(&path, "/json");
	strbuf_addf(&what, "inspect container '%s'", eng_short_id(id, sid));
	response_init(&r);
	if (call(e, "GET", path.buf, NULL, 0, &r, 200, 0, what.buf) < 0 ||
	    parse_answer(e, &j, &r, what.buf) < 0)
		goto out;
	st = jsonr_get(&j, 0, "State");
	out->id = jsonr_strdup(&j, jsonr_get(&j, 0, "Id"));
	out->name = jsonr_strdup(&j, jsonr_get(&j, 0, "Name"));
	out->image = jsonr_strdup(&j, jsonr_path(&j, 0, "Config.Image"));
	out->status = jsonr_strdup(&j, jsonr_get(&j, st, "Status"));
	out->error = jsonr_strdup(&j, jsonr_get(&j, st, "Error"));
	if (!out->error)
		out->error = xstrdup("");
	if (!out->id || !out->status ||
	    jsonr_bool(&j, jsonr_get(&j, st, "Running"), &out->running) < 0 ||
	    jsonr_bool(&j, jsonr_get(&j, st, "OOMKilled"),
	    &out->oom_killed) < 0 ||
	    jsonr_int(&j, jsonr_get(&j, st, "ExitCode"), &v) < 0 ||
	    v < -2147483647 || v > 2147483647) {
		eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at '%s' "
		    "answered %s without State.Status, Running, OOMKilled "
		    "and ExitCode", e->sock.buf, what.buf);
		jsonr_release(&j);
		goto out;
	}
	out->exit_code = (int)v;
	if (jsonr_int(&j, jsonr_get(&j, st, "Pid"), &v) == 0)
		out->pid = (long)v;
	jsonr_bool(&j, jsonr_path(&j, 0, "Config.Tty"), &out->tty);
	if (jsonr_strings(&j, jsonr_path(&j, 0, "Config.Env"),
	    &out->env) < 0 ||
	    jsonr_string_map(&j, jsonr_path(&j, 0, "Config.Labels"),
	    &out->labels) < 0) {
		eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at '%s' "
		    "answered %s with Config.Env or Config.Labels of the "
		    "wrong type", e->sock.buf, what.buf);
		jsonr_release(&j);
		goto out;
	}
	jsonr_release(&j);
	ret = 0;
out:
	if (ret < 0)
		engine_container_release(out);
	strbuf_release(&r.body);
	strbuf_release(&path);
	strbuf_release(&what);
	return ret;
}

void
engine_container_release(struct engine_container *c)
{
	free(c->id);
	free(c->name);
	free(c->image);
	free(c->status);
	free(c->error);
	strvec_clear(&c->env);
	strvec_clear(&c->labels);
	memset(c, 0, sizeof(*c));
	strvec_init(&c->env);
	strvec_init(&c->labels);
}

static void
summary_clear(struct engine_summary *x)
{
	free(x->id);
	free(x->name);
	free(x->image);
	free(x->state);
	free(x->status);
	strvec_clear(&x->labels);
	memset(x, 0, sizeof(*x));
}

static void
volume_clear(struct engine_volume *x)
{
	free(x->name);
	free(x->mountpoint);
	strvec_clear(&x->labels);
	memset(x, 0, sizeof(*x));
}

/*
 * Whether `have` ("key=value" strings) carries every one of `want`
 * ("key=value", or "key" for any value).  Some engines (podman 4.3 on
 * /volumes) answer a filter of several labels with the objects carrying
 * any of them, so every list is filtered here again.
 */
static bool
labels_have_all(const struct strvec *have, const char *const *want)
{
	size_t i, k;

	for (i = 0; want[i]; i++) {
		bool key_only = !strchr(want[i], '=');
		size_t wl = strlen(want[i]);

		for (k = 0; k < have->n; k++) {
			const char *h = have->v[k];

			if (key_only ? !strncmp(h, want[i], wl) &&
			    (h[wl] == '=' || h[wl] == '\0') :
			    !strcmp(h, want[i]))
				break;
		}
		if (k == have->n)
			return false;
	}
	return true;
}

/*
 * GET base with ?filters={"label":[...]} (percent-encoded) for every
 * label, and parse the answer into j.  j points into r's body: the
 * caller releases r.body always, and j when this returned 0.
 */
static int
list_by_label(struct engine *e, const char *base, const char *const *labels,
    const char *what, struct response *r, struct jsonr *j)
{
	struct strbuf path = STRBUF_INIT, f = STRBUF_INIT;
	struct json w;
	size_t i;
	int ret = -1;

	if (!labels || !labels[0])
		return eng_fail(e, ENGINE_E_USAGE, 0, 0, "internal error: a "
		    "list by label needs at least one label");
	json_init(&w, &f);
	json_object_begin(&w);
	json_key(&w, "label");
	json_array_begin(&w);
	for (i = 0; labels[i]; i++)
		json_str(&w, labels[i]);
	json_array_end(&w);
	json_object_end(&w);
	strbuf_addf(&path, "%sfilters=", base);
	url_escape(&path, f.buf, false);
	if (call(e, "GET", path.buf, NULL, 0, r, 200, 0, what) == 0 &&
	    parse_answer(e, j, r, what) == 0)
		ret = 0;
	strbuf_release(&f);
	strbuf_release(&path);
	return ret;
}

int
engine_container_list(struct engine *e, const char *const *labels,
    struct engine_summary **out, size_t *n)
{
	struct response r;
	struct jsonr j;
	struct jsonr_iter it;
	struct engine_summary *s = NULL;
	size_t count = 0;
	int c, names, ret = -1;
	char *nm;

	*out = NULL;
	*n = 0;
	response_init(&r);
	if (list_by_label(e, "/containers/json?all=1&", labels,
	    "list containers", &r, &j) < 0)
		goto out;
	if (jsonr_type(&j, 0) != JSONR_ARRAY) {
		eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at '%s' listed "
		    "containers as something other than an array",
		    e->sock.buf);
		jsonr_release(&j);
		goto out;
	}
	s = xcalloc((size_t)jsonr_count(&j, 0) + 1, sizeof(*s));
	jsonr_iter_init(&j, 0, &it);
	while (jsonr_iter_next(&j, &it, NULL, &c)) {
		struct engine_summary *x = &s[count++];

		strvec_init(&x->labels);
		x->id = jsonr_strdup(&j, jsonr_get(&j, c, "Id"));
		names = jsonr_get(&j, c, "Names");
		nm = jsonr_strdup(&j, names >= 0 && jsonr_count(&j, names) ?
		    names + 1 : -1);
		x->name = xstrdup(nm ? nm + (*nm == '/') : "");
		free(nm);
		x->image = jsonr_strdup(&j, jsonr_get(&j, c, "Image"));
		x->state = jsonr_strdup(&j, jsonr_get(&j, c, "State"));
		x->status = jsonr_strdup(&j, jsonr_get(&j, c, "Status"));
		if (jsonr_int(&j, jsonr_get(&j, c, "Created"),
		    &x->created) < 0 || x->created < 0)
			x->created = 0;
		if (!x->id || jsonr_string_map(&j, jsonr_get(&j, c, "Labels"),
		    &x->labels) < 0) {
			eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at "
			    "'%s' listed a container without an Id or with "
			    "Labels of the wrong type", e->sock.buf);
			jsonr_release(&j);
			engine_summaries_free(s, count);
			s = NULL;
			goto out;
		}
		if (!x->image)
			x->image = xstrdup("");
		if (!x->state)
			x->state = xstrdup("");
		if (!x->status)
			x->status = xstrdup("");
		if (!labels_have_all(&x->labels, labels)) {
			summary_clear(x);
			count--;
		}
	}
	jsonr_release(&j);
	*out = s;
	*n = count;
	ret = 0;
out:
	strbuf_release(&r.body);
	return ret;
}

void
engine_summaries_free(struct engine_summary *s, size_t n)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < n; i++)
		summary_clear(&s[i]);
	free(s);
}

/* ---- volumes ------------------------------------------------------------- */

int
engine_volume_create(struct engine *e, const char *name,
    const char *const *labels, char **name_out)
{
	struct response r;
	struct strbuf body = STRBUF_INIT;
	struct json j;
	struct jsonr jr;
	const char *eq;
	size_t i;
	int ret = -1;

	if (name_out)
		*name_out = NULL;
	json_init(&j, &body);
	json_object_begin(&j);
	if (name)
		json_kv_str(&j, "Name", name);
	json_key(&j, "Labels");
	json_object_begin(&j);
	for (i = 0; labels && labels[i]; i++) {
		eq = strchr(labels[i], '=');
		if (eq) {
			struct strbuf k = STRBUF_INIT;

			strbuf_add(&k, labels[i], (size_t)(eq - labels[i]));
			json_kv_str(&j, k.buf, eq + 1);
			strbuf_release(&k);
		} else {
			json_kv_str(&j, labels[i], "");
		}
	}
	json_object_end(&j);
	json_object_end(&j);
	response_init(&r);
	if (call(e, "POST", "/volumes/create", body.buf, body.len, &r, 201,
	    200, "create a volume") < 0 ||
	    parse_answer(e, &jr, &r, "create a volume") < 0)
		goto out;
	if (name_out)
		*name_out = jsonr_strdup(&jr, jsonr_get(&jr, 0, "Name"));
	jsonr_release(&jr);
	if (name_out && !*name_out) {
		eng_fail(e, ENGINE_E_PROTO, 3032, 201, "engine at '%s' created "
		    "a volume without saying its Name", e->sock.buf);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&r.body);
	strbuf_release(&body);
	return ret;
}

int
engine_volume_list(struct engine *e, const char *const *labels,
    struct engine_volume **out, size_t *n)
{
	struct response r;
	struct jsonr j;
	struct jsonr_iter it;
	struct engine_volume *v = NULL;
	size_t count = 0;
	int vols, c, ret = -1;
	char *created;

	*out = NULL;
	*n = 0;
	response_init(&r);
	if (list_by_label(e, "/volumes?", labels, "list volumes", &r,
	    &j) < 0)
		goto out;
	vols = jsonr_get(&j, 0, "Volumes");
	if (jsonr_type(&j, vols) != JSONR_ARRAY &&
	    jsonr_type(&j, vols) != JSONR_NULL) {
		eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at '%s' listed "
		    "volumes without a Volumes array", e->sock.buf);
		jsonr_release(&j);
		goto out;
	}
	v = xcalloc((size_t)jsonr_count(&j, vols) + 1, sizeof(*v));
	jsonr_iter_init(&j, vols, &it);
	while (jsonr_iter_next(&j, &it, NULL, &c)) {
		struct engine_volume *x = &v[count++];

		strvec_init(&x->labels);
		x->name = jsonr_strdup(&j, jsonr_get(&j, c, "Name"));
		x->mountpoint = jsonr_strdup(&j, jsonr_get(&j, c,
		    "Mountpoint"));
		if (!x->mountpoint)
			x->mountpoint = xstrdup("");
		created = jsonr_strdup(&j, jsonr_get(&j, c, "CreatedAt"));
		if (!created || engine_time_parse(created, &x->created) < 0 ||
		    x->created < 0)
			x->created = 0;
		free(created);
		if (!x->name || jsonr_string_map(&j, jsonr_get(&j, c,
		    "Labels"), &x->labels) < 0) {
			eng_fail(e, ENGINE_E_PROTO, 3032, 200, "engine at "
			    "'%s' listed a volume without a Name or with "
			    "Labels of the wrong type", e->sock.buf);
			jsonr_release(&j);
			engine_volumes_free(v, count);
			v = NULL;
			goto out;
		}
		if (!labels_have_all(&x->labels, labels)) {
			volume_clear(x);
			count--;
		}
	}
	jsonr_release(&j);
	*out = v;
	*n = count;
	ret = 0;
out:
	strbuf_release(&r.body);
	return ret;
}

void
engine_volumes_free(struct engine_volume *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		volume_clear(&v[i]);
	free(v);
}

int
engine_volume_delete(struct engine *e, const char *name, bool force)
{
	struct response r;
	struct strbuf path = STRBUF_INIT, what = STRBUF_INIT;
	int ret;

	strbuf_addstr(&path, "/volumes/");
	url_escape(&path, name, false);
	if (force)
		strbuf_addstr(&path, "?force=1");
	strbuf_addf(&what, "delete volume '%s'", name);
	response_init(&r);
	ret = call(e, "DELETE", path.buf, NULL, 0, &r, 204, 200, what.buf);
	strbuf_release(&r.body);
	strbuf_release(&path);
	strbuf_release(&what);
	return ret;
}

void
engine_json_hardening(struct json *j)
{
	json_kv_bool(j, "Privileged", false);
	json_kv_bool(j, "Init", true);
	json_kv_bool(j, "AutoRemove", false);
	json_key(j, "CapDrop");
	json_array_begin(j);
	json_str(j, "ALL");
	json_array_end(j);
	json_key(j, "SecurityOpt");
	json_array_begin(j);
	json_str(j, "no-new-privileges");
	json_array_end(j);
}
