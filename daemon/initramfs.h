/*
 * initramfs.h - the guest's initramfs: a newc cpio archive, optionally
 * gzipped, built from a list of (source file, destination path, mode).
 *
 * The archive is reproducible: entries in the given order, parent
 * directories created before their files, uid/gid 0, mtime 0, inode
 * numbers in order.  /dev (with a console node), /proc, /sys and /tmp are
 * always there, so /init has a console before it mounts anything.  Cached
 * by the SHA-256 of its contents: the same files give the same archive path
 * and packing it again costs one hash of the inputs.
 */
#ifndef KREGRESS_INITRAMFS_H
#define KREGRESS_INITRAMFS_H

#include <stddef.h>

#include "sha256.h"
#include "strbuf.h"

#define INITRAMFS_MAX_ENTRIES	64
#define INITRAMFS_FILE_MAX	(64u << 20)	/* per file */
#define INITRAMFS_TOTAL_MAX	(256u << 20)	/* whole archive */

struct initramfs_entry {
	const char *src;	/* file on the host */
	const char *dst;	/* absolute path in the guest, e.g. "/bin/x" */
	unsigned int mode;	/* permission bits, e.g. 0755 */
};

/*
 * Appends one newc record to out (pure).  mode includes the file type bits
 * (S_IFREG | 0755).  For a device node, rdev_major/minor are its numbers.
 */
void initramfs_record(struct strbuf *out, unsigned int ino, const char *name,
		      unsigned int mode, unsigned int rdev_major,
		      unsigned int rdev_minor, const void *data, size_t len);

/* Appends the TRAILER!!! record (pure). */
void initramfs_trailer(struct strbuf *out, unsigned int ino);

/*
 * Builds the uncompressed archive of n entries into out.  Returns 0, or -1
 * (logged) on a bad destination path (relative, "..", too long), a
 * duplicate, an unreadable or oversized file.
 */
int initramfs_build(const struct initramfs_entry *e, size_t n,
		    struct strbuf *out);

/* Writes the archive of n entries to path, gzipped if gzip. */
int initramfs_write(const struct initramfs_entry *e, size_t n, int gzip,
		    const char *path);

/*
 * The cached archive for these entries: cache_dir/initramfs/<sha256>.cpio
 * (".cpio.gz" if gzip), written if absent.  *path is malloc'd; hash (may
 * be NULL) gets the <sha256>, the uncompressed archive's.
 */
int initramfs_cached(const struct initramfs_entry *e, size_t n, int gzip,
		     const char *cache_dir, char **path,
		     char hash[SHA256_HEX_LEN + 1]);

/* An entry list that owns copies of its strings. */
struct initramfs_list {
	struct initramfs_entry e[INITRAMFS_MAX_ENTRIES];
	size_t n;
};

void initramfs_list_init(struct initramfs_list *l);
void initramfs_list_release(struct initramfs_list *l);

/* Appends a copy of (src, dst, mode); -1 (logged) when the list is full. */
int initramfs_list_add(struct initramfs_list *l, const char *src,
		       const char *dst, unsigned int mode);

/*
 * Appends the guest side of the workloads module's per-arch output
 * directory: dir/init becomes /init, every other executable regular file
 * in dir becomes /bin/NAME (mode 0755), in name order so that the archive
 * does not depend on readdir order.  -1 (logged) on an unreadable
 * directory or too many files.
 */
int initramfs_list_add_workloads(struct initramfs_list *l, const char *dir);

#endif
