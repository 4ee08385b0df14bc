/*
 * stats.h - noise or significant?  The statistics behind every verdict.
 *
 * Pure code: no I/O, no globals, no logging except for invalid arguments.
 * stats.c is the only user of GSL in the tree (distribution functions and
 * the seeded random number generator of the bootstrap).
 *
 * Conventions used by every function here:
 * - "base" is the reference side, "new" the patched side;
 * - a change is new/base - 1 as a fraction (0.05 = 5% larger values);
 * - whether a larger value is worse is the metric's direction;
 * - alpha is two-sided; confidence intervals have level 1 - alpha.
 */
#ifndef KREGRESS_STATS_H
#define KREGRESS_STATS_H

#include <stddef.h>

enum stats_direction {
	STATS_LOWER_IS_BETTER,	/* times, latencies */
	STATS_HIGHER_IS_BETTER,	/* throughputs */
};

const char *stats_direction_str(enum stats_direction d);
/* Parses "lower"/"lower-is-better"/"higher"/...; -1 if unknown. */
int stats_direction_parse(const char *s, enum stats_direction *out);

enum stats_verdict {
	STATS_INSUFFICIENT_DATA,
	STATS_INCONCLUSIVE,
	STATS_NO_CHANGE,
	STATS_MINOR,
	STATS_LIKELY_REGRESSION,
	STATS_LIKELY_IMPROVEMENT,
	STATS_REGRESSION,
	STATS_IMPROVEMENT,
};

const char *stats_verdict_str(enum stats_verdict v);

#define STATS_FLAG_NOISY	0x1
#define STATS_FLAG_SUSPICIOUS	0x2

struct stats_opts {
	double threshold;	/* practical threshold T, fraction; 0.03 */
	double alpha;		/* two-sided significance level; 0.05 */
	size_t min_samples;	/* per side, below: insufficient-data; 3 */
	int bootstrap;		/* resamples of the bootstrap CI, 0 = none */
	unsigned long seed;	/* of the bootstrap's generator */
	double noisy_cv;	/* CV (sd/mean) above which a side is noisy */
	double noisy_cv_ratio;	/* CV ratio between sides above: noisy */
	double suspicious_cv_ratio; /* ... and above this: suspicious */
	/* The clock repeats exactly (instruction time, plan.h): equal
	 * values are what it gives, not a sign of a coarse timer, so a
	 * small or zero sd is never "suspicious". */
	int repeatable;
	/* The host's A/A calibration of this metric (calib.h), when there
	 * is one: "noisy" then means noisier than the host is (a CV above
	 * ref_cv by more than chance allows, and above a tenth of the
	 * threshold), not a CV above noisy_cv or a look of several modes
	 * (the calibration saw the host's modes); ref_failed, the
	 * calibration saw more false alarms than its target, is noisy
	 * too. */
	size_t ref_n;		/* boots behind ref_cv; 0 = no calibration */
	double ref_cv;
	int ref_failed;
	enum stats_direction direction;
};

/* Defaults: T 3%, alpha 0.05, 3 samples, 2000 resamples, seed 1. */
void stats_opts_init(struct stats_opts *o);

/* Published summary numbers of one side. */
struct stats_summary {
	double mean;
	double sd;		/* NAN when the source gave none */
	size_t n;
};

/* Mann-Whitney U test, two-sided. */
struct stats_mw {
	double u;		/* U of the first sample (base), midranks */
	double z;		/* normal approximation; 0 when exact */
	double p;
	int exact;		/* exact null: "exact" or "permutation" */
	const char *method;	/* "exact", "permutation" or "normal" */
	double p_min;		/* smallest p the sample sizes can give */
	size_t null_bytes;	/* peak heap of its null distribution */
};

/*
 * The null distribution of U, chosen by the data (the same rule for the
 * test, the Hodges-Lehmann interval and the verdict):
 * - no ties, min(m, n) <= 150 and m n <= 10^6: exact, Harding's product
 *   of the Gaussian binomial (accurate to 1e-13 there, measured against
 *   integer arithmetic; beyond 150 a side it loses digits at the centre);
 * - no ties, both sides > 150 and m n <= 10^6: exact, by inverting the
 *   characteristic function (absolute error about 1e-15, so a p below
 *   1e-12 is that accurate in absolute terms only);
 * - ties and (m + n) min(m, n) m n <= 3 10^7 (60 x 60, 20 x 200,
 *   5 x 1,000): the exact permutation distribution of the midrank U given
 *   the ties (SciPy's permutation_test);
 * - otherwise the normal approximation with tie and continuity
 *   correction (SciPy's method="asymptotic").
 */
#define STATS_MW_EXACT_SIDE	150
#define STATS_MW_EXACT_CELLS	1000000
#define STATS_MW_PERM_WORK	30000000

/*
 * Computes U and the two-sided p-value (as SciPy's mannwhitneyu with the
 * method above, p = 2 min(P(U' <= U), P(U' >= U)) clipped to 1; with
 * ties the permutation distribution is not symmetric).  -1 if a side
 * is empty.
 */
int stats_mann_whitney(const double *a, size_t na, const double *b,
		       size_t nb, struct stats_mw *out);

/*
 * Exact null distribution of U without ties: P(U <= u) for sizes m, n
 * (Harding's product or the inversion, as above); NAN beyond m n = 10^6.
 */
double stats_mw_cdf(double u, size_t m, size_t n);

/* Welch's t; estimates and interval as ratios new/base. */
struct stats_welch {
	double t;		/* of new minus base */
	double df;		/* Welch-Satterthwaite */
	double p;		/* two-sided */
	double ratio;		/* point estimate of new/base */
	double lo, hi;		/* CI of the ratio at level 1 - alpha */
	double diff_lo, diff_hi; /* CI of new - base (summary form only) */
};

/*
 * Welch's t on the logarithms of the values: the ratio of geometric
 * means with its CI.  All values must be > 0 and each side needs n >= 2
 * (-1 otherwise).
 */
int stats_welch_log(const double *base, size_t nb, const double *new,
		    size_t nn, double alpha, struct stats_welch *out);

/*
 * Welch's t from published summaries (t, df, p and the CI of the
 * difference new - base as SciPy's ttest_ind_from_stats(equal_var=False):
 * one procedure, so that p < alpha exactly when that CI excludes 0).  The
 * ratio and its CI (delta method on log(mean_new / mean_base), variance
 * sd_b^2/(n_b mean_b^2) + sd_n^2/(n_n mean_n^2), Welch-Satterthwaite df
 * from those two terms) are a cross-check, NAN unless both means are
 * positive.  Needs n >= 2 and a known sd >= 0 (-1 otherwise).
 */
int stats_welch_summary(const struct stats_summary *base,
			const struct stats_summary *new, double alpha,
			struct stats_welch *out);

/* Hodges-Lehmann shift new - base and the CI that inverts Mann-Whitney. */
struct stats_hl {
	double shift;		/* median of all pairwise new_j - base_i */
	double lo, hi;		/* at level >= 1 - alpha */
	size_t rank_lo;		/* lo: the rank_lo-th smallest difference */
	size_t rank_hi;		/* hi: the rank_hi-th largest */
};

/*
 * O((m + n) log) in time, no pairwise array: order statistics of the
 * pairwise differences are found by bisection over the doubles with a
 * linear two-pointer count.  rank_lo is the smallest k with
 * P(U <= k) >= alpha/2, rank_hi the smallest k with P(U >= mn - k) >=
 * alpha/2, under the null distribution stats_mann_whitney uses (R's
 * wilcox.test rule when exact; the two differ only with ties), at least 1.
 */
int stats_hodges_lehmann(const double *base, size_t nb, const double *new,
			 size_t nn, double alpha, struct stats_hl *out);

/* Seeded bootstrap of median(new) / median(base). */
struct stats_boot {
	double ratio;		/* observed ratio of medians */
	double lo_pct, hi_pct;	/* percentile interval */
	double lo_bca, hi_bca;	/* bias-corrected and accelerated */
	double z0, accel;	/* BCa's bias correction and acceleration */
	int resamples;
	unsigned long seed;
};

/*
 * Each resample's median is drawn exactly (same distribution as sorting a
 * resample with replacement) by descending the sorted sample with binomial
 * splits: O(log n) per median instead of O(n).  Medians must be > 0.
 */
int stats_bootstrap_median_ratio(const double *base, size_t nb,
				 const double *new, size_t nn, double alpha,
				 int resamples, unsigned long seed,
				 struct stats_boot *out);

/* Holm step-down and Benjamini-Hochberg adjusted p-values, in place order. */
void stats_holm(const double *p, size_t n, double *adj);
void stats_bh(const double *p, size_t n, double *adj);

/* Everything kregress says about one metric. */
struct stats_result {
	enum stats_verdict verdict;
	unsigned int flags;	/* STATS_FLAG_* */
	const char *test;	/* "mann-whitney" or "welch-summary" */
	const char *center;	/* what center_*: "median" or "mean" */
	const char *estimate;	/* what change and its CI are (below) */
	size_t n_base, n_new;
	double center_base;	/* median (samples) or mean (summaries) */
	double center_new;
	double cv_base, cv_new;	/* sd / mean; NAN if unknown */
	double change;		/* estimate of new/base - 1 */
	double ci_lo, ci_hi;	/* its CI; NAN when no test was possible */
	double p;		/* of the significance test */
	double alpha;		/* the level used */
	/* inconclusive: the data rule out a worsening above worse_max and
	 * an improvement above better_max (fractions, >= 0). */
	double worse_max, better_max;
	struct stats_mw mw;
	struct stats_welch welch;
	struct stats_hl hl;	/* on log values when hl_log */
	struct stats_boot boot;
	int have_mw, have_welch, have_hl, have_boot, hl_log;
	char why[320];		/* reasons: insufficient data, flags */
};

/*
 * Compares raw samples (one value per boot) with one procedure: the
 * change is the Hodges-Lehmann estimate on log values (the median of the
 * ratios new_j / base_i of all pairs, minus 1), its CI the one that
 * inverts Mann-Whitney (stats_hodges_lehmann's rank, from the same null
 * distribution as the test), and p the p of that test in which pairs of
 * equal values (one per side) count for no change (= mw.p when no value
 * of one side equals one of the other).  Significant is "the CI excludes
 * 0", which is p < alpha by construction.  With a value <= 0 the same is
 * done on the values, relative to the base median.  Welch on logs and
 * the bootstrap are cross-checks that never change the verdict.  Returns
 * -1 only for invalid input (NaN/inf values, NULL with n > 0); too few
 * samples is the insufficient-data verdict.
 */
int stats_compare_samples(const double *base, size_t nb, const double *new,
			  size_t nn, const struct stats_opts *o,
			  struct stats_result *out);

/*
 * Compares published summaries with Welch's t on the means: the change is
 * mean_new / mean_base - 1, its CI Welch's CI of mean_new - mean_base
 * divided by mean_base, p Welch's (significant = the CI excludes 0 = p <
 * alpha).  sd = NAN is "not given": the verdict is insufficient-data.  -1
 * for invalid numbers (negative sd or n, NaN mean).
 */
int stats_compare_summaries(const struct stats_summary *base,
			    const struct stats_summary *new,
			    const struct stats_opts *o,
			    struct stats_result *out);

/*
 * Turns a significance decision and a CI of the change into a verdict
 * (DESIGN.md section 6).  Exposed for tests and the adaptive loop; the
 * comparisons above pass "the CI excludes 0" as significant.
 */
enum stats_verdict stats_verdict_decide(int significant, double change,
					double lo, double hi, double threshold,
					enum stats_direction d);

/*
 * Adaptive sampling: a group-sequential design with Lan-DeMets alpha
 * spending of the Pocock type, alpha(t) = alpha * ln(1 + (e - 1) t) with
 * t = n / n_max the information fraction.  Each look gets the alpha not
 * yet spent up to its t (Bonferroni over looks, which ignores the
 * correlation between looks and so keeps the overall false-alarm rate at
 * or below alpha).
 */
struct stats_seq {
	double alpha;		/* overall target */
	size_t n_max;		/* budget, samples per side */
	double spent;		/* alpha spent by earlier looks */
	int looks;
};

void stats_seq_init(struct stats_seq *s, double alpha, size_t n_max);
/* The alpha of a look at n samples per side; records it as spent. */
double stats_seq_look(struct stats_seq *s, size_t n);
/*
 * Replays into *s a new design under (alpha, n_max) and the nlooks looks
 * a run took at n[0], n[1], ... samples per side; returns the alpha the
 * last of them had, alpha itself when there was none.  The final
 * analysis of an adaptive run takes the run's last look again on the
 * state the earlier ones left (analyze.h).
 */
double stats_seq_replay(struct stats_seq *s, double alpha, size_t n_max,
			const size_t *n, size_t nlooks);

/*
 * 1 to stop: the verdict is decisive (regression, improvement, minor,
 * no-change) or the budget is spent; 0 to add another round.
 */
int stats_seq_should_stop(const struct stats_seq *s,
			  const struct stats_result *r, size_t n);

#endif
