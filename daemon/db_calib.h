/*
 * db_calib.h - the SQL of A/A calibrations (schema/0013_calibration.sql):
 * their rows and per-metric figures, what the scheduler asks (is one due,
 * is the daemon idle, which base to boot), which calibrations a run used,
 * and what the API serves of them.
 *
 * A calibration's boots are boot rows with calibration_id set (written
 * with db_run_boot_start() and db_run_boot_finish(), like a run's), so
 * that every boot on a host is in one table.  Each function takes the
 * calling thread's struct db and returns 0 or -1 (logged as
 * "calibrate: ..."), unless it says otherwise.
 */
#ifndef KREGRESS_DB_CALIB_H
#define KREGRESS_DB_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct calib_data;
struct calib_result;
struct calib_table;
struct db;

/* A calibration as it starts: what it boots and the design it serves. */
struct db_calib_design {
	long long host_id, build_id;
	const char *arch, *accel;
	const char *clock;		/* "real" or "instructions" */
	const char *plan;		/* the kregress.plan= argument */
	const char *reason;		/* new host, new plan, ... */
	uint64_t seed;
	unsigned int boots_per_side, budget, min_samples, simulations;
	double alpha, threshold_pct, target;
};

/* Inserts a 'running' calibration; *id gets its id. */
int db_calib_start(struct db *db, const struct db_calib_design *d,
		   long long *id);

/*
 * Ends calibration id 'done' with a row per metric of d (r[0..d->nm)
 * from calib_compute()) and the median boot time, in one transaction.
 */
int db_calib_done(struct db *db, long long id, const struct calib_data *d,
		  const struct calib_result *r, double boot_ms);

/* Ends it with status ('failed', 'interrupted') and why; its boots still
 * 'running' become 'interrupted'. */
int db_calib_end(struct db *db, long long id, const char *status,
		 const char *reason);

/*
 * Marks the 'running' calibrations of arch (a previous attempt's: one
 * calibrate job per arch runs at a time) and their running boots
 * 'interrupted'; *n (may be NULL) gets how many calibrations.
 */
int db_calib_interrupt(struct db *db, const char *arch, int *n);

/* What the scheduler needs to know of one (host, arch, accel, clock, plan). */
struct db_calib_state {
	int host_known;		/* the host has any done calibration */
	int plan_known;		/* ... with this accel, clock and plan */
	long long build_id;	/* the newest such: the base it booted */
	long long finished_at;
	long long failed_at;	/* the newest row failed then; 0 = not */
};

int db_calib_state(struct db *db, long long host_id, const char *arch,
		   const char *accel, const char *clock, const char *plan,
		   struct db_calib_state *st);

/*
 * The base a calibration of arch boots: the newest (highest id) build
 * that is a series' base, built ok, with an image.  0 with *build_id and
 * *image (caller frees), 1 when there is none, -1 on error.
 */
int db_calib_base(struct db *db, const char *arch, long long *build_id,
		  char **image);

/* The ok build whose image is image: 0 with *build_id, 1 if none. */
int db_calib_build_of(struct db *db, const char *image, long long *build_id);

/*
 * The daemon is idle: no job other than a calibration is queued or
 * running, and none ended in the last idle_s seconds.  *idle gets 1 or 0.
 */
int db_calib_idle(struct db *db, int idle_s, int *idle);

/* Queues a calibrate job for arch unless one is queued or running
 * already; *queued gets 1 when it did. */
int db_calib_queue(struct db *db, const char *arch, int *queued);

/*
 * Links run_id to the newest done calibration of each of its hosts for
 * (arch, accel, clock, plan), the ones its looks use; n may be 0.
 */
int db_calib_link_run(struct db *db, long long run_id,
		      const long long *host_ids, size_t n, const char *arch,
		      const char *accel, const char *clock, const char *plan);

/*
 * Adds the word of the calibrations linked to run_id on each metric to t
 * (calib_table_add()): the floor is the larger of resolve and alarm,
 * failed means more simulated false alarms than the calibration's target
 * allows or any real one.
 */
int db_calib_for_run(struct db *db, long long run_id, struct calib_table *t);

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
