/*
 * minisign.h: Ed25519 signatures in minisign's file formats, through
 * OpenSSL's libcrypto.
 *
 * A signature file reads
 *
 *	untrusted comment: <free text, not covered by any signature>
 *	<base64: "ED" | key number (8) | Ed25519 signature (64)>
 *	trusted comment: <text covered by the global signature>
 *	<base64: Ed25519 signature of (signature (64) | trusted comment)>
 *
 * "ED" signs the BLAKE2b-512 digest of the message (minisign's default
 * since 0.8); the legacy "Ed" signs the message itself and is accepted
 * when verifying.  A public key is base64("Ed" | key number | key (32)),
 * alone or under an "untrusted comment:" line as in minisign.pub.  A
 * secret key is minisign's secret key file without a password (what
 * `minisign -G -W` writes); password-protected keys are refused.
 *
 * The key number is 8 random bytes that name a key; `minisign` prints it
 * as a little-endian 64-bit number in upper-case hex, and so does
 * minisign_keynum_hex().
 *
 * A program using this module links $(CRYPTO_LIBS).
 */
#ifndef MAGUS_MINISIGN_H
#define MAGUS_MINISIGN_H

#include <stddef.h>

struct strbuf;

#define MINISIGN_KEYNUM_LEN 8
#define MINISIGN_COMMENT_MAX 1024

struct minisign_pubkey {
	unsigned char keynum[MINISIGN_KEYNUM_LEN];
	unsigned char pk[32];
};

/* Secret: clear it with minisign_seckey_clear() when done. */
struct minisign_seckey {
	unsigned char keynum[MINISIGN_KEYNUM_LEN];
	unsigned char seed[32];
	unsigned char pk[32];
};

struct minisign_sig {
	char alg[3]; /* "ED" or "Ed" */
	unsigned char keynum[MINISIGN_KEYNUM_LEN];
	unsigned char sig[64];
	char *trusted_comment; /* allocated; without the prefix */
	unsigned char global_sig[64];
};

enum minisign_result {
	MINISIGN_OK = 0,
	MINISIGN_MALFORMED = -1,	   /* not a signature or key we read */
	MINISIGN_OTHER_KEY = -2,	   /* signed by another key number */
	MINISIGN_BAD_SIGNATURE = -3,	   /* the message does not verify */
	MINISIGN_BAD_TRUSTED_COMMENT = -4, /* the global signature fails */
};

/* "1A2B..." (16 upper-case hex digits and a NUL), as minisign prints it. */
void minisign_keynum_hex(const unsigned char keynum[MINISIGN_KEYNUM_LEN],
    char out[17]);

/*
 * Parse a public key: the base64 line alone, or the contents of a
 * minisign.pub file.  Returns 0, or MINISIGN_MALFORMED with a reason in
 * `err`.
 */
int minisign_pubkey_parse(const char *text, struct minisign_pubkey *pk,
    struct strbuf *err);
/* The base64 line of a public key. */
void minisign_pubkey_base64(const struct minisign_pubkey *pk,
    struct strbuf *out);
/* A minisign.pub file: the comment line naming the key and the key. */
void minisign_pubkey_write(const struct minisign_pubkey *pk,
    struct strbuf *out);

/*
 * Parse a signature file of `len` bytes.  Returns 0 (release the result
 * with minisign_sig_release), or MINISIGN_MALFORMED with a reason.
 */
int minisign_sig_parse(const char *text, size_t len, struct minisign_sig *sig,
    struct strbuf *err);
void minisign_sig_release(struct minisign_sig *sig);

/*
 * Verify `sig` over `len` bytes of `msg` with `pk`: the key numbers, the
 * signature of the message, then the global signature that covers the
 * trusted comment.  Returns MINISIGN_OK or the first failure, with a
 * reason in `err` (naming both key numbers for MINISIGN_OTHER_KEY).
 */
int minisign_verify(const struct minisign_pubkey *pk,
    const struct minisign_sig *sig, const void *msg, size_t len,
    struct strbuf *err);

/* A new key pair from OpenSSL's RAND_bytes.  Returns 0 or -1. */
int minisign_keygen(struct minisign_seckey *sk, struct strbuf *err);
/*
 * Parse a secret key file (without a password).  Returns 0, or
 * MINISIGN_MALFORMED with a reason (an encrypted key, a checksum that
 * does not match, a public half that does not belong to the seed).
 */
int minisign_seckey_parse(const char *text, struct minisign_seckey *sk,
    struct strbuf *err);
/* The secret key file.  `out` then holds a secret: clear it. */
void minisign_seckey_write(const struct minisign_seckey *sk,
    struct strbuf *out);
void minisign_seckey_pubkey(const struct minisign_seckey *sk,
    struct minisign_pubkey *pk);
void minisign_seckey_clear(struct minisign_seckey *sk);

/*
 * Sign `len` bytes of `msg` (prehashed, "ED") and append the signature
 * file to `out`.  The comments are single lines of at most
 * MINISIGN_COMMENT_MAX bytes.  Returns 0, or -1 with a reason.
 */
int minisign_sign(const struct minisign_seckey *sk, const void *msg,
    size_t len, const char *untrusted_comment, const char *trusted_comment,
    struct strbuf *out, struct strbuf *err);

#endif /* MAGUS_MINISIGN_H */
