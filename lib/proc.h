/*
 * proc.h: process plumbing shared by every magus program.
 */
#ifndef MAGUS_PROC_H
#define MAGUS_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Call first in main(): make sure fds 0, 1 and 2 are open (on /dev/null
 * when not), so a file opened later can never become someone's stdout,
 * and reset SIGPIPE to its default action.
 */
void sane_start(void);

/* The shell's convention: the exit code, or 128 + the signal. */
int exit_status_of(int wstatus);

/*
 * Run `path` with `argv` and `envp` (the caller's environment when NULL)
 * and wait for it, applying magus's signal rules: the first SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT is forwarded to the child and waited for
 * with no timer; a second kills the child (and its process group when it
 * has its own).  Returns the child's exit status in shell convention, or,
 * when a signal was forwarded, 128 + that signal.  Returns -1 with errno
 * set when the child could not be started; when exec fails in the child,
 * the child exits 127 (ENOENT) or 126 and *exec_errno (when not NULL)
 * holds the errno.
 *
 * `child_setup`, when not NULL, runs in the child before exec (with the
 * signal mask restored); it must only make async-signal-safe calls and
 * return 0, or -1 with errno set to abort the exec.
 */
struct run_opts {
	int (*child_setup)(void *arg);
	void *arg;
	const char *cwd;	/* chdir here before exec, when not NULL */
	int *exec_errno;
	/*
	 * When not NULL, runs in the parent right after the fork, before
	 * anything waits for the child (which may be waiting for it), with
	 * the forwarded signals still blocked.  Returning -1 kills the
	 * child, reaps it, and makes run_child return -1 with the hook's
	 * errno.
	 */
	int (*parent_setup)(pid_t pid, void *arg);
	/*
	 * Start the child sharing this process's memory until its exec
	 * (clone with CLONE_VM | CLONE_VFORK, on a stack of its own, this
	 * thread waiting meanwhile), as posix_spawn does: no page tables
	 * copied and no copy-on-write fault after, which in a guest whose
	 * every page fault traps to the hypervisor is most of what a fork
	 * costs.  Only for a caller with one thread and no signal handler
	 * installed (a signal caught in the child would run the handler on
	 * the caller's memory), and with no parent_setup (the child cannot
	 * wait for a parent that waits for it): run_child refuses it with
	 * EINVAL otherwise.  What child_setup allocates, the caller keeps.
	 * Builds with AddressSanitizer fork as before.
	 */
	bool share_vm;
};
int run_child(const char *path, char *const argv[], char *const envp[],
    const struct run_opts *opts);

/*
 * The self-pipe for a program with a poll loop: catch each signal of
 * `sigs` (with SA_RESTART) by writing its number, one byte, into a
 * close-on-exec, non-blocking pipe, and return the pipe's read end to
 * watch; -1 with errno set when the pipe or a handler cannot be made.
 * Once per process.  A full pipe drops the byte: it already holds a
 * wake-up.
 */
int signal_pipe(const int *sigs, size_t n);
/* The next signal caught into the pipe whose read end is `fd`, or 0. */
int signal_pipe_next(int fd);
/* The Engine API's name of a signal magus passes on to a container:
 * "INT", "HUP", "QUIT", else "TERM". */
const char *engine_signal_name(int sig);

/* The start time of `pid` in clock ticks since boot (field 22 of
 * /proc/PID/stat), or 0 when it cannot be read. */
unsigned long long proc_start_time(pid_t pid);

#endif /* MAGUS_PROC_H */
