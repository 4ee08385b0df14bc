/*
 * probe.c - boot a tiny kernel with KVM, fall back to TCG (see probe.h).
 *
 * A boot counts as working when the domain ended by itself (the probe
 * init reboots, which ends the domain), no panic/oops/hang was printed,
 * and the kernel got as far as running /init.  Anything else on KVM (a
 * timeout, a guest the hypervisor stopped, a triple fault) means "use
 * TCG here".
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "now.h"
#include "probe.h"

static int try_boot(struct vm_host *h, const struct probe_spec *spec,
		    enum arch_accel accel, unsigned int timeout_s,
		    enum vm_status *status, char *reason, size_t size,
		    double *secs)
{
	struct vm_boot_spec bs;
	struct vm_result r;
	char log[4096];
	double t0 = now_s();

	snprintf(log, sizeof(log), "%s/probe-%s.log", spec->log_dir,
		 arch_accel_str(accel));
	memset(&bs, 0, sizeof(bs));
	bs.kernel = spec->kernel;
	bs.initrd = spec->initrd;
	bs.cmdline = spec->cmdline;
	bs.end_marker = spec->end_marker;
	bs.arch = spec->arch;
	bs.accel = accel;
	bs.memory_mib = 128;
	bs.vcpus = 1;
	bs.timeout_s = timeout_s;
	bs.console_log = log;
	bs.console_cap = 1 << 20;
	vm_boot(h, &bs, &r);
	*secs = now_s() - t0;
	*status = r.status;
	if (r.status == VM_STATUS_OK && !r.reached_init) {
		*status = VM_STATUS_ERROR;
		snprintf(reason, size, "ended before running /init");
		return 0;
	}
	snprintf(reason, size, "%s", r.reason);
	return r.status == VM_STATUS_OK;
}

int probe_host(struct vm_host *h, const struct probe_spec *spec,
	       struct probe_result *res)
{
	double t0 = now_s();

	memset(res, 0, sizeof(*res));
	if (vm_host_info(h, &res->info) < 0)
		return -1;
	if (res->info.kvm_offered) {
		res->kvm_tried = 1;
		if (try_boot(h, spec, ARCH_KVM,
			     spec->kvm_timeout_s ? spec->kvm_timeout_s : 20,
			     &res->kvm_status, res->kvm_reason,
			     sizeof(res->kvm_reason), &res->kvm_s)) {
			res->ok = 1;
			res->accel = ARCH_KVM;
			goto out;
		}
		log_info("probe", "%s: KVM did not boot (%s: %s); trying TCG",
			 vm_host_uri(h), vm_status_str(res->kvm_status),
			 res->kvm_reason);
	}
	if (try_boot(h, spec, ARCH_TCG,
		     spec->tcg_timeout_s ? spec->tcg_timeout_s : 60,
		     &res->tcg_status, res->tcg_reason,
		     sizeof(res->tcg_reason), &res->tcg_s)) {
		res->ok = 1;
		res->accel = ARCH_TCG;
	}
out:
	res->total_s = now_s() - t0;
	return 0;
}
