/*
 * sha256.h - SHA-256 for content-addressed caches, on GLib's GChecksum.
 *
 * The build cache keys configurations, and the initramfs cache keys
 * archives, by the SHA-256 of their inputs.  No I/O except
 * sha256_update_file().
 */
#ifndef KREGRESS_SHA256_H
#define KREGRESS_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN	64

struct sha256 {
	void *checksum;		/* GChecksum; NULL after final or release */
};

/*
 * Starts a digest (it allocates): end it with sha256_final_hex(), or
 * with sha256_release() on a path that gives up.
 */
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Writes 64 lower-case hex digits and a NUL into hex[65]; releases s. */
void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1]);
/* Drops an unfinished digest; accepts a finished one. */
void sha256_release(struct sha256 *s);

/* One-shot helper: hex digest of a buffer. */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

/* Adds the whole file at path to s; returns 0 or -1 (logged). */
int sha256_update_file(struct sha256 *s, const char *path);

#endif
