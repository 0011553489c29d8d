/*
 * landlock.h: probing the kernel's Landlock and naming what it enforces.
 *
 * The policy itself (which paths get which rights) is built by
 * magus-sandbox-exec; this module holds what the front's doctor and the
 * sandbox share: the ABI probe, the knob that lowers it for tests, the
 * rights each ABI added and their names, and thin wrappers for the three
 * system calls (glibc has none).
 *
 *	struct landlock_abi a;
 *	if (landlock_abi_get(&a, getenv("MAGUS_LANDLOCK_ABI_MAX")) < 0)
 *		... the knob is malformed: refuse ...
 *	handled = landlock_fs_rights(a.used);
 *
 * Every right has a "feature" name as printed to users: refer (ABI 2),
 * truncate (3), tcp (4), ioctl_dev (5), scopes (6), and the log flags
 * (7), which change what the kernel reports, not what it denies.
 */
#ifndef MAGUS_LANDLOCK_H
#define MAGUS_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "landlock-uapi.h"

/* The newest ABI magus knows; a newer kernel is used at this one. */
#define MAGUS_LANDLOCK_ABI_MAX 7

/* The lowest ABI mode `required` accepts: below it truncation cannot be
 * denied. */
#define MAGUS_LANDLOCK_ABI_REQUIRED 3

/*
 * Rights in groups, before an ABI masks them.  A rule on a file (not a
 * directory) may carry only LANDLOCK_RIGHTS_FILE: the kernel answers
 * EINVAL to directory rights on a file.
 */
#define LANDLOCK_RIGHTS_FILE                                                   \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |          \
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |       \
	    LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define LANDLOCK_RIGHTS_READ                                                   \
	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* Writing, creating, removing, renaming and truncating; never device
 * nodes (mknod needs a capability the sandbox drops anyway). */
#define LANDLOCK_RIGHTS_WRITE                                                  \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |       \
	    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |     \
	    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |       \
	    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM |       \
	    LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE)
#define LANDLOCK_RIGHTS_EXEC LANDLOCK_ACCESS_FS_EXECUTE

/* The features an ABI adds, as a bit mask. */
enum landlock_feature {
	LANDLOCK_FEAT_REFER = 1 << 0,	  /* ABI 2 */
	LANDLOCK_FEAT_TRUNCATE = 1 << 1,  /* ABI 3 */
	LANDLOCK_FEAT_TCP = 1 << 2,	  /* ABI 4 */
	LANDLOCK_FEAT_IOCTL_DEV = 1 << 3, /* ABI 5 */
	LANDLOCK_FEAT_SCOPES = 1 << 4,	  /* ABI 6 */
	LANDLOCK_FEAT_LOG = 1 << 5,	  /* ABI 7 */
};
/* The features that deny something (all but the log flags). */
#define LANDLOCK_FEAT_RIGHTS                                                   \
	(LANDLOCK_FEAT_REFER | LANDLOCK_FEAT_TRUNCATE | LANDLOCK_FEAT_TCP |    \
	    LANDLOCK_FEAT_IOCTL_DEV | LANDLOCK_FEAT_SCOPES)

struct strbuf;

struct landlock_abi {
	int found; /* the kernel's ABI, or -1 when it has no Landlock */
	int err;   /* the probe's errno when found is -1, else 0 */
	int limit; /* the knob's value, or -1 when the knob is not set */
	int used;  /* min(found, limit, MAGUS_LANDLOCK_ABI_MAX), 0 for none */
};

/*
 * Ask the kernel for its Landlock ABI with
 * landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION), never
 * through /sys.  Returns the ABI (>= 1), or -1 with *err set to the errno:
 * ENOSYS (built without Landlock), EOPNOTSUPP (built in, disabled at boot)
 * or another.
 */
int landlock_probe_abi(int *err);

/* The ABI magus will use: min(found, MAGUS_LANDLOCK_ABI_MAX), or 0. */
int landlock_abi_used(int found);

/*
 * Probe, then lower the ABI to `knob` (the value of
 * MAGUS_LANDLOCK_ABI_MAX, NULL or "" when unset), a number from 0 to
 * MAGUS_LANDLOCK_ABI_MAX.  The knob can only lower what is used, never
 * raise it past what the kernel has; 0 uses no Landlock at all.  Returns
 * 0, or -1 when the knob is not such a number (a->limit is then -1 and
 * the rest is filled as if it were unset).
 */
int landlock_abi_get(struct landlock_abi *a, const char *knob);

/* One line of advice for a probe failure's errno. */
const char *landlock_errno_hint(int err);

/* The features of `want` that ABI `abi` lacks. */
unsigned landlock_missing(int abi, unsigned want);
/* A feature's name ("refer", "tcp", ...) and the ABI that added it. */
const char *landlock_feature_name(unsigned feature);
int landlock_feature_abi(unsigned feature);
/*
 * Append the features of `mask` as "ioctl_dev, scopes (needs ABI 5, 6)",
 * or "nothing" when the mask is empty.  Returns how many were named.
 */
int landlock_features_text(unsigned mask, struct strbuf *out);

/* The rights handled at `abi`. */
uint64_t landlock_fs_rights(int abi);
uint64_t landlock_net_rights(int abi);
uint64_t landlock_scopes(int abi);
/* The landlock_restrict_self() flags magus asks for at `abi`: at ABI 7,
 * LOG_NEW_EXEC_ON, so the kernel's audit log records the denials of the
 * command run, not only those of the sandbox program before its exec. */
uint32_t landlock_restrict_flags(int abi);

/* The kernel's name of one filesystem right bit ("read_file"), or NULL. */
const char *landlock_fs_right_name(uint64_t bit);
/*
 * Append a short summary of `rights`: the words read, write, exec,
 * refer, truncate and ioctl for the groups present, comma-separated
 * ("read,write,exec,refer,truncate"), or "none".
 */
void landlock_rights_summary(uint64_t rights, struct strbuf *out);

/* The system calls, with errno set on failure. */
int landlock_create_ruleset(const struct landlock_ruleset_attr *attr,
    size_t size, uint32_t flags);
int landlock_add_rule(int ruleset_fd, enum landlock_rule_type type,
    const void *attr, uint32_t flags);
int landlock_restrict_self(int ruleset_fd, uint32_t flags);

#endif /* MAGUS_LANDLOCK_H */
