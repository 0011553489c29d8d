/*
 * minisign's formats over libcrypto's Ed25519.  Each step is named the way
 * minisign names it, so the two can be read side by side.
 */
#include "compat.h"

#include <stdbool.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "blake2b.h"
#include "minisign.h"
#include "strbuf.h"
#include "xalloc.h"

#define UNTRUSTED_PREFIX "untrusted comment: "
#define TRUSTED_PREFIX "trusted comment: "

#define PUBKEY_BYTES (2 + MINISIGN_KEYNUM_LEN + 32)
#define SIG_BYTES (2 + MINISIGN_KEYNUM_LEN + 64)
/* sig_alg, kdf_alg, chk_alg, salt, opslimit, memlimit, keynum_sk */
#define KEYNUM_SK_BYTES (MINISIGN_KEYNUM_LEN + 64 + 32)
#define SECKEY_BYTES (2 + 2 + 2 + 32 + 8 + 8 + KEYNUM_SK_BYTES)

/* ---- base64 ---------------------------------------------------------- */

static void
b64_encode(const unsigned char *in, size_t n, struct strbuf *out)
{
	size_t need = 4 * ((n + 2) / 3);
	int len;

	strbuf_grow(out, need + 1);
	len = EVP_EncodeBlock((unsigned char *)out->buf + out->len, in, (int)n);
	strbuf_setlen(out, out->len + (size_t)len);
}

/*
 * Decode exactly `want` bytes from the `n` characters at `in`; anything
 * but canonical base64 of that length is refused.
 */
static int
b64_decode(const char *in, size_t n, unsigned char *out, size_t want)
{
	unsigned char *buf;
	size_t i, pad = 0;
	int got;

	if (n == 0 || n % 4 || n != 4 * ((want + 2) / 3))
		return -1;
	for (i = 0; i < n; i++) {
		char c = in[i];

		if (c == '=' && i >= n - 2) {
			pad++;
			continue;
		}
		if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '+' || c == '/'))
			return -1;
	}
	if (pad != (3 - want % 3) % 3)
		return -1;
	buf = xmalloc(n / 4 * 3 + 1);
	got = EVP_DecodeBlock(buf, (const unsigned char *)in, (int)n);
	if (got < 0 || (size_t)got - pad != want) {
		OPENSSL_cleanse(buf, n / 4 * 3);
		free(buf);
		return -1;
	}
	memcpy(out, buf, want);
	OPENSSL_cleanse(buf, n / 4 * 3);
	free(buf);
	return 0;
}

/* ---- lines ----------------------------------------------------------- */

struct lines {
	const char *p, *end;
};

/* The next line (without its "\n" or "\r\n"); false at the end. */
static bool
next_line(struct lines *l, const char **start, size_t *len)
{
	const char *nl;
	size_t n;

	if (l->p >= l->end)
		return false;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	n = nl ? (size_t)(nl - l->p) : (size_t)(l->end - l->p);
	*start = l->p;
	l->p += n + (nl ? 1 : 0);
	if (n && (*start)[n - 1] == '\r')
		n--;
	*len = n;
	return true;
}

static bool
line_starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

static bool
comment_ok(const char *s)
{
	return strlen(s) <= MINISIGN_COMMENT_MAX && !strpbrk(s, "\r\n");
}

/* ---- keys ------------------------------------------------------------ */

void
minisign_keynum_hex(const unsigned char keynum[MINISIGN_KEYNUM_LEN],
    char out[17])
{
	static const char digits[] = "0123456789ABCDEF";
	int i;

	/* minisign prints the key number as a little-endian integer. */
	for (i = 0; i < MINISIGN_KEYNUM_LEN; i++) {
		unsigned char b = keynum[MINISIGN_KEYNUM_LEN - 1 - i];

		out[2 * i] = digits[b >> 4];
		out[2 * i + 1] = digits[b & 15];
	}
	out[16] = '\0';
}

int
minisign_pubkey_parse(const char *text, struct minisign_pubkey *pk,
    struct strbuf *err)
{
	struct lines l = { text, text + strlen(text) };
	unsigned char raw[PUBKEY_BYTES];
	const char *s = NULL;
	size_t n = 0;

	/* Skip a comment line; the key is the first other non-empty line. */
	while (next_line(&l, &s, &n))
		if (n && !line_starts(s, n, UNTRUSTED_PREFIX))
			break;
		else
			s = NULL;
	if (!s || b64_decode(s, n, raw, sizeof(raw)) < 0) {
		strbuf_addstr(err, "not a minisign public key (base64 of 42 "
		    "bytes)");
		return MINISIGN_MALFORMED;
	}
	if (memcmp(raw, "Ed", 2)) {
		strbuf_addstr(err, "not an Ed25519 minisign public key");
		return MINISIGN_MALFORMED;
	}
	memcpy(pk->keynum, raw + 2, MINISIGN_KEYNUM_LEN);
	memcpy(pk->pk, raw + 2 + MINISIGN_KEYNUM_LEN, 32);
	return MINISIGN_OK;
}

void
minisign_pubkey_base64(const struct minisign_pubkey *pk, struct strbuf *out)
{
	unsigned char raw[PUBKEY_BYTES];

	memcpy(raw, "Ed", 2);
	memcpy(raw + 2, pk->keynum, MINISIGN_KEYNUM_LEN);
	memcpy(raw + 2 + MINISIGN_KEYNUM_LEN, pk->pk, 32);
	b64_encode(raw, sizeof(raw), out);
}

void
minisign_pubkey_write(const struct minisign_pubkey *pk, struct strbuf *out)
{
	char id[17];

	minisign_keynum_hex(pk->keynum, id);
	strbuf_addf(out, UNTRUSTED_PREFIX "minisign public key %s\n", id);
	minisign_pubkey_base64(pk, out);
	strbuf_addch(out, '\n');
}

/* The checksum minisign keeps beside a secret key: BLAKE2b-256 of
 * sig_alg | keynum | sk. */
static void
seckey_chk(const struct minisign_seckey *sk, unsigned char chk[32])
{
	unsigned char in[2 + MINISIGN_KEYNUM_LEN + 64];

	memcpy(in, "Ed", 2);
	memcpy(in + 2, sk->keynum, MINISIGN_KEYNUM_LEN);
	memcpy(in + 2 + MINISIGN_KEYNUM_LEN, sk->seed, 32);
	memcpy(in + 2 + MINISIGN_KEYNUM_LEN + 32, sk->pk, 32);
	blake2b(chk, 32, in, sizeof(in));
	OPENSSL_cleanse(in, sizeof(in));
}

static EVP_PKEY *
seckey_evp(const struct minisign_seckey *sk)
{
	return EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, sk->seed,
	    sizeof(sk->seed));
}

/* The public half of a seed, as libcrypto derives it. */
static int
seed_public(const struct minisign_seckey *sk, unsigned char pk[32])
{
	EVP_PKEY *k = seckey_evp(sk);
	size_t n = 32;
	int r = -1;

	if (k && EVP_PKEY_get_raw_public_key(k, pk, &n) == 1 && n == 32)
		r = 0;
	EVP_PKEY_free(k);
	return r;
}

int
minisign_keygen(struct minisign_seckey *sk, struct strbuf *err)
{
	if (RAND_bytes(sk->seed, sizeof(sk->seed)) != 1 ||
	    RAND_bytes(sk->keynum, sizeof(sk->keynum)) != 1 ||
	    seed_public(sk, sk->pk) < 0) {
		minisign_seckey_clear(sk);
		strbuf_addstr(err, "libcrypto cannot make an Ed25519 key");
		return -1;
	}
	return 0;
}

int
minisign_seckey_parse(const char *text, struct minisign_seckey *sk,
    struct strbuf *err)
{
	struct lines l = { text, text + strlen(text) };
	static const unsigned char zero[32];
	unsigned char raw[SECKEY_BYTES], chk[32], pk[32];
	const unsigned char *knsk = raw + SECKEY_BYTES - KEYNUM_SK_BYTES;
	const char *s = NULL;
	size_t n = 0;
	int r = MINISIGN_MALFORMED;

	while (next_line(&l, &s, &n))
		if (n && !line_starts(s, n, UNTRUSTED_PREFIX))
			break;
		else
			s = NULL;
	if (!s || b64_decode(s, n, raw, sizeof(raw)) < 0) {
		strbuf_addstr(err, "not a minisign secret key");
		return MINISIGN_MALFORMED;
	}
	if (memcmp(raw, "Ed", 2) || memcmp(raw + 4, "B2", 2)) {
		strbuf_addstr(err, "not an Ed25519 minisign secret key");
		goto out;
	}
	if (memcmp(raw + 2, "\0\0", 2)) {
		strbuf_addstr(err, "the secret key is protected by a password; "
		    "use a key made with 'minisign -G -W' or "
		    "'magus-release keygen'");
		goto out;
	}
	memcpy(sk->keynum, knsk, MINISIGN_KEYNUM_LEN);
	memcpy(sk->seed, knsk + MINISIGN_KEYNUM_LEN, 32);
	memcpy(sk->pk, knsk + MINISIGN_KEYNUM_LEN + 32, 32);
	seckey_chk(sk, chk);
	/* `minisign -G -W` leaves the checksum of a key without a password
	 * zero; the seed's public half is checked below either way. */
	if (memcmp(knsk + MINISIGN_KEYNUM_LEN + 64, zero, 32) &&
	    CRYPTO_memcmp(chk, knsk + MINISIGN_KEYNUM_LEN + 64, 32)) {
		strbuf_addstr(err, "the secret key's checksum does not match");
		goto out;
	}
	if (seed_public(sk, pk) < 0 || CRYPTO_memcmp(pk, sk->pk, 32)) {
		strbuf_addstr(err, "the secret key's public half does not "
		    "belong to it");
		goto out;
	}
	r = MINISIGN_OK;
out:
	if (r)
		minisign_seckey_clear(sk);
	OPENSSL_cleanse(raw, sizeof(raw));
	return r;
}

void
minisign_seckey_write(const struct minisign_seckey *sk, struct strbuf *out)
{
	unsigned char raw[SECKEY_BYTES];
	unsigned char *knsk = raw + SECKEY_BYTES - KEYNUM_SK_BYTES;

	/* No key derivation function: the salt and limits are unused. */
	memset(raw, 0, sizeof(raw));
	memcpy(raw, "Ed", 2);
	memcpy(raw + 4, "B2", 2);
	memcpy(knsk, sk->keynum, MINISIGN_KEYNUM_LEN);
	memcpy(knsk + MINISIGN_KEYNUM_LEN, sk->seed, 32);
	memcpy(knsk + MINISIGN_KEYNUM_LEN + 32, sk->pk, 32);
	seckey_chk(sk, knsk + MINISIGN_KEYNUM_LEN + 64);
	strbuf_addstr(out, UNTRUSTED_PREFIX "minisign secret key (no "
	    "password)\n");
	b64_encode(raw, sizeof(raw), out);
	strbuf_addch(out, '\n');
	OPENSSL_cleanse(raw, sizeof(raw));
}

void
minisign_seckey_pubkey(const struct minisign_seckey *sk,
    struct minisign_pubkey *pk)
{
	memcpy(pk->keynum, sk->keynum, MINISIGN_KEYNUM_LEN);
	memcpy(pk->pk, sk->pk, 32);
}

void
minisign_seckey_clear(struct minisign_seckey *sk)
{
	OPENSSL_cleanse(sk, sizeof(*sk));
}

/* ---- signatures ------------------------------------------------------ */

int
minisign_sig_parse(const char *text, size_t len, struct minisign_sig *sig,
    struct strbuf *err)
{
	struct lines l = { text, text + len };
	unsigned char raw[SIG_BYTES];
	const char *s[4];
	size_t n[4];
	int i;

	memset(sig, 0, sizeof(*sig));
	if (memchr(text, '\0', len)) {
		strbuf_addstr(err, "the signature file holds a NUL byte");
		return MINISIGN_MALFORMED;
	}
	for (i = 0; i < 4; i++) {
		if (!next_line(&l, &s[i], &n[i])) {
			strbuf_addf(err, "the signature file ends after %d "
			    "line%s (4 expected)", i, i == 1 ? "" : "s");
			return MINISIGN_MALFORMED;
		}
	}
	if (!line_starts(s[0], n[0], UNTRUSTED_PREFIX)) {
		strbuf_addstr(err, "line 1 of the signature file is not an "
		    "untrusted comment");
		return MINISIGN_MALFORMED;
	}
	if (b64_decode(s[1], n[1], raw, sizeof(raw)) < 0) {
		strbuf_addstr(err, "line 2 of the signature file is not a "
		    "signature (base64 of 74 bytes)");
		return MINISIGN_MALFORMED;
	}
	if (memcmp(raw, "ED", 2) && memcmp(raw, "Ed", 2)) {
		strbuf_addstr(err, "the signature is not Ed25519 (ED or Ed)");
		return MINISIGN_MALFORMED;
	}
	if (!line_starts(s[2], n[2], TRUSTED_PREFIX) ||
	    n[2] - strlen(TRUSTED_PREFIX) > MINISIGN_COMMENT_MAX) {
		strbuf_addstr(err, "line 3 of the signature file is not a "
		    "trusted comment");
		return MINISIGN_MALFORMED;
	}
	if (b64_decode(s[3], n[3], sig->global_sig, 64) < 0) {
		strbuf_addstr(err, "line 4 of the signature file is not a "
		    "global signature (base64 of 64 bytes)");
		return MINISIGN_MALFORMED;
	}
	while (l.p < l.end && (*l.p == '\n' || *l.p == '\r'))
		l.p++;
	if (l.p != l.end) {
		strbuf_addstr(err, "the signature file goes on after its four "
		    "lines");
		return MINISIGN_MALFORMED;
	}
	memcpy(sig->alg, raw, 2);
	sig->alg[2] = '\0';
	memcpy(sig->keynum, raw + 2, MINISIGN_KEYNUM_LEN);
	memcpy(sig->sig, raw + 2 + MINISIGN_KEYNUM_LEN, 64);
	sig->trusted_comment = xstrndup(s[2] + strlen(TRUSTED_PREFIX),
	    n[2] - strlen(TRUSTED_PREFIX));
	return MINISIGN_OK;
}

void
minisign_sig_release(struct minisign_sig *sig)
{
	free(sig->trusted_comment);
	sig->trusted_comment = NULL;
}

static bool
ed25519_verify(const unsigned char pk[32], const unsigned char sig[64],
    const void *msg, size_t len)
{
	EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pk,
	    32);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	bool good = false;

	if (k && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k) == 1)
		good = EVP_DigestVerify(ctx, sig, 64, msg, len) == 1;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(k);
	return good;
}

static int
ed25519_sign(const struct minisign_seckey *sk, unsigned char sig[64],
    const void *msg, size_t len)
{
	EVP_PKEY *k = seckey_evp(sk);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t n = 64;
	int r = -1;

	if (k && ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k) == 1 &&
	    EVP_DigestSign(ctx, sig, &n, msg, len) == 1 && n == 64)
		r = 0;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(k);
	return r;
}

static int
prehash(const void *msg, size_t len, unsigned char out[64])
{
	unsigned int n = 0;

	return EVP_Digest(msg, len, out, &n, EVP_blake2b512(), NULL) == 1 &&
	    n == 64 ? 0 : -1;
}

int
minisign_verify(const struct minisign_pubkey *pk,
    const struct minisign_sig *sig, const void *msg, size_t len,
    struct strbuf *err)
{
	unsigned char hash[64], *global;
	size_t tlen = strlen(sig->trusted_comment);
	bool good;
	char want[17], got[17];

	if (memcmp(pk->keynum, sig->keynum, MINISIGN_KEYNUM_LEN)) {
		minisign_keynum_hex(pk->keynum, want);
		minisign_keynum_hex(sig->keynum, got);
		strbuf_addf(err, "signed by key %s, not by the trusted key %s",
		    got, want);
		return MINISIGN_OTHER_KEY;
	}
	if (!strcmp(sig->alg, "ED")) {
		if (prehash(msg, len, hash) < 0) {
			strbuf_addstr(err, "libcrypto cannot compute "
			    "BLAKE2b-512");
			return MINISIGN_BAD_SIGNATURE;
		}
		good = ed25519_verify(pk->pk, sig->sig, hash, sizeof(hash));
	} else {
		good = ed25519_verify(pk->pk, sig->sig, msg, len);
	}
	if (!good) {
		strbuf_addstr(err, "the signature does not match the signed "
		    "data");
		return MINISIGN_BAD_SIGNATURE;
	}
	global = xmalloc(64 + tlen);
	memcpy(global, sig->sig, 64);
	memcpy(global + 64, sig->trusted_comment, tlen);
	good = ed25519_verify(pk->pk, sig->global_sig, global, 64 + tlen);
	free(global);
	if (!good) {
		strbuf_addstr(err, "the trusted comment does not match its "
		    "signature");
		return MINISIGN_BAD_TRUSTED_COMMENT;
	}
	return MINISIGN_OK;
}

int
minisign_sign(const struct minisign_seckey *sk, const void *msg, size_t len,
    const char *untrusted_comment, const char *trusted_comment,
    struct strbuf *out, struct strbuf *err)
{
	unsigned char raw[SIG_BYTES], hash[64], global_sig[64], *global;
	size_t tlen = strlen(trusted_comment);
	int r;

	if (!comment_ok(untrusted_comment) || !comment_ok(trusted_comment)) {
		strbuf_addf(err, "a comment must be one line of at most %d "
		    "bytes", MINISIGN_COMMENT_MAX);
		return -1;
	}
	memcpy(raw, "ED", 2);
	memcpy(raw + 2, sk->keynum, MINISIGN_KEYNUM_LEN);
	if (prehash(msg, len, hash) < 0 ||
	    ed25519_sign(sk, raw + 2 + MINISIGN_KEYNUM_LEN, hash,
	    sizeof(hash)) < 0) {
		strbuf_addstr(err, "libcrypto cannot sign");
		return -1;
	}
	global = xmalloc(64 + tlen);
	memcpy(global, raw + 2 + MINISIGN_KEYNUM_LEN, 64);
	memcpy(global + 64, trusted_comment, tlen);
	r = ed25519_sign(sk, global_sig, global, 64 + tlen);
	free(global);
	if (r < 0) {
		strbuf_addstr(err, "libcrypto cannot sign");
		return -1;
	}
	strbuf_addf(out, UNTRUSTED_PREFIX "%s\n", untrusted_comment);
	b64_encode(raw, sizeof(raw), out);
	strbuf_addf(out, "\n" TRUSTED_PREFIX "%s\n", trusted_comment);
	b64_encode(global_sig, sizeof(global_sig), out);
	strbuf_addch(out, '\n');
	return 0;
}
