/*
 * landlock-uapi.h: the Landlock ABI, carried by magus itself.
 *
 * Debian 12's kernel headers (Linux 6.1) stop at ABI 2, so the constants,
 * the three-field ruleset attribute and the syscall numbers are copied
 * here from the kernel's include/uapi/linux/landlock.h (ABI 1 to 7).  The
 * names carry a MAGUS_ prefix-free spelling identical to the kernel's so the
 * code reads like the kernel documentation; this header is used instead of
 * <linux/landlock.h>, never together with it.
 */
#ifndef MAGUS_LANDLOCK_UAPI_H
#define MAGUS_LANDLOCK_UAPI_H

#include <stdint.h>

#ifdef _LINUX_LANDLOCK_H
#error "include landlock-uapi.h instead of <linux/landlock.h>"
#endif
#define _LINUX_LANDLOCK_H /* keep the system header out */
#define _UAPI_LINUX_LANDLOCK_H

/* Syscall numbers: the same on every architecture (the generic table). */
#define MAGUS_NR_landlock_create_ruleset 444
#define MAGUS_NR_landlock_add_rule 445
#define MAGUS_NR_landlock_restrict_self 446

struct landlock_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;	     /* ABI 6 */
};

/* landlock_create_ruleset() flags */
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define LANDLOCK_CREATE_RULESET_ERRATA (1U << 1) /* ABI 7 */

/* landlock_restrict_self() flags, ABI 7 */
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)
#define LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)

enum landlock_rule_type {
	LANDLOCK_RULE_PATH_BENEATH = 1,
	LANDLOCK_RULE_NET_PORT = 2, /* ABI 4 */
};

struct landlock_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct landlock_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

/* Filesystem rights */
#define LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)	  /* ABI 2 */
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */

/* Network rights, ABI 4 */
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)

/* Scopes, ABI 6 */
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

#endif /* MAGUS_LANDLOCK_UAPI_H */
