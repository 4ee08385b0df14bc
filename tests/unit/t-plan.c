/*
 * t-plan.c - the plan format: the shipped default plans, directives and
 * their scope, the kernel command line form, and bad plans.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "strbuf.h"
#include "tap.h"

#if defined(__aarch64__)
#define WORKLOAD_ARCH "aarch64"
#else
#define WORKLOAD_ARCH "x86_64"
#endif

static struct plan plan;
static char err[256];

static int parse(const char *text)
{
	err[0] = 0;
	return plan_parse(&plan, text, strlen(text), err, sizeof(err));
}

static void bad(const char *text, const char *want, const char *what)
{
	ok(parse(text) == -1 && strstr(err, want) != NULL, "%s: %s", what,
	   err);
}

static void shipped(const char *name)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	const char *src = getenv("KREGRESS_SRC");
	const char *build = getenv("KREGRESS_BUILD");
	struct strbuf missing = STRBUF_INIT, dir = STRBUF_INIT;
	struct dirent *de;
	DIR *d;
	int i, nprog = 0;

	strbuf_addf(&path, "%s/workloads/plans/%s", src ? src : ".", name);
	if (strbuf_read_file(&sb, path.buf, PLAN_TEXT_MAX)) {
		ok(0, "read %s", path.buf);
		goto out;
	}
	ok(plan_parse(&plan, sb.buf, sb.len, err, sizeof(err)) == 0,
	   "%s parses %s", name, err);
	ok(plan.swap == PLAN_SWAP_ZRAM, "%s sets up zram", name);
	/* Every workload program the build made for this machine's arch. */
	strbuf_addf(&dir, "%s/workloads/%s", build ? build : "build",
		    WORKLOAD_ARCH);
	d = opendir(dir.buf);
	if (!ok(d != NULL, "%s: the built workloads are in %s", name,
		dir.buf))
		goto out;
	while ((de = readdir(d))) {
		int found = 0;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "init"))
			continue;
		nprog++;
		for (i = 0; i < plan.nruns; i++)
			found |= !strcmp(plan.runs[i].name, de->d_name);
		if (!found)
			strbuf_addf(&missing, " %s", de->d_name);
	}
	closedir(d);
	ok(nprog >= 5 && !missing.len, "%s runs every workload of %s "
	   "(%d programs; not run:%s)", name, dir.buf, nprog,
	   missing.len ? missing.buf : " none");
out:
	strbuf_release(&missing);
	strbuf_release(&dir);
	strbuf_release(&sb);
	strbuf_release(&path);
}

int main(void)
{
	char big[PLAN_TEXT_MAX + 100], val[64];
	size_t n;
	int i;

	shipped("default-kvm.plan");
	shipped("default-tcg.plan");

	ok(parse("# a plan\n"
		 "kregress-plan 1\n"
		 "\n"
		 "  run thp-fault --size-mb 4\r\n"
		 "thp never\n"
		 "timeout 7\n"
		 "swap file /swapfile 128\n"
		 "machine 1024 2\n"
		 "clock instructions\n"
		 "run\tmremap --pud-mb 8  --iterations 2\n"
		 "thp keep\n"
		 "run page-zero-check\n") == 0, "valid plan: %s", err);
	is_int(plan.nruns, 3, "three runs");
	is_str(plan.runs[0].name, "thp-fault", "first workload");
	is_int(plan.runs[0].argc, 3, "argc counts the name");
	is_str(plan.runs[0].argv[2], "4", "argument (CR dropped)");
	ok(plan.runs[0].argv[3] == NULL, "argv NULL-terminated");
	is_int(plan.runs[0].thp, PLAN_THP_KEEP, "thp defaults to keep");
	is_int(plan.runs[0].timeout_s, 300, "timeout defaults to 300 s");
	is_int(plan.runs[1].thp, PLAN_THP_NEVER, "thp applies to later runs");
	is_int(plan.runs[1].timeout_s, 7, "timeout applies to later runs");
	is_int(plan.runs[1].argc, 5, "blanks and tabs separate words");
	is_str(plan.runs[1].argv[0], "mremap", "argv[0] is the name");
	is_int(plan.runs[2].thp, PLAN_THP_KEEP, "thp keep");
	is_int(plan.swap, PLAN_SWAP_FILE, "swap file");
	is_str(plan.swap_path, "/swapfile", "swap path");
	is_int(plan.swap_mb, 128, "swap size");
	ok(plan.memory_mib == 1024 && plan.vcpus == 2, "machine: memory, vCPUs");
	is_str(plan_clock_str(plan.clock), "instructions", "clock");
	ok(parse("kregress-plan 1\nrun x\n") == 0 &&
	   plan.clock == PLAN_CLOCK_REAL, "real time unless the plan says");
	is_str(plan_thp_str(PLAN_THP_MADVISE), "madvise", "thp names");
	is_str(plan_swap_str(PLAN_SWAP_ZRAM), "zram", "swap names");

	bad("", "empty plan", "empty");
	bad("run thp-fault\n", "kregress-plan 1", "header missing");
	bad("kregress-plan 2\nrun x\n", "version", "future version");
	bad("kregress-plan 1\n", "runs nothing", "no runs");
	bad("kregress-plan 1\nfrobnicate\n", "line 2: unknown directive",
	    "unknown directive");
	bad("kregress-plan 1\nrun ../../bin/sh\n", "bad workload name",
	    "path in workload name");
	bad("kregress-plan 1\nrun\n", "name missing", "run without name");
	bad("kregress-plan 1\nrun x \x01\n", "not printable", "control byte");
	bad("kregress-plan 1\nthp sometimes\nrun x\n", "thp:", "bad thp");
	bad("kregress-plan 1\nclock cycles\nrun x\n", "clock: expected real "
	    "or instructions", "bad clock");
	bad("kregress-plan 1\nmachine 32 1\nrun x\n", "machine:",
	    "a guest too small");
	bad("kregress-plan 1\nmachine 512 0\nrun x\n", "machine:",
	    "no vCPU");
	bad("kregress-plan 1\nmachine 512\nrun x\n", "machine:",
	    "machine without vCPUs");
	bad("kregress-plan 1\ntimeout 0\nrun x\n", "timeout", "zero timeout");
	bad("kregress-plan 1\ntimeout 99999999999\nrun x\n", "timeout",
	    "huge timeout");
	bad("kregress-plan 1\ntimeout -1\nrun x\n", "timeout",
	    "negative timeout");
	bad("kregress-plan 1\nswap zram\nrun x\n", "swap:", "zram size");
	bad("kregress-plan 1\nswap file rel 5\nrun x\n", "swap:",
	    "relative swap path");
	bad("kregress-plan 1\nswap zram 0\nrun x\n", "swap:", "zero swap");
	ok(plan_parse(&plan, "kregress-plan 1\nrun a\0b\n", 24, err,
		      sizeof(err)) == -1 && strstr(err, "NUL"), "NUL byte: %s",
	   err);
	strcpy(big, "kregress-plan 1\nrun x");
	for (i = 0; i < PLAN_ARGS_MAX + 1; i++)
		strcat(big, " a");
	bad(big, "more than 32 arguments", "too many arguments");
	strcpy(big, "kregress-plan 1\n");
	for (i = 0; i < PLAN_RUNS_MAX + 1; i++)
		strcat(big, "run x\n");
	bad(big, "more than 64 runs", "too many runs");
	strcpy(big, "kregress-plan 1\nrun x ");
	n = strlen(big);
	memset(big + n, 'a', PLAN_LINE_MAX);
	big[n + PLAN_LINE_MAX] = 0;
	bad(big, "longer than", "line too long");
	memset(big, '#', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	bad(big, "larger than", "plan too large");

	/* The kernel command line form. */
	ok(plan_parse_cmdline(&plan, "kregress-plan 1;thp never;"
			      "run mremap --pud-mb 8", err, sizeof(err)) == 0,
	   "cmdline plan: %s", err);
	ok(plan.nruns == 1 && plan.runs[0].thp == PLAN_THP_NEVER &&
	   plan.runs[0].argc == 3, "cmdline plan content");
	is_int(plan_cmdline_get("quiet kregress.nonce=ab12 x=1", "kregress.nonce",
				val, sizeof(val)), 1, "cmdline key found");
	is_str(val, "ab12", "cmdline value");
	is_int(plan_cmdline_get("a kregress.plan=\"kregress-plan 1;run x -y 1\""
				" console=ttyS0", "kregress.plan", val,
				sizeof(val)), 1, "quoted value found");
	is_str(val, "kregress-plan 1;run x -y 1", "quotes removed, blanks kept");
	is_int(plan_cmdline_get("xkregress.nonce=1 kregress.noncex=2",
				"kregress.nonce", val, sizeof(val)), 0,
	       "key must match a whole word");
	is_int(plan_cmdline_get("kregress.nonce=0123456789", "kregress.nonce",
				val, 5), -1, "value too long for buffer");
	is_int(plan_cmdline_get("", "k", val, sizeof(val)), 0, "empty cmdline");
	is_int(plan_cmdline_get("k=\"unterminated", "k", val, sizeof(val)), 1,
	       "unterminated quote tolerated");
	is_str(val, "unterminated", "value up to the end");
	return done_testing();
}
