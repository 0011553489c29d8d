#include "compat.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "strbuf.h"

int
landlock_probe_abi(int *err)
{
	long abi;

	abi = syscall(MAGUS_NR_landlock_create_ruleset, NULL, (size_t)0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		if (err)
			*err = abi < 0 ? errno : EINVAL;
		return -1;
	}
	if (err)
		*err = 0;
	return (int)abi;
}

int
landlock_abi_used(int found)
{
	if (found < 1)
		return 0;
	return found > MAGUS_LANDLOCK_ABI_MAX ? MAGUS_LANDLOCK_ABI_MAX : found;
}

const char *
landlock_errno_hint(int err)
{
	switch (err) {
	case ENOSYS:
		return "this kernel was built without Landlock "
		       "(CONFIG_SECURITY_LANDLOCK); use Linux 6.2 or newer "
		       "built with it";
	case EOPNOTSUPP:
		return "Landlock is built in but disabled at boot; add "
		       "landlock to the kernel's lsm= list "
		       "(lsm=landlock,...)";
	default:
		return "the kernel refused the Landlock version probe";
	}
}

static const struct {
	int abi;
	const char *name;
} features[] = {
	{ 2, "refer" },
	{ 3, "truncate" },
	{ 4, "tcp" },
	{ 5, "ioctl_dev" },
	{ 6, "scopes" },
	{ 7, "log flags" },
};

int
landlock_missing_features(int abi, struct strbuf *out)
{
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(features); i++) {
		if (features[i].abi <= abi)
			continue;
		strbuf_addf(out, "%s%s (ABI %d)", n ? ", " : "",
		    features[i].name, features[i].abi);
		n++;
	}
	return n;
}

uint64_t
landlock_fs_rights(int abi)
{
	uint64_t r;

	if (abi < 1)
		return 0;
	r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0..12 */
	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r;
}

uint64_t
landlock_net_rights(int abi)
{
	return abi >= 4 ? LANDLOCK_ACCESS_NET_BIND_TCP |
		LANDLOCK_ACCESS_NET_CONNECT_TCP : 0;
}

uint64_t
landlock_scopes(int abi)
{
	return abi >= 6 ? LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		LANDLOCK_SCOPE_SIGNAL : 0;
}
