/*
 * t-plan-kconfig.c - what a plan needs from the kernel, and the shipped
 * plans against the shipped builder fragments: every option a shipped plan
 * needs is asked for, "=y", by the fragments every arch is built with
 * (the build's dropped-option check then proves the kernel has it; the
 * slow end-to-end test reads the built .config itself).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "kconfig.h"
#include "plan.h"
#include "plan_file.h"
#include "plan_kconfig.h"
#include "tap.h"

static struct plan plan;

static int needs(const char *text, const char *option, const char *why)
{
	struct plan_kconfig_need n[PLAN_KCONFIG_NEEDS_MAX];
	char err[256];
	size_t i, count;

	if (plan_parse(&plan, text, strlen(text), err, sizeof(err))) {
		diag("%s", err);
		return 0;
	}
	count = plan_kconfig_needs(&plan, n);
	for (i = 0; i < count; i++)
		if (!strcmp(n[i].option, option))
			return !strcmp(n[i].why, why);
	return 0;
}

static void test_needs(void)
{
	static const char text[] =
		"kregress-plan 1\n"
		"swap zram 64\n"
		"run mremap --pud-mb 1024\n"
		"thp always\n"
		"run mremap --madvise hugepage\n"
		"run zero-swap --size-mb 8\n";
	static const char config[] =
		"CONFIG_PRINTK=y\nCONFIG_TTY=y\nCONFIG_BLK_DEV_INITRD=y\n"
		"CONFIG_RD_GZIP=y\nCONFIG_BINFMT_ELF=y\nCONFIG_PROC_FS=y\n"
		"CONFIG_SYSFS=y\nCONFIG_DEVTMPFS=y\nCONFIG_POSIX_TIMERS=y\n"
		"CONFIG_SWAP=y\nCONFIG_BLOCK=y\nCONFIG_ZRAM=m\n"
		"CONFIG_ZSMALLOC=y\nCONFIG_CRYPTO_LZO=y\n"
		"CONFIG_TRANSPARENT_HUGEPAGE=y\n"
		"# CONFIG_ADVISE_SYSCALLS is not set\n"
		"CONFIG_VM_EVENT_COUNTERS=y\n";
	struct strbuf missing = STRBUF_INIT;
	char err[256];

	ok(needs(text, "POSIX_TIMERS", "the guest /init"),
	   "every plan needs what /init uses");
	ok(needs(text, "ZRAM", "swap zram"), "swap zram needs ZRAM");
	ok(needs(text, "ADVISE_SYSCALLS", "mremap"),
	   "mremap --madvise needs madvise()");
	ok(needs(text, "TRANSPARENT_HUGEPAGE", "mremap"),
	   "... and THP (MADV_HUGEPAGE is EINVAL without it)");
	ok(needs(text, "PROC_PAGE_MONITOR", "zero-swap"),
	   "zero-swap needs /proc/self/pagemap");
	ok(!needs("kregress-plan 1\nrun mremap --pud-mb 64\n",
		  "ADVISE_SYSCALLS", "mremap"),
	   "mremap without --madvise makes no madvise() call");
	ok(!needs("kregress-plan 1\nrun page-zero-check\n", "ZRAM",
		  "swap zram"), "no swap line, no swap needs");

	plan_parse(&plan, text, strlen(text), err, sizeof(err));
	is_int(plan_kconfig_missing(&plan, config, &missing), 3,
	       "three options missing (a module counts as missing)");
	is_str(missing.buf, "CONFIG_ZRAM (swap zram), CONFIG_ADVISE_SYSCALLS "
	       "(mremap), CONFIG_PROC_PAGE_MONITOR (zero-swap)",
	       "each named with what needs it");
	strbuf_release(&missing);
}

/* The fragments' text for arch: common-mm.config and <arch>.config. */
static int fragments(const char *src, const char *arch, struct strbuf *out)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/builders/configs/common-mm.config",
		 src);
	if (strbuf_read_file(out, path, 1 << 20))
		return -1;
	strbuf_addch(out, '\n');
	snprintf(path, sizeof(path), "%s/builders/configs/%s.config", src,
		 arch);
	return strbuf_read_file(out, path, 1 << 20);
}

static void test_shipped(const char *src)
{
	static const char *const arches[] = { "x86_64", "arm64" };
	struct strbuf frag = STRBUF_INIT, dir = STRBUF_INIT;
	struct dirent *de;
	DIR *d;
	size_t i;
	int plans = 0;

	strbuf_addf(&dir, "%s/workloads/plans", src);
	d = opendir(dir.buf);
	if (!ok(d != NULL, "the shipped plans are in %s", dir.buf))
		return;
	while ((de = readdir(d))) {
		struct plan_file pf = { NULL, NULL, STRBUF_INIT };
		struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".plan"))
			continue;
		plans++;
		strbuf_addf(&path, "%s/%s", dir.buf, de->d_name);
		if (!ok(plan_file_load(&pf, path.buf, &err) == 0, "%s loads",
			de->d_name))
			diag("%s", err.buf);
		for (i = 0; pf.plan && i < 2; i++) {
			struct strbuf missing = STRBUF_INIT;

			strbuf_reset(&frag);
			if (!ok(fragments(src, arches[i], &frag) == 0,
				"the %s fragments", arches[i]))
				continue;
			is_int(plan_kconfig_missing(pf.plan, frag.buf,
						    &missing), 0,
			       "the %s fragments ask for all %s needs",
			       arches[i], de->d_name);
			if (missing.len)
				diag("missing: %s", missing.buf);
			strbuf_release(&missing);
		}
		plan_file_release(&pf);
		strbuf_release(&path);
		strbuf_release(&err);
	}
	closedir(d);
	ok(plans >= 2, "%d shipped plans checked", plans);
	strbuf_release(&frag);
	strbuf_release(&dir);
}

int main(void)
{
	const char *src = getenv("KREGRESS_SRC");

	test_needs();
	test_shipped(src ? src : ".");
	return done_testing();
}
