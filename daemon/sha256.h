/*
 * sha256.h - SHA-256 (FIPS 180-4) for content-addressed caches.
 *
 * The build cache keys configurations, and the initramfs cache keys
 * archives, by the SHA-256 of their inputs.  Pure computation, no I/O
 * except sha256_file().
 */
#ifndef KREGRESS_SHA256_H
#define KREGRESS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX_LEN	64

struct sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	unsigned char buf[64];
	size_t used;		/* bytes pending in buf */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Writes 64 lower-case hex digits and a NUL into hex[65]. */
void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1]);

/* One-shot helper: hex digest of a buffer. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

/* Adds the whole file at path to s; returns 0 or -1 (logged). */
int sha256_update_file(struct sha256 *s, const char *path);

#endif
