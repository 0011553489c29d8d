/*
 * run.c: the relayed run on the engine.
 *
 * The order is the one lib/engine.h gives, for the reasons it gives:
 * image inspect (the digest pin, the platform and the image's own env
 * checked here, since some engines ignore "platform"), the home volume,
 * create, then the attach and the wait registered before start, so a
 * fast container's output and exit are never lost; the streams pumped
 * until the attach ends; the wait's result (or inspect's, when an engine
 * misses a fast exit); inspect for OOMKilled; delete.
 *
 * Signals arrive through a self-pipe that is also the pump's wake_fd:
 * the first SIGINT, SIGTERM, SIGHUP or SIGQUIT is forwarded by name and
 * waited for with no timer, a second kills and removes the container.
 * SIGWINCH resizes a TTY container.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "diag.h"
#include "engine.h"
#include "json.h"
#include "proc.h"
#include "relay.h"
#include "strutil.h"
#include "xalloc.h"

/* ---- signals ---------------------------------------------------------- */

/* The read end of the self-pipe the handled signals are written into. */
static int sig_fd = -1;

static void
catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
		SIGWINCH };

	sig_fd = signal_pipe(sigs, ARRAY_SIZE(sigs));
	if (sig_fd < 0)
		die_mgs(3043, NULL, "cannot catch signals: %s",
		    strerror(errno));
}

/* ---- the terminal ----------------------------------------------------- */

static struct termios saved_tio;
static bool raw_on;

static void
restore_terminal(void)
{
	if (raw_on) {
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_tio);
		raw_on = false;
	}
}

static void
raw_terminal(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &saved_tio) < 0)
		die_mgs(3043, NULL, "cannot read the terminal's mode: %s",
		    strerror(errno));
	t = saved_tio;
	cfmakeraw(&t);
	/* Output processing stays: the container's TTY already turns \n
	 * into \r\n, and raw output would double nothing. */
	t.c_oflag = saved_tio.c_oflag;
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &t) < 0)
		die_mgs(3043, NULL, "cannot set the terminal's mode: %s",
		    strerror(errno));
	raw_on = true;
	atexit(restore_terminal);
}

static void
resize(struct engine *e, const char *id)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || !ws.ws_row)
		return;
	if (engine_container_resize(e, id, ws.ws_row, ws.ws_col) < 0)
		engine_clear_error(e);
}

/* ---- the run ---------------------------------------------------------- */

struct run {
	struct relay *r;
	struct engine *e;
	char *id;
	int forwarded;		/* the first signal, forwarded */
	bool killed;		/* a second came: killed and removed */
};

/* A failure from the first connection on: the container (when there is
 * one) goes, and the status is the code's (71 for the engine's). */
static void NORETURN
fail(struct run *run)
{
	const struct engine_error *err = engine_error(run->e);
	int code = err->mgs;

	engine_diag(run->e);
	restore_terminal();
	if (run->id)
		engine_container_delete(run->e, run->id, true, true);
	relay_json_exit(run->r, "relay", code ? mgs_lookup(code)->status :
	    71, code);
	exit(code ? mgs_lookup(code)->status : 71);
}

static void
handle_signals(struct run *run)
{
	int c;

	while ((c = signal_pipe_next(sig_fd))) {
		if (c == SIGWINCH) {
			if (run->r->tty)
				resize(run->e, run->id);
			continue;
		}
		if (run->forwarded && !run->killed) {
			/* The second: kill and remove, and stop waiting. */
			run->killed = true;
			verbose_msg("second signal: killing and removing "
			    "container '%.12s'", run->id);
			engine_container_delete(run->e, run->id, true, true);
			engine_clear_error(run->e);
			continue;
		}
		if (run->forwarded)
			continue;
		run->forwarded = c;
		if (engine_container_kill(run->e, run->id,
		    engine_signal_name(c)) < 0) {
			if (engine_error(run->e)->kind != ENGINE_E_CONFLICT &&
			    engine_error(run->e)->kind != ENGINE_E_NOTFOUND)
				engine_diag(run->e);
			engine_clear_error(run->e);
		}
	}
}

static bool
exited(const struct engine_container *c)
{
	return !c->running && c->status && (!strcmp(c->status, "exited") ||
	    !strcmp(c->status, "stopped") || !strcmp(c->status, "dead"));
}

/*
 * The wait's result, signals still handled: the body when it comes,
 * else (the engine missed a fast exit, or the connection failed)
 * inspect's ExitCode once the container has exited.
 */
static int
await_exit(struct run *run, struct engine_wait **wp, struct engine_exit *ex)
{
	struct engine_wait *w = *wp;
	struct pollfd p[2];
	struct engine_container c;
	int n, r, quiet = 0;

	for (;;) {
		if (run->killed)
			return 1;
		p[0].fd = sig_fd;
		p[0].events = POLLIN;
		p[1].fd = w ? engine_wait_fd(w) : -1;
		p[1].events = POLLIN;
		n = poll(p, 2, 250);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0 && (p[0].revents & POLLIN))
			handle_signals(run);
		if (n > 0 && p[1].fd >= 0 && p[1].revents) {
			r = engine_wait_end(w, 0, ex);
			if (r > 0)
				return 0;
			if (r < 0) {
				/* A cut wait: the exit is one inspect away. */
				engine_clear_error(run->e);
				engine_wait_free(w);
				w = *wp = NULL;
			}
			continue;
		}
		if (n != 0 || ++quiet < 4)
			continue;
		quiet = 0;
		if (engine_container_inspect(run->e, run->id, &c) < 0) {
			if (run->killed)
				return 1;
			return -1;
		}
		if (exited(&c)) {
			ex->status = c.exit_code;
			ex->polled = true;
			strbuf_init(&ex->error, 0);
			strbuf_addstr(&ex->error, c.error ? c.error : "");
			engine_container_release(&c);
			return 0;
		}
		engine_container_release(&c);
	}
}

/* ---- line one --------------------------------------------------------- */

/* The engine's facts for line one, on a client of its own (libcurl
 * handles are not shared between threads). */
struct facts {
	pthread_t thread;
	bool started;
	const char *url;
	struct engine_version ver;
	int ok;
};

static void *
fetch_facts(void *arg)
{
	struct facts *f = arg;
	struct engine *e;

	f->ok = engine_open(&e, f->url) == 0 && engine_connect(e) == 0 &&
	    engine_fetch_version(e) == 0;
	if (f->ok)
		f->ver = *engine_version(e);
	engine_free(e);
	return NULL;
}

static void
line_one(struct relay *r, struct engine *e, struct facts *f)
{
	struct strbuf sb = STRBUF_INIT;
	const struct engine_version *v = f->ok ? &f->ver : engine_version(e);
	const char *kernel = f->ok && *v->kernel ? v->kernel : "unknown";
	char runtime[160];
	struct json j;

	if (f->ok)
		snprintf(runtime, sizeof(runtime), "%s %s", *v->name ?
		    v->name : "engine", v->server);
	else
		snprintf(runtime, sizeof(runtime), "engine");
	if (r->json) {
		json_init(&j, &sb);
		json_object_begin(&j);
		json_kv_str(&j, "platform", platform_str(&r->plat));
		json_kv_bool(&j, "emulated", r->emulated);
		json_kv_str(&j, "runtime", runtime);
		json_kv_str(&j, "socket", engine_socket(e));
		json_kv_str(&j, "kernel", kernel);
		json_kv_str(&j, "image", relay_short_digest(r));
		if (r->head)
			json_kv_str(&j, "testing", r->head);
		if (r->verbose) {
			json_kv_str(&j, "api", v->used);
			json_kv_str(&j, "store", r->store);
		}
		json_object_end(&j);
		strbuf_addch(&sb, '\n');
	} else {
		strbuf_addf(&sb, "%s: %s%s on %s at %s, kernel %s, image %s",
		    diag_progname(), platform_str(&r->plat), r->emulated ?
		    " (emulated: landlock under emulation is unmeasured)" : "",
		    runtime, engine_socket(e), kernel, relay_short_digest(r));
		if (r->head)
			strbuf_addf(&sb, ", testing HEAD %.12s", r->head);
		strbuf_addch(&sb, '\n');
		if (r->verbose)
			strbuf_addf(&sb, "%s: API %s (engine's newest %s); "
			    "writes land in '%s'\n", diag_progname(), v->used,
			    v->api, r->store);
	}
	if (write(STDERR_FILENO, sb.buf, sb.len) < 0) {
		/* stderr gone: nothing left to tell */
	}
	strbuf_release(&sb);
}

/* ---- the image -------------------------------------------------------- */

static void
pull_progress(void *ctx UNUSED, const char *id, const char *status,
    const char *progress)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "%s%s%s %s\n", id, *id ? ": " : "", status,
		    progress);
}

static void
check_image(struct run *run, struct engine_image *img)
{
	struct relay *r = run->r;
	const struct platform *p = &r->plat;
	struct timespec t0, t1;
	size_t i;

	if (engine_image_inspect(run->e, r->image->ref, img) < 0) {
		if (engine_error(run->e)->kind != ENGINE_E_NOTFOUND ||
		    !r->fetch) {
			if (engine_error(run->e)->kind == ENGINE_E_NOTFOUND) {
				diag(3005, "fetch it with: magus --platform "
				    "OS/ARCH --fetch VERB ...", "image '%s' is "
				    "not on the engine at '%s'; the relay "
				    "pulls only under --fetch", r->image->ref,
				    engine_socket(run->e));
				relay_json_exit(r, "relay", 71, 3005);
				exit(71);
			}
			fail(run);
		}
		engine_clear_error(run->e);
		fprintf(stderr, "%s: fetching '%s' for %s\n", diag_progname(),
		    r->image->ref, platform_str(p));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (engine_image_pull(run->e, r->image->ref, platform_str(p),
		    pull_progress, NULL) < 0)
			fail(run);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr, "%s: fetched '%s' in %.1f s\n", diag_progname(),
		    r->image->ref, (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (engine_image_inspect(run->e, r->image->ref, img) < 0)
			fail(run);
	}
	if (strcmp(img->os, p->os) || strcmp(img->arch, p->arch) ||
	    (*p->variant && strcmp(img->variant, p->variant))) {
		diag(3042, "pin the digest of the image's build for this "
		    "platform", "image '%s' is for %s/%s%s%s, not %s",
		    r->image->ref, img->os, img->arch, *img->variant ? "/" :
		    "", img->variant, platform_str(p));
		relay_json_exit(r, "relay", 71, 3042);
		exit(71);
	}
	for (i = 0; i < img->env.n; i++) {
		if (starts_with(img->env.v[i], "MAGUS_")) {
			size_t n = strcspn(img->env.v[i], "=");

			diag(3041, "MAGUS_* values come from the host's magus, "
			    "never from an image", "image '%s' sets '%.*s' in "
			    "its Config.Env", r->image->ref, (int)n,
			    img->env.v[i]);
			relay_json_exit(r, "relay", 71, 3041);
			exit(71);
		}
	}
}

/* ---- the whole run ---------------------------------------------------- */

int
relay_run(struct relay *r)
{
	struct run run = { r, NULL, NULL, 0, false };
	struct engine_image img;
	struct engine_attach *a = NULL;
	struct engine_wait *w = NULL;
	struct engine_container st;
	struct engine_exit ex;
	struct facts facts;
	struct engine_pump pump;
	struct strvec vl = STRVEC_INIT;
	int status, pr;

	catch_signals();
	memset(&facts, 0, sizeof(facts));
	memset(&img, 0, sizeof(img));
	if (engine_open(&run.e, r->url) < 0)
		fail(&run);
	if (engine_connect(run.e) < 0)
		fail(&run);
	/* containers.md: container.rootless: required refuses an engine
	 * whose /info does not say rootless. */
	if (r->cfg.container_rootless.value &&
	    !strcmp(r->cfg.container_rootless.value, "required") &&
	    engine_require_rootless(run.e) < 0)
		fail(&run);
	facts.url = r->url;

	check_image(&run, &img);
	engine_image_release(&img);

	/* The home volume outlives the run (toolchain caches); an existing
	 * one is returned unchanged, labels included. */
	strvec_pushf(&vl, "%s=%s", LABEL_WORKSPACE, r->labels.workspace);
	strvec_pushf(&vl, "%s=%s", LABEL_INVOCATION, r->labels.invocation);
	strvec_pushf(&vl, "%s=%s", LABEL_USE, r->labels.use);
	strvec_pushf(&vl, "%s=%s", LABEL_HOST, r->labels.host);
	strvec_pushf(&vl, "%s=%s", LABEL_BOOT, r->labels.boot);
	strvec_pushf(&vl, "%s=%s", LABEL_PID, r->labels.pid);
	strvec_pushf(&vl, "%s=%s", LABEL_PID_START, r->labels.pid_start);
	strvec_pushf(&vl, "%s=%s", LABEL_PLATFORM, platform_str(&r->plat));
	if (engine_volume_create(run.e, r->volume, (const char *const *)vl.v,
	    NULL) < 0)
		fail(&run);
	strvec_clear(&vl);

	if (engine_container_create(run.e, r->name, NULL, r->body.buf,
	    r->body.len, &run.id, NULL) < 0)
		fail(&run);
	if (engine_attach(run.e, run.id, r->with_stdin, r->tty, &a) < 0 ||
	    engine_wait_begin(run.e, run.id, "next-exit", &w) < 0) {
		engine_wait_free(w);
		engine_attach_free(a);
		fail(&run);
	}

	/* A signal while the container was being made: nothing of the
	 * caller's has run yet, so it goes, and the relay ends as signaled. */
	{
		int c;

		while ((c = signal_pipe_next(sig_fd))) {
			if (c == SIGWINCH)
				continue;
			engine_wait_free(w);
			engine_attach_free(a);
			engine_container_delete(run.e, run.id, true, true);
			relay_json_exit(r, "relay", 128 + c, 0);
			exit(128 + c);
		}
	}

	if (r->tty)
		raw_terminal();
	if (engine_container_start(run.e, run.id) < 0) {
		/* A failed start abandons the wait. */
		engine_wait_free(w);
		engine_attach_free(a);
		fail(&run);
	}
	/* /version is slow on podman (0.3 s or more, and it holds up the
	 * engine's other answers): asked once the container runs, beside
	 * it, its output waiting in the stream for line one. */
	facts.started = pthread_create(&facts.thread, NULL, fetch_facts,
	    &facts) == 0;
	if (facts.started)
		pthread_join(facts.thread, NULL);
	line_one(r, run.e, &facts);
	if (r->tty)
		resize(run.e, run.id);

	pump.in_fd = r->with_stdin ? STDIN_FILENO : -1;
	pump.out_fd = STDOUT_FILENO;
	pump.err_fd = STDERR_FILENO;
	pump.wake_fd = sig_fd;
	while ((pr = engine_attach_pump(a, &pump)) == ENGINE_PUMP_WAKE) {
		handle_signals(&run);
		if (run.killed)
			break;
	}
	engine_attach_free(a);
	if (!run.killed && pr < 0) {
		engine_wait_free(w);
		fail(&run);
	}
	memset(&ex, 0, sizeof(ex));
	strbuf_init(&ex.error, 0);
	if (!run.killed) {
		pr = await_exit(&run, &w, &ex);
		if (pr < 0 && !run.killed) {
			engine_wait_free(w);
			fail(&run);
		}
	}
	engine_wait_free(w);
	if (run.killed) {
		/* A second signal: the container is gone, removed. */
		restore_terminal();
		strbuf_release(&ex.error);
		free(run.id);
		engine_free(run.e);
		relay_json_exit(r, "invocation", 128 + run.forwarded, 0);
		return 128 + run.forwarded;
	}
	if (engine_container_inspect(run.e, run.id, &st) < 0)
		fail(&run);
	restore_terminal();
	verbose_msg("container '%.12s' exited %d%s", run.id, ex.status,
	    ex.polled ? " (read from inspect)" : "");

	status = ex.status;
	if (st.oom_killed) {
		diag(3008, "raise platform.memory_mb in magus.yaml, or make "
		    "the command need less", "container '%.12s' was killed "
		    "for running out of memory (exit status %d)", run.id,
		    ex.status);
		status = 71;
		relay_json_exit(r, "relay", status, 3008);
	} else if (ex.error.len || (st.error && *st.error)) {
		diag(3006, NULL, "the engine at '%s' reported an error running "
		    "container '%.12s': %s", engine_socket(run.e), run.id,
		    ex.error.len ? ex.error.buf : st.error);
		status = 71;
		relay_json_exit(r, "relay", status, 3006);
	} else {
		if (run.forwarded)
			status = 128 + run.forwarded;
		else if (status < 0 || status > 255)
			status = 71;
		relay_json_exit(r, "invocation", status, 0);
	}
	engine_container_release(&st);
	strbuf_release(&ex.error);
	if (engine_container_delete(run.e, run.id, true, true) < 0 &&
	    engine_error(run.e)->kind != ENGINE_E_NOTFOUND)
		engine_diag(run.e);
	free(run.id);
	engine_free(run.e);
	return status;
}
