/*
 * gzip.c - zlib behind gzip.h: inflating under a cap, writing a gzip
 * file, CRC-32.  Pure but for gzip_write_file().
 */
#include <errno.h>
#include <string.h>

#include <zlib.h>

#include "gzip.h"
#include "strbuf.h"

int gzip_inflate(const void *in, size_t len, size_t max, struct strbuf *out,
		 struct strbuf *why, int *too_large)
{
	unsigned char chunk[65536];
	size_t start = out->len, got;
	z_stream z;
	int zr, ret = -1;

	*too_large = 0;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		strbuf_addstr(why, "zlib init failed");
		return -1;
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)len;
	for (;;) {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			strbuf_addf(why, "bad gzip data: %s",
				    z.msg ? z.msg : "inflate failed");
			goto out;
		}
		got = sizeof(chunk) - z.avail_out;
		if (out->len - start + got > max) {
			strbuf_addf(why, "larger than the limit of %zu bytes "
				    "once decompressed", max);
			*too_large = 1;
			goto out;
		}
		strbuf_add(out, chunk, got);
		if (zr == Z_STREAM_END) {
			/* concatenated gzip members */
			if (!z.avail_in)
				break;
			if (inflateReset(&z) != Z_OK) {
				strbuf_addstr(why, "bad gzip data");
				goto out;
			}
			continue;
		}
		if ((zr == Z_BUF_ERROR || z.avail_out) && !z.avail_in) {
			strbuf_addstr(why, "truncated gzip data");
			goto out;
		}
	}
	ret = 0;
out:
	inflateEnd(&z);
	return ret;
}

int gzip_write_file(const char *path, const void *buf, size_t len,
		    struct strbuf *why)
{
	gzFile gz = gzopen(path, "wb9");

	if (!gz) {
		strbuf_addstr(why, strerror(errno));
		return -1;
	}
	if (len && gzwrite(gz, buf, (unsigned int)len) != (int)len) {
		gzclose(gz);
		strbuf_addstr(why, "write failed");
		return -1;
	}
	if (gzclose(gz) != Z_OK) {
		strbuf_addstr(why, "write failed");
		return -1;
	}
	return 0;
}

unsigned long gzip_crc32(unsigned long crc, const void *buf, size_t len)
{
	return crc32(crc, buf, (uInt)len);
}

unsigned long gzip_crc32_combine_gen(size_t len2)
{
	return crc32_combine_gen((z_off_t)len2);
}

unsigned long gzip_crc32_combine_op(unsigned long crc1, unsigned long crc2,
				    unsigned long op)
{
	return crc32_combine_op(crc1, crc2, op);
}
