/*
 * sandboxed.c: run one command through magus-sandbox-exec, the way
 * `magus run` and `magus queue gate` do.
 *
 * The front gives the helper everything as argv: the mode, the root,
 * a private temp dir it made (so the helper execs the command without a
 * process of its own in between), and the allow, passthrough and network
 * settings of the configuration.  The temp dir is removed afterwards,
 * whatever the command left in it.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "execpath.h"
#include "front.h"
#include "proc.h"
#include "strvec.h"
#include "tmpdir.h"
#include "xalloc.h"

static void
push_sandbox(struct strvec *av, const struct cfg_sandbox *sb)
{
	size_t i;

	if (!sb)
		return;
	for (i = 0; i < sb->nallow; i++)
		strvec_pushf(av, "--allow=%s:%s", sb->allow[i].mode,
		    sb->allow[i].path);
	for (i = 0; i < sb->npassthrough; i++)
		strvec_pushf(av, "--passthrough=%s",
		    sb->passthrough[i].value);
}

/* The network mode: the target's when it sets one, else the workspace's. */
static const struct cfg_sandbox *
network_of(const struct sandboxed *s)
{
	if (s->extra && s->extra->network.value)
		return s->extra;
	return s->base;
}

/* In the child: the probe's fd as fd 3, kept across exec, and stdin
 * from /dev/null. */
static int
fd3_setup(void *arg)
{
	int fd = *(const int *)arg, null;

	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		return -1;
	/* dup2 onto itself would keep close-on-exec set. */
	if (fd == 3)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, 3) < 0 ? -1 : 0;
}

int
front_run_sandboxed(struct front *f, const struct sandboxed *s)
{
	struct strvec av = STRVEC_INIT;
	struct run_opts opts = { NULL, NULL, NULL, NULL };
	const struct cfg_sandbox *net = network_of(s);
	char *helper = helper_path("sandbox-exec"), *tmp = NULL;
	int status, err = 0, fd3 = s->fd3;
	size_t i;

	if (access(helper, X_OK) < 0) {
		diag(1009, "run 'magus --exec-path' to see where helpers are "
		    "looked for", "helper 'magus-sandbox-exec' not found in "
		    "'%s'", exec_path());
		free(helper);
		return 127;
	}
	/* Mode off runs the command unchanged: no temp dir to give it. */
	if (s->mode != SANDBOX_OFF) {
		tmp = private_dir_make("magus-run");
		if (!tmp) {
			diag(1103, NULL, "cannot make a private temp dir: %s",
			    strerror(errno));
			free(helper);
			return 71;
		}
	}
	strvec_push(&av, "magus-sandbox-exec");
	strvec_pushf(&av, "--mode=%s", sandbox_mode_name(s->mode));
	strvec_pushf(&av, "--root=%s", s->root);
	if (tmp)
		strvec_pushf(&av, "--tmp=%s", tmp);
	push_sandbox(&av, s->base);
	push_sandbox(&av, s->extra);
	if (net && net->network.value && strcmp(net->network.value,
	    "allow")) {
		strvec_pushf(&av, "--network=%s", net->network.value);
		for (i = 0; i < net->negress; i++)
			strvec_pushf(&av, "--egress-allow=%s",
			    net->egress[i].value);
	}
	for (i = 0; f->verbose > 0 && i < (size_t)f->verbose; i++)
		strvec_push(&av, "-v");
	strvec_push(&av, "--");
	strvec_pushv(&av, s->argv);

	opts.cwd = s->cwd;
	if (fd3 > STDERR_FILENO) {
		opts.child_setup = fd3_setup;
		opts.arg = &fd3;
	}
	opts.exec_errno = &err;
	opts.share_vm = true; /* the front catches no signal (proc.h) */
	status = run_child(helper, av.v, NULL, &opts);
	if (status < 0 || err) {
		diag(1010, NULL, "cannot execute '%s': %s", helper,
		    strerror(status < 0 ? errno : err));
		status = err == ENOENT ? 127 : 126;
	}
	if (tmp && remove_tree(tmp) < 0)
		warn_msg("cannot remove the private temp dir '%s': %s", tmp,
		    strerror(errno));
	free(tmp);
	free(helper);
	strvec_clear(&av);
	return status;
}
