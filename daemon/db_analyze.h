/*
 * db_analyze.h - the analyze stage's SQL: which run of each arch a
 * series' analysis uses, that run's samples, and the comparison rows the
 * analysis writes (schema/0005_run.sql).
 *
 * Each function takes the calling thread's struct db and returns 0 or -1
 * (logged as "analyze: ...").
 */
#ifndef KREGRESS_DB_ANALYZE_H
#define KREGRESS_DB_ANALYZE_H

#include <stddef.h>

#include "layout.h"

struct db;

/* The run an arch's analysis uses. */
struct db_analyze_run {
	char *arch;
	long long id;		/* 0: the arch has no finished run */
	char *status;		/* decided, budget, no-host, no-samples */
	long long host_id;	/* the one host of its ok boots; 0 = several */
	int ok[2];		/* boots with status ok: [0] base, [1] patched */
	int failed[2];		/* finished boots that did not end ok */
	int ignored;		/* the arch's running or interrupted runs */
	double alpha;		/* the run's design; 0 = not recorded */
	int repeatable;		/* its clock: instruction time (run.clock) */
	size_t max_per_side;
	/* The run's looks: after each round with complete boots on both
	 * sides, the complete boots per side (the smaller side) so far. */
	size_t *looks;
	size_t nlooks, alloc_looks;
};

/*
 * For every arch that has a run of series_id of that layout (x86_64
 * before arm64: names in descending order), the newest (highest id) such
 * run whose status is neither 'running' nor 'interrupted', with its boot
 * counts.  *runs (free with db_analyze_runs_free()) has *n entries; *n
 * is 0 when the series has no run of that layout at all.
 */
int db_analyze_runs(struct db *db, long long series_id,
		    enum layout layout, struct db_analyze_run **runs,
		    size_t *n);
void db_analyze_runs_free(struct db_analyze_run *runs, size_t n);

/* One sample row of a complete boot. */
struct db_analyze_sample {
	const char *workload, *metric, *params, *unit, *direction;
	int primary;		/* sample.is_primary */
	int patched;		/* the boot's side: 0 base, 1 patched */
	long long boot_id;
	double value;
};

/*
 * Calls fn for every sample of the run's boots with status 'ok', ordered
 * by workload, metric, params, boot and iteration (the strings are valid
 * during the call only).  Stops at the first fn that returns non-zero
 * and returns 1 (fn logs or records why); -1 on a database error.
 */
int db_analyze_samples(struct db *db, long long run_id,
		       int (*fn)(void *arg, const struct db_analyze_sample *s),
		       void *arg);

/* One comparison row; NAN numbers are stored as NULL. */
struct db_comparison {
	const char *arch;
	long long run_id;
	long long host_id;	/* 0 = NULL */
	const char *workload, *metric, *params, *unit, *direction;
	int is_primary;		/* a metric its workload is about */
	long long n_base, n_new;
	double median_base, median_new;
	double change_pct, ci_low_pct, ci_high_pct;	/* percent */
	double ci_level;	/* of the interval: 1 - the alpha tested at */
	double p_value, p_adjusted, p_holm;
	const char *verdict, *flags;
	double threshold_pct;		/* the practical threshold used */
	long long calibration_id;	/* in force for it; 0 = NULL */
};

/*
 * Replaces every comparison row of the series by rows[0..n), in one
 * transaction: an analysis that runs again leaves its own rows only.
 */
int db_analyze_store(struct db *db, long long series_id,
		     const struct db_comparison *rows, size_t n);

#endif
