/*
 * landlock.h: probing the kernel's Landlock and naming what it enforces.
 *
 * The policy itself (rules, rights per path) is built by
 * magus-sandbox-exec; this module holds what the front's doctor and the
 * sandbox share: the ABI probe, the rights each ABI added, and the
 * per-mode outcome on this host.
 */
#ifndef MAGUS_LANDLOCK_H
#define MAGUS_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "landlock-uapi.h"

/* The newest ABI magus knows; a newer kernel is used at this one. */
#define MAGUS_LANDLOCK_ABI_MAX 7

struct strbuf;

/*
 * Ask the kernel for its Landlock ABI with
 * landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION).
 * Returns the ABI (>= 1), or -1 with *err set to the errno: ENOSYS (built
 * without Landlock), EOPNOTSUPP (built in, disabled at boot) or another.
 */
int landlock_probe_abi(int *err);

/* The ABI magus will use: min(found, MAGUS_LANDLOCK_ABI_MAX), or 0. */
int landlock_abi_used(int found);

/* One line of advice for a probe failure's errno. */
const char *landlock_errno_hint(int err);

/*
 * The features that need a newer ABI than `abi`, named: a list such as
 * "refer (ABI 2), truncate (ABI 3), tcp (ABI 4), ioctl_dev (ABI 5),
 * scopes (ABI 6), log flags (ABI 7)".  Appends nothing when the ABI has
 * them all.  Returns how many were named.
 */
int landlock_missing_features(int abi, struct strbuf *out);

/* The rights handled at `abi`. */
uint64_t landlock_fs_rights(int abi);
uint64_t landlock_net_rights(int abi);
uint64_t landlock_scopes(int abi);

#endif /* MAGUS_LANDLOCK_H */
