/*
 * mremap - time of mremap() moving a populated region to an aligned
 * destination (seed 002): a PUD-aligned region of --pud-mb MiB (1 GiB:
 * with HAVE_MOVE_PUD the kernel moves one PUD entry instead of 262144
 * PTEs), a PMD-aligned 2 MiB region (HAVE_MOVE_PMD) and one 4 KiB page.
 *
 * Each region is populated once (every page holds its index) and then
 * moved back and forth between two aligned slots, one timed mremap() per
 * iteration, so the cost of populating is paid once, not per sample.
 * Verification after every move: mremap() returned the destination, the
 * source range is no longer mapped (mincore() fails with ENOMEM) and
 * pages at the start, middle and end hold their index; after the last
 * move every page is checked.  Any miss is a failure record.
 *
 * Before a region's first timed move the workload sleeps a while
 * (SETTLE_NS), so that what the kernel left for later from earlier
 * unmappings (page tables freed after an RCU grace period, in a timer's
 * softirq) is done before the clock runs, not inside one of the moves.
 * Without it, on arm64 with HAVE_MOVE_PUD dropped, the teardown of the
 * 1 GiB region landed in the 4 KiB move's last iteration in 15 boots of
 * 18 (4 ms instead of 20 us), and the control read as a 4% regression.
 * Under instruction time the sleep costs no wall time.
 *
 * With --pud-mb below 1024 the first region is still 1 GiB aligned but
 * too small for a PUD move (used for emulated hosts, where populating
 * 1 GiB costs seconds).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "common.h"

#define SETTLE_NS 100000000L	/* 100 ms */

static void populate(char *p, size_t size)
{
	size_t i;

	for (i = 0; i < size / WL_PAGE; i++)
		*(size_t *)(p + i * WL_PAGE) = i;
}

static void check_page(const char *what, char *p, size_t i)
{
	size_t v = *(volatile size_t *)(p + i * WL_PAGE);

	if (v != i)
		wl_fail("%s: page %zu holds %zu after the move: region did "
			"not move intact", what, i, v);
}

static void check_moved(const char *what, char *from, char *to,
			size_t size, int all)
{
	unsigned char vec;
	size_t pages = size / WL_PAGE, i;

	errno = 0;
	if (mincore(from, WL_PAGE, &vec) == 0 || errno != ENOMEM)
		wl_fail("%s: source still mapped after mremap: region did "
			"not move", what);
	if (all) {
		for (i = 0; i < pages; i++)
			check_page(what, to, i);
		return;
	}
	check_page(what, to, 0);
	check_page(what, to, pages / 2);
	check_page(what, to, pages - 1);
}

static void run(const char *metric, size_t size, size_t align,
		const char *madv, struct wl_common *c)
{
	size_t slot = (size + align - 1) / align * align + align;
	char *base, *slots[2];
	long it;
	int cur = 0;

	/*
	 * Two aligned slots with an unmapped PROT_NONE gap of at least
	 * align between them, inside one reservation.
	 */
	base = mmap(NULL, 2 * slot + align, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		wl_fail("%s: reserve %zu bytes: %s", metric, 2 * slot + align,
			strerror(errno));
	slots[0] = (char *)(((uintptr_t)base + align - 1) &
			    ~(uintptr_t)(align - 1));
	slots[1] = slots[0] + slot;
	if (mmap(slots[0], size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		wl_fail("%s: mmap %zu bytes: %s", metric, size,
			strerror(errno));
	wl_madvise(slots[0], size, madv);
	populate(slots[0], size);
	/* The destination slot must be a hole, not PROT_NONE. */
	munmap(slots[1], size);
	nanosleep(&(struct timespec){ 0, SETTLE_NS }, NULL);
	for (it = -(long)c->warmup; it < (long)c->iterations; it++) {
		char *from = slots[cur], *to = slots[!cur], *r;
		uint64_t t0, t1;

		t0 = wl_now_ns();
		r = mremap(from, size, size, MREMAP_MAYMOVE | MREMAP_FIXED,
			   to);
		t1 = wl_now_ns();
		if (r == MAP_FAILED)
			wl_fail("%s: mremap: %s", metric, strerror(errno));
		if (r != to)
			wl_fail("%s: mremap returned %p, not %p", metric,
				(void *)r, (void *)to);
		check_moved(metric, from, to, size,
			    it == (long)c->iterations - 1);
		cur = !cur;
		if (it >= 0)
			wl_sample_interval(metric, it, t0, t1);
	}
	munmap(base, 2 * slot + align);
}

int main(int argc, char **argv)
{
	static const char *const primary[] = {
		"move_pud", "move_pmd", "move_pte", NULL,
	};
	unsigned long pud_mb = 1024;
	const char *madv = "none", *regions = "all";
	struct wl_common c = { .iterations = 10, .warmup = 2, .cpu = -1 };
	const struct wl_opt opts[] = {
		{ "pud-mb", WL_OPT_UINT, &pud_mb, NULL, 1 },
		{ "madvise", WL_OPT_STR, &madv, "none|hugepage|nohugepage", 1 },
		{ "regions", WL_OPT_STR, &regions, "all|pud|pmd|pte", 1 },
		{ NULL, 0, NULL, NULL, 0 },
	};
	int all;

	wl_parse("mremap", argc, argv, opts, &c);
	wl_primary(primary);
	if (!pud_mb || pud_mb > 1024)
		wl_fail("--pud-mb must be 1..1024");
	all = !strcmp(regions, "all");
	if (all || !strcmp(regions, "pud"))
		run("move_pud", pud_mb * WL_MIB, WL_GIB, madv, &c);
	if (all || !strcmp(regions, "pmd"))
		run("move_pmd", 2 * WL_MIB, 2 * WL_MIB, madv, &c);
	if (all || !strcmp(regions, "pte"))
		run("move_pte", WL_PAGE, WL_PAGE, madv, &c);
	return 0;
}
