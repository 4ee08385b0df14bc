/*
 * strbuf.c - growable byte buffers, after git's strbuf.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "log.h"
#include "strbuf.h"

const char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = (char *)strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *buf;

	strbuf_grow(sb, 0);
	buf = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb);
	return buf;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;
	char *buf;

	if (want < sb->len)
		die("strbuf", "size overflow");
	if (sb->alloc >= want)
		return;
	if (want < sb->alloc * 2)
		want = sb->alloc * 2;
	if (want < 64)
		want = 64;
	buf = xrealloc(sb->alloc ? sb->buf : NULL, want);
	if (!sb->alloc)
		buf[0] = '\0';
	sb->buf = buf;
	sb->alloc = want;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;

	strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0,
		      fmt, cp);
	va_end(cp);
	if (n < 0)
		die("strbuf", "bad format string");
	if (!sb->alloc || (size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

int strbuf_read_file_why(struct strbuf *sb, const char *path,
			 size_t max_bytes, struct strbuf *why)
{
	int fd = 0, ret = -1;
	char chunk[65536];

	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			strbuf_addf(why, "%s: %s", path, strerror(errno));
			return -1;
		}
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			strbuf_addf(why, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		if (sb->len + (size_t)n > max_bytes) {
			strbuf_addf(why, "%s: larger than the limit of %zu "
				    "bytes", path, max_bytes);
			goto out;
		}
		strbuf_add(sb, chunk, (size_t)n);
	}
	ret = 0;
out:
	if (fd > 0)
		close(fd);
	return ret;
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t max_bytes)
{
	struct strbuf why = STRBUF_INIT;
	int ret = strbuf_read_file_why(sb, path, max_bytes, &why);

	if (ret)
		error("file", "%s", why.buf);
	strbuf_release(&why);
	return ret;
}
