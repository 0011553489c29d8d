/*
 * platform.h: OS/ARCH[/VARIANT] names, the host's platform, and what an
 * executable's header says it runs on.
 *
 * Names follow the OCI image spec (the Go spelling): linux/amd64,
 * linux/arm64, linux/arm/v7.  The host platform is fixed at compile time
 * and never read from the environment.
 */
#ifndef MAGUS_PLATFORM_H
#define MAGUS_PLATFORM_H

#include <stdbool.h>

struct strbuf;

struct platform {
	char os[16];
	char arch[16];
	char variant[8]; /* "" when none */
};

/*
 * Parse "OS/ARCH[/VARIANT]".  Returns 0, or -1 with a message in `err`
 * naming what is wrong (bare "linux" names the host's architecture and
 * the full spelling to use).
 */
int platform_parse(const char *s, struct platform *p, struct strbuf *err);
/* "os/arch" or "os/arch/variant" into a static buffer. */
const char *platform_str(const struct platform *p);
/* "os-arch" (the store directory name), into a static buffer. */
const char *platform_dirname(const struct platform *p);
void platform_host(struct platform *p);
bool platform_is_host(const struct platform *p);

/*
 * Read the ELF header of `path` and name the architecture it was built
 * for, in platform spelling ("amd64", "arm64", ...).  Returns 0, or -1
 * with a message in `err` (not an ELF file, unreadable, unknown machine).
 */
int elf_arch(const char *path, char *arch, unsigned archlen,
    struct strbuf *err);

#endif /* MAGUS_PLATFORM_H */
