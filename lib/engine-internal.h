/*
 * engine-internal.h: what engine.c and engine-stream.c share.  Not an
 * API: callers use engine.h.
 */
#ifndef MAGUS_ENGINE_INTERNAL_H
#define MAGUS_ENGINE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "strbuf.h"

struct engine {
	struct strbuf sock;	/* the socket path */
	void *curl;		/* CURL *, created on first use */
	void *headers_post;	/* struct curl_slist *, requests with a body */
	void *headers_get;
	int connect_ms, request_ms;
	bool connected;
	struct engine_version ver;
	char prefix[24];	/* "/v1.41" */
	struct engine_error err;
};

/* Record an error (replacing any earlier one); always returns -1. */
int eng_fail(struct engine *e, enum engine_errkind kind, int mgs, int http,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void eng_hint(struct engine *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The "cannot connect" error, with its errno text and the hint. */
int eng_fail_connect(struct engine *e, int errnum);

/*
 * Record the error an engine's non-2xx answer stands for: classify the
 * status and the engine's message (404, 409 and podman's 500 for
 * conflicts, the mount wordings), with `what` naming the request
 * ("start container 'abc123'").  Always returns -1.
 */
int eng_answer_error(struct engine *e, int http, const char *body, size_t len,
    const char *what);

/* The first 12 characters of a 64-hex id, else the name as given. */
const char *eng_short_id(const char *id, char buf[16]);

/* Milliseconds on the monotonic clock. */
int64_t eng_now_ms(void);

#endif /* MAGUS_ENGINE_INTERNAL_H */
