/*
 * fs.h - small file-system helpers shared by the daemon and the CLI.
 *
 * Those with a why argument log nothing: on failure they append the
 * cause to why, naming the call and the path it failed on ("mkdir
 * /srv/outbox: Not a directory"), for a reason the caller stores or logs
 * with its own context.  The others log it.
 */
#ifndef KREGRESS_FS_H
#define KREGRESS_FS_H

#include <sys/types.h>

struct strbuf;

/*
 * mkdir -p: creates path and its missing parents with mode.  Returns 0
 * when the directory exists afterwards, -1 (logged) otherwise.
 */
int fs_mkdir_p(const char *path, mode_t mode);

/*
 * fs_mkdir_p(), and each directory it creates is chowned to uid:gid (the
 * build sandbox's user); those that exist already are left as they are.
 */
int fs_mkdir_p_owned(const char *path, mode_t mode, uid_t uid, gid_t gid);

/*
 * mkdir -p of the directory holding path (its dirname).  0, or -1 with
 * the cause in why.
 */
int fs_mkdir_parent(const char *path, mode_t mode, struct strbuf *why);

/*
 * rm -rf: removes path and, if it is a directory, all it holds, without
 * following symbolic links.  0 when path is gone (or never was), -1
 * (logged) otherwise.
 */
int fs_rm_rf(const char *path);

/*
 * Writes len bytes of data to path whole or not at all: to "path.tmp",
 * fsync, then renamed over path.  0, or -1 with the cause in why and no
 * file left behind but an older path.
 */
int fs_write_atomic(const char *path, const void *data, size_t len,
		    mode_t mode, struct strbuf *why);

#endif
