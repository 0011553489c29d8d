/*
 * esc-abi: the kernel's Landlock ABI, 0 when it has none.
 *
 * Asked the way magus-sandbox-exec must ask, with the syscall and never a
 * path under /sys, so a suite skips on exactly the kernels the sandbox
 * itself would find wanting.
 */
#include "compat.h"

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

int
main(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);

	printf("%ld\n", abi < 0 ? 0 : abi);
	return 0;
}
