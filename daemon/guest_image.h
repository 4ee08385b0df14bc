/*
 * guest_image.h - the guest side of a boot: where the static workload
 * binaries and /init of a guest arch are, and the initramfs that holds
 * them.
 *
 * The binaries are looked for next to the running program first
 * (<dir of the program>/workloads/<machine>, which is build/workloads/...
 * in a source tree) and then under KREGRESS_DATADIR/workloads/<machine>
 * (make install).  <machine> is the uname name of the arch (arch.h):
 * x86_64 or aarch64.
 */
#ifndef KREGRESS_GUEST_IMAGE_H
#define KREGRESS_GUEST_IMAGE_H

#include <stddef.h>

struct arch;

/* 1 when dir has an executable init. */
int guest_is_workloads_dir(const char *dir);

/*
 * Puts the directory of the workload binaries for machine into out.
 * 0, or -1 (logged) when neither place has an executable init.
 */
int guest_workloads_dir(const char *machine, char *out, size_t size);

/*
 * The gzipped initramfs for a guest of arch: /init and /bin/<workload>
 * from its workloads directory, cached in cache_dir/initramfs by
 * content.  *path is malloc'd.  0 or -1 (logged).
 */
int guest_initramfs(const struct arch *arch, const char *cache_dir,
		    char **path);

#endif
