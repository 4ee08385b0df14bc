/*
 * thp-fault - first-touch cost of anonymous memory (seeds 000 and 004).
 *
 * Maps --size-mb MiB (2 MiB aligned), optionally madvise()s it, and writes
 * one int per 4 KiB page, as the seed's malloc test does; the time of the
 * whole pass is one sample.  The first write into each 2 MiB extent is
 * timed on its own: with a huge page that fault zeroes 2 MiB
 * (clear_huge_page), without it one 4 KiB page, so its median and maximum
 * are what a huge-page zeroing patch moves.  "pass_cpu" is the pass's
 * CPU time, immune to waiting for a CPU on a loaded host.  The mapping is fresh for
 * every pass and unmapped afterwards (untimed).  Verification: every
 * page reads back what was written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static unsigned long anon_huge_kb(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		wl_fail("/proc/self/smaps_rollup: %s%s", strerror(errno),
			wl_lacks(errno, ENOENT, "PROC_PAGE_MONITOR"));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	static const char *const primary[] = {
		"pass", "first_touch_2m_median", NULL,
	};
	unsigned long size_mb = 100;
	const char *madv = "none";
	struct wl_common c = { .iterations = 10, .warmup = 1, .cpu = -1 };
	const struct wl_opt opts[] = {
		{ "size-mb", WL_OPT_UINT, &size_mb, NULL, 1 },
		{ "madvise", WL_OPT_STR, &madv, "none|hugepage|nohugepage", 1 },
		{ NULL, 0, NULL, NULL, 0 },
	};
	size_t size, pages, chunks, i, j;
	uint64_t *lat;
	long it;

	wl_parse("thp-fault", argc, argv, opts, &c);
	wl_primary(primary);
	if (!size_mb || size_mb % 2 || size_mb > 65536)
		wl_fail("--size-mb must be even, 2..65536");
	size = size_mb * WL_MIB;
	pages = size / WL_PAGE;
	chunks = size / (2 * WL_MIB);
	lat = calloc(chunks, sizeof(*lat));
	if (!lat)
		wl_fail("out of memory");
	for (it = -(long)c.warmup; it < (long)c.iterations; it++) {
		char *p = wl_map_aligned(size, 2 * WL_MIB, madv);
		uint64_t t0, t1, tc, c0, c1;
		unsigned long huge;

		c0 = wl_cpu_ns();
		t0 = wl_now_ns();
		for (j = 0; j < chunks; j++) {
			char *chunk = p + j * 2 * WL_MIB;

			tc = wl_now_ns();
			*(volatile int *)chunk = 1;
			lat[j] = wl_now_ns() - tc;
			for (i = 1; i < 2 * WL_MIB / WL_PAGE; i++)
				*(volatile int *)(chunk + i * WL_PAGE) = 1;
		}
		t1 = wl_now_ns();
		c1 = wl_cpu_ns();
		huge = anon_huge_kb();
		for (i = 0; i < pages; i++)
			if (*(volatile int *)(p + i * WL_PAGE) != 1)
				wl_fail("page %zu lost its write", i);
		wl_unmap(p);
		if (it < 0)
			continue;
		qsort(lat, chunks, sizeof(*lat), cmp_u64);
		wl_info_uint("anon_huge_kb", huge);
		wl_sample_interval("pass", it, t0, t1);
		wl_sample_interval("pass_cpu", it, c0, c1);
		wl_sample("first_touch_2m_median", "ns", "lower", it,
			  lat[chunks / 2]);
		wl_sample("first_touch_2m_max", "ns", "lower", it,
			  lat[chunks - 1]);
	}
	free(lat);
	return 0;
}
