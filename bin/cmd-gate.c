/*
 * magus queue gate [--sandbox=MODE] -- COMMAND...: test what is
 * committed, not what is in the working tree.
 *
 * HEAD of the workspace's git repository is copied into a private temp
 * dir (git archive HEAD | tar -x: the tree of the commit, no .git, no
 * uncommitted or untracked file), the command runs there under the
 * sandbox with the copy as its root, the copy is removed, and the gate
 * exits with the command's status.  Its first line on stderr is
 * "testing HEAD <short sha>", so a log always says what was tested.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "front.h"
#include "proc.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "tmpdir.h"
#include "xalloc.h"

static const char gate_usage[] =
    "usage: magus queue gate [--sandbox=MODE] -- COMMAND...\n";

/* Point fd `to` at /dev/null (stdin read-only, else write-only). */
static void
devnull(int to)
{
	int fd = open("/dev/null", (to ? O_WRONLY : O_RDONLY) | O_CLOEXEC);

	if (fd >= 0 && fd != to) {
		dup2(fd, to);
		close(fd);
	}
}

/*
 * Run git with `args` and collect its stdout (trimmed) into `out`; its
 * stderr is dropped, so nothing precedes the gate's first line.  Returns
 * git's exit status, or -1 when it could not be started.
 */
static int
git_capture(const char *dir, const char *const *args, struct strbuf *out)
{
	struct strvec av = STRVEC_INIT;
	int pipefd[2], status;
	pid_t pid;

	strvec_push(&av, "git");
	strvec_push(&av, "-C");
	strvec_push(&av, dir);
	for (; *args; args++)
		strvec_push(&av, *args);
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		strvec_clear(&av);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		strvec_clear(&av);
		return -1;
	}
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		devnull(STDIN_FILENO);
		devnull(STDERR_FILENO);
		execvp("git", av.v);
		_exit(127);
	}
	close(pipefd[1]);
	strbuf_read_fd(out, pipefd[0]);
	close(pipefd[0]);
	strbuf_rtrim(out);
	strvec_clear(&av);
	if (RETRY_EINTR(waitpid(pid, &status, 0)) < 0)
		return -1;
	return exit_status_of(status);
}

/* Start `argv` with its stdin or stdout on `fd`; -1 when fork fails. */
static pid_t
spawn_on(char *const argv[], int fd, int as, int other)
{
	pid_t pid = fork();

	if (pid == 0) {
		dup2(fd, as);
		close(other);
		execvp(argv[0], argv);
		fprintf(stderr, "magus: cannot execute '%s': %s\n", argv[0],
		    strerror(errno));
		_exit(127);
	}
	return pid;
}

/* git archive HEAD | tar -x -C `into`.  Returns 0, or -1 (reported). */
static int
copy_head(const char *top, const char *into)
{
	struct strvec git = STRVEC_INIT, tar = STRVEC_INIT;
	int pipefd[2], sg = -1, st = -1;
	pid_t pg, pt;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		diag(1103, NULL, "cannot copy HEAD: %s", strerror(errno));
		return -1;
	}
	strvec_push(&git, "git");
	strvec_push(&git, "-C");
	strvec_push(&git, top);
	strvec_push(&git, "archive");
	strvec_push(&git, "--format=tar");
	strvec_push(&git, "HEAD");
	strvec_push(&tar, "tar");
	strvec_push(&tar, "-x");
	strvec_push(&tar, "-f");
	strvec_push(&tar, "-");
	strvec_push(&tar, "-C");
	strvec_push(&tar, into);
	pg = spawn_on(git.v, pipefd[1], STDOUT_FILENO, pipefd[0]);
	pt = spawn_on(tar.v, pipefd[0], STDIN_FILENO, pipefd[1]);
	close(pipefd[0]);
	close(pipefd[1]);
	strvec_clear(&git);
	strvec_clear(&tar);
	if (pg > 0 && RETRY_EINTR(waitpid(pg, &sg, 0)) < 0)
		sg = -1;
	if (pt > 0 && RETRY_EINTR(waitpid(pt, &st, 0)) < 0)
		st = -1;
	if (pg < 0 || pt < 0 || sg != 0 || st != 0) {
		diag(1103, NULL, "cannot copy HEAD of '%s' into '%s': %s "
		    "failed", top, into, pg < 0 || sg != 0 ? "git archive" :
		    "tar -x");
		return -1;
	}
	return 0;
}

static int
queue_gate(struct front *f, int argc, char **argv)
{
	static const char *const toplevel[] = { "rev-parse",
		"--show-toplevel", NULL };
	static const char *const prefix_args[] = { "rev-parse",
		"--show-prefix", NULL };
	static const char *const head[] = { "rev-parse", "--verify",
		"--quiet", "--short", "HEAD^{commit}", NULL };
	struct strbuf top = STRBUF_INIT, prefix = STRBUF_INIT,
	    sha = STRBUF_INIT;
	enum sandbox_mode mode = f->cfg.sandbox.mode;
	const char *flag = NULL;
	char *dir = NULL, *copy = NULL, *cwd = NULL;
	struct sandboxed s;
	int i, status;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			fputs(gate_usage, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (starts_with(argv[i], "--sandbox=")) {
			flag = argv[i] + strlen("--sandbox=");
			continue;
		}
		if (!strcmp(argv[i], "--sandbox") && i + 1 < argc) {
			flag = argv[++i];
			continue;
		}
		if (argv[i][0] == '-')
			verb_bad_option("queue gate", argv[i]);
		verb_usage_error("queue gate", "'%s': the command follows "
		    "'--'", argv[i]);
	}
	if (i >= argc)
		verb_usage_error("queue gate", "no command: name it after "
		    "'--'");
	if (flag) {
		enum sandbox_mode m = sandbox_mode_parse(flag);

		if (m == SANDBOX_UNSET)
			verb_usage_error("queue gate", "--sandbox: unknown "
			    "sandbox mode '%s' (off, best-effort or "
			    "required)", flag);
		if (m < mode)
			die_mgs(2010, "the gate may only strengthen the "
			    "sandbox", "queue gate --sandbox=%s is weaker "
			    "than the sandbox in force, %s", flag,
			    sandbox_mode_name(mode));
		mode = m;
	}

	if (git_capture(f->root, toplevel, &top) != 0 || !top.len)
		die_mgs(1101, "run the gate in a git work tree, or name one "
		    "with -C DIR", "'%s' is not inside a git repository",
		    f->root);
	git_capture(f->root, prefix_args, &prefix);
	if (git_capture(top.buf, head, &sha) != 0 || !sha.len)
		die_mgs(1102, "commit first", "the repository '%s' has no "
		    "commit at HEAD", top.buf);
	fprintf(stderr, "testing HEAD %s\n", sha.buf);
	fflush(stderr);

	dir = private_dir_make("magus-gate");
	if (!dir) {
		diag(1103, NULL, "cannot make a private temp dir: %s",
		    strerror(errno));
		status = 71;
		goto out;
	}
	copy = path_join(dir, "head");
	if (mkdir(copy, 0700) < 0) {
		diag(1103, NULL, "cannot make '%s': %s", copy,
		    strerror(errno));
		status = 71;
		goto out;
	}
	if (copy_head(top.buf, copy) < 0) {
		status = 71;
		goto out;
	}
	cwd = path_join(copy, prefix.buf);

	memset(&s, 0, sizeof(s));
	s.root = copy;
	s.cwd = cwd;
	s.mode = mode;
	s.base = &f->cfg.sandbox;
	s.argv = argv + i;
	front_export_env(f);
	setenv("MAGUS_SANDBOX", sandbox_mode_name(mode), 1);
	status = front_run_sandboxed(f, &s);
out:
	if (dir && remove_tree(dir) < 0)
		warn_msg("cannot remove the copy '%s': %s", dir,
		    strerror(errno));
	free(cwd);
	free(copy);
	free(dir);
	strbuf_release(&top);
	strbuf_release(&prefix);
	strbuf_release(&sha);
	return status;
}

int
cmd_queue(struct front *f, int argc, char **argv)
{
	if (argc < 2)
		verb_usage_error("queue", "needs a subcommand: gate");
	if (!strcmp(argv[1], "--help")) {
		fputs(gate_usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "gate")) {
		if (argv[1][0] == '-')
			verb_bad_option("queue", argv[1]);
		verb_usage_error("queue", "unknown subcommand '%s' (gate)",
		    argv[1]);
	}
	return queue_gate(f, argc - 1, argv + 1);
}
