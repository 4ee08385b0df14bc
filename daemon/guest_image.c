/*
 * guest_image.c - finding the workload binaries and packing them (see
 * guest_image.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "arch.h"
#include "guest_image.h"
#include "initramfs.h"
#include "log.h"

int guest_is_workloads_dir(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/init", dir) >= (int)sizeof(path))
		return 0;
	return access(path, X_OK) == 0;
}

int guest_workloads_dir(const char *machine, char *out, size_t size)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(out, size, "%s/workloads/%s", exe,
				     machine) < (int)size && guest_is_workloads_dir(out))
				return 0;
		}
	}
	if (snprintf(out, size, "%s/workloads/%s", KREGRESS_DATADIR,
		     machine) < (int)size && guest_is_workloads_dir(out))
		return 0;
	return error("guest", "no workload binaries for %s next to the "
		     "program or in %s/workloads (build with make)", machine,
		     KREGRESS_DATADIR);
}

int guest_initramfs(const struct arch *arch, const char *cache_dir,
		    struct guest_image *g)
{
	struct initramfs_list *l;
	char dir[PATH_MAX];
	int ret = -1;

	memset(g, 0, sizeof(*g));
	if (guest_workloads_dir(arch->machine, dir, sizeof(dir)))
		return -1;
	l = xmalloc(sizeof(*l));
	initramfs_list_init(l);
	if (!initramfs_list_add_workloads(l, dir))
		ret = initramfs_cached(l->e, l->n, 1, cache_dir, &g->path,
				       g->id);
	initramfs_list_release(l);
	free(l);
	return ret;
}

void guest_image_release(struct guest_image *g)
{
	free(g->path);
	memset(g, 0, sizeof(*g));
}
