/*
 * runner.h - one A/B comparison carried out on libvirt hosts: rounds of
 * base and patched boots in seeded ABBA order, spread over the hosts,
 * failed boots retried once, hosts that keep failing dropped, and after
 * each round the statistics asked whether more boots are needed.
 *
 * The runner owns no storage: every finished boot (and its per-boot
 * samples) is handed to on_boot(), where the daemon writes it to the
 * database and the CLI prints it.  Boots run on worker threads, as many as
 * the hosts' capacities allow, counted across every run of the process
 * (two series never share a host beyond its capacity); runner_run()
 * blocks until the comparison is decided, the budget is spent, or no
 * healthy host is left.
 */
#ifndef KREGRESS_RUNNER_H
#define KREGRESS_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze.h"
#include "sample.h"
#include "schedule.h"
#include "stats.h"
#include "vm.h"

#define RUNNER_THREADS_MAX	16

struct runner_host {
	struct vm_host *vm;		/* opened by the caller */
	struct schedule_host sched;	/* arch, accel, capacity, health */
};

/* What on_start() and on_boot() are told about each attempt; on_start()
 * gets it before the boot, with vm NULL and no outcome yet. */
struct runner_boot {
	unsigned int round;
	unsigned int order;	/* position in the whole run, from 0 */
	enum analyze_side side;
	int attempt;		/* 1, or 2 for the retry */
	const char *host;	/* URI */
	const char *nonce;
	const char *console_log;
	const struct vm_result *vm;
	int complete;		/* result protocol complete: samples count */
	int host_failure;	/* libvirt or the hypervisor failed (the
				 * guest never really ran), not the kernel */
	const char *reason;	/* why not, "" if it did */
	size_t nsamples;	/* per-boot metric values added */
	/* Every sample record of a complete boot, iterations included
	 * (valid during on_boot() only); NULL and 0 otherwise. */
	const struct sample *samples;
	size_t nrecords;
};

struct runner_spec {
	const char *kernel[2];	/* [ANALYZE_BASE], [ANALYZE_PATCHED] */
	const char *initrd[2];
	const char *plan_cmdline;	/* kregress.plan="..." */
	const char *extra_cmdline;	/* may be NULL */
	const struct arch *arch;
	int accel;		/* enum arch_accel, or -1 for any */
	unsigned int memory_mib, vcpus, timeout_s;
	int icount;		/* instruction time (vm.h); TCG hosts only */
	uint64_t seed;		/* of the ABBA order; record it */
	size_t pairs_per_round;	/* 0 = 2, one ABBA block */
	size_t max_per_side;	/* budget; 0 = 10 */
	struct stats_opts stats;	/* threshold, alpha (the overall one) */
	/* The hosts' calibrations (calib.h), or NULL: each look raises a
	 * metric's threshold and takes its noise reference from them
	 * (analyze_set.calib).  Read under the runner's lock. */
	const struct calib_table *calib;
	const char *log_dir;	/* console logs; required */
	/* Both called with the runner's process-wide lock held, so never
	 * at once, not even for two runs. */
	void (*on_start)(void *opaque, const struct runner_boot *b);
	void (*on_boot)(void *opaque, const struct runner_boot *b);
	void *opaque;
	/* Once *stop is non-zero (a signal handler sets it), no boot
	 * starts; the run ends RUNNER_STOPPED when those under way end. */
	const volatile sig_atomic_t *stop;
};

enum runner_end {
	RUNNER_DECIDED,		/* every primary metric (every metric when
				 * none is primary) reached a decisive
				 * verdict: regression, improvement, minor
				 * or no-change */
	RUNNER_BUDGET,		/* max_per_side spent */
	RUNNER_NO_HOST,		/* no healthy host left for the arch */
	RUNNER_NO_SAMPLES,	/* a side produced no usable boot at all */
	RUNNER_STOPPED,		/* *spec->stop was set */
};

const char *runner_end_str(enum runner_end end);

struct runner_report {
	enum runner_end end;
	unsigned int rounds;
	unsigned int boots, failed_boots, retries;
	/* Every metric's per-boot values (boot = order), compared at the
	 * last look; sorted by workload, metric and params. */
	struct analyze_set set;
};

/*
 * A boot outside a run (a host probe) takes one place of the host's
 * capacity, waiting until one is free, and gives it back after; the
 * runs' boots count against the same places (see runner.c).
 */
void runner_place_take(const char *uri, const struct arch *arch,
		       unsigned int capacity);
void runner_place_give(const char *uri, const struct arch *arch);

/*
 * The run's rounds (pure; runner_run()'s own, exposed so that
 * tests/unit/t-stats-sim.c simulates the design the daemon runs): the
 * budget is max_per_side boots a side (0: 10), and the round after done
 * boots a side adds pairs_per_round of them (0: 2, one ABBA block), fewer
 * at the budget's end, none once it is spent.  After each round the run
 * takes analyze_set_look() at n, the smaller side's usable boots, with a
 * stats_seq_init() design of (stats.alpha, runner_budget()).
 */
size_t runner_budget(const struct runner_spec *spec);
size_t runner_round(const struct runner_spec *spec, size_t done);

/*
 * Runs the comparison.  Returns 0 with *rep filled (release it with
 * runner_report_release()), -1 on a bad spec (logged).  Boot failures
 * are results, reported through on_boot() and rep->failed_boots.
 */
int runner_run(const struct runner_spec *spec, struct runner_host *hosts,
	       size_t nhosts, struct runner_report *rep);

void runner_report_release(struct runner_report *rep);

/*
 * Adds the sample records of one boot's console log to set as side's
 * values of boot (pure; exposed for tests): analyze_add_boot(), one
 * median per workload, metric and params.  Returns the number of
 * per-boot values added, or -1 with the reason if the log is not a
 * complete result or its samples cannot be compared.
 */
int runner_add_samples(struct analyze_set *set, enum analyze_side side,
		       long long boot, const char *log, size_t len,
		       const char *nonce, char *reason, size_t reason_size);

#endif
