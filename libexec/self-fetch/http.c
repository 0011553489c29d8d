#include "compat.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "diag.h"
#include "http.h"
#include "strbuf.h"
#include "strutil.h"
#include "xalloc.h"

#define MAX_REDIRECTS 5

static CURL *curl;
static const char *cainfo, *capath;

int
http_init(struct strbuf *err)
{
	static const char *const bundles[] = { "MAGUS_CA_BUNDLE",
		"CURL_CA_BUNDLE", "SSL_CERT_FILE" };
	const char *v;
	size_t i;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK ||
	    !(curl = curl_easy_init())) {
		strbuf_addstr(err, "libcurl cannot start");
		return -1;
	}
	/* The first of these that is set names the trusted CAs. */
	for (i = 0; i < ARRAY_SIZE(bundles) && !cainfo; i++)
		if ((v = getenv(bundles[i])) && *v)
			cainfo = v;
	if (!cainfo && (v = getenv("SSL_CERT_DIR")) && *v)
		capath = v;
	if (cainfo && access(cainfo, R_OK) < 0) {
		strbuf_addf(err, "cannot read the CA bundle '%s': %s", cainfo,
		    strerror(errno));
		return -1;
	}
	return 0;
}

void
http_cleanup(void)
{
	if (curl)
		curl_easy_cleanup(curl);
	curl = NULL;
	curl_global_cleanup();
}

static bool
host_is_loopback(const char *host)
{
	unsigned char a[16];
	char buf[64];
	size_t n = strlen(host);

	if (!strcmp(host, "localhost"))
		return true;
	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	/* CURLU gives an IPv6 host in brackets. */
	if (n >= 2 && n < sizeof(buf) && host[0] == '[' && host[n - 1] == ']') {
		memcpy(buf, host + 1, n - 2);
		buf[n - 2] = '\0';
		if (strchr(buf, '%')) /* a zone id: not the plain ::1 */
			return false;
		return inet_pton(AF_INET6, buf, a) == 1 &&
		    !memcmp(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16);
	}
	return false;
}

int
http_url_allowed(const char *url, bool redirect, struct strbuf *why)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	int r = -1;

	if (!u)
		die_status(71, "libcurl: out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		strbuf_addf(why, "'%s' is not an absolute URL", url);
		goto out;
	}
	if (!strcmp(scheme, "https") || (!redirect && !strcmp(scheme, "http") &&
	    host_is_loopback(host))) {
		r = 0;
	} else if (redirect) {
		strbuf_addf(why, "a redirect to '%s' is not HTTPS", url);
	} else {
		strbuf_addf(why, "'%s' is not an HTTPS URL (plain HTTP is "
		    "only used with a loopback address)", url);
	}
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return r;
}

char *
http_url_resolve(const char *base, const char *ref, struct strbuf *why)
{
	CURLU *u = curl_url();
	char *s = NULL, *r = NULL;

	if (!u)
		die_status(71, "libcurl: out of memory");
	if (curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK ||
	    curl_url_set(u, CURLUPART_URL, ref, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_URL, &s, 0) != CURLUE_OK) {
		strbuf_addf(why, "cannot resolve '%s' against '%s'", ref,
		    base);
	} else {
		r = xstrdup(s);
	}
	curl_free(s);
	curl_url_cleanup(u);
	return r;
}

/* ---- one transfer --------------------------------------------------- */

struct xfer {
	const struct http_sink *sink;
	unsigned long long got, max;
	bool too_large, sink_failed;
	const char *label;
	int last_permille;
};

static size_t
on_body(char *data, size_t size, size_t n, void *arg)
{
	struct xfer *x = arg;
	size_t len = size * n;

	if (x->got + len > x->max) {
		x->too_large = true;
		return 0;
	}
	if (x->sink->write(x->sink->arg, data, len) < 0) {
		x->sink_failed = true;
		return 0;
	}
	x->got += len;
	return len;
}

static void
human(double bytes, char *buf, size_t n)
{
	if (bytes >= 1024.0 * 1024)
		snprintf(buf, n, "%.1f MiB", bytes / (1024.0 * 1024));
	else if (bytes >= 1024.0)
		snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, n, "%.0f B", bytes);
}

static int
on_progress(void *arg, curl_off_t total, curl_off_t now, curl_off_t ut UNUSED,
    curl_off_t un UNUSED)
{
	struct xfer *x = arg;
	char a[32], b[32], bar[31];
	int permille, i, fill;

	if (total <= 0 && x->max != ~0ULL)
		total = (curl_off_t)x->max;
	if (total <= 0)
		return 0;
	permille = (int)(now * 1000 / total);
	if (permille > 1000)
		permille = 1000;
	if (permille == x->last_permille)
		return 0;
	x->last_permille = permille;
	fill = permille * 30 / 1000;
	for (i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[30] = '\0';
	human((double)now, a, sizeof(a));
	human((double)total, b, sizeof(b));
	fprintf(stderr, "\r%s [%s] %3d%% %s / %s ", x->label, bar,
	    permille / 10, a, b);
	fflush(stderr);
	return 0;
}

static bool
transient_code(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_PARTIAL_FILE:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

static bool
transient_status(long s)
{
	return s == 408 || s == 429 || (s >= 500 && s <= 599);
}

static bool
is_redirect(long s)
{
	return s == 301 || s == 302 || s == 303 || s == 307 || s == 308;
}

static void
set_options(const char *url, struct xfer *x, char *errbuf)
{
	curl_easy_reset(curl);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT,
	    "magus-self-fetch/" PACKAGE_VERSION);
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "https");
#else
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS,
	    (long)(CURLPROTO_HTTPS | CURLPROTO_HTTP));
	curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS, (long)CURLPROTO_HTTPS);
#endif
	curl_easy_setopt(curl, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
	if (cainfo)
		curl_easy_setopt(curl, CURLOPT_CAINFO, cainfo);
	if (capath)
		curl_easy_setopt(curl, CURLOPT_CAPATH, capath);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 30L);
	/* Large reads for large artifacts, as the curl tool does. */
	curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 256L * 1024);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, x);
	if (x->label) {
		curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(curl, CURLOPT_XFERINFODATA, x);
	}
}

/* Half a second, then a second, between attempts. */
static void
backoff(int attempt)
{
	struct timespec ts = { 0, 0 };
	long ms = 500L << (attempt - 1);

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

enum http_result
http_get(struct http_request *req, const struct http_sink *sink,
    struct strbuf *err)
{
	char errbuf[CURL_ERROR_SIZE];
	char *url = xstrdup(req->url);
	enum http_result r = HTTP_FAILED;
	int attempt = 0, redirects = 0;

	req->status = 0;
	if (http_url_allowed(url, false, err) < 0) {
		free(url);
		return HTTP_URL_REFUSED;
	}
	for (;;) {
		struct xfer x = { sink, 0, req->max, false, false, req->label,
		    -1 };
		const char *loc = NULL;
		CURLcode c;
		long status = 0;

		attempt++;
		errbuf[0] = '\0';
		sink->reset(sink->arg);
		set_options(url, &x, errbuf);
		/* libcurl stops at the bound itself when a length is known. */
		if (req->max != ~0ULL)
			curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
			    (curl_off_t)req->max);
		c = curl_easy_perform(curl);
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
		if (x.label && x.last_permille >= 0)
			fputc('\n', stderr);
		req->status = status;

		if (c == CURLE_OK && is_redirect(status)) {
			curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &loc);
			if (!loc) {
				strbuf_addf(err, "'%s' answered HTTP %ld "
				    "without a Location", url, status);
				r = HTTP_STATUS;
				break;
			}
			if (++redirects > MAX_REDIRECTS) {
				strbuf_addf(err, "more than %d redirects from "
				    "'%s'", MAX_REDIRECTS, req->url);
				r = HTTP_REDIRECT_REFUSED;
				break;
			}
			if (http_url_allowed(loc, true, err) < 0) {
				r = HTTP_REDIRECT_REFUSED;
				break;
			}
			free(url);
			url = xstrdup(loc);
			attempt = 0;
			continue;
		}
		if (c == CURLE_OK && status == 200) {
			r = HTTP_OK;
			break;
		}
		if (x.too_large || c == CURLE_FILESIZE_EXCEEDED) {
			strbuf_addf(err, "'%s' is larger than %llu bytes", url,
			    req->max);
			r = HTTP_TOO_LARGE;
			break;
		}
		if (x.sink_failed) {
			strbuf_addf(err, "cannot keep what '%s' sent: %s", url,
			    strerror(errno));
			r = HTTP_FAILED;
			break;
		}
		if (c == CURLE_PEER_FAILED_VERIFICATION ||
		    c == CURLE_SSL_CACERT_BADFILE) {
			strbuf_addf(err, "the TLS certificate of '%s' is not "
			    "trusted: %s", url, *errbuf ? errbuf :
			    curl_easy_strerror(c));
			r = HTTP_TLS_UNTRUSTED;
			break;
		}
		if (c == CURLE_OK) {
			if (transient_status(status) && attempt < HTTP_ATTEMPTS) {
				backoff(attempt);
				continue;
			}
			strbuf_addf(err, "'%s' answered HTTP %ld%s", url,
			    status, attempt > 1 ? " (after retries)" : "");
			r = HTTP_STATUS;
			break;
		}
		if (transient_code(c) && attempt < HTTP_ATTEMPTS) {
			backoff(attempt);
			continue;
		}
		strbuf_addf(err, "cannot fetch '%s': %s%s", url,
		    *errbuf ? errbuf : curl_easy_strerror(c),
		    attempt > 1 ? " (after retries)" : "");
		r = c == CURLE_PARTIAL_FILE ? HTTP_TRUNCATED : HTTP_FAILED;
		break;
	}
	req->final_url = url;
	return r;
}
