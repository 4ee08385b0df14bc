/*
 * common.h - what every workload program shares: options, the clock,
 * memory helpers, and the result records it prints.
 *
 * A workload prints one JSON object per line on stdout and nothing else
 * there (diagnostics go to stderr):
 *
 *   {"type":"sample","workload":"mremap","metric":"move_pud","unit":"ns",
 *    "direction":"lower","iteration":0,"value":15089,
 *    "params":{...},"info":{...}}
 *   {"type":"failure","workload":"mremap","reason":"region did not move",
 *    "params":{...}}
 *
 * "params" are the inputs that define the measurement (two samples are
 * comparable only with equal params); "info" is per-iteration context
 * (vmstat deltas, huge pages used) that is recorded but not compared.
 * The caller (the guest /init, or kregress bench --native through it)
 * frames each line; a workload never frames.
 *
 * Exit status: 0 all samples printed; WL_EXIT_REPORTED a failure record
 * was printed; 2 bad arguments.  Anything else is a crash.
 */
#ifndef KREGRESS_WL_COMMON_H
#define KREGRESS_WL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define WL_EXIT_REPORTED	3

#define WL_KIB			1024UL
#define WL_MIB			(1024UL * 1024)
#define WL_GIB			(1024UL * 1024 * 1024)
#define WL_PAGE			4096UL

enum wl_opt_type {
	WL_OPT_UINT,	/* unsigned long */
	WL_OPT_INT,	/* long, may be -1 */
	WL_OPT_STR,	/* const char *, one of choices if set */
};

struct wl_opt {
	const char *name;	/* without "--" */
	enum wl_opt_type type;
	void *ptr;
	const char *choices;	/* WL_OPT_STR: "a|b|c", or NULL for any */
	int param;		/* 1: recorded in "params" */
};

/* Options every workload has; the defaults are set before wl_parse(). */
struct wl_common {
	unsigned long iterations;	/* measured iterations */
	unsigned long warmup;		/* unrecorded iterations first */
	long cpu;			/* pin to this CPU; -1 = no pinning */
};

/*
 * Parses "--name value" options (opts terminated by a NULL name; the
 * common ones are added) and pins the CPU.  Prints usage and exits 2 on a
 * bad argument.  Records every option with param set, and the kernel's THP
 * mode, into the params of later records.
 */
void wl_parse(const char *workload, int argc, char **argv,
	      const struct wl_opt *opts, struct wl_common *common);

/*
 * Nanoseconds of CLOCK_MONOTONIC_RAW.  A clock that cannot be read fails
 * the workload (a failure record), never gives a number.
 */
uint64_t wl_now_ns(void);

/*
 * Nanoseconds of CPU time of the calling thread (user + system), which,
 * unlike the wall clock, does not count time spent waiting for a CPU on
 * a busy host.  Workloads report it as a second metric, "<name>_cpu".
 * Fails the workload when the kernel has no such clock (built without
 * CONFIG_POSIX_TIMERS).
 */
uint64_t wl_cpu_ns(void);

/* Adds "key":value to the params object of later records. */
void wl_param_uint(const char *key, unsigned long value);
void wl_param_str(const char *key, const char *value);

/* Adds "key":value to the info object of the next sample only. */
void wl_info_uint(const char *key, unsigned long value);

/*
 * Prints a sample: direction is "lower" or "higher" (which is better).
 * Iteration counts from 0 over the measured iterations.
 */
void wl_sample(const char *metric, const char *unit, const char *direction,
	       unsigned long iteration, double value);

/*
 * Prints the sample end - start of one clock (wl_now_ns() or wl_cpu_ns()
 * readings) in ns, lower is better; a clock that went backwards fails the
 * workload instead of wrapping around into a huge number.
 */
void wl_sample_interval(const char *metric, unsigned long iteration,
			uint64_t start, uint64_t end);

/*
 * Names the metrics the workload is about (its seed's numbers), NULL
 * ended; their records say "primary":true and they decide when a run has
 * seen enough.  The others explain them (CPU time, maxima, controls).
 * Call once, before the first sample; names are borrowed.
 */
void wl_primary(const char *const *metrics);

/* Prints a failure record with the reason and exits WL_EXIT_REPORTED. */
void wl_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/*
 * Maps len bytes of private anonymous memory at an address aligned to
 * align (a power of two), inside a PROT_NONE reservation of len + 2 *
 * align so neighbours never merge with it.  madv is "none", "hugepage" or
 * "nohugepage".  Fails the workload on error.  Release with wl_unmap().
 */
void *wl_map_aligned(size_t len, size_t align, const char *madv);
void wl_unmap(void *p);
void wl_madvise(void *p, size_t len, const char *madv);

/*
 * For failure reasons: " (the kernel lacks CONFIG_<option>)" when err is
 * the errno (when) that a kernel without that option gives, else "".  The
 * options are the ones daemon/plan_kconfig.c lists for each workload.
 */
const char *wl_lacks(int err, int when, const char *option);

/* The kernel's THP "enabled" mode ("always", ...) or "unknown". */
const char *wl_thp_mode(void);

/* A counter of /proc/vmstat, or 0 if absent. */
unsigned long wl_vmstat(const char *name);

/* Keeps the compiler from proving p's contents unchanged or unused. */
static inline void wl_barrier(const void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif
