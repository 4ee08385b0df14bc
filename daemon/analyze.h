/*
 * analyze.h - from a run's raw samples to one comparison per metric.
 *
 * Pure code (no I/O, no SQL): the analyze stage (stage_analyze.c) feeds
 * the samples of a run's complete boots in, grouped by (workload, metric,
 * params) and within a group by boot; each boot's iterations are reduced
 * to their median, because boots, not iterations, are the independent
 * unit (DESIGN.md §6).  analyze_set_compare() then runs stats.c on the
 * per-boot medians of base against patched, and analyze_adjust() adjusts
 * the p-values across every metric of a series (all its runs): Holm
 * always, plus the configured method for p_adjusted.
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
struct strbuf;

#define ANALYZE_MAX_METRICS	4096	/* per run */
#define ANALYZE_MAX_ITERATIONS	100000	/* per boot and metric */
#define ANALYZE_MAX_NAME	256	/* bytes of workload, metric, unit */
#define ANALYZE_MAX_PARAMS	4096	/* bytes of the params JSON text */

enum analyze_side {
	ANALYZE_BASE,
	ANALYZE_PATCHED,
};

enum analyze_fdr {
	ANALYZE_FDR_BH,		/* Benjamini-Hochberg */
	ANALYZE_FDR_HOLM,
	ANALYZE_FDR_NONE,	/* p_adjusted = p */
};

/* "bh", "holm", "none"; -1 if unknown. */
int analyze_fdr_parse(const char *s, enum analyze_fdr *out);

/* One metric of a run: its per-boot medians and, later, its result. */
struct analyze_metric {
	char *workload;
	char *metric;
	char *params;		/* JSON text, as stored */
	char *unit;
	enum stats_direction direction;
	double *v[2];		/* per-boot medians, [enum analyze_side] */
	size_t n[2], alloc[2];
	struct stats_result r;	/* after analyze_set_compare() */
	double threshold;	/* the practical threshold it was decided at */
	long long calibration_id;	/* in force for it; 0 = none */
	double p_adjusted;	/* NAN when r.p is NAN */
	double p_holm;
};

struct analyze_set {
	struct analyze_metric *m;	/* in the order first seen */
	size_t n, alloc;
	/* The calibrations of the run's hosts (calib.h), or NULL: each
	 * metric's threshold and noise reference, as the run's looks had
	 * them.  Set by the caller before analyze_set_compare(). */
	const struct calib_table *calib;
	/* The (metric, boot) whose iterations are being collected. */
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
 * sample of a group must have the same unit and direction.  0, or -1
 * with the reason appended to err (not logged): a non-finite value, an
 * unknown or differing direction, a differing unit, a name or params
 * over the caps, too many metrics or iterations, bad order.
 */
int analyze_add(struct analyze_set *s, const char *workload,
		const char *metric, const char *params, const char *unit,
		const char *direction, enum analyze_side side,
		long long boot, double value, struct strbuf *err);

/* Ends the input: the last boot's iterations are reduced. */
void analyze_set_finish(struct analyze_set *s);

/*
 * Compares every metric of the set with the options o (its direction
 * replaces o->direction; s->calib, when set, raises its threshold and
 * gives its noise reference).  -1 only when stats.c refuses the input
 * (logged by stats.c).
 */
int analyze_set_compare(struct analyze_set *s, const struct stats_opts *o);

/*
 * Adjusts the p-values of every compared metric of the nsets sets
 * together: p_holm by Holm, p_adjusted by method.  Metrics without a p
 * (insufficient data) take no part and keep NAN.
 */
void analyze_adjust(struct analyze_set *sets, size_t nsets,
		    enum analyze_fdr method);

/* A direction as stored in the database: "lower" or "higher". */
const char *analyze_direction_str(enum stats_direction d);

/* The flags of a result as stored: "", "noisy", "noisy,suspicious". */
const char *analyze_flags_str(unsigned int flags);

#endif
