#include "compat.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "platform.h"
#include "strbuf.h"

#ifndef __linux__
#error "magus builds on Linux; the host os is fixed at compile time"
#endif
#define HOST_OS "linux"

static const char *const known_os[] = { "linux" };

static const struct {
	const char *arch;
	const char *variants; /* space-separated allowed variants, "" none */
	unsigned char elf_class;
	unsigned short elf_machine;
} known_arch[] = {
	{ "amd64", "v1 v2 v3 v4", ELFCLASS64, EM_X86_64 },
	{ "arm64", "v8", ELFCLASS64, EM_AARCH64 },
	{ "arm", "v5 v6 v7", ELFCLASS32, EM_ARM },
	{ "386", "", ELFCLASS32, EM_386 },
	{ "riscv64", "", ELFCLASS64, EM_RISCV },
	{ "ppc64le", "", ELFCLASS64, EM_PPC64 },
	{ "s390x", "", ELFCLASS64, EM_S390 },
};

static bool
word_in(const char *word, const char *list)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

int
platform_parse(const char *s, struct platform *p, struct strbuf *err)
{
	const char *slash, *slash2;
	size_t i, oslen, archlen;
	bool os_ok = false;
	int ai = -1;

	memset(p, 0, sizeof(*p));
	slash = strchr(s, '/');
	if (!slash) {
		strbuf_addf(err,
		    "platform '%s' names no architecture: write OS/ARCH, for "
		    "example '%s/%s' (this host)", s, *s ? s : HOST_OS,
		    MAGUS_HOST_ARCH);
		return -1;
	}
	oslen = (size_t)(slash - s);
	slash2 = strchr(slash + 1, '/');
	archlen = slash2 ? (size_t)(slash2 - slash - 1) : strlen(slash + 1);
	if (oslen == 0 || oslen >= sizeof(p->os) || archlen == 0 ||
	    archlen >= sizeof(p->arch) ||
	    (slash2 && (!slash2[1] || strlen(slash2 + 1) >= sizeof(p->variant) ||
	    strchr(slash2 + 1, '/')))) {
		strbuf_addf(err, "platform '%s' is not OS/ARCH[/VARIANT]", s);
		return -1;
	}
	memcpy(p->os, s, oslen);
	memcpy(p->arch, slash + 1, archlen);
	if (slash2)
		memcpy(p->variant, slash2 + 1, strlen(slash2 + 1));

	for (i = 0; i < ARRAY_SIZE(known_os); i++)
		os_ok |= !strcmp(p->os, known_os[i]);
	if (!os_ok) {
		strbuf_addf(err, "unknown os '%s' in platform '%s': magus "
		    "relays to linux", p->os, s);
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(known_arch); i++)
		if (!strcmp(p->arch, known_arch[i].arch))
			ai = (int)i;
	if (ai < 0) {
		strbuf_addf(err, "unknown architecture '%s' in platform '%s' "
		    "(known: amd64, arm64, arm, 386, riscv64, ppc64le, s390x)",
		    p->arch, s);
		return -1;
	}
	if (p->variant[0] && !word_in(p->variant, known_arch[ai].variants)) {
		strbuf_addf(err, "unknown variant '%s' for %s in platform '%s'",
		    p->variant, p->arch, s);
		return -1;
	}
	return 0;
}

const char *
platform_str(const struct platform *p)
{
	static char buf[48];

	snprintf(buf, sizeof(buf), "%s/%s%s%s", p->os, p->arch,
	    p->variant[0] ? "/" : "", p->variant);
	return buf;
}

const char *
platform_dirname(const struct platform *p)
{
	static char buf[48];

	snprintf(buf, sizeof(buf), "%s-%s%s%s", p->os, p->arch,
	    p->variant[0] ? "-" : "", p->variant);
	return buf;
}

void
platform_host(struct platform *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->os, sizeof(p->os), "%s", HOST_OS);
	snprintf(p->arch, sizeof(p->arch), "%s", MAGUS_HOST_ARCH);
}

bool
platform_is_host(const struct platform *p)
{
	return !strcmp(p->os, HOST_OS) && !strcmp(p->arch, MAGUS_HOST_ARCH);
}

int
elf_arch(const char *path, char *arch, unsigned archlen, struct strbuf *err)
{
	unsigned char h[20];
	unsigned short machine;
	ssize_t n;
	size_t i;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = RETRY_EINTR(read(fd, h, sizeof(h)));
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) != 0) {
		strbuf_addf(err, "'%s' is not an ELF executable", path);
		return -1;
	}
	if (h[EI_DATA] == ELFDATA2LSB)
		machine = (unsigned short)(h[18] | h[19] << 8);
	else
		machine = (unsigned short)(h[18] << 8 | h[19]);
	for (i = 0; i < ARRAY_SIZE(known_arch); i++) {
		if (known_arch[i].elf_machine == machine &&
		    known_arch[i].elf_class == h[EI_CLASS]) {
			snprintf(arch, archlen, "%s", known_arch[i].arch);
			return 0;
		}
	}
	strbuf_addf(err, "'%s' is an ELF file for an unknown machine "
	    "(class %u, e_machine %u)", path, h[EI_CLASS], machine);
	return -1;
}
