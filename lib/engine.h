/*
 * engine.h: a Docker Engine API client over a unix socket.
 *
 * magus speaks the Engine API itself (no docker or podman CLI); Docker,
 * podman's service, Colima, OrbStack and Rancher Desktop all serve it.
 * Ordinary requests go through libcurl (CURLOPT_UNIX_SOCKET_PATH); the
 * two long-lived exchanges, the hijacked attach and the wait, run on
 * connections this module manages itself, because their callers need the
 * response head before the body (see "Running a container" below).  It
 * lives in lib/libmagus-engine.a, so only the programs that link it pay
 * for libcurl.
 *
 * The engine is named, never found: the caller passes the URL it was
 * told (container.api, MAGUS_CONTAINER_API, --container-api).  This
 * module never reads DOCKER_HOST, a docker context or a proxy variable,
 * and never tries a well-known socket path.  Every descriptor it opens is
 * close-on-exec.
 *
 * ---- Errors -----------------------------------------------------------
 *
 * Every call returns 0 on success or -1 with the error kept in the
 * engine: engine_error() reads it, engine_diag() prints it, engine_die()
 * prints it and exits with the status its MGS code carries in mgs.def.
 * A message names the thing (socket, image, container, path) and carries
 * the engine's own words, cleaned to one line.  The codes:
 *
 *	MGS3001  exit 2   the URL was refused (a scheme other than unix://)
 *	MGS3002  exit 71  the socket cannot be reached; the hint says a
 *	                  person starts the runtime that serves it
 *	MGS3003  exit 2   the socket path is longer than sun_path holds
 *	MGS3004  exit 71  the engine's API is older than ENGINE_API_MIN
 *	MGS3005  exit 71  the image is not on the engine
 *	MGS3006  exit 71  the engine refused a request (its message quoted)
 *	MGS3007  exit 71  a bind-mount source is missing or not shared
 *	MGS3008  exit 71  OOM kill: never raised here, the caller raises it
 *	                  from engine_container_inspect's oom_killed
 *	MGS3032  exit 71  an answer that cannot be read: malformed, cut
 *	                  off, a connection dropped, a timeout
 *	MGS3033  exit 71  an image pull failed (often inside a 200 stream)
 *	MGS3034  exit 71  container.rootless is required and the engine is
 *	                  not rootless
 *
 * The kind (enum engine_errkind) lets a caller treat an expected answer
 * as one: ENGINE_E_NOTFOUND for a delete of what is already gone,
 * ENGINE_E_CONFLICT for a kill of what has already exited.
 *
 * ---- Engine differences handled here ------------------------------------
 *
 * - Conflicts: Docker answers 409; podman answers 500 for the same thing
 *   ("container state improper", "is being used", "as it is running").
 *   Both come back as ENGINE_E_CONFLICT.
 * - A missing bind-mount source: podman creates it on the host and says
 *   201; Docker says 400.  engine_container_create therefore checks
 *   every "Type":"bind" source in the body before sending it (MGS3007,
 *   naming the path), refuses a body using "Binds" (which bypasses that
 *   check), and maps the engines' words for an unshared or vanished
 *   source at create and at start to MGS3007 as well.
 * - Attach answers 101 with "Upgrade: tcp" (Docker, podman) or 200
 *   (older engines); both are accepted, and bytes that arrive together
 *   with the head are kept.  The stream's framing follows the caller's
 *   Tty flag, never the Content-Type (podman labels a multiplexed stream
 *   "raw-stream").
 * - The wait result arrives 130-270 ms after the exit on podman (it
 *   polls), and an engine may miss a fast exit entirely:
 *   engine_wait_poll falls back to inspect.  Podman's wait body carries
 *   "Error":null; Docker's carries no Error or {"Message":...}.
 * - State.Status may read "stopped" (podman) for a moment after exit.
 * - Podman ignores "platform" on create: check the image's os and
 *   architecture yourself (engine_image_inspect) before create.
 * - Podman 4 answers /version and /info slowly (0.3 s to 3 s: it asks
 *   the package manager who owns its runtime), so engine_connect needs
 *   only /_ping, and /version is engine_fetch_version, on demand.
 * - Attaching after start loses a fast container's output (podman sends
 *   an empty stream), hence the order below.
 *
 * One struct engine serves one thread; it keeps one libcurl handle and
 * its connection alive between requests.  An attach and a wait each
 * hold a connection of their own while they live.
 *
 * ---- Running a container ------------------------------------------------
 *
 * The order matters: the attach and the wait are registered (their
 * response heads received) before start, or a fast container's output
 * and exit are lost; the caller exits only after the attach stream's EOF
 * and the wait result, or the last lines are lost.
 *
 *	struct engine *e;
 *	struct engine_attach *a = NULL;
 *	struct engine_wait *w = NULL;
 *	struct engine_container st;
 *	struct engine_exit ex;
 *	struct engine_pump pump = { .in_fd = -1, .out_fd = 1, .err_fd = 2,
 *				    .wake_fd = -1 };
 *	char *id;
 *	int r;
 *
 *	if (engine_open(&e, url) < 0 || engine_connect(e) < 0)
 *		engine_die(e);			// 3001/3003, 3002, 3004
 *	if (engine_container_create(e, NULL, NULL, body.buf, body.len,
 *	    &id, NULL) < 0)			// body built with json.h
 *		engine_die(e);
 *	if (engine_attach(e, id, false, tty, &a) < 0 ||
 *	    engine_wait_begin(e, id, "next-exit", &w) < 0 ||
 *	    engine_container_start(e, id) < 0) {
 *		engine_diag(e);		// a failed start abandons
 *		engine_wait_free(w);	// the wait (NULL is fine)
 *		engine_attach_free(a);
 *		engine_container_delete(e, id, true, true);
 *		exit(71);
 *	}
 *	while ((r = engine_attach_pump(a, &pump)) == ENGINE_PUMP_WAKE)
 *		handle_signal();		// e.g. engine_container_kill
 *	if (r < 0) ...				// stream cut: 3032
 *	if (engine_wait_poll(e, w, id, 1000, &ex) < 0) ...
 *	if (engine_container_inspect(e, id, &st) < 0) ...
 *	if (st.oom_killed) ...			// MGS3008, exit 71
 *	engine_container_delete(e, id, true, true);
 *
 * tests/engine/engine-cli.c's "run" command is this sequence in full,
 * signals included: a self-pipe written by the signal handler is the
 * pump's wake_fd, so the pump returns ENGINE_PUMP_WAKE and the caller
 * forwards the signal (engine_container_kill by name) and pumps on.
 *
 * What the caller must put in the create body (it is sent byte for
 * byte, so --print-request can print the same bytes): "Tty" equal to
 * the tty flag given to engine_attach; "OpenStdin", "StdinOnce" and
 * "AttachStdin" true when stdin is to cross, else the container's stdin
 * is /dev/null; "HostConfig.Mounts" (never "Binds"), each with an
 * explicit "ReadOnly"; "HostConfig.AutoRemove" false, so the container
 * is still there to inspect after its exit.
 */
#ifndef MAGUS_ENGINE_H
#define MAGUS_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

/* The oldest API this client speaks, and the newest it asks for. */
#define ENGINE_API_MIN "1.41"
#define ENGINE_API_MAX "1.44"

/* Defaults of engine_set_timeouts, in milliseconds. */
#define ENGINE_CONNECT_TIMEOUT_MS 5000
#define ENGINE_REQUEST_TIMEOUT_MS 120000

struct engine;

enum engine_errkind {
	ENGINE_E_NONE = 0,
	ENGINE_E_URL,		/* 3001, 3003: refused before connecting */
	ENGINE_E_CONNECT,	/* 3002: the socket cannot be reached */
	ENGINE_E_VERSION,	/* 3004: the API is too old */
	ENGINE_E_NOTFOUND,	/* 404: no such image, container, volume */
	ENGINE_E_CONFLICT,	/* 409, or podman's 500 for the same */
	ENGINE_E_MOUNT,		/* 3007: bind source missing or unshared */
	ENGINE_E_ENGINE,	/* 3006: any other refusal */
	ENGINE_E_PULL,		/* 3033: an image pull failed */
	ENGINE_E_ROOTLESS,	/* 3034: rootless required, engine is not */
	ENGINE_E_PROTO,		/* 3032: unreadable, cut, timed out */
	ENGINE_E_HOST,		/* a host-side failure (writing stdout) */
	ENGINE_E_USAGE,		/* the caller's mistake (bad argument) */
};

struct engine_error {
	enum engine_errkind kind;
	int mgs;		/* the MGS code; 0 for HOST and USAGE */
	int http;		/* the HTTP status, when the engine answered */
	struct strbuf msg;	/* one line, no prefix */
	struct strbuf hint;	/* empty, or a "hint:" line's text */
};

/* The negotiated API version, and what /version said (after
 * engine_fetch_version; "" before). */
struct engine_version {
	char api[16];		/* the engine's newest API, "1.41" */
	char min_api[16];	/* its oldest, "" when it does not say */
	char used[16];		/* what the paths carry: /v1.41/... */
	char server[64];	/* "4.3.1" */
	char name[64];		/* "Podman Engine", "Docker Engine..." */
	char os[32];		/* the engine's kernel: "linux" */
	char arch[32];
	char kernel[128];
};

/* ---- The client ------------------------------------------------------ */

/*
 * Make a client for `url` ("unix:///path").  Connects to nothing.
 * Always stores a client in *ep (release it with engine_free); returns
 * -1 when the URL is refused (3001, 3003), with the error in it.
 */
int engine_open(struct engine **ep, const char *url);
void engine_free(struct engine *e);
/* The socket path from the URL. */
const char *engine_socket(const struct engine *e);
/*
 * Timeouts: connecting to the socket, and waiting for an ordinary
 * answer (image pulls, attach streams and wait bodies have none of the
 * latter).  0 keeps the current value.
 */
void engine_set_timeouts(struct engine *e, int connect_ms, int request_ms);

/*
 * GET /_ping and negotiate: the engine's newest API comes from the
 * ping's Api-Version header (from GET /version when an engine leaves it
 * out); one older than ENGINE_API_MIN is refused (3004, naming both
 * versions); the paths then carry the newest version both speak, at
 * most ENGINE_API_MAX (/v1.41/... with podman and Docker 20.10).  Every
 * other call needs it.  Only ver.api and ver.used are filled.
 */
int engine_connect(struct engine *e);
/*
 * GET /version for the rest of engine_version(): server version, name,
 * os, arch, kernel, MinAPIVersion.  Separate because podman 4 takes
 * 0.3-3 s to answer it (it asks the package manager who owns its
 * runtime and conmon): call it only when the facts are shown.
 */
int engine_fetch_version(struct engine *e);
/* After engine_connect; NULL before. */
const struct engine_version *engine_version(const struct engine *e);

const struct engine_error *engine_error(const struct engine *e);
void engine_clear_error(struct engine *e);
/* Print the error as a diagnostic (its code, message and hint). */
void engine_diag(const struct engine *e);
/* engine_diag, then exit with the code's status (71 without a code). */
void engine_die(const struct engine *e) __attribute__((noreturn));

/* ---- /info ------------------------------------------------------------- */

/* Strings are NULL when the engine leaves them out. */
struct engine_info {
	char *os_type;		/* "linux" */
	char *arch;		/* "amd64" / "x86_64", as the engine says */
	char *kernel;
	char *operating_system;
	char *server_version;
	char *name;		/* the engine host's name */
	char *cgroup_driver;
	char *cgroup_version;
	struct strvec security_options;
	bool security_options_array;	/* it was a JSON array */
};

int engine_info(struct engine *e, struct engine_info *out);
void engine_info_release(struct engine_info *i);
/*
 * containers.md's rootless rule: SecurityOptions is a JSON array with an
 * element exactly "name=rootless" (a substring match is not enough).
 */
bool engine_info_rootless(const struct engine_info *i);
/* GET /info and refuse (3034, naming the socket and what the engine
 * reported) unless it is rootless. */
int engine_require_rootless(struct engine *e);

/* ---- Images ------------------------------------------------------------- */

struct engine_image {
	char *id;
	char *os, *arch, *variant;	/* variant "" when none */
	struct strvec repo_tags;
	struct strvec repo_digests;	/* "name@sha256:..." */
	struct strvec env;		/* Config.Env, "NAME=value" */
	struct strvec cmd;		/* Config.Cmd */
};

/* GET /images/{ref}/json; an absent image is 3005 (ENGINE_E_NOTFOUND). */
int engine_image_inspect(struct engine *e, const char *ref,
    struct engine_image *out);
void engine_image_release(struct engine_image *i);

/*
 * Progress of a pull: one call per message the engine streams, e.g.
 * ("3f4d...", "Downloading", "[==>   ] 1.2MB/8MB").  Strings may be "".
 */
typedef void (*engine_progress_fn)(void *ctx, const char *id,
    const char *status, const char *progress);

/*
 * POST /images/create?fromImage=NAME&tag=TAG|DIGEST[&platform=P].  The
 * engine answers 200 and then streams progress; a failure usually comes
 * as an {"error":...} object inside that stream, and is 3033 with the
 * engine's message.  No timeout but the connect one.  `platform` and
 * `fn` may be NULL.
 */
int engine_image_pull(struct engine *e, const char *ref, const char *platform,
    engine_progress_fn fn, void *ctx);

/* ---- Containers -------------------------------------------------------- */

struct json;
/*
 * The hardening every container magus creates carries (spec/containers.md),
 * written as members of the HostConfig object open in `j`: Privileged
 * false, Init true (a real PID 1 reaps and passes signals on), AutoRemove
 * false (magus reads the exit and inspect before it deletes), CapDrop
 * ["ALL"], SecurityOpt ["no-new-privileges"].
 */
void engine_json_hardening(struct json *j);

/*
 * POST /containers/create[?name=NAME][&platform=P] with `body` sent
 * byte for byte (Content-Type: application/json).  Before sending, every
 * "Type":"bind" mount source in HostConfig.Mounts must exist (3007), and
 * a body with a non-empty HostConfig.Binds is refused (ENGINE_E_USAGE).
 * On success *id is the new container's id (free it); `warnings`, when
 * not NULL, receives the engine's warnings.  A missing image is 3005.
 */
int engine_container_create(struct engine *e, const char *name,
    const char *platform, const char *body, size_t len, char **id,
    struct strvec *warnings);
/* POST /containers/{id}/start; "already started" (304) is success. */
int engine_container_start(struct engine *e, const char *id);
/* POST /containers/{id}/kill?signal=NAME ("TERM", "KILL", "INT"...). */
int engine_container_kill(struct engine *e, const char *id,
    const char *signal);
/* POST /containers/{id}/resize?h=ROWS&w=COLS (a TTY container). */
int engine_container_resize(struct engine *e, const char *id, unsigned rows,
    unsigned cols);
/* DELETE /containers/{id}?force=&v=; already gone is ENGINE_E_NOTFOUND. */
int engine_container_delete(struct engine *e, const char *id, bool force,
    bool volumes);

struct engine_container {
	char *id;
	char *name;
	char *image;
	char *status;		/* State.Status: created, running, ... */
	char *error;		/* State.Error, "" when none */
	bool running;
	bool oom_killed;	/* State.OOMKilled: the only OOM evidence */
	int exit_code;		/* State.ExitCode */
	long pid;		/* State.Pid, 0 when not running */
	bool tty;		/* Config.Tty */
	struct strvec env;	/* Config.Env */
	struct strvec labels;	/* Config.Labels as "key=value" */
};

/* GET /containers/{id}/json. */
int engine_container_inspect(struct engine *e, const char *id,
    struct engine_container *out);
void engine_container_release(struct engine_container *c);

struct engine_summary {
	char *id;
	char *name;		/* the first of Names, without the '/' */
	char *image;
	char *state;		/* "running", "exited", ... */
	char *status;		/* "Exited (3) 2 seconds ago" */
	long long created;	/* Created, seconds since the epoch; 0 when
				 * the engine does not say */
	struct strvec labels;	/* "key=value" */
};

/*
 * GET /containers/json?all=1&filters={"label":[...]}: every container,
 * running or not, carrying all of `labels` ("key=value" or "key"; a
 * NULL-terminated list, at least one).  *out is an array of *n.
 */
int engine_container_list(struct engine *e, const char *const *labels,
    struct engine_summary **out, size_t *n);
void engine_summaries_free(struct engine_summary *s, size_t n);

/* ---- Volumes ------------------------------------------------------------ */

/*
 * POST /volumes/create {"Name":NAME,"Labels":{...}} (`labels` as
 * "key=value", NULL-terminated, may be NULL).  `name` may be NULL for an
 * engine-chosen name; *name_out (when not NULL) gets the name.
 * Creating an existing name returns it unchanged, labels included.
 */
int engine_volume_create(struct engine *e, const char *name,
    const char *const *labels, char **name_out);

struct engine_volume {
	char *name;
	char *mountpoint;
	long long created;	/* CreatedAt, seconds since the epoch; 0 when
				 * the engine does not say or it is unreadable */
	struct strvec labels;
};

/* GET /volumes?filters={"label":[...]}, as engine_container_list. */
int engine_volume_list(struct engine *e, const char *const *labels,
    struct engine_volume **out, size_t *n);
void engine_volumes_free(struct engine_volume *v, size_t n);
/* DELETE /volumes/{name}[?force=1]; in use is ENGINE_E_CONFLICT. */
int engine_volume_delete(struct engine *e, const char *name, bool force);

/* ---- The wait -------------------------------------------------------- */

struct engine_wait;

struct engine_exit {
	int status;		/* StatusCode; State.ExitCode if polled */
	bool polled;		/* from inspect: the wait stayed silent */
	struct strbuf error;	/* the engine's Error.Message, often "" */
};

/*
 * POST /containers/{id}/wait?condition=COND ("next-exit" before start)
 * on a connection of its own, returning once the response head is in:
 * from then on the engine has registered the wait, and the container
 * may be started.  *wp is NULL on failure.
 */
int engine_wait_begin(struct engine *e, const char *id, const char *condition,
    struct engine_wait **wp);
/* The connection's descriptor, to poll for the body's arrival. */
int engine_wait_fd(const struct engine_wait *w);
/*
 * Read the body: returns 1 with *ex filled (release ex->error with
 * strbuf_release), 0 when `timeout_ms` passed first (call again; -1
 * waits without limit), -1 on error (3032: cut off, unreadable).
 */
int engine_wait_end(struct engine_wait *w, int timeout_ms,
    struct engine_exit *ex);
/*
 * engine_wait_end, and every `poll_ms` without an answer, inspect the
 * container: once it is not running and State.Status says it exited,
 * its ExitCode is the result (ex->polled).  A wait connection that
 * fails falls back to inspect alone.  Returns 0 or -1 (inspect failed).
 * `w` may be NULL (inspect only).
 */
int engine_wait_poll(struct engine *e, struct engine_wait *w, const char *id,
    int poll_ms, struct engine_exit *ex);
/* Close the connection (abandoning the wait) and free; NULL is fine. */
void engine_wait_free(struct engine_wait *w);

/* ---- The attach ------------------------------------------------------ */

struct engine_attach;

/*
 * POST /containers/{id}/attach?stream=1&stdin=0|1&stdout=1&stderr=1&
 * detachKeys= with "Connection: Upgrade" and "Upgrade: tcp", returning
 * once the head (101 or 200) is in.  `tty` must equal the create body's
 * Tty: it alone decides whether the stream is framed.  `with_stdin`
 * attaches stdin (the body must say OpenStdin and StdinOnce).  An empty
 * detachKeys means no key sequence detaches.  *ap is NULL on failure.
 */
int engine_attach(struct engine *e, const char *id, bool with_stdin, bool tty,
    struct engine_attach **ap);
int engine_attach_fd(const struct engine_attach *a);

enum {
	ENGINE_PUMP_EOF = 0,	/* the engine closed the stream, cleanly */
	ENGINE_PUMP_WAKE = 1,	/* wake_fd is readable: call again later */
};

struct engine_pump {
	int in_fd;	/* host stdin to forward, or -1 */
	int out_fd;	/* where the container's stdout goes */
	int err_fd;	/* and its stderr */
	int wake_fd;	/* -1, or a descriptor (a signal self-pipe) whose
			 * readability makes the pump return WAKE; the
			 * caller drains it before pumping again */
};

/*
 * Copy the stream until it ends: the container's stdout and stderr to
 * out_fd and err_fd exactly as they came (nothing added, nothing
 * re-encoded), host input from in_fd to the container.  At in_fd's EOF
 * the connection is half-closed (shutdown SHUT_WR) so the container sees
 * its stdin end; without a TTY that ends a "cat", with a TTY the
 * terminal's own ^D does.  Returns ENGINE_PUMP_EOF when the engine has
 * closed the stream at a frame boundary, ENGINE_PUMP_WAKE when wake_fd
 * became readable (nothing is lost: call again), or -1: the stream was
 * cut inside a frame, held something that is not a frame, reported an
 * engine error (a stream-3 frame: 3006), or a host write failed
 * (ENGINE_E_HOST).  Safe to call again after WAKE only.
 */
int engine_attach_pump(struct engine_attach *a, const struct engine_pump *p);
/* Half-close now (no more stdin), e.g. when the caller reads stdin
 * itself; the pump does this at in_fd's EOF. */
int engine_attach_close_stdin(struct engine_attach *a);
/* Close the connection and free; NULL is fine. */
void engine_attach_free(struct engine_attach *a);

#endif /* MAGUS_ENGINE_H */
