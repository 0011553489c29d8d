/*
 * confine.c: the steps that change what this process may do.
 *
 * Order matters.  The ruleset is built first, while this process can
 * still open every path it grants.  Then no_new_privs (Landlock requires
 * it of a process without CAP_SYS_ADMIN, and it keeps setuid binaries and
 * file capabilities from undoing the rest), then every capability set is
 * emptied, then the terminal is closed to injection (where the command
 * can reach one), then the ruleset is applied.  Each step is checked,
 * and a failure is returned before anything runs: the sandbox fails
 * closed.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "diag.h"
#include "sandbox.h"
#include "strbuf.h"

/* Say which step failed and why, for the caller's MGS2015; returns -1. */
static int
fail(struct strbuf *why, const char *what, const char *subject)
{
	int e = errno;

	if (subject)
		strbuf_addf(why, "%s '%s': %s", what, subject, strerror(e));
	else
		strbuf_addf(why, "%s: %s", what, strerror(e));
	errno = e;
	return -1;
}

int
confine_build_ruleset(const struct policy *p, struct strbuf *why)
{
	struct landlock_ruleset_attr attr;
	struct landlock_path_beneath_attr rule;
	size_t i;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = p->handled_fs;
	attr.handled_access_net = p->handled_net;
	attr.scoped = p->scopes;
	/* The three-field struct is accepted by every ABI: a kernel that
	 * knows fewer fields only checks that the rest is zero, and at the
	 * ABI used the fields it does not know are zero. */
	fd = landlock_create_ruleset(&attr, sizeof(attr), 0);
	if (fd < 0)
		return fail(why, "cannot create the Landlock ruleset", NULL);
	for (i = 0; i < p->ngrants; i++) {
		const struct grant *g = &p->grants[i];

		memset(&rule, 0, sizeof(rule));
		rule.allowed_access = policy_applied(p, g);
		if (!rule.allowed_access)
			continue;
		/* The descriptor the path was resolved to, once. */
		rule.parent_fd = g->fd;
		if (landlock_add_rule(fd, LANDLOCK_RULE_PATH_BENEATH, &rule,
		    0) < 0) {
			fail(why, "cannot add the Landlock rule for", g->path);
			close(fd);
			return -1;
		}
	}
	/* --network none adds no port rule: every TCP bind and connect is
	 * denied by handling both rights with nothing allowed. */
	return fd;
}

/*
 * The terminal.  The command shares its caller's terminal, and
 * ioctl(TIOCSTI) on it pushes characters into the terminal's input: the
 * unconfined shell that started the sandbox reads them as its next
 * command once the sandbox is gone (CVE-2017-5226, bubblewrap's).
 * Landlock's ioctl_dev right does not reach a descriptor opened before
 * the ruleset (the inherited stdin), and setsid(2), bubblewrap's answer,
 * fails for the process group leader an interactive shell makes of each
 * job and would keep the terminal's ^C from the command.  So a seccomp
 * filter refuses the two injecting requests, TIOCSTI and TIOCLINUX
 * (whose selection paste does the same on a console), with EPERM.
 *
 * Written by hand rather than with libseccomp: it is thirteen
 * instructions, and costs nothing at start-up.  ioctl's request is an
 * unsigned int, so only the argument's low 32 bits are compared: a
 * caller setting the high bits (CVE-2019-10063, flatpak's) still
 * matches.  The kernel's other ways in to ioctl are covered too: x32 and
 * i386 on x86_64, AArch32 on arm64.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG1_LO offsetof(struct seccomp_data, args[1])
#else
#define ARG1_LO (offsetof(struct seccomp_data, args[1]) + 4)
#endif

#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define NR_IOCTL_ALT (0x40000000 + 514) /* x32 */
#define ARCH_COMPAT AUDIT_ARCH_I386
#define NR_IOCTL_COMPAT 54
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#define NR_IOCTL_ALT __NR_ioctl
#define ARCH_COMPAT AUDIT_ARCH_ARM
#define NR_IOCTL_COMPAT 54
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH_NATIVE AUDIT_ARCH_RISCV64
#elif defined(__s390x__)
#define ARCH_NATIVE AUDIT_ARCH_S390X
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARCH_NATIVE AUDIT_ARCH_PPC64LE
#else
#error "magus-sandbox-exec: name this architecture's AUDIT_ARCH_ value"
#endif
#ifndef NR_IOCTL_ALT
#define NR_IOCTL_ALT __NR_ioctl
#endif
#ifndef ARCH_COMPAT
#define ARCH_COMPAT ARCH_NATIVE /* none: the native test catches it first */
#define NR_IOCTL_COMPAT __NR_ioctl
#endif

static int
deny_terminal_injection(struct strbuf *why)
{
	/* Jump offsets count from the next instruction. */
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NATIVE, 0, 3),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 4, 0),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_IOCTL_ALT, 3, 7),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_COMPAT, 0, 6),
		/* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_IOCTL_COMPAT,
		    0, 4),
		/* 8: an ioctl; which request? */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LO),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 1, 0),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 0, 1),
		/* 11 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		/* 12 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)ARRAY_SIZE(f), f };

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return fail(why, "cannot install the terminal filter (seccomp)",
		    NULL);
	return 0;
}

/* True when `cap` is in the `flag` set of `caps`. */
static bool
cap_has(cap_t caps, cap_value_t cap, cap_flag_t flag)
{
	cap_flag_value_t v = CAP_CLEAR;

	return cap_get_flag(caps, cap, flag, &v) == 0 && v == CAP_SET;
}

/*
 * Empty every capability set.  The bounding set can only be emptied
 * with CAP_SETPCAP; a process without it (any non-root user) has
 * nothing to drop there that no_new_privs does not already keep from
 * coming back, since it stops exec from granting file capabilities.
 */
static int
drop_capabilities(struct strbuf *why)
{
	cap_value_t setpcap = CAP_SETPCAP, c;
	bool ambient = false;
	cap_t caps, none;
	int r = 0;

	caps = cap_get_proc();
	if (!caps)
		return fail(why, "cannot read this process's capabilities",
		    NULL);
	if (cap_has(caps, CAP_SETPCAP, CAP_PERMITTED)) {
		if (cap_set_flag(caps, CAP_EFFECTIVE, 1, &setpcap,
		    CAP_SET) < 0 || cap_set_proc(caps) < 0)
			r = fail(why, "cannot raise CAP_SETPCAP to drop the "
			    "bounding set", NULL);
		for (c = 0; !r && c < (cap_value_t)cap_max_bits(); c++)
			if (cap_drop_bound(c) < 0)
				r = fail(why, "cannot drop a capability from "
				    "the bounding set", NULL);
	}
	/* A capability can be ambient only while it is both permitted and
	 * inheritable (the kernel keeps that invariant); when none is,
	 * the ambient set is empty and clearing it would cost a system
	 * call per capability. */
	for (c = 0; !r && !ambient && c < (cap_value_t)cap_max_bits(); c++)
		ambient = cap_has(caps, c, CAP_PERMITTED) &&
		    cap_has(caps, c, CAP_INHERITABLE);
	cap_free(caps);
	if (r)
		return r;
	if (ambient && cap_reset_ambient() < 0)
		return fail(why, "cannot clear the ambient capabilities", NULL);
	none = cap_init();
	if (!none)
		return fail(why, "cannot drop every capability", NULL);
	if (cap_set_proc(none) < 0)
		r = fail(why, "cannot drop every capability", NULL);
	cap_free(none);
	return r;
}

/*
 * Read back what the steps were meant to do.  The ambient set needs no
 * read of its own: the kernel keeps it within permitted and inheritable,
 * both empty here.  Each bounding-set drop was checked as it was made.
 */
static int
verify(struct strbuf *why)
{
	cap_t caps, none;
	int same = -1;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
		errno = EPERM;
		return fail(why, "no_new_privs did not take", NULL);
	}
	caps = cap_get_proc();
	none = cap_init();
	if (caps && none)
		same = cap_compare(caps, none);
	cap_free(caps);
	cap_free(none);
	if (same != 0) {
		errno = EPERM;
		return fail(why, "capabilities are still held after dropping "
		    "them", NULL);
	}
	return 0;
}

int
confine_privileges(struct strbuf *why)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(why, "cannot set no_new_privs", NULL);
	return drop_capabilities(why);
}

/*
 * The terminal filter guards nothing when the command has no terminal to
 * type into and cannot come by one.  TIOCSTI works only on the caller's
 * controlling terminal, or one it makes its own (setsid, then TIOCSCTTY);
 * TIOCLINUX needs a console's descriptor.  With no controlling terminal
 * and none on an inherited descriptor (policy.c's p->terminal), the
 * command could only open one, and where Landlock handles ioctl_dev
 * (ABI 5) no rule then grants ioctls on any device (/dev/tty loses its
 * ioctl right in that case): a terminal it opens takes none, TIOCSCTTY
 * and TIOCSTI included.  A filter costs about a tenth of the sandbox's
 * start (the kernel compiles it), so it is left out only then.
 */
bool
confine_terminal_filter(const struct policy *p)
{
	return p->terminal || p->abi.used <= 0 ||
	    !(p->handled_fs & LANDLOCK_ACCESS_FS_IOCTL_DEV);
}

int
confine_self(const struct policy *p, int ruleset_fd, struct strbuf *why)
{
	if (confine_privileges(why) < 0)
		return -1;
	if ((ruleset_fd < 0 || confine_terminal_filter(p)) &&
	    deny_terminal_injection(why) < 0) {
		/* No seccomp filters here: a kernel built without
		 * SECCOMP_FILTER, or qemu-user emulating another
		 * architecture (a relayed run on a foreign platform), which
		 * refuses them.  best-effort goes on and says so; required
		 * stops. */
		if (p->mode != SANDBOX_BEST_EFFORT ||
		    (errno != EINVAL && errno != ENOSYS))
			return -1;
		diag(2021, "TIOCSTI and TIOCLINUX on an inherited terminal "
		    "are not refused; give the command no terminal where "
		    "that matters", "not enforced: the terminal filter "
		    "(seccomp: %s)", strerror(errno));
		strbuf_reset(why);
	}
	if (ruleset_fd >= 0) {
		if (landlock_restrict_self(ruleset_fd, p->restrict_flags) < 0)
			return fail(why, "cannot apply the Landlock ruleset",
			    NULL);
		close(ruleset_fd);
	}
	return verify(why);
}
