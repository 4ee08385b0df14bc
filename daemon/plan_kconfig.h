/*
 * plan_kconfig.h - the kernel options a workload plan needs.
 *
 * A plan's workloads and set-up lines use kernel features that a
 * tinyconfig-based kernel does not have unless a fragment asks for them:
 * madvise() is CONFIG_ADVISE_SYSCALLS, /proc/self/pagemap is
 * CONFIG_PROC_PAGE_MONITOR, a zram swap is CONFIG_ZRAM and CONFIG_SWAP.
 * A boot of a kernel without one of them fails every time, so the run
 * stage checks a kernel's .config against its plan before the first boot
 * and names what is missing, and the tests check the shipped plans
 * against the kernels the shipped fragments build.
 *
 * This table is the one place that says what each workload, option and
 * plan line needs; the workloads' own failure messages name the same
 * options.  Pure code: no I/O.
 */
#ifndef KREGRESS_PLAN_KCONFIG_H
#define KREGRESS_PLAN_KCONFIG_H

#include <stddef.h>

#include "strbuf.h"

struct plan;

/* One option a plan needs, and the first plan line that needs it. */
struct plan_kconfig_need {
	const char *option;	/* symbol without "CONFIG_" */
	const char *why;	/* "the guest /init", "swap zram", "mremap
				 * --madvise hugepage", ... (static) */
};

#define PLAN_KCONFIG_NEEDS_MAX	64

/*
 * Fills needs (room for PLAN_KCONFIG_NEEDS_MAX) with every option plan
 * needs, each once, in the order the plan first needs it; returns how
 * many.  Workloads the table does not know need only what /init needs.
 */
size_t plan_kconfig_needs(const struct plan *plan,
			  struct plan_kconfig_need *needs);

/*
 * Checks kernel configuration text (a .config) against plan: appends the
 * missing options to missing, comma-separated, each with what needs it
 * ("CONFIG_ZRAM (swap zram), CONFIG_SWAP (zero-swap)"), and returns how
 * many are missing (0 = the kernel has everything).
 */
int plan_kconfig_missing(const struct plan *plan, const char *config,
			 struct strbuf *missing);

#endif
