/*
 * db_calib_json.h - the API's JSON view of a host's calibrations (read
 * by db_web.c for GET /api/v1/hosts), on db_calib.c's tables.
 */
#ifndef KREGRESS_DB_CALIB_JSON_H
#define KREGRESS_DB_CALIB_JSON_H

#include <jansson.h>

struct db;

/*
 * The API's view of a host's calibration (contract for GET
 * /api/v1/hosts): an object
 *   {"current": [C...], "last": L or null}
 * where each C is the newest done calibration of one (arch, accel,
 * clock, plan) of the host: its row (id, arch, accel, clock, plan,
 * reason, build_id, base_commit, seed, boots_per_side, budget, alpha,
 * threshold_pct, min_samples, simulations, target, boot_ms, started_at,
 * finished_at), "metrics" (a row per metric: workload, metric, params as
 * an object, unit, direction, is_primary, n, median, cv, comparisons,
 * false_alarms, significant, stop_mean, real_comparisons,
 * real_false_alarms, real_verdict, resolve_pct, alarm_pct,
 * threshold_pct, detectable_pct) and "false_alarms", what is published:
 *   {"target": T, "simulated": {"comparisons": N, "false_alarms": K,
 *    "max_rate": R, "metrics_over_target": M},
 *   "real": {"comparisons": N, "false_alarms": K, "calibrations": C}}
 * with "real" summed over every done calibration of that (arch, accel,
 * clock, plan) (N per metric and calibration); L is the newest row of
 * any status (id, status, status_reason, reason, arch, clock,
 * started_at, finished_at).  *out is the caller's, NULL when the host
 * has no calibration at all (the API's null).  Call it inside a read
 * transaction (db_json_read_begin()), so that the parts agree.
 */
int db_calib_host_json(struct db *db, long long host_id, json_t **out);

/* Entries db_calib_noise_json() returns at most. */
#define DB_CALIB_NOISE_MAX	200

/*
 * The noise of one metric on the hosts of an arch (contract for the
 * "noise" of GET /api/v1/trends): per host (host NULL: every host; else
 * that host name) the newest done calibration of each (accel, clock,
 * plan) of arch (the one the hosts page shows), one entry per row of
 * it for workload/metric (one per params), shaped
 *   {"calibration": ID, "host", "arch", "accel", "clock", "plan",
 *    "params" (an object), "unit", "direction", "is_primary", "n",
 *    "median", "cv" (a fraction), "resolve_pct", "alarm_pct",
 *    "threshold_pct", "detectable_pct", "boots_per_side", "build_id",
 *    "base_commit", "started_at", "finished_at"}
 * (the calibration's row and its metric row, as db_calib_host_json()
 * names them), by host, clock and newest first, at most
 * DB_CALIB_NOISE_MAX.  (host, accel, clock, plan, params) is what a
 * trend point of a run has to match: an entry speaks only of runs of its
 * own clock and plan.  *out is the caller's, NULL when there is none.
 * Call it inside a read transaction.
 */
int db_calib_noise_json(struct db *db, const char *arch, const char *host,
			const char *workload, const char *metric,
			json_t **out);

#endif
