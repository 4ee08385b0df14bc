/*
 * memset-order - the access orders of seed 001: fill --size-mb MiB by one
 * memset(), by 4 KiB memset()s forward, and by 4 KiB memset()s in
 * reverse.  As in the seed each fill gets fresh memory, so the page
 * faults (and the kernel's zeroing of the pages) are part of the time;
 * --prefault 1 touches the memory first (untimed) to time the fills
 * alone.  The three orders run in turn within an iteration so that slow
 * drift of the machine hits all three alike.  Verification: first and
 * last byte of every page hold the fill value.  Each order is also
 * reported as CPU time ("<order>_cpu").
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

enum order { ONESHOT, FORWARD, REVERSE };

static void fill(char *p, size_t size, enum order o, int value)
{
	size_t pages = size / WL_PAGE, i;

	switch (o) {
	case ONESHOT:
		memset(p, value, size);
		break;
	case FORWARD:
		for (i = 0; i < pages; i++)
			memset(p + i * WL_PAGE, value, WL_PAGE);
		break;
	case REVERSE:
		for (i = 0; i < pages; i++)
			memset(p + size - (i + 1) * WL_PAGE, value, WL_PAGE);
		break;
	}
	wl_barrier(p);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"oneshot", "forward", "reverse", NULL,
	};
	unsigned long size_mb = 100, prefault = 0;
	const char *madv = "none";
	struct wl_common c = { .iterations = 10, .warmup = 1, .cpu = -1 };
	const struct wl_opt opts[] = {
		{ "size-mb", WL_OPT_UINT, &size_mb, NULL, 1 },
		{ "prefault", WL_OPT_UINT, &prefault, NULL, 1 },
		{ "madvise", WL_OPT_STR, &madv, "none|hugepage|nohugepage", 1 },
		{ NULL, 0, NULL, NULL, 0 },
	};
	size_t size, i;
	long it;
	int o;

	wl_parse("memset-order", argc, argv, opts, &c);
	wl_primary(names);
	if (!size_mb || size_mb > 65536)
		wl_fail("--size-mb must be 1..65536");
	size = size_mb * WL_MIB;
	for (it = -(long)c.warmup; it < (long)c.iterations; it++) {
		for (o = ONESHOT; o <= REVERSE; o++) {
			char *p = wl_map_aligned(size, 2 * WL_MIB, madv);
			int value = 0xd - o;
			uint64_t t0, t1, c0, c1;
			char cpu[32];

			if (prefault)
				memset(p, 0x5a, size);
			c0 = wl_cpu_ns();
			t0 = wl_now_ns();
			fill(p, size, o, value);
			t1 = wl_now_ns();
			c1 = wl_cpu_ns();
			for (i = 0; i < size; i += WL_PAGE)
				if (p[i] != value || p[i + WL_PAGE - 1] != value)
					wl_fail("%s: page %zu not filled",
						names[o], i / WL_PAGE);
			wl_unmap(p);
			if (it < 0)
				continue;
			wl_sample_interval(names[o], it, t0, t1);
			snprintf(cpu, sizeof(cpu), "%s_cpu", names[o]);
			wl_sample_interval(cpu, it, c0, c1);
		}
	}
	return 0;
}
