/*
 * fs.c - small file-system helpers (see fs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "log.h"
#include "strbuf.h"

/*
 * mkdir -p; with own, the directories it creates are chowned to uid:gid.
 * 0, or -1 with the cause in why.
 */
static int mkdir_p(const char *path, mode_t mode, int own, uid_t uid,
		   gid_t gid, struct strbuf *why)
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
		if (!mkdir(sb.buf, mode)) {
			if (own && chown(sb.buf, uid, gid)) {
				strbuf_addf(why, "chown %s: %s", sb.buf,
					    strerror(errno));
				goto out;
			}
		} else if (errno != EEXIST) {
			strbuf_addf(why, "mkdir %s: %s", sb.buf,
				    strerror(errno));
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

/* mkdir_p(), its failure logged. */
static int mkdir_p_logged(const char *path, mode_t mode, int own, uid_t uid,
			  gid_t gid)
{
	struct strbuf why = STRBUF_INIT;
	int ret = mkdir_p(path, mode, own, uid, gid, &why);

	if (ret)
		error("fs", "%s", why.buf);
	strbuf_release(&why);
	return ret;
}

int fs_mkdir_p(const char *path, mode_t mode)
{
	return mkdir_p_logged(path, mode, 0, 0, 0);
}

int fs_mkdir_p_owned(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	return mkdir_p_logged(path, mode, 1, uid, gid);
}

int fs_mkdir_parent(const char *path, mode_t mode, struct strbuf *why)
{
	struct strbuf sb = STRBUF_INIT;
	char *slash;
	int ret = 0;

	strbuf_addstr(&sb, path);
	slash = strrchr(sb.buf, '/');
	if (slash && slash != sb.buf) {
		*slash = '\0';
		ret = mkdir_p(sb.buf, mode, 0, 0, 0, why);
	}
	strbuf_release(&sb);
	return ret;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int fs_rm_rf(const char *path)
{
	if (access(path, F_OK))
		return 0;
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS))
		return error("fs", "removing %s: %s", path, strerror(errno));
	return 0;
}

int fs_write_atomic(const char *path, const void *data, size_t len,
		    mode_t mode, struct strbuf *why)
{
	struct strbuf tmp = STRBUF_INIT;
	const char *p = data;
	int fd, ret = -1;

	strbuf_addf(&tmp, "%s.tmp", path);
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		strbuf_addf(why, "open %s: %s", tmp.buf, strerror(errno));
		goto out;
	}
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			strbuf_addf(why, "write %s: %s", tmp.buf,
				    strerror(errno));
			close(fd);
			goto out;
		}
		p += w;
		len -= (size_t)w;
	}
	if (fsync(fd)) {
		strbuf_addf(why, "fsync %s: %s", tmp.buf, strerror(errno));
		close(fd);
		goto out;
	}
	if (close(fd)) {
		strbuf_addf(why, "close %s: %s", tmp.buf, strerror(errno));
		goto out;
	}
	if (rename(tmp.buf, path)) {
		strbuf_addf(why, "rename %s to %s: %s", tmp.buf, path,
			    strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (ret)
		unlink(tmp.buf);
	strbuf_release(&tmp);
	return ret;
}
