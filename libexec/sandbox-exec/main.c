/*
 * magus-sandbox-exec: confine this process and run a command in it.
 *
 * One link in a chain, s6-style: it changes the process's confinement
 * and environment, then becomes the command (with --tmp) or runs it as
 * its only child and cleans up after it.  main() is the checklist, in
 * the order the steps happen; each step refuses with its code and
 * nothing runs.  Every input comes from argv and the environment; no
 * configuration file is read (magus-sandbox-exec(1) lists them all).
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "landlock.h"
#include "proc.h"
#include "sandbox.h"
#include "strbuf.h"
#include "strutil.h"
#include "tmpdir.h"
#include "xalloc.h"

extern char **environ;

static const char usage_text[] =
    "usage: magus-sandbox-exec [--mode off|best-effort|required] --root DIR\n"
    "           [--tmp DIR] [--allow MODE:PATH]... "
    "[--passthrough PATTERN]...\n"
    "           [--network allow|none|proxy] [--egress-allow HOST:PORT]...\n"
    "           [--egress-log FILE] [--print-policy] [-v] "
    "-- COMMAND [ARG]...\n";

static NORETURN void
usage_error(const char *fmt, ...) PRINTF_LIKE(1, 2);

static void
usage_error(const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	diag(1002, "see 'magus-sandbox-exec --help'", "%s", msg.buf);
	exit(2);
}

/* "--name VALUE" or "--name=VALUE": the value, advancing *i; else NULL. */
static const char *
opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc)
		usage_error("option '%s' needs a value", name);
	return argv[++*i];
}

static void
parse_args(struct policy *p, int argc, char **argv)
{
	const char *mode = NULL, *net = NULL, *v;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (a[0] == '-' && a[1] == 'v' && strspn(a + 1, "v") ==
		    strlen(a + 1)) {
			p->verbose += (int)strlen(a + 1);
			continue;
		}
		if (!strcmp(a, "--print-policy")) {
			p->print = true;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--mode"))) {
			mode = v;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--root"))) {
			p->root_arg = v;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--tmp"))) {
			p->tmp_arg = v;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--allow"))) {
			strvec_push(&p->allow, v);
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--passthrough"))) {
			strvec_push(&p->passthrough, v);
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--network"))) {
			net = v;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--egress-allow"))) {
			strvec_push(&p->egress, v);
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--egress-log"))) {
			p->egress_log = v;
			continue;
		}
		if (a[0] == '-')
			usage_error("unknown option '%s'", a);
		usage_error("'%s': the command follows '--'", a);
	}
	if (i < argc)
		p->command = argv + i;
	else if (!p->print)
		usage_error("no command: name it after '--'");
	if (!p->root_arg)
		usage_error("--root DIR is required");
	if (mode) {
		p->mode = sandbox_mode_parse(mode);
		if (p->mode == SANDBOX_UNSET)
			usage_error("--mode: unknown sandbox mode '%s' (off, "
			    "best-effort or required)", mode);
	}
	if (net && strcmp(net, "allow") && strcmp(net, "none") &&
	    strcmp(net, "proxy"))
		usage_error("--network: unknown network mode '%s' (allow, "
		    "none or proxy)", net);
	p->network_none = net && !strcmp(net, "none");
	p->network_proxy = net && !strcmp(net, "proxy");
	if (!p->network_proxy && (p->egress.n || p->egress_log))
		usage_error("--%s needs --network proxy", p->egress.n ?
		    "egress-allow" : "egress-log");
	diag_set_verbose(p->verbose);
}

/*
 * The mode: --mode, else $MAGUS_SANDBOX, else off.  A mode inherited in
 * MAGUS_SANDBOX is a floor: asking for less is MGS2010.
 */
static void
resolve_mode(struct policy *p)
{
	const char *env = getenv("MAGUS_SANDBOX");

	p->floor = SANDBOX_UNSET;
	if (env && *env) {
		p->floor = sandbox_mode_parse(env);
		if (p->floor == SANDBOX_UNSET)
			die_mgs(1007, NULL, "MAGUS_SANDBOX: unknown sandbox "
			    "mode '%s' (off, best-effort or required)", env);
	}
	if (p->mode == SANDBOX_UNSET)
		p->mode = p->floor == SANDBOX_UNSET ? SANDBOX_OFF : p->floor;
	if (p->floor != SANDBOX_UNSET && p->mode < p->floor)
		die_mgs(2010, "ask for the same mode or a stronger one",
		    "--mode %s is weaker than the inherited floor "
		    "MAGUS_SANDBOX=%s", sandbox_mode_name(p->mode),
		    sandbox_mode_name(p->floor));
}

/* "(MAGUS_LANDLOCK_ABI_MAX=3)" when the knob lowered the ABI. */
static void
abi_note(const struct policy *p, struct strbuf *sb)
{
	if (p->abi.limit >= 0 && p->abi.limit < landlock_abi_used(p->abi.found))
		strbuf_addf(sb, " (lowered by MAGUS_LANDLOCK_ABI_MAX=%d)",
		    p->abi.limit);
}

static NORETURN void
refuse_required(const struct policy *p, const char *why, const char *hint)
{
	die_mgs(2012, hint, "sandbox mode is required for '%s' and the kernel "
	    "cannot confine its children: %s; run on Linux 6.2 or newer with "
	    "Landlock enabled, or use best-effort to accept binding-level "
	    "checks", p->root, why);
}

/*
 * The kernel: which Landlock ABI there is and which is used, what that
 * leaves unenforced, and whether the mode accepts it.
 */
static void
choose_abi(struct policy *p)
{
	const char *knob = getenv("MAGUS_LANDLOCK_ABI_MAX");
	struct strbuf why = STRBUF_INIT, missing = STRBUF_INIT;
	unsigned want = LANDLOCK_FEAT_RIGHTS;
	int used;

	if (landlock_abi_get(&p->abi, knob) < 0)
		die_mgs(1007, NULL, "MAGUS_LANDLOCK_ABI_MAX: '%s' is not an "
		    "ABI number from 0 to %d", knob, MAGUS_LANDLOCK_ABI_MAX);
	used = p->abi.used;
	if (!p->network_none && !p->network_proxy)
		want &= ~LANDLOCK_FEAT_TCP;
	p->not_enforced = landlock_missing(used, want);
	p->handled_fs = landlock_fs_rights(used);
	/* --network proxy adds one rule at run time: connect to the
	 * forwarder's port. */
	p->handled_net = p->network_none || p->network_proxy ?
	    landlock_net_rights(used) : 0;
	p->scopes = landlock_scopes(used);
	p->restrict_flags = landlock_restrict_flags(used);

	if (used < 1) {
		const char *hint = p->abi.found > 0 ? "unset "
		    "MAGUS_LANDLOCK_ABI_MAX to use the kernel's Landlock" :
		    landlock_errno_hint(p->abi.err);

		if (p->abi.found > 0)
			strbuf_addf(&why, "Landlock turned off by "
			    "MAGUS_LANDLOCK_ABI_MAX=0");
		else
			strbuf_addf(&why, "no Landlock (%s)",
			    strerror(p->abi.err));
		if (p->mode == SANDBOX_REQUIRED)
			refuse_required(p, why.buf, hint);
		diag(2005, hint, "%s: binding-level checks only (the "
		    "environment allowlist and the exec check)", why.buf);
	} else if (p->mode == SANDBOX_REQUIRED &&
	    (used < MAGUS_LANDLOCK_ABI_REQUIRED ||
	    (p->network_none && (p->not_enforced & LANDLOCK_FEAT_TCP)))) {
		landlock_features_text(p->not_enforced, &missing);
		strbuf_addf(&why, "Landlock ABI %d", used);
		abi_note(p, &why);
		strbuf_addf(&why, " cannot enforce %s", missing.buf);
		refuse_required(p, why.buf, p->abi.limit >= 0 ? "unset "
		    "MAGUS_LANDLOCK_ABI_MAX to use every ABI the kernel has" :
		    NULL);
	} else if (p->not_enforced) {
		landlock_features_text(p->not_enforced, &missing);
		strbuf_addf(&why, "Landlock ABI %d", used);
		abi_note(p, &why);
		diag(2013, NULL, "%s: not enforced: %s", why.buf, missing.buf);
	}
	strbuf_release(&why);
	strbuf_release(&missing);
}

/* The command, resolved, must lie beneath an exec grant (MGS2007): the
 * check Landlock makes too, given early and by name. */
static void
check_command(struct policy *p)
{
	struct stat st;
	int fd;

	memset(&st, 0, sizeof(st));
	if (!p->command)
		return;
	p->exe = policy_find_command(p, p->command[0]);
	if (p->exe && (fd = policy_resolve(p->exe, 0, &p->exe_real, &st)) >= 0)
		close(fd);
	if (!p->exe_real) {
		diag(2016, NULL, "command '%s' not found: %s", p->command[0],
		    strerror(errno));
		exit(127);
	}
	/* Not a program: say so now, so that an EACCES from the exec
	 * itself can only be the sandbox's. */
	if (!S_ISREG(st.st_mode) || access(p->exe_real, X_OK) < 0) {
		diag(2017, NULL, "cannot execute '%s': %s", p->command[0],
		    S_ISDIR(st.st_mode) ? strerror(EISDIR) : strerror(EACCES));
		exit(126);
	}
	if (!policy_may_exec(p, p->exe_real))
		die_mgs(2007, "grant its directory with --allow rx:DIR",
		    "exec of '%s' denied: '%s' lies outside every exec grant",
		    p->command[0], p->exe_real);
}

/* A warning when the command would start in a directory it cannot read. */
static void
check_cwd(const struct policy *p)
{
	char *cwd = getcwd(NULL, 0); /* the kernel's path: no symlinks */

	if (cwd && cwd[0] == '/' && !policy_readable(p, cwd))
		diag(2001, "change to the workspace first, or grant the "
		    "directory with --allow", "the current directory '%s' "
		    "lies outside every read grant", cwd);
	free(cwd);
}

int
exec_failed(const struct policy *p, const char *name, int err)
{
	if (err == ENOENT) {
		diag(2016, NULL, "command '%s' not found: %s", name,
		    strerror(err));
		return 127;
	}
	if (err == EACCES && p->abi.used > 0) {
		diag(2007, "grant its directory with --allow rx:DIR",
		    "exec of '%s' denied: %s", name, strerror(err));
		return 126;
	}
	diag(2017, NULL, "cannot execute '%s': %s", name, strerror(err));
	return 126;
}

/* Mode off: the command runs as it would without magus. */
static int
run_unconfined(struct policy *p)
{
	int status;

	if (p->print) {
		policy_print(p);
		policy_release(p);
		return 0;
	}
	execvp(p->command[0], p->command);
	status = exec_failed(p, p->command[0], errno);
	policy_release(p);
	return status;
}

/* Without --tmp: a private temp dir of our own, removed afterwards. */
static void
make_tmp(struct policy *p)
{
	if (p->tmp)
		return;
	p->tmp = private_dir_make("magus-sandbox");
	if (!p->tmp)
		die_mgs(2015, NULL, "cannot make the private temp dir: %s",
		    strerror(errno));
	p->tmp_made = true;
	p->tmp_fd = open(p->tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (p->tmp_fd < 0) {
		int e = errno;

		remove_tree(p->tmp);
		errno = e;
		die_mgs(2015, NULL, "cannot open the private temp dir '%s': %s",
		    p->tmp, strerror(errno));
	}
}

/* With --tmp the child is this process: confine it, or stop here. */
static void
confine_or_die(const struct policy *p, int ruleset)
{
	struct strbuf why = STRBUF_INIT;

	if (confine_self(p, ruleset, &why) < 0)
		die_mgs(2015, NULL, "%s; nothing ran", why.buf);
	strbuf_release(&why);
}

struct child {
	const struct policy *p;
	int ruleset;
};

/* run_child's hook, in the child between fork and exec. */
static int
confine_child(void *arg)
{
	const struct child *c = arg;
	struct strbuf why = STRBUF_INIT;

	if (confine_self(c->p, c->ruleset, &why) < 0) {
		diag(2015, NULL, "%s; nothing ran", why.buf);
		_exit(71);
	}
	return 0;
}

/*
 * Run the command as our child, which confines itself before its exec,
 * forward signals to it (proc.h's rules), and remove the private temp
 * dir once it is done.  This process keeps out of Landlock: the temp dir
 * lives in the shared /tmp, where the sandbox grants nothing, so only a
 * process outside it can remove the directory.  It does give up its
 * privileges first, so that removing what the child left can never
 * delete more than the child itself could.
 */
static int
run_and_clean(struct policy *p, int ruleset)
{
	struct strbuf why = STRBUF_INIT;
	struct child c = { p, ruleset };
	struct run_opts opts = { confine_child, &c, NULL, NULL };
	int status, err = 0;

	if (confine_privileges(&why) < 0) {
		remove_tree(p->tmp);
		die_mgs(2015, NULL, "%s; nothing ran", why.buf);
	}
	opts.exec_errno = &err;
	/* No signal handler here, one thread: the child may share our
	 * memory until its exec (proc.h). */
	opts.share_vm = true;
	status = run_child(p->exe, p->command, p->env.v, &opts);
	if (status < 0) {
		diag(2015, NULL, "cannot start '%s': %s", p->command[0],
		    strerror(errno));
		status = 71;
	} else if (err) {
		status = exec_failed(p, p->command[0], err);
	}
	if (ruleset >= 0)
		close(ruleset);
	if (remove_tree(p->tmp) < 0)
		warn_msg("cannot remove the private temp dir '%s': %s", p->tmp,
		    strerror(errno));
	return status;
}

int
main(int argc, char **argv)
{
	struct strbuf why = STRBUF_INIT;
	struct policy p;
	int ruleset = -1, status;

	sane_start();
	diag_init(argv[0]);
	memset(&p, 0, sizeof(p));
	p.mode = SANDBOX_UNSET;
	p.root_fd = p.tmp_fd = -1;
	strvec_init(&p.allow);
	strvec_init(&p.passthrough);
	strvec_init(&p.skipped);
	strvec_init(&p.env);
	strvec_init(&p.passed);
	strvec_init(&p.stripped);
	strvec_init(&p.withheld);
	strvec_init(&p.egress);

	/* 1. The command line: usage errors are exit 2 (MGS1002). */
	parse_args(&p, argc, argv);
	/* 2. The mode, never below the floor in MAGUS_SANDBOX (MGS2010). */
	resolve_mode(&p);
	/* 3. Every input checked before anything happens: --root, --tmp,
	 *    --allow, --passthrough, --egress-allow (MGS1012, MGS2004,
	 *    MGS2014). */
	policy_check_input(&p);
	netproxy_check_input(&p);
	/* 4. Mode off: the command runs unchanged, environment and all. */
	if (p.mode == SANDBOX_OFF)
		return run_unconfined(&p);
	/* 5. The kernel: the Landlock ABI found and used; required refuses
	 *    below ABI 3 (MGS2012), best-effort says what it cannot
	 *    enforce (MGS2005, MGS2013). */
	choose_abi(&p);
	/* 6. The environment: the allowlist and the passthrough patterns
	 *    (MGS2003 under -v, MGS2006, MGS2008). */
	env_build(&p, environ);
	/* 7. The grants: workspace, private temp, system trees, devices,
	 *    PATH, --allow; symlinks resolved once. */
	policy_resolve_grants(&p);
	if (p.tmp_arg)
		policy_add_tmp(&p);
	policy_simplify(&p);
	/* 8. The command must lie beneath an exec grant (MGS2007). */
	check_command(&p);
	/* 9. --print-policy stops here: nothing made, nothing run. */
	if (p.print) {
		policy_print(&p);
		policy_release(&p);
		return 0;
	}
	check_cwd(&p);
	/* 10. The private temp dir, 0700, the child's TMPDIR. */
	if (!p.tmp_arg) {
		make_tmp(&p);
		policy_add_tmp(&p);
		policy_simplify(&p);
	}
	env_set(&p.env, "TMPDIR", p.tmp);
	/* 11. The Landlock ruleset, every rule added (fails closed). */
	if (p.abi.used > 0) {
		ruleset = confine_build_ruleset(&p, &why);
		if (ruleset < 0) {
			if (p.tmp_made)
				remove_tree(p.tmp);
			die_mgs(2015, NULL, "%s; nothing ran", why.buf);
		}
	}
	/* 12. --network proxy: the command in its own network namespace,
	 *     the forwarder and magus-egress beside it, with or without
	 *     --tmp (a proxy cannot outlive this process's exec), all torn
	 *     down with it (MGS2018, MGS2019, MGS2020). */
	if (p.network_proxy) {
		status = netproxy_run(&p, ruleset);
		if (p.tmp_made && remove_tree(p.tmp) < 0)
			warn_msg("cannot remove the private temp dir '%s': %s",
			    p.tmp, strerror(errno));
		policy_release(&p);
		return status;
	}
	/* 13. With --tmp: no_new_privs, every capability dropped, Landlock
	 *     applied to this process, each step checked (MGS2015), then
	 *     this process becomes the command. */
	if (p.tmp_arg) {
		confine_or_die(&p, ruleset);
		execve(p.exe, p.command, p.env.v);
		status = exec_failed(&p, p.command[0], errno);
		policy_release(&p);
		return status;
	}
	/* 14. Without it: the child takes step 13 and execs; this process
	 *     waits, forwards signals and removes the private temp dir. */
	status = run_and_clean(&p, ruleset);
	policy_release(&p);
	return status;
}
