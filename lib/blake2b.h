/*
 * blake2b.h: unkeyed BLAKE2b (RFC 7693) with any output length.
 *
 * OpenSSL 3.0 offers BLAKE2b only with a 64-byte output, and minisign's
 * secret key file carries a BLAKE2b-256 checksum, which is not a
 * truncation of BLAKE2b-512 (the length is part of the parameter block).
 * This is the one place magus needs that; signatures use libcrypto.
 */
#ifndef MAGUS_BLAKE2B_H
#define MAGUS_BLAKE2B_H

#include <stddef.h>

/* Hash `len` bytes of `in` into `outlen` (1..64) bytes of `out`. */
void blake2b(void *out, size_t outlen, const void *in, size_t len);

#endif /* MAGUS_BLAKE2B_H */
