/*
 * analyze.h - the per-boot metric set of an A/B comparison, and what is
 * decided from it.
 *
 * Pure code (no I/O, no SQL).  A set holds, for each (workload, metric,
 * params), the per-boot values of the base and the patched side: each
 * boot's iterations reduced to their median, because boots, not
 * iterations, are the independent unit (DESIGN.md §6).  Every user fills
 * the same structure: the runner adds each complete boot's sample records
 * as the boot ends (analyze_add_boot()), the analyze stage and the
 * dashboard stream a run's stored samples in (analyze_add()), `kregress
 * compare` adds the values it reads (analyze_metric_get()), and `kregress
 * bench` prints one boot's groups (analyze_group_boot()).
 *
 * analyze_set_look() is one look of the adaptive design: every metric
 * compared at that look's alpha, and whether the run is decided (every
 * primary metric decisive, a significant one only when it survives the
 * correction for all of them).  The runner stops on it after each round;
 * the analyze stage takes the run's last look again on the stored boots
 * (analyze_set_final(), the earlier looks replayed), so the verdict
 * stored is the one the run stopped on, computed by the same code.
 * analyze_adjust() then adjusts the p-values within each run (one arch
 * on one host is one experiment): Holm always, plus the configured
 * method for p_adjusted.
 *
 * A set may carry the A/A calibrations of its run's hosts (calib.h,
 * analyze_set.calib): every comparison of the set, at each look and in
 * the final one, then raises each metric's threshold to what the host
 * resolves and judges its noise against the host's.
 *
 * The adjusted p-values do not change a verdict: stats.c decides each
 * metric at alpha on its own p, as `kregress compare` does, and the
 * adjusted values are reported next to it (Holm for what is worth an
 * email, the configured method for dashboard lists).
 */
#ifndef KREGRESS_ANALYZE_H
#define KREGRESS_ANALYZE_H

#include <stddef.h>

#include "stats.h"

struct calib_table;
struct sample;
struct strbuf;

#define ANALYZE_MAX_METRICS	4096	/* per run */
#define ANALYZE_MAX_ITERATIONS	100000	/* per boot and metric */
#define ANALYZE_MAX_NAME	256	/* bytes of workload, metric, unit */
#define ANALYZE_MAX_PARAMS	4096	/* bytes of the params JSON text */

/* The two sides of every comparison, and of the boot order. */
enum analyze_side {
	ANALYZE_BASE,
	ANALYZE_PATCHED,
};

/* "base", "patched": as stored (boot.side) and in log names. */
const char *analyze_side_str(enum analyze_side side);

enum analyze_fdr {
	ANALYZE_FDR_BH,		/* Benjamini-Hochberg */
	ANALYZE_FDR_HOLM,
	ANALYZE_FDR_NONE,	/* p_adjusted = p */
};

/* "bh", "holm", "none"; -1 if unknown. */
int analyze_fdr_parse(const char *s, enum analyze_fdr *out);

/* One metric: its per-boot values on each side and, later, its result. */
struct analyze_metric {
	char *workload;
	char *metric;
	char *params;		/* JSON text, as stored */
	char *unit;
	enum stats_direction direction;
	int primary;		/* a metric the workload is about (sample.h) */
	double *v[2];		/* per-boot values, [enum analyze_side] */
	long long *boot[2];	/* the boot of each value, as added */
	size_t n[2], alloc[2];
	struct stats_result r;	/* after a comparison */
	int compared;		/* r holds a result */
	double threshold;	/* the practical threshold it was decided at */
	long long calibration_id;	/* whose threshold; 0 = none */
	double p_adjusted;	/* NAN when r.p is NAN */
	double p_holm;
};

struct analyze_set {
	struct analyze_metric *m;	/* in the order first seen */
	size_t n, alloc;
	/* The calibrations of the run's hosts (calib.h), or NULL: each
	 * metric's threshold floor and noise reference in every
	 * comparison below.  The caller's; set before the first one. */
	const struct calib_table *calib;
	/* analyze_add(): the (metric, boot) whose iterations are being
	 * collected. */
	size_t cur;		/* index into m; valid when open */
	long long cur_boot;
	enum analyze_side cur_side;
	int open;
	double *it;
	size_t nit, ait;
};

void analyze_set_init(struct analyze_set *s);
void analyze_set_release(struct analyze_set *s);

/*
 * Adds one iteration's value.  Samples must arrive grouped by (workload,
 * metric, params) and, inside a group, by boot (consecutive values of
 * one boot): a group seen before and left again is an error.  Every
 * sample of a group must have the same unit and direction; primary marks
 * the metric primary.  0, or -1 with the reason appended to err (not
 * logged): a non-finite value, an unknown or differing direction, a
 * differing unit, a name or params over the caps, too many metrics or
 * iterations, bad order.
 */
int analyze_add(struct analyze_set *s, const char *workload,
		const char *metric, const char *params, const char *unit,
		const char *direction, int primary, enum analyze_side side,
		long long boot, double value, struct strbuf *err);

/* Ends analyze_add()'s input: the last boot's iterations are reduced. */
void analyze_set_finish(struct analyze_set *s);

/* One boot's samples of one (workload, metric, params). */
struct analyze_group {
	const struct sample *first;	/* names, unit, direction */
	double *v;			/* the iterations' values, sorted */
	size_t n;
	double median;
	int primary;			/* any of its samples says so */
};

/*
 * Groups the n sample records of one boot by (workload, metric, params),
 * in the order each group first appears, and reduces each to its median.
 * 0 with *groups (free with analyze_groups_free()) and *ngroups, or -1
 * with the reason appended to err when the samples cannot be compared (a
 * name or params over the caps, a unit or direction differing inside a
 * group, too many iterations).
 */
int analyze_group_boot(const struct sample *s, size_t n,
		       struct analyze_group **groups, size_t *ngroups,
		       struct strbuf *err);
void analyze_groups_free(struct analyze_group *g, size_t n);

/*
 * Adds one complete boot of side to the set: its groups' medians, one
 * value per metric.  Nothing is added when any group is refused (as by
 * analyze_group_boot(), or a unit or direction that differs from the
 * metric's in the set, or too many metrics): -1 with the reason in err.
 * Returns the number of values added.
 */
int analyze_add_boot(struct analyze_set *s, enum analyze_side side,
		     long long boot, const struct sample *samples, size_t n,
		     struct strbuf *err);

/*
 * The metric (workload, metric, params), added with unit "" and lower is
 * better when the set has none; NULL with the reason in err when the set
 * is full.  With analyze_metric_push(), for values that are per-boot
 * already (`kregress compare`'s input).
 */
struct analyze_metric *analyze_metric_get(struct analyze_set *s,
					  const char *workload,
					  const char *metric,
					  const char *params,
					  struct strbuf *err);
void analyze_metric_push(struct analyze_metric *m, enum analyze_side side,
			 long long boot, double value);

/* Sorts the metrics by workload, metric and params (after the input). */
void analyze_set_sort(struct analyze_set *s);

/*
 * Compares every metric with the options o (its direction replaces
 * o->direction; s->calib, when set, raises its threshold and gives its
 * noise reference).  -1 when stats.c refuses the input for some metric
 * (logged by stats.c; that metric is left uncompared).
 */
int analyze_set_compare(struct analyze_set *s, const struct stats_opts *o);

enum analyze_next {
	ANALYZE_MORE,		/* add another round */
	ANALYZE_DECIDED,	/* every metric that decides is decisive */
	ANALYZE_BUDGET,		/* not decided, but the budget is spent */
};

/*
 * One look of the adaptive design seq at n boots per side: every metric
 * compared with o at the alpha stats_seq_look() gives the look.  *next
 * is ANALYZE_DECIDED when every metric that decides (the primary ones;
 * all of them when none is primary) has a decisive verdict (regression,
 * improvement, minor, no-change), a regression or improvement only with
 * p below alpha / k for the k of them that have a p (so that Holm over
 * them, as analyze_adjust() takes it, confirms it), ANALYZE_BUDGET when
 * n reached the budget first, ANALYZE_MORE otherwise (and for an empty
 * set).  -1 as
 * for analyze_set_compare(); an uncompared metric is not decisive.
 */
int analyze_set_look(struct analyze_set *s, struct stats_seq *seq, size_t n,
		     const struct stats_opts *o, enum analyze_next *next);

/* A decisive verdict: regression, improvement, minor or no-change. */
int analyze_decisive(enum stats_verdict v);

/*
 * Whether a verdict v with p, of one of the k metrics that decide a run,
 * holds the run at a look of alpha: a regression or improvement only
 * when it survives the correction for all k (p below alpha / k), any
 * other verdict always.  analyze_set_look()'s rule, for calib.c's
 * simulated runs.
 */
int analyze_confirmed(enum stats_verdict v, double p, size_t k, double alpha);

/*
 * The comparisons of a finished run whose design was (alpha, max_per_side)
 * and which looked nlooks times, at looks[0], looks[1], ... boots per
 * side: the earlier looks replayed, the last one taken again by
 * analyze_set_look(), so each metric is tested at the alpha the run's
 * last look had (the runner spent the rest on its earlier looks).
 * Without a recorded design (alpha 0, max_per_side 0 or no look) every
 * metric is compared at o->alpha.  -1 as for analyze_set_compare().
 */
int analyze_set_final(struct analyze_set *s, const struct stats_opts *o,
		      double alpha, size_t max_per_side, const size_t *looks,
		      size_t nlooks);

/*
 * Adjusts the p-values of the compared metrics of each of the nsets sets
 * (runs) on their own: p_holm by Holm, over the metrics that decide the
 * run for those, over all of the run's metrics for the others;
 * p_adjusted by method over all of the run's metrics.  Metrics without a
 * p (insufficient data) take no part and keep NAN.
 */
void analyze_adjust(struct analyze_set *sets, size_t nsets,
		    enum analyze_fdr method);

/* A direction as stored in the database: "lower" or "higher". */
const char *analyze_direction_str(enum stats_direction d);

/* The flags of a result as stored: "", "noisy", "noisy,suspicious". */
const char *analyze_flags_str(unsigned int flags);

#endif
