/*
 * sbx-probe: one system call per invocation, for the sandbox suites.
 *
 * Each subcommand tries one thing and prints "ok" (exit 0) or the errno's
 * name, such as "EACCES" (exit 1), so a test asserts exactly what the
 * kernel answered, with no shell tool in between that might fall back to
 * another way (mv copying when rename fails, say).
 *
 *	sbx-probe abi				the kernel's Landlock ABI, or 0
 *	sbx-probe read PATH			open O_RDONLY and read a byte
 *	sbx-probe write PATH			open O_WRONLY|O_CREAT|O_APPEND
 *	sbx-probe truncate PATH			truncate(2) to 0 bytes
 *	sbx-probe rename FROM TO		rename(2)
 *	sbx-probe link FROM TO			link(2)
 *	sbx-probe ioctl-dev PATH		open, then ioctl(TCGETS)
 *	sbx-probe tcp-listen PORTFILE SECONDS	listen on 127.0.0.1, write the
 *						port to PORTFILE
 *	sbx-probe tcp-connect PORT		connect to 127.0.0.1:PORT
 *	sbx-probe tcp-bind			bind 127.0.0.1:0
 *	sbx-probe unix-listen NAME SECONDS	listen on abstract @NAME
 *	sbx-probe unix-connect NAME		connect to abstract @NAME
 *	sbx-probe signal PID			kill(PID, 0)
 *	sbx-probe tiocsti-high			push '#' into the terminal on
 *						stdin with TIOCSTI, its request
 *						given with high bits set (the
 *						kernel ignores them)
 *	sbx-probe restrict-flags FLAGS		landlock_restrict_self() with
 *						FLAGS on a ruleset that handles
 *						nothing but make_block
 *	sbx-probe fail NR[@ARG2][,...] ERRNO -- CMD...
 *						run CMD where the system calls
 *						numbered NR (with that third
 *						argument) fail with ERRNO, by a
 *						seccomp filter: 444,445,446 with
 *						ENOSYS is a kernel without
 *						Landlock, with EOPNOTSUPP one
 *						where it is disabled at boot
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#elif defined(__s390x__)
#define NATIVE_ARCH AUDIT_ARCH_S390X
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_ARCH AUDIT_ARCH_PPC64LE
#else
#error "sbx-probe: add this architecture's AUDIT_ARCH_ value"
#endif

static int
result(int r)
{
	if (r < 0) {
		const char *name = strerrorname_np(errno);

		printf("%s\n", name ? name : "EUNKNOWN");
		return 1;
	}
	puts("ok");
	return 0;
}

static int
abstract_addr(struct sockaddr_un *un, const char *name, socklen_t *len)
{
	size_t n = strlen(name);

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	if (n + 1 > sizeof(un->sun_path))
		return -1;
	memcpy(un->sun_path + 1, name, n); /* sun_path[0] == 0: abstract */
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	return 0;
}

static int
loopback(struct sockaddr_in *in, long port)
{
	memset(in, 0, sizeof(*in));
	in->sin_family = AF_INET;
	in->sin_port = htons((unsigned short)port);
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

/* The low 32 bits of a system call's third argument. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG2_LO offsetof(struct seccomp_data, args[2])
#else
#define ARG2_LO (offsetof(struct seccomp_data, args[2]) + 4)
#endif

/*
 * Make the system calls in `list` fail with `err`: a seccomp filter, so
 * the program run next meets the answers it would meet on a kernel
 * without them.  Entries are NR ("444") or NR@VALUE ("444@0": only when
 * the third argument is VALUE, so that Landlock's version probe, whose
 * flags are 1, still works while creating a ruleset, flags 0, fails).
 */
static int
fail_syscalls(const char *list, int err)
{
	struct sock_filter f[128];
	struct sock_fprog prog;
	unsigned nrs[16], vals[16], i, n = 0, k = 0, total = 0;
	bool has_val[16];
	char *end;

	while (*list && n < ARRAY_SIZE(nrs)) {
		nrs[n] = (unsigned)strtoul(list, &end, 10);
		if (end == list)
			return -1;
		has_val[n] = *end == '@';
		if (has_val[n]) {
			list = end + 1;
			vals[n] = (unsigned)strtoul(list, &end, 10);
			if (end == list)
				return -1;
		}
		if (*end && *end != ',')
			return -1;
		total += has_val[n] ? 5 : 3;
		n++;
		list = *end ? end + 1 : end;
	}
	if (!n || *list)
		return -1;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	/* Another architecture's calls pass untouched: on to ALLOW. */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    NATIVE_ARCH, 0, (unsigned char)total);
	for (i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr));
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
		    BPF_K, nrs[i], 0, has_val[i] ? 3 : 1);
		if (has_val[i]) {
			f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W |
			    BPF_ABS, ARG2_LO);
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP |
			    BPF_JEQ | BPF_K, vals[i], 0, 1);
		}
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		    SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA));
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

int
main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	struct sockaddr_un un;
	struct sockaddr_in in;
	socklen_t len;
	char c;
	int fd;

	if (!strcmp(cmd, "abi") && argc == 2) {
		long abi = syscall(444, NULL, 0, 1U);

		printf("%ld\n", abi < 0 ? 0 : abi);
		return 0;
	}
	if (!strcmp(cmd, "read") && argc == 3) {
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		return result(fd < 0 ? -1 : (int)read(fd, &c, 1) < 0 ? -1 : 0);
	}
	if (!strcmp(cmd, "write") && argc == 3)
		return result(open(argv[2], O_WRONLY | O_CREAT | O_APPEND |
		    O_CLOEXEC, 0644));
	if (!strcmp(cmd, "truncate") && argc == 3)
		return result(truncate(argv[2], 0));
	if (!strcmp(cmd, "rename") && argc == 4)
		return result(rename(argv[2], argv[3]));
	if (!strcmp(cmd, "link") && argc == 4)
		return result(link(argv[2], argv[3]));
	if (!strcmp(cmd, "ioctl-dev") && argc == 3) {
		struct termios t;

		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return result(-1);
		/* On a device that is not a terminal the kernel answers
		 * ENOTTY; Landlock's ioctl_dev answers EACCES first. */
		return result(ioctl(fd, TCGETS, &t) < 0 && errno != ENOTTY ?
		    -1 : 0);
	}
	if (!strcmp(cmd, "tcp-listen") && argc == 4) {
		FILE *out;

		fd = loopback(&in, 0);
		len = sizeof(in);
		if (fd < 0 ||
		    bind(fd, (struct sockaddr *)&in, sizeof(in)) < 0 ||
		    listen(fd, 8) < 0 ||
		    getsockname(fd, (struct sockaddr *)&in, &len) < 0)
			return result(-1);
		out = fopen(argv[2], "we");
		if (!out)
			return result(-1);
		fprintf(out, "%d\n", ntohs(in.sin_port));
		fclose(out);
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	if (!strcmp(cmd, "tcp-connect") && argc == 3) {
		fd = loopback(&in, atol(argv[2]));
		return result(fd < 0 ? -1 : connect(fd, (struct sockaddr *)&in,
		    sizeof(in)));
	}
	if (!strcmp(cmd, "tcp-bind") && argc == 2) {
		fd = loopback(&in, 0);
		return result(fd < 0 ? -1 : bind(fd, (struct sockaddr *)&in,
		    sizeof(in)));
	}
	if (!strcmp(cmd, "unix-listen") && argc == 4) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || abstract_addr(&un, argv[2], &len) < 0 ||
		    bind(fd, (struct sockaddr *)&un, len) < 0 ||
		    listen(fd, 8) < 0)
			return result(-1);
		puts("ready");
		fflush(stdout);
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	if (!strcmp(cmd, "unix-connect") && argc == 3) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || abstract_addr(&un, argv[2], &len) < 0)
			return result(-1);
		return result(connect(fd, (struct sockaddr *)&un, len));
	}
	if (!strcmp(cmd, "restrict-flags") && argc == 3) {
		/* Handle a right nothing here uses, so being confined by it
		 * changes nothing for this short-lived process. */
		uint64_t attr[3] = { 1ULL << 11, 0, 0 };

		fd = (int)syscall(444, attr, sizeof(uint64_t), 0U);
		if (fd < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			return result(-1);
		return result((int)syscall(446, fd,
		    (unsigned)strtoul(argv[2], NULL, 0)));
	}
	if (!strcmp(cmd, "tiocsti-high") && argc == 2) {
		char hash = '#';

		return result((int)syscall(SYS_ioctl, 0,
		    (unsigned long)TIOCSTI | 0xabcd00000000UL, &hash));
	}
	if (!strcmp(cmd, "signal") && argc == 3)
		return result(kill((pid_t)atol(argv[2]), 0));
	if (!strcmp(cmd, "fail") && argc > 5 && !strcmp(argv[4], "--")) {
		const char *name = argv[3];
		int err = !strcmp(name, "ENOSYS") ? ENOSYS :
		    !strcmp(name, "EOPNOTSUPP") ? EOPNOTSUPP :
		    !strcmp(name, "EPERM") ? EPERM :
		    !strcmp(name, "EINVAL") ? EINVAL :
		    !strcmp(name, "ENOMEM") ? ENOMEM : 0;

		if (!err || fail_syscalls(argv[2], err) < 0) {
			fprintf(stderr, "sbx-probe: cannot make '%s' fail with "
			    "'%s'\n", argv[2], name);
			return 2;
		}
		execvp(argv[5], argv + 5);
		perror(argv[5]);
		return 127;
	}
	fprintf(stderr, "sbx-probe: bad arguments (see the source)\n");
	return 2;
}
