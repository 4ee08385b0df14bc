/*
 * db_web.h - the queries behind the dashboard's API routes (api_web.c):
 * a run with every per-boot value, trends over base commits, hosts, two
 * builds compared, the console log of a boot, a series' mails and the
 * values the filters offer.
 *
 * Reads return jansson values shaped as the API serves them (column name
 * = JSON key, see db_json.h); "params" members are JSON objects.  Each
 * function returns 0 or -1 (logged) and reads in one transaction.
 */
#ifndef KREGRESS_DB_WEB_H
#define KREGRESS_DB_WEB_H

#include <jansson.h>

struct db;
struct stats_opts;

/* Boots per side and group that db_web_compare() reads, newest first. */
#define DB_WEB_COMPARE_BOOTS	200

/*
 * One run: its row (arch, accel, clock, seed, plan, status, rounds,
 * times, design; the seed as text, since a JSON number read as a double
 * loses its low bits), "boots" (each boot with side, seq, round, attempt,
 * status, reason, host, duration, "console": whether a log is recorded)
 * and "metrics": per (workload, metric, params) of the run's complete
 * boots (status ok), "base" and "patched" as {"boots": [id, ...],
 * "values": [v, ...]}, each value the median of that boot's iterations
 * (the reduction the analysis makes, analyze.c), with unit, direction
 * and is_primary.  *out is NULL when there is no such run.
 */
int db_web_run(struct db *db, long long run_id, json_t **out);

struct db_web_trend_filter {
	const char *tree;	/* tree name; required */
	const char *arch;	/* required */
	const char *workload;	/* required */
	const char *metric;	/* required */
	const char *host;	/* host name; NULL = every host */
	int limit;		/* newest points, > 0 */
};

/*
 * The analysed comparisons of that metric on that tree and arch, newest
 * run first: one point per run (run, series, subject, base commit, run
 * start, host, accel, plan, clock, params, unit, direction, n and median
 * per side, change, verdict).  *more is 1 when older points were left
 * out by the limit.  *noise is db_calib_noise_json()'s of the same arch,
 * host, workload and metric, from the same snapshot (NULL: no
 * calibration); a point and an entry of equal (host, accel, clock, plan,
 * params) belong together.
 */
int db_web_trends(struct db *db, const struct db_web_trend_filter *f,
		  json_t **out, int *more, json_t **noise);

/*
 * Every host with its probe (arch, accel, cpu, memory, when), health,
 * capacity, the boots running on it now and in all, and "calibration"
 * (null: no A/A calibration is recorded yet).
 */
int db_web_hosts(struct db *db, json_t **out);

/*
 * Builds a and b side by side: "a" and "b" (the build rows) and
 * "groups", one per (host, plan, clock) where both have complete boots,
 * each with "metrics" shaped as db_web_run()'s ("base" is a, "patched"
 * is b; at most DB_WEB_COMPARE_BOOTS newest boots a side), each with its
 * "comparison": stats.c's test of the per-boot values with o, under the
 * keys of a comparison row (n, medians, change_pct, ci_low_pct,
 * ci_high_pct, p_value, verdict, flags) and "test".  No p adjustment:
 * this is one metric at a time, as `kregress compare`.  *out is NULL
 * when either build does not exist.
 */
int db_web_compare(struct db *db, long long a, long long b,
		   const struct stats_opts *o, json_t **out);

/*
 * The console log path recorded for a boot (*path, to free; NULL when
 * none is) and whether the boot has finished.  *found is 0 when there is
 * no such boot.
 */
int db_web_console(struct db *db, long long boot_id, int *found,
		   char **path, int *finished);

/*
 * The mails of a series (every notification column but the message
 * itself), in the order written; *out is NULL when there is no series.
 */
int db_web_notifications(struct db *db, long long series_id, json_t **out);

/*
 * The values the dashboard's filters offer: "statuses", "lists",
 * "trees", "arches", "verdicts", "hosts" and "metrics" ([{workload,
 * metric}] of the comparisons).
 */
int db_web_facets(struct db *db, json_t **out);

#endif
