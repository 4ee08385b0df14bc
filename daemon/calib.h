/*
 * calib.h - what an A/A calibration says about a host (pure: no I/O).
 *
 * A calibration boots the base kernel against itself in the runs' ABBA
 * design (calibrate.c); this file turns its per-boot values into what
 * the runs of that host, arch, plan and clock need to know, per metric:
 *
 * - the noise: the coefficient of variation over every boot (both sides
 *   are the same kernel);
 * - the real A/A comparisons: the boots replayed, in their order, through
 *   the runs' sequential design (a look after each round, stats_seq's
 *   alpha, the budget, the stop when every primary metric is decisive),
 *   one comparison after the other while boots last;
 * - resampled A/A runs: whole boots drawn with replacement (so that the
 *   metrics of one boot stay together), the same design, many times;
 * - the thresholds: resolve, the half-width that the final look's
 *   interval keeps inside in `coverage` of the resampled runs (so that
 *   no-change is reachable at the budget), and alarm, the largest change
 *   that a significant look showed in more than `target` of them (so
 *   that no look, wherever a run stops, calls a change beyond it more
 *   often than that); a run's threshold for the metric is the largest of
 *   the configured one, resolve and alarm;
 * - with that threshold, the false alarms (a final verdict of
 *   regression, improvement or likely-*) and the boots per side at the
 *   stop of resampled A/A runs, and the smallest change that the budget
 *   detects with `power`.
 *
 * calib_table is what runs and their analysis read: per metric key, the
 * threshold floor and noise reference of the calibrations in force.
 */
#ifndef KREGRESS_CALIB_H
#define KREGRESS_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "analyze.h"
#include "stats.h"

struct sample;

/* One metric of a calibration. */
struct calib_metric {
	char *key;		/* sample_key(): "workload metric params" */
	char *workload, *metric, *params, *unit;
	enum stats_direction direction;
	int primary;
};

/* One complete boot: a value per metric (NAN where it gave none). */
struct calib_boot {
	unsigned int seq;	/* position in the ABBA order */
	enum analyze_side side;
	double ms;		/* wall time of the boot; NAN if unknown */
	double *v;		/* [nm]: the median of its iterations */
};

struct calib_data {
	struct calib_metric *m;
	size_t nm, am;
	struct calib_boot *b;	/* in the order added */
	size_t nb, ab;
};

#define CALIB_MAX_METRICS	1024
#define CALIB_MAX_BOOTS		100000

void calib_data_init(struct calib_data *d);
void calib_data_release(struct calib_data *d);

/*
 * Adds a complete boot from its sample records (the iterations of each
 * key reduced to their median by analyze_group_boot(), as for a run).
 * 0, or -1 when a cap is reached or the records cannot be compared
 * (nothing added).
 */
int calib_data_add_boot(struct calib_data *d, unsigned int seq,
			enum analyze_side side, double ms,
			const struct sample *s, size_t n);

/*
 * Adds a boot's value of one metric (the replay of stored per-boot
 * values); boot is an index returned by calib_data_new_boot().  -1 at a
 * cap.
 */
int calib_data_new_boot(struct calib_data *d, unsigned int seq,
			enum analyze_side side, double ms, size_t *boot);
int calib_data_set(struct calib_data *d, size_t boot, const char *workload,
		   const char *metric, const char *params, const char *unit,
		   enum stats_direction direction, int primary, double value);

/* The design of the runs a calibration stands for, and its own knobs. */
struct calib_design {
	struct stats_opts stats;	/* threshold (configured), alpha,
					 * min_samples, as the runs */
	size_t budget;		/* the runs' boots per side; 10 when 0 */
	size_t pairs;		/* pairs per round; 2 when 0 (runner.c) */
	size_t simulations;	/* resampled A/A runs; 0 = none */
	double target;		/* false-alarm rate aimed at: 0.01 */
	double coverage;	/* runs whose final interval fits: 0.9 */
	double power;		/* detection, for detectable: 0.8 */
	uint64_t seed;		/* of the resampling */
};

/* Fills d with the defaults above (stats_opts_init() for the rest). */
void calib_design_init(struct calib_design *d);

struct calib_result {
	size_t n;		/* boots with a value */
	double median, cv;	/* cv NAN below 2 boots or a mean <= 0 */
	/* resampled A/A runs of the design, at threshold */
	size_t comparisons, false_alarms, significant;
	double stop_mean;	/* boots per side at the stop */
	/* the real boots replayed: complete comparisons, and one that
	 * the boots ran out in (neither stopped nor at the budget) */
	size_t real_comparisons, real_false_alarms, real_truncated;
	double real_stop_mean;	/* boots per side at their stops */
	enum stats_verdict real_verdict;	/* of the first complete one */
	int have_real;
	double resolve, alarm;	/* fractions; NAN: no resampling */
	double threshold;	/* max(configured, resolve, alarm) */
	double detectable;	/* fraction; NAN: not up to 100% */
};

/*
 * Computes every result above, one per metric of d into out[0..d->nm).
 * Deterministic for a given design (seed).  -1 for an invalid design
 * (logged by stats.c) or no boots.
 */
int calib_compute(const struct calib_data *d, const struct calib_design *o,
		  struct calib_result *out);

/* A false alarm: a verdict that calls a change beyond the threshold. */
int calib_false_alarm(enum stats_verdict v);

/*
 * How the design fares with a real change: every metric's values on the
 * patched side multiplied by 1 + change, resampled runs of the design at
 * threshold[m] (out[m].threshold of calib_compute()).
 */
struct calib_shift {
	double decided;		/* runs where it became decisive */
	double detected;	/* ... where that verdict found the change */
	double n_median;	/* boots per side at its first decisive look,
				 * over the runs where it became decisive;
				 * NAN if none did */
};

int calib_shift(const struct calib_data *d, const struct calib_design *o,
		const double *threshold, double change, size_t runs,
		struct calib_shift *out);

/* What runs and analyses read: per metric key, the calibrations' word. */
struct calib_entry {
	char *key;		/* sample_key() */
	long long calibration_id;
	double floor;		/* max(resolve, alarm); 0 = none */
	double cv;		/* the noise reference */
	size_t n;		/* its boots */
	int failed;		/* false alarms above the target */
};

struct calib_table {
	struct calib_entry *e;
	size_t n, alloc;
};

void calib_table_init(struct calib_table *t);
void calib_table_release(struct calib_table *t);

/*
 * Adds a calibration's word on one metric.  Two calibrations of one key
 * (a run over several hosts) merge to the noisier: the larger floor and
 * its calibration id, the larger cv with its n, failed if either.
 */
void calib_table_add(struct calib_table *t, const struct calib_entry *e);

/*
 * The options of one metric: o->threshold raised to the floor, the noise
 * reference set (stats.h, ref_*).  Returns the id of the calibration in
 * force for the key (the one with the larger floor), 0 when none knows
 * it (o is left alone).
 */
long long calib_table_apply(const struct calib_table *t, const char *key,
			    struct stats_opts *o);

#endif
