/*
 * http.h: magus-self-fetch's downloads, through libcurl, under one policy:
 *
 *  - HTTPS only; plain HTTP only to a loopback address (127.0.0.0/8, ::1,
 *    localhost), for tests;
 *  - redirects followed by hand, at most five, and only to HTTPS;
 *  - the CA bundle named by MAGUS_CA_BUNDLE, else CURL_CA_BUNDLE, else
 *    SSL_CERT_FILE (and SSL_CERT_DIR), else libcurl's default (Debian:
 *    /etc/ssl/certs/ca-certificates.crt, fed by update-ca-certificates);
 *  - the proxy variables libcurl reads (https_proxy, HTTPS_PROXY,
 *    all_proxy, no_proxy, ...);
 *  - at most HTTP_ATTEMPTS attempts, repeated only for failures that may
 *    pass (no connection, a timeout, a cut transfer, HTTP 408, 429, 5xx);
 *    a certificate that is not trusted, a 4xx or a body over its bound is
 *    final at once;
 *  - a body bounded by the caller; a progress bar on stderr when asked.
 */
#ifndef MAGUS_SELF_FETCH_HTTP_H
#define MAGUS_SELF_FETCH_HTTP_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

#define HTTP_ATTEMPTS 3

enum http_result {
	HTTP_OK = 0,
	HTTP_URL_REFUSED,	/* not HTTPS and not loopback, or malformed */
	HTTP_REDIRECT_REFUSED,	/* a redirect to plain HTTP, or too many */
	HTTP_TLS_UNTRUSTED,	/* the server's certificate chain is not trusted */
	HTTP_STATUS,		/* an HTTP status other than 200 */
	HTTP_TOO_LARGE,		/* the body exceeds the caller's bound */
	HTTP_TRUNCATED,		/* the transfer ended before its announced end */
	HTTP_FAILED,		/* anything else on the way (connect, DNS, ...) */
};

/* Where a body goes.  reset() is called before every attempt. */
struct http_sink {
	int (*write)(void *arg, const void *data, size_t len);
	void (*reset)(void *arg);
	void *arg;
};

struct http_request {
	const char *url;
	unsigned long long max;	/* the largest body accepted */
	const char *label;	/* for the progress bar; NULL: no bar */
	long status;		/* out: the final HTTP status, 0 when none */
	char *final_url;	/* out: after redirects (allocated) */
};

/* Set up libcurl once; returns 0, or -1 with a reason. */
int http_init(struct strbuf *err);
void http_cleanup(void);

/*
 * Is `url` one magus fetches from?  `redirect`: the target of a
 * redirect, which must be HTTPS whatever its host.  Returns 0, or -1
 * with the reason in `why`.
 */
int http_url_allowed(const char *url, bool redirect, struct strbuf *why);

/*
 * Resolve `ref` (absolute, or relative to `base`) into a new string, or
 * NULL with a reason.
 */
char *http_url_resolve(const char *base, const char *ref, struct strbuf *why);

/* GET req->url into `sink`.  The reason for a failure goes to `err`. */
enum http_result http_get(struct http_request *req,
    const struct http_sink *sink, struct strbuf *err);

#endif /* MAGUS_SELF_FETCH_HTTP_H */
