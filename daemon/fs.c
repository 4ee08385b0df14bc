/*
 * fs.c - small file-system helpers (see fs.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"
#include "log.h"
#include "strbuf.h"

int fs_mkdir_p(const char *path, mode_t mode)
{
	struct strbuf sb = STRBUF_INIT;
	char *p, c;
	int ret = -1;

	strbuf_addstr(&sb, path);
	for (p = sb.buf + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(sb.buf, mode) && errno != EEXIST) {
			error("fs", "%s: %s", sb.buf, strerror(errno));
			goto out;
		}
		*p = c;
		if (!c)
			break;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

int fs_mkdir_parent(const char *path, mode_t mode)
{
	struct strbuf sb = STRBUF_INIT;
	char *slash;
	int ret = 0;

	strbuf_addstr(&sb, path);
	slash = strrchr(sb.buf, '/');
	if (slash && slash != sb.buf) {
		*slash = '\0';
		ret = fs_mkdir_p(sb.buf, mode);
	}
	strbuf_release(&sb);
	return ret;
}
