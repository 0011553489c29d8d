/*
 * engine-proto.h: the byte-level pieces of the Engine API client.
 *
 * Pure functions and small state machines with no I/O, so the unit tests
 * can feed them a stream one byte at a time, or split at every boundary,
 * and compare.  engine.c and engine-stream.c are built on them; a caller
 * of the client never needs this header.
 *
 * Feeding functions take (buf, len) and may be called with any split of
 * the input, including len == 0 and one byte at a time: the result is the
 * same as one call with the whole input.
 */
#ifndef MAGUS_ENGINE_PROTO_H
#define MAGUS_ENGINE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "strbuf.h"

/* ---- the socket URL ------------------------------------------------- */

/*
 * The longest socket path this system's sockaddr_un holds, without the
 * terminating NUL (107 on Linux, 103 on macOS).
 */
size_t engine_sun_path_max(void);

/*
 * Take the socket path out of a container API URL.  Only "unix:///abs"
 * is accepted: no other scheme (tcp://, ssh://, npipe://, http://...), no
 * relative path, no path longer than engine_sun_path_max().  Nothing is
 * read from the environment and nothing is touched on disk.
 *
 * Returns 0 with the path in `path`, or the MGS code of the refusal
 * (3001: the URL, 3003: the length) with a message in `msg` naming the
 * URL and, for the length, the limit and the length.
 */
int engine_url_socket(const char *url, struct strbuf *path,
    struct strbuf *msg);

/* ---- API versions --------------------------------------------------- */

/*
 * Parse an API version "MAJOR.MINOR" ("1.41") into MAJOR * 1000 + MINOR;
 * -1 when it is not one.
 */
int engine_api_parse(const char *s);
/* Format MAJOR * 1000 + MINOR back into "1.41". */
void engine_api_format(int v, char *buf, size_t len);

/* ---- timestamps ------------------------------------------------------ */

/*
 * Parse an RFC 3339 time as engines write it ("2026-11-29T21:32:19Z",
 * "2016-06-07T20:31:11.853781916Z", "...T10:00:00+01:00") into seconds
 * since the epoch; a fraction is dropped (engines give whole seconds in
 * lists, so a second is the precision any comparison can have).  Returns
 * 0, or -1 when `s` is not such a time.
 */
int engine_time_parse(const char *s, long long *out);

/* ---- the attach stream's 8-byte frames ------------------------------ */

/* Stream numbers in a frame header (and in a sink call). */
enum {
	ENGINE_STDIN = 0,
	ENGINE_STDOUT = 1,
	ENGINE_STDERR = 2,
	ENGINE_SYSERR = 3,	/* the engine's own error, after the hijack */
};

/*
 * Called with each piece of payload as it is decoded; a frame may arrive
 * in several calls.  A non-zero return stops the feed and is passed on.
 */
typedef int (*engine_sink_fn)(void *ctx, int stream, const char *buf,
    size_t len);

/*
 * Without a TTY the engine multiplexes stdout and stderr on one stream:
 * each frame is [STREAM, 0, 0, 0, SIZE (32-bit big-endian)] then SIZE
 * bytes.  With a TTY the bytes are raw and all stdout.  Which of the two
 * a stream is comes from the Tty flag the caller put in the create
 * request, never from the response's Content-Type (podman says "raw" for
 * multiplexed streams).
 */
struct engine_demux {
	bool tty;
	unsigned char hdr[8];
	unsigned hdr_len;	/* header bytes collected so far */
	uint32_t left;		/* payload bytes this frame still owes */
	int stream;
	uint64_t frames;	/* complete headers seen, for messages */
};

void engine_demux_init(struct engine_demux *d, bool tty);
/*
 * Decode `len` bytes.  Returns 0, the sink's non-zero return, or -1 with
 * errno EPROTO when a header is not one (a stream number above 3 or
 * non-zero padding): the stream is then not what we asked for, and
 * nothing after that point is trusted.
 */
int engine_demux_feed(struct engine_demux *d, const void *buf, size_t len,
    engine_sink_fn sink, void *ctx);
/* True between frames: an EOF here is a clean end, elsewhere a cut. */
bool engine_demux_at_boundary(const struct engine_demux *d);

/* ---- an HTTP/1.1 response head -------------------------------------- */

/* Heads larger than this are refused. */
#define HTTP_HEAD_MAX 65536

struct http_head {
	int status;
	char reason[64];
	long long content_length;	/* -1 when absent */
	bool chunked;
	bool close;			/* Connection: close */
	bool upgrade;			/* Connection: Upgrade */
	char content_type[128];
	char api_version[16];		/* the Api-Version header */
};

/*
 * Parse the head at the start of `buf`.  Returns its length in bytes
 * (the blank line included), 0 when the blank line has not arrived yet,
 * or -1 (errno EPROTO) when what arrived is not an HTTP/1.x response
 * head or is larger than HTTP_HEAD_MAX.  The bytes after the head belong
 * to the body or the hijacked stream and must be kept by the caller.
 */
ssize_t http_head_parse(const char *buf, size_t len, struct http_head *h);

/* ---- chunked transfer coding ----------------------------------------- */

struct http_chunked {
	int state;
	uint64_t left;		/* data bytes left in the current chunk */
	unsigned digits;
	unsigned line;		/* length of the line being skipped */
};

void http_chunked_init(struct http_chunked *c);
/*
 * Decode up to `len` bytes of `in`, appending data to `out`.  *used gets
 * how many input bytes were consumed: fewer than len only once the last
 * chunk and the trailer have ended, and what follows is the next
 * response.  Returns 1 when the body is complete, 0 when more is needed,
 * -1 (errno EPROTO) when the coding is malformed.
 */
int http_chunked_feed(struct http_chunked *c, const char *in, size_t len,
    struct strbuf *out, size_t *used);

/* ---- a stream of JSON values (image create progress) ---------------- */

/*
 * Split a byte stream of concatenated JSON objects (separated by
 * whitespace, as /images/create sends them) into whole values, calling
 * `fn` once per value with its complete text.
 */
typedef int (*json_value_fn)(void *ctx, const char *text, size_t len);

/* One progress message is never near this; larger is refused. */
#define JSON_STREAM_MAX (1 << 20)

struct json_stream {
	struct strbuf buf;	/* the value being collected */
	int depth;
	bool in_string, escaped;
};

void json_stream_init(struct json_stream *s);
void json_stream_release(struct json_stream *s);
/*
 * Returns 0, the callback's non-zero return, or -1 with errno EPROTO
 * when something other than an object or array starts a value, or a
 * value grows past JSON_STREAM_MAX.  The callback checks the value
 * itself (jsonr_parse); this only finds where values end.
 */
int json_stream_feed(struct json_stream *s, const char *in, size_t len,
    json_value_fn fn, void *ctx);
/* True when no value is half-collected (a clean end of the stream). */
bool json_stream_idle(const struct json_stream *s);

/* ---- URL pieces ----------------------------------------------------- */

/*
 * Append `s` percent-encoded for a URL path or query: every byte outside
 * A-Z a-z 0-9 - . _ ~ is escaped, and also '/', ':' and '@' unless
 * `keep_path` is set (an image reference in a path keeps them).
 */
void url_escape(struct strbuf *out, const char *s, bool keep_path);

/*
 * Copy an engine's message for a diagnostic: one line, control bytes
 * replaced by '?', at most `max` bytes (then "..."), trailing
 * whitespace trimmed.
 */
void engine_clean_text(struct strbuf *out, const char *s, size_t len,
    size_t max);

#endif /* MAGUS_ENGINE_PROTO_H */
