#include "compat.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "strbuf.h"
#include "strutil.h"

int
landlock_create_ruleset(const struct landlock_ruleset_attr *attr, size_t size,
    uint32_t flags)
{
	return (int)syscall(MAGUS_NR_landlock_create_ruleset, attr, size,
	    flags);
}

int
landlock_add_rule(int ruleset_fd, enum landlock_rule_type type,
    const void *attr, uint32_t flags)
{
	return (int)syscall(MAGUS_NR_landlock_add_rule, ruleset_fd, type, attr,
	    flags);
}

int
landlock_restrict_self(int ruleset_fd, uint32_t flags)
{
	return (int)syscall(MAGUS_NR_landlock_restrict_self, ruleset_fd,
	    flags);
}

int
landlock_probe_abi(int *err)
{
	int abi;

	abi = landlock_create_ruleset(NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		if (err)
			*err = abi < 0 ? errno : EINVAL;
		return -1;
	}
	if (err)
		*err = 0;
	return abi;
}

int
landlock_abi_used(int found)
{
	if (found < 1)
		return 0;
	return found > MAGUS_LANDLOCK_ABI_MAX ? MAGUS_LANDLOCK_ABI_MAX : found;
}

int
landlock_abi_get(struct landlock_abi *a, const char *knob)
{
	long limit;

	a->found = landlock_probe_abi(&a->err);
	a->used = landlock_abi_used(a->found);
	a->limit = -1;
	if (!knob || !*knob)
		return 0;
	if (!parse_long(knob, 0, MAGUS_LANDLOCK_ABI_MAX, &limit))
		return -1;
	a->limit = (int)limit;
	if (a->used > a->limit)
		a->used = a->limit;
	return 0;
}

const char *
landlock_errno_hint(int err)
{
	switch (err) {
	case ENOSYS:
		return "this kernel was built without Landlock "
		       "(CONFIG_SECURITY_LANDLOCK), or an emulator "
		       "(qemu-user) does not pass its system calls on; use "
		       "Linux 6.2 or newer built with it, natively";
	case EOPNOTSUPP:
		return "Landlock is built in but disabled at boot; add "
		       "landlock to the kernel's lsm= list "
		       "(lsm=landlock,...)";
	default:
		return "the kernel refused the Landlock version probe";
	}
}

static const struct {
	unsigned feature;
	int abi;
	const char *name;
} features[] = {
	{ LANDLOCK_FEAT_REFER, 2, "refer" },
	{ LANDLOCK_FEAT_TRUNCATE, 3, "truncate" },
	{ LANDLOCK_FEAT_TCP, 4, "tcp" },
	{ LANDLOCK_FEAT_IOCTL_DEV, 5, "ioctl_dev" },
	{ LANDLOCK_FEAT_SCOPES, 6, "scopes" },
	{ LANDLOCK_FEAT_LOG, 7, "log flags" },
};

unsigned
landlock_missing(int abi, unsigned want)
{
	unsigned m = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(features); i++)
		if ((want & features[i].feature) && features[i].abi > abi)
			m |= features[i].feature;
	return m;
}

const char *
landlock_feature_name(unsigned feature)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(features); i++)
		if (features[i].feature == feature)
			return features[i].name;
	return NULL;
}

int
landlock_feature_abi(unsigned feature)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(features); i++)
		if (features[i].feature == feature)
			return features[i].abi;
	return 0;
}

int
landlock_features_text(unsigned mask, struct strbuf *out)
{
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(features); i++)
		if (mask & features[i].feature)
			strbuf_addf(out, "%s%s", n++ ? ", " : "",
			    features[i].name);
	if (!n) {
		strbuf_addstr(out, "nothing");
		return 0;
	}
	strbuf_addstr(out, " (needs ABI ");
	n = 0;
	for (i = 0; i < ARRAY_SIZE(features); i++)
		if (mask & features[i].feature)
			strbuf_addf(out, "%s%d", n++ ? ", " : "",
			    features[i].abi);
	strbuf_addch(out, ')');
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

uint32_t
landlock_restrict_flags(int abi)
{
	return abi >= 7 ? LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0;
}

static const char *const fs_right_names[] = {
	"execute", "write_file", "read_file", "read_dir", "remove_dir",
	"remove_file", "make_char", "make_dir", "make_reg", "make_sock",
	"make_fifo", "make_block", "make_sym", "refer", "truncate",
	"ioctl_dev",
};

const char *
landlock_fs_right_name(uint64_t bit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fs_right_names); i++)
		if (bit == 1ULL << i)
			return fs_right_names[i];
	return NULL;
}

void
landlock_rights_summary(uint64_t rights, struct strbuf *out)
{
	static const struct {
		uint64_t bits;
		const char *word;
	} groups[] = {
		{ LANDLOCK_RIGHTS_READ, "read" },
		{ LANDLOCK_RIGHTS_WRITE & ~(LANDLOCK_ACCESS_FS_REFER |
		    LANDLOCK_ACCESS_FS_TRUNCATE), "write" },
		{ LANDLOCK_RIGHTS_EXEC, "exec" },
		{ LANDLOCK_ACCESS_FS_REFER, "refer" },
		{ LANDLOCK_ACCESS_FS_TRUNCATE, "truncate" },
		{ LANDLOCK_ACCESS_FS_IOCTL_DEV, "ioctl" },
	};
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(groups); i++)
		if (rights & groups[i].bits)
			strbuf_addf(out, "%s%s", n++ ? "," : "",
			    groups[i].word);
	if (!n)
		strbuf_addstr(out, "none");
}
