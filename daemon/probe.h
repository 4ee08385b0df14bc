/*
 * probe.h - find out how a libvirt host can boot kernels: KVM or TCG.
 *
 * /dev/kvm and libvirt's capabilities can both say "kvm" on a host where a
 * KVM guest cannot actually boot (nested virtualisation on the development
 * machine hangs in the decompressor or stops with "KVM internal error").
 * So the probe boots a tiny kernel for real: first with KVM under a short
 * deadline, then, if that did not reach a clean end, with TCG.
 */
#ifndef KREGRESS_PROBE_H
#define KREGRESS_PROBE_H

#include "vm.h"

struct probe_result {
	struct vm_host_info info;
	int ok;			/* some accel booted the probe kernel */
	enum arch_accel accel;	/* the one that did (KVM preferred) */
	int kvm_tried;
	enum vm_status kvm_status;
	char kvm_reason[GUESTLOG_REASON_MAX + 64];
	double kvm_s;		/* wall time of the KVM attempt */
	enum vm_status tcg_status;
	char tcg_reason[GUESTLOG_REASON_MAX + 64];
	double tcg_s;
	double total_s;
};

struct probe_spec {
	const char *kernel;	/* for the host's arch */
	const char *initrd;	/* init that prints and ends the guest */
	const char *cmdline;	/* extra arguments, may be NULL */
	/* A console line starting with this (may be NULL) ends the probe
	 * as cleanly as a power-off (see vm_boot_spec.end_marker). */
	const char *end_marker;
	const struct arch *arch;
	unsigned int kvm_timeout_s;	/* 0 = 20 */
	unsigned int tcg_timeout_s;	/* 0 = 60 */
	const char *log_dir;	/* console logs go here; required */
};

/*
 * Probes h.  Returns 0 with *res filled whether or not a boot worked
 * (res->ok says), -1 only if the host could not be asked at all.  Blocks
 * at most kvm_timeout_s + tcg_timeout_s plus a few seconds.
 */
int probe_host(struct vm_host *h, const struct probe_spec *spec,
	       struct probe_result *res);

#endif
