/*
 * plan_kconfig.c - what each part of a plan needs from the kernel (see
 * plan_kconfig.h).
 *
 * The guest has no modules, so a need is met only by "=y".  A workload's
 * needs may depend on its arguments: mremap without --madvise makes no
 * madvise() call.
 */
#include <stdlib.h>
#include <string.h>

#include "kconfig.h"
#include "plan.h"
#include "plan_kconfig.h"

/* What the guest /init itself uses on every boot. */
static const char *const init_needs[] = {
	"PRINTK", "TTY", "BLK_DEV_INITRD", "RD_GZIP", "BINFMT_ELF",
	"PROC_FS", "SYSFS", "DEVTMPFS", "POSIX_TIMERS", NULL,
};

static const char *const zram_needs[] = {
	"SWAP", "BLOCK", "ZRAM", "ZSMALLOC", "CRYPTO_LZO", NULL,
};

static const char *const thp_needs[] = { "TRANSPARENT_HUGEPAGE", NULL };

/* A workload's needs, whatever its arguments. */
struct workload_needs {
	const char *name;
	const char *const needs[8];
};

static const struct workload_needs workloads[] = {
	/* pass_cpu reads the thread CPU clock; AnonHugePages comes from
	 * /proc/self/smaps_rollup. */
	{ "thp-fault", { "POSIX_TIMERS", "PROC_PAGE_MONITOR", NULL } },
	{ "memset-order", { "POSIX_TIMERS", NULL } },
	{ "mremap", { NULL } },
	/* MADV_PAGEOUT, /proc/self/pagemap, the /proc/vmstat counters */
	{ "zero-swap", { "ADVISE_SYSCALLS", "SWAP", "PROC_PAGE_MONITOR",
			 "VM_EVENT_COUNTERS", NULL } },
	{ "page-zero-check", { NULL } },
};

static void add(struct plan_kconfig_need *needs, size_t *n,
		const char *option, const char *why)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(needs[i].option, option))
			return;
	if (*n < PLAN_KCONFIG_NEEDS_MAX) {
		needs[*n].option = option;
		needs[*n].why = why;
		(*n)++;
	}
}

static void add_all(struct plan_kconfig_need *needs, size_t *n,
		    const char *const *options, const char *why)
{
	for (; *options; options++)
		add(needs, n, *options, why);
}

/* The value of --madvise in a run's arguments, or NULL. */
static const char *madvise_arg(const struct plan_run *r)
{
	int i;

	for (i = 1; i + 1 < r->argc; i++)
		if (!strcmp(r->argv[i], "--madvise"))
			return r->argv[i + 1];
	return NULL;
}

static void run_needs(const struct plan_run *r,
		      struct plan_kconfig_need *needs, size_t *n)
{
	static const char *const thp_line[] = {
		[PLAN_THP_ALWAYS] = "thp always",
		[PLAN_THP_MADVISE] = "thp madvise",
		[PLAN_THP_NEVER] = "thp never",
	};
	const char *madv = madvise_arg(r);
	size_t i;

	for (i = 0; i < sizeof(workloads) / sizeof(*workloads); i++)
		if (!strcmp(workloads[i].name, r->name))
			add_all(needs, n, workloads[i].needs, r->name);
	if (madv && strcmp(madv, "none")) {
		/* MADV_[NO]HUGEPAGE is EINVAL without THP */
		add(needs, n, "ADVISE_SYSCALLS", r->name);
		add(needs, n, "TRANSPARENT_HUGEPAGE", r->name);
	}
	if (r->thp != PLAN_THP_KEEP)
		add_all(needs, n, thp_needs, thp_line[r->thp]);
}

size_t plan_kconfig_needs(const struct plan *plan,
			  struct plan_kconfig_need *needs)
{
	size_t n = 0;
	int i;

	add_all(needs, &n, init_needs, "the guest /init");
	if (plan->swap == PLAN_SWAP_ZRAM)
		add_all(needs, &n, zram_needs, "swap zram");
	else if (plan->swap == PLAN_SWAP_FILE)
		add(needs, &n, "SWAP", "swap file");
	for (i = 0; i < plan->nruns; i++)
		run_needs(&plan->runs[i], needs, &n);
	return n;
}

int plan_kconfig_missing(const struct plan *plan, const char *config,
			 struct strbuf *missing)
{
	struct plan_kconfig_need needs[PLAN_KCONFIG_NEEDS_MAX];
	size_t n = plan_kconfig_needs(plan, needs), i;
	int count = 0;

	for (i = 0; i < n; i++) {
		char *value = NULL;
		int set = kconfig_get(config, needs[i].option, &value);

		if (!set || strcmp(value, "y")) {
			strbuf_addf(missing, "%sCONFIG_%s (%s)",
				    count ? ", " : "", needs[i].option,
				    needs[i].why);
			count++;
		}
		free(value);
	}
	return count;
}
