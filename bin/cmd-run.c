/*
 * magus run TARGET [-- ARG...]: a target of magus.yaml, its deps first.
 *
 * Each target runs through magus-sandbox-exec in the workspace root,
 * with a private temp dir of its own, under the workspace's sandbox made
 * stronger by the target's own.  Deps run in the order written, each
 * once, depth first; the first that fails stops the run with its status.
 * The configuration already refused unknown deps and cycles.
 */
#include "compat.h"

#include "config.h"
#include "diag.h"
#include "front.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "xalloc.h"

static const char run_usage[] = "usage: magus run TARGET [-- ARG...]\n";

/* Append `t` after its deps to `order`, each target once. */
static void
plan(const struct magus_config *cfg, const struct cfg_target *t,
    const struct cfg_target **order, size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (order[i] == t)
			return;
	for (i = 0; i < t->deps.n; i++)
		plan(cfg, config_target(cfg, t->deps.v[i]), order, n);
	order[(*n)++] = t;
}

static NORETURN void
unknown_target(const struct magus_config *cfg, const char *name)
{
	const char **names = xcalloc(cfg->ntargets + 1, sizeof(*names));
	struct strbuf hint = STRBUF_INIT;
	const char *near;
	size_t i;

	for (i = 0; i < cfg->ntargets; i++)
		names[i] = cfg->targets[i].name;
	near = closest_word(name, names);
	if (near) {
		strbuf_addf(&hint, "did you mean '%s'?", near);
	} else if (cfg->ntargets) {
		strbuf_addstr(&hint, "targets:");
		for (i = 0; i < cfg->ntargets; i++)
			strbuf_addf(&hint, " %s", names[i]);
	} else {
		strbuf_addstr(&hint, "magus.yaml declares no targets");
	}
	diag(1013, hint.buf, "unknown target '%s'", name);
	exit(2);
}

/*
 * The command line of `t`: a string goes through /bin/sh -c (the
 * target's name is its $0); ARGs are appended to the command as
 * separate words, "$@" for a string.
 */
static void
command_of(const struct cfg_target *t, char **args, int nargs,
    struct strvec *cmd)
{
	int i;

	if (t->cmdline) {
		strvec_push(cmd, "/bin/sh");
		strvec_push(cmd, "-c");
		if (nargs)
			strvec_pushf(cmd, "%s \"$@\"", t->cmdline);
		else
			strvec_push(cmd, t->cmdline);
		strvec_push(cmd, t->name);
	} else {
		strvec_pushv(cmd, t->argv.v);
	}
	for (i = 0; i < nargs; i++)
		strvec_push(cmd, args[i]);
}

static int
run_target(struct front *f, const struct cfg_target *t, char **args,
    int nargs)
{
	const struct magus_config *cfg = &f->cfg;
	struct strvec cmd = STRVEC_INIT;
	struct sandboxed s;
	int status;

	memset(&s, 0, sizeof(s));
	s.root = f->root;
	s.cwd = f->root;
	s.mode = cfg->sandbox.mode;
	if (t->sandbox.mode > s.mode)
		s.mode = t->sandbox.mode;
	s.base = &cfg->sandbox;
	s.extra = &t->sandbox;
	command_of(t, args, nargs, &cmd);
	s.argv = cmd.v;
	if (f->verbose)
		verbose_msg("target '%s' (sandbox %s)", t->name,
		    sandbox_mode_name(s.mode));
	status = front_run_sandboxed(f, &s);
	strvec_clear(&cmd);
	return status;
}

/* "PROJECT::scip", with a project named. */
static bool
is_scip_target(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, "::scip");
}

int
cmd_run(struct front *f, int argc, char **argv)
{
	const struct cfg_target *t, **order;
	const char *name = NULL;
	char **args = NULL;
	int i, nargs = 0, status = 0;
	size_t n = 0, k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			fputs(run_usage, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--")) {
			if (!name)
				verb_usage_error("run", "name the target "
				    "before '--'");
			args = argv + i + 1;
			nargs = argc - i - 1;
			break;
		}
		if (argv[i][0] == '-')
			verb_bad_option("run", argv[i]);
		if (name)
			verb_usage_error("run", "extra argument '%s': "
			    "arguments for the target follow '--'", argv[i]);
		name = argv[i];
	}
	if (!name)
		verb_usage_error("run", "name a target");
	if (!f->have_workspace)
		die_mgs(1015, NULL, "no workspace: no magus.yaml in '%s' or "
		    "above it", f->root);
	if (is_scip_target(name)) {
		/* PROJECT::scip is the project's indexer, the same run as
		 * 'magus scip PROJECT'; it takes no arguments of its own. */
		char *project = xstrndup(name, strlen(name) - 6);

		if (args)
			verb_usage_error("run", "'%s' takes no arguments after "
			    "'--'", name);
		status = scip_run_project(f, project);
		free(project);
		return status;
	}
	t = config_target(&f->cfg, name);
	if (!t)
		unknown_target(&f->cfg, name);

	order = xcalloc(f->cfg.ntargets, sizeof(const struct cfg_target *));
	plan(&f->cfg, t, order, &n);
	front_export_env(f);
	for (k = 0; k < n; k++) {
		bool last = k + 1 == n;

		status = run_target(f, order[k], last ? args : NULL,
		    last ? nargs : 0);
		if (status && !last) {
			error_msg("target '%s' failed with status %d; '%s' "
			    "did not run", order[k]->name, status, name);
			break;
		}
	}
	free(order);
	return status;
}
