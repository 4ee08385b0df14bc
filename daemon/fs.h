/*
 * fs.h - small file-system helpers shared by the daemon and the CLI.
 */
#ifndef KREGRESS_FS_H
#define KREGRESS_FS_H

#include <sys/types.h>

/*
 * mkdir -p: creates path and its missing parents with mode.  Returns 0
 * when the directory exists afterwards, -1 (logged) otherwise.
 */
int fs_mkdir_p(const char *path, mode_t mode);

/* fs_mkdir_p() of the directory holding path (its dirname). */
int fs_mkdir_parent(const char *path, mode_t mode);

/*
 * Writes len bytes of data to path whole or not at all: to "path.tmp",
 * fsync, then renamed over path.  0, or -1 (logged) with no file left
 * behind but an older path.
 */
int fs_write_atomic(const char *path, const void *data, size_t len,
		    mode_t mode);

#endif
