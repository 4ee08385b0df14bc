/*
 * sha256.c - SHA-256 digests through GLib's GChecksum (GLib is linked
 * already, through GMime), behind the small interface the cache keys
 * use, so that no caller sees GLib.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "log.h"
#include "sha256.h"

void sha256_init(struct sha256 *s)
{
	s->checksum = g_checksum_new(G_CHECKSUM_SHA256);
	if (!s->checksum)
		die("sha256", "GLib has no SHA-256");
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	/* GLib takes a gssize: feed huge buffers in pieces */
	while (len) {
		size_t n = len < (1u << 30) ? len : (1u << 30);

		g_checksum_update(s->checksum, p, (gssize)n);
		p += n;
		len -= n;
	}
}

void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1])
{
	memcpy(hex, g_checksum_get_string(s->checksum), SHA256_HEX_LEN);
	hex[SHA256_HEX_LEN] = '\0';
	sha256_release(s);
}

void sha256_release(struct sha256 *s)
{
	if (s->checksum)
		g_checksum_free(s->checksum);
	s->checksum = NULL;
}

void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final_hex(&s, hex);
}

int sha256_update_file(struct sha256 *s, const char *path)
{
	unsigned char buf[65536];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("sha256", "%s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return error("sha256", "%s: %s", path, strerror(errno));
		}
		sha256_update(s, buf, (size_t)n);
	}
	close(fd);
	return 0;
}
