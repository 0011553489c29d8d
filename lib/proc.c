#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "proc.h"
#include "strbuf.h"

void
sane_start(void)
{
	struct stat st;
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fstat(fd, &st) == 0 || errno != EBADF)
			continue;
		/* open() returns the lowest free fd, which is `fd`. */
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(71);
	}
	signal(SIGPIPE, SIG_DFL);
}

int
exit_status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* True when we share a terminal's foreground process group: then a key
 * typed at the terminal already signals the child, which is in our group. */
static bool
in_foreground(void)
{
	pid_t fg;

	if (!isatty(STDIN_FILENO))
		return false;
	fg = tcgetpgrp(STDIN_FILENO);
	return fg != -1 && fg == getpgrp();
}

/* What the child needs to know, on the parent's stack. */
struct spawn {
	const char *path;
	char *const *argv, *const *envp;
	const struct run_opts *opts;
	const sigset_t *mask;
	bool own_group;
	int errfd;
};

/* The child's side of run_child, after fork or clone: exec, or report
 * why not on errfd and exit. */
static int
child_main(void *arg)
{
	const struct spawn *s = arg;
	const struct run_opts *opts = s->opts;
	int err;

	if (s->own_group)
		setpgid(0, 0);
	sigprocmask(SIG_SETMASK, s->mask, NULL);
	if (opts && opts->cwd && chdir(opts->cwd) < 0)
		goto fail;
	if (opts && opts->child_setup && opts->child_setup(opts->arg) < 0)
		goto fail;
	execve(s->path, s->argv, s->envp);
fail:
	err = errno;
	(void)!write(s->errfd, &err, sizeof(err));
	_exit(err == ENOENT ? 127 : 126);
}

#if defined(__SANITIZE_ADDRESS__)
#define SHARE_VM_WORKS 0 /* ASan keeps its own books of every stack */
#else
#define SHARE_VM_WORKS 1
#endif
#define CHILD_STACK (128u << 10)

/* Start the child: clone sharing our memory when asked, else fork. */
static pid_t
spawn_child(struct spawn *s)
{
	pid_t pid;

	if (SHARE_VM_WORKS && s->opts && s->opts->share_vm) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t size = CHILD_STACK + page;
		unsigned char *stack;
		int e;

		stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			return -1;
		/* Its lowest page a guard: a child running off the end of
		 * its stack faults instead of writing over ours. */
		if (mprotect(stack, page, PROT_NONE) < 0) {
			e = errno;
			munmap(stack, size);
			errno = e;
			return -1;
		}
		pid = clone(child_main, stack + size,
		    CLONE_VM | CLONE_VFORK | SIGCHLD, s);
		/* Back here, the child has exec'd or exited: its stack is
		 * ours again. */
		e = errno;
		munmap(stack, size);
		errno = e;
		return pid;
	}
	pid = fork();
	if (pid == 0)
		child_main(s);
	return pid;
}

int
run_child(const char *path, char *const argv[], char *const envp[],
    const struct run_opts *opts)
{
	extern char **environ;
	sigset_t set, old;
	siginfo_t si;
	bool own_group = !in_foreground();
	int first = 0, status, pipefd[2], err = 0;
	struct spawn s;
	pid_t pid, w;
	size_t i;
	ssize_t n;

	if (opts && opts->share_vm && opts->parent_setup) {
		errno = EINVAL;
		return -1;
	}

	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
		return -1;
	/* The child reports a failed exec through this pipe. */
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}

	s.path = path;
	s.argv = argv;
	s.envp = envp ? envp : environ;
	s.opts = opts;
	s.mask = &old;
	s.own_group = own_group;
	s.errfd = pipefd[1];
	pid = spawn_child(&s);
	if (pid < 0) {
		err = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = err;
		return -1;
	}
	if (own_group)
		setpgid(pid, pid); /* also in the parent: no race either way */
	close(pipefd[1]);
	if (opts && opts->parent_setup && opts->parent_setup(pid, opts->arg) <
	    0) {
		err = errno;
		kill(pid, SIGKILL);
		close(pipefd[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = err;
		return -1;
	}
	n = RETRY_EINTR(read(pipefd[0], &err, sizeof(err)));
	close(pipefd[0]);
	if (opts && opts->exec_errno)
		*opts->exec_errno = n == (ssize_t)sizeof(err) ? err : 0;

	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0;
			break;
		}
		if (sigwaitinfo(&set, &si) < 0)
			continue;
		if (si.si_signo == SIGCHLD)
			continue;
		if (!first) {
			first = si.si_signo;
			/* A terminal's signal already reached a child sharing
			 * our group; anything else is passed on. */
			if (own_group || si.si_code != SI_KERNEL)
				kill(pid, si.si_signo);
		} else {
			kill(own_group ? -pid : pid, SIGKILL);
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (first)
		return 128 + first;
	return exit_status_of(status);
}

unsigned long long
proc_start_time(pid_t pid)
{
	struct strbuf sb = STRBUF_INIT;
	char path[64];
	const char *p;
	unsigned long long t = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (strbuf_read_file(&sb, path) < 0)
		goto out;
	/* The command name may hold spaces and parentheses: skip past the
	 * last ')' and count fields from there (it ends field 2). */
	p = strrchr(sb.buf, ')');
	if (!p)
		goto out;
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	t = strtoull(p, NULL, 10);
out:
	strbuf_release(&sb);
	return t;
}

/* ---- the self-pipe ------------------------------------------------------ */

static int signal_fds[2] = { -1, -1 };

static void
on_signal_to_pipe(int sig)
{
	unsigned char c = (unsigned char)sig;
	int saved = errno;

	if (write(signal_fds[1], &c, 1) < 0) {
		/* EAGAIN: a full pipe already holds a wake-up. */
	}
	errno = saved;
}

int
signal_pipe(const int *sigs, size_t n)
{
	struct sigaction sa;
	size_t i;

	if (signal_fds[0] < 0 && pipe2(signal_fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal_to_pipe;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < n; i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -1;
	return signal_fds[0];
}

int
signal_pipe_next(int fd)
{
	unsigned char c;

	return read(fd, &c, 1) == 1 ? c : 0;
}

const char *
engine_signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "INT";
	case SIGHUP:
		return "HUP";
	case SIGQUIT:
		return "QUIT";
	default:
		return "TERM";
	}
}
