/*
 * page-zero-check - "is this 4 KiB page all zero?" scanned word by word
 * versus byte by byte (seed 003's kernel module, in user space: the
 * word-wise check of the patch against memchr_inv()'s byte loop).
 *
 * Both scans are compiled without auto-vectorisation, like kernel code.
 * One sample is the mean time of one check over --checks calls on a
 * zero page (or on a page with one non-zero byte at --nonzero-at, to time
 * the early exit).  Verification before timing: both scans say "zero" for
 * a zero page and "not zero" for a page with a non-zero first, middle or
 * last byte (the seed's loop starts at word 1 and misses word 0; this one
 * does not).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define NO_VECTORIZE __attribute__((noinline, optimize("no-tree-vectorize")))

NO_VECTORIZE static int zero_words(const void *ptr)
{
	const unsigned long *page = ptr;
	size_t last = WL_PAGE / sizeof(*page) - 1, pos;

	if (page[last])
		return 0;
	for (pos = 0; pos < last; pos++)
		if (page[pos])
			return 0;
	return 1;
}

NO_VECTORIZE static int zero_bytes(const void *ptr)
{
	const unsigned char *page = ptr;
	size_t pos;

	for (pos = 0; pos < WL_PAGE; pos++)
		if (page[pos])
			return 0;
	return 1;
}

static void verify(unsigned char *page)
{
	static const size_t at[] = { 0, WL_PAGE / 2, WL_PAGE - 1 };
	size_t i;

	memset(page, 0, WL_PAGE);
	if (!zero_words(page) || !zero_bytes(page))
		wl_fail("a zero page was not recognised as zero");
	for (i = 0; i < 3; i++) {
		page[at[i]] = 1;
		if (zero_words(page) || zero_bytes(page))
			wl_fail("byte %zu set, yet the page was called zero",
				at[i]);
		page[at[i]] = 0;
	}
}

static double time_checks(int (*check)(const void *), unsigned char *page,
			  unsigned long n, int want)
{
	unsigned long i;
	uint64_t t0, t1;
	int r;

	t0 = wl_now_ns();
	for (i = 0; i < n; i++) {
		wl_barrier(page);	/* no hoisting out of the loop */
		r = check(page);
		if (r != want)
			wl_fail("check %lu gave %d, want %d", i, r, want);
	}
	t1 = wl_now_ns();
	return (double)(t1 - t0) / n;
}

int main(int argc, char **argv)
{
	static const char *const primary[] = { "word_check", NULL };
	unsigned long checks = 1000000;
	long nonzero_at = -1;
	struct wl_common c = { .iterations = 10, .warmup = 1, .cpu = -1 };
	const struct wl_opt opts[] = {
		{ "checks", WL_OPT_UINT, &checks, NULL, 1 },
		{ "nonzero-at", WL_OPT_INT, &nonzero_at, NULL, 0 },
		{ NULL, 0, NULL, NULL, 0 },
	};
	unsigned char *page;
	long it;
	int want;

	wl_parse("page-zero-check", argc, argv, opts, &c);
	wl_primary(primary);
	if (!checks || checks > 1000000000)
		wl_fail("--checks must be 1..1000000000");
	if (nonzero_at < -1 || nonzero_at >= (long)WL_PAGE)
		wl_fail("--nonzero-at must be -1..4095");
	wl_param_uint("nonzero_at", nonzero_at < 0 ? WL_PAGE :
		      (unsigned long)nonzero_at);
	page = aligned_alloc(WL_PAGE, WL_PAGE);
	if (!page)
		wl_fail("out of memory");
	verify(page);
	if (nonzero_at >= 0)
		page[nonzero_at] = 1;
	want = nonzero_at < 0;
	for (it = -(long)c.warmup; it < (long)c.iterations; it++) {
		double w = time_checks(zero_words, page, checks, want);
		double b = time_checks(zero_bytes, page, checks, want);

		if (it < 0)
			continue;
		wl_sample("word_check", "ns", "lower", it, w);
		wl_sample("byte_check", "ns", "lower", it, b);
	}
	free(page);
	return 0;
}
