/*
 * digest.h: SHA-256 through OpenSSL's libcrypto, written as lowercase hex.
 *
 * A program using this module links $(CRYPTO_LIBS).  libcrypto failing
 * to allocate a context is treated like malloc failing: the program
 * exits (status 71) with a message.
 */
#ifndef MAGUS_DIGEST_H
#define MAGUS_DIGEST_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

#define SHA256_HEX_LEN 64

struct sha256_ctx {
	void *evp; /* EVP_MD_CTX */
};

void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
/* Finish into `hex` (65 bytes: 64 digits and a NUL) and free the context. */
void sha256_final_hex(struct sha256_ctx *c, char hex[SHA256_HEX_LEN + 1]);
/* Free a context that will not be finished (an error path). */
void sha256_abandon(struct sha256_ctx *c);

/* The digest of a buffer in one call. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

/*
 * The digest of the regular file at `path`, opened without following a
 * final symlink.  `size` (may be NULL) receives its length.  Returns 0,
 * or -1 with a message in `err` naming the path.
 */
int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1],
    unsigned long long *size, struct strbuf *err);

/* True when `s` is exactly 64 lowercase hex digits. */
bool sha256_hex_valid(const char *s);

#endif /* MAGUS_DIGEST_H */
