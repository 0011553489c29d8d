/*
 * esc-priv: privileges a sandboxed child must not have, or gain.
 *
 *	esc-priv whoami		print the ids, the five capability sets and
 *				no_new_privs, one line:
 *	    uid=R/E/S gid=R/E/S eff=HEX prm=HEX inh=HEX bnd=HEX amb=HEX nnp=N
 *	esc-priv chown PATH UID	chown(2), the group unchanged
 *	esc-priv setuid UID	setresuid(2) to UID
 *	esc-priv mount SRC DST	a new user and mount namespace (where the
 *				caller holds every capability), then bind
 *				SRC over DST
 *
 * A setuid-root copy of this program is how the tests look for an
 * escalation: run under no_new_privs it must report what its caller had.
 * The attacks print and exit as escape.h says; whoami exits 0.
 */
#include "compat.h"

#include <linux/capability.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "escape.h"

static const char prog[] = "esc-priv";

static int
whoami(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint64_t eff, prm, inh, bnd = 0, amb = 0;
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int cap, r, nnp;

	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0)
		esc_setup_error(prog, "getresuid");
	if (syscall(SYS_capget, &hdr, data) < 0)
		esc_setup_error(prog, "capget");
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	prm = data[0].permitted | (uint64_t)data[1].permitted << 32;
	inh = data[0].inheritable | (uint64_t)data[1].inheritable << 32;
	/* Ask cap by cap until the kernel says it knows no more. */
	for (cap = 0; cap < 64; cap++) {
		r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (r < 0)
			break;
		if (r)
			bnd |= (uint64_t)1 << cap;
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) > 0)
			amb |= (uint64_t)1 << cap;
	}
	nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (nnp < 0)
		esc_setup_error(prog, "PR_GET_NO_NEW_PRIVS");
	printf("uid=%u/%u/%u gid=%u/%u/%u eff=%llx prm=%llx inh=%llx "
	    "bnd=%llx amb=%llx nnp=%d\n", (unsigned)ru, (unsigned)eu,
	    (unsigned)su, (unsigned)rg, (unsigned)eg, (unsigned)sg,
	    (unsigned long long)eff, (unsigned long long)prm,
	    (unsigned long long)inh, (unsigned long long)bnd,
	    (unsigned long long)amb, nnp);
	return 0;
}

static int
bind_in_namespace(const char *src, const char *dst)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
		/* Say which step failed: only the mount's refusal counts. */
		printf("unshare ");
		return verdict(-1);
	}
	return verdict(mount(src, dst, NULL, MS_BIND, NULL));
}

int
main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	if (!strcmp(op, "whoami") && argc == 2)
		return whoami();
	if (!strcmp(op, "chown") && argc == 4)
		return verdict(chown(argv[2],
		    (uid_t)esc_number(prog, argv[3]), (gid_t)-1));
	if (!strcmp(op, "setuid") && argc == 3) {
		uid_t u = (uid_t)esc_number(prog, argv[2]);

		return verdict(setresuid(u, u, u));
	}
	if (!strcmp(op, "mount") && argc == 4)
		return bind_in_namespace(argv[2], argv[3]);
	esc_usage(prog, "whoami | chown PATH UID | setuid UID | mount SRC DST");
	return 2;
}
