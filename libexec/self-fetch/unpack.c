#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "digest.h"
#include "innerbuild.h"
#include "platform.h"
#include "strbuf.h"
#include "strutil.h"
#include "unpack.h"
#include "xalloc.h"

#define BLOCK 512
/* What an inner build may hold in all: a few programs and BUILD-INFO. */
#define TOTAL_MAX (4ULL << 30)

struct untar {
	const char *dir;
	int dfd;
	const struct platform *p;
	struct strbuf *err;
	enum unpack_result result;

	unsigned char hdr[BLOCK];
	size_t hdrlen;
	enum { T_HEADER, T_DATA, T_PAD, T_END } state;
	unsigned long long remaining, pad, total;

	/* the entry being written */
	char name[260];
	int fd;			/* -1: BUILD-INFO, kept in memory */
	struct sha256_ctx sha;
	unsigned long long size;

	struct strbuf buildinfo;
	bool have_buildinfo;
	struct buildinfo_file *files;
	size_t nfiles, alloc;
};

static int
refuse(struct untar *U, enum unpack_result r, const char *fmt, ...)
    PRINTF_LIKE(3, 4);

static int
refuse(struct untar *U, enum unpack_result r, const char *fmt, ...)
{
	va_list ap;

	if (U->result == UNPACK_OK) {
		va_start(ap, fmt);
		strbuf_vaddf(U->err, fmt, ap);
		va_end(ap);
		U->result = r;
	}
	return -1;
}

/* An octal field: digits, then spaces or NULs to its end. */
static bool
octal(const unsigned char *f, size_t n, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i = 0;

	while (i < n && f[i] == ' ')
		i++;
	if (i == n || f[i] < '0' || f[i] > '7')
		return false;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return false;
		v = v * 8 + (unsigned long long)(f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return false;
	*out = v;
	return true;
}

static bool
all_zero(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* A NUL-terminated copy of a name field of at most `n` bytes. */
static void
field(char *out, const unsigned char *f, size_t n)
{
	size_t k = 0;

	while (k < n && f[k])
		k++;
	memcpy(out, f, k);
	out[k] = '\0';
}

static int
header(struct untar *U)
{
	const unsigned char *h = U->hdr;
	unsigned long long sum, size, want = 0;
	char name[101], prefix[156];
	size_t i, n;
	char type = (char)h[156];
	bool dir;

	if (all_zero(h, BLOCK)) {
		U->state = T_END;
		return 0;
	}
	for (i = 0; i < BLOCK; i++)
		want += (i >= 148 && i < 156) ? ' ' : h[i];
	if (!octal(h + 148, 8, &sum) || sum != want)
		return refuse(U, UNPACK_REFUSED, "the archive has a damaged "
		    "header (checksum)");
	if (memcmp(h + 257, "ustar\0" "00", 8))
		return refuse(U, UNPACK_REFUSED, "the archive is not in ustar "
		    "format");
	field(name, h, 100);
	field(prefix, h + 345, 155);
	if (*prefix)
		snprintf(U->name, sizeof(U->name), "%s/%s", prefix, name);
	else
		snprintf(U->name, sizeof(U->name), "%s", name);
	dir = type == '5';
	if (!dir && type != '0' && type != '\0')
		return refuse(U, UNPACK_REFUSED, "the archive's entry '%s' is "
		    "of type '%c', not a file or a directory", U->name,
		    type >= 32 && type < 127 ? type : '?');
	n = strlen(U->name);
	if (dir && n && U->name[n - 1] == '/')
		U->name[--n] = '\0';
	if (!innerbuild_layout_ok(U->name, dir))
		return refuse(U, UNPACK_REFUSED, "the archive's entry '%s' is "
		    "not part of an inner build", U->name);
	if (!octal(h + 124, 12, &size) || (dir && size))
		return refuse(U, UNPACK_REFUSED, "the archive's entry '%s' has "
		    "a bad size", U->name);
	if (size > INNER_FILE_MAX || U->total + size > TOTAL_MAX)
		return refuse(U, UNPACK_REFUSED, "the archive's entry '%s' is "
		    "too large", U->name);
	U->total += size;
	if (dir)
		return 0; /* the layout's directories exist already */

	for (i = 0; i < U->nfiles; i++)
		if (!strcmp(U->files[i].path, U->name))
			return refuse(U, UNPACK_REFUSED, "the archive holds "
			    "'%s' twice", U->name);
	if (!strcmp(U->name, INNER_BUILD_INFO)) {
		if (size > 65536)
			return refuse(U, UNPACK_REFUSED, "the archive's %s is "
			    "too large", U->name);
		if (U->have_buildinfo)
			return refuse(U, UNPACK_REFUSED, "the archive holds "
			    "'%s' twice", U->name);
		U->have_buildinfo = true;
		U->fd = -1;
	} else {
		U->fd = openat(U->dfd, U->name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0755);
		if (U->fd < 0)
			return refuse(U, UNPACK_IO, "cannot create '%s/%s': %s",
			    U->dir, U->name, strerror(errno));
	}
	sha256_init(&U->sha);
	U->size = size;
	U->remaining = size;
	U->pad = (BLOCK - size % BLOCK) % BLOCK;
	U->state = T_DATA;
	return 0;
}

/* The end of one file: record it, and check a binary's ELF header. */
static int
file_done(struct untar *U)
{
	struct strbuf e = STRBUF_INIT;
	struct buildinfo_file *f;
	char arch[16], *path;

	ALLOC_GROW(U->files, U->nfiles + 1, U->alloc);
	f = &U->files[U->nfiles++];
	f->path = xstrdup(U->name);
	f->size = U->size;
	sha256_final_hex(&U->sha, f->sha256);
	if (U->fd == -1)
		return 0;
	if (close(U->fd) < 0) {
		U->fd = -1;
		return refuse(U, UNPACK_IO, "cannot write '%s/%s': %s", U->dir,
		    f->path, strerror(errno));
	}
	U->fd = -1;
	path = path_join(U->dir, f->path);
	if (elf_arch(path, arch, sizeof(arch), &e) < 0) {
		refuse(U, UNPACK_REFUSED, "the archive's '%s' is not an ELF "
		    "executable", f->path);
	} else if (strcmp(arch, U->p->arch)) {
		refuse(U, UNPACK_WRONG_ARCH, "the archive's '%s' is an "
		    "executable for %s, not for %s", f->path, arch,
		    platform_str(U->p));
	}
	free(path);
	strbuf_release(&e);
	return U->result == UNPACK_OK ? 0 : -1;
}

static int
feed(struct untar *U, const unsigned char *p, size_t len)
{
	while (len) {
		size_t n;

		switch (U->state) {
		case T_HEADER:
			n = BLOCK - U->hdrlen;
			if (n > len)
				n = len;
			memcpy(U->hdr + U->hdrlen, p, n);
			U->hdrlen += n;
			p += n;
			len -= n;
			if (U->hdrlen == BLOCK) {
				U->hdrlen = 0;
				if (header(U) < 0)
					return -1;
				if (U->state == T_DATA && U->remaining == 0) {
					if (file_done(U) < 0)
						return -1;
					U->state = T_HEADER;
				}
			}
			break;
		case T_DATA:
			n = U->remaining < len ? (size_t)U->remaining : len;
			sha256_update(&U->sha, p, n);
			if (U->fd == -1) {
				strbuf_add(&U->buildinfo, p, n);
			} else {
				size_t off = 0;

				while (off < n) {
					ssize_t w = RETRY_EINTR(write(U->fd,
					    p + off, n - off));

					if (w < 0)
						return refuse(U, UNPACK_IO,
						    "cannot write '%s/%s': %s",
						    U->dir, U->name,
						    strerror(errno));
					off += (size_t)w;
				}
			}
			U->remaining -= n;
			p += n;
			len -= n;
			if (U->remaining == 0) {
				if (file_done(U) < 0)
					return -1;
				U->state = U->pad ? T_PAD : T_HEADER;
			}
			break;
		case T_PAD:
			n = U->pad < len ? (size_t)U->pad : len;
			if (!all_zero(p, n))
				return refuse(U, UNPACK_REFUSED, "the archive's "
				    "padding is not zero");
			U->pad -= n;
			p += n;
			len -= n;
			if (U->pad == 0)
				U->state = T_HEADER;
			break;
		case T_END:
			/* The end-of-archive blocks and the record's zero
			 * padding: nothing may follow but zeros. */
			if (!all_zero(p, len))
				return refuse(U, UNPACK_REFUSED, "the archive "
				    "goes on after its end");
			U->hdrlen += len;
			len = 0;
			break;
		}
	}
	return 0;
}

/* BUILD-INFO against what was unpacked. */
static int
check_buildinfo(struct untar *U, const char *version)
{
	struct strbuf e = STRBUF_INIT;
	struct buildinfo bi;
	size_t i, j, listed = 0;
	struct platform bp;

	if (!U->have_buildinfo)
		return refuse(U, UNPACK_REFUSED, "the archive holds no %s",
		    INNER_BUILD_INFO);
	if (buildinfo_parse(U->buildinfo.buf, U->buildinfo.len, &bi, &e) < 0) {
		refuse(U, UNPACK_REFUSED, "the archive's %s", e.buf);
		strbuf_release(&e);
		return -1;
	}
	strbuf_release(&e);
	if (platform_parse(bi.platform, &bp, &e) < 0 ||
	    strcmp(bp.os, U->p->os) || strcmp(bp.arch, U->p->arch)) {
		refuse(U, UNPACK_WRONG_ARCH, "the archive is a build for %s, "
		    "not for %s", bi.platform, platform_str(U->p));
		goto out;
	}
	if (strcmp(bi.version, version)) {
		refuse(U, UNPACK_VERSION, "the archive is magus %s, not %s "
		    "(the running magus)", bi.version, version);
		goto out;
	}
	for (i = 0; i < U->nfiles; i++) {
		const struct buildinfo_file *f = &U->files[i];

		if (!strcmp(f->path, INNER_BUILD_INFO))
			continue;
		for (j = 0; j < bi.nfiles; j++)
			if (!strcmp(bi.files[j].path, f->path))
				break;
		if (j == bi.nfiles || bi.files[j].size != f->size ||
		    strcmp(bi.files[j].sha256, f->sha256)) {
			refuse(U, UNPACK_REFUSED, "the archive's '%s' is not "
			    "the file its %s lists", f->path,
			    INNER_BUILD_INFO);
			goto out;
		}
		listed++;
	}
	if (listed != bi.nfiles)
		refuse(U, UNPACK_REFUSED, "the archive lacks a file its %s "
		    "lists", INNER_BUILD_INFO);
out:
	strbuf_release(&e);
	buildinfo_release(&bi);
	return U->result == UNPACK_OK ? 0 : -1;
}

static int
write_buildinfo(struct untar *U, char hex[65])
{
	int fd = openat(U->dfd, INNER_BUILD_INFO, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t off = 0;

	if (fd < 0)
		return refuse(U, UNPACK_IO, "cannot create '%s/%s': %s", U->dir,
		    INNER_BUILD_INFO, strerror(errno));
	while (off < U->buildinfo.len) {
		ssize_t w = RETRY_EINTR(write(fd, U->buildinfo.buf + off,
		    U->buildinfo.len - off));

		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (off < U->buildinfo.len) {
		close(fd);
		return refuse(U, UNPACK_IO, "cannot write '%s/%s': %s", U->dir,
		    INNER_BUILD_INFO, strerror(errno));
	}
	close(fd);
	sha256_hex(U->buildinfo.buf, U->buildinfo.len, hex);
	return 0;
}

enum unpack_result
unpack_release(const unsigned char *gz, size_t len, const char *dir,
    const struct platform *p, const char *version,
    char buildinfo_sha256[65], struct strbuf *err)
{
	static const char *const dirs[] = { "bin", "libexec", "libexec/magus" };
	unsigned char out[1 << 16];
	struct untar U;
	z_stream z;
	size_t i;
	int zr = Z_OK;

	memset(&U, 0, sizeof(U));
	U.dir = dir;
	U.p = p;
	U.err = err;
	U.fd = -1;
	strbuf_init(&U.buildinfo, 0);
	U.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (U.dfd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", dir, strerror(errno));
		return UNPACK_IO;
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (mkdirat(U.dfd, dirs[i], 0755) < 0) {
			refuse(&U, UNPACK_IO, "cannot create '%s/%s': %s", dir,
			    dirs[i], strerror(errno));
			goto out_nozlib;
		}

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		refuse(&U, UNPACK_IO, "zlib cannot start");
		goto out_nozlib;
	}
	z.next_in = (unsigned char *)(uintptr_t)gz;
	z.avail_in = 0;
	while (zr != Z_STREAM_END) {
		size_t chunk = len - (size_t)((const unsigned char *)z.next_in - gz);

		if (z.avail_in == 0)
			z.avail_in = chunk > (1u << 30) ? (1u << 30) :
			    (unsigned)chunk;
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END) {
			refuse(&U, UNPACK_REFUSED, "the archive is not valid "
			    "gzip (%s)", z.msg ? z.msg : "zlib error");
			goto out;
		}
		if (feed(&U, out, sizeof(out) - z.avail_out) < 0)
			goto out;
		if (zr == Z_OK && z.avail_in == 0 && z.avail_out != 0 &&
		    (const unsigned char *)z.next_in == gz + len) {
			refuse(&U, UNPACK_REFUSED, "the archive ends early");
			goto out;
		}
	}
	if ((const unsigned char *)z.next_in != gz + len) {
		refuse(&U, UNPACK_REFUSED, "data follows the archive's gzip "
		    "stream");
		goto out;
	}
	if (U.state != T_END || U.hdrlen < BLOCK) {
		refuse(&U, UNPACK_REFUSED, "the archive ends early");
		goto out;
	}
	if (check_buildinfo(&U, version) == 0)
		write_buildinfo(&U, buildinfo_sha256);
out:
	inflateEnd(&z);
out_nozlib:
	if (U.fd >= 0)
		close(U.fd);
	if (U.state == T_DATA)
		sha256_abandon(&U.sha);
	for (i = 0; i < U.nfiles; i++)
		free(U.files[i].path);
	free(U.files);
	strbuf_release(&U.buildinfo);
	close(U.dfd);
	return U.result;
}
