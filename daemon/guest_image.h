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

#include "sha256.h"

struct arch;

/* 1 when dir has an executable init. */
int guest_is_workloads_dir(const char *dir);

/*
 * Puts the directory of the workload binaries for machine into out.
 * 0, or -1 (logged) when neither place has an executable init.
 */
int guest_workloads_dir(const char *machine, char *out, size_t size);

/* A guest's initramfs and its identity. */
struct guest_image {
	char *path;			/* cache_dir/initramfs/<id>.cpio.gz */
	char id[SHA256_HEX_LEN + 1];	/* SHA-256 of /init and the
					 * workloads as packed: calibrations
					 * hold only for the image they
					 * booted */
};

/*
 * The gzipped initramfs for a guest of arch: /init and /bin/<workload>
 * from its workloads directory, cached in cache_dir/initramfs by
 * content.  0 with *g (release with guest_image_release()), or -1
 * (logged).
 */
int guest_initramfs(const struct arch *arch, const char *cache_dir,
		    struct guest_image *g);
void guest_image_release(struct guest_image *g);

#endif
