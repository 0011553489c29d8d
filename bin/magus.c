/*
 * magus: the front.  It reads the global flags, finds the workspace,
 * merges the configuration, and hands the verb to a builtin or to the
 * helper magus-VERB in the exec path, passing its exit status through.
 */
#include "compat.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "execpath.h"
#include "front.h"
#include "platform.h"
#include "proc.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "xalloc.h"

static const struct verb verbs[] = {
	{ "help", cmd_help, NULL, "help [VERB]",
	    "show the verbs, or one verb's usage", false },
	{ "explain", cmd_explain, NULL, "explain [MGSnnnn]",
	    "print a diagnostic's page, or list every code", false },
	{ "doctor", cmd_doctor, NULL, "doctor",
	    "report this host, the workspace and the configuration", true },
	{ "describe", cmd_describe, NULL, "describe tools",
	    "probe the tools magus.yaml declares (in the image, under "
	    "--platform)", true },
	{ "config", cmd_config, NULL, "config list",
	    "print each resolved setting and where it came from", true },
	{ "env", cmd_config, NULL, "env",
	    "the same as 'config list'", true },
	{ "run", cmd_run, NULL, "run TARGET [-- ARG...]",
	    "run a target of magus.yaml, its deps first, in the sandbox",
	    true },
	{ "queue", cmd_queue, NULL, "queue gate [--sandbox=MODE] -- COMMAND...",
	    "run COMMAND in the sandbox on a copy of HEAD", true },
	{ "self", cmd_self, NULL, "self fetch OS/ARCH",
	    "fetch and verify this version's release for a platform", true },
	{ "scip", cmd_scip, NULL, "scip PROJECT|status",
	    "run a project's SCIP indexer, or report each one's status",
	    true },
	{ "clean", cmd_clean, NULL,
	    "clean {--platform OS/ARCH | --all} [--dry-run]",
	    "remove platform stores and leftover labeled containers", true },
	{ NULL, NULL, NULL, NULL, NULL, false },
};

/* Global flags, for the "must precede the verb" hint. */
static const char *const global_flags[] = {
	"-C", "--root", "--config", "--sandbox", "--platform",
	"--print-request", "--fetch", "--container-api", "-o", "--output",
	"-v", "--verbose", "--version", "--exec-path", NULL,
};

const struct verb *
verb_table(void)
{
	return verbs;
}

const struct verb *
verb_find(const char *name)
{
	const struct verb *v;

	for (v = verbs; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

void
print_front_usage(FILE *out)
{
	const struct verb *v;

	fputs("usage: magus [-C DIR] [--root DIR] [--config FILE] "
	    "[--sandbox=MODE]\n"
	    "             [--platform OS/ARCH[/VARIANT]] [--print-request] "
	    "[--fetch]\n"
	    "             [--container-api URL] [-o text|json] [-v] "
	    "VERB [ARG]...\n"
	    "       magus --version | --help | --exec-path[=DIR]\n\n"
	    "verbs:\n", out);
	for (v = verbs; v->name; v++)
		if (strlen(v->synopsis) > 20)
			fprintf(out, "  %s\n  %-20s %s\n", v->synopsis, "",
			    v->summary);
		else
			fprintf(out, "  %-20s %s\n", v->synopsis, v->summary);
	fputs("\n'magus help VERB' shows one verb; 'magus explain MGSnnnn' "
	    "explains a diagnostic.\n", out);
}

void
verb_unknown(const char *name, const char *suggest_prefix)
{
	const char *names[ARRAY_SIZE(verbs)];
	const char *near;
	size_t i;

	for (i = 0; verbs[i].name; i++)
		names[i] = verbs[i].name;
	names[i] = NULL;
	near = closest_word(name, names);
	if (near) {
		struct strbuf hint = STRBUF_INIT;

		strbuf_addf(&hint, "did you mean '%s %s'?", suggest_prefix,
		    near);
		diag(1001, hint.buf, "unknown verb '%s'", name);
		strbuf_release(&hint);
	} else {
		diag(1001, "run 'magus help' for the list of verbs",
		    "unknown verb '%s'", name);
	}
}

void
verb_bad_option(const char *verb, const char *opt)
{
	struct strbuf name = STRBUF_INIT, hint = STRBUF_INIT;
	const char *eq = strchr(opt, '=');
	size_t i;
	bool global = false;

	strbuf_add(&name, opt, eq ? (size_t)(eq - opt) : strlen(opt));
	for (i = 0; global_flags[i]; i++)
		global |= !strcmp(name.buf, global_flags[i]);
	if (global)
		strbuf_addf(&hint, "global flags must precede the verb: "
		    "magus %s %s ...", opt, verb);
	else
		strbuf_addf(&hint, "see 'magus help %s'", verb);
	diag(1002, hint.buf, "%s: unknown option '%s'", verb, opt);
	exit(2);
}

void
verb_usage_error(const char *verb, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT, hint = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	strbuf_addf(&hint, "see 'magus help %s'", verb);
	diag(1002, hint.buf, "%s: %s", verb, msg.buf);
	exit(2);
}

/* ---- global flags --------------------------------------------------- */

/*
 * Match `--name VALUE`, `--name=VALUE` (and `-xVALUE` for a short name).
 * Returns the value and advances *i past what it consumed, or NULL.
 */
static const char *
flag_value(int argc, char **argv, int *i, const char *name)
{
	const char *v;

	if (option_value(argc, argv, i, name, &v) < 0) {
		diag(1002, NULL, "option '%s' needs a value", name);
		exit(2);
	}
	return v;
}

/*
 * The global flags that cross into a relayed run, as typed (a relayed
 * argv runs inside verbatim, less the relay's own flags and the front's
 * --exec-path, which names this machine's helpers).
 */
static struct strvec crossing = STRVEC_INIT;

static int
parse_global(struct front *f, int argc, char **argv)
{
	const char *v;
	int i, at;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool crosses = false;

		at = i;

		if (a[0] != '-')
			break;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_front_usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--version")) {
			printf("magus %s\n", PACKAGE_VERSION);
			exit(0);
		}
		if (!strcmp(a, "--exec-path")) {
			printf("%s\n", exec_path());
			exit(0);
		}
		if (starts_with(a, "--exec-path=")) {
			exec_path_set(a + strlen("--exec-path="));
			continue;
		}
		if (!strcmp(a, "--print-request")) {
			f->print_request = true;
			continue;
		}
		if (!strcmp(a, "--fetch")) {
			f->fetch = true;
			continue;
		}
		if (!strcmp(a, "--verbose") || strspn(a + 1, "v") ==
		    strlen(a + 1)) {
			f->verbose += a[1] == '-' ? 1 : (int)strlen(a + 1);
			crosses = true;
		} else if ((v = flag_value(argc, argv, &i, "-C"))) {
			f->chdir_to = v;
			crosses = true;
		} else if ((v = flag_value(argc, argv, &i, "--root"))) {
			f->root_flag = v;
			crosses = true;
		} else if ((v = flag_value(argc, argv, &i, "--config"))) {
			f->config_file = v;
			crosses = true;
		} else if ((v = flag_value(argc, argv, &i, "--sandbox"))) {
			f->flags.sandbox = v;
			crosses = true;
		}
		if (crosses) {
			for (; at <= i; at++)
				strvec_push(&crossing, argv[at]);
			continue;
		}
		if ((v = flag_value(argc, argv, &i, "--platform"))) {
			f->platform = v;
			continue;
		}
		if ((v = flag_value(argc, argv, &i, "--container-api"))) {
			f->flags.container_api = v;
			continue;
		}
		if ((v = flag_value(argc, argv, &i, "--output")) ||
		    (v = flag_value(argc, argv, &i, "-o"))) {
			if (strcmp(v, "text") && strcmp(v, "json")) {
				diag(1002, NULL, "unknown output format '%s' "
				    "(text or json)", v);
				exit(2);
			}
			f->flags.output = v;
			diag_set_json(!strcmp(v, "json"));
			for (; at <= i; at++)
				strvec_push(&crossing, argv[at]);
			continue;
		}
		diag(1002, "global flags are listed by 'magus --help'",
		    "unknown global option '%s'", a);
		exit(2);
	}
	return i;
}

/* ---- the workspace -------------------------------------------------- */

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool
has_workspace_file(const char *dir)
{
	char *p = path_join(dir, "magus.yaml");
	struct stat st;
	bool r = stat(p, &st) == 0;

	free(p);
	return r;
}

static char *
real_dir(const char *path, const char *what)
{
	char buf[PATH_MAX];

	if (!is_dir(path) || !realpath(path, buf)) {
		diag(1012, NULL, "%s '%s' is not a directory: %s", what, path,
		    errno ? strerror(errno) : "not a directory");
		exit(2);
	}
	return xstrdup(buf);
}

/* The nearest directory at or above `start` holding magus.yaml. */
static char *
discover(const char *start)
{
	char *dir = xstrdup(start);

	for (;;) {
		char *slash;

		if (has_workspace_file(dir))
			return dir;
		slash = strrchr(dir, '/');
		if (!slash || dir[1] == '\0')
			break;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(dir);
	return NULL;
}

static void
resolve_root(struct front *f)
{
	char cwd[PATH_MAX];

	if (f->chdir_to && chdir(f->chdir_to) < 0) {
		diag(1012, NULL, "cannot change to '%s': %s", f->chdir_to,
		    strerror(errno));
		exit(2);
	}
	if (!getcwd(cwd, sizeof(cwd)))
		die_status(71, "cannot read the current directory: %s",
		    strerror(errno));
	if (f->root_flag) {
		f->root = real_dir(f->root_flag, "--root");
		f->have_workspace = has_workspace_file(f->root) ||
		    f->config_file;
		return;
	}
	f->root = discover(cwd);
	if (f->root) {
		f->have_workspace = true;
		return;
	}
	if (f->config_file) {
		char *abs = path_absolute(f->config_file);
		char *slash = strrchr(abs, '/');

		if (slash)
			slash[slash == abs ? 1 : 0] = '\0';
		f->root = real_dir(abs, "the directory of --config");
		free(abs);
		f->have_workspace = true;
		return;
	}
	f->root = xstrdup(cwd);
	f->have_workspace = false;
}

void
front_load_config(struct front *f)
{
	const struct mgs_entry *e;
	int code;

	if (f->cfg_loaded)
		return;
	code = config_load(&f->cfg, f->root, f->config_file, &f->flags);
	if (code) {
		e = mgs_lookup(code);
		exit(e && e->status ? e->status : 2);
	}
	diag_set_json(!strcmp(f->cfg.output.value, "json"));
	f->cfg_loaded = true;
}

void
front_export_env(struct front *f)
{
	struct magus_config *c = &f->cfg;

	setenv("MAGUS_EXEC_PATH", exec_path(), 1);
	setenv("MAGUS_ROOT", f->root, 1);
	if (!f->cfg_loaded)
		return;
	setenv("MAGUS_SANDBOX", sandbox_mode_name(c->sandbox.mode), 1);
	setenv("MAGUS_CACHE_DIR", c->cache_dir_abs, 1);
	setenv("MAGUS_OUTPUT", c->output.value, 1);
	setenv("MAGUS_RELEASE_INDEX", c->self_index.value, 1);
	setenv("MAGUS_PLATFORM_NETWORK", c->platform_network.value, 1);
	if (c->container_api.value)
		setenv("MAGUS_CONTAINER_API", c->container_api.value, 1);
	if (c->self_pubkey.value)
		setenv("MAGUS_RELEASE_PUBKEY", c->self_pubkey.value, 1);
	if (c->workspace_file)
		setenv("MAGUS_CONFIG", c->workspace_file, 1);
	if (f->verbose) {
		char n[16];

		snprintf(n, sizeof(n), "%d", f->verbose);
		setenv("MAGUS_VERBOSE", n, 1);
	}
}

int
front_run_helper(const char *name, char **argv)
{
	struct strvec av = STRVEC_INIT;
	char *path = helper_path(name);
	struct run_opts opts = { NULL, NULL, NULL, NULL };
	int status, err = 0;

	opts.exec_errno = &err;
	opts.share_vm = true; /* the front catches no signal (proc.h) */
	strvec_pushf(&av, "magus-%s", name);
	strvec_pushv(&av, argv + 1);
	if (access(path, F_OK) < 0) {
		diag(1009, "run 'magus --exec-path' to see where helpers are "
		    "looked for", "helper 'magus-%s' not found in '%s'", name,
		    exec_path());
		strvec_clear(&av);
		free(path);
		return 127;
	}
	status = run_child(path, av.v, NULL, &opts);
	if (status < 0 || err) {
		diag(1010, NULL, "cannot execute '%s': %s", path,
		    strerror(status < 0 ? errno : err));
		status = err == ENOENT ? 127 : 126;
	}
	strvec_clear(&av);
	free(path);
	return status;
}

/* A verb no builtin knows: "did you mean" or a helper of that name. */
static int
dispatch_external(struct front *f, int argc UNUSED, char **argv)
{
	char *path;

	/* git's extension point: any magus-NAME in the exec path is a verb,
	 * as long as NAME is a plain word. */
	if (strspn(argv[0], "abcdefghijklmnopqrstuvwxyz0123456789-") ==
	    strlen(argv[0]) && argv[0][0] != '-') {
		path = helper_path(argv[0]);
		if (access(path, X_OK) == 0) {
			free(path);
			front_load_config(f);
			front_export_env(f);
			return front_run_helper(argv[0], argv);
		}
		free(path);
	}
	verb_unknown(argv[0], "magus");
	return 2;
}

/*
 * Hand the whole invocation to magus-relay, which runs it on --platform:
 * the crossing global flags and the verb's argv, from the directory the
 * command was typed in (a -C crosses as typed and applies inside).  The
 * front execs the relay rather than waiting for it, so a signal reaches
 * the relay alone and its rules (first forwarded, second kills and
 * removes the container) are the only ones in play.
 */
static int
relay(struct front *f, int argc, char **argv, const char *cwd)
{
	struct strvec av = STRVEC_INIT;
	char *path = helper_path("relay");
	int i, err;

	front_load_config(f);
	front_export_env(f);
	strvec_push(&av, "magus-relay");
	strvec_pushf(&av, "--platform=%s", f->platform);
	strvec_pushf(&av, "--root=%s", f->root);
	if (f->print_request)
		strvec_push(&av, "--print-request");
	if (f->fetch)
		strvec_push(&av, "--fetch");
	if (f->verbose)
		strvec_push(&av, "-v");
	strvec_push(&av, "--");
	strvec_pushv(&av, crossing.v);
	for (i = 0; i < argc; i++)
		strvec_push(&av, argv[i]);
	if (cwd && chdir(cwd) < 0) {
		diag(1012, NULL, "cannot change back to '%s': %s", cwd,
		    strerror(errno));
		return 2;
	}
	execv(path, av.v);
	err = errno;
	if (err == ENOENT)
		diag(1009, "run 'magus --exec-path' to see where helpers are "
		    "looked for", "helper 'magus-relay' not found in '%s'",
		    exec_path());
	else
		diag(1010, NULL, "cannot execute '%s': %s", path,
		    strerror(err));
	strvec_clear(&av);
	free(path);
	return err == ENOENT ? 127 : 126;
}

static int
run_verb(struct front *f, int argc, char **argv, int i)
{
	const struct verb *v;
	char cwd[PATH_MAX];
	bool have_cwd = getcwd(cwd, sizeof(cwd)) != NULL;

	resolve_root(f);
	if (f->platform) {
		struct platform p;
		struct strbuf err = STRBUF_INIT;
		int bad = platform_parse(f->platform, &p, &err);

		if (bad < 0)
			diag(1002, NULL, "--platform: %s", err.buf);
		strbuf_release(&err);
		if (bad < 0)
			return 2;
		/* The host's own platform: nothing changes, the verb runs
		 * here.  Another platform is the relay's. */
		if (!platform_is_host(&p))
			return relay(f, argc - i, argv + i,
			    have_cwd ? cwd : NULL);
	}
	v = verb_find(argv[i]);
	if (!v)
		return dispatch_external(f, argc - i, argv + i);
	if (v->needs_config)
		front_load_config(f);
	if (v->fn)
		return v->fn(f, argc - i, argv + i);
	front_export_env(f);
	return front_run_helper(v->helper, argv + i);
}

int
main(int argc, char **argv)
{
	struct front f;
	int i, rc;

	sane_start();
	diag_init("magus");
	memset(&f, 0, sizeof(f));
	i = parse_global(&f, argc, argv);
	diag_set_verbose(f.verbose);
	if (i >= argc) {
		print_front_usage(stderr);
		return 2;
	}
	rc = run_verb(&f, argc, argv, i);
	if (f.cfg_loaded)
		config_release(&f.cfg);
	free(f.root);
	strvec_clear(&crossing);
	return rc;
}
