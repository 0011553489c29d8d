/*
 * engine-cli: one command per Engine API call of lib/engine.h, so the
 * bats suites can drive the client against the real test engine and the
 * fake one.  A test tool (check_PROGRAMS), not installed.
 *
 * Output is plain "key=value" lines on stdout; a failure is the
 * client's diagnostic ("engine-cli: [MGS3002] ...") plus a line naming
 * the error's kind, and the exit status its code carries (2 or 71).
 * "run" is the whole create -> attach -> wait -> start -> stream -> wait
 * -> inspect -> delete sequence, the model for magus-relay.
 */
#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <unistd.h>

#include "diag.h"
#include "engine.h"
#include "proc.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "xalloc.h"

static const char usage_text[] =
"usage: engine-cli [-H URL] [--connect-timeout MS] [--timeout MS]\n"
"                  COMMAND [ARG]...\n"
"\n"
"  -H, --container-api URL  the engine, unix:///path\n"
"                           (else $MAGUS_CONTAINER_API)\n"
"  --connect-timeout MS     time to connect to the socket\n"
"  --timeout MS             time to wait for an ordinary answer\n"
"\n"
"commands:\n"
"  ping                              negotiate, print /version's facts\n"
"  info [--require-rootless]         print /info's facts\n"
"  image-inspect REF                 print an image's facts\n"
"  image-pull REF [PLATFORM]         pull, progress on stderr\n"
"  create FILE [NAME]                create from the JSON in FILE\n"
"                                    ('-': stdin)\n"
"  start ID\n"
"  kill ID SIGNAL\n"
"  resize ID ROWS COLS\n"
"  inspect ID                        print State and Config facts\n"
"  wait ID [CONDITION]               print the exit status\n"
"  rm ID [--force] [--volumes]\n"
"  ps LABEL...                       containers carrying every LABEL\n"
"  volume-create NAME|- [LABEL...]\n"
"  volumes LABEL...                  volumes carrying every LABEL\n"
"  volume-rm NAME [--force]\n"
"  attach ID [--stdin] [--tty]       copy the stream until it ends\n"
"  run FILE [--name N] [--stdin] [--tty] [--resize ROWSxCOLS]\n"
"      [--poll-ms N] [--keep] [--late-wait]\n"
"                                    create, attach, wait, start, stream,\n"
"                                    wait, inspect, delete; exit as it did\n"
"  fdcheck ID                        open every kind of connection, then\n"
"                                    name any descriptor not close-on-exec\n";

static void
usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static const char *const kind_names[] = {
	[ENGINE_E_NONE] = "none",
	[ENGINE_E_URL] = "url",
	[ENGINE_E_CONNECT] = "connect",
	[ENGINE_E_VERSION] = "version",
	[ENGINE_E_NOTFOUND] = "notfound",
	[ENGINE_E_CONFLICT] = "conflict",
	[ENGINE_E_MOUNT] = "mount",
	[ENGINE_E_ENGINE] = "engine",
	[ENGINE_E_PULL] = "pull",
	[ENGINE_E_ROOTLESS] = "rootless",
	[ENGINE_E_PROTO] = "proto",
	[ENGINE_E_HOST] = "host",
	[ENGINE_E_USAGE] = "usage",
};

/* The diagnostic, a line naming the kind for the tests, and the exit. */
static void NORETURN
fail(struct engine *e)
{
	const struct engine_error *err = engine_error(e);

	fprintf(stderr, "engine-cli: kind: %s (HTTP %d)\n",
	    kind_names[err->kind], err->http);
	engine_die(e);
}

static void
print_list(const char *key, const struct strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		printf("%s=%s\n", key, sv->v[i]);
}

static void
read_body(const char *file, struct strbuf *sb)
{
	ssize_t r = strcmp(file, "-") ? strbuf_read_file(sb, file) :
	    strbuf_read_fd(sb, STDIN_FILENO);

	if (r < 0)
		die_status(2, "cannot read '%s': %s", file, strerror(errno));
}

/* ---- the simple commands ---------------------------------------------- */

static int
cmd_ping(struct engine *e)
{
	const struct engine_version *v;

	if (engine_fetch_version(e) < 0)
		fail(e);
	v = engine_version(e);

	printf("api=%s\nmin_api=%s\nused=%s\nserver=%s\nname=%s\nos=%s\n"
	    "arch=%s\nkernel=%s\n", v->api, v->min_api, v->used, v->server,
	    v->name, v->os, v->arch, v->kernel);
	return 0;
}

static int
cmd_info(struct engine *e, int argc, char **argv)
{
	struct engine_info i;

	if (argc > 1 && !strcmp(argv[1], "--require-rootless")) {
		if (engine_require_rootless(e) < 0)
			fail(e);
		puts("rootless=yes");
		return 0;
	}
	if (engine_info(e, &i) < 0)
		fail(e);
	printf("os_type=%s\narch=%s\nkernel=%s\ncgroup_driver=%s\n"
	    "cgroup_version=%s\nrootless=%s\n", i.os_type ? i.os_type : "",
	    i.arch ? i.arch : "", i.kernel ? i.kernel : "",
	    i.cgroup_driver ? i.cgroup_driver : "",
	    i.cgroup_version ? i.cgroup_version : "",
	    engine_info_rootless(&i) ? "yes" : "no");
	print_list("security_option", &i.security_options);
	engine_info_release(&i);
	return 0;
}

static int
cmd_image_inspect(struct engine *e, int argc, char **argv)
{
	struct engine_image img;

	if (argc != 2)
		usage(2);
	if (engine_image_inspect(e, argv[1], &img) < 0)
		fail(e);
	printf("id=%s\nos=%s\narch=%s\nvariant=%s\n", img.id, img.os,
	    img.arch, img.variant);
	print_list("tag", &img.repo_tags);
	print_list("digest", &img.repo_digests);
	print_list("env", &img.env);
	print_list("cmd", &img.cmd);
	engine_image_release(&img);
	return 0;
}

static void
on_progress(void *ctx, const char *id, const char *status,
    const char *progress)
{
	(void)ctx;
	fprintf(stderr, "progress: %s%s%s%s%s\n", id, *id ? ": " : "", status,
	    *progress ? " " : "", progress);
}

static int
cmd_image_pull(struct engine *e, int argc, char **argv)
{
	if (argc < 2 || argc > 3)
		usage(2);
	if (engine_image_pull(e, argv[1], argc > 2 ? argv[2] : NULL,
	    on_progress, NULL) < 0)
		fail(e);
	puts("pulled=yes");
	return 0;
}

static int
cmd_create(struct engine *e, int argc, char **argv)
{
	struct strbuf body = STRBUF_INIT;
	struct strvec warnings = STRVEC_INIT;
	char *id;

	if (argc < 2 || argc > 3)
		usage(2);
	read_body(argv[1], &body);
	if (engine_container_create(e, argc > 2 ? argv[2] : NULL, NULL,
	    body.buf, body.len, &id, &warnings) < 0)
		fail(e);
	print_list("warning", &warnings);
	puts(id);
	free(id);
	strvec_clear(&warnings);
	strbuf_release(&body);
	return 0;
}

static int
cmd_inspect(struct engine *e, int argc, char **argv)
{
	struct engine_container c;

	if (argc != 2)
		usage(2);
	if (engine_container_inspect(e, argv[1], &c) < 0)
		fail(e);
	printf("id=%s\nname=%s\nimage=%s\nstatus=%s\nrunning=%d\n"
	    "exit_code=%d\noom_killed=%d\npid=%ld\ntty=%d\nerror=%s\n",
	    c.id, c.name ? c.name : "", c.image ? c.image : "", c.status,
	    c.running, c.exit_code, c.oom_killed, c.pid, c.tty, c.error);
	print_list("env", &c.env);
	print_list("label", &c.labels);
	engine_container_release(&c);
	return 0;
}

static int
cmd_wait(struct engine *e, int argc, char **argv)
{
	struct engine_wait *w;
	struct engine_exit ex;

	if (argc < 2 || argc > 3)
		usage(2);
	if (engine_wait_begin(e, argv[1], argc > 2 ? argv[2] : "not-running",
	    &w) < 0 || engine_wait_end(w, -1, &ex) < 0)
		fail(e);
	printf("status=%d\n", ex.status);
	if (ex.error.len)
		printf("error=%s\n", ex.error.buf);
	strbuf_release(&ex.error);
	engine_wait_free(w);
	return 0;
}

static bool
has_flag(int argc, char **argv, const char *flag)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], flag))
			return true;
	return false;
}

static int
cmd_ps(struct engine *e, int argc, char **argv)
{
	struct engine_summary *s;
	size_t n, i, k;

	if (argc < 2)
		usage(2);
	if (engine_container_list(e, (const char *const *)argv + 1, &s,
	    &n) < 0)
		fail(e);
	for (i = 0; i < n; i++) {
		printf("%s %s %s", s[i].id, s[i].name, s[i].state);
		for (k = 0; k < s[i].labels.n; k++)
			printf(" %s", s[i].labels.v[k]);
		putchar('\n');
	}
	engine_summaries_free(s, n);
	return 0;
}

static int
cmd_volume_create(struct engine *e, int argc, char **argv)
{
	char *name;

	if (argc < 2)
		usage(2);
	if (engine_volume_create(e, strcmp(argv[1], "-") ? argv[1] : NULL,
	    (const char *const *)argv + 2, &name) < 0)
		fail(e);
	puts(name);
	free(name);
	return 0;
}

static int
cmd_volumes(struct engine *e, int argc, char **argv)
{
	struct engine_volume *v;
	size_t n, i, k;

	if (argc < 2)
		usage(2);
	if (engine_volume_list(e, (const char *const *)argv + 1, &v, &n) < 0)
		fail(e);
	for (i = 0; i < n; i++) {
		printf("%s", v[i].name);
		for (k = 0; k < v[i].labels.n; k++)
			printf(" %s", v[i].labels.v[k]);
		putchar('\n');
	}
	engine_volumes_free(v, n);
	return 0;
}

/* ---- streams and signals --------------------------------------------- */

/* The self-pipe of lib/proc, as magus-relay has it. */
static int sig_fd = -1;

static void
catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	sig_fd = signal_pipe(sigs, 3);
	if (sig_fd < 0)
		die_status(71, "signal pipe: %s", strerror(errno));
}

/*
 * The signal rules, as the relay has them: the first signal is
 * forwarded by name and waited for; the second kills.
 */
static int forwarded;

static void
handle_signals(struct engine *e, const char *id)
{
	const char *name;
	int c;

	while ((c = signal_pipe_next(sig_fd))) {
		if (forwarded) {
			name = "KILL";
		} else {
			forwarded = c;
			name = engine_signal_name(c);
		}
		if (engine_container_kill(e, id, name) < 0) {
			if (engine_error(e)->kind != ENGINE_E_CONFLICT)
				engine_diag(e);
			engine_clear_error(e);
		}
	}
}

static int
pump_all(struct engine *e, struct engine_attach *a, const char *id,
    bool with_stdin)
{
	struct engine_pump p = {
		.in_fd = with_stdin ? STDIN_FILENO : -1,
		.out_fd = STDOUT_FILENO,
		.err_fd = STDERR_FILENO,
		.wake_fd = sig_fd,
	};
	int r;

	while ((r = engine_attach_pump(a, &p)) == ENGINE_PUMP_WAKE)
		handle_signals(e, id);
	return r;
}

static int
cmd_attach(struct engine *e, int argc, char **argv)
{
	struct engine_attach *a;
	bool in = has_flag(argc, argv, "--stdin");

	if (argc < 2)
		usage(2);
	catch_signals();
	if (engine_attach(e, argv[1], in, has_flag(argc, argv, "--tty"),
	    &a) < 0 || pump_all(e, a, argv[1], in) < 0)
		fail(e);
	engine_attach_free(a);
	return 0;
}

struct run_args {
	const char *file, *name;
	bool in, tty, keep, late_wait;
	unsigned rows, cols;
	int poll_ms;
};

static void
parse_run(int argc, char **argv, struct run_args *o)
{
	long v;
	int i;
	char *x;

	memset(o, 0, sizeof(*o));
	o->poll_ms = 1000;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stdin")) {
			o->in = true;
		} else if (!strcmp(argv[i], "--tty")) {
			o->tty = true;
		} else if (!strcmp(argv[i], "--keep")) {
			o->keep = true;
		} else if (!strcmp(argv[i], "--late-wait")) {
			o->late_wait = true;
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			o->name = argv[++i];
		} else if (!strcmp(argv[i], "--poll-ms") && i + 1 < argc) {
			if (!parse_long(argv[++i], 1, 600000, &v))
				usage(2);
			o->poll_ms = (int)v;
		} else if (!strcmp(argv[i], "--resize") && i + 1 < argc) {
			x = strchr(argv[++i], 'x');
			if (!x || sscanf(argv[i], "%ux%u", &o->rows,
			    &o->cols) != 2)
				usage(2);
		} else if (argv[i][0] != '-' && !o->file) {
			o->file = argv[i];
		} else {
			usage(2);
		}
	}
	if (!o->file)
		usage(2);
}

/*
 * The sequence magus-relay follows: the attach and the wait are
 * registered before start; the exit waits for both the stream's end and
 * the wait's result; inspect says whether the kernel killed it for
 * memory; the container is deleted last.
 */
static int
cmd_run(struct engine *e, int argc, char **argv)
{
	struct run_args o;
	struct strbuf body = STRBUF_INIT;
	struct engine_attach *a = NULL;
	struct engine_wait *w = NULL;
	struct engine_exit ex;
	struct engine_container st;
	char *id;
	int status;

	parse_run(argc, argv, &o);
	read_body(o.file, &body);
	catch_signals();
	if (engine_container_create(e, o.name, NULL, body.buf, body.len, &id,
	    NULL) < 0)
		fail(e);
	if (engine_attach(e, id, o.in, o.tty, &a) < 0 ||
	    (!o.late_wait && engine_wait_begin(e, id, "next-exit", &w) < 0) ||
	    engine_container_start(e, id) < 0) {
		engine_diag(e);
		engine_wait_free(w);
		engine_attach_free(a);
		engine_container_delete(e, id, true, true);
		exit(71);
	}
	if (o.rows && engine_container_resize(e, id, o.rows, o.cols) < 0)
		engine_diag(e);
	if (pump_all(e, a, id, o.in) < 0) {
		engine_diag(e);
		engine_container_delete(e, id, true, true);
		exit(71);
	}
	engine_attach_free(a);
	if (engine_wait_poll(e, w, id, o.poll_ms, &ex) < 0)
		fail(e);
	engine_wait_free(w);
	if (engine_container_inspect(e, id, &st) < 0)
		fail(e);
	if (diag_verbose())
		fprintf(stderr, "engine-cli: status=%d polled=%d oom=%d\n",
		    ex.status, ex.polled, st.oom_killed);
	status = ex.status;
	if (st.oom_killed) {
		diag(3008, NULL, "container '%.12s' was killed for running out "
		    "of memory (exit status %d)", id, ex.status);
		status = 71;
	} else if (ex.error.len || *st.error) {
		diag(3006, NULL, "engine at '%s' reported an error running "
		    "container '%.12s': %s", engine_socket(e), id,
		    ex.error.len ? ex.error.buf : st.error);
		status = 71;
	} else if (forwarded) {
		/* A forwarded signal ends the run as that signal. */
		status = 128 + forwarded;
	}
	engine_container_release(&st);
	strbuf_release(&ex.error);
	if (!o.keep && engine_container_delete(e, id, true, true) < 0)
		fail(e);
	free(id);
	strbuf_release(&body);
	return status < 0 || status > 255 ? 71 : status;
}

/* The descriptors open now, above 2, as a bit set of the first 1024. */
static void
open_fds(unsigned char set[128])
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	long fd;

	memset(set, 0, 128);
	if (!d)
		die_status(71, "cannot read /proc/self/fd: %s",
		    strerror(errno));
	while ((de = readdir(d)))
		if (parse_long(de->d_name, 3, 1023, &fd) && fd != dirfd(d))
			set[fd / 8] |= (unsigned char)(1 << (fd % 8));
	closedir(d);
}

static unsigned char inherited_fds[128];

/*
 * Open one of each kind of connection the client makes (libcurl's, the
 * wait's, the attach's), then look at every descriptor opened since the
 * start: each must be close-on-exec.
 */
static int
cmd_fdcheck(struct engine *e, int argc, char **argv)
{
	struct engine_info info;
	struct engine_wait *w;
	struct engine_attach *a;
	unsigned char now[128];
	int fd, flags, leaks = 0, seen = 0;

	if (argc != 2)
		usage(2);
	if (engine_info(e, &info) < 0)
		fail(e);
	engine_info_release(&info);
	if (engine_wait_begin(e, argv[1], "next-exit", &w) < 0 ||
	    engine_attach(e, argv[1], true, false, &a) < 0)
		fail(e);
	open_fds(now);
	for (fd = 3; fd < 1024; fd++) {
		if (!(now[fd / 8] & (1 << (fd % 8))) ||
		    (inherited_fds[fd / 8] & (1 << (fd % 8))))
			continue;
		seen++;
		flags = fcntl(fd, F_GETFD);
		if (flags < 0 || !(flags & FD_CLOEXEC)) {
			printf("leak=%d\n", fd);
			leaks++;
		}
	}
	printf("descriptors=%d\nleaks=%d\n", seen, leaks);
	engine_attach_free(a);
	engine_wait_free(w);
	return leaks ? 1 : 0;
}

/* ---- main ---------------------------------------------------------------- */

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "container-api", required_argument, NULL, 'H' },
		{ "connect-timeout", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *url = getenv("MAGUS_CONTAINER_API"), *cmd;
	struct engine *e;
	long connect_ms = 0, request_ms = 0;
	int c, ret, verbose = 0;

	sane_start();
	diag_init(argv[0]);
	while ((c = getopt_long(argc, argv, "+H:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			url = optarg;
			break;
		case 'c':
			if (!parse_long(optarg, 1, 3600000, &connect_ms))
				usage(2);
			break;
		case 't':
			if (!parse_long(optarg, 1, 3600000, &request_ms))
				usage(2);
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	diag_set_verbose(verbose);
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(2);
	cmd = argv[0];
	if (!url)
		die_status(2, "no engine: give -H unix:///path or set "
		    "MAGUS_CONTAINER_API");

	if (!strcmp(cmd, "fdcheck"))
		open_fds(inherited_fds);
	if (engine_open(&e, url) < 0)
		fail(e);
	engine_set_timeouts(e, (int)connect_ms, (int)request_ms);
	if (engine_connect(e) < 0)
		fail(e);

	if (!strcmp(cmd, "ping"))
		ret = cmd_ping(e);
	else if (!strcmp(cmd, "info"))
		ret = cmd_info(e, argc, argv);
	else if (!strcmp(cmd, "image-inspect"))
		ret = cmd_image_inspect(e, argc, argv);
	else if (!strcmp(cmd, "image-pull"))
		ret = cmd_image_pull(e, argc, argv);
	else if (!strcmp(cmd, "create"))
		ret = cmd_create(e, argc, argv);
	else if (!strcmp(cmd, "start") && argc == 2)
		ret = engine_container_start(e, argv[1]) < 0 ? (fail(e), 1) : 0;
	else if (!strcmp(cmd, "kill") && argc == 3)
		ret = engine_container_kill(e, argv[1], argv[2]) < 0 ?
		    (fail(e), 1) : 0;
	else if (!strcmp(cmd, "resize") && argc == 4) {
		long rows, cols;

		if (!parse_long(argv[2], 1, 65535, &rows) ||
		    !parse_long(argv[3], 1, 65535, &cols))
			usage(2);
		ret = engine_container_resize(e, argv[1], (unsigned)rows,
		    (unsigned)cols) < 0 ? (fail(e), 1) : 0;
	} else if (!strcmp(cmd, "inspect"))
		ret = cmd_inspect(e, argc, argv);
	else if (!strcmp(cmd, "wait"))
		ret = cmd_wait(e, argc, argv);
	else if (!strcmp(cmd, "rm") && argc >= 2)
		ret = engine_container_delete(e, argv[1],
		    has_flag(argc, argv, "--force"),
		    has_flag(argc, argv, "--volumes")) < 0 ? (fail(e), 1) : 0;
	else if (!strcmp(cmd, "ps"))
		ret = cmd_ps(e, argc, argv);
	else if (!strcmp(cmd, "volume-create"))
		ret = cmd_volume_create(e, argc, argv);
	else if (!strcmp(cmd, "volumes"))
		ret = cmd_volumes(e, argc, argv);
	else if (!strcmp(cmd, "volume-rm") && argc >= 2)
		ret = engine_volume_delete(e, argv[1],
		    has_flag(argc, argv, "--force")) < 0 ? (fail(e), 1) : 0;
	else if (!strcmp(cmd, "attach"))
		ret = cmd_attach(e, argc, argv);
	else if (!strcmp(cmd, "run"))
		ret = cmd_run(e, argc, argv);
	else if (!strcmp(cmd, "fdcheck"))
		ret = cmd_fdcheck(e, argc, argv);
	else
		usage(2);
	engine_free(e);
	if (fflush(stdout) != 0)
		die_status(71, "cannot write stdout: %s", strerror(errno));
	return ret;
}
