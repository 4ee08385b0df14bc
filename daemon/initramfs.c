/*
 * initramfs.c - newc cpio writer (the format of the kernel's
 * Documentation/driver-api/early-userspace/buffer-format.rst) and its
 * content-addressed cache.  gzip.c writes the gzip variant.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "gzip.h"
#include "initramfs.h"
#include "log.h"
#include "sha256.h"

#define NAME_MAX_LEN	255

static void pad4(struct strbuf *out)
{
	while (out->len % 4)
		strbuf_addch(out, '\0');
}

void initramfs_record(struct strbuf *out, unsigned int ino, const char *name,
		      unsigned int mode, unsigned int rdev_major,
		      unsigned int rdev_minor, const void *data, size_t len)
{
	size_t namesize = strlen(name) + 1;

	strbuf_addf(out, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X"
		    "%08X%08X%08X", ino, mode, 0u, 0u,
		    S_ISDIR(mode) ? 2u : 1u, 0u, (unsigned int)len, 0u, 0u,
		    rdev_major, rdev_minor, (unsigned int)namesize, 0u);
	strbuf_add(out, name, namesize);
	pad4(out);
	if (len)
		strbuf_add(out, data, len);
	pad4(out);
}

void initramfs_trailer(struct strbuf *out, unsigned int ino)
{
	initramfs_record(out, ino, "TRAILER!!!", 0, 0, 0, NULL, 0);
}

/* Checks dst: absolute, no "." or ".." or empty components. */
static int check_dst(const char *dst)
{
	const char *p = dst;

	if (*dst != '/' || strlen(dst) > NAME_MAX_LEN || !dst[1])
		return error("initramfs", "%s: not an absolute file path",
			     dst);
	while (*p == '/') {
		size_t n;

		p++;
		n = strcspn(p, "/");
		if (!n || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return error("initramfs", "%s: bad path component",
				     dst);
		p += n;
	}
	return 0;
}

/* Names already in the archive, one a line, each as "\nname\n". */
static int seen(struct strbuf *names, const char *name, size_t len)
{
	char *key = xmalloc(len + 3);
	int found;

	key[0] = '\n';
	memcpy(key + 1, name, len);
	key[len + 1] = '\n';
	key[len + 2] = '\0';
	found = strstr(names->buf, key) != NULL;
	if (!found) {
		if (!names->len)
			strbuf_addch(names, '\n');
		strbuf_add(names, name, len);
		strbuf_addch(names, '\n');
	}
	free(key);
	return found;
}

int initramfs_build(const struct initramfs_entry *e, size_t n,
		    struct strbuf *out)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "tmp" };
	struct strbuf names = STRBUF_INIT, data = STRBUF_INIT;
	unsigned int ino = 1;
	size_t i, d;
	int ret = -1;

	if (n > INITRAMFS_MAX_ENTRIES) {
		error("initramfs", "%zu files: at most %d", n,
		      INITRAMFS_MAX_ENTRIES);
		goto out;
	}
	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		seen(&names, dirs[d], strlen(dirs[d]));
		initramfs_record(out, ino++, dirs[d], S_IFDIR | 0755, 0, 0,
				 NULL, 0);
	}
	seen(&names, "dev/console", 11);
	initramfs_record(out, ino++, "dev/console", S_IFCHR | 0600, 5, 1,
			 NULL, 0);
	for (i = 0; i < n; i++) {
		const char *name = e[i].dst + 1, *slash;

		if (check_dst(e[i].dst))
			goto out;
		/* parents first */
		for (slash = strchr(name, '/'); slash;
		     slash = strchr(slash + 1, '/')) {
			size_t plen = (size_t)(slash - name);
			char parent[NAME_MAX_LEN + 1];

			if (seen(&names, name, plen))
				continue;
			memcpy(parent, name, plen);
			parent[plen] = '\0';
			initramfs_record(out, ino++, parent, S_IFDIR | 0755,
					 0, 0, NULL, 0);
		}
		if (seen(&names, name, strlen(name))) {
			error("initramfs", "%s: listed twice", e[i].dst);
			goto out;
		}
		strbuf_reset(&data);
		if (strbuf_read_file(&data, e[i].src, INITRAMFS_FILE_MAX))
			goto out;
		if (out->len + data.len > INITRAMFS_TOTAL_MAX) {
			error("initramfs", "archive larger than %u bytes",
			      INITRAMFS_TOTAL_MAX);
			goto out;
		}
		initramfs_record(out, ino++, name,
				 S_IFREG | (e[i].mode & 07777), 0, 0,
				 data.buf, data.len);
	}
	initramfs_trailer(out, 0);
	ret = 0;
out:
	strbuf_release(&names);
	strbuf_release(&data);
	return ret;
}

static int write_all(const char *path, const struct strbuf *a, int gzip)
{
	struct strbuf tmp = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&tmp, "%s.tmp%d", path, (int)getpid());
	if (gzip) {
		struct strbuf why = STRBUF_INIT;

		if (gzip_write_file(tmp.buf, a->buf, a->len, &why)) {
			error("initramfs", "%s: %s", tmp.buf, why.buf);
			strbuf_release(&why);
			goto out;
		}
	} else {
		FILE *f = fopen(tmp.buf, "wb");

		if (!f) {
			error("initramfs", "%s: %s", tmp.buf, strerror(errno));
			goto out;
		}
		if (fwrite(a->buf, 1, a->len, f) != a->len) {
			fclose(f);
			error("initramfs", "%s: write failed", tmp.buf);
			goto out;
		}
		if (fclose(f)) {
			error("initramfs", "%s: %s", tmp.buf, strerror(errno));
			goto out;
		}
	}
	if (rename(tmp.buf, path) < 0) {
		error("initramfs", "%s: %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (ret)
		unlink(tmp.buf);
	strbuf_release(&tmp);
	return ret;
}

int initramfs_write(const struct initramfs_entry *e, size_t n, int gzip,
		    const char *path)
{
	struct strbuf a = STRBUF_INIT;
	int ret = -1;

	if (!initramfs_build(e, n, &a))
		ret = write_all(path, &a, gzip);
	strbuf_release(&a);
	return ret;
}

int initramfs_cached(const struct initramfs_entry *e, size_t n, int gzip,
		     const char *cache_dir, char **path,
		     char hash[SHA256_HEX_LEN + 1])
{
	struct strbuf a = STRBUF_INIT, p = STRBUF_INIT;
	char hex[SHA256_HEX_LEN + 1];
	int ret = -1;

	*path = NULL;
	/* hashing the archive itself covers names, modes and contents */
	if (initramfs_build(e, n, &a))
		goto out;
	sha256_hex(a.buf, a.len, hex);
	strbuf_addf(&p, "%s/initramfs", cache_dir);
	if (mkdir(cache_dir, 0755) < 0 && errno != EEXIST) {
		error("initramfs", "%s: %s", cache_dir, strerror(errno));
		goto out;
	}
	if (mkdir(p.buf, 0755) < 0 && errno != EEXIST) {
		error("initramfs", "%s: %s", p.buf, strerror(errno));
		goto out;
	}
	strbuf_addf(&p, "/%s.cpio%s", hex, gzip ? ".gz" : "");
	if (access(p.buf, F_OK) && write_all(p.buf, &a, gzip))
		goto out;
	*path = strbuf_detach(&p, NULL);
	if (hash)
		memcpy(hash, hex, sizeof(hex));
	ret = 0;
out:
	strbuf_release(&a);
	strbuf_release(&p);
	return ret;
}

void initramfs_list_init(struct initramfs_list *l)
{
	memset(l, 0, sizeof(*l));
}

void initramfs_list_release(struct initramfs_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free((char *)l->e[i].src);
		free((char *)l->e[i].dst);
	}
	l->n = 0;
}

int initramfs_list_add(struct initramfs_list *l, const char *src,
		       const char *dst, unsigned int mode)
{
	struct initramfs_entry *e;

	if (l->n == INITRAMFS_MAX_ENTRIES)
		return error("initramfs", "more than %d files",
			     INITRAMFS_MAX_ENTRIES);
	e = &l->e[l->n];
	e->src = xstrdup(src);
	e->dst = xstrdup(dst);
	e->mode = mode;
	l->n++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int initramfs_list_add_workloads(struct initramfs_list *l, const char *dir)
{
	struct dirent *de;
	char *names[INITRAMFS_MAX_ENTRIES];
	size_t n = 0, i;
	DIR *d = opendir(dir);
	int ret = -1;

	if (!d)
		return error("initramfs", "%s: cannot open", dir);
	while ((de = readdir(d)) != NULL) {
		struct strbuf p = STRBUF_INIT;
		struct stat st;
		int exe;

		if (de->d_name[0] == '.')
			continue;
		strbuf_addf(&p, "%s/%s", dir, de->d_name);
		exe = !stat(p.buf, &st) && S_ISREG(st.st_mode) &&
		      (st.st_mode & 0111);
		strbuf_release(&p);
		if (!exe)
			continue;
		if (n == INITRAMFS_MAX_ENTRIES) {
			error("initramfs", "%s: too many files", dir);
			goto out;
		}
		names[n++] = xstrdup(de->d_name);
	}
	qsort(names, n, sizeof(names[0]), cmp_name);
	for (i = 0; i < n; i++) {
		struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT;
		int r;

		strbuf_addf(&src, "%s/%s", dir, names[i]);
		if (!strcmp(names[i], "init"))
			strbuf_addstr(&dst, "/init");
		else
			strbuf_addf(&dst, "/bin/%s", names[i]);
		r = initramfs_list_add(l, src.buf, dst.buf, 0755);
		strbuf_release(&src);
		strbuf_release(&dst);
		if (r)
			goto out;
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	closedir(d);
	return ret;
}
