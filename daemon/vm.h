/*
 * vm.h - boot a kernel in a throw-away libvirt domain (the only libvirt
 * user).
 *
 * A host is a libvirt URI.  A boot is one transient domain (created with
 * virDomainCreateXML, never defined) that boots a kernel and initramfs
 * directly, with no network device and no disk, and destroys itself when
 * the guest powers off, reboots or crashes.  The serial console comes back
 * through virDomainOpenConsole as a libvirt stream, so a remote host works
 * exactly like the local one; it is copied into a per-boot log file, up to
 * a size cap, and scanned for panics, oopses and hangs (guestlog.c).
 * Every domain is named "kregress-..." so that vm_reap() can destroy what a
 * dead process left behind.
 */
#ifndef KREGRESS_VM_H
#define KREGRESS_VM_H

#include <stddef.h>

#include "arch.h"
#include "guestlog.h"

enum vm_status {
	VM_STATUS_OK,		/* the guest ended by itself, no panic/oops */
	VM_STATUS_PANIC,	/* kernel panic on the console */
	VM_STATUS_OOPS,		/* oops/BUG on the console */
	VM_STATUS_HANG,		/* lockup/stall reported on the console */
	VM_STATUS_TIMEOUT,	/* still running at the deadline: destroyed */
	VM_STATUS_STOPPED,	/* the hypervisor stopped the guest (e.g. KVM
				 * internal error): destroyed */
	VM_STATUS_ERROR,	/* the domain could not be created or watched */
};

const char *vm_status_str(enum vm_status status);

/*
 * Every kregress domain is named "<prefix><random hex>".  The prefix is
 * $KREGRESS_VM_PREFIX when it names a longer one that starts with
 * "kregress-" (tests use it to stay out of each other's way, since
 * several test runs may share one libvirtd), else the one set with
 * vm_set_name_prefix() (a daemon's own), else "kregress-".
 */
const char *vm_name_prefix(void);

/*
 * Sets the process's prefix (copied; it must start with "kregress-" and
 * be shorter than 40 bytes, else it is ignored with a warning).  Call it
 * before any boot, from one thread.
 */
void vm_set_name_prefix(const char *prefix);

struct vm_host;

/*
 * Opens a connection to uri (NULL or "" = "qemu:///system").  Starts the
 * libvirt event loop thread on first use (the remote driver needs it to
 * deliver stream data and keepalives).  Returns 0 and *out, or -1 (logged).
 */
int vm_host_open(const char *uri, struct vm_host **out);
void vm_host_free(struct vm_host *h);
/* 1 when the URI names another machine (or a network transport), so that
 * kernels must be uploaded as storage volumes; 0 for the local socket. */
int vm_host_is_remote(const struct vm_host *h);
const char *vm_host_uri(const struct vm_host *h);

struct vm_host_info {
	char arch[32];		/* host CPU arch, "x86_64" */
	char cpu_model[128];	/* host CPU model as libvirt names it */
	unsigned long long memory_kib;
	unsigned int cpus;
	int kvm_offered;	/* capabilities offer domain type kvm */
};

/* Capabilities and node info of the host; does not boot anything. */
int vm_host_info(struct vm_host *h, struct vm_host_info *info);

struct vm_boot_spec {
	const char *kernel;	/* local path: bzImage, PVH vmlinux, Image */
	const char *initrd;	/* local path, or NULL */
	const char *cmdline;	/* appended after the console arguments */
	const struct arch *arch;	/* its machine, console, ... */
	enum arch_accel accel;	/* ARCH_KVM or ARCH_TCG */
	unsigned int memory_mib;	/* 0 = 256 */
	unsigned int vcpus;		/* 0 = 1 */
	unsigned int timeout_s;		/* hard limit, 0 = 120 */
	/* TCG only: the guest's clock counts instructions, one ns each
	 * (QEMU -icount shift=0,sleep=off; plan.h, "clock"). */
	int icount;
	const char *console_log;	/* file the console goes to; required */
	size_t console_cap;		/* bytes kept, 0 = 4 MiB */
	/*
	 * A console line starting with end_marker (may be NULL) means the
	 * guest is done, as when on_console() returns nonzero.
	 */
	const char *end_marker;
	/*
	 * Called from the console thread with each chunk of console bytes
	 * (already capped) and the seconds since the guest was started; may
	 * be NULL.  Returning nonzero means "the guest has said everything":
	 * the domain is then destroyed after a short grace period if it does
	 * not end by itself (an x86 kernel without ACPI cannot power off).
	 */
	int (*on_console)(void *opaque, const char *data, size_t len,
			  double elapsed_s);
	void *opaque;
};

struct vm_result {
	enum vm_status status;
	char reason[GUESTLOG_REASON_MAX + 64];	/* why it is not OK */
	char domain[64];	/* the domain's name */
	double create_s;	/* virDomainCreateXML + console open */
	double run_s;		/* resume to end of domain */
	double first_output_s;	/* resume to first console byte, -1 none */
	double done_s;		/* resume to on_console() said done, -1 */
	double teardown_s;	/* end of run_s to vm_boot returning: the
				 * console closed, the domain destroyed or
				 * left to libvirtd (see vm_boot()) */
	size_t console_bytes;	/* bytes written to the log */
	int console_truncated;	/* the cap was reached */
	int reached_init;	/* the kernel started /init */
};

/*
 * Boots one domain and waits for it to end (blocks up to timeout_s plus a
 * few seconds).  Returns 0 when the boot was carried out — whatever the
 * guest did: the outcome is in res->status and res->reason — and -1 only
 * when nothing could be tried (bad spec, file unreadable, upload failed),
 * with res->status VM_STATUS_ERROR and res->reason set.  When it returns
 * the domain is gone or being destroyed: a guest that powered off,
 * rebooted or crashed is left to libvirtd, which destroys it by itself
 * (its on_* actions) within its kill poll of ~0.2 s, instead of being
 * waited for here; anything else is destroyed before returning.
 */
int vm_boot(struct vm_host *h, const struct vm_boot_spec *spec,
	    struct vm_result *res);

/*
 * 1 when a domain named name is one of prefix's (NULL = vm_name_prefix()),
 * 0 if not.  A name is prefix's when it starts with prefix; but the plain
 * "kregress-" owns only the names vm_boot() gives it ("kregress-" and 12
 * hex digits), never those of a longer prefix ("kregress-t123-..."), so
 * that a daemon reaping its leftovers at start-up leaves the domains of
 * tests and benchmarks on the same libvirtd alone.
 */
int vm_name_matches(const char *name, const char *prefix);

/*
 * Destroys every domain on h whose name vm_name_matches() prefix (NULL =
 * the vm_name_prefix()); prefix must start with "kregress-".  *reaped (may
 * be NULL) gets how many were destroyed.
 */
int vm_reap(struct vm_host *h, const char *prefix, int *reaped);

/* How many running domains on h have names that match prefix. */
int vm_count(struct vm_host *h, const char *prefix, int *count);

#endif
