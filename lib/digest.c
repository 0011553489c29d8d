#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "diag.h"
#include "digest.h"
#include "strbuf.h"

static void
hexify(const unsigned char *md, unsigned n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	unsigned i;

	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * n] = '\0';
}

void
sha256_init(struct sha256_ctx *c)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		die_status(71, "libcrypto: cannot start a SHA-256 digest");
	c->evp = ctx;
}

void
sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	if (EVP_DigestUpdate(c->evp, data, len) != 1)
		die_status(71, "libcrypto: SHA-256 update failed");
}

void
sha256_final_hex(struct sha256_ctx *c, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	if (EVP_DigestFinal_ex(c->evp, md, &n) != 1 || n != 32)
		die_status(71, "libcrypto: SHA-256 final failed");
	hexify(md, n, hex);
	sha256_abandon(c);
}

void
sha256_abandon(struct sha256_ctx *c)
{
	EVP_MD_CTX_free(c->evp);
	c->evp = NULL;
}

void
sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	struct sha256_ctx c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final_hex(&c, hex);
}

int
sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1],
    unsigned long long *size, struct strbuf *err)
{
	unsigned char buf[1 << 15];
	struct sha256_ctx c;
	unsigned long long total = 0;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		strbuf_addf(err, "'%s' is not a regular file", path);
		close(fd);
		return -1;
	}
	sha256_init(&c);
	while ((n = RETRY_EINTR(read(fd, buf, sizeof(buf)))) > 0) {
		sha256_update(&c, buf, (size_t)n);
		total += (unsigned long long)n;
	}
	if (n < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
		sha256_abandon(&c);
		close(fd);
		return -1;
	}
	close(fd);
	sha256_final_hex(&c, hex);
	if (size)
		*size = total;
	return 0;
}

bool
sha256_hex_valid(const char *s)
{
	size_t i;

	for (i = 0; i < SHA256_HEX_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[i] == '\0';
}
