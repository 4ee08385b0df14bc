/*
 * gzip.h - zlib, for the three things the host asks of it: a gzip body
 * inflated under a size cap (fetch.c, lore's t.mbox.gz), a gzip file
 * written (initramfs.c) and CRC-32 arithmetic (console.c rejoining a
 * frame split by a printk).  The only file that includes <zlib.h>.
 */
#ifndef KREGRESS_GZIP_H
#define KREGRESS_GZIP_H

#include <stddef.h>

struct strbuf;

/*
 * Inflates the gzip data in[0..len) (concatenated members too) into out.
 * 0 on success; -1 with the reason appended to why ("bad gzip data: ...",
 * "truncated gzip data") and *too_large set when the result would exceed
 * max bytes.  Never logs.
 */
int gzip_inflate(const void *in, size_t len, size_t max, struct strbuf *out,
		 struct strbuf *why, int *too_large);

/*
 * Writes buf[0..len) to path as a gzip file at level 9.  0 on success;
 * -1 with the reason appended to why (strerror() or "write failed").
 * Never logs.
 */
int gzip_write_file(const char *path, const void *buf, size_t len,
		    struct strbuf *why);

/* The CRC-32 of buf[0..len) continuing crc (0 to start): zlib's crc32(). */
unsigned long gzip_crc32(unsigned long crc, const void *buf, size_t len);

/*
 * CRC-32 of a concatenation from its parts' CRCs: op is
 * gzip_crc32_combine_gen(len2) for a second part of len2 bytes, reusable;
 * gzip_crc32_combine_op(crc1, crc2, op) is then the CRC of both parts.
 */
unsigned long gzip_crc32_combine_gen(size_t len2);
unsigned long gzip_crc32_combine_op(unsigned long crc1, unsigned long crc2,
				    unsigned long op);

#endif
