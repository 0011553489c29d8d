/*
 * magus-scip: run one SCIP indexer from its pinned image on the named
 * container engine, inside the bounds its declaration gives, and
 * install the index it writes only when the run succeeded and the file
 * is a well-formed SCIP index.  Every run that reaches the index
 * directory leaves a status.json saying what happened (scip.md).
 *
 * The steps, in order:
 *   1. the command line and the environment (MGS5001, MGS5008);
 *   2. the index directory, its lock, and the indexer's writable
 *      directory, where the output goes under a temporary name (MGS5007);
 *   3. the engine (MGS5002 when none is named; 3001..3005 when it cannot
 *      be used) and the image, present and for this platform;
 *   4. the container: mounts, environment, bounds and hardening
 *      (containers.md), created, attached and waited on before start;
 *   5. the output streamed, the cgroup's counters sampled, signals
 *      forwarded, the exit read, inspect for an OOM kill, delete;
 *   6. the verdict: oom (MGS5003), failed (MGS5004, MGS5005), or the
 *      index checked and renamed into place.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <dirent.h>
#include <unistd.h>

#include "cgroup.h"
#include "diag.h"
#include "engine.h"
#include "json.h"
#include "labels.h"
#include "platform.h"
#include "proc.h"
#include "scip.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "xalloc.h"

static const char usage_text[] =
"usage: magus-scip --root DIR --project PATH --image REF [--memory-mb N]\n"
"                  [--cpus N] [--pids N] [--cache NAME]... [--fetch]\n"
"                  -- COMMAND...\n"
"       magus-scip --help\n";

/* The bounds when the command line gives none (the front always does). */
#define DEFAULT_MEMORY_MB 1024
#define DEFAULT_CPUS 1.0
#define DEFAULT_PIDS 256

/* How often the cgroup's counters are read while the indexer runs. */
#define SAMPLE_MS 20

/* Variables magus-scip sets itself, which no cache may name. */
static const char *const reserved_env[] = {
	"GOPROXY", "GOTOOLCHAIN", "HOME", "TMPDIR", "XDG_CACHE_HOME",
	"GOCACHE", "NODE_OPTIONS", "PATH", NULL,
};

struct run {
	/* the command line */
	const char *root_arg, *project, *image;
	long memory_mb, pids;
	double cpus;
	struct strvec cache_names;
	bool fetch;
	char **command;

	/* resolved */
	char *root;		/* real path */
	char *project_dir;	/* real path, under root */
	char *index_dir;	/* real path */
	char *work_dir;		/* index_dir/.magus-work */
	char *output;		/* work_dir/out/index.scip */
	int index_fd, work_fd, out_fd;
	struct strvec cache_env;	/* NAME=path, as mounted */

	struct scip_status st;
	struct engine *e;
	const char *socket;
	char *id;
	int forwarded;		/* the signal passed on, 0 when none */
	struct cg_sampler cg;
};

static struct run R;

static void NORETURN
usage_error(const char *fmt, ...) PRINTF_LIKE(1, 2);

static void
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(5001, "run 'magus-scip --help' for the usage", fmt, ap);
	va_end(ap);
	exit(2);
}

/* ---- 1. the command line ------------------------------------------------- */

static bool
env_name_ok(const char *s)
{
	size_t i;

	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' &&
		    s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_'))
			return false;
	return true;
}

static void
parse_args(int argc, char **argv)
{
	static const struct option options[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "project", required_argument, NULL, 'p' },
		{ "image", required_argument, NULL, 'i' },
		{ "memory-mb", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "pids", required_argument, NULL, 'n' },
		{ "cache", required_argument, NULL, 'C' },
		{ "fetch", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	R.memory_mb = DEFAULT_MEMORY_MB;
	R.cpus = DEFAULT_CPUS;
	R.pids = DEFAULT_PIDS;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		switch (opt) {
		case 'r':
			R.root_arg = optarg;
			break;
		case 'p':
			R.project = optarg;
			break;
		case 'i':
			R.image = optarg;
			break;
		case 'm':
			if (!parse_long(optarg, 6, 1L << 20, &R.memory_mb))
				usage_error("--memory-mb '%s' is not a number "
				    "of MiB from 6 to 1048576", optarg);
			break;
		case 'c':
			if (!parse_positive_double(optarg, &R.cpus) ||
			    R.cpus > 1024)
				usage_error("--cpus '%s' is not a number of "
				    "CPUs above 0, at most 1024", optarg);
			break;
		case 'n':
			if (!parse_long(optarg, 8, 1L << 22, &R.pids))
				usage_error("--pids '%s' is not a number from "
				    "8 to 4194304", optarg);
			break;
		case 'C':
			if (!env_name_ok(optarg))
				usage_error("--cache '%s' is not a variable "
				    "name", optarg);
			strvec_push(&R.cache_names, optarg);
			break;
		case 'f':
			R.fetch = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case ':':
			usage_error("option '%s' needs a value",
			    argv[optind - 1]);
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!R.root_arg || !R.project || !R.image)
		usage_error("--root, --project and --image are required");
	if (optind >= argc || strcmp(argv[optind - 1], "--"))
		usage_error("the indexer's COMMAND follows '--'");
	R.command = argv + optind;
	if (!scip_image_digest(R.image))
		usage_error("image '%s' is not pinned by digest "
		    "(name@sha256:<64 hex digits>)", R.image);
}

/* The workspace root, the project's directory and the caches. */
static void
resolve_paths(void)
{
	char buf[PATH_MAX];
	const char *why;
	struct stat st;
	size_t i, j;

	if (R.root_arg[0] != '/')
		usage_error("--root '%s' is not an absolute path", R.root_arg);
	errno = 0;
	if (!realpath(R.root_arg, buf) || stat(buf, &st) < 0 ||
	    !S_ISDIR(st.st_mode))
		usage_error("--root '%s' is not a directory: %s", R.root_arg,
		    errno ? strerror(errno) : "not a directory");
	if (!strcmp(buf, "/"))
		usage_error("--root '/' would give the indexer the whole "
		    "host");
	R.root = xstrdup(buf);
	why = scip_project_error(R.project);
	if (why)
		usage_error("--project '%s' is not a canonical relative "
		    "path: %s", R.project, why);
	{
		char *p = path_join(R.root, R.project);

		if (!realpath(p, buf) || stat(buf, &st) < 0 ||
		    !S_ISDIR(st.st_mode))
			usage_error("project '%s' is not a directory in '%s'",
			    R.project, R.root);
		free(p);
	}
	if (strcmp(buf, R.root) && !path_is_under(buf, R.root))
		usage_error("project '%s' leads out of the workspace (to "
		    "'%s')", R.project, buf);
	R.project_dir = xstrdup(buf);

	for (i = 0; i < R.cache_names.n; i++) {
		const char *name = R.cache_names.v[i], *val = getenv(name);

		for (j = 0; reserved_env[j]; j++)
			if (!strcmp(name, reserved_env[j]))
				break;
		if (reserved_env[j] || starts_with(name, "LD_") ||
		    starts_with(name, "MAGUS_"))
			die_mgs(5008, "name a cache variable such as "
			    "GOMODCACHE", "cache '%s' names a variable "
			    "magus-scip sets itself or never passes", name);
		if (!val || !*val)
			die_mgs(5008, "export it first, for example "
			    "GOMODCACHE=\"$(go env GOMODCACHE)\"",
			    "cache '%s' is not set in the environment",
			    name);
		if (val[0] != '/')
			die_mgs(5008, NULL, "cache '%s' is '%s', not an "
			    "absolute path", name, val);
		errno = 0;
		if (!realpath(val, buf) || stat(buf, &st) < 0 ||
		    !S_ISDIR(st.st_mode))
			die_mgs(5008, "a module the host never downloaded "
			    "cannot be indexed: fill the cache on the host "
			    "first", "cache '%s' ('%s') is not a directory: "
			    "%s", name, val, errno ? strerror(errno) :
			    "not a directory");
		if (!strcmp(buf, "/"))
			die_mgs(5008, NULL, "cache '%s' is '/', the whole "
			    "host", name);
		strvec_pushf(&R.cache_env, "%s=%s", name, buf);
	}
}

/* ---- 2. the index directory ---------------------------------------------- */

static void NORETURN
host_failure(const char *what, const char *path)
{
	die_mgs(5007, NULL, "cannot %s '%s': %s", what, path,
	    strerror(errno));
}

static void
mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s)
			continue;
		{
			char c = *s;

			*s = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST)
				host_failure("create the directory", p);
			*s = c;
		}
		if (!*s)
			break;
	}
	free(p);
}

/* Remove `name` under `dfd`, never following a symbolic link. */
static int
remove_tree(int dfd, const char *name, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) || depth > 64)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    remove_tree(dirfd(d), de->d_name, depth + 1) < 0)
			r = -1;
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		r = -1;
	return r;
}

static void
work_subdir(const char *name)
{
	if (mkdirat(R.work_fd, name, 0700) < 0 && errno != EEXIST) {
		char *p = path_join(R.work_dir, name);

		host_failure("create the directory", p);
	}
}

/*
 * <cache.dir>/index/<project>/ holds the index and the status, which
 * the indexer never sees; only .magus-work/ under it is mounted, so a
 * misbehaving indexer cannot touch the good index.  The directory is
 * locked for the run: a second run of the same project waits.
 */
static void
prepare_index_dir(void)
{
	const char *cache = getenv("MAGUS_CACHE_DIR");
	char buf[PATH_MAX], *dir, *cache_abs;
	struct stat st;
	int fd;

	if (cache && *cache)
		cache_abs = cache[0] == '/' ? xstrdup(cache) :
		    path_join(R.root, cache);
	else
		cache_abs = path_join(R.root, ".magus");
	dir = scip_index_dir(cache_abs, R.project);
	mkdir_p(dir, 0755);
	if (!realpath(dir, buf))
		host_failure("resolve", dir);
	R.index_dir = xstrdup(buf);
	free(dir);
	free(cache_abs);

	R.index_fd = open(R.index_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (R.index_fd < 0)
		host_failure("open", R.index_dir);
	if (flock(R.index_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			host_failure("lock", R.index_dir);
		verbose_msg("waiting for another run indexing '%s'",
		    R.project);
		if (RETRY_EINTR(flock(R.index_fd, LOCK_EX)) < 0)
			host_failure("lock", R.index_dir);
	}

	R.work_dir = path_join(R.index_dir, SCIP_WORK_DIR);
	if (mkdirat(R.index_fd, SCIP_WORK_DIR, 0700) < 0 && errno != EEXIST)
		host_failure("create the directory", R.work_dir);
	R.work_fd = openat(R.index_fd, SCIP_WORK_DIR, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (R.work_fd < 0 || fstat(R.work_fd, &st) < 0)
		host_failure("open", R.work_dir);
	/* Only this user may enter: what the indexer leaves here (a setuid
	 * file, say) is no one else's business. */
	if (st.st_uid != getuid() || (st.st_mode & 077)) {
		if (st.st_uid != getuid()) {
			errno = EPERM;
			host_failure("use the directory (owned by another "
			    "user)", R.work_dir);
		}
		if (fchmod(R.work_fd, 0700) < 0)
			host_failure("restrict", R.work_dir);
	}
	work_subdir("home");
	work_subdir("tmp");
	work_subdir("cache");
	work_subdir("go-build");

	/* scip-python's --environment: a package list with no entries. */
	if (remove_tree(R.work_fd, "empty-environment.json", 0) < 0)
		host_failure("replace the empty environment in", R.work_dir);
	fd = openat(R.work_fd, "empty-environment.json", O_WRONLY | O_CREAT |
	    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "[]\n", 3) != 3 || close(fd) < 0)
		host_failure("write the empty environment in", R.work_dir);

	/* A fresh directory for the output; its descriptor is kept, so
	 * whatever the indexer renames or links inside work/, the index is
	 * read from this directory and no other. */
	if (remove_tree(R.work_fd, "out", 0) < 0)
		host_failure("clear the output directory in", R.work_dir);
	if (mkdirat(R.work_fd, "out", 0700) < 0)
		host_failure("create the output directory in", R.work_dir);
	R.out_fd = openat(R.work_fd, "out", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (R.out_fd < 0)
		host_failure("open the output directory in", R.work_dir);
	R.output = xasprintf("%s/out/%s", R.work_dir, SCIP_INDEX_FILE);
}

/* ---- the verdict, recorded ----------------------------------------------- */

static void
release_run(void)
{
	cg_close(&R.cg);
	if (R.out_fd >= 0) {
		close(R.out_fd);
		R.out_fd = -1;
		if (R.work_fd >= 0)
			remove_tree(R.work_fd, "out", 0);
	}
	if (R.work_fd >= 0)
		close(R.work_fd);
	if (R.index_fd >= 0)
		close(R.index_fd);	/* and the lock with it */
	R.work_fd = R.index_fd = -1;
	engine_free(R.e);
	R.e = NULL;
	free(R.id);
	free(R.root);
	free(R.project_dir);
	free(R.index_dir);
	free(R.work_dir);
	free(R.output);
	strvec_clear(&R.cache_names);
	strvec_clear(&R.cache_env);
	scip_status_release(&R.st);
}

static void
record(enum scip_state state, int code, const char *fix, const char *reason)
{
	char now[32];

	scip_time_now(now);
	R.st.state = state;
	free(R.st.time);
	R.st.time = xstrdup(now);
	free(R.st.reason);
	R.st.reason = reason ? xstrdup(reason) : NULL;
	free(R.st.fix);
	R.st.fix = fix ? xstrdup(fix) : NULL;
	free(R.st.code);
	R.st.code = code ? xasprintf("MGS%04d", code) : NULL;
	if (R.cg.peak_bytes >= 0)
		R.st.peak_memory_bytes = R.cg.peak_bytes;
	if (R.cg.cpu_usec >= 0)
		R.st.cpu_usec = R.cg.cpu_usec;
	if (R.cg.oom_kills >= 0)
		R.st.oom_kills = R.cg.oom_kills;
	if (scip_status_write(R.index_dir, &R.st) < 0)
		diag(5007, NULL, "cannot write '%s/%s': %s", R.index_dir,
		    SCIP_STATUS_FILE, strerror(errno));
}

static void
report(enum scip_state state, int code, const char *fix, const char *reason)
{
	record(state, code, fix, reason);
	if (code)
		diag(code, fix, "%s", reason);
	else
		error_msg("%s", reason);
}

/* Record a run that did not give an index, say why, and exit. */
static void NORETURN PRINTF_LIKE(5, 6)
finish(enum scip_state state, int code, int status, const char *fix,
    const char *fmt, ...)
{
	struct strbuf reason = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&reason, fmt, ap);
	va_end(ap);
	report(state, code, fix, reason.buf);
	strbuf_release(&reason);
	release_run();
	exit(status);
}

/* Delete the container, if one was made; already gone is fine. */
static void
delete_container(void)
{
	if (!R.id)
		return;
	if (engine_container_delete(R.e, R.id, true, true) < 0 &&
	    engine_error(R.e)->kind != ENGINE_E_NOTFOUND)
		engine_diag(R.e);
	engine_clear_error(R.e);
	free(R.id);
	R.id = NULL;
}

/* An engine call failed: unavailable when the engine or the image is
 * not there to use, failed otherwise. */
static void NORETURN
engine_failed(void)
{
	const struct engine_error *err = engine_error(R.e);
	enum engine_errkind kind = err->kind;
	const struct mgs_entry *m = mgs_lookup(err->mgs);
	enum scip_state state = SCIP_STATE_FAILED;
	struct strbuf fix = STRBUF_INIT;
	char *msg = xstrdup(err->msg.buf), *hint = xstrdup(err->hint.buf);
	int code = err->mgs;	/* 0: a host-side failure, no code */
	int status = m && m->status ? m->status : 71;

	delete_container();
	switch (kind) {
	case ENGINE_E_URL:
		state = SCIP_STATE_UNAVAILABLE;
		strbuf_addstr(&fix, "correct container.api in the user "
		    "configuration (~/.config/magus/config.yaml) or "
		    "MAGUS_CONTAINER_API: unix:///path/to/engine.sock");
		break;
	case ENGINE_E_CONNECT:
		state = SCIP_STATE_UNAVAILABLE;
		strbuf_addf(&fix, "start the container runtime that serves "
		    "'%s' (podman: podman system service --time=0 unix://%s),"
		    " then run 'magus scip %s' again", R.socket, R.socket,
		    R.project);
		break;
	case ENGINE_E_VERSION:
		state = SCIP_STATE_UNAVAILABLE;
		strbuf_addstr(&fix, "upgrade the container runtime to one "
		    "speaking Engine API " ENGINE_API_MIN " or newer");
		break;
	case ENGINE_E_NOTFOUND:
		if (code == 3005) {
			state = SCIP_STATE_UNAVAILABLE;
			strbuf_addf(&fix, "magus --fetch scip %s (pulls the "
			    "pinned image '%s')", R.project, R.image);
		}
		break;
	default:
		break;
	}
	if (!fix.len && *hint)
		strbuf_addstr(&fix, hint);
	report(state, code, fix.len ? fix.buf : NULL, msg);
	strbuf_release(&fix);
	free(msg);
	free(hint);
	release_run();
	exit(status);
}

/* ---- 3. the engine and the image ----------------------------------------- */

static void
progress(void *ctx UNUSED, const char *id, const char *status,
    const char *prog)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "%s %s %s\n", id, status, prog);
}

static void
connect_engine(void)
{
	const char *api = getenv("MAGUS_CONTAINER_API");
	struct engine_image img;
	struct platform host;

	if (!api || !*api)
		finish(SCIP_STATE_UNAVAILABLE, 5002, 71, "set container.api "
		    "in the user configuration (~/.config/magus/config.yaml),"
		    " e.g. 'container: {api: unix:///run/user/1000/podman/"
		    "podman.sock}', or export MAGUS_CONTAINER_API",
		    "no container runtime is configured to run the indexer "
		    "of '%s'", R.project);
	if (engine_open(&R.e, api) < 0)
		engine_failed();
	R.socket = engine_socket(R.e);
	if (engine_connect(R.e) < 0)
		engine_failed();
	memset(&img, 0, sizeof(img));
	if (engine_image_inspect(R.e, R.image, &img) < 0) {
		if (!R.fetch || engine_error(R.e)->kind != ENGINE_E_NOTFOUND)
			engine_failed();
		engine_clear_error(R.e);
		platform_host(&host);
		if (engine_image_pull(R.e, R.image, platform_str(&host),
		    progress, NULL) < 0 ||
		    engine_image_inspect(R.e, R.image, &img) < 0)
			engine_failed();
	}
	/* Podman ignores "platform" on create: compare here. */
	platform_host(&host);
	if ((img.os && strcmp(img.os, host.os)) || (img.arch &&
	    strcmp(img.arch, host.arch))) {
		struct strbuf got = STRBUF_INIT;

		strbuf_addf(&got, "%s/%s", img.os ? img.os : "?",
		    img.arch ? img.arch : "?");
		engine_image_release(&img);
		finish(SCIP_STATE_FAILED, 5009, 71, "pin the digest of the "
		    "image's variant for this platform (a manifest list's "
		    "entry)", "image '%s' is for %s, not for this host's %s",
		    R.image, got.buf, platform_str(&host));
	}
	engine_image_release(&img);
}

/* ---- 4. the container ---------------------------------------------------- */

/* COMMAND with {output}, {project}, {root} and {work} replaced. */
static void
expand(const char *arg, struct strbuf *out)
{
	static const char *const keys[] = {
		"{output}", "{project}", "{root}", "{work}",
	};
	const char *vals[4];
	size_t i;

	vals[0] = R.output;
	vals[1] = R.project_dir;
	vals[2] = R.root;
	vals[3] = R.work_dir;
	while (*arg) {
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (starts_with(arg, keys[i]))
				break;
		if (i < ARRAY_SIZE(keys)) {
			strbuf_addstr(out, vals[i]);
			arg += strlen(keys[i]);
		} else {
			strbuf_addch(out, *arg++);
		}
	}
}

static void
add_mount(struct json *j, const char *type, const char *path, bool ro)
{
	json_object_begin(j);
	json_kv_str(j, "Type", type);
	if (strcmp(type, "tmpfs"))
		json_kv_str(j, "Source", path);
	json_kv_str(j, "Target", path);
	json_kv_bool(j, "ReadOnly", ro);
	json_object_end(j);
}

/* NAME=<work dir>/SUB into the environment array being written. */
static void
env_in_work(struct json *j, const char *name, const char *sub)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s=%s/%s", name, R.work_dir, sub);
	json_str(j, sb.buf);
	strbuf_release(&sb);
}

/*
 * The create request (containers.md): the workspace read-only at its
 * own path, the indexer's writable directory, each cache read-only; the
 * environment magus-scip names and nothing else from the host; memory
 * without swap, CPUs, pids; no network, no capability, no privilege
 * gained, a read-only root file system, the host user.
 */
static void
build_body(const struct magus_labels *l, struct strbuf *body)
{
	struct strbuf arg = STRBUF_INIT;
	struct json j;
	long long mem = (long long)R.memory_mb << 20;
	size_t i;

	json_init(&j, body);
	json_object_begin(&j);
	json_kv_str(&j, "Image", R.image);
	/* The whole command is ours: the image's entrypoint is replaced. */
	json_key(&j, "Entrypoint");
	json_array_begin(&j);
	expand(R.command[0], &arg);
	json_str(&j, arg.buf);
	json_array_end(&j);
	json_key(&j, "Cmd");
	json_array_begin(&j);
	for (i = 1; R.command[i]; i++) {
		strbuf_reset(&arg);
		expand(R.command[i], &arg);
		json_str(&j, arg.buf);
	}
	json_array_end(&j);
	json_kv_str(&j, "WorkingDir", R.project_dir);
	strbuf_reset(&arg);
	strbuf_addf(&arg, "%u:%u", (unsigned)getuid(), (unsigned)getgid());
	json_kv_str(&j, "User", arg.buf);
	json_key(&j, "Env");
	json_array_begin(&j);
	json_str(&j, "GOPROXY=off");
	json_str(&j, "GOTOOLCHAIN=local");
	env_in_work(&j, "HOME", "home");
	env_in_work(&j, "TMPDIR", "tmp");
	env_in_work(&j, "XDG_CACHE_HOME", "cache");
	env_in_work(&j, "GOCACHE", "go-build");
	/* A Node indexer's heap stays inside the bound instead of being
	 * killed at it. */
	strbuf_reset(&arg);
	strbuf_addf(&arg, "NODE_OPTIONS=--max-old-space-size=%ld",
	    R.memory_mb * 3 / 4);
	json_str(&j, arg.buf);
	for (i = 0; i < R.cache_env.n; i++)
		json_str(&j, R.cache_env.v[i]);
	json_array_end(&j);
	json_kv_bool(&j, "Tty", false);
	json_kv_bool(&j, "OpenStdin", false);
	json_kv_bool(&j, "AttachStdin", false);
	json_kv_bool(&j, "AttachStdout", true);
	json_kv_bool(&j, "AttachStderr", true);
	json_kv_bool(&j, "NetworkDisabled", true);
	json_key(&j, "Labels");
	json_object_begin(&j);
	labels_json_members(l, &j);
	json_object_end(&j);

	json_key(&j, "HostConfig");
	json_object_begin(&j);
	json_kv_str(&j, "NetworkMode", "none");
	engine_json_hardening(&j);
	json_kv_bool(&j, "ReadonlyRootfs", true);
	json_kv_int(&j, "Memory", mem);
	json_kv_int(&j, "MemorySwap", mem);
	json_kv_int(&j, "NanoCpus", (long long)(R.cpus * 1e9 + 0.5));
	json_kv_int(&j, "PidsLimit", R.pids);
	json_key(&j, "Mounts");
	json_array_begin(&j);
	add_mount(&j, "bind", R.root, true);
	add_mount(&j, "bind", R.work_dir, false);
	for (i = 0; i < R.cache_env.n; i++)
		add_mount(&j, "bind", strchr(R.cache_env.v[i], '=') + 1, true);
	json_array_end(&j);
	json_object_end(&j);
	json_object_end(&j);
	strbuf_release(&arg);
}

/* ---- 5. the run ---------------------------------------------------------- */

/* The read end of the self-pipe the handled signals are written into. */
static int sig_fd = -1;

static void
catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

	sig_fd = signal_pipe(sigs, ARRAY_SIZE(sigs));
	if (sig_fd < 0)
		die_status(71, "cannot catch signals: %s", strerror(errno));
	/* A reader that goes away is a write error (the container is then
	 * deleted and the run recorded), not a silent death leaving the
	 * container behind. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die_status(71, "signal: %s", strerror(errno));
}

/* The first signal goes to the indexer by name; a second one kills. */
static void
forward_signals(void)
{
	int c;

	while ((c = signal_pipe_next(sig_fd))) {
		const char *name = R.forwarded ? "KILL" :
		    engine_signal_name(c);

		if (!R.forwarded)
			R.forwarded = c;
		if (engine_container_kill(R.e, R.id, name) < 0) {
			if (engine_error(R.e)->kind != ENGINE_E_CONFLICT)
				engine_diag(R.e);
			engine_clear_error(R.e);
		}
	}
}

/*
 * The pump's wake descriptor is an epoll set of the signal pipe and,
 * while the cgroup can be read, a timer: either wakes the pump.
 */
static int
make_waker(int *timer)
{
	struct epoll_event ev;
	struct itimerspec its;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	*timer = -1;
	if (ep < 0)
		die_status(71, "epoll_create1: %s", strerror(errno));
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = sig_fd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sig_fd, &ev) < 0)
		die_status(71, "epoll_ctl: %s", strerror(errno));
	if (!cg_active(&R.cg))
		return ep;
	*timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (*timer < 0)
		die_status(71, "timerfd_create: %s", strerror(errno));
	memset(&its, 0, sizeof(its));
	its.it_interval.tv_nsec = its.it_value.tv_nsec = SAMPLE_MS * 1000000L;
	ev.data.fd = *timer;
	if (timerfd_settime(*timer, 0, &its, NULL) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, *timer, &ev) < 0)
		die_status(71, "timerfd: %s", strerror(errno));
	return ep;
}

/* Find the container's cgroup while it runs, to read its counters. */
static void
watch_cgroup(void)
{
	struct engine_container c;

	cg_init(&R.cg);
	memset(&c, 0, sizeof(c));
	if (engine_container_inspect(R.e, R.id, &c) < 0) {
		engine_clear_error(R.e);
		return;
	}
	if (c.running && cg_open(&R.cg, c.pid, R.id) == 0)
		verbose_msg("reading the counters of cgroup '%s'", R.cg.path);
	else
		verbose_msg("the container's cgroup is not readable here: "
		    "no measured peak");
	engine_container_release(&c);
}

struct outcome {
	int status;		/* the exit status */
	bool oom;		/* inspect's OOMKilled */
	char *engine_error;	/* the engine's own error, or NULL */
};

static void
run_container(const struct strbuf *body, const struct magus_labels *l,
    struct outcome *out)
{
	struct engine_attach *a = NULL;
	struct engine_wait *w = NULL;
	struct engine_exit ex;
	struct engine_container c;
	struct engine_pump pump = {
		.in_fd = -1, .out_fd = STDOUT_FILENO,
		.err_fd = STDERR_FILENO, .wake_fd = -1,
	};
	char name[64];
	int r, timer;
	uint64_t ticks;

	memset(out, 0, sizeof(*out));
	snprintf(name, sizeof(name), "magus-scip-%.12s", l->invocation);
	catch_signals();
	if (engine_container_create(R.e, name, NULL, body->buf, body->len,
	    &R.id, NULL) < 0)
		engine_failed();
	if (engine_attach(R.e, R.id, false, false, &a) < 0 ||
	    engine_wait_begin(R.e, R.id, "next-exit", &w) < 0 ||
	    engine_container_start(R.e, R.id) < 0) {
		engine_wait_free(w);
		engine_attach_free(a);
		engine_failed();
	}
	watch_cgroup();
	pump.wake_fd = make_waker(&timer);
	while ((r = engine_attach_pump(a, &pump)) == ENGINE_PUMP_WAKE) {
		if (timer >= 0 && read(timer, &ticks, sizeof(ticks)) > 0)
			cg_sample(&R.cg);
		forward_signals();
	}
	/* The stream ends when the indexer exits, before the engine
	 * removes its cgroup: this read holds the peak. */
	cg_sample(&R.cg);
	if (timer >= 0)
		close(timer);
	close(pump.wake_fd);
	engine_attach_free(a);
	if (r < 0) {
		engine_wait_free(w);
		engine_failed();
	}
	if (engine_wait_poll(R.e, w, R.id, 1000, &ex) < 0) {
		engine_wait_free(w);
		engine_failed();
	}
	engine_wait_free(w);
	forward_signals();
	memset(&c, 0, sizeof(c));
	if (engine_container_inspect(R.e, R.id, &c) < 0) {
		strbuf_release(&ex.error);
		engine_failed();
	}
	cg_sample(&R.cg);
	cg_close(&R.cg);
	out->status = ex.status;
	out->oom = c.oom_killed;
	if (ex.error.len || (c.error && *c.error))
		out->engine_error = xstrdup(ex.error.len ? ex.error.buf :
		    c.error);
	engine_container_release(&c);
	strbuf_release(&ex.error);
	delete_container();
}

/* ---- 6. the verdict ------------------------------------------------------ */

/* What became of the index, for the end of a failure's reason. */
static const char *
kept(void)
{
	return faccessat(R.index_fd, SCIP_INDEX_FILE, F_OK, 0) == 0 ?
	    "the previous index is kept" : "there is no previous index";
}

static void NORETURN
judge(const struct outcome *o)
{
	struct strbuf why = STRBUF_INIT;
	struct scip_facts facts;
	struct stat st;
	int fd;

	R.st.exit_status = o->status;
	/* The kernel's word only: inspect's OOMKilled, or the cgroup's
	 * own count of OOM kills for a run that then failed.  Never an
	 * exit status of 137 alone, which any SIGKILL gives. */
	if (o->oom || (R.cg.oom_kills > 0 && o->status != 0))
		finish(SCIP_STATE_OOM, 5003, 71, "measure the indexer's peak "
		    "with bench/scip-bounds.sh and raise its memory_mb in "
		    "magus.yaml", "the indexer of '%s' exceeded its declared "
		    "memory bound, memory_mb: %ld (%ld MiB, no swap), and was "
		    "killed; %s", R.project, R.memory_mb, R.memory_mb,
		    kept());
	if (o->engine_error)
		finish(SCIP_STATE_FAILED, 3006, 71, NULL, "engine at '%s' "
		    "reported an error running the indexer of '%s': %s",
		    R.socket, R.project, o->engine_error);
	if (R.forwarded)
		finish(SCIP_STATE_FAILED, 5004, 128 + R.forwarded, NULL,
		    "the indexer of '%s' was stopped by SIG%s; %s",
		    R.project, engine_signal_name(R.forwarded), kept());
	if (o->status != 0)
		finish(SCIP_STATE_FAILED, 5004, o->status > 0 &&
		    o->status < 256 ? o->status : 71, "read the indexer's "
		    "output above; with GOPROXY=off a module the host never "
		    "downloaded fails as a wrong image or a missing cache",
		    "the indexer of '%s' exited with status %d; %s",
		    R.project, o->status, kept());

	fd = openat(R.out_fd, SCIP_INDEX_FILE, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		finish(SCIP_STATE_FAILED, 5005, 1, "make the command write "
		    "its index to {output}", "the indexer of '%s' exited 0 "
		    "but left no index at '%s': %s; %s", R.project,
		    R.output, err == ELOOP ? "a symbolic link" :
		    strerror(err), kept());
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		finish(SCIP_STATE_FAILED, 5005, 1, NULL, "the index of '%s' "
		    "at '%s' is not a plain file of its own; %s", R.project,
		    R.output, kept());
	}
	if (scip_check_fd(fd, &facts, &why) < 0) {
		close(fd);
		finish(SCIP_STATE_FAILED, 5005, 1, "the indexer or its "
		    "command is wrong: it must write a SCIP index to "
		    "{output}", "the index written for '%s' is not a "
		    "well-formed SCIP index (%s); %s", R.project, why.buf,
		    kept());
	}
	if (fsync(fd) < 0 || close(fd) < 0 ||
	    renameat(R.out_fd, SCIP_INDEX_FILE, R.index_fd,
	    SCIP_INDEX_FILE) < 0 || fsync(R.index_fd) < 0)
		finish(SCIP_STATE_FAILED, 5007, 71, NULL, "cannot install "
		    "the index of '%s' in '%s': %s", R.project, R.index_dir,
		    strerror(errno));
	R.st.index_bytes = (long long)st.st_size;
	R.st.documents = (long long)facts.documents;
	{
		char reason[256];

		snprintf(reason, sizeof(reason), "%zu documents, %zu external "
		    "symbols, %lld bytes, by %s", facts.documents,
		    facts.external_symbols, (long long)st.st_size,
		    facts.tool[0] ? facts.tool : "an unnamed tool");
		record(SCIP_STATE_OK, 0, NULL, reason);
		fprintf(stderr, "magus-scip: indexed '%s': %s\n", R.project,
		    reason);
	}
	strbuf_release(&why);
	release_run();
	exit(0);
}

int
main(int argc, char **argv)
{
	struct magus_labels labels;
	struct strbuf body = STRBUF_INIT;
	struct outcome out;
	const char *v;
	long verbose;

	sane_start();
	diag_init(argv[0]);
	v = getenv("MAGUS_VERBOSE");
	if (v && parse_long(v, 0, 100, &verbose))
		diag_set_verbose((int)verbose);
	R.index_fd = R.work_fd = R.out_fd = -1;
	cg_init(&R.cg);
	scip_status_init(&R.st);

	parse_args(argc, argv);
	resolve_paths();
	prepare_index_dir();

	R.st.project = xstrdup(R.project);
	R.st.image = xstrdup(R.image);
	R.st.image_digest = xstrdup(scip_image_digest(R.image));
	R.st.memory_mb = R.memory_mb;
	R.st.cpus = R.cpus;
	R.st.pids = R.pids;

	connect_engine();
	if (labels_init(&labels, R.root, "scip") < 0)
		finish(SCIP_STATE_FAILED, 5007, 71, NULL, "cannot gather the "
		    "labels of this run: %s", strerror(errno));
	build_body(&labels, &body);
	verbose_msg("create request: %s", body.buf);
	run_container(&body, &labels, &out);
	strbuf_release(&body);
	judge(&out);
}
