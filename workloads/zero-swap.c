/*
 * zero-swap - swapping out and back in zero-filled pages (seed 003),
 * with pages of data as the control.
 *
 * For each kind ("zero": written with zeroes, so really allocated;
 * "data": every byte non-zero) a region of --size-mb MiB is reclaimed
 * with madvise(MADV_PAGEOUT), timed, and then read back, timed (the
 * swap-in faults).  The /proc/vmstat counters pswpout, pswpin,
 * swpout_zero and swpin_zero are recorded as info for each sample: a
 * kernel that recognises zero pages shows swpout_zero rising instead of
 * pswpout.  Swap (zram or a file) must be on: the guest /init sets it up
 * from the plan.  With zram the write is synchronous and the pages leave
 * memory at once; with a swap file on a disk they stay in the swap cache
 * until the write completes (info "resident_after_pageout", from
 * mincore(), shows it), so the read-back then costs minor faults only.
 *
 * Verification: after MADV_PAGEOUT at most half of the region may still
 * be mapped by a present PTE (/proc/self/pagemap; else nothing was
 * swapped: no swap, or reclaim refused),
 * and every word read back equals what was written; either miss is a
 * failure record, never a sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static const char *const counters[] = {
	"pswpout", "pswpin", "swpout_zero", "swpin_zero",
};
#define NCOUNTERS (sizeof(counters) / sizeof(*counters))

static void snap(unsigned long *v)
{
	size_t i;

	for (i = 0; i < NCOUNTERS; i++)
		v[i] = wl_vmstat(counters[i]);
}

static unsigned char fill_byte(size_t page)
{
	return 1 + page % 251;
}

static size_t resident_pages(char *p, size_t size)
{
	size_t pages = size / WL_PAGE, n = 0, i;
	unsigned char *vec = malloc(pages);

	if (!vec)
		wl_fail("out of memory");
	if (mincore(p, size, vec))
		wl_fail("mincore: %s", strerror(errno));
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

/*
 * Pages of [p, p + size) whose page table entry is present, from
 * /proc/self/pagemap (bit 63; a swapped-out page shows bit 62 instead).
 * Unlike mincore(), a page whose PTE is a swap entry but whose folio is
 * still in the swap cache (written back asynchronously to a swap file)
 * does not count.
 */
static size_t present_pages(char *p, size_t size)
{
	size_t pages = size / WL_PAGE, n = 0, i;
	uint64_t *ent = malloc(pages * sizeof(*ent));
	off_t off = (uintptr_t)p / WL_PAGE * sizeof(*ent);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (!ent)
		wl_fail("out of memory");
	if (fd < 0)
		wl_fail("/proc/self/pagemap: %s%s", strerror(errno),
			wl_lacks(errno, ENOENT, "PROC_PAGE_MONITOR"));
	if (pread(fd, ent, pages * sizeof(*ent), off) !=
	    (ssize_t)(pages * sizeof(*ent)))
		wl_fail("/proc/self/pagemap: short read");
	for (i = 0; i < pages; i++)
		n += ent[i] >> 63;
	close(fd);
	free(ent);
	return n;
}

/* Reads every word back (this is the swap-in); returns the first bad page. */
static long read_back(char *p, size_t size, int zero)
{
	size_t pages = size / WL_PAGE, i, j;

	for (i = 0; i < pages; i++) {
		const volatile unsigned long *w =
			(const unsigned long *)(p + i * WL_PAGE);
		unsigned long want = 0;

		if (!zero)
			memset(&want, fill_byte(i), sizeof(want));
		for (j = 0; j < WL_PAGE / sizeof(*w); j++)
			if (w[j] != want)
				return i;
	}
	return -1;
}

static void run(const char *kind, size_t size, long it)
{
	int zero = !strcmp(kind, "zero");
	size_t pages = size / WL_PAGE, i, resident, present;
	unsigned long before[NCOUNTERS], mid[NCOUNTERS], after[NCOUNTERS];
	char *p = wl_map_aligned(size, 2 * WL_MIB, "nohugepage");
	char metric[32];
	uint64_t t0, t1, t2, t3;
	long bad;

	for (i = 0; i < pages; i++)
		memset(p + i * WL_PAGE, zero ? 0 : fill_byte(i), WL_PAGE);
	snap(before);
	t0 = wl_now_ns();
	if (madvise(p, size, MADV_PAGEOUT))
		wl_fail("madvise(MADV_PAGEOUT): %s%s", strerror(errno),
			wl_lacks(errno, ENOSYS, "ADVISE_SYSCALLS"));
	t1 = wl_now_ns();
	snap(mid);
	resident = resident_pages(p, size);
	present = present_pages(p, size);
	if (present > pages / 2)
		wl_fail("%s: %zu of %zu pages still mapped after "
			"MADV_PAGEOUT: nothing was swapped out (is swap on?)",
			kind, present, pages);
	t2 = wl_now_ns();
	bad = read_back(p, size, zero);
	t3 = wl_now_ns();
	snap(after);
	if (bad >= 0)
		wl_fail("%s: page %ld did not survive the swap round trip",
			kind, bad);
	wl_unmap(p);
	if (it < 0)
		return;
	for (i = 0; i < NCOUNTERS; i++)
		wl_info_uint(counters[i], mid[i] - before[i]);
	wl_info_uint("present_after_pageout", present);
	wl_info_uint("resident_after_pageout", resident);
	snprintf(metric, sizeof(metric), "pageout_%s", kind);
	wl_sample_interval(metric, it, t0, t1);
	for (i = 0; i < NCOUNTERS; i++)
		wl_info_uint(counters[i], after[i] - mid[i]);
	snprintf(metric, sizeof(metric), "swapin_%s", kind);
	wl_sample_interval(metric, it, t2, t3);
}

int main(int argc, char **argv)
{
	static const char *const primary[] = {
		"pageout_zero", "swapin_zero", NULL,
	};
	unsigned long size_mb = 64;
	struct wl_common c = { .iterations = 5, .warmup = 1, .cpu = -1 };
	const struct wl_opt opts[] = {
		{ "size-mb", WL_OPT_UINT, &size_mb, NULL, 1 },
		{ NULL, 0, NULL, NULL, 0 },
	};
	long it;

	wl_parse("zero-swap", argc, argv, opts, &c);
	wl_primary(primary);
	if (!size_mb || size_mb > 65536)
		wl_fail("--size-mb must be 1..65536");
	for (it = -(long)c.warmup; it < (long)c.iterations; it++) {
		run("zero", size_mb * WL_MIB, it);
		run("data", size_mb * WL_MIB, it);
	}
	return 0;
}
