/*
 * plan.h - the workload plan: what the guest /init (and `kregress bench
 * --native`) runs, in a small line format.
 *
 *	# comments and blank lines are ignored
 *	kregress-plan 1			first directive, required
 *	machine 2048 2			the guest: memory in MiB, vCPUs
 *					  (default: the runner's, 256 and 1)
 *	swap none			| zram <MiB> | file <path> <MiB>
 *	thp always			| madvise | never | keep; applies to
 *					  the runs that follow it
 *	timeout 300			seconds per run; applies to the
 *					  runs that follow (default 300)
 *	clock instructions		| real (default): how an emulated
 *					  (TCG) guest keeps time; read by
 *					  the runner, not by the guest
 *	run thp-fault --size-mb 100 --iterations 10
 *
 * Words are separated by blanks; there is no quoting (no argument needs
 * one).  A workload name is [a-z0-9-], at most PLAN_NAME_MAX bytes; an
 * argument is printable ASCII without blanks.  On the kernel command line
 * the same text is given as kregress.plan="line;line;..." (';' ends a
 * line; the value may be double-quoted).
 *
 * Pure code with no allocation and no library: the static guest /init
 * compiles this file as it is.  All limits are compile-time caps.
 */
#ifndef KREGRESS_PLAN_H
#define KREGRESS_PLAN_H

#include <stddef.h>

#define PLAN_TEXT_MAX	16384	/* bytes of plan text */
#define PLAN_LINE_MAX	1024
#define PLAN_RUNS_MAX	64
#define PLAN_ARGS_MAX	32	/* arguments of one run, without the name */
#define PLAN_NAME_MAX	32
#define PLAN_PATH_MAX	128

enum plan_thp {
	PLAN_THP_KEEP,		/* leave the kernel's setting alone */
	PLAN_THP_ALWAYS,
	PLAN_THP_MADVISE,
	PLAN_THP_NEVER,
};

/*
 * Real time is what a user feels.  Instruction time (QEMU's -icount
 * shift=0,sleep=off: one nanosecond per guest instruction) makes an
 * emulated guest's clock a deterministic function of the instructions it
 * executed: per-boot noise falls from percents to hundredths of a
 * percent, and it sees algorithmic cost (a page cleared twice, 512 PMD
 * moves instead of one PUD move), not caches or memory.  Only TCG has it.
 */
enum plan_clock {
	PLAN_CLOCK_REAL,
	PLAN_CLOCK_INSTRUCTIONS,
};

enum plan_swap {
	PLAN_SWAP_NONE,
	PLAN_SWAP_ZRAM,
	PLAN_SWAP_FILE,
};

struct plan_run {
	char name[PLAN_NAME_MAX + 1];
	enum plan_thp thp;
	unsigned timeout_s;
	int argc;
	char *argv[PLAN_ARGS_MAX + 2];	/* name, args, NULL; into buf */
	char buf[PLAN_LINE_MAX];
};

struct plan {
	unsigned memory_mib;		/* "machine"; 0 = the runner's */
	unsigned vcpus;			/* "machine"; 0 = the runner's */
	enum plan_clock clock;		/* "clock"; real when absent */
	enum plan_swap swap;
	unsigned swap_mb;		/* size of the zram disk or file */
	char swap_path[PLAN_PATH_MAX + 1];	/* PLAN_SWAP_FILE only */
	int nruns;
	struct plan_run runs[PLAN_RUNS_MAX];
};

const char *plan_thp_str(enum plan_thp thp);
const char *plan_swap_str(enum plan_swap swap);
/* "real" or "instructions", as in the plan. */
const char *plan_clock_str(enum plan_clock clock);

/*
 * Parses len bytes of plan text into *plan (which the caller provides;
 * it is about 70 KiB, so not on a small stack).  Returns 0, or -1 with a
 * message such as "line 3: unknown directive 'foo'" in err.
 */
int plan_parse(struct plan *plan, const char *text, size_t len,
	       char *err, size_t errsz);

/*
 * Finds key=value in a kernel command line (value may be "quoted") and
 * copies the value to out.  Returns 1 if found, 0 if absent, -1 if the
 * value does not fit in outsz.
 */
int plan_cmdline_get(const char *cmdline, const char *key,
		     char *out, size_t outsz);

/*
 * Parses a plan given on the kernel command line: ';' ends a line.
 * Same contract as plan_parse().
 */
int plan_parse_cmdline(struct plan *plan, const char *value,
		       char *err, size_t errsz);

#endif
